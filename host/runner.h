/* runner.h -- measure a probe's sweep on a device.
 *
 * The runner is the only code that drives a device for a probe: it plans each
 * point with the probe, allocates and fills the buffers, loads the kernel (once
 * per distinct PTX text), launches, copies back, hands the buffers to the
 * probe's decoder and summarizes the samples.  Each finished point is written
 * to results/RUN/<label>.csv at once (atomically), so an interrupted sweep keeps
 * every point it finished -- and, in `characterize`, appended whole to the
 * step's checkpoint (host/checkpoint.h), from which --resume takes it back.
 */
#ifndef GD_RUNNER_H
#define GD_RUNNER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "analysis/curve.h"
#include "host/device.h"
#include "kernels/probe.h"

/* A list of sweep values. */
typedef struct gd_sweep {
    uint64_t *points;
    size_t count;
    /* adaptive sweeps: bisect only the knees whose bracket starts below this
     * (0: every knee); a suite's --refine-below */
    uint64_t refine_below;
} gd_sweep;

/* "A:B" (A, 2A, 4A, ... B), "A:B:N" (N points, geometric), "A:B:+S" (step S).
 * Sizes take units (1KiB, 8MiB).  Points are rounded to multiples of
 * `granularity` (>= 1) and deduplicated. */
int gd_sweep_parse(const char *spec, uint64_t granularity, gd_sweep *out, gd_err *err);
void gd_sweep_free(gd_sweep *sweep);

/* The longest results directory a run takes (with its NUL); the CLI refuses a
 * longer --out with a one-line error rather than cutting it. */
#define GD_RUN_OUT_MAX_BYTES 512

typedef struct gd_runner {
    gd_device *dev;
    char out_dir[GD_RUN_OUT_MAX_BYTES]; /* empty: write no files */
    int keep_measured;        /* --resume: a point the curve already has is not measured */
    FILE *progress;           /* NULL: quiet */
    gd_kernel *kernel;        /* the last kernel loaded, reused while the PTX is the same */
    char *kernel_ptx;
    gd_load_opts kernel_load; /* ... and the same patch */
    /* The kernel loaded before it, kept too: a sweep whose points alternate
     * between two kernels (the chase's scratch moves to shared memory near the
     * L2's capacity, and an adaptive sweep bisects on both sides) reloads
     * neither.  A freshly loaded kernel fetches its timed loop's code through
     * the L2 only after the warm-up, where those lines overflow the sets of a
     * chain that exactly fills the L2 -- on a GPU as in the simulator. */
    gd_kernel *spare_kernel;
    char *spare_ptx;
    gd_load_opts spare_load;
    int spare_warmed;         /* the spare has had its warm-up launch */
    size_t points_measured;   /* points measured and added to a curve */
    /* --resume (host/checkpoint.h): the step's checkpoint (NULL: none), whose
     * stored points are added instead of measured; how many were, and how many
     * of them ran again on a sim device's own state (sweep workers fork from
     * it: gd_runner_measure_rebuilding) with their result dropped */
    struct gd_checkpoint *checkpoint;
    size_t points_read_back;
    size_t points_resimulated;
    /* meta.json of the run (borrowed; NULL: none).  On a cuda device each
     * kernel's JIT check (host/jit_check.h: verdicts, info log, cubin hashes) is
     * appended to its "jit_checks" array before the kernel's first launch. */
    json_t *meta;
    /* The target's c[0x0] offset of the first kernel parameter, for the JIT
     * check's order verdict (host/jit_check.h, gd_jit_param_base): measured
     * once per runner on a cuda device with nvdisasm, before its first kernel
     * loads; 0 with jit_param_base_why set when it could not be. */
    int jit_param_base_tried;
    unsigned jit_param_base;
    char jit_param_base_why[256];
    /* The display watchdog (runner.c, watchdog_launches): on a device with
     * CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT -- or any device when
     * assume_watchdog is set -- a point whose worst-case time exceeds
     * launch_budget_s (0: GD_WATCHDOG_LAUNCH_BUDGET_S) is spread over launches. */
    int assume_watchdog;
    double launch_budget_s;
    int kernel_warmed;        /* the kernel has had its warm-up launch */
    size_t launches;          /* kernel launches made, warm-ups included */
    size_t warmup_launches;   /* untimed first launches of a kernel (cuda devices) */
    size_t split_points;      /* points spread over launches for the watchdog */
    /* The preferred L1/shared carve-out set on every kernel (percent of the
     * largest shared memory; 0: the most L1), and what each kernel asked of an
     * SM (host/kernel_record.h), for meta.json's "kernels" (the JIT checks of a
     * cuda device go to its "jit_checks"). */
    int carveout_percent;
    json_t *kernels;
    /* Sweep points on a sim device (host/sweep_workers.c): each runs in a
     * process forked from the device as the sweep found it, up to `jobs` at a
     * time (0: the cores hwloc reports), so a point's result depends on nothing
     * measured before it and is the same for every `jobs`.  `chained` keeps the
     * one device running from point to point instead (serial: the behaviour
     * before worker processes; a cuda device and an LSU trace always chain). */
    unsigned jobs;
    int chained;
    /* every point a launch of its own even where the probe's points can
     * share one (kernels/probe.h plan_batch; `run --one-launch-per-point`):
     * each point's counters then its own, at an eviction pass a point */
    int one_launch_per_point;
    /* add_point wrote the CSV as a snapshot (no fsync) since the last
     * gd_runner_settle_csv */
    int csv_unsettled;
} gd_runner;

/* A launch's budget under a display watchdog: a quarter of Windows' 2 s TDR
 * default, a tenth of the 5 s an X server allows. */
#define GD_WATCHDOG_LAUNCH_BUDGET_S 0.5
/* The slowest dependent access a probe can meet, in SM cycles: a TLB miss that
 * walks the page table in DRAM and then misses to DRAM, ~1000-1300 cycles on
 * Volta/Turing (Jia et al. 2018 and 2019, the p-chase past the TLB's reach),
 * with room for a slower card. */
#define GD_WATCHDOG_WORST_ACCESS_CYCLES 2000
/* When a device reports no clock. */
#define GD_WATCHDOG_FALLBACK_CLOCK_MHZ 1000.0
/* A point needing more launches than this is refused. */
#define GD_WATCHDOG_MAX_LAUNCHES 4096

void gd_runner_init(gd_runner *runner, gd_device *dev, const char *out_dir, FILE *progress);
void gd_runner_close(gd_runner *runner);

/* Measures one point and inserts it into the curve (replacing an equal x).
 * `index`/`total` are for the progress line (total 0: unknown). */
int gd_runner_measure(gd_runner *runner, gd_curve *curve, uint64_t x, size_t index, size_t total,
                      gd_err *err);
/* The two halves of gd_runner_measure: the measurement of one point (plan,
 * launches, decode, summaries, counters), and its entry into the curve (the
 * CSV, the progress line, meta.json's clock range). */
int gd_runner_measure_point(gd_runner *runner, const gd_curve *curve, uint64_t x, gd_point *out,
                            gd_err *err);
int gd_runner_add_point(gd_runner *runner, gd_curve *curve, gd_point *point, size_t index,
                        size_t total, gd_err *err);
/* gd_runner_measure_point for xs[0..n) in one launch (n >= 2: the probe's
 * plan_batch, at most its batch_max; a batch longer than the display
 * watchdog allows is measured as its halves).  Every point gets the launch's
 * counters, with the gauge "batch_points" n when n >= 2. */
int gd_runner_measure_points(gd_runner *runner, const gd_curve *curve, const uint64_t *xs,
                             size_t n, gd_point *out, gd_err *err);
/* gd_runner_measure for a point the runner's own device runs while sweep
 * workers fork from that device (host/sweep_workers.c): a point the
 * checkpoint has is simulated again first, its result dropped, so that the
 * device the next workers fork from is in the state the interrupted run left
 * it in (a kernel loaded, its code in the caches, the allocator moved on). */
int gd_runner_measure_rebuilding(gd_runner *runner, gd_curve *curve, uint64_t x, size_t index,
                                 size_t total, gd_err *err);
/* The sweep is over (or stopped): the CSV written after each point as a
 * snapshot is written once more with an fsync, if any point was written since
 * the last call.  Call after gd_runner_sweep / gd_runner_adaptive, whatever
 * they returned. */
int gd_runner_settle_csv(gd_runner *runner, const gd_curve *curve, gd_err *err);
/* When the checkpoint has point x: adds it to the curve as gd_runner_add_point
 * would (*added 1); else *added 0. */
int gd_runner_add_stored(gd_runner *runner, gd_curve *curve, uint64_t x, size_t index,
                         size_t total, int *added, gd_err *err);
/* Whether the runner holds the kernel point x would load (the last or the
 * spare one): *has 1 or 0. */
int gd_runner_has_kernel(gd_runner *runner, const gd_curve *curve, uint64_t x, int *has,
                         gd_err *err);
/* Measures xs[0..n) and adds them to the curve in that order, progress lines
 * numbered from index0 (total 0: unknown); on a sim device in worker processes
 * (see `jobs`), else one after the other (host/sweep_workers.c). */
int gd_runner_measure_batch(gd_runner *runner, gd_curve *curve, const uint64_t *xs, size_t n,
                            size_t index0, size_t total, gd_err *err);
/* What `jobs` 0 means: the cores hwloc reports (at least 1). */
unsigned gd_runner_default_jobs(void);
/* "-j N": 1..GD_MAX_JOBS.  Returns 0, or -1 for anything else. */
#define GD_MAX_JOBS 256
int gd_parse_jobs_option(const char *text, unsigned *jobs);
/* Measures every point of the sweep (host/sweep_workers.c). */
int gd_runner_sweep(gd_runner *runner, gd_curve *curve, const gd_sweep *sweep, gd_err *err);

#endif
