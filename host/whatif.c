/* whatif.c -- `gpudissect whatif`: every combination of the --vary values,
 * every workload under each, and the results directory.
 *
 * `--vary KEY=V1,V2,...` (up to GD_WHATIF_MAX_VARY of them) spans a grid: the
 * combinations are its every point, the first key varying slowest, so the
 * first combination is every key's first value -- the baseline the speedups
 * are taken against.  `--set KEY=V` fixes a key in every combination.  Each
 * combination's overrides are checked by opening the device with them before
 * any workload runs, so a misspelt key or a bad value costs one line of error
 * and no simulation.  Each workload then runs on a freshly opened device (its
 * own cold caches, and counters that are its own), and after every
 * combination the tables, the picture and the report are rewritten
 * (atomically): an interrupted experiment keeps what it finished.
 */
#include "host/whatif.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/results.h"
#include "host/device_registry.h"
#include "host/meta.h"
#include "kernels/workloads/workload.h"

typedef struct vary_axis {
    char key[GD_WHATIF_MAX_JOINT][128]; /* keys that take each value together */
    size_t keys;
    char *values[GD_WHATIF_MAX_VALUES];
    size_t count;
} vary_axis;

/* "L1D.reorder=false,true" -> key "L1D.reorder", values false, true;
 * "L1D.reorder+L1D.pipelined_issue=false,true" -> both keys take each value. */
static int parse_vary(const char *spec, vary_axis *axis, gd_err *err)
{
    memset(axis, 0, sizeof *axis);
    const char *eq = strchr(spec, '=');
    if (!eq || eq == spec)
        return gd_fail(err, "--vary '%s': expected SECTION.KEY=V1,V2,... (e.g. "
                            "L1D.reorder=false,true)", spec);
    for (const char *k = spec; k < eq;) {
        const char *plus = memchr(k, '+', (size_t)(eq - k));
        const char *end = plus ? plus : eq;
        const char *dot = memchr(k, '.', (size_t)(end - k));
        if (end == k || !dot || dot == k || dot + 1 == end || (plus && plus + 1 == eq))
            return gd_fail(err, "--vary '%s': expected SECTION.KEY=V1,V2,... (e.g. "
                                "L1D.reorder=false,true)", spec);
        if (axis->keys == GD_WHATIF_MAX_JOINT || (size_t)(end - k) >= sizeof axis->key[0])
            return gd_fail(err, "--vary '%s': at most %d keys of up to 127 characters joined "
                                "with '+'", spec, GD_WHATIF_MAX_JOINT);
        memcpy(axis->key[axis->keys], k, (size_t)(end - k));
        axis->key[axis->keys++][end - k] = 0;
        k = plus ? plus + 1 : eq;
    }
    const char *p = eq + 1;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == 0)
            return gd_fail(err, "--vary '%s': an empty value", spec);
        if (axis->count == GD_WHATIF_MAX_VALUES)
            return gd_fail(err, "--vary '%s': more than %d values", spec, GD_WHATIF_MAX_VALUES);
        axis->values[axis->count] = strndup(p, len);
        if (!axis->values[axis->count])
            return gd_fail(err, "out of memory");
        axis->count++;
        if (!comma)
            break;
        p = comma + 1;
    }
    return 0;
}

static void axes_free(vary_axis *axes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t v = 0; v < axes[i].count; v++)
            free(axes[i].values[v]);
}

int gd_whatif_parse_workload(const char *spec, const gd_probe **out, uint64_t *point, gd_err *err)
{
    char name[64];
    const char *colon = strchr(spec, ':');
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    if (len == 0 || len >= sizeof name)
        return gd_fail(err, "--workloads: '%s' is not a workload name", spec);
    memcpy(name, spec, len);
    name[len] = 0;
    const gd_probe *w = gd_workload_find(name);
    if (!w) {
        size_t n;
        const gd_probe *const *all = gd_workload_list(&n);
        char known[512] = "";
        for (size_t i = 0; i < n; i++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                     all[i]->name);
        return gd_fail(err, "--workloads: unknown workload '%s' (known: %s)", name, known);
    }
    *point = w->example_point;
    if (colon) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(colon + 1, &end, 10);
        if (!colon[1] || *end || errno || colon[1] == '-')
            return gd_fail(err, "--workloads: '%s': the value after ':' must be a number", spec);
        *point = v;
    }
    *out = w;
    return 0;
}

/* The workloads of the spec, "all" being every listed one but fig2. */
static int parse_workloads(const char *spec, const gd_probe **list, uint64_t *points,
                           char (*labels)[64], size_t *count, gd_err *err)
{
    *count = 0;
    if (!spec || !*spec)
        return gd_fail(err, "--workloads is required (e.g. --workloads all, or bfs,spmv,vecadd)");
    if (!strcmp(spec, "all")) {
        size_t n;
        const gd_probe *const *all = gd_workload_list(&n);
        for (size_t i = 0; i < n && *count < GD_WHATIF_MAX_WORKLOADS; i++) {
            if (!strcmp(all[i]->name, "fig2"))
                continue;
            list[*count] = all[i];
            points[*count] = all[i]->example_point;
            snprintf(labels[*count], 64, "%s", all[i]->name);
            (*count)++;
        }
        return 0;
    }
    char *copy = strdup(spec), *save = NULL;
    if (!copy)
        return gd_fail(err, "out of memory");
    int rc = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (*count == GD_WHATIF_MAX_WORKLOADS) {
            rc = gd_fail(err, "--workloads: more than %d", GD_WHATIF_MAX_WORKLOADS);
            break;
        }
        if (gd_whatif_parse_workload(tok, &list[*count], &points[*count], err) != 0) {
            rc = -1;
            break;
        }
        snprintf(labels[*count], 64, "%s", tok);
        (*count)++;
    }
    free(copy);
    return rc;
}

/* The overrides of combination `c`: the fixed --set ones, then one value per
 * axis (the first axis varies slowest), for each of the axis's keys.  buf has
 * room for GD_WHATIF_MAX_VARY x GD_WHATIF_MAX_JOINT overrides. */
static size_t combo_overrides(const gd_whatif_opts *o, const vary_axis *axes, size_t naxes,
                              size_t c, char (*buf)[256], const char **ov)
{
    size_t n = 0;
    for (size_t i = 0; i < o->set_count; i++)
        ov[n++] = o->set[i];
    size_t rest = c;
    size_t idx[GD_WHATIF_MAX_VARY];
    for (size_t a = naxes; a-- > 0;) {
        idx[a] = rest % axes[a].count;
        rest /= axes[a].count;
    }
    size_t b = 0;
    for (size_t a = 0; a < naxes; a++)
        for (size_t k = 0; k < axes[a].keys; k++, b++) {
            snprintf(buf[b], 256, "%s=%s", axes[a].key[k], axes[a].values[idx[a]]);
            ov[n++] = buf[b];
        }
    return n;
}

static int write_outputs(const gd_whatif *w, const gd_whatif_opts *o, json_t *meta,
                         gd_err *err)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/meta.json", o->out_dir);
    char now[64];
    gd_iso8601_now(now, sizeof now);
    json_object_set_new(meta, "updated", json_string(now));
    json_object_set_new(meta, "combinations_done", json_integer((json_int_t)w->combos_done));
    if (gd_write_json_atomic(path, meta, err) != 0 ||
        gd_whatif_write_tables(w, o->out_dir, err) != 0 ||
        gd_whatif_write_report(w, o->out_dir, o->claim, o->claim_label, err) != 0)
        return -1;
    return 0;
}

int gd_whatif_run(const gd_whatif_opts *o, size_t *failed, gd_err *err)
{
    vary_axis axes[GD_WHATIF_MAX_VARY];
    size_t naxes = 0;
    const gd_probe *wl[GD_WHATIF_MAX_WORKLOADS];
    uint64_t points[GD_WHATIF_MAX_WORKLOADS];
    char labels[GD_WHATIF_MAX_WORKLOADS][64];
    size_t nwl = 0;
    gd_whatif w;
    json_t *meta = NULL;
    int rc = -1;
    memset(&w, 0, sizeof w);
    *failed = 0;
    if (!o->device || !*o->device)
        return gd_fail(err, "--device is required (e.g. --device sim:cn110457238)");
    if (!o->out_dir || !*o->out_dir)
        return gd_fail(err, "--out is required");
    if (o->vary_count > GD_WHATIF_MAX_VARY)
        return gd_fail(err, "at most %d --vary", GD_WHATIF_MAX_VARY);
    if (o->set_count > GD_WHATIF_MAX_SETS)
        return gd_fail(err, "at most %d --set", GD_WHATIF_MAX_SETS);
    int is_sim = !strncmp(o->device, "sim:", 4);
    if (!is_sim && (o->vary_count || o->set_count))
        return gd_fail(err, "--vary and --set need a sim device: %s is a real GPU, whose "
                            "hierarchy cannot be overridden (run it without them: one "
                            "combination, the card as it is)", o->device);
    if (!is_sim && o->trace)
        return gd_fail(err, "--trace needs a sim device (%s has no LSU trace)", o->device);
    if (parse_workloads(o->workloads, wl, points, labels, &nwl, err) != 0)
        return -1;
    size_t combos = 1;
    for (; naxes < o->vary_count; naxes++) {
        if (parse_vary(o->vary[naxes], &axes[naxes], err) != 0) {
            naxes++;
            goto out;
        }
        combos *= axes[naxes].count;
        if (combos > GD_WHATIF_MAX_COMBOS) {
            naxes++;
            gd_fail(err, "--vary: more than %d combinations", GD_WHATIF_MAX_COMBOS);
            goto out;
        }
    }
    w.combo_count = combos;
    w.workload_count = nwl;
    w.combo = calloc(combos, sizeof *w.combo);
    w.workload = calloc(nwl, sizeof *w.workload);
    w.cells = calloc(combos * nwl, sizeof *w.cells);
    if (!w.combo || !w.workload || !w.cells) {
        gd_fail(err, "out of memory");
        goto out;
    }
    snprintf(w.device, sizeof w.device, "%s", o->device);
    snprintf(w.command, sizeof w.command, "%s", o->command ? o->command : "");
    for (size_t k = 0; k < nwl; k++)
        snprintf(w.workload[k], sizeof w.workload[k], "%s", labels[k]);

    /* every combination's overrides, checked on the device first */
    char buf[GD_WHATIF_MAX_VARY * GD_WHATIF_MAX_JOINT][256];
    const char *ov[GD_WHATIF_MAX_VARY * GD_WHATIF_MAX_JOINT + GD_WHATIF_MAX_SETS];
    for (size_t c = 0; c < combos; c++) {
        size_t n = combo_overrides(o, axes, naxes, c, buf, ov);
        w.combo[c][0] = 0;
        for (size_t i = o->set_count; i < n; i++)
            snprintf(w.combo[c] + strlen(w.combo[c]), GD_WHATIF_LABEL_BYTES - strlen(w.combo[c]),
                     "%s%s", i > o->set_count ? " " : "", ov[i]);
        if (!naxes)
            snprintf(w.combo[c], GD_WHATIF_LABEL_BYTES, "(arch as is)");
        gd_device_opts dopts = {.overrides = ov, .override_count = n};
        gd_device *dev = NULL;
        if (gd_device_open(o->device, &dopts, &dev, err) != 0)
            goto out;
        if (c == 0)
            snprintf(w.device_name, sizeof w.device_name, "%s", gd_device_get_info(dev)->name);
        gd_device_close(dev);
    }
    if (gd_mkdirs(o->out_dir, err) != 0)
        goto out;

    meta = json_object();
    char rev[64], now[64];
    gd_git_revision(rev, sizeof rev);
    gd_iso8601_now(now, sizeof now);
    json_object_set_new(meta, "command", json_string(w.command));
    json_object_set_new(meta, "device", json_string(w.device));
    json_object_set_new(meta, "device_name", json_string(w.device_name));
    json_object_set_new(meta, "git_revision", json_string(rev));
    json_object_set_new(meta, "start", json_string(now));
    json_object_set_new(meta, "seed", json_integer((json_int_t)o->seed));
    json_t *jc = json_array(), *jw = json_array(), *js = json_array();
    for (size_t c = 0; c < combos; c++)
        json_array_append_new(jc, json_string(w.combo[c]));
    for (size_t k = 0; k < nwl; k++)
        json_array_append_new(jw, json_string(w.workload[k]));
    for (size_t i = 0; i < o->set_count; i++)
        json_array_append_new(js, json_string(o->set[i]));
    json_object_set_new(meta, "combinations", jc);
    json_object_set_new(meta, "workloads", jw);
    json_object_set_new(meta, "set", js);
    if (o->claim > 0) {
        json_object_set_new(meta, "claim", json_real(o->claim));
        json_object_set_new(meta, "claim_label", json_string(o->claim_label ? o->claim_label : ""));
    }

    for (size_t c = 0; c < combos; c++) {
        size_t n = combo_overrides(o, axes, naxes, c, buf, ov);
        gd_device_opts dopts = {.overrides = ov, .override_count = n};
        for (size_t k = 0; k < nwl; k++) {
            gd_whatif_cell *cell = gd_whatif_at(&w, c, k);
            char trace_dir[1200];
            snprintf(trace_dir, sizeof trace_dir, "%s/traces/c%zu-%s", o->out_dir, c,
                     wl[k]->name);
            gd_err werr;
            gd_device *dev = NULL;
            if (o->progress)
                fprintf(o->progress, "whatif: c%zu/%zu %s: %s ...", c + 1, combos, w.combo[c],
                        labels[k]);
            if (gd_device_open(o->device, &dopts, &dev, &werr) != 0) {
                snprintf(cell->note, sizeof cell->note, "%s", werr.msg);
            } else {
                if (o->trace && gd_mkdirs(trace_dir, &werr) != 0)
                    snprintf(cell->note, sizeof cell->note, "%s", werr.msg);
                else
                    gd_whatif_exec(dev, wl[k], points[k], o->seed, o->trace ? trace_dir : NULL,
                                   cell, &werr);
                if (cell->ran && isfinite(cell->rows_written)) {
                    /* PCM (issue 13): the Figure-2 data, writes per row, sorted */
                    char rows[1200];
                    snprintf(rows, sizeof rows, "%s/rows", o->out_dir);
                    if (gd_mkdirs(rows, &werr) == 0) {
                        snprintf(rows, sizeof rows, "%s/rows/c%zu-%s.csv", o->out_dir, c, wl[k]->name);
                        gd_whatif_write_row_writes(dev, rows, &werr);
                    }
                }
                gd_device_close(dev);
            }
            if (!cell->ran || cell->errors != 0)
                (*failed)++;
            if (o->progress) {
                if (!cell->ran)
                    fprintf(o->progress, " failed: %s\n", cell->note);
                else if (isfinite(cell->cycles))
                    fprintf(o->progress, " %.0f cycles%s\n", cell->cycles,
                            cell->errors != 0 ? " (WRONG output)" : "");
                else /* a cuda device: no cycle counter, the host's time */
                    fprintf(o->progress, " %.3f ms (host)%s\n", cell->wall_ms,
                            cell->errors != 0 ? " (WRONG output)" : "");
            }
        }
        w.combos_done = c + 1;
        if (write_outputs(&w, o, meta, err) != 0)
            goto out;
    }
    gd_err perr;
    if (is_sim && gd_whatif_plot(&w, o->out_dir, o->claim, o->claim_label, &perr) != 0) {
        /* the tables and the report stand without the picture */
        json_object_set_new(meta, "plot_error", json_string(perr.msg));
        if (o->progress)
            fprintf(o->progress, "whatif: no picture: %s\n", perr.msg);
    }
    char end[64];
    gd_iso8601_now(end, sizeof end);
    json_object_set_new(meta, "end", json_string(end));
    rc = write_outputs(&w, o, meta, err);
out:
    axes_free(axes, naxes);
    json_decref(meta);
    free(w.combo);
    free(w.workload);
    free(w.cells);
    return rc;
}
