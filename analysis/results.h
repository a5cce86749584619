/* results.h -- the results directory: atomic files, CSV tables, JSON documents.
 *
 * Every file of results/RUN/ is written to a temporary name in the same
 * directory, flushed, and renamed over the final name, so a run that is
 * interrupted -- or a disk that fills -- never leaves a half-written file, and
 * every probe finished before the interruption keeps its results.
 */
#ifndef GD_RESULTS_H
#define GD_RESULTS_H

#include <jansson.h>
#include <stddef.h>

#include "host/device.h"

/* mkdir -p */
int gd_mkdirs(const char *path, gd_err *err);
/* Write `bytes` to path atomically (temp file + fsync + rename). */
int gd_write_atomic(const char *path, const void *data, size_t bytes, gd_err *err);
/* The same without the fsync: whole against a kill (the rename), not made
 * durable against a power loss -- for a file rewritten soon after and then
 * written by gd_write_atomic (a sweep's CSV after each point). */
int gd_write_snapshot(const char *path, const void *data, size_t bytes, gd_err *err);
/* Serialize `doc` (indented, keys in insertion order) and write it atomically. */
int gd_write_json_atomic(const char *path, const json_t *doc, gd_err *err);
/* Read a whole file into a NUL-terminated buffer (caller frees).  A file of
 * GD_READ_FILE_MAX_BYTES or more is refused with a one-line error. */
#define GD_READ_FILE_MAX_BYTES (64u << 20)
char *gd_read_file(const char *path, size_t *bytes, gd_err *err);
/* Read and parse a JSON file (capped as gd_read_file); errors "PATH:LINE: why". */
json_t *gd_json_load(const char *path, size_t flags, gd_err *err);

/* A text buffer that grows, for CSV and Markdown. */
typedef struct gd_text {
    char *data;
    size_t length, capacity;
    int failed;
} gd_text;

void gd_text_init(gd_text *t);
void gd_text_printf(gd_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends n bytes of s (no format: a caller's own digits). */
void gd_text_append(gd_text *t, const char *s, size_t n);
void gd_text_free(gd_text *t);
int gd_text_write_atomic(gd_text *t, const char *path, gd_err *err);
int gd_text_write_snapshot(gd_text *t, const char *path, gd_err *err);

/* ISO 8601 UTC time, e.g. 2026-11-21T23:25:44Z */
void gd_iso8601_now(char *buf, size_t bytes);

#endif
