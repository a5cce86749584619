/* l2_slice.c -- the L2's slices, from the contention of strides that land on
 * one of them: the slice count under a modulo address map.
 *
 * An L2 is cut into slices (memory sub-partitions), each with its own tags and
 * a request port that takes a few requests per cycle; consecutive L2 lines go
 * to consecutive slices.  Under a modulo map with s slices per partition and
 * h-byte lines, addresses S bytes apart (S a multiple of h) fall on
 * s / gcd(S/h, s) slices: every stride that is a multiple of the period
 * P = s x h puts all of them on one slice, whose port then serialises the
 * chip -- the "partition camping" of CUDA's old transpose notes.  So the
 * probe times every SM's L2 hits at stride S, and the throughput, swept over
 * S = h, 2h, ..., falls to its floor first at S = P and again at every
 * multiple of it, and stands at (about) twice the floor at P/2, three times
 * at P/3 while the SMs' requests in flight allow (analysis/infer_l2_slice.c
 * reads the period and the count from it).  A monolithic L2 (one slice), or a
 * hash that spreads power-of-two and other strides alike (NVIDIA's is
 * unpublished and XOR-based since Fermi: [GS86] uses IPOLY indexing), gives a
 * flat curve, and the analysis says so instead of a count.
 *
 * The kernel: one CTA of one warp per SM (the grid is the SM count), LS_LOADS
 * independent loads per lane per pass.  The lines must stay L2 hits at every
 * stride of the sweep, also where all of them share one slice -- and a stride
 * that puts them in one slice of a modulo map, or in a few sets of any
 * power-of-two-set L2, is exactly what is swept: lines on 1/g of a slice's
 * sets fit while they are at most its capacity / g.  So the grid reads at most
 * L2 / (LS_ALIAS_MARGIN x 128 B) distinct lines (128 B: the L2 line of every
 * NVIDIA GPU since Fermi): a slice of a partition of s holds them at 1/g of
 * its sets for every s x g <= LS_ALIAS_MARGIN, which covers every stride up
 * to LS_ALIAS_MARGIN lines.  The requests in flight, which the contrast needs
 * (a slice that takes r requests per cycle only limits a partition that has
 * more than r x latency of them), come from sharing: `group` consecutive CTAs
 * (consecutive SMs: the same GPC, the same partition) read the same lines, and
 * an L2 serves each SM's request on its own.  Lane t of a CTA of group q, load
 * r: line ((r x groups + q) x 32 + t) x S bytes from the buffer's start.
 * The loads are ld.global.cg (the L1 is never in the way) of zeroed words;
 * each pass's addresses add the sum of the previous pass's words (zero, but
 * only the loads know it), so no pass can be hoisted or merged with another
 * and the loads of one pass are independent: LS_LOADS x 32 requests in flight
 * per SM.  One untimed pass brings the lines into the L2; then thread 0 reads
 * %clock64 and %globaltimer, the warp makes LS_PASSES passes, stores its sum
 * to shared memory (every load consumed), and reads both clocks again.
 *
 * Decode: each CTA's requests over its own %clock64 cycles (a card's SM
 * clocks are not synchronised, and a few microseconds of run are below its
 * %globaltimer's resolution), summed over the CTAs: the chip's L2 sector
 * requests per cycle ("requests_per_cycle", primary), and x 32 bytes
 * ("bytes_per_cycle"); the clock CTA 0 measured.  The sweep value is the
 * stride in bytes, a multiple of 32 (the suite sweeps multiples of 128, the
 * L2 line of every NVIDIA GPU since Fermi).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/probe.h"
#include "kernels/ptx_emit.h"
#include "kernels/timer.h"

#define LS_LANES 32
#define LS_LOADS 2
/* timed passes: 16 (32 before 2026-12-04: half of every point's L2 requests,
 * the dearest step of the full suite on a 108-SM GPU -- 12 s of CPU of 114 --
 * and the same slice counts and periods on all 60 below-L1 draws) */
#define LS_PASSES 16
#define LS_LINE_BYTES 128          /* the line the distinct-lines rule assumes */
#define LS_ALIAS_MARGIN 128        /* distinct lines <= L2 lines / this */
#define LS_OUT_PER_CTA GD_TIMER_SPAN_BYTES
#define LS_MAX_STRIDE (1ull << 20)

typedef struct ls_state {
    uint32_t ctas;
    uint32_t group;              /* consecutive CTAs that read the same lines */
    uint32_t groups;             /* ceil(ctas / group): distinct line sets */
} ls_state;

static void ls_pass(gd_ptx *p, uint32_t loads)
{
    /* %r7: the previous pass's sum (zero); the pass's addresses depend on it */
    gd_ptx_printf(p,
        "    cvt.u64.u32 %%rd6, %%r7;\n"
        "    add.s64 %%rd7, %%rd4, %%rd6;\n");
    for (uint32_t r = 0; r < loads; r++) {
        if (r)
            gd_ptx_printf(p, "    add.s64 %%rd7, %%rd7, %%rd5;\n");
        gd_ptx_printf(p, "    ld.global.cg.u32 %%r%u, [%%rd7];\n", 10 + r);
    }
    for (uint32_t r = 0; r < loads; r++)
        gd_ptx_printf(p, "    add.u32 %%r7, %%r7, %%r%u;\n", 10 + r);
}

static char *ls_ptx(const gd_device_info *dev)
{
    gd_ptx p;
    gd_ptx_init(&p);
    gd_ptx_header(&p, dev->cc_major, dev->cc_minor, 63);
    gd_ptx_printf(&p,
        ".visible .entry gd_l2_slice(\n"
        "    .param .u64 gd_ls_buf,\n"
        "    .param .u64 gd_ls_out,\n"
        "    .param .u64 gd_ls_stride,\n"
        "    .param .u32 gd_ls_passes,\n"
        "    .param .u32 gd_ls_group\n"
        ")\n"
        ".maxntid %d, 1, 1\n"
        "{\n"
        "    .reg .pred %%p<4>;\n"
        "    .reg .b32 %%r<32>;\n"
        "    .reg .b64 %%rd<32>;\n"
        "    .shared .align 4 .b8 gd_ls_sink[%d];\n"
        "\n"
        "    ld.param.u64 %%rd1, [gd_ls_buf];\n"
        "    ld.param.u64 %%rd2, [gd_ls_out];\n"
        "    ld.param.u64 %%rd3, [gd_ls_stride];\n"
        "    ld.param.u32 %%r1, [gd_ls_passes];\n"
        "    ld.param.u32 %%r9, [gd_ls_group];\n"
        "    mov.u32 %%r2, %%tid.x;\n"
        "    mov.u32 %%r3, %%ctaid.x;\n"
        "    mov.u32 %%r4, %%nctaid.x;\n"
        "    setp.eq.u32 %%p3, %%r2, 0;\n"
        "    div.u32 %%r25, %%r3, %%r9;          // the CTA's group\n"
        "    add.u32 %%r26, %%r4, %%r9;\n"
        "    sub.u32 %%r26, %%r26, 1;\n"
        "    div.u32 %%r26, %%r26, %%r9;         // groups\n"
        "    mad.lo.u32 %%r5, %%r25, %d, %%r2;    // the lane's line of load 0\n"
        "    mul.lo.u32 %%r6, %%r26, %d;          // lines between its loads\n"
        "    cvt.u64.u32 %%rd4, %%r5;\n"
        "    mul.lo.u64 %%rd4, %%rd4, %%rd3;\n"
        "    add.s64 %%rd4, %%rd1, %%rd4;        // load 0's address\n"
        "    cvt.u64.u32 %%rd5, %%r6;\n"
        "    mul.lo.u64 %%rd5, %%rd5, %%rd3;     // from load r to r + 1\n"
        "    mov.u32 %%r7, 0;\n",
        LS_LANES, LS_LANES * 4, LS_LANES, LS_LANES);
    ls_pass(&p, LS_LOADS); /* untimed: the lines into the L2 */
    gd_ptx_printf(&p,
        "    bar.sync 0;\n"
        "    mov.u64 %%rd20, %%clock64;\n"
        "    mov.u64 %%rd21, %%globaltimer;\n"
        "    mov.u32 %%r8, 0;\n"
        "$L_pass:\n"
        "    .pragma \"nounroll\";\n");
    ls_pass(&p, LS_LOADS);
    gd_ptx_printf(&p,
        "    add.u32 %%r8, %%r8, 1;\n"
        "    setp.lt.u32 %%p1, %%r8, %%r1;\n"
        "    @%%p1 bra $L_pass;\n");
    gd_timer_ptx_cta_span_end(&p, "gd_ls_sink", "%r2", "%r7", "%p3", "%r3", "%rd2");
    return gd_ptx_finish(&p);
}

static int ls_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                   gd_probe_plan *out, gd_err *err)
{
    memset(out, 0, sizeof *out);
    out->opts = *opts;
    if (opts->variant[0] && strcmp(opts->variant, "read"))
        return gd_fail(err, "l2_slice: unknown variant '%s' (read)", opts->variant);
    snprintf(out->opts.variant, sizeof out->opts.variant, "read");
    if (opts->stride_bytes || opts->footprint_bytes || opts->random_order)
        return gd_fail(err, "l2_slice: --stride, --footprint and --pattern do not apply "
                            "(the sweep value is the stride)");
    if (point < 32 || point % 32 || point > LS_MAX_STRIDE)
        return gd_fail(err, "l2_slice: the stride must be a multiple of 32 bytes in 32..%llu, "
                            "got %llu",
                       (unsigned long long)LS_MAX_STRIDE, (unsigned long long)point);
    if (dev->sm_count <= 0)
        return gd_fail(err, "l2_slice: the device reports no SMs");
    ls_state *st = calloc(1, sizeof *st);
    if (!st)
        return gd_fail(err, "l2_slice: out of memory");
    st->ctas = (uint32_t)dev->sm_count;
    /* the fewest CTAs per line set that keep the distinct lines within the
     * L2's / LS_ALIAS_MARGIN (at least one set of LS_LOADS x 32 lines) */
    uint64_t max_lines = dev->l2_bytes / (LS_LINE_BYTES * LS_ALIAS_MARGIN);
    uint64_t max_groups = max_lines / (LS_LANES * LS_LOADS);
    if (max_groups < 1)
        max_groups = 1;
    if (max_groups > st->ctas)
        max_groups = st->ctas;
    st->group = (uint32_t)((st->ctas + max_groups - 1) / max_groups);
    st->groups = (st->ctas + st->group - 1) / st->group;
    out->state = st;
    out->point = point;
    out->ptx = ls_ptx(dev);
    if (!out->ptx) {
        free(st);
        out->state = NULL;
        return gd_fail(err, "l2_slice: out of memory");
    }
    snprintf(out->entry, sizeof out->entry, "gd_l2_slice");
    out->grid[0] = st->ctas;
    out->grid[1] = out->grid[2] = 1;
    out->block[0] = LS_LANES;
    out->block[1] = out->block[2] = 1;
    uint64_t lines = (uint64_t)st->groups * LS_LANES * LS_LOADS;
    out->buffers[0] = (gd_probe_buffer){.name = "buf", .bytes = (size_t)(lines * point)};
    out->buffers[1] = (gd_probe_buffer){.name = "out", .bytes = (size_t)LS_OUT_PER_CTA * st->ctas,
                                        .copy_out = 1};
    out->buffer_count = 2;
    out->params[0] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 0};
    out->params[1] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 1};
    out->params[2] = (gd_probe_param){.kind = GD_PARAM_U64, .value = point};
    out->params[3] = (gd_probe_param){.kind = GD_PARAM_U32, .value = LS_PASSES};
    out->params[4] = (gd_probe_param){.kind = GD_PARAM_U32, .value = st->group};
    out->param_count = 5;
    return 0;
}

static int ls_decode(const gd_probe_plan *plan, const gd_devptr *addresses, void *const *host,
                     gd_probe_result *out, gd_err *err)
{
    (void)addresses;
    const ls_state *st = plan->state;
    const uint8_t *buf = host[1];
    double rate = 0;
    uint64_t c0_cycles = 0, c0_ns = 0;
    double per_cta = (double)LS_LANES * LS_LOADS * LS_PASSES;
    for (uint32_t c = 0; c < st->ctas; c++) {
        uint64_t v[4];
        memcpy(v, buf + (size_t)c * LS_OUT_PER_CTA, sizeof v);
        /* v: the passes' cycles (twice), their start and end on %globaltimer */
        if (v[0] != v[1] || v[0] == 0 || v[3] < v[2])
            return gd_fail(err, "l2_slice: CTA %u recorded no timed passes (cycles %llu/%llu, "
                                "ns %llu..%llu)",
                           c, (unsigned long long)v[0], (unsigned long long)v[1],
                           (unsigned long long)v[2], (unsigned long long)v[3]);
        rate += per_cta / (double)v[0];
        if (c == 0) {
            c0_cycles = v[0];
            c0_ns = v[3] - v[2];
        }
    }
    gd_series *req = gd_probe_result_add(out, "requests_per_cycle", 1);
    gd_series *bpc = gd_probe_result_add(out, "bytes_per_cycle", 1);
    if (!req || !bpc)
        return gd_fail(err, "l2_slice: out of memory");
    req->samples[0] = rate;
    bpc->samples[0] = rate * 32;
    if (c0_ns > 0 && gd_timer_add_clock_series(out, c0_cycles, c0_ns) != 0)
        return gd_fail(err, "l2_slice: out of memory");
    return 0;
}

static const char *const ls_variants[] = {"read", NULL};

const gd_probe gd_probe_l2_slice = {
    .name = "l2_slice",
    .summary = "every SM's L2 hits at a stride: sector requests per cycle, low where the "
               "stride puts them all on one slice",
    .sweep_name = "stride_bytes",
    .value_unit = "requests_per_cycle",
    .primary_series = "requests_per_cycle",
    .aggregate_samples = 1,
    .default_stride_bytes = 0,
    .sweep_granularity = 32,
    .variants = ls_variants,
    .example_point = 40 * 128,
    .plan = ls_plan,
    .fill = NULL,
    .decode = ls_decode,
    .release = gd_probe_free_state,
};
