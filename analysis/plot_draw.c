/* plot_draw.c -- gnuplot runs a picture's script (plot.h: gd_plot_draw,
 * gd_plot_draw_batch): found on PATH, given temporary out_png/out_svg names,
 * its pictures checked (plot_check.c), made 0644 and renamed into place; a
 * failure is one line, the most telling of gnuplot's own output.
 */
#include "analysis/plot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The mode of a finished picture: 0644, as gd_write_atomic() gives every other
 * result file (mkstemp creates the temporary 0600). */
#define PICTURE_FILE_MODE 0644

/* How much of gnuplot's stderr is kept to explain a failure. */
#define GNUPLOT_DIAG_BYTES 8192

/* gnuplot's path on PATH (the default search path when PATH is unset). */
static int find_gnuplot(char *out, size_t size)
{
    const char *path = getenv("PATH");
    char fallback[256];
    if (!path) {
        size_t n = confstr(_CS_PATH, fallback, sizeof fallback);
        path = n > 0 && n <= sizeof fallback ? fallback : "/usr/bin:/bin";
    }
    const char *p = path;
    for (;;) {
        size_t len = strcspn(p, ":");
        /* An empty PATH entry means the current directory. */
        int n = len ? snprintf(out, size, "%.*s/gnuplot", (int)len, p)
                    : snprintf(out, size, "./gnuplot");
        struct stat st;
        if (n > 0 && (size_t)n < size && stat(out, &st) == 0 && S_ISREG(st.st_mode) &&
            access(out, X_OK) == 0)
            return 0;
        if (!p[len])
            return -1;
        p += len + 1;
    }
}

/* The most telling line of gnuplot's output: the first `... line N: message`
 * that is not a warning (gnuplot echoes the failing command and a caret above
 * it), else the first non-empty line. */
static void diagnosis_line(const char *text, char *out, size_t size)
{
    char line[GNUPLOT_DIAG_BYTES];
    int have_first = 0;
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n");
        snprintf(line, sizeof line, "%.*s", (int)len, p);
        p += len + (p[len] != 0);
        if (strspn(line, " \t\r^") == strlen(line))
            continue;
        if (strstr(line, "line ") && strchr(line, ':') && !strstr(line, "warning:")) {
            snprintf(out, size, "%s", line);
            return;
        }
        if (!have_first) {
            snprintf(out, size, "%s", line);
            have_first = 1;
        }
    }
    if (!have_first)
        snprintf(out, size, "(no message)");
}

/* Runs gnuplot with argv (argv[0] "gnuplot", then -e ASSIGNMENTS SCRIPT, once
 * per picture) in DIR, its stdout and stderr captured into diag; `script`
 * names what it ran in an error.  Returns 0 when it exited 0. */
static int run_gnuplot(const char *gnuplot, const char *dir, char *const *argv,
                       const char *script, char *diag, size_t diag_bytes, gd_err *err)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return gd_fail(err, "gnuplot: pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        return gd_fail(err, "gnuplot: fork: %s", strerror(e));
    }
    if (pid == 0) {
        /* Only async-signal-safe calls between fork and exec. */
        static const char chdir_failed[] = "cannot enter the plots directory\n";
        static const char exec_failed[] = "cannot execute gnuplot\n";
        int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (devnull >= 0)
            dup2(devnull, 0);
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        if (chdir(dir) != 0) {
            ssize_t ignored = write(2, chdir_failed, sizeof chdir_failed - 1);
            (void)ignored;
            _exit(126);
        }
        execv(gnuplot, argv);
        ssize_t ignored = write(2, exec_failed, sizeof exec_failed - 1);
        (void)ignored;
        _exit(127);
    }
    close(fds[1]);
    size_t kept = 0;
    char sink[1024];
    for (;;) {
        char *dst = kept + 1 < diag_bytes ? diag + kept : sink;
        size_t room = kept + 1 < diag_bytes ? diag_bytes - kept - 1 : sizeof sink;
        ssize_t n = read(fds[0], dst, room);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (dst == diag + kept)
            kept += (size_t)n;
    }
    diag[kept] = 0;
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return gd_fail(err, "gnuplot: waitpid: %s", strerror(errno));
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    char line[GNUPLOT_DIAG_BYTES];
    diagnosis_line(diag, line, sizeof line);
    if (WIFEXITED(status))
        return gd_fail(err, "gnuplot failed (exit %d) on %s/%s: %s", WEXITSTATUS(status), dir,
                       script, line);
    return gd_fail(err, "gnuplot killed by signal %d on %s/%s: %s",
                   WIFSIGNALED(status) ? WTERMSIG(status) : 0, dir, script, line);
}

/* A fresh temporary file next to `final`; its path goes to tmp ("" on failure). */
static int make_temp(const char *final, char *tmp, size_t size, gd_err *err)
{
    int fd = -1;
    if (snprintf(tmp, size, "%s.tmp.XXXXXX", final) < (int)size)
        fd = mkstemp(tmp);
    else
        errno = ENAMETOOLONG;
    if (fd < 0) {
        tmp[0] = 0;
        return gd_fail(err, "%s: cannot create a temporary file: %s", final, strerror(errno));
    }
    close(fd);
    return 0;
}

/* Give a finished picture the mode of every other result file and flush it to
 * disk before it takes its final name.  The chmod is here, after gnuplot has
 * written, rather than at mkstemp time: the temporary is 0600 (mkstemp's mode),
 * and this way the mode is right whether gnuplot rewrote the file in place or
 * replaced it. */
static int finish_file(const char *path, gd_err *err)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return gd_fail(err, "%s: cannot open: %s", path, strerror(errno));
    if (fchmod(fd, PICTURE_FILE_MODE) != 0) {
        int e = errno;
        close(fd);
        return gd_fail(err, "%s: cannot chmod: %s", path, strerror(e));
    }
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    if (rc != 0)
        return gd_fail(err, "%s: cannot flush: %s", path, strerror(e));
    return 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The pictures of names[0..count) drawn by one gnuplot: each script after
 * its own out_png/out_svg (temporaries next to the final names) and, from the
 * second on, after `reset session`, which leaves nothing of the script before
 * it -- settings, variables, functions, line types -- so each picture is the
 * one a gnuplot of its own draws (the same bytes).  A gnuplot's start (its
 * libraries, cairo, the fonts) was most of each picture's 80 ms.  Every
 * picture is checked, then renamed into place in order; *done counts those
 * renamed.  Returns 0, or -1 with err filled (gnuplot's own error names the
 * batch's first script). */
static int draw_pictures(const char *gnuplot, const char *dir, const char *const *names,
                         size_t count, size_t *done, gd_err *err)
{
    typedef struct picture {
        char png[GD_PLOT_PATH_BYTES], svg[GD_PLOT_PATH_BYTES];
        char png_tmp[GD_PLOT_PATH_BYTES + 16], svg_tmp[GD_PLOT_PATH_BYTES + 16];
        char script[GD_PLOT_NAME_MAX + 8];
        char assignments[2 * GD_PLOT_PATH_BYTES + 32];
    } picture;
    *done = 0;
    picture *pic = calloc(count, sizeof *pic);
    char **argv = calloc(5 * count + 1, sizeof *argv);
    char *diag = malloc(GNUPLOT_DIAG_BYTES);
    int rc = -1;
    if (!pic || !argv || !diag) {
        gd_fail(err, "plot: out of memory");
        goto out;
    }
    size_t argc = 0;
    argv[argc++] = (char *)"gnuplot";
    for (size_t i = 0; i < count; i++) {
        picture *p = &pic[i];
        snprintf(p->png, sizeof p->png, "%s/%s.png", dir, names[i]);
        snprintf(p->svg, sizeof p->svg, "%s/%s.svg", dir, names[i]);
        snprintf(p->script, sizeof p->script, "%s.gp", names[i]);
        if (make_temp(p->png, p->png_tmp, sizeof p->png_tmp, err) != 0 ||
            make_temp(p->svg, p->svg_tmp, sizeof p->svg_tmp, err) != 0)
            goto out;
        /* The temporary names are the checked stem plus mkstemp's letters and
         * digits: nothing in them needs escaping inside '...'. */
        snprintf(p->assignments, sizeof p->assignments, "out_png='%s'; out_svg='%s'",
                 base_name(p->png_tmp), base_name(p->svg_tmp));
        if (i) { /* a command of its own: gnuplot 5.4 reads "reset session;" as a bad option */
            argv[argc++] = (char *)"-e";
            argv[argc++] = (char *)"reset session";
        }
        argv[argc++] = (char *)"-e";
        argv[argc++] = p->assignments;
        argv[argc++] = p->script;
    }
    if (run_gnuplot(gnuplot, dir, argv, pic[0].script, diag, GNUPLOT_DIAG_BYTES, err) != 0)
        goto out;
    for (size_t i = 0; i < count; i++) {
        picture *p = &pic[i];
        if (gd_plot_check_png(p->png_tmp, err) != 0 || gd_plot_check_svg(p->svg_tmp, err) != 0) {
            gd_fail_prefix(err, "gnuplot drew a bad picture from %s/%s", dir, p->script);
            goto out;
        }
    }
    for (size_t i = 0; i < count; i++) {
        picture *p = &pic[i];
        char *const temps[] = {p->png_tmp, p->svg_tmp};
        const char *const finals[] = {p->png, p->svg};
        for (int k = 0; k < 2; k++) {
            if (finish_file(temps[k], err) != 0)
                goto out;
            if (rename(temps[k], finals[k]) != 0) {
                gd_fail(err, "%s: rename failed: %s", finals[k], strerror(errno));
                goto out;
            }
            temps[k][0] = 0; /* nothing left to remove */
        }
        ++*done;
    }
    rc = 0;
out:
    for (size_t i = 0; pic && i < count; i++) {
        if (pic[i].png_tmp[0])
            unlink(pic[i].png_tmp);
        if (pic[i].svg_tmp[0])
            unlink(pic[i].svg_tmp);
    }
    free(pic);
    free(argv);
    free(diag);
    return rc;
}

int gd_plot_draw(const char *dir, const char *name, gd_err *err)
{
    char gnuplot[GD_PLOT_PATH_BYTES];
    if (find_gnuplot(gnuplot, sizeof gnuplot) != 0)
        return gd_fail(err, "gnuplot not found: install gnuplot-nox");
    size_t done;
    return draw_pictures(gnuplot, dir, &name, 1, &done, err);
}

int gd_plot_draw_batch(const char *dir, const char *const *names, size_t count, size_t *failed,
                       gd_err *err)
{
    *failed = 0;
    if (!count)
        return 0;
    char gnuplot[GD_PLOT_PATH_BYTES];
    if (find_gnuplot(gnuplot, sizeof gnuplot) != 0)
        return gd_fail(err, "gnuplot not found: install gnuplot-nox");
    size_t done = 0;
    gd_err batch;
    if (count > 1 && draw_pictures(gnuplot, dir, names, count, &done, &batch) == 0)
        return 0;
    /* one at a time from the first not in place: each failure is its own
     * picture's (a gnuplot stops at a batch's first failing script, whose
     * pictures before it would then be lost), and the first one is the error */
    for (size_t i = done; i < count; i++) {
        size_t one;
        if (draw_pictures(gnuplot, dir, &names[i], 1, &one, err) != 0) {
            *failed = i;
            return -1;
        }
    }
    return 0;
}
