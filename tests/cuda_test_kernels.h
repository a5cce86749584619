/* cuda_test_kernels.h -- PTX kernels and ptxas helpers shared by the CUDA tests.
 *
 * tests/test_cubin_elf.c and tests/test_cuda_backend.c both need a real cubin:
 * the same two kernels, compiled by the toolkit's ptxas, with readelf (when
 * installed) as an independent judge of section sizes.  tests/test_sass_patch.c
 * and tests/test_cuda_backend.c share the FFMA-block kernel that the SASS
 * patcher turns into NOPs.  Include after tests/testing.h.
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

/* ---- the FFMA block (kernels/sass_patch.c's input) ---------------------------- */

#define FFMA_BLOCK_ENTRY "ffma_block"
#define FFMA_BLOCK_CHAINS 8
/* The module's .const array of FFMA_BLOCK_CONST_COUNT floats, read once. */
#define FFMA_BLOCK_CONST "coef"
#define FFMA_BLOCK_CONST_COUNT "4"
#define FFMA_BLOCK_CONST_BYTES 16

static inline void ptx_append(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static inline void ptx_append(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(*buf + *len, *cap - *len, fmt, ap);
        va_end(ap);
        assert_true(n >= 0);
        if ((size_t)n < *cap - *len) {
            *len += (size_t)n;
            return;
        }
        *cap *= 2;
        *buf = realloc(*buf, *cap);
        assert_non_null(*buf);
    }
}

static inline unsigned f32_bits(float value)
{
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits;
}

/* A kernel with `blocks` straight-line blocks of `ffma_count` fma.rn.f32 each,
 * between clock reads, in FFMA_BLOCK_CHAINS independent chains started from
 * distinct values (so ptxas merges none), every chain stored at the end (so none
 * is dropped).  The FFMAs cycle through the operand kinds -- register, immediate
 * b, immediate c, .const b, .const c, kernel parameter -- so every FFMA form a
 * target has shows up.  The .const and the parameter are read before the first
 * clock read so that ptxas loads them there (sm_90 goes through uniform
 * registers) and not inside a block. */
static inline char *ffma_block_ptx(int sm, int isa_x10, unsigned ffma_count, unsigned blocks)
{
    size_t cap = 4096, len = 0;
    char *ptx = malloc(cap);
    assert_non_null(ptx);
    ptx_append(&ptx, &len, &cap,
               ".version %d.%d\n.target sm_%d\n.address_size 64\n\n"
               ".const .align 4 .f32 " FFMA_BLOCK_CONST "[" FFMA_BLOCK_CONST_COUNT "];\n\n"
               ".visible .entry " FFMA_BLOCK_ENTRY "(.param .u64 out, .param .f32 scale)\n{\n"
               "    .reg .f32 %%x<%d>;\n    .reg .f32 %%base, %%k, %%p, %%q;\n"
               "    .reg .u32 %%thread;\n    .reg .u64 %%out, %%t0, %%t1;\n"
               "    ld.param.u64 %%out, [out];\n    cvta.to.global.u64 %%out, %%out;\n"
               "    ld.param.f32 %%p, [scale];\n    ld.const.f32 %%k, [" FFMA_BLOCK_CONST "];\n"
               "    mov.u32 %%thread, %%tid.x;\n    cvt.rn.f32.u32 %%base, %%thread;\n",
               isa_x10 / 10, isa_x10 % 10, sm, FFMA_BLOCK_CHAINS);
    for (unsigned c = 0; c < FFMA_BLOCK_CHAINS; c++)
        ptx_append(&ptx, &len, &cap, "    add.f32 %%x%u, %%base, 0f%08X;\n", c,
                   f32_bits(1.0f + 0.5f * (float)c));
    ptx_append(&ptx, &len, &cap, "    add.f32 %%q, %%k, %%p;\n    mov.u64 %%t0, %%clock64;\n");
    /* b and c of `fma.rn.f32 %xC, %xC, b, c`: "x" is the chain's own register,
     * "imm" a distinct immediate each time, anything else a register name. */
    static const char *const operands[][2] = {
        {"x", "base"}, {"imm", "base"}, {"base", "imm"},
        {"k", "base"}, {"base", "k"},   {"p", "base"},
    };
    for (unsigned b = 0; b < blocks; b++) {
        if (b > 0)
            ptx_append(&ptx, &len, &cap,
                       "    mov.u64 %%t1, %%clock64;\n    add.u64 %%t0, %%t0, %%t1;\n");
        for (unsigned i = 0; i < ffma_count; i++) {
            unsigned c = i % FFMA_BLOCK_CHAINS;
            char operand[2][32];
            for (int k = 0; k < 2; k++) {
                const char *kind = operands[i % 6][k];
                if (strcmp(kind, "imm") == 0)
                    snprintf(operand[k], sizeof operand[k], "0f%08X",
                             f32_bits((k ? 0.25f : 0.75f) + 0.001f * (float)i));
                else if (strcmp(kind, "x") == 0)
                    snprintf(operand[k], sizeof operand[k], "%%x%u", c);
                else
                    snprintf(operand[k], sizeof operand[k], "%%%s", kind);
            }
            ptx_append(&ptx, &len, &cap, "    fma.rn.f32 %%x%u, %%x%u, %s, %s;\n", c, c,
                       operand[0], operand[1]);
        }
    }
    ptx_append(&ptx, &len, &cap,
               "    mov.u64 %%t1, %%clock64;\n    sub.u64 %%t1, %%t1, %%t0;\n"
               "    st.global.u64 [%%out], %%t1;\n    st.global.f32 [%%out+4], %%q;\n");
    for (unsigned c = 0; c < FFMA_BLOCK_CHAINS; c++)
        ptx_append(&ptx, &len, &cap, "    st.global.f32 [%%out+%u], %%x%u;\n", 8 + 4 * c, c);
    ptx_append(&ptx, &len, &cap, "    ret;\n}\n");
    return ptx;
}

#endif
