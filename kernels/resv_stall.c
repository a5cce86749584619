/* resv_stall.c -- does a reservation-failed L1 miss block the requests behind
 * it?  (CN110457238A; the reservation fails of GPGPU-Sim.)  Two variants:
 * "ca" (the default: the associativity knee, and the next instruction held
 * up) and "hol" (the requests behind the refused one in its own instruction).
 *
 * One warp.  The kernel first evicts the L2 (kernels/l2_flush.h), so that
 * every line is a miss DRAM serves -- the longest round trip, and so the most
 * ways of a set one warp can reserve before the first fill returns (V100: 256
 * ways, more than its 193-cycle L2 hit leaves time for, fewer than its DRAM
 * round trip).  Then, per round on fresh lines:
 *
 *   load A   k lanes read k distinct lines of one L1 set (the sweep value;
 *            lines --stride apart: the set count times the line size), and
 *            M_OTHER lanes read lines of another set;
 *   load B   an independent load of a line in another set: an L1
 *            miss, so that no replacement policy can turn it into a miss by
 *            evicting it;
 *
 * timed as clock; A; B; B consumed (a shared store) -> clock (B's
 * completion); A consumed -> clock (A's).  B's address adds the top bit (0) of
 * a clock read issued after A, or ptxas issues B first (see rs_ptx).  While k is at most the set's
 * ways every line of A takes a way, reserved until its fill, and B misses
 * behind them: one round trip.  With k > ways the (ways+1)-th line finds every
 * way reserved: a reservation fail.  An L1 that keeps the failed request at the
 * head of its miss FIFO (today's GPUs, GPGPU-Sim) holds B until a fill frees a
 * way -- B takes two round trips, and so does A; one that moves the failed
 * request to the back and lets B in (CN110457238A's reorder with a free tail)
 * keeps B at one.  (Held up for the rest of the round trip, that is: the
 * refusal comes `ways` requests after the set's first miss, so the wait is the
 * round trip less the ways' issue time.)  The knee of A's completion is the
 * associativity.  Series: "a_cycles" (primary: its step pins the knee) and
 * "b_cycles", from the first clock read.  B is a separate, later instruction:
 * what it shows is whether the *next instruction* waits for A's refused request
 * (analysis: next_instruction_blocked).  One instruction holds the load unit
 * until all its requests have left the FIFO (CN110457238A para. 0005,
 * GPGPU-Sim), so B waits at the door whatever the FIFO does with the refused
 * request, unless the unit accepts the next instruction early.
 *
 * Variant "hol": head-of-line blocking *within* an instruction -- do the
 * requests queued behind a refused one (CN110457238A Fig. 1: req-a5 behind
 * req-a4) wait for it?  One load instruction's lanes all complete together,
 * so the requests cannot be timed one by one; the lines are chosen so that
 * the answer changes the instruction's completion by a DRAM round trip.  The
 * sweep value k is the number of *reservers*: it must be the L1's ways (the
 * suite passes the ways pchase_fine measured).  Per round, on fresh lines:
 *
 *   warm-up  ld.cg (the L2 only) of the line that will be refused, of its
 *            "clean twin" and of an L2 reference line, consumed before the
 *            first clock read;
 *   A        ceil(k/32) instructions: k lines of set 0 (cold: DRAM), every
 *            way of the set reserved until the first fill; then ONE last
 *            instruction: lane 0 the refused line (a (k+1)-th line of set 0,
 *            in the L2), lanes 1..RS_HOL_OTHERS cold lines of another set
 *            behind it -- after it in lane order and in address order, so
 *            whichever order a coalescer emits them (the sim's: lane order)
 *            the refused request comes first;
 *   A clean  the same, with lane 0's line in another set (its twin: an L2
 *            hit, never refused) -- the same instruction shape without a
 *            refusal;
 *   refs     a cold line alone (DRAM round trip D), an L2-resident one alone
 *            (s), and the first again (an L1 hit h).
 *
 * Blocked (today's GPUs, GPGPU-Sim): the refused request holds the others
 * until the first fill frees a way (about D - h after A starts), and they go
 * only then: A takes about two round trips, A - A_clean ~ D - h - T with T =
 * A_clean - D the issue time.  Not blocked (CN110457238A's reorder, with the
 * others already in the FIFO: coalescer_rate >= 2, or a two-port tail): the
 * others leave at once and the refused request goes after the first fill as
 * an L2 hit: A - A_clean ~ max(0, s - h - T).  analysis/infer_l1.c decides
 * between the two.  Series "a_cycles", "a_clean_cycles", "dram_cycles",
 * "l2_cycles", "l1_cycles".  With T >= D the first fill returns before the
 * last instruction probes the tags: nothing is refused, and the answer stays
 * open.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/l2_flush.h"
#include "kernels/probe.h"
#include "kernels/ptx_emit.h"

#define RS_OTHER 2          /* lines of A in another set */
#define RS_MAX_K 512
#define RS_DEFAULT_ROUNDS 4
#define RS_MAX_ROUNDS 16
#define RS_DEFAULT_STRIDE 4096
#define RS_HOL_OTHERS 2     /* hol: cold lines of another set behind the refused one */
#define RS_HOL_WORDS 7      /* hol: per round: a, a_clean, dram, l2, l1, two lane-0 sums */
/* hol: the offset of the lines of "another set": one 128-byte line on, which
 * is another set wherever a set's span (sets x line) exceeds 128 bytes -- also
 * where the stride is a multiple of the span, or the span not a power of two
 * (stride / 2, the ca variant's choice, is then set 0 again) */
#define RS_HOL_OTHER_SET_BYTES 128

typedef struct rs_state {
    int hol;                /* the "hol" variant: k reservers, then [refused | others] */
    uint32_t k, rounds;
    uint64_t stride;
    uint64_t flush_bytes;
    uint64_t round_bytes;   /* ca: each round's lines: [k in set 0 | others + B in set sets/2];
                             * hol: [full block | clean block | DRAM line | L2 line] */
    uint64_t block_bytes;   /* hol: one block's lines: k + 1 + RS_HOL_OTHERS strides */
    /* ca: the points of one launch (n 1: k above is the only one), each its
     * k, its lines' and results' offsets in the buffers */
    size_t n;
    struct rs_point {
        uint32_t k;
        uint64_t round_bytes, line_off, out_off;
    } pt[];
} rs_state;

/* ca: points a launch measures after its one eviction pass */
#define RS_MAX_BATCH 16
/* ca: at least this much between two points' lines (a whole number of
 * strides, so every point's first line is in the same set): no sector
 * prefetch or 128-byte promotion of one point's last line reaches the next
 * point's first */
#define RS_POINT_GAP 4096

/* ca: point j's rounds -- with one point on the buffers' starts and the k
 * parameter (%rd1, %rd2, %r1), in a batch on %rd9, %rd3 and %r1 set from
 * the point's own offsets and k. */
static void rs_emit_point(gd_ptx *p, const rs_state *st, size_t j)
{
    const struct rs_point *pt = &st->pt[j];
    uint32_t lanes = pt->k + RS_OTHER, ninstr = (lanes + 31) / 32;
    const char *buf = st->n > 1 ? "%rd9" : "%rd1", *out = st->n > 1 ? "%rd3" : "%rd2";
    char label[32];
    snprintf(label, sizeof label, st->n > 1 ? "$L_round%zu" : "$L_round", j);
    if (st->n > 1)
        gd_ptx_printf(p,
            "\n"
            "    // point %zu: %u lines in the set, its lines %llu bytes into the\n"
            "    // buffer, nothing read them since the eviction pass\n"
            "    add.s64 %%rd9, %%rd1, %llu;\n"
            "    add.s64 %%rd3, %%rd2, %llu;\n"
            "    mov.u32 %%r1, %u;\n",
            j, pt->k, (unsigned long long)pt->line_off, (unsigned long long)pt->line_off,
            (unsigned long long)pt->out_off, pt->k);
    gd_ptx_printf(p,
        "    add.u32 %%r4, %%r1, %u;            // lanes of A\n"
        "    mov.u32 %%r8, 0;\n"
        "%s:\n"
        "    .pragma \"nounroll\";\n"
        "    mul.wide.u32 %%rd4, %%r8, %llu;\n"
        "    add.s64 %%rd4, %s, %%rd4;        // this round's lines\n",
        RS_OTHER, label, (unsigned long long)pt->round_bytes, buf);
    /* the addresses: element e < k at e*stride (one set), then the others and B
     * at stride/2 + i*stride (another set) */
    for (uint32_t i = 0; i < ninstr; i++) {
        gd_ptx_printf(p,
            "    add.u32 %%r10, %%r3, %u;\n"
            "    setp.lt.u32 %%q%u, %%r10, %%r4;\n"
            "    setp.lt.u32 %%p1, %%r10, %%r1;\n"
            "    sub.u32 %%r11, %%r10, %%r1;\n"
            "    mul.wide.u32 %%rd5, %%r10, %llu;\n"
            "    mul.wide.u32 %%rd6, %%r11, %llu;\n"
            "    add.s64 %%rd6, %%rd6, %llu;\n"
            "    selp.b64 %%rd5, %%rd5, %%rd6, %%p1;\n"
            "    add.s64 %%a%u, %%rd4, %%rd5;\n"
            "    mov.u32 %%v%u, 0;\n",
            32 * i, i, (unsigned long long)st->stride, (unsigned long long)st->stride,
            (unsigned long long)(st->stride / 2), i, i);
    }
    gd_ptx_printf(p,
        "    add.s64 %%rd7, %%rd4, %llu;        // B\n"
        "    mov.u64 %%rd10, %%clock64;\n",
        (unsigned long long)(st->stride / 2 + (uint64_t)RS_OTHER * st->stride));
    for (uint32_t i = 0; i < ninstr; i++)
        gd_ptx_printf(p, "    @%%q%u ld.global.ca.u32 %%v%u, [%%a%u];\n", i, i, i);
    /* B's address waits for a clock read issued after A: its top bit, zero
     * at run time (2^63 cycles) but unknown to ptxas, added to the address.
     * Without it ptxas issues B ahead of A on every target, and B never
     * queues behind a refused request; clock reads keep their place among the
     * loads, and a dependence on the address (not on a loaded value) waits for
     * no load.  tests/test_sass_order.c checks the order in the SASS. */
    gd_ptx_printf(p,
        "    mov.u64 %%rd16, %%clock64;         // issued after A\n"
        "    shr.u64 %%rd16, %%rd16, 63;        // 0, which ptxas cannot know\n"
        "    add.s64 %%rd17, %%rd7, %%rd16;\n"
        "    ld.global.ca.u32 %%r15, [%%rd17];  // B\n"
        "    st.shared.u32 [%%r12+128], %%r15;  // its own word: a store the next one\n"
        "                                        // overwrote would be dead, and B with it\n"
        "    mov.u64 %%rd11, %%clock64;\n"
        "    mov.u32 %%r16, 0;\n");
    for (uint32_t i = 0; i < ninstr; i++)
        gd_ptx_printf(p, "    add.u32 %%r16, %%r16, %%v%u;\n", i);
    gd_ptx_printf(p,
        "    st.shared.u32 [%%r12], %%r16;       // A consumed\n"
        "    mov.u64 %%rd12, %%clock64;\n"
        "    sub.s64 %%rd13, %%rd11, %%rd10;\n"
        "    sub.s64 %%rd14, %%rd12, %%rd10;\n"
        "    cvt.u32.u64 %%r17, %%rd13;\n"
        "    cvt.u32.u64 %%r18, %%rd14;\n"
        "    mul.wide.u32 %%rd15, %%r8, 12;\n"
        "    add.s64 %%rd15, %s, %%rd15;\n"
        "    @%%p3 st.global.u32 [%%rd15], %%r17;\n"
        "    @%%p3 st.global.u32 [%%rd15+4], %%r18;\n"
        "    @%%p3 st.global.u32 [%%rd15+8], %%r16;\n"
        "    add.u32 %%r8, %%r8, 1;\n"
        "    setp.lt.u32 %%p2, %%r8, %%r2;\n"
        "    @%%p2 bra %s;\n",
        out, label);
}

static char *rs_ptx(const gd_device_info *dev, const rs_state *st)
{
    uint32_t ninstr = 0;
    for (size_t j = 0; j < st->n; j++)
        if ((st->pt[j].k + RS_OTHER + 31) / 32 > ninstr)
            ninstr = (st->pt[j].k + RS_OTHER + 31) / 32;
    gd_ptx p;
    gd_ptx_init(&p);
    gd_ptx_header(&p, dev->cc_major, dev->cc_minor, 63);
    gd_ptx_printf(&p,
        ".visible .entry gd_resv_stall(\n"
        "    .param .u64 gd_rs_buf,\n"
        "    .param .u64 gd_rs_out,\n"
        "    .param .u32 gd_rs_k,\n"
        "    .param .u32 gd_rs_rounds,\n"
        "    .param .u64 gd_rs_flush\n"
        ")\n"
        ".maxntid 32, 1, 1\n"
        "{\n"
        "    .reg .pred %%p<4>;\n"
        "    .reg .pred %%q<%u>;\n"
        "    .reg .b32 %%r<24>;\n"
        "    .reg .b32 %%v<%u>;\n"
        "    .reg .b64 %%rd<20>;\n"
        "    .reg .b64 %%a<%u>;\n"
        "    .shared .align 4 .b8 gd_sink[384];   // three words per lane: every consuming store lives\n",
        ninstr, ninstr, ninstr);
    gd_l2_flush_decls(&p);
    gd_ptx_printf(&p,
        "\n"
        "    ld.param.u64 %%rd1, [gd_rs_buf];\n"
        "    ld.param.u64 %%rd2, [gd_rs_out];\n");
    if (st->n == 1)
        gd_ptx_printf(&p, "    ld.param.u32 %%r1, [gd_rs_k];\n");
    gd_ptx_printf(&p,
        "    ld.param.u32 %%r2, [gd_rs_rounds];\n"
        "    mov.u32 %%r3, %%tid.x;\n"
        "    setp.eq.u32 %%p3, %%r3, 0;\n"
        "    mov.u32 %%r12, gd_sink;\n"
        "    shl.b32 %%r13, %%r3, 2;\n"
        "    add.s32 %%r12, %%r12, %%r13;\n"
        "    ld.param.u64 %%rd8, [gd_rs_flush];\n");
    gd_l2_flush_emit(&p, "%rd8", st->flush_bytes, "[%r12+256]");
    for (size_t j = 0; j < st->n; j++)
        rs_emit_point(&p, st, j);
    gd_ptx_printf(&p,
        "    ret;\n"
        "}\n");
    return gd_ptx_finish(&p);
}

/* The "hol" variant's timed block: the reservers (%q predicates, addresses in
 * `areg`), then the last instruction (lane 0 the warm line, lanes 1..OTHERS
 * the others; address `lastreg`), which waits for a clock read issued after
 * the reservers (as B does in the "ca" variant: without it ptxas may issue
 * the last load first), all consumed into `sink`, between two clock reads. */
static void rs_hol_block(gd_ptx *p, uint32_t nres, const char *areg, const char *vreg,
                         const char *lastreg, const char *sink, const char *t0, const char *t1)
{
    gd_ptx_printf(p, "    mov.u64 %s, %%clock64;\n", t0);
    for (uint32_t j = 0; j < nres; j++)
        gd_ptx_printf(p, "    @%%q%u ld.global.ca.u32 %s%u, [%s%u];\n", j, vreg, j, areg, j);
    gd_ptx_printf(p,
        "    mov.u64 %%rd16, %%clock64;         // issued after the reservers\n"
        "    shr.u64 %%rd16, %%rd16, 63;        // 0, which ptxas cannot know\n"
        "    add.s64 %%rd17, %s, %%rd16;\n"
        "    @%%p1 ld.global.ca.u32 %%r15, [%%rd17];  // [refused | others]\n"
        "    mov.u32 %%r16, %%r15;\n",
        lastreg);
    for (uint32_t j = 0; j < nres; j++)
        gd_ptx_printf(p, "    add.u32 %%r16, %%r16, %s%u;\n", vreg, j);
    gd_ptx_printf(p,
        "    st.shared.u32 %s, %%r16;           // consumed\n"
        "    mov.u64 %s, %%clock64;\n",
        sink, t1);
}

/* The "hol" variant (see the top of the file): per round, after the warm-up
 * that puts the refused line (and its clean twin and the L2 reference) in the
 * L2 only, five timed regions: A with the refused line, A with its twin in
 * another set, a DRAM miss alone, an L2 hit alone, an L1 hit alone. */
static char *rs_hol_ptx(const gd_device_info *dev, const rs_state *st)
{
    uint32_t nres = (st->k + 31) / 32;
    uint64_t other = RS_HOL_OTHER_SET_BYTES;
    gd_ptx p;
    gd_ptx_init(&p);
    gd_ptx_header(&p, dev->cc_major, dev->cc_minor, 63);
    gd_ptx_printf(&p,
        ".visible .entry gd_resv_stall_hol(\n"
        "    .param .u64 gd_rs_buf,\n"
        "    .param .u64 gd_rs_out,\n"
        "    .param .u32 gd_rs_k,\n"
        "    .param .u32 gd_rs_rounds,\n"
        "    .param .u64 gd_rs_last,\n"
        "    .param .u64 gd_rs_flush\n"
        ")\n"
        ".maxntid 32, 1, 1\n"
        "{\n"
        "    .reg .pred %%p<4>;\n"
        "    .reg .pred %%q<%u>;\n"
        "    .reg .b32 %%r<24>;\n"
        "    .reg .b32 %%v<%u>;\n"
        "    .reg .b32 %%w<%u>;\n"
        "    .reg .b64 %%rd<32>;\n"
        "    .reg .b64 %%a<%u>;\n"
        "    .reg .b64 %%c<%u>;\n"
        "    .shared .align 4 .b8 gd_sink[896];   // seven words per lane: every consuming store lives\n",
        nres, nres, nres, nres, nres);
    gd_l2_flush_decls(&p);
    gd_ptx_printf(&p,
        "\n"
        "    ld.param.u64 %%rd1, [gd_rs_buf];\n"
        "    ld.param.u64 %%rd2, [gd_rs_out];\n"
        "    ld.param.u32 %%r1, [gd_rs_k];\n"
        "    ld.param.u32 %%r2, [gd_rs_rounds];\n"
        "    ld.param.u64 %%rd3, [gd_rs_last];\n"
        "    mov.u32 %%r3, %%tid.x;\n"
        "    setp.eq.u32 %%p3, %%r3, 0;\n"
        "    setp.le.u32 %%p1, %%r3, %u;         // lanes of the last instruction\n"
        "    mov.u32 %%r12, gd_sink;\n"
        "    shl.b32 %%r13, %%r3, 2;\n"
        "    add.s32 %%r12, %%r12, %%r13;\n"
        "    ld.param.u64 %%rd8, [gd_rs_flush];\n",
        RS_HOL_OTHERS);
    gd_l2_flush_emit(&p, "%rd8", st->flush_bytes, "[%r12+640]");
    /* the last instruction's lanes: lane 0 at `last` (set 0: refused) or
     * last + 128 (the clean twin, another set), lane t > 0 at
     * last + t*stride + 128: both after lane 0 in lane and address order */
    gd_ptx_printf(&p,
        "    mul.wide.u32 %%rd5, %%r3, %llu;\n"
        "    add.s64 %%rd5, %%rd5, %llu;\n"
        "    add.s64 %%rd5, %%rd5, %%rd3;        // lane t > 0: an other\n"
        "    selp.b64 %%rd6, %%rd3, %%rd5, %%p3;  // full block: lane 0 the refused line\n"
        "    add.s64 %%rd7, %%rd3, %llu;\n"
        "    selp.b64 %%rd7, %%rd7, %%rd5, %%p3;  // clean block: lane 0 its twin\n"
        "    mul.wide.u32 %%rd29, %%r3, 4;       // lane t's word of a warmed line\n"
        "    mov.u32 %%r8, 0;\n"
        "$L_round:\n"
        "    .pragma \"nounroll\";\n"
        "    mul.wide.u32 %%rd4, %%r8, %llu;\n"
        "    add.s64 %%rd4, %%rd1, %%rd4;        // this round's lines\n"
        "    add.s64 %%rd9, %%rd4, %llu;         // the clean block\n"
        "    add.s64 %%rd20, %%rd4, %%rd6;       // full block: the last instruction\n"
        "    add.s64 %%rd21, %%rd9, %%rd7;       // clean block: the last instruction\n"
        "    add.s64 %%rd22, %%rd4, %llu;        // the DRAM reference line\n"
        "    add.s64 %%rd23, %%rd22, %llu;       // the L2 reference line\n"
        "    // warm-up: the refused line, its twin and the L2 reference into the L2\n"
        "    // only, all 128 bytes (lane t reads word t): an L1 that fetches whole\n"
        "    // lines finds every sector there\n"
        "    add.s64 %%rd24, %%rd4, %%rd3;\n"
        "    add.s64 %%rd24, %%rd24, %%rd29;\n"
        "    add.s64 %%rd25, %%rd9, %%rd3;\n"
        "    add.s64 %%rd25, %%rd25, %%rd29;\n"
        "    add.s64 %%rd30, %%rd23, %%rd29;\n"
        "    ld.global.cg.u32 %%r20, [%%rd24];\n"
        "    ld.global.cg.u32 %%r21, [%%rd25+%llu];\n"
        "    ld.global.cg.u32 %%r22, [%%rd30];\n"
        "    add.u32 %%r20, %%r20, %%r21;\n"
        "    add.u32 %%r20, %%r20, %%r22;\n"
        "    st.shared.u32 [%%r12+512], %%r20;   // wait for them\n",
        (unsigned long long)st->stride, (unsigned long long)other, (unsigned long long)other,
        (unsigned long long)st->round_bytes, (unsigned long long)st->block_bytes,
        (unsigned long long)(2 * st->block_bytes + other), (unsigned long long)st->stride,
        (unsigned long long)other);
    /* the reservers: element e = tid + 32j < k at e*stride (set 0) */
    for (uint32_t j = 0; j < nres; j++)
        gd_ptx_printf(&p,
            "    add.u32 %%r10, %%r3, %u;\n"
            "    setp.lt.u32 %%q%u, %%r10, %%r1;\n"
            "    mul.wide.u32 %%rd26, %%r10, %llu;\n"
            "    add.s64 %%a%u, %%rd4, %%rd26;\n"
            "    add.s64 %%c%u, %%rd9, %%rd26;\n"
            "    mov.u32 %%v%u, 0;\n"
            "    mov.u32 %%w%u, 0;\n",
            32 * j, j, (unsigned long long)st->stride, j, j, j, j);
    gd_ptx_printf(&p, "    mov.u32 %%r15, 0;\n");
    rs_hol_block(&p, nres, "%a", "%v", "%rd20", "[%r12]", "%rd10", "%rd11");
    gd_ptx_printf(&p, "    mov.u32 %%r17, %%r16;\n");
    rs_hol_block(&p, nres, "%c", "%w", "%rd21", "[%r12+128]", "%rd12", "%rd13");
    gd_ptx_printf(&p,
        "    mov.u64 %%rd14, %%clock64;\n"
        "    ld.global.ca.u32 %%r18, [%%rd22];  // a DRAM round trip\n"
        "    st.shared.u32 [%%r12+256], %%r18;\n"
        "    mov.u64 %%rd15, %%clock64;\n"
        "    mov.u64 %%rd18, %%clock64;\n"
        "    ld.global.ca.u32 %%r19, [%%rd23];  // an L2 hit\n"
        "    st.shared.u32 [%%r12+384], %%r19;\n"
        "    mov.u64 %%rd19, %%clock64;\n"
        "    mov.u64 %%rd30, %%clock64;\n"
        "    ld.global.ca.u32 %%r23, [%%rd22+4]; // the DRAM line's sector again: an L1 hit\n"
        "                                        // (another word, or ptxas reuses the value)\n"
        "    st.shared.u32 [%%r12+768], %%r23;\n"
        "    mov.u64 %%rd31, %%clock64;\n"
        "    mul.wide.u32 %%rd27, %%r8, %d;\n"
        "    add.s64 %%rd27, %%rd2, %%rd27;\n"
        "    sub.s64 %%rd28, %%rd11, %%rd10;\n"
        "    cvt.u32.u64 %%r10, %%rd28;\n"
        "    @%%p3 st.global.u32 [%%rd27], %%r10;\n"
        "    sub.s64 %%rd28, %%rd13, %%rd12;\n"
        "    cvt.u32.u64 %%r10, %%rd28;\n"
        "    @%%p3 st.global.u32 [%%rd27+4], %%r10;\n"
        "    sub.s64 %%rd28, %%rd15, %%rd14;\n"
        "    cvt.u32.u64 %%r10, %%rd28;\n"
        "    @%%p3 st.global.u32 [%%rd27+8], %%r10;\n"
        "    sub.s64 %%rd28, %%rd19, %%rd18;\n"
        "    cvt.u32.u64 %%r10, %%rd28;\n"
        "    @%%p3 st.global.u32 [%%rd27+12], %%r10;\n"
        "    sub.s64 %%rd28, %%rd31, %%rd30;\n"
        "    cvt.u32.u64 %%r10, %%rd28;\n"
        "    @%%p3 st.global.u32 [%%rd27+16], %%r10;\n"
        "    @%%p3 st.global.u32 [%%rd27+20], %%r17;\n"
        "    @%%p3 st.global.u32 [%%rd27+24], %%r16;\n"
        "    add.u32 %%r8, %%r8, 1;\n"
        "    setp.lt.u32 %%p2, %%r8, %%r2;\n"
        "    @%%p2 bra $L_round;\n"
        "    ret;\n"
        "}\n",
        4 * RS_HOL_WORDS);
    return gd_ptx_finish(&p);
}

static int rs_plan_points(const gd_probe_opts *opts, const gd_device_info *dev,
                          const uint64_t *points, size_t n, gd_probe_plan *out, gd_err *err)
{
    memset(out, 0, sizeof *out);
    out->opts = *opts;
    gd_probe_opts *o = &out->opts;
    int hol = !strcmp(o->variant, "hol");
    if (!hol && o->variant[0] && strcmp(o->variant, "ca"))
        return gd_fail(err, "resv_stall: unknown variant '%s' (ca or hol)", o->variant);
    if (!o->stride_bytes)
        o->stride_bytes = RS_DEFAULT_STRIDE;
    if (o->stride_bytes % 256)
        return gd_fail(err, "resv_stall: --stride (sets x line) must be a multiple of 256 bytes, "
                            "got %llu",
                       (unsigned long long)o->stride_bytes);
    if (!o->samples)
        o->samples = RS_DEFAULT_ROUNDS;
    if (o->samples > RS_MAX_ROUNDS)
        return gd_fail(err, "resv_stall: at most %d rounds (--samples), got %u", RS_MAX_ROUNDS,
                       o->samples);
    if (n < 1 || n > (hol ? 1 : RS_MAX_BATCH))
        return gd_fail(err, "resv_stall: %zu points in one launch (%s: 1..%d)", n,
                       hol ? "hol" : "ca", hol ? 1 : RS_MAX_BATCH);
    for (size_t j = 0; j < n; j++)
        if (points[j] < 1 || points[j] > RS_MAX_K)
            return gd_fail(err, "resv_stall: %llu lines in one set is outside 1..%d",
                           (unsigned long long)points[j], RS_MAX_K);
    uint64_t point = points[0];
    rs_state *st = calloc(1, sizeof *st + n * sizeof st->pt[0]);
    if (!st)
        return gd_fail(err, "resv_stall: out of memory");
    st->hol = hol;
    st->k = (uint32_t)point;
    st->rounds = o->samples;
    st->stride = o->stride_bytes;
    st->n = n;
    uint64_t gap = (RS_POINT_GAP + st->stride - 1) / st->stride * st->stride;
    uint64_t line_bytes = 0;
    uint32_t intended = 0;
    for (size_t j = 0; j < n; j++) {
        struct rs_point *pt = &st->pt[j];
        pt->k = (uint32_t)points[j];
        uint64_t span = (pt->k > RS_OTHER + 1 ? pt->k : RS_OTHER + 1) * st->stride;
        pt->round_bytes = span + st->stride; /* fresh tags every round */
        pt->line_off = line_bytes;
        pt->out_off = 12 * (uint64_t)st->rounds * j;
        line_bytes += pt->round_bytes * st->rounds + (j + 1 < n ? gap : 0);
        /* A's load instructions and B (the flush pass's loads are ld.cg,
         * counted apart) */
        intended += (pt->k + RS_OTHER + 31) / 32 + 1;
    }
    st->round_bytes = st->pt[0].round_bytes;
    if (hol) {
        st->block_bytes = (point + 1 + RS_HOL_OTHERS) * st->stride;
        st->round_bytes = 2 * st->block_bytes + 2 * st->stride;
        line_bytes = st->round_bytes * st->rounds;
    }
    st->flush_bytes = gd_l2_flush_bytes(dev);
    out->state = st;
    out->point = point;
    out->ptx = hol ? rs_hol_ptx(dev, st) : rs_ptx(dev, st);
    if (!out->ptx) {
        free(st);
        out->state = NULL;
        return gd_fail(err, "resv_stall: out of memory");
    }
    snprintf(out->entry, sizeof out->entry, hol ? "gd_resv_stall_hol" : "gd_resv_stall");
    out->grid[0] = out->grid[1] = out->grid[2] = 1;
    out->block[0] = 32;
    out->block[1] = out->block[2] = 1;
    out->buffers[0] = (gd_probe_buffer){.name = "lines", .bytes = line_bytes, .host_fill = 1};
    out->buffers[1] = (gd_probe_buffer){
        .name = "out", .bytes = (hol ? 4 * RS_HOL_WORDS : 12) * (size_t)st->rounds * n,
        .copy_out = 1};
    out->buffer_count = 2;
    out->params[0] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 0};
    out->params[1] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 1};
    out->params[2] = (gd_probe_param){.kind = GD_PARAM_U32, .value = n == 1 ? st->k : 0};
    out->params[3] = (gd_probe_param){.kind = GD_PARAM_U32, .value = st->rounds};
    out->param_count = 4;
    if (hol)
        out->params[out->param_count++] =
            (gd_probe_param){.kind = GD_PARAM_U64, .value = st->k * st->stride};
    gd_l2_flush_attach(out, st->flush_bytes);
    /* hol: A twice (reservers and the last instruction) and the three
     * references */
    out->intended_instructions = hol ? 2 * ((st->k + 31) / 32 + 1) + 3 : intended;
    return 0;
}

static int rs_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                   gd_probe_plan *out, gd_err *err)
{
    return rs_plan_points(opts, dev, &point, 1, out, err);
}

/* ca batches; hol measures one point a launch (its sweep is one point: the
 * ways pchase_fine measured) */
static unsigned rs_batch_max(const gd_probe_opts *opts)
{
    return strcmp(opts->variant, "hol") ? RS_MAX_BATCH : 1;
}

static int rs_fill(const gd_probe_plan *plan, unsigned index, const gd_devptr *addresses,
                   void *host, gd_err *err)
{
    (void)addresses;
    if (index != 0)
        return gd_fail(err, "resv_stall: no initial contents for buffer %u", index);
    uint32_t *w = host;
    for (size_t i = 0; i < plan->buffers[0].bytes / 4; i++)
        w[i] = 1;
    return 0;
}

/* The "hol" variant's rounds: four series, and lane 0's sums checked (one
 * value per reserving instruction and one of the last). */
static int rs_hol_decode(const rs_state *st, const uint8_t *buf, gd_probe_result *out,
                         gd_err *err)
{
    static const char *const names[5] = {"a_cycles", "a_clean_cycles", "dram_cycles",
                                         "l2_cycles", "l1_cycles"};
    gd_series *s[5];
    for (int i = 0; i < 5; i++)
        if (!(s[i] = gd_probe_result_add(out, names[i], st->rounds)))
            return gd_fail(err, "resv_stall: out of memory");
    uint32_t expect = (st->k + 31) / 32 + 1;
    for (uint32_t r = 0; r < st->rounds; r++) {
        uint32_t w[RS_HOL_WORDS];
        memcpy(w, buf + 4 * RS_HOL_WORDS * (size_t)r, sizeof w);
        if (w[5] != expect || w[6] != expect)
            return gd_fail(err, "resv_stall: round %u read sums of %u and %u, expected %u: the "
                                "loads of A did not all happen",
                           r, w[5], w[6], expect);
        for (int i = 0; i < 5; i++)
            s[i]->samples[r] = w[i];
    }
    return 0;
}

static int rs_decode_batch(const gd_probe_plan *plan, const gd_devptr *addresses,
                           void *const *host, gd_probe_result *results, size_t n, gd_err *err)
{
    (void)addresses;
    const rs_state *st = plan->state;
    if (n != st->n)
        return gd_fail(err, "resv_stall: %zu results asked of a launch of %zu points", n, st->n);
    if (st->hol)
        return rs_hol_decode(st, host[1], results, err);
    for (size_t j = 0; j < n; j++) {
        const struct rs_point *pt = &st->pt[j];
        const uint8_t *buf = (const uint8_t *)host[1] + pt->out_off;
        gd_probe_result *out = &results[j];
        gd_series *b = gd_probe_result_add(out, "b_cycles", st->rounds);
        gd_series *a = gd_probe_result_add(out, "a_cycles", st->rounds);
        if (!a || !b)
            return gd_fail(err, "resv_stall: out of memory");
        /* lane 0 loads element 0, 32, 64, ...: one per instruction it is active in */
        uint32_t lanes = pt->k + RS_OTHER, expect = (lanes + 31) / 32;
        for (uint32_t r = 0; r < st->rounds; r++) {
            uint32_t tb, ta, sum;
            memcpy(&tb, buf + 12 * r, 4);
            memcpy(&ta, buf + 12 * r + 4, 4);
            memcpy(&sum, buf + 12 * r + 8, 4);
            if (sum != expect)
                return gd_fail(err, "resv_stall: k=%u, round %u read a sum of %u, expected %u: "
                                    "the loads of A did not all happen",
                               pt->k, r, sum, expect);
            b->samples[r] = tb;
            a->samples[r] = ta;
        }
    }
    return 0;
}

static int rs_decode(const gd_probe_plan *plan, const gd_devptr *addresses, void *const *host,
                     gd_probe_result *out, gd_err *err)
{
    return rs_decode_batch(plan, addresses, host, out, 1, err);
}

static const char *const rs_variants[] = {"ca", "hol", NULL};

const gd_probe gd_probe_resv_stall = {
    .name = "resv_stall",
    .summary = "lines of one L1 set beyond its ways, then an independent miss (ca), or a "
               "refused request with others behind it in one instruction (hol): head-of-line "
               "blocking of reservation-failed misses",
    .sweep_name = "lines_in_set",
    .value_unit = "cycles",
    .aggregate_samples = 1,
    .ramp_curve = 1,
    .first_step_only = 1,
    .primary_series = "a_cycles",
    .default_stride_bytes = RS_DEFAULT_STRIDE,
    .sweep_granularity = 1,
    .variants = rs_variants,
    .example_point = 6,
    .plan = rs_plan,
    .fill = rs_fill,
    .decode = rs_decode,
    .release = gd_probe_free_state,
    .batch_max = rs_batch_max,
    .plan_batch = rs_plan_points,
    .decode_batch = rs_decode_batch,
};
