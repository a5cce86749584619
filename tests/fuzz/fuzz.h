/* fuzz.h -- the fuzz targets of tests/fuzz/, one per parser and one for the
 * simulator end to end.
 *
 * Each target takes the fuzzer's bytes, feeds them to one entry point of the
 * project the way a user's file or command line would, and returns
 * GD_FUZZ_ACCEPTED or GD_FUZZ_REJECTED.  A target aborts (the fuzzer's crash)
 * when an invariant breaks: a rejection without a message, a message that is
 * not one line, an accepted value outside what the parser promises.  The same
 * functions run under libFuzzer (fuzz_entry.c, `make fuzz`) and in the plain
 * build, where tests/test_fuzz_replay.c replays the committed reproducers of
 * tests/fuzz/regress/TARGET/ and checks each file's expected outcome.
 */
#ifndef GD_FUZZ_H
#define GD_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "host/device.h"

#define GD_FUZZ_ACCEPTED 0
#define GD_FUZZ_REJECTED 1

typedef int (*gd_fuzz_fn)(const uint8_t *data, size_t size);

int gd_fuzz_arch(const uint8_t *data, size_t size);     /* an arch file's text */
int gd_fuzz_set(const uint8_t *data, size_t size);      /* --set lines over tiny.arch */
int gd_fuzz_suite(const uint8_t *data, size_t size);    /* a .suite file */
int gd_fuzz_expr(const uint8_t *data, size_t size);     /* a suite size expression */
int gd_fuzz_sweep(const uint8_t *data, size_t size);    /* GRANULARITY\nFROM:TO[:STEPS] */
int gd_fuzz_ptx(const uint8_t *data, size_t size);      /* PTX text: the sim's front end */
int gd_fuzz_results(const uint8_t *data, size_t size);  /* meta.json %% CSV %% inferred.json */
int gd_fuzz_cubin(const uint8_t *data, size_t size);    /* an ELF cubin */
int gd_fuzz_probe(const uint8_t *data, size_t size);    /* probe=NAME and options, a plan */
int gd_fuzz_sim(const uint8_t *data, size_t size);      /* PTX parsed, loaded, launched */

typedef struct gd_fuzz_target {
    const char *name;
    gd_fuzz_fn fn;
} gd_fuzz_target;

/* Every target, by the name of its directory under tests/fuzz/regress/. */
extern const gd_fuzz_target gd_fuzz_targets[];
extern const size_t gd_fuzz_target_count;

/* ---- fuzz_input.c: what the targets share ---- */

/* The bytes as a NUL-terminated string (cut at the first NUL); caller frees. */
char *gd_fuzz_text(const uint8_t *data, size_t size);
/* Aborts unless err holds a non-empty message of one line; returns REJECTED
 * (and prints the message when GD_FUZZ_VERBOSE is set). */
int gd_fuzz_rejected(const gd_err *err, const char *target);
/* Aborts with `what` (an invariant the accepted input broke). */
void gd_fuzz_broken(const char *target, const char *what) __attribute__((noreturn));
/* A private scratch directory of this process (created once); its path. */
const char *gd_fuzz_scratch_dir(void);
/* Writes bytes to SCRATCH/name; 0 or -1. */
int gd_fuzz_write(const char *name, const void *data, size_t size);
/* The next part of `text` up to a line "%%" (or its end); *rest moves past it.
 * Modifies text in place; NULL when text is NULL. */
char *gd_fuzz_next_part(char **rest);
/* The bundled tiny.arch's text (read once), for the targets that need an arch. */
const char *gd_fuzz_tiny_arch(void);

#endif
