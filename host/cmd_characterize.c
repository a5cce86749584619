/* cmd_characterize.c -- `gpudissect characterize`: the main job. */
#include <ctype.h>
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "analysis/arch.h"
#include "analysis/results.h"
#include "host/characterize.h"
#include "host/commands.h"
#include "host/device_registry.h"
#include "host/interrupt.h"
#include "host/meta.h"
#include "host/node_run.h"

#define MAX_OVERRIDES 64

static const char help[] =
    "usage: gpudissect characterize --device DEV [--suite quick|full|PATH] [options]\n"
    "\n"
    "Runs a suite of probes (bench/suites/NAME.suite), infers the hierarchy (sizes,\n"
    "fetch granularities, latencies, with confidences), compares it with an arch\n"
    "file, and writes results/RUN/: meta.json, one CSV per probe, inferred.json,\n"
    "compare.json, plots/ (PNG + SVG with their data and gnuplot scripts) and\n"
    "report.md.\n"
    "\n"
    "  --device DEV        sim:ARCH or cuda:N; several at once, one child process\n"
    "                      each (results in DIR/<device>/, node.json, fleet.md):\n"
    "                      cuda:all, cuda:0,2,5, sim:t4,sim:v100; the exit status\n"
    "                      is then the number of devices that failed\n"
    "  --suite NAME        quick (default) or full, or a path to a .suite file\n"
    "  --arch ARCH         arch file to compare with (default: a sim device's own;\n"
    "                      for cuda:N the bundled arch whose GPU name matches)\n"
    "  --set S.key=VALUE   override a sim arch value (repeatable), e.g. noise:\n"
    "                      --set noise.jitter=3 --set noise.outlier_rate=0.005\n"
    "  --out DIR           results directory (default results/DATE-TIME-DEVICE)\n"
    "  --carveout PERCENT  L1/shared carve-out preference set on every kernel, in\n"
    "                      percent of the largest shared memory (default 0: the most\n"
    "                      L1); meta.json records it and each kernel's resources\n"
    "  -j, --jobs N        sim devices: suite steps and their sweep points as N\n"
    "                      independent simulations at a time (default: the cores\n"
    "                      hwloc reports; the results are the same for every N)\n"
    "  --chained           sim devices: one device carried from step to step and\n"
    "                      point to point\n"
    "  --resume RUN        go on with RUN, a characterization stopped by Ctrl-C or\n"
    "                      SIGTERM (exit 130): the same command line, steps that\n"
    "                      finished are read back, not measured\n"
    "  --no-plots          skip gnuplot\n"
    "  --quiet             no progress on stderr\n";

/* For a CUDA device: the bundled arch whose [gpu] name the device's name contains. */
static int match_bundled_arch(const char *device_name, char *path, size_t size)
{
    DIR *d = opendir(gd_arch_dir());
    if (!d)
        return -1;
    struct dirent *ent;
    int found = -1;
    while ((ent = readdir(d)) && found < 0) {
        size_t len = strlen(ent->d_name);
        if (len < 6 || strcmp(ent->d_name + len - 5, ".arch"))
            continue;
        char p[1024];
        snprintf(p, sizeof p, "%s/%s", gd_arch_dir(), ent->d_name);
        gd_arch a;
        gd_err err;
        if (gd_arch_load(p, NULL, 0, &a, &err) != 0 || !a.gpu.name[0])
            continue;
        if (strcasestr(device_name, a.gpu.name)) {
            snprintf(path, size, "%s", p);
            found = 0;
        }
    }
    closedir(d);
    return found;
}

static void print_levels(const gd_inference *inf)
{
    for (int i = 0; i < GD_INF_COUNT; i++) {
        const gd_inferred_level *l = &inf->level[i];
        if (!l->present)
            continue;
        char size[32] = "-", sector[32] = "-", line[32] = "-", lat[32] = "-";
        if (l->has_size)
            gd_format_bytes(l->size_bytes, size, sizeof size);
        if (l->has_sector)
            snprintf(sector, sizeof sector, "%lluB", (unsigned long long)l->sector_bytes);
        if (l->has_alloc_line)
            snprintf(line, sizeof line, "%lluB", (unsigned long long)l->alloc_line_bytes);
        if (l->has_latency)
            snprintf(lat, sizeof lat, "%.1f", l->latency_cycles);
        printf("  %-6s size %-9s sector %-6s line %-6s latency %-8s cycles  confidence %.2f\n",
               gd_inferred_level_name((gd_inferred_name)i), size, sector, line, lat,
               gd_inferred_confidence(l));
    }
}

/* --resume RUN: the run's own command line again, in RUN (characterize_resume.c) */
static const char *resuming;

static int resume_run(const char *run)
{
    gd_err err;
    char **args = NULL;
    int n = 0;
    if (gd_characterize_resume_args(run, &args, &n, &err) != 0)
        return gd_report_error(err.msg);
    resuming = run;
    int rc = gd_cmd_characterize(n, args);
    resuming = NULL;
    gd_characterize_resume_free(args, n);
    return rc;
}

int gd_cmd_characterize(int argc, char **argv)
{
    enum { O_SET = 256, O_OUT, O_QUIET, O_NOPLOTS, O_ARCH, O_SUITE, O_CARVEOUT, O_CHAINED, O_RESUME };
    static const struct option opts[] = {
        {"device", required_argument, 0, 'd'}, {"suite", required_argument, 0, O_SUITE},
        {"arch", required_argument, 0, O_ARCH}, {"set", required_argument, 0, O_SET},
        {"out", required_argument, 0, O_OUT},  {"no-plots", no_argument, 0, O_NOPLOTS},
        {"quiet", no_argument, 0, O_QUIET},    {"help", no_argument, 0, 'h'},
        {"carveout", required_argument, 0, O_CARVEOUT},
        {"jobs", required_argument, 0, 'j'},   {"chained", no_argument, 0, O_CHAINED},
        {"resume", required_argument, 0, O_RESUME},
        {0, 0, 0, 0},
    };
    const char *device = NULL, *suite_name = "quick", *arch_name = NULL, *out = NULL;
    const char *overrides[MAX_OVERRIDES];
    size_t override_count = 0;
    int quiet = 0, plots = 1, carveout = 0, chained = 0, c;
    unsigned jobs = 0;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":d:j:h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': device = optarg; break;
        case O_SUITE: suite_name = optarg; break;
        case O_ARCH: arch_name = optarg; break;
        case O_SET:
            if (override_count == MAX_OVERRIDES) {
                fprintf(stderr, "gpudissect: too many --set options\n");
                return 2;
            }
            overrides[override_count++] = optarg;
            break;
        case O_OUT:
            if (strlen(optarg) >= GD_RUN_OUT_MAX_BYTES) { /* never cut: it would write elsewhere */
                fprintf(stderr, "gpudissect: --out is %zu bytes long; at most %d\n", strlen(optarg),
                        GD_RUN_OUT_MAX_BYTES - 1);
                return 2;
            }
            out = optarg;
            break;
        case O_NOPLOTS: plots = 0; break;
        case O_QUIET: quiet = 1; break;
        case O_CHAINED: chained = 1; break;
        case 'j':
            if (gd_parse_jobs_option(optarg, &jobs) != 0) {
                fprintf(stderr, "gpudissect: --jobs wants a number of processes, 1..%d\n",
                        GD_MAX_JOBS);
                return 2;
            }
            break;
        case O_CARVEOUT:
            if (gd_parse_carveout_option(optarg, &carveout) != 0)
                return 2;
            break;
        case O_RESUME: return resume_run(optarg);
        case 'h': fputs(help, stdout); return 0;
        case ':': fprintf(stderr, "gpudissect: option '%s' needs a value\n", argv[optind - 1]); return 2;
        default: fprintf(stderr, "gpudissect: unknown option '%s'\n%s", argv[optind - 1], help); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "gpudissect: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (!device) {
        fprintf(stderr, "gpudissect: --device is required\n%s", help);
        return 2;
    }
    if (gd_node_spec_is_multi(device))
        return gd_cmd_node_run("characterize", argc, argv, device, out, quiet);
    gd_err err;
    /* Ctrl-C or SIGTERM from here on: the point in progress finishes, the run
     * keeps what finished and exits 130 (host/interrupt.c) */
    gd_interrupt_install();
    gd_suite *suite = calloc(1, sizeof *suite);
    if (!suite || gd_suite_load(suite_name, suite, &err) != 0) {
        free(suite);
        return gd_report_error(suite ? err.msg : "out of memory");
    }
    gd_device_opts dopts = {.overrides = overrides, .override_count = override_count};
    gd_device *dev = NULL;
    if (gd_device_open(device, &dopts, &dev, &err) != 0) {
        free(suite);
        return gd_report_error(err.msg);
    }
    const gd_device_info *info = gd_device_get_info(dev);

    /* the arch to compare with */
    gd_arch *arch = calloc(1, sizeof *arch);
    char arch_path[1024] = "";
    int status = 1;
    json_t *meta = NULL;
    if (!arch) {
        snprintf(err.msg, sizeof err.msg, "out of memory");
        goto out;
    }
    if (arch_name) {
        if (gd_arch_resolve(arch_name, arch_path, sizeof arch_path, &err) != 0)
            goto out;
    } else if (!strcmp(info->backend, "sim")) {
        snprintf(arch_path, sizeof arch_path, "%s", info->arch_path);
    } else if (match_bundled_arch(info->name, arch_path, sizeof arch_path) != 0) {
        arch_path[0] = 0;
        if (!quiet)
            fprintf(stderr, "no bundled arch file matches '%s': not compared (pass --arch)\n",
                    info->name);
    }
    int have_arch = 0;
    if (arch_path[0]) {
        /* a sim device's own arch comes with the same --set overrides */
        int own = !arch_name && !strcmp(info->backend, "sim");
        if (gd_arch_load(arch_path, own ? overrides : NULL, own ? override_count : 0, arch, &err) != 0)
            goto out;
        have_arch = 1;
    }

    char out_dir[GD_RUN_OUT_MAX_BYTES];
    if (out) {
        snprintf(out_dir, sizeof out_dir, "%s", out);
    } else {
        char stamp[32], dev_name[64];
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
        snprintf(dev_name, sizeof dev_name, "%s", device);
        for (char *p = dev_name; *p; p++)
            if (!isalnum((unsigned char)*p))
                *p = '-';
        snprintf(out_dir, sizeof out_dir, "results/%s-%s", stamp, dev_name);
    }
    if (gd_mkdirs(out_dir, &err) != 0 || !(meta = gd_meta_new(dev, argc, argv, &err)))
        goto out;
    if (resuming) { /* orphans of a SIGKILL; the meta.json above replaces the old one */
        int removed = gd_interrupt_remove_temporaries(out_dir, &err);
        if (removed < 0)
            goto out;
        json_object_set_new(meta, "resumed", json_integer(removed));
    }
    json_object_set_new(meta, "suite", json_string(suite->name));
    json_object_set_new(meta, "compared_with", have_arch ? json_string(arch->path) : json_null());
    if (gd_meta_write(meta, out_dir, &err) != 0)
        goto out;

    gd_runner runner;
    gd_runner_init(&runner, dev, out_dir, quiet ? NULL : stderr);
    runner.meta = meta; /* the JIT checks of a cuda device land in meta.json */
    runner.carveout_percent = carveout;
    runner.jobs = jobs;
    runner.chained = chained;
    runner.keep_measured = resuming != NULL;
    gd_meta_set_carveout(meta, carveout, runner.kernels);
    gd_characterize_ctx ctx = {
        .runner = &runner,
        .suite = suite,
        .out_dir = out_dir,
        .progress = quiet ? NULL : stderr,
        .device_l2_bytes = info->l2_bytes,
        /* no L0I before Volta: the instruction-cache inference names the
         * first level L1I there (gd_infer_icache_seq) */
        .vars = {.size = {[GD_INF_L2] = info->l2_bytes},
                 .absent = {[GD_INF_L0I] = info->cc_major > 0 && info->cc_major < 7}},
        .resume = resuming != NULL,
    };
    int rc = gd_characterize(&ctx, meta, &err);
    gd_runner_close(&runner);
    gd_err meta_err;
    if (rc != 0) {
        json_object_set_new(meta, "error", json_string(err.msg));
        gd_meta_finish(meta, dev, out_dir, &meta_err);
        goto out;
    }
    if (gd_meta_finish(meta, dev, out_dir, &err) != 0)
        goto out;
    if (gd_analyze_run(out_dir, have_arch ? arch : NULL, plots, jobs, &err) != 0)
        goto out;
    if (gd_interrupt_requested()) {
        fprintf(stderr, "gpudissect: interrupted by %s; the steps that finished are in %s (go on "
                        "with: gpudissect characterize --resume %s)\n",
                gd_interrupt_name(gd_interrupt_requested()), out_dir, out_dir);
        status = GD_EXIT_INTERRUPTED;
        goto out;
    }
    printf("%s on %s (suite %s)%s%s\n", info->name, device, suite->name,
           have_arch ? ", compared with " : "", have_arch ? arch->name : "");
    print_levels(&ctx.inference);
    printf("%s\n", out_dir);
    status = 0;
    if (ctx.failed_steps) {
        /* the run went to the end and every other step's results are there;
         * exit 3 says that some are missing (meta.json and report.md say why) */
        fprintf(stderr, "gpudissect: warning: %zu step%s of the suite failed (see %s/report.md)\n",
                ctx.failed_steps, ctx.failed_steps == 1 ? "" : "s", out_dir);
        status = GD_EXIT_STEPS_FAILED;
    }
out:
    if (status && status != GD_EXIT_STEPS_FAILED && status != GD_EXIT_INTERRUPTED)
        gd_report_error(err.msg);
    json_decref(meta);
    free(arch);
    free(suite);
    gd_device_close(dev);
    gd_interrupt_uninstall();
    return status;
}
