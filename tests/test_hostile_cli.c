/* test_hostile_cli.c -- the command lines of issue 15 that misbehaved, each now
 * one clear line and the right exit status: a cut --out, whole-file reads of
 * /dev/zero, numbers that strtoull took ("-1", "abc"), a stride past the sweep,
 * emit without --point, a missing meta.json named without ":-1:". */
#include "tests/testing.h"

static char out[16384];

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
    char args[2048], cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", gd_test_binary(), args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* `out` is exactly one line holding needle */
static void expect_one_line(int rc, int expected_rc, const char *needle)
{
    if (rc != expected_rc || !strstr(out, needle))
        fail_msg("expected exit %d and '%s', got exit %d:\n%s", expected_rc, needle, rc, out);
    const char *nl = strchr(out, '\n');
    if (!nl || nl[1])
        fail_msg("expected one line, got:\n%s", out);
}

static void test_long_out_is_refused(void **state)
{
    (void)state;
    char longpath[700];
    memset(longpath, 'a', sizeof longpath - 1);
    longpath[0] = '/';
    longpath[sizeof longpath - 1] = 0;
    expect_one_line(run("run --device sim:tiny --probe pchase --sweep 1KiB:2KiB --out %s", longpath),
                    2, "--out is 699 bytes long; at most 511");
    expect_one_line(run("characterize --device sim:tiny --out %s", longpath), 2,
                    "--out is 699 bytes long; at most 511");
}

static void test_dev_zero_is_not_read_for_ever(void **state)
{
    (void)state;
    expect_one_line(run("run --device sim:/dev/zero --probe pchase --sweep 1KiB:2KiB --out /tmp/x"),
                    1, "/dev/zero: larger than 64 MiB");
    expect_one_line(run("characterize --device sim:tiny --suite /dev/zero --out /tmp/x"), 1,
                    "larger than 64 MiB");
}

static void test_strict_numbers(void **state)
{
    (void)state;
    expect_one_line(run("run --device sim:tiny --probe pchase --sweep 1KiB:2KiB --seed -1 --out /tmp/x"),
                    2, "--seed must be a whole number");
    expect_one_line(run("model --arch tiny --probe pchase --sweep 1KiB:4KiB --samples abc"), 2,
                    "--samples must be a number 1..1048576, got 'abc'");
    expect_one_line(run("run --device sim:tiny --probe pchase --sweep 1KiB:2KiB --carveout ' 5' --out /tmp/x"),
                    2, "--carveout takes a percentage");
    expect_one_line(run("run --device sim:tiny --probe pchase --stride 8KiB --sweep 1KiB:4KiB --out /tmp/x"),
                    2, "larger than TO");
}

static void test_emit_default_points(void **state)
{
    (void)state;
    static const char *const probes[] = {"const_bcast", "coalesce", "pchase_fine", "resv_stall",
                                         "smem_bank", "const_fine", "const_av"};
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
        int rc = run("emit --probe %s", probes[i]);
        if (rc != 0 || !strstr(out, ".entry"))
            fail_msg("emit --probe %s: exit %d:\n%.400s", probes[i], rc, out);
    }
}

static void test_missing_meta_has_no_line_minus_one(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    int rc = run("report %s", dir);
    if (rc == 0 || strstr(out, ":-1:") || !strstr(out, "meta.json"))
        fail_msg("report of an empty directory: exit %d:\n%s", rc, out);
    gd_test_rmrf(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_long_out_is_refused),
        cmocka_unit_test(test_dev_zero_is_not_read_for_ever),
        cmocka_unit_test(test_strict_numbers),
        cmocka_unit_test(test_emit_default_points),
        cmocka_unit_test(test_missing_meta_has_no_line_minus_one),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
