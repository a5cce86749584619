/* tlb.h -- address translation below the L1 (tlb.c).  Internal to sim/. */
#ifndef GD_SIM_TLB_H
#define GD_SIM_TLB_H

#include "sim/memsys.h"

struct sim_tlbs {
    sim_cache *l1;             /* one per SM ([TLB1]) */
    uint32_t sm_count;
    sim_cache l2;              /* the chip's ([TLB2]); present when has_l2 */
    int has_l2;
    uint32_t l1_miss_cycles;   /* [TLB1] latency - [DRAM] latency */
    uint32_t l2_miss_cycles;   /* [TLB2] latency - [TLB1] latency */
};

/* NULL in ms->tlbs when the arch has no [TLB1]. */
int sim_tlbs_create(sim_engine *e, gd_err *err);
void sim_tlbs_destroy(sim_engine *e);
/* Looks the page of `addr` up for SM `sm` (installing it where it missed);
 * returns the cycles the translation adds to the access. */
uint32_t sim_tlb_translate(sim_engine *e, uint32_t sm, uint64_t addr);

#endif
