/* curve.c -- the measured curve: points, their series and summaries.
 *
 * A curve is what the analysis reads: the runner (host/runner.c) produces it
 * point by point, a results directory gives it back (analysis/curve_csv.c), and
 * segmentation, inference, the model comparison and the plots consume it.  It
 * lives here, beside that code, so that the analysis never includes a header of
 * the harness.
 */
#include "analysis/curve.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"

/* The smallest noise assumed for a CPI curve's point medians: half a timer
 * cycle over a pass of the shortest sequence (1 KiB of code, 64 instructions)
 * is under a hundredth of a cycle per instruction. */
#define GD_CPI_NOISE_FLOOR 0.01

void gd_curve_init(gd_curve *curve, const char *label, const gd_probe *probe,
                   const gd_probe_opts *opts)
{
    memset(curve, 0, sizeof *curve);
    snprintf(curve->label, sizeof curve->label, "%s", label);
    curve->probe = probe;
    if (opts)
        curve->opts = *opts;
}

void gd_point_free(gd_point *p)
{
    for (unsigned i = 0; i < p->series_count; i++)
        free(p->series[i].samples);
    p->series_count = 0;
    gd_counter_list_free(&p->counters);
}

void gd_curve_free(gd_curve *curve)
{
    for (size_t i = 0; i < curve->count; i++)
        gd_point_free(&curve->points[i]);
    free(curve->points);
    curve->points = NULL;
    curve->count = curve->capacity = 0;
}

const gd_point *gd_curve_find(const gd_curve *curve, uint64_t x)
{
    for (size_t i = 0; i < curve->count; i++)
        if (curve->points[i].x == x)
            return &curve->points[i];
    return NULL;
}

int gd_point_series_index(const gd_point *point, const char *name)
{
    for (unsigned i = 0; i < point->series_count; i++)
        if (strcmp(point->series[i].name, name) == 0)
            return (int)i;
    return -1;
}

int gd_curve_insert(gd_curve *curve, gd_point *point)
{
    size_t i = 0;
    while (i < curve->count && curve->points[i].x < point->x)
        i++;
    if (i < curve->count && curve->points[i].x == point->x) {
        gd_point_free(&curve->points[i]);
        curve->points[i] = *point;
        return 0;
    }
    if (curve->count == curve->capacity) {
        size_t nc = curve->capacity ? curve->capacity * 2 : 32;
        gd_point *np = realloc(curve->points, nc * sizeof *np);
        if (!np)
            return -1;
        curve->points = np;
        curve->capacity = nc;
    }
    memmove(&curve->points[i + 1], &curve->points[i], (curve->count - i) * sizeof *curve->points);
    curve->points[i] = *point;
    curve->count++;
    return 0;
}

const gd_summary *gd_point_summary(const gd_point *p, const char *series)
{
    int s = gd_point_series_index(p, series);
    return s < 0 ? NULL : &p->series[s].summary;
}

size_t gd_curve_mean_rise(const gd_curve *curve, const char *series,
                          const gd_segmentation *seg, double *base)
{
    return gd_curve_mean_rise_from(curve, series, &seg->plateaus[0], seg->knees[0].below, base);
}

int gd_curve_leaves_first_plateau(const gd_curve *curve, const char *series,
                                  const gd_segmentation *seg, size_t *below)
{
    if (seg->knee_count || !seg->plateau_count)
        return 0;
    const gd_plateau *p0 = &seg->plateaus[0];
    if (p0->last + 1 >= curve->count || !(p0->level > 0))
        return 0;
    for (size_t i = p0->last + 1; i < curve->count; i++) {
        const gd_summary *s = gd_point_summary(&curve->points[i], series);
        if (!s || !s->count || !(s->median >= p0->level * (1 + GD_LEAVES_BY)))
            return 0;
    }
    *below = p0->last;
    return 1;
}

size_t gd_curve_mean_rise_from(const gd_curve *curve, const char *series, const gd_plateau *p0,
                               size_t at, double *base)
{
    double means[64];
    size_t nm = 0;
    for (size_t i = p0->first; i <= p0->last && i < at && nm < 64; i++) {
        const gd_summary *m = gd_point_summary(&curve->points[i], series);
        if (m && m->count)
            means[nm++] = m->mean;
    }
    *base = nm ? gd_median(means, nm) : NAN;
    while (!isnan(*base) && at > p0->first) {
        const gd_summary *m = gd_point_summary(&curve->points[at], series);
        if (!m || m->count < 2)
            break;
        double se = m->stddev / sqrt((double)m->count);
        if (m->mean - *base <= fmax(GD_MEAN_RISE_SE * se, 1.0))
            break;
        at--;
    }
    return at;
}

int gd_curve_segment(const gd_curve *curve, const char *series, gd_segmentation *seg,
                     gd_err *err)
{
    size_t n = curve->count;
    memset(seg, 0, sizeof *seg);
    if (n == 0)
        return gd_fail(err, "%s: no points to analyse", curve->label);
    double *x = malloc(n * sizeof *x);
    const double **samples = malloc(n * sizeof *samples);
    size_t *counts = malloc(n * sizeof *counts);
    int rc = -1;
    if (!x || !samples || !counts) {
        gd_fail(err, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        const gd_point *p = &curve->points[i];
        int s = gd_point_series_index(p, series);
        if (s < 0) {
            gd_fail(err, "%s: point %llu has no '%s' series", curve->label,
                    (unsigned long long)p->x, series);
            goto out;
        }
        x[i] = (double)p->x;
        samples[i] = p->series[s].samples;
        counts[i] = p->series[s].summary.count;
    }
    /* a sample that is a pass's mean is off its plateau as a whole or not at
     * all: a knee needs a quarter of them off, not the 2% of single accesses */
    gd_plateau_opts opts = {0};
    if (gd_probe_describe(curve->probe).aggregate_samples)
        opts.min_excess = 0.25;
    /* a curve in cycles per instruction: half a timer cycle over a pass is a
     * hundredth of a CPI, not half a CPI (steps under 1.5 CPI were merged) */
    const char *unit = gd_probe_describe(curve->probe).value_unit;
    if (unit && !strcmp(unit, "cycles per instruction"))
        opts.noise_floor = GD_CPI_NOISE_FLOOR;
    rc = gd_detect_plateaus(x, samples, counts, n, &opts, seg, err);
    if (rc != 0)
        gd_fail_prefix(err, "%s", curve->label);
out:
    free(x);
    free(samples);
    free(counts);
    return rc;
}

void gd_format_bytes(uint64_t bytes, char *buf, size_t size)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    if (v == floor(v))
        snprintf(buf, size, "%.0f%s", v, units[u]);
    else if (v * 1000 == floor(v * 1000))
        snprintf(buf, size, "%.4g%s", v, units[u]);
    else
        snprintf(buf, size, "%.7g%s", v, units[u]); /* 4.00003MiB, not 4MiB */
}

void gd_format_sweep_value(const gd_probe *probe, uint64_t x, char *buf, size_t size)
{
    const char *sweep = gd_probe_describe(probe).sweep_name;
    size_t n = strlen(sweep);
    if (n >= 6 && !strcmp(sweep + n - 6, "_bytes"))
        gd_format_bytes(x, buf, size);
    else
        snprintf(buf, size, "%llu", (unsigned long long)x);
}
