/* bench_unseen.c -- the full suite's cost on a GPU nobody wrote an arch file
 * for, with a large L2.
 *
 * The unseen-GPUs issue asks `characterize --suite full` to stay within 60 s
 * on one of these 2-core machines for any generated hierarchy up to a 64 MiB
 * L2.  This bench generates the first GPU from seed BENCH_SEED on whose L2 is
 * at least BENCH_MIN_L2_BYTES (tests/arch_gen.h; the generator's largest L2 is
 * 40 MiB), runs the full suite on it as a process, and prints the wall time
 * against the target and the costliest steps (from the progress lines, timed
 * as they arrive: the time up to a point's line was spent on its step).
 * Figures are this one run's, on whatever load the machine had.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/arch.h"
#include "tests/arch_gen.h"

#define TARGET_SECONDS 60.0
#define BENCH_SEED 1000
#define BENCH_MIN_L2_BYTES (24ull << 20)
#define BENCH_MAX_STEPS 96
#define GEN_TEXT_BYTES 16384

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct step_time {
    char label[64];
    double seconds;
} step_time;

int main(int argc, char **argv)
{
    const char *bin = argc > 1 ? argv[1] : "./gpudissect";
    static char text[GEN_TEXT_BYTES];
    gd_arch_gen_opts opts = {.noise = -1};
    uint64_t seed = BENCH_SEED;
    gd_arch arch;
    gd_err err;
    for (;; seed++) {
        if (gd_arch_generate(seed, &opts, text, sizeof text) != 0 ||
            gd_arch_parse_string(text, "generated.arch", NULL, 0, &arch, &err) != 0) {
            fprintf(stderr, "bench_unseen: seed %llu: no arch\n", (unsigned long long)seed);
            return 1;
        }
        if (arch.level[GD_L2].size_bytes >= BENCH_MIN_L2_BYTES)
            break;
    }
    char dir[] = "/tmp/gd-bench-unseen-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("bench_unseen: mkdtemp");
        return 1;
    }
    char path[256], cmd[1024];
    snprintf(path, sizeof path, "%s/gen-%llu.arch", dir, (unsigned long long)seed);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        perror("bench_unseen: writing the arch file");
        return 1;
    }
    snprintf(cmd, sizeof cmd,
             "%s characterize --device sim:%s --suite full --out %s/run --no-plots 2>&1", bin,
             path, dir);
    static step_time steps[BENCH_MAX_STEPS];
    size_t nsteps = 0;
    double t0 = wall_seconds(), last = t0;
    FILE *p = popen(cmd, "r");
    if (!p) {
        perror("bench_unseen: popen");
        return 1;
    }
    char line[1024];
    while (fgets(line, sizeof line, p)) {
        /* "[i/n] LABEL x: ..." after each point, "LABEL: ..." after a step: the
         * time since the line before was spent on LABEL */
        double now = wall_seconds();
        const char *label = line;
        if (line[0] == '[') {
            const char *close = strstr(line, "] ");
            if (!close)
                continue;
            label = close + 2;
        }
        size_t len = strcspn(label, " :\n");
        if (!len)
            continue;
        size_t k = 0;
        while (k < nsteps && !(strlen(steps[k].label) == len && !strncmp(steps[k].label, label, len)))
            k++;
        if (k == nsteps) {
            if (nsteps == BENCH_MAX_STEPS)
                continue;
            snprintf(steps[nsteps++].label, sizeof steps[0].label, "%.*s", (int)len, label);
        }
        steps[k].seconds += now - last;
        last = now;
    }
    int rc = pclose(p);
    double wall = wall_seconds() - t0;
    printf("characterize --suite full on generated GPU seed %llu (L2 %llu KiB, L1D %llu KiB, "
           "%s L2)\n",
           (unsigned long long)seed, (unsigned long long)(arch.level[GD_L2].size_bytes >> 10),
           (unsigned long long)(arch.level[GD_L1D].size_bytes >> 10),
           gd_replacement_name(arch.level[GD_L2].replacement));
    printf("  exit status                   %d%s\n", rc, rc == 0 ? "" : " (steps failed or the run did)");
    printf("  wall time                     %.1f s (target <= %.0f s): ratio %.2f %s\n", wall,
           TARGET_SECONDS, wall / TARGET_SECONDS,
           wall <= TARGET_SECONDS ? "(meets target)" : "(ABOVE TARGET)");
    /* the costliest steps first */
    for (size_t i = 0; i < nsteps; i++)
        for (size_t j = i + 1; j < nsteps; j++)
            if (steps[j].seconds > steps[i].seconds) {
                step_time t = steps[i];
                steps[i] = steps[j];
                steps[j] = t;
            }
    for (size_t i = 0; i < nsteps && i < 8; i++)
        printf("  %-28s  %6.1f s (%4.1f%%)\n", steps[i].label, steps[i].seconds,
               100.0 * steps[i].seconds / wall);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_unseen: could not remove %s\n", dir);
    return 0;
}
