/* pchase.c -- the pointer-chase probe: load-to-use latency vs footprint.
 *
 * The host writes a chain of pointers over a footprint: element i sits at
 * offset i*stride and holds the device address of the next element, either
 * i+1 (sequential) or the next one of a seeded random single-cycle permutation
 * (Sattolo's algorithm), so that every element is visited exactly once per lap.
 * One thread then
 *
 *   1. times the timer: 32 times {t0 = %clock64; st.shared sink, p; t1 = %clock64},
 *      the timed sequence below without its load (the correction we subtract);
 *   2. walks the chain (warm-up: cold misses are not what we measure) for one
 *      lap, or for several if the chain is short -- which also lets a randomly
 *      replacing cache push out the lines earlier kernels left behind (an L2
 *      keeps its contents across launches);
 *   3. walks it again (several times if the chain is short: at least 4096
 *      timed accesses), timing each access as
 *          t0 = %clock64; p = ld.global [p]; st.shared.u32 trace[i], p; t1 = %clock64
 *      (the 32-bit store of a 64-bit register keeps its low half, as PTX allows).
 *      The store *consumes* the loaded pointer, so the second clock read cannot
 *      issue before the data is back (a GPU issues in order but only waits for a
 *      load at its first use).  Every delta is counted in a shared-memory
 *      histogram of 1-cycle buckets -- so the whole lap is in the statistics, not
 *      a window of it: just past a 4 MiB L2's capacity only one set in 4096
 *      misses, and a window of the last few thousand accesses would hold two of
 *      its 34 misses -- and the last N deltas and pointers go to shared-memory
 *      rings (the chronological trace).  Nothing is written to global memory
 *      while timing, so the measurement never touches the caches it measures;
 *   4. stores the final pointer, the sum of all pointers of the timed lap, the
 *      calibration, the histogram and the rings.
 *
 * Decode subtracts the median calibration delta and checks the walk: the final
 * pointer must be the start again, the sum must equal the sum of all element
 * addresses and the histogram must hold one count per element -- proof that
 * every element was visited.  Series: "cycles" (every access of the timed lap),
 * "recent_cycles" (the last N accesses in order), "timer_overhead", "chain_base".
 *
 * Variants: "ca" (ld.global.ca, cached in L1 and L2) and "cg" (ld.global.cg,
 * cached in L2 only) -- the L1 plateau disappears with cg.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/pchase.h"
#include "kernels/probe.h"
#include "kernels/ptx_emit.h"

#define PCHASE_CALIBRATION_SAMPLES 32
#define PCHASE_HIST_BUCKETS 4096      /* 1-cycle buckets; slower accesses count in the last */
#define PCHASE_DEFAULT_SAMPLES GD_PCHASE_DEFAULT_SAMPLES /* chronological ring */
#define PCHASE_MIN_SAMPLES 64
#define PCHASE_MAX_SAMPLES 2048       /* histogram + two rings fit the 48 KiB a CTA may use */
#define PCHASE_DEFAULT_STRIDE 32
/* A short chain is timed for several laps, so that a small footprint still
 * gives enough accesses to see a rare miss (random replacement just past a
 * capacity misses once or twice a lap). */
#define PCHASE_MIN_TIMED 4096
/* Warm-up accesses: one lap of a long chain; a short chain is walked until it
 * has had this many, so that a randomly replacing cache has pushed out the lines
 * earlier kernels left (each miss evicts a random way, so it takes many). */
#define PCHASE_MIN_WARM 32768
#define PCHASE_HEADER_BYTES 16        /* final pointer, checksum */
#define PCHASE_MIN_SASS 48            /* expected machine code, see pchase_plan */
#define PCHASE_MAX_SASS 144

typedef struct pchase_state {
    uint64_t elements;
    uint64_t laps;                    /* timed laps: enough for PCHASE_MIN_TIMED accesses */
    uint64_t warm_laps;               /* at least PCHASE_MIN_WARM accesses */
    uint32_t ring;                    /* chronological samples recorded */
} pchase_state;

/* Offsets in the output buffer. */
#define OUT_CALIB PCHASE_HEADER_BYTES
#define OUT_HIST (OUT_CALIB + PCHASE_CALIBRATION_SAMPLES * 4)
#define OUT_RING (OUT_HIST + PCHASE_HIST_BUCKETS * 4)

static size_t out_bytes(uint32_t ring)
{
    return OUT_RING + (size_t)ring * 8;
}

static char *pchase_ptx(const gd_device_info *dev, const char *cache_op, uint32_t ring)
{
    gd_ptx p;
    gd_ptx_init(&p);
    gd_ptx_header(&p, dev->cc_major, dev->cc_minor, 63);
    gd_ptx_printf(&p,
        ".visible .entry gd_pchase(\n"
        "    .param .u64 gd_pchase_chain,\n"
        "    .param .u64 gd_pchase_out,\n"
        "    .param .u32 gd_pchase_steps,\n"
        "    .param .u32 gd_pchase_timed_steps,\n"
        "    .param .u32 gd_pchase_warm_steps\n"
        ")\n"
        ".maxntid 1, 1, 1\n"
        "{\n"
        "    .reg .pred %%p<3>;\n"
        "    .reg .b32 %%r<20>;\n"
        "    .reg .b64 %%rd<16>;\n"
        "    .shared .align 4 .b8 gd_hist[%u];\n"
        "    .shared .align 4 .b8 gd_trace[%u];\n"
        "    .shared .align 4 .b8 gd_delta[%u];\n"
        "    .shared .align 4 .b8 gd_calib[%u];\n"
        "    .shared .align 8 .b8 gd_sink[8];\n"
        "\n"
        "    ld.param.u64 %%rd1, [gd_pchase_chain];\n"
        "    ld.param.u64 %%rd2, [gd_pchase_out];\n"
        "    ld.param.u32 %%r1, [gd_pchase_steps];\n"
        "    ld.param.u32 %%r14, [gd_pchase_timed_steps];\n"
        "    ld.param.u32 %%r15, [gd_pchase_warm_steps];\n"
        "    mov.u64 %%rd3, %%rd1;\n"
        "    mov.u32 %%r13, gd_hist;\n"
        "\n"
        "    // 0. an empty histogram (shared memory starts undefined)\n"
        "    mov.u32 %%r2, 0;\n"
        "$L_zero:\n"
        "    .pragma \"nounroll\";\n"
        "    shl.b32 %%r4, %%r2, 2;\n"
        "    add.s32 %%r5, %%r13, %%r4;\n"
        "    st.shared.u32 [%%r5], 0;\n"
        "    add.s32 %%r2, %%r2, 1;\n"
        "    setp.lt.u32 %%p1, %%r2, %u;\n"
        "    @%%p1 bra $L_zero;\n"
        "\n"
        "    // 1. the cost of the timed sequence without its load\n"
        "    mov.u32 %%r2, 0;\n"
        "    mov.u32 %%r6, gd_calib;\n"
        "$L_calib:\n"
        "    .pragma \"nounroll\";\n"
        "    mov.u64 %%rd10, %%clock64;\n"
        "    st.shared.u32 [gd_sink], %%rd3;\n"
        "    mov.u64 %%rd11, %%clock64;\n"
        "    sub.s64 %%rd12, %%rd11, %%rd10;\n"
        "    cvt.u32.u64 %%r3, %%rd12;\n"
        "    shl.b32 %%r4, %%r2, 2;\n"
        "    add.s32 %%r5, %%r6, %%r4;\n"
        "    st.shared.u32 [%%r5], %%r3;\n"
        "    add.s32 %%r2, %%r2, 1;\n"
        "    setp.lt.u32 %%p1, %%r2, %u;\n"
        "    @%%p1 bra $L_calib;\n"
        "\n"
        "    // 2. warm-up laps\n"
        "    mov.u32 %%r2, 0;\n"
        "$L_warm:\n"
        "    .pragma \"nounroll\";\n"
        "    ld.global.%s.u64 %%rd3, [%%rd3];\n"
        "    add.s32 %%r2, %%r2, 1;\n"
        "    setp.lt.u32 %%p1, %%r2, %%r15;\n"
        "    @%%p1 bra $L_warm;\n"
        "    st.shared.u64 [gd_sink], %%rd3;   // wait for the last warm-up load\n"
        "\n"
        "    // 3. timed lap\n"
        "    mov.u32 %%r2, 0;\n"
        "    mov.u64 %%rd4, 0;\n"
        "    mov.u32 %%r6, gd_trace;\n"
        "    mov.u32 %%r7, gd_delta;\n"
        "$L_timed:\n"
        "    .pragma \"nounroll\";\n"
        "    and.b32 %%r8, %%r2, %u;\n"
        "    shl.b32 %%r9, %%r8, 2;\n"
        "    add.s32 %%r10, %%r9, %%r7;\n"
        "    add.s32 %%r9, %%r9, %%r6;\n"
        "    mov.u64 %%rd10, %%clock64;\n"
        "    ld.global.%s.u64 %%rd3, [%%rd3];\n"
        "    st.shared.u32 [%%r9], %%rd3;   // low half of the pointer: the trace\n"
        "    mov.u64 %%rd11, %%clock64;\n"
        "    sub.s64 %%rd12, %%rd11, %%rd10;\n"
        "    cvt.u32.u64 %%r3, %%rd12;\n"
        "    st.shared.u32 [%%r10], %%r3;\n"
        "    min.u32 %%r11, %%r3, %u;\n"
        "    shl.b32 %%r11, %%r11, 2;\n"
        "    add.s32 %%r11, %%r11, %%r13;\n"
        "    ld.shared.u32 %%r12, [%%r11];\n"
        "    add.s32 %%r12, %%r12, 1;\n"
        "    st.shared.u32 [%%r11], %%r12;\n"
        "    add.s64 %%rd4, %%rd4, %%rd3;\n"
        "    add.s32 %%r2, %%r2, 1;\n"
        "    setp.lt.u32 %%p1, %%r2, %%r14;\n"
        "    @%%p1 bra $L_timed;\n"
        "\n"
        "    // 4. results: final pointer, checksum, calibration, histogram, rings\n"
        "    st.global.u64 [%%rd2], %%rd3;\n"
        "    st.global.u64 [%%rd2+8], %%rd4;\n"
        "    mov.u32 %%r2, 0;\n"
        "    mov.u32 %%r6, gd_calib;\n"
        "$L_copy_calib:\n"
        "    .pragma \"nounroll\";\n"
        "    shl.b32 %%r4, %%r2, 2;\n"
        "    add.s32 %%r5, %%r6, %%r4;\n"
        "    ld.shared.u32 %%r3, [%%r5];\n"
        "    cvt.u64.u32 %%rd5, %%r4;\n"
        "    add.s64 %%rd6, %%rd2, %%rd5;\n"
        "    st.global.u32 [%%rd6+%u], %%r3;\n"
        "    add.s32 %%r2, %%r2, 1;\n"
        "    setp.lt.u32 %%p1, %%r2, %u;\n"
        "    @%%p1 bra $L_copy_calib;\n"
        "    mov.u32 %%r2, 0;\n"
        "$L_copy_hist:\n"
        "    .pragma \"nounroll\";\n"
        "    shl.b32 %%r4, %%r2, 2;\n"
        "    add.s32 %%r5, %%r13, %%r4;\n"
        "    ld.shared.u32 %%r3, [%%r5];\n"
        "    cvt.u64.u32 %%rd5, %%r4;\n"
        "    add.s64 %%rd6, %%rd2, %%rd5;\n"
        "    st.global.u32 [%%rd6+%u], %%r3;\n"
        "    add.s32 %%r2, %%r2, 1;\n"
        "    setp.lt.u32 %%p1, %%r2, %u;\n"
        "    @%%p1 bra $L_copy_hist;\n"
        "    min.u32 %%r11, %%r14, %u;\n"
        "    mov.u32 %%r2, 0;\n"
        "    mov.u32 %%r6, gd_trace;\n"
        "    mov.u32 %%r7, gd_delta;\n"
        "$L_copy_ring:\n"
        "    .pragma \"nounroll\";\n"
        "    shl.b32 %%r4, %%r2, 2;\n"
        "    cvt.u64.u32 %%rd5, %%r4;\n"
        "    add.s64 %%rd6, %%rd2, %%rd5;\n"
        "    add.s32 %%r5, %%r7, %%r4;\n"
        "    ld.shared.u32 %%r3, [%%r5];\n"
        "    st.global.u32 [%%rd6+%u], %%r3;\n"
        "    add.s32 %%r5, %%r6, %%r4;\n"
        "    ld.shared.u32 %%r3, [%%r5];\n"
        "    st.global.u32 [%%rd6+%u], %%r3;\n"
        "    add.s32 %%r2, %%r2, 1;\n"
        "    setp.lt.u32 %%p1, %%r2, %%r11;\n"
        "    @%%p1 bra $L_copy_ring;\n"
        "    ret;\n"
        "}\n",
        PCHASE_HIST_BUCKETS * 4, ring * 4, ring * 4, PCHASE_CALIBRATION_SAMPLES * 4,
        PCHASE_HIST_BUCKETS, PCHASE_CALIBRATION_SAMPLES, cache_op, ring - 1, cache_op,
        PCHASE_HIST_BUCKETS - 1, OUT_CALIB, PCHASE_CALIBRATION_SAMPLES, OUT_HIST,
        PCHASE_HIST_BUCKETS, ring, OUT_RING, OUT_RING + ring * 4);
    return gd_ptx_finish(&p);
}

int gd_pchase_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                   gd_probe_plan *out, gd_err *err)
{
    memset(out, 0, sizeof *out);
    out->opts = *opts;
    gd_probe_opts *o = &out->opts;
    if (!o->stride_bytes)
        o->stride_bytes = PCHASE_DEFAULT_STRIDE;
    if (!o->variant[0])
        strcpy(o->variant, "ca");
    if (strcmp(o->variant, "ca") && strcmp(o->variant, "cg"))
        return gd_fail(err, "pchase: unknown variant '%s' (expected ca or cg)", o->variant);
    if (o->stride_bytes < 8 || o->stride_bytes % 8)
        return gd_fail(err, "pchase: stride must be a multiple of 8 bytes (a pointer), got %llu",
                       (unsigned long long)o->stride_bytes);
    if (!o->samples)
        o->samples = PCHASE_DEFAULT_SAMPLES;
    if (o->samples < PCHASE_MIN_SAMPLES || o->samples > PCHASE_MAX_SAMPLES ||
        (o->samples & (o->samples - 1)))
        return gd_fail(err, "pchase: samples must be a power of two in [%d, %d], got %u",
                       PCHASE_MIN_SAMPLES, PCHASE_MAX_SAMPLES, o->samples);
    uint64_t elements = point / o->stride_bytes;
    if (elements < 1 || elements > UINT32_MAX)
        return gd_fail(err, "pchase: footprint %llu bytes holds no %llu-byte element",
                       (unsigned long long)point, (unsigned long long)o->stride_bytes);
    pchase_state *st = calloc(1, sizeof *st);
    if (!st)
        return gd_fail(err, "pchase: out of memory");
    st->elements = elements;
    st->laps = (PCHASE_MIN_TIMED + elements - 1) / elements;
    st->warm_laps = (PCHASE_MIN_WARM + elements - 1) / elements;
    if (elements * st->laps > UINT32_MAX || elements * st->warm_laps > UINT32_MAX) {
        free(st);
        return gd_fail(err, "pchase: %llu elements are too many for one lap counter",
                       (unsigned long long)elements);
    }
    st->ring = o->samples;
    out->state = st;
    out->point = point;
    out->ptx = pchase_ptx(dev, o->variant, st->ring);
    if (!out->ptx) {
        free(st);
        out->state = NULL;
        return gd_fail(err, "pchase: out of memory");
    }
    snprintf(out->entry, sizeof out->entry, "gd_pchase");
    for (int i = 0; i < 3; i++)
        out->grid[i] = out->block[i] = 1;
    out->buffers[0] = (gd_probe_buffer){.name = "chain",
                                        .bytes = elements * o->stride_bytes,
                                        .host_fill = 1,
                                        .copy_out = 0};
    out->buffers[1] = (gd_probe_buffer){.name = "out",
                                        .bytes = out_bytes(st->ring),
                                        .host_fill = 0,
                                        .copy_out = 1};
    out->buffer_count = 2;
    out->params[0] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 0};
    out->params[1] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 1};
    out->params[2] = (gd_probe_param){.kind = GD_PARAM_U32, .value = elements};
    out->params[3] = (gd_probe_param){.kind = GD_PARAM_U32, .value = elements * st->laps};
    out->params[4] = (gd_probe_param){.kind = GD_PARAM_U32, .value = elements * st->warm_laps};
    out->param_count = 5;
    /* ptxas gives 63 instructions for sm_75 and up to 96 (with padding) for sm_90;
     * far outside that means it unrolled, merged or dropped code */
    out->code_min_instructions = PCHASE_MIN_SASS;
    out->code_max_instructions = PCHASE_MAX_SASS;
    return 0;
}

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int gd_pchase_permutation(uint64_t n, uint64_t seed, uint32_t *next)
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

int gd_pchase_fill(const gd_probe_plan *plan, unsigned index, const gd_devptr *addresses,
                   void *host, gd_err *err)
{
    const pchase_state *st = plan->state;
    if (index != 0)
        return gd_fail(err, "pchase: no initial contents for buffer %u", index);
    uint64_t n = st->elements, stride = plan->opts.stride_bytes, base = addresses[0];
    uint8_t *chain = host;
    if (!plan->opts.random_order) {
        for (uint64_t i = 0; i < n; i++) {
            uint64_t next = base + ((i + 1) % n) * stride;
            memcpy(chain + i * stride, &next, sizeof next);
        }
        return 0;
    }
    uint32_t *perm = malloc(n * sizeof *perm);
    if (!perm || gd_pchase_permutation(n, plan->opts.seed, perm) != 0) {
        free(perm);
        return gd_fail(err, "pchase: out of memory for a %llu-element permutation",
                       (unsigned long long)n);
    }
    for (uint64_t i = 0; i < n; i++) {
        uint64_t next = base + (uint64_t)perm[i] * stride;
        memcpy(chain + i * stride, &next, sizeof next);
    }
    free(perm);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int gd_pchase_decode(const gd_probe_plan *plan, const gd_devptr *addresses, void *const *host,
                     gd_probe_result *out, gd_err *err)
{
    const pchase_state *st = plan->state;
    const uint8_t *buf = host[1];
    uint64_t final_ptr, checksum;
    memcpy(&final_ptr, buf, 8);
    memcpy(&checksum, buf + 8, 8);
    uint64_t n = st->elements, stride = plan->opts.stride_bytes, base = addresses[0];
    if (final_ptr != base)
        return gd_fail(err, "pchase: the walk over %llu elements ended at 0x%llx, not at the start "
                            "0x%llx: the device did not follow the chain",
                       (unsigned long long)n, (unsigned long long)final_ptr,
                       (unsigned long long)base);
    uint64_t timed = n * st->laps;
    uint64_t expect = (n * base + stride * (n * (n - 1) / 2)) * st->laps;
    if (checksum != expect)
        return gd_fail(err, "pchase: the sum of visited pointers is 0x%llx, expected 0x%llx: some "
                            "elements were not visited",
                       (unsigned long long)checksum, (unsigned long long)expect);
    uint64_t counted = 0;
    for (int b = 0; b < PCHASE_HIST_BUCKETS; b++) {
        uint32_t c;
        memcpy(&c, buf + OUT_HIST + 4 * b, 4);
        counted += c;
    }
    if (counted != timed)
        return gd_fail(err, "pchase: the histogram counts %llu accesses, the timed laps have %llu",
                       (unsigned long long)counted, (unsigned long long)timed);

    double calib[PCHASE_CALIBRATION_SAMPLES];
    for (int i = 0; i < PCHASE_CALIBRATION_SAMPLES; i++) {
        uint32_t v;
        memcpy(&v, buf + OUT_CALIB + 4 * i, 4);
        calib[i] = v;
    }
    qsort(calib, PCHASE_CALIBRATION_SAMPLES, sizeof calib[0], cmp_double);
    double overhead =
        (calib[PCHASE_CALIBRATION_SAMPLES / 2 - 1] + calib[PCHASE_CALIBRATION_SAMPLES / 2]) / 2;

    uint64_t recent = timed < st->ring ? timed : st->ring;
    gd_series *cycles = gd_probe_result_add(out, "cycles", timed);
    gd_series *recent_series = gd_probe_result_add(out, "recent_cycles", recent);
    gd_series *overhead_series = gd_probe_result_add(out, "timer_overhead", 1);
    gd_series *base_series = gd_probe_result_add(out, "chain_base", 1);
    if (!cycles || !recent_series || !overhead_series || !base_series)
        return gd_fail(err, "pchase: out of memory for %llu samples", (unsigned long long)timed);
    /* the histogram, expanded: every access of the timed lap */
    size_t k = 0;
    for (int b = 0; b < PCHASE_HIST_BUCKETS; b++) {
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
    return 0;
}

void gd_pchase_release(gd_probe_plan *plan)
{
    free(plan->state);
    plan->state = NULL;
}

static const char *const pchase_variants[] = {"ca", "cg", NULL};

const gd_probe gd_probe_pchase = {
    .name = "pchase",
    .summary = "pointer chase: load-to-use latency vs footprint (L1D, L2, DRAM)",
    .sweep_name = "footprint_bytes",
    .value_unit = "cycles",
    .default_stride_bytes = PCHASE_DEFAULT_STRIDE,
    .variants = pchase_variants,
    .example_point = 4096,
    .plan = gd_pchase_plan,
    .fill = gd_pchase_fill,
    .decode = gd_pchase_decode,
    .release = gd_pchase_release,
};
