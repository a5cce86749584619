/* fig2.c -- CN110457238A's Figure 2, as a kernel: one warp, two loads.
 *
 * Instruction a: lanes 0..20, lane i to L1 set i / 5, way i % 5 -- so a0-a4
 * want set 0, a5-a9 set 1, ..., a20 set 4; with 4 ways the fifth request of
 * each set finds every way reserved (para. 0062-0063).  Instruction b, four
 * independent instructions later: lanes 0..23 to sets 8..31, one line each
 * (para. 0066: "inst-b generates 24 requests").  Lines are FIG2_SET_STRIDE
 * apart per way (32 sets of 128-byte lines: cn110457238.arch's L1).
 *
 * With a coalescer that emits a whole instruction at once ([L1D]
 * coalescer_rate = 32, as GPGPU-Sim's access queue) the FIFO holds a0..a20 in
 * the cycle a issues: the figure's initial state, reached by the kernel alone.
 * The tags take a0..a3 (misses: set 0's four ways reserved) in the four
 * cycles after, and a4 is refused in the fifth -- the cycle b issues, so with
 * pipelined issue b's first request and the re-enqueued a4 want the FIFO tail
 * in the same cycle (para. 0067).  `gpudissect whatif --workloads fig2
 * --trace` records it event by event; tests/test_workloads_fig2.c reads that trace.
 * Each lane stores what it loaded, checked against the host.
 */
#include <stdlib.h>

#include "kernels/ptx_emit.h"
#include "kernels/workloads/workload.h"

#define FIG2_A_REQUESTS 21u
#define FIG2_B_REQUESTS 24u
#define FIG2_PER_SET 5u        /* a's requests per set: one more than the 4 ways */
#define FIG2_SETS 32u
#define FIG2_B_FIRST_LINE 1032u /* line 1032 + i: set 8 + i */
#define FIG2_BUFFER_BYTES (256u * 1024)

static char *fig2_ptx(const gd_device_info *dev)
{
    gd_ptx p;
    gd_ptx_init(&p);
    gd_ptx_header(&p, dev->cc_major, dev->cc_minor, 63);
    gd_ptx_printf(&p,
        ".visible .entry gd_wl_fig2(.param .u64 buf, .param .u64 out)\n"
        "{\n"
        "    .reg .pred %%p<3>;\n    .reg .b32 %%r<32>;\n    .reg .b64 %%rd<10>;\n"
        "    ld.param.u64 %%rd1, [buf];\n    ld.param.u64 %%rd8, [out];\n"
        "    mov.u32 %%r1, %%tid.x;\n"
        "    div.u32 %%r2, %%r1, %u;\n"
        "    rem.u32 %%r3, %%r1, %u;\n"
        "    mad.lo.u32 %%r4, %%r3, %u, %%r2;\n"       /* line = way * sets + set */
        "    mul.wide.u32 %%rd2, %%r4, %u;\n"
        "    add.s64 %%rd3, %%rd1, %%rd2;\n"
        "    add.u32 %%r5, %%r1, %u;\n"
        "    mul.wide.u32 %%rd4, %%r5, %u;\n"
        "    add.s64 %%rd5, %%rd1, %%rd4;\n"
        "    mov.u32 %%r10, 0;\n    mov.u32 %%r11, 0;\n"
        "    setp.lt.u32 %%p1, %%r1, %u;\n"
        "    setp.lt.u32 %%p2, %%r1, %u;\n"
        "    @%%p1 ld.global.u32 %%r10, [%%rd3];\n"   /* inst-a: req-a0 .. req-a20 */
        "    mov.u32 %%r20, 1;\n    mov.u32 %%r21, 2;\n"
        "    mov.u32 %%r22, 3;\n    mov.u32 %%r23, 4;\n"
        "    @%%p2 ld.global.u32 %%r11, [%%rd5];\n"   /* inst-b: req-b0 .. req-b23 */
        "    add.u32 %%r12, %%r10, %%r11;\n"
        "    add.u32 %%r20, %%r20, %%r21;\n    add.u32 %%r22, %%r22, %%r23;\n"
        "    add.u32 %%r20, %%r20, %%r22;\n    add.u32 %%r12, %%r12, %%r20;\n"
        "    mul.wide.u32 %%rd6, %%r1, 4;\n    add.s64 %%rd7, %%rd8, %%rd6;\n"
        "    st.global.u32 [%%rd7], %%r12;\n"
        "    ret;\n"
        "}\n",
        FIG2_PER_SET, FIG2_PER_SET, FIG2_SETS, GD_WL_LINE_BYTES, FIG2_B_FIRST_LINE,
        GD_WL_LINE_BYTES, FIG2_A_REQUESTS, FIG2_B_REQUESTS);
    return gd_ptx_finish(&p);
}

static int fig2_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                     gd_probe_plan *out, gd_err *err)
{
    (void)point;
    gd_wl_state *st;
    if (gd_wl_plan_begin(out, "gd_wl_fig2", GD_WL_WARP, &st, err))
        return -1;
    uint32_t words = FIG2_BUFFER_BYTES / 4;
    uint32_t *buf = malloc(FIG2_BUFFER_BYTES);
    st->expect = malloc(GD_WL_WARP * 4);
    out->ptx = fig2_ptx(dev);
    if (!buf || !st->expect || !out->ptx) {
        free(buf);
        return gd_fail(err, "fig2: out of memory");
    }
    uint64_t rng = gd_wl_seed(opts, 0xf162ull);
    for (uint32_t i = 0; i < words; i++)
        buf[i] = gd_wl_rand(&rng, 1u << 20);
    const uint32_t line_words = GD_WL_LINE_BYTES / 4;
    for (uint32_t lane = 0; lane < GD_WL_WARP; lane++) {
        uint32_t a_line = (lane % FIG2_PER_SET) * FIG2_SETS + lane / FIG2_PER_SET;
        uint32_t v = 1 + 2 + 3 + 4; /* the four independent moves between a and b */
        if (lane < FIG2_A_REQUESTS)
            v += buf[a_line * line_words];
        if (lane < FIG2_B_REQUESTS)
            v += buf[(FIG2_B_FIRST_LINE + lane) * line_words];
        st->expect[lane] = v;
    }
    gd_wl_buffer(out, st, "buf", FIG2_BUFFER_BYTES, buf, 0);
    st->check_buffer = gd_wl_buffer(out, st, "out", GD_WL_WARP * 4, NULL, 1);
    st->check_words = GD_WL_WARP;
    out->point = 1;
    return 0;
}

const gd_probe gd_workload_fig2 = {
    .name = "fig2",
    .summary = "CN110457238A Fig. 2: one warp, a (21 requests, 5 per set) then b (24 requests)",
    .sweep_name = "none",
    .value_unit = "errors",
    .primary_series = "errors",
    .sweep_granularity = 1,
    .example_point = 1,
    .plan = fig2_plan,
    .fill = gd_wl_fill,
    .decode = gd_wl_decode,
    .release = gd_wl_release,
};
