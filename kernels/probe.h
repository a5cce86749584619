/* probe.h -- the contract between a probe and the harness.
 *
 * A probe is one file in kernels/.  For one point of its sweep it *plans* a
 * launch: the PTX text, the buffers it needs (sizes, which ones the host fills,
 * which ones come back), the kernel arguments and the geometry.  The runner
 * (host/runner.c) allocates, fills, launches and copies back; the probe then
 * *decodes* the returned buffers into samples.  A probe never calls a device,
 * so it cannot tell -- and must not care -- whether the samples came from a GPU
 * or the simulator.
 */
#ifndef GD_PROBE_H
#define GD_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "host/device.h"
#include "kernels/probe_layout.h"

#define GD_PROBE_MAX_BUFFERS 8
#define GD_PROBE_MAX_PARAMS 16

/* gd_probe_opts, gd_probe_desc and GD_PROBE_MAX_SERIES: kernels/probe_layout.h,
 * which the analysis shares. */

typedef struct gd_probe_buffer {
    const char *name;
    size_t bytes;
    int host_fill;            /* 1: probe->fill writes the initial contents; 0: zeroed */
    int copy_out;             /* 1: copied back after the launch for decode */
    const char *symbol;       /* non-NULL: not allocated; the module variable of this name
                               * (a .const array) is written with the filled contents
                               * after the kernel is loaded (address 0 in `addresses`) */
} gd_probe_buffer;

typedef enum gd_param_kind { GD_PARAM_BUFFER, GD_PARAM_U32, GD_PARAM_U64 } gd_param_kind;

typedef struct gd_probe_param {
    gd_param_kind kind;
    unsigned buffer;          /* GD_PARAM_BUFFER: index into buffers (device address) */
    uint64_t value;           /* GD_PARAM_U32 / GD_PARAM_U64 */
} gd_probe_param;

typedef struct gd_probe_plan {
    char *ptx;                /* owned (malloc) */
    char entry[64];
    unsigned grid[3];
    unsigned block[3];
    unsigned dynamic_shared_bytes;
    gd_probe_buffer buffers[GD_PROBE_MAX_BUFFERS];
    unsigned buffer_count;
    gd_probe_param params[GD_PROBE_MAX_PARAMS];
    unsigned param_count;
    uint64_t point;           /* the sweep value this plan is for */
    uint32_t intended_instructions; /* exact SASS instructions of the probe body, 0: unchecked */
    uint32_t code_min_instructions; /* expected range of the entry's machine code, */
    uint32_t code_max_instructions; /* in 16-byte instructions (padding included); 0: unchecked */
    gd_probe_opts opts;       /* as resolved by plan (defaults filled in) */
    gd_load_opts load;        /* a machine-code patch the device applies on load */
    /* What one launch costs, for the display watchdog (host/runner.c): the
     * memory accesses of the longest dependent chain it makes (0: short, e.g.
     * a fixed few thousand instructions).  With opts.launch_split = n > 1 a
     * probe that has `split` plans n launches of about 1/n of it each. */
    uint64_t dependent_accesses;
    unsigned launches;        /* launches the point takes (0 or 1: one, with params) */
    char note[256];           /* what the plan does other than asked, and why (one line,
                               * e.g. "patch refused: ..."; "" if nothing): meta.json */
    void *state;              /* probe-private, freed by release */
} gd_probe_plan;

/* One named series of samples for one sweep point (e.g. "cycles"). */
typedef struct gd_series {
    char name[32];
    double *samples;          /* owned (malloc) */
    size_t count;
} gd_series;

typedef struct gd_probe_result {
    gd_series series[GD_PROBE_MAX_SERIES];
    unsigned series_count;
} gd_probe_result;

struct gd_probe {            /* typedef gd_probe: kernels/probe_layout.h */
    const char *name;
    const char *summary;
    const char *sweep_name;   /* CSV column of the sweep value, e.g. "footprint_bytes" */
    const char *value_unit;   /* unit of the samples, e.g. "cycles" */
    const char *primary_series; /* the series the analysis segments; NULL: "cycles" */
    int aggregate_samples;    /* each sample is a mean over many accesses (a pass's CPI),
                               * not one access: a knee needs a quarter of them off */
    int ramp_curve;           /* the primary series is a ramp with steps (completion
                               * times), not plateaus: adaptive sweeps bisect steps */
    int first_step_only;      /* (ramp curves) the analysis reads the first step
                               * alone: adaptive sweeps bisect no other (each point
                               * of mshr and resv_stall evicts the L2 first: on a
                               * 40 MiB L2, 80 MiB of loads a point) */
    int mean_rise_knee;       /* the analysis reads where the mean first leaves the
                               * first plateau (a random policy's first misses, a
                               * point or forty before the median moves): adaptive
                               * sweeps bisect that bracket too (pchase_fine) */
    int linear_knees;         /* one access a sample, every element once a lap: past a
                               * capacity the extra cycles grow in proportion to the
                               * lines over it (LRU, FIFO), so adaptive sweeps jump a
                               * knee's bracket to where the ramp extrapolates to zero
                               * (pchase; not a CPI curve's staircase of fetch lines) */
    uint64_t default_stride_bytes;
    uint64_t sweep_granularity; /* sweep values are multiples of this; 0: of the stride
                                 * (footprints are whole elements) */
    const char *const *variants;     /* NULL-terminated; the first is the default */
    uint64_t example_point;          /* a representative sweep value (tests, emit) */
    /* Plans one sweep point.  `dev` is the device's self-description. */
    int (*plan)(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                gd_probe_plan *out, gd_err *err);
    /* Writes the initial contents of buffer `index` (host_fill set); `addresses`
     * holds the device address of every buffer of the plan. */
    int (*fill)(const gd_probe_plan *plan, unsigned index, const gd_devptr *addresses,
                void *host, gd_err *err);
    /* Turns the copied-back buffers (NULL where copy_out is 0) into samples. */
    int (*decode)(const gd_probe_plan *plan, const gd_devptr *addresses, void *const *host,
                  gd_probe_result *out, gd_err *err);
    void (*release)(gd_probe_plan *plan);
    /* May be NULL (the probe cannot spread a point over launches).  Writes the
     * parameters of launch `launch` of plan->launches (param_count of them;
     * buffers as in plan->params).  Launches run in order on the same buffers;
     * decode sees the buffers after the last. */
    int (*split)(const gd_probe_plan *plan, unsigned launch, gd_probe_param *params, gd_err *err);
    /* Points that share one launch (0 or 1: each point is a launch of its
     * own).  A probe whose every point pays for the same preamble -- the
     * eviction pass of kernels/l2_flush.h, twice the L2 read before the first
     * timed access -- plans up to batch_max points as one kernel: the
     * preamble once, then each point's timed rounds in turn, each on lines of
     * its own that nothing has read since the preamble (host/sweep_workers.c
     * groups a sweep's points; host/adaptive.c then splits each bracket in
     * more parts a round).  plan_batch plans points[0..n), n >= 2 (plan is
     * the launch of one); decode_batch writes out[0..n), one result a point. */
    unsigned (*batch_max)(const gd_probe_opts *opts); /* NULL: 1; per variant */
    int (*plan_batch)(const gd_probe_opts *opts, const gd_device_info *dev, const uint64_t *points,
                      size_t n, gd_probe_plan *out, gd_err *err);
    int (*decode_batch)(const gd_probe_plan *plan, const gd_devptr *addresses, void *const *host,
                        gd_probe_result *out, size_t n, gd_err *err);
};

/* What sweep values are rounded to: probe->sweep_granularity, else the stride
 * (opts->stride_bytes, else the probe's default), else 1. */
uint64_t gd_probe_sweep_granularity(const gd_probe *probe, const gd_probe_opts *opts);

/* How many points of a sweep with these options one launch measures
 * (probe->batch_max; 1 without it). */
unsigned gd_probe_batch_max(const gd_probe *probe, const gd_probe_opts *opts);

/* The registry (kernels/registry.c); gd_probe_find and gd_probe_describe are
 * declared in kernels/probe_layout.h. */
const gd_probe *const *gd_probe_list(size_t *count);

/* A release that frees plan->state (one malloc'ed block), for probes that
 * keep nothing else. */
void gd_probe_free_state(gd_probe_plan *plan);

/* Frees what plan/decode allocated. */
void gd_probe_plan_free(const gd_probe *probe, gd_probe_plan *plan);
void gd_probe_result_free(gd_probe_result *result);
/* Adds a series with room for `count` samples; returns it or NULL. */
gd_series *gd_probe_result_add(gd_probe_result *result, const char *name, size_t count);

#endif
