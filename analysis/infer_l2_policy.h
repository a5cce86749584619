/* infer_l2_policy.h -- the L2's replacement verdict from the L2-only p-chase,
 * and its capacity where the replacement is random (a miss-rate fit). */
#ifndef GD_INFER_L2_POLICY_H
#define GD_INFER_L2_POLICY_H

#include "analysis/curve.h"
#include "analysis/infer.h"
#include "analysis/plateau.h"

/* Expected share of timed accesses that miss a randomly replacing cache of
 * `capacity_bytes`, full of other lines when the chase starts, for a cyclic
 * chain of `footprint_bytes` walked `warm_laps` laps untimed and then
 * `timed_laps` laps timed -- a fraction where only the first part of a lap
 * is (--timed N: N / elements) -- (mean-field: a line survives each miss in
 * between with probability 1 - line/capacity). */
double gd_random_cache_miss_share(double footprint_bytes, double capacity_bytes,
                                  unsigned warm_laps, double timed_laps);
/* The capacity at which that model gives `share` for a chain of `footprint`
 * bytes (bisection); 0 if none (also used for a random L1.5: infer_const.c). */
double gd_random_cache_fit_capacity(double footprint, double share, unsigned warm,
                                    double timed);
/* The laps a chase point of `stride`-byte elements walked as kernels/chase.c
 * walks them: its warm-up laps (GD_CHASE_MIN_WARM_ACCESSES), and its timed
 * ones from the count of its series k ("cycles": every timed access) over
 * its elements -- whole laps, or the part of one a --timed window took. */
void gd_chase_point_laps(const gd_point *p, int k, uint64_t stride, unsigned *warm_laps,
                         double *timed_laps);

/* Reads the ld.cg p-chase `curve` (its segmentation `seg`, the L2 plateau
 * first): the share of accesses past the L2 at each footprint.  A step from
 * no miss to all misses within GD_L2_LRU_SPAN of the knee is LRU or FIFO (a
 * cyclic chain on either misses every access once a set overflows): the knee's
 * size stands.  A climb spread wider is random replacement, whose knee is
 * early (the lines earlier kernels left are evicted at random, the chain's
 * own with them): the size is then fitted to the miss shares and recorded
 * with its resolution and the assumption.  Sets inf->level[GD_INF_L2]'s
 * replacement (and size, for random); returns 0, also when the curve cannot
 * tell (no verdict then). */
int gd_infer_l2_policy(gd_inference *inf, const gd_curve *curve, const gd_segmentation *seg,
                       gd_err *err);

/* A randomly replacing L2 fitted again from a sweep made for the fit
 * (full.suite's pchase-l2fit: footprints of 1.5, 2 and 2.5 times the first
 * fit, where the miss share moves most with the capacity; the mean field
 * reads a set of 8 ways up to 3 % small there, README): the chase's miss
 * shares, less their outliers, against the L2 and DRAM latencies inf already
 * has, each fitted, their median the size, its resolution that 3 % (or half
 * the estimates' range) plus two standard errors of sampling.  Replaces
 * inf's L2 size where at least two footprints fit; leaves inf as it is where
 * the L2 is not random (a step run under --if should not be) or the curve
 * cannot tell.  Returns 0, or -1 with err set when out of memory. */
int gd_infer_l2_refit(gd_inference *inf, const gd_curve *curve, gd_err *err);

#endif
