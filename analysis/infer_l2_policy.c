/* infer_l2_policy.c -- the L2's replacement, and its capacity under random
 * replacement, from the L2-only (ld.cg) p-chase.
 *
 * A cyclic chain over an LRU or FIFO cache has no miss while it fits and
 * misses every access of a set once the set overflows, so the share of
 * accesses that miss jumps from 0 to 1 between the capacity C and C x (1 +
 * 1/ways): the knee is the capacity.  A randomly replacing L2 is different in
 * two ways.  Past C the chain keeps hitting on what survived (a third of the
 * accesses still hit at 1.5 C).  And below C the knee comes early: the L2 is
 * full of lines earlier kernels left (the previous sweep point's chain lies
 * elsewhere), and each of the chain's misses evicts a way at random, its own
 * lines included -- the chain reaches its steady state (no miss) only after
 * many laps, far more than the chase walks (a 5 MiB L2 was read as 1 MiB).
 *
 * So the verdict comes from the climb's width: the smallest footprint where
 * GD_L2_MISS_LOW of the accesses miss, and the smallest where GD_L2_MISS_HIGH
 * do.  Within GD_L2_LRU_SPAN of each other: "lru-or-fifo" (a cyclic chain
 * cannot tell them apart), the knee's size stands.  Wider: "random", and the
 * capacity is fitted to the miss shares instead (the field's approach to
 * non-LRU caches: miss rate against footprint, not where the mean climbs).
 * The model (gd_random_cache_miss_share) walks the chase as it runs -- a cache
 * full of foreign lines, every access of the first lap a miss, warm-up laps,
 * then timed laps (the counts the chase uses, kernels/probe_layout.h) -- in
 * the mean-field limit: a line survives each later miss with probability
 * 1 - line/C, so a line missed M lines' worth ago is still there with
 * probability exp(-M/C).  It depends on footprint/C only (not on the line
 * size), and it matched the simulator within 1% of the accesses on a 768 KiB,
 * 24-way, 128-byte-line L2; on a 16-way one it reads 1.5 points high where
 * few accesses miss (a set of few ways is no mean field), hence the fit
 * starts at a fifth of them missing.  Each footprint whose miss share lies in
 * [GD_L2_FIT_LOW, GD_L2_FIT_HIGH] gives one capacity (the share falls as C
 * grows: bisection); the size is their median, and its resolution the larger
 * of GD_L2_FIT_RESOLUTION of it and the spread of the estimates.
 *
 * Only footprints of at least GD_L2_FIT_MIN_RATIO times their own estimate
 * are used where there are any.  Below that the share depends on the ways:
 * a set of W ways walked by F/C x W lines, one warm-up lap, then a timed one
 * (a Monte Carlo of that set, 20 000 trials, which the simulator's L2 matched
 * within 0.3 points at 4, 6, 8 and 16 MiB on an 8 MiB 8-way L2) misses 16, 23,
 * 25 and 27 % of the timed accesses at F = C/2 for W = 4, 8, 16 and 32, where
 * the mean field says 28 %; from 1.5 C on every W gives the mean field's share
 * within about a point (73 % at 1.5 C, 84 at 2 C, 95 at 3 C; and with 2, 4 or 8
 * warm-up laps).  The points below 1.5 C had read 8 MiB 8-way L2s 5.7 %
 * high (generated seeds 1015, 1036), a 5 MiB 10-way one 4.5 %.
 *
 * Limits, said in inferred.json ("size_method"): it assumes the chase starts
 * on a cache full of other lines (true on the simulator, where every point's
 * chain has fresh addresses; a card's allocator that hands the same addresses
 * back leaves part of the chain warm and reads the capacity high), and
 * set-associativity is in the model only through its mean.
 */
#include "analysis/infer_l2_policy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/knee_extrapolate.h"
#include "analysis/stats.h"
#include "kernels/probe_layout.h"

#define GD_L2_MISS_LOW 0.1   /* the climb starts: a tenth of the accesses miss */
#define GD_L2_MISS_HIGH 0.9  /* ... and ends: nine in ten */
/* LRU/FIFO finish the climb by C x (1 + 1/ways); 1.5 allows ways >= 2 and the
 * adaptive sweep's bracket; random needs about 3x (0.1 at ~0.6 C, 0.9 at ~2 C). */
#define GD_L2_LRU_SPAN 1.5
#define GD_L2_FIT_LOW 0.2    /* miss shares a capacity is fitted to: past the low */
#define GD_L2_FIT_HIGH 0.95  /* shares where few ways make the mean field read high, short of all-miss */
#define GD_L2_FIT_RESOLUTION 0.03 /* a fitted capacity: within 3% (stated; 2.0% seen at 8 ways) */
#define GD_L2_FIT_MIN_RATIO 1.4   /* footprint / capacity where the ways stop mattering */
#define GD_L2_MODEL_BINS 256 /* the chain in this many pieces (mean-field) */
#define GD_L2_FIT_MAX_POINTS 256
/* a level between the hit and the miss: samples in the middle half of the gap */
#define GD_L2_MIDDLE_SHARE 0.1 /* ... at least this share of one point's samples */

double gd_random_cache_miss_share(double footprint_bytes, double capacity_bytes,
                                  unsigned warm_laps, double timed_laps)
{
    if (footprint_bytes <= 0 || capacity_bytes <= 0 || !(timed_laps > 0))
        return NAN;
    if (warm_laps == 0)
        warm_laps = 1;
    double q[GD_L2_MODEL_BINS];
    double piece = footprint_bytes / GD_L2_MODEL_BINS;
    for (int i = 0; i < GD_L2_MODEL_BINS; i++)
        q[i] = 1.0; /* the first lap: every line a miss (the cache holds other lines) */
    double missed = footprint_bytes; /* bytes missed over the last lap */
    double timed = 0;
    /* the timed accesses in pieces: a window of part of a lap (--timed N)
     * counts its pieces from the lap's start, the last one in part */
    double timed_bins = timed_laps * GD_L2_MODEL_BINS;
    unsigned laps = warm_laps + (unsigned)ceil(timed_laps);
    for (unsigned lap = 1; lap < laps; lap++) {
        for (int i = 0; i < GD_L2_MODEL_BINS; i++) {
            double qi = 1.0 - exp(-missed / capacity_bytes);
            missed += (qi - q[i]) * piece;
            q[i] = qi;
            if (lap >= warm_laps) {
                double left = timed_bins - ((double)(lap - warm_laps) * GD_L2_MODEL_BINS + i);
                if (left > 0)
                    timed += (left < 1 ? left : 1) * qi;
            }
        }
    }
    /* the first lap is warm-up whatever warm_laps says, so a timed lap 0 never exists */
    return timed / timed_bins;
}

void gd_chase_point_laps(const gd_point *p, int k, uint64_t stride, unsigned *warm_laps,
                         double *timed_laps)
{
    uint64_t elements = stride ? p->x / stride : 0;
    if (!elements || k < 0) {
        *warm_laps = 1;
        *timed_laps = 1;
        return;
    }
    *warm_laps = (unsigned)((GD_CHASE_MIN_WARM_ACCESSES + elements - 1) / elements);
    /* whole laps, or the first part of one (--timed N) */
    uint64_t count = p->series[k].summary.count;
    *timed_laps = count ? (double)count / (double)elements : 1;
}

double gd_random_cache_fit_capacity(double footprint, double share, unsigned warm,
                                    double timed)
{
    double lo = footprint / 64, hi = footprint * 64; /* share(lo) high, share(hi) low */
    if (gd_random_cache_miss_share(footprint, lo, warm, timed) < share ||
        gd_random_cache_miss_share(footprint, hi, warm, timed) > share)
        return 0;
    for (int it = 0; it < 60 && hi - lo > 1; it++) {
        double mid = sqrt(lo * hi);
        if (gd_random_cache_miss_share(footprint, mid, warm, timed) > share)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A level of its own between `hit` and `miss`: the point whose samples lie
 * most often in the middle half of the gap, if GD_L2_MIDDLE_SHARE of them do
 * and they sit together (their middle half within a quarter of the gap) --
 * a random mix of hits and misses puts its samples at either end, never
 * between.  Returns the middle samples' median, or NAN.  Seen on sim:a100
 * chased at its 32-byte sector: a line the far partition serves moves to the
 * near one whole, so one access in four costs the far latency and every
 * point's median stays on the near plateau. */
static double middle_level(const gd_curve *curve, double hit, double miss, gd_err *err, int *oom)
{
    double gap = miss - hit, lo = hit + gap / 4, hi = miss - gap / 4;
    double best_share = 0, level = NAN;
    *oom = 0;
    for (size_t i = 0; i < curve->count; i++) {
        const gd_point *p = &curve->points[i];
        int k = gd_point_series_index(p, "cycles");
        if (k < 0 || !p->series[k].samples || !p->series[k].summary.count)
            continue;
        const gd_point_series *s = &p->series[k];
        size_t n = s->summary.count, m = 0;
        for (size_t j = 0; j < n; j++)
            m += s->samples[j] > lo && s->samples[j] < hi;
        double share = (double)m / (double)n;
        if (share < GD_L2_MIDDLE_SHARE || share <= best_share)
            continue;
        double *mid = malloc(m * sizeof *mid);
        if (!mid) {
            *oom = gd_fail(err, "%s: out of memory", curve->label);
            return NAN;
        }
        size_t c = 0;
        for (size_t j = 0; j < n; j++)
            if (s->samples[j] > lo && s->samples[j] < hi)
                mid[c++] = s->samples[j];
        qsort(mid, c, sizeof *mid, cmp_double);
        double iqr = gd_quantile_sorted(mid, c, 0.75) - gd_quantile_sorted(mid, c, 0.25);
        if (iqr <= gap / 4) {
            best_share = share;
            level = gd_quantile_sorted(mid, c, 0.5);
        }
        free(mid);
    }
    return level;
}

/* With a middle level (the far partition seen on part of the accesses): the
 * L2's latency beyond its near half is that level (L2FAR, where no plateau
 * named it), and its capacity is where accesses start to reach the `miss`
 * level -- a bracket between two sweep points, a bound where it is wide (the
 * sweep bisected the near knee, not this one).  No random fit: the climb from
 * hit to miss is two steps, not a random cache's spread. */
static int infer_with_middle(gd_inference *inf, const gd_curve *curve, double far, double miss)
{
    gd_inferred_level *f = &inf->level[GD_INF_L2FAR];
    if (!f->has_latency) {
        f->present = 1;
        f->has_latency = 1;
        f->latency_cycles = far;
        f->latency_confidence = 0.6;
        snprintf(f->latency_from, sizeof f->latency_from, "%s", curve->label);
    }
    double threshold = (far + miss) / 2, below = 0, above = 0, floor_share = 1;
    for (size_t i = 0; i < curve->count; i++) {
        const gd_point *p = &curve->points[i];
        double s = gd_point_share_above(p, threshold, far, miss);
        if (!isfinite(s))
            continue;
        if (s < floor_share)
            floor_share = s;
        if (s - floor_share < GD_L2_MISS_LOW && !above)
            below = (double)p->x;
        else if (!above)
            above = (double)p->x;
    }
    gd_inferred_level *l = &inf->level[GD_INF_L2];
    if (!below)
        return 0;
    l->present = 1;
    l->has_size = 1;
    l->size_bytes = (uint64_t)below;
    l->knee_below = below;
    l->knee_above = above;
    l->size_resolution_bytes = 0;
    /* a bracket wider than a tenth says only "at least" */
    l->size_is_lower_bound = !above || above > below * 1.1;
    l->size_confidence = l->size_is_lower_bound ? 0.5 : 0.7;
    snprintf(l->size_method, sizeof l->size_method,
             "first %s miss past a far level on part of the accesses",
             gd_inferred_level_name(GD_INF_DRAM));
    snprintf(l->size_from, sizeof l->size_from, "%s", curve->label);
    l->has_replacement = 0; /* a sector-stride chase over two partitions: no verdict */
    return 0;
}

/* The L2 size a miss-rate fit over n footprints gave, as inferred.json says it. */
static void set_fitted_size(gd_inferred_level *l, double size, double resolution, double spread,
                            size_t n, const char *from)
{
    l->has_size = 1;
    l->size_is_lower_bound = 0;
    l->size_bytes = (uint64_t)(size + 0.5);
    l->size_resolution_bytes = (uint64_t)(resolution + 0.5);
    l->size_confidence = n >= 3 && spread <= size * GD_L2_FIT_RESOLUTION ? 0.8 : 0.5;
    l->knee_below = l->knee_above = 0;
    snprintf(l->size_method, sizeof l->size_method,
             "miss-rate fit over %zu footprints, random replacement assumed", n);
    snprintf(l->size_from, sizeof l->size_from, "%s", from);
}

int gd_infer_l2_policy(gd_inference *inf, const gd_curve *curve, const gd_segmentation *seg,
                       gd_err *err)
{
    if (seg->plateau_count < 2 || seg->knee_count < 1 || curve->count == 0)
        return 0;
    /* a far partition the chase's plateaus already named (gd_infer_pchase: a
     * plateau of its own between the near L2 and DRAM, the L2's size at its
     * end): the first two plateaus are near and far, not hit and miss, and
     * the size must stay the far half's end (generated seed 27: a far level
     * of 315 against DRAM's 380 was taken for the misses, and the L2 read as
     * its near half, 1.5 of 3 MiB) */
    if (inf->level[GD_INF_L2FAR].present && inf->level[GD_INF_L2FAR].has_latency)
        return 0;
    const gd_plateau *l2 = &seg->plateaus[0], *next = &seg->plateaus[1];
    double hit = l2->level, miss = next->level;
    if (!(miss > hit + 4 * (l2->spread + 1)))
        return 0; /* no clear second level to count misses against */
    double threshold = (hit + miss) / 2;
    /* the outlier floor: the share above the threshold where nothing misses */
    double floor_share = 1;
    for (size_t i = l2->first; i <= l2->last && i < curve->count; i++) {
        double s = gd_point_share_above(&curve->points[i], threshold, hit, miss);
        if (s < floor_share)
            floor_share = s;
    }
    if (!(floor_share < GD_L2_MISS_LOW))
        return 0;
    int oom = 0;
    double far = middle_level(curve, hit, miss, err, &oom);
    if (oom)
        return oom;
    if (isfinite(far))
        return infer_with_middle(inf, curve, far, miss);
    double x_low = 0, x_high = 0;
    double *estimates = malloc(GD_L2_FIT_MAX_POINTS * sizeof *estimates);
    double *footprints = malloc(GD_L2_FIT_MAX_POINTS * sizeof *footprints);
    if (!estimates || !footprints) {
        free(estimates);
        free(footprints);
        return gd_fail(err, "%s: out of memory", curve->label);
    }
    size_t n = 0;
    uint64_t stride = curve->opts.stride_bytes ? curve->opts.stride_bytes : GD_CHASE_DEFAULT_STRIDE;
    for (size_t i = 0; i < curve->count; i++) {
        const gd_point *p = &curve->points[i];
        double m = (gd_point_share_above(p, threshold, hit, miss) - floor_share) / (1 - floor_share);
        if (!isfinite(m))
            continue;
        if (!x_low && m >= GD_L2_MISS_LOW)
            x_low = (double)p->x;
        if (!x_high && m >= GD_L2_MISS_HIGH)
            x_high = (double)p->x;
        int k = gd_point_series_index(p, "cycles");
        uint64_t elements = p->x / stride;
        if (k < 0 || !elements || m < GD_L2_FIT_LOW || m > GD_L2_FIT_HIGH ||
            n == GD_L2_FIT_MAX_POINTS)
            continue;
        unsigned warm;
        double timed;
        gd_chase_point_laps(p, k, stride, &warm, &timed);
        double c = gd_random_cache_fit_capacity((double)(elements * stride), m, warm, timed);
        if (c > 0) {
            footprints[n] = (double)(elements * stride);
            estimates[n++] = c;
        }
    }
    /* the footprints past GD_L2_FIT_MIN_RATIO x their estimate, where there are any */
    size_t past = 0;
    for (size_t i = 0; i < n; i++)
        past += footprints[i] >= GD_L2_FIT_MIN_RATIO * estimates[i];
    if (past) {
        size_t kept = 0;
        for (size_t i = 0; i < n; i++)
            if (footprints[i] >= GD_L2_FIT_MIN_RATIO * estimates[i])
                estimates[kept++] = estimates[i];
        n = kept;
    }
    free(footprints);
    gd_inferred_level *l = &inf->level[GD_INF_L2];
    if (!x_low || !x_high) {
        free(estimates);
        return 0; /* the climb does not finish within the sweep: no verdict */
    }
    l->present = 1;
    l->has_replacement = 1;
    snprintf(l->replacement_from, sizeof l->replacement_from, "%s", curve->label);
    double span = x_high / x_low;
    if (span <= GD_L2_LRU_SPAN || n == 0) {
        l->replacement = GD_REPL_LRU;
        l->replacement_lru_or_fifo = 1;
        l->replacement_confidence = span <= GD_L2_LRU_SPAN ? 0.9 : 0.5;
        free(estimates);
        return 0;
    }
    l->replacement = GD_REPL_RANDOM;
    l->replacement_lru_or_fifo = 0;
    l->replacement_confidence = span >= 2 * GD_L2_LRU_SPAN ? 0.9 : 0.6;
    qsort(estimates, n, sizeof *estimates, cmp_double);
    double size = n % 2 ? estimates[n / 2] : (estimates[n / 2 - 1] + estimates[n / 2]) / 2;
    /* the estimates' spread (their middle half) or the stated floor, whichever is wider */
    double spread = n >= 4 ? (estimates[3 * n / 4] - estimates[n / 4]) / 2 : 0;
    double resolution = size * GD_L2_FIT_RESOLUTION;
    if (spread > resolution)
        resolution = spread;
    set_fitted_size(l, size, resolution, spread, n, curve->label);
    free(estimates);
    return 0;
}

/* The refit of gd_infer_l2_refit (header).  Generated seeds 1151 and 1197 (a
 * 1 MiB L2 of 128-byte lines, a 1.5 MiB one) had one footprint each in the
 * fit's range on pchase-cg's doubling grid -- at 2 C and at 2.7 C, where one
 * point of model error is 3 % of capacity -- and read 3.4 and 3.0 % low
 * against the 3 % stated; at 1.5, 2 and 2.5 C their medians are 1.2 and 1.6 %
 * low. */
int gd_infer_l2_refit(gd_inference *inf, const gd_curve *curve, gd_err *err)
{
    gd_inferred_level *l = &inf->level[GD_INF_L2];
    const gd_inferred_level *dram = &inf->level[GD_INF_DRAM];
    if (!l->has_replacement || l->replacement != GD_REPL_RANDOM || l->replacement_lru_or_fifo ||
        !l->has_latency || !dram->has_latency || !(dram->latency_cycles > l->latency_cycles) ||
        !curve->count)
        return 0;
    double hit = l->latency_cycles, miss = dram->latency_cycles, threshold = (hit + miss) / 2;
    /* Outliers (a timer interrupt, a refresh: hundreds of cycles on a hit or
     * a miss alike) land above the threshold and would count as misses: the
     * first fit takes them out with the hit plateau's floor, which this
     * curve has none of.  Here the samples beyond the DRAM level by half the
     * step give their rate o, and m = (share - o) / (1 - o) -- generated seed
     * 1198, a noisy 512 KiB L2 with 0.5-0.7 % of its samples so, read 3.1 %
     * small without it, 1.1 % with. */
    double cut = miss + (miss - hit) / 2;
    double *estimates = malloc(curve->count * sizeof *estimates);
    if (!estimates)
        return gd_fail(err, "%s: out of memory", curve->label);
    uint64_t stride = curve->opts.stride_bytes ? curve->opts.stride_bytes : GD_CHASE_DEFAULT_STRIDE;
    size_t n = 0;
    double sampling = 0; /* the estimates' sampling errors, summed */
    for (size_t i = 0; i < curve->count; i++) {
        const gd_point *p = &curve->points[i];
        double o = gd_point_share_above(p, cut, hit, miss);
        double m = o < 1 ? (gd_point_share_above(p, threshold, hit, miss) - o) / (1 - o) : NAN;
        int k = gd_point_series_index(p, "cycles");
        uint64_t elements = p->x / stride;
        if (k < 0 || !elements || !isfinite(m) || m < GD_L2_FIT_LOW || m > GD_L2_FIT_HIGH)
            continue;
        unsigned warm;
        double timed;
        gd_chase_point_laps(p, k, stride, &warm, &timed);
        double f = (double)(elements * stride);
        double c = gd_random_cache_fit_capacity(f, m, warm, timed);
        if (c > 0 && f >= GD_L2_FIT_MIN_RATIO * c) {
            /* the estimate's sampling error: the share's binomial SD over
             * the share's slope in the capacity there */
            double up = gd_random_cache_miss_share(f, c * 1.01, warm, timed);
            double down = gd_random_cache_miss_share(f, c * 0.99, warm, timed);
            double slope = (down - up) / (0.02 * c);
            double count = (double)p->series[k].summary.count;
            if (slope > 0 && count > 0)
                sampling += sqrt(m * (1 - m) / count) / slope;
            estimates[n++] = c;
        }
    }
    if (n < 2) {
        free(estimates);
        return 0; /* the first fit stands */
    }
    qsort(estimates, n, sizeof *estimates, cmp_double);
    double size = n % 2 ? estimates[n / 2] : (estimates[n / 2 - 1] + estimates[n / 2]) / 2;
    double spread = (estimates[n - 1] - estimates[0]) / 2;
    double resolution = size * GD_L2_FIT_RESOLUTION;
    if (spread > resolution)
        resolution = spread;
    /* ... and, on top of the model's own error (GD_L2_FIT_RESOLUTION: a set
     * of 8 ways reads up to 3 % small at these footprints, README), two
     * standard errors of the median of the estimates' sampling errors
     * (sqrt(pi/2) x their mean / sqrt(n)): about 1.5 % on a 512 KiB L2's
     * 6000-10000 samples a point, where seed 1198 read 2.85-3.06 % small
     * against 2.91 % stated without it; a few hundredths of a per cent on a
     * 40 MiB one */
    resolution += 2 * 1.2533 * (sampling / (double)n) / sqrt((double)n);
    free(estimates);
    set_fitted_size(l, size, resolution, spread, n, curve->label);
    return 0;
}
