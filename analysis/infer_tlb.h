/* infer_tlb.h -- the TLBs from chases at large strides (infer_tlb.c). */
#ifndef GD_INFER_TLB_H
#define GD_INFER_TLB_H

#include "analysis/infer.h"

/* pchase_page: the L1 TLB's page, where the stride sweep's last plateau
 * starts (gd_infer_stride's reading), into run_inf's TLB1 (replacing what a
 * footprint chase may have guessed). */
int gd_infer_tlb_page(gd_inference *run_inf, const gd_curve *curve, const gd_segmentation *seg,
                      gd_err *err);
/* A footprint chase at a stride of at least the level's page (`level`: TLB1 or
 * TLB2): its coverage from the knee (elements on the first plateau past which
 * the latency rises -- TLB1 -- or the last knee -- TLB2 -- times the page), its
 * latency as the arch files state it: what a chase reaching DRAM measures with
 * that TLB missing (the DRAM, resp. TLB1, latency run_inf already holds plus
 * the knee's step).  Written into run_inf. */
int gd_infer_tlb_reach(gd_inference *run_inf, const gd_curve *curve, const gd_segmentation *seg,
                       gd_inferred_name level, gd_err *err);

#endif
