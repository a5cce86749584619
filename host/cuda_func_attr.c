/* cuda_func_attr.c -- the L1/shared carve-out of a loaded kernel, and what the
 * kernel asks of an SM.
 *
 * Since Volta the L1 data cache and shared memory are one storage per SM and
 * the driver splits it per kernel.  The split it picks follows the kernel's
 * *preferred carve-out* (CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
 * percent of the largest shared-memory size) and the shared memory its CTAs
 * need; left unset, the driver chooses by itself, so two probes of one run
 * could see two L1 sizes.  Every kernel the backend loads therefore gets the
 * preference set explicitly (0 = the most L1, gpudissect's default;
 * `--carveout PERCENT` chooses), and what the kernel then asks of an SM is read
 * back with cuFuncGetAttribute: the preference as the driver holds it, static
 * shared memory, registers per thread and local memory per thread -- what
 * meta.json records per kernel.  The L1 size the driver finally gives a launch
 * is not an attribute; the `l1-carveout` step measures it.
 *
 * Both entry points are resolved by the names cuda.h's macros expand to
 * (host/cuda_symbols.h); tests/test_cuda_backend.c checks the names and,
 * against the mock driver, that the attribute is set on every kernel.
 */
#include "host/cuda_backend.h"

#ifdef GD_HAVE_CUDA

#include <cuda.h>

static int func_attribute(cuda_device *dev, cuda_kernel *k, CUfunction_attribute attrib,
                          const char *attrib_name, int *value, gd_err *err)
{
    CUresult rc = dev->drv.cuFuncGetAttribute(value, attrib, k->function);
    if (rc != CUDA_SUCCESS)
        return cuda_fail(&dev->drv, rc, err, CU_NAME(cuFuncGetAttribute) "(%s, %s)",
                         attrib_name, k->base.entry);
    return 0;
}

int cuda_kernel_carveout(cuda_device *dev, cuda_kernel *k, int percent, gd_err *err)
{
    if (percent < 0 || percent > 100)
        return gd_fail(err, "%s: carve-out %d%% is not a percentage (0..100)", k->base.entry,
                       percent);
    if (cuda_make_current(dev, err) != 0)
        return -1;
    CUresult rc = dev->drv.cuFuncSetAttribute(
        k->function, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, percent);
    if (rc != CUDA_SUCCESS)
        return cuda_fail(&dev->drv, rc, err,
                         CU_NAME(cuFuncSetAttribute) "(%s, PREFERRED_SHARED_MEMORY_CARVEOUT, %d)",
                         k->base.entry, percent);
    int carveout, shared, regs, local;
    if (func_attribute(dev, k, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                       "PREFERRED_SHARED_MEMORY_CARVEOUT", &carveout, err) ||
        func_attribute(dev, k, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "SHARED_SIZE_BYTES", &shared,
                       err) ||
        func_attribute(dev, k, CU_FUNC_ATTRIBUTE_NUM_REGS, "NUM_REGS", &regs, err) ||
        func_attribute(dev, k, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "LOCAL_SIZE_BYTES", &local,
                       err))
        return -1;
    k->base.carveout_percent = carveout;
    k->base.static_shared_bytes = shared > 0 ? (uint32_t)shared : 0;
    k->base.registers_per_thread = regs;
    k->base.local_bytes_per_thread = local > 0 ? (uint32_t)local : 0;
    return 0;
}

#else
typedef int cuda_func_attr_needs_cuda_headers;
#endif
