/* fuzz_arch.c -- the arch-file reader: a file's text, and --set overrides.
 *
 * `arch`: the bytes are an arch file.  `set`: every line of the bytes is one
 * --set SECTION.key=VALUE applied over the bundled tiny.arch.  An accepted arch
 * must keep the promises analysis/archs/README.md makes ("Bounds"): every
 * cache's geometry whole, the L1D no larger than the L2, latencies growing
 * L1D < L2 < DRAM, a clock to divide by, noise within its range.
 */
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/arch.h"

static void check_arch(const gd_arch *a, const char *target)
{
    if (!(a->gpu.clock_mhz >= 1 && a->gpu.clock_mhz <= 10000))
        gd_fuzz_broken(target, "clock_mhz outside 1..10000");
    if (!a->gpu.sm_count || a->gpu.sm_count > 1024 || !a->gpu.max_ctas_per_sm ||
        a->gpu.max_ctas_per_sm > 64 || !a->gpu.max_warps_per_sm || a->gpu.max_warps_per_sm > 64)
        gd_fuzz_broken(target, "[gpu] counts outside their bounds");
    if (!(a->noise.jitter_cycles >= 0 && a->noise.jitter_cycles <= 100000) ||
        !(a->noise.outlier_rate >= 0 && a->noise.outlier_rate <= 1))
        gd_fuzz_broken(target, "[noise] outside its bounds");
    for (int id = 0; id < GD_LEVEL_COUNT; id++) {
        const gd_arch_level *l = &a->level[id];
        if (!l->present || id == GD_SMEM || id == GD_DRAM || id == GD_L2C)
            continue;
        if (!l->sets || !l->ways || l->ways > 4096 || !l->line_bytes || !l->sector_bytes ||
            l->line_bytes % l->sector_bytes ||
            l->size_bytes != (uint64_t)l->sets * l->ways * l->line_bytes)
            gd_fuzz_broken(target, "a cache whose geometry is not whole");
    }
    const gd_arch_level *l1 = &a->level[GD_L1D], *l2 = &a->level[GD_L2];
    if (l1->size_bytes > l2->size_bytes)
        gd_fuzz_broken(target, "an L1D larger than the L2");
    if (!(l1->latency_cycles < l2->latency_cycles &&
          l2->latency_cycles < a->level[GD_DRAM].latency_cycles))
        gd_fuzz_broken(target, "latencies not growing L1D < L2 < DRAM");
    if (!l1->fifo_entries || l1->fifo_entries > 4096 || !l1->miss_queue_entries)
        gd_fuzz_broken(target, "[L1D] queues outside their bounds");
    const gd_arch_dram *d = &a->level[GD_DRAM].dram;
    if ((d->write_high || d->write_low) && (!d->channels || d->write_low >= d->write_high))
        gd_fuzz_broken(target, "[DRAM] write drain watermarks out of order, or without channels");
    if (d->row_timeout && (!d->channels || d->row_timeout > 1000000))
        gd_fuzz_broken(target, "[DRAM] row_timeout past 1000000 cycles, or without channels");
}

int gd_fuzz_arch(const uint8_t *data, size_t size)
{
    char *text = gd_fuzz_text(data, size);
    gd_arch *arch = malloc(sizeof *arch);
    if (!arch)
        abort();
    gd_err err = {{0}};
    int rc;
    if (gd_arch_parse_string(text, "fuzz.arch", NULL, 0, arch, &err) == 0) {
        check_arch(arch, "arch");
        rc = GD_FUZZ_ACCEPTED;
    } else {
        rc = gd_fuzz_rejected(&err, "arch");
    }
    free(arch);
    free(text);
    return rc;
}

int gd_fuzz_set(const uint8_t *data, size_t size)
{
    char *text = gd_fuzz_text(data, size);
    const char *overrides[64];
    size_t count = 0;
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line && count < 64;
         line = strtok_r(NULL, "\n", &save))
        overrides[count++] = line;
    gd_arch *arch = malloc(sizeof *arch);
    if (!arch)
        abort();
    gd_err err = {{0}};
    int rc;
    if (gd_arch_parse_string(gd_fuzz_tiny_arch(), "tiny.arch", overrides, count, arch, &err) == 0) {
        check_arch(arch, "set");
        rc = GD_FUZZ_ACCEPTED;
    } else {
        rc = gd_fuzz_rejected(&err, "set");
    }
    free(arch);
    free(text);
    return rc;
}
