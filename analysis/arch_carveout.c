/* arch_carveout.c -- the driver's rule for the L1/shared split of one launch.
 *
 * Since Volta an SM's L1 data cache and its shared memory are one storage
 * (seed 004: "an SRAM data array ... configured partly as shared memory for
 * direct access, partly as a set-associative cache"), and the driver chooses
 * the split per kernel from a fixed list (T4: 32 or 64 KiB of 96; V100: 0, 8,
 * 16, 32, 64 or 96 KiB of 128; arch files: [SMEM] unified, carveouts).  The
 * CUDA programming guide ("Shared Memory" of compute capabilities 7.x, 8.x,
 * 9.0) states the rule: the preferred carve-out is a hint in percent of the
 * largest shared-memory size; the driver rounds it to a supported capacity,
 * and a kernel whose CTAs need more shared memory than the preference gets the
 * capacity that fits them.  So:
 *
 *   preferred = ceil(percent x largest split / 100)
 *   needed    = shared per CTA x the CTAs that fit on one SM (by threads, CTA
 *               slots and the grid; fewer when even the largest split cannot
 *               hold that many)
 *   split     = the smallest supported split >= max(preferred, needed)
 *   L1D       = unified - split
 *
 * This is what the simulator gives a launch (sim/gpu.c) and what the
 * analytical model predicts (analysis/model.c): a probe whose shared memory
 * forces a larger split sees a smaller L1, on the simulator as on a card.  A
 * GPU may round a preference to the *nearest* split rather than up; with 0 and
 * 100 -- the two the tools ask by default -- both readings agree.
 */
#include "analysis/arch.h"

int gd_arch_carveout(const gd_arch *arch, int percent, uint32_t shared_per_cta_bytes,
                     uint32_t ctas_wanted, gd_carveout_choice *out, gd_err *err)
{
    const gd_arch_level *sm = &arch->level[GD_SMEM], *l1 = &arch->level[GD_L1D];
    if (percent < 0 || percent > 100)
        return gd_fail(err, "carve-out %d%% is not a percentage (0..100)", percent);
    uint64_t largest = sm->unified_bytes ? sm->carveout_bytes[sm->carveout_count - 1]
                                         : sm->size_bytes;
    if (shared_per_cta_bytes > largest)
        return gd_fail(err, "a CTA needs %u bytes of shared memory; the largest carve-out of %s "
                            "is %llu",
                       shared_per_cta_bytes, arch->name, (unsigned long long)largest);
    uint32_t ctas = ctas_wanted ? ctas_wanted : 1;
    if (shared_per_cta_bytes && (uint64_t)ctas * shared_per_cta_bytes > largest)
        ctas = (uint32_t)(largest / shared_per_cta_bytes);
    uint64_t needed = (uint64_t)ctas * shared_per_cta_bytes;
    uint64_t preferred = ((uint64_t)percent * largest + 99) / 100;
    out->ctas_per_sm = ctas;
    out->preferred_bytes = (uint32_t)preferred;
    if (!sm->unified_bytes) {
        out->shared_bytes = (uint32_t)sm->size_bytes;
        out->l1d_bytes = l1->size_bytes;
        out->l1d_ways = l1->ways;
        return 0;
    }
    uint64_t want = preferred > needed ? preferred : needed;
    uint32_t split = sm->carveout_bytes[sm->carveout_count - 1];
    for (uint32_t i = 0; i < sm->carveout_count; i++)
        if (sm->carveout_bytes[i] >= want) {
            split = sm->carveout_bytes[i];
            break;
        }
    out->shared_bytes = split;
    out->l1d_bytes = sm->unified_bytes - split;
    out->l1d_ways = (uint32_t)(out->l1d_bytes / ((uint64_t)l1->line_bytes * l1->sets));
    return 0;
}

unsigned gd_arch_l1d_sizes(const gd_arch *arch, uint64_t *l1d_bytes, unsigned max)
{
    const gd_arch_level *sm = &arch->level[GD_SMEM];
    if (!sm->unified_bytes) {
        if (max)
            l1d_bytes[0] = arch->level[GD_L1D].size_bytes;
        return 1;
    }
    unsigned n = 0;
    for (uint32_t i = 0; i < sm->carveout_count && n < max; i++)
        l1d_bytes[n++] = sm->unified_bytes - sm->carveout_bytes[i];
    return n;
}
