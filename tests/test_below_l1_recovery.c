/* test_below_l1_recovery.c -- issue 12's parameters recovered from generated
 * hierarchies, with and without noise.
 *
 * The bundled A100/H100 files are what the below-L1 steps were shaped around;
 * this test draws others from a seed (xorshift64*, so a failure is reproduced
 * by its seed): the tiny arch (fast to simulate) with a 1 MiB L2 of 2
 * or 4 slices in two partitions and a far latency anywhere between the near
 * one and DRAM's, an L1 TLB of 8..32 entries of 512 KiB..2 MiB pages, an L2
 * TLB of 4 or 8 times as many entries of 16 pages (the entry the suite's tlb2 step
 * assumes, as on the GPUs Jia et al. measured), miss costs from a few cycles
 * to hundreds, DRAM with or without channels, and seeded timer noise on every
 * other seed.  `characterize --suite below_l1` must recover the near and far
 * L2 latency, the DRAM latency, both TLBs' reach and latency and the page:
 * every one of those compare.json rows a match.
 */
#include "tests/testing.h"
#include "tests/results_json.h"

#include <inttypes.h>

#define SEEDS 4

static uint64_t next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static uint64_t pick(uint64_t *s, uint64_t lo, uint64_t hi)
{
    return lo + next(s) % (hi - lo + 1);
}

/* The overrides of one generated hierarchy (tiny: L1D 20, L2 90, DRAM 200). */
static size_t generate(uint64_t seed, char ov[][64], size_t cap)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    size_t n = 0;
#define SET(...) snprintf(ov[n++], 64, __VA_ARGS__)
    /* an L2 that holds one line of every page the TLB steps visit, and room
     * for the L2 TLB's reach */
    SET("L2.size=1MiB");
    SET("gpu.global_mem=64GiB");
    unsigned slices = pick(&s, 0, 1) ? 4 : 2;
    SET("L2.slices=%u", slices);
    SET("L2.partitions=2");
    unsigned dram = (unsigned)pick(&s, 160, 400);
    SET("DRAM.latency=%u", dram);
    SET("L2.far_latency=%u", (unsigned)pick(&s, 100, dram - 40));
    /* 512 KiB .. 2 MiB: the suite's page sweep starts at 64 KiB and needs a
     * few candidates below the page (GPUs map 2 MiB pages; Maxwell 128 KiB) */
    uint64_t page = 512ull << pick(&s, 10, 12);
    unsigned entries1 = 8u << pick(&s, 0, 2);    /* 8 .. 32, fully associative */
    SET("TLB1.size=%" PRIu64, page * entries1);
    SET("TLB1.line=%" PRIu64, page);
    SET("TLB1.ways=%u", entries1);
    unsigned t1 = dram + (unsigned)pick(&s, 20, 300);
    SET("TLB1.latency=%u", t1);
    /* more entries than the L1 TLB (as on every GPU measured): with as many,
     * the tlb2 step's two knees fall on one footprint */
    unsigned entries2 = entries1 * (4u << pick(&s, 0, 1)); /* 32 .. 256 */
    unsigned ways2 = entries2; /* fully associative: a set-associative L2 TLB's knee
                                * sits an entry or two early (the scratch page's
                                * entry in one set): README, limits */
    SET("TLB2.size=%" PRIu64, 16 * page * entries2);
    SET("TLB2.line=%" PRIu64, 16 * page);
    SET("TLB2.ways=%u", ways2);
    SET("TLB2.latency=%u", t1 + (unsigned)pick(&s, 20, 400));
    if (pick(&s, 0, 1)) {
        SET("DRAM.channels=%u", 1u << pick(&s, 0, 3));
        SET("DRAM.banks=%u", 4u << pick(&s, 0, 2));
        SET("DRAM.row=1KiB");
        SET("DRAM.interleave=256");
        SET("DRAM.tCL=%u", (unsigned)pick(&s, 5, 30));
        SET("DRAM.tRCD=%u", (unsigned)pick(&s, 5, 30));
        SET("DRAM.tRP=%u", (unsigned)pick(&s, 5, 30));
        SET("DRAM.tRAS=%u", (unsigned)pick(&s, 20, 50));
    }
    if (seed % 2) {
        SET("noise.jitter=2");
        SET("noise.outlier_rate=0.002");
        SET("noise.outlier_cycles=300");
        SET("noise.seed=%" PRIu64, seed);
    }
#undef SET
    assert_true(n <= cap);
    return n;
}

static void test_generated(void **state)
{
    (void)state;
    static const char *const wanted[] = {"L2.latency_cycles", "L2FAR.latency_cycles",
                                         "DRAM.latency_cycles", "TLB1.size_bytes",
                                         "TLB1.latency_cycles", "TLB1.sector_bytes",
                                         "TLB2.size_bytes", "TLB2.latency_cycles"};
    unsigned failures = 0;
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        char ov[40][64];
        size_t n = generate(seed, ov, 40);
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
