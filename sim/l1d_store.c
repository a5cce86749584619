/* l1d_store.c -- what a store does to the L1D line it writes: the L1 store
 * policy as an arch choice (issue 12).
 *
 * Stores always write through to the L2 (l1d.c sends their granules down the
 * miss queue; the L2 is write-back, write-allocate at sector granularity,
 * l2_slice.c).  What differs is the L1:
 *   - write_allocate = false (the default; NVIDIA's global stores as Jia et
 *     al. and GPGPU-Sim model them): no allocation; a present line is touched
 *     and keeps its valid sectors (the data lives in device memory, so they
 *     stay right);
 *   - write_allocate = true: write-validate -- the line is installed if absent
 *     (an unreserved way: with every way of the set reserved the store simply
 *     does not allocate), and the L1 sectors the store's granules cover become
 *     valid without a fetch.  A request names granules (the L2's sectors), not
 *     bytes, so a store of 4 bytes validates its whole granule: partial-sector
 *     writes are not told apart (the data is functional, so values stay right;
 *     a card would need byte masks or a fetch).
 * A store probe tells them apart: a load right after a store to the same line
 * hits the L1 only under write-allocate.  Write-back L1s (dirty lines written
 * on eviction) are not modelled.
 */
#include "sim/memsys.h"

void sim_l1d_store_update(sim_engine *e, sim_sm *sm, const sim_request *r)
{
    sim_cache *c = &sm->lsu->l1;
    uint64_t lineno = sim_cache_line_of(c, r->line_addr);
    sim_cache_line *l = sim_cache_find(c, lineno);
    if (l)
        sim_cache_touch(c, l);
    if (!e->arch->level[GD_L1D].write_allocate)
        return;
    /* the L1 sectors the store's granules cover entirely */
    uint32_t fine = r->fine ? sm->lsu->fine_bytes : c->sector_bytes;
    uint32_t covered = 0;
    for (uint32_t s = 0; s < c->sectors_per_line; s++) {
        uint64_t lo = (uint64_t)s * c->sector_bytes, hi = lo + c->sector_bytes;
        int all = 1;
        for (uint64_t b = lo; b < hi && all; b += fine < c->sector_bytes ? fine : c->sector_bytes) {
            uint32_t g = (uint32_t)(b / fine);
            all = g < 32 && ((r->sectors >> g) & 1);
        }
        if (all)
            covered |= 1u << s;
    }
    if (!covered)
        return;
    if (!l) {
        l = sim_cache_victim(c, lineno);
        if (!l)
            return;
        sim_cache_install(c, l, lineno);
    }
    l->valid_sectors |= covered;
}
