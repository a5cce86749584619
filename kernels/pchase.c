/* pchase.c -- the pointer-chase probe: load-to-use latency vs footprint.
 *
 * One dependent chain of 64-bit device pointers over the footprint, walked by
 * one thread, every access timed (the kernel and its checks: kernels/chase.c).
 * The plateaus of the curve are the latencies of the levels the footprint
 * reaches (L1D, L2, DRAM, and the TLBs where pages run out), its knees their
 * capacities.
 *
 * Variants: "ca" (ld.global.ca, cached in L1 and L2) and "cg" (ld.global.cg,
 * cached in L2 only) -- the L1 plateau disappears with cg.  --stride spaces the
 * elements (default 32 B), --pattern random walks a seeded random permutation.
 */
#include "kernels/chase.h"

static int pchase_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                       gd_probe_plan *out, gd_err *err)
{
    return gd_chase_plan(GD_CHASE_GLOBAL, "pchase", opts, dev, point, out, err);
}

static const char *const pchase_variants[] = {"ca", "cg", NULL};

const gd_probe gd_probe_pchase = {
    .name = "pchase",
    .summary = "pointer chase: load-to-use latency vs footprint (L1D, L2, DRAM)",
    .sweep_name = "footprint_bytes",
    .value_unit = "cycles",
    .default_stride_bytes = GD_CHASE_DEFAULT_STRIDE,
    .linear_knees = 1,
    .variants = pchase_variants,
    .example_point = 4096,
    .plan = pchase_plan,
    .fill = gd_chase_fill,
    .decode = gd_chase_decode,
    .split = gd_chase_split,
    .release = gd_chase_release,
};
