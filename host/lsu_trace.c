/* lsu_trace.c -- `run --trace` (lsu_trace.h): the device's trace rows,
 * collected in memory and written atomically when the run ends; on a sim
 * device with a PCM write buffer ([WB] size, issue 13) also the buffer's list
 * operations, to wbuf_trace.csv beside lsu_trace.csv. */
#include "host/lsu_trace.h"

#include <stdio.h>
#include <stdlib.h>

#include "analysis/results.h"
#include "sim/sim_device.h"

struct gd_lsu_trace {
    gd_device *dev;
    uint64_t limit, seen;
    gd_text csv;
    int wb_on;                 /* the write buffer's trace is hooked */
    uint64_t wb_seen;
    gd_text wb;
};

static void on_wb_row(void *user, const char *row)
{
    gd_lsu_trace *t = user;
    if (t->wb_seen++ < t->limit)
        gd_text_printf(&t->wb, "%s\n", row);
}

static void on_row(void *user, const char *row)
{
    gd_lsu_trace *t = user;
    if (t->seen++ < t->limit)
        gd_text_printf(&t->csv, "%s\n", row);
}

int gd_lsu_trace_start(gd_device *dev, uint64_t limit, gd_lsu_trace **out, gd_err *err)
{
    *out = NULL;
    gd_lsu_trace *t = calloc(1, sizeof *t);
    if (!t)
        return gd_fail(err, "--trace: out of memory");
    t->dev = dev;
    t->limit = limit;
    gd_text_init(&t->csv);
    gd_text_printf(&t->csv, "%s\n", GD_TRACE_COLUMNS);
    gd_err why;
    if (gd_device_trace(dev, on_row, t, &why) != 0) {
        gd_text_free(&t->csv);
        free(t);
        return gd_fail(err, "--trace: %s", why.msg);
    }
    gd_text_init(&t->wb);
    gd_text_printf(&t->wb, "%s\n", SIM_WBUF_TRACE_COLUMNS);
    t->wb_on = sim_device_wbuf_trace(dev, on_wb_row, t);
    *out = t;
    return 0;
}

int gd_lsu_trace_finish(gd_lsu_trace *t, const char *dir, json_t *entry, gd_err *err)
{
    if (!t)
        return 0;
    gd_err ignored;
    gd_device_trace(t->dev, NULL, NULL, &ignored);
    char path[1100];
    snprintf(path, sizeof path, "%s/lsu_trace.csv", dir);
    int rc = t->csv.failed ? gd_fail(err, "%s: out of memory while tracing", path)
                           : gd_text_write_atomic(&t->csv, path, err);
    if (t->wb_on) {
        sim_device_wbuf_trace(t->dev, NULL, NULL);
        char wpath[1100];
        snprintf(wpath, sizeof wpath, "%s/wbuf_trace.csv", dir);
        if (rc == 0)
            rc = t->wb.failed ? gd_fail(err, "%s: out of memory while tracing", wpath)
                              : gd_text_write_atomic(&t->wb, wpath, err);
    }
    if (entry) {
        json_t *tr = json_object();
        json_object_set_new(tr, "csv", json_string("lsu_trace.csv"));
        json_object_set_new(tr, "events", json_integer((json_int_t)t->seen));
        json_object_set_new(tr, "kept", json_integer((json_int_t)(t->seen < t->limit ? t->seen
                                                                                     : t->limit)));
        json_object_set_new(entry, "lsu_trace", tr);
        if (t->wb_on) {
            json_t *wt = json_object();
            json_object_set_new(wt, "csv", json_string("wbuf_trace.csv"));
            json_object_set_new(wt, "events", json_integer((json_int_t)t->wb_seen));
            json_object_set_new(entry, "wbuf_trace", wt);
        }
    }
    gd_text_free(&t->csv);
    gd_text_free(&t->wb);
    free(t);
    return rc;
}
