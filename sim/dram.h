/* dram.h -- the memory controllers and DRAM (dram.c).  Internal to sim/. */
#ifndef GD_SIM_DRAM_H
#define GD_SIM_DRAM_H

#include "sim/memsys.h"

/* NULL in ms->dram (the fixed-latency DRAM) unless [DRAM] has channels. */
int sim_dram_create(sim_engine *e, gd_err *err);
void sim_dram_destroy(sim_engine *e);
/* A read (fill for an L2 slice) or a write-back leaves the L2 at `cycle`. */
void sim_dram_submit(sim_engine *e, int32_t mid, uint64_t cycle);
/* Schedules the banks and hands finished reads to the L2 (sim_l2_fill). */
void sim_dram_tick(sim_engine *e, uint64_t cycle);
/* The earliest cycle >= now at which DRAM can move; SIM_NEVER when idle. */
uint64_t sim_dram_next_event(const sim_engine *e, uint64_t now);
/* Requests queued or in flight. */
int sim_dram_busy(const sim_engine *e);

#endif
