/* cmd_run.c -- `gpudissect run` (measure a sweep) and `gpudissect emit` (print the
 * PTX of one point).  Both take the same probe options. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/arch.h"
#include "analysis/curve_samples.h"
#include "analysis/results.h"
#include "host/adaptive.h"
#include "host/cli_number.h"
#include "host/commands.h"
#include "host/device_registry.h"
#include "host/interrupt.h"
#include "host/lsu_trace.h"
#include "host/meta.h"
#include "host/runner.h"
#include "kernels/probe.h"
#include "kernels/timer.h"

#define MAX_OVERRIDES 64

typedef struct run_args {
    const char *device;
    const char *probe;
    const char *sweep;
    const char *out;
    const char *point;
    const char *overrides[MAX_OVERRIDES];
    size_t override_count;
    gd_probe_opts opts;
    int quiet;
    int adaptive;
    uint64_t resolution;
    int trace;
    uint64_t trace_limit;
    int timer_clock32;  /* emit --timer clock32: %clock reads for GPGPU-Sim */
    int carveout_percent;
    unsigned jobs;      /* -j: sweep-point workers on a sim device (0: the cores) */
    int chained;        /* --chained: one device from point to point, serial */
    int one_launch;     /* --one-launch-per-point */
} run_args;

static const char run_help[] =
    "usage: gpudissect run --device DEV --probe NAME --sweep FROM:TO[:STEPS] [options]\n"
    "\n"
    "Runs a probe over a sweep and writes results/RUN/: meta.json and NAME.csv\n"
    "(sweep value, series, min, median, mean, max, count, p05, p95, stddev).\n"
    "\n"
    "  --device DEV        sim:ARCH (an arch in analysis/archs or a path) or cuda:N\n"
    "  --probe NAME        see `gpudissect list`\n"
    "  --sweep SPEC        FROM:TO doubles from FROM to TO; FROM:TO:N gives N points\n"
    "                      spaced geometrically; FROM:TO:+STEP a linear sweep.\n"
    "                      Sizes take units: 1KiB:8MiB\n"
    "  --stride BYTES      element stride (p-chase: default 32)\n"
    "  --footprint BYTES   fixed footprint of a stride sweep (pchase_stride: 256KiB)\n"
    "  --timed N           chases: time only the first N accesses of the lap after the\n"
    "                      warm-up lap (default: whole laps, at least 4096 accesses)\n"
    "  --warm N            icache_seq: N untimed passes before the timed ones (default\n"
    "                      1; a randomly replacing cache converges over many)\n"
    "  --adaptive          measure SPEC as a coarse sweep, then bisect every knee\n"
    "                      until it is --resolution wide (default: the stride)\n"
    "  --resolution BYTES  knee precision of --adaptive\n"
    "  --pattern P         seq (default) or random (seeded single-cycle permutation)\n"
    "  --seed N            seed of the random pattern (default 1)\n"
    "  --variant V         probe variant (p-chase: ca = L1+L2, cg = L2 only)\n"
    "  --samples N         samples kept per point (p-chase: power of two, 64..2048)\n"
    "  --set S.key=VALUE   override an arch-file value of a sim device (repeatable),\n"
    "                      e.g. --set L1D.ways=8 --set L1D.reorder=true\n"
    "  --out DIR           results directory (default results/DATE-TIME-DEVICE)\n"
    "  --trace             sim devices: every load/store-unit event of the run (request\n"
    "                      accepted, enqueued, hit/miss/merge, reservation fail and why,\n"
    "                      requeued, popped, filled) to RUN/lsu_trace.csv\n"
    "  --trace-limit N     events kept by --trace (default 1000000; the rest counted)\n"
    "  --carveout PERCENT  the L1/shared carve-out preference set on every kernel, in\n"
    "                      percent of the largest shared memory (default 0: the most\n"
    "                      L1); recorded in meta.json with each kernel's resources\n"
    "  -j, --jobs N        sim devices: run N sweep points at a time, each an\n"
    "                      independent simulation from the device as the sweep\n"
    "                      found it (default: the cores hwloc reports); the\n"
    "                      results are the same for every N\n"
    "  --chained           sim devices: one device carried from point to point,\n"
    "                      serially (each point sees the caches the last one left)\n"
    "  --one-launch-per-point  probes whose points share a launch (mshr, resv_stall,\n"
    "                      dram_row: one L2 eviction pass for up to 16 points) give\n"
    "                      each point a launch and a pass of its own: counters per\n"
    "                      point, not per launch\n"
    "  --quiet             no progress lines on stderr\n";

static const char emit_help[] =
    "usage: gpudissect emit --probe NAME [--device DEV] [--point VALUE] [options]\n"
    "\n"
    "Prints the PTX the probe hands to the device for one sweep point (default: the\n"
    "first point of a 1KiB sweep).  --device picks the target (default sim:t4, whose\n"
    "arch file says sm_75; cuda:N uses the card's compute capability).  Takes the\n"
    "probe options of `gpudissect run`.\n"
    "  --timer clock32     read the 32-bit %clock instead of %clock64 (wrap-safe 32-bit\n"
    "                      deltas): the same probe for GPGPU-Sim, which aborts on %clock64\n";

static int parse_args(int argc, char **argv, run_args *a, const char *help, int is_emit)
{
    enum { O_STRIDE = 256, O_PATTERN, O_SEED, O_VARIANT, O_SAMPLES, O_SET, O_OUT, O_QUIET, O_POINT,
           O_FOOTPRINT, O_ADAPTIVE, O_RESOLUTION, O_TRACE, O_TRACE_LIMIT, O_TIMER, O_CARVEOUT, O_CHAINED,
           O_ONE_LAUNCH, O_TIMED, O_WARM };
    static const struct option opts[] = {
        {"device", required_argument, 0, 'd'},   {"probe", required_argument, 0, 'p'},
        {"sweep", required_argument, 0, 's'},    {"stride", required_argument, 0, O_STRIDE},
        {"pattern", required_argument, 0, O_PATTERN}, {"seed", required_argument, 0, O_SEED},
        {"variant", required_argument, 0, O_VARIANT}, {"samples", required_argument, 0, O_SAMPLES},
        {"set", required_argument, 0, O_SET},    {"out", required_argument, 0, O_OUT},
        {"quiet", no_argument, 0, O_QUIET},      {"point", required_argument, 0, O_POINT},
        {"footprint", required_argument, 0, O_FOOTPRINT}, {"timed", required_argument, 0, O_TIMED},
        {"warm", required_argument, 0, O_WARM},
        {"adaptive", no_argument, 0, O_ADAPTIVE}, {"resolution", required_argument, 0, O_RESOLUTION},
        {"trace", no_argument, 0, O_TRACE}, {"trace-limit", required_argument, 0, O_TRACE_LIMIT},
        {"timer", required_argument, 0, O_TIMER},
        {"carveout", required_argument, 0, O_CARVEOUT},
        {"jobs", required_argument, 0, 'j'}, {"chained", no_argument, 0, O_CHAINED},
        {"one-launch-per-point", no_argument, 0, O_ONE_LAUNCH},
        {"help", no_argument, 0, 'h'},           {0, 0, 0, 0},
    };
    memset(a, 0, sizeof *a);
    a->opts.seed = 1;
    optind = 1;
    opterr = 0;
    int c;
    uint64_t v;
    while ((c = getopt_long(argc, argv, ":d:p:s:j:h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': a->device = optarg; break;
        case 'p': a->probe = optarg; break;
        case 's': a->sweep = optarg; break;
        case O_STRIDE:
            if (gd_parse_bytes(optarg, &v) || v == 0) {
                fprintf(stderr, "gpudissect: --stride must be a size in bytes, got '%s'\n", optarg);
                return 2;
            }
            a->opts.stride_bytes = v;
            break;
        case O_ADAPTIVE: a->adaptive = 1; break;
        case O_RESOLUTION:
            if (gd_parse_bytes(optarg, &v) || v == 0) {
                fprintf(stderr, "gpudissect: --resolution must be a positive size, got '%s'\n", optarg);
                return 2;
            }
            a->resolution = v;
            break;
        case O_FOOTPRINT:
            if (gd_parse_bytes(optarg, &v) || v == 0) {
                fprintf(stderr, "gpudissect: --footprint must be a size in bytes, got '%s'\n", optarg);
                return 2;
            }
            a->opts.footprint_bytes = v;
            break;
        case O_TIMED:
            if (gd_cli_u64(optarg, 1, UINT32_MAX, &v) != 0) {
                fprintf(stderr, "gpudissect: --timed must be a number of accesses 1..%u, got '%s'\n",
                        UINT32_MAX, optarg);
                return 2;
            }
            a->opts.timed_accesses = v;
            break;
        case O_WARM:
            if (gd_cli_u64(optarg, 1, GD_PROBE_MAX_WARM_PASSES, &v) != 0) {
                fprintf(stderr, "gpudissect: --warm must be a number of passes 1..%u, got '%s'\n",
                        GD_PROBE_MAX_WARM_PASSES, optarg);
                return 2;
            }
            a->opts.warm_passes = (uint32_t)v;
            break;
        case O_PATTERN:
            if (!strcmp(optarg, "random"))
                a->opts.random_order = 1;
            else if (strcmp(optarg, "seq") && strcmp(optarg, "sequential")) {
                fprintf(stderr, "gpudissect: --pattern must be seq or random, got '%s'\n", optarg);
                return 2;
            }
            break;
        case O_SEED:
            if (gd_cli_u64(optarg, 0, UINT64_MAX, &a->opts.seed) != 0) {
                fprintf(stderr, "gpudissect: --seed must be a whole number 0..2^64-1, got '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case O_VARIANT:
            if (strlen(optarg) >= sizeof a->opts.variant) {
                fprintf(stderr, "gpudissect: --variant '%.40s...' is too long\n", optarg);
                return 2;
            }
            snprintf(a->opts.variant, sizeof a->opts.variant, "%s", optarg);
            break;
        case O_SAMPLES:
            if (gd_cli_u64(optarg, 1, 1u << 20, &v) != 0) {
                fprintf(stderr, "gpudissect: --samples must be a number 1..%u, got '%s'\n", 1u << 20,
                        optarg);
                return 2;
            }
            a->opts.samples = (uint32_t)v;
            break;
        case O_SET:
            if (a->override_count == MAX_OVERRIDES) {
                fprintf(stderr, "gpudissect: too many --set options\n");
                return 2;
            }
            a->overrides[a->override_count++] = optarg;
            break;
        case O_OUT:
            if (strlen(optarg) >= GD_RUN_OUT_MAX_BYTES) {
                /* the run's files are named in buffers of this size: a longer
                 * path would be cut and the run would write elsewhere */
                fprintf(stderr, "gpudissect: --out is %zu bytes long; at most %d\n", strlen(optarg),
                        GD_RUN_OUT_MAX_BYTES - 1);
                return 2;
            }
            a->out = optarg;
            break;
        case O_QUIET: a->quiet = 1; break;
        case O_CHAINED: a->chained = 1; break;
        case O_ONE_LAUNCH: a->one_launch = 1; break;
        case 'j':
            if (gd_parse_jobs_option(optarg, &a->jobs) != 0) {
                fprintf(stderr, "gpudissect: --jobs wants a number of processes, 1..%d\n",
                        GD_MAX_JOBS);
                return 2;
            }
            break;
        case O_CARVEOUT:
            if (gd_parse_carveout_option(optarg, &a->carveout_percent) != 0)
                return 2;
            break;
        case O_TRACE: a->trace = 1; break;
        case O_TRACE_LIMIT:
            if (gd_cli_u64(optarg, 1, UINT64_MAX, &v) != 0) {
                fprintf(stderr, "gpudissect: --trace-limit must be a positive number, got '%s'\n",
                        optarg);
                return 2;
            }
            a->trace_limit = v;
            break;
        case O_POINT: a->point = optarg; break;
        case O_TIMER:
            if (!is_emit || (strcmp(optarg, "clock32") && strcmp(optarg, "clock64"))) {
                fprintf(stderr, "gpudissect: --timer clock32|clock64 is an option of `emit`\n");
                return 2;
            }
            a->timer_clock32 = !strcmp(optarg, "clock32");
            break;
        case 'h': fputs(help, stdout); return 0;
        case ':':
            fprintf(stderr, "gpudissect: option '%s' needs a value\n", argv[optind - 1]);
            return 2;
        default:
            fprintf(stderr, "gpudissect: unknown option '%s'\n%s", argv[optind - 1], help);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "gpudissect: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    if (!a->probe) {
        fprintf(stderr, "gpudissect: --probe is required\n%s", help);
        return 2;
    }
    if (!is_emit && (!a->device || !a->sweep)) {
        fprintf(stderr, "gpudissect: --device and --sweep are required\n%s", help);
        return 2;
    }
    if (is_emit && a->sweep) {
        fprintf(stderr, "gpudissect: emit takes --point, not --sweep\n");
        return 2;
    }
    if (is_emit && (a->trace || a->trace_limit)) {
        fprintf(stderr, "gpudissect: emit runs nothing to trace (--trace is a run option)\n");
        return 2;
    }
    if (a->trace_limit && !a->trace) {
        fprintf(stderr, "gpudissect: --trace-limit needs --trace\n");
        return 2;
    }
    if (!is_emit && (a->point)) {
        fprintf(stderr, "gpudissect: run takes --sweep, not --point\n");
        return 2;
    }
    return -1;
}

static void default_out_dir(const char *device, char *buf, size_t size)
{
    char stamp[32], dev[64];
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    snprintf(dev, sizeof dev, "%s", device);
    for (char *p = dev; *p; p++)
        if (*p == ':' || *p == '/' || *p == '.')
            *p = '-';
    snprintf(buf, size, "results/%s-%s", stamp, dev);
}

static const gd_probe *find_probe(const char *name)
{
    const gd_probe *p = gd_probe_find(name);
    if (!p)
        fprintf(stderr, "gpudissect: error: unknown probe '%s' (see `gpudissect list`)\n", name);
    return p;
}

int gd_cmd_run(int argc, char **argv)
{
    run_args a;
    int rc = parse_args(argc, argv, &a, run_help, 0);
    if (rc >= 0)
        return rc;
    const gd_probe *probe = find_probe(a.probe);
    if (!probe)
        return 2;
    gd_err err;
    gd_sweep sweep;
    if (gd_sweep_parse(a.sweep, gd_probe_sweep_granularity(probe, &a.opts), &sweep, &err) != 0) {
        fprintf(stderr, "gpudissect: error: %s\n", err.msg);
        return 2;
    }
    gd_device_opts dopts = {.overrides = a.overrides, .override_count = a.override_count};
    gd_device *dev = NULL;
    if (gd_device_open(a.device, &dopts, &dev, &err) != 0) {
        gd_sweep_free(&sweep);
        return gd_report_error(err.msg);
    }
    char out_dir[GD_RUN_OUT_MAX_BYTES];
    if (a.out)
        snprintf(out_dir, sizeof out_dir, "%s", a.out);
    else
        default_out_dir(a.device, out_dir, sizeof out_dir);
    json_t *meta = NULL, *entry = NULL;
    gd_lsu_trace *trace = NULL;
    gd_runner runner;
    gd_curve curve;
    gd_runner_init(&runner, dev, out_dir, a.quiet ? NULL : stderr);
    runner.carveout_percent = a.carveout_percent;
    runner.jobs = a.jobs;
    runner.chained = a.chained;
    runner.one_launch_per_point = a.one_launch;
    gd_curve_init(&curve, probe->name, probe, &a.opts);
    int status = 1;
    gd_interrupt_install(); /* Ctrl-C: the point being written finishes, the CSV keeps the rest */
    if (a.trace && gd_lsu_trace_start(dev, a.trace_limit ? a.trace_limit
                                                          : GD_LSU_TRACE_DEFAULT_LIMIT,
                                      &trace, &err) != 0)
        goto out;
    if (gd_mkdirs(out_dir, &err) != 0 || !(meta = gd_meta_new(dev, argc, argv, &err)))
        goto out;
    runner.meta = meta; /* the JIT checks of a cuda device land in meta.json */
    gd_meta_set_carveout(meta, runner.carveout_percent, runner.kernels);
    entry = json_object();
    json_object_set_new(entry, "probe", json_string(probe->name));
    json_object_set_new(entry, "csv", json_string(curve.label));
    json_object_set_new(entry, "sweep", json_string(a.sweep));
    json_object_set_new(entry, "points", json_integer((json_int_t)sweep.count));
    uint64_t stride = a.opts.stride_bytes ? a.opts.stride_bytes : probe->default_stride_bytes;
    json_object_set_new(entry, "stride_bytes", json_integer((json_int_t)stride));
    json_object_set_new(entry, "pattern", json_string(a.opts.random_order ? "random" : "seq"));
    json_object_set_new(entry, "variant", a.opts.variant[0] ? json_string(a.opts.variant) : json_null());
    json_t *sets = json_array();
    for (size_t i = 0; i < a.override_count; i++)
        json_array_append_new(sets, json_string(a.overrides[i]));
    json_object_set_new(entry, "arch_overrides", sets);
    {
        /* what the plan does other than asked (a patch refused on this
         * target): said in meta.json and on stderr */
        gd_probe_plan first;
        if (probe->plan(&a.opts, gd_device_get_info(dev), sweep.points[0], &first, &err) != 0) {
            json_decref(entry); /* not in meta yet */
            goto out;
        }
        if (first.note[0]) {
            json_object_set_new(entry, "note", json_string(first.note));
            json_object_set_new(entry, "variant", json_string(first.opts.variant));
            if (!a.quiet)
                fprintf(stderr, "%s\n", first.note);
        }
        gd_probe_plan_free(probe, &first);
    }
    json_array_append_new(json_object_get(meta, "probes"), entry);
    if (gd_meta_write(meta, out_dir, &err) != 0)
        goto out;
    gd_adaptive_stats st;
    int swept = a.adaptive ? gd_runner_adaptive(&runner, &curve, &sweep,
                                                a.resolution ? a.resolution
                                                             : gd_probe_sweep_granularity(probe, &a.opts),
                                                &st, &err)
                           : gd_runner_sweep(&runner, &curve, &sweep, &err);
    gd_err settle_err; /* the per-point CSV made durable, keeping a sweep's error first */
    if (gd_runner_settle_csv(&runner, &curve, swept == 0 ? &err : &settle_err) != 0)
        swept = -1;
    if (swept != 0) {
        gd_err ignored;
        gd_lsu_trace_finish(trace, out_dir, entry, &ignored);
        trace = NULL;
        json_object_set_new(meta, "error", json_string(err.msg));
        gd_meta_finish(meta, dev, out_dir, &ignored);
        goto out;
    }
    if (gd_curve_write_samples(&curve, out_dir, &err) != 0) /* for `gpudissect infer` */
        goto out;
    if (a.adaptive) {
        json_object_set_new(entry, "strategy", json_string("adaptive"));
        json_object_set_new(entry, "points", json_integer((json_int_t)st.points));
        json_object_set_new(entry, "coarse_points", json_integer((json_int_t)st.coarse_points));
        json_object_set_new(entry, "refine_points", json_integer((json_int_t)st.refine_points));
        json_object_set_new(entry, "uniform_points_equivalent",
                            json_integer((json_int_t)st.uniform_points));
        if (!a.quiet)
            fprintf(stderr,
                    "adaptive sweep: %zu points (%zu coarse + %zu bisection); a uniform sweep at "
                    "the same resolution would need %llu\n",
                    st.points, st.coarse_points, st.refine_points,
                    (unsigned long long)st.uniform_points);
    }
    int traced = trace != NULL;
    rc = gd_lsu_trace_finish(trace, out_dir, entry, &err);
    trace = NULL;
    if (rc != 0)
        goto out;
    if (gd_meta_finish(meta, dev, out_dir, &err) != 0)
        goto out;
    if (!a.quiet)
        fprintf(stderr, "wrote %s/%s.csv%s and %s/meta.json\n", out_dir, curve.label,
                traced ? ", lsu_trace.csv" : "", out_dir);
    printf("%s\n", out_dir);
    status = 0;
out:
    if (status && gd_interrupt_requested())
        status = GD_EXIT_INTERRUPTED; /* the CSV holds every point that finished */
    if (status)
        gd_report_error(err.msg);
    gd_interrupt_uninstall();
    if (trace) {
        gd_err ignored;
        gd_lsu_trace_finish(trace, out_dir, NULL, &ignored);
    }
    json_decref(meta);
    gd_curve_free(&curve);
    gd_runner_close(&runner);
    gd_device_close(dev);
    gd_sweep_free(&sweep);
    return status;
}

int gd_cmd_emit(int argc, char **argv)
{
    run_args a;
    int rc = parse_args(argc, argv, &a, emit_help, 1);
    if (rc >= 0)
        return rc;
    const gd_probe *probe = find_probe(a.probe);
    if (!probe)
        return 2;
    /* without --point: the probe's own representative point (1024 is outside
     * the range of const_bcast, coalesce, pchase_fine, resv_stall, ...) */
    uint64_t point = probe->example_point ? probe->example_point : 1024;
    if (a.point && gd_parse_bytes(a.point, &point)) {
        fprintf(stderr, "gpudissect: --point must be a number or size, got '%s'\n", a.point);
        return 2;
    }
    gd_err err;
    gd_device_opts dopts = {.overrides = a.overrides, .override_count = a.override_count};
    gd_device *dev = NULL;
    if (gd_device_open(a.device ? a.device : "sim:t4", &dopts, &dev, &err) != 0)
        return gd_report_error(err.msg);
    gd_probe_plan plan;
    if (probe->plan(&a.opts, gd_device_get_info(dev), point, &plan, &err) != 0) {
        gd_device_close(dev);
        return gd_report_error(err.msg);
    }
    if (a.timer_clock32) {
        char *ptx32 = NULL;
        unsigned reads = 0;
        if (gd_timer_clock32_ptx(plan.ptx, &ptx32, &reads, &err) != 0) {
            gd_probe_plan_free(probe, &plan);
            gd_device_close(dev);
            return gd_report_error(err.msg);
        }
        fputs(ptx32, stdout);
        free(ptx32);
    } else {
        fputs(plan.ptx, stdout);
    }
    gd_probe_plan_free(probe, &plan);
    gd_device_close(dev);
    return 0;
}
