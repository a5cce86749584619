/* run_load.c -- a results directory, read back.
 *
 * meta.json lists the probes of the run (label, probe, options); each has a
 * LABEL.csv of per-point summaries (x, series, min, median, mean, max, count,
 * p05, p95, stddev, and the point's effective SM clock sm_clock_mhz, empty where
 * not measured).  Those summaries are what compare and plot need: the
 * medians and bands to draw, the means the model predicts, the chain base the
 * model needs.  Raw samples are not stored; inference runs where they exist
 * (in `characterize`) and leaves its results in inferred.json.
 */
#include "analysis/run_load.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/results.h"

void gd_probe_opts_from_json(const json_t *entry, gd_probe_opts *opts)
{
    memset(opts, 0, sizeof *opts);
    const json_t *j;
    if ((j = json_object_get(entry, "stride_bytes")) && json_is_integer(j))
        opts->stride_bytes = (uint64_t)json_integer_value(j);
    if ((j = json_object_get(entry, "footprint_bytes")) && json_is_integer(j))
        opts->footprint_bytes = (uint64_t)json_integer_value(j);
    if ((j = json_object_get(entry, "timed_accesses")) && json_is_integer(j))
        opts->timed_accesses = (uint64_t)json_integer_value(j);
    if ((j = json_object_get(entry, "warm_passes")) && json_is_integer(j))
        opts->warm_passes = (uint32_t)json_integer_value(j);
    if ((j = json_object_get(entry, "samples")) && json_is_integer(j))
        opts->samples = (uint32_t)json_integer_value(j);
    if ((j = json_object_get(entry, "seed")) && json_is_integer(j))
        opts->seed = (uint64_t)json_integer_value(j);
    const char *pattern = json_string_value(json_object_get(entry, "pattern"));
    opts->random_order = pattern && !strcmp(pattern, "random");
    const char *variant = json_string_value(json_object_get(entry, "variant"));
    if (variant)
        snprintf(opts->variant, sizeof opts->variant, "%s", variant);
}

void gd_probe_opts_to_json(const gd_probe_opts *opts, json_t *entry)
{
    json_object_set_new(entry, "stride_bytes", json_integer((json_int_t)opts->stride_bytes));
    if (opts->footprint_bytes)
        json_object_set_new(entry, "footprint_bytes",
                            json_integer((json_int_t)opts->footprint_bytes));
    if (opts->timed_accesses)
        json_object_set_new(entry, "timed_accesses",
                            json_integer((json_int_t)opts->timed_accesses));
    if (opts->warm_passes)
        json_object_set_new(entry, "warm_passes", json_integer((json_int_t)opts->warm_passes));
    json_object_set_new(entry, "samples", json_integer((json_int_t)opts->samples));
    json_object_set_new(entry, "pattern", json_string(opts->random_order ? "random" : "seq"));
    json_object_set_new(entry, "seed", json_integer((json_int_t)opts->seed));
    json_object_set_new(entry, "variant", opts->variant[0] ? json_string(opts->variant) : json_null());
}

/* A csv label names a file inside the run directory: no '/', no leading '.',
 * nothing a terminal would interpret, and short enough for the paths below. */
static int label_is_plain(const char *label)
{
    size_t n = strlen(label);
    if (n == 0 || n > GD_RUN_MAX_LABEL || label[0] == '.')
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = label[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.'))
            return 0;
    }
    return 1;
}

int gd_run_load(const char *dir, gd_run *run, gd_err *err)
{
    memset(run, 0, sizeof *run);
    snprintf(run->dir, sizeof run->dir, "%s", dir);
    char path[1200];
    /* every path below is DIR/LABEL.csv, LABEL at most GD_RUN_MAX_LABEL bytes */
    if (strlen(dir) + GD_RUN_MAX_LABEL + 16 > sizeof path || strlen(dir) >= sizeof run->dir)
        return gd_fail(err, "%s: results directory path too long (%zu bytes)", dir, strlen(dir));
    snprintf(path, sizeof path, "%s/meta.json", dir);
    run->meta = gd_json_load(path, 0, err);
    if (!run->meta)
        return -1;
    const json_t *probes = json_object_get(run->meta, "probes");
    if (!json_is_array(probes)) {
        gd_run_free(run);
        return gd_fail(err, "%s: no \"probes\" array", path);
    }
    size_t i;
    const json_t *entry;
    json_array_foreach(probes, i, entry) {
        const char *label = json_string_value(json_object_get(entry, "csv"));
        const char *pname = json_string_value(json_object_get(entry, "probe"));
        const gd_probe *probe = pname ? gd_probe_find(pname) : NULL;
        if (!label || !probe) {
            gd_run_free(run);
            return gd_fail(err, "%s: probes[%zu] lacks a known probe or its csv label", path, i);
        }
        if (!label_is_plain(label)) {
            /* the message first: the label belongs to meta.json, freed below */
            gd_fail(err, "%s: probes[%zu] has csv label '%.64s': a label is a file name "
                         "(letters, digits, '_', '-', '.'; at most %d bytes)",
                    path, i, label, GD_RUN_MAX_LABEL);
            gd_run_free(run);
            return -1;
        }
        if (json_object_get(entry, "skipped") || json_object_get(entry, "failed"))
            continue; /* a step characterize skipped (no CSV) or that failed part way */
        if (run->curve_count == GD_RUN_MAX_CURVES)
            break;
        char csv[1200];
        snprintf(csv, sizeof csv, "%s/%s.csv", dir, label);
        gd_curve *c = &run->curves[run->curve_count];
        if (gd_curve_read_csv(csv, label, probe, c, err) != 0) {
            gd_run_free(run);
            return -1;
        }
        gd_probe_opts_from_json(entry, &c->opts);
        run->curve_count++;
    }
    snprintf(path, sizeof path, "%s/inferred.json", dir);
    FILE *f = fopen(path, "r");
    if (f) {
        fclose(f);
        run->inferred_doc = gd_json_load(path, 0, err);
        if (!run->inferred_doc) {
            gd_run_free(run);
            return -1;
        }
        if (gd_inference_from_json(run->inferred_doc, &run->inferred, path, err) != 0) {
            gd_run_free(run);
            return -1;
        }
    }
    return 0;
}

void gd_run_free(gd_run *run)
{
    json_decref(run->meta);
    json_decref(run->inferred_doc);
    for (size_t i = 0; i < run->curve_count; i++)
        gd_curve_free(&run->curves[i]);
    memset(run, 0, sizeof *run);
}
