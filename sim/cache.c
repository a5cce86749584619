/* cache.c -- set-associative sectored cache (tags, sectors, reservations).
 *
 * Set index is the line number modulo the number of sets, so capacities that are
 * not powers of two (e.g. 48 KiB of 128-B lines in 4 ways = 96 sets) work and the
 * analytical model can predict them with the same formula.  Replacement:
 *   lru    -- evict the least recently used unreserved way;
 *   fifo   -- evict the earliest filled unreserved way (uses do not reorder);
 *   random -- a seeded xorshift picks among unreserved ways, so runs repeat.
 * Each set keeps its ways in a doubly linked recency list (newest .. oldest), so
 * a hit and a victim choice cost O(1) even in a 128-way set.  Lines are never
 * invalidated except by a flush, so a set fills its ways in order and its free
 * ways are always the tail [filled, ways).
 *
 * Lookup scans the ways of the set, except in highly associative caches (the
 * T4's L1 model has 128 ways) where a scan per access would dominate the
 * simulation: those keep a hash index from tag to line (linear probing with
 * backward-shift deletion), updated on install -- unless their lines outgrow
 * the host's caches (a 40 MiB L2: 7.5 MiB of lines): there a hash costs two
 * random host-memory misses per access (the new line's slot, the victim's),
 * where a scan reads one set, and a streaming chase or an L2 eviction pass
 * reads the sets in address order (1.85x faster on a 128 MiB ld.cg chase).
 */
#include "sim/cache.h"

#include <stdlib.h>
#include <string.h>

#define INDEX_MIN_WAYS 16 /* beyond this many ways a hash index beats scanning the set */
#define INDEX_MAX_SCAN_WAYS 64 /* ... unless the lines outgrow the host's caches: */
#define INDEX_MAX_LINE_BYTES (2u << 20)

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
    c->set_mask = c->sets && !(c->sets & (c->sets - 1)) ? c->sets - 1 : UINT32_MAX;
    c->way_shift = c->ways && !(c->ways & (c->ways - 1)) ? (int)log2u(c->ways) : -1;
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
    if (c->ways >= SIM_CACHE_NO_WAY)
        return gd_fail(err, "sim: at most %u ways", SIM_CACHE_NO_WAY - 1);
    if ((uint64_t)c->sets * c->ways > UINT32_MAX) /* line indices are 32-bit */
        return gd_fail(err, "sim: a cache of %u x %u lines is too large", c->sets, c->ways);
    c->lines = calloc((size_t)c->sets * c->ways, sizeof *c->lines);
    c->newest = malloc(c->sets * sizeof *c->newest);
    c->oldest = malloc(c->sets * sizeof *c->oldest);
    c->filled = malloc(c->sets * sizeof *c->filled);
    c->reserved_ways = malloc(c->sets * sizeof *c->reserved_ways);
    if (!c->lines || !c->newest || !c->oldest || !c->filled || !c->reserved_ways) {
        sim_cache_destroy(c);
        return gd_fail(err, "sim: out of memory for a %u x %u cache", c->sets, c->ways);
    }
    sim_cache_flush(c);
    if (c->ways > INDEX_MIN_WAYS &&
        (c->ways > INDEX_MAX_SCAN_WAYS ||
         (size_t)c->sets * c->ways * sizeof *c->lines <= INDEX_MAX_LINE_BYTES)) {
        size_t slots = 1;
        while (slots < 2 * (size_t)c->sets * c->ways)
            slots *= 2;
        c->index = calloc(slots, sizeof *c->index);
        if (!c->index) {
            sim_cache_destroy(c);
            return gd_fail(err, "sim: out of memory for a cache index");
        }
        c->index_mask = (uint32_t)(slots - 1);
    }
    return 0;
}

static inline uint32_t index_hash(const sim_cache *c, uint64_t tag)
{
    tag *= 0x9e3779b97f4a7c15ull;
    return (uint32_t)(tag >> 32) & c->index_mask;
}

sim_cache_line *sim_cache_find_indexed(sim_cache *c, uint64_t line)
{
    for (uint32_t i = index_hash(c, line);; i = (i + 1) & c->index_mask) {
        uint32_t v = c->index[i];
        if (!v)
            return NULL;
        if (c->lines[v - 1].tag == line)
            return &c->lines[v - 1];
    }
}

static void index_insert(sim_cache *c, uint64_t tag, uint32_t line_index)
{
    uint32_t i = index_hash(c, tag);
    while (c->index[i])
        i = (i + 1) & c->index_mask;
    c->index[i] = line_index + 1;
}

static void index_remove(sim_cache *c, uint64_t tag)
{
    uint32_t i = index_hash(c, tag);
    while (c->index[i] && c->lines[c->index[i] - 1].tag != tag)
        i = (i + 1) & c->index_mask;
    if (!c->index[i])
        return;
    /* backward-shift deletion keeps every probe chain unbroken */
    uint32_t hole = i;
    for (uint32_t j = (i + 1) & c->index_mask; c->index[j]; j = (j + 1) & c->index_mask) {
        uint32_t home = index_hash(c, c->lines[c->index[j] - 1].tag);
        /* can the entry at j move into the hole? only if its home is not in (hole, j] */
        int in_range = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!in_range) {
            c->index[hole] = c->index[j];
            hole = j;
        }
    }
    c->index[hole] = 0;
}

void sim_cache_destroy(sim_cache *c)
{
    free(c->lines);
    free(c->index);
    free(c->newest);
    free(c->oldest);
    free(c->filled);
    free(c->reserved_ways);
    c->lines = NULL;
    c->index = NULL;
    c->newest = c->oldest = c->filled = c->reserved_ways = NULL;
}

void sim_cache_flush(sim_cache *c)
{
    c->rng = c->seed;
    /* Nothing changed since the last flush: every SM's L1 at every launch of
     * a point's process, which forks from a device whose L1s were flushed and
     * never used -- writing the same values again made every page of their
     * per-set arrays a copy-on-write fault in every point (~160 of a point's
     * ~1200 on sim:t4). */
    if (c->sets_flushed && !c->lines_written)
        return;
    /* (lines fresh from calloc are zero: a 47 MB L2 stays uncommitted) */
    if (c->lines_written)
        memset(c->lines, 0, (size_t)c->sets * c->ways * sizeof *c->lines);
    c->lines_written = 0;
    for (uint32_t set = 0; set < c->sets; set++) {
        c->newest[set] = c->oldest[set] = SIM_CACHE_NO_WAY;
        c->filled[set] = 0;
        c->reserved_ways[set] = 0;
    }
    if (c->index)
        memset(c->index, 0, ((size_t)c->index_mask + 1) * sizeof *c->index);
    c->sets_flushed = 1;
}

/* The set and way of line index idx (sets x ways, row-major). */
static inline void set_and_way(const sim_cache *c, size_t idx, uint32_t *s, uint16_t *way)
{
    if (c->way_shift >= 0) {
        *s = (uint32_t)(idx >> c->way_shift);
        *way = (uint16_t)(idx & (c->ways - 1));
    } else {
        /* (32-bit: sets x ways lines fit, and the division is the quicker) */
        *s = (uint32_t)idx / c->ways;
        *way = (uint16_t)((uint32_t)idx % c->ways);
    }
}

size_t sim_cache_set_index(const sim_cache *c, const sim_cache_line *l)
{
    size_t idx = (size_t)(l - c->lines);
    return c->way_shift >= 0 ? idx >> c->way_shift : (uint32_t)idx / c->ways;
}

static void list_push_newest(sim_cache *c, sim_cache_line *set, uint32_t s, uint16_t way);

/* filled[s] of a set that holds the foreign lines of sim_cache_fill_foreign
 * and has not been written yet (ways < SIM_CACHE_NO_WAY, so no count is this) */
#define SET_FOREIGN SIM_CACHE_NO_WAY

void sim_cache_fill_foreign(sim_cache *c, uint32_t salt)
{
    sim_cache_flush(c);
    /* tags past any address a device allocates, each in its own set (tag mod
     * sets), distinct per salt (an L2 slice's victim moving to another slice
     * is no copy of a line there), never looked up: a fill evicts one of them
     * as it would a line of an earlier program's.  A set's lines are written
     * when a victim is first chosen in it (foreign_set): a 60 MiB L2 of 32-byte
     * lines is 47 MB of them, and a probe that touches a few sets (most of a
     * suite's points) paid for writing them all, in every point's process.
     * A lookup needs no foreign line (none is ever looked up: an unwritten
     * set's ways read absent), nor does can_allocate (all of them unreserved). */
    c->foreign_base = (uint64_t)c->sets * ((1ull << 34) + (uint64_t)salt * c->ways);
    c->sets_flushed = 0;
    for (uint32_t s = 0; s < c->sets; s++)
        c->filled[s] = SET_FOREIGN;
}

/* Writes set s's foreign lines, as sim_cache_fill_foreign describes them. */
static void foreign_set(sim_cache *c, uint32_t s)
{
    uint32_t full = c->sectors_per_line >= 32 ? 0xffffffffu : (1u << c->sectors_per_line) - 1;
    sim_cache_line *set = &c->lines[(size_t)s * c->ways];
    c->lines_written = 1;
    for (uint32_t w = 0; w < c->ways; w++) {
        sim_cache_line *l = &set[w];
        l->tag = c->foreign_base + s + (uint64_t)w * c->sets;
        l->valid_sectors = full;
        l->present = 1;
        list_push_newest(c, set, s, (uint16_t)w);
        if (c->index)
            index_insert(c, l->tag, s * c->ways + w);
    }
    c->filled[s] = (uint16_t)c->ways;
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

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *s = x;
    return x;
}

static void list_unlink(sim_cache *c, sim_cache_line *set, uint32_t s, uint16_t way)
{
    sim_cache_line *l = &set[way];
    if (l->newer != SIM_CACHE_NO_WAY)
        set[l->newer].older = l->older;
    else
        c->newest[s] = l->older;
    if (l->older != SIM_CACHE_NO_WAY)
        set[l->older].newer = l->newer;
    else
        c->oldest[s] = l->newer;
}

static void list_push_newest(sim_cache *c, sim_cache_line *set, uint32_t s, uint16_t way)
{
    sim_cache_line *l = &set[way];
    l->newer = SIM_CACHE_NO_WAY;
    l->older = c->newest[s];
    if (l->older != SIM_CACHE_NO_WAY)
        set[l->older].newer = way;
    else
        c->oldest[s] = way;
    c->newest[s] = way;
}

void sim_cache_make_newest(sim_cache *c, sim_cache_line *l)
{
    size_t idx = (size_t)(l - c->lines);
    uint32_t s;
    uint16_t way;
    set_and_way(c, idx, &s, &way);
    if (c->newest[s] == way)
        return;
    sim_cache_line *set = &c->lines[(size_t)s * c->ways];
    list_unlink(c, set, s, way);
    list_push_newest(c, set, s, way);
}

sim_cache_line *sim_cache_victim(sim_cache *c, uint64_t line)
{
    uint32_t s = sim_cache_set_of(c, line);
    sim_cache_line *set = &c->lines[(size_t)s * c->ways];
    if (c->filled[s] == SET_FOREIGN)
        foreign_set(c, s);
    if (c->filled[s] < c->ways)
        return &set[c->filled[s]];
    if (c->replacement == GD_REPL_RANDOM) {
        if (!c->reserved_ways[s]) /* the pick-th unreserved way is way pick */
            return &set[xorshift(&c->rng) % c->ways];
        uint32_t free_ways = c->ways - c->reserved_ways[s];
        if (!free_ways)
            return NULL;
        uint32_t pick = (uint32_t)(xorshift(&c->rng) % free_ways);
        for (uint32_t w = 0; w < c->ways; w++)
            if (set[w].reserved == 0 && pick-- == 0)
                return &set[w];
        return NULL;
    }
    for (uint16_t w = c->oldest[s]; w != SIM_CACHE_NO_WAY; w = set[w].newer)
        if (set[w].reserved == 0)
            return &set[w];
    return NULL;
}

int sim_cache_can_allocate(const sim_cache *c, uint64_t line)
{
    uint32_t s = sim_cache_set_of(c, line);
    const sim_cache_line *set = &c->lines[(size_t)s * c->ways];
    if (c->filled[s] < c->ways || c->filled[s] == SET_FOREIGN)
        return 1;
    if (c->replacement == GD_REPL_RANDOM)
        return c->reserved_ways[s] < c->ways;
    for (uint16_t w = c->oldest[s]; w != SIM_CACHE_NO_WAY; w = set[w].newer)
        if (set[w].reserved == 0)
            return 1;
    return 0;
}

void sim_cache_install(sim_cache *c, sim_cache_line *l, uint64_t line)
{
    size_t idx = (size_t)(l - c->lines);
    uint32_t s;
    uint16_t way;
    set_and_way(c, idx, &s, &way);
    sim_cache_line *set = &c->lines[(size_t)s * c->ways];
    c->lines_written = 1;
    if (c->index) {
        if (l->present)
            index_remove(c, l->tag);
        index_insert(c, line, (uint32_t)idx);
    }
    if (l->present)
        list_unlink(c, set, s, way);
    else
        c->filled[s]++;
    l->present = 1;
    l->tag = line;
    l->valid_sectors = 0;
    l->dirty_sectors = 0;
    sim_cache_release(c, l);
    list_push_newest(c, set, s, way);
}
