/* const_bcast.c -- constant-cache broadcast and serialization: the latency of
 * one warp's ld.const when its 32 lanes read k distinct addresses (Jia et al.
 * 2019, sec. 3.4, their Fig. 3.9).
 *
 * Lane i reads word (i mod k) of the module's .const array: k = 1 is a
 * warp-uniform address (broadcast to every lane in one access), k = 32 is one
 * address per lane.  Each word holds its own offset, and the next load's
 * address is the value the last one returned: a load from a fixed address of
 * read-only memory would be hoisted out of the loop by ptxas (it was, before
 * tests/test_ptxas_icache.c caught it), a data-dependent one cannot be.  The k words lie in one or two 64-byte lines, which the
 * warm-up brings into the L1 constant cache, so every timed access is an L1 hit
 * and only the number of distinct addresses changes.  The timed sequence is the
 * p-chase's: clock, load, a shared store that consumes the value in every lane,
 * clock; a calibration without the load is subtracted.  The sweep value is k;
 * --samples sets the timed repetitions (default 32).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/chase.h"
#include "kernels/probe.h"
#include "kernels/ptx_emit.h"
#include "kernels/timer.h"

#define BCAST_WARM 4
#define BCAST_CALIB 16
#define DEFAULT_SAMPLES 32
#define MAX_SAMPLES 256
/* ptxas: about 60-90 instructions (padding included) from sm_75 to sm_90 */
#define BCAST_MIN_SASS 32
#define BCAST_MAX_SASS 160

#define OUT_CHECK 0
#define OUT_CALIB 128
#define OUT_DELTA (OUT_CALIB + 4 * BCAST_CALIB)

typedef struct bcast_state {
    uint32_t k, reps;
} bcast_state;

static char *bcast_ptx(const gd_device_info *dev, uint32_t reps)
{
    gd_ptx p;
    gd_ptx_init(&p);
    gd_ptx_header(&p, dev->cc_major, dev->cc_minor, 63);
    gd_ptx_printf(&p, "%s", GD_CHASE_CONST_DECL);
    gd_ptx_printf(&p,
        ".visible .entry gd_const_bcast(\n"
        "    .param .u64 gd_bcast_out,\n"
        "    .param .u32 gd_bcast_k\n"
        ")\n"
        ".maxntid 32, 1, 1\n"
        "{\n"
        "    .reg .pred %%p<3>;\n"
        "    .reg .b32 %%r<16>;\n"
        "    .reg .b64 %%rd<10>;\n"
        "    .shared .align 4 .b8 gd_sink[128];\n"
        "\n"
        "    ld.param.u64 %%rd1, [gd_bcast_out];\n"
        "    ld.param.u32 %%r1, [gd_bcast_k];\n"
        "    mov.u32 %%r2, %%tid.x;\n"
        "    rem.u32 %%r3, %%r2, %%r1;\n"
        "    shl.b32 %%r4, %%r3, 2;\n"
        "    mov.u32 %%r5, %s;\n"
        "    add.s32 %%r6, %%r5, %%r4;          // this lane's word\n"
        "    shl.b32 %%r7, %%r2, 2;\n"
        "    mov.u32 %%r8, gd_sink;\n"
        "    add.s32 %%r8, %%r8, %%r7;          // this lane's sink\n"
        "    setp.eq.u32 %%p2, %%r2, 0;\n"
        "\n"
        "    // warm-up: the k words into the L1 constant cache\n"
        "    mov.u32 %%r9, 0;\n"
        "$L_warm:\n"
        "    .pragma \"nounroll\";\n"
        "    ld.const.u32 %%r10, [%%r6];\n"
        "    st.shared.u32 [%%r8], %%r10;\n"
        "    add.s32 %%r6, %%r5, %%r10;         // the word holds its own offset\n"
        "    add.u32 %%r9, %%r9, 1;\n"
        "    setp.lt.u32 %%p1, %%r9, %d;\n"
        "    @%%p1 bra $L_warm;\n"
        "    // each lane returns what it read: proof of the addresses\n"
        "    mul.wide.u32 %%rd2, %%r7, 1;\n"
        "    add.s64 %%rd3, %%rd1, %%rd2;\n"
        "    st.global.u32 [%%rd3+%d], %%r10;\n"
        "\n"
        "    // the timed sequence without its load\n"
        "    mov.u32 %%r9, 0;\n"
        "$L_calib:\n"
        "    .pragma \"nounroll\";\n"
        "    mov.u64 %%rd4, %%clock64;\n"
        "    st.shared.u32 [%%r8], %%r9;\n"
        "    mov.u64 %%rd5, %%clock64;\n"
        "    sub.s64 %%rd6, %%rd5, %%rd4;\n"
        "    cvt.u32.u64 %%r11, %%rd6;\n"
        "    mul.wide.u32 %%rd7, %%r9, 4;\n"
        "    add.s64 %%rd8, %%rd1, %%rd7;\n"
        "    @%%p2 st.global.u32 [%%rd8+%d], %%r11;\n"
        "    add.u32 %%r9, %%r9, 1;\n"
        "    setp.lt.u32 %%p1, %%r9, %d;\n"
        "    @%%p1 bra $L_calib;\n"
        "\n"
        "    // timed: clock, load, consume, clock\n"
        "    mov.u32 %%r9, 0;\n"
        "$L_timed:\n"
        "    .pragma \"nounroll\";\n"
        "    mov.u64 %%rd4, %%clock64;\n"
        "    ld.const.u32 %%r10, [%%r6];\n"
        "    st.shared.u32 [%%r8], %%r10;\n"
        "    mov.u64 %%rd5, %%clock64;\n"
        "    add.s32 %%r6, %%r5, %%r10;\n"
        "    sub.s64 %%rd6, %%rd5, %%rd4;\n"
        "    cvt.u32.u64 %%r11, %%rd6;\n"
        "    mul.wide.u32 %%rd7, %%r9, 4;\n"
        "    add.s64 %%rd8, %%rd1, %%rd7;\n"
        "    @%%p2 st.global.u32 [%%rd8+%d], %%r11;\n"
        "    add.u32 %%r9, %%r9, 1;\n"
        "    setp.lt.u32 %%p1, %%r9, %u;\n"
        "    @%%p1 bra $L_timed;\n"
        "    ret;\n"
        "}\n",
        GD_CHASE_CONST_SYMBOL, BCAST_WARM, OUT_CHECK, OUT_CALIB, BCAST_CALIB, OUT_DELTA, reps);
    return gd_ptx_finish(&p);
}

static int bcast_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                      gd_probe_plan *out, gd_err *err)
{
    memset(out, 0, sizeof *out);
    out->opts = *opts;
    gd_probe_opts *o = &out->opts;
    if (o->variant[0] && strcmp(o->variant, "const"))
        return gd_fail(err, "const_bcast: unknown variant '%s' (it has none)", o->variant);
    if (point < 1 || point > 32)
        return gd_fail(err, "const_bcast: %llu distinct addresses per warp is outside 1..32",
                       (unsigned long long)point);
    if (!o->samples)
        o->samples = DEFAULT_SAMPLES;
    if (o->samples > MAX_SAMPLES)
        return gd_fail(err, "const_bcast: at most %d samples, got %u", MAX_SAMPLES, o->samples);
    o->stride_bytes = 4;
    bcast_state *st = calloc(1, sizeof *st);
    if (!st)
        return gd_fail(err, "const_bcast: out of memory");
    st->k = (uint32_t)point;
    st->reps = o->samples;
    out->state = st;
    out->point = point;
    out->ptx = bcast_ptx(dev, st->reps);
    if (!out->ptx) {
        free(st);
        out->state = NULL;
        return gd_fail(err, "const_bcast: out of memory");
    }
    snprintf(out->entry, sizeof out->entry, "gd_const_bcast");
    out->grid[0] = out->grid[1] = out->grid[2] = 1;
    out->block[0] = 32;
    out->block[1] = out->block[2] = 1;
    out->buffers[0] = (gd_probe_buffer){.name = "words",
                                        .bytes = GD_CHASE_CONST_BYTES,
                                        .host_fill = 1,
                                        .symbol = GD_CHASE_CONST_SYMBOL};
    out->buffers[1] = (gd_probe_buffer){.name = "out",
                                        .bytes = OUT_DELTA + 4 * (size_t)st->reps,
                                        .copy_out = 1};
    out->buffer_count = 2;
    out->params[0] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 1};
    out->params[1] = (gd_probe_param){.kind = GD_PARAM_U32, .value = st->k};
    out->param_count = 2;
    out->code_min_instructions = BCAST_MIN_SASS;
    out->code_max_instructions = BCAST_MAX_SASS;
    return 0;
}

/* word i holds its own offset, 4 i: the next address, and proof of the word read */
static int bcast_fill(const gd_probe_plan *plan, unsigned index, const gd_devptr *addresses,
                      void *host, gd_err *err)
{
    (void)plan, (void)addresses;
    if (index != 0)
        return gd_fail(err, "const_bcast: no initial contents for buffer %u", index);
    uint32_t *w = host;
    for (uint32_t i = 0; i < GD_CHASE_CONST_BYTES / 4; i++)
        w[i] = 4 * i;
    return 0;
}

static int bcast_decode(const gd_probe_plan *plan, const gd_devptr *addresses,
                        void *const *host, gd_probe_result *out, gd_err *err)
{
    (void)addresses;
    const bcast_state *st = plan->state;
    const uint8_t *buf = host[1];
    for (uint32_t lane = 0; lane < 32; lane++) {
        uint32_t v;
        memcpy(&v, buf + OUT_CHECK + 4 * lane, 4);
        if (v != 4 * (lane % st->k))
            return gd_fail(err, "const_bcast: lane %u read %u, expected word %u (%u): the "
                                "device did not load the addresses asked for",
                           lane, v, lane % st->k, 4 * (lane % st->k));
    }
    double overhead = gd_timer_median_u32(buf + OUT_CALIB, BCAST_CALIB);
    gd_series *cycles = gd_probe_result_add(out, "cycles", st->reps);
    gd_series *ov = gd_probe_result_add(out, "timer_overhead", 1);
    if (!cycles || !ov)
        return gd_fail(err, "const_bcast: out of memory");
    for (uint32_t i = 0; i < st->reps; i++) {
        uint32_t v;
        memcpy(&v, buf + OUT_DELTA + 4 * i, 4);
        cycles->samples[i] = (double)v - overhead;
    }
    ov->samples[0] = overhead;
    return 0;
}

static const char *const bcast_variants[] = {"const", NULL};

const gd_probe gd_probe_const_bcast = {
    .name = "const_bcast",
    .summary = "constant load latency vs distinct addresses per warp (broadcast, serialization)",
    .sweep_name = "distinct_addresses",
    .value_unit = "cycles",
    .default_stride_bytes = 1,
    .variants = bcast_variants,
    .example_point = 4,
    .plan = bcast_plan,
    .fill = bcast_fill,
    .decode = bcast_decode,
    .release = gd_probe_free_state,
};
