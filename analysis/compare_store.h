/* compare_store.h -- compare.json rows of the store path (issue 12). */
#ifndef GD_COMPARE_STORE_H
#define GD_COMPARE_STORE_H

#include "analysis/compare_rows.h"

/* L1D write_allocate / write_policy, L2 write_allocate / write_granule_bytes /
 * partial_write, where the run has a store verdict. */
void gd_compare_store(json_t *params, gd_compare_counts *c, const gd_arch *arch, const gd_run *run);

#endif
