/* memsys.h -- the records the two halves of the simulated memory path share.
 *
 *   lsu.c     per SM: coalescer, L1 request FIFO, L1D tags, MSHRs, miss queue,
 *             fills and load completion
 *   memsys.c  per chip: the L2, its MSHRs, DRAM, the pools every request and
 *             message lives in, the global tick and the event horizon
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
#include "sim/ring.h"

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
    uint16_t index;            /* its place in its instruction's coalescer order */
    int32_t load;              /* sim_load index, -1 for stores */
    int32_t next;              /* free list / MSHR waiter chain */
    uint64_t instr_seq;        /* the SM's memory instruction it belongs to */
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
    /* L1 sectors larger than an L2 line come back in several pieces (one per
     * L2 line): pieces still to arrive per sector, 0 before its first piece */
    uint8_t pieces_left[32];
    uint32_t merged;
    int32_t waiters;
    int in_use;
} sim_mshr;

typedef struct mshr_table {
    sim_mshr *entries;
    uint32_t capacity, used;
    uint32_t merge_limit;
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
    int l2_blocked;
    uint64_t l2_slot_cycle;    /* requests_per_cycle bookkeeping */
    uint32_t l2_slot_used;
    ring dram_queue;           /* in ready order */
    uint64_t dram_slot_cycle;
    uint32_t dram_slot_used;

    uint32_t l1_to_l2_cycles;  /* L2 - L1 */
    uint32_t l2_to_dram_cycles;/* DRAM - L2 */
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

/* -1 (after sim_engine_fail) when the host is out of memory. */
int32_t sim_request_new(sim_engine *e);
void sim_request_free(sim_memsys *ms, int32_t id);
int32_t sim_msg_new(sim_engine *e);
void sim_msg_free(sim_memsys *ms, int32_t id);

/* ------------------------------------------------------------------------- */
/* MSHR tables (L1 and L2)                                                   */

static inline int mshr_init(mshr_table *t, uint32_t capacity, uint32_t merge_limit)
{
    t->entries = calloc(capacity, sizeof *t->entries);
    t->capacity = capacity;
    t->used = 0;
    t->merge_limit = merge_limit;
    return t->entries ? 0 : -1;
}

static inline sim_mshr *mshr_find(mshr_table *t, uint64_t line)
{
    if (!t->used)
        return NULL;
    for (uint32_t i = 0; i < t->capacity; i++)
        if (t->entries[i].in_use && t->entries[i].line == line)
            return &t->entries[i];
    return NULL;
}

static inline sim_mshr *mshr_alloc(mshr_table *t, uint64_t line)
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

static inline void mshr_release(mshr_table *t, sim_mshr *m)
{
    m->in_use = 0;
    t->used--;
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

#endif
