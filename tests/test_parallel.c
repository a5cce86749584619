/* test_parallel.c -- sweep points and suite steps in worker processes
 * (host/sweep_workers.c, host/step_workers.c).
 *
 * The same command with -j 1 and with several workers must write the same
 * bytes: every CSV (curves and per-point counters), the samples kept for
 * `infer`, inferred.json, and in meta.json the run's counters and kernel
 * records; the progress lines come in sweep order.  Also: an adaptive sweep
 * (its rounds are batches) decides the same points, noise stays seeded per
 * point, a point that fails in a worker fails the run with the serial run's
 * error and keeps the points before it, and `--chained` still carries one
 * device from point to point (its results are not those of independent points).
 * Suite steps: a step's result depends on its own options only (the same
 * bytes alone or after other steps), and a step started early under options
 * that changed by its turn is measured again under the new ones.
 */
#include "tests/testing.h"

#include <jansson.h>
#include <math.h>
#include <zlib.h>

#include "host/device_registry.h"
#include "host/runner.h"

static char out_a[65536], out_b[65536];

static int run_into(char *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int run_into(char *out, const char *fmt, ...)
{
    char args[2048], cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "%s %s", gd_test_binary(), args);
    return gd_test_run(cmd, out, sizeof out_a);
}

/* The whole file (gzip files decompressed), malloc'd and NUL-terminated;
 * *size its bytes. */
static char *slurp(const char *path, size_t *size)
{
    gzFile f = gzopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (int got; buf && (got = gzread(f, buf + n, (unsigned)(cap - n))) > 0;) {
        n += (size_t)got;
        if (n == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    gzclose(f);
    *size = n;
    if (buf && n == cap) { /* room for the NUL that makes the text a string */
        char *nb = realloc(buf, cap + 1);
        if (!nb)
            free(buf);
        buf = nb;
    }
    if (buf)
        buf[n] = 0;
    return buf;
}

static void assert_same_file(const char *a_dir, const char *b_dir, const char *name)
{
    char pa[1200], pb[1200];
    snprintf(pa, sizeof pa, "%s/%s", a_dir, name);
    snprintf(pb, sizeof pb, "%s/%s", b_dir, name);
    size_t na = 0, nb = 0;
    char *a = slurp(pa, &na), *b = slurp(pb, &nb);
    if (!a || !b)
        fail_msg("missing %s or %s", pa, pb);
    if (na != nb || memcmp(a, b, na) != 0)
        fail_msg("%s and %s differ (%zu and %zu bytes)", pa, pb, na, nb);
    assert_true(na > 0);
    free(a);
    free(b);
}

/* meta.json's key (counters, kernels, probes) is the same JSON in both runs. */
static void assert_same_meta(const char *a_dir, const char *b_dir, const char *key)
{
    char pa[1200], pb[1200];
    snprintf(pa, sizeof pa, "%s/meta.json", a_dir);
    snprintf(pb, sizeof pb, "%s/meta.json", b_dir);
    json_error_t e;
    json_t *a = json_load_file(pa, 0, &e), *b = json_load_file(pb, 0, &e);
    assert_non_null(a);
    assert_non_null(b);
    json_t *va = json_object_get(a, key), *vb = json_object_get(b, key);
    assert_non_null(va);
    if (!json_equal(va, vb)) {
        char *ta = json_dumps(va, JSON_COMPACT), *tb = json_dumps(vb, JSON_COMPACT);
        fail_msg("meta.json %s differs:\n%.600s\n%.600s", key, ta, tb);
    }
    json_decref(a);
    json_decref(b);
}

/* Lines of `out` that start with '[': the progress lines, in order. */
static void progress_lines(const char *out, char *lines, size_t cap)
{
    size_t n = 0;
    lines[0] = 0;
    for (const char *p = out; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);
        if (*p == '[' && n + len < cap) {
            memcpy(lines + n, p, len);
            n += len;
            lines[n] = 0;
        }
        p += len;
    }
}

static void test_sweep_same_bytes_any_jobs(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    char a[1100], b[1100];
    snprintf(a, sizeof a, "%s/j1", dir);
    snprintf(b, sizeof b, "%s/j3", dir);
    /* noise on: every point draws jitter, which must not depend on who ran it */
    const char *sweep = "run --device sim:t4 --probe pchase --sweep 1KiB:256KiB "
                        "--set noise.jitter=3 --set noise.outlier_rate=0.01";
    assert_int_equal(run_into(out_a, "%s -j 1 --out %s", sweep, a), 0);
    assert_int_equal(run_into(out_b, "%s -j 3 --out %s", sweep, b), 0);
    assert_same_file(a, b, "pchase.csv");
    assert_same_file(a, b, "pchase.counters.csv");
    assert_same_file(a, b, "pchase.samples.gz");
    assert_same_meta(a, b, "counters");
    assert_same_meta(a, b, "kernels");

    /* progress: one line per point, numbered in sweep order, the same text */
    static char pa[16384], pb[16384];
    progress_lines(out_a, pa, sizeof pa);
    progress_lines(out_b, pb, sizeof pb);
    assert_string_equal(pa, pb);
    int expect = 1;
    for (const char *p = pa; *p; p = strchr(p, '\n') + 1) {
        int k, total;
        assert_int_equal(sscanf(p, "[%d/%d]", &k, &total), 2);
        assert_int_equal(k, expect++);
        assert_int_equal(total, 9);
    }
    assert_int_equal(expect, 10);

    /* independent noise per point: two points' jittered samples differ */
    char path[1200];
    snprintf(path, sizeof path, "%s/pchase.csv", a);
    size_t n;
    char *csv = slurp(path, &n);
    assert_non_null(csv);
    /* 2 and 4 KiB both hit the L1 every time: only the jitter differs, and
     * only if each worker's noise is its point's own */
    assert_non_null(strstr(csv, "\n2048,cycles,"));
    assert_non_null(strstr(csv, "\n4096,cycles,"));
    double sd1 = 0, sd2 = 0;
    assert_int_equal(sscanf(strstr(csv, "\n2048,cycles,"),
                            "\n2048,cycles,%*f,%*f,%*f,%*f,%*f,%*f,%*f,%lf", &sd1), 1);
    assert_int_equal(sscanf(strstr(csv, "\n4096,cycles,"),
                            "\n4096,cycles,%*f,%*f,%*f,%*f,%*f,%*f,%*f,%lf", &sd2), 1);
    assert_true(sd1 > 0 && sd2 > 0);
    assert_true(sd1 != sd2);
    free(csv);
    gd_test_rmrf(dir);
    free(dir);
}

static void test_adaptive_same_points(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    char a[1100], b[1100];
    snprintf(a, sizeof a, "%s/j1", dir);
    snprintf(b, sizeof b, "%s/j2", dir);
    const char *sweep = "run --device sim:t4 --probe pchase --sweep 1KiB:256KiB --adaptive "
                        "--stride 128 --resolution 1KiB --quiet";
    assert_int_equal(run_into(out_a, "%s -j 1 --out %s", sweep, a), 0);
    assert_int_equal(run_into(out_b, "%s -j 2 --out %s", sweep, b), 0);
    assert_same_file(a, b, "pchase.csv");
    assert_same_file(a, b, "pchase.counters.csv");
    assert_same_meta(a, b, "probes"); /* points, coarse and refine counts */
    assert_same_meta(a, b, "counters");
    gd_test_rmrf(dir);
    free(dir);
}

static void test_characterize_same_bytes(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    char a[1100], b[1100];
    snprintf(a, sizeof a, "%s/j1", dir);
    snprintf(b, sizeof b, "%s/j2", dir);
    const char *cmd = "characterize --device sim:t4 --suite quick --no-plots";
    assert_int_equal(run_into(out_a, "%s -j 1 --out %s", cmd, a), 0);
    assert_int_equal(run_into(out_b, "%s -j 2 --out %s", cmd, b), 0);
    /* every progress line, in suite and sweep order, whoever measured it */
    static char la[65536], lb[65536];
    progress_lines(out_a, la, sizeof la);
    progress_lines(out_b, lb, sizeof lb);
    assert_true(strlen(la) > 100);
    assert_string_equal(la, lb);
    assert_same_file(a, b, "inferred.json");
    assert_same_file(a, b, "pchase.csv");
    assert_same_file(a, b, "pchase.counters.csv");
    assert_same_file(a, b, "stride-l1d.csv");
    assert_same_file(a, b, "stride-l2.csv");
    assert_same_meta(a, b, "counters");
    assert_same_meta(a, b, "kernels");
    gd_test_rmrf(dir);
    free(dir);
}

static void write_suite(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* The x values of a curve's CSV, "x1 x2 ..." (the first series' rows). */
static void csv_points(const char *dir, const char *label, char *xs, size_t cap)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s.csv", dir, label);
    size_t n = 0;
    char *csv = slurp(path, &n);
    assert_non_null(csv);
    xs[0] = 0;
    char first_series[64] = "";
    for (char *save = NULL, *row = strtok_r(csv, "\n", &save); row; row = strtok_r(NULL, "\n", &save)) {
        char series[64];
        unsigned long long x;
        if (sscanf(row, "%llu,%63[^,]", &x, series) != 2)
            continue; /* the header */
        if (!first_series[0])
            snprintf(first_series, sizeof first_series, "%s", series);
        if (!strcmp(series, first_series))
            snprintf(xs + strlen(xs), cap - strlen(xs), "%s%llu", xs[0] ? " " : "", x);
    }
    free(csv);
}

/* A step started early (a token was free while the L2 step ran) under the L2
 * the device reports, whose turn comes after the L2 step inferred another
 * size (random replacement reads a few lines off): measured again, under the
 * inferred size -- the same bytes as -j 1, which starts nothing early. */
static void test_step_started_early_measured_again(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    char suite[1100], a[1100], b[1100];
    snprintf(suite, sizeof suite, "%s/early.suite", dir);
    snprintf(a, sizeof a, "%s/j1", dir);
    snprintf(b, sizeof b, "%s/j2", dir);
    write_suite(suite, "l2     pchase  --sweep 1KiB:4*L2 --adaptive --variant cg --stride 128\n"
                       "after  pchase  --sweep L2/2:2*L2:3 --variant cg --stride 128\n");
    const char *cmd = "characterize --device sim:tiny --set L2.replacement=random --no-plots";
    assert_int_equal(run_into(out_a, "%s --suite %s -j 1 --out %s", cmd, suite, a), 0);
    assert_int_equal(run_into(out_b, "%s --suite %s -j 2 --out %s", cmd, suite, b), 0);
    assert_same_file(a, b, "l2.csv");
    assert_same_file(a, b, "after.csv");
    assert_same_file(a, b, "after.samples.gz");
    assert_same_file(a, b, "inferred.json");
    assert_same_meta(a, b, "counters");
    assert_same_meta(a, b, "kernels");
    static char la[65536], lb[65536];
    progress_lines(out_a, la, sizeof la);
    progress_lines(out_b, lb, sizeof lb);
    assert_string_equal(la, lb);
    /* the inferred L2 is not the 16 KiB tiny.arch reports, and `after` ran
     * at it: L2/2, L2, 2 x L2, each rounded to its 128-byte stride */
    char path[1200];
    snprintf(path, sizeof path, "%s/inferred.json", b);
    json_error_t jerr;
    json_t *inf = json_load_file(path, 0, &jerr);
    assert_non_null(inf);
    double l2 = 0;
    size_t i;
    json_t *lv;
    json_array_foreach(json_object_get(inf, "levels"), i, lv)
        if (!strcmp(json_string_value(json_object_get(lv, "name")), "L2"))
            l2 = json_number_value(json_object_get(lv, "size_bytes"));
    json_decref(inf);
    assert_true(l2 > 0);
    assert_true(fabs(l2 - 16384) > 128); /* random replacement: a fit, a few lines off */
    char xs[256], want[256];
    csv_points(b, "after", xs, sizeof xs);
    snprintf(want, sizeof want, "%.0f %.0f %.0f", round(l2 / 2 / 128) * 128, round(l2 / 128) * 128,
             round(2 * l2 / 128) * 128);
    assert_string_equal(xs, want);
    /* nothing of the steps' own bookkeeping is left */
    char steps[1200];
    snprintf(steps, sizeof steps, "%s/.steps", b);
    assert_int_equal(access(steps, F_OK), -1);
    gd_test_rmrf(dir);
    free(dir);
}

/* A step's result is a function of its own options: run alone, or after
 * another step (in a run of any -j), it writes the same bytes. */
static void test_step_independent_of_steps_before(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    char both[1100], alone[1100], a[1100], b[1100];
    snprintf(both, sizeof both, "%s/both.suite", dir);
    snprintf(alone, sizeof alone, "%s/alone.suite", dir);
    snprintf(a, sizeof a, "%s/both", dir);
    snprintf(b, sizeof b, "%s/alone", dir);
    write_suite(both, "first  pchase  --sweep 1KiB:64KiB --variant cg --stride 128\n"
                      "fixed  pchase  --sweep 4KiB:32KiB --stride 64\n");
    write_suite(alone, "fixed  pchase  --sweep 4KiB:32KiB --stride 64\n");
    const char *cmd = "characterize --device sim:tiny --set noise.jitter=3 --no-plots --quiet";
    assert_int_equal(run_into(out_a, "%s --suite %s -j 2 --out %s", cmd, both, a), 0);
    assert_int_equal(run_into(out_b, "%s --suite %s -j 1 --out %s", cmd, alone, b), 0);
    assert_same_file(a, b, "fixed.csv");
    assert_same_file(a, b, "fixed.samples.gz");
    gd_test_rmrf(dir);
    free(dir);
}

/* One point's counters in a process that measured a constant-cache point
 * before, on one device (--chained, or a sweep worker that ran other points):
 * no row says so.  The per-level constant and instruction-cache totals are
 * listed once nonzero, and a p-chase point's counters carried "L15C.const_hits,
 * 0" after a const_seq point, not without one (sim:t4 full: counters files
 * differed from run to run with the points' spread over the workers). */
static void test_counters_independent_of_points_before(void **state)
{
    (void)state;
    gd_err err;
    gd_device *dev;
    assert_int_equal(gd_device_open("sim:t4", NULL, &dev, &err), 0);
    static const char *const order[][2] = {{"pchase", NULL}, {"const_seq", "pchase"}};
    static char names[2][8192];
    for (size_t k = 0; k < 2; k++) {
        gd_curve last = {0};
        for (size_t p = 0; p < 2 && order[k][p]; p++) {
            gd_runner r;
            gd_runner_init(&r, dev, NULL, NULL);
            r.chained = 1; /* one device, point after point, in this process */
            gd_probe_opts opts = {0};
            gd_sweep sw;
            assert_int_equal(gd_sweep_parse("4KiB:4KiB", 64, &sw, &err), 0);
            gd_curve_free(&last);
            gd_curve_init(&last, order[k][p], gd_probe_find(order[k][p]), &opts);
            if (gd_runner_sweep(&r, &last, &sw, &err) != 0)
                fail_msg("%s: %s", order[k][p], err.msg);
            gd_sweep_free(&sw);
            gd_runner_close(&r);
        }
        const gd_counter_list *c = &last.points[0].counters;
        names[k][0] = '\0';
        for (size_t i = 0; i < c->count; i++) {
            strncat(names[k], c->items[i].name, sizeof names[k] - strlen(names[k]) - 2);
            strcat(names[k], "\n");
        }
        gd_curve_free(&last);
    }
    if (strcmp(names[0], names[1]))
        fail_msg("a p-chase point's counters alone:\n%s\nafter a const_seq point:\n%s", names[0],
                 names[1]);
    gd_device_close(dev);
}

/* A point that fails in a worker: the run fails with the serial run's error
 * and keeps the points measured before it. */
static void test_worker_failure_like_serial(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    char a[1100], b[1100];
    snprintf(a, sizeof a, "%s/j1", dir);
    snprintf(b, sizeof b, "%s/j2", dir);
    /* sim:t4's chase takes about 2.3 M cycles at 8 KiB and 8 M beyond the L1:
     * a 4 M-cycle watchdog passes the small points and stops the rest */
    const char *sweep = "GPUDISSECT_SIM_MAX_CYCLES=4000000 %s run --device sim:t4 --probe pchase "
                        "--sweep 4KiB:1MiB --quiet";
    char cmd[2048];
    snprintf(cmd, sizeof cmd, sweep, gd_test_binary());
    char full[4096];
    snprintf(full, sizeof full, "%s -j 1 --out %s", cmd, a);
    int rc_a = gd_test_run(full, out_a, sizeof out_a);
    snprintf(full, sizeof full, "%s -j 2 --out %s", cmd, b);
    int rc_b = gd_test_run(full, out_b, sizeof out_b);
    assert_int_not_equal(rc_a, 0);
    assert_int_equal(rc_a, rc_b);
    assert_non_null(strstr(out_a, "did not finish within"));
    assert_string_equal(out_a, out_b);
    assert_same_file(a, b, "pchase.csv"); /* the points before the failure */
    char path[1200];
    snprintf(path, sizeof path, "%s/pchase.csv", b);
    size_t n;
    char *csv = slurp(path, &n);
    assert_non_null(csv);
    assert_non_null(strstr(csv, "\n4096,cycles,"));
    assert_null(strstr(csv, "\n1048576,cycles,"));
    free(csv);
    gd_test_rmrf(dir);
    free(dir);
}

/* --chained: one device from point to point, as before workers existed; its
 * points see what earlier points left (noise drawn in sequence), so its noisy
 * samples are not those of independent points -- and -j does not matter. */
static void test_chained_is_serial_carry_over(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    char a[1100], b[1100], c[1100];
    snprintf(a, sizeof a, "%s/chained", dir);
    snprintf(b, sizeof b, "%s/chained-j4", dir);
    snprintf(c, sizeof c, "%s/independent", dir);
    const char *sweep = "run --device sim:t4 --probe pchase --sweep 1KiB:16KiB "
                        "--set noise.jitter=3 --quiet";
    assert_int_equal(run_into(out_a, "%s --chained --out %s", sweep, a), 0);
    assert_int_equal(run_into(out_a, "%s --chained -j 4 --out %s", sweep, b), 0);
    assert_int_equal(run_into(out_a, "%s -j 2 --out %s", sweep, c), 0);
    assert_same_file(a, b, "pchase.samples.gz");
    char pa[1200], pc[1200];
    snprintf(pa, sizeof pa, "%s/pchase.samples.gz", a);
    snprintf(pc, sizeof pc, "%s/pchase.samples.gz", c);
    size_t na, nc;
    char *sa = slurp(pa, &na), *sc = slurp(pc, &nc);
    assert_non_null(sa);
    assert_non_null(sc);
    assert_true(na != nc || memcmp(sa, sc, na) != 0);
    free(sa);
    free(sc);
    gd_test_rmrf(dir);
    free(dir);
}

static void test_jobs_option_checked(void **state)
{
    (void)state;
    assert_int_equal(run_into(out_a, "run --device sim:t4 --probe pchase --sweep 1KiB:2KiB "
                                     "-j 0 --out /tmp/gd-never"),
                     2);
    assert_non_null(strstr(out_a, "--jobs"));
    assert_int_equal(run_into(out_a, "characterize --device sim:t4 -j x --out /tmp/gd-never"), 2);
    assert_non_null(strstr(out_a, "--jobs"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_same_bytes_any_jobs),
        cmocka_unit_test(test_adaptive_same_points),
        cmocka_unit_test(test_characterize_same_bytes),
        cmocka_unit_test(test_step_started_early_measured_again),
        cmocka_unit_test(test_step_independent_of_steps_before),
        cmocka_unit_test(test_counters_independent_of_points_before),
        cmocka_unit_test(test_worker_failure_like_serial),
        cmocka_unit_test(test_chained_is_serial_carry_over),
        cmocka_unit_test(test_jobs_option_checked),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
