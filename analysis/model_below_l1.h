/* model_below_l1.h -- what the analytical model adds below the L1 (issue 12):
 * TLB misses, DRAM row switches and the page-close timeout
 * (model_below_l1.c). */
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

/* The dram_row probe (kernels/dram_row.c): what a load right after another
 * one d bytes before it costs, both L2 misses, after an eviction pass of
 * `flush_bytes` read in order.  *hit: B in A's row, the [DRAM] latency (a row
 * hit on an idle channel); *switch_cycles: B in a bank with another row open,
 * + tRP + tRCD -- or only tRCD where the eviction pass left banks closed
 * (it opens every bank when it reads channels x banks x row bytes; else the
 * closed share is weighed in); PCM adds its activation's extra cycles;
 * *span: the distance from which B leaves A's row (A interleave-aligned):
 * the interleave or the row, the smaller (one channel: the row).  An arch without [DRAM] channels:
 * *row_effect 0, both the [DRAM] latency, span 0.
 * With [DRAM] row_timeout a bank idle that long is closed, so both depend on
 * how long ago the pairs last touched B's bank: the pairs are walked bank by
 * bank (model_below_l1.c: row_walk) at the shortest distance in A's row and at
 * `switch_distance_bytes` (the distance the switch was read at; 0: the span),
 * and each is the [DRAM] latency plus the median of what B pays over the
 * pairs -- a hit under a timeout longer than a round trip, closed (+ tRCD) or
 * a conflict for the switch; *row_effect 0 (span 0) where the two differ by
 * less than the inference's step (analysis/infer_dram.h). */
void gd_model_dram_row(const gd_arch *arch, uint64_t flush_bytes, uint64_t switch_distance_bytes,
                       int *row_effect, double *hit, double *switch_cycles, uint64_t *span);

/* The dram_row probe's idle variant: A, a gap, then B in A's row.  With
 * [DRAM] row_timeout (and channels): *has_timeout 1; the bank's idle time
 * from which B finds it closed, *timeout_cycles = max(row_timeout, tRAS -
 * tRCD) -- sim/dram.c precharges an idle bank row_timeout after its last
 * column command but not before its activate + tRAS, and A's column command
 * is tRCD (PCM: + its activation's extra cycles) after its activate; *hit the
 * [DRAM] latency below it, *miss_cycles latency + tRCD (+ PCM's extra) above.
 * Without: *has_timeout 0 (the curve is flat at *hit), the others NAN. */
void gd_model_dram_idle(const gd_arch *arch, int *has_timeout, double *timeout_cycles,
                        double *hit, double *miss_cycles);

#endif
