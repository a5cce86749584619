/* const_icache_share.c -- do the L1.5 constant cache and the L1 instruction
 * cache share storage?  (Jia et al. 2019, sec. 3.4, their Fig. 3.8.)
 *
 * One thread, 1 + R rounds (the first, whose reference walk finds the victim
 * cold, is not reported) of:
 *   1. walk the victim, a chain through V bytes of the module's .const array
 *      with 256-byte steps (the L1.5 constant line of every GPU examined) --
 *      bringing it into the L1.5, and timing each access (the reference: L1.5
 *      hits, a few L1 constant hits);
 *   2. run the attacker: a straight-line block of A bytes of FFMA instructions,
 *      fetched through the instruction caches;
 *   3. walk the victim again, timing each access.
 * An access of step 3 that takes more than the median of step 1 plus
 * GD_TIMER_MISS_MARGIN cycles (or twice the step's own spread, p95 - median, if
 * wider; never more than 1.5 times the median) has left the L1.5.  Its next
 * level, the L2, is twice as far or more on every GPU in Jia et al.'s table,
 * but not on every GPU: generated seed 1068's L2 constant latency is 122
 * cycles behind an L1.5 of 82, and the 1.5x threshold (126) called every miss
 * a hit, the shared L1.5 "separate".  If instructions and constants share the structure,
 * the victim's miss rate climbs from 0 to 100% once A + V exceeds it; if not,
 * it stays at 0 whatever A.  The sweep value is A in bytes; --footprint sets V
 * (default 8 KiB: far above the 2 KiB L1 constant cache, well within an L1.5).
 * Series: "miss_rate" (one per round), "victim_cycles" and "reference_cycles"
 * (every access of steps 3 and 1).
 *
 * Variant "line": the victim steps 64 bytes (the L1 constant line) instead of
 * 256, so that several of its accesses fall in one L1.5 line.  Once the code
 * has evicted the whole victim, only the first access to each L1.5 line goes
 * to the L2 and the others hit the line it brought back: the miss rate
 * settles at 64 / (the L1.5 line) -- 1/4 for 256-byte lines.  That is how the
 * L1.5 line is measured where one 64 KiB bank cannot overflow the L1.5 for a
 * stride sweep (V100); a victim of 32 KiB has 128 such lines, so the few the
 * L1 constant cache may still hold move the rate by under 7%.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/chase.h"
#include "kernels/ffma_block.h"
#include "kernels/probe.h"
#include "kernels/ptx_emit.h"
#include "kernels/timer.h"

#define SHARE_STRIDE 256
#define SHARE_LINE_STRIDE 64  /* variant line: the L1 constant line of every GPU examined */
#define SHARE_DEFAULT_VICTIM (8 * 1024)
#define SHARE_ROUNDS 4     /* reported rounds; one more runs first (a cold reference) */
#define SHARE_RUNS (SHARE_ROUNDS + 1)
#define SASS_EXTRA_MIN 40
#define SASS_EXTRA_MAX 200

typedef struct share_state {
    uint32_t stride;   /* victim bytes per access */
    uint32_t length;   /* attacker instructions */
    uint32_t elements; /* victim accesses per walk */
} share_state;

/* out: [0] checksum, then per round: elements reference deltas, elements victim deltas */
#define OUT_DATA 16

static char *share_ptx(const gd_device_info *dev, uint32_t length)
{
    gd_ptx p;
    gd_ptx_init(&p);
    gd_ptx_header(&p, dev->cc_major, dev->cc_minor, 63);
    gd_ptx_printf(&p, "%s", GD_CHASE_CONST_DECL);
    gd_ptx_printf(&p,
        ".visible .entry gd_const_icache_share(\n"
        "    .param .u64 gd_share_out,\n"
        "    .param .u32 gd_share_elements,\n"
        "    .param .u32 gd_share_rounds,\n"
        "    .param .f32 gd_share_seed,\n"
        "    .param .f32 gd_share_mul,\n"
        "    .param .f32 gd_share_add\n"
        ")\n"
        ".maxntid 1, 1, 1\n"
        "{\n"
        "    .reg .pred %%p<3>;\n"
        "    .reg .b32 %%r<20>;\n"
        "    .reg .b64 %%rd<16>;\n"
        "    .reg .f32 %%f<4>;\n"
        "    .shared .align 4 .b8 gd_sink[8];\n");
    gd_ffma_decls(&p);
    gd_ptx_printf(&p,
        "    ld.param.u64 %%rd1, [gd_share_out];\n"
        "    ld.param.u32 %%r1, [gd_share_elements];\n"
        "    ld.param.u32 %%r2, [gd_share_rounds];\n"
        "    ld.param.f32 %%f1, [gd_share_seed];\n"
        "    ld.param.f32 %%f2, [gd_share_mul];\n"
        "    ld.param.f32 %%f3, [gd_share_add];\n");
    gd_ffma_init(&p, "%f1", "%f2", "%f3");
    gd_ptx_printf(&p,
        "    mov.u32 %%r16, %s;\n"
        "    mov.u64 %%rd9, 0;                 // checksum of the values read\n"
        "    add.s64 %%rd10, %%rd1, %d;          // where the deltas go\n"
        "    mov.u32 %%r3, 0;\n"
        "$L_round:\n"
        "    .pragma \"nounroll\";\n"
        "    // 1. the victim into the L1.5, timed: the reference\n"
        "    mov.u32 %%r17, %%r16;\n"
        "    mov.u32 %%r4, 0;\n"
        "$L_ref:\n"
        "    .pragma \"nounroll\";\n"
        "    mov.u64 %%rd4, %%clock64;\n"
        "    ld.const.u32 %%r18, [%%r17];\n"
        "    st.shared.u32 [gd_sink], %%r18;\n"
        "    mov.u64 %%rd5, %%clock64;\n"
        "    add.s32 %%r17, %%r18, %%r16;\n"
        "    sub.s64 %%rd6, %%rd5, %%rd4;\n"
        "    cvt.u32.u64 %%r5, %%rd6;\n"
        "    st.global.u32 [%%rd10], %%r5;\n"
        "    add.s64 %%rd10, %%rd10, 4;\n"
        "    add.u32 %%r4, %%r4, 1;\n"
        "    setp.lt.u32 %%p1, %%r4, %%r1;\n"
        "    @%%p1 bra $L_ref;\n"
        "    // 2. the attacker\n",
        GD_CHASE_CONST_SYMBOL, OUT_DATA);
    gd_ffma_block(&p, length);
    gd_ptx_printf(&p,
        "    // 3. the victim again, timed\n"
        "    mov.u32 %%r17, %%r16;\n"
        "    mov.u32 %%r4, 0;\n"
        "$L_victim:\n"
        "    .pragma \"nounroll\";\n"
        "    mov.u64 %%rd4, %%clock64;\n"
        "    ld.const.u32 %%r18, [%%r17];\n"
        "    st.shared.u32 [gd_sink], %%r18;\n"
        "    mov.u64 %%rd5, %%clock64;\n"
        "    add.s32 %%r17, %%r18, %%r16;\n"
        "    cvt.u64.u32 %%rd7, %%r18;\n"
        "    add.s64 %%rd9, %%rd9, %%rd7;\n"
        "    sub.s64 %%rd6, %%rd5, %%rd4;\n"
        "    cvt.u32.u64 %%r5, %%rd6;\n"
        "    st.global.u32 [%%rd10], %%r5;\n"
        "    add.s64 %%rd10, %%rd10, 4;\n"
        "    add.u32 %%r4, %%r4, 1;\n"
        "    setp.lt.u32 %%p1, %%r4, %%r1;\n"
        "    @%%p1 bra $L_victim;\n"
        "    add.u32 %%r3, %%r3, 1;\n"
        "    setp.lt.u32 %%p1, %%r3, %%r2;\n"
        "    @%%p1 bra $L_round;\n"
        "\n");
    gd_ffma_fold(&p);
    gd_ptx_printf(&p,
        "    st.global.u64 [%%rd1], %%rd9;\n"
        "    st.global.f32 [%%rd1+8], %s;\n"
        "    ret;\n"
        "}\n",
        GD_FFMA_SUM);
    return gd_ptx_finish(&p);
}

static int share_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                      gd_probe_plan *out, gd_err *err)
{
    memset(out, 0, sizeof *out);
    out->opts = *opts;
    gd_probe_opts *o = &out->opts;
    int line = !strcmp(o->variant, "line");
    if (o->variant[0] && strcmp(o->variant, "ffma") && !line)
        return gd_fail(err, "const_icache_share: unknown variant '%s' (expected ffma or line)",
                       o->variant);
    uint32_t stride = line ? SHARE_LINE_STRIDE : SHARE_STRIDE;
    uint64_t victim = o->footprint_bytes ? o->footprint_bytes : SHARE_DEFAULT_VICTIM;
    if (victim < 2 * stride || victim > GD_CHASE_CONST_BYTES)
        return gd_fail(err, "const_icache_share: victim of %llu bytes is outside [%u, %d]",
                       (unsigned long long)victim, 2 * stride, GD_CHASE_CONST_BYTES);
    uint64_t insns = point / GD_INSTRUCTION_BYTES;
    if (insns < 1 || insns > (1u << 22))
        return gd_fail(err, "const_icache_share: attacker of %llu bytes is outside [16, %u]",
                       (unsigned long long)point, (1u << 22) * GD_INSTRUCTION_BYTES);
    o->footprint_bytes = victim;
    o->stride_bytes = stride;
    o->samples = SHARE_ROUNDS;
    share_state *st = calloc(1, sizeof *st);
    if (!st)
        return gd_fail(err, "const_icache_share: out of memory");
    st->stride = stride;
    st->length = (uint32_t)insns;
    st->elements = (uint32_t)(victim / stride);
    out->state = st;
    out->point = point;
    out->ptx = share_ptx(dev, st->length);
    if (!out->ptx) {
        free(st);
        out->state = NULL;
        return gd_fail(err, "const_icache_share: out of memory");
    }
    snprintf(out->entry, sizeof out->entry, "gd_const_icache_share");
    for (int i = 0; i < 3; i++)
        out->grid[i] = out->block[i] = 1;
    out->buffers[0] = (gd_probe_buffer){.name = "victim",
                                        .bytes = GD_CHASE_CONST_BYTES,
                                        .host_fill = 1,
                                        .symbol = GD_CHASE_CONST_SYMBOL};
    out->buffers[1] = (gd_probe_buffer){
        .name = "out", .bytes = OUT_DATA + 8 * (size_t)SHARE_RUNS * st->elements, .copy_out = 1};
    out->buffer_count = 2;
    out->params[0] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 1};
    out->params[1] = (gd_probe_param){.kind = GD_PARAM_U32, .value = st->elements};
    out->params[2] = (gd_probe_param){.kind = GD_PARAM_U32, .value = SHARE_RUNS};
    out->param_count = 3 + gd_ffma_params(out->params + 3);
    out->intended_instructions = st->length;
    out->code_min_instructions = st->length + SASS_EXTRA_MIN;
    out->code_max_instructions = st->length + SASS_EXTRA_MAX;
    return 0;
}

/* a sequential chain of offsets, the stride apart, closing on itself */
static int share_fill(const gd_probe_plan *plan, unsigned index, const gd_devptr *addresses,
                      void *host, gd_err *err)
{
    (void)addresses;
    const share_state *st = plan->state;
    if (index != 0)
        return gd_fail(err, "const_icache_share: no initial contents for buffer %u", index);
    uint8_t *bank = host;
    for (uint32_t i = 0; i < st->elements; i++) {
        uint32_t next = ((i + 1) % st->elements) * st->stride;
        memcpy(bank + (size_t)i * st->stride, &next, 4);
    }
    return 0;
}

static int share_decode(const gd_probe_plan *plan, const gd_devptr *addresses, void *const *host,
                        gd_probe_result *out, gd_err *err)
{
    (void)addresses;
    const share_state *st = plan->state;
    const uint8_t *buf = host[1];
    uint64_t sum;
    memcpy(&sum, buf, 8);
    uint64_t n = st->elements;
    uint64_t expect = (uint64_t)SHARE_RUNS * st->stride * (n * (n - 1) / 2);
    if (sum != expect)
        return gd_fail(err, "const_icache_share: the victim walks read a sum of %llu, expected "
                            "%llu: the device did not follow the chain",
                       (unsigned long long)sum, (unsigned long long)expect);
    gd_series *rate = gd_probe_result_add(out, "miss_rate", SHARE_ROUNDS);
    gd_series *vic = gd_probe_result_add(out, "victim_cycles", SHARE_ROUNDS * n);
    gd_series *ref = gd_probe_result_add(out, "reference_cycles", SHARE_ROUNDS * n);
    if (!rate || !vic || !ref)
        return gd_fail(err, "const_icache_share: out of memory");
    for (uint32_t r = 0; r < SHARE_ROUNDS; r++) {
        const uint8_t *round = buf + OUT_DATA + (size_t)(r + 1) * 8 * n; /* run 0: cold */
        for (uint64_t i = 0; i < n; i++) {
            uint32_t a, b;
            memcpy(&a, round + 4 * i, 4);
            memcpy(&b, round + 4 * (n + i), 4);
            ref->samples[r * n + i] = a;
            vic->samples[r * n + i] = b;
        }
        double threshold = gd_timer_miss_threshold(ref->samples + r * n, n);
        uint64_t misses = 0;
        for (uint64_t i = 0; i < n; i++)
            misses += vic->samples[r * n + i] > threshold;
        rate->samples[r] = (double)misses / (double)n;
    }
    return 0;
}

static const char *const share_variants[] = {"ffma", "line", NULL};

const gd_probe gd_probe_const_icache_share = {
    .name = "const_icache_share",
    .summary = "constant victim vs instruction attacker: do L1.5 constant and L1 instruction "
               "caches share storage",
    .sweep_name = "attacker_bytes",
    .value_unit = "miss rate",
    .aggregate_samples = 1,
    .primary_series = "miss_rate",
    .default_stride_bytes = GD_INSTRUCTION_BYTES,
    .variants = share_variants,
    .example_point = 4096,
    .plan = share_plan,
    .fill = share_fill,
    .decode = share_decode,
    .release = gd_probe_free_state,
};
