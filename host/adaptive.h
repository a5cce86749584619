/* adaptive.h -- coarse sweep, then bisection of every knee (see adaptive.c). */
#ifndef GD_ADAPTIVE_H
#define GD_ADAPTIVE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/plateau.h"
#include "host/runner.h"

#define GD_ADAPTIVE_MAX_ROUNDS 64   /* log2 of any sweep range, with room to spare */
#define GD_ADAPTIVE_MAX_POINTS 2000 /* a guard against a curve that never settles */

typedef struct gd_adaptive_stats {
    size_t coarse_points;     /* the geometric sweep */
    size_t refine_points;     /* bisection points */
    size_t points;            /* all points measured */
    size_t rounds;
    uint64_t uniform_points;  /* a uniform sweep at the same resolution over the range */
} gd_adaptive_stats;

/* Measures `coarse`, then bisects every knee until it is `resolution` wide. */
int gd_runner_adaptive(gd_runner *r, gd_curve *curve, const gd_sweep *coarse, uint64_t resolution,
                       gd_adaptive_stats *stats, gd_err *err);

#endif
