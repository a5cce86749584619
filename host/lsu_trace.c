/* lsu_trace.c -- `run --trace` (lsu_trace.h). */
#include "host/lsu_trace.h"

#include <stdio.h>
#include <stdlib.h>

#include "host/results.h"
#include "sim/engine.h"

struct gd_lsu_trace {
    sim_engine *engine;
    uint64_t limit, seen;
    gd_text csv;
};

static void on_event(void *user, const sim_lsu_event *ev)
{
    gd_lsu_trace *t = user;
    if (t->seen++ >= t->limit)
        return;
    gd_text_printf(&t->csv, "%llu,%llu,%u,%llu,%u,0x%llx,%u,%s,%s\n",
                   (unsigned long long)t->engine->stats.launches, (unsigned long long)ev->cycle,
                   ev->sm, (unsigned long long)ev->instr, ev->request,
                   (unsigned long long)ev->line_addr, ev->set,
                   sim_lsu_event_name((sim_lsu_event_kind)ev->kind),
                   ev->kind == SIM_LSU_RESV_FAIL ? sim_resv_reason_name((sim_resv_reason)ev->reason)
                                                 : "");
}

int gd_lsu_trace_start(gd_device *dev, uint64_t limit, gd_lsu_trace **out, gd_err *err)
{
    *out = NULL;
    sim_engine *e = sim_device_engine(dev);
    if (!e)
        return gd_fail(err, "--trace: only a sim device (sim:ARCH) has a load/store-unit trace");
    gd_lsu_trace *t = calloc(1, sizeof *t);
    if (!t)
        return gd_fail(err, "--trace: out of memory");
    t->engine = e;
    t->limit = limit;
    gd_text_init(&t->csv);
    gd_text_printf(&t->csv, "launch,cycle,sm,instr,request,line_addr,set,event,reason\n");
    e->lsu_trace = on_event;
    e->lsu_trace_user = t;
    *out = t;
    return 0;
}

int gd_lsu_trace_finish(gd_lsu_trace *t, const char *dir, json_t *entry, gd_err *err)
{
    if (!t)
        return 0;
    t->engine->lsu_trace = NULL;
    t->engine->lsu_trace_user = NULL;
    char path[1100];
    snprintf(path, sizeof path, "%s/lsu_trace.csv", dir);
    int rc = t->csv.failed ? gd_fail(err, "%s: out of memory while tracing", path)
                           : gd_text_write_atomic(&t->csv, path, err);
    if (entry) {
        json_t *tr = json_object();
        json_object_set_new(tr, "csv", json_string("lsu_trace.csv"));
        json_object_set_new(tr, "events", json_integer((json_int_t)t->seen));
        json_object_set_new(tr, "kept", json_integer((json_int_t)(t->seen < t->limit ? t->seen
                                                                                     : t->limit)));
        json_object_set_new(entry, "lsu_trace", tr);
    }
    gd_text_free(&t->csv);
    free(t);
    return rc;
}
