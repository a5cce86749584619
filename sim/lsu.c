/* lsu.c -- the load/store unit of one SM: the coalescer, the L1 request FIFO
 * and the order in which its requests reach the L1 tags.
 *
 *   warp ld/st --> coalescer --> request FIFO --> L1D tags (l1d.c) --> MSHRs,
 *                  (coalescer_    (fifo_entries)   (tag_lookups a cycle) miss queue
 *                   rate/cycle)    ^       |       hit / miss / merge / refused
 *                                  +-------+  reorder: a refused head goes to the tail
 *
 * The coalescer turns one warp memory instruction into one request per L1 line
 * its lanes touch (in lane order), each with the mask of the line's sectors they
 * use, and puts up to coalescer_rate requests per cycle at the FIFO tail (32: a
 * whole instruction at once, GPGPU-Sim's access queue).  Each cycle the FIFO
 * head probes the L1 tags (l1d.c), up to tag_lookups requests; a hit, a miss or
 * a merge leaves the FIFO.  The baseline accepts a new memory instruction while
 * fewer than queued_instructions (1: GPGPU-Sim's one dispatch register, the
 * patent's para. 0005) have requests in the FIFO.  A refused request (a *reservation fail*: every way of its set
 * reserved, no MSHR, merge limit, miss queue full) is where the two mechanisms
 * of CN110457238A come in, each an arch flag of [L1D] (and `--set`):
 *
 *   baseline          the refused head stays and blocks every request behind it
 *                     (head-of-line blocking, as GPGPU-Sim and today's GPUs), and
 *                     the LSU accepts the next memory instruction only when all
 *                     requests of the current one have left the FIFO;
 *   reorder           the refused head is popped and re-enqueued at the tail, so
 *                     the request behind it probes the next cycle.  The tail takes
 *                     one request per cycle: when the re-enqueued request and the
 *                     coalescer's want it in the same cycle, the re-enqueued one
 *                     wins and the coalescer pauses (patent, claim 6);
 *   pipelined_issue   the LSU accepts the next memory instruction as soon as the
 *                     coalescer has emitted every request of the current one; the
 *                     coalescer then pauses only while the FIFO is full (claims
 *                     3-4).
 *
 * Refused probes are modelled cycle by cycle -- every cycle a refused request
 * is retried counts as a reservation fail, as in GPGPU-Sim -- but not simulated
 * cycle by cycle: a refused probe changes nothing, so once every candidate has
 * been refused in the current state (the head, in the baseline; every entry in a
 * row, with reorder) the tags sleep until a fill or a freed miss-queue slot
 * could change an answer, and sim_lsu_wake then charges the skipped cycles
 * (their fails, and with reorder their rotations of the FIFO) exactly as the
 * per-cycle model would have spent them.  Long stalls thus cost no simulation
 * time, and the trace hook still sees every cycle's event.
 */
#include "sim/memsys.h"

#include <string.h>

#define COALESCE_SECTOR_BYTES 32 /* the 32-B sector of NVIDIA's L1/L2 since Maxwell (seed 004) */
#define COALESCE_SLOTS 64        /* the coalescer's table of lines: twice a warp's lanes */
#define COALESCE_SLOT_FREE 0xffu

/* ------------------------------------------------------------------------- */
/* Set-up                                                                    */

int sim_lsu_create(sim_engine *e, sim_sm *sm, gd_err *err)
{
    const gd_arch *a = e->arch;
    const gd_arch_level *l1 = &a->level[GD_L1D];
    const gd_arch_level *l2 = &a->level[GD_L2];
    sim_lsu *lsu = calloc(1, sizeof *lsu);
    if (!lsu)
        return gd_fail(err, "sim: out of memory");
    sm->lsu = lsu;
    if (sim_cache_init(&lsu->l1, l1, a->gpu.seed + 31ull * sm->id + 1, err))
        return -1;
    if (mshr_init(&lsu->mshr, l1->mshr_entries, l1->mshr_merge) ||
        ring_init(&lsu->fifo, l1->fifo_entries) ||
        ring_init(&lsu->miss_queue, l1->miss_queue_entries) || ring_init(&lsu->returns, 0))
        return gd_fail(err, "sim: out of memory for an LSU");
    lsu->hit_tail = l1->latency_cycles ? l1->latency_cycles - 1 : 0;
    /* what reaches the L2 without an L1 fill moves in L2 sectors (ld.cg of
     * 8 bytes fetches 32, not a whole 128-byte L1 line); at most 32 per line */
    uint32_t l1_sector = l1->sector_bytes ? l1->sector_bytes : l1->line_bytes;
    uint32_t l2_sector = l2->sector_bytes ? l2->sector_bytes : l2->line_bytes;
    lsu->fine_bytes = l1_sector < l2_sector ? l1_sector : l2_sector;
    if (lsu->fine_bytes < l1->line_bytes / 32)
        lsu->fine_bytes = l1->line_bytes / 32;
    lsu->reorder = l1->reorder;
    lsu->pipelined_issue = l1->pipelined_issue;
    lsu->tail_ports = l1->fifo_tail_ports ? l1->fifo_tail_ports : 1;
    lsu->coalescer_rate = l1->coalescer_rate ? l1->coalescer_rate : 1;
    lsu->tag_lookups = l1->tag_lookups ? l1->tag_lookups : 1;
    lsu->queued_instructions = l1->queued_instructions ? l1->queued_instructions : 1;
    lsu->hol_since = SIM_NEVER;
    return 0;
}

void sim_lsu_destroy(sim_sm *sm)
{
    sim_lsu *lsu = sm->lsu;
    if (!lsu)
        return;
    sim_cache_destroy(&lsu->l1);
    free(lsu->mshr.entries);
    ring_free(&lsu->fifo);
    ring_free(&lsu->miss_queue);
    ring_free(&lsu->returns);
    free(lsu);
    sm->lsu = NULL;
}

int sim_lsu_set_l1d_ways(sim_engine *e, sim_sm *sm, uint32_t ways, gd_err *err)
{
    sim_lsu *lsu = sm->lsu;
    if (lsu->l1.ways == ways)
        return 0;
    gd_arch_level l1 = e->arch->level[GD_L1D];
    l1.ways = ways;
    l1.size_bytes = (uint64_t)ways * l1.sets * l1.line_bytes;
    /* the same seed as at creation: a launch's random victims do not depend on
     * the carve-outs earlier launches had */
    sim_cache_destroy(&lsu->l1);
    return sim_cache_init(&lsu->l1, &l1, e->arch->gpu.seed + 31ull * sm->id + 1, err);
}

void sim_lsu_launch_begin(sim_engine *e, sim_sm *sm)
{
    /* L1s are invalidated at a kernel boundary (GPGPU-Sim -gpgpu_flush_l1_cache) */
    (void)e;
    sim_cache_flush(&sm->lsu->l1);
}

/* ------------------------------------------------------------------------- */
/* Trace                                                                     */

const char *sim_lsu_event_name(sim_lsu_event_kind kind)
{
    static const char *const names[SIM_LSU_EVENT_KINDS] = {
        [SIM_LSU_ACCEPT] = "accept", [SIM_LSU_ENQUEUE] = "enqueue", [SIM_LSU_HIT] = "hit",
        [SIM_LSU_MISS] = "miss",     [SIM_LSU_MERGE] = "merge",     [SIM_LSU_SEND] = "send",
        [SIM_LSU_RESV_FAIL] = "resv_fail", [SIM_LSU_REQUEUE] = "requeue",
        [SIM_LSU_POP] = "pop",       [SIM_LSU_FILL] = "fill",
    };
    return kind < SIM_LSU_EVENT_KINDS ? names[kind] : "?";
}

const char *sim_resv_reason_name(sim_resv_reason reason)
{
    static const char *const names[SIM_RESV_REASONS] = {
        [SIM_RESV_NONE] = "none", [SIM_RESV_SET] = "set", [SIM_RESV_MSHR] = "mshr",
        [SIM_RESV_MERGE] = "merge", [SIM_RESV_MISS_QUEUE] = "miss_queue",
    };
    return reason < SIM_RESV_REASONS ? names[reason] : "?";
}

void sim_lsu_trace(sim_engine *e, const sim_sm *sm, const sim_request *r, sim_lsu_event_kind kind,
                   sim_resv_reason reason, uint64_t cycle)
{
    const sim_cache *c = &sm->lsu->l1;
    sim_lsu_event ev = {
        .cycle = cycle,
        .instr = r->instr_seq,
        .line_addr = r->line_addr,
        .sm = sm->id,
        .set = sim_cache_set_of(c, sim_cache_line_of(c, r->line_addr)),
        .request = r->index,
        .kind = (uint8_t)kind,
        .reason = (uint8_t)reason,
    };
    e->lsu_trace(e->lsu_trace_user, &ev);
}

/* ------------------------------------------------------------------------- */
/* Accounting: per-cycle quantities integrated over intervals                */

/* FIFO occupancy: the count after a cycle's changes holds until the next
 * change, so integrate the old count up to `cycle` before changing it. */
static void fifo_account(sim_engine *e, sim_lsu *lsu, uint64_t cycle)
{
    if (cycle > lsu->occupancy_cycle) {
        e->stats.l1d_fifo_occupancy_sum += (uint64_t)lsu->fifo.count * (cycle - lsu->occupancy_cycle);
        lsu->occupancy_cycle = cycle;
    }
}

static void fifo_push(sim_engine *e, sim_lsu *lsu, int32_t rid, uint64_t cycle)
{
    fifo_account(e, lsu, cycle);
    ring_push(&lsu->fifo, rid);
    if (lsu->fifo.count > e->stats.l1d_fifo_max)
        e->stats.l1d_fifo_max = lsu->fifo.count;
}

static void coalescer_stalls(sim_lsu *lsu, uint64_t cycle)
{
    if (!lsu->coalescer_stalled) {
        lsu->coalescer_stalled = 1;
        lsu->coalescer_stalled_since = cycle;
    }
}

static void coalescer_moves(sim_engine *e, sim_lsu *lsu, uint64_t cycle)
{
    if (lsu->coalescer_stalled) {
        e->stats.lsu_coalescer_stall_cycles += cycle - lsu->coalescer_stalled_since;
        lsu->coalescer_stalled = 0;
    }
}

void sim_lsu_refused_issue(sim_sm *sm, uint64_t cycle)
{
    sim_lsu *lsu = sm->lsu;
    lsu->refused_waiters = 1;
    if (!lsu->issue_refused) {
        lsu->issue_refused = 1;
        lsu->issue_refused_since = cycle;
    }
}

/* The LSU can accept an instruction from the next cycle: the refused warps
 * (parked by sim/gpu.c's issue) look again then, in their usual order. */
static void wake_refused(sim_engine *e, sim_sm *sm, uint64_t cycle)
{
    sm->lsu->refused_waiters = 0;
    for (uint32_t i = 0; i < e->arch->gpu.max_warps_per_sm; i++) {
        sim_warp *w = &sm->warps[i];
        if (w->lsu_parked) {
            w->lsu_parked = 0;
            if (w->ready_cycle == SIM_NEVER)
                sim_warp_ready_at(w, 0);
        }
    }
    sim_engine_wake_at(e, cycle + 1);
}

/* ------------------------------------------------------------------------- */
/* Coalescer and issue                                                       */

int sim_lsu_can_accept(const sim_sm *sm)
{
    const sim_lsu *lsu = sm->lsu;
    if (lsu->coalesce_count)
        return 0;
    /* Baseline: the next memory instruction waits until every request of the
     * current one has left the FIFO (queued_instructions = 1, GPGPU-Sim's one
     * m_dispatch_reg; more let that many instructions' requests share the FIFO).
     * CN110457238A's pipelined issue accepts it as soon as the coalescer has
     * emitted them all. */
    return lsu->pipelined_issue || lsu->instrs_in_fifo < lsu->queued_instructions;
}

/* A request of instruction `seq` entered (+1) or left (-1) the FIFO; returns 1
 * when the instruction has no request left there. */
static int instr_in_fifo(sim_lsu *lsu, uint64_t seq, int delta)
{
    uint16_t *n = &lsu->in_fifo_of[seq % SIM_LSU_INSTR_SLOTS];
    if (delta > 0) {
        if ((*n)++ == 0)
            lsu->instrs_in_fifo++;
        return 0;
    }
    if (--*n == 0) {
        lsu->instrs_in_fifo--;
        return 1;
    }
    return 0;
}

void sim_lsu_issue(sim_engine *e, sim_sm *sm, sim_warp *w, const sim_mem_access *acc,
                   uint16_t dst, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    sim_lsu *lsu = sm->lsu;
    if (lsu->issue_refused) {
        e->stats.lsu_issue_stall_cycles += cycle - lsu->issue_refused_since;
        lsu->issue_refused = 0;
    }
    int32_t load_id = -1;
    if (!acc->is_store) {
        POOL_ALLOC(ms, load, load_cap, load_free, load_id);
        if (load_id < 0) {
            sim_engine_fail(e, "sim: out of host memory (loads)");
            return;
        }
        sim_load *ld = &ms->load[load_id];
        ld->warp = w;
        ld->dst = dst;
        ld->outstanding = 0;
        ld->done_cycle = 0;
        w->pending_loads++;
        if (dst != PTX_NO_REG)
            w->reg_ready[dst] = SIM_NEVER;
        ld->dst_more = acc->dst_more;
        for (unsigned v = 0; v < acc->dst_more; v++) {
            ld->dst_regs[v] = acc->dst_regs[v];
            w->reg_ready[acc->dst_regs[v]] = SIM_NEVER;
        }
        e->stats.global_loads++;
    } else {
        e->stats.global_stores++;
    }
    e->memsys_due = cycle; /* the LSU moves this very cycle */
    lsu->instr_seq++;
    lsu->coalesce_head = 0;
    lsu->coalesce_count = 0;
    uint64_t line_mask = ~(uint64_t)(lsu->l1.line_bytes - 1);
    int fine = acc->is_store || acc->bypass_l1;
    uint32_t granules[SIM_WARP_LANES]; /* 32-B sectors used, per request (statistics) */
    uint64_t lines_seen[SIM_WARP_LANES]; /* each request's line */
    uint8_t line_slot[COALESCE_SLOTS];     /* hash of a line -> its request's index */
    memset(line_slot, COALESCE_SLOT_FREE, sizeof line_slot);
    unsigned fine_shift = (unsigned)__builtin_ctz(lsu->fine_bytes); /* a power of two */
    int same_granule = (fine ? lsu->fine_bytes : lsu->l1.sector_bytes) == COALESCE_SECTOR_BYTES;
    for (uint32_t m = acc->mask; m; m &= m - 1) {
        unsigned lane = (unsigned)__builtin_ctz(m);
        uint64_t addr = acc->addr[lane];
        uint64_t line = addr & line_mask;
        uint32_t off = (uint32_t)(addr - line);
        uint32_t sectors;
        if (fine) {
            uint32_t first = off >> fine_shift, last = (off + acc->size - 1) >> fine_shift;
            sectors = (uint32_t)((2ull << last) - (1ull << first));
        } else {
            sectors = sim_cache_sector_mask(&lsu->l1, addr, acc->size);
        }
        uint32_t used = sectors; /* in 32-B sectors, as the statistics count them */
        if (!same_granule) {
            uint32_t g_first = off / COALESCE_SECTOR_BYTES;
            uint32_t g_last = (off + acc->size - 1) / COALESCE_SECTOR_BYTES;
            used = (uint32_t)((2ull << g_last) - (1ull << g_first));
        }
        /* a line has one request: the latest first (lanes of one line are
         * mostly neighbours), else a small open-addressed table of the
         * requests' lines -- a warp of 32 lines apart (an eviction pass)
         * compared 496 times per instruction in a list of them */
        uint32_t i = lsu->coalesce_count - 1;
        if (!lsu->coalesce_count || lines_seen[i] != line) {
            uint32_t h = (uint32_t)(((line >> 5) * 0x9e3779b97f4a7c15ull) >> 58);
            while ((i = line_slot[h]) != COALESCE_SLOT_FREE && lines_seen[i] != line)
                h = (h + 1) & (COALESCE_SLOTS - 1);
            if (i == COALESCE_SLOT_FREE)
                line_slot[h] = (uint8_t)lsu->coalesce_count;
        }
        if (i != COALESCE_SLOT_FREE) {
            ms->req[lsu->coalesce[i]].sectors |= sectors;
            granules[i] |= used;
            continue;
        }
        int32_t rid = sim_request_new(e);
        if (rid < 0)
            return;
        sim_request *r = &ms->req[rid];
        r->line_addr = line;
        r->sectors = sectors;
        r->is_store = acc->is_store;
        r->bypass = acc->bypass_l1;
        r->fine = (uint8_t)fine;
        r->sm = (uint16_t)sm->id;
        r->pending_msgs = 0;
        r->refusal = SIM_RESV_NONE;
        r->partial = 0;
        r->index = (uint16_t)lsu->coalesce_count;
        r->load = load_id;
        r->instr_seq = lsu->instr_seq;
        granules[lsu->coalesce_count] = used;
        lines_seen[lsu->coalesce_count] = line;
        lsu->coalesce[lsu->coalesce_count++] = rid;
        lsu->inflight++;
    }
    if (acc->is_store) /* the granules a store writes only part of (l1d_store.c) */
        for (uint32_t i = 0; i < lsu->coalesce_count; i++) {
            sim_request *r = &ms->req[lsu->coalesce[i]];
            r->partial = sim_store_partial_granules(acc, r->line_addr, lsu->l1.line_bytes,
                                                    lsu->fine_bytes, r->sectors);
        }
    e->stats.coalesced_requests += lsu->coalesce_count;
    for (uint32_t i = 0; i < lsu->coalesce_count; i++)
        for (uint32_t g = granules[i]; g; g &= g - 1) /* a few bits: cheaper than popcount() */
            e->stats.coalesced_sectors++;
    if (load_id >= 0)
        ms->load[load_id].outstanding = lsu->coalesce_count;
    if (e->lsu_trace) {
        sim_lsu_event ev = {.cycle = cycle, .instr = lsu->instr_seq, .sm = sm->id,
                            .request = (uint16_t)lsu->coalesce_count, .kind = SIM_LSU_ACCEPT};
        e->lsu_trace(e->lsu_trace_user, &ev);
    }
}

/* ------------------------------------------------------------------------- */
/* Refusals: sleep and wake                                                  */

static void lsu_sleep(sim_lsu *lsu, uint64_t cycle)
{
    lsu->asleep = 1;
    lsu->asleep_since = cycle + 1;
    lsu->hol_since = !lsu->reorder && lsu->fifo.count > 1 ? cycle + 1 : SIM_NEVER;
}

/* Charges the probes the sleeping tags skipped in [asleep_since, upto): each
 * was refused (with its request's last reason) and, with reorder, rotated the
 * FIFO by one.  Traced one by one when a trace hook listens (so the trace stays
 * in time order), else in bulk. */
static void lsu_catch_up(sim_engine *e, sim_sm *sm, uint64_t upto)
{
    sim_memsys *ms = e->memsys;
    sim_lsu *lsu = sm->lsu;
    if (upto <= lsu->asleep_since)
        return;
    uint64_t from = lsu->asleep_since, skipped = upto - from;
    uint32_t n = lsu->fifo.count;
    lsu->asleep_since = upto;
    if (!lsu->reorder) {
        e->stats.l1d_resv_fails += skipped; /* the head, once a cycle */
        sim_request *head = &ms->req[ring_peek(&lsu->fifo)];
        e->stats.l1d_resv_by_reason[head->refusal] += skipped;
        if (lsu->hol_since != SIM_NEVER && upto > lsu->hol_since)
            e->stats.l1d_hol_cycles += upto - (lsu->hol_since > from ? lsu->hol_since : from);
        if (e->lsu_trace)
            for (uint64_t i = 0; i < skipped; i++)
                sim_lsu_trace(e, sm, head, SIM_LSU_RESV_FAIL, (sim_resv_reason)head->refusal,
                              from + i);
        return;
    }
    /* reorder: every cycle the head was refused and went to the tail, as many
     * times as the tags take lookups (each request at most once a cycle) */
    uint64_t per_cycle = lsu->tag_lookups < n ? lsu->tag_lookups : n;
    uint64_t probes = skipped * per_cycle;
    e->stats.l1d_resv_fails += probes;
    e->stats.l1d_requeues += probes;
    for (uint32_t j = 0; j < n; j++) {
        const sim_request *r = &ms->req[ring_at(&lsu->fifo, j)];
        e->stats.l1d_resv_by_reason[r->refusal] += probes / n + (j < probes % n);
    }
    if (e->lsu_trace) {
        for (uint64_t i = 0; i < probes; i++) {
            int32_t rid = ring_pop(&lsu->fifo);
            const sim_request *r = &ms->req[rid];
            uint64_t at = from + i / per_cycle;
            sim_lsu_trace(e, sm, r, SIM_LSU_RESV_FAIL, (sim_resv_reason)r->refusal, at);
            ring_push(&lsu->fifo, rid);
            sim_lsu_trace(e, sm, r, SIM_LSU_REQUEUE, SIM_RESV_NONE, at);
        }
    } else {
        for (uint64_t i = probes % n; i > 0; i--)
            ring_push(&lsu->fifo, ring_pop(&lsu->fifo));
    }
}

void sim_lsu_wake(sim_engine *e, sim_sm *sm, uint64_t next_probe)
{
    sim_lsu *lsu = sm->lsu;
    lsu->refused_in_row = 0;
    lsu->refused_miss_queue = 0;
    if (!lsu->asleep)
        return;
    lsu_catch_up(e, sm, next_probe);
    lsu->asleep = 0;
    lsu->hol_since = SIM_NEVER;
}

/* ------------------------------------------------------------------------- */
/* One cycle                                                                 */

void sim_lsu_tick(sim_engine *e, sim_sm *sm, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    sim_lsu *lsu = sm->lsu;
    if (!lsu->fifo.count && !lsu->coalesce_count && !lsu->miss_queue.count)
        return;

    /* 1. the FIFO head probes the L1 tags, up to tag_lookups requests a cycle
     * (each at most once): the baseline stops at a refusal, which blocks the
     * head; reorder moves it to the tail and probes the next */
    int tail_taken = 0;
    if (lsu->fifo.count && lsu->asleep) {
        if (e->lsu_trace)
            lsu_catch_up(e, sm, cycle + 1); /* keep the trace in time order */
        tail_taken = lsu->reorder;          /* a (skipped) rotation holds the tail */
    } else if (lsu->fifo.count) {
        uint32_t lookups = lsu->tag_lookups < lsu->fifo.count ? lsu->tag_lookups : lsu->fifo.count;
        for (uint32_t probe = 0; probe < lookups && lsu->fifo.count; probe++) {
            int32_t rid = ring_peek(&lsu->fifo);
            sim_request *r = &ms->req[rid];
            /* what the trace names it by: a hit or a store completes (frees) it */
            sim_request seen;
            seen.line_addr = r->line_addr;
            seen.instr_seq = r->instr_seq;
            seen.index = r->index;
            sim_resv_reason reason = sim_l1d_probe(e, sm, rid, cycle);
            if (reason == SIM_RESV_NONE) {
                fifo_account(e, lsu, cycle);
                ring_pop(&lsu->fifo);
                if (instr_in_fifo(lsu, seen.instr_seq, -1) && lsu->refused_waiters &&
                    !lsu->coalesce_count)
                    wake_refused(e, sm, cycle); /* a refused warp may issue now */
                lsu->refused_in_row = 0;
                if (e->lsu_trace)
                    sim_lsu_trace(e, sm, &seen, SIM_LSU_POP, SIM_RESV_NONE, cycle);
                continue;
            }
            r->refusal = (uint8_t)reason;
            e->stats.l1d_resv_fails++;
            e->stats.l1d_resv_by_reason[reason]++;
            if (reason == SIM_RESV_MISS_QUEUE)
                lsu->refused_miss_queue = 1;
            SIM_LSU_TRACE(e, sm, r, SIM_LSU_RESV_FAIL, reason, cycle);
            lsu->refused_in_row++;
            if (!lsu->reorder) {
                if (lsu->fifo.count > 1)
                    e->stats.l1d_hol_cycles++;
                lsu_sleep(lsu, cycle);
                break;
            }
            /* CN110457238A: pop the refused head and put it at the tail, so the
             * request behind it probes next (next cycle, with one lookup) */
            ring_push(&lsu->fifo, ring_pop(&lsu->fifo));
            e->stats.l1d_requeues++;
            SIM_LSU_TRACE(e, sm, r, SIM_LSU_REQUEUE, SIM_RESV_NONE, cycle);
            tail_taken = 1;
            if (lsu->refused_in_row >= lsu->fifo.count) {
                /* all refused: nothing changes until a wake.  The cycle's
                 * remaining lookups would be refused too: charged as the
                 * sleeping tags' are, from the next cycle on, so stop here
                 * only when this cycle's lookups are used up or the rest
                 * would probe a request twice */
                if (probe + 1 < lookups) {
                    /* the rest of this cycle's lookups, each a refusal */
                    uint32_t rest = lookups - probe - 1;
                    for (uint32_t i = 0; i < rest; i++) {
                        int32_t qid = ring_pop(&lsu->fifo);
                        sim_request *q = &ms->req[qid];
                        e->stats.l1d_resv_fails++;
                        e->stats.l1d_resv_by_reason[q->refusal]++;
                        e->stats.l1d_requeues++;
                        SIM_LSU_TRACE(e, sm, q, SIM_LSU_RESV_FAIL, (sim_resv_reason)q->refusal,
                                      cycle);
                        ring_push(&lsu->fifo, qid);
                        SIM_LSU_TRACE(e, sm, q, SIM_LSU_REQUEUE, SIM_RESV_NONE, cycle);
                    }
                }
                lsu_sleep(lsu, cycle);
                break;
            }
        }
    }

    /* 2. the coalescer puts up to coalescer_rate requests at the FIFO tail,
     * unless the FIFO is full or a re-enqueued request took the tail this cycle
     * (a tail with a second write port -- not the patent's -- takes both) */
    if (lsu->coalesce_count) {
        if ((tail_taken && lsu->tail_ports < 2) || ring_full(&lsu->fifo)) {
            coalescer_stalls(lsu, cycle);
        } else {
            coalescer_moves(e, lsu, cycle);
            for (uint32_t n = 0; n < lsu->coalescer_rate && lsu->coalesce_count; n++) {
                if (ring_full(&lsu->fifo)) {
                    coalescer_stalls(lsu, cycle + 1); /* the rest waits for room */
                    break;
                }
                int32_t rid = lsu->coalesce[lsu->coalesce_head++];
                if (--lsu->coalesce_count == 0 && lsu->refused_waiters &&
                    (lsu->pipelined_issue || lsu->queued_instructions > 1))
                    wake_refused(e, sm, cycle); /* a refused warp may issue now */
                fifo_push(e, lsu, rid, cycle);
                instr_in_fifo(lsu, ms->req[rid].instr_seq, +1);
                SIM_LSU_TRACE(e, sm, &ms->req[rid], SIM_LSU_ENQUEUE, SIM_RESV_NONE, cycle);
                if (lsu->reorder)
                    /* a request not yet refused: the FIFO is no longer all
                     * refused (asleep only with 2 tail ports or room to spare) */
                    sim_lsu_wake(e, sm, cycle + 1);
                else if (lsu->asleep && lsu->fifo.count > 1 && lsu->hol_since == SIM_NEVER)
                    lsu->hol_since = cycle + 1; /* baseline: now a request waits behind the head */
            }
        }
    }

    /* 3. the miss queue sends one message towards the L2 */
    if (lsu->miss_queue.count) {
        int32_t mid = ring_pop(&lsu->miss_queue);
        ms->msg[mid].ready = cycle + ms->l1_to_l2_cycles;
        ring_push(&ms->l2_input, mid);
        if (lsu->refused_miss_queue)
            sim_lsu_wake(e, sm, cycle + 1); /* this cycle's probe is over */
    }
}

/* ------------------------------------------------------------------------- */
/* Event horizon                                                             */

int sim_lsu_queues_empty(const sim_sm *sm)
{
    const sim_lsu *lsu = sm->lsu;
    return !lsu->returns.count && !lsu->coalesce_count && !lsu->fifo.count &&
           !lsu->miss_queue.count;
}

int sim_lsu_busy(const sim_sm *sm)
{
    const sim_lsu *lsu = sm->lsu;
    return lsu->inflight || lsu->coalesce_count || lsu->fifo.count || lsu->miss_queue.count ||
           lsu->returns.count || lsu->mshr.used;
}
