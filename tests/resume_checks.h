/* resume_checks.h -- a run stopped mid-step, and the files its resumed run
 * must share with an uninterrupted one (include after testing.h): used by
 * test_interrupt.c and test_batch_launch.c. */
#ifndef GD_TEST_RESUME_CHECKS_H
#define GD_TEST_RESUME_CHECKS_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "analysis/results.h"

/* 1 when the checkpoint at `path` (host/checkpoint.c: a 24-byte header --
 * magic, 4 zero bytes, payload length, hash -- then the payload) holds its
 * first record whole.  A size > 0 is not enough: write(2) grows the file page
 * by page, and a kill in the middle of a big record (a point's samples) cuts
 * it short, so the resumed run reads back nothing. */
static inline int gd_test_first_record_whole(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    unsigned char header[24];
    int whole = 0;
    if (fread(header, 1, sizeof header, f) == sizeof header) {
        uint64_t payload;
        memcpy(&payload, header + 8, 8);
        struct stat st;
        whole = fstat(fileno(f), &st) == 0 && !memcmp(header, "GDCP", 4) &&
                (uint64_t)st.st_size >= sizeof header + payload;
    }
    fclose(f);
    return whole;
}

/* Starts the binary with args (stdout/stderr to /dev/null) and sends it
 * `signo` once the checkpoint `path` holds its first record whole, polling
 * every poll_us.  Returns the exit status (256+N for a death by signal N),
 * or -1 when the run ended before the record was seen. */
static inline int gd_test_stop_when_file(char *const args[], const char *path, int signo,
                                         long poll_us)
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
    int status = 0;
    for (;;) {
        if (gd_test_first_record_whole(path)) {
            kill(pid, signo);
            break;
        }
        if (waitpid(pid, &status, WNOHANG) == pid)
            return -1;
        struct timespec ts = {0, poll_us * 1000};
        nanosleep(&ts, NULL);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 256 + WTERMSIG(status);
}

/* a_dir/name and b_dir/name hold the same bytes (b the resumed run's). */
static inline void gd_test_assert_same_file(const char *a_dir, const char *b_dir,
                                            const char *name)
{
    char a[1200], b[1200];
    snprintf(a, sizeof a, "%s/%s", a_dir, name);
    snprintf(b, sizeof b, "%s/%s", b_dir, name);
    gd_err err;
    size_t la = 0, lb = 0;
    char *ta = gd_read_file(a, &la, &err), *tb = gd_read_file(b, &lb, &err);
    if (!ta || !tb)
        fail_msg("%s or %s missing", a, b);
    if (la != lb || memcmp(ta, tb, la) != 0)
        fail_msg("%s differs from the uninterrupted run's (%zu vs %zu bytes)", b, lb, la);
    free(ta);
    free(tb);
}

#endif
