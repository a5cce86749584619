/* test_sim_pchase.c -- the p-chase probe on the simulated T4: plateaus at the arch
 * file's latencies, knees at its capacities, the walk verified, the variants. */
#include "tests/testing.h"

#include "analysis/arch.h"
#include "host/device.h"
#include "host/device_registry.h"
#include "host/runner.h"
#include "kernels/probe.h"

typedef struct fixture {
    gd_device *dev;
    gd_arch arch;
} fixture;

static int open_arch(void **state, const char *name)
{
    fixture *f = calloc(1, sizeof *f);
    gd_err err;
    char spec[64], path[1024];
    snprintf(spec, sizeof spec, "sim:%s", name);
    if (gd_device_open(spec, NULL, &f->dev, &err) != 0 ||
        gd_arch_resolve(name, path, sizeof path, &err) != 0 ||
        gd_arch_load(path, NULL, 0, &f->arch, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static int setup_t4(void **state)
{
    return open_arch(state, "t4");
}

static int setup_tiny(void **state)
{
    return open_arch(state, "tiny");
}

static int teardown(void **state)
{
    fixture *f = *state;
    gd_device_close(f->dev);
    free(f);
    return 0;
}

/* Measures the given footprints; fails the test on any error. */
static void measure(fixture *f, gd_curve *curve, const gd_probe_opts *opts, const uint64_t *xs,
                    size_t n)
{
    gd_runner r;
    gd_err err;
    gd_runner_init(&r, f->dev, NULL, NULL);
    gd_curve_init(curve, "pchase", gd_probe_find("pchase"), opts);
    for (size_t i = 0; i < n; i++)
        if (gd_runner_measure(&r, curve, xs[i], i, n, &err) != 0)
            fail_msg("%s", err.msg);
    gd_runner_close(&r);
}

static const gd_summary *cycles_at(const gd_curve *c, uint64_t x)
{
    const gd_point *p = gd_curve_find(c, x);
    assert_non_null(p);
    int s = gd_point_series_index(p, "cycles");
    assert_true(s >= 0);
    return &p->series[s].summary;
}

static void assert_flat_at(const gd_curve *c, uint64_t x, unsigned latency)
{
    const gd_summary *s = cycles_at(c, x);
    if (s->min < latency - 1.0 || s->max > latency + 1.0 || s->median != latency)
        fail_msg("footprint %llu: samples %.1f..%.1f (median %.1f), expected flat at %u",
                 (unsigned long long)x, s->min, s->max, s->median, latency);
}

static void assert_above(const gd_curve *c, uint64_t x, unsigned latency)
{
    const gd_summary *s = cycles_at(c, x);
    if (!(s->max > latency + 1.0 && s->mean > latency))
        fail_msg("footprint %llu: max %.1f mean %.2f, expected misses above %u",
                 (unsigned long long)x, s->max, s->mean, latency);
}

static void test_t4_plateaus_and_knees(void **state)
{
    fixture *f = *state;
    const gd_arch_level *l1 = &f->arch.level[GD_L1D], *l2 = &f->arch.level[GD_L2];
    unsigned lat1 = l1->latency_cycles, lat2 = l2->latency_cycles,
             lat3 = f->arch.level[GD_DRAM].latency_cycles;
    uint64_t c1 = l1->size_bytes, c2 = l2->size_bytes;
    uint64_t xs[] = {4096, c1 / 2, c1, c1 + l1->line_bytes, 2 * c1, c2 / 2, c2,
                     c2 + l2->line_bytes, 2 * c2, 4 * c2};
    gd_probe_opts opts = {0};
    gd_curve c;
    measure(f, &c, &opts, xs, sizeof xs / sizeof xs[0]);
    /* flat regions at the arch file's latencies */
    assert_flat_at(&c, 4096, lat1);
    assert_flat_at(&c, c1 / 2, lat1);
    assert_flat_at(&c, c1, lat1);         /* the L1 knee: its capacity still hits ... */
    assert_above(&c, c1 + l1->line_bytes, lat1); /* ... one more line misses */
    assert_flat_at(&c, 2 * c1, lat2);
    assert_flat_at(&c, c2 / 2, lat2);
    assert_flat_at(&c, c2, lat2);         /* the L2 knee */
    assert_above(&c, c2 + l2->line_bytes, lat2);
    assert_flat_at(&c, 2 * c2, lat3);
    assert_flat_at(&c, 4 * c2, lat3);
    /* the timer correction is the measured cost of the timed sequence */
    const gd_point *p = gd_curve_find(&c, 4096);
    int o = gd_point_series_index(p, "timer_overhead");
    assert_true(o >= 0);
    assert_true(p->series[o].summary.median >= 1);
    gd_curve_free(&c);
}

static void test_t4_cg_skips_l1(void **state)
{
    fixture *f = *state;
    uint64_t xs[] = {16384, 8 << 20};
    gd_probe_opts opts = {0};
    snprintf(opts.variant, sizeof opts.variant, "cg");
    gd_curve c;
    measure(f, &c, &opts, xs, 2);
    assert_flat_at(&c, 16384, f->arch.level[GD_L2].latency_cycles);
    assert_flat_at(&c, 8 << 20, f->arch.level[GD_DRAM].latency_cycles);
    gd_curve_free(&c);
}

static void test_t4_random_pattern(void **state)
{
    fixture *f = *state;
    uint64_t xs[] = {32768, 1 << 20, 16 << 20};
    gd_probe_opts opts = {.random_order = 1, .seed = 42, .stride_bytes = 128};
    gd_curve c;
    measure(f, &c, &opts, xs, 3);
    assert_flat_at(&c, 32768, f->arch.level[GD_L1D].latency_cycles);
    assert_flat_at(&c, 1 << 20, f->arch.level[GD_L2].latency_cycles);
    assert_flat_at(&c, 16 << 20, f->arch.level[GD_DRAM].latency_cycles);
    gd_curve_free(&c);
}

/* A dense sweep on the tiny arch: every point up to a capacity is flat, every
 * point past it is not. */
static void test_tiny_dense_knees(void **state)
{
    fixture *f = *state;
    gd_sweep sw;
    gd_err err;
    assert_int_equal(gd_sweep_parse("512:40KiB:+256", 32, &sw, &err), 0);
    gd_probe_opts opts = {0};
    gd_curve c;
    measure(f, &c, &opts, sw.points, sw.count);
    uint64_t c1 = f->arch.level[GD_L1D].size_bytes, c2 = f->arch.level[GD_L2].size_bytes;
    for (size_t i = 0; i < sw.count; i++) {
        uint64_t x = sw.points[i];
        if (x <= c1)
            assert_flat_at(&c, x, f->arch.level[GD_L1D].latency_cycles);
        else if (x <= c1 + 256)
            assert_above(&c, x, f->arch.level[GD_L1D].latency_cycles);
        else if (x >= 2 * c1 && x <= c2)
            assert_flat_at(&c, x, f->arch.level[GD_L2].latency_cycles);
        else if (x > c2 && x <= c2 + 256)
            assert_above(&c, x, f->arch.level[GD_L2].latency_cycles);
        else if (x >= 2 * c2)
            assert_flat_at(&c, x, f->arch.level[GD_DRAM].latency_cycles);
    }
    gd_curve_free(&c);
    gd_sweep_free(&sw);
    /* the L1 saw hits for the whole timed lap of every L1-resident footprint */
    gd_counter_list cl = {0};
    assert_int_equal(gd_device_counters(f->dev, &cl, &err), 0);
    assert_true(gd_counter_list_get(&cl, "l1d.hits", 0) >= (double)(c1 / 32));
    assert_true(gd_counter_list_get(&cl, "sim.warp_insns", 0) > 0);
    gd_counter_list_free(&cl);
}

/* decode rejects a walk that did not return to the start or skipped elements */
static void test_walk_is_verified(void **state)
{
    fixture *f = *state;
    const gd_probe *p = gd_probe_find("pchase");
    gd_probe_opts opts = {0};
    gd_probe_plan plan;
    gd_err err;
    assert_int_equal(p->plan(&opts, gd_device_get_info(f->dev), 4096, &plan, &err), 0);
    gd_devptr addr[2] = {0x7f0000000000ull, 0x7f0000200000ull};
    uint8_t *out = calloc(1, plan.buffers[1].bytes);
    /* 128 elements: timed for 32 laps, to give 4096 samples */
    uint64_t n = 4096 / 32, laps = 32, base = addr[0];
    uint64_t sum = (n * base + 32 * (n * (n - 1) / 2)) * laps;
    void *bufs[2] = {NULL, out};
    gd_probe_result res = {0};

    uint64_t wrong = base + 64;
    memcpy(out, &wrong, 8);
    memcpy(out + 8, &sum, 8);
    assert_int_equal(p->decode(&plan, addr, bufs, &res, &err), -1);
    assert_non_null(strstr(err.msg, "did not follow the chain"));
    gd_probe_result_free(&res);

    memcpy(out, &base, 8);
    uint64_t short_sum = sum - base;
    memcpy(out + 8, &short_sum, 8);
    assert_int_equal(p->decode(&plan, addr, bufs, &res, &err), -1);
    assert_non_null(strstr(err.msg, "some elements were not visited"));
    gd_probe_result_free(&res);

    /* the histogram must count one access per element (it sits after the
     * 40-byte header -- position, checksum, the timed laps' cycles and
     * nanoseconds -- and 32 calibration deltas) */
    memcpy(out + 8, &sum, 8);
    assert_int_equal(p->decode(&plan, addr, bufs, &res, &err), -1);
    assert_non_null(strstr(err.msg, "the histogram counts 0 accesses, the timed laps have 4096"));
    gd_probe_result_free(&res);
    uint32_t count = (uint32_t)(n * laps);
    memcpy(out + 40 + 32 * 4 + 4 * 20, &count, 4);
    uint64_t region_cycles = 150000, region_ns = 100000; /* 1500 MHz */
    memcpy(out + 16, &region_cycles, 8);
    memcpy(out + 24, &region_ns, 8);
    assert_int_equal(p->decode(&plan, addr, bufs, &res, &err), 0);
    assert_int_equal(res.series[0].count, n * laps);
    assert_true(res.series[0].samples[0] == 20);
    const gd_series *clock = NULL;
    for (unsigned i = 0; i < res.series_count; i++)
        if (!strcmp(res.series[i].name, "sm_clock_mhz"))
            clock = &res.series[i];
    assert_non_null(clock);
    assert_int_equal(clock->count, 1);
    assert_true(clock->samples[0] == 1500.0);
    gd_probe_result_free(&res);
    free(out);
    gd_probe_plan_free(p, &plan);
}

/* --timed N: the first N accesses of the lap after the warm-up, not whole
 * laps -- N samples, the same plateaus (sequential and random chains, the
 * random one's end and sum taken from its permutation), and more than N a
 * whole lap again */
static void test_partial_lap(void **state)
{
    fixture *f = *state;
    uint64_t xs[] = {32768, 1 << 20, 16 << 20};
    for (int random = 0; random <= 1; random++) {
        gd_probe_opts opts = {.random_order = random, .seed = 42, .stride_bytes = 128,
                              .timed_accesses = 5000};
        gd_curve c;
        measure(f, &c, &opts, xs, 3);
        assert_flat_at(&c, 32768, f->arch.level[GD_L1D].latency_cycles);
        assert_flat_at(&c, 1 << 20, f->arch.level[GD_L2].latency_cycles);
        assert_flat_at(&c, 16 << 20, f->arch.level[GD_DRAM].latency_cycles);
        /* 256 elements (32 KiB / 128 B) give 16 laps of 4096 samples: more
         * than 5000 is asked for, so whole laps; the others time 5000 */
        assert_int_equal(cycles_at(&c, 32768)->count, 4096);
        assert_int_equal(cycles_at(&c, 1 << 20)->count, 5000);
        assert_int_equal(cycles_at(&c, 16 << 20)->count, 5000);
        gd_curve_free(&c);
    }
}

/* a constant chase's partial lap -- offsets, not addresses -- longer than one
 * lap of its chain (1500 of 256 elements' 16 laps): the walk goes round it
 * and is still verified; the L1.5 hits as in whole laps */
static void test_partial_lap_constant(void **state)
{
    fixture *f = *state;
    const gd_probe *p = gd_probe_find("const_seq");
    assert_non_null(p);
    uint32_t want[2] = {4096, 1500};
    double median[2];
    for (int i = 0; i < 2; i++) {
        gd_probe_opts opts = {.stride_bytes = 64, .timed_accesses = i ? 1500 : 0};
        gd_runner r;
        gd_curve c;
        gd_err err;
        gd_runner_init(&r, f->dev, NULL, NULL);
        gd_curve_init(&c, "const_seq", p, &opts);
        if (gd_runner_measure(&r, &c, 16384, 0, 1, &err) != 0)
            fail_msg("%s", err.msg);
        gd_runner_close(&r);
        const gd_summary *s = cycles_at(&c, 16384);
        assert_int_equal(s->count, want[i]);
        median[i] = s->median;
        gd_curve_free(&c);
    }
    assert_true(median[0] == f->arch.level[GD_L15C].latency_cycles);
    assert_true(median[1] == median[0]);
}

/* decode checks a partial lap where it ends: element N of the chain, with the
 * sum of the N links it read */
static void test_partial_lap_is_verified(void **state)
{
    fixture *f = *state;
    const gd_probe *p = gd_probe_find("pchase");
    gd_probe_opts opts = {.timed_accesses = 100};
    gd_probe_plan plan;
    gd_err err;
    /* 8192 elements of 32 bytes: one lap is 8192 accesses, 100 are timed */
    assert_int_equal(p->plan(&opts, gd_device_get_info(f->dev), 8192 * 32, &plan, &err), 0);
    gd_devptr addr[2] = {0x7f0000000000ull, 0x7f0000400000ull};
    uint8_t *out = calloc(1, plan.buffers[1].bytes);
    uint64_t base = addr[0], end = base + 100 * 32, sum = 100 * base + 32 * (100 * 101 / 2);
    void *bufs[2] = {NULL, out};
    gd_probe_result res = {0};
    /* back at the start, as a whole lap would be: wrong for 100 steps */
    memcpy(out, &base, 8);
    memcpy(out + 8, &sum, 8);
    assert_int_equal(p->decode(&plan, addr, bufs, &res, &err), -1);
    assert_non_null(strstr(err.msg, "100 steps along the chain ended at"));
    gd_probe_result_free(&res);
    memcpy(out, &end, 8);
    uint64_t short_sum = sum - 32;
    memcpy(out + 8, &short_sum, 8);
    assert_int_equal(p->decode(&plan, addr, bufs, &res, &err), -1);
    assert_non_null(strstr(err.msg, "some elements were not visited"));
    gd_probe_result_free(&res);
    memcpy(out + 8, &sum, 8);
    uint32_t count = 100;
    memcpy(out + 40 + 32 * 4 + 4 * 20, &count, 4);
    assert_int_equal(p->decode(&plan, addr, bufs, &res, &err), 0);
    assert_int_equal(res.series[0].count, 100);
    gd_probe_result_free(&res);
    free(out);
    gd_probe_plan_free(p, &plan);
}

static void test_bad_options(void **state)
{
    fixture *f = *state;
    const gd_probe *p = gd_probe_find("pchase");
    gd_probe_plan plan;
    gd_err err;
    gd_probe_opts bad_variant = {0};
    snprintf(bad_variant.variant, sizeof bad_variant.variant, "lu");
    assert_int_equal(p->plan(&bad_variant, gd_device_get_info(f->dev), 4096, &plan, &err), -1);
    assert_non_null(strstr(err.msg, "unknown variant 'lu'"));
    gd_probe_opts bad_stride = {.stride_bytes = 12};
    assert_int_equal(p->plan(&bad_stride, gd_device_get_info(f->dev), 4096, &plan, &err), -1);
    assert_non_null(strstr(err.msg, "multiple of 8"));
    gd_probe_opts bad_samples = {.samples = 100};
    assert_int_equal(p->plan(&bad_samples, gd_device_get_info(f->dev), 4096, &plan, &err), -1);
    assert_non_null(strstr(err.msg, "power of two"));
}

/* An L1 whose fill granule (128-byte sectors, the K80's) is larger than the
 * L2's 32-byte line: each missing sector comes back as four L2-line pieces.
 * The sim once released the L1 MSHR at the first piece and failed on the
 * second ("a fill for L1 line ... has no MSHR"); now the sector is valid when
 * its last piece is in, the chase runs, the L1 still holds 64 KiB and a miss
 * to the L2 costs the L2 latency plus the pieces' serialization. */
static void test_l1_sector_larger_than_l2_line(void **state)
{
    (void)state;
    const char *set[] = {"L1D.sector=128"};
    gd_device_opts dopts = {.overrides = set, .override_count = 1};
    gd_device *dev = NULL;
    gd_err err;
    char path[1024];
    gd_arch arch;
    if (gd_device_open("sim:t4", &dopts, &dev, &err) != 0 ||
        gd_arch_resolve("t4", path, sizeof path, &err) != 0 ||
        gd_arch_load(path, set, 1, &arch, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(arch.level[GD_L1D].sector_bytes, 128);
    assert_true(arch.level[GD_L2].line_bytes < 128);
    gd_probe_opts opts = {.stride_bytes = 128};
    uint64_t xs[] = {32 * 1024, 256 * 1024};
    fixture f = {.dev = dev, .arch = arch};
    gd_curve c;
    measure(&f, &c, &opts, xs, 2);
    assert_flat_at(&c, 32 * 1024, arch.level[GD_L1D].latency_cycles);
    const gd_summary *miss = cycles_at(&c, 256 * 1024);
    uint32_t pieces = 128 / arch.level[GD_L2].line_bytes;
    if (miss->median < arch.level[GD_L2].latency_cycles ||
        miss->median > arch.level[GD_L2].latency_cycles + pieces)
        fail_msg("256 KiB at stride 128: median %.1f, expected the L2's %u (+ up to %u)",
                 miss->median, arch.level[GD_L2].latency_cycles, pieces);
    gd_curve_free(&c);
    gd_device_close(dev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_t4_plateaus_and_knees, setup_t4, teardown),
        cmocka_unit_test_setup_teardown(test_t4_cg_skips_l1, setup_t4, teardown),
        cmocka_unit_test_setup_teardown(test_t4_random_pattern, setup_t4, teardown),
        cmocka_unit_test_setup_teardown(test_tiny_dense_knees, setup_tiny, teardown),
        cmocka_unit_test_setup_teardown(test_walk_is_verified, setup_tiny, teardown),
        cmocka_unit_test_setup_teardown(test_partial_lap, setup_t4, teardown),
        cmocka_unit_test_setup_teardown(test_partial_lap_constant, setup_t4, teardown),
        cmocka_unit_test_setup_teardown(test_partial_lap_is_verified, setup_tiny, teardown),
        cmocka_unit_test_setup_teardown(test_bad_options, setup_tiny, teardown),
        cmocka_unit_test(test_l1_sector_larger_than_l2_line),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
