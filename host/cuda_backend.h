/* cuda_backend.h -- what the CUDA backend's own files share (not for the harness).
 *
 * The "cuda:N" device is two files behind host/device.h:
 *
 *   host/cuda_device.c  the driver (dlopen, entry points, errors), the device
 *                       (information, primary context), memory and launches;
 *   host/cuda_module.c  kernels: PTX JIT through cuLink*, the cubin it returns
 *                       (machine-code size, SASS patches), modules, and module
 *                       variables (write_symbol).
 *
 * This header holds the structs both see and the few calls one makes into the
 * other.  Everything here exists only when CUDA headers were found at build
 * time; without them each file compiles its "rebuild with CUDA_HOME" stubs.
 */
#ifndef GD_CUDA_BACKEND_H
#define GD_CUDA_BACKEND_H

#include "host/device.h"
#include "host/cuda_symbols.h"

#define CUDA_NO_HEADERS_MSG                                                                    \
    "this gpudissect was built without CUDA headers (set CUDA_HOME and rebuild)"

#ifdef GD_HAVE_CUDA

#include <cuda.h>
#include <stdint.h>

/* The name a driver entry point is resolved by, and named in errors by. */
#define CU_NAME(fn) GD_CU_STR(fn)

/* The driver entry points, one typed pointer each.  A field is named by what its
 * plain name expands to (cuMemAlloc_v2), so `drv->cuMemAlloc(...)` reads like
 * the documentation and calls the versioned entry point. */
typedef struct cuda_driver {
    void *library;
#define CUDA_DRIVER_FIELD(name) __typeof__(&name) name;
    GD_CUDA_DRIVER_SYMBOLS(CUDA_DRIVER_FIELD)
#undef CUDA_DRIVER_FIELD
} cuda_driver;

typedef struct cuda_device {
    gd_device base; /* first, so a gd_device* is a cuda_device* */
    cuda_driver drv;
    CUdevice device;
    CUcontext context;
    int context_retained;
    int kernel_exec_timeout; /* CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT: a watchdog */
    struct gd_cupti *cupti;  /* the counters (host/cupti.c), opened at the first read */
    int cupti_tried;
    char counters_note[GD_ERR_MSG_BYTES]; /* "counters unavailable: ..." or "" */
} cuda_device;

typedef struct cuda_kernel {
    gd_kernel base; /* first, so a gd_kernel* is a cuda_kernel* */
    void *cubin;    /* the image the module was loaded from (owned; patched if asked) */
    size_t cubin_bytes;
    void *jit_cubin; /* the JIT's own output when a patch changed it (owned); else NULL */
    size_t jit_cubin_bytes;
    CUmodule module;
    CUfunction function;
    unsigned dynamic_shared_optin_bytes; /* last CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
} cuda_kernel;

/* host/cuda_device.c */
extern const struct gd_device_ops cuda_device_ops;

/* "<call> failed: CUDA_ERROR_X: description" into err; returns -1.  call_fmt
 * names the entry point (CU_NAME) and its key arguments. */
int cuda_fail(const cuda_driver *drv, CUresult rc, gd_err *err, const char *call_fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Make this device's primary context current on the calling thread. */
int cuda_make_current(cuda_device *dev, gd_err *err);

/* host/cuda_func_attr.c: sets the kernel's preferred L1/shared carve-out
 * (percent of the largest shared memory, 0..100) and reads back what it asks
 * of an SM (carve-out, static shared bytes, registers, local bytes) into
 * kernel->base. */
int cuda_kernel_carveout(cuda_device *dev, cuda_kernel *kernel, int percent, gd_err *err);

/* host/cuda_module.c: the kernel half of cuda_device_ops. */
int cuda_load(gd_device *base, const char *ptx, const char *entry, const gd_load_opts *opts,
              gd_kernel **out, gd_err *err);
void cuda_unload(gd_device *base, gd_kernel *kernel);
int cuda_write_symbol(gd_device *base, gd_kernel *kernel, const char *name, const void *data,
                      size_t bytes, gd_err *err);

#endif /* GD_HAVE_CUDA */

#endif
