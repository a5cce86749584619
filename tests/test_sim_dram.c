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
 *     write_high is refused, naming the key.
 */
#include "tests/testing.h"

#include "analysis/arch.h"
#include "host/device.h"
#include "host/device_registry.h"
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
