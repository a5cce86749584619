/* resv_stall.c -- does a reservation-failed L1 miss block the requests behind
 * it?  (CN110457238A; the reservation fails of GPGPU-Sim.)
 *
 * One warp.  The kernel first evicts the L2 (kernels/l2_flush.h), so that
 * every line is a miss DRAM serves -- the longest round trip, and so the most
 * ways of a set one warp can reserve before the first fill returns (V100: 256
 * ways, more than its 193-cycle L2 hit leaves time for, fewer than its DRAM
 * round trip).  Then, per round on fresh lines:
 *
 *   load A   k lanes read k distinct lines of one L1 set (the sweep value;
 *            lines --stride apart: the set count times the line size), and
 *            M_OTHER lanes read lines of another set;
 *   load B   an independent load of a line in another set: an L1
 *            miss, so that no replacement policy can turn it into a miss by
 *            evicting it;
 *
 * timed as clock; A; B; B consumed (a shared store) -> clock (B's
 * completion); A consumed -> clock (A's).  B's address adds the top bit (0) of
 * a clock read issued after A, or ptxas issues B first (see rs_ptx).  While k is at most the set's
 * ways every line of A takes a way, reserved until its fill, and B misses
 * behind them: one round trip.  With k > ways the (ways+1)-th line finds every
 * way reserved: a reservation fail.  An L1 that keeps the failed request at the
 * head of its miss FIFO (today's GPUs, GPGPU-Sim) holds B until a fill frees a
 * way -- B takes two round trips, and so does A; one that moves the failed
 * request to the back and lets B in (CN110457238A's reorder with a free tail)
 * keeps B at one.  (Held up for the rest of the round trip, that is: the
 * refusal comes `ways` requests after the set's first miss, so the wait is the
 * round trip less the ways' issue time.)  The knee of A's completion is the
 * associativity.  Series: "a_cycles" (primary: its step pins the knee) and
 * "b_cycles", from the first clock read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/l2_flush.h"
#include "kernels/probe.h"
#include "kernels/ptx_emit.h"

#define RS_OTHER 2          /* lines of A in another set */
#define RS_MAX_K 512
#define RS_DEFAULT_ROUNDS 4
#define RS_MAX_ROUNDS 16
#define RS_DEFAULT_STRIDE 4096

typedef struct rs_state {
    uint32_t k, rounds;
    uint64_t stride;
    uint64_t flush_bytes;
    uint64_t round_bytes;   /* each round's lines: [k in set 0 | others + B in set sets/2] */
} rs_state;

static char *rs_ptx(const gd_device_info *dev, const rs_state *st)
{
    uint32_t lanes = st->k + RS_OTHER, ninstr = (lanes + 31) / 32;
    gd_ptx p;
    gd_ptx_init(&p);
    gd_ptx_header(&p, dev->cc_major, dev->cc_minor, 63);
    gd_ptx_printf(&p,
        ".visible .entry gd_resv_stall(\n"
        "    .param .u64 gd_rs_buf,\n"
        "    .param .u64 gd_rs_out,\n"
        "    .param .u32 gd_rs_k,\n"
        "    .param .u32 gd_rs_rounds,\n"
        "    .param .u64 gd_rs_flush\n"
        ")\n"
        ".maxntid 32, 1, 1\n"
        "{\n"
        "    .reg .pred %%p<4>;\n"
        "    .reg .pred %%q<%u>;\n"
        "    .reg .b32 %%r<24>;\n"
        "    .reg .b32 %%v<%u>;\n"
        "    .reg .b64 %%rd<20>;\n"
        "    .reg .b64 %%a<%u>;\n"
        "    .shared .align 4 .b8 gd_sink[384];   // three words per lane: every consuming store lives\n",
        ninstr, ninstr, ninstr);
    gd_l2_flush_decls(&p);
    gd_ptx_printf(&p,
        "\n"
        "    ld.param.u64 %%rd1, [gd_rs_buf];\n"
        "    ld.param.u64 %%rd2, [gd_rs_out];\n"
        "    ld.param.u32 %%r1, [gd_rs_k];\n"
        "    ld.param.u32 %%r2, [gd_rs_rounds];\n"
        "    mov.u32 %%r3, %%tid.x;\n"
        "    setp.eq.u32 %%p3, %%r3, 0;\n"
        "    mov.u32 %%r12, gd_sink;\n"
        "    shl.b32 %%r13, %%r3, 2;\n"
        "    add.s32 %%r12, %%r12, %%r13;\n"
        "    ld.param.u64 %%rd8, [gd_rs_flush];\n");
    gd_l2_flush_emit(&p, "%rd8", st->flush_bytes, "[%r12+256]");
    gd_ptx_printf(&p,
        "    add.u32 %%r4, %%r1, %u;            // lanes of A\n"
        "    mov.u32 %%r8, 0;\n"
        "$L_round:\n"
        "    .pragma \"nounroll\";\n"
        "    mul.wide.u32 %%rd4, %%r8, %llu;\n"
        "    add.s64 %%rd4, %%rd1, %%rd4;        // this round's lines\n",
        RS_OTHER, (unsigned long long)st->round_bytes);
    /* the addresses: element e < k at e*stride (one set), then the others and B
     * at stride/2 + i*stride (another set) */
    for (uint32_t j = 0; j < ninstr; j++) {
        gd_ptx_printf(&p,
            "    add.u32 %%r10, %%r3, %u;\n"
            "    setp.lt.u32 %%q%u, %%r10, %%r4;\n"
            "    setp.lt.u32 %%p1, %%r10, %%r1;\n"
            "    sub.u32 %%r11, %%r10, %%r1;\n"
            "    mul.wide.u32 %%rd5, %%r10, %llu;\n"
            "    mul.wide.u32 %%rd6, %%r11, %llu;\n"
            "    add.s64 %%rd6, %%rd6, %llu;\n"
            "    selp.b64 %%rd5, %%rd5, %%rd6, %%p1;\n"
            "    add.s64 %%a%u, %%rd4, %%rd5;\n"
            "    mov.u32 %%v%u, 0;\n",
            32 * j, j, (unsigned long long)st->stride, (unsigned long long)st->stride,
            (unsigned long long)(st->stride / 2), j, j);
    }
    gd_ptx_printf(&p,
        "    add.s64 %%rd7, %%rd4, %llu;        // B\n"
        "    mov.u64 %%rd10, %%clock64;\n",
        (unsigned long long)(st->stride / 2 + (uint64_t)RS_OTHER * st->stride));
    for (uint32_t j = 0; j < ninstr; j++)
        gd_ptx_printf(&p, "    @%%q%u ld.global.ca.u32 %%v%u, [%%a%u];\n", j, j, j);
    /* B's address waits for a clock read issued after A: its top bit, zero
     * at run time (2^63 cycles) but unknown to ptxas, added to the address.
     * Without it ptxas issues B ahead of A on every target, and B never
     * queues behind a refused request; clock reads keep their place among the
     * loads, and a dependence on the address (not on a loaded value) waits for
     * no load.  tests/test_sass_order.c checks the order in the SASS. */
    gd_ptx_printf(&p,
        "    mov.u64 %%rd16, %%clock64;         // issued after A\n"
        "    shr.u64 %%rd16, %%rd16, 63;        // 0, which ptxas cannot know\n"
        "    add.s64 %%rd17, %%rd7, %%rd16;\n"
        "    ld.global.ca.u32 %%r15, [%%rd17];  // B\n"
        "    st.shared.u32 [%%r12+128], %%r15;  // its own word: a store the next one\n"
        "                                        // overwrote would be dead, and B with it\n"
        "    mov.u64 %%rd11, %%clock64;\n"
        "    mov.u32 %%r16, 0;\n");
    for (uint32_t j = 0; j < ninstr; j++)
        gd_ptx_printf(&p, "    add.u32 %%r16, %%r16, %%v%u;\n", j);
    gd_ptx_printf(&p,
        "    st.shared.u32 [%%r12], %%r16;       // A consumed\n"
        "    mov.u64 %%rd12, %%clock64;\n"
        "    sub.s64 %%rd13, %%rd11, %%rd10;\n"
        "    sub.s64 %%rd14, %%rd12, %%rd10;\n"
        "    cvt.u32.u64 %%r17, %%rd13;\n"
        "    cvt.u32.u64 %%r18, %%rd14;\n"
        "    mul.wide.u32 %%rd15, %%r8, 12;\n"
        "    add.s64 %%rd15, %%rd2, %%rd15;\n"
        "    @%%p3 st.global.u32 [%%rd15], %%r17;\n"
        "    @%%p3 st.global.u32 [%%rd15+4], %%r18;\n"
        "    @%%p3 st.global.u32 [%%rd15+8], %%r16;\n"
        "    add.u32 %%r8, %%r8, 1;\n"
        "    setp.lt.u32 %%p2, %%r8, %%r2;\n"
        "    @%%p2 bra $L_round;\n"
        "    ret;\n"
        "}\n");
    return gd_ptx_finish(&p);
}

static int rs_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                   gd_probe_plan *out, gd_err *err)
{
    memset(out, 0, sizeof *out);
    out->opts = *opts;
    gd_probe_opts *o = &out->opts;
    if (o->variant[0] && strcmp(o->variant, "ca"))
        return gd_fail(err, "resv_stall: unknown variant '%s' (it has none)", o->variant);
    if (!o->stride_bytes)
        o->stride_bytes = RS_DEFAULT_STRIDE;
    if (o->stride_bytes % 256)
        return gd_fail(err, "resv_stall: --stride (sets x line) must be a multiple of 256 bytes, "
                            "got %llu",
                       (unsigned long long)o->stride_bytes);
    if (!o->samples)
        o->samples = RS_DEFAULT_ROUNDS;
    if (o->samples > RS_MAX_ROUNDS)
        return gd_fail(err, "resv_stall: at most %d rounds (--samples), got %u", RS_MAX_ROUNDS,
                       o->samples);
    if (point < 1 || point > RS_MAX_K)
        return gd_fail(err, "resv_stall: %llu lines in one set is outside 1..%d",
                       (unsigned long long)point, RS_MAX_K);
    rs_state *st = calloc(1, sizeof *st);
    if (!st)
        return gd_fail(err, "resv_stall: out of memory");
    st->k = (uint32_t)point;
    st->rounds = o->samples;
    st->stride = o->stride_bytes;
    uint64_t span = (point > RS_OTHER + 1 ? point : RS_OTHER + 1) * st->stride;
    st->round_bytes = span + st->stride; /* fresh tags every round */
    st->flush_bytes = gd_l2_flush_bytes(dev);
    out->state = st;
    out->point = point;
    out->ptx = rs_ptx(dev, st);
    if (!out->ptx) {
        free(st);
        out->state = NULL;
        return gd_fail(err, "resv_stall: out of memory");
    }
    snprintf(out->entry, sizeof out->entry, "gd_resv_stall");
    out->grid[0] = out->grid[1] = out->grid[2] = 1;
    out->block[0] = 32;
    out->block[1] = out->block[2] = 1;
    out->buffers[0] = (gd_probe_buffer){.name = "lines",
                                        .bytes = st->round_bytes * st->rounds,
                                        .host_fill = 1};
    out->buffers[1] = (gd_probe_buffer){.name = "out", .bytes = 12 * (size_t)st->rounds,
                                        .copy_out = 1};
    out->buffer_count = 2;
    out->params[0] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 0};
    out->params[1] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 1};
    out->params[2] = (gd_probe_param){.kind = GD_PARAM_U32, .value = st->k};
    out->params[3] = (gd_probe_param){.kind = GD_PARAM_U32, .value = st->rounds};
    out->param_count = 4;
    gd_l2_flush_attach(out, st->flush_bytes);
    /* A's load instructions and B (the flush pass's loads are ld.cg, counted apart) */
    out->intended_instructions = (st->k + RS_OTHER + 31) / 32 + 1;
    return 0;
}

static int rs_fill(const gd_probe_plan *plan, unsigned index, const gd_devptr *addresses,
                   void *host, gd_err *err)
{
    (void)addresses;
    if (index != 0)
        return gd_fail(err, "resv_stall: no initial contents for buffer %u", index);
    uint32_t *w = host;
    for (size_t i = 0; i < plan->buffers[0].bytes / 4; i++)
        w[i] = 1;
    return 0;
}

static int rs_decode(const gd_probe_plan *plan, const gd_devptr *addresses, void *const *host,
                     gd_probe_result *out, gd_err *err)
{
    (void)addresses;
    const rs_state *st = plan->state;
    const uint8_t *buf = host[1];
    gd_series *b = gd_probe_result_add(out, "b_cycles", st->rounds);
    gd_series *a = gd_probe_result_add(out, "a_cycles", st->rounds);
    if (!a || !b)
        return gd_fail(err, "resv_stall: out of memory");
    /* lane 0 loads element 0, 32, 64, ...: one per instruction it is active in */
    uint32_t lanes = st->k + RS_OTHER, expect = (lanes + 31) / 32;
    for (uint32_t r = 0; r < st->rounds; r++) {
        uint32_t tb, ta, sum;
        memcpy(&tb, buf + 12 * r, 4);
        memcpy(&ta, buf + 12 * r + 4, 4);
        memcpy(&sum, buf + 12 * r + 8, 4);
        if (sum != expect)
            return gd_fail(err, "resv_stall: round %u read a sum of %u, expected %u: the loads of "
                                "A did not all happen",
                           r, sum, expect);
        b->samples[r] = tb;
        a->samples[r] = ta;
    }
    return 0;
}

static const char *const rs_variants[] = {"ca", NULL};

const gd_probe gd_probe_resv_stall = {
    .name = "resv_stall",
    .summary = "lines of one L1 set beyond its ways, then an independent hit: head-of-line "
               "blocking of reservation-failed misses",
    .sweep_name = "lines_in_set",
    .value_unit = "cycles",
    .aggregate_samples = 1,
    .ramp_curve = 1,
    .primary_series = "a_cycles",
    .default_stride_bytes = RS_DEFAULT_STRIDE,
    .sweep_granularity = 1,
    .variants = rs_variants,
    .example_point = 6,
    .plan = rs_plan,
    .fill = rs_fill,
    .decode = rs_decode,
    .release = gd_probe_free_state,
};
