/* memsys.c -- the chip-wide half of the simulated memory path: the L2, its
 * MSHRs, DRAM, the pools every request and message lives in, and the global
 * tick.  The per-SM half (coalescer, L1 request FIFO, L1D, MSHRs, miss queue,
 * fills) is lsu.c.
 *
 *   miss queue (lsu.c) --> [transit] --> L2 input --hit--> return queue (lsu.c)
 *                                          |miss
 *                                        L2 MSHR --> DRAM (requests_per_cycle, latency)
 *                                          ^                       |
 *                                          +------- fill ----------+
 *
 * Latencies in the arch file are load-to-use figures as a pointer chase measures
 * them (L1D, L2, DRAM).  The path adds them back up exactly when nothing
 * contends: a miss reaches the L2 after the transit time L2 - L1 (the L2's
 * share, as Accel-Sim's rop latency), a DRAM access adds DRAM - L2, and the fill
 * costs the L1's own latency again on the way back to the register.  Contention
 * -- a full FIFO, a set whose ways are all reserved, MSHRs or the miss queue
 * exhausted, fill and L2 bandwidth -- adds cycles on top, which is what the
 * probes measure.
 */
#include "sim/memsys.h"

/* ------------------------------------------------------------------------- */
/* Pools                                                                     */

int32_t sim_request_new(sim_engine *e)
{
    sim_memsys *ms = e->memsys;
    int32_t id;
    POOL_ALLOC(ms, req, req_cap, req_free, id);
    if (id < 0)
        sim_engine_fail(e, "sim: out of host memory (requests)");
    else
        ms->live_requests++;
    return id;
}

void sim_request_free(sim_memsys *ms, int32_t id)
{
    ms->req[id].next = ms->req_free;
    ms->req_free = id;
    ms->live_requests--;
}

int32_t sim_msg_new(sim_engine *e)
{
    sim_memsys *ms = e->memsys;
    int32_t id;
    POOL_ALLOC(ms, msg, msg_cap, msg_free, id);
    if (id < 0)
        sim_engine_fail(e, "sim: out of host memory (messages)");
    else
        ms->live_msgs++;
    return id;
}

void sim_msg_free(sim_memsys *ms, int32_t id)
{
    ms->msg[id].next = ms->msg_free;
    ms->msg_free = id;
    ms->live_msgs--;
}

/* ------------------------------------------------------------------------- */
/* Set-up                                                                    */

int sim_memsys_create(sim_engine *e, gd_err *err)
{
    const gd_arch *a = e->arch;
    const gd_arch_level *l1 = &a->level[GD_L1D];
    const gd_arch_level *l2 = &a->level[GD_L2];
    sim_memsys *ms = calloc(1, sizeof *ms);
    if (!ms)
        return gd_fail(err, "sim: out of memory");
    e->memsys = ms;
    ms->req_free = ms->load_free = ms->msg_free = -1;
    ms->l1_to_l2_cycles = l2->latency_cycles - l1->latency_cycles;
    ms->l2_to_dram_cycles = a->level[GD_DRAM].latency_cycles - l2->latency_cycles;
    if (sim_cache_init(&ms->l2, l2, a->gpu.seed * 2654435761u + 17, err))
        return -1; /* its own message: geometry or memory */
    if (mshr_init(&ms->l2_mshr, l2->mshr_entries, l2->mshr_merge) || ring_init(&ms->l2_input, 0) ||
        ring_init(&ms->dram_queue, 0))
        return gd_fail(err, "sim: out of memory for the L2");
    for (uint32_t s = 0; s < e->sm_count; s++)
        if (sim_lsu_create(e, &e->sms[s], err) != 0)
            return -1;
    return 0;
}

void sim_memsys_destroy(sim_engine *e)
{
    sim_memsys *ms = e->memsys;
    if (!ms)
        return;
    for (uint32_t s = 0; s < e->sm_count; s++)
        sim_lsu_destroy(&e->sms[s]);
    sim_cache_destroy(&ms->l2);
    free(ms->l2_mshr.entries);
    ring_free(&ms->l2_input);
    ring_free(&ms->dram_queue);
    free(ms->req);
    free(ms->load);
    free(ms->msg);
    free(ms);
    e->memsys = NULL;
}

void sim_memsys_launch_begin(sim_engine *e)
{
    /* L1s are invalidated at a kernel boundary; the L2 keeps its contents, as
     * on a GPU. */
    for (uint32_t s = 0; s < e->sm_count; s++)
        sim_lsu_launch_begin(e, &e->sms[s]);
}

/* ------------------------------------------------------------------------- */
/* L2 and DRAM                                                               */

static void dram_enqueue(sim_engine *e, int32_t mid, uint64_t cycle)
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

static void dram_message(sim_engine *e, uint64_t line, uint32_t sectors, int is_store,
                         uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    int32_t mid = sim_msg_new(e);
    if (mid < 0)
        return;
    sim_msg *msg = &ms->msg[mid];
    msg->addr = line * ms->l2.line_bytes;
    msg->bytes = ms->l2.line_bytes;
    msg->sectors = sectors;
    msg->is_store = (uint8_t)is_store;
    msg->sm = 0;
    msg->bypass_req = -1;
    if (is_store)
        e->stats.dram_writes++;
    else
        e->stats.dram_reads++;
    dram_enqueue(e, mid, cycle);
}

static void respond_to_sm(sim_engine *e, int32_t mid, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    sim_msg *msg = &ms->msg[mid];
    msg->ready = cycle;
    ring_push(&e->sms[msg->sm].lsu->returns, mid);
}

static void l2_evict(sim_engine *e, sim_cache_line *victim, uint64_t cycle)
{
    if (victim->present && victim->dirty_sectors)
        dram_message(e, victim->tag, victim->dirty_sectors, 1, cycle);
}

static int l2_access(sim_engine *e, int32_t mid, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    sim_cache *c = &ms->l2;
    sim_msg *msg = &ms->msg[mid];
    uint64_t lineno = sim_cache_line_of(c, msg->addr);
    uint32_t sectors = sim_cache_sector_mask(c, msg->addr, msg->bytes);
    sim_cache_line *l = sim_cache_find(c, lineno);

    if (msg->is_store) {
        /* write-back, write-allocate at sector granularity without a fetch */
        if (!l) {
            l = sim_cache_victim(c, lineno);
            if (!l)
                return PROBE_FAIL;
            l2_evict(e, l, cycle);
            sim_cache_install(c, l, lineno);
        }
        l->valid_sectors |= sectors;
        l->dirty_sectors |= sectors;
        sim_cache_touch(c, l);
        sim_msg_free(ms, mid);
        return PROBE_DONE;
    }
    if (l && (l->valid_sectors & sectors) == sectors) {
        sim_cache_touch(c, l);
        e->stats.l2_hits++;
        respond_to_sm(e, mid, cycle);
        return PROBE_DONE;
    }
    sim_mshr *m = l && l->reserved ? mshr_find(&ms->l2_mshr, lineno) : NULL;
    uint32_t missing = sectors & ~(l ? l->valid_sectors : 0u) & ~(m ? m->pending_sectors : 0u);
    if (m) {
        if (m->merged >= ms->l2_mshr.merge_limit)
            return PROBE_FAIL;
    } else {
        if (ms->l2_mshr.used >= ms->l2_mshr.capacity)
            return PROBE_FAIL;
        if (!l) {
            l = sim_cache_victim(c, lineno);
            if (!l)
                return PROBE_FAIL;
            l2_evict(e, l, cycle);
            sim_cache_install(c, l, lineno);
        }
        m = mshr_alloc(&ms->l2_mshr, lineno);
        l->reserved = 1;
    }
    e->stats.l2_misses++;
    if (missing) {
        m->pending_sectors |= missing;
        dram_message(e, lineno, missing, 0, cycle);
    }
    m->merged++;
    /* not `msg`: the write-back and fetch messages above may have grown (moved)
     * the message pool */
    ms->msg[mid].next = m->waiters;
    m->waiters = mid;
    return PROBE_DONE;
}

static void l2_fill(sim_engine *e, int32_t mid, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    sim_cache *c = &ms->l2;
    sim_msg *msg = &ms->msg[mid];
    uint64_t lineno = sim_cache_line_of(c, msg->addr);
    uint32_t sectors = msg->sectors;
    sim_msg_free(ms, mid);
    sim_cache_line *l = sim_cache_find(c, lineno);
    sim_mshr *m = mshr_find(&ms->l2_mshr, lineno);
    if (!l || !m) {
        sim_engine_fail(e, "sim: internal error: a DRAM fill for L2 line 0x%llx has no MSHR",
                        (unsigned long long)(lineno * c->line_bytes));
        return;
    }
    l->valid_sectors |= sectors;
    m->pending_sectors &= ~sectors;
    int32_t *link = &m->waiters;
    while (*link >= 0) {
        int32_t wid = *link;
        sim_msg *w = &ms->msg[wid];
        uint32_t need = sim_cache_sector_mask(c, w->addr, w->bytes);
        if ((l->valid_sectors & need) == need) {
            *link = w->next;
            m->merged--;
            respond_to_sm(e, wid, cycle);
        } else {
            link = &w->next;
        }
    }
    if (m->pending_sectors == 0) {
        mshr_release(&ms->l2_mshr, m);
        l->reserved = 0;
    }
    ms->l2_blocked = 0;
}

void sim_memsys_global_tick(sim_engine *e, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    if (!ms->dram_queue.count && !ms->l2_input.count)
        return;
    while (ms->dram_queue.count && ms->msg[ring_peek(&ms->dram_queue)].ready <= cycle) {
        int32_t mid = ring_pop(&ms->dram_queue);
        if (ms->msg[mid].is_store)
            sim_msg_free(ms, mid);
        else
            l2_fill(e, mid, cycle);
    }
    uint32_t per_cycle = e->arch->level[GD_L2].requests_per_cycle;
    uint32_t done = 0;
    while (!ms->l2_blocked && done < per_cycle && ms->l2_input.count &&
           ms->msg[ring_peek(&ms->l2_input)].ready <= cycle) {
        int32_t mid = ring_peek(&ms->l2_input);
        if (l2_access(e, mid, cycle) == PROBE_FAIL) {
            ms->l2_blocked = 1;
            break;
        }
        ring_pop(&ms->l2_input);
        done++;
    }
}

int sim_l2_lookup_fill(sim_engine *e, uint64_t addr, uint32_t bytes, uint64_t cycle)
{
    sim_cache *c = &e->memsys->l2;
    int all = 1;
    uint64_t first = sim_cache_line_of(c, addr), last = sim_cache_line_of(c, addr + bytes - 1);
    for (uint64_t line = first; line <= last; line++) {
        sim_cache_line *l = sim_cache_find(c, line);
        uint32_t full = c->sectors_per_line >= 32 ? 0xffffffffu : (1u << c->sectors_per_line) - 1;
        if (l && (l->valid_sectors & full) == full) {
            sim_cache_touch(c, l);
            continue;
        }
        all = 0;
        if (!l) {
            l = sim_cache_victim(c, line);
            if (!l)
                continue; /* every way reserved by data misses: not cached this time */
            l2_evict(e, l, cycle);
            sim_cache_install(c, l, line);
        }
        l->valid_sectors = full;
        sim_cache_touch(c, l);
        e->stats.dram_reads++;
    }
    return all;
}

/* ------------------------------------------------------------------------- */
/* Event horizon                                                             */

uint64_t sim_memsys_next_event(const sim_engine *e, uint64_t now)
{
    const sim_memsys *ms = e->memsys;
    uint64_t best = SIM_NEVER;
    if (ms->l2_input.count && !ms->l2_blocked) {
        uint64_t t = ms->msg[ring_peek(&ms->l2_input)].ready;
        best = t < now ? now : t;
    }
    if (ms->dram_queue.count) {
        uint64_t t = ms->msg[ring_peek(&ms->dram_queue)].ready;
        t = t < now ? now : t;
        if (t < best)
            best = t;
    }
    if (best == now)
        return now;
    for (uint32_t i = 0; i < e->active_sm_count; i++)
        if (sim_lsu_has_work(e->active_sms[i]))
            return now;
    return best;
}

int sim_memsys_idle(const sim_engine *e)
{
    const sim_memsys *ms = e->memsys;
    return ms->live_requests == 0 && ms->live_msgs == 0;
}
