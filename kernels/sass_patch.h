/* sass_patch.h -- rewriting a kernel's machine code in its cubin (sm_70 and later).
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
 * exactly `count` consecutive FFMA instructions and rewrites each as a NOP that
 * keeps the FFMA's stall count and yield flag and waits on no barrier.  The
 * cubin is modified in place.  Fails (naming what it found) if there is no such
 * run, or more than one, or the cubin is not an sm_70+ cubin. */
int gd_sass_ffma_to_nop(void *cubin, size_t size, const char *entry, uint32_t count, gd_err *err);

/* One 128-bit instruction: low and high 64-bit words as stored (little endian). */
int gd_sass_is_ffma(uint64_t lo, uint64_t hi);
int gd_sass_is_nop(uint64_t lo, uint64_t hi);

#endif
