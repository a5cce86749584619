/* knee_extrapolate.c -- where the misses begin, not where they become visible.
 *
 * The plateau detector takes a point off its plateau once a significant share
 * of its accesses (2% beyond the plateau's own outliers, when there are any)
 * sees the next level.  A cyclic chain just past an LRU cache's capacity C
 * misses every access of the one set that overflowed, which is enough; just
 * past a randomly replacing cache, or under a card's timer noise, it misses
 * once or twice a lap -- a share that hides in the outliers for a few lines,
 * so the knee lands those few lines late (a 128 KiB random L1D read as 129 KiB,
 * and then every step sized from it off).
 *
 * Past C the misses grow in proportion to the lines over it, under every
 * policy: each line beyond C overflows one more set (LRU, FIFO: that set's
 * every access misses) or adds its share of random evictions.  So the share of
 * misses per point, less the plateau's outlier share, is fitted by a line over
 * the knee's `below` point and the next ones while the share is small (the
 * proportional part: GD_EXTRAPOLATE_MAX_SHARE), and the line's zero is where
 * the misses begin (the earliest of the lines through the first 2, 3 and 4
 * points: an LRU or FIFO cache's misses climb a set, a whole line, at a time,
 * and a line through the staircase's later corners crosses late).  Only a knee whose `below` point already has significant
 * misses (beyond 3 binomial SDs of the outliers) is moved, and only back to
 * the last point before it that has none, on the chain's element grain: an
 * exact knee stands, a late one moves back.
 */
#include "analysis/knee_extrapolate.h"

#include <math.h>

#include "analysis/stats.h"

#define GD_EXTRAPOLATE_MAX_SHARE 0.3 /* misses still in proportion to the lines over C */
#define GD_EXTRAPOLATE_MAX_POINTS 4  /* points past the last clean one, at most, in a fit */
/* misses beyond the outliers' share: significant past this many binomial SDs */
#define GD_EXTRAPOLATE_SIGNIFICANCE 3.0
/* ... and a hint of them past this many: the last clean point may hold some */
#define GD_EXTRAPOLATE_HINT 1.0

double gd_point_share_above(const gd_point *p, double threshold, double hit, double miss)
{
    int k = gd_point_series_index(p, "cycles");
    if (k < 0)
        return NAN;
    const gd_point_series *s = &p->series[k];
    if (s->samples && s->summary.count) {
        size_t above = 0;
        for (size_t i = 0; i < s->summary.count; i++)
            above += s->samples[i] > threshold;
        return (double)above / (double)s->summary.count;
    }
    return (s->summary.mean - hit) / (miss - hit);
}

int gd_knee_extrapolate(const gd_curve *curve, const gd_segmentation *seg, size_t knee,
                        double *capacity_bytes, double *resolution_bytes)
{
    if (knee >= seg->knee_count || knee + 1 >= seg->plateau_count)
        return 0;
    const gd_plateau *on = &seg->plateaus[knee], *next = &seg->plateaus[knee + 1];
    const gd_knee *k = &seg->knees[knee];
    double hit = on->level, miss = next->level;
    if (!(miss > hit) || k->below == 0 || k->below >= curve->count)
        return 0;
    double threshold = (hit + miss) / 2;
    /* the plateau's own share above the threshold (outliers): its median point */
    double shares[64];
    size_t ns = 0;
    for (size_t i = on->first; i <= on->last && i < k->below && ns < 64; i++) {
        double s = gd_point_share_above(&curve->points[i], threshold, hit, miss);
        if (isfinite(s))
            shares[ns++] = s;
    }
    double outliers = ns ? gd_median(shares, ns) : 0;
    if (!isfinite(outliers))
        outliers = 0;
    /* the last point back from `below` whose misses are within the outliers'
     * own scatter is clean; if `below` itself is, the knee stands */
    size_t clean = k->below;
    while (clean > on->first) {
        const gd_point *p = &curve->points[clean];
        double s = gd_point_share_above(p, threshold, hit, miss);
        int c = gd_point_series_index(p, "cycles");
        double count = c >= 0 ? (double)p->series[c].summary.count : 0;
        if (!isfinite(s) || count <= 0)
            return 0;
        double excess = (s - outliers) * count;
        if (excess <= GD_EXTRAPOLATE_SIGNIFICANCE * sqrt(outliers * count + 1))
            break;
        clean--;
    }
    if (clean == k->below)
        return 0;
    /* least squares over (x, excess share) of the first 2, 3, ... points past
     * it; the earliest zero wins (the misses climb by whole lines -- a set
     * overflows at once -- so the line through later points crosses late on
     * an LRU or FIFO cache; a random one scatters around its line instead).
     * The same running sums go on over every point still in proportion
     * (GD_EXTRAPOLATE_MAX_SHARE), and the first point is moved back along
     * that line's slope: where sets are hashed the first lines over C can land
     * in one set, the ramp starts convex, and the lines through its first
     * points cross late (generated seed 1010: a noisy FIFO 1 MiB L2 read 2
     * lines late). */
    double sx = 0, sy = 0, sxx = 0, sxy = 0, c = INFINITY, c_slope = NAN, x0 = NAN, y0 = NAN;
    /* ... and for the zero's error: each share's sampling variance (Poisson:
     * the misses and the outliers a point counts), summed, and the chosen
     * line's sums */
    double sv = 0, v0 = NAN, c_err = NAN;
    size_t n = 0;
    for (size_t i = clean + 1; i < curve->count; i++) {
        double s = gd_point_share_above(&curve->points[i], threshold, hit, miss);
        if (!isfinite(s))
            continue;
        double y = s - outliers, x = (double)curve->points[i].x;
        if (y > GD_EXTRAPOLATE_MAX_SHARE)
            break;
        int ci = gd_point_series_index(&curve->points[i], "cycles");
        double count = ci >= 0 ? (double)curve->points[i].series[ci].summary.count : 0;
        double var = count > 0 ? (fmax(s, 0) + 1 / count) / count : NAN;
        if (!n) {
            x0 = x;
            y0 = y;
            v0 = var;
        }
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
        sv += var;
        n++;
        double den = n * sxx - sx * sx;
        if (n > GD_EXTRAPOLATE_MAX_POINTS || n < 2 || den <= 0)
            continue;
        double slope = (n * sxy - sx * sy) / den;
        if (!(slope > 0))
            continue;
        double zero = -((sy - slope * sx) / n) / slope; /* where the line crosses zero */
        if (zero < c) {
            c = zero;
            c_slope = slope;
            /* the zero's standard error, least squares: sigma / slope x
             * sqrt(1/n + (zero - mean x)^2 / Sxx) */
            double mean = sx / n, sxx_c = sxx - sx * sx / n;
            c_err = sqrt(sv / n * (1.0 / n + (zero - mean) * (zero - mean) / sxx_c)) / slope;
        }
    }
    double den = n * sxx - sx * sx;
    if (n > GD_EXTRAPOLATE_MAX_POINTS && den > 0) {
        double slope = (n * sxy - sx * sy) / den;
        if (slope > 0 && y0 > 0 && x0 - y0 / slope < c) {
            c = x0 - y0 / slope;
            c_slope = slope;
            c_err = sqrt(v0) / slope; /* moved back from the first point alone */
        }
    }
    if (!isfinite(c))
        return 0;
    /* not before the last clean point -- unless its own misses stand above
     * the outliers by more than one SD, below significance but not nothing:
     * then not before the point ahead of it.  A line or two over C add a
     * set's worth (13-17 accesses) to hundreds of outliers (generated seeds
     * 1092, 1120: a FIFO and an LRU L2 read 1-2 lines late, 2.3 and 1.3 SDs
     * there, the line through the next points crossing at C) */
    size_t floor_at = clean;
    double grain = curve->opts.stride_bytes ? (double)curve->opts.stride_bytes : 1;
    /* (only where the sweep has bisected down to a line or two: a point far
     * back leaves a random cache's convex ramp room to extrapolate early --
     * seed 1007's 112 KiB random L1D read 96) */
    if (clean > on->first &&
        (double)curve->points[clean].x - (double)curve->points[clean - 1].x <= 2 * grain) {
        const gd_point *p = &curve->points[clean];
        int ci = gd_point_series_index(p, "cycles");
        double count = ci >= 0 ? (double)p->series[ci].summary.count : 0;
        double excess = (gd_point_share_above(p, threshold, hit, miss) - outliers) * count;
        if (excess > GD_EXTRAPOLATE_HINT * sqrt(outliers * count + 1))
            floor_at = clean - 1;
    }
    double lo = (double)curve->points[floor_at].x, hi = (double)curve->points[k->below].x;
    if (c < lo)
        c = lo;
    if (c > hi)
        c = hi;
    /* to the chain's element: the sweep's own grain */
    *capacity_bytes = round(c / grain) * grain;
    /* How far the zero can be from the truth, the wider of: a share of misses
     * the outliers' scatter hides (GD_EXTRAPOLATE_SIGNIFICANCE binomial SDs
     * at the clean point's sample count) as bytes of the line's slope -- the
     * lines over C whose misses no point can see -- and as many standard
     * errors of the zero itself (the shares' sampling noise carried back
     * along the line).  A noisy 40 MiB LRU L2 chased a quarter of a lap
     * (generated seed 1027: 1310 outliers in 327 680 samples) hides 25 lines of
     * 32 bytes; a quiet L1D a fraction of one. */
    if (resolution_bytes) {
        const gd_point *p = &curve->points[clean];
        int ci = gd_point_series_index(p, "cycles");
        double count = ci >= 0 ? (double)p->series[ci].summary.count : 0;
        double hidden = count > 0 ? GD_EXTRAPOLATE_SIGNIFICANCE * sqrt(outliers * count + 1) / count
                                  : NAN;
        double r = c_slope > 0 && isfinite(hidden) ? hidden / c_slope : NAN;
        if (isfinite(c_err) && GD_EXTRAPOLATE_SIGNIFICANCE * c_err > r) {
            /* ... but the zero was held between the last clean point and
             * the knee: no further from it than those and the hidden lines
             * (two points a line apart make a steep error and say nothing
             * of it) */
            double bound = fmax(c - lo, hi - c) + (isfinite(r) ? r : 0);
            r = fmin(GD_EXTRAPOLATE_SIGNIFICANCE * c_err, bound);
        }
        *resolution_bytes = isfinite(r) && r > grain ? ceil(r / grain) * grain : grain;
    }
    return 1;
}
