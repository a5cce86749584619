/* cupti.h -- hardware counters of a cuda:N device through CUPTI's range profiler.
 *
 * The simulator counts L1/L2 hits and misses, requests and sectors, DRAM reads
 * and writes for every point (PROBE.counters.csv).  On a card the same numbers
 * come from the performance monitors, which CUPTI's range profiler reads per
 * kernel launch (auto range, kernel replay: CUPTI replays a launch itself when
 * the metrics need several passes).  host/cupti.c loads libcupti at run time --
 * like libcuda, never linked -- configures the metrics of GD_CUPTI_METRICS for
 * the device's chip, and gd_cupti_collect() turns every launch profiled since
 * the last call into running totals under the simulator's counter names, so
 * the runner's per-point differences work unchanged.
 *
 * When the profiler cannot run (no library, no permission to the performance
 * counters, a MIG instance, an old driver) gd_cupti_open fails with one line
 * "counters unavailable: <why>", which the device keeps and meta.json shows.
 */
#ifndef GD_CUPTI_H
#define GD_CUPTI_H

#include <stddef.h>

#include "host/device.h"

/* The library opened: GPUDISSECT_LIBCUPTI if set (the tests' mock), else the
 * first of GD_CUPTI_LIBRARY_NAMES that dlopen() finds. */
#define GD_CUPTI_LIBRARY_ENV "GPUDISSECT_LIBCUPTI"
#define GD_CUPTI_LIBRARY_NAMES {"libcupti.so", "libcupti.so.13", "libcupti.so.12"}

/* One metric: its CUPTI name, the simulator's counter it becomes, and whether
 * it is a running total (summed over launches) or a gauge (a ratio). */
typedef struct gd_cupti_metric {
    const char *cupti_name;
    const char *counter_name;
    int gauge;
} gd_cupti_metric;

/* The metrics collected, in order (cupti.c). */
const gd_cupti_metric *gd_cupti_metrics(size_t *count);

/* The CUPTI entry points, {plain name, the name dlsym() is asked for: what the
 * CUPTI headers' macros make of it}; the tests check them.  NULL, 0 when built
 * without CUPTI headers. */
typedef struct gd_cupti_symbol {
    const char *plain_name;
    const char *resolved_name;
} gd_cupti_symbol;
const gd_cupti_symbol *gd_cupti_symbol_table(size_t *count);

typedef struct gd_cupti gd_cupti;

/* Opens the range profiler on a CUDA context (a CUcontext, passed as void*
 * so that this header needs no cuda.h) of device `device_index` and starts
 * collecting.  Fails with "counters unavailable: ..." in err. */
int gd_cupti_open(void *cu_context, int device_index, gd_cupti **out, gd_err *err);
/* Stops, reads every range (launch) profiled since the last call, adds the
 * running totals into the session's sums and starts again; appends the sums
 * (and the last gauges) to `out`. */
int gd_cupti_collect(gd_cupti *c, gd_counter_list *out, gd_err *err);
/* The self-test (host/cupti_selftest.c): before a run trusts CUPTI in its own
 * process, the program set here (main(): /proc/self/exe; none in the tests'
 * in-process devices) runs `run --device SPEC --probe pchase --sweep
 * 1KiB:1KiB` with counters as a child.  gd_cupti_selftest fails with
 * "counters unavailable: CUPTI crashed a test run ..." when the child died of
 * a signal, or "... did not finish" after GD_CUPTI_SELFTEST_SECONDS; it passes
 * (0) when the child exited however it exited, when there is no program set,
 * and in the child itself (GD_CUPTI_SELFTEST_ENV set). */
#define GD_CUPTI_SELFTEST_ENV "GPUDISSECT_CUPTI_SELFTEST"
#define GD_CUPTI_SELFTEST_SECONDS 120
void gd_cupti_set_selftest_exe(const char *path);
int gd_cupti_selftest(const char *device_spec, gd_err *err);

/* The library that was opened. */
const char *gd_cupti_library(const gd_cupti *c);
void gd_cupti_close(gd_cupti *c);

#endif
