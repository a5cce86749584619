/* curve.h -- the measured curve, the analysis' input.
 *
 * One probe configuration swept over its parameter: points sorted by the sweep
 * value, each with named series of samples (e.g. "cycles") and their summaries,
 * and what the device counted over the point.  The runner (host/runner.c)
 * produces curves; everything in analysis/ reads them.  The probe that measured
 * a curve is held as an opaque pointer (kernels/probe_layout.h): the analysis
 * asks it for its description, never for its kernel.
 */
#ifndef GD_CURVE_H
#define GD_CURVE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/plateau.h"
#include "analysis/stats.h"
#include "host/device.h"
#include "kernels/probe_layout.h"

typedef struct gd_point_series {
    char name[32];
    gd_summary summary;
    double *samples;          /* owned */
} gd_point_series;

typedef struct gd_point {
    uint64_t x;
    gd_point_series series[GD_PROBE_MAX_SERIES];
    unsigned series_count;
    /* what the device counted over this point's launches (sim: reservation
     * fails, replays, requests, sectors ...; none on a device without
     * counters): each cumulative counter's increase, and per memory instruction
     * the requests and sectors of the coalescer */
    gd_counter_list counters;
    /* the SM clock the point really ran at (cycles over %globaltimer's
     * nanoseconds across the timed region, kernels/timer.h); NAN where the
     * probe does not measure it.  The CSV's sm_clock_mhz column. */
    double sm_clock_mhz;
} gd_point;

/* The measured curve of one probe configuration, points sorted by x. */
typedef struct gd_curve {
    char label[64];           /* file name stem: "pchase", "pchase-cg" */
    const gd_probe *probe;
    gd_probe_opts opts;
    gd_point *points;
    size_t count, capacity;
} gd_curve;

void gd_curve_init(gd_curve *curve, const char *label, const gd_probe *probe,
                   const gd_probe_opts *opts);
void gd_curve_free(gd_curve *curve);
/* The point at x, or NULL. */
const gd_point *gd_curve_find(const gd_curve *curve, uint64_t x);
/* Index of a series by name in a point, or -1. */
int gd_point_series_index(const gd_point *point, const char *name);
/* A series' summary at a point, or NULL. */
const gd_summary *gd_point_summary(const gd_point *p, const char *series);
/* Inserts a point (taking ownership of its samples and counters), replacing the
 * point of equal x; -1 when out of memory (the point is then still the caller's). */
int gd_curve_insert(gd_curve *curve, gd_point *point);
/* Frees a point's samples and counters. */
void gd_point_free(gd_point *point);

/* Plateaus and knees of the curve's `series` (usually "cycles"). */
int gd_curve_segment(const gd_curve *curve, const char *series, gd_segmentation *seg,
                     gd_err *err);
/* The last point, at or before the first knee's `below`, whose mean of `series`
 * still lies on the first plateau's: walking back from the knee while a point's
 * mean stands GD_MEAN_RISE_SE of its own standard errors (outliers included),
 * and at least a cycle, above the median of the plateau's means.  Under random
 * replacement a chain one line past the ways misses a few accesses a lap: the
 * mean rises there, the median only where most accesses miss.  seg must have a
 * knee. */
#define GD_MEAN_RISE_SE 4.0
size_t gd_curve_mean_rise(const gd_curve *curve, const char *series,
                          const gd_segmentation *seg, double *base);
/* The same from point `at` of plateau p0 (no knee needed). */
size_t gd_curve_mean_rise_from(const gd_curve *curve, const char *series, const gd_plateau *p0,
                               size_t at, double *base);
/* 1 where the segmentation found no knee but the curve leaves its first
 * plateau for good: every point after it has a median GD_LEAVES_BY above the
 * plateau's level, though no second plateau forms (a one-set constant chain
 * whose misses go to a randomly replacing L1.5 or to the L2 by turns: medians
 * 111, 95, 111 cycles -- generated seed 1058); *below is the plateau's last
 * point. */
#define GD_LEAVES_BY 0.2
int gd_curve_leaves_first_plateau(const gd_curve *curve, const char *series,
                                  const gd_segmentation *seg, size_t *below);

/* ---- as files (analysis/curve_csv.c) ---- */
/* Writes <dir>/<label>.csv atomically, and <dir>/<label>.counters.csv (x,
 * counter, value) when the points have counters. */
int gd_curve_write_csv(const gd_curve *curve, const char *dir, gd_err *err);
/* The same files written by gd_write_snapshot (no fsync): the runner's copy
 * after each point, which gd_runner_settle_csv makes durable at the sweep's
 * end (an fsync per point and file was a thousand journal commits in a full
 * suite, each holding up the process that starts the next point). */
int gd_curve_write_csv_snapshot(const gd_curve *curve, const char *dir, gd_err *err);
/* Reads a LABEL.csv back into a curve (summaries only: samples are NULL) for
 * `probe`; a one-line error names the file and line it cannot take. */
int gd_curve_read_csv(const char *path, const char *label, const gd_probe *probe, gd_curve *out,
                      gd_err *err);
/* ---- for people ---- */

/* Formats bytes as "64KiB" / "1.5MiB" / "100B" for people. */
void gd_format_bytes(uint64_t bytes, char *buf, size_t size);
/* A sweep value as the probe's sweep names it: bytes ("64KiB") when its name
 * ends in _bytes, else the number. */
void gd_format_sweep_value(const gd_probe *probe, uint64_t x, char *buf, size_t size);

#endif
