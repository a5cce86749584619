/* memsys.c -- the simulated load/store path, built from queues that advance
 * every cycle.
 *
 *   warp ld/st --> coalescer --> request FIFO --> L1D tags --hit--> writeback
 *                  (1 req/cycle)  (fifo_entries)     |miss
 *                                                    v
 *                               MSHRs (merge) --> miss queue --> [transit] --> L2 input
 *                                                                          |hit   |miss
 *   writeback <-- fill (1/cycle) <-- return queue <------------------------+   L2 MSHR
 *                                                                               |
 *                                          return <-- DRAM (requests_per_cycle, latency)
 *
 * Latencies in the arch file are load-to-use figures as a pointer chase measures
 * them (L1D, L2, DRAM).  The path adds them back up exactly when nothing
 * contends: a load issued at cycle c enters the FIFO at c, probes the tags at
 * c+1, and a hit's data is visible at c + L1; a miss reaches the L2 after the
 * transit time L2 - L1 (the L2's share, as Accel-Sim's rop latency), a DRAM
 * access adds DRAM - L2, and the fill costs the L1's own latency again on the
 * way back to the register.  Contention -- a full FIFO, a set whose ways are all
 * reserved, MSHRs or the miss queue exhausted, fill and L2 bandwidth -- adds
 * cycles on top, which is what the probes of later issues measure.
 *
 * A request the L1 cannot take this cycle (reservation fail) stays at the FIFO
 * head and blocks everything behind it, as in GPGPU-Sim and today's GPUs.  The
 * arch flags `reorder` and `pipelined_issue` switch on the two mechanisms of
 * CN110457238A (see lsu_probe_head and sim_lsu_can_accept).
 */
#include "sim/engine.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------- */
/* Index rings (queues of pool indices)                                      */

typedef struct ring {
    int32_t *buf;
    uint32_t mask;  /* capacity - 1; the capacity is a power of two */
    uint32_t head, count;
    uint32_t limit; /* 0: grows without bound */
} ring;

static int ring_init(ring *r, uint32_t limit)
{
    uint32_t cap = 64;
    while (cap < limit)
        cap *= 2;
    r->buf = malloc(cap * sizeof *r->buf);
    r->mask = cap - 1;
    r->head = r->count = 0;
    r->limit = limit;
    return r->buf ? 0 : -1;
}

static void ring_free(ring *r)
{
    free(r->buf);
    r->buf = NULL;
}

static inline int ring_full(const ring *r)
{
    return r->limit && r->count >= r->limit;
}

static inline uint32_t ring_space(const ring *r)
{
    return r->limit ? r->limit - r->count : UINT32_MAX;
}

static int ring_grow(ring *r)
{
    uint32_t cap = r->mask + 1, ncap = cap * 2;
    int32_t *nb = malloc(ncap * sizeof *nb);
    if (!nb)
        return -1;
    for (uint32_t i = 0; i < r->count; i++)
        nb[i] = r->buf[(r->head + i) & r->mask];
    free(r->buf);
    r->buf = nb;
    r->mask = ncap - 1;
    r->head = 0;
    return 0;
}

static inline int ring_push(ring *r, int32_t v)
{
    if (r->count > r->mask && ring_grow(r) != 0)
        return -1;
    r->buf[(r->head + r->count) & r->mask] = v;
    r->count++;
    return 0;
}

static inline int32_t ring_peek(const ring *r)
{
    return r->buf[r->head];
}

static inline int32_t ring_pop(ring *r)
{
    int32_t v = r->buf[r->head];
    r->head = (r->head + 1) & r->mask;
    r->count--;
    return v;
}

/* ------------------------------------------------------------------------- */
/* Pools                                                                     */

typedef struct sim_request {   /* one coalesced access: an L1 line and its sectors */
    uint64_t line_addr;
    uint32_t sectors;
    uint8_t is_store;
    uint8_t bypass;
    uint16_t sm;
    uint16_t pending_msgs;     /* L1-bypassing reads: responses still to come */
    uint8_t fine;              /* stores and L1-bypassing reads: `sectors` counts fine
                                * granules (the L2's sectors), not L1 sectors */
    int32_t load;              /* sim_load index, -1 for stores */
    int32_t next;              /* free list / MSHR waiter chain */
    uint64_t instr_seq;
} sim_request;

typedef struct sim_load {      /* one warp load instruction in flight */
    sim_warp *warp;
    uint16_t dst;
    uint32_t outstanding;
    uint64_t done_cycle;
    int32_t next;
} sim_load;

typedef struct sim_msg {       /* traffic between L1, L2 and DRAM */
    uint64_t addr;
    uint32_t bytes;
    uint32_t sectors;          /* L2 <-> DRAM: L2 sector mask */
    uint8_t is_store;
    uint16_t sm;
    int32_t bypass_req;        /* read that skips L1: its request; else -1 */
    uint64_t ready;            /* cycle it reaches the next stage */
    int32_t next;              /* free list / L2 MSHR waiter chain */
} sim_msg;

typedef struct sim_mshr {      /* an L1 or L2 miss being filled */
    uint64_t line;             /* line number */
    uint32_t pending_sectors;
    uint32_t merged;
    int32_t waiters;
    int in_use;
} sim_mshr;

typedef struct mshr_table {
    sim_mshr *entries;
    uint32_t capacity, used;
    uint32_t merge_limit;
} mshr_table;

struct sim_lsu {
    sim_cache l1;
    mshr_table mshr;
    int32_t coalesce[SIM_WARP_LANES];
    uint32_t coalesce_head, coalesce_count;
    uint64_t instr_seq;        /* sequence number of the newest instruction */
    uint32_t newest_in_fifo;   /* its requests still in the FIFO */
    ring fifo;
    ring miss_queue;
    ring returns;
    int head_blocked;          /* the head failed; retry when something changes */
    uint64_t blocked_since;
    uint32_t rotation_fails;   /* reorder: consecutive re-enqueued heads */
    uint64_t occupancy_cycle;  /* last FIFO occupancy sample */
    uint32_t hit_tail;         /* L1 latency - 1: probe or fill to register */
    uint32_t inflight;         /* requests issued and not yet complete */
    uint32_t fine_bytes;       /* granule of stores and L1-bypassing reads */
    int reorder;               /* CN110457238A options, from the arch file */
    int pipelined_issue;
};

struct sim_memsys {
    sim_request *req;
    uint32_t req_cap;
    int32_t req_free;
    sim_load *load;
    uint32_t load_cap;
    int32_t load_free;
    sim_msg *msg;
    uint32_t msg_cap;
    int32_t msg_free;
    uint32_t live_requests, live_msgs;

    sim_cache l2;
    mshr_table l2_mshr;
    ring l2_input;             /* in arrival order */
    int l2_blocked;
    uint64_t l2_slot_cycle;    /* requests_per_cycle bookkeeping */
    uint32_t l2_slot_used;
    ring dram_queue;           /* in ready order */
    uint64_t dram_slot_cycle;
    uint32_t dram_slot_used;

    uint32_t l1_to_l2_cycles;  /* L2 - L1 */
    uint32_t l2_to_dram_cycles;/* DRAM - L2 */
};

#define POOL_ALLOC(ms, pool, cap, freelist, out)                                               \
    do {                                                                                       \
        if ((ms)->freelist < 0) {                                                              \
            uint32_t ncap_ = (ms)->cap ? (ms)->cap * 2 : 256;                                  \
            void *np_ = realloc((ms)->pool, ncap_ * sizeof *(ms)->pool);                       \
            if (!np_) {                                                                        \
                (out) = -1;                                                                    \
                break;                                                                         \
            }                                                                                  \
            (ms)->pool = np_;                                                                  \
            for (uint32_t i_ = ncap_; i_-- > (ms)->cap;) {                                     \
                (ms)->pool[i_].next = (ms)->freelist;                                          \
                (ms)->freelist = (int32_t)i_;                                                  \
            }                                                                                  \
            (ms)->cap = ncap_;                                                                 \
        }                                                                                      \
        (out) = (ms)->freelist;                                                                \
        (ms)->freelist = (ms)->pool[(out)].next;                                               \
    } while (0)

static int32_t request_new(sim_engine *e)
{
    sim_memsys *ms = e->memsys;
    int32_t id;
    POOL_ALLOC(ms, req, req_cap, req_free, id);
    if (id < 0)
        sim_engine_fail(e, "sim: out of host memory (requests)");
    else
        ms->live_requests++;
    return id;
}

static void request_free(sim_memsys *ms, int32_t id)
{
    ms->req[id].next = ms->req_free;
    ms->req_free = id;
    ms->live_requests--;
}

static int32_t msg_new(sim_engine *e)
{
    sim_memsys *ms = e->memsys;
    int32_t id;
    POOL_ALLOC(ms, msg, msg_cap, msg_free, id);
    if (id < 0)
        sim_engine_fail(e, "sim: out of host memory (messages)");
    else
        ms->live_msgs++;
    return id;
}

static void msg_free(sim_memsys *ms, int32_t id)
{
    ms->msg[id].next = ms->msg_free;
    ms->msg_free = id;
    ms->live_msgs--;
}

static int mshr_init(mshr_table *t, uint32_t capacity, uint32_t merge_limit)
{
    t->entries = calloc(capacity, sizeof *t->entries);
    t->capacity = capacity;
    t->used = 0;
    t->merge_limit = merge_limit;
    return t->entries ? 0 : -1;
}

static sim_mshr *mshr_find(mshr_table *t, uint64_t line)
{
    if (!t->used)
        return NULL;
    for (uint32_t i = 0; i < t->capacity; i++)
        if (t->entries[i].in_use && t->entries[i].line == line)
            return &t->entries[i];
    return NULL;
}

static sim_mshr *mshr_alloc(mshr_table *t, uint64_t line)
{
    if (t->used >= t->capacity)
        return NULL;
    for (uint32_t i = 0; i < t->capacity; i++) {
        sim_mshr *m = &t->entries[i];
        if (!m->in_use) {
            memset(m, 0, sizeof *m);
            m->in_use = 1;
            m->line = line;
            m->waiters = -1;
            t->used++;
            return m;
        }
    }
    return NULL;
}

static void mshr_release(mshr_table *t, sim_mshr *m)
{
    m->in_use = 0;
    t->used--;
}

/* ------------------------------------------------------------------------- */
/* Set-up                                                                    */

int sim_memsys_create(sim_engine *e, gd_err *err)
{
    const gd_arch *a = e->arch;
    const gd_arch_level *l1 = &a->level[GD_L1D];
    const gd_arch_level *l2 = &a->level[GD_L2];
    sim_memsys *ms = calloc(1, sizeof *ms);
    if (!ms)
        return gd_fail(err, "sim: out of memory");
    e->memsys = ms;
    ms->req_free = ms->load_free = ms->msg_free = -1;
    ms->l1_to_l2_cycles = l2->latency_cycles - l1->latency_cycles;
    ms->l2_to_dram_cycles = a->level[GD_DRAM].latency_cycles - l2->latency_cycles;
    if (sim_cache_init(&ms->l2, l2, a->gpu.seed * 2654435761u + 17, err) ||
        mshr_init(&ms->l2_mshr, l2->mshr_entries, l2->mshr_merge) || ring_init(&ms->l2_input, 0) ||
        ring_init(&ms->dram_queue, 0))
        return gd_fail(err, "sim: out of memory for the L2");
    for (uint32_t s = 0; s < e->sm_count; s++) {
        sim_lsu *lsu = calloc(1, sizeof *lsu);
        if (!lsu)
            return gd_fail(err, "sim: out of memory");
        e->sms[s].lsu = lsu;
        if (sim_cache_init(&lsu->l1, l1, a->gpu.seed + 31ull * s + 1, err))
            return -1;
        if (mshr_init(&lsu->mshr, l1->mshr_entries, l1->mshr_merge) ||
            ring_init(&lsu->fifo, l1->fifo_entries) ||
            ring_init(&lsu->miss_queue, l1->miss_queue_entries) || ring_init(&lsu->returns, 0))
            return gd_fail(err, "sim: out of memory for an LSU");
        lsu->hit_tail = l1->latency_cycles ? l1->latency_cycles - 1 : 0;
        /* what reaches the L2 without an L1 fill moves in L2 sectors (ld.cg of
         * 8 bytes fetches 32, not a whole 128-byte L1 line); at most 32 per line */
        uint32_t l1_sector = l1->sector_bytes ? l1->sector_bytes : l1->line_bytes;
        uint32_t l2_sector = l2->sector_bytes ? l2->sector_bytes : l2->line_bytes;
        lsu->fine_bytes = l1_sector < l2_sector ? l1_sector : l2_sector;
        if (lsu->fine_bytes < l1->line_bytes / 32)
            lsu->fine_bytes = l1->line_bytes / 32;
        lsu->reorder = l1->reorder;
        lsu->pipelined_issue = l1->pipelined_issue;
    }
    return 0;
}

void sim_memsys_destroy(sim_engine *e)
{
    sim_memsys *ms = e->memsys;
    if (!ms)
        return;
    for (uint32_t s = 0; s < e->sm_count; s++) {
        sim_lsu *lsu = e->sms[s].lsu;
        if (!lsu)
            continue;
        sim_cache_destroy(&lsu->l1);
        free(lsu->mshr.entries);
        ring_free(&lsu->fifo);
        ring_free(&lsu->miss_queue);
        ring_free(&lsu->returns);
        free(lsu);
        e->sms[s].lsu = NULL;
    }
    sim_cache_destroy(&ms->l2);
    free(ms->l2_mshr.entries);
    ring_free(&ms->l2_input);
    ring_free(&ms->dram_queue);
    free(ms->req);
    free(ms->load);
    free(ms->msg);
    free(ms);
    e->memsys = NULL;
}

void sim_memsys_launch_begin(sim_engine *e)
{
    /* L1s are invalidated at a kernel boundary (GPGPU-Sim -gpgpu_flush_l1_cache);
     * the L2 keeps its contents, as on a GPU. */
    for (uint32_t s = 0; s < e->sm_count; s++)
        sim_cache_flush(&e->sms[s].lsu->l1);
}

/* ------------------------------------------------------------------------- */
/* Completion                                                                */

static uint64_t noise_next(sim_engine *e)
{
    uint64_t z = (e->noise_rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* [noise]: the delay a real card's timer jitter and rare interruptions add to a
 * load: uniform integer jitter in [-jitter, +jitter] (symmetric, so medians and
 * means stay on the latency) and, with probability outlier_rate, an outlier of
 * outlier_cycles to twice that (large, like an interrupt or a context switch). */
static int64_t load_noise(sim_engine *e)
{
    const gd_arch_noise *n = &e->arch->noise;
    int64_t d = 0;
    int64_t j = (int64_t)n->jitter_cycles;
    if (j > 0)
        d += (int64_t)(noise_next(e) % (uint64_t)(2 * j + 1)) - j;
    if (n->outlier_rate > 0 && (double)(noise_next(e) >> 11) * 0x1.0p-53 < n->outlier_rate)
        d += (int64_t)n->outlier_cycles + (int64_t)(noise_next(e) % (n->outlier_cycles + 1ull));
    return d;
}

static void load_complete_one(sim_engine *e, int32_t load_id, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    sim_load *ld = &ms->load[load_id];
    if (cycle > ld->done_cycle)
        ld->done_cycle = cycle;
    if (--ld->outstanding == 0) {
        if (e->noise_on) {
            int64_t t = (int64_t)ld->done_cycle + load_noise(e);
            ld->done_cycle = t > (int64_t)e->cycle ? (uint64_t)t : e->cycle + 1;
        }
        sim_warp *w = ld->warp;
        if (ld->dst != PTX_NO_REG)
            w->reg_ready[ld->dst] = ld->done_cycle;
        w->pending_loads--;
        sim_engine_wake_at(e, ld->done_cycle);
        ld->next = ms->load_free;
        ms->load_free = load_id;
    }
}

static void request_complete(sim_engine *e, int32_t rid, uint64_t data_cycle)
{
    sim_memsys *ms = e->memsys;
    int32_t load = ms->req[rid].load;
    e->sms[ms->req[rid].sm].lsu->inflight--;
    request_free(ms, rid);
    if (load >= 0)
        load_complete_one(e, load, data_cycle);
}

/* ------------------------------------------------------------------------- */
/* Coalescer and issue                                                       */

int sim_lsu_can_accept(const sim_sm *sm)
{
    const sim_lsu *lsu = sm->lsu;
    if (lsu->coalesce_count)
        return 0;
    /* Baseline: the next memory instruction waits until every request of the
     * current one has left the FIFO.  CN110457238A's pipelined issue accepts it
     * as soon as the coalescer has emitted them all. */
    return lsu->pipelined_issue || lsu->newest_in_fifo == 0;
}

void sim_lsu_issue(sim_engine *e, sim_sm *sm, sim_warp *w, const sim_mem_access *acc,
                   uint16_t dst, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    sim_lsu *lsu = sm->lsu;
    int32_t load_id = -1;
    if (!acc->is_store) {
        POOL_ALLOC(ms, load, load_cap, load_free, load_id);
        if (load_id < 0) {
            sim_engine_fail(e, "sim: out of host memory (loads)");
            return;
        }
        sim_load *ld = &ms->load[load_id];
        ld->warp = w;
        ld->dst = dst;
        ld->outstanding = 0;
        ld->done_cycle = 0;
        w->pending_loads++;
        if (dst != PTX_NO_REG)
            w->reg_ready[dst] = SIM_NEVER;
        e->stats.global_loads++;
    } else {
        e->stats.global_stores++;
    }
    e->memsys_due = cycle; /* the LSU moves this very cycle */
    lsu->instr_seq++;
    lsu->newest_in_fifo = 0;
    lsu->coalesce_head = 0;
    lsu->coalesce_count = 0;
    uint64_t line_mask = ~(uint64_t)(lsu->l1.line_bytes - 1);
    int fine = acc->is_store || acc->bypass_l1;
    for (uint32_t m = acc->mask; m; m &= m - 1) {
        unsigned lane = (unsigned)__builtin_ctz(m);
        uint64_t addr = acc->addr[lane];
        uint64_t line = addr & line_mask;
        uint32_t sectors;
        if (fine) {
            uint32_t off = (uint32_t)(addr - line);
            uint32_t first = off / lsu->fine_bytes, last = (off + acc->size - 1) / lsu->fine_bytes;
            sectors = (uint32_t)((2ull << last) - (1ull << first));
        } else {
            sectors = sim_cache_sector_mask(&lsu->l1, addr, acc->size);
        }
        uint32_t i;
        for (i = 0; i < lsu->coalesce_count; i++) {
            sim_request *r = &ms->req[lsu->coalesce[i]];
            if (r->line_addr == line) {
                r->sectors |= sectors;
                break;
            }
        }
        if (i < lsu->coalesce_count)
            continue;
        int32_t rid = request_new(e);
        if (rid < 0)
            return;
        sim_request *r = &ms->req[rid];
        r->line_addr = line;
        r->sectors = sectors;
        r->is_store = acc->is_store;
        r->bypass = acc->bypass_l1;
        r->fine = (uint8_t)fine;
        r->sm = (uint16_t)sm->id;
        r->pending_msgs = 0;
        r->load = load_id;
        r->instr_seq = lsu->instr_seq;
        lsu->coalesce[lsu->coalesce_count++] = rid;
        lsu->inflight++;
    }
    if (load_id >= 0)
        ms->load[load_id].outstanding = lsu->coalesce_count;
}

/* ------------------------------------------------------------------------- */
/* Messages towards the L2                                                   */

/* Splits the sectors of an L1 line into byte ranges that do not cross an L2
 * line; emits them into the miss queue when `emit`, else only counts them. */
static uint32_t l1_line_messages(sim_engine *e, sim_sm *sm, uint64_t line_addr, uint32_t sectors,
                                 uint32_t sb, int is_store, int32_t bypass_req, int emit)
{
    sim_memsys *ms = e->memsys;
    sim_lsu *lsu = sm->lsu;
    uint64_t l2_line = ms->l2.line_bytes;
    uint32_t n = 0;
    uint32_t s = 0;
    while (s < 32 && (sectors >> s)) {
        if (!((sectors >> s) & 1)) {
            s++;
            continue;
        }
        uint32_t run_end = s;
        while (run_end + 1 < 32 && ((sectors >> (run_end + 1)) & 1))
            run_end++;
        uint64_t start = line_addr + (uint64_t)s * sb;
        uint64_t end = line_addr + (uint64_t)(run_end + 1) * sb;
        while (start < end) {
            uint64_t piece_end = (start / l2_line + 1) * l2_line;
            if (piece_end > end)
                piece_end = end;
            if (emit) {
                int32_t mid = msg_new(e);
                if (mid < 0)
                    return n;
                sim_msg *msg = &ms->msg[mid];
                msg->addr = start;
                msg->bytes = (uint32_t)(piece_end - start);
                msg->sectors = 0;
                msg->is_store = (uint8_t)is_store;
                msg->sm = (uint16_t)sm->id;
                msg->bypass_req = bypass_req;
                msg->ready = 0;
                ring_push(&lsu->miss_queue, mid);
            }
            n++;
            start = piece_end;
        }
        s = run_end + 1;
    }
    return n;
}

/* ------------------------------------------------------------------------- */
/* The L1 tag probe of the FIFO head                                         */

enum { PROBE_DONE, PROBE_FAIL };

static int lsu_probe(sim_engine *e, sim_sm *sm, int32_t rid, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    sim_lsu *lsu = sm->lsu;
    sim_request *r = &ms->req[rid];
    sim_cache *c = &lsu->l1;

    if (r->is_store) {
        /* write-through, no write-allocate: a present line is updated in place (its
         * valid sectors stay valid), the data goes on to the L2 */
        uint32_t need = l1_line_messages(e, sm, r->line_addr, r->sectors, lsu->fine_bytes, 1, -1, 0);
        if (ring_space(&lsu->miss_queue) < need)
            return PROBE_FAIL;
        sim_cache_line *l = sim_cache_find(c, sim_cache_line_of(c, r->line_addr));
        if (l)
            sim_cache_touch(c, l);
        l1_line_messages(e, sm, r->line_addr, r->sectors, lsu->fine_bytes, 1, -1, 1);
        request_complete(e, rid, cycle);
        return PROBE_DONE;
    }
    if (r->bypass) {
        uint32_t need = l1_line_messages(e, sm, r->line_addr, r->sectors, lsu->fine_bytes, 0, rid, 0);
        if (ring_space(&lsu->miss_queue) < need)
            return PROBE_FAIL;
        r->pending_msgs = (uint16_t)need;
        l1_line_messages(e, sm, r->line_addr, r->sectors, lsu->fine_bytes, 0, rid, 1);
        return PROBE_DONE;
    }
    uint64_t lineno = sim_cache_line_of(c, r->line_addr);
    sim_cache_line *l = sim_cache_find(c, lineno);
    if (l && (l->valid_sectors & r->sectors) == r->sectors) {
        sim_cache_touch(c, l);
        e->stats.l1d_hits++;
        request_complete(e, rid, cycle + lsu->hit_tail);
        return PROBE_DONE;
    }
    sim_mshr *m = l && l->reserved ? mshr_find(&lsu->mshr, lineno) : NULL;
    uint32_t missing = r->sectors & ~(l ? l->valid_sectors : 0u) & ~(m ? m->pending_sectors : 0u);
    uint32_t need =
        missing ? l1_line_messages(e, sm, r->line_addr, missing, c->sector_bytes, 0, -1, 0) : 0;
    if (m) {
        if (m->merged >= lsu->mshr.merge_limit || ring_space(&lsu->miss_queue) < need)
            return PROBE_FAIL;
    } else {
        if (lsu->mshr.used >= lsu->mshr.capacity || ring_space(&lsu->miss_queue) < need)
            return PROBE_FAIL;
        if (!l) {
            sim_cache_line *victim = sim_cache_victim(c, lineno);
            if (!victim)
                return PROBE_FAIL; /* every way of the set is reserved */
            sim_cache_install(c, victim, lineno);
            l = victim;
            e->stats.l1d_misses++;
        } else {
            e->stats.l1d_sector_misses++;
        }
        m = mshr_alloc(&lsu->mshr, lineno);
        l->reserved = 1;
    }
    if (missing) {
        m->pending_sectors |= missing;
        l1_line_messages(e, sm, r->line_addr, missing, c->sector_bytes, 0, -1, 1);
    } else {
        e->stats.l1d_merges++;
    }
    m->merged++;
    r->next = m->waiters;
    m->waiters = rid;
    return PROBE_DONE;
}

static void lsu_unblock(sim_engine *e, sim_lsu *lsu, uint64_t cycle)
{
    if (lsu->head_blocked) {
        e->stats.l1d_resv_fail_cycles += cycle - lsu->blocked_since;
        lsu->head_blocked = 0;
        lsu->rotation_fails = 0;
    }
}

void sim_lsu_tick(sim_engine *e, sim_sm *sm, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    sim_lsu *lsu = sm->lsu;
    e->stats.l1d_fifo_occupancy_sum += (uint64_t)lsu->fifo.count * (cycle - lsu->occupancy_cycle);
    lsu->occupancy_cycle = cycle;
    if (!lsu->fifo.count && !lsu->coalesce_count && !lsu->miss_queue.count)
        return;

    /* 1. the FIFO head probes the L1 tags */
    int requeued = 0;
    if (lsu->fifo.count && !lsu->head_blocked) {
        int32_t rid = ring_peek(&lsu->fifo);
        uint64_t seq = ms->req[rid].instr_seq;
        if (lsu_probe(e, sm, rid, cycle) == PROBE_DONE) {
            ring_pop(&lsu->fifo);
            if (seq == lsu->instr_seq)
                lsu->newest_in_fifo--;
            lsu->rotation_fails = 0;
        } else {
            e->stats.l1d_resv_fails++;
            if (lsu->reorder && lsu->fifo.count > 1 && lsu->rotation_fails < lsu->fifo.count) {
                /* CN110457238A: pop the stalled head and put it at the tail, so
                 * the requests behind it reach the tags next cycle. */
                ring_pop(&lsu->fifo);
                ring_push(&lsu->fifo, rid);
                lsu->rotation_fails++;
                requeued = 1;
            } else {
                lsu->head_blocked = 1;
                lsu->blocked_since = cycle;
            }
        }
    }

    /* 2. the coalescer emits one request into the FIFO tail; a re-enqueued
     * request has priority for the tail and pauses the coalescer */
    if (lsu->coalesce_count && !requeued && !ring_full(&lsu->fifo)) {
        ring_push(&lsu->fifo, lsu->coalesce[lsu->coalesce_head++]);
        lsu->coalesce_count--;
        lsu->newest_in_fifo++;
        if (lsu->reorder && lsu->head_blocked) {
            /* with reorder a newcomer may be servable even if all others failed */
            lsu_unblock(e, lsu, cycle);
        }
    }

    /* 3. the miss queue sends one message towards the L2 */
    if (lsu->miss_queue.count) {
        int32_t mid = ring_pop(&lsu->miss_queue);
        ms->msg[mid].ready = cycle + ms->l1_to_l2_cycles;
        ring_push(&ms->l2_input, mid);
        lsu_unblock(e, lsu, cycle);
    }
}

/* ------------------------------------------------------------------------- */
/* Fills                                                                     */

void sim_lsu_returns(sim_engine *e, sim_sm *sm, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    sim_lsu *lsu = sm->lsu;
    if (!lsu->returns.count)
        return;
    int32_t mid = ring_pop(&lsu->returns);
    sim_msg *msg = &ms->msg[mid];
    if (msg->bypass_req >= 0) {
        int32_t rid = msg->bypass_req;
        msg_free(ms, mid);
        if (--ms->req[rid].pending_msgs == 0)
            request_complete(e, rid, cycle + lsu->hit_tail);
        return;
    }
    sim_cache *c = &lsu->l1;
    uint64_t lineno = sim_cache_line_of(c, msg->addr);
    sim_cache_line *l = sim_cache_find(c, lineno);
    sim_mshr *m = mshr_find(&lsu->mshr, lineno);
    uint32_t sectors = sim_cache_sector_mask(c, msg->addr, msg->bytes);
    msg_free(ms, mid);
    if (!l || !m) {
        sim_engine_fail(e, "sim: internal error: a fill for L1 line 0x%llx has no MSHR",
                        (unsigned long long)(lineno * c->line_bytes));
        return;
    }
    l->valid_sectors |= sectors;
    m->pending_sectors &= ~sectors;
    int32_t *link = &m->waiters;
    while (*link >= 0) {
        int32_t rid = *link;
        sim_request *r = &ms->req[rid];
        if ((l->valid_sectors & r->sectors) == r->sectors) {
            *link = r->next;
            m->merged--;
            request_complete(e, rid, cycle + lsu->hit_tail);
        } else {
            link = &r->next;
        }
    }
    if (m->pending_sectors == 0) {
        if (m->waiters >= 0) {
            sim_engine_fail(e, "sim: internal error: L1 MSHR released with waiters");
            return;
        }
        mshr_release(&lsu->mshr, m);
        l->reserved = 0;
    }
    lsu_unblock(e, lsu, cycle);
}

/* ------------------------------------------------------------------------- */
/* L2 and DRAM                                                               */

static void dram_enqueue(sim_engine *e, int32_t mid, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    uint32_t per_cycle = e->arch->level[GD_DRAM].requests_per_cycle;
    if (ms->dram_slot_cycle < cycle) {
        ms->dram_slot_cycle = cycle;
        ms->dram_slot_used = 0;
    }
    if (ms->dram_slot_used >= per_cycle) {
        ms->dram_slot_cycle++;
        ms->dram_slot_used = 0;
    }
    ms->dram_slot_used++;
    ms->msg[mid].ready = ms->dram_slot_cycle + ms->l2_to_dram_cycles;
    ring_push(&ms->dram_queue, mid);
}

static void dram_message(sim_engine *e, uint64_t line, uint32_t sectors, int is_store,
                         uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    int32_t mid = msg_new(e);
    if (mid < 0)
        return;
    sim_msg *msg = &ms->msg[mid];
    msg->addr = line * ms->l2.line_bytes;
    msg->bytes = ms->l2.line_bytes;
    msg->sectors = sectors;
    msg->is_store = (uint8_t)is_store;
    msg->sm = 0;
    msg->bypass_req = -1;
    if (is_store)
        e->stats.dram_writes++;
    else
        e->stats.dram_reads++;
    dram_enqueue(e, mid, cycle);
}

static void respond_to_sm(sim_engine *e, int32_t mid, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    sim_msg *msg = &ms->msg[mid];
    msg->ready = cycle;
    ring_push(&e->sms[msg->sm].lsu->returns, mid);
}

static void l2_evict(sim_engine *e, sim_cache_line *victim, uint64_t cycle)
{
    if (victim->present && victim->dirty_sectors)
        dram_message(e, victim->tag, victim->dirty_sectors, 1, cycle);
}

static int l2_access(sim_engine *e, int32_t mid, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    sim_cache *c = &ms->l2;
    sim_msg *msg = &ms->msg[mid];
    uint64_t lineno = sim_cache_line_of(c, msg->addr);
    uint32_t sectors = sim_cache_sector_mask(c, msg->addr, msg->bytes);
    sim_cache_line *l = sim_cache_find(c, lineno);

    if (msg->is_store) {
        /* write-back, write-allocate at sector granularity without a fetch */
        if (!l) {
            l = sim_cache_victim(c, lineno);
            if (!l)
                return PROBE_FAIL;
            l2_evict(e, l, cycle);
            sim_cache_install(c, l, lineno);
        }
        l->valid_sectors |= sectors;
        l->dirty_sectors |= sectors;
        sim_cache_touch(c, l);
        msg_free(ms, mid);
        return PROBE_DONE;
    }
    if (l && (l->valid_sectors & sectors) == sectors) {
        sim_cache_touch(c, l);
        e->stats.l2_hits++;
        respond_to_sm(e, mid, cycle);
        return PROBE_DONE;
    }
    sim_mshr *m = l && l->reserved ? mshr_find(&ms->l2_mshr, lineno) : NULL;
    uint32_t missing = sectors & ~(l ? l->valid_sectors : 0u) & ~(m ? m->pending_sectors : 0u);
    if (m) {
        if (m->merged >= ms->l2_mshr.merge_limit)
            return PROBE_FAIL;
    } else {
        if (ms->l2_mshr.used >= ms->l2_mshr.capacity)
            return PROBE_FAIL;
        if (!l) {
            l = sim_cache_victim(c, lineno);
            if (!l)
                return PROBE_FAIL;
            l2_evict(e, l, cycle);
            sim_cache_install(c, l, lineno);
        }
        m = mshr_alloc(&ms->l2_mshr, lineno);
        l->reserved = 1;
    }
    e->stats.l2_misses++;
    if (missing) {
        m->pending_sectors |= missing;
        dram_message(e, lineno, missing, 0, cycle);
    }
    m->merged++;
    msg->next = m->waiters;
    m->waiters = mid;
    return PROBE_DONE;
}

static void l2_fill(sim_engine *e, int32_t mid, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    sim_cache *c = &ms->l2;
    sim_msg *msg = &ms->msg[mid];
    uint64_t lineno = sim_cache_line_of(c, msg->addr);
    uint32_t sectors = msg->sectors;
    msg_free(ms, mid);
    sim_cache_line *l = sim_cache_find(c, lineno);
    sim_mshr *m = mshr_find(&ms->l2_mshr, lineno);
    if (!l || !m) {
        sim_engine_fail(e, "sim: internal error: a DRAM fill for L2 line 0x%llx has no MSHR",
                        (unsigned long long)(lineno * c->line_bytes));
        return;
    }
    l->valid_sectors |= sectors;
    m->pending_sectors &= ~sectors;
    int32_t *link = &m->waiters;
    while (*link >= 0) {
        int32_t wid = *link;
        sim_msg *w = &ms->msg[wid];
        uint32_t need = sim_cache_sector_mask(c, w->addr, w->bytes);
        if ((l->valid_sectors & need) == need) {
            *link = w->next;
            m->merged--;
            respond_to_sm(e, wid, cycle);
        } else {
            link = &w->next;
        }
    }
    if (m->pending_sectors == 0) {
        mshr_release(&ms->l2_mshr, m);
        l->reserved = 0;
    }
    ms->l2_blocked = 0;
}

void sim_memsys_global_tick(sim_engine *e, uint64_t cycle)
{
    sim_memsys *ms = e->memsys;
    if (!ms->dram_queue.count && !ms->l2_input.count)
        return;
    while (ms->dram_queue.count && ms->msg[ring_peek(&ms->dram_queue)].ready <= cycle) {
        int32_t mid = ring_pop(&ms->dram_queue);
        if (ms->msg[mid].is_store)
            msg_free(ms, mid);
        else
            l2_fill(e, mid, cycle);
    }
    uint32_t per_cycle = e->arch->level[GD_L2].requests_per_cycle;
    uint32_t done = 0;
    while (!ms->l2_blocked && done < per_cycle && ms->l2_input.count &&
           ms->msg[ring_peek(&ms->l2_input)].ready <= cycle) {
        int32_t mid = ring_peek(&ms->l2_input);
        if (l2_access(e, mid, cycle) == PROBE_FAIL) {
            ms->l2_blocked = 1;
            break;
        }
        ring_pop(&ms->l2_input);
        done++;
    }
}

int sim_l2_lookup_fill(sim_engine *e, uint64_t addr, uint32_t bytes, uint64_t cycle)
{
    sim_cache *c = &e->memsys->l2;
    int all = 1;
    uint64_t first = sim_cache_line_of(c, addr), last = sim_cache_line_of(c, addr + bytes - 1);
    for (uint64_t line = first; line <= last; line++) {
        sim_cache_line *l = sim_cache_find(c, line);
        uint32_t full = c->sectors_per_line >= 32 ? 0xffffffffu : (1u << c->sectors_per_line) - 1;
        if (l && (l->valid_sectors & full) == full) {
            sim_cache_touch(c, l);
            continue;
        }
        all = 0;
        if (!l) {
            l = sim_cache_victim(c, line);
            if (!l)
                continue; /* every way reserved by data misses: not cached this time */
            l2_evict(e, l, cycle);
            sim_cache_install(c, l, line);
        }
        l->valid_sectors = full;
        sim_cache_touch(c, l);
        e->stats.dram_reads++;
    }
    return all;
}

/* ------------------------------------------------------------------------- */
/* Event horizon                                                             */

int sim_lsu_busy(const sim_sm *sm)
{
    const sim_lsu *lsu = sm->lsu;
    return lsu->inflight || lsu->coalesce_count || lsu->fifo.count || lsu->miss_queue.count ||
           lsu->returns.count || lsu->mshr.used;
}

uint64_t sim_memsys_next_event(const sim_engine *e, uint64_t now)
{
    const sim_memsys *ms = e->memsys;
    uint64_t best = SIM_NEVER;
    if (ms->l2_input.count && !ms->l2_blocked) {
        uint64_t t = ms->msg[ring_peek(&ms->l2_input)].ready;
        best = t < now ? now : t;
    }
    if (ms->dram_queue.count) {
        uint64_t t = ms->msg[ring_peek(&ms->dram_queue)].ready;
        t = t < now ? now : t;
        if (t < best)
            best = t;
    }
    if (best == now)
        return now;
    for (uint32_t i = 0; i < e->active_sm_count; i++) {
        const sim_lsu *lsu = e->active_sms[i]->lsu;
        if (lsu->returns.count || lsu->miss_queue.count ||
            (lsu->fifo.count && !lsu->head_blocked) ||
            (lsu->coalesce_count && !ring_full(&lsu->fifo)))
            return now;
    }
    return best;
}

int sim_memsys_idle(const sim_engine *e)
{
    const sim_memsys *ms = e->memsys;
    return ms->live_requests == 0 && ms->live_msgs == 0;
}
