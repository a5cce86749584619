/* icache_seq.c -- instruction-cache CPI vs sequence length (Jia et al. 2019,
 * sec. 3.3, their Fig. 3.6).
 *
 * One thread runs a loop whose body is a straight-line block of L instructions
 * between two clock reads, 1 + N times; the first pass brings the code in (cold
 * misses are not what we measure), the N timed passes give the samples.  While
 * the loop fits a level of the instruction-cache hierarchy, every pass is served
 * from it, and the cycles per instruction (CPI) sit on that level's plateau: ~1
 * from the L0 (per sub-partition on Volta/Turing), higher from the L1 (per SM),
 * higher still from the L2.  The knees are the capacities.
 *
 * The sweep value is the code the loop occupies, in bytes (16 per instruction
 * on sm_70 and later): the block plus the loop's own LOOP_OVERHEAD instructions
 * (clock reads, the store of the delta, the counter and the branch), so that a
 * knee is directly a capacity.  --samples sets N (default 8); --warm W runs W
 * untimed passes instead of one first (a randomly replacing cache holds a
 * loop that fits only after many passes: each miss evicts a random line, the
 * loop's own included -- the suite's icache-warm step, analysis/infer_icache.c).
 *
 * Variants:
 *   ffma  the block is FFMA instructions on 8 independent chains (ffma_block.h);
 *   nop   the same kernel, whose FFMA block the device rewrites into NOPs of the
 *         same size when it loads it (gd_load_opts: on a GPU in the cubin --
 *         kernels/sass_patch.c --, in the simulator on the parsed PTX), as Jia
 *         et al. did on Volta and Turing, where ptxas puts stalls between FFMAs
 *         (a 2-cycle stall on sm_75/sm_80: the FFMA variant cannot go below CPI
 *         2 there, the NOPs run at 1).  Only where the patch is verified
 *         (gd_sass_nop_patch_refusal: sm_75..sm_90): elsewhere -- sm_100 and
 *         later, whose cubins carry code the driver may regenerate, and sm_70
 *         -- the plan falls back to ffma, says so in plan->note ("patch
 *         refused: ...", into meta.json and the report) and resolves the
 *         variant to "ffma".  The decision follows the compute capability
 *         alone, so a simulated GPU runs what the card would.
 * A calibration pass with an empty block measures the cost of the clock reads,
 * which is subtracted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/ffma_block.h"
#include "kernels/probe.h"
#include "kernels/ptx_emit.h"
#include "kernels/sass_patch.h"
#include "kernels/timer.h"

#define LOOP_OVERHEAD GD_ICACHE_LOOP_INSTRUCTIONS
#define DEFAULT_SAMPLES 8
#define MAX_SAMPLES 64
#define CALIB_PASSES 4
/* Expected machine code besides the block: setup, calibration, loop, fold. */
#define SASS_EXTRA_MIN 24
#define SASS_EXTRA_MAX 120

typedef struct icache_state {
    uint32_t length;     /* L: instructions in the block */
    uint32_t warm;       /* untimed passes first (--warm, default 1) */
    uint32_t passes;     /* warm + samples */
} icache_state;

#define OUT_SUM 0
#define OUT_CALIB 8
#define OUT_DELTA (OUT_CALIB + 4 * CALIB_PASSES)

static char *icache_ptx(const gd_device_info *dev, uint32_t length)
{
    gd_ptx p;
    gd_ptx_init(&p);
    gd_ptx_header(&p, dev->cc_major, dev->cc_minor, 63);
    gd_ptx_printf(&p,
        ".visible .entry gd_icache_seq(\n"
        "    .param .u64 gd_icache_out,\n"
        "    .param .u32 gd_icache_passes,\n"
        "    .param .f32 gd_icache_seed,\n"
        "    .param .f32 gd_icache_mul,\n"
        "    .param .f32 gd_icache_add\n"
        ")\n"
        ".maxntid 1, 1, 1\n"
        "{\n"
        "    .reg .pred %%p<2>;\n"
        "    .reg .b32 %%r<8>;\n"
        "    .reg .b64 %%rd<10>;\n"
        "    .reg .f32 %%f<4>;\n");
    gd_ffma_decls(&p);
    gd_ptx_printf(&p,
        "    ld.param.u64 %%rd1, [gd_icache_out];\n"
        "    ld.param.u32 %%r2, [gd_icache_passes];\n"
        "    ld.param.f32 %%f1, [gd_icache_seed];\n"
        "    ld.param.f32 %%f2, [gd_icache_mul];\n"
        "    ld.param.f32 %%f3, [gd_icache_add];\n");
    gd_ffma_init(&p, "%f1", "%f2", "%f3");
    gd_ptx_printf(&p,
        "\n"
        "    // the clock reads alone\n"
        "    mov.u32 %%r1, 0;\n"
        "$L_calib:\n"
        "    .pragma \"nounroll\";\n"
        "    mov.u64 %%rd4, %%clock64;\n"
        "    mov.u64 %%rd5, %%clock64;\n"
        "    sub.s64 %%rd6, %%rd5, %%rd4;\n"
        "    cvt.u32.u64 %%r3, %%rd6;\n"
        "    mul.wide.u32 %%rd7, %%r1, 4;\n"
        "    add.s64 %%rd8, %%rd1, %%rd7;\n"
        "    st.global.u32 [%%rd8+%d], %%r3;\n"
        "    add.u32 %%r1, %%r1, 1;\n"
        "    setp.lt.u32 %%p1, %%r1, %d;\n"
        "    @%%p1 bra $L_calib;\n"
        "\n"
        "    // 1 + N passes over the block; the first is not used\n"
        "    mov.u32 %%r1, 0;\n"
        "$L_pass:\n"
        "    .pragma \"nounroll\";\n"
        "    mov.u64 %%rd4, %%clock64;\n",
        OUT_CALIB, CALIB_PASSES);
    gd_ffma_block(&p, length);
    gd_ptx_printf(&p,
        "    mov.u64 %%rd5, %%clock64;\n"
        "    sub.s64 %%rd6, %%rd5, %%rd4;\n"
        "    cvt.u32.u64 %%r3, %%rd6;\n"
        "    mul.wide.u32 %%rd7, %%r1, 4;\n"
        "    add.s64 %%rd8, %%rd1, %%rd7;\n"
        "    st.global.u32 [%%rd8+%d], %%r3;\n"
        "    add.u32 %%r1, %%r1, 1;\n"
        "    setp.lt.u32 %%p1, %%r1, %%r2;\n"
        "    @%%p1 bra $L_pass;\n"
        "\n",
        OUT_DELTA);
    gd_ffma_fold(&p);
    gd_ptx_printf(&p,
        "    st.global.f32 [%%rd1], %s;\n"
        "    ret;\n"
        "}\n",
        GD_FFMA_SUM);
    return gd_ptx_finish(&p);
}

static int icache_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                       gd_probe_plan *out, gd_err *err)
{
    memset(out, 0, sizeof *out);
    out->opts = *opts;
    gd_probe_opts *o = &out->opts;
    if (!o->variant[0])
        strcpy(o->variant, "ffma");
    int nop = !strcmp(o->variant, "nop");
    if (!nop && strcmp(o->variant, "ffma"))
        return gd_fail(err, "icache_seq: unknown variant '%s' (expected ffma or nop)", o->variant);
    char refusal[GD_SASS_REFUSAL_BYTES];
    if (nop && gd_sass_nop_patch_refusal(dev->cc_major * 10 + dev->cc_minor, refusal,
                                         sizeof refusal)) {
        nop = 0;
        strcpy(o->variant, "ffma");
        snprintf(out->note, sizeof out->note, "icache_seq nop: %s; ran the ffma variant",
                 refusal);
    }
    if (!o->samples)
        o->samples = DEFAULT_SAMPLES;
    if (o->samples > MAX_SAMPLES)
        return gd_fail(err, "icache_seq: at most %d samples, got %u", MAX_SAMPLES, o->samples);
    o->stride_bytes = GD_INSTRUCTION_BYTES;
    uint64_t insns = point / GD_INSTRUCTION_BYTES;
    if (insns <= LOOP_OVERHEAD || insns > (1u << 22))
        return gd_fail(err, "icache_seq: %llu bytes of code is outside (%d, %u] (the loop's own "
                            "%d instructions, plus at least one)",
                       (unsigned long long)point, LOOP_OVERHEAD * GD_INSTRUCTION_BYTES,
                       (1u << 22) * GD_INSTRUCTION_BYTES, LOOP_OVERHEAD);
    icache_state *st = calloc(1, sizeof *st);
    if (!st)
        return gd_fail(err, "icache_seq: out of memory");
    st->length = (uint32_t)(insns - LOOP_OVERHEAD);
    st->warm = o->warm_passes ? o->warm_passes : 1;
    if (st->warm > GD_PROBE_MAX_WARM_PASSES) {
        free(st);
        return gd_fail(err, "icache_seq: at most %d warm passes, got %u", GD_PROBE_MAX_WARM_PASSES,
                       o->warm_passes);
    }
    st->passes = st->warm + o->samples;
    out->state = st;
    out->point = point;
    out->ptx = icache_ptx(dev, st->length);
    if (!out->ptx) {
        uint32_t length = st->length;
        free(st);
        out->state = NULL;
        return gd_fail(err, "icache_seq: out of memory for %u instructions of PTX", length);
    }
    snprintf(out->entry, sizeof out->entry, "gd_icache_seq");
    for (int i = 0; i < 3; i++)
        out->grid[i] = out->block[i] = 1;
    out->buffers[0] = (gd_probe_buffer){.name = "out",
                                        .bytes = OUT_DELTA + 4 * (size_t)st->passes,
                                        .copy_out = 1};
    out->buffer_count = 1;
    out->params[0] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 0};
    out->params[1] = (gd_probe_param){.kind = GD_PARAM_U32, .value = st->passes};
    out->param_count = 2 + gd_ffma_params(out->params + 2);
    out->intended_instructions = st->length;
    out->code_min_instructions = st->length + SASS_EXTRA_MIN;
    out->code_max_instructions = st->length + SASS_EXTRA_MAX;
    if (nop)
        out->load = (gd_load_opts){.patch = GD_PATCH_FFMA_TO_NOP, .patch_count = st->length};
    return 0;
}

static int icache_fill(const gd_probe_plan *plan, unsigned index, const gd_devptr *addresses,
                       void *host, gd_err *err)
{
    (void)plan, (void)addresses, (void)host;
    return gd_fail(err, "icache_seq: buffer %u has no initial contents", index);
}

static int icache_decode(const gd_probe_plan *plan, const gd_devptr *addresses,
                         void *const *host, gd_probe_result *out, gd_err *err)
{
    (void)addresses;
    const icache_state *st = plan->state;
    const uint8_t *buf = host[0];
    /* the fastest: the clock reads with nothing in between */
    double overhead = gd_timer_min_u32(buf + OUT_CALIB, CALIB_PASSES);
    uint32_t n = st->passes - st->warm;
    gd_series *cpi = gd_probe_result_add(out, "cpi", n);
    gd_series *cycles = gd_probe_result_add(out, "cycles", n);
    gd_series *ov = gd_probe_result_add(out, "timer_overhead", 1);
    gd_series *len = gd_probe_result_add(out, "instructions", 1);
    if (!cpi || !cycles || !ov || !len)
        return gd_fail(err, "icache_seq: out of memory");
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v;
        memcpy(&v, buf + OUT_DELTA + 4 * (i + st->warm), 4);
        if ((double)v < overhead + st->length * 0.25)
            return gd_fail(err, "icache_seq: pass %u of %u instructions took %u cycles: fewer "
                                "than one per four instructions, the block was not executed",
                           i + 1, st->length, v);
        cycles->samples[i] = (double)v - overhead;
        cpi->samples[i] = cycles->samples[i] / st->length;
    }
    ov->samples[0] = overhead;
    len->samples[0] = st->length;
    return 0;
}

static const char *const icache_variants[] = {"ffma", "nop", NULL};

const gd_probe gd_probe_icache_seq = {
    .name = "icache_seq",
    .summary = "straight-line FFMA/NOP sequence: CPI vs code size (L0I, L1I, L15I, L2)",
    .sweep_name = "code_bytes",
    .value_unit = "cycles per instruction",
    .aggregate_samples = 1,
    .primary_series = "cpi",
    .default_stride_bytes = GD_INSTRUCTION_BYTES,
    .variants = icache_variants,
    .example_point = 4096,
    .plan = icache_plan,
    .fill = icache_fill,
    .decode = icache_decode,
    .release = gd_probe_free_state,
};
