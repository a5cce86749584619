/* memsys.h -- the records the two halves of the simulated memory path share.
 *
 *   lsu.c     per SM: coalescer, L1 request FIFO, L1D tags, MSHRs, miss queue,
 *             fills and load completion
 *   memsys.c  per chip: the pools every request and message lives in, set-up,
 *             the global tick and the event horizon
 *   l2_slice.c  the L2's slices, partitions and crossbar (issue 12)
 *   tlb.c       the L1 and L2 TLBs
 *   dram.c      the memory controllers: fixed latency, or channels/banks/rows
 *   pcm.c       phase-change memory's write buffer and per-row write counts (issue 13)
 *
 * Requests (one coalesced L1 line access), loads (one warp load instruction in
 * flight) and messages (traffic between L1, L2 and DRAM) live in pools owned by
 * the chip-wide sim_memsys and are referred to by int32 index, so the queues of
 * ring.h stay small and nothing is allocated per cycle.  Internal to sim/.
 */
#ifndef GD_SIM_MEMSYS_H
#define GD_SIM_MEMSYS_H

#include <stdlib.h>
#include <string.h>

#include "sim/engine.h"
#include "sim/msg_heap.h"
#include "sim/ring.h"

typedef struct sim_l2_slice sim_l2_slice; /* l2_slice.c */
typedef struct sim_tlbs sim_tlbs;         /* tlb.c */
typedef struct sim_dram sim_dram;         /* dram.c */
typedef struct sim_pcm sim_pcm;           /* pcm.c */

typedef struct sim_request {   /* one coalesced access: an L1 line and its sectors */
    uint64_t line_addr;
    uint32_t sectors;
    uint8_t is_store;
    uint8_t bypass;
    uint16_t sm;
    uint16_t pending_msgs;     /* L1-bypassing reads: responses still to come */
    uint8_t fine;              /* stores and L1-bypassing reads: `sectors` counts fine
                                * granules (the L2's sectors), not L1 sectors */
    uint8_t refusal;           /* sim_resv_reason of its last refused probe */
    uint32_t partial;          /* stores: the granules of `sectors` its lanes write only
                                * part of (l1d_store.c) */
    uint16_t index;            /* its place in its instruction's coalescer order */
    int32_t load;              /* sim_load index, -1 for stores */
    int32_t next;              /* free list / MSHR waiter chain */
    uint64_t instr_seq;        /* the SM's memory instruction it belongs to */
} sim_request;

typedef struct sim_load {      /* one warp load instruction in flight */
    sim_warp *warp;
    uint16_t dst;
    uint8_t dst_more;          /* a vector load's further registers (ld.v2/.v4) */
    uint16_t dst_regs[3];
    uint32_t outstanding;
    uint64_t done_cycle;
    int32_t next;
} sim_load;

typedef struct sim_msg {       /* traffic between L1, L2 and DRAM */
    uint64_t addr;
    uint32_t bytes;
    uint32_t sectors;          /* L2 <-> DRAM: L2 sector mask */
    uint8_t is_store;
    uint8_t partial;           /* a store that writes only part of its bytes (l2_store.c) */
    uint16_t sm;
    int32_t bypass_req;        /* read that skips L1: its request; else -1 */
    uint32_t extra_cycles;     /* added to its response: TLB misses, a far-partition hit */
    uint16_t slice;            /* L2 <-> DRAM: the L2 slice it belongs to */
    uint8_t translated;        /* its page has been looked up in the TLBs */
    uint16_t dram_channel, dram_bank; /* DRAM with channels: where it goes (dram.c) */
    uint64_t dram_row;
    uint8_t wb_internal;       /* a row read or write-back the write buffer made (pcm.c) */
    int32_t wb_waiter;         /* internal row read: the L2's read waiting for it, or -1 */
    uint64_t ready;            /* cycle it reaches the next stage */
    int32_t next;              /* free list / L2 MSHR waiter chain */
} sim_msg;

typedef struct sim_mshr {      /* an L1 or L2 miss being filled */
    uint64_t line;             /* line number */
    uint32_t pending_sectors;
    /* L1 sectors larger than an L2 line come back in several pieces (one per
     * L2 line): pieces still to arrive per sector, 0 before its first piece */
    uint8_t pieces_left[32];
    uint32_t merged;
    int32_t waiters;
    int in_use;
    /* (L2) the way being filled: reserved, so no victim choice takes it
     * while the entry lives -- the fill needs no second search of its set */
    struct sim_cache_line *way;
} sim_mshr;

typedef struct mshr_table {
    sim_mshr *entries;         /* one block: entries, then index, then free_ids */
    uint32_t capacity, used;
    uint32_t merge_limit;
    /* O(1) lookups: an open-addressed table line -> entry + 1 (0 = empty) over
     * the entries in use, and a stack of the free entries.  The L2 has
     * thousands of MSHRs; a scan of them per fill and per miss was the memory
     * path's largest cost on MSHR-bound sweeps (issue 18). */
    uint32_t *index;
    uint32_t index_mask;
    uint32_t *free_ids;
    uint32_t free_count;
} mshr_table;

/* Instructions tracked per LSU: more than queued_instructions can ever hold
 * (GD_ARCH_MAX_QUEUED_INSTRUCTIONS); with pipelined issue the count is not used. */
#define SIM_LSU_INSTR_SLOTS 64

struct sim_lsu {
    sim_cache l1;
    mshr_table mshr;
    /* the coalescer: the requests of the instruction it is emitting */
    int32_t coalesce[SIM_WARP_LANES];
    uint32_t coalesce_head, coalesce_count;
    uint64_t instr_seq;        /* sequence number of the newest instruction */
    /* requests in the FIFO per instruction (by instr_seq modulo the table), and
     * the instructions with any: the baseline accepts a new instruction while
     * fewer than queued_instructions have requests there */
    uint16_t in_fifo_of[SIM_LSU_INSTR_SLOTS];
    uint32_t instrs_in_fifo;
    ring fifo;                 /* the L1 request FIFO (fifo_entries) */
    ring miss_queue;           /* towards the L2 (miss_queue) */
    ring returns;              /* fills and bypass responses from the L2 */
    uint32_t hit_tail;         /* L1 latency - 1: probe or fill to register */
    uint32_t inflight;         /* requests issued and not yet complete */
    uint32_t fine_bytes;       /* granule of stores and L1-bypassing reads */
    int reorder;               /* CN110457238A options, from the arch file */
    int pipelined_issue;
    uint32_t tail_ports;       /* 2: a re-enqueued request and a new one both enter per cycle */
    uint32_t coalescer_rate;   /* requests the coalescer enqueues per cycle (32: all at once) */
    uint32_t tag_lookups;      /* FIFO requests probed per cycle */
    uint32_t queued_instructions; /* instructions with requests in the FIFO at once (baseline) */

    /* Refusals.  A refused probe changes nothing, so once every candidate has
     * been refused (the head in the baseline; every FIFO entry in a row with
     * reorder) the LSU sleeps until something that can change an answer
     * happens -- a fill, or a miss-queue slot when a refusal wanted one -- and
     * then accounts for the skipped cycles as the per-cycle model would have
     * spent them (see lsu_wake). */
    uint8_t asleep;
    uint8_t refused_miss_queue;/* a refusal since the last change wanted a miss-queue slot */
    uint32_t refused_in_row;   /* consecutive refused probes since the last change */
    uint64_t asleep_since;     /* first cycle whose probe was skipped */
    uint64_t hol_since;        /* baseline: first skipped cycle with requests behind the head */

    /* interval accounting (cycles are charged when the interval closes) */
    uint64_t occupancy_cycle;  /* FIFO occupancy integrated up to here */
    uint8_t coalescer_stalled; /* the coalescer holds a request it cannot enqueue */
    uint8_t issue_refused;     /* a warp's memory instruction waits to be accepted (the
                                * stall accounting; cleared by the next accepted one) */
    uint8_t refused_waiters;   /* some warp was refused since the LSU last woke them: wake
                                * the engine when it can accept again (several warps may
                                * wait, and one being accepted leaves the others waiting) */
    uint64_t coalescer_stalled_since, issue_refused_since;
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
    ring dram_queue;           /* in ready order */
    uint64_t dram_slot_cycle;
    uint32_t dram_slot_used;

    uint32_t l1_to_l2_cycles;  /* L2 - L1 */
    uint32_t l2_to_dram_cycles;/* DRAM - L2 */

    /* below the L1 (issue 12): slice 0 is `l2` (and its MSHRs `l2_mshr`);
     * slice_count 1 and no partitions run the path above unchanged */
    sim_l2_slice *slices;
    uint32_t slice_count;
    uint32_t *busy_slices;     /* slices whose queue is not empty (several slices) */
    uint32_t busy_slice_count;
    uint32_t far_extra_cycles; /* far_latency - latency */
    sim_msg_heap delayed;      /* responses due later: TLB misses, far hits, DRAM */
    sim_tlbs *tlbs;            /* NULL: no TLB */
    sim_dram *dram;            /* NULL: the fixed-latency DRAM */
    sim_pcm *pcm;              /* NULL: no write buffer and not PCM (pcm.c) */
};

/* Result of offering a request (or message) to a cache this cycle. */
enum { PROBE_DONE, PROBE_FAIL };

/* ------------------------------------------------------------------------- */
/* Pools (memsys.c)                                                          */

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

/* -1 (after sim_engine_fail) when the host is out of memory.  Requests and
 * messages are taken and given back for every sector of every miss, so the
 * common case (a free entry) is inline; an empty pool grows in memsys.c. */
int32_t sim_request_new_grow(sim_engine *e);
int32_t sim_msg_new_grow(sim_engine *e);

static inline int32_t sim_request_new(sim_engine *e)
{
    sim_memsys *ms = e->memsys;
    int32_t id = ms->req_free;
    if (id < 0)
        return sim_request_new_grow(e);
    ms->req_free = ms->req[id].next;
    ms->live_requests++;
    return id;
}

static inline void sim_request_free(sim_memsys *ms, int32_t id)
{
    ms->req[id].next = ms->req_free;
    ms->req_free = id;
    ms->live_requests--;
}

static inline int32_t sim_msg_new(sim_engine *e)
{
    sim_memsys *ms = e->memsys;
    int32_t id = ms->msg_free;
    if (id < 0)
        return sim_msg_new_grow(e);
    ms->msg_free = ms->msg[id].next;
    ms->live_msgs++;
    /* what the LSU does not set: below-the-L1 state (l2_slice.c, tlb.c) */
    sim_msg *m = &ms->msg[id];
    m->extra_cycles = 0;
    m->slice = 0;
    m->translated = 0;
    m->wb_internal = 0;
    m->wb_waiter = -1;
    m->partial = 0;
    return id;
}

static inline void sim_msg_free(sim_memsys *ms, int32_t id)
{
    ms->msg[id].next = ms->msg_free;
    ms->msg_free = id;
    ms->live_msgs--;
}

/* ------------------------------------------------------------------------- */
/* MSHR tables (L1 and L2)                                                   */

/* Frees with free(t->entries): the index and the free stack share its block. */
static inline int mshr_init(mshr_table *t, uint32_t capacity, uint32_t merge_limit)
{
    size_t slots = 1;
    while (slots < 2 * (size_t)capacity)
        slots *= 2;
    t->entries = calloc(1, capacity * sizeof *t->entries + (slots + capacity) * sizeof(uint32_t));
    t->capacity = capacity;
    t->used = 0;
    t->merge_limit = merge_limit;
    if (!t->entries)
        return -1;
    t->index = (uint32_t *)(void *)(t->entries + capacity);
    t->index_mask = (uint32_t)(slots - 1);
    t->free_ids = t->index + slots;
    /* popped lowest first, as the scan that came before took them */
    for (uint32_t i = 0; i < capacity; i++)
        t->free_ids[i] = capacity - 1 - i;
    t->free_count = capacity;
    return 0;
}

static inline uint32_t mshr_hash(const mshr_table *t, uint64_t line)
{
    return (uint32_t)((line * 0x9e3779b97f4a7c15ull) >> 32) & t->index_mask;
}

/* The entry of `line` (at most one: an entry is allocated only where none is). */
static inline sim_mshr *mshr_find(mshr_table *t, uint64_t line)
{
    if (!t->used)
        return NULL;
    for (uint32_t i = mshr_hash(t, line);; i = (i + 1) & t->index_mask) {
        uint32_t v = t->index[i];
        if (!v)
            return NULL;
        if (t->entries[v - 1].line == line)
            return &t->entries[v - 1];
    }
}

static inline sim_mshr *mshr_alloc(mshr_table *t, uint64_t line)
{
    if (t->used >= t->capacity || !t->free_count)
        return NULL;
    uint32_t id = t->free_ids[--t->free_count];
    sim_mshr *m = &t->entries[id];
    memset(m, 0, sizeof *m);
    m->in_use = 1;
    m->line = line;
    m->waiters = -1;
    t->used++;
    uint32_t i = mshr_hash(t, line);
    while (t->index[i])
        i = (i + 1) & t->index_mask;
    t->index[i] = id + 1;
    return m;
}

static inline void mshr_release(mshr_table *t, sim_mshr *m)
{
    uint32_t id = (uint32_t)(m - t->entries);
    m->in_use = 0;
    t->used--;
    t->free_ids[t->free_count++] = id;
    uint32_t i = mshr_hash(t, m->line);
    while (t->index[i] != id + 1)
        i = (i + 1) & t->index_mask;
    /* backward-shift deletion keeps every probe chain unbroken */
    uint32_t hole = i;
    for (uint32_t j = (i + 1) & t->index_mask; t->index[j]; j = (j + 1) & t->index_mask) {
        uint32_t home = mshr_hash(t, t->entries[t->index[j] - 1].line);
        int in_range = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!in_range) {
            t->index[hole] = t->index[j];
            hole = j;
        }
    }
    t->index[hole] = 0;
}

/* ------------------------------------------------------------------------- */
/* The LSU (lsu.c): set-up, and what l1d.c calls back                        */

int sim_lsu_create(sim_engine *e, sim_sm *sm, gd_err *err);
void sim_lsu_destroy(sim_sm *sm);
/* A kernel boundary: invalidate the L1. */
void sim_lsu_launch_begin(sim_engine *e, sim_sm *sm);
/* Something that can turn a refusal into a success happened (a fill; a
 * miss-queue slot freed when a refusal wanted one): the tags take probes again
 * from cycle `next_probe`, and the cycles slept are accounted for. */
void sim_lsu_wake(sim_engine *e, sim_sm *sm, uint64_t next_probe);
/* Hands one event about request `r` to the trace hook (call only when set). */
void sim_lsu_trace(sim_engine *e, const sim_sm *sm, const sim_request *r, sim_lsu_event_kind kind,
                   sim_resv_reason reason, uint64_t cycle);

#define SIM_LSU_TRACE(e, sm, r, kind, reason, cycle)                                           \
    do {                                                                                       \
        if ((e)->lsu_trace)                                                                    \
            sim_lsu_trace((e), (sm), (r), (kind), (reason), (cycle));                          \
    } while (0)

/* The LSU can move this cycle: a fill to write, a message to send, a probe to
 * make, or a request the coalescer can enqueue. */
static inline int sim_lsu_has_work(const sim_sm *sm)
{
    const sim_lsu *lsu = sm->lsu;
    if (lsu->returns.count || lsu->miss_queue.count)
        return 1;
    if (lsu->fifo.count && !lsu->asleep)
        return 1;
    return lsu->coalesce_count && !ring_full(&lsu->fifo) &&
           !(lsu->reorder && lsu->asleep && lsu->tail_ports < 2);
}

/* ------------------------------------------------------------------------- */
/* The L1D (l1d.c): what the tags, MSHRs and fills do with one request       */

/* The FIFO head probes the tags at `cycle`: a hit completes, a miss or a merge
 * joins an MSHR and sends what is missing to the miss queue, a store or an
 * L1-bypassing load goes to the miss queue.  Returns SIM_RESV_NONE when the
 * request may leave the FIFO, else why it was refused (nothing changed). */
sim_resv_reason sim_l1d_probe(sim_engine *e, sim_sm *sm, int32_t rid, uint64_t cycle);
/* The request's data is visible at data_cycle; frees it. */
void sim_request_complete(sim_engine *e, int32_t rid, uint64_t data_cycle);


/* ------------------------------------------------------------------------- */
/* Below the L1 (issue 12): the L2 as slices and partitions (l2_slice.c)     */

struct sim_l2_slice {
    sim_cache *cache;          /* slice 0: the memsys' `l2` */
    sim_cache own_cache;
    mshr_table *mshr;          /* slice 0: the memsys' `l2_mshr` */
    mshr_table own_mshr;
    ring *input;               /* arrivals in order (one slice: the memsys' l2_input) */
    ring own_input;
    int blocked;               /* its head was refused: waits for a fill */
    int busy;                  /* listed in the memsys' busy_slices */
};

int sim_l2_slices_create(sim_engine *e, gd_err *err);
void sim_l2_slices_destroy(sim_engine *e);

/* The crossbar and the slices for one cycle: DRAM fills already written, the
 * arrivals routed to their slices (the crossbar's requests_per_cycle), each
 * slice serving its queue (slice_requests_per_cycle) until one is refused. */
void sim_l2_tick(sim_engine *e, uint64_t cycle);
/* A DRAM read's data for the slice that asked (msg->slice). */
void sim_l2_fill(sim_engine *e, int32_t mid, uint64_t cycle);
/* The earliest cycle >= now at which the slices or the crossbar can move. */
uint64_t sim_l2_next_event(const sim_engine *e, uint64_t now);
/* Hands a response to its SM now, or to the delay heap when it carries extra
 * cycles (a TLB miss, a far hit). */
void sim_l2_respond(sim_engine *e, int32_t mid, uint64_t cycle);

/* ------------------------------------------------------------------------- */
/* Address translation (tlb.c)                                               */

struct sim_tlbs {
    sim_cache *l1;             /* one per SM ([TLB1]) */
    uint32_t sm_count;
    sim_cache l2;              /* the chip's ([TLB2]); present when has_l2 */
    int has_l2;
    uint32_t l1_miss_cycles;   /* [TLB1] latency - [DRAM] latency */
    uint32_t l2_miss_cycles;   /* [TLB2] latency - [TLB1] latency */
};

/* NULL in ms->tlbs when the arch has no [TLB1]. */
int sim_tlbs_create(sim_engine *e, gd_err *err);
void sim_tlbs_destroy(sim_engine *e);
/* Looks the page of `addr` up for SM `sm` (installing it where it missed);
 * returns the cycles the translation adds to the access. */
uint32_t sim_tlb_translate(sim_engine *e, uint32_t sm, uint64_t addr);

/* ------------------------------------------------------------------------- */
/* The memory controllers and DRAM (dram.c)                                  */

/* NULL in ms->dram (the fixed-latency DRAM) unless [DRAM] has channels. */
int sim_dram_create(sim_engine *e, gd_err *err);
void sim_dram_destroy(sim_engine *e);
/* A read (fill for an L2 slice) or a write-back leaves the L2 at `cycle`. */
void sim_dram_submit(sim_engine *e, int32_t mid, uint64_t cycle);
/* Schedules the banks and hands finished reads to the L2 (sim_l2_fill). */
void sim_dram_tick(sim_engine *e, uint64_t cycle);
/* The earliest cycle >= now at which DRAM can move; SIM_NEVER when idle. */
uint64_t sim_dram_next_event(const sim_engine *e, uint64_t now);
/* Requests queued or in flight. */
int sim_dram_busy(const sim_engine *e);
/* ------------------------------------------------------------------------- */
/* PCM main memory's side (pcm.c, issue 13): the write buffer and row counts  */
/* NULL in ms->pcm unless the arch has [WB] size or [DRAM] kind = pcm. */
int sim_pcm_create(sim_engine *e, gd_err *err);
void sim_pcm_destroy(sim_engine *e);
/* A message leaving the L2 for main memory: counts its row's writes; with a
 * write buffer, serves or absorbs it and returns 1 (it no longer goes to the
 * channels as is); 0: submit it to the channels. */
int sim_pcm_submit(sim_engine *e, int32_t mid, uint64_t cycle);
/* A read's data came back from the channels: the L2's, or a buffer row read. */
void sim_mainmem_read_done(sim_engine *e, int32_t mid, uint64_t cycle);
/* Buffer hits whose data is due: to the L2. */
void sim_pcm_tick(sim_engine *e, uint64_t cycle);
uint64_t sim_pcm_next_event(const sim_engine *e, uint64_t now);
int sim_pcm_busy(const sim_engine *e);
/* Dirty bytes the write buffer holds (PCM writes still to come). */
uint64_t sim_pcm_held_dirty_bytes(const sim_engine *e);
/* The rows written at main memory's input, for counters and the Figure-2 CSV. */
const struct sim_row_writes *sim_pcm_row_writes(const sim_engine *e);

/* ------------------------------------------------------------------------- */
/* The L1's store policy (l1d_store.c)                                       */

/* The granules (fine_bytes each) of a store request's `granules` that its
 * lanes write only part of; the coalescer (lsu.c) records them in `partial`. */
uint32_t sim_store_partial_granules(const sim_mem_access *acc, uint64_t line_addr,
                                    uint32_t line_bytes, uint32_t fine_bytes, uint32_t granules);
/* The granules of store `r` that go on to the L2 now: all of them, unless
 * [L1D] write_back holds them (the L1 sectors they cover, where a way can be
 * had).  Changes nothing. */
uint32_t sim_l1d_store_through(sim_engine *e, sim_sm *sm, const sim_request *r);
/* What a store does to the L1 line it writes: touch a present line; with
 * [L1D] write_allocate or write_back, also make the L1 sectors it covers valid
 * (write_back: and dirty), installing the line if absent (no fetch; a dirty
 * victim is written back). */
void sim_l1d_store_update(sim_engine *e, sim_sm *sm, const sim_request *r);
/* A dirty L1 line leaves (eviction): its dirty sectors go to the miss queue as
 * stores, past its limit (the eviction's own buffer), one message a cycle. */
void sim_l1d_writeback_line(sim_engine *e, sim_sm *sm, const sim_cache_line *l);
/* Kernel end: every dirty line of the SM's L1 goes to the L2 at once. */
void sim_l1d_writeback_all(sim_engine *e, sim_sm *sm);
/* l1d.c: emits the store messages for `sectors` (granules of `sb` bytes) of
 * the L1 line at line_addr into the miss queue (past its limit); returns how
 * many, or would emit when !emit. */
uint32_t sim_l1d_store_messages(sim_engine *e, sim_sm *sm, uint64_t line_addr, uint32_t sectors,
                                uint32_t sb, int partial, int emit);

/* ------------------------------------------------------------------------- */
/* The L2's store policy (l2_store.c)                                        */

/* Store message `mid` at slice `slice` (line number `line`, slice key `key`):
 * write-back, with [L2] write_allocate (sector | line | none) and
 * partial_write (validate | fetch | mask).  PROBE_FAIL when it must wait (no
 * way or no MSHR); else the message is consumed. */
int sim_l2_store(sim_engine *e, uint32_t slice, int32_t mid, uint64_t line, uint64_t key,
                 uint64_t cycle);
/* A store of [addr, addr + bytes) from SM `sm` reaches the L2 at once (a
 * write-back L1's kernel-end flush). */
void sim_l2_store_now(sim_engine *e, uint32_t sm, uint64_t addr, uint32_t bytes, uint64_t cycle);
/* l2_slice.c: a read (fill) or write-back between slice `slice` and memory;
 * a victim of the near slice leaving (to the far partition or memory). */
void sim_l2_dram_message(sim_engine *e, uint32_t slice, uint64_t line, uint32_t sectors,
                         int is_store, uint64_t cycle);
void sim_l2_evict_near(sim_engine *e, uint32_t slice, sim_cache_line *v, uint64_t cycle);

#endif
