/* lsu_trace.c -- `run --trace` (lsu_trace.h): the device's trace rows,
 * collected in memory and written atomically when the run ends. */
#include "host/lsu_trace.h"

#include <stdio.h>
#include <stdlib.h>

#include "analysis/results.h"

struct gd_lsu_trace {
    gd_device *dev;
    uint64_t limit, seen;
    gd_text csv;
};

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
