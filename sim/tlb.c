/* tlb.c -- the TLBs: an L1 TLB per SM, an L2 TLB per chip.
 *
 * A TLB is a set-associative cache of page numbers ([TLB1]/[TLB2]: size is the
 * coverage, line the page size -- 2 MiB large pages on the GPUs Jia et al.
 * measured --, ways, replacement).  The L1 data cache is virtually indexed and
 * the L2 physically (Jia et al. 2019), so an access is translated when it
 * misses the L1 -- here, as it reaches the L2 (l2_slice.c).  A TLB1 miss that
 * hits the TLB2 costs [TLB1] latency - [DRAM] latency; a TLB2 miss (the page
 * walk) costs [TLB2] latency - [TLB1] latency more.  The arch's TLB latencies
 * are thus what a pointer chase measures when it reaches DRAM and that TLB
 * misses, as Jia et al.'s Fig. 3.5 reports them ("L2 miss + TLB miss"), and an
 * L2 hit whose page misses pays the same extra cycles.  The cost is added to
 * the response: the L2 and DRAM see the access at its arrival (a latency
 * model; translation bandwidth and outstanding walks are not modelled).
 * Instruction fetches, constant loads and stores are not translated (a store's
 * latency is never seen; its pages would take entries the model does not
 * count).
 */
#include "sim/memsys.h"

int sim_tlbs_create(sim_engine *e, gd_err *err)
{
    const gd_arch *a = e->arch;
    const gd_arch_level *t1 = &a->level[GD_TLB1], *t2 = &a->level[GD_TLB2];
    sim_memsys *ms = e->memsys;
    if (!t1->present)
        return 0;
    sim_tlbs *t = calloc(1, sizeof *t);
    if (!t)
        return gd_fail(err, "sim: out of memory for the TLBs");
    ms->tlbs = t;
    t->l1 = calloc(e->sm_count, sizeof *t->l1);
    if (!t->l1)
        return gd_fail(err, "sim: out of memory for the TLBs");
    t->sm_count = e->sm_count;
    for (uint32_t s = 0; s < e->sm_count; s++)
        if (sim_cache_init(&t->l1[s], t1, a->gpu.seed * 7919u + s, err) != 0)
            return -1;
    t->l1_miss_cycles = t1->latency_cycles - a->level[GD_DRAM].latency_cycles;
    if (t2->present) {
        if (sim_cache_init(&t->l2, t2, a->gpu.seed * 104729u + 3, err) != 0)
            return -1;
        t->has_l2 = 1;
        t->l2_miss_cycles = t2->latency_cycles - t1->latency_cycles;
    }
    return 0;
}

void sim_tlbs_destroy(sim_engine *e)
{
    sim_tlbs *t = e->memsys->tlbs;
    if (!t)
        return;
    if (t->l1)
        for (uint32_t s = 0; s < t->sm_count; s++)
            sim_cache_destroy(&t->l1[s]);
    free(t->l1);
    if (t->has_l2)
        sim_cache_destroy(&t->l2);
    free(t);
    e->memsys->tlbs = NULL;
}

/* 1 on a hit; on a miss the page is installed (a TLB has no reservations). */
static int lookup(sim_cache *c, uint64_t addr)
{
    uint64_t page = sim_cache_line_of(c, addr);
    sim_cache_line *l = sim_cache_find(c, page);
    if (l) {
        sim_cache_touch(c, l);
        return 1;
    }
    l = sim_cache_victim(c, page);
    if (l) {
        sim_cache_install(c, l, page);
        l->valid_sectors = 1;
    }
    return 0;
}

uint32_t sim_tlb_translate(sim_engine *e, uint32_t sm, uint64_t addr)
{
    sim_tlbs *t = e->memsys->tlbs;
    if (lookup(&t->l1[sm % t->sm_count], addr))
        return 0;
    e->stats.tlb1_misses++;
    uint32_t extra = t->l1_miss_cycles;
    if (t->has_l2 && !lookup(&t->l2, addr)) {
        e->stats.tlb2_misses++;
        extra += t->l2_miss_cycles;
    }
    return extra;
}
