/* knee_extrapolate.h -- a capacity where the misses begin, extrapolated from
 * the miss counts past a p-chase knee (analysis/knee_extrapolate.c). */
#ifndef GD_KNEE_EXTRAPOLATE_H
#define GD_KNEE_EXTRAPOLATE_H

#include "analysis/curve.h"
#include "analysis/plateau.h"

/* Share of point p's timed accesses (its "cycles" samples) above `threshold`
 * cycles; from the mean between `hit` and `miss` when it has no samples; NAN
 * without a "cycles" series. */
double gd_point_share_above(const gd_point *p, double threshold, double hit, double miss);

/* The knee `knee` of `seg` closes the plateau before it; where the misses
 * begin is refined from the points at and past its `below` point: their share
 * of misses beyond the plateau's own outliers, extrapolated linearly back to
 * zero.  Only a `below` point with significant misses is moved, and only back
 * to the last point before it without (a knee is late, never early: few
 * misses hide in the outliers).  Returns 1 and sets *capacity_bytes when
 * refined, 0 when the knee stands or the curve cannot tell.  When refined and
 * `resolution_bytes` is not NULL, it gets how far the truth may lie from the
 * zero either way: the bytes over the capacity whose misses the outliers'
 * scatter hides at the line's slope, or three standard errors of the zero
 * where wider (at least the sweep's grain). */
int gd_knee_extrapolate(const gd_curve *curve, const gd_segmentation *seg, size_t knee,
                        double *capacity_bytes, double *resolution_bytes);

#endif
