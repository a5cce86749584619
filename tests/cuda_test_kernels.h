/* cuda_test_kernels.h -- PTX kernels and ptxas helpers shared by the CUDA tests.
 *
 * tests/test_cubin_elf.c and tests/test_cuda_backend.c both need a real cubin:
 * the same two kernels, compiled by the toolkit's ptxas, with readelf (when
 * installed) as an independent judge of section sizes.  Include after
 * tests/testing.h.
 */
#ifndef GD_CUDA_TEST_KERNELS_H
#define GD_CUDA_TEST_KERNELS_H

#include <stdint.h>

/* Two kernels in one module: copy_kernel for code size and a simple launch,
 * params_kernel for parameters of every size class (8, 4, 2, 8, 12 bytes). */
#define CUDA_TEST_KERNELS_PTX_BODY                                                            \
    ".address_size 64\n"                                                                      \
    "\n"                                                                                      \
    ".visible .entry copy_kernel(.param .u64 dst, .param .u64 src, .param .u32 n)\n"          \
    "{\n"                                                                                     \
    "    .reg .b32 %r<4>;\n"                                                                  \
    "    .reg .b64 %rd<6>;\n"                                                                 \
    "    ld.param.u64 %rd1, [dst];\n"                                                         \
    "    ld.param.u64 %rd2, [src];\n"                                                         \
    "    mov.u32 %r2, %tid.x;\n"                                                              \
    "    cvta.to.global.u64 %rd3, %rd1;\n"                                                    \
    "    cvta.to.global.u64 %rd4, %rd2;\n"                                                    \
    "    mul.wide.u32 %rd5, %r2, 4;\n"                                                        \
    "    add.u64 %rd4, %rd4, %rd5;\n"                                                         \
    "    add.u64 %rd3, %rd3, %rd5;\n"                                                         \
    "    ld.global.u32 %r3, [%rd4];\n"                                                        \
    "    st.global.u32 [%rd3], %r3;\n"                                                        \
    "    ret;\n"                                                                              \
    "}\n"                                                                                     \
    "\n"                                                                                      \
    ".visible .entry params_kernel(.param .u64 out, .param .u32 count, .param .u16 tag,\n"    \
    "    .param .f64 scale, .param .align 4 .b8 blob[12])\n"                                  \
    "{\n"                                                                                     \
    "    .reg .b32 %r<2>;\n"                                                                  \
    "    .reg .b64 %rd<3>;\n"                                                                 \
    "    ld.param.u64 %rd1, [out];\n"                                                         \
    "    ld.param.u32 %r1, [count];\n"                                                        \
    "    cvta.to.global.u64 %rd2, %rd1;\n"                                                    \
    "    st.global.u32 [%rd2], %r1;\n"                                                        \
    "    ret;\n"                                                                              \
    "}\n"

/* PTX .version must be new enough for the target: 6.3 for sm_75, 7.8 for sm_90. */
static inline char *kernels_ptx(const char *version, const char *target)
{
    size_t cap = sizeof CUDA_TEST_KERNELS_PTX_BODY + 64;
    char *ptx = malloc(cap);
    assert_non_null(ptx);
    snprintf(ptx, cap, ".version %s\n.target %s\n%s", version, target,
             CUDA_TEST_KERNELS_PTX_BODY);
    return ptx;
}

static inline void assert_contains(const char *text, const char *needle)
{
    if (!strstr(text, needle))
        fail_msg("expected \"%s\" in: %s", needle, text);
}

static inline void *read_whole_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long end = ftell(f);
    assert_true(end > 0);
    rewind(f);
    void *data = malloc((size_t)end);
    assert_non_null(data);
    assert_int_equal(fread(data, 1, (size_t)end, f), (size_t)end);
    fclose(f);
    *size = (size_t)end;
    return data;
}

/* Compile the test kernels with ptxas; returns the cubin (caller frees). */
static inline void *compile_kernels(const char *ptxas, const char *version, const char *arch,
                                    size_t *size, char *cubin_path, size_t path_cap,
                                    char **dir)
{
    *dir = gd_test_tmpdir();
    assert_non_null(*dir);
    char ptx_path[512], cmd[3072], out[4096];
    snprintf(ptx_path, sizeof ptx_path, "%s/kernels.ptx", *dir);
    snprintf(cubin_path, path_cap, "%s/kernels.cubin", *dir);
    char *ptx = kernels_ptx(version, arch);
    FILE *f = fopen(ptx_path, "w");
    assert_non_null(f);
    fputs(ptx, f);
    fclose(f);
    free(ptx);
    snprintf(cmd, sizeof cmd, "'%s' -arch=%s -o '%s' '%s'", ptxas, arch, cubin_path, ptx_path);
    if (gd_test_run(cmd, out, sizeof out) != 0)
        fail_msg("ptxas failed: %s", out);
    return read_whole_file(cubin_path, size);
}

/* Section size as binutils' readelf reports it; -1 when readelf is missing. */
static inline int readelf_section_size(const char *cubin_path, const char *section,
                                       uint64_t *size)
{
    char cmd[1024], out[16384];
    if (gd_test_run("command -v readelf", out, sizeof out) != 0)
        return -1;
    snprintf(cmd, sizeof cmd, "readelf -S -W '%s'", cubin_path);
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 0);
    char needle[256];
    snprintf(needle, sizeof needle, " %s ", section);
    const char *line = strstr(out, needle);
    if (!line)
        fail_msg("readelf lists no %s:\n%s", section, out);
    unsigned long long address, offset, bytes;
    /* "[13] .text.copy_kernel PROGBITS 0000000000000000 000700 000100 ..." */
    assert_int_equal(sscanf(line + strlen(needle), "%*s %llx %llx %llx", &address, &offset,
                            &bytes), 3);
    *size = bytes;
    return 0;
}

#endif
