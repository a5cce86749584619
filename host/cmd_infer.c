/* cmd_infer.c -- `gpudissect infer RUN`: the inference redone from a results
 * directory alone (issue 16).
 *
 * characterize infers each step as it finishes; this replays the same steps
 * in meta.json's order from the files the run kept: each LABEL.csv (the
 * summaries), its LABEL.samples.gz (every sample: plateau detection needs
 * them) and the step's options, through the same gd_infer_curve, then
 * writes RUN/inferred.json.  So inference can be redone after the analysis
 * changes, on a run from elsewhere (`import-curve`), or on a `run` directory,
 * which then gets the inferred.json that compare, report and validate read.
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/curve_samples.h"
#include "analysis/infer.h"
#include "analysis/results.h"
#include "analysis/run_load.h"
#include "host/characterize.h"
#include "host/commands.h"
#include "kernels/probe.h"

/* Infers one meta.json probes[] entry into `inf`; adds its curve's plateaus. */
static int infer_entry(const char *run, const json_t *entry, const json_t *device, gd_inference *inf,
                       json_t *curves, gd_err *err)
{
    const char *name = json_string_value(json_object_get(entry, "probe"));
    const char *label = json_string_value(json_object_get(entry, "csv"));
    if (!name || !label)
        return gd_fail(err, "%s/meta.json: a probes[] entry without probe and csv", run);
    const gd_probe *probe = gd_probe_find(name);
    if (!probe)
        return gd_fail(err, "%s/meta.json: unknown probe '%s'", run, name);
    const char *level = json_string_value(json_object_get(entry, "level"));
    char csv[1100], samples[1100], where[1200];
    snprintf(csv, sizeof csv, "%s/%s.csv", run, label);
    snprintf(samples, sizeof samples, "%s/%s%s", run, label, GD_SAMPLES_SUFFIX);
    snprintf(where, sizeof where, "%s/meta.json: step %s", run, label);
    gd_curve curve;
    if (gd_curve_read_csv(csv, label, probe, &curve, err) != 0)
        return -1;
    gd_probe_opts_from_json(entry, &curve.opts);
    if (gd_curve_read_samples(samples, &curve, err) != 0) {
        gd_curve_free(&curve);
        return gd_fail_prefix(err, "inference needs every sample (runs before issue 16 kept "
                                   "only summaries)");
    }
    gd_segmentation seg;
    if (gd_curve_segment(&curve, gd_probe_primary_series(probe), &seg, err) != 0) {
        gd_curve_free(&curve);
        return -1;
    }
    const char *cc = json_string_value(json_object_get(device, "compute_capability"));
    int cc_major = cc ? atoi(cc) : 0;
    int rc = gd_infer_curve(inf, &curve, &seg, level ? level : "",
                            (uint64_t)json_integer_value(json_object_get(device, "l2_bytes")), cc_major,
                            (int)json_integer_value(json_object_get(device, "subpartitions_per_sm")),
                            where, err);
    json_t *cj = gd_segmentation_to_json(&seg);
    json_object_set_new(cj, "probe", json_string(name));
    json_object_set_new(cj, "sweep", json_string(probe->sweep_name));
    json_object_set_new(cj, "points", json_integer((json_int_t)curve.count));
    json_object_set_new(curves, label, cj);
    gd_segmentation_free(&seg);
    gd_curve_free(&curve);
    return rc;
}

int gd_cmd_infer(int argc, char **argv)
{
    static const char help[] =
        "usage: gpudissect infer RUN\n\n"
        "Redoes the inference of a results directory from its files alone: each step of\n"
        "meta.json in order, from LABEL.csv and LABEL.samples.gz (every sample, which\n"
        "plateau detection needs), and writes RUN/inferred.json -- for a `run` directory,\n"
        "an imported curve (import-curve), or after the analysis changed.\n";
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(help, stdout);
        return 0;
    }
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "gpudissect: expected one results directory\n%s", help);
        return 2;
    }
    const char *run = argv[1];
    gd_err err;
    char path[1100];
    snprintf(path, sizeof path, "%s/meta.json", run);
    json_t *meta = gd_json_load(path, 0, &err);
    if (!meta)
        return gd_report_error(err.msg);
    const json_t *device = json_object_get(meta, "device");
    const json_t *probes = json_object_get(meta, "probes");
    gd_inference inf;
    memset(&inf, 0, sizeof inf);
    json_t *curves = json_object();
    size_t i, inferred = 0;
    json_t *entry;
    int rc = 0;
    size_t failed = 0;
    json_array_foreach(probes, i, entry)
    {
        /* a step characterize skipped or failed has nothing to give; one whose
         * inference fails here is said so and left out -- as characterize
         * does, one failing step never ends the rest */
        if (json_object_get(entry, "skipped") || json_object_get(entry, "failed"))
            continue;
        gd_err step_err = {{0}};
        if (infer_entry(run, entry, device, &inf, curves, &step_err) != 0) {
            fprintf(stderr, "%s (the inference goes on)\n", step_err.msg);
            failed++;
            continue;
        }
        inferred++;
    }
    if (rc == 0 && !inferred)
        rc = gd_fail(&err, "%s: no measured step to infer from", path);
    if (rc == 0) {
        gd_inference_finish(&inf);
        gd_inference_snap(&inf);
        json_t *doc = gd_inference_to_json(&inf);
        json_object_set_new(doc, "device", json_incref(json_object_get(device, "spec")));
        json_object_set_new(doc, "suite", json_incref(json_object_get(meta, "suite")));
        json_object_set_new(doc, "curves", json_incref(curves));
        json_object_set_new(doc, "inferred_by", json_string("gpudissect infer"));
        snprintf(path, sizeof path, "%s/inferred.json", run);
        rc = gd_write_json_atomic(path, doc, &err);
        json_decref(doc);
    }
    json_decref(curves);
    json_decref(meta);
    if (rc != 0)
        return gd_report_error(err.msg);
    printf("%s/inferred.json: %zu steps%s\n", run, inferred, failed ? ", some failed (above)" : "");
    return failed ? 3 : 0;
}
