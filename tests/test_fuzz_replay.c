/* test_fuzz_replay.c -- the fuzz reproducers of tests/fuzz/regress/, replayed.
 *
 * Every crash, hang or broken invariant the fuzz targets (tests/fuzz/) found,
 * and every defect of issue 15 with an input that shows it, is a file
 * tests/fuzz/regress/TARGET/NAME.accept or NAME.reject: the input, and the
 * outcome the fixed code gives it (the target accepts it, or refuses it with
 * one line).  This test runs each file through its target in the plain build
 * -- no clang, no libFuzzer -- and fails on a wrong outcome; a crash or a
 * sanitizer report (`make test SAN=1`) fails it too.  A target with no
 * reproducer fails: its directory is where the next crash goes.
 */
#include "tests/testing.h"

#include <dirent.h>
#include <signal.h>

#include "analysis/results.h"
#include "tests/fuzz/fuzz.h"

#define REGRESS_DIR GD_SOURCE_DIR "/tests/fuzz/regress"

static int replay_file(const gd_fuzz_target *t, const char *dir, const char *name)
{
    const char *dot = strrchr(name, '.');
    int expected;
    if (dot && !strcmp(dot, ".accept"))
        expected = GD_FUZZ_ACCEPTED;
    else if (dot && !strcmp(dot, ".reject"))
        expected = GD_FUZZ_REJECTED;
    else
        return 0; /* README or other notes */
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    gd_err err;
    size_t len = 0;
    char *data = gd_read_file(path, &len, &err);
    if (!data)
        fail_msg("%s", err.msg);
    int got = t->fn((const uint8_t *)data, len);
    free(data);
    if (got != expected)
        fail_msg("fuzz %s: %s was %s, expected %s", t->name, name,
                 got == GD_FUZZ_ACCEPTED ? "accepted" : "rejected",
                 expected == GD_FUZZ_ACCEPTED ? "accepted" : "rejected");
    return 1;
}

static void test_replay_every_target(void **state)
{
    (void)state;
    size_t total = 0;
    for (size_t i = 0; i < gd_fuzz_target_count; i++) {
        const gd_fuzz_target *t = &gd_fuzz_targets[i];
        char dir[1100];
        snprintf(dir, sizeof dir, "%s/%s", REGRESS_DIR, t->name);
        DIR *d = opendir(dir);
        if (!d)
            fail_msg("%s: no reproducer directory for fuzz target %s", dir, t->name);
        size_t n = 0;
        struct dirent *ent;
        while ((ent = readdir(d)))
            n += (size_t)replay_file(t, dir, ent->d_name);
        closedir(d);
        if (!n)
            fail_msg("%s: no reproducer for fuzz target %s", dir, t->name);
        printf("note: fuzz %-8s %zu reproducers replayed\n", t->name, n);
        total += n;
    }
    assert_true(total >= gd_fuzz_target_count);
}

/* The one-line invariant itself: a message with a newline must abort, or a
 * target could never catch a two-line error.  Checked in a child. */
static void test_two_line_error_is_caught(void **state)
{
    (void)state;
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        freopen("/dev/null", "w", stderr);
        gd_err err;
        snprintf(err.msg, sizeof err.msg, "first line\nsecond line");
        gd_fuzz_rejected(&err, "test");
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay_every_target),
        cmocka_unit_test(test_two_line_error_is_caught),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
