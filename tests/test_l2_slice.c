/* test_l2_slice.c -- the L2's slice count from the l2_slice probe (issue 12).
 *
 *   - the inference (analysis/infer_l2_slice.c) on written curves: every SM's
 *     L2 requests per cycle at strides of k lines, min(peak, floor x s /
 *     gcd(k, s)) for slice counts s from 2 to 96 per partition (primes,
 *     non-powers of two, A100's 40 and H100's 50), with 5% noise, the peak
 *     capped by the requests in flight, and the period's second multiple
 *     losing hits to its crowded sets: s exact, the period s x 128, the total
 *     s x 2 where the run found L2FAR, a lower bound where 2s is past the
 *     sweep;
 *   - what must not be read as slices: a flat curve (one slice, or a hash that
 *     spreads every stride), and a monolithic L2 whose power-of-two strides
 *     lose some hits to set aliasing (a 30% dip at multiples of 32 lines);
 *   - a curve that is not a sweep of multiples of its first stride is an error
 *     naming the stride;
 *   - the probe's plan: strides off the 32-byte grid refused; the distinct
 *     lines within the L2 / 128 lines, every SM in a group;
 *   - on the simulator: the probe on tiny with 3 slices per partition (the
 *     modulo map, no partitions) gives 3, and with an XOR map of 4 gives no
 *     pattern.
 */
#include "tests/testing.h"

#include <math.h>

#include "analysis/curve.h"
#include "analysis/infer.h"
#include "analysis/infer_l2_slice.h"
#include "kernels/probe.h"
#include "kernels/probe_layout.h"

#define UNIT 128

static uint64_t gcd_u64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

static void add_point(gd_curve *c, uint64_t x, double t)
{
    gd_point pt;
    memset(&pt, 0, sizeof pt);
    pt.x = x;
    pt.sm_clock_mhz = NAN;
    snprintf(pt.series[0].name, sizeof pt.series[0].name, "requests_per_cycle");
    pt.series[0].samples = malloc(sizeof(double));
    assert_non_null(pt.series[0].samples);
    pt.series[0].samples[0] = t;
    assert_int_equal(gd_summarize(pt.series[0].samples, 1, &pt.series[0].summary), 0);
    pt.series_count = 1;
    assert_int_equal(gd_curve_insert(c, &pt), 0);
}

static void curve_init(gd_curve *c)
{
    gd_probe_opts opts;
    memset(&opts, 0, sizeof opts);
    snprintf(opts.variant, sizeof opts.variant, "read");
    gd_curve_init(c, "l2-slice", gd_probe_find("l2_slice"), &opts);
}

/* A modulo-mapped L2 of s slices per partition, strides 1..kmax lines:
 * floor x s / gcd capped at peak, +-noise (deterministic), and with `alias`
 * the period's second multiple at a third of the floor (its lines on half a
 * slice's sets, past their capacity: the probe keeps that from happening up
 * to 128 lines, a card whose L2 line is not 128 B might not). */
static void build(gd_curve *c, uint64_t s, uint64_t kmax, double floor, double peak,
                  double noise, int alias)
{
    curve_init(c);
    for (uint64_t k = 1; k <= kmax; k++) {
        double t = fmin(peak, floor * (double)(s / gcd_u64(k, s)));
        if (alias && k == 2 * s)
            t = floor / 3;
        t *= 1 + noise * ((double)((k * 37) % 11) / 5.0 - 1); /* within +-noise */
        add_point(c, k * UNIT, t);
    }
}

static void infer(gd_curve *c, int far, gd_inference *inf, gd_err *err, int expect_rc)
{
    memset(inf, 0, sizeof *inf);
    inf->level[GD_INF_L2FAR].present = far;
    int rc = gd_infer_l2_slice(inf, c, err);
    if (rc != expect_rc)
        fail_msg("gd_infer_l2_slice returned %d: %s", rc, rc ? err->msg : "");
}

static void test_counts(void **state)
{
    (void)state;
    static const uint64_t counts[] = {2, 3, 5, 6, 7, 10, 12, 24, 40, 50, 64, 80, 96};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        for (int far = 0; far <= 1; far++)
            for (int v = 0; v < 3; v++) {
                uint64_t s = counts[i];
                /* v 0: quiet, the peak at 24 slices' worth; 1: 5% noise, the
                 * peak at 3 slices' (few requests in flight); 2: noise and
                 * the period's second multiple aliasing */
                double floor = far ? 2.0 : 1.0;
                double peak = floor * (v == 1 ? 3 : 24);
                double noise = v ? 0.05 : 0;
                gd_curve c;
                gd_inference inf;
                gd_err err;
                build(&c, s, 128, floor, peak, noise, v == 2);
                infer(&c, far, &inf, &err, 0);
                const gd_inferred_slices *x = &inf.below.slices;
                assert_true(x->has);
                if (!x->resolved)
                    fail_msg("s=%llu far=%d v=%d: not resolved: %s", (unsigned long long)s, far, v,
                             x->why);
                if (x->slices_per_partition != s)
                    fail_msg("s=%llu far=%d v=%d: read %u", (unsigned long long)s, far, v,
                             x->slices_per_partition);
                assert_int_equal(x->partitions, far ? 2 : 1);
                assert_int_equal(x->slices, s * (far ? 2 : 1));
                assert_int_equal(x->period_bytes, s * UNIT);
                assert_int_equal(x->unit_bytes, UNIT);
                assert_int_equal(x->lower_bound, 2 * s > 128);
                assert_true(fabs(x->floor_requests_per_cycle - floor) <= floor * (noise + 1e-9));
                assert_true(x->confidence >= (v == 2 ? 0.9 : 0.97));
                assert_string_equal(x->from, "l2-slice");
                gd_curve_free(&c);
            }
}

static void test_no_pattern(void **state)
{
    (void)state;
    gd_curve c;
    gd_inference inf;
    gd_err err;
    /* flat, with noise */
    build(&c, 1, 128, 9.4, 9.4, 0.03, 0);
    infer(&c, 1, &inf, &err, 0);
    assert_true(inf.below.slices.has);
    assert_false(inf.below.slices.resolved);
    assert_non_null(strstr(inf.below.slices.why, "one slice, or a hash"));
    assert_true(inf.below.slices.confidence > 0.97);
    gd_curve_free(&c);
    /* a monolithic L2 with power-of-two sets: multiples of 32 lines crowd
     * 1/32 of the sets and lose some hits (sim:t4 before the probe kept its
     * lines within L2 / 128: 5.25 -> 3.6 requests/cycle, 2.3 at 128) */
    curve_init(&c);
    for (uint64_t k = 1; k <= 128; k++)
        add_point(&c, k * UNIT, k % 128 == 0 ? 2.28 : k % 32 == 0 ? 3.61 : 5.25);
    infer(&c, 0, &inf, &err, 0);
    assert_false(inf.below.slices.resolved);
    gd_curve_free(&c);
}

static void test_bad_curve(void **state)
{
    (void)state;
    gd_curve c;
    gd_inference inf;
    gd_err err;
    curve_init(&c);
    for (uint64_t k = 1; k <= 8; k++)
        add_point(&c, k * UNIT, 4.0);
    add_point(&c, 9 * UNIT + 32, 4.0);
    infer(&c, 0, &inf, &err, -1);
    assert_non_null(strstr(err.msg, "stride 1184 is not a multiple of the first (128)"));
    gd_curve_free(&c);
    curve_init(&c);
    add_point(&c, 128, 4.0);
    add_point(&c, 256, 4.0);
    infer(&c, 0, &inf, &err, -1);
    assert_non_null(strstr(err.msg, "needs four strides at least, has 2"));
    gd_curve_free(&c);
}

static void test_plan(void **state)
{
    (void)state;
    const gd_probe *p = gd_probe_find("l2_slice");
    assert_non_null(p);
    gd_device_info dev;
    memset(&dev, 0, sizeof dev);
    dev.cc_major = 8;
    dev.sm_count = 108;
    dev.l2_bytes = 40u << 20;
    gd_probe_opts o;
    memset(&o, 0, sizeof o);
    gd_probe_plan plan;
    gd_err err;
    assert_int_equal(p->plan(&o, &dev, 100, &plan, &err), -1);
    assert_non_null(strstr(err.msg, "multiple of 32 bytes"));
    o.stride_bytes = 128;
    assert_int_equal(p->plan(&o, &dev, 128, &plan, &err), -1);
    assert_non_null(strstr(err.msg, "do not apply"));
    o.stride_bytes = 0;
    assert_int_equal(p->plan(&o, &dev, 5120, &plan, &err), 0);
    /* 40 MiB / (128 B x 128) = 2560 lines: 40 line sets of 64 (two loads of
     * 32 lanes), 108 CTAs in groups of 3 -> 36 sets */
    assert_int_equal(plan.grid[0], 108);
    assert_int_equal(plan.block[0], 32);
    assert_int_equal(plan.params[4].value, 3);
    assert_int_equal(plan.buffers[0].bytes, 36ull * 64 * 5120);
    assert_non_null(strstr(plan.ptx, "ld.global.cg.u32"));
    gd_probe_plan_free(p, &plan);
    /* an L2 too small for one set per CTA: every CTA reads the same 64 lines */
    dev.l2_bytes = 512 << 10;
    assert_int_equal(p->plan(&o, &dev, 128, &plan, &err), 0);
    assert_int_equal(plan.params[4].value, 108);
    assert_int_equal(plan.buffers[0].bytes, 64ull * 128);
    gd_probe_plan_free(p, &plan);
}

/* The probe on the simulator, through `gpudissect run`, read back and inferred. */
static void sim_slices(const char *sets, gd_inferred_slices *out)
{
    char *dir = gd_test_tmpdir();
    char cmd[2048], out_text[8192];
    snprintf(cmd, sizeof cmd,
             "%s run --device sim:tiny --probe l2_slice --sweep 128:4KiB:+128 --out %s/run "
             "--set gpu.sms=16 --set L1D.mshr_entries=64 --set L2.line=128 "
             "--set L2.requests_per_cycle=16 --set L2.slice_requests_per_cycle=1 %s",
             gd_test_binary(), dir, sets);
    if (gd_test_run(cmd, out_text, sizeof out_text) != 0)
        fail_msg("%s failed:\n%s", cmd, out_text);
    char csv[1200];
    snprintf(csv, sizeof csv, "%s/run/l2_slice.csv", dir);
    gd_curve c;
    gd_err err;
    if (gd_curve_read_csv(csv, "l2-slice", gd_probe_find("l2_slice"), &c, &err) != 0)
        fail_msg("%s", err.msg);
    gd_inference inf;
    memset(&inf, 0, sizeof inf);
    if (gd_infer_l2_slice(&inf, &c, &err) != 0)
        fail_msg("%s", err.msg);
    *out = inf.below.slices;
    gd_curve_free(&c);
    gd_test_rmrf(dir);
    free(dir);
}

static void test_on_the_simulator(void **state)
{
    (void)state;
    gd_inferred_slices x;
    sim_slices("--set L2.size=3MiB --set L2.ways=16 --set L2.slices=3", &x);
    if (!x.resolved || x.slices_per_partition != 3)
        fail_msg("3 modulo slices: resolved %d, %u (%s)", x.resolved, x.slices_per_partition,
                 x.why);
    assert_int_equal(x.period_bytes, 3 * 128);
    assert_false(x.lower_bound);
    sim_slices("--set L2.size=2MiB --set L2.slices=4 --set L2.hash=xor --set L2.xor_bits=12-13",
               &x);
    if (x.resolved)
        fail_msg("4 XOR slices read as %u modulo ones", x.slices_per_partition);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_no_pattern),
        cmocka_unit_test(test_bad_curve),
        cmocka_unit_test(test_plan),
        cmocka_unit_test(test_on_the_simulator),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
