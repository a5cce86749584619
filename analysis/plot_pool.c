/* plot_pool.c -- many pictures drawn at once: gd_plot_draw_all (plot.h).
 *
 * Each picture is drawn by gd_plot_draw in a child process of its own, up to
 * `jobs` at a time; a child's pipe carries its error message, if any, and its
 * end says the child is done.  The pictures do not depend on each other, so
 * the files are those of a serial draw.
 */
#include "analysis/plot.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* One picture being drawn by a child process of its own (gd_plot_draw there);
 * its pipe carries the error message, if any, and its end says it is done. */
typedef struct plot_drawer {
    pid_t pid;
    int fd;
    size_t index;
    size_t kept;
    char msg[GD_ERR_MSG_BYTES];
} plot_drawer;

/* The pool's own arrays, which a child frees before it draws: it exits with
 * _exit, and the parent's blocks would be lost in it (valgrind follows a
 * fork: a definite leak, exit status 99, a picture "failed"). */
typedef struct plot_pool {
    plot_drawer *run;
    struct pollfd *pfd;
} plot_pool;

static int drawer_start(const char *dir, const char *name, size_t index, plot_drawer *d,
                        plot_pool *pool, gd_err *err)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return gd_fail(err, "plot: pipe: %s", strerror(errno));
    fflush(NULL); /* nothing buffered is written twice by the child's exit */
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        return gd_fail(err, "plot: fork: %s", strerror(e));
    }
    if (pid == 0) {
        close(fds[0]);
        free(pool->run);
        free(pool->pfd);
        gd_err e;
        e.msg[0] = 0;
        int rc = gd_plot_draw(dir, name, &e);
        if (rc != 0) {
            size_t n = strlen(e.msg), off = 0;
            while (off < n) {
                ssize_t w = write(fds[1], e.msg + off, n - off);
                if (w <= 0)
                    break;
                off += (size_t)w;
            }
        }
        _exit(rc != 0 ? 1 : 0);
    }
    close(fds[1]);
    *d = (plot_drawer){.pid = pid, .fd = fds[0], .index = index};
    return 0;
}

/* Reads what the child said; 1 once its pipe is closed (the child is done). */
static int drawer_read(plot_drawer *d)
{
    char sink[256];
    char *dst = d->kept + 1 < sizeof d->msg ? d->msg + d->kept : sink;
    size_t room = d->kept + 1 < sizeof d->msg ? sizeof d->msg - d->kept - 1 : sizeof sink;
    ssize_t n = read(d->fd, dst, room);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return 0;
    if (n > 0) {
        if (dst != sink)
            d->kept += (size_t)n;
        return 0;
    }
    d->msg[d->kept] = 0;
    close(d->fd);
    return 1;
}

/* Waits for a finished child; 0 when it drew its picture, else -1 with its
 * message (or how it ended) in err. */
static int drawer_finish(const char *dir, const char *name, plot_drawer *d, gd_err *err)
{
    int status;
    while (waitpid(d->pid, &status, 0) < 0)
        if (errno != EINTR)
            return gd_fail(err, "plot: waitpid: %s", strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    if (d->msg[0])
        return gd_fail(err, "%s", d->msg);
    return gd_fail(err, "plot: drawing %s/%s ended %s %d", dir, name,
                   WIFEXITED(status) ? "with exit status" : "by signal",
                   WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

int gd_plot_draw_all(const char *dir, const char *const *names, size_t count, unsigned jobs,
                     gd_err *err)
{
    if (jobs <= 1 || count <= 1) {
        for (size_t i = 0; i < count; i++)
            if (gd_plot_draw(dir, names[i], err) != 0)
                return -1;
        return 0;
    }
    if (jobs > count)
        jobs = (unsigned)count;
    plot_drawer *run = calloc(jobs, sizeof *run);
    struct pollfd *pfd = calloc(jobs, sizeof *pfd);
    plot_pool pool = {run, pfd};
    if (!run || !pfd) {
        free(run);
        free(pfd);
        return gd_fail(err, "plot: out of memory");
    }
    size_t next = 0, failed = SIZE_MAX;
    unsigned running = 0;
    gd_err first = {{0}};
    int rc = 0;
    for (;;) {
        /* a failure stops the pictures not started yet, as a serial run
         * stops at its first; the error is that of the first picture failed */
        while (running < jobs && next < count && failed == SIZE_MAX && rc == 0) {
            if (drawer_start(dir, names[next], next, &run[running], &pool, err) != 0) {
                rc = -1;
                break;
            }
            running++;
            next++;
        }
        if (!running)
            break;
        for (unsigned k = 0; k < running; k++)
            pfd[k] = (struct pollfd){.fd = run[k].fd, .events = POLLIN};
        if (poll(pfd, running, -1) < 0) {
            if (errno == EINTR)
                continue;
            /* cannot wait on the pipes: each child is waited for in turn */
            for (unsigned k = 0; k < running; k++)
                pfd[k].revents = POLLIN;
        }
        for (unsigned k = 0; k < running;) {
            if (!pfd[k].revents || !drawer_read(&run[k])) {
                k++;
                continue;
            }
            gd_err e;
            if (drawer_finish(dir, names[run[k].index], &run[k], &e) != 0 &&
                run[k].index < failed) {
                failed = run[k].index;
                first = e;
            }
            run[k] = run[running - 1];
            pfd[k] = pfd[running - 1];
            running--;
        }
    }
    free(run);
    free(pfd);
    if (rc == 0 && failed != SIZE_MAX) {
        if (err)
            *err = first;
        rc = -1;
    }
    return rc;
}
