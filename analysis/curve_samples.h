/* curve_samples.h -- every sample of a curve, kept in the results directory.
 *
 * LABEL.csv keeps each point's summary; plateau detection needs every sample
 * (its levels are pooled medians, its tests count samples), so a run also
 * writes RUN/LABEL.samples.gz: one line per point and series,
 * "x,series,count,v1,v2,..." with every number exact, gzip-compressed (a
 * simulator's samples repeat and shrink ~50x), written atomically once the
 * curve is complete.  `gpudissect infer RUN` reads them back to redo the
 * inference from the directory alone.
 */
#ifndef GD_CURVE_SAMPLES_H
#define GD_CURVE_SAMPLES_H

#include "analysis/curve.h"

#define GD_SAMPLES_SUFFIX ".samples.gz"

/* Writes <dir>/<label>.samples.gz atomically. */
int gd_curve_write_samples(const gd_curve *curve, const char *dir, gd_err *err);

/* Reads <path> and gives each point/series of `curve` with that x and name
 * its samples (replacing any); a point or series the file lacks is an error,
 * as is a count that differs from the summary's.  FILE:LINE on errors. */
int gd_curve_read_samples(const char *path, gd_curve *curve, gd_err *err);

#endif
