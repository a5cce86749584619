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

/* The median of n little-endian u32 deltas at buf (n <= 256). */
double gd_timer_median_u32(const uint8_t *buf, size_t n);
/* The smallest of them: the clock reads with nothing at all in between. */
double gd_timer_min_u32(const uint8_t *buf, size_t n);
/* The median of n doubles (a sorted copy is made; n <= 65536; NAN for none). */
double gd_timer_median(const double *v, size_t n);

#endif
