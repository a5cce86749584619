/* test_cli.c -- the gpudissect binary end to end: results on disk, exit codes,
 * the documented one-line errors, --help, sweeps. */
#include "tests/testing.h"

#include <dirent.h>
#include <jansson.h>

#include "analysis/results.h"
#include "host/runner.h"

static char out[65536];

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
    char args[2048], cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "%s %s", gd_test_binary(), args);
    return gd_test_run(cmd, out, sizeof out);
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void assert_one_error_line(const char *needle)
{
    const char *e = strstr(out, "gpudissect: error: ");
    if (!e || !strstr(e, needle))
        fail_msg("expected an error containing '%s', got:\n%s", needle, out);
    const char *nl = strchr(e, '\n');
    assert_true(nl && nl[1] == 0); /* the error is the last and only such line */
}

static void test_run_writes_results(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    assert_int_equal(run("run --device sim:tiny --probe pchase --sweep 1KiB:32KiB --out %s/r", dir), 0);
    char path[1200];
    snprintf(path, sizeof path, "%s/r/pchase.csv", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[512];
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "footprint_bytes,series,min,median,mean,max,count,p05,p95,stddev,"
                              "sm_clock_mhz\n");
    int rows = 0, l1_rows = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long x;
        char series[32];
        double mn, med;
        assert_int_equal(sscanf(line, "%llu,%31[^,],%lf,%lf", &x, series, &mn, &med), 4);
        if (!strcmp(series, "cycles")) {
            rows++;
            if (x <= 2048) {
                assert_true(med == 20); /* tiny.arch L1D latency */
                l1_rows++;
            }
        }
    }
    fclose(f);
    assert_int_equal(rows, 6); /* 1, 2, 4, 8, 16, 32 KiB */
    assert_int_equal(l1_rows, 2);
    /* meta.json: provenance */
    snprintf(path, sizeof path, "%s/r/meta.json", dir);
    json_error_t jerr;
    json_t *meta = json_load_file(path, 0, &jerr);
    assert_non_null(meta);
    assert_string_equal(json_string_value(json_object_get(json_object_get(meta, "device"), "spec")),
                        "sim:tiny");
    assert_string_equal(json_string_value(json_object_get(json_object_get(meta, "device"), "arch")),
                        "tiny");
    assert_true(json_is_string(json_object_get(meta, "git_revision")));
    assert_true(json_is_string(json_object_get(meta, "start_time")));
    assert_true(json_is_string(json_object_get(meta, "end_time")));
    assert_true(json_is_array(json_object_get(meta, "command_line")));
    json_t *host = json_object_get(meta, "host");
    assert_true(json_is_integer(json_object_get(host, "numa_nodes")));
    assert_true(json_integer_value(json_object_get(host, "pus")) >= 1);
    assert_true(json_object_get(host, "cpu_model") != NULL);
    json_t *counters = json_object_get(meta, "counters");
    assert_true(json_real_value(json_object_get(counters, "sim.warp_insns")) > 0);
    json_decref(meta);
    /* nothing half-written is left behind */
    snprintf(path, sizeof path, "%s/r", dir);
    DIR *d = opendir(path);
    struct dirent *ent;
    while ((ent = readdir(d)))
        assert_null(strstr(ent->d_name, ".tmp"));
    closedir(d);
    /* progress went to stderr: one line per point */
    assert_non_null(strstr(out, "[1/6] pchase footprint_bytes=1KiB"));
    assert_non_null(strstr(out, "[6/6] pchase footprint_bytes=32KiB"));
    gd_test_rmrf(dir);
    free(dir);
}

/* A sweep that fails part way keeps the points it finished. */
static void test_interrupted_run_keeps_finished_points(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    /* 256 KiB of device memory: the 256 KiB point (chain + results) cannot be allocated */
    int rc = run("run --device sim:tiny --set gpu.global_mem=256KiB --probe pchase "
                 "--sweep 1KiB:1MiB --out %s/r",
                 dir);
    assert_int_equal(rc, 1);
    assert_one_error_line("out of device memory");
    assert_non_null(strstr(out, "footprint_bytes=262144"));
    char path[1200];
    snprintf(path, sizeof path, "%s/r/pchase.csv", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[512];
    int rows = 0;
    while (fgets(line, sizeof line, f))
        rows += strstr(line, ",cycles,") != NULL;
    fclose(f);
    assert_int_equal(rows, 8); /* 1 KiB .. 128 KiB */
    snprintf(path, sizeof path, "%s/r/meta.json", dir);
    json_error_t jerr;
    json_t *meta = json_load_file(path, 0, &jerr);
    assert_non_null(meta);
    assert_non_null(strstr(json_string_value(json_object_get(meta, "error")), "out of device memory"));
    json_decref(meta);
    gd_test_rmrf(dir);
    free(dir);
}

static void test_cuda_errors_are_one_line(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    /* no driver */
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "GPUDISSECT_LIBCUDA=/nonexistent/libcuda.so.1 %s run --device cuda:0 --probe pchase "
             "--sweep 1KiB:2KiB --out %s/r",
             gd_test_binary(), dir);
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 1);
    assert_one_error_line("no NVIDIA driver");
    assert_int_equal(count_lines(out), 1);
    /* the toolkit's stub library */
    const char *stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
    if (access(stub, R_OK) == 0) {
        snprintf(cmd, sizeof cmd,
                 "GPUDISSECT_LIBCUDA=%s %s run --device cuda:0 --probe pchase --sweep 1KiB:2KiB "
                 "--out %s/r",
                 stub, gd_test_binary(), dir);
        assert_int_equal(gd_test_run(cmd, out, sizeof out), 1);
        assert_one_error_line("stub library");
        assert_int_equal(count_lines(out), 1);
    } else {
        printf("note: stub library not installed; stub case not run\n");
    }
    /* `devices` explains why there are no CUDA devices and still lists sims */
    snprintf(cmd, sizeof cmd, "GPUDISSECT_LIBCUDA=/nonexistent/libcuda.so.1 %s devices",
             gd_test_binary());
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 0);
    assert_non_null(strstr(out, "no NVIDIA driver"));
    assert_non_null(strstr(out, "sim:t4"));
    assert_non_null(strstr(out, "sim:tiny"));
    gd_test_rmrf(dir);
    free(dir);
}

static void test_bad_input(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    char arch[1200];
    snprintf(arch, sizeof arch, "%s/bad.arch", dir);
    FILE *f = fopen(arch, "w");
    fputs("[gpu]\ncompute_capability = 7.5\n[L1D]\nsize = 2KiB\nways = lots\n", f);
    fclose(f);
    assert_int_equal(run("run --device sim:%s --probe pchase --sweep 1KiB:2KiB --out %s/r", arch,
                         dir),
                     1);
    char expect[1300];
    snprintf(expect, sizeof expect, "%s:5: 'ways' must be a non-negative integer", arch);
    assert_one_error_line(expect);
    assert_int_equal(run("run --device sim:nosuch --probe pchase --sweep 1KiB:2KiB"), 1);
    assert_one_error_line("nosuch.arch: cannot open arch file");
    assert_int_equal(run("run --device gpu0 --probe pchase --sweep 1KiB:2KiB"), 1);
    assert_one_error_line("unknown device 'gpu0'");
    assert_int_equal(run("run --device sim:tiny --probe nosuch --sweep 1KiB:2KiB"), 2);
    assert_non_null(strstr(out, "unknown probe 'nosuch'"));
    assert_int_equal(run("run --device sim:tiny --probe pchase --sweep 8KiB:1KiB"), 2);
    assert_non_null(strstr(out, "need 0 < FROM <= TO"));
    assert_int_equal(run("run --device sim:tiny --probe pchase"), 2);
    assert_int_equal(run("run --device sim:tiny --probe pchase --sweep 1KiB:2KiB --frobnicate"), 2);
    assert_int_equal(run("run --device sim:tiny --set L1D.ways=3 --probe pchase --sweep 1KiB:2KiB "
                         "--out %s/r2",
                         dir),
                     1);
    assert_one_error_line("not a whole number of sets");
    assert_int_equal(run("nosuchcommand"), 2);
    gd_test_rmrf(dir);
    free(dir);
}

/* run --trace: the sim's load/store-unit events, cycle by cycle, in the run
 * directory; the reservation fails of k > ways lines in one set among them */
static void test_lsu_trace(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    /* cn110457238: 4 ways; 6 lines of one set -> the 5th is refused (set) */
    assert_int_equal(run("run --device sim:cn110457238 --probe resv_stall --stride 4096 "
                         "--sweep 6:6 --samples 1 --trace --out %s/t --quiet",
                         dir),
                     0);
    char path[1200];
    snprintf(path, sizeof path, "%s/t/lsu_trace.csv", dir);
    size_t bytes;
    gd_err err;
    char *csv = gd_read_file(path, &bytes, &err);
    if (!csv)
        fail_msg("%s", err.msg);
    static const char header[] = "launch,cycle,sm,instr,request,line_addr,set,event,reason\n";
    assert_true(!strncmp(csv, header, sizeof header - 1));
    int rows = count_lines(csv) - 1, fails = 0, misses = 0;
    for (const char *p = csv; (p = strstr(p, ",resv_fail,set\n")) != NULL; p++)
        fails++;
    for (const char *p = csv; (p = strstr(p, ",miss,\n")) != NULL; p++)
        misses++;
    assert_true(fails > 0);
    assert_true(misses >= 6);
    free(csv);
    json_error_t jerr;
    snprintf(path, sizeof path, "%s/t/meta.json", dir);
    json_t *meta = json_load_file(path, 0, &jerr);
    assert_non_null(meta);
    json_t *tr = json_object_get(json_array_get(json_object_get(meta, "probes"), 0), "lsu_trace");
    assert_int_equal(json_integer_value(json_object_get(tr, "events")), rows);
    assert_int_equal(json_integer_value(json_object_get(tr, "kept")), rows);
    json_decref(meta);
    /* a limit keeps the first events and counts the rest */
    assert_int_equal(run("run --device sim:cn110457238 --probe resv_stall --stride 4096 "
                         "--sweep 6:6 --samples 1 --trace --trace-limit 50 --out %s/l --quiet",
                         dir),
                     0);
    snprintf(path, sizeof path, "%s/l/lsu_trace.csv", dir);
    csv = gd_read_file(path, &bytes, &err);
    assert_non_null(csv);
    assert_int_equal(count_lines(csv), 51);
    free(csv);
    /* misuse: one line each, exit 2 */
    assert_int_equal(run("run --device sim:tiny --probe pchase --sweep 1KiB:2KiB --trace-limit 5 "
                         "--out %s/x",
                         dir),
                     2);
    assert_non_null(strstr(out, "--trace-limit needs --trace"));
    assert_int_equal(run("emit --probe pchase --trace"), 2);
    assert_non_null(strstr(out, "--trace is a run option"));
    /* a CUDA device (the mock driver) has no such trace: a one-line error */
    const char *mock = gd_test_mock_libcuda();
    if (mock) {
        char cmd[4096];
        snprintf(cmd, sizeof cmd,
                 "GPUDISSECT_LIBCUDA=%s %s run --device cuda:0 --probe pchase --sweep 1KiB:2KiB "
                 "--trace --out %s/c",
                 mock, gd_test_binary(), dir);
        assert_int_equal(gd_test_run(cmd, out, sizeof out), 1);
        assert_one_error_line("no load/store-unit trace");
    } else {
        printf("note: mock driver not found; the cuda --trace case not run\n");
    }
    gd_test_rmrf(dir);
    free(dir);
}

/* Per point, what the device counted: an overfilled set's reservation fails
 * appear at ways + 1 lines and not before (cn110457238: 4 ways) -- with
 * --one-launch-per-point; without it the four points share a launch and
 * each has the launch's counters, batch_points 4. */
static void test_counters_per_point(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    assert_int_equal(run("run --device sim:cn110457238 --probe resv_stall --stride 4096 "
                         "--sweep 3:6:+1 --samples 1 --one-launch-per-point --out %s/c --quiet",
                         dir),
                     0);
    char path[1200];
    snprintf(path, sizeof path, "%s/c/resv_stall.counters.csv", dir);
    size_t bytes;
    gd_err err;
    char *csv = gd_read_file(path, &bytes, &err);
    if (!csv)
        fail_msg("%s", err.msg);
    assert_true(!strncmp(csv, "lines_in_set,counter,value\n", 27));
    for (int k = 3; k <= 6; k++) {
        char key[64];
        snprintf(key, sizeof key, "\n%d,l1d.reservation_fails.set,", k);
        const char *at = strstr(csv, key);
        if (!at)
            fail_msg("no %s in %s", key + 1, path);
        double fails = strtod(at + strlen(key), NULL);
        if (k <= 4 ? fails != 0 : fails <= 0)
            fail_msg("%d lines in a 4-way set: %g reservation fails", k, fails);
        snprintf(key, sizeof key, "\n%d,coalesce.sectors_per_insn,", k);
        assert_non_null(strstr(csv, key));
        snprintf(key, sizeof key, "\n%d,batch_points,", k);
        assert_null(strstr(csv, key));
    }
    free(csv);
    /* the default: one launch, its counters on every point, marked */
    assert_int_equal(run("run --device sim:cn110457238 --probe resv_stall --stride 4096 "
                         "--sweep 3:6:+1 --samples 1 --out %s/b --quiet",
                         dir),
                     0);
    snprintf(path, sizeof path, "%s/b/resv_stall.counters.csv", dir);
    csv = gd_read_file(path, &bytes, &err);
    if (!csv)
        fail_msg("%s", err.msg);
    for (int k = 3; k <= 6; k++) {
        char key[64];
        snprintf(key, sizeof key, "\n%d,batch_points,4\n", k);
        if (!strstr(csv, key))
            fail_msg("no %s in %s", key + 1, path);
    }
    free(csv);
    gd_test_rmrf(dir);
    free(dir);
}

static void test_help_and_listing(void **state)
{
    (void)state;
    const char *cmds[] = {"run", "emit", "devices", "list"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        assert_int_equal(run("%s --help", cmds[i]), 0);
        assert_non_null(strstr(out, "usage: gpudissect"));
    }
    assert_int_equal(run("--help"), 0);
    assert_int_equal(run("list"), 0);
    assert_non_null(strstr(out, "pchase"));
    assert_int_equal(run("emit --probe pchase --variant cg"), 0);
    assert_non_null(strstr(out, ".target sm_75"));
    assert_non_null(strstr(out, "ld.global.cg.u64"));
    assert_int_equal(run("emit --probe pchase --set gpu.compute_capability=9.0"), 0);
    assert_non_null(strstr(out, ".version 7.8\n.target sm_90"));
}

static void test_sweep_specs(void **state)
{
    (void)state;
    gd_sweep s;
    gd_err err;
    assert_int_equal(gd_sweep_parse("1KiB:8KiB", 32, &s, &err), 0);
    assert_int_equal(s.count, 4);
    assert_int_equal(s.points[0], 1024);
    assert_int_equal(s.points[3], 8192);
    gd_sweep_free(&s);
    assert_int_equal(gd_sweep_parse("1KiB:8MiB:5", 32, &s, &err), 0);
    assert_int_equal(s.count, 5);
    assert_int_equal(s.points[0], 1024);
    assert_int_equal(s.points[4], 8u << 20);
    for (size_t i = 0; i < s.count; i++)
        assert_int_equal(s.points[i] % 32, 0);
    gd_sweep_free(&s);
    assert_int_equal(gd_sweep_parse("1KiB:2KiB:+256", 128, &s, &err), 0);
    assert_int_equal(s.count, 5);
    gd_sweep_free(&s);
    assert_int_equal(gd_sweep_parse("3000:3000", 128, &s, &err), 0); /* snapped to the nearest stride multiple */
    assert_int_equal(s.points[0], 2944);
    gd_sweep_free(&s);
    assert_int_equal(gd_sweep_parse("1KiB", 32, &s, &err), -1);
    assert_int_equal(gd_sweep_parse("1KiB:2KiB:1", 32, &s, &err), -1);
    assert_int_equal(gd_sweep_parse("x:2KiB", 32, &s, &err), -1);
    assert_int_equal(gd_sweep_parse("1KiB:2KiB:+0", 32, &s, &err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_writes_results),
        cmocka_unit_test(test_interrupted_run_keeps_finished_points),
        cmocka_unit_test(test_cuda_errors_are_one_line),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_lsu_trace),
        cmocka_unit_test(test_counters_per_point),
        cmocka_unit_test(test_help_and_listing),
        cmocka_unit_test(test_sweep_specs),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
