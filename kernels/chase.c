/* chase.c -- the pointer-chase kernel: one dependent chain, every access timed.
 *
 * The host writes a chain over a footprint: element i sits at offset i*stride
 * and holds where the next element is, either i+1 (sequential) or the next one
 * of a seeded random single-cycle permutation (Sattolo's algorithm), so every
 * element is visited exactly once per lap.  In global memory an element holds
 * the next element's device address (64-bit); in constant memory, the next
 * element's offset in the 64 KiB .const array (32-bit; the kernel adds the
 * array's address after the timed region).  One thread then
 *
 *   1. times the timer: 32 times {t0 = %clock64; st sink, v; t1 = %clock64},
 *      the timed sequence below without its load (the correction we subtract);
 *   2. walks the chain (warm-up: cold misses are not what we measure) for one
 *      lap, or for several if the chain is short -- which also lets a randomly
 *      replacing cache push out the lines earlier kernels left behind (an L2
 *      keeps its contents across launches);
 *   3. walks it again (several times if the chain is short: at least 4096
 *      timed accesses), timing each access as
 *          t0 = %clock64; v = ld [p]; st.u32 trace[i], v; t1 = %clock64
 *      (a 32-bit store of a 64-bit register keeps its low half, as PTX allows).
 *      The store *consumes* the loaded value, so the second clock read cannot
 *      issue before the data is back (a GPU issues in order but only waits for a
 *      load at its first use).  Every delta is counted in a histogram of 1-cycle
 *      buckets -- so the whole lap is in the statistics, not a window of it:
 *      just past a 4 MiB L2's capacity only one set in 4096 misses, and a window
 *      of the last few thousand accesses would hold two of its 34 misses -- and
 *      the last N deltas and values go to rings (the chronological trace);
 *   4. stores the final position, the sum of all values of the timed laps and
 *      the clocked region (the timed laps' %clock64 cycles against their
 *      %globaltimer nanoseconds: the effective SM clock), and copies a
 *      shared-memory scratch out.
 *
 * Where the scratch (calibration, histogram, rings, the sink) lives decides
 * what the card gives the kernel: since Volta the L1 and shared memory are one
 * storage split per kernel, and 33 KB of shared scratch forces a split with a
 * smaller L1 (a T4's 32 KiB instead of 64).  So the scratch is in global memory,
 * read and written with .cg -- the L2 only: the L1 being measured is never
 * touched, and the kernel declares no shared memory.  In the L2, though, its
 * few hundred lines would overflow sets at the L2's own capacity; from a
 * quarter of the L2 on (see chase_plan) the scratch is in shared memory as it
 * used to be, where the L1 can hold only a small share of the chain anyway.
 * Either way nothing the timed loads touch is disturbed.
 *
 * Decode subtracts the median calibration delta and checks the walk: the final
 * position must be the start again, the sum must equal laps x the sum of all
 * elements and the histogram must hold one count per timed access -- proof that
 * every element was visited.  Where opts.timed_accesses asks for fewer timed
 * accesses than whole laps (`--timed N`: the stride sweep at 1.5 x the L2,
 * where every access past the granule misses wherever in the lap it is, not a
 * footprint sweep near a capacity, where the paragraph above needs the whole
 * lap), the first N steps after the warm-up are timed and checked against
 * the element N steps along the chain and the sum of the N links.  Series: "cycles" (every timed access),
 * "recent_cycles" (the last N accesses in order), "timer_overhead",
 * "chain_base" (global: the chain's address, for the model).
 */
#include "kernels/chase.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/chase_layout.h"
#include "kernels/ptx_emit.h"
#include "kernels/timer.h"

#define CHASE_MIN_SAMPLES 64
#define CHASE_MAX_SAMPLES 2048       /* histogram + two rings fit the 48 KiB a CTA may use */
/* A short chain is timed for several laps, so that a small footprint still
 * gives enough accesses to see a rare miss (random replacement just past a
 * capacity misses once or twice a lap). */
#define CHASE_MIN_TIMED GD_CHASE_MIN_TIMED_ACCESSES
/* Warm-up accesses: one lap of a long chain; a short chain is walked until it
 * has had this many, so that a randomly replacing cache has pushed out the lines
 * earlier kernels left (each miss evicts a random way, so it takes many). */
#define CHASE_MIN_WARM GD_CHASE_MIN_WARM_ACCESSES
/* 2^22 dependent accesses at 1000 cycles each (more than a DRAM access with
 * an L1 TLB miss on any arch modelled) stay under 2^32 cycles, the
 * simulator's watchdog; on a card about 3 s at 1.5 GHz */
#define CHASE_MAX_ACCESSES_PER_LAUNCH (1ull << 22)
/* The most cache one chain element can hold: an L1 line (128 B on every GPU
 * since Fermi), when elements lie further apart than that. */
#define CHASE_LINE_BYTES_MAX GD_CHASE_LINE_BYTES_MAX
/* Expected machine code: ptxas gives 70-100 instructions (with padding) from
 * sm_75 to sm_90; far outside that means it unrolled, merged or dropped code. */
#define CHASE_MIN_SASS 48
#define CHASE_MAX_SASS 160
/* ... and the resumable kernel adds two copy loops and four loads */
#define CHASE_MAX_SASS_RESUMABLE 224

static size_t out_bytes(uint32_t ring)
{
    return OUT_SINK_AT((size_t)ring) + 8;
}

/* The pieces of PTX that depend on where the chain lives.  p is the current
 * position (%rd3 global, %r17 const), v the loaded value. */
typedef struct chase_asm {
    const char *decls;      /* module-scope declarations */
    const char *start;      /* set p to the first element */
    const char *step;       /* p = next element (untimed: warm-up) */
    const char *load;       /* v = ld [p], timed */
    const char *value;      /* the register holding v */
    const char *pos;        /* the register holding p */
    const char *advance;    /* p from v, after the timed region */
    const char *sum;        /* checksum += v */
    const char *final;      /* %rd3 = the final position (global: address; const: offset) */
} chase_asm;

static void chase_asm_for(gd_chase_space space, const char *cache_op, chase_asm *a)
{
    if (space == GD_CHASE_CONST) {
        a->decls = GD_CHASE_CONST_DECL;
        a->start = "    mov.u32 %r16, " GD_CHASE_CONST_SYMBOL ";\n"
                   "    mov.u32 %r17, %r16;\n";
        a->step = "    ld.const.u32 %r18, [%r17];\n"
                  "    add.s32 %r17, %r18, %r16;\n";
        a->load = "    ld.const.u32 %r18, [%r17];\n";
        a->value = "%r18";
        a->pos = "%r17";
        a->advance = "    add.s32 %r17, %r18, %r16;\n";
        a->sum = "    cvt.u64.u32 %rd7, %r18;\n"
                 "    add.s64 %rd4, %rd4, %rd7;\n";
        a->final = "    sub.s32 %r19, %r17, %r16;\n"
                   "    cvt.u64.u32 %rd3, %r19;\n";
        return;
    }
    a->decls = "";
    a->start = "    mov.u64 %rd3, %rd1;\n";
    /* the same line for warm-up and timed loads, with the cache operator */
    static char load[64];
    snprintf(load, sizeof load, "    ld.global.%s.u64 %%rd3, [%%rd3];\n", cache_op);
    a->step = load;
    a->load = load;
    a->value = "%rd3";
    a->pos = "%rd3";
    a->advance = "";
    a->sum = "    add.s64 %rd4, %rd4, %rd3;\n";
    a->final = "";
}

/* Where the scratch (calibration, histogram, rings, the sink) lives.  The
 * scratch is laid out as the output buffer (OUT_*), so in global memory it *is*
 * the output buffer and nothing is copied. */
typedef struct chase_scratch {
    const char *st;         /* the store's state space and cache operator */
    const char *ld;         /* the load's */
    const char *decl;       /* the shared array, or nothing */
    const char *base;       /* %rd16 = the scratch's first byte */
} chase_scratch;

static void chase_scratch_for(int in_shared, chase_scratch *s)
{
    if (in_shared) {
        s->st = "shared";
        s->ld = "shared";
        s->decl = "    .shared .align 8 .b8 gd_scratch[%u];\n";
        s->base = "    mov.u64 %%rd16, gd_scratch;\n";
        return;
    }
    /* .cg: the L2, never the L1 being measured (a store allocates no L1 line) */
    s->st = "global.cg";
    s->ld = "global.cg";
    s->decl = "";
    s->base = "    mov.u64 %%rd16, %%rd2;\n";
}

static char *chase_ptx(const gd_device_info *dev, gd_chase_space space, const char *cache_op,
                       uint32_t ring, int scratch_in_shared)
{
    chase_asm a;
    chase_asm_for(space, cache_op, &a);
    chase_scratch sc;
    chase_scratch_for(scratch_in_shared, &sc);
    /* the timed laps are also a clocked region: %clock64 against %globaltimer */
    gd_ptx region_start, region_stop;
    gd_ptx_init(&region_start);
    gd_ptx_init(&region_stop);
    gd_timer_ptx_region_start(&region_start, "%rd13", "%rd14");
    gd_timer_ptx_region_stop(&region_stop, "%rd13", "%rd14", "%rd15");
    char *start_ptx = gd_ptx_finish(&region_start);
    char *stop_ptx = gd_ptx_finish(&region_stop);
    if (!start_ptx || !stop_ptx) {
        free(start_ptx);
        free(stop_ptx);
        return NULL;
    }
    gd_ptx p;
    gd_ptx_init(&p);
    gd_ptx_header(&p, dev->cc_major, dev->cc_minor, 63);
    gd_ptx_printf(&p, "%s", a.decls);
    gd_ptx_printf(&p,
        ".visible .entry gd_chase(\n"
        "    .param .u64 gd_chase_chain,\n"
        "    .param .u64 gd_chase_out,\n"
        "    .param .u32 gd_chase_steps,\n"
        "    .param .u32 gd_chase_timed_steps,\n"
        "    .param .u32 gd_chase_warm_steps\n"
        ")\n"
        ".maxntid 1, 1, 1\n"
        "{\n"
        "    .reg .pred %%p<3>;\n"
        "    .reg .b32 %%r<20>;\n"
        "    .reg .b64 %%rd<20>;\n");
    if (scratch_in_shared)
        gd_ptx_printf(&p, sc.decl, (unsigned)out_bytes(ring));
    gd_ptx_printf(&p,
        "\n"
        "    ld.param.u64 %%rd1, [gd_chase_chain];\n"
        "    ld.param.u64 %%rd2, [gd_chase_out];\n"
        "    ld.param.u32 %%r1, [gd_chase_steps];\n"
        "    ld.param.u32 %%r14, [gd_chase_timed_steps];\n"
        "    ld.param.u32 %%r15, [gd_chase_warm_steps];\n"
        "%s", a.start);
    gd_ptx_printf(&p, sc.base);
    gd_ptx_printf(&p,
        "    add.s64 %%rd17, %%rd16, %u;   // the histogram\n"
        "\n"
        "    // 0. an empty histogram (the scratch starts undefined)\n"
        "    mov.u32 %%r2, 0;\n"
        "$L_zero:\n"
        "    .pragma \"nounroll\";\n"
        "    mul.wide.u32 %%rd5, %%r2, 4;\n"
        "    add.s64 %%rd6, %%rd17, %%rd5;\n"
        "    st.%s.u32 [%%rd6], 0;\n"
        "    add.s32 %%r2, %%r2, 1;\n"
        "    setp.lt.u32 %%p1, %%r2, %u;\n"
        "    @%%p1 bra $L_zero;\n"
        "\n"
        "    // 1. the cost of the timed sequence without its load\n"
        "    mov.u32 %%r2, 0;\n"
        "$L_calib:\n"
        "    .pragma \"nounroll\";\n"
        "    mov.u64 %%rd10, %%clock64;\n"
        "    st.%s.u32 [%%rd16+%u], %s;\n"
        "    mov.u64 %%rd11, %%clock64;\n"
        "    sub.s64 %%rd12, %%rd11, %%rd10;\n"
        "    cvt.u32.u64 %%r3, %%rd12;\n"
        "    mul.wide.u32 %%rd5, %%r2, 4;\n"
        "    add.s64 %%rd6, %%rd16, %%rd5;\n"
        "    st.%s.u32 [%%rd6+%u], %%r3;\n"
        "    add.s32 %%r2, %%r2, 1;\n"
        "    setp.lt.u32 %%p1, %%r2, %u;\n"
        "    @%%p1 bra $L_calib;\n"
        "\n"
        "    // 2. warm-up laps\n"
        "    mov.u32 %%r2, 0;\n"
        "$L_warm:\n"
        "    .pragma \"nounroll\";\n"
        "%s"
        "    add.s32 %%r2, %%r2, 1;\n"
        "    setp.lt.u32 %%p1, %%r2, %%r15;\n"
        "    @%%p1 bra $L_warm;\n"
        "    st.%s.u32 [%%rd16+%u], %s;   // wait for the last warm-up load\n"
        "\n"
        "    // 3. timed laps\n"
        "%s"
        "    mov.u32 %%r2, 0;\n"
        "    mov.u64 %%rd4, 0;\n"
        "    add.s64 %%rd18, %%rd16, %u;   // the rings: deltas, then values\n"
        "$L_timed:\n"
        "    .pragma \"nounroll\";\n"
        "    and.b32 %%r8, %%r2, %u;\n"
        "    mul.wide.u32 %%rd8, %%r8, 4;\n"
        "    add.s64 %%rd9, %%rd18, %%rd8;\n"
        "    mov.u64 %%rd10, %%clock64;\n"
        "%s"
        "    st.%s.u32 [%%rd9+%u], %s;   // consume the value: the trace\n"
        "    mov.u64 %%rd11, %%clock64;\n"
        "    sub.s64 %%rd12, %%rd11, %%rd10;\n"
        "    cvt.u32.u64 %%r3, %%rd12;\n"
        "    st.%s.u32 [%%rd9], %%r3;\n"
        "    min.u32 %%r11, %%r3, %u;\n"
        "    mul.wide.u32 %%rd19, %%r11, 4;\n"
        "    add.s64 %%rd19, %%rd19, %%rd17;\n"
        "    ld.%s.u32 %%r12, [%%rd19];\n"
        "    add.s32 %%r12, %%r12, 1;\n"
        "    st.%s.u32 [%%rd19], %%r12;\n"
        "%s"
        "%s"
        "    add.s32 %%r2, %%r2, 1;\n"
        "    setp.lt.u32 %%p1, %%r2, %%r14;\n"
        "    @%%p1 bra $L_timed;\n"
        "%s"
        "\n"
        "    // 4. results: final position, checksum, clocked region (and a shared\n"
        "    //    scratch copied out)\n"
        "%s"
        "    st.global.u64 [%%rd2], %%rd3;\n"
        "    st.global.u64 [%%rd2+8], %%rd4;\n"
        "    st.global.u64 [%%rd2+%u], %%rd13;\n"
        "    st.global.u64 [%%rd2+%u], %%rd14;\n",
        OUT_HIST, sc.st, CHASE_HIST_BUCKETS, sc.st, OUT_SINK, a.pos, sc.st, OUT_CALIB,
        CHASE_CALIBRATION_SAMPLES, a.step, sc.st, OUT_SINK, a.value, start_ptx, OUT_RING,
        ring - 1, a.load, sc.st, ring * 4, a.value, sc.st, CHASE_HIST_BUCKETS - 1, sc.ld, sc.st,
        a.advance, a.sum, stop_ptx, a.final, OUT_REGION_CYCLES, OUT_REGION_NS);
    free(start_ptx);
    free(stop_ptx);
    if (scratch_in_shared)
        gd_ptx_printf(&p,
            "    mov.u32 %%r2, %u;\n"
            "$L_copy:\n"
            "    .pragma \"nounroll\";\n"
            "    cvt.u64.u32 %%rd5, %%r2;\n"
            "    add.s64 %%rd6, %%rd16, %%rd5;\n"
            "    ld.shared.u32 %%r3, [%%rd6];\n"
            "    add.s64 %%rd7, %%rd2, %%rd5;\n"
            "    st.global.u32 [%%rd7], %%r3;\n"
            "    add.s32 %%r2, %%r2, 4;\n"
            "    setp.lt.u32 %%p1, %%r2, %u;\n"
            "    @%%p1 bra $L_copy;\n",
            OUT_CALIB, OUT_SINK);
    gd_ptx_printf(&p, "    ret;\n}\n");
    return gd_ptx_finish(&p);
}


static int chase_plan(gd_chase_space space, const char *probe, const gd_probe_opts *opts,
                      const gd_device_info *dev, uint64_t footprint, const uint64_t *order,
                      uint64_t order_count, gd_probe_plan *out, gd_err *err)
{
    memset(out, 0, sizeof *out);
    out->opts = *opts;
    gd_probe_opts *o = &out->opts;
    if (!o->stride_bytes)
        o->stride_bytes = GD_CHASE_DEFAULT_STRIDE;
    if (space == GD_CHASE_GLOBAL) {
        if (!o->variant[0])
            strcpy(o->variant, "ca");
        if (strcmp(o->variant, "ca") && strcmp(o->variant, "cg"))
            return gd_fail(err, "%s: unknown variant '%s' (expected ca or cg)", probe, o->variant);
        if (o->stride_bytes < 8 || o->stride_bytes % 8)
            return gd_fail(err, "%s: stride must be a multiple of 8 bytes (a pointer), got %llu",
                           probe, (unsigned long long)o->stride_bytes);
    } else {
        if (o->variant[0] && strcmp(o->variant, "const"))
            return gd_fail(err, "%s: unknown variant '%s' (constant memory has none)", probe,
                           o->variant);
        if (o->stride_bytes < 4 || o->stride_bytes % 4)
            return gd_fail(err, "%s: stride must be a multiple of 4 bytes (an offset), got %llu",
                           probe, (unsigned long long)o->stride_bytes);
        if (footprint > GD_CHASE_CONST_BYTES)
            return gd_fail(err, "%s: footprint %llu exceeds the %d-byte constant bank", probe,
                           (unsigned long long)footprint, GD_CHASE_CONST_BYTES);
    }
    if (!o->samples)
        o->samples = GD_CHASE_DEFAULT_SAMPLES;
    if (o->samples < CHASE_MIN_SAMPLES || o->samples > CHASE_MAX_SAMPLES ||
        (o->samples & (o->samples - 1)))
        return gd_fail(err, "%s: samples must be a power of two in [%d, %d], got %u", probe,
                       CHASE_MIN_SAMPLES, CHASE_MAX_SAMPLES, o->samples);
    uint64_t elements = order ? order_count : footprint / o->stride_bytes;
    if (elements < 1 || elements > UINT32_MAX)
        return gd_fail(err, "%s: footprint %llu bytes holds no %llu-byte element", probe,
                       (unsigned long long)footprint, (unsigned long long)o->stride_bytes);
    chase_state *st = calloc(1, sizeof *st);
    if (!st)
        return gd_fail(err, "%s: out of memory", probe);
    st->space = space;
    snprintf(st->probe, sizeof st->probe, "%s", probe);
    st->elements = elements;
    st->laps = (CHASE_MIN_TIMED + elements - 1) / elements;
    st->warm_laps = (CHASE_MIN_WARM + elements - 1) / elements;
    if (elements * st->laps > UINT32_MAX || elements * st->warm_laps > UINT32_MAX) {
        free(st);
        return gd_fail(err, "%s: %llu elements are too many for one lap counter", probe,
                       (unsigned long long)elements);
    }
    /* A point of more dependent accesses than CHASE_MAX_ACCESSES_PER_LAUNCH
     * is spread over launches of the resumable chase (the display watchdog's
     * mechanism, below) on any device, unless the runner asked for a split of
     * its own: a 4 x L2 chase at a 32-byte stride on a 40 MiB L2 is 8 million
     * accesses, past the simulator's 2^32-cycle watchdog in one launch (issue
     * 12).  The L1 is invalidated between launches: nothing for a chain that
     * long. */
    st->timed = elements * st->laps;
    if (o->timed_accesses && o->timed_accesses < st->timed)
        st->timed = o->timed_accesses;
    uint64_t dependent = elements * st->warm_laps + st->timed;
    if (o->launch_split < 2 && dependent > CHASE_MAX_ACCESSES_PER_LAUNCH)
        o->launch_split = (uint32_t)((dependent + CHASE_MAX_ACCESSES_PER_LAUNCH - 1) /
                                     CHASE_MAX_ACCESSES_PER_LAUNCH);
    st->ring = o->samples;
    uint64_t chain_bytes = elements * o->stride_bytes;
    if (order) {
        st->order = malloc(order_count * sizeof *st->order);
        if (!st->order) {
            free(st);
            return gd_fail(err, "%s: out of memory", probe);
        }
        chain_bytes = 0;
        for (uint64_t k = 0; k < order_count; k++) {
            st->order[k] = order[k];
            st->order_sum += order[k];
            if (order[k] + 8 > chain_bytes)
                chain_bytes = order[k] + 8;
        }
    }
    out->state = st;
    out->point = footprint;
    /* The scratch stays out of shared memory, so the kernel asks for none and
     * every carve-out is open to it (the L1 gets what the preference gives it,
     * not what the scratch leaves over).  In global memory it takes L2 lines,
     * though: where the chain's lines reach for the L2's capacity (from a
     * quarter of it: the near half of a split L2 included) those few lines
     * would be the ones that overflow a set, so there it moves to shared
     * memory, where the L1 holds too small a share of the chain to matter.  A
     * sparse chain (one line in a set, `--stride L1D`) counts its lines, not
     * its span. */
    uint64_t line_share = o->stride_bytes < CHASE_LINE_BYTES_MAX ? o->stride_bytes
                                                                : CHASE_LINE_BYTES_MAX;
    uint64_t chain_line_bytes = order ? order_count * CHASE_LINE_BYTES_MAX : elements * line_share;
    int scratch_in_shared = space == GD_CHASE_GLOBAL &&
                            gd_chase_scratch_in_shared(chain_line_bytes, dev->l2_bytes);
    out->ptx = chase_ptx(dev, space, o->variant, st->ring, scratch_in_shared);
    if (out->ptx && o->launch_split > 1)
        out->ptx = gd_chase_make_resumable(out->ptx, space, st->ring, scratch_in_shared);
    if (!out->ptx) {
        free(st->order);
        free(st);
        out->state = NULL;
        return gd_fail(err, "%s: out of memory", probe);
    }
    snprintf(out->entry, sizeof out->entry, "gd_chase");
    for (int i = 0; i < 3; i++)
        out->grid[i] = out->block[i] = 1;
    if (space == GD_CHASE_GLOBAL)
        out->buffers[0] = (gd_probe_buffer){.name = "chain",
                                            .bytes = chain_bytes,
                                            .host_fill = 1};
    else
        out->buffers[0] = (gd_probe_buffer){.name = "chain",
                                            .bytes = GD_CHASE_CONST_BYTES,
                                            .host_fill = 1,
                                            .symbol = GD_CHASE_CONST_SYMBOL};
    out->buffers[1] = (gd_probe_buffer){.name = "out", .bytes = out_bytes(st->ring), .copy_out = 1};
    out->buffer_count = 2;
    /* a constant chain is found by its symbol; the pointer parameter is unused */
    out->params[0] = space == GD_CHASE_GLOBAL
                         ? (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 0}
                         : (gd_probe_param){.kind = GD_PARAM_U64, .value = 0};
    out->params[1] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 1};
    out->params[2] = (gd_probe_param){.kind = GD_PARAM_U32, .value = elements};
    out->params[3] = (gd_probe_param){.kind = GD_PARAM_U32, .value = st->timed};
    out->params[4] = (gd_probe_param){.kind = GD_PARAM_U32, .value = elements * st->warm_laps};
    out->param_count = 5;
    out->code_min_instructions = CHASE_MIN_SASS;
    out->code_max_instructions = CHASE_MAX_SASS;
    /* one dependent load per step, warm-up and timed */
    out->dependent_accesses = elements * st->warm_laps + st->timed;
    if (o->launch_split > 1) {
        out->launches = o->launch_split;
        out->params[5] = (gd_probe_param){.kind = GD_PARAM_U32, .value = 0};
        out->param_count = 6;
        out->code_max_instructions = CHASE_MAX_SASS_RESUMABLE;
    }
    return 0;
}

int gd_chase_plan(gd_chase_space space, const char *probe, const gd_probe_opts *opts,
                  const gd_device_info *dev, uint64_t footprint, gd_probe_plan *out, gd_err *err)
{
    return chase_plan(space, probe, opts, dev, footprint, NULL, 0, out, err);
}

int gd_chase_plan_order(gd_chase_space space, const char *probe, const gd_probe_opts *opts,
                        const gd_device_info *dev, const uint64_t *order, uint64_t count,
                        uint64_t point, gd_probe_plan *out, gd_err *err)
{
    if (!count || order[0] != 0)
        return gd_fail(err, "%s: an explicit chain starts at offset 0", probe);
    /* a global element is a pointer, a constant one a 32-bit offset */
    uint64_t align = space == GD_CHASE_GLOBAL ? 8 : 4;
    for (uint64_t k = 0; k < count; k++) {
        if (order[k] % align)
            return gd_fail(err, "%s: chain offset %llu is not %llu-byte aligned", probe,
                           (unsigned long long)order[k], (unsigned long long)align);
        if (space == GD_CHASE_CONST && order[k] + 4 > GD_CHASE_CONST_BYTES)
            return gd_fail(err, "%s: chain offset %llu lies past the %d-byte constant bank",
                           probe, (unsigned long long)order[k], GD_CHASE_CONST_BYTES);
    }
    gd_probe_opts o = *opts;
    o.random_order = 0;
    if (chase_plan(space, probe, &o, dev, point, order, count, out, err) != 0)
        return -1;
    out->point = point;
    return 0;
}

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int gd_chase_permutation(uint64_t n, uint64_t seed, uint32_t *next)
{
    if (n == 0 || n > UINT32_MAX)
        return -1;
    /* Sattolo's algorithm: a uniformly random permutation with a single cycle */
    for (uint64_t i = 0; i < n; i++)
        next[i] = (uint32_t)i;
    uint64_t state = seed ? seed : 1;
    for (uint64_t i = n - 1; i > 0; i--) {
        uint64_t j = splitmix64(&state) % i;
        uint32_t t = next[i];
        next[i] = next[j];
        next[j] = t;
    }
    return 0;
}

/* Where element i points: its successor's address (global) or offset (const). */
static void put_link(const chase_state *st, uint8_t *chain, uint64_t i, uint64_t next_index,
                     uint64_t stride, uint64_t base)
{
    if (st->space == GD_CHASE_GLOBAL) {
        uint64_t next = base + next_index * stride;
        memcpy(chain + i * stride, &next, sizeof next);
    } else {
        uint32_t next = (uint32_t)(next_index * stride);
        memcpy(chain + i * stride, &next, sizeof next);
    }
}

int gd_chase_fill(const gd_probe_plan *plan, unsigned index, const gd_devptr *addresses,
                  void *host, gd_err *err)
{
    const chase_state *st = plan->state;
    if (index != 0)
        return gd_fail(err, "%s: no initial contents for buffer %u", st->probe, index);
    uint64_t n = st->elements, stride = plan->opts.stride_bytes, base = addresses[0];
    uint8_t *chain = host;
    if (st->order) {
        /* the k-th visit points to the (k+1)-th; an offset visited twice would
         * fork the walk, which gd_chase_plan_order's callers avoid */
        for (uint64_t k = 0; k < n; k++) {
            uint64_t next = base + st->order[(k + 1) % n];
            if (st->space == GD_CHASE_GLOBAL) {
                memcpy(chain + st->order[k], &next, sizeof next);
            } else {
                uint32_t off = (uint32_t)st->order[(k + 1) % n]; /* an offset, no base */
                memcpy(chain + st->order[k], &off, sizeof off);
            }
        }
        return 0;
    }
    if (!plan->opts.random_order) {
        for (uint64_t i = 0; i < n; i++)
            put_link(st, chain, i, (i + 1) % n, stride, base);
        return 0;
    }
    uint32_t *perm = malloc(n * sizeof *perm);
    if (!perm || gd_chase_permutation(n, plan->opts.seed, perm) != 0) {
        free(perm);
        return gd_fail(err, "%s: out of memory for a %llu-element permutation", st->probe,
                       (unsigned long long)n);
    }
    for (uint64_t i = 0; i < n; i++)
        put_link(st, chain, i, perm[i], stride, base);
    free(perm);
    return 0;
}

/* The first `steps` steps of a lap from element 0, as gd_chase_fill linked
 * the chain: the position they end at (*end) and the sum of the values they
 * load (*sum), each `base` plus the next visit's offset, as the kernel sums
 * them (modulo 2^64). */
static int chase_prefix_walk(const chase_state *st, const gd_probe_plan *plan, uint64_t base,
                             uint64_t steps, uint64_t *end, uint64_t *sum, gd_err *err)
{
    uint64_t n = st->elements, stride = plan->opts.stride_bytes;
    uint32_t *perm = NULL;
    if (!st->order && plan->opts.random_order) {
        perm = malloc(n * sizeof *perm);
        if (!perm || gd_chase_permutation(n, plan->opts.seed, perm) != 0) {
            free(perm);
            return gd_fail(err, "%s: out of memory for a %llu-element permutation", st->probe,
                           (unsigned long long)n);
        }
    }
    uint64_t s = 0, e = 0, off = 0; /* e: the element visited, off: its offset */
    for (uint64_t k = 0; k < steps; k++) {
        if (st->order) {
            off = st->order[(k + 1) % n];
        } else {
            e = perm ? perm[e] : (e + 1) % n;
            off = e * stride;
        }
        s += base + off;
    }
    free(perm);
    *end = base + off;
    *sum = s;
    return 0;
}

int gd_chase_decode(const gd_probe_plan *plan, const gd_devptr *addresses, void *const *host,
                    gd_probe_result *out, gd_err *err)
{
    const chase_state *st = plan->state;
    const uint8_t *buf = host[1];
    uint64_t final_pos, checksum;
    memcpy(&final_pos, buf, 8);
    memcpy(&checksum, buf + 8, 8);
    uint64_t n = st->elements, stride = plan->opts.stride_bytes;
    uint64_t base = st->space == GD_CHASE_GLOBAL ? addresses[0] : 0;
    uint64_t timed = st->timed, expect = 0;
    if (timed == n * st->laps) {
        if (final_pos != base)
            return gd_fail(err, "%s: the walk over %llu elements ended at 0x%llx, not at the "
                                "start 0x%llx: the device did not follow the chain",
                           st->probe, (unsigned long long)n, (unsigned long long)final_pos,
                           (unsigned long long)base);
        expect = st->order ? (n * base + st->order_sum) * st->laps
                           : (n * base + stride * (n * (n - 1) / 2)) * st->laps;
    } else {
        /* the start of a lap: where those steps end and what they read, from the
         * chain's order (the warm-up laps end where they began) */
        uint64_t end = 0;
        if (chase_prefix_walk(st, plan, base, timed, &end, &expect, err) != 0)
            return -1;
        if (final_pos != end)
            return gd_fail(err, "%s: %llu steps along the chain ended at 0x%llx, not at 0x%llx: "
                                "the device did not follow the chain",
                           st->probe, (unsigned long long)timed, (unsigned long long)final_pos,
                           (unsigned long long)end);
    }
    if (checksum != expect)
        return gd_fail(err, "%s: the sum of visited elements is 0x%llx, expected 0x%llx: some "
                            "elements were not visited",
                       st->probe, (unsigned long long)checksum, (unsigned long long)expect);
    uint64_t counted = 0;
    for (int b = 0; b < CHASE_HIST_BUCKETS; b++) {
        uint32_t c;
        memcpy(&c, buf + OUT_HIST + 4 * b, 4);
        counted += c;
    }
    if (counted != timed)
        return gd_fail(err, "%s: the histogram counts %llu accesses, the timed laps have %llu",
                       st->probe, (unsigned long long)counted, (unsigned long long)timed);

    double overhead = gd_timer_median_u32(buf + OUT_CALIB, CHASE_CALIBRATION_SAMPLES);

    uint64_t recent = timed < st->ring ? timed : st->ring;
    gd_series *cycles = gd_probe_result_add(out, "cycles", timed);
    gd_series *recent_series = gd_probe_result_add(out, "recent_cycles", recent);
    gd_series *overhead_series = gd_probe_result_add(out, "timer_overhead", 1);
    gd_series *base_series = gd_probe_result_add(out, "chain_base", 1);
    if (!cycles || !recent_series || !overhead_series || !base_series)
        return gd_fail(err, "%s: out of memory for %llu samples", st->probe,
                       (unsigned long long)timed);
    /* the histogram, expanded: every access of the timed laps */
    size_t k = 0;
    for (int b = 0; b < CHASE_HIST_BUCKETS; b++) {
        uint32_t c;
        memcpy(&c, buf + OUT_HIST + 4 * b, 4);
        for (uint32_t i = 0; i < c; i++)
            cycles->samples[k++] = (double)b - overhead;
    }
    /* chronological order: the ring slot of access i is i mod ring */
    uint64_t first = timed > st->ring ? timed % st->ring : 0;
    for (uint64_t i = 0; i < recent; i++) {
        uint32_t v;
        memcpy(&v, buf + OUT_RING + 4 * ((first + i) % st->ring), 4);
        recent_series->samples[i] = (double)v - overhead;
    }
    overhead_series->samples[0] = overhead;
    base_series->samples[0] = (double)base; /* exact below 2^53: where the chain lived, for the model */
    uint64_t region_cycles, region_ns;
    memcpy(&region_cycles, buf + OUT_REGION_CYCLES, 8);
    memcpy(&region_ns, buf + OUT_REGION_NS, 8);
    if (gd_timer_add_clock_series(out, region_cycles, region_ns) != 0)
        return gd_fail(err, "%s: out of memory", st->probe);
    return 0;
}

void gd_chase_release(gd_probe_plan *plan)
{
    chase_state *st = plan->state;
    if (st)
        free(st->order);
    free(plan->state);
    plan->state = NULL;
}
