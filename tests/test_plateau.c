/* test_plateau.c -- plateau / knee detection (analysis/plateau.c) on synthetic curves.
 *
 * Every curve is generated here from a seeded PRNG, so a failure replays
 * exactly.  A point is a mix of two levels: a fraction `slow` of its samples
 * at the next level, the rest at the current one (a pure point has slow = 0),
 * then noise: integer jitter of +-J cycles on every sample and rare large
 * outliers (+500..2000 cycles), as a real GPU's timer gives.  The truth the
 * detector must find: one plateau per level with its pure points only, the
 * level within +-1 cycle (exact without noise), and each knee between the
 * last pure point and the next one -- a point with 10% slow accesses is
 * already past the knee.
 */
#include "tests/testing.h"

#include "analysis/plateau.h"
#include "analysis/stats.h"

#include <math.h>
#include <time.h>

/* ---- synthetic curves ---------------------------------------------------- */

typedef struct rng {
    uint64_t state;
} rng;

/* splitmix64: small, seedable, good enough for test data. */
static uint64_t rng_next(rng *r)
{
    uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double rng_uniform(rng *r) /* [0, 1) */
{
    return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static long rng_range(rng *r, long lo, long hi) /* [lo, hi] */
{
    return lo + (long)(rng_next(r) % (uint64_t)(hi - lo + 1));
}

typedef struct noise {
    long jitter_cycles;        /* every sample +- uniform integer in [-J, J] */
    double outlier_rate;       /* fraction of samples hit by an outlier */
    long outlier_min, outlier_max;
} noise;

static const noise no_noise = {0, 0, 0, 0};
static const noise gpu_noise = {3, 0.005, 500, 2000};

typedef struct curve {
    size_t n, cap;
    double *x;
    double **samples;
    size_t *counts;
} curve;

/* Appends a point: round(slow * count) samples at `hi`, the rest at `lo`, plus noise. */
static void curve_add(curve *c, double x, size_t count, double lo, double hi, double slow,
                      const noise *nz, rng *r)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 64;
        c->x = realloc(c->x, c->cap * sizeof *c->x);
        c->samples = realloc(c->samples, c->cap * sizeof *c->samples);
        c->counts = realloc(c->counts, c->cap * sizeof *c->counts);
        assert_non_null(c->x);
        assert_non_null(c->samples);
        assert_non_null(c->counts);
    }
    double *v = malloc(count * sizeof *v);
    assert_non_null(v);
    size_t slow_count = (size_t)lround(slow * (double)count);
    for (size_t s = 0; s < count; s++) {
        double value = s < slow_count ? hi : lo;
        if (nz->jitter_cycles)
            value += (double)rng_range(r, -nz->jitter_cycles, nz->jitter_cycles);
        if (nz->outlier_rate > 0 && rng_uniform(r) < nz->outlier_rate)
            value += (double)rng_range(r, nz->outlier_min, nz->outlier_max);
        v[s] = value;
    }
    c->x[c->n] = x;
    c->samples[c->n] = v;
    c->counts[c->n] = count;
    c->n++;
}

static void curve_free(curve *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->samples[i]);
    free(c->x);
    free(c->samples);
    free(c->counts);
    memset(c, 0, sizeof *c);
}

static void detect(const curve *c, const gd_plateau_opts *opts, gd_segmentation *seg)
{
    gd_err err = {{0}};
    int rc = gd_detect_plateaus(c->x, (const double *const *)c->samples, c->counts, c->n, opts,
                                seg, &err);
    if (rc != 0)
        fail_msg("gd_detect_plateaus: %s", err.msg);
}

static void print_segmentation(const gd_segmentation *seg)
{
    print_message("noise %.3f, location noise %.3f\n", seg->noise_scale, seg->location_noise);
    for (size_t i = 0; i < seg->plateau_count; i++) {
        const gd_plateau *p = &seg->plateaus[i];
        print_message("  plateau %zu: points %zu..%zu x %g..%g level %.2f spread %.2f conf %.3f\n",
                      i, p->first, p->last, p->x_first, p->x_last, p->level, p->spread,
                      p->confidence);
        if (i < seg->knee_count)
            print_message("  knee %zu: %zu|%zu x %g|%g conf %.3f\n", i, seg->knees[i].below,
                          seg->knees[i].above, seg->knees[i].x_below, seg->knees[i].x_above,
                          seg->knees[i].confidence);
    }
}

/* The truth of a generated staircase: each level and its pure points. */
#define MAX_LEVELS 8
typedef struct staircase {
    size_t levels;
    double level[MAX_LEVELS];
    size_t first[MAX_LEVELS], last[MAX_LEVELS];
} staircase;

/* Checks count, levels (within tol), plateau extents and knees; prints the
 * segmentation on failure. */
static void check_staircase(const curve *c, const gd_segmentation *seg, const staircase *want,
                            double tol, double min_confidence)
{
    int ok = seg->plateau_count == want->levels && seg->knee_count == want->levels - 1;
    for (size_t i = 0; ok && i < want->levels; i++) {
        const gd_plateau *p = &seg->plateaus[i];
        ok = fabs(p->level - want->level[i]) <= tol && p->first == want->first[i] &&
             p->last == want->last[i] && p->x_first == c->x[p->first] &&
             p->x_last == c->x[p->last] && p->confidence >= min_confidence &&
             p->confidence <= 1;
        if (ok && i + 1 < want->levels) {
            const gd_knee *k = &seg->knees[i];
            ok = k->below == want->last[i] && k->above == want->last[i] + 1 &&
                 k->x_below == c->x[k->below] && k->x_above == c->x[k->above] &&
                 k->confidence >= min_confidence && k->confidence <= 1;
        }
    }
    if (!ok) {
        print_message("expected %zu plateaus:\n", want->levels);
        for (size_t i = 0; i < want->levels; i++)
            print_message("  points %zu..%zu level %g\n", want->first[i], want->last[i],
                          want->level[i]);
        print_message("got:\n");
        print_segmentation(seg);
        fail_msg("segmentation differs from the truth");
    }
}

/* Adds `points` pure points at `level` (x = x * factor + step each) and records them. */
static void add_plateau(curve *c, staircase *truth, double *x, double factor, double step,
                        size_t points, double level, size_t count, const noise *nz, rng *r)
{
    size_t i = truth->levels++;
    truth->level[i] = level;
    truth->first[i] = c->n;
    for (size_t p = 0; p < points; p++) {
        curve_add(c, *x, count, level, level, 0, nz, r);
        *x = *x * factor + step;
    }
    truth->last[i] = c->n - 1;
}

/* Adds transition points mixing level lo (current) and hi (next). */
static void add_transition(curve *c, double *x, double factor, double step, const double *slow,
                           size_t points, double lo, double hi, size_t count, const noise *nz,
                           rng *r)
{
    for (size_t p = 0; p < points; p++) {
        curve_add(c, *x, count, lo, hi, slow[p], nz, r);
        *x = *x * factor + step;
    }
}

/* 1KiB, 2KiB, ...: 6 points each at 32, 188, 296 cycles. */
static void three_level_geometric(curve *c, staircase *truth, size_t count, const noise *nz,
                                  rng *r)
{
    static const double levels[] = {32, 188, 296};
    double x = 1024;
    for (size_t i = 0; i < 3; i++)
        add_plateau(c, truth, &x, 2, 0, 6, levels[i], count, nz, r);
}

/* ---- tests --------------------------------------------------------------- */

static void test_noiseless_three_levels(void **unused)
{
    (void)unused;
    rng r = {1};
    curve c = {0};
    staircase truth = {0};
    three_level_geometric(&c, &truth, 256, &no_noise, &r);
    gd_segmentation seg;
    detect(&c, NULL, &seg);
    check_staircase(&c, &seg, &truth, 0, 0.9);
    for (size_t i = 0; i < 3; i++) {
        assert_true(seg.plateaus[i].level == truth.level[i]); /* exact, not just close */
        assert_true(seg.plateaus[i].spread == 0);
    }
    assert_true(seg.knees[0].x_below == 32768 && seg.knees[0].x_above == 65536);
    assert_true(seg.knees[1].x_below == 2097152 && seg.knees[1].x_above == 4194304);
    gd_segmentation_free(&seg);
    assert_null(seg.plateaus);
    curve_free(&c);
}

static void test_noisy_three_levels(void **unused)
{
    (void)unused;
    for (uint64_t seed = 1; seed <= 5; seed++) {
        rng r = {seed};
        curve c = {0};
        staircase truth = {0};
        three_level_geometric(&c, &truth, 512, &gpu_noise, &r);
        gd_segmentation seg;
        detect(&c, NULL, &seg);
        check_staircase(&c, &seg, &truth, 1, 0.9);
        assert_true(seg.noise_scale > 1 && seg.noise_scale < 5);
        gd_segmentation_free(&seg);
        curve_free(&c);
    }
}

/* 32 -> 188 -> 296 with mixed points between: 10/25/50/75/90% slow, then
 * 25/50/75%.  Pure plateaus only; the 10% point is already off. */
static void test_transition_points(void **unused)
{
    (void)unused;
    static const double first_mix[] = {0.10, 0.25, 0.50, 0.75, 0.90};
    static const double second_mix[] = {0.25, 0.50, 0.75};
    static const noise *const noises[] = {&no_noise, &gpu_noise};
    for (size_t ni = 0; ni < 2; ni++) {
        for (uint64_t seed = 1; seed <= 3; seed++) {
            rng r = {seed};
            curve c = {0};
            staircase truth = {0};
            double x = 4096;
            add_plateau(&c, &truth, &x, 1, 4096, 8, 32, 1024, noises[ni], &r);
            add_transition(&c, &x, 1, 4096, first_mix, 5, 32, 188, 1024, noises[ni], &r);
            add_plateau(&c, &truth, &x, 1, 4096, 8, 188, 1024, noises[ni], &r);
            add_transition(&c, &x, 1, 4096, second_mix, 3, 188, 296, 1024, noises[ni], &r);
            add_plateau(&c, &truth, &x, 1, 4096, 8, 296, 1024, noises[ni], &r);
            gd_segmentation seg;
            detect(&c, NULL, &seg);
            check_staircase(&c, &seg, &truth, ni ? 1 : 0, 0.9);
            gd_segmentation_free(&seg);
            curve_free(&c);
        }
    }
}

/* A single mixed point with only 10% slow accesses is the knee's `above`. */
static void test_ten_percent_point_is_off(void **unused)
{
    (void)unused;
    static const double ten[] = {0.10};
    rng r = {7};
    curve c = {0};
    staircase truth = {0};
    double x = 1024;
    add_plateau(&c, &truth, &x, 1.25, 0, 10, 32, 512, &gpu_noise, &r);
    add_transition(&c, &x, 1.25, 0, ten, 1, 32, 188, 512, &gpu_noise, &r);
    add_plateau(&c, &truth, &x, 1.25, 0, 10, 188, 512, &gpu_noise, &r);
    gd_segmentation seg;
    detect(&c, NULL, &seg);
    check_staircase(&c, &seg, &truth, 1, 0.9);
    assert_int_equal(seg.knees[0].above, 10);
    gd_segmentation_free(&seg);
    curve_free(&c);
}

/* A simulator's curve has no noise at all: there one overflowing set (1% of
 * the accesses missing) already takes a point off the plateau. */
static void test_noiseless_one_percent_miss(void **unused)
{
    (void)unused;
    static const double one[] = {0.01};
    rng r = {8};
    curve c = {0};
    staircase truth = {0};
    double x = 1024;
    add_plateau(&c, &truth, &x, 1, 1024, 8, 32, 1024, &no_noise, &r);
    add_transition(&c, &x, 1, 1024, one, 1, 32, 188, 1024, &no_noise, &r);
    add_plateau(&c, &truth, &x, 1, 1024, 8, 188, 1024, &no_noise, &r);
    gd_segmentation seg;
    detect(&c, NULL, &seg);
    check_staircase(&c, &seg, &truth, 0, 0.9);
    assert_int_equal(seg.knees[0].above, 8);
    gd_segmentation_free(&seg);
    curve_free(&c);
}

/* L1, L2, far L2 (2 points only), DRAM, DRAM + TLB miss on a half-octave grid. */
static void test_five_levels(void **unused)
{
    (void)unused;
    static const double l2_mix[] = {0.4};
    static const double tlb_mix[] = {0.3, 0.8};
    for (uint64_t seed = 1; seed <= 5; seed++) {
        rng r = {seed};
        curve c = {0};
        staircase truth = {0};
        double x = 1024, f = 1.4142135623730951;
        add_plateau(&c, &truth, &x, f, 0, 9, 32, 512, &gpu_noise, &r);
        add_transition(&c, &x, f, 0, l2_mix, 1, 32, 188, 512, &gpu_noise, &r);
        add_plateau(&c, &truth, &x, f, 0, 12, 188, 512, &gpu_noise, &r);
        add_plateau(&c, &truth, &x, f, 0, 2, 262, 512, &gpu_noise, &r);
        add_plateau(&c, &truth, &x, f, 0, 8, 478, 512, &gpu_noise, &r);
        add_transition(&c, &x, f, 0, tlb_mix, 2, 478, 702, 512, &gpu_noise, &r);
        add_plateau(&c, &truth, &x, f, 0, 6, 702, 512, &gpu_noise, &r);
        gd_segmentation seg;
        detect(&c, NULL, &seg);
        check_staircase(&c, &seg, &truth, 1, 0.9);
        assert_int_equal(seg.plateaus[2].last - seg.plateaus[2].first + 1, 2);
        gd_segmentation_free(&seg);
        curve_free(&c);
    }
}

/* 500 points 128 bytes apart: long plateaus, short transitions. */
static void test_dense_linear_sweep(void **unused)
{
    (void)unused;
    static const double mix[] = {0.1, 0.4, 0.6, 0.9};
    rng r = {11};
    curve c = {0};
    staircase truth = {0};
    double x = 1024;
    add_plateau(&c, &truth, &x, 1, 128, 150, 32, 256, &gpu_noise, &r);
    add_transition(&c, &x, 1, 128, mix, 4, 32, 188, 256, &gpu_noise, &r);
    add_plateau(&c, &truth, &x, 1, 128, 194, 188, 256, &gpu_noise, &r);
    add_transition(&c, &x, 1, 128, mix + 1, 2, 188, 296, 256, &gpu_noise, &r);
    add_plateau(&c, &truth, &x, 1, 128, 150, 296, 256, &gpu_noise, &r);
    assert_int_equal(c.n, 500);
    gd_segmentation seg;
    detect(&c, NULL, &seg);
    check_staircase(&c, &seg, &truth, 1, 0.9);
    gd_segmentation_free(&seg);
    curve_free(&c);
}

/* An adaptive sweep: coarse far from the capacities (24 KiB, 2 MiB), dense
 * near them.  Past a capacity C the slow fraction grows as (x - C) / (C / 4),
 * so the knee is between the largest x <= C and the next x.  A point with
 * fewer than 5% of its accesses still fast is taken as pure: the detector
 * needs a 2% excess to call a point mixed, and the truth should not sit on
 * that line. */
#define ADAPTIVE_PURE_ABOVE 0.95
static double adaptive_slow_fraction(double x, double capacity)
{
    double f = (x - capacity) / (0.25 * capacity);
    return f <= 0 ? 0 : (f >= ADAPTIVE_PURE_ABOVE ? 1 : f);
}

static void test_adaptive_sweep(void **unused)
{
    (void)unused;
    static const double capacity[] = {24576, 2097152};
    static const double level[] = {32, 188, 296};
    double xs[128];
    size_t n = 0;
    for (double x = 1024; x < 16384; x *= 1.5)
        xs[n++] = x;
    for (double x = 16384; x < 40960; x += 1024)
        xs[n++] = x;
    for (double x = 40960; x < 1.5e6; x *= 1.6)
        xs[n++] = x;
    for (double x = 1.5e6; x < 3.2e6; x += 65536)
        xs[n++] = x;
    for (double x = 3.2e6; x < 64e6; x *= 2)
        xs[n++] = x;
    assert_true(n <= 128);
    rng r = {5};
    curve c = {0};
    staircase truth = {.levels = 3, .level = {32, 188, 296}};
    int seen[3] = {0};
    for (size_t i = 0; i < n; i++) {
        /* Which level the point sits on (pure) or is leaving (mixed). */
        size_t on = 0;
        double slow = adaptive_slow_fraction(xs[i], capacity[0]);
        if (slow >= 1) {
            on = 1;
            slow = adaptive_slow_fraction(xs[i], capacity[1]);
            if (slow >= 1) {
                on = 2;
                slow = 0;
            }
        }
        if (slow == 0) {
            if (!seen[on]++)
                truth.first[on] = i;
            truth.last[on] = i;
        }
        curve_add(&c, xs[i], 512, level[on], level[on < 2 ? on + 1 : 2], slow, &gpu_noise, &r);
    }
    gd_segmentation seg;
    detect(&c, NULL, &seg);
    check_staircase(&c, &seg, &truth, 1, 0.9);
    assert_true(seg.knees[0].x_below <= capacity[0] && seg.knees[0].x_above > capacity[0]);
    assert_true(seg.knees[1].x_below <= capacity[1] && seg.knees[1].x_above > capacity[1]);
    gd_segmentation_free(&seg);
    curve_free(&c);
}

static void test_flat_curve(void **unused)
{
    (void)unused;
    rng r = {3};
    curve c = {0};
    staircase truth = {0};
    double x = 1024;
    add_plateau(&c, &truth, &x, 1.1, 0, 40, 188, 512, &gpu_noise, &r);
    gd_segmentation seg;
    detect(&c, NULL, &seg);
    check_staircase(&c, &seg, &truth, 1, 0.9);
    assert_null(seg.knees);
    gd_segmentation_free(&seg);
    curve_free(&c);
}

/* A single disturbed point inside a plateau (60% of its accesses +1000
 * cycles) does not split it; a steady ramp is one plateau of low confidence. */
static void test_glitch_and_ramp(void **unused)
{
    (void)unused;
    rng r = {12};
    curve c = {0};
    double x = 1024;
    for (int i = 0; i < 30; i++, x *= 1.2) {
        double level = i < 15 ? 32 : 188;
        curve_add(&c, x, 512, level, i == 7 ? level + 1000 : level, i == 7 ? 0.6 : 0, &gpu_noise,
                  &r);
    }
    gd_segmentation seg;
    detect(&c, NULL, &seg);
    assert_int_equal(seg.plateau_count, 2);
    assert_true(seg.plateaus[0].first == 0 && seg.plateaus[0].last == 14);
    assert_true(fabs(seg.plateaus[0].level - 32) <= 1);
    gd_segmentation_free(&seg);
    curve_free(&c);

    x = 1024;
    for (int i = 0; i < 40; i++, x *= 1.2)
        curve_add(&c, x, 512, 100 + 5 * i, 0, 0, &gpu_noise, &r);
    detect(&c, NULL, &seg);
    assert_int_equal(seg.plateau_count, 1);
    assert_true(seg.plateaus[0].confidence < 0.5);
    gd_segmentation_free(&seg);
    curve_free(&c);
}

/* One point is below the default min_points (no plateau); with min_points 1 it is one. */
static void test_single_point(void **unused)
{
    (void)unused;
    rng r = {4};
    curve c = {0};
    curve_add(&c, 4096, 64, 32, 32, 0, &no_noise, &r);
    gd_segmentation seg;
    detect(&c, NULL, &seg);
    assert_int_equal(seg.plateau_count, 0);
    assert_int_equal(seg.knee_count, 0);
    gd_segmentation_free(&seg);
    gd_plateau_opts opts = {.min_points = 1};
    detect(&c, &opts, &seg);
    assert_int_equal(seg.plateau_count, 1);
    assert_int_equal(seg.knee_count, 0);
    assert_true(seg.plateaus[0].level == 32);
    assert_true(seg.plateaus[0].first == 0 && seg.plateaus[0].last == 0);
    gd_segmentation_free(&seg);
    curve_free(&c);
}

/* Options change the answer the documented way: a min_step above the step
 * merges the levels; min_points above a plateau's length drops it. */
static void test_options(void **unused)
{
    (void)unused;
    rng r = {9};
    curve c = {0};
    staircase truth = {0};
    double x = 1024;
    add_plateau(&c, &truth, &x, 2, 0, 6, 100, 256, &gpu_noise, &r);
    add_plateau(&c, &truth, &x, 2, 0, 3, 130, 256, &gpu_noise, &r);
    add_plateau(&c, &truth, &x, 2, 0, 6, 300, 256, &gpu_noise, &r);
    gd_segmentation seg;
    detect(&c, NULL, &seg);
    check_staircase(&c, &seg, &truth, 1, 0.9);
    gd_segmentation_free(&seg);
    gd_plateau_opts coarse = {.min_step = 50};
    detect(&c, &coarse, &seg);
    assert_int_equal(seg.plateau_count, 2);
    assert_true(seg.plateaus[1].first == 9 && fabs(seg.plateaus[1].level - 300) <= 1);
    gd_segmentation_free(&seg);
    gd_plateau_opts long_only = {.min_points = 4};
    detect(&c, &long_only, &seg);
    assert_int_equal(seg.plateau_count, 2);
    assert_true(fabs(seg.plateaus[0].level - 100) <= 1 && fabs(seg.plateaus[1].level - 300) <= 1);
    assert_true(seg.knees[0].below == 5 && seg.knees[0].above == 6);
    gd_segmentation_free(&seg);
    curve_free(&c);
}

static void expect_error(const double *x, const double *const *samples, const size_t *counts,
                         size_t n, const char *needle)
{
    gd_err err = {{0}};
    gd_segmentation seg;
    memset(&seg, 0xff, sizeof seg);
    assert_int_equal(gd_detect_plateaus(x, samples, counts, n, NULL, &seg, &err), -1);
    if (!strstr(err.msg, needle))
        fail_msg("error '%s' does not mention '%s'", err.msg, needle);
    assert_null(seg.plateaus);
    assert_int_equal(seg.plateau_count, 0);
    assert_null(strchr(err.msg, '\n'));
}

static void test_errors(void **unused)
{
    (void)unused;
    double a[] = {32, 33, 31}, b[] = {188, 190}, bad[] = {32, NAN};
    const double *samples[] = {a, b};
    size_t counts[] = {3, 2};
    double x[] = {1024, 2048}, down[] = {2048, 1024}, same[] = {1024, 1024}, nan_x[] = {1024, NAN};
    expect_error(x, samples, counts, 0, "no points");
    size_t zero[] = {3, 0};
    expect_error(x, samples, zero, 2, "no samples");
    expect_error(down, samples, counts, 2, "not increasing");
    expect_error(same, samples, counts, 2, "not increasing");
    expect_error(nan_x, samples, counts, 2, "not a finite number");
    const double *with_nan[] = {a, bad};
    expect_error(x, with_nan, counts, 2, "not a finite number");
    gd_err err = {{0}};
    assert_int_equal(gd_detect_plateaus(x, samples, counts, 2, NULL, NULL, &err), -1);
    /* A NULL err is allowed: the failure is still reported by the return value. */
    gd_segmentation seg;
    assert_int_equal(gd_detect_plateaus(x, samples, counts, 0, NULL, &seg, NULL), -1);
    gd_segmentation_free(NULL);
}

/* 20 random staircases: 2..6 levels in 20..800 cycles (any order, adjacent
 * levels >= 25 cycles and 15% apart), 2..25 pure points each, 0..2 mixed
 * points between, 128..1024 samples per point, GPU-like noise. */
static void test_random_staircases(void **unused)
{
    (void)unused;
    static const double mixes[] = {0.1, 0.25, 0.5, 0.75, 0.9};
    rng r = {2024};
    for (int run = 0; run < 20; run++) {
        curve c = {0};
        staircase truth = {0};
        size_t levels = (size_t)rng_range(&r, 2, 6);
        size_t count = (size_t)rng_range(&r, 128, 1024);
        double x = 1024, factor = rng_uniform(&r) < 0.5 ? 1.25 : 1, step = factor > 1 ? 0 : 512;
        double prev = 0;
        for (size_t l = 0; l < levels; l++) {
            double level;
            do
                level = (double)rng_range(&r, 20, 800);
            while (l > 0 && (fabs(level - prev) < 25 || fabs(level - prev) < 0.15 * fmin(level, prev)));
            if (l > 0) {
                double slow[2];
                size_t mixed = (size_t)rng_range(&r, 0, 2);
                for (size_t m = 0; m < mixed; m++)
                    slow[m] = mixes[rng_range(&r, 0, 4)];
                if (mixed == 2 && slow[0] > slow[1]) {
                    double t = slow[0];
                    slow[0] = slow[1];
                    slow[1] = t;
                }
                add_transition(&c, &x, factor, step, slow, mixed, prev, level, count, &gpu_noise,
                               &r);
            }
            add_plateau(&c, &truth, &x, factor, step, (size_t)rng_range(&r, 2, 25), level, count,
                        &gpu_noise, &r);
            prev = level;
        }
        gd_segmentation seg;
        detect(&c, NULL, &seg);
        print_message("run %d: %zu levels, %zu points x %zu samples\n", run, levels, c.n, count);
        check_staircase(&c, &seg, &truth, 1, 0.5);
        gd_segmentation_free(&seg);
        curve_free(&c);
    }
}

/* The size the analysis must handle: 2000 points x 2048 samples, 6 levels. */
static void test_large_curve(void **unused)
{
    (void)unused;
    static const double levels[] = {32, 188, 262, 478, 702, 1100};
    static const double mix[] = {0.25, 0.75};
    rng r = {77};
    curve c = {0};
    staircase truth = {0};
    double x = 1024;
    for (size_t l = 0; l < 6; l++) {
        if (l > 0)
            add_transition(&c, &x, 1, 64, mix, 2, levels[l - 1], levels[l], 2048, &gpu_noise, &r);
        add_plateau(&c, &truth, &x, 1, 64, l < 5 ? 330 : 2000 - c.n, levels[l], 2048, &gpu_noise,
                    &r);
    }
    assert_int_equal(c.n, 2000);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    gd_segmentation seg;
    detect(&c, NULL, &seg);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    printf("note: plateau detection on 2000 points x 2048 samples took %.3f s\n", seconds);
    check_staircase(&c, &seg, &truth, 1, 0.9);
    gd_segmentation_free(&seg);
    curve_free(&c);
}

static int cmp_double_ref(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* gd_sort_doubles (its own three-way quicksort since issue 18) gives what
 * qsort gives: random values, an integer timer's runs of equal values, sorted,
 * reversed and organ-pipe inputs, every size up to past the insertion cutoff
 * and a few large ones. */
static void test_sort_doubles_matches_qsort(void **state)
{
    (void)state;
    static const size_t sizes[] = {0, 1, 2, 3, 15, 16, 17, 31, 64, 100, 1000, 4096, 20000};
    uint64_t r = 12345;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
        size_t n = sizes[si];
        double *a = malloc((n ? n : 1) * sizeof *a), *b = malloc((n ? n : 1) * sizeof *b);
        assert_non_null(a);
        assert_non_null(b);
        for (int shape = 0; shape < 5; shape++) {
            for (size_t i = 0; i < n; i++) {
                r = r * 6364136223846793005ull + 1442695040888963407ull;
                double x = (double)(r >> 11) / 9007199254740992.0;
                switch (shape) {
                case 0: a[i] = x * 1e6 - 5e5; break;             /* spread, negative too */
                case 1: a[i] = (double)(30 + (r >> 60)); break;   /* a timer: 16 values */
                case 2: a[i] = (double)i; break;                  /* sorted */
                case 3: a[i] = (double)(n - i); break;            /* reversed */
                default: a[i] = (double)(i < n / 2 ? i : n - i); break; /* organ pipe */
                }
            }
            memcpy(b, a, n * sizeof *a);
            gd_sort_doubles(a, n);
            qsort(b, n, sizeof *b, cmp_double_ref);
            for (size_t i = 0; i < n; i++)
                if (a[i] != b[i])
                    fail_msg("size %zu shape %d: element %zu is %g, qsort's %g", n, shape, i, a[i],
                             b[i]);
        }
        free(a);
        free(b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort_doubles_matches_qsort),
        cmocka_unit_test(test_noiseless_three_levels),
        cmocka_unit_test(test_noisy_three_levels),
        cmocka_unit_test(test_transition_points),
        cmocka_unit_test(test_ten_percent_point_is_off),
        cmocka_unit_test(test_noiseless_one_percent_miss),
        cmocka_unit_test(test_five_levels),
        cmocka_unit_test(test_dense_linear_sweep),
        cmocka_unit_test(test_adaptive_sweep),
        cmocka_unit_test(test_flat_curve),
        cmocka_unit_test(test_glitch_and_ramp),
        cmocka_unit_test(test_single_point),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_random_staircases),
        cmocka_unit_test(test_large_curve),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
