/* test_const_fine.c -- the L1 constant cache's sets (issue 17, "infer what is
 * still left open"): const_fine's one-set chains give its associativity and
 * its replacement policy, inferred from the simulated GPU equal to the arch
 * file whatever the ways (2 to fully associative, past the set one constant
 * bank holds at the capacity's stride) and the policy; where the sweep ends
 * before the knee the ways are a lower bound, kept as one, and the policy step
 * that needs them is skipped saying why; compare.json holds both against the
 * arch; the explicit chains are the laps the probe documents; bad options get
 * one-line errors.  (Its machine code: tests/test_sass_order.c and
 * test_ptxas_icache.c, which plan every probe for every target.) */
#include "tests/testing.h"
#include "tests/results_json.h"

#include <jansson.h>

#include "analysis/results.h"

#include "kernels/probe.h"

static char out[1 << 16];

static const char *const const_steps =
    "const-l1      const_seq      --sweep 256:32KiB --adaptive --stride 64\n"
    "const-ways    const_fine     --variant ways --stride lcm(max(1KiB,(L1C+512)/1KiB*1KiB),64) "
    "--sweep 1:256:16 --adaptive --resolution 1\n"
    "const-policy  const_fine     --variant policy --stride max(64,(L1C/L1C_WAYS+32)/64*64) "
    "--sweep L1C_WAYS:L1C_WAYS --samples 2048\n";

/* characterize sim:t4 with `sets` over `steps`; the run directory's path in
 * `run` (under dir) */
static void characterize(const char *dir, const char *sets, const char *steps, char *run,
                         size_t cap)
{
    char suite[1200], cmd[4096];
    gd_err err;
    snprintf(suite, sizeof suite, "%s/c-%d.suite", dir, rand());
    assert_int_equal(gd_write_atomic(suite, steps, strlen(steps), &err), 0);
    snprintf(run, cap, "%s/run-%d", dir, rand());
    snprintf(cmd, sizeof cmd,
             "%s characterize --device sim:t4 %s --suite %s --out %s --quiet --no-plots",
             gd_test_binary(), sets, suite, run);
    if (gd_test_run(cmd, out, sizeof out) != 0)
        fail_msg("%s failed:\n%s", cmd, out);
}

static long integer(const json_t *l, const char *key)
{
    const json_t *v = json_object_get(l, key);
    if (!json_is_integer(v))
        fail_msg("L1C.%s is not measured", key);
    return (long)json_integer_value(v);
}

static void test_ways_and_policy_follow_the_arch(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    static const struct {
        const char *sets;
        long ways;
        const char *policy;
    } cases[] = {
        {"", 4, "random"}, /* the bundled T4: Jia et al.'s 8 sets x 4 ways */
        {"--set L1C.replacement=lru", 4, "lru"},
        {"--set L1C.replacement=fifo --set L1C.ways=2", 2, "fifo"},
        /* 8 KiB of 16 ways: 17 lines 8 KiB apart overflow the bank; 4 KiB apart
         * they are still one set (the probe halves the stride) */
        {"--set L1C.size=8KiB --set L1C.ways=16 --set L1C.replacement=lru", 16, "lru"},
        /* fully associative: 33 lines of one set */
        {"--set L1C.ways=32 --set L1C.replacement=fifo", 32, "fifo"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char run[1200];
        characterize(dir, cases[i].sets, const_steps, run, sizeof run);
        json_t *l = gd_test_run_level(run, "L1C");
        if (integer(l, "ways") != cases[i].ways ||
            json_is_true(json_object_get(l, "ways_is_lower_bound")))
            fail_msg("%s: ways %ld%s, the arch's %ld", cases[i].sets, integer(l, "ways"),
                     json_is_true(json_object_get(l, "ways_is_lower_bound")) ? " (a bound)" : "",
                     cases[i].ways);
        const char *got = json_string_value(json_object_get(l, "replacement"));
        if (!got || strcmp(got, cases[i].policy))
            fail_msg("%s: replacement %s, the arch's %s", cases[i].sets, got ? got : "(none)",
                     cases[i].policy);
        json_decref(l);
        json_t *cmp = gd_test_load_json(run, "compare.json");
        const char *w = gd_test_verdict(cmp, "L1C.ways"), *r = gd_test_verdict(cmp, "L1C.replacement");
        if (!w || strcmp(w, "match") || !r || strcmp(r, "match"))
            fail_msg("%s: compare.json L1C.ways %s, L1C.replacement %s", cases[i].sets,
                     w ? w : "(no row)", r ? r : "(no row)");
        json_decref(cmp);
    }
    gd_test_rmrf(dir);
    free(dir);
}

/* A sweep that stops short of the knee: at least its last point, said to be a
 * bound; the policy step needs exact ways and is skipped, saying why; the
 * comparison does not count a bound as a match. */
static void test_short_sweep_is_a_lower_bound(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    static const char steps[] =
        "const-l1      const_seq      --sweep 256:32KiB --adaptive --stride 64\n"
        "const-ways    const_fine     --variant ways --stride L1C --sweep 1:16:5\n"
        "const-policy  const_fine     --variant policy --stride L1C/L1C_WAYS --sweep "
        "L1C_WAYS:L1C_WAYS\n";
    char run[1200];
    characterize(dir, "--set L1C.ways=32", steps, run, sizeof run);
    json_t *l = gd_test_run_level(run, "L1C");
    assert_int_equal(integer(l, "ways"), 16);
    assert_true(json_is_true(json_object_get(l, "ways_is_lower_bound")));
    json_decref(l);
    json_t *meta = gd_test_load_json(run, "meta.json");
    size_t k;
    const json_t *p;
    int skipped = 0;
    json_array_foreach(json_object_get(meta, "probes"), k, p) {
        const char *why = json_string_value(json_object_get(p, "skipped"));
        if (k < 2) {
            assert_null(why); /* const-l1 and const-ways ran */
        } else {
            assert_non_null(why);
            assert_non_null(strstr(why, "associativity is not known yet"));
            skipped = 1;
        }
    }
    assert_int_equal(skipped, 1);
    json_decref(meta);
    json_t *cmp = gd_test_load_json(run, "compare.json");
    const char *w = gd_test_verdict(cmp, "L1C.ways");
    if (w && !strcmp(w, "match"))
        fail_msg("a lower bound of 16 ways is compared as a match of 32");
    json_decref(cmp);
    gd_test_rmrf(dir);
    free(dir);
}

/* The chains the probe documents: ways, k lines a stride apart (halved where
 * the bank is too small); policy, A0..A(W-1), A0, AW, A0, A1 through other
 * words of the lines -- followed offset by offset through the filled bank. */
static void walk(const char *variant, uint64_t stride, uint64_t point, const uint64_t *want,
                 size_t n, const char *note)
{
    const gd_probe *probe = gd_probe_find("const_fine");
    assert_non_null(probe);
    gd_device_info info = {.cc_major = 7, .cc_minor = 5, .sm_count = 1};
    gd_probe_opts opts = {.stride_bytes = stride};
    snprintf(opts.variant, sizeof opts.variant, "%s", variant);
    gd_probe_plan plan;
    gd_err err;
    if (probe->plan(&opts, &info, point, &plan, &err) != 0)
        fail_msg("%s at %llu: %s", variant, (unsigned long long)point, err.msg);
    assert_string_equal(plan.opts.variant, variant);
    assert_true(plan.buffers[0].symbol != NULL);
    if (note)
        assert_non_null(strstr(plan.note, note));
    else
        assert_string_equal(plan.note, "");
    uint8_t *bank = calloc(1, plan.buffers[0].bytes);
    assert_non_null(bank);
    gd_devptr addresses[2] = {0, 0};
    assert_int_equal(probe->fill(&plan, 0, addresses, bank, &err), 0);
    uint32_t at = 0;
    for (size_t k = 0; k < 2 * n; k++) {
        if (at != want[k % n])
            fail_msg("%s: visit %zu reads %u, expected %llu", variant, k, at,
                     (unsigned long long)want[k % n]);
        memcpy(&at, bank + at, sizeof at);
    }
    free(bank);
    gd_probe_plan_free(probe, &plan);
}

static void test_chains_are_the_documented_laps(void **state)
{
    (void)state;
    static const uint64_t ways4[] = {0, 2048, 4096, 6144};
    walk("ways", 2048, 4, ways4, 4, NULL);
    /* 9 lines 8 KiB apart: 72 KiB, past the bank -- 4 KiB apart */
    static const uint64_t ways9[] = {0, 4096, 8192, 12288, 16384, 20480, 24576, 28672, 32768};
    walk("ways", 8192, 9, ways9, 9, "4096 bytes apart");
    static const uint64_t policy4[] = {0, 512, 1024, 1536, 8, 2048, 16, 520};
    walk("policy", 512, 4, policy4, 8, NULL);
}

static void test_bad_options_are_one_line_errors(void **state)
{
    (void)state;
    static const struct {
        const char *args, *says;
    } cases[] = {
        {"--stride 100 --sweep 1:8", "multiple of 64"},
        {"--variant lines --sweep 1:8", "unknown variant"},
        {"--variant policy --stride 512 --sweep 1:1", "at least 2 ways"},
        {"--sweep 2000:2000", "outside 1..1024"},
        {"--variant policy --stride 32KiB --sweep 4:4", "do not fit"},
    };
    char *dir = gd_test_tmpdir();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "%s run --device sim:t4 --probe const_fine %s --out %s/r%zu --quiet",
                 gd_test_binary(), cases[i].args, dir, i);
        int rc = gd_test_run(cmd, out, sizeof out);
        size_t len = strlen(out);
        while (len && out[len - 1] == '\n')
            out[--len] = 0;
        if (rc == 0 || !strstr(out, cases[i].says) || strchr(out, '\n'))
            fail_msg("%s: exit %d, expected one line saying '%s':\n%s", cases[i].args, rc,
                     cases[i].says, out);
    }
    gd_test_rmrf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ways_and_policy_follow_the_arch),
        cmocka_unit_test(test_short_sweep_is_a_lower_bound),
        cmocka_unit_test(test_chains_are_the_documented_laps),
        cmocka_unit_test(test_bad_options_are_one_line_errors),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
