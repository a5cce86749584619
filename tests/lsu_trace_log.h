/* lsu_trace_log.h -- the simulated LSU's events as a test reads them: a
 * growable log (filled by the engine's trace hook, or from a run's
 * lsu_trace.csv), the first and last cycle of an event of a request, counts,
 * and the check that the tags took one probe per cycle with nothing waiting
 * unprobed.  Shared by tests/test_sim_lsu.c and tests/test_workloads_fig2.c
 * (include after testing.h).
 */
#ifndef GD_TEST_LSU_TRACE_LOG_H
#define GD_TEST_LSU_TRACE_LOG_H

#include "sim/engine.h"

typedef struct trace_log {
    sim_lsu_event *ev;
    size_t count, cap;
} trace_log;

static inline void record(void *user, const sim_lsu_event *event)
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
static inline int64_t first_cycle(const trace_log *t, uint64_t instr, int request, sim_lsu_event_kind kind)
{
    for (size_t i = 0; i < t->count; i++)
        if (t->ev[i].instr == instr && t->ev[i].kind == kind &&
            (request < 0 || t->ev[i].request == request))
            return (int64_t)t->ev[i].cycle;
    return -1;
}

static inline int64_t last_cycle(const trace_log *t, uint64_t instr, sim_lsu_event_kind kind)
{
    int64_t c = -1;
    for (size_t i = 0; i < t->count; i++)
        if (t->ev[i].instr == instr && t->ev[i].kind == kind)
            c = (int64_t)t->ev[i].cycle;
    return c;
}

static inline size_t count_kind(const trace_log *t, sim_lsu_event_kind kind)
{
    size_t n = 0;
    for (size_t i = 0; i < t->count; i++)
        n += t->ev[i].kind == kind;
    return n;
}

static inline int is_probe_outcome(uint8_t kind)
{
    return kind == SIM_LSU_HIT || kind == SIM_LSU_MISS || kind == SIM_LSU_MERGE ||
           kind == SIM_LSU_SEND || kind == SIM_LSU_RESV_FAIL;
}

/* The L1 tags take one probe per cycle: from the first probe to the last,
 * every cycle in which the FIFO holds a request has exactly one outcome --
 * including the cycles the LSU slept through and accounted for afterwards. */
static inline void assert_one_probe_per_cycle(const trace_log *t)
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


#endif
