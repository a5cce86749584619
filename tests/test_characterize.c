/* test_characterize.c -- the main job end to end: `characterize` recovers every
 * configured L1/L2 size to one line and every latency to +-1 cycle on arch files
 * that differ in sizes (powers of two or not), lines, ways, latencies and
 * replacement (LRU, random), with and without timing noise; the adaptive sweep
 * pins the knees a dense sweep pins with a fraction of the points; plots and
 * report are produced; compare catches a wrong arch; bad input fails clearly;
 * set-associative instruction caches and small CPI steps (the unseen-GPUs
 * issue's T4 variants) give both instruction-cache sizes. */
#include "tests/testing.h"
#include "host/device_registry.h"
#include "tests/results_json.h"

#include <jansson.h>
#include <math.h>
#include <sys/stat.h>

#include "analysis/arch.h"
#include "analysis/plot.h"
#include "host/adaptive.h"
#include "analysis/results.h"
#include "host/runner.h"
#include "analysis/infer.h"
#include "analysis/steps.h"
#include "kernels/probe.h"

static char out[1 << 16];

static const char *const noise_opts =
    "--set noise.jitter=3 --set noise.outlier_rate=0.005 --set noise.outlier_cycles=800 "
    "--set noise.seed=5";

/* Characterizes sim:ARCH and checks every size and latency against the file. */
static void check_recovery(const char *arch_name, int noisy)
{
    char *dir = gd_test_tmpdir();
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s characterize --device sim:%s %s --out %s/run --quiet --no-plots",
             gd_test_binary(), arch_name, noisy ? noise_opts : "", dir);
    if (gd_test_run(cmd, out, sizeof out) != 0)
        fail_msg("%s failed:\n%s", cmd, out);
    gd_arch a;
    gd_err err;
    char path[1024], run[1200];
    assert_int_equal(gd_arch_resolve(arch_name, path, sizeof path, &err), 0);
    assert_int_equal(gd_arch_load(path, NULL, 0, &a, &err), 0);
    snprintf(run, sizeof run, "%s/run", dir);
    json_t *inf = gd_test_load_json(run, "inferred.json");
    static const struct {
        const char *name;
        gd_level_id id;
    } levels[] = {{"L1D", GD_L1D}, {"L2", GD_L2}, {"DRAM", GD_DRAM}};
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        const json_t *l = gd_test_level(inf, levels[i].name);
        if (!l)
            fail_msg("%s%s: no %s in inferred.json", arch_name, noisy ? " (noise)" : "",
                     levels[i].name);
        const gd_arch_level *al = &a.level[levels[i].id];
        double lat = json_number_value(json_object_get(l, "latency_cycles"));
        if (fabs(lat - al->latency_cycles) > 1.0)
            fail_msg("%s%s: %s latency %.2f, arch %u", arch_name, noisy ? " (noise)" : "",
                     levels[i].name, lat, al->latency_cycles);
        if (levels[i].id == GD_DRAM)
            continue;
        double size = json_number_value(json_object_get(l, "size_bytes"));
        if (fabs(size - (double)al->size_bytes) > al->line_bytes)
            fail_msg("%s%s: %s size %.0f, arch %llu (line %u)", arch_name, noisy ? " (noise)" : "",
                     levels[i].name, size, (unsigned long long)al->size_bytes, al->line_bytes);
        double line = json_number_value(json_object_get(l, "sector_bytes"));
        uint32_t fetch = al->sector_bytes ? al->sector_bytes : al->line_bytes;
        if (line != fetch)
            fail_msg("%s%s: %s fetch granularity %.0f, arch %u", arch_name,
                     noisy ? " (noise)" : "", levels[i].name, line, fetch);
        assert_true(json_number_value(json_object_get(l, "confidence")) > 0.25);
    }
    json_decref(inf);
    /* compare.json agrees: every parameter matches */
    json_t *cmp = gd_test_load_json(run, "compare.json");
    json_t *summary = json_object_get(cmp, "summary");
    assert_int_equal(json_integer_value(json_object_get(summary, "mismatch")), 0);
    /* ... but the L2's allocation line, which no probe of the quick suite sees */
    assert_int_equal(json_integer_value(json_object_get(summary, "not_measured")), 1);
    assert_int_equal(json_integer_value(json_object_get(summary, "match")), 7);
    assert_int_equal(json_integer_value(json_object_get(summary, "residuals_mismatch")), 0);
    json_decref(cmp);
    if (noisy) {
        /* the noise really was there: outliers far above every level */
        snprintf(path, sizeof path, "%s/pchase.csv", run);
        FILE *f = fopen(path, "r");
        char line[512];
        double worst = 0;
        while (fgets(line, sizeof line, f)) {
            double mn, med, mean, mx;
            if (sscanf(line, "%*[^,],cycles,%lf,%lf,%lf,%lf", &mn, &med, &mean, &mx) == 4 && mx > worst)
                worst = mx;
        }
        fclose(f);
        assert_true(worst > a.level[GD_DRAM].latency_cycles + 500);
    }
    gd_test_rmrf(dir);
    free(dir);
}

static void test_recovery_lru_power_of_two(void **state)
{
    (void)state;
    check_recovery("tiny", 0);
    check_recovery("tiny", 1);
}

static void test_recovery_non_power_of_two(void **state)
{
    (void)state;
    check_recovery("nonpow2", 0);
    check_recovery("nonpow2", 1);
}

static void test_recovery_random_replacement(void **state)
{
    (void)state;
    check_recovery("rand", 0);
    check_recovery("rand", 1);
}

static void test_recovery_unsectored_l1(void **state)
{
    (void)state;
    check_recovery("gtx480", 0);
    check_recovery("gtx480", 1);
}

/* The default device of `make demo`: plots and the report, every level listed. */
static void test_t4_plots_and_report(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    char cmd[2048], run[1200], path[1400];
    snprintf(run, sizeof run, "%s/t4", dir);
    snprintf(cmd, sizeof cmd, "%s characterize --device sim:t4 --suite quick --out %s --quiet",
             gd_test_binary(), run);
    if (gd_test_run(cmd, out, sizeof out) != 0)
        fail_msg("%s failed:\n%s", cmd, out);
    assert_non_null(strstr(out, "L1D    size 64KiB"));
    assert_non_null(strstr(out, "L2     size 4MiB"));
    const char *curves[] = {"pchase", "stride-l1d", "stride-l2"};
    gd_err err;
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/plots/%s.png", run, curves[i]);
        if (gd_plot_check_png(path, &err) != 0)
            fail_msg("%s", err.msg);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 0777, 0644); /* readable like every result file */
        snprintf(path, sizeof path, "%s/plots/%s.svg", run, curves[i]);
        if (gd_plot_check_svg(path, &err) != 0)
            fail_msg("%s", err.msg);
        snprintf(path, sizeof path, "%s/plots/%s.gp", run, curves[i]);
        assert_int_equal(access(path, R_OK), 0);
        snprintf(path, sizeof path, "%s/plots/%s.dat", run, curves[i]);
        assert_int_equal(access(path, R_OK), 0);
    }
    snprintf(path, sizeof path, "%s/report.md", run);
    size_t bytes;
    char *report = gd_read_file(path, &bytes, &err);
    assert_non_null(report);
    json_t *inf = gd_test_load_json(run, "inferred.json");
    size_t i;
    const json_t *l;
    json_array_foreach(json_object_get(inf, "levels"), i, l) {
        const char *name = json_string_value(json_object_get(l, "name"));
        char needle[64];
        snprintf(needle, sizeof needle, "| %s ", name);
        if (!strstr(report, needle))
            fail_msg("report.md does not list level %s", name);
    }
    assert_non_null(strstr(report, "7 match, 0 mismatch, 1 not measured"));
    assert_non_null(strstr(report, "plots/pchase.png"));
    /* the adaptive sweep's economy is recorded */
    const json_t *pc = json_object_get(json_object_get(inf, "curves"), "pchase");
    json_int_t used = json_integer_value(json_object_get(pc, "points"));
    json_int_t uniform = json_integer_value(json_object_get(pc, "uniform_points_equivalent"));
    assert_true(used > 0 && used * 5 <= uniform);
    /* and what each step cost: CPU (the step's process and its point
     * processes) and wall seconds in meta.json, dearest first in the report */
    json_t *meta = gd_test_load_json(run, "meta.json");
    const json_t *cost = json_object_get(meta, "step_seconds");
    assert_int_equal(json_object_size(cost), 3);
    double dearest = 0;
    const char *dear = NULL;
    for (size_t k = 0; k < 3; k++) {
        const json_t *c = json_object_get(cost, curves[k]);
        double cpu = json_number_value(json_object_get(c, "cpu"));
        double wall = json_number_value(json_object_get(c, "wall"));
        if (!(cpu > 0 && wall > 0))
            fail_msg("step %s cost %g s of CPU, %g s wall", curves[k], cpu, wall);
        if (cpu > dearest) {
            dearest = cpu;
            dear = curves[k];
        }
    }
    const char *table = strstr(report, "## What each step cost");
    assert_non_null(table);
    char first[64];
    snprintf(first, sizeof first, "| `%s` |", dear);
    const char *row = strstr(table, "| `");
    assert_non_null(row);
    assert_int_equal(strncmp(row, first, strlen(first)), 0);
    json_decref(meta);
    json_decref(inf);
    free(report);
    gd_test_rmrf(dir);
    free(dir);
}

/* Knees of a curve segmented from its points. */
static void knees_of(gd_curve *c, double *below, size_t *count)
{
    gd_segmentation seg;
    gd_err err;
    if (gd_curve_segment(c, "cycles", &seg, &err) != 0)
        fail_msg("%s", err.msg);
    *count = seg.knee_count;
    for (size_t k = 0; k < seg.knee_count; k++)
        below[k] = seg.knees[k].x_below;
    gd_segmentation_free(&seg);
}

/* sim:tiny and a runner on it. */
static gd_device *open_tiny(gd_runner *r)
{
    gd_device *dev;
    gd_err err;
    assert_int_equal(gd_device_open("sim:tiny", NULL, &dev, &err), 0);
    gd_runner_init(r, dev, NULL, NULL);
    return dev;
}

/* The p-chase at 32 bytes, doubling from 512 B to 64 KiB, then bisection
 * (of the knees below refine_below; 0: of every knee). */
static void tiny_adaptive_pchase(gd_runner *r, gd_curve *c, uint64_t refine_below,
                                 gd_adaptive_stats *st)
{
    gd_probe_opts opts = {.stride_bytes = 32};
    gd_err err;
    gd_curve_init(c, "adaptive", gd_probe_find("pchase"), &opts);
    gd_sweep coarse;
    assert_int_equal(gd_sweep_parse("512:64KiB", 32, &coarse, &err), 0);
    coarse.refine_below = refine_below;
    assert_int_equal(gd_runner_adaptive(r, c, &coarse, 32, st, &err), 0);
    gd_sweep_free(&coarse);
}

static void test_adaptive_pins_dense_knees(void **state)
{
    (void)state;
    gd_err err;
    gd_runner r;
    gd_device *dev = open_tiny(&r);
    gd_probe_opts opts = {.stride_bytes = 32};
    /* dense: every 32 bytes across both knees (and a few points on each plateau) */
    gd_curve dense;
    gd_curve_init(&dense, "dense", gd_probe_find("pchase"), &opts);
    const char *specs[] = {"512:1KiB", "1792:2304:+32", "4KiB:8KiB", "16000:16800:+32",
                           "32KiB:64KiB"};
    size_t dense_points = 0;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        gd_sweep s;
        assert_int_equal(gd_sweep_parse(specs[i], 32, &s, &err), 0);
        assert_int_equal(gd_runner_sweep(&r, &dense, &s, &err), 0);
        dense_points += s.count;
        gd_sweep_free(&s);
    }
    double dk[8], ak[8];
    size_t dn, an;
    knees_of(&dense, dk, &dn);
    /* adaptive: doubling from 512 B to 64 KiB, then bisection */
    gd_curve adapt;
    gd_adaptive_stats st;
    tiny_adaptive_pchase(&r, &adapt, 0, &st);
    knees_of(&adapt, ak, &an);
    assert_int_equal(dn, 2);
    assert_int_equal(an, dn);
    for (size_t k = 0; k < dn; k++)
        assert_true(ak[k] == dk[k]);
    assert_true(dk[0] == 2048 && dk[1] == 16384);
    /* far fewer points: a uniform 32-byte sweep of the range needs 2033 */
    assert_int_equal(st.uniform_points, (65536 - 512) / 32 + 1);
    assert_true(st.points * 5 <= st.uniform_points);
    printf("note: adaptive %zu points vs uniform %llu (dense near the knees: %zu)\n", st.points,
           (unsigned long long)st.uniform_points, dense_points);
    gd_curve_free(&dense);
    gd_curve_free(&adapt);
    gd_runner_close(&r);
    gd_device_close(dev);
}

/* --refine-below: sim:tiny's knees at 2 and 16 KiB, only the first bisected
 * (the chase through the L1 leaves the L2's knee to the ld.cg chase).  And the
 * first knee -- the L1's -- is bisected wherever its bracket starts: with the
 * limit at 1 KiB, below the L1's 2 KiB (an L1D of half its L2 or more:
 * generated seeds 1006 and 1055, 128 KiB under 256 KiB, were left with their
 * L1D's knee unmeasured and every step sized from it skipped). */
static void test_adaptive_refine_below(void **state)
{
    (void)state;
    static const uint64_t limits[] = {8192, 1024};
    for (size_t k = 0; k < 2; k++) {
        gd_err err;
        gd_runner r;
        gd_device *dev = open_tiny(&r);
        gd_curve c;
        gd_adaptive_stats st;
        tiny_adaptive_pchase(&r, &c, limits[k], &st);
        gd_segmentation seg;
        assert_int_equal(gd_curve_segment(&c, "cycles", &seg, &err), 0);
        assert_int_equal(seg.knee_count, 2);
        if (!(seg.knees[0].x_above - seg.knees[0].x_below <= 32)) /* pinned */
            fail_msg("refine below %llu: the L1's knee left in [%g, %g)",
                     (unsigned long long)limits[k], seg.knees[0].x_below, seg.knees[0].x_above);
        assert_true(seg.knees[1].x_above - seg.knees[1].x_below > 32); /* left coarse */
        assert_true(seg.knees[1].x_below >= 8192);
        gd_segmentation_free(&seg);
        gd_curve_free(&c);
        gd_runner_close(&r);
        gd_device_close(dev);
    }
}

/* An LRU L2's knee through the ld.cg chase (sim:tiny with a 512 KiB L2 of 8
 * ways of 64-byte lines): past it the misses grow by a set's nine accesses a
 * line, a straight ramp in the extra cycles of a lap, and the adaptive sweep
 * closes the bracket where that line reaches zero (the probe's linear_knees)
 * -- the same one-line bracket at the L2's size as halving it, in fewer
 * points (on a 64 MiB L2 each of them a 64 MiB chase). */
static size_t tiny_cg_knee(const gd_probe *probe, double *below, double *above)
{
    gd_err err;
    gd_runner r;
    static const char *const big_l2[] = {"L2.size=512KiB"};
    gd_device_opts o = {big_l2, 1};
    gd_device *dev;
    assert_int_equal(gd_device_open("sim:tiny", &o, &dev, &err), 0);
    gd_runner_init(&r, dev, NULL, NULL);
    gd_probe_opts opts = {.stride_bytes = 64};
    snprintf(opts.variant, sizeof opts.variant, "cg");
    gd_curve c;
    gd_curve_init(&c, "cg", probe, &opts);
    gd_sweep coarse;
    assert_int_equal(gd_sweep_parse("8KiB:2MiB", 64, &coarse, &err), 0);
    gd_adaptive_stats st;
    if (gd_runner_adaptive(&r, &c, &coarse, 64, &st, &err) != 0)
        fail_msg("%s", err.msg);
    gd_sweep_free(&coarse);
    gd_segmentation seg;
    assert_int_equal(gd_curve_segment(&c, "cycles", &seg, &err), 0);
    assert_true(seg.knee_count >= 1);
    *below = seg.knees[0].x_below;
    *above = seg.knees[0].x_above;
    gd_segmentation_free(&seg);
    size_t n = c.count;
    gd_curve_free(&c);
    gd_runner_close(&r);
    gd_device_close(dev);
    return n;
}

static void test_adaptive_linear_knee(void **state)
{
    (void)state;
    const gd_probe *pchase = gd_probe_find("pchase");
    assert_true(pchase->linear_knees);
    double below, above;
    size_t points = tiny_cg_knee(pchase, &below, &above);
    if (below != 524288 || above != 524288 + 64)
        fail_msg("the L2's knee in [%g, %g), not [524288, 524352)", below, above);
    /* the control: the same probe halving the bracket */
    gd_probe halving = *pchase;
    halving.linear_knees = 0;
    double hb, ha;
    size_t halved = tiny_cg_knee(&halving, &hb, &ha);
    assert_true(hb == below && ha == above);
    print_message("  the L2's knee: %zu points with the ramp's line, %zu halving\n", points, halved);
    if (!(points + 4 <= halved))
        fail_msg("%zu points with the ramp's line, %zu halving", points, halved);
}

/* The merge limit's staircase (sim:tiny: 8 requests per MSHR entry) through
 * the adaptive sweep of l1-merge: mshr reads its first step alone
 * (first_step_only), so only that step is bisected -- to one request, the
 * limit read from it -- and the later steps keep their coarse brackets, where
 * the same probe without the flag bisects them too (every point of mshr
 * evicts the L2 first: 80 MiB of loads on a 40 MiB L2). */
static size_t merge_staircase(const gd_probe *probe, gd_curve *c, gd_step *steps, size_t cap)
{
    gd_err err;
    gd_runner r;
    gd_device *dev = open_tiny(&r);
    gd_probe_opts opts = {.stride_bytes = 128};
    snprintf(opts.variant, sizeof opts.variant, "merge");
    gd_curve_init(c, "l1-merge", probe, &opts);
    gd_sweep coarse;
    assert_int_equal(gd_sweep_parse("1:128:16", 1, &coarse, &err), 0);
    gd_adaptive_stats st;
    if (gd_runner_adaptive(&r, c, &coarse, 1, &st, &err) != 0)
        fail_msg("%s", err.msg);
    gd_sweep_free(&coarse);
    gd_runner_close(&r);
    gd_device_close(dev);
    size_t n = gd_curve_steps(c, "follower_cycles", steps, cap);
    return n < cap ? n : cap;
}

static void test_adaptive_first_step_only(void **state)
{
    (void)state;
    const gd_probe *mshr = gd_probe_find("mshr");
    assert_non_null(mshr);
    assert_true(mshr->first_step_only && gd_probe_find("resv_stall")->first_step_only);
    gd_curve c;
    gd_step steps[16];
    size_t n = merge_staircase(mshr, &c, steps, 16);
    assert_true(n >= 2); /* a staircase: the limit, then every further 8 */
    assert_int_equal(c.points[steps[0].below].x, 8);
    assert_int_equal(c.points[steps[0].above].x, 9);
    for (size_t k = 1; k < n; k++)
        assert_true(c.points[steps[k].above].x - c.points[steps[k].below].x > 1);
    gd_inference inf;
    memset(&inf, 0, sizeof inf);
    gd_err err;
    assert_int_equal(gd_infer_mshr(&inf, &c, &err), 0);
    assert_int_equal(inf.level[GD_INF_L1D].mshr_merge, 8);
    assert_false(inf.level[GD_INF_L1D].mshr_merge_is_lower_bound);
    size_t fewer = c.count;
    gd_curve_free(&c);
    /* the control: the same probe bisecting every step */
    gd_probe every = *mshr;
    every.first_step_only = 0;
    n = merge_staircase(&every, &c, steps, 16);
    int later_pinned = 0;
    for (size_t k = 1; k < n; k++)
        later_pinned |= c.points[steps[k].above].x - c.points[steps[k].below].x == 1;
    assert_true(later_pinned);
    assert_true(c.count > fewer);
    printf("note: l1-merge on sim:tiny: %zu points (first step only) vs %zu\n", fewer, c.count);
    gd_curve_free(&c);
}

static void test_model_command(void **state)
{
    (void)state;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s model --arch tiny --probe pchase --sweep 1KiB:64KiB",
             gd_test_binary());
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 0);
    assert_non_null(strstr(out, "footprint_bytes,mean_cycles,fraction_l1d,fraction_l2,fraction_dram\n"));
    assert_non_null(strstr(out, "\n2048,20,1,0,0\n"));
    assert_non_null(strstr(out, "\n16384,90,0,1,0\n"));
    assert_non_null(strstr(out, "\n65536,200,0,0,1\n"));
    snprintf(cmd, sizeof cmd, "%s model --arch tiny --probe nosuch --sweep 1KiB:2KiB",
             gd_test_binary());
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 2);
}

/* compare against the wrong arch finds the differences; the run's own arch matches */
static void test_compare_finds_a_wrong_arch(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    char cmd[2048], run[1200];
    snprintf(run, sizeof run, "%s/run", dir);
    snprintf(cmd, sizeof cmd, "%s characterize --device sim:tiny --out %s --quiet --no-plots",
             gd_test_binary(), run);
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 0);
    snprintf(cmd, sizeof cmd, "%s compare %s --arch nonpow2", gd_test_binary(), run);
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 0);
    assert_non_null(strstr(out, "L1D.size_bytes"));
    json_t *cmp = gd_test_load_json(run, "compare.json");
    assert_string_equal(json_string_value(json_object_get(cmp, "arch")), "nonpow2");
    size_t i;
    const json_t *p;
    int mismatches = 0;
    json_array_foreach(json_object_get(cmp, "parameters"), i, p) {
        const char *name = json_string_value(json_object_get(p, "parameter"));
        const char *verdict = json_string_value(json_object_get(p, "verdict"));
        if (!strcmp(name, "L1D.size_bytes") || !strcmp(name, "L2.latency_cycles"))
            assert_string_equal(verdict, "mismatch");
        mismatches += !strcmp(verdict, "mismatch");
        /* the published value carries the arch file's citation */
        assert_non_null(json_string_value(json_object_get(p, "source")));
    }
    assert_true(mismatches >= 5);
    json_decref(cmp);
    /* and the residuals of the curve against that arch's model are no longer 0 */
    cmp = gd_test_load_json(run, "compare.json");
    double worst = 0;
    json_array_foreach(json_object_get(cmp, "residuals"), i, p) {
        double r = fabs(json_number_value(json_object_get(p, "mean_residual")));
        if (r > worst)
            worst = r;
    }
    assert_true(worst > 10);
    /* ... and they carry the verdict a reader would give */
    assert_true(json_integer_value(json_object_get(json_object_get(cmp, "summary"),
                                                   "residuals_mismatch")) > 0);
    json_decref(cmp);
    snprintf(cmd, sizeof cmd, "%s compare %s --arch tiny && %s plot %s && %s report %s",
             gd_test_binary(), run, gd_test_binary(), run, gd_test_binary(), run);
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 0);
    assert_non_null(strstr(out, "7 match, 0 mismatch"));
    gd_test_rmrf(dir);
    free(dir);
}

static void test_bad_input(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    char cmd[2048], path[1200];
    /* a suite with a bad line */
    snprintf(path, sizeof path, "%s/bad.suite", dir);
    FILE *f = fopen(path, "w");
    fputs("# comment\npchase pchase --sweep 1KiB:4*L3\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s characterize --device sim:tiny --suite %s --out %s/r --quiet",
             gd_test_binary(), path, dir);
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 1);
    char expect[1300];
    snprintf(expect, sizeof expect, "%s:2: expression '4*L3': unknown name", path);
    if (!strstr(out, expect))
        fail_msg("expected '%s' in:\n%s", expect, out);
    f = fopen(path, "w");
    fputs("pchase pchase --sweep 1KiB:8KiB --frobnicate 3\n", f);
    fclose(f);
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 1);
    snprintf(expect, sizeof expect, "%s:1: unknown option '--frobnicate'", path);
    assert_non_null(strstr(out, expect));
    snprintf(cmd, sizeof cmd, "%s characterize --device sim:tiny --suite nosuch --quiet",
             gd_test_binary());
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 1);
    assert_non_null(strstr(out, "nosuch.suite: cannot open"));
    /* compare / plot on a directory that is not a run */
    snprintf(cmd, sizeof cmd, "%s compare %s --arch tiny", gd_test_binary(), dir);
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 1);
    assert_non_null(strstr(out, "meta.json"));
    /* a run without inferred.json cannot be compared */
    snprintf(cmd, sizeof cmd,
             "%s run --device sim:tiny --probe pchase --sweep 1KiB:2KiB --out %s/plain --quiet && "
             "%s compare %s/plain --arch tiny",
             gd_test_binary(), dir, gd_test_binary(), dir);
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 1);
    assert_non_null(strstr(out, "no inferred.json to compare"));
    /* a malformed inferred.json is named with its line */
    snprintf(path, sizeof path, "%s/plain/inferred.json", dir);
    f = fopen(path, "w");
    fputs("{\n  \"levels\": [\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s compare %s/plain --arch tiny", gd_test_binary(), dir);
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 1);
    assert_non_null(strstr(out, "inferred.json:"));
    /* a step that fails does not end the run: the others' results are kept and
     * analysed, the failed steps are named in meta.json and report.md, and the
     * exit status (3) says that some are missing */
    snprintf(cmd, sizeof cmd,
             "%s characterize --device sim:tiny --set gpu.global_mem=48KiB --out %s/part",
             gd_test_binary(), dir);
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 3);
    assert_non_null(strstr(out, "out of device memory"));
    assert_non_null(strstr(out, "failed (see"));
    snprintf(path, sizeof path, "%s/part/stride-l1d.csv", dir);
    assert_int_equal(access(path, R_OK), 0);
    json_t *meta = gd_test_load_json(dir, "part/meta.json");
    size_t failed = 0, measured = 0, k;
    json_t *entry;
    json_array_foreach(json_object_get(meta, "probes"), k, entry) {
        const char *why = json_string_value(json_object_get(entry, "failed"));
        if (why) {
            failed++;
            assert_non_null(strstr(why, "out of device memory"));
        } else if (!json_object_get(entry, "skipped")) {
            measured++;
        }
    }
    assert_true(failed >= 1);
    assert_true(measured >= 1); /* the steps after a failed one still ran */
    assert_int_equal(json_integer_value(json_object_get(meta, "failed_steps")), (json_int_t)failed);
    json_decref(meta);
    json_t *inferred = gd_test_load_json(dir, "part/inferred.json");
    assert_non_null(inferred);
    json_decref(inferred);
    snprintf(path, sizeof path, "%s/part/report.md", dir);
    size_t report_bytes;
    gd_err read_err;
    char *report = gd_read_file(path, &report_bytes, &read_err);
    assert_non_null(report);
    assert_non_null(strstr(report, "## Steps not measured"));
    assert_non_null(strstr(report, "**failed**"));
    free(report);
    gd_test_rmrf(dir);
    free(dir);
}

/* The full suite's icache step on sim:t4 made set-associative or with a small
 * CPI step: L0I 16 KiB and L1I 46 KiB, as the arch file has them (before: no
 * knee at all, the L1I as L0I, or a 17 KiB L0I). */
static void test_icache_ramps(void **state)
{
    (void)state;
    static const char *const sets[] = {"L1I.ways=4", "L1I.latency=30", "L0I.ways=16"};
    char *dir = gd_test_tmpdir();
    char suite[1100], cmd[2048], run[1200];
    snprintf(suite, sizeof suite, "%s/icache-only.suite", dir);
    FILE *f = fopen(suite, "w");
    assert_non_null(f);
    /* the step exactly as bench/suites/full.suite has it */
    FILE *full = fopen(GD_SOURCE_DIR "/bench/suites/full.suite", "r");
    assert_non_null(full);
    char line[512];
    int found = 0;
    while (fgets(line, sizeof line, full))
        if (!strncmp(line, "icache ", 7)) {
            fputs(line, f);
            found = 1;
        }
    fclose(full);
    fclose(f);
    assert_true(found);
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        snprintf(run, sizeof run, "%s/run-%zu", dir, i);
        snprintf(cmd, sizeof cmd,
                 "%s characterize --device sim:t4 --set %s --suite %s --out %s --quiet --no-plots",
                 gd_test_binary(), sets[i], suite, run);
        if (gd_test_run(cmd, out, sizeof out) != 0)
            fail_msg("%s failed:\n%s", cmd, out);
        json_t *inf = gd_test_load_json(run, "inferred.json");
        const json_t *l0 = gd_test_level(inf, "L0I"), *l1 = gd_test_level(inf, "L1I");
        if (!l0 || !l1)
            fail_msg("--set %s: no L0I or L1I in inferred.json", sets[i]);
        double s0 = json_number_value(json_object_get(l0, "size_bytes"));
        double s1 = json_number_value(json_object_get(l1, "size_bytes"));
        if (s0 != 16 * 1024 || s1 != 46 * 1024 ||
            json_is_true(json_object_get(l1, "size_is_lower_bound")))
            fail_msg("--set %s: L0I %.0f, L1I %.0f bytes (arch: 16 KiB, 46 KiB)", sets[i], s0, s1);
        json_decref(inf);
    }
    gd_test_rmrf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recovery_lru_power_of_two),
        cmocka_unit_test(test_recovery_non_power_of_two),
        cmocka_unit_test(test_recovery_random_replacement),
        cmocka_unit_test(test_recovery_unsectored_l1),
        cmocka_unit_test(test_t4_plots_and_report),
        cmocka_unit_test(test_adaptive_pins_dense_knees),
        cmocka_unit_test(test_adaptive_first_step_only),
        cmocka_unit_test(test_adaptive_refine_below),
        cmocka_unit_test(test_adaptive_linear_knee),
        cmocka_unit_test(test_model_command),
        cmocka_unit_test(test_compare_finds_a_wrong_arch),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_icache_ramps),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
