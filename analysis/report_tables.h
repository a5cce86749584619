/* report_tables.h -- internal to report.md: its table sections, and the
 * Markdown that report.c shares with them.
 *
 *   report.c         the document: loads meta.json, inferred.json and
 *                    compare.json, checks what it cannot do without, writes the
 *                    title and the Provenance section, puts the sections in
 *                    order and writes report.md atomically
 *   report_tables.c  the sections that are tables of results -- Levels,
 *                    Comparison with the model, Residuals per plateau, Curves --
 *                    and the list of Plots; and how a JSON value reads in
 *                    Markdown (escaping, code spans, sizes, the missing mark)
 *
 * The section writers only append to a gd_text; they take JSON that report.c
 * has already checked ("levels" is an array of objects with a string "name";
 * each of compare's "parameters" has string "parameter" and "verdict") and are
 * lenient about everything else.  Only the plots list can fail: it reads a
 * directory.
 */
#ifndef GD_ANALYSIS_REPORT_TABLES_H
#define GD_ANALYSIS_REPORT_TABLES_H

#include <jansson.h>

#include "analysis/results.h"
#include "host/device.h"

/* Room for a path inside the run directory (the run directory is user-chosen). */
#define REPORT_PATH_BYTES 1200
/* What a missing or null value shows as. */
#define REPORT_MISSING "—"

/* obj[key] when it is an object, else NULL (absent, null or another type). */
static inline json_t *report_get_object(const json_t *obj, const char *key)
{
    json_t *v = obj ? json_object_get(obj, key) : NULL;
    return json_is_object(v) ? v : NULL;
}

/* obj[key] when it is a string, else NULL. */
static inline const char *report_get_string(const json_t *obj, const char *key)
{
    json_t *v = obj ? json_object_get(obj, key) : NULL;
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* Free text, escaped where Markdown would read it as markup. */
void report_md_text(gd_text *t, const char *s);
/* An identifier (parameter, curve, path, command line) verbatim in a code span;
 * '|' escaped so that it also works inside a table cell. */
void report_md_code(gd_text *t, const char *s);
/* Any JSON scalar for a person: strings escaped, reals to 6 significant digits,
 * booleans as yes/no, anything else as REPORT_MISSING. */
void report_put_value(gd_text *t, const json_t *v);
/* A byte count as "64KiB (65536<unit_suffix>)"; any other value as
 * report_put_value. */
void report_put_bytes(gd_text *t, const json_t *v, const char *unit_suffix);

/* ## Levels: every entry of inferred.json's "levels", in file order. */
void report_put_levels(gd_text *t, const json_t *levels);
/* ## Comparison with the model: compare.json's "parameters" and the summary
 * line "**Summary:** N match, M mismatch, K not measured". */
void report_put_comparison(gd_text *t, const json_t *compare);
/* ## Residuals per plateau: compare.json's "residuals" (nothing when empty);
 * `curves` (inferred.json's) says which sweeps are in bytes. */
void report_put_residuals(gd_text *t, const json_t *residuals, const json_t *curves);
/* ## Curves: inferred.json's "curves", a table and each curve's plateaus and
 * knees (nothing when there are none). */
/* `segmentations`: compare.json's (may be NULL): a curve whose plateaus do not
 * describe it is listed as not segmented. */
void report_put_curves(gd_text *t, const json_t *curves, const json_t *segmentations);
/* ## Plots: RUN_DIR/plots/NAME.png in name order, each with links to its SVG,
 * data and script.  -1 with err filled when the directory cannot be listed. */
int report_put_plots(gd_text *t, const char *run_dir, gd_err *err);

#endif
