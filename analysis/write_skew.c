/* write_skew.c -- the skew figures of seed 003's Figure 2 from sorted per-row
 * write counts (see write_skew.h). */
#include "analysis/write_skew.h"

#include <math.h>

static uint64_t sum(const uint64_t *asc, size_t n)
{
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += asc[i];
    return s;
}

void gd_write_skew_summary(const uint64_t *asc, size_t n, gd_write_skew *out)
{
    out->rows = n;
    out->writes = sum(asc, n);
    out->max_writes = n ? asc[n - 1] : 0;
    if (!n)
        out->median_writes = 0;
    else if (n % 2)
        out->median_writes = (double)asc[n / 2];
    else
        out->median_writes = ((double)asc[n / 2 - 1] + (double)asc[n / 2]) / 2;
}

double gd_write_skew_top_share(const uint64_t *asc, size_t n, double row_fraction)
{
    uint64_t total = sum(asc, n);
    if (!n || !total || !(row_fraction > 0))
        return 0;
    if (row_fraction > 1)
        row_fraction = 1;
    size_t k = (size_t)ceil(row_fraction * (double)n);
    if (k > n)
        k = n;
    uint64_t top = 0;
    for (size_t i = n - k; i < n; i++)
        top += asc[i];
    return (double)top / (double)total;
}

double gd_write_skew_rows_for_share(const uint64_t *asc, size_t n, double write_share)
{
    uint64_t total = sum(asc, n);
    if (!n || !total || !(write_share > 0))
        return 0;
    double need = write_share * (double)total;
    uint64_t acc = 0;
    for (size_t k = 1; k <= n; k++) {
        acc += asc[n - k];
        if ((double)acc >= need)
            return (double)k / (double)n;
    }
    return 1;
}

double gd_write_skew_rows_below(const uint64_t *asc, size_t n, uint64_t below)
{
    if (!n)
        return 0;
    size_t k = 0;
    while (k < n && asc[k] < below)
        k++;
    return (double)k / (double)n;
}
