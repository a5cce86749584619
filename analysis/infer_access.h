/* infer_access.h -- shared-memory banks and coalescing: what the smem_bank and
 * coalesce probes (kernels/smem_bank.c, kernels/coalesce.c) say about a GPU,
 * and what an arch file says they should measure.
 *
 * Both inferences fit the curve each candidate organisation predicts to the
 * measured one and keep the best; the confidence is how much better it fits
 * than the best candidate that predicts a different curve, divided among the
 * candidates the sweep cannot tell apart.
 */
#ifndef GD_INFER_ACCESS_H
#define GD_INFER_ACCESS_H

#include <stdint.h>

#include "analysis/infer.h"
#include "analysis/model.h"

/* Must match the probes: the shared array lane offsets wrap at
 * (kernels/smem_bank.c SMEM_ARRAY_BYTES), and the lane stride of coalesce's
 * "lanes" variant without --stride (CO_DEFAULT_LANE_STRIDE). */
#define GD_SMEM_BANK_ARRAY_BYTES 16384u
#define GD_COALESCE_DEFAULT_LANE_STRIDE 128u

/* Passes of one warp access to shared memory (sim/smem.c's rule): lane i of 32
 * reads `access_bytes` at (i * lane_stride) mod GD_SMEM_BANK_ARRAY_BYTES; n
 * distinct words of one bank take n passes, lanes on the same word share one
 * read.  0 for a malformed organisation. */
uint32_t gd_smem_conflict_ways(uint32_t banks, uint32_t width_bytes, uint32_t access_bytes,
                               uint64_t lane_stride);

/* L1 requests of one warp load: the distinct `line_bytes` lines that lanes
 * 0..lanes-1 touch with 4-byte loads `lane_stride` apart from a line boundary. */
uint32_t gd_coalesce_requests(uint64_t line_bytes, uint64_t lane_stride, uint32_t lanes);

/* smem_bank -> level[GD_INF_SMEM]: latency (of a conflict-free access),
 * banks, bank_width_bytes, conflict_cycles (per further way of a conflict),
 * same_word_broadcast (every lane on one word costs as a conflict-free access;
 * from the x = 0 point when the sweep has one, else the "same_word_cycles"
 * series), banks_confidence.  A "u64" curve cannot tell 32 x 4-byte banks
 * from 16 x 8-byte ones (an aligned 8-byte access covers a pair of 4-byte
 * banks): it says so through its confidence. */
int gd_infer_smem_bank(gd_inference *inf, const gd_curve *curve, gd_err *err);

/* coalesce -> level[GD_INF_L1D]: alloc_line_bytes, the line one L1 request
 * covers, with its confidence, from the cycles per load instruction against the
 * requests each candidate line predicts (an affine fit: the cost of a request
 * need not be one cycle).  A "lanes" curve whose stride is at least the line
 * predicts the same curve for every smaller line: it then records nothing. */
int gd_infer_coalesce(gd_inference *inf, const gd_curve *curve, gd_err *err);

/* model_access.c: the expected curves.  smem_bank: the [SMEM] latency plus
 * one cycle per further pass (the simulator's replay), per lane stride (the
 * variant gives the access size).  coalesce: requests per instruction (its
 * primary series) from the stride, the active lanes and the [L1D] line. */
int gd_model_access_curve(const gd_arch *arch, const char *probe, const gd_probe_opts *opts,
                          const uint64_t *xs, size_t count, gd_model_point *out, gd_err *err);

#endif
