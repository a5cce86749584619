/* cuda_device.h -- what the CUDA backend offers beyond the device interface.
 *
 * host/device.h is all the harness needs.  These two calls exist for tools that
 * work on the machine code itself (a SASS patcher): read back the cubin a kernel
 * was loaded from, and load a (patched) cubin directly, skipping the PTX JIT.
 * Both fail cleanly in a build without CUDA headers.
 */
#ifndef GD_CUDA_DEVICE_H
#define GD_CUDA_DEVICE_H

#include <stddef.h>

#include "host/device.h"

/* The cubin `kernel` was loaded from (owned by the kernel; valid until it is
 * unloaded).  `kernel` must come from a cuda:N device. */
int cuda_kernel_cubin(const gd_kernel *kernel, const void **bytes, size_t *size);

/* Load `entry` from a cubin (copied; the caller keeps its buffer).  code_bytes
 * and instruction_count are read from the cubin as for a PTX load; the JIT logs
 * are empty.  `dev` must be a cuda:N device. */
int cuda_kernel_load_cubin(gd_device *dev, const void *cubin, size_t size, const char *entry,
                           gd_kernel **out, gd_err *err);

#endif
