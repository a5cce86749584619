/* interrupt.c -- what SIGINT and SIGTERM do to a long command.
 *
 * A characterization runs for minutes to hours; Ctrl-C or a batch system's
 * SIGTERM used to end it wherever it was.  Atomic writes (analysis/results.c)
 * kept every file whole, but a process killed between a temporary's creation
 * and its rename left an orphan "*.tmp.*", meta.json missed the step in
 * progress, and without inferred.json compare and report refused the run.
 *
 * Now the first signal only sets a flag (async-signal-safe: one sig_atomic_t
 * store, and the handler resets itself so that a second signal ends the
 * process at once).  The runner checks the flag before each point
 * (host/runner.c), so the point being written finishes its atomic write; the
 * characterize loop then records the run as interrupted in meta.json, writes
 * inferred.json and report.md for the steps that finished, and exits 130.
 * `characterize --resume RUN` starts again in the same directory, removing
 * orphan temporaries a SIGKILL may have left (gd_interrupt_remove_temporaries)
 * and reusing every step that finished.
 */
#include "host/interrupt.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t interrupted_signo;

static void on_signal(int signo)
{
    interrupted_signo = signo;
    signal(signo, SIG_DFL); /* the second Ctrl-C is the user insisting */
}

void gd_interrupt_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART; /* a write in progress goes on */
    interrupted_signo = 0;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

void gd_interrupt_uninstall(void)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
}

int gd_interrupt_requested(void)
{
    return interrupted_signo;
}

void gd_interrupt_simulate(int signo)
{
    interrupted_signo = signo;
}

const char *gd_interrupt_name(int signo)
{
    switch (signo) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    default: return "a signal";
    }
}

/* "NAME.tmp.XXXXXX": mkstemp's six characters after the last ".tmp." */
static int is_temporary(const char *name)
{
    const char *t = strstr(name, ".tmp.");
    if (!t || t == name)
        return 0;
    while (strstr(t + 1, ".tmp."))
        t = strstr(t + 1, ".tmp.");
    return strlen(t + 5) == 6;
}

int gd_interrupt_remove_temporaries(const char *dir, gd_err *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return gd_fail(err, "%s: cannot read: %s", dir, strerror(errno));
    int removed = 0;
    struct dirent *ent;
    while ((ent = readdir(d))) {
        if (!is_temporary(ent->d_name))
            continue;
        char path[1200];
        if (snprintf(path, sizeof path, "%s/%s", dir, ent->d_name) >= (int)sizeof path)
            continue;
        if (unlink(path) == 0)
            removed++;
    }
    closedir(d);
    return removed;
}
