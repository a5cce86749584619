/* test_l2_policy.c -- the L2's replacement verdict and the random-replacement
 * capacity fit (analysis/infer_l2_policy.c).
 *
 *   - the model: no miss well below the capacity, nearly all well above it,
 *     fewer misses with more warm-up laps, fewer with a larger cache; and the
 *     values measured on the simulator (a 768 KiB random L2, seed 1000 of the
 *     generator: 2.0%, 14.7%, 66.7%, 93% of the accesses missing at 384 KiB,
 *     512 KiB, 1 MiB, 2 MiB) within 1.5 points;
 *   - an ld.cg p-chase curve built from those shares (samples at two
 *     latencies, with outliers): "random", and the capacity within the
 *     resolution it states, which is at most 3% of it; the same chain on an LRU
 *     cache (0 misses up to C, all past C + C/16): "lru-or-fifo", and the size
 *     left to the knee;
 *   - an L2 of two partitions chased below its line (sim:a100 at its
 *     32-byte sector): one access in four at the far latency past the near
 *     half, every point's median on the near plateau, then all misses past
 *     the whole: L2FAR named at the far latency, no "random" verdict and no
 *     fitted size, the capacity a bound where the sweep left it a wide
 *     bracket and the knee where a point lies just below it;
 *   - the random L2 refitted from a sweep at 1.5-2.5x a first fit 3.4 % low,
 *     and on a noisy one whose outliers would count as misses: the truth
 *     within the stated resolution; an LRU L2 or a one-point sweep left alone;
 *   - a timed window of part of a lap (--timed N) modelled as such: more
 *     misses than the whole lap, and read as one lap it would be over 5 %
 *     small; on the simulator (sim:rand at 8 MiB) the full suite's two ld.cg
 *     steps with windows give the L2 within the stated resolution;
 *   - a knee the plateau detector places late (an L1D whose first lines over
 *     its capacity miss 0.4% of the accesses each, under 0.25% outliers)
 *     moved back to where the misses begin (analysis/knee_extrapolate.c).
 */
#include "tests/testing.h"
#include "tests/results_json.h"
#include "tests/suite_steps.h"

#include <math.h>

#include "analysis/curve.h"
#include "analysis/infer.h"
#include "analysis/infer_l2_policy.h"
#include "analysis/knee_extrapolate.h"
#include "kernels/probe.h"
#include "kernels/probe_layout.h"

#define HIT_CYCLES 200.0
#define MISS_CYCLES 500.0
#define OUTLIER_CYCLES 900.0
#define OUTLIER_EVERY 400 /* one sample in 400: 0.25% */
#define STRIDE 64

/* An ld.cg p-chase curve of `label`, chased at `stride` bytes, no points yet. */
static void cg_curve_init(gd_curve *c, const char *label, uint64_t stride)
{
    const gd_probe *p = gd_probe_find("pchase");
    assert_non_null(p);
    gd_probe_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.stride_bytes = stride;
    snprintf(opts.variant, sizeof opts.variant, "cg");
    gd_curve_init(c, label, p, &opts);
}

static unsigned laps_for(uint64_t elements, uint64_t accesses)
{
    return (unsigned)((accesses + elements - 1) / elements);
}

static void test_model(void **state)
{
    (void)state;
    const double kib = 1024;
    /* well below and well above */
    assert_true(gd_random_cache_miss_share(64 * kib, 1024 * kib, 8, 1) < 1e-3);
    assert_true(gd_random_cache_miss_share(8192 * kib, 1024 * kib, 1, 1) > 0.97);
    /* more warm-up, fewer misses; a larger cache, fewer misses */
    double one = gd_random_cache_miss_share(700 * kib, 1024 * kib, 1, 1);
    double four = gd_random_cache_miss_share(700 * kib, 1024 * kib, 4, 1);
    assert_true(four < one);
    assert_true(gd_random_cache_miss_share(700 * kib, 2048 * kib, 1, 1) < one);
    /* the simulator's L2 (seed 1000: 768 KiB, 24 ways, 128-B lines, random),
     * chained at 32 B: shares of the timed accesses that went to DRAM */
    static const struct {
        double footprint_kib, share;
    } sim[] = {{384, 0.020}, {512, 0.147}, {1024, 0.667}, {2048, 0.930}};
    for (size_t i = 0; i < sizeof sim / sizeof sim[0]; i++) {
        uint64_t elements = (uint64_t)(sim[i].footprint_kib * kib / 32);
        double m = gd_random_cache_miss_share(
            sim[i].footprint_kib * kib, 768 * kib,
            laps_for(elements, GD_CHASE_MIN_WARM_ACCESSES),
            laps_for(elements, GD_CHASE_MIN_TIMED_ACCESSES));
        if (fabs(m - sim[i].share) > 0.015)
            fail_msg("%.0f KiB: the model gives %.3f, the simulator %.3f", sim[i].footprint_kib,
                     m, sim[i].share);
    }
}

/* A point at `footprint` with room for its timed accesses' samples (their count). */
static uint64_t point_start(gd_point *pt, uint64_t footprint)
{
    uint64_t elements = footprint / STRIDE;
    uint64_t count = elements * laps_for(elements, GD_CHASE_MIN_TIMED_ACCESSES);
    memset(pt, 0, sizeof *pt);
    pt->x = footprint;
    snprintf(pt->series[0].name, sizeof pt->series[0].name, "cycles");
    pt->series[0].samples = malloc(count * sizeof(double));
    assert_non_null(pt->series[0].samples);
    return count;
}

static void point_insert(gd_curve *c, gd_point *pt, uint64_t count)
{
    assert_int_equal(gd_summarize(pt->series[0].samples, count, &pt->series[0].summary), 0);
    pt->series_count = 1;
    assert_int_equal(gd_curve_insert(c, pt), 0);
}

/* One point of an ld.cg chase: `share` of its timed accesses at the miss
 * latency, the rest hits, every OUTLIER_EVERY-th sample an outlier. */
static void add_point_at(gd_curve *c, uint64_t footprint, double share, double hit_cycles,
                         double miss_cycles, double outlier_cycles)
{
    gd_point pt;
    uint64_t count = point_start(&pt, footprint);
    uint64_t misses = (uint64_t)llround(share * (double)count);
    for (uint64_t i = 0; i < count; i++) {
        /* misses spread evenly over the lap, as a random cache spreads them */
        int miss = misses && (i * misses / count) != ((i + 1) * misses / count);
        pt.series[0].samples[i] = (i % OUTLIER_EVERY == 7 ? outlier_cycles
                                   : miss                   ? miss_cycles
                                                            : hit_cycles) +
                                  (double)(i * 7 % 5) - 2; /* +-2 cycles of timer jitter */
    }
    point_insert(c, &pt, count);
}

static void add_point(gd_curve *c, uint64_t footprint, double share)
{
    add_point_at(c, footprint, share, HIT_CYCLES, MISS_CYCLES, OUTLIER_CYCLES);
}

/* A point of a two-partition L2 chased at a quarter of its line: `far_share`
 * of the timed accesses at FAR_CYCLES, `miss_share` at MISS_CYCLES. */
#define FAR_CYCLES 400.0
static void infer(gd_curve *c, gd_inference *inf);
static void add_point_far(gd_curve *c, uint64_t footprint, double far_share, double miss_share)
{
    gd_point pt;
    uint64_t count = point_start(&pt, footprint);
    uint64_t fars = (uint64_t)llround(far_share * 4), misses = (uint64_t)llround(miss_share * 4);
    for (uint64_t i = 0; i < count; i++) {
        uint64_t q = i % 4; /* the four sectors of a line in turn */
        double v = q < misses ? MISS_CYCLES : q < misses + fars ? FAR_CYCLES : HIT_CYCLES;
        pt.series[0].samples[i] = (i % OUTLIER_EVERY == 7 ? OUTLIER_CYCLES : v) +
                                  (double)(i * 7 % 5) - 2;
    }
    point_insert(c, &pt, count);
}

static void far_point(gd_curve *c, uint64_t x, uint64_t capacity)
{
    if (x <= capacity / 2)
        add_point_far(c, x, 0, 0);
    else if (x <= capacity)
        add_point_far(c, x, 0.25, 0);
    else
        add_point_far(c, x, 0, 1);
}

static void test_far_partition_below_line(void **state)
{
    (void)state;
    const uint64_t capacity = 4u << 20;
    for (int close = 0; close <= 1; close++) {
        gd_curve c;
        cg_curve_init(&c, "pchase-cg", STRIDE);
        /* powers of two (the knee between 2 MiB and 4 MiB, the misses past
         * 4 MiB), as the adaptive sweep leaves it; with `close`, a point just
         * past the capacity too */
        for (uint64_t x = 16384; x <= 4 * capacity; x *= 2)
            far_point(&c, x, capacity);
        if (close)
            far_point(&c, capacity + capacity / 32, capacity);
        gd_inference inf;
        infer(&c, &inf);
        const gd_inferred_level *l2 = &inf.level[GD_INF_L2], *far = &inf.level[GD_INF_L2FAR];
        assert_true(far->has_latency);
        if (fabs(far->latency_cycles - FAR_CYCLES) > 2)
            fail_msg("L2FAR at %.1f cycles, not %.0f", far->latency_cycles, FAR_CYCLES);
        assert_false(l2->has_replacement && l2->replacement == GD_REPL_RANDOM);
        assert_true(strstr(l2->size_method, "random") == NULL);
        assert_true(l2->has_size);
        assert_int_equal(l2->size_bytes, capacity);
        assert_int_equal(l2->size_is_lower_bound, !close);
        gd_curve_free(&c);
    }
}

typedef double (*share_fn)(uint64_t footprint, uint64_t capacity);

static double random_share(uint64_t footprint, uint64_t capacity)
{
    uint64_t elements = footprint / STRIDE;
    return gd_random_cache_miss_share((double)footprint, (double)capacity,
                                      laps_for(elements, GD_CHASE_MIN_WARM_ACCESSES),
                                      laps_for(elements, GD_CHASE_MIN_TIMED_ACCESSES));
}

static double lru_share(uint64_t footprint, uint64_t capacity)
{
    if (footprint <= capacity)
        return 0;
    double over = (double)(footprint - capacity) / (capacity / 16.0); /* 16 ways */
    return over >= 1 ? 1 : over;
}

/* A sweep as the adaptive one leaves it: powers of two from 16 KiB to 4x the
 * capacity's power of two, and a bisection of the first bracket that climbs. */
static void build_curve(gd_curve *c, uint64_t capacity, share_fn share)
{
    cg_curve_init(c, "pchase-cg", STRIDE);
    uint64_t lo = 0, hi = 0;
    for (uint64_t x = 16384; x <= 8 * capacity; x *= 2) {
        add_point(c, x, share(x, capacity));
        if (!hi && share(x, capacity) > 0.002)
            hi = x;
        if (!hi)
            lo = x;
    }
    for (int i = 0; i < 10 && hi - lo > STRIDE; i++) {
        uint64_t mid = (lo + hi) / 2 / STRIDE * STRIDE;
        add_point(c, mid, share(mid, capacity));
        if (share(mid, capacity) > 0.002)
            hi = mid;
        else
            lo = mid;
    }
}

static void infer(gd_curve *c, gd_inference *inf)
{
    gd_segmentation seg;
    gd_err err;
    memset(inf, 0, sizeof *inf);
    if (gd_curve_segment(c, "cycles", &seg, &err) != 0)
        fail_msg("%s", err.msg);
    if (gd_infer_pchase(inf, c, &seg, 1, 0, &err) != 0 ||
        gd_infer_l2_policy(inf, c, &seg, &err) != 0)
        fail_msg("%s", err.msg);
    gd_segmentation_free(&seg);
}

static void test_random_l2_is_fitted(void **state)
{
    (void)state;
    static const uint64_t capacities[] = {768 * 1024, 5u << 20, 3u << 20};
    for (size_t i = 0; i < sizeof capacities / sizeof capacities[0]; i++) {
        gd_curve c;
        gd_inference inf;
        build_curve(&c, capacities[i], random_share);
        infer(&c, &inf);
        const gd_inferred_level *l2 = &inf.level[GD_INF_L2];
        assert_true(l2->has_replacement);
        assert_int_equal(l2->replacement, GD_REPL_RANDOM);
        assert_false(l2->replacement_lru_or_fifo);
        assert_true(l2->has_size && !l2->size_is_lower_bound);
        assert_true(strstr(l2->size_method, "random replacement assumed") != NULL);
        assert_true(l2->size_resolution_bytes > 0);
        assert_true(l2->size_resolution_bytes <= l2->size_bytes * 3 / 100 + 1);
        double err = fabs((double)l2->size_bytes - (double)capacities[i]);
        if (err > (double)l2->size_resolution_bytes)
            fail_msg("%llu-byte L2: fitted %llu +- %llu", (unsigned long long)capacities[i],
                     (unsigned long long)l2->size_bytes,
                     (unsigned long long)l2->size_resolution_bytes);
        /* the knee alone would have read it far too small */
        assert_true(l2->knee_below == 0);
        gd_curve_free(&c);
    }
}

/* What a set-associative randomly replacing L2 misses, as the simulator's
 * does (its L2 matched this within 0.3 points on an 8 MiB 8-way L2,
 * generated seed 1015): each set of `set_ways` ways is walked by footprint /
 * capacity x ways lines (whole laps, the chase's warm-up and timed counts),
 * starting full of other lines; a miss evicts a way at random.  A Monte Carlo
 * of 4000 sets (a fixed xorshift, so the curve is the same every run). */
static unsigned set_ways = 8;

static double set_assoc_share(uint64_t footprint, uint64_t capacity)
{
    uint64_t elements = footprint / STRIDE;
    unsigned warm = laps_for(elements, GD_CHASE_MIN_WARM_ACCESSES);
    unsigned timed = laps_for(elements, GD_CHASE_MIN_TIMED_ACCESSES);
    double per_set = (double)footprint / (double)capacity * set_ways;
    unsigned whole = (unsigned)per_set;
    const unsigned trials = 4000;
    unsigned with_one_more = (unsigned)((per_set - whole) * trials + 0.5);
    uint64_t rng = 0x9e3779b97f4a7c15ull, misses = 0, accesses = 0;
    int64_t way[64];
    for (unsigned t = 0; t < trials; t++) {
        unsigned n = whole + (t < with_one_more);
        for (unsigned w = 0; w < set_ways; w++)
            way[w] = -1;
        for (unsigned lap = 0; lap < warm + timed; lap++)
            for (unsigned j = 0; j < n; j++) {
                int hit = 0;
                for (unsigned w = 0; w < set_ways && !hit; w++)
                    hit = way[w] == (int64_t)j;
                if (!hit) {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    way[rng % set_ways] = j;
                }
                if (lap >= warm) {
                    accesses++;
                    misses += !hit;
                }
            }
    }
    return accesses ? (double)misses / (double)accesses : 0;
}

/* Big L2s of few ways (one warm-up lap: a sixteenth of the L2's lines and
 * more): below 1.5x the capacity the miss share depends on the ways, where
 * the mean-field model knows none -- 8 MiB 8-way L2s had read 5.7 % high
 * (generated seeds 1015, 1036), a 5 MiB 10-way one 4.5 % (1063).  The fit
 * now uses the footprints past 1.4x, where every way count gives the same. */
static void test_random_l2_of_few_ways(void **state)
{
    (void)state;
    static const struct {
        uint64_t capacity;
        unsigned ways;
    } cases[] = {{8u << 20, 8}, {5u << 20, 10}, {4u << 20, 16}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        set_ways = cases[i].ways;
        gd_curve c;
        gd_inference inf;
        build_curve(&c, cases[i].capacity, set_assoc_share);
        infer(&c, &inf);
        const gd_inferred_level *l2 = &inf.level[GD_INF_L2];
        assert_int_equal(l2->replacement, GD_REPL_RANDOM);
        assert_true(l2->has_size && !l2->size_is_lower_bound);
        assert_true(l2->size_resolution_bytes <= l2->size_bytes * 3 / 100 + 1);
        double err = fabs((double)l2->size_bytes - (double)cases[i].capacity);
        if (err > (double)l2->size_resolution_bytes)
            fail_msg("%llu-byte %u-way random L2: fitted %llu +- %llu",
                     (unsigned long long)cases[i].capacity, cases[i].ways,
                     (unsigned long long)l2->size_bytes,
                     (unsigned long long)l2->size_resolution_bytes);
        gd_curve_free(&c);
    }
}

/* The refit (gd_infer_l2_refit, full.suite's pchase-l2fit): a first fit
 * 3.4 % low (generated seed 1151's, one footprint in range on the doubling
 * grid) and a sweep at 1.5, 2 and 2.5 times it on a set-associative random
 * L2: the size replaced by the median fit, the truth within the resolution
 * stated, at most 3 %; an LRU L2, or a sweep with one footprint in range,
 * leaves the first answer as it was. */
static void refit_inference(gd_inference *inf, uint64_t first, gd_replacement policy)
{
    memset(inf, 0, sizeof *inf);
    gd_inferred_level *l2 = &inf->level[GD_INF_L2];
    l2->present = l2->has_size = l2->has_latency = l2->has_replacement = 1;
    l2->size_bytes = first;
    l2->latency_cycles = HIT_CYCLES;
    l2->replacement = policy;
    l2->replacement_lru_or_fifo = policy != GD_REPL_RANDOM;
    inf->level[GD_INF_DRAM].present = inf->level[GD_INF_DRAM].has_latency = 1;
    inf->level[GD_INF_DRAM].latency_cycles = MISS_CYCLES;
}

static void add_point_noisy(gd_curve *c, uint64_t footprint, double share, double outliers,
                            uint64_t *rng);

/* `outliers`: the share of samples at OUTLIER_CYCLES, on hits and misses alike
 * (0: one in OUTLIER_EVERY, evenly spaced) */
static void refit_curve(gd_curve *c, uint64_t first, uint64_t capacity, unsigned points,
                        double outliers)
{
    uint64_t rng = 0x2545f4914f6cdd1dull;
    cg_curve_init(c, "pchase-l2fit", STRIDE);
    for (unsigned i = 0; i < points; i++) {
        uint64_t x = (3 + i) * first / 2 / STRIDE * STRIDE;
        if (outliers > 0)
            add_point_noisy(c, x, set_assoc_share(x, capacity), outliers, &rng);
        else
            add_point(c, x, set_assoc_share(x, capacity));
    }
}

static void test_random_l2_refit(void **state)
{
    (void)state;
    static const struct {
        uint64_t capacity;
        unsigned ways;
        double first_error, outliers;
    } cases[] = {{1u << 20, 8, -0.034, 0},
                 {3u << 19, 12, -0.034, 0},
                 {5u << 20, 10, -0.034, 0},
                 /* generated seed 1198: a noisy 512 KiB 8-way L2, 0.5-0.7 % of
                  * the samples outliers far above DRAM, which counted as
                  * misses read it 3.1 % small; here 2 %: 3.4 % small
                  * without their rate taken out */
                 {512u << 10, 8, 0, 0.02}};
    gd_err err;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        set_ways = cases[i].ways;
        uint64_t first = (uint64_t)((double)cases[i].capacity * (1 + cases[i].first_error));
        gd_curve c;
        gd_inference inf;
        refit_inference(&inf, first, GD_REPL_RANDOM);
        refit_curve(&c, first, cases[i].capacity, 3, cases[i].outliers);
        assert_int_equal(gd_infer_l2_refit(&inf, &c, &err), 0);
        const gd_inferred_level *l2 = &inf.level[GD_INF_L2];
        assert_true(strstr(l2->size_method, "miss-rate fit over 3 footprints") != NULL);
        assert_string_equal(l2->size_from, "pchase-l2fit");
        /* the model's 3 % and the sampling's two standard errors: under the
         * scorer's 5 % */
        assert_true(l2->size_resolution_bytes > l2->size_bytes * 3 / 100);
        assert_true(l2->size_resolution_bytes <= l2->size_bytes * 5 / 100);
        double e = fabs((double)l2->size_bytes - (double)cases[i].capacity);
        /* the first fit's error gone (the model's own for 8-12 ways at
         * these footprints: 1-2 % small) */
        if (e > (double)l2->size_resolution_bytes ||
            (cases[i].first_error != 0 && e > 0.02 * (double)cases[i].capacity))
            fail_msg("%llu-byte %u-way random L2: refitted %llu +- %llu",
                     (unsigned long long)cases[i].capacity, cases[i].ways,
                     (unsigned long long)l2->size_bytes,
                     (unsigned long long)l2->size_resolution_bytes);
        gd_curve_free(&c);

        /* an LRU L2 is left to its knee; one footprint does not refit */
        refit_inference(&inf, first, GD_REPL_LRU);
        refit_curve(&c, first, cases[i].capacity, 3, 0);
        assert_int_equal(gd_infer_l2_refit(&inf, &c, &err), 0);
        assert_int_equal(inf.level[GD_INF_L2].size_bytes, first);
        gd_curve_free(&c);
        refit_inference(&inf, first, GD_REPL_RANDOM);
        refit_curve(&c, first, cases[i].capacity, 1, 0);
        assert_int_equal(gd_infer_l2_refit(&inf, &c, &err), 0);
        assert_int_equal(inf.level[GD_INF_L2].size_bytes, first);
        gd_curve_free(&c);
    }
}

/* A window of part of a lap (--timed N: the full suite's ld.cg chases past 8
 * MiB, 2026-12-04) sees more misses than the lap it starts: its accesses' lines
 * were last touched in the all-miss first lap.  The model counts the window,
 * and a window read as a whole lap would read the cache well over 5 % small. */
static void test_partial_lap_window(void **state)
{
    (void)state;
    const double c = 4 << 20, f = 1.5 * c;
    double lap = gd_random_cache_miss_share(f, c, 1, 1.0);
    double window = gd_random_cache_miss_share(f, c, 1, 1.0 / 6);
    /* the window's first accesses: every line since missed, 1 - exp(-F/C) */
    double start = gd_random_cache_miss_share(f, c, 1, 1e-3);
    assert_true(window > lap + 0.02);
    assert_true(fabs(start - (1 - exp(-f / c))) < 1e-3);
    assert_true(start > window);
    /* a whole number of laps is what it was: two laps, the second's misses
     * no more than the first's */
    double two = gd_random_cache_miss_share(f, c, 1, 2.0);
    assert_true(two < lap);
    /* the window read as one lap: over 5 % small; as itself: the capacity */
    double as_lap = gd_random_cache_fit_capacity(f, window, 1, 1.0);
    double as_window = gd_random_cache_fit_capacity(f, window, 1, 1.0 / 6);
    assert_true(as_lap < 0.95 * c);
    assert_true(fabs(as_window - c) < 0.001 * c);
}

/* The full suite's two ld.cg steps as it runs them past 8 MiB, on the
 * simulator's randomly replacing L2 (sim:rand at 8 MiB, 8 ways): the chase and
 * the refit time a window of 16384 accesses -- a sixth of the lap at 1.5 C --
 * and the refit's size is the L2's within the resolution it states (0.25 %
 * small, +- 4.4 %).  With the window read as a whole lap (the analysis before
 * 2026-12-04, which rounded the timed accesses to laps) the same measurements
 * read 6.3 % small, +- 4.0 %. */
static void test_windowed_refit_on_the_simulator(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    char run[1200];
    snprintf(run, sizeof run, "%s/run", dir);
    gd_test_characterize_steps(
        "sim:rand", "--set L2.size=8MiB",
        "pchase-cg pchase --sweep 1KiB:4*L2 --adaptive --variant cg --stride 128 "
        "--timed 16384\n"
        "pchase-l2fit pchase --sweep 3*L2/2:5*L2/2:+L2/2 --variant cg --stride 128 "
        "--timed 16384 --level L2 --if L2_RANDOM\n",
        (const char *const[]){NULL}, NULL, run);
    json_t *l2 = gd_test_run_level(run, "L2");
    const double truth = 8 << 20;
    double size = json_number_value(json_object_get(l2, "size_bytes"));
    double res = json_number_value(json_object_get(l2, "size_resolution_bytes"));
    assert_string_equal(json_string_value(json_object_get(l2, "replacement")), "random");
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(l2, "from"), "size")), "pchase-l2fit");
    if (!(fabs(size - truth) <= res) || !(res <= 0.05 * truth))
        fail_msg("8 MiB random L2 through a 16384-access window: %.0f +- %.0f", size, res);
    json_decref(l2);
    gd_test_rmrf(dir);
    free(dir);
}

static void test_lru_l2_keeps_its_knee(void **state)
{
    (void)state;
    const uint64_t capacity = 768 * 1024;
    gd_curve c;
    gd_inference inf;
    build_curve(&c, capacity, lru_share);
    infer(&c, &inf);
    const gd_inferred_level *l2 = &inf.level[GD_INF_L2];
    assert_true(l2->has_replacement);
    assert_true(l2->replacement_lru_or_fifo);
    assert_int_equal(l2->size_resolution_bytes, 0);
    assert_string_equal(l2->size_method, "");
    if (l2->size_bytes > capacity || l2->size_bytes + STRIDE < capacity)
        fail_msg("LRU L2 of %llu bytes: knee at %llu", (unsigned long long)capacity,
                 (unsigned long long)l2->size_bytes);
    gd_curve_free(&c);
}

/* An L1D (ld.ca chase) as the simulator measured one (generator seed 1001):
 * 16 KiB, each 32-byte line over it 0.4% more misses (a random 4-way cache's
 * overflowing sets), L2 hits at 160 cycles, outliers at 140. */
static void test_late_knee_moves_back(void **state)
{
    (void)state;
    const uint64_t capacity = 16384;
    const gd_probe *p = gd_probe_find("pchase");
    gd_probe_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.stride_bytes = 32;
    gd_curve c;
    gd_curve_init(&c, "pchase", p, &opts);
    static const uint64_t xs[] = {1024, 2048, 4096, 8192, 12288, 16384, 16512, 16544, 16576,
                                  16640, 16896, 17408, 18432, 20480, 24576, 32768, 65536};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        double over_lines = xs[i] > capacity ? (double)(xs[i] - capacity) / 32 : 0;
        double share = over_lines * 0.004;
        add_point_at(&c, xs[i], share > 1 ? 1 : share, 30, 160, 140);
    }
    gd_segmentation seg;
    gd_err err;
    gd_inference inf;
    memset(&inf, 0, sizeof inf);
    assert_int_equal(gd_curve_segment(&c, "cycles", &seg, &err), 0);
    assert_true(seg.knee_count >= 1);
    /* the detector alone: a few lines late (the premise of the refinement) */
    assert_true(seg.knees[0].x_below > capacity);
    assert_int_equal(gd_infer_pchase(&inf, &c, &seg, 0, 0, &err), 0);
    if (inf.level[GD_INF_L1D].size_bytes != capacity)
        fail_msg("L1D of %llu bytes: %llu (knee %.0f)", (unsigned long long)capacity,
                 (unsigned long long)inf.level[GD_INF_L1D].size_bytes, seg.knees[0].x_below);
    gd_segmentation_free(&seg);
    gd_curve_free(&c);
}

/* A point whose outliers and misses fall at random (a card's timer noise,
 * binomial scatter), not evenly: `outliers` of the samples at OUTLIER_CYCLES,
 * `share` of the rest misses. */
static void add_point_noisy(gd_curve *c, uint64_t footprint, double share, double outliers,
                            uint64_t *rng)
{
    gd_point pt;
    uint64_t count = point_start(&pt, footprint);
    for (uint64_t i = 0; i < count; i++) {
        double u[2];
        for (int k = 0; k < 2; k++) {
            *rng ^= *rng << 13;
            *rng ^= *rng >> 7;
            *rng ^= *rng << 17;
            u[k] = (double)(*rng >> 11) * 0x1p-53;
        }
        pt.series[0].samples[i] = (u[0] < outliers ? OUTLIER_CYCLES
                                   : u[1] < share  ? MISS_CYCLES
                                                   : HIT_CYCLES) +
                                  (double)(i * 7 % 5) - 2;
    }
    point_insert(c, &pt, count);
}

/* A noisy 16-way LRU L2 (generated seed 1027's case, 0.4 % outliers): each
 * line over C overflows a set, whose 17 lines then miss every lap.  The
 * extrapolated knee lands some lines off where the outliers' scatter hides the
 * first overflowing sets -- and says so: the truth lies within the resolution
 * it states, which is a small fraction of the capacity, and which grows with
 * the noise (none without outliers but the sweep's own sample count). */
static void test_extrapolated_knee_states_its_resolution(void **state)
{
    (void)state;
    const uint64_t capacity = 4u << 20, line = 32;
    const double noise[] = {0.004, 0.0};
    double widest[2] = {0, 0};
    for (int q = 0; q < 2; q++) {
        for (uint64_t seed = 1; seed <= 6; seed++) {
            uint64_t rng = 0x9e3779b97f4a7c15ull * seed;
            gd_curve c;
            cg_curve_init(&c, "pchase-cg", line);
            uint64_t xs[32];
            size_t n = 0;
            for (uint64_t x = 65536; x <= capacity; x *= 2)
                xs[n++] = x;
            /* the bisection the adaptive sweep made past the detector's knee */
            static const uint64_t over[] = {1600, 2400,  3200,  4000,   4800,   5600,   6400,
                                            8192, 16384, 65536, 262144, 1048576, 2097152};
            for (size_t i = 0; i < sizeof over / sizeof over[0]; i++)
                xs[n++] = capacity + over[i];
            for (size_t i = 0; i < n; i++) {
                double k = xs[i] > capacity ? (double)(xs[i] - capacity) / line : 0;
                double share = fmin(1, k * 17 / ((double)xs[i] / line));
                add_point_noisy(&c, xs[i], share, noise[q], &rng);
            }
            gd_segmentation seg;
            gd_err err;
            gd_inference inf;
            memset(&inf, 0, sizeof inf);
            assert_int_equal(gd_curve_segment(&c, "cycles", &seg, &err), 0);
            assert_true(seg.knee_count >= 1);
            /* the detector as a card's bursts of outliers leave it (seed 1027):
             * its knee at the first point with 2 % of the accesses missing, the
             * points before it on the plateau */
            size_t late = 0;
            while (late + 1 < c.count &&
                   gd_point_share_above(&c.points[late + 1], (HIT_CYCLES + MISS_CYCLES) / 2,
                                        HIT_CYCLES, MISS_CYCLES) < 0.02 + noise[q])
                late++;
            seg.knees[0].below = late;
            seg.knees[0].above = late + 1;
            seg.knees[0].x_below = c.points[late].x;
            seg.knees[0].x_above = c.points[late + 1].x;
            seg.plateaus[0].last = late;
            seg.plateaus[1].first = late + 1;
            assert_int_equal(gd_infer_pchase(&inf, &c, &seg, 1, 0, &err), 0);
            const gd_inferred_level *l2 = &inf.level[GD_INF_L2];
            assert_true(l2->has_size);
            double res = (double)(l2->size_resolution_bytes ? l2->size_resolution_bytes : line);
            double off = fabs((double)l2->size_bytes - (double)capacity);
            if (off > res)
                fail_msg("noise %.3f seed %llu: %llu for %llu, +- %.0f", noise[q],
                         (unsigned long long)seed, (unsigned long long)l2->size_bytes,
                         (unsigned long long)capacity, res);
            assert_true(res <= 0.005 * (double)capacity);
            if (l2->size_resolution_bytes)
                assert_true(strstr(l2->size_method, "extrapolated") != NULL);
            if (res > widest[q])
                widest[q] = res;
            gd_segmentation_free(&seg);
            gd_curve_free(&c);
        }
    }
    assert_true(widest[0] > widest[1]); /* more noise hides more lines */
}

/* A stride sweep (16 B to 1 KiB) at a fixed footprint over an L2 with a
 * 32-byte fetch granularity whose capacity hits `hit` of the accesses at
 * every stride (random replacement, the footprint 1.5x the L2: past the line
 * the lines touched shrink, and so do the sets they fall in -- generated seed
 * 1017's 24 MiB L2 kept 27% hits from 32 bytes to 1 KiB); below the
 * granularity the accesses inside a fetched sector hit as well. */
static void stride_curve(gd_curve *c, double hit)
{
    const gd_probe *p = gd_probe_find("pchase_stride");
    assert_non_null(p);
    gd_probe_opts opts;
    memset(&opts, 0, sizeof opts);
    snprintf(opts.variant, sizeof opts.variant, "cg");
    gd_curve_init(c, "stride-l2", p, &opts);
    for (uint64_t stride = 16; stride <= 1024; stride *= 2) {
        gd_point pt;
        enum { COUNT = 4096 };
        memset(&pt, 0, sizeof pt);
        pt.x = (double)stride;
        snprintf(pt.series[0].name, sizeof pt.series[0].name, "cycles");
        pt.series[0].samples = malloc(COUNT * sizeof(double));
        assert_non_null(pt.series[0].samples);
        double first_share = stride >= 32 ? 1.0 : (double)stride / 32; /* first in its sector */
        uint64_t misses = (uint64_t)llround(first_share * (1 - hit) * COUNT);
        for (uint64_t i = 0; i < COUNT; i++) {
            int miss = misses && (i * misses / COUNT) != ((i + 1) * misses / COUNT);
            pt.series[0].samples[i] = (miss ? MISS_CYCLES : HIT_CYCLES) + (double)(i * 7 % 5) - 2;
        }
        point_insert(c, &pt, COUNT);
    }
}

static void test_stride_granularity_with_hits_at_every_stride(void **state)
{
    (void)state;
    static const double hits[] = {0.0, 0.1, 0.27, 0.45};
    for (size_t h = 0; h < sizeof hits / sizeof *hits; h++) {
        gd_curve c;
        gd_segmentation seg;
        gd_err err;
        gd_inference inf;
        stride_curve(&c, hits[h]);
        memset(&inf, 0, sizeof inf);
        assert_int_equal(gd_curve_segment(&c, "cycles", &seg, &err), 0);
        if (gd_infer_stride(&inf, &c, &seg, GD_INF_L2, &err) != 0)
            fail_msg("%s", err.msg);
        if (inf.level[GD_INF_L2].sector_bytes != 32)
            fail_msg("%.0f%% hits at every stride: granularity %llu, not 32", 100 * hits[h],
                     (unsigned long long)inf.level[GD_INF_L2].sector_bytes);
        gd_segmentation_free(&seg);
        gd_curve_free(&c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model),
        cmocka_unit_test(test_stride_granularity_with_hits_at_every_stride),
        cmocka_unit_test(test_random_l2_is_fitted),
        cmocka_unit_test(test_random_l2_of_few_ways),
        cmocka_unit_test(test_random_l2_refit),
        cmocka_unit_test(test_partial_lap_window),
        cmocka_unit_test(test_windowed_refit_on_the_simulator),
        cmocka_unit_test(test_lru_l2_keeps_its_knee),
        cmocka_unit_test(test_far_partition_below_line),
        cmocka_unit_test(test_late_knee_moves_back),
        cmocka_unit_test(test_extrapolated_knee_states_its_resolution),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
