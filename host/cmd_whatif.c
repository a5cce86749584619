/* cmd_whatif.c -- the `whatif` command line: options in, host/whatif.c runs
 * the experiment, one line of error out. */
#include <ctype.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/commands.h"
#include "host/whatif.h"

static const char *const usage_text =
    "usage: gpudissect whatif --device sim:ARCH --workloads LIST --out DIR\n"
    "                         [--vary SECTION.KEY=V1,V2,...]... [--set SECTION.KEY=V]...\n"
    "                         [--seed N] [--trace] [--claim X --claim-label TEXT] [--quiet]\n"
    "\n"
    "Runs workloads (PTX kernels of kernels/workloads/) under every combination of\n"
    "the --vary values (the first value of each key is the baseline the speedups are\n"
    "taken against) and writes DIR: results.csv (cycles, IPC and the load/store\n"
    "path's counters of every run), speedup.csv, plots/speedup.{png,svg} (a bar\n"
    "chart per workload with the geometric mean), report.md and meta.json.\n"
    "\n"
    "  --device SPEC       sim:ARCH (any arch key can vary), or cuda:N (one\n"
    "                      combination, the card as it is: no --vary or --set)\n"
    "  --workloads LIST    comma-separated NAME or NAME:VALUE (the workload's knob,\n"
    "                      e.g. scatter:50 = 50%% of a warp's lanes in one L1 set), or\n"
    "                      'all' (every workload but fig2)\n"
    "  --vary KEY=V1,V2    vary an arch key (e.g. L1D.reorder=false,true); repeat for\n"
    "                      a grid (up to 8, 256 combinations).  KEY1+KEY2=V1,V2 varies\n"
    "                      keys together (L1D.reorder+L1D.pipelined_issue=false,true)\n"
    "  --set KEY=V         the same override in every combination\n"
    "  --seed N            seed of the workloads' generated inputs (default: each\n"
    "                      workload's own, so runs are reproducible)\n"
    "  --trace             sim: every load/store-unit event of each run to\n"
    "                      DIR/traces/cN-WORKLOAD/lsu_trace.csv\n"
    "  --claim X           draw and report a claimed speedup (e.g. 1.23)\n"
    "  --claim-label TEXT  its label (e.g. \"CN110457238A Fig. 3: +23%%\")\n"
    "  --quiet             no progress lines\n"
    "\n"
    "Workloads: bfs, spmv, scatter, stencil, kmeans, vecadd (the regular control), fig2;\n"
    "PCM (issue 13): pcm_kmeans, pcm_libor (write skew), pcm_aes, pcm_stream (controls).\n";

int gd_cmd_whatif(int argc, char **argv)
{
    gd_whatif_opts o = {.progress = stderr};
    /* the command line as a shell would take it back: argv[0] is "whatif";
     * an argument with anything but letters, digits and -_.,:=/+ is quoted */
    char command[2048] = "gpudissect";
    for (int i = 0; i < argc; i++) {
        size_t at = strlen(command);
        int plain = argv[i][0] != 0;
        for (const char *c = argv[i]; *c; c++)
            if (!isalnum((unsigned char)*c) && !strchr("-_.,:=/+", *c))
                plain = 0;
        if (plain) {
            snprintf(command + at, sizeof command - at, " %s", argv[i]);
            continue;
        }
        snprintf(command + at, sizeof command - at, " '");
        for (const char *c = argv[i]; *c; c++) {
            at = strlen(command);
            snprintf(command + at, sizeof command - at, *c == '\'' ? "'\\''" : "%c", *c);
        }
        at = strlen(command);
        snprintf(command + at, sizeof command - at, "'");
    }
    o.command = command;
    enum { O_DEVICE = 1, O_WORKLOADS, O_VARY, O_SET, O_OUT, O_SEED, O_TRACE, O_CLAIM,
           O_CLAIM_LABEL, O_QUIET, O_HELP };
    static const struct option longopts[] = {
        {"device", required_argument, 0, O_DEVICE}, {"workloads", required_argument, 0, O_WORKLOADS},
        {"vary", required_argument, 0, O_VARY},     {"set", required_argument, 0, O_SET},
        {"out", required_argument, 0, O_OUT},       {"seed", required_argument, 0, O_SEED},
        {"trace", no_argument, 0, O_TRACE},         {"claim", required_argument, 0, O_CLAIM},
        {"claim-label", required_argument, 0, O_CLAIM_LABEL},
        {"quiet", no_argument, 0, O_QUIET},         {"help", no_argument, 0, O_HELP},
        {0, 0, 0, 0},
    };
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        char *end;
        switch (c) {
        case O_DEVICE: o.device = optarg; break;
        case O_WORKLOADS: o.workloads = optarg; break;
        case O_OUT: o.out_dir = optarg; break;
        case O_TRACE: o.trace = 1; break;
        case O_QUIET: o.progress = NULL; break;
        case O_CLAIM_LABEL: o.claim_label = optarg; break;
        case O_VARY:
            if (o.vary_count == GD_WHATIF_MAX_VARY) {
                fprintf(stderr, "gpudissect: whatif: at most %d --vary\n", GD_WHATIF_MAX_VARY);
                return 2;
            }
            o.vary[o.vary_count++] = optarg;
            break;
        case O_SET:
            if (o.set_count == GD_WHATIF_MAX_SETS) {
                fprintf(stderr, "gpudissect: whatif: at most %d --set\n", GD_WHATIF_MAX_SETS);
                return 2;
            }
            o.set[o.set_count++] = optarg;
            break;
        case O_SEED:
            o.seed = strtoull(optarg, &end, 0);
            if (*end || optarg[0] == '-' || !optarg[0]) {
                fprintf(stderr, "gpudissect: whatif: --seed must be a number, got '%s'\n", optarg);
                return 2;
            }
            break;
        case O_CLAIM:
            o.claim = strtod(optarg, &end);
            if (*end || !(o.claim > 0)) {
                fprintf(stderr, "gpudissect: whatif: --claim must be a positive speedup, got "
                                "'%s'\n", optarg);
                return 2;
            }
            break;
        case O_HELP: fputs(usage_text, stdout); return 0;
        default:
            fprintf(stderr, "gpudissect: whatif: unknown or incomplete option '%s'\n%s",
                    argv[optind - 1], usage_text);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "gpudissect: whatif: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    size_t failed = 0;
    gd_err err;
    if (gd_whatif_run(&o, &failed, &err) != 0)
        return gd_report_error(err.msg);
    if (o.progress)
        fprintf(o.progress, "whatif: results in %s/ (report.md, results.csv, speedup.csv, plots/)%s\n",
                o.out_dir, failed ? "" : "");
    if (failed) {
        fprintf(stderr, "gpudissect: whatif: %zu run(s) failed or computed a wrong result (see "
                        "%s/report.md)\n", failed, o.out_dir);
        return 1;
    }
    return 0;
}
