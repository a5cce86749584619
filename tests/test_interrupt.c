/* test_interrupt.c -- characterize stopped at random moments (issue 15).
 *
 * A real `gpudissect characterize` child on sim:tiny, signalled after a random
 * delay (seeded, so a failure repeats): SIGINT must end it with 130 (or 0 if
 * it had finished), leave no "*.tmp.*", a meta.json that says "interrupted",
 * an inferred.json and a report.md, and every file whole (JSON that parses,
 * CSV whose rows all have the header's columns).  SIGKILL cannot be caught:
 * the files must still be whole (atomic writes), and `--resume` must remove
 * the orphan temporaries and finish the run.  A resumed run reads finished
 * steps back instead of measuring them: their CSV is the same file after.
 *
 * Mid-step: a run stopped (SIGINT, SIGKILL) while its last step -- the
 * adaptive p-chase, in sweep workers, with timing noise on -- has finished
 * some points and not others, then resumed, ends with the CSVs, samples and
 * inferred.json of an uninterrupted run byte for byte, and meta.json shows
 * that the points of the checkpoint (LABEL.partial) were read back, not
 * measured again; a torn record appended to the checkpoint is dropped.
 */
#include "tests/testing.h"

#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#include "analysis/results.h"
#include "tests/resume_checks.h"

#define TRIALS_SIGINT 6
#define TRIALS_SIGKILL 4

/* Runs gpudissect ARGS... with stdout/stderr to /dev/null; signals it with
 * `signo` after delay_us (0: never); returns the exit status, 256+N for a
 * death by signal N (130 is only ever the status the run chose). */
static int run_and_signal(char *const args[], int signo, long delay_us)
{
    fflush(NULL); /* nothing buffered is written twice by the child */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        freopen("/dev/null", "w", stdout);
        freopen("/dev/null", "w", stderr);
        execv(gd_test_binary(), args);
        _exit(127);
    }
    if (signo) {
        struct timespec ts = {delay_us / 1000000, (delay_us % 1000000) * 1000};
        nanosleep(&ts, NULL);
        kill(pid, signo);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 256 + WTERMSIG(status);
}

/* Every row of a CSV has the header's number of fields, and ends in '\n'. */
static void check_csv(const char *path)
{
    size_t len = 0;
    gd_err err;
    char *text = gd_read_file(path, &len, &err);
    if (!text)
        fail_msg("%s", err.msg);
    if (len && text[len - 1] != '\n')
        fail_msg("%s: last line is torn", path);
    int columns = -1, line = 0;
    for (char *save = NULL, *row = strtok_r(text, "\n", &save); row; row = strtok_r(NULL, "\n", &save)) {
        line++;
        int fields = 1;
        for (const char *c = row; *c; c++)
            fields += *c == ',';
        if (columns < 0)
            columns = fields;
        else if (fields != columns)
            fail_msg("%s:%d: %d fields, the header has %d", path, line, fields, columns);
    }
    free(text);
}

/* Every file of DIR whole; returns the number of "*.tmp.*" orphans. */
static int check_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0; /* killed before it made its directory */
    int orphans = 0;
    struct dirent *ent;
    while ((ent = readdir(d))) {
        const char *n = ent->d_name;
        char path[1200];
        snprintf(path, sizeof path, "%s/%s", dir, n);
        size_t len = strlen(n);
        if (strstr(n, ".tmp.")) {
            orphans++;
        } else if (len > 5 && !strcmp(n + len - 5, ".json")) {
            json_error_t jerr;
            json_t *doc = json_load_file(path, 0, &jerr);
            if (!doc)
                fail_msg("%s:%d: not whole JSON: %s", path, jerr.line, jerr.text);
            json_decref(doc);
        } else if (len > 4 && !strcmp(n + len - 4, ".csv")) {
            check_csv(path);
        }
    }
    closedir(d);
    return orphans;
}

static int file_exists(const char *dir, const char *name)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, R_OK) == 0;
}

/* How long an uninterrupted quick suite on sim:tiny takes here (the machine,
 * its load, -j): the signals below land at random moments inside it. */
static long run_length_us(void)
{
    static long measured;
    if (measured)
        return measured;
    char *tmp = gd_test_tmpdir();
    char out[1100];
    snprintf(out, sizeof out, "%s/timed", tmp);
    char *args[] = {"gpudissect", "characterize", "--device", "sim:tiny", "--no-plots", "--out", out,
                    NULL};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(run_and_signal(args, 0, 0), 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    measured = (t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_nsec - t0.tv_nsec) / 1000;
    if (measured < 1000)
        measured = 1000;
    gd_test_rmrf(tmp);
    free(tmp);
    return measured;
}

static long random_delay_us(unsigned *seed)
{
    /* anywhere between 2% and 90% of a whole run */
    long len = run_length_us();
    return len / 50 + (long)(rand_r(seed) % (unsigned long)(len * 88 / 100));
}

static void test_sigint_at_random_moments(void **state)
{
    (void)state;
    unsigned seed = 15;
    char *tmp = gd_test_tmpdir();
    int interrupted = 0;
    for (int i = 0; i < TRIALS_SIGINT; i++) {
        char out[1100];
        snprintf(out, sizeof out, "%s/int%d", tmp, i);
        char *args[] = {"gpudissect", "characterize", "--device", "sim:tiny", "--no-plots",
                        "--out", out, NULL};
        int signo = i % 3 == 2 ? SIGTERM : SIGINT; /* a batch system's stop, too */
        int rc = run_and_signal(args, signo, random_delay_us(&seed));
        if (rc == 256 + signo && access(out, F_OK) != 0)
            continue; /* a loaded machine: the signal came before the handler, and before
                       * the run had made anything */
        if (rc != 0 && rc != 130)
            fail_msg("trial %d: exit %d after signal %d (expected 130, or 0 when it had finished)", i,
                     rc, signo);
        assert_int_equal(check_files(out), 0); /* no orphan temporaries */
        if (rc == 130) {
            interrupted++;
            char path[1200];
            snprintf(path, sizeof path, "%s/meta.json", out);
            json_t *meta = json_load_file(path, 0, NULL);
            assert_non_null(meta);
            assert_string_equal(json_string_value(json_object_get(meta, "interrupted")),
                                signo == SIGINT ? "SIGINT" : "SIGTERM");
            json_decref(meta);
            if (!file_exists(out, "inferred.json") || !file_exists(out, "report.md"))
                fail_msg("trial %d: interrupted run without inferred.json or report.md", i);
        }
    }
    printf("note: %d of %d SIGINT/SIGTERM trials stopped the run\n", interrupted, TRIALS_SIGINT);
    assert_true(interrupted > 0);
    gd_test_rmrf(tmp);
    free(tmp);
}

static void test_sigkill_then_resume(void **state)
{
    (void)state;
    unsigned seed = 1515;
    char *tmp = gd_test_tmpdir();
    for (int i = 0; i < TRIALS_SIGKILL; i++) {
        char out[1100];
        snprintf(out, sizeof out, "%s/kill%d", tmp, i);
        char *args[] = {"gpudissect", "characterize", "--device", "sim:tiny", "--no-plots",
                        "--out", out, NULL};
        int rc = run_and_signal(args, SIGKILL, random_delay_us(&seed));
        check_files(out); /* whole files; orphans allowed after SIGKILL */
        if (rc == 0 || !file_exists(out, "meta.json"))
            continue; /* finished first, or killed before its meta.json: nothing to resume */
        /* an orphan as a SIGKILL between create and rename leaves it */
        char orphan[1200];
        snprintf(orphan, sizeof orphan, "%s/pchase.csv.tmp.AbC123", out);
        FILE *f = fopen(orphan, "w");
        assert_non_null(f);
        fputs("footprint_bytes,ser", f);
        fclose(f);
        char *resume[] = {"gpudissect", "characterize", "--resume", out, NULL};
        rc = run_and_signal(resume, 0, 0);
        if (rc != 0)
            fail_msg("trial %d: --resume exited %d", i, rc);
        assert_int_equal(check_files(out), 0);
        assert_true(file_exists(out, "inferred.json") && file_exists(out, "report.md"));
    }
    gd_test_rmrf(tmp);
    free(tmp);
}

/* A finished step is read back on --resume, not measured and written again. */
static void test_resume_keeps_finished_steps(void **state)
{
    (void)state;
    char *tmp = gd_test_tmpdir();
    char out[1100], csv[1200];
    snprintf(out, sizeof out, "%s/done", tmp);
    char *args[] = {"gpudissect", "characterize", "--device", "sim:tiny", "--no-plots", "--out",
                    out, NULL};
    assert_int_equal(run_and_signal(args, 0, 0), 0);
    snprintf(csv, sizeof csv, "%s/stride-l1d.csv", out);
    struct stat before, after;
    assert_int_equal(stat(csv, &before), 0);
    char *resume[] = {"gpudissect", "characterize", "--resume", out, NULL};
    assert_int_equal(run_and_signal(resume, 0, 0), 0);
    assert_int_equal(stat(csv, &after), 0);
    /* gd_write_atomic renames a new inode over the old: the same inode is
     * the same file, never rewritten */
    assert_true(before.st_ino == after.st_ino);
    char path[1200];
    snprintf(path, sizeof path, "%s/meta.json", out);
    json_t *meta = json_load_file(path, 0, NULL);
    assert_non_null(meta);
    assert_non_null(json_object_get(meta, "resumed"));
    assert_null(json_object_get(meta, "interrupted"));
    json_decref(meta);
    char *bad[] = {"gpudissect", "characterize", "--resume", tmp, NULL}; /* no meta.json */
    assert_int_equal(run_and_signal(bad, 0, 0), 1);
    gd_test_rmrf(tmp);
    free(tmp);
}

/* meta.json's entry for step LABEL, integer field KEY (-1: none). */
static long step_field(const char *dir, const char *label, const char *key)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/meta.json", dir);
    json_t *meta = json_load_file(path, 0, NULL);
    assert_non_null(meta);
    long v = -1;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(meta, "probes"), i, e) {
        const char *csv = json_string_value(json_object_get(e, "csv"));
        if (csv && !strcmp(csv, label) && json_is_integer(json_object_get(e, key)))
            v = (long)json_integer_value(json_object_get(e, key));
    }
    json_decref(meta);
    return v;
}

#define MID_STEP "pchase"
#define MID_ARGS(out)                                                                         \
    {"gpudissect", "characterize", "--device", "sim:tiny", "--set", "noise.jitter=3",         \
     "--set", "noise.outlier_rate=0.01", "--set", "noise.outlier_cycles=500", "--no-plots", \
     "-j", "2", "--out", out, NULL}

/* Starts the run, signals it once OUT/pchase.partial holds a point; returns
 * the exit status as run_and_signal, and -1 when the run ended first. */
static int signal_mid_step(char *const args[], const char *out, int signo)
{
    char partial[1200];
    snprintf(partial, sizeof partial, "%s/" MID_STEP ".partial", out);
    return gd_test_stop_when_file(args, partial, signo, 500);
}

static void test_resume_mid_step(void **state)
{
    (void)state;
    char *tmp = gd_test_tmpdir();
    char ref[1100];
    snprintf(ref, sizeof ref, "%s/ref", tmp);
    char *ref_args[] = MID_ARGS(ref);
    assert_int_equal(run_and_signal(ref_args, 0, 0), 0);
    long points = step_field(ref, MID_STEP, "points");
    assert_true(points > 2);
    const int signals[] = {SIGINT, SIGKILL};
    int stopped_mid_step = 0;
    for (int k = 0; k < 2; k++) {
        int signo = signals[k];
        char out[1100], partial[1200];
        snprintf(out, sizeof out, "%s/mid%d", tmp, k);
        snprintf(partial, sizeof partial, "%s/" MID_STEP ".partial", out);
        char *args[] = MID_ARGS(out);
        int rc = -1;
        for (int attempt = 0; attempt < 3 && rc < 0; attempt++) {
            gd_test_rmrf(out);
            rc = signal_mid_step(args, out, signo);
        }
        if (rc < 0)
            fail_msg("signal %d: the run finished three times before its checkpoint was seen", signo);
        if (rc != (signo == SIGINT ? 130 : 256 + SIGKILL))
            fail_msg("signal %d: exit %d", signo, rc);
        struct stat st;
        if (stat(partial, &st) != 0)
            fail_msg("signal %d: %s is gone after the interruption", signo, partial);
        if (signo == SIGKILL) {
            /* a record torn by a kill in the middle of its append: the first
             * 30 bytes of the first record again, header and a little more */
            char head[30];
            int fd = open(partial, O_RDWR | O_APPEND);
            assert_true(fd >= 0);
            assert_int_equal(pread(fd, head, sizeof head, 0), (ssize_t)sizeof head);
            assert_int_equal(write(fd, head, sizeof head), (ssize_t)sizeof head);
            close(fd);
        }
        char *resume[] = {"gpudissect", "characterize", "--resume", out, NULL};
        assert_int_equal(run_and_signal(resume, 0, 0), 0);
        assert_int_equal(access(partial, F_OK), -1); /* gone once the step ended */
        const char *same[] = {"stride-l1d.csv", "stride-l2.csv", MID_STEP ".csv",
                              MID_STEP ".counters.csv", MID_STEP ".samples.gz", "inferred.json"};
        for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
            gd_test_assert_same_file(ref, out, same[i]);
        long measured = step_field(out, MID_STEP, "points_measured");
        long read_back = step_field(out, MID_STEP, "points_read_back");
        assert_int_equal(step_field(out, MID_STEP, "points"), points);
        /* the checkpointed points were read back, not measured again */
        assert_true(read_back >= 1);
        assert_int_equal(measured + read_back, points);
        /* ... and so were the finished steps */
        assert_int_equal(step_field(out, "stride-l1d", "points_measured"), 0);
        assert_int_equal(step_field(out, "stride-l2", "points_measured"), 0);
        stopped_mid_step += measured > 0;
        printf("note: signal %d: %ld of %ld points read back from the checkpoint, %ld measured\n",
               signo, read_back, points, measured);
    }
    assert_int_equal(check_files(tmp), 0);
    printf("note: %d of 2 runs stopped with points of the step left to measure\n",
           stopped_mid_step);
    gd_test_rmrf(tmp);
    free(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sigint_at_random_moments),
        cmocka_unit_test(test_sigkill_then_resume),
        cmocka_unit_test(test_resume_keeps_finished_steps),
        cmocka_unit_test(test_resume_mid_step),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
