/* results.c -- atomic files and small text builders for results/RUN/. */
#include "analysis/results.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int gd_mkdirs(const char *path, gd_err *err)
{
    char buf[1024];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return gd_fail(err, "%s: path too long", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return gd_fail(err, "%s: cannot create directory: %s", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return gd_fail(err, "%s: cannot create directory: %s", buf, strerror(errno));
    struct stat st;
    if (stat(buf, &st) != 0 || !S_ISDIR(st.st_mode))
        return gd_fail(err, "%s: not a directory", buf);
    return 0;
}

static int write_whole(const char *path, const void *data, size_t bytes, int durable,
                       gd_err *err)
{
    char tmp[1100];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path) >= (int)sizeof tmp)
        return gd_fail(err, "%s: path too long", path);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return gd_fail(err, "%s: cannot create a temporary file: %s", path, strerror(errno));
    const char *p = data;
    size_t left = bytes;
    while (left) {
        ssize_t n = write(fd, p, left);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            unlink(tmp);
            return gd_fail(err, "%s: write failed: %s", path, strerror(e));
        }
        p += n;
        left -= (size_t)n;
    }
    if (fchmod(fd, 0644) != 0 || (durable && fsync(fd) != 0)) {
        int e = errno;
        close(fd);
        unlink(tmp);
        return gd_fail(err, "%s: cannot flush: %s", path, strerror(e));
    }
    if (close(fd) != 0) {
        int e = errno;
        unlink(tmp);
        return gd_fail(err, "%s: close failed: %s", path, strerror(e));
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return gd_fail(err, "%s: rename failed: %s", path, strerror(e));
    }
    return 0;
}

int gd_write_atomic(const char *path, const void *data, size_t bytes, gd_err *err)
{
    return write_whole(path, data, bytes, 1, err);
}

int gd_write_snapshot(const char *path, const void *data, size_t bytes, gd_err *err)
{
    return write_whole(path, data, bytes, 0, err);
}

int gd_write_json_atomic(const char *path, const json_t *doc, gd_err *err)
{
    char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    if (!text)
        return gd_fail(err, "%s: cannot serialize JSON", path);
    size_t n = strlen(text);
    char *with_newline = malloc(n + 2);
    if (!with_newline) {
        free(text);
        return gd_fail(err, "%s: out of memory", path);
    }
    memcpy(with_newline, text, n);
    with_newline[n] = '\n';
    with_newline[n + 1] = 0;
    free(text);
    int rc = gd_write_atomic(path, with_newline, n + 1, err);
    free(with_newline);
    return rc;
}

char *gd_read_file(const char *path, size_t *bytes, gd_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        gd_fail(err, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    int too_large = 0;
    while (buf) {
        size_t n = fread(buf + len, 1, cap - len - 1, f);
        len += n;
        if (len + 1 < cap)
            break;
        /* a cap, not "until memory runs out": /dev/zero, a FIFO or a wrong
         * path to a disk image would otherwise be read for ever */
        if (len >= GD_READ_FILE_MAX_BYTES) {
            too_large = 1;
            break;
        }
        cap *= 2;
        char *nb = realloc(buf, cap);
        if (!nb) {
            free(buf);
            buf = NULL;
        } else {
            buf = nb;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (too_large) {
        free(buf);
        gd_fail(err, "%s: larger than %u MiB, not a file gpudissect reads", path,
                (unsigned)(GD_READ_FILE_MAX_BYTES >> 20));
        return NULL;
    }
    if (!buf || bad) {
        free(buf);
        gd_fail(err, "%s: cannot read", path);
        return NULL;
    }
    buf[len] = 0;
    if (bytes)
        *bytes = len;
    return buf;
}

json_t *gd_json_load(const char *path, size_t flags, gd_err *err)
{
    size_t len = 0;
    char *text = gd_read_file(path, &len, err);
    if (!text)
        return NULL;
    json_error_t jerr;
    json_t *doc = json_loadb(text, len, flags, &jerr);
    free(text);
    if (!doc) {
        /* jansson's line is -1 where it has none; its text is one line */
        if (jerr.line > 0)
            gd_fail(err, "%s:%d: malformed JSON: %s", path, jerr.line, jerr.text);
        else
            gd_fail(err, "%s: malformed JSON: %s", path, jerr.text);
    }
    return doc;
}

void gd_text_init(gd_text *t)
{
    memset(t, 0, sizeof *t);
}

/* Room for `need` more bytes and a NUL; 0, or -1 with t->failed set. */
static int text_reserve(gd_text *t, size_t need)
{
    if (t->data && t->capacity - t->length > need)
        return 0;
    size_t cap = t->capacity ? t->capacity * 2 : 4096;
    while (cap < t->length + need + 1)
        cap *= 2;
    char *d = realloc(t->data, cap);
    if (!d) {
        t->failed = 1;
        return -1;
    }
    t->data = d;
    t->capacity = cap;
    return 0;
}

void gd_text_append(gd_text *t, const char *s, size_t n)
{
    if (t->failed || text_reserve(t, n) != 0)
        return;
    memcpy(t->data + t->length, s, n);
    t->length += n;
    t->data[t->length] = 0;
}

void gd_text_printf(gd_text *t, const char *fmt, ...)
{
    if (t->failed)
        return;
    for (;;) {
        size_t room = t->capacity - t->length;
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->data ? t->data + t->length : NULL, t->data ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = 1;
            return;
        }
        if (t->data && (size_t)n < room) {
            t->length += (size_t)n;
            return;
        }
        if (text_reserve(t, (size_t)n) != 0)
            return;
    }
}

void gd_text_free(gd_text *t)
{
    free(t->data);
    memset(t, 0, sizeof *t);
}

int gd_text_write_atomic(gd_text *t, const char *path, gd_err *err)
{
    if (t->failed)
        return gd_fail(err, "%s: out of memory while formatting", path);
    return gd_write_atomic(path, t->data ? t->data : "", t->length, err);
}

int gd_text_write_snapshot(gd_text *t, const char *path, gd_err *err)
{
    if (t->failed)
        return gd_fail(err, "%s: out of memory while formatting", path);
    return gd_write_snapshot(path, t->data ? t->data : "", t->length, err);
}

void gd_iso8601_now(char *buf, size_t bytes)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, bytes, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
