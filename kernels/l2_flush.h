/* l2_flush.h -- an eviction pass that leaves a probe's lines in DRAM only.
 *
 * The MSHR and reservation-stall probes want misses with the longest round
 * trip one SM can see: the more cycles a miss is in flight, the more requests
 * one SM issues meanwhile (one per cycle into the L1), and the more MSHRs or
 * reserved ways it can fill.  Their lines were written by the host (through
 * the L2 on a real card), so before the timed rounds the kernel reads a flush
 * buffer of twice the L2 with ld.global.cg, one 32-byte sector per lane: on an
 * LRU L2 nothing of the probe's lines survives it, and on a real card's
 * adaptive policy twice the capacity is what the literature uses.
 *
 * The pass is most of such a point's cost: on a 60 MiB L2, 3.9 M sector
 * reads against a few thousand timed ones.  So these probes plan several
 * points as one launch (kernels/probe.h plan_batch): the pass once, then
 * each point's rounds in turn, each on lines of its own (a 4 KiB gap
 * between two points' lines) that nothing has read since the pass -- on a
 * card the host's fill reached the L2 before the launch, and the pass
 * evicted it; a point later in the launch finds its lines where the first
 * one did, in DRAM.  What it may find otherwise: the DRAM rows the points
 * before it left open, not the ones the pass did -- on a card as in the
 * simulator.
 */
#ifndef GD_L2_FLUSH_H
#define GD_L2_FLUSH_H

#include <stdint.h>

#include "host/device.h"
#include "kernels/probe.h"
#include "kernels/ptx_emit.h"

/* The flush buffer's size for this device: twice its L2, at least 1 MiB, a
 * whole number of 8 KiB iterations (eight independent 1 KiB warp loads, so
 * that the pass is not one DRAM latency per kilobyte). */
uint64_t gd_l2_flush_bytes(const gd_device_info *dev);

/* Appends the flush buffer (`bytes`, zeroed) and its address as the kernel's
 * next parameter to a plan: the last parameter of the kernels that evict. */
void gd_l2_flush_attach(gd_probe_plan *plan, uint64_t bytes);

/* Register declarations the pass uses (%gdf*): emit among the kernel's. */
void gd_l2_flush_decls(gd_ptx *p);

/* The pass: base_reg holds the buffer's address (u64), bytes its size;
 * sink is a shared-memory operand ("[%r12+256]") the loaded sum is stored to,
 * which keeps the loads alive and waits for the last of them. */
void gd_l2_flush_emit(gd_ptx *p, const char *base_reg, uint64_t bytes, const char *sink);

#endif
