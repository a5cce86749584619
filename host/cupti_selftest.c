/* cupti_selftest.c -- CUPTI tried in a child process before the run trusts it.
 *
 * On an H200 (driver 580.159, CUDA 13, 2026-11-27) every `gpudissect run` on
 * cuda:0 with counters died of SIGSEGV inside CUPTI's profiler set-up (CUPTI
 * dlopen()s libnvperf_host.so with RTLD_DEEPBIND; the same run with
 * GPUDISSECT_LIBCUPTI=/nonexistent, i.e. without counters, measured).  A crash
 * in a vendor library cannot be caught and survived in-process, and it took
 * the whole run -- every step, every result -- with it.  So before the first
 * point reads counters, the device runs the smallest measurement that opens
 * CUPTI and reads a range -- this very program, `run --device SPEC --probe
 * pchase --sweep 1KiB:1KiB` into a scratch directory -- as a child, and looks
 * at how it ended: exited (whatever its status: a failed measurement is not
 * CUPTI's crash, and a CUPTI that cannot open says so itself), or killed by a
 * signal, or still running after GD_CUPTI_SELFTEST_SECONDS.  The scratch
 * directory ($TMPDIR, else /tmp: gpudissect-cupti-XXXXXX) is removed after.  The last two
 * leave the run without counters, with the reason as the device's counters
 * note (meta.json) and on stderr; the run goes on.  The child knows it is one
 * (GPUDISSECT_CUPTI_SELFTEST in its environment) and does not test again.
 * Costs one extra process and context creation per run that reads counters
 * on a card; none on the simulator.
 */
#include "host/cupti.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static char selftest_exe[4096];

void gd_cupti_set_selftest_exe(const char *path)
{
    selftest_exe[0] = 0;
    if (!path)
        return;
    ssize_t n = readlink(path, selftest_exe, sizeof selftest_exe - 1);
    if (n > 0)
        selftest_exe[n] = 0;
    else
        snprintf(selftest_exe, sizeof selftest_exe, "%s", path);
}

/* Removes the scratch run directory: its files, one level deep, then itself. */
static void remove_scratch(const char *dir)
{
    static const char *const names[] = {"pchase.csv",         "pchase.counters.csv",
                                        "pchase.samples.gz",  "meta.json",
                                        "lsu_trace.csv",      "checkpoint.json"};
    char path[4200];
    snprintf(path, sizeof path, "%s/run", dir);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char f[4300];
        snprintf(f, sizeof f, "%s/%s", path, names[i]);
        unlink(f);
    }
    rmdir(path);
    rmdir(dir);
}

int gd_cupti_selftest(const char *device_spec, gd_err *err)
{
    if (!selftest_exe[0] || getenv(GD_CUPTI_SELFTEST_ENV))
        return 0;
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/gpudissect-cupti-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return 0; /* no scratch: trust it, as before */
    char out[sizeof dir + 8];
    snprintf(out, sizeof out, "%s/run", dir);
    char *argv[] = {selftest_exe, "run", "--device", (char *)device_spec, "--probe", "pchase",
                    "--sweep", "1KiB:1KiB", "--out", out, NULL};
    /* the environment, plus the mark that stops the child testing again */
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 2, sizeof *env);
    if (!env) {
        remove_scratch(dir);
        return 0;
    }
    memcpy(env, environ, n * sizeof *env);
    static char mark[] = GD_CUPTI_SELFTEST_ENV "=child";
    env[n] = mark;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawn(&pid, selftest_exe, &fa, NULL, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    free(env);
    if (rc != 0) {
        remove_scratch(dir);
        return 0; /* could not test: as before */
    }
    int status = 0, done = 0;
    struct timespec tick = {0, 20 * 1000 * 1000};
    for (long waited_ms = 0; waited_ms <= GD_CUPTI_SELFTEST_SECONDS * 1000L; waited_ms += 20) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) {
            done = 1;
            break;
        }
        if (w < 0 && errno != EINTR)
            break;
        nanosleep(&tick, NULL);
    }
    if (!done) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        remove_scratch(dir);
        return gd_fail(err, "counters unavailable: a test run with CUPTI did not finish in "
                            "%d s on %s; running without counters",
                       GD_CUPTI_SELFTEST_SECONDS, device_spec);
    }
    remove_scratch(dir);
    if (WIFSIGNALED(status))
        return gd_fail(err, "counters unavailable: CUPTI crashed a test run on %s (signal %d, "
                            "%s); running without counters",
                       device_spec, WTERMSIG(status), strsignal(WTERMSIG(status)));
    return 0;
}
