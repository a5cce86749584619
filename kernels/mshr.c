/* mshr.c -- memory-level parallelism of the L1: how many misses one SM keeps
 * in flight (MSHR entries), and how many requests one pending line takes
 * (the merge limit).
 *
 * One warp.  The kernel first evicts the L2 (kernels/l2_flush.h), so every
 * timed access is an L1 miss that DRAM serves: the longest round trip one SM
 * sees, and so the most requests it can put in flight.  Then, per round, on
 * fresh lines:
 *
 *   entries  the sweep value n is the number of distinct lines: ceil(n/32)
 *            load instructions, lane i of instruction j loading line 32j + i,
 *            followed by one load of another line (the follower);
 *   merge    the sweep value K is the number of load instructions, all of
 *            whose lanes read byte j of one and the same line: K requests to
 *            one pending line, followed by the follower;
 *
 * timed as clock; the loads; their sum stored to shared memory (it consumes
 * every load); clock.  The follower's address adds the top bit (0) of a clock
 * read issued after the line loads, or ptxas issues it first (see below).  The L1 takes one request per cycle, so without a limit
 * the time is about the DRAM latency plus one cycle per request.  Once n
 * exceeds the MSHR entries a request must wait until a fill frees one: the
 * "excess_cycles" (time minus requests) jump.  A request beyond the merge
 * limit also waits for the fill, but then hits the line it was waiting for, so
 * the total hardly moves; what moves in both cases is a load issued right
 * behind them, an L1 miss to another line (a miss, so that no replacement
 * policy can make it one by evicting it), which the refused request holds up:
 * "follower_cycles", the primary series, from the first clock read to the
 * follower's value stored -- the issue of the requests ahead of it plus a
 * round trip, plus the wait for a fill once held up -- on an L1 that blocks
 * behind a refused request, as today's do (with CN110457238A's reorder and a
 * free MSHR it would not, and the merge limit goes unseen).  The follower is
 * itself a miss: with n = MSHR entries it is the one that finds none free.
 *
 * Each round then replays the same timed block over the lines, now in the L1:
 * "follower_hit_cycles".  Its follower probes the tags at the same cycle as in
 * the first pass and hits, so the difference, "window_cycles", is how long a
 * miss holds its MSHR -- the clock reads, the issue of the requests ahead and
 * the pipeline to the register cancel.  A limit of N entries below that window
 * W makes the (N+1)-th request wait W - N cycles; with the MSHRs outnumbering
 * W no knee appears and the sweep only bounds them from below (analysis/
 * infer_l1.c: by W less the smallest step it could have seen).
 * --stride spaces the lines (default 128 bytes: an L1 line of every NVIDIA GPU
 * since Fermi); --samples sets the rounds (default 4).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/l2_flush.h"
#include "kernels/probe.h"
#include "kernels/ptx_emit.h"

#define MSHR_MAX_LINES 1024   /* 32 load instructions of 32 lanes */
#define MSHR_MAX_MERGE 128    /* distinct bytes of a 128-byte line */
#define MSHR_DEFAULT_ROUNDS 4
#define MSHR_MAX_ROUNDS 16
#define MSHR_DEFAULT_STRIDE 128
#define MSHR_OUT_BYTES 16    /* per round: time, sum, follower, follower replayed */

typedef struct mshr_state {
    int merge;
    uint32_t count;      /* n lines, or K requests */
    uint32_t rounds;
    uint64_t stride;
    uint64_t lines;      /* distinct lines per round */
    uint64_t flush_bytes;
} mshr_state;

static char *mshr_ptx(const gd_device_info *dev, const mshr_state *st)
{
    uint32_t k = st->merge ? st->count : (st->count + 31) / 32;
    gd_ptx p;
    gd_ptx_init(&p);
    gd_ptx_header(&p, dev->cc_major, dev->cc_minor, 63);
    gd_ptx_printf(&p,
        ".visible .entry gd_mshr(\n"
        "    .param .u64 gd_mshr_buf,\n"
        "    .param .u64 gd_mshr_out,\n"
        "    .param .u32 gd_mshr_lines,\n"
        "    .param .u32 gd_mshr_rounds,\n"
        "    .param .u64 gd_mshr_flush\n"
        ")\n"
        ".maxntid 32, 1, 1\n"
        "{\n"
        "    .reg .pred %%p<4>;\n"
        "    .reg .pred %%q<%u>;\n"
        "    .reg .b32 %%r<16>;\n"
        "    .reg .b32 %%v<%u>;\n"
        "    .reg .b64 %%rd<17>;\n"
        "    .reg .b64 %%a<%u>;\n"
        "    .shared .align 4 .b8 gd_sink[640];   // five words per lane: every consuming store lives\n",
        k, k, k);
    gd_l2_flush_decls(&p);
    gd_ptx_printf(&p,
        "\n"
        "    ld.param.u64 %%rd1, [gd_mshr_buf];\n"
        "    ld.param.u64 %%rd2, [gd_mshr_out];\n"
        "    ld.param.u32 %%r1, [gd_mshr_lines];\n"
        "    ld.param.u32 %%r2, [gd_mshr_rounds];\n"
        "    ld.param.u64 %%rd7, [gd_mshr_flush];\n"
        "    mov.u32 %%r3, %%tid.x;\n"
        "    setp.eq.u32 %%p3, %%r3, 0;\n"
        "    mov.u32 %%r12, gd_sink;\n"
        "    shl.b32 %%r13, %%r3, 2;\n"
        "    add.s32 %%r12, %%r12, %%r13;      // this lane's sink word\n");
    gd_l2_flush_emit(&p, "%rd7", st->flush_bytes, "[%r12+256]");
    gd_ptx_printf(&p,
        "\n"
        "    mov.u32 %%r8, 0;\n"
        "$L_round:\n"
        "    .pragma \"nounroll\";\n"
        "    // this round's first line\n"
        "    mul.lo.u32 %%r9, %%r8, %%r1;\n"
        "    mul.wide.u32 %%rd4, %%r9, %llu;\n"
        "    add.s64 %%rd4, %%rd1, %%rd4;\n",
        (unsigned long long)st->stride);
    /* the follower: this round's line after all rounds' lines */
    gd_ptx_printf(&p,
            "    mul.lo.u32 %%r9, %%r2, %%r1;\n"
            "    add.u32 %%r9, %%r9, %%r8;\n"
            "    mul.wide.u32 %%rd6, %%r9, %llu;\n"
            "    add.s64 %%rd6, %%rd1, %%rd6;\n",
            (unsigned long long)st->stride);
    /* addresses and predicates before the timed region */
    for (uint32_t j = 0; j < k; j++) {
        if (st->merge) {
            gd_ptx_printf(&p, "    add.s64 %%a%u, %%rd4, %u;\n", j, j);
            gd_ptx_printf(&p, "    setp.eq.u32 %%q%u, %%r3, %%r3;\n", j);
        } else {
            gd_ptx_printf(&p,
                "    add.u32 %%r10, %%r3, %u;\n"
                "    setp.lt.u32 %%q%u, %%r10, %%r1;\n"
                "    mul.wide.u32 %%rd5, %%r10, %llu;\n"
                "    add.s64 %%a%u, %%rd4, %%rd5;\n",
                32 * j, j, (unsigned long long)st->stride, j);
        }
        gd_ptx_printf(&p, "    mov.u32 %%v%u, 0;\n", j);
    }
    /* pass 0 times the misses; pass 1 replays the same block over the lines
     * now in the L1 -- the follower's hit time, which its miss time exceeds by
     * exactly how long a miss holds its MSHR (see mshr_decode) */
    for (int pass = 0; pass < 2; pass++) {
        unsigned sink = pass ? 384 : 0;
        gd_ptx_printf(&p, "    // pass %d: %s\n    mov.u64 %%rd10, %%clock64;\n", pass,
                      pass ? "the same again, every line in the L1 now" : "the misses");
        for (uint32_t j = 0; j < k; j++)
            gd_ptx_printf(&p, "    @%%q%u ld.global.ca.%s %%v%u, [%%a%u];\n", j,
                          st->merge ? "u8" : "u32", j, j);
        /* the follower's address waits for a clock read issued after the
         * lines: its top bit, zero at run time (2^63 cycles) but unknown to
         * ptxas, added to the address.  Without it ptxas issues the follower
         * ahead of every line load, on every target (the follower then always
         * finds a free MSHR and nothing it measures can be seen); clock reads
         * keep their place among the loads, and a dependence on the address
         * (not on a loaded value) does not wait for any load to complete.
         * tests/test_sass_order.c checks the order in the SASS. */
        gd_ptx_printf(&p,
                "    mov.u64 %%rd15, %%clock64;         // issued after the lines\n"
                "    shr.u64 %%rd15, %%rd15, 63;        // 0, which ptxas cannot know\n"
                "    add.s64 %%rd16, %%rd6, %%rd15;\n"
                "    ld.global.ca.u32 %%r15, [%%rd16];  // the follower\n"
                "    st.shared.u32 [%%r12+%u], %%r15;  // its own word: a store the next one\n"
                "                                        // overwrote would be dead, and its load too\n"
                "    mov.u64 %%rd14, %%clock64;\n"
                "    mov.u32 %%r11, 0;\n",
                sink + 128);
        for (uint32_t j = 0; j < k; j++)
            gd_ptx_printf(&p, "    add.u32 %%r11, %%r11, %%v%u;\n", j);
        gd_ptx_printf(&p,
            "    st.shared.u32 [%%r12+%u], %%r11;       // consumes every load\n"
            "    mov.u64 %%rd11, %%clock64;\n"
            "    mul.wide.u32 %%rd13, %%r8, %d;\n"
            "    add.s64 %%rd13, %%rd2, %%rd13;\n",
            sink, MSHR_OUT_BYTES);
        if (!pass)
            gd_ptx_printf(&p,
                "    sub.s64 %%rd12, %%rd11, %%rd10;\n"
                "    cvt.u32.u64 %%r14, %%rd12;\n"
                "    @%%p3 st.global.u32 [%%rd13], %%r14;\n"
                "    @%%p3 st.global.u32 [%%rd13+4], %%r11;\n");
        gd_ptx_printf(&p,
                "    sub.s64 %%rd12, %%rd14, %%rd10;\n"
                "    cvt.u32.u64 %%r14, %%rd12;\n"
                "    @%%p3 st.global.u32 [%%rd13+%d], %%r14;\n",
                pass ? 12 : 8);
    }
    gd_ptx_printf(&p,
        "    add.u32 %%r8, %%r8, 1;\n"
        "    setp.lt.u32 %%p2, %%r8, %%r2;\n"
        "    @%%p2 bra $L_round;\n"
        "    ret;\n"
        "}\n");
    return gd_ptx_finish(&p);
}

static int mshr_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                     gd_probe_plan *out, gd_err *err)
{
    memset(out, 0, sizeof *out);
    out->opts = *opts;
    gd_probe_opts *o = &out->opts;
    if (!o->variant[0])
        strcpy(o->variant, "entries");
    int merge = !strcmp(o->variant, "merge");
    if (!merge && strcmp(o->variant, "entries"))
        return gd_fail(err, "mshr: unknown variant '%s' (expected entries or merge)", o->variant);
    if (!o->stride_bytes)
        o->stride_bytes = MSHR_DEFAULT_STRIDE;
    if (o->stride_bytes % 128)
        return gd_fail(err, "mshr: --stride must be a multiple of 128 bytes (whole lines), got %llu",
                       (unsigned long long)o->stride_bytes);
    if (!o->samples)
        o->samples = MSHR_DEFAULT_ROUNDS;
    if (o->samples > MSHR_MAX_ROUNDS)
        return gd_fail(err, "mshr: at most %d rounds (--samples), got %u", MSHR_MAX_ROUNDS,
                       o->samples);
    uint64_t max = merge ? MSHR_MAX_MERGE : MSHR_MAX_LINES;
    if (point < 1 || point > max)
        return gd_fail(err, "mshr: %llu %s is outside 1..%llu", (unsigned long long)point,
                       merge ? "requests to one line" : "lines", (unsigned long long)max);
    mshr_state *st = calloc(1, sizeof *st);
    if (!st)
        return gd_fail(err, "mshr: out of memory");
    st->merge = merge;
    st->count = (uint32_t)point;
    st->rounds = o->samples;
    st->stride = o->stride_bytes;
    st->lines = merge ? 1 : point;
    st->flush_bytes = gd_l2_flush_bytes(dev);
    out->state = st;
    out->point = point;
    out->ptx = mshr_ptx(dev, st);
    if (!out->ptx) {
        free(st);
        out->state = NULL;
        return gd_fail(err, "mshr: out of memory");
    }
    snprintf(out->entry, sizeof out->entry, "gd_mshr");
    out->grid[0] = out->grid[1] = out->grid[2] = 1;
    out->block[0] = 32;
    out->block[1] = out->block[2] = 1;
    out->buffers[0] = (gd_probe_buffer){.name = "lines",
                                        .bytes = (st->lines + 1) * st->rounds * st->stride,
                                        .host_fill = 1};
    out->buffers[1] = (gd_probe_buffer){.name = "out", .bytes = MSHR_OUT_BYTES * (size_t)st->rounds,
                                        .copy_out = 1};
    out->buffer_count = 2;
    out->params[0] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 0};
    out->params[1] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 1};
    out->params[2] = (gd_probe_param){.kind = GD_PARAM_U32, .value = st->lines};
    out->params[3] = (gd_probe_param){.kind = GD_PARAM_U32, .value = st->rounds};
    out->param_count = 4;
    gd_l2_flush_attach(out, st->flush_bytes);
    /* the loads the probe intends, all of them in the machine code */
    out->intended_instructions = 2 * ((merge ? st->count : (st->count + 31) / 32) + 1);
    return 0;
}

/* Every byte holds 1: the sum a round stores proves which loads happened. */
static int mshr_fill(const gd_probe_plan *plan, unsigned index, const gd_devptr *addresses,
                     void *host, gd_err *err)
{
    (void)addresses;
    if (index != 0)
        return gd_fail(err, "mshr: no initial contents for buffer %u", index);
    memset(host, 1, plan->buffers[0].bytes);
    return 0;
}

static int mshr_decode(const gd_probe_plan *plan, const gd_devptr *addresses, void *const *host,
                       gd_probe_result *out, gd_err *err)
{
    (void)addresses;
    const mshr_state *st = plan->state;
    const uint8_t *buf = host[1];
    gd_series *cycles = gd_probe_result_add(out, "cycles", st->rounds);
    gd_series *excess = gd_probe_result_add(out, "excess_cycles", st->rounds);
    gd_series *follower = gd_probe_result_add(out, "follower_cycles", st->rounds);
    gd_series *hit = gd_probe_result_add(out, "follower_hit_cycles", st->rounds);
    gd_series *window = gd_probe_result_add(out, "window_cycles", st->rounds);
    if (!cycles || !excess || !follower || !hit || !window)
        return gd_fail(err, "mshr: out of memory");
    /* lane 0's sum: its loads of 0x01010101 words, or of 0x01 bytes */
    uint32_t lane0_loads = st->merge ? st->count : (st->count + 31) / 32;
    uint32_t expect = st->merge ? lane0_loads : lane0_loads * 0x01010101u;
    for (uint32_t r = 0; r < st->rounds; r++) {
        uint32_t t, sum, f, h;
        const uint8_t *o = buf + MSHR_OUT_BYTES * r;
        memcpy(&t, o, 4);
        memcpy(&sum, o + 4, 4);
        memcpy(&f, o + 8, 4);
        memcpy(&h, o + 12, 4);
        if (sum != expect)
            return gd_fail(err, "mshr: round %u read a sum of %u, expected %u: the loads did not "
                                "all happen",
                           r, sum, expect);
        cycles->samples[r] = t;
        excess->samples[r] = (double)t - (double)st->count;
        follower->samples[r] = f;
        hit->samples[r] = h;
        window->samples[r] = (double)f - (double)h;
    }
    return 0;
}

static const char *const mshr_variants[] = {"entries", "merge", NULL};

const gd_probe gd_probe_mshr = {
    .name = "mshr",
    .summary = "misses in flight from one SM: MSHR entries, and requests merged per line",
    .sweep_name = "requests",
    .value_unit = "cycles",
    .aggregate_samples = 1,
    .ramp_curve = 1,
    .first_step_only = 1,
    .primary_series = "follower_cycles",
    .default_stride_bytes = MSHR_DEFAULT_STRIDE,
    .sweep_granularity = 1,
    .variants = mshr_variants,
    .example_point = 64,
    .plan = mshr_plan,
    .fill = mshr_fill,
    .decode = mshr_decode,
    .release = gd_probe_free_state,
};
