/* pchase_stride.c -- the pointer chase swept over the stride at a fixed footprint:
 * the fetch granularity ("line size") of a cache level.
 *
 * With a footprint well beyond a level's capacity every lap misses that level,
 * except where consecutive accesses fall into the piece of memory the previous
 * miss just fetched.  Below the fetch granularity g, one access in g/stride
 * misses and the rest hit, so the mean latency climbs with the stride; from
 * stride g on, every access misses and the curve is flat at the next level's
 * latency.  The knee is g: the sector size of a sectored cache (what Jia et al.
 * report as the line size: 32 B for the T4's L1D), the line size otherwise.
 *
 * The kernel, its verification and its decoding are the p-chase's
 * (kernels/chase.c); only the sweep variable differs.  --footprint sets the
 * footprint (default 256 KiB: beyond the L1 of every GPU we know, within the
 * L2); --variant cg skips the L1 to measure the L2 from a footprint beyond it.
 *
 * A large footprint at a small stride is many dependent accesses: 60 MiB at
 * 16 bytes is 3.9 million a lap, and the chase walks a warm-up lap and a timed
 * one; kernels/chase.c spreads such a point over launches, so that none runs
 * into a watchdog (issue 12: the stride-l2 step on a 40 MiB L2).
 */
#include <string.h>

#include "kernels/chase.h"

#define STRIDE_DEFAULT_FOOTPRINT (256 * 1024)

static int stride_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                       gd_probe_plan *out, gd_err *err)
{
    gd_probe_opts o = *opts;
    uint64_t footprint = o.footprint_bytes ? o.footprint_bytes : STRIDE_DEFAULT_FOOTPRINT;
    if (point < 8 || point % 8)
        return gd_fail(err, "pchase_stride: stride must be a multiple of 8 bytes, got %llu",
                       (unsigned long long)point);
    if (footprint < 2 * point)
        return gd_fail(err, "pchase_stride: footprint %llu holds fewer than two %llu-byte elements",
                       (unsigned long long)footprint, (unsigned long long)point);
    o.stride_bytes = point;
    o.footprint_bytes = footprint;
    if (gd_chase_plan(GD_CHASE_GLOBAL, "pchase_stride", &o, dev, footprint - footprint % point, out, err) != 0)
        return -1;
    out->point = point;
    return 0;
}

static const char *const stride_variants[] = {"ca", "cg", NULL};

const gd_probe gd_probe_pchase_stride = {
    .name = "pchase_stride",
    .summary = "pointer chase vs stride at a fixed footprint: fetch granularity (line size)",
    .sweep_name = "stride_bytes",
    .value_unit = "cycles",
    .default_stride_bytes = 8,
    .variants = stride_variants,
    .example_point = 64,
    .plan = stride_plan,
    .fill = gd_chase_fill,
    .decode = gd_chase_decode,
    .split = gd_chase_split,
    .release = gd_chase_release,
};
