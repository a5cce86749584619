/* stats.h -- summary statistics of a sample set (one sweep point of a probe). */
#ifndef GD_STATS_H
#define GD_STATS_H

#include <stddef.h>

typedef struct gd_summary {
    double min, median, mean, max;
    double p05, p95;          /* 5th and 95th percentiles */
    double stddev;
    size_t count;
} gd_summary;

/* Summarizes `count` samples (count may be 0: everything NaN, count 0).
 * Returns -1 only when out of memory. */
int gd_summarize(const double *samples, size_t count, gd_summary *out);

/* Median of a copy of the values (NaN for none). */
double gd_median(const double *values, size_t count);

/* Quantile q in [0,1] of sorted values, linear interpolation. */
double gd_quantile_sorted(const double *sorted, size_t count, double q);

void gd_sort_doubles(double *values, size_t count);

#endif
