/* infer_bandwidth.c -- streaming bandwidth per level (issue 12) from the
 * bandwidth probe (kernels/bandwidth.c).
 *
 * A bandwidth step measures one level and one kind of traffic at one or a few
 * footprints the suite chose for that level (L1D: a share of one L1, read by
 * every CTA; L2: a share of the L2 with ld.cg; DRAM: twice the L2).  Each
 * point is one figure (the chip's bytes over the span of its CTAs), so the
 * step's figure is the median over its points; the clock is the one the
 * probe measured (%clock64 against %globaltimer), which converts bytes per
 * cycle into GB/s.  Confidence: 1 for one point; with more, one minus the
 * points' spread relative to their median (a footprint that half left the
 * level would show).
 */
#include "analysis/infer_bandwidth.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static double median_of(double *v, size_t n)
{
    for (size_t i = 1; i < n; i++) /* insertion sort: a step has a few points */
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define BW_MAX_POINTS 64

int gd_infer_bandwidth(gd_inference *inf, const gd_curve *curve, const char *level, gd_err *err)
{
    const char *var = curve->opts.variant;
    gd_bw_kind kind;
    if (!strcmp(var, "read") || !strcmp(var, "read_l1") || !var[0])
        kind = GD_BW_READ;
    else if (!strcmp(var, "write"))
        kind = GD_BW_WRITE;
    else if (!strcmp(var, "copy"))
        kind = GD_BW_COPY;
    else
        return gd_fail(err, "%s: unknown bandwidth variant '%s'", curve->label, var);
    const char *lv = level && level[0] ? level : !strcmp(var, "read_l1") ? "L1D" : "";
    int li = -1;
    for (int i = 0; i < GD_BW_LEVEL_COUNT; i++)
        if (!strcmp(lv, gd_bw_level_name((gd_bw_level)i)))
            li = i;
    if (li < 0)
        return gd_fail(err, "%s: a bandwidth step needs --level L1D, L2 or DRAM (got '%s')",
                       curve->label, lv);
    if (!curve->count || curve->count > BW_MAX_POINTS)
        return gd_fail(err, "%s: a bandwidth step takes 1..%d points, has %zu", curve->label,
                       BW_MAX_POINTS, curve->count);
    double bpc[BW_MAX_POINTS], gbs[BW_MAX_POINTS], mhz[BW_MAX_POINTS];
    size_t n = 0, nclock = 0;
    for (size_t i = 0; i < curve->count; i++) {
        const gd_summary *b = gd_point_summary(&curve->points[i], "bytes_per_cycle");
        const gd_summary *g = gd_point_summary(&curve->points[i], "gb_per_s");
        if (!b || !isfinite(b->median))
            return gd_fail(err, "%s: no bytes_per_cycle at footprint %llu", curve->label,
                           (unsigned long long)curve->points[i].x);
        bpc[n] = b->median;
        gbs[n] = g ? g->median : NAN;
        n++;
        if (isfinite(curve->points[i].sm_clock_mhz))
            mhz[nclock++] = curve->points[i].sm_clock_mhz;
    }
    gd_inferred_bandwidth *x = &inf->below.bw[li][kind];
    x->has = 1;
    double lo = bpc[0], hi = bpc[0];
    for (size_t i = 1; i < n; i++) {
        lo = fmin(lo, bpc[i]);
        hi = fmax(hi, bpc[i]);
    }
    x->bytes_per_cycle = median_of(bpc, n);
    x->clock_mhz = nclock ? median_of(mhz, nclock) : NAN;
    x->gb_per_s = isfinite(x->clock_mhz) ? x->bytes_per_cycle * x->clock_mhz / 1000.0
                                         : median_of(gbs, n);
    double spread = x->bytes_per_cycle > 0 ? (hi - lo) / x->bytes_per_cycle : 1;
    x->confidence = spread >= 1 ? 0 : 1 - spread;
    snprintf(x->from, sizeof x->from, "%s", curve->label);
    static const gd_inferred_name names[GD_BW_LEVEL_COUNT] = {GD_INF_L1D, GD_INF_L2, GD_INF_DRAM};
    inf->level[names[li]].present = 1;
    return 0;
}
