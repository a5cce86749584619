/* registry.c -- the list of probes, found by name.
 *
 * Adding a probe: copy a probe file of kernels/, give it a new name, and add it to
 * `probes` below.  The bookkeeping every probe shares (plans, results, its
 * description) is kernels/probe.c, which knows no probe by name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/probe.h"

extern const gd_probe gd_probe_pchase;
extern const gd_probe gd_probe_pchase_stride;
extern const gd_probe gd_probe_pchase_page;
extern const gd_probe gd_probe_const_seq;
extern const gd_probe gd_probe_const_stride;
extern const gd_probe gd_probe_icache_seq;
extern const gd_probe gd_probe_const_bcast;
extern const gd_probe gd_probe_const_icache_share;
extern const gd_probe gd_probe_const_av;
extern const gd_probe gd_probe_icache_av;
extern const gd_probe gd_probe_smem_bank;
extern const gd_probe gd_probe_coalesce;
extern const gd_probe gd_probe_pchase_fine;
extern const gd_probe gd_probe_const_fine;
extern const gd_probe gd_probe_mshr;
extern const gd_probe gd_probe_resv_stall;
extern const gd_probe gd_probe_store_path;
extern const gd_probe gd_probe_dram_row;
extern const gd_probe gd_probe_bandwidth;
extern const gd_probe gd_probe_l2_slice;

static const gd_probe *const probes[] = {
    &gd_probe_pchase,
    &gd_probe_pchase_stride,
    &gd_probe_pchase_page,
    &gd_probe_const_seq,
    &gd_probe_const_stride,
    &gd_probe_icache_seq,
    &gd_probe_const_bcast,
    &gd_probe_const_icache_share,
    &gd_probe_const_av,
    &gd_probe_icache_av,
    &gd_probe_smem_bank,
    &gd_probe_coalesce,
    &gd_probe_pchase_fine,
    &gd_probe_const_fine,
    &gd_probe_mshr,
    &gd_probe_resv_stall,
    &gd_probe_store_path,
    &gd_probe_dram_row,
    &gd_probe_bandwidth,
    &gd_probe_l2_slice,
};

const gd_probe *const *gd_probe_list(size_t *count)
{
    *count = sizeof probes / sizeof probes[0];
    return probes;
}

const gd_probe *gd_probe_find(const char *name)
{
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++)
        if (strcmp(probes[i]->name, name) == 0)
            return probes[i];
    return NULL;
}
