/* cuda_device.h -- the CUDA backend: how it is opened, and what it offers
 * beyond the device interface.
 *
 * The registry (host/device_registry.c) opens it for "cuda:N"; after that
 * host/device.h is all the harness needs.  Two more calls exist for tools that
 * work on the machine code itself (a SASS patcher): read back the cubin a kernel
 * was loaded from, and load a (patched) cubin directly, skipping the PTX JIT.
 * Every call fails cleanly in a build without CUDA headers.
 */
#ifndef GD_CUDA_DEVICE_H
#define GD_CUDA_DEVICE_H

#include <stddef.h>

#include "host/device.h"

/* Opens CUDA device `ordinal`; fails with a clear message when the binary was
 * built without CUDA headers or no usable driver is there. */
int cuda_device_open(int ordinal, const gd_device_opts *opts, gd_device **out, gd_err *err);

/* Enumerate CUDA devices (for `gpudissect devices`): fills up to max infos and
 * sets *count.  Fails (with the no-driver / stub message) when there is no usable
 * driver. */
int cuda_device_list(gd_device_info *infos, int max, int *count, gd_err *err);

/* The cubin `kernel` was loaded from (owned by the kernel; valid until it is
 * unloaded).  `kernel` must come from a cuda:N device. */
int cuda_kernel_cubin(const gd_kernel *kernel, const void **bytes, size_t *size);

/* Load `entry` from a cubin (copied; the caller keeps its buffer).  code_bytes
 * and instruction_count are read from the cubin as for a PTX load; the JIT logs
 * are empty.  `dev` must be a cuda:N device. */
int cuda_kernel_load_cubin(gd_device *dev, const void *cubin, size_t size, const char *entry,
                           gd_kernel **out, gd_err *err);

#endif
