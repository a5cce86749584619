/* ptx_emit.h -- a small builder for PTX text.
 *
 * Probes write their kernels through this: a growable buffer with printf, and a
 * header that picks `.version` and `.target` for the device.  The PTX ISA
 * version is the oldest one that both knows the target (sm_75 needs 6.3, sm_80
 * 7.0, sm_86 7.1, sm_89/sm_90 7.8) and has every instruction the probe uses, so
 * older drivers can still JIT it.
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
/* Takes ownership of the text (NULL if anything failed) and resets p. */
char *gd_ptx_finish(gd_ptx *p);
void gd_ptx_free(gd_ptx *p);

/* ".version X.Y / .target sm_XY / .address_size 64".  min_isa_x10 is the oldest
 * PTX ISA (times ten, e.g. 63 for 6.3) the probe's instructions need. */
void gd_ptx_header(gd_ptx *p, int cc_major, int cc_minor, int min_isa_x10);

/* PTX ISA version (times ten) that introduced sm_XY; 0 if unknown. */
int gd_ptx_isa_for_target(int sm);

#endif
