/* pchase.h -- the pointer-chase kernel, shared by the probes that sweep it
 * (pchase: footprint; pchase_stride: stride) and by the analytical model,
 * which must know the exact access order the chain imposes. */
#ifndef GD_PCHASE_H
#define GD_PCHASE_H

#include <stdint.h>

#include "kernels/probe.h"

/* Plans one point: `point` is the footprint in bytes; opts->stride_bytes the
 * element stride.  fill/decode/release complete the probe. */
int gd_pchase_plan(const gd_probe_opts *opts, const gd_device_info *dev, uint64_t point,
                   gd_probe_plan *out, gd_err *err);
int gd_pchase_fill(const gd_probe_plan *plan, unsigned index, const gd_devptr *addresses,
                   void *host, gd_err *err);
int gd_pchase_decode(const gd_probe_plan *plan, const gd_devptr *addresses, void *const *host,
                     gd_probe_result *out, gd_err *err);
void gd_pchase_release(gd_probe_plan *plan);

/* The random chain: next[i] is the element that element i points to, a single
 * cycle over n elements (Sattolo's algorithm, seeded).  -1 if n is 0 or too big. */
int gd_pchase_permutation(uint64_t n, uint64_t seed, uint32_t *next);

/* Accesses of the timed lap kept in order ("recent_cycles"); every access is in
 * "cycles" through a histogram. */
#define GD_PCHASE_DEFAULT_SAMPLES 2048

#endif
