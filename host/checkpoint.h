/* checkpoint.h -- the finished points of a step in progress, kept across a kill.
 *
 * A step's CSV is rewritten after every point, but its raw samples
 * (LABEL.samples.gz) are written when the step ends, and the inference needs
 * them: without more, a step interrupted at its 80th point is measured again
 * from its first on `characterize --resume`.  So each finished point is also
 * appended, whole (every sample, every counter, bit for bit), to
 * OUT/LABEL.partial, one self-checking record per point: a SIGKILL in the
 * middle of an append leaves a torn last record, which the reader detects
 * (length and checksum) and drops, and the file is cut back to its whole
 * records before anything is appended again.  The file goes when the step's
 * final files are written.
 *
 * On --resume the records (or, for a step that finished, the points of its
 * LABEL.csv and LABEL.samples.gz) form the step's store: the runner takes a
 * point from it instead of measuring it (host/runner.c), in the order the
 * sweep asks for points, so an adaptive sweep replays its choices from the
 * stored points and measures only those it never reached.
 */
#ifndef GD_CHECKPOINT_H
#define GD_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/curve.h"
#include "host/device.h"

#define GD_CHECKPOINT_SUFFIX ".partial"

typedef struct gd_checkpoint gd_checkpoint;

/* The checkpoint of step LABEL in DIR.  resume: the whole records of an
 * existing DIR/LABEL.partial become the store (a torn tail is dropped and cut
 * off the file); otherwise a stale file is removed.  The file itself is
 * created at the first append. */
int gd_checkpoint_open(const char *dir, const char *label, int resume, gd_checkpoint **out,
                       gd_err *err);
/* A step that finished: its points (read from LABEL.csv and LABEL.samples.gz)
 * replace the store, taken from `finished` (left empty); they are marked as
 * already in the CSV. */
void gd_checkpoint_use_finished(gd_checkpoint *cp, gd_curve *finished);
/* The stored point at x, moved into *out: returns 1 (and *in_csv: the point
 * came from a finished step's files), or 0 when the store has none (left). */
int gd_checkpoint_take(gd_checkpoint *cp, uint64_t x, gd_point *out, int *in_csv);
/* Whether the store has point x, not taken yet. */
int gd_checkpoint_has(const gd_checkpoint *cp, uint64_t x);
/* Appends a finished point (once per x: a second append of x does nothing). */
int gd_checkpoint_append(gd_checkpoint *cp, const gd_point *point, gd_err *err);
/* A point entered the curve: returns whether the CSV must be written again
 * (1 from the first point that was not already in a finished step's CSV on). */
int gd_checkpoint_note_added(gd_checkpoint *cp, int in_csv);
/* Points the store held when it was opened or filled, and the bytes of a torn
 * tail dropped. */
size_t gd_checkpoint_stored(const gd_checkpoint *cp);
size_t gd_checkpoint_dropped_bytes(const gd_checkpoint *cp);
/* Closes; remove_file: the step's final files are written (or it failed for a
 * reason other than an interruption), so DIR/LABEL.partial goes.  NULL: nothing. */
void gd_checkpoint_close(gd_checkpoint *cp, int remove_file);

#endif
