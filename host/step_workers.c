/* step_workers.c -- the steps of a suite as independent simulations, on every core.
 *
 * Sweep workers (host/sweep_workers.c) spread one step's points over the
 * cores; a suite still ran its steps one after the other on one device, and
 * whatever ran alone -- a one-point bandwidth step, an adaptive round of one
 * point, the point that loads a kernel -- left the other cores idle.  Here each
 * step runs in a process forked from the device as it was opened (the parent's
 * device never simulates), so a step's result is a function of its own
 * options: not of the steps before it, nor of which process ran it.  Its
 * options come from what the steps before inferred (L2, L1D_LINE, ...), so:
 *
 *   - at a step's turn its options are evaluated (gd_step_prepare); a process
 *     already started for it with the same options is kept, one started with
 *     others is stopped and its files removed, and the step runs afresh;
 *   - while it runs, steps after it whose options can be evaluated already
 *     start early, nearest first, as tokens allow (host/job_tokens.h: -j
 *     simulations at once, step and point processes together);
 *   - each step enters the run at its turn, in suite order: its progress lines
 *     (passed on as the step in progress writes them), its meta.json entry and
 *     kernel records, the engine counters it added (so meta.json's totals are
 *     the run's), its curve read back from its files (CSV and samples: exact),
 *     its inference.
 *
 * A step started early writes its files (LABEL.csv, .samples.gz, .partial)
 * into the results directory as the step at its turn would: none other
 * writes those names.  OUT/.steps/ holds each step's options as it ran
 * (LABEL.options), its report and its progress lines; on --resume a step's
 * files from a run whose options differ are removed, not read back.  The
 * directory goes when a run ends uninterrupted.
 *
 * Not here: a cuda device (one GPU), an LSU trace and --chained keep the
 * steps on the runner's device, one after the other.
 */
#include "host/characterize.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "analysis/curve_samples.h"
#include "analysis/results.h"
#include "analysis/run_load.h"
#include "host/checkpoint.h"
#include "host/interrupt.h"
#include "host/job_tokens.h"
#include "sim/engine.h"

#define STEPS_DIR ".steps"
/* how often the parent looks at its step processes while one runs */
#define POLL_NS 2000000L

typedef struct step_job {
    char label[64];
    size_t index;             /* in the suite */
    char *options;            /* the evaluated options it runs with */
    gd_step_prep prep;
    pid_t pid;                /* > 0 running, -1 reaped */
    int status;
    long progress_sent;       /* bytes of its progress passed on */
} step_job;

struct gd_step_workers {
    unsigned jobs;
    step_job **job;           /* started and not yet entered, in no order */
    size_t count, cap;
    unsigned generation;      /* steps finished: the variables may have changed */
    unsigned *tried;          /* per suite step: the generation its options failed at, +1 */
    size_t tried_count;
    int forwarded;            /* a signal was passed on to the step processes */
    json_t *measured_again;   /* labels of the steps started early whose options
                               * changed by their turn (measured again) */
};

/* ------------------------------------------------------------------------- */
/* Paths                                                                     */

static void private_path(const gd_characterize_ctx *ctx, const char *label, const char *what,
                         char *out, size_t n)
{
    snprintf(out, n, "%s/" STEPS_DIR "/%s.%s", ctx->out_dir, label, what);
}

static const char *const step_files[] = {".csv", ".counters.csv", GD_SAMPLES_SUFFIX,
                                         GD_CHECKPOINT_SUFFIX};

static void remove_step_files(const gd_characterize_ctx *ctx, const char *label)
{
    char path[1200];
    for (size_t i = 0; i < sizeof step_files / sizeof step_files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s%s", ctx->out_dir, label, step_files[i]);
        unlink(path);
    }
    /* and what a process killed between create and rename left
     * (LABEL.csv.tmp.XXXXXX): the step's own names only, as other steps
     * may be writing theirs */
    DIR *d = opendir(ctx->out_dir);
    if (!d)
        return;
    size_t n = strlen(label);
    struct dirent *ent;
    while ((ent = readdir(d))) {
        if (strncmp(ent->d_name, label, n) != 0 || ent->d_name[n] != '.' ||
            !strstr(ent->d_name + n, ".tmp."))
            continue;
        snprintf(path, sizeof path, "%s/%s", ctx->out_dir, ent->d_name);
        unlink(path);
    }
    closedir(d);
}

static void remove_private(const gd_characterize_ctx *ctx, const char *label)
{
    char path[1200];
    private_path(ctx, label, "report", path, sizeof path);
    unlink(path);
    private_path(ctx, label, "progress", path, sizeof path);
    unlink(path);
}

/* ------------------------------------------------------------------------- */
/* Set-up                                                                    */

int gd_step_workers_usable(const gd_runner *runner)
{
    if (runner->chained)
        return 0;
    sim_engine *e = sim_device_engine(runner->dev);
    return e && !e->lsu_trace;
}

gd_step_workers *gd_step_workers_create(unsigned jobs, gd_err *err)
{
    gd_step_workers *sw = calloc(1, sizeof *sw);
    if (!sw) {
        gd_fail(err, "out of memory");
        return NULL;
    }
    sw->jobs = jobs ? jobs : gd_runner_default_jobs();
    if (gd_job_tokens_open(sw->jobs, err) != 0) {
        free(sw);
        return NULL;
    }
    return sw;
}

static void job_free(step_job *j)
{
    free(j->options);
    gd_step_prep_free(&j->prep);
    free(j);
}

static void drop_job(gd_step_workers *sw, size_t k)
{
    job_free(sw->job[k]);
    sw->job[k] = sw->job[--sw->count];
}

/* Stops job k (if it runs), reaps it, removes its files and drops it. */
static void discard_job(gd_step_workers *sw, const gd_characterize_ctx *ctx, size_t k)
{
    step_job *j = sw->job[k];
    if (j->pid > 0) {
        kill(j->pid, SIGKILL);
        waitpid(j->pid, NULL, 0);
        gd_job_token_give();
    }
    remove_step_files(ctx, j->label);
    remove_private(ctx, j->label);
    drop_job(sw, k);
}

json_t *gd_step_workers_measured_again(const gd_step_workers *sw)
{
    return sw && sw->measured_again ? json_deep_copy(sw->measured_again) : json_array();
}

void gd_step_workers_destroy(gd_step_workers *sw)
{
    if (!sw)
        return;
    for (size_t k = 0; k < sw->count; k++) {
        step_job *j = sw->job[k];
        if (j->pid > 0) {
            /* stopped as an interruption stops a step: what it finished stays
             * in its checkpoint, which --resume takes when the options match
             * (once: a second signal is the user insisting, which kills) */
            if (!sw->forwarded)
                kill(j->pid, SIGTERM);
            waitpid(j->pid, NULL, 0);
        }
        job_free(j);
    }
    free(sw->job);
    free(sw->tried);
    json_decref(sw->measured_again);
    gd_job_tokens_close();
    free(sw);
}

/* ------------------------------------------------------------------------- */
/* A step's options, as text                                                 */

static char *options_text(const gd_characterize_ctx *ctx, const gd_suite_step *st,
                          const gd_step_prep *prep)
{
    json_t *doc = json_object();
    gd_probe_opts_to_json(&prep->opts, doc);
    json_object_set_new(doc, "probe", json_string(st->probe->name));
    json_object_set_new(doc, "adaptive", json_integer(st->adaptive));
    json_object_set_new(doc, "resolution", json_integer((json_int_t)prep->resolution));
    if (prep->sweep.refine_below)
        json_object_set_new(doc, "refine_below",
                            json_integer((json_int_t)prep->sweep.refine_below));
    json_object_set_new(doc, "carveout_percent", json_integer(ctx->runner->carveout_percent));
    json_t *xs = json_array();
    for (size_t i = 0; i < prep->sweep.count; i++)
        json_array_append_new(xs, json_integer((json_int_t)prep->sweep.points[i]));
    json_object_set_new(doc, "sweep", xs);
    char *text = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(doc);
    return text;
}

/* --resume: files a run left for this step under other options (or under
 * options nobody recorded while a step process ran) are not this step's. */
static void drop_stale_files(const gd_characterize_ctx *ctx, const char *label, const char *options)
{
    char path[1200];
    private_path(ctx, label, "options", path, sizeof path);
    size_t len = 0;
    gd_err ignored;
    char *old = gd_read_file(path, &len, &ignored);
    if (old && strcmp(old, options) != 0)
        remove_step_files(ctx, label);
    free(old);
}

/* ------------------------------------------------------------------------- */
/* The step process                                                          */

static uint64_t label_salt(const char *label)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const unsigned char *c = (const unsigned char *)label; *c; c++)
        h = (h ^ *c) * 1099511628211ull;
    return h;
}

static json_t *stats_json(const sim_stats *s)
{
    uint64_t w[sizeof *s / sizeof(uint64_t)];
    memcpy(w, s, sizeof w);
    json_t *a = json_array();
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        json_array_append_new(a, json_integer((json_int_t)w[i]));
    return a;
}

static int stats_from_json(const json_t *a, sim_stats *s)
{
    uint64_t w[sizeof *s / sizeof(uint64_t)];
    if (json_array_size(a) != sizeof w / sizeof w[0])
        return -1;
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        w[i] = (uint64_t)json_integer_value(json_array_get(a, i));
    memcpy(s, w, sizeof w);
    return 0;
}

/* In the child: measures the step into OUT, writes OUT/.steps/LABEL.report. */
static void child_main(gd_characterize_ctx *ctx, const gd_suite_step *st, const step_job *j)
{
    gd_runner *r = ctx->runner;
    char path[1200];
    private_path(ctx, j->label, "progress", path, sizeof path);
    FILE *progress = fopen(path, "w");
    r->progress = progress;
    ctx->progress = NULL;
    sim_engine *e = sim_device_engine(r->dev);
    sim_engine_salt_noise(e, label_salt(j->label));
    sim_stats before = e->stats;
    size_t launches = r->launches, warmups = r->warmup_launches, splits = r->split_points;
    size_t kernels0 = r->kernels ? json_array_size(r->kernels) : 0;

    gd_curve curve;
    gd_step_outcome out;
    gd_step_measure(ctx, st, &j->prep, ctx->out_dir, &curve, &out);
    gd_curve_free(&curve);

    json_t *rep = json_object();
    json_object_set_new(rep, "rc", json_integer(out.rc));
    json_object_set_new(rep, "error", json_string(out.err.msg));
    json_object_set_new(rep, "coarse_points", json_integer((json_int_t)out.stats.coarse_points));
    json_object_set_new(rep, "refine_points", json_integer((json_int_t)out.stats.refine_points));
    json_object_set_new(rep, "points", json_integer((json_int_t)out.stats.points));
    json_object_set_new(rep, "rounds", json_integer((json_int_t)out.stats.rounds));
    json_object_set_new(rep, "uniform_points", json_integer((json_int_t)out.stats.uniform_points));
    json_object_set_new(rep, "measured", json_integer((json_int_t)out.measured));
    json_object_set_new(rep, "read_back", json_integer((json_int_t)out.read_back));
    json_object_set_new(rep, "resimulated", json_integer((json_int_t)out.resimulated));
    json_object_set_new(rep, "cpu_seconds", json_real(out.cpu_seconds));
    json_object_set_new(rep, "wall_seconds", json_real(out.wall_seconds));
    json_object_set_new(rep, "launches", json_integer((json_int_t)(r->launches - launches)));
    json_object_set_new(rep, "warmup_launches",
                        json_integer((json_int_t)(r->warmup_launches - warmups)));
    json_object_set_new(rep, "split_points", json_integer((json_int_t)(r->split_points - splits)));
    json_t *kernels = json_array();
    for (size_t i = kernels0; r->kernels && i < json_array_size(r->kernels); i++)
        json_array_append(kernels, json_array_get(r->kernels, i));
    json_object_set_new(rep, "kernels", kernels);
    json_t *clock = r->meta ? json_object_get(json_object_get(r->meta, "sm_clock_mhz"), j->label)
                            : NULL;
    if (clock)
        json_object_set(rep, "sm_clock_mhz", clock);
    sim_stats delta;
    sim_stats_delta(&e->stats, &before, &delta);
    json_object_set_new(rep, "engine", stats_json(&delta));
    if (progress)
        fclose(progress);
    private_path(ctx, j->label, "report", path, sizeof path);
    gd_err err;
    int rc = gd_write_json_atomic(path, rep, &err);
    json_decref(rep);
    _exit(rc == 0 ? 0 : 1);
}

/* Starts step st (suite index `index`) with prep (moved into the job). */
static int start_job(gd_step_workers *sw, gd_characterize_ctx *ctx, const gd_suite_step *st,
                     size_t index, gd_step_prep *prep, char *options, step_job **out, gd_err *err)
{
    *out = NULL;
    if (sw->count == sw->cap) {
        size_t cap = sw->cap ? 2 * sw->cap : 8;
        step_job **grown = realloc(sw->job, cap * sizeof *grown);
        if (!grown)
            return free(options), gd_step_prep_free(prep), gd_fail(err, "out of memory");
        sw->job = grown;
        sw->cap = cap;
    }
    step_job *j = calloc(1, sizeof *j);
    if (!j)
        return free(options), gd_step_prep_free(prep), gd_fail(err, "out of memory");
    snprintf(j->label, sizeof j->label, "%s", st->label);
    j->index = index;
    j->options = options;
    j->prep = *prep;
    memset(prep, 0, sizeof *prep);
    /* its options first: a kill after this point leaves files --resume can
     * check against them */
    char path[1200];
    private_path(ctx, j->label, "options", path, sizeof path);
    if (ctx->resume)
        drop_stale_files(ctx, j->label, options);
    else
        remove_step_files(ctx, j->label);
    remove_private(ctx, j->label);
    FILE *f = fopen(path, "w");
    if (!f || fputs(options, f) < 0 || fclose(f) != 0) {
        job_free(j);
        return gd_fail(err, "%s: %s", path, strerror(errno));
    }
    fflush(NULL); /* nothing buffered is written twice */
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        job_free(j);
        return gd_fail(err, "step worker: fork: %s", strerror(errno));
    }
    if (pid == 0) {
        /* a parent killed outright takes its steps with it */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
        child_main(ctx, st, j);
    }
    j->pid = pid;
    sw->job[sw->count++] = j;
    *out = j;
    return 0;
}

/* ------------------------------------------------------------------------- */
/* The parent                                                                */

static step_job *find_job(gd_step_workers *sw, const char *label, size_t *k)
{
    for (size_t i = 0; i < sw->count; i++)
        if (!strcmp(sw->job[i]->label, label)) {
            *k = i;
            return sw->job[i];
        }
    return NULL;
}

/* Reaps every step process that has ended (without waiting); their tokens
 * go back to the pool.  Returns how many. */
static int reap_finished(gd_step_workers *sw)
{
    int n = 0;
    for (size_t i = 0; i < sw->count; i++) {
        step_job *j = sw->job[i];
        if (j->pid > 0 && waitpid(j->pid, &j->status, WNOHANG) == j->pid) {
            j->pid = -1;
            gd_job_token_give();
            n++;
        }
    }
    return n;
}

static void start_early_under(gd_step_workers *sw, gd_characterize_ctx *ctx, size_t current);

/* Starts the steps after `current` whose options can be evaluated now and
 * that are not running yet, nearest first, while tokens are free -- under
 * the run's own carve-out while a carve-out step's preference is set on the
 * runner: they inherited that preference, and at their turn their options
 * (the run's carve-out) differed, so each was stopped and measured again
 * (the full suite on sim:t4: the five bandwidth steps after l1-carveout,
 * about 5 s of CPU, measured twice). */
static void start_early(gd_step_workers *sw, gd_characterize_ctx *ctx, size_t current)
{
    if (!ctx->carveout_step_active) {
        start_early_under(sw, ctx, current);
        return;
    }
    int preference = ctx->runner->carveout_percent;
    ctx->runner->carveout_percent = ctx->run_carveout_percent;
    start_early_under(sw, ctx, current);
    ctx->runner->carveout_percent = preference;
}

static void start_early_under(gd_step_workers *sw, gd_characterize_ctx *ctx, size_t current)
{
    const gd_suite *suite = ctx->suite;
    if (sw->tried_count < suite->step_count) {
        unsigned *t = realloc(sw->tried, suite->step_count * sizeof *t);
        if (!t)
            return;
        memset(t + sw->tried_count, 0, (suite->step_count - sw->tried_count) * sizeof *t);
        sw->tried = t;
        sw->tried_count = suite->step_count;
    }
    for (size_t i = current + 1; i < suite->step_count; i++) {
        const gd_suite_step *st = &suite->steps[i];
        size_t k = 0;
        /* a carve-out step bisects on its own results: it runs at its turn */
        if (st->carveout_count || find_job(sw, st->label, &k) || sw->tried[i] == sw->generation + 1)
            continue;
        gd_step_prep prep;
        gd_err ignored;
        if (gd_step_prepare(ctx, st, &prep, &ignored) != 0) {
            sw->tried[i] = sw->generation + 1; /* not before the variables change */
            continue;
        }
        if (!gd_job_token_take()) {
            gd_step_prep_free(&prep);
            return;
        }
        char *options = options_text(ctx, st, &prep);
        step_job *j;
        if (!options || start_job(sw, ctx, st, i, &prep, options, &j, &ignored) != 0) {
            gd_step_prep_free(&prep);
            gd_job_token_give();
            return;
        }
    }
}

/* Passes on what job j's progress file has gained since last time. */
static void pass_progress(const gd_characterize_ctx *ctx, step_job *j)
{
    if (!ctx->progress)
        return;
    char path[1200];
    private_path(ctx, j->label, "progress", path, sizeof path);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    /* whole lines only, in one pass: a chunk's bytes up to its last newline;
     * a line the step is still writing waits for the next look */
    char buf[4096];
    size_t n;
    int passed = 0;
    while (fseek(f, j->progress_sent, SEEK_SET) == 0 && (n = fread(buf, 1, sizeof buf, f)) > 0) {
        size_t end = n;
        while (end > 0 && buf[end - 1] != '\n')
            end--;
        if (!end && n == sizeof buf)
            end = n; /* a line longer than the buffer goes in pieces */
        if (!end)
            break;
        fwrite(buf, 1, end, ctx->progress);
        j->progress_sent += (long)end;
        passed = 1;
    }
    if (passed)
        fflush(ctx->progress);
    fclose(f);
}

/* Waits for job j, starting steps early meanwhile; a signal to this process
 * is passed on to every step process (they stop as a run stops). */
static void wait_for(gd_step_workers *sw, gd_characterize_ctx *ctx, step_job *j)
{
    while (j->pid > 0) {
        if (gd_interrupt_requested() && !sw->forwarded) {
            sw->forwarded = 1;
            for (size_t i = 0; i < sw->count; i++)
                if (sw->job[i]->pid > 0)
                    kill(sw->job[i]->pid, SIGTERM);
        }
        if (reap_finished(sw) && !gd_interrupt_requested())
            start_early(sw, ctx, j->index);
        pass_progress(ctx, j);
        if (j->pid > 0) {
            struct timespec ts = {0, POLL_NS};
            nanosleep(&ts, NULL);
        }
    }
    pass_progress(ctx, j);
}

/* Takes a token for the step at its turn, reaping (and starting nothing)
 * until one is free. */
static void take_token(gd_step_workers *sw)
{
    while (!gd_job_token_take()) {
        if (!reap_finished(sw)) {
            struct timespec ts = {0, POLL_NS};
            nanosleep(&ts, NULL);
        }
    }
}

/* Job j has ended: its report into *res and the run's counters. */
static void enter_report(gd_characterize_ctx *ctx, step_job *j, gd_step_outcome *res,
                         json_t *meta)
{
    memset(res, 0, sizeof *res);
    gd_runner *r = ctx->runner;
    char path[1200];
    private_path(ctx, j->label, "report", path, sizeof path);
    json_error_t jerr;
    json_t *rep = WIFEXITED(j->status) ? json_load_file(path, 0, &jerr) : NULL;
    if (!rep) {
        res->rc = -1;
        if (WIFSIGNALED(j->status))
            gd_fail(&res->err, "%s: the step's process died (signal %d)", j->label,
                    WTERMSIG(j->status));
        else
            gd_fail(&res->err, "%s: the step's process ended without a report", j->label);
    } else {
#define REP_INT(key) json_integer_value(json_object_get(rep, key))
        res->rc = (int)REP_INT("rc");
        const char *msg = json_string_value(json_object_get(rep, "error"));
        snprintf(res->err.msg, sizeof res->err.msg, "%s", msg ? msg : "");
        res->stats.coarse_points = (size_t)REP_INT("coarse_points");
        res->stats.refine_points = (size_t)REP_INT("refine_points");
        res->stats.points = (size_t)REP_INT("points");
        res->stats.rounds = (size_t)REP_INT("rounds");
        res->stats.uniform_points = (uint64_t)REP_INT("uniform_points");
        res->measured = (size_t)REP_INT("measured");
        res->read_back = (size_t)REP_INT("read_back");
        res->resimulated = (size_t)REP_INT("resimulated");
        res->cpu_seconds = json_number_value(json_object_get(rep, "cpu_seconds"));
        res->wall_seconds = json_number_value(json_object_get(rep, "wall_seconds"));
        r->points_measured += res->measured;
        r->points_read_back += res->read_back;
        r->points_resimulated += res->resimulated;
        r->launches += (size_t)REP_INT("launches");
        r->warmup_launches += (size_t)REP_INT("warmup_launches");
        r->split_points += (size_t)REP_INT("split_points");
#undef REP_INT
        size_t i;
        json_t *row;
        json_array_foreach(json_object_get(rep, "kernels"), i, row)
            if (r->kernels)
                json_array_append(r->kernels, row);
        json_t *clock = json_object_get(rep, "sm_clock_mhz");
        if (clock && meta) {
            json_t *all = json_object_get(meta, "sm_clock_mhz");
            if (!json_is_object(all)) {
                all = json_object();
                json_object_set_new(meta, "sm_clock_mhz", all);
            }
            json_object_set(all, j->label, clock);
        }
        sim_stats delta;
        sim_engine *e = sim_device_engine(r->dev);
        if (e && stats_from_json(json_object_get(rep, "engine"), &delta) == 0)
            sim_stats_add(&e->stats, &delta);
        json_decref(rep);
    }
    /* stopped by a signal to this process: said as the serial run says it */
    if (res->rc != 0 && gd_interrupt_requested())
        gd_fail(&res->err, "%s: interrupted by %s", j->label,
                gd_interrupt_name(gd_interrupt_requested()));
}

/* The curve of a step that measured, from its files (exact: %.17g, every
 * sample), with the options it ran under. */
static int read_curve(const gd_characterize_ctx *ctx, const gd_suite_step *st,
                      const gd_step_prep *prep, gd_curve *curve, gd_err *err)
{
    char csv[1200], samples[1200];
    snprintf(csv, sizeof csv, "%s/%s.csv", ctx->out_dir, st->label);
    snprintf(samples, sizeof samples, "%s/%s%s", ctx->out_dir, st->label, GD_SAMPLES_SUFFIX);
    if (gd_curve_read_csv(csv, st->label, st->probe, curve, err) != 0) {
        gd_curve_init(curve, st->label, st->probe, &prep->resolved);
        return -1;
    }
    curve->opts = prep->resolved;
    return gd_curve_read_samples(samples, curve, err);
}

int gd_step_workers_run(gd_step_workers *sw, gd_characterize_ctx *ctx, const gd_suite_step *st,
                        json_t *meta, json_t *curves_json, gd_err *err)
{
    /* where the step is in the suite (a carve-out preference: its step's) */
    size_t index = 0;
    while (index + 1 < ctx->suite->step_count && ctx->suite->steps[index].line != st->line)
        index++;
    char dir[1200];
    snprintf(dir, sizeof dir, "%s/" STEPS_DIR, ctx->out_dir);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return gd_fail(err, "%s: %s", dir, strerror(errno));

    gd_step_prep prep;
    int rc = gd_step_prepare(ctx, st, &prep, err);
    size_t k = 0;
    step_job *j = find_job(sw, st->label, &k);
    char *options = rc == 0 ? options_text(ctx, st, &prep) : NULL;
    if (j && (!options || strcmp(j->options, options) != 0)) {
        discard_job(sw, ctx, k); /* started under options that changed since */
        if (!sw->measured_again)
            sw->measured_again = json_array();
        json_array_append_new(sw->measured_again, json_string(st->label));
        j = NULL;
    }
    if (rc == 1) {
        free(options);
        return gd_step_skip(ctx, st, meta, err->msg);
    }
    if (rc != 0)
        return free(options), -1;
    if (!options)
        return gd_step_prep_free(&prep), gd_fail(err, "out of memory");
    if (j) {
        free(options);
        gd_step_prep_free(&prep);
    } else {
        take_token(sw);
        if (start_job(sw, ctx, st, index, &prep, options, &j, err) != 0) {
            gd_job_token_give();
            return -1;
        }
    }
    start_early(sw, ctx, index);
    wait_for(sw, ctx, j);

    gd_step_outcome res;
    enter_report(ctx, j, &res, meta);
    gd_curve curve;
    if (res.rc == 0 && read_curve(ctx, st, &j->prep, &curve, &res.err) != 0)
        res.rc = -1;
    else if (res.rc != 0)
        gd_curve_init(&curve, st->label, st->probe, &j->prep.resolved);
    remove_private(ctx, j->label);
    rc = gd_step_finish(ctx, st, &j->prep, &curve, &res, meta, curves_json, err);
    gd_curve_free(&curve);
    find_job(sw, st->label, &k);
    drop_job(sw, k);
    sw->generation++;
    return rc;
}

void gd_step_workers_clean(const gd_characterize_ctx *ctx)
{
    char dir[1200];
    snprintf(dir, sizeof dir, "%s/" STEPS_DIR, ctx->out_dir);
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *ent;
    while ((ent = readdir(d))) {
        if (ent->d_name[0] == '.')
            continue;
        char path[1500];
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}
