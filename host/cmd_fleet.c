/* cmd_fleet.c -- `gpudissect fleet submit | status | merge | task`: every card
 * of a cluster through Slurm (fleet_slurm.c) and one report over all of them
 * (fleet_merge.c). */
#include <dirent.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/results.h"
#include "host/cli_number.h"
#include "host/commands.h"
#include "host/fleet_merge.h"
#include "host/fleet_slurm.h"

#define MAX_FLEET_SETS 64
#define STATUS_POLL_SECONDS 1
#define FLEET_EXIT_CAP 100

static const char help[] =
    "usage: gpudissect fleet submit [options] [-- EXTRA_SBATCH_ARGS]\n"
    "       gpudissect fleet status DIR [--wait SECONDS]\n"
    "       gpudissect fleet merge DIR [--no-plots]\n"
    "\n"
    "Characterizes every GPU of a Slurm cluster as a job array and merges the\n"
    "results: per parameter the distribution across the cards, the outlier cards\n"
    "and the parameter that sets them apart, every card's p-chase in one plot.\n"
    "\n"
    "submit: writes DIR/fleet-job.sh, submits it with sbatch, prints the job id.\n"
    "  --suite NAME         quick (default), full, or a .suite path\n"
    "  --nodes K            array tasks, one per node (default 1)\n"
    "  --gpus-per-node N    each task asks for --gres=gpu:N (default: no GPU request)\n"
    "  --per-gpu            one task per GPU (--gpus-per-task=1, --device cuda:0):\n"
    "                       K*N tasks\n"
    "  --partition P        Slurm partition\n"
    "  --device SPEC        each task's devices (default cuda:all; per GPU cuda:0);\n"
    "                       sim:ARCH runs the simulator (tests, dry runs)\n"
    "  --array-size T       T array tasks whatever K and N say\n"
    "  --set S.key=V        a sim override for every task; %a = the task id\n"
    "                       (e.g. --set noise.seed=1%a: 10, 11, ...)\n"
    "  --task-set ID:S.key=V  an override for array task ID only\n"
    "  --out DIR            fleet directory (default results/fleet-DATE-TIME)\n"
    "  --dry-run            print the script, submit nothing\n"
    "  -- ARGS              further sbatch options, one #SBATCH line each\n"
    "status: the array's tasks (squeue, scontrol, sacct) and the cards written so far;\n"
    "  --wait SECONDS waits until no task is pending or running (exit 1 if not).\n"
    "merge: DIR/fleet.json, DIR/fleet.md, DIR/plots/fleet-pchase.{png,svg}.\n"
    "task: what each array task runs (the script calls it: gpudissect fleet task\n"
    "  DIR [--task-set ID:S.key=V]... -- characterize ARGS).\n";

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "gpudissect: %s%s%s\n%s", what, arg ? " " : "", arg ? arg : "", help);
    return 2;
}

static int fleet_submit(int argc, char **argv)
{
    enum { O_SUITE = 256, O_NODES, O_GPUS, O_PER_GPU, O_PARTITION, O_DEVICE, O_ARRAY, O_SET,
           O_TASK_SET, O_OUT, O_DRY };
    static const struct option opts[] = {
        {"suite", required_argument, 0, O_SUITE},       {"nodes", required_argument, 0, O_NODES},
        {"gpus-per-node", required_argument, 0, O_GPUS}, {"per-gpu", no_argument, 0, O_PER_GPU},
        {"partition", required_argument, 0, O_PARTITION}, {"device", required_argument, 0, O_DEVICE},
        {"array-size", required_argument, 0, O_ARRAY},  {"set", required_argument, 0, O_SET},
        {"task-set", required_argument, 0, O_TASK_SET}, {"out", required_argument, 0, O_OUT},
        {"dry-run", no_argument, 0, O_DRY},             {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    const char *sets[MAX_FLEET_SETS], *task_sets[MAX_FLEET_SETS];
    gd_fleet_job_spec spec = {.suite = "quick", .nodes = 1, .sets = sets, .task_sets = task_sets};
    const char *out = NULL;
    int dry = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case O_SUITE: spec.suite = optarg; break;
        case O_NODES:
        case O_GPUS:
        case O_ARRAY: {
            uint64_t n;
            if (gd_cli_u64(optarg, 1, 100000, &n) != 0)
                return usage_error("--nodes, --gpus and --array take a number 1..100000, got",
                                   optarg);
            if (c == O_NODES)
                spec.nodes = (int)n;
            else if (c == O_GPUS)
                spec.gpus_per_node = (int)n;
            else
                spec.array_size = (int)n;
            break;
        }
        case O_PER_GPU: spec.per_gpu = 1; break;
        case O_PARTITION: spec.partition = optarg; break;
        case O_DEVICE: spec.device = optarg; break;
        case O_SET:
        case O_TASK_SET:
            if ((c == O_SET ? spec.set_count : spec.task_set_count) == MAX_FLEET_SETS)
                return usage_error("too many --set / --task-set options", NULL);
            if (c == O_SET)
                sets[spec.set_count++] = optarg;
            else
                task_sets[spec.task_set_count++] = optarg;
            break;
        case O_OUT: out = optarg; break;
        case O_DRY: dry = 1; break;
        case 'h': fputs(help, stdout); return 0;
        case ':': return usage_error("option needs a value:", argv[optind - 1]);
        default: return usage_error("unknown option", argv[optind - 1]);
        }
    }
    spec.sbatch_args = (const char *const *)argv + optind;
    spec.sbatch_arg_count = (size_t)(argc - optind);

    char dir[1024], exe[1024];
    if (out) {
        snprintf(dir, sizeof dir, "%s", out);
    } else {
        char stamp[32];
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
        snprintf(dir, sizeof dir, "results/fleet-%s", stamp);
    }
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return gd_report_error("cannot read /proc/self/exe: the job script runs this binary");
    exe[len] = 0;
    gd_err err;
    char slurm_dir[1100], abs_dir[4096];
    if (!dry) {
        snprintf(slurm_dir, sizeof slurm_dir, "%s/slurm", dir);
        if (gd_mkdirs(slurm_dir, &err) != 0)
            return gd_report_error(err.msg);
    }
    /* the tasks run elsewhere: every path in the script is absolute */
    if (dir[0] == '/' || !realpath(dir, abs_dir)) {
        if (dir[0] != '/' && getcwd(abs_dir, sizeof abs_dir - 1100))
            snprintf(abs_dir + strlen(abs_dir), 1100, "/%s", dir);
        else
            snprintf(abs_dir, sizeof abs_dir, "%s", dir);
    }
    spec.exe = exe;
    spec.out_dir = abs_dir;
    gd_text script;
    gd_text_init(&script);
    int tasks = 0;
    if (gd_fleet_script(&spec, &script, &tasks, &err) != 0) {
        gd_text_free(&script);
        fprintf(stderr, "gpudissect: %s\n", err.msg);
        return 2;
    }
    if (dry) {
        fwrite(script.data, 1, script.length, stdout);
        gd_text_free(&script);
        return 0;
    }
    char script_path[4200], job_path[4200], job_id[64];
    snprintf(script_path, sizeof script_path, "%s/fleet-job.sh", abs_dir);
    snprintf(job_path, sizeof job_path, "%s/fleet-job.json", abs_dir);
    if (gd_text_write_atomic(&script, script_path, &err) != 0 ||
        gd_fleet_sbatch(script_path, job_id, sizeof job_id, &err) != 0) {
        gd_text_free(&script);
        return gd_report_error(err.msg);
    }
    gd_text_free(&script);
    json_t *job = json_object();
    char now[32];
    gd_iso8601_now(now, sizeof now);
    json_object_set_new(job, "job_id", json_string(job_id));
    json_object_set_new(job, "array_size", json_integer(tasks));
    json_object_set_new(job, "script", json_string(script_path));
    json_object_set_new(job, "submitted", json_string(now));
    json_object_set_new(job, "suite", json_string(spec.suite));
    int rc = gd_write_json_atomic(job_path, job, &err);
    json_decref(job);
    if (rc != 0)
        return gd_report_error(err.msg);
    fprintf(stderr, "submitted job %s: %d array tasks, results in %s\n", job_id, tasks, abs_dir);
    printf("%s\n", job_id);
    return 0;
}

/* Cards written so far: directories with a status.json, by their status. */
static void count_cards(const char *dir, int *ok, int *failed)
{
    *ok = *failed = 0;
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *ent;
    while ((ent = readdir(d))) {
        if (ent->d_name[0] == '.')
            continue;
        char path[1400];
        snprintf(path, sizeof path, "%s/%s/status.json", dir, ent->d_name);
        json_t *st = gd_json_load(path, 0, NULL);
        const char *s = json_string_value(json_object_get(st, "status"));
        if (s && !strcmp(s, "ok"))
            (*ok)++;
        else if (s)
            (*failed)++;
        json_decref(st);
    }
    closedir(d);
}

static int fleet_status(int argc, char **argv)
{
    if (argc < 2 || argv[1][0] == '-')
        return usage_error("fleet status needs DIR", NULL);
    const char *dir = argv[1];
    int wait_s = -1;
    for (int i = 2; i < argc; i++) {
        uint64_t w;
        if (!strcmp(argv[i], "--wait") && i + 1 < argc) {
            if (gd_cli_u64(argv[++i], 0, 1000000, &w) != 0)
                return usage_error("--wait takes seconds 0..1000000, got", argv[i]);
            wait_s = (int)w;
        } else
            return usage_error("unexpected argument", argv[i]);
    }
    char path[1100];
    snprintf(path, sizeof path, "%s/fleet-job.json", dir);
    json_t *job = gd_json_load(path, 0, NULL);
    const char *job_id = json_string_value(json_object_get(job, "job_id"));
    if (!job_id) {
        json_decref(job);
        char msg[1300];
        snprintf(msg, sizeof msg, "%s: no job id (was the fleet submitted with `fleet submit --out %s`?)",
                 path, dir);
        return gd_report_error(msg);
    }
    gd_fleet_job_state st;
    gd_err err;
    time_t start = time(NULL);
    int rc;
    for (;;) {
        if ((rc = gd_fleet_job_query(job_id, &st, &err)) != 0 || wait_s < 0 || st.active == 0 ||
            time(NULL) - start >= wait_s)
            break;
        sleep(STATUS_POLL_SECONDS);
    }
    if (rc != 0) {
        json_decref(job);
        return gd_report_error(err.msg);
    }
    int ok, failed;
    count_cards(dir, &ok, &failed);
    printf("job %s (%lld array tasks): %d pending, %d running, %d completed, %d failed, %d other\n",
           job_id, (long long)json_integer_value(json_object_get(job, "array_size")), st.pending,
           st.running, st.completed, st.failed, st.other);
    printf("tasks: %s\n", st.detail[0] ? st.detail : "(none known to the controller)");
    printf("cards in %s: %d ok, %d failed\n", dir, ok, failed);
    json_decref(job);
    if (wait_s >= 0 && st.active) {
        snprintf(err.msg, sizeof err.msg, "job %s: %d tasks still pending or running after %d s",
                 job_id, st.active, wait_s);
        return gd_report_error(err.msg);
    }
    return 0;
}

static int fleet_merge(int argc, char **argv)
{
    if (argc < 2 || argv[1][0] == '-')
        return usage_error("fleet merge needs DIR", NULL);
    int plots = 1;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--no-plots"))
            plots = 0;
        else
            return usage_error("unexpected argument", argv[i]);
    }
    gd_fleet_summary sum;
    gd_err err;
    if (gd_fleet_merge(argv[1], plots, &sum, &err) != 0)
        return gd_report_error(err.msg);
    printf("%zu cards: %zu ok, %zu failed, %zu array tasks missing; %zu parameters, %zu outliers\n",
           sum.cards, sum.ok, sum.failed, sum.missing, sum.parameters, sum.outliers);
    if (plots && !sum.plotted)
        fprintf(stderr, "gpudissect: warning: no plot: %s\n", sum.plot_note);
    char path[1100];
    snprintf(path, sizeof path, "%s/fleet.json", argv[1]);
    json_t *doc = gd_json_load(path, 0, NULL);
    size_t i;
    json_t *o;
    json_array_foreach(json_object_get(doc, "outliers"), i, o)
        printf("  outlier: %s %s = %g (fleet median %g)\n",
               json_string_value(json_object_get(o, "card")),
               json_string_value(json_object_get(o, "parameter")),
               json_number_value(json_object_get(o, "value")),
               json_number_value(json_object_get(o, "median")));
    json_array_foreach(json_object_get(doc, "failed"), i, o)
        printf("  failed: %s: %s\n", json_string_value(json_object_get(o, "card")),
               json_string_value(json_object_get(o, "reason")));
    json_decref(doc);
    printf("%s/fleet.md\n", argv[1]);
    return 0;
}

/* Inside an array task (the job script's command). */
static int fleet_task(int argc, char **argv)
{
    if (argc < 2)
        return usage_error("fleet task needs DIR", NULL);
    const char *task_sets[MAX_FLEET_SETS];
    size_t n = 0;
    int i = 2;
    for (; i < argc && strcmp(argv[i], "--"); i++) {
        if (!strcmp(argv[i], "--task-set") && i + 1 < argc && n < MAX_FLEET_SETS)
            task_sets[n++] = argv[++i];
        else
            return usage_error("unexpected argument", argv[i]);
    }
    if (i >= argc - 1)
        return usage_error("fleet task: no command after --", NULL);
    gd_err err;
    int failed = gd_fleet_task(argv[1], task_sets, n, argc - i - 1, argv + i + 1, stderr, &err);
    if (failed < 0)
        return gd_report_error(err.msg);
    return failed > FLEET_EXIT_CAP ? FLEET_EXIT_CAP : failed;
}

int gd_cmd_fleet(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fputs(help, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "submit"))
        return fleet_submit(argc - 1, argv + 1);
    if (!strcmp(argv[1], "status"))
        return fleet_status(argc - 1, argv + 1);
    if (!strcmp(argv[1], "merge"))
        return fleet_merge(argc - 1, argv + 1);
    if (!strcmp(argv[1], "task"))
        return fleet_task(argc - 1, argv + 1);
    return usage_error("not a fleet command:", argv[1]);
}
