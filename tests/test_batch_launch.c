/* test_batch_launch.c -- points that share a launch (kernels/probe.h
 * plan_batch): the probes whose every point first evicts the L2 (mshr,
 * resv_stall, dram_row) measure a sweep's points several to a launch, the
 * eviction pass once.
 *
 * - Each point of a batch measures what its own launch would: on sim:tiny
 *   (whose DRAM has no rows, so no point can leave another a row open) the
 *   medians of every series of a 12-point launch equal those of the twelve
 *   one-point launches, sample for sample -- a point later in the launch
 *   finds its lines in DRAM, where the first one found its own.
 * - The points say they were a batch: every point's counters carry the
 *   gauge batch_points (the launch's point count), and meta.json's kernel
 *   record counts every point of the launch.
 * - An adaptive sweep cuts a bracket in several parts a round, so an
 *   l1-mshr-style sweep needs fewer rounds (launches) than bisection would.
 * - A launch that fails falls back to its points one at a time: the points
 *   before a point the probe cannot plan are kept, the error is that point's.
 * - Stopped mid-step and resumed (`characterize --resume`), a run of batch
 *   steps ends with the CSVs, samples and counters of an uninterrupted run
 *   byte for byte (a launch the checkpoint has every point of runs again on
 *   the sim device, its results dropped; one it has some of runs whole).
 */
#include "tests/testing.h"


#include <math.h>

#include "analysis/results.h"
#include "tests/results_json.h"
#include "tests/resume_checks.h"

#define BATCH_TOLERANCE_CYCLES 2.0

/* The CSV rows "x,series,min,median,..." of `series`: x and median. */
static size_t medians(const char *csv_path, const char *series, uint64_t *xs, double *med,
                      size_t cap)
{
    gd_err err;
    size_t len = 0;
    char *text = gd_read_file(csv_path, &len, &err);
    if (!text)
        fail_msg("%s", err.msg);
    size_t n = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char name[64];
        unsigned long long x;
        double mn, md;
        if (sscanf(line, "%llu,%63[^,],%lf,%lf", &x, name, &mn, &md) == 4 &&
            !strcmp(name, series) && n < cap) {
            xs[n] = x;
            med[n++] = md;
        }
    }
    free(text);
    return n;
}

/* `run` of probe/variant over `sweep` on sim:tiny into dir. */
static void run_sweep(const char *dir, const char *probe, const char *variant, const char *sweep)
{
    char cmd[2048], out[4096];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && %s run --device sim:tiny --probe %s --variant %s "
             "--sweep %s --out '%s'",
             dir, gd_test_binary(), probe, variant, sweep, dir);
    if (gd_test_run(cmd, out, sizeof out) != 0)
        fail_msg("%s: %s", cmd, out);
}

static void check_batch_equals_single(const char *probe, const char *variant, const char *sweep,
                                      const char *series)
{
    char *tmp = gd_test_tmpdir();
    char dir[1100], csv[1200];
    snprintf(dir, sizeof dir, "%s/batch", tmp);
    run_sweep(dir, probe, variant, sweep);
    snprintf(csv, sizeof csv, "%s/%s.csv", dir, probe);
    uint64_t xs[64], one_x[4];
    double med[64], one[4];
    size_t n = medians(csv, series, xs, med, 64);
    assert_true(n >= 6);
    /* every point's counters: batch_points, the launch's n */
    snprintf(csv, sizeof csv, "%s/%s.counters.csv", dir, probe);
    gd_err err;
    char *counters = gd_read_file(csv, NULL, &err);
    assert_non_null(counters);
    for (size_t i = 0; i < n; i++) {
        char row[96];
        snprintf(row, sizeof row, "\n%llu,batch_points,%zu\n", (unsigned long long)xs[i], n);
        if (!strstr(counters, row))
            fail_msg("%s: no row \"%s\" in %s", probe, row + 1, csv);
    }
    free(counters);
    json_t *meta = gd_test_load_json(dir, "meta.json");
    json_t *k = json_array_get(json_object_get(meta, "kernels"), 0);
    assert_int_equal(json_integer_value(json_object_get(k, "points")), (json_int_t)n);
    json_decref(meta);
    /* each point alone: the same medians, to a cycle or two (one round's
     * sample a cycle off: the L2's and the TLB's state behind a point that
     * ran after others), far below any step the analysis reads */
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        char one_sweep[64];
        snprintf(one_sweep, sizeof one_sweep, "%llu:%llu", (unsigned long long)xs[i],
                 (unsigned long long)xs[i]);
        snprintf(dir, sizeof dir, "%s/one", tmp);
        run_sweep(dir, probe, variant, one_sweep);
        snprintf(csv, sizeof csv, "%s/%s.csv", dir, probe);
        assert_int_equal(medians(csv, series, one_x, one, 4), 1);
        if (fabs(one[0] - med[i]) > BATCH_TOLERANCE_CYCLES)
            fail_msg("%s/%s at %llu: %s median %g in a launch of %zu, %g alone", probe, variant,
                     (unsigned long long)xs[i], series, med[i], n, one[0]);
        if (fabs(one[0] - med[i]) > worst)
            worst = fabs(one[0] - med[i]);
    }
    printf("note: %s/%s: %zu points in one launch, each within %g cycles of its median alone\n",
           probe, variant, n, worst);
    gd_test_rmrf(tmp);
    free(tmp);
}

static void test_mshr_entries_batch_equals_single(void **state)
{
    (void)state;
    check_batch_equals_single("mshr", "entries", "8:256:12", "follower_cycles");
}

static void test_mshr_merge_batch_equals_single(void **state)
{
    (void)state;
    check_batch_equals_single("mshr", "merge", "1:128:8", "follower_cycles");
}

static void test_resv_stall_batch_equals_single(void **state)
{
    (void)state;
    check_batch_equals_single("resv_stall", "ca", "1:64:8", "a_cycles");
}

/* More points than one launch takes: launches of batch_max (16) and the
 * rest, each point still its own. */
static void test_long_sweep_spreads_over_launches(void **state)
{
    (void)state;
    char *tmp = gd_test_tmpdir();
    char dir[1100], csv[1200];
    snprintf(dir, sizeof dir, "%s/long", tmp);
    run_sweep(dir, "mshr", "entries", "1:40:+1");
    snprintf(csv, sizeof csv, "%s/mshr.counters.csv", dir);
    gd_err err;
    char *counters = gd_read_file(csv, NULL, &err);
    assert_non_null(counters);
    size_t of16 = 0, of8 = 0;
    for (const char *p = counters; (p = strstr(p, ",batch_points,")); p++) {
        double v = atof(p + strlen(",batch_points,"));
        of16 += v == 16;
        of8 += v == 8;
    }
    free(counters);
    /* 40 points: two launches of 16, one of 8 */
    assert_int_equal(of16, 32);
    assert_int_equal(of8, 8);
    gd_test_rmrf(tmp);
    free(tmp);
}

/* A launch that cannot be planned (a point past the probe's range) falls
 * back to its points one at a time: the ones before the bad point are kept,
 * and the error names the bad point, as in a serial run. */
static void test_bad_point_keeps_the_points_before(void **state)
{
    (void)state;
    char *tmp = gd_test_tmpdir();
    char cmd[2048], out[4096];
    snprintf(cmd, sizeof cmd, "%s run --device sim:tiny --probe mshr --sweep 1000:1100:+50 "
             "--out '%s/bad' --quiet",
             gd_test_binary(), tmp);
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 1);
    if (!strstr(out, "mshr requests=1050: mshr: 1050 lines is outside 1..1024"))
        fail_msg("not the bad point's error: %s", out);
    char csv[1200];
    snprintf(csv, sizeof csv, "%s/bad/mshr.csv", tmp);
    uint64_t xs[8];
    double med[8];
    assert_int_equal(medians(csv, "follower_cycles", xs, med, 8), 1);
    assert_int_equal(xs[0], 1000);
    gd_test_rmrf(tmp);
    free(tmp);
}

/* The adaptive sweep: brackets cut in several parts a round. */
static void test_adaptive_rounds_fewer_than_bisection(void **state)
{
    (void)state;
    char *tmp = gd_test_tmpdir();
    char cmd[2048], out[8192];
    snprintf(cmd, sizeof cmd, "%s run --device sim:tiny --probe mshr --sweep 8:1024:8 --adaptive "
             "--resolution 1 --out '%s/ad'",
             gd_test_binary(), tmp);
    if (gd_test_run(cmd, out, sizeof out) != 0)
        fail_msg("%s: %s", cmd, out);
    char csv[1200];
    snprintf(csv, sizeof csv, "%s/ad/mshr.csv", tmp);
    uint64_t xs[256];
    double med[256];
    size_t n = medians(csv, "follower_cycles", xs, med, 256);
    /* the knee sits at one resolution step: two neighbours one apart, the
     * second well above the first */
    int closed = 0;
    for (size_t i = 0; i + 1 < n; i++)
        closed |= xs[i + 1] == xs[i] + 1 && med[i + 1] > med[i] + 50;
    assert_true(closed);
    /* rounds: a bracket of a hundred halved takes 7 rounds of one point;
     * cut in 8 parts, 3 of up to 7 -- one launch each, the coarse one too */
    snprintf(csv, sizeof csv, "%s/ad/mshr.counters.csv", tmp);
    gd_err err;
    char *counters = gd_read_file(csv, NULL, &err);
    assert_non_null(counters);
    /* launches: sum over points of 1 / batch_points (a point alone has none) */
    double launches = 0;
    size_t with = 0;
    for (const char *p = counters; (p = strstr(p, ",batch_points,")); p++, with++)
        launches += 1.0 / atof(p + strlen(",batch_points,"));
    launches += (double)(n - with);
    free(counters);
    printf("note: %zu points in %.0f launches\n", n, launches);
    assert_true(launches <= 4.5);
    gd_test_rmrf(tmp);
    free(tmp);
}

static void test_resume_mid_batch_step(void **state)
{
    (void)state;
    char *tmp = gd_test_tmpdir();
    char suite[1100];
    snprintf(suite, sizeof suite, "%s/batch.suite", tmp);
    FILE *f = fopen(suite, "w");
    assert_non_null(f);
    fputs("# batch steps, adaptive, noisy\n"
          "l1-mshr   mshr --sweep 8:512:10 --adaptive --resolution 1\n"
          "l1-merge  mshr --variant merge --sweep 1:128:10 --adaptive --resolution 1\n"
          "l1-resv   resv_stall --stride 256 --sweep 1:64:8 --adaptive --resolution 1\n",
          f);
    fclose(f);
    char ref[1100], out[1100];
    snprintf(ref, sizeof ref, "%s/ref", tmp);
    snprintf(out, sizeof out, "%s/mid", tmp);
#define BATCH_OPTS "--device sim:tiny --set noise.jitter=3 --set noise.outlier_rate=0.02 " \
                   "--set noise.outlier_cycles=300 --no-plots -j 1"
#define BATCH_ARGS(dir)                                                                        \
    {"gpudissect", "characterize", "--device", "sim:tiny", "--set", "noise.jitter=3",          \
     "--set", "noise.outlier_rate=0.02", "--set", "noise.outlier_cycles=300", "--no-plots",    \
     "-j", "1", "--suite", suite, "--out", dir, NULL}
    char cmd[4096], log[4096];
    snprintf(cmd, sizeof cmd, "%s characterize " BATCH_OPTS " --suite '%s' --out '%s'",
             gd_test_binary(), suite, ref);
    if (gd_test_run(cmd, log, sizeof log) != 0)
        fail_msg("%s: %s", cmd, log);
    const char *steps[] = {"l1-merge", "l1-resv"};
    for (size_t s = 0; s < 2; s++) {
        char *args[] = BATCH_ARGS(out);
        int rc = -1;
        for (int attempt = 0; attempt < 3 && rc < 0; attempt++) {
            gd_test_rmrf(out);
            char partial[1200];
            snprintf(partial, sizeof partial, "%s/%s.partial", out, steps[s]);
            rc = gd_test_stop_when_file(args, partial, SIGKILL, 200);
        }
        if (rc < 0)
            fail_msg("%s: the run finished three times before its checkpoint was seen", steps[s]);
        snprintf(cmd, sizeof cmd, "%s characterize --resume '%s'", gd_test_binary(), out);
        if (gd_test_run(cmd, log, sizeof log) != 0)
            fail_msg("%s: %s", cmd, log);
        const char *files[] = {"l1-mshr.csv", "l1-merge.csv", "l1-merge.counters.csv",
                               "l1-merge.samples.gz", "l1-resv.csv", "l1-resv.counters.csv",
                               "l1-resv.samples.gz"};
        for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
            gd_test_assert_same_file(ref, out, files[i]);
        printf("note: killed in %s, resumed: every CSV as the uninterrupted run's\n", steps[s]);
    }
#undef BATCH_ARGS
#undef BATCH_OPTS
    gd_test_rmrf(tmp);
    free(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mshr_entries_batch_equals_single),
        cmocka_unit_test(test_mshr_merge_batch_equals_single),
        cmocka_unit_test(test_resv_stall_batch_equals_single),
        cmocka_unit_test(test_long_sweep_spreads_over_launches),
        cmocka_unit_test(test_bad_point_keeps_the_points_before),
        cmocka_unit_test(test_adaptive_rounds_fewer_than_bisection),
        cmocka_unit_test(test_resume_mid_batch_step),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
