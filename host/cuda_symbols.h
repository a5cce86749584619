/* cuda_symbols.h -- the CUDA driver entry points the cuda backend resolves.
 *
 * cuda.h renames many driver functions with macros: `cuMemAlloc` is really
 * `cuMemAlloc_v2`, `cuLinkCreate` is `cuLinkCreate_v2`, and so on, because the
 * driver keeps the old ABI under the old name (32-bit sizes, different
 * arguments).  A program that links libcuda gets the new names for free; one
 * that dlsym()s by hand must ask for the name the macro expands to, or it gets
 * the old ABI and corrupts pointers on a real card while every GPU-less test
 * still passes (the toolkit's stub library exports both names).
 *
 * So the backend never spells a driver name itself.  It lists the plain names
 * once, in GD_CUDA_DRIVER_SYMBOLS below, and asks for GD_CU_STR(name): the
 * two-level stringify expands the cuda.h macro first, giving "cuMemAlloc_v2".
 * gd_cuda_symbol_table() exposes the {plain, resolved} pairs it used, so that
 * tests/test_cuda_backend.c can check each against the header's expansion.
 */
#ifndef GD_CUDA_SYMBOLS_H
#define GD_CUDA_SYMBOLS_H

#include <stddef.h>

/* Stringify after macro expansion: GD_CU_STR(cuMemAlloc) is "cuMemAlloc_v2"
 * once <cuda.h> is included (and "cuMemAlloc" when it is not). */
#define GD_CU_STR2(x) #x
#define GD_CU_STR(x) GD_CU_STR2(x)

/* Every driver entry point the backend uses, by its plain (documented) name. */
#define GD_CUDA_DRIVER_SYMBOLS(X)                                                              \
    X(cuGetErrorName)                                                                          \
    X(cuGetErrorString)                                                                        \
    X(cuInit)                                                                                  \
    X(cuDriverGetVersion)                                                                      \
    X(cuDeviceGetCount)                                                                        \
    X(cuDeviceGet)                                                                             \
    X(cuDeviceGetName)                                                                         \
    X(cuDeviceGetAttribute)                                                                    \
    X(cuDeviceTotalMem)                                                                        \
    X(cuDeviceGetPCIBusId)                                                                     \
    X(cuDevicePrimaryCtxRetain)                                                                \
    X(cuDevicePrimaryCtxRelease)                                                               \
    X(cuCtxSetCurrent)                                                                         \
    X(cuCtxSynchronize)                                                                        \
    X(cuLinkCreate)                                                                            \
    X(cuLinkAddData)                                                                           \
    X(cuLinkComplete)                                                                          \
    X(cuLinkDestroy)                                                                           \
    X(cuModuleLoadData)                                                                        \
    X(cuModuleUnload)                                                                          \
    X(cuModuleGetFunction)                                                                     \
    X(cuModuleGetGlobal)                                                                       \
    X(cuFuncSetAttribute)                                                                      \
    X(cuFuncGetAttribute)                                                                      \
    X(cuMemAlloc)                                                                              \
    X(cuMemFree)                                                                               \
    X(cuMemcpyHtoD)                                                                            \
    X(cuMemcpyDtoH)                                                                            \
    X(cuMemsetD8)                                                                              \
    X(cuLaunchKernel)

typedef struct gd_cuda_symbol {
    const char *plain_name;    /* as documented: "cuMemAlloc" */
    const char *resolved_name; /* what the backend passes to dlsym: "cuMemAlloc_v2" */
} gd_cuda_symbol;

/* The table the backend resolves from, in GD_CUDA_DRIVER_SYMBOLS order; sets
 * *count.  Returns NULL with *count 0 when built without CUDA headers. */
const gd_cuda_symbol *gd_cuda_symbol_table(size_t *count);

#endif
