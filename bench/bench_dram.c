/* bench_dram.c -- simulator speed on a DRAM-bound sweep, with the levels below
 * the L1 of issue 12 and without them.
 *
 * One p-chase point past the L2 (ld.cg, 128-byte stride, twice the L2: every
 * access goes to DRAM) on sim:a100 as bundled -- 80 L2 slices in two
 * partitions, L1/L2 TLBs, 40 DRAM channels of banks and rows with FR-FCFS --
 * and on the same arch with those parts taken out (its [TLB1]/[TLB2] sections
 * and the slice, partition and DRAM-organisation keys dropped: one L2, the
 * fixed-latency DRAM, the path every arch had before).  Prints simulated
 * global loads per second of CPU time for both, the median of REPEATS, and the
 * ratio, against the bound: no more than 2x slower per simulated load.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/arch.h"
#include "analysis/results.h"
#include "host/device.h"
#include "host/device_registry.h"
#include "host/runner.h"

#define REPEATS 3
#define BOUND_SLOWDOWN 2.0

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* a100.arch without what issue 12 added, written to `out_path` */
static int write_plain_arch(const char *src_path, const char *out_path, gd_err *err)
{
    static const char *const dropped_keys[] = {"slices", "partitions", "far_latency", "hash",
                                               "xor_bits", "slice_requests_per_cycle",
                                               "channels", "banks", "row", "interleave", "tRCD",
                                               "tRP", "tCL", "tRAS", "tCCD", "tWR", "tRTW", "tWTR",
                                               "burst_cycles", "queue_entries", "write_high",
                                               "write_low", "row_timeout"};
    size_t len;
    char *text = gd_read_file(src_path, &len, err);
    if (!text)
        return -1;
    FILE *f = fopen(out_path, "w");
    if (!f) {
        free(text);
        return gd_fail(err, "%s: cannot write", out_path);
    }
    int in_tlb = 0, in_dram = 0;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        if (line[0] == '[') {
            in_tlb = !strncmp(line, "[TLB", 4);
            in_dram = !strncmp(line, "[DRAM]", 6);
        }
        if (in_tlb)
            continue;
        int drop = 0;
        for (size_t k = 0; k < sizeof dropped_keys / sizeof dropped_keys[0]; k++) {
            size_t n = strlen(dropped_keys[k]);
            /* [SMEM] banks stays: only [DRAM]'s is dropped */
            if (!strncmp(line, dropped_keys[k], n) && (line[n] == ' ' || line[n] == '=') &&
                (strcmp(dropped_keys[k], "banks") || in_dram))
                drop = 1;
        }
        if (!drop)
            fprintf(f, "%s\n", line);
    }
    free(text);
    return fclose(f) == 0 ? 0 : gd_fail(err, "%s: cannot write", out_path);
}

/* Median simulated global loads per CPU second of the DRAM-bound point. */
static int loads_per_second(const char *spec, uint64_t footprint, double *rate, double *cycles_per_load,
                            gd_err *err)
{
    gd_device *dev;
    if (gd_device_open(spec, NULL, &dev, err) != 0)
        return -1;
    double rates[REPEATS];
    for (int rep = 0; rep < REPEATS; rep++) {
        gd_runner runner;
        gd_curve curve;
        gd_runner_init(&runner, dev, NULL, NULL);
        gd_probe_opts opts = {.stride_bytes = 128};
        snprintf(opts.variant, sizeof opts.variant, "cg");
        gd_curve_init(&curve, "pchase", gd_probe_find("pchase"), &opts);
        gd_counter_list before = {0}, after = {0};
        gd_device_counters(dev, &before, err);
        double c0 = cpu_seconds();
        int rc = gd_runner_measure(&runner, &curve, footprint, 0, 1, err);
        double cpu = cpu_seconds() - c0;
        gd_device_counters(dev, &after, err);
        double loads = gd_counter_list_get(&after, "global.loads", 0) -
                       gd_counter_list_get(&before, "global.loads", 0);
        *cycles_per_load = gd_point_summary(&curve.points[0], "cycles")->mean;
        rates[rep] = loads / cpu;
        gd_counter_list_free(&before);
        gd_counter_list_free(&after);
        gd_curve_free(&curve);
        gd_runner_close(&runner);
        if (rc != 0) {
            gd_device_close(dev);
            return -1;
        }
    }
    for (int i = 0; i < REPEATS; i++)
        for (int j = i + 1; j < REPEATS; j++)
            if (rates[j] < rates[i]) {
                double t = rates[i];
                rates[i] = rates[j];
                rates[j] = t;
            }
    *rate = rates[REPEATS / 2];
    gd_device_close(dev);
    return 0;
}

int main(void)
{
    gd_err err;
    char path[1024], plain[64], spec[128];
    gd_arch a;
    if (gd_arch_resolve("a100", path, sizeof path, &err) != 0 ||
        gd_arch_load(path, NULL, 0, &a, &err) != 0) {
        fprintf(stderr, "bench_dram: %s\n", err.msg);
        return 1;
    }
    snprintf(plain, sizeof plain, "/tmp/bench-dram-%d.arch", (int)getpid());
    if (write_plain_arch(path, plain, &err) != 0) {
        fprintf(stderr, "bench_dram: %s\n", err.msg);
        return 1;
    }
    uint64_t footprint = 2 * a.level[GD_L2].size_bytes;
    double with, without, lat_with, lat_without;
    snprintf(spec, sizeof spec, "sim:%s", plain);
    if (loads_per_second("sim:a100", footprint, &with, &lat_with, &err) != 0 ||
        loads_per_second(spec, footprint, &without, &lat_without, &err) != 0) {
        unlink(plain);
        fprintf(stderr, "bench_dram: %s\n", err.msg);
        return 1;
    }
    unlink(plain);
    double slowdown = without / with;
    printf("DRAM-bound p-chase on sim:a100 (ld.cg, 128-B stride, %llu MiB: every access from DRAM), "
           "%d repeats\n", (unsigned long long)(footprint >> 20), REPEATS);
    printf("  with slices, partitions, TLBs, DRAM banks  %.2f M loads/s (chase %.1f cycles)\n",
           with / 1e6, lat_with);
    printf("  the same arch without them                 %.2f M loads/s (chase %.1f cycles)\n",
           without / 1e6, lat_without);
    printf("  cost per simulated load: %.2fx (bound <= %.1fx) %s\n", slowdown, BOUND_SLOWDOWN,
           slowdown <= BOUND_SLOWDOWN ? "(within bound)" : "(ABOVE BOUND)");
    return 0;
}
