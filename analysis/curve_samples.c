/* curve_samples.c -- a curve's samples as RUN/LABEL.samples.gz (curve_samples.h).
 *
 * The text is built in memory, compressed with zlib's deflate in gzip framing
 * (so `zcat` reads it), and written with gd_write_atomic: a reader sees the
 * old file or the new one.  Numbers are exact: whole values as integers, the
 * rest with 17 significant digits.
 */
#include "analysis/curve_samples.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "analysis/results.h"

#define GS_GZIP_WINDOW_BITS (15 + 16) /* deflate window 2^15, gzip framing */
#define GS_EXACT_INTEGER_LIMIT 9007199254740992.0 /* 2^53 */
#define GS_READ_CHUNK (1 << 16)

/* ",%lld" of a whole value, by hand: most samples are whole cycle counts, and
 * vsnprintf's ~250 host instructions a number were 6 % of a p-chase sweep's
 * `run` (a few million samples) */
static void sample_number(gd_text *t, double v)
{
    if (isfinite(v) && fabs(v) < GS_EXACT_INTEGER_LIMIT && v == floor(v)) {
        char buf[24], *p = buf + sizeof buf;
        long long x = (long long)v;
        unsigned long long u = x < 0 ? 0ull - (unsigned long long)x : (unsigned long long)x;
        do {
            *--p = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        if (x < 0)
            *--p = '-';
        *--p = ',';
        gd_text_append(t, p, (size_t)(buf + sizeof buf - p));
    } else {
        gd_text_printf(t, ",%.17g", v);
    }
}

int gd_curve_write_samples(const gd_curve *curve, const char *dir, gd_err *err)
{
    gd_text t;
    gd_text_init(&t);
    for (size_t i = 0; i < curve->count; i++) {
        const gd_point *p = &curve->points[i];
        for (unsigned s = 0; s < p->series_count; s++) {
            const gd_point_series *ps = &p->series[s];
            size_t n = ps->samples ? ps->summary.count : 0;
            gd_text_printf(&t, "%llu,%s,%zu", (unsigned long long)p->x, ps->name, n);
            for (size_t k = 0; k < n; k++)
                sample_number(&t, ps->samples[k]);
            gd_text_printf(&t, "\n");
        }
    }
    if (t.failed) {
        gd_text_free(&t);
        return gd_fail(err, "%s: out of memory writing samples", curve->label);
    }
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, GS_GZIP_WINDOW_BITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        gd_text_free(&t);
        return gd_fail(err, "%s: deflateInit2 failed", curve->label);
    }
    uLong bound = deflateBound(&z, (uLong)t.length) + 64;
    unsigned char *packed = malloc(bound);
    if (!packed) {
        deflateEnd(&z);
        gd_text_free(&t);
        return gd_fail(err, "%s: out of memory compressing samples", curve->label);
    }
    z.next_in = (Bytef *)(t.data ? t.data : "");
    z.avail_in = (uInt)t.length;
    z.next_out = packed;
    z.avail_out = (uInt)bound;
    int zrc = deflate(&z, Z_FINISH);
    size_t packed_bytes = (size_t)z.total_out;
    deflateEnd(&z);
    gd_text_free(&t);
    if (zrc != Z_STREAM_END) {
        free(packed);
        return gd_fail(err, "%s: deflate failed (%d)", curve->label, zrc);
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/%s%s", dir, curve->label, GD_SAMPLES_SUFFIX);
    int rc = gd_write_atomic(path, packed, packed_bytes, err);
    free(packed);
    return rc;
}

/* The whole (decompressed) file. */
static char *read_gz(const char *path, gd_err *err)
{
    gzFile f = gzopen(path, "rb");
    if (!f) {
        gd_fail(err, "%s: cannot open: %s", path, strerror(errno ? errno : ENOENT));
        return NULL;
    }
    size_t len = 0, cap = GS_READ_CHUNK;
    char *buf = malloc(cap + 1);
    int n;
    while (buf && (n = gzread(f, buf + len, (unsigned)(cap - len))) > 0) {
        len += (size_t)n;
        if (len == cap) {
            cap *= 2;
            char *b = realloc(buf, cap + 1);
            if (!b) {
                free(buf);
                buf = NULL;
            }
            buf = b;
        }
    }
    int bad = 0;
    gzerror(f, &bad);
    gzclose(f);
    if (!buf) {
        gd_fail(err, "%s: out of memory", path);
        return NULL;
    }
    if (bad != Z_OK && bad != Z_STREAM_END) {
        free(buf);
        gd_fail(err, "%s: not a readable gzip file", path);
        return NULL;
    }
    buf[len] = 0;
    return buf;
}

int gd_curve_read_samples(const char *path, gd_curve *curve, gd_err *err)
{
    char *text = read_gz(path, err);
    if (!text)
        return -1;
    int line_no = 0, rc = 0;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line && rc == 0;
         line = strtok_r(NULL, "\n", &save)) {
        line_no++;
        unsigned long long x;
        char name[32];
        size_t count;
        int used = 0;
        if (sscanf(line, "%llu,%31[^,],%zu%n", &x, name, &count, &used) != 3) {
            rc = gd_fail(err, "%s:%d: expected x,series,count,samples...", path, line_no);
            break;
        }
        gd_point *p = (gd_point *)gd_curve_find(curve, x);
        int s = p ? gd_point_series_index(p, name) : -1;
        if (s < 0)
            continue; /* a series the CSV does not hold: nothing to attach it to */
        if (count != p->series[s].summary.count && count != 0) {
            rc = gd_fail(err, "%s:%d: %zu samples for %llu/%s, the CSV says %zu", path, line_no, count,
                         x, name, p->series[s].summary.count);
            break;
        }
        double *v = count ? malloc(count * sizeof *v) : NULL;
        if (count && !v) {
            rc = gd_fail(err, "%s: out of memory", path);
            break;
        }
        char *cur = line + used;
        for (size_t k = 0; k < count; k++) {
            char *end = NULL;
            if (*cur != ',' || (v[k] = strtod(cur + 1, &end), end == cur + 1)) {
                free(v);
                v = NULL;
                rc = gd_fail(err, "%s:%d: sample %zu of %llu/%s is not a number", path, line_no,
                             k + 1, x, name);
                break;
            }
            cur = end;
        }
        if (rc == 0) {
            free(p->series[s].samples);
            p->series[s].samples = v;
        }
    }
    free(text);
    if (rc != 0)
        return -1;
    return 0;
}
