/* report.c -- turn a run directory's JSON into report.md.
 *
 * The report is for a person: sizes read "64KiB (65536 bytes)", a mismatch is
 * bold, a missing value is a dash.  It is also a record that must never lie by
 * omission, so it is strict about what it cannot do without -- a malformed JSON
 * file, or a level without a name, stops it with the file's name and the place
 * -- and lenient about everything else: meta.json comes from whatever device
 * and host the run had, and any of its values may be null (no driver on a
 * simulated device, no NUMA information on a laptop).  Unknown keys are ignored,
 * except on levels, where extra scalar fields (ways, scope, ...) are shown in an
 * "Other" column so that a new inference shows up without touching this file.
 *
 * Markdown: identifiers (parameters, curves, paths, the command line) go into
 * code spans, which show text verbatim; free text (device and CPU names,
 * sources) is escaped where Markdown would otherwise read it as markup.  Table
 * cells escape '|'.  The file is written once, atomically, from a gd_text.
 */
#include "analysis/report.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "host/results.h"
#include "host/runner.h"

#define REPORT_PATH_BYTES 1200
/* What a missing or null value shows as. */
#define MISSING "—"
/* CUDA encodes versions as 1000 * major + 10 * minor (cuDriverGetVersion). */
#define CUDA_VERSION_MAJOR_UNIT 1000
#define CUDA_VERSION_MINOR_UNIT 10
/* Largest integer a double holds exactly: beyond it a "bytes" value is not one. */
#define EXACT_DOUBLE_LIMIT 9007199254740992.0

/* ------------------------------------------------------------------------- */
/* Reading the JSON files                                                     */

/* Loads PATH as a JSON object.  Returns 0, 1 when the file does not exist and
 * `optional` is set, -1 on error. */
static int load_object(const char *path, int optional, json_t **out, gd_err *err)
{
    *out = NULL;
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT && optional)
            return 1;
        return gd_fail(err, "%s: cannot open: %s", path, strerror(errno));
    }
    json_error_t je;
    json_t *doc = json_load_file(path, 0, &je);
    if (!doc)
        return gd_fail(err, "%s:%d:%d: malformed JSON: %s", path, je.line, je.column, je.text);
    if (!json_is_object(doc)) {
        json_decref(doc);
        return gd_fail(err, "%s: expected a JSON object at the top", path);
    }
    *out = doc;
    return 0;
}

/* obj[key] when it is an object, else NULL (absent, null or another type). */
static json_t *get_object(const json_t *obj, const char *key)
{
    json_t *v = obj ? json_object_get(obj, key) : NULL;
    return json_is_object(v) ? v : NULL;
}

static const char *get_string(const json_t *obj, const char *key)
{
    json_t *v = obj ? json_object_get(obj, key) : NULL;
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* Checks that every entry of array `key` is an object with the string keys
 * named in `required` (NULL-terminated). */
static int check_entries(const char *path, const json_t *array, const char *key,
                         const char *const *required, gd_err *err)
{
    size_t i;
    json_t *entry;
    json_array_foreach(array, i, entry) {
        if (!json_is_object(entry))
            return gd_fail(err, "%s: %s[%zu]: expected an object", path, key, i);
        for (const char *const *r = required; *r; r++)
            if (!json_is_string(json_object_get(entry, *r)))
                return gd_fail(err, "%s: %s[%zu]: missing required key \"%s\" (a string)", path,
                               key, i, *r);
    }
    return 0;
}

static int require_array(const char *path, const json_t *doc, const char *key, json_t **out,
                         gd_err *err)
{
    *out = json_object_get(doc, key);
    if (!json_is_array(*out))
        return gd_fail(err, "%s: missing required key \"%s\" (an array)", path, key);
    return 0;
}

/* ------------------------------------------------------------------------- */
/* Markdown text                                                              */

static int is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Free text: escape what Markdown reads as markup ('_' only at word edges,
 * where it could open emphasis; "footprint_bytes" stays as it is). */
static void md_text(gd_text *t, const char *s)
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
static void md_code(gd_text *t, const char *s)
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
static void put_value(gd_text *t, const json_t *v)
{
    if (json_is_string(v))
        md_text(t, json_string_value(v));
    else if (json_is_integer(v))
        gd_text_printf(t, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else if (json_is_real(v))
        gd_text_printf(t, "%.6g", json_real_value(v));
    else if (json_is_boolean(v))
        gd_text_printf(t, "%s", json_is_true(v) ? "yes" : "no");
    else
        gd_text_printf(t, MISSING);
}

/* "64KiB (65536)" for a byte count; any other value as put_value. */
static void put_bytes(gd_text *t, const json_t *v, const char *unit_suffix)
{
    uint64_t bytes;
    if (!json_whole(v, &bytes)) {
        put_value(t, v);
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
        put_value(t, v);
}

/* A table cell's separator and value. */
static void cell_value(gd_text *t, const json_t *v)
{
    gd_text_printf(t, " | ");
    put_value(t, v);
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
        put_value(t, v);
    }
}

/* ------------------------------------------------------------------------- */
/* Provenance                                                                 */

/* How a provenance value is shown.  The last few join several keys. */
typedef enum provenance_style {
    AS_VALUE,        /* as it is */
    AS_CODE,         /* verbatim, in a code span */
    AS_BYTES,        /* 4MiB (4194304 bytes) */
    AS_MHZ,          /* 1590 MHz */
    AS_CUDA_VERSION, /* 12.4 (12040); null: none */
    AS_DEVICE,       /* spec — name (backend b) */
    AS_ARCH,         /* arch (`arch_file`) */
    AS_SMS,          /* sm_count × subpartitions_per_sm sub-partitions */
    AS_HOST_CPU,     /* cpu_model — packages, cores, PUs */
    AS_TOOL,         /* tool version */
    AS_COMMAND,      /* command_line as one shell line */
    AS_END_TIME,     /* end_time; null: not recorded */
} provenance_style;

typedef struct provenance_row {
    const char *label;
    const char *section;  /* "device", "host" or NULL: the top level of meta.json */
    const char *key;
    provenance_style style;
    int only_if_present;  /* leave the line out when the value is absent or null */
} provenance_row;

static const provenance_row provenance_rows[] = {
    {"Device", "device", "spec", AS_DEVICE, 0},
    {"Architecture file", "device", "arch", AS_ARCH, 1},
    {"Compute capability", "device", "compute_capability", AS_VALUE, 0},
    {"SMs", "device", "sm_count", AS_SMS, 0},
    {"SM clock", "device", "sm_clock_mhz", AS_MHZ, 0},
    {"L2", "device", "l2_bytes", AS_BYTES, 0},
    {"Global memory", "device", "global_mem_bytes", AS_BYTES, 0},
    {"Driver version", "device", "driver_version", AS_CUDA_VERSION, 0},
    {"CUDA toolkit version", "device", "cuda_toolkit_version", AS_CUDA_VERSION, 0},
    {"PCI bus id", "device", "pci_bus_id", AS_VALUE, 1},
    {"Host CPU", "host", "cpu_model", AS_HOST_CPU, 0},
    {"NUMA nodes", "host", "numa_nodes", AS_VALUE, 0},
    {"hwloc", "host", "hwloc_version", AS_VALUE, 1},
    {"CPUs local to the GPU", "host", "gpu_local_cpuset", AS_VALUE, 1},
    {"Tool", NULL, "tool", AS_TOOL, 0},
    {"Git revision", NULL, "git_revision", AS_CODE, 0},
    {"Command line", NULL, "command_line", AS_COMMAND, 0},
    {"Started", NULL, "start_time", AS_VALUE, 0},
    {"Finished", NULL, "end_time", AS_END_TIME, 0},
    {"Run error", NULL, "error", AS_VALUE, 1},
};

/* argv as one shell line: arguments with special characters single-quoted. */
static void put_command_line(gd_text *t, const json_t *argv)
{
    gd_text line;
    gd_text_init(&line);
    size_t i;
    json_t *arg;
    json_array_foreach(argv, i, arg) {
        const char *a = json_is_string(arg) ? json_string_value(arg) : "?";
        int plain = a[0] && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                       "0123456789-_./:=,+@%") == strlen(a);
        gd_text_printf(&line, "%s", i ? " " : "");
        if (plain) {
            gd_text_printf(&line, "%s", a);
            continue;
        }
        gd_text_printf(&line, "'");
        for (const char *c = a; *c; c++)
            gd_text_printf(&line, *c == '\'' ? "'\\''" : "%c", *c);
        gd_text_printf(&line, "'");
    }
    if (line.failed)
        t->failed = 1;
    else
        md_code(t, line.data ? line.data : "");
    gd_text_free(&line);
}

/* " — x" / " (backend x)" and the like: `before` v `after` when v is there. */
static void put_around(gd_text *t, const char *before, const json_t *v, const char *after)
{
    if (!v || json_is_null(v))
        return;
    gd_text_printf(t, "%s", before);
    put_value(t, v);
    gd_text_printf(t, "%s", after);
}

static void put_provenance_row(gd_text *t, const json_t *meta, const provenance_row *row)
{
    const json_t *where = row->section ? get_object(meta, row->section) : meta;
    const json_t *v = json_object_get(where, row->key);
    if (row->only_if_present && (!v || json_is_null(v)))
        return;
    gd_text_printf(t, "- **%s:** ", row->label);
    switch (row->style) {
    case AS_VALUE:
        put_value(t, v);
        break;
    case AS_CODE:
        if (json_is_string(v))
            md_code(t, json_string_value(v));
        else
            put_value(t, v);
        break;
    case AS_BYTES:
        put_bytes(t, v, " bytes");
        break;
    case AS_MHZ:
        put_value(t, v);
        gd_text_printf(t, "%s", json_is_number(v) ? " MHz" : "");
        break;
    case AS_CUDA_VERSION:
        if (json_is_integer(v) && json_integer_value(v) > 0) {
            json_int_t n = json_integer_value(v);
            gd_text_printf(t, "%lld.%lld (%lld)", (long long)(n / CUDA_VERSION_MAJOR_UNIT),
                           (long long)(n % CUDA_VERSION_MAJOR_UNIT / CUDA_VERSION_MINOR_UNIT),
                           (long long)n);
        } else if (!v || json_is_null(v)) {
            gd_text_printf(t, "none");
        } else {
            put_value(t, v);
        }
        break;
    case AS_DEVICE:
        put_value(t, v);
        put_around(t, " — ", json_object_get(where, "name"), "");
        put_around(t, " (backend ", json_object_get(where, "backend"), ")");
        break;
    case AS_ARCH:
        put_value(t, v);
        if (get_string(where, "arch_file")) {
            gd_text_printf(t, " (");
            md_code(t, get_string(where, "arch_file"));
            gd_text_printf(t, ")");
        }
        break;
    case AS_SMS:
        put_value(t, v);
        put_around(t, " × ", json_object_get(where, "subpartitions_per_sm"), " sub-partitions");
        break;
    case AS_HOST_CPU:
        put_value(t, v);
        put_around(t, " — ", json_object_get(where, "packages"), " package(s)");
        put_around(t, ", ", json_object_get(where, "cores"), " cores");
        put_around(t, ", ", json_object_get(where, "pus"), " PUs");
        break;
    case AS_TOOL:
        put_value(t, v);
        put_around(t, " ", json_object_get(where, "version"), "");
        break;
    case AS_COMMAND:
        if (json_is_array(v))
            put_command_line(t, v);
        else
            put_value(t, v);
        break;
    case AS_END_TIME:
        if (json_is_string(v))
            put_value(t, v);
        else
            gd_text_printf(t, "not recorded (interrupted run?)");
        break;
    }
    gd_text_printf(t, "\n");
}

static void put_provenance(gd_text *t, const json_t *meta)
{
    gd_text_printf(t, "## Provenance\n\n");
    for (size_t i = 0; i < sizeof provenance_rows / sizeof provenance_rows[0]; i++)
        put_provenance_row(t, meta, &provenance_rows[i]);
    gd_text_printf(t, "\n");
}

/* ------------------------------------------------------------------------- */
/* Levels                                                                     */

static int known_level_key(const char *key)
{
    static const char *const known[] = {"name", "size_bytes", "line_bytes", "latency_cycles",
                                        "confidence", NULL};
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

static void put_levels(gd_text *t, const json_t *levels)
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
    gd_text_printf(t, "| Level | Size | Size (bytes) | Line (bytes) | Latency (cycles) | "
                      "Confidence |%s\n",
                   other ? " Other |" : "");
    gd_text_printf(t, "| --- | ---: | ---: | ---: | ---: | ---: |%s\n", other ? " --- |" : "");
    json_array_foreach(levels, i, level) {
        const json_t *size = json_object_get(level, "size_bytes");
        uint64_t bytes;
        char human[32];
        gd_text_printf(t, "| ");
        md_text(t, get_string(level, "name"));
        gd_text_printf(t, " | ");
        if (json_whole(size, &bytes)) {
            gd_format_bytes(bytes, human, sizeof human);
            gd_text_printf(t, "%s | %llu", human, (unsigned long long)bytes);
        } else {
            put_value(t, size);
            gd_text_printf(t, " | " MISSING);
        }
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
                md_text(t, key);
                gd_text_printf(t, " = ");
                put_value(t, v);
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
        put_bytes(t, v, "");
    else
        put_value(t, v);
}

static void put_comparison(gd_text *t, const json_t *compare)
{
    const json_t *params = json_object_get(compare, "parameters");
    gd_text_printf(t, "## Comparison with the model\n\n");
    if (get_string(compare, "arch") || get_string(compare, "arch_file")) {
        gd_text_printf(t, "Model: ");
        put_value(t, json_object_get(compare, "arch"));
        if (get_string(compare, "arch_file")) {
            gd_text_printf(t, " (");
            md_code(t, get_string(compare, "arch_file"));
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
        const char *name = get_string(p, "parameter");
        const char *verdict = get_string(p, "verdict");
        gd_text_printf(t, "| ");
        md_code(t, name);
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
            md_text(t, verdict);
        }
        gd_text_printf(t, " |\n");
    }
    gd_text_printf(t, "%s**Summary:** %zu match, %zu mismatch, %zu not measured", i ? "\n" : "",
                   match, mismatch, not_measured);
    if (other)
        gd_text_printf(t, ", %zu other", other);
    gd_text_printf(t, ".\n\n");
}

/* Does curve `name` of inferred.json sweep a byte count? */
static int curve_in_bytes(const json_t *curves, const char *name)
{
    const json_t *curve = name ? get_object(curves, name) : NULL;
    const char *sweep = get_string(curve, "sweep");
    return sweep && ends_with(sweep, "_bytes");
}

static void put_residuals(gd_text *t, const json_t *residuals, const json_t *curves)
{
    if (json_array_size(residuals) == 0)
        return;
    gd_text_printf(t, "## Residuals per plateau (measured − model)\n\n");
    gd_text_printf(t, "| Curve | Plateau | Level | From | To | Points | Mean | RMS | Max abs |\n");
    gd_text_printf(t, "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    size_t i;
    json_t *r;
    json_array_foreach(residuals, i, r) {
        if (!json_is_object(r))
            continue;
        const char *curve = get_string(r, "curve");
        int in_bytes = curve_in_bytes(curves, curve);
        gd_text_printf(t, "| ");
        if (curve)
            md_code(t, curve);
        else
            gd_text_printf(t, MISSING);
        cell_value(t, json_object_get(r, "plateau"));
        cell_value(t, json_object_get(r, "level"));
        gd_text_printf(t, " | ");
        put_sweep_value(t, json_object_get(r, "x_first"), in_bytes);
        gd_text_printf(t, " | ");
        put_sweep_value(t, json_object_get(r, "x_last"), in_bytes);
        cell_value(t, json_object_get(r, "points"));
        static const char *const stats[] = {"mean_residual", "rms_residual", "max_abs_residual"};
        for (size_t s = 0; s < sizeof stats / sizeof stats[0]; s++) {
            cell_fixed(t, json_object_get(r, stats[s]), 2);
        }
        gd_text_printf(t, " |\n");
    }
    gd_text_printf(t, "\n");
}

/* ------------------------------------------------------------------------- */
/* Curves                                                                     */

static void put_curve_details(gd_text *t, const char *name, const json_t *curve, int in_bytes)
{
    const json_t *plateaus = json_object_get(curve, "plateaus");
    const json_t *knees = json_object_get(curve, "knees");
    if (json_array_size(plateaus) == 0 && json_array_size(knees) == 0)
        return;
    gd_text_printf(t, "- ");
    md_code(t, name);
    gd_text_printf(t, ":");
    size_t i;
    json_t *e;
    json_array_foreach(plateaus, i, e) {
        gd_text_printf(t, "%s plateau ", i ? ";" : "");
        put_fixed(t, json_object_get(e, "level"), 1);
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

static void put_curves(gd_text *t, const json_t *curves)
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
        md_code(t, name);
        cell_value(t, json_object_get(c, "probe"));
        gd_text_printf(t, " | ");
        if (get_string(c, "sweep"))
            md_code(t, get_string(c, "sweep"));
        else
            gd_text_printf(t, MISSING);
        cell_value(t, json_object_get(c, "strategy"));
        gd_text_printf(t, " | ");
        const json_t *points = json_object_get(c, "points");
        const json_t *uniform = json_object_get(c, "uniform_points_equivalent");
        put_value(t, points);
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
            put_curve_details(t, name, c, curve_in_bytes(curves, name));
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
static int put_plots(gd_text *t, const char *run_dir, gd_err *err)
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
        md_text(t, stem);
        gd_text_printf(t, "\n\n![");
        md_text(t, stem);
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

/* ------------------------------------------------------------------------- */

static void put_title(gd_text *t, const json_t *meta, const json_t *inferred, const char *run_dir)
{
    const json_t *dev = get_object(meta, "device");
    const char *spec = get_string(dev, "spec");
    if (!spec)
        spec = get_string(inferred, "device");
    const char *name = get_string(dev, "name");
    gd_text_printf(t, "# gpudissect report: ");
    md_text(t, spec ? spec : run_dir);
    if (name) {
        gd_text_printf(t, " (");
        md_text(t, name);
        gd_text_printf(t, ")");
    }
    gd_text_printf(t, "\n\nRun directory: ");
    md_code(t, run_dir);
    gd_text_printf(t, "\n\n");
}

int gd_report_write(const char *run_dir, gd_err *err)
{
    char meta_path[REPORT_PATH_BYTES], inferred_path[REPORT_PATH_BYTES],
        compare_path[REPORT_PATH_BYTES], report_path[REPORT_PATH_BYTES];
    if (!run_dir || !run_dir[0])
        return gd_fail(err, "report: no run directory");
    if (snprintf(report_path, sizeof report_path, "%s/report.md", run_dir) >=
        (int)sizeof report_path)
        return gd_fail(err, "%s: path too long", run_dir);
    snprintf(meta_path, sizeof meta_path, "%s/meta.json", run_dir);
    snprintf(inferred_path, sizeof inferred_path, "%s/inferred.json", run_dir);
    snprintf(compare_path, sizeof compare_path, "%s/compare.json", run_dir);

    json_t *meta = NULL, *inferred = NULL, *compare = NULL, *levels, *params;
    gd_text t;
    gd_text_init(&t);
    int rc = -1;
    static const char *const level_keys[] = {"name", NULL};
    static const char *const parameter_keys[] = {"parameter", "verdict", NULL};
    if (load_object(meta_path, 0, &meta, err) != 0 ||
        load_object(inferred_path, 0, &inferred, err) != 0 ||
        require_array(inferred_path, inferred, "levels", &levels, err) != 0 ||
        check_entries(inferred_path, levels, "levels", level_keys, err) != 0)
        goto out;
    int absent = load_object(compare_path, 1, &compare, err);
    if (absent < 0)
        goto out;
    if (compare && (require_array(compare_path, compare, "parameters", &params, err) != 0 ||
                    check_entries(compare_path, params, "parameters", parameter_keys, err) != 0))
        goto out;

    const json_t *curves = get_object(inferred, "curves");
    put_title(&t, meta, inferred, run_dir);
    put_provenance(&t, meta);
    put_levels(&t, levels);
    if (compare) {
        put_comparison(&t, compare);
        const json_t *residuals = json_object_get(compare, "residuals");
        if (json_is_array(residuals))
            put_residuals(&t, residuals, curves);
    } else {
        gd_text_printf(&t, "## Comparison with the model\n\nNo comparison: ");
        md_code(&t, compare_path);
        gd_text_printf(&t, " is absent.\n\n");
    }
    put_curves(&t, curves);
    if (put_plots(&t, run_dir, err) != 0)
        goto out;
    rc = gd_text_write_atomic(&t, report_path, err);
out:
    gd_text_free(&t);
    json_decref(meta);
    json_decref(inferred);
    json_decref(compare);
    return rc;
}
