/* pchase_page.c -- the pointer chase swept over large strides at a fixed
 * footprint: the page size a TLB maps.
 *
 * The classic way to read a TLB's page (Jia et al. 2018/2019): chase a
 * footprint far beyond the L1 TLB's coverage with a growing stride.  While the
 * stride is below the page P, consecutive elements share a page, so only one
 * access in P/stride misses the TLB and the rest hit: the mean climbs with the
 * stride and the typical (5th-percentile) access still hits.  From stride P on
 * every access is on a page of its own, and -- with more pages than the TLB
 * holds -- every access misses: the curve is flat, and its last plateau starts
 * at P.  The same reading as a cache's fetch granularity (pchase_stride, and
 * analysis/infer_tlb.c applies gd_infer_stride to it).
 *
 * A power-of-two stride would put every element's L2 line into the same few
 * sets (and slices), so the L2 would miss for reasons of its own as the stride
 * grows; the elements are therefore the candidate page plus a few L2 lines
 * apart (gd_pchase_page_spacing: a line step coprime to 2..13, which a modulo
 * map of 3, 5, 10 ... slices needs too), which keeps them spread and every
 * step of the curve the TLB's.  The sweep value is the candidate page; --footprint
 * fixes the footprint (it must hold more pages of the largest candidate than
 * the L1 TLB has entries); --variant cg (the default here) keeps the L1 out.
 * Kernel, checks and decoding are the p-chase's (kernels/chase.c).
 */
#include <stdio.h>
#include <string.h>

#include "kernels/chase.h"

#define PAGE_DEFAULT_FOOTPRINT (1ull << 30)

static int page_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                     gd_probe_plan *out, gd_err *err)
{
    gd_probe_opts o = *opts;
    uint64_t footprint = o.footprint_bytes ? o.footprint_bytes : PAGE_DEFAULT_FOOTPRINT;
    if (point < 8 || point % 8)
        return gd_fail(err, "pchase_page: the page candidate must be a multiple of 8 bytes, got %llu",
                       (unsigned long long)point);
    if (o.stride_bytes)
        return gd_fail(err, "pchase_page: the spacing is the page candidate plus a few "
                            "%d-byte lines; --stride does not apply", GD_PCHASE_PAGE_SKEW_BYTES);
    uint64_t spacing = gd_pchase_page_spacing(point);
    if (footprint < 2 * spacing)
        return gd_fail(err, "pchase_page: footprint %llu holds fewer than two %llu-byte elements",
                       (unsigned long long)footprint, (unsigned long long)spacing);
    if (!o.variant[0])
        snprintf(o.variant, sizeof o.variant, "cg");
    o.stride_bytes = spacing;
    o.footprint_bytes = footprint;
    if (gd_chase_plan(GD_CHASE_GLOBAL, "pchase_page", &o, dev, footprint - footprint % spacing, out,
                      err) != 0)
        return -1;
    out->point = point;
    return 0;
}

static const char *const page_variants[] = {"cg", "ca", NULL};

const gd_probe gd_probe_pchase_page = {
    .name = "pchase_page",
    .summary = "pointer chase vs large strides at a fixed footprint: TLB page size",
    .sweep_name = "page_bytes",
    .value_unit = "cycles",
    .default_stride_bytes = 0,
    .variants = page_variants,
    .example_point = 2 << 20,
    .plan = page_plan,
    .fill = gd_chase_fill,
    .decode = gd_chase_decode,
    .split = gd_chase_split,
    .release = gd_chase_release,
};
