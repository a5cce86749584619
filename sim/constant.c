/* constant.c -- the constant path: ld.const and ld.param through L1C, L15C, L2.
 *
 * A warp's constant load is served one distinct address at a time: when all
 * lanes read the same address the value is broadcast in one access; k distinct
 * addresses are k accesses, one after the other (Jia et al. 2019, sec. 3.4:
 * "accesses to different addresses are serialized").  Each access looks its
 * line up in the SM's L1 constant cache, then the L1.5 (which on Turing and
 * Volta is the L1 instruction cache itself: [L15C] shared_with = L1I), then the
 * unified L2, and costs the latency of the level that had it; the value is
 * visible when the last access completes.
 *
 * Parameters live in their own constant bank (as on a GPU, bank 0), the
 * module's .const variables in another, both tagged into the constant address
 * space so they never alias code or data in the L2.
 */
#include "sim/engine.h"

static const gd_level_id const_levels[] = {GD_L1C, GD_L15C};

uint64_t sim_const_access(sim_engine *e, sim_sm *sm, sim_warp *w, const sim_mem_access *acc,
                          uint64_t cycle)
{
    const sim_launch_config *l = e->launch;
    uint64_t base = acc->space == SP_PARAM ? l->param_base : l->const_base;
    uint64_t seen[SIM_WARP_LANES];
    uint32_t distinct = 0;
    uint64_t total = 0;
    for (uint32_t m = acc->mask; m; m &= m - 1) {
        unsigned lane = (unsigned)__builtin_ctz(m);
        uint64_t addr = acc->addr[lane];
        uint32_t k;
        for (k = 0; k < distinct; k++)
            if (seen[k] == addr)
                break;
        if (k < distinct)
            continue; /* broadcast */
        seen[distinct++] = addr;
        e->stats.const_accesses++;
        total += sim_path_lookup(e, const_levels, 2, 0, sm->id, w->subpartition, base + addr,
                                 acc->size, cycle + total, e->stats.const_hits,
                                 e->stats.const_misses);
    }
    return total;
}
