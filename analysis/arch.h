/* arch.h -- a GPU memory hierarchy described by an arch file.
 *
 * An arch file (analysis/archs/NAME.arch) is an INI file read with inih.  It is
 * the single source of everything the simulated device knows and of what the
 * analytical model predicts: section [gpu] describes the chip, and one section
 * per hierarchy level, named with the stable level names of the results schema
 * (L0I, L1I, L15I, L1C, L15C, L2C, L1D, SMEM, L2, TLB1, TLB2, DRAM), describes that
 * level.  A level whose section is absent does not exist on that GPU.
 *
 * Every number in a shipped arch file cites its source in a comment; see
 * analysis/archs/README.md for the keys and their meaning.
 */
#ifndef GD_ARCH_H
#define GD_ARCH_H

#include <stdint.h>

#include "host/device.h"

typedef enum gd_level_id {
    GD_L0I,
    GD_L1I,
    GD_L15I,
    GD_L1C,
    GD_L15C,
    GD_L2C,     /* the constant (and instruction) path's view of the L2: a latency */
    GD_L1D,
    GD_SMEM,
    GD_L2,
    GD_TLB1,
    GD_TLB2,
    GD_DRAM,
    GD_LEVEL_COUNT
} gd_level_id;

#define GD_ARCH_MAX_CARVEOUTS 16
/* Bounds of the load/store path's widths ([L1D], sim/README.md): a warp
 * instruction makes at most 32 requests, so a coalescer rate of 32 emits a
 * whole instruction in one cycle; more tag ports or queued instructions than
 * these are outside anything published. */
#define GD_ARCH_MAX_COALESCER_RATE 32
#define GD_ARCH_MAX_TAG_LOOKUPS 4
#define GD_ARCH_MAX_QUEUED_INSTRUCTIONS 8

typedef enum gd_replacement { GD_REPL_LRU, GD_REPL_FIFO, GD_REPL_RANDOM } gd_replacement;
typedef enum gd_scope { GD_SCOPE_SUBPARTITION, GD_SCOPE_SM, GD_SCOPE_CHIP } gd_scope;

/* How the L2 is split (issue 12).  Slices (memory sub-partitions) are chosen
 * by a hash of the L2 line number; with `partitions` > 1 the slices are split
 * evenly into partitions, SM s belongs to partition s * partitions / sms (its
 * GPCs' side of the chip), and a line has one slice position per partition: the
 * near one (the SM's partition) serves at [L2] latency, the far one at
 * far_latency, and holds what the near one evicts (gd_arch_l2_slice_of). */
typedef enum gd_l2_hash { GD_L2_HASH_MODULO, GD_L2_HASH_XOR } gd_l2_hash;
#define GD_ARCH_MAX_HASH_RANGES 4
typedef struct gd_arch_l2_map {
    uint32_t slices;            /* 1: one monolithic L2 */
    uint32_t partitions;        /* 1: no far half */
    uint32_t far_latency_cycles;/* a far-partition hit, as a pointer chase measures it */
    uint32_t slice_requests_per_cycle; /* per slice; default: [L2] requests_per_cycle / slices, >= 1 */
    gd_l2_hash hash;
    uint32_t xor_range_count;   /* XOR-fold: address bit ranges [lo, hi] folded onto the slice index */
    uint8_t xor_lo[GD_ARCH_MAX_HASH_RANGES], xor_hi[GD_ARCH_MAX_HASH_RANGES];
} gd_arch_l2_map;

/* DRAM organisation (issue 12; sim/dram.c).  channels 0: the fixed-latency DRAM
 * ([DRAM] latency, requests_per_cycle).  Timings are in SM cycles. */
typedef struct gd_arch_dram {
    uint32_t channels;
    uint32_t banks;             /* per channel */
    uint32_t row_bytes;         /* row buffer per bank */
    uint32_t interleave_bytes;  /* consecutive bytes on one channel before the next */
    uint32_t t_rcd, t_rp, t_cl, t_ras, t_ccd, t_wr, t_rtw, t_wtr; /* cycles */
    uint32_t burst_cycles;      /* data-bus cycles one 32-byte sector takes per channel */
    uint32_t queue_entries;     /* read and write queue per channel */
    /* writes drained in batches (GPGPU-Sim's -dram_seperate_write_queue_enable,
     * -dram_write_queue_size N:high:low): 0 = one FR-FCFS over reads and writes;
     * else writes wait until write_high are queued (or no read is), then go
     * until write_low are left (or none) */
    uint32_t write_high, write_low;
    /* page-close timeout (sim/dram.c): a bank idle this many cycles since its
     * last column command is precharged by the controller (not before activate
     * + tRAS), so the next access is a row miss, not a conflict; 0: never (the
     * open-row policy, default) */
    uint32_t row_timeout;
    /* Main-memory technology (issue 13, seed 003; sim/dram.c, sim/pcm.c). */
    int kind;                   /* GD_MEM_DRAM (default) or GD_MEM_PCM */
    uint32_t pcm_write_cycles;  /* PCM: array write time a write holds its bank
                                 * (default 10 x tWR, the paper's "write latency 10x") */
    uint32_t pcm_read_cycles;   /* PCM: extra cycles a row activation takes over DRAM's (default 0) */
    double pcm_write_pj_per_bit;/* PCM: array write energy per bit for the energy counter (0: none) */
} gd_arch_dram;

enum { GD_MEM_DRAM = 0, GD_MEM_PCM = 1 };

/* The store path's arch choices (issue 12; sim/l1d_store.c, sim/l2_store.c).
 * Every default (0) is the path as it was before they existed. */
typedef enum gd_l2_write_alloc {
    GD_L2_WRITE_SECTOR = 0,     /* a store allocates the line, validating the sectors it
                                 * writes, no fetch (default) */
    GD_L2_WRITE_LINE,           /* a store allocates the line and fetches its other sectors */
    GD_L2_WRITE_NONE            /* write-no-allocate: a store that misses goes on to memory */
} gd_l2_write_alloc;
typedef enum gd_l2_partial_write {
    GD_L2_PARTIAL_VALIDATE = 0, /* a store of part of a sector validates it whole (default:
                                 * optimistic, the simulator's model before the choice) */
    GD_L2_PARTIAL_FETCH,        /* the sector is fetched from memory and merged (a read) */
    GD_L2_PARTIAL_MASK          /* a byte mask: the sector is dirty, not valid; a read of
                                 * it misses and merges memory's bytes */
} gd_l2_partial_write;

/* The dedicated write buffer between the L2 and main memory (issue 13, seed 003
 * section 4.1; section [WB]; sim/pcm.c).  size_bytes 0: no buffer. */
typedef struct gd_arch_wb {
    uint64_t size_bytes;
    uint32_t row_bytes;         /* buffer row = memory row of the paper (1 KiB) */
    uint32_t active_rows;       /* rows of the active list (0: half) */
    uint32_t latency_cycles;    /* a buffer hit's data, after the request leaves the L2 */
    int read_bypass;            /* 1: a read that misses is served by memory without
                                 * entering the lists (they hold written rows only) */
    int request_fetch;          /* 1: a miss's row read carries only what the L2 asked for
                                 * on the bus (the row assumed read inside the device);
                                 * 0 (default): the whole row crosses the bus */
} gd_arch_wb;

/* One level of the hierarchy.  Caches use size/line/sector/ways/replacement;
 * a TLB is a cache of page entries (size = coverage, line = page size). */
typedef struct gd_arch_level {
    int present;
    uint64_t size_bytes;
    uint32_t line_bytes;        /* allocation (tag) granularity */
    uint32_t sector_bytes;      /* fill granularity; == line_bytes when not sectored */
    uint32_t ways;
    uint32_t sets;              /* derived: size / (line * ways) */
    gd_replacement replacement;
    uint32_t latency_cycles;    /* load-to-use latency of a hit at this level */
    gd_scope scope;
    int shared_with;            /* gd_level_id whose storage this level uses, or -1 */
    uint32_t prefetch_lines;    /* instruction caches: lines fetched ahead */
    /* SMEM */
    uint32_t banks;
    uint32_t bank_width_bytes;
    /* SMEM on a GPU whose L1D and shared memory are one storage (Volta and
     * later): its bytes per SM, and the shared-memory sizes (carve-outs, or
     * splits) the driver may give a kernel, ascending; the L1D gets the rest.
     * unified_bytes 0: a fixed L1D of [L1D] size (no carve-out). */
    uint64_t unified_bytes;
    uint32_t carveout_count;
    uint32_t carveout_bytes[GD_ARCH_MAX_CARVEOUTS];
    /* L1D load/store unit */
    uint32_t fifo_entries;      /* request FIFO in front of the L1 tags */
    uint32_t mshr_entries;
    uint32_t mshr_merge;        /* requests merged into one MSHR entry */
    uint32_t miss_queue_entries;/* L1 -> L2 miss queue */
    int reorder;                /* CN110457238A: re-enqueue reservation-failed head */
    int pipelined_issue;        /* CN110457238A: next memory instruction once coalesced */
    uint32_t fifo_tail_ports;   /* requests the FIFO tail takes per cycle (1: the patent's) */
    uint32_t coalescer_rate;    /* requests the coalescer puts in the FIFO per cycle (32: a
                                 * whole instruction at once, as GPGPU-Sim's accessq) */
    uint32_t tag_lookups;       /* FIFO requests the L1 tags probe per cycle */
    uint32_t queued_instructions; /* memory instructions with requests in the LSU at once */
    int write_allocate;         /* L1D stores: 0 write-through, no allocate (default); 1
                                 * write-through, allocating the sectors they cover
                                 * (write-validate, no fetch: sim/l1d_store.c) */
    int write_back;             /* L1D stores: 1 write-back -- stores allocate as with
                                 * write_allocate and only dirty the L1; dirty sectors go to
                                 * the L2 on eviction and at the kernel's end (sim/l1d_store.c) */
    gd_l2_write_alloc l2_write_alloc;   /* L2 [write_allocate] (sim/l2_store.c) */
    gd_l2_partial_write partial_write;  /* L2 stores of part of a sector */
    /* L2 */
    uint32_t requests_per_cycle;/* L2 / DRAM: requests accepted per cycle (L2: the crossbar's) */
    /* Below the L1 (issue 12; analysis/arch_mem.c).  An arch without these keys
     * has one L2 slice, modulo indexing, no far partition and the fixed-latency
     * DRAM, as before. */
    gd_arch_l2_map l2map;       /* L2: slices, their hash, near/far partitions */
    gd_arch_dram dram;          /* DRAM: channels, banks, rows, timings (channels 0: fixed latency) */
} gd_arch_level;

typedef struct gd_arch_gpu {
    char name[128];
    int cc_major, cc_minor;
    uint32_t sm_count;
    uint32_t subpartitions;     /* warp schedulers per SM */
    double clock_mhz;
    uint32_t max_warps_per_sm;
    uint32_t max_ctas_per_sm;
    uint64_t global_mem_bytes;
    uint32_t alu_latency_cycles;   /* dependent-issue latency of integer/fp ops */
    uint32_t shared_per_block_bytes;
    uint64_t seed;              /* PRNG seed for random replacement (a sim setting) */
} gd_arch_gpu;

/* Seeded timing noise, a sim setting that imitates a real card's timer jitter. */
typedef struct gd_arch_noise {
    double jitter_cycles;       /* +/- uniform jitter added to each load's latency */
    double outlier_rate;        /* probability of a rare large delay per load */
    uint32_t outlier_cycles;
    uint64_t seed;
} gd_arch_noise;

/* The comment that follows a value in the file: its cited source. */
#define GD_ARCH_MAX_SOURCES 128
typedef struct gd_arch_source {
    char section[12];
    char key[24];
    char text[120];
} gd_arch_source;

typedef struct gd_arch {
    char name[64];              /* file stem: "t4" */
    char path[512];
    gd_arch_gpu gpu;
    gd_arch_level level[GD_LEVEL_COUNT];
    gd_arch_noise noise;
    gd_arch_wb wb;              /* [WB] (issue 13) */
    gd_arch_source sources[GD_ARCH_MAX_SOURCES];
    unsigned source_count;
} gd_arch;

/* The source comment of SECTION.key ("[Jia19] Table 3.1: 4096 KiB"), or NULL. */
const char *gd_arch_source_of(const gd_arch *arch, const char *section, const char *key);

/* Parse an arch file.  overrides: "SECTION.key=value" applied after the file.
 * On error fills err with "FILE:LINE: message" (or "override 'X': message"). */
int gd_arch_load(const char *path, const char *const *overrides, size_t override_count,
                 gd_arch *out, gd_err *err);

/* Same, from text in memory; `path` is only used in messages. */
int gd_arch_parse_string(const char *text, const char *path, const char *const *overrides,
                         size_t override_count, gd_arch *out, gd_err *err);

/* Resolve "t4" to ARCHDIR/t4.arch (GPUDISSECT_ARCH_DIR, else the build's
 * analysis/archs), or accept a path containing '/' or ending in ".arch". */
int gd_arch_resolve(const char *name_or_path, char *path, size_t path_bytes, gd_err *err);

/* The directory bundled arch files are read from. */
const char *gd_arch_dir(void);

const char *gd_level_name(gd_level_id id);
int gd_level_from_name(const char *name); /* -1 when unknown */
const char *gd_replacement_name(gd_replacement r);
const char *gd_scope_name(gd_scope s);

/* The driver's choice of the L1/shared split for one launch (arch_carveout.c).
 * The carve-out is a *preference*, in percent of the largest shared-memory
 * size (CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT; 0 = the most L1,
 * 100 = the most shared memory); the driver takes the smallest supported split
 * that is at least that preference and at least what the kernel needs -- its
 * shared memory per CTA times the CTAs that fit on an SM -- and the L1D gets
 * the rest of the unified storage.  On an arch without unified storage the L1D
 * is [L1D] size whatever is asked. */
typedef struct gd_carveout_choice {
    uint32_t shared_bytes;      /* the split: shared memory per SM */
    uint64_t l1d_bytes;         /* the L1D this launch has */
    uint32_t l1d_ways;          /* its ways (the sets stay: [L1D] sets) */
    uint32_t ctas_per_sm;       /* CTAs whose shared memory the split holds */
    uint32_t preferred_bytes;   /* what the percentage asked for, in bytes */
} gd_carveout_choice;

/* shared_per_cta_bytes: static + dynamic; ctas_wanted: the CTAs per SM the
 * launch could place by its other limits (threads, CTA slots, grid).  Fails when
 * one CTA's shared memory exceeds the largest split, or percent is outside
 * 0..100. */
int gd_arch_carveout(const gd_arch *arch, int percent, uint32_t shared_per_cta_bytes,
                     uint32_t ctas_wanted, gd_carveout_choice *out, gd_err *err);
/* The L1D bytes left by each supported split (ascending split order); returns
 * their count (1 on an arch without unified storage: [L1D] size). */
unsigned gd_arch_l1d_sizes(const gd_arch *arch, uint64_t *l1d_bytes, unsigned max);

/* analysis/arch_mem.c: where an L2 line lives.  `partition`: the partition
 * asking (the SM's, gd_arch_sm_partition); out: the slice (0..slices-1) and
 * the line's key inside that slice (its set index is key % slice sets; the key
 * and the slice position give the line back: gd_arch_l2_line_of). */
uint32_t gd_arch_sm_partition(const gd_arch *arch, uint32_t sm);
void gd_arch_l2_slice_of(const gd_arch *arch, uint64_t line, uint32_t partition, uint32_t *slice,
                         uint64_t *key);
uint64_t gd_arch_l2_line_of(const gd_arch *arch, uint32_t slice, uint64_t key);
/* The sets of one slice: [L2] sets / slices. */
uint32_t gd_arch_l2_slice_sets(const gd_arch *arch);
/* DRAM address map: channel, bank and row of a byte address (channels > 0). */
void gd_arch_dram_locate(const gd_arch *arch, uint64_t addr, uint32_t *channel, uint32_t *bank,
                         uint64_t *row);

/* Parse "64KiB", "4 MiB", "128", "1.5KiB" (must be whole bytes). Returns -1 on junk. */
int gd_parse_bytes(const char *text, uint64_t *out);

#endif
