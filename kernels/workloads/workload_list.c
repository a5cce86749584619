/* workload_list.c -- the workloads of `gpudissect whatif`, found by name.
 *
 * Adding a workload: copy a file of kernels/workloads/, give it a new name and
 * add it below.  The order is the order of `--workloads all` and of the
 * tables: the irregular ones, then the regular control.  fig2 (the patent's
 * two-instruction scenario) is a trace subject, not a benchmark: `all` leaves
 * it out.
 */
#include <string.h>

#include "kernels/workloads/workload.h"

extern const gd_probe gd_workload_bfs;
extern const gd_probe gd_workload_spmv;
extern const gd_probe gd_workload_scatter;
extern const gd_probe gd_workload_stencil;
extern const gd_probe gd_workload_kmeans;
extern const gd_probe gd_workload_vecadd;
extern const gd_probe gd_workload_fig2;
extern const gd_probe gd_workload_pcm_kmeans;
extern const gd_probe gd_workload_pcm_libor;
extern const gd_probe gd_workload_pcm_aes;
extern const gd_probe gd_workload_pcm_stream;

static const gd_probe *const workloads[] = {
    &gd_workload_bfs,     &gd_workload_spmv,   &gd_workload_scatter, &gd_workload_stencil,
    &gd_workload_kmeans,  &gd_workload_vecadd, &gd_workload_fig2,
    /* PCM main memory (issue 13) */
    &gd_workload_pcm_kmeans, &gd_workload_pcm_libor, &gd_workload_pcm_aes, &gd_workload_pcm_stream,
};

const gd_probe *const *gd_workload_list(size_t *count)
{
    *count = sizeof workloads / sizeof workloads[0];
    return workloads;
}

const gd_probe *gd_workload_find(const char *name)
{
    for (size_t i = 0; i < sizeof workloads / sizeof workloads[0]; i++)
        if (strcmp(workloads[i]->name, name) == 0)
            return workloads[i];
    return NULL;
}
