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
#include "analysis/model_access.h"

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

#endif
