/* test_sim_lsu.c -- the simulated load/store unit: reservation-fail
 * accounting, MSHR merging, coalescing, shared-memory banks, and the counters
 * the device exports.  (The CN110457238A Figure 2 scenario, replayed cycle by
 * cycle through the command line, is tests/test_workloads_fig2.c.)
 *
 * Everything runs PTX kernels through the device interface; the counters test
 * also installs the engine's LSU trace hook (tests/lsu_trace_log.h).
 */
#include "tests/testing.h"

#include "host/device.h"
#include "host/device_registry.h"
#include "host/runner.h"
#include "host/whatif.h"
#include "kernels/workloads/workload.h"
#include "sim/cache.h"
#include "sim/engine.h"
#include "tests/lsu_trace_log.h"

#define HEADER ".version 6.3\n.target sm_75\n.address_size 64\n"

static gd_device *open_sim(const char *spec, const char *const *overrides, size_t count)
{
    gd_device *dev = NULL;
    gd_err err;
    gd_device_opts opts = {.overrides = overrides, .override_count = count};
    if (gd_device_open(spec, &opts, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    return dev;
}

/* Loads `ptx` (entry "k"), launches one CTA of `threads` threads with the
 * parameters (u64 buffer, u32 arg) and returns the counters' change. */
static void run_kernel(gd_device *dev, const char *ptx, unsigned threads, gd_devptr buf,
                       uint32_t arg, gd_counter_list *delta)
{
    gd_err err;
    gd_kernel *k = NULL;
    if (gd_kernel_load(dev, ptx, "k", NULL, &k, &err) != 0)
        fail_msg("%s", err.msg);
    gd_counter_list before = {0}, after = {0};
    assert_int_equal(gd_device_counters(dev, &before, &err), 0);
    const void *values[2] = {&buf, &arg};
    size_t sizes[2] = {8, 4};
    gd_launch l = {.grid = {1, 1, 1}, .block = {threads, 1, 1}, .param_count = 2,
                   .param_values = values, .param_sizes = sizes};
    if (gd_kernel_launch(dev, k, &l, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(gd_device_counters(dev, &after, &err), 0);
    for (size_t i = 0; i < after.count; i++) {
        double b = gd_counter_list_get(&before, after.items[i].name, 0);
        if (delta)
            assert_int_equal(gd_counter_list_add(delta, after.items[i].name, after.items[i].value - b), 0);
    }
    gd_counter_list_free(&before);
    gd_counter_list_free(&after);
    gd_kernel_unload(dev, k);
}

static double counter(const gd_counter_list *l, const char *name)
{
    double v = gd_counter_list_get(l, name, -1);
    if (v < 0)
        fail_msg("counter %s is missing", name);
    return v;
}

/* ------------------------------------------------------------------------- */
/* Reservation fails: the miss queue, and MSHR merging                       */

/* One lane loads the same word with 12 independent instructions: the first
 * misses, the next ones merge into its MSHR entry up to mshr_merge requests,
 * the one after is refused (merge limit) until the fill, then the rest hit. */
static const char *merge_ptx =
    HEADER
    ".visible .entry k(.param .u64 buf, .param .u32 arg)\n{\n"
    ".reg .b32 %r<16>;\n.reg .b64 %rd<4>;\n"
    "ld.param.u64 %rd1, [buf];\n"
    "ld.global.u32 %r0, [%rd1];\nld.global.u32 %r1, [%rd1];\nld.global.u32 %r2, [%rd1];\n"
    "ld.global.u32 %r3, [%rd1];\nld.global.u32 %r4, [%rd1];\nld.global.u32 %r5, [%rd1];\n"
    "ld.global.u32 %r6, [%rd1];\nld.global.u32 %r7, [%rd1];\nld.global.u32 %r8, [%rd1];\n"
    "ld.global.u32 %r9, [%rd1];\nld.global.u32 %r10, [%rd1];\nld.global.u32 %r11, [%rd1];\n"
    "ret;\n}\n";

static void merge_case(const char *merge_override, double merges, double hits, int refused)
{
    const char *ov[] = {merge_override};
    gd_device *dev = open_sim("sim:tiny", ov, 1);
    gd_err err;
    gd_devptr buf;
    assert_int_equal(gd_mem_alloc(dev, 4096, &buf, &err), 0);
    gd_counter_list d = {0};
    run_kernel(dev, merge_ptx, 1, buf, 0, &d);
    assert_int_equal(counter(&d, "global.loads"), 12);
    assert_int_equal(counter(&d, "l1d.misses"), 1);
    assert_int_equal(counter(&d, "l1d.mshr_merges"), merges);
    assert_int_equal(counter(&d, "l1d.hits"), hits);
    if (refused) {
        assert_true(counter(&d, "l1d.reservation_fails.merge") > 0);
        assert_true(counter(&d, "l1d.reservation_fails") ==
                    counter(&d, "l1d.reservation_fails.merge"));
        assert_true(counter(&d, "lsu.issue_stall_cycles") > 0);
    } else {
        assert_int_equal(counter(&d, "l1d.reservation_fails"), 0);
    }
    gd_counter_list_free(&d);
    gd_device_close(dev);
}

static void test_mshr_merge_limit(void **state)
{
    (void)state;
    merge_case("L1D.mshr_merge=8", 7, 4, 1);  /* 1 miss + 7 merges fill the entry */
    merge_case("L1D.mshr_merge=4", 3, 8, 1);
    merge_case("L1D.mshr_merge=16", 11, 0, 0);
}

/* A full miss queue refuses requests too: each of 16 L1-bypassing requests
 * needs two messages (its lanes use both 64-byte L2 lines of a 128-byte L1
 * line), the queue holds two and sends one per cycle. */
static void test_miss_queue_refusals(void **state)
{
    (void)state;
    const char *ptx = HEADER
        ".visible .entry k(.param .u64 buf, .param .u32 arg)\n{\n"
        ".reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n"
        "ld.param.u64 %rd1, [buf];\n"
        "mov.u32 %r1, %tid.x;\n"
        "mul.wide.u32 %rd2, %r1, 64;\n"      /* lane t: line t/2, half t%2 */
        "add.s64 %rd3, %rd1, %rd2;\n"
        "ld.global.cg.u32 %r2, [%rd3];\n"
        "ret;\n}\n";
    const char *ov[] = {"L1D.miss_queue=2"};
    gd_device *dev = open_sim("sim:tiny", ov, 1);
    gd_err err;
    gd_devptr buf;
    assert_int_equal(gd_mem_alloc(dev, 8192, &buf, &err), 0);
    gd_counter_list d = {0};
    run_kernel(dev, ptx, 32, buf, 0, &d);
    /* a request takes both slots, one is sent the same cycle: the next probe
     * finds one slot and is refused, the next cycle both are free again */
    assert_int_equal(counter(&d, "coalesce.requests"), 16);
    assert_int_equal(counter(&d, "l1d.reservation_fails.miss_queue"), 15);
    assert_true(counter(&d, "l1d.reservation_fails.miss_queue") > 0);
    assert_true(counter(&d, "l1d.reservation_fails") ==
                counter(&d, "l1d.reservation_fails.miss_queue"));
    gd_counter_list_free(&d);
    gd_device_close(dev);
}

/* ------------------------------------------------------------------------- */
/* Coalescing                                                                */

/* Lanes below `arg >> 16` load 4 bytes at buf + tid * (arg & 0xffff). */
static const char *coalesce_ptx =
    HEADER
    ".visible .entry k(.param .u64 buf, .param .u32 arg)\n{\n"
    ".reg .pred %p<2>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<4>;\n"
    "ld.param.u64 %rd1, [buf];\n"
    "ld.param.u32 %r1, [arg];\n"
    "and.b32 %r2, %r1, 65535;\n"
    "shr.u32 %r3, %r1, 16;\n"
    "mov.u32 %r4, %tid.x;\n"
    "setp.lt.u32 %p1, %r4, %r3;\n"
    "mul.wide.u32 %rd2, %r4, %r2;\n"
    "add.s64 %rd3, %rd1, %rd2;\n"
    "@%p1 ld.global.u32 %r5, [%rd3];\n"
    "ret;\n}\n";

static void test_coalescing(void **state)
{
    (void)state;
    static const struct {
        uint32_t stride, lanes;
        double requests, sectors;
    } cases[] = {
        {4, 32, 1, 4},     /* 128 contiguous bytes: one line, every sector */
        {8, 32, 2, 8},     /* 256 bytes */
        {32, 32, 8, 32},   /* one word per sector */
        {128, 32, 32, 32}, /* one word per line */
        {4, 16, 1, 2},
        {4, 8, 1, 1},
        {4, 1, 1, 1},
        {128, 5, 5, 5},
        {64, 12, 6, 12},
    };
    gd_device *dev = open_sim("sim:tiny", NULL, 0);
    gd_err err;
    gd_devptr buf;
    assert_int_equal(gd_mem_alloc(dev, 8192, &buf, &err), 0);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gd_counter_list d = {0};
        run_kernel(dev, coalesce_ptx, 32, buf, cases[i].lanes << 16 | cases[i].stride, &d);
        assert_int_equal(counter(&d, "global.loads"), 1);
        if (counter(&d, "coalesce.requests") != cases[i].requests ||
            counter(&d, "coalesce.sectors") != cases[i].sectors)
            fail_msg("stride %u, %u lanes: %g requests and %g sectors, expected %g and %g",
                     cases[i].stride, cases[i].lanes, counter(&d, "coalesce.requests"),
                     counter(&d, "coalesce.sectors"), cases[i].requests, cases[i].sectors);
        gd_counter_list_free(&d);
    }
    gd_device_close(dev);
}

/* ------------------------------------------------------------------------- */
/* Shared-memory banks                                                       */

/* 32 lanes; lane t reads a word at t * (arg & 0xffff) bytes, or all lanes the
 * same word when the stride is 0, with the access's width in arg >> 16 (4 or 8);
 * the kernel stores the cycles from before the load to after its first use. */
static const char *bank_ptx =
    HEADER
    ".visible .entry k(.param .u64 buf, .param .u32 arg)\n{\n"
    ".reg .pred %p<2>;\n.reg .b32 %r<12>;\n.reg .b64 %rd<12>;\n"
    ".shared .align 8 .b8 tile[8192];\n"
    "ld.param.u64 %rd1, [buf];\n"
    "ld.param.u32 %r1, [arg];\n"
    "and.b32 %r2, %r1, 65535;\n"
    "shr.u32 %r3, %r1, 16;\n"
    "mov.u32 %r4, %tid.x;\n"
    "mul.lo.u32 %r5, %r4, %r2;\n"
    "mov.u32 %r6, tile;\n"
    "add.u32 %r7, %r6, %r5;\n"
    "setp.eq.u32 %p1, %r3, 8;\n"
    "mov.u64 %rd2, %clock64;\n"
    "@%p1 bra WIDE;\n"
    "ld.shared.u32 %r8, [%r7];\n"
    "add.u32 %r9, %r8, 1;\n"
    "bra DONE;\n"
    "WIDE:\n"
    "ld.shared.u64 %rd5, [%r7];\n"
    "add.u64 %rd6, %rd5, 1;\n"
    "DONE:\n"
    "mov.u64 %rd3, %clock64;\n"
    "sub.u64 %rd4, %rd3, %rd2;\n"
    "st.global.u64 [%rd1], %rd4;\n"
    "ret;\n}\n";

static double bank_case(gd_device *dev, gd_devptr buf, uint32_t stride, uint32_t width,
                        double *cycles)
{
    gd_err err;
    gd_counter_list d = {0};
    run_kernel(dev, bank_ptx, 32, buf, width << 16 | stride, &d);
    assert_int_equal(counter(&d, "smem.accesses"), 1);
    double replays = counter(&d, "smem.replays");
    uint64_t t = 0;
    assert_int_equal(gd_mem_copy_out(dev, &t, buf, 8, &err), 0);
    *cycles = (double)t;
    gd_counter_list_free(&d);
    return replays;
}

static void test_bank_conflicts(void **state)
{
    (void)state;
    gd_device *dev = open_sim("sim:tiny", NULL, 0); /* 32 banks x 4 bytes */
    gd_err err;
    gd_devptr buf;
    assert_int_equal(gd_mem_alloc(dev, 64, &buf, &err), 0);
    double c1, c2, c32, c0, c64;
    assert_int_equal(bank_case(dev, buf, 4, 4, &c1), 0);      /* stride 1 word: no conflict */
    assert_int_equal(bank_case(dev, buf, 8, 4, &c2), 1);      /* stride 2: 2-way */
    assert_int_equal(bank_case(dev, buf, 12, 4, &c64), 0);    /* stride 3 (odd): none */
    assert_int_equal(bank_case(dev, buf, 128, 4, &c32), 31);  /* stride 32: 32-way */
    assert_int_equal(bank_case(dev, buf, 0, 4, &c0), 0);      /* one word: broadcast */
    /* each replay is one more cycle before the data */
    assert_true(c2 == c1 + 1);
    assert_true(c32 == c1 + 31);
    assert_true(c0 == c1);
    /* 8-byte words at a stride of 8 bytes span 64 banks' worth: two passes */
    assert_int_equal(bank_case(dev, buf, 8, 8, &c64), 1);
    gd_device_close(dev);

    /* the arch's [SMEM] section decides: 8-byte banks take the stride-2 words
     * without conflict, and 16 banks fold a stride of 1 word into 2 ways */
    const char *wide[] = {"SMEM.bank_width=8"};
    dev = open_sim("sim:tiny", wide, 1);
    assert_int_equal(gd_mem_alloc(dev, 64, &buf, &err), 0);
    assert_int_equal(bank_case(dev, buf, 8, 4, &c2), 0);
    assert_int_equal(bank_case(dev, buf, 256, 4, &c2), 31);
    gd_device_close(dev);
    const char *narrow[] = {"SMEM.banks=16"};
    dev = open_sim("sim:tiny", narrow, 1);
    assert_int_equal(gd_mem_alloc(dev, 64, &buf, &err), 0);
    assert_int_equal(bank_case(dev, buf, 4, 4, &c1), 1);
    assert_int_equal(bank_case(dev, buf, 32, 4, &c1), 15); /* words 8t: banks 0 and 8 */
    gd_device_close(dev);
}

/* ------------------------------------------------------------------------- */
/* Counters                                                                  */

/* A sub-partition none of whose warps is ready is skipped without looking at
 * each (sim_sm.sub_ready), warps a full LSU refused wait parked until it
 * frees, and an SM with nothing to do is passed by (sim_engine.sm_quiet): a
 * DRAM copy of every SM's 32 warps, and a read over a 40-SM chip with lines
 * in flight, give the same samples and the same counters -- cycles visited
 * included -- as looking at every SM and warp on every cycle
 * (GPUDISSECT_SIM_LOOK_AT_EVERY_WARP=1, the engine before). */
static gd_curve bw_point(const char *spec, const char *variant, const char *size,
                         int look_at_every_warp, gd_counter_list *delta)
{
    if (look_at_every_warp)
        setenv("GPUDISSECT_SIM_LOOK_AT_EVERY_WARP", "1", 1);
    else
        unsetenv("GPUDISSECT_SIM_LOOK_AT_EVERY_WARP");
    gd_device *dev = open_sim(spec, NULL, 0);
    unsetenv("GPUDISSECT_SIM_LOOK_AT_EVERY_WARP");
    gd_err err;
    gd_runner runner;
    gd_runner_init(&runner, dev, NULL, NULL);
    runner.chained = 1; /* in this process */
    gd_probe_opts opts = {0};
    snprintf(opts.variant, sizeof opts.variant, "%s", variant);
    gd_curve curve;
    gd_curve_init(&curve, variant, gd_probe_find("bandwidth"), &opts);
    gd_sweep sweep;
    char range[64];
    snprintf(range, sizeof range, "%s:%s", size, size);
    assert_int_equal(gd_sweep_parse(range, 1, &sweep, &err), 0);
    gd_counter_list before = {0}, after = {0};
    assert_int_equal(gd_device_counters(dev, &before, &err), 0);
    if (gd_runner_sweep(&runner, &curve, &sweep, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(gd_device_counters(dev, &after, &err), 0);
    for (size_t i = 0; i < after.count; i++)
        assert_int_equal(gd_counter_list_add(delta, after.items[i].name,
                                              after.items[i].value -
                                                  gd_counter_list_get(&before, after.items[i].name, 0)),
                         0);
    gd_counter_list_free(&before);
    gd_counter_list_free(&after);
    gd_sweep_free(&sweep);
    gd_runner_close(&runner);
    gd_device_close(dev);
    return curve;
}

static void same_point(const char *spec, const char *variant, const char *size,
                       const char *guard)
{
    gd_counter_list skip = {0}, every = {0};
    gd_curve a = bw_point(spec, variant, size, 0, &skip),
             b = bw_point(spec, variant, size, 1, &every);
    /* the case this guards is there */
    if (!(counter(&skip, guard) > 0))
        fail_msg("%s %s: no %s", spec, variant, guard);
    assert_int_equal(skip.count, every.count);
    for (size_t i = 0; i < skip.count; i++)
        if (skip.items[i].value != gd_counter_list_get(&every, skip.items[i].name, -1))
            fail_msg("%s %s: counter %s: %g skipping idle SMs and sub-partitions, %g looking "
                     "at every warp",
                     spec, variant, skip.items[i].name, skip.items[i].value,
                     gd_counter_list_get(&every, skip.items[i].name, -1));
    assert_int_equal(a.count, 1);
    assert_int_equal(b.count, 1);
    assert_int_equal(a.points[0].series_count, b.points[0].series_count);
    for (size_t k = 0; k < a.points[0].series_count; k++) {
        const gd_point_series *x = &a.points[0].series[k], *y = &b.points[0].series[k];
        assert_string_equal(x->name, y->name);
        assert_true(x->summary.count == y->summary.count);
        for (size_t j = 0; j < x->summary.count; j++)
            assert_true(x->samples[j] == y->samples[j]);
    }
    gd_curve_free(&a);
    gd_curve_free(&b);
    gd_counter_list_free(&skip);
    gd_counter_list_free(&every);
}

static void test_idle_warps_not_looked_at(void **state)
{
    (void)state;
    /* warps refused by the LSU, cycles with none ready */
    same_point("sim:tiny", "copy", "256KiB", "lsu.issue_stall_cycles");
    /* 40 SMs waiting on DRAM most cycles: passed by */
    same_point("sim:t4", "read", "2MiB", "dram.reads");
}

static void test_counters_exported(void **state)
{
    (void)state;
    static const char *const names[] = {
        "l1d.reservation_fails", "l1d.reservation_fails.set", "l1d.reservation_fails.mshr",
        "l1d.reservation_fails.merge", "l1d.reservation_fails.miss_queue",
        "l1d.reservation_stall_cycles", "l1d.requeues", "l1d.mshr_merges",
        "l1d.fifo_occupancy_mean", "l1d.fifo_occupancy_max", "lsu.coalescer_stall_cycles",
        "lsu.issue_stall_cycles", "coalesce.requests", "coalesce.sectors",
        "coalesce.requests_per_insn", "coalesce.sectors_per_insn", "smem.accesses", "smem.replays",
    };
    /* the fig2 workload, run through the device interface with the engine's
     * trace hook, reorder and pipelined issue on */
    const char *on[] = {"L1D.reorder=true", "L1D.pipelined_issue=true"};
    gd_device *dev = open_sim("sim:cn110457238", on, 2);
    sim_engine *e = sim_device_engine(dev);
    assert_non_null(e);
    trace_log log = {0};
    e->lsu_trace = record;
    e->lsu_trace_user = &log;
    gd_whatif_cell cell;
    gd_err err;
    if (gd_whatif_exec(dev, gd_workload_find("fig2"), 1, 0, NULL, &cell, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(cell.errors, 0);
    gd_counter_list delta = {0};
    assert_int_equal(gd_device_counters(dev, &delta, &err), 0);
    gd_device_close(dev);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        counter(&delta, names[i]);
    /* 21 + 24 requests from the 2 loads, one 32-B sector of each line, and
     * the store of 32 consecutive words: one line, 4 sectors */
    assert_int_equal(counter(&delta, "coalesce.requests"), 46);
    assert_int_equal(counter(&delta, "coalesce.sectors"), 49);
    assert_true(counter(&delta, "coalesce.requests_per_insn") == 46.0 / 3);
    assert_true(counter(&delta, "coalesce.sectors_per_insn") == 49.0 / 3);
    /* the FIFO's occupancy as the trace sees it */
    long occupancy = 0, max = 0;
    for (size_t i = 0; i < log.count; i++) {
        occupancy += log.ev[i].kind == SIM_LSU_ENQUEUE;
        occupancy -= log.ev[i].kind == SIM_LSU_POP;
        if (occupancy > max)
            max = occupancy;
    }
    assert_true(max >= 21);
    assert_int_equal(counter(&delta, "l1d.fifo_occupancy_max"), max);
    assert_true(counter(&delta, "l1d.fifo_occupancy_mean") > 0);
    /* the coalescer paused for every re-enqueued request while it had b's */
    assert_true(counter(&delta, "lsu.coalescer_stall_cycles") > 0);
    assert_true(counter(&delta, "l1d.reservation_fails") == (double)count_kind(&log, SIM_LSU_RESV_FAIL));
    gd_counter_list_free(&delta);
    free(log.ev);

    /* through the CLI: --set switches the mechanisms on, meta.json has the counters */
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    char cmd[2048], out[8192];
    snprintf(cmd, sizeof cmd,
             "%s run --device sim:cn110457238 --set L1D.reorder=true --set L1D.pipelined_issue=1 "
             "--probe pchase --sweep 1KiB:2KiB --quiet --out %s/run",
             gd_test_binary(), dir);
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 0);
    snprintf(cmd, sizeof cmd, "cat %s/run/meta.json", dir);
    static char meta[1 << 16];
    assert_int_equal(gd_test_run(cmd, meta, sizeof meta), 0);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char quoted[96];
        snprintf(quoted, sizeof quoted, "\"%s\"", names[i]);
        if (!strstr(meta, quoted))
            fail_msg("meta.json lacks %s", names[i]);
    }
    /* a bad value for the flag is a usage error naming the override */
    snprintf(cmd, sizeof cmd,
             "%s run --device sim:cn110457238 --set L1D.reorder=maybe --probe pchase "
             "--sweep 1KiB:2KiB --quiet --out %s/bad",
             gd_test_binary(), dir);
    assert_int_not_equal(gd_test_run(cmd, out, sizeof out), 0);
    assert_non_null(strstr(out, "L1D.reorder=maybe"));
    gd_test_rmrf(dir);
    free(dir);
}

/* sim/cache.c: a cache of foreign lines (an L2 that earlier programs filled)
 * writes a set's lines when a victim is first chosen in it -- a 60 MiB L2 of
 * 32-byte lines is 47 MB of them, written in every point's process.  Until
 * then a lookup misses and the set can allocate; its victims are its foreign
 * lines oldest first (LRU: way 0 first), as if all had been written; the other
 * sets stay unwritten, and a flush after writes zeroes every line. */
static void test_cache_foreign_lines_written_when_needed(void **state)
{
    (void)state;
    gd_arch_level lv = {0};
    lv.sets = 6;
    lv.ways = 4;
    lv.line_bytes = lv.sector_bytes = 32;
    lv.replacement = GD_REPL_LRU;
    sim_cache c;
    gd_err err;
    assert_int_equal(sim_cache_init(&c, &lv, 1, &err), 0);
    sim_cache_fill_foreign(&c, 2);
    uint64_t base = 6ull * ((1ull << 34) + 2 * 4); /* the first foreign tag of salt 2 */
    for (uint64_t line = 0; line < 24; line++) {
        assert_null(sim_cache_find(&c, line));
        assert_true(sim_cache_can_allocate(&c, line));
    }
    for (uint32_t k = 0; k < 4; k++) {
        uint64_t line = 1 + 6 * k; /* set 1 */
        sim_cache_line *v = sim_cache_victim(&c, line);
        assert_non_null(v);
        assert_true(v->present);
        assert_int_equal(v->tag, base + 1 + 6 * k);
        assert_int_equal(v->valid_sectors, 1);
        sim_cache_install(&c, v, line);
        assert_ptr_equal(sim_cache_find(&c, line), v);
    }
    sim_cache_line *v = sim_cache_victim(&c, 25);
    assert_non_null(v);
    assert_int_equal(v->tag, 1); /* the first line installed: least recently used */
    for (uint32_t i = 0; i < 24; i++)
        if (i / 4 != 1 && c.lines[i].present)
            fail_msg("set %u way %u was written before any victim was chosen in it", i / 4, i % 4);
    sim_cache_flush(&c);
    for (uint32_t i = 0; i < 24; i++)
        assert_false(c.lines[i].present || c.lines[i].tag || c.lines[i].valid_sectors);
    assert_null(sim_cache_find(&c, 1));
    sim_cache_destroy(&c);
}

/* sim/cache.c: each set counts its reserved ways (sim_cache_reserve/release):
 * a random victim is never a reserved way, a set whose ways are all reserved
 * can allocate none, and once released every way is a victim again. */
static void test_cache_reserved_ways_counted(void **state)
{
    (void)state;
    gd_arch_level lv = {0};
    lv.sets = 1;
    lv.ways = 4;
    lv.line_bytes = lv.sector_bytes = 32;
    lv.replacement = GD_REPL_RANDOM;
    sim_cache c;
    gd_err err;
    assert_int_equal(sim_cache_init(&c, &lv, 7, &err), 0);
    sim_cache_line *way[4];
    for (uint64_t k = 0; k < 4; k++) {
        way[k] = sim_cache_victim(&c, k);
        assert_ptr_equal(way[k], &c.lines[k]); /* free ways first, in order */
        sim_cache_install(&c, way[k], k);
    }
    sim_cache_reserve(&c, way[0]);
    sim_cache_reserve(&c, way[0]); /* once is what counts */
    sim_cache_reserve(&c, way[2]);
    assert_int_equal(c.reserved_ways[0], 2);
    assert_true(sim_cache_can_allocate(&c, 9));
    unsigned seen[4] = {0};
    for (int i = 0; i < 200; i++) {
        sim_cache_line *v = sim_cache_victim(&c, 9);
        assert_non_null(v);
        seen[v - c.lines]++;
    }
    assert_true(!seen[0] && !seen[2] && seen[1] && seen[3]);
    sim_cache_reserve(&c, way[1]);
    sim_cache_reserve(&c, way[3]);
    assert_false(sim_cache_can_allocate(&c, 9));
    assert_null(sim_cache_victim(&c, 9));
    for (int k = 0; k < 4; k++)
        sim_cache_release(&c, way[k]);
    sim_cache_release(&c, way[0]); /* released twice: still none reserved */
    assert_int_equal(c.reserved_ways[0], 0);
    memset(seen, 0, sizeof seen);
    for (int i = 0; i < 200; i++)
        seen[sim_cache_victim(&c, 9) - c.lines]++;
    assert_true(seen[0] && seen[1] && seen[2] && seen[3]);
    sim_cache_destroy(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mshr_merge_limit),
        cmocka_unit_test(test_miss_queue_refusals),
        cmocka_unit_test(test_coalescing),
        cmocka_unit_test(test_bank_conflicts),
        cmocka_unit_test(test_counters_exported),
        cmocka_unit_test(test_idle_warps_not_looked_at),
        cmocka_unit_test(test_cache_foreign_lines_written_when_needed),
        cmocka_unit_test(test_cache_reserved_ways_counted),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
