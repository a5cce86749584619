/* test_pcm_wbuf.c -- the PCM write buffer's list rules (seed 003, section 4.1,
 * Figure 3), replayed step by step on a scripted access sequence with the
 * state of both lists asserted after every access; the trace of list
 * operations; the write counts a skewed and a streaming access pattern leave
 * at PCM; and the manager's set-up errors. */
#include "tests/testing.h"

#include "sim/pcm_wbuf.h"

/* "A*B" = rows A (dirty) then B (clean), head first; rows are letters. */
static void list_string(const sim_wbuf_row *l, uint32_t n, char *out)
{
    for (uint32_t i = 0; i < n; i++) {
        *out++ = (char)l[i].row;
        if (l[i].dirty)
            *out++ = '*';
    }
    *out = '\0';
}

static void assert_lists(const sim_wbuf *wb, const char *active, const char *inactive, int step)
{
    char a[64], in[64];
    list_string(wb->active, wb->n_active, a);
    list_string(wb->inactive, wb->n_inactive, in);
    if (strcmp(a, active) != 0 || strcmp(in, inactive) != 0)
        fail_msg("step %d: lists are active [%s] inactive [%s], the rules give [%s] [%s]", step, a, in,
                 active, inactive);
}

typedef struct recorded {
    sim_wbuf_event ev[64];
    int n;
} recorded;

static void record(void *user, const sim_wbuf_event *ev)
{
    recorded *r = user;
    if (r->n < 64)
        r->ev[r->n++] = *ev;
}

static void test_list_rules_step_by_step(void **state)
{
    (void)state;
    sim_wbuf wb;
    gd_err err;
    recorded rec = {.n = 0};
    assert_int_equal(sim_wbuf_init(&wb, 4, 2, &err), 0);
    wb.trace = record;
    wb.trace_user = &rec;
    static const struct {
        char row;
        int write;
        int hit;
        const char *active, *inactive;
        char evicted; /* 0: none */
        int evicted_dirty;
    } script[] = {
        /* misses fill the active list from its tail */
        {'A', 1, 0, "A*", "", 0, 0},
        {'B', 1, 0, "A*B*", "", 0, 0},
        /* a miss with the active list full: its tail goes to the inactive head */
        {'C', 0, 0, "A*C", "B*", 0, 0},
        /* a write to an inactive row: to the active tail, the old tail to the inactive head */
        {'B', 1, 1, "A*B*", "C", 0, 0},
        {'D', 0, 0, "A*D", "B*C", 0, 0},
        /* a write to an active row: one place toward the head */
        {'D', 1, 1, "D*A*", "B*C", 0, 0},
        /* ... and at the head it stays */
        {'D', 1, 1, "D*A*", "B*C", 0, 0},
        /* full: the inactive tail is evicted (clean: no PCM write), the new row at the active tail */
        {'E', 1, 0, "D*E*", "A*B*", 'C', 0},
        /* promotion from the inactive tail: the rows ahead of it shift right */
        {'B', 1, 1, "D*B*", "E*A*", 0, 0},
        /* a read hit changes nothing, in either list */
        {'A', 0, 1, "D*B*", "E*A*", 0, 0},
        {'D', 0, 1, "D*B*", "E*A*", 0, 0},
        /* full again: the dirty inactive tail costs a PCM write */
        {'F', 0, 0, "D*F", "B*E*", 'A', 1},
        /* promotion from the inactive head: the row behind it keeps its place */
        {'B', 1, 1, "D*B*", "FE*", 0, 0},
    };
    for (size_t i = 0; i < sizeof script / sizeof script[0]; i++) {
        sim_wbuf_result r = sim_wbuf_access(&wb, (uint64_t)script[i].row, script[i].write);
        assert_int_equal(r.hit, script[i].hit);
        assert_int_equal(r.evicted, script[i].evicted != 0);
        if (script[i].evicted) {
            assert_int_equal(r.evicted_row, (uint64_t)script[i].evicted);
            assert_int_equal(r.evicted_dirty, script[i].evicted_dirty);
        }
        assert_lists(&wb, script[i].active, script[i].inactive, (int)i + 1);
    }
    assert_int_equal(wb.c.write_hits, 5);
    assert_int_equal(wb.c.write_misses, 3);
    assert_int_equal(wb.c.read_hits, 2);
    assert_int_equal(wb.c.read_misses, 3);
    assert_int_equal(wb.c.evictions, 2);
    assert_int_equal(wb.c.dirty_evictions, 1);
    assert_int_equal(wb.c.promotions, 3);

    /* the trace names every list operation, in order: 13 accesses + 2 evictions */
    assert_int_equal(rec.n, 15);
    assert_int_equal(rec.ev[3].op, SIM_WBUF_HIT_WRITE_INACTIVE);
    assert_int_equal(rec.ev[3].row, 'B');
    assert_int_equal(rec.ev[3].from, 0);
    assert_int_equal(rec.ev[3].to, 1);
    assert_int_equal(rec.ev[5].op, SIM_WBUF_HIT_WRITE_ACTIVE);
    assert_int_equal(rec.ev[5].from, 1);
    assert_int_equal(rec.ev[5].to, 0);
    assert_int_equal(rec.ev[7].op, SIM_WBUF_EVICT);
    assert_int_equal(rec.ev[7].row, 'C');
    assert_int_equal(rec.ev[7].dirty, 0);
    assert_int_equal(rec.ev[8].op, SIM_WBUF_MISS);
    assert_int_equal(rec.ev[8].row, 'E');
    assert_int_equal(rec.ev[8].seq, 7);
    assert_int_equal(rec.ev[9].op, SIM_WBUF_HIT_WRITE_INACTIVE);
    assert_int_equal(rec.ev[9].from, 1);
    assert_int_equal(rec.ev[10].op, SIM_WBUF_HIT_READ);
    assert_int_equal(rec.ev[10].from_active, 0);
    assert_int_equal(rec.ev[12].op, SIM_WBUF_EVICT);
    assert_int_equal(rec.ev[12].dirty, 1);
    sim_wbuf_free(&wb);
}

/* Rows written many times stay while once-written rows pass through: a skewed
 * pattern (4 hot rows among a stream of cold ones) leaves far fewer PCM writes
 * than writes; a pure stream saves none. */
static void test_skewed_writes_absorbed_stream_not(void **state)
{
    (void)state;
    sim_wbuf wb;
    gd_err err;
    assert_int_equal(sim_wbuf_init(&wb, 16, 0, &err), 0);
    assert_int_equal(wb.active_cap, 8);
    uint64_t writes = 0, cold = 1000;
    for (int round = 0; round < 200; round++) {
        for (uint64_t hot = 0; hot < 4; hot++, writes++)
            sim_wbuf_access(&wb, hot, 1);
        for (int k = 0; k < 3; k++, writes++)
            sim_wbuf_access(&wb, cold++, 1);
    }
    uint64_t avoided = sim_wbuf_writes_avoided(&wb);
    /* every hot write after the first is absorbed: 4 x 199 */
    assert_true(avoided >= 4 * 199);
    assert_true(wb.c.dirty_evictions < writes / 2);
    sim_wbuf_free(&wb);

    assert_int_equal(sim_wbuf_init(&wb, 16, 0, &err), 0);
    for (uint64_t row = 0; row < 1000; row++)
        sim_wbuf_access(&wb, row, 1);
    assert_int_equal(sim_wbuf_writes_avoided(&wb), 0);
    assert_int_equal(wb.c.dirty_evictions, 1000 - 16);
    sim_wbuf_free(&wb);
}

static void test_setup_errors(void **state)
{
    (void)state;
    sim_wbuf wb;
    gd_err err;
    assert_int_equal(sim_wbuf_init(&wb, 1, 0, &err), -1);
    assert_non_null(strstr(err.msg, "needs at least 2"));
    assert_int_equal(sim_wbuf_init(&wb, 8, 8, &err), -1);
    assert_non_null(strstr(err.msg, "leaves no inactive row"));
    assert_int_equal(sim_wbuf_init(&wb, 3, 0, &err), 0);
    assert_int_equal(wb.active_cap, 2);
    assert_int_equal(wb.inactive_cap, 1);
    sim_wbuf_free(&wb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_rules_step_by_step),
        cmocka_unit_test(test_skewed_writes_absorbed_stream_not),
        cmocka_unit_test(test_setup_errors),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
