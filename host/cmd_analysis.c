/* cmd_analysis.c -- `gpudissect model`, `compare`, `plot` and `report`: the
 * analysis steps of `characterize`, one at a time, on an arch or a results
 * directory. */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/arch.h"
#include "analysis/compare.h"
#include "analysis/figures.h"
#include "analysis/model.h"
#include "analysis/report.h"
#include "analysis/results.h"
#include "analysis/run_load.h"
#include "host/cli_number.h"
#include "host/commands.h"
#include "host/runner.h"

static int load_arch(const char *name, gd_arch *arch, gd_err *err)
{
    char path[1024];
    if (gd_arch_resolve(name, path, sizeof path, err) != 0)
        return -1;
    return gd_arch_load(path, NULL, 0, arch, err);
}

/* Parses "RUN [--arch ARCH]"-style arguments shared by compare and plot. */
static int run_and_arch(int argc, char **argv, const char *help, int need_arch, const char **run,
                        const char **arch)
{
    static const struct option opts[] = {
        {"arch", required_argument, 0, 'a'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    *run = NULL;
    *arch = NULL;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":a:h", opts, NULL)) != -1) {
        if (c == 'a') {
            *arch = optarg;
        } else if (c == 'h') {
            fputs(help, stdout);
            return 0;
        } else {
            fprintf(stderr, "gpudissect: bad option '%s'\n%s", argv[optind - 1], help);
            return 2;
        }
    }
    if (optind + 1 != argc) {
        fprintf(stderr, "gpudissect: expected one results directory\n%s", help);
        return 2;
    }
    *run = argv[optind];
    if (need_arch && !*arch) {
        fprintf(stderr, "gpudissect: --arch is required\n%s", help);
        return 2;
    }
    return -1;
}

int gd_cmd_compare(int argc, char **argv)
{
    static const char help[] =
        "usage: gpudissect compare RUN --arch ARCH\n\n"
        "Holds RUN/inferred.json and the measured curves against an arch file and writes\n"
        "RUN/compare.json: for each parameter the measured, expected (model) and\n"
        "published value with its source, the error and a verdict (match / mismatch /\n"
        "not measured); for each plateau the residual of the curve against the model.\n";
    const char *run_dir, *arch_name;
    int rc = run_and_arch(argc, argv, help, 1, &run_dir, &arch_name);
    if (rc >= 0)
        return rc;
    gd_err err;
    gd_arch *arch = calloc(1, sizeof *arch);
    gd_run run;
    json_t *doc = NULL;
    if (!arch || load_arch(arch_name, arch, &err) != 0) {
        free(arch);
        return gd_report_error(arch ? err.msg : "out of memory");
    }
    if (gd_run_load(run_dir, &run, &err) != 0) {
        free(arch);
        return gd_report_error(err.msg);
    }
    int status = 1;
    char path[1100];
    snprintf(path, sizeof path, "%s/compare.json", run_dir);
    if (gd_compare_run(&run, arch, &doc, &err) == 0 && gd_write_json_atomic(path, doc, &err) == 0) {
        json_t *s = json_object_get(doc, "summary");
        printf("%s: %lld match, %lld mismatch, %lld not measured\n", path,
               (long long)json_integer_value(json_object_get(s, "match")),
               (long long)json_integer_value(json_object_get(s, "mismatch")),
               (long long)json_integer_value(json_object_get(s, "not_measured")));
        size_t i;
        const json_t *p;
        json_array_foreach(json_object_get(doc, "parameters"), i, p) {
            const json_t *m = json_object_get(p, "measured");
            char measured[32] = "-";
            if (json_is_number(m))
                snprintf(measured, sizeof measured, "%.10g", json_number_value(m));
            printf("  %-22s measured %-12s expected %-12.10g %s\n",
                   json_string_value(json_object_get(p, "parameter")), measured,
                   json_number_value(json_object_get(p, "expected")),
                   json_string_value(json_object_get(p, "verdict")));
        }
        status = 0;
    } else {
        gd_report_error(err.msg);
    }
    json_decref(doc);
    gd_run_free(&run);
    free(arch);
    return status;
}

int gd_cmd_plot(int argc, char **argv)
{
    static const char help[] =
        "usage: gpudissect plot RUN [--arch ARCH]\n\n"
        "Draws RUN/plots/LABEL.png and .svg for every probe of the run (log-x, median\n"
        "with a min-max band, plateaus and knees from inferred.json), with the data\n"
        "(.dat) and gnuplot script (.gp) beside each so they can be restyled.  With\n"
        "--arch (default: the arch a sim run used) the analytical model is overlaid.\n";
    const char *run_dir, *arch_name;
    int rc = run_and_arch(argc, argv, help, 0, &run_dir, &arch_name);
    if (rc >= 0)
        return rc;
    gd_err err;
    gd_run run;
    if (gd_run_load(run_dir, &run, &err) != 0)
        return gd_report_error(err.msg);
    gd_arch *arch = calloc(1, sizeof *arch);
    int have = 0, status = 1;
    const char *own = json_string_value(json_object_get(json_object_get(run.meta, "device"), "arch_file"));
    if (!arch) {
        snprintf(err.msg, sizeof err.msg, "out of memory");
    } else if (arch_name) {
        have = load_arch(arch_name, arch, &err) == 0;
        if (!have)
            goto out;
    } else if (own) {
        have = gd_arch_load(own, NULL, 0, arch, &err) == 0;
    }
    if (arch && gd_figures_write(&run, have ? arch : NULL, gd_runner_default_jobs(), &err) == 0) {
        printf("%s/plots\n", run_dir);
        status = 0;
    }
out:
    if (status)
        gd_report_error(err.msg);
    free(arch);
    gd_run_free(&run);
    return status;
}

int gd_cmd_report(int argc, char **argv)
{
    static const char help[] =
        "usage: gpudissect report RUN\n\n"
        "Writes RUN/report.md from meta.json, inferred.json, compare.json and plots/.\n";
    const char *run_dir, *arch_name;
    int rc = run_and_arch(argc, argv, help, 0, &run_dir, &arch_name);
    if (rc >= 0)
        return rc;
    gd_err err;
    if (gd_report_write(run_dir, &err) != 0)
        return gd_report_error(err.msg);
    printf("%s/report.md\n", run_dir);
    return 0;
}

int gd_cmd_model(int argc, char **argv)
{
    static const char help[] =
        "usage: gpudissect model --arch ARCH --probe pchase|pchase_stride --sweep SPEC [options]\n\n"
        "Prints the analytical model's curve of a probe on an arch as CSV: the sweep\n"
        "value, the expected mean cycles per access, and the share of accesses served\n"
        "by the L1D, the L2 and DRAM.  Options as for `run`: --stride, --footprint,\n"
        "--variant, --pattern, --seed, --samples.\n";
    enum { O_STRIDE = 256, O_FOOTPRINT, O_VARIANT, O_PATTERN, O_SEED, O_SAMPLES };
    static const struct option opts[] = {
        {"arch", required_argument, 0, 'a'},         {"probe", required_argument, 0, 'p'},
        {"sweep", required_argument, 0, 's'},        {"stride", required_argument, 0, O_STRIDE},
        {"footprint", required_argument, 0, O_FOOTPRINT}, {"variant", required_argument, 0, O_VARIANT},
        {"pattern", required_argument, 0, O_PATTERN}, {"seed", required_argument, 0, O_SEED},
        {"samples", required_argument, 0, O_SAMPLES}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    const char *arch_name = NULL, *probe = NULL, *sweep_spec = NULL;
    gd_probe_opts po = {.seed = 1};
    uint64_t v;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":a:p:s:h", opts, NULL)) != -1) {
        switch (c) {
        case 'a': arch_name = optarg; break;
        case 'p': probe = optarg; break;
        case 's': sweep_spec = optarg; break;
        case O_STRIDE:
        case O_FOOTPRINT:
            if (gd_parse_bytes(optarg, &v) || !v) {
                fprintf(stderr, "gpudissect: bad size '%s'\n", optarg);
                return 2;
            }
            if (c == O_STRIDE)
                po.stride_bytes = v;
            else
                po.footprint_bytes = v;
            break;
        case O_VARIANT: snprintf(po.variant, sizeof po.variant, "%s", optarg); break;
        case O_PATTERN:
            if (strcmp(optarg, "random") && strcmp(optarg, "seq") && strcmp(optarg, "sequential")) {
                fprintf(stderr, "gpudissect: --pattern must be seq or random, got '%s'\n", optarg);
                return 2;
            }
            po.random_order = !strcmp(optarg, "random");
            break;
        case O_SEED:
            if (gd_cli_u64(optarg, 0, UINT64_MAX, &po.seed) != 0) {
                fprintf(stderr, "gpudissect: --seed must be a whole number 0..2^64-1, got '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case O_SAMPLES: {
            uint64_t n;
            if (gd_cli_u64(optarg, 1, 1u << 20, &n) != 0) {
                fprintf(stderr, "gpudissect: --samples must be a number 1..%u, got '%s'\n", 1u << 20,
                        optarg);
                return 2;
            }
            po.samples = (uint32_t)n;
            break;
        }
        case 'h': fputs(help, stdout); return 0;
        default: fprintf(stderr, "gpudissect: bad option '%s'\n%s", argv[optind - 1], help); return 2;
        }
    }
    if (!arch_name || !probe || !sweep_spec || optind < argc) {
        fprintf(stderr, "gpudissect: --arch, --probe and --sweep are required\n%s", help);
        return 2;
    }
    const gd_probe *p = gd_probe_find(probe);
    if (!p) {
        fprintf(stderr, "gpudissect: error: unknown probe '%s'\n", probe);
        return 2;
    }
    gd_err err;
    gd_arch *arch = calloc(1, sizeof *arch);
    if (!arch || load_arch(arch_name, arch, &err) != 0) {
        free(arch);
        return gd_report_error(arch ? err.msg : "out of memory");
    }
    int stride_sweep = !strcmp(probe, "pchase_stride") || !strcmp(probe, "const_stride");
    uint64_t granule = stride_sweep ? p->default_stride_bytes
                                    : (po.stride_bytes ? po.stride_bytes : p->default_stride_bytes);
    if (!granule)
        granule = 1;
    gd_sweep sweep;
    if (gd_sweep_parse(sweep_spec, granule, &sweep, &err) != 0) {
        free(arch);
        fprintf(stderr, "gpudissect: error: %s\n", err.msg);
        return 2;
    }
    gd_model_point *mp = calloc(sweep.count, sizeof *mp);
    int status = 1;
    if (mp && gd_model_curve(arch, probe, &po, sweep.points, NULL, sweep.count, mp, &err) == 0) {
        /* x, the expected mean of the probe's primary series, and for chains the
         * share of accesses each level serves: fraction_l1d, fraction_l2, ... */
        printf("%s,mean_%s", p->sweep_name, gd_probe_primary_series(p));
        for (size_t l = 0; l < mp[0].levels; l++) {
            char lower[16];
            size_t k = 0;
            for (const char *c = mp[0].level_name[l]; *c && k + 1 < sizeof lower; c++)
                lower[k++] = (char)tolower((unsigned char)*c);
            lower[k] = 0;
            printf(",fraction_%s", lower);
        }
        printf("\n");
        for (size_t i = 0; i < sweep.count; i++) {
            printf("%llu,%.6g", (unsigned long long)sweep.points[i], mp[i].mean_cycles);
            for (size_t l = 0; l < mp[i].levels; l++)
                printf(",%.6g", mp[i].fraction[l]);
            printf("\n");
        }
        status = 0;
    } else {
        gd_report_error(mp ? err.msg : "out of memory");
    }
    free(mp);
    gd_sweep_free(&sweep);
    free(arch);
    return status;
}
