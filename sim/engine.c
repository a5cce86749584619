/* engine.c -- a simulated GPU's engine: its lifetime (the SMs, their warps and
 * sub-partition lists, the memory system and the caches of every level), its
 * counters (sim_stats), its noise salt and its failure reporting.  The cycle
 * loop that runs a launch on it is gpu.c's; split from gpu.c on 2026-12-04,
 * when the loop's file passed 800 lines (issue 18's short issue path).
 */
#include "sim/engine.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_CYCLES (1ull << 32)

int sim_engine_fail(sim_engine *e, const char *fmt, ...)
{
    if (!e->failed) {
        e->failed = 1;
        if (e->err) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(e->err->msg, sizeof e->err->msg, fmt, ap);
            va_end(ap);
        }
    }
    return -1;
}

/* sim_stats is uint64_t counters only: walked as an array, the maximum aside. */
#define SIM_STATS_WORDS (sizeof(sim_stats) / sizeof(uint64_t))
#define SIM_STATS_MAX_WORD (offsetof(sim_stats, l1d_fifo_max) / sizeof(uint64_t))
_Static_assert(sizeof(sim_stats) % sizeof(uint64_t) == 0, "sim_stats holds uint64_t counters only");

void sim_stats_delta(const sim_stats *after, const sim_stats *before, sim_stats *delta)
{
    uint64_t a[SIM_STATS_WORDS], b[SIM_STATS_WORDS], d[SIM_STATS_WORDS];
    memcpy(a, after, sizeof a);
    memcpy(b, before, sizeof b);
    for (size_t i = 0; i < SIM_STATS_WORDS; i++)
        d[i] = i == SIM_STATS_MAX_WORD ? a[i] : a[i] - b[i];
    memcpy(delta, d, sizeof d);
}

void sim_stats_add(sim_stats *to, const sim_stats *delta)
{
    uint64_t t[SIM_STATS_WORDS], d[SIM_STATS_WORDS];
    memcpy(t, to, sizeof t);
    memcpy(d, delta, sizeof d);
    for (size_t i = 0; i < SIM_STATS_WORDS; i++)
        t[i] = i == SIM_STATS_MAX_WORD ? (d[i] > t[i] ? d[i] : t[i]) : t[i] + d[i];
    memcpy(to, t, sizeof t);
}

void sim_engine_salt_noise(sim_engine *e, uint64_t salt)
{
    e->noise_rng ^= (salt + 1) * 0xbf58476d1ce4e5b9ull; /* splitmix64's multiplier */
}

int sim_engine_create(const gd_arch *arch, sim_devmem *mem, sim_engine **out, gd_err *err)
{
    *out = NULL;
    sim_engine *e = calloc(1, sizeof *e);
    if (!e)
        return gd_fail(err, "sim: out of memory");
    e->arch = arch;
    e->mem = mem;
    e->sm_count = arch->gpu.sm_count;
    e->max_cycles = DEFAULT_MAX_CYCLES;
    e->noise_rng = arch->noise.seed ? arch->noise.seed : 1;
    e->noise_on = arch->noise.jitter_cycles > 0 || arch->noise.outlier_rate > 0;
    const char *env = getenv("GPUDISSECT_SIM_MAX_CYCLES");
    if (env && *env)
        e->max_cycles = strtoull(env, NULL, 0);
    /* a check, not a setting: every sub-partition's warps looked at on every
     * cycle visited, as before sim_sm.sub_ready (tests/test_sim_lsu.c holds the
     * results alike) */
    env = getenv("GPUDISSECT_SIM_LOOK_AT_EVERY_WARP");
    e->look_at_every_warp = env && *env == '1';
    uint32_t nw = arch->gpu.max_warps_per_sm, nsub = arch->gpu.subpartitions;
    e->sms = calloc(e->sm_count, sizeof *e->sms);
    e->active_sms = calloc(e->sm_count, sizeof *e->active_sms);
    e->active_ids = calloc(e->sm_count, sizeof *e->active_ids);
    e->sm_quiet = calloc(e->sm_count, sizeof *e->sm_quiet);
    if (!e->sms || !e->active_sms || !e->active_ids || !e->sm_quiet)
        goto oom;
    for (uint32_t s = 0; s < e->sm_count; s++) {
        sim_sm *sm = &e->sms[s];
        sm->id = s;
        sm->warps = calloc(nw, sizeof *sm->warps);
        sm->ctas = calloc(arch->gpu.max_ctas_per_sm, sizeof *sm->ctas);
        sm->sub_warps = calloc((size_t)nsub * nw, sizeof *sm->sub_warps);
        sm->sub_count = calloc(nsub, sizeof *sm->sub_count);
        sm->sub_last = calloc(nsub, sizeof *sm->sub_last);
        sm->sub_ready = calloc(nsub, sizeof *sm->sub_ready);
        if (!sm->warps || !sm->ctas || !sm->sub_warps || !sm->sub_count || !sm->sub_last ||
            !sm->sub_ready)
            goto oom;
        for (uint32_t c = 0; c < arch->gpu.max_ctas_per_sm; c++) {
            sm->ctas[c].warps = calloc(nw, sizeof *sm->ctas[c].warps);
            if (!sm->ctas[c].warps)
                goto oom;
        }
    }
    if (sim_memsys_create(e, err) != 0 || sim_fetch_create(e, err) != 0) {
        sim_engine_destroy(e);
        return -1;
    }
    *out = e;
    return 0;
oom:
    sim_engine_destroy(e);
    return gd_fail(err, "sim: out of memory for %u SMs", arch->gpu.sm_count);
}

void sim_engine_destroy(sim_engine *e)
{
    if (!e)
        return;
    sim_fetch_destroy(e);
    sim_memsys_destroy(e);
    for (uint32_t s = 0; e->sms && s < e->sm_count; s++) {
        sim_sm *sm = &e->sms[s];
        for (uint32_t w = 0; sm->warps && w < e->arch->gpu.max_warps_per_sm; w++) {
            free(sm->warps[w].regs);
            free(sm->warps[w].reg_ready);
        }
        for (uint32_t c = 0; sm->ctas && c < e->arch->gpu.max_ctas_per_sm; c++) {
            free(sm->ctas[c].warps);
            free(sm->ctas[c].shared);
        }
        free(sm->warps);
        free(sm->ctas);
        free(sm->sub_warps);
        free(sm->sub_count);
        free(sm->sub_ready);
        free(sm->sub_last);
    }
    free(e->sms);
    free(e->active_sms);
    free(e->active_ids);
    free(e->sm_quiet);
    free(e);
}

