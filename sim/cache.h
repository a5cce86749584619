/* cache.h -- a set-associative, sectored cache with reservations.
 *
 * Used for every cache level of the simulated GPU (L1D, L2, constant and
 * instruction caches, TLBs).  It holds tags and per-sector valid/dirty bits only:
 * data lives in device memory, the simulator being functional-first.  A line
 * with fills outstanding is *reserved* and cannot be chosen as a victim -- the
 * state whose exhaustion causes the reservation stalls of CN110457238A.
 */
#ifndef GD_SIM_CACHE_H
#define GD_SIM_CACHE_H

#include <stdint.h>

#include "analysis/arch.h"

typedef struct sim_cache_line {
    uint64_t tag;            /* line number: address / line_bytes */
    uint32_t valid_sectors;
    uint32_t dirty_sectors;
    uint16_t reserved;       /* outstanding fills into this line */
    uint16_t newer, older;   /* recency list of the set (way indices) */
    uint8_t present;
} sim_cache_line;

#define SIM_CACHE_NO_WAY 0xffffu

typedef struct sim_cache {
    uint32_t sets, ways;
    /* sets - 1 and log2(ways) where they are powers of two (a mask and a shift
     * instead of a division on every lookup); set_mask UINT32_MAX and way_shift
     * -1 mean a division (non-power-of-two geometries) */
    uint32_t set_mask;
    int way_shift;
    uint32_t line_bytes, sector_bytes, sectors_per_line;
    unsigned line_shift, sector_shift;
    gd_replacement replacement;
    sim_cache_line *lines;   /* sets * ways */
    uint16_t *newest;        /* per set: most recently used (LRU) or filled (FIFO) way */
    uint16_t *oldest;        /* per set: the next victim candidate */
    uint16_t *filled;        /* per set: ways in use; ways fill in order, so [filled, ways) are free */
    uint16_t *reserved_ways; /* per set: ways with fills outstanding (sim_cache_reserve) */
    uint32_t *index;         /* highly associative caches: tag hash -> line + 1 (0 = empty) */
    uint32_t index_mask;
    uint64_t rng;
    uint64_t seed;
    uint64_t foreign_base;   /* sim_cache_fill_foreign: the first foreign tag */
    int lines_written;       /* a line was written since lines were last zeroed */
    int sets_flushed;        /* the per-set arrays are as sim_cache_flush leaves them and
                              * no line was written since: a flush has nothing to write */
} sim_cache;

int sim_cache_init(sim_cache *c, const gd_arch_level *level, uint64_t seed, gd_err *err);
void sim_cache_destroy(sim_cache *c);
/* Invalidate everything (kernel launch boundary for L1s). Reserved lines must not exist. */
void sim_cache_flush(sim_cache *c);
/* Every way valid and clean, holding a line no access will ask for: a cache
 * that earlier programs filled (a GPU's L2 is never empty; an empty one would
 * take a chain's first lap into free ways where a full one evicts, under
 * random replacement its own lines too). */
void sim_cache_fill_foreign(sim_cache *c, uint32_t salt);

static inline uint64_t sim_cache_line_of(const sim_cache *c, uint64_t addr)
{
    return addr >> c->line_shift;
}

static inline uint32_t sim_cache_set_of(const sim_cache *c, uint64_t line)
{
    return c->set_mask != UINT32_MAX ? (uint32_t)line & c->set_mask : (uint32_t)(line % c->sets);
}

/* Sector mask of [addr, addr+bytes) within its line (bytes may not cross the line). */
uint32_t sim_cache_sector_mask(const sim_cache *c, uint64_t addr, uint32_t bytes);

/* The line holding `line` (a line number), or NULL.  Does not update replacement state. */
sim_cache_line *sim_cache_find_indexed(sim_cache *c, uint64_t line);
static inline sim_cache_line *sim_cache_find(sim_cache *c, uint64_t line)
{
    if (c->index)
        return sim_cache_find_indexed(c, line);
    sim_cache_line *set = &c->lines[(size_t)sim_cache_set_of(c, line) * c->ways];
    for (uint32_t w = 0; w < c->ways; w++)
        if (set[w].present && set[w].tag == line)
            return &set[w];
    return NULL;
}

void sim_cache_make_newest(sim_cache *c, sim_cache_line *l);

/* Record a use (LRU moves the line to the newest end; FIFO and random ignore uses). */
static inline void sim_cache_touch(sim_cache *c, sim_cache_line *l)
{
    if (c->replacement == GD_REPL_LRU)
        sim_cache_make_newest(c, l);
}

/* Choose a way for `line` in its set: an absent way, else a victim by the
 * replacement policy among unreserved ways.  NULL when every way is reserved.
 * The caller inspects the victim (dirty sectors to write back) before calling
 * sim_cache_install. */
sim_cache_line *sim_cache_victim(sim_cache *c, uint64_t line);

/* 1 if a miss on `line` could get a way now (an absent or unreserved way in its
 * set), without choosing one: a random policy's seeded choice is not consumed. */
int sim_cache_can_allocate(const sim_cache *c, uint64_t line);

/* Install `line` in way `l` (no sectors valid yet). */
void sim_cache_install(sim_cache *c, sim_cache_line *l, uint64_t line);

/* The set of line l (the index of its first way, in ways). */
size_t sim_cache_set_index(const sim_cache *c, const sim_cache_line *l);

/* Mark l as having fills outstanding (not a victim) or none; each set counts
 * its reserved ways, so a random victim in a set with none is one draw, not
 * two scans of its ways (a 128-way L1 missing on every access spent 15% of a
 * chase there). */
static inline void sim_cache_reserve(sim_cache *c, sim_cache_line *l)
{
    if (!l->reserved) {
        l->reserved = 1;
        c->reserved_ways[sim_cache_set_index(c, l)]++;
    }
}

static inline void sim_cache_release(sim_cache *c, sim_cache_line *l)
{
    if (l->reserved) {
        l->reserved = 0;
        c->reserved_ways[sim_cache_set_index(c, l)]--;
    }
}

#endif
