/* infer_l1.c -- the L1's associativity and replacement policy, its MSHRs and
 * merge limit, and whether a reservation-failed miss blocks the requests behind
 * it.
 *
 * pchase_fine ways: hits while the chain fits one set, misses from ways + 1 on:
 * the first knee is the associativity -- the last point before it whose mean is
 * still on the hit plateau (random replacement misses only a few accesses a
 * lap at ways + 1, which the median does not show).
 *
 * pchase_fine policy: the lap is A0..A(W-1), A0, AW, A0, A1 in one set (see
 * kernels/pchase_fine.c).  LRU and FIFO are simulated on that sequence, lap
 * after lap from an empty set, and give a fixed hit/miss pattern per lap; the
 * measured trace ("recent_cycles", in order) is cut into laps, each access
 * called a hit when it is in the lowest cluster of latencies (below the first
 * wide gap above the fastest access: misses may come from two levels, and
 * noise outliers of hundreds of cycles are a cluster of their own).
 * Noise flips single accesses, so the verdict is a vote: each access's
 * majority over the laps gives the consensus lap; a consensus equal to LRU's
 * pattern, with at least 90% of all (lap, access) cells agreeing -> LRU;
 * likewise FIFO (the single re-reference of A0 before AW tells them apart:
 * LRU renews A0 and evicts A1, FIFO evicts A0); otherwise random.  The
 * confidence is the share of cells that follow the verdict's pattern (for
 * random: the share that follows neither).
 *
 * mshr and resv_stall: completion times grow by a cycle or two per request
 * issued, and jump when a request must wait for a fill -- so these curves are
 * ramps with a step, not plateaus, and the step is found directly
 * (analysis/steps.c: the first rise beyond the curve's own typical slope).
 *
 * mshr: the follower (a miss issued behind n misses, or behind K requests to
 * one line) jumps from n = MSHR entries on (it is the miss that finds none
 * free) and from K = merge limit + 1 on.  Without a jump no limit was reached:
 * one SM cannot keep more misses in flight than it issues within a round trip
 * (one request per cycle), so the count is only bounded from below: by the
 * requests issued within the probe's measured MSHR hold time less the
 * smallest step the curve can show, or by the largest n where that is smaller.
 *
 * resv_stall: A's completion jumps from k = ways + 1 on (a second view of the
 * associativity); B, the independent miss issued behind A in the next
 * instruction, is held up (next_instruction_blocked) if its completion jumps
 * by at least half of A's jump at the same point.  Where A never jumps -- the
 * first fill returns before one warp has issued `ways` requests to the set (an
 * L1 with more ways than a DRAM round trip has cycles) -- no reservation fail
 * happened and the question stays open.  The merge limit, seen through the
 * follower (a later instruction too), is left open on an L1 whose next
 * instruction resv_stall showed not to wait.
 *
 * resv_stall --variant hol (head_of_line_blocking: within one instruction):
 * the jump J = A - A_clean when the last instruction's first line is refused,
 * against what the kernel's own round trips predict (kernels/resv_stall.c):
 * blocked, J ~ D - h - T (the requests behind the refused one wait for the
 * first fill, then make their own round trip); not blocked, J ~ max(0, s - h
 * - T) (they leave at once; the refused one is an L2 hit after the first
 * fill), with D, s, h the DRAM, L2 and L1 round trips and T = A_clean - D the
 * issue time.  J at or above the midpoint means blocked.  Where the two
 * predictions lie closer than HOL_MIN_SEPARATION_CYCLES -- T >= D: the first
 * fill is back before anything is refused -- the question stays open.
 */
#include "analysis/curve.h"
#include "analysis/infer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/run_load.h"
#include "analysis/stats.h"
#include "analysis/steps.h"

#define BLOCKED_SHARE 0.5     /* B's jump / A's jump that means "held up" */
#define WINDOW_MARGIN_CYCLES 8.0 /* measured window minus a miss's MSHR hold, at most */
/* the blocked and free predictions of resv_stall --variant hol must differ by
 * this much for the jump to tell them apart: two medians' worth of the few
 * cycles a card's timer and issue jitter move one (sim: 0) */
#define HOL_MIN_SEPARATION_CYCLES 16.0
/* gd_infer_fine_ways: a point whose mean stands this share of the next
 * climb's rise per line above the plateau already misses */
#define WAYS_RISE_LINE_SHARE 0.25

/* The line through the means of points i and i + 1, both above `base` and
 * climbing, extrapolated back to `base`: *zero is where it crosses, to the
 * nearest line count; 0 where the points do not climb. */
static int climb_back_to(const gd_curve *curve, size_t i, double base, double *zero)
{
    const gd_summary *m1 = gd_point_summary(&curve->points[i], "cycles");
    const gd_summary *m2 = gd_point_summary(&curve->points[i + 1], "cycles");
    if (!m1 || !m2 || !m1->count || !m2->count || !(m2->mean > m1->mean) || !(m1->mean > base))
        return 0;
    double x1 = (double)curve->points[i].x, x2 = (double)curve->points[i + 1].x;
    *zero = round(x1 - (m1->mean - base) * (x2 - x1) / (m2->mean - m1->mean));
    return 1;
}

/* The level a fine-grained chase looks at: the L1D (pchase_fine), the L1C
 * (const_fine). */
static gd_inferred_level *fine_level(gd_inference *inf, const gd_curve *curve)
{
    int constant = curve->probe && !strcmp(gd_probe_describe(curve->probe).name, "const_fine");
    return &inf->level[constant ? GD_INF_L1C : GD_INF_L1D];
}

int gd_infer_fine_ways(gd_inference *inf, const gd_curve *curve, const gd_segmentation *seg,
                       gd_err *err)
{
    /* no knee, but the chain leaves the first plateau for good (misses that
     * go to a random L1.5 and to the L2 by turns form no second plateau:
     * generated seed 1058, whose 64-way L1C read ">= 256"): its last point
     * is the knee's lower side */
    size_t off = 0;
    int leaves = seg->knee_count == 0 && gd_curve_leaves_first_plateau(curve, "cycles", seg, &off);
    if (seg->knee_count == 0 && !leaves) {
        /* the constant bank bounds the chain (64 KiB / 64-byte lines): an L1C
         * whose set outgrows the sweep hits throughout, and the last point is a
         * lower bound on its ways, kept as one */
        gd_inferred_level *l = fine_level(inf, curve);
        if (l == &inf->level[GD_INF_L1C] && curve->count &&
            (!l->has_ways || l->ways_is_lower_bound)) {
            uint32_t bound = (uint32_t)curve->points[curve->count - 1].x;
            if (!l->has_ways || bound > l->ways) {
                l->present = 1;
                l->has_ways = 1;
                l->ways_is_lower_bound = 1;
                l->ways = bound;
                l->ways_confidence = 1.0;
                snprintf(l->ways_from, sizeof l->ways_from, "%s", curve->label);
            }
            return 0;
        }
        return gd_fail(err, "%s: no knee in the one-set chase: sweep past the associativity",
                       curve->label);
    }
    /* under random replacement a chain of ways + 1 lines misses only a few
     * accesses a lap: the median stays on the hit plateau and the knee came a
     * point late (128 ways read as 129: seeds 1006, 1010), while the mean has
     * already risen.  Walk back from the knee while a point's mean lies
     * significantly above the plateau's (gd_curve_mean_rise); an adaptive
     * sweep bisects there too (the probe's mean_rise_knee). */
    double base;
    size_t below = leaves ? off : seg->knees[0].below;
    double knee_confidence = leaves ? 0.5 * seg->plateaus[0].confidence : seg->knees[0].confidence;
    size_t at = gd_curve_mean_rise_from(curve, "cycles", &seg->plateaus[0], below, &base);
    /* a sweep that did not bisect between the last clean point and the first
     * that misses (a uniform or hand-made one; adaptive sweeps bisected only
     * where the median moves until generated seed 3016's random 56-way L1D
     * had points at 45 and 58 only, and read 45):
     * there the mean's rise through the first two points that miss is
     * extrapolated back to the plateau, within the gap */
    double ways = (double)curve->points[at].x, zero;
    if (!isnan(base) && at + 2 < curve->count &&
        curve->points[at + 1].x > curve->points[at].x + 1 &&
        climb_back_to(curve, at + 1, base, &zero) && zero > ways &&
        zero < (double)curve->points[at + 1].x)
        ways = zero;
    /* and where the walk stopped on a point above the plateau's mean, though
     * by less than GD_MEAN_RISE_SE of its standard errors (a noisy run's
     * outliers widen them), with the two points after it climbing: the line
     * through those two, extrapolated back to the plateau, crosses it
     * between the point before and this one -- this one already misses
     * (generated seed 8103: a random 256-way L1D under noise, means 30.7 on
     * the plateau, 32.8 / 35.9 / 38.3 at 257 / 258 / 259 lines; the walk
     * stopped at 257, which was read as the ways; the line crosses at 255.9) */
    if (!isnan(base) && at > 0 && at + 2 < curve->count && ways == (double)curve->points[at].x) {
        /* ... where this point's rise is a line's share of that climb: at
         * least a quarter of its slope per line, and one of its own standard
         * errors (a 4-way set one line over misses most of a lap: 1001's
         * 4-way L1D, 30.6 at 4 lines and 86 at 5, must not read 3 where its
         * 4 stands a hundredth of a cycle above the plateau by noise) */
        const gd_summary *m0 = gd_point_summary(&curve->points[at], "cycles");
        const gd_summary *m1 = gd_point_summary(&curve->points[at + 1], "cycles");
        double x0 = (double)curve->points[at].x, x1 = (double)curve->points[at + 1].x;
        if (m0 && m1 && m0->count && m1->count && m1->mean > m0->mean &&
            m0->mean - base >= fmax(WAYS_RISE_LINE_SHARE * (m1->mean - m0->mean) / (x1 - x0),
                                    m0->stddev / sqrt((double)m0->count)) &&
            climb_back_to(curve, at + 1, base, &zero) &&
            zero >= (double)curve->points[at - 1].x && zero < ways)
            ways = zero;
    }
    gd_inferred_level *l = fine_level(inf, curve);
    l->present = 1;
    l->has_ways = 1;
    l->ways_is_lower_bound = 0;
    l->ways = (uint32_t)ways;
    l->ways_confidence = knee_confidence;
    snprintf(l->ways_from, sizeof l->ways_from, "%s", curve->label);
    return 0;
}

/* Hit (1) / miss (0) of each access of one lap, lap after lap from an empty
 * set of `ways` ways; returns the last lap's pattern in `hit`. */
static void simulate_policy(int fifo, uint32_t ways, const uint32_t *seq, size_t n, int *hit)
{
    uint32_t *line = malloc(ways * sizeof *line);
    uint64_t *stamp = malloc(ways * sizeof *stamp);
    if (!line || !stamp) {
        free(line);
        free(stamp);
        memset(hit, 0, n * sizeof *hit);
        return;
    }
    uint32_t used = 0;
    uint64_t t = 0;
    for (int lap = 0; lap < 4; lap++) {
        for (size_t i = 0; i < n; i++, t++) {
            uint32_t w;
            for (w = 0; w < used && line[w] != seq[i]; w++)
                ;
            hit[i] = w < used;
            if (hit[i]) {
                if (!fifo)
                    stamp[w] = t; /* LRU: a hit renews; FIFO: only the fill counts */
                continue;
            }
            if (used < ways) {
                w = used++;
            } else {
                w = 0;
                for (uint32_t v = 1; v < ways; v++)
                    if (stamp[v] < stamp[w])
                        w = v;
            }
            line[w] = seq[i];
            stamp[w] = t;
        }
    }
    free(line);
    free(stamp);
}

/* Two-means split of the sorted samples s[0..n-1]: the index of the first
 * sample of the upper group (n when all are equal). */
static size_t two_means_split(const double *s, size_t n)
{
    double best = -1, total = 0, left = 0;
    size_t at = n;
    for (size_t i = 0; i < n; i++)
        total += s[i];
    for (size_t k = 1; k < n; k++) {
        left += s[k - 1];
        if (s[k] == s[k - 1])
            continue;
        double ml = left / (double)k, mr = (total - left) / (double)(n - k);
        double between = (double)k * (double)(n - k) * (ml - mr) * (ml - mr);
        if (between > best) {
            best = between;
            at = k;
        }
    }
    return at;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The latency that parts hits from misses: the top of the lowest cluster of
 * the trace -- the first gap in the sorted latencies wider than HIT_GAP_CYCLES
 * and HIT_GAP_SHARE of the fastest access.  Hits are the fastest accesses
 * (every lap of LRU and FIFO has one; noise only adds), and the misses need
 * not be one cluster: a chain whose lines come partly from the L2 and partly
 * from DRAM has two miss levels, and a two-means split parted the L2 misses
 * from the DRAM ones (a noiseless FIFO L1 called random: seed 1011); noise
 * outliers of hundreds of cycles on 0.1-0.5% of the accesses are split from
 * the rest the same way.  Without such a gap, the two-means split. */
#define HIT_GAP_CYCLES 8.0
#define HIT_GAP_SHARE 0.2
static double hit_threshold(const double *v, size_t n)
{
    double *s = malloc(n * sizeof *s);
    if (!s)
        return NAN;
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    double gap = fmax(HIT_GAP_CYCLES, HIT_GAP_SHARE * s[0]), thr = NAN;
    for (size_t i = 1; i < n && isnan(thr); i++)
        if (s[i] - s[i - 1] > gap)
            thr = (s[i - 1] + s[i]) / 2;
    if (isnan(thr)) {
        size_t at = two_means_split(s, n);
        thr = at < n ? (s[at - 1] + s[at]) / 2 : s[n - 1];
    }
    free(s);
    return thr;
}

/* LRU or FIFO: the laps' consensus, access by access, is the policy's pattern
 * and at least this share of all (lap, access) cells follow it */
#define POLICY_AGREEMENT 0.9 /* cells that must follow LRU's or FIFO's pattern */

int gd_infer_fine_policy(gd_inference *inf, const gd_curve *curve, gd_err *err)
{
    if (curve->count == 0)
        return gd_fail(err, "%s: no point measured", curve->label);
    const gd_point *pt = &curve->points[curve->count - 1];
    uint32_t ways = (uint32_t)pt->x;
    int k = gd_point_series_index(pt, "recent_cycles");
    if (k < 0 || !pt->series[k].samples)
        return gd_fail(err, "%s: the policy test needs the in-order trace (recent_cycles) of a "
                            "live run",
                       curve->label);
    const double *trace = pt->series[k].samples;
    size_t r = pt->series[k].summary.count, n = (size_t)ways + 4;
    if (r < 2 * n)
        return gd_fail(err, "%s: the trace of %zu accesses holds fewer than two laps of %zu: "
                            "raise --samples",
                       curve->label, r, n);
    uint32_t *seq = malloc(n * sizeof *seq);
    int *lru = malloc(n * sizeof *lru), *fifo = malloc(n * sizeof *fifo);
    size_t *hits = calloc(n, sizeof *hits);
    if (!seq || !lru || !fifo || !hits) {
        free(seq), free(lru), free(fifo), free(hits);
        return gd_fail(err, "out of memory");
    }
    for (uint32_t i = 0; i < ways; i++)
        seq[i] = i;
    seq[ways] = 0;
    seq[ways + 1] = ways;
    seq[ways + 2] = 0;
    seq[ways + 3] = 1;
    simulate_policy(0, ways, seq, n, lru);
    simulate_policy(1, ways, seq, n, fifo);
    double thr = hit_threshold(trace, r);
    if (isnan(thr)) {
        free(seq), free(lru), free(fifo), free(hits);
        return gd_fail(err, "out of memory");
    }
    /* trace[i] is the access at lap position (i + p0) mod n: the last access of
     * the timed laps is position n - 1 */
    size_t p0 = (n - r % n) % n, laps = 0, cells_lru = 0, cells_fifo = 0;
    size_t i = (n - p0) % n; /* the first sample at position 0 */
    for (; i + n <= r; i += n, laps++)
        for (size_t j = 0; j < n; j++) {
            int hit = trace[i + j] <= thr;
            hits[j] += (size_t)hit;
            cells_lru += hit == lru[j];
            cells_fifo += hit == fifo[j];
        }
    /* the consensus of the laps, access by access: noise (an outlier on a hit)
     * flips single accesses, never the majority; a deterministic policy repeats
     * its pattern lap after lap, random replacement does not */
    int is_lru = 1, is_fifo = 1;
    for (size_t j = 0; j < n; j++) {
        int major = 2 * hits[j] > laps;
        is_lru &= major == lru[j];
        is_fifo &= major == fifo[j];
    }
    double cells = (double)(laps * n), agree_lru = (double)cells_lru / cells,
           agree_fifo = (double)cells_fifo / cells;
    gd_inferred_level *l = fine_level(inf, curve);
    l->present = 1;
    l->has_replacement = 1;
    l->replacement_lru_or_fifo = 0;
    if (is_lru && agree_lru >= POLICY_AGREEMENT) {
        l->replacement = GD_REPL_LRU;
        l->replacement_confidence = agree_lru;
    } else if (is_fifo && agree_fifo >= POLICY_AGREEMENT) {
        l->replacement = GD_REPL_FIFO;
        l->replacement_confidence = agree_fifo;
    } else {
        /* random: the laps follow neither pattern, access by access */
        l->replacement = GD_REPL_RANDOM;
        l->replacement_confidence = 1.0 - fmax(agree_lru, agree_fifo);
    }
    snprintf(l->replacement_from, sizeof l->replacement_from, "%s", curve->label);
    free(seq), free(lru), free(fifo), free(hits);
    return 0;
}

/* The first step of `series` (analysis/steps.c): index of the point before it,
 * or -1. */
static long first_jump(const gd_curve *c, const char *series, double *jump, double *conf)
{
    gd_step step;
    if (gd_curve_steps(c, series, &step, 1) == 0)
        return -1;
    *jump = step.jump;
    *conf = step.confidence;
    return (long)step.below;
}

int gd_infer_mshr(gd_inference *inf, const gd_curve *curve, gd_err *err)
{
    (void)err;
    int merge = !strcmp(curve->opts.variant, "merge");
    gd_inferred_level *l = &inf->level[GD_INF_L1D];
    l->present = 1;
    /* the follower shows the merge limit only where a refused request holds up
     * the ones behind it: an L1 seen not to (resv_stall, run before) hides it */
    if (merge && l->has_next_blocked && !l->next_instruction_blocked)
        return 0;
    double jump = 0, conf = 0;
    long at = first_jump(curve, "follower_cycles", &jump, &conf);
    uint32_t value;
    int bound = at < 0;
    if (!bound) {
        /* entries: the follower is the (n+1)-th miss, held up from n = entries
         * on; merge: K requests fit, the (K+1)-th is refused */
        value = (uint32_t)(merge ? curve->points[at].x : curve->points[at + 1].x);
    } else {
        /* no limit reached.  A miss holds its MSHR for about the window W
         * the probe measures (miss minus replayed hit), and the requests
         * probe the tags `slope` cycles apart (one a cycle, plus the issue
         * bubble between instructions: the ramp's own slope).  A limit of N
         * entries makes the (N+1)-th request wait W - slope * N cycles, a
         * step the curve shows once it clears the step threshold; so the
         * entries are at least (W - threshold - margin) / slope, the margin
         * covering what W may exceed the hold by (the fill path's extra
         * pipeline cycles: 2 on the sim), and at least the largest point
         * where that is smaller.  The merge limit: at least the largest point. */
        double largest = curve->count ? (double)curve->points[curve->count - 1].x : 0;
        const gd_summary *w =
            curve->count ? gd_point_summary(&curve->points[0], "window_cycles") : NULL;
        double slope = fmax(1.0, gd_curve_slope(curve, "follower_cycles"));
        double seen = w && w->count
                          ? (w->median - gd_curve_step_threshold(curve, "follower_cycles") -
                             WINDOW_MARGIN_CYCLES) / slope
                          : 0;
        if (seen < 0)
            seen = 0;
        value = (uint32_t)(merge || seen > largest ? largest : seen);
        conf = 0.5;
    }
    if (merge) {
        l->has_mshr_merge = 1;
        l->mshr_merge = value;
        l->mshr_merge_is_lower_bound = bound;
        l->mshr_merge_confidence = conf;
        snprintf(l->mshr_merge_from, sizeof l->mshr_merge_from, "%s", curve->label);
    } else {
        l->has_mshr = 1;
        l->mshr_entries = value;
        l->mshr_is_lower_bound = bound;
        l->mshr_confidence = conf;
        snprintf(l->mshr_from, sizeof l->mshr_from, "%s", curve->label);
    }
    return 0;
}

/* resv_stall --variant hol: the point whose reservers are the ways (where
 * measured; else the first), its jump against the two predictions. */
static int infer_hol(gd_inference *inf, const gd_curve *curve)
{
    gd_inferred_level *l = &inf->level[GD_INF_L1D];
    if (!curve->count)
        return 0;
    const gd_point *pt = &curve->points[0];
    for (size_t i = 0; l->has_ways && i < curve->count; i++)
        if (curve->points[i].x == l->ways)
            pt = &curve->points[i];
    const gd_summary *a = gd_point_summary(pt, "a_cycles"),
                     *clean = gd_point_summary(pt, "a_clean_cycles"),
                     *dram = gd_point_summary(pt, "dram_cycles"),
                     *l2 = gd_point_summary(pt, "l2_cycles"), *l1 = gd_point_summary(pt, "l1_cycles");
    if (!a || !clean || !dram || !l2 || !l1 || !a->count || !clean->count)
        return 0;
    double issue = clean->median - dram->median;
    double blocked = dram->median - l1->median - issue;
    double free_jump = fmax(0.0, l2->median - l1->median - issue);
    l->present = 1;
    if (blocked - free_jump < HOL_MIN_SEPARATION_CYCLES)
        return 0; /* the first fill is back before the refusal: nothing to tell */
    double jump = a->median - clean->median, mid = (blocked + free_jump) / 2;
    l->has_hol = 1;
    l->head_of_line_blocking = jump >= mid;
    l->hol_confidence = fmin(1.0, fabs(jump - mid) / ((blocked - free_jump) / 2));
    snprintf(l->hol_from, sizeof l->hol_from, "%s", curve->label);
    return 0;
}

int gd_infer_resv_stall(gd_inference *inf, const gd_curve *curve, gd_err *err)
{
    (void)err;
    if (!strcmp(curve->opts.variant, "hol"))
        return infer_hol(inf, curve);
    double ajump = 0, aconf = 0;
    long at = first_jump(curve, "a_cycles", &ajump, &aconf);
    if (at < 0)
        return 0; /* no reservation fail: a set's ways outlast a round trip of issue */
    const gd_summary *b0 = gd_point_summary(&curve->points[at], "b_cycles");
    const gd_summary *b1 = gd_point_summary(&curve->points[at + 1], "b_cycles");
    gd_inferred_level *l = &inf->level[GD_INF_L1D];
    l->present = 1;
    if (b0 && b1) {
        double share = (b1->median - b0->median) / ajump;
        l->has_next_blocked = 1;
        l->next_instruction_blocked = share >= BLOCKED_SHARE;
        l->next_blocked_confidence =
            aconf * fmin(1.0, fabs(share - BLOCKED_SHARE) / BLOCKED_SHARE);
        snprintf(l->next_blocked_from, sizeof l->next_blocked_from, "%s", curve->label);
    }
    /* A's knee: the associativity again, where the one-set chase did not say */
    if (!l->has_ways) {
        l->has_ways = 1;
        l->ways = (uint32_t)curve->points[at].x;
        l->ways_confidence = aconf;
        snprintf(l->ways_from, sizeof l->ways_from, "%s", curve->label);
    }
    return 0;
}
