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

#endif
