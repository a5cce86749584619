/* bench_pchase.c -- simulator speed on the p-chase sweep of the spine issue.
 *
 * Times a full p-chase sweep on sim:t4 (1 KiB to 8 MiB, doubling) and prints
 * simulated warp-instructions per second of CPU time, against the target of
 * 40 million per second on one core (issue 18; 20 million before it).  The
 * sweep runs in this process, on one core: a bench of the simulator, not of
 * the sweep workers (host/sweep_workers.c), which `bench_characterize` times.  The sweep runs REPEATS times in this
 * process and the median rate is compared with the target: these machines are
 * shared and noisy, so quote the ratio, not an absolute time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "host/device.h"
#include "host/device_registry.h"
#include "host/runner.h"

#define TARGET_WARP_INSNS_PER_SECOND 40e6
#define REPEATS 3

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
    gd_err err;
    gd_device *dev;
    if (gd_device_open("sim:t4", NULL, &dev, &err) != 0) {
        fprintf(stderr, "bench_pchase: %s\n", err.msg);
        return 1;
    }
    gd_sweep sweep;
    if (gd_sweep_parse("1KiB:8MiB", 32, &sweep, &err) != 0) {
        fprintf(stderr, "bench_pchase: %s\n", err.msg);
        return 1;
    }
    double rates[REPEATS], cpu = 0, wall = 0, insns = 0, cycles = 0, visited = 0;
    for (int rep = 0; rep < REPEATS; rep++) {
        gd_runner runner;
        gd_curve curve;
        gd_runner_init(&runner, dev, NULL, NULL);
        runner.chained = 1; /* in this process: its CPU time is the simulator's */
        gd_probe_opts opts = {0};
        gd_curve_init(&curve, "pchase", gd_probe_find("pchase"), &opts);
        gd_counter_list before = {0}, after = {0};
        gd_device_counters(dev, &before, &err);
        double c0 = cpu_seconds(), w0 = wall_seconds();
        if (gd_runner_sweep(&runner, &curve, &sweep, &err) != 0) {
            fprintf(stderr, "bench_pchase: %s\n", err.msg);
            return 1;
        }
        cpu = cpu_seconds() - c0;
        wall = wall_seconds() - w0;
        gd_device_counters(dev, &after, &err);
        insns = gd_counter_list_get(&after, "sim.warp_insns", 0) -
                gd_counter_list_get(&before, "sim.warp_insns", 0);
        cycles = gd_counter_list_get(&after, "sim.cycles", 0) -
                 gd_counter_list_get(&before, "sim.cycles", 0);
        visited = gd_counter_list_get(&after, "sim.visited_cycles", 0) -
                  gd_counter_list_get(&before, "sim.visited_cycles", 0);
        rates[rep] = insns / cpu;
        gd_counter_list_free(&before);
        gd_counter_list_free(&after);
        gd_curve_free(&curve);
        gd_runner_close(&runner);
    }
    for (int i = 0; i < REPEATS; i++)
        for (int j = i + 1; j < REPEATS; j++)
            if (rates[j] < rates[i]) {
                double t = rates[i];
                rates[i] = rates[j];
                rates[j] = t;
            }
    double rate = rates[REPEATS / 2];
    printf("p-chase sweep on sim:t4, 1KiB..8MiB (%zu points), %d repeats\n", sweep.count, REPEATS);
    printf("  warp-instructions simulated   %.0f per sweep\n", insns);
    printf("  simulated cycles              %.0f (%.1f%% visited, the rest skipped)\n", cycles,
           100.0 * visited / (cycles > 0 ? cycles : 1));
    printf("  last sweep cpu / wall time    %.3f s / %.3f s\n", cpu, wall);
    printf("  warp-instructions per second  median %.2f M (min %.2f, max %.2f; target >= %.0f M): "
           "ratio %.2f %s\n",
           rate / 1e6, rates[0] / 1e6, rates[REPEATS - 1] / 1e6,
           TARGET_WARP_INSNS_PER_SECOND / 1e6, rate / TARGET_WARP_INSNS_PER_SECOND,
           rate >= TARGET_WARP_INSNS_PER_SECOND ? "(meets target)" : "(BELOW TARGET)");
    gd_sweep_free(&sweep);
    gd_device_close(dev);
    return 0;
}
