/* test_pcm.c -- PCM main memory and the seed-003 write buffer, end to end on
 * sim:pcm (issue 13): the workloads run through gd_whatif_exec, as
 * `gpudissect whatif` runs them, and the tests hold their counters.
 *
 *   - PCM is slower than DRAM on the streaming-write workload and not on the
 *     compute-bound AES-like control (its output never leaves the L2);
 *   - the write buffer removes PCM write bytes on the skewed k-means-like
 *     workload and not on the streaming control;
 *   - the Figure-2 skew figures of the LIBOR-like and k-means-like workloads;
 *   - the [WB] and kind keys' bounds, and an arch without them has no PCM
 *     counters;
 *   - the buffer's trace (wbuf_trace.csv) adds up to its counters.
 * The list rules themselves are replayed step by step in test_pcm_wbuf.c.
 */
#include "tests/testing.h"

#include <math.h>

#include "analysis/whatif_table.h"
#include "host/device.h"
#include "host/device_registry.h"
#include "host/whatif.h"
#include "kernels/workloads/workload.h"

static gd_whatif_cell run_on(const char *device, const char *workload, uint64_t point,
                             const char *const *overrides, size_t n)
{
    gd_err err = {0};
    gd_device *dev = NULL;
    gd_device_opts opts = {.overrides = overrides, .override_count = n};
    gd_whatif_cell cell;
    memset(&cell, 0, sizeof cell);
    if (gd_device_open(device, &opts, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    const gd_probe *w = gd_workload_find(workload);
    assert_non_null(w);
    if (gd_whatif_exec(dev, w, point, 0, NULL, &cell, &err) != 0)
        fail_msg("%s", err.msg);
    gd_device_close(dev);
    assert_int_equal(cell.ran, 1);
    assert_true(cell.errors == 0); /* the host's check of the output */
    return cell;
}

static gd_whatif_cell run(const char *workload, const char *kind, const char *wb)
{
    char k[64], s[64];
    snprintf(k, sizeof k, "DRAM.kind=%s", kind);
    snprintf(s, sizeof s, "WB.size=%s", wb);
    const char *ov[] = {k, s};
    return run_on("sim:pcm", workload, 0, ov, 2);
}

static void test_pcm_slower_on_writes_not_on_compute(void **state)
{
    (void)state;
    gd_whatif_cell sd = run("pcm_stream", "dram", "0"), sp = run("pcm_stream", "pcm", "0");
    /* every line write holds a bank 100 cycles on PCM */
    assert_true(sp.pcm_writes > 0);
    assert_true(sp.cycles > 1.2 * sd.cycles);
    gd_whatif_cell ad = run("pcm_aes", "dram", "0"), ap = run("pcm_aes", "pcm", "0");
    assert_true(ap.mem_writes == 0); /* the output stays in the L2 */
    assert_true(ap.cycles <= 1.01 * ad.cycles);
    assert_true(ad.warp_insns == ap.warp_insns);
}

static void test_buffer_removes_writes_on_skew_not_on_stream(void **state)
{
    (void)state;
    gd_whatif_cell k0 = run("pcm_kmeans", "pcm", "0"), k1 = run("pcm_kmeans", "pcm", "1MiB");
    /* no buffer: what reaches memory is what the array writes */
    assert_true(k0.write_bytes_out == k0.write_bytes_in);
    assert_true(k0.write_bytes_in > 0);
    /* the buffer absorbs the hot rows' rewrites: under 85% of the bytes reach PCM */
    assert_true(k1.wb_write_hits > 0);
    assert_true(k1.write_bytes_in == k0.write_bytes_in); /* the same workload's writes */
    assert_true(k1.write_bytes_out < 0.85 * k1.write_bytes_in);
    assert_true(k1.pcm_writes < k0.pcm_writes);
    gd_whatif_cell s1 = run("pcm_stream", "pcm", "1MiB");
    /* streaming: every byte still goes to PCM (rows are merged, not rewritten) */
    assert_true(s1.write_bytes_in > 0);
    assert_true(s1.write_bytes_out >= 0.97 * s1.write_bytes_in);
}

static void test_figure2_skew(void **state)
{
    (void)state;
    gd_whatif_cell l = run("pcm_libor", "pcm", "0");
    /* seed 003: 2.6% of rows take 66.8%, ~93% of rows below 20 writes */
    assert_true(l.top2p6_share > 0.55 && l.top2p6_share < 0.75);
    assert_true(l.rows_below20 > 0.9);
    assert_true(l.row_writes_max >= 20);
    gd_whatif_cell k = run("pcm_kmeans", "pcm", "0");
    /* seed 003: ~3% of rows take more than 30% of writes */
    assert_true(k.top3_share > 0.30 && k.top3_share < 0.5);
    /* the streaming control: every row alike */
    gd_whatif_cell s = run("pcm_stream", "pcm", "0");
    assert_true(s.top3_share < 0.05);
}

/* `run --trace` / `whatif --trace`: the buffer's list operations go to
 * wbuf_trace.csv beside lsu_trace.csv, one row per operation, and they add
 * up to the buffer's counters. */
static void test_wbuf_trace_matches_counters(void **state)
{
    (void)state;
    char dir[] = "/tmp/gd_test_pcm_XXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *ov[] = {"WB.size=64KiB"};
    gd_err err = {0};
    gd_device *dev = NULL;
    gd_device_opts opts = {.overrides = ov, .override_count = 1};
    if (gd_device_open("sim:pcm", &opts, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    gd_whatif_cell cell;
    if (gd_whatif_exec(dev, gd_workload_find("pcm_kmeans"), 1, 0, dir, &cell, &err) != 0)
        fail_msg("%s", err.msg);
    gd_device_close(dev);
    char path[256], line[256];
    snprintf(path, sizeof path, "%s/wbuf_trace.csv", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "launch,seq,op,row,list,from,to,dirty\n");
    double misses = 0, write_hits = 0, read_hits = 0;
    while (fgets(line, sizeof line, f)) {
        misses += strstr(line, ",miss,") != NULL;
        write_hits += strstr(line, ",hit_write_") != NULL;
        read_hits += strstr(line, ",hit_read,") != NULL;
    }
    fclose(f);
    assert_true(misses > 0 && write_hits > 0);
    assert_true(misses == cell.wb_read_misses + cell.wb_write_misses);
    assert_true(write_hits == cell.wb_write_hits);
    assert_true(read_hits == cell.wb_read_hits);
    unlink(path);
    snprintf(path, sizeof path, "%s/lsu_trace.csv", dir);
    unlink(path);
    rmdir(dir);
}

static int opens(const char *device, const char *const *ov, size_t n, const char *want)
{
    gd_err err = {0};
    gd_device *dev = NULL;
    gd_device_opts opts = {.overrides = ov, .override_count = n};
    int rc = gd_device_open(device, &opts, &dev, &err);
    if (rc == 0) {
        gd_device_close(dev);
        return 1;
    }
    if (want && !strstr(err.msg, want))
        fail_msg("expected '%s' in: %s", want, err.msg);
    return 0;
}

static void test_keys_and_bounds(void **state)
{
    (void)state;
    const char *odd[] = {"WB.size=1500"};
    assert_false(opens("sim:pcm", odd, 1, "[WB] size"));
    const char *active[] = {"WB.size=64KiB", "WB.active_rows=64"};
    assert_false(opens("sim:pcm", active, 2, "active_rows"));
    const char *row[] = {"WB.size=64KiB", "WB.row_bytes=2KiB"};
    assert_false(opens("sim:pcm", row, 2, "row_bytes"));
    const char *kind[] = {"DRAM.kind=flash"};
    assert_false(opens("sim:pcm", kind, 1, "dram or pcm"));
    const char *nochan[] = {"DRAM.kind=pcm"};
    assert_false(opens("sim:gtx480", nochan, 1, "channels"));
    const char *any[] = {"WB.size=96KiB", "WB.active_rows=10"};
    assert_true(opens("sim:pcm", any, 2, NULL));
    /* an arch without [WB] or kind: no PCM-side counters at all */
    gd_err err = {0};
    gd_device *dev = NULL;
    if (gd_device_open("sim:gtx480", NULL, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    gd_counter_list cl = {0};
    assert_int_equal(gd_device_counters(dev, &cl, &err), 0);
    assert_true(isnan(gd_counter_list_get(&cl, "mem.writes_in", NAN)));
    assert_true(isnan(gd_counter_list_get(&cl, "wb.write_hits", NAN)));
    gd_counter_list_free(&cl);
    gd_device_close(dev);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keys_and_bounds),
        cmocka_unit_test(test_pcm_slower_on_writes_not_on_compute),
        cmocka_unit_test(test_buffer_removes_writes_on_skew_not_on_stream),
        cmocka_unit_test(test_figure2_skew),
        cmocka_unit_test(test_wbuf_trace_matches_counters),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
