/* test_plot.c -- gnuplot pictures: a staircase with its model, plateaus and
 * knees draws to a whole PNG and SVG; the script re-runs by hand; awkward text,
 * NaNs and odd ranges don't break it; bad specs, a missing or failing gnuplot
 * and broken pictures give one-line errors and leave no temporary file behind. */
#include "tests/testing.h"

#include <dirent.h>
#include <math.h>
#include <sys/stat.h>

#include "analysis/plot.h"
#include "analysis/results.h"

#define KIB 1024.0
#define MIB (1024.0 * 1024.0)
/* The synthetic T4-like staircase: L1D 32 cycles to 64KiB, L2 188 to 4MiB, DRAM. */
#define L1_CYCLES 32.0
#define L2_CYCLES 188.0
#define DRAM_CYCLES 420.0
#define POINTS_PER_OCTAVE 4
#define MAX_POINTS 64
/* signature (8) + IHDR length and type (8) + width, height, depth, colour,
 * compression, filter (12): the interlace byte. */
#define PNG_IHDR_INTERLACE_OFFSET 28
/* An IEND chunk: length, type and CRC, no data. */
#define PNG_IEND_CHUNK_BYTES 12

static int have_gnuplot(void)
{
    return gd_test_run("command -v gnuplot", NULL, 0) == 0;
}

#define NEED_GNUPLOT()                                                                         \
    do {                                                                                       \
        if (!have_gnuplot())                                                                   \
            GD_SKIP("gnuplot not found");                                                      \
    } while (0)

static int file_exists(const char *dir, const char *name)
{
    char path[1200];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

static int check_picture(const char *dir, const char *name, int png)
{
    char path[1200];
    gd_err err = {{0}};
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int rc = png ? gd_plot_check_png(path, &err) : gd_plot_check_svg(path, &err);
    if (rc != 0)
        print_error("%s\n", err.msg);
    return rc;
}

/* Names in dir that look like temporaries (gd_write_atomic's NAME.tmp.XXXXXX). */
static int count_temporaries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, ".tmp."))
            n++;
    closedir(d);
    return n;
}

static char *slurp(const char *dir, const char *name)
{
    char path[1200];
    gd_err err;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return gd_read_file(path, NULL, &err);
}

static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

/* A noisy three-level staircase from 1KiB to 8MiB with its model. */
typedef struct staircase {
    double x[MAX_POINTS], median[MAX_POINTS], min[MAX_POINTS], max[MAX_POINTS];
    double model_y[MAX_POINTS];
    size_t count;
    gd_plot_plateau plateaus[3];
    gd_plot_knee knees[2];
    gd_plot_spec spec;
} staircase;

static double level_at(double x)
{
    return x <= 64 * KIB ? L1_CYCLES : x <= 4 * MIB ? L2_CYCLES : DRAM_CYCLES;
}

static void staircase_init(staircase *s, const char *name)
{
    memset(s, 0, sizeof *s);
    for (double x = KIB; x <= 8 * MIB && s->count < MAX_POINTS;
         x *= pow(2, 1.0 / POINTS_PER_OCTAVE)) {
        double rounded = round(x / 32) * 32; /* line granularity, like a real sweep */
        double level = level_at(rounded);
        double wobble = 0.02 * level * sin((double)s->count); /* deterministic "noise" */
        s->x[s->count] = rounded;
        s->median[s->count] = level + wobble;
        s->min[s->count] = level * 0.95 + wobble;
        s->max[s->count] = level * 1.08 + wobble;
        s->model_y[s->count] = level;
        s->count++;
    }
    s->plateaus[0] = (gd_plot_plateau){KIB, 64 * KIB, L1_CYCLES, "L1D 32 cycles"};
    s->plateaus[1] = (gd_plot_plateau){80 * KIB, 4 * MIB, L2_CYCLES, "L2 188 cycles"};
    s->plateaus[2] = (gd_plot_plateau){5 * MIB, 8 * MIB, DRAM_CYCLES, "DRAM 420 cycles"};
    s->knees[0] = (gd_plot_knee){64 * KIB, "64KiB"};
    s->knees[1] = (gd_plot_knee){4 * MIB, "4MiB"};
    s->spec = (gd_plot_spec){
        .name = name,
        .title = "pchase on sim:t4 (Tesla T4)",
        .xlabel = "footprint",
        .ylabel = "cycles per access",
        .log_x = 1,
        .x_is_bytes = 1,
        .x = s->x, .median = s->median, .min = s->min, .max = s->max, .count = s->count,
        .model_x = s->x, .model_y = s->model_y, .model_count = s->count,
        .model_title = "model (t4.arch)",
        .plateaus = s->plateaus, .plateau_count = 3,
        .knees = s->knees, .knee_count = 2,
    };
}

static void test_staircase_draws_png_and_svg(void **state)
{
    (void)state;
    NEED_GNUPLOT();
    char *tmp = gd_test_tmpdir();
    assert_non_null(tmp);
    char plots[1100];
    snprintf(plots, sizeof plots, "%s/run/plots", tmp); /* created by gd_plot_write */
    staircase s;
    staircase_init(&s, "pchase");
    gd_err err = {{0}};
    if (gd_plot_write(plots, &s.spec, &err) != 0)
        fail_msg("%s", err.msg);
    assert_true(file_exists(plots, "pchase.dat"));
    assert_true(file_exists(plots, "pchase.gp"));
    assert_int_equal(check_picture(plots, "pchase.png", 1), 0);
    assert_int_equal(check_picture(plots, "pchase.svg", 0), 0);
    assert_int_equal(count_temporaries(plots), 0);

    /* The script names its files relatively and carries the annotations. */
    char *gp = slurp(plots, "pchase.gp");
    assert_non_null(gp);
    assert_null(strstr(gp, tmp));
    assert_non_null(strstr(gp, "'pchase.dat'"));
    assert_non_null(strstr(gp, "'1KiB' 1024"));
    assert_non_null(strstr(gp, "'4MiB' 4194304"));
    assert_non_null(strstr(gp, "logscale x"));
    assert_non_null(strstr(gp, "filledcurves"));
    assert_non_null(strstr(gp, "'L1D 32 cycles'"));
    assert_non_null(strstr(gp, "'64KiB'"));
    assert_non_null(strstr(gp, "dt 2"));
    assert_non_null(strstr(gp, "'model (t4.arch)'"));
    free(gp);
    /* The data: the measurement then the model, as two index blocks. */
    char *dat = slurp(plots, "pchase.dat");
    assert_non_null(dat);
    assert_non_null(strstr(dat, "\n1024 "));
    assert_non_null(strstr(dat, "\n\n\n# model"));
    free(dat);
    gd_test_rmrf(tmp);
    free(tmp);
}

static void test_script_reruns_by_hand(void **state)
{
    (void)state;
    NEED_GNUPLOT();
    char *tmp = gd_test_tmpdir();
    assert_non_null(tmp);
    staircase s;
    staircase_init(&s, "by-hand");
    gd_err err = {{0}};
    if (gd_plot_write(tmp, &s.spec, &err) != 0)
        fail_msg("%s", err.msg);
    char path[1200], cmd[2600], out[4096];
    snprintf(path, sizeof path, "%s/by-hand.png", tmp);
    assert_int_equal(unlink(path), 0);
    snprintf(path, sizeof path, "%s/by-hand.svg", tmp);
    assert_int_equal(unlink(path), 0);
    /* What the user does: cd plots && gnuplot NAME.gp */
    snprintf(cmd, sizeof cmd, "cd '%s' && gnuplot by-hand.gp", tmp);
    if (gd_test_run(cmd, out, sizeof out) != 0)
        fail_msg("gnuplot by hand failed: %s", out);
    assert_int_equal(check_picture(tmp, "by-hand.png", 1), 0);
    assert_int_equal(check_picture(tmp, "by-hand.svg", 0), 0);
    gd_test_rmrf(tmp);
    free(tmp);
}

static void test_awkward_text(void **state)
{
    (void)state;
    NEED_GNUPLOT();
    char *tmp = gd_test_tmpdir();
    assert_non_null(tmp);
    staircase s;
    staircase_init(&s, "awkward_name");
    s.spec.title = "it's \"quoted\", back\\slash, L1_D^2 {x} @ $HOME `cmd`\nsecond line";
    s.spec.xlabel = "footprint_bytes";
    s.spec.ylabel = "cycles 'per' access";
    s.spec.measured_title = "victim's \"median\"";
    snprintf(s.plateaus[0].label, sizeof s.plateaus[0].label, "L1_D '32' \"cycles\" \\");
    snprintf(s.knees[1].label, sizeof s.knees[1].label, "it's 4MiB");
    gd_plot_series extra[2] = {
        {"attacker's CPI_x", s.x, s.model_y, s.count},
        {NULL, s.x, s.median, s.count},
    };
    s.spec.extra = extra;
    s.spec.extra_count = 2;
    gd_err err = {{0}};
    if (gd_plot_write(tmp, &s.spec, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(check_picture(tmp, "awkward_name.png", 1), 0);
    assert_int_equal(check_picture(tmp, "awkward_name.svg", 0), 0);
    char *gp = slurp(tmp, "awkward_name.gp");
    assert_non_null(gp);
    assert_non_null(strstr(gp, "noenhanced"));
    assert_non_null(strstr(gp, "'it''s \"quoted\", back\\slash"));
    assert_non_null(strstr(gp, "'series 2'"));
    free(gp);
    /* The SVG carries the text as written (the extra series' key). */
    char *svg = slurp(tmp, "awkward_name.svg");
    assert_non_null(svg);
    assert_non_null(strstr(svg, "CPI_x"));
    free(svg);
    gd_test_rmrf(tmp);
    free(tmp);
}

static void test_nan_values(void **state)
{
    (void)state;
    NEED_GNUPLOT();
    char *tmp = gd_test_tmpdir();
    assert_non_null(tmp);
    staircase s;
    staircase_init(&s, "nan");
    s.median[3] = NAN;
    s.min[5] = NAN;
    s.max[6] = INFINITY;
    s.x[7] = NAN;            /* a row with no x is left out */
    s.x[8] = -1;             /* not drawable on a log axis */
    s.model_y[10] = NAN;
    s.plateaus[1].level = NAN;
    s.knees[0].x = NAN;
    gd_err err = {{0}};
    if (gd_plot_write(tmp, &s.spec, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(check_picture(tmp, "nan.png", 1), 0);
    assert_int_equal(check_picture(tmp, "nan.svg", 0), 0);
    char *dat = slurp(tmp, "nan.dat");
    assert_non_null(dat);
    assert_non_null(strstr(dat, "NaN"));
    assert_null(strstr(dat, "inf"));
    assert_null(strstr(dat, "\n-1 "));
    free(dat);

    /* Every band value missing: the band is dropped, the median still drawn. */
    for (size_t i = 0; i < s.count; i++)
        s.min[i] = NAN;
    s.spec.name = "no-band";
    if (gd_plot_write(tmp, &s.spec, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(check_picture(tmp, "no-band.png", 1), 0);
    /* A model with no finite point is left out, not an error. */
    for (size_t i = 0; i < s.count; i++)
        s.model_y[i] = NAN;
    s.spec.name = "no-model";
    if (gd_plot_write(tmp, &s.spec, &err) != 0)
        fail_msg("%s", err.msg);
    char *gp = slurp(tmp, "no-model.gp");
    assert_non_null(gp);
    assert_null(strstr(gp, "index 1"));
    free(gp);
    gd_test_rmrf(tmp);
    free(tmp);
}

static void test_other_axes(void **state)
{
    (void)state;
    NEED_GNUPLOT();
    char *tmp = gd_test_tmpdir();
    assert_non_null(tmp);
    gd_err err = {{0}};
    /* Linear byte axis. */
    double x[] = {0, 4096, 8192, 12288, 16384}, y[] = {10, 12, 14, 13, 20};
    gd_plot_spec spec = {.name = "linear", .x_is_bytes = 1, .x = x, .median = y, .count = 5};
    if (gd_plot_write(tmp, &spec, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(check_picture(tmp, "linear.png", 1), 0);
    char *gp = slurp(tmp, "linear.gp");
    assert_non_null(gp);
    assert_non_null(strstr(gp, "'4KiB' 4096"));
    assert_null(strstr(gp, "logscale"));
    free(gp);
    /* One point on a log byte axis inside a single power of two. */
    double one_x[] = {1500}, one_y[] = {7};
    spec = (gd_plot_spec){.name = "single", .log_x = 1, .x_is_bytes = 1, .x = one_x,
                          .median = one_y, .count = 1};
    if (gd_plot_write(tmp, &spec, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(check_picture(tmp, "single.svg", 0), 0);
    /* A log axis that is not bytes (instruction counts). */
    double n[] = {16, 64, 256, 1024, 4096}, cpi[] = {1, 1, 1.2, 3, 9};
    spec = (gd_plot_spec){.name = "icache", .log_x = 1, .x = n, .median = cpi, .count = 5,
                          .xlabel = "instructions", .ylabel = "CPI"};
    if (gd_plot_write(tmp, &spec, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(check_picture(tmp, "icache.png", 1), 0);
    assert_int_equal(count_temporaries(tmp), 0);
    gd_test_rmrf(tmp);
    free(tmp);
}

static void test_invalid_specs(void **state)
{
    (void)state;
    char *tmp = gd_test_tmpdir();
    assert_non_null(tmp);
    staircase s;
    gd_err err = {{0}};

    staircase_init(&s, "empty");
    s.spec.count = 0;
    assert_int_equal(gd_plot_write(tmp, &s.spec, &err), -1);
    assert_non_null(strstr(err.msg, "no measured points"));

    const char *bad_names[] = {"", "../escape", "a/b", ".hidden", "sp ace", "quo'te", NULL};
    for (int i = 0; i < 7; i++) {
        staircase_init(&s, bad_names[i]);
        err.msg[0] = 0;
        assert_int_equal(gd_plot_write(tmp, &s.spec, &err), -1);
        assert_non_null(strstr(err.msg, "plot name"));
    }

    staircase_init(&s, "all-nan");
    for (size_t i = 0; i < s.count; i++)
        s.median[i] = NAN;
    assert_int_equal(gd_plot_write(tmp, &s.spec, &err), -1);
    assert_non_null(strstr(err.msg, "finite"));

    staircase_init(&s, "half-band");
    s.spec.max = NULL;
    assert_int_equal(gd_plot_write(tmp, &s.spec, &err), -1);
    assert_non_null(strstr(err.msg, "min and max"));

    /* Nothing was written for invalid specs. */
    assert_false(file_exists(tmp, "empty.dat"));
    assert_false(file_exists(tmp, "all-nan.gp"));
    gd_test_rmrf(tmp);
    free(tmp);
}

/* Runs gd_plot_write with PATH set to `path`, restoring PATH after. */
static int plot_with_path(const char *path, const char *dir, const gd_plot_spec *spec,
                          gd_err *err)
{
    char *saved = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    setenv("PATH", path, 1);
    int rc = gd_plot_write(dir, spec, err);
    if (saved) {
        setenv("PATH", saved, 1);
        free(saved);
    } else {
        unsetenv("PATH");
    }
    return rc;
}

static void write_script(const char *dir, const char *name, const char *text)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(chmod(path, 0755), 0);
}

static void test_missing_gnuplot(void **state)
{
    (void)state;
    char *tmp = gd_test_tmpdir();
    assert_non_null(tmp);
    char empty_bin[1100], plots[1100];
    snprintf(empty_bin, sizeof empty_bin, "%s/bin", tmp);
    snprintf(plots, sizeof plots, "%s/plots", tmp);
    assert_int_equal(mkdir(empty_bin, 0755), 0);
    staircase s;
    staircase_init(&s, "pchase");
    gd_err err = {{0}};
    assert_int_equal(plot_with_path(empty_bin, plots, &s.spec, &err), -1);
    assert_string_equal(err.msg, "gnuplot not found: install gnuplot-nox");
    /* The data and the script are there for when gnuplot is installed. */
    assert_true(file_exists(plots, "pchase.dat"));
    assert_true(file_exists(plots, "pchase.gp"));
    assert_false(file_exists(plots, "pchase.png"));
    assert_int_equal(count_temporaries(plots), 0);
    gd_test_rmrf(tmp);
    free(tmp);
}

static void test_failing_gnuplot(void **state)
{
    (void)state;
    char *tmp = gd_test_tmpdir();
    assert_non_null(tmp);
    char bin[1100], plots[1100];
    snprintf(bin, sizeof bin, "%s/bin", tmp);
    snprintf(plots, sizeof plots, "%s/plots", tmp);
    assert_int_equal(mkdir(bin, 0755), 0);
    staircase s;
    staircase_init(&s, "pchase");
    gd_err err = {{0}};

    /* gnuplot exits non-zero: its message is in the error. */
    write_script(bin, "gnuplot",
                 "#!/bin/sh\necho 'fake gnuplot: something broke' >&2\necho more >&2\nexit 1\n");
    assert_int_equal(plot_with_path(bin, plots, &s.spec, &err), -1);
    assert_non_null(strstr(err.msg, "fake gnuplot: something broke"));
    assert_non_null(strstr(err.msg, "gnuplot failed"));
    assert_null(strchr(err.msg, '\n'));
    assert_false(file_exists(plots, "pchase.png"));
    assert_int_equal(count_temporaries(plots), 0);

    /* gnuplot's own error layout: echoed command, caret, then "line N: ...". */
    write_script(bin, "gnuplot",
                 "#!/bin/sh\nprintf 'plot foo\\n     ^\\n\"x.gp\" line 3: warning: meh\\n"
                 "\"x.gp\" line 3: undefined variable: foo\\n\\n' >&2\nexit 1\n");
    assert_int_equal(plot_with_path(bin, plots, &s.spec, &err), -1);
    assert_non_null(strstr(err.msg, "line 3: undefined variable: foo"));

    /* gnuplot "succeeds" but leaves the pictures empty: no final picture appears. */
    write_script(bin, "gnuplot", "#!/bin/sh\nexit 0\n");
    assert_int_equal(plot_with_path(bin, plots, &s.spec, &err), -1);
    assert_non_null(strstr(err.msg, "bad picture"));
    assert_false(file_exists(plots, "pchase.png"));
    assert_false(file_exists(plots, "pchase.svg"));
    assert_int_equal(count_temporaries(plots), 0);

    /* gnuplot runs inside the plots directory, whatever our cwd is. */
    write_script(bin, "gnuplot",
                 "#!/bin/sh\ntest -f pchase.gp && test -f pchase.dat || "
                 "{ echo 'not in the plots dir' >&2; exit 3; }\necho 'in the plots dir' >&2; "
                 "exit 2\n");
    assert_int_equal(plot_with_path(bin, plots, &s.spec, &err), -1);
    assert_non_null(strstr(err.msg, "in the plots dir"));
    assert_null(strstr(err.msg, "not in the plots dir"));
    gd_test_rmrf(tmp);
    free(tmp);
}


/* gd_plot_draw_all: several gnuplots at once, each drawing a run of pictures
 * (`reset session` between them), draw the pictures a serial draw and a
 * gnuplot per picture do, byte for byte (SVG and PNG: a PNG carries no
 * timestamp), on alternating log and linear axes; a failing picture is the
 * error -- the first in order -- the ones before it are drawn, and no
 * temporary is left. */
static void test_draw_all_several_at_once(void **state)
{
    (void)state;
    NEED_GNUPLOT();
    char *tmp = gd_test_tmpdir();
    assert_non_null(tmp);
    char serial[1100], parallel[1100], failing[1100], bin[1100];
    snprintf(serial, sizeof serial, "%s/serial", tmp);
    snprintf(parallel, sizeof parallel, "%s/parallel", tmp);
    snprintf(failing, sizeof failing, "%s/failing", tmp);
    snprintf(bin, sizeof bin, "%s/bin", tmp);
    static const char *const names[] = {"p0", "p1", "p2", "p3", "p4", "p5"};
    const size_t n = sizeof names / sizeof *names;
    char single[1100];
    snprintf(single, sizeof single, "%s/single", tmp);
    for (size_t i = 0; i < n; i++) {
        staircase s;
        staircase_init(&s, names[i]);
        s.median[i] += 10.0 * (double)i; /* each picture its own */
        /* every other one on linear axes without a model: what a picture's
         * script leaves set must not reach the next one in its gnuplot */
        if (i % 2) {
            s.spec.log_x = 0;
            s.spec.x_is_bytes = 0;
            s.spec.model_count = 0;
            s.spec.plateau_count = 0;
            s.spec.knee_count = 0;
        }
        gd_err err = {{0}};
        assert_int_equal(gd_plot_write_script(serial, &s.spec, &err), 0);
        assert_int_equal(gd_plot_write_script(parallel, &s.spec, &err), 0);
        assert_int_equal(gd_plot_write_script(failing, &s.spec, &err), 0);
        assert_int_equal(gd_plot_write_script(single, &s.spec, &err), 0);
        /* a gnuplot of its own */
        assert_int_equal(gd_plot_draw(single, names[i], &err), 0);
        char png[16];
        snprintf(png, sizeof png, "%s.png", names[i]);
        assert_false(file_exists(serial, png)); /* the script only */
    }
    gd_err err = {{0}};
    /* a gnuplot that counts its runs: one for the serial draw, one per job */
    char real[1024] = "";
    assert_int_equal(gd_test_run("command -v gnuplot", real, sizeof real), 0);
    real[strcspn(real, "\n")] = 0;
    assert_int_equal(mkdir(bin, 0755), 0);
    char counting[2400], runs[1200];
    snprintf(runs, sizeof runs, "%s/runs", tmp);
    snprintf(counting, sizeof counting, "#!/bin/sh\necho run >> %s\nexec %s \"$@\"\n", runs, real);
    write_script(bin, "gnuplot", counting);
    char *saved = strdup(getenv("PATH"));
    setenv("PATH", bin, 1);
    assert_int_equal(gd_plot_draw_all(serial, names, n, 1, &err), 0);
    char *log = slurp(tmp, "runs");
    assert_non_null(log);
    assert_string_equal(log, "run\n");
    free(log);
    assert_int_equal(gd_plot_draw_all(parallel, names, n, 3, &err), 0);
    log = slurp(tmp, "runs");
    assert_non_null(log);
    assert_string_equal(log, "run\nrun\nrun\nrun\n");
    free(log);
    setenv("PATH", saved, 1);
    for (size_t i = 0; i < n; i++) {
        char svg[16], png[16];
        snprintf(svg, sizeof svg, "%s.svg", names[i]);
        snprintf(png, sizeof png, "%s.png", names[i]);
        assert_int_equal(check_picture(parallel, png, 1), 0);
        char *a = slurp(serial, svg), *b = slurp(parallel, svg), *c = slurp(single, svg);
        assert_non_null(a);
        assert_non_null(b);
        assert_non_null(c);
        assert_string_equal(a, b);
        assert_string_equal(a, c); /* one gnuplot for them all draws what one each does */
        free(a);
        free(b);
        free(c);
        char cmd[2600], out[64];
        snprintf(cmd, sizeof cmd, "cmp %s/%s %s/%s && echo same", serial, png, single, png);
        assert_int_equal(gd_test_run(cmd, out, sizeof out), 0);
        assert_non_null(strstr(out, "same"));
    }
    assert_int_equal(count_temporaries(serial), 0);
    assert_int_equal(count_temporaries(parallel), 0);
    /* nothing to draw, and more jobs than pictures */
    assert_int_equal(gd_plot_draw_all(parallel, names, 0, 4, &err), 0);
    assert_int_equal(gd_plot_draw_all(parallel, names, 2, 16, &err), 0);

    /* p2 and p4 fail: the error is p2's, p0 and p1 are drawn */
    char fake[2300];
    snprintf(fake, sizeof fake,
             "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in p2.gp|p4.gp) "
             "echo \"fake gnuplot: broken $a\" >&2; exit 1;; esac; done\nexec %s \"$@\"\n",
             real);
    write_script(bin, "gnuplot", fake);
    setenv("PATH", bin, 1);
    int rc = gd_plot_draw_all(failing, names, n, 3, &err);
    setenv("PATH", saved, 1);
    free(saved);
    assert_int_equal(rc, -1);
    assert_non_null(strstr(err.msg, "fake gnuplot: broken p2.gp"));
    assert_null(strchr(err.msg, '\n'));
    assert_int_equal(check_picture(failing, "p0.png", 1), 0);
    assert_int_equal(check_picture(failing, "p1.svg", 0), 0);
    assert_false(file_exists(failing, "p2.png"));
    assert_int_equal(count_temporaries(failing), 0);
    gd_test_rmrf(tmp);
    free(tmp);
}

/* A 1x1 RGB PNG (signature, IHDR, IDAT, IEND, each with its CRC), so that the
 * checks are tested without gnuplot; and a small SVG as gnuplot writes them. */
static const unsigned char tiny_png[] =
    "\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x01"
    "\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90\x77\x53\xde\x00\x00\x00\x0c\x49\x44\x41"
    "\x54\x78\x9c\x63\xf8\xcf\xc0\x00\x00\x03\x01\x01\x00\xc9\xfe\x92\xef\x00\x00\x00"
    "\x00\x49\x45\x4e\x44\xae\x42\x60\x82";
#define TINY_PNG_BYTES (sizeof tiny_png - 1)
static const char tiny_svg[] =
    "<?xml version=\"1.0\" encoding=\"utf-8\"  standalone=\"no\"?>\n"
    "<svg width=\"10\" height=\"10\" viewBox=\"0 0 10 10\" xmlns=\"http://www.w3.org/2000/svg\">\n"
    "<rect x=\"0\" y=\"0\" width=\"10\" height=\"10\" fill=\"white\"/>\n"
    "</svg>\n\n";

static void test_checks_reject_bad_files(void **state)
{
    (void)state;
    char *tmp = gd_test_tmpdir();
    assert_non_null(tmp);
    gd_err err = {{0}};
    char png_path[1200], svg_path[1200], path[1200];
    unsigned char png[sizeof tiny_png];
    memcpy(png, tiny_png, sizeof png);
    snprintf(png_path, sizeof png_path, "%s/good.png", tmp);
    snprintf(svg_path, sizeof svg_path, "%s/good.svg", tmp);
    write_bytes(png_path, png, TINY_PNG_BYTES);
    write_bytes(svg_path, tiny_svg, strlen(tiny_svg));
    if (gd_plot_check_png(png_path, &err) != 0 || gd_plot_check_svg(svg_path, &err) != 0)
        fail_msg("%s", err.msg);

    snprintf(path, sizeof path, "%s/text.png", tmp);
    write_bytes(path, "hello, not a picture\n", 21);
    assert_int_equal(gd_plot_check_png(path, &err), -1);
    assert_non_null(strstr(err.msg, "text.png"));
    assert_int_equal(gd_plot_check_svg(path, &err), -1);

    snprintf(path, sizeof path, "%s/truncated.png", tmp);
    write_bytes(path, png, TINY_PNG_BYTES / 2); /* inside IDAT */
    assert_int_equal(gd_plot_check_png(path, &err), -1);
    assert_non_null(strstr(err.msg, "truncated"));
    write_bytes(path, png, 16); /* signature and half of the IHDR header */
    assert_int_equal(gd_plot_check_png(path, &err), -1);
    write_bytes(path, png, TINY_PNG_BYTES - 1); /* IEND's CRC cut short */
    assert_int_equal(gd_plot_check_png(path, &err), -1);
    write_bytes(path, png, TINY_PNG_BYTES - PNG_IEND_CHUNK_BYTES); /* no IEND at all */
    assert_int_equal(gd_plot_check_png(path, &err), -1);
    assert_non_null(strstr(err.msg, "IEND"));

    snprintf(path, sizeof path, "%s/corrupt.png", tmp);
    png[PNG_IHDR_INTERLACE_OFFSET] ^= 0x5a; /* IHDR's last data byte: the CRC must catch it */
    write_bytes(path, png, TINY_PNG_BYTES);
    assert_int_equal(gd_plot_check_png(path, &err), -1);
    assert_non_null(strstr(err.msg, "CRC"));

    snprintf(path, sizeof path, "%s/empty.png", tmp);
    write_bytes(path, "", 0);
    assert_int_equal(gd_plot_check_png(path, &err), -1);
    assert_int_equal(gd_plot_check_svg(path, &err), -1);
    snprintf(path, sizeof path, "%s/absent.png", tmp);
    assert_int_equal(gd_plot_check_png(path, &err), -1);
    assert_non_null(strstr(err.msg, "absent.png"));

    /* SVG: a PNG is not one, nor half an SVG, nor HTML, nor an SVG with a tail. */
    assert_int_equal(gd_plot_check_svg(png_path, &err), -1);
    snprintf(path, sizeof path, "%s/truncated.svg", tmp);
    write_bytes(path, tiny_svg, strlen(tiny_svg) / 2);
    assert_int_equal(gd_plot_check_svg(path, &err), -1);
    assert_non_null(strstr(err.msg, "</svg>"));
    snprintf(path, sizeof path, "%s/page.svg", tmp);
    const char *html = "<?xml version=\"1.0\"?>\n<html><svg></svg></html>\n";
    write_bytes(path, html, strlen(html));
    assert_int_equal(gd_plot_check_svg(path, &err), -1);
    const char *tail = "<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>\ntrailing text\n";
    write_bytes(path, tail, strlen(tail));
    assert_int_equal(gd_plot_check_svg(path, &err), -1);
    const char *minimal = "\xef\xbb\xbf<?xml version=\"1.0\"?>\n<!-- c -->\n<!DOCTYPE svg [ "
                          "<!ENTITY a \"b\"> ]>\n<svg xmlns=\"http://www.w3.org/2000/svg\">"
                          "</svg >\n<!-- end -->\n";
    write_bytes(path, minimal, strlen(minimal));
    if (gd_plot_check_svg(path, &err) != 0)
        fail_msg("%s", err.msg);
    gd_test_rmrf(tmp);
    free(tmp);
}

/* gnuplot's own pictures pass the checks; their halves do not. */
static void test_checks_accept_gnuplot_pictures(void **state)
{
    (void)state;
    NEED_GNUPLOT();
    char *tmp = gd_test_tmpdir();
    assert_non_null(tmp);
    staircase s;
    staircase_init(&s, "good");
    gd_err err = {{0}};
    if (gd_plot_write(tmp, &s.spec, &err) != 0)
        fail_msg("%s", err.msg);
    char png_path[1200], svg_path[1200], path[1200];
    snprintf(png_path, sizeof png_path, "%s/good.png", tmp);
    snprintf(svg_path, sizeof svg_path, "%s/good.svg", tmp);
    size_t png_bytes = 0, svg_bytes = 0;
    char *png = gd_read_file(png_path, &png_bytes, &err);
    char *svg = gd_read_file(svg_path, &svg_bytes, &err);
    assert_non_null(png);
    assert_non_null(svg);
    assert_int_equal(gd_plot_check_png(png_path, &err), 0);
    assert_int_equal(gd_plot_check_svg(svg_path, &err), 0);
    snprintf(path, sizeof path, "%s/half.png", tmp);
    write_bytes(path, png, png_bytes / 2);
    assert_int_equal(gd_plot_check_png(path, &err), -1);
    snprintf(path, sizeof path, "%s/half.svg", tmp);
    write_bytes(path, svg, svg_bytes / 2);
    assert_int_equal(gd_plot_check_svg(path, &err), -1);
    free(png);
    free(svg);
    gd_test_rmrf(tmp);
    free(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_staircase_draws_png_and_svg),
        cmocka_unit_test(test_script_reruns_by_hand),
        cmocka_unit_test(test_awkward_text),
        cmocka_unit_test(test_nan_values),
        cmocka_unit_test(test_other_axes),
        cmocka_unit_test(test_invalid_specs),
        cmocka_unit_test(test_missing_gnuplot),
        cmocka_unit_test(test_failing_gnuplot),
        cmocka_unit_test(test_draw_all_several_at_once),
        cmocka_unit_test(test_checks_reject_bad_files),
        cmocka_unit_test(test_checks_accept_gnuplot_pictures),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
