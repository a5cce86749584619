/* compare_l1.h -- the L1 load path and shared memory held against an arch
 * (compare_l1.c). */
#ifndef GD_COMPARE_L1_H
#define GD_COMPARE_L1_H

#include <jansson.h>

#include "analysis/arch.h"
#include "analysis/compare_rows.h"
#include "analysis/run_load.h"

/* Ways, replacement, MSHRs, merge limit, head-of-line blocking, sectors per
 * line, banks: a row for each the run's probes measured. */
void gd_compare_l1_path(json_t *params, gd_compare_counts *c, const gd_arch *arch,
                        const gd_run *run);

#endif
