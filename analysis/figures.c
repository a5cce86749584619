/* figures.c -- the plots of a run: every curve, its model, its plateaus and knees.
 *
 * For each probe of a results directory: the measured median of its primary
 * series with the min-max band (from the CSV), the analytical model of the arch
 * overlaid where the probe has one, the plateaus of inferred.json drawn at their
 * levels with the level's name when inference named it ("L1D 32 cycles"), and
 * every knee marked with the capacity it pins ("64KiB", or "L0I 16KiB" where a
 * level's size came from it).  The instruction- and constant-cache probes draw
 * the figures of Jia et al. 2019: CPI vs code size (their Fig. 3.6), the
 * victim's miss rate vs the attacker's size (3.8), latency vs distinct
 * addresses (3.9, linear axis), and for each level the attacker-victim pairs
 * one figure with victim and attacker CPI per placement (3.7:
 * plots/av-LEVEL.png).  analysis/plot.c writes each picture with its data and
 * gnuplot script beside it.
 */
#include "analysis/figures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/model.h"
#include "analysis/plateau_fit.h"
#include "analysis/plot.h"

#define MAX_MARKS 32
#define FIGURE_NAME_BYTES 160 /* a curve's label or av-LEVEL, NUL included */

/* The pictures whose data and script are written, drawn together at the end
 * (gd_plot_draw_all: several gnuplots at once). */
typedef struct figure_names {
    char (*name)[FIGURE_NAME_BYTES];
    size_t count, cap;
} figure_names;

static int figure_script(const char *plots_dir, const gd_plot_spec *ps, figure_names *names,
                         gd_err *err)
{
    if (gd_plot_write_script(plots_dir, ps, err) != 0)
        return -1;
    if (names->count == names->cap)
        return gd_fail(err, "plot: more pictures than curves");
    snprintf(names->name[names->count++], FIGURE_NAME_BYTES, "%s", ps->name);
    return 0;
}

/* The name inference gave the plateau at `level` of curve `label`, or NULL. */
static const char *plateau_name(const gd_run *run, const char *label, double level)
{
    for (int i = 0; i < GD_INF_COUNT; i++) {
        const gd_inferred_level *l = &run->inferred.level[i];
        if (l->present && l->has_latency && fabs(l->latency_cycles - level) < 1e-6) {
            const json_t *lv = json_object_get(run->inferred_doc, "levels");
            size_t k;
            const json_t *o;
            json_array_foreach(lv, k, o) {
                const char *nm = json_string_value(json_object_get(o, "name"));
                const char *from =
                    json_string_value(json_object_get(json_object_get(o, "from"), "latency"));
                if (nm && from && !strcmp(nm, gd_inferred_level_name((gd_inferred_name)i)) &&
                    !strcmp(from, label))
                    return nm;
            }
        }
    }
    return NULL;
}

/* The level whose size inference read off this curve's knee at x, or NULL. */
static const char *knee_name(const gd_run *run, const char *label, double x)
{
    for (int i = 0; i < GD_INF_COUNT; i++) {
        const gd_inferred_level *l = &run->inferred.level[i];
        if (l->present && l->has_size && !l->size_is_lower_bound && !strcmp(l->size_from, label) &&
            fabs(l->knee_below - x) < 0.5)
            return gd_inferred_level_name((gd_inferred_name)i);
    }
    return NULL;
}

/* Axis titles of a probe's figure; 1 if its x is bytes (log axis). */
static int axis_labels(const gd_probe *p, const char **x, const char **y)
{
    const char *n = gd_probe_describe(p).name;
    if (!strcmp(n, "pchase_stride") || !strcmp(n, "const_stride")) {
        *x = "stride";
        *y = "cycles per access";
    } else if (!strcmp(n, "icache_seq")) {
        *x = "code size (loop of straight-line instructions)";
        *y = "cycles per instruction";
    } else if (!strcmp(n, "icache_av")) {
        *x = "attacker size";
        *y = "victim cycles per instruction";
    } else if (!strcmp(n, "const_icache_share")) {
        *x = "attacker code size";
        *y = "victim miss rate (L1.5 constant)";
    } else if (!strcmp(n, "const_bcast")) {
        *x = "distinct addresses per warp";
        *y = "cycles per warp load";
        return 0;
    } else if (!strcmp(n, "smem_bank")) {
        *x = "stride between lanes (bytes)";
        *y = "cycles per shared load";
        return 0;
    } else if (!strcmp(n, "coalesce")) {
        *x = "stride between lanes (bytes), or active lanes";
        *y = "L1 requests per load instruction";
        return 0;
    } else if (!strcmp(n, "mshr")) {
        *x = "misses issued, or requests to one line";
        *y = "cycles until the follower's value (from the first load)";
        return 0;
    } else if (!strcmp(n, "resv_stall")) {
        *x = "lines of one L1 set in the load";
        *y = "cycles until the load's values (from its issue)";
        return 0;
    } else if (!strcmp(n, "pchase_fine")) {
        *x = "lines in one L1 set";
        *y = "cycles per access";
        return 0;
    } else if (!strcmp(n, "const_fine")) {
        *x = "lines in one L1C set";
        *y = "cycles per access";
        return 0;
    } else {
        *x = "footprint";
        *y = "cycles per access";
    }
    return 1;
}

static int curve_figure(const gd_run *run, const gd_curve *c, const gd_arch *arch,
                        const char *plots_dir, figure_names *names, gd_err *err)
{
    size_t n = c->count;
    if (!n)
        return 0;
    double *x = calloc(n, sizeof *x), *med = calloc(n, sizeof *med), *lo = calloc(n, sizeof *lo),
           *hi = calloc(n, sizeof *hi), *my = calloc(n, sizeof *my);
    uint64_t *xs = calloc(n, sizeof *xs), *bases = calloc(n, sizeof *bases);
    gd_model_point *mp = calloc(n, sizeof *mp);
    gd_plot_plateau plateaus[MAX_MARKS];
    gd_plot_knee knees[MAX_MARKS];
    size_t np = 0, nk = 0, m = 0;
    int rc = -1;
    if (!x || !med || !lo || !hi || !my || !xs || !bases || !mp) {
        gd_fail(err, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        const gd_summary *s = gd_point_summary(&c->points[i], gd_probe_primary_series(c->probe));
        const gd_summary *b = gd_point_summary(&c->points[i], "chain_base");
        x[m] = (double)c->points[i].x;
        med[m] = s ? s->median : NAN;
        lo[m] = s ? s->min : NAN;
        hi[m] = s ? s->max : NAN;
        xs[m] = c->points[i].x;
        bases[m] = b ? (uint64_t)b->mean : 0;
        m++;
    }
    size_t model_count = 0;
    if (arch && gd_model_curve(arch, gd_probe_describe(c->probe).name, &c->opts, xs, bases, m, mp, err) == 0) {
        for (size_t i = 0; i < m; i++)
            my[i] = mp[i].mean_cycles;
        model_count = m;
    }
    const json_t *info = json_object_get(json_object_get(run->inferred_doc, "curves"), c->label);
    size_t i;
    const json_t *o;
    /* the check the report uses too (compare.json "segmentations") */
    char why[200];
    int segmented = gd_plateau_fit(c, info, why, sizeof why);
    const char *unit = gd_plateau_unit(gd_probe_describe(c->probe).name);
    json_array_foreach(json_object_get(info, "plateaus"), i, o) {
        if (np == MAX_MARKS || !segmented)
            break;
        gd_plot_plateau *p = &plateaus[np++];
        p->x_first = json_number_value(json_object_get(o, "x_first"));
        p->x_last = json_number_value(json_object_get(o, "x_last"));
        p->level = json_number_value(json_object_get(o, "level"));
        const char *nm = plateau_name(run, c->label, p->level);
        if (unit[0])
            snprintf(p->label, sizeof p->label, "%s%s%.1f %s", nm ? nm : "", nm ? " " : "",
                     p->level, unit);
        else
            snprintf(p->label, sizeof p->label, "%s%s%.2f", nm ? nm : "", nm ? " " : "", p->level);
    }
    json_array_foreach(json_object_get(info, "knees"), i, o) {
        if (nk == MAX_MARKS)
            break;
        gd_plot_knee *k = &knees[nk++];
        k->x = json_number_value(json_object_get(o, "x_below"));
        char size[32];
        gd_format_bytes((uint64_t)k->x, size, sizeof size);
        const char *nm = knee_name(run, c->label, k->x);
        snprintf(k->label, sizeof k->label, "%s%s%s", nm ? nm : "", nm ? " " : "", size);
    }
    const char *spec = json_string_value(json_object_get(json_object_get(run->meta, "device"), "spec"));
    char title[512];
    snprintf(title, sizeof title, "%s on %s%s", c->label, spec ? spec : "?",
             segmented ? "" : " (not segmented into plateaus: no plateau labels)");
    char model_title[96];
    snprintf(model_title, sizeof model_title, "model (%s)", arch ? arch->name : "");
    const char *xlabel, *ylabel;
    int bytes = axis_labels(c->probe, &xlabel, &ylabel);
    gd_plot_spec ps = {
        .name = c->label,
        .title = title,
        .xlabel = xlabel,
        .ylabel = ylabel,
        .log_x = bytes,
        .x_is_bytes = bytes,
        .x = x,
        .median = med,
        .min = lo,
        .max = hi,
        .count = m,
        .measured_title = "measured median",
        .model_x = x,
        .model_y = my,
        .model_count = model_count,
        .model_title = model_title,
        .plateaus = plateaus,
        .plateau_count = np,
        .knees = knees,
        .knee_count = nk,
    };
    rc = figure_script(plots_dir, &ps, names, err);
out:
    free(x);
    free(med);
    free(lo);
    free(hi);
    free(my);
    free(xs);
    free(bases);
    free(mp);
    return rc;
}

static const gd_curve *curve_by_label(const gd_run *run, const char *label)
{
    for (size_t i = 0; i < run->curve_count; i++)
        if (!strcmp(run->curves[i].label, label))
            return &run->curves[i];
    return NULL;
}

static const char *const placement_titles[GD_PLACE_COUNT] = {
    [GD_PLACE_SAME_SUB] = "same sub-partition",
    [GD_PLACE_OTHER_SUB] = "other sub-partition, same SM",
    [GD_PLACE_OTHER_SM] = "other SM",
    [GD_PLACE_DATA_OTHER_SM] = "data attacker, other SM",
    [GD_PLACE_SAME_SUB_ISSUE] = "same sub-partition, no code (issue only)",
};

/* One series of a curve: x and median per point (owned arrays). */
static size_t series_xy(const gd_curve *c, const char *name, double **x, double **y)
{
    *x = calloc(c->count ? c->count : 1, sizeof **x);
    *y = calloc(c->count ? c->count : 1, sizeof **y);
    if (!*x || !*y)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < c->count; i++) {
        const gd_summary *s = gd_point_summary(&c->points[i], name);
        if (!s || !s->count)
            continue;
        (*x)[n] = (double)c->points[i].x;
        (*y)[n++] = s->median;
    }
    return n;
}

/* Fig. 3.7: victim and attacker CPI per placement, for the level under test. */
static int av_figure(const gd_run *run, gd_inferred_name level, const char *plots_dir,
                     figure_names *names, gd_err *err)
{
    const gd_curve *c[GD_PLACE_COUNT] = {0};
    size_t have = 0;
    for (int p = 0; p < GD_PLACE_COUNT; p++) {
        const gd_interference *r = &run->inferred.av[level][p];
        if (r->measured && (c[p] = curve_by_label(run, r->from)) != NULL)
            have++;
    }
    if (!have)
        return 0;
    double *xs[2 * GD_PLACE_COUNT] = {0}, *ys[2 * GD_PLACE_COUNT] = {0};
    char titles[2 * GD_PLACE_COUNT][96];
    gd_plot_series extra[2 * GD_PLACE_COUNT];
    size_t ne = 0, main_n = 0;
    double *main_x = NULL, *main_y = NULL;
    const char *main_title = NULL;
    char main_buf[96];
    int rc = -1;
    for (int p = 0; p < GD_PLACE_COUNT; p++) {
        if (!c[p])
            continue;
        for (int who = 0; who < 2; who++) {
            double *x, *y;
            size_t n = series_xy(c[p], who ? "attacker_cpi" : "victim_cpi", &x, &y);
            if (!n) {
                free(x);
                free(y);
                continue;
            }
            if (!main_x) {
                main_x = x;
                main_y = y;
                main_n = n;
                snprintf(main_buf, sizeof main_buf, "victim, %s", placement_titles[p]);
                main_title = main_buf;
                continue;
            }
            xs[ne] = x;
            ys[ne] = y;
            snprintf(titles[ne], sizeof titles[ne], "%s, %s", who ? "attacker" : "victim",
                     placement_titles[p]);
            extra[ne] = (gd_plot_series){.title = titles[ne], .x = x, .y = y, .count = n};
            ne++;
        }
    }
    if (!main_x) {
        rc = 0;
        goto out;
    }
    char name[64], title[256];
    snprintf(name, sizeof name, "av-%s", gd_inferred_level_name(level));
    const char *spec =
        json_string_value(json_object_get(json_object_get(run->meta, "device"), "spec"));
    const gd_inferred_level *l = &run->inferred.level[level];
    snprintf(title, sizeof title, "attacker vs victim sized for %s on %s%s%s",
             gd_inferred_level_name(level), spec ? spec : "?", l->has_scope ? ": private to " : "",
             l->has_scope ? (l->scope == GD_SCOPE_CHIP ? "the chip (shared)" : gd_scope_name(l->scope))
                          : "");
    gd_plot_spec ps = {
        .name = name,
        .title = title,
        .xlabel = "attacker size",
        .ylabel = "cycles per instruction (attacker data: cycles per load)",
        .log_x = 1,
        .x_is_bytes = 1,
        .x = main_x,
        .median = main_y,
        .count = main_n,
        .measured_title = main_title,
        .extra = extra,
        .extra_count = ne,
    };
    rc = figure_script(plots_dir, &ps, names, err);
out:
    free(main_x);
    free(main_y);
    for (size_t i = 0; i < ne; i++) {
        free(xs[i]);
        free(ys[i]);
    }
    return rc;
}

int gd_figures_write(const gd_run *run, const gd_arch *arch, unsigned jobs, gd_err *err)
{
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/plots", run->dir);
    figure_names names = {.cap = run->curve_count + GD_INF_COUNT};
    names.name = calloc(names.cap, sizeof *names.name);
    if (!names.name)
        return gd_fail(err, "out of memory");
    int rc = 0;
    for (size_t i = 0; i < run->curve_count && rc == 0; i++)
        rc = curve_figure(run, &run->curves[i], arch, dir, &names, err);
    for (int l = 0; l < GD_INF_COUNT && rc == 0; l++)
        rc = av_figure(run, (gd_inferred_name)l, dir, &names, err);
    const char **list = rc == 0 ? calloc(names.count + 1, sizeof *list) : NULL;
    if (rc == 0 && !list)
        rc = gd_fail(err, "out of memory");
    if (rc == 0) {
        for (size_t i = 0; i < names.count; i++)
            list[i] = names.name[i];
        rc = gd_plot_draw_all(dir, list, names.count, jobs, err);
    }
    free(list);
    free(names.name);
    return rc;
}
