/* timer.h -- the cost of reading %clock64, and the SM clock it counts at.
 *
 * Every timed probe brackets what it measures with two clock reads and also
 * runs the same bracket around nothing (or around the same sequence without
 * its load) a few times; decode subtracts that calibration.  The kernels store
 * the calibration deltas as 32-bit words.
 *
 * %clock64 counts SM cycles, and the SM clock moves (boost, throttling): an L2
 * or DRAM latency that is fixed in nanoseconds reads as more cycles at a higher
 * clock.  So a timed region also reads %globaltimer (nanoseconds) at both ends;
 * cycles / nanoseconds is the clock the SM really ran at over the region.  The
 * probe reports it as the one-sample series GD_TIMER_CLOCK_SERIES, which the
 * runner moves into the CSV's sm_clock_mhz column (host/runner.c).  A card's
 * %globaltimer ticks in steps of up to a microsecond (PTX ISA: "a 64-bit global
 * nanosecond timer"; its update interval is implementation-defined), so the
 * region must last well over that for the value to mean much: a chase's timed
 * laps last 0.1 ms or more. */
#ifndef GD_TIMER_H
#define GD_TIMER_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/probe.h"
#include "kernels/ptx_emit.h"

/* The series that carries the effective SM clock of a point (one sample). */
#define GD_TIMER_CLOCK_SERIES "sm_clock_mhz"

/* PTX opening a clocked region: clock_reg = %clock64, ns_reg = %globaltimer
 * (both .u64 registers of the caller). */
void gd_timer_ptx_region_start(gd_ptx *p, const char *clock_reg, const char *ns_reg);
/* PTX closing it: clock_reg and ns_reg become the region's deltas (tmp_reg: a
 * scratch .u64). */
void gd_timer_ptx_region_stop(gd_ptx *p, const char *clock_reg, const char *ns_reg,
                              const char *tmp_reg);
/* The end of a kernel whose every CTA times one span from %rd20 (%clock64)
 * and %rd21 (%globaltimer), read by its thread 0 (bandwidth, l2_slice):
 * each thread stores `sum` (.u32, what its loads returned) to shared `sink`
 * at `tid` x 4 -- every load consumed -- then a barrier, both clocks again,
 * and thread 0 (`pred_thread0` true) writes GD_TIMER_SPAN_BYTES at `out` +
 * `cta` x GD_TIMER_SPAN_BYTES: the span's cycles twice (a torn write shows),
 * its start and end on %globaltimer.  Closes the entry ("ret; }").  Scratch:
 * %r23, %r24, %rd12, %rd22..%rd24. */
#define GD_TIMER_SPAN_BYTES 32
void gd_timer_ptx_cta_span_end(gd_ptx *p, const char *sink, const char *tid, const char *sum,
                               const char *pred_thread0, const char *cta, const char *out);

/* Cycles per microsecond over a region: the effective SM clock in MHz (NAN
 * when no time passed on the timer). */
double gd_timer_effective_mhz(uint64_t cycles, uint64_t ns);
/* Adds GD_TIMER_CLOCK_SERIES with that one sample; -1 when out of memory. */
int gd_timer_add_clock_series(gd_probe_result *out, uint64_t cycles, uint64_t ns);

/* The median of n little-endian u32 deltas at buf (n <= 256). */
double gd_timer_median_u32(const uint8_t *buf, size_t n);
/* The smallest of them: the clock reads with nothing at all in between. */
double gd_timer_min_u32(const uint8_t *buf, size_t n);
/* The median of n doubles (a sorted copy is made; n <= 65536; NAN for none). */
double gd_timer_median(const double *v, size_t n);
/* The median of v[0..n), and its 95th percentile (the nearest sample) in *p95. */
double gd_timer_median_p95(const double *v, size_t n, double *p95);
/* The latency past which an access of a walk missed the level its reference
 * walk (n accesses) hit: the reference's median plus GD_TIMER_MISS_MARGIN
 * cycles, or plus twice its own spread (p95 - median) where that is wider, at
 * most GD_TIMER_MISS_FACTOR x the median (const_icache_share, const_av: an
 * L2 constant latency only 1.49x the L1.5's, generated seed 1068, read as
 * hits at a 1.5x threshold alone). */
#define GD_TIMER_MISS_MARGIN 8.0
#define GD_TIMER_MISS_FACTOR 1.5
double gd_timer_miss_threshold(const double *reference, size_t n);

/* --timer clock32: the PTX with every %clock64 read replaced by a 32-bit
 * %clock read widened into the same register (GPGPU-Sim implements %clock
 * only); the probes' 32-bit deltas stay right across a wrap.  *out: malloc'd;
 * *reads: the reads rewritten (none is an error). */
int gd_timer_clock32_ptx(const char *ptx, char **out, unsigned *reads, gd_err *err);

#endif
