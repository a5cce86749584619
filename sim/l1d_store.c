/* l1d_store.c -- what a store does to the L1D line it writes: the L1 store
 * policy as an arch choice (issue 12).
 *
 * Three policies ([L1D] keys; the L2 below is write-back, l2_store.c):
 *   - write-through, no allocate (the default; NVIDIA's global stores as Jia
 *     et al. and GPGPU-Sim model them): every granule goes on to the L2 (l1d.c
 *     sends them down the miss queue); a present line is touched and keeps
 *     its valid sectors (the data lives in device memory, so they stay right);
 *   - write_allocate = true: write-through and write-validate -- the line is
 *     installed if absent (an unreserved way: with every way of the set
 *     reserved the store simply does not allocate), and the L1 sectors the
 *     store's granules cover become valid without a fetch;
 *   - write_back = true: write-back, allocating as write_allocate does; the
 *     sectors it covers become valid and *dirty* and nothing goes to the L2.
 *     Granules of an L1 sector the store does not cover whole (an L1 sector
 *     larger than the L2's, as on the K80), and stores to a set whose every way
 *     is reserved, still write through.  A dirty line reaches the L2 when it is
 *     evicted (its dirty sectors join the miss queue as stores, past the
 *     queue's limit -- an eviction buffer -- and leave one a cycle as any
 *     message) and at the kernel's end (sim_memsys_launch_end): every dirty
 *     line is written into the L2 at once, costing no cycles.  That a card's
 *     L1 would have to write its dirty lines back before another kernel (or
 *     the host) reads them is why; what the flush costs a card is not known
 *     here and no probe times across a kernel's end.
 * A request names granules (the L2's sectors), not bytes, so in the L1 a store
 * of 4 bytes validates (and dirties) its whole granule: partial-sector writes
 * are not told apart in the L1 (the data is functional, so values stay right).
 * The coalescer records which granules a store writes only partly
 * (sim_store_partial_granules), and the L2 can tell them apart ([L2]
 * partial_write).  Not modelled: an SM's ld.cg of a line another store left
 * dirty in its own L1 reads the L2's copy (timing only; values are right).
 * Counters: l1d.writebacks (lines), l1d.writeback_sectors,
 * l1d.end_writebacks (lines written at a kernel's end).
 */
#include "sim/memsys.h"

/* Bytes of a line tracked when finding partly written granules. */
#define PARTIAL_MAX_LINE_BYTES 4096u

uint32_t sim_store_partial_granules(const sim_mem_access *acc, uint64_t line_addr,
                                    uint32_t line_bytes, uint32_t fine_bytes, uint32_t granules)
{
    /* the common case: every lane writes whole granules of its own */
    if (acc->size % fine_bytes == 0) {
        int aligned = 1;
        for (uint32_t m = acc->mask; m && aligned; m &= m - 1)
            aligned = acc->addr[__builtin_ctz(m)] % fine_bytes == 0;
        if (aligned)
            return 0;
    }
    if (line_bytes > PARTIAL_MAX_LINE_BYTES)
        return 0; /* not tracked: taken as whole (validate) */
    uint64_t written[PARTIAL_MAX_LINE_BYTES / 64];
    memset(written, 0, line_bytes / 8 > 8 ? line_bytes / 8 : 8);
    for (uint32_t m = acc->mask; m; m &= m - 1) {
        uint64_t a = acc->addr[__builtin_ctz(m)];
        if (a < line_addr || a >= line_addr + line_bytes)
            continue;
        for (uint32_t b = (uint32_t)(a - line_addr); b < a - line_addr + acc->size && b < line_bytes; b++)
            written[b / 64] |= 1ull << (b % 64);
    }
    uint32_t partial = 0;
    for (uint32_t g = 0; g < 32 && g * fine_bytes < line_bytes; g++) {
        if (!((granules >> g) & 1))
            continue;
        for (uint32_t b = g * fine_bytes; b < (g + 1) * fine_bytes; b++)
            if (!((written[b / 64] >> (b % 64)) & 1)) {
                partial |= 1u << g;
                break;
            }
    }
    return partial;
}

/* The L1 sectors the store's granules cover entirely. */
static uint32_t covered_sectors(const sim_cache *c, const sim_request *r, uint32_t fine)
{
    uint32_t covered = 0;
    for (uint32_t s = 0; s < c->sectors_per_line; s++) {
        uint64_t lo = (uint64_t)s * c->sector_bytes, hi = lo + c->sector_bytes;
        int all = 1;
        for (uint64_t b = lo; b < hi && all; b += fine < c->sector_bytes ? fine : c->sector_bytes) {
            uint32_t g = (uint32_t)(b / fine);
            all = g < 32 && ((r->sectors >> g) & 1);
        }
        if (all)
            covered |= 1u << s;
    }
    return covered;
}

/* The granules of `r` inside the L1 sectors `covered`. */
static uint32_t granules_in(const sim_cache *c, const sim_request *r, uint32_t fine,
                            uint32_t covered)
{
    uint32_t in = 0;
    for (uint32_t g = 0; g < 32; g++)
        if (((r->sectors >> g) & 1) && ((covered >> ((uint64_t)g * fine / c->sector_bytes)) & 1))
            in |= 1u << g;
    return in;
}

uint32_t sim_l1d_store_through(sim_engine *e, sim_sm *sm, const sim_request *r)
{
    if (!e->arch->level[GD_L1D].write_back)
        return r->sectors;
    sim_cache *c = &sm->lsu->l1;
    uint64_t lineno = sim_cache_line_of(c, r->line_addr);
    if (!sim_cache_find(c, lineno) && !sim_cache_can_allocate(c, lineno))
        return r->sectors; /* no way to hold it: on to the L2 */
    uint32_t fine = r->fine ? sm->lsu->fine_bytes : c->sector_bytes;
    return r->sectors & ~granules_in(c, r, fine, covered_sectors(c, r, fine));
}

void sim_l1d_store_update(sim_engine *e, sim_sm *sm, const sim_request *r)
{
    const gd_arch_level *a = &e->arch->level[GD_L1D];
    sim_cache *c = &sm->lsu->l1;
    uint64_t lineno = sim_cache_line_of(c, r->line_addr);
    sim_cache_line *l = sim_cache_find(c, lineno);
    if (l)
        sim_cache_touch(c, l);
    if (!a->write_allocate && !a->write_back)
        return;
    uint32_t fine = r->fine ? sm->lsu->fine_bytes : c->sector_bytes;
    uint32_t covered = covered_sectors(c, r, fine);
    if (!covered)
        return;
    if (!l) {
        l = sim_cache_victim(c, lineno);
        if (!l)
            return;
        if (l->present && l->dirty_sectors)
            sim_l1d_writeback_line(e, sm, l);
        sim_cache_install(c, l, lineno);
    }
    l->valid_sectors |= covered;
    if (a->write_back)
        l->dirty_sectors |= covered;
}

void sim_l1d_writeback_line(sim_engine *e, sim_sm *sm, const sim_cache_line *l)
{
    sim_cache *c = &sm->lsu->l1;
    e->stats.l1d_writebacks++;
    for (uint32_t d = l->dirty_sectors; d; d &= d - 1)
        e->stats.l1d_writeback_sectors++;
    sim_l1d_store_messages(e, sm, l->tag * c->line_bytes, l->dirty_sectors, c->sector_bytes, 0, 1);
}

void sim_l1d_writeback_all(sim_engine *e, sim_sm *sm)
{
    sim_cache *c = &sm->lsu->l1;
    uint64_t n = (uint64_t)c->sets * c->ways;
    for (uint64_t i = 0; i < n; i++) {
        sim_cache_line *l = &c->lines[i];
        if (!l->present || !l->dirty_sectors)
            continue;
        e->stats.l1d_writebacks++;
        e->stats.l1d_end_writebacks++;
        uint64_t line_addr = l->tag * c->line_bytes;
        /* one store per run of dirty sectors, split at L2 lines */
        for (uint32_t s = 0; s < c->sectors_per_line; s++) {
            if (!((l->dirty_sectors >> s) & 1))
                continue;
            e->stats.l1d_writeback_sectors++;
            uint64_t start = line_addr + (uint64_t)s * c->sector_bytes;
            uint64_t end = start + c->sector_bytes;
            uint64_t l2_line = e->memsys->l2.line_bytes;
            while (start < end) {
                uint64_t piece_end = (start / l2_line + 1) * l2_line;
                if (piece_end > end)
                    piece_end = end;
                sim_l2_store_now(e, sm->id, start, (uint32_t)(piece_end - start), e->cycle);
                start = piece_end;
            }
        }
        l->dirty_sectors = 0;
    }
}
