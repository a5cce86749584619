/* l2_slice.h -- the L2 as slices (memory sub-partitions) and partitions
 * (l2_slice.c).  Internal to sim/. */
#ifndef GD_SIM_L2_SLICE_H
#define GD_SIM_L2_SLICE_H

#include "sim/memsys.h"

struct sim_l2_slice {
    sim_cache *cache;          /* slice 0: the memsys' `l2` */
    sim_cache own_cache;
    mshr_table *mshr;          /* slice 0: the memsys' `l2_mshr` */
    mshr_table own_mshr;
    ring *input;               /* arrivals in order (one slice: the memsys' l2_input) */
    ring own_input;
    int blocked;               /* its head was refused: waits for a fill */
};

int sim_l2_slices_create(sim_engine *e, gd_err *err);
void sim_l2_slices_destroy(sim_engine *e);

/* The crossbar and the slices for one cycle: DRAM fills already written, the
 * arrivals routed to their slices (the crossbar's requests_per_cycle), each
 * slice serving its queue (slice_requests_per_cycle) until one is refused. */
void sim_l2_tick(sim_engine *e, uint64_t cycle);
/* A DRAM read's data for the slice that asked (msg->slice). */
void sim_l2_fill(sim_engine *e, int32_t mid, uint64_t cycle);
/* The earliest cycle >= now at which the slices or the crossbar can move. */
uint64_t sim_l2_next_event(const sim_engine *e, uint64_t now);
/* Hands a response to its SM now, or to the delay heap when it carries extra
 * cycles (a TLB miss, a far hit). */
void sim_l2_respond(sim_engine *e, int32_t mid, uint64_t cycle);

#endif
