/* fleet_merge.c -- `gpudissect fleet merge DIR`: many cards' results as one.
 *
 * Users who characterize every card of a node or a partition want the card
 * that differs: a lower clock, disabled SMs, a different L2, a slower DRAM.
 * Each card's directory already holds what it measured (inferred.json: the
 * levels' sizes, lines, latencies, ways, ...; meta.json: SM count, SM clock,
 * L2 size as the device reports them); this file lines them up:
 *
 *   1. every subdirectory of DIR with a status.json, meta.json or inferred.json
 *      is a card (sorted by name); its status.json says ok or failed and why
 *      (a plain `characterize` directory without one counts as ok when it has
 *      inferred.json); `.partial-JOB-TASK` directories are array tasks that
 *      never finished, and tasks fleet-job.json expects but nobody wrote are
 *      reported missing; NAME.replaced-JOB-TASK (a card's earlier results,
 *      moved aside by a resubmitted task) are left out;
 *   2. every numeric field of inferred.json's levels becomes a parameter
 *      "LEVEL.field" (confidences left out), plus "device.sm_count",
 *      "device.sm_clock_mhz" and "device.l2_bytes" from meta.json;
 *   3. per parameter, over the cards that measured it: median, min, max, MAD,
 *      and the outliers by the rule of fleet_merge.h;
 *   4. fleet.json and fleet.md (atomically), and the p-chase overlay
 *      (fleet_plot.c).
 *
 * Strings (a replacement policy, a sharing scope) are not compared: a card
 * whose policy differs is rare enough to read off the per-card reports.
 */
#include "host/fleet_merge.h"

#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/results.h"
#include "host/fleet_plot.h"

#define MAX_CARDS 1024

/* ---- statistics ------------------------------------------------------------ */

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double sorted_median(const double *v, size_t n)
{
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int gd_fleet_stats(const double *values, size_t n, double *median, double *min, double *max,
                   double *mad)
{
    if (n == 0)
        return -1;
    double *v = malloc(n * sizeof *v);
    if (!v)
        return -1;
    memcpy(v, values, n * sizeof *v);
    qsort(v, n, sizeof *v, compare_doubles);
    *min = v[0];
    *max = v[n - 1];
    *median = sorted_median(v, n);
    for (size_t i = 0; i < n; i++)
        v[i] = fabs(v[i] - *median);
    qsort(v, n, sizeof *v, compare_doubles);
    *mad = sorted_median(v, n);
    free(v);
    return 0;
}

int gd_fleet_is_outlier(double x, double median, double mad, size_t n, double *z)
{
    double diff = x - median;
    *z = mad > 0 ? GD_FLEET_MAD_TO_Z * diff / mad : (diff == 0 ? 0 : copysign(INFINITY, diff));
    if (n < GD_FLEET_MIN_CARDS)
        return 0;
    double threshold = fmax(GD_FLEET_MIN_ABS_DIFF, GD_FLEET_MIN_REL_DIFF * fabs(median));
    if (fabs(diff) < threshold)
        return 0;
    return mad == 0 || fabs(*z) > GD_FLEET_OUTLIER_Z;
}

/* ---- reading the cards ------------------------------------------------------- */

typedef struct card {
    char name[256];
    char device[128], host[128], pci_bus_id[64];
    int ok;
    char error[GD_ERR_MSG_BYTES];
    long task_id;          /* Slurm array task, or -1 */
    json_t *params;        /* "LEVEL.field" -> number */
    gd_fleet_curve curve;  /* pchase.csv's primary series; count 0 when none */
} card;

static json_t *load_json(const char *dir, const char *file)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    struct stat st;
    if (stat(path, &st) != 0)
        return NULL;
    return gd_json_load(path, 0, NULL);
}

static const char *str_field(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static void read_params(card *c, const json_t *inferred, const json_t *meta)
{
    const json_t *levels = json_object_get(inferred, "levels");
    size_t i;
    const json_t *level;
    json_array_foreach(levels, i, level) {
        const char *lname = str_field(level, "name");
        if (!lname)
            continue;
        const char *key;
        const json_t *v;
        json_object_foreach((json_t *)level, key, v) {
            if (strstr(key, "confidence") || !(json_is_number(v) || json_is_boolean(v)))
                continue;
            char pname[160];
            snprintf(pname, sizeof pname, "%s.%s", lname, key);
            double x = json_is_boolean(v) ? (json_is_true(v) ? 1 : 0) : json_number_value(v);
            json_object_set_new(c->params, pname, json_real(x));
        }
    }
    const json_t *dev = json_object_get(meta, "device");
    static const char *const device_fields[] = {"sm_count", "sm_clock_mhz", "l2_bytes"};
    for (size_t f = 0; f < sizeof device_fields / sizeof device_fields[0]; f++) {
        const json_t *v = json_object_get(dev, device_fields[f]);
        if (json_is_number(v)) {
            char pname[64];
            snprintf(pname, sizeof pname, "device.%s", device_fields[f]);
            json_object_set_new(c->params, pname, json_real(json_number_value(v)));
        }
    }
}

/* 1 when DIR/NAME is a card; fills it. */
static int read_card(const char *dir, const char *name, card *c, gd_err *err)
{
    char cdir[1100];
    snprintf(cdir, sizeof cdir, "%s/%s", dir, name);
    json_t *status = load_json(cdir, "status.json");
    json_t *meta = load_json(cdir, "meta.json");
    json_t *inferred = load_json(cdir, "inferred.json");
    if (!status && !meta && !inferred)
        return 0;
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    c->task_id = -1;
    c->params = json_object();
    const char *s;
    if (status) {
        c->ok = (s = str_field(status, "status")) && !strcmp(s, "ok");
        snprintf(c->error, sizeof c->error, "%s", (s = str_field(status, "error")) ? s : "");
        snprintf(c->device, sizeof c->device, "%s", (s = str_field(status, "device")) ? s : "");
        snprintf(c->host, sizeof c->host, "%s", (s = str_field(status, "host")) ? s : "");
        snprintf(c->pci_bus_id, sizeof c->pci_bus_id, "%s",
                 (s = str_field(status, "pci_bus_id")) ? s : "");
        const char *task = str_field(json_object_get(status, "slurm"), "array_task_id");
        if (task)
            c->task_id = atol(task);
    } else {
        c->ok = inferred != NULL;
        if (!c->ok)
            snprintf(c->error, sizeof c->error, "no inferred.json and no status.json");
    }
    if (!c->device[0])
        snprintf(c->device, sizeof c->device, "%s",
                 (s = str_field(json_object_get(meta, "device"), "spec")) ? s : "?");
    if (c->ok && inferred)
        read_params(c, inferred, meta);
    json_decref(status);
    json_decref(meta);
    json_decref(inferred);
    char csv[1200];
    snprintf(csv, sizeof csv, "%s/pchase.csv", cdir);
    if (c->ok && gd_fleet_curve_read(csv, &c->curve, err) != 0) {
        json_decref(c->params);
        return -1;
    }
    return 1;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Card directories and .partial-* leftovers, sorted. */
static int list_dir(const char *dir, char ***names, size_t *count, gd_err *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return gd_fail(err, "%s: cannot open the directory", dir);
    size_t cap = 16, n = 0;
    char **v = malloc(cap * sizeof *v);
    struct dirent *ent;
    while (v && (ent = readdir(d))) {
        if (!strcmp(ent->d_name, ".") || !strcmp(ent->d_name, ".."))
            continue;
        char path[1400];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        if (n == cap) {
            char **grown = realloc(v, (cap *= 2) * sizeof *v);
            if (!grown)
                break;
            v = grown;
        }
        v[n++] = strdup(ent->d_name);
    }
    closedir(d);
    if (!v)
        return gd_fail(err, "out of memory");
    qsort(v, n, sizeof *v, compare_names);
    *names = v;
    *count = n;
    return 0;
}

/* ---- writing ----------------------------------------------------------------- */

static void md_number(gd_text *t, double x)
{
    if (x == floor(x) && fabs(x) < 1e15)
        gd_text_printf(t, "%.0f", x);
    else
        gd_text_printf(t, "%.4g", x);
}

typedef struct merge_state {
    card *cards;
    size_t card_count;
    json_t *doc;            /* fleet.json */
    json_t *failures;       /* [{card, device, reason}] */
    json_t *outliers;       /* [{card, parameter, value, median, mad, robust_z}] */
} merge_state;

static void add_parameters(merge_state *m, gd_fleet_summary *sum)
{
    json_t *names = json_object(); /* union of names, in first-seen order */
    for (size_t i = 0; i < m->card_count; i++) {
        const char *key;
        json_t *v;
        json_object_foreach(m->cards[i].params, key, v) json_object_set_new(names, key, json_true());
    }
    json_t *params = json_object();
    double *values = malloc((m->card_count + 1) * sizeof *values);
    const char *pname;
    json_t *unused;
    json_object_foreach(names, pname, unused) {
        size_t n = 0;
        json_t *per_card = json_object();
        for (size_t i = 0; i < m->card_count; i++) {
            json_t *v = json_object_get(m->cards[i].params, pname);
            if (v) {
                values[n++] = json_number_value(v);
                json_object_set_new(per_card, m->cards[i].name, json_real(json_number_value(v)));
            }
        }
        double med, lo, hi, mad;
        if (!values || gd_fleet_stats(values, n, &med, &lo, &hi, &mad) != 0) {
            json_decref(per_card);
            continue;
        }
        json_t *p = json_object();
        json_object_set_new(p, "cards", json_integer((json_int_t)n));
        json_object_set_new(p, "median", json_real(med));
        json_object_set_new(p, "min", json_real(lo));
        json_object_set_new(p, "max", json_real(hi));
        json_object_set_new(p, "mad", json_real(mad));
        json_t *flagged = json_array();
        for (size_t i = 0; i < m->card_count; i++) {
            json_t *v = json_object_get(m->cards[i].params, pname);
            double z;
            if (!v || !gd_fleet_is_outlier(json_number_value(v), med, mad, n, &z))
                continue;
            json_array_append_new(flagged, json_string(m->cards[i].name));
            json_t *o = json_object();
            json_object_set_new(o, "card", json_string(m->cards[i].name));
            json_object_set_new(o, "device", json_string(m->cards[i].device));
            json_object_set_new(o, "parameter", json_string(pname));
            json_object_set_new(o, "value", json_real(json_number_value(v)));
            json_object_set_new(o, "median", json_real(med));
            json_object_set_new(o, "mad", json_real(mad));
            json_object_set_new(o, "robust_z", isfinite(z) ? json_real(z) : json_null());
            json_array_append_new(m->outliers, o);
            sum->outliers++;
        }
        json_object_set_new(p, "outliers", flagged);
        json_object_set_new(p, "values", per_card);
        json_object_set_new(params, pname, p);
        sum->parameters++;
    }
    free(values);
    json_decref(names);
    json_object_set_new(m->doc, "parameters", params);
}

static int write_markdown(const char *dir, const merge_state *m, const gd_fleet_summary *sum,
                          gd_err *err)
{
    gd_text t;
    gd_text_init(&t);
    gd_text_printf(&t, "# Fleet: %s\n\n", dir);
    gd_text_printf(&t, "%zu cards: %zu ok, %zu failed", sum->cards, sum->ok, sum->failed);
    if (sum->missing)
        gd_text_printf(&t, ", %zu array tasks without a result", sum->missing);
    gd_text_printf(&t, "; %zu parameters compared, %zu outliers.\n\n", sum->parameters,
                   sum->outliers);
    gd_text_printf(&t, "## Cards\n\n| card | device | host | PCI bus id | status |\n"
                       "| --- | --- | --- | --- | --- |\n");
    for (size_t i = 0; i < m->card_count; i++) {
        const card *c = &m->cards[i];
        gd_text_printf(&t, "| %s | %s | %s | %s | %s |\n", c->name, c->device,
                       c->host[0] ? c->host : "-", c->pci_bus_id[0] ? c->pci_bus_id : "-",
                       c->ok ? "ok" : "failed");
    }
    gd_text_printf(&t, "\n## Outliers\n\n");
    if (json_array_size(m->outliers) == 0)
        gd_text_printf(&t, "None: no card stands out on any parameter.\n");
    else
        gd_text_printf(&t, "| card | parameter | value | fleet median | MAD | robust z |\n"
                           "| --- | --- | --- | --- | --- | --- |\n");
    size_t i;
    json_t *o;
    json_array_foreach(m->outliers, i, o) {
        gd_text_printf(&t, "| %s | %s | ", str_field(o, "card"), str_field(o, "parameter"));
        md_number(&t, json_number_value(json_object_get(o, "value")));
        gd_text_printf(&t, " | ");
        md_number(&t, json_number_value(json_object_get(o, "median")));
        gd_text_printf(&t, " | ");
        md_number(&t, json_number_value(json_object_get(o, "mad")));
        json_t *z = json_object_get(o, "robust_z");
        if (json_is_number(z))
            gd_text_printf(&t, " | %.1f |\n", json_number_value(z));
        else
            gd_text_printf(&t, " | inf (MAD 0) |\n");
    }
    gd_text_printf(&t, "\nRule: flagged when |value - median| >= max(%g, %g x |median|) and the "
                       "robust z = %.4f (value - median) / MAD exceeds %.1f (or MAD is 0), over at "
                       "least %d cards.\n",
                   GD_FLEET_MIN_ABS_DIFF, GD_FLEET_MIN_REL_DIFF, GD_FLEET_MAD_TO_Z,
                   GD_FLEET_OUTLIER_Z, GD_FLEET_MIN_CARDS);
    gd_text_printf(&t, "\n## Parameters\n\n| parameter | cards | median | min | max | MAD | "
                       "outliers |\n| --- | --- | --- | --- | --- | --- | --- |\n");
    const char *pname;
    json_t *p;
    json_object_foreach(json_object_get(m->doc, "parameters"), pname, p) {
        gd_text_printf(&t, "| %s | %lld | ", pname,
                       (long long)json_integer_value(json_object_get(p, "cards")));
        static const char *const cols[] = {"median", "min", "max", "mad"};
        for (size_t c = 0; c < 4; c++) {
            md_number(&t, json_number_value(json_object_get(p, cols[c])));
            gd_text_printf(&t, " | ");
        }
        json_t *fl = json_object_get(p, "outliers");
        if (json_array_size(fl) == 0)
            gd_text_printf(&t, "- |\n");
        for (size_t k = 0; k < json_array_size(fl); k++)
            gd_text_printf(&t, "%s%s", json_string_value(json_array_get(fl, k)),
                           k + 1 < json_array_size(fl) ? ", " : " |\n");
    }
    gd_text_printf(&t, "\n## Failed runs\n\n");
    if (json_array_size(m->failures) == 0)
        gd_text_printf(&t, "None.\n");
    json_array_foreach(m->failures, i, o)
        gd_text_printf(&t, "- %s (%s): %s\n", str_field(o, "card"), str_field(o, "device"),
                       str_field(o, "reason"));
    gd_text_printf(&t, "\n## p-chase, every card\n\n");
    if (sum->plotted)
        gd_text_printf(&t, "![every card's p-chase](plots/fleet-pchase.png)\n");
    else
        gd_text_printf(&t, "Not drawn: %s\n", sum->plot_note);
    char path[1200];
    snprintf(path, sizeof path, "%s/fleet.md", dir);
    int rc = gd_text_write_atomic(&t, path, err);
    gd_text_free(&t);
    return rc;
}

/* Array tasks fleet-job.json expects that left no card: "missing". */
static void add_missing_tasks(const char *dir, merge_state *m, gd_fleet_summary *sum)
{
    json_t *job = load_json(dir, "fleet-job.json");
    json_int_t tasks = json_integer_value(json_object_get(job, "array_size"));
    for (json_int_t t = 0; t < tasks; t++) {
        int seen = 0;
        for (size_t i = 0; i < m->card_count && !seen; i++)
            seen = m->cards[i].task_id == t;
        size_t k;
        json_t *f;
        json_array_foreach(m->failures, k, f) {
            const json_t *task = json_object_get(f, "task");
            seen |= task && json_integer_value(task) == t;
        }
        if (seen)
            continue;
        json_t *o = json_object();
        char name[64];
        snprintf(name, sizeof name, "task %lld", (long long)t);
        json_object_set_new(o, "card", json_string(name));
        json_object_set_new(o, "device", json_string("?"));
        json_object_set_new(o, "task", json_integer(t));
        json_object_set_new(o, "reason", json_string("no result directory: the array task did not run "
                                                     "or died before it started (see slurm/*.out)"));
        json_array_append_new(m->failures, o);
        sum->missing++;
    }
    json_decref(job);
}

int gd_fleet_merge(const char *dir, int plots, gd_fleet_summary *sum, gd_err *err)
{
    memset(sum, 0, sizeof *sum);
    char **names = NULL;
    size_t name_count = 0;
    if (list_dir(dir, &names, &name_count, err) != 0)
        return -1;
    merge_state m = {.cards = calloc(name_count + 1, sizeof(card)),
                     .doc = json_object(),
                     .failures = json_array(),
                     .outliers = json_array()};
    int rc = -1;
    if (!m.cards) {
        gd_fail(err, "out of memory");
        goto out;
    }
    json_t *cards_json = json_array();
    json_object_set_new(m.doc, "dir", json_string(dir));
    json_object_set_new(m.doc, "cards", cards_json);
    for (size_t i = 0; i < name_count && m.card_count < MAX_CARDS; i++) {
        if (!strncmp(names[i], ".partial-", 9)) {
            long job = -1, task = -1;
            sscanf(names[i] + 9, "%ld-%ld", &job, &task);
            json_t *o = json_object();
            json_object_set_new(o, "card", json_string(names[i]));
            json_object_set_new(o, "device", json_string("?"));
            if (task >= 0)
                json_object_set_new(o, "task", json_integer(task));
            json_object_set_new(o, "reason", json_string("interrupted: the task never moved its "
                                                         "results into place"));
            json_array_append_new(m.failures, o);
            sum->failed++;
            continue;
        }
        /* hidden entries, and a card's earlier results that a resubmitted
         * task moved aside (fleet_slurm.c's NAME.replaced-JOB-TASK), are not cards */
        if (names[i][0] == '.' || strstr(names[i], ".replaced-"))
            continue;
        int found = read_card(dir, names[i], &m.cards[m.card_count], err);
        if (found < 0)
            goto out;
        if (!found)
            continue;
        card *c = &m.cards[m.card_count++];
        sum->cards++;
        c->ok ? sum->ok++ : sum->failed++;
        json_t *o = json_object();
        json_object_set_new(o, "card", json_string(c->name));
        json_object_set_new(o, "device", json_string(c->device));
        json_object_set_new(o, "host", c->host[0] ? json_string(c->host) : json_null());
        json_object_set_new(o, "pci_bus_id", c->pci_bus_id[0] ? json_string(c->pci_bus_id) : json_null());
        json_object_set_new(o, "status", json_string(c->ok ? "ok" : "failed"));
        json_object_set_new(o, "error", c->error[0] ? json_string(c->error) : json_null());
        if (c->task_id >= 0)
            json_object_set_new(o, "task", json_integer(c->task_id));
        json_array_append_new(cards_json, o);
        if (!c->ok) {
            json_t *f = json_object();
            json_object_set_new(f, "card", json_string(c->name));
            json_object_set_new(f, "device", json_string(c->device));
            if (c->task_id >= 0)
                json_object_set_new(f, "task", json_integer(c->task_id));
            json_object_set_new(f, "reason", json_string(c->error[0] ? c->error : "failed"));
            json_array_append_new(m.failures, f);
        }
    }
    if (sum->cards == 0 && json_array_size(m.failures) == 0) {
        gd_fail(err, "%s: no results directory of a card (status.json, meta.json or "
                     "inferred.json) in it",
                dir);
        goto out;
    }
    add_missing_tasks(dir, &m, sum);
    add_parameters(&m, sum);
    json_object_set_new(m.doc, "outliers", json_incref(m.outliers));
    json_object_set_new(m.doc, "failed", json_incref(m.failures));
    json_t *rule = json_object();
    json_object_set_new(rule, "min_cards", json_integer(GD_FLEET_MIN_CARDS));
    json_object_set_new(rule, "min_abs_diff", json_real(GD_FLEET_MIN_ABS_DIFF));
    json_object_set_new(rule, "min_rel_diff", json_real(GD_FLEET_MIN_REL_DIFF));
    json_object_set_new(rule, "robust_z", json_real(GD_FLEET_OUTLIER_Z));
    json_object_set_new(m.doc, "outlier_rule", rule);

    if (plots) {
        const gd_fleet_curve *curves[MAX_CARDS];
        const char *titles[MAX_CARDS];
        int flagged[MAX_CARDS];
        size_t n = 0;
        for (size_t i = 0; i < m.card_count; i++) {
            if (!m.cards[i].curve.count)
                continue;
            flagged[n] = 0;
            size_t k;
            json_t *o;
            json_array_foreach(m.outliers, k, o) flagged[n] |= !strcmp(str_field(o, "card"),
                                                                        m.cards[i].name);
            curves[n] = &m.cards[i].curve;
            titles[n++] = m.cards[i].name;
        }
        gd_err plot_err;
        if (n == 0) {
            snprintf(sum->plot_note, sizeof sum->plot_note, "no card has a pchase.csv");
        } else if (gd_fleet_plot(dir, curves, titles, flagged, n, &plot_err) != 0) {
            snprintf(sum->plot_note, sizeof sum->plot_note, "%s", plot_err.msg);
        } else {
            sum->plotted = 1;
        }
    } else {
        snprintf(sum->plot_note, sizeof sum->plot_note, "plots were not asked for");
    }
    json_object_set_new(m.doc, "plot", sum->plotted ? json_string("plots/fleet-pchase.png")
                                                    : json_null());
    json_object_set_new(m.doc, "plot_note", sum->plotted ? json_null() : json_string(sum->plot_note));
    json_t *counts = json_object();
    json_object_set_new(counts, "cards", json_integer((json_int_t)sum->cards));
    json_object_set_new(counts, "ok", json_integer((json_int_t)sum->ok));
    json_object_set_new(counts, "failed", json_integer((json_int_t)sum->failed));
    json_object_set_new(counts, "missing", json_integer((json_int_t)sum->missing));
    json_object_set_new(counts, "outliers", json_integer((json_int_t)sum->outliers));
    json_object_set_new(m.doc, "summary", counts);

    char path[1200];
    snprintf(path, sizeof path, "%s/fleet.json", dir);
    if (gd_write_json_atomic(path, m.doc, err) != 0 || write_markdown(dir, &m, sum, err) != 0)
        goto out;
    rc = 0;
out:
    for (size_t i = 0; m.cards && i < m.card_count; i++) {
        json_decref(m.cards[i].params);
        gd_fleet_curve_free(&m.cards[i].curve);
    }
    free(m.cards);
    for (size_t i = 0; i < name_count; i++)
        free(names[i]);
    free(names);
    json_decref(m.doc);
    json_decref(m.failures);
    json_decref(m.outliers);
    return rc;
}
