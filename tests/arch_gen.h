/* arch_gen.h -- plausible but unfamiliar GPU hierarchies, generated from a seed.
 *
 * A real card is a hierarchy the suite has never seen; the bundled arch files
 * are the ones the suites were shaped around.  This generator writes arch files
 * across the space a card could occupy (the unseen-GPUs issue's list, and the
 * bundled GPUs' neighbourhoods): L1D 16-256 KiB including 24/48/96/112/192 KiB,
 * lines 32/64/128 with or without 32-byte sectors, 4-256 ways with sets that
 * need not be a power of two, LRU/FIFO/random at every cache (the instruction
 * caches and a separate L1.5 constant cache too, since 2026-12-04), L2 256 KiB-40 MiB
 * including 1.5/3/5/6 MiB, latencies close together or far apart, 1-132 SMs,
 * pre-Volta (no L0I, an L1.5 instruction cache) and Volta-style instruction
 * caches, an L1.5 constant cache shared with the L1I or a structure of its own
 * (larger than one 64 KiB constant bank or not), 16 or 32 banks of 4 or 8
 * bytes, and noise on or off.  Every value line cites "generated (seed N)" as
 * its source, as arch files must.
 *
 * The same seed always gives the same file (xorshift64*, no libc rand), so a
 * failing configuration is reproduced by its seed alone:
 *     gd_arch_generate(seed, &opts, text, sizeof text)
 * and `make recovery` prints the seeds of its worst cases.
 */
#ifndef GD_ARCH_GEN_H
#define GD_ARCH_GEN_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct gd_arch_gen_opts {
    uint64_t max_l2_bytes; /* 0: up to 40 MiB (the fast test subset keeps it small) */
    int noise;             /* -1: by the seed, 0: off, 1: on */
    int icache_lru;        /* 1: the instruction caches and a separate L1.5 replace LRU,
                            * as every seed drew them before 2026-12-04 (the tests that
                            * reproduce a seed's GPU of then) */
} gd_arch_gen_opts;

typedef struct gd_gen_rng {
    uint64_t s;
} gd_gen_rng;

static inline uint64_t gd_gen_next(gd_gen_rng *r)
{
    uint64_t x = r->s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->s = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* Uniform in [0, n). */
static inline uint64_t gd_gen_below(gd_gen_rng *r, uint64_t n)
{
    return n ? gd_gen_next(r) % n : 0;
}

/* Uniform in [lo, hi]. */
static inline uint64_t gd_gen_range(gd_gen_rng *r, uint64_t lo, uint64_t hi)
{
    return lo + gd_gen_below(r, hi - lo + 1);
}

#define GD_GEN_PICK(r, array) ((array)[gd_gen_below((r), sizeof(array) / sizeof((array)[0]))])

/* Ways for `lines` lines: a divisor of lines in [lo, hi] (sets = lines / ways,
 * any whole number), at random; the closest divisor above lo when none. */
static inline uint32_t gd_gen_ways(gd_gen_rng *r, uint64_t lines, uint32_t lo, uint32_t hi)
{
    uint32_t cand[64];
    unsigned n = 0;
    for (uint64_t w = lo; w <= hi && w <= lines && n < 64; w++)
        if (lines % w == 0)
            cand[n++] = (uint32_t)w;
    if (n)
        return cand[gd_gen_below(r, n)];
    for (uint64_t w = lo; w <= lines; w++)
        if (lines % w == 0)
            return (uint32_t)w;
    return (uint32_t)lines;
}

typedef struct gd_gen_text {
    char *buf;
    size_t size, used;
    int overflow;
} gd_gen_text;

static inline void gd_gen_printf(gd_gen_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline void gd_gen_printf(gd_gen_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->used, t->size - t->used, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= t->size - t->used) {
        t->overflow = 1;
        return;
    }
    t->used += (size_t)n;
}

static inline const char *gd_gen_policy(gd_gen_rng *r)
{
    static const char *const policies[] = {"lru", "fifo", "random"};
    return GD_GEN_PICK(r, policies);
}

/* Writes a generated arch file into buf; returns 0, or -1 if buf is too small. */
static inline int gd_arch_generate(uint64_t seed, const gd_arch_gen_opts *opts, char *buf,
                                   size_t size)
{
    gd_gen_rng rng = {.s = seed * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL};
    gd_gen_rng *r = &rng;
    /* parameters added after the committed sweeps draw from a stream of their
     * own, so that every earlier parameter of a seed stays as it was */
    gd_gen_rng later = {.s = seed * 0xD1B54A32D192ED03ULL + 0x8CB92BA72F3D8DD7ULL};
    /* the instruction caches' and a separate L1.5's replacement (2026-12-04:
     * LRU only before; every policy at every level), a third stream drawn
     * in one order whatever levels the GPU has */
    gd_gen_rng pol = {.s = seed * 0xA24BAED4963EE407ULL + 0x9FB21C651E98DF25ULL};
    gd_gen_next(&pol);
    const char *l0i_policy = gd_gen_policy(&pol), *l1i_policy = gd_gen_policy(&pol);
    const char *l15i_policy = gd_gen_policy(&pol), *l15c_policy = gd_gen_policy(&pol);
    if (opts && opts->icache_lru)
        l0i_policy = l1i_policy = l15i_policy = l15c_policy = "lru";
    gd_gen_next(r);
    gd_gen_text t = {.buf = buf, .size = size};
    buf[0] = 0;
    uint64_t max_l2 = opts && opts->max_l2_bytes ? opts->max_l2_bytes : (40ull << 20);
    int noise = opts && opts->noise >= 0 ? opts->noise : (int)gd_gen_below(r, 2);
    const uint64_t K = 1024;
    char src[48];
    snprintf(src, sizeof src, "; generated (seed %llu)", (unsigned long long)seed);

    /* the instruction caches decide the generation: pre-Volta has no L0I */
    int volta = gd_gen_below(r, 4) != 0;
    static const char *const cc_volta[] = {"7.0", "7.5", "8.0", "8.6", "8.9", "9.0"};
    static const char *const cc_pre[] = {"5.2", "6.0", "6.1"};
    static const unsigned sm_counts[] = {1, 2, 4, 8, 15, 28, 40, 80, 108, 132};
    gd_gen_printf(&t, "; a generated GPU (tests/arch_gen.h), seed %llu\n\n[gpu]\n",
                  (unsigned long long)seed);
    gd_gen_printf(&t, "name = generated-%llu %s\n", (unsigned long long)seed, src);
    gd_gen_printf(&t, "compute_capability = %s %s\n",
                  volta ? GD_GEN_PICK(r, cc_volta) : GD_GEN_PICK(r, cc_pre), src);
    gd_gen_printf(&t, "sms = %u %s\n", GD_GEN_PICK(r, sm_counts), src);
    gd_gen_printf(&t, "subpartitions = %u %s\n", volta ? 4u : (unsigned)(2 << gd_gen_below(r, 2)),
                  src);
    gd_gen_printf(&t, "clock_mhz = %u %s\n", (unsigned)gd_gen_range(r, 900, 2100), src);
    gd_gen_printf(&t, "max_warps_per_sm = %u %s\n", 32u << gd_gen_below(r, 2), src);
    gd_gen_printf(&t, "max_ctas_per_sm = %u %s\n", 16u << gd_gen_below(r, 2), src);
    gd_gen_printf(&t, "global_mem = 4GiB %s\n", src);
    gd_gen_printf(&t, "alu_latency = 4 %s\n", src);
    gd_gen_printf(&t, "shared_per_block = 48KiB %s\n", src);
    gd_gen_printf(&t, "seed = %u %s\n", (unsigned)gd_gen_range(r, 1, 1000), src);

    /* L1D */
    static const unsigned l1_kib[] = {16, 24, 32, 48, 64, 96, 112, 128, 192, 256};
    static const unsigned lines[] = {32, 64, 128, 128};
    uint64_t l1 = GD_GEN_PICK(r, l1_kib) * K;
    unsigned l1_line = GD_GEN_PICK(r, lines);
    unsigned l1_sector = l1_line > 32 && gd_gen_below(r, 2) ? 32 : l1_line;
    uint32_t l1_ways = gd_gen_ways(r, l1 / l1_line, 4, 256);
    unsigned l1_lat = (unsigned)gd_gen_range(r, 18, 40);
    gd_gen_printf(&t, "\n[L1D]\nsize = %lluKiB %s\nline = %u %s\nsector = %u %s\nways = %u %s\n",
                  (unsigned long long)(l1 / K), src, l1_line, src, l1_sector, src, l1_ways, src);
    gd_gen_printf(&t, "replacement = %s %s\nlatency = %u %s\nscope = sm %s\n", gd_gen_policy(r),
                  src, l1_lat, src, src);
    /* several draws for one call: each its own statement, in the order gcc
     * evaluated the arguments (right to left) when the committed sweeps were
     * drawn -- an argument list's order is unspecified, and clang's (left to
     * right) gave the same seed another GPU (make test SAN=1) */
    unsigned mshr_merge = 8u << gd_gen_below(r, 3);
    unsigned mshr_entries = 64u << gd_gen_below(r, 4);
    gd_gen_printf(&t, "mshr_entries = %u %s\nmshr_merge = %u %s\n", mshr_entries, src, mshr_merge,
                  src);

    /* shared memory */
    static const unsigned smem_kib[] = {48, 64, 96, 100, 164, 228};
    unsigned bank_width = 4u << gd_gen_below(r, 2);
    unsigned banks = 16u << gd_gen_below(r, 2);
    unsigned smem = GD_GEN_PICK(r, smem_kib);
    gd_gen_printf(&t, "\n[SMEM]\nsize = %uKiB %s\nbanks = %u %s\nbank_width = %u %s\n", smem, src,
                  banks, src, bank_width, src);
    gd_gen_printf(&t, "latency = %u %s\n", (unsigned)gd_gen_range(r, 15, 32), src);

    /* instruction caches */
    unsigned l1i_lat;
    uint64_t l1i_bytes;
    unsigned l1i_line;
    if (volta) {
        static const unsigned l0_kib[] = {8, 12, 16, 32};
        uint64_t l0 = GD_GEN_PICK(r, l0_kib) * K;
        uint32_t l0_ways = gd_gen_below(r, 2) ? (uint32_t)(l0 / 128) : gd_gen_ways(r, l0 / 128, 4, 16);
        gd_gen_printf(&t, "\n[L0I]\nsize = %lluKiB %s\nline = 128 %s\nways = %u %s\n",
                      (unsigned long long)(l0 / K), src, src, l0_ways, src);
        gd_gen_printf(&t, "replacement = %s %s\nlatency = 1 %s\nscope = subpartition %s\n",
                      l0i_policy, src, src, src);
        gd_gen_printf(&t, "prefetch = %u %s\n", (unsigned)gd_gen_range(r, 1, 3), src);
        static const unsigned l1i_kib[] = {32, 46, 64, 96, 128};
        l1i_bytes = GD_GEN_PICK(r, l1i_kib) * K;
        l1i_line = gd_gen_below(r, 2) ? 256 : 128;
        l1i_lat = (unsigned)gd_gen_range(r, 20, 100);
    } else {
        static const unsigned l1i_kib[] = {4, 8, 12};
        l1i_bytes = GD_GEN_PICK(r, l1i_kib) * K;
        l1i_line = 128;
        l1i_lat = (unsigned)gd_gen_range(r, 8, 30);
    }
    uint32_t l1i_ways = gd_gen_below(r, 2) ? (uint32_t)(l1i_bytes / l1i_line)
                                           : gd_gen_ways(r, l1i_bytes / l1i_line, 4, 16);
    gd_gen_printf(&t, "\n[L1I]\nsize = %lluKiB %s\nline = %u %s\nways = %u %s\n",
                  (unsigned long long)(l1i_bytes / K), src, l1i_line, src, l1i_ways, src);
    gd_gen_printf(&t, "replacement = %s %s\nlatency = %u %s\nscope = sm %s\n", l1i_policy, src,
                  l1i_lat, src, src);
    if (!volta)
        gd_gen_printf(&t, "prefetch = %u %s\n", (unsigned)gd_gen_range(r, 1, 3), src);
    unsigned l15_lat = l1i_lat;
    int l15c_shared = volta && gd_gen_below(r, 3) != 0;
    if (!volta) {
        static const unsigned l15i_kib[] = {32, 64, 128};
        l15_lat = l1i_lat + (unsigned)gd_gen_range(r, 30, 80);
        uint64_t l15 = GD_GEN_PICK(r, l15i_kib) * K;
        gd_gen_printf(&t, "\n[L15I]\nsize = %lluKiB %s\nline = 256 %s\nways = %u %s\n",
                      (unsigned long long)(l15 / K), src, src,
                      gd_gen_ways(r, l15 / 256, 4, 16), src);
        gd_gen_printf(&t, "replacement = %s %s\nlatency = %u %s\nscope = sm %s\n", l15i_policy,
                      src, l15_lat, src, src);
    }

    /* constant caches */
    static const unsigned l1c_kib[] = {2, 4, 8};
    uint64_t l1c = GD_GEN_PICK(r, l1c_kib) * K;
    unsigned l1c_lat = (unsigned)gd_gen_range(r, 18, 36);
    /* 2 ways up to 64 (fully associative at 4 KiB): const_fine's sets of
     * more lines than one bank holds at the capacity's stride (2026-12-03; one
     * draw as before, so every other parameter of a seed is unchanged) */
    gd_gen_printf(&t, "\n[L1C]\nsize = %lluKiB %s\nline = 64 %s\nways = %u %s\n",
                  (unsigned long long)(l1c / K), src, src, gd_gen_ways(r, l1c / 64, 2, 64), src);
    gd_gen_printf(&t, "replacement = %s %s\nlatency = %u %s\nscope = sm %s\n", gd_gen_policy(r),
                  src, l1c_lat, src, src);
    unsigned l15c_lat;
    if (l15c_shared) {
        /* the L1I's storage, a level below the L1C: never as fast as it (seed
         * 1027 gave both 31 cycles, a hierarchy no probe can split) */
        l15c_lat = l1i_lat >= l1c_lat + 20 ? l1i_lat : l1c_lat + 20;
        gd_gen_printf(&t, "\n[L15C]\nshared_with = L1I %s\nlatency = %u %s\nscope = sm %s\n", src,
                      l15c_lat, src, src);
    } else {
        static const unsigned l15c_kib[] = {16, 32, 48, 64, 96};
        uint64_t l15c = GD_GEN_PICK(r, l15c_kib) * K;
        unsigned l15c_line = gd_gen_below(r, 2) ? 256 : 128;
        l15c_lat = l1c_lat + (unsigned)gd_gen_range(r, 30, 90);
        gd_gen_printf(&t, "\n[L15C]\nsize = %lluKiB %s\nline = %u %s\nways = %u %s\n",
                      (unsigned long long)(l15c / K), src, l15c_line, src,
                      gd_gen_ways(r, l15c / l15c_line, 4, 16), src);
        /* an SM's own, or one the chip's SMs share (const_av; 2026-12-03) */
        gd_gen_printf(&t, "replacement = %s %s\nlatency = %u %s\nscope = %s %s\n", l15c_policy,
                      src, l15c_lat, src, gd_gen_below(&later, 2) ? "chip" : "sm", src);
    }

    /* L2, DRAM */
    static const unsigned l2_kib[] = {256, 512, 768, 1024, 1536, 2048, 3072, 4096,
                                      5120, 6144, 8192, 12288, 24576, 40960};
    uint64_t l2;
    do
        l2 = GD_GEN_PICK(r, l2_kib) * K;
    while (l2 > max_l2 || l2 < 2 * l1);
    unsigned l2_line = GD_GEN_PICK(r, lines);
    unsigned l2_sector = l2_line > 32 ? 32 : l2_line;
    uint32_t l2_ways = gd_gen_ways(r, l2 / l2_line, 8, 32);
    /* close together (an L2 a few dozen cycles past the L1) or far apart */
    unsigned l2_lat = l1_lat + (unsigned)(gd_gen_below(r, 4) ? gd_gen_range(r, 100, 300)
                                                              : gd_gen_range(r, 30, 99));
    unsigned dram_lat = l2_lat + (unsigned)(gd_gen_below(r, 4) ? gd_gen_range(r, 80, 300)
                                                                : gd_gen_range(r, 40, 79));
    unsigned l2c_lat = (l15c_lat > l2_lat ? l15c_lat : l2_lat) + (unsigned)gd_gen_range(r, 5, 40);
    gd_gen_printf(&t, "\n[L2C]\nlatency = %u %s\nscope = chip %s\n", l2c_lat, src, src);
    gd_gen_printf(&t, "\n[L2]\nsize = %lluKiB %s\nline = %u %s\nsector = %u %s\nways = %u %s\n",
                  (unsigned long long)(l2 / K), src, l2_line, src, l2_sector, src, l2_ways, src);
    gd_gen_printf(&t, "replacement = %s %s\nlatency = %u %s\nscope = chip %s\n", gd_gen_policy(r),
                  src, l2_lat, src, src);
    gd_gen_printf(&t, "requests_per_cycle = %u %s\n", (unsigned)(4u << gd_gen_below(r, 4)), src);
    gd_gen_printf(&t, "\n[DRAM]\nlatency = %u %s\nscope = chip %s\nrequests_per_cycle = %u %s\n",
                  dram_lat, src, src, (unsigned)(2u << gd_gen_below(r, 4)), src);

    if (noise) {
        unsigned rate = (unsigned)gd_gen_range(r, 1, 5);
        unsigned jitter = (unsigned)gd_gen_range(r, 1, 2);
        gd_gen_printf(&t, "\n[noise]\njitter = %u %s\noutlier_rate = 0.00%u %s\n", jitter, src,
                      rate, src);
        unsigned noise_seed = (unsigned)gd_gen_range(r, 1, 1000);
        unsigned outlier = (unsigned)gd_gen_range(r, 100, 600);
        gd_gen_printf(&t, "outlier_cycles = %u %s\nseed = %u %s\n", outlier, src, noise_seed, src);
    }
    return t.overflow ? -1 : 0;
}

/* ---- below the L1 (issue 12) ------------------------------------------------
 *
 * The levels below the L1 as `--set` overrides of the tiny arch (fast to
 * simulate, here with 16 SMs): a 1..3 MiB L2 of 2..12 slices per partition
 * (modulo map, 128-B lines) in two partitions with a far latency anywhere
 * between the near one and DRAM's; an L1 TLB of 8..32 fully
 * associative entries of 512 KiB..2 MiB pages; an L2 TLB of 4 or 8 times as many
 * entries of 16 pages (the entry the suites' tlb2 step assumes, as on the GPUs
 * Jia et al. measured); miss costs from 20 to 400 cycles; DRAM with or without
 * channels -- with: 2..8 channels of 8 or 16 banks (as GDDR6 and HBM have;
 * one channel under an L2 of 8 lines a cycle streams 30x slower than the L2,
 * past any card's ratio, and the bandwidth probe's warm-up skew then swamps
 * its L2 read; 64 streams over 8 banks conflict on every other row), 1 or 2
 * KiB rows, 256- or
 * 512-byte interleave, tCL 5..30, tRCD and tRP 8..30 (a row step of at least
 * 16 cycles, clear of the noise), tRAS 20..50, a sector per 1 or 2 bus cycles,
 * and on half of them a page-close timeout of 1000..5000 cycles (tRCD then
 * 16..30: the idle step is tRCD alone; a timeout below a DRAM round trip
 * closes every bank a chase reaches, and the chase models do not model that);
 * timer noise on odd seeds.  Returns the overrides written (each "S.key=V"),
 * or 0 when `cap` is too small; *has_channels says whether DRAM has rows.
 * (Not drawn into gd_arch_generate's files: the quick suite's recovery keeps
 * the flat hierarchy it was scored on.) */
static inline size_t gd_arch_gen_below_l1(uint64_t seed, char ov[][64], size_t cap,
                                          int *has_channels)
{
    gd_gen_rng rr = {seed * 0x9E3779B97F4A7C15ull + 1};
    gd_gen_rng *r = &rr;
    size_t n = 0;
    if (cap < 40)
        return 0;
#define GD_GEN_SET(...) snprintf(ov[n++], 64, __VA_ARGS__)
    /* 2..12 slices per partition (non-powers of two among them), 128-B lines,
     * slices of 128 or 256 KiB (an L2 of 1..3 MiB: sets a multiple of the
     * slices); each slice serves one request a cycle behind an 8-request
     * crossbar, and 16 SMs of 64 MSHRs keep more in flight than one slice
     * per partition takes -- the contrast the l2_slice probe reads */
    static const unsigned per_partition[] = {2, 3, 4, 5, 6, 8, 10, 12};
    unsigned per = GD_GEN_PICK(r, per_partition);
    GD_GEN_SET("L2.size=%uKiB", 2 * per * (per >= 4 ? 128 : 256));
    GD_GEN_SET("L2.line=128");
    GD_GEN_SET("gpu.global_mem=64GiB");
    GD_GEN_SET("gpu.sms=16");
    GD_GEN_SET("L1D.mshr_entries=64");
    GD_GEN_SET("L2.slices=%u", 2 * per);
    GD_GEN_SET("L2.partitions=2");
    GD_GEN_SET("L2.requests_per_cycle=8");
    GD_GEN_SET("L2.slice_requests_per_cycle=1");
    unsigned dram = (unsigned)gd_gen_range(r, 160, 400);
    GD_GEN_SET("DRAM.latency=%u", dram);
    GD_GEN_SET("L2.far_latency=%u", (unsigned)gd_gen_range(r, 100, dram - 40));
    uint64_t page = 512ull << gd_gen_range(r, 10, 12);
    unsigned entries1 = 8u << gd_gen_range(r, 0, 2);
    GD_GEN_SET("TLB1.size=%llu", (unsigned long long)(page * entries1));
    GD_GEN_SET("TLB1.line=%llu", (unsigned long long)page);
    GD_GEN_SET("TLB1.ways=%u", entries1);
    unsigned t1 = dram + (unsigned)gd_gen_range(r, 20, 300);
    GD_GEN_SET("TLB1.latency=%u", t1);
    unsigned entries2 = entries1 * (4u << gd_gen_range(r, 0, 1));
    GD_GEN_SET("TLB2.size=%llu", (unsigned long long)(16 * page * entries2));
    GD_GEN_SET("TLB2.line=%llu", (unsigned long long)(16 * page));
    GD_GEN_SET("TLB2.ways=%u", entries2);
    GD_GEN_SET("TLB2.latency=%u", t1 + (unsigned)gd_gen_range(r, 20, 400));
    *has_channels = (int)gd_gen_range(r, 0, 1);
    if (*has_channels) {
        GD_GEN_SET("DRAM.channels=%u", 2u << gd_gen_range(r, 0, 2));
        GD_GEN_SET("DRAM.banks=%u", 8u << gd_gen_range(r, 0, 1));
        /* a page-close timeout on half of them; its step is tRCD alone, so
         * then tRCD is at least 16 (clear of the step threshold and noise) */
        int timeout = (int)gd_gen_range(r, 0, 1);
        GD_GEN_SET("DRAM.tCL=%u", (unsigned)gd_gen_range(r, 5, 30));
        GD_GEN_SET("DRAM.tRCD=%u", (unsigned)gd_gen_range(r, timeout ? 16 : 8, 30));
        GD_GEN_SET("DRAM.tRP=%u", (unsigned)gd_gen_range(r, 8, 30));
        GD_GEN_SET("DRAM.tRAS=%u", (unsigned)gd_gen_range(r, 20, 50));
        GD_GEN_SET("DRAM.row=%uKiB", 1u << gd_gen_range(r, 0, 1));
        GD_GEN_SET("DRAM.interleave=%u", 256u << gd_gen_range(r, 0, 1));
        GD_GEN_SET("DRAM.burst_cycles=%u", (unsigned)gd_gen_range(r, 1, 2));
        if (timeout)
            GD_GEN_SET("DRAM.row_timeout=%u", (unsigned)gd_gen_range(r, 1000, 5000));
    }
    if (seed % 2) {
        GD_GEN_SET("noise.jitter=2");
        GD_GEN_SET("noise.outlier_rate=0.002");
        GD_GEN_SET("noise.outlier_cycles=300");
        GD_GEN_SET("noise.seed=%llu", (unsigned long long)seed);
    }
#undef GD_GEN_SET
    return n;
}

#endif
