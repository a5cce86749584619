/* timer.h -- the cost of reading %clock64, measured in the kernel.
 *
 * Every timed probe brackets what it measures with two clock reads and also
 * runs the same bracket around nothing (or around the same sequence without
 * its load) a few times; decode subtracts that calibration.  The kernels store
 * the calibration deltas as 32-bit words. */
#ifndef GD_TIMER_H
#define GD_TIMER_H

#include <stddef.h>
#include <stdint.h>

#include "host/device.h"

/* The median of n little-endian u32 deltas at buf (n <= 256). */
double gd_timer_median_u32(const uint8_t *buf, size_t n);
/* The smallest of them: the clock reads with nothing at all in between. */
double gd_timer_min_u32(const uint8_t *buf, size_t n);
/* The median of n doubles (a sorted copy is made; n <= 65536; NAN for none). */
double gd_timer_median(const double *v, size_t n);

/* --timer clock32: the PTX with every %clock64 read replaced by a 32-bit
 * %clock read widened into the same register (GPGPU-Sim implements %clock
 * only); the probes' 32-bit deltas stay right across a wrap.  *out: malloc'd;
 * *reads: the reads rewritten (none is an error). */
int gd_timer_clock32_ptx(const char *ptx, char **out, unsigned *reads, gd_err *err);

#endif
