/* stats.h -- statistics of sample sets: summaries of one sweep point of a
 * probe, order statistics that work in place on scratch memory, and exact
 * binomial tails (for "does this point miss more often than its plateau?"). */
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

/* The k-th smallest (0-based, k < n) of v[0..n), by quickselect; reorders v
 * so that every value after index k is >= the result.  O(n) expected, also
 * when many values are equal. */
double gd_select_kth(double *v, size_t n, size_t k);

/* Median of v[0..n), n > 0, reordering v: the middle value, or the mean of the
 * two middle values for even n (the median gd_quantile_sorted gives). */
double gd_median_in_place(double *v, size_t n);

/* Robust standard deviation: 1.4826 * the median absolute deviation of
 * v[0..n) about `center` (usually their median), n > 0.  Overwrites v with the
 * absolute deviations. */
double gd_robust_sd_in_place(double *v, size_t n, double center);

/* P(X >= k) for X ~ binomial(n, p), summed exactly (no normal approximation). */
double gd_binomial_upper_tail(size_t k, size_t n, double p);

/* P(X <= k) for X ~ binomial(n, p), summed exactly. */
double gd_binomial_lower_tail(size_t k, size_t n, double p);

#endif
