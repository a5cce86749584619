/* coalesce.c -- coalescing: how many L1 requests one warp load becomes, read
 * off the time the load/store unit takes to accept them (issue 5).
 *
 * The coalescer turns a warp's global access into one request per L1 line its
 * lanes touch, and the L1's tag stage takes one request per cycle, so a warp
 * load that touches R lines occupies the load/store unit for R cycles (plus a
 * fixed cost per instruction).  One warp times, from L1 hits only,
 *
 *     clock; ld.global.ca x K (independent); st.shared of each value; clock
 *
 * once with K = 1 and once with K = CO_LOADS, in the same launch: the
 * difference divided by K - 1 is the cycles the unit spends per instruction,
 * free of the load latency and the timer.  Each value goes to its own shared
 * sink word (a sum would add a chain of dependent adds after the last load).
 * Lane i of load j reads  base + OFF + j*R + i*stride  where R is a kernel
 * argument the host sets to 0: ptxas cannot know that, so it keeps all K
 * loads (it merges loads it can prove equal), while at run time the K loads
 * touch the same lines -- at most 32 of them, which every L1 holds (K regions
 * of 32 distinct lines would be 512 lines, the whole of a T4's L1, and at
 * large strides all in one set).
 *
 * Three access patterns are timed per sample, S being where the swept one
 * starts:
 *   uniform    every lane on the swept pattern's first word: one request;
 *   two lines  lanes 0-15 on that word, lanes 16-31 on lane 31's swept word
 *              when that is 4 KiB or more further (another line for any line
 *              up to 4 KiB, and one the swept pattern brings in anyway), else on
 *              a word 2720 bytes before S (another line for any line up to
 *              8 KiB; the odd distance keeps it out of the set of the swept
 *              pattern's first line in the usual geometries): two requests;
 *   swept      lane i at  S + i * stride  (lanes below the active count only).
 * The difference between the first two is the cost of one request, so
 *     requests = 1 + (cpi(swept) - cpi(uniform)) / (cpi(two) - cpi(uniform))
 * counts requests per instruction on any device whose cost is linear in them
 * (exactly, on the simulator: one tag probe per cycle).  Series: "requests"
 * (primary), "cycles" (cycles per swept instruction), "uniform_cycles",
 * "cycles_per_request" (one value per point).
 *
 * So the L1 must hold the swept pattern's lines and at most one more: 33 lines
 * for the 32 lanes of a 128-byte stride, which every GPU's L1 does (tiny.arch's
 * 16-line one does not).  The requests are counted from the difference of two
 * cycle counts, so anything else that changes the count -- a miss -- shows: a
 * decode that finds the second line free fails and says so.  And the K
 * consuming stores follow the K loads, so the last load's L1 hit latency must
 * cover them (about 30 cycles on every GPU, K = 16): on an L1 of a few cycles
 * (cn110457238.arch's 1-cycle one) they show, and the counts read a few percent
 * off (33.2 for 32); the inference's affine fit absorbs that.
 *
 * The timing needs L1 hits: the first CO_WARM samples (every pattern, every
 * line) warm the L1 and are dropped.  The next address depends on data: every
 * word holds its own offset, and each address adds the value the last uniform
 * load returned minus S (0, which ptxas cannot know), so no load is
 * loop-invariant.  The kernel aligns its base to 4 KiB, so lines are counted from a line
 * boundary whatever the allocation's alignment.  Lane 0 records the deltas in
 * shared memory (a global store would pass through the very load/store unit
 * being timed) and they are copied out at the end.
 *
 * Variants: "stride" (sweep value = the stride between lanes in bytes, a
 * multiple of 4; 32 lanes) and "lanes" (sweep value = active lanes 1..32;
 * stride from --stride, default 128).  --samples sets the samples (default 32).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/probe.h"
#include "kernels/ptx_emit.h"
#include "kernels/timer.h"

#define CO_LOADS 16              /* K: loads in the long block */
#define CO_WARM 2                /* samples that warm the L1, dropped */
#define CO_PATTERNS 3            /* uniform, two lines, swept */
#define CO_ALIGN 4096u           /* the kernel aligns its base to this */
#define CO_SWEPT_BASE 8192u      /* S: where the swept pattern starts */
#define CO_SECOND_LINE 2720u     /* lanes 16-31 of the two-line pattern: S minus this, */
#define CO_SECOND_FAR 4096u      /* ... or lane 31's swept word when this far from lane 0 */
#define CO_MAX_STRIDE (64u * 1024)
#define DEFAULT_SAMPLES 32
#define MAX_SAMPLES 256
/* ptxas: 320-360 instructions (padding included) from sm_75 to sm_90 */
#define CO_MIN_SASS 240
#define CO_MAX_SASS 480

#define OUT_CHECK 0              /* per lane: first and last of K, the single load */
#define OUT_REC 384              /* per sample and pattern: delta K = 1, delta K */

typedef struct co_state {
    uint32_t stride, lanes, reps; /* reps: samples, warm-up included */
} co_state;

/* One pattern: the address chain, K = 1 timed, K timed, the record.  The single
 * load and the K loads each have an address of their own (a_0 and a_1..a_K,
 * R apart) and a sink row of their own in each pattern: ptxas merges a load
 * with an earlier one from the same address and drops a shared store that a
 * later one overwrites, and either would take a load out of its timed block. */
static void emit_pattern(gd_ptx *p, unsigned pattern, const char *offset, int predicated)
{
    const char *g = predicated ? "@%p1 " : "";
    unsigned row = pattern * (CO_LOADS + 1) * 128;
    gd_ptx_printf(p,
        "    // pattern %u\n"
        "    add.s64 %%rd20, %%rd3, %s;\n"
        "    add.s64 %%rd20, %%rd20, %%rd8;      // + the last uniform value - S (0)\n",
        pattern, offset);
    for (int j = 1; j <= CO_LOADS; j++)
        gd_ptx_printf(p, "    add.s64 %%rd%d, %%rd%d, %%rd4;\n", 20 + j, 19 + j);
    gd_ptx_printf(p,
        "    mov.u64 %%rd10, %%clock64;\n"
        "    %sld.global.ca.u32 %%r19, [%%rd20];\n"
        "    st.shared.u32 [%%r5+%u], %%r19;\n"
        "    mov.u64 %%rd11, %%clock64;\n"
        "    mov.u64 %%rd12, %%clock64;\n",
        g, row);
    for (int j = 0; j < CO_LOADS; j++)
        gd_ptx_printf(p, "    %sld.global.ca.u32 %%r%d, [%%rd%d];\n", g, 20 + j, 21 + j);
    for (int j = 0; j < CO_LOADS; j++)
        gd_ptx_printf(p, "    st.shared.u32 [%%r5+%u], %%r%d;\n", row + 128 * (j + 1), 20 + j);
    gd_ptx_printf(p,
        "    mov.u64 %%rd13, %%clock64;\n"
        "    sub.s64 %%rd14, %%rd11, %%rd10;\n"
        "    cvt.u32.u64 %%r8, %%rd14;\n"
        "    sub.s64 %%rd15, %%rd13, %%rd12;\n"
        "    cvt.u32.u64 %%r9, %%rd15;\n"
        "    @%%p2 st.shared.u32 [%%r6+%u], %%r8;\n"
        "    @%%p2 st.shared.u32 [%%r6+%u], %%r9;\n",
        8 * pattern, 8 * pattern + 4);
}

static char *co_ptx(const gd_device_info *dev, const co_state *st)
{
    unsigned rec_bytes = 8 * CO_PATTERNS * st->reps;
    gd_ptx p;
    gd_ptx_init(&p);
    gd_ptx_header(&p, dev->cc_major, dev->cc_minor, 63);
    gd_ptx_printf(&p,
        ".visible .entry gd_coalesce(\n"
        "    .param .u64 gd_co_out,\n"
        "    .param .u64 gd_co_data,\n"
        "    .param .u32 gd_co_stride,\n"
        "    .param .u32 gd_co_lanes,\n"
        "    .param .u32 gd_co_region,\n"
        "    .param .u32 gd_co_second\n"
        ")\n"
        ".maxntid 32, 1, 1\n"
        "{\n"
        "    .reg .pred %%p<4>;\n"
        "    .reg .b32 %%r<%d>;\n"
        "    .reg .b64 %%rd<%d>;\n"
        "    .shared .align 4 .b8 gd_co_sink[%d];\n"
        "    .shared .align 4 .b8 gd_co_rec[%u];\n"
        "\n"
        "    ld.param.u64 %%rd1, [gd_co_out];\n"
        "    ld.param.u64 %%rd2, [gd_co_data];\n"
        "    ld.param.u32 %%r1, [gd_co_stride];\n"
        "    ld.param.u32 %%r2, [gd_co_lanes];\n"
        "    ld.param.u32 %%r3, [gd_co_region];\n"
        "    ld.param.u32 %%r16, [gd_co_second];\n"
        "    cvt.u64.u32 %%rd4, %%r3;            // R: 0 at run time\n"
        "    add.s64 %%rd3, %%rd2, %u;\n"
        "    and.b64 %%rd3, %%rd3, %lld;         // the base, aligned\n"
        "    mov.u32 %%r4, %%tid.x;\n"
        "    setp.lt.u32 %%p1, %%r4, %%r2;       // an active lane of the swept pattern\n"
        "    setp.eq.u32 %%p2, %%r4, 0;\n"
        "    shr.u32 %%r10, %%r4, 4;\n"
        "    setp.lt.u32 %%p3, %%r4, 16;\n"
        "    selp.b32 %%r17, %u, %%r16, %%p3;\n"
        "    cvt.u64.u32 %%rd6, %%r17;           // two lines: S, or the second for lanes 16-31\n"
        "    mul.wide.u32 %%rd7, %%r4, %%r1;\n"
        "    add.s64 %%rd7, %%rd7, %u;           // swept: S + lane * stride\n"
        "    mov.u64 %%rd5, %u;                  // uniform: S\n"
        "    mov.u64 %%rd8, 0;\n"
        "    shl.b32 %%r11, %%r4, 2;\n"
        "    mov.u32 %%r5, gd_co_sink;\n"
        "    add.s32 %%r5, %%r5, %%r11;          // this lane's sink words, a row per load\n"
        "    mov.u32 %%r12, gd_co_rec;\n"
        "    mov.u32 %%r7, 0;\n"
        "$L_sample:\n"
        "    .pragma \"nounroll\";\n"
        "    mad.lo.u32 %%r6, %%r7, %u, %%r12;   // this sample's record\n",
        20 + CO_LOADS, 21 + CO_LOADS, CO_PATTERNS * (CO_LOADS + 1) * 128, rec_bytes, CO_ALIGN - 1,
        -(long long)CO_ALIGN, CO_SWEPT_BASE, CO_SWEPT_BASE, CO_SWEPT_BASE,
        8 * CO_PATTERNS);
    emit_pattern(&p, 0, "%rd5", 0);
    gd_ptx_printf(&p,
        "    cvt.u64.u32 %%rd8, %%r20;\n"
        "    sub.s64 %%rd8, %%rd8, %u;           // 0, unknown to ptxas\n",
        CO_SWEPT_BASE);
    emit_pattern(&p, 1, "%rd6", 0);
    emit_pattern(&p, 2, "%rd7", 1);
    gd_ptx_printf(&p,
        "    add.u32 %%r7, %%r7, 1;\n"
        "    setp.lt.u32 %%p3, %%r7, %u;\n"
        "    @%%p3 bra $L_sample;\n"
        "\n"
        "    // what each lane of the swept pattern read: the first and last of K, the single\n"
        "    mul.wide.u32 %%rd16, %%r11, 1;\n"
        "    add.s64 %%rd16, %%rd1, %%rd16;\n"
        "    st.global.u32 [%%rd16+%u], %%r20;\n"
        "    st.global.u32 [%%rd16+%u], %%r%d;\n"
        "    st.global.u32 [%%rd16+%u], %%r19;\n"
        "    bar.sync 0;\n"
        "    // the record, out\n"
        "    mov.u32 %%r13, %%r11;\n"
        "$L_copy:\n"
        "    add.s32 %%r14, %%r12, %%r13;\n"
        "    ld.shared.u32 %%r15, [%%r14];\n"
        "    cvt.u64.u32 %%rd17, %%r13;\n"
        "    add.s64 %%rd17, %%rd1, %%rd17;\n"
        "    st.global.u32 [%%rd17+%u], %%r15;\n"
        "    add.u32 %%r13, %%r13, 128;\n"
        "    setp.lt.u32 %%p3, %%r13, %u;\n"
        "    @%%p3 bra $L_copy;\n"
        "    ret;\n"
        "}\n",
        st->reps, OUT_CHECK, OUT_CHECK + 128, 20 + CO_LOADS - 1, OUT_CHECK + 256, OUT_REC,
        rec_bytes);
    return gd_ptx_finish(&p);
}

static uint64_t data_bytes(const co_state *st)
{
    uint64_t span = CO_SWEPT_BASE + 31ull * st->stride + 4;
    return span + CO_ALIGN; /* room to align the base */
}

static int co_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                   gd_probe_plan *out, gd_err *err)
{
    memset(out, 0, sizeof *out);
    out->opts = *opts;
    gd_probe_opts *o = &out->opts;
    int lanes_variant;
    if (!o->variant[0] || !strcmp(o->variant, "stride"))
        lanes_variant = 0;
    else if (!strcmp(o->variant, "lanes"))
        lanes_variant = 1;
    else
        return gd_fail(err, "coalesce: unknown variant '%s' (stride, lanes)", o->variant);
    snprintf(o->variant, sizeof o->variant, "%s", lanes_variant ? "lanes" : "stride");
    uint64_t stride = lanes_variant ? (o->stride_bytes ? o->stride_bytes : GD_COALESCE_DEFAULT_LANE_STRIDE)
                                    : point;
    uint64_t lanes = lanes_variant ? point : 32;
    if (lanes < 1 || lanes > 32)
        return gd_fail(err, "coalesce: %llu active lanes is outside 1..32",
                       (unsigned long long)lanes);
    if (stride < 4 || stride % 4 || stride > CO_MAX_STRIDE)
        return gd_fail(err, "coalesce: the lane stride must be a multiple of 4 bytes in 4..%u, "
                            "got %llu",
                       CO_MAX_STRIDE, (unsigned long long)stride);
    if (!o->samples)
        o->samples = DEFAULT_SAMPLES;
    if (o->samples > MAX_SAMPLES)
        return gd_fail(err, "coalesce: at most %d samples, got %u", MAX_SAMPLES, o->samples);
    o->stride_bytes = stride;
    co_state *st = calloc(1, sizeof *st);
    if (!st)
        return gd_fail(err, "coalesce: out of memory");
    st->stride = (uint32_t)stride;
    st->lanes = (uint32_t)lanes;
    st->reps = o->samples + CO_WARM;
    out->state = st;
    out->point = point;
    out->ptx = co_ptx(dev, st);
    if (!out->ptx) {
        free(st);
        out->state = NULL;
        return gd_fail(err, "coalesce: out of memory");
    }
    snprintf(out->entry, sizeof out->entry, "gd_coalesce");
    out->grid[0] = out->grid[1] = out->grid[2] = 1;
    out->block[0] = 32;
    out->block[1] = out->block[2] = 1;
    out->buffers[0] = (gd_probe_buffer){.name = "out",
                                        .bytes = OUT_REC + 8 * CO_PATTERNS * (size_t)st->reps,
                                        .copy_out = 1};
    out->buffers[1] = (gd_probe_buffer){.name = "data", .bytes = data_bytes(st), .host_fill = 1};
    out->buffer_count = 2;
    out->params[0] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 0};
    out->params[1] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 1};
    out->params[2] = (gd_probe_param){.kind = GD_PARAM_U32, .value = st->stride};
    out->params[3] = (gd_probe_param){.kind = GD_PARAM_U32, .value = st->lanes};
    out->params[4] = (gd_probe_param){.kind = GD_PARAM_U32, .value = 0}; /* R */
    uint64_t far = 31ull * st->stride;
    out->params[5] = (gd_probe_param){
        .kind = GD_PARAM_U32,
        .value = far >= CO_SECOND_FAR ? CO_SWEPT_BASE + far : CO_SWEPT_BASE - CO_SECOND_LINE};
    out->param_count = 6;
    out->code_min_instructions = CO_MIN_SASS;
    out->code_max_instructions = CO_MAX_SASS;
    return 0;
}

/* every word holds its offset from the aligned base */
static int co_fill(const gd_probe_plan *plan, unsigned index, const gd_devptr *addresses,
                   void *host, gd_err *err)
{
    if (index != 1)
        return gd_fail(err, "coalesce: no initial contents for buffer %u", index);
    const co_state *st = plan->state;
    uint64_t data = addresses[1];
    uint64_t lead = (CO_ALIGN - data % CO_ALIGN) % CO_ALIGN; /* bytes before the aligned base */
    uint8_t *bytes = host;
    uint64_t n = data_bytes(st);
    for (uint64_t at = 0; at + 4 <= n; at += 4) {
        uint32_t v = at >= lead ? (uint32_t)(at - lead) : 0;
        memcpy(bytes + at, &v, 4);
    }
    return 0;
}

static uint32_t word_at(const uint8_t *buf, size_t offset)
{
    uint32_t v;
    memcpy(&v, buf + offset, 4);
    return v;
}

/* cycles per instruction of one pattern in one sample */
static double cpi_of(const uint8_t *buf, size_t sample, unsigned pattern)
{
    size_t at = OUT_REC + 8 * (CO_PATTERNS * sample + pattern);
    return ((double)word_at(buf, at + 4) - (double)word_at(buf, at)) / (CO_LOADS - 1);
}

static int co_decode(const gd_probe_plan *plan, const gd_devptr *addresses, void *const *host,
                     gd_probe_result *out, gd_err *err)
{
    (void)addresses;
    const co_state *st = plan->state;
    const uint8_t *buf = host[0];
    for (uint32_t lane = 0; lane < st->lanes; lane++) {
        uint32_t want = CO_SWEPT_BASE + lane * st->stride;
        uint32_t first = word_at(buf, OUT_CHECK + 4 * lane);
        uint32_t last = word_at(buf, OUT_CHECK + 128 + 4 * lane);
        uint32_t single = word_at(buf, OUT_CHECK + 256 + 4 * lane);
        if (first != want || last != want || single != want)
            return gd_fail(err, "coalesce: lane %u read %u, %u and %u, expected %u: the device "
                                "did not load the words asked for",
                           lane, first, last, single, want);
    }
    size_t n = st->reps - CO_WARM;
    double *diff = malloc(n * sizeof *diff);
    if (!diff)
        return gd_fail(err, "coalesce: out of memory");
    for (size_t i = 0; i < n; i++)
        diff[i] = cpi_of(buf, CO_WARM + i, 1) - cpi_of(buf, CO_WARM + i, 0);
    double per_request = gd_timer_median(diff, n);
    free(diff);
    /* a device that hides a second line entirely cannot be counted this way */
    if (!(per_request >= 0.1))
        return gd_fail(err, "coalesce: a second L1 line costs %.2f cycles more than one: the "
                            "loads miss the L1 (it cannot hold this pattern's lines), or this "
                            "device hides a second request, which cannot then be counted by time",
                       per_request);
    gd_series *req = gd_probe_result_add(out, "requests", n);
    gd_series *cyc = gd_probe_result_add(out, "cycles", n);
    gd_series *uni = gd_probe_result_add(out, "uniform_cycles", n);
    gd_series *cpr = gd_probe_result_add(out, "cycles_per_request", 1);
    if (!req || !cyc || !uni || !cpr)
        return gd_fail(err, "coalesce: out of memory");
    for (size_t i = 0; i < n; i++) {
        double u = cpi_of(buf, CO_WARM + i, 0), x = cpi_of(buf, CO_WARM + i, 2);
        req->samples[i] = 1 + (x - u) / per_request;
        cyc->samples[i] = x;
        uni->samples[i] = u;
    }
    cpr->samples[0] = per_request;
    return 0;
}

static const char *const co_variants[] = {"stride", "lanes", NULL};

const gd_probe gd_probe_coalesce = {
    .name = "coalesce",
    .summary = "L1 requests per warp load vs the stride between lanes or the active lanes "
               "(coalescing, the L1 line a request covers)",
    .sweep_name = "lane_stride_or_active_lanes", /* bytes ("stride"), lanes ("lanes") */
    .value_unit = "requests",
    .primary_series = "requests",
    .default_stride_bytes = 1,
    .sweep_granularity = 1,   /* never rounded to --stride */
    .variants = co_variants,
    .example_point = 16,      /* 16 bytes apart ("stride"), 16 lanes ("lanes") */
    .plan = co_plan,
    .fill = co_fill,
    .decode = co_decode,
    .release = gd_probe_free_state,
};
