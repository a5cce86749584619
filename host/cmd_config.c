/* cmd_config.c -- `gpudissect import-config`, `export-config` and `validate`:
 * GPGPU-Sim / Accel-Sim configs in, out, and checked against a run (issue 16).
 *
 * import-config prints the arch text of a gpgpusim.config (analysis/
 * gpgpusim_import.c); export-config writes the config lines a results
 * directory's measurements determine, and with --base a full config where
 * only those change plus a diff; validate holds a run against a config,
 * option by option, and exits 3 when the card contradicts the config, so that
 * it can gate a CI of simulator configs (analysis/gpgpusim_export.c).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/gpgpusim_export.h"
#include "analysis/gpgpusim_import.h"
#include "analysis/infer.h"
#include "analysis/results.h"
#include "host/commands.h"

#define GD_EXIT_CONTRADICTED 3 /* validate: the run contradicts the config */

static int parse_opts(int argc, char **argv, const char *help, const struct option *opts,
                      const char *shortopts, const char **values, int need_positional,
                      const char **positional)
{
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, shortopts, opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(help, stdout);
            return 0;
        }
        int found = 0;
        for (int i = 0; opts[i].name; i++)
            if (opts[i].val == c && c != 'h') {
                values[i] = optarg;
                found = 1;
            }
        if (!found) {
            fprintf(stderr, "gpudissect: bad option '%s'\n%s", argv[optind - 1], help);
            return 2;
        }
    }
    if (optind + need_positional != argc) {
        fprintf(stderr, "gpudissect: expected %d argument%s\n%s", need_positional,
                need_positional == 1 ? "" : "s", help);
        return 2;
    }
    *positional = argv[optind];
    return -1;
}

int gd_cmd_import_config(int argc, char **argv)
{
    static const char help[] =
        "usage: gpudissect import-config PATH/gpgpusim.config [--name NAME] > NAME.arch\n\n"
        "Prints the arch file of a GPGPU-Sim / Accel-Sim config: every option that describes\n"
        "the hierarchy becomes an arch value whose comment cites the option, file and line;\n"
        "latencies are what GPGPU-Sim measures (the options' sum plus a per-level offset);\n"
        "what the simulator does not model is listed by option at the end.  The simulator\n"
        "also runs a config directly: --device sim:gpgpusim:PATH.\n";
    static const struct option opts[] = {
        {"name", required_argument, 0, 'n'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *values[2] = {NULL, NULL}, *path = NULL;
    int rc = parse_opts(argc, argv, help, opts, ":n:h", values, 1, &path);
    if (rc >= 0)
        return rc;
    gd_err err;
    char *text = NULL;
    if (gd_gs_import_file(path, values[0], &text, &err) != 0)
        return gd_report_error(err.msg);
    fputs(text, stdout);
    free(text);
    return 0;
}

int gd_cmd_export_config(int argc, char **argv)
{
    static const char help[] =
        "usage: gpudissect export-config RUN [--base gpgpusim.config] [--out FILE]\n\n"
        "The tuner's job: from RUN/inferred.json, the config lines the measurements\n"
        "determine (dl1/dl2/constant cache strings with measured sets, line, ways, policy\n"
        "and MSHRs, latencies split as GPGPU-Sim sums them less its per-level offsets,\n"
        "shared-memory banks and latency), each after a comment giving the measured value,\n"
        "its confidence and the probe.  With --base, the full base config where only\n"
        "measured options change, followed (on stderr) by a diff of the changed lines.\n";
    static const struct option opts[] = {{"base", required_argument, 0, 'b'},
                                         {"out", required_argument, 0, 'o'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *values[3] = {NULL, NULL, NULL}, *run = NULL;
    int rc = parse_opts(argc, argv, help, opts, ":b:o:h", values, 1, &run);
    if (rc >= 0)
        return rc;
    gd_err err;
    gd_gs_export exp;
    if (gd_gs_export_run(run, values[0], &exp, &err) != 0)
        return gd_report_error(err.msg);
    if (values[1]) {
        gd_text t;
        gd_text_init(&t);
        gd_text_printf(&t, "%s", exp.config_text);
        rc = gd_text_write_atomic(&t, values[1], &err);
        gd_text_free(&t);
        if (rc != 0) {
            gd_gs_export_free(&exp);
            return gd_report_error(err.msg);
        }
    } else {
        fputs(exp.config_text, stdout);
    }
    if (exp.diff_text && exp.diff_text[0])
        fputs(exp.diff_text, stderr);
    gd_gs_export_free(&exp);
    return 0;
}

int gd_cmd_validate(int argc, char **argv)
{
    static const char help[] =
        "usage: gpudissect validate RUN --config gpgpusim.config\n\n"
        "Holds a run's measurements against a GPGPU-Sim config, option by option: what the\n"
        "config says, what GPGPU-Sim would measure under it, what the card measured, and a\n"
        "verdict (match / contradicted, by how much / not measured).  Prints the table,\n"
        "writes RUN/validate.json and a section of RUN/report.md.  Exit status 0 when\n"
        "nothing is contradicted, 3 when something is, 1 on an error.\n";
    static const struct option opts[] = {
        {"config", required_argument, 0, 'c'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *values[2] = {NULL, NULL}, *run = NULL;
    int rc = parse_opts(argc, argv, help, opts, ":c:h", values, 1, &run);
    if (rc >= 0)
        return rc;
    if (!values[0]) {
        fprintf(stderr, "gpudissect: --config is required\n%s", help);
        return 2;
    }
    gd_err err;
    gd_gs_validation val;
    if (gd_gs_validate_run(run, values[0], &val, &err) != 0)
        return gd_report_error(err.msg);
    fputs(val.table_text, stdout);
    int contradicted = val.contradicted;
    rc = gd_gs_validation_write(run, &val, &err);
    gd_gs_validation_free(&val);
    if (rc != 0)
        return gd_report_error(err.msg);
    return contradicted ? GD_EXIT_CONTRADICTED : 0;
}
