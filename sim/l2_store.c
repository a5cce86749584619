/* l2_store.c -- what a store does at its L2 slice: the L2's write policy as
 * arch choices (issue 12).
 *
 * The L2 is write-back: a store dirties the sectors it writes and memory sees
 * them when the line leaves the L2 (l2_slice.c's drop_line).  Two choices:
 *
 *   [L2] write_allocate
 *     sector (default)  a store that misses takes a way and validates the
 *                       sectors it writes, without a fetch -- the model
 *                       before the choice existed, and what NVIDIA's sectored
 *                       L2s are understood to do (GPGPU-Sim's L2: write-back,
 *                       "lazy fetch on read", byte masks);
 *     line              a store that misses takes a way and the line's other
 *                       sectors are fetched (one read), so the whole line is
 *                       valid a DRAM latency later: a line-granular cache;
 *     none              write-no-allocate: a store that misses goes on to
 *                       memory as it is; one that hits updates the line.
 *   [L2] partial_write  -- a store of fewer bytes than a sector:
 *     validate (default) the sector becomes valid and dirty as if written
 *                       whole (optimistic: the simulator's model before);
 *     fetch             the sector is read from memory and merged: valid when
 *                       that read is back; a load in between waits for it;
 *     mask              byte masks: the sector is dirty but not valid; a load
 *                       of it misses and merges memory's bytes (GPGPU-Sim's
 *                       lazy fetch on read); a write-back writes the bytes.
 *   With `line`, partial sectors are fetched with the rest of the line unless
 *   the policy is validate.
 *
 * A store message is partial when the coalescer saw lanes that wrote only part
 * of one of its granules (msg->partial), or when it covers only part of an L2
 * sector (an L1 granule smaller than the L2's sector).  Fetches for stores
 * take an L2 MSHR with no waiter; loads of those sectors merge into it.
 * Timing: a store costs its slice one access, as before; its fetch is an
 * ordinary DRAM read.  Counters: l2.partial_writes (sectors),
 * l2.write_fetches (sectors read for stores), l2.write_bypasses (none).
 */
#include "sim/memsys.h"

static uint32_t bits(uint32_t m)
{
    uint32_t n = 0;
    for (; m; m &= m - 1)
        n++;
    return n;
}

/* The sectors of [addr, addr + bytes) (within one line) written whole. */
static uint32_t whole_sectors(const sim_cache *c, uint64_t addr, uint32_t bytes)
{
    uint64_t line_addr = addr & ~(uint64_t)(c->line_bytes - 1);
    uint32_t mask = 0;
    for (uint32_t s = 0; s < c->sectors_per_line; s++) {
        uint64_t lo = line_addr + (uint64_t)s * c->sector_bytes, hi = lo + c->sector_bytes;
        if (lo >= addr && hi <= addr + bytes)
            mask |= 1u << s;
    }
    return mask;
}

int sim_l2_store(sim_engine *e, uint32_t slice, int32_t mid, uint64_t line, uint64_t key,
                 uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    sim_l2_slice *sl = &ms->slices[slice];
    sim_cache *c = sl->cache;
    mshr_table *mt = sl->mshr;
    const gd_arch_level *l2 = &e->arch->level[GD_L2];
    const sim_msg *msg = &ms->msg[mid];
    uint32_t sectors = sim_cache_sector_mask(c, msg->addr, msg->bytes);
    uint32_t whole = msg->partial ? 0 : whole_sectors(c, msg->addr, msg->bytes);
    uint32_t part = sectors & ~whole;
    e->stats.l2_partial_writes += bits(part);
    uint32_t all = c->sectors_per_line >= 32 ? 0xffffffffu : (1u << c->sectors_per_line) - 1;
    sim_cache_line *l = sim_cache_find(c, key);

    if (!l && l2->l2_write_alloc == GD_L2_WRITE_NONE) {
        /* write-no-allocate: on to memory as it is (the bytes: a byte mask) */
        e->stats.l2_write_bypasses++;
        sim_msg_free(ms, mid);
        sim_l2_dram_message(e, slice, line, sectors, 1, cycle);
        return PROBE_DONE;
    }
    if (l2->partial_write == GD_L2_PARTIAL_VALIDATE)
        whole |= part; /* taken as written whole */
    uint32_t fetch = 0;
    if (l2->l2_write_alloc == GD_L2_WRITE_LINE)
        fetch = all;
    else if (l2->partial_write == GD_L2_PARTIAL_FETCH)
        fetch = part;
    fetch &= ~whole & ~(l ? l->valid_sectors : 0u);
    sim_mshr *m = l && l->reserved ? mshr_find(mt, key) : NULL;
    if (m)
        fetch &= ~m->pending_sectors;
    if (fetch && !m && mt->used >= mt->capacity)
        return PROBE_FAIL; /* no MSHR for the fetch: wait, as a read would */
    if (!l) {
        l = sim_cache_victim(c, key);
        if (!l)
            return PROBE_FAIL;
        sim_l2_evict_near(e, slice, l, cycle); /* may grow the message pool */
        sim_cache_install(c, l, key);
    }
    l->valid_sectors |= whole;
    l->dirty_sectors |= sectors; /* mask: dirty and not valid until a read merges them */
    sim_cache_touch(c, l);
    sim_msg_free(ms, mid);
    if (fetch) {
        if (!m) {
            m = mshr_alloc(mt, key);
            m->way = l;
            sim_cache_reserve(c, l);
        }
        m->pending_sectors |= fetch;
        e->stats.l2_write_fetches += bits(fetch);
        sim_l2_dram_message(e, slice, line, fetch, 0, cycle);
    }
    return PROBE_DONE;
}

void sim_l2_store_now(sim_engine *e, uint32_t sm, uint64_t addr, uint32_t bytes, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    int32_t mid = sim_msg_new(e);
    if (mid < 0)
        return;
    sim_msg *msg = &ms->msg[mid];
    msg->addr = addr;
    msg->bytes = bytes;
    msg->sectors = 0;
    msg->is_store = 1;
    msg->partial = 0;
    msg->sm = (uint16_t)sm;
    msg->bypass_req = -1;
    msg->ready = cycle;
    uint64_t line = addr >> ms->l2.line_shift, key;
    uint32_t slice;
    gd_arch_l2_slice_of(e->arch, line, gd_arch_sm_partition(e->arch, sm), &slice, &key);
    if (ms->slice_count == 1)
        slice = 0;
    if (sim_l2_store(e, slice, mid, line, key, cycle) == PROBE_FAIL) {
        /* every way of its set is being filled: straight on to memory */
        sim_msg_free(ms, mid);
        sim_l2_dram_message(e, slice, line,
                            sim_cache_sector_mask(ms->slices[slice].cache, addr, bytes), 1, cycle);
    }
}
