/* infer_l2_slice.c -- the L2's slices from the l2_slice probe
 * (kernels/l2_slice.c; issue 12).
 *
 * The curve is the chip's L2 requests per cycle at strides k x u (u the
 * sweep's first stride, k = 1, 2, ...).  Under a modulo map with s slices per
 * partition the requests of stride k fall on s / gcd(k, s) slices, so a
 * candidate s predicts
 *
 *     T(k) = min(peak, floor x s / gcd(k, s))
 *
 * with floor the throughput of one slice per partition (the highest at the
 * multiples of s: a multiple whose lines also crowd a slice's sets only
 * misses, which lowers it) and peak what the SMs' requests in flight allow (the
 * curve's 90th percentile).  Every s from 2 to the largest k is scored by the
 * summed |log(measured / predicted)| (each point's share clipped at log 4:
 * a stride whose lines alias onto a few sets of a slice and miss -- a power of
 * two times the period on a power-of-two set count -- costs one point, not the
 * fit), and so is a flat line at the peak.  The best s wins if it beats the
 * flat line and the peak is GD_SLICE_MIN_CONTRAST times its floor at least; ties go
 * to the smaller s.  A best s whose double is past the sweep was seen at one
 * multiple only, and s x 2 would explain its points as well where the
 * SMs' requests in flight cap the rest: it is reported as a lower bound.
 *
 * What it gives: the period s x u (the smallest stride that serialises every
 * SM on one slice per partition; the L2 line is u where the sweep starts at
 * it), s, and s x the run's partitions (two where the footprint chase found
 * L2FAR) as the slice count.  Confidence: the share of points within
 * GD_SLICE_POINT_FACTOR of the prediction.
 */
#include "analysis/infer_l2_slice.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* The summed clipped |log| misfit of the curve against candidate s (0: the
 * flat line at peak); *floor_out the floor it used.  INFINITY when s has no
 * multiple in the sweep. */
static double misfit(const uint64_t *k, const double *t, size_t n, uint64_t s, double peak,
                     double *scratch, double *floor_out)
{
    double floor = peak;
    if (s) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if (k[i] % s == 0)
                scratch[m++] = t[i];
        if (!m)
            return INFINITY;
        qsort(scratch, m, sizeof *scratch, cmp_double);
        floor = scratch[m - 1];
    }
    *floor_out = floor;
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        double pred = s ? fmin(peak, floor * (double)(s / gcd_u64(k[i], s))) : peak;
        sum += fmin(fabs(log(t[i] / pred)), log(4.0));
    }
    return sum;
}

int gd_infer_l2_slice(gd_inference *inf, const gd_curve *curve, gd_err *err)
{
    size_t n = curve->count;
    if (n < 4)
        return gd_fail(err, "%s: an l2_slice curve needs four strides at least, has %zu",
                       curve->label, n);
    uint64_t unit = curve->points[0].x;
    uint64_t *k = malloc(n * sizeof *k);
    double *t = malloc(n * sizeof *t), *scratch = malloc(n * sizeof *scratch);
    if (!k || !t || !scratch) {
        free(k), free(t), free(scratch);
        return gd_fail(err, "%s: out of memory", curve->label);
    }
    for (size_t i = 0; i < n; i++) {
        const gd_summary *sm = gd_point_summary(&curve->points[i], "requests_per_cycle");
        t[i] = sm ? sm->median : NAN;
        k[i] = unit ? curve->points[i].x / unit : 0;
        if (!unit || curve->points[i].x % unit || !(t[i] > 0) || !isfinite(t[i])) {
            free(k), free(t), free(scratch);
            return gd_fail(err, "%s: stride %llu is not a multiple of the first (%llu) or has "
                                "no \"requests_per_cycle\"",
                           curve->label, (unsigned long long)curve->points[i].x,
                           (unsigned long long)unit);
        }
        scratch[i] = t[i];
    }
    qsort(scratch, n, sizeof *scratch, cmp_double);
    double lowest = scratch[0];
    double peak = scratch[(size_t)floor(0.9 * (double)(n - 1))];
    uint64_t kmax = 0;
    for (size_t i = 0; i < n; i++)
        if (k[i] > kmax)
            kmax = k[i];
    gd_inferred_slices *r = &inf->below.slices;
    memset(r, 0, sizeof *r);
    r->has = 1;
    snprintf(r->from, sizeof r->from, "%s", curve->label);
    r->peak_requests_per_cycle = peak;
    double floor_flat, best_floor = peak;
    double flat = misfit(k, t, n, 0, peak, scratch, &floor_flat), best = flat;
    uint64_t best_s = 0;
    for (uint64_t s = 2; s <= kmax; s++) {
        double f = peak, e = misfit(k, t, n, s, peak, scratch, &f);
        if (e < best - 1e-9) {
            best = e;
            best_s = s;
            best_floor = f;
        }
    }
    r->floor_requests_per_cycle = lowest;
    if (peak < GD_SLICE_MIN_CONTRAST * best_floor || !best_s) {
        snprintf(r->why, sizeof r->why,
                 peak < GD_SLICE_MIN_CONTRAST * best_floor
                     ? "no stride slows the L2 by %.1fx (%.2f..%.2f requests/cycle): one slice, "
                       "or a hash that spreads every stride"
                     : "no slice count explains the curve better than a flat line (%.1fx, "
                       "%.2f..%.2f requests/cycle)",
                 GD_SLICE_MIN_CONTRAST, lowest, peak);
        size_t on = 0;
        for (size_t i = 0; i < n; i++)
            on += fabs(log(t[i] / peak)) <= log(GD_SLICE_POINT_FACTOR);
        r->confidence = (double)on / (double)n;
    } else {
        r->resolved = 1;
        r->slices_per_partition = (uint32_t)best_s;
        r->partitions = inf->level[GD_INF_L2FAR].present ? 2 : 1;
        r->slices = r->slices_per_partition * r->partitions;
        r->period_bytes = best_s * unit;
        r->unit_bytes = unit;
        r->lower_bound = 2 * best_s > kmax;
        r->floor_requests_per_cycle = best_floor;
        size_t on = 0;
        for (size_t i = 0; i < n; i++) {
            double pred = fmin(peak, best_floor * (double)(best_s / gcd_u64(k[i], best_s)));
            on += fabs(log(t[i] / pred)) <= log(GD_SLICE_POINT_FACTOR);
        }
        r->confidence = (double)on / (double)n;
    }
    free(k), free(t), free(scratch);
    return 0;
}
