/* infer_const.c -- the constant caches: capacities, lines, latencies, the L1's
 * replacement, broadcast, and the L1.5's shared storage.
 *
 * const_seq: a chain through a .const array climbs L1C -> L15C -> L2C.  The
 * plateaus are named in that order; a knee is a capacity only when the chain's
 * stride is no larger than the level's line (a larger stride leaves sets
 * unused, so the knee comes early).  A sweep whose last plateau is still the
 * L1.5's saw no L1.5 capacity within one constant bank: the size is then a
 * lower bound (V100: >= 64 KiB).
 *
 * Replacement of the L1 constant cache: past twice its capacity a cyclic chain
 * finds nothing left in an LRU or FIFO cache (every line is evicted before the
 * lap comes back), while random replacement keeps a share of the lines.  The
 * fraction of accesses still at the L1 level on those points decides: above
 * RANDOM_HIT_FRACTION the policy is random (not LRU: what Jia et al. report for
 * every GPU they examined), below it LRU or FIFO (cyclic chains cannot tell them
 * apart).
 *
 * const_stride: below a level's line, consecutive accesses share the line the
 * last miss brought in; from the line on, each access misses.  So the 5th
 * percentile of the samples steps from one level's latency to the next at each
 * overflowed level's line: the steps are the lines, nearest level first.
 *
 * const_icache_share: instructions that evict a constant victim from the L1.5
 * say the two share storage -- and reach past one bank where the scans cannot:
 * the evicted victim's accesses are L2 hits (the L2 constant latency), and a
 * victim in 64-byte steps misses once per L1.5 line (its line).
 */
#include "analysis/infer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/infer_l2_policy.h"
#include "analysis/knee_extrapolate.h"
#include "analysis/run_load.h"

#define RANDOM_HIT_FRACTION 0.02   /* L1-level accesses past 2x capacity: not LRU/FIFO */
/* p05 levels closer than this fraction, or than LEVEL_GAP_CYCLES, are one level
 * (0.25 merged an L1C at 32 cycles with an L1.5 at 40, and an L1.5 at 98 with
 * the L2 at 119: generated seeds 1000, 2015; the noise moves a p05 by 1-2) */
#define LEVEL_GAP 0.1
#define LEVEL_GAP_CYCLES 4.0
#define MISS_LEVEL_SHARE 0.05 /* a median this close to the slowest is the miss level */
#define MEAN_TOP_SHARE 0.1    /* a mean this close to the largest (of the rise above the L1.5) */
#define SHARED_MISS 0.5            /* victim miss rate that means "evicted by code" */
#define SEPARATE_MISS 0.1          /* ... that means "untouched" */
#define EVICTED_MISS 0.9           /* ... that means (nearly) every victim access left the L1.5 */
#define MOSTLY_MISSED 0.6          /* ... or, where none did, most of them (every pass over half) */
#define LINE_MAX_RATE 0.75         /* variant line: a rate above this is one miss per access */

/* Fraction of a point's samples at or below `threshold`, from the samples if
 * the curve has them, else from its summary (p05 only says "5% or more"). */
static double fraction_below(const gd_point *p, double threshold, size_t *count)
{
    int k = gd_point_series_index(p, "cycles");
    if (k < 0)
        return NAN;
    const gd_point_series *s = &p->series[k];
    *count = s->summary.count;
    if (!s->samples)
        return s->summary.p05 <= threshold ? 0.05 : 0.0;
    size_t below = 0;
    for (size_t i = 0; i < s->summary.count; i++)
        below += s->samples[i] <= threshold;
    return s->summary.count ? (double)below / (double)s->summary.count : NAN;
}

static void infer_l1c_replacement(gd_inferred_level *l1, const gd_curve *c, double l1_lat,
                                  double l15_lat)
{
    double threshold = (l1_lat + l15_lat) / 2;
    double hits = 0, total = 0;
    for (size_t i = 0; i < c->count; i++) {
        if ((double)c->points[i].x < 2.0 * (double)l1->size_bytes)
            continue;
        size_t n = 0;
        double f = fraction_below(&c->points[i], threshold, &n);
        if (isnan(f) || !n)
            continue;
        hits += f * (double)n;
        total += (double)n;
    }
    if (total < 100)
        return; /* the sweep did not go far enough past the capacity */
    double f = hits / total;
    l1->has_replacement = 1;
    l1->replacement = f > RANDOM_HIT_FRACTION ? GD_REPL_RANDOM : GD_REPL_LRU;
    l1->replacement_lru_or_fifo = f <= RANDOM_HIT_FRACTION;
    /* how far from the threshold, in binomial standard errors */
    double se = sqrt(RANDOM_HIT_FRACTION * (1 - RANDOM_HIT_FRACTION) / total);
    double z = fabs(f - RANDOM_HIT_FRACTION) / se;
    l1->replacement_confidence = z >= 5 ? 1.0 : z / 5;
    snprintf(l1->replacement_from, sizeof l1->replacement_from, "%s", c->label);
}

/* A randomly replacing L1.5 scanned at its line to the 64 KiB bank: its
 * median never leaves it (at 1.33 capacities a random 48 KiB L1.5 still hits
 * over half the chain: generated seeds 1040, 1087, ...), so the scan has no
 * knee -- and a bound there would be false.  Where the last points miss
 * RANDOM_FIT_LOW or more of their accesses past the level (LRU and FIFO miss
 * all or none of a cyclic chain once its sets overflow), the capacity is
 * fitted to those shares as a random L2's is (infer_l2_policy.c: the
 * mean-field model of the chase's laps), within RANDOM_FIT_RESOLUTION, and
 * the missed accesses' median is the L2's constant latency.  Returns 1 where
 * it sized `l`. */
#define RANDOM_FIT_LOW 0.2
#define RANDOM_FIT_HIGH 0.95
#define RANDOM_FIT_RESOLUTION 0.05
static int random_l15_fit(gd_inference *inf, gd_inferred_level *l, const gd_curve *curve,
                          const gd_plateau *p)
{
    /* (a few cycles past the level: the L2's constant latency can stand 5
     * cycles above the L1.5's -- generated seed 1040, 116 and 125) */
    double threshold = p->level + LEVEL_GAP_CYCLES;
    uint64_t stride = curve->opts.stride_bytes;
    double est[64], miss_median = NAN, best_share = 0;
    size_t n = 0;
    for (size_t i = 0; i < curve->count && n < 64 && stride; i++) {
        const gd_point *pt = &curve->points[i];
        int k = gd_point_series_index(pt, "cycles");
        if (k < 0 || !pt->series[k].samples)
            continue;
        double m = gd_point_share_above(pt, threshold, p->level, 2 * p->level);
        if (!(m >= RANDOM_FIT_LOW) || m > RANDOM_FIT_HIGH)
            continue;
        uint64_t elements = pt->x / stride, count = pt->series[k].summary.count;
        if (!elements)
            continue;
        unsigned warm;
        double timed;
        gd_chase_point_laps(pt, k, stride, &warm, &timed);
        double c = gd_random_cache_fit_capacity((double)(elements * stride), m, warm, timed);
        if (c > 0)
            est[n++] = c;
        if (m > best_share) {
            /* the missed accesses of the point that missed most */
            double *v = malloc(count * sizeof *v);
            size_t nv = 0;
            for (size_t j = 0; v && j < count; j++)
                if (pt->series[k].samples[j] > threshold)
                    v[nv++] = pt->series[k].samples[j];
            if (nv) {
                miss_median = gd_median(v, nv);
                best_share = m;
            }
            free(v);
        }
    }
    if (!n)
        return 0;
    double size = gd_median(est, n);
    l->present = 1;
    l->has_size = 1;
    l->size_is_lower_bound = 0;
    l->size_bytes = (uint64_t)size;
    l->size_resolution_bytes = (uint64_t)ceil(RANDOM_FIT_RESOLUTION * size);
    l->size_confidence = 0.5 * p->confidence;
    snprintf(l->size_method, sizeof l->size_method, "random replacement: miss share fitted");
    snprintf(l->size_from, sizeof l->size_from, "%s", curve->label);
    l->has_replacement = 1;
    l->replacement = GD_REPL_RANDOM;
    l->replacement_lru_or_fifo = 0;
    l->replacement_confidence = 0.5;
    snprintf(l->replacement_from, sizeof l->replacement_from, "%s", curve->label);
    gd_inferred_level *l2 = &inf->level[GD_INF_L2C];
    if (!l2->has_latency && isfinite(miss_median)) {
        l2->present = 1;
        l2->has_latency = 1;
        l2->latency_cycles = miss_median;
        l2->latency_confidence = best_share;
        snprintf(l2->latency_from, sizeof l2->latency_from, "%s", curve->label);
    }
    return 1;
}

int gd_infer_const_seq(gd_inference *inf, const gd_curve *curve, const gd_segmentation *seg,
                       gd_err *err)
{
    size_t np = seg->plateau_count;
    if (np == 0)
        return gd_fail(err, "%s: no plateau found", curve->label);
    static const gd_inferred_name order[] = {GD_INF_L1C, GD_INF_L15C, GD_INF_L2C};
    uint64_t stride = curve->opts.stride_bytes;
    /* a sweep that starts past the L1C (its first plateau is at the L1.5's
     * known latency) names its plateaus from the L15C on */
    size_t first = 0;
    const gd_inferred_level *l1 = &inf->level[GD_INF_L1C], *l15 = &inf->level[GD_INF_L15C];
    if (l1->has_latency && l15->has_latency &&
        fabs(seg->plateaus[0].level - l15->latency_cycles) <
            fabs(seg->plateaus[0].level - l1->latency_cycles))
        first = 1;
    /* a plateau far above a level an earlier scan measured is a deeper level:
     * a 16 KiB L1.5 behind a randomly replacing 8 KiB L1C holds one point of
     * the 256-byte scan, no plateau, and the L2's plateau was named L1.5 (its
     * latency overwritten with the L2's: seed 2004) */
    size_t skip = 0;
    for (size_t i = 0; i < np && first + skip + i < 3; i++) {
        while (first + skip + i < 2) {
            const gd_inferred_level *k = &inf->level[order[first + skip + i]];
            double v = seg->plateaus[i].level;
            if (!k->has_latency || v <= k->latency_cycles * (1 + LEVEL_GAP) ||
                v <= k->latency_cycles + LEVEL_GAP_CYCLES)
                break;
            skip++;
        }
        size_t at = first + skip + i;
        gd_inferred_level *l = &inf->level[order[at]];
        /* a level seen by several scans keeps its longest, surest plateau */
        if (!l->has_latency || seg->plateaus[i].confidence > l->latency_confidence)
            gd_inferred_set_latency(l, &seg->plateaus[i], curve->label);
        if (at == 2)
            continue; /* the L2's capacity is not a constant-cache figure */
        int line_ok = !l->has_sector || stride <= l->sector_bytes;
        /* the L1.5's capacity from the scan at its own line only, once that is
         * known: a finer scan misses once per line, its median moves late (a
         * 16 KiB L1.5 of 128-byte lines read 18 KiB from the L1C's 64-byte
         * scan, which runs first: generated seed 1059) */
        if (order[at] == GD_INF_L15C && l->has_sector && stride != l->sector_bytes)
            line_ok = 0;
        if (i < seg->knee_count) {
            if (line_ok && (!l->has_size || l->size_is_lower_bound))
                gd_inferred_set_size(l, &seg->knees[i], curve->label);
        } else if (order[at] == GD_INF_L15C && line_ok && l->has_sector &&
                   stride == l->sector_bytes && (!l->has_size || l->size_is_lower_bound) &&
                   random_l15_fit(inf, l, curve, &seg->plateaus[i])) {
            /* (sized by the fit) */
        } else if (line_ok && !l->has_size && (!l->has_sector || stride >= l->sector_bytes)) {
            /* still on this level at the largest footprint -- a bound only
             * where every access would miss past it: a scan in steps smaller
             * than the level's line misses once per line, and its median stays
             * on the level (a 16 KiB L1.5 of 256-byte lines read ">= 32 KiB"
             * from the 64-byte scan: seed 2004) */
            l->present = 1;
            l->has_size = 1;
            l->size_is_lower_bound = 1;
            l->size_bytes = (uint64_t)seg->plateaus[i].x_last;
            l->size_confidence = seg->plateaus[i].confidence;
            snprintf(l->size_from, sizeof l->size_from, "%s", curve->label);
        }
    }
    if (first == 0 && np >= 2 && seg->knee_count >= 1 && inf->level[GD_INF_L1C].has_size &&
        !inf->level[GD_INF_L1C].has_replacement)
        infer_l1c_replacement(&inf->level[GD_INF_L1C], curve, seg->plateaus[0].level,
                              seg->plateaus[1].level);
    return 0;
}

int gd_infer_const_stride(gd_inference *inf, const gd_curve *curve, gd_err *err)
{
    /* the p05 of each point, in stride order; levels are where it settles */
    double levels[8];
    size_t nl = 0;
    uint64_t starts[8];
    for (size_t i = 0; i < curve->count; i++) {
        const gd_summary *s = gd_point_summary(&curve->points[i], "cycles");
        if (!s || !s->count)
            continue;
        double v = s->p05;
        if (nl == 0 ||
            (v > levels[nl - 1] * (1 + LEVEL_GAP) && v > levels[nl - 1] + LEVEL_GAP_CYCLES)) {
            if (nl == 8)
                break;
            levels[nl] = v;
            starts[nl++] = curve->points[i].x;
        } else if (v > levels[nl - 1]) {
            levels[nl - 1] = v; /* the same level, settling */
        }
    }
    if (nl == 0)
        return gd_fail(err, "%s: no samples in the stride sweep", curve->label);
    /* A randomly replacing L1.5 keeps hits at every stride of the 64 KiB scan
     * (a 32 KiB one walked by 512 lines of 128 bytes still hits a fifth of
     * them: generated seed 1002 with --set L15C.replacement=random), so no
     * point's fastest twentieth leaves it and the scan showed one step, the
     * L1C's.  Then the L1.5's line is the first stride past the L1C's whose
     * median reaches the miss level (the slowest median, within
     * MISS_LEVEL_SHARE): every access a line of its own, most of them missing
     * -- where an LRU L1.5 has a step of its own above, it is the same stride. */
    if (nl == 2) {
        double top = 0;
        for (size_t i = 0; i < curve->count; i++) {
            const gd_summary *s = gd_point_summary(&curve->points[i], "cycles");
            if (s && s->count && s->median > top)
                top = s->median;
        }
        for (size_t i = 0; i < curve->count && top > levels[1] * (1 + LEVEL_GAP); i++) {
            const gd_summary *s = gd_point_summary(&curve->points[i], "cycles");
            if (!s || !s->count || curve->points[i].x <= starts[1])
                continue;
            if (s->median >= top * (1 - MISS_LEVEL_SHARE)) {
                levels[nl] = s->median;
                starts[nl++] = curve->points[i].x;
                break;
            }
        }
    }
    /* ... and where no median does either (a random 48 KiB L1.5: the 64 KiB
     * scan is 1.33 of its capacities, where it still hits over half the
     * chain -- generated seeds 1040, 1087, 1091, ... had no L1.5 line, so no
     * scan of it), the first stride past the L1C's whose mean comes within
     * MEAN_TOP_SHARE of the scan's largest mean above the L1.5's level: at its
     * line every access is a line of its own, and past it the chain has fewer
     * lines than the L1.5 */
    if (nl == 2) {
        double top = 0;
        for (size_t i = 0; i < curve->count; i++) {
            const gd_summary *s = gd_point_summary(&curve->points[i], "cycles");
            if (s && s->count && curve->points[i].x > starts[1] && s->mean > top)
                top = s->mean;
        }
        double rise = top - levels[1];
        for (size_t i = 0; i < curve->count && rise >= LEVEL_GAP_CYCLES; i++) {
            const gd_summary *s = gd_point_summary(&curve->points[i], "cycles");
            if (!s || !s->count || curve->points[i].x <= starts[1])
                continue;
            if (s->mean >= top - MEAN_TOP_SHARE * rise) {
                levels[nl] = s->mean;
                starts[nl++] = curve->points[i].x;
                break;
            }
        }
    }
    static const gd_inferred_name order[] = {GD_INF_L1C, GD_INF_L15C};
    for (size_t k = 1; k < nl && k - 1 < 2; k++) {
        gd_inferred_level *l = &inf->level[order[k - 1]];
        l->present = 1;
        l->has_sector = 1;
        l->sector_bytes = starts[k];
        /* a step seen between measured strides is pinned; one at the first
         * stride only bounds the line */
        l->sector_confidence = starts[k] > curve->points[0].x ? 1.0 : 0.5;
        snprintf(l->sector_from, sizeof l->sector_from, "%s", curve->label);
    }
    return 0;
}

int gd_infer_const_bcast(gd_inference *inf, const gd_curve *curve, gd_err *err)
{
    /* least squares of the median latency on k */
    double sx = 0, sy = 0, sxx = 0, sxy = 0, n = 0, y1 = NAN, ymax = NAN;
    for (size_t i = 0; i < curve->count; i++) {
        const gd_summary *s = gd_point_summary(&curve->points[i], "cycles");
        if (!s || !s->count)
            continue;
        double x = (double)curve->points[i].x, y = s->median;
        if (curve->points[i].x == 1)
            y1 = y;
        if (isnan(ymax) || x >= 32)
            ymax = y;
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
        n++;
    }
    if (n < 3 || isnan(y1))
        return gd_fail(err, "%s: the broadcast sweep needs k = 1 and at least 3 points",
                       curve->label);
    double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    double intercept = (sy - slope * sx) / n;
    /* residual of the fit: how linear (serialized) the growth is */
    double ss = 0, st = 0, mean = sy / n;
    for (size_t i = 0; i < curve->count; i++) {
        const gd_summary *s = gd_point_summary(&curve->points[i], "cycles");
        if (!s || !s->count)
            continue;
        double f = intercept + slope * (double)curve->points[i].x;
        ss += (s->median - f) * (s->median - f);
        st += (s->median - mean) * (s->median - mean);
    }
    double r2 = st > 0 ? 1 - ss / st : 1;
    gd_inferred_level *l = &inf->level[GD_INF_L1C];
    l->present = 1;
    l->has_broadcast = 1;
    /* uniform is a broadcast when one address costs (much) less than 32 */
    l->broadcast = ymax > 1.5 * y1;
    l->per_address_cycles = slope;
    l->broadcast_confidence = l->broadcast ? (r2 > 0 ? r2 : 0) : 0.5;
    snprintf(l->broadcast_from, sizeof l->broadcast_from, "%s", curve->label);
    return 0;
}

/* Where the code evicted every victim line from the L1.5, each victim access
 * is served by the L2: its latency there, measured against the same walk's
 * reference (L1.5 hits) so that the probe's own per-access overhead cancels
 * when const_seq measured the L1.5 latency.  Only where no const_seq scan
 * reached the L2 itself (an L1.5 larger than one 64 KiB bank: V100). */
static void share_l2_latency(gd_inference *inf, const gd_curve *curve)
{
    gd_inferred_level *l2 = &inf->level[GD_INF_L2C];
    const gd_inferred_level *l15 = &inf->level[GD_INF_L15C];
    if (l2->has_latency)
        return;
    double victim = 0, reference = 0;
    size_t n = 0;
    /* points whose victim the code evicted; where none did (a randomly
     * replacing L1I/L1.5 keeps a fifth of the victim at twice its size:
     * generated seed 1011), those where most victim accesses missed -- the
     * victim's median access is then an L2 access all the same */
    const double thresholds[] = {EVICTED_MISS, MOSTLY_MISSED};
    for (size_t t = 0; t < 2 && !n; t++)
        for (size_t i = 0; i < curve->count; i++) {
            const gd_summary *m = gd_point_summary(&curve->points[i], "miss_rate");
            const gd_summary *v = gd_point_summary(&curve->points[i], "victim_cycles");
            const gd_summary *r = gd_point_summary(&curve->points[i], "reference_cycles");
            if (!m || !v || !r || !m->count || m->mean < thresholds[t] ||
                (t && m->min <= 0.5))
                continue;
            victim += v->median;
            reference += r->median;
            n++;
        }
    if (!n)
        return;
    victim /= (double)n;
    reference /= (double)n;
    l2->present = 1;
    l2->has_latency = 1;
    l2->latency_cycles = l15->has_latency ? l15->latency_cycles + (victim - reference) : victim;
    l2->latency_confidence = n >= 2 ? 1.0 : 0.5;
    snprintf(l2->latency_from, sizeof l2->latency_from, "%s", curve->label);
}

/* Variant line: with the victim fully evicted, one access per L1.5 line goes
 * to the L2 -- the miss rate is the stride over the line.  The line is that
 * ratio snapped to a power of two (the L1 constant cache may hold a few whole
 * L1.5 lines, which lowers the rate a little: see kernels/const_icache_share.c);
 * a rate near 1 says only that the line is no longer than the stride. */
static int share_line(gd_inference *inf, const gd_curve *curve, double top)
{
    gd_inferred_level *l = &inf->level[GD_INF_L15C];
    if (!l->has_shared_with || l->shared_with != GD_INF_L1I || l->has_sector)
        return 0; /* code cannot evict the victim, or the line is known */
    if (!(top > 0) || top > LINE_MAX_RATE)
        return 0;
    double stride = (double)curve->opts.stride_bytes;
    double raw = stride / top;
    double snapped = exp2(round(log2(raw)));
    l->present = 1;
    l->has_sector = 1;
    l->sector_bytes = (uint64_t)snapped;
    l->sector_confidence = fmax(0.0, 1.0 - 2.0 * fabs(log2(raw / snapped)));
    snprintf(l->sector_from, sizeof l->sector_from, "%s", curve->label);
    return 0;
}

int gd_infer_const_share(gd_inference *inf, const gd_curve *curve, gd_err *err)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < curve->count; i++) {
        const gd_summary *s = gd_point_summary(&curve->points[i], "miss_rate");
        if (!s || !s->count)
            continue;
        if (s->mean < lo)
            lo = s->mean;
        if (s->mean > hi)
            hi = s->mean;
    }
    if (!isfinite(lo))
        return gd_fail(err, "%s: no miss rate measured", curve->label);
    if (!strcmp(curve->opts.variant, "line"))
        return share_line(inf, curve, hi);
    gd_inferred_level *l = &inf->level[GD_INF_L15C];
    l->present = 1;
    if (lo <= SEPARATE_MISS && hi >= SHARED_MISS) {
        l->has_shared_with = 1;
        l->shared_with = GD_INF_L1I;
        l->shared_confidence = hi - lo;
        share_l2_latency(inf, curve);
    } else if (hi <= SEPARATE_MISS) {
        l->has_shared_with = 1;
        l->shared_with = -1;
        l->shared_confidence = 1 - hi / SEPARATE_MISS;
    } else {
        return 0; /* neither: not decided */
    }
    snprintf(l->shared_from, sizeof l->shared_from, "%s", curve->label);
    return 0;
}

/* const_av: a miss rate this far above where it started, at least this high,
 * is an attacker evicting the victim.  A victim at 64-byte steps misses once
 * per L1.5 line at most: 1/2 of its accesses for 128-byte lines, 1/4 for 256. */
#define AV_EVICTED_MISS 0.15

/* the first point's and the largest mean of `series` over the curve */
static int av_rates(const gd_curve *curve, const char *series, double *first, double *top)
{
    *first = NAN;
    *top = -INFINITY;
    for (size_t i = 0; i < curve->count; i++) {
        const gd_summary *s = gd_point_summary(&curve->points[i], series);
        if (!s || !s->count)
            continue;
        if (isnan(*first))
            *first = s->mean;
        if (s->mean > *top)
            *top = s->mean;
    }
    return !isnan(*first);
}

static double av_one(const gd_point *pt, const char *series)
{
    const gd_summary *s = gd_point_summary(pt, series);
    return s && s->count ? s->mean : NAN;
}

int gd_infer_const_av(gd_inference *inf, const gd_curve *curve, gd_err *err)
{
    gd_inferred_level *l = &inf->level[GD_INF_L15C];
    /* every point with its three roles where they were meant to be, and every
     * hand-over answered; a GPU that put the "other" CTA on the victim's SM
     * gives no verdict from that point */
    size_t placed = 0;
    for (size_t i = 0; i < curve->count; i++) {
        const gd_point *pt = &curve->points[i];
        double v = av_one(pt, "victim_sm"), o = av_one(pt, "attacker_sm"),
               s = av_one(pt, "same_sm_attacker_sm"), ov = av_one(pt, "overlap");
        if (ov != 1.0)
            return gd_fail(err, "%s: at %llu bytes an attacker did not answer the victim's "
                                "hand-over",
                           curve->label, (unsigned long long)pt->x);
        placed += v != o && v == s;
    }
    if (placed != curve->count) {
        snprintf(l->scope_unseen, sizeof l->scope_unseen,
                 "%s: the other-SM attacker ran on the victim's SM at %zu of %zu points",
                 curve->label, curve->count - placed, curve->count);
        return 0;
    }
    double same_lo, same_hi, other_lo, other_hi;
    if (!av_rates(curve, "miss_rate_same_sm", &same_lo, &same_hi) ||
        !av_rates(curve, "miss_rate", &other_lo, &other_hi))
        return gd_fail(err, "%s: no miss rate measured", curve->label);
    int same = same_hi >= AV_EVICTED_MISS && same_hi - same_lo >= AV_EVICTED_MISS;
    int other = other_hi >= AV_EVICTED_MISS && other_hi - other_lo >= AV_EVICTED_MISS;
    l->present = 1;
    if (!same) {
        /* the control: an attacker on its own SM never evicted the victim -- an
         * L1.5 the bank cannot outgrow, or one per sub-partition */
        snprintf(l->scope_unseen, sizeof l->scope_unseen,
                 "%s: the same-SM attacker never evicted the victim (miss rate %.2f at most): "
                 "the L1.5 outgrows what one constant bank leaves it, or is not shared by an "
                 "SM's warps",
                 curve->label, same_hi);
        return 0;
    }
    l->has_scope = 1;
    l->scope = other ? GD_SCOPE_CHIP : GD_SCOPE_SM;
    l->scope_unseen[0] = 0;
    /* how clearly the other-SM rate sits on its side of the line, against the
     * control's rise */
    double rise = same_hi - same_lo, o = other_hi - other_lo;
    l->scope_confidence = other ? fmin(1.0, o / rise) : fmax(0.0, 1.0 - fmax(o, 0.0) / rise);
    snprintf(l->scope_from, sizeof l->scope_from, "%s", curve->label);
    return 0;
}
