/* ptx_toolchain.h -- ptxas and nvdisasm for the tests (include after testing.h).
 *
 * Every probe's PTX is assembled by the real ptxas for the GPUs we support, and
 * where a test needs to see the machine code, nvdisasm (PyPI nvidia-cuda-nvdisasm)
 * prints it.  Both write to a temporary directory the caller removes.
 */
#ifndef GD_PTX_TOOLCHAIN_H
#define GD_PTX_TOOLCHAIN_H

#include "host/cubin_elf.h"
#include "host/results.h"

static const int gd_test_targets[] = {75, 80, 86, 89, 90};
#define GD_TEST_TARGET_COUNT (sizeof gd_test_targets / sizeof gd_test_targets[0])

/* Assembles ptx for sm_<sm> into dir/<name>.cubin; returns the cubin bytes (caller
 * frees) or NULL after printing ptxas' output. */
static inline void *gd_test_ptxas_compile(const char *ptxas, const char *dir, const char *name,
                                          const char *ptx, int sm, size_t *size)
{
    char ptx_path[1200], cubin_path[1200], cmd[4096], out[8192];
    snprintf(ptx_path, sizeof ptx_path, "%s/%s.ptx", dir, name);
    snprintf(cubin_path, sizeof cubin_path, "%s/%s.cubin", dir, name);
    gd_err err;
    if (gd_write_atomic(ptx_path, ptx, strlen(ptx), &err) != 0) {
        print_message("%s\n", err.msg);
        return NULL;
    }
    snprintf(cmd, sizeof cmd, "'%s' -arch=sm_%d '%s' -o '%s'", ptxas, sm, ptx_path, cubin_path);
    if (gd_test_run(cmd, out, sizeof out) != 0) {
        print_message("ptxas failed for %s (sm_%d):\n%s\n", name, sm, out);
        return NULL;
    }
    void *bytes = gd_read_file(cubin_path, size, &err);
    if (!bytes)
        print_message("%s\n", err.msg);
    return bytes;
}

/* nvdisasm's listing of dir/<name>.cubin, one instruction per line without
 * addresses or encodings (caller frees); NULL on failure. */
static inline char *gd_test_sass(const char *nvdisasm, const char *dir, const char *name)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "'%s' -c '%s/%s.cubin' | sed -n 's@^ *\\/\\*[0-9a-f]*\\*\\/ *@@p' | "
             "sed 's@ */\\*.*@@; s@ *;.*@@'",
             nvdisasm, dir, name);
    size_t cap = 1 << 20;
    char *text = malloc(cap);
    if (!text)
        return NULL;
    if (gd_test_run(cmd, text, cap) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

#endif
