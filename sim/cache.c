/* cache.c -- set-associative sectored cache (tags, sectors, reservations).
 *
 * Set index is the line number modulo the number of sets, so capacities that are
 * not powers of two (e.g. 48 KiB of 128-B lines in 4 ways = 96 sets) work and the
 * analytical model can predict them with the same formula.  Replacement:
 *   lru    -- evict the way with the oldest use stamp;
 *   fifo   -- evict the way filled first (stamp set at install, never on hit);
 *   random -- a seeded xorshift picks among unreserved ways, so runs repeat.
 */
#include "sim/cache.h"

#include <stdlib.h>
#include <string.h>

static unsigned log2u(uint32_t x)
{
    unsigned s = 0;
    while ((1u << s) < x)
        s++;
    return s;
}

int sim_cache_init(sim_cache *c, const gd_arch_level *level, uint64_t seed, gd_err *err)
{
    memset(c, 0, sizeof *c);
    c->sets = level->sets;
    c->ways = level->ways;
    c->line_bytes = level->line_bytes;
    c->sector_bytes = level->sector_bytes ? level->sector_bytes : level->line_bytes;
    c->sectors_per_line = c->line_bytes / c->sector_bytes;
    c->line_shift = log2u(c->line_bytes);
    c->sector_shift = log2u(c->sector_bytes);
    c->replacement = level->replacement;
    c->seed = seed ? seed : 0x9e3779b97f4a7c15ull;
    c->rng = c->seed;
    if (!c->sets || !c->ways || c->sectors_per_line == 0 || c->sectors_per_line > 32)
        return gd_fail(err, "sim: bad cache geometry");
    c->lines = calloc((size_t)c->sets * c->ways, sizeof *c->lines);
    if (!c->lines)
        return gd_fail(err, "sim: out of memory for a %u x %u cache", c->sets, c->ways);
    return 0;
}

void sim_cache_destroy(sim_cache *c)
{
    free(c->lines);
    c->lines = NULL;
}

void sim_cache_flush(sim_cache *c)
{
    memset(c->lines, 0, (size_t)c->sets * c->ways * sizeof *c->lines);
    c->rng = c->seed;
}

uint32_t sim_cache_sector_mask(const sim_cache *c, uint64_t addr, uint32_t bytes)
{
    uint32_t off = (uint32_t)(addr & (c->line_bytes - 1));
    uint32_t first = off >> c->sector_shift;
    uint32_t last = (off + (bytes ? bytes : 1) - 1) >> c->sector_shift;
    if (last >= c->sectors_per_line)
        last = c->sectors_per_line - 1;
    uint32_t n = last - first + 1;
    uint32_t mask = n >= 32 ? 0xffffffffu : ((1u << n) - 1);
    return mask << first;
}

sim_cache_line *sim_cache_find(sim_cache *c, uint64_t line)
{
    sim_cache_line *set = &c->lines[(size_t)sim_cache_set_of(c, line) * c->ways];
    for (uint32_t w = 0; w < c->ways; w++)
        if (set[w].present && set[w].tag == line)
            return &set[w];
    return NULL;
}

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *s = x;
    return x;
}

sim_cache_line *sim_cache_victim(sim_cache *c, uint64_t line)
{
    sim_cache_line *set = &c->lines[(size_t)sim_cache_set_of(c, line) * c->ways];
    for (uint32_t w = 0; w < c->ways; w++)
        if (!set[w].present)
            return &set[w];
    if (c->replacement == GD_REPL_RANDOM) {
        uint32_t free_ways = 0;
        for (uint32_t w = 0; w < c->ways; w++)
            free_ways += set[w].reserved == 0;
        if (!free_ways)
            return NULL;
        uint32_t pick = (uint32_t)(xorshift(&c->rng) % free_ways);
        for (uint32_t w = 0; w < c->ways; w++)
            if (set[w].reserved == 0 && pick-- == 0)
                return &set[w];
        return NULL;
    }
    sim_cache_line *best = NULL;
    for (uint32_t w = 0; w < c->ways; w++)
        if (set[w].reserved == 0 && (!best || set[w].stamp < best->stamp))
            best = &set[w];
    return best;
}

void sim_cache_install(sim_cache *c, sim_cache_line *l, uint64_t line)
{
    l->present = 1;
    l->tag = line;
    l->valid_sectors = 0;
    l->dirty_sectors = 0;
    l->reserved = 0;
    l->stamp = ++c->clock;
}
