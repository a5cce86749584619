/* plot.c -- write a curve's data and gnuplot script, and let gnuplot draw it.
 *
 * Why gnuplot, and why a script file rather than a pipe: the picture of a
 * measurement is something its reader wants to restyle (a paper's fonts, a
 * narrower range, another colour for the model).  So the data and the script
 * that draws it travel together in plots/, the script names only relative files,
 * and what gpudissect does is exactly what a user does by hand:
 * `cd plots && gnuplot NAME.gp`.
 *
 * The one difference: when gpudissect runs the script it first defines out_png
 * and out_svg (gnuplot -e "out_png='NAME.png.tmp.XXXXXX'; ...") so that gnuplot
 * draws into temporary files; the script only falls back to NAME.png / NAME.svg
 * when those are undefined.  The temporaries are checked to be a whole PNG / an
 * SVG document (plot_check.c), made 0644 like every other result file, and then
 * renamed over the final names, so a reader (or the report) never sees half a
 * picture.
 *
 * Layout of NAME.dat (gnuplot data blocks, separated by two blank lines and
 * selected with `index`): block 0 is the measurement (x median [min max]), then
 * the model (x y) when it has a valid point, then each extra series with a valid
 * point.  Series without one are left out of both the data and the plot, because
 * gnuplot stops with "x range is invalid" on a plot that has no valid point.
 *
 * Text from the caller (titles, labels, series names) goes into single-quoted
 * gnuplot strings, where the only escape is '' for a quote -- backslashes stay
 * literal -- and the terminals are `noenhanced`, so "L1_D" is not a subscript.
 */
#include "analysis/plot.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/curve.h"
#include "analysis/results.h"

/* The picture size asked for by the design: wide enough for a log sweep of
 * 1KiB..8MiB with readable tics, the usual aspect of a paper figure. */
#define PLOT_WIDTH_PX 1000
#define PLOT_HEIGHT_PX 600


/* Byte tics: at most this many, so that "512KiB" labels do not overlap at 1000 px. */
#define MAX_BYTE_TICS 12
/* Room around the data: a factor on a log axis, a fraction of the span on a
 * linear one, so the first and last points are not drawn on the frame. */
#define LOG_X_PAD_FACTOR 1.15
#define LINEAR_X_PAD_FRACTION 0.03
/* Largest power of two a uint64_t holds, for byte tics. */
#define MAX_BYTE_TIC_EXPONENT 62

/* Colours (matplotlib's tab10, so a reader recognises them): the measurement,
 * the model, the plateau marks, the knee marks, then the extra series. */
#define COLOR_MEASURED "#1f77b4"
#define COLOR_MODEL "#ff7f0e"
#define COLOR_PLATEAU "#d62728"
#define COLOR_KNEE "#555555"
static const char *const extra_colors[] = {"#2ca02c", "#9467bd", "#8c564b",
                                           "#e377c2", "#17becf", "#bcbd22"};
#define EXTRA_COLOR_COUNT (sizeof extra_colors / sizeof extra_colors[0])

/* ------------------------------------------------------------------------- */
/* Validation and ranges                                                      */

static int name_is_safe(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > GD_PLOT_NAME_MAX || name[0] == '.')
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '+' || c == '-';
        if (!ok)
            return 0;
    }
    return 1;
}

/* An x value can be drawn: finite, and positive on a log axis. */
static int x_ok(const gd_plot_spec *s, double x)
{
    return isfinite(x) && (!s->log_x || x > 0);
}

typedef struct x_range {
    double lo, hi;
    int any;
} x_range;

static void range_add(x_range *r, const gd_plot_spec *s, double x)
{
    if (!x_ok(s, x))
        return;
    if (!r->any || x < r->lo)
        r->lo = x;
    if (!r->any || x > r->hi)
        r->hi = x;
    r->any = 1;
}

/* Counts of drawable points, decided once and used by both the .dat and the .gp. */
typedef struct plot_plan {
    size_t median_points;   /* measured rows with a drawable x and a finite median */
    size_t band_points;     /* ... with a drawable x and finite min and max */
    size_t model_points;    /* model rows with drawable x and finite y */
    x_range range;
} plot_plan;

/* Drawable (x, y) pairs of a series; each widens the x range. */
static size_t scan_xy(const gd_plot_spec *s, const double *x, const double *y, size_t n,
                      x_range *r)
{
    size_t valid = 0;
    for (size_t i = 0; i < n; i++) {
        if (x_ok(s, x[i]) && isfinite(y[i])) {
            valid++;
            range_add(r, s, x[i]);
        }
    }
    return valid;
}

/* Extra series e has a drawable point (else it is left out: see the top). */
static int extra_drawn(const gd_plot_spec *s, size_t e)
{
    x_range ignored = {0};
    return scan_xy(s, s->extra[e].x, s->extra[e].y, s->extra[e].count, &ignored) > 0;
}

static int plan_plot(const gd_plot_spec *s, plot_plan *p, gd_err *err)
{
    memset(p, 0, sizeof *p);
    if (!name_is_safe(s->name))
        return gd_fail(err, "plot name '%s': use 1..%d letters, digits, '.', '_', '+', '-' "
                            "(not starting with '.')",
                       s->name ? s->name : "(null)", GD_PLOT_NAME_MAX);
    if (s->count == 0 || !s->x || !s->median)
        return gd_fail(err, "plot %s: no measured points", s->name);
    if (!s->min != !s->max)
        return gd_fail(err, "plot %s: min and max must both be given or both be NULL", s->name);
    if (s->model_count && (!s->model_x || !s->model_y))
        return gd_fail(err, "plot %s: model_count %zu without model_x/model_y", s->name,
                       s->model_count);
    if ((s->plateau_count && !s->plateaus) || (s->knee_count && !s->knees) ||
        (s->extra_count && !s->extra))
        return gd_fail(err, "plot %s: a count without its array", s->name);
    for (size_t e = 0; e < s->extra_count; e++)
        if (s->extra[e].count && (!s->extra[e].x || !s->extra[e].y))
            return gd_fail(err, "plot %s: extra series %zu has a count without x/y", s->name, e);

    p->median_points = scan_xy(s, s->x, s->median, s->count, &p->range);
    for (size_t i = 0; i < s->count; i++)
        if (s->min && x_ok(s, s->x[i]) && isfinite(s->min[i]) && isfinite(s->max[i]))
            p->band_points++;
    if (p->median_points == 0)
        return gd_fail(err, "plot %s: none of the %zu measured points has a finite x%s and median",
                       s->name, s->count, s->log_x ? " > 0" : "");
    p->model_points = scan_xy(s, s->model_x, s->model_y, s->model_count, &p->range);
    for (size_t e = 0; e < s->extra_count; e++)
        scan_xy(s, s->extra[e].x, s->extra[e].y, s->extra[e].count, &p->range);
    for (size_t i = 0; i < s->plateau_count; i++) {
        if (!isfinite(s->plateaus[i].level))
            continue;
        range_add(&p->range, s, s->plateaus[i].x_first);
        range_add(&p->range, s, s->plateaus[i].x_last);
    }
    for (size_t i = 0; i < s->knee_count; i++)
        range_add(&p->range, s, s->knees[i].x);

    /* Pad the range; a single x gets an interval around it, since gnuplot
     * refuses an empty x range. */
    x_range *r = &p->range;
    if (s->log_x) {
        r->lo /= LOG_X_PAD_FACTOR;
        r->hi *= LOG_X_PAD_FACTOR;
    } else {
        double pad = (r->hi - r->lo) * LINEAR_X_PAD_FRACTION;
        if (pad == 0)
            pad = r->lo != 0 ? fabs(r->lo) / 2 : 1;
        r->lo -= pad;
        r->hi += pad;
    }
    return 0;
}

/* ------------------------------------------------------------------------- */
/* The data file                                                              */

/* `before` then v, or NaN (declared missing in the script). */
static void put_number(gd_text *t, const char *before, double v)
{
    gd_text_printf(t, isfinite(v) ? "%s%.15g" : "%sNaN", before, v);
}

static void put_xy_block(gd_text *t, const gd_plot_spec *s, const char *what, size_t index,
                         const double *x, const double *y, size_t n)
{
    if (index)
        gd_text_printf(t, "\n\n# %s %zu: x y\n", what, index);
    else
        gd_text_printf(t, "\n\n# %s: x y\n", what);
    for (size_t i = 0; i < n; i++) {
        if (!x_ok(s, x[i]))
            continue;
        put_number(t, "", x[i]);
        put_number(t, " ", y[i]);
        gd_text_printf(t, "\n");
    }
}

static int write_dat(const char *path, const gd_plot_spec *s, const plot_plan *p, gd_err *err)
{
    gd_text t;
    gd_text_init(&t);
    gd_text_printf(&t, "# %s.dat -- written by gpudissect, drawn by %s.gp\n", s->name, s->name);
    gd_text_printf(&t, "# blocks (gnuplot `index`) are separated by two blank lines; NaN = missing\n");
    gd_text_printf(&t, "# measured: x median%s\n", s->min ? " min max" : "");
    for (size_t i = 0; i < s->count; i++) {
        if (!x_ok(s, s->x[i]))
            continue;
        put_number(&t, "", s->x[i]);
        put_number(&t, " ", s->median[i]);
        if (s->min) {
            put_number(&t, " ", s->min[i]);
            put_number(&t, " ", s->max[i]);
        }
        gd_text_printf(&t, "\n");
    }
    if (p->model_points)
        put_xy_block(&t, s, "model", 0, s->model_x, s->model_y, s->model_count);
    for (size_t e = 0; e < s->extra_count; e++)
        if (extra_drawn(s, e))
            put_xy_block(&t, s, "extra series", e + 1, s->extra[e].x, s->extra[e].y,
                         s->extra[e].count);
    int rc = gd_text_write_atomic(&t, path, err);
    gd_text_free(&t);
    return rc;
}

/* ------------------------------------------------------------------------- */
/* The script                                                                 */

/* A single-quoted gnuplot string: ' doubles, control characters become spaces
 * (a newline would end the command). */
static void put_string(gd_text *t, const char *s)
{
    gd_text_printf(t, "'");
    for (const char *c = s ? s : ""; *c; c++) {
        if (*c == '\'')
            gd_text_printf(t, "''");
        else if ((unsigned char)*c < 0x20 || *c == 0x7f)
            gd_text_printf(t, " ");
        else
            gd_text_printf(t, "%c", *c);
    }
    gd_text_printf(t, "'");
}

static void put_tic(gd_text *t, int *first, double x)
{
    char label[32];
    gd_format_bytes((uint64_t)x, label, sizeof label);
    gd_text_printf(t, "%s'%s' %.17g", *first ? "" : ", ", label, x);
    *first = 0;
}

/* Powers of two inside the range, every `step`-th exponent so that at most
 * MAX_BYTE_TICS remain.  Returns how many were written (0: none fits). */
static int put_pow2_tics(gd_text *t, const x_range *r)
{
    int kmin = (int)ceil(log2(r->lo)), kmax = (int)floor(log2(r->hi));
    if (kmin < 0)
        kmin = 0;
    if (kmax > MAX_BYTE_TIC_EXPONENT)
        kmax = MAX_BYTE_TIC_EXPONENT;
    if (kmax - kmin + 1 < 2)
        return 0;
    int step = (kmax - kmin + MAX_BYTE_TICS) / MAX_BYTE_TICS;
    int start = (kmin + step - 1) / step * step;  /* 1KiB, 4KiB, 16KiB: aligned exponents */
    int first = 1, n = 0;
    gd_text_printf(t, "set xtics (");
    for (int k = start; k <= kmax; k += step, n++)
        put_tic(t, &first, ldexp(1, k));
    gd_text_printf(t, ")\n");
    return n;
}

/* Multiples of a power-of-two step (for a linear axis, or a log axis whose
 * range holds fewer than two powers of two). */
static void put_linear_byte_tics(gd_text *t, const x_range *r)
{
    double lo = r->lo < 0 ? 0 : r->lo;
    double step = 1;
    while ((r->hi - lo) / step > MAX_BYTE_TICS && step < ldexp(1, MAX_BYTE_TIC_EXPONENT))
        step *= 2;
    int first = 1, n = 0;
    gd_text_printf(t, "set xtics (");
    for (double x = ceil(lo / step) * step; x <= r->hi && n <= MAX_BYTE_TICS; x += step, n++)
        put_tic(t, &first, x);
    gd_text_printf(t, ")\n");
}

static void put_set_text(gd_text *t, const char *what, const char *text)
{
    if (!text)
        return;
    gd_text_printf(t, "set %s ", what);
    put_string(t, text);
    gd_text_printf(t, "\n");
}

static void put_axes(gd_text *t, const gd_plot_spec *s, const plot_plan *p)
{
    put_set_text(t, "title", s->title);
    put_set_text(t, "xlabel", s->xlabel);
    put_set_text(t, "ylabel", s->ylabel);
    if (s->log_x)
        gd_text_printf(t, "set logscale x %d\n", s->x_is_bytes ? 2 : 10);
    gd_text_printf(t, "set xrange [%.17g:%.17g]\n", p->range.lo, p->range.hi);
    /* Byte labels need x to fit a uint64_t; beyond that gnuplot's own tics. */
    if (s->x_is_bytes && p->range.hi < ldexp(1, MAX_BYTE_TIC_EXPONENT)) {
        if (!s->log_x || put_pow2_tics(t, &p->range) == 0)
            put_linear_byte_tics(t, &p->range);
    } else if (s->log_x) {
        gd_text_printf(t, "set format x '%%g'\n");
    }
    /* Room above the top plateau for its label. */
    gd_text_printf(t, "set offsets 0, 0, graph 0.08, graph 0.02\n");
    gd_text_printf(t, "set grid xtics ytics lc rgb '#dddddd'\n");
    /* A staircase rises to the right: below its last plateau is the emptiest
     * corner, and knee labels sit at the top. */
    gd_text_printf(t, "set key bottom right box opaque\n");
}

static int plateau_ok(const gd_plot_spec *s, const gd_plot_plateau *pl)
{
    return x_ok(s, pl->x_first) && x_ok(s, pl->x_last) && isfinite(pl->level);
}

static void put_marks(gd_text *t, const gd_plot_spec *s)
{
    /* Labels sit centred above their segment, except that the leftmost one
     * starts at its segment's start and the rightmost one ends at its end: a
     * short plateau at either end of the axis would push its text off the frame. */
    size_t leftmost = SIZE_MAX, rightmost = SIZE_MAX, drawable = 0;
    for (size_t i = 0; i < s->plateau_count; i++) {
        const gd_plot_plateau *pl = &s->plateaus[i];
        if (!plateau_ok(s, pl))
            continue;
        drawable++;
        if (leftmost == SIZE_MAX || pl->x_first < s->plateaus[leftmost].x_first)
            leftmost = i;
        if (rightmost == SIZE_MAX || pl->x_last > s->plateaus[rightmost].x_last)
            rightmost = i;
    }
    for (size_t i = 0; i < s->plateau_count; i++) {
        const gd_plot_plateau *pl = &s->plateaus[i];
        if (!plateau_ok(s, pl))
            continue;
        gd_text_printf(t, "set arrow from %.17g,%.17g to %.17g,%.17g nohead lw 4 lc rgb '%s' front\n",
                       pl->x_first, pl->level, pl->x_last, pl->level, COLOR_PLATEAU);
        if (!pl->label[0])
            continue;
        /* The middle of the segment as the eye sees it: geometric on a log axis. */
        double at = s->log_x ? sqrt(pl->x_first * pl->x_last) : (pl->x_first + pl->x_last) / 2;
        const char *align = "center";
        if (drawable > 1 && i == leftmost) {
            at = pl->x_first;
            align = "left";
        } else if (drawable > 1 && i == rightmost) {
            at = pl->x_last;
            align = "right";
        }
        gd_text_printf(t, "set label ");
        put_string(t, pl->label);
        gd_text_printf(t, " at %.17g,%.17g %s offset 0,0.9 tc rgb '%s' front\n", at, pl->level,
                       align, COLOR_PLATEAU);
    }
    for (size_t i = 0; i < s->knee_count; i++) {
        const gd_plot_knee *k = &s->knees[i];
        if (!x_ok(s, k->x))
            continue;
        gd_text_printf(t, "set arrow from first %.17g, graph 1 to first %.17g, graph 0 head "
                          "dt 2 lw 1.5 lc rgb '%s' back\n",
                       k->x, k->x, COLOR_KNEE);
        if (!k->label[0])
            continue;
        gd_text_printf(t, "set label ");
        put_string(t, k->label);
        gd_text_printf(t, " at first %.17g, graph 0.98 rotate by 90 right offset -1.2,0 "
                          "tc rgb '%s' front\n",
                       k->x, COLOR_KNEE);
    }
}

static void put_plot_command(gd_text *t, const gd_plot_spec *s, const plot_plan *p)
{
    const char *sep = "plot ";
    if (p->band_points) {
        gd_text_printf(t, "%sdatafile index 0 using 1:3:4 with filledcurves "
                          "fs transparent solid 0.25 noborder lc rgb '%s' title 'min-max'",
                       sep, COLOR_MEASURED);
        sep = ", \\\n     ";
    }
    gd_text_printf(t, "%sdatafile index 0 using 1:2 with linespoints lw 2 pt 7 ps 0.6 "
                      "lc rgb '%s' title ",
                   sep, COLOR_MEASURED);
    put_string(t, s->measured_title ? s->measured_title : "median");
    sep = ", \\\n     ";
    int block = 1;
    if (p->model_points) {
        gd_text_printf(t, "%sdatafile index %d using 1:2 with lines dt 2 lw 2 lc rgb '%s' title ",
                       sep, block++, COLOR_MODEL);
        put_string(t, s->model_title ? s->model_title : "model");
    }
    for (size_t e = 0; e < s->extra_count; e++) {
        if (!extra_drawn(s, e))
            continue;
        gd_text_printf(t, "%sdatafile index %d using 1:2 with linespoints lw 1.5 pt %zu ps 0.6 "
                          "lc rgb '%s' title ",
                       sep, block++, 4 + 2 * (e % EXTRA_COLOR_COUNT),
                       extra_colors[e % EXTRA_COLOR_COUNT]);
        char fallback[48];
        snprintf(fallback, sizeof fallback, "series %zu", e + 1);
        put_string(t, s->extra[e].title ? s->extra[e].title : fallback);
    }
    gd_text_printf(t, "\n");
}

static int write_gp(const char *path, const gd_plot_spec *s, const plot_plan *p, gd_err *err)
{
    gd_text t;
    gd_text_init(&t);
    gd_text_printf(&t, "# %s.gp -- written by gpudissect.\n", s->name);
    gd_text_printf(&t, "# Restyle at will and re-run in this directory:  gnuplot %s.gp\n", s->name);
    gd_text_printf(&t, "# It reads %s.dat and draws %s.png and %s.svg (or out_png / out_svg when\n"
                       "# those are defined first, e.g. gnuplot -e \"out_png='x.png'\" %s.gp).\n",
                   s->name, s->name, s->name, s->name);
    gd_text_printf(&t, "if (!exists(\"out_png\")) out_png = '%s.png'\n", s->name);
    gd_text_printf(&t, "if (!exists(\"out_svg\")) out_svg = '%s.svg'\n", s->name);
    gd_text_printf(&t, "datafile = '%s.dat'\n", s->name);
    gd_text_printf(&t, "set encoding utf8\n");
    gd_text_printf(&t, "set datafile missing 'NaN'\n");
    put_axes(&t, s, p);
    put_marks(&t, s);
    gd_text_printf(&t, "\nset terminal pngcairo size %d,%d noenhanced font 'sans,10'\n",
                   PLOT_WIDTH_PX, PLOT_HEIGHT_PX);
    gd_text_printf(&t, "set output out_png\n");
    put_plot_command(&t, s, p);
    gd_text_printf(&t, "\nset terminal svg size %d,%d dynamic noenhanced font 'sans,10' "
                       "background rgb 'white'\n",
                   PLOT_WIDTH_PX, PLOT_HEIGHT_PX);
    gd_text_printf(&t, "set output out_svg\n");
    gd_text_printf(&t, "replot\n");
    gd_text_printf(&t, "unset output\n");
    int rc = gd_text_write_atomic(&t, path, err);
    gd_text_free(&t);
    return rc;
}

int gd_plot_write_script(const char *plots_dir, const gd_plot_spec *spec, gd_err *err)
{
    if (!plots_dir || !plots_dir[0] || !spec)
        return gd_fail(err, "plot: no plots directory or no spec");
    plot_plan plan;
    if (plan_plot(spec, &plan, err) != 0)
        return -1;
    char dat[GD_PLOT_PATH_BYTES], gp[GD_PLOT_PATH_BYTES];
    if (snprintf(dat, sizeof dat, "%s/%s.dat", plots_dir, spec->name) >= (int)sizeof dat ||
        snprintf(gp, sizeof gp, "%s/%s.gp", plots_dir, spec->name) >= (int)sizeof gp)
        return gd_fail(err, "%s: path too long", plots_dir);
    if (gd_mkdirs(plots_dir, err) != 0 || write_dat(dat, spec, &plan, err) != 0 ||
        write_gp(gp, spec, &plan, err) != 0)
        return -1;
    return 0;
}

int gd_plot_write(const char *plots_dir, const gd_plot_spec *spec, gd_err *err)
{
    if (gd_plot_write_script(plots_dir, spec, err) != 0)
        return -1;
    return gd_plot_draw(plots_dir, spec->name, err);
}
