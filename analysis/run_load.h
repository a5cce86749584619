/* run_load.h -- read a results directory back: meta.json, the probe CSVs,
 * inferred.json.  compare, plot and report work from these files, so they give
 * the same answers whether they run inside `characterize` or on their own later. */
#ifndef GD_RUN_LOAD_H
#define GD_RUN_LOAD_H

#include <jansson.h>

#include "analysis/infer.h"
#include "analysis/curve.h"

#define GD_RUN_MAX_CURVES 64
#define GD_RUN_MAX_LABEL 63 /* a curve's label[64] */

typedef struct gd_run {
    char dir[512];
    json_t *meta;                 /* meta.json */
    json_t *inferred_doc;         /* inferred.json, or NULL when absent */
    gd_inference inferred;
    gd_curve curves[GD_RUN_MAX_CURVES]; /* summaries only: samples are NULL */
    size_t curve_count;
} gd_run;

/* Loads DIR; inferred.json is optional.  Fails with a one-line message naming
 * the file (and line) at fault. */
int gd_run_load(const char *dir, gd_run *run, gd_err *err);
void gd_run_free(gd_run *run);

/* The probe options a meta.json probes[] entry records. */
void gd_probe_opts_from_json(const json_t *entry, gd_probe_opts *opts);
/* ... and the other way round: adds them to an entry. */
void gd_probe_opts_to_json(const gd_probe_opts *opts, json_t *entry);

#endif
