/* bench_characterize.c -- the main job's cost and the adaptive sweep's economy.
 *
 * Times `gpudissect characterize --device sim:t4 --suite quick` as a whole
 * process (target: at most 30 s on one of these 2-core machines) and reads from
 * its inferred.json how many points the adaptive p-chase sweep measured against
 * the points a uniform sweep needs for the same knee precision (one stride over
 * the same range; target: adaptive at most 1/5 of uniform).  Ratios are printed
 * as measured in this one run.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TARGET_SECONDS 30.0
#define TARGET_POINT_RATIO 0.2

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    const char *bin = argc > 1 ? argv[1] : "./gpudissect";
    char dir[] = "/tmp/gd-bench-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("bench_characterize: mkdtemp");
        return 1;
    }
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s characterize --device sim:t4 --suite quick --out %s/run --quiet "
                              ">/dev/null",
             bin, dir);
    double t0 = wall_seconds();
    int rc = system(cmd);
    double wall = wall_seconds() - t0;
    if (rc != 0) {
        fprintf(stderr, "bench_characterize: '%s' failed\n", cmd);
        return 1;
    }
    char path[1200];
    snprintf(path, sizeof path, "%s/run/inferred.json", dir);
    json_error_t jerr;
    json_t *inf = json_load_file(path, 0, &jerr);
    if (!inf) {
        fprintf(stderr, "bench_characterize: %s: %s\n", path, jerr.text);
        return 1;
    }
    const json_t *pc = json_object_get(json_object_get(inf, "curves"), "pchase");
    double used = (double)json_integer_value(json_object_get(pc, "points"));
    double uniform = (double)json_integer_value(json_object_get(pc, "uniform_points_equivalent"));
    double resolution = (double)json_integer_value(json_object_get(pc, "resolution_bytes"));
    printf("characterize --device sim:t4 --suite quick\n");
    printf("  wall time                     %.2f s (target <= %.0f s): ratio %.2f %s\n", wall,
           TARGET_SECONDS, wall / TARGET_SECONDS,
           wall <= TARGET_SECONDS ? "(meets target)" : "(ABOVE TARGET)");
    printf("  p-chase points, adaptive      %.0f\n", used);
    printf("  p-chase points, uniform       %.0f for the same %.0f-byte knee precision\n", uniform,
           resolution);
    printf("  adaptive / uniform            %.5f (target <= %.2f) %s\n", used / uniform,
           TARGET_POINT_RATIO,
           used / uniform <= TARGET_POINT_RATIO ? "(meets target)" : "(ABOVE TARGET)");
    json_decref(inf);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_characterize: could not remove %s\n", dir);
    return 0;
}
