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
    uint64_t stamp;          /* LRU: last use; FIFO: fill time */
    uint32_t valid_sectors;
    uint32_t dirty_sectors;
    uint16_t reserved;       /* outstanding fills into this line */
    uint8_t present;
} sim_cache_line;

typedef struct sim_cache {
    uint32_t sets, ways;
    uint32_t line_bytes, sector_bytes, sectors_per_line;
    unsigned line_shift, sector_shift;
    gd_replacement replacement;
    sim_cache_line *lines;   /* sets * ways */
    uint64_t clock;          /* replacement stamps */
    uint64_t rng;
    uint64_t seed;
} sim_cache;

int sim_cache_init(sim_cache *c, const gd_arch_level *level, uint64_t seed, gd_err *err);
void sim_cache_destroy(sim_cache *c);
/* Invalidate everything (kernel launch boundary for L1s). Reserved lines must not exist. */
void sim_cache_flush(sim_cache *c);

static inline uint64_t sim_cache_line_of(const sim_cache *c, uint64_t addr)
{
    return addr >> c->line_shift;
}

static inline uint32_t sim_cache_set_of(const sim_cache *c, uint64_t line)
{
    return (uint32_t)(line % c->sets);
}

/* Sector mask of [addr, addr+bytes) within its line (bytes may not cross the line). */
uint32_t sim_cache_sector_mask(const sim_cache *c, uint64_t addr, uint32_t bytes);

/* The line holding `line` (a line number), or NULL.  Does not update replacement state. */
sim_cache_line *sim_cache_find(sim_cache *c, uint64_t line);

/* Record a use (LRU). */
static inline void sim_cache_touch(sim_cache *c, sim_cache_line *l)
{
    if (c->replacement == GD_REPL_LRU)
        l->stamp = ++c->clock;
}

/* Choose a way for `line` in its set: an absent way, else a victim by the
 * replacement policy among unreserved ways.  NULL when every way is reserved.
 * The caller inspects the victim (dirty sectors to write back) before calling
 * sim_cache_install. */
sim_cache_line *sim_cache_victim(sim_cache *c, uint64_t line);

/* Install `line` in way `l` (no sectors valid yet). */
void sim_cache_install(sim_cache *c, sim_cache_line *l, uint64_t line);

#endif
