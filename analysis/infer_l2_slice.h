/* infer_l2_slice.h -- the L2's slice count from the l2_slice probe
 * (infer_l2_slice.c; kernels/l2_slice.c). */
#ifndef GD_INFER_L2_SLICE_H
#define GD_INFER_L2_SLICE_H

#include "analysis/infer.h"

/* A curve whose throughput changes by less than this factor over the sweep
 * shows no slice contention (a monolithic L2, or a hash that spreads every
 * stride): nothing is claimed. */
#define GD_SLICE_MIN_CONTRAST 1.8
/* A point within this factor of its predicted throughput agrees with the
 * fit (the confidence is the share that do). */
#define GD_SLICE_POINT_FACTOR 1.3

/* An l2_slice curve (requests per cycle vs stride, a linear sweep of
 * multiples of its first stride): the slices per partition s that best
 * explain it as min(peak, floor x s / gcd(k, s)), the period s x unit, and
 * with the run's partitions (two when L2FAR was found) the total.  A flat
 * curve, or one no candidate explains better than a flat line, records
 * "resolved": false -- never an error.  Written into inf->below.slices. */
int gd_infer_l2_slice(gd_inference *inf, const gd_curve *curve, gd_err *err);

#endif
