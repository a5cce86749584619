/* sweep_workers.c -- the points of a sim sweep as independent simulations, on every core.
 *
 * A simulated GPU carries state from one launch to the next: its cycle
 * counter, the L2 and instruction caches, the noise generator, where the
 * allocator puts the next buffer.  Run one after the other on one device, a
 * point's result therefore depends on every point measured before it, and
 * points cannot be spread over cores without changing them.  So on a sim
 * device each point runs in a child process forked from the device as the
 * sweep found it: the child measures the point (gd_runner_measure_point) and
 * writes the result to a temporary file, the parent reads it back and adds the
 * point to the curve (gd_runner_add_point) strictly in sweep order -- the CSV,
 * the progress lines, meta.json's kernel records and the device's counters come
 * out the same whether one worker or sixteen ran the points.  The parent's
 * device never runs a point, so every point of every sweep of a run starts from
 * the same device state: the one it was opened (and configured) with.
 *
 * Serial instead, one device carried from point to point (runner->chained, or
 * `--chained` on the command line): a cuda device (one GPU, whose timing other
 * processes must not disturb, and a CUDA context does not survive fork), a sim
 * device with an LSU trace hook (the trace lives in the device), and on demand,
 * to reproduce runs made before points were independent.
 *
 * Checkpoints (host/checkpoint.h): a worker's point is appended to the step's
 * checkpoint as soon as the worker is reaped, not when its turn to enter the
 * curve comes, so an interruption keeps every point that finished, in
 * whatever order.  On --resume a point the checkpoint has is not forked at
 * all: it enters the curve at its turn from the checkpoint; a point that runs
 * on the parent's device is simulated again (gd_runner_measure_rebuilding) so
 * the workers after it fork from the state they forked from before.
 *
 * What a child sends: its exit status and error, the point (x, the clock
 * column, each series' name and samples -- the summaries are recomputed from
 * them, as gd_summarize is deterministic -- and the counter deltas), the
 * runner's launch counters, the kernel record its launch made, and the sim
 * engine's counters over the point, which the parent adds to its own engine so
 * that meta.json's run totals are those of a serial run.
 */
#include "host/runner.h"

#include <errno.h>
#include <hwloc.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/checkpoint.h"
#include "host/interrupt.h"
#include "host/job_tokens.h"
#include "host/kernel_record.h"
#include "sim/engine.h"

/* The cores hwloc reports (at least 1), looked up once per process. */
static unsigned host_cores(void)
{
    static unsigned cores;
    if (cores)
        return cores;
    hwloc_topology_t topo;
    int n = 0;
    if (hwloc_topology_init(&topo) == 0) {
        if (hwloc_topology_load(topo) == 0)
            n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
        hwloc_topology_destroy(topo);
    }
    cores = n > 0 ? (unsigned)n : 1;
    return cores;
}

unsigned gd_runner_default_jobs(void)
{
    return host_cores();
}

int gd_parse_jobs_option(const char *text, unsigned *jobs)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (!*text || *end || errno || v < 1 || v > GD_MAX_JOBS || text[0] == '-')
        return -1;
    *jobs = (unsigned)v;
    return 0;
}

/* ------------------------------------------------------------------------- */
/* The child's report                                                        */

typedef struct worker_header {
    int rc;
    char err[sizeof(((gd_err *)0)->msg)];
    uint64_t x;
    double sm_clock_mhz;
    unsigned series_count;
    size_t counter_count;
    size_t launches, warmup_launches, split_points;
    size_t record_bytes;      /* the kernel record, JSON text (0: none) */
    sim_stats stats;          /* the engine's counters over the point */
} worker_header;

static int put(FILE *f, const void *p, size_t n)
{
    return n == 0 || fwrite(p, n, 1, f) == 1 ? 0 : -1;
}

static int get(FILE *f, void *p, size_t n)
{
    return n == 0 || fread(p, n, 1, f) == 1 ? 0 : -1;
}

/* In the child: measure point x from the inherited device, write the report. */
static int child_measure(gd_runner *r, const gd_curve *curve, uint64_t x, FILE *out)
{
    sim_engine *e = sim_device_engine(r->dev);
    sim_engine_salt_noise(e, x);
    sim_stats before = e->stats;
    size_t launches = r->launches, warmups = r->warmup_launches, splits = r->split_points;
    json_t *records = json_array();
    json_t *theirs = r->kernels;
    r->kernels = records; /* the record of this point's launch alone */
    r->progress = NULL;
    worker_header h;
    memset(&h, 0, sizeof h);
    gd_err err = {{0}};
    gd_point point;
    h.rc = gd_runner_measure_point(r, curve, x, &point, &err);
    r->kernels = theirs;
    char *record = NULL;
    if (h.rc == 0 && records && json_array_size(records) > 0)
        record = json_dumps(json_array_get(records, 0), JSON_COMPACT);
    json_decref(records);
    snprintf(h.err, sizeof h.err, "%s", err.msg);
    if (h.rc == 0) {
        h.x = point.x;
        h.sm_clock_mhz = point.sm_clock_mhz;
        h.series_count = point.series_count;
        h.counter_count = point.counters.count;
        h.launches = r->launches - launches;
        h.warmup_launches = r->warmup_launches - warmups;
        h.split_points = r->split_points - splits;
        h.record_bytes = record ? strlen(record) : 0;
        sim_stats_delta(&e->stats, &before, &h.stats);
    }
    int rc = put(out, &h, sizeof h);
    for (unsigned s = 0; h.rc == 0 && rc == 0 && s < point.series_count; s++) {
        const gd_point_series *ps = &point.series[s];
        rc = put(out, ps->name, sizeof ps->name) || put(out, &ps->summary.count, sizeof(size_t)) ||
             put(out, ps->samples, ps->summary.count * sizeof(double));
    }
    for (size_t i = 0; h.rc == 0 && rc == 0 && i < point.counters.count; i++) {
        gd_counter c; /* zeroed: no uninitialised bytes after the name reach the file */
        memset(&c, 0, sizeof c);
        snprintf(c.name, sizeof c.name, "%s", point.counters.items[i].name);
        c.value = point.counters.items[i].value;
        c.gauge = point.counters.items[i].gauge;
        rc = put(out, &c, sizeof c);
    }
    if (h.rc == 0 && rc == 0)
        rc = put(out, record, h.record_bytes);
    if (fflush(out) != 0)
        rc = -1;
    free(record);
    if (h.rc == 0)
        gd_point_free(&point);
    return rc;
}

/* In the parent: read a child's report into `point` (and the rest into h). */
static int read_report(FILE *in, worker_header *h, gd_point *point, char **record, gd_err *err)
{
    *record = NULL;
    memset(point, 0, sizeof *point);
    rewind(in);
    if (get(in, h, sizeof *h) != 0)
        return gd_fail(err, "sweep worker: short report");
    if (h->rc != 0)
        return 0;
    if (h->series_count > GD_PROBE_MAX_SERIES)
        return gd_fail(err, "sweep worker: %u series in a report", h->series_count);
    point->x = h->x;
    point->sm_clock_mhz = h->sm_clock_mhz;
    for (unsigned s = 0; s < h->series_count; s++) {
        gd_point_series *ps = &point->series[s];
        size_t count;
        if (get(in, ps->name, sizeof ps->name) != 0 || get(in, &count, sizeof count) != 0)
            goto short_report;
        ps->name[sizeof ps->name - 1] = 0;
        ps->samples = malloc((count ? count : 1) * sizeof(double));
        point->series_count = s + 1;
        if (!ps->samples)
            goto oom;
        if (get(in, ps->samples, count * sizeof(double)) != 0)
            goto short_report;
        if (gd_summarize(ps->samples, count, &ps->summary) != 0)
            goto oom;
    }
    for (size_t i = 0; i < h->counter_count; i++) {
        gd_counter c;
        if (get(in, &c, sizeof c) != 0)
            goto short_report;
        c.name[sizeof c.name - 1] = 0;
        if ((c.gauge ? gd_counter_list_add_gauge(&point->counters, c.name, c.value)
                     : gd_counter_list_add(&point->counters, c.name, c.value)) != 0)
            goto oom;
    }
    if (h->record_bytes) {
        *record = malloc(h->record_bytes + 1);
        if (!*record)
            goto oom;
        if (get(in, *record, h->record_bytes) != 0)
            goto short_report;
        (*record)[h->record_bytes] = 0;
    }
    return 0;
short_report:
    gd_point_free(point);
    free(*record);
    *record = NULL;
    return gd_fail(err, "sweep worker: short report");
oom:
    gd_point_free(point);
    free(*record);
    *record = NULL;
    return gd_fail(err, "out of memory reading a sweep worker's report");
}

/* The child's kernel record, entered as its launch would have in a serial run. */
static int replay_record(gd_runner *r, const gd_curve *curve, const char *text, gd_err *err)
{
    if (!text || !r->kernels)
        return 0;
    json_error_t jerr;
    json_t *row = json_loads(text, 0, &jerr);
    if (!row)
        return gd_fail(err, "sweep worker: kernel record: %s", jerr.text);
    gd_kernel k;
    memset(&k, 0, sizeof k);
    snprintf(k.entry, sizeof k.entry, "%s", json_string_value(json_object_get(row, "entry")));
#define ROW_INT(key) json_integer_value(json_object_get(row, key))
    k.carveout_percent = (int)ROW_INT("carveout_percent");
    k.static_shared_bytes = (uint32_t)ROW_INT("static_shared_bytes");
    k.registers_per_thread = (int)ROW_INT("registers_per_thread");
    k.local_bytes_per_thread = (uint32_t)ROW_INT("local_bytes_per_thread");
    k.launch_shared_carveout_bytes = (uint32_t)ROW_INT("launch_shared_carveout_bytes");
    k.launch_l1d_bytes = (uint64_t)ROW_INT("launch_l1d_bytes");
    int rc = gd_kernel_record_add(r->kernels, curve->label,
                                  json_string_value(json_object_get(row, "probe")), &k,
                                  (int)ROW_INT("carveout_percent_asked"),
                                  (uint32_t)ROW_INT("dynamic_shared_bytes"),
                                  (uint64_t)ROW_INT("first_point"), err);
#undef ROW_INT
    json_decref(row);
    return rc;
}

/* ------------------------------------------------------------------------- */
/* The batch                                                                 */

typedef struct worker {
    pid_t pid;                /* 0: not started, -1: finished */
    int status;
    FILE *report;
    int stored;               /* --resume: the checkpoint has the point, no child runs it */
} worker;

static int use_workers(const gd_runner *r)
{
    if (r->chained)
        return 0;
    sim_engine *e = sim_device_engine(r->dev);
    return e && !e->lsu_trace;
}

/* Where a child writes its report: an anonymous in-memory file (memfd), else
 * tmpfile().  A temporary file on the disk cost an inode's allocation and its
 * release in the journal for every point -- a thousand of them in a full
 * suite, about a tenth of its system time. */
static FILE *report_file(void)
{
    int fd = memfd_create("gd-sweep-point", MFD_CLOEXEC);
    if (fd >= 0) {
        FILE *f = fdopen(fd, "w+");
        if (f)
            return f;
        close(fd);
    }
    return tmpfile();
}

static int start_worker(gd_runner *r, const gd_curve *curve, uint64_t x, worker *ws, size_t k,
                        gd_err *err)
{
    worker *w = &ws[k];
    w->report = report_file();
    if (!w->report)
        return gd_fail(err, "sweep worker: tmpfile: %s", strerror(errno));
    fflush(NULL); /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid < 0)
        return gd_fail(err, "sweep worker: fork: %s", strerror(errno));
    if (pid == 0) {
        FILE *report = w->report;
        free(ws); /* the parent's bookkeeping: nothing of it is used here */
        int rc = child_measure(r, curve, x, report);
        _exit(rc == 0 ? 0 : 1);
    }
    w->pid = pid;
    return 0;
}

/* A finished worker's point goes to the step's checkpoint at once, before it
 * is added to the curve in sweep order: points finish out of order, and an
 * interruption keeps every one that finished.  A report that cannot be read
 * is left to merge_report, which says why. */
static int checkpoint_report(gd_runner *r, worker *w, gd_err *err)
{
    if (!r->checkpoint || !WIFEXITED(w->status) || WEXITSTATUS(w->status) != 0)
        return 0;
    worker_header h;
    gd_point point;
    char *record = NULL;
    gd_err ignored;
    if (read_report(w->report, &h, &point, &record, &ignored) != 0 || h.rc != 0)
        return 0;
    free(record);
    int rc = gd_checkpoint_append(r->checkpoint, &point, err);
    gd_point_free(&point);
    return rc;
}

/* Waits for any running worker; marks it finished and checkpoints its point. */
static int reap_one(gd_runner *r, worker *ws, size_t n, gd_err *err)
{
    int status;
    pid_t pid;
    do
        pid = waitpid(-1, &status, 0);
    while (pid < 0 && errno == EINTR);
    if (pid < 0)
        return gd_fail(err, "sweep worker: waitpid: %s", strerror(errno));
    for (size_t i = 0; i < n; i++)
        if (ws[i].pid == pid) {
            ws[i].pid = -1;
            ws[i].status = status;
            return checkpoint_report(r, &ws[i], err);
        }
    return 0; /* a child that is not ours (none are expected) */
}

static void stop_workers(gd_runner *r, worker *ws, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        /* one that finished but was not reaped (an interruption, an error
         * before its turn): its point still goes to the checkpoint */
        gd_err ignored;
        if (ws[i].pid > 0 && waitpid(ws[i].pid, &ws[i].status, WNOHANG) == ws[i].pid) {
            ws[i].pid = -1;
            checkpoint_report(r, &ws[i], &ignored);
        }
        if (ws[i].pid > 0) {
            kill(ws[i].pid, SIGKILL);
            waitpid(ws[i].pid, NULL, 0);
        }
        if (ws[i].report)
            fclose(ws[i].report);
    }
}

/* Adds the report of worker ws[i] (point xs[i]) to the curve. */
static int merge_report(gd_runner *r, gd_curve *curve, sim_engine *e, worker *w, uint64_t x,
                        size_t index, size_t total, gd_err *err)
{
    if (!w->stored && !WIFEXITED(w->status))
        return gd_fail(err, "%s %s=%llu: the sweep worker died (signal %d)", curve->label,
                       curve->probe->sweep_name, (unsigned long long)x,
                       WIFSIGNALED(w->status) ? WTERMSIG(w->status) : 0);
    if (w->stored) {
        int added = 0;
        if (gd_runner_add_stored(r, curve, x, index, total, &added, err) != 0)
            return -1;
        return added ? 0 : gd_fail(err, "%s: the checkpoint lost a point", curve->label);
    }
    worker_header h;
    gd_point point;
    char *record = NULL;
    if (read_report(w->report, &h, &point, &record, err) != 0)
        return -1;
    fclose(w->report);
    w->report = NULL;
    if (h.rc != 0) {
        snprintf(err->msg, sizeof err->msg, "%s", h.err);
        return -1;
    }
    r->launches += h.launches;
    r->warmup_launches += h.warmup_launches;
    r->split_points += h.split_points;
    sim_stats_add(&e->stats, &h.stats);
    int rc = replay_record(r, curve, record, err);
    free(record);
    if (rc != 0) {
        gd_point_free(&point);
        return -1;
    }
    return gd_runner_add_point(r, curve, &point, index, total, err);
}

/* Points [from, to) in workers, up to `jobs` at a time, added in order. */
static int run_workers(gd_runner *r, gd_curve *curve, const uint64_t *xs, size_t from, size_t to,
                       size_t index0, size_t total, worker *ws, gd_err *err)
{
    sim_engine *e = sim_device_engine(r->dev);
    unsigned jobs = r->jobs ? r->jobs : host_cores();
    /* with a token pool (host/job_tokens.h): this process's own token covers
     * one worker, each further one takes a token, given back once reaped */
    int pool = gd_job_tokens_on();
    size_t extra = 0;
    size_t next = from;
    int rc = 0;
    for (size_t i = from; i < to && rc == 0; i++) {
        /* Ctrl-C / SIGTERM: the points added so far are written; the workers
         * still running are stopped by the caller (stop_workers) */
        if (gd_interrupt_requested()) {
            rc = gd_fail(err, "%s: interrupted by %s", curve->label,
                         gd_interrupt_name(gd_interrupt_requested()));
            break;
        }
        /* keep `jobs` workers busy, ahead of point i, the one to add next */
        while (rc == 0) {
            size_t running = 0;
            for (size_t k = i; k < next; k++)
                running += ws[k].pid > 0;
            for (; pool && extra > 0 && running < extra + 1; extra--)
                gd_job_token_give();
            if (next < to && r->checkpoint && gd_checkpoint_has(r->checkpoint, xs[next])) {
                ws[next].stored = 1; /* read back at its turn, not measured */
                ws[next].pid = -1;
                next++;
            } else if (next < to && running < jobs &&
                       (!pool || running < extra + 1 || (gd_job_token_take() && ++extra))) {
                rc = start_worker(r, curve, xs[next], ws, next, err);
                next++;
            } else if (ws[i].pid > 0) {
                rc = reap_one(r, ws, next, err);
            } else {
                break;
            }
        }
        if (rc == 0)
            rc = merge_report(r, curve, e, &ws[i], xs[i], index0 + i, total, err);
    }
    for (; extra > 0; extra--)
        gd_job_token_give();
    return rc;
}

/* ------------------------------------------------------------------------- */
/* Points that share a launch                                                */

/* A probe with plan_batch (kernels/probe.h: each of its points would evict
 * the L2 first) measures xs in launches of up to batch_max points, in order,
 * on the runner's own device -- each launch is a kernel of its own, which a
 * serial run loads there too.  A launch's points enter the curve in order.
 * On --resume a launch the checkpoint has every point of is read back, after
 * it ran again on a sim device (its result dropped: the device the next
 * launches run on is in the state the interrupted run left it in); a launch
 * it has some of runs whole, and the points the checkpoint has are taken
 * from it (the same values: the launch is the same on the same state). */
static int measure_in_launches(gd_runner *r, gd_curve *curve, const uint64_t *xs, size_t n,
                               size_t index0, size_t total, gd_err *err)
{
    size_t cap = gd_probe_batch_max(curve->probe, &curve->opts);
    uint64_t *todo = malloc(n * sizeof *todo);
    size_t *at = malloc(n * sizeof *at);
    gd_point *pts = calloc(cap, sizeof *pts);
    int rc = todo && at && pts ? 0 : gd_fail(err, "out of memory");
    size_t m = 0;
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (!(r->keep_measured && gd_curve_find(curve, xs[i]))) { /* --resume: measured before */
            at[m] = i;
            todo[m++] = xs[i];
        }
    int rebuild = use_workers(r);
    for (size_t i = 0; rc == 0 && i < m;) {
        size_t k = m - i < cap ? m - i : cap;
        if (gd_interrupt_requested()) {
            rc = gd_fail(err, "%s: interrupted by %s", curve->label,
                         gd_interrupt_name(gd_interrupt_requested()));
            break;
        }
        size_t stored = 0;
        for (size_t j = 0; r->checkpoint && j < k; j++)
            stored += gd_checkpoint_has(r->checkpoint, todo[i + j]);
        int measured = stored < k || rebuild;
        if (measured) {
            rc = gd_runner_measure_points(r, curve, todo + i, k, pts, err);
            if (rc != 0 && k > 1 && !gd_interrupt_requested()) {
                /* a launch that failed (a point the probe cannot plan, a
                 * device error): its points one at a time, as a serial run
                 * would, so the ones before the failing one are kept and the
                 * error is that point's */
                rc = 0;
                for (size_t j = 0; rc == 0 && j < k; j++)
                    rc = rebuild ? gd_runner_measure_rebuilding(r, curve, todo[i + j],
                                                                index0 + at[i + j], total, err)
                                 : gd_runner_measure(r, curve, todo[i + j], index0 + at[i + j],
                                                     total, err);
                if (rc != 0)
                    break;
                i += k;
                continue;
            }
            if (rc != 0)
                break;
            if (stored == k)
                r->points_resimulated += k;
        }
        for (size_t j = 0; j < k; j++) {
            int added = 0;
            if (rc == 0)
                rc = gd_runner_add_stored(r, curve, todo[i + j], index0 + at[i + j], total,
                                          &added, err);
            if (rc == 0 && !added && !measured)
                rc = gd_fail(err, "%s: the checkpoint lost a point", curve->label);
            if (rc == 0 && !added) {
                rc = gd_runner_add_point(r, curve, &pts[j], index0 + at[i + j], total, err);
                memset(&pts[j], 0, sizeof pts[j]);
            }
            if (measured)
                gd_point_free(&pts[j]);
        }
        i += k;
    }
    free(todo);
    free(at);
    free(pts);
    return rc;
}

int gd_runner_measure_batch(gd_runner *r, gd_curve *curve, const uint64_t *xs, size_t n,
                            size_t index0, size_t total, gd_err *err)
{
    if (n > 1 && !r->one_launch_per_point && gd_probe_batch_max(curve->probe, &curve->opts) > 1)
        return measure_in_launches(r, curve, xs, n, index0, total, err);
    if (!use_workers(r) || n == 0) {
        for (size_t i = 0; i < n; i++)
            if (gd_runner_measure(r, curve, xs[i], index0 + i, total, err) != 0)
                return -1;
        return 0;
    }
    worker *ws = calloc(n, sizeof *ws);
    if (!ws)
        return gd_fail(err, "out of memory");
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0;) {
        /* A point whose kernel the runner does not hold yet runs here, on the
         * parent's device, as a serial run would: it loads the kernel, and its
         * code reaches the instruction caches before the points forked after
         * it start (a kernel loaded afresh in each point would fetch its timed
         * loop through the L2 after the warm-up, where a chain that fills the
         * L2 is). */
        /* A point the probe cannot plan also runs here: it fails as in a
         * serial run, after the points before it were added. */
        int has = 0;
        if (gd_runner_has_kernel(r, curve, xs[i], &has, err) != 0 || !has) {
            rc = gd_runner_measure_rebuilding(r, curve, xs[i], index0 + i, total, err);
            i++;
            continue;
        }
        size_t end = i + 1;
        while (end < n && gd_runner_has_kernel(r, curve, xs[end], &has, err) == 0 && has)
            end++;
        if (rc == 0)
            rc = run_workers(r, curve, xs, i, end, index0, total, ws, err);
        i = end;
    }
    stop_workers(r, ws, n);
    free(ws);
    return rc;
}

int gd_runner_sweep(gd_runner *r, gd_curve *curve, const gd_sweep *sweep, gd_err *err)
{
    return gd_runner_measure_batch(r, curve, sweep->points, sweep->count, 0, sweep->count, err);
}
