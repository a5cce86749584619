/* model_access.c -- what the smem_bank and coalesce probes should measure on an
 * arch, in closed form.
 *
 * smem_bank: lane i of a warp reads the word at (i * x) mod the probe's array.
 * Shared memory is `banks` banks of `bank_width` bytes ([SMEM]), word w in bank
 * w mod banks; an access whose lanes touch n distinct words of one bank takes n
 * passes, lanes on the same word share one read, and an access wider than a
 * bank covers consecutive banks.  The simulator replays each further pass one
 * cycle later (sim/smem.c), so the probe measures  latency + (n - 1).
 *
 * coalesce: a warp's 4-byte loads x bytes apart (or the first x lanes, 128
 * bytes apart -- --stride) become one L1 request per [L1D] line they touch; the
 * probe's primary series counts them.  Lines are counted from a line boundary,
 * where the probe puts its first lane.
 */
#include "analysis/model_access.h"

#include <stdlib.h>
#include <string.h>

#define WARP_LANES 32
#define MAX_WORDS_PER_LANE 8          /* an 8-byte access on 1-byte banks */
#define SMEM_REPLAY_CYCLES 1          /* sim/smem.c: one pass per cycle */
#define COALESCE_ACCESS_BYTES 4       /* kernels/coalesce.c loads .u32 */

uint32_t gd_smem_conflict_ways(uint32_t banks, uint32_t width_bytes, uint32_t access_bytes,
                               uint64_t lane_stride)
{
    if (!banks || !width_bytes || !access_bytes)
        return 0;
    uint64_t words[WARP_LANES * MAX_WORDS_PER_LANE];
    uint32_t n = 0, worst = 1;
    for (uint64_t lane = 0; lane < WARP_LANES; lane++) {
        uint64_t addr = (lane * lane_stride) % GD_SMEM_BANK_ARRAY_BYTES;
        uint64_t first = addr / width_bytes, last = (addr + access_bytes - 1) / width_bytes;
        for (uint64_t word = first; word <= last && word < first + MAX_WORDS_PER_LANE; word++) {
            uint32_t same_bank = 1, i;
            for (i = 0; i < n; i++) {
                if (words[i] == word)
                    break; /* the same word: one read serves both */
                same_bank += words[i] % banks == word % banks;
            }
            if (i < n)
                continue;
            words[n++] = word;
            if (same_bank > worst)
                worst = same_bank;
        }
    }
    return worst;
}

uint32_t gd_coalesce_requests(uint64_t line_bytes, uint64_t lane_stride, uint32_t lanes)
{
    if (!line_bytes)
        return 0;
    uint32_t requests = 0;
    uint64_t last_line = 0;
    /* addresses grow with the lane, so a new line is a line not seen before */
    for (uint64_t lane = 0; lane < lanes; lane++) {
        uint64_t first = lane * lane_stride / line_bytes;
        uint64_t end = (lane * lane_stride + COALESCE_ACCESS_BYTES - 1) / line_bytes;
        for (uint64_t line = first; line <= end; line++)
            if (requests == 0 || line != last_line) {
                requests++;
                last_line = line;
            }
    }
    return requests;
}

static int smem_curve(const gd_arch *arch, const gd_probe_opts *opts, const uint64_t *xs,
                      size_t count, gd_model_point *out, gd_err *err)
{
    const gd_arch_level *smem = &arch->level[GD_SMEM];
    if (!smem->present)
        return gd_fail(err, "model: arch %s has no [SMEM] for smem_bank", arch->name);
    uint32_t access = !strcmp(opts->variant, "u64") ? 8 : 4;
    for (size_t i = 0; i < count; i++) {
        if (xs[i] % access)
            return gd_fail(err, "model: smem_bank: a lane stride of %llu bytes is not a multiple "
                                "of the %u-byte access",
                           (unsigned long long)xs[i], access);
        uint32_t ways = gd_smem_conflict_ways(smem->banks, smem->bank_width_bytes, access, xs[i]);
        if (!ways)
            return gd_fail(err, "model: arch %s: [SMEM] has no banks", arch->name);
        memset(&out[i], 0, sizeof out[i]);
        out[i].x = (double)xs[i];
        out[i].accesses = 1;
        out[i].mean_cycles = smem->latency_cycles + (double)(ways - 1) * SMEM_REPLAY_CYCLES;
    }
    return 0;
}

static int coalesce_curve(const gd_arch *arch, const gd_probe_opts *opts, const uint64_t *xs,
                          size_t count, gd_model_point *out, gd_err *err)
{
    const gd_arch_level *l1 = &arch->level[GD_L1D];
    if (!l1->present || !l1->line_bytes)
        return gd_fail(err, "model: arch %s has no [L1D] line for coalesce", arch->name);
    int lanes_variant = !strcmp(opts->variant, "lanes");
    for (size_t i = 0; i < count; i++) {
        uint64_t stride = lanes_variant ? (opts->stride_bytes ? opts->stride_bytes
                                                              : GD_COALESCE_DEFAULT_LANE_STRIDE)
                                        : xs[i];
        uint64_t lanes = lanes_variant ? xs[i] : WARP_LANES;
        if (lanes < 1 || lanes > WARP_LANES)
            return gd_fail(err, "model: coalesce: %llu active lanes is outside 1..32",
                           (unsigned long long)lanes);
        memset(&out[i], 0, sizeof out[i]);
        out[i].x = (double)xs[i];
        out[i].accesses = 1;
        out[i].mean_cycles = gd_coalesce_requests(l1->line_bytes, stride, (uint32_t)lanes);
    }
    return 0;
}

int gd_model_access_curve(const gd_arch *arch, const char *probe, const gd_probe_opts *opts,
                          const uint64_t *xs, size_t count, gd_model_point *out, gd_err *err)
{
    if (!strcmp(probe, "smem_bank"))
        return smem_curve(arch, opts, xs, count, out, err);
    if (!strcmp(probe, "coalesce"))
        return coalesce_curve(arch, opts, xs, count, out, err);
    return gd_fail(err, "model: no analytical model for probe '%s'", probe);
}
