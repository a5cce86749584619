/* model_icache.h -- the expected curves of the instruction-cache and
 * constant-broadcast probes (model_icache.c). */
#ifndef GD_MODEL_ICACHE_H
#define GD_MODEL_ICACHE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/arch.h"
#include "analysis/model_point.h"
#include "kernels/probe_layout.h"

/* The icache_seq model is approximate: its CPI on a plateau is one
 * steady-state pass of demand misses and prefetches, within this relative
 * error of the simulator's (1-2% on t4 and v100: the demand groups of a real
 * pass drift against the lines of the lower levels); near a capacity it cannot
 * say on which side a point falls (gd_model_icache_near_knee). */
#define MODEL_ICACHE_RELATIVE_ERROR 0.03

/* 1 when `code_bytes` lies within (prefetch + 1) first-level lines below an
 * instruction cache's capacity: whether such a loop still fits depends on where
 * it starts in its first line, which the model does not know. */
int gd_model_icache_near_knee(const gd_arch *arch, uint64_t code_bytes);

/* icache_seq (CPI per code size) and const_bcast (cycles per distinct
 * addresses of a warp load). */
int gd_model_other_curve(const gd_arch *arch, const char *probe, const gd_probe_opts *opts,
                         const uint64_t *xs, size_t count, gd_model_point *out, gd_err *err);

#endif
