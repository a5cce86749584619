/* infer_icache.c -- instruction-cache capacities and the sharing scope of
 * every level.
 *
 * icache_seq: the CPI of a loop of straight-line code stays on one plateau
 * while the loop fits a level; the last point on the first level's plateau is
 * the first instruction cache's capacity, on the next level's the second's.
 * A set-associative level fills set by set, so between two levels the CPI
 * ramps rather than steps: the ramp's pieces (short plateaus, or one plateau
 * that spreads across the ramp) are no levels (is_level_plateau).  Which names they
 * get depends on the generation (Jia et al. 2019, sec. 3.3): Volta and later
 * fetch through a per-sub-partition L0 and a per-SM L1; Kepler to Pascal through
 * an L1 and an L1.5.  The last plateau, past every instruction cache, is the
 * L2 seen by the fetch unit.
 *
 * icache_av: for each level under test the suite runs the victim (sized to hit
 * that level and miss the ones above) against attackers in each placement.  A
 * placement interferes when the victim's CPI with the largest attackers exceeds
 * its CPI with the smallest by INTERFERENCE_RATIO, beyond the spread of the
 * victim's own passes.  The level's scope is then the narrowest that explains
 * the table: disturbed from another SM -> the chip; from another sub-partition
 * of its SM but not another SM -> the SM; only from its own sub-partition -> the
 * sub-partition.  A data attacker on another SM that disturbs a victim living
 * in the L2 shows that code and data share the chip-wide L2.
 *
 * same_sub's control.  Warps on one sub-partition share its scheduler's issue
 * slot as well as its L0, and a larger attacker takes more of the slot (its
 * per-pass handshake weighs less), so a same_sub victim can slow down with the
 * attacker's size where no cache is shared -- or, under a greedy scheduler, be
 * held up behind an attacker that stops stalling.  same_sub_issue runs the same
 * pair with an attacker that issues as many instructions from a few hundred
 * bytes of code.  Where it was measured, same_sub interferes (through the
 * cache) only when its victim's CPI with the largest attackers exceeds the
 * control's with the largest attackers by INTERFERENCE_RATIO, beyond both
 * victims' pass-to-pass spread: the issue slot is in both, the cache only in
 * same_sub.  Without the control, same_sub is judged on its own as before.
 */
#include "analysis/infer.h"
#include "analysis/icache_random.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "analysis/run_load.h"
#include "analysis/stats.h"

#define INTERFERENCE_RATIO 1.15  /* victim CPI rise that counts as interference */
#define EDGE_FRACTION 0.25       /* points at each end of the sweep compared */
/* A cache level's CPI plateau spans at least 10% in code size (a ramp of a
 * set-associative level filling set by set is cut into pieces a few lines
 * wide) and spreads less than 5% of its level (a ramp kept whole spreads
 * across it). */
#define ICACHE_LEVEL_EXTENT 1.1
#define ICACHE_LEVEL_FLATNESS 0.05
#define ICACHE_MAX_LEVELS 16      /* plateaus read as levels, at most */

static const char *const placement_names[GD_PLACE_COUNT] = {
    [GD_PLACE_SAME_SUB] = "same_sub",
    [GD_PLACE_OTHER_SUB] = "other_sub",
    [GD_PLACE_OTHER_SM] = "other_sm",
    [GD_PLACE_DATA_OTHER_SM] = "data_other_sm",
    [GD_PLACE_SAME_SUB_ISSUE] = "same_sub_issue",
};

const char *gd_placement_name(gd_placement p)
{
    return p < GD_PLACE_COUNT ? placement_names[p] : "?";
}

int gd_placement_from_name(const char *name)
{
    for (int i = 0; i < GD_PLACE_COUNT; i++)
        if (!strcmp(placement_names[i], name))
            return i;
    return -1;
}

/* A plateau that is a cache level, not a piece of a ramp: it spans a range of
 * code sizes (a set-associative cache fills set by set, and the plateau
 * detector may keep pieces of that ramp as short plateaus of their own) and
 * is flat across it. */
static int is_level_plateau(const gd_plateau *p)
{
    return p->x_last >= p->x_first * ICACHE_LEVEL_EXTENT &&
           p->spread <= ICACHE_LEVEL_FLATNESS * p->level;
}

/* A set-associative level fills set by set: past its capacity the sets that
 * overflow miss whole passes, one more set per line of code, so the CPI
 * climbs as a ramp from the capacity on, and the first lines of the ramp
 * (a few hundredths of a CPI) still pass for the plateau (generated seed
 * 1012: a 96 KiB 8-way L1I of 96 sets read 97 KiB).  Where the points just
 * past plateau p climb between it and the next level, the line through them
 * is extrapolated back to p's level; the capacity moves back to there, at
 * most ICACHE_RAMP_BACK_LINES of 128 bytes (a knee is late, never early).
 * A fully associative level jumps (no point between): nothing moves. */
#define ICACHE_RAMP_POINTS 6      /* ramp points fitted, at most */
#define ICACHE_RAMP_FLOOR 0.002   /* a point above the plateau by this share climbs */
#define ICACHE_RAMP_BACK_LINES 16
#define ICACHE_RAMP_ABOVE 1.5     /* a last, unflat plateau this far above ends the level before */
/* a last plateau whose two ends are flat levels this far apart is two levels */
#define ICACHE_SPLIT_FLAT 0.01    /* an end's points within this share of its median */
#define ICACHE_SPLIT_MIN_POINTS 8

/* A level the segmentation joined with the first lines of the ramp after it:
 * where the next level is only a little slower, the step is smaller than the
 * segmentation splits on, and the plateau runs from the level's flat span up
 * the ramp's start (generated seed 8011: a 64 KiB 16-way L1I at CPI 3.15 and
 * the fetch from the L2 at 3.65, one plateau from 40 to 66.4 KiB whose
 * spread, 0.170, missed the level test's 0.167 by the ramp's 3 KiB -- and the
 * L2's plateau after it was taken for the L1I, 272 KiB).  Its flat prefix:
 * from its first point, every point within ICACHE_CORE_BAND of the median of
 * the plateau's first half; it is a level when it spans ICACHE_LEVEL_EXTENT
 * over ICACHE_CORE_MIN_POINTS or more and every point after it up to the
 * plateau's end stands above the band (a climb, not noise around a level).
 * *core gets the prefix as a plateau of its own: its points, its last x, its
 * level; ramp_start then fits the ramp after it back to that level. */
#define ICACHE_CORE_BAND (ICACHE_LEVEL_FLATNESS / 2)
#define ICACHE_CORE_MIN_POINTS 3
#define ICACHE_CORE_MAX_POINTS 256
static int flat_prefix(const gd_curve *curve, const gd_plateau *p, gd_plateau *core)
{
    size_t n = p->last - p->first + 1;
    if (n < ICACHE_CORE_MIN_POINTS + 1 || n > ICACHE_CORE_MAX_POINTS)
        return 0;
    double v[ICACHE_CORE_MAX_POINTS];
    for (size_t i = 0; i < n; i++) {
        v[i] = gd_icache_cpi(curve, p->first + i);
        if (!isfinite(v[i]))
            return 0;
    }
    double half[ICACHE_CORE_MAX_POINTS];
    size_t nh = (n + 1) / 2;
    memcpy(half, v, nh * sizeof *half);
    double base = gd_median(half, nh);
    if (!(base > 0))
        return 0;
    double lo = base * (1 - ICACHE_CORE_BAND), hi = base * (1 + ICACHE_CORE_BAND);
    size_t k = 0; /* points in the prefix */
    while (k < n && v[k] >= lo && v[k] <= hi)
        k++;
    if (k < ICACHE_CORE_MIN_POINTS || k == n)
        return 0;
    for (size_t i = k; i < n; i++)
        if (!(v[i] > hi))
            return 0;
    double x_last = (double)curve->points[p->first + k - 1].x;
    if (!(x_last >= p->x_first * ICACHE_LEVEL_EXTENT))
        return 0;
    *core = *p;
    core->last = p->first + k - 1;
    core->x_last = x_last;
    /* its level: the median of the prefix's first half, away from the ramp's
     * foot (8011: 3.18, where the prefix's last points are already 3.27 and
     * the ramp fitted back to them put the capacity a KiB late) */
    memcpy(half, v, (k + 1) / 2 * sizeof *half);
    core->level = gd_median(half, (k + 1) / 2);
    return 1;
}

static double ramp_start(const gd_curve *curve, const gd_plateau *p, const gd_plateau *next)
{
    double x[ICACHE_RAMP_POINTS], y[ICACHE_RAMP_POINTS];
    size_t n = 0;
    /* only where the ramp began on the plateau: its last point already above
     * the level.  A plateau flat to its end followed by a steep, then flatter
     * climb (a concave ramp) put the fitted line's start a KiB early
     * (generated seeds 1026 and 1032: a 46 KiB 8-way L1I of 256-byte lines,
     * flat to 46464 bytes, read 45 KiB; 1061: 96 KiB read 95) */
    double end_cpi = gd_icache_cpi(curve, p->last);
    if (!(end_cpi > p->level * (1 + ICACHE_RAMP_FLOOR)))
        return NAN;
    for (size_t i = p->last + 1; i < next->first && i < curve->count && n < ICACHE_RAMP_POINTS;
         i++) {
        double c = gd_icache_cpi(curve, i);
        if (!(c > p->level * (1 + ICACHE_RAMP_FLOOR)) || !(c < next->level))
            break;
        x[n] = (double)curve->points[i].x;
        y[n++] = c;
    }
    if (n < 2)
        return NAN;
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i] / (double)n;
        my += y[i] / (double)n;
    }
    double sxy = 0, sxx = 0;
    for (size_t i = 0; i < n; i++) {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
    }
    if (!(sxx > 0) || !(sxy > 0))
        return NAN;
    double slope = sxy / sxx;
    double x0 = mx - (my - p->level) / slope;
    if (!(x0 < p->x_last) || x0 < p->x_last - ICACHE_RAMP_BACK_LINES * 128.0 || x0 <= p->x_first)
        return NAN;
    return x0;
}

/* The last plateau the segmentation found may be two levels whose CPIs differ
 * by less than it splits on, joined by a long ramp (generated seed 1086: an
 * L1I of 128 KiB at CPI 4.56 after a 16 KiB L0I, the L2 at 5.62, the ramp
 * between them set by set over 17 KiB: one plateau of level 5.08 from 18 KiB
 * to the sweep's end, and the L1I went unreported).  Where the first and last
 * quarters of its span are each flat (within ICACHE_SPLIT_FLAT of their own
 * median) and GD_ICACHE_SPLIT_ABOVE apart, the lower level ends at the last point
 * still on it; returns that point's index, or -1. */
static long split_flat_ends(const gd_curve *curve, const gd_plateau *p)
{
    if (p->last - p->first + 1 < ICACHE_SPLIT_MIN_POINTS || !(p->x_first > 0))
        return -1;
    /* the ends: the first and last quarters of the plateau's span in log(x)
     * (a bisected ramp packs its points in between), the plateau's first
     * point left out (the tail of the ramp before it) */
    double span = log(p->x_last / p->x_first);
    double lo_end = p->x_first * exp(span / 4), hi_start = p->x_last * exp(-span / 4);
    double lo[64], hi[64];
    size_t nl = 0, nh = 0, lo_last = p->first;
    for (size_t i = p->first + 1; i <= p->last; i++) {
        double x = (double)curve->points[i].x;
        if (x <= lo_end && nl < 64) {
            lo[nl++] = gd_icache_cpi(curve, i);
            lo_last = i;
        } else if (x >= hi_start && nh < 64) {
            hi[nh++] = gd_icache_cpi(curve, i);
        }
    }
    if (nl < 3 || nh < 3)
        return -1;
    double a = gd_median(lo, nl), b = gd_median(hi, nh);
    if (!(a > 0) || !(b > GD_ICACHE_SPLIT_ABOVE * a))
        return -1;
    for (size_t i = 0; i < nl; i++)
        if (!(fabs(lo[i] - a) <= ICACHE_SPLIT_FLAT * a))
            return -1;
    for (size_t i = 0; i < nh; i++)
        if (!(fabs(hi[i] - b) <= ICACHE_SPLIT_FLAT * b))
            return -1;
    size_t k = lo_last;
    while (k + 1 <= p->last && gd_icache_cpi(curve, k + 1) <= a * (1 + ICACHE_SPLIT_FLAT))
        k++;
    return k < p->last ? (long)k : -1;
}

/* A random level's size (analysis/icache_random.c finds it random): its knee
 * on the converged loops (icache-warm) stands for the capacity within
 * ICACHE_RANDOM_RESOLUTION -- a loop just below the capacity of a random L0I
 * still misses a few lines after 64 passes, each a step to the L1I's CPI
 * (generated seed 1008's 32 KiB L0I read 31 KiB); past it the miss share keeps
 * climbing for several capacities (each miss evicts a random line): a plateau
 * piece within ICACHE_RANDOM_TAIL below the level after it is that climb, not
 * a level; and a level within ICACHE_RANDOM_SEPARABLE of its capacities is
 * not told apart.  ICACHE_TRANSIENT_UNSIZED transient points past an unsized
 * level call it random. */
#define ICACHE_TRANSIENT_UNSIZED 3
#define ICACHE_RANDOM_RESOLUTION 0.04
#define ICACHE_RANDOM_ABOVE 0.05   /* a converged point this far above the level is past it */
#define ICACHE_RANDOM_TAIL 0.05
#define ICACHE_RANDOM_SEPARABLE 3.0

int gd_infer_icache_seq(gd_inference *inf, const gd_curve *curve, const gd_segmentation *seg,
                        int has_l0, gd_err *err)
{
    if (seg->plateau_count == 0)
        return gd_fail(err, "%s: no plateau found in the CPI curve", curve->label);
    const gd_inferred_name names[2] = {has_l0 ? GD_INF_L0I : GD_INF_L1I,
                                       has_l0 ? GD_INF_L1I : GD_INF_L15I};
    /* loops timed after many warm passes (icache-warm): the verdicts come in
     * with inf (the step before, whose passes show the transients); a random
     * level's knee is read on the converged loops as it stands */
    int converged = curve->opts.warm_passes > 1;
    int random[2] = {converged && gd_icache_level_random(inf, names[0]),
                     converged && gd_icache_level_random(inf, names[1])};
    /* the cache levels: flat plateaus over a range of sizes, in order (the
     * first plateau always, whatever its width: the sweep starts inside it) */
    size_t levels[ICACHE_MAX_LEVELS], nl = 0;
    gd_plateau lv[ICACHE_MAX_LEVELS]; /* each level's plateau (a flat prefix where trimmed) */
    for (size_t i = 0; i < seg->plateau_count && nl < ICACHE_MAX_LEVELS; i++) {
        if (i == 0 || is_level_plateau(&seg->plateaus[i])) {
            lv[nl] = seg->plateaus[i];
            levels[nl++] = i;
        } else if (flat_prefix(curve, &seg->plateaus[i], &lv[nl])) {
            levels[nl++] = i;
        }
    }
    /* past a random level, the pieces of its climb are no level */
    for (size_t j = 0; j < 2 && j + 2 < nl; j++) {
        while (random[j] && j + 2 < nl && lv[j + 1].level >= lv[j + 2].level * (1 - ICACHE_RANDOM_TAIL)) {
            memmove(&lv[j + 1], &lv[j + 2], (nl - j - 2) * sizeof lv[0]);
            memmove(&levels[j + 1], &levels[j + 2], (nl - j - 2) * sizeof levels[0]);
            nl--;
        }
    }
    /* one random level, then only the last plateau: the next level's knee is
     * the kink of the climb between them */
    int kinked = 0;
    if (random[0] && nl == 2 && levels[1] == seg->plateau_count - 1) {
        long k = gd_icache_random_tail_kink(curve, &lv[0], &lv[1]);
        if (k >= 0) {
            gd_plateau kp = {.first = (size_t)k, .last = (size_t)k,
                             .x_first = (double)curve->points[k].x,
                             .x_last = (double)curve->points[k].x,
                             .level = gd_icache_cpi(curve, (size_t)k), .spread = 0,
                             .confidence = 0.5 * lv[1].confidence + 0.25};
            lv[2] = lv[1];
            levels[2] = levels[1];
            lv[1] = kp;
            levels[1] = levels[0]; /* (no plateau of the segmentation's) */
            nl = 3;
            kinked = 1;
        }
    }
    /* The last plateau, not flat (a level and the one past it so close in CPI
     * that their ramps run together), still ends the level before it where it
     * stands clearly above it: that level's capacity is where the CPI leaves
     * it (generated seed 1067: a crisp 32 KiB L0I, then the 128 KiB L1I at
     * 100 cycles and the L2C at 125 one ramp from CPI 1.3 to 8.8 -- no flat
     * level after the L0I, which was reported as ">= 512 KiB", and the next
     * step's L2 knee named it).  The ramp bounds nothing after it. */
    int ramp_last = 0;
    size_t lastp = seg->plateau_count - 1;
    /* (a random level's converged climb past it, a few capacities long, and
     * the level after it are one plateau of their own that needs stand only
     * GD_ICACHE_SPLIT_ABOVE above it: generated seed 1030's random 46 KiB L1I
     * at CPI 5.81, then one plateau of median 7.46 from 50 KiB on) */
    int last_random = nl <= 2 && random[nl - 1];
    if (nl < ICACHE_MAX_LEVELS && levels[nl - 1] < lastp &&
        seg->plateaus[lastp].level >
            (last_random ? GD_ICACHE_SPLIT_ABOVE : ICACHE_RAMP_ABOVE) * lv[nl - 1].level) {
        lv[nl] = seg->plateaus[lastp];
        levels[nl++] = lastp;
        ramp_last = 1;
    }
    /* a level's capacity: the last point on its plateau (the next already
     * misses), where another level follows */
    size_t sized = 0;
    for (size_t j = 0; j + 1 < nl && sized < 2; j++, sized++) {
        const gd_plateau *p = &lv[j];
        gd_inferred_level *l = &inf->level[names[sized]];
        l->present = 1;
        l->has_size = 1;
        l->size_bytes = (uint64_t)p->x_last;
        /* (a random level's loops past the knee still converging below it
         * are no set-by-set ramp: its knee stands) */
        double begins = random[sized] ? NAN : ramp_start(curve, p, &lv[j + 1]);
        if (isfinite(begins))
            l->size_bytes = (uint64_t)begins;
        l->size_confidence = fmin(p->confidence, lv[j + 1].confidence);
        l->knee_below = p->x_last;
        l->knee_above = p->last + 1 < curve->count ? (double)curve->points[p->last + 1].x
                                                   : p->x_last;
        if (kinked && j == 1) {
            /* the bracket the adaptive sweep closed around the kink */
            l->size_resolution_bytes = (uint64_t)(l->knee_above - l->size_bytes);
            snprintf(l->size_method, sizeof l->size_method,
                     "past a random %s: where its climb turns steep", has_l0 ? "L0I" : "L1I");
        } else if (random[sized]) {
            /* the plateau's last points that stand clearly above its level
             * are past the knee already (generated seed 9712's random 16 KiB
             * L0I: CPI 1.16 and 1.14 at 16384 and 16512 bytes were kept on
             * its plateau, and 16512 rounded up read 17 KiB) */
            size_t k = p->last;
            while (k > p->first && gd_icache_cpi(curve, k) > p->level * (1 + ICACHE_RANDOM_ABOVE))
                k--;
            if (k < p->last) {
                l->size_bytes = curve->points[k].x;
                l->knee_below = (double)curve->points[k].x;
                l->knee_above = (double)curve->points[k + 1].x;
            }
            l->size_resolution_bytes = (uint64_t)ceil(ICACHE_RANDOM_RESOLUTION * (double)l->size_bytes);
            snprintf(l->size_method, sizeof l->size_method,
                     "random replacement: knee after %u warm passes", curve->opts.warm_passes);
        } else if (!converged && !(sized == 1 && inf->level[names[0]].replacement == GD_REPL_RANDOM &&
                                   !inf->level[names[0]].replacement_lru_or_fifo)) {
            /* (behind a random level its transients run on: no verdict) */
            gd_icache_replacement(l, curve, p->x_last);
        }
        snprintf(l->size_from, sizeof l->size_from, "%s", curve->label);
    }
    /* a level within ICACHE_RANDOM_SEPARABLE of a random one before it: the
     * random level's climb runs through its range (a loop of 2 random-L0I
     * capacities still hits a fifth of its lines there, and those lines need
     * no room in the next level, so its knee moves out: a 28 KiB L1I behind
     * a random 16 KiB L0I read 41 KiB, a 36 KiB one 37 KiB) -- no size */
    if (converged && random[0] && sized == 2 && inf->level[names[1]].has_size &&
        (double)inf->level[names[1]].size_bytes <
            ICACHE_RANDOM_SEPARABLE * (double)inf->level[names[0]].size_bytes) {
        gd_inferred_level *l = &inf->level[names[1]];
        l->has_size = 0;
        l->size_resolution_bytes = 0;
        l->size_method[0] = 0;
        snprintf(l->size_unseen, sizeof l->size_unseen,
                 "within %.0fx of the random %s's %llu bytes (%s: a knee at %llu): its climb "
                 "runs through this level's range, whose knee it moves",
                 ICACHE_RANDOM_SEPARABLE, has_l0 ? "L0I" : "L1I",
                 (unsigned long long)inf->level[names[0]].size_bytes, curve->label,
                 (unsigned long long)l->size_bytes);
    }
    /* a random level the segmentation did not size: its transients inflate
     * every point's spread past its knee, and the climb to the L2 was one
     * plateau with it (generated seed 1043: a random 96 KiB L1I, CPI 4.0 to
     * 57 KiB, then 4.1 .. 11.6 to 512 KiB, one plateau from 8 KiB on).  Where
     * ICACHE_TRANSIENT_UNSIZED transient points lie past 3x the last sized
     * level's knee (clear of its own), the next level is random: the
     * converged loops (icache-warm) then size it */
    if (!converged && sized >= 1 && sized < 2 && !inf->level[names[sized]].has_replacement) {
        double from = 3 * inf->level[names[sized - 1]].knee_below;
        unsigned t = gd_icache_transients(curve, from, INFINITY);
        if (t >= ICACHE_TRANSIENT_UNSIZED) {
            gd_inferred_level *l = &inf->level[names[sized]];
            l->present = 1;
            l->has_replacement = 1;
            l->replacement = GD_REPL_RANDOM;
            l->replacement_lru_or_fifo = 0;
            l->replacement_confidence = fmin(1.0, t / 6.0);
            snprintf(l->replacement_from, sizeof l->replacement_from, "%s", curve->label);
        }
    }
    /* the last level the sweep stayed in: at least the largest loop measured
     * (not where the sweep ended on a ramp of levels run together) */
    const gd_plateau *end = &seg->plateaus[seg->plateau_count - 1];
    long split = sized < 2 && nl >= 2 && levels[nl - 1] == seg->plateau_count - 1
                     ? split_flat_ends(curve, end)
                     : -1;
    if (split >= 0) {
        gd_inferred_level *l = &inf->level[names[sized]];
        l->present = 1;
        l->has_size = 1;
        l->size_is_lower_bound = 0;
        l->size_bytes = curve->points[split].x;
        l->size_confidence = 0.5 * end->confidence + 0.5;
        l->knee_below = (double)curve->points[split].x;
        l->knee_above = (double)curve->points[split + 1].x;
        snprintf(l->size_from, sizeof l->size_from, "%s", curve->label);
        /* (its verdict as a level sized in the loop above gets one: seed
         * 1067's 128 KiB L1I had none) */
        if (!converged && !(sized == 1 && gd_icache_level_random(inf, names[0])) && !l->has_replacement)
            gd_icache_replacement(l, curve, l->knee_below);
    } else if (sized == 1 && !ramp_last) {
        /* one step, then a level to the sweep's end: the next instruction
         * cache, at least as large as the sweep -- or the L2, where that
         * cache is no larger than the one before (an L1I as large as its L0I
         * holds nothing the L0I does not: generated seeds 1016, 1045, 1064,
         * 1081, 1178, whose L1Is of 32 KiB were reported as ">= 512 KiB").
         * Code from either runs at one CPI; which it is, no sweep of code
         * tells apart (the code sweep past the L2's half, icache-l2, starts
         * cold: 2 passes, a random L2's code still arriving).  So no bound. */
        gd_inferred_level *l = &inf->level[names[1]];
        if (!l->has_size) {
            l->present = 1;
            snprintf(l->size_unseen, sizeof l->size_unseen,
                     "one level past the %s's %llu bytes to the sweep's end (%s, CPI %.2f): "
                     "this level of at least %llu bytes, or the L2 behind one no larger",
                     has_l0 ? "L0I" : "L1I",
                     (unsigned long long)inf->level[names[0]].size_bytes, curve->label,
                     end->level, (unsigned long long)end->x_last);
        }
    } else if (sized == 0 && !ramp_last) {
        /* the first level to the sweep's end: at least the sweep */
        gd_inferred_level *l = &inf->level[names[0]];
        if (!l->has_size) {
            l->present = 1;
            l->has_size = 1;
            l->size_is_lower_bound = 1;
            l->size_bytes = (uint64_t)seg->plateaus[seg->plateau_count - 1].x_last;
            l->size_confidence = seg->plateaus[seg->plateau_count - 1].confidence;
            snprintf(l->size_from, sizeof l->size_from, "%s", curve->label);
        }
    }
    return 0;
}

/* Median over the victim's points in [from, to) of their median CPI, and the
 * largest spread (p95 - p05) among them. */
static double edge_cpi(const gd_curve *c, size_t from, size_t to, double *spread)
{
    double v[64], w[64];
    size_t n = 0;
    *spread = 0;
    for (size_t i = from; i < to && n < 64; i++) {
        const gd_summary *s = gd_point_summary(&c->points[i], "victim_cpi");
        if (!s || !s->count)
            continue;
        w[n] = s->p95 - s->p05;
        v[n++] = s->median;
    }
    /* the points' typical spread, not the largest: under a randomly
     * replacing L0I the second smallest attacker already disturbs the
     * victim's passes (generated seed 1008: CPI 1.0 to 4.2 within one point,
     * while the median stayed at 1.04), and the largest spread then hid an
     * interference of 3.6x */
    if (n)
        *spread = gd_median(w, n);
    return n ? gd_median(v, n) : NAN;
}

int gd_infer_icache_av(gd_inference *inf, const gd_curve *curve, gd_inferred_name level,
                       int subpartitions, gd_err *err)
{
    int place = gd_placement_from_name(curve->opts.variant);
    if (place < 0)
        return gd_fail(err, "%s: unknown placement '%s'", curve->label, curve->opts.variant);
    if (curve->count < 2)
        return gd_fail(err, "%s: an attacker-victim sweep needs at least two attacker sizes",
                       curve->label);
    size_t edge = (size_t)ceil(curve->count * EDGE_FRACTION);
    double s_lo, s_hi;
    double lo = edge_cpi(curve, 0, edge, &s_lo);
    double hi = edge_cpi(curve, curve->count - edge, curve->count, &s_hi);
    if (!(lo > 0) || isnan(hi))
        return gd_fail(err, "%s: no victim CPI measured", curve->label);
    /* did the two warps run at the same time, where the placement says?  On a
     * GPU the CTAs go where the hardware puts them: a point whose warps did not
     * land as the placement asks (%smid, and %warpid mod the sub-partitions)
     * does not count */
    size_t overlapped = 0, misplaced = 0;
    for (size_t i = 0; i < curve->count; i++) {
        const gd_point *pt = &curve->points[i];
        const gd_summary *o = gd_point_summary(pt, "overlap");
        const gd_summary *vs = gd_point_summary(pt, "victim_sm"),
                         *as = gd_point_summary(pt, "attacker_sm");
        const gd_summary *vw = gd_point_summary(pt, "victim_warp"),
                         *aw = gd_point_summary(pt, "attacker_warp");
        int ok = 1;
        int wants_other_sm = place == GD_PLACE_OTHER_SM || place == GD_PLACE_DATA_OTHER_SM;
        int wants_same_sub = place == GD_PLACE_SAME_SUB || place == GD_PLACE_SAME_SUB_ISSUE;
        if (vs && as) {
            int same_sm = vs->median == as->median;
            ok = wants_other_sm ? !same_sm : same_sm;
            if (ok && !wants_other_sm && vw && aw && subpartitions > 0) {
                int same_sub = (long)vw->median % subpartitions == (long)aw->median % subpartitions;
                ok = wants_same_sub ? same_sub : !same_sub;
            }
        }
        misplaced += !ok;
        overlapped += ok && o && o->mean > 0.5;
    }
    gd_interference *r = &inf->av[level][place];
    r->measured = 1;
    r->ratio = hi / lo;
    r->victim_cpi_small = lo;
    r->victim_cpi_large = hi;
    r->victim_spread = s_lo;
    r->against_control = 0;
    /* beyond the victim's own pass-to-pass spread without a real attacker
     * (with one, passes differ by how the two warps happened to interleave) */
    (void)s_hi;
    r->interferes = r->ratio >= INTERFERENCE_RATIO && hi - lo > s_lo;
    /* confident when the decision is far from the threshold and the warps overlapped */
    double margin = fabs(log(r->ratio) - log(INTERFERENCE_RATIO)) / log(INTERFERENCE_RATIO);
    r->overlap_fraction = (double)overlapped / (double)curve->count;
    r->confidence = (margin > 1 ? 1 : margin) * r->overlap_fraction;
    if (misplaced * 2 > curve->count) {
        r->measured = 0; /* the hardware put most pairs elsewhere: no answer */
        return 0;
    }
    snprintf(r->from, sizeof r->from, "%s", curve->label);
    inf->level[level].present = 1;
    return 0;
}

static void set_scope(gd_inferred_level *l, gd_scope scope, const gd_interference *a,
                      const gd_interference *b)
{
    l->present = 1;
    l->has_scope = 1;
    l->scope = scope;
    double c = a->confidence;
    if (b && b->measured && b->confidence < c)
        c = b->confidence;
    l->scope_confidence = c;
    snprintf(l->scope_from, sizeof l->scope_from, "%s%s%s", a->from, b && b->measured ? "+" : "",
             b && b->measured ? b->from : "");
}

/* same_sub against its control (see the top of the file): the victim's CPI
 * with the largest attackers over the control victim's. */
static void judge_against_control(gd_interference *same, const gd_interference *control)
{
    if (!same->measured || !control->measured || !(control->victim_cpi_large > 0) ||
        !(same->victim_cpi_large > 0))
        return;
    double spread = same->victim_spread > control->victim_spread ? same->victim_spread
                                                                  : control->victim_spread;
    same->ratio = same->victim_cpi_large / control->victim_cpi_large;
    same->interferes = same->ratio >= INTERFERENCE_RATIO &&
                       same->victim_cpi_large - control->victim_cpi_large > spread;
    /* far from the threshold, and both pairs' warps overlapped */
    double margin = fabs(log(same->ratio) - log(INTERFERENCE_RATIO)) / log(INTERFERENCE_RATIO);
    double overlap = same->overlap_fraction < control->overlap_fraction
                         ? same->overlap_fraction
                         : control->overlap_fraction;
    same->confidence = (margin > 1 ? 1 : margin) * overlap;
    same->against_control = 1;
}

void gd_inference_finish(gd_inference *inf)
{
    for (int id = 0; id < GD_INF_COUNT; id++)
        judge_against_control(&inf->av[id][GD_PLACE_SAME_SUB], &inf->av[id][GD_PLACE_SAME_SUB_ISSUE]);
    for (int id = 0; id < GD_INF_COUNT; id++) {
        const gd_interference *t = inf->av[id];
        const gd_interference *sm = &t[GD_PLACE_OTHER_SM], *dsm = &t[GD_PLACE_DATA_OTHER_SM];
        const gd_interference *sub = &t[GD_PLACE_OTHER_SUB], *same = &t[GD_PLACE_SAME_SUB];
        gd_inferred_level *l = &inf->level[id];
        if ((sm->measured && sm->interferes) || (dsm->measured && dsm->interferes))
            set_scope(l, GD_SCOPE_CHIP, sm->measured && sm->interferes ? sm : dsm, NULL);
        else if (sub->measured && sub->interferes)
            set_scope(l, GD_SCOPE_SM, sub, sm);
        else if (same->measured && same->interferes)
            set_scope(l, GD_SCOPE_SUBPARTITION, same, sub->measured ? sub : sm);
    }
    /* a level in another's storage has that one's capacity */
    for (int id = 0; id < GD_INF_COUNT; id++) {
        gd_inferred_level *l = &inf->level[id];
        if (!l->has_shared_with || l->shared_with < 0)
            continue;
        const gd_inferred_level *o = &inf->level[l->shared_with];
        if (o->has_size && !o->size_is_lower_bound &&
            (!l->has_size || l->size_is_lower_bound)) {
            l->has_size = 1;
            l->size_is_lower_bound = 0;
            l->size_bytes = o->size_bytes;
            l->size_confidence = o->size_confidence < l->shared_confidence ? o->size_confidence
                                                                           : l->shared_confidence;
            l->knee_below = o->knee_below;
            l->knee_above = o->knee_above;
            memcpy(l->size_from, o->size_from, sizeof l->size_from);
        }
        if (o->has_scope && !l->has_scope) {
            l->has_scope = 1;
            l->scope = o->scope;
            l->scope_confidence = o->scope_confidence < l->shared_confidence
                                      ? o->scope_confidence
                                      : l->shared_confidence;
            memcpy(l->scope_from, o->scope_from, sizeof l->scope_from);
        }
    }
}
