/* infer_access.c -- shared-memory banks and the L1 line a request covers, from
 * the smem_bank and coalesce curves.
 *
 * Both curves are step functions of the sweep whose steps an organisation
 * dictates exactly, so rather than reading knees off them we let every
 * plausible organisation predict the whole curve and keep the one that fits:
 *
 *   smem_bank  latency(x) = L + c * (ways(x) - 1), ways(x) the conflict degree
 *              of lane stride x (analysis/model_access.c, the rule of
 *              sim/smem.c) on B banks of W bytes, B in {8, 16, 32, 64}, W in
 *              {4, 8}; L and c by least squares.  Strides that are odd
 *              multiples of 4 tell the width from the bank count: powers of two
 *              alone see only B x W.
 *   coalesce   cycles(x) = a * requests(x) + b, requests(x) the lines of
 *              `line` bytes the warp touches, line a power of two from 8 bytes
 *              to 4 KiB; a and b by least squares, so the cost of a request
 *              need not be the simulator's one cycle.
 *
 * The medians of the points are fitted (curves read back from CSV have no
 * samples).  Confidence: 1 - SSE(best) / SSE(runner-up), the runner-up being
 * the best candidate that predicts a different curve -- one that is an affine
 * image of the best's on the swept points is no different, the sweep cannot
 * tell them apart -- divided by the number of such indistinguishable
 * candidates.  On the simulator the best fits exactly and confidence is 1.
 */
#include "analysis/infer_access.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/run_load.h"

#define WARP_LANES 32
#define MAX_POINTS 4096
#define SAME_CURVE_TOLERANCE 1e-9  /* relative residual of two affinely equal predictions */

typedef struct affine_fit {
    double slope, intercept, sse;
} affine_fit;

/* Least squares y = slope * p + intercept, slope >= 0 (a flat fit otherwise). */
static affine_fit fit_affine(const double *p, const double *y, size_t n)
{
    double mp = 0, my = 0;
    for (size_t i = 0; i < n; i++) {
        mp += p[i];
        my += y[i];
    }
    mp /= (double)n;
    my /= (double)n;
    double spp = 0, spy = 0;
    for (size_t i = 0; i < n; i++) {
        spp += (p[i] - mp) * (p[i] - mp);
        spy += (p[i] - mp) * (y[i] - my);
    }
    affine_fit f = {0, my, 0};
    if (spp > 0 && spy > 0)
        f.slope = spy / spp;
    f.intercept = my - f.slope * mp;
    for (size_t i = 0; i < n; i++) {
        double r = y[i] - (f.slope * p[i] + f.intercept);
        f.sse += r * r;
    }
    return f;
}

/* Is q an increasing affine image of p (or are both flat)? */
static int same_curve(const double *p, const double *q, size_t n)
{
    double sq = 0;
    for (size_t i = 0; i < n; i++)
        sq += q[i] * q[i];
    affine_fit f = fit_affine(p, q, n);
    int p_flat = 1, q_flat = 1;
    for (size_t i = 1; i < n; i++) {
        p_flat &= p[i] == p[0];
        q_flat &= q[i] == q[0];
    }
    if (p_flat || q_flat)
        return p_flat && q_flat;
    return f.slope > 0 && f.sse <= SAME_CURVE_TOLERANCE * (sq + 1);
}

/* Picks the best candidate of `count` (predictions pred[c * n + i]); returns
 * its index and fills its fit and the confidence described above. */
static size_t pick_best(const double *pred, const double *y, size_t n, size_t count,
                        affine_fit *best_fit, double *confidence, size_t *equivalent)
{
    size_t best = 0;
    affine_fit bf = {0, 0, INFINITY};
    for (size_t c = 0; c < count; c++) {
        affine_fit f = fit_affine(pred + c * n, y, n);
        if (f.sse < bf.sse * (1 - SAME_CURVE_TOLERANCE) - 1e-12) {
            bf = f;
            best = c; /* ties keep the earlier, more common, candidate */
        }
    }
    double runner = INFINITY;
    size_t same = 0;
    for (size_t c = 0; c < count; c++) {
        if (same_curve(pred + best * n, pred + c * n, n)) {
            same++;
            continue;
        }
        affine_fit f = fit_affine(pred + c * n, y, n);
        if (f.sse < runner)
            runner = f.sse;
    }
    double conf = 0;
    if (isfinite(runner) && runner > 0)
        conf = 1 - bf.sse / runner;
    if (conf < 0)
        conf = 0;
    *confidence = conf / (double)(same ? same : 1);
    *equivalent = same;
    *best_fit = bf;
    return best;
}

/* ------------------------------------------------------------------------- */
/* Shared-memory banks                                                       */

typedef struct bank_candidate {
    uint32_t banks, width;
} bank_candidate;

/* the most common first: ties (sweeps that cannot tell) keep the earlier */
static const bank_candidate bank_candidates[] = {
    {32, 4}, {32, 8}, {16, 4}, {16, 8}, {64, 4}, {64, 8}, {8, 4}, {8, 8},
};
#define BANK_CANDIDATES (sizeof bank_candidates / sizeof bank_candidates[0])

static double point_median(const gd_point *p, const char *series)
{
    const gd_summary *s = gd_point_summary(p, series);
    return s && s->count ? s->median : NAN;
}

int gd_infer_smem_bank(gd_inference *inf, const gd_curve *curve, gd_err *err)
{
    uint32_t access = !strcmp(curve->opts.variant, "u64") ? 8 : 4;
    size_t n = 0;
    double *y = malloc(MAX_POINTS * sizeof *y);
    uint64_t *xs = malloc(MAX_POINTS * sizeof *xs);
    double *pred = malloc(BANK_CANDIDATES * MAX_POINTS * sizeof *pred);
    int rc = -1;
    if (!y || !xs || !pred) {
        gd_fail(err, "%s: out of memory", curve->label);
        goto out;
    }
    double same_word = NAN;
    for (size_t i = 0; i < curve->count && n < MAX_POINTS; i++) {
        double m = point_median(&curve->points[i], "cycles");
        if (isnan(m))
            continue;
        if (curve->points[i].x == 0) {
            same_word = m; /* every lane on one word */
            continue;
        }
        if (curve->points[i].x % access)
            continue;
        xs[n] = curve->points[i].x;
        y[n++] = m;
    }
    if (n < 3) {
        gd_fail(err, "%s: the bank sweep needs at least 3 lane strides that are multiples of %u",
                curve->label, access);
        goto out;
    }
    for (size_t c = 0; c < BANK_CANDIDATES; c++)
        for (size_t i = 0; i < n; i++)
            pred[c * n + i] = gd_smem_conflict_ways(bank_candidates[c].banks,
                                                    bank_candidates[c].width, access, xs[i]);
    affine_fit f;
    double conf;
    size_t same;
    size_t best = pick_best(pred, y, n, BANK_CANDIDATES, &f, &conf, &same);
    const double *ways = pred + best * n;
    /* the conflict-free latency: the mean of the points the best says are free */
    double latency = 0, free_points = 0, max_ways = 1;
    for (size_t i = 0; i < n; i++) {
        if (ways[i] == 1) {
            latency += y[i];
            free_points++;
        }
        if (ways[i] > max_ways)
            max_ways = ways[i];
    }
    latency = free_points ? latency / free_points : f.intercept + f.slope;
    if (max_ways == 1 || f.slope <= 0) {
        gd_fail(err, "%s: no bank conflict in the sweep (strides %llu..%llu): sweep lane "
                     "strides up to at least the bank row (e.g. 4..256)",
                curve->label, (unsigned long long)xs[0], (unsigned long long)xs[n - 1]);
        goto out;
    }
    if (isnan(same_word)) {
        /* the probe times every lane on word 0 at every point: pool them */
        double *sw = malloc(curve->count * sizeof *sw);
        size_t k = 0;
        if (!sw) {
            gd_fail(err, "%s: out of memory", curve->label);
            goto out;
        }
        for (size_t i = 0; i < curve->count; i++) {
            double m = point_median(&curve->points[i], "same_word_cycles");
            if (!isnan(m))
                sw[k++] = m;
        }
        same_word = k ? gd_median(sw, k) : NAN;
        free(sw);
    }
    gd_inferred_level *l = &inf->level[GD_INF_SMEM];
    l->present = 1;
    l->has_latency = 1;
    l->latency_cycles = latency;
    /* how well the chosen organisation explains the curve */
    double sst = 0, mean = 0;
    for (size_t i = 0; i < n; i++)
        mean += y[i] / (double)n;
    for (size_t i = 0; i < n; i++)
        sst += (y[i] - mean) * (y[i] - mean);
    l->latency_confidence = sst > 0 ? fmax(0, 1 - f.sse / sst) : 1;
    snprintf(l->latency_from, sizeof l->latency_from, "%s", curve->label);
    l->has_banks = 1;
    l->banks = bank_candidates[best].banks;
    l->bank_width_bytes = bank_candidates[best].width;
    l->conflict_cycles = f.slope;
    /* one word for all 32 lanes: as a conflict-free access if broadcast, as a
     * 32-way conflict if not; the nearer decides */
    double bcast_conf = 0;
    if (!isnan(same_word)) {
        double half = 31 * f.slope / 2, off = same_word - latency;
        l->same_word_broadcast = off < half;
        bcast_conf = fmin(1, fabs(off - half) / half);
    }
    l->banks_confidence = isnan(same_word) ? conf : fmin(conf, bcast_conf);
    snprintf(l->banks_from, sizeof l->banks_from, "%s", curve->label);
    rc = 0;
out:
    free(y);
    free(xs);
    free(pred);
    return rc;
}

/* ------------------------------------------------------------------------- */
/* Coalescing                                                                */

#define LINE_CANDIDATES 10 /* 8 B .. 4 KiB */

int gd_infer_coalesce(gd_inference *inf, const gd_curve *curve, gd_err *err)
{
    int lanes_variant = !strcmp(curve->opts.variant, "lanes");
    uint64_t lane_stride = curve->opts.stride_bytes ? curve->opts.stride_bytes
                                                    : GD_COALESCE_DEFAULT_LANE_STRIDE;
    /* cycles per instruction, else the probe's request count */
    const char *series = "cycles";
    if (curve->count && isnan(point_median(&curve->points[0], series)))
        series = "requests";
    size_t n = 0;
    double *y = malloc(MAX_POINTS * sizeof *y);
    uint64_t *xs = malloc(MAX_POINTS * sizeof *xs);
    double *pred = malloc(LINE_CANDIDATES * MAX_POINTS * sizeof *pred);
    int rc = -1;
    if (!y || !xs || !pred) {
        gd_fail(err, "%s: out of memory", curve->label);
        goto out;
    }
    for (size_t i = 0; i < curve->count && n < MAX_POINTS; i++) {
        double m = point_median(&curve->points[i], series);
        uint64_t x = curve->points[i].x;
        if (isnan(m) || (lanes_variant ? x < 1 || x > WARP_LANES : x < 4 || x % 4))
            continue;
        xs[n] = x;
        y[n++] = m;
    }
    if (n < 3) {
        gd_fail(err, "%s: the coalescing sweep needs at least 3 points", curve->label);
        goto out;
    }
    for (size_t c = 0; c < LINE_CANDIDATES; c++)
        for (size_t i = 0; i < n; i++)
            pred[c * n + i] = gd_coalesce_requests(
                8ull << c, lanes_variant ? lane_stride : xs[i],
                lanes_variant ? (uint32_t)xs[i] : WARP_LANES);
    affine_fit f;
    double conf;
    size_t same;
    size_t best = pick_best(pred, y, n, LINE_CANDIDATES, &f, &conf, &same);
    if (f.slope <= 0) {
        gd_fail(err, "%s: the cost of a load does not grow with the lines it touches",
                curve->label);
        goto out;
    }
    rc = 0;
    if (same > 1)
        goto out; /* e.g. a lanes sweep at a stride of a line or more: any smaller line fits */
    gd_inferred_level *l = &inf->level[GD_INF_L1D];
    l->present = 1;
    l->has_alloc_line = 1;
    l->alloc_line_bytes = 8ull << best;
    l->alloc_line_confidence = conf;
    snprintf(l->alloc_line_from, sizeof l->alloc_line_from, "%s", curve->label);
out:
    free(y);
    free(xs);
    free(pred);
    return rc;
}
