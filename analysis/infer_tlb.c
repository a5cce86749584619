/* infer_tlb.c -- TLB page size, coverage and miss latency from chases at
 * large strides (issue 12).
 *
 * A footprint chase at a small stride touches each page many times in a row,
 * so it misses a TLB once per page and its curve hardly moves; Jia et al. see
 * the TLBs with strides of a page or more.  The full suite runs three steps
 * (bench/suites/full.suite):
 *
 *   tlb-page  pchase_page, candidate pages 64 KiB..4 MiB at a footprint far
 *             beyond the L1 TLB: the second plateau starts at the page (the
 *             fetch-granularity reading of gd_infer_stride over the first two
 *             plateaus: past the L2 TLB's reach its entry adds a later step);
 *   tlb1      a chase whose elements are one page (plus one L2 line, to keep
 *             their L2 lines spread over the sets) apart: every element is a
 *             page of its own, so the first knee is the L1 TLB's entries, and
 *             entries x page its coverage;
 *   tlb2      the same at 16 pages apart (the L2 TLB's 32 MiB entries on the
 *             GPUs Jia et al. measured): the last knee is the L2 TLB's reach.
 *             It needs more L2 TLB entries than L1 TLB entries (as on every
 *             GPU measured): with as many, both knees fall on one footprint
 *             and the step is both misses' cost.
 *
 * The chase reads its scratch (the output buffer) through the L2 at every
 * access, so one entry of each TLB is the scratch's page (measured so on the
 * simulator: the L2 TLB's knee comes one page early too): a TLB's entries are
 * the chain's pages on the plateau before its knee plus one.
 *
 * The elements stay in the L2 (one line per page), so each step's height is a
 * TLB miss's cost alone; the arch files state a TLB's latency as what a chase
 * that reaches DRAM measures when that TLB misses (Jia et al. Fig. 3.5), so the
 * latency recorded is the DRAM latency already inferred (TLB1: DRAM; TLB2: the
 * TLB1 latency) plus the step.  Without those the step is added to the
 * plateau below it, and the confidence halved.  A curve without a step (no TLB
 * within the sweep, as on the arch files without [TLB1]) records nothing.
 */
#include "analysis/infer_tlb.h"

#include <stdio.h>
#include <string.h>

static uint64_t pow2_floor(uint64_t x)
{
    uint64_t p = 1;
    while (p <= x / 2)
        p *= 2;
    return p;
}

int gd_infer_tlb_page(gd_inference *run_inf, const gd_curve *curve, const gd_segmentation *seg,
                      gd_err *err)
{
    /* no step at all (a GPU, or an arch, without a TLB in reach): nothing to say */
    if (seg->plateau_count < 2 ||
        seg->plateaus[seg->plateau_count - 1].level <= seg->plateaus[0].level)
        return 0;
    /* the first step is the L1 TLB's page; a footprint beyond the L2 TLB's
     * reach adds a second at its (larger) entry, which is not the L1's page:
     * read the stride curve's granularity over the first two plateaus only */
    gd_segmentation first = *seg;
    first.plateau_count = 2;
    first.knee_count = 1;
    gd_curve head = *curve;
    head.count = seg->plateaus[1].last + 1;
    gd_inference step;
    memset(&step, 0, sizeof step);
    if (gd_infer_stride(&step, &head, &first, GD_INF_TLB1, err) != 0)
        return -1;
    gd_inferred_level *t = &run_inf->level[GD_INF_TLB1];
    const gd_inferred_level *s = &step.level[GD_INF_TLB1];
    t->present = 1;
    t->has_sector = 1;
    t->sector_bytes = s->sector_bytes;
    t->sector_confidence = s->sector_confidence;
    memcpy(t->sector_from, s->sector_from, sizeof t->sector_from);
    return 0;
}

int gd_infer_tlb_reach(gd_inference *run_inf, const gd_curve *curve, const gd_segmentation *seg,
                       gd_inferred_name level, gd_err *err)
{
    if (level != GD_INF_TLB1 && level != GD_INF_TLB2)
        return gd_fail(err, "%s: a TLB reach step measures TLB1 or TLB2", curve->label);
    if (seg->plateau_count < 2)
        return 0; /* no knee within the sweep: no TLB of this reach, or more of it than swept */
    uint64_t stride = curve->opts.stride_bytes;
    if (!stride)
        return gd_fail(err, "%s: a TLB reach step needs --stride", curve->label);
    /* TLB1: the first step up; TLB2: the last */
    size_t k = level == GD_INF_TLB1 ? 0 : seg->knee_count - 1;
    const gd_knee *knee = &seg->knees[k];
    const gd_plateau *below = &seg->plateaus[k], *above = &seg->plateaus[k + 1];
    /* the page: the inferred L1 TLB page for TLB1; otherwise the power of two
     * the stride holds (page + one L2 line) */
    const gd_inferred_level *t1 = &run_inf->level[GD_INF_TLB1];
    uint64_t page = level == GD_INF_TLB1 && t1->has_sector && t1->sector_bytes <= stride
                        ? t1->sector_bytes
                        : pow2_floor(stride);
    uint64_t elements = (uint64_t)(knee->x_below / (double)stride);
    /* the chase's scratch page holds an entry of each TLB (kernels/probe_layout.h:
     * the scratch is in global memory while a chain is this small) */
    elements++;
    gd_inferred_level *t = &run_inf->level[level];
    t->present = 1;
    t->has_size = 1;
    t->size_is_lower_bound = 0;
    t->size_bytes = elements * page;
    t->size_confidence = knee->confidence;
    t->knee_below = knee->x_below;
    t->knee_above = knee->x_above;
    snprintf(t->size_from, sizeof t->size_from, "%s", curve->label);
    /* the latency, as the arch files state it */
    const gd_inferred_level *base = &run_inf->level[level == GD_INF_TLB1 ? GD_INF_DRAM : GD_INF_TLB1];
    double step = above->level - below->level;
    double conf = below->confidence < above->confidence ? below->confidence : above->confidence;
    t->has_latency = 1;
    if (base->has_latency) {
        t->latency_cycles = base->latency_cycles + step;
    } else {
        t->latency_cycles = above->level;
        conf *= 0.5;
    }
    t->latency_confidence = conf;
    snprintf(t->latency_from, sizeof t->latency_from, "%s", curve->label);
    return 0;
}
