/* arch_validate.h -- what no single line of an arch file can check
 * (arch_validate.c; internal to analysis/). */
#ifndef GD_ARCH_VALIDATE_H
#define GD_ARCH_VALIDATE_H

#include "analysis/arch_parse.h"

/* The values an arch gets before its file is read. */
void arch_defaults(gd_arch *a);
/* 1 if the parsed arch is complete and consistent (derived fields filled),
 * else 0 with the error in ctx. */
int arch_validate(parse_ctx *ctx);
/* arch_validate_mem.c: L2 slices and partitions, TLBs, DRAM (issue 12). */
int arch_validate_below_l1(parse_ctx *ctx);

#endif
