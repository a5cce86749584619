/* compare_below_l1.h -- compare.json rows of the levels below the L1 (issue 12). */
#ifndef GD_COMPARE_BELOW_L1_H
#define GD_COMPARE_BELOW_L1_H

#include "analysis/compare_rows.h"

/* L2FAR.latency_cycles (an arch with partitions), TLB1/TLB2 latency, the L1
 * TLB's page (TLB1.sector_bytes); the TLB coverages are compare.c's. */
void gd_compare_below_l1(json_t *params, gd_compare_counts *c, const gd_arch *arch,
                         const gd_run *run);

#endif
