/* report.h -- results/RUN/report.md: what was measured, on what, and how it
 * compares with the model, as one Markdown page.
 *
 * The report is built only from files already in the run directory, so it can
 * be regenerated at any time (after a re-analysis, on another machine, from a
 * committed reference run) without the device:
 *
 *   RUN/meta.json       provenance: device, host, versions, git, command, times
 *                       (required; every value in it may be null or absent)
 *   RUN/inferred.json   levels and curves found by the analysis (required:
 *                       "levels", an array whose entries each have a "name")
 *   RUN/compare.json    measured vs model vs published, per parameter, and the
 *                       residual per plateau (optional: without it the report
 *                       has no verdicts; when present, "parameters" is required
 *                       and each entry needs "parameter" and "verdict")
 *   RUN/plots/NAME.png  embedded as ![NAME](plots/NAME.png), each with a link
 *                       to NAME.svg (and to NAME.dat / NAME.gp when present)
 *
 * Sections, in order: title, Provenance, Levels (every entry of
 * inferred.levels, in file order), Comparison with the model (table and a line
 * "**Summary:** N match, M mismatch, K not measured"), Residuals per plateau,
 * Curves (points used, sweep strategy, and for an adaptive sweep the points a
 * uniform sweep would have needed), Plots.
 */
#ifndef GD_REPORT_H
#define GD_REPORT_H

#include "host/device.h"

/* Writes RUN_DIR/report.md atomically.  Returns 0, or -1 with a one-line error
 * that names the file at fault (malformed JSON: FILE:LINE:COLUMN and jansson's
 * message; a missing required key: FILE and the key's place). */
int gd_report_write(const char *run_dir, gd_err *err);

#endif
