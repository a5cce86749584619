/* write_skew.h -- how unevenly a workload's writes fall on main-memory rows,
 * in the terms seed 003 uses for its Figure 2: "about 3% of the rows take more
 * than 30% of the writes" (k-means), "2.6% of the rows take 66.8% of the
 * writes, about 93% of rows see fewer than 20 writes, the most written row
 * more than 1000" (LIBOR).
 *
 * Input: the per-row write counts in ascending order (the figure's x axis, as
 * sim/row_writes.c sorts them, or as read back from a results CSV).
 */
#ifndef GD_ANALYSIS_WRITE_SKEW_H
#define GD_ANALYSIS_WRITE_SKEW_H

#include <stddef.h>
#include <stdint.h>

typedef struct gd_write_skew {
    uint64_t rows;          /* rows written at least once */
    uint64_t writes;        /* all writes */
    uint64_t max_writes;    /* the most written row's count */
    double median_writes;
} gd_write_skew;

void gd_write_skew_summary(const uint64_t *asc, size_t n, gd_write_skew *out);

/* The share of all writes (0..1) that the most written `row_fraction` of the
 * rows take (row_fraction in 0..1; the row count is rounded up). */
double gd_write_skew_top_share(const uint64_t *asc, size_t n, double row_fraction);

/* The smallest fraction of rows (0..1) that together take at least
 * `write_share` of the writes, the hottest rows first. */
double gd_write_skew_rows_for_share(const uint64_t *asc, size_t n, double write_share);

/* The fraction of rows (0..1) written fewer than `below` times. */
double gd_write_skew_rows_below(const uint64_t *asc, size_t n, uint64_t below);

#endif
