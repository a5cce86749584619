/* test_resv_hol.c -- issue 11's last item, end to end through the CLI: under
 * CN110457238A's reorder the requests queued behind a reservation-failed one
 * in its own instruction no longer wait for it, and `characterize` says so
 * (resv_stall --variant hol; kernels/resv_stall.c, analysis/infer_l1.c,
 * analysis/compare_l1.c).
 *
 * Each case characterizes a simulated GPU over one l1-hol step whose stride
 * and reserver count come from the arch under test (its set span and ways:
 * what the full suite's lcm(L1D/L1D_WAYS,256) and L1D_WAYS evaluate to once
 * pchase and pchase_fine have measured them; test_l1_path runs that chain)
 * and asserts inferred.json's verdict, compare.json's "match" against the
 * model's expectation, and the mechanism in the step's counters: a request
 * refused for a full set every time, re-enqueued (requeued) only under
 * reorder.  The arches: sim:t4 (the default device, now GPGPU-Sim's
 * coalescer_rate = 32), sim:cn110457238 (the patent's own), and two generated
 * hierarchies (tests/arch_gen.h) with other ways and latencies.  With one
 * request a cycle into the FIFO and one tail port the refused request,
 * re-enqueued every cycle, keeps its followers out: blocked even under
 * reorder (claim 6 read literally); a two-port tail lets them in.  Without
 * measured ways the full suite's step is skipped, never failed.
 */
#include "tests/testing.h"
#include "tests/results_json.h"
#include "tests/arch_gen.h"

#include <jansson.h>

#include "analysis/arch.h"
#include "analysis/results.h"

#define GEN_TEXT_BYTES 16384

static char out[1 << 16];

typedef struct hol_result {
    int measured;           /* inferred.json has head_of_line_blocking */
    int blocked;
    char verdict[32];       /* compare.json's verdict for L1D.head_of_line_blocking */
    char expected[8];
    long fails_set;         /* l1d.reservation_fails.set of the step */
    long requeues;          /* l1d.requeues */
} hol_result;

/* The value of `counter` in a step's counters CSV (lines "x,counter,value"). */
static long counter(const char *run, const char *step, const char *name)
{
    char path[1400], line[512];
    snprintf(path, sizeof path, "%s/%s.counters.csv", run, step);
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("no %s", path);
    long v = -1;
    size_t n = strlen(name);
    while (fgets(line, sizeof line, f)) {
        const char *c = strchr(line, ',');
        if (c && !strncmp(c + 1, name, n) && c[1 + n] == ',')
            v = strtol(c + 2 + n, NULL, 10);
    }
    fclose(f);
    if (v < 0)
        fail_msg("%s has no counter %s", path, name);
    return v;
}

/* characterize DEVICE (ARCH parsed with the same --set overrides) over one
 * l1-hol step with the arch's ways as reservers */
static hol_result hol_run(const char *dir, const char *device, const char *arch_path,
                          const char *const *sets, size_t nsets)
{
    gd_arch arch;
    gd_err err;
    if (gd_arch_load(arch_path, sets, nsets, &arch, &err) != 0)
        fail_msg("%s", err.msg);
    const gd_arch_level *l1 = &arch.level[GD_L1D];
    uint64_t span = (uint64_t)l1->sets * l1->line_bytes, stride = span;
    while (stride % 256)
        stride += span; /* lcm(span, 256), as the suite's lcm() */
    char suite_text[256], suite[1200], run[1200], cmd[4096], setargs[1024] = "";
    snprintf(suite_text, sizeof suite_text,
             "l1-hol resv_stall --variant hol --stride %llu --sweep %u:%u\n",
             (unsigned long long)stride, l1->ways, l1->ways);
    snprintf(suite, sizeof suite, "%s/hol-%d.suite", dir, rand());
    assert_int_equal(gd_write_atomic(suite, suite_text, strlen(suite_text), &err), 0);
    for (size_t i = 0; i < nsets; i++) {
        size_t len = strlen(setargs);
        snprintf(setargs + len, sizeof setargs - len, " --set %s", sets[i]);
    }
    snprintf(run, sizeof run, "%s/run-%d", dir, rand());
    snprintf(cmd, sizeof cmd, "%s characterize --device %s%s --suite %s --out %s --quiet --no-plots",
             gd_test_binary(), device, setargs, suite, run);
    if (gd_test_run(cmd, out, sizeof out) != 0)
        fail_msg("%s failed:\n%s", cmd, out);
    hol_result r = {0};
    json_t *inf = gd_test_load_json(run, "inferred.json");
    const json_t *l = gd_test_need_level(inf, "L1D");
    const json_t *hol = json_object_get(l, "head_of_line_blocking");
    r.measured = json_is_boolean(hol);
    r.blocked = json_is_true(hol);
    json_decref(inf);
    json_t *cmp = gd_test_load_json(run, "compare.json");
    const json_t *params = json_object_get(cmp, "parameters");
    size_t i;
    const json_t *p;
    json_array_foreach(params, i, p)
    {
        if (strcmp(json_string_value(json_object_get(p, "parameter")), "L1D.head_of_line_blocking"))
            continue;
        snprintf(r.verdict, sizeof r.verdict, "%s", json_string_value(json_object_get(p, "verdict")));
        snprintf(r.expected, sizeof r.expected, "%s",
                 json_string_value(json_object_get(p, "expected")));
    }
    json_decref(cmp);
    r.fails_set = counter(run, "l1-hol", "l1d.reservation_fails.set");
    r.requeues = counter(run, "l1-hol", "l1d.requeues");
    return r;
}

static hol_result bundled(const char *dir, const char *name, const char *const *sets,
                          size_t nsets)
{
    char path[1024], device[64];
    gd_err err;
    assert_int_equal(gd_arch_resolve(name, path, sizeof path, &err), 0);
    snprintf(device, sizeof device, "sim:%s", name);
    return hol_run(dir, device, path, sets, nsets);
}

/* blocked or not, measured, matching the model, with a reservation fail of a
 * full set behind it; requeued exactly when reorder is on */
static void expect(const hol_result *r, int blocked, int reorder, const char *what)
{
    if (!r->measured)
        fail_msg("%s: head_of_line_blocking not measured", what);
    if (r->blocked != blocked)
        fail_msg("%s: head_of_line_blocking %s, expected %s", what, r->blocked ? "yes" : "no",
                 blocked ? "yes" : "no");
    if (strcmp(r->verdict, "match") || strcmp(r->expected, blocked ? "yes" : "no"))
        fail_msg("%s: compare.json says %s (model: %s)", what, r->verdict, r->expected);
    if (r->fails_set <= 0)
        fail_msg("%s: no reservation fail for a full set", what);
    if (reorder ? r->requeues <= 0 : r->requeues != 0)
        fail_msg("%s: %ld requeues", what, r->requeues);
}

static void test_t4_reorder_removes_the_blocking(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    hol_result r = bundled(dir, "t4", NULL, 0);
    expect(&r, 1, 0, "sim:t4");
    static const char *const reorder[] = {"L1D.reorder=true"};
    r = bundled(dir, "t4", reorder, 1);
    expect(&r, 0, 1, "sim:t4 --set L1D.reorder=true");
    gd_test_rmrf(dir);
    free(dir);
}

static void test_one_request_a_cycle_keeps_the_followers_out(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    static const char *const narrow[] = {"L1D.reorder=true", "L1D.coalescer_rate=1"};
    hol_result r = bundled(dir, "t4", narrow, 2);
    expect(&r, 1, 1, "sim:t4 reorder, coalescer_rate 1");
    static const char *const ports[] = {"L1D.reorder=true", "L1D.coalescer_rate=1",
                                        "L1D.fifo_tail_ports=2"};
    r = bundled(dir, "t4", ports, 3);
    expect(&r, 0, 1, "sim:t4 reorder, coalescer_rate 1, two tail ports");
    gd_test_rmrf(dir);
    free(dir);
}

static void test_patent_arch_both_ways(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    hol_result r = bundled(dir, "cn110457238", NULL, 0);
    expect(&r, 1, 0, "sim:cn110457238");
    static const char *const reorder[] = {"L1D.reorder=true"};
    r = bundled(dir, "cn110457238", reorder, 1);
    expect(&r, 0, 1, "sim:cn110457238 --set L1D.reorder=true");
    gd_test_rmrf(dir);
    free(dir);
}

/* Two generated GPUs whose reservers all issue well within a DRAM round trip
 * (at most 64 ways) and whose L2 hit is well short of it: there the refusal
 * happens and the two answers lie apart. */
static void test_generated_archs(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    static char text[GEN_TEXT_BYTES];
    int found = 0;
    for (uint64_t seed = 1; seed < 400 && found < 2; seed++) {
        gd_arch_gen_opts o = {.max_l2_bytes = 1u << 20, .noise = 0};
        assert_int_equal(gd_arch_generate(seed, &o, text, sizeof text), 0);
        gd_arch a;
        gd_err err;
        assert_int_equal(gd_arch_parse_string(text, "gen.arch", NULL, 0, &a, &err), 0);
        const gd_arch_level *l1 = &a.level[GD_L1D];
        if (l1->ways > 64 || l1->ways == 128 /* t4's */ ||
            a.level[GD_DRAM].latency_cycles < a.level[GD_L2].latency_cycles + 100)
            continue;
        char path[1200], device[1300], what[64];
        snprintf(path, sizeof path, "%s/gen-%llu.arch", dir, (unsigned long long)seed);
        assert_int_equal(gd_write_atomic(path, text, strlen(text), &err), 0);
        snprintf(device, sizeof device, "sim:%s", path);
        /* a GPGPU-Sim-like coalescer (generated arches keep the default 1) */
        static const char *const base[] = {"L1D.coalescer_rate=32"};
        static const char *const reorder[] = {"L1D.coalescer_rate=32", "L1D.reorder=true"};
        snprintf(what, sizeof what, "seed %llu (%u ways)", (unsigned long long)seed, l1->ways);
        hol_result r = hol_run(dir, device, path, base, 1);
        expect(&r, 1, 0, what);
        r = hol_run(dir, device, path, reorder, 2);
        expect(&r, 0, 1, what);
        printf("note: %s: blocked, and not under reorder\n", what);
        found++;
    }
    assert_int_equal(found, 2);
    gd_test_rmrf(dir);
    free(dir);
}

/* The full suite's step needs the ways pchase_fine measures: without them it
 * is skipped, saying why, and the run goes on. */
static void test_step_skipped_without_ways(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    static const char text[] =
        "l1-hol resv_stall --variant hol --stride lcm(L1D/L1D_WAYS,256) --sweep L1D_WAYS:L1D_WAYS\n";
    char suite[1200], run[1200], cmd[4096];
    gd_err err;
    snprintf(suite, sizeof suite, "%s/skip.suite", dir);
    assert_int_equal(gd_write_atomic(suite, text, strlen(text), &err), 0);
    snprintf(run, sizeof run, "%s/run", dir);
    snprintf(cmd, sizeof cmd, "%s characterize --device sim:t4 --suite %s --out %s --quiet --no-plots",
             gd_test_binary(), suite, run);
    if (gd_test_run(cmd, out, sizeof out) != 0)
        fail_msg("%s failed:\n%s", cmd, out);
    json_t *meta = gd_test_load_json(run, "meta.json");
    const json_t *probes = json_object_get(meta, "probes");
    assert_int_equal(json_array_size(probes), 1);
    const char *why = json_string_value(json_object_get(json_array_get(probes, 0), "skipped"));
    assert_non_null(why);
    assert_non_null(strstr(why, "not known yet"));
    json_decref(meta);
    gd_test_rmrf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_t4_reorder_removes_the_blocking),
        cmocka_unit_test(test_one_request_a_cycle_keeps_the_followers_out),
        cmocka_unit_test(test_patent_arch_both_ways),
        cmocka_unit_test(test_generated_archs),
        cmocka_unit_test(test_step_skipped_without_ways),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
