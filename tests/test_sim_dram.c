/* test_sim_dram.c -- the DRAM controller of sim/dram.c, driven directly.
 *
 * Write-backs (no fill to deliver) are handed to the controller of a small arch
 * with channels, in a chosen order and cycle, and the row-buffer counters say
 * what the scheduler did:
 *   - FR-FCFS: two rows of one bank interleaved A0 B0 A1 B1 are served A0 A1 B0
 *     B1 with a window (one activate, a row hit, one conflict, a row hit), in
 *     arrival order with a window of one (every access after the first a
 *     conflict);
 *   - the data bus: back-to-back row hits keep it busy burst_cycles per sector;
 *   - the address map: `interleave` bytes per channel in turn, rows of a channel
 *     on consecutive banks (gd_arch_dram_locate);
 *   - writes drained in batches ([DRAM] write_high / write_low): writes alone,
 *     fewer than write_high, still drain, in FR-FCFS order; a DRAM copy
 *     (`bandwidth --variant copy`, the same PTX as on a card) turns the bus
 *     around between reads and writes a tenth as often and moves more bytes
 *     per cycle than with one FR-FCFS over both; write_low at or above
 *     write_high is refused, naming the key;
 *   - the page-close timeout ([DRAM] row_timeout), with single reads handed to
 *     the controller at chosen cycles and the cycles to their data measured:
 *     a bank idle past the timeout is closed (a row hit + tRCD, a miss), one
 *     with another row open and recently used conflicts (+ tRP + tRCD); the
 *     self-precharge waits for the activate + tRAS; a read arriving while it
 *     runs waits for its end (even for the row that was open: no row hit);
 *     row_timeout 0 is the open-row policy (a conflict); a pointer chase that
 *     switches rows in one bank measures DRAM latency + tRCD with a timeout,
 *     + tRP + tRCD without; a value past the bound, or the key without
 *     channels, is refused naming the key.
 */
#include "tests/testing.h"

#include "analysis/arch.h"
#include "analysis/curve.h"
#include "host/device.h"
#include "host/device_registry.h"
#include "host/runner.h"
#include "kernels/probe.h"
#include "sim/memsys.h"

/* tiny: 2 channels x 4 banks, 1 KiB rows, 256-B interleave */
static const char *const base_ov[] = {"DRAM.channels=2", "DRAM.banks=4", "DRAM.row=1KiB",
                                      "DRAM.interleave=256", "DRAM.tCL=8", "DRAM.tRCD=10",
                                      "DRAM.tRP=12", "DRAM.tRAS=20", "DRAM.tCCD=2",
                                      "DRAM.burst_cycles=3", "DRAM.queue_entries=64"};
#define BASE_N (sizeof base_ov / sizeof base_ov[0])

static gd_device *open_tiny_with(const char *const *extra, size_t n)
{
    const char *ov[BASE_N + 4];
    assert_true(n <= 4);
    memcpy(ov, base_ov, sizeof base_ov);
    memcpy(ov + BASE_N, extra, n * sizeof *extra);
    gd_device_opts o = {ov, BASE_N + n};
    gd_device *dev;
    gd_err err;
    if (gd_device_open("sim:tiny", &o, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    return dev;
}

static gd_device *open_tiny(const char *queue_entries)
{
    return open_tiny_with(&queue_entries, 1);
}

/* Hands write-backs of one 32-byte sector at `addrs` to the controller at cycle
 * 0, runs it until idle; the counters into *hits, *misses, *conflicts. */
static void run_writes(gd_device *dev, const uint64_t *addrs, size_t n, uint64_t *hits,
                       uint64_t *misses, uint64_t *conflicts, uint64_t *bus)
{
    sim_engine *e = sim_device_engine(dev);
    sim_memsys *ms = e->memsys;
    uint64_t h0 = e->stats.dram_row_hits, m0 = e->stats.dram_row_misses,
             c0 = e->stats.dram_row_conflicts, b0 = e->stats.dram_bus_busy_cycles;
    for (size_t i = 0; i < n; i++) {
        int32_t mid = sim_msg_new(e);
        assert_true(mid >= 0);
        sim_msg *m = &ms->msg[mid];
        m->addr = addrs[i];
        m->bytes = 32;
        m->sectors = 1;
        m->is_store = 1;
        m->sm = 0;
        m->bypass_req = -1;
        sim_dram_submit(e, mid, 0);
    }
    uint64_t cycle = 0;
    while (sim_dram_busy(e)) {
        sim_dram_tick(e, cycle);
        uint64_t next = sim_dram_next_event(e, cycle + 1);
        assert_true(next != SIM_NEVER || !sim_dram_busy(e));
        cycle = next == SIM_NEVER ? cycle + 1 : next;
        assert_true(cycle < 100000);
    }
    assert_false(e->failed);
    *hits = e->stats.dram_row_hits - h0;
    *misses = e->stats.dram_row_misses - m0;
    *conflicts = e->stats.dram_row_conflicts - c0;
    *bus = e->stats.dram_bus_busy_cycles - b0;
}

static void test_address_map(void **state)
{
    (void)state;
    gd_arch a;
    gd_err err;
    char path[1024];
    assert_int_equal(gd_arch_resolve("tiny", path, sizeof path, &err), 0);
    assert_int_equal(gd_arch_load(path, base_ov, BASE_N, &a, &err), 0);
    uint32_t ch, bank;
    uint64_t row;
    gd_arch_dram_locate(&a, 0, &ch, &bank, &row);
    assert_true(ch == 0 && bank == 0 && row == 0);
    gd_arch_dram_locate(&a, 256, &ch, &bank, &row); /* the next chunk: the next channel */
    assert_true(ch == 1 && bank == 0 && row == 0);
    gd_arch_dram_locate(&a, 512, &ch, &bank, &row); /* channel 0 again, the same row */
    assert_true(ch == 0 && bank == 0 && row == 0);
    gd_arch_dram_locate(&a, 2048, &ch, &bank, &row); /* channel 0's second KiB: bank 1 */
    assert_true(ch == 0 && bank == 1 && row == 0);
    gd_arch_dram_locate(&a, 8192, &ch, &bank, &row); /* 4 KiB into channel 0: bank 0, row 1 */
    assert_true(ch == 0 && bank == 0 && row == 1);
}

/* A0 B0 A1 B1: rows 0 and 1 of channel 0, bank 0 */
static const uint64_t interleaved[] = {0, 8192, 32, 8192 + 32};

/* The four interleaved writes on `dev` (closed after), and their row counters */
static void expect_interleaved(gd_device *dev, uint64_t want_misses, uint64_t want_hits,
                               uint64_t want_conflicts)
{
    uint64_t hits, misses, conflicts, bus;
    run_writes(dev, interleaved, 4, &hits, &misses, &conflicts, &bus);
    assert_int_equal(misses, want_misses);
    assert_int_equal(hits, want_hits);
    assert_int_equal(conflicts, want_conflicts);
    gd_device_close(dev);
}

static void test_fr_fcfs_batches_row_hits(void **state)
{
    (void)state;
    /* A0 opens row 0; A1 goes before B0, B1 after it; B0 conflicts */
    expect_interleaved(open_tiny("DRAM.queue_entries=64"), 1, 2, 1);
}

static void test_window_of_one_is_fcfs(void **state)
{
    (void)state;
    expect_interleaved(open_tiny("DRAM.queue_entries=1"), 1, 0, 3);
}

static void test_bus_per_sector(void **state)
{
    (void)state;
    gd_device *dev = open_tiny("DRAM.queue_entries=64");
    uint64_t addrs[8];
    for (int i = 0; i < 8; i++)
        addrs[i] = (uint64_t)i * 32; /* the first 256-B chunk: one row of channel 0 */
    uint64_t hits, misses, conflicts, bus;
    run_writes(dev, addrs, 8, &hits, &misses, &conflicts, &bus);
    assert_int_equal(bus, 8 * 3);   /* burst_cycles 3 per sector */
    assert_int_equal(misses, 1);    /* one activate */
    assert_int_equal(hits, 7);
    gd_device_close(dev);
}

static void test_writes_alone_drain(void **state)
{
    (void)state;
    static const char *const drain[] = {"DRAM.queue_entries=64", "DRAM.write_high=8",
                                        "DRAM.write_low=2"};
    /* four writes, below write_high, no read queued: they go (run_writes
     * fails if the controller stops short), as FR-FCFS orders them */
    expect_interleaved(open_tiny_with(drain, 3), 1, 2, 1);
}

static double csv_value(const char *path, const char *name)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("no %s", path);
    char line[512];
    double v = -1;
    size_t n = strlen(name);
    while (fgets(line, sizeof line, f)) {
        const char *c = strchr(line, ',');
        if (c && !strncmp(c + 1, name, n) && c[1 + n] == ',')
            v = strtod(c + 2 + n, NULL); /* the counter's value, or a series' min */
    }
    fclose(f);
    if (v < 0)
        fail_msg("%s has no %s", path, name);
    return v;
}

/* `bandwidth --variant copy` at 4x the tiny L2 on the tiny DRAM, with `drain`
 * (extra --set options) or without */
static void run_copy(const char *dir, const char *drain, double *bytes_per_cycle,
                     double *turnarounds, double *writes)
{
    char cmd[4096], out[8192], path[1400];
    int len = snprintf(cmd, sizeof cmd, "%s run --device sim:tiny --probe bandwidth --variant copy "
                                        "--sweep 64KiB:64KiB --quiet --out %s %s",
                       gd_test_binary(), dir, drain);
    for (size_t i = 0; i < BASE_N; i++)
        len += snprintf(cmd + len, sizeof cmd - (size_t)len, " --set %s", base_ov[i]);
    snprintf(cmd + len, sizeof cmd - (size_t)len, " --set DRAM.tRTW=6 --set DRAM.tWTR=8");
    if (gd_test_run(cmd, out, sizeof out) != 0)
        fail_msg("%s failed:\n%s", cmd, out);
    snprintf(path, sizeof path, "%s/bandwidth.csv", dir);
    *bytes_per_cycle = csv_value(path, "bytes_per_cycle");
    snprintf(path, sizeof path, "%s/bandwidth.counters.csv", dir);
    *turnarounds = csv_value(path, "dram.turnarounds");
    *writes = csv_value(path, "dram.writes");
}

static void test_drain_batches_a_copy(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    char one[1200], batched[1200];
    snprintf(one, sizeof one, "%s/one", dir);
    snprintf(batched, sizeof batched, "%s/batched", dir);
    double bw1, turn1, w1, bw2, turn2, w2;
    run_copy(one, "", &bw1, &turn1, &w1);
    run_copy(batched, "--set DRAM.write_high=16 --set DRAM.write_low=4", &bw2, &turn2, &w2);
    printf("note: copy %.1f -> %.1f bytes/cycle, %.0f -> %.0f turnarounds, %.0f writes\n", bw1,
           bw2, turn1, turn2, w2);
    assert_true(w1 > 100 && w1 == w2); /* the same traffic */
    assert_true(turn1 > 100);
    assert_true(turn2 * 10 < turn1);
    assert_true(bw2 > bw1 * 1.2);
    gd_test_rmrf(dir);
    free(dir);
}

static void test_write_low_below_high(void **state)
{
    (void)state;
    const char *ov[BASE_N + 2];
    memcpy(ov, base_ov, sizeof base_ov);
    ov[BASE_N] = "DRAM.write_high=8";
    ov[BASE_N + 1] = "DRAM.write_low=8";
    gd_device_opts o = {ov, BASE_N + 2};
    gd_device *dev = NULL;
    gd_err err;
    assert_int_not_equal(gd_device_open("sim:tiny", &o, &dev, &err), 0);
    assert_non_null(strstr(err.msg, "write_low (8) must be below write_high (8)"));
}

/* ------------------------------------------------------------------------- */
/* Page-close timeout ([DRAM] row_timeout)                                    */

/* The tiny arch's DRAM path: a read reaches its channel's queue DRAM - L2 -
 * tCL = 102 cycles after it leaves the L2, and a row hit's data comes tCL
 * later: DRAM - L2 = 110 cycles (tCL 8, tRCD 10, tRP 12 from base_ov). */
#define TINY_HIT_CYCLES 110
#define TINY_T_RCD 10
#define TINY_T_RP 12
#define TINY_T_CL 8

/* addresses of channel 0, bank 0 (gd_arch_dram_locate, test_address_map) */
#define ROW0 0u
#define ROW0_NEXT_SECTOR 32u
#define ROW1 8192u

/* One read of a 32-byte sector at `addr`, handed to the controller at `cycle`
 * with nothing else in flight, run until the controller is idle: the cycles
 * from `cycle` to its first data cycle (when the controller hands it back).
 * The read is marked as the write buffer's own row read with no L2 read
 * waiting (wb_internal, wb_waiter -1): its data needs no L2 MSHR, so the
 * controller is driven alone, as run_writes drives it. */
static uint64_t read_at(gd_device *dev, uint64_t addr, uint64_t cycle)
{
    sim_engine *e = sim_device_engine(dev);
    sim_memsys *ms = e->memsys;
    assert_false(sim_dram_busy(e));
    int32_t mid = sim_msg_new(e);
    assert_true(mid >= 0);
    sim_msg *m = &ms->msg[mid];
    m->addr = addr;
    m->bytes = 32;
    m->sectors = 1;
    m->is_store = 0;
    m->sm = 0;
    m->bypass_req = -1;
    m->wb_internal = 1;
    m->wb_waiter = -1;
    sim_dram_submit(e, mid, cycle);
    uint64_t now = cycle, last = cycle;
    while (sim_dram_busy(e)) {
        sim_dram_tick(e, now);
        last = now;
        uint64_t next = sim_dram_next_event(e, now + 1);
        assert_true(next != SIM_NEVER || !sim_dram_busy(e));
        now = next == SIM_NEVER ? now + 1 : next;
        assert_true(now < cycle + 100000);
    }
    assert_false(e->failed);
    return last - cycle;
}

typedef struct row_counts {
    uint64_t hits, misses, conflicts;
} row_counts;

static row_counts counts_of(gd_device *dev)
{
    const sim_engine *e = sim_device_engine(dev);
    return (row_counts){e->stats.dram_row_hits, e->stats.dram_row_misses,
                        e->stats.dram_row_conflicts};
}

static void expect_counts(gd_device *dev, uint64_t hits, uint64_t misses, uint64_t conflicts)
{
    row_counts c = counts_of(dev);
    assert_int_equal(c.hits, hits);
    assert_int_equal(c.misses, misses);
    assert_int_equal(c.conflicts, conflicts);
}

/* Row 0 opened at 0 (a miss), hit at 150, row 1 at 300 (a conflict: row 0 was
 * used 50 cycles before), row 0 again at 1000: the cycles of that last read
 * and the counters.  The timeline of the first three, with row_timeout 200:
 *   0     arrives 102, activate 102, column 112, data 120      (miss, 110 + tRCD)
 *   150   arrives 252 < 112 + 200: column 252, data 260       (hit, 110)
 *   300   arrives 402 < 252 + 200: precharge 402, activate 414, column 424,
 *         data 432                                             (conflict, 110 + tRP + tRCD)
 * then row 1 idle from its column command at 424: closed at 624, precharged
 * by 636. */
static uint64_t switch_then_idle(gd_device *dev)
{
    assert_int_equal(read_at(dev, ROW0, 0), TINY_HIT_CYCLES + TINY_T_RCD);
    assert_int_equal(read_at(dev, ROW0_NEXT_SECTOR, 150), TINY_HIT_CYCLES);
    assert_int_equal(read_at(dev, ROW1, 300), TINY_HIT_CYCLES + TINY_T_RP + TINY_T_RCD);
    return read_at(dev, ROW0, 1000);
}

static void test_timeout_closes_an_idle_bank(void **state)
{
    (void)state;
    static const char *const timeout[] = {"DRAM.row_timeout=200"};
    gd_device *dev = open_tiny_with(timeout, 1);
    assert_int_equal(sim_device_engine(dev)->arch->level[GD_DRAM].dram.row_timeout, 200);
    /* row 1 idle 576 cycles when row 0 arrives at 1102: closed, tRCD only */
    uint64_t idle = switch_then_idle(dev);
    printf("note: row_timeout 200: hit %d, closed %llu, conflict %d cycles\n", TINY_HIT_CYCLES,
           (unsigned long long)idle, TINY_HIT_CYCLES + TINY_T_RP + TINY_T_RCD);
    assert_int_equal(idle, TINY_HIT_CYCLES + TINY_T_RCD);
    expect_counts(dev, 1, 2, 1);
    gd_device_close(dev);
}

static void test_no_timeout_keeps_the_row_open(void **state)
{
    (void)state;
    gd_device *dev = open_tiny("DRAM.queue_entries=64");
    assert_int_equal(sim_device_engine(dev)->arch->level[GD_DRAM].dram.row_timeout, 0);
    /* the same reads, row_timeout absent (0): row 1 still open, a conflict */
    assert_int_equal(switch_then_idle(dev), TINY_HIT_CYCLES + TINY_T_RP + TINY_T_RCD);
    expect_counts(dev, 1, 1, 2);
    gd_device_close(dev);

    static const char *const zero[] = {"DRAM.row_timeout=0"};
    dev = open_tiny_with(zero, 1);
    assert_int_equal(switch_then_idle(dev), TINY_HIT_CYCLES + TINY_T_RP + TINY_T_RCD);
    expect_counts(dev, 1, 1, 2);
    gd_device_close(dev);
}

/* row_timeout 50 below tRAS 300: row 0, activated at 102, may not be
 * precharged before 402, whatever its idle time. */
static void test_timeout_waits_for_tras(void **state)
{
    (void)state;
    static const char *const early[] = {"DRAM.row_timeout=50", "DRAM.tRAS=300"};
    gd_device *dev = open_tiny_with(early, 2);
    assert_int_equal(read_at(dev, ROW0, 0), TINY_HIT_CYCLES + TINY_T_RCD); /* activate 102 */
    /* arrives 302, 190 cycles after the column command at 112 (past the
     * timeout) but before 102 + tRAS: the row is still open, a hit */
    assert_int_equal(read_at(dev, ROW0_NEXT_SECTOR, 200), TINY_HIT_CYCLES);
    expect_counts(dev, 1, 1, 0);
    /* the self-precharge: max(302 + 50, 102 + 300) = 402, to 414.  Row 1
     * arriving at 407 waits for it, activates at 414, column 424, data 432:
     * 127 cycles from 305, a miss (closed).  A precharge at the timeout alone
     * (352..364) would have left the bank closed at 407: 120. */
    assert_int_equal(read_at(dev, ROW1, 305), 414 + TINY_T_RCD + TINY_T_CL - 305);
    expect_counts(dev, 1, 2, 0);
    gd_device_close(dev);

    /* before 402 a request for another row finds it open: a conflict, its
     * precharge at 102 + tRAS (the precharge bound every close shares) */
    dev = open_tiny_with(early, 2);
    assert_int_equal(read_at(dev, ROW0, 0), TINY_HIT_CYCLES + TINY_T_RCD);
    assert_int_equal(read_at(dev, ROW1, 250), 402 + TINY_T_RP + TINY_T_RCD + TINY_T_CL - 250);
    expect_counts(dev, 0, 1, 1);
    gd_device_close(dev);
}

/* row_timeout 200: row 0's column command at 112, its self-precharge 312..324 */
static void test_request_waits_for_self_precharge(void **state)
{
    (void)state;
    static const char *const timeout[] = {"DRAM.row_timeout=200"};
    /* arriving at 311 (the last cycle before the close): a row hit */
    gd_device *dev = open_tiny_with(timeout, 1);
    assert_int_equal(read_at(dev, ROW0, 0), TINY_HIT_CYCLES + TINY_T_RCD);
    assert_int_equal(read_at(dev, ROW0_NEXT_SECTOR, 209), TINY_HIT_CYCLES);
    expect_counts(dev, 1, 1, 0);
    gd_device_close(dev);
    /* the same row arriving at 317, during the precharge: no hit (FR-FCFS
     * does not take the timed-out row for open); it waits for 324, activates,
     * column 334, data 342: 127 cycles from 215, a miss */
    dev = open_tiny_with(timeout, 1);
    assert_int_equal(read_at(dev, ROW0, 0), TINY_HIT_CYCLES + TINY_T_RCD);
    assert_int_equal(read_at(dev, ROW0_NEXT_SECTOR, 215), 324 + TINY_T_RCD + TINY_T_CL - 215);
    expect_counts(dev, 0, 2, 0);
    gd_device_close(dev);
    /* another row at 317: the same wait (neither 120, as if closed already,
     * nor 132, a precharge of its own) */
    dev = open_tiny_with(timeout, 1);
    assert_int_equal(read_at(dev, ROW0, 0), TINY_HIT_CYCLES + TINY_T_RCD);
    assert_int_equal(read_at(dev, ROW1, 215), 324 + TINY_T_RCD + TINY_T_CL - 215);
    expect_counts(dev, 0, 2, 0);
    gd_device_close(dev);
}

/* Reads of one sector at `addrs` (in that arrival order), handed to the
 * controller together at `cycle`, run until idle: into after[i] the cycles from
 * `cycle` to read i's first data.  A read's message carries its arrival at the
 * queue until it is issued, then its data cycle (sim_msg.ready); each is taken
 * after the tick that issues it. */
static void reads_at(gd_device *dev, const uint64_t *addrs, size_t n, uint64_t cycle,
                     uint64_t *after)
{
    sim_engine *e = sim_device_engine(dev);
    sim_memsys *ms = e->memsys;
    int32_t mids[4];
    uint64_t arrival[4];
    assert_true(n <= 4);
    assert_false(sim_dram_busy(e));
    for (size_t i = 0; i < n; i++) {
        mids[i] = sim_msg_new(e);
        assert_true(mids[i] >= 0);
        sim_msg *m = &ms->msg[mids[i]];
        m->addr = addrs[i];
        m->bytes = 32;
        m->sectors = 1;
        m->is_store = 0;
        m->sm = 0;
        m->bypass_req = -1;
        m->wb_internal = 1;
        m->wb_waiter = -1;
        sim_dram_submit(e, mids[i], cycle);
        arrival[i] = ms->msg[mids[i]].ready;
        after[i] = 0;
    }
    uint64_t now = cycle;
    while (sim_dram_busy(e)) {
        sim_dram_tick(e, now);
        for (size_t i = 0; i < n; i++)
            if (!after[i] && ms->msg[mids[i]].ready != arrival[i])
                after[i] = ms->msg[mids[i]].ready - cycle;
        uint64_t next = sim_dram_next_event(e, now + 1);
        now = next == SIM_NEVER ? now + 1 : next;
        assert_true(now < cycle + 100000);
    }
    assert_false(e->failed);
    for (size_t i = 0; i < n; i++)
        assert_true(after[i] > 0);
}

/* FR-FCFS: with row 0 of bank 0 open (column command at 112), a read of bank 1
 * and then one of row 0 arrive together.  Before the timeout the row-0 read is
 * a hit and goes first; after it (precharged 312..324) it is not, and the
 * older bank-1 read goes first. */
static void test_timed_out_row_is_no_hit(void **state)
{
    (void)state;
    static const char *const timeout[] = {"DRAM.row_timeout=200"};
    const uint64_t bank1_then_row0[] = {2048, ROW0_NEXT_SECTOR}; /* 2048: channel 0, bank 1 */
    uint64_t after[2];
    /* at 150, arriving 252: row 0 column 252, data 260; bank 1 activate 253,
     * column 263 (tCCD), data 271 */
    gd_device *dev = open_tiny_with(timeout, 1);
    assert_int_equal(read_at(dev, ROW0, 0), TINY_HIT_CYCLES + TINY_T_RCD);
    reads_at(dev, bank1_then_row0, 2, 150, after);
    assert_int_equal(after[1], TINY_HIT_CYCLES);
    assert_int_equal(after[0], 271 - 150);
    expect_counts(dev, 1, 2, 0);
    gd_device_close(dev);
    /* at 250, arriving 352: bank 1 activate 352, column 362, data 370 (bus to
     * 373); row 0 activate 353, column 364, data 373 */
    dev = open_tiny_with(timeout, 1);
    assert_int_equal(read_at(dev, ROW0, 0), TINY_HIT_CYCLES + TINY_T_RCD);
    reads_at(dev, bank1_then_row0, 2, 250, after);
    assert_int_equal(after[0], TINY_HIT_CYCLES + TINY_T_RCD);
    assert_int_equal(after[1], 373 - 250);
    expect_counts(dev, 0, 3, 0);
    gd_device_close(dev);
}

/* The median of a `cg` pointer chase at `stride_bytes` over `footprint` on
 * `dev`, and the increase of the row counters. */
static double chase_median(gd_device *dev, uint64_t stride_bytes, uint64_t footprint,
                           double *misses, double *conflicts)
{
    gd_runner r;
    gd_err err;
    gd_curve c;
    gd_probe_opts o = {.stride_bytes = stride_bytes};
    snprintf(o.variant, sizeof o.variant, "cg");
    gd_runner_init(&r, dev, NULL, NULL);
    gd_curve_init(&c, "pchase", gd_probe_find("pchase"), &o);
    if (gd_runner_measure(&r, &c, footprint, 0, 1, &err) != 0)
        fail_msg("%s", err.msg);
    double median = gd_point_summary(&c.points[0], "cycles")->median;
    *misses = gd_counter_list_get(&c.points[0].counters, "dram.row_misses", -1);
    *conflicts = gd_counter_list_get(&c.points[0].counters, "dram.row_conflicts", -1);
    assert_true(*misses >= 0 && *conflicts >= 0);
    gd_curve_free(&c);
    gd_runner_close(&r);
    return median;
}

/* A chase 8 KiB apart (channel 0, bank 0, a new row every load) leaves the
 * bank idle a whole round trip between loads: with row_timeout 50 every load
 * finds it closed, DRAM latency + tRCD; without, + tRP + tRCD. */
static void test_chase_across_rows(void **state)
{
    (void)state;
    static const char *const timeout[] = {"DRAM.row_timeout=50"};
    uint32_t dram = 200; /* tiny.arch [DRAM] latency */
    double misses, conflicts;
    gd_device *dev = open_tiny_with(timeout, 1);
    assert_int_equal(sim_device_engine(dev)->arch->level[GD_DRAM].latency_cycles, dram);
    double closed = chase_median(dev, 8 << 10, 256 << 10, &misses, &conflicts);
    gd_device_close(dev);
    printf("note: chase 8 KiB apart: %.0f cycles with row_timeout 50 (%.0f misses, %.0f "
           "conflicts)\n",
           closed, misses, conflicts);
    assert_true(closed == dram + TINY_T_RCD);
    assert_true(misses > 30 && conflicts == 0);
    dev = open_tiny("DRAM.queue_entries=64");
    double open = chase_median(dev, 8 << 10, 256 << 10, &misses, &conflicts);
    gd_device_close(dev);
    printf("note: chase 8 KiB apart: %.0f cycles without (%.0f misses, %.0f conflicts)\n", open,
           misses, conflicts);
    assert_true(open == dram + TINY_T_RP + TINY_T_RCD);
    assert_true(conflicts > 30);
}

/* `extra` over `ov` (n of them) on sim:tiny is refused with `needle` */
static void expect_refused(const char *const *ov, size_t n, const char *needle)
{
    gd_device_opts o = {ov, n};
    gd_device *dev = NULL;
    gd_err err;
    assert_int_not_equal(gd_device_open("sim:tiny", &o, &dev, &err), 0);
    if (!strstr(err.msg, needle))
        fail_msg("expected '%s' in: %s", needle, err.msg);
    assert_null(strchr(err.msg, '\n'));
}

static void test_row_timeout_refused(void **state)
{
    (void)state;
    const char *ov[BASE_N + 1];
    memcpy(ov, base_ov, sizeof base_ov);
    ov[BASE_N] = "DRAM.row_timeout=1000001";
    expect_refused(ov, BASE_N + 1, "[DRAM] row_timeout = 1000001 is outside 0..1000000");
    /* the bound itself is accepted */
    ov[BASE_N] = "DRAM.row_timeout=1000000";
    gd_device_opts o = {ov, BASE_N + 1};
    gd_device *dev = NULL;
    gd_err err;
    if (gd_device_open("sim:tiny", &o, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    gd_device_close(dev);
    /* without channels (tiny.arch's fixed-latency DRAM) */
    const char *alone[] = {"DRAM.row_timeout=100"};
    expect_refused(alone, 1, "[DRAM] row_timeout needs 'channels'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writes_alone_drain),
        cmocka_unit_test(test_drain_batches_a_copy),
        cmocka_unit_test(test_write_low_below_high),
        cmocka_unit_test(test_address_map),
        cmocka_unit_test(test_fr_fcfs_batches_row_hits),
        cmocka_unit_test(test_window_of_one_is_fcfs),
        cmocka_unit_test(test_bus_per_sector),
        cmocka_unit_test(test_timeout_closes_an_idle_bank),
        cmocka_unit_test(test_no_timeout_keeps_the_row_open),
        cmocka_unit_test(test_timeout_waits_for_tras),
        cmocka_unit_test(test_request_waits_for_self_precharge),
        cmocka_unit_test(test_timed_out_row_is_no_hit),
        cmocka_unit_test(test_chase_across_rows),
        cmocka_unit_test(test_row_timeout_refused),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
