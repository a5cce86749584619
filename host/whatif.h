/* whatif.h -- `gpudissect whatif`: workloads under combinations of arch
 * overrides.
 *
 *   whatif.c       the experiment: the --vary specifications, their every
 *                  combination (checked on the device before anything runs),
 *                  the loop over combinations and workloads, the files
 *   whatif_exec.c  one workload on one open device: plan, buffers, launches,
 *                  check, counters -- the probe contract, run once
 *
 * Any arch key can vary (L1D.*, L2.*, DRAM.*, WB.* ...): the overrides go to
 * the device as `--set` would, and a key or value the arch reader refuses is
 * one line of error before the first workload runs.  On a cuda device there is
 * nothing to vary: one combination (the card as it is), timed by the host.
 */
#ifndef GD_WHATIF_H
#define GD_WHATIF_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/whatif_table.h"
#include "host/device.h"
#include "kernels/probe.h"

#define GD_WHATIF_MAX_VARY 8
#define GD_WHATIF_MAX_VALUES 16
#define GD_WHATIF_MAX_JOINT 4     /* keys varied together: --vary A.x+A.y=V1,V2 */
#define GD_WHATIF_MAX_SETS 16
#define GD_WHATIF_MAX_COMBOS 256
#define GD_WHATIF_MAX_WORKLOADS 32

typedef struct gd_whatif_opts {
    const char *device;                       /* "sim:cn110457238", "cuda:0" */
    const char *vary[GD_WHATIF_MAX_VARY];     /* "L1D.reorder=false,true" */
    size_t vary_count;
    const char *set[GD_WHATIF_MAX_SETS];      /* fixed overrides, every combination */
    size_t set_count;
    const char *workloads;                    /* "bfs,scatter:50,vecadd" or "all" */
    const char *out_dir;
    uint64_t seed;                            /* 0: each workload's own */
    int trace;                                /* sim: OUT/traces/cN-WORKLOAD/lsu_trace.csv */
    double claim;                             /* > 0: a claimed speedup drawn and reported */
    const char *claim_label;
    const char *command;                      /* the command line, for report and meta */
    FILE *progress;                           /* NULL: quiet */
} gd_whatif_opts;

/* Runs the experiment and writes OUT (results.csv, speedup.csv, plots/,
 * report.md, meta.json; traces/ with opts->trace).  The tables are rewritten
 * after every combination.  A workload that fails is recorded (its note) and
 * the experiment goes on; *failed counts them.  Returns -1 (err filled) for a
 * usage problem or an I/O error. */
int gd_whatif_run(const gd_whatif_opts *opts, size_t *failed, gd_err *err);

/* One workload spec "name" or "name:value" -> the workload and its point
 * (its example point when no value is given). */
int gd_whatif_parse_workload(const char *spec, const gd_probe **out, uint64_t *point,
                             gd_err *err);

/* whatif_exec.c: runs `workload` at `point` on `dev` and fills `cell` (counters
 * are read since the device opened: give each run a fresh device).  With a
 * trace_dir, the LSU's events go to trace_dir/lsu_trace.csv (sim only). */
/* whatif_exec.c: the writes per main-memory row of the run just made on
 * `dev` (seed 003 Figure 2: rank from the least written, writes), to `path`
 * as CSV, written atomically; nothing when the device has no such counts. */
int gd_whatif_write_row_writes(gd_device *dev, const char *path, gd_err *err);
int gd_whatif_exec(gd_device *dev, const gd_probe *workload, uint64_t point, uint64_t seed,
                   const char *trace_dir, gd_whatif_cell *cell, gd_err *err);

#endif
