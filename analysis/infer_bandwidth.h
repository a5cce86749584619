/* infer_bandwidth.h -- streaming bandwidth per level from the bandwidth probe
 * (infer_bandwidth.c). */
#ifndef GD_INFER_BANDWIDTH_H
#define GD_INFER_BANDWIDTH_H

#include "analysis/infer.h"

/* One bandwidth step: its kind from the variant (read, read_l1 -> read;
 * write; copy), its level from `level` (L1D, L2 or DRAM; empty: L1D for
 * read_l1, else an error).  The median over the step's points of
 * bytes_per_cycle and gb_per_s, and of their measured clock, into
 * inf->below.bw[level][kind]. */
int gd_infer_bandwidth(gd_inference *inf, const gd_curve *curve, const char *level, gd_err *err);

#endif
