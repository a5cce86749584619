/* sim_device.h -- the simulated GPU as a device (sim/sim_device.c).
 *
 * The registry (host/device_registry.c) opens it for "sim:ARCH"; everything
 * else talks to it through the device contract (host/device.h).
 */
#ifndef GD_SIM_DEVICE_H
#define GD_SIM_DEVICE_H

#include "host/device.h"

/* Opens a simulated GPU described by `arch`: a bundled arch name ("t4") or a
 * path to an .arch file; opts->overrides ("SECTION.key=value") apply on top. */
int sim_device_open(const char *arch, const gd_device_opts *opts, gd_device **out, gd_err *err);

/* The writes each main-memory row received (before any write buffer: seed
 * 003's Figure 2), ascending, malloc'ed into *asc; *n = 0 (and *asc NULL) on
 * a device that is not simulated or whose arch has no PCM side (issue 13). */
int sim_device_row_writes(gd_device *dev, uint64_t **asc, uint64_t *n, gd_err *err);

/* The write buffer's list operations (sim/pcm_wbuf.h), one CSV row each
 * (SIM_WBUF_TRACE_COLUMNS), to sink (NULL: stops).  Returns 1 when hooked, 0
 * on a device that is not simulated or has no [WB] size. */
#define SIM_WBUF_TRACE_COLUMNS "launch,seq,op,row,list,from,to,dirty"
int sim_device_wbuf_trace(gd_device *dev, gd_trace_sink sink, void *user);

#endif
