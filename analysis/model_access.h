/* model_access.h -- what an arch says the smem_bank and coalesce probes should
 * measure (model_access.c): bank conflicts, requests per warp load, and the
 * expected curves of both probes.  The probes' layouts (the array lane offsets
 * wrap at, the default lane stride) are in kernels/probe_layout.h. */
#ifndef GD_MODEL_ACCESS_H
#define GD_MODEL_ACCESS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/arch.h"
#include "analysis/model_point.h"
#include "kernels/probe_layout.h"

/* Passes of one warp access to shared memory (sim/smem.c's rule): lane i of 32
 * reads `access_bytes` at (i * lane_stride) mod GD_SMEM_BANK_ARRAY_BYTES; n
 * distinct words of one bank take n passes, lanes on the same word share one
 * read.  0 for a malformed organisation. */
uint32_t gd_smem_conflict_ways(uint32_t banks, uint32_t width_bytes, uint32_t access_bytes,
                               uint64_t lane_stride);

/* L1 requests of one warp load: the distinct `line_bytes` lines that lanes
 * 0..lanes-1 touch with 4-byte loads `lane_stride` apart from a line boundary. */
uint32_t gd_coalesce_requests(uint64_t line_bytes, uint64_t lane_stride, uint32_t lanes);

/* The expected curves.  smem_bank: the [SMEM] latency plus one cycle per
 * further pass (the simulator's replay), per lane stride (the variant gives the
 * access size).  coalesce: requests per instruction (its primary series) from
 * the stride, the active lanes and the [L1D] line. */
int gd_model_access_curve(const gd_arch *arch, const char *probe, const gd_probe_opts *opts,
                          const uint64_t *xs, size_t count, gd_model_point *out, gd_err *err);

#endif
