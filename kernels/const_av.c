/* const_av.c -- attacker and victim on the constant path: the scope of an
 * L1.5 constant cache that is a structure of its own (issue 17; Jia et al.
 * 2019 sec. 3.3.3's placements, their Fig. 3.7, moved from code to constants).
 *
 * Three single-thread roles in two CTAs of two warps (CTA 0's warp 0: the
 * victim; its warp 1: an attacker on the victim's SM; CTA 1's warp 0: an
 * attacker on another SM -- the simulator puts CTA i on SM i, a GPU in
 * practice, and each role's %smid is recorded rather than assumed).  The
 * victim owns --footprint bytes of the module's 64 KiB .const array (sized
 * between the L1C and the L1.5: its cyclic walk misses the L1C and hits the
 * L1.5), an attacker the sweep value's bytes after it; both are chains of
 * 32-bit offsets at 64-byte steps (the L1C line; every L1.5 line is touched
 * whatever its size).  Each of 1 + 4 rounds, for the same-SM attacker and then
 * the other-SM one:
 *   1. the victim walks its chain, timing each access: the reference (L1.5
 *      hits, a few L1C hits);
 *   2. it hands over (a flag in global memory) and waits (bounded) for the
 *      attacker, which walks its own chain twice and answers;
 *   3. the victim walks again, timing each access.
 * An access of step 3 slower than the reference's median plus a margin
 * (gd_timer_miss_threshold) left the L1.5 (the first round is cold and not
 * reported).  Where the attacker's walk goes through the victim's L1.5, the
 * victim's miss rate climbs once footprint + attacker outgrow it; where it
 * does not, it stays near 0.  The same-SM attacker is the control: it shares
 * any L1.5 of SM or chip scope, so a climb there says the probe can see the
 * L1.5 at all (an L1.5 larger than the bank leaves, or one per sub-partition,
 * shows none -- no verdict); the other-SM attacker's climb then says chip,
 * its absence SM (analysis/infer_const.c).
 * Series: "miss_rate" (the other-SM attacker's, one per round),
 * "miss_rate_same_sm", "victim_cycles" and "reference_cycles" (the other-SM
 * half's accesses), "overlap" (1: every hand-over was answered), "victim_sm",
 * "attacker_sm", "same_sm_attacker_sm".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/chase.h"
#include "kernels/probe.h"
#include "kernels/ptx_emit.h"
#include "kernels/timer.h"

#define CAV_STRIDE 64                   /* the L1C line of every GPU Jia et al. examined */
#define CAV_DEFAULT_VICTIM (8 * 1024)
#define CAV_ROUNDS 4                    /* reported; one more runs first (cold) */
#define CAV_RUNS (CAV_ROUNDS + 1)
#define CAV_WAIT_SPINS (1u << 22)       /* a wait gives up after this many flag reads */
#define CAV_ROLES 3                     /* victim, same-SM attacker, other-SM attacker */
/* out: u64 checksums per role at 8 x role, u32 "answered" per role at 24 +
 * 4 x role, u32 %smid per role at 36 + 4 x role; the deltas from CAV_OUT_DATA:
 * per round, for each attacker, nv reference then nv victim deltas */
#define CAV_OUT_DATA 64
#define CAV_SASS_MIN 60
#define CAV_SASS_MAX 260

typedef struct cav_state {
    uint32_t nv, na;     /* victim and attacker elements */
    uint32_t abase;      /* the attacker chain's first offset (the victim's bytes) */
} cav_state;

/* Spins (bounded) until the u32 at [%rd2 + off] equals %r21; %p8 true if it did. */
static void cav_wait(gd_ptx *p, const char *label, const char *addr)
{
    gd_ptx_printf(p,
        "    mov.u32 %%r20, 0;\n"
        "%s:\n"
        "    .pragma \"nounroll\";\n"
        "    ld.volatile.global.u32 %%r22, [%s];\n"
        "    add.u32 %%r20, %%r20, 1;\n"
        "    setp.ne.u32 %%p5, %%r22, %%r21;\n"
        "    setp.lt.u32 %%p6, %%r20, %u;\n"
        "    and.pred %%p7, %%p5, %%p6;\n"
        "    @%%p7 bra %s;\n"
        "    not.pred %%p8, %%p5;\n"
        "    selp.b32 %%r24, 1, 0, %%p8;\n"
        "    and.b32 %%r23, %%r23, %%r24;\n",
        label, addr, CAV_WAIT_SPINS, label);
}

/* One timed walk of the victim's nv elements from offset 0: each access's
 * delta to [%rd10], which advances; `sum` adds the values read to %rd9. */
static void cav_walk(gd_ptx *p, const char *label, int sum)
{
    gd_ptx_printf(p,
        "    mov.u32 %%r17, %%r16;\n"
        "    mov.u32 %%r12, 0;\n"
        "%s:\n"
        "    .pragma \"nounroll\";\n"
        "    mov.u64 %%rd4, %%clock64;\n"
        "    ld.const.u32 %%r18, [%%r17];\n"
        "    st.shared.u32 [gd_sink], %%r18;\n"
        "    mov.u64 %%rd5, %%clock64;\n"
        "    add.s32 %%r17, %%r18, %%r16;\n",
        label);
    if (sum)
        gd_ptx_printf(p,
            "    cvt.u64.u32 %%rd7, %%r18;\n"
            "    add.s64 %%rd9, %%rd9, %%rd7;\n");
    gd_ptx_printf(p,
        "    sub.s64 %%rd6, %%rd5, %%rd4;\n"
        "    cvt.u32.u64 %%r19, %%rd6;\n"
        "    st.global.u32 [%%rd10], %%r19;\n"
        "    add.s64 %%rd10, %%rd10, 4;\n"
        "    add.u32 %%r12, %%r12, 1;\n"
        "    setp.lt.u32 %%p1, %%r12, %%r1;\n"
        "    @%%p1 bra %s;\n",
        label);
}

static char *cav_ptx(const gd_device_info *dev)
{
    gd_ptx p;
    gd_ptx_init(&p);
    gd_ptx_header(&p, dev->cc_major, dev->cc_minor, 63);
    gd_ptx_printf(&p, "%s", GD_CHASE_CONST_DECL);
    gd_ptx_printf(&p,
        ".visible .entry gd_const_av(\n"
        "    .param .u64 gd_cav_out,\n"
        "    .param .u64 gd_cav_flags,\n"
        "    .param .u32 gd_cav_nv,\n"
        "    .param .u32 gd_cav_na,\n"
        "    .param .u32 gd_cav_rounds,\n"
        "    .param .u32 gd_cav_abase\n"
        ")\n"
        ".maxntid 64, 1, 1\n"
        "{\n"
        "    .reg .pred %%p<10>;\n"
        "    .reg .b32 %%r<32>;\n"
        "    .reg .b64 %%rd<16>;\n"
        "    .shared .align 4 .b8 gd_sink[8];\n"
        "    ld.param.u64 %%rd1, [gd_cav_out];\n"
        "    ld.param.u64 %%rd2, [gd_cav_flags];\n"
        "    ld.param.u32 %%r1, [gd_cav_nv];\n"
        "    ld.param.u32 %%r2, [gd_cav_na];\n"
        "    ld.param.u32 %%r3, [gd_cav_rounds];\n"
        "    ld.param.u32 %%r4, [gd_cav_abase];\n"
        "    mov.u32 %%r16, %s;\n"
        "    mov.u32 %%r5, %%tid.x;\n"
        "    and.b32 %%r6, %%r5, 31;\n"
        "    setp.ne.u32 %%p1, %%r6, 0;\n"
        "    @%%p1 bra $L_done;                // one thread a role\n"
        "    shr.u32 %%r7, %%r5, 5;\n"
        "    mov.u32 %%r8, %%ctaid.x;\n"
        "    shl.b32 %%r9, %%r8, 1;\n"
        "    add.u32 %%r9, %%r9, %%r7;         // role: 2 x CTA + warp\n"
        "    mov.u32 %%r14, %%smid;\n"
        "    mov.u64 %%rd9, 0;                 // checksum of the values read\n"
        "    mov.u32 %%r23, 1;                 // every wait answered\n"
        "    setp.eq.u32 %%p2, %%r9, 0;\n"
        "    @%%p2 bra $L_victim;\n"
        "    setp.lt.u32 %%p2, %%r9, %d;\n"
        "    @%%p2 bra $L_attacker;\n"
        "$L_done:\n"
        "    ret;\n"
        "\n"
        "$L_attacker:\n"
        "    sub.u32 %%r10, %%r9, 1;\n"
        "    mul.wide.u32 %%rd4, %%r10, 8;\n"
        "    add.s64 %%rd3, %%rd2, %%rd4;      // its go word; done at +4\n"
        "    mov.u32 %%r11, 0;\n"
        "    shl.b32 %%r13, %%r2, 1;           // two laps a round\n"
        "$L_around:\n"
        "    .pragma \"nounroll\";\n"
        "    add.u32 %%r21, %%r11, 1;\n",
        GD_CHASE_CONST_SYMBOL, CAV_ROLES);
    cav_wait(&p, "$L_await", "%rd3");
    gd_ptx_printf(&p,
        "    add.u32 %%r17, %%r16, %%r4;\n"
        "    mov.u32 %%r12, 0;\n"
        "$L_awalk:\n"
        "    .pragma \"nounroll\";\n"
        "    ld.const.u32 %%r18, [%%r17];\n"
        "    add.s32 %%r17, %%r18, %%r16;\n"
        "    cvt.u64.u32 %%rd7, %%r18;\n"
        "    add.s64 %%rd9, %%rd9, %%rd7;\n"
        "    add.u32 %%r12, %%r12, 1;\n"
        "    setp.lt.u32 %%p1, %%r12, %%r13;\n"
        "    @%%p1 bra $L_awalk;\n"
        "    st.volatile.global.u32 [%%rd3+4], %%r21;   // done\n"
        "    add.u32 %%r11, %%r11, 1;\n"
        "    setp.lt.u32 %%p1, %%r11, %%r3;\n"
        "    @%%p1 bra $L_around;\n"
        "    bra $L_results;\n"
        "\n"
        "$L_victim:\n"
        "    add.s64 %%rd10, %%rd1, %d;        // where the deltas go\n"
        "    mov.u32 %%r11, 0;\n"
        "$L_vround:\n"
        "    .pragma \"nounroll\";\n"
        "    add.u32 %%r21, %%r11, 1;\n",
        CAV_OUT_DATA);
    static const char *const who[] = {"same", "other"};
    for (int a = 0; a < 2; a++) {
        char label[32], addr[32];
        gd_ptx_printf(&p, "    // against the %s-SM attacker\n", who[a]);
        snprintf(label, sizeof label, "$L_ref_%s", who[a]);
        cav_walk(&p, label, 0);
        gd_ptx_printf(&p, "    st.volatile.global.u32 [%%rd2+%d], %%r21;   // go\n", 8 * a);
        snprintf(label, sizeof label, "$L_vwait_%s", who[a]);
        snprintf(addr, sizeof addr, "%%rd2+%d", 8 * a + 4);
        cav_wait(&p, label, addr);
        snprintf(label, sizeof label, "$L_vic_%s", who[a]);
        cav_walk(&p, label, 1);
    }
    gd_ptx_printf(&p,
        "    add.u32 %%r11, %%r11, 1;\n"
        "    setp.lt.u32 %%p1, %%r11, %%r3;\n"
        "    @%%p1 bra $L_vround;\n"
        "$L_results:\n"
        "    mul.wide.u32 %%rd4, %%r9, 8;\n"
        "    add.s64 %%rd5, %%rd1, %%rd4;\n"
        "    st.global.u64 [%%rd5], %%rd9;\n"
        "    mul.wide.u32 %%rd4, %%r9, 4;\n"
        "    add.s64 %%rd5, %%rd1, %%rd4;\n"
        "    st.global.u32 [%%rd5+24], %%r23;\n"
        "    st.global.u32 [%%rd5+36], %%r14;\n"
        "    ret;\n"
        "}\n");
    return gd_ptx_finish(&p);
}

static int cav_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                    gd_probe_plan *out, gd_err *err)
{
    memset(out, 0, sizeof *out);
    out->opts = *opts;
    gd_probe_opts *o = &out->opts;
    if (o->variant[0] && strcmp(o->variant, "const"))
        return gd_fail(err, "const_av: unknown variant '%s' (it has none)", o->variant);
    if (dev->sm_count == 1)
        return gd_fail(err, GD_PROBE_NOT_ON_DEVICE "const_av: the other-SM attacker needs two "
                            "SMs, the device has one");
    uint64_t victim = o->footprint_bytes ? o->footprint_bytes : CAV_DEFAULT_VICTIM;
    victim -= victim % CAV_STRIDE;
    uint64_t attacker = point - point % CAV_STRIDE;
    if (victim < 2 * CAV_STRIDE || attacker < 2 * CAV_STRIDE ||
        victim + attacker > GD_CHASE_CONST_BYTES)
        return gd_fail(err, "const_av: a victim of %llu and an attacker of %llu bytes (each at "
                            "least %d) do not fit the %d-byte constant bank",
                       (unsigned long long)victim, (unsigned long long)point, 2 * CAV_STRIDE,
                       GD_CHASE_CONST_BYTES);
    o->footprint_bytes = victim;
    o->stride_bytes = CAV_STRIDE;
    o->samples = CAV_ROUNDS;
    cav_state *st = calloc(1, sizeof *st);
    if (!st)
        return gd_fail(err, "const_av: out of memory");
    st->nv = (uint32_t)(victim / CAV_STRIDE);
    st->na = (uint32_t)(attacker / CAV_STRIDE);
    st->abase = (uint32_t)victim;
    out->state = st;
    out->point = point;
    out->ptx = cav_ptx(dev);
    if (!out->ptx) {
        free(st);
        out->state = NULL;
        return gd_fail(err, "const_av: out of memory");
    }
    snprintf(out->entry, sizeof out->entry, "gd_const_av");
    out->grid[0] = 2;
    out->block[0] = 64;
    out->grid[1] = out->grid[2] = out->block[1] = out->block[2] = 1;
    out->buffers[0] = (gd_probe_buffer){.name = "chains",
                                        .bytes = GD_CHASE_CONST_BYTES,
                                        .host_fill = 1,
                                        .symbol = GD_CHASE_CONST_SYMBOL};
    out->buffers[1] = (gd_probe_buffer){
        .name = "out", .bytes = CAV_OUT_DATA + 16 * (size_t)CAV_RUNS * st->nv, .copy_out = 1};
    out->buffers[2] = (gd_probe_buffer){.name = "flags", .bytes = 16};
    out->buffer_count = 3;
    out->params[0] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 1};
    out->params[1] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = 2};
    out->params[2] = (gd_probe_param){.kind = GD_PARAM_U32, .value = st->nv};
    out->params[3] = (gd_probe_param){.kind = GD_PARAM_U32, .value = st->na};
    out->params[4] = (gd_probe_param){.kind = GD_PARAM_U32, .value = CAV_RUNS};
    out->params[5] = (gd_probe_param){.kind = GD_PARAM_U32, .value = st->abase};
    out->param_count = 6;
    out->code_min_instructions = CAV_SASS_MIN;
    out->code_max_instructions = CAV_SASS_MAX;
    return 0;
}

/* two chains of offsets at 64-byte steps, each closing on itself: the victim's
 * over [0, abase), the attacker's after it */
static int cav_fill(const gd_probe_plan *plan, unsigned index, const gd_devptr *addresses,
                    void *host, gd_err *err)
{
    (void)addresses;
    const cav_state *st = plan->state;
    if (index != 0)
        return gd_fail(err, "const_av: no initial contents for buffer %u", index);
    uint8_t *bank = host;
    for (uint32_t i = 0; i < st->nv; i++) {
        uint32_t next = ((i + 1) % st->nv) * CAV_STRIDE;
        memcpy(bank + (size_t)i * CAV_STRIDE, &next, 4);
    }
    for (uint32_t i = 0; i < st->na; i++) {
        uint32_t next = st->abase + ((i + 1) % st->na) * CAV_STRIDE;
        memcpy(bank + st->abase + (size_t)i * CAV_STRIDE, &next, 4);
    }
    return 0;
}

static uint32_t word(const uint8_t *buf, size_t byte)
{
    uint32_t v;
    memcpy(&v, buf + byte, 4);
    return v;
}

static int cav_decode(const gd_probe_plan *plan, const gd_devptr *addresses, void *const *host,
                      gd_probe_result *out, gd_err *err)
{
    (void)addresses;
    const cav_state *st = plan->state;
    const uint8_t *buf = host[1];
    uint64_t nv = st->nv, na = st->na, sum[CAV_ROLES];
    memcpy(sum, buf, sizeof sum);
    /* the victim's timed walks (two a round), each attacker's two laps a round */
    uint64_t want_v = 2ull * CAV_RUNS * CAV_STRIDE * (nv * (nv - 1) / 2);
    uint64_t want_a = 2ull * CAV_RUNS * (na * st->abase + CAV_STRIDE * (na * (na - 1) / 2));
    if (sum[0] != want_v || sum[1] != want_a || sum[2] != want_a)
        return gd_fail(err, "const_av: the walks read sums %llu, %llu, %llu, expected %llu, "
                            "%llu, %llu: the device did not follow the chains",
                       (unsigned long long)sum[0], (unsigned long long)sum[1],
                       (unsigned long long)sum[2], (unsigned long long)want_v,
                       (unsigned long long)want_a, (unsigned long long)want_a);
    gd_series *other = gd_probe_result_add(out, "miss_rate", CAV_ROUNDS);
    gd_series *same = gd_probe_result_add(out, "miss_rate_same_sm", CAV_ROUNDS);
    gd_series *vic = gd_probe_result_add(out, "victim_cycles", CAV_ROUNDS * nv);
    gd_series *ref = gd_probe_result_add(out, "reference_cycles", CAV_ROUNDS * nv);
    gd_series *ov = gd_probe_result_add(out, "overlap", 1);
    gd_series *vsm = gd_probe_result_add(out, "victim_sm", 1);
    gd_series *asm_ = gd_probe_result_add(out, "attacker_sm", 1);
    gd_series *ssm = gd_probe_result_add(out, "same_sm_attacker_sm", 1);
    if (!other || !same || !vic || !ref || !ov || !vsm || !asm_ || !ssm)
        return gd_fail(err, "const_av: out of memory");
    double *r = malloc(2 * nv * sizeof *r);
    if (!r)
        return gd_fail(err, "const_av: out of memory");
    for (uint32_t round = 0; round < CAV_ROUNDS; round++) {
        for (int a = 0; a < 2; a++) {
            /* run 0 is cold */
            const uint8_t *half = buf + CAV_OUT_DATA + ((size_t)(round + 1) * 2 + a) * 8 * nv;
            for (uint64_t i = 0; i < nv; i++) {
                r[i] = word(half, 4 * i);
                r[nv + i] = word(half, 4 * (nv + i));
            }
            double threshold = gd_timer_miss_threshold(r, nv);
            uint64_t misses = 0;
            for (uint64_t i = 0; i < nv; i++)
                misses += r[nv + i] > threshold;
            (a ? other : same)->samples[round] = (double)misses / (double)nv;
            if (a) {
                memcpy(ref->samples + round * nv, r, nv * sizeof *r);
                memcpy(vic->samples + round * nv, r + nv, nv * sizeof *r);
            }
        }
    }
    free(r);
    ov->samples[0] = word(buf, 24) && word(buf, 28) && word(buf, 32);
    vsm->samples[0] = word(buf, 36);
    ssm->samples[0] = word(buf, 40);
    asm_->samples[0] = word(buf, 44);
    return 0;
}

static const char *const cav_variants[] = {"const", NULL};

const gd_probe gd_probe_const_av = {
    .name = "const_av",
    .summary = "constant victim vs constant attackers on its SM and another: the L1.5 "
               "constant cache's scope",
    .sweep_name = "attacker_bytes",
    .value_unit = "miss rate",
    .aggregate_samples = 1,
    .primary_series = "miss_rate",
    .default_stride_bytes = CAV_STRIDE,
    .variants = cav_variants,
    .example_point = 16384,
    .plan = cav_plan,
    .fill = cav_fill,
    .decode = cav_decode,
    .release = gd_probe_free_state,
};
