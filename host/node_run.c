/* node_run.c -- every GPU of one node, one child process each.
 *
 * Why processes and not threads: one CUDA context per process is what a card's
 * owner runs in production, a driver fault (an ECC error, a fallen-off-the-bus
 * card) kills only its own process, and every child is the ordinary
 * single-device command -- `characterize --device cuda:3 --out RUN/cuda3` --
 * so a node run measures exactly what a one-card run measures, with the same
 * code path and the same files.  The children are the same binary
 * (/proc/self/exe), started with fork + exec after binding (node_bind.c).
 *
 * The run:
 *   1. expand the device list (cuda:all asks the driver; PCI bus ids from it);
 *   2. RUN/<device>/ for each; the child's stdout and stderr go to
 *      RUN/<device>/stdout.log and stderr.log (its progress, its error line);
 *   3. start every child at once (the GPUs are independent; the host's cores
 *      are what they share, which the binding divides);
 *   4. wait for all; a child that fails is recorded, never stops the others;
 *   5. RUN/<device>/status.json (outcome, error line, binding, PCI bus id,
 *      CUDA_VISIBLE_DEVICES entry, MIG instance, Slurm job) -- also added to
 *      the child's meta.json as "node_run" -- and RUN/node.json, all atomic.
 *
 * Tracing a result to a physical card: cuda:N is an ordinal *after*
 * CUDA_VISIBLE_DEVICES, which may list indices, GPU UUIDs or MIG instances
 * ("MIG-<uuid>"); the entry each ordinal maps to is recorded with the PCI bus
 * id the driver reports (the physical slot).
 */
#include "host/node_run.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/results.h"
#include "host/cuda_device.h"

#define ERROR_PREFIX "gpudissect: error: "
#define SIGNAL_EXIT_BASE 128

int gd_node_spec_is_multi(const char *spec)
{
    return spec && (strchr(spec, ',') || !strcmp(spec, "cuda:all"));
}

void gd_node_host_name(char *buf, size_t size)
{
    const char *slurm = getenv("SLURMD_NODENAME");
    if (slurm && *slurm) {
        snprintf(buf, size, "%s", slurm);
        return;
    }
    if (gethostname(buf, size) != 0 || !buf[0])
        snprintf(buf, size, "localhost");
    buf[size - 1] = 0;
}

/* The idx-th entry of CUDA_VISIBLE_DEVICES, or "" when it is unset or shorter. */
static void visible_entry(int idx, char *out, size_t size)
{
    out[0] = 0;
    const char *env = getenv("CUDA_VISIBLE_DEVICES");
    if (!env)
        return;
    const char *p = env;
    for (int i = 0; *p; i++) {
        size_t len = strcspn(p, ",");
        if (i == idx) {
            snprintf(out, size, "%.*s", (int)len, p);
            return;
        }
        p += len;
        if (*p == ',')
            p++;
    }
}

static int add_device(gd_node_device *devices, size_t max, size_t *count, const char *spec,
                      gd_err *err)
{
    if (*count == max)
        return gd_fail(err, "--device: more than %zu devices", max);
    gd_node_device *d = &devices[*count];
    memset(d, 0, sizeof *d);
    snprintf(d->spec, sizeof d->spec, "%s", spec);
    /* the directory: the spec with ':' and other punctuation dropped or dashed */
    char name[128];
    size_t n = 0;
    for (const char *p = spec; *p && n + 1 < sizeof name; p++) {
        if (!strncmp(spec, "cuda:", 5) && *p == ':')
            continue;
        int ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                 (*p >= '0' && *p <= '9') || *p == '.' || *p == '_';
        name[n++] = ok ? *p : '-';
    }
    name[n] = 0;
    int repeat = 1;
    for (size_t i = 0; i < *count; i++)
        if (!strcmp(devices[i].spec, spec))
            repeat++;
    if (repeat > 1)
        snprintf(d->dir_name, sizeof d->dir_name, "%s-%d", name, repeat);
    else
        snprintf(d->dir_name, sizeof d->dir_name, "%s", name);
    if (!strncmp(spec, "cuda:", 5))
        visible_entry(atoi(spec + 5), d->cuda_visible, sizeof d->cuda_visible);
    (*count)++;
    return 0;
}

int gd_node_expand(const char *spec, gd_node_device *devices, size_t max, size_t *count,
                   gd_err *err)
{
    *count = 0;
    char prefix[16] = "";
    gd_device_info infos[GD_NODE_MAX_DEVICES];
    int cuda_count = -1; /* not asked yet */
    gd_err cuda_err = {{0}};
    size_t spec_len = strlen(spec);
    if (spec_len == 0 || spec[spec_len - 1] == ',')
        return gd_fail(err, "--device '%s': an empty item", spec);
    const char *p = spec;
    while (*p) {
        size_t len = strcspn(p, ",");
        char item[128];
        if (len == 0 || len >= sizeof item)
            return gd_fail(err, "--device '%s': an empty or over-long item", spec);
        snprintf(item, sizeof item, "%.*s", (int)len, p);
        p += len + (p[len] == ',');
        const char *colon = strchr(item, ':');
        char full[160];
        if (colon) {
            snprintf(prefix, sizeof prefix, "%.*s", (int)(colon - item + 1), item);
            snprintf(full, sizeof full, "%s", item);
        } else if (prefix[0]) {
            snprintf(full, sizeof full, "%s%s", prefix, item); /* cuda:0,2,5 */
        } else {
            return gd_fail(err, "--device '%s': '%s' is neither sim:ARCH nor cuda:N", spec, item);
        }
        if (strncmp(full, "cuda:", 5) && strncmp(full, "sim:", 4))
            return gd_fail(err, "--device '%s': '%s' is neither sim:ARCH nor cuda:N", spec, full);
        if (!strncmp(full, "cuda:", 5) && cuda_count < 0 &&
            cuda_device_list(infos, GD_NODE_MAX_DEVICES, &cuda_count, &cuda_err) != 0)
            cuda_count = 0;
        if (!strcmp(full, "cuda:all")) {
            if (cuda_count == 0)
                return gd_fail(err, "--device cuda:all: %s",
                               cuda_err.msg[0] ? cuda_err.msg : "the driver reports no device");
            for (int i = 0; i < cuda_count; i++) {
                char one[32];
                snprintf(one, sizeof one, "cuda:%d", i);
                if (add_device(devices, max, count, one, err) != 0)
                    return -1;
                snprintf(devices[*count - 1].pci_bus_id, sizeof devices[0].pci_bus_id, "%s",
                         infos[i].pci_bus_id);
            }
            continue;
        }
        if (!strncmp(full, "cuda:", 5)) {
            char *end;
            long ordinal = strtol(full + 5, &end, 10);
            if (end == full + 5 || *end || ordinal < 0)
                return gd_fail(err, "--device '%s': '%s' is not cuda:N or cuda:all", spec, full);
            if (add_device(devices, max, count, full, err) != 0)
                return -1;
            /* an ordinal the driver does not have is the child's error to report */
            if (ordinal < cuda_count)
                snprintf(devices[*count - 1].pci_bus_id, sizeof devices[0].pci_bus_id, "%s",
                         infos[ordinal].pci_bus_id);
            continue;
        }
        if (add_device(devices, max, count, full, err) != 0)
            return -1;
    }
    if (*count == 0)
        return gd_fail(err, "--device '%s' names no device", spec);
    return 0;
}

/* ---- one child ------------------------------------------------------------- */

static void child_exec(const gd_node_run_opts *o, gd_node_binder *binder, const gd_node_device *d,
                       const char *dir)
{
    /* only async-signal-safe-ish work from here on: we are a fork of a
     * single-threaded parent, so stdio and malloc are usable */
    char path[1200];
    snprintf(path, sizeof path, "%s/stdout.log", dir);
    int out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    snprintf(path, sizeof path, "%s/stderr.log", dir);
    int errfd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int in = open("/dev/null", O_RDONLY);
    if (out < 0 || errfd < 0 || in < 0)
        _exit(126);
    dup2(in, 0);
    dup2(out, 1);
    dup2(errfd, 2);
    gd_err err;
    if (gd_node_bind_apply(binder, &d->binding, &err) != 0) {
        dprintf(2, ERROR_PREFIX "%s\n", err.msg);
        _exit(1);
    }
    char **argv = calloc(o->arg_count + 8, sizeof *argv);
    if (!argv)
        _exit(126);
    size_t n = 0;
    argv[n++] = (char *)o->exe;
    argv[n++] = (char *)o->command;
    for (size_t i = 0; i < o->arg_count; i++)
        argv[n++] = o->args[i];
    argv[n++] = "--device";
    argv[n++] = (char *)d->spec;
    argv[n++] = "--out";
    argv[n++] = (char *)dir;
    argv[n] = NULL;
    execv(o->exe, argv);
    dprintf(2, ERROR_PREFIX "exec %s: %s\n", o->exe, strerror(errno));
    _exit(127);
}

/* The child's error line from its stderr.log (the last "gpudissect: error:"). */
static void read_child_error(const char *dir, gd_node_device *d)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/stderr.log", dir);
    FILE *f = fopen(path, "r");
    d->error[0] = 0;
    if (f) {
        char line[GD_ERR_MSG_BYTES + 64];
        while (fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = 0;
            if (!strncmp(line, ERROR_PREFIX, strlen(ERROR_PREFIX)))
                snprintf(d->error, sizeof d->error, "%s", line + strlen(ERROR_PREFIX));
        }
        fclose(f);
    }
    if (d->exit_status != 0 && !d->error[0]) {
        if (d->exit_status > SIGNAL_EXIT_BASE)
            snprintf(d->error, sizeof d->error, "killed by signal %d (%s)",
                     d->exit_status - SIGNAL_EXIT_BASE, strsignal(d->exit_status - SIGNAL_EXIT_BASE));
        else
            snprintf(d->error, sizeof d->error, "exit status %d, no error line (see stderr.log)",
                     d->exit_status);
    }
}

static json_t *str_or_null(const char *s)
{
    return s && *s ? json_string(s) : json_null();
}

/* The Slurm job this runs in, or null. */
static json_t *slurm_json(void)
{
    const char *job = getenv("SLURM_JOB_ID");
    if (!job)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "job_id", json_string(job));
    json_object_set_new(o, "array_job_id", str_or_null(getenv("SLURM_ARRAY_JOB_ID")));
    json_object_set_new(o, "array_task_id", str_or_null(getenv("SLURM_ARRAY_TASK_ID")));
    json_object_set_new(o, "node", str_or_null(getenv("SLURMD_NODENAME")));
    json_object_set_new(o, "partition", str_or_null(getenv("SLURM_JOB_PARTITION")));
    return o;
}

static json_t *device_status_json(const gd_node_device *d, const char *host)
{
    json_t *o = json_object();
    json_object_set_new(o, "device", json_string(d->spec));
    json_object_set_new(o, "dir", json_string(d->dir_name));
    json_object_set_new(o, "host", json_string(host));
    json_object_set_new(o, "status", json_string(d->exit_status == 0 ? "ok" : "failed"));
    json_object_set_new(o, "exit_status", json_integer(d->exit_status));
    json_object_set_new(o, "error", str_or_null(d->error));
    json_object_set_new(o, "pci_bus_id", str_or_null(d->pci_bus_id));
    json_object_set_new(o, "cuda_visible_devices", str_or_null(getenv("CUDA_VISIBLE_DEVICES")));
    json_object_set_new(o, "cuda_visible_entry", str_or_null(d->cuda_visible));
    json_object_set_new(o, "mig_instance",
                        !strncmp(d->cuda_visible, "MIG-", 4) ? json_string(d->cuda_visible)
                                                              : json_null());
    json_t *b = json_object();
    json_object_set_new(b, "bound", json_boolean(d->binding.bound));
    json_object_set_new(b, "cpuset", str_or_null(d->binding.cpuset));
    json_object_set_new(b, "nodeset", str_or_null(d->binding.nodeset));
    json_object_set_new(b, "note", json_string(d->binding.note));
    json_object_set_new(o, "binding", b);
    json_object_set_new(o, "slurm", slurm_json());
    json_object_set_new(o, "start_time", json_string(d->start_time));
    json_object_set_new(o, "end_time", json_string(d->end_time));
    return o;
}

/* status.json, and "node_run" in the child's meta.json when it wrote one. */
static int write_device_status(const gd_node_device *d, const char *dir, const char *host,
                               gd_err *err)
{
    json_t *status = device_status_json(d, host);
    char path[1200];
    snprintf(path, sizeof path, "%s/status.json", dir);
    int rc = gd_write_json_atomic(path, status, err);
    snprintf(path, sizeof path, "%s/meta.json", dir);
    json_t *meta = rc == 0 && access(path, R_OK) == 0 ? gd_json_load(path, JSON_PRESERVE_ORDER, NULL)
                                                      : NULL;
    if (meta && json_is_object(meta)) {
        json_object_set(meta, "node_run", status);
        rc = gd_write_json_atomic(path, meta, err);
    }
    json_decref(meta);
    json_decref(status);
    return rc;
}

int gd_node_run(const gd_node_run_opts *o, gd_node_device *devices, size_t count, gd_err *err)
{
    if (gd_mkdirs(o->out_dir, err) != 0)
        return -1;
    char host[256];
    gd_node_host_name(host, sizeof host);
    gd_node_binder *binder = NULL;
    int any_pci = 0;
    for (size_t i = 0; i < count; i++)
        any_pci |= devices[i].pci_bus_id[0] != 0;
    gd_err bind_err;
    if (any_pci && gd_node_binder_open(&binder, &bind_err) != 0)
        binder = NULL; /* each device's note says it was not bound */
    for (size_t i = 0; i < count; i++)
        gd_node_bind_plan(binder, devices[i].spec, devices[i].pci_bus_id, &devices[i].binding);

    char dir[1100];
    size_t running = 0;
    int rc = 0;
    for (size_t i = 0; i < count; i++) {
        gd_node_device *d = &devices[i];
        snprintf(dir, sizeof dir, "%s/%s", o->out_dir, d->dir_name);
        d->pid = -1;
        if (gd_mkdirs(dir, err) != 0) {
            rc = -1;
            break;
        }
        gd_iso8601_now(d->start_time, sizeof d->start_time);
        fflush(NULL); /* nothing buffered is written twice by the child */
        pid_t pid = fork();
        if (pid < 0) {
            rc = gd_fail(err, "fork for %s: %s", d->spec, strerror(errno));
            break;
        }
        if (pid == 0)
            child_exec(o, binder, d, dir);
        d->pid = pid;
        running++;
    }
    /* wait for every child started, even when a later start failed */
    while (running > 0) {
        int wstatus;
        pid_t pid = waitpid(-1, &wstatus, 0);
        if (pid < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (size_t i = 0; i < count; i++) {
            gd_node_device *d = &devices[i];
            if (d->pid != pid)
                continue;
            running--;
            d->exit_status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus)
                                                : SIGNAL_EXIT_BASE + WTERMSIG(wstatus);
            gd_iso8601_now(d->end_time, sizeof d->end_time);
            snprintf(dir, sizeof dir, "%s/%s", o->out_dir, d->dir_name);
            read_child_error(dir, d);
            if (o->progress)
                fprintf(o->progress, "%s: %s%s%s\n", d->spec, d->exit_status ? "failed" : "done",
                        d->error[0] ? ": " : "", d->error);
        }
    }
    gd_node_binder_close(binder);
    if (rc != 0)
        return -1;

    int failed = 0;
    json_t *node = json_object();
    json_object_set_new(node, "host", json_string(host));
    json_object_set_new(node, "command", json_string(o->command));
    json_object_set_new(node, "cuda_visible_devices",
                        str_or_null(getenv("CUDA_VISIBLE_DEVICES")));
    json_t *list = json_array();
    for (size_t i = 0; i < count; i++) {
        gd_node_device *d = &devices[i];
        failed += d->exit_status != 0;
        snprintf(dir, sizeof dir, "%s/%s", o->out_dir, d->dir_name);
        if (write_device_status(d, dir, host, err) != 0) {
            json_decref(list);
            json_decref(node);
            return -1;
        }
        json_array_append_new(list, device_status_json(d, host));
    }
    json_object_set_new(node, "devices", list);
    json_object_set_new(node, "failed", json_integer(failed));
    snprintf(dir, sizeof dir, "%s/node.json", o->out_dir);
    rc = gd_write_json_atomic(dir, node, err);
    json_decref(node);
    return rc != 0 ? -1 : failed;
}
