/* test_watchdog.c -- long points spread over launches under a display watchdog.
 *
 *   - on the simulator (assume_watchdog, a small launch budget): a chase point
 *     whose worst case exceeds the budget runs as n launches of the resumable
 *     kernel -- n from the bound (dependent accesses x the worst access at the
 *     arch clock) -- and decodes to the same point as one launch: the walk's
 *     own checks (it ends at the start, every element summed, one histogram
 *     count per timed access) pass, and the latencies are the one-launch ones;
 *     for global and constant chains;
 *   - a probe that cannot split is refused with the bound in the message;
 *   - on the mock driver, CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT = 1 alone
 *     makes the runner split a point (and not when it is 0), after one untimed
 *     warm-up launch; the last launch resumes.
 */
#include "tests/testing.h"

#include "host/device.h"
#include "host/device_registry.h"
#include "host/runner.h"
#include "tests/mock_libcuda.h"
#include "tests/ptx_toolchain.h"

#include <dlfcn.h>
#include <math.h>

#define assert_contains(text, needle)                                                          \
    do {                                                                                       \
        const char *haystack_ = (text);                                                        \
        if (!strstr(haystack_, (needle)))                                                      \
            fail_msg("\"%s\" lacks \"%s\"", haystack_, (needle));                              \
    } while (0)

typedef struct measured {
    gd_summary cycles, recent;
    double clock_mhz;
    size_t launches, split_points;
} measured;

static int measure(gd_device *dev, const gd_probe *probe, uint64_t x, int assume_watchdog,
                   double budget_s, measured *out, gd_err *err)
{
    gd_curve curve;
    gd_curve_init(&curve, probe->name, probe, NULL);
    gd_runner runner;
    gd_runner_init(&runner, dev, NULL, NULL);
    runner.assume_watchdog = assume_watchdog;
    runner.launch_budget_s = budget_s;
    int rc = gd_runner_measure(&runner, &curve, x, 0, 1, err);
    memset(out, 0, sizeof *out);
    out->launches = runner.launches;
    out->split_points = runner.split_points;
    if (rc == 0) {
        const gd_point *p = &curve.points[0];
        out->cycles = p->series[gd_point_series_index(p, "cycles")].summary;
        out->recent = p->series[gd_point_series_index(p, "recent_cycles")].summary;
        out->clock_mhz = p->sm_clock_mhz;
    }
    gd_runner_close(&runner);
    gd_curve_free(&curve);
    return rc;
}

/* The launches the bound asks for: accesses x worst cycles / clock / budget. */
static unsigned expected_launches(const gd_probe *probe, const gd_device_info *info, uint64_t x,
                                  double budget_s)
{
    gd_probe_opts opts = {0};
    gd_probe_plan plan;
    gd_err err;
    if (probe->plan(&opts, info, x, &plan, &err) != 0)
        fail_msg("%s", err.msg);
    double s = (double)plan.dependent_accesses * GD_WATCHDOG_WORST_ACCESS_CYCLES /
               (info->clock_mhz * 1e6);
    gd_probe_plan_free(probe, &plan);
    return (unsigned)ceil(s / budget_s);
}

static void split_matches_one_launch(const char *spec, const char *probe_name, uint64_t x)
{
    gd_device *dev = NULL;
    gd_err err = {{0}};
    if (gd_device_open(spec, NULL, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    const gd_probe *probe = gd_probe_find(probe_name);
    assert_non_null(probe);
    /* a budget that makes about seven launches of this point */
    gd_probe_opts opts = {0};
    gd_probe_plan plan;
    if (probe->plan(&opts, gd_device_get_info(dev), x, &plan, &err) != 0)
        fail_msg("%s", err.msg);
    double one_s = (double)plan.dependent_accesses * GD_WATCHDOG_WORST_ACCESS_CYCLES /
                   (gd_device_get_info(dev)->clock_mhz * 1e6);
    gd_probe_plan_free(probe, &plan);
    double budget_s = one_s / 6.5;
    unsigned n = expected_launches(probe, gd_device_get_info(dev), x, budget_s);
    assert_int_equal(n, 7);

    measured one, split;
    if (measure(dev, probe, x, 0, 0, &one, &err) != 0)
        fail_msg("one launch: %s", err.msg);
    assert_int_equal(one.launches, 1);
    assert_int_equal(one.split_points, 0);
    /* the budget is ample for one launch: no split even with a watchdog */
    if (measure(dev, probe, x, 1, one_s * 2, &split, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(split.launches, 1);
    if (measure(dev, probe, x, 1, budget_s, &split, &err) != 0)
        fail_msg("%s %s spread over %u launches: %s", spec, probe_name, n, err.msg);
    assert_int_equal(split.launches, n);
    assert_int_equal(split.split_points, 1);
    /* the same accesses, the same latencies (the sim keeps its caches between
     * launches, as a card keeps its L2) */
    assert_int_equal(split.cycles.count, one.cycles.count);
    assert_int_equal(split.recent.count, one.recent.count);
    if (fabs(split.cycles.median - one.cycles.median) > 0.5 ||
        fabs(split.cycles.mean - one.cycles.mean) > 0.02 * one.cycles.mean)
        fail_msg("%s %s: split median %.1f mean %.2f, one launch %.1f / %.2f", spec, probe_name,
                 split.cycles.median, split.cycles.mean, one.cycles.median, one.cycles.mean);
    /* the clocked region spans the launches: still the arch clock */
    assert_true(fabs(split.clock_mhz - one.clock_mhz) < 1e-3 * one.clock_mhz);
    gd_device_close(dev);
}

static void test_sim_split_global(void **unused)
{
    (void)unused;
    split_matches_one_launch("sim:tiny", "pchase", 8192);   /* past L1, in L2 */
    split_matches_one_launch("sim:tiny", "pchase", 65536);  /* past L2 */
}

static void test_sim_split_constant(void **unused)
{
    (void)unused;
    split_matches_one_launch("sim:tiny", "const_seq", 4096);
}

static void test_refused_without_split(void **unused)
{
    (void)unused;
    gd_device *dev = NULL;
    gd_err err = {{0}};
    if (gd_device_open("sim:tiny", NULL, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    gd_probe unsplittable = *gd_probe_find("pchase");
    unsplittable.split = NULL;
    measured m;
    assert_int_equal(measure(dev, &unsplittable, 65536, 1, 1e-6, &m, &err), -1);
    assert_contains(err.msg, "pchase: one launch of this point may run ");
    assert_contains(err.msg, "cannot spread a point over launches");
    assert_int_equal(m.launches, 0);
    gd_device_close(dev);
}

static void test_mock_watchdog_attribute(void **unused)
{
    (void)unused;
#ifndef GD_HAVE_CUDA
    GD_SKIP("built without CUDA headers");
#else
    const char *path = gd_test_mock_libcuda();
    if (!path)
        GD_SKIP("mock driver libmockcuda.so not found");
    const char *ptxas = gd_test_ptxas();
    if (!ptxas)
        GD_SKIP("ptxas not found (the mock driver JITs with it)");
    setenv("PTXAS", ptxas, 1);
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(lib);
    mock_cuda_state_fn state = (mock_cuda_state_fn)dlsym(lib, MOCK_CUDA_STATE_SYMBOL);
    assert_non_null(state);
    setenv("GPUDISSECT_LIBCUDA", path, 1);
    /* counters are tested in test_cupti.c; keep the toolkit's real CUPTI out */
    setenv("GPUDISSECT_LIBCUPTI", "/nonexistent/libcupti.so", 1);
    const gd_probe *probe = gd_probe_find("pchase");
    /* 64 MiB of 32-byte elements: 2M warm-up and 2M timed dependent loads,
     * ~2.6 s at 2000 cycles and the mock's 1590 MHz */
    const uint64_t x = 64ull << 20;

    for (int watchdog = 0; watchdog <= 1; watchdog++) {
        if (watchdog)
            setenv(MOCK_CUDA_EXEC_TIMEOUT_ENV, "1", 1);
        gd_device *dev = NULL;
        gd_err err = {{0}};
        if (gd_device_open("cuda:0", NULL, &dev, &err) != 0)
            fail_msg("%s", err.msg);
        unsigned n = watchdog ? expected_launches(probe, gd_device_get_info(dev), x,
                                                  GD_WATCHDOG_LAUNCH_BUDGET_S)
                              : 1;
        if (watchdog)
            assert_true(n >= 2);
        int before = state()->launches;
        measured m;
        /* the mock runs nothing: decode refuses the zeroed buffer after the launches */
        assert_int_equal(measure(dev, probe, x, 0, 0, &m, &err), -1);
        assert_contains(err.msg, "did not follow the chain");
        /* one untimed warm-up launch (the first share), then the point's launches */
        assert_int_equal(state()->launches - before, (int)(n + 1));
        assert_int_equal(m.split_points, watchdog ? 1 : 0);
        const mock_cuda_launch *last = &state()->last_launch;
        assert_int_equal(last->param_count, watchdog ? 6 : 5);
        if (watchdog) {
            uint32_t resume;
            memcpy(&resume, last->param_bytes + last->param_offsets[5], 4);
            assert_int_equal(resume, 1);
        }
        gd_device_close(dev);
    }
    unsetenv(MOCK_CUDA_EXEC_TIMEOUT_ENV);
    unsetenv("GPUDISSECT_LIBCUDA");
    unsetenv("GPUDISSECT_LIBCUPTI");
    dlclose(lib);
#endif
}

/* The resumable kernel is real PTX: ptxas assembles it for every target, in
 * the plan's code range (compiled and checked, not run on hardware). */
static void test_resumable_kernel_assembles(void **unused)
{
    (void)unused;
    const char *ptxas = gd_test_ptxas();
    if (!ptxas)
        GD_SKIP("ptxas not found");
    char *dir = gd_test_tmpdir();
    const char *probes[] = {"pchase", "const_seq"};
    for (size_t p = 0; p < 2; p++) {
        const gd_probe *probe = gd_probe_find(probes[p]);
        for (size_t t = 0; t < GD_TEST_TARGET_COUNT; t++) {
            gd_device_info info = gd_test_device_info(gd_test_targets[t]);
            gd_probe_opts opts = {.launch_split = 4};
            gd_probe_plan plan;
            gd_err err;
            if (probe->plan(&opts, &info, 4096, &plan, &err) != 0)
                fail_msg("%s", err.msg);
            assert_int_equal(plan.launches, 4);
            assert_int_equal(plan.param_count, 6);
            char name[64];
            snprintf(name, sizeof name, "%s-resumable-sm%d", probes[p], gd_test_targets[t]);
            gd_sass s;
            if (gd_test_build_plan(&plan, name, gd_test_targets[t], dir, &s) == 0)
                gd_sass_free(&s);
            gd_probe_plan_free(probe, &plan);
        }
    }
    gd_test_rmrf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sim_split_global),
        cmocka_unit_test(test_sim_split_constant),
        cmocka_unit_test(test_refused_without_split),
        cmocka_unit_test(test_mock_watchdog_attribute),
        cmocka_unit_test(test_resumable_kernel_assembles),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
