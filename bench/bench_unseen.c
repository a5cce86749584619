/* bench_unseen.c -- the full suite's cost on GPUs nobody wrote an arch file
 * for, with large L2s.
 *
 * The unseen-GPUs issue asks `characterize --suite full` to stay within 60 s
 * on one of these 2-core machines for any generated hierarchy up to a 64 MiB
 * L2.  This bench generates (tests/arch_gen.h) the first GPU from seed
 * BENCH_SEED whose L2 is at least 24 MiB, the first with the generator's
 * largest (40 MiB), and that one again with its L2 set to 64 MiB (--set
 * L2.size: the generator stops at 40), runs the full suite on each as a
 * process, and prints each wall time against the target and the costliest
 * steps (from the progress lines, timed as they arrive: the time up to a
 * point's line was spent on its step -- steps overlap, so this is no exact
 * split).  Figures are this one run's, on whatever load the machine had.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/arch.h"
#include "tests/arch_gen.h"

#define TARGET_SECONDS 60.0
#define BENCH_SEED 1000
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

/* The first generated GPU from BENCH_SEED whose L2 is at least min_l2 bytes:
 * its seed, text and parsed arch.  0, or -1 when the generator fails. */
static int first_with_l2(uint64_t min_l2, uint64_t *seed, char *text, size_t cap, gd_arch *arch)
{
    gd_arch_gen_opts opts = {.noise = -1};
    gd_err err;
    for (*seed = BENCH_SEED;; (*seed)++) {
        if (gd_arch_generate(*seed, &opts, text, cap) != 0 ||
            gd_arch_parse_string(text, "generated.arch", NULL, 0, arch, &err) != 0) {
            fprintf(stderr, "bench_unseen: seed %llu: no arch\n", (unsigned long long)*seed);
            return -1;
        }
        if (arch->level[GD_L2].size_bytes >= min_l2)
            return 0;
    }
}

/* Times the full suite on the first GPU with an L2 of at least min_l2 bytes
 * (with `set`, e.g. "--set L2.size=65536KiB", or ""); l2_shown: the L2 it
 * runs with.  0, or -1 when it could not be run at all. */
static int time_full_suite(const char *bin, uint64_t min_l2, const char *set, uint64_t l2_shown)
{
    static char text[GEN_TEXT_BYTES];
    uint64_t seed;
    gd_arch arch;
    if (first_with_l2(min_l2, &seed, text, sizeof text, &arch) != 0)
        return -1;
    if (!l2_shown)
        l2_shown = arch.level[GD_L2].size_bytes;
    char dir[] = "/tmp/gd-bench-unseen-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("bench_unseen: mkdtemp");
        return -1;
    }
    char path[256], cmd[1024];
    snprintf(path, sizeof path, "%s/gen-%llu.arch", dir, (unsigned long long)seed);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        perror("bench_unseen: writing the arch file");
        return -1;
    }
    snprintf(cmd, sizeof cmd,
             "%s characterize --device sim:%s %s --suite full --out %s/run --no-plots 2>&1", bin,
             path, set, dir);
    static step_time steps[BENCH_MAX_STEPS];
    size_t nsteps = 0;
    double t0 = wall_seconds(), last = t0;
    FILE *p = popen(cmd, "r");
    if (!p) {
        perror("bench_unseen: popen");
        return -1;
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
    printf("characterize --suite full on generated GPU seed %llu%s%s (L2 %llu KiB, L1D %llu KiB, "
           "%s L2)\n",
           (unsigned long long)seed, set[0] ? " " : "", set,
           (unsigned long long)(l2_shown >> 10),
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
    for (size_t i = 0; i < nsteps && i < 6; i++)
        printf("  %-28s  %6.1f s (%4.1f%%)\n", steps[i].label, steps[i].seconds,
               100.0 * steps[i].seconds / wall);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_unseen: could not remove %s\n", dir);
    return 0;
}

int main(int argc, char **argv)
{
    const char *bin = argc > 1 ? argv[1] : "./gpudissect";
    int rc = time_full_suite(bin, 24ull << 20, "", 0);
    rc |= time_full_suite(bin, 40ull << 20, "", 0);
    rc |= time_full_suite(bin, 40ull << 20, "--set L2.size=65536KiB", 64ull << 20);
    return rc ? 1 : 0;
}
