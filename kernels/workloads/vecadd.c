/* vecadd.c -- the regular control: c[i] = a[i] + b[i], streaming.
 *
 * Every warp load touches one 128-byte line per array, consecutive lines walk
 * the L1 sets in order, and no line is read twice: each request misses, none
 * is refused for want of a way (a set sees a new line only every `sets` lines),
 * so the FIFO's order never matters.  CN110457238A's reorder should change
 * nothing here; pipelined issue may overlap one instruction's misses with the
 * next one's coalescing.  The sweep value scales the vector (in units of 64 Ki
 * elements, default 4: 256 Ki elements, 3 MiB moved).
 */
#include <stdlib.h>

#include "kernels/ptx_emit.h"
#include "kernels/workloads/workload.h"

#define VA_CTA_THREADS 256u
#define VA_UNIT_ELEMENTS 65536u

static char *va_ptx(const gd_device_info *dev)
{
    gd_ptx p;
    gd_ptx_init(&p);
    gd_ptx_header(&p, dev->cc_major, dev->cc_minor, 63);
    gd_ptx_printf(&p,
        ".visible .entry gd_wl_vecadd(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)\n"
        "{\n"
        "    .reg .pred %%p<2>;\n    .reg .b32 %%r<8>;\n    .reg .b64 %%rd<10>;\n"
        "    ld.param.u64 %%rd1, [a];\n    ld.param.u64 %%rd2, [b];\n"
        "    ld.param.u64 %%rd3, [c];\n    ld.param.u32 %%r1, [n];\n"
        "    mov.u32 %%r2, %%ctaid.x;\n    mov.u32 %%r3, %%ntid.x;\n    mov.u32 %%r4, %%tid.x;\n"
        "    mad.lo.u32 %%r5, %%r2, %%r3, %%r4;\n"
        "    setp.ge.u32 %%p1, %%r5, %%r1;\n"
        "    @%%p1 bra DONE;\n"
        "    mul.wide.u32 %%rd4, %%r5, 4;\n"
        "    add.s64 %%rd5, %%rd1, %%rd4;\n    ld.global.u32 %%r6, [%%rd5];\n"
        "    add.s64 %%rd6, %%rd2, %%rd4;\n    ld.global.u32 %%r7, [%%rd6];\n"
        "    add.u32 %%r6, %%r6, %%r7;\n"
        "    add.s64 %%rd7, %%rd3, %%rd4;\n    st.global.u32 [%%rd7], %%r6;\n"
        "DONE:\n"
        "    ret;\n"
        "}\n");
    return gd_ptx_finish(&p);
}

static int va_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                   gd_probe_plan *out, gd_err *err)
{
    if (point == 0)
        point = 4;
    if (point > 64)
        return gd_fail(err, "vecadd: scale %llu is outside 1..64 (x 64 Ki elements)",
                       (unsigned long long)point);
    uint32_t n = (uint32_t)point * VA_UNIT_ELEMENTS;
    gd_wl_state *st;
    if (gd_wl_plan_begin(out, "gd_wl_vecadd", VA_CTA_THREADS, &st, err))
        return -1;
    uint32_t *a = malloc((size_t)n * 4), *b = malloc((size_t)n * 4);
    st->expect = malloc((size_t)n * 4);
    out->ptx = va_ptx(dev);
    if (!a || !b || !st->expect || !out->ptx) {
        free(a);
        free(b);
        return gd_fail(err, "vecadd: out of memory");
    }
    uint64_t rng = gd_wl_seed(opts, 0x5eed0001ull);
    for (uint32_t i = 0; i < n; i++) {
        a[i] = gd_wl_rand(&rng, 1u << 30);
        b[i] = gd_wl_rand(&rng, 1u << 30);
        st->expect[i] = a[i] + b[i];
    }
    gd_wl_buffer(out, st, "a", (size_t)n * 4, a, 0);
    gd_wl_buffer(out, st, "b", (size_t)n * 4, b, 0);
    st->check_buffer = gd_wl_buffer(out, st, "c", (size_t)n * 4, NULL, 1);
    st->check_words = n;
    gd_wl_param_u32(out, n);
    out->grid[0] = (n + VA_CTA_THREADS - 1) / VA_CTA_THREADS;
    out->point = point;
    return 0;
}

const gd_probe gd_workload_vecadd = {
    .name = "vecadd",
    .summary = "c = a + b, streaming: the regular control (no set conflicts)",
    .sweep_name = "scale_64ki",
    .value_unit = "errors",
    .primary_series = "errors",
    .sweep_granularity = 1,
    .example_point = 4,
    .plan = va_plan,
    .fill = gd_wl_fill,
    .decode = gd_wl_decode,
    .release = gd_wl_release,
};
