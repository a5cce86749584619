/* model_below_l1.h -- what the analytical model adds below the L1 (issue 12):
 * TLB misses and DRAM row switches (model_below_l1.c). */
#ifndef GD_MODEL_BELOW_L1_H
#define GD_MODEL_BELOW_L1_H

#include <stdint.h>

#include "analysis/arch.h"
#include "kernels/probe_layout.h"

/* The expected extra cycles, summed over the recorded accesses of one lap of a
 * chain of n elements `stride` apart from `base`, visited in `order`:
 * below_l1[e] is the chance element e's access passes the L1 (reaches the
 * TLBs), to_dram[e] the chance it reaches DRAM.  0 extra on an arch without
 * TLBs and DRAM channels. */
/* random_hit_rate: model.c's gd_model_random_hit_rate, handed in so that this
 * file, which model.c calls, does not call back into it. */
typedef double (*gd_random_hit_rate_fn)(uint64_t lines, uint32_t ways);
int gd_model_below_l1(const gd_arch *arch, uint64_t n, const uint32_t *order, uint64_t base,
                      uint64_t stride, const double *below_l1, const double *to_dram,
                      gd_random_hit_rate_fn random_hit_rate, double *extra_sum, gd_err *err);

#endif
