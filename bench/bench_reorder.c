/* bench_reorder.c -- CN110457238A's two mechanisms on irregular workloads.
 *
 * Runs PTX kernels on sim:cn110457238 (the patent's embodiment-2 GPU) through
 * the ordinary device interface, once as today's GPUs do (a reservation-failed
 * request blocks the L1 request FIFO; one memory instruction in the load unit at
 * a time) and once with the patent's reorder + pipelined issue
 * (--set L1D.reorder=true --set L1D.pipelined_issue=true):
 *
 *   gather f    every thread sums 16 elements data[idx[...]] of a 4 MiB array
 *               (4 independent gathers per loop trip); in each warp load a
 *               fraction f of the lanes go to distinct lines of one L1 set (more
 *               lines than its 4 ways), the rest to random lines;
 *   bfs         level-synchronous breadth-first search of a random graph (32768
 *               vertices, out-degree 8, CSR): per level, each frontier vertex
 *               reads its edge list and gathers its neighbours' levels;
 *   stencil     5-point integer stencil on a 1024-wide grid whose row pitch (4 KiB)
 *               maps the up, centre and down rows to the same L1 set.
 *
 * It prints the simulated cycles of each workload under both designs, the
 * speedup, the geometric mean over the workloads, and the patent's claim
 * (+23% geometric-mean performance, para. 0068) beside it, whatever the numbers
 * say.  A third run per workload gives the FIFO tail a second write port
 * (L1D.fifo_tail_ports=2, not in the patent): the patent's tail takes one request
 * per cycle and a re-enqueued request wins it, so while every queued request is
 * refused the coalescer cannot add the ones that could proceed; the last table
 * (FIFO occupancy, what refused requests lacked, L1 hit rate) shows where the
 * cycles go.  Every run's output is checked against the host's computation.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host/device.h"
#include "host/device_registry.h"

#define PATENT_CLAIM 1.23 /* CN110457238A para. 0068: geometric-mean performance +23% */
#define CTA_THREADS 256
#define WARP 32
#define L1_SETS 32        /* cn110457238.arch: 16 KiB / (4 ways x 128 B) */
#define LINE_WORDS 32     /* 128-byte lines of 4-byte words */

#define HEADER ".version 6.3\n.target sm_75\n.address_size 64\n"

/* ------------------------------------------------------------------------- */
/* Running a kernel                                                          */

typedef struct run_stats {
    double cycles, fails, requeues, hol_cycles, occupancy;
    double fails_by[4]; /* set, mshr, merge, miss queue */
    double hits, misses;
} run_stats;

static uint64_t rng_state = 0x2545f4914f6cdd1dull;

static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

static int counters_add(gd_device *dev, run_stats *s, double sign, gd_err *err)
{
    gd_counter_list cl = {0};
    if (gd_device_counters(dev, &cl, err) != 0)
        return -1;
    s->cycles += sign * gd_counter_list_get(&cl, "sim.cycles", 0);
    s->fails += sign * gd_counter_list_get(&cl, "l1d.reservation_fails", 0);
    s->requeues += sign * gd_counter_list_get(&cl, "l1d.requeues", 0);
    s->hol_cycles += sign * gd_counter_list_get(&cl, "l1d.reservation_stall_cycles", 0);
    s->occupancy += sign * gd_counter_list_get(&cl, "l1d.fifo_occupancy_cycles", 0);
    static const char *const reasons[4] = {"set", "mshr", "merge", "miss_queue"};
    for (int i = 0; i < 4; i++) {
        char name[64];
        snprintf(name, sizeof name, "l1d.reservation_fails.%s", reasons[i]);
        s->fails_by[i] += sign * gd_counter_list_get(&cl, name, 0);
    }
    s->hits += sign * gd_counter_list_get(&cl, "l1d.hits", 0);
    s->misses += sign * gd_counter_list_get(&cl, "l1d.misses", 0);
    gd_counter_list_free(&cl);
    return 0;
}

/* Launches `k` on grid x block with up to 6 parameters (u64 pointers, then u32s). */
static int launch(gd_device *dev, gd_kernel *k, unsigned gx, unsigned gy, const void *const *values,
                  const size_t *sizes, unsigned count, run_stats *s, gd_err *err)
{
    gd_launch l = {.grid = {gx, gy, 1}, .block = {CTA_THREADS, 1, 1}, .param_count = count,
                   .param_values = values, .param_sizes = sizes};
    if (counters_add(dev, s, -1, err) || gd_kernel_launch(dev, k, &l, err) ||
        gd_device_synchronize(dev, err) || counters_add(dev, s, 1, err))
        return -1;
    return 0;
}

/* ------------------------------------------------------------------------- */
/* gather                                                                    */

#define GATHER_CTAS 90   /* 6 CTAs of 8 warps on each of 15 SMs: 48 warps, the SM's limit */
#define GATHER_TRIPS 4
#define GATHER_UNROLL 4

static const char *gather_ptx =
    HEADER
    ".visible .entry gather(.param .u64 data, .param .u64 idx, .param .u64 out, .param .u32 trips)\n"
    "{\n"
    ".reg .pred %p<2>;\n.reg .b32 %r<32>;\n.reg .b64 %rd<32>;\n"
    "ld.param.u64 %rd1, [data];\nld.param.u64 %rd2, [idx];\nld.param.u64 %rd3, [out];\n"
    "ld.param.u32 %r1, [trips];\n"
    "mov.u32 %r2, %ctaid.x;\nmov.u32 %r3, %ntid.x;\nmov.u32 %r4, %tid.x;\n"
    "mad.lo.u32 %r5, %r2, %r3, %r4;\n"         /* global thread */
    "mov.u32 %r6, %nctaid.x;\nmul.lo.u32 %r7, %r6, %r3;\n" /* threads */
    "mul.wide.u32 %rd4, %r7, 4;\n"             /* bytes between a thread's indices */
    "mul.wide.u32 %rd5, %r5, 4;\nadd.s64 %rd6, %rd2, %rd5;\n"
    "mov.u32 %r8, 0;\nmov.u32 %r9, 0;\n"
    "LOOP:\n"
    "setp.ge.u32 %p1, %r8, %r1;\n"
    "@%p1 bra DONE;\n"
    "ld.global.u32 %r10, [%rd6];\nadd.s64 %rd6, %rd6, %rd4;\n"
    "ld.global.u32 %r11, [%rd6];\nadd.s64 %rd6, %rd6, %rd4;\n"
    "ld.global.u32 %r12, [%rd6];\nadd.s64 %rd6, %rd6, %rd4;\n"
    "ld.global.u32 %r13, [%rd6];\nadd.s64 %rd6, %rd6, %rd4;\n"
    "mul.wide.u32 %rd10, %r10, 4;\nadd.s64 %rd11, %rd1, %rd10;\nld.global.u32 %r14, [%rd11];\n"
    "mul.wide.u32 %rd12, %r11, 4;\nadd.s64 %rd13, %rd1, %rd12;\nld.global.u32 %r15, [%rd13];\n"
    "mul.wide.u32 %rd14, %r12, 4;\nadd.s64 %rd15, %rd1, %rd14;\nld.global.u32 %r16, [%rd15];\n"
    "mul.wide.u32 %rd16, %r13, 4;\nadd.s64 %rd17, %rd1, %rd16;\nld.global.u32 %r17, [%rd17];\n"
    "add.u32 %r9, %r9, %r14;\nadd.u32 %r9, %r9, %r15;\n"
    "add.u32 %r9, %r9, %r16;\nadd.u32 %r9, %r9, %r17;\n"
    "add.u32 %r8, %r8, 1;\n"
    "bra LOOP;\n"
    "DONE:\n"
    "add.s64 %rd7, %rd3, %rd5;\nst.global.u32 [%rd7], %r9;\n"
    "ret;\n}\n";

/* The index of every gather: per warp load, `conflicting` lanes (at random
 * places) get distinct lines of one random L1 set, the others random lines. */
static void gather_indices(uint32_t *idx, uint32_t words, uint32_t threads, uint32_t loads,
                           uint32_t conflicting)
{
    uint32_t lines = words / LINE_WORDS;
    for (uint32_t load = 0; load < loads; load++)
        for (uint32_t w = 0; w < threads / WARP; w++) {
            uint32_t *lane = &idx[(size_t)load * threads + w * WARP];
            uint32_t order[WARP];
            for (uint32_t i = 0; i < WARP; i++)
                order[i] = i;
            for (uint32_t i = WARP - 1; i > 0; i--) {
                uint32_t j = rnd(i + 1), t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
            uint32_t set = rnd(L1_SETS);
            for (uint32_t i = 0; i < WARP; i++) {
                uint32_t line;
                if (i < conflicting) {
                    int fresh;
                    do { /* a line of `set` that no earlier conflicting lane took */
                        line = rnd(lines / L1_SETS) * L1_SETS + set;
                        fresh = 1;
                        for (uint32_t k = 0; k < i; k++)
                            if (lane[order[k]] / LINE_WORDS == line)
                                fresh = 0;
                    } while (!fresh);
                } else {
                    line = rnd(lines);
                }
                lane[order[i]] = line * LINE_WORDS + rnd(LINE_WORDS);
            }
        }
}

static int run_gather(gd_device *dev, uint32_t words, double fraction, run_stats *s, int *ok,
                      gd_err *err)
{
    uint32_t threads = GATHER_CTAS * CTA_THREADS, loads = GATHER_TRIPS * GATHER_UNROLL;
    uint32_t *data = malloc(words * 4), *idx = malloc((size_t)threads * loads * 4);
    uint32_t *out = malloc(threads * 4);
    gd_kernel *k = NULL;
    int rc = -1;
    if (!data || !idx || !out) {
        gd_fail(err, "out of memory");
        goto done;
    }
    rng_state = 0x9e3779b97f4a7c15ull;
    for (uint32_t i = 0; i < words; i++)
        data[i] = rnd(1000);
    gather_indices(idx, words, threads, loads, (uint32_t)lround(fraction * WARP));
    gd_devptr d_data, d_idx, d_out;
    if (gd_kernel_load(dev, gather_ptx, "gather", NULL, &k, err) ||
        gd_mem_alloc(dev, words * 4, &d_data, err) ||
        gd_mem_alloc(dev, (size_t)threads * loads * 4, &d_idx, err) ||
        gd_mem_alloc(dev, threads * 4, &d_out, err) ||
        gd_mem_copy_in(dev, d_data, data, words * 4, err) ||
        gd_mem_copy_in(dev, d_idx, idx, (size_t)threads * loads * 4, err))
        goto done;
    uint32_t trips = GATHER_TRIPS;
    const void *values[] = {&d_data, &d_idx, &d_out, &trips};
    size_t sizes[] = {8, 8, 8, 4};
    if (launch(dev, k, GATHER_CTAS, 1, values, sizes, 4, s, err) ||
        gd_mem_copy_out(dev, out, d_out, threads * 4, err))
        goto done;
    *ok = 1;
    for (uint32_t t = 0; t < threads; t++) {
        uint32_t sum = 0;
        for (uint32_t l = 0; l < loads; l++)
            sum += data[idx[(size_t)l * threads + t]];
        if (sum != out[t])
            *ok = 0;
    }
    rc = 0;
done:
    if (k)
        gd_kernel_unload(dev, k);
    free(data);
    free(idx);
    free(out);
    return rc;
}

/* ------------------------------------------------------------------------- */
/* bfs                                                                       */

#define BFS_VERTICES 32768u
#define BFS_DEGREE 8u

static const char *bfs_ptx =
    HEADER
    ".visible .entry bfs(.param .u64 row, .param .u64 col, .param .u64 level, .param .u64 changed,\n"
    "                    .param .u32 n, .param .u32 cur)\n"
    "{\n"
    ".reg .pred %p<4>;\n.reg .b32 %r<24>;\n.reg .b64 %rd<24>;\n"
    "ld.param.u64 %rd1, [row];\nld.param.u64 %rd2, [col];\nld.param.u64 %rd3, [level];\n"
    "ld.param.u64 %rd4, [changed];\nld.param.u32 %r1, [n];\nld.param.u32 %r2, [cur];\n"
    "mov.u32 %r3, %ctaid.x;\nmov.u32 %r4, %ntid.x;\nmov.u32 %r5, %tid.x;\n"
    "mad.lo.u32 %r6, %r3, %r4, %r5;\n"          /* vertex v */
    "setp.ge.u32 %p1, %r6, %r1;\n"
    "@%p1 bra DONE;\n"
    "mul.wide.u32 %rd5, %r6, 4;\n"
    "add.s64 %rd6, %rd3, %rd5;\nld.global.u32 %r7, [%rd6];\n"   /* level[v] */
    "setp.ne.u32 %p2, %r7, %r2;\n"
    "@%p2 bra DONE;\n"
    "add.s64 %rd7, %rd1, %rd5;\nld.global.u32 %r8, [%rd7];\nld.global.u32 %r9, [%rd7+4];\n"
    "add.u32 %r10, %r2, 1;\n"
    "EDGE:\n"
    "setp.ge.u32 %p3, %r8, %r9;\n"
    "@%p3 bra DONE;\n"
    "mul.wide.u32 %rd8, %r8, 4;\nadd.s64 %rd9, %rd2, %rd8;\nld.global.u32 %r11, [%rd9];\n" /* u */
    "mul.wide.u32 %rd10, %r11, 4;\nadd.s64 %rd11, %rd3, %rd10;\nld.global.u32 %r12, [%rd11];\n"
    "setp.ne.u32 %p1, %r12, 4294967295;\n"
    "@%p1 bra NEXT;\n"
    "st.global.u32 [%rd11], %r10;\n"
    "st.global.u32 [%rd4], 1;\n"
    "NEXT:\n"
    "add.u32 %r8, %r8, 1;\n"
    "bra EDGE;\n"
    "DONE:\n"
    "ret;\n}\n";

static int run_bfs(gd_device *dev, run_stats *s, int *ok, gd_err *err)
{
    uint32_t n = BFS_VERTICES, edges = BFS_VERTICES * BFS_DEGREE;
    uint32_t *row = malloc((n + 1) * 4), *col = malloc(edges * 4);
    uint32_t *level = malloc(n * 4), *expect = malloc(n * 4), *queue = malloc(n * 4);
    gd_kernel *k = NULL;
    int rc = -1;
    if (!row || !col || !level || !expect || !queue) {
        gd_fail(err, "out of memory");
        goto done;
    }
    rng_state = 0xda942042e4dd58b5ull;
    for (uint32_t v = 0; v <= n; v++)
        row[v] = v * BFS_DEGREE;
    for (uint32_t e = 0; e < edges; e++)
        col[e] = rnd(n);
    /* the host's BFS from vertex 0 */
    for (uint32_t v = 0; v < n; v++)
        expect[v] = UINT32_MAX;
    expect[0] = 0;
    uint32_t head = 0, tail = 0;
    queue[tail++] = 0;
    while (head < tail) {
        uint32_t v = queue[head++];
        for (uint32_t e = row[v]; e < row[v + 1]; e++)
            if (expect[col[e]] == UINT32_MAX) {
                expect[col[e]] = expect[v] + 1;
                queue[tail++] = col[e];
            }
    }
    for (uint32_t v = 0; v < n; v++)
        level[v] = UINT32_MAX;
    level[0] = 0;
    gd_devptr d_row, d_col, d_level, d_changed;
    if (gd_kernel_load(dev, bfs_ptx, "bfs", NULL, &k, err) ||
        gd_mem_alloc(dev, (n + 1) * 4, &d_row, err) || gd_mem_alloc(dev, edges * 4, &d_col, err) ||
        gd_mem_alloc(dev, n * 4, &d_level, err) || gd_mem_alloc(dev, 4, &d_changed, err) ||
        gd_mem_copy_in(dev, d_row, row, (n + 1) * 4, err) ||
        gd_mem_copy_in(dev, d_col, col, edges * 4, err) ||
        gd_mem_copy_in(dev, d_level, level, n * 4, err))
        goto done;
    for (uint32_t cur = 0;; cur++) {
        uint32_t changed = 0;
        if (gd_mem_copy_in(dev, d_changed, &changed, 4, err))
            goto done;
        const void *values[] = {&d_row, &d_col, &d_level, &d_changed, &n, &cur};
        size_t sizes[] = {8, 8, 8, 8, 4, 4};
        if (launch(dev, k, (n + CTA_THREADS - 1) / CTA_THREADS, 1, values, sizes, 6, s, err) ||
            gd_mem_copy_out(dev, &changed, d_changed, 4, err))
            goto done;
        if (!changed)
            break;
    }
    if (gd_mem_copy_out(dev, level, d_level, n * 4, err))
        goto done;
    *ok = !memcmp(level, expect, n * 4);
    rc = 0;
done:
    if (k)
        gd_kernel_unload(dev, k);
    free(row);
    free(col);
    free(level);
    free(expect);
    free(queue);
    return rc;
}

/* ------------------------------------------------------------------------- */
/* stencil                                                                   */

#define STENCIL_W 1024u /* a 4 KiB row pitch: rows y-1, y, y+1 share an L1 set */
#define STENCIL_H 256u

static const char *stencil_ptx =
    HEADER
    ".visible .entry stencil(.param .u64 in, .param .u64 out, .param .u32 w, .param .u32 h)\n"
    "{\n"
    ".reg .pred %p<4>;\n.reg .b32 %r<24>;\n.reg .b64 %rd<16>;\n"
    "ld.param.u64 %rd1, [in];\nld.param.u64 %rd2, [out];\n"
    "ld.param.u32 %r1, [w];\nld.param.u32 %r2, [h];\n"
    "mov.u32 %r3, %ctaid.x;\nmov.u32 %r4, %ntid.x;\nmov.u32 %r5, %tid.x;\n"
    "mad.lo.u32 %r6, %r3, %r4, %r5;\n"          /* x */
    "mov.u32 %r7, %ctaid.y;\n"                  /* y */
    "sub.u32 %r8, %r1, 1;\nsub.u32 %r9, %r2, 1;\n"
    "setp.eq.u32 %p1, %r6, 0;\n@%p1 bra DONE;\n"
    "setp.ge.u32 %p1, %r6, %r8;\n@%p1 bra DONE;\n"
    "setp.eq.u32 %p1, %r7, 0;\n@%p1 bra DONE;\n"
    "setp.ge.u32 %p1, %r7, %r9;\n@%p1 bra DONE;\n"
    "mad.lo.u32 %r10, %r7, %r1, %r6;\n"          /* i = y * w + x */
    "mul.wide.u32 %rd3, %r10, 4;\nadd.s64 %rd4, %rd1, %rd3;\n"
    "mul.wide.u32 %rd5, %r1, 4;\n"
    "sub.s64 %rd6, %rd4, %rd5;\nadd.s64 %rd7, %rd4, %rd5;\n"
    "ld.global.u32 %r11, [%rd6];\n"              /* up */
    "ld.global.u32 %r12, [%rd4+-4];\n"           /* left */
    "ld.global.u32 %r13, [%rd4];\n"              /* centre */
    "ld.global.u32 %r14, [%rd4+4];\n"            /* right */
    "ld.global.u32 %r15, [%rd7];\n"              /* down */
    "add.u32 %r16, %r11, %r12;\nadd.u32 %r16, %r16, %r13;\n"
    "add.u32 %r16, %r16, %r14;\nadd.u32 %r16, %r16, %r15;\n"
    "add.s64 %rd8, %rd2, %rd3;\nst.global.u32 [%rd8], %r16;\n"
    "DONE:\n"
    "ret;\n}\n";

static int run_stencil(gd_device *dev, run_stats *s, int *ok, gd_err *err)
{
    uint32_t w = STENCIL_W, h = STENCIL_H, cells = STENCIL_W * STENCIL_H;
    uint32_t *in = malloc(cells * 4), *out = malloc(cells * 4);
    gd_kernel *k = NULL;
    int rc = -1;
    if (!in || !out) {
        gd_fail(err, "out of memory");
        goto done;
    }
    rng_state = 0x853c49e6748fea9bull;
    for (uint32_t i = 0; i < cells; i++)
        in[i] = rnd(1u << 20);
    gd_devptr d_in, d_out;
    if (gd_kernel_load(dev, stencil_ptx, "stencil", NULL, &k, err) ||
        gd_mem_alloc(dev, cells * 4, &d_in, err) || gd_mem_alloc(dev, cells * 4, &d_out, err) ||
        gd_mem_copy_in(dev, d_in, in, cells * 4, err) || gd_mem_fill(dev, d_out, 0, cells * 4, err))
        goto done;
    const void *values[] = {&d_in, &d_out, &w, &h};
    size_t sizes[] = {8, 8, 4, 4};
    if (launch(dev, k, w / CTA_THREADS, h, values, sizes, 4, s, err) ||
        gd_mem_copy_out(dev, out, d_out, cells * 4, err))
        goto done;
    *ok = 1;
    for (uint32_t y = 1; y + 1 < h; y++)
        for (uint32_t x = 1; x + 1 < w; x++) {
            uint32_t i = y * w + x;
            if (out[i] != in[i - w] + in[i - 1] + in[i] + in[i + 1] + in[i + w])
                *ok = 0;
        }
    rc = 0;
done:
    if (k)
        gd_kernel_unload(dev, k);
    free(in);
    free(out);
    return rc;
}

/* ------------------------------------------------------------------------- */

typedef struct workload {
    const char *name;
    int kind;        /* 0 gather, 1 bfs, 2 stencil */
    double fraction; /* gather: lanes to one L1 set */
    uint32_t table_kib; /* gather: size of the array gathered from */
} workload;

/* invention: 0 baseline, 1 the patent's reorder + pipelined issue, 2 the same with
 * a FIFO tail that takes a re-enqueued and a new request in one cycle */
static int run_workload(const workload *w, int invention, run_stats *s, int *ok, gd_err *err)
{
    const char *on[] = {"L1D.reorder=true", "L1D.pipelined_issue=true", "L1D.fifo_tail_ports=2"};
    gd_device_opts opts = {.overrides = on, .override_count = invention ? (size_t)invention + 1 : 0};
    gd_device *dev;
    if (gd_device_open("sim:cn110457238", &opts, &dev, err) != 0)
        return -1;
    memset(s, 0, sizeof *s);
    int rc = w->kind == 0   ? run_gather(dev, w->table_kib * 256, w->fraction, s, ok, err)
             : w->kind == 1 ? run_bfs(dev, s, ok, err)
                            : run_stencil(dev, s, ok, err);
    gd_device_close(dev);
    return rc;
}

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(void)
{
    static const workload workloads[] = {
        {"gather 0", 0, 0.0, 64},       {"gather 1/8", 0, 0.125, 64}, {"gather 1/4", 0, 0.25, 64},
        {"gather 1/2", 0, 0.5, 64},     {"gather 1/4 big", 0, 0.25, 4096},
        {"bfs", 1, 0, 0},               {"stencil", 2, 0, 0},
    };
    enum { COUNT = sizeof workloads / sizeof workloads[0] };
    double t0 = wall_seconds(), log_sum = 0, log_sum2 = 0;
    int all_ok = 1;
    run_stats base_of[COUNT], inv_of[COUNT];
    printf("CN110457238A on sim:cn110457238: baseline vs reorder + pipelined_issue\n");
    printf("  %-14s %11s %11s %8s %11s %11s %10s  %-5s %8s\n", "workload", "cycles base",
           "cycles inv", "speedup", "resv fails", "(inv)", "requeues", "check", "2 ports");
    for (size_t i = 0; i < COUNT; i++) {
        run_stats base, inv, two;
        int ok_base = 0, ok_inv = 0, ok_two = 0;
        gd_err err;
        if (run_workload(&workloads[i], 0, &base, &ok_base, &err) ||
            run_workload(&workloads[i], 1, &inv, &ok_inv, &err) ||
            run_workload(&workloads[i], 2, &two, &ok_two, &err)) {
            fprintf(stderr, "bench_reorder: %s: %s\n", workloads[i].name, err.msg);
            return 1;
        }
        base_of[i] = base;
        inv_of[i] = inv;
        double speedup = base.cycles / inv.cycles, speedup2 = base.cycles / two.cycles;
        log_sum += log(speedup);
        log_sum2 += log(speedup2);
        int ok = ok_base && ok_inv && ok_two;
        all_ok &= ok;
        printf("  %-14s %11.0f %11.0f %7.3fx %11.0f %11.0f %10.0f  %-5s %7.3fx\n",
               workloads[i].name, base.cycles, inv.cycles, speedup, base.fails, inv.fails,
               inv.requeues, ok ? "ok" : "WRONG", speedup2);
    }
    double gm = exp(log_sum / COUNT), gm2 = exp(log_sum2 / COUNT);
    printf("  geometric mean speedup        %.3fx (%+.1f%%); the patent claims %.2fx (%+.0f%%, "
           "para. 0068): ratio %.2f\n",
           gm, (gm - 1) * 100, PATENT_CLAIM, (PATENT_CLAIM - 1) * 100,
           (gm - 1) / (PATENT_CLAIM - 1));
    printf("  with a 2-port FIFO tail       %.3fx (%+.1f%%) (L1D.fifo_tail_ports=2: not in the "
           "patent, whose re-enqueued request pauses the coalescer)\n",
           gm2, (gm2 - 1) * 100);
    /* why: how full the FIFO was, what refused requests lacked, how often the L1 hit */
    printf("  %-14s %15s %27s %15s\n", "", "FIFO occupancy", "refused for: set / MSHR",
           "L1 hit rate");
    printf("  %-14s %7s %7s %13s %13s %7s %7s\n", "workload", "base", "inv", "base", "inv", "base",
           "inv");
    for (size_t i = 0; i < COUNT; i++) {
        const run_stats *b = &base_of[i], *v = &inv_of[i];
        double sms = 15; /* cn110457238.arch */
        printf("  %-14s %7.2f %7.2f %6.0f%%/%3.0f%% %6.0f%%/%3.0f%% %6.1f%% %6.1f%%\n",
               workloads[i].name, b->occupancy / b->cycles / sms, v->occupancy / v->cycles / sms,
               100 * b->fails_by[0] / (b->fails ? b->fails : 1),
               100 * b->fails_by[1] / (b->fails ? b->fails : 1),
               100 * v->fails_by[0] / (v->fails ? v->fails : 1),
               100 * v->fails_by[1] / (v->fails ? v->fails : 1),
               100 * b->hits / (b->hits + b->misses), 100 * v->hits / (v->hits + v->misses));
    }
    printf("  wall time                     %.1f s\n", wall_seconds() - t0);
    return all_ok ? 0 : 1;
}
