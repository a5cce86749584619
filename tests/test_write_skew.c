/* test_write_skew.c -- per-row write counting (sim/row_writes.c) and the skew
 * figures of seed 003's Figure 2 (analysis/write_skew.c) on distributions
 * whose answers are known by construction. */
#include "tests/testing.h"

#include <math.h>

#include "analysis/write_skew.h"
#include "sim/row_writes.h"

static void test_row_counts_survive_growth(void **state)
{
    (void)state;
    sim_row_writes rw;
    gd_err err;
    sim_row_writes_init(&rw);
    /* 5000 rows (the table doubles several times), row r written r % 7 + 1 times,
     * rows spread over high address bits too */
    uint64_t expect_total = 0;
    for (uint64_t r = 0; r < 5000; r++)
        for (uint64_t k = 0; k < r % 7 + 1; k++, expect_total++)
            assert_int_equal(sim_row_writes_add(&rw, r * 0x100000001ull, &err), 0);
    assert_int_equal(rw.used, 5000);
    assert_int_equal(rw.total, expect_total);
    assert_int_equal(sim_row_writes_get(&rw, 6 * 0x100000001ull), 7);
    assert_int_equal(sim_row_writes_get(&rw, 7 * 0x100000001ull), 1);
    assert_int_equal(sim_row_writes_get(&rw, 3), 0);
    uint64_t *c, n;
    assert_int_equal(sim_row_writes_sorted(&rw, &c, &n, &err), 0);
    assert_int_equal(n, 5000);
    for (uint64_t i = 1; i < n; i++)
        assert_true(c[i - 1] <= c[i]);
    assert_int_equal(c[0], 1);
    assert_int_equal(c[n - 1], 7);
    free(c);
    sim_row_writes_free(&rw);
}

/* LIBOR-like, by construction: 1000 rows, 26 hot rows with 1000 writes each,
 * 930 rows with 5, 44 with 100 -- 2.6% of rows take 26000/(26000+4650+4400). */
static void test_libor_like_figures(void **state)
{
    (void)state;
    uint64_t c[1000];
    size_t n = 0;
    for (int i = 0; i < 930; i++)
        c[n++] = 5;
    for (int i = 0; i < 44; i++)
        c[n++] = 100;
    for (int i = 0; i < 26; i++)
        c[n++] = 1000;
    gd_write_skew s;
    gd_write_skew_summary(c, n, &s);
    assert_int_equal(s.rows, 1000);
    assert_int_equal(s.writes, 35050);
    assert_int_equal(s.max_writes, 1000);
    assert_true(s.median_writes == 5);
    double share = gd_write_skew_top_share(c, n, 0.026);
    assert_true(fabs(share - 26000.0 / 35050.0) < 1e-12);
    assert_true(fabs(gd_write_skew_rows_below(c, n, 20) - 0.93) < 1e-12);
    /* 26 rows give 74.2%: the rows needed for 66.8% are fewer -- 24 (24000/35050 = 68.5%) */
    assert_true(fabs(gd_write_skew_rows_for_share(c, n, 0.668) - 0.024) < 1e-12);
    /* uniform counts: the top 3% of rows take 3% of writes */
    uint64_t u[100];
    for (int i = 0; i < 100; i++)
        u[i] = 9;
    assert_true(fabs(gd_write_skew_top_share(u, 100, 0.03) - 0.03) < 1e-12);
    assert_true(gd_write_skew_top_share(u, 0, 0.03) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_row_counts_survive_growth),
        cmocka_unit_test(test_libor_like_figures),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
