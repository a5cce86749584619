/* workload.c -- what every workload shares: building its plan, filling its
 * buffers from the seeded inputs it generated, checking its output against the
 * host's computation, and the launch sequence of a multi-launch workload.
 * The list of workloads is workload_list.c, so no workload depends on the list
 * that names it (as kernels/probe.c and kernels/registry.c).
 */
#include "kernels/workloads/workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gd_wl_plan_begin(gd_probe_plan *out, const char *entry, unsigned block_threads,
                     gd_wl_state **state, gd_err *err)
{
    gd_wl_state *st = calloc(1, sizeof *st);
    if (!st)
        return gd_fail(err, "%s: out of memory", entry);
    out->state = st;
    snprintf(out->entry, sizeof out->entry, "%s", entry);
    out->grid[0] = out->grid[1] = out->grid[2] = 1;
    out->block[0] = block_threads;
    out->block[1] = out->block[2] = 1;
    *state = st;
    return 0;
}

unsigned gd_wl_buffer(gd_probe_plan *out, gd_wl_state *st, const char *name, size_t bytes,
                      void *input, int copy_out)
{
    unsigned i = out->buffer_count++;
    out->buffers[i] = (gd_probe_buffer){.name = name, .bytes = bytes, .host_fill = input != NULL,
                                        .copy_out = copy_out};
    st->input[i] = input;
    out->params[out->param_count++] = (gd_probe_param){.kind = GD_PARAM_BUFFER, .buffer = i};
    return i;
}

void gd_wl_param_u32(gd_probe_plan *out, uint32_t value)
{
    out->params[out->param_count++] = (gd_probe_param){.kind = GD_PARAM_U32, .value = value};
}

int gd_wl_fill(const gd_probe_plan *plan, unsigned index, const gd_devptr *addresses, void *host,
               gd_err *err)
{
    (void)addresses;
    const gd_wl_state *st = plan->state;
    if (index >= plan->buffer_count || !st->input[index])
        return gd_fail(err, "%s: no initial contents for buffer %u", plan->entry, index);
    memcpy(host, st->input[index], plan->buffers[index].bytes);
    return 0;
}

int gd_wl_decode(const gd_probe_plan *plan, const gd_devptr *addresses, void *const *host,
                 gd_probe_result *out, gd_err *err)
{
    (void)addresses;
    const gd_wl_state *st = plan->state;
    const uint32_t *got = host[st->check_buffer];
    if (!got)
        return gd_fail(err, "%s: the output buffer did not come back", plan->entry);
    size_t wrong = 0;
    for (size_t i = 0; i < st->check_words; i++)
        wrong += got[i] != st->expect[i];
    gd_series *s = gd_probe_result_add(out, "errors", 1);
    gd_series *n = gd_probe_result_add(out, "checked_words", 1);
    if (!s || !n)
        return gd_fail(err, "%s: out of memory", plan->entry);
    s->samples[0] = (double)wrong;
    n->samples[0] = (double)st->check_words;
    return 0;
}

void gd_wl_release(gd_probe_plan *plan)
{
    gd_wl_state *st = plan->state;
    if (!st)
        return;
    for (unsigned i = 0; i < GD_PROBE_MAX_BUFFERS; i++)
        free(st->input[i]);
    free(st->expect);
    free(st);
    plan->state = NULL;
}

int gd_wl_split(const gd_probe_plan *plan, unsigned launch, gd_probe_param *params, gd_err *err)
{
    const gd_wl_state *st = plan->state;
    if (launch >= plan->launches)
        return gd_fail(err, "%s: launch %u of %u", plan->entry, launch, plan->launches);
    memcpy(params, plan->params, plan->param_count * sizeof *params);
    params[st->cur_param].value = launch;
    return 0;
}
