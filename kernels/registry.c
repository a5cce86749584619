/* registry.c -- the list of probes, and the plan/result bookkeeping they share.
 *
 * Adding a probe: copy a probe file of kernels/, give it a new name, and add it to
 * `probes` below.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/probe.h"

extern const gd_probe gd_probe_pchase;
extern const gd_probe gd_probe_pchase_stride;
extern const gd_probe gd_probe_const_seq;
extern const gd_probe gd_probe_const_stride;
extern const gd_probe gd_probe_icache_seq;
extern const gd_probe gd_probe_const_bcast;
extern const gd_probe gd_probe_const_icache_share;
extern const gd_probe gd_probe_icache_av;
extern const gd_probe gd_probe_smem_bank;
extern const gd_probe gd_probe_coalesce;
extern const gd_probe gd_probe_pchase_fine;
extern const gd_probe gd_probe_mshr;
extern const gd_probe gd_probe_resv_stall;

static const gd_probe *const probes[] = {
    &gd_probe_pchase,
    &gd_probe_pchase_stride,
    &gd_probe_const_seq,
    &gd_probe_const_stride,
    &gd_probe_icache_seq,
    &gd_probe_const_bcast,
    &gd_probe_const_icache_share,
    &gd_probe_icache_av,
    &gd_probe_smem_bank,
    &gd_probe_coalesce,
    &gd_probe_pchase_fine,
    &gd_probe_mshr,
    &gd_probe_resv_stall,
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

uint64_t gd_probe_sweep_granularity(const gd_probe *probe, const gd_probe_opts *opts)
{
    if (probe->sweep_granularity)
        return probe->sweep_granularity;
    uint64_t s = opts && opts->stride_bytes ? opts->stride_bytes : probe->default_stride_bytes;
    return s ? s : 1;
}

const char *gd_probe_primary_series(const gd_probe *probe)
{
    return probe->primary_series ? probe->primary_series : "cycles";
}

void gd_probe_free_state(gd_probe_plan *plan)
{
    free(plan->state);
    plan->state = NULL;
}

void gd_probe_plan_free(const gd_probe *probe, gd_probe_plan *plan)
{
    if (probe && probe->release)
        probe->release(plan);
    free(plan->ptx);
    plan->ptx = NULL;
}

void gd_probe_result_free(gd_probe_result *result)
{
    for (unsigned i = 0; i < result->series_count; i++)
        free(result->series[i].samples);
    memset(result, 0, sizeof *result);
}

gd_series *gd_probe_result_add(gd_probe_result *result, const char *name, size_t count)
{
    if (result->series_count == GD_PROBE_MAX_SERIES)
        return NULL;
    gd_series *s = &result->series[result->series_count];
    s->samples = calloc(count ? count : 1, sizeof *s->samples);
    if (!s->samples)
        return NULL;
    snprintf(s->name, sizeof s->name, "%s", name);
    s->count = count;
    result->series_count++;
    return s;
}
