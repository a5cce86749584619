/* figures.h -- one plot per curve of a run (figures.c). */
#ifndef GD_FIGURES_H
#define GD_FIGURES_H

#include "analysis/arch.h"
#include "analysis/run_load.h"

/* Writes RUN/plots/LABEL.{dat,gp,png,svg} for every curve; `arch` (may be NULL)
 * adds the analytical model's curve.  Every picture's data and script are
 * written first, then gnuplot draws them, up to `jobs` at once (<= 1: one
 * after the other). */
int gd_figures_write(const gd_run *run, const gd_arch *arch, unsigned jobs, gd_err *err);

#endif
