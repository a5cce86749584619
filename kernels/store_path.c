/* store_path.c -- the store path by timing alone (issue 12): does the L1
 * allocate on a store, is it write-through or write-back, does the L2 allocate
 * on a store and at what granularity, and what it does with a store of part
 * of a sector.  The same PTX runs on a card and on the simulator.
 *
 * One point runs every case below, each a timed load (clock, load, a shared
 * store that consumes it, clock; the clock pair's own cost measured and
 * subtracted) on its own fresh lines, SAMPLE_STRIDE_BYTES apart (a skew past
 * 1 KiB spreads them over the L1's sets); the sweep value is the samples per
 * case (1..64; the full suite: 8).  A point is three launches of one kernel,
 * told apart by a `phase` parameter: phase 0 evicts the L2 once
 * (kernels/l2_flush.h: the host's fill went through a card's L2), phase 1
 * acts, and phase 2 observes in a *new kernel* -- after the L1s were
 * invalidated and a write-back L1 had to hand its dirty lines to the L2.
 * In phase 1, CTA 0 stores case 5's lines first and then idles while CTA 1
 * (another SM) reads them, so that nothing of CTA 0's own later work evicts
 * them from its L1 before they are read.

 *   case  name               phase 1 (and 2)                       the timed load
 *   1     ref_l1             ld.ca x; ld.ca x                      an L1 hit
 *   2     ref_l2             ld.cg x; ld.cg x                      an L2 hit
 *   3     ref_dram           ld.cg x (fresh)                       a DRAM access
 *   4     store_load         warp stores x's 128 B; ld.ca x        L1: the L1 allocates on stores
 *   5     store_other_sm     CTA 0 stores; CTA 1 (another SM),     L2: the store went through;
 *                            after GD_STORE_WAIT_CYCLES, ld.cg x    DRAM: it stayed in an L1
 *   6     store_next_kernel  stores; next kernel ld.cg x           L2: the L2 allocates on stores
 *   7-10  neighbour_N        8 lanes store x's first 32 B; next    L2: the store allocated more
 *                            kernel ld.cg x+N (N = 32..256)         than N bytes of the L2
 *   11    partial_next       lane 0 stores 4 B at x; next kernel   DRAM: the L2 keeps a byte
 *                            ld.cg x+4 (same sector, not written)   mask (the sector not valid)
 *   12    partial_now        lane 0 stores 4 B at x; ld.cg x+4     DRAM: the L2 fetches the
 *                                                                   sector to merge the store
 *
 * Series: "caseN" (N = 1..12, the samples of each case), "cycles" (all of
 * them, for the generic curve code), "timer_overhead", "other_sm" (1 when
 * case 5's two CTAs ran on different SMs).  analysis/infer_store.c reads the
 * case medians against the three references.  The loaded values of cases 4
 * and 6 are checked (the store's own), so a device that did not store what it
 * was asked fails loudly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/l2_flush.h"
#include "kernels/probe.h"
#include "kernels/ptx_emit.h"
#include "kernels/timer.h"

#define STORE_CASES 12
#define DEFAULT_SAMPLES 8
#define MAX_SAMPLES 64
#define SAMPLE_STRIDE_BYTES 1280     /* a fresh line per sample, past any line size;
                                      * 256-aligned, and 10 L1 lines of 128 B apart */
#define STORE_CALIB 16
/* Case 5's observer waits this long before its loads: far longer than a store
 * takes to reach the L2 (a few hundred cycles on every card measured). */
#define GD_STORE_WAIT_CYCLES 20000
/* ... and CTA 0 idles this much longer per sample, while CTA 1 reads */
#define GD_STORE_READ_CYCLES 2000
#define STORE_VALUE 0x5a5a0001u      /* what lane 0 stores; lane i stores + i */
/* ptxas: the flush, the calibration and every case's loops, padding included */
#define STORE_MIN_SASS 200
#define STORE_MAX_SASS 1600

/* the tables: row c (case), column i (sample); row 0 unused */
#define TABLE_BYTES (4 * (STORE_CASES + 1) * MAX_SAMPLES)
#define OUT_CALIB 0
#define OUT_T (OUT_CALIB + 4 * STORE_CALIB)
#define OUT_V (OUT_T + TABLE_BYTES)
#define OUT_SMID (OUT_V + TABLE_BYTES)
#define OUT_BYTES (OUT_SMID + 8)

enum {
    CASE_REF_L1 = 1, CASE_REF_L2, CASE_REF_DRAM, CASE_STORE_LOAD, CASE_OTHER_SM,
    CASE_NEXT_KERNEL, CASE_NEIGHBOUR_32, CASE_NEIGHBOUR_64, CASE_NEIGHBOUR_128,
    CASE_NEIGHBOUR_256, CASE_PARTIAL_NEXT, CASE_PARTIAL_NOW
};

typedef struct store_state {
    uint32_t samples;
    uint64_t flush_bytes;
} store_state;

/* What lane 0 of the timing warp reads back, where the case checks it. */
static int checks_value(uint32_t c)
{
    return c == CASE_STORE_LOAD || c == CASE_NEXT_KERNEL;
}

/* Sample loop of case c: %r10 counts, %r9 = its table index (c x
 * MAX_SAMPLES + sample), %rd8 = data + (c - 1) x samples x stride + sample x
 * stride.  Labels are the case's: $L_<what><c>. */
static void loop_open(gd_ptx *p, const char *what, uint32_t c, uint32_t samples)
{
    gd_ptx_printf(p,
        "    mov.u32 %%r10, 0;\n"
        "$L_%s%u:\n"
        "    .pragma \"nounroll\";\n"
        "    add.u32 %%r9, %%r10, %u;\n"
        "    mul.wide.u32 %%rd8, %%r10, %d;\n"
        "    add.s64 %%rd8, %%rd2, %%rd8;\n"
        "    add.s64 %%rd8, %%rd8, %llu;\n",
        what, c, c * MAX_SAMPLES, SAMPLE_STRIDE_BYTES,
        (unsigned long long)(c - 1) * samples * SAMPLE_STRIDE_BYTES);
}

static void loop_close(gd_ptx *p, const char *what, uint32_t c, uint32_t samples)
{
    gd_ptx_printf(p,
        "    add.u32 %%r10, %%r10, 1;\n"
        "    setp.lt.u32 %%p3, %%r10, %u;\n"
        "    @%%p3 bra $L_%s%u;\n",
        samples, what, c);
}

/* The warp stores `lanes` consecutive words at %rd8 (lane i: STORE_VALUE + i). */
static void emit_store(gd_ptx *p, unsigned lanes)
{
    gd_ptx_printf(p,
        "    setp.lt.u32 %%p2, %%r2, %u;\n"
        "    add.s64 %%rd9, %%rd8, %%rd4;\n"
        "    @%%p2 st.global.u32 [%%rd9], %%r6;\n",
        lanes);
}

/* One timed load of [%rd8 + off] with cache operator `op`, into the shared
 * tables at sample %r10 (the whole warp loads the same word: one request).
 * After emit_touch the address adds the touched word's value (0: the data is
 * zeroed), so ptxas cannot merge the timed load into the touch (it did:
 * tests/test_sass_order.c). */
static void emit_timed_at(gd_ptx *p, const char *op, unsigned off, int after_touch)
{
    if (after_touch)
        gd_ptx_printf(p,
            "    cvt.u64.u32 %%rd9, %%r11;\n"
            "    add.s64 %%rd9, %%rd8, %%rd9;\n"
            "    cvt.u32.u64 %%r20, %%rd9;\n"
            "    st.shared.u32 [%%r5], %%r20;        // the address is ready before the clock\n");
    gd_ptx_printf(p,
        "    mov.u64 %%rd10, %%clock64;\n"
        "    ld.global.%s.u32 %%r12, [%s+%u];\n"
        "    st.shared.u32 [%%r5], %%r12;\n"
        "    mov.u64 %%rd11, %%clock64;\n"
        "    sub.s64 %%rd12, %%rd11, %%rd10;\n"
        "    cvt.u32.u64 %%r13, %%rd12;\n"
        "    shl.b32 %%r14, %%r9, 2;\n"
        "    add.u32 %%r18, %%r7, %%r14;\n"
        "    add.u32 %%r19, %%r8, %%r14;\n"
        "    @%%p0 st.shared.u32 [%%r18], %%r13;\n"
        "    @%%p0 st.shared.u32 [%%r19], %%r12;\n",
        op, after_touch ? "%rd9" : "%rd8", off);
}

static void emit_timed(gd_ptx *p, const char *op, unsigned off)
{
    emit_timed_at(p, op, off, 0);
}

/* An untimed load whose value is consumed (it has arrived before the next). */
static void emit_touch(gd_ptx *p, const char *op)
{
    gd_ptx_printf(p,
        "    ld.global.%s.u32 %%r11, [%%rd8];\n"
        "    st.shared.u32 [%%r5], %%r11;\n",
        op);
}

/* The clock pair's own cost, then (after the caller's timed loop) the tables
 * to global memory: lane 0 only. */
static void emit_calibration(gd_ptx *p)
{
    gd_ptx_printf(p,
        "    mov.u32 %%r10, 0;\n"
        "$L_calib:\n"
        "    .pragma \"nounroll\";\n"
        "    mov.u64 %%rd10, %%clock64;\n"
        "    st.shared.u32 [%%r5], %%r10;\n"
        "    mov.u64 %%rd11, %%clock64;\n"
        "    sub.s64 %%rd12, %%rd11, %%rd10;\n"
        "    cvt.u32.u64 %%r13, %%rd12;\n"
        "    mul.wide.u32 %%rd13, %%r10, 4;\n"
        "    add.s64 %%rd13, %%rd1, %%rd13;\n"
        "    @%%p0 st.global.u32 [%%rd13+%d], %%r13;\n"
        "    add.u32 %%r10, %%r10, 1;\n"
        "    setp.lt.u32 %%p3, %%r10, %d;\n"
        "    @%%p3 bra $L_calib;\n",
        OUT_CALIB, STORE_CALIB);
}

/* Rows first..last of the tables (whole rows) to global memory, lane 0 only:
 * one loop per range keeps the kernel's labels few (the SASS reader of
 * tests/test_sass_order.c holds a module's in one table). */
static void emit_copy_out(gd_ptx *p, uint32_t first, uint32_t last)
{
    gd_ptx_printf(p,
        "    mov.u32 %%r9, %u;\n"
        "$L_copy%u:\n"
        "    .pragma \"nounroll\";\n"
        "    shl.b32 %%r14, %%r9, 2;\n"
        "    add.u32 %%r18, %%r7, %%r14;\n"
        "    add.u32 %%r19, %%r8, %%r14;\n"
        "    ld.shared.u32 %%r15, [%%r18];\n"
        "    ld.shared.u32 %%r16, [%%r19];\n"
        "    mul.wide.u32 %%rd13, %%r9, 4;\n"
        "    add.s64 %%rd13, %%rd1, %%rd13;\n"
        "    @%%p0 st.global.u32 [%%rd13+%d], %%r15;\n"
        "    @%%p0 st.global.u32 [%%rd13+%d], %%r16;\n"
        "    add.u32 %%r9, %%r9, 1;\n"
        "    setp.lt.u32 %%p3, %%r9, %u;\n"
        "    @%%p3 bra $L_copy%u;\n",
        first * MAX_SAMPLES, first, OUT_T, OUT_V, (last + 1) * MAX_SAMPLES, first);
}

/* This SM's number at out + at (lane 0). */
static void emit_smid(gd_ptx *p, unsigned at)
{
    gd_ptx_printf(p,
        "    mov.u32 %%r17, %%smid;\n"
        "    @%%p0 st.global.u32 [%%rd1+%u], %%r17;\n",
        at);
}

/* Spins until %clock64 is `cycles` past %rd14. */
static void emit_wait(gd_ptx *p, const char *label, uint64_t cycles)
{
    gd_ptx_printf(p,
        "%s:\n"
        "    .pragma \"nounroll\";\n"
        "    mov.u64 %%rd15, %%clock64;\n"
        "    sub.s64 %%rd15, %%rd15, %%rd14;\n"
        "    setp.lt.s64 %%p3, %%rd15, %llu;\n"
        "    @%%p3 bra %s;\n",
        label, (unsigned long long)cycles, label);
}

/* Phase 1: CTA 1 observes case 5; CTA 0 stores case 5's lines, idles while
 * they are read, then runs the cases timed in this kernel and stores the
 * lines of the next kernel's cases. */
static void emit_act(gd_ptx *p, uint32_t samples)
{
    /* the waits read the clock right before their loops, with no memory
     * access between (tests/test_sass_order.c pairs every clock read) */
    gd_ptx_printf(p,
        "    setp.ne.u32 %%p1, %%r3, 0;\n"
        "    @%%p1 bra $L_observer;\n");
    loop_open(p, "st", CASE_OTHER_SM, samples);
    emit_store(p, 32);
    loop_close(p, "st", CASE_OTHER_SM, samples);
    emit_smid(p, OUT_SMID + 4);
    gd_ptx_printf(p, "    mov.u64 %%rd14, %%clock64;\n");
    emit_wait(p, "$L_idle", GD_STORE_WAIT_CYCLES + (uint64_t)GD_STORE_READ_CYCLES * samples);
    emit_calibration(p);
    static const uint32_t timed_here[] = {CASE_REF_L1, CASE_REF_L2, CASE_REF_DRAM,
                                          CASE_STORE_LOAD, CASE_PARTIAL_NOW};
    for (size_t k = 0; k < sizeof timed_here / sizeof timed_here[0]; k++) {
        uint32_t c = timed_here[k];
        loop_open(p, "t", c, samples);
        switch (c) {
        case CASE_REF_L1:
            emit_touch(p, "ca");
            emit_timed_at(p, "ca", 0, 1);
            break;
        case CASE_REF_L2:
            emit_touch(p, "cg");
            emit_timed_at(p, "cg", 0, 1);
            break;
        case CASE_REF_DRAM:
            emit_timed(p, "cg", 0);
            break;
        case CASE_STORE_LOAD:
            emit_store(p, 32);
            emit_timed(p, "ca", 0);
            break;
        default: /* CASE_PARTIAL_NOW */
            emit_store(p, 1);
            emit_timed(p, "cg", 4);
            break;
        }
        loop_close(p, "t", c, samples);
    }
    /* what the next kernel reads */
    for (uint32_t c = CASE_NEXT_KERNEL; c <= CASE_PARTIAL_NEXT; c++) {
        loop_open(p, "st", c, samples);
        emit_store(p, c == CASE_NEXT_KERNEL ? 32 : c == CASE_PARTIAL_NEXT ? 1 : 8);
        loop_close(p, "st", c, samples);
    }
    emit_copy_out(p, CASE_REF_L1, CASE_STORE_LOAD);
    emit_copy_out(p, CASE_PARTIAL_NOW, CASE_PARTIAL_NOW);
    gd_ptx_printf(p, "    bra $L_end;\n$L_observer:\n    mov.u64 %%rd14, %%clock64;\n");
    emit_wait(p, "$L_wait", GD_STORE_WAIT_CYCLES);
    loop_open(p, "t", CASE_OTHER_SM, samples);
    emit_timed(p, "cg", 0);
    loop_close(p, "t", CASE_OTHER_SM, samples);
    emit_copy_out(p, CASE_OTHER_SM, CASE_OTHER_SM);
    emit_smid(p, OUT_SMID);
}

/* Phase 2: a new kernel reads what phase 1 stored (CTA 0). */
static void emit_observe(gd_ptx *p, uint32_t samples)
{
    gd_ptx_printf(p, "    setp.ne.u32 %%p1, %%r3, 0;\n    @%%p1 bra $L_end;\n");
    for (uint32_t c = CASE_NEXT_KERNEL; c <= CASE_PARTIAL_NEXT; c++) {
        unsigned off = 0;
        if (c >= CASE_NEIGHBOUR_32 && c <= CASE_NEIGHBOUR_256)
            off = 32u << (c - CASE_NEIGHBOUR_32);
        else if (c == CASE_PARTIAL_NEXT)
            off = 4;
        loop_open(p, "o", c, samples);
        emit_timed(p, "cg", off);
        loop_close(p, "o", c, samples);
    }
    emit_copy_out(p, CASE_NEXT_KERNEL, CASE_PARTIAL_NEXT);
}

static char *store_ptx(const gd_device_info *dev, const store_state *st)
{
    gd_ptx p;
    gd_ptx_init(&p);
    gd_ptx_header(&p, dev->cc_major, dev->cc_minor, 63);
    gd_ptx_printf(&p,
        ".visible .entry gd_store_path(\n"
        "    .param .u64 gd_sp_out,\n"
        "    .param .u64 gd_sp_data,\n"
        "    .param .u32 gd_sp_phase,\n"
        "    .param .u64 gd_sp_flush\n"
        ")\n"
        ".maxntid 32, 1, 1\n"
        "{\n"
        "    .reg .pred %%p<4>;\n"
        "    .reg .b32 %%r<24>;\n"
        "    .reg .b64 %%rd<16>;\n"
        "    .shared .align 4 .b8 gd_sp_sink[128];\n"
        "    .shared .align 4 .b8 gd_sp_t[%d];\n"
        "    .shared .align 4 .b8 gd_sp_v[%d];\n",
        TABLE_BYTES, TABLE_BYTES);
    gd_l2_flush_decls(&p);
    gd_ptx_printf(&p,
        "\n"
        "    ld.param.u64 %%rd1, [gd_sp_out];\n"
        "    ld.param.u64 %%rd2, [gd_sp_data];\n"
        "    ld.param.u32 %%r1, [gd_sp_phase];\n"
        "    ld.param.u64 %%rd3, [gd_sp_flush];\n"
        "    mov.u32 %%r2, %%tid.x;\n"
        "    mov.u32 %%r3, %%ctaid.x;\n"
        "    shl.b32 %%r4, %%r2, 2;\n"
        "    mul.wide.u32 %%rd4, %%r4, 1;         // this lane's word\n"
        "    mov.u32 %%r5, gd_sp_sink;\n"
        "    add.u32 %%r5, %%r5, %%r4;            // this lane's sink\n"
        "    add.u32 %%r6, %%r2, %u;              // what this lane stores\n"
        "    mov.u32 %%r7, gd_sp_t;               // the tables of times and values\n"
        "    mov.u32 %%r8, gd_sp_v;\n"
        "    setp.eq.u32 %%p0, %%r2, 0;\n"
        "    setp.ne.u32 %%p1, %%r1, 0;\n"
        "    @%%p1 bra $L_act;\n"
        "    // phase 0: CTA 0 evicts the L2\n"
        "    setp.ne.u32 %%p1, %%r3, 0;\n"
        "    @%%p1 bra $L_end;\n",
        STORE_VALUE);
    gd_l2_flush_emit(&p, "%rd3", st->flush_bytes, "[%r5]");
    gd_ptx_printf(&p,
        "    bra $L_end;\n"
        "$L_act:\n"
        "    setp.ne.u32 %%p1, %%r1, 1;\n"
        "    @%%p1 bra $L_observe;\n");
    emit_act(&p, st->samples);
    gd_ptx_printf(&p, "    bra $L_end;\n$L_observe:\n");
    emit_observe(&p, st->samples);
    gd_ptx_printf(&p, "$L_end:\n    ret;\n}\n");
    return gd_ptx_finish(&p);
}

static int store_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                      gd_probe_plan *out, gd_err *err)
{
    memset(out, 0, sizeof *out);
    out->opts = *opts;
    gd_probe_opts *o = &out->opts;
    if (o->variant[0] && strcmp(o->variant, "store"))
        return gd_fail(err, "store_path: unknown variant '%s' (it has none)", o->variant);
    if (point < 1 || point > MAX_SAMPLES)
        return gd_fail(err, "store_path: %llu samples per case is outside 1..%d",
                       (unsigned long long)point, MAX_SAMPLES);
    o->samples = (uint32_t)point;
    o->stride_bytes = 1;
    store_state *st = calloc(1, sizeof *st);
    if (!st)
        return gd_fail(err, "store_path: out of memory");
    st->samples = o->samples;
    st->flush_bytes = gd_l2_flush_bytes(dev);
    out->state = st;
    out->point = point;
    out->ptx = store_ptx(dev, st);
    if (!out->ptx) {
        free(st);
        out->state = NULL;
        return gd_fail(err, "store_path: out of memory");
    }
    snprintf(out->entry, sizeof out->entry, "gd_store_path");
    out->grid[0] = 2; /* CTA 1: case 5's observer on another SM */
    out->grid[1] = out->grid[2] = 1;
    out->block[0] = 32;
    out->block[1] = out->block[2] = 1;
    out->buffers[0] = (gd_probe_buffer){.name = "out", .bytes = OUT_BYTES, .copy_out = 1};
    out->buffers[1] = (gd_probe_buffer){
        .name = "data",
        .bytes = (size_t)STORE_CASES * st->samples * SAMPLE_STRIDE_BYTES + SAMPLE_STRIDE_BYTES};
    out->buffer_count = 2;
    out->params[0] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 0};
    out->params[1] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 1};
    out->params[2] = (gd_probe_param){.kind = GD_PARAM_U32, .value = 1};
    out->param_count = 3;
    gd_l2_flush_attach(out, st->flush_bytes);
    out->launches = 3;
    out->dependent_accesses = st->flush_bytes / 1024 + 2ull * STORE_CASES * st->samples;
    out->code_min_instructions = STORE_MIN_SASS;
    out->code_max_instructions = STORE_MAX_SASS;
    return 0;
}

/* Launch k runs phase k on the same buffers. */
static int store_split(const gd_probe_plan *plan, unsigned launch, gd_probe_param *params,
                       gd_err *err)
{
    if (launch >= plan->launches)
        return gd_fail(err, "store_path: launch %u of %u", launch, plan->launches);
    memcpy(params, plan->params, plan->param_count * sizeof *params);
    params[2].value = launch;
    return 0;
}

static int store_decode(const gd_probe_plan *plan, const gd_devptr *addresses, void *const *host,
                        gd_probe_result *out, gd_err *err)
{
    (void)addresses;
    const store_state *st = plan->state;
    const uint8_t *buf = host[0];
    double overhead = gd_timer_median_u32(buf + OUT_CALIB, STORE_CALIB);
    gd_series *cycles = gd_probe_result_add(out, "cycles", (size_t)STORE_CASES * st->samples);
    gd_series *ov = gd_probe_result_add(out, "timer_overhead", 1);
    gd_series *other = gd_probe_result_add(out, "other_sm", 1);
    if (!cycles || !ov || !other)
        return gd_fail(err, "store_path: out of memory");
    for (uint32_t c = 1; c <= STORE_CASES; c++) {
        char name[16];
        snprintf(name, sizeof name, "case%u", c);
        gd_series *cs = gd_probe_result_add(out, name, st->samples);
        if (!cs)
            return gd_fail(err, "store_path: out of memory");
        for (uint32_t i = 0; i < st->samples; i++) {
            uint32_t t, v;
            size_t at = 4 * ((size_t)c * MAX_SAMPLES + i);
            memcpy(&t, buf + OUT_T + at, 4);
            memcpy(&v, buf + OUT_V + at, 4);
            if (checks_value(c) && v != STORE_VALUE)
                return gd_fail(err, "store_path: case %u sample %u read 0x%x, not the 0x%x it "
                                    "stored: the device did not store or load what it was asked",
                               c, i, v, STORE_VALUE);
            cs->samples[i] = (double)t - overhead;
            cycles->samples[(size_t)(c - 1) * st->samples + i] = cs->samples[i];
        }
    }
    ov->samples[0] = overhead;
    uint32_t sm0, sm1;
    memcpy(&sm0, buf + OUT_SMID, 4);
    memcpy(&sm1, buf + OUT_SMID + 4, 4);
    other->samples[0] = sm0 != sm1;
    return 0;
}

static const char *const store_variants[] = {"store", NULL};

const gd_probe gd_probe_store_path = {
    .name = "store_path",
    .summary = "the store path: L1/L2 write allocation, write-through vs write-back, partial sectors",
    .sweep_name = "samples_per_case",
    .value_unit = "cycles",
    .default_stride_bytes = 1,
    .sweep_granularity = 1,
    .variants = store_variants,
    .example_point = DEFAULT_SAMPLES,
    .plan = store_plan,
    .decode = store_decode,
    .release = gd_probe_free_state,
    .split = store_split,
};
