/* infer_dram.h -- DRAM row hit / row switch and the page-close timeout from
 * the dram_row probe (infer_dram.c). */
#ifndef GD_INFER_DRAM_H
#define GD_INFER_DRAM_H

#include "analysis/infer.h"

/* Smallest step, in cycles and as a share of the row-hit latency, that counts
 * as a row effect: below both the curve is one latency (timer noise on the
 * median of a few hundred pairs is far smaller). */
#define GD_ROW_MIN_STEP_CYCLES 10.0
#define GD_ROW_MIN_STEP_SHARE 0.025

/* A dram_row curve.  The distance sweep (median "cycles" per distance): the
 * row-hit latency at the shortest distance, the row-switch latency at the
 * longest, and the first distance whose median leaves the row-hit band (more
 * than half the step threshold above the first): the row-hit span; a flat
 * curve records "no row effect" (both latencies the curve's median), never
 * an error.  The idle sweep (variant idle: "cycles" and "wait_cycles" per
 * gap): the row-hit latency at the shortest gap, the closed-bank latency at
 * the longest, and the page-close timeout bracketed by the idle times (wait +
 * row-hit latency) of the last gap nearer the first and the first nearer the
 * second; a flat curve records a lower bound ("no timeout seen"), never an
 * error.  Written into inf->below.rows (each sweep its own fields) and the
 * DRAM level (present). */
int gd_infer_dram_row(gd_inference *inf, const gd_curve *curve, gd_err *err);

#endif
