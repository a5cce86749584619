/* bench_reorder.c -- CN110457238A's two mechanisms, taken apart, on the
 * workloads of kernels/workloads/.
 *
 * Runs every workload of `gpudissect whatif --workloads all` (BFS, SpMV,
 * scatter with conflicts, a stencil with a conflicting row pitch, k-means
 * assignment, and vector add as the regular control) on sim:cn110457238 --
 * the patent's embodiment-2 GPU, whose coalescer emits a whole instruction at
 * once -- under five designs: today's (a refused request blocks the FIFO, one
 * memory instruction in the load unit), reorder alone, pipelined issue alone,
 * both (the patent), and both with a FIFO tail that takes a re-enqueued and a
 * new request in one cycle (L1D.fifo_tail_ports=2: not the patent's).  It
 * prints the simulated cycles, each design's speedup per workload, the
 * geometric means beside the patent's +23% (para. 0068) whatever they say,
 * and fails when a workload computes a wrong result or when reorder alone
 * changes the control's cycles (it has nothing to reorder).  The same numbers,
 * with tables, figures and counters: results/cn110457238/ (`gpudissect whatif`).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "host/device_registry.h"
#include "host/whatif.h"
#include "kernels/workloads/workload.h"

#define PATENT_CLAIM 1.23 /* CN110457238A para. 0068: geometric-mean performance +23% */
#define DESIGNS 5

static const char *const design_name[DESIGNS] = {"baseline", "reorder", "pipelined", "both",
                                                 "both, 2-port tail"};
static const char *const design_set[DESIGNS][3] = {
    {NULL},
    {"L1D.reorder=true"},
    {"L1D.pipelined_issue=true"},
    {"L1D.reorder=true", "L1D.pipelined_issue=true"},
    {"L1D.reorder=true", "L1D.pipelined_issue=true", "L1D.fifo_tail_ports=2"},
};

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
    size_t all_count;
    const gd_probe *const *all = gd_workload_list(&all_count);
    double t0 = wall_seconds(), log_sum[DESIGNS] = {0};
    size_t n = 0;
    int ok = 1;
    printf("CN110457238A on sim:cn110457238: simulated cycles, speedup over the baseline\n");
    printf("  %-9s %10s", "workload", "baseline");
    for (int d = 1; d < DESIGNS; d++)
        printf(" %18s", design_name[d]);
    printf("\n");
    for (size_t i = 0; i < all_count; i++) {
        const gd_probe *w = all[i];
        if (!strcmp(w->name, "fig2"))
            continue;
        double cycles[DESIGNS];
        for (int d = 0; d < DESIGNS; d++) {
            size_t count = 0;
            while (count < 3 && design_set[d][count])
                count++;
            gd_device_opts opts = {.overrides = design_set[d], .override_count = count};
            gd_device *dev = NULL;
            gd_err err;
            gd_whatif_cell cell;
            if (gd_device_open("sim:cn110457238", &opts, &dev, &err) != 0 ||
                gd_whatif_exec(dev, w, w->example_point, 0, NULL, &cell, &err) != 0) {
                fprintf(stderr, "bench_reorder: %s (%s): %s\n", w->name, design_name[d], err.msg);
                if (dev)
                    gd_device_close(dev);
                return 1;
            }
            gd_device_close(dev);
            if (cell.errors != 0) {
                fprintf(stderr, "bench_reorder: %s (%s): %.0f wrong output words\n", w->name,
                        design_name[d], cell.errors);
                ok = 0;
            }
            cycles[d] = cell.cycles;
        }
        printf("  %-9s %10.0f", w->name, cycles[0]);
        for (int d = 1; d < DESIGNS; d++) {
            printf(" %10.0f %6.3fx", cycles[d], cycles[0] / cycles[d]);
            log_sum[d] += log(cycles[0] / cycles[d]);
        }
        printf("\n");
        if (!strcmp(w->name, "vecadd") && cycles[1] != cycles[0]) {
            fprintf(stderr, "bench_reorder: reorder alone changed the control's cycles\n");
            ok = 0;
        }
        n++;
    }
    printf("  %-20s", "geometric mean");
    for (int d = 1; d < DESIGNS; d++) {
        double gm = exp(log_sum[d] / (double)n);
        printf(" %s %.3fx (%+.1f%%);", design_name[d], gm, (gm - 1) * 100);
    }
    printf("\n  the patent claims %.2fx (%+.0f%%, para. 0068) for both mechanisms; the 2-port tail "
           "is not the patent's\n",
           PATENT_CLAIM, (PATENT_CLAIM - 1) * 100);
    printf("  wall time %.1f s\n", wall_seconds() - t0);
    return ok ? 0 : 1;
}
