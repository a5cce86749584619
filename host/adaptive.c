/* adaptive.c -- adaptive sweeps: a coarse sweep, then bisection at every knee.
 *
 * A uniform sweep that pins a 64 KiB L1 and a 4 MiB L2 to one 32-byte stride
 * needs over a hundred thousand points; the curve is flat almost everywhere.
 * Here a coarse geometric sweep finds the plateaus (analysis/plateau.c), and each
 * knee's bracket [last point on the plateau, first point off it) is halved by
 * measuring its midpoint, snapped to the resolution, until it is one resolution
 * step wide.  Every round re-segments the whole curve, so a midpoint that turns
 * out to be a transition (part hits, part misses) simply becomes the new upper
 * end of the bracket.  Cost: the coarse points plus about log2(bracket /
 * resolution) points per knee.
 *
 * A level whose plateau the coarse sweep hit only once is no plateau to the
 * segmentation, so the knee after it is no bracket: an L1I of 46 KiB beside a
 * 32 KiB L0I held one coarse point (41 KiB) between the L0 and the L2 levels,
 * the 41 -> 52 KiB jump was never halved and the L1I went unseen (issue 17,
 * generated seeds 1005, 1010 and 1018).  So every round also halves each gap
 * between neighbouring points, wider than the resolution and outside the
 * knees' brackets, whose medians differ by half the curve's range or more, or
 * by a quarter when the gap's first point also stands a tenth of the range
 * apart from the point before it (a level hit once) -- and by a tenth of the
 * lower median either way, never noise on a flat curve.  The quarter alone
 * would also halve the steep end of a gradual climb (an L2 ramping into DRAM:
 * seed 1011, whose extra points then hid its L1I).  Nor is a jump between two
 * points that each hold both levels (the mean far from the median) a level hit
 * once: it is where a ramp's median crosses over, half the accesses missing --
 * an LRU L2 halfway up its ways' worth of lines past its size, a random one
 * anywhere -- and its bisection, to one line at the L2's footprint, was 14 of
 * the ld.cg chase's 51 points (and half its time) on a 64 MiB L2 (issue 17's
 * cost).  (One clean end is a knee's: seed 1006's L1D of half its L2 has its
 * only bracket from the clean 128 KiB to a mixed 256 KiB.)  And where a round
 * finds no bracket at all though the curve leaves its first plateau for good
 * (gd_curve_leaves_first_plateau), the gap where it leaves is bisected: a
 * random L1D over a random L2 of under 3x it (seed 9932: 96 KiB over 256 KiB)
 * climbs on mixed points from the L1's plateau to DRAM, no knee and no jump
 * to the rules above, and its L1D went unmeasured.
 *
 * A pointer chase's knee (the probe's linear_knees) whose bracket has three
 * points low on the ramp above it, on one line in the extra cycles of a lap,
 * is closed where that line reaches zero instead of halved: an LRU or FIFO
 * cache's misses grow by a set's worth for each line over its capacity, so
 * the line is exact -- two points, one round, where halving a 64 MiB L2's
 * bracket took a round a point (secant_points).
 *
 * A ramp whose analysis reads only its first step (the probe's
 * first_step_only: mshr, resv_stall) has only that step bisected: each of
 * their points first evicts the L2, and the later steps of the merge limit's
 * staircase took 35 of l1-merge's 51 points on a 40 MiB L2 (issue 17's cost).
 * And a sweep whose knees past some size are another step's to pin (a suite's
 * --refine-below: the chase through the L1, whose L2 knee the ld.cg chase
 * pins) bisects only the brackets that start below it -- at a 32-byte L1
 * line, the L2 knees of a 40 MiB L2 took 33 points of 1.3 M accesses each --
 * and the curve's first knee wherever it starts: an L1D of half its L2 or more
 * (generated seeds 1006 and 1055: 128 KiB under 256 KiB) has its knee's bracket
 * start at L2/2, and was left unmeasured, with every step sized from it.
 *
 * A probe whose points share a launch (kernels/probe.h batch_max: mshr,
 * resv_stall, whose every launch first evicts the L2) has each bracket cut
 * in up to ADAPTIVE_MAX_PARTS parts a round rather than halved: the round's
 * points are one launch and one eviction pass (host/sweep_workers.c), and a
 * bracket of 1024 closes in 4 rounds, not 10.  On a 60 MiB L2 (generated
 * seed 1195) l1-mshr, l1-merge and l1-resv took 13-16 s of CPU each, now
 * 3-4 s, with the same knees (issue 17's cost).
 *
 * A curve whose analysis reads where the mean first rises (the probe's
 * mean_rise_knee: pchase_fine, whose random-policy L1 misses a few accesses a
 * lap one line past its ways, while the median moves only forty lines later)
 * also has that bracket bisected: generated seed 1181's random 96-way L1D had
 * points at 77 and 101 only there, and the mean's rise extrapolated back read 95.
 */
#include "host/adaptive.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/plateau.h"
#include "analysis/steps.h"

#define ADAPTIVE_JUMP_OF_RANGE 0.5  /* a jump between neighbours: of max - min ... */
#define ADAPTIVE_JUMP_OF_LOWER 0.10 /* ... and of the lower median */
/* or a smaller jump after a point that also stands apart from the point
 * before it: a level the coarse sweep hit once */
#define ADAPTIVE_LONE_JUMP_OF_RANGE 0.25
#define ADAPTIVE_LONE_APART_OF_RANGE 0.10
/* but not a jump where both points' means stand this share of the jump from
 * their medians: points of mixed hits and misses on a ramp */
#define ADAPTIVE_MIXED_OF_JUMP 0.15
/* or a jump onto the sweep's last point with it, the point before the jump
 * and the one before that all within this share of the jump of each other's
 * level (means at medians): a level hit once at the end */
#define ADAPTIVE_LAST_FLAT_OF_JUMP 0.05
/* or a jump this many times steeper (per log of x) than the gap before it,
 * on converged code loops (the kink past a random L0I) */
#define ADAPTIVE_KINK_STEEPER 4.0
#define ADAPTIVE_KINK_OF_RANGE 0.1
/* a knee's ramp is extrapolated from points within this share of the step */
#define ADAPTIVE_SECANT_OF_STEP 0.6
/* ... on one line: their two slopes within this share of each other */
#define ADAPTIVE_SECANT_LINEAR 0.05


/* A bracket is cut in this many parts a round where the probe's points
 * share a launch (kernels/probe.h batch_max), at most ... */
#define ADAPTIVE_MAX_PARTS 8
#define ADAPTIVE_MAX_TODO (64 * ADAPTIVE_MAX_PARTS)

/* How many parts a round cuts a bracket in: 2 (halving), or for a probe
 * whose points share a launch -- each launch pays one eviction of the L2,
 * the points beside it little -- as many as fit one launch with the other
 * brackets' (up to ADAPTIVE_MAX_PARTS): a 1024-wide bracket then closes in 4
 * rounds, not 10. */
static unsigned batch_parts(const gd_runner *r, const gd_curve *curve)
{
    unsigned batch = r->one_launch_per_point ? 1 : gd_probe_batch_max(curve->probe, &curve->opts);
    if (batch < 2)
        return 2;
    unsigned parts = batch + 1;
    return parts > ADAPTIVE_MAX_PARTS ? ADAPTIVE_MAX_PARTS : parts;
}

static uint64_t snap_down(uint64_t v, uint64_t g)
{
    return v / g * g;
}

/* Appends to lows/highs (nb of them, at most cap) the gaps between neighbouring
 * points that hold a jump of the primary series (ADAPTIVE_JUMP_*) and lie
 * outside every bracket already there.  Returns the new count. */
static size_t add_jumps(const gd_curve *curve, uint64_t resolution, uint64_t *lows,
                        uint64_t *highs, size_t nb, size_t cap)
{
    const char *series = gd_probe_primary_series(curve->probe);
    double lo_m = 0, hi_m = 0;
    int any = 0;
    for (size_t i = 0; i < curve->count; i++) {
        const gd_summary *s = gd_point_summary(&curve->points[i], series);
        if (!s)
            return nb;
        if (!any || s->median < lo_m)
            lo_m = s->median;
        if (!any || s->median > hi_m)
            hi_m = s->median;
        any = 1;
    }
    double range = hi_m - lo_m;
    if (!any || !(range > 0))
        return nb;
    size_t known = nb;
    for (size_t i = 0; i + 1 < curve->count && nb < cap; i++) {
        uint64_t a = curve->points[i].x, b = curve->points[i + 1].x;
        if (b - a <= resolution)
            continue;
        const gd_summary *sa = gd_point_summary(&curve->points[i], series);
        const gd_summary *sb = gd_point_summary(&curve->points[i + 1], series);
        double ma = sa->median, mb = sb->median;
        double jump = ma > mb ? ma - mb : mb - ma, lower = ma < mb ? ma : mb;
        /* a point whose mean stands far from its median holds both levels: the
         * jump is a ramp's median crossing over (an L2 past its capacity, part
         * hits, part misses), not a level hit once */
        if (fabs(sa->mean - ma) > ADAPTIVE_MIXED_OF_JUMP * jump &&
            fabs(sb->mean - mb) > ADAPTIVE_MIXED_OF_JUMP * jump)
            continue;
        double apart = 0;
        if (i > 0) {
            double mp = gd_point_summary(&curve->points[i - 1], series)->median;
            apart = mp > ma ? mp - ma : ma - mp;
        }
        /* or a jump onto a point that stands apart from the point after it:
         * the level hit once is the upper one -- generated seed 1093's 256 KiB
         * L1D of half its random L2 read 35 cycles to 256 KiB, 212 at the
         * L2's 512 KiB and 415 past it: no second plateau, so no knee, and
         * its size went unmeasured */
        double after = 0;
        if (i > 0 && i + 2 < curve->count) {
            double mn = gd_point_summary(&curve->points[i + 2], series)->median;
            after = mn > mb ? mn - mb : mb - mn;
        }
        int lone = jump >= ADAPTIVE_LONE_JUMP_OF_RANGE * range &&
                   (apart >= ADAPTIVE_LONE_APART_OF_RANGE * range ||
                    after >= ADAPTIVE_LONE_APART_OF_RANGE * range);
        /* or the sweep's last point a level of its own, clean (its mean at its
         * median), after a flat run: the level past the last plateau, hit once
         * at the sweep's end -- generated seed 6014's 48 KiB L1.5 read 82
         * cycles to 48640 bytes and 99 (the L2's) at 64 KiB, a step of a
         * fifth of the curve's range over the L1's 18: no knee, a bound */
        int last = i + 2 == curve->count && i > 0 &&
                   apart <= ADAPTIVE_LAST_FLAT_OF_JUMP * jump &&
                   fabs(sb->mean - mb) <= ADAPTIVE_LAST_FLAT_OF_JUMP * jump &&
                   fabs(sa->mean - ma) <= ADAPTIVE_LAST_FLAT_OF_JUMP * jump;
        /* or, on code loops timed after many warm passes (icache_seq --warm:
         * run where an instruction cache replaces at random), a climb that
         * turns steep after a gentle one: past a random L0I its miss share
         * keeps climbing for several capacities, and the L1I's own knee is
         * where the gentle climb turns steep -- generated seed 1004's 32 KiB
         * L1I behind a random 12 KiB L0I read CPI 4.17, 4.56 at 26 and 32
         * KiB, then 7.75 (the L2's) at 41 KiB: no plateau of its own, no
         * knee, and no size */
        int kink = 0;
        if (curve->opts.warm_passes > 1 && i > 0 && jump >= ADAPTIVE_KINK_OF_RANGE * range) {
            double xp = (double)curve->points[i - 1].x;
            double mp = gd_point_summary(&curve->points[i - 1], series)->median;
            double here = jump / log((double)b / (double)a);
            double before = fabs(ma - mp) / log((double)a / xp);
            kink = here >= ADAPTIVE_KINK_STEEPER * before;
        }
        if ((jump < ADAPTIVE_JUMP_OF_RANGE * range && !lone && !last && !kink) ||
            jump < ADAPTIVE_JUMP_OF_LOWER * lower)
            continue;
        int inside = 0;
        for (size_t k = 0; k < known && !inside; k++)
            inside = a < highs[k] && b > lows[k];
        if (inside)
            continue;
        lows[nb] = a;
        highs[nb] = b;
        nb++;
    }
    return nb;
}

/* The knee bracket [lo, hi) of a ramp: where the extra cycles past the plateau
 * (the mean's excess over lo's, times the accesses: every miss's cost) of hi
 * and the point after it, both low on the ramp, extrapolate linearly to zero
 * -- snapped to the resolution, with the point one step past it.  An LRU or
 * FIFO cache's misses grow by the same count for each line past its capacity,
 * so the line is exact and the bracket closes in one round instead of a
 * bisection's one point a round (log2 of the bracket: 15 rounds of 64 MiB
 * chases on a 64 MiB L2); a convex ramp (random replacement) puts the zero a
 * little past the capacity, still inside the bracket.  Writes 0..2 points not
 * measured yet into out; 0 when the ramp cannot tell (then bisect). */
static size_t secant_points(const gd_curve *curve, const char *series, uint64_t lo, uint64_t hi,
                            double plateau_first, double lo_level, double next_level,
                            uint64_t resolution, uint64_t out[2])
{
    size_t i = 0;
    while (i < curve->count && curve->points[i].x != lo)
        i++;
    if (i + 3 >= curve->count || curve->points[i + 1].x != hi)
        return 0;
    const gd_summary *s0 = gd_point_summary(&curve->points[i], series);
    const gd_summary *s1 = gd_point_summary(&curve->points[i + 1], series);
    const gd_summary *s2 = gd_point_summary(&curve->points[i + 2], series);
    const gd_summary *s3 = gd_point_summary(&curve->points[i + 3], series);
    if (!s0 || !s1 || !s2 || !s3 || !(next_level > lo_level))
        return 0;
    /* three points low on the ramp, where the misses still grow in proportion */
    double low = lo_level + ADAPTIVE_SECANT_OF_STEP * (next_level - lo_level);
    if (!(s1->mean > s0->mean && s2->mean > s1->mean && s3->mean > s2->mean && s3->mean < low))
        return 0;
    /* the extra cycles of a lap: the mean's excess times the accesses, which
     * are the footprint over the stride */
    double x1 = (double)hi, x2 = (double)curve->points[i + 2].x;
    double x3 = (double)curve->points[i + 3].x;
    double e1 = (s1->mean - s0->mean) * x1;
    double e2 = (s2->mean - s0->mean) * x2;
    double e3 = (s3->mean - s0->mean) * x3;
    /* on one line (an LRU or FIFO cache's; a random one's ramp bends, and its
     * line through two points lands anywhere -- seed 1006's 128 KiB L1D read
     * 512 bytes late), over a baseline no shorter than half the way back to
     * lo (else the bracket is halved, which also restores the baseline) */
    if (!(e3 > e2 && e2 > e1 && e1 > 0) || x2 - x1 < (x1 - (double)lo) / 2)
        return 0;
    /* once a knee: two points one step apart on its plateau or above are an
     * earlier line's zero that missed -- on the ramp (one that bends where it
     * starts: an L2 whose slices fill unevenly, generated seed 1027) or on the
     * plateau (whose noisy points then raise the baseline, and each line's
     * zero crept a step past the last, a pair a round: 61 points for 50) */
    for (size_t j = 0; j < i + 3; j++)
        if ((double)curve->points[j].x >= plateau_first &&
            curve->points[j + 1].x - curve->points[j].x == resolution)
            return 0;
    double slope12 = (e2 - e1) / (x2 - x1), slope23 = (e3 - e2) / (x3 - x2);
    if (fabs(slope12 - slope23) > ADAPTIVE_SECANT_LINEAR * slope23)
        return 0;
    double z = x1 - e1 * (x2 - x1) / (e2 - e1);
    /* (a zero at lo itself, the last clean point: the ramp starts one step on) */
    if (!(z > (double)lo - (double)resolution / 2 && z < x1))
        return 0;
    uint64_t p = z > (double)lo ? snap_down((uint64_t)z, resolution) : lo;
    size_t n = 0;
    for (uint64_t q = p; q <= p + resolution; q += resolution)
        if (q > lo && q < hi && !gd_curve_find(curve, q))
            out[n++] = q;
    return n;
}

int gd_runner_adaptive(gd_runner *r, gd_curve *curve, const gd_sweep *coarse, uint64_t resolution,
                       gd_adaptive_stats *stats, gd_err *err)
{
    memset(stats, 0, sizeof *stats);
    if (!resolution)
        resolution = 1;
    if (gd_runner_sweep(r, curve, coarse, err) != 0)
        return -1;
    stats->coarse_points = coarse->count;
    size_t measured = coarse->count;
    unsigned parts = batch_parts(r, curve);
    for (int round = 0; round < GD_ADAPTIVE_MAX_ROUNDS; round++) {
        /* the brackets to halve: knees between plateaus, or the steps of a ramp */
        uint64_t lows[64], highs[64];
        double lo_levels[64], next_levels[64]; /* a segmentation knee's plateaus; NAN: none */
        double plateau_firsts[64];             /* where the plateau before the knee starts */
        size_t nb = 0, first_knee = SIZE_MAX;
        if (curve->probe->ramp_curve) {
            gd_step steps[64];
            size_t cap = curve->probe->first_step_only ? 1 : 64;
            /* (the count of every step: at most cap of them are written) */
            size_t ns = gd_curve_steps(curve, gd_probe_primary_series(curve->probe), steps, cap);
            for (size_t k = 0; k < ns && k < cap; k++, nb++) {
                lows[nb] = curve->points[steps[k].below].x;
                highs[nb] = curve->points[steps[k].above].x;
                lo_levels[nb] = next_levels[nb] = plateau_firsts[nb] = NAN;
            }
        } else {
            gd_segmentation seg;
            if (gd_curve_segment(curve, gd_probe_primary_series(curve->probe), &seg, err) != 0)
                return -1;
            for (size_t k = 0; k < seg.knee_count && nb < 64; k++, nb++) {
                lows[nb] = (uint64_t)seg.knees[k].x_below;
                highs[nb] = (uint64_t)seg.knees[k].x_above;
                lo_levels[nb] = curve->probe->linear_knees ? seg.plateaus[k].level : NAN;
                next_levels[nb] = seg.plateaus[k + 1].level;
                plateau_firsts[nb] = seg.plateaus[k].x_first;
            }
            /* where the mean first leaves the first plateau, when the
             * analysis reads that (a random L1's ways + 1) */
            /* (or where it leaves the first plateau with no second one: a
             * random L1.5 behind the L1C, gd_curve_leaves_first_plateau) */
            size_t off = 0;
            int for_good = gd_curve_leaves_first_plateau(
                curve, gd_probe_primary_series(curve->probe), &seg, &off);
            int leaves = curve->probe->mean_rise_knee && for_good;
            if (leaves && nb < 64) {
                lows[nb] = curve->points[off].x;
                highs[nb] = curve->points[off + 1].x;
                lo_levels[nb] = next_levels[nb] = plateau_firsts[nb] = NAN;
                nb++;
            }
            if (curve->probe->mean_rise_knee && (seg.knee_count > 0 || leaves) && nb < 64) {
                double base;
                size_t below = seg.knee_count > 0 ? seg.knees[0].below : off;
                size_t at = gd_curve_mean_rise_from(curve, gd_probe_primary_series(curve->probe),
                                                    &seg.plateaus[0], below, &base);
                if (at < below) {
                    lows[nb] = curve->points[at].x;
                    highs[nb] = curve->points[at + 1].x;
                    lo_levels[nb] = next_levels[nb] = plateau_firsts[nb] = NAN;
                    nb++;
                }
            }
            gd_segmentation_free(&seg);
            size_t knees = nb;
            nb = add_jumps(curve, resolution, lows, highs, nb, 64);
            for (size_t k = knees; k < nb; k++)
                lo_levels[k] = next_levels[k] = plateau_firsts[k] = NAN;
            /* a curve that leaves its first plateau for good where neither
             * a knee nor a jump is seen -- every point past it a mix of hits
             * and misses -- has that bracket bisected, and only then: a
             * random 96 KiB L1D over a random 256 KiB L2 chased through the
             * L1 (generated seed 9932) had medians of 29 cycles to 128 KiB,
             * then 197 and 437, no bracket, and its L1D size went unreported;
             * from that bracket the rounds reach the L1D's knee */
            if (nb == 0 && for_good && !curve->probe->mean_rise_knee) {
                lows[0] = curve->points[off].x;
                highs[0] = curve->points[off + 1].x;
                lo_levels[0] = next_levels[0] = plateau_firsts[0] = NAN;
                nb = 1;
            }
            /* the curve's first knee: a segmentation's, or a jump (a level
             * the coarse sweep hit once has no plateau to the segmentation) */
            for (size_t k = 0; k < nb; k++)
                if (first_knee == SIZE_MAX || lows[k] < lows[first_knee])
                    first_knee = k;
        }
        uint64_t todo[ADAPTIVE_MAX_TODO];
        size_t ntodo = 0;
        for (size_t k = 0; k < nb && ntodo < ADAPTIVE_MAX_TODO; k++) {
            uint64_t lo = lows[k], hi = highs[k];
            /* (the first bracket is refined wherever it lies: the L1's
             * knee, which may start at or past the L2's half) */
            if (hi - lo <= resolution ||
                (coarse->refine_below && lo >= coarse->refine_below && k != first_knee))
                continue;
            if (!isnan(lo_levels[k]) && ntodo + 2 <= ADAPTIVE_MAX_TODO) {
                size_t n = secant_points(curve, gd_probe_primary_series(curve->probe), lo, hi,
                                         plateau_firsts[k], lo_levels[k], next_levels[k],
                                         resolution, &todo[ntodo]);
                if (n) {
                    ntodo += n;
                    continue;
                }
            }
            /* halved, or, where points share a launch, cut in `parts` */
            uint64_t last = lo;
            for (unsigned part = 1; part < parts && ntodo < ADAPTIVE_MAX_TODO; part++) {
                uint64_t mid = snap_down(lo + (hi - lo) * part / parts, resolution);
                if (mid <= last)
                    mid = last + resolution;
                if (mid >= hi)
                    break;
                last = mid;
                if (!gd_curve_find(curve, mid))
                    todo[ntodo++] = mid;
            }
        }
        if (!ntodo)
            break;
        /* the round's midpoints are decided before any is measured: one batch,
         * in parallel on a sim device (host/sweep_workers.c), added in order */
        size_t room = measured < GD_ADAPTIVE_MAX_POINTS ? GD_ADAPTIVE_MAX_POINTS - measured : 0;
        size_t batch = ntodo < room ? ntodo : room;
        if (gd_runner_measure_batch(r, curve, todo, batch, measured, 0, err) != 0)
            return -1;
        measured += batch;
        stats->refine_points += batch;
        if (batch < ntodo)
            return gd_fail(err, "%s: adaptive sweep gave up after %d points", curve->label,
                           GD_ADAPTIVE_MAX_POINTS);
        stats->rounds = round + 1;
    }
    stats->points = measured;
    uint64_t from = coarse->points[0], to = coarse->points[coarse->count - 1];
    stats->uniform_points = (to - from) / resolution + 1;
    return 0;
}
