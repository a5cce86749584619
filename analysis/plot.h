/* plot.h -- one measured curve as a gnuplot picture, with its data and script.
 *
 * For a curve called NAME, gd_plot_write() puts four files side by side in the
 * plots directory of a run (results/RUN/plots/):
 *
 *   NAME.dat   the numbers: measured x / median / min / max, then the model
 *              and any extra series as further gnuplot data blocks (`index`)
 *   NAME.gp    the gnuplot script that draws them; it names only NAME.dat,
 *              NAME.png and NAME.svg (relative paths), so a user can restyle it
 *              and re-run `gnuplot NAME.gp` from that directory
 *   NAME.png   pngcairo, 1000x600
 *   NAME.svg   the same picture as SVG
 *
 * The picture: the median as a line with points, the min..max band of the
 * samples as a semi-transparent filled band, the analytical model as a dashed
 * line, each plateau as a short thick horizontal segment labelled with its level
 * ("L1D 32 cycles"), each knee as a dashed vertical arrow labelled with its x
 * ("64KiB").  With x_is_bytes the x tics are powers of two written 1KiB, 4KiB,
 * 1MiB...; with log_x the x axis is logarithmic (the usual case for footprint
 * sweeps).
 *
 * Files appear atomically: NAME.dat and NAME.gp through gd_write_atomic(); the
 * pictures are drawn by gnuplot into temporary names in the same directory,
 * checked (gd_plot_check_png / gd_plot_check_svg) and only then renamed into
 * place, so a half-drawn picture never carries its final name.  The .dat and .gp
 * are written before gnuplot runs: when gnuplot is missing or fails, the caller
 * gets -1 and a one-line error but the data and the script are already there.
 *
 * Missing values: NaN (or +-inf) in any y column is written as "NaN", which the
 * script declares missing (`set datafile missing 'NaN'`), so gnuplot skips it.
 * Points whose x is not finite -- or not positive on a log axis -- are left out.
 * At least one measured point must have a finite x and median.
 */
#ifndef GD_PLOT_H
#define GD_PLOT_H

#include <stddef.h>

#include "host/device.h"

/* Room for a plateau or knee label, NUL included. */
#define GD_PLOT_LABEL_BYTES 96
/* Room for a path in the plots directory (the run directory is user-chosen). */
#define GD_PLOT_PATH_BYTES 1200
/* A picture's file stem at most: curve labels are at most 63 characters
 * (gd_curve.label). */
#define GD_PLOT_NAME_MAX 128

/* A plateau of the measured curve: drawn from x_first to x_last at `level`. */
typedef struct gd_plot_plateau {
    double x_first, x_last, level;
    char label[GD_PLOT_LABEL_BYTES];   /* e.g. "L1D 32 cycles"; empty: no text */
} gd_plot_plateau;

/* A knee: a dashed vertical arrow at x. */
typedef struct gd_plot_knee {
    double x;
    char label[GD_PLOT_LABEL_BYTES];   /* e.g. "64KiB"; empty: no text */
} gd_plot_knee;

/* A further curve drawn as a line with points (e.g. victim vs attacker CPI). */
typedef struct gd_plot_series {
    const char *title;                 /* key entry; NULL: "series N" */
    const double *x, *y;
    size_t count;
} gd_plot_series;

typedef struct gd_plot_spec {
    const char *name;            /* file stem, e.g. "pchase": letters, digits, . _ + - only */
    const char *title;           /* e.g. "pchase on sim:t4 (Tesla T4)"; NULL: none */
    const char *xlabel, *ylabel; /* e.g. "footprint", "cycles per access"; NULL: none */
    int log_x;                   /* logarithmic x axis */
    int x_is_bytes;              /* x tics as 1KiB, 4KiB, ... (powers of two) */

    /* The measurement: count points; min and max may both be NULL (no band). */
    const double *x, *median, *min, *max;
    size_t count;
    const char *measured_title;  /* key entry of the median; NULL: "median" */

    /* Analytical model overlay, optional (model_count 0). */
    const double *model_x, *model_y;
    size_t model_count;
    const char *model_title;     /* key entry; NULL: "model" */

    const gd_plot_plateau *plateaus;
    size_t plateau_count;
    const gd_plot_knee *knees;
    size_t knee_count;

    const gd_plot_series *extra;
    size_t extra_count;
} gd_plot_spec;

/* Writes PLOTS_DIR/NAME.{dat,gp,png,svg} (creating PLOTS_DIR if needed) and
 * runs `gnuplot NAME.gp` inside PLOTS_DIR (found on PATH).  Returns 0, or -1 with
 * err filled: invalid spec (bad name, count 0, no finite point), I/O errors,
 * "gnuplot not found: install gnuplot-nox", or "gnuplot failed ...: <the
 * error line of its stderr>". */
int gd_plot_write(const char *plots_dir, const gd_plot_spec *spec, gd_err *err);

/* gd_plot_write's NAME.dat and NAME.gp only, for gd_plot_draw_all to draw
 * with others.  Returns 0, or -1 with err filled. */
int gd_plot_write_script(const char *plots_dir, const gd_plot_spec *spec, gd_err *err);

/* Runs DIR/NAME.gp -- a script that draws into out_png and out_svg when they
 * are defined, as gd_plot_write's do -- with gnuplot inside DIR, checks the
 * pictures and renames them into place as DIR/NAME.png and NAME.svg.  For
 * callers that write their own script (analysis/whatif_plot.c's bar chart).
 * Returns 0, or -1 with err filled as gd_plot_write's. */
int gd_plot_draw(const char *dir, const char *name, gd_err *err);

/* gd_plot_draw for each of names[0..count), by one gnuplot: the same files
 * (plot_draw.c: `reset session` between the scripts) at a gnuplot's start for
 * them all.  When it fails, the pictures not yet in place are drawn one at a
 * time, and the first that fails is the error, its index in *failed; none
 * after it is drawn.  Returns 0, or -1 with err filled. */
int gd_plot_draw_batch(const char *dir, const char *const *names, size_t count, size_t *failed,
                       gd_err *err);

/* gd_plot_draw for each of names[0..count): `jobs` runs of consecutive names,
 * each drawn by gd_plot_draw_batch in a child process of its own (a run's
 * 50-70 pictures took 4-5 s one after the other: 80 ms of gnuplot each, most
 * of it gnuplot's start).  The pictures do not depend on each other, so the
 * files are those of a serial draw.  The first failure in names' order is the
 * error; each run stops at its own first.  jobs <= 1: one batch, in this
 * process.  Returns 0, or -1 with err filled. */
int gd_plot_draw_all(const char *dir, const char *const *names, size_t count, unsigned jobs,
                     gd_err *err);

/* 0 when the file is a PNG: signature, an IHDR chunk first, every chunk whole
 * with a correct CRC, IEND last (so a truncated file fails).  -1 otherwise. */
int gd_plot_check_png(const char *path, gd_err *err);

/* 0 when the file is an SVG document: XML whose root element is <svg, closed by
 * a </svg> at the end.  -1 otherwise. */
int gd_plot_check_svg(const char *path, gd_err *err);

#endif
