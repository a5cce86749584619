/* const_seq.c -- the constant-cache scan: load-to-use latency of ld.const vs
 * the footprint of a .const array (Jia et al. 2019, sec. 3.4).
 *
 * One thread chases a chain of 32-bit offsets through the module's 64 KiB
 * `.const` array (kernels/chase.c: the same kernel, checks and timing as the
 * global p-chase).  Warp-uniform addresses take the constant path: the per-SM
 * L1 constant cache, the L1.5 constant cache (on Volta and Turing one structure
 * with the L1 instruction cache), then the unified L2.  The plateaus are their
 * latencies, the knees their capacities -- as far as one constant bank reaches:
 * an L1.5 larger than 64 KiB (V100) shows no knee, only a lower bound.
 *
 * --stride spaces the elements (default 64 B, the L1 constant line of every GPU
 * Jia et al. examined); a stride larger than a level's line leaves some of its
 * sets unused, so only the knees of levels whose line is at least the stride
 * are capacities.  --pattern random walks a seeded permutation; --samples sets
 * the chronological trace kept for the fine-grained look at the L1's
 * replacement ("recent_cycles": the last N accesses in order).
 */
#include "kernels/chase.h"

static int const_seq_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                          gd_probe_plan *out, gd_err *err)
{
    gd_probe_opts o = *opts;
    if (!o.stride_bytes)
        o.stride_bytes = GD_CONST_SEQ_DEFAULT_STRIDE;
    return gd_chase_plan(GD_CHASE_CONST, "const_seq", &o, dev, point, out, err);
}

static const char *const const_variants[] = {"const", NULL};

const gd_probe gd_probe_const_seq = {
    .name = "const_seq",
    .summary = "constant-memory chase: ld.const latency vs footprint (L1C, L15C, L2C)",
    .sweep_name = "footprint_bytes",
    .value_unit = "cycles",
    .default_stride_bytes = GD_CONST_SEQ_DEFAULT_STRIDE,
    .variants = const_variants,
    .example_point = 4096,
    .plan = const_seq_plan,
    .fill = gd_chase_fill,
    .decode = gd_chase_decode,
    .split = gd_chase_split,
    .release = gd_chase_release,
};
