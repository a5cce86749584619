/* cuda_device.c -- the "cuda:N" device: a real NVIDIA GPU through the driver API.
 *
 * This backend turns the calls of host/device.h into CUDA driver API calls: the
 * primary context of device N, plain cuMemAlloc/cuMemcpy memory and
 * cuLaunchKernel on the default stream.  Kernels -- PTX JIT-compiled with the
 * cuLink* API, the cubin it returns, SASS patches, modules and their variables
 * -- are in host/cuda_module.c; host/cuda_backend.h holds what the two share.
 *
 * gpudissect never links libcuda.  Most machines that build and test it have no
 * GPU, and a binary linked against libcuda would not even start there.  Instead
 * the driver is dlopen()ed when a cuda:N device is opened (GPUDISSECT_LIBCUDA
 * names another file, which is how the tests substitute a mock driver) and every
 * entry point is looked up by the name cuda.h maps it to -- see
 * host/cuda_symbols.h for why that matters.  Each pointer has the exact type the
 * header declares for that name (__typeof__ of the declaration), so the compiler
 * checks every call against the versioned ABI we asked for.
 *
 * Every failing driver call becomes one line naming the versioned entry point,
 * its key arguments and cuGetErrorName/cuGetErrorString.  The two failures a
 * user is most likely to meet -- no driver at all, or the CUDA toolkit's stub
 * libcuda found instead of the driver's -- get their own explanations.
 *
 * Without CUDA headers at build time the file still compiles, and every entry
 * point fails with a message saying how to rebuild.
 */
#include "host/cuda_device.h"

#include "host/cuda_backend.h"

#include "host/cupti.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef GD_HAVE_CUDA

int cuda_device_open(int ordinal, const gd_device_opts *opts, gd_device **out, gd_err *err)
{
    (void)ordinal, (void)opts;
    *out = NULL;
    return gd_fail(err, CUDA_NO_HEADERS_MSG);
}

int cuda_device_list(gd_device_info *infos, int max, int *count, gd_err *err)
{
    (void)infos, (void)max;
    *count = 0;
    return gd_fail(err, CUDA_NO_HEADERS_MSG);
}

const gd_cuda_symbol *gd_cuda_symbol_table(size_t *count)
{
    *count = 0;
    return NULL;
}

int cuda_device_watchdog(const gd_device *dev, int *watchdog_on)
{
    (void)dev;
    *watchdog_on = 0;
    return -1;
}

const char *cuda_device_counters_note(const gd_device *dev)
{
    (void)dev;
    return NULL;
}

#else /* GD_HAVE_CUDA */

#include <dlfcn.h>

#define CUDA_DEFAULT_LIBRARY "libcuda.so.1"
#define CUDA_LIBRARY_ENV "GPUDISSECT_LIBCUDA"

#define KHZ_PER_MHZ 1000.0

/* Warp schedulers ("processing blocks") per SM.  Maxwell (5.x) through Hopper
 * (9.0) split each SM into four processing blocks with a warp scheduler each
 * (NVIDIA's GM204, GP100, GV100, Turing, GA100 and GH100 whitepapers); Kepler's
 * SMX (3.x) has four warp schedulers without the partitioning (GK110
 * whitepaper); Fermi (2.x) has two (GF100 whitepaper). */
#define CUDA_WARP_SCHEDULERS_PER_SM 4
#define CUDA_WARP_SCHEDULERS_PER_SM_FERMI 2
#define CUDA_FIRST_CC_MAJOR_WITH_FOUR_SCHEDULERS 3

/* The names dlsym is asked for, and where each result is stored.  Both tables
 * come from the same list, so they cannot drift apart. */
#define CUDA_SYMBOL_ENTRY(name) {#name, GD_CU_STR(name)},
static const gd_cuda_symbol cuda_symbols[] = {GD_CUDA_DRIVER_SYMBOLS(CUDA_SYMBOL_ENTRY)};
#undef CUDA_SYMBOL_ENTRY
#define CUDA_SYMBOL_OFFSET(name) offsetof(cuda_driver, name),
static const size_t cuda_symbol_offsets[] = {GD_CUDA_DRIVER_SYMBOLS(CUDA_SYMBOL_OFFSET)};
#undef CUDA_SYMBOL_OFFSET
#define CUDA_SYMBOL_COUNT (sizeof cuda_symbols / sizeof cuda_symbols[0])
_Static_assert(sizeof cuda_symbol_offsets / sizeof cuda_symbol_offsets[0] == CUDA_SYMBOL_COUNT,
               "one offset per symbol");
_Static_assert(sizeof(void *) == sizeof(void (*)(void)),
               "dlsym results are stored into function pointers");

const gd_cuda_symbol *gd_cuda_symbol_table(size_t *count)
{
    *count = CUDA_SYMBOL_COUNT;
    return cuda_symbols;
}

/* ---- loading the driver ------------------------------------------------ */

static void cuda_driver_unload(cuda_driver *drv)
{
    if (drv->library)
        dlclose(drv->library);
    memset(drv, 0, sizeof *drv);
}

/* dlopen the driver, resolve every entry point, cuInit(0). */
static int cuda_driver_load(cuda_driver *drv, gd_err *err)
{
    memset(drv, 0, sizeof *drv);
    const char *path = getenv(CUDA_LIBRARY_ENV);
    if (!path || !*path)
        path = CUDA_DEFAULT_LIBRARY;

    /* RTLD_NODELETE: once cuInit has run, the driver has threads and exit
     * handlers of its own; unmapping it on dlclose would pull the code out from
     * under them.  dlclose then only drops our reference. */
    dlerror();
    drv->library = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!drv->library) {
        const char *why = dlerror();
        gd_fail(err, "no NVIDIA driver: cannot load %s (%s); install the NVIDIA driver to use "
                "cuda:N devices, or use a sim:ARCH device", path, why ? why : "unknown error");
        goto err;
    }

    for (size_t i = 0; i < CUDA_SYMBOL_COUNT; i++) {
        dlerror();
        void *symbol = dlsym(drv->library, cuda_symbols[i].resolved_name);
        if (!symbol) {
            const char *why = dlerror();
            gd_fail(err, "%s has no %s (%s): the NVIDIA driver is older than the CUDA %d.%d "
                    "headers gpudissect was built with", path, cuda_symbols[i].resolved_name,
                    why ? why : "not found", CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10);
            goto err;
        }
        memcpy((char *)drv + cuda_symbol_offsets[i], &symbol, sizeof symbol);
    }

    CUresult rc = drv->cuInit(0);
    if (rc == CUDA_ERROR_STUB_LIBRARY) {
        /* The toolkit ships lib64/stubs/libcuda.so for linking on GPU-less build
         * machines; every call in it returns this code, cuGetErrorName included. */
        gd_fail(err, "%s is the CUDA toolkit's stub library (CUDA_ERROR_STUB_LIBRARY), not a "
                "driver: install the NVIDIA driver", path);
        goto err;
    }
    if (rc != CUDA_SUCCESS) {
        cuda_fail(drv, rc, err, CU_NAME(cuInit) "(0) in %s", path);
        goto err;
    }
    return 0;

err:
    cuda_driver_unload(drv);
    return -1;
}

/* ---- device information -------------------------------------------------- */

static int cuda_attribute(const cuda_driver *drv, CUdevice device, CUdevice_attribute attribute,
                          const char *attribute_name, int *value, gd_err *err)
{
    CUresult rc = drv->cuDeviceGetAttribute(value, attribute, device);
    if (rc != CUDA_SUCCESS)
        return cuda_fail(drv, rc, err, CU_NAME(cuDeviceGetAttribute) "(%s, device %d)",
                         attribute_name, (int)device);
    return 0;
}
#define CUDA_ATTRIBUTE(drv, device, attribute, value, err)                                     \
    cuda_attribute((drv), (device), (attribute), #attribute, (value), (err))

static int cuda_query_info(const cuda_driver *drv, CUdevice device, int ordinal,
                           gd_device_info *info, gd_err *err)
{
    memset(info, 0, sizeof *info);
    snprintf(info->spec, sizeof info->spec, "cuda:%d", ordinal);
    snprintf(info->backend, sizeof info->backend, "cuda");
    info->toolkit_version = CUDA_VERSION;

    CUresult rc = drv->cuDeviceGetName(info->name, (int)sizeof info->name, device);
    if (rc != CUDA_SUCCESS)
        return cuda_fail(drv, rc, err, CU_NAME(cuDeviceGetName) "(device %d)", ordinal);
    info->name[sizeof info->name - 1] = '\0';

    int sm_count = 0, clock_khz = 0, l2_bytes = 0, shared_bytes = 0, shared_optin_bytes = 0;
    if (CUDA_ATTRIBUTE(drv, device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &sm_count, err) ||
        CUDA_ATTRIBUTE(drv, device, CU_DEVICE_ATTRIBUTE_CLOCK_RATE, &clock_khz, err) ||
        CUDA_ATTRIBUTE(drv, device, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &l2_bytes, err) ||
        CUDA_ATTRIBUTE(drv, device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                       &info->cc_major, err) ||
        CUDA_ATTRIBUTE(drv, device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                       &info->cc_minor, err) ||
        CUDA_ATTRIBUTE(drv, device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
                       &shared_bytes, err))
        return -1;
    /* The opt-in limit (what a CTA may use after cuFuncSetAttribute, which
     * launch does) is newer than the plain one; an old driver may not know it. */
    if (drv->cuDeviceGetAttribute(&shared_optin_bytes,
                                  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                  device) != CUDA_SUCCESS)
        shared_optin_bytes = 0;
    info->sm_count = sm_count;
    info->clock_mhz = clock_khz / KHZ_PER_MHZ;
    info->l2_bytes = (uint64_t)l2_bytes;
    info->shared_per_block_bytes =
        (uint32_t)(shared_optin_bytes > shared_bytes ? shared_optin_bytes : shared_bytes);
    info->subpartitions_per_sm = info->cc_major >= CUDA_FIRST_CC_MAJOR_WITH_FOUR_SCHEDULERS
                                     ? CUDA_WARP_SCHEDULERS_PER_SM
                                     : CUDA_WARP_SCHEDULERS_PER_SM_FERMI;

    size_t total_bytes = 0;
    rc = drv->cuDeviceTotalMem(&total_bytes, device);
    if (rc != CUDA_SUCCESS)
        return cuda_fail(drv, rc, err, CU_NAME(cuDeviceTotalMem) "(device %d)", ordinal);
    info->global_mem_bytes = total_bytes;

    rc = drv->cuDriverGetVersion(&info->driver_version);
    if (rc != CUDA_SUCCESS)
        return cuda_fail(drv, rc, err, CU_NAME(cuDriverGetVersion) "()");

    rc = drv->cuDeviceGetPCIBusId(info->pci_bus_id, (int)sizeof info->pci_bus_id, device);
    if (rc != CUDA_SUCCESS)
        return cuda_fail(drv, rc, err, CU_NAME(cuDeviceGetPCIBusId) "(device %d)", ordinal);
    info->pci_bus_id[sizeof info->pci_bus_id - 1] = '\0';
    return 0;
}

/* Look up device `ordinal`, failing with a clear line when there is none. */
static int cuda_get_device(const cuda_driver *drv, int ordinal, CUdevice *device, gd_err *err)
{
    int count = 0;
    CUresult rc = drv->cuDeviceGetCount(&count);
    if (rc != CUDA_SUCCESS)
        return cuda_fail(drv, rc, err, CU_NAME(cuDeviceGetCount) "()");
    if (ordinal < 0 || ordinal >= count)
        return gd_fail(err, "cuda:%d: no such device (the driver reports %d CUDA device%s)",
                       ordinal, count, count == 1 ? "" : "s");
    rc = drv->cuDeviceGet(device, ordinal);
    if (rc != CUDA_SUCCESS)
        return cuda_fail(drv, rc, err, CU_NAME(cuDeviceGet) "(%d)", ordinal);
    return 0;
}

int cuda_device_list(gd_device_info *infos, int max, int *count, gd_err *err)
{
    cuda_driver drv;
    *count = 0;
    if (cuda_driver_load(&drv, err) != 0)
        return -1;
    int total = 0;
    CUresult rc = drv.cuDeviceGetCount(&total);
    if (rc != CUDA_SUCCESS) {
        cuda_fail(&drv, rc, err, CU_NAME(cuDeviceGetCount) "()");
        goto err;
    }
    for (int i = 0; i < total && i < max; i++) {
        CUdevice device;
        if (cuda_get_device(&drv, i, &device, err) != 0 ||
            cuda_query_info(&drv, device, i, &infos[i], err) != 0)
            goto err;
        *count = i + 1;
    }
    cuda_driver_unload(&drv);
    return 0;

err:
    *count = 0;
    cuda_driver_unload(&drv);
    return -1;
}

/* ---- open / close ------------------------------------------------------ */

static void cuda_close(gd_device *base)
{
    cuda_device *dev = (cuda_device *)base;
    if (dev->cupti) {
        if (dev->context_retained)
            cuda_make_current(dev, NULL); /* CUPTI tears down on this context */
        gd_cupti_close(dev->cupti);
        dev->cupti = NULL;
    }
    if (dev->context_retained) {
        /* Leave no context of ours current on this thread, then drop our
         * reference; the driver destroys the primary context with the last one. */
        dev->drv.cuCtxSetCurrent(NULL);
        dev->drv.cuDevicePrimaryCtxRelease(dev->device);
    }
    cuda_driver_unload(&dev->drv);
    free(dev);
}

int cuda_device_open(int ordinal, const gd_device_opts *opts, gd_device **out, gd_err *err)
{
    (void)opts; /* overrides are refused for cuda devices in device.c */
    *out = NULL;
    cuda_device *dev = calloc(1, sizeof *dev);
    if (!dev)
        return gd_fail(err, "cuda:%d: out of memory", ordinal);
    dev->base.ops = &cuda_device_ops;

    if (cuda_driver_load(&dev->drv, err) != 0)
        goto err;
    cuda_driver *drv = &dev->drv;
    if (cuda_get_device(drv, ordinal, &dev->device, err) != 0 ||
        cuda_query_info(drv, dev->device, ordinal, &dev->base.info, err) != 0)
        goto err;

    /* A display-attached card kills long kernels; the runner splits long
     * points when this is set (host/runner.c). */
    if (CUDA_ATTRIBUTE(drv, dev->device, CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT,
                       &dev->kernel_exec_timeout, err) != 0)
        goto err;

    CUresult rc = drv->cuDevicePrimaryCtxRetain(&dev->context, dev->device);
    if (rc != CUDA_SUCCESS) {
        cuda_fail(drv, rc, err, CU_NAME(cuDevicePrimaryCtxRetain) "(device %d)", ordinal);
        goto err;
    }
    dev->context_retained = 1;
    if (cuda_make_current(dev, err) != 0)
        goto err;
    *out = &dev->base;
    return 0;

err:
    cuda_close(&dev->base);
    return -1;
}

int cuda_device_watchdog(const gd_device *base, int *watchdog_on)
{
    *watchdog_on = 0;
    if (!base || base->ops != &cuda_device_ops)
        return -1;
    *watchdog_on = ((const cuda_device *)base)->kernel_exec_timeout != 0;
    return 0;
}

/* ---- memory, launch ------------------------------------------------------ */

static int cuda_alloc(gd_device *base, size_t bytes, gd_devptr *out, gd_err *err)
{
    cuda_device *dev = (cuda_device *)base;
    CUdeviceptr ptr = 0;
    *out = 0;
    if (cuda_make_current(dev, err) != 0)
        return -1;
    CUresult rc = dev->drv.cuMemAlloc(&ptr, bytes);
    if (rc != CUDA_SUCCESS)
        return cuda_fail(&dev->drv, rc, err, CU_NAME(cuMemAlloc) "(%zu bytes)", bytes);
    *out = (gd_devptr)ptr;
    return 0;
}

static int cuda_release(gd_device *base, gd_devptr ptr, gd_err *err)
{
    cuda_device *dev = (cuda_device *)base;
    if (cuda_make_current(dev, err) != 0)
        return -1;
    CUresult rc = dev->drv.cuMemFree((CUdeviceptr)ptr);
    if (rc != CUDA_SUCCESS)
        return cuda_fail(&dev->drv, rc, err, CU_NAME(cuMemFree) "(0x%llx)",
                         (unsigned long long)ptr);
    return 0;
}

static int cuda_copy_in(gd_device *base, gd_devptr dst, const void *src, size_t bytes,
                        gd_err *err)
{
    cuda_device *dev = (cuda_device *)base;
    if (cuda_make_current(dev, err) != 0)
        return -1;
    CUresult rc = dev->drv.cuMemcpyHtoD((CUdeviceptr)dst, src, bytes);
    if (rc != CUDA_SUCCESS)
        return cuda_fail(&dev->drv, rc, err, CU_NAME(cuMemcpyHtoD) "(0x%llx, %zu bytes)",
                         (unsigned long long)dst, bytes);
    return 0;
}

static int cuda_copy_out(gd_device *base, void *dst, gd_devptr src, size_t bytes, gd_err *err)
{
    cuda_device *dev = (cuda_device *)base;
    if (cuda_make_current(dev, err) != 0)
        return -1;
    CUresult rc = dev->drv.cuMemcpyDtoH(dst, (CUdeviceptr)src, bytes);
    if (rc != CUDA_SUCCESS)
        return cuda_fail(&dev->drv, rc, err, CU_NAME(cuMemcpyDtoH) "(0x%llx, %zu bytes)",
                         (unsigned long long)src, bytes);
    return 0;
}

static int cuda_fill(gd_device *base, gd_devptr dst, uint8_t byte, size_t bytes, gd_err *err)
{
    cuda_device *dev = (cuda_device *)base;
    if (cuda_make_current(dev, err) != 0)
        return -1;
    CUresult rc = dev->drv.cuMemsetD8((CUdeviceptr)dst, byte, bytes);
    if (rc != CUDA_SUCCESS)
        return cuda_fail(&dev->drv, rc, err, CU_NAME(cuMemsetD8) "(0x%llx, 0x%02x, %zu bytes)",
                         (unsigned long long)dst, byte, bytes);
    return 0;
}

static int cuda_launch(gd_device *base, gd_kernel *kernel_base, const gd_launch *launch,
                       gd_err *err)
{
    cuda_device *dev = (cuda_device *)base;
    cuda_kernel *kernel = (cuda_kernel *)kernel_base;
    const cuda_driver *drv = &dev->drv;
    if (launch->param_count && !launch->param_values)
        return gd_fail(err, "%s: %u kernel parameters but no values", kernel->base.entry,
                       launch->param_count);
    if (cuda_make_current(dev, err) != 0)
        return -1;

    /* A CTA may use more than the default 48 KiB of shared memory only after
     * the kernel opts in; do that once per kernel and size. */
    CUresult rc;
    if (launch->dynamic_shared_bytes > kernel->dynamic_shared_optin_bytes) {
        rc = drv->cuFuncSetAttribute(kernel->function,
                                     CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                     (int)launch->dynamic_shared_bytes);
        if (rc != CUDA_SUCCESS)
            return cuda_fail(drv, rc, err,
                             CU_NAME(cuFuncSetAttribute) "(%s, MAX_DYNAMIC_SHARED_SIZE_BYTES, %u)",
                             kernel->base.entry, launch->dynamic_shared_bytes);
        kernel->dynamic_shared_optin_bytes = launch->dynamic_shared_bytes;
    }

    /* kernelParams[i] points at parameter i's value, exactly what gd_launch
     * holds; the driver only reads through it (the sizes it knows from the
     * cubin), so casting away const is safe. */
    void **params = launch->param_count ? (void **)(uintptr_t)launch->param_values : NULL;
    rc = drv->cuLaunchKernel(kernel->function, launch->grid[0], launch->grid[1], launch->grid[2],
                             launch->block[0], launch->block[1], launch->block[2],
                             launch->dynamic_shared_bytes, NULL, params, NULL);
    if (rc != CUDA_SUCCESS)
        return cuda_fail(drv, rc, err,
                         CU_NAME(cuLaunchKernel) "(%s, grid %ux%ux%u, block %ux%ux%u, %u bytes "
                         "dynamic shared, %u params)",
                         kernel->base.entry, launch->grid[0], launch->grid[1], launch->grid[2],
                         launch->block[0], launch->block[1], launch->block[2],
                         launch->dynamic_shared_bytes, launch->param_count);
    return 0;
}

static int cuda_synchronize(gd_device *base, gd_err *err)
{
    cuda_device *dev = (cuda_device *)base;
    if (cuda_make_current(dev, err) != 0)
        return -1;
    CUresult rc = dev->drv.cuCtxSynchronize();
    if (rc != CUDA_SUCCESS)
        return cuda_fail(&dev->drv, rc, err, CU_NAME(cuCtxSynchronize) "()");
    return 0;
}

/* The counters: CUPTI's range profiler (host/cupti.c), opened at the first read
 * -- before the first point's launches -- so that a run that never asks for
 * counters never loads CUPTI.  When it cannot run, the device has no counters
 * and says why once (cuda_device_counters_note, meta.json); the run goes on. */
static int cuda_counters(gd_device *base, gd_counter_list *out, gd_err *err)
{
    cuda_device *dev = (cuda_device *)base;
    if (cuda_make_current(dev, err) != 0)
        return -1;
    if (!dev->cupti_tried) {
        dev->cupti_tried = 1;
        gd_err why = {{0}};
        /* a CUPTI that crashes would take the run with it: tried in a child
         * first (host/cupti_selftest.c) */
        if (gd_cupti_selftest(dev->base.info.spec, &why) != 0) {
            dev->cupti = NULL;
            snprintf(dev->counters_note, sizeof dev->counters_note, "%s", why.msg);
        } else if (gd_cupti_open(dev->context, (int)dev->device, &dev->cupti, &why) != 0) {
            dev->cupti = NULL;
            snprintf(dev->counters_note, sizeof dev->counters_note, "%s", why.msg);
        }
    }
    if (!dev->cupti)
        return 0;
    if (gd_cupti_collect(dev->cupti, out, err) != 0)
        return gd_fail_prefix(err, "%s: counters", dev->base.info.spec);
    return 0;
}

const char *cuda_device_counters_note(const gd_device *base)
{
    if (!base || base->ops != &cuda_device_ops)
        return NULL;
    return ((const cuda_device *)base)->counters_note;
}

const struct gd_device_ops cuda_device_ops = {
    .close = cuda_close,
    .load = cuda_load,
    .unload = cuda_unload,
    .alloc = cuda_alloc,
    .release = cuda_release,
    .copy_in = cuda_copy_in,
    .copy_out = cuda_copy_out,
    .fill = cuda_fill,
    .write_symbol = cuda_write_symbol,
    .launch = cuda_launch,
    .synchronize = cuda_synchronize,
    .counters = cuda_counters,
};

#endif /* GD_HAVE_CUDA */
