/* dram_row.c -- a DRAM row hit against a row switch: the latency of a load
 * whose bank already has its row open, and of one whose bank holds another;
 * and (variant idle) how long a bank keeps a row open when nobody reads it.
 *
 * A DRAM bank keeps one row open in its row buffer; a read of that row is a
 * column command alone (tCL), a read of another row first closes it and opens
 * the new one (tRP + tRCD more: a "conflict" under the open-row policy GPUs
 * use, a closed bank -- tRCD -- under a close-page policy).  The probe times
 * pairs of loads that both miss the L2:
 *
 *   A   a line nobody has read since the L2 was evicted: it opens its row;
 *   B   the line `d` bytes after A (the sweep value), read as soon as A is
 *       back, timed alone (clock; ld B; B consumed; clock).
 *
 * While A and B share an interleave chunk of one channel (d below the
 * interleave, A aligned to 4 KiB) B finds A's row open: a row hit.  Past it B
 * lands in another channel or bank -- whose open row, after the eviction pass
 * read twice the L2 through every bank, is some other one: a row switch.  So
 * the curve is a low plateau up to the interleave (or the row, whichever is
 * smaller) and a high one after, and the step is tRP + tRCD; a DRAM without
 * rows is flat ("no row effect", analysis/infer_dram.c).  The address map is
 * not needed -- nor known on a card, whose channel hash NVIDIA does not
 * publish: the probe *infers* the row-hit span from where the step is.
 *
 * Variant idle: the page-close timeout.  A controller may precharge a bank
 * that has been idle for a while (an adaptive or timeout page policy; the
 * simulator's [DRAM] row_timeout), so that the next access to it pays tRCD (a
 * row miss: the bank is closed) rather than nothing (a hit) or tRP + tRCD (a
 * conflict).  The sweep value is then a gap in SM cycles (still written in
 * the CSV's distance_bytes column, the probe's one sweep name): each pair is A,
 * then a spin on %clock64 until `gap` cycles have passed since A came back,
 * then B = A + DR_IDLE_DISTANCE_BYTES -- the next L2 line in A's interleave
 * chunk, so A's channel, bank and row under any plausible map, and an L2 miss
 * of its own.  B is timed as above.  While the bank's idle time stays under
 * the timeout B is a row hit (the [DRAM] latency); past it B finds the bank
 * closed (latency + tRCD); without a timeout the curve is flat at the hit.
 * The bank's idle time is not the gap alone: from A's column command to B's
 * it is the gap plus one DRAM round trip (A's data back to the SM, B's request
 * out to the bank: together a row hit's latency) plus the few instructions
 * around the wait.  So each pair also records the wait as it ran ("wait_cycles":
 * from the clock read right after A is consumed to the one that starts B's
 * timing) and analysis/infer_dram.c reads the timeout as wait + row-hit
 * latency.  A timeout shorter than the first gap's idle time closes every B:
 * a flat curve at the closed latency, which no single warp can tell from no
 * timeout (every dependent access waits a round trip for the one before).
 * B's address is A's value plus (the wait's elapsed cycles >> 31) x 64 --
 * always 0, the gap being below 2^31, but not to ptxas: the load cannot be
 * hoisted above the spin loop (tests/test_sass_order.c checks the machine
 * code).  The wait compares a 32-bit difference of clock reads, so the
 * 32-bit clock of --timer clock32 cannot stall it across a wrap.  Gaps are
 * 1..DR_MAX_GAP_CYCLES (2^20: past the simulator's largest row_timeout, and
 * about 0.7 ms at 1.5 GHz); DR_IDLE_DEFAULT_PAIRS pairs per point, whose wait
 * the display watchdog's cost estimate counts (dependent_accesses: the wait
 * as so many worst-case accesses).
 *
 * Every pair is on fresh lines (pair i at i x spacing, spacing at least twice
 * d and 64 KiB), so that no B was brought into the L2 by anything before it;
 * the kernel first reads the flush buffer (kernels/l2_flush.h) with ld.cg,
 * which evicts what the host wrote and leaves every bank with a row open.
 * Loads are ld.global.cg: the L1 is never in the way.  All 32 lanes of the one
 * warp walk the same chain (their loads coalesce into one request); the warp
 * is needed for the eviction pass, which reads a sector per lane.
 *
 * Pairs at most a page apart share the page of A, so B's translation hits the
 * TLB; a pair that straddles a page boundary pays a TLB miss, which the median
 * (the analysis reads it) ignores.  Samples: "cycles", one per pair, less the
 * timer's calibration (the same bracket around the consuming store alone);
 * idle adds "wait_cycles", one per pair; the effective SM clock over the
 * pairs.  Decode checks the walk: the chain ends where it began.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/l2_flush.h"
#include "kernels/probe.h"
#include "kernels/ptx_emit.h"
#include "kernels/timer.h"

#define DR_DEFAULT_PAIRS 256
#define DR_MAX_PAIRS 1024
#define DR_MIN_SPACING (64u << 10)
#define DR_ALIGN 4096               /* A at a 4 KiB boundary: inside an interleave chunk */
#define DR_CALIB 32
#define DR_MAX_DISTANCE (64ull << 20)
/* output: final position, region cycles, region ns, then calibration and samples */
#define DR_OUT_HEADER 24
#define DR_OUT_CALIB DR_OUT_HEADER
#define DR_OUT_SAMPLES (DR_OUT_CALIB + DR_CALIB * 4)
/* variant idle: B is the next 128-byte line after A -- past any L2 line up to
 * 128 bytes (A100/H100's, the simulator's 64 or 128), inside any interleave
 * chunk of 256 bytes or more (A aligned to 4 KiB) */
#define DR_IDLE_DISTANCE_BYTES 128
#define DR_IDLE_DEFAULT_PAIRS 64    /* the median of 64 single loads: plenty; a long gap costs */
#define DR_MAX_GAP_CYCLES (1u << 20)
/* the display watchdog's worst-case access (host/runner.h:
 * GD_WATCHDOG_WORST_ACCESS_CYCLES): the wait is counted as that many cycles
 * per dependent access */
#define DR_WATCHDOG_ACCESS_CYCLES 2000
/* B's address + (elapsed >> DR_IDLE_SHIFT) x DR_IDLE_SCALE: 0 for any gap
 * below 2^31, never folded by ptxas; an aligned 64 bytes were it not */
#define DR_IDLE_SHIFT 31
#define DR_IDLE_SCALE 64

typedef struct dr_state {
    int idle;                   /* variant idle: the sweep value is a gap */
    uint32_t pairs;
    uint32_t gap_cycles;        /* idle: the wait between A and B */
    uint64_t distance_bytes;
    uint64_t spacing_bytes;
    uint64_t flush_bytes;
    /* the points of one launch (n 1: the fields above are its only one):
     * each its own chain, from chain_off on in the chain buffer, and its own
     * block of out from out_off */
    size_t n;
    struct dr_point {
        uint32_t gap_cycles;
        uint64_t distance_bytes, spacing_bytes, chain_off, out_off;
    } pt[];
} dr_state;

/* points a launch measures after its one eviction pass */
#define DR_MAX_BATCH 16

/* 32-bit sample words the kernel keeps in shared memory and copies out:
 * the calibration, one B per pair, and (idle) one wait per pair */
static uint32_t dr_sample_words(const dr_state *st)
{
    return DR_CALIB + st->pairs * (st->idle ? 2 : 1);
}

/* One point's calibration, pairs and copy-out: on the chain at %rd1, out at
 * %rd2, %r1 pairs, (idle) a gap of %r16 cycles. */
static void dr_emit_point(gd_ptx *p, const dr_state *st)
{
    /* the timer's calibration: the timed bracket without its load */
    gd_ptx_printf(p,
        "    mov.u32 %%r5, 0;\n"
        "$L_calib:\n"
        "    .pragma \"nounroll\";\n"
        "    mov.u64 %%rd10, %%clock64;\n"
        "    st.shared.u32 [%%r12], %%r5;\n"
        "    mov.u64 %%rd11, %%clock64;\n"
        "    sub.s64 %%rd12, %%rd11, %%rd10;\n"
        "    cvt.u32.u64 %%r6, %%rd12;\n"
        "    shl.b32 %%r7, %%r5, 2;\n"
        "    add.u32 %%r7, %%r14, %%r7;\n"
        "    st.shared.u32 [%%r7], %%r6;\n"
        "    add.u32 %%r5, %%r5, 1;\n"
        "    setp.lt.u32 %%p1, %%r5, %d;\n"
        "    @%%p1 bra $L_calib;\n",
        DR_CALIB);
    /* the pairs: A opens its row (untimed, consumed before the first clock
     * read), B is timed; B's address is A's value, B's value the next A */
    gd_ptx_printf(p,
        "    mov.u64 %%rd3, %%rd1;\n"
        "    mov.u32 %%r5, 0;\n");
    if (st->idle)
        gd_ptx_printf(p, "    shl.b32 %%r19, %%r1, 2;             // the waits: past the Bs\n");
    gd_timer_ptx_region_start(p, "%rd20", "%rd21");
    /* A, consumed; then (idle) the wait, B's address built from its end */
    gd_ptx_printf(p,
        "$L_pair:\n"
        "    .pragma \"nounroll\";\n"
        "    ld.global.cg.u64 %%rd4, [%%rd3];    // A: opens its row\n"
        "    st.shared.u32 [%%r12+128], %%rd4;   // A is back\n");
    if (st->idle) /* `gap` cycles (%r16) of nothing */
        gd_ptx_printf(p,
            "    mov.u64 %%rd15, %%clock64;          // the wait starts\n"
            "$L_idle:\n"
            "    .pragma \"nounroll\";\n"
            "    mov.u64 %%rd16, %%clock64;\n"
            "    sub.s64 %%rd17, %%rd16, %%rd15;\n"
            "    cvt.u32.u64 %%r15, %%rd17;          // elapsed, wrap-safe in 32 bits\n"
            "    setp.lt.u32 %%p2, %%r15, %%r16;\n"
            "    @%%p2 bra $L_idle;\n"
            "    shr.u32 %%r17, %%r15, %d;           // 0 (gap < 2^31), unknown to ptxas:\n"
            "    mul.wide.u32 %%rd18, %%r17, %d;     // B's address waits for the wait\n"
            "    add.s64 %%rd18, %%rd4, %%rd18;\n",
            DR_IDLE_SHIFT, DR_IDLE_SCALE);
    /* B alone, timed; its sample */
    gd_ptx_printf(p,
        "    mov.u64 %%rd10, %%clock64;\n"
        "    ld.global.cg.u64 %%rd5, [%s];%s\n"
        "    st.shared.u32 [%%r12], %%rd5;       // B consumed\n"
        "    mov.u64 %%rd11, %%clock64;\n"
        "    sub.s64 %%rd12, %%rd11, %%rd10;\n"
        "    cvt.u32.u64 %%r6, %%rd12;\n"
        "    add.u32 %%r7, %%r5, %d;\n"
        "    shl.b32 %%r7, %%r7, 2;\n"
        "    add.u32 %%r7, %%r14, %%r7;\n"
        "    st.shared.u32 [%%r7], %%r6;\n",
        st->idle ? "%rd18" : "%rd4",
        st->idle ? "   // B, in A's row" : "    // B, d bytes after A", DR_CALIB);
    if (st->idle)
        gd_ptx_printf(p,
            "    sub.s64 %%rd19, %%rd10, %%rd15;     // the wait as it ran\n"
            "    cvt.u32.u64 %%r18, %%rd19;\n"
            "    add.u32 %%r7, %%r7, %%r19;\n"
            "    st.shared.u32 [%%r7], %%r18;\n");
    gd_ptx_printf(p,
        "    mov.u64 %%rd3, %%rd5;\n"
        "    add.u32 %%r5, %%r5, 1;\n"
        "    setp.lt.u32 %%p1, %%r5, %%r1;\n"
        "    @%%p1 bra $L_pair;\n");
    gd_timer_ptx_region_stop(p, "%rd20", "%rd21", "%rd22");
    /* lane 0 copies the header, the calibration and the samples out */
    gd_ptx_printf(p,
        "    @!%%p3 bra $L_done;\n"
        "    st.global.u64 [%%rd2], %%rd3;\n"
        "    st.global.u64 [%%rd2+8], %%rd20;\n"
        "    st.global.u64 [%%rd2+16], %%rd21;\n"
        "%s"
        "    add.u32 %%r8, %s, %d;\n"
        "    mov.u32 %%r5, 0;\n"
        "$L_copy:\n"
        "    .pragma \"nounroll\";\n"
        "    shl.b32 %%r7, %%r5, 2;\n"
        "    add.u32 %%r9, %%r14, %%r7;\n"
        "    ld.shared.u32 %%r6, [%%r9];\n"
        "    cvt.u64.u32 %%rd13, %%r7;\n"
        "    add.s64 %%rd13, %%rd2, %%rd13;\n"
        "    st.global.u32 [%%rd13+%d], %%r6;\n"
        "    add.u32 %%r5, %%r5, 1;\n"
        "    setp.lt.u32 %%p1, %%r5, %%r8;\n"
        "    @%%p1 bra $L_copy;\n"
        "$L_done:\n",
        st->idle ? "    shl.b32 %r8, %r1, 1;              // a B and a wait per pair\n" : "",
        st->idle ? "%r8" : "%r1", DR_CALIB, DR_OUT_CALIB);
}


static char *dr_ptx(const gd_device_info *dev, const dr_state *st)
{
    gd_ptx p;
    gd_ptx_init(&p);
    gd_ptx_header(&p, dev->cc_major, dev->cc_minor, 63);
    gd_ptx_printf(&p,
        ".visible .entry gd_dram_row(\n"
        "    .param .u64 gd_dr_chain,\n"
        "    .param .u64 gd_dr_out,\n"
        "    .param .u32 gd_dr_pairs,\n"
        "%s"
        "    .param .u64 gd_dr_flush\n"
        ")\n"
        ".maxntid 32, 1, 1\n"
        "{\n"
        "    .reg .pred %%p<4>;\n"
        "    .reg .b32 %%r<24>;\n"
        "    .reg .b64 %%rd<24>;\n"
        "    .shared .align 8 .b8 gd_sink[512];\n"
        "    .shared .align 4 .b8 gd_dr_samples[%u];\n",
        st->idle ? "    .param .u32 gd_dr_gap,\n" : "", dr_sample_words(st) * 4);
    gd_l2_flush_decls(&p);
    int batch = st->n > 1;
    gd_ptx_printf(&p,
        "\n"
        "    ld.param.u64 %%rd%d, [gd_dr_chain];\n"
        "    ld.param.u64 %%rd%d, [gd_dr_out];\n"
        "    ld.param.u32 %%r1, [gd_dr_pairs];\n"
        "    ld.param.u64 %%rd8, [gd_dr_flush];\n"
        "%s"
        "    mov.u32 %%r3, %%tid.x;\n"
        "    setp.eq.u32 %%p3, %%r3, 0;\n"
        "    mov.u32 %%r12, gd_sink;\n"
        "    shl.b32 %%r13, %%r3, 2;\n"
        "    add.s32 %%r12, %%r12, %%r13;       // this lane's sink words\n"
        "    mov.u32 %%r14, gd_dr_samples;\n",
        batch ? 6 : 1, batch ? 7 : 2,
        st->idle && !batch ? "    ld.param.u32 %r16, [gd_dr_gap];\n" : "");
    gd_l2_flush_emit(&p, "%rd8", st->flush_bytes, "[%r12+256]");
    if (!batch)
        dr_emit_point(&p, st);
    for (size_t j = 0; batch && j < st->n; j++) {
        /* point j: its chain and out block, its gap; its labels its own */
        const struct dr_point *pt = &st->pt[j];
        gd_ptx_printf(&p,
            "\n"
            "    // point %zu: %s %llu, on a chain %llu bytes into the buffer that nothing\n"
            "    // read since the eviction pass\n"
            "    add.s64 %%rd1, %%rd6, %llu;\n"
            "    add.s64 %%rd2, %%rd7, %llu;\n",
            j, st->idle ? "gap" : "distance",
            (unsigned long long)(st->idle ? pt->gap_cycles : pt->distance_bytes),
            (unsigned long long)pt->chain_off, (unsigned long long)pt->chain_off,
            (unsigned long long)pt->out_off);
        if (st->idle)
            gd_ptx_printf(&p, "    mov.u32 %%r16, %u;\n", pt->gap_cycles);
        gd_ptx q;
        gd_ptx_init(&q);
        dr_emit_point(&q, st);
        char *text = gd_ptx_finish(&q);
        if (!text) {
            free(gd_ptx_finish(&p));
            return NULL;
        }
        char prefix[16];
        snprintf(prefix, sizeof prefix, "$L_p%zu_", j);
        for (const char *t = text; *t;) {
            const char *l = strstr(t, "$L_");
            size_t n = l ? (size_t)(l - t) : strlen(t);
            gd_ptx_printf(&p, "%.*s", (int)n, t);
            if (!l)
                break;
            gd_ptx_printf(&p, "%s", prefix);
            t = l + 3;
        }
        free(text);
    }
    gd_ptx_printf(&p,
        "    ret;\n"
        "}\n");
    return gd_ptx_finish(&p);
}

/* Point j's pair i: the offset of its A in the chain buffer (absolute
 * address 4 KiB-aligned). */
static uint64_t dr_a_offset(const dr_state *st, gd_devptr base, size_t j, uint32_t i)
{
    uint64_t pad = (DR_ALIGN - base % DR_ALIGN) % DR_ALIGN;
    return pad + st->pt[j].chain_off + (uint64_t)i * st->pt[j].spacing_bytes;
}

/* The out block of one point: header, calibration, samples. */
static size_t dr_out_bytes(const dr_state *st)
{
    return DR_OUT_CALIB + 4 * (size_t)dr_sample_words(st);
}

static int dr_plan_points(const gd_probe_opts *opts, const gd_device_info *dev,
                          const uint64_t *points, size_t n, gd_probe_plan *out, gd_err *err)
{
    memset(out, 0, sizeof *out);
    out->opts = *opts;
    gd_probe_opts *o = &out->opts;
    int idle = !strcmp(o->variant, "idle");
    if (o->variant[0] && strcmp(o->variant, "cg") && !idle)
        return gd_fail(err, "dram_row: unknown variant '%s' (it has cg and idle)", o->variant);
    if (o->stride_bytes || o->footprint_bytes || o->random_order)
        return gd_fail(err, "dram_row: --stride, --footprint and --pattern do not apply "
                            "(the sweep value is %s)",
                       idle ? "the gap in cycles between A and B" : "the distance from A to B");
    if (!idle)
        snprintf(o->variant, sizeof o->variant, "cg");
    if (!o->samples)
        o->samples = idle ? DR_IDLE_DEFAULT_PAIRS : DR_DEFAULT_PAIRS;
    if (o->samples < 8 || o->samples > DR_MAX_PAIRS)
        return gd_fail(err, "dram_row: --samples (pairs) must be 8..%d, got %u", DR_MAX_PAIRS,
                       o->samples);
    if (n < 1 || n > DR_MAX_BATCH)
        return gd_fail(err, "dram_row: %zu points in one launch (1..%d)", n, DR_MAX_BATCH);
    for (size_t j = 0; j < n; j++) {
        uint64_t point = points[j];
        if (idle && (point < 1 || point > DR_MAX_GAP_CYCLES))
            return gd_fail(err, "dram_row --variant idle: the gap must be 1..%u cycles, got %llu",
                           DR_MAX_GAP_CYCLES, (unsigned long long)point);
        if (!idle && (point < 32 || point % 32 || point > DR_MAX_DISTANCE))
            return gd_fail(err, "dram_row: the distance must be a multiple of 32 bytes in "
                                "32..%llu, got %llu",
                           DR_MAX_DISTANCE, (unsigned long long)point);
    }
    dr_state *st = calloc(1, sizeof *st + n * sizeof st->pt[0]);
    if (!st)
        return gd_fail(err, "dram_row: out of memory");
    st->idle = idle;
    st->pairs = o->samples;
    st->n = n;
    uint64_t chain_bytes = 0, dependent = 0;
    for (size_t j = 0; j < n; j++) {
        struct dr_point *pt = &st->pt[j];
        pt->gap_cycles = idle ? (uint32_t)points[j] : 0;
        pt->distance_bytes = idle ? DR_IDLE_DISTANCE_BYTES : points[j];
        uint64_t spacing = 2 * pt->distance_bytes;
        if (spacing < DR_MIN_SPACING)
            spacing = DR_MIN_SPACING;
        pt->spacing_bytes = (spacing + DR_ALIGN - 1) / DR_ALIGN * DR_ALIGN;
        /* every chain on lines of its own: a whole number of 4 KiB, the
         * last B at most half a spacing past its A */
        pt->chain_off = chain_bytes;
        pt->out_off = dr_out_bytes(st) * j;
        chain_bytes += st->pairs * pt->spacing_bytes;
        /* two loads a pair, and the wait as the worst-case accesses it lasts */
        uint64_t wait_accesses =
            (pt->gap_cycles + DR_WATCHDOG_ACCESS_CYCLES - 1) / DR_WATCHDOG_ACCESS_CYCLES;
        dependent += (2 + wait_accesses) * (uint64_t)st->pairs;
    }
    st->gap_cycles = st->pt[0].gap_cycles;
    st->distance_bytes = st->pt[0].distance_bytes;
    st->spacing_bytes = st->pt[0].spacing_bytes;
    st->flush_bytes = gd_l2_flush_bytes(dev);
    out->state = st;
    out->point = points[0];
    out->ptx = dr_ptx(dev, st);
    if (!out->ptx) {
        free(st);
        out->state = NULL;
        return gd_fail(err, "dram_row: out of memory");
    }
    snprintf(out->entry, sizeof out->entry, "gd_dram_row");
    out->grid[0] = out->grid[1] = out->grid[2] = 1;
    out->block[0] = 32;
    out->block[1] = out->block[2] = 1;
    out->buffers[0] = (gd_probe_buffer){.name = "chain", .bytes = chain_bytes + DR_ALIGN,
                                        .host_fill = 1};
    out->buffers[1] = (gd_probe_buffer){.name = "out", .bytes = dr_out_bytes(st) * n,
                                        .copy_out = 1};
    out->buffer_count = 2;
    out->params[0] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 0};
    out->params[1] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 1};
    out->params[2] = (gd_probe_param){.kind = GD_PARAM_U32, .value = st->pairs};
    out->param_count = 3;
    if (idle)
        out->params[out->param_count++] =
            (gd_probe_param){.kind = GD_PARAM_U32, .value = n == 1 ? st->gap_cycles : 0};
    gd_l2_flush_attach(out, st->flush_bytes);
    out->dependent_accesses = dependent;
    return 0;
}

static int dr_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                   gd_probe_plan *out, gd_err *err)
{
    return dr_plan_points(opts, dev, &point, 1, out, err);
}

static unsigned dr_batch_max(const gd_probe_opts *opts)
{
    (void)opts;
    return DR_MAX_BATCH;
}

/* Every point's chain: A -> B -> the next pair's A, the last pair's B back
 * to the point's first A. */
static int dr_fill(const gd_probe_plan *plan, unsigned index, const gd_devptr *addresses,
                   void *host, gd_err *err)
{
    if (index != 0)
        return gd_fail(err, "dram_row: no initial contents for buffer %u", index);
    const dr_state *st = plan->state;
    uint8_t *bytes = host;
    gd_devptr base = addresses[0];
    for (size_t j = 0; j < st->n; j++)
        for (uint32_t i = 0; i < st->pairs; i++) {
            uint64_t a = dr_a_offset(st, base, j, i);
            uint64_t b = a + st->pt[j].distance_bytes;
            uint64_t next = dr_a_offset(st, base, j, (i + 1) % st->pairs);
            uint64_t to_b = base + b, to_next = base + next;
            memcpy(bytes + a, &to_b, 8);
            memcpy(bytes + b, &to_next, 8);
        }
    return 0;
}

static int dr_decode_batch(const gd_probe_plan *plan, const gd_devptr *addresses,
                           void *const *host, gd_probe_result *results, size_t n, gd_err *err)
{
    const dr_state *st = plan->state;
    if (n != st->n)
        return gd_fail(err, "dram_row: %zu results asked of a launch of %zu points", n, st->n);
    for (size_t j = 0; j < n; j++) {
        const uint8_t *buf = (const uint8_t *)host[1] + st->pt[j].out_off;
        gd_probe_result *out = &results[j];
        uint64_t final_pos, cycles, ns;
        memcpy(&final_pos, buf, 8);
        memcpy(&cycles, buf + 8, 8);
        memcpy(&ns, buf + 16, 8);
        uint64_t start = addresses[0] + dr_a_offset(st, addresses[0], j, 0);
        if (final_pos != start)
            return gd_fail(err, "dram_row: the chain%s ended at 0x%llx, not at its start 0x%llx: "
                                "the pairs were not all walked",
                           n > 1 ? " of a point" : "", (unsigned long long)final_pos,
                           (unsigned long long)start);
        double overhead = gd_timer_median_u32(buf + DR_OUT_CALIB, DR_CALIB);
        gd_series *c = gd_probe_result_add(out, "cycles", st->pairs);
        gd_series *t = gd_probe_result_add(out, "timer_overhead", 1);
        gd_series *w = st->idle ? gd_probe_result_add(out, "wait_cycles", st->pairs) : NULL;
        if (!c || !t || (st->idle && !w))
            return gd_fail(err, "dram_row: out of memory");
        for (uint32_t i = 0; i < st->pairs; i++) {
            uint32_t d;
            memcpy(&d, buf + DR_OUT_SAMPLES + 4 * (size_t)i, 4);
            c->samples[i] = (double)d - overhead;
            if (w) {
                memcpy(&d, buf + DR_OUT_SAMPLES + 4 * ((size_t)st->pairs + i), 4);
                w->samples[i] = (double)d;
            }
        }
        t->samples[0] = overhead;
        if (gd_timer_add_clock_series(out, cycles, ns) != 0)
            return gd_fail(err, "dram_row: out of memory");
    }
    return 0;
}

static int dr_decode(const gd_probe_plan *plan, const gd_devptr *addresses, void *const *host,
                     gd_probe_result *out, gd_err *err)
{
    return dr_decode_batch(plan, addresses, host, out, 1, err);
}

static const char *const dr_variants[] = {"cg", "idle", NULL};

const gd_probe gd_probe_dram_row = {
    .name = "dram_row",
    .summary = "a load right after another d bytes before it, both L2 misses: DRAM row hit "
               "(same row) vs row switch; --variant idle: a gap of N cycles between them in one "
               "row, the page-close timeout",
    .sweep_name = "distance_bytes",
    .value_unit = "cycles",
    .default_stride_bytes = 0,
    .sweep_granularity = 32,
    .variants = dr_variants,
    .example_point = 128,
    .plan = dr_plan,
    .fill = dr_fill,
    .decode = dr_decode,
    .release = gd_probe_free_state,
    .batch_max = dr_batch_max,
    .plan_batch = dr_plan_points,
    .decode_batch = dr_decode_batch,
};
