/* test_const_av.c -- the scope of an L1.5 constant cache of its own (issue 17,
 * "the L1.5's scope when it is a structure of its own"): const_av's attackers
 * on the victim's SM and on another give `sm` or `chip` as the arch file says,
 * on a generated GPU with a separate 32 KiB L1.5 and noise (seed 1001,
 * tests/arch_gen.h);
 * compare.json holds the verdict against the arch; a sweep whose attackers
 * cannot outgrow the L1.5 gives no scope and says why; a GPU of one SM skips
 * the step, saying why; a victim and attacker too large for the bank is a
 * one-line error.  (Its machine code: tests/test_sass_order.c and
 * test_ptxas_icache.c plan every probe for every target.) */
#include "tests/testing.h"
#include "tests/results_json.h"
#include "tests/arch_gen.h"

#include <jansson.h>

#include "analysis/results.h"

static char out[1 << 16];

static const char *const scope_steps =
    "const-stride  const_stride   --sweep 4:1KiB --footprint 64KiB\n"
    "const-l1      const_seq      --sweep 256:32KiB --adaptive --stride 64\n"
    "const-l15     const_seq      --sweep 8KiB:64KiB:8 --adaptive --stride L15C_LINE\n"
    "const-scope   const_av       --footprint min(max(8KiB,3*L1C),(L1C+L15C)/2) "
    "--sweep 1KiB:64KiB-min(max(8KiB,3*L1C),(L1C+L15C)/2):4\n";

/* the generated GPU of seed 1001 (a separate 32 KiB L1.5 of 128-byte lines) in
 * dir; its path in arch */
static void write_arch(const char *dir, char *arch, size_t cap)
{
    static char text[1 << 16];
    gd_arch_gen_opts o = {.noise = -1}; /* as make recovery draws it: with noise */
    assert_int_equal(gd_arch_generate(1001, &o, text, sizeof text), 0);
    assert_non_null(strstr(text, "[L15C]\nsize = 32KiB ;"));
    snprintf(arch, cap, "%s/gen-1001.arch", dir);
    gd_err err;
    assert_int_equal(gd_write_atomic(arch, text, strlen(text), &err), 0);
}

static void characterize(const char *dir, const char *arch, const char *sets, const char *steps,
                         char *run, size_t cap)
{
    char suite[1200], cmd[4096];
    gd_err err;
    snprintf(suite, sizeof suite, "%s/s-%d.suite", dir, rand());
    assert_int_equal(gd_write_atomic(suite, steps, strlen(steps), &err), 0);
    snprintf(run, cap, "%s/run-%d", dir, rand());
    snprintf(cmd, sizeof cmd,
             "%s characterize --device sim:%s %s --suite %s --out %s --quiet --no-plots",
             gd_test_binary(), arch, sets, suite, run);
    if (gd_test_run(cmd, out, sizeof out) != 0)
        fail_msg("%s failed:\n%s", cmd, out);
}

static void test_scope_follows_the_arch(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    char arch[1200];
    write_arch(dir, arch, sizeof arch);
    static const char *const scopes[] = {"sm", "chip"};
    for (int i = 0; i < 2; i++) {
        char sets[64], run[1200];
        snprintf(sets, sizeof sets, "--set L15C.scope=%s", scopes[i]);
        characterize(dir, arch, sets, scope_steps, run, sizeof run);
        json_t *l = gd_test_run_level(run, "L15C");
        const char *got = json_string_value(json_object_get(l, "scope"));
        if (!got || strcmp(got, scopes[i]))
            fail_msg("%s: L15C scope %s (%s)", scopes[i], got ? got : "(none)",
                     json_string_value(json_object_get(l, "scope_unseen")));
        assert_true(json_number_value(json_object_get(l, "scope_confidence")) >= 0.9);
        json_decref(l);
        json_t *cmp = gd_test_load_json(run, "compare.json");
        const char *v = gd_test_verdict(cmp, "L15C.scope");
        if (!v || strcmp(v, "match"))
            fail_msg("%s: compare.json L15C.scope %s", scopes[i], v ? v : "(no row)");
        json_decref(cmp);
    }
    gd_test_rmrf(dir);
    free(dir);
}

/* attackers of at most 2 KiB beside an 8 KiB victim never outgrow a 32 KiB
 * L1.5: no scope, and the reason; one SM: the step is skipped, saying why */
static void test_unseen_and_skipped(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    char arch[1200], run[1200];
    write_arch(dir, arch, sizeof arch);
    characterize(dir, arch, "",
                 "const-scope const_av --footprint 8KiB --sweep 1KiB:2KiB:2\n", run, sizeof run);
    json_t *l = gd_test_run_level(run, "L15C");
    assert_null(json_object_get(l, "scope"));
    const char *why = json_string_value(json_object_get(l, "scope_unseen"));
    assert_non_null(why);
    assert_non_null(strstr(why, "never evicted"));
    json_decref(l);
    characterize(dir, arch, "--set gpu.sms=1", scope_steps, run, sizeof run);
    json_t *meta = gd_test_load_json(run, "meta.json");
    size_t k;
    const json_t *p;
    int skipped = 0;
    json_array_foreach(json_object_get(meta, "probes"), k, p) {
        const char *probe = json_string_value(json_object_get(p, "probe"));
        const char *skip = json_string_value(json_object_get(p, "skipped"));
        if (probe && !strcmp(probe, "const_av")) {
            assert_non_null(skip);
            assert_non_null(strstr(skip, "needs two SMs"));
            skipped = 1;
        }
    }
    assert_int_equal(skipped, 1);
    json_decref(meta);
    gd_test_rmrf(dir);
    free(dir);
}

static void test_bad_sizes_are_one_line_errors(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "%s run --device sim:t4 --probe const_av --footprint 32KiB --sweep 40KiB:40KiB "
             "--out %s/r --quiet",
             gd_test_binary(), dir);
    int rc = gd_test_run(cmd, out, sizeof out);
    size_t len = strlen(out);
    while (len && out[len - 1] == '\n')
        out[--len] = 0;
    if (rc == 0 || !strstr(out, "do not fit") || strchr(out, '\n'))
        fail_msg("exit %d, expected one line saying 'do not fit':\n%s", rc, out);
    gd_test_rmrf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scope_follows_the_arch),
        cmocka_unit_test(test_unseen_and_skipped),
        cmocka_unit_test(test_bad_sizes_are_one_line_errors),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
