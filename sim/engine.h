/* engine.h -- internal state of the simulated GPU, shared by its parts.
 *
 *   gpu.c      the cycle loop: CTAs onto SMs, warp schedulers, issue, event skipping
 *   exec.c     what each PTX instruction computes (functional model, per lane)
 *   lsu.c      the load/store unit of an SM: coalescer, L1 request FIFO, the order
 *              requests reach the tags (CN110457238A reorder / pipelined issue)
 *   l1d.c      the L1D's answer to one request: tags, MSHRs, miss queue, fills
 *   memsys.c   the chip's side of the memory path: L2, DRAM, the global tick
 *   smem.c     shared-memory banks and conflict replays
 *
 * The simulator is functional-first: an instruction's results are computed when
 * it issues, and the timing model decides only *when* they become visible (the
 * scoreboard holds a loaded register "not ready" until the memory path says the
 * data has returned).  This is exact for the race-free kernels gpudissect runs
 * and keeps the timing model free to be as detailed as the arch file asks.
 */
#ifndef GD_SIM_ENGINE_H
#define GD_SIM_ENGINE_H

#include <stdint.h>

#include "analysis/arch.h"
#include "sim/cache.h"
#include "sim/devmem.h"
#include "sim/ptx.h"

#define SIM_NEVER UINT64_MAX
#define SIM_WARP_LANES 32
#define SIM_INSN_BYTES 16 /* code bytes per instruction, as SASS on sm_70 and later */

typedef struct sim_engine sim_engine;
typedef struct sim_sm sim_sm;
typedef struct sim_cta sim_cta;

typedef enum warp_state { WARP_FREE, WARP_RUNNING, WARP_BARRIER, WARP_DONE } warp_state;

typedef struct sim_warp {
    /* hot */
    uint32_t pc;              /* when converged */
    uint32_t alive;           /* lanes that exist and have not exited */
    uint8_t diverged;
    uint8_t state;            /* warp_state */
    uint8_t scoreboard_clear; /* the instruction at pc may issue at ready_cycle */
    uint8_t lsu_parked;       /* refused by a full LSU: ready_cycle SIM_NEVER until it frees */
    uint16_t subpartition;
    uint64_t ready_cycle;     /* earliest cycle of the next issue */
    uint64_t *regs;           /* reg_count x 32 lanes, reg-major */
    uint64_t *reg_ready;      /* cycle each register's value becomes visible */
    uint32_t lane_pc[SIM_WARP_LANES];
    /* identity */
    sim_cta *cta;
    uint32_t warp_in_cta;
    uint32_t slot;            /* %warpid: index of the warp slot in its SM */
    uint16_t tid[SIM_WARP_LANES][3];
    uint32_t pending_loads;
    uint64_t age;             /* launch order, for oldest-first scheduling */
    uint64_t fetch_line;      /* the instruction line it is executing from (fetch.c) */
    uint32_t fetch_pc_lo, fetch_pc_hi; /* the instructions [lo, hi) in that line: gpu.c's
                                        * test for a new line, without the address */
    uint64_t *sub_ready;      /* its sub-partition's sim_sm.sub_ready */
    uint64_t *sm_quiet;       /* its SM's entry in sim_engine.sm_quiet */
} sim_warp;

/* Sets when w may issue next, from outside its issue (a load completing, the
 * LSU freeing, a barrier or a launch): its sub-partition's bound follows. */
static inline void sim_warp_ready_at(sim_warp *w, uint64_t cycle)
{
    w->ready_cycle = cycle;
    if (cycle < *w->sub_ready)
        *w->sub_ready = cycle;
    if (cycle < *w->sm_quiet)
        *w->sm_quiet = cycle;
}

struct sim_cta {
    int in_use;
    uint32_t id[3];           /* %ctaid */
    uint32_t warps_total;
    uint32_t warps_done;
    uint32_t warps_at_barrier;
    uint8_t *shared;          /* static + dynamic shared memory of this CTA */
    uint32_t shared_bytes;
    sim_warp **warps;
};

/* One memory access of a warp instruction, as computed by exec.c. */
typedef struct sim_mem_access {
    uint32_t mask;            /* lanes that access */
    uint8_t space;            /* ptx_space */
    uint8_t is_store;
    uint8_t bypass_l1;        /* ld.cg / ld.cv / volatile: cached in L2 only */
    uint8_t size;             /* bytes per lane */
    uint8_t dst_more;         /* ld .v2/.v4: destination registers besides the first */
    uint16_t dst_regs[3];     /* ... which they are */
    uint64_t addr[SIM_WARP_LANES];
} sim_mem_access;

typedef struct sim_lsu sim_lsu;  /* lsu.c: the load/store unit of one SM */

struct sim_sm {
    uint32_t id;
    sim_warp *warps;          /* max_warps_per_sm slots */
    sim_cta *ctas;            /* max_ctas_per_sm slots */
    uint32_t ctas_resident;
    uint32_t warps_resident;
    uint32_t shared_used;
    sim_warp **sub_warps;     /* per subpartition: warps_per_sub pointers, in age order */
    uint32_t *sub_count;      /* per subpartition */
    uint32_t *sub_last;       /* per subpartition: index of the last issued warp (greedy) */
    uint64_t *sub_ready;      /* per subpartition: no running warp of it is ready before this
                               * cycle (exact after a look at them all that issued nothing;
                               * lowered by sim_warp_ready_at) */
    uint32_t sub_nonempty;    /* bit s: subpartition s has warps */
    uint64_t smem_busy_until; /* shared-memory pipe */
    sim_lsu *lsu;
    int active;               /* on the engine's active list */
    int ran_ctas;             /* got a CTA in the current launch */
    uint32_t ctas_finished;   /* CTAs whose warps all exited, not yet retired */
};

/* Why the L1 refused a request this cycle (a reservation fail). */
typedef enum sim_resv_reason {
    SIM_RESV_NONE,        /* not refused */
    SIM_RESV_SET,         /* every way of its set is reserved by a pending fill */
    SIM_RESV_MSHR,        /* no free MSHR for a new missing line */
    SIM_RESV_MERGE,       /* its line's MSHR has merged mshr_merge requests already */
    SIM_RESV_MISS_QUEUE,  /* not enough miss-queue slots towards the L2 */
    SIM_RESV_REASONS
} sim_resv_reason;

typedef struct sim_stats {
    uint64_t warp_insns;
    uint64_t loop_iterations;  /* cycles the engine actually visited (the rest were skipped) */
    uint64_t cycles;
    uint64_t sm_cycles;        /* cycles x SMs that ran CTAs, per launch */
    uint64_t launches;
    uint64_t l1d_hits, l1d_misses, l1d_sector_misses, l1d_merges;
    uint64_t l1d_resv_fails;   /* refused tag probes: every cycle a request is refused counts */
    uint64_t l1d_resv_by_reason[SIM_RESV_REASONS];
    uint64_t l1d_requeues;     /* reorder: refused heads moved to the FIFO tail */
    uint64_t l1d_hol_cycles;   /* cycles a refused head kept other requests waiting behind it */
    uint64_t l1d_fifo_occupancy_sum, l1d_fifo_max;
    uint64_t lsu_coalescer_stall_cycles; /* the coalescer could not enqueue (full, or tail taken) */
    uint64_t lsu_issue_stall_cycles;     /* a memory instruction waited for the LSU to accept it */
    uint64_t coalesced_requests, coalesced_sectors; /* L1 lines and 32-B sectors, global ld/st */
    uint64_t l2_hits, l2_misses;
    uint64_t dram_reads, dram_writes;
    /* below the L1 (issue 12): counted only where the arch has the part */
    uint64_t l2_far_hits;      /* L2 hits served by the far partition */
    uint64_t tlb1_misses, tlb2_misses;
    uint64_t dram_row_hits, dram_row_misses, dram_row_conflicts; /* closed bank: miss */
    uint64_t dram_queue_occupancy_sum; /* queued requests, summed at each scheduling step */
    uint64_t dram_queue_samples;
    uint64_t dram_bus_busy_cycles;     /* data-bus cycles, all channels */
    uint64_t dram_turnarounds;         /* a read after a write or a write after a read, per channel */
    /* PCM and its write buffer (issue 13, pcm.c): counted where the arch has them */
    uint64_t wb_read_hits, wb_read_misses, wb_write_hits, wb_write_misses;
    uint64_t wb_evictions, wb_dirty_evictions, wb_promotions;
    uint64_t wb_read_bypasses;         /* [WB] read_bypass: read misses sent on as they are */
    uint64_t pcm_array_writes;         /* write commands that held a PCM bank */
    uint64_t pcm_write_bytes;          /* bytes those writes carried (the energy counter) */
    uint64_t mem_writes_in;            /* writes reaching main memory (before the buffer) */
    uint64_t mem_write_bytes_in;       /* their bytes (dirty sectors) */
    uint64_t mem_write_bytes_out;      /* bytes written to the memory array (after the buffer) */
    /* the store path (issue 12; l1d_store.c, l2_store.c) */
    uint64_t l1d_writebacks;           /* [L1D] write_back: dirty lines written to the L2 */
    uint64_t l1d_writeback_sectors;    /* their dirty L1 sectors */
    uint64_t l1d_end_writebacks;       /* of those lines, written at a kernel's end */
    uint64_t l2_partial_writes;        /* L2 sectors a store wrote only part of */
    uint64_t l2_write_fetches;         /* L2 sectors read from memory for stores */
    uint64_t l2_write_bypasses;        /* [L2] write_allocate = none: stores that missed */
    uint64_t smem_accesses, smem_replays;
    uint64_t global_loads, global_stores;
    uint64_t ifetch_misses[GD_LEVEL_COUNT]; /* instruction lines not found at a level */
    uint64_t ifetch_hits[GD_LEVEL_COUNT];
    uint64_t const_accesses, const_misses[GD_LEVEL_COUNT], const_hits[GD_LEVEL_COUNT];
} sim_stats;

/* The LSU's life, request by request, for tests and traces.  A request is named
 * by its SM, its memory instruction (the SM's sequence number, from 1) and its
 * index in that instruction's coalescer order: the patent's req-a4 is
 * {instr of a, 4}. */
typedef enum sim_lsu_event_kind {
    SIM_LSU_ACCEPT,       /* the LSU took a memory instruction; `request` = its request count */
    SIM_LSU_ENQUEUE,      /* the coalescer put the request at the FIFO tail */
    SIM_LSU_HIT,          /* the tags hold all its sectors */
    SIM_LSU_MISS,         /* allocated a line (reserved until filled) and an MSHR */
    SIM_LSU_MERGE,        /* joined the MSHR of a line already being filled */
    SIM_LSU_SEND,         /* a store or an L1-bypassing load went to the miss queue */
    SIM_LSU_RESV_FAIL,    /* refused this cycle; `reason` says why */
    SIM_LSU_REQUEUE,      /* reorder: the refused head went to the FIFO tail */
    SIM_LSU_POP,          /* left the FIFO */
    SIM_LSU_FILL,         /* its data arrived in the L1 (or from the L2, bypassing it) */
    SIM_LSU_EVENT_KINDS
} sim_lsu_event_kind;

typedef struct sim_lsu_event {
    uint64_t cycle;
    uint64_t instr;
    uint64_t line_addr;
    uint32_t sm;
    uint32_t set;         /* L1 set of the line */
    uint16_t request;
    uint8_t kind;         /* sim_lsu_event_kind */
    uint8_t reason;       /* sim_resv_reason, for SIM_LSU_RESV_FAIL */
} sim_lsu_event;

typedef void (*sim_lsu_trace_fn)(void *user, const sim_lsu_event *event);
struct sim_wbuf_event; /* sim/pcm_wbuf.h */
const char *sim_lsu_event_name(sim_lsu_event_kind kind);
const char *sim_resv_reason_name(sim_resv_reason reason);

/* The cache instances of one level: one per sub-partition, per SM or for the
 * chip, as the arch file's `scope` says (fetch.c, constant.c). */
typedef struct sim_level_caches {
    int present;
    gd_scope scope;
    uint32_t count;
    sim_cache *inst;          /* owned unless `shared` */
    int shared;               /* inst belongs to another level (shared_with) */
    uint32_t latency;
    uint32_t prefetch;
} sim_level_caches;

/* Address spaces of the instruction and constant paths: tags above any device
 * address, so that code, constants and data never alias in the unified L2. */
#define SIM_ISPACE (1ull << 60)
#define SIM_CSPACE (2ull << 60)

typedef struct sim_launch_config {
    const ptx_module *module;
    const ptx_kernel *kernel;
    uint64_t code_base;       /* instruction address of the kernel's first instruction */
    uint64_t const_base;      /* constant-space address of the module's bank */
    uint64_t param_base;      /* constant-space address of the parameter bank */
    uint32_t grid[3];
    uint32_t block[3];
    uint32_t dynamic_shared_bytes;
    int carveout_percent;     /* the kernel's preferred L1/shared carve-out (0: most L1) */
    const uint8_t *params;    /* kernel->param_bytes bytes, laid out as the PTX declares */
    const uint8_t *const_bank;
    uint32_t const_bytes;
} sim_launch_config;

typedef struct sim_memsys sim_memsys; /* memsys.c: L2, DRAM, the request pools */

struct sim_engine {
    const gd_arch *arch;
    sim_devmem *mem;
    sim_sm *sms;
    uint32_t sm_count;
    sim_memsys *memsys;
    uint64_t cycle;
    uint64_t next_wake;       /* earliest future cycle something asked to be woken */
    uint64_t memsys_due;      /* earliest cycle the memory system has work (its ticks are
                               * skipped before it; an issue to the LSU sets it to now) */
    sim_stats stats;
    uint64_t max_cycles;      /* watchdog per launch */
    int look_at_every_warp;   /* ignore sim_sm.sub_ready (GPUDISSECT_SIM_LOOK_AT_EVERY_WARP=1) */
    uint64_t noise_rng;       /* [noise]: seeded timing noise on load completions */
    int noise_on;
    sim_level_caches lc[GD_LEVEL_COUNT]; /* instruction and constant caches */
    /* hook (tests, traces): every LSU event goes to lsu_trace when it is set */
    sim_lsu_trace_fn lsu_trace;
    void *lsu_trace_user;
    /* hook: the PCM write buffer's list operations (sim/pcm_wbuf.h) */
    void (*wbuf_trace)(void *user, const struct sim_wbuf_event *event);
    void *wbuf_trace_user;
    int ifetch_on;            /* the arch has instruction caches */
    gd_level_id ifetch_first; /* the first of them (L0I, or L1I without an L0) */

    /* the current launch */
    const sim_launch_config *launch;
    const ptx_insn *insns;    /* launch->kernel->insns, one load nearer the issue loop */
    uint32_t insn_count;
    uint32_t warps_per_cta;
    uint32_t shared_per_cta;
    gd_carveout_choice carveout; /* the split the driver's rule gives this launch */
    uint64_t ctas_total;
    uint64_t ctas_launched;
    uint64_t ctas_done;
    uint64_t warp_age;
    sim_sm **active_sms;
    uint32_t *active_ids;     /* active_sms[i]->id, side by side: the loop and the
                               * event horizon pass a quiet SM by without reading
                               * its struct (one host cache line per SM a cycle) */
    /* per SM (by id), side by side so that the loop reads no SM's own memory
     * to pass it by: a cycle before which its step would do nothing -- every
     * LSU queue empty, no CTA to retire or place, no warp of it ready -- so
     * the loop skips it and takes this as its wake (what its sub-partitions'
     * bounds would give).  0: visit.  Set after each step of it; lowered by
     * sim_warp_ready_at, zeroed by a response handed to its LSU (l2_slice.c) */
    uint64_t *sm_quiet;
    uint32_t active_sm_count;
    /* gpu.c's lone warp as the SMs' population makes it (one active SM, one
     * warp, every CTA placed): recomputed only when lone_stale says a CTA was
     * placed or retired, a warp exited or an SM went idle */
    struct sim_warp *lone_cand;
    int lone_stale;
    int failed;
    gd_err *err;
};

/* sim_device.c: the engine behind an open "sim:ARCH" device (NULL for any other
 * device), for tests and traces that set the hooks above. */
sim_engine *sim_device_engine(gd_device *dev);

/* gpu.c */
/* Counters of work done elsewhere (a sweep point run in a forked copy of the
 * engine, host/sweep_workers.c): delta = after - before, and to += delta;
 * l1d_fifo_max, a maximum, is carried as one. */
void sim_stats_delta(const sim_stats *after, const sim_stats *before, sim_stats *delta);
void sim_stats_add(sim_stats *to, const sim_stats *delta);
/* Moves the noise generator ([noise]) by `salt`: a sweep point run from a
 * copy of the engine draws its own jitter, a function of the point alone. */
void sim_engine_salt_noise(sim_engine *e, uint64_t salt);
int sim_engine_create(const gd_arch *arch, sim_devmem *mem, sim_engine **out, gd_err *err);
void sim_engine_destroy(sim_engine *e);
int sim_engine_run(sim_engine *e, const sim_launch_config *launch, gd_err *err);
int sim_engine_fail(sim_engine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline void sim_engine_wake_at(sim_engine *e, uint64_t cycle)
{
    if (cycle < e->next_wake)
        e->next_wake = cycle;
}

/* cta.c: placing CTAs on an SM and retiring them (called by gpu.c's loop) */
int sim_cta_fits(const sim_engine *e, const sim_sm *sm);
/* places CTA number `linear` of the launch on sm: 0, or -1 after sim_engine_fail */
int sim_cta_launch(sim_engine *e, sim_sm *sm, uint64_t linear, uint64_t cycle);
/* retires sm's CTAs whose warps all exited and drained their loads; places more */
void sim_sm_retire_ctas(sim_engine *e, sim_sm *sm, uint64_t cycle);
/* releases a CTA's warps waiting at bar.sync once every live warp is there */
void sim_cta_barrier_check(sim_engine *e, sim_cta *cta, uint64_t cycle);
/* w exited (its last lane): off its sub-partition, counted in its CTA */
void sim_warp_finish(sim_engine *e, sim_sm *sm, sim_warp *w, uint64_t cycle);

/* exec.c: computes insn for the lanes in `mask`; for ld/st also performs the
 * functional access and fills `acc`.  Returns 0, or -1 after sim_engine_fail. */
int sim_exec(sim_engine *e, sim_sm *sm, sim_warp *w, const ptx_insn *in, uint32_t mask,
             sim_mem_access *acc);
/* Value of a special register for one lane. */
uint64_t sim_sreg_value(const sim_engine *e, const sim_sm *sm, const sim_warp *w, unsigned lane,
                        ptx_sreg sreg);

/* fetch.c: instruction fetch through L0I / L1I / L15I / L2 */
int sim_fetch_create(sim_engine *e, gd_err *err);
void sim_fetch_destroy(sim_engine *e);
void sim_fetch_launch_begin(sim_engine *e);
/* The cycle at which warp w can have the instruction at `pc` (the current cycle
 * when it is already fetched). */
uint64_t sim_fetch(sim_engine *e, sim_sm *sm, sim_warp *w, uint32_t pc, uint64_t cycle);

/* Cycles to bring the line at `addr` into levels[from..]: looks each present
 * level up in order (instances by scope), then the L2 and DRAM; installs the
 * line in the levels that lacked it; counts per-level hits and misses. */
uint64_t sim_path_lookup(sim_engine *e, const gd_level_id *levels, size_t count, size_t from,
                         uint32_t sm, uint32_t sub, uint64_t addr, uint32_t bytes, uint64_t cycle,
                         uint64_t *hits, uint64_t *misses);

/* constant.c: ld.const / ld.param through L1C / L15C / L2 */
/* Cycles until the loaded value is visible: one lookup per distinct address,
 * serialized. */
uint64_t sim_const_access(sim_engine *e, sim_sm *sm, sim_warp *w, const sim_mem_access *acc,
                          uint64_t cycle);

/* memsys.c */
/* Looks [addr, addr+bytes) up in the L2 (installing what is missing, as a fill
 * from DRAM would) for the instruction and constant paths: 1 if all was there. */
int sim_l2_lookup_fill(sim_engine *e, uint64_t addr, uint32_t bytes, uint64_t cycle);
int sim_memsys_create(sim_engine *e, gd_err *err);
void sim_memsys_destroy(sim_engine *e);
void sim_memsys_launch_begin(sim_engine *e);       /* flush L1s at a kernel boundary */
void sim_memsys_launch_end(sim_engine *e);         /* a write-back L1's dirty lines to the L2 */
/* lsu.c: gives the SM's L1D `ways` ways (the launch's carve-out; the sets
 * stay): rebuilt empty when the count changes, as every launch starts empty. */
int sim_lsu_set_l1d_ways(sim_engine *e, sim_sm *sm, uint32_t ways, gd_err *err);
void sim_memsys_global_tick(sim_engine *e, uint64_t cycle);
/* Earliest cycle >= now at which the memory system can make progress, or SIM_NEVER. */
uint64_t sim_memsys_next_event(const sim_engine *e, uint64_t now);
int sim_memsys_idle(const sim_engine *e);

/* lsu.c */
int sim_lsu_can_accept(const sim_sm *sm);          /* a global memory instruction */
/* A warp's global memory instruction found the LSU unable to accept it. */
void sim_lsu_refused_issue(sim_sm *sm, uint64_t cycle);
/* Hands a global access to the SM's coalescer; `dst` is the register a load
 * writes (PTX_NO_REG for stores). */
void sim_lsu_issue(sim_engine *e, sim_sm *sm, sim_warp *w, const sim_mem_access *acc,
                   uint16_t dst, uint64_t cycle);
void sim_lsu_returns(sim_engine *e, sim_sm *sm, uint64_t cycle);
void sim_lsu_tick(sim_engine *e, sim_sm *sm, uint64_t cycle);
int sim_lsu_busy(const sim_sm *sm);
/* Nothing waits in the LSU's queues: no fill or response to take, nothing in
 * the coalescer, the FIFO or the miss queue (loads in flight may be). */
int sim_lsu_queues_empty(const sim_sm *sm);

/* smem.c: a shared-memory access issued at `cycle`; returns the cycle its data is
 * visible (loads) and keeps the SM's shared-memory pipe busy for its replays. */
uint64_t sim_smem_access(sim_engine *e, sim_sm *sm, const sim_mem_access *acc, uint64_t cycle);
/* Conflict-free parts (passes) a warp access needs: 1 + its replays. */
uint32_t sim_smem_passes(const gd_arch_level *smem, const sim_mem_access *acc);

#endif
