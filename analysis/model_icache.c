/* model_icache.c -- the expected curves of the instruction-fetch and constant
 * broadcast probes.
 *
 * icache_seq: a loop of B bytes of straight-line code, run many times.  While
 * the loop fits the first instruction cache (L0I, or L1I on GPUs without an
 * L0) every pass is served from it and the core issues one instruction per
 * cycle: CPI 1 (or alu_latency / 8 for the FFMA flavour, whose 8 chains need
 * alu_latency <= 8 to issue back to back).  Past its capacity, LRU on a cyclic
 * stream evicts every line before the loop comes back, so the fetch misses each
 * line that the sequential prefetcher did not bring in with an earlier miss: one
 * demand miss per (prefetch + 1) lines.  A demand miss waits for the first level
 * below that holds the line -- one the loop fits, or one that the previous
 * demand's lookups (its line and the prefetched ones, installed at every level on
 * the way) just brought in, because the lines below can be larger (T4: 128-B L0I
 * lines, 256-B L1I lines) -- else the L2 ([L2C] latency); the prefetched lines
 * arrive with it, so the miss waits for the slowest of its lines' lookups (as
 * sim/fetch.c: a prefetch is no free fill of the levels below).  The model walks one
 * steady-state pass of the loop's lines this way and adds the waits to one cycle
 * per instruction.
 *
 * Where the knees fall: a pass needs more than the loop's own lines -- the
 * prefetcher pulls `prefetch` lines past the loop's end into the first level,
 * and a loop that does not start on a line boundary spans one line more -- so
 * a level holds the loop while code + (prefetch + 1) first-level lines fit it
 * (sim:t4: the L0 knee at 16 000 bytes, not 16 384).  How many of those lines a
 * pass really adds depends on where the loop starts in its first line and on
 * the prefetches' alignment, which follow from the kernel's prologue, which the
 * model does not know (sim:v100's L0 knee is at 12 160 = 12 288 - 128): within
 * (prefetch + 1) first-level lines below a capacity the model cannot say on
 * which side a point falls (gd_model_icache_near_knee), and compare does not
 * hold those points to it.  Past the L2 the
 * line comes from DRAM: the [DRAM] latency plus what the instruction path adds
 * to an L2 hit ([L2C] - [L2] latency), as the fetch unit sees it.
 *
 * const_bcast: k distinct addresses of one warp load are served one after the
 * other, each a full L1 constant lookup, so the load takes k times the [L1C]
 * latency; one address (all lanes alike) is a broadcast and costs one lookup.
 */
#include "analysis/model_icache.h"

#include <stdlib.h>
#include <string.h>

#include "kernels/probe_layout.h"

static const gd_level_id fetch_levels[] = {GD_L0I, GD_L1I, GD_L15I};
#define FETCH_LEVELS (sizeof fetch_levels / sizeof fetch_levels[0])

/* Does a loop over lines [0, lines) of this level fit its sets? */
static int loop_fits(const gd_arch_level *l, uint64_t bytes)
{
    if (!l->line_bytes || !l->sets)
        return 1;
    uint64_t lines = (bytes + l->line_bytes - 1) / l->line_bytes;
    uint64_t per_set = (lines + l->sets - 1) / l->sets;
    return per_set <= l->ways;
}

static double icache_cpi(const gd_arch *arch, const gd_probe_opts *opts, uint64_t code_bytes)
{
    const gd_arch_level *lv[FETCH_LEVELS];
    size_t n = 0;
    for (size_t i = 0; i < FETCH_LEVELS; i++)
        if (arch->level[fetch_levels[i]].present)
            lv[n++] = &arch->level[fetch_levels[i]];
    uint64_t insns = code_bytes / GD_INSTRUCTION_BYTES;
    uint64_t block = insns > GD_ICACHE_LOOP_INSTRUCTIONS ? insns - GD_ICACHE_LOOP_INSTRUCTIONS : 1;
    double issue = 1.0;
    if (strcmp(opts->variant, "nop") && arch->gpu.alu_latency_cycles > GD_FFMA_CHAINS)
        issue = (double)arch->gpu.alu_latency_cycles / GD_FFMA_CHAINS;
    if (n == 0)
        return issue;
    uint64_t line0 = lv[0]->line_bytes, lines = (code_bytes + line0 - 1) / line0;
    uint32_t prefetch = lv[0]->prefetch_lines;
    /* what a pass occupies: the loop, the lines prefetched past its end, and
     * the line its unaligned start adds */
    uint64_t held = code_bytes + ((uint64_t)prefetch + 1) * line0;
    if (loop_fits(lv[0], held))
        return issue;
    double l2 = arch->level[GD_L2C].present ? arch->level[GD_L2C].latency_cycles
                                            : arch->level[GD_L2].latency_cycles;
    /* the L2 is set-associative: a pass's few extra lines overfill a few of its
     * sets, not all of them, so the loop itself decides */
    if (arch->level[GD_L2].present && !loop_fits(&arch->level[GD_L2], code_bytes))
        l2 = arch->level[GD_DRAM].latency_cycles + (l2 - arch->level[GD_L2].latency_cycles);
    int fits[FETCH_LEVELS];
    for (size_t j = 1; j < n; j++)
        fits[j] = loop_fits(lv[j], held);
    /* the lines of each lower level the last demand group touched: [lo, hi] */
    uint64_t lo[FETCH_LEVELS] = {0}, hi[FETCH_LEVELS] = {0};
    int have_group = 0;
    uint64_t prefetched_to = 0; /* first-level lines up to here arrived with a miss */
    double wait = 0;
    /* two passes: the first sets up the state the second (the one counted) sees */
    for (int pass = 0; pass < 2; pass++) {
        for (uint64_t i = 0; i < lines; i++) {
            uint64_t abs_line = (uint64_t)pass * lines + i; /* the order of the walk */
            if (have_group && abs_line <= prefetched_to && i != 0)
                continue; /* brought in with the last miss */
            /* the demand line and its prefetches arrive together: the wait is
             * the slowest of their lookups (a prefetched line is in a level
             * below if the level holds the loop, the last group brought it, or
             * this group's earlier lines share its line there) */
            double lat = 0;
            uint64_t addr = i * line0;
            for (uint32_t k = 0; k <= prefetch; k++) {
                uint64_t a_k = addr + (uint64_t)k * line0;
                double lat_k = l2;
                for (size_t j = 1; j < n; j++) {
                    uint64_t lj = a_k / lv[j]->line_bytes;
                    if (fits[j] || (have_group && lj >= lo[j] && lj <= hi[j]) ||
                        (k > 0 && lj <= (a_k - line0) / lv[j]->line_bytes)) {
                        lat_k = lv[j]->latency_cycles;
                        break;
                    }
                }
                if (lat_k > lat)
                    lat = lat_k;
            }
            if (pass == 1)
                wait += lat;
            /* this lookup and its prefetches install lines at every level below */
            uint64_t last = addr + (uint64_t)prefetch * line0;
            for (size_t j = 1; j < n; j++) {
                lo[j] = addr / lv[j]->line_bytes;
                hi[j] = last / lv[j]->line_bytes;
            }
            have_group = 1;
            prefetched_to = abs_line + prefetch;
        }
    }
    return issue + wait / (double)block;
}

int gd_model_icache_near_knee(const gd_arch *arch, uint64_t code_bytes)
{
    const gd_arch_level *first = NULL;
    for (size_t i = 0; i < FETCH_LEVELS && !first; i++)
        if (arch->level[fetch_levels[i]].present)
            first = &arch->level[fetch_levels[i]];
    if (!first)
        return 0;
    uint64_t band = ((uint64_t)first->prefetch_lines + 1) * first->line_bytes;
    for (size_t i = 0; i < FETCH_LEVELS; i++) {
        const gd_arch_level *l = &arch->level[fetch_levels[i]];
        uint64_t cap = l->present ? l->size_bytes : 0;
        if (cap && code_bytes <= cap && code_bytes + band > cap)
            return 1;
    }
    return 0;
}

int gd_model_other_curve(const gd_arch *arch, const char *probe, const gd_probe_opts *opts,
                         const uint64_t *xs, size_t count, gd_model_point *out, gd_err *err)
{
    int icache = !strcmp(probe, "icache_seq");
    if (!icache && strcmp(probe, "const_bcast"))
        return gd_fail(err, "model: no analytical model for probe '%s'", probe);
    if (!icache && !arch->level[GD_L1C].present)
        return gd_fail(err, "model: arch %s has no [L1C] for const_bcast", arch->name);
    for (size_t i = 0; i < count; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].x = (double)xs[i];
        out[i].accesses = 1;
        out[i].mean_cycles = icache ? icache_cpi(arch, opts, xs[i])
                                    : (double)xs[i] * arch->level[GD_L1C].latency_cycles;
    }
    return 0;
}
