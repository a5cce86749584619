/* plateau.h -- find the plateaus, levels and knees of one measured curve.
 *
 * A curve is n sweep points (x = footprint bytes, or instruction-sequence
 * length), each with its own set of samples (cycles per access).  It looks like
 * a staircase: flat plateaus (L1 hit, L2 hit, DRAM, DRAM + TLB miss, ...)
 * separated by knees, with perhaps a few transition points between two
 * plateaus whose samples are a mix of both levels.  gd_detect_plateaus() finds
 * every plateau in one pass, with its level, the knee after it and a confidence
 * for each; analysis/plateau.c explains the method.
 */
#ifndef GD_PLATEAU_H
#define GD_PLATEAU_H

#include <stddef.h>

#include "host/device.h"

/* One plateau: consecutive points that sample the same level. */
typedef struct gd_plateau {
    size_t first, last;      /* indices of the first and last point on the plateau */
    double x_first, x_last;  /* their x values */
    double level;            /* median of the samples pooled over first..last */
    double spread;           /* 1.4826 * MAD of the pooled samples (a robust stddev) */
    double confidence;       /* 0..1: level differs from its neighbours' and is flat */
} gd_plateau;

/* The step after plateau i: `below` is the last point still on it (every
 * access at the plateau's level), `above` = below + 1 is the first point where
 * a significant fraction of accesses already sees the next level.  The quantity
 * being measured (a capacity) lies in [x_below, x_above). */
typedef struct gd_knee {
    size_t below, above;
    double x_below, x_above;
    double confidence;       /* 0..1: levels differ, `above` is off, `below` is on */
} gd_knee;

typedef struct gd_segmentation {
    gd_plateau *plateaus;    /* ordered by x */
    size_t plateau_count;
    gd_knee *knees;          /* knee i sits after plateau i */
    size_t knee_count;       /* plateau_count - 1, or 0 */
    double noise_scale;      /* per-sample noise: median over points of 1.4826 * MAD */
    double location_noise;   /* noise of one point's median from point to point
                              * (>= noise_floor); the unit of the segmentation */
} gd_segmentation;

/* Tuning; a zeroed struct (or NULL) gives the documented defaults. */
typedef struct gd_plateau_opts {
    size_t min_points;    /* points a plateau needs; 0: 2 */
    double min_step;      /* smallest level difference worth a new plateau, sample
                           * units; 0: max(3 x noise, 3% of the lower level).
                           * Pieces of a ramp (levels closer than 3 robust SDs
                           * of their own point medians) are joined regardless */
    double penalty;       /* PELT cost of one more change point, chi-square units;
                           * 0: 2 ln n (BIC for a change in mean) */
    double min_excess;    /* fraction of accesses at the next level, beyond the
                           * plateau's own outlier rate, that takes a point off
                           * its plateau; 0: 0.02.  Less on a plateau with no
                           * sample at the next level at all (a simulator's) */
    double alpha;         /* significance of that per-point test; 0: 1e-3 */
    double noise_floor;   /* smallest noise assumed for a point's median, sample
                           * units; 0: 0.5 (half a timer tick) */
} gd_plateau_opts;

/* x: n values (strictly increasing); samples[i]: counts[i] samples of point i.
 * Fills *out (free it with gd_segmentation_free).  A curve with fewer than
 * min_points points has no plateau (success, plateau_count 0).  Returns -1 and
 * fills err on bad input (n == 0, a point with no samples, x not strictly
 * increasing, a NaN or infinite value) or when out of memory. */
int gd_detect_plateaus(const double *x, const double *const *samples, const size_t *counts,
                       size_t n, const gd_plateau_opts *opts, gd_segmentation *out, gd_err *err);

void gd_segmentation_free(gd_segmentation *seg);

#endif
