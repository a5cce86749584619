/* icache_av.c -- attacker and victim: who shares an instruction cache (Jia et
 * al. 2019, sec. 3.3.3, their Fig. 3.7).
 *
 * Two warps run at the same time, each looping over its own straight-line FFMA
 * block (ffma_block.h).  The victim's block is fixed (--footprint bytes: sized
 * to fit the level under test, and to miss the levels above it); the attacker's
 * is the sweep value.  The victim times each pass (CPI).  When the two blocks
 * together outgrow a cache both warps fetch through, the victim's lines are
 * evicted by the attacker's and its CPI rises to the next level's; when the
 * warps sit where they do not share that cache, the victim does not notice the
 * attacker at all.  Placements (the variant):
 *
 *   same_sub      one CTA; warps 0 and P, P the sub-partitions per SM (warp w
 *                 runs on scheduler w mod P), so both are on sub-partition 0;
 *   same_sub_issue the control of same_sub: the same two warps, but the
 *                 attacker has no code footprint -- a loop over a block of
 *                 AV_ISSUE_BODY FFMAs, run as many times as it takes to issue
 *                 about as many instructions per pass as a same_sub attacker
 *                 of that size.  Two warps on one sub-partition share its
 *                 scheduler's issue slot as well as its L0, and the attacker's
 *                 share of the slot grows with its block (its per-pass
 *                 handshake -- a flag load it waits for -- weighs less), so a
 *                 same_sub victim slows down with the attacker's size even
 *                 where no cache is shared.  This pair takes the issue slot
 *                 and leaves the L0 alone: analysis/infer_icache.c holds
 *                 same_sub against it, so the verdict is about the cache;
 *   other_sub     one CTA; warps 0 and 1: two sub-partitions of one SM;
 *   other_sm      two CTAs of one warp: on the simulator CTA i goes to SM i;
 *                 on a GPU the two CTAs land on two SMs in practice, and the
 *                 SM each ran on is recorded (%smid) rather than assumed;
 *   data_other_sm as other_sm, but the attacker streams the sweep value's bytes
 *                 of global memory with ld.global.cg (L2 only) instead of
 *                 running code: the victim's code is only evicted if code and
 *                 data share the chip-wide L2.
 *
 * Overlap: the attacker raises a flag after its first pass, the victim waits
 * for it after its own warm-up pass (so every timed pass runs against a warm
 * attacker) and raises another when it is done, which stops the attacker.  Both
 * spins are bounded, and whether the victim saw the attacker start is recorded.
 * Series: "victim_cpi" (the timed passes), "attacker_cpi", and the placement
 * obtained: "victim_sm", "attacker_sm", "victim_warp", "attacker_warp" (%warpid),
 * "overlap" (1: the attacker was running).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/ffma_block.h"
#include "kernels/probe.h"
#include "kernels/ptx_emit.h"

#define AV_DEFAULT_VICTIM 4096
#define AV_DEFAULT_SAMPLES 8
#define AV_MAX_SAMPLES 64
#define AV_ATTACKER_RECORDS 64        /* attacker passes recorded */
#define AV_ATTACKER_MAX_PASSES 100000 /* the attacker stops by itself after this many */
#define AV_WAIT_SPINS (1u << 20)      /* the victim gives up waiting after this many */
#define AV_FLAG_PASSES 12             /* flags: the code attacker's passes so far */
#define AV_DATA_LINE 128              /* one warp's coalesced ld.global.cg */
#define AV_DATA_WARPS 16              /* warps of the data attacker's CTA */
#define AV_ISSUE_BODY 32               /* same_sub_issue: FFMAs in the attacker's loop */
#define AV_ISSUE_LOOP 3                /* its counter, compare and branch */
#define AV_SASS_EXTRA_MIN 60
#define AV_SASS_EXTRA_MAX 320

/* the order of analysis/infer.h's gd_placement */
enum { AV_SAME_SUB, AV_OTHER_SUB, AV_OTHER_SM, AV_DATA_OTHER_SM, AV_SAME_SUB_ISSUE };
static const char *const av_variants[] = {"same_sub", "other_sub", "other_sm", "data_other_sm",
                                          "same_sub_issue", NULL};

typedef struct av_state {
    int placement;
    uint32_t victim_len, attacker_len; /* instructions */
    uint32_t issue_loops;              /* same_sub_issue: passes over its small block */
    uint64_t data_bytes;
    uint32_t passes;                   /* victim: 1 warm + samples */
} av_state;

/* out layout (u32 words) */
#define W_VICTIM_SM 0
#define W_ATTACKER_SM 1
#define W_VICTIM_WARP 2
#define W_ATTACKER_WARP 3
#define W_OVERLAP 4
#define W_ATTACKER_PASSES 5
#define W_CHECK 6 /* f32 sums, victim then attacker */
#define W_VICTIM 8
#define W_ATTACKER0 (W_VICTIM + AV_MAX_SAMPLES + 1) /* the victim has 1 + samples slots */

static void av_store_pass(gd_ptx *p, const char *label, int base_word)
{
    gd_ptx_printf(p,
        "    mov.u64 %%rd5, %%clock64;\n"
        "    sub.s64 %%rd6, %%rd5, %%rd4;\n"
        "    cvt.u32.u64 %%r9, %%rd6;\n"
        "    // %s: store the pass's cycles\n"
        "    add.u32 %%r10, %%r8, %d;\n"
        "    min.u32 %%r10, %%r10, %%r11;\n"
        "    mul.wide.u32 %%rd7, %%r10, 4;\n"
        "    add.s64 %%rd8, %%rd1, %%rd7;\n"
        "    @%%p9 st.global.u32 [%%rd8], %%r9;\n",
        label, base_word);
}

/* Spins (bounded) until the flag word at [%rd2+off] satisfies `until`
 * against %r21 (AV_NONZERO: non-zero; AV_EQUAL: equal to %r21; AV_AT_LEAST:
 * at least %r21, unsigned); %p8 is left true if it did. */
enum { AV_NONZERO, AV_EQUAL, AV_AT_LEAST };
static void av_wait(gd_ptx *p, const char *label, int off, int until)
{
    /* %p5: keep spinning */
    static const char *const keep[] = {"eq.u32 %p5, %r17, 0", "ne.u32 %p5, %r17, %r21",
                                       "lo.u32 %p5, %r17, %r21"};
    gd_ptx_printf(p,
        "    mov.u32 %%r16, 0;\n"
        "%s:\n"
        "    .pragma \"nounroll\";\n"
        "    ld.volatile.global.u32 %%r17, [%%rd2+%d];\n"
        "    add.u32 %%r16, %%r16, 1;\n"
        "    setp.%s;\n"
        "    setp.lt.u32 %%p6, %%r16, %u;\n"
        "    and.pred %%p7, %%p5, %%p6;\n"
        "    @%%p7 bra %s;\n"
        "    not.pred %%p8, %%p5;\n",
        label, off, keep[until], AV_WAIT_SPINS, label);
}

static char *av_ptx(const gd_device_info *dev, const av_state *st)
{
    int data = st->placement == AV_DATA_OTHER_SM;
    gd_ptx p;
    gd_ptx_init(&p);
    gd_ptx_header(&p, dev->cc_major, dev->cc_minor, 63);
    gd_ptx_printf(&p,
        ".visible .entry gd_icache_av(\n"
        "    .param .u64 gd_av_out,\n"
        "    .param .u64 gd_av_flags,\n"
        "    .param .u64 gd_av_data,\n"
        "    .param .u32 gd_av_by_cta,\n"
        "    .param .u32 gd_av_victim_id,\n"
        "    .param .u32 gd_av_attacker_id,\n"
        "    .param .u32 gd_av_passes,\n"
        "    .param .u32 gd_av_data_lines,\n"
        "    .param .f32 gd_av_seed,\n"
        "    .param .f32 gd_av_mul,\n"
        "    .param .f32 gd_av_add\n"
        ")\n"
        "{\n"
        "    .reg .pred %%p<10>;\n"
        "    .reg .b32 %%r<40>;\n"
        "    .reg .b64 %%rd<16>;\n"
        "    .reg .f32 %%f<4>;\n");
    gd_ffma_decls(&p);
    gd_ptx_printf(&p,
        "    ld.param.u64 %%rd1, [gd_av_out];\n"
        "    ld.param.u64 %%rd2, [gd_av_flags];\n"
        "    ld.param.u64 %%rd3, [gd_av_data];\n"
        "    ld.param.u32 %%r1, [gd_av_by_cta];\n"
        "    ld.param.u32 %%r2, [gd_av_victim_id];\n"
        "    ld.param.u32 %%r3, [gd_av_attacker_id];\n"
        "    ld.param.u32 %%r4, [gd_av_passes];\n"
        "    ld.param.u32 %%r5, [gd_av_data_lines];\n"
        "    ld.param.f32 %%f1, [gd_av_seed];\n"
        "    ld.param.f32 %%f2, [gd_av_mul];\n"
        "    ld.param.f32 %%f3, [gd_av_add];\n"
        "    mov.u32 %%r6, %%tid.x;\n"
        "    and.b32 %%r7, %%r6, 31;\n"
        "    shr.u32 %%r12, %%r6, 5;           // warp in the CTA\n"
        "    setp.eq.u32 %%p9, %%r6, 0;        // thread 0 of a role writes the results\n"
        "    // who am I: the warp index in the CTA, or the CTA index\n"
        "    mov.u32 %%r13, %%ctaid.x;\n"
        "    setp.ne.u32 %%p1, %%r1, 0;\n"
        "    selp.b32 %%r22, %%r13, %%r12, %%p1;\n"
        "    setp.eq.u32 %%p2, %%r22, %%r2;    // victim\n"
        "    setp.eq.u32 %%p3, %%r22, %%r3;    // attacker\n"
        "    setp.ne.u32 %%p4, %%r12, 0;\n"
        "    and.pred %%p4, %%p4, %%p1;\n"
        "    and.pred %%p4, %%p4, %%p2;        // a victim CTA's other warps: no role\n"
        "    @%%p4 bra $L_done;\n"
        "    mov.u32 %%r14, %%smid;\n"
        "    mov.u32 %%r15, %%warpid;\n"
        "    @%%p2 bra $L_victim;\n"
        "    @%%p3 bra $L_attacker;\n"
        "$L_done:\n"
        "    ret;\n"
        "\n"
        "$L_victim:\n"
        "    setp.eq.u32 %%p9, %%r7, 0;\n"
        "    @%%p9 st.global.u32 [%%rd1+%d], %%r14;\n"
        "    @%%p9 st.global.u32 [%%rd1+%d], %%r15;\n",
        4 * W_VICTIM_SM, 4 * W_VICTIM_WARP);
    gd_ffma_init(&p, "%f1", "%f2", "%f3");
    gd_ptx_printf(&p,
        "    mov.u32 %%r11, %u;                 // last victim slot\n"
        "    mov.u32 %%r23, 1;                 // overlap: every handshake answered\n"
        "    mov.u32 %%r8, 0;\n"
        "$L_vpass:\n"
        "    .pragma \"nounroll\";\n"
        "    mov.u64 %%rd4, %%clock64;\n",
        W_VICTIM + AV_MAX_SAMPLES);
    gd_ffma_block(&p, st->victim_len);
    av_store_pass(&p, "victim", W_VICTIM);
    if (!data) {
        /* after the warm-up pass: wait until the attacker runs; after
         * every pass: until it has made one whole pass since this one
         * ended (its count two past what it was then) */
        gd_ptx_printf(&p,
            "    setp.ne.u32 %%p4, %%r8, 0;\n"
            "    @%%p4 bra $L_vgap;\n");
        av_wait(&p, "$L_vwait", 0, AV_NONZERO);
        gd_ptx_printf(&p,
            "    selp.b32 %%r23, 1, 0, %%p8;\n"
            "$L_vgap:\n"
            "    ld.volatile.global.u32 %%r21, [%%rd2+%d];\n"
            "    add.u32 %%r21, %%r21, 2;\n",
            AV_FLAG_PASSES);
        av_wait(&p, "$L_vgapwait", AV_FLAG_PASSES, AV_AT_LEAST);
        gd_ptx_printf(&p,
            "    selp.b32 %%r24, 1, 0, %%p8;\n"
            "    and.b32 %%r23, %%r23, %%r24;\n");
    } else {
        /* hand over to the attacker, and wait until it has streamed */
        gd_ptx_printf(&p,
            "    shl.b32 %%r21, %%r8, 1;\n"
            "    add.u32 %%r21, %%r21, 1;\n"
            "    st.volatile.global.u32 [%%rd2], %%r21;\n"
            "    add.u32 %%r21, %%r21, 1;\n");
        av_wait(&p, "$L_vwait", 0, AV_EQUAL);
        gd_ptx_printf(&p,
            "    selp.b32 %%r24, 1, 0, %%p8;\n"
            "    and.b32 %%r23, %%r23, %%r24;\n");
    }
    gd_ptx_printf(&p,
        "$L_vnext:\n"
        "    add.u32 %%r8, %%r8, 1;\n"
        "    setp.lt.u32 %%p4, %%r8, %%r4;\n"
        "    @%%p4 bra $L_vpass;\n"
        "    @%%p9 st.global.u32 [%%rd1+%d], %%r23;\n"
        "    st.volatile.global.u32 [%%rd2+4], 1;   // done\n",
        4 * W_OVERLAP);
    gd_ffma_fold(&p);
    gd_ptx_printf(&p,
        "    @%%p9 st.global.f32 [%%rd1+%d], %s;\n"
        "    ret;\n"
        "\n"
        "$L_attacker:\n"
        "    setp.eq.u32 %%p9, %s, 0;        // its first thread writes the results\n"
        "    @%%p9 st.global.u32 [%%rd1+%d], %%r14;\n"
        "    @%%p9 st.global.u32 [%%rd1+%d], %%r15;\n"
        "    mov.u32 %%r11, %u;                 // last attacker slot\n"
        "    mov.u32 %%r8, 0;\n",
        4 * W_CHECK, GD_FFMA_SUM, data ? "%r6" : "%r7", 4 * W_ATTACKER_SM,
        4 * W_ATTACKER_WARP, W_ATTACKER0 + AV_ATTACKER_RECORDS);
    if (!data) {
        gd_ffma_init(&p, "%f1", "%f2", "%f3");
        gd_ptx_printf(&p,
            "$L_apass:\n"
            "    .pragma \"nounroll\";\n"
            "    mov.u64 %%rd4, %%clock64;\n");
        if (st->placement == AV_SAME_SUB_ISSUE) {
            /* as many instructions, from a few hundred bytes of code */
            gd_ptx_printf(&p,
                "    mov.u32 %%r32, 0;\n"
                "$L_aloop:\n"
                "    .pragma \"nounroll\";\n");
            gd_ffma_block(&p, AV_ISSUE_BODY);
            gd_ptx_printf(&p,
                "    add.u32 %%r32, %%r32, 1;\n"
                "    setp.lt.u32 %%p7, %%r32, %u;\n"
                "    @%%p7 bra $L_aloop;\n",
                st->issue_loops);
        } else {
            gd_ffma_block(&p, st->attacker_len);
        }
        av_store_pass(&p, "attacker", W_ATTACKER0);
        gd_ptx_printf(&p,
            "    setp.eq.u32 %%p4, %%r8, 0;\n"
            "    @%%p4 st.volatile.global.u32 [%%rd2], 1;   // running: after the first pass\n"
            "    add.u32 %%r8, %%r8, 1;\n"
            "    st.volatile.global.u32 [%%rd2+%d], %%r8;   // passes made\n"
            "    ld.volatile.global.u32 %%r17, [%%rd2+4];\n"
            "    setp.eq.u32 %%p5, %%r17, 0;\n"
            "    setp.lt.u32 %%p6, %%r8, %u;\n"
            "    and.pred %%p5, %%p5, %%p6;\n"
            "    @%%p5 bra $L_apass;\n"
            "    @%%p9 st.global.u32 [%%rd1+%d], %%r8;\n",
            AV_FLAG_PASSES, AV_ATTACKER_MAX_PASSES, 4 * W_ATTACKER_PASSES);
        gd_ffma_fold(&p);
        gd_ptx_printf(&p, "    @%%p9 st.global.f32 [%%rd1+%d], %s;\n", 4 * (W_CHECK + 1),
                      GD_FFMA_SUM);
    } else {
        /* every warp of the attacker CTA streams its share of the lines, 8
         * independent loads at a time; thread 0 keeps the handshake */
        gd_ptx_printf(&p,
            "    mov.u32 %%r20, 0;                 // sum of the data read\n"
            "    mov.u32 %%r25, %%ntid.x;\n"
            "    shr.u32 %%r25, %%r25, 5;          // warps\n"
            "    mul.wide.u32 %%rd9, %%r7, 4;\n"
            "    add.s64 %%rd9, %%rd3, %%rd9;        // this lane's word of each line\n"
            "    mul.wide.u32 %%rd11, %%r12, %d;\n"
            "    add.s64 %%rd9, %%rd9, %%rd11;       // this warp's first line\n"
            "    mul.wide.u32 %%rd12, %%r25, %d;    // step: one line per warp\n"
            "$L_apass:\n"
            "    .pragma \"nounroll\";\n"
            "    shl.b32 %%r21, %%r8, 1;\n"
            "    add.u32 %%r21, %%r21, 1;\n"
            "    @%%p9 bra $L_await;\n"
            "    bra.uni $L_agot;\n",
            AV_DATA_LINE, AV_DATA_LINE);
        av_wait(&p, "$L_await", 0, AV_EQUAL);
        gd_ptx_printf(&p,
            "    ld.volatile.global.u32 %%r26, [%%rd2+4];\n"
            "    setp.ne.u32 %%p4, %%r26, 0;\n"
            "    not.pred %%p6, %%p8;\n"
            "    or.pred %%p4, %%p4, %%p6;\n"
            "    selp.b32 %%r27, 1, 0, %%p4;\n"
            "    st.volatile.global.u32 [%%rd2+8], %%r27;   // stop: done or gave up\n"
            "$L_agot:\n"
            "    bar.sync 0;\n"
            "    ld.volatile.global.u32 %%r27, [%%rd2+8];\n"
            "    setp.ne.u32 %%p4, %%r27, 0;\n"
            "    @%%p4 bra $L_aend;\n"
            "    mov.u64 %%rd4, %%clock64;\n"
            "    mov.u64 %%rd10, %%rd9;\n"
            "    mov.u32 %%r18, %%r12;\n"
            "$L_stream:\n"
            "    .pragma \"nounroll\";\n"
            "    ld.global.cg.u32 %%r30, [%%rd10];\n"
            "    add.u32 %%r18, %%r18, %%r25;\n"
            "    setp.lt.u32 %%p7, %%r18, %%r5;\n"
            "    add.s64 %%rd10, %%rd10, %%rd12;\n"
            "    add.u32 %%r20, %%r20, %%r30;\n"
            "    @%%p7 bra $L_stream;\n"
            "    bar.sync 0;\n");
        av_store_pass(&p, "attacker", W_ATTACKER0);
        gd_ptx_printf(&p,
            "    add.u32 %%r21, %%r21, 1;\n"
            "    @%%p9 st.volatile.global.u32 [%%rd2], %%r21;\n"
            "    add.u32 %%r8, %%r8, 1;\n"
            "    setp.lt.u32 %%p4, %%r8, %%r4;\n"
            "    @%%p4 bra $L_apass;\n"
            "$L_aend:\n"
            "    @%%p9 st.global.u32 [%%rd1+%d], %%r8;\n"
            "    @%%p9 st.global.u32 [%%rd1+%d], %%r20;  // keeps the loads alive\n",
            4 * W_ATTACKER_PASSES, 4 * (W_CHECK + 1));
    }
    gd_ptx_printf(&p, "    ret;\n}\n");
    return gd_ptx_finish(&p);
}

static int av_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                   gd_probe_plan *out, gd_err *err)
{
    memset(out, 0, sizeof *out);
    out->opts = *opts;
    gd_probe_opts *o = &out->opts;
    if (!o->variant[0])
        strcpy(o->variant, av_variants[0]);
    int placement = -1;
    for (int i = 0; av_variants[i]; i++)
        if (!strcmp(o->variant, av_variants[i]))
            placement = i;
    if (placement < 0)
        return gd_fail(err, "icache_av: unknown placement '%s' (expected same_sub, other_sub, "
                            "other_sm or data_other_sm)",
                       o->variant);
    if (!o->samples)
        o->samples = AV_DEFAULT_SAMPLES;
    if (o->samples > AV_MAX_SAMPLES)
        return gd_fail(err, "icache_av: at most %d samples, got %u", AV_MAX_SAMPLES, o->samples);
    uint64_t victim = o->footprint_bytes ? o->footprint_bytes : AV_DEFAULT_VICTIM;
    uint64_t vlen = victim / GD_INSTRUCTION_BYTES;
    if (vlen < 1 || vlen > (1u << 22))
        return gd_fail(err, "icache_av: victim of %llu bytes of code is outside [16, %u]",
                       (unsigned long long)victim, (1u << 22) * GD_INSTRUCTION_BYTES);
    uint32_t subs = dev->subpartitions_per_sm > 0 ? (uint32_t)dev->subpartitions_per_sm : 4;
    int same_sub = placement == AV_SAME_SUB || placement == AV_SAME_SUB_ISSUE;
    if ((placement == AV_OTHER_SM || placement == AV_DATA_OTHER_SM) && dev->sm_count == 1)
        return gd_fail(err, GD_PROBE_NOT_ON_DEVICE "icache_av: the %s placement needs two SMs, "
                            "the device has one",
                       o->variant);
    if (same_sub && subs > 31)
        return gd_fail(err, "icache_av: %u sub-partitions per SM is more than a CTA can span",
                       subs);
    av_state *st = calloc(1, sizeof *st);
    if (!st)
        return gd_fail(err, "icache_av: out of memory");
    st->placement = placement;
    st->victim_len = (uint32_t)vlen;
    st->passes = 1 + o->samples;
    if (placement == AV_DATA_OTHER_SM) {
        st->data_bytes = point < AV_DATA_LINE ? AV_DATA_LINE : point - point % AV_DATA_LINE;
        if (st->data_bytes / AV_DATA_LINE > UINT32_MAX) {
            free(st);
            return gd_fail(err, "icache_av: %llu bytes of data is too much",
                           (unsigned long long)point);
        }
    } else {
        uint64_t alen = point / GD_INSTRUCTION_BYTES;
        if (alen < 1 || alen > (1u << 22)) {
            free(st);
            return gd_fail(err, "icache_av: attacker of %llu bytes of code is outside [16, %u]",
                           (unsigned long long)point, (1u << 22) * GD_INSTRUCTION_BYTES);
        }
        st->attacker_len = (uint32_t)alen;
        if (placement == AV_SAME_SUB_ISSUE) {
            st->issue_loops = st->attacker_len / (AV_ISSUE_BODY + AV_ISSUE_LOOP);
            if (st->issue_loops == 0)
                st->issue_loops = 1;
        }
    }
    o->footprint_bytes = victim;
    o->stride_bytes = GD_INSTRUCTION_BYTES;
    out->state = st;
    out->point = point;
    out->ptx = av_ptx(dev, st);
    if (!out->ptx) {
        free(st);
        out->state = NULL;
        return gd_fail(err, "icache_av: out of memory");
    }
    snprintf(out->entry, sizeof out->entry, "gd_icache_av");
    uint32_t by_cta = placement == AV_OTHER_SM || placement == AV_DATA_OTHER_SM;
    uint32_t attacker_id = same_sub ? subs : 1;
    out->grid[0] = by_cta ? 2 : 1;
    out->block[0] = placement == AV_DATA_OTHER_SM ? 32 * AV_DATA_WARPS
                    : by_cta                      ? 32
                                                  : 32 * (attacker_id + 1);
    out->grid[1] = out->grid[2] = out->block[1] = out->block[2] = 1;
    out->buffers[0] = (gd_probe_buffer){
        .name = "out", .bytes = 4 * (W_ATTACKER0 + AV_ATTACKER_RECORDS + 1),
        .copy_out = 1};
    out->buffers[1] = (gd_probe_buffer){.name = "flags", .bytes = 16};
    out->buffers[2] = (gd_probe_buffer){.name = "data",
                                        .bytes = st->data_bytes ? st->data_bytes : AV_DATA_LINE};
    out->buffer_count = 3;
    out->params[0] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 0};
    out->params[1] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 1};
    out->params[2] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 2};
    out->params[3] = (gd_probe_param){.kind = GD_PARAM_U32, .value = by_cta};
    out->params[4] = (gd_probe_param){.kind = GD_PARAM_U32, .value = 0};
    out->params[5] = (gd_probe_param){.kind = GD_PARAM_U32, .value = attacker_id};
    out->params[6] = (gd_probe_param){.kind = GD_PARAM_U32, .value = st->passes};
    out->params[7] = (gd_probe_param){.kind = GD_PARAM_U32,
                                      .value = st->data_bytes / AV_DATA_LINE};
    out->param_count = 8 + gd_ffma_params(out->params + 8);
    /* the FFMAs in the code (the control's attacker: its loop's block) */
    uint32_t attacker_code = placement == AV_SAME_SUB_ISSUE ? AV_ISSUE_BODY : st->attacker_len;
    out->intended_instructions = st->victim_len + attacker_code;
    out->code_min_instructions = st->victim_len + attacker_code + AV_SASS_EXTRA_MIN;
    out->code_max_instructions = st->victim_len + attacker_code + AV_SASS_EXTRA_MAX;
    return 0;
}

static int av_fill(const gd_probe_plan *plan, unsigned index, const gd_devptr *addresses,
                   void *host, gd_err *err)
{
    (void)plan, (void)addresses, (void)host;
    return gd_fail(err, "icache_av: buffer %u has no initial contents", index);
}

static uint32_t word(const uint8_t *buf, unsigned w)
{
    uint32_t v;
    memcpy(&v, buf + 4 * w, 4);
    return v;
}

static int av_decode(const gd_probe_plan *plan, const gd_devptr *addresses, void *const *host,
                     gd_probe_result *out, gd_err *err)
{
    (void)addresses;
    const av_state *st = plan->state;
    const uint8_t *buf = host[0];
    uint32_t apasses = word(buf, W_ATTACKER_PASSES);
    if (apasses == 0)
        return gd_fail(err, "icache_av: the attacker never ran a pass");
    uint32_t n = st->passes - 1;
    uint32_t arec = apasses - 1 < AV_ATTACKER_RECORDS ? apasses - 1 : AV_ATTACKER_RECORDS;
    if (arec == 0)
        arec = 1; /* only its first pass: report that one */
    /* per pass: lines streamed, or instructions issued */
    double alen = st->placement == AV_DATA_OTHER_SM ? (double)(st->data_bytes / AV_DATA_LINE)
                  : st->placement == AV_SAME_SUB_ISSUE
                      ? (double)st->issue_loops * (AV_ISSUE_BODY + AV_ISSUE_LOOP)
                      : (double)st->attacker_len;
    gd_series *v = gd_probe_result_add(out, "victim_cpi", n);
    gd_series *a = gd_probe_result_add(out, "attacker_cpi", arec);
    gd_series *vsm = gd_probe_result_add(out, "victim_sm", 1);
    gd_series *asm_ = gd_probe_result_add(out, "attacker_sm", 1);
    gd_series *vw = gd_probe_result_add(out, "victim_warp", 1);
    gd_series *aw = gd_probe_result_add(out, "attacker_warp", 1);
    gd_series *ov = gd_probe_result_add(out, "overlap", 1);
    gd_series *ap = gd_probe_result_add(out, "attacker_passes", 1);
    if (!v || !a || !vsm || !asm_ || !vw || !aw || !ov || !ap)
        return gd_fail(err, "icache_av: out of memory");
    for (uint32_t i = 0; i < n; i++)
        v->samples[i] = word(buf, W_VICTIM + 1 + i) / (double)st->victim_len;
    uint32_t first = apasses > 1 ? 1 : 0;
    for (uint32_t i = 0; i < arec; i++)
        a->samples[i] = word(buf, W_ATTACKER0 + first + i) / alen;
    vsm->samples[0] = word(buf, W_VICTIM_SM);
    asm_->samples[0] = word(buf, W_ATTACKER_SM);
    vw->samples[0] = word(buf, W_VICTIM_WARP);
    aw->samples[0] = word(buf, W_ATTACKER_WARP);
    ov->samples[0] = word(buf, W_OVERLAP) != 0;
    ap->samples[0] = apasses;
    return 0;
}

const gd_probe gd_probe_icache_av = {
    .name = "icache_av",
    .summary = "attacker-victim warps per placement: which instruction caches are shared by "
               "a sub-partition, an SM or the chip",
    .sweep_name = "attacker_bytes",
    .value_unit = "cycles per instruction",
    .aggregate_samples = 1,
    .primary_series = "victim_cpi",
    .default_stride_bytes = GD_INSTRUCTION_BYTES,
    .variants = av_variants,
    .example_point = 4096,
    .plan = av_plan,
    .fill = av_fill,
    .decode = av_decode,
    .release = gd_probe_free_state,
};
