/* fetch.c -- instruction fetch: L0I, L1I, L15I and the unified L2.
 *
 * Every instruction occupies 16 bytes of a per-kernel code range (as SASS does
 * on sm_70 and later), tagged into an address space of its own so that code
 * and data share the L2 without aliasing.  A warp executes from one line of the
 * first instruction cache at a time; when it moves to another line the line is
 * looked up:
 *
 *   - found in the first level (L0I, per sub-partition on Volta/Turing): no
 *     delay -- fetch keeps up with issue;
 *   - else the levels below are searched in order (L1I per SM, then L15I where an
 *     arch has one, then the L2), and the warp waits the latency of the level
 *     that had it ([L2C] latency for the L2, the constant/instruction path's
 *     view of it; DRAM latency plus the same extra beyond the L2 on a miss);
 *     the line is installed on the way up, together with the next `prefetch`
 *     lines (a sequential prefetcher: they arrive with the demand line, and
 *     the warp waits for the slowest of them -- a prefetch is no free fill of
 *     a level whose lines are larger than the first level's), so
 *     straight-line code misses once per (prefetch + 1) lines.
 *
 * Cache instances follow each level's `scope`: one per sub-partition, per SM or
 * for the chip -- which is what the attacker-victim probe measures.  A level
 * declared `shared_with` another uses that level's instances: on Turing the
 * L1.5 constant cache and the L1 instruction cache are one structure, so code
 * evicts constants (constant.c looks up the same caches).
 */
#include <stdlib.h>
#include <string.h>

#include "sim/engine.h"

static const gd_level_id icache_levels[] = {GD_L0I, GD_L1I, GD_L15I};
#define ICACHE_LEVELS (sizeof icache_levels / sizeof icache_levels[0])
static const gd_level_id const_levels[] = {GD_L1C, GD_L15C};

static uint32_t instances_for(const sim_engine *e, gd_scope scope)
{
    switch (scope) {
    case GD_SCOPE_SUBPARTITION: return e->sm_count * e->arch->gpu.subpartitions;
    case GD_SCOPE_SM: return e->sm_count;
    case GD_SCOPE_CHIP: return 1;
    }
    return 1;
}

static int level_create(sim_engine *e, gd_level_id id, gd_err *err)
{
    const gd_arch_level *l = &e->arch->level[id];
    sim_level_caches *lc = &e->lc[id];
    memset(lc, 0, sizeof *lc);
    if (!l->present)
        return 0;
    lc->present = 1;
    lc->scope = l->scope;
    lc->latency = l->latency_cycles;
    lc->prefetch = l->prefetch_lines;
    if (l->shared_with >= 0)
        return 0; /* linked below, once its owner exists */
    lc->count = instances_for(e, l->scope);
    lc->inst = calloc(lc->count, sizeof *lc->inst);
    if (!lc->inst)
        return gd_fail(err, "sim: out of memory for %s", gd_level_name(id));
    for (uint32_t i = 0; i < lc->count; i++)
        if (sim_cache_init(&lc->inst[i], l, e->arch->gpu.seed * 977u + id * 131u + i, err))
            return -1;
    return 0;
}

int sim_fetch_create(sim_engine *e, gd_err *err)
{
    for (size_t i = 0; i < ICACHE_LEVELS; i++)
        if (level_create(e, icache_levels[i], err))
            return -1;
    for (size_t i = 0; i < sizeof const_levels / sizeof const_levels[0]; i++)
        if (level_create(e, const_levels[i], err))
            return -1;
    for (int id = 0; id < GD_LEVEL_COUNT; id++) {
        const gd_arch_level *l = &e->arch->level[id];
        if (!e->lc[id].present || l->shared_with < 0)
            continue;
        sim_level_caches *owner = &e->lc[l->shared_with];
        if (!owner->inst)
            return gd_fail(err, "sim: [%s] shares [%s], which has no cache of its own",
                           gd_level_name((gd_level_id)id), gd_level_name(l->shared_with));
        e->lc[id].inst = owner->inst;
        e->lc[id].count = owner->count;
        e->lc[id].shared = 1;
    }
    e->ifetch_on = 0;
    for (size_t i = 0; i < ICACHE_LEVELS; i++)
        if (e->lc[icache_levels[i]].present) {
            e->ifetch_on = 1;
            e->ifetch_first = icache_levels[i];
            break;
        }
    return 0;
}

void sim_fetch_destroy(sim_engine *e)
{
    for (int id = 0; id < GD_LEVEL_COUNT; id++) {
        sim_level_caches *lc = &e->lc[id];
        if (lc->inst && !lc->shared) {
            for (uint32_t i = 0; i < lc->count; i++)
                sim_cache_destroy(&lc->inst[i]);
            free(lc->inst);
        }
        memset(lc, 0, sizeof *lc);
    }
}

void sim_fetch_launch_begin(sim_engine *e)
{
    /* each warp starts without a fetched line; the caches keep their contents
     * across launches (code of a new module has new addresses anyway) */
    (void)e;
}

/* The instance of level `id` serving sub-partition `sub` of SM `sm`. */
static inline sim_cache *instance_of(sim_engine *e, gd_level_id id, uint32_t sm, uint32_t sub)
{
    sim_level_caches *lc = &e->lc[id];
    switch (lc->scope) {
    case GD_SCOPE_SUBPARTITION: return &lc->inst[sm * e->arch->gpu.subpartitions + sub];
    case GD_SCOPE_SM: return &lc->inst[sm];
    case GD_SCOPE_CHIP: return &lc->inst[0];
    }
    return &lc->inst[0];
}

/* Installs the line holding `addr` in cache c (a present line is just used). */
static void install(sim_cache *c, uint64_t addr)
{
    uint64_t line = sim_cache_line_of(c, addr);
    sim_cache_line *l = sim_cache_find(c, line);
    if (l) {
        sim_cache_touch(c, l);
        return;
    }
    l = sim_cache_victim(c, line);
    if (!l)
        return;
    sim_cache_install(c, l, line);
    l->valid_sectors = (c->sectors_per_line >= 32) ? 0xffffffffu : ((1u << c->sectors_per_line) - 1);
}

/* Cycles to bring the line at `addr` from below `levels[from]`, installing it in
 * every level from `from` down to where it was found. */
uint64_t sim_path_lookup(sim_engine *e, const gd_level_id *levels, size_t count, size_t from,
                         uint32_t sm, uint32_t sub, uint64_t addr, uint32_t bytes, uint64_t cycle,
                         uint64_t *hits, uint64_t *misses)
{
    const gd_arch *a = e->arch;
    uint64_t latency = 0;
    size_t found = count;
    for (size_t i = from; i < count; i++) {
        gd_level_id id = levels[i];
        if (!e->lc[id].present)
            continue;
        sim_cache *c = instance_of(e, id, sm, sub);
        sim_cache_line *l = sim_cache_find(c, sim_cache_line_of(c, addr));
        if (l) {
            sim_cache_touch(c, l);
            hits[id]++;
            latency = e->lc[id].latency;
            found = i;
            break;
        }
        misses[id]++;
    }
    if (found == count) {
        /* the unified L2, then DRAM */
        uint32_t l2c = a->level[GD_L2C].present ? a->level[GD_L2C].latency_cycles
                                                : a->level[GD_L2].latency_cycles;
        if (sim_l2_lookup_fill(e, addr, bytes, cycle))
            latency = l2c;
        else
            latency = a->level[GD_DRAM].latency_cycles + (l2c - a->level[GD_L2].latency_cycles);
    }
    for (size_t i = from; i < found && i < count; i++)
        if (e->lc[levels[i]].present)
            install(instance_of(e, levels[i], sm, sub), addr);
    return latency;
}

uint64_t sim_fetch(sim_engine *e, sim_sm *sm, sim_warp *w, uint32_t pc, uint64_t cycle)
{
    const sim_launch_config *l = e->launch;
    sim_level_caches *first = &e->lc[e->ifetch_first];
    sim_cache *c0 = instance_of(e, e->ifetch_first, sm->id, w->subpartition);
    uint64_t addr = l->code_base + (uint64_t)pc * SIM_INSN_BYTES;
    uint64_t line = sim_cache_line_of(c0, addr);
    if (line == w->fetch_line)
        return cycle;
    w->fetch_line = line;
    /* the instructions of this line: the first whose address is in it, and
     * the first past it */
    uint64_t first_byte = line << c0->line_shift, end_byte = (line + 1) << c0->line_shift;
    w->fetch_pc_lo = first_byte > l->code_base
                         ? (uint32_t)((first_byte - l->code_base + SIM_INSN_BYTES - 1) / SIM_INSN_BYTES)
                         : 0;
    w->fetch_pc_hi = (uint32_t)((end_byte - l->code_base + SIM_INSN_BYTES - 1) / SIM_INSN_BYTES);
    sim_cache_line *hit = sim_cache_find(c0, line);
    if (hit) {
        sim_cache_touch(c0, hit);
        e->stats.ifetch_hits[e->ifetch_first]++;
        return cycle;
    }
    size_t start = 0;
    while (icache_levels[start] != e->ifetch_first)
        start++;
    uint64_t latency = sim_path_lookup(e, icache_levels, ICACHE_LEVELS, start, sm->id,
                                       w->subpartition, addr, c0->line_bytes, cycle,
                                       e->stats.ifetch_hits, e->stats.ifetch_misses);
    /* the sequential prefetcher: the next lines arrive with this one, so the
     * fetch completes when the slowest of them has arrived.  (A prefetch that
     * cost nothing was a free fill of every level below: with 256-byte L1I
     * lines under 128-byte L0I lines, the prefetch of line k + 1 brought the
     * L1I line holding the next demand line k + 2 at no cost, and the L1I
     * never missed however large the code -- no L1I knee up to 512 KiB.) */
    for (uint32_t k = 1; k <= first->prefetch; k++) {
        uint64_t next = addr + (uint64_t)k * c0->line_bytes;
        if (!sim_cache_find(c0, sim_cache_line_of(c0, next))) {
            uint64_t t = sim_path_lookup(e, icache_levels, ICACHE_LEVELS, start, sm->id,
                                         w->subpartition, next, c0->line_bytes, cycle,
                                         e->stats.ifetch_hits, e->stats.ifetch_misses);
            if (t > latency)
                latency = t;
        }
    }
    return cycle + latency;
}
