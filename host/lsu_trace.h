/* lsu_trace.h -- `run --trace`: the simulated load/store unit's events, one CSV
 * row each, in RUN/lsu_trace.csv.
 *
 * A sim device reports every step of every L1 request through the device
 * interface (gd_device_trace: accepted by the LSU, enqueued by the coalescer,
 * hit / miss / merge / reservation fail and why, requeued, popped, filled);
 * this collects them for the whole run and writes
 * them atomically when it finishes, so a run can be followed cycle by cycle as
 * the patent's Figure 2 is.  Only sim devices have it: on cuda:N the option is
 * an error.  At most `limit` events are kept; the rest are counted. */
#ifndef GD_LSU_TRACE_H
#define GD_LSU_TRACE_H

#include <jansson.h>
#include <stdint.h>

#include "host/device.h"

#define GD_LSU_TRACE_DEFAULT_LIMIT 1000000u

typedef struct gd_lsu_trace gd_lsu_trace;

/* Starts the device's trace (gd_device_trace); fails, naming --trace, on a
 * device without one (cuda:N). */
int gd_lsu_trace_start(gd_device *dev, uint64_t limit, gd_lsu_trace **out, gd_err *err);

/* Unhooks it, writes DIR/lsu_trace.csv atomically and records in `entry`
 * (a probe entry of meta.json) the file, the events seen and those kept; frees
 * the trace (NULL is a no-op).  Called on failed runs too: what ran is kept. */
int gd_lsu_trace_finish(gd_lsu_trace *t, const char *dir, json_t *entry, gd_err *err);

#endif
