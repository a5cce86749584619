/* model.h -- the analytical model: what a probe should measure on an arch.
 *
 * From an arch file alone, the expected curve of a probe in closed form: for the
 * pointer chase, which level serves each access of the timed lap, hence the mean
 * latency per point.  Compare (analysis/compare.c) holds measured curves against
 * these, and the plots overlay them.
 */
#ifndef GD_MODEL_H
#define GD_MODEL_H

#include <stdint.h>

#include "analysis/arch.h"
#include "analysis/model_point.h"
#include "kernels/probe_layout.h"

typedef struct chain_path chain_path;

/* Expected p-chase result for one chain: `footprint` bytes, opts->stride_bytes
 * apart, sequential or random (opts->random_order, opts->seed), variant ca/cg,
 * over every access of the timed lap.  `base` is the
 * chain's address (set indexing depends on it when the set count is not a power
 * of two; pass 0 when unknown). */
int gd_model_pchase(const gd_arch *arch, const gd_probe_opts *opts, uint64_t footprint,
                    uint64_t base, gd_model_point *out, gd_err *err);

/* Same, for a chase kernel launched with the L1/shared carve-out preference
 * `carveout_percent` and `shared_per_cta_bytes` of shared memory: the L1D has
 * the capacity the driver's rule leaves it (gd_arch_carveout; the sets stay,
 * the ways follow), which is what the simulator gives such a launch. */
int gd_model_pchase_carveout(const gd_arch *arch, const gd_probe_opts *opts, uint64_t footprint,
                             uint64_t base, int carveout_percent, uint32_t shared_per_cta_bytes,
                             gd_model_point *out, gd_err *err);

/* Same, over an explicit path (model.c's chain_path). */
int gd_model_chain(const chain_path *path, const gd_probe_opts *opts, uint64_t footprint,
                   uint64_t base, gd_model_point *out, gd_err *err);

/* The curve of a probe over a list of sweep values: pchase and const_seq
 * (footprints), pchase_stride and const_stride (strides at
 * opts->footprint_bytes), icache_seq (code bytes) and const_bcast (distinct
 * addresses).  bases may be NULL. */
int gd_model_curve(const gd_arch *arch, const char *probe, const gd_probe_opts *opts,
                   const uint64_t *xs, const uint64_t *bases, size_t count, gd_model_point *out,
                   gd_err *err);

/* The load path's two stages before a value can be used: a global load's
 * request enters the L1 request FIFO in the cycle it issues (the coalescer) and
 * probes the tags in the next cycle; a hit's data is ready `latency` cycles
 * after issue, but a value the tags produce in cycle X is used at the earliest
 * in X + 1 (each cycle the schedulers issue before the load/store unit moves:
 * sim/gpu.c).  So no global load is used sooner than 2 cycles after it issues,
 * whatever the arch's L1 access latency: CN110457238A's "1-cycle" L1 measures 2.
 * A latency of 2 or more already includes both stages. */
#define GD_MODEL_LOAD_PIPELINE_CYCLES 2.0

/* What a pointer chase measures for a hit at level `id`: the arch's latency,
 * but at least GD_MODEL_LOAD_PIPELINE_CYCLES on the global load path (L1D, L2). */
double gd_model_hit_cycles(const gd_arch *arch, gd_level_id id);

/* Steady-state hit rate of a cyclic access to `lines` lines in one set of `ways`
 * ways under random replacement (mean-field fixed point h = (1-1/W)^((N-1)(1-h))). */
double gd_model_random_hit_rate(uint64_t lines, uint32_t ways);

#endif
