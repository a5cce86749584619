/* cuda_call.c -- how the CUDA backend calls the driver: in the context of the
 * device it means, and with every failure named.
 *
 * Both halves of the backend (cuda_device.c: open, memory, launch; and
 * cuda_module.c: loading kernels) call through these two functions; they live
 * apart from both so that neither half calls the other back.
 */
#include "host/cuda_backend.h"

#ifdef GD_HAVE_CUDA

#include <stdarg.h>
#include <stdio.h>

/* "<call> failed: CUDA_ERROR_X: description".  call_fmt names the entry point
 * and its key arguments.  The name lookups can fail too (an unknown code, or a
 * stub library that fails everything); the raw number is reported then. */
int cuda_fail(const cuda_driver *drv, CUresult rc, gd_err *err, const char *call_fmt, ...)
{
    char call[GD_ERR_MSG_BYTES / 2];
    va_list ap;
    va_start(ap, call_fmt);
    vsnprintf(call, sizeof call, call_fmt, ap);
    va_end(ap);

    const char *name = NULL;
    const char *text = NULL;
    if (drv->cuGetErrorName(rc, &name) != CUDA_SUCCESS)
        name = NULL;
    if (drv->cuGetErrorString(rc, &text) != CUDA_SUCCESS)
        text = NULL;
    if (!name)
        return gd_fail(err, "%s failed: CUresult %d (the driver has no name for it)", call,
                       (int)rc);
    return gd_fail(err, "%s failed: %s: %s", call, name, text ? text : "(no description)");
}

/* Every call makes this device's context current first: the harness may have
 * two cuda devices open on one thread, and the driver acts on whichever context
 * is current, not on the one we mean. */
int cuda_make_current(cuda_device *dev, gd_err *err)
{
    CUresult rc = dev->drv.cuCtxSetCurrent(dev->context);
    if (rc != CUDA_SUCCESS)
        return cuda_fail(&dev->drv, rc, err, CU_NAME(cuCtxSetCurrent) "(primary context of %s)",
                         dev->base.info.spec);
    return 0;
}

#else

/* Without CUDA headers there is no driver to call (host/cuda_device.c says so). */
typedef int cuda_call_needs_cuda_headers;

#endif
