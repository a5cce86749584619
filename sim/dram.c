/* dram.c -- the memory controllers: the fixed-latency DRAM of the arch files
 * without a DRAM organisation, and channels of banks with row buffers and an
 * FR-FCFS scheduler for those with one.
 *
 * Fixed latency ([DRAM] latency, requests_per_cycle; no `channels`): a request
 * leaving the L2 is accepted in the next free slot of `requests_per_cycle` per
 * cycle and comes back DRAM - L2 cycles later -- the model every arch file
 * written before issue 12 keeps.
 *
 * Channels ([DRAM] channels, banks, row, interleave, tRCD tRP tCL tRAS tCCD
 * tWR tRTW tWTR, burst_cycles, queue_entries).  The address map is the arch's
 * (gd_arch_dram_locate: `interleave` bytes per channel in turn, consecutive
 * rows of a channel on consecutive banks).  A request reaches its channel's
 * queue after the fixed part of the path (DRAM - L2 - tCL: crossbar,
 * controller, PHY) and waits for its bank; each cycle a channel issues at most
 * one request, chosen FR-FCFS among the oldest `queue_entries` whose bank can
 * take a command: the oldest row hit first, else the oldest.  Open-row policy:
 * a row stays open until another row of its bank is needed -- or, with
 * [DRAM] row_timeout, until it has been idle that long (below).  Timing, in SM
 * cycles:
 *   row hit       column command now;
 *   row closed    activate (not before a timeout's precharge has ended),
 *                 column command tRCD later (a "row miss");
 *   row conflict  precharge (not before the activate + tRAS, nor a write's data
 *                 end + tWR), activate tRP later, column command tRCD after;
 *   column commands of a channel tCCD apart; a read after a write waits tWTR
 *   after the write's data, a write after a read tRTW after the read's;
 *   data tCL after the column command, on the channel's bus for burst_cycles
 *   per 32-byte sector (one data bus per channel: its bandwidth).
 * [DRAM] latency is the load-to-use latency of a row hit on an idle channel;
 * a pointer chase on an idle bank measures latency + tRCD for a closed row and
 * latency + tRP + tRCD for a conflict.  Reads return their data to the L2 slice
 * at the first data cycle; writes leave when issued.
 *
 * Page-close timeout ([DRAM] row_timeout, SM cycles; 0 or absent: never, the
 * open-row policy above): the controller precharges a bank on its own once
 * row_timeout cycles have passed since the bank's last column command -- the
 * last command its open row took (an activate is always followed by one) --
 * but not before the activate + tRAS nor a write's data end + tWR (the same
 * bound as a conflict's precharge); the precharge takes tRP.  So a bank idle
 * that long is closed: the next access pays tRCD (a row miss), not tRP + tRCD
 * (a conflict).  A request that finds the self-precharge under way waits for
 * its end, then activates, and is counted as a miss (closed), even for the row
 * that was open; FR-FCFS does not take a timed-out row for a hit.  The timer
 * counts whatever waits in the queue (a request held back by a write drain may
 * find its row closed).  Lazy: nothing runs at the timeout; a bank's close is
 * applied when a request is next scheduled on it (bank_open_at, issue), from
 * the bank's last column command and its precharge bound, which only an issue
 * to that bank changes -- so the answer is the one a per-cycle timer would
 * give, with no event or per-cycle work.
 *
 * PCM ([DRAM] kind = pcm, issue 13): the same channels, with a write holding
 * its bank `pcm_write` cycles after its data (the array write; no command to
 * that bank meanwhile) and a row activation taking `pcm_read_extra` more
 * cycles; the write buffer in front of the channels is pcm.c's.
 *
 * Writes drained in batches ([DRAM] write_high, write_low; GPGPU-Sim's
 * -dram_seperate_write_queue_enable with -dram_write_queue_size N:high:low):
 * a channel schedules reads only (FR-FCFS among them) until write_high writes
 * are queued or no read is, then writes only until none is left, or write_low
 * are left and a read waits -- so a copy's reads and write-backs do
 * not turn the bus around and close each other's rows request by request.
 * Without the keys reads and writes share one FR-FCFS.
 *
 * Not modelled: refresh, tRRD/tFAW, bank groups, a bound on the write queue
 * (the L2 is never refused by a full one).
 * Counters: row hits / misses (closed) / conflicts, queue occupancy at each
 * scheduling step, data-bus busy cycles, read/write turnarounds.
 */
#include "sim/memsys.h"

typedef struct dram_bank {
    int open;
    uint64_t row;
    uint64_t ready;            /* next column command to this bank */
    uint64_t precharge_ok;     /* tRAS after the activate, tWR after a write's data */
    uint64_t last_column;      /* row_timeout: the open row's last column command */
    uint64_t activate_ok;      /* row_timeout: the end of the last self-precharge */
} dram_bank;

typedef struct dram_channel {
    int32_t *queue;            /* arrival order */
    uint32_t count, cap;
    uint64_t next_command;
    uint64_t last_column;
    uint64_t bus_free;
    uint64_t last_data_end;
    int has_last, last_write;
    uint32_t writes;           /* queued writes */
    int draining;              /* write_high: scheduling writes only */
    dram_bank *banks;
} dram_channel;

struct sim_dram {
    dram_channel *ch;
    uint32_t channels;
    uint32_t *busy;            /* channels with a queue, and their count */
    uint32_t busy_count;
    uint8_t *listed;
    uint32_t front_cycles;     /* DRAM - L2 - tCL */
    uint32_t queued;           /* requests in all queues */
    sim_msg_heap data;         /* reads whose data is on its way */
};

int sim_dram_create(sim_engine *e, gd_err *err)
{
    const gd_arch *a = e->arch;
    const gd_arch_dram *d = &a->level[GD_DRAM].dram;
    sim_memsys *ms = e->memsys;
    if (sim_pcm_create(e, err) != 0)
        return -1;
    if (!d->channels)
        return 0;
    sim_dram *dr = calloc(1, sizeof *dr);
    if (!dr)
        return gd_fail(err, "sim: out of memory for DRAM");
    ms->dram = dr;
    dr->channels = d->channels;
    dr->front_cycles = a->level[GD_DRAM].latency_cycles - a->level[GD_L2].latency_cycles - d->t_cl;
    dr->ch = calloc(d->channels, sizeof *dr->ch);
    dr->busy = calloc(d->channels, sizeof *dr->busy);
    dr->listed = calloc(d->channels, 1);
    if (!dr->ch || !dr->busy || !dr->listed)
        return gd_fail(err, "sim: out of memory for DRAM");
    for (uint32_t c = 0; c < d->channels; c++) {
        dr->ch[c].banks = calloc(d->banks, sizeof *dr->ch[c].banks);
        if (!dr->ch[c].banks)
            return gd_fail(err, "sim: out of memory for DRAM");
    }
    return 0;
}

void sim_dram_destroy(sim_engine *e)
{
    sim_dram *dr = e->memsys->dram;
    sim_pcm_destroy(e);
    if (!dr)
        return;
    if (dr->ch)
        for (uint32_t c = 0; c < dr->channels; c++) {
            free(dr->ch[c].banks);
            free(dr->ch[c].queue);
        }
    free(dr->ch);
    free(dr->busy);
    free(dr->listed);
    sim_heap_free(&dr->data);
    free(dr);
    e->memsys->dram = NULL;
}

int sim_dram_busy(const sim_engine *e)
{
    const sim_memsys *ms = e->memsys;
    if (sim_pcm_busy(e))
        return 1;
    if (!ms->dram)
        return ms->dram_queue.count != 0;
    return ms->dram->queued || ms->dram->data.count;
}

/* ------------------------------------------------------------------------- */
/* Fixed latency                                                             */

static void fixed_submit(sim_engine *e, int32_t mid, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    uint32_t per_cycle = e->arch->level[GD_DRAM].requests_per_cycle;
    if (ms->dram_slot_cycle < cycle) {
        ms->dram_slot_cycle = cycle;
        ms->dram_slot_used = 0;
    }
    if (ms->dram_slot_used >= per_cycle) {
        ms->dram_slot_cycle++;
        ms->dram_slot_used = 0;
    }
    ms->dram_slot_used++;
    ms->msg[mid].ready = ms->dram_slot_cycle + ms->l2_to_dram_cycles;
    ring_push(&ms->dram_queue, mid);
}

static void fixed_tick(sim_engine *e, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    while (ms->dram_queue.count && ms->msg[ring_peek(&ms->dram_queue)].ready <= cycle) {
        int32_t mid = ring_pop(&ms->dram_queue);
        if (ms->msg[mid].is_store)
            sim_msg_free(ms, mid);
        else
            sim_mainmem_read_done(e, mid, cycle);
    }
}

/* ------------------------------------------------------------------------- */
/* Channels, banks, rows                                                     */

static uint32_t popcount32(uint32_t x)
{
    uint32_t n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}

void sim_dram_submit(sim_engine *e, int32_t mid, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    sim_dram *dr = ms->dram;
    if (ms->pcm && !ms->msg[mid].wb_internal && sim_pcm_submit(e, mid, cycle))
        return;
    if (ms->pcm && ms->msg[mid].is_store && !ms->msg[mid].wb_internal)
        e->stats.mem_write_bytes_out += (uint64_t)popcount32(ms->msg[mid].sectors) * 32;
    if (!dr) {
        fixed_submit(e, mid, cycle);
        return;
    }
    uint32_t channel, bank;
    uint64_t row;
    gd_arch_dram_locate(e->arch, ms->msg[mid].addr, &channel, &bank, &row);
    ms->msg[mid].dram_channel = (uint16_t)channel;
    ms->msg[mid].dram_bank = (uint16_t)bank;
    ms->msg[mid].dram_row = row;
    dram_channel *ch = &dr->ch[channel];
    if (!dr->listed[channel]) {
        dr->listed[channel] = 1;
        dr->busy[dr->busy_count++] = channel;
    }
    if (ch->count == ch->cap) {
        uint32_t ncap = ch->cap ? ch->cap * 2 : 16;
        int32_t *nq = realloc(ch->queue, ncap * sizeof *nq);
        if (!nq) {
            sim_engine_fail(e, "sim: out of host memory (DRAM queue)");
            return;
        }
        ch->queue = nq;
        ch->cap = ncap;
    }
    ms->msg[mid].ready = cycle + dr->front_cycles;
    ch->queue[ch->count++] = mid;
    ch->writes += ms->msg[mid].is_store != 0;
    dr->queued++;
}

/* Which requests channel `ch` schedules at its next step: -1 both (one
 * FR-FCFS), 1 writes only (a drain), 0 reads only.  The mode it would set
 * now, from its queue and its current mode -- the same for the step and for
 * the next-event query between them. */
static int channel_mode(const gd_arch_dram *d, const dram_channel *ch)
{
    if (!d->write_high)
        return -1;
    uint32_t writes = ch->writes, reads = ch->count - writes;
    if (!ch->draining)
        return writes >= d->write_high || (!reads && writes);
    return writes && !(reads && writes <= d->write_low);
}

/* Whether `msg` is among the requests `mode` (channel_mode) schedules. */
static int in_mode(const sim_msg *msg, int mode)
{
    return mode < 0 || (msg->is_store != 0) == mode;
}

/* With [DRAM] row_timeout, the cycle the controller starts precharging
 * `bank`'s open row on its own: row_timeout after its last column command, not
 * before precharge_ok (activate + tRAS, a write's data end + tWR).  UINT64_MAX
 * without a timeout or with the bank closed. */
static uint64_t timeout_precharge(const gd_arch_dram *d, const dram_bank *bank)
{
    if (!d->row_timeout || !bank->open)
        return UINT64_MAX;
    uint64_t at = bank->last_column + d->row_timeout;
    return at > bank->precharge_ok ? at : bank->precharge_ok;
}

/* Whether `bank`'s row is still open at `cycle`: open, and its timeout's
 * precharge not yet begun. */
static int bank_open_at(const gd_arch_dram *d, const dram_bank *bank, uint64_t cycle)
{
    return bank->open && cycle < timeout_precharge(d, bank);
}

/* Issues queue entry `i` of channel `c` at `cycle`. */
static void issue(sim_engine *e, dram_channel *ch, uint32_t i, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    sim_dram *dr = ms->dram;
    const gd_arch_dram *d = &e->arch->level[GD_DRAM].dram;
    int32_t mid = ch->queue[i];
    sim_msg *msg = &ms->msg[mid];
    uint64_t row = msg->dram_row;
    dram_bank *bank = &ch->banks[msg->dram_bank];
    uint64_t column = cycle, activate = 0;
    int activated = 0;
    if (bank->open && !bank_open_at(d, bank, cycle)) {
        /* the timeout closed the row by now (its precharge may still run) */
        bank->activate_ok = timeout_precharge(d, bank) + d->t_rp;
        bank->open = 0;
    }
    if (bank->open && bank->row == row) {
        e->stats.dram_row_hits++;
    } else if (!bank->open) {
        e->stats.dram_row_misses++;
        activate = cycle > bank->activate_ok ? cycle : bank->activate_ok;
        activated = 1;
    } else {
        e->stats.dram_row_conflicts++;
        uint64_t pre = cycle > bank->precharge_ok ? cycle : bank->precharge_ok;
        activate = pre + d->t_rp;
        activated = 1;
    }
    if (activated)
        column = activate + d->t_rcd + (d->kind == GD_MEM_PCM ? d->pcm_read_cycles : 0);
    if (ch->has_last && column < ch->last_column + d->t_ccd)
        column = ch->last_column + d->t_ccd;
    if (ch->has_last && ch->last_write != msg->is_store) {
        e->stats.dram_turnarounds++;
        uint64_t turn = ch->last_data_end + (msg->is_store ? d->t_rtw : d->t_wtr);
        if (column < turn)
            column = turn;
    }
    uint64_t data = column + d->t_cl;
    if (data < ch->bus_free)
        data = ch->bus_free;
    uint32_t sectors = popcount32(msg->sectors);
    uint64_t burst = (uint64_t)d->burst_cycles * (sectors ? sectors : 1);
    ch->bus_free = data + burst;
    e->stats.dram_bus_busy_cycles += burst;
    ch->last_column = column;
    ch->last_data_end = data + burst;
    ch->last_write = msg->is_store;
    ch->has_last = 1;
    bank->open = 1;
    bank->row = row;
    bank->ready = column + d->t_ccd;
    bank->last_column = column;
    if (activated)
        bank->precharge_ok = activate + d->t_ras;
    if (msg->is_store && bank->precharge_ok < data + burst + d->t_wr)
        bank->precharge_ok = data + burst + d->t_wr;
    if (msg->is_store && d->kind == GD_MEM_PCM) {
        /* the PCM array write: the bank takes no command until it ends */
        uint64_t end = data + burst + d->pcm_write_cycles;
        if (bank->ready < end)
            bank->ready = end;
        if (bank->precharge_ok < end)
            bank->precharge_ok = end;
        e->stats.pcm_array_writes++;
        e->stats.pcm_write_bytes += (uint64_t)(sectors ? sectors : 1) * 32;
    }
    /* out of the queue, keeping the others' order */
    memmove(&ch->queue[i], &ch->queue[i + 1], (ch->count - i - 1) * sizeof *ch->queue);
    ch->count--;
    ch->writes -= msg->is_store != 0;
    dr->queued--;
    ch->next_command = cycle + 1;
    if (msg->is_store) {
        sim_msg_free(ms, mid);
        return;
    }
    msg->ready = data;
    if (sim_heap_push(&dr->data, data, mid) != 0)
        sim_engine_fail(e, "sim: out of host memory (DRAM data)");
}

/* FR-FCFS over the channel's window of the requests `mode` schedules (-1:
 * all): the oldest ready row hit, else the oldest ready request; UINT32_MAX
 * when none can go now. */
static uint32_t pick(const sim_engine *e, const dram_channel *ch, uint32_t window, int mode,
                     uint64_t cycle)
{
    const sim_memsys *ms = e->memsys;
    const gd_arch_dram *d = &e->arch->level[GD_DRAM].dram;
    uint32_t oldest = UINT32_MAX;
    for (uint32_t i = 0, seen = 0; i < ch->count && seen < window; i++) {
        const sim_msg *msg = &ms->msg[ch->queue[i]];
        if (!in_mode(msg, mode))
            continue;
        seen++;
        if (msg->ready > cycle)
            continue;
        const dram_bank *bank = &ch->banks[msg->dram_bank];
        if (bank->ready > cycle)
            continue;
        if (bank_open_at(d, bank, cycle) && bank->row == msg->dram_row)
            return i;
        if (oldest == UINT32_MAX)
            oldest = i;
    }
    return oldest;
}

void sim_dram_tick(sim_engine *e, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    sim_dram *dr = ms->dram;
    if (ms->pcm)
        sim_pcm_tick(e, cycle);
    if (!dr) {
        fixed_tick(e, cycle);
        return;
    }
    while (dr->data.count && sim_heap_next_due(&dr->data) <= cycle)
        sim_mainmem_read_done(e, sim_heap_pop(&dr->data), cycle);
    if (!dr->queued)
        return;
    uint32_t window = e->arch->level[GD_DRAM].dram.queue_entries;
    for (uint32_t k = 0; k < dr->busy_count;) {
        uint32_t c = dr->busy[k];
        dram_channel *ch = &dr->ch[c];
        if (ch->count && ch->next_command <= cycle) {
            e->stats.dram_queue_occupancy_sum += ch->count;
            e->stats.dram_queue_samples++;
            const gd_arch_dram *d = &e->arch->level[GD_DRAM].dram;
            int mode = channel_mode(d, ch);
            if (mode >= 0)
                ch->draining = mode;
            uint32_t i = pick(e, ch, window, mode, cycle);
            if (i != UINT32_MAX)
                issue(e, ch, i, cycle);
        }
        if (!ch->count) {
            dr->listed[c] = 0;
            dr->busy[k] = dr->busy[--dr->busy_count];
        } else {
            k++;
        }
    }
}

uint64_t sim_dram_next_event(const sim_engine *e, uint64_t now)
{
    const sim_memsys *ms = e->memsys;
    const sim_dram *dr = ms->dram;
    uint64_t best = sim_pcm_next_event(e, now);
    if (!dr) {
        if (ms->dram_queue.count) {
            uint64_t t = ms->msg[ring_peek(&ms->dram_queue)].ready;
            t = t < now ? now : t;
            if (t < best)
                best = t;
        }
        return best;
    }
    if (dr->data.count) {
        uint64_t t = sim_heap_next_due(&dr->data);
        t = t < now ? now : t;
        if (t < best)
            best = t;
    }
    if (!dr->queued)
        return best;
    uint32_t window = e->arch->level[GD_DRAM].dram.queue_entries;
    for (uint32_t k = 0; k < dr->busy_count && best > now; k++) {
        const dram_channel *ch = &dr->ch[dr->busy[k]];
        int mode = channel_mode(&e->arch->level[GD_DRAM].dram, ch);
        for (uint32_t i = 0, seen = 0; i < ch->count && seen < window; i++) {
            const sim_msg *msg = &ms->msg[ch->queue[i]];
            if (!in_mode(msg, mode))
                continue;
            seen++;
            uint64_t t = msg->ready;
            if (ch->banks[msg->dram_bank].ready > t)
                t = ch->banks[msg->dram_bank].ready;
            if (ch->next_command > t)
                t = ch->next_command;
            if (t < now)
                t = now;
            if (t < best)
                best = t;
        }
    }
    return best;
}
