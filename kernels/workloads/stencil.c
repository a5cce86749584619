/* stencil.c -- 5-point stencil on a grid whose row pitch maps rows onto the
 * same L1 sets.
 *
 * out[y][x] = in[y-1][x] + in[y][x-1] + in[y][x] + in[y][x+1] + in[y+1][x] on
 * the interior of a W x H grid of 32-bit integers, one thread a point, a CTA a
 * piece of one row.  The row pitch is W x 4 bytes = 4 KiB (W = 1024): a multiple
 * of a 32-set L1's set stride, so the up, centre and down lines of a warp fall
 * in one set, and with neighbouring warps' rows more lines want a set than a
 * 4-way L1 has -- the "conflicting row pitch" every stencil tutorial pads away.
 * `point` = H / 32 (default 4: 128 rows), seeded.
 */
#include <stdlib.h>

#include "kernels/ptx_emit.h"
#include "kernels/workloads/workload.h"

#define ST_CTA_THREADS 256u
#define ST_WIDTH 1024u /* a 4 KiB row pitch */
#define ST_UNIT_ROWS 32u

static char *st_ptx(const gd_device_info *dev)
{
    gd_ptx p;
    gd_ptx_init(&p);
    gd_ptx_header(&p, dev->cc_major, dev->cc_minor, 63);
    gd_ptx_printf(&p,
        ".visible .entry gd_wl_stencil(.param .u64 in, .param .u64 out, .param .u32 w,\n"
        "                              .param .u32 h)\n"
        "{\n"
        "    .reg .pred %%p<2>;\n    .reg .b32 %%r<24>;\n    .reg .b64 %%rd<12>;\n"
        "    ld.param.u64 %%rd1, [in];\n    ld.param.u64 %%rd2, [out];\n"
        "    ld.param.u32 %%r1, [w];\n    ld.param.u32 %%r2, [h];\n"
        "    mov.u32 %%r3, %%ctaid.x;\n    mov.u32 %%r4, %%ntid.x;\n    mov.u32 %%r5, %%tid.x;\n"
        "    mad.lo.u32 %%r6, %%r3, %%r4, %%r5;\n"  /* x */
        "    mov.u32 %%r7, %%ctaid.y;\n"            /* y */
        "    sub.u32 %%r8, %%r1, 1;\n    sub.u32 %%r9, %%r2, 1;\n"
        "    setp.eq.u32 %%p1, %%r6, 0;\n    @%%p1 bra DONE;\n"
        "    setp.ge.u32 %%p1, %%r6, %%r8;\n    @%%p1 bra DONE;\n"
        "    setp.eq.u32 %%p1, %%r7, 0;\n    @%%p1 bra DONE;\n"
        "    setp.ge.u32 %%p1, %%r7, %%r9;\n    @%%p1 bra DONE;\n"
        "    mad.lo.u32 %%r10, %%r7, %%r1, %%r6;\n"
        "    mul.wide.u32 %%rd3, %%r10, 4;\n    add.s64 %%rd4, %%rd1, %%rd3;\n"
        "    mul.wide.u32 %%rd5, %%r1, 4;\n"
        "    sub.s64 %%rd6, %%rd4, %%rd5;\n    add.s64 %%rd7, %%rd4, %%rd5;\n"
        "    ld.global.u32 %%r11, [%%rd6];\n"
        "    ld.global.u32 %%r12, [%%rd4+-4];\n"
        "    ld.global.u32 %%r13, [%%rd4];\n"
        "    ld.global.u32 %%r14, [%%rd4+4];\n"
        "    ld.global.u32 %%r15, [%%rd7];\n"
        "    add.u32 %%r16, %%r11, %%r12;\n    add.u32 %%r16, %%r16, %%r13;\n"
        "    add.u32 %%r16, %%r16, %%r14;\n    add.u32 %%r16, %%r16, %%r15;\n"
        "    add.s64 %%rd8, %%rd2, %%rd3;\n    st.global.u32 [%%rd8], %%r16;\n"
        "DONE:\n"
        "    ret;\n"
        "}\n");
    return gd_ptx_finish(&p);
}

static int st_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                   gd_probe_plan *out, gd_err *err)
{
    if (point == 0)
        point = 4;
    if (point > 32)
        return gd_fail(err, "stencil: scale %llu is outside 1..32 (x 32 rows)",
                       (unsigned long long)point);
    uint32_t w = ST_WIDTH, h = (uint32_t)point * ST_UNIT_ROWS, cells = w * h;
    gd_wl_state *st;
    if (gd_wl_plan_begin(out, "gd_wl_stencil", ST_CTA_THREADS, &st, err))
        return -1;
    uint32_t *in = malloc((size_t)cells * 4);
    st->expect = calloc(cells, 4);
    out->ptx = st_ptx(dev);
    if (!in || !st->expect || !out->ptx) {
        free(in);
        return gd_fail(err, "stencil: out of memory");
    }
    uint64_t rng = gd_wl_seed(opts, 0x57e9c11ull);
    for (uint32_t i = 0; i < cells; i++)
        in[i] = gd_wl_rand(&rng, 1u << 20);
    for (uint32_t y = 1; y + 1 < h; y++)
        for (uint32_t x = 1; x + 1 < w; x++) {
            uint32_t i = y * w + x;
            st->expect[i] = in[i - w] + in[i - 1] + in[i] + in[i + 1] + in[i + w];
        }
    gd_wl_buffer(out, st, "in", (size_t)cells * 4, in, 0);
    st->check_buffer = gd_wl_buffer(out, st, "out", (size_t)cells * 4, NULL, 1);
    st->check_words = cells;
    gd_wl_param_u32(out, w);
    gd_wl_param_u32(out, h);
    out->grid[0] = w / ST_CTA_THREADS;
    out->grid[1] = h;
    out->point = point;
    return 0;
}

const gd_probe gd_workload_stencil = {
    .name = "stencil",
    .summary = "5-point stencil, 1024-wide rows: a 4 KiB pitch puts up/centre/down in one set",
    .sweep_name = "scale_32_rows",
    .value_unit = "errors",
    .primary_series = "errors",
    .sweep_granularity = 1,
    .example_point = 4,
    .plan = st_plan,
    .fill = gd_wl_fill,
    .decode = gd_wl_decode,
    .release = gd_wl_release,
};
