/* pcm.c -- phase-change main memory's side of the memory controllers (issue
 * 13, seed 003: Mu, Shan, Deng, Wang, "Evaluating and Optimizing of PCM Based
 * GPU Memory Architecture"): the dedicated write buffer between the L2 and
 * the channels, and the per-row write counts behind the paper's Figure 2.
 *
 * Present when the arch has `[WB] size` or `[DRAM] kind = pcm`; otherwise
 * ms->pcm is NULL and dram.c runs exactly as before.  PCM's own timing (a
 * write holds its bank for `pcm_write` cycles, the paper's "write latency 10x
 * DRAM's") lives in dram.c's issue step; this file decides what reaches it.
 *
 * Every message that leaves the L2 for main memory passes sim_pcm_submit:
 *   - a write (an L2 dirty eviction) adds one to its row's count (row =
 *     address / [WB] row_bytes, 1 KiB by default, the paper's row), before
 *     the buffer, so the histogram is the workload's, not the buffer's;
 *   - without a buffer it goes on to the channels unchanged;
 *   - with a buffer (sim/pcm_wbuf.c keeps the lists, exactly per section 4.1):
 *       read hit    the L2's data comes back [WB] latency cycles later;
 *       write hit   absorbed (the buffered row is now dirty): no PCM access;
 *       miss        the whole row is read from memory (one message of
 *                   row_bytes on the bus, the paper: "the data read from PCM
 *                   is stored in the buffer"); a read waits for its first
 *                   data, a write is absorbed; with [WB] request_fetch the
 *                   bus carries only the read's sectors (a write's: one
 *                   burst), the row assumed read inside the device;
 *       (with [WB] read_bypass a read that misses goes to memory as is and
 *       the lists do not change: the paper's lists "record the actively
 *       written rows"; whether read misses enter them it does not say)
 *       eviction    a dirty inactive tail is written back to memory as one
 *                   write of its dirty sectors (one PCM array write, the
 *                   bank held pcm_write cycles); a clean one is dropped.
 * Simplifications (documented in sim/README.md): a hit on a row whose read
 * is still in flight is served at the hit latency (optimistic: a later line
 * of a row being fetched is not made to wait for its bytes); the buffer has no port
 * limit (one access per message, any number a cycle); dirty rows left in the
 * buffer at the end of a run are not written back (as the L2's dirty lines).
 */
#include "sim/memsys.h"
#include "sim/pcm_wbuf.h"
#include "sim/row_writes.h"

struct sim_pcm {
    int has_wb;
    sim_wbuf wb;
    sim_row_writes rows;       /* writes per row at main memory's input */
    uint32_t row_bytes;
    uint32_t hit_cycles;
    uint32_t full_mask;        /* every 32-byte sector of a row */
    sim_msg_heap hits;         /* read hits whose data is due */
};

int sim_pcm_create(sim_engine *e, gd_err *err)
{
    const gd_arch *a = e->arch;
    if (!a->wb.size_bytes && a->level[GD_DRAM].dram.kind != GD_MEM_PCM)
        return 0;
    sim_pcm *p = calloc(1, sizeof *p);
    if (!p)
        return gd_fail(err, "sim: out of memory for the PCM write buffer");
    e->memsys->pcm = p;
    p->row_bytes = a->wb.row_bytes ? a->wb.row_bytes : 1024;
    p->hit_cycles = a->wb.latency_cycles;
    p->full_mask = p->row_bytes >= 1024 ? 0xffffffffu : (1u << (p->row_bytes / 32)) - 1;
    sim_row_writes_init(&p->rows);
    if (a->wb.size_bytes) {
        if (sim_wbuf_init(&p->wb, (uint32_t)(a->wb.size_bytes / p->row_bytes), a->wb.active_rows,
                          err) != 0)
            return -1;
        p->has_wb = 1;
    }
    return 0;
}

void sim_pcm_destroy(sim_engine *e)
{
    sim_pcm *p = e->memsys->pcm;
    if (!p)
        return;
    if (p->has_wb)
        sim_wbuf_free(&p->wb);
    sim_row_writes_free(&p->rows);
    sim_heap_free(&p->hits);
    free(p);
    e->memsys->pcm = NULL;
}

const struct sim_row_writes *sim_pcm_row_writes(const sim_engine *e)
{
    return e->memsys && e->memsys->pcm ? &e->memsys->pcm->rows : NULL;
}

/* A row to or from memory, made by the buffer: `mask` the 32-byte sectors
 * the bus carries (0: one burst, the activation's). */
static void row_message(sim_engine *e, uint64_t row, uint32_t mask, int is_store, int32_t waiter,
                        uint16_t slice, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    sim_pcm *p = ms->pcm;
    int32_t mid = sim_msg_new(e);
    if (mid < 0)
        return;
    sim_msg *m = &ms->msg[mid];
    m->addr = row * p->row_bytes;
    m->bytes = p->row_bytes;
    m->sectors = mask;
    m->is_store = (uint8_t)is_store;
    m->sm = 0;
    m->bypass_req = -1;
    m->slice = slice;
    m->wb_internal = 1;
    m->wb_waiter = waiter;
    sim_dram_submit(e, mid, cycle);
}

/* The row's 32-byte sectors a message covers (the L2's sectors, placed in
 * the row and split into 32-byte ones). */
static uint32_t row_mask(const sim_engine *e, const sim_pcm *p, const sim_msg *msg)
{
    const gd_arch_level *l2 = &e->arch->level[GD_L2];
    uint32_t sector = l2->sector_bytes ? l2->sector_bytes : l2->line_bytes;
    uint32_t per = sector / 32 ? sector / 32 : 1, first = (uint32_t)(msg->addr % p->row_bytes) / 32;
    uint32_t mask = 0;
    for (uint32_t s = 0; s < 32; s++)
        if (msg->sectors & (1u << s))
            for (uint32_t k = 0; k < per && first + s * per + k < 32; k++)
                mask |= 1u << (first + s * per + k);
    return mask;
}

static void mirror_counters(sim_engine *e, const sim_wbuf *wb)
{
    e->stats.wb_read_hits = wb->c.read_hits;
    e->stats.wb_read_misses = wb->c.read_misses;
    e->stats.wb_write_hits = wb->c.write_hits;
    e->stats.wb_write_misses = wb->c.write_misses;
    e->stats.wb_evictions = wb->c.evictions;
    e->stats.wb_dirty_evictions = wb->c.dirty_evictions;
    e->stats.wb_promotions = wb->c.promotions;
}

int sim_pcm_submit(sim_engine *e, int32_t mid, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    sim_pcm *p = ms->pcm;
    sim_msg *msg = &ms->msg[mid];
    uint64_t row = msg->addr / p->row_bytes;
    int is_store = msg->is_store;
    uint16_t slice = msg->slice;
    uint32_t mask = row_mask(e, p, msg);
    if (is_store) {
        gd_err err;
        e->stats.mem_writes_in++;
        e->stats.mem_write_bytes_in += (uint64_t)__builtin_popcount(msg->sectors) * 32;
        if (sim_row_writes_add(&p->rows, row, &err) != 0) {
            sim_engine_fail(e, "sim: out of host memory (row write counts)");
            return 0;
        }
    }
    if (!p->has_wb)
        return 0;
    if (!is_store && e->arch->wb.read_bypass && !sim_wbuf_contains(&p->wb, row)) {
        e->stats.wb_read_bypasses++; /* [WB] read_bypass: the lists hold written rows only */
        return 0;
    }
    p->wb.trace = e->wbuf_trace; /* the engine's hook, set or cleared at any time */
    p->wb.trace_user = e->wbuf_trace_user;
    sim_wbuf_result r = sim_wbuf_access_mask(&p->wb, row, is_store, mask);
    mirror_counters(e, &p->wb);
    if (r.evicted && r.evicted_dirty) {
        e->stats.mem_write_bytes_out += (uint64_t)__builtin_popcount(r.evicted_mask) * 32;
        row_message(e, r.evicted_row, r.evicted_mask, 1, -1, slice, cycle);
    }
    if (r.hit) {
        if (is_store) {
            sim_msg_free(ms, mid);
        } else {
            ms->msg[mid].ready = cycle + p->hit_cycles;
            if (sim_heap_push(&p->hits, cycle + p->hit_cycles, mid) != 0)
                sim_engine_fail(e, "sim: out of host memory (write-buffer hits)");
        }
        return 1;
    }
    if (is_store)
        sim_msg_free(ms, mid);
    uint32_t fetched = e->arch->wb.request_fetch ? (is_store ? 0 : mask) : p->full_mask;
    row_message(e, row, fetched, 0, is_store ? -1 : mid, slice, cycle);
    return 1;
}

void sim_mainmem_read_done(sim_engine *e, int32_t mid, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    if (!ms->msg[mid].wb_internal) {
        sim_l2_fill(e, mid, cycle);
        return;
    }
    int32_t waiter = ms->msg[mid].wb_waiter;
    sim_msg_free(ms, mid);
    if (waiter >= 0)
        sim_l2_fill(e, waiter, cycle);
}

void sim_pcm_tick(sim_engine *e, uint64_t cycle)
{
    sim_pcm *p = e->memsys->pcm;
    while (p->hits.count && sim_heap_next_due(&p->hits) <= cycle)
        sim_l2_fill(e, sim_heap_pop(&p->hits), cycle);
}

uint64_t sim_pcm_next_event(const sim_engine *e, uint64_t now)
{
    const sim_pcm *p = e->memsys->pcm;
    if (!p || !p->hits.count)
        return SIM_NEVER;
    uint64_t t = sim_heap_next_due(&p->hits);
    return t < now ? now : t;
}

uint64_t sim_pcm_held_dirty_bytes(const sim_engine *e)
{
    const sim_pcm *p = e->memsys ? e->memsys->pcm : NULL;
    return p && p->has_wb ? sim_wbuf_dirty_sectors(&p->wb) * 32 : 0;
}

int sim_pcm_busy(const sim_engine *e)
{
    const sim_pcm *p = e->memsys->pcm;
    return p && p->hits.count;
}
