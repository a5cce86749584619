/* model_bandwidth.h -- the streaming bandwidth an arch allows per level
 * (model_bandwidth.c; issue 12). */
#ifndef GD_MODEL_BANDWIDTH_H
#define GD_MODEL_BANDWIDTH_H

#include "analysis/arch.h"
#include "analysis/inferred_below_l1.h"

/* The peak bytes per SM cycle of the whole chip for `kind` traffic served by
 * `level`, from the arch's widths and rates (model_bandwidth.c says which);
 * *why: a one-line account.  0 where the model has no figure (a write at
 * the L1, which is write-through; a DRAM write, whose write-backs the probe
 * does not wait for). */
double gd_model_bandwidth(const gd_arch *arch, gd_bw_level level, gd_bw_kind kind, char *why,
                          size_t why_size);

#endif
