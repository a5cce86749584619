/* jit_check.h -- does the machine code the driver's JIT made mean what the probe means?
 *
 * The tests assemble every probe with the toolkit's ptxas and read the SASS
 * back (tests/ptx_toolchain.h): the entry's size must fall in the plan's range
 * and the instructions the probe is about (its FFMA block, its L1 loads) must
 * all be there.  On a card the driver's own JIT compiles the PTX, and it can
 * differ from that ptxas (another version, other heuristics).  So the runner
 * checks the JIT's cubin the same way before a kernel's first launch
 * (host/runner.c), records the verdicts, the JIT's info log and a hash of the
 * cubin in meta.json, and refuses a probe whose machine code does not match.
 *
 * Three checks, each with its own verdict line ("ok: ...", "mismatch: ...",
 * "unchecked: <why>"):
 *   code_range  the entry's instructions (.text.<entry> / 16 bytes, sm_70+)
 *               against plan->code_min/max_instructions -- needs nothing but
 *               the cubin;
 *   intended    the probe's intended instructions (plan->intended_instructions
 *               of the opcode gd_jit_intended_opcode names) counted in
 *               nvdisasm's listing -- needs nvdisasm (GD_NVDISASM, else PATH);
 *   order       every timed region's loads, clock reads and stores in the
 *               order of the plan's PTX (gd_jit_check_order: the checker of
 *               host/sass_order.h, the one tests/test_sass_order.c holds
 *               ptxas' output to) -- needs nvdisasm and the target's c[0x0]
 *               offset of the first kernel parameter, which
 *               gd_jit_param_base measures through the device's own JIT
 *               (the runner caches it, once per device and run).
 */
#ifndef GD_JIT_CHECK_H
#define GD_JIT_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "host/device.h"
#include "kernels/probe.h"

#define GD_NVDISASM_ENV "GD_NVDISASM"
#define GD_JIT_VERDICT_BYTES 512

typedef enum gd_jit_status {
    GD_JIT_OK,        /* every check that ran passed, and at least one ran */
    GD_JIT_UNCHECKED, /* nothing could be checked (no range, no nvdisasm, ...) */
    GD_JIT_MISMATCH,  /* a check failed: the probe must not run */
} gd_jit_status;

typedef struct gd_jit_verdict {
    gd_jit_status status;
    char code_range[GD_JIT_VERDICT_BYTES];
    char intended[GD_JIT_VERDICT_BYTES];
    char order[GD_JIT_VERDICT_BYTES];
    uint32_t instructions;            /* the entry's, from the cubin (0: unknown) */
    int intended_found;               /* counted in the SASS; -1: not counted */
} gd_jit_verdict;

/* "ok" / "unchecked" / "mismatch". */
const char *gd_jit_status_name(gd_jit_status status);

/* FNV-1a 64 of the bytes as 16 hex digits (+ NUL): the cubin's identity in
 * meta.json (two runs ran the same machine code iff their hashes match). */
void gd_jit_cubin_hash(const void *bytes, size_t size, char out[17]);

/* The SASS opcode whose count plan->intended_instructions gives, for probe
 * `probe` ("FFMA" for the instruction-cache probes, "LDG" -- without
 * .STRONG.GPU -- for the L1-path probes), or NULL when the probe has none. */
const char *gd_jit_intended_opcode(const char *probe);

/* nvdisasm to use: $GD_NVDISASM when executable, else nvdisasm on PATH; NULL
 * if neither (the caller says "unchecked: no nvdisasm"). */
const char *gd_jit_find_nvdisasm(char *buf, size_t size);

/* Checks `cubin` (the JIT's output, before any patch) for `entry` against the
 * plan of probe `probe`.  nvdisasm may be NULL; param_base is the target's
 * c[0x0] offset of the first parameter (gd_jit_param_base; 0: unknown, the
 * order is then "unchecked").  Fills *out; returns -1 (err) only when the
 * check itself could not run (unreadable cubin, nvdisasm failing) -- a
 * mismatch is a verdict, not an error. */
int gd_jit_check(const char *probe, const gd_probe_plan *plan, const void *cubin, size_t size,
                 const char *nvdisasm, unsigned param_base, gd_jit_verdict *out, gd_err *err);

/* The timed-region order of `sass` (nvdisasm's listing of the entry: one
 * instruction per line, ".L_x_N:" label lines kept; NULL: no nvdisasm)
 * against the plan's PTX, read with parameter base `param_base` (0: unknown).
 * Writes one verdict line -- "ok: N timed regions in PTX order", "mismatch:
 * timed region K ...; first difference at event E; PTX `<its event>`, SASS
 * `<the event in its place>`", "unchecked: why" (no nvdisasm, no parameter
 * base, no timed region, a reader's limit exceeded) -- and returns the
 * status. */
gd_jit_status gd_jit_check_order(const char *probe, const gd_probe_plan *plan, const char *sass,
                                 unsigned param_base, char *verdict, size_t size);

/* nvdisasm's listing of a cubin, as gd_jit_check_order reads it (malloc'ed;
 * NULL with err when nvdisasm fails). */
char *gd_jit_disassemble(const char *nvdisasm, const void *cubin, size_t size, gd_err *err);

/* The c[0x0] offset of the first kernel parameter on `dev` (a cuda:N device),
 * measured: a tiny kernel (host/sass_order.h, gd_sass_param_base_ptx) is
 * loaded through the device's JIT, its cubin disassembled with `nvdisasm`
 * and the offset read off the listing.  Returns -1 with err when it cannot
 * be measured (the caller's order verdict then says why). */
int gd_jit_param_base(gd_device *dev, const char *nvdisasm, unsigned *out, gd_err *err);

#endif
