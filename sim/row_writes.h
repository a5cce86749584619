/* row_writes.h -- how many writes each main-memory row receives: the counter
 * behind seed 003's Figure 2 (writes per 1 KiB row, sorted), kept by the
 * main-memory model for every write that reaches it (before any write buffer,
 * so the figure shows the workload's skew, not the buffer's effect).
 *
 * An open-addressing table of row -> count that doubles at half load: O(1) per
 * write, memory proportional to the rows written.
 */
#ifndef GD_SIM_ROW_WRITES_H
#define GD_SIM_ROW_WRITES_H

#include <stdint.h>

#include "host/device.h"

typedef struct sim_row_writes {
    uint64_t *key;    /* row + 1; 0 = empty slot */
    uint64_t *count;
    uint64_t cap, used;
    uint64_t total;   /* writes counted */
} sim_row_writes;

void sim_row_writes_init(sim_row_writes *rw);
void sim_row_writes_free(sim_row_writes *rw);
int sim_row_writes_add(sim_row_writes *rw, uint64_t row, gd_err *err);
uint64_t sim_row_writes_get(const sim_row_writes *rw, uint64_t row);

/* The per-row counts in ascending order (the paper's x axis), malloc'ed into
 * *counts (NULL when no row was written); *n = rows written. */
int sim_row_writes_sorted(const sim_row_writes *rw, uint64_t **counts, uint64_t *n, gd_err *err);

#endif
