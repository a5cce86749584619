/* engine.h -- internal state of the simulated GPU, shared by its parts.
 *
 *   gpu.c      the cycle loop: CTAs onto SMs, warp schedulers, issue, event skipping
 *   exec.c     what each PTX instruction computes (functional model, per lane)
 *   memsys.c   the load/store path: coalescer, L1 request FIFO, L1D, MSHRs, miss
 *              queue, L2, DRAM, return queues
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
} sim_warp;

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
    uint64_t addr[SIM_WARP_LANES];
} sim_mem_access;

typedef struct sim_lsu sim_lsu;  /* fetch.c: instruction fetch through L0I / L1I / L15I / L2 */
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
    uint32_t sub_nonempty;    /* bit s: subpartition s has warps */
    uint64_t smem_busy_until; /* shared-memory pipe */
    sim_lsu *lsu;
    int active;               /* on the engine's active list */
    uint32_t ctas_finished;   /* CTAs whose warps all exited, not yet retired */
};

typedef struct sim_stats {
    uint64_t warp_insns;
    uint64_t loop_iterations;  /* cycles the engine actually visited (the rest were skipped) */
    uint64_t cycles;
    uint64_t launches;
    uint64_t l1d_hits, l1d_misses, l1d_sector_misses, l1d_merges;
    uint64_t l1d_resv_fails, l1d_resv_fail_cycles;
    uint64_t l1d_fifo_occupancy_sum, l1d_fifo_samples;
    uint64_t l2_hits, l2_misses;
    uint64_t dram_reads, dram_writes;
    uint64_t smem_accesses, smem_replays;
    uint64_t global_loads, global_stores;
    uint64_t ifetch_misses[GD_LEVEL_COUNT]; /* instruction lines not found at a level */
    uint64_t ifetch_hits[GD_LEVEL_COUNT];
    uint64_t const_accesses, const_misses[GD_LEVEL_COUNT], const_hits[GD_LEVEL_COUNT];
} sim_stats;

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
    const uint8_t *params;    /* kernel->param_bytes bytes, laid out as the PTX declares */
    const uint8_t *const_bank;
    uint32_t const_bytes;
} sim_launch_config;

typedef struct sim_memsys sim_memsys; /* memsys.c: L2, DRAM */

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
    uint64_t noise_rng;       /* [noise]: seeded timing noise on load completions */
    int noise_on;
    sim_level_caches lc[GD_LEVEL_COUNT]; /* instruction and constant caches */
    int ifetch_on;            /* the arch has instruction caches */
    gd_level_id ifetch_first; /* the first of them (L0I, or L1I without an L0) */

    /* the current launch */
    const sim_launch_config *launch;
    uint32_t warps_per_cta;
    uint32_t shared_per_cta;
    uint64_t ctas_total;
    uint64_t ctas_launched;
    uint64_t ctas_done;
    uint64_t warp_age;
    sim_sm **active_sms;
    uint32_t active_sm_count;
    int failed;
    gd_err *err;
};

/* gpu.c */
int sim_engine_create(const gd_arch *arch, sim_devmem *mem, sim_engine **out, gd_err *err);
void sim_engine_destroy(sim_engine *e);
int sim_engine_run(sim_engine *e, const sim_launch_config *launch, gd_err *err);
int sim_engine_fail(sim_engine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static inline void sim_engine_wake_at(sim_engine *e, uint64_t cycle)
{
    if (cycle < e->next_wake)
        e->next_wake = cycle;
}

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
int sim_lsu_can_accept(const sim_sm *sm);          /* a global memory instruction */
/* Hands a global access to the SM's coalescer; `dst` is the register a load
 * writes (PTX_NO_REG for stores). */
void sim_lsu_issue(sim_engine *e, sim_sm *sm, sim_warp *w, const sim_mem_access *acc,
                   uint16_t dst, uint64_t cycle);
void sim_memsys_global_tick(sim_engine *e, uint64_t cycle);
void sim_lsu_returns(sim_engine *e, sim_sm *sm, uint64_t cycle);
void sim_lsu_tick(sim_engine *e, sim_sm *sm, uint64_t cycle);
/* Earliest cycle >= now at which the memory system can make progress, or SIM_NEVER. */
uint64_t sim_memsys_next_event(const sim_engine *e, uint64_t now);
int sim_memsys_idle(const sim_engine *e);
int sim_lsu_busy(const sim_sm *sm);

#endif
