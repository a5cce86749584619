/* cmd_import_curve.c -- `gpudissect import-curve`: a curve measured elsewhere
 * (the simulator itself, another tool, an older run) as a results directory
 * (issue 16).
 *
 * The input is a plain table, one "footprint latency" pair per line
 * (whitespace, comma or tab separated; '#' comments and a non-numeric header
 * line skipped; sizes may carry units: 32KiB).  Rows with the same footprint
 * are that point's samples, so a summary table (one row per footprint) and
 * per-access samples (one row per access) are the same format.  The output
 * is what a `run` writes -- meta.json naming the probe and its options,
 * LABEL.csv, LABEL.samples.gz -- so that `infer`, then `compare`, `report`
 * and `validate`, accept it.
 */
#include <ctype.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/arch.h"
#include "analysis/curve.h"
#include "analysis/curve_samples.h"
#include "analysis/results.h"
#include "analysis/run_load.h"
#include "analysis/stats.h"
#include "host/commands.h"
#include "kernels/probe.h"

#define IMPORT_MAX_LINE 4096

typedef struct import_row {
    uint64_t x;
    double value;
} import_row;

static int cmp_row(const void *a, const void *b)
{
    const import_row *p = a, *q = b;
    return p->x < q->x ? -1 : p->x > q->x;
}

/* Reads FILE's rows; FILE:LINE on what it cannot take. */
static int read_rows(const char *path, import_row **rows, size_t *count, gd_err *err)
{
    *rows = NULL;
    *count = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return gd_fail(err, "%s: cannot open", path);
    size_t cap = 0;
    char line[IMPORT_MAX_LINE];
    int line_no = 0, rc = 0;
    while (fgets(line, sizeof line, f)) {
        line_no++;
        line[strcspn(line, "#\r\n")] = 0;
        char *a = strtok(line, " \t,;");
        if (!a)
            continue;
        char *b = strtok(NULL, " \t,;");
        uint64_t x;
        char *end = NULL;
        double v = b ? strtod(b, &end) : 0;
        if (gd_parse_bytes(a, &x) != 0 || !b || end == b || *end) {
            if (*count == 0 && !isdigit((unsigned char)a[0]))
                continue; /* a header line */
            rc = gd_fail(err, "%s:%d: expected 'footprint latency', got '%s%s%s'", path, line_no, a,
                         b ? " " : "", b ? b : "");
            break;
        }
        if (*count == cap) {
            cap = cap ? cap * 2 : 1024;
            import_row *r = realloc(*rows, cap * sizeof *r);
            if (!r) {
                rc = gd_fail(err, "%s: out of memory", path);
                break;
            }
            *rows = r;
        }
        (*rows)[(*count)++] = (import_row){x, v};
    }
    fclose(f);
    if (rc == 0 && *count == 0)
        rc = gd_fail(err, "%s: no 'footprint latency' rows", path);
    if (rc != 0) {
        free(*rows);
        *rows = NULL;
    }
    return rc;
}

/* The rows as a curve of `probe`: one point per footprint, its rows the samples. */
static int rows_to_curve(import_row *rows, size_t count, const gd_probe *probe, gd_curve *curve,
                         gd_err *err)
{
    qsort(rows, count, sizeof *rows, cmp_row);
    for (size_t i = 0; i < count;) {
        size_t j = i;
        while (j < count && rows[j].x == rows[i].x)
            j++;
        gd_point p;
        memset(&p, 0, sizeof p);
        p.x = rows[i].x;
        p.series_count = 1;
        snprintf(p.series[0].name, sizeof p.series[0].name, "%s", gd_probe_primary_series(probe));
        double *v = malloc((j - i) * sizeof *v);
        if (!v)
            return gd_fail(err, "out of memory");
        for (size_t k = i; k < j; k++)
            v[k - i] = rows[k].value;
        if (gd_summarize(v, j - i, &p.series[0].summary) != 0) {
            free(v);
            return gd_fail(err, "out of memory");
        }
        p.series[0].samples = v;
        if (gd_curve_insert(curve, &p) != 0) {
            gd_point_free(&p);
            return gd_fail(err, "out of memory");
        }
        i = j;
    }
    return 0;
}

int gd_cmd_import_curve(int argc, char **argv)
{
    static const char help[] =
        "usage: gpudissect import-curve FILE --out DIR [--probe pchase] [--stride BYTES]\n"
        "                               [--variant ca|cg] [--pattern seq|random] [--l2 BYTES]\n"
        "                               [--name NAME]\n\n"
        "Turns a 'footprint latency' table measured elsewhere into a results directory:\n"
        "one row per footprint (a summary) or one per access (samples; rows with the same\n"
        "footprint are that point's samples).  Then: gpudissect infer DIR, and compare,\n"
        "report or validate it.  --l2 tells inference which knee is the L2's (the size of\n"
        "the L2 of the device that measured it; default: take the plateaus in order).\n";
    static const struct option opts[] = {
        {"out", required_argument, 0, 'o'},     {"probe", required_argument, 0, 'p'},
        {"stride", required_argument, 0, 's'},  {"variant", required_argument, 0, 'v'},
        {"pattern", required_argument, 0, 'P'}, {"l2", required_argument, 0, 'l'},
        {"name", required_argument, 0, 'n'},    {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    const char *out = NULL, *probe_name = "pchase", *variant = NULL, *pattern = "seq", *name = NULL;
    uint64_t stride = 0, l2_bytes = 0;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":o:p:s:v:P:l:n:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'p': probe_name = optarg; break;
        case 'v': variant = optarg; break;
        case 'P': pattern = optarg; break;
        case 'n': name = optarg; break;
        case 's':
        case 'l':
            if (gd_parse_bytes(optarg, c == 's' ? &stride : &l2_bytes) != 0) {
                fprintf(stderr, "gpudissect: %s must be a size, got '%s'\n", c == 's' ? "--stride" : "--l2",
                        optarg);
                return 2;
            }
            break;
        case 'h': fputs(help, stdout); return 0;
        default:
            fprintf(stderr, "gpudissect: bad option '%s'\n%s", argv[optind - 1], help);
            return 2;
        }
    }
    if (optind + 1 != argc || !out) {
        fprintf(stderr, "gpudissect: expected FILE and --out DIR\n%s", help);
        return 2;
    }
    const char *file = argv[optind];
    const gd_probe *probe = gd_probe_find(probe_name);
    if (!probe || (strcmp(probe_name, "pchase") && strcmp(probe_name, "pchase_stride"))) {
        fprintf(stderr, "gpudissect: --probe must be pchase or pchase_stride, got '%s'\n", probe_name);
        return 2;
    }
    if (strcmp(pattern, "seq") && strcmp(pattern, "random")) {
        fprintf(stderr, "gpudissect: --pattern must be seq or random\n");
        return 2;
    }
    gd_err err;
    import_row *rows = NULL;
    size_t count = 0;
    if (read_rows(file, &rows, &count, &err) != 0)
        return gd_report_error(err.msg);
    gd_probe_opts popts;
    memset(&popts, 0, sizeof popts);
    popts.stride_bytes = stride ? stride : probe->default_stride_bytes;
    popts.random_order = !strcmp(pattern, "random");
    if (variant)
        snprintf(popts.variant, sizeof popts.variant, "%s", variant);
    gd_curve curve;
    gd_curve_init(&curve, probe->name, probe, &popts);
    int rc = rows_to_curve(rows, count, probe, &curve, &err);
    free(rows);
    json_t *meta = json_object(), *device = json_object(), *entry = json_object();
    char spec[600];
    snprintf(spec, sizeof spec, "import:%s", file);
    json_object_set_new(device, "spec", json_string(spec));
    json_object_set_new(device, "backend", json_string("import"));
    json_object_set_new(device, "name", json_string(name ? name : file));
    json_object_set_new(device, "l2_bytes", json_integer((json_int_t)l2_bytes));
    json_object_set_new(meta, "device", device);
    json_object_set_new(meta, "imported_from", json_string(file));
    json_t *cmd = json_array();
    for (int i = 0; i < argc; i++)
        json_array_append_new(cmd, json_string(argv[i]));
    json_object_set_new(meta, "command", cmd);
    json_object_set_new(entry, "probe", json_string(probe->name));
    json_object_set_new(entry, "csv", json_string(curve.label));
    gd_probe_opts_to_json(&popts, entry);
    json_object_set_new(entry, "points", json_integer((json_int_t)curve.count));
    json_t *probes = json_array();
    json_array_append_new(probes, entry);
    json_object_set_new(meta, "probes", probes);
    char path[1100];
    snprintf(path, sizeof path, "%s/meta.json", out);
    if (rc == 0)
        rc = gd_mkdirs(out, &err);
    if (rc == 0)
        rc = gd_curve_write_csv(&curve, out, &err);
    if (rc == 0)
        rc = gd_curve_write_samples(&curve, out, &err);
    if (rc == 0)
        rc = gd_write_json_atomic(path, meta, &err);
    json_decref(meta);
    size_t points = curve.count;
    gd_curve_free(&curve);
    if (rc != 0)
        return gd_report_error(err.msg);
    printf("%s: %zu points from %zu rows (next: gpudissect infer %s)\n", out, points, count, out);
    return 0;
}
