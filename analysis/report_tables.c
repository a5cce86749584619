/* report_tables.c -- the tables of report.md, and how a JSON value reads there.
 *
 * Each section turns one part of inferred.json or compare.json into a Markdown
 * table a person can scan: sizes read "64KiB (65536 bytes)", a mismatch is
 * bold, a missing value is a dash, and the comparison ends with a one-line
 * count of verdicts.  The sections are lenient: an entry that is not an object
 * is skipped, any value may be null, and unknown keys are ignored -- except on
 * levels, where extra scalar fields (ways, scope, ...) are shown in an "Other"
 * column, so that a new inference shows up without touching this file.  What a
 * section cannot do without (a level's name, a parameter's verdict) report.c
 * has checked before any of this runs.
 *
 * Markdown: identifiers (parameters, curves, paths) go into code spans, which
 * show text verbatim; free text (device names, sources) is escaped where
 * Markdown would otherwise read it as markup; table cells escape '|'.  These
 * rules live here because the tables are where almost all of them are used;
 * report.c borrows the four that its title and provenance need (see
 * report_tables.h).
 */
#include "analysis/report_tables.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/curve.h"

/* Largest integer a double holds exactly: beyond it a "bytes" value is not one. */
#define EXACT_DOUBLE_LIMIT 9007199254740992.0

/* ------------------------------------------------------------------------- */
/* Markdown text                                                              */

static int is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Free text: escape what Markdown reads as markup ('_' only at word edges,
 * where it could open emphasis; "footprint_bytes" stays as it is). */
void report_md_text(gd_text *t, const char *s)
{
    for (const char *c = s; *c; c++) {
        if ((unsigned char)*c < 0x20)
            gd_text_printf(t, " ");
        else if (strchr("\\`*<>|[]", *c))
            gd_text_printf(t, "\\%c", *c);
        else if (*c == '_' && !(c > s && is_word_char(c[-1]) && is_word_char(c[1])))
            gd_text_printf(t, "\\_");
        else
            gd_text_printf(t, "%c", *c);
    }
}

/* A code span: fenced by one more backtick than the longest run inside
 * (CommonMark), '|' escaped so it also works inside a table cell. */
void report_md_code(gd_text *t, const char *s)
{
    size_t run = 0, longest = 0;
    for (const char *c = s; *c; c++) {
        run = *c == '`' ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    size_t n = strlen(s);
    int pad = n && (s[0] == '`' || s[n - 1] == '`');
    for (size_t i = 0; i <= longest; i++)
        gd_text_printf(t, "`");
    gd_text_printf(t, "%s", pad ? " " : "");
    for (const char *c = s; *c; c++) {
        if (*c == '|')
            gd_text_printf(t, "\\|");
        else if ((unsigned char)*c < 0x20)
            gd_text_printf(t, " ");
        else
            gd_text_printf(t, "%c", *c);
    }
    gd_text_printf(t, "%s", pad ? " " : "");
    for (size_t i = 0; i <= longest; i++)
        gd_text_printf(t, "`");
}

/* A link target: percent-encode everything but unreserved characters and '/'. */
static void md_url(gd_text *t, const char *s)
{
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (is_word_char((char)*c) || strchr("-._~/", *c))
            gd_text_printf(t, "%c", *c);
        else
            gd_text_printf(t, "%%%02X", *c);
    }
}

/* ------------------------------------------------------------------------- */
/* Values                                                                     */

/* A JSON number as a non-negative whole number that fits exactly. */
static int json_whole(const json_t *v, uint64_t *out)
{
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        *out = (uint64_t)json_integer_value(v);
        return 1;
    }
    if (json_is_real(v)) {
        double d = json_real_value(v);
        if (d >= 0 && d < EXACT_DOUBLE_LIMIT && d == floor(d)) {
            *out = (uint64_t)d;
            return 1;
        }
    }
    return 0;
}

/* Any scalar, for a person: strings escaped, reals to 6 significant digits. */
void report_put_value(gd_text *t, const json_t *v)
{
    if (json_is_string(v))
        report_md_text(t, json_string_value(v));
    else if (json_is_integer(v))
        gd_text_printf(t, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else if (json_is_real(v))
        gd_text_printf(t, "%.6g", json_real_value(v));
    else if (json_is_boolean(v))
        gd_text_printf(t, "%s", json_is_true(v) ? "yes" : "no");
    else
        gd_text_printf(t, REPORT_MISSING);
}

/* "64KiB (65536)" for a byte count; any other value as report_put_value. */
void report_put_bytes(gd_text *t, const json_t *v, const char *unit_suffix)
{
    uint64_t bytes;
    if (!json_whole(v, &bytes)) {
        report_put_value(t, v);
        return;
    }
    char human[32];
    gd_format_bytes(bytes, human, sizeof human);
    if (bytes < 1024)
        gd_text_printf(t, "%s", human);
    else
        gd_text_printf(t, "%s (%llu%s)", human, (unsigned long long)bytes, unit_suffix);
}

/* A real with a fixed number of decimals, or the missing mark. */
static void put_fixed(gd_text *t, const json_t *v, int decimals)
{
    if (json_is_number(v))
        gd_text_printf(t, "%.*f", decimals, json_number_value(v));
    else
        report_put_value(t, v);
}

/* A table cell's separator and value. */
static void cell_value(gd_text *t, const json_t *v)
{
    gd_text_printf(t, " | ");
    report_put_value(t, v);
}

static void cell_fixed(gd_text *t, const json_t *v, int decimals)
{
    gd_text_printf(t, " | ");
    put_fixed(t, v, decimals);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* A sweep value: bytes when the sweep is in bytes, else a plain number. */
static void put_sweep_value(gd_text *t, const json_t *v, int in_bytes)
{
    uint64_t bytes;
    char human[32];
    if (in_bytes && json_whole(v, &bytes)) {
        gd_format_bytes(bytes, human, sizeof human);
        gd_text_printf(t, "%s", human);
    } else {
        report_put_value(t, v);
    }
}

/* ------------------------------------------------------------------------- */
/* Levels                                                                     */

static int known_level_key(const char *key)
{
    static const char *const known[] = {"name", "size_bytes", "sector_bytes", "line_bytes",
                                        "latency_cycles", "confidence", NULL};
    for (const char *const *k = known; *k; k++)
        if (strcmp(key, *k) == 0)
            return 1;
    return 0;
}

static int level_has_other(const json_t *level)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)level, key, v) {
        if (!known_level_key(key) && !json_is_object(v) && !json_is_array(v))
            return 1;
    }
    return 0;
}

void report_put_levels(gd_text *t, const json_t *levels)
{
    size_t i;
    json_t *level;
    int other = 0;
    json_array_foreach(levels, i, level) {
        other |= level_has_other(level);
    }

    gd_text_printf(t, "## Levels\n\n");
    if (json_array_size(levels) == 0) {
        gd_text_printf(t, "No level was inferred.\n\n");
        return;
    }
    gd_text_printf(t, "| Level | Size | Size (bytes) | Sector: fetch granularity (bytes) | "
                      "Line: allocation (bytes) | Latency (cycles) | Confidence |%s\n",
                   other ? " Other |" : "");
    gd_text_printf(t, "| --- | ---: | ---: | ---: | ---: | ---: | ---: |%s\n",
                   other ? " --- |" : "");
    json_array_foreach(levels, i, level) {
        const json_t *size = json_object_get(level, "size_bytes");
        uint64_t bytes;
        char human[32];
        gd_text_printf(t, "| ");
        report_md_text(t, report_get_string(level, "name"));
        gd_text_printf(t, " | ");
        if (json_whole(size, &bytes)) {
            gd_format_bytes(bytes, human, sizeof human);
            gd_text_printf(t, "%s | %llu", human, (unsigned long long)bytes);
        } else {
            report_put_value(t, size);
            gd_text_printf(t, " | " REPORT_MISSING);
        }
        cell_value(t, json_object_get(level, "sector_bytes"));
        cell_value(t, json_object_get(level, "line_bytes"));
        cell_fixed(t, json_object_get(level, "latency_cycles"), 1);
        cell_fixed(t, json_object_get(level, "confidence"), 2);
        gd_text_printf(t, " |");
        if (other) {
            const char *key;
            json_t *v;
            int first = 1;
            gd_text_printf(t, " ");
            json_object_foreach(level, key, v) {
                if (known_level_key(key) || json_is_object(v) || json_is_array(v))
                    continue;
                gd_text_printf(t, "%s", first ? "" : ", ");
                report_md_text(t, key);
                gd_text_printf(t, " = ");
                report_put_value(t, v);
                first = 0;
            }
            gd_text_printf(t, " |");
        }
        gd_text_printf(t, "\n");
    }
    gd_text_printf(t, "\n");
}

/* ------------------------------------------------------------------------- */
/* Comparison and residuals                                                   */

/* " | " then the value of a parameter: bytes when its name says so. */
static void cell_parameter(gd_text *t, const char *parameter, const json_t *v)
{
    gd_text_printf(t, " | ");
    if (ends_with(parameter, "_bytes"))
        report_put_bytes(t, v, "");
    else
        report_put_value(t, v);
}

void report_put_comparison(gd_text *t, const json_t *compare)
{
    const json_t *params = json_object_get(compare, "parameters");
    gd_text_printf(t, "## Comparison with the model\n\n");
    if (report_get_string(compare, "arch") || report_get_string(compare, "arch_file")) {
        gd_text_printf(t, "Model: ");
        report_put_value(t, json_object_get(compare, "arch"));
        if (report_get_string(compare, "arch_file")) {
            gd_text_printf(t, " (");
            report_md_code(t, report_get_string(compare, "arch_file"));
            gd_text_printf(t, ")");
        }
        gd_text_printf(t, "\n\n");
    }
    size_t match = 0, mismatch = 0, not_measured = 0, other = 0;
    size_t i;
    json_t *p;
    if (json_array_size(params)) {
        gd_text_printf(t, "| Parameter | Measured | Model | Published | Source | Error | "
                          "Tolerance | Verdict |\n");
        gd_text_printf(t, "| --- | ---: | ---: | ---: | --- | ---: | ---: | --- |\n");
    }
    json_array_foreach(params, i, p) {
        const char *name = report_get_string(p, "parameter");
        const char *verdict = report_get_string(p, "verdict");
        gd_text_printf(t, "| ");
        report_md_code(t, name);
        cell_parameter(t, name, json_object_get(p, "measured"));
        cell_parameter(t, name, json_object_get(p, "expected"));
        cell_parameter(t, name, json_object_get(p, "published"));
        cell_value(t, json_object_get(p, "source"));
        cell_value(t, json_object_get(p, "error"));
        const json_t *rel = json_object_get(p, "relative_error");
        if (json_is_number(rel))
            gd_text_printf(t, " (%+.1f%%)", 100 * json_number_value(rel));
        cell_value(t, json_object_get(p, "tolerance"));
        gd_text_printf(t, " | ");
        if (strcmp(verdict, "match") == 0) {
            match++;
            gd_text_printf(t, "match");
        } else if (strcmp(verdict, "mismatch") == 0) {
            mismatch++;
            gd_text_printf(t, "**mismatch**");
        } else {
            if (strcmp(verdict, "not measured") == 0)
                not_measured++;
            else
                other++;
            report_md_text(t, verdict);
        }
        gd_text_printf(t, " |\n");
    }
    gd_text_printf(t, "%s**Summary:** %zu match, %zu mismatch, %zu not measured", i ? "\n" : "",
                   match, mismatch, not_measured);
    if (other)
        gd_text_printf(t, ", %zu other", other);
    gd_text_printf(t, ".\n\n");
    int notes = 0;
    json_array_foreach(params, i, p) {
        const char *note = report_get_string(p, "note");
        if (!note)
            continue;
        gd_text_printf(t, "%s- ", notes++ ? "" : "Notes:\n\n");
        report_md_code(t, report_get_string(p, "parameter"));
        gd_text_printf(t, ": ");
        report_md_text(t, note);
        gd_text_printf(t, "\n");
    }
    if (notes)
        gd_text_printf(t, "\n");
}

/* Does curve `name` of inferred.json sweep a byte count? */
static int curve_in_bytes(const json_t *curves, const char *name)
{
    const json_t *curve = name ? report_get_object(curves, name) : NULL;
    const char *sweep = report_get_string(curve, "sweep");
    return sweep && ends_with(sweep, "_bytes");
}

void report_put_residuals(gd_text *t, const json_t *residuals, const json_t *curves)
{
    if (json_array_size(residuals) == 0)
        return;
    gd_text_printf(t, "## Residuals per plateau (measured − model)\n\n");
    gd_text_printf(t, "Each point of a plateau must lie within its tolerance of the model: half "
                      "a cycle (0.02 CPI), 2%% of the model, three standard errors of the "
                      "point's samples, and an approximate model's stated error (README "
                      "\"Verdicts\").  Tolerance is that of the point nearest to (or furthest "
                      "past) it.\n\n");
    gd_text_printf(t, "| Curve | Plateau | Level | From | To | Points | Mean | RMS | Max abs | "
                      "Tolerance | Model | Verdict |\n");
    gd_text_printf(t, "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- "
                      "| --- |\n");
    size_t i;
    json_t *r;
    json_array_foreach(residuals, i, r) {
        if (!json_is_object(r))
            continue;
        const char *curve = report_get_string(r, "curve");
        int in_bytes = curve_in_bytes(curves, curve);
        gd_text_printf(t, "| ");
        if (curve)
            report_md_code(t, curve);
        else
            gd_text_printf(t, REPORT_MISSING);
        cell_value(t, json_object_get(r, "plateau"));
        cell_value(t, json_object_get(r, "level"));
        gd_text_printf(t, " | ");
        put_sweep_value(t, json_object_get(r, "x_first"), in_bytes);
        gd_text_printf(t, " | ");
        put_sweep_value(t, json_object_get(r, "x_last"), in_bytes);
        cell_value(t, json_object_get(r, "points"));
        const json_t *knee = json_object_get(r, "points_near_knee");
        if (json_is_integer(knee) && json_integer_value(knee) > 0)
            gd_text_printf(t, " (+%lld at a knee)", (long long)json_integer_value(knee));
        static const char *const stats[] = {"mean_residual", "rms_residual", "max_abs_residual"};
        for (size_t s = 0; s < sizeof stats / sizeof stats[0]; s++) {
            cell_fixed(t, json_object_get(r, stats[s]), 2);
        }
        cell_fixed(t, json_object_get(r, "tolerance"), 2);
        const json_t *mre = json_object_get(r, "model_relative_error");
        gd_text_printf(t, " | ");
        if (report_get_string(r, "model"))
            report_md_text(t, report_get_string(r, "model"));
        else
            gd_text_printf(t, REPORT_MISSING);
        if (json_is_number(mre))
            gd_text_printf(t, " (±%.0f%%)", 100 * json_number_value(mre));
        const char *verdict = report_get_string(r, "verdict");
        gd_text_printf(t, " | ");
        if (verdict && !strcmp(verdict, "mismatch"))
            gd_text_printf(t, "**mismatch**");
        else if (verdict)
            report_md_text(t, verdict);
        else
            gd_text_printf(t, REPORT_MISSING);
        gd_text_printf(t, " |\n");
    }
    gd_text_printf(t, "\n");
    const char *noted = NULL; /* one line per curve whose model is approximate */
    json_array_foreach(residuals, i, r) {
        const char *note = report_get_string(r, "note");
        const char *curve = report_get_string(r, "curve");
        if (!note || !curve || (noted && !strcmp(noted, curve)))
            continue;
        noted = curve;
        gd_text_printf(t, "- model of ");
        report_md_code(t, curve);
        gd_text_printf(t, ": ");
        report_md_text(t, note);
        gd_text_printf(t, "\n");
    }
    if (noted)
        gd_text_printf(t, "\n");
}

/* ------------------------------------------------------------------------- */
/* Curves                                                                     */

static void put_curve_details(gd_text *t, const char *name, const json_t *curve, int in_bytes,
                              const json_t *seg)
{
    const json_t *plateaus = json_object_get(curve, "plateaus");
    const json_t *knees = json_object_get(curve, "knees");
    /* compare.json's verdict on the segmentation (plateau_fit.c), which the
     * plots follow too: plateaus that do not describe the curve are not listed */
    if (seg && json_is_false(json_object_get(seg, "segmented"))) {
        gd_text_printf(t, "- ");
        report_md_code(t, name);
        gd_text_printf(t, ": not segmented into plateaus (");
        report_md_text(t, report_get_string(seg, "why") ? report_get_string(seg, "why") : "?");
        gd_text_printf(t, "); its plot has no plateau labels\n");
        return;
    }
    if (json_array_size(plateaus) == 0 && json_array_size(knees) == 0)
        return;
    const char *unit = seg ? report_get_string(seg, "unit") : NULL;
    gd_text_printf(t, "- ");
    report_md_code(t, name);
    gd_text_printf(t, ":");
    size_t i;
    json_t *e;
    json_array_foreach(plateaus, i, e) {
        gd_text_printf(t, "%s plateau ", i ? ";" : "");
        put_fixed(t, json_object_get(e, "level"), unit && !unit[0] ? 2 : 1);
        if (unit && unit[0])
            gd_text_printf(t, " %s", unit);
        gd_text_printf(t, " over ");
        put_sweep_value(t, json_object_get(e, "x_first"), in_bytes);
        gd_text_printf(t, "–");
        put_sweep_value(t, json_object_get(e, "x_last"), in_bytes);
        gd_text_printf(t, " (confidence ");
        put_fixed(t, json_object_get(e, "confidence"), 2);
        gd_text_printf(t, ")");
    }
    json_array_foreach(knees, i, e) {
        gd_text_printf(t, "%s knee between ", i || json_array_size(plateaus) ? ";" : "");
        put_sweep_value(t, json_object_get(e, "x_below"), in_bytes);
        gd_text_printf(t, " and ");
        put_sweep_value(t, json_object_get(e, "x_above"), in_bytes);
        gd_text_printf(t, " (confidence ");
        put_fixed(t, json_object_get(e, "confidence"), 2);
        gd_text_printf(t, ")");
    }
    gd_text_printf(t, "\n");
}

void report_put_curves(gd_text *t, const json_t *curves, const json_t *segmentations)
{
    if (!curves || json_object_size(curves) == 0)
        return;
    gd_text_printf(t, "## Curves\n\n");
    gd_text_printf(t, "| Curve | Probe | Sweep | Strategy | Points | A uniform sweep would need "
                      "| Plateaus | Knees |\n");
    gd_text_printf(t, "| --- | --- | --- | --- | ---: | ---: | ---: | ---: |\n");
    const char *name;
    json_t *c;
    json_object_foreach((json_t *)curves, name, c) {
        if (!json_is_object(c))
            continue;
        gd_text_printf(t, "| ");
        report_md_code(t, name);
        cell_value(t, json_object_get(c, "probe"));
        gd_text_printf(t, " | ");
        if (report_get_string(c, "sweep"))
            report_md_code(t, report_get_string(c, "sweep"));
        else
            gd_text_printf(t, REPORT_MISSING);
        cell_value(t, json_object_get(c, "strategy"));
        gd_text_printf(t, " | ");
        const json_t *points = json_object_get(c, "points");
        const json_t *uniform = json_object_get(c, "uniform_points_equivalent");
        report_put_value(t, points);
        cell_value(t, uniform);
        if (json_is_number(points) && json_is_number(uniform) && json_number_value(points) > 0)
            gd_text_printf(t, " (%.0f× as many)",
                           json_number_value(uniform) / json_number_value(points));
        gd_text_printf(t, " | %zu | %zu |\n", json_array_size(json_object_get(c, "plateaus")),
                       json_array_size(json_object_get(c, "knees")));
    }
    gd_text_printf(t, "\n");
    json_object_foreach((json_t *)curves, name, c) {
        if (json_is_object(c))
            put_curve_details(t, name, c, curve_in_bytes(curves, name),
                              report_get_object(segmentations, name));
    }
    gd_text_printf(t, "\n");
}

/* ------------------------------------------------------------------------- */
/* Plots                                                                      */

/* scandir filter: visible NAME.png (temporaries are NAME.png.tmp.XXXXXX). */
static int png_name(const struct dirent *e)
{
    return e->d_name[0] != '.' && ends_with(e->d_name, ".png");
}

static int plot_file_exists(const char *plots, const char *stem, const char *ext)
{
    char path[REPORT_PATH_BYTES];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s.%s", plots, stem, ext);
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static void put_file_link(gd_text *t, const char *stem, const char *ext)
{
    gd_text_printf(t, "[%s.%s](plots/", stem, ext);
    md_url(t, stem);
    gd_text_printf(t, ".%s)", ext);
}

/* Lists RUN/plots/ *.png (sorted by name) into the report. */
int report_put_plots(gd_text *t, const char *run_dir, gd_err *err)
{
    char plots[REPORT_PATH_BYTES];
    snprintf(plots, sizeof plots, "%s/plots", run_dir);
    gd_text_printf(t, "## Plots\n\n");
    struct dirent **entries = NULL;
    int count = scandir(plots, &entries, png_name, alphasort);
    if (count < 0) {
        if (errno != ENOENT)
            return gd_fail(err, "%s: cannot list: %s", plots, strerror(errno));
        count = 0;
    }
    int shown = 0;
    for (int i = 0; i < count; i++) {
        char stem[sizeof entries[i]->d_name];
        snprintf(stem, sizeof stem, "%.*s", (int)(strlen(entries[i]->d_name) - strlen(".png")),
                 entries[i]->d_name);
        free(entries[i]);
        if (!plot_file_exists(plots, stem, "png")) /* a directory called x.png */
            continue;
        shown++;
        gd_text_printf(t, "### ");
        report_md_text(t, stem);
        gd_text_printf(t, "\n\n![");
        report_md_text(t, stem);
        gd_text_printf(t, "](plots/");
        md_url(t, stem);
        gd_text_printf(t, ".png)\n\n");
        if (plot_file_exists(plots, stem, "svg"))
            put_file_link(t, stem, "svg");
        else
            gd_text_printf(t, "(no SVG)");
        if (plot_file_exists(plots, stem, "dat")) {
            gd_text_printf(t, " · data: ");
            put_file_link(t, stem, "dat");
        }
        if (plot_file_exists(plots, stem, "gp")) {
            gd_text_printf(t, " · gnuplot script: ");
            put_file_link(t, stem, "gp");
        }
        gd_text_printf(t, "\n\n");
    }
    free(entries);
    if (!shown)
        gd_text_printf(t, "No plots.\n");
    return 0;
}
