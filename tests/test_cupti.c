/* test_cupti.c -- cuda:N counters through CUPTI's range profiler (host/cupti.c).
 *
 *   - the entry points resolved are the CUPTI headers' expansions, and every
 *     one is an export of the toolkit's real libcupti;
 *   - through the runner on the mock driver and the mock CUPTI
 *     (tests/mock_libcupti.c: each launch one range, each metric a fixed value
 *     per range): every CUPTI metric lands under its simulator counter name,
 *     a point counts its own launches (the first point also its warm-up
 *     launch), requests and sectors per instruction follow, the hit rate stays
 *     a gauge, PROBE.counters.csv holds them, and the profiler is configured
 *     for auto ranges with kernel replay and torn down with the device;
 *   - "counters unavailable: ..." without the library, without permission to
 *     the performance counters, and on a MIG instance -- and the run goes on.
 */
#include "tests/testing.h"

#include "analysis/results.h"
#include "host/cuda_device.h"
#include "host/cuda_symbols.h"
#include "host/cupti.h"
#include "host/device.h"
#include "host/device_registry.h"
#include "host/runner.h"
#include "tests/mock_libcuda.h"
#include "tests/mock_libcupti.h"

#include <dlfcn.h>
#include <math.h>

#ifdef GD_HAVE_CUDA
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#endif

#define assert_contains(text, needle)                                                          \
    do {                                                                                       \
        const char *haystack_ = (text);                                                        \
        if (!strstr(haystack_, (needle)))                                                      \
            fail_msg("\"%s\" lacks \"%s\"", haystack_, (needle));                              \
    } while (0)

/* ---- a probe that the mock can "run": one store, decoded as one sample ---- */

static const char counted_ptx[] = ".version 7.0\n.target sm_75\n.address_size 64\n"
                                  ".visible .entry gd_test_counted(.param .u64 out)\n{\n"
                                  "    .reg .b64 %rd<2>;\n    ld.param.u64 %rd1, [out];\n"
                                  "    st.global.u32 [%rd1], 1;\n    ret;\n}\n";

static int counted_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                        gd_probe_plan *out, gd_err *err)
{
    (void)dev;
    memset(out, 0, sizeof *out);
    out->opts = *opts;
    out->point = point;
    out->ptx = strdup(counted_ptx);
    if (!out->ptx)
        return gd_fail(err, "out of memory");
    snprintf(out->entry, sizeof out->entry, "gd_test_counted");
    for (int i = 0; i < 3; i++)
        out->grid[i] = out->block[i] = 1;
    out->buffers[0] = (gd_probe_buffer){.name = "out", .bytes = 4, .copy_out = 1};
    out->buffer_count = 1;
    out->params[0] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 0};
    out->param_count = 1;
    return 0;
}

static int counted_decode(const gd_probe_plan *plan, const gd_devptr *addresses,
                          void *const *host, gd_probe_result *out, gd_err *err)
{
    (void)plan, (void)addresses, (void)host;
    gd_series *s = gd_probe_result_add(out, "cycles", 1);
    if (!s)
        return gd_fail(err, "out of memory");
    s->samples[0] = 0;
    return 0;
}

static const gd_probe counted_probe = {
    .name = "test_counted",
    .summary = "one store (a probe the mock driver can run)",
    .sweep_name = "x",
    .value_unit = "cycles",
    .plan = counted_plan,
    .decode = counted_decode,
};

/* ---- helpers ------------------------------------------------------------------ */

typedef struct mocks {
    void *cuda, *cupti;
    mock_cupti_state_fn cupti_state;
} mocks;

static void use_mocks(mocks *m, int with_cupti)
{
#ifndef GD_HAVE_CUDA
    GD_SKIP("built without CUDA headers");
#endif
    const char *cuda = gd_test_mock_libcuda();
    if (!cuda)
        GD_SKIP("mock driver libmockcuda.so not found");
    const char *ptxas = gd_test_ptxas();
    if (!ptxas)
        GD_SKIP("ptxas not found (the mock driver JITs with it)");
    setenv("PTXAS", ptxas, 1);
    setenv("GPUDISSECT_LIBCUDA", cuda, 1);
    m->cuda = dlopen(cuda, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(m->cuda);
    m->cupti = NULL;
    m->cupti_state = NULL;
    if (with_cupti) {
        char path[4096];
        snprintf(path, sizeof path, "%s", cuda);
        char *slash = strrchr(path, '/');
        assert_non_null(slash);
        snprintf(slash + 1, sizeof path - (size_t)(slash + 1 - path), "libmockcupti.so");
        if (access(path, R_OK) != 0)
            GD_SKIP("mock CUPTI libmockcupti.so not found next to libmockcuda.so");
        m->cupti = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        assert_non_null(m->cupti);
        m->cupti_state = (mock_cupti_state_fn)dlsym(m->cupti, MOCK_CUPTI_STATE_SYMBOL);
        assert_non_null(m->cupti_state);
        setenv(GD_CUPTI_LIBRARY_ENV, path, 1);
    }
}

static void release_mocks(mocks *m)
{
    unsetenv("GPUDISSECT_LIBCUDA");
    unsetenv(GD_CUPTI_LIBRARY_ENV);
    unsetenv(MOCK_CUPTI_FAIL_ENV);
    if (m->cupti)
        dlclose(m->cupti);
    dlclose(m->cuda);
}

static double per_range(const char *cupti_metric)
{
    static const struct {
        const char *name;
        double value;
    } values[] = MOCK_CUPTI_METRIC_VALUES;
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        if (!strcmp(values[i].name, cupti_metric))
            return values[i].value;
    fail_msg("no mock value for %s", cupti_metric);
    return 0;
}

/* ---- tests ---------------------------------------------------------------------- */

static void test_symbol_names(void **unused)
{
    (void)unused;
    size_t count = 0;
    const gd_cupti_symbol *table = gd_cupti_symbol_table(&count);
#ifndef GD_HAVE_CUDA
    assert_null(table);
    GD_SKIP("built without CUDA headers");
#else
    assert_non_null(table);
    /* each name is what the CUPTI headers make of it (two-level stringify
     * here, independently of host/cupti.c) */
    static const gd_cupti_symbol expected[] = {
        {"cuptiGetResultString", GD_CU_STR(cuptiGetResultString)},
        {"cuptiProfilerInitialize", GD_CU_STR(cuptiProfilerInitialize)},
        {"cuptiProfilerDeInitialize", GD_CU_STR(cuptiProfilerDeInitialize)},
        {"cuptiDeviceGetChipName", GD_CU_STR(cuptiDeviceGetChipName)},
        {"cuptiProfilerGetCounterAvailability", GD_CU_STR(cuptiProfilerGetCounterAvailability)},
        {"cuptiProfilerHostInitialize", "cuptiProfilerHostInitialize"},
        {"cuptiProfilerHostDeinitialize", "cuptiProfilerHostDeinitialize"},
        {"cuptiProfilerHostConfigAddMetrics", "cuptiProfilerHostConfigAddMetrics"},
        {"cuptiProfilerHostGetConfigImageSize", "cuptiProfilerHostGetConfigImageSize"},
        {"cuptiProfilerHostGetConfigImage", "cuptiProfilerHostGetConfigImage"},
        {"cuptiProfilerHostEvaluateToGpuValues", "cuptiProfilerHostEvaluateToGpuValues"},
        {"cuptiRangeProfilerEnable", GD_CU_STR(cuptiRangeProfilerEnable)},
        {"cuptiRangeProfilerDisable", GD_CU_STR(cuptiRangeProfilerDisable)},
        {"cuptiRangeProfilerGetCounterDataSize", GD_CU_STR(cuptiRangeProfilerGetCounterDataSize)},
        {"cuptiRangeProfilerCounterDataImageInitialize",
         GD_CU_STR(cuptiRangeProfilerCounterDataImageInitialize)},
        {"cuptiRangeProfilerSetConfig", GD_CU_STR(cuptiRangeProfilerSetConfig)},
        {"cuptiRangeProfilerStart", GD_CU_STR(cuptiRangeProfilerStart)},
        {"cuptiRangeProfilerStop", GD_CU_STR(cuptiRangeProfilerStop)},
        {"cuptiRangeProfilerDecodeData", GD_CU_STR(cuptiRangeProfilerDecodeData)},
        {"cuptiRangeProfilerGetCounterDataInfo", GD_CU_STR(cuptiRangeProfilerGetCounterDataInfo)},
    };
    assert_int_equal(count, sizeof expected / sizeof expected[0]);
    for (size_t i = 0; i < count; i++) {
        assert_string_equal(table[i].plain_name, expected[i].plain_name);
        assert_string_equal(table[i].resolved_name, expected[i].resolved_name);
    }
    /* and each is exported by the toolkit's real library */
    const char *home = getenv("CUDA_HOME");
    char path[1024];
    snprintf(path, sizeof path, "%s/lib64/libcupti.so.13", home ? home : "/usr/local/cuda");
    /* NODELETE: its initializers allocate, and unmapping it would lose them */
    void *lib = dlopen(path, RTLD_LAZY | RTLD_LOCAL | RTLD_NODELETE);
    if (!lib) {
        printf("note: %s not loadable; names not checked against the real CUPTI\n", path);
        return;
    }
    for (size_t i = 0; i < count; i++)
        if (!dlsym(lib, table[i].resolved_name))
            fail_msg("%s does not export %s", path, table[i].resolved_name);
    dlclose(lib);
#endif
}

static void test_counters_per_point(void **unused)
{
    (void)unused;
    mocks m;
    use_mocks(&m, 1);
    gd_device *dev = NULL;
    gd_err err = {{0}};
    if (gd_device_open("cuda:0", NULL, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    char *dir = gd_test_tmpdir();
    gd_curve curve;
    gd_curve_init(&curve, "counted", &counted_probe, NULL);
    gd_runner runner;
    gd_runner_init(&runner, dev, dir, NULL);
    if (gd_runner_measure(&runner, &curve, 1, 0, 2, &err) != 0 ||
        gd_runner_measure(&runner, &curve, 2, 1, 2, &err) != 0)
        fail_msg("%s", err.msg);
    assert_string_equal(cuda_device_counters_note(dev), "");
    const mock_cupti_state *st = m.cupti_state();
    size_t metric_count = 0;
    const gd_cupti_metric *metrics = gd_cupti_metrics(&metric_count);
    assert_int_equal(st->metrics_added, (int)metric_count);
    assert_int_equal(st->unknown_metrics, 0);
    assert_true(st->auto_range);
    assert_true(st->kernel_replay);

    /* point 1: its warm-up launch and its launch; point 2: one launch */
    const double launches[2] = {2, 1};
    for (size_t p = 0; p < 2; p++) {
        const gd_counter_list *c = &curve.points[p].counters;
        for (size_t i = 0; i < metric_count; i++) {
            double got = gd_counter_list_get(c, metrics[i].counter_name, -1);
            if (metrics[i].gauge) {
                assert_true(got == -1); /* a ratio has no per-point difference */
                continue;
            }
            double want = launches[p] * per_range(metrics[i].cupti_name);
            if (got != want)
                fail_msg("point %zu: %s (%s) = %g, expected %g", p + 1, metrics[i].counter_name,
                         metrics[i].cupti_name, got, want);
        }
        /* (80 requests, 320 sectors) per (40 loads + 10 stores) */
        assert_true(fabs(gd_counter_list_get(c, "coalesce.requests_per_insn", -1) - 1.6) < 1e-9);
        assert_true(fabs(gd_counter_list_get(c, "coalesce.sectors_per_insn", -1) - 6.4) < 1e-9);
    }
    /* the device's own list keeps the gauge */
    gd_counter_list all = {0};
    assert_int_equal(gd_device_counters(dev, &all, &err), 0);
    assert_true(gd_counter_list_get(&all, "l1d.sector_hit_rate_pct", -1) == 93.75);
    assert_true(gd_counter_list_get(&all, "dram.reads", -1) == 3 * per_range("dram__sectors_read.sum"));
    gd_counter_list_free(&all);

    char path[1200], line[256];
    snprintf(path, sizeof path, "%s/counted.counters.csv", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int found = 0;
    while (fgets(line, sizeof line, f))
        found += !strcmp(line, "1,dram.reads,14\n") + !strcmp(line, "2,dram.reads,7\n");
    fclose(f);
    assert_int_equal(found, 2);

    gd_runner_close(&runner);
    gd_curve_free(&curve);
    gd_device_close(dev);
    /* torn down with the device */
    assert_int_equal(st->enabled, 0);
    assert_int_equal(st->host_objects, 0);
    assert_int_equal(st->initialized, 0);
    gd_test_rmrf(dir);
    free(dir);
    release_mocks(&m);
}

static void expect_unavailable(mocks *m, const char *needle)
{
    (void)m;
    gd_device *dev = NULL;
    gd_err err = {{0}};
    if (gd_device_open("cuda:0", NULL, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    gd_counter_list list = {0};
    assert_int_equal(gd_device_counters(dev, &list, &err), 0); /* the run goes on */
    assert_int_equal(list.count, 0);
    const char *note = cuda_device_counters_note(dev);
    assert_non_null(note);
    assert_contains(note, "counters unavailable: ");
    assert_contains(note, needle);
    assert_null(strchr(note, '\n'));
    gd_counter_list_free(&list);
    gd_device_close(dev);
}

static void test_unavailable(void **unused)
{
    (void)unused;
    mocks m;
    use_mocks(&m, 1);
    setenv(MOCK_CUPTI_FAIL_ENV, "privileges", 1);
    expect_unavailable(&m, "cuptiRangeProfilerEnable failed");
    expect_unavailable(&m, "no permission to the GPU performance counters");
    setenv(MOCK_CUPTI_FAIL_ENV, "mig", 1);
    expect_unavailable(&m, "the device is a MIG instance");
    unsetenv(MOCK_CUPTI_FAIL_ENV);
    /* a failed open leaves nothing behind */
    assert_int_equal(m.cupti_state()->enabled, 0);
    assert_int_equal(m.cupti_state()->host_objects, 0);
    assert_int_equal(m.cupti_state()->initialized, 0);
    setenv(GD_CUPTI_LIBRARY_ENV, "/nonexistent/libcupti.so", 1);
    expect_unavailable(&m, "cannot load /nonexistent/libcupti.so");
    release_mocks(&m);
}

/* A CUPTI that crashes (SIGSEGV inside its profiler set-up, as on an H200
 * with driver 580.159): the run survives it.  The device tries CUPTI in a
 * child `gpudissect run` first (host/cupti_selftest.c); the child dies, the
 * parent runs without counters and says why in meta.json.  Without the
 * self-test this command died of the signal (exit 139). */
static void test_crashing_cupti_is_survived(void **unused)
{
    (void)unused;
    static char cupti_path[4096];
    const char *cuda = gd_test_mock_libcuda();
    const char *cupti =
        gd_test_mock_library("GD_MOCK_LIBCUPTI", "libmockcupti.so", cupti_path, sizeof cupti_path);
    if (!cuda || !cupti)
        GD_SKIP("mock driver or mock CUPTI not built");
    char *dir = gd_test_tmpdir();
    char cmd[8192], out[8192];
    /* (under SAN=1 AddressSanitizer would catch the self-test child's SIGSEGV
     * and exit(1) instead: the crash must stay a signal, as on a card) */
    snprintf(cmd, sizeof cmd,
             "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0\" "
             "GPUDISSECT_LIBCUDA=%s GPUDISSECT_LIBCUPTI=%s %s=crash TMPDIR=%s exec %s run "
             "--device cuda:0 --probe pchase --sweep 1KiB:1KiB --out %s/r",
             cuda, cupti, MOCK_CUPTI_FAIL_ENV, dir, gd_test_binary(), dir);
    /* the mock driver runs no chase, so the point fails (status 1) -- but the
     * process ends by itself, not by CUPTI's signal */
    int rc = gd_test_run(cmd, out, sizeof out);
    if (rc != 1)
        fail_msg("status %d (want 1: the point's own failure):\n%s", rc, out);
    char meta[4200];
    snprintf(meta, sizeof meta, "%s/r/meta.json", dir);
    size_t n;
    gd_err err;
    char *text = gd_read_file(meta, &n, &err);
    if (!text)
        fail_msg("%s", err.msg);
    assert_contains(text, "counters unavailable: CUPTI crashed a test run on cuda:0 (signal 11");
    free(text);
    /* the child's scratch directory (in TMPDIR) is gone */
    snprintf(cmd, sizeof cmd, "ls %s | grep -c '^gpudissect-cupti-'", dir);
    gd_test_run(cmd, out, sizeof out);
    assert_string_equal(out, "0\n");
    /* and the same run with a CUPTI that works keeps its counters */
    snprintf(cmd, sizeof cmd,
             "GPUDISSECT_LIBCUDA=%s GPUDISSECT_LIBCUPTI=%s exec %s run --device cuda:0 "
             "--probe pchase --sweep 1KiB:1KiB --out %s/w",
             cuda, cupti, gd_test_binary(), dir);
    rc = gd_test_run(cmd, out, sizeof out);
    assert_int_equal(rc, 1);
    snprintf(meta, sizeof meta, "%s/w/meta.json", dir);
    text = gd_read_file(meta, &n, &err);
    if (!text)
        fail_msg("%s", err.msg);
    if (strstr(text, "CUPTI crashed"))
        fail_msg("a working CUPTI was reported crashed");
    free(text);
    gd_test_rmrf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_symbol_names),
        cmocka_unit_test(test_counters_per_point),
        cmocka_unit_test(test_unavailable),
        cmocka_unit_test(test_crashing_cupti_is_survived),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
