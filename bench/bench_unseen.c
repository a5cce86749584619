/* bench_unseen.c -- the full suite's cost on GPUs nobody wrote an arch file
 * for, with large L2s.
 *
 * The unseen-GPUs issue asks `characterize --suite full` to stay within 60 s
 * on one of these 2-core machines for any generated hierarchy up to a 64 MiB
 * L2.  This bench generates (tests/arch_gen.h) the first GPU from seed
 * BENCH_SEED whose L2 is at least 24 MiB, the first with the generator's
 * largest (40 MiB), that one again with its L2 set to 64 MiB (--set
 * L2.size: the generator stops at 40), and the first random 40 MiB L2 on 100
 * SMs or more with its L2 set to 60 MiB (the dearest kind found: every step
 * that streams on every SM, at the L1D's 32-byte line), runs the full suite on each as a
 * process, and prints each wall time against the target, the run's CPU time
 * and the costliest steps by CPU (meta.json "step_seconds": each step's own
 * process and its point processes -- steps overlap in time, so their wall
 * times are no split of the run's).  Figures are this one run's, on whatever
 * load the machine had.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
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
    double cpu, wall;
} step_time;

static double children_cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static int by_cpu(const void *a, const void *b)
{
    double x = ((const step_time *)a)->cpu, y = ((const step_time *)b)->cpu;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* What a timed GPU must have: an L2 of at least min_l2 bytes, and with
 * random_many_sms a randomly replacing one on at least 100 SMs (every step
 * that streams on every SM, and the L2 fits that read a random L2's ramp). */
typedef struct gpu_wanted {
    uint64_t min_l2;
    int random_many_sms;
} gpu_wanted;

/* The first generated GPU from BENCH_SEED that has what `want` asks: its
 * seed, text and parsed arch.  0, or -1 when the generator fails. */
static int first_with_l2(gpu_wanted want, uint64_t *seed, char *text, size_t cap, gd_arch *arch)
{
    gd_arch_gen_opts opts = {.noise = -1};
    gd_err err;
    for (*seed = BENCH_SEED;; (*seed)++) {
        if (gd_arch_generate(*seed, &opts, text, cap) != 0 ||
            gd_arch_parse_string(text, "generated.arch", NULL, 0, arch, &err) != 0) {
            fprintf(stderr, "bench_unseen: seed %llu: no arch\n", (unsigned long long)*seed);
            return -1;
        }
        if (arch->level[GD_L2].size_bytes >= want.min_l2 &&
            (!want.random_many_sms || (arch->level[GD_L2].replacement == GD_REPL_RANDOM &&
                                       arch->gpu.sm_count >= 100)))
            return 0;
    }
}

/* Times the full suite on the first GPU that has what `want` asks
 * (with `set`, e.g. "--set L2.size=65536KiB", or ""); l2_shown: the L2 it
 * runs with.  0, or -1 when it could not be run at all. */
static int time_full_suite(const char *bin, gpu_wanted want, const char *set, uint64_t l2_shown)
{
    static char text[GEN_TEXT_BYTES];
    uint64_t seed;
    gd_arch arch;
    if (first_with_l2(want, &seed, text, sizeof text, &arch) != 0)
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
    double t0 = wall_seconds(), c0 = children_cpu_seconds();
    FILE *p = popen(cmd, "r");
    if (!p) {
        perror("bench_unseen: popen");
        return -1;
    }
    char line[1024];
    while (fgets(line, sizeof line, p))
        ; /* the progress lines: read and dropped */
    int rc = pclose(p);
    double wall = wall_seconds() - t0, cpu = children_cpu_seconds() - c0;
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
    printf("  CPU time                      %.1f s (%.2f cores busy on average)\n", cpu,
           wall > 0 ? cpu / wall : 0);
    /* the costliest steps by CPU, from the run's meta.json */
    static step_time steps[BENCH_MAX_STEPS];
    size_t nsteps = 0;
    char meta_path[300];
    snprintf(meta_path, sizeof meta_path, "%s/run/meta.json", dir);
    json_error_t jerr;
    json_t *meta = json_load_file(meta_path, 0, &jerr);
    const char *label;
    json_t *v;
    json_object_foreach(json_object_get(meta, "step_seconds"), label, v) {
        if (nsteps == BENCH_MAX_STEPS)
            break;
        snprintf(steps[nsteps].label, sizeof steps[0].label, "%s", label);
        steps[nsteps].cpu = json_number_value(json_object_get(v, "cpu"));
        steps[nsteps].wall = json_number_value(json_object_get(v, "wall"));
        nsteps++;
    }
    json_decref(meta);
    if (!nsteps)
        printf("  (no step costs: %s has no step_seconds)\n", meta_path);
    qsort(steps, nsteps, sizeof *steps, by_cpu);
    for (size_t i = 0; i < nsteps && i < 8; i++)
        printf("  %-28s  %6.1f s of CPU (%4.1f%%), %6.1f s wall\n", steps[i].label, steps[i].cpu,
               cpu > 0 ? 100.0 * steps[i].cpu / cpu : 0, steps[i].wall);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_unseen: could not remove %s\n", dir);
    return 0;
}

int main(int argc, char **argv)
{
    const char *bin = argc > 1 ? argv[1] : "./gpudissect";
    int rc = time_full_suite(bin, (gpu_wanted){24ull << 20, 0}, "", 0);
    rc |= time_full_suite(bin, (gpu_wanted){40ull << 20, 0}, "", 0);
    rc |= time_full_suite(bin, (gpu_wanted){40ull << 20, 0}, "--set L2.size=65536KiB", 64ull << 20);
    /* the dearest kind found (2026-11-28): a random L2 on 108 SMs, at 60 MiB (a
     * whole number of sets for the generator's way counts, where 64 MiB is
     * not for 10 or 24 ways) */
    rc |= time_full_suite(bin, (gpu_wanted){40ull << 20, 1}, "--set L2.size=61440KiB", 60ull << 20);
    return rc ? 1 : 0;
}
