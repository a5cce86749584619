/* characterize_resume.c -- a characterization stopped by a signal, and taken
 * up again.
 *
 * An interrupted run (host/interrupt.c) ends its loop before the next point;
 * this file records that in meta.json ("interrupted": "SIGINT", and the steps
 * that did not run) so that report.md says so and compare and report accept
 * the run for what it has.  `characterize --resume RUN` runs the same command
 * again in RUN: a step whose LABEL.csv and LABEL.samples.gz are both there and
 * agree is read back, not measured; its inference is redone from the samples,
 * exactly as `gpudissect infer` does.  The step that was in progress has no
 * samples file yet (written when the step ends) but its checkpoint,
 * LABEL.partial (host/checkpoint.h), holds every point it finished, samples
 * and all.  Either way the points go to the step's checkpoint store and the
 * sweep runs again, taking each point it asks for from the store: an adaptive
 * sweep makes the choices it made before, and only the points never reached
 * are measured.
 */
#include "host/characterize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/curve_samples.h"
#include "analysis/results.h"
#include "host/checkpoint.h"
#include "host/interrupt.h"
#include "host/meta.h"

void gd_characterize_resume_curve(const char *out_dir, const char *label, const gd_probe *probe,
                                  const gd_probe_opts *opts, gd_checkpoint *cp)
{
    char csv[1200], samples[1200];
    snprintf(csv, sizeof csv, "%s/%s.csv", out_dir, label);
    snprintf(samples, sizeof samples, "%s/%s%s", out_dir, label, GD_SAMPLES_SUFFIX);
    if (access(csv, R_OK) != 0 || access(samples, R_OK) != 0)
        return;
    gd_curve loaded;
    gd_err err;
    if (gd_curve_read_csv(csv, label, probe, &loaded, &err) != 0)
        return;
    if (gd_curve_read_samples(samples, &loaded, &err) != 0) {
        gd_curve_free(&loaded); /* not a finished step's files: measured again */
        return;
    }
    loaded.opts = *opts;
    gd_checkpoint_use_finished(cp, &loaded);
    gd_curve_free(&loaded);
}

int gd_characterize_mark_interrupted(gd_characterize_ctx *ctx, json_t *meta, gd_err *err)
{
    int signo = gd_interrupt_requested();
    if (!signo)
        return 0;
    json_object_set_new(meta, "interrupted", json_string(gd_interrupt_name(signo)));
    /* the steps that never started: by label, for report.md and --resume */
    json_t *not_run = json_array();
    const json_t *probes = json_object_get(meta, "probes");
    for (size_t i = 0; i < ctx->suite->step_count; i++) {
        const char *label = ctx->suite->steps[i].label;
        int seen = 0;
        size_t j;
        const json_t *e;
        json_array_foreach(probes, j, e) {
            const char *csv = json_string_value(json_object_get(e, "csv"));
            if (csv && !strncmp(csv, label, strlen(label)))
                seen = 1;
        }
        if (!seen)
            json_array_append_new(not_run, json_string(label));
    }
    json_object_set_new(meta, "not_run", not_run);
    if (ctx->progress)
        fprintf(ctx->progress, "interrupted by %s: keeping the steps that finished\n",
                gd_interrupt_name(signo));
    return gd_meta_write(meta, ctx->out_dir, err);
}

int gd_characterize_resume_args(const char *run, char ***argv_out, int *argc_out, gd_err *err)
{
    char path[1200];
    if (snprintf(path, sizeof path, "%s/meta.json", run) >= (int)sizeof path)
        return gd_fail(err, "%s: path too long", run);
    json_t *meta = gd_json_load(path, 0, err);
    if (!meta)
        return -1;
    const json_t *cmd = json_object_get(meta, "command_line");
    size_t n = json_array_size(cmd);
    const char *first = n ? json_string_value(json_array_get(cmd, 0)) : NULL;
    if (!first || strcmp(first, "characterize")) {
        json_decref(meta);
        return gd_fail(err, "%s: not a characterize run (its command line is not recorded)", path);
    }
    /* the same words, less --out and --resume, then --out RUN: meta.json owns
     * the strings until the caller frees them with gd_characterize_resume_free */
    char **argv = calloc(n + 3, sizeof *argv);
    if (!argv) {
        json_decref(meta);
        return gd_fail(err, "out of memory");
    }
    int argc = 0;
    for (size_t i = 0; i < n; i++) {
        const char *a = json_string_value(json_array_get(cmd, i));
        if (!a)
            continue;
        if (!strcmp(a, "--out") || !strcmp(a, "--resume")) {
            i++;
            continue;
        }
        if (!strncmp(a, "--out=", 6) || !strncmp(a, "--resume=", 9))
            continue;
        argv[argc++] = strdup(a);
    }
    argv[argc++] = strdup("--out");
    argv[argc++] = strdup(run);
    json_decref(meta);
    for (int i = 0; i < argc; i++)
        if (!argv[i]) {
            gd_characterize_resume_free(argv, argc);
            return gd_fail(err, "out of memory");
        }
    *argv_out = argv;
    *argc_out = argc;
    return 0;
}

void gd_characterize_resume_free(char **argv, int argc)
{
    for (int i = 0; argv && i < argc; i++)
        free(argv[i]);
    free(argv);
}
