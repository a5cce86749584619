/* compare_carveout.h -- the L1D per carve-out against the arch (compare_carveout.c). */
#ifndef GD_COMPARE_CARVEOUT_H
#define GD_COMPARE_CARVEOUT_H

#include "analysis/compare_rows.h"

/* For every row of inferred.json's "l1d_by_carveout" in the run, a parameter
 * "size_bytes at carveout P%" of level L1D: measured against the model -- the
 * L1D the arch's driver rule leaves a kernel without shared memory at that
 * preference (gd_arch_carveout) -- within one L1D line.  Nothing when the run
 * has no such rows. */
void gd_compare_carveout(json_t *params, gd_compare_counts *c, const gd_arch *arch,
                         const gd_run *run);

#endif
