/* ffma_block.h -- straight-line blocks of independent FFMA instructions, the
 * instruction stream of the instruction-cache probes.
 *
 * A block of L instructions cycles over GD_FFMA_CHAINS independent chains
 * (%fq0..%fq7), each `fma.rn.f32 c, c, m, a`: no instruction depends on its
 * neighbour, so a core that has the instructions issues one per cycle.  The
 * chains start from distinct run-time values (seed + i, the seed a kernel
 * parameter) -- ptxas merges chains that start from the same value and folds
 * chains it can compute at compile time -- and the kernel stores their sum, so
 * that none is dead code.  ptxas does not reassociate fused multiply-adds, so
 * the block assembles to exactly L FFMA instructions, which tests/test_ptxas.c
 * checks on every target.
 */
#ifndef GD_FFMA_BLOCK_H
#define GD_FFMA_BLOCK_H

#include <stdint.h>

#include "kernels/probe.h"
#include "kernels/ptx_emit.h"

/* GD_FFMA_CHAINS, GD_INSTRUCTION_BYTES and GD_ICACHE_LOOP_INSTRUCTIONS, which
 * the model shares, are in kernels/probe_layout.h. */

/* The three .f32 kernel parameters gd_ffma_init reads (seed, multiplier,
 * addend: run-time values, so that ptxas can fold nothing) as 32-bit words at
 * params[0..2]; returns 3. */
unsigned gd_ffma_params(gd_probe_param *params);

/* `.reg .f32 %fq<GD_FFMA_CHAINS + 3>;` (chains, multiplier, addend, sum) */
void gd_ffma_decls(gd_ptx *p);
/* Chains from f32 register `seed` (seed + i), multiplier and addend from
 * registers `mul` and `add`. */
void gd_ffma_init(gd_ptx *p, const char *seed, const char *mul, const char *add);
/* `count` FFMA instructions, chain i % GD_FFMA_CHAINS at position i. */
void gd_ffma_block(gd_ptx *p, uint32_t count);
/* %fq<GD_FFMA_CHAINS + 2> = the sum of the chains (FADDs, no FFMA). */
void gd_ffma_fold(gd_ptx *p);
#define GD_FFMA_SUM "%fq10"

#endif
