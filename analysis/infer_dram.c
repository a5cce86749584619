/* infer_dram.c -- a DRAM row hit against a row switch, and the page-close
 * timeout, from the dram_row probe (kernels/dram_row.c; issue 12).
 *
 * The distance sweep (variant cg).  The curve is the latency of load B right
 * after load A, both L2 misses, as a function of their distance d.  While B
 * is in A's row it is a row hit; past the row (on the simulator and on the
 * usual GPU maps: past the interleave chunk, when it is smaller than a row) B
 * lands in a bank with another row open: a row switch, tRP + tRCD more under
 * the open-row policy (a closed bank, tRCD, under a close-page one or where a
 * timeout closed it: the probe cannot tell which, and says "switch").  So the
 * curve has two plateaus: the first point is the row-hit latency, the last
 * the row-switch latency, and the first distance whose median leaves the
 * row-hit band (more than half the step threshold below, above the first
 * point) is where A's row ends -- the row-hit span.  Not the first nearer the
 * switch than the hit: under a page-close timeout the distances past the row
 * need not share one level (a bank the pairs reuse quickly is still open, a
 * conflict; one they left long enough is closed, tRCD only), and the first of
 * them may sit nearer the hit than the last -- yet above the band.
 *
 * The idle sweep (variant idle).  The curve is the latency of B in A's row
 * after a gap of g cycles, as a function of g.  A bank idle for the
 * controller's page-close timeout is precharged, and B then pays tRCD (a row
 * miss): a low plateau (the row-hit latency) up to the timeout, a high one
 * (the closed-bank latency) after.  The bank's idle time, from A's column
 * command to B's, is the wait as it ran (the probe's "wait_cycles") plus a
 * row hit's round trip -- A's data back to the SM and B's request out to the
 * bank add up to the row-hit latency -- so the rule is: the first gap whose
 * median is nearer the upper plateau than the lower found the bank closed,
 * the gap before it did not, and the timeout lies between their idle times,
 *     wait[k-1] + hit < timeout <= wait[k] + hit,
 * less the few cycles of instructions between A's data and the wait's first
 * clock read and between its last and B's issue, which no clock sees.  The
 * sweep's resolution is that bracket.  A flat curve is "no timeout between the
 * shortest and the longest idle time reached" -- recorded, with both, as a
 * lower bound (row_timeout_lower_bound), never an error: no timeout at all,
 * one longer than the sweep, or one shorter than its first gap (then every B
 * is closed and the curve sits at the closed latency; no single warp can see
 * a row hit under such a timeout).
 *
 * A step below GD_ROW_MIN_STEP_CYCLES and GD_ROW_MIN_STEP_SHARE of the lower
 * level is no step: a DRAM without rows (every arch file without [DRAM]
 * channels) gives "row_effect": false and one latency, the curve's median, and
 * a flat idle sweep; never an error.  Confidence: 1 when every point lies
 * within the step's threshold of one of the two levels, lower by the share of
 * points that do not (a curve that wanders is not two plateaus; an idle gap
 * whose B met the self-precharge under way reads between them, and counts).
 */
#include "analysis/infer_dram.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double point_median(const gd_curve *curve, size_t i, const char *series)
{
    const gd_summary *s = gd_point_summary(&curve->points[i], series);
    return s ? s->median : NAN;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of m[0..n) (n >= 1; m is left as it was). */
static int median_of(const double *m, size_t n, double *out)
{
    double *sorted = malloc(n * sizeof *sorted);
    if (!sorted)
        return -1;
    for (size_t i = 0; i < n; i++)
        sorted[i] = m[i];
    qsort(sorted, n, sizeof *sorted, cmp_double);
    *out = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    free(sorted);
    return 0;
}

/* The points within `threshold` / 2 of neither level (one level: lo == hi). */
static size_t points_off(const double *m, size_t n, double lo, double hi, double threshold)
{
    size_t off = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(m[i] - lo) > threshold / 2 && fabs(m[i] - hi) > threshold / 2)
            off++;
    return off;
}

/* The idle sweep: m the medians of B, w those of the wait, per gap. */
static int infer_idle(gd_inferred_rows *r, const gd_curve *curve, const double *m,
                      const double *w, gd_err *err)
{
    size_t n = curve->count;
    double hit = m[0], top = m[n - 1];
    double threshold = fmax(GD_ROW_MIN_STEP_CYCLES, GD_ROW_MIN_STEP_SHARE * hit);
    r->has = r->has_idle = 1;
    snprintf(r->idle_from, sizeof r->idle_from, "%s", curve->label);
    size_t off;
    if (top - hit >= threshold) {
        size_t k = 1;
        while (k < n - 1 && !(m[k] > (hit + top) / 2))
            k++;
        r->row_timeout_lower_bound = 0;
        r->idle_hit_cycles = hit;
        r->row_miss_cycles = top;
        r->row_timeout_min_cycles = w[k - 1] + hit;
        r->row_timeout_cycles = w[k] + hit;
        off = points_off(m, n, hit, top, threshold);
    } else {
        double level;
        if (median_of(m, n, &level) != 0)
            return gd_fail(err, "%s: out of memory", curve->label);
        r->row_timeout_lower_bound = 1;
        r->idle_hit_cycles = level;
        r->row_miss_cycles = NAN;
        r->row_timeout_min_cycles = w[0] + level;
        r->row_timeout_cycles = w[n - 1] + level;
        off = points_off(m, n, level, level, threshold);
    }
    r->idle_confidence = 1.0 - (double)off / (double)n;
    return 0;
}

int gd_infer_dram_row(gd_inference *inf, const gd_curve *curve, gd_err *err)
{
    int idle = !strcmp(curve->opts.variant, "idle");
    if (curve->count < 2)
        return gd_fail(err, "%s: a dram_row curve needs two %s at least, has %zu", curve->label,
                       idle ? "gaps" : "distances", curve->count);
    double *m = malloc(2 * curve->count * sizeof *m);
    if (!m)
        return gd_fail(err, "%s: out of memory", curve->label);
    double *w = m + curve->count;
    for (size_t i = 0; i < curve->count; i++) {
        m[i] = point_median(curve, i, "cycles");
        w[i] = idle ? point_median(curve, i, "wait_cycles") : 0;
        if (!isfinite(m[i]) || !isfinite(w[i])) {
            free(m);
            return gd_fail(err, "%s: no \"%s\" at %s %llu", curve->label,
                           isfinite(m[i]) ? "wait_cycles" : "cycles", idle ? "gap" : "distance",
                           (unsigned long long)curve->points[i].x);
        }
    }
    gd_inferred_rows *r = &inf->below.rows;
    if (idle) {
        int rc = infer_idle(r, curve, m, w, err);
        free(m);
        if (rc == 0)
            inf->level[GD_INF_DRAM].present = 1;
        return rc;
    }
    double hit = m[0], sw = m[curve->count - 1];
    double threshold = fmax(GD_ROW_MIN_STEP_CYCLES, GD_ROW_MIN_STEP_SHARE * hit);
    r->has = r->has_distance = 1;
    snprintf(r->from, sizeof r->from, "%s", curve->label);
    r->switch_distance_bytes = curve->points[curve->count - 1].x;
    size_t off = 0;
    if (sw - hit >= threshold) {
        r->row_effect = 1;
        r->row_hit_cycles = hit;
        r->row_switch_cycles = sw;
        r->row_hit_span_bytes = 0;
        for (size_t i = 0; i < curve->count; i++)
            if (!r->row_hit_span_bytes && m[i] > hit + threshold / 2)
                r->row_hit_span_bytes = curve->points[i].x;
        off = points_off(m, curve->count, hit, sw, threshold);
    } else {
        /* no row effect: one latency, the curve's median */
        double mid;
        if (median_of(m, curve->count, &mid) != 0) {
            free(m);
            return gd_fail(err, "%s: out of memory", curve->label);
        }
        r->row_effect = 0;
        r->row_hit_cycles = r->row_switch_cycles = mid;
        r->row_hit_span_bytes = 0;
        off = points_off(m, curve->count, mid, mid, threshold);
    }
    r->confidence = 1.0 - (double)off / (double)curve->count;
    inf->level[GD_INF_DRAM].present = 1;
    free(m);
    return 0;
}
