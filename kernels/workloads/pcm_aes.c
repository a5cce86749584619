/* pcm_aes.c -- the read-dominated, compute-bound control of the PCM
 * experiments (issue 13; seed 003 Figure 1: AES loses 2% on PCM).
 *
 * AES-like: each thread reads one 32-bit block, runs AE_ROUNDS rounds of
 * table lookup (a 256-word table, as AES's T-tables, L1-resident after the
 * first touch), XOR and multiply, and writes one word.  Output 256 KiB: it
 * stays in the L2, so main memory sees no write at all and PCM's write
 * latency cannot matter; the reads stream from memory once.  The sweep value
 * scales the blocks (x 16 Ki, default 4).
 */
#include <stdlib.h>

#include "kernels/ptx_emit.h"
#include "kernels/workloads/workload.h"

#define AE_CTA_THREADS 256u
#define AE_UNIT 16384u
#define AE_ROUNDS 64u
#define AE_MUL 0x9e3779b1u

static char *ae_ptx(const gd_device_info *dev)
{
    gd_ptx p;
    gd_ptx_init(&p);
    gd_ptx_header(&p, dev->cc_major, dev->cc_minor, 63);
    gd_ptx_printf(&p,
        ".visible .entry gd_wl_pcm_aes(.param .u64 in, .param .u64 table, .param .u64 out,\n"
        "                              .param .u32 n)\n"
        "{\n"
        "    .reg .pred %%p<3>;\n    .reg .b32 %%r<14>;\n    .reg .b64 %%rd<12>;\n"
        "    ld.param.u64 %%rd1, [in];\n    ld.param.u64 %%rd2, [table];\n"
        "    ld.param.u64 %%rd3, [out];\n    ld.param.u32 %%r1, [n];\n"
        "    mov.u32 %%r2, %%ctaid.x;\n    mov.u32 %%r3, %%ntid.x;\n    mov.u32 %%r4, %%tid.x;\n"
        "    mad.lo.u32 %%r5, %%r2, %%r3, %%r4;\n"
        "    setp.ge.u32 %%p1, %%r5, %%r1;\n"
        "    @%%p1 bra DONE;\n"
        "    mul.wide.u32 %%rd4, %%r5, 4;\n"
        "    add.s64 %%rd5, %%rd1, %%rd4;\n    ld.global.u32 %%r6, [%%rd5];\n"
        "    mov.u32 %%r7, 0;\n"
        "ROUND:\n"
        "    and.b32 %%r8, %%r6, 255;\n"
        "    mul.wide.u32 %%rd6, %%r8, 4;\n"
        "    add.s64 %%rd7, %%rd2, %%rd6;\n    ld.global.u32 %%r9, [%%rd7];\n"
        "    xor.b32 %%r6, %%r6, %%r9;\n"
        "    mul.lo.u32 %%r6, %%r6, %u;\n"
        "    add.u32 %%r6, %%r6, %%r7;\n"
        "    add.u32 %%r7, %%r7, 1;\n"
        "    setp.lt.u32 %%p2, %%r7, %u;\n"
        "    @%%p2 bra ROUND;\n"
        "    add.s64 %%rd8, %%rd3, %%rd4;\n    st.global.u32 [%%rd8], %%r6;\n"
        "DONE:\n"
        "    ret;\n"
        "}\n",
        AE_MUL, AE_ROUNDS);
    return gd_ptx_finish(&p);
}

static int ae_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                   gd_probe_plan *out, gd_err *err)
{
    if (point == 0)
        point = 4;
    if (point > 64)
        return gd_fail(err, "pcm_aes: scale %llu is outside 1..64 (x 16 Ki blocks)",
                       (unsigned long long)point);
    uint32_t n = (uint32_t)point * AE_UNIT;
    gd_wl_state *st;
    if (gd_wl_plan_begin(out, "gd_wl_pcm_aes", AE_CTA_THREADS, &st, err))
        return -1;
    uint32_t *in = malloc((size_t)n * 4), *table = malloc(256 * 4);
    st->expect = malloc((size_t)n * 4);
    out->ptx = ae_ptx(dev);
    if (!in || !table || !st->expect || !out->ptx) {
        free(in);
        free(table);
        return gd_fail(err, "pcm_aes: out of memory");
    }
    uint64_t rng = gd_wl_seed(opts, 0x5eed00aeull);
    for (uint32_t i = 0; i < 256; i++)
        table[i] = gd_wl_rand(&rng, 0xffffffffu);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = in[i] = gd_wl_rand(&rng, 0xffffffffu);
        for (uint32_t r = 0; r < AE_ROUNDS; r++)
            x = (x ^ table[x & 255]) * AE_MUL + r;
        st->expect[i] = x;
    }
    gd_wl_buffer(out, st, "in", (size_t)n * 4, in, 0);
    gd_wl_buffer(out, st, "table", 256 * 4, table, 0);
    st->check_buffer = gd_wl_buffer(out, st, "out", (size_t)n * 4, NULL, 1);
    st->check_words = n;
    gd_wl_param_u32(out, n);
    out->grid[0] = (n + AE_CTA_THREADS - 1) / AE_CTA_THREADS;
    out->point = point;
    return 0;
}

const gd_probe gd_workload_pcm_aes = {
    .name = "pcm_aes",
    .summary = "AES-like rounds of table lookups: read-dominated, compute-bound control",
    .sweep_name = "scale_16ki",
    .value_unit = "errors",
    .primary_series = "errors",
    .sweep_granularity = 1,
    .example_point = 4,
    .plan = ae_plan,
    .fill = gd_wl_fill,
    .decode = gd_wl_decode,
    .release = gd_wl_release,
};
