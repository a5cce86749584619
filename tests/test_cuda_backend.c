/* test_cuda_backend.c -- the cuda:N backend, tested on a machine without a GPU.
 *
 * Three things can be checked without a card, and each is a place where a real
 * GPU run would otherwise be the first to find the bug:
 *
 *   - the user-facing failures: no driver installed, or the CUDA toolkit's stub
 *     libcuda.so found in its place;
 *   - the names the backend dlsym()s: each must be what cuda.h maps the plain
 *     name to (cuMemAlloc -> cuMemAlloc_v2), because the old names still exist
 *     with the old ABI;
 *   - the whole backend driven through libmockcuda.so (tests/mock_libcuda*.c), a
 *     fake driver that exports only the versioned names (the legacy ones abort),
 *     JIT-compiles with the real ptxas and records every launch: loads, a load
 *     whose FFMA block is patched into NOPs (the mock hands back the exact
 *     image it was given, so the test sees what a card would run), launches,
 *     and writes to a module's .const variable.
 *
 * The mock is found as GD_MOCK_LIBCUDA, else as libmockcuda.so next to this
 * test binary (build/tests/).  Tests that need ptxas, the stub library, CUDA
 * headers or the mock say "skipped: why" when those are missing.  The cubin
 * reader has its own test, tests/test_cubin_elf.c.
 */
#include "tests/testing.h"

#include "host/cuda_device.h"
#include "host/cuda_symbols.h"
#include "host/device.h"
#include "host/device_registry.h"
#include "kernels/cubin_elf.h"
#include "kernels/sass_patch.h"
#include "tests/cuda_test_kernels.h"
#include "tests/mock_libcuda.h"

#include <dlfcn.h>
#include <elf.h>

#ifdef GD_HAVE_CUDA
#include <cuda.h>
#endif

#define LIBCUDA_ENV "GPUDISSECT_LIBCUDA"

static void expect_open_fails(const char *needle)
{
    gd_device *dev = (gd_device *)(uintptr_t)1; /* must come back NULL */
    gd_err err = {{0}};
    assert_int_equal(gd_device_open("cuda:0", NULL, &dev, &err), -1);
    assert_null(dev);
    assert_contains(err.msg, needle);
    assert_null(strchr(err.msg, '\n'));

    gd_device_info infos[2];
    int count = 7;
    memset(&err, 0, sizeof err);
    assert_int_equal(cuda_device_list(infos, 2, &count, &err), -1);
    assert_int_equal(count, 0);
    assert_contains(err.msg, needle);
}

static void test_no_driver(void **unused)
{
    (void)unused;
    setenv(LIBCUDA_ENV, "/nonexistent/gpudissect/libcuda.so.1", 1);
#ifdef GD_HAVE_CUDA
    expect_open_fails("no NVIDIA driver");
    expect_open_fails("/nonexistent/gpudissect/libcuda.so.1");
#else
    expect_open_fails("built without CUDA headers");
#endif
    unsetenv(LIBCUDA_ENV);
}

static const char *stub_library_path(void)
{
    static char path[1024];
    const char *home = getenv("CUDA_HOME");
    const char *const candidates[] = {"lib64/stubs/libcuda.so",
                                      "targets/x86_64-linux/lib/stubs/libcuda.so"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", home && *home ? home : "/usr/local/cuda",
                 candidates[i]);
        if (access(path, R_OK) == 0)
            return path;
    }
    return NULL;
}

static void test_stub_library(void **unused)
{
    (void)unused;
#ifndef GD_HAVE_CUDA
    GD_SKIP("built without CUDA headers");
#endif
    const char *stub = stub_library_path();
    if (!stub)
        GD_SKIP("CUDA toolkit stub libcuda.so not found");
    setenv(LIBCUDA_ENV, stub, 1);
    expect_open_fails("stub library");
    expect_open_fails("CUDA_ERROR_STUB_LIBRARY");
    expect_open_fails(stub);
    unsetenv(LIBCUDA_ENV);
}

#ifdef GD_HAVE_CUDA
static const gd_cuda_symbol *find_symbol(const gd_cuda_symbol *table, size_t count,
                                         const char *plain)
{
    for (size_t i = 0; i < count; i++)
        if (strcmp(table[i].plain_name, plain) == 0)
            return &table[i];
    return NULL;
}
#endif

static void test_symbol_names(void **unused)
{
    (void)unused;
#ifndef GD_HAVE_CUDA
    size_t none = 1;
    assert_null(gd_cuda_symbol_table(&none));
    assert_int_equal(none, 0);
    GD_SKIP("built without CUDA headers");
#else
    size_t count = 0;
    const gd_cuda_symbol *table = gd_cuda_symbol_table(&count);
    assert_non_null(table);

    /* The table must be the header's expansion of each plain name, computed
     * here independently of the backend's translation unit. */
#define EXPECTED_SYMBOL(name) {#name, GD_CU_STR(name)},
    static const gd_cuda_symbol expected[] = {GD_CUDA_DRIVER_SYMBOLS(EXPECTED_SYMBOL)};
#undef EXPECTED_SYMBOL
    assert_int_equal(count, sizeof expected / sizeof expected[0]);
    for (size_t i = 0; i < count; i++) {
        assert_string_equal(table[i].plain_name, expected[i].plain_name);
        assert_string_equal(table[i].resolved_name, expected[i].resolved_name);
    }

    /* And spelled out, for the names whose ABI changed (CUDA 13 headers). */
    static const char *const known[][2] = {
        {"cuMemAlloc", "cuMemAlloc_v2"},       {"cuMemFree", "cuMemFree_v2"},
        {"cuMemcpyHtoD", "cuMemcpyHtoD_v2"},   {"cuMemcpyDtoH", "cuMemcpyDtoH_v2"},
        {"cuMemsetD8", "cuMemsetD8_v2"},       {"cuLinkCreate", "cuLinkCreate_v2"},
        {"cuLinkAddData", "cuLinkAddData_v2"}, {"cuDeviceTotalMem", "cuDeviceTotalMem_v2"},
        {"cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxRelease_v2"},
        {"cuLaunchKernel", "cuLaunchKernel"},  {"cuCtxSynchronize", "cuCtxSynchronize"},
        {"cuInit", "cuInit"},                  {"cuModuleGetGlobal", "cuModuleGetGlobal_v2"},
        {"cuFuncSetAttribute", "cuFuncSetAttribute"},
        {"cuFuncGetAttribute", "cuFuncGetAttribute"},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        const gd_cuda_symbol *symbol = find_symbol(table, count, known[i][0]);
        if (!symbol)
            fail_msg("backend does not resolve %s", known[i][0]);
        assert_string_equal(symbol->resolved_name, known[i][1]);
    }
    /* Header sanity for names the backend may come to use. */
    assert_string_equal(GD_CU_STR(cuGetProcAddress), "cuGetProcAddress_v2");
    assert_string_equal(GD_CU_STR(cuModuleGetGlobal), "cuModuleGetGlobal_v2");
    assert_string_equal(GD_CU_STR(cuCtxCreate), "cuCtxCreate_v4");

    /* Every resolved name is a real export of this toolkit's driver ABI. */
    const char *stub = stub_library_path();
    if (!stub) {
        printf("note: stub libcuda.so not found; resolved names not checked against it\n");
        return;
    }
    void *library = dlopen(stub, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(library);
    for (size_t i = 0; i < count; i++)
        if (!dlsym(library, table[i].resolved_name))
            fail_msg("%s does not export %s", stub, table[i].resolved_name);
    dlclose(library);
#endif
}

/* ---- the backend against the mock driver -------------------------------------- */

typedef struct mock_driver {
    void *library;
    mock_cuda_state_fn state;
    mock_cuda_reset_fn reset;
    mock_cuda_last_image_fn last_image;
    mock_cuda_global_fn global;
} mock_driver;

/* Point the backend at the mock and open our own handle on the same library
 * (dlopen returns the one already loaded, so both see the same records). */
static void use_mock_driver(mock_driver *mock)
{
#ifndef GD_HAVE_CUDA
    GD_SKIP("built without CUDA headers; the mock driver needs them");
#endif
    const char *path = gd_test_mock_libcuda();
    if (!path)
        GD_SKIP("mock driver libmockcuda.so not found next to the test (or GD_MOCK_LIBCUDA)");
    mock->library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!mock->library)
        fail_msg("dlopen %s: %s", path, dlerror());
    mock->state = (mock_cuda_state_fn)dlsym(mock->library, MOCK_CUDA_STATE_SYMBOL);
    mock->reset = (mock_cuda_reset_fn)dlsym(mock->library, MOCK_CUDA_RESET_SYMBOL);
    mock->last_image = (mock_cuda_last_image_fn)dlsym(mock->library, MOCK_CUDA_LAST_IMAGE_SYMBOL);
    mock->global = (mock_cuda_global_fn)dlsym(mock->library, MOCK_CUDA_GLOBAL_SYMBOL);
    assert_non_null(mock->state);
    assert_non_null(mock->reset);
    assert_non_null(mock->last_image);
    assert_non_null(mock->global);
    mock->reset();
    setenv(LIBCUDA_ENV, path, 1);
}

static void release_mock_driver(mock_driver *mock)
{
    unsetenv(LIBCUDA_ENV);
    dlclose(mock->library);
}

static gd_device *open_mock_device(void)
{
    gd_device *dev = NULL;
    gd_err err = {{0}};
    if (gd_device_open("cuda:0", NULL, &dev, &err) != 0)
        fail_msg("open cuda:0 on the mock: %s", err.msg);
    return dev;
}

static void need_ptxas_for_mock(void)
{
    const char *ptxas = gd_test_ptxas();
    if (!ptxas)
        GD_SKIP("ptxas not found (the mock driver JITs with it)");
    setenv("PTXAS", ptxas, 1);
}

static void test_mock_device_info(void **unused)
{
    (void)unused;
    mock_driver mock;
    use_mock_driver(&mock);
    gd_device *dev = open_mock_device();
    const gd_device_info *info = gd_device_get_info(dev);
    assert_string_equal(info->spec, "cuda:0");
    assert_string_equal(info->backend, "cuda");
    assert_string_equal(info->name, MOCK_CUDA_DEVICE_NAME);
    assert_int_equal(info->sm_count, MOCK_CUDA_SM_COUNT);
    assert_int_equal(info->subpartitions_per_sm, 4);
    assert_true(info->clock_mhz == MOCK_CUDA_CLOCK_KHZ / 1000.0);
    assert_int_equal(info->l2_bytes, MOCK_CUDA_L2_BYTES);
    assert_int_equal(info->global_mem_bytes, MOCK_CUDA_TOTAL_MEM_BYTES);
    assert_int_equal(info->shared_per_block_bytes, MOCK_CUDA_SHARED_PER_BLOCK_OPTIN_BYTES);
    assert_int_equal(info->cc_major, MOCK_CUDA_CC_MAJOR);
    assert_int_equal(info->cc_minor, MOCK_CUDA_CC_MINOR);
    assert_int_equal(info->driver_version, MOCK_CUDA_DRIVER_VERSION);
#ifdef GD_HAVE_CUDA
    assert_int_equal(info->toolkit_version, CUDA_VERSION);
#endif
    assert_string_equal(info->pci_bus_id, MOCK_CUDA_PCI_BUS_ID);
    assert_int_equal(mock.state()->primary_context_refs, 1);
    gd_device_close(dev);
    assert_int_equal(mock.state()->primary_context_refs, 0);

    gd_device_info infos[4];
    int count = 0;
    gd_err err = {{0}};
    assert_int_equal(cuda_device_list(infos, 4, &count, &err), 0);
    assert_int_equal(count, MOCK_CUDA_DEVICE_COUNT);
    assert_string_equal(infos[0].spec, "cuda:0");
    assert_string_equal(infos[0].name, MOCK_CUDA_DEVICE_NAME);
    assert_int_equal(cuda_device_list(infos, 0, &count, &err), 0);
    assert_int_equal(count, 0);

    gd_device *missing = NULL;
    assert_int_equal(gd_device_open("cuda:1", NULL, &missing, &err), -1);
    assert_null(missing);
    assert_contains(err.msg, "cuda:1: no such device");
    assert_int_equal(mock.state()->primary_context_refs, 0);
    release_mock_driver(&mock);
}

static void test_mock_memory(void **unused)
{
    (void)unused;
    enum { BUFFER_BYTES = 4096 };
    mock_driver mock;
    use_mock_driver(&mock);
    gd_device *dev = open_mock_device();
    gd_err err = {{0}};
    gd_devptr ptr = 0;
    unsigned char in[BUFFER_BYTES], out[BUFFER_BYTES];

    assert_int_equal(gd_mem_alloc(dev, BUFFER_BYTES, &ptr, &err), 0);
    assert_true(ptr != 0);
    assert_int_equal(gd_mem_fill(dev, ptr, 0xAB, BUFFER_BYTES, &err), 0);
    assert_int_equal(gd_mem_copy_out(dev, out, ptr, BUFFER_BYTES, &err), 0);
    for (size_t i = 0; i < BUFFER_BYTES; i++)
        assert_int_equal(out[i], 0xAB);
    for (size_t i = 0; i < BUFFER_BYTES; i++)
        in[i] = (unsigned char)(i * 7 + 3);
    assert_int_equal(gd_mem_copy_in(dev, ptr, in, BUFFER_BYTES, &err), 0);
    memset(out, 0, sizeof out);
    assert_int_equal(gd_mem_copy_out(dev, out, ptr, BUFFER_BYTES, &err), 0);
    assert_memory_equal(in, out, BUFFER_BYTES);
    assert_int_equal(gd_mem_copy_out(dev, out, ptr + 16, 32, &err), 0);
    assert_memory_equal(in + 16, out, 32);

    /* Failures name the versioned entry point and the driver's error name. */
    assert_int_equal(gd_mem_copy_out(dev, out, ptr + 1, BUFFER_BYTES, &err), -1);
    assert_contains(err.msg, "cuMemcpyDtoH_v2(");
    assert_contains(err.msg, "CUDA_ERROR_INVALID_VALUE: invalid argument");
    assert_int_equal(gd_mem_copy_in(dev, ptr, in, BUFFER_BYTES + 1, &err), -1);
    assert_contains(err.msg, "cuMemcpyHtoD_v2(");
    assert_int_equal(gd_mem_fill(dev, ptr, 0, BUFFER_BYTES + 1, &err), -1);
    assert_contains(err.msg, "cuMemsetD8_v2(");

    gd_devptr huge = 0;
    assert_int_equal(gd_mem_alloc(dev, (size_t)MOCK_CUDA_MAX_ALLOC_BYTES + 1, &huge, &err), -1);
    assert_contains(err.msg, "cuMemAlloc_v2(1073741825 bytes) failed: CUDA_ERROR_OUT_OF_MEMORY");
    assert_int_equal(huge, 0);
    assert_int_equal(gd_mem_alloc(dev, MOCK_CUDA_UNNAMED_ERROR_ALLOC_BYTES, &huge, &err), -1);
    assert_contains(err.msg, "cuMemAlloc_v2(");
    assert_contains(err.msg, "CUresult 9999");

    assert_int_equal(gd_mem_release(dev, ptr, &err), 0);
    assert_int_equal(gd_mem_release(dev, ptr, &err), -1);
    assert_contains(err.msg, "cuMemFree_v2(");
    assert_int_equal(mock.state()->live_allocations, 0);
    assert_int_equal(gd_device_synchronize(dev, &err), 0);
    gd_device_close(dev);
    release_mock_driver(&mock);
}

static gd_kernel *load_on_mock(gd_device *dev, const char *entry)
{
    char *ptx = kernels_ptx("6.3", "sm_75");
    gd_kernel *kernel = NULL;
    gd_err err = {{0}};
    if (gd_kernel_load(dev, ptx, entry, NULL, &kernel, &err) != 0)
        fail_msg("load %s on the mock: %s", entry, err.msg);
    free(ptx);
    return kernel;
}

/* What ptxas itself makes of .text.<entry> for the mock's sm_75. */
static uint64_t ptxas_text_bytes(const char *entry)
{
    char cubin_path[512];
    char *dir = NULL;
    size_t size = 0;
    void *cubin = compile_kernels(gd_test_ptxas(), "6.3", "sm_75", &size, cubin_path,
                                  sizeof cubin_path, &dir);
    char section[64];
    uint64_t bytes = 0;
    gd_err err = {{0}};
    snprintf(section, sizeof section, ".text.%s", entry);
    if (readelf_section_size(cubin_path, section, &bytes) != 0)
        assert_int_equal(gd_cubin_text_size(cubin, size, entry, &bytes, &err), 0);
    free(cubin);
    gd_test_rmrf(dir);
    free(dir);
    return bytes;
}

static void test_mock_load_and_launch(void **unused)
{
    (void)unused;
    mock_driver mock;
    need_ptxas_for_mock();
    use_mock_driver(&mock);
    gd_device *dev = open_mock_device();
    gd_err err = {{0}};

    gd_kernel *kernel = load_on_mock(dev, "params_kernel");
    const mock_cuda_state *state = mock.state();
    assert_true(state->jit_info_log_given && state->jit_error_log_given);
    assert_true(state->jit_verbose && state->jit_target_from_context);
    assert_string_equal(state->jit_ptxas_arch, "sm_75");
    assert_int_equal(state->live_links, 0);
    assert_int_equal(state->live_modules, 1);
    assert_string_equal(kernel->entry, "params_kernel");
    assert_true(kernel->code_bytes > 0);
    assert_int_equal(kernel->code_bytes, ptxas_text_bytes("params_kernel"));
    assert_int_equal(kernel->instruction_count, kernel->code_bytes / 16);
    assert_non_null(kernel->jit_info_log);
    assert_non_null(kernel->jit_error_log);
    assert_contains(kernel->jit_info_log, "params_kernel"); /* ptxas -v names the entry */

    gd_devptr out = 0;
    assert_int_equal(gd_mem_alloc(dev, 64, &out, &err), 0);
    uint32_t count = 0xC0FFEEu;
    uint16_t tag = 0xBEEF;
    double scale = 2.5;
    unsigned char blob[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    const void *values[] = {&out, &count, &tag, &scale, blob};
    const size_t sizes[] = {sizeof out, sizeof count, sizeof tag, sizeof scale, sizeof blob};
    gd_launch launch = {
        .grid = {3, 2, 1},
        .block = {64, 2, 1},
        .dynamic_shared_bytes = 60000, /* above 48 KiB: needs the opt-in */
        .param_count = 5,
        .param_values = values,
        .param_sizes = sizes,
    };
    if (gd_kernel_launch(dev, kernel, &launch, &err) != 0)
        fail_msg("launch: %s", err.msg);
    assert_int_equal(gd_device_synchronize(dev, &err), 0);
    const mock_cuda_launch *seen = &state->last_launch;
    assert_string_equal(seen->entry, "params_kernel");
    assert_memory_equal(seen->grid, launch.grid, sizeof launch.grid);
    assert_memory_equal(seen->block, launch.block, sizeof launch.block);
    assert_int_equal(seen->shared_bytes, 60000);
    assert_true(seen->default_stream);
    assert_int_equal(state->max_dynamic_shared_set, 60000);
    assert_int_equal(seen->param_count, 5);
    for (unsigned i = 0; i < 5; i++) {
        assert_int_equal(seen->param_sizes[i], sizes[i]);
        assert_memory_equal(seen->param_bytes + seen->param_offsets[i], values[i], sizes[i]);
    }

    /* Launch failures name cuLaunchKernel, the kernel and the geometry. */
    launch.block[0] = 2048;
    assert_int_equal(gd_kernel_launch(dev, kernel, &launch, &err), -1);
    assert_contains(err.msg, "cuLaunchKernel(params_kernel, grid 3x2x1, block 2048x2x1");
    assert_contains(err.msg, "CUDA_ERROR_INVALID_VALUE");
    launch.block[0] = 64;
    launch.dynamic_shared_bytes = MOCK_CUDA_SHARED_PER_BLOCK_OPTIN_BYTES + 1;
    assert_int_equal(gd_kernel_launch(dev, kernel, &launch, &err), -1);
    assert_contains(err.msg, "cuFuncSetAttribute(params_kernel");

    gd_kernel_unload(dev, kernel);
    assert_int_equal(state->live_modules, 0);
    assert_int_equal(gd_mem_release(dev, out, &err), 0);
    gd_device_close(dev);
    release_mock_driver(&mock);
}

static void test_mock_cubin_round_trip(void **unused)
{
    (void)unused;
    mock_driver mock;
    need_ptxas_for_mock();
    use_mock_driver(&mock);
    gd_device *dev = open_mock_device();
    gd_err err = {{0}};

    gd_kernel *kernel = load_on_mock(dev, "copy_kernel");
    assert_int_equal(kernel->code_bytes, ptxas_text_bytes("copy_kernel"));
    const void *cubin = NULL;
    size_t size = 0;
    assert_int_equal(cuda_kernel_cubin(kernel, &cubin, &size), 0);
    assert_non_null(cubin);
    assert_memory_equal(cubin, ELFMAG, SELFMAG);
    uint64_t bytes = 0;
    assert_int_equal(gd_cubin_text_size(cubin, size, "copy_kernel", &bytes, &err), 0);
    assert_int_equal(bytes, kernel->code_bytes);
    int sm = 0;
    assert_int_equal(gd_cubin_sm_version(cubin, size, &sm, &err), 0);
    assert_int_equal(sm, 75);

    gd_kernel *again = NULL;
    if (cuda_kernel_load_cubin(dev, cubin, size, "copy_kernel", &again, &err) != 0)
        fail_msg("load cubin: %s", err.msg);
    assert_int_equal(again->code_bytes, kernel->code_bytes);
    assert_string_equal(again->jit_info_log, "");
    assert_string_equal(again->jit_error_log, "");
    gd_kernel_unload(dev, kernel); /* the reloaded kernel owns its own copy */

    gd_devptr dst = 0, src = 0;
    assert_int_equal(gd_mem_alloc(dev, 256, &dst, &err), 0);
    assert_int_equal(gd_mem_alloc(dev, 256, &src, &err), 0);
    uint32_t n = 64;
    const void *values[] = {&dst, &src, &n};
    const size_t sizes[] = {8, 8, 4};
    gd_launch launch = {.grid = {1, 1, 1}, .block = {64, 1, 1}, .param_count = 3,
                        .param_values = values, .param_sizes = sizes};
    assert_int_equal(gd_kernel_launch(dev, again, &launch, &err), 0);
    assert_string_equal(mock.state()->last_launch.entry, "copy_kernel");
    assert_int_equal(mock.state()->last_launch.param_count, 3);
    assert_memory_equal(mock.state()->last_launch.param_bytes + 8, &src, 8);

    gd_kernel *bad = NULL;
    static const unsigned char garbage[64] = "not a cubin";
    assert_int_equal(cuda_kernel_load_cubin(dev, garbage, sizeof garbage, "copy_kernel", &bad,
                                            &err), -1);
    assert_null(bad);
    assert_contains(err.msg, "not an ELF");
    assert_int_equal(cuda_kernel_load_cubin(NULL, cubin, size, "copy_kernel", &bad, &err), -1);
    assert_contains(err.msg, "cuda:N device");

    gd_kernel_unload(dev, again);
    assert_int_equal(gd_mem_release(dev, dst, &err), 0);
    assert_int_equal(gd_mem_release(dev, src, &err), 0);
    gd_device_close(dev);
    assert_int_equal(mock.state()->live_modules, 0);
    release_mock_driver(&mock);
}

static void test_mock_jit_errors(void **unused)
{
    (void)unused;
    mock_driver mock;
    need_ptxas_for_mock();
    use_mock_driver(&mock);
    gd_device *dev = open_mock_device();
    gd_err err = {{0}};
    gd_kernel *kernel = (gd_kernel *)(uintptr_t)1; /* must come back NULL */

    static const char broken_ptx[] = ".version 6.3\n.target sm_75\n.address_size 64\n"
                                     ".visible .entry broken()\n{\n    frobnicate.u32 %r1;\n}\n";
    assert_int_equal(gd_kernel_load(dev, broken_ptx, "broken", NULL, &kernel, &err), -1);
    assert_null(kernel);
    assert_contains(err.msg, "cuLinkComplete(broken) failed: CUDA_ERROR_INVALID_PTX");
    assert_contains(err.msg, "JIT error log: ");
    assert_contains(err.msg, "frobnicate"); /* ptxas names the bad instruction */
    assert_null(strchr(err.msg, '\n'));
    assert_int_equal(mock.state()->live_links, 0);

    char *ptx = kernels_ptx("6.3", "sm_75");
    assert_int_equal(gd_kernel_load(dev, ptx, "no_such_kernel", NULL, &kernel, &err), -1);
    assert_contains(err.msg, ".text.no_such_kernel");
    assert_int_equal(gd_kernel_load(dev, ptx, "", NULL, &kernel, &err), -1);
    char long_name[300];
    memset(long_name, 'k', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = '\0';
    assert_int_equal(gd_kernel_load(dev, ptx, long_name, NULL, &kernel, &err), -1);
    assert_contains(err.msg, "longer than");
    free(ptx);
    assert_int_equal(mock.state()->live_links, 0);
    assert_int_equal(mock.state()->live_modules, 0);
    gd_device_close(dev);
    release_mock_driver(&mock);
}

/* ---- patch on load, module variables -------------------------------------------- */

/* The mock's device is sm_75: PTX ISA 6.3. */
#define MOCK_PTX_ISA_X10 63
#define PATCHED_FFMAS 24u

static gd_kernel *load_ffma_block(gd_device *dev, const gd_load_opts *opts)
{
    char *ptx = ffma_block_ptx(75, MOCK_PTX_ISA_X10, PATCHED_FFMAS, 1);
    gd_kernel *kernel = NULL;
    gd_err err = {{0}};
    if (gd_kernel_load(dev, ptx, FFMA_BLOCK_ENTRY, opts, &kernel, &err) != 0)
        fail_msg("load " FFMA_BLOCK_ENTRY " on the mock: %s", err.msg);
    free(ptx);
    return kernel;
}

/* The instruction words of .text.<entry> in a cubin. */
static const unsigned char *code_of(const void *cubin, size_t size, uint64_t *instructions)
{
    uint64_t offset = 0, bytes = 0;
    gd_err err = {{0}};
    if (gd_cubin_text_section(cubin, size, FFMA_BLOCK_ENTRY, &offset, &bytes, &err) != 0)
        fail_msg("%s", err.msg);
    *instructions = bytes / 16;
    return (const unsigned char *)cubin + offset;
}

static void test_mock_patch_on_load(void **unused)
{
    (void)unused;
    mock_driver mock;
    need_ptxas_for_mock();
    use_mock_driver(&mock);
    gd_device *dev = open_mock_device();
    const mock_cuda_state *state = mock.state();
    gd_err err = {{0}};

    gd_kernel *plain = load_ffma_block(dev, NULL);
    assert_true(state->last_image_from_jit);
    assert_false(state->last_image_code_changed);
    gd_load_opts opts = {.patch = GD_PATCH_FFMA_TO_NOP, .patch_count = PATCHED_FFMAS};
    gd_kernel *patched = load_ffma_block(dev, &opts);
    /* The driver was handed the JIT's cubin with only its code changed ... */
    assert_true(state->last_image_from_jit);
    assert_true(state->last_image_code_changed);
    assert_int_equal(patched->code_bytes, plain->code_bytes);
    assert_int_equal(patched->instruction_count, plain->instruction_count);
    /* ... and it is the cubin the kernel says it was loaded from. */
    const void *cubin = NULL, *plain_cubin = NULL;
    size_t size = 0, plain_size = 0, image_size = 0;
    assert_int_equal(cuda_kernel_cubin(patched, &cubin, &size), 0);
    assert_int_equal(cuda_kernel_cubin(plain, &plain_cubin, &plain_size), 0);
    const void *image = mock.last_image(&image_size);
    assert_non_null(image);
    assert_int_equal(image_size, size);
    assert_memory_equal(image, cubin, size);
    assert_int_equal(plain_size, size);

    /* Where the JIT put FFMAs there are NOPs now; every other word is the same. */
    uint64_t count = 0, plain_count = 0;
    const unsigned char *code = code_of(image, image_size, &count);
    const unsigned char *plain_code = code_of(plain_cubin, plain_size, &plain_count);
    assert_int_equal(count, plain_count);
    unsigned ffmas = 0;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t lo, hi, plain_lo, plain_hi;
        memcpy(&lo, code + 16 * i, 8);
        memcpy(&hi, code + 16 * i + 8, 8);
        memcpy(&plain_lo, plain_code + 16 * i, 8);
        memcpy(&plain_hi, plain_code + 16 * i + 8, 8);
        assert_false(gd_sass_is_ffma(lo, hi));
        if (gd_sass_is_ffma(plain_lo, plain_hi)) {
            ffmas++;
            assert_true(gd_sass_is_nop(lo, hi));
            /* one cycle each in a run of 16 or more, else the FFMA's own stall */
            assert_int_equal((hi >> 41) & 0xf,
                             PATCHED_FFMAS >= 16 ? 1u : (unsigned)((plain_hi >> 41) & 0xf));
        } else {
            assert_int_equal(lo, plain_lo);
            assert_int_equal(hi, plain_hi);
        }
    }
    assert_int_equal(ffmas, PATCHED_FFMAS);
    /* Everything outside the code is the JIT's. */
    uint64_t text_offset = (uint64_t)(code - (const unsigned char *)image);
    assert_memory_equal(image, plain_cubin, text_offset);
    assert_memory_equal((const unsigned char *)image + text_offset + 16 * count,
                        (const unsigned char *)plain_cubin + text_offset + 16 * count,
                        size - text_offset - 16 * count);

    /* The patched kernel launches like the plain one. */
    gd_devptr out = 0;
    assert_int_equal(gd_mem_alloc(dev, 64, &out, &err), 0);
    float scale = 1.5f;
    const void *values[] = {&out, &scale};
    const size_t sizes[] = {sizeof out, sizeof scale};
    gd_launch launch = {.grid = {1, 1, 1}, .block = {32, 1, 1}, .param_count = 2,
                        .param_values = values, .param_sizes = sizes};
    if (gd_kernel_launch(dev, patched, &launch, &err) != 0)
        fail_msg("launch the patched kernel: %s", err.msg);
    assert_string_equal(state->last_launch.entry, FFMA_BLOCK_ENTRY);
    assert_int_equal(state->last_launch.param_count, 2);
    gd_kernel_unload(dev, patched);
    gd_kernel_unload(dev, plain);
    assert_int_equal(gd_mem_release(dev, out, &err), 0);

    /* Failures name the step and leave nothing behind. */
    int loads = state->module_loads;
    char *ptx = ffma_block_ptx(75, MOCK_PTX_ISA_X10, PATCHED_FFMAS, 1);
    gd_kernel *kernel = (gd_kernel *)(uintptr_t)1;
    opts.patch_count = PATCHED_FFMAS - 1;
    assert_int_equal(gd_kernel_load(dev, ptx, FFMA_BLOCK_ENTRY, &opts, &kernel, &err), -1);
    assert_null(kernel);
    assert_contains(err.msg, FFMA_BLOCK_ENTRY ": patching the cubin from cuLinkComplete before "
                             "cuModuleLoadData: ");
    assert_contains(err.msg, "expected one run of exactly 23 consecutive FFMA");
    assert_contains(err.msg, "1 run of FFMA, of lengths 24");
    assert_null(strchr(err.msg, '\n'));
    opts.patch_count = 0;
    assert_int_equal(gd_kernel_load(dev, ptx, FFMA_BLOCK_ENTRY, &opts, &kernel, &err), -1);
    assert_contains(err.msg, "FFMA->NOP patch of 0 instructions");
    opts.patch = (gd_code_patch)99;
    assert_int_equal(gd_kernel_load(dev, ptx, FFMA_BLOCK_ENTRY, &opts, &kernel, &err), -1);
    assert_contains(err.msg, "unknown code patch 99");
    /* A kernel without FFMAs has nothing to patch. */
    char *other = kernels_ptx("6.3", "sm_75");
    opts = (gd_load_opts){.patch = GD_PATCH_FFMA_TO_NOP, .patch_count = 4};
    assert_int_equal(gd_kernel_load(dev, other, "copy_kernel", &opts, &kernel, &err), -1);
    assert_contains(err.msg, "found no FFMA at all");
    free(other);
    free(ptx);
    assert_int_equal(state->module_loads, loads);
    assert_int_equal(state->live_links, 0);
    assert_int_equal(state->live_modules, 0);
    gd_device_close(dev);
    release_mock_driver(&mock);
}

static void test_mock_write_symbol(void **unused)
{
    (void)unused;
    mock_driver mock;
    need_ptxas_for_mock();
    use_mock_driver(&mock);
    gd_device *dev = open_mock_device();
    const mock_cuda_state *state = mock.state();
    gd_err err = {{0}};
    gd_kernel *kernel = load_ffma_block(dev, NULL);

    size_t bytes = 0;
    const unsigned char *variable = mock.global(FFMA_BLOCK_CONST, &bytes);
    assert_non_null(variable);
    assert_int_equal(bytes, FFMA_BLOCK_CONST_BYTES);
    static const unsigned char zeros[FFMA_BLOCK_CONST_BYTES];
    assert_memory_equal(variable, zeros, bytes); /* .const without initializer */

    const float table[4] = {0.5f, 1.25f, -3.0f, 1e-3f};
    _Static_assert(sizeof table == FFMA_BLOCK_CONST_BYTES, "the whole variable");
    int copies = state->module_variable_copies;
    if (gd_symbol_write(dev, kernel, FFMA_BLOCK_CONST, table, sizeof table, &err) != 0)
        fail_msg("write_symbol: %s", err.msg);
    assert_string_equal(state->last_global_name, FFMA_BLOCK_CONST);
    assert_int_equal(state->module_variable_copies, copies + 1);
    assert_memory_equal(variable, table, sizeof table);
    const float head[2] = {7.0f, 8.0f}; /* a prefix is fine */
    assert_int_equal(gd_symbol_write(dev, kernel, FFMA_BLOCK_CONST, head, sizeof head, &err), 0);
    assert_memory_equal(variable, head, sizeof head);
    assert_memory_equal(variable + sizeof head, table + 2, sizeof table - sizeof head);

    /* Unknown name: the driver's error, named. */
    assert_int_equal(gd_symbol_write(dev, kernel, "no_such_table", table, sizeof table, &err), -1);
    assert_contains(err.msg, "cuModuleGetGlobal_v2(no_such_table, module of " FFMA_BLOCK_ENTRY
                             ") failed: CUDA_ERROR_NOT_FOUND: named symbol not found");
    /* Too big: caught before any copy, naming both sizes; nothing written. */
    unsigned char big[FFMA_BLOCK_CONST_BYTES + 1];
    memset(big, 0x5a, sizeof big);
    copies = state->module_variable_copies;
    assert_int_equal(gd_symbol_write(dev, kernel, FFMA_BLOCK_CONST, big, sizeof big, &err), -1);
    assert_contains(err.msg, FFMA_BLOCK_ENTRY ": 17 bytes do not fit module variable "
                             FFMA_BLOCK_CONST " (16 bytes)");
    assert_int_equal(state->module_variable_copies, copies);
    assert_memory_equal(variable, head, sizeof head);
    assert_int_equal(gd_symbol_write(dev, kernel, "", table, 4, &err), -1);
    assert_contains(err.msg, "no module variable name");
    assert_int_equal(gd_symbol_write(dev, kernel, FFMA_BLOCK_CONST, NULL, 4, &err), -1);
    assert_contains(err.msg, "no data");
    assert_int_equal(gd_symbol_write(dev, kernel, FFMA_BLOCK_CONST, NULL, 0, &err), 0);

    /* A patched module has its variables too. */
    gd_load_opts opts = {.patch = GD_PATCH_FFMA_TO_NOP, .patch_count = PATCHED_FFMAS};
    gd_kernel *patched = load_ffma_block(dev, &opts);
    assert_int_equal(gd_symbol_write(dev, patched, FFMA_BLOCK_CONST, table, sizeof table, &err),
                     0);
    const unsigned char *patched_variable = mock.global(FFMA_BLOCK_CONST, &bytes);
    assert_true(patched_variable != variable); /* one per module */
    assert_memory_equal(patched_variable, table, sizeof table);
    assert_memory_equal(variable, head, sizeof head);
    gd_kernel_unload(dev, patched);
    gd_kernel_unload(dev, kernel);
    assert_null(mock.global(FFMA_BLOCK_CONST, &bytes));
    assert_int_equal(state->live_allocations, 0);
    gd_device_close(dev);
    release_mock_driver(&mock);
}

/* Two handles on one device share the primary context; each call makes its own
 * device's context current, and the last close releases it. */
static void test_mock_two_handles(void **unused)
{
    (void)unused;
    mock_driver mock;
    use_mock_driver(&mock);
    gd_device *first = open_mock_device();
    gd_device *second = open_mock_device();
    assert_int_equal(mock.state()->primary_context_refs, 2);
    gd_device_close(first); /* leaves no context current on this thread */
    gd_err err = {{0}};
    gd_devptr ptr = 0;
    if (gd_mem_alloc(second, 128, &ptr, &err) != 0)
        fail_msg("alloc after closing the other handle: %s", err.msg);
    assert_int_equal(gd_mem_release(second, ptr, &err), 0);
    gd_device_close(second);
    assert_int_equal(mock.state()->primary_context_refs, 0);
    assert_int_equal(mock.state()->live_allocations, 0);
    release_mock_driver(&mock);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_driver),
        cmocka_unit_test(test_stub_library),
        cmocka_unit_test(test_symbol_names),
        cmocka_unit_test(test_mock_device_info),
        cmocka_unit_test(test_mock_memory),
        cmocka_unit_test(test_mock_load_and_launch),
        cmocka_unit_test(test_mock_cubin_round_trip),
        cmocka_unit_test(test_mock_jit_errors),
        cmocka_unit_test(test_mock_patch_on_load),
        cmocka_unit_test(test_mock_write_symbol),
        cmocka_unit_test(test_mock_two_handles),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
