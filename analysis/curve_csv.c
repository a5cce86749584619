/* curve_csv.c -- a curve as results/RUN/LABEL.csv, written and read back.
 *
 * LABEL.csv holds one row per point and series: the sweep value, the series
 * name and its summary (min, median, mean, max, count, p05, p95, stddev), and
 * the point's effective SM clock (sm_clock_mhz, empty where not measured);
 * LABEL.counters.csv what the device counted per point.  Both are written
 * atomically, and the reader gives a one-line error naming the file and line
 * of anything it cannot take.  Writer and reader live together so that they
 * cannot drift apart.
 */
#include "analysis/curve.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/results.h"

/* Every number exactly: a whole value (a cycle count, an address such as
 * chain_base) as an integer, anything else with the 17 significant digits that
 * give back the same double on reading (%.6g rounded a 2^40-sized address by
 * kilobytes, and a standalone compare mis-modelled its alignment). */
#define GD_CSV_EXACT_INTEGER_LIMIT 9007199254740992.0 /* 2^53: every integer below is exact */

static void csv_number(gd_text *t, double v)
{
    if (isfinite(v) && v > -GD_CSV_EXACT_INTEGER_LIMIT && v < GD_CSV_EXACT_INTEGER_LIMIT && v == floor(v))
        gd_text_printf(t, ",%lld", (long long)v);
    else
        gd_text_printf(t, ",%.17g", v);
}

static int write_csv_files(const gd_curve *curve, const char *dir, int durable, gd_err *err)
{
    gd_text t;
    gd_text_init(&t);
    gd_text_printf(&t, "%s,series,min,median,mean,max,count,p05,p95,stddev,sm_clock_mhz\n",
                   curve->probe ? gd_probe_describe(curve->probe).sweep_name : "x");
    for (size_t i = 0; i < curve->count; i++) {
        const gd_point *p = &curve->points[i];
        /* the point's effective SM clock on every row of the point; empty
         * where the probe does not measure it */
        char clock[32] = "";
        if (isfinite(p->sm_clock_mhz) && p->sm_clock_mhz > 0)
            snprintf(clock, sizeof clock, "%.17g", p->sm_clock_mhz);
        for (unsigned s = 0; s < p->series_count; s++) {
            const gd_summary *m = &p->series[s].summary;
            gd_text_printf(&t, "%llu,%s", (unsigned long long)p->x, p->series[s].name);
            csv_number(&t, m->min);
            csv_number(&t, m->median);
            csv_number(&t, m->mean);
            csv_number(&t, m->max);
            gd_text_printf(&t, ",%zu", m->count);
            csv_number(&t, m->p05);
            csv_number(&t, m->p95);
            csv_number(&t, m->stddev);
            gd_text_printf(&t, ",%s\n", clock);
        }
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.csv", dir, curve->label);
    int rc = durable ? gd_text_write_atomic(&t, path, err) : gd_text_write_snapshot(&t, path, err);
    gd_text_free(&t);
    if (rc != 0)
        return rc;
    size_t counted = 0;
    gd_text_init(&t);
    gd_text_printf(&t, "%s,counter,value\n", curve->probe ? gd_probe_describe(curve->probe).sweep_name : "x");
    for (size_t i = 0; i < curve->count; i++) {
        const gd_point *p = &curve->points[i];
        counted += p->counters.count;
        for (size_t c = 0; c < p->counters.count; c++)
        {
            gd_text_printf(&t, "%llu,%s", (unsigned long long)p->x, p->counters.items[c].name);
            csv_number(&t, p->counters.items[c].value);
            gd_text_printf(&t, "\n");
        }
    }
    if (counted) {
        snprintf(path, sizeof path, "%s/%s.counters.csv", dir, curve->label);
        rc = durable ? gd_text_write_atomic(&t, path, err) : gd_text_write_snapshot(&t, path, err);
    }
    gd_text_free(&t);
    return rc;
}

int gd_curve_write_csv(const gd_curve *curve, const char *dir, gd_err *err)
{
    return write_csv_files(curve, dir, 1, err);
}

int gd_curve_write_csv_snapshot(const gd_curve *curve, const char *dir, gd_err *err)
{
    return write_csv_files(curve, dir, 0, err);
}

static int point_add_series(gd_point *p, const char *name, const gd_summary *s)
{
    if (p->series_count == GD_PROBE_MAX_SERIES)
        return -1;
    gd_point_series *ps = &p->series[p->series_count++];
    memset(ps, 0, sizeof *ps);
    snprintf(ps->name, sizeof ps->name, "%s", name);
    ps->summary = *s;
    return 0;
}

/* Cuts `text` at its first control character (the newline fgets kept) and at
 * `max` bytes, so that an error quoting it stays on one line. */
static void printable_prefix(char *text, size_t max)
{
    size_t i = 0;
    while (i < max && text[i] && (unsigned char)text[i] >= 0x20 && text[i] != 0x7f)
        i++;
    text[i] = 0;
}

int gd_curve_read_csv(const char *path, const char *label, const gd_probe *probe, gd_curve *out,
                      gd_err *err)
{
    gd_curve_init(out, label, probe, NULL);
    FILE *f = fopen(path, "r");
    if (!f)
        return gd_fail(err, "%s: cannot open: %s", path, strerror(errno));
    char line[1024];
    int lineno = 0, rc = -1;
    if (!fgets(line, sizeof line, f)) {
        gd_fail(err, "%s: empty file", path);
        goto out;
    }
    lineno = 1;
    if (!strstr(line, ",series,min,median,mean,max,count")) {
        printable_prefix(line, 60);
        gd_fail(err, "%s:1: not a gpudissect curve (header '%s')", path, line);
        goto out;
    }
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && (uint64_t)st.st_size >= GD_READ_FILE_MAX_BYTES) {
        gd_fail(err, "%s: larger than %u MiB, not a curve gpudissect wrote", path,
                (unsigned)(GD_READ_FILE_MAX_BYTES >> 20));
        goto out;
    }
    while (fgets(line, sizeof line, f)) {
        lineno++;
        unsigned long long x;
        char series[32];
        gd_summary s;
        memset(&s, 0, sizeof s);
        double clock_mhz = NAN; /* the sm_clock_mhz column: empty where not measured */
        int got = sscanf(line, "%llu,%31[^,],%lf,%lf,%lf,%lf,%zu,%lf,%lf,%lf,%lf", &x, series,
                         &s.min, &s.median, &s.mean, &s.max, &s.count, &s.p05, &s.p95, &s.stddev,
                         &clock_mhz);
        if (got < 7 || line[0] == '-' || line[0] == '+' || !isfinite(s.min) ||
            !isfinite(s.median) || !isfinite(s.mean) || !isfinite(s.max) ||
            (got >= 10 && (!isfinite(s.p05) || !isfinite(s.p95) || !isfinite(s.stddev))) ||
            (got == 11 && !(clock_mhz > 0 && clock_mhz < 1e6)) || (!strchr(line, '\n') && !feof(f))) {
            gd_fail(err, "%s:%d: malformed row (x,series,min,median,mean,max,count[,p05,p95,"
                         "stddev,sm_clock_mhz]: numbers, finite, x not negative; at most %zu bytes)",
                    path, lineno, sizeof line - 2);
            goto out;
        }
        /* rows come in x order (checked below): the point is the last one or new */
        gd_point *p = NULL;
        if (out->count && out->points[out->count - 1].x == x)
            p = &out->points[out->count - 1];
        if (!p) {
            if (out->count == out->capacity) {
                size_t nc = out->capacity ? out->capacity * 2 : 32;
                gd_point *np = realloc(out->points, nc * sizeof *np);
                if (!np) {
                    gd_fail(err, "out of memory");
                    goto out;
                }
                out->points = np;
                out->capacity = nc;
            }
            if (out->count && out->points[out->count - 1].x > x) {
                gd_fail(err, "%s:%d: x values out of order", path, lineno);
                goto out;
            }
            p = &out->points[out->count++];
            memset(p, 0, sizeof *p);
            p->x = x;
            p->sm_clock_mhz = NAN;
        }
        if (got == 11)
            p->sm_clock_mhz = clock_mhz;
        if (point_add_series(p, series, &s) != 0) {
            gd_fail(err, "%s:%d: too many series at one point", path, lineno);
            goto out;
        }
    }
    rc = 0;
out:
    fclose(f);
    if (rc != 0)
        gd_curve_free(out);
    return rc;
}
