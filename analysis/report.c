/* report.c -- turn a run directory's JSON into report.md.
 *
 * The report is for a person, and it is also a record that must never lie by
 * omission.  So this file is strict about what it cannot do without -- a
 * malformed JSON file, a missing "levels" array, a level without a name, a
 * compared parameter without a verdict stops it with the file's name and the
 * place, before a line is written -- and lenient about everything else:
 * meta.json comes from whatever device and host the run had, and any of its
 * values may be null (no driver on a simulated device, no NUMA information on a
 * laptop); compare.json may be absent altogether.
 *
 * This file holds the document: loading the three JSON files, the title, the
 * Provenance section (one table-driven line per meta.json value), the order of
 * the sections, and the write.  The result tables (levels, comparison,
 * residuals, curves) and the plots list are in report_tables.c, with the
 * Markdown escaping they share with the title and provenance.  The file is
 * written once, atomically, from a gd_text: a reader sees the previous
 * report.md or the new one, never half of one.
 */
#include "analysis/report.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/report_conditions.h"
#include "analysis/report_carveout.h"
#include "analysis/report_tables.h"
#include "analysis/results.h"

/* CUDA encodes versions as 1000 * major + 10 * minor (cuDriverGetVersion). */
#define CUDA_VERSION_MAJOR_UNIT 1000
#define CUDA_VERSION_MINOR_UNIT 10

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
    json_t *doc = gd_json_load(path, 0, err); /* capped; "PATH:LINE: why" */
    if (!doc)
        return -1;
    if (!json_is_object(doc)) {
        json_decref(doc);
        return gd_fail(err, "%s: expected a JSON object at the top", path);
    }
    *out = doc;
    return 0;
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
    {"PTX target", "device", "ptx_target", AS_VALUE, 1},
    {"PTX target note", "device", "ptx_target_note", AS_VALUE, 1},
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
        report_md_code(t, line.data ? line.data : "");
    gd_text_free(&line);
}

/* " — x" / " (backend x)" and the like: `before` v `after` when v is there. */
static void put_around(gd_text *t, const char *before, const json_t *v, const char *after)
{
    if (!v || json_is_null(v))
        return;
    gd_text_printf(t, "%s", before);
    report_put_value(t, v);
    gd_text_printf(t, "%s", after);
}

static void put_provenance_row(gd_text *t, const json_t *meta, const provenance_row *row)
{
    const json_t *where = row->section ? report_get_object(meta, row->section) : meta;
    const json_t *v = json_object_get(where, row->key);
    if (row->only_if_present && (!v || json_is_null(v)))
        return;
    gd_text_printf(t, "- **%s:** ", row->label);
    switch (row->style) {
    case AS_VALUE:
        report_put_value(t, v);
        break;
    case AS_CODE:
        if (json_is_string(v))
            report_md_code(t, json_string_value(v));
        else
            report_put_value(t, v);
        break;
    case AS_BYTES:
        report_put_bytes(t, v, " bytes");
        break;
    case AS_MHZ:
        report_put_value(t, v);
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
            report_put_value(t, v);
        }
        break;
    case AS_DEVICE:
        report_put_value(t, v);
        put_around(t, " — ", json_object_get(where, "name"), "");
        put_around(t, " (backend ", json_object_get(where, "backend"), ")");
        break;
    case AS_ARCH:
        report_put_value(t, v);
        if (report_get_string(where, "arch_file")) {
            gd_text_printf(t, " (");
            report_md_code(t, report_get_string(where, "arch_file"));
            gd_text_printf(t, ")");
        }
        break;
    case AS_SMS:
        report_put_value(t, v);
        put_around(t, " × ", json_object_get(where, "subpartitions_per_sm"), " sub-partitions");
        break;
    case AS_HOST_CPU:
        report_put_value(t, v);
        put_around(t, " — ", json_object_get(where, "packages"), " package(s)");
        put_around(t, ", ", json_object_get(where, "cores"), " cores");
        put_around(t, ", ", json_object_get(where, "pus"), " PUs");
        break;
    case AS_TOOL:
        report_put_value(t, v);
        put_around(t, " ", json_object_get(where, "version"), "");
        break;
    case AS_COMMAND:
        if (json_is_array(v))
            put_command_line(t, v);
        else
            report_put_value(t, v);
        break;
    case AS_END_TIME:
        if (json_is_string(v))
            report_put_value(t, v);
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

/* What a probe ran other than asked (meta.json probes[].note: a patch refused
 * on this target, the variant run instead); nothing when there is none. */
static void put_probe_notes(gd_text *t, const json_t *meta)
{
    const json_t *probes = json_object_get(meta, "probes"), *entry;
    size_t i;
    int any = 0;
    json_array_foreach(probes, i, entry) {
        const char *note = report_get_string(entry, "note");
        if (!note)
            continue;
        if (!any)
            gd_text_printf(t, "## What ran other than asked\n\n");
        any = 1;
        const char *csv = report_get_string(entry, "csv");
        gd_text_printf(t, "- ");
        report_md_text(t, csv ? csv : "?");
        gd_text_printf(t, ": ");
        report_md_text(t, note);
        gd_text_printf(t, "\n");
    }
    if (any)
        gd_text_printf(t, "\n");
}

/* ------------------------------------------------------------------------- */
/* The document                                                               */

static void put_title(gd_text *t, const json_t *meta, const json_t *inferred, const char *run_dir)
{
    const json_t *dev = report_get_object(meta, "device");
    const char *spec = report_get_string(dev, "spec");
    if (!spec)
        spec = report_get_string(inferred, "device");
    const char *name = report_get_string(dev, "name");
    gd_text_printf(t, "# gpudissect report: ");
    report_md_text(t, spec ? spec : run_dir);
    if (name) {
        gd_text_printf(t, " (");
        report_md_text(t, name);
        gd_text_printf(t, ")");
    }
    gd_text_printf(t, "\n\nRun directory: ");
    report_md_code(t, run_dir);
    gd_text_printf(t, "\n\n");
}

/* The suite's steps that measured nothing: skipped (what they need was not
 * found) or failed (the error); a run goes on past both, so the reader must see
 * what is missing and why. */
static void put_steps_not_measured(gd_text *t, const json_t *meta)
{
    const json_t *probes = json_object_get(meta, "probes");
    size_t i, shown = 0;
    const json_t *entry;
    json_array_foreach(probes, i, entry) {
        const char *skipped = json_string_value(json_object_get(entry, "skipped"));
        const char *failed = json_string_value(json_object_get(entry, "failed"));
        if (!skipped && !failed)
            continue;
        if (shown++ == 0)
            gd_text_printf(t, "## Steps not measured\n\n"
                              "| step | probe | suite line | outcome | why |\n"
                              "| --- | --- | --- | --- | --- |\n");
        gd_text_printf(t, "| ");
        report_md_code(t, json_string_value(json_object_get(entry, "csv")));
        gd_text_printf(t, " | ");
        report_md_code(t, json_string_value(json_object_get(entry, "probe")));
        gd_text_printf(t, " | %lld | %s | ",
                       (long long)json_integer_value(json_object_get(entry, "suite_line")),
                       failed ? "**failed**" : "skipped");
        report_md_text(t, failed ? failed : skipped);
        gd_text_printf(t, " |\n");
    }
    if (shown)
        gd_text_printf(t, "\n");
}

/* meta.json "step_seconds": each step's CPU (its process and its point
 * processes) and wall seconds, dearest first, with the run's total */
static int cost_cmp(const void *a, const void *b)
{
    double x = json_number_value(json_object_get(*(json_t *const *)a, "cpu"));
    double y = json_number_value(json_object_get(*(json_t *const *)b, "cpu"));
    return x < y ? 1 : x > y ? -1 : 0;
}

static void put_step_costs(gd_text *t, const json_t *meta)
{
    const json_t *costs = json_object_get(meta, "step_seconds");
    size_t n = json_is_object(costs) ? json_object_size(costs) : 0;
    if (!n)
        return;
    json_t **rows = malloc(n * sizeof *rows);
    if (!rows)
        return;
    size_t k = 0;
    double cpu = 0;
    const char *label;
    json_t *v;
    json_object_foreach((json_t *)costs, label, v) {
        json_t *row = json_pack("{s:s,s:O,s:O}", "label", label, "cpu", json_object_get(v, "cpu"),
                                "wall", json_object_get(v, "wall"));
        if (!row)
            continue;
        cpu += json_number_value(json_object_get(v, "cpu"));
        rows[k++] = row;
    }
    qsort(rows, k, sizeof *rows, cost_cmp);
    gd_text_printf(t, "## What each step cost\n\n%zu steps, %.1f s of CPU in all (a step "
                      "started early ran beside the others: wall times overlap).\n\n"
                      "| step | CPU s | wall s | share of CPU |\n| --- | --- | --- | --- |\n",
                   k, cpu);
    for (size_t i = 0; i < k; i++) {
        double c = json_number_value(json_object_get(rows[i], "cpu"));
        gd_text_printf(t, "| ");
        report_md_code(t, json_string_value(json_object_get(rows[i], "label")));
        gd_text_printf(t, " | %.2f | %.2f | %.1f %% |\n", c,
                       json_number_value(json_object_get(rows[i], "wall")),
                       cpu > 0 ? 100 * c / cpu : 0);
        json_decref(rows[i]);
    }
    gd_text_printf(t, "\n");
    free(rows);
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

    const json_t *curves = report_get_object(inferred, "curves");
    put_title(&t, meta, inferred, run_dir);
    put_provenance(&t, meta);
    put_steps_not_measured(&t, meta);
    report_put_conditions(&t, meta);
    put_probe_notes(&t, meta);
    report_put_levels(&t, levels);
    report_put_carveout(&t, meta, inferred);
    if (compare) {
        report_put_comparison(&t, compare);
        const json_t *residuals = json_object_get(compare, "residuals");
        if (json_is_array(residuals))
            report_put_residuals(&t, residuals, curves);
    } else {
        gd_text_printf(&t, "## Comparison with the model\n\nNo comparison: ");
        report_md_code(&t, compare_path);
        gd_text_printf(&t, " is absent.\n\n");
    }
    report_put_curves(&t, curves, compare ? report_get_object(compare, "segmentations") : NULL);
    if (report_put_plots(&t, run_dir, err) != 0)
        goto out;
    put_step_costs(&t, meta);
    rc = gd_text_write_atomic(&t, report_path, err);
out:
    gd_text_free(&t);
    json_decref(meta);
    json_decref(inferred);
    json_decref(compare);
    return rc;
}
