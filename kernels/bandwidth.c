/* bandwidth.c -- streaming read, write and copy bandwidth with many warps and
 * vector accesses: what gpu-benches users look at first.
 *
 * The whole chip streams: BW_CTAS_PER_SM CTAs of BW_THREADS threads per SM
 * (fewer where a private footprint has not 8 KiB for each of them),
 * each thread moving 16 bytes per access (ld/st.global .v4.u32), BW_UNROLL
 * independent accesses per iteration, the warp's 32 lanes on 512 contiguous
 * bytes.  The sweep value is the footprint; which level serves it is the
 * footprint's choice (the suite picks one per level):
 *
 *   read_l1  every CTA reads the *same* footprint with ld.ca: at most a share
 *            of an L1, every SM's L1 holds it after the warm-up pass and the
 *            timed passes are L1 hits (gpu-benches' gpu-l1-cache method);
 *   read     each CTA reads its own region (footprint / CTAs) with ld.cg: the
 *            L1 is never in the way; a footprint inside the L2 is warmed and
 *            read from the L2, one past it streams from DRAM;
 *   write    each CTA writes its region (st.global.v4: whole sectors, which a
 *            write-back sectored L2 takes without a fetch);
 *   copy     each CTA reads its region of one buffer (ld.cg) and writes it
 *            into another: bytes counted are read + written, as STREAM does.
 *
 * A footprint of at most the device's L2 (dev->l2_bytes) is walked once
 * untimed first (so the timed passes find it where it stays); a larger one
 * is not (its lines would be gone by the time they come round again).
 * Stores do not stay in the L1 of any NVIDIA GPU (write-through), so an L1
 * level has read bandwidth only.
 *
 * Timing: after the warm-up a barrier, then thread 0 of each CTA reads
 * %clock64 and %globaltimer; the timed passes; every thread stores its sum
 * of what it read (consuming every load) to shared memory; a barrier; thread
 * 0 reads both clocks again.  The chip's bandwidth is the bytes of every CTA
 * over the span from the first CTA's start to the last CTA's end on
 * %globaltimer (a card's SM clocks are not synchronised, its global timer
 * is), converted to SM cycles at the clock CTA 0 measured (its %clock64
 * against %globaltimer: kernels/timer.h).  A store CTA reads each thread's
 * last stored word back with ld.cg before it stops its clock: the load
 * queues behind that thread's stores to the line, so the last stores count;
 * stores to other L2 slices may still be queued (no fence in the subset).
 * Series: "bytes_per_cycle" (primary), "gb_per_s", the clock.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/probe.h"
#include "kernels/ptx_emit.h"
#include "kernels/timer.h"

#define BW_THREADS 256
#define BW_CTAS_PER_SM 4
#define BW_VEC_BYTES 16
#define BW_UNROLL 2
#define BW_CHUNK (BW_THREADS * BW_VEC_BYTES * BW_UNROLL) /* one iteration of a CTA: 8 KiB */
#define BW_OUT_PER_CTA GD_TIMER_SPAN_BYTES                 /* cycles (x2), start/end ns */
#define BW_MAX_FOOTPRINT (64ull << 30)
/* Timed passes: at least BW_MIN_TIMED_PER_CTA bytes per CTA (as counted:
 * a copy's read and written), so that the
 * CTAs' start skew (they are dispatched one after another and warm up at
 * different speeds) is a small share of the span, and a card's
 * microsecond-step %globaltimer reads a region of many steps; at most
 * BW_MAX_PASSES, for the simulator */
#define BW_MIN_TIMED_PER_CTA (256u << 10)
#define BW_MAX_PASSES 64

typedef enum bw_variant { BW_READ_L1, BW_READ, BW_WRITE, BW_COPY } bw_variant;

static const char *const bw_variants[] = {"read", "write", "copy", "read_l1", NULL};

typedef struct bw_state {
    bw_variant variant;
    uint32_t ctas;
    uint64_t region_bytes;   /* per CTA (read_l1: the footprint every CTA reads) */
    uint32_t passes;         /* timed */
    int warm;                /* one untimed pass first */
} bw_state;

static int bw_variant_of(const char *name)
{
    if (!name[0] || !strcmp(name, "read"))
        return BW_READ;
    if (!strcmp(name, "write"))
        return BW_WRITE;
    if (!strcmp(name, "copy"))
        return BW_COPY;
    if (!strcmp(name, "read_l1"))
        return BW_READ_L1;
    return -1;
}

/* One pass: %rd4 source base, %rd5 destination base, %rd6 the thread's
 * first offset, %rd7 the end, the step a grid-stride loop's (every CTA one
 * BW_CHUNK in turn: what STREAM and gpu-benches do, and what keeps a DRAM
 * channel's open rows shared by the CTAs instead of one row per CTA). */
static uint64_t bw_step(const bw_state *st)
{
    return st->variant == BW_READ_L1 ? BW_CHUNK : (uint64_t)BW_CHUNK * st->ctas;
}

static void bw_pass(gd_ptx *p, const bw_state *st, const char *label)
{
    const char *ld = st->variant == BW_READ_L1 ? "ld.global.ca.v4.u32" : "ld.global.cg.v4.u32";
    gd_ptx_printf(p,
        "    mov.u64 %%rd8, %%rd6;\n"
        "%s:\n"
        "    .pragma \"nounroll\";\n"
        "    add.s64 %%rd9, %%rd4, %%rd8;\n"
        "    add.s64 %%rd10, %%rd5, %%rd8;\n",
        label);
    for (int u = 0; u < BW_UNROLL; u++) {
        int off = u * BW_THREADS * BW_VEC_BYTES;
        int r = 8 * u + 4; /* %r4.. %r19: four words per access */
        switch (st->variant) {
        case BW_READ_L1:
        case BW_READ:
            gd_ptx_printf(p, "    %s {%%r%d, %%r%d, %%r%d, %%r%d}, [%%rd9+%d];\n", ld, r, r + 1,
                          r + 2, r + 3, off);
            break;
        case BW_WRITE:
            gd_ptx_printf(p, "    st.global.v4.u32 [%%rd10+%d], {%%r1, %%r1, %%r1, %%r1};\n", off);
            break;
        case BW_COPY:
            gd_ptx_printf(p,
                "    %s {%%r%d, %%r%d, %%r%d, %%r%d}, [%%rd9+%d];\n"
                "    st.global.v4.u32 [%%rd10+%d], {%%r%d, %%r%d, %%r%d, %%r%d};\n",
                ld, r, r + 1, r + 2, r + 3, off, off, r, r + 1, r + 2, r + 3);
            break;
        }
    }
    if (st->variant == BW_READ || st->variant == BW_READ_L1)
        for (int u = 0; u < BW_UNROLL; u++)
            for (int k = 0; k < 4; k++)
                gd_ptx_printf(p, "    add.u32 %%r2, %%r2, %%r%d;\n", 8 * u + 4 + k);
    gd_ptx_printf(p,
        "    add.s64 %%rd8, %%rd8, %llu;\n"
        "    setp.lt.u64 %%p1, %%rd8, %%rd7;\n"
        "    @%%p1 bra %s;\n",
        (unsigned long long)bw_step(st), label);
}

static char *bw_ptx(const gd_device_info *dev, const bw_state *st)
{
    gd_ptx p;
    gd_ptx_init(&p);
    gd_ptx_header(&p, dev->cc_major, dev->cc_minor, 63);
    gd_ptx_printf(&p,
        ".visible .entry gd_bandwidth(\n"
        "    .param .u64 gd_bw_src,\n"
        "    .param .u64 gd_bw_dst,\n"
        "    .param .u64 gd_bw_out,\n"
        "    .param .u64 gd_bw_region,\n"
        "    .param .u32 gd_bw_passes\n"
        ")\n"
        ".maxntid %d, 1, 1\n"
        "{\n"
        "    .reg .pred %%p<4>;\n"
        "    .reg .b32 %%r<32>;\n"
        "    .reg .b64 %%rd<32>;\n"
        "    .shared .align 4 .b8 gd_bw_sink[%d];\n"
        "\n"
        "    ld.param.u64 %%rd1, [gd_bw_src];\n"
        "    ld.param.u64 %%rd2, [gd_bw_dst];\n"
        "    ld.param.u64 %%rd3, [gd_bw_out];\n"
        "    ld.param.u64 %%rd7, [gd_bw_region];\n"
        "    ld.param.u32 %%r3, [gd_bw_passes];\n"
        "    mov.u32 %%r20, %%tid.x;\n"
        "    mov.u32 %%r21, %%ctaid.x;\n"
        "    setp.eq.u32 %%p3, %%r20, 0;\n"
        "    mov.u32 %%r1, %%r20;                // the value a write stores\n"
        "    mov.u32 %%r2, 0;                    // the sum of what is read\n"
        "    mul.wide.u32 %%rd6, %%r20, %d;      // the thread's first offset\n",
        BW_THREADS, BW_THREADS * 4, BW_VEC_BYTES);
    /* grid-stride: the CTA's first chunk, ctaid x BW_CHUNK (read_l1: every
     * CTA the same footprint from its start); the end, the whole footprint */
    gd_ptx_printf(&p,
        "    mov.u64 %%rd4, %%rd1;\n"
        "    mov.u64 %%rd5, %%rd2;\n");
    if (st->variant != BW_READ_L1)
        gd_ptx_printf(&p,
            "    mul.wide.u32 %%rd11, %%r21, %d;\n"
            "    add.s64 %%rd6, %%rd6, %%rd11;\n"
            "    ld.param.u64 %%rd12, [gd_bw_region];\n"
            "    cvt.u64.u32 %%rd13, %%nctaid.x;\n"
            "    mul.lo.u64 %%rd7, %%rd12, %%rd13;   // the footprint: region x CTAs\n",
            BW_CHUNK);
    if (st->warm)
        bw_pass(&p, st, "$L_warm");
    gd_ptx_printf(&p,
        "    bar.sync 0;\n"
        "    mov.u64 %%rd20, %%clock64;\n"
        "    mov.u64 %%rd21, %%globaltimer;\n"
        "    mov.u32 %%r22, 0;\n"
        "$L_pass:\n"
        "    .pragma \"nounroll\";\n");
    bw_pass(&p, st, "$L_timed");
    gd_ptx_printf(&p,
        "    add.u32 %%r22, %%r22, 1;\n"
        "    setp.lt.u32 %%p2, %%r22, %%r3;\n"
        "    @%%p2 bra $L_pass;\n");
    /* stores: read the thread's last stored word back through the L2 (.cg)
     * -- it queues behind this thread's stores to that line, so the region
     * ends once they reached the L2, not when they left the SM */
    if (st->variant == BW_WRITE || st->variant == BW_COPY)
        gd_ptx_printf(&p,
            "    ld.global.cg.u32 %%r25, [%%rd10+%d];\n"
            "    add.u32 %%r2, %%r2, %%r25;\n",
            (BW_UNROLL - 1) * BW_THREADS * BW_VEC_BYTES);
    gd_timer_ptx_cta_span_end(&p, "gd_bw_sink", "%r20", "%r2", "%p3", "%r21", "%rd3");
    return gd_ptx_finish(&p);
}

static int bw_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                   gd_probe_plan *out, gd_err *err)
{
    memset(out, 0, sizeof *out);
    out->opts = *opts;
    gd_probe_opts *o = &out->opts;
    int v = bw_variant_of(o->variant);
    if (v < 0)
        return gd_fail(err, "bandwidth: unknown variant '%s' (read, write, copy, read_l1)",
                       o->variant);
    if (!o->variant[0])
        snprintf(o->variant, sizeof o->variant, "read");
    if (o->stride_bytes || o->footprint_bytes || o->random_order)
        return gd_fail(err, "bandwidth: --stride, --footprint and --pattern do not apply "
                            "(the sweep value is the footprint)");
    if (dev->sm_count <= 0)
        return gd_fail(err, "bandwidth: the device reports no SMs");
    bw_state *st = calloc(1, sizeof *st);
    if (!st)
        return gd_fail(err, "bandwidth: out of memory");
    st->variant = (bw_variant)v;
    st->ctas = (uint32_t)dev->sm_count * BW_CTAS_PER_SM;
    /* a small footprint (the L2 of a small GPU) over fewer CTAs, each at
     * least one iteration's bytes: as many SMs as it can still keep busy */
    if (v != BW_READ_L1 && point / BW_CHUNK < st->ctas && point >= BW_CHUNK)
        st->ctas = (uint32_t)(point / BW_CHUNK);
    uint64_t region = v == BW_READ_L1 ? point : point / st->ctas;
    region -= region % BW_CHUNK;
    if (point > BW_MAX_FOOTPRINT || region < BW_CHUNK) {
        uint32_t ctas = st->ctas;
        free(st);
        return gd_fail(err, "bandwidth: footprint %llu gives %s under %d bytes (%u CTAs)",
                       (unsigned long long)point,
                       v == BW_READ_L1 ? "a footprint" : "each CTA a region", BW_CHUNK, ctas);
    }
    st->region_bytes = region;
    uint64_t moved = v == BW_READ_L1 ? region : region * st->ctas;
    st->warm = v == BW_READ_L1 || moved <= dev->l2_bytes;
    /* the bytes a CTA's pass counts: a copy's read and written (STREAM's
     * count, as the result is: 2 x region), so a copy's timed passes move
     * the same bytes per CTA as a read's, not twice them */
    uint64_t per_pass = v == BW_COPY ? 2 * region : region;
    uint64_t passes = (BW_MIN_TIMED_PER_CTA + per_pass - 1) / per_pass;
    st->passes = (uint32_t)(passes > BW_MAX_PASSES ? BW_MAX_PASSES : passes);
    if (!st->warm)
        st->passes = 1; /* past the L2: a second pass would find the last part of the first */
    out->state = st;
    out->point = point;
    out->ptx = bw_ptx(dev, st);
    if (!out->ptx) {
        free(st);
        out->state = NULL;
        return gd_fail(err, "bandwidth: out of memory");
    }
    snprintf(out->entry, sizeof out->entry, "gd_bandwidth");
    out->grid[0] = st->ctas;
    out->grid[1] = out->grid[2] = 1;
    out->block[0] = BW_THREADS;
    out->block[1] = out->block[2] = 1;
    uint64_t src_bytes = v == BW_WRITE ? BW_CHUNK : moved;
    uint64_t dst_bytes = v == BW_WRITE || v == BW_COPY ? moved : BW_CHUNK;
    out->buffers[0] = (gd_probe_buffer){.name = "src", .bytes = src_bytes};
    out->buffers[1] = (gd_probe_buffer){.name = "dst", .bytes = dst_bytes};
    out->buffers[2] = (gd_probe_buffer){.name = "out", .bytes = (size_t)BW_OUT_PER_CTA * st->ctas,
                                        .copy_out = 1};
    out->buffer_count = 3;
    for (unsigned b = 0; b < 3; b++)
        out->params[b] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = b};
    out->params[3] = (gd_probe_param){.kind = GD_PARAM_U64, .value = region};
    out->params[4] = (gd_probe_param){.kind = GD_PARAM_U32, .value = st->passes};
    out->param_count = 5;
    return 0;
}

static int bw_decode(const gd_probe_plan *plan, const gd_devptr *addresses, void *const *host,
                     gd_probe_result *out, gd_err *err)
{
    (void)addresses;
    const bw_state *st = plan->state;
    const uint8_t *buf = host[2];
    uint64_t first_ns = UINT64_MAX, last_ns = 0, c0_cycles = 0, c0_ns = 0;
    for (uint32_t c = 0; c < st->ctas; c++) {
        uint64_t v[4];
        memcpy(v, buf + (size_t)c * BW_OUT_PER_CTA, sizeof v);
        /* v: the region's cycles (twice), its start and end on %globaltimer */
        if (v[0] != v[1] || v[0] == 0 || v[3] < v[2] || v[3] == 0)
            return gd_fail(err, "bandwidth: CTA %u recorded no timed region (cycles %llu/%llu, "
                                "ns %llu..%llu)",
                           c, (unsigned long long)v[0], (unsigned long long)v[1],
                           (unsigned long long)v[2], (unsigned long long)v[3]);
        if (v[2] < first_ns)
            first_ns = v[2];
        if (v[3] > last_ns)
            last_ns = v[3];
        if (c == 0) {
            c0_cycles = v[0];
            c0_ns = v[3] - v[2];
        }
    }
    uint64_t per_cta = st->region_bytes * st->passes * (st->variant == BW_COPY ? 2 : 1);
    double bytes = (double)per_cta * st->ctas;
    double span_ns = (double)(last_ns - first_ns);
    double mhz = gd_timer_effective_mhz(c0_cycles, c0_ns);
    if (!(span_ns > 0) || !isfinite(mhz))
        return gd_fail(err, "bandwidth: the timed region lasted %.0f ns on %%globaltimer: too "
                            "short to measure",
                       span_ns);
    gd_series *bpc = gd_probe_result_add(out, "bytes_per_cycle", 1);
    gd_series *gbs = gd_probe_result_add(out, "gb_per_s", 1);
    if (!bpc || !gbs)
        return gd_fail(err, "bandwidth: out of memory");
    gbs->samples[0] = bytes / span_ns;                   /* bytes per ns = GB/s */
    bpc->samples[0] = bytes / (span_ns * mhz / 1000.0); /* ns x cycles per ns */
    if (gd_timer_add_clock_series(out, c0_cycles, c0_ns) != 0)
        return gd_fail(err, "bandwidth: out of memory");
    return 0;
}

const gd_probe gd_probe_bandwidth = {
    .name = "bandwidth",
    .summary = "streaming read / write / copy with every SM, 16-byte vector accesses: bytes "
               "per cycle and GB/s at the measured clock",
    .sweep_name = "footprint_bytes",
    .value_unit = "bytes_per_cycle",
    .primary_series = "bytes_per_cycle",
    .aggregate_samples = 1,
    .default_stride_bytes = 0,
    .sweep_granularity = BW_CHUNK,
    .variants = bw_variants,
    .example_point = 8 << 20,
    .plan = bw_plan,
    .fill = NULL,
    .decode = bw_decode,
    .release = gd_probe_free_state,
};
