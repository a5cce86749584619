/* ptx_emit.h -- a small builder for PTX text.
 *
 * Probes write their kernels through this: a growable buffer with printf, and a
 * header that picks `.version` and `.target` for the device.  The PTX ISA
 * version is the oldest one that both knows the target (the table in
 * kernels/ptx_emit.c: sm_75 needs 6.3, sm_80 7.0, ..., sm_103 and sm_121 8.8,
 * sm_88 and sm_110 9.0) and has every instruction the probe uses, so older
 * drivers can still JIT it.  A compute capability the table does not know gets
 * the newest known plain target below it (PTX for sm_XY is JIT-compiled forward
 * to any newer GPU), and says so.
 */
#ifndef GD_PTX_EMIT_H
#define GD_PTX_EMIT_H

#include <stddef.h>

typedef struct gd_ptx {
    char *text;
    size_t length, capacity;
    int failed;               /* an allocation failed; text is unusable */
} gd_ptx;

void gd_ptx_init(gd_ptx *p);
void gd_ptx_printf(gd_ptx *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends `times` more copies of the text already written at [from, length):
 * a long block of the same few lines without formatting each again. */
void gd_ptx_repeat(gd_ptx *p, size_t from, size_t times);
/* Takes ownership of the text (NULL if anything failed) and resets p. */
char *gd_ptx_finish(gd_ptx *p);
void gd_ptx_free(gd_ptx *p);

/* ".version X.Y / .target sm_XY / .address_size 64".  min_isa_x10 is the oldest
 * PTX ISA (times ten, e.g. 63 for 6.3) the probe's instructions need.  For a
 * compute capability the table does not know, a comment line before .version
 * names the target emitted instead (gd_ptx_target_for_cc's note). */
void gd_ptx_header(gd_ptx *p, int cc_major, int cc_minor, int min_isa_x10);

/* PTX ISA version (times ten) that introduced sm_XY; 0 if the table does not
 * know sm_XY. */
int gd_ptx_isa_for_target(int sm);

/* The target the PTX of a device of compute capability cc_major.cc_minor is
 * written for. */
typedef struct gd_ptx_target {
    int sm;                   /* .target sm_<sm> */
    int isa_x10;              /* .version, times ten (before a probe's own minimum) */
    int fallback;             /* 1: the device's own sm_XY is unknown; sm is the newest
                               * known plain target below it, JIT-compiled forward */
    char note[160];           /* fallback: one line saying so; else empty */
} gd_ptx_target;

/* Fills *out for cc_major.cc_minor.  A cc older than every known target gets
 * that oldest target's row with fallback set (the driver will refuse it). */
void gd_ptx_target_for_cc(int cc_major, int cc_minor, gd_ptx_target *out);

/* The plain (not a/f) sm_XY targets the table knows, oldest first; *count set. */
const int *gd_ptx_known_targets(size_t *count);

#endif
