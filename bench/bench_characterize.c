/* bench_characterize.c -- the main job's cost and the adaptive sweep's economy.
 *
 * Times `gpudissect characterize --device sim:t4` as a whole process, with the
 * quick suite (target: at most 10 s wall on one of these 2-core machines) and
 * the full suite (at most 20 s), each with the default -j (the cores hwloc
 * reports: sweep points run as parallel simulations), and prints the CPU time
 * the run used beside the wall time.  It reads from the quick run's
 * inferred.json how many points the adaptive p-chase sweep measured against the
 * points a uniform sweep needs for the same knee precision (one stride over the
 * same range; target: adaptive at most 1/5 of uniform).  Ratios are printed as
 * measured in this one run; the machines are shared, so a ratio above 1 under
 * load says as much about the neighbours as about the code.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host/runner.h"

#define TARGET_QUICK_SECONDS 10.0
#define TARGET_FULL_SECONDS 20.0
#define TARGET_POINT_RATIO 0.2

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* CPU seconds (user + sys) of the waited-for children so far. */
static double children_cpu_seconds(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_CHILDREN, &ru) != 0)
        return 0;
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

/* Runs one characterize; returns 0 and its wall and CPU seconds. */
static int time_suite(const char *bin, const char *suite, const char *out, double *wall,
                      double *cpu)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s characterize --device sim:t4 --suite %s --out %s --quiet "
                              ">/dev/null",
             bin, suite, out);
    double c0 = children_cpu_seconds(), t0 = wall_seconds();
    int rc = system(cmd);
    *wall = wall_seconds() - t0;
    *cpu = children_cpu_seconds() - c0;
    if (rc != 0) {
        fprintf(stderr, "bench_characterize: '%s' failed\n", cmd);
        return -1;
    }
    return 0;
}

static void print_time(const char *suite, double wall, double cpu, double target)
{
    printf("characterize --device sim:t4 --suite %s (-j %u: the cores hwloc reports)\n", suite,
           gd_runner_default_jobs());
    printf("  wall time                     %.2f s, %.2f s of CPU (target <= %.0f s wall): "
           "ratio %.2f %s\n",
           wall, cpu, target, wall / target, wall <= target ? "(meets target)" : "(ABOVE TARGET)");
}

int main(int argc, char **argv)
{
    const char *bin = argc > 1 ? argv[1] : "./gpudissect";
    char dir[] = "/tmp/gd-bench-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("bench_characterize: mkdtemp");
        return 1;
    }
    char out[1024];
    double wall, cpu, full_wall, full_cpu;
    snprintf(out, sizeof out, "%s/run", dir);
    if (time_suite(bin, "quick", out, &wall, &cpu) != 0)
        return 1;
    char path[1200];
    snprintf(path, sizeof path, "%s/run/inferred.json", dir);
    json_error_t jerr;
    json_t *inf = json_load_file(path, 0, &jerr);
    if (!inf) {
        fprintf(stderr, "bench_characterize: %s: %s\n", path, jerr.text);
        return 1;
    }
    snprintf(out, sizeof out, "%s/full", dir);
    if (time_suite(bin, "full", out, &full_wall, &full_cpu) != 0)
        return 1;
    const json_t *pc = json_object_get(json_object_get(inf, "curves"), "pchase");
    double used = (double)json_integer_value(json_object_get(pc, "points"));
    double uniform = (double)json_integer_value(json_object_get(pc, "uniform_points_equivalent"));
    double resolution = (double)json_integer_value(json_object_get(pc, "resolution_bytes"));
    print_time("quick", wall, cpu, TARGET_QUICK_SECONDS);
    printf("  p-chase points, adaptive      %.0f\n", used);
    printf("  p-chase points, uniform       %.0f for the same %.0f-byte knee precision\n", uniform,
           resolution);
    printf("  adaptive / uniform            %.5f (target <= %.2f) %s\n", used / uniform,
           TARGET_POINT_RATIO,
           used / uniform <= TARGET_POINT_RATIO ? "(meets target)" : "(ABOVE TARGET)");
    print_time("full", full_wall, full_cpu, TARGET_FULL_SECONDS);
    json_decref(inf);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_characterize: could not remove %s\n", dir);
    return 0;
}
