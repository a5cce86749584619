/* icache_random.c -- instruction caches that replace at random (issue 17):
 * seeing it in the timed passes of icache_seq's loops, and the next level's
 * knee past a random one's climb.  Used by analysis/infer_icache.c; split
 * from it on 2026-12-04 when it passed 800 lines.
 */
#include "analysis/icache_random.h"

#include <math.h>
#include <stdio.h>

double gd_icache_cpi(const gd_curve *c, size_t i)
{
    const gd_summary *s = gd_point_summary(&c->points[i], "cpi");
    return s && s->count ? s->median : NAN;
}

/* Random replacement in an instruction cache (issue 17).  A loop of code
 * runs the same pass after pass, so under LRU or FIFO every timed pass costs
 * the same (the warm pass brought in what stays); under random replacement
 * each miss evicts a line at random, the loop's own included, and a loop near
 * the capacity reaches its steady state only over many passes: the timed
 * passes get cheaper one after the other (on sim:t4 with a random L1I the
 * 46 KiB loop's eight passes ran at CPI 8.2, 7.2, 6.5, ... 5.6, and the
 * median put the L1I at 35 KiB).  A point is transient where its first timed
 * passes (the median of three) cost ICACHE_TRANSIENT_DROP more than its last
 * three, at least ICACHE_TRANSIENT_CYCLES cycles a pass more (timer jitter is
 * a few cycles; the medians of three leave an outlier in one pass out), and
 * the passes fall more than ICACHE_TRANSIENT_FALLS times as often as they rise
 * from one to the next (a loop that converges in two or three passes, then
 * repeats its cost, falls twice and never rises; generated seed 1012's random
 * 8 KiB L0I: 1230, 372, 294, 294, ... cycles at 4864 bytes).  A level is
 * random where transient points lie both just below its knee (its own loops
 * converging to it: ICACHE_TRANSIENT_BELOW of them in [knee/2, knee]) and just
 * past it (at least one in (knee, 2 knee]): a random level before it leaves
 * transients on the next level's plateau too, but not past that level's knee.
 * The steps that follow (full.suite's icache-warm) measure the same loops
 * after 64 warm passes, where the knee is the capacity again (within the
 * resolution infer_icache.c states). */
#define ICACHE_TRANSIENT_DROP 0.03
#define ICACHE_TRANSIENT_CYCLES 32.0
#define ICACHE_TRANSIENT_FALLS 2
#define ICACHE_TRANSIENT_BELOW 2

static double median3(double a, double b, double c)
{
    return a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
}

static int point_transient(const gd_curve *curve, size_t i)
{
    int k = gd_point_series_index(&curve->points[i], "cycles");
    if (k < 0)
        return 0;
    const gd_point_series *s = &curve->points[i].series[k];
    size_t n = s->summary.count;
    const double *v = s->samples;
    if (!v || n < 6)
        return 0;
    double first = median3(v[0], v[1], v[2]), last = median3(v[n - 3], v[n - 2], v[n - 1]);
    if (!(last > 0) || !(first > last * (1 + ICACHE_TRANSIENT_DROP)) ||
        !(first - last >= ICACHE_TRANSIENT_CYCLES))
        return 0;
    unsigned falls = 0, rises = 0;
    for (size_t a = 0; a + 1 < n; a++) {
        falls += v[a + 1] < v[a];
        rises += v[a + 1] > v[a];
    }
    return falls > ICACHE_TRANSIENT_FALLS * rises;
}

/* Transient points of curve in [lo, hi] (x) */
unsigned gd_icache_transients(const gd_curve *curve, double lo, double hi)
{
    unsigned n = 0;
    for (size_t i = 0; i < curve->count; i++) {
        double x = (double)curve->points[i].x;
        if (x >= lo && x <= hi)
            n += (unsigned)point_transient(curve, i);
    }
    return n;
}

/* The replacement verdict of a sized level whose knee is at `knee`: random,
 * or LRU-or-FIFO (a loop of code cannot tell those apart) */
void gd_icache_replacement(gd_inferred_level *l, const gd_curve *curve, double knee)
{
    unsigned below = gd_icache_transients(curve, knee / 2, knee);
    unsigned above = gd_icache_transients(curve, knee * (1 + 1e-9), 2 * knee);
    l->has_replacement = 1;
    snprintf(l->replacement_from, sizeof l->replacement_from, "%s", curve->label);
    if (below >= ICACHE_TRANSIENT_BELOW && above >= 1) {
        l->replacement = GD_REPL_RANDOM;
        l->replacement_lru_or_fifo = 0;
        l->replacement_confidence = fmin(1.0, (below + above) / 6.0);
    } else {
        l->replacement = GD_REPL_LRU;
        l->replacement_lru_or_fifo = 1;
        l->replacement_confidence = 1.0 - fmin(1.0, (below + above) / 6.0);
    }
}

int gd_icache_level_random(const gd_inference *inf, gd_inferred_name n)
{
    const gd_inferred_level *l = &inf->level[n];
    return l->has_replacement && l->replacement == GD_REPL_RANDOM && !l->replacement_lru_or_fifo;
}

/* Past a random level the next level has no flat plateau of its own where
 * it is a few times larger: the random level's miss share keeps climbing over
 * several of its capacities (each miss evicts a line at random: a loop of 2.7
 * capacities still hits 8 % of its lines), and the next level's knee is where
 * that gentle climb turns steep (generated seed 1004: a random 12 KiB L0I,
 * its climb to CPI 4.17 and 4.56 at 26 and 32 KiB, then 7.75 at the L2 from
 * 41 KiB on; the 32 KiB L1I had no plateau, so no size).  The kink: the point
 * of the climb from ICACHE_KINK_FROM of the random level's size on whose CPI
 * rises ICACHE_KINK_STEEPER times as fast (per log of x) over the next tenth
 * of x as over the quarter before it, by ICACHE_KINK_MIN_RISE of the way to the
 * last plateau at least, and stands GD_ICACHE_SPLIT_ABOVE below that plateau --
 * the steepest such turn.  Returns its index, or -1. */
#define ICACHE_KINK_FROM 2.0
#define ICACHE_KINK_STEEPER 4.0
#define ICACHE_KINK_MIN_RISE 0.15
#define ICACHE_KINK_BEFORE 1.25
#define ICACHE_KINK_AFTER 1.1
#define ICACHE_KINK_FLAT 0.01
#define ICACHE_KINK_TIE 0.9

/* CPI at x, linear in log x between the neighbouring points (NAN outside) */
static double cpi_at(const gd_curve *curve, double x)
{
    for (size_t i = 0; i + 1 < curve->count; i++) {
        double a = (double)curve->points[i].x, b = (double)curve->points[i + 1].x;
        if (x >= a && x <= b) {
            double t = b > a ? log(x / a) / log(b / a) : 0;
            return gd_icache_cpi(curve, i) * (1 - t) + gd_icache_cpi(curve, i + 1) * t;
        }
    }
    return NAN;
}

/* The kink's ratio at point i (see above), or 0 where i is no candidate. */
static double kink_ratio(const gd_curve *curve, size_t i, const gd_plateau *random_level,
                         const gd_plateau *last, double gap)
{
    double x = (double)curve->points[i].x, c = gd_icache_cpi(curve, i);
    if (x < random_level->x_last * ICACHE_KINK_FROM || !(c * GD_ICACHE_SPLIT_ABOVE <= last->level))
        return 0;
    double lo = cpi_at(curve, x / ICACHE_KINK_BEFORE), hi = cpi_at(curve, x * ICACHE_KINK_AFTER);
    if (!isfinite(lo) || !isfinite(hi) || !(hi - c >= ICACHE_KINK_MIN_RISE * gap))
        return 0;
    /* (a climb flat to within ICACHE_KINK_FLAT of the gap counts as that
     * much: the points of a level's flat span all tie) */
    double before = fmax(c - lo, ICACHE_KINK_FLAT * gap) / log(ICACHE_KINK_BEFORE);
    return (hi - c) / log(ICACHE_KINK_AFTER) / before;
}

long gd_icache_random_tail_kink(const gd_curve *curve, const gd_plateau *random_level,
                             const gd_plateau *last)
{
    double gap = last->level - random_level->level, best = 0;
    if (!(gap > 0))
        return -1;
    for (size_t i = random_level->last + 1; i < last->first && i < curve->count; i++)
        best = fmax(best, kink_ratio(curve, i, random_level, last, gap));
    if (best < ICACHE_KINK_STEEPER)
        return -1;
    /* the first point within ICACHE_KINK_TIE of the steepest turn: the
     * level's last flat points and the ramp's first tie there (generated seed
     * 1012's 96 KiB L1I: 86.8 at 98176 bytes, 87.0 one line up the ramp,
     * whose KiB rounded up read 97), and a knee is published rounded up */
    for (size_t i = random_level->last + 1; i < last->first && i < curve->count; i++)
        if (kink_ratio(curve, i, random_level, last, gap) >= ICACHE_KINK_TIE * best)
            return (long)i;
    return -1;
}

