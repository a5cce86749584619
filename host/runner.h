/* runner.h -- measure a probe's sweep on a device.
 *
 * The runner is the only code that drives a device for a probe: it plans each
 * point with the probe, allocates and fills the buffers, loads the kernel (once
 * per distinct PTX text), launches, copies back, hands the buffers to the
 * probe's decoder and summarizes the samples.  Each finished point is written
 * to results/RUN/<label>.csv at once (atomically), so an interrupted sweep keeps
 * every point it finished.
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
} gd_sweep;

/* "A:B" (A, 2A, 4A, ... B), "A:B:N" (N points, geometric), "A:B:+S" (step S).
 * Sizes take units (1KiB, 8MiB).  Points are rounded to multiples of
 * `granularity` (>= 1) and deduplicated. */
int gd_sweep_parse(const char *spec, uint64_t granularity, gd_sweep *out, gd_err *err);
void gd_sweep_free(gd_sweep *sweep);

typedef struct gd_runner {
    gd_device *dev;
    char out_dir[512];        /* empty: write no files */
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
    size_t points_measured;
    /* The preferred L1/shared carve-out set on every kernel (percent of the
     * largest shared memory; 0: the most L1), and what each kernel asked of an
     * SM (host/kernel_record.h), for meta.json's "kernels". */
    int carveout_percent;
    json_t *kernels;
} gd_runner;

void gd_runner_init(gd_runner *runner, gd_device *dev, const char *out_dir, FILE *progress);
void gd_runner_close(gd_runner *runner);

/* Measures one point and inserts it into the curve (replacing an equal x).
 * `index`/`total` are for the progress line (total 0: unknown). */
int gd_runner_measure(gd_runner *runner, gd_curve *curve, uint64_t x, size_t index, size_t total,
                      gd_err *err);
/* Measures every point of the sweep. */
int gd_runner_sweep(gd_runner *runner, gd_curve *curve, const gd_sweep *sweep, gd_err *err);

#endif
