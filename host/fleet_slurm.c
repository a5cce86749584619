/* fleet_slurm.c -- every card of a cluster, through Slurm.
 *
 * gpudissect schedules nothing itself: a cluster already has a scheduler that
 * knows its nodes, GPUs, partitions, limits and accounting.  `fleet submit`
 * writes one sbatch script -- a job array, one task per node (each asking for
 * the node's GPUs with --gres=gpu:N and running `--device cuda:all` as a node
 * run) or one task per GPU (--gpus-per-task=1, `--device cuda:0`: Slurm's
 * CUDA_VISIBLE_DEVICES leaves each task its own card) -- and hands it to
 * sbatch.  Each task runs `gpudissect fleet task`, which
 *
 *   1. runs the node run (node_run.c) into DIR/.partial-JOB-TASK/, so a task
 *      that dies leaves nothing under a card's name;
 *   2. renames each device's directory into DIR/<host>-<gpu>/ (rename(2) in
 *      one file system: the card appears whole or not at all).  <gpu> is the
 *      PCI bus id for a CUDA device (the physical slot, whatever
 *      CUDA_VISIBLE_DEVICES renumbered), and the device plus "-aTASK" for a
 *      sim device (many tasks may simulate the same arch on one host).
 *
 * `fleet status` asks squeue (live tasks) and scontrol (finished tasks the
 * controller still remembers, MinJobAge), then sacct for a job the controller
 * forgot (it needs the accounting database, which a small cluster may not run).  Slurm's own tools are run with fork + exec,
 * never through a shell, so no path or option is ever re-parsed.
 */
#include "host/fleet_slurm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/node_run.h"

#define TOOL_OUTPUT_BYTES 65536
#define MAX_TASK_ARGS 256

/* ---- the script -------------------------------------------------------------- */

/* A shell word: single-quoted, ' as '\'' */
static void shell_word(gd_text *t, const char *s)
{
    gd_text_printf(t, " '");
    for (; *s; s++) {
        if (*s == '\'')
            gd_text_printf(t, "'\\''");
        else
            gd_text_printf(t, "%c", *s);
    }
    gd_text_printf(t, "'");
}

static int sbatch_safe(const char *s)
{
    return !strpbrk(s, "\n\r");
}

int gd_fleet_script(const gd_fleet_job_spec *s, gd_text *t, int *array_size, gd_err *err)
{
    if (s->nodes < 1)
        return gd_fail(err, "--nodes must be at least 1");
    if (s->gpus_per_node < 0)
        return gd_fail(err, "--gpus-per-node must not be negative");
    if (s->per_gpu && s->gpus_per_node < 1)
        return gd_fail(err, "--per-gpu needs --gpus-per-node N (N >= 1)");
    int tasks = s->array_size > 0 ? s->array_size
                                  : s->per_gpu ? s->nodes * s->gpus_per_node : s->nodes;
    for (size_t i = 0; i < s->sbatch_arg_count; i++)
        if (!sbatch_safe(s->sbatch_args[i]))
            return gd_fail(err, "sbatch argument with a line break");
    for (size_t i = 0; i < s->task_set_count; i++) {
        char *end;
        long id = strtol(s->task_sets[i], &end, 10);
        if (end == s->task_sets[i] || *end != ':' || id < 0 || id >= tasks)
            return gd_fail(err, "--task-set '%s': not ID:SECTION.key=VALUE with ID in 0..%d",
                           s->task_sets[i], tasks - 1);
    }
    const char *device = s->device ? s->device : s->per_gpu ? "cuda:0" : "cuda:all";
    *array_size = tasks;
    gd_text_printf(t, "#!/bin/sh\n");
    gd_text_printf(t, "# gpudissect fleet job: written by `gpudissect fleet submit`.\n");
    gd_text_printf(t, "# %d array tasks, one per %s; each characterizes %s and writes\n", tasks,
                   s->per_gpu ? "GPU" : "node", device);
    gd_text_printf(t, "# %s/<host>-<gpu>/ (atomically: built under .partial-JOB-TASK, renamed).\n",
                   s->out_dir);
    gd_text_printf(t, "#SBATCH --job-name=gpudissect-fleet\n");
    gd_text_printf(t, "#SBATCH --array=0-%d\n", tasks - 1);
    gd_text_printf(t, "#SBATCH --nodes=1\n#SBATCH --ntasks=1\n");
    gd_text_printf(t, "#SBATCH --output=%s/slurm/%%A_%%a.out\n", s->out_dir);
    if (s->partition)
        gd_text_printf(t, "#SBATCH --partition=%s\n", s->partition);
    if (s->per_gpu)
        gd_text_printf(t, "#SBATCH --gpus-per-task=1\n");
    else if (s->gpus_per_node > 0)
        gd_text_printf(t, "#SBATCH --gres=gpu:%d\n", s->gpus_per_node);
    for (size_t i = 0; i < s->sbatch_arg_count; i++)
        gd_text_printf(t, "#SBATCH %s\n", s->sbatch_args[i]);
    gd_text_printf(t, "\nexec");
    shell_word(t, s->exe);
    gd_text_printf(t, " fleet task");
    shell_word(t, s->out_dir);
    for (size_t i = 0; i < s->task_set_count; i++) {
        gd_text_printf(t, " --task-set");
        shell_word(t, s->task_sets[i]);
    }
    gd_text_printf(t, " -- characterize --quiet --suite");
    shell_word(t, s->suite);
    gd_text_printf(t, " --device");
    shell_word(t, device);
    for (size_t i = 0; i < s->set_count; i++) {
        gd_text_printf(t, " --set");
        shell_word(t, s->sets[i]);
    }
    gd_text_printf(t, "\n");
    return t->failed ? gd_fail(err, "out of memory") : 0;
}

/* ---- running Slurm's tools ----------------------------------------------------- */

/* Runs argv (PATH search), its stdout and stderr into out (NUL-terminated,
 * truncated); *status gets its exit status (127: not found).  -1 with err only
 * when it cannot be started at all. */
static int run_tool(char *const argv[], char *out, size_t size, int *status, gd_err *err)
{
    int fds[2];
    if (pipe(fds) != 0)
        return gd_fail(err, "pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return gd_fail(err, "fork for %s: %s", argv[0], strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[1]);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(fds[1]);
    size_t n = 0;
    ssize_t got;
    char sink[4096];
    while ((got = read(fds[0], n + 1 < size ? out + n : sink,
                       n + 1 < size ? size - 1 - n : sizeof sink)) != 0) {
        if (got < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (n + 1 < size)
            n += (size_t)got;
    }
    out[n] = 0;
    close(fds[0]);
    int w;
    while (waitpid(pid, &w, 0) < 0 && errno == EINTR)
        ;
    *status = WIFEXITED(w) ? WEXITSTATUS(w) : 128 + WTERMSIG(w);
    return 0;
}

static void last_line(const char *text, char *out, size_t size)
{
    const char *end = text + strlen(text);
    while (end > text && (end[-1] == '\n' || end[-1] == '\r'))
        end--;
    const char *start = end;
    while (start > text && start[-1] != '\n')
        start--;
    snprintf(out, size, "%.*s", (int)(end - start), start);
}

int gd_fleet_sbatch(const char *script_path, char *job_id, size_t size, gd_err *err)
{
    char *argv[] = {"sbatch", "--parsable", (char *)script_path, NULL};
    char *out = malloc(TOOL_OUTPUT_BYTES);
    int status;
    if (!out)
        return gd_fail(err, "out of memory");
    int rc = run_tool(argv, out, TOOL_OUTPUT_BYTES, &status, err);
    char line[512];
    last_line(out, line, sizeof line);
    if (rc == 0 && status == 127)
        rc = gd_fail(err, "sbatch not found: is this a Slurm cluster (Debian: slurm-client)?");
    else if (rc == 0 && status != 0)
        rc = gd_fail(err, "sbatch %s failed (exit %d): %s", script_path, status, line);
    else if (rc == 0) {
        /* --parsable: "JOBID" or "JOBID;CLUSTER" */
        line[strcspn(line, ";")] = 0;
        if (!line[0] || strspn(line, "0123456789") != strlen(line))
            rc = gd_fail(err, "sbatch printed '%s', not a job id", line);
        else
            snprintf(job_id, size, "%s", line);
    }
    free(out);
    return rc;
}

static void count_state(gd_fleet_job_state *st, const char *state)
{
    if (!strcmp(state, "PENDING") || !strcmp(state, "CONFIGURING")) {
        st->pending++;
        st->active++;
    } else if (!strcmp(state, "RUNNING") || !strcmp(state, "COMPLETING")) {
        st->running++;
        st->active++;
    } else if (!strcmp(state, "COMPLETED")) {
        st->completed++;
    } else if (!strcmp(state, "FAILED") || !strcmp(state, "TIMEOUT") ||
               !strcmp(state, "CANCELLED") || !strcmp(state, "NODE_FAIL") ||
               !strcmp(state, "OUT_OF_MEMORY") || !strcmp(state, "BOOT_FAIL")) {
        st->failed++;
    } else {
        st->other++;
        st->active++; /* REQUEUED, SUSPENDED, ...: not done */
    }
}

static void add_detail(gd_fleet_job_state *st, const char *task, const char *state)
{
    size_t len = strlen(st->detail);
    snprintf(st->detail + len, sizeof st->detail - len, "%s%s:%s", len ? " " : "", task, state);
}

int gd_fleet_job_query(const char *job_id, gd_fleet_job_state *st, gd_err *err)
{
    memset(st, 0, sizeof *st);
    char *out = malloc(TOOL_OUTPUT_BYTES);
    if (!out)
        return gd_fail(err, "out of memory");
    int status, rc = -1;
    /* finished tasks first (scontrol, one line per array task), then the live
     * ones from squeue override them */
    char *show[] = {"scontrol", "-o", "show", "job", (char *)job_id, NULL};
    if (run_tool(show, out, TOOL_OUTPUT_BYTES, &status, err) != 0)
        goto done;
    if (status == 127) {
        gd_fail(err, "scontrol not found: is this a Slurm cluster (Debian: slurm-client)?");
        goto done;
    }
    char done_tasks[1024] = "";
    if (status == 0) {
        for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
            char *t = strstr(line, "ArrayTaskId="), *s = strstr(line, "JobState=");
            if (!s)
                continue;
            char task[32] = "-", state[32] = "";
            if (t)
                sscanf(t + 12, "%31[^ ]", task);
            sscanf(s + 9, "%31[^ ]", state);
            if (!strcmp(state, "PENDING") || !strcmp(state, "RUNNING") ||
                !strcmp(state, "COMPLETING"))
                continue; /* squeue's below */
            count_state(st, state);
            add_detail(st, task, state);
            size_t len = strlen(done_tasks);
            snprintf(done_tasks + len, sizeof done_tasks - len, " %s ", task);
        }
    }
    char *queue[] = {"squeue", "-h", "-r", "-j", (char *)job_id, "-o", "%K|%T", NULL};
    if (run_tool(queue, out, TOOL_OUTPUT_BYTES, &status, err) != 0)
        goto done;
    if (status == 0) {
        for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
            char task[32], state[32];
            if (sscanf(line, "%31[^|]|%31s", task, state) != 2)
                continue;
            count_state(st, state);
            add_detail(st, task, state);
        }
    } else if (st->completed + st->failed + st->other == 0) {
        /* the controller forgot the job (MinJobAge): the accounting database,
         * where the cluster has one, still knows its tasks ("JOB_TASK|STATE") */
        char squeue_line[512];
        last_line(out, squeue_line, sizeof squeue_line);
        char *acct[] = {"sacct", "-n", "-P", "-X", "-j", (char *)job_id, "-o", "JobID,State", NULL};
        if (run_tool(acct, out, TOOL_OUTPUT_BYTES, &status, err) != 0)
            goto done;
        if (status != 0)
            out[0] = 0; /* no accounting database: nothing to count */
        for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
            char id[64], state[32];
            if (sscanf(line, "%63[^|]|%31s", id, state) != 2)
                continue;
            const char *under = strchr(id, '_');
            count_state(st, state);
            add_detail(st, under ? under + 1 : id, state);
        }
        if (st->completed + st->failed + st->other + st->active == 0) {
            gd_fail(err, "job %s: neither squeue (%s) nor sacct knows it", job_id, squeue_line);
            goto done;
        }
    }
    rc = 0;
done:
    free(out);
    return rc;
}

/* ---- one array task ------------------------------------------------------------ */

/* DIR/<host>-<gpu> for a device the node run finished. */
static void card_name(const gd_node_device *d, const char *host, const char *task, char *out,
                      size_t size)
{
    char gpu[160];
    if (!strncmp(d->spec, "cuda:", 5) && d->pci_bus_id[0]) {
        snprintf(gpu, sizeof gpu, "%s", d->pci_bus_id);
        for (char *p = gpu; *p; p++)
            if (*p == ':')
                *p = '-';
    } else if (task) {
        snprintf(gpu, sizeof gpu, "%s-a%s", d->dir_name, task);
    } else {
        snprintf(gpu, sizeof gpu, "%s", d->dir_name);
    }
    snprintf(out, size, "%s-%s", host, gpu);
}

/* "%a" replaced by the task id. */
static char *substitute_task(const char *arg, const char *task)
{
    size_t len = strlen(arg) + 1;
    for (const char *p = strstr(arg, "%a"); p; p = strstr(p + 2, "%a"))
        len += strlen(task);
    char *out = malloc(len), *o = out;
    if (!out)
        return NULL;
    for (const char *p = arg; *p;) {
        if (p[0] == '%' && p[1] == 'a') {
            o += sprintf(o, "%s", task);
            p += 2;
        } else {
            *o++ = *p++;
        }
    }
    *o = 0;
    return out;
}

int gd_fleet_task(const char *dir, const char *const *task_sets, size_t task_set_count, int argc,
                  char **argv, FILE *progress, gd_err *err)
{
    if (argc < 1)
        return gd_fail(err, "fleet task: no command after --");
    const char *task = getenv("SLURM_ARRAY_TASK_ID");
    const char *job = getenv("SLURM_ARRAY_JOB_ID");
    if (!job)
        job = getenv("SLURM_JOB_ID");
    const char *task_or_0 = task ? task : "0";
    char host[256];
    gd_node_host_name(host, sizeof host);

    /* the command's arguments: %a substituted, --device taken out, the task's
     * own --set values added */
    char *args[MAX_TASK_ARGS];
    size_t n = 0;
    const char *device = NULL;
    int rc = -1;
    for (int i = 1; i < argc && n + 2 < MAX_TASK_ARGS; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            device = argv[++i];
            continue;
        }
        if (!strcmp(argv[i], "--out") && i + 1 < argc) {
            i++;
            continue;
        }
        if (!(args[n] = substitute_task(argv[i], task_or_0)))
            goto out;
        n++;
    }
    for (size_t i = 0; i < task_set_count && n + 2 < MAX_TASK_ARGS; i++) {
        const char *colon = strchr(task_sets[i], ':');
        if (!colon || atol(task_sets[i]) != atol(task_or_0))
            continue;
        args[n++] = strdup("--set");
        args[n++] = strdup(colon + 1);
    }
    if (!device) {
        gd_fail(err, "fleet task: the command has no --device");
        goto out;
    }
    char exe[1024];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) {
        gd_fail(err, "cannot read /proc/self/exe");
        goto out;
    }
    exe[len] = 0;
    gd_node_device devices[GD_NODE_MAX_DEVICES];
    size_t count;
    if (gd_node_expand(device, devices, GD_NODE_MAX_DEVICES, &count, err) != 0)
        goto out;
    char partial[1100], slurm_dir[1100];
    snprintf(partial, sizeof partial, "%s/.partial-%s-%s", dir, job ? job : "local", task_or_0);
    snprintf(slurm_dir, sizeof slurm_dir, "%s/slurm", dir);
    if (gd_mkdirs(slurm_dir, err) != 0)
        goto out;
    gd_node_run_opts opts = {.exe = exe, .command = argv[0], .args = args, .arg_count = n,
                             .out_dir = partial, .progress = progress};
    int failed = gd_node_run(&opts, devices, count, err);
    if (failed < 0)
        goto out;
    for (size_t i = 0; i < count; i++) {
        char from[1300], name[512], to[1400];
        snprintf(from, sizeof from, "%s/%s", partial, devices[i].dir_name);
        card_name(&devices[i], host, task, name, sizeof name);
        snprintf(to, sizeof to, "%s/%s", dir, name);
        struct stat st;
        if (stat(to, &st) == 0) {
            char old[1500];
            snprintf(old, sizeof old, "%s.replaced-%s-%s", to, job ? job : "local", task_or_0);
            if (rename(to, old) != 0) {
                gd_fail(err, "rename %s -> %s: %s", to, old, strerror(errno));
                goto out;
            }
        }
        if (rename(from, to) != 0) {
            gd_fail(err, "rename %s -> %s: %s", from, to, strerror(errno));
            goto out;
        }
        if (progress)
            fprintf(progress, "%s -> %s\n", devices[i].spec, to);
    }
    /* the task's node.json goes beside the Slurm logs; the partial dir is empty then */
    char node_from[1200], node_to[1300];
    snprintf(node_from, sizeof node_from, "%s/node.json", partial);
    snprintf(node_to, sizeof node_to, "%s/node-%s_%s.json", slurm_dir, job ? job : "local",
             task_or_0);
    if (rename(node_from, node_to) != 0 || rmdir(partial) != 0) {
        gd_fail(err, "cleaning up %s: %s", partial, strerror(errno));
        goto out;
    }
    rc = failed;
out:
    for (size_t i = 0; i < n; i++)
        free(args[i]);
    return rc;
}
