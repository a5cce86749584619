/* figures.c -- the plots of a run: every curve, its model, its plateaus and knees.
 *
 * For each probe of a results directory: the measured median with its min-max
 * band (from the CSV), the analytical model of the arch overlaid where the probe
 * has one, the plateaus of inferred.json drawn at their levels with the level's
 * name when inference named it ("L1D 32 cycles"), and every knee marked with the
 * capacity it pins ("64KiB").  analysis/plot.c writes each picture with its data
 * and gnuplot script beside it.
 */
#include "analysis/figures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/model.h"
#include "analysis/plot.h"

#define MAX_MARKS 32

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

static int curve_figure(const gd_run *run, const gd_curve *c, const gd_arch *arch,
                        const char *plots_dir, gd_err *err)
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
        const gd_summary *s = gd_point_summary(&c->points[i], "cycles");
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
    if (arch && gd_model_curve(arch, c->probe->name, &c->opts, xs, bases, m, mp, err) == 0) {
        for (size_t i = 0; i < m; i++)
            my[i] = mp[i].mean_cycles;
        model_count = m;
    }
    const json_t *info = json_object_get(json_object_get(run->inferred_doc, "curves"), c->label);
    size_t i;
    const json_t *o;
    json_array_foreach(json_object_get(info, "plateaus"), i, o) {
        if (np == MAX_MARKS)
            break;
        gd_plot_plateau *p = &plateaus[np++];
        p->x_first = json_number_value(json_object_get(o, "x_first"));
        p->x_last = json_number_value(json_object_get(o, "x_last"));
        p->level = json_number_value(json_object_get(o, "level"));
        const char *nm = plateau_name(run, c->label, p->level);
        snprintf(p->label, sizeof p->label, "%s%s%.1f cycles", nm ? nm : "", nm ? " " : "",
                 p->level);
    }
    json_array_foreach(json_object_get(info, "knees"), i, o) {
        if (nk == MAX_MARKS)
            break;
        gd_plot_knee *k = &knees[nk++];
        k->x = json_number_value(json_object_get(o, "x_below"));
        gd_format_bytes((uint64_t)k->x, k->label, sizeof k->label);
    }
    const char *spec = json_string_value(json_object_get(json_object_get(run->meta, "device"), "spec"));
    char title[256];
    snprintf(title, sizeof title, "%s on %s", c->label, spec ? spec : "?");
    char model_title[96];
    snprintf(model_title, sizeof model_title, "model (%s)", arch ? arch->name : "");
    int stride = !strcmp(c->probe->name, "pchase_stride");
    gd_plot_spec ps = {
        .name = c->label,
        .title = title,
        .xlabel = stride ? "stride" : "footprint",
        .ylabel = "cycles per access",
        .log_x = 1,
        .x_is_bytes = 1,
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
    rc = gd_plot_write(plots_dir, &ps, err);
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

int gd_figures_write(const gd_run *run, const gd_arch *arch, gd_err *err)
{
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/plots", run->dir);
    for (size_t i = 0; i < run->curve_count; i++)
        if (curve_figure(run, &run->curves[i], arch, dir, err) != 0)
            return -1;
    return 0;
}
