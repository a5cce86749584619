/* l1d.c -- what an SM's L1 data cache does with one request: the tag probe,
 * the MSHRs, the messages to the miss queue, the fills, and load completion.
 *
 * The request FIFO (lsu.c) offers its head to sim_l1d_probe once per cycle:
 *
 *   hit        every sector it needs is valid: the data is visible L1 latency
 *              after the access issued (the FIFO put it one cycle in);
 *   miss       the line is absent (or lacks sectors): a way of its set is taken
 *              and marked *reserved* until the fill, an MSHR entry is taken, the
 *              missing sectors go to the miss queue;
 *   merge      the line is already being filled: the request joins its MSHR
 *              entry (up to mshr_merge requests per entry), fetching only
 *              sectors nobody asked for yet;
 *   refused    (a reservation fail) every way of the set is reserved, or no
 *              MSHR is free, or the entry has merged its limit, or the miss
 *              queue lacks slots.  Nothing changes; lsu.c decides what the FIFO
 *              does about it (block, or re-enqueue with `reorder`).
 *
 * The checks run in GPGPU-Sim's order (tag array, then MSHRs, then the miss
 * queue), so a refusal names the first resource missing.  Stores write through
 * without allocating (a present line stays valid; the arch's other store
 * policies, write-validate and write-back, are l1d_store.c) and L1-bypassing loads
 * (ld.cg, ld.cv, volatile) go straight to the miss queue, both in the L2's
 * sector granules.  Fills come back one line per cycle (sim_lsu_returns), make
 * their sectors valid, release the MSHR and the reservation once nothing is
 * pending, and complete the waiting requests: their data is visible L1 latency
 * after the fill, the L1's own share of the trip back to the register.
 */
#include "sim/memsys.h"

/* ------------------------------------------------------------------------- */
/* Completion                                                                */

static uint64_t noise_next(sim_engine *e)
{
    uint64_t z = (e->noise_rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* [noise]: the delay a real card's timer jitter and rare interruptions add to a
 * load: uniform integer jitter in [-jitter, +jitter] (symmetric, so medians and
 * means stay on the latency) and, with probability outlier_rate, an outlier of
 * outlier_cycles to twice that (large, like an interrupt or a context switch). */
static int64_t load_noise(sim_engine *e)
{
    const gd_arch_noise *n = &e->arch->noise;
    int64_t d = 0;
    int64_t j = (int64_t)n->jitter_cycles;
    if (j > 0)
        d += (int64_t)(noise_next(e) % (uint64_t)(2 * j + 1)) - j;
    if (n->outlier_rate > 0 && (double)(noise_next(e) >> 11) * 0x1.0p-53 < n->outlier_rate)
        d += (int64_t)n->outlier_cycles + (int64_t)(noise_next(e) % (n->outlier_cycles + 1ull));
    return d;
}

static void load_complete_one(sim_engine *e, int32_t load_id, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    sim_load *ld = &ms->load[load_id];
    if (cycle > ld->done_cycle)
        ld->done_cycle = cycle;
    if (--ld->outstanding == 0) {
        if (e->noise_on) {
            int64_t t = (int64_t)ld->done_cycle + load_noise(e);
            ld->done_cycle = t > (int64_t)e->cycle ? (uint64_t)t : e->cycle + 1;
        }
        sim_warp *w = ld->warp;
        if (ld->dst != PTX_NO_REG)
            w->reg_ready[ld->dst] = ld->done_cycle;
        for (unsigned v = 0; v < ld->dst_more; v++)
            w->reg_ready[ld->dst_regs[v]] = ld->done_cycle;
        w->pending_loads--;
        if (w->ready_cycle == SIM_NEVER) /* parked on a load (sim/gpu.c): look again */
            sim_warp_ready_at(w, 0);
        sim_engine_wake_at(e, ld->done_cycle);
        ld->next = ms->load_free;
        ms->load_free = load_id;
    }
}

void sim_request_complete(sim_engine *e, int32_t rid, uint64_t data_cycle)
{
    sim_memsys *ms = e->memsys;
    int32_t load = ms->req[rid].load;
    e->sms[ms->req[rid].sm].lsu->inflight--;
    sim_request_free(ms, rid);
    if (load >= 0)
        load_complete_one(e, load, data_cycle);
}

/* ------------------------------------------------------------------------- */
/* Messages towards the L2                                                   */

/* Splits the sectors of an L1 line into byte ranges that do not cross an L2
 * line; emits them into the miss queue when `emit`, else only counts them. */
static uint32_t l1_line_messages(sim_engine *e, sim_sm *sm, uint64_t line_addr, uint32_t sectors,
                                 uint32_t sb, int is_store, int32_t bypass_req, int emit)
{
    sim_memsys *ms = e->memsys;
    sim_lsu *lsu = sm->lsu;
    uint64_t l2_line = ms->l2.line_bytes;
    unsigned l2_shift = ms->l2.line_shift; /* a power of two */
    uint32_t n = 0;
    /* each run of set bits, lowest first (its first bit by ctz, its length by
     * the ctz of what follows); the count alone is arithmetic: one message
     * per L2 line the run's bytes overlap */
    for (uint64_t rest = sectors; rest;) {
        unsigned s = (unsigned)__builtin_ctzll(rest);
        unsigned run = (unsigned)__builtin_ctzll(~(rest >> s)); /* rest < 2^32: a zero above */
        rest &= ~(((1ull << run) - 1) << s);
        uint64_t start = line_addr + (uint64_t)s * sb;
        uint64_t end = start + (uint64_t)run * sb;
        if (!emit) {
            n += (uint32_t)(((end - 1) >> l2_shift) - (start >> l2_shift) + 1);
            continue;
        }
        while (start < end) {
            uint64_t piece_end = (start & ~(l2_line - 1)) + l2_line;
            if (piece_end > end)
                piece_end = end;
            int32_t mid = sim_msg_new(e);
            if (mid < 0)
                return n;
            sim_msg *msg = &ms->msg[mid];
            msg->addr = start;
            msg->bytes = (uint32_t)(piece_end - start);
            msg->sectors = 0;
            msg->is_store = (uint8_t)is_store;
            msg->partial = 0;
            msg->sm = (uint16_t)sm->id;
            msg->bypass_req = bypass_req;
            msg->ready = 0;
            ring_push(&lsu->miss_queue, mid);
            n++;
            start = piece_end;
        }
    }
    return n;
}

uint32_t sim_l1d_store_messages(sim_engine *e, sim_sm *sm, uint64_t line_addr, uint32_t sectors,
                                uint32_t sb, int partial, int emit)
{
    if (!sectors)
        return 0;
    ring *q = &sm->lsu->miss_queue;
    uint32_t n = l1_line_messages(e, sm, line_addr, sectors, sb, 1, -1, emit);
    if (emit && partial)
        for (uint32_t i = 0; i < n && i < q->count; i++)
            e->memsys->msg[ring_at(q, q->count - 1 - i)].partial = 1;
    return n;
}

/* ------------------------------------------------------------------------- */
/* The tag probe of the FIFO head                                            */

sim_resv_reason sim_l1d_probe(sim_engine *e, sim_sm *sm, int32_t rid, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    sim_lsu *lsu = sm->lsu;
    sim_request *r = &ms->req[rid];
    sim_cache *c = &lsu->l1;

    if (r->is_store) {
        /* a store writes through (a present line is updated in place: its
         * valid sectors stay valid), or with [L1D] write_back stays in the L1;
         * what goes on needs miss-queue slots for its L2 granules.  Partial
         * granules travel apart only where the L2 tells them apart. */
        uint32_t through = sim_l1d_store_through(e, sm, r);
        uint32_t partial =
            e->arch->level[GD_L2].partial_write != GD_L2_PARTIAL_VALIDATE ? r->partial & through : 0;
        uint32_t fb = lsu->fine_bytes;
        uint32_t need = through ? sim_l1d_store_messages(e, sm, r->line_addr, through & ~partial, fb, 0, 0) +
                                      sim_l1d_store_messages(e, sm, r->line_addr, partial, fb, 1, 0)
                                : 0;
        if (ring_space(&lsu->miss_queue) < need)
            return SIM_RESV_MISS_QUEUE;
        SIM_LSU_TRACE(e, sm, r, SIM_LSU_SEND, SIM_RESV_NONE, cycle);
        sim_l1d_store_update(e, sm, r); /* the arch's store policy (l1d_store.c) */
        if (through) {
            sim_l1d_store_messages(e, sm, r->line_addr, through & ~partial, fb, 0, 1);
            sim_l1d_store_messages(e, sm, r->line_addr, partial, fb, 1, 1);
        }
        sim_request_complete(e, rid, cycle);
        return SIM_RESV_NONE;
    }
    if (r->bypass) {
        /* an L1-bypassing load asks the L2 directly, in L2 granules */
        uint32_t need = l1_line_messages(e, sm, r->line_addr, r->sectors, lsu->fine_bytes, 0, rid, 0);
        if (ring_space(&lsu->miss_queue) < need)
            return SIM_RESV_MISS_QUEUE;
        SIM_LSU_TRACE(e, sm, r, SIM_LSU_SEND, SIM_RESV_NONE, cycle);
        r->pending_msgs = (uint16_t)need;
        l1_line_messages(e, sm, r->line_addr, r->sectors, lsu->fine_bytes, 0, rid, 1);
        return SIM_RESV_NONE;
    }

    uint64_t lineno = sim_cache_line_of(c, r->line_addr);
    sim_cache_line *l = sim_cache_find(c, lineno);
    if (l && (l->valid_sectors & r->sectors) == r->sectors) {
        sim_cache_touch(c, l);
        e->stats.l1d_hits++;
        SIM_LSU_TRACE(e, sm, r, SIM_LSU_HIT, SIM_RESV_NONE, cycle);
        sim_request_complete(e, rid, cycle + lsu->hit_tail);
        return SIM_RESV_NONE;
    }
    sim_mshr *m = l && l->reserved ? mshr_find(&lsu->mshr, lineno) : NULL;
    uint32_t missing = r->sectors & ~(l ? l->valid_sectors : 0u) & ~(m ? m->pending_sectors : 0u);
    uint32_t need =
        missing ? l1_line_messages(e, sm, r->line_addr, missing, c->sector_bytes, 0, -1, 0) : 0;
    if (m) {
        if (m->merged >= lsu->mshr.merge_limit)
            return SIM_RESV_MERGE;
        if (ring_space(&lsu->miss_queue) < need)
            return SIM_RESV_MISS_QUEUE;
        e->stats.l1d_merges++;
        SIM_LSU_TRACE(e, sm, r, SIM_LSU_MERGE, SIM_RESV_NONE, cycle);
    } else {
        if (!l && !sim_cache_can_allocate(c, lineno))
            return SIM_RESV_SET; /* every way of the set is reserved */
        if (lsu->mshr.used >= lsu->mshr.capacity)
            return SIM_RESV_MSHR;
        if (ring_space(&lsu->miss_queue) < need)
            return SIM_RESV_MISS_QUEUE;
        if (!l) {
            l = sim_cache_victim(c, lineno);
            if (l->present && l->dirty_sectors) /* [L1D] write_back: its dirty sectors */
                sim_l1d_writeback_line(e, sm, l);
            sim_cache_install(c, l, lineno);
            e->stats.l1d_misses++;
        } else {
            e->stats.l1d_sector_misses++;
        }
        m = mshr_alloc(&lsu->mshr, lineno);
        sim_cache_reserve(c, l);
        SIM_LSU_TRACE(e, sm, r, SIM_LSU_MISS, SIM_RESV_NONE, cycle);
    }
    if (missing) {
        m->pending_sectors |= missing;
        l1_line_messages(e, sm, r->line_addr, missing, c->sector_bytes, 0, -1, 1);
    }
    m->merged++;
    r->next = m->waiters;
    m->waiters = rid;
    return SIM_RESV_NONE;
}

/* ------------------------------------------------------------------------- */
/* Fills                                                                     */

void sim_lsu_returns(sim_engine *e, sim_sm *sm, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    sim_lsu *lsu = sm->lsu;
    if (!lsu->returns.count)
        return;
    int32_t mid = ring_pop(&lsu->returns);
    sim_msg *msg = &ms->msg[mid];
    if (msg->bypass_req >= 0) {
        int32_t rid = msg->bypass_req;
        sim_msg_free(ms, mid);
        if (--ms->req[rid].pending_msgs == 0) {
            SIM_LSU_TRACE(e, sm, &ms->req[rid], SIM_LSU_FILL, SIM_RESV_NONE, cycle);
            sim_request_complete(e, rid, cycle + lsu->hit_tail);
        }
        return;
    }
    /* a way, an MSHR or merge room may be free after this fill: the tags take
     * probes again this very cycle (fills are written before the FIFO head
     * probes), and the cycles they slept through are accounted for first */
    sim_lsu_wake(e, sm, cycle);
    sim_cache *c = &lsu->l1;
    uint64_t lineno = sim_cache_line_of(c, msg->addr);
    sim_cache_line *l = sim_cache_find(c, lineno);
    sim_mshr *m = mshr_find(&lsu->mshr, lineno);
    uint32_t sectors = sim_cache_sector_mask(c, msg->addr, msg->bytes);
    uint64_t msg_addr = msg->addr;
    sim_msg_free(ms, mid);
    if (!l || !m) {
        sim_engine_fail(e, "sim: internal error: a fill for L1 line 0x%llx has no MSHR",
                        (unsigned long long)(lineno * c->line_bytes));
        return;
    }
    if (c->sector_bytes > ms->l2.line_bytes) {
        /* a piece of one sector (l1_line_messages split it at L2 lines): the
         * sector is valid when its last piece is in (a K80-style 128-byte L1
         * fill over 32-byte L2 lines) */
        uint64_t sb = c->sector_bytes, l2b = ms->l2.line_bytes;
        uint64_t line_addr = lineno * c->line_bytes;
        /* (lines and sectors are powers of two: shifts, not divisions) */
        unsigned sb_shift = (unsigned)__builtin_ctzll(sb), l2b_shift = (unsigned)__builtin_ctzll(l2b);
        uint32_t s = (uint32_t)((msg_addr - line_addr) >> sb_shift);
        uint64_t start = line_addr + (uint64_t)s * sb;
        uint32_t pieces = (uint32_t)(((start + sb - 1) >> l2b_shift) - (start >> l2b_shift) + 1);
        if (!((m->pending_sectors >> s) & 1)) {
            sim_engine_fail(e, "sim: internal error: a piece of L1 sector %u of line 0x%llx "
                               "arrived that no miss asked for", s,
                            (unsigned long long)line_addr);
            return;
        }
        if (m->pieces_left[s] == 0)
            m->pieces_left[s] = (uint8_t)pieces;
        if (--m->pieces_left[s] > 0)
            return;
        sectors = 1u << s;
    }
    l->valid_sectors |= sectors;
    m->pending_sectors &= ~sectors;
    int32_t *link = &m->waiters;
    while (*link >= 0) {
        int32_t rid = *link;
        sim_request *r = &ms->req[rid];
        if ((l->valid_sectors & r->sectors) == r->sectors) {
            *link = r->next;
            m->merged--;
            SIM_LSU_TRACE(e, sm, r, SIM_LSU_FILL, SIM_RESV_NONE, cycle);
            sim_request_complete(e, rid, cycle + lsu->hit_tail);
        } else {
            link = &r->next;
        }
    }
    if (m->pending_sectors == 0) {
        if (m->waiters >= 0) {
            sim_engine_fail(e, "sim: internal error: L1 MSHR released with waiters");
            return;
        }
        mshr_release(&lsu->mshr, m);
        sim_cache_release(&lsu->l1, l);
    }
}
