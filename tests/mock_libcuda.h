/* mock_libcuda.h -- what the mock CUDA driver pretends to be, and what it saw.
 *
 * tests/mock_libcuda.c, tests/mock_libcuda_kernels.c and
 * tests/mock_libcuda_modules.c build into libmockcuda.so, a stand-in for
 * libcuda.so.1 that the CUDA backend loads through GPUDISSECT_LIBCUDA.  It
 * describes one fixed device (the constants below), keeps "device memory" in
 * host memory, JIT-compiles PTX by running the real ptxas, reads the module
 * variables of each image it loads from the image's ELF symbol table, and
 * records what it was asked to do.  A test dlopen()s the same file and calls
 * mock_cuda_get_state() to check those records, mock_cuda_last_image() to see
 * the exact bytes the backend handed to cuModuleLoadData (a patched cubin, for
 * instance) and mock_cuda_global() to read what landed in a module variable.
 * Tests need no cuda.h for this header; only the mock's own internal section
 * uses it.
 */
#ifndef GD_MOCK_LIBCUDA_H
#define GD_MOCK_LIBCUDA_H

#include <stddef.h>

/* The one device, shaped like a Tesla T4 (sm_75). */
#define MOCK_CUDA_DEVICE_COUNT 1
#define MOCK_CUDA_DEVICE_NAME "gpudissect mock GPU (sm_75)"
#define MOCK_CUDA_SM_COUNT 40
#define MOCK_CUDA_CLOCK_KHZ 1590000
#define MOCK_CUDA_L2_BYTES (4 * 1024 * 1024)
#define MOCK_CUDA_CC_MAJOR 7
#define MOCK_CUDA_CC_MINOR 5
/* GD_MOCK_CC=MAJOR.MINOR in the environment makes the device report that
 * compute capability instead, and its JIT assemble for that sm_XY (a Blackwell
 * card, say: tests of what the backend does on targets it may not patch). */
#define MOCK_CUDA_CC_ENV "GD_MOCK_CC"
#define MOCK_CUDA_TOTAL_MEM_BYTES (16ull << 30)
#define MOCK_CUDA_SHARED_PER_BLOCK_BYTES 49152
#define MOCK_CUDA_SHARED_PER_BLOCK_OPTIN_BYTES 65536
#define MOCK_CUDA_DRIVER_VERSION 13000
#define MOCK_CUDA_PCI_BUS_ID "0000:65:00.0"
/* cuFuncGetAttribute(CU_FUNC_ATTRIBUTE_NUM_REGS) of every function. */
#define MOCK_CUDA_REGISTERS_PER_THREAD 40

/* Several devices, one of them failing (tests/test_fleet.c, `--device
 * cuda:all`): GD_MOCK_CUDA_DEVICES=N (1..MOCK_CUDA_MAX_DEVICES) presents N
 * copies of the device, ordinal i on PCI bus 0x65 + i ("0000:66:00.0", ...);
 * GD_MOCK_CUDA_FAILING_DEVICE=K makes cuDevicePrimaryCtxRetain on ordinal K
 * fail with CUDA_ERROR_ECC_UNCORRECTABLE (it still enumerates, as a card with
 * ECC errors does).  Unset: the one device above. */
#define MOCK_CUDA_DEVICES_ENV "GD_MOCK_CUDA_DEVICES"
#define MOCK_CUDA_FAILING_DEVICE_ENV "GD_MOCK_CUDA_FAILING_DEVICE"
#define MOCK_CUDA_MAX_DEVICES 8
#define MOCK_CUDA_FIRST_PCI_BUS 0x65

/* cuMemAlloc_v2 refuses more than this with CUDA_ERROR_OUT_OF_MEMORY (the mock
 * really mallocs, so the limit is far below the advertised total). */
#define MOCK_CUDA_MAX_ALLOC_BYTES (1ull << 30)
/* cuMemAlloc_v2 of exactly this size returns MOCK_CUDA_UNNAMED_ERROR, a code
 * cuGetErrorName does not know, to test the backend's fallback. */
#define MOCK_CUDA_UNNAMED_ERROR_ALLOC_BYTES 12345
#define MOCK_CUDA_UNNAMED_ERROR 9999

/* Environment knobs a test sets before the backend calls in:
 *   MOCK_CUDA_JIT_DROP_ENV=TEXT  the JIT leaves out the first PTX line holding
 *                                TEXT (a driver JIT that differs from ptxas);
 *   MOCK_CUDA_JIT_MOVE_ENV=A|B|C the JIT moves the PTX lines from the first one
 *                                holding A through the next one holding B up
 *                                to just before the last line holding C that
 *                                precedes them (a JIT that schedules a load
 *                                ahead of others: the machine code issues it
 *                                earlier, its dataflow unchanged);
 *   MOCK_CUDA_EXEC_TIMEOUT_ENV=1 CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT is 1
 *                                (a display-attached card with a watchdog). */
#define MOCK_CUDA_JIT_DROP_ENV "GD_MOCK_CUDA_JIT_DROP"
#define MOCK_CUDA_JIT_MOVE_ENV "GD_MOCK_CUDA_JIT_MOVE"
#define MOCK_CUDA_EXEC_TIMEOUT_ENV "GD_MOCK_CUDA_EXEC_TIMEOUT"

#define MOCK_CUDA_MAX_PARAMS 32
#define MOCK_CUDA_MAX_PARAM_BYTES 4096
#define MOCK_CUDA_ENTRY_BYTES 128

typedef struct mock_cuda_launch {
    char entry[MOCK_CUDA_ENTRY_BYTES];
    unsigned grid[3];
    unsigned block[3];
    unsigned shared_bytes;
    int default_stream; /* hStream was NULL */
    unsigned param_count;
    size_t param_sizes[MOCK_CUDA_MAX_PARAMS];
    size_t param_offsets[MOCK_CUDA_MAX_PARAMS]; /* into param_bytes */
    unsigned char param_bytes[MOCK_CUDA_MAX_PARAM_BYTES];
} mock_cuda_launch;

typedef struct mock_cuda_state {
    int init_calls;
    int primary_context_refs; /* retains minus releases */
    int live_allocations;
    int live_modules;
    int live_links;
    int launches;
    int synchronizes;
    /* What the last cuLinkCreate_v2 was given. */
    int jit_info_log_given;
    int jit_error_log_given;
    int jit_verbose;
    int jit_target_from_context;
    char jit_ptxas_arch[16]; /* "sm_75" */
    int max_dynamic_shared_set; /* last CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
    /* CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: how many times it was
     * set, the last value and on which entry; cuFuncGetAttribute calls. */
    int carveout_sets;
    int last_carveout;
    char last_carveout_entry[MOCK_CUDA_ENTRY_BYTES];
    int function_attribute_gets;
    mock_cuda_launch last_launch;
    /* What the last successful cuModuleLoadData was given (its bytes: see
     * mock_cuda_last_image). */
    int module_loads;
    int last_image_from_jit;     /* a cubin this mock's JIT produced ... */
    int last_image_code_changed; /* ... with bytes changed inside its code (.text.*) */
    /* cuModuleGetGlobal_v2 and copies into module variables. */
    int global_lookups;
    char last_global_name[MOCK_CUDA_ENTRY_BYTES];
    int module_variable_copies; /* cuMemcpyHtoD_v2 calls that wrote a module variable */
} mock_cuda_state;

/* Exported by libmockcuda.so; look them up with dlsym by these names. */
#define MOCK_CUDA_STATE_SYMBOL "mock_cuda_get_state"
#define MOCK_CUDA_RESET_SYMBOL "mock_cuda_reset_records"
typedef const mock_cuda_state *(*mock_cuda_state_fn)(void);
typedef void (*mock_cuda_reset_fn)(void); /* zero the launch/JIT records, keep the counts */
/* The image the last successful cuModuleLoadData loaded (a copy the mock keeps
 * until the next load), and its size as its ELF headers span it. */
#define MOCK_CUDA_LAST_IMAGE_SYMBOL "mock_cuda_last_image"
typedef const void *(*mock_cuda_last_image_fn)(size_t *bytes);
/* The "device memory" of module variable `name` in the most recently loaded
 * live module that has one, and its size; NULL if none. */
#define MOCK_CUDA_GLOBAL_SYMBOL "mock_cuda_global"
typedef const void *(*mock_cuda_global_fn)(const char *name, size_t *bytes);

#ifdef GD_MOCK_LIBCUDA_INTERNAL
/* Shared by the mock's own files (mock_libcuda.c: device, context, memory;
 * mock_libcuda_kernels.c: JIT and launches; mock_libcuda_modules.c: modules,
 * functions, module variables).  Tests do not use these. */
#include <cuda.h>
mock_cuda_state *mock_cuda_records(void);
/* CUDA_SUCCESS when initialized with the retained primary context current. */
CUresult mock_need_context(void);
/* The compute capability the device reports (MOCK_CUDA_CC_ENV, else 7.5). */
void mock_cc(int *major, int *minor);

/* A kernel of a loaded module, with the parameter sizes its PTX declares. */
struct CUfunc_st {
    struct CUfunc_st *next;
    char name[MOCK_CUDA_ENTRY_BYTES];
    unsigned param_count;
    size_t param_sizes[MOCK_CUDA_MAX_PARAMS];
    int max_dynamic_shared;
    int carveout;               /* PREFERRED_SHARED_MEMORY_CARVEOUT; -1 until set */
    int static_shared_bytes;    /* the .shared arrays its PTX declares */
};
int mock_function_is_live(CUfunction f);
/* mock_libcuda_funcattr.c: what a new function reports before anything is set. */
void mock_function_attributes_init(struct CUfunc_st *fn, const char *ptx);
/* cuFuncSetAttribute's PREFERRED_SHARED_MEMORY_CARVEOUT: -1..100, recorded. */
CUresult mock_set_carveout(struct CUfunc_st *fn, int value);

/* Zeroed "device memory" for a module variable: an entry of the allocation
 * table, so copies to it are checked like any, that cuMemFree refuses and the
 * live-allocation count leaves out.  Released with its module. */
CUresult mock_map_module_variable(size_t bytes, unsigned char **host);
void mock_unmap_module_variable(unsigned char *host);

/* The cubins this mock's JIT produced, with their PTX (index < count). */
size_t mock_jit_output_count(void);
const unsigned char *mock_jit_output(size_t index, size_t *bytes, const char **ptx);
#endif

#endif
