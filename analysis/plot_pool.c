/* plot_pool.c -- many pictures drawn at once: gd_plot_draw_all (plot.h).
 *
 * The pictures are split into `jobs` runs of consecutive names, each drawn by
 * gd_plot_draw_batch (one gnuplot for the run) in a child process of its own;
 * a child's pipe carries its first failure, if any (the picture's index, a
 * tab, the message), and its end says the child is done.  The pictures do not
 * depend on each other, so the files are those of a serial draw.
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

/* A run of pictures being drawn by a child process of its own
 * (gd_plot_draw_batch there); its pipe carries the first failure, if any, and
 * its end says it is done. */
typedef struct plot_drawer {
    pid_t pid;
    int fd;
    size_t index, count; /* names[index .. index + count) */
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

static int drawer_start(const char *dir, const char *const *names, size_t index, size_t count,
                        plot_drawer *d, plot_pool *pool, gd_err *err)
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
        size_t failed = 0;
        int rc = gd_plot_draw_batch(dir, names + index, count, &failed, &e);
        if (rc != 0) {
            char text[GD_ERR_MSG_BYTES + 32];
            int n = snprintf(text, sizeof text, "%zu\t%s", index + failed, e.msg);
            size_t len = n < 0 ? 0 : (size_t)n < sizeof text ? (size_t)n : sizeof text - 1, off = 0;
            while (off < len) {
                ssize_t w = write(fds[1], text + off, len - off);
                if (w <= 0)
                    break;
                off += (size_t)w;
            }
        }
        _exit(rc != 0 ? 1 : 0);
    }
    close(fds[1]);
    *d = (plot_drawer){.pid = pid, .fd = fds[0], .index = index, .count = count};
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

/* Waits for a finished child; 0 when it drew its pictures, else -1 with the
 * first failure's message (or how the child ended) in err and its picture's
 * index in *failed. */
static int drawer_finish(const char *dir, const char *const *names, plot_drawer *d,
                         size_t *failed, gd_err *err)
{
    int status;
    *failed = d->index;
    while (waitpid(d->pid, &status, 0) < 0)
        if (errno != EINTR)
            return gd_fail(err, "plot: waitpid: %s", strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    char *tab = strchr(d->msg, '\t');
    if (tab) {
        char *end;
        unsigned long long i = strtoull(d->msg, &end, 10);
        if (end == tab && i >= d->index && i < d->index + d->count)
            *failed = (size_t)i;
        return gd_fail(err, "%s", tab + 1);
    }
    return gd_fail(err, "plot: drawing %s/%s ended %s %d", dir, names[d->index],
                   WIFEXITED(status) ? "with exit status" : "by signal",
                   WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

int gd_plot_draw_all(const char *dir, const char *const *names, size_t count, unsigned jobs,
                     gd_err *err)
{
    size_t failed;
    if (jobs <= 1 || count <= 1)
        return gd_plot_draw_batch(dir, names, count, &failed, err);
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
    size_t first_failed = SIZE_MAX;
    unsigned running = 0;
    gd_err first = {{0}};
    int rc = 0;
    /* jobs runs of consecutive pictures, as even as the count allows */
    for (unsigned k = 0; k < jobs; k++) {
        size_t lo = count * k / jobs, hi = count * (k + 1) / jobs;
        if (drawer_start(dir, names, lo, hi - lo, &run[running], &pool, err) != 0) {
            rc = -1;
            break;
        }
        running++;
    }
    while (running) {
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
            if (drawer_finish(dir, names, &run[k], &failed, &e) != 0 && failed < first_failed) {
                first_failed = failed;
                first = e;
            }
            run[k] = run[running - 1];
            pfd[k] = pfd[running - 1];
            running--;
        }
    }
    free(run);
    free(pfd);
    if (rc == 0 && first_failed != SIZE_MAX) {
        if (err)
            *err = first;
        rc = -1;
    }
    return rc;
}
