/* test_workloads_fig2.c -- CN110457238A's Figure 2 replayed cycle by cycle
 * through the command line: `gpudissect whatif --device sim:cn110457238
 * --workloads fig2 --trace` under the baseline, reorder alone, reorder +
 * pipelined issue and a two-port tail; each test reads the run's
 * lsu_trace.csv (every event: cycle, request (instruction, index), kind,
 * reason) and results.csv, and asserts the figure's sequence: the refused
 * head re-enqueued, the requests behind it served first, instruction b let in
 * (or not), the counters equal to the traced events, traced and untraced
 * runs alike.
 */
#include "tests/testing.h"

#include "host/device.h"
#include "tests/lsu_trace_log.h"

/* ------------------------------------------------------------------------- */
/* CN110457238A Figure 2, through the CLI                                     */

/* The scenario is the fig2 workload (kernels/workloads/fig2.c): one warp,
 * instruction a (lanes 0..20, lane i to L1 set i/5: a0-a4 want set 0, a5-a9
 * set 1, ..., a20 set 4 -- 4 ways, so the fifth request of each set finds
 * every way reserved), then four independent instructions, then instruction b
 * (lanes 0..23 to sets 8..31).  cn110457238.arch's coalescer emits a whole
 * instruction at once (coalescer_rate = 32), so the FIFO holds a0..a20 in the
 * cycle a issues -- the figure's initial state, with no hook -- and b issues
 * in the cycle a4 is first refused.  Each run is `gpudissect whatif
 * --workloads fig2 --trace`; the test reads the trace and results.csv. */

typedef struct fig2_run {
    trace_log log;
    uint64_t a, b;           /* instruction numbers */
    int64_t a_accept, b_accept;
    double cycles, fails, requeues, hol_cycles, coalescer_stalls;
    char results_row[2048];  /* results.csv's row, counters after the labels */
} fig2_run;

static const char *const fig2_settings[] = {
    "",                                                                   /* 0: baseline */
    "--set L1D.reorder=true --set L1D.pipelined_issue=true",              /* 1: the patent */
    "--set L1D.reorder=true --set L1D.pipelined_issue=true --set L1D.fifo_tail_ports=2",
    "--set L1D.reorder=true",                                             /* 3: reorder alone */
    "--set L1D.tag_lookups=2",                                            /* 4 */
    "--set L1D.tag_lookups=2 --set L1D.reorder=true",                     /* 5 */
    "--set L1D.queued_instructions=2",                                    /* 6 */
    "--set L1D.coalescer_rate=1",                                         /* 7 */
};

static uint8_t kind_named(const char *name)
{
    for (int k = 0; k < SIM_LSU_EVENT_KINDS; k++)
        if (!strcmp(sim_lsu_event_name((sim_lsu_event_kind)k), name))
            return (uint8_t)k;
    fail_msg("trace: unknown event '%s'", name);
    return 0;
}

static uint8_t reason_named(const char *name)
{
    if (!*name)
        return SIM_RESV_NONE;
    for (int k = 0; k < SIM_RESV_REASONS; k++)
        if (!strcmp(sim_resv_reason_name((sim_resv_reason)k), name))
            return (uint8_t)k;
    fail_msg("trace: unknown reason '%s'", name);
    return 0;
}

/* RUN/traces/c0-fig2/lsu_trace.csv into the event log (launch 1, SM 0). */
static void read_trace(const char *path, trace_log *t)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("%s: cannot open", path);
    char line[512];
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, GD_TRACE_COLUMNS "\n");
    while (fgets(line, sizeof line, f)) {
        unsigned long long launch, cycle, instr, addr;
        unsigned sm, request, set;
        char event[32], reason[32] = "";
        line[strcspn(line, "\n")] = 0;
        int n = sscanf(line, "%llu,%llu,%u,%llu,%u,0x%llx,%u,%31[^,],%31s", &launch, &cycle, &sm,
                       &instr, &request, &addr, &set, event, reason);
        if (n < 8)
            fail_msg("trace row '%s'", line);
        sim_lsu_event ev = {.cycle = cycle, .instr = instr, .line_addr = addr, .sm = sm,
                            .set = set, .request = (uint16_t)request, .kind = kind_named(event),
                            .reason = reason_named(n == 9 ? reason : "")};
        record(t, &ev);
    }
    fclose(f);
}

/* The numbers of results.csv's one data row, by its header. */
static double results_value(const char *dir, const char *column, char *row_out, size_t row_bytes)
{
    char path[1024], header[2048], row[2048];
    snprintf(path, sizeof path, "%s/results.csv", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("%s: cannot open", path);
    assert_non_null(fgets(header, sizeof header, f));
    assert_non_null(fgets(row, sizeof row, f));
    fclose(f);
    if (row_out)
        snprintf(row_out, row_bytes, "%s", row);
    /* labels are quoted and contain no commas: fields split at commas */
    int col = 0, want = -1;
    for (char *h = header, *save = NULL, *tok; (tok = strtok_r(h, ",\n", &save)); h = NULL, col++)
        if (!strcmp(tok, column))
            want = col;
    if (want < 0)
        fail_msg("results.csv has no column %s", column);
    char *p = row;
    for (int c = 0; c < want; c++) {
        p = strchr(p, ',');
        assert_non_null(p);
        p++;
    }
    return strtod(p, NULL);
}

/* Runs the scenario under settings[invention]; traced unless `untraced`. */
static void fig2_cli(int invention, int untraced, fig2_run *run)
{
    memset(run, 0, sizeof *run);
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    char cmd[2048], out[8192];
    snprintf(cmd, sizeof cmd,
             "%s whatif --device sim:cn110457238 --workloads fig2 %s %s --quiet --out %s/w",
             gd_test_binary(), fig2_settings[invention], untraced ? "" : "--trace", dir);
    if (gd_test_run(cmd, out, sizeof out) != 0)
        fail_msg("%s: %s", cmd, out);
    char wdir[1024], path[1100];
    snprintf(wdir, sizeof wdir, "%s/w", dir);
    run->cycles = results_value(wdir, "cycles", run->results_row, sizeof run->results_row);
    run->fails = results_value(wdir, "resv_fails", NULL, 0);
    run->requeues = results_value(wdir, "requeues", NULL, 0);
    run->hol_cycles = results_value(wdir, "hol_stall_cycles", NULL, 0);
    run->coalescer_stalls = results_value(wdir, "coalescer_stall_cycles", NULL, 0);
    assert_int_equal(results_value(wdir, "errors", NULL, 0), 0); /* the loads read the right data */
    if (!untraced) {
        snprintf(path, sizeof path, "%s/traces/c0-fig2/lsu_trace.csv", wdir);
        read_trace(path, &run->log);
        /* the two loads, in the order the LSU accepted them (then the lanes'
         * store of what they read) */
        int accepts = 0;
        for (size_t i = 0; i < run->log.count; i++) {
            const sim_lsu_event *ev = &run->log.ev[i];
            if (ev->kind != SIM_LSU_ACCEPT)
                continue;
            if (accepts == 2) {
                assert_int_equal(ev->request, 1); /* 32 lanes' words: one line */
                accepts++;
                continue;
            }
            if (accepts == 0) {
                run->a = ev->instr;
                run->a_accept = (int64_t)ev->cycle;
                assert_int_equal(ev->request, 21);
            } else {
                run->b = ev->instr;
                run->b_accept = (int64_t)ev->cycle;
                assert_int_equal(ev->request, 24);
            }
            accepts++;
        }
        assert_int_equal(accepts, 3);
    }
    gd_test_rmrf(dir);
    free(dir);
}

static void fig2_free(fig2_run *run)
{
    free(run->log.ev);
}

/* Enqueues of instruction `instr` in cycle `cycle`. */
static int enqueues_at(const trace_log *t, uint64_t instr, int64_t cycle)
{
    int n = 0;
    for (size_t i = 0; i < t->count; i++)
        n += t->ev[i].instr == instr && t->ev[i].kind == SIM_LSU_ENQUEUE &&
             (int64_t)t->ev[i].cycle == cycle;
    return n;
}

/* What every design shares: the FIFO holds a0..a20 from the cycle a issues
 * (para. 0062), a0..a3 miss on set 0 on the next four cycles, and a4 then finds
 * set 0 all reserved. */
static int64_t fig2_common(const fig2_run *r)
{
    const trace_log *t = &r->log;
    assert_int_equal(enqueues_at(t, r->a, r->a_accept), 21);
    int64_t first = first_cycle(t, r->a, 0, SIM_LSU_MISS);
    assert_int_equal(first, r->a_accept + 1); /* the tags start the cycle after */
    for (int i = 0; i < 4; i++) {
        assert_int_equal(first_cycle(t, r->a, i, SIM_LSU_MISS), first + i);
        assert_int_equal(first_cycle(t, r->a, i, SIM_LSU_POP), first + i);
    }
    int64_t a4_fail = first_cycle(t, r->a, 4, SIM_LSU_RESV_FAIL);
    assert_int_equal(a4_fail, first + 4);
    for (size_t i = 0; i < t->count; i++)
        if (t->ev[i].instr == r->a && t->ev[i].request == 4 && t->ev[i].kind == SIM_LSU_RESV_FAIL) {
            assert_int_equal(t->ev[i].set, 0);
            assert_int_equal(t->ev[i].reason, SIM_RESV_SET);
            break;
        }
    /* no request of a failed before a4 */
    for (size_t i = 0; i < t->count; i++)
        if (t->ev[i].kind == SIM_LSU_RESV_FAIL)
            assert_true((int64_t)t->ev[i].cycle >= a4_fail);
    assert_one_probe_per_cycle(t);
    return a4_fail;
}

static void test_fig2_baseline(void **state)
{
    (void)state;
    fig2_run r;
    fig2_cli(0, 0, &r);
    const trace_log *t = &r.log;
    int64_t a4_fail = fig2_common(&r);
    int64_t first_fill = first_cycle(t, r.a, -1, SIM_LSU_FILL);
    assert_true(first_fill > a4_fail + 100); /* a round trip to DRAM */
    /* a4 blocks the head: nothing probes until a fill frees a way of set 0 ... */
    assert_int_equal(count_kind(t, SIM_LSU_REQUEUE), 0);
    int64_t a4_miss = first_cycle(t, r.a, 4, SIM_LSU_MISS);
    assert_int_equal(a4_miss, first_fill); /* the fill is written, then a4 probes */
    size_t a4_fails = 0;
    for (size_t i = 0; i < t->count; i++)
        a4_fails += t->ev[i].instr == r.a && t->ev[i].request == 4 &&
                    t->ev[i].kind == SIM_LSU_RESV_FAIL;
    assert_int_equal(a4_fails, a4_miss - a4_fail); /* refused every cycle until then */
    /* ... so a5, which needs set 1 only, waits behind it */
    assert_true(first_cycle(t, r.a, 5, SIM_LSU_MISS) > first_fill);
    assert_int_equal(first_cycle(t, r.a, 5, SIM_LSU_MISS), a4_miss + 1);
    /* and instruction b, issued in the cycle a4 was refused, is accepted only
     * when every request of a has left the FIFO (para. 0064) */
    assert_true(r.b_accept >= last_cycle(t, r.a, SIM_LSU_POP));
    assert_true(first_cycle(t, r.b, 0, SIM_LSU_ENQUEUE) > first_fill);
    /* every cycle a4 waited is a reservation fail; requests waited behind it */
    assert_true(r.fails >= (double)(a4_miss - a4_fail));
    assert_true(r.fails == (double)count_kind(t, SIM_LSU_RESV_FAIL));
    assert_true(r.hol_cycles >= (double)(a4_miss - a4_fail));
    assert_int_equal(r.requeues, 0);
    fig2_free(&r);
}

static void test_fig2_reorder_pipelined(void **state)
{
    (void)state;
    fig2_run r;
    fig2_cli(1, 0, &r);
    const trace_log *t = &r.log;
    int64_t a4_fail = fig2_common(&r);
    int64_t first_fill = first_cycle(t, r.a, -1, SIM_LSU_FILL);
    /* para. 0065: a4 is popped and put at the tail ... */
    assert_int_equal(first_cycle(t, r.a, 4, SIM_LSU_REQUEUE), a4_fail);
    /* para. 0066: ... and the next cycle a5 accesses set 1 */
    assert_int_equal(first_cycle(t, r.a, 5, SIM_LSU_MISS), a4_fail + 1);
    for (size_t i = 0; i < t->count; i++)
        if (t->ev[i].instr == r.a && t->ev[i].request == 5 && t->ev[i].kind == SIM_LSU_MISS)
            assert_int_equal(t->ev[i].set, 1);
    /* the coalescer had finished a, so b was accepted while a's requests were
     * still in the FIFO (pipelined issue) -- in the very cycle a4 was refused */
    assert_int_equal(r.b_accept, a4_fail);
    assert_true(r.b_accept < last_cycle(t, r.a, SIM_LSU_POP));
    /* para. 0067: b0 and the re-enqueued a4 want the tail in the same cycle: a4
     * wins, the coalescer pauses, b0 enters the cycle after */
    assert_int_equal(enqueues_at(t, r.b, a4_fail), 0);
    assert_int_equal(first_cycle(t, r.b, 0, SIM_LSU_ENQUEUE), a4_fail + 1);
    /* the other sets' fifth requests are re-enqueued the same way, and the
     * request behind each is served the next cycle */
    for (int i = 9; i <= 19; i += 5) {
        int64_t f = first_cycle(t, r.a, i, SIM_LSU_RESV_FAIL);
        assert_true(f > 0);
        assert_int_equal(first_cycle(t, r.a, i, SIM_LSU_REQUEUE), f);
        assert_int_equal(first_cycle(t, r.a, i + 1, SIM_LSU_MISS), f + 1);
    }
    /* b's requests all enter the FIFO, and a's other sets are served, before
     * any of a's misses returns */
    assert_true(last_cycle(t, r.b, SIM_LSU_ENQUEUE) < first_fill);
    for (int i = 0; i < 21; i++)
        if (i % 5 != 4)
            assert_true(first_cycle(t, r.a, i, SIM_LSU_POP) < first_fill);
    for (int i = 0; i < 24; i++)
        assert_true(first_cycle(t, r.b, i, SIM_LSU_MISS) < first_fill);
    /* the sleeping LSU's accounting equals the traced events */
    assert_true(r.fails == (double)count_kind(t, SIM_LSU_RESV_FAIL));
    assert_true(r.requeues == (double)count_kind(t, SIM_LSU_REQUEUE));
    assert_int_equal(r.hol_cycles, 0);
    assert_true(r.coalescer_stalls > 0); /* it paused for the re-enqueued requests */
    fig2_free(&r);
}

/* Reorder alone: the refused head goes to the tail and the requests behind it
 * are served first, but b still waits for all of a (one instruction in the
 * load unit, para. 0005) -- the two mechanisms are separable. */
static void test_fig2_reorder_alone(void **state)
{
    (void)state;
    fig2_run r, base;
    fig2_cli(3, 0, &r);
    fig2_cli(0, 1, &base);
    const trace_log *t = &r.log;
    int64_t a4_fail = fig2_common(&r);
    int64_t first_fill = first_cycle(t, r.a, -1, SIM_LSU_FILL);
    assert_int_equal(first_cycle(t, r.a, 4, SIM_LSU_REQUEUE), a4_fail);
    assert_int_equal(first_cycle(t, r.a, 5, SIM_LSU_MISS), a4_fail + 1);
    /* every request of a that a free way can take is served before the first
     * fill: only the fifth of each set waits */
    for (int i = 0; i < 21; i++)
        if (i % 5 != 4)
            assert_true(first_cycle(t, r.a, i, SIM_LSU_MISS) < first_fill);
    assert_true(r.b_accept >= last_cycle(t, r.a, SIM_LSU_POP));
    assert_int_equal(r.hol_cycles, 0);
    assert_true(r.requeues > 0);
    /* the sets' round trips overlap instead of following one another */
    assert_true(r.cycles < base.cycles);
    fig2_free(&r);
    fig2_free(&base);
}

/* The invention finishes the scenario sooner, and the trace changes nothing:
 * the untraced runs' counters equal the traced ones. */
static void test_fig2_speedup_and_trace_neutral(void **state)
{
    (void)state;
    for (int invention = 0; invention < 4; invention++) {
        fig2_run traced, plain;
        fig2_cli(invention, 0, &traced);
        fig2_cli(invention, 1, &plain);
        /* results.csv's row without wall_ms (a host time): the columns up to
         * "speedup" and from "resv_fails" on */
        char *a = traced.results_row, *b = plain.results_row;
        int commas = 0;
        size_t i = 0, j = 0;
        while (a[i] && b[j]) {
            if (commas == 8) { /* wall_ms */
                while (a[i] && a[i] != ',')
                    i++;
                while (b[j] && b[j] != ',')
                    j++;
                commas++;
                continue;
            }
            if (a[i] != b[j])
                fail_msg("setting %d: traced %s vs untraced %s", invention, a, b);
            commas += a[i] == ',';
            i++;
            j++;
        }
        assert_true(!a[i] && !b[j]);
        if (invention == 1) {
            fig2_run base;
            fig2_cli(0, 1, &base);
            assert_true(traced.cycles < base.cycles);
            fig2_free(&base);
        }
        fig2_free(&traced);
        fig2_free(&plain);
    }
}

/* With a second write port on the FIFO tail, b's requests enter in the very
 * cycle a4 is re-enqueued (the patent's single tail makes them wait a cycle):
 * as many as the FIFO has room for. */
static void test_fig2_two_tail_ports(void **state)
{
    (void)state;
    fig2_run r;
    fig2_cli(2, 0, &r);
    const trace_log *t = &r.log;
    int64_t a4_fail = fig2_common(&r);
    assert_int_equal(first_cycle(t, r.a, 4, SIM_LSU_REQUEUE), a4_fail);
    assert_int_equal(first_cycle(t, r.a, 5, SIM_LSU_MISS), a4_fail + 1);
    assert_int_equal(first_cycle(t, r.b, 0, SIM_LSU_ENQUEUE), a4_fail);
    assert_int_equal(enqueues_at(t, r.b, a4_fail), 32 - (21 - 4)); /* to a full FIFO */
    fig2_free(&r);
}

/* Probe outcomes (hit, miss, merge, send, refusal) in `cycle`. */
static int probes_at(const trace_log *t, int64_t cycle)
{
    int n = 0;
    for (size_t i = 0; i < t->count; i++)
        n += (int64_t)t->ev[i].cycle == cycle && is_probe_outcome(t->ev[i].kind);
    return n;
}

/* tag_lookups = 2: the tags take two requests a cycle; the baseline still
 * stops at the refused one, reorder probes the request behind it in the same
 * cycle.  Traced and untraced runs agree (the sleeping tags charge two
 * refusals a cycle). */
static void test_fig2_two_tag_lookups(void **state)
{
    (void)state;
    fig2_run base, re, plain;
    fig2_cli(4, 0, &base);
    fig2_cli(5, 0, &re);
    fig2_cli(5, 1, &plain);
    for (int k = 0; k < 2; k++) {
        const fig2_run *r = k ? &re : &base;
        const trace_log *t = &r->log;
        int64_t first = first_cycle(t, r->a, 0, SIM_LSU_MISS);
        assert_int_equal(first, r->a_accept + 1);
        assert_int_equal(first_cycle(t, r->a, 1, SIM_LSU_MISS), first);
        assert_int_equal(first_cycle(t, r->a, 2, SIM_LSU_MISS), first + 1);
        assert_int_equal(first_cycle(t, r->a, 3, SIM_LSU_MISS), first + 1);
        int64_t a4_fail = first_cycle(t, r->a, 4, SIM_LSU_RESV_FAIL);
        assert_int_equal(a4_fail, first + 2);
        for (int64_t c = first; c <= last_cycle(t, r->a, SIM_LSU_POP); c++)
            assert_true(probes_at(t, c) <= 2);
        if (k == 0) {
            assert_int_equal(probes_at(t, a4_fail), 1); /* the refusal ends the cycle */
            assert_true(first_cycle(t, r->a, 5, SIM_LSU_MISS) > a4_fail + 100);
        } else {
            assert_int_equal(first_cycle(t, r->a, 5, SIM_LSU_MISS), a4_fail); /* behind it */
            assert_int_equal(probes_at(t, a4_fail), 2);
        }
    }
    assert_true(re.fails == (double)count_kind(&re.log, SIM_LSU_RESV_FAIL));
    assert_true(re.requeues == (double)count_kind(&re.log, SIM_LSU_REQUEUE));
    assert_true(plain.fails == re.fails && plain.requeues == re.requeues &&
                plain.cycles == re.cycles);
    fig2_free(&base);
    fig2_free(&re);
    fig2_free(&plain);
}

/* queued_instructions = 2, baseline otherwise: b is let into the unit while
 * a's requests are still in the FIFO -- and waits behind the refused a4 all
 * the same (head-of-line blocking: reorder is what would let it by). */
static void test_fig2_two_queued_instructions(void **state)
{
    (void)state;
    fig2_run r;
    fig2_cli(6, 0, &r);
    const trace_log *t = &r.log;
    int64_t a4_fail = fig2_common(&r);
    int64_t first_fill = first_cycle(t, r.a, -1, SIM_LSU_FILL);
    assert_int_equal(r.b_accept, a4_fail);
    assert_true(first_cycle(t, r.b, 0, SIM_LSU_ENQUEUE) < first_fill);
    assert_true(first_cycle(t, r.b, 0, SIM_LSU_MISS) > first_fill);
    assert_int_equal(count_kind(t, SIM_LSU_REQUEUE), 0);
    assert_true(r.hol_cycles > 0);
    fig2_free(&r);
}

/* coalescer_rate = 1: a's requests enter one a cycle, and the tags, one step
 * behind, take each the cycle after it entered -- the FIFO never holds the
 * figure's 21 (what made reorder alone change nothing before the rate was an
 * arch key). */
static void test_fig2_one_request_a_cycle(void **state)
{
    (void)state;
    fig2_run r;
    fig2_cli(7, 0, &r);
    const trace_log *t = &r.log;
    for (int i = 0; i < 21; i++)
        assert_int_equal(first_cycle(t, r.a, i, SIM_LSU_ENQUEUE), r.a_accept + i);
    for (int i = 0; i < 4; i++)
        assert_int_equal(first_cycle(t, r.a, i, SIM_LSU_MISS), r.a_accept + i + 1);
    assert_int_equal(enqueues_at(t, r.a, r.a_accept), 1);
    fig2_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fig2_baseline),
        cmocka_unit_test(test_fig2_reorder_pipelined),
        cmocka_unit_test(test_fig2_reorder_alone),
        cmocka_unit_test(test_fig2_speedup_and_trace_neutral),
        cmocka_unit_test(test_fig2_two_tail_ports),
        cmocka_unit_test(test_fig2_two_tag_lookups),
        cmocka_unit_test(test_fig2_two_queued_instructions),
        cmocka_unit_test(test_fig2_one_request_a_cycle),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
