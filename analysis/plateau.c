/* plateau.c -- plateaus, levels and knees of a latency curve, in one pass.
 *
 * What.  A probe sweeps x (a footprint, an instruction-sequence length) and
 * records for each x a few hundred to a few thousand samples (cycles per
 * access).  The curve is a staircase: a plateau at the latency of each level
 * the footprint fits in, a knee where it stops fitting, and between two
 * plateaus perhaps a few transition points where part of the accesses already
 * miss (a set-associative cache just past its capacity: 25% of the accesses
 * at the next level, 75% still hitting).  This file finds every plateau at
 * once, its level (the median of its pooled samples, so a noiseless simulated
 * curve gives the exact integer latency), the knee after it, and a confidence
 * in [0,1] for each.
 *
 * Why this method.  MT4G finds one split at a time with a Kolmogorov-Smirnov
 * test between raw sample sets: greedy (a first split in the wrong place is
 * never undone), and with thousands of samples per side KS calls every cycle
 * of drift significant.  Here each question gets the statistic that fits it:
 *
 *  1. Where are the levels?  Each point is reduced to its median (immune to
 *     the rare +1000-cycle outliers of a real GPU) and a robust spread
 *     (1.4826 * MAD).  The medians are segmented by optimal partitioning with
 *     PELT (Killick, Fearnhead & Eckley 2012): the exact minimum, over all
 *     segmentations, of weighted squared residuals + penalty per change, any
 *     number of levels in one pass.  A point's weight is the inverse variance
 *     of its median: the larger of the curve's point-to-point noise and the
 *     point's own sampling variance (pi/2 * s^2 / n for a median).  The noise
 *     is the smaller of two robust estimates, from the lower quartile of
 *     |first| and of |second differences| of the medians (a quartile ignores
 *     up to 75% of steps; first differences mistake a ramp for noise, second
 *     differences a staircase of short plateaus), never below a floor of half
 *     a cycle.  The penalty is 2 ln n in these chi-square units (BIC).
 *     Adjacent segments are then merged when their levels differ by less than
 *     min_step (3 x the noise, at least 3% of the level: statistics separate
 *     188 from 189 cycles, a memory hierarchy does not), or by less than 3
 *     robust SDs of the medians inside either (pieces of one ramp), unless
 *     one of them is flat (a plateau beside a ramp is not one of its pieces).
 *
 *  2. Which segments are plateaus?  Those with at least min_points points;
 *     shorter ones are transitions or glitches (two plateaus at one level on
 *     either side of a glitch are joined across it).  A plateau that owns less
 *     than half its samples (nearer its level than its neighbours') is a run
 *     of mixed points -- a 50/50 mix has its median in the gap -- and is
 *     demoted to transition.
 *
 *  3. Where exactly are the knees?  A median does not move until half the
 *     accesses miss, so a point with 10% misses has its median on the lower
 *     plateau -- but a cache's capacity is the largest footprint with *no*
 *     misses, so that point is already past the knee.  So each end point of a
 *     plateau is tested on its own: the fraction of its samples at the
 *     neighbour's level (within half the gap of it; outliers far above every
 *     level count for none) against the plateau's own rate of such samples
 *     (taken on its clean core: pooled from the lowest-rate point up while
 *     no point is significantly above the pool, so mixed points not yet
 *     peeled -- even a majority of them -- do not raise it), in a one-sided
 *     exact binomial test.  The point is off when the excess is significant
 *     (alpha 1e-3) and at least min_excess (2%) -- 3 robust SDs of the
 *     per-point rates if the plateau's outliers come in bursts, less if the
 *     plateau has no sample at the next level at all (a simulator's: one
 *     overflowing set, 1% misses, is a knee there).  Off points are peeled
 *     from each end until an end point passes.
 *
 *  4. Confidence.  Separation of two plateaus = 1 - two-sided p of their
 *     level difference against the point-to-point noise (se^2 = noise^2 *
 *     (1/nA + 1/nB)).  A knee: separation x (1 - p that `above` is not off by
 *     the margin that declared it off) x (1 - p that `below` hides a miss rate
 *     of min_excess): near 1 when both points are clearly classified, lower
 *     when one is borderline or has too few samples to rule out a 2% miss
 *     rate (64 samples cannot).  A plateau: worst separation x fraction of
 *     samples it owns (spread) x fraction of its points with a median within
 *     min_step of its level (drift, ramps) x min(1, points / min_points).
 *
 * Cost.  Quickselect medians O(samples); PELT O(n) typical, O(n^2) worst;
 * pooled medians O(samples), a few per plateau; merging O(n) per merge.  2000
 * points x 2048 samples: ~0.15 s; scratch: 8 bytes per sample.  (The order
 * statistics and the binomial tails are generic: they live in stats.c.)
 *
 * Known simplifications.  One noise scale per curve: a DRAM plateau noisier
 * than L1 gets the curve's smaller one (its medians' own sampling variance
 * still lowers their weight, and the 3% relative step absorbs its drift).  The
 * segmentation works on point index, not x: geometric, linear and adaptive
 * sweeps are all one to it, and a knee is the bracket [x_below, x_above) -- a
 * sweep wanting a capacity more precisely must add points there.  Samples are
 * taken as independent.  Peeling never removes a plateau's last point (one
 * left with fewer than min_points loses confidence).  A ramp with no plateau
 * comes out as one low-confidence plateau, not as none.  Quickselect's
 * median-of-three pivot is quadratic only on crafted input.
 */
#include "analysis/plateau.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"

/* var(median of n samples) ~= (pi/2) sigma^2 / n for normal data. */
#define GD_MEDIAN_VAR_FACTOR 1.5707963267948966
/* Lower quantile of |differences of medians| used for the point-to-point
 * noise: a quartile stays on within-plateau differences even when up to 75% of
 * the differences are steps (short plateaus, sweeps dense around knees). */
#define GD_DIFF_NOISE_QUANTILE 0.25
/* For d ~ N(0, v sigma^2), |d| has that quantile at sqrt(v) * PhiInv(0.625) *
 * sigma; v = 2 for first differences, 6 for second differences. */
#define GD_PHI_INV_0625 0.318639
#define GD_FIRST_DIFF_VAR 2.0
#define GD_SECOND_DIFF_VAR 6.0
/* Fewer differences than this say nothing about noise (a 3-point curve with
 * one step has a 50% step rate); fall back to the floor and sampling noise. */
#define GD_DIFF_NOISE_MIN_DIFFS 4
/* Default plateau length: two points make a level that is not a single glitch. */
#define GD_DEFAULT_MIN_POINTS 2
/* Default PELT penalty: 2 ln n per change (BIC/SIC for a change in mean,
 * Killick et al. 2012), in chi-square units since residuals are weighted. */
#define GD_DEFAULT_PENALTY_LOG_MULT 2.0
/* Default off-plateau excess: one overflowing set of a 32-set cache already
 * sends ~3% of accesses to the next level; 2% keeps such a point off the
 * plateau while staying above the outlier bursts of a quiet GPU. */
#define GD_DEFAULT_MIN_EXCESS 0.02
/* Default significance of the off-plateau test; a curve tests a few points
 * per knee, so 1e-3 keeps false knees rare over a whole characterization. */
#define GD_DEFAULT_ALPHA 1e-3
/* Default floor on the noise of a point's median: timers tick in whole cycles
 * and the median of integer samples moves in half cycles. */
#define GD_DEFAULT_NOISE_FLOOR 0.5
/* Level differences below this many noise SDs are one level (3 sigma: two
 * plateaus closer than that overlap too much to be told apart per access). */
#define GD_STEP_NOISE_MULT 3.0
/* ... and below this fraction of the lower level: DRAM and far-L2 latencies
 * drift by a few percent across a sweep (page policy, slice mix) without
 * being a new level of the hierarchy. */
#define GD_STEP_RELATIVE 0.03
/* Spans closer than this many robust SDs of their own point medians are
 * pieces of one sloped stretch, not two levels (3, as for the noise step). */
#define GD_RAMP_SPREAD_MULT 3.0
/* a span needs this many points for its spread to say it is flat */
#define GD_RAMP_PIECE_MIN_POINTS 3
/* A plateau candidate with fewer than half its samples nearer its own level
 * than its neighbours' is a run of mixed points, not a level. */
#define GD_MIN_OWN_FRACTION 0.5
/* On a clean plateau (a simulator's: not one of its samples at the next
 * level) the excess needed drops from min_excess to this many times the
 * plateau's (Jeffreys) rate, so that a cache 1% past its capacity (one
 * overflowing set) is already off it; the binomial test then decides. */
#define GD_CLEAN_BASE_MULT 10.0
/* Off-plateau excess must also exceed this many robust SDs of the per-point
 * rates inside the plateau (bursty outliers make those rates vary). */
#define GD_RATE_SPREAD_MULT 3.0

typedef struct span {
    size_t first, last;     /* inclusive point indices */
    double level;           /* per the stage: weighted mean or median of medians */
} span;

typedef struct detector {
    const double *const *samples;
    const size_t *counts;
    size_t n;
    double *median, *spread;   /* per point */
    double *pointwise;         /* scratch, n values */
    size_t *order;             /* scratch, n indices */
    size_t *toward;            /* per point: samples at the level being tested */
    double *pool;              /* scratch, room for every sample */
    double *wsum, *wysum;      /* PELT prefix sums (n + 1), medians minus center */
    double center;
    double noise_within, noise_location;
    size_t min_points;
    double min_step, penalty, min_excess, alpha;
} detector;

typedef double (*span_level_fn)(detector *d, size_t first, size_t last);

/* ---- pooled samples --------------------------------------------------------- */

/* Copies the samples of points first..last into d->pool; returns how many. */
static size_t gather_samples(detector *d, size_t first, size_t last)
{
    size_t count = 0;
    for (size_t i = first; i <= last; i++) {
        memcpy(d->pool + count, d->samples[i], d->counts[i] * sizeof *d->pool);
        count += d->counts[i];
    }
    return count;
}

static void pooled_level(detector *d, size_t first, size_t last, double *level, double *spread)
{
    size_t count = gather_samples(d, first, last);
    *level = gd_median_in_place(d->pool, count);
    *spread = gd_robust_sd_in_place(d->pool, count, *level);
}

static double median_of_point_medians(detector *d, size_t first, size_t last)
{
    size_t count = last - first + 1;
    memcpy(d->pointwise, d->median + first, count * sizeof *d->pointwise);
    return gd_median_in_place(d->pointwise, count);
}

/* ---- noise and steps --------------------------------------------------------- */

static void point_statistics(detector *d)
{
    for (size_t i = 0; i < d->n; i++) {
        size_t count = d->counts[i];
        memcpy(d->pool, d->samples[i], count * sizeof *d->pool);
        d->median[i] = gd_median_in_place(d->pool, count);
        d->spread[i] = gd_robust_sd_in_place(d->pool, count, d->median[i]);
    }
}

/* Robust SD of the order-th differences (1 or 2) of the point medians, from
 * their lower quartile; INFINITY when there are too few. */
static double difference_noise(detector *d, int order)
{
    size_t diffs = d->n > (size_t)order ? d->n - (size_t)order : 0;
    if (diffs < GD_DIFF_NOISE_MIN_DIFFS)
        return INFINITY;
    for (size_t i = 0; i < diffs; i++) {
        const double *m = d->median + i;
        d->pointwise[i] = fabs(order == 1 ? m[1] - m[0] : m[2] - 2 * m[1] + m[0]);
    }
    size_t k = (size_t)(GD_DIFF_NOISE_QUANTILE * (double)(diffs - 1));
    double var = order == 1 ? GD_FIRST_DIFF_VAR : GD_SECOND_DIFF_VAR;
    return gd_select_kth(d->pointwise, diffs, k) / (sqrt(var) * GD_PHI_INV_0625);
}

/* Per-sample noise (median of the per-point robust SDs) and the noise of a
 * point's median from point to point: the smaller of the first- and
 * second-difference estimates (first differences see a steady ramp as noise,
 * second differences see the steps of a staircase of short plateaus; both
 * agree on plain noise), never below the floor. */
static void noise_scales(detector *d, double noise_floor)
{
    memcpy(d->pointwise, d->spread, d->n * sizeof *d->pointwise);
    d->noise_within = gd_median_in_place(d->pointwise, d->n);
    double first = difference_noise(d, 1), second = difference_noise(d, 2);
    double sd = fmin(first, second);
    d->noise_location = isfinite(sd) ? fmax(sd, noise_floor) : noise_floor;
}

/* The smallest level difference that makes two plateaus, between levels a, b. */
static double min_step_between(const detector *d, double a, double b)
{
    if (d->min_step > 0)
        return d->min_step;
    return fmax(GD_STEP_NOISE_MULT * fmax(d->noise_within, d->noise_location),
                GD_STEP_RELATIVE * fmin(fabs(a), fabs(b)));
}

/* 1.4826 * MAD of the point medians of points first..last. */
static double median_spread(detector *d, size_t first, size_t last)
{
    size_t count = last - first + 1;
    memcpy(d->pointwise, d->median + first, count * sizeof *d->pointwise);
    double center = gd_median_in_place(d->pointwise, count);
    return gd_robust_sd_in_place(d->pointwise, count, center);
}

/* A span is flat -- a plateau, no piece of a ramp -- when it has at least
 * GD_RAMP_PIECE_MIN_POINTS points whose medians spread less than half the
 * minimum step at its level (a ramp's pieces spread about as wide as the
 * steps between them). */
static int is_flat(detector *d, const span *s)
{
    if (s->last - s->first + 1 < GD_RAMP_PIECE_MIN_POINTS)
        return 0;
    return 2 * median_spread(d, s->first, s->last) < min_step_between(d, s->level, s->level);
}

/* Joins adjacent spans whose levels are closer than the minimum step, or than
 * GD_RAMP_SPREAD_MULT robust SDs of the point medians inside either span (a
 * steady ramp cut into pieces: each piece is as wide as the steps between
 * them) unless one of them is flat (a plateau next to a ramp is no piece of
 * it), the closest relative to its step first; returns the new count. */
static size_t merge_close_spans(detector *d, span *s, size_t count, span_level_fn level)
{
    while (count > 1) {
        size_t best = count;
        double best_ratio = 1;
        for (size_t i = 0; i + 1 < count; i++) {
            /* both must be pieces of a ramp: a flat plateau beside a ramp
             * (an instruction cache filling set by set) stays a plateau */
            double ramp = is_flat(d, &s[i]) || is_flat(d, &s[i + 1])
                              ? 0
                              : fmax(median_spread(d, s[i].first, s[i].last),
                                     median_spread(d, s[i + 1].first, s[i + 1].last));
            double step = fmax(min_step_between(d, s[i].level, s[i + 1].level),
                               GD_RAMP_SPREAD_MULT * ramp);
            double ratio = fabs(s[i + 1].level - s[i].level) / step;
            if (step > 0 && ratio < best_ratio) {
                best_ratio = ratio;
                best = i;
            }
        }
        if (best == count)
            break;
        s[best].last = s[best + 1].last;
        s[best].level = level(d, s[best].first, s[best].last);
        memmove(s + best + 1, s + best + 2, (count - best - 2) * sizeof *s);
        count--;
    }
    return count;
}

/* ---- PELT ------------------------------------------------------------------- */

static double segment_cost(const detector *d, const double *wyysum, size_t from, size_t to)
{
    double w = d->wsum[to] - d->wsum[from], wy = d->wysum[to] - d->wysum[from];
    double cost = wyysum[to] - wyysum[from] - wy * wy / w;
    return cost > 0 ? cost : 0;
}

static double weighted_mean_level(detector *d, size_t first, size_t last)
{
    double w = d->wsum[last + 1] - d->wsum[first];
    return d->center + (d->wysum[last + 1] - d->wysum[first]) / w;
}

/* Optimal partition of the point medians (PELT); fills segs (room for n) in
 * x order, returns the count, or 0 when out of memory. */
static size_t pelt_segments(detector *d, span *segs)
{
    size_t n = d->n, count = 0;
    double *wyysum = malloc((n + 1) * sizeof *wyysum);
    double *best = malloc((n + 1) * sizeof *best);
    size_t *prev = malloc((n + 1) * sizeof *prev);
    size_t *alive = malloc((n + 1) * sizeof *alive);
    if (!wyysum || !best || !prev || !alive)
        goto done;
    /* Centering the medians keeps the prefix sums of squares small. */
    memcpy(d->pointwise, d->median, n * sizeof *d->pointwise);
    d->center = gd_median_in_place(d->pointwise, n);
    double floor_var = d->noise_location * d->noise_location;
    d->wsum[0] = d->wysum[0] = wyysum[0] = 0;
    for (size_t i = 0; i < n; i++) {
        double var = GD_MEDIAN_VAR_FACTOR * d->spread[i] * d->spread[i] / (double)d->counts[i];
        double w = 1 / (var > floor_var ? var : floor_var), y = d->median[i] - d->center;
        d->wsum[i + 1] = d->wsum[i] + w;
        d->wysum[i + 1] = d->wysum[i] + w * y;
        wyysum[i + 1] = wyysum[i] + w * y * y;
    }
    size_t alive_count = 1;
    alive[0] = 0;
    best[0] = -d->penalty;
    for (size_t t = 1; t <= n; t++) {
        best[t] = INFINITY;
        for (size_t a = 0; a < alive_count; a++) {
            size_t s = alive[a];
            double v = best[s] + segment_cost(d, wyysum, s, t) + d->penalty;
            if (v < best[t]) {
                best[t] = v;
                prev[t] = s;
            }
        }
        /* Pruning: a start that is already worse than the best without its
         * penalty can never become optimal later (the cost is additive). */
        size_t kept = 0;
        for (size_t a = 0; a < alive_count; a++) {
            size_t s = alive[a];
            if (best[s] + segment_cost(d, wyysum, s, t) <= best[t])
                alive[kept++] = s;
        }
        alive[kept++] = t;
        alive_count = kept;
    }
    for (size_t t = n; t > 0; t = prev[t])
        count++;
    size_t at = count;
    for (size_t t = n; t > 0; t = prev[t]) {
        at--;
        segs[at].first = prev[t];
        segs[at].last = t - 1;
        segs[at].level = weighted_mean_level(d, prev[t], t - 1);
    }
done:
    free(wyysum);
    free(best);
    free(prev);
    free(alive);
    return count;
}

/* ---- plateaus -------------------------------------------------------------- */

/* Fraction of the samples of plateau i nearer its level than a neighbour's. */
static double own_fraction(detector *d, const span *p, size_t count, size_t i)
{
    int has_prev = i > 0, has_next = i + 1 < count;
    double level = p[i].level, prev = has_prev ? p[i - 1].level : 0;
    double next = has_next ? p[i + 1].level : 0;
    size_t own = 0, total = 0;
    for (size_t j = p[i].first; j <= p[i].last; j++) {
        const double *v = d->samples[j];
        for (size_t k = 0; k < d->counts[j]; k++) {
            double dist = fabs(v[k] - level);
            if ((!has_prev || dist <= fabs(v[k] - prev)) && (!has_next || dist <= fabs(v[k] - next)))
                own++;
        }
        total += d->counts[j];
    }
    return (double)own / (double)total;
}

/* Demotes runs of mixed points until every plateau owns most of its samples. */
static size_t demote_mixtures(detector *d, span *p, size_t count)
{
    while (count > 1) {
        size_t worst = count;
        double worst_fraction = GD_MIN_OWN_FRACTION;
        for (size_t i = 0; i < count; i++) {
            double f = own_fraction(d, p, count, i);
            if (f < worst_fraction) {
                worst_fraction = f;
                worst = i;
            }
        }
        if (worst == count)
            break;
        memmove(p + worst, p + worst + 1, (count - worst - 1) * sizeof *p);
        count = merge_close_spans(d, p, count - 1, median_of_point_medians);
    }
    return count;
}

/* Counts, for points first..last of plateau `self`, the samples that belong
 * to its neighbour `target`: within half the self-target gap of the target's
 * level, and nearer it than to self's other neighbour.  With levels in order
 * that is the band around target between the midpoints; an outlier (hundreds
 * of cycles above every level) counts for no plateau, and a curve that goes
 * up then down does not count one neighbour's samples for the other. */
static void count_toward(detector *d, const span *p, size_t count, size_t self, size_t target,
                         size_t first, size_t last)
{
    double level = p[target].level, half_gap = 0.5 * fabs(level - p[self].level);
    double lo = level - half_gap, hi = level + half_gap;
    size_t other = target > self ? self - 1 : self + 1; /* wraps to SIZE_MAX at 0 */
    if (other < count) {
        double mid = 0.5 * (p[other].level + level);
        if (p[other].level < level && mid > lo)
            lo = mid;
        if (p[other].level > level && mid < hi)
            hi = mid;
    }
    for (size_t j = first; j <= last; j++) {
        size_t k = 0;
        for (size_t s = 0; s < d->counts[j]; s++)
            k += d->samples[j][s] > lo && d->samples[j][s] < hi;
        d->toward[j] = k;
    }
}

/* The plateau's own rate towards the target level, and the excess a point
 * needs over it to be off the plateau.  Estimated on the plateau's clean core
 * (points first..last except `skip`): starting from the point with the lowest
 * rate, points are pooled in order of rate as long as each is not
 * significantly above the pooled rate so far (one-sided binomial test at alpha
 * against a Jeffreys estimate).  Mixed points still waiting to be peeled off
 * stay out of the baseline even when they are the majority -- an adaptive sweep
 * puts most of its points right at the knee. */
static void plateau_rate(detector *d, size_t first, size_t last, size_t skip, double *base,
                         double *margin)
{
    size_t points = 0;
    size_t *order = d->order;
    for (size_t j = first; j <= last; j++)
        if (j != skip || first == last)
            order[points++] = j;
    /* insertion sort by rate (plateaus have few points) */
    for (size_t a = 1; a < points; a++) {
        size_t v = order[a], b = a;
        double rv = (double)d->toward[v] / (double)d->counts[v];
        while (b > 0 && (double)d->toward[order[b - 1]] / (double)d->counts[order[b - 1]] > rv) {
            order[b] = order[b - 1];
            b--;
        }
        order[b] = v;
    }
    size_t hits = 0, total = 0, core = 0;
    for (size_t a = 0; a < points; a++) {
        size_t j = order[a];
        if (core) {
            double pooled = ((double)hits + 0.5) / ((double)total + 1);
            if (gd_binomial_upper_tail(d->toward[j], d->counts[j], pooled) < d->alpha)
                break; /* this point and every later one are above the core */
        }
        hits += d->toward[j];
        total += d->counts[j];
        d->pointwise[core++] = (double)d->toward[j] / (double)d->counts[j];
    }
    /* +0.5/+1 (Jeffreys-like): a plateau with no sample at the target level
     * still has a small nonzero rate, so one stray sample is not a knee. */
    *base = ((double)hits + 0.5) / ((double)total + 1);
    double core_median = gd_median_in_place(d->pointwise, core);
    double burst = GD_RATE_SPREAD_MULT * gd_robust_sd_in_place(d->pointwise, core, core_median);
    *margin = fmax(burst, hits ? d->min_excess : fmin(d->min_excess, GD_CLEAN_BASE_MULT * *base));
}

/* Whether point j reaches the target level significantly more often than its
 * plateau does (see the essay, step 3). */
static int point_is_off(const detector *d, size_t j, double base, double margin)
{
    double rate = (double)d->toward[j] / (double)d->counts[j];
    return rate - base >= margin &&
           gd_binomial_upper_tail(d->toward[j], d->counts[j], base) < d->alpha;
}

/* Peels off plateau i's end points (right end if right, else left) whose
 * samples already reach the neighbouring plateau's level. */
static void trim_end(detector *d, span *p, size_t count, size_t i, int right)
{
    count_toward(d, p, count, i, right ? i + 1 : i - 1, p[i].first, p[i].last);
    while (p[i].first < p[i].last) {
        size_t j = right ? p[i].last : p[i].first;
        double base, margin;
        plateau_rate(d, p[i].first, p[i].last, j, &base, &margin);
        if (!point_is_off(d, j, base, margin))
            break;
        if (right)
            p[i].last--;
        else
            p[i].first++;
    }
}

/* 1 - two-sided p of the level difference of two plateaus. */
static double separation(const detector *d, const gd_plateau *a, const gd_plateau *b)
{
    double na = (double)(a->last - a->first + 1), nb = (double)(b->last - b->first + 1);
    double se = d->noise_location * sqrt(1 / na + 1 / nb);
    return erf(fabs(a->level - b->level) / se / 1.4142135623730951);
}

/* Knee i: separation x (1 - p that `above` is not off by the margin that
 * declared it off) x (1 - p that `below` has min_excess more accesses at the
 * next level than its plateau: a miss rate that matters went unseen). */
static double knee_confidence(detector *d, const gd_plateau *plateaus, const span *spans,
                             size_t count, size_t i)
{
    const gd_plateau *a = &plateaus[i];
    size_t below = a->last, above = below + 1;
    count_toward(d, spans, count, i, i + 1, a->first, above);
    double base, margin;
    plateau_rate(d, a->first, a->last, below, &base, &margin);
    double above_off = 1 - gd_binomial_upper_tail(d->toward[above], d->counts[above],
                                               fmin(base + margin, 1));
    double below_on = 1 - gd_binomial_lower_tail(d->toward[below], d->counts[below],
                                              fmin(base + fmax(margin, d->min_excess), 1));
    return separation(d, a, &plateaus[i + 1]) * above_off * below_on;
}

static double plateau_confidence(detector *d, const gd_plateau *p, size_t count, size_t i,
                                 const span *spans)
{
    double sep = i > 0 ? separation(d, &p[i - 1], &p[i]) : 1;
    if (i + 1 < count)
        sep = fmin(sep, separation(d, &p[i], &p[i + 1]));
    size_t points = p[i].last - p[i].first + 1, flat = 0;
    double step = min_step_between(d, p[i].level, p[i].level);
    for (size_t j = p[i].first; j <= p[i].last; j++)
        flat += fabs(d->median[j] - p[i].level) <= step;
    double enough = points >= d->min_points ? 1 : (double)points / (double)d->min_points;
    return sep * own_fraction(d, spans, count, i) * ((double)flat / (double)points) * enough;
}

/* ---- entry point -------------------------------------------------------------- */

static int check_input(const double *x, const double *const *samples, const size_t *counts,
                       size_t n, size_t *total, gd_err *err)
{
    if (n == 0)
        return gd_fail(err, "plateau detection: the curve has no points");
    if (!x || !samples || !counts)
        return gd_fail(err, "plateau detection: x, samples or counts is NULL");
    *total = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]))
            return gd_fail(err, "plateau detection: x[%zu] is not a finite number", i);
        if (i > 0 && !(x[i] > x[i - 1]))
            return gd_fail(err, "plateau detection: x is not increasing at point %zu (%g after %g)",
                           i, x[i], x[i - 1]);
        if (counts[i] == 0 || !samples[i])
            return gd_fail(err, "plateau detection: point %zu (x=%g) has no samples", i, x[i]);
        for (size_t s = 0; s < counts[i]; s++)
            if (!isfinite(samples[i][s]))
                return gd_fail(err, "plateau detection: sample %zu of point %zu (x=%g) is not "
                               "a finite number", s, i, x[i]);
        if (counts[i] > SIZE_MAX / sizeof(double) - *total)
            return gd_fail(err, "plateau detection: too many samples");
        *total += counts[i];
    }
    return 0;
}

static void free_detector(detector *d)
{
    free(d->median);
    free(d->spread);
    free(d->pointwise);
    free(d->order);
    free(d->toward);
    free(d->pool);
    free(d->wsum);
    free(d->wysum);
}

int gd_detect_plateaus(const double *x, const double *const *samples, const size_t *counts,
                       size_t n, const gd_plateau_opts *opts, gd_segmentation *out, gd_err *err)
{
    static const gd_plateau_opts no_opts;
    size_t total = 0;
    span *spans = NULL;
    gd_plateau *plateaus = NULL;
    gd_knee *knees = NULL;
    if (!out)
        return gd_fail(err, "plateau detection: no output given");
    memset(out, 0, sizeof *out);
    if (check_input(x, samples, counts, n, &total, err) != 0)
        return -1;
    if (!opts)
        opts = &no_opts;
    detector d = {
        .samples = samples, .counts = counts, .n = n,
        .min_points = opts->min_points ? opts->min_points : GD_DEFAULT_MIN_POINTS,
        .min_step = opts->min_step > 0 ? opts->min_step : 0,
        .penalty = opts->penalty > 0 ? opts->penalty
                                     : GD_DEFAULT_PENALTY_LOG_MULT * log((double)(n > 1 ? n : 2)),
        .min_excess = opts->min_excess > 0 ? opts->min_excess : GD_DEFAULT_MIN_EXCESS,
        .alpha = opts->alpha > 0 ? opts->alpha : GD_DEFAULT_ALPHA,
    };
    double noise_floor = opts->noise_floor > 0 ? opts->noise_floor : GD_DEFAULT_NOISE_FLOOR;
    d.median = malloc(n * sizeof *d.median);
    d.spread = malloc(n * sizeof *d.spread);
    d.pointwise = malloc(n * sizeof *d.pointwise);
    d.order = malloc(n * sizeof *d.order);
    d.toward = malloc(n * sizeof *d.toward);
    d.pool = malloc(total * sizeof *d.pool);
    d.wsum = malloc((n + 1) * sizeof *d.wsum);
    d.wysum = malloc((n + 1) * sizeof *d.wysum);
    spans = malloc(n * sizeof *spans);
    if (!d.median || !d.spread || !d.pointwise || !d.order || !d.toward || !d.pool || !d.wsum ||
        !d.wysum || !spans)
        goto oom;

    point_statistics(&d);
    noise_scales(&d, noise_floor);
    size_t count = pelt_segments(&d, spans);
    if (count == 0)
        goto oom;
    count = merge_close_spans(&d, spans, count, weighted_mean_level);

    /* Long enough segments are plateau candidates; the rest are transitions. */
    size_t kept = 0;
    for (size_t i = 0; i < count; i++) {
        if (spans[i].last - spans[i].first + 1 < d.min_points)
            continue;
        spans[kept] = spans[i];
        spans[kept].level = median_of_point_medians(&d, spans[i].first, spans[i].last);
        kept++;
    }
    count = merge_close_spans(&d, spans, kept, median_of_point_medians);
    count = demote_mixtures(&d, spans, count);

    /* Knees: peel mixed points off both sides of each step, with the levels
     * as they were before any peeling. */
    for (size_t i = 0; i + 1 < count; i++) {
        trim_end(&d, spans, count, i, 1);
        trim_end(&d, spans, count, i + 1, 0);
    }

    if (count > 0) {
        plateaus = calloc(count, sizeof *plateaus);
        knees = count > 1 ? calloc(count - 1, sizeof *knees) : NULL;
        if (!plateaus || (count > 1 && !knees))
            goto oom;
    }
    for (size_t i = 0; i < count; i++) {
        gd_plateau *p = &plateaus[i];
        p->first = spans[i].first;
        p->last = spans[i].last;
        p->x_first = x[p->first];
        p->x_last = x[p->last];
        pooled_level(&d, p->first, p->last, &p->level, &p->spread);
        spans[i].level = p->level;
    }
    for (size_t i = 0; i < count; i++)
        plateaus[i].confidence = plateau_confidence(&d, plateaus, count, i, spans);
    for (size_t i = 0; i + 1 < count; i++) {
        gd_knee *k = &knees[i];
        k->below = plateaus[i].last;
        k->above = k->below + 1;
        k->x_below = x[k->below];
        k->x_above = x[k->above];
        k->confidence = knee_confidence(&d, plateaus, spans, count, i);
    }
    out->plateaus = plateaus;
    out->plateau_count = count;
    out->knees = knees;
    out->knee_count = count > 1 ? count - 1 : 0;
    out->noise_scale = d.noise_within;
    out->location_noise = d.noise_location;
    free(spans);
    free_detector(&d);
    return 0;

oom:
    free(plateaus);
    free(knees);
    free(spans);
    free_detector(&d);
    return gd_fail(err, "plateau detection: out of memory (%zu points, %zu samples)", n, total);
}

void gd_segmentation_free(gd_segmentation *seg)
{
    if (!seg)
        return;
    free(seg->plateaus);
    free(seg->knees);
    memset(seg, 0, sizeof *seg);
}
