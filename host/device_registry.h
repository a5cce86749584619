/* device_registry.h -- open a device by its spec.
 *
 * The registry is the one place that knows every backend: "sim:ARCH" goes to
 * the simulated GPU (sim/sim_device.h), "cuda:N" to the CUDA driver backend
 * (host/cuda_device.h).  It sits above the contract (host/device.h), which the
 * backends include; the contract itself names no backend, so no room that
 * includes it reaches a backend through it.
 */
#ifndef GD_DEVICE_REGISTRY_H
#define GD_DEVICE_REGISTRY_H

#include "host/device.h"

/* Open "sim:ARCH" (ARCH: a bundled arch name or a path to an .arch file;
 * "sim:gpgpusim:PATH" runs a GPGPU-Sim config, imported on loading) or
 * "cuda:N".  opts may be NULL.  Close with gd_device_close (host/device.h). */
int gd_device_open(const char *spec, const gd_device_opts *opts, gd_device **out, gd_err *err);

#endif
