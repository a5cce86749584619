/* fuzz_results.c -- the results loader behind compare, plot and report.
 *
 * The bytes are a results directory in three parts separated by lines "%%":
 * meta.json, the probe CSV (written as every label meta.json names, so the
 * loader finds it), and inferred.json (absent when the part is missing).  An
 * accepted directory is then compared with tiny.arch (the model runs on the
 * CSV's footprints) and its report.md written: what `compare --arch tiny` and
 * `report` do.  Each step either works or fails with one line.
 */
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/arch.h"
#include "analysis/compare.h"
#include "analysis/report.h"
#include "analysis/results.h"
#include "analysis/run_load.h"

static const gd_arch *fuzz_arch(void)
{
    static gd_arch arch;
    static int loaded;
    if (!loaded) {
        gd_err err;
        if (gd_arch_parse_string(gd_fuzz_tiny_arch(), "tiny.arch", NULL, 0, &arch, &err) != 0) {
            fprintf(stderr, "fuzz results: %s\n", err.msg);
            abort();
        }
        loaded = 1;
    }
    return &arch;
}

/* The CSV under every label meta.json's probes name (plain names only: the
 * loader refuses the others before it opens anything). */
static void write_csvs(const char *run, const char *meta_text, const char *csv)
{
    json_t *meta = json_loads(meta_text, 0, NULL);
    const json_t *probes = json_object_get(meta, "probes");
    size_t i;
    const json_t *entry;
    json_array_foreach(probes, i, entry) {
        const char *label = json_string_value(json_object_get(entry, "csv"));
        if (!label || !*label || strlen(label) > 63 || strchr(label, '/') || label[0] == '.' || i > 8)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.csv", run, label);
        FILE *f = fopen(path, "w");
        if (f) {
            fputs(csv, f);
            fclose(f);
        }
    }
    json_decref(meta);
}

int gd_fuzz_results(const uint8_t *data, size_t size)
{
    char *text = gd_fuzz_text(data, size), *rest = text;
    const char *meta = gd_fuzz_next_part(&rest);
    const char *csv = gd_fuzz_next_part(&rest);
    const char *inferred = gd_fuzz_next_part(&rest);
    char run[600], path[1024];
    snprintf(run, sizeof run, "%s/run", gd_fuzz_scratch_dir());
    gd_err err = {{0}};
    if (gd_mkdirs(run, &err) != 0)
        abort();
    static const char *const names[] = {"meta.json", "inferred.json", "compare.json", "report.md"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", run, names[i]);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/meta.json", run);
    FILE *f = fopen(path, "w");
    if (!f)
        abort();
    fputs(meta ? meta : "", f);
    fclose(f);
    write_csvs(run, meta ? meta : "", csv ? csv : "");
    if (inferred) {
        snprintf(path, sizeof path, "%s/inferred.json", run);
        f = fopen(path, "w");
        if (!f)
            abort();
        fputs(inferred, f);
        fclose(f);
    }
    gd_run *r = calloc(1, sizeof *r);
    if (!r)
        abort();
    int rc;
    if (gd_run_load(run, r, &err) != 0) {
        rc = gd_fuzz_rejected(&err, "results");
    } else {
        rc = GD_FUZZ_ACCEPTED;
        json_t *cmp = NULL;
        gd_err cmp_err = {{0}};
        if (gd_compare_run(r, fuzz_arch(), &cmp, &cmp_err) != 0) {
            rc = gd_fuzz_rejected(&cmp_err, "results");
        } else {
            snprintf(path, sizeof path, "%s/compare.json", run);
            if (gd_write_json_atomic(path, cmp, &cmp_err) != 0)
                abort();
            json_decref(cmp);
        }
        gd_err rep_err = {{0}};
        if (gd_report_write(run, &rep_err) != 0)
            rc = gd_fuzz_rejected(&rep_err, "results");
        gd_run_free(r);
    }
    free(r);
    free(text);
    return rc;
}
