/* steps.h -- steps in ramp-like curves (steps.c). */
#ifndef GD_STEPS_H
#define GD_STEPS_H

#include <stddef.h>

#include "analysis/curve.h"

/* One step: the series rises by `jump` beyond its own slope between the points
 * below and above (indices into the curve, adjacent). */
typedef struct gd_step {
    size_t below, above;
    double jump;
    double confidence;  /* 1 when below and above are adjacent values, 0.5 otherwise,
                         * times how far the jump clears the threshold */
} gd_step;

/* Every step of `series` (medians per point, points in x order), up to max;
 * returns how many there are (which may exceed max). */
size_t gd_curve_steps(const gd_curve *curve, const char *series, gd_step *steps, size_t max);

/* The curve's own slope: the median over neighbouring points (0 if it falls). */
double gd_curve_slope(const gd_curve *curve, const char *series);

/* The smallest rise beyond the slope that counts as a step in `series`: a
 * limit whose step would be smaller is one the curve cannot show. */
double gd_curve_step_threshold(const gd_curve *curve, const char *series);

#endif
