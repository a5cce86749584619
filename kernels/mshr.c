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
#define MSHR_MAX_BATCH 16    /* points a launch measures after its one eviction pass */

/* One point of a launch: n lines or K requests, its lines' and its
 * results' place in the launch's buffers. */
typedef struct mshr_point {
    uint32_t count;      /* n lines, or K requests */
    uint64_t lines;      /* distinct lines per round */
    uint64_t line_off;   /* its lines, from the start of the lines buffer */
    uint64_t out_off;    /* its rounds' results, from the start of out */
} mshr_point;

typedef struct mshr_state {
    int merge;
    uint32_t rounds;
    uint64_t stride;
    uint64_t flush_bytes;
    uint64_t line_bytes; /* the lines buffer: every point's */
    size_t n;            /* points in the launch */
    mshr_point pt[];
} mshr_state;

/* Between two points' lines of a launch: a 4 KiB gap, so that no sector
 * prefetch or 128-byte promotion of one point's last line can bring in the
 * next point's first. */
#define MSHR_POINT_GAP 4096

static uint32_t mshr_loads(const mshr_state *st, const mshr_point *pt)
{
    return st->merge ? pt->count : (pt->count + 31) / 32;
}

/* Point j's timed rounds: with one point, on the buffers' starts and the
 * lines parameter (%rd1, %rd2, %r1); in a batch on %rd8, %rd9 and %r1 set
 * from the point's own offsets and line count. */
static void mshr_emit_point(gd_ptx *p, const mshr_state *st, size_t j)
{
    const mshr_point *pt = &st->pt[j];
    uint32_t k = mshr_loads(st, pt);
    const char *buf = st->n > 1 ? "%rd8" : "%rd1", *out = st->n > 1 ? "%rd9" : "%rd2";
    char label[32];
    snprintf(label, sizeof label, st->n > 1 ? "$L_round%zu" : "$L_round", j);
    if (st->n > 1)
        gd_ptx_printf(p,
            "\n"
            "    // point %zu: %u %s, its lines %llu bytes into the buffer, nothing\n"
            "    // read them since the eviction pass\n"
            "    add.s64 %%rd8, %%rd1, %llu;\n"
            "    add.s64 %%rd9, %%rd2, %llu;\n"
            "    mov.u32 %%r1, %llu;\n",
            j, pt->count, st->merge ? "requests to one line" : "lines",
            (unsigned long long)pt->line_off, (unsigned long long)pt->line_off,
            (unsigned long long)pt->out_off, (unsigned long long)pt->lines);
    gd_ptx_printf(p,
        "\n"
        "    mov.u32 %%r8, 0;\n"
        "%s:\n"
        "    .pragma \"nounroll\";\n"
        "    // this round's first line\n"
        "    mul.lo.u32 %%r9, %%r8, %%r1;\n"
        "    mul.wide.u32 %%rd4, %%r9, %llu;\n"
        "    add.s64 %%rd4, %s, %%rd4;\n",
        label, (unsigned long long)st->stride, buf);
    /* the follower: this round's line after all rounds' lines */
    gd_ptx_printf(p,
            "    mul.lo.u32 %%r9, %%r2, %%r1;\n"
            "    add.u32 %%r9, %%r9, %%r8;\n"
            "    mul.wide.u32 %%rd6, %%r9, %llu;\n"
            "    add.s64 %%rd6, %s, %%rd6;\n",
            (unsigned long long)st->stride, buf);
    /* addresses and predicates before the timed region */
    for (uint32_t i = 0; i < k; i++) {
        if (st->merge) {
            gd_ptx_printf(p, "    add.s64 %%a%u, %%rd4, %u;\n", i, i);
            gd_ptx_printf(p, "    setp.eq.u32 %%q%u, %%r3, %%r3;\n", i);
        } else {
            gd_ptx_printf(p,
                "    add.u32 %%r10, %%r3, %u;\n"
                "    setp.lt.u32 %%q%u, %%r10, %%r1;\n"
                "    mul.wide.u32 %%rd5, %%r10, %llu;\n"
                "    add.s64 %%a%u, %%rd4, %%rd5;\n",
                32 * i, i, (unsigned long long)st->stride, i);
        }
        gd_ptx_printf(p, "    mov.u32 %%v%u, 0;\n", i);
    }
    /* pass 0 times the misses; pass 1 replays the same block over the lines
     * now in the L1 -- the follower's hit time, which its miss time exceeds by
     * exactly how long a miss holds its MSHR (see mshr_decode) */
    for (int pass = 0; pass < 2; pass++) {
        unsigned sink = pass ? 384 : 0;
        gd_ptx_printf(p, "    // pass %d: %s\n    mov.u64 %%rd10, %%clock64;\n", pass,
                      pass ? "the same again, every line in the L1 now" : "the misses");
        for (uint32_t i = 0; i < k; i++)
            gd_ptx_printf(p, "    @%%q%u ld.global.ca.%s %%v%u, [%%a%u];\n", i,
                          st->merge ? "u8" : "u32", i, i);
        /* the follower's address waits for a clock read issued after the
         * lines: its top bit, zero at run time (2^63 cycles) but unknown to
         * ptxas, added to the address.  Without it ptxas issues the follower
         * ahead of every line load, on every target (the follower then always
         * finds a free MSHR and nothing it measures can be seen); clock reads
         * keep their place among the loads, and a dependence on the address
         * (not on a loaded value) does not wait for any load to complete.
         * tests/test_sass_order.c checks the order in the SASS. */
        gd_ptx_printf(p,
                "    mov.u64 %%rd15, %%clock64;         // issued after the lines\n"
                "    shr.u64 %%rd15, %%rd15, 63;        // 0, which ptxas cannot know\n"
                "    add.s64 %%rd16, %%rd6, %%rd15;\n"
                "    ld.global.ca.u32 %%r15, [%%rd16];  // the follower\n"
                "    st.shared.u32 [%%r12+%u], %%r15;  // its own word: a store the next one\n"
                "                                        // overwrote would be dead, and its load too\n"
                "    mov.u64 %%rd14, %%clock64;\n"
                "    mov.u32 %%r11, 0;\n",
                sink + 128);
        for (uint32_t i = 0; i < k; i++)
            gd_ptx_printf(p, "    add.u32 %%r11, %%r11, %%v%u;\n", i);
        gd_ptx_printf(p,
            "    st.shared.u32 [%%r12+%u], %%r11;       // consumes every load\n"
            "    mov.u64 %%rd11, %%clock64;\n"
            "    mul.wide.u32 %%rd13, %%r8, %d;\n"
            "    add.s64 %%rd13, %s, %%rd13;\n",
            sink, MSHR_OUT_BYTES, out);
        if (!pass)
            gd_ptx_printf(p,
                "    sub.s64 %%rd12, %%rd11, %%rd10;\n"
                "    cvt.u32.u64 %%r14, %%rd12;\n"
                "    @%%p3 st.global.u32 [%%rd13], %%r14;\n"
                "    @%%p3 st.global.u32 [%%rd13+4], %%r11;\n");
        gd_ptx_printf(p,
                "    sub.s64 %%rd12, %%rd14, %%rd10;\n"
                "    cvt.u32.u64 %%r14, %%rd12;\n"
                "    @%%p3 st.global.u32 [%%rd13+%d], %%r14;\n",
                pass ? 12 : 8);
    }
    gd_ptx_printf(p,
        "    add.u32 %%r8, %%r8, 1;\n"
        "    setp.lt.u32 %%p2, %%r8, %%r2;\n"
        "    @%%p2 bra %s;\n",
        label);
}

static char *mshr_ptx(const gd_device_info *dev, const mshr_state *st)
{
    uint32_t k = 0;
    for (size_t j = 0; j < st->n; j++)
        if (mshr_loads(st, &st->pt[j]) > k)
            k = mshr_loads(st, &st->pt[j]);
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
        "    ld.param.u64 %%rd2, [gd_mshr_out];\n");
    if (st->n == 1)
        gd_ptx_printf(&p, "    ld.param.u32 %%r1, [gd_mshr_lines];\n");
    gd_ptx_printf(&p,
        "    ld.param.u32 %%r2, [gd_mshr_rounds];\n"
        "    ld.param.u64 %%rd7, [gd_mshr_flush];\n"
        "    mov.u32 %%r3, %%tid.x;\n"
        "    setp.eq.u32 %%p3, %%r3, 0;\n"
        "    mov.u32 %%r12, gd_sink;\n"
        "    shl.b32 %%r13, %%r3, 2;\n"
        "    add.s32 %%r12, %%r12, %%r13;      // this lane's sink word\n");
    gd_l2_flush_emit(&p, "%rd7", st->flush_bytes, "[%r12+256]");
    for (size_t j = 0; j < st->n; j++)
        mshr_emit_point(&p, st, j);
    gd_ptx_printf(&p,
        "    ret;\n"
        "}\n");
    return gd_ptx_finish(&p);
}

static int mshr_plan_points(const gd_probe_opts *opts, const gd_device_info *dev,
                            const uint64_t *points, size_t n, gd_probe_plan *out, gd_err *err)
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
    if (n < 1 || n > MSHR_MAX_BATCH)
        return gd_fail(err, "mshr: %zu points in one launch (1..%d)", n, MSHR_MAX_BATCH);
    uint64_t max = merge ? MSHR_MAX_MERGE : MSHR_MAX_LINES;
    for (size_t j = 0; j < n; j++)
        if (points[j] < 1 || points[j] > max)
            return gd_fail(err, "mshr: %llu %s is outside 1..%llu", (unsigned long long)points[j],
                           merge ? "requests to one line" : "lines", (unsigned long long)max);
    mshr_state *st = calloc(1, sizeof *st + n * sizeof st->pt[0]);
    if (!st)
        return gd_fail(err, "mshr: out of memory");
    st->merge = merge;
    st->rounds = o->samples;
    st->stride = o->stride_bytes;
    st->flush_bytes = gd_l2_flush_bytes(dev);
    st->n = n;
    uint32_t intended = 0;
    for (size_t j = 0; j < n; j++) {
        mshr_point *pt = &st->pt[j];
        pt->count = (uint32_t)points[j];
        pt->lines = merge ? 1 : points[j];
        pt->line_off = st->line_bytes;
        pt->out_off = MSHR_OUT_BYTES * (uint64_t)st->rounds * j;
        st->line_bytes += (pt->lines + 1) * st->rounds * st->stride;
        if (j + 1 < n)
            st->line_bytes += MSHR_POINT_GAP;
        /* the loads the probe intends, all of them in the machine code */
        intended += 2 * (mshr_loads(st, pt) + 1);
    }
    out->state = st;
    out->point = points[0];
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
    out->buffers[0] = (gd_probe_buffer){.name = "lines", .bytes = st->line_bytes, .host_fill = 1};
    out->buffers[1] = (gd_probe_buffer){
        .name = "out", .bytes = MSHR_OUT_BYTES * (size_t)st->rounds * n, .copy_out = 1};
    out->buffer_count = 2;
    out->params[0] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 0};
    out->params[1] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 1};
    out->params[2] = (gd_probe_param){.kind = GD_PARAM_U32, .value = n == 1 ? st->pt[0].lines : 0};
    out->params[3] = (gd_probe_param){.kind = GD_PARAM_U32, .value = st->rounds};
    out->param_count = 4;
    gd_l2_flush_attach(out, st->flush_bytes);
    out->intended_instructions = intended;
    return 0;
}

static int mshr_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                     gd_probe_plan *out, gd_err *err)
{
    return mshr_plan_points(opts, dev, &point, 1, out, err);
}

static unsigned mshr_batch_max(const gd_probe_opts *opts)
{
    (void)opts;
    return MSHR_MAX_BATCH;
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

static int mshr_decode_batch(const gd_probe_plan *plan, const gd_devptr *addresses,
                             void *const *host, gd_probe_result *results, size_t n, gd_err *err)
{
    (void)addresses;
    const mshr_state *st = plan->state;
    if (n != st->n)
        return gd_fail(err, "mshr: %zu results asked of a launch of %zu points", n, st->n);
    for (size_t j = 0; j < n; j++) {
        const mshr_point *pt = &st->pt[j];
        gd_probe_result *out = &results[j];
        const uint8_t *buf = (const uint8_t *)host[1] + pt->out_off;
        gd_series *cycles = gd_probe_result_add(out, "cycles", st->rounds);
        gd_series *excess = gd_probe_result_add(out, "excess_cycles", st->rounds);
        gd_series *follower = gd_probe_result_add(out, "follower_cycles", st->rounds);
        gd_series *hit = gd_probe_result_add(out, "follower_hit_cycles", st->rounds);
        gd_series *window = gd_probe_result_add(out, "window_cycles", st->rounds);
        if (!cycles || !excess || !follower || !hit || !window)
            return gd_fail(err, "mshr: out of memory");
        /* lane 0's sum: its loads of 0x01010101 words, or of 0x01 bytes */
        uint32_t lane0_loads = mshr_loads(st, pt);
        uint32_t expect = st->merge ? lane0_loads : lane0_loads * 0x01010101u;
        for (uint32_t r = 0; r < st->rounds; r++) {
            uint32_t t, sum, f, h;
            const uint8_t *o = buf + MSHR_OUT_BYTES * r;
            memcpy(&t, o, 4);
            memcpy(&sum, o + 4, 4);
            memcpy(&f, o + 8, 4);
            memcpy(&h, o + 12, 4);
            if (sum != expect)
                return gd_fail(err, "mshr: %s%llu, round %u read a sum of %u, expected %u: the "
                                    "loads did not all happen",
                               st->merge ? "K=" : "n=", (unsigned long long)pt->count, r, sum,
                               expect);
            cycles->samples[r] = t;
            excess->samples[r] = (double)t - (double)pt->count;
            follower->samples[r] = f;
            hit->samples[r] = h;
            window->samples[r] = (double)f - (double)h;
        }
    }
    return 0;
}

static int mshr_decode(const gd_probe_plan *plan, const gd_devptr *addresses, void *const *host,
                       gd_probe_result *out, gd_err *err)
{
    return mshr_decode_batch(plan, addresses, host, out, 1, err);
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
    .batch_max = mshr_batch_max,
    .plan_batch = mshr_plan_points,
    .decode_batch = mshr_decode_batch,
};
