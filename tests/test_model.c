/* test_model.c -- the analytical model equals the simulator's noiseless curve on
 * LRU arch files, point by point, including the partly thrashing points between
 * plateaus; and the random-replacement estimate behaves. */
#include "tests/testing.h"

#include <math.h>

#include "analysis/arch.h"
#include "analysis/model.h"
#include "host/device_registry.h"
#include "host/runner.h"
#include "kernels/probe.h"

static void load_arch(const char *name, gd_arch *a)
{
    char path[1024];
    gd_err err;
    if (gd_arch_resolve(name, path, sizeof path, &err) != 0 ||
        gd_arch_load(path, NULL, 0, a, &err) != 0)
        fail_msg("%s", err.msg);
}

/* Measures xs on sim:ARCH with opts and checks each point's mean against the model. */
static void check_model(const char *arch_name, const char *probe_name, const gd_probe_opts *opts,
                        const uint64_t *xs, size_t n)
{
    gd_arch arch;
    load_arch(arch_name, &arch);
    char spec[64];
    snprintf(spec, sizeof spec, "sim:%s", arch_name);
    gd_device *dev;
    gd_err err;
    if (gd_device_open(spec, NULL, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    gd_runner r;
    gd_curve c;
    gd_runner_init(&r, dev, NULL, NULL);
    gd_curve_init(&c, probe_name, gd_probe_find(probe_name), opts);
    uint64_t *bases = calloc(n, sizeof *bases);
    double *measured = calloc(n, sizeof *measured);
    for (size_t i = 0; i < n; i++) {
        if (gd_runner_measure(&r, &c, xs[i], i, n, &err) != 0)
            fail_msg("%s", err.msg);
        const gd_point *p = gd_curve_find(&c, xs[i]);
        int s = gd_point_series_index(p, "cycles"), b = gd_point_series_index(p, "chain_base");
        assert_true(s >= 0 && b >= 0);
        measured[i] = p->series[s].summary.mean;
        bases[i] = (uint64_t)p->series[b].samples[0];
    }
    gd_model_point *model = calloc(n, sizeof *model);
    if (gd_model_curve(&arch, probe_name, opts, xs, bases, n, model, &err) != 0)
        fail_msg("%s", err.msg);
    int partial = 0;
    for (size_t i = 0; i < n; i++) {
        if (fabs(model[i].mean_cycles - measured[i]) > 1e-6)
            fail_msg("%s %s x=%llu base 0x%llx: model %.6f (l1 %.4f l2 %.4f dram %.4f), sim %.6f",
                     arch_name, probe_name, (unsigned long long)xs[i],
                     (unsigned long long)bases[i], model[i].mean_cycles, model[i].fraction[0],
                     model[i].fraction[1], model[i].fraction[2], measured[i]);
        double lat[] = {arch.level[GD_L1D].latency_cycles, arch.level[GD_L2].latency_cycles,
                        arch.level[GD_DRAM].latency_cycles};
        int on_level = 0;
        for (int l = 0; l < 3; l++)
            on_level |= fabs(measured[i] - lat[l]) < 1e-9;
        partial += !on_level;
    }
    /* the sweeps below include points between plateaus: the model must get those too */
    if (!strcmp(probe_name, "pchase"))
        assert_true(partial >= 1);
    free(model);
    free(bases);
    free(measured);
    gd_curve_free(&c);
    gd_runner_close(&r);
    gd_device_close(dev);
}

/* footprints around both capacities: on, one stride past, a set's worth past, ... */
static size_t knee_points(const gd_arch *a, uint64_t stride, uint64_t *xs)
{
    size_t n = 0;
    const gd_arch_level *l1 = &a->level[GD_L1D], *l2 = &a->level[GD_L2];
    uint64_t c1 = l1->size_bytes, c2 = l2->size_bytes;
    uint64_t l1_set_span = (uint64_t)l1->line_bytes * l1->sets;
    uint64_t l2_set_span = (uint64_t)l2->line_bytes * l2->sets;
    uint64_t cands[] = {c1 / 2,          c1,     c1 + stride,  c1 + 3 * l1->line_bytes,
                        c1 + l1_set_span / 2, c1 + l1_set_span, 2 * c1, c2 - stride, c2,
                        c2 + stride, c2 + 5 * l2->line_bytes, c2 + l2_set_span / 3,
                        c2 + l2_set_span, 2 * c2};
    for (size_t i = 0; i < sizeof cands / sizeof cands[0]; i++) {
        uint64_t x = cands[i] / stride * stride;
        if (x && (n == 0 || x > xs[n - 1]))
            xs[n++] = x;
    }
    return n;
}

static void test_lru_archs_sequential(void **state)
{
    (void)state;
    const char *archs[] = {"tiny", "nonpow2", "gtx480"};
    for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++) {
        gd_arch a;
        load_arch(archs[i], &a);
        uint64_t xs[32];
        gd_probe_opts opts = {0};
        size_t n = knee_points(&a, 32, xs);
        check_model(archs[i], "pchase", &opts, xs, n);
        snprintf(opts.variant, sizeof opts.variant, "cg");
        check_model(archs[i], "pchase", &opts, xs, n);
    }
}

static void test_t4_knees(void **state)
{
    (void)state;
    gd_arch a;
    load_arch("t4", &a);
    uint64_t c1 = a.level[GD_L1D].size_bytes;
    uint64_t xs[] = {c1, c1 + 32, c1 + 4096, c1 + 16384, 2 * c1};
    gd_probe_opts opts = {0};
    check_model("t4", "pchase", &opts, xs, sizeof xs / sizeof xs[0]);
}

static void test_random_chain_one_element_per_line(void **state)
{
    (void)state;
    gd_arch a;
    load_arch("nonpow2", &a);
    uint64_t xs[32];
    gd_probe_opts opts = {.random_order = 1, .seed = 9, .stride_bytes = 128};
    size_t n = knee_points(&a, 128, xs);
    check_model("nonpow2", "pchase", &opts, xs, n);
}

static void test_stride_sweep(void **state)
{
    (void)state;
    uint64_t xs[] = {8, 16, 32, 64, 128, 256};
    gd_probe_opts opts = {.footprint_bytes = 64 * 1024};
    check_model("tiny", "pchase_stride", &opts, xs, 6);
    snprintf(opts.variant, sizeof opts.variant, "cg");
    check_model("gtx480", "pchase_stride", &opts, xs, 6);
}

static void test_random_replacement_estimate(void **state)
{
    (void)state;
    assert_true(gd_model_random_hit_rate(4, 4) == 1.0);
    double h5 = gd_model_random_hit_rate(5, 4);
    double h8 = gd_model_random_hit_rate(8, 4);
    double h64 = gd_model_random_hit_rate(64, 4);
    /* more lines than ways: fewer hits, never more than the ways can hold */
    assert_true(h5 > h8 && h8 > h64 && h64 >= 0);
    assert_true(h5 < 0.8 && h5 > 0.6);
    assert_true(h64 < 0.01);
    /* on the random arch the model's mean lies between the plateaus and tracks the sim */
    gd_arch a;
    load_arch("rand", &a);
    gd_probe_opts opts = {0};
    gd_model_point mp;
    gd_err err;
    uint64_t c1 = a.level[GD_L1D].size_bytes;
    assert_int_equal(gd_model_pchase(&a, &opts, c1, 0, &mp, &err), 0);
    assert_true(mp.mean_cycles == a.level[GD_L1D].latency_cycles);
    assert_int_equal(gd_model_pchase(&a, &opts, c1 + c1 / 4, 0, &mp, &err), 0);
    assert_true(mp.mean_cycles > a.level[GD_L1D].latency_cycles &&
                mp.mean_cycles < a.level[GD_L2].latency_cycles);
    assert_int_equal(gd_model_curve(&a, "stream", &opts, &c1, NULL, 1, &mp, &err), -1);
    assert_non_null(strstr(err.msg, "no analytical model for probe 'stream'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lru_archs_sequential),
        cmocka_unit_test(test_t4_knees),
        cmocka_unit_test(test_random_chain_one_element_per_line),
        cmocka_unit_test(test_stride_sweep),
        cmocka_unit_test(test_random_replacement_estimate),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
