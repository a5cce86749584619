/* mock_libcuda.c -- a fake CUDA driver for testing the cuda backend without a GPU.
 *
 * Built, with tests/mock_libcuda_kernels.c and tests/mock_libcuda_modules.c,
 * as libmockcuda.so and
 * loaded by host/cuda_device.c in place of libcuda.so.1
 * (GPUDISSECT_LIBCUDA=<path>).  It implements just the driver entry points the
 * backend resolves, for one fixed device described in tests/mock_libcuda.h,
 * and behaves like the driver where the backend could go wrong:
 *
 *   - Entry points are exported only under the names cuda.h maps them to
 *     (cuMemAlloc_v2, cuLinkCreate_v2, ...).  The legacy names (cuMemAlloc,
 *     cuLinkCreate, ...) and the per-thread-stream variants are exported too,
 *     as traps that abort: a backend that resolved a wrong name dies in the
 *     test instead of corrupting pointers on a real card.  Each definition is
 *     checked by the compiler against cuda.h's prototype for that name.
 *   - Calls that need a context fail with CUDA_ERROR_INVALID_CONTEXT unless the
 *     retained primary context is current; calls before cuInit fail with
 *     CUDA_ERROR_NOT_INITIALIZED.
 *   - "Device memory" is host memory, but every copy, memset and free is checked
 *     against the live allocations, so a garbled pointer or size is an error.
 *     Module variables (cuModuleGetGlobal_v2) live in the same table, so a
 *     copy past a variable's end is an error too.
 *
 * This file is the device, its context and its memory; the JIT and launches
 * are in mock_libcuda_kernels.c, modules in mock_libcuda_modules.c.
 * Single-threaded, like the tests.
 */
#ifndef GD_HAVE_CUDA
/* Without cuda.h there is nothing to mock; the test skips. */
typedef int mock_libcuda_needs_cuda_headers;
#else

#define GD_MOCK_LIBCUDA_INTERNAL
#include "tests/mock_libcuda.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MOCK_MAX_ALLOCATIONS 1024

struct CUctx_st {
    int refs;
};

typedef struct allocation {
    unsigned char *host;
    size_t bytes;
    int module_variable; /* storage of a module's variable, not cuMemAlloc's */
} allocation;

static int initialized;
static struct CUctx_st primary_context;
static CUcontext current_context;
static allocation allocations[MOCK_MAX_ALLOCATIONS];
static mock_cuda_state state;

const mock_cuda_state *mock_cuda_get_state(void);
void mock_cuda_reset_records(void);

const mock_cuda_state *mock_cuda_get_state(void)
{
    return &state;
}

mock_cuda_state *mock_cuda_records(void)
{
    return &state;
}

void mock_cuda_reset_records(void)
{
    memset(&state.last_launch, 0, sizeof state.last_launch);
    state.jit_info_log_given = state.jit_error_log_given = 0;
    state.jit_verbose = state.jit_target_from_context = 0;
    state.jit_ptxas_arch[0] = '\0';
    state.max_dynamic_shared_set = 0;
    state.last_image_from_jit = state.last_image_code_changed = 0;
    state.last_global_name[0] = '\0';
}

void mock_cc(int *major, int *minor)
{
    *major = MOCK_CUDA_CC_MAJOR;
    *minor = MOCK_CUDA_CC_MINOR;
    const char *env = getenv(MOCK_CUDA_CC_ENV);
    int a, b;
    if (env && sscanf(env, "%d.%d", &a, &b) == 2 && a > 0 && b >= 0) {
        *major = a;
        *minor = b;
    }
}

CUresult mock_need_context(void)
{
    if (!initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (current_context != &primary_context || primary_context.refs <= 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    return CUDA_SUCCESS;
}

/* MOCK_CUDA_DEVICE_COUNT, or GD_MOCK_CUDA_DEVICES (see mock_libcuda.h). */
static int device_count(void)
{
    const char *env = getenv(MOCK_CUDA_DEVICES_ENV);
    int n = env ? atoi(env) : 0;
    return n >= 1 && n <= MOCK_CUDA_MAX_DEVICES ? n : MOCK_CUDA_DEVICE_COUNT;
}

/* The ordinal GD_MOCK_CUDA_FAILING_DEVICE names, or -1. */
static int failing_device(void)
{
    const char *env = getenv(MOCK_CUDA_FAILING_DEVICE_ENV);
    return env && *env ? atoi(env) : -1;
}

static CUresult need_device(CUdevice dev)
{
    if (!initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    return dev >= 0 && dev < device_count() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

/* ---- errors, init, device queries -------------------------------------- */

static const struct {
    CUresult code;
    const char *name;
    const char *text;
} error_names[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {CUDA_ERROR_JIT_COMPILER_NOT_FOUND, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND",
     "PTX JIT compiler library not found"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_OPERATING_SYSTEM, "CUDA_ERROR_OPERATING_SYSTEM", "OS call failed"},
    {CUDA_ERROR_ECC_UNCORRECTABLE, "CUDA_ERROR_ECC_UNCORRECTABLE",
     "uncorrectable ECC error encountered"},
};

static int error_index(CUresult code)
{
    for (size_t i = 0; i < sizeof error_names / sizeof error_names[0]; i++)
        if (error_names[i].code == code)
            return (int)i;
    return -1;
}

CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr)
{
    int i = error_index(error);
    *pStr = i < 0 ? NULL : error_names[i].name;
    return i < 0 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr)
{
    int i = error_index(error);
    *pStr = i < 0 ? NULL : error_names[i].text;
    return i < 0 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

CUresult CUDAAPI cuInit(unsigned int Flags)
{
    if (Flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    initialized = 1;
    state.init_calls++;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDriverGetVersion(int *driverVersion)
{
    if (!driverVersion)
        return CUDA_ERROR_INVALID_VALUE;
    *driverVersion = MOCK_CUDA_DRIVER_VERSION;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetCount(int *count)
{
    if (!initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    *count = device_count();
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal)
{
    CUresult rc = need_device(ordinal);
    if (rc == CUDA_SUCCESS)
        *device = ordinal;
    return rc;
}

CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev)
{
    CUresult rc = need_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!name || len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    snprintf(name, (size_t)len, "%s", MOCK_CUDA_DEVICE_NAME);
    return CUDA_SUCCESS;
}

/* Only the attributes the backend is expected to ask for; anything else is an
 * error, so a query of the wrong attribute shows up in the tests. */
CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev)
{
    CUresult rc = need_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    switch (attrib) {
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *pi = MOCK_CUDA_SM_COUNT; break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: *pi = MOCK_CUDA_CLOCK_KHZ; break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *pi = MOCK_CUDA_L2_BYTES; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: mock_cc(pi, &(int){0}); break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: mock_cc(&(int){0}, pi); break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
        *pi = MOCK_CUDA_SHARED_PER_BLOCK_BYTES;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
        *pi = MOCK_CUDA_SHARED_PER_BLOCK_OPTIN_BYTES;
        break;
    case CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT: {
        const char *on = getenv(MOCK_CUDA_EXEC_TIMEOUT_ENV);
        *pi = on && on[0] == '1';
        break;
    }
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    CUresult rc = need_device(dev);
    if (rc == CUDA_SUCCESS)
        *bytes = (size_t)MOCK_CUDA_TOTAL_MEM_BYTES;
    return rc;
}

CUresult CUDAAPI cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
    CUresult rc = need_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!pciBusId || len < (int)sizeof MOCK_CUDA_PCI_BUS_ID)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev == 0)
        snprintf(pciBusId, (size_t)len, "%s", MOCK_CUDA_PCI_BUS_ID);
    else
        snprintf(pciBusId, (size_t)len, "0000:%02x:00.0", MOCK_CUDA_FIRST_PCI_BUS + dev);
    return CUDA_SUCCESS;
}

/* ---- context --------------------------------------------------------- */

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    CUresult rc = need_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (dev == failing_device())
        return CUDA_ERROR_ECC_UNCORRECTABLE;
    primary_context.refs++;
    state.primary_context_refs = primary_context.refs;
    *pctx = &primary_context;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    CUresult rc = need_device(dev);
    if (rc != CUDA_SUCCESS)
        return rc;
    if (primary_context.refs <= 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    primary_context.refs--;
    state.primary_context_refs = primary_context.refs;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx)
{
    if (!initialized)
        return CUDA_ERROR_NOT_INITIALIZED;
    if (ctx && (ctx != &primary_context || primary_context.refs <= 0))
        return CUDA_ERROR_INVALID_CONTEXT;
    current_context = ctx;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSynchronize(void)
{
    CUresult rc = mock_need_context();
    if (rc == CUDA_SUCCESS)
        state.synchronizes++;
    return rc;
}

/* ---- memory ---------------------------------------------------------- */

/* The allocation holding [ptr, ptr + bytes), or NULL. */
static allocation *find_allocation(CUdeviceptr ptr, size_t bytes)
{
    for (size_t i = 0; i < MOCK_MAX_ALLOCATIONS; i++) {
        allocation *a = &allocations[i];
        uintptr_t base = (uintptr_t)a->host;
        if (a->host && ptr >= base && ptr - base <= a->bytes && bytes <= a->bytes - (ptr - base))
            return a;
    }
    return NULL;
}

CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    CUresult rc = mock_need_context();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!dptr || bytesize == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (bytesize == MOCK_CUDA_UNNAMED_ERROR_ALLOC_BYTES)
        return (CUresult)MOCK_CUDA_UNNAMED_ERROR;
    if (bytesize > MOCK_CUDA_MAX_ALLOC_BYTES)
        return CUDA_ERROR_OUT_OF_MEMORY;
    for (size_t i = 0; i < MOCK_MAX_ALLOCATIONS; i++) {
        if (allocations[i].host)
            continue;
        allocations[i].host = malloc(bytesize);
        if (!allocations[i].host)
            return CUDA_ERROR_OUT_OF_MEMORY;
        allocations[i].bytes = bytesize;
        allocations[i].module_variable = 0;
        state.live_allocations++;
        *dptr = (CUdeviceptr)(uintptr_t)allocations[i].host;
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult mock_map_module_variable(size_t bytes, unsigned char **host)
{
    for (size_t i = 0; i < MOCK_MAX_ALLOCATIONS; i++) {
        if (allocations[i].host)
            continue;
        allocations[i].host = calloc(1, bytes ? bytes : 1);
        if (!allocations[i].host)
            return CUDA_ERROR_OUT_OF_MEMORY;
        allocations[i].bytes = bytes;
        allocations[i].module_variable = 1;
        *host = allocations[i].host;
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_OUT_OF_MEMORY;
}

void mock_unmap_module_variable(unsigned char *host)
{
    for (size_t i = 0; i < MOCK_MAX_ALLOCATIONS; i++) {
        if (host && allocations[i].host == host && allocations[i].module_variable) {
            free(host);
            memset(&allocations[i], 0, sizeof allocations[i]);
            return;
        }
    }
}

CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr)
{
    CUresult rc = mock_need_context();
    if (rc != CUDA_SUCCESS)
        return rc;
    for (size_t i = 0; i < MOCK_MAX_ALLOCATIONS; i++) {
        if (allocations[i].host && (uintptr_t)allocations[i].host == dptr &&
            !allocations[i].module_variable) {
            free(allocations[i].host);
            allocations[i].host = NULL;
            allocations[i].bytes = 0;
            state.live_allocations--;
            return CUDA_SUCCESS;
        }
    }
    return CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
    CUresult rc = mock_need_context();
    if (rc != CUDA_SUCCESS)
        return rc;
    const allocation *a = find_allocation(dstDevice, ByteCount);
    if (!srcHost || !a)
        return CUDA_ERROR_INVALID_VALUE;
    memcpy((void *)(uintptr_t)dstDevice, srcHost, ByteCount);
    if (a->module_variable)
        state.module_variable_copies++;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
    CUresult rc = mock_need_context();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!dstHost || !find_allocation(srcDevice, ByteCount))
        return CUDA_ERROR_INVALID_VALUE;
    memcpy(dstHost, (const void *)(uintptr_t)srcDevice, ByteCount);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
    CUresult rc = mock_need_context();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!find_allocation(dstDevice, N))
        return CUDA_ERROR_INVALID_VALUE;
    memset((void *)(uintptr_t)dstDevice, uc, N);
    return CUDA_SUCCESS;
}

/* ---- traps: names a correct backend never resolves ------------------------- */

static void wrong_entry_point(const char *name)
{
    fprintf(stderr, "mock libcuda: %s called: the backend resolved a legacy or per-thread-stream "
            "entry point instead of the name cuda.h maps to\n", name);
    abort();
}

#undef cuDeviceTotalMem
#undef cuDevicePrimaryCtxRelease
#undef cuLinkCreate
#undef cuLinkAddData
#undef cuMemAlloc
#undef cuMemFree
#undef cuMemcpyHtoD
#undef cuMemcpyDtoH
#undef cuMemsetD8
#undef cuModuleGetGlobal

#define MOCK_TRAP(name)                                                                        \
    void name(void);                                                                           \
    void name(void) { wrong_entry_point(#name); }

MOCK_TRAP(cuDeviceTotalMem)
MOCK_TRAP(cuDevicePrimaryCtxRelease)
MOCK_TRAP(cuLinkCreate)
MOCK_TRAP(cuLinkAddData)
MOCK_TRAP(cuMemAlloc)
MOCK_TRAP(cuMemFree)
MOCK_TRAP(cuMemcpyHtoD)
MOCK_TRAP(cuMemcpyDtoH)
MOCK_TRAP(cuMemsetD8)
MOCK_TRAP(cuModuleGetGlobal)
MOCK_TRAP(cuMemcpyHtoD_v2_ptds)
MOCK_TRAP(cuMemcpyDtoH_v2_ptds)
MOCK_TRAP(cuMemsetD8_v2_ptds)
MOCK_TRAP(cuLaunchKernel_ptsz)

/* cuda.h declares cuCtxSynchronize_v2 (it takes a context), so its trap keeps
 * the declared signature. */
CUresult CUDAAPI cuCtxSynchronize_v2(CUcontext ctx)
{
    (void)ctx;
    wrong_entry_point("cuCtxSynchronize_v2");
    return CUDA_ERROR_INVALID_VALUE;
}

#endif /* GD_HAVE_CUDA */

