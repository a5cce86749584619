/* const_stride.c -- the constant-memory chase swept over the stride at a fixed
 * footprint: the line sizes of the constant caches.
 *
 * As pchase_stride does for data: with a footprint beyond a level's capacity,
 * strides below its line hit the line the previous miss brought in, so the mean
 * latency climbs with the stride until the stride reaches the line, where every
 * access misses.  One curve can show two knees: the L1 constant line (64 B on
 * every GPU Jia et al. examined) when the footprint exceeds the L1, and the
 * L1.5 line (256 B) when it also exceeds the L1.5 -- which one bank of 64 KiB
 * can only do where the L1.5 is smaller than that (T4: ~46 KiB).
 * --footprint sets the footprint (default: the whole 64 KiB bank).
 */
#include "kernels/chase.h"

static int const_stride_plan(const gd_probe_opts *opts, const gd_device_info *dev,
                             uint64_t point, gd_probe_plan *out, gd_err *err)
{
    gd_probe_opts o = *opts;
    uint64_t footprint = o.footprint_bytes ? o.footprint_bytes : GD_CHASE_CONST_BYTES;
    if (point < 4 || point % 4)
        return gd_fail(err, "const_stride: stride must be a multiple of 4 bytes, got %llu",
                       (unsigned long long)point);
    if (footprint < 2 * point)
        return gd_fail(err, "const_stride: footprint %llu holds fewer than two %llu-byte elements",
                       (unsigned long long)footprint, (unsigned long long)point);
    o.stride_bytes = point;
    o.footprint_bytes = footprint;
    if (gd_chase_plan(GD_CHASE_CONST, "const_stride", &o, dev, footprint - footprint % point, out,
                      err) != 0)
        return -1;
    out->point = point;
    return 0;
}

static const char *const const_variants[] = {"const", NULL};

const gd_probe gd_probe_const_stride = {
    .name = "const_stride",
    .summary = "constant-memory chase vs stride at a fixed footprint: constant line sizes",
    .sweep_name = "stride_bytes",
    .value_unit = "cycles",
    .default_stride_bytes = 4,
    .variants = const_variants,
    .example_point = 64,
    .plan = const_stride_plan,
    .fill = gd_chase_fill,
    .decode = gd_chase_decode,
    .split = gd_chase_split,
    .release = gd_chase_release,
};
