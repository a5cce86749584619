/* plateau_fit.h -- does a curve's segmentation describe its points?
 * (plateau_fit.c) */
#ifndef GD_PLATEAU_FIT_H
#define GD_PLATEAU_FIT_H

#include <jansson.h>
#include <stddef.h>

#include "analysis/curve.h"

/* Relative tolerances of the check (plateau_fit.c's top comment). */
#define GD_PLATEAU_FIT_SPREADS 3.0    /* plateau spreads a point may stray */
#define GD_PLATEAU_FIT_RELATIVE 0.05  /* of the plateau's level */
#define GD_PLATEAU_FIT_RANGE 0.05     /* of the curve's whole range */

/* 1 when every point inside each plateau of `info` (inferred.json's entry for
 * this curve: "plateaus" with level, x_first, x_last, spread) lies at its
 * plateau's level within the tolerance, and the curve has at least one
 * plateau; else 0, with the first offending point in `why`. */
int gd_plateau_fit(const gd_curve *curve, const json_t *info, char *why, size_t why_bytes);

/* The unit of a probe's primary series, for labels: "cycles", "CPI",
 * "requests", or "" (a rate). */
const char *gd_plateau_unit(const char *probe);

#endif
