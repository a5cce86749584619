/* cuda_module.c -- kernels on the "cuda:N" device: JIT, cubin, patch, module variables.
 *
 * The other half of the CUDA backend (host/cuda_device.c is the driver, the
 * device, memory and launches; host/cuda_backend.h what they share).  A load
 * goes:
 *
 *   PTX --cuLinkCreate/cuLinkAddData/cuLinkComplete--> cubin (owned by the
 *   link state) --copy--> our cubin --[kernels/sass_patch.c, if the load
 *   options ask]--> cuModuleLoadData --> cuModuleGetFunction
 *
 * The JIT goes through cuLink* rather than cuModuleLoadData(ptx) because only
 * the link step hands back the cubin, and the cubin is where the machine-code
 * size is (kernels/cubin_elf.c reads .text.<entry>) and what a SASS patch
 * rewrites: PTX has no NOP, so an instruction-cache probe's FFMA block becomes
 * NOPs here, in the machine code, before the driver ever sees it.  The kernel
 * keeps the (patched) cubin it was loaded from, so tools can read it back.
 *
 * Module variables -- the .const array a constant-cache probe scans -- are
 * written with cuModuleGetGlobal + cuMemcpyHtoD, after checking that the data
 * fits the variable (the driver would write past it otherwise).
 *
 * Every failing step names itself: the driver call with cuGetErrorName and
 * cuGetErrorString (cuda_fail), or the patch with what it found.
 */
#include "host/cuda_backend.h"
#include "host/cuda_device.h"

#include "kernels/cubin_elf.h"
#include "kernels/sass_patch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef GD_HAVE_CUDA

int cuda_kernel_cubin(const gd_kernel *kernel, const void **bytes, size_t *size)
{
    (void)kernel;
    *bytes = NULL;
    *size = 0;
    return -1;
}

int cuda_kernel_jit_cubin(const gd_kernel *kernel, const void **bytes, size_t *size)
{
    return cuda_kernel_cubin(kernel, bytes, size);
}

int cuda_kernel_load_cubin(gd_device *dev, const void *cubin, size_t size, const char *entry,
                           gd_kernel **out, gd_err *err)
{
    (void)dev, (void)cubin, (void)size, (void)entry;
    *out = NULL;
    return gd_fail(err, CUDA_NO_HEADERS_MSG);
}

#else /* GD_HAVE_CUDA */

/* Room for the JIT's info and error logs (ptxas -v output for one kernel is a
 * few hundred bytes; errors for a broken PTX file rarely exceed a few KiB). */
#define CUDA_JIT_LOG_BYTES (64u * 1024u)

/* SASS encoding width, used to turn code bytes into an instruction count.
 * Volta (7.0) and later: 128-bit instructions with the scheduling control bits
 * inside.  Maxwell and Pascal (5.x, 6.x): 64-bit instructions in 32-byte bundles
 * of one control word and three instructions.  Kepler (3.x): 64-byte bundles of
 * one control word and seven instructions.  (Jia et al., "Dissecting the NVIDIA
 * Volta GPU Architecture via Microbenchmarking", 2018, section 2.) */
#define SASS_INSTRUCTION_BYTES_VOLTA 16u
#define SASS_BUNDLE_BYTES_MAXWELL 32u
#define SASS_INSTRUCTIONS_PER_BUNDLE_MAXWELL 3u
#define SASS_BUNDLE_BYTES_KEPLER 64u
#define SASS_INSTRUCTIONS_PER_BUNDLE_KEPLER 7u

/* Append a multi-line JIT log to err as one line ("a; b; c"). */
static void append_jit_log(gd_err *err, const char *log)
{
    if (!err || !log || !*log)
        return;
    size_t len = strlen(err->msg);
    size_t cap = sizeof err->msg;
    len += (size_t)snprintf(err->msg + len, cap - len, "; JIT error log: ");
    int at_line_start = 1;
    for (const char *c = log; *c && len + 3 < cap; c++) {
        if (*c == '\n' || *c == '\r') {
            if (!at_line_start) {
                err->msg[len++] = ';';
                err->msg[len++] = ' ';
            }
            at_line_start = 1;
        } else {
            err->msg[len++] = *c;
            at_line_start = 0;
        }
    }
    while (len > 0 && (err->msg[len - 1] == ' ' || err->msg[len - 1] == ';'))
        len--;
    err->msg[len < cap ? len : cap - 1] = '\0';
}

/* ---- kernels: JIT, patch, load -------------------------------------------- */

static int check_entry_name(const char *entry, gd_err *err)
{
    if (!entry || !*entry)
        return gd_fail(err, "no kernel entry name given");
    if (strlen(entry) >= sizeof ((gd_kernel *)NULL)->entry)
        return gd_fail(err, "kernel entry name '%.40s...' is longer than %zu bytes", entry,
                       sizeof ((gd_kernel *)NULL)->entry - 1);
    return 0;
}

static uint32_t sass_instruction_count(uint64_t code_bytes, int cc_major)
{
    if (cc_major >= 7)
        return (uint32_t)(code_bytes / SASS_INSTRUCTION_BYTES_VOLTA);
    if (cc_major >= 5)
        return (uint32_t)(code_bytes / SASS_BUNDLE_BYTES_MAXWELL *
                          SASS_INSTRUCTIONS_PER_BUNDLE_MAXWELL);
    return (uint32_t)(code_bytes / SASS_BUNDLE_BYTES_KEPLER * SASS_INSTRUCTIONS_PER_BUNDLE_KEPLER);
}

static void cuda_kernel_free(cuda_device *dev, cuda_kernel *kernel)
{
    if (!kernel)
        return;
    if (kernel->module && dev->drv.cuCtxSetCurrent(dev->context) == CUDA_SUCCESS)
        dev->drv.cuModuleUnload(kernel->module);
    free(kernel->cubin);
    free(kernel->jit_cubin);
    free(kernel->base.jit_info_log);
    free(kernel->base.jit_error_log);
    free(kernel);
}

/* Make a kernel from a cubin: size its entry's code, load it as a module, find
 * the function.  Takes ownership of cubin and both logs, also on failure. */
static int cuda_kernel_create(cuda_device *dev, const char *entry, void *cubin,
                              size_t cubin_bytes, char *info_log, char *error_log,
                              gd_kernel **out, gd_err *err)
{
    const cuda_driver *drv = &dev->drv;
    cuda_kernel *kernel = calloc(1, sizeof *kernel);
    if (!kernel) {
        free(cubin);
        free(info_log);
        free(error_log);
        return gd_fail(err, "%s: out of memory", entry);
    }
    kernel->cubin = cubin;
    kernel->cubin_bytes = cubin_bytes;
    kernel->base.jit_info_log = info_log;
    kernel->base.jit_error_log = error_log;
    snprintf(kernel->base.entry, sizeof kernel->base.entry, "%s", entry);

    if (gd_cubin_text_size(cubin, cubin_bytes, entry, &kernel->base.code_bytes, err) != 0) {
        gd_fail_prefix(err, "%s: reading the machine-code size", entry);
        goto err;
    }
    kernel->base.instruction_count =
        sass_instruction_count(kernel->base.code_bytes, dev->base.info.cc_major);

    CUresult rc = drv->cuModuleLoadData(&kernel->module, kernel->cubin);
    if (rc != CUDA_SUCCESS) {
        kernel->module = NULL;
        cuda_fail(drv, rc, err, CU_NAME(cuModuleLoadData) "(cubin of %s, %zu bytes)", entry,
                  cubin_bytes);
        goto err;
    }
    rc = drv->cuModuleGetFunction(&kernel->function, kernel->module, entry);
    if (rc != CUDA_SUCCESS) {
        cuda_fail(drv, rc, err, CU_NAME(cuModuleGetFunction) "(%s)", entry);
        goto err;
    }
    *out = &kernel->base;
    return 0;

err:
    cuda_kernel_free(dev, kernel);
    return -1;
}

static char *shrink_to_fit(char *text)
{
    char *shrunk = realloc(text, strlen(text) + 1);
    return shrunk ? shrunk : text;
}

/* What the load options ask of the cubin: checked before the JIT runs, so a
 * bad request costs no compile. */
static int check_code_patch(const gd_load_opts *opts, const char *entry, gd_err *err)
{
    if (!opts)
        return 0;
    switch (opts->patch) {
    case GD_PATCH_NONE:
        return 0;
    case GD_PATCH_FFMA_TO_NOP:
        if (opts->patch_count == 0)
            return gd_fail(err, "%s: FFMA->NOP patch of 0 instructions", entry);
        return 0;
    }
    return gd_fail(err, "%s: unknown code patch %d", entry, (int)opts->patch);
}

/* Rewrite our copy of the JIT's cubin as the load options ask, in place. */
static int apply_code_patch(const gd_load_opts *opts, void *cubin, size_t cubin_bytes,
                            const char *entry, gd_err *err)
{
    if (!opts || opts->patch != GD_PATCH_FFMA_TO_NOP)
        return 0;
    if (gd_sass_ffma_to_nop(cubin, cubin_bytes, entry, opts->patch_count, err) != 0)
        return gd_fail_prefix(err, "%s: patching the cubin from " CU_NAME(cuLinkComplete)
                              " before " CU_NAME(cuModuleLoadData), entry);
    return 0;
}

/* A patch rewrites the cubin in place; the JIT's own output is what the
 * run-time check (host/jit_check.c) reads, so keep a copy of it first. */
static int keep_jit_output(const gd_load_opts *opts, const void *cubin, size_t cubin_bytes,
                           void **jit_copy, const char *entry, gd_err *err)
{
    *jit_copy = NULL;
    if (!opts || opts->patch == GD_PATCH_NONE)
        return 0;
    *jit_copy = malloc(cubin_bytes);
    if (!*jit_copy)
        return gd_fail(err, "%s: out of memory for a %zu-byte cubin", entry, cubin_bytes);
    memcpy(*jit_copy, cubin, cubin_bytes);
    return 0;
}

/* JIT the PTX, patch the cubin if asked, load it. */
int cuda_load(gd_device *base, const char *ptx, const char *entry, const gd_load_opts *opts,
              gd_kernel **out, gd_err *err)
{
    cuda_device *dev = (cuda_device *)base;
    const cuda_driver *drv = &dev->drv;
    CUlinkState link = NULL;
    void *cubin_copy = NULL;
    void *jit_copy = NULL;
    *out = NULL;
    if (check_entry_name(entry, err) != 0 || check_code_patch(opts, entry, err) != 0)
        return -1;
    if (!ptx)
        return gd_fail(err, "%s: no PTX given", entry);

    /* +1: the driver caps each log at the given size including its NUL. */
    char *info_log = calloc(CUDA_JIT_LOG_BYTES + 1, 1);
    char *error_log = calloc(CUDA_JIT_LOG_BYTES + 1, 1);
    if (!info_log || !error_log) {
        gd_fail(err, "%s: out of memory for the JIT logs", entry);
        goto err;
    }
    if (cuda_make_current(dev, err) != 0)
        goto err;

    /* Sizes and flags travel inside the void* slots.  The driver writes the
     * filled log sizes back into `values`, so it must outlive the link state --
     * it does: cuLinkDestroy is called below, in this frame. */
    CUjit_option options[] = {
        CU_JIT_INFO_LOG_BUFFER,  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
        CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        CU_JIT_LOG_VERBOSE,      CU_JIT_TARGET_FROM_CUCONTEXT,
    };
    void *values[] = {
        info_log,  (void *)(uintptr_t)CUDA_JIT_LOG_BYTES,
        error_log, (void *)(uintptr_t)CUDA_JIT_LOG_BYTES,
        (void *)(uintptr_t)1, NULL,
    };
    _Static_assert(sizeof options / sizeof options[0] == sizeof values / sizeof values[0],
                   "one value per JIT option");
    CUresult rc = drv->cuLinkCreate(sizeof options / sizeof options[0], options, values, &link);
    if (rc != CUDA_SUCCESS) {
        link = NULL;
        cuda_fail(drv, rc, err, CU_NAME(cuLinkCreate) "(for %s)", entry);
        goto err;
    }
    /* The driver only reads the PTX; the prototype is not const-qualified. */
    rc = drv->cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)ptx, strlen(ptx) + 1, entry, 0, NULL,
                            NULL);
    if (rc != CUDA_SUCCESS) {
        cuda_fail(drv, rc, err, CU_NAME(cuLinkAddData) "(PTX of %s)", entry);
        append_jit_log(err, error_log);
        goto err;
    }
    void *cubin = NULL;
    size_t cubin_bytes = 0;
    rc = drv->cuLinkComplete(link, &cubin, &cubin_bytes);
    if (rc != CUDA_SUCCESS) {
        cuda_fail(drv, rc, err, CU_NAME(cuLinkComplete) "(%s)", entry);
        append_jit_log(err, error_log);
        goto err;
    }
    if (!cubin || cubin_bytes == 0) {
        gd_fail(err, CU_NAME(cuLinkComplete) "(%s) returned an empty cubin", entry);
        goto err;
    }
    /* The cubin belongs to the link state and dies with it; keep a copy. */
    cubin_copy = malloc(cubin_bytes);
    if (!cubin_copy) {
        gd_fail(err, "%s: out of memory for a %zu-byte cubin", entry, cubin_bytes);
        goto err;
    }
    memcpy(cubin_copy, cubin, cubin_bytes);
    drv->cuLinkDestroy(link); /* a failure here leaves nothing for us to undo */
    link = NULL;
    if (keep_jit_output(opts, cubin_copy, cubin_bytes, &jit_copy, entry, err) != 0 ||
        apply_code_patch(opts, cubin_copy, cubin_bytes, entry, err) != 0)
        goto err;
    /* The logs were sized for the worst case; a kernel keeps only what was written. */
    info_log = shrink_to_fit(info_log);
    error_log = shrink_to_fit(error_log);
    if (cuda_kernel_create(dev, entry, cubin_copy, cubin_bytes, info_log, error_log, out,
                           err) != 0) {
        free(jit_copy);
        return -1;
    }
    ((cuda_kernel *)*out)->jit_cubin = jit_copy;
    ((cuda_kernel *)*out)->jit_cubin_bytes = jit_copy ? cubin_bytes : 0;
    /* the L1/shared carve-out, set on every kernel: host/cuda_func_attr.c */
    if (cuda_kernel_carveout(dev, (cuda_kernel *)*out, opts ? opts->carveout_percent : 0, err)) {
        cuda_unload(base, *out);
        *out = NULL;
        return -1;
    }
    return 0;

err:
    if (link)
        drv->cuLinkDestroy(link);
    free(jit_copy);
    free(cubin_copy);
    free(info_log);
    free(error_log);
    return -1;
}

void cuda_unload(gd_device *base, gd_kernel *kernel)
{
    cuda_kernel_free((cuda_device *)base, (cuda_kernel *)kernel);
}

int cuda_kernel_cubin(const gd_kernel *kernel, const void **bytes, size_t *size)
{
    const cuda_kernel *cuda = (const cuda_kernel *)kernel;
    *bytes = NULL;
    *size = 0;
    if (!cuda || !cuda->cubin)
        return -1;
    *bytes = cuda->cubin;
    *size = cuda->cubin_bytes;
    return 0;
}

int cuda_kernel_jit_cubin(const gd_kernel *kernel, const void **bytes, size_t *size)
{
    const cuda_kernel *cuda = (const cuda_kernel *)kernel;
    if (cuda && cuda->jit_cubin) {
        *bytes = cuda->jit_cubin;
        *size = cuda->jit_cubin_bytes;
        return 0;
    }
    return cuda_kernel_cubin(kernel, bytes, size);
}

int cuda_kernel_load_cubin(gd_device *base, const void *cubin, size_t size, const char *entry,
                           gd_kernel **out, gd_err *err)
{
    *out = NULL;
    if (!base || strcmp(base->info.backend, "cuda") != 0)
        return gd_fail(err, "loading a cubin needs a cuda:N device");
    if (check_entry_name(entry, err) != 0)
        return -1;
    if (!cubin || size == 0)
        return gd_fail(err, "%s: empty cubin", entry);
    cuda_device *dev = (cuda_device *)base;
    if (cuda_make_current(dev, err) != 0)
        return -1;
    void *copy = malloc(size);
    char *info_log = calloc(1, 1);
    char *error_log = calloc(1, 1);
    if (!copy || !info_log || !error_log) {
        free(copy);
        free(info_log);
        free(error_log);
        return gd_fail(err, "%s: out of memory for a %zu-byte cubin", entry, size);
    }
    memcpy(copy, cubin, size);
    return cuda_kernel_create(dev, entry, copy, size, info_log, error_log, out, err);
}

/* ---- module variables ---------------------------------------------------- */

int cuda_write_symbol(gd_device *base, gd_kernel *kernel_base, const char *name,
                      const void *data, size_t bytes, gd_err *err)
{
    cuda_device *dev = (cuda_device *)base;
    cuda_kernel *kernel = (cuda_kernel *)kernel_base;
    const cuda_driver *drv = &dev->drv;
    if (!kernel || !kernel->module)
        return gd_fail(err, "writing a module variable needs a loaded kernel");
    const char *entry = kernel->base.entry;
    if (!name || !*name)
        return gd_fail(err, "%s: no module variable name given", entry);
    if (bytes && !data)
        return gd_fail(err, "%s: no data for module variable %s", entry, name);
    if (cuda_make_current(dev, err) != 0)
        return -1;

    CUdeviceptr address = 0;
    size_t variable_bytes = 0;
    CUresult rc = drv->cuModuleGetGlobal(&address, &variable_bytes, kernel->module, name);
    if (rc != CUDA_SUCCESS)
        return cuda_fail(drv, rc, err, CU_NAME(cuModuleGetGlobal) "(%s, module of %s)", name,
                         entry);
    /* cuMemcpyHtoD knows nothing of the variable's end: check it here. */
    if (bytes > variable_bytes)
        return gd_fail(err, "%s: %zu bytes do not fit module variable %s (%zu bytes)", entry,
                       bytes, name, variable_bytes);
    if (bytes == 0)
        return 0;
    rc = drv->cuMemcpyHtoD(address, data, bytes);
    if (rc != CUDA_SUCCESS)
        return cuda_fail(drv, rc, err,
                         CU_NAME(cuMemcpyHtoD) "(module variable %s of %s at 0x%llx, %zu bytes)",
                         name, entry, (unsigned long long)address, bytes);
    return 0;
}

#endif /* GD_HAVE_CUDA */
