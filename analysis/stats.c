/* stats.c -- summary statistics, order statistics and binomial tails.
 *
 * Medians and percentiles are the robust figures a noisy timer calls for; the
 * mean is kept because the analytical model predicts means (a set-associative
 * level partly thrashing gives a mix of hits and misses whose median may sit on
 * either plateau, while the mean moves smoothly).
 *
 * Two ways to a median.  gd_median() and gd_summarize() sort a copy: simple,
 * and a summary wants several quantiles of the same sorted set anyway.  The
 * plateau detector takes medians and MADs of every point and of pooled runs of
 * points, millions of samples per curve, in scratch it owns: for that,
 * gd_median_in_place() selects in place (quickselect, O(n) expected), with the
 * same definition as gd_quantile_sorted(sorted, n, 0.5): the middle value, or
 * the mean of the two middle values for even n.
 *
 * The binomial tails are exact sums of the probability mass function, started
 * from lgamma at the tail's near end and stepped outward by the ratio of
 * successive terms until they stop adding; the tail that holds the mean is
 * taken as 1 minus the other, so a sum always runs over terms that shrink.  No
 * normal approximation: the plateau detector asks about a handful of misses
 * among 64 samples as often as about thousands.
 */
#include "analysis/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* MAD -> standard deviation for normally distributed data. */
#define GD_MAD_TO_SD 1.4826
/* Binomial tail sums stop when a term adds less than this relative amount. */
#define GD_TAIL_EPSILON 1e-17

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void swap_doubles(double *v, size_t a, size_t b)
{
    double t = v[a];
    v[a] = v[b];
    v[b] = t;
}

static double median_of_three(double a, double b, double c)
{
    return fmax(fmin(a, b), fmin(fmax(a, b), c));
}

/* Three-way partition of v[lo..hi) around pivot: [lo, *lt) below it,
 * [*lt, *gt) equal, [*gt, hi) above (runs of equal values cost one pass). */
static void partition3(double *v, size_t lo, size_t hi, double pivot, size_t *lt, size_t *gt)
{
    size_t l = lo, i = lo, g = hi;
    while (i < g) {
        if (v[i] < pivot)
            swap_doubles(v, l++, i++);
        else if (v[i] > pivot)
            swap_doubles(v, i, --g);
        else
            i++;
    }
    *lt = l;
    *gt = g;
}

/* Three-way quicksort on doubles, compared inline (qsort's call per
 * comparison was a few percent of a simulated sweep: each point sorts its
 * samples); runs of equal values (an integer timer) cost one pass.  Past a
 * depth of 2 log2(n) the rest goes to qsort, so no input is quadratic. */
#define SORT_INSERTION_BELOW 16

static void sort_doubles_from(double *v, size_t n, unsigned depth)
{
    while (n > SORT_INSERTION_BELOW) {
        if (!depth--) {
            qsort(v, n, sizeof *v, cmp_double);
            return;
        }
        size_t lt, gt;
        partition3(v, 0, n, median_of_three(v[0], v[n / 2], v[n - 1]), &lt, &gt);
        /* the smaller side by recursion, the larger by the loop */
        if (lt < n - gt) {
            sort_doubles_from(v, lt, depth);
            v += gt;
            n -= gt;
        } else {
            sort_doubles_from(v + gt, n - gt, depth);
            n = lt;
        }
    }
    for (size_t i = 1; i < n; i++) {
        double x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1] > x; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

void gd_sort_doubles(double *values, size_t count)
{
    unsigned depth = 0;
    for (size_t k = count; k > 1; k >>= 1)
        depth += 2;
    for (size_t i = 0; i < count; i++)
        if (isnan(values[i])) { /* unordered: qsort's order, as before */
            qsort(values, count, sizeof *values, cmp_double);
            return;
        }
    sort_doubles_from(values, count, depth);
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

/* ---- order statistics ------------------------------------------------------ */

/* k-th smallest (0-based) of v[0..n), reordering v so that everything after
 * index k is >= it.  The three-way partition keeps runs of equal values (a
 * noiseless curve, an integer timer) linear instead of quadratic. */
double gd_select_kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n;
    while (hi - lo > 1) {
        double pivot = median_of_three(v[lo], v[lo + (hi - lo) / 2], v[hi - 1]);
        size_t lt, gt;
        partition3(v, lo, hi, pivot, &lt, &gt);
        if (k < lt)
            hi = lt;
        else if (k >= gt)
            lo = gt;
        else
            return pivot;
    }
    return v[lo];
}

/* Median of v[0..n), n > 0, reordering v; the mean of the two middle values
 * for even n (as gd_quantile_sorted(..., 0.5) gives). */
double gd_median_in_place(double *v, size_t n)
{
    size_t k = (n - 1) / 2;
    double lower = gd_select_kth(v, n, k);
    if (n % 2)
        return lower;
    double upper = v[k + 1];
    for (size_t j = k + 2; j < n; j++)
        if (v[j] < upper)
            upper = v[j];
    return 0.5 * (lower + upper);
}

/* 1.4826 * MAD of v[0..n) about center, overwriting v. */
double gd_robust_sd_in_place(double *v, size_t n, double center)
{
    for (size_t j = 0; j < n; j++)
        v[j] = fabs(v[j] - center);
    return GD_MAD_TO_SD * gd_median_in_place(v, n);
}

/* ---- binomial tails --------------------------------------------------------- */

/* Sum of binomial(n, p) probabilities from k away from the mean (upward when
 * up, else downward); the terms shrink monotonically in that direction. */
static double binomial_tail_from(size_t k, size_t n, double p, int up)
{
    double log_term = lgamma((double)n + 1) - lgamma((double)k + 1) - lgamma((double)(n - k) + 1) +
                      (double)k * log(p) + (double)(n - k) * log1p(-p);
    double term = exp(log_term), odds = p / (1 - p), sum = 0;
    for (size_t j = k;;) {
        sum += term;
        if (!(term > sum * GD_TAIL_EPSILON))
            break;
        if (up) {
            if (j == n)
                break;
            term *= (double)(n - j) / (double)(j + 1) * odds;
            j++;
        } else {
            if (j == 0)
                break;
            term *= (double)j / (double)(n - j + 1) / odds;
            j--;
        }
    }
    return sum < 1 ? sum : 1;
}

/* P(X >= k) for X ~ binomial(n, p). */
double gd_binomial_upper_tail(size_t k, size_t n, double p)
{
    if (k == 0 || p >= 1)
        return 1;
    if (k > n || p <= 0)
        return 0;
    if ((double)k <= p * (double)n)
        return 1 - gd_binomial_lower_tail(k - 1, n, p);
    return binomial_tail_from(k, n, p, 1);
}

/* P(X <= k) for X ~ binomial(n, p). */
double gd_binomial_lower_tail(size_t k, size_t n, double p)
{
    if (k >= n || p <= 0)
        return 1;
    if (p >= 1)
        return 0;
    if ((double)k >= p * (double)n)
        return 1 - gd_binomial_upper_tail(k + 1, n, p);
    return binomial_tail_from(k, n, p, 0);
}
