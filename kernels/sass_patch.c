/* sass_patch.c -- turn a run of FFMA instructions into NOPs inside a cubin.
 *
 * PTX has no NOP, yet an instruction-cache probe wants a long straight line of
 * instructions that compute nothing and depend on nothing.  So the probe writes
 * a block of FFMAs (fma.rn.f32), the JIT compiles it, and this file rewrites
 * that block in the returned cubin, 16 bytes for 16 bytes, into NOPs before the
 * driver loads it -- what Jia et al. did for Volta and Turing.  The code size,
 * every address and every other instruction stay as they were.
 *
 * The cubin is parsed by kernels/cubin_elf.c (sm number from e_flags, file offset
 * of .text.<entry>); this file only reads and writes instruction words.
 *
 * THE ENCODING (sm_70 and later).  One instruction is 128 bits, stored as two
 * little-endian 64-bit words, lo then hi.  NVIDIA documents none of it; what
 * follows was read off ptxas output (CUDA 13.0) for sm_75, sm_80, sm_86, sm_89
 * and sm_90 with `nvdisasm -hex`, and off raw words disassembled with
 * `nvdisasm -b SM75` ... `-b SM90`; tests/test_sass_patch.c re-checks it
 * wherever the tools exist.  The field names follow Jia et al., "Dissecting the
 * NVIDIA Volta GPU Architecture via Microbenchmarking" (2018), section 2.1,
 * whose layout the evidence confirms.
 *
 *   lo bits 0..8    opcode.  FFMA is 0x023 on all five targets.
 *   lo bits 9..11   operand form of FFMA (which of b and c is not a register):
 *                     1 (0x223) R, R, R            FFMA R1, R2, R3, R4
 *                     2 (0x423) R, R, imm32        FFMA R5, R2, R2, 3
 *                     3 (0x623) R, R, c[b][o]      FFMA R1, R2, R4, c[0x0][0x0]
 *                     4 (0x823) R, imm32, R        FFMA R2, R3, 1.5, R2
 *                     5 (0xa23) R, c[b][o], R      FFMA R3, R2, c[0x3][0x0], R3
 *                     6 (0xc23) R, UR, R           FFMA R0, R5, UR4, R0
 *                     7 (0xe23) R, R, UR           FFMA R1, R2, R4, UR3
 *                   ptxas emits forms 1..5 on sm_75..sm_89 and 1, 2, 4, 6, 7
 *                   on sm_90 (constant operands go through uniform registers
 *                   there).  All seven decode as FFMA from raw words on every
 *                   target (6 and 7 need hi bit 27, the uniform-operand flag);
 *                   form 0 is an illegal instruction.  Of the 512 opcodes in
 *                   bits 0..8, only 0x023 decodes as FFMA, with form 1 and
 *                   with form 4, on SM75 and on SM90 (nvdisasm -b, one word at
 *                   a time).  .SAT, .FTZ, negations and the guard predicate
 *                   live in other bits and keep the opcode.
 *   lo bits 12..15  guard predicate (0x7 = PT, always).
 *   NOP             lo = 0x0000000000007918: opcode 0x918 (12 bits; the same
 *                   scans find no other word that decodes as NOP), guard PT,
 *                   no operands; identical on all five targets, e.g. the
 *                   padding ptxas puts after EXIT.
 *
 *   hi bits 41..44  stall count: cycles before the warp issues again.
 *   hi bit  45      yield flag.
 *   hi bits 46..48  scoreboard barrier set when the result is written (7 = none).
 *   hi bits 49..51  scoreboard barrier set when the sources are read (7 = none).
 *   hi bits 52..57  wait mask: barriers to wait for before issuing.
 *   hi bits 58..61  operand reuse-cache flags (a, b, c, ...).
 *   hi bits 0..40   operands and modifiers (FFMA: register c, .SAT bit 13,
 *                   .FTZ bit 16, the uniform-operand flag bit 27, ...).
 *
 * The evidence for the control fields, from sm_75 ptxas output:
 *   S2R R4, SR_TID.X      hi 0x000e220000002100: sets write barrier 0, stall 1;
 *   I2F.U32 R0, R4        hi 0x001e240000201000: waits on barrier 0 (mask 01),
 *                         sets write barrier 0 itself;
 *   FADD R3, R0.reuse, 1  hi 0x041fe40000000000: waits on barrier 0; reuse flag
 *                         a set exactly where nvdisasm prints .reuse;
 *   FFMA (dependent)      hi 0x000fc8000000000x: stall 4 -- the FP32 latency --,
 *                         barriers 7/7, no wait, no reuse;
 *   NOP (padding)         hi 0x000fc00000000000: stall 0, barriers 7/7.
 * Only variable-latency instructions (S2R, I2F, loads) set barriers, and every
 * wait names a barrier set before it.  nvdisasm prints neither stall nor yield,
 * so those two fields rest on Jia et al. and on values that fit: independent
 * FFMAs (the probes' blocks) carry stall 2 on sm_75/sm_80 and stall 1 on
 * sm_86/sm_89/sm_90, matching 16 and 32 FP32 lanes per sub-partition.  The test
 * checks the reuse bits against nvdisasm's .reuse marks on every instruction.
 *
 * THE PATCH.  Each FFMA of the run becomes lo = 0x7918 and a hi word with stall
 * 1 and the FFMA's yield flag: NOPs issue one per cycle, which is what the
 * instruction-cache probe wants to measure (Jia et al. switched from FFMA to NOP
 * sequences on Volta and Turing precisely because ptxas puts a 2-cycle stall
 * between independent FFMAs there).  Shortening the block is safe only when it
 * still spans any fixed-latency result computed before it and read after it:
 * such latencies are at most a few cycles, so a run of at least
 * SASS_MIN_FAST_RUN instructions takes stall 1, and a shorter run keeps every
 * FFMA's own stall count (exactly the schedule ptxas planned) -- with both barrier indices
 * 7 (an FFMA sets none anyway: fixed latency) and no reuse flags (a NOP reads
 * nothing).  Waits: a NOP has nothing to wait for, but dropping a wait is not
 * safe -- if an FFMA of the run was the first reader of a loaded register,
 * ptxas gave the later readers after the run no wait of their own.  So the
 * first NOP waits on every barrier any FFMA of the run waited on, and the others
 * on none; waiting earlier is always safe.  For the probes' blocks of
 * independent FFMAs on values computed by fixed-latency instructions that union
 * is empty (the test checks it), so every NOP waits on nothing.
 *
 * WHERE IT IS VERIFIED, AND WHERE IT IS REFUSED.  The patch is applied only to
 * machine code of the targets on which the tests check all of the above
 * against ptxas and nvdisasm: sm_75, 80, 86, 87, 88, 89 and 90 (VERIFIED_SMS).
 * Everything else is refused with one line (gd_sass_nop_patch_refusal), and the
 * probes fall back to their FFMA variant and say so (kernels/icache_seq.c):
 *   - sm_100 and later (sm_100, 103, 110, 120, 121 with CUDA 13.0): the words
 *     decode the same (nvdisasm -b SM100 ... SM121 reads the FFMA register and
 *     immediate forms and the NOP alike), but every such cubin carries
 *     .nv.capmerc.text.<entry> and .nv.merc.* sections beside .text.<entry>
 *     (readelf; tests/test_sass_patch.c checks which targets have them).  They
 *     hold the kernel again in a form the driver can regenerate machine code
 *     from; if it does, the patched NOPs never run and the probe would time
 *     FFMAs while believing it times NOPs.  Until a card shows that the patched
 *     .text is what executes, no patch there.
 *   - sm_70 and sm_72 (Volta, Xavier): Jia et al. patched Volta this way, but
 *     CUDA 13's ptxas makes no such cubin and its nvdisasm reads no SM70 words,
 *     so nothing here checks the encoding.
 */
#include "kernels/sass_patch.h"

#include "kernels/cubin_elf.h"

#include <stdio.h>
#include <string.h>

#define SASS_FIRST_SM 70 /* Volta: the first 128-bit encoding */
/* the targets the tests verify the patch on (see the top of the file) */
static const int VERIFIED_SMS[] = {75, 80, 86, 87, 88, 89, 90};
#define SASS_FIRST_MERC_SM 100 /* cubins carry .nv.capmerc / .nv.merc sections */
#define SASS_INSTRUCTION_BYTES 16u
/* Runs this long issue as NOPs with stall 1: longer than any fixed latency
 * (FP32 and integer pipes: 4-6 cycles) they could otherwise cut short. */
#define SASS_MIN_FAST_RUN 16

#define SASS_OPCODE_MASK 0x1ffu /* lo bits 0..8 */
#define SASS_OPCODE_FFMA 0x023u
#define SASS_FORM_SHIFT 9 /* lo bits 9..11 */
#define SASS_FORM_MASK 0x7u
#define SASS_OPCODE12_MASK 0xfffu /* opcode and form together */
#define SASS_OPCODE12_NOP 0x918u
#define SASS_NOP_LO UINT64_C(0x0000000000007918) /* NOP with guard predicate PT */

#define SASS_STALL_SHIFT 41
#define SASS_STALL_MASK UINT64_C(0xf)
#define SASS_YIELD_SHIFT 45
#define SASS_WRITE_BARRIER_SHIFT 46
#define SASS_READ_BARRIER_SHIFT 49
#define SASS_NO_BARRIER UINT64_C(7)
#define SASS_WAIT_SHIFT 52
#define SASS_WAIT_MASK UINT64_C(0x3f)

/* Room for "runs of lengths 1, 2, ..." in an error line (gd_err is 1 KiB). */
#define RUN_LIST_BYTES 384

int gd_sass_is_ffma(uint64_t lo, uint64_t hi)
{
    (void)hi; /* modifiers only */
    return (lo & SASS_OPCODE_MASK) == SASS_OPCODE_FFMA &&
           ((lo >> SASS_FORM_SHIFT) & SASS_FORM_MASK) != 0;
}

int gd_sass_is_nop(uint64_t lo, uint64_t hi)
{
    (void)hi; /* control bits only */
    return (lo & SASS_OPCODE12_MASK) == SASS_OPCODE12_NOP;
}

int gd_sass_nop_patch_refusal(int sm, char *why, size_t why_bytes)
{
    for (size_t i = 0; i < sizeof VERIFIED_SMS / sizeof VERIFIED_SMS[0]; i++)
        if (VERIFIED_SMS[i] == sm)
            return 0;
    if (sm >= SASS_FIRST_MERC_SM)
        snprintf(why, why_bytes, "patch refused: sm_%d cubins carry .nv.capmerc/.nv.merc "
                 "sections the driver may regenerate the code from, so patched NOPs might not "
                 "run (verified only on sm_75..sm_90)", sm);
    else if (sm >= SASS_FIRST_SM)
        snprintf(why, why_bytes, "patch refused: the sm_%d encoding is not verified (no ptxas "
                 "or nvdisasm here handles it; verified only on sm_75..sm_90)", sm);
    else
        snprintf(why, why_bytes, "patch refused: sm_%d has no 128-bit encoding (sm_%d and "
                 "later; verified only on sm_75..sm_90)", sm, SASS_FIRST_SM);
    return 1;
}

static uint64_t wait_mask(uint64_t hi)
{
    return (hi >> SASS_WAIT_SHIFT) & SASS_WAIT_MASK;
}

/* The control word of the NOP that takes an FFMA's place: stall 1 (or the
 * FFMA's, in a short run) and its yield flag, no barriers set, `waits` waited
 * for, no reuse. */
static uint64_t nop_control_word(uint64_t ffma_hi, uint64_t waits, int keep_stall)
{
    uint64_t stall = keep_stall ? (ffma_hi >> SASS_STALL_SHIFT) & SASS_STALL_MASK : 1;
    uint64_t yield = (ffma_hi >> SASS_YIELD_SHIFT) & 1u;
    return stall << SASS_STALL_SHIFT | yield << SASS_YIELD_SHIFT |
           SASS_NO_BARRIER << SASS_WRITE_BARRIER_SHIFT |
           SASS_NO_BARRIER << SASS_READ_BARRIER_SHIFT | waits << SASS_WAIT_SHIFT;
}

/* Instruction words are copied out and in: a cubin buffer need not be 8-byte
 * aligned.  Cubins and every host gpudissect runs on are little-endian. */
static void read_instruction(const unsigned char *code, uint64_t index, uint64_t *lo, uint64_t *hi)
{
    memcpy(lo, code + index * SASS_INSTRUCTION_BYTES, sizeof *lo);
    memcpy(hi, code + index * SASS_INSTRUCTION_BYTES + sizeof *lo, sizeof *hi);
}

static void write_instruction(unsigned char *code, uint64_t index, uint64_t lo, uint64_t hi)
{
    memcpy(code + index * SASS_INSTRUCTION_BYTES, &lo, sizeof lo);
    memcpy(code + index * SASS_INSTRUCTION_BYTES + sizeof lo, &hi, sizeof hi);
}

/* Every maximal run of consecutive FFMAs, summarized for the patch and for
 * the error line. */
typedef struct ffma_runs {
    uint64_t runs;        /* maximal runs of any length */
    uint64_t matches;     /* runs of exactly the wanted length */
    uint64_t match_start; /* instruction index of the last match */
    char lengths[RUN_LIST_BYTES];
    int lengths_cut;
} ffma_runs;

static void note_run(ffma_runs *found, uint64_t start, uint64_t length, uint32_t wanted)
{
    found->runs++;
    if (length == wanted) {
        found->matches++;
        found->match_start = start;
    }
    if (found->lengths_cut)
        return;
    size_t used = strlen(found->lengths);
    int n = snprintf(found->lengths + used, sizeof found->lengths - used, "%s%llu",
                     used ? ", " : "", (unsigned long long)length);
    if (n < 0 || (size_t)n >= sizeof found->lengths - used) {
        found->lengths[used] = '\0';
        found->lengths_cut = 1;
    }
}

static void find_ffma_runs(const unsigned char *code, uint64_t instructions, uint32_t wanted,
                           ffma_runs *found)
{
    memset(found, 0, sizeof *found);
    uint64_t run_start = 0, run_length = 0;
    for (uint64_t i = 0; i < instructions; i++) {
        uint64_t lo, hi;
        read_instruction(code, i, &lo, &hi);
        if (gd_sass_is_ffma(lo, hi)) {
            if (run_length++ == 0)
                run_start = i;
            continue;
        }
        if (run_length)
            note_run(found, run_start, run_length, wanted);
        run_length = 0;
    }
    if (run_length)
        note_run(found, run_start, run_length, wanted);
}

int gd_sass_ffma_to_nop(void *cubin, size_t size, const char *entry, uint32_t count, gd_err *err)
{
    if (!cubin)
        return gd_fail(err, "sass patch: no cubin given");
    if (!entry || !*entry)
        return gd_fail(err, "sass patch: no kernel entry name given");
    if (count == 0)
        return gd_fail(err, "sass patch of %s: a run of 0 FFMA instructions was asked for",
                       entry);

    int sm = 0;
    if (gd_cubin_sm_version(cubin, size, &sm, err) != 0)
        return gd_fail_prefix(err, "sass patch of %s", entry);
    if (sm < SASS_FIRST_SM)
        return gd_fail(err, "sass patch of %s: the cubin is for sm_%d; FFMA->NOP knows only "
                       "the 128-bit encodings of sm_%d and later", entry, sm, SASS_FIRST_SM);
    char why[GD_SASS_REFUSAL_BYTES];
    if (gd_sass_nop_patch_refusal(sm, why, sizeof why))
        return gd_fail(err, "sass patch of %s: the cubin is for sm_%d: %s", entry, sm, why);

    uint64_t offset = 0, bytes = 0;
    if (gd_cubin_text_section(cubin, size, entry, &offset, &bytes, err) != 0)
        return gd_fail_prefix(err, "sass patch of %s", entry);
    if (bytes % SASS_INSTRUCTION_BYTES != 0)
        return gd_fail(err, "sass patch of %s: .text.%s is %llu bytes, not a whole number of "
                       "%u-byte sm_%d instructions", entry, entry, (unsigned long long)bytes,
                       SASS_INSTRUCTION_BYTES, sm);

    unsigned char *code = (unsigned char *)cubin + offset;
    uint64_t instructions = bytes / SASS_INSTRUCTION_BYTES;
    ffma_runs found;
    find_ffma_runs(code, instructions, count, &found);
    if (found.matches != 1) {
        char what[RUN_LIST_BYTES + 96];
        if (found.runs == 0)
            snprintf(what, sizeof what, "no FFMA at all");
        else
            snprintf(what, sizeof what, "%llu run%s of FFMA, of lengths %s%s",
                     (unsigned long long)found.runs, found.runs == 1 ? "" : "s", found.lengths,
                     found.lengths_cut ? ", ..." : "");
        if (found.matches > 1)
            return gd_fail(err, "sass patch of %s: expected one run of exactly %u consecutive "
                           "FFMA instructions in .text.%s (sm_%d, %llu instructions), found %llu "
                           "such runs among %s", entry, count, entry, sm,
                           (unsigned long long)instructions, (unsigned long long)found.matches,
                           what);
        return gd_fail(err, "sass patch of %s: expected one run of exactly %u consecutive FFMA "
                       "instructions in .text.%s (sm_%d, %llu instructions), found %s", entry,
                       count, entry, sm, (unsigned long long)instructions, what);
    }

    uint64_t waits = 0;
    for (uint64_t i = found.match_start; i < found.match_start + count; i++) {
        uint64_t lo, hi;
        read_instruction(code, i, &lo, &hi);
        waits |= wait_mask(hi);
    }
    for (uint64_t i = found.match_start; i < found.match_start + count; i++) {
        uint64_t lo, hi;
        read_instruction(code, i, &lo, &hi);
        write_instruction(code, i, SASS_NOP_LO,
                          nop_control_word(hi, i == found.match_start ? waits : 0,
                                           count < SASS_MIN_FAST_RUN));
    }
    return 0;
}
