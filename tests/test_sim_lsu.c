/* test_sim_lsu.c -- the simulated load/store unit: the CN110457238A Figure 2
 * scenario replayed cycle by cycle (baseline, reorder alone, reorder +
 * pipelined issue, a two-port tail), launched through the CLI
 * (`gpudissect whatif --workloads fig2 --trace`),
 * reservation-fail accounting, MSHR merging, coalescing, shared-memory banks,
 * and the counters the device exports.
 *
 * Everything runs PTX kernels: the Figure 2 tests through the command line,
 * reading the run's lsu_trace.csv (every event: cycle, request (instruction,
 * index), kind, reason) and results.csv; the rest through the device
 * interface, the counters test with the engine's LSU trace hook.
 */
#include "tests/testing.h"

#include "host/device.h"
#include "host/device_registry.h"
#include "host/whatif.h"
#include "kernels/workloads/workload.h"
#include "sim/engine.h"

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
/* The event recorder                                                        */

typedef struct trace_log {
    sim_lsu_event *ev;
    size_t count, cap;
} trace_log;

static void record(void *user, const sim_lsu_event *event)
{
    trace_log *t = user;
    if (t->count == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 1024;
        t->ev = realloc(t->ev, t->cap * sizeof *t->ev);
        assert_non_null(t->ev);
    }
    t->ev[t->count++] = *event;
}

/* The cycle of the first event of `kind` for request (instr, request), or -1. */
static int64_t first_cycle(const trace_log *t, uint64_t instr, int request, sim_lsu_event_kind kind)
{
    for (size_t i = 0; i < t->count; i++)
        if (t->ev[i].instr == instr && t->ev[i].kind == kind &&
            (request < 0 || t->ev[i].request == request))
            return (int64_t)t->ev[i].cycle;
    return -1;
}

static int64_t last_cycle(const trace_log *t, uint64_t instr, sim_lsu_event_kind kind)
{
    int64_t c = -1;
    for (size_t i = 0; i < t->count; i++)
        if (t->ev[i].instr == instr && t->ev[i].kind == kind)
            c = (int64_t)t->ev[i].cycle;
    return c;
}

static size_t count_kind(const trace_log *t, sim_lsu_event_kind kind)
{
    size_t n = 0;
    for (size_t i = 0; i < t->count; i++)
        n += t->ev[i].kind == kind;
    return n;
}

static int is_probe_outcome(uint8_t kind)
{
    return kind == SIM_LSU_HIT || kind == SIM_LSU_MISS || kind == SIM_LSU_MERGE ||
           kind == SIM_LSU_SEND || kind == SIM_LSU_RESV_FAIL;
}

/* The L1 tags take one probe per cycle: from the first probe to the last,
 * every cycle in which the FIFO holds a request has exactly one outcome --
 * including the cycles the LSU slept through and accounted for afterwards. */
static void assert_one_probe_per_cycle(const trace_log *t)
{
    for (size_t i = 1; i < t->count; i++)
        if (t->ev[i].cycle < t->ev[i - 1].cycle)
            fail_msg("event %zu (cycle %llu) after one of cycle %llu: not in time order", i,
                     (unsigned long long)t->ev[i].cycle, (unsigned long long)t->ev[i - 1].cycle);
    int64_t first = -1, last = -1;
    for (size_t i = 0; i < t->count; i++)
        if (is_probe_outcome(t->ev[i].kind)) {
            if (first < 0)
                first = (int64_t)t->ev[i].cycle;
            last = (int64_t)t->ev[i].cycle;
        }
    assert_true(first >= 0);
    size_t span = (size_t)(last - first + 1);
    uint8_t *seen = calloc(span, 1);
    assert_non_null(seen);
    for (size_t i = 0; i < t->count; i++)
        if (is_probe_outcome(t->ev[i].kind)) {
            size_t at = (size_t)((int64_t)t->ev[i].cycle - first);
            if (seen[at])
                fail_msg("two tag probes in cycle %lld", (long long)t->ev[i].cycle);
            seen[at] = 1;
        }
    /* a gap may only be a cycle with nothing in the FIFO: count the FIFO */
    long occupancy = 0;
    size_t e = 0;
    for (int64_t c = first; c <= last; c++) {
        long before = occupancy;
        while (e < t->count && (int64_t)t->ev[e].cycle == c) {
            if (t->ev[e].kind == SIM_LSU_ENQUEUE)
                occupancy++;
            if (t->ev[e].kind == SIM_LSU_POP)
                occupancy--;
            e++;
        }
        if (before > 0 && !seen[c - first])
            fail_msg("cycle %lld: %ld requests waited and the tags took no probe", (long long)c,
                     before);
    }
    free(seen);
}

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fig2_baseline),
        cmocka_unit_test(test_fig2_reorder_pipelined),
        cmocka_unit_test(test_fig2_reorder_alone),
        cmocka_unit_test(test_fig2_speedup_and_trace_neutral),
        cmocka_unit_test(test_fig2_two_tail_ports),
        cmocka_unit_test(test_mshr_merge_limit),
        cmocka_unit_test(test_miss_queue_refusals),
        cmocka_unit_test(test_coalescing),
        cmocka_unit_test(test_bank_conflicts),
        cmocka_unit_test(test_counters_exported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
