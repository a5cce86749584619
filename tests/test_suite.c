/* test_suite.c -- suite files and their size expressions. */
#include "tests/testing.h"

#include "analysis/run_load.h"
#include "host/suite.h"

static void test_expressions(void **state)
{
    (void)state;
    gd_suite_vars v = {.size = {[GD_INF_L2] = 4u << 20, [GD_INF_L1D] = 64u << 10,
                                [GD_INF_L0I] = 16u << 10, [GD_INF_L1I] = 46u << 10},
                       .line = {[GD_INF_L1D] = 32, [GD_INF_L2] = 64},
                       .ways = {[GD_INF_L1D] = 128}};
    gd_err err;
    uint64_t x;
    assert_int_equal(gd_suite_eval("4*L2", &v, &x, &err), 0);
    assert_int_equal(x, 16u << 20);
    assert_int_equal(gd_suite_eval("min(4*L1D, L2/2)", &v, &x, &err), 0);
    assert_int_equal(x, 256u << 10);
    assert_int_equal(gd_suite_eval("max(L1D_LINE,L2_LINE)", &v, &x, &err), 0);
    assert_int_equal(x, 64);
    assert_int_equal(gd_suite_eval("(L0I + L1I) / 2", &v, &x, &err), 0);
    assert_int_equal(x, 31u << 10);
    assert_int_equal(gd_suite_eval("2*L1I - L0I + 1KiB", &v, &x, &err), 0);
    assert_int_equal(x, 77u << 10);
    /* a stride legal for a probe whatever an earlier step measured: lcm with
     * the granule it requires, or a size rounded up to one */
    assert_int_equal(gd_suite_eval("lcm(384, 256)", &v, &x, &err), 0);
    assert_int_equal(x, 768);
    assert_int_equal(gd_suite_eval("lcm(16KiB, 128)", &v, &x, &err), 0);
    assert_int_equal(x, 16384);
    assert_int_equal(gd_suite_eval("roundup(16544, 128)", &v, &x, &err), 0);
    assert_int_equal(x, 16640);
    assert_int_equal(gd_suite_eval("roundup(16KiB, 128)", &v, &x, &err), 0);
    assert_int_equal(x, 16384);
    assert_int_equal(gd_suite_eval("lcm(L1D, 0)", &v, &x, &err), -1);
    assert_non_null(strstr(err.msg, "lcm of zero"));
    assert_int_equal(gd_suite_eval("L0I - L1I", &v, &x, &err), -1);
    assert_non_null(strstr(err.msg, "negative"));
    assert_int_equal(gd_suite_eval("L1D/L1D_WAYS", &v, &x, &err), 0);
    assert_int_equal(x, 512);
    assert_int_equal(gd_suite_eval("L2_WAYS", &v, &x, &err), -1);
    assert_non_null(strstr(err.msg, "associativity is not known"));
    assert_int_equal(gd_suite_eval("L1C", &v, &x, &err), -1);
    assert_non_null(strstr(err.msg, "not known yet"));
    assert_int_equal(gd_suite_eval("L1C_LINE", &v, &x, &err), -1);
    assert_non_null(strstr(err.msg, "granularity is not known"));
    assert_int_equal(gd_suite_eval("2*(3KiB/3)", &v, &x, &err), 0);
    assert_int_equal(x, 2048);
    assert_int_equal(gd_suite_eval("L2/0", &v, &x, &err), -1);
    assert_non_null(strstr(err.msg, "division by zero"));
    assert_int_equal(gd_suite_eval("L3", &v, &x, &err), -1);
    assert_non_null(strstr(err.msg, "expression 'L3': unknown name"));
    gd_suite_vars none = {0};
    assert_int_equal(gd_suite_eval("2*L1D", &none, &x, &err), -1);
    assert_non_null(strstr(err.msg, "not known yet"));
    assert_int_equal(gd_suite_eval("L2", &none, &x, &err), -1);
    assert_non_null(strstr(err.msg, "the device reports none"));
    assert_int_equal(gd_suite_eval("min(1KiB", &v, &x, &err), -1);
    assert_int_equal(gd_suite_eval("3 KB", &v, &x, &err), -1);
    /* NAME?: a level a pre-Volta GPU lacks is 0; one it has is its size; one
     * not measured yet is still unknown */
    gd_suite_vars pascal = {.size = {[GD_INF_L1I] = 8u << 10}, .absent = {[GD_INF_L0I] = 1}};
    assert_int_equal(gd_suite_eval("(L0I?+L1I)/2", &pascal, &x, &err), 0);
    assert_int_equal(x, 4u << 10);
    assert_int_equal(gd_suite_eval("(L0I? + L1I) / 2", &v, &x, &err), 0);
    assert_int_equal(x, 31u << 10);
    assert_int_equal(gd_suite_eval("L0I/2", &pascal, &x, &err), -1);
    assert_non_null(strstr(err.msg, "has no such level"));
    assert_int_equal(gd_suite_eval("L0I?", &none, &x, &err), -1);
    assert_non_null(strstr(err.msg, "not known yet"));
    /* NAME_WAYS?: 0 where the ways are not known, so full.suite's const-share
     * victim falls back to 3x the L1C; known, the lines its steps leave */
    gd_suite_vars l1c = {.size = {[GD_INF_L1C] = 2u << 10, [GD_INF_L1I] = 96u << 10}};
    const char *victim =
        "max(max(8KiB,3*L1C),min(12*L1C/min(4,max(1,L1C/64/max(1,L1C_WAYS?))),L1I/2))";
    assert_int_equal(gd_suite_eval("L1C_WAYS?", &l1c, &x, &err), 0);
    assert_int_equal(x, 0);
    assert_int_equal(gd_suite_eval("L1C_WAYS", &l1c, &x, &err), -1);
    assert_int_equal(gd_suite_eval(victim, &l1c, &x, &err), 0);
    assert_int_equal(x, 8u << 10);
    l1c.ways[GD_INF_L1C] = 4; /* 8 sets: a quarter of them, 3x the L1C */
    assert_int_equal(gd_suite_eval(victim, &l1c, &x, &err), 0);
    assert_int_equal(x, 8u << 10);
    l1c.ways[GD_INF_L1C] = 32; /* fully associative: 3 x its 32 lines of 256 B */
    assert_int_equal(gd_suite_eval(victim, &l1c, &x, &err), 0);
    assert_int_equal(x, 24u << 10);
    /* NAME_RANDOM: 1 where a step found the level replacing at random, else
     * 0 -- never unknown, and 0 for a level the GPU lacks (full.suite's
     * icache-warm: --if L0I_RANDOM+L1I_RANDOM+L15I_RANDOM) */
    const char *any = "L0I_RANDOM+L1I_RANDOM+L15I_RANDOM";
    assert_int_equal(gd_suite_eval(any, &none, &x, &err), 0);
    assert_int_equal(x, 0);
    assert_int_equal(gd_suite_eval(any, &pascal, &x, &err), 0);
    assert_int_equal(x, 0);
    pascal.random[GD_INF_L15I] = 1;
    assert_int_equal(gd_suite_eval(any, &pascal, &x, &err), 0);
    assert_int_equal(x, 1);
    assert_int_equal(gd_suite_eval("L9_RANDOM", &pascal, &x, &err), -1);
    assert_non_null(strstr(err.msg, "unknown name"));
}

static void test_bundled_suites_load(void **state)
{
    (void)state;
    const char *names[] = {"quick", "full", "icache"};
    for (size_t i = 0; i < 3; i++) {
        gd_suite s;
        gd_err err;
        if (gd_suite_load(names[i], &s, &err) != 0)
            fail_msg("%s", err.msg);
        assert_true(s.step_count >= 3);
        assert_string_equal(s.name, names[i]);
        for (size_t k = 0; k < s.step_count; k++) {
            assert_non_null(s.steps[k].probe);
            /* the L2's stride sweep times the start of a lap (kernels/chase.c) */
            if (!strcmp(s.steps[k].label, "stride-l2"))
                assert_int_equal(s.steps[k].opts.timed_accesses, 65536);
            /* the converged loops, only where an instruction cache is random */
            if (!strcmp(s.steps[k].label, "icache-warm")) {
                assert_int_equal(s.steps[k].opts.warm_passes, 64);
                assert_string_equal(s.steps[k].run_if, "L0I_RANDOM+L1I_RANDOM+L15I_RANDOM");
            }
        }
    }
}

static void test_suite_errors(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    char path[1200];
    snprintf(path, sizeof path, "%s/x.suite", dir);
    const struct {
        const char *text;
        const char *needle;
    } cases[] = {
        {"a pchase --sweep 1KiB:2KiB\nb nosuch --sweep 1:2\n", ":2: unknown probe 'nosuch'"},
        {"a pchase\n", ":1: step 'a' has no --sweep"},
        {"a pchase --sweep 1KiB\n", ":1: --sweep needs FROM:TO"},
        {"a pchase --sweep 1KiB:2KiB\na pchase --sweep 1KiB:2KiB\n", ":2: label 'a' used twice"},
        {"a/b pchase --sweep 1KiB:2KiB\n", ":1: label 'a/b'"},
        {"a pchase --sweep 1KiB:2KiB --pattern zigzag\n", ":1: --pattern must be seq or random"},
        {"a pchase --sweep 1KiB:2KiB --timed 0\n", ":1: bad --timed '0'"},
        {"a pchase --sweep 1KiB:2KiB --timed lots\n", ":1: bad --timed 'lots'"},
        {"a icache_seq --sweep 1KiB:2KiB --warm 0\n", ":1: bad --warm '0'"},
        {"a icache_seq --sweep 1KiB:2KiB --warm 257\n", ":1: bad --warm '257'"},
        {"a icache_seq --sweep 1KiB:2KiB --if L3_RANDOM\n", "unknown name"},
        {"a icache_seq --sweep 1KiB:2KiB --if min(1\n", ":1:"},
        {"# nothing\n\n", "no steps"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        FILE *f = fopen(path, "w");
        fputs(cases[i].text, f);
        fclose(f);
        gd_suite s;
        gd_err err;
        assert_int_equal(gd_suite_load(path, &s, &err), -1);
        if (!strstr(err.msg, cases[i].needle) || !strstr(err.msg, path))
            fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, cases[i].needle);
    }
    gd_test_rmrf(dir);
    free(dir);
}

/* a step's options reach its worker process and `infer` through JSON
 * (host/step_workers.c, meta.json): --timed among them, and absent when unset */
static void test_timed_survives_json(void **state)
{
    (void)state;
    gd_probe_opts o = {.stride_bytes = 16, .footprint_bytes = 1 << 20, .timed_accesses = 65536,
                       .warm_passes = 64};
    json_t *j = json_object();
    gd_probe_opts_to_json(&o, j);
    gd_probe_opts back;
    gd_probe_opts_from_json(j, &back);
    assert_int_equal(back.timed_accesses, 65536);
    assert_int_equal(back.footprint_bytes, 1 << 20);
    assert_int_equal(back.warm_passes, 64); /* icache_seq --warm (icache-warm) */
    json_decref(j);
    o.timed_accesses = 0;
    o.warm_passes = 0;
    j = json_object();
    gd_probe_opts_to_json(&o, j);
    assert_null(json_object_get(j, "timed_accesses"));
    assert_null(json_object_get(j, "warm_passes"));
    gd_probe_opts_from_json(j, &back);
    assert_int_equal(back.timed_accesses, 0);
    assert_int_equal(back.warm_passes, 0);
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expressions),
        cmocka_unit_test(test_bundled_suites_load),
        cmocka_unit_test(test_suite_errors),
        cmocka_unit_test(test_timed_survives_json),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
