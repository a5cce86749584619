/* smem_bank.c -- shared-memory banks: the latency of one warp's ld.shared when
 * consecutive lanes are x bytes apart (issue 5).
 *
 * Shared memory is B banks of W bytes; a warp access whose lanes touch n
 * distinct words of one bank is split into n conflict-free passes, and lanes
 * reading the same word are served by one read (broadcast).  Lane i reads the
 * word at  base + (i * x) mod GD_SMEM_BANK_ARRAY_BYTES,  x the sweep value: x = 4 on
 * 4-byte banks is conflict-free, x = 8 a 2-way conflict, ..., x = B*W every
 * lane in bank 0; strides that are odd multiples of 4 tell the bank width from
 * the bank count (x = 12 is conflict-free on 32 x 4-byte banks, 2-way on 16 x
 * 8-byte ones).  x = 0 is every lane on one word: the broadcast case.  The
 * runner's sweeps start at 1 (gd_sweep_parse), so every point also times that
 * same-word access in the same launch: series "same_word_cycles".
 *
 * The kernel fills the array first -- the word at each offset holds that
 * offset -- so the next address is the value the last load returned
 * (a = base + v): a load whose address does not depend on data could be
 * hoisted out of the loop by ptxas, a data-dependent one cannot.  The timed
 * sequence is the p-chase's: clock, ld.shared, a shared store of the value to
 * this lane's own sink word (it consumes the load, so the second clock read
 * waits for the data), clock; the same sequence without the load is timed 16
 * times and its median subtracted.  Lane 0 writes each delta to global memory
 * after the closing clock read, outside the timed region and off the shared
 * pipe being measured.  The first SMEM_WARM deltas of each loop (instruction
 * fetch) are dropped.
 *
 * Variants: "u32" (4-byte loads, x a multiple of 4) and "u64" (ld.shared.u64,
 * x a multiple of 8).  An aligned 8-byte access covers a pair of 4-byte banks,
 * so 8-byte loads see the bank row (B x W) but not the width: 8 bytes apart
 * they take two passes on 32 x 4-byte banks as on 16 x 8-byte ones.  x runs up
 * to GD_SMEM_BANK_ARRAY_BYTES; x = 0 plans too (`emit --point 0`, or a sweep that has
 * it).  --samples sets the timed repetitions (default 32).
 *
 * On the simulator a load takes the [SMEM] latency plus one cycle per replayed
 * pass (sim/smem.c), so the curve is latency + (ways - 1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/probe.h"
#include "kernels/ptx_emit.h"
#include "kernels/timer.h"

#define SMEM_SINK_BYTES 256u     /* one sink word per lane, up to 8 bytes */
#define SMEM_WARM 2              /* first deltas of each loop: instruction fetch */
#define SMEM_CALIB 16
#define DEFAULT_SAMPLES 32
#define MAX_SAMPLES 256
/* ptxas: 88-120 instructions (padding included) from sm_75 to sm_90 */
#define SMEM_MIN_SASS 48
#define SMEM_MAX_SASS 192

#define OUT_CHECK 0                          /* per lane: last strided and same-word values */
#define OUT_CALIB 256
#define OUT_DELTA (OUT_CALIB + 4 * SMEM_CALIB)

typedef struct bank_state {
    uint32_t stride, width, reps; /* reps: recorded deltas per loop, warm-up included */
} bank_state;

/* The loop of one access pattern: clock, load, consume, clock; lane 0 records. */
static void emit_timed_loop(gd_ptx *p, const char *label, const char *addr, unsigned width,
                            unsigned out_offset, unsigned reps)
{
    const char *t = width == 8 ? "u64" : "u32";
    const char *v = width == 8 ? "%rd9" : "%r12";
    gd_ptx_printf(p,
        "    mov.u32 %%r13, 0;\n"
        "%s:\n"
        "    .pragma \"nounroll\";\n"
        "    mov.u64 %%rd4, %%clock64;\n"
        "    ld.shared.%s %s, [%s];\n"
        "    st.shared.%s [%%r10], %s;\n"
        "    mov.u64 %%rd5, %%clock64;\n",
        label, t, v, addr, t, v);
    if (width == 8)
        gd_ptx_printf(p, "    cvt.u32.u64 %%r12, %%rd9;\n");
    gd_ptx_printf(p,
        "    add.s32 %s, %%r5, %%r12;           // the word holds its own offset\n"
        "    sub.s64 %%rd6, %%rd5, %%rd4;\n"
        "    cvt.u32.u64 %%r14, %%rd6;\n"
        "    mul.wide.u32 %%rd7, %%r13, 4;\n"
        "    add.s64 %%rd8, %%rd1, %%rd7;\n"
        "    @%%p2 st.global.u32 [%%rd8+%u], %%r14;\n"
        "    add.u32 %%r13, %%r13, 1;\n"
        "    setp.lt.u32 %%p1, %%r13, %u;\n"
        "    @%%p1 bra %s;\n",
        addr, out_offset, reps, label);
}

static char *bank_ptx(const gd_device_info *dev, const bank_state *st)
{
    unsigned w = st->width, log2w = w == 8 ? 3 : 2;
    const char *t = w == 8 ? "u64" : "u32";
    gd_ptx p;
    gd_ptx_init(&p);
    gd_ptx_header(&p, dev->cc_major, dev->cc_minor, 63);
    gd_ptx_printf(&p,
        ".visible .entry gd_smem_bank(\n"
        "    .param .u64 gd_bank_out,\n"
        "    .param .u32 gd_bank_stride\n"
        ")\n"
        ".maxntid 32, 1, 1\n"
        "{\n"
        "    .reg .pred %%p<3>;\n"
        "    .reg .b32 %%r<16>;\n"
        "    .reg .b64 %%rd<12>;\n"
        "    .shared .align 8 .b8 gd_bank_words[%u];\n"
        "    .shared .align 8 .b8 gd_bank_sink[%u];\n"
        "\n"
        "    ld.param.u64 %%rd1, [gd_bank_out];\n"
        "    ld.param.u32 %%r1, [gd_bank_stride];\n"
        "    mov.u32 %%r2, %%tid.x;\n"
        "    mov.u32 %%r5, gd_bank_words;\n"
        "    // fill: the word at each offset holds that offset\n"
        "    shl.b32 %%r3, %%r2, %u;\n"
        "$L_fill:\n"
        "    add.s32 %%r4, %%r5, %%r3;\n",
        GD_SMEM_BANK_ARRAY_BYTES, SMEM_SINK_BYTES, log2w);
    if (w == 8)
        gd_ptx_printf(&p, "    cvt.u64.u32 %%rd2, %%r3;\n    st.shared.u64 [%%r4], %%rd2;\n");
    else
        gd_ptx_printf(&p, "    st.shared.u32 [%%r4], %%r3;\n");
    gd_ptx_printf(&p,
        "    add.u32 %%r3, %%r3, %u;\n"
        "    setp.lt.u32 %%p1, %%r3, %u;\n"
        "    @%%p1 bra $L_fill;\n"
        "    bar.sync 0;\n"
        "\n"
        "    mul.lo.u32 %%r6, %%r2, %%r1;\n"
        "    and.b32 %%r6, %%r6, %u;            // (lane * stride) mod the array\n"
        "    add.s32 %%r7, %%r5, %%r6;          // this lane's word\n"
        "    mov.u32 %%r8, %%r5;                // word 0: every lane the same\n"
        "    shl.b32 %%r9, %%r2, %u;\n"
        "    mov.u32 %%r10, gd_bank_sink;\n"
        "    add.s32 %%r10, %%r10, %%r9;        // this lane's sink word\n"
        "    setp.eq.u32 %%p2, %%r2, 0;\n"
        "    shl.b32 %%r11, %%r2, 2;\n"
        "    mul.wide.u32 %%rd3, %%r11, 1;\n"
        "    add.s64 %%rd3, %%rd1, %%rd3;       // this lane's check word\n"
        "    mov.u32 %%r12, 0;\n",
        32 * w, GD_SMEM_BANK_ARRAY_BYTES, GD_SMEM_BANK_ARRAY_BYTES - 1, log2w);
    if (w == 8)
        gd_ptx_printf(&p, "    mov.u64 %%rd9, 0;\n");
    const char *v = w == 8 ? "%rd9" : "%r12";
    gd_ptx_printf(&p,
        "\n"
        "    // the timed sequence without its load\n"
        "    mov.u32 %%r13, 0;\n"
        "$L_calib:\n"
        "    .pragma \"nounroll\";\n"
        "    mov.u64 %%rd4, %%clock64;\n"
        "    st.shared.%s [%%r10], %s;\n"
        "    mov.u64 %%rd5, %%clock64;\n"
        "    sub.s64 %%rd6, %%rd5, %%rd4;\n"
        "    cvt.u32.u64 %%r14, %%rd6;\n"
        "    mul.wide.u32 %%rd7, %%r13, 4;\n"
        "    add.s64 %%rd8, %%rd1, %%rd7;\n"
        "    @%%p2 st.global.u32 [%%rd8+%u], %%r14;\n"
        "    add.u32 %%r13, %%r13, 1;\n"
        "    setp.lt.u32 %%p1, %%r13, %u;\n"
        "    @%%p1 bra $L_calib;\n"
        "\n"
        "    // timed: lane i at (i * stride) mod the array\n",
        t, v, OUT_CALIB, SMEM_CALIB);
    unsigned out_strided = OUT_DELTA, out_same = OUT_DELTA + 4 * st->reps;
    emit_timed_loop(&p, "$L_strided", "%r7", w, out_strided, st->reps);
    gd_ptx_printf(&p,
        "    st.global.u32 [%%rd3+%u], %%r12;   // what each lane read last\n"
        "\n"
        "    // timed: every lane on word 0 (broadcast)\n",
        OUT_CHECK);
    emit_timed_loop(&p, "$L_same", "%r8", w, out_same, st->reps);
    gd_ptx_printf(&p,
        "    st.global.u32 [%%rd3+%u], %%r12;\n"
        "    ret;\n"
        "}\n",
        OUT_CHECK + 128);
    return gd_ptx_finish(&p);
}

static int bank_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                     gd_probe_plan *out, gd_err *err)
{
    memset(out, 0, sizeof *out);
    out->opts = *opts;
    gd_probe_opts *o = &out->opts;
    unsigned width;
    if (!o->variant[0] || !strcmp(o->variant, "u32"))
        width = 4;
    else if (!strcmp(o->variant, "u64"))
        width = 8;
    else
        return gd_fail(err, "smem_bank: unknown variant '%s' (u32, u64)", o->variant);
    snprintf(o->variant, sizeof o->variant, "%s", width == 8 ? "u64" : "u32");
    if (point % width || point > GD_SMEM_BANK_ARRAY_BYTES)
        return gd_fail(err, "smem_bank: the lane stride must be a multiple of %u bytes up to %u, "
                            "got %llu",
                       width, GD_SMEM_BANK_ARRAY_BYTES, (unsigned long long)point);
    if (!o->samples)
        o->samples = DEFAULT_SAMPLES;
    if (o->samples > MAX_SAMPLES)
        return gd_fail(err, "smem_bank: at most %d samples, got %u", MAX_SAMPLES, o->samples);
    if (dev->shared_per_block_bytes &&
        dev->shared_per_block_bytes < GD_SMEM_BANK_ARRAY_BYTES + SMEM_SINK_BYTES)
        return gd_fail(err, "smem_bank: needs %u bytes of shared memory, the device gives a "
                            "block %u",
                       GD_SMEM_BANK_ARRAY_BYTES + SMEM_SINK_BYTES, dev->shared_per_block_bytes);
    o->stride_bytes = point;
    bank_state *st = calloc(1, sizeof *st);
    if (!st)
        return gd_fail(err, "smem_bank: out of memory");
    st->stride = (uint32_t)point;
    st->width = width;
    st->reps = o->samples + SMEM_WARM;
    out->state = st;
    out->point = point;
    out->ptx = bank_ptx(dev, st);
    if (!out->ptx) {
        free(st);
        out->state = NULL;
        return gd_fail(err, "smem_bank: out of memory");
    }
    snprintf(out->entry, sizeof out->entry, "gd_smem_bank");
    out->grid[0] = out->grid[1] = out->grid[2] = 1;
    out->block[0] = 32;
    out->block[1] = out->block[2] = 1;
    out->buffers[0] = (gd_probe_buffer){.name = "out",
                                        .bytes = OUT_DELTA + 8 * (size_t)st->reps,
                                        .copy_out = 1};
    out->buffer_count = 1;
    out->params[0] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 0};
    out->params[1] = (gd_probe_param){.kind = GD_PARAM_U32, .value = st->stride};
    out->param_count = 2;
    out->code_min_instructions = SMEM_MIN_SASS;
    out->code_max_instructions = SMEM_MAX_SASS;
    return 0;
}

static uint32_t word_at(const uint8_t *buf, size_t offset)
{
    uint32_t v;
    memcpy(&v, buf + offset, 4);
    return v;
}

static int bank_decode(const gd_probe_plan *plan, const gd_devptr *addresses, void *const *host,
                       gd_probe_result *out, gd_err *err)
{
    (void)addresses;
    const bank_state *st = plan->state;
    const uint8_t *buf = host[0];
    for (uint32_t lane = 0; lane < 32; lane++) {
        uint32_t want = (lane * st->stride) & (GD_SMEM_BANK_ARRAY_BYTES - 1);
        uint32_t got = word_at(buf, OUT_CHECK + 4 * lane);
        uint32_t same = word_at(buf, OUT_CHECK + 128 + 4 * lane);
        if (got != want || same != 0)
            return gd_fail(err, "smem_bank: lane %u read %u and %u, expected %u and 0: the "
                                "device did not load the words asked for",
                           lane, got, same, want);
    }
    double overhead = gd_timer_median_u32(buf + OUT_CALIB, SMEM_CALIB);
    size_t n = st->reps - SMEM_WARM;
    gd_series *cycles = gd_probe_result_add(out, "cycles", n);
    gd_series *same = gd_probe_result_add(out, "same_word_cycles", n);
    gd_series *ov = gd_probe_result_add(out, "timer_overhead", 1);
    if (!cycles || !same || !ov)
        return gd_fail(err, "smem_bank: out of memory");
    for (size_t i = 0; i < n; i++) {
        cycles->samples[i] = word_at(buf, OUT_DELTA + 4 * (SMEM_WARM + i)) - overhead;
        same->samples[i] = word_at(buf, OUT_DELTA + 4 * ((size_t)st->reps + SMEM_WARM + i)) -
                           overhead;
    }
    ov->samples[0] = overhead;
    return 0;
}

static const char *const bank_variants[] = {"u32", "u64", NULL};

const gd_probe gd_probe_smem_bank = {
    .name = "smem_bank",
    .summary = "shared-memory load latency vs the stride between lanes (banks, width, "
               "conflict cost, broadcast)",
    .sweep_name = "lane_stride_bytes",
    .value_unit = "cycles",
    .default_stride_bytes = 1,
    .sweep_granularity = 1,   /* never rounded to --stride */
    .variants = bank_variants,
    .example_point = 8,
    .plan = bank_plan,
    .decode = bank_decode,
    .release = gd_probe_free_state,
};
