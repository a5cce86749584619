/* kernel_record.h -- what each kernel of a run asked of an SM, for meta.json.
 *
 * One JSON object per distinct (curve, entry, resources, carve-out) -- the
 * carve-out asked and read back, static and dynamic shared memory, registers,
 * local memory, and where the device knows it (sim) the split and the L1D the
 * launch got -- with how many points of the curve ran it and the first and
 * last of them.  A probe whose points differ in shared memory (the chase moves
 * its scratch to shared memory near the L2's capacity) shows up as two rows.
 */
#ifndef GD_KERNEL_RECORD_H
#define GD_KERNEL_RECORD_H

#include <jansson.h>
#include <stdint.h>

#include "host/device.h"

/* Adds (or counts) the launch of `kernel` at sweep value x into `records` (a
 * JSON array).  Returns 0, or -1 with err when out of memory. */
int gd_kernel_record_add(json_t *records, const char *curve_label, const char *probe,
                         const gd_kernel *kernel, int carveout_asked,
                         uint32_t dynamic_shared_bytes, uint64_t x, gd_err *err);

#endif
