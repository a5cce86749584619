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
 * one.  A point of more than STRIDE_MAX_ACCESSES_PER_LAUNCH is spread over
 * launches of the resumable chase (kernels/chase.c, the display watchdog's
 * mechanism) whatever the device, so that no launch runs into a watchdog --
 * a display's few seconds, or the simulator's 2^32 cycles (issue 12: the
 * stride-l2 step on a 40 MiB L2) -- unless the runner already asked for a
 * split of its own.
 */
#include <string.h>

#include "kernels/chase.h"

#define STRIDE_DEFAULT_FOOTPRINT (256 * 1024)
/* 2^22 accesses at 1000 cycles each (more than a DRAM access with both TLBs
 * missing on any arch modelled) stay under 2^32 cycles, the simulator's
 * watchdog; on a card that is about 3 s at 1.5 GHz */
#define STRIDE_MAX_ACCESSES_PER_LAUNCH (1ull << 22)

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
    uint64_t elements = footprint / point;
    uint64_t accesses = elements * ((GD_CHASE_MIN_WARM_ACCESSES + elements - 1) / elements +
                                    (GD_CHASE_MIN_TIMED_ACCESSES + elements - 1) / elements);
    if (o.launch_split < 2 && accesses > STRIDE_MAX_ACCESSES_PER_LAUNCH)
        o.launch_split = (uint32_t)((accesses + STRIDE_MAX_ACCESSES_PER_LAUNCH - 1) /
                                    STRIDE_MAX_ACCESSES_PER_LAUNCH);
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
