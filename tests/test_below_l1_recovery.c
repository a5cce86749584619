/* test_below_l1_recovery.c -- issue 12's parameters recovered from generated
 * hierarchies, with and without noise.
 *
 * The bundled A100/H100 files are what the below-L1 steps were shaped around;
 * this test draws others from a seed (tests/arch_gen.h gd_arch_gen_below_l1:
 * xorshift64*, so a failure is reproduced by its seed): the tiny arch (fast to simulate) with a 1 MiB L2 of 2
 * or 4 slices in two partitions and a far latency anywhere between the near
 * one and DRAM's, an L1 TLB of 8..32 entries of 512 KiB..2 MiB pages, an L2
 * TLB of 4 or 8 times as many entries of 16 pages (the entry the suite's tlb2 step
 * assumes, as on the GPUs Jia et al. measured), miss costs from a few cycles
 * to hundreds, DRAM with or without channels, and seeded timer noise on every
 * other seed.  `characterize --suite below_l1` must recover the near and far
 * L2 latency, the DRAM latency, both TLBs' reach and latency and the page:
 * every one of those compare.json rows a match -- and (issue 12's dram_row and
 * bandwidth steps) the DRAM row-hit and row-switch latency, "no row effect"
 * where the draw has no channels, the row-hit span where it has, and the L2
 * read/write/copy and DRAM read bandwidth within compare.json's share of the
 * model's peak.
 */
#include "tests/testing.h"
#include "tests/results_json.h"

#include <inttypes.h>

#include "tests/arch_gen.h"

/* four draws, two with noise (odd seeds); 1, 5 and 6 have DRAM channels (1,
 * 2 and 8 of them), 2 has none */
static const uint64_t seeds[] = {1, 2, 5, 6};
#define SEEDS (sizeof seeds / sizeof seeds[0])

static void test_generated(void **state)
{
    (void)state;
    static const char *const wanted[] = {"L2.latency_cycles", "L2FAR.latency_cycles",
                                         "DRAM.latency_cycles", "TLB1.size_bytes",
                                         "TLB1.latency_cycles", "TLB1.sector_bytes",
                                         "TLB2.size_bytes", "TLB2.latency_cycles",
                                         /* dram_row: a row step with channels, none
                                          * without (the span row only with) */
                                         "DRAM.row_hit_cycles", "DRAM.row_switch_cycles",
                                         "DRAM.row_effect", "DRAM.row_hit_span_bytes",
                                         /* bandwidth (not the L1's: tiny's 2 KiB L1 is
                                          * below the probe's 8 KiB footprint) */
                                         "L2.read_bytes_per_cycle", "L2.write_bytes_per_cycle",
                                         "L2.copy_bytes_per_cycle", "DRAM.read_bytes_per_cycle"};
    unsigned failures = 0;
    for (size_t k = 0; k < SEEDS; k++) {
        uint64_t seed = seeds[k];
        char ov[40][64];
        int channels = 0;
        size_t n = gd_arch_gen_below_l1(seed, ov, 40, &channels);
        assert_true(n > 0);
        char *dir = gd_test_tmpdir();
        char cmd[6000], out[8192];
        int len = snprintf(cmd, sizeof cmd, "%s characterize --device sim:tiny --suite below_l1 "
                                            "--out %s/run --quiet --no-plots",
                           gd_test_binary(), dir);
        for (size_t i = 0; i < n; i++)
            len += snprintf(cmd + len, sizeof cmd - (size_t)len, " --set %s", ov[i]);
        if (gd_test_run(cmd, out, sizeof out) != 0)
            fail_msg("seed %" PRIu64 ": %s failed:\n%s", seed, cmd, out);
        char run[1200];
        snprintf(run, sizeof run, "%s/run", dir);
        json_t *cmp = gd_test_load_json(run, "compare.json");
        for (size_t w = 0; w < sizeof wanted / sizeof wanted[0]; w++) {
            if (!channels && !strcmp(wanted[w], "DRAM.row_hit_span_bytes"))
                continue;
            size_t i;
            const json_t *p;
            const char *verdict = "absent";
            json_array_foreach(json_object_get(cmp, "parameters"), i, p)
                if (!strcmp(json_string_value(json_object_get(p, "parameter")), wanted[w]))
                    verdict = json_string_value(json_object_get(p, "verdict"));
            if (strcmp(verdict, "match")) {
                printf("seed %" PRIu64 "%s: %s is %s\n", seed, seed % 2 ? " (noise)" : "", wanted[w],
                       verdict);
                failures++;
            }
        }
        json_decref(cmp);
        gd_test_rmrf(dir);
        free(dir);
    }
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
