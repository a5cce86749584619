/* main.c -- the gpudissect command line, in the style of git: a subcommand
 * first, its options after.  Only this file and the command files print; the
 * library reports errors as values (see host/device.h). */
#include <stdio.h>
#include <string.h>

#include "host/commands.h"
#include "host/cupti.h"
#include "host/meta.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"devices", gd_cmd_devices, "list CUDA devices and the simulated GPUs (arch files)"},
    {"list", gd_cmd_list, "list the probes"},
    {"run", gd_cmd_run, "run a probe's sweep on a device and write results/RUN/"},
    {"emit", gd_cmd_emit, "print the PTX a probe emits for one sweep point"},
    {"characterize", gd_cmd_characterize, "run a suite, infer the hierarchy, compare, plot, report"},
    {"model", gd_cmd_model, "print the analytical model's curve of a probe on an arch"},
    {"compare", gd_cmd_compare, "hold a run against an arch file (compare.json)"},
    {"plot", gd_cmd_plot, "draw a run's curves with gnuplot (plots/*.png, *.svg)"},
    {"report", gd_cmd_report, "write a run's report.md"},
    {"whatif", gd_cmd_whatif, "run workloads under combinations of arch overrides (tables, figure, report)"},
    {"fleet", gd_cmd_fleet, "every GPU of a cluster: Slurm job array (submit, status) and merge"},
    {"infer", gd_cmd_infer, "redo a results directory's inference from its files (inferred.json)"},
    {"import-curve", gd_cmd_import_curve, "a footprint/latency table from elsewhere as a results directory"},
    {"import-config", gd_cmd_import_config, "print the arch file of a GPGPU-Sim gpgpusim.config"},
    {"export-config", gd_cmd_export_config, "write the GPGPU-Sim config lines a run measured"},
    {"validate", gd_cmd_validate, "hold a run against a GPGPU-Sim config (exit 3: contradicted)"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: gpudissect <command> [options]   (gpudissect <command> --help)\n\n"
                 "Dissects a GPU's memory hierarchy with PTX microbenchmarks, on a real GPU\n"
                 "(cuda:N) or on the simulated GPU of an arch file (sim:ARCH).\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-14s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        char rev[80];
        gd_git_revision(rev, sizeof rev);
        printf("gpudissect %s (%s)\n", GD_VERSION, rev);
        return 0;
    }
    /* a card's counters: CUPTI is tried in a child of this program first */
    gd_cupti_set_selftest_exe("/proc/self/exe");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "gpudissect: '%s' is not a command\n", argv[1]);
    usage(stderr);
    return 2;
}
