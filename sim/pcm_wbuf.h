/* pcm_wbuf.h -- the dedicated write buffer between the L2 and phase-change
 * main memory (seed 003: Mu, Shan, Deng, Wang, "Evaluating and Optimizing of
 * PCM Based GPU Memory Architecture", section 4.1 and Figure 3).
 *
 * The buffer holds whole memory rows (1 KiB in the paper) and a manager with
 * two ordered lists, *active* and *inactive*, head = most frequently written.
 * Together the lists hold as many entries as the data store has rows.  The
 * rules, as the paper gives them:
 *
 *   hit, read                  nothing changes;
 *   hit, write, active row     the row moves one place toward the head;
 *   hit, write, inactive row   the row goes to the active tail, the old active
 *                              tail to the inactive head, and the inactive rows
 *                              that were ahead of it shift one place right;
 *   miss                       the row is read from PCM into the buffer; when the
 *                              buffer is full the inactive tail is evicted; the
 *                              new row enters at the active tail, the old active
 *                              tail moves to the inactive head and the inactive
 *                              list shifts one place right.
 *
 * What the paper leaves open, and what this model chooses (each an arch key
 * where it is a number, documented in sim/README.md):
 *   - how the rows split between the lists: `active_rows` (default half);
 *   - whether an evicted row that was never written is written back: it is not
 *     (its PCM copy is current); only dirty rows cost a PCM write;
 *   - whether a miss allocates for reads as well as writes: it does (the paper:
 *     "the data read from PCM is stored in the buffer").
 *
 * The structure is list arithmetic only: timing (buffer hit latency, PCM row
 * reads and writes) belongs to the main-memory model that calls it.  Each
 * access costs O(rows): lists are arrays shifted in place, as the hardware's
 * would be; the row count is bounded by the arch validator.
 */
#ifndef GD_SIM_PCM_WBUF_H
#define GD_SIM_PCM_WBUF_H

#include <stdint.h>

#include "host/device.h"

typedef enum sim_wbuf_op {
    SIM_WBUF_HIT_READ,         /* a read of a buffered row: lists unchanged */
    SIM_WBUF_HIT_WRITE_ACTIVE, /* a write to an active row: one place toward the head */
    SIM_WBUF_HIT_WRITE_INACTIVE, /* a write to an inactive row: promoted to the active tail */
    SIM_WBUF_MISS,             /* a row brought in from PCM at the active tail */
    SIM_WBUF_EVICT             /* the inactive tail written back (dirty) or dropped */
} sim_wbuf_op;

/* One list operation, for the trace (`run --trace`) and the tests that replay
 * the paper's rules.  `from`/`to` are positions (0 = head) in the lists named. */
typedef struct sim_wbuf_event {
    uint64_t seq;        /* access number, from 0 */
    sim_wbuf_op op;
    uint64_t row;        /* the row the access or the eviction concerns */
    int from_active;     /* the list the row was in (hits) */
    uint32_t from, to;   /* positions before and after */
    int dirty;           /* EVICT: the row was written while buffered */
} sim_wbuf_event;

typedef void (*sim_wbuf_trace_fn)(void *user, const sim_wbuf_event *ev);

typedef struct sim_wbuf_counters {
    uint64_t read_hits, read_misses, write_hits, write_misses;
    uint64_t evictions, dirty_evictions; /* dirty evictions are the PCM writes the buffer makes */
    uint64_t promotions;                 /* inactive -> active moves */
} sim_wbuf_counters;

typedef struct sim_wbuf_row {
    uint64_t row;
    uint8_t dirty;
    uint32_t mask;       /* its 32-byte sectors written while buffered (sim/pcm.c) */
} sim_wbuf_row;

typedef struct sim_wbuf {
    uint32_t rows, active_cap, inactive_cap;
    uint32_t n_active, n_inactive;
    sim_wbuf_row *active, *inactive; /* [0] = head */
    uint64_t seq;
    sim_wbuf_counters c;
    sim_wbuf_trace_fn trace;
    void *trace_user;
} sim_wbuf;

/* rows >= 2; 1 <= active_rows < rows (0: half of rows, rounded up). */
int sim_wbuf_init(sim_wbuf *wb, uint32_t rows, uint32_t active_rows, gd_err *err);
void sim_wbuf_free(sim_wbuf *wb);

/* The result of one access: whether it hit, and the row evicted (if any) with
 * whether it must be written to PCM. */
typedef struct sim_wbuf_result {
    int hit;
    int evicted;
    uint64_t evicted_row;
    int evicted_dirty;
    uint32_t evicted_mask;   /* the evicted row's written sectors */
} sim_wbuf_result;

sim_wbuf_result sim_wbuf_access(sim_wbuf *wb, uint64_t row, int is_write);
/* The same, a write marking `mask` (the row's 32-byte sectors it covers) dirty. */
sim_wbuf_result sim_wbuf_access_mask(sim_wbuf *wb, uint64_t row, int is_write, uint32_t mask);
/* Whether the row is buffered (either list); changes nothing. */
int sim_wbuf_contains(const sim_wbuf *wb, uint64_t row);
/* Dirty sectors the buffer holds now (written to PCM only when evicted). */
uint64_t sim_wbuf_dirty_sectors(const sim_wbuf *wb);

/* PCM writes a buffer saved: writes that reached it less the row writes it made. */
uint64_t sim_wbuf_writes_avoided(const sim_wbuf *wb);

#endif
