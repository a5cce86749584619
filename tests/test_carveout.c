/* test_carveout.c -- the L1/shared carve-out (issue 10, defect 2), end to end.
 *
 *   - the driver's rule (analysis/arch_carveout.c) on the T4's and V100's
 *     splits, including the defect itself: a kernel with the chase's old
 *     32 920 bytes of shared scratch gets a 32 KiB L1 on a T4, not 64 KiB;
 *   - arch files: the unified storage and splits are read and checked;
 *   - the simulator gives a launch the L1D its carve-out leaves (and a chain
 *     that fits 64 KiB misses in the 32 KiB a 100% preference leaves);
 *   - the chase kernel asks for no shared memory where it measures the L1;
 *   - the model's L1D follows the carve-out, point by point with the sim;
 *   - `run --carveout` records the preference and every kernel's resources in
 *     meta.json; a bad value is a usage error;
 *   - the CUDA backend sets the carve-out on every kernel it loads and reads
 *     back what the mock driver reports;
 *   - the `l1-carveout` step recovers the L1D of every split of sim:t4 and
 *     sim:v100, each matching the arch in compare.json.
 */
#include "tests/testing.h"

#include <dlfcn.h>
#include <math.h>

#include "tests/mock_libcuda.h"
#include "tests/results_json.h"

#include "analysis/arch.h"
#include "analysis/model.h"
#include "host/device_registry.h"
#include "host/runner.h"
#include "kernels/probe.h"

#define KIB 1024u

static void load_arch(const char *name, const char *const *overrides, size_t n, gd_arch *a)
{
    char path[1024];
    gd_err err;
    if (gd_arch_resolve(name, path, sizeof path, &err) != 0 ||
        gd_arch_load(path, overrides, n, a, &err) != 0)
        fail_msg("%s", err.msg);
}

static uint64_t l1d_for(const gd_arch *a, int percent, uint32_t shared, uint32_t ctas)
{
    gd_carveout_choice c;
    gd_err err;
    if (gd_arch_carveout(a, percent, shared, ctas, &c, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(c.l1d_bytes, (uint64_t)c.l1d_ways * a->level[GD_L1D].sets *
                                      a->level[GD_L1D].line_bytes);
    assert_int_equal(c.l1d_bytes + c.shared_bytes, a->level[GD_SMEM].unified_bytes);
    return c.l1d_bytes;
}

static void test_driver_rule(void **state)
{
    (void)state;
    gd_arch t4, v100;
    load_arch("t4", NULL, 0, &t4);
    load_arch("v100", NULL, 0, &v100);
    assert_int_equal(t4.level[GD_SMEM].unified_bytes, 96 * KIB);
    assert_int_equal(t4.level[GD_SMEM].carveout_count, 2);
    assert_int_equal(v100.level[GD_SMEM].carveout_count, 6);
    /* T4: 64 KiB of L1 unless the kernel or the preference needs 64 KiB shared */
    assert_int_equal(l1d_for(&t4, 0, 0, 1), 64 * KIB);
    assert_int_equal(l1d_for(&t4, 50, 0, 1), 64 * KIB);
    assert_int_equal(l1d_for(&t4, 51, 0, 1), 32 * KIB);
    assert_int_equal(l1d_for(&t4, 100, 0, 1), 32 * KIB);
    /* the defect: the chase's former 32 920 bytes of shared scratch */
    assert_int_equal(l1d_for(&t4, 0, 32920, 1), 32 * KIB);
    assert_int_equal(l1d_for(&t4, 0, 32 * KIB, 1), 64 * KIB);
    /* V100: every split, from the preference or from what the CTAs need */
    static const struct { int percent; uint32_t shared; uint32_t ctas; uint32_t l1_kib; } v[] = {
        {0, 0, 1, 128},  {5, 0, 1, 120},  {8, 0, 1, 120},   {9, 0, 1, 112},  {17, 0, 1, 96},
        {34, 0, 1, 64},  {67, 0, 1, 32},  {100, 0, 1, 32},  {0, 1, 1, 120},  {0, 20 * KIB, 1, 96},
        {0, 20 * KIB, 2, 64}, {0, 20 * KIB, 8, 32}, /* 8 x 20 KiB do not fit: 4 of them do */
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (l1d_for(&v100, v[i].percent, v[i].shared, v[i].ctas) != v[i].l1_kib * KIB)
            fail_msg("v100 %d%% %u B x %u CTAs: L1D %llu, expected %u KiB", v[i].percent,
                     v[i].shared, v[i].ctas,
                     (unsigned long long)l1d_for(&v100, v[i].percent, v[i].shared, v[i].ctas),
                     v[i].l1_kib);
    gd_carveout_choice c;
    gd_err err;
    assert_int_equal(gd_arch_carveout(&v100, 0, 97 * KIB, 1, &c, &err), -1);
    assert_non_null(strstr(err.msg, "largest carve-out"));
    assert_int_equal(gd_arch_carveout(&v100, 101, 0, 1, &c, &err), -1);
    /* an arch without unified storage keeps its L1D whatever is asked */
    gd_arch tiny;
    load_arch("tiny", NULL, 0, &tiny);
    assert_int_equal(gd_arch_carveout(&tiny, 100, 0, 1, &c, &err), 0);
    assert_int_equal(c.l1d_bytes, tiny.level[GD_L1D].size_bytes);
    uint64_t sizes[8];
    assert_int_equal(gd_arch_l1d_sizes(&v100, sizes, 8), 6);
    assert_int_equal(sizes[1], 120 * KIB);
}

static void expect_arch_error(const char *override, const char *what)
{
    const char *o[] = {override};
    char path[1024];
    gd_arch a;
    gd_err err;
    if (gd_arch_resolve("v100", path, sizeof path, &err) != 0)
        fail_msg("%s", err.msg);
    if (gd_arch_load(path, o, 1, &a, &err) == 0)
        fail_msg("--set %s was accepted", override);
    if (!strstr(err.msg, what))
        fail_msg("--set %s: '%s' lacks '%s'", override, err.msg, what);
}

static void test_arch_validation(void **state)
{
    (void)state;
    expect_arch_error("SMEM.carveouts=0 8KiB 16KiB 32KiB 64KiB", "largest carve-out");
    expect_arch_error("SMEM.carveouts=8KiB 16KiB 96KiB", "must be [L1D] size");
    expect_arch_error("SMEM.carveouts=0 8KiB 4KiB 96KiB", "ascending");
    expect_arch_error("SMEM.carveouts=0 1000 96KiB", "not whole ways");
    expect_arch_error("SMEM.unified=120KiB", "must be [L1D] size");
    expect_arch_error("SMEM.carveouts=0 lots", "must list sizes");
}

/* A kernel with `shared` bytes of static shared memory that reads and writes it
 * (none: a kernel that only stores to global memory). */
static char *shared_kernel_ptx(unsigned shared)
{
    char *ptx = malloc(1024);
    if (!shared) {
        snprintf(ptx, 1024,
                 ".version 6.3\n.target sm_75\n.address_size 64\n"
                 ".visible .entry k(.param .u64 out)\n{\n"
                 "    .reg .b32 %%r<3>;\n    .reg .b64 %%rd<3>;\n"
                 "    ld.param.u64 %%rd1, [out];\n"
                 "    mov.u32 %%r1, 7;\n    st.global.u32 [%%rd1], %%r1;\n    ret;\n}\n");
        return ptx;
    }
    snprintf(ptx, 1024,
             ".version 6.3\n.target sm_75\n.address_size 64\n"
             ".visible .entry k(.param .u64 out)\n{\n"
             "    .reg .b32 %%r<3>;\n    .reg .b64 %%rd<3>;\n"
             "    .shared .align 4 .b8 buf[%u];\n"
             "    ld.param.u64 %%rd1, [out];\n"
             "    mov.u32 %%r1, 7;\n    st.shared.u32 [buf], %%r1;\n"
             "    ld.shared.u32 %%r2, [buf];\n    st.global.u32 [%%rd1], %%r2;\n    ret;\n}\n",
             shared);
    return ptx;
}

static void launch_shared_kernel(gd_device *dev, unsigned shared, int percent,
                                 uint64_t expect_l1d, uint32_t expect_split)
{
    char *ptx = shared_kernel_ptx(shared);
    gd_load_opts opts = {.carveout_percent = percent};
    gd_kernel *k;
    gd_err err;
    if (gd_kernel_load(dev, ptx, "k", &opts, &k, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(k->static_shared_bytes, shared);
    assert_int_equal(k->carveout_percent, percent);
    gd_devptr out;
    assert_int_equal(gd_mem_alloc(dev, 4, &out, &err), 0);
    const void *values[] = {&out};
    const size_t sizes[] = {sizeof out};
    gd_launch l = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .param_count = 1,
                   .param_values = values, .param_sizes = sizes};
    if (gd_kernel_launch(dev, k, &l, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(k->launch_l1d_bytes, expect_l1d);
    assert_int_equal(k->launch_shared_carveout_bytes, expect_split);
    assert_int_equal(gd_mem_release(dev, out, &err), 0);
    gd_kernel_unload(dev, k);
    free(ptx);
}

static void test_sim_launch_follows_the_rule(void **state)
{
    (void)state;
    gd_device *dev;
    gd_err err;
    if (gd_device_open("sim:t4", NULL, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    launch_shared_kernel(dev, 0, 0, 64 * KIB, 32 * KIB);
    launch_shared_kernel(dev, 32920, 0, 32 * KIB, 64 * KIB); /* the old chase scratch */
    launch_shared_kernel(dev, 16, 100, 32 * KIB, 64 * KIB);
    launch_shared_kernel(dev, 16, 0, 64 * KIB, 32 * KIB);
    gd_kernel *k;
    gd_load_opts bad = {.carveout_percent = 101};
    char *ptx = shared_kernel_ptx(4);
    assert_int_equal(gd_kernel_load(dev, ptx, "k", &bad, &k, &err), -1);
    free(ptx);
    gd_device_close(dev);
    if (gd_device_open("sim:v100", NULL, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    launch_shared_kernel(dev, 0, 0, 128 * KIB, 0);
    launch_shared_kernel(dev, 4, 0, 120 * KIB, 8 * KIB);
    launch_shared_kernel(dev, 40 * KIB, 0, 64 * KIB, 64 * KIB);
    gd_device_close(dev);
}

/* The chase at one footprint on sim:ARCH with a carve-out: its median, and
 * the kernel's record (runner.kernels). */
static double chase_median(const char *spec, int percent, uint64_t footprint, uint64_t stride,
                           uint64_t *static_shared, uint64_t *l1d, double *model_mean)
{
    gd_device *dev;
    gd_err err;
    if (gd_device_open(spec, NULL, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    gd_runner r;
    gd_runner_init(&r, dev, NULL, NULL);
    r.carveout_percent = percent;
    gd_probe_opts opts = {.stride_bytes = stride};
    gd_curve c;
    gd_curve_init(&c, "pchase", gd_probe_find("pchase"), &opts);
    if (gd_runner_measure(&r, &c, footprint, 0, 1, &err) != 0)
        fail_msg("%s", err.msg);
    const gd_point *p = gd_curve_find(&c, footprint);
    int s = gd_point_series_index(p, "cycles"), b = gd_point_series_index(p, "chain_base");
    double median = p->series[s].summary.median;
    const json_t *row = json_array_get(r.kernels, 0);
    assert_non_null(row);
    *static_shared = (uint64_t)json_integer_value(json_object_get(row, "static_shared_bytes"));
    *l1d = (uint64_t)json_integer_value(json_object_get(row, "launch_l1d_bytes"));
    gd_arch arch;
    load_arch(spec + 4, NULL, 0, &arch);
    gd_model_point mp;
    if (gd_model_pchase_carveout(&arch, &opts, footprint, (uint64_t)p->series[b].samples[0],
                                 percent, 0, &mp, &err) != 0)
        fail_msg("%s", err.msg);
    *model_mean = mp.mean_cycles;
    if (fabs(mp.mean_cycles - p->series[s].summary.mean) > 1e-6)
        fail_msg("%s %d%% %llu B: model %.4f, sim %.4f", spec, percent,
                 (unsigned long long)footprint, mp.mean_cycles, p->series[s].summary.mean);
    gd_curve_free(&c);
    gd_runner_close(&r);
    gd_device_close(dev);
    return median;
}

static void test_chase_sees_the_carveout(void **state)
{
    (void)state;
    uint64_t shared, l1d;
    double model;
    /* 48 KiB fits the T4's 64 KiB L1 only when the chase leaves it all */
    assert_true(chase_median("sim:t4", 0, 48 * KIB, 32, &shared, &l1d, &model) == 32);
    assert_int_equal(shared, 0); /* was 32 920: the scratch is out of shared memory */
    assert_int_equal(l1d, 64 * KIB);
    assert_true(chase_median("sim:t4", 100, 48 * KIB, 32, &shared, &l1d, &model) == 188);
    assert_int_equal(l1d, 32 * KIB);
    /* V100: 124 KiB fits 128 KiB (no shared memory at all) but not 120 KiB */
    assert_true(chase_median("sim:v100", 0, 124 * KIB, 128, &shared, &l1d, &model) == 28);
    assert_int_equal(l1d, 128 * KIB);
    assert_true(chase_median("sim:v100", 5, 124 * KIB, 128, &shared, &l1d, &model) == 193);
    assert_int_equal(l1d, 120 * KIB);
    /* partly thrashing: the model follows the ways the carve-out leaves */
    chase_median("sim:v100", 20, 96 * KIB + 128, 128, &shared, &l1d, &model);
    assert_true(model > 28 && model < 193);
}

static void test_run_records_the_carveout(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    char cmd[2048], out[4096];
    snprintf(cmd, sizeof cmd,
             "%s run --device sim:t4 --probe pchase --sweep 16KiB:64KiB --carveout 100 "
             "--quiet --out %s",
             gd_test_binary(), dir);
    if (gd_test_run(cmd, out, sizeof out) != 0)
        fail_msg("%s: %s", cmd, out);
    json_t *meta = gd_test_load_json(dir, "meta.json");
    assert_int_equal(json_integer_value(json_object_get(meta, "carveout_percent")), 100);
    const json_t *row = json_array_get(json_object_get(meta, "kernels"), 0);
    assert_non_null(row);
    assert_string_equal(json_string_value(json_object_get(row, "entry")), "gd_chase");
    assert_int_equal(json_integer_value(json_object_get(row, "carveout_percent_asked")), 100);
    assert_int_equal(json_integer_value(json_object_get(row, "static_shared_bytes")), 0);
    assert_int_equal(json_integer_value(json_object_get(row, "launch_l1d_bytes")), 32 * KIB);
    assert_int_equal(json_integer_value(json_object_get(row, "points")), 3);
    json_decref(meta);
    snprintf(cmd, sizeof cmd, "%s run --device sim:t4 --probe pchase --sweep 1KiB:2KiB "
                              "--carveout 101 --out %s/x",
             gd_test_binary(), dir);
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 2);
    assert_non_null(strstr(out, "--carveout takes a percentage"));
    gd_test_rmrf(dir);
    free(dir);
}

static void test_cuda_sets_the_carveout(void **state)
{
    (void)state;
#ifndef GD_HAVE_CUDA
    GD_SKIP("built without CUDA headers; the mock driver needs them");
#else
    const char *ptxas = gd_test_ptxas();
    if (!ptxas)
        GD_SKIP("ptxas not found (the mock driver JITs with it)");
    setenv("PTXAS", ptxas, 1);
    const char *path = gd_test_mock_libcuda();
    if (!path)
        GD_SKIP("mock driver libmockcuda.so not found");
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(lib);
    mock_cuda_state_fn state_fn = (mock_cuda_state_fn)dlsym(lib, MOCK_CUDA_STATE_SYMBOL);
    assert_non_null(state_fn);
    setenv("GPUDISSECT_LIBCUDA", path, 1);
    gd_device *dev;
    gd_err err;
    if (gd_device_open("cuda:0", NULL, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    int sets = state_fn()->carveout_sets;
    char *ptx = shared_kernel_ptx(1000);
    gd_kernel *k;
    gd_load_opts opts = {.carveout_percent = 25};
    if (gd_kernel_load(dev, ptx, "k", &opts, &k, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(state_fn()->carveout_sets, sets + 1);
    assert_int_equal(state_fn()->last_carveout, 25);
    assert_string_equal(state_fn()->last_carveout_entry, "k");
    assert_true(state_fn()->function_attribute_gets >= 4);
    assert_int_equal(k->carveout_percent, 25);
    assert_int_equal(k->static_shared_bytes, 1000);
    assert_int_equal(k->registers_per_thread, MOCK_CUDA_REGISTERS_PER_THREAD);
    gd_kernel_unload(dev, k);
    /* no options: the most L1, set explicitly all the same */
    if (gd_kernel_load(dev, ptx, "k", NULL, &k, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(state_fn()->carveout_sets, sets + 2);
    assert_int_equal(state_fn()->last_carveout, 0);
    assert_int_equal(k->carveout_percent, 0);
    gd_kernel_unload(dev, k);
    opts.carveout_percent = -1;
    assert_int_equal(gd_kernel_load(dev, ptx, "k", &opts, &k, &err), -1);
    assert_non_null(strstr(err.msg, "not a percentage"));
    free(ptx);
    gd_device_close(dev);
    unsetenv("GPUDISSECT_LIBCUDA");
    dlclose(lib);
#endif
}

/* characterize with the pchase and l1-carveout steps; every split's L1D found
 * and matching the arch in compare.json */
/* `characterize --device sim:ARCH` (with `options`) of a suite of `steps`
 * written into dir; the results directory's path into run. */
static void characterize_steps(const char *dir, const char *arch, const char *steps,
                               const char *options, char *run, size_t run_size)
{
    char suite[1200], cmd[4096], out[8192];
    snprintf(suite, sizeof suite, "%s/steps.suite", dir);
    FILE *f = fopen(suite, "w");
    assert_non_null(f);
    fputs(steps, f);
    fclose(f);
    snprintf(run, run_size, "%s/run", dir);
    snprintf(cmd, sizeof cmd,
             "%s characterize --device sim:%s --suite %s --no-plots --quiet %s --out %s",
             gd_test_binary(), arch, suite, options, run);
    if (gd_test_run(cmd, out, sizeof out) != 0)
        fail_msg("%s: %s", cmd, out);
}

static void check_carveout_step(const char *arch, const uint32_t *l1_kib, size_t n)
{
    char *dir = gd_test_tmpdir();
    char run[1300];
    characterize_steps(dir, arch,
                       "pchase pchase --sweep 1KiB:4*L2 --adaptive --stride 32\n"
                       "l1-carveout pchase --sweep L1D/8:4*L1D --adaptive --stride 128 "
                       "--carveout 0,3,5,10,15,20,30,40,50,60,70,80,90,100\n",
                       "", run, sizeof run);
    json_t *inf = gd_test_load_json(run, "inferred.json");
    const json_t *rows = json_object_get(inf, "l1d_by_carveout");
    for (size_t i = 0; i < n; i++) {
        int found = 0;
        size_t k;
        const json_t *row;
        json_array_foreach(rows, k, row) {
            found |= json_integer_value(json_object_get(row, "l1d_bytes")) ==
                     (json_int_t)l1_kib[i] * KIB;
        }
        if (!found)
            fail_msg("sim:%s: no carve-out gave the %u KiB L1D", arch, l1_kib[i]);
    }
    json_t *cmp = gd_test_load_json(run, "compare.json");
    size_t k, rows_compared = 0;
    const json_t *p;
    json_array_foreach(json_object_get(cmp, "parameters"), k, p) {
        const char *what = json_string_value(json_object_get(p, "parameter"));
        if (!what || !strstr(what, "at carveout"))
            continue;
        rows_compared++;
        if (strcmp(json_string_value(json_object_get(p, "verdict")), "match"))
            fail_msg("sim:%s: %s is not a match", arch, what);
    }
    assert_int_equal(rows_compared, json_array_size(rows));
    /* the report says what every kernel asked and the L1D per preference */
    char report[1400], text[65536];
    snprintf(report, sizeof report, "%s/report.md", run);
    FILE *r = fopen(report, "r");
    assert_non_null(r);
    size_t len = fread(text, 1, sizeof text - 1, r);
    text[len] = 0;
    fclose(r);
    assert_non_null(strstr(text, "## L1/shared carve-out"));
    assert_non_null(strstr(text, "| l1-carveout-100 | `gd_chase` | 100% / 100% |"));
    assert_non_null(strstr(text, "L1D per carve-out preference"));
    json_decref(inf);
    json_decref(cmp);
    gd_test_rmrf(dir);
    free(dir);
}

/* A step after a carve-out step starts early (-j 4) while a preference of
 * that step is set on the runner (50: the first measured); it runs under the
 * run's own carve-out (0), as at its turn, so it is measured once: meta.json
 * steps_measured_again is empty.  It inherited the preference before, and its
 * options at its turn differed (1 here; five bandwidth steps, 5 s of CPU, in
 * the full suite on sim:t4). */
static void test_step_after_a_carveout_step_runs_once(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    char run[1300];
    characterize_steps(dir, "t4",
                       "l1-carveout pchase --sweep 16KiB:128KiB:4 --stride 128 --carveout 50,100\n"
                       "after pchase_stride --sweep 8:128 --footprint 64KiB\n",
                       "-j 4", run, sizeof run);
    json_t *meta = gd_test_load_json(run, "meta.json");
    assert_int_equal(json_integer_value(json_object_get(meta, "failed_steps")), 0);
    const json_t *again = json_object_get(meta, "steps_measured_again");
    assert_true(json_is_array(again));
    if (json_array_size(again))
        fail_msg("measured again: %s", json_string_value(json_array_get(again, 0)));
    /* and it entered the run */
    size_t k;
    const json_t *p;
    int seen = 0;
    json_array_foreach(json_object_get(meta, "probes"), k, p) {
        const char *csv = json_string_value(json_object_get(p, "csv"));
        if (csv && !strcmp(csv, "after"))
            seen = 1;
    }
    assert_true(seen);
    json_decref(meta);
    gd_test_rmrf(dir);
    free(dir);
}

static void test_step_recovers_t4_splits(void **state)
{
    (void)state;
    static const uint32_t t4[] = {64, 32};
    check_carveout_step("t4", t4, 2);
}

static void test_step_recovers_v100_splits(void **state)
{
    (void)state;
    static const uint32_t v100[] = {128, 120, 112, 96, 64, 32};
    check_carveout_step("v100", v100, 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_driver_rule),
        cmocka_unit_test(test_arch_validation),
        cmocka_unit_test(test_sim_launch_follows_the_rule),
        cmocka_unit_test(test_chase_sees_the_carveout),
        cmocka_unit_test(test_run_records_the_carveout),
        cmocka_unit_test(test_cuda_sets_the_carveout),
        cmocka_unit_test(test_step_recovers_t4_splits),
        cmocka_unit_test(test_step_after_a_carveout_step_runs_once),
        cmocka_unit_test(test_step_recovers_v100_splits),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
