/* sass_patch.h -- rewriting a kernel's machine code in its cubin (where verified: sm_75..sm_90).
 *
 * PTX has no NOP, so an instruction-cache probe made of NOPs is built the way
 * Jia et al. built theirs on Volta and Turing: the driver's JIT compiles a
 * straight-line block of FFMA instructions, and the block is rewritten in the
 * returned cubin into NOPs of the same size before the cubin is loaded.
 */
#ifndef GD_SASS_PATCH_H
#define GD_SASS_PATCH_H

#include <stddef.h>
#include <stdint.h>

#include "host/device.h"

/* Finds, in the machine code of `entry` (section .text.<entry>), the one run of
 * exactly `count` consecutive FFMA instructions (any operand form) and rewrites
 * each as a NOP that issues in one cycle (stall 1; a run shorter than 16 keeps
 * the FFMAs' stall counts), keeps the FFMA's yield flag and sets no barrier and
 * no reuse flag.  NOPs wait on no barrier, except that the first
 * one waits on whatever barriers FFMAs of the run waited on (nothing, for the
 * probes' blocks), so code after the run still finds its loads complete.  Runs
 * are maximal: FFMAs next to the run make it longer.  The cubin is modified in
 * place, and only on success.  Fails (naming the runs it found, and their
 * lengths) if there is no such run or more than one, if the buffer is not an
 * ELF cubin, or if it is for a target the patch is not verified on
 * (gd_sass_nop_patch_refusal's line).  The encodings and the evidence for them are
 * described at the top of kernels/sass_patch.c. */
int gd_sass_ffma_to_nop(void *cubin, size_t size, const char *entry, uint32_t count, gd_err *err);

/* Whether the FFMA->NOP patch is verified for machine code of sm_<sm>: 0 if
 * it is (sm_75, 80, 86, 87, 88, 89, 90: checked against ptxas and nvdisasm by
 * tests/test_sass_patch.c); else 1, with one line saying why in `why` (sm_100
 * and later: the cubin carries .nv.capmerc/.nv.merc sections from which the
 * driver may regenerate the code, so patched NOPs might never run; sm_70/72
 * and anything else: no tool here makes or reads that machine code). */
#define GD_SASS_REFUSAL_BYTES 256
int gd_sass_nop_patch_refusal(int sm, char *why, size_t why_bytes);

/* One 128-bit sm_70+ instruction, low and high 64-bit words as stored (little
 * endian): FFMA in any operand form (register, immediate, constant bank,
 * uniform register), or NOP. */
int gd_sass_is_ffma(uint64_t lo, uint64_t hi);
int gd_sass_is_nop(uint64_t lo, uint64_t hi);

#endif
