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
 * Since issue 12 the L2 is slices (l2_slice.c: hash, sets, MSHRs and queue per
 * slice, near/far partitions, the crossbar), accesses below the L1 are
 * translated (tlb.c), and DRAM may be channels of banks with row buffers
 * (dram.c); this file keeps the pools, set-up and the glue.  An arch without
 * those sections runs the path drawn above: one slice, no TLB, fixed DRAM.
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

int32_t sim_request_new_grow(sim_engine *e)
{
    sim_memsys *ms = e->memsys;
    int32_t id;
    POOL_ALLOC(ms, req, req_cap, req_free, id);
    if (id < 0) {
        sim_engine_fail(e, "sim: out of host memory (requests)");
        return -1;
    }
    ms->live_requests++;
    return id;
}

int32_t sim_msg_new_grow(sim_engine *e)
{
    sim_memsys *ms = e->memsys;
    int32_t id;
    POOL_ALLOC(ms, msg, msg_cap, msg_free, id);
    if (id < 0) {
        sim_engine_fail(e, "sim: out of host memory (messages)");
        return -1;
    }
    /* the pool has grown: the entry goes back on top of its free list and is
     * taken as the inline path takes one (its counts, its fields) */
    ms->msg_free = id;
    return sim_msg_new(e);
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
    /* below the L1: slices (slice 0 is the L2 above), TLBs, DRAM channels */
    if (sim_l2_slices_create(e, err) != 0 || sim_tlbs_create(e, err) != 0 ||
        sim_dram_create(e, err) != 0)
        return -1;
    /* a GPU's L2 is never empty: every way holds some earlier program's line
     * (clean), which a fill evicts -- an empty L2 would take a chain's first
     * lap into free ways, kinder than silicon under random replacement */
    for (uint32_t i = 0; i < ms->slice_count; i++)
        sim_cache_fill_foreign(ms->slices[i].cache, i);
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
    sim_l2_slices_destroy(e);
    sim_tlbs_destroy(e);
    sim_dram_destroy(e);
    sim_heap_free(&ms->delayed);
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

void sim_memsys_launch_end(sim_engine *e)
{
    /* a write-back L1 ([L1D] write_back, l1d_store.c) hands its dirty lines to
     * the L2 before the next kernel or the host can read them */
    if (!e->arch->level[GD_L1D].write_back)
        return;
    for (uint32_t s = 0; s < e->sm_count; s++)
        sim_l1d_writeback_all(e, &e->sms[s]);
}

/* ------------------------------------------------------------------------- */
/* The global tick: DRAM first (its fills free L2 MSHRs), then the crossbar
 * and the L2 slices (l2_slice.c, dram.c)                                    */

void sim_memsys_global_tick(sim_engine *e, uint64_t cycle)
{
    sim_dram_tick(e, cycle);
    sim_l2_tick(e, cycle);
}

/* ------------------------------------------------------------------------- */
/* Event horizon                                                             */

uint64_t sim_memsys_next_event(const sim_engine *e, uint64_t now)
{
    uint64_t best = sim_l2_next_event(e, now);
    if (best > now) {
        uint64_t t = sim_dram_next_event(e, now);
        if (t < best)
            best = t;
    }
    if (best == now)
        return now;
    /* an SM the loop passes by (sim_engine.sm_quiet nonzero) has every LSU
     * queue empty: its entry is read, not its LSU (108 SMs a cycle) */
    for (uint32_t i = 0; i < e->active_sm_count; i++)
        if (!e->sm_quiet[e->active_ids[i]] && sim_lsu_has_work(e->active_sms[i]))
            return now;
    return best;
}

int sim_memsys_idle(const sim_engine *e)
{
    const sim_memsys *ms = e->memsys;
    return ms->live_requests == 0 && ms->live_msgs == 0;
}
