/* chase.h -- the pointer-chase kernel shared by the probes that sweep it.
 *
 * pchase (global memory, footprint sweep), pchase_stride (global, stride
 * sweep), const_seq (constant memory, footprint sweep) and const_stride
 * (constant, stride sweep) all time one dependent chain the same way; they
 * differ in where the chain lives and what they sweep.  What the analytical
 * model must know of a chain (its order, the constant bank's size, the default
 * strides) is in kernels/probe_layout.h, which the model includes.
 */
#ifndef GD_CHASE_H
#define GD_CHASE_H

#include <stdint.h>

#include "kernels/probe.h"

typedef enum gd_chase_space {
    GD_CHASE_GLOBAL,  /* ld.global.{ca,cg}.u64 of 64-bit device pointers */
    GD_CHASE_CONST,   /* ld.const.u32 of offsets into a 64 KiB .const array */
} gd_chase_space;

/* The .const array a constant chase walks (its size, GD_CHASE_CONST_BYTES: a
 * whole constant bank, is in kernels/probe_layout.h).
 * Declared .visible: a global symbol of the cubin, which the host writes by name
 * (cuModuleGetGlobal on a GPU). */
#define GD_CHASE_CONST_SYMBOL "gd_carr"
/* Its declaration, for every kernel that reads it. */
#define GD_CHASE_CONST_DECL ".visible .const .align 4 .b8 " GD_CHASE_CONST_SYMBOL "[65536];\n\n"
_Static_assert(GD_CHASE_CONST_BYTES == 65536, "GD_CHASE_CONST_DECL spells the size out");

/* Plans one chain: `footprint` bytes, opts->stride_bytes apart. */
int gd_chase_plan(gd_chase_space space, const char *probe, const gd_probe_opts *opts,
                  const gd_device_info *dev, uint64_t footprint, gd_probe_plan *out, gd_err *err);
/* An explicit chain: visit k reads the element at byte offset order[k]
 * (distinct, order[0] == 0) of the chain buffer, which leads to order[k+1], the
 * last back to order[0]: a global element is an 8-aligned pointer, a constant one
 * a 4-aligned 32-bit offset inside the 64 KiB bank.  Elements sharing a cache line give
 * access patterns a permutation cannot (a line touched again mid-lap: the
 * fine-grained p-chase's replacement tests).  `point` is the sweep value. */
int gd_chase_plan_order(gd_chase_space space, const char *probe, const gd_probe_opts *opts,
                        const gd_device_info *dev, const uint64_t *order, uint64_t count,
                        uint64_t point, gd_probe_plan *out, gd_err *err);
int gd_chase_fill(const gd_probe_plan *plan, unsigned index, const gd_devptr *addresses,
                  void *host, gd_err *err);
int gd_chase_decode(const gd_probe_plan *plan, const gd_devptr *addresses, void *const *host,
                    gd_probe_result *out, gd_err *err);
void gd_chase_release(gd_probe_plan *plan);
/* The parameters of launch `launch` of a point spread over plan->launches
 * (opts.launch_split > 1): its share of the warm-up and timed steps. */
int gd_chase_split(const gd_probe_plan *plan, unsigned launch, gd_probe_param *params,
                   gd_err *err);

/* Accesses of the timed laps kept in order ("recent_cycles"); every access is in
 * "cycles" through a histogram. */
#define GD_CHASE_DEFAULT_SAMPLES 2048

#endif
