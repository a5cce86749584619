/* workload.h -- the programs of the what-if experiments, as probes are.
 *
 * A workload (one file each in kernels/workloads/) keeps the probe contract of
 * kernels/probe.h: it plans a launch -- PTX text, buffers, parameters,
 * geometry, and with `launches` > 1 and `split` a sequence of launches on the
 * same buffers (a BFS level per launch) -- and decodes what comes back.  It
 * never calls a device, so `gpudissect whatif` runs it on sim:ARCH and cuda:N
 * alike.  What a workload adds to a probe: its inputs are generated here from
 * a seed (opts->seed, else the workload's own), the host computes the expected
 * output, and decode reports one series, "errors" (output words that differ
 * from the host's computation; 0 on a correct run).  Timing comes from the
 * device's counters (sim.cycles on a sim device), not from the kernel.
 *
 * The sweep value (`point`) is the workload's one knob (scatter: the percent
 * of each warp's lanes sent to one L1 set); 0 takes example_point.
 */
#ifndef GD_WORKLOAD_H
#define GD_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/probe.h"

/* The workloads, in the order `gpudissect whatif --workloads all` runs them. */
const gd_probe *const *gd_workload_list(size_t *count);
/* The workload of that name, or NULL. */
const gd_probe *gd_workload_find(const char *name);

/* What every workload keeps in plan->state: the host contents of its filled
 * buffers and the expected contents of the buffer decode checks. */
typedef struct gd_wl_state {
    void *input[GD_PROBE_MAX_BUFFERS]; /* NULL: the buffer starts zeroed */
    uint32_t *expect;                  /* expected words of buffers[check_buffer] */
    unsigned check_buffer;
    size_t check_words;
    unsigned cur_param;                /* split: the parameter that is the launch number */
} gd_wl_state;

/* Begins a plan: entry name, a 1-D block of `block_threads`, the state (calloc). */
int gd_wl_plan_begin(gd_probe_plan *out, const char *entry, unsigned block_threads,
                     gd_wl_state **state, gd_err *err);
/* Adds a buffer (host contents `input`, owned by the state from now on, or NULL
 * for zeroed) and a parameter holding its address; returns its index. */
unsigned gd_wl_buffer(gd_probe_plan *out, gd_wl_state *st, const char *name, size_t bytes,
                      void *input, int copy_out);
void gd_wl_param_u32(gd_probe_plan *out, uint32_t value);
/* The shared fill / decode / release / split of every workload. */
int gd_wl_fill(const gd_probe_plan *plan, unsigned index, const gd_devptr *addresses, void *host,
               gd_err *err);
int gd_wl_decode(const gd_probe_plan *plan, const gd_devptr *addresses, void *const *host,
                 gd_probe_result *out, gd_err *err);
void gd_wl_release(gd_probe_plan *plan);
int gd_wl_split(const gd_probe_plan *plan, unsigned launch, gd_probe_param *params, gd_err *err);

/* A seeded generator (xorshift64*): the same inputs on every machine. */
static inline uint32_t gd_wl_rand(uint64_t *state, uint32_t n)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return (uint32_t)((x * 0x2545f4914f6cdd1dull) >> 32) % n;
}

/* opts->seed when given, else `fallback` (never 0: xorshift would stay 0). */
static inline uint64_t gd_wl_seed(const gd_probe_opts *opts, uint64_t fallback)
{
    uint64_t s = opts && opts->seed ? opts->seed : fallback;
    return s ? s : 0x9e3779b97f4a7c15ull;
}

/* The L1 line size workloads lay their conflicts out for (128 B on every
 * NVIDIA L1 since Fermi), and the 4-byte word they move. */
#define GD_WL_LINE_BYTES 128u
#define GD_WL_WARP 32u

#endif
