/* fleet_plot.h -- every card's p-chase curve in one picture (fleet_plot.c). */
#ifndef GD_FLEET_PLOT_H
#define GD_FLEET_PLOT_H

#include <stddef.h>

#include "host/device.h"

/* One card's curve: the primary series' median per sweep point. */
typedef struct gd_fleet_curve {
    double *x, *median;
    size_t count;
} gd_fleet_curve;

/* Reads a probe CSV (footprint_bytes,series,min,median,...): the rows of its
 * first series.  A missing file gives count 0 and returns 0; a malformed one
 * -1 with err naming the file and line. */
int gd_fleet_curve_read(const char *path, gd_fleet_curve *out, gd_err *err);
void gd_fleet_curve_free(gd_fleet_curve *curve);

/* DIR/plots/fleet-pchase.{dat,gp,png,svg}: the n curves overlaid on a log-x
 * byte axis, each titled by its card, "(outlier)" after the flagged ones.
 * Returns 0, or -1 with err (gnuplot missing or failing included). */
int gd_fleet_plot(const char *dir, const gd_fleet_curve *const *curves, const char *const *titles,
                  const int *flagged, size_t n, gd_err *err);

#endif
