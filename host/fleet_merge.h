/* fleet_merge.h -- many cards' results as one picture (fleet_merge.c).
 *
 * A fleet directory holds one results directory per card -- DIR/<host>-<gpu>/
 * from `gpudissect fleet submit`, or RUN/<device>/ from a node run -- each
 * with its status.json (node_run.c), meta.json and, where the run got that
 * far, inferred.json and pchase.csv.  The merge writes DIR/fleet.json and
 * DIR/fleet.md: which cards ran and which failed (and why), per measured
 * parameter the distribution across the cards (median, min, max, MAD), the
 * cards that stand out and by which parameter, and DIR/plots/fleet-pchase.*,
 * every card's p-chase curve in one picture.
 *
 * The outlier rule (a card is flagged on parameter P):
 *   - at least GD_FLEET_MIN_CARDS cards measured P;
 *   - its distance to the median, |x - median|, is at least
 *     max(GD_FLEET_MIN_ABS_DIFF, GD_FLEET_MIN_REL_DIFF * |median|): differences
 *     below a cycle, a byte, or 5% of the value are the measurement's own
 *     resolution, not a different card;
 *   - and its robust z-score 0.6745 (x - median) / MAD (Iglewicz and Hoaglin's
 *     modified z) exceeds GD_FLEET_OUTLIER_Z -- or MAD is 0 (every other card
 *     agrees exactly, so any difference past the threshold above stands out).
 * Median and MAD are robust: one odd card among five moves neither.
 */
#ifndef GD_FLEET_MERGE_H
#define GD_FLEET_MERGE_H

#include <stddef.h>

#include "host/device.h"

#define GD_FLEET_MIN_CARDS 3
#define GD_FLEET_MIN_ABS_DIFF 1.0
#define GD_FLEET_MIN_REL_DIFF 0.05
#define GD_FLEET_OUTLIER_Z 3.5
/* Iglewicz & Hoaglin: 0.6745 = the normal distribution's MAD in units of its
 * standard deviation, so that z is in standard deviations for normal data. */
#define GD_FLEET_MAD_TO_Z 0.6745

typedef struct gd_fleet_summary {
    size_t cards;        /* results directories found */
    size_t ok, failed;   /* by their status */
    size_t missing;      /* array tasks with no directory (fleet-job.json) */
    size_t parameters;   /* parameters measured on at least one card */
    size_t outliers;     /* (card, parameter) pairs flagged */
    int plotted;         /* plots/fleet-pchase.png drawn */
    char plot_note[GD_ERR_MSG_BYTES]; /* why not, when not */
} gd_fleet_summary;

/* Merges DIR into DIR/fleet.json and DIR/fleet.md (atomically) and, when
 * `plots`, DIR/plots/fleet-pchase.{png,svg}.  A failed plot (no gnuplot) is not
 * a failure: summary->plot_note says why.  Returns 0, or -1 with err (no card
 * directory at all, unreadable files, I/O errors). */
int gd_fleet_merge(const char *dir, int plots, gd_fleet_summary *summary, gd_err *err);

/* The robust statistics of values[0..n) (n > 0): median, min, max and the
 * median absolute deviation.  Reorders nothing (works on a copy). */
int gd_fleet_stats(const double *values, size_t n, double *median, double *min, double *max,
                   double *mad);

/* 1 when x stands out of a distribution with this median and MAD over n
 * cards by the rule above; *z gets the robust z-score (inf when MAD is 0 and
 * x differs). */
int gd_fleet_is_outlier(double x, double median, double mad, size_t n, double *z);

#endif
