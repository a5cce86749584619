/* infer_carveout.h -- the L1D size per L1/shared carve-out (infer_carveout.c). */
#ifndef GD_INFER_CARVEOUT_H
#define GD_INFER_CARVEOUT_H

#include <jansson.h>
#include <stdint.h>

#include "analysis/arch.h"
#include "analysis/curve.h"
#include "analysis/plateau.h"

/* The L1D capacity a p-chase run at one carve-out shows: the knee after its
 * first plateau, read as gd_infer_pchase reads it.  Fails when the curve has
 * no L1 knee (the sweep did not reach past the L1). */
int gd_infer_carveout_l1d(const gd_curve *curve, const gd_segmentation *seg,
                          uint64_t l2_bytes_hint, uint64_t *l1d_bytes, double *confidence,
                          gd_err *err);

/* One row of inferred.json's "l1d_by_carveout". */
json_t *gd_carveout_row(int percent, uint64_t l1d_bytes, double confidence, const char *curve);

#endif
