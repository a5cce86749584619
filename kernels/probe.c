/* probe.c -- what every probe shares: its description, the granularity of its
 * sweep, and the bookkeeping of plans and results (kernels/probe.h).
 *
 * Probes call into this file and the registry (registry.c) lists the probes;
 * keeping the two apart means no probe depends on the list that names it.
 */
#include "kernels/probe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

gd_probe_desc gd_probe_describe(const gd_probe *probe)
{
    gd_probe_desc d = {
        .name = probe->name,
        .sweep_name = probe->sweep_name,
        .value_unit = probe->value_unit,
        .primary_series = gd_probe_primary_series(probe),
        .aggregate_samples = probe->aggregate_samples,
        .ramp_curve = probe->ramp_curve,
        .default_stride_bytes = probe->default_stride_bytes,
    };
    return d;
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

unsigned gd_probe_batch_max(const gd_probe *probe, const gd_probe_opts *opts)
{
    unsigned n = probe->batch_max && probe->plan_batch && probe->decode_batch
                     ? probe->batch_max(opts)
                     : 1;
    return n ? n : 1;
}
