/* stats.c -- summary statistics: min, quantiles, mean, max, deviation.
 *
 * Medians and percentiles are the robust figures a noisy timer calls for; the
 * mean is kept because the analytical model predicts means (a set-associative
 * level partly thrashing gives a mix of hits and misses whose median may sit on
 * either plateau, while the mean moves smoothly).
 */
#include "analysis/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void gd_sort_doubles(double *values, size_t count)
{
    qsort(values, count, sizeof *values, cmp_double);
}

double gd_quantile_sorted(const double *sorted, size_t count, double q)
{
    if (!count)
        return NAN;
    if (q <= 0)
        return sorted[0];
    if (q >= 1)
        return sorted[count - 1];
    double pos = q * (double)(count - 1);
    size_t i = (size_t)pos;
    double frac = pos - (double)i;
    if (i + 1 >= count)
        return sorted[count - 1];
    return sorted[i] + (sorted[i + 1] - sorted[i]) * frac;
}

double gd_median(const double *values, size_t count)
{
    if (!count)
        return NAN;
    double *copy = malloc(count * sizeof *copy);
    if (!copy)
        return NAN;
    memcpy(copy, values, count * sizeof *copy);
    gd_sort_doubles(copy, count);
    double m = gd_quantile_sorted(copy, count, 0.5);
    free(copy);
    return m;
}

int gd_summarize(const double *samples, size_t count, gd_summary *out)
{
    memset(out, 0, sizeof *out);
    out->count = count;
    if (!count) {
        out->min = out->median = out->mean = out->max = out->p05 = out->p95 = out->stddev = NAN;
        return 0;
    }
    double *sorted = malloc(count * sizeof *sorted);
    if (!sorted)
        return -1;
    memcpy(sorted, samples, count * sizeof *sorted);
    gd_sort_doubles(sorted, count);
    double sum = 0;
    for (size_t i = 0; i < count; i++)
        sum += sorted[i];
    double mean = sum / (double)count, ss = 0;
    for (size_t i = 0; i < count; i++)
        ss += (sorted[i] - mean) * (sorted[i] - mean);
    out->min = sorted[0];
    out->max = sorted[count - 1];
    out->mean = mean;
    out->median = gd_quantile_sorted(sorted, count, 0.5);
    out->p05 = gd_quantile_sorted(sorted, count, 0.05);
    out->p95 = gd_quantile_sorted(sorted, count, 0.95);
    out->stddev = count > 1 ? sqrt(ss / (double)(count - 1)) : 0;
    free(sorted);
    return 0;
}
