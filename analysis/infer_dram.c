/* infer_dram.c -- a DRAM row hit against a row switch, from the dram_row
 * probe (kernels/dram_row.c; issue 12).
 *
 * The curve is the latency of load B right after load A, both L2 misses, as a
 * function of their distance d.  While B is in A's row it is a row hit; past
 * the row (on the simulator and on the usual GPU maps: past the interleave
 * chunk, when it is smaller than a row) B lands in a bank with another row
 * open: a row switch, tRP + tRCD more under the open-row policy (a closed
 * bank, tRCD, under a close-page one: the probe cannot tell which, and says
 * "switch").  So the curve has two plateaus: the first point is the row-hit
 * latency, the last the row-switch latency, and the first distance nearer
 * the second than the first is where A's row ends -- the row-hit span.
 *
 * A step below GD_ROW_MIN_STEP_CYCLES and GD_ROW_MIN_STEP_SHARE of the hit is
 * no step: a DRAM without rows (every arch file without [DRAM] channels) gives
 * "row_effect": false and one latency, the curve's median -- never an error.
 * Confidence: 1 when every point lies within the step's threshold of one of
 * the two levels, lower by the share of points that do not (a curve that
 * wanders is not two plateaus).
 */
#include "analysis/infer_dram.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double point_median(const gd_curve *curve, size_t i)
{
    const gd_summary *s = gd_point_summary(&curve->points[i], "cycles");
    return s ? s->median : NAN;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int gd_infer_dram_row(gd_inference *inf, const gd_curve *curve, gd_err *err)
{
    if (curve->count < 2)
        return gd_fail(err, "%s: a dram_row curve needs two distances at least, has %zu",
                       curve->label, curve->count);
    double *m = malloc(curve->count * sizeof *m);
    if (!m)
        return gd_fail(err, "%s: out of memory", curve->label);
    for (size_t i = 0; i < curve->count; i++) {
        m[i] = point_median(curve, i);
        if (!isfinite(m[i])) {
            free(m);
            return gd_fail(err, "%s: no \"cycles\" at distance %llu", curve->label,
                           (unsigned long long)curve->points[i].x);
        }
    }
    double hit = m[0], sw = m[curve->count - 1];
    double threshold = fmax(GD_ROW_MIN_STEP_CYCLES, GD_ROW_MIN_STEP_SHARE * hit);
    gd_inferred_rows *r = &inf->below.rows;
    r->has = 1;
    snprintf(r->from, sizeof r->from, "%s", curve->label);
    size_t off = 0;
    if (sw - hit >= threshold) {
        r->row_effect = 1;
        r->row_hit_cycles = hit;
        r->row_switch_cycles = sw;
        r->row_hit_span_bytes = 0;
        for (size_t i = 0; i < curve->count; i++) {
            if (!r->row_hit_span_bytes && m[i] > (hit + sw) / 2)
                r->row_hit_span_bytes = curve->points[i].x;
            if (fabs(m[i] - hit) > threshold / 2 && fabs(m[i] - sw) > threshold / 2)
                off++;
        }
    } else {
        /* no row effect: one latency, the curve's median */
        double *sorted = malloc(curve->count * sizeof *sorted);
        if (!sorted) {
            free(m);
            return gd_fail(err, "%s: out of memory", curve->label);
        }
        for (size_t i = 0; i < curve->count; i++)
            sorted[i] = m[i];
        qsort(sorted, curve->count, sizeof *sorted, cmp_double);
        double mid = curve->count % 2 ? sorted[curve->count / 2]
                                      : (sorted[curve->count / 2 - 1] + sorted[curve->count / 2]) / 2;
        free(sorted);
        r->row_effect = 0;
        r->row_hit_cycles = r->row_switch_cycles = mid;
        r->row_hit_span_bytes = 0;
        for (size_t i = 0; i < curve->count; i++)
            if (fabs(m[i] - mid) > threshold / 2)
                off++;
    }
    r->confidence = 1.0 - (double)off / (double)curve->count;
    inf->level[GD_INF_DRAM].present = 1;
    free(m);
    return 0;
}
