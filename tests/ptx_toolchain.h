/* ptx_toolchain.h -- ptxas and nvdisasm for the tests (include after testing.h).
 *
 * Every probe's PTX is assembled by the real ptxas for the GPUs we support, and
 * where a test needs to see the machine code, nvdisasm (PyPI nvidia-cuda-nvdisasm)
 * prints it.  Both write to a temporary directory the caller removes.
 */
#ifndef GD_PTX_TOOLCHAIN_H
#define GD_PTX_TOOLCHAIN_H

#include "analysis/results.h"
#include "kernels/cubin_elf.h"
#include "kernels/probe.h"

#include "kernels/ptx_emit.h"

/* The targets every probe is assembled for: the plain sm_XY values (no a/f
 * feature targets, no compute_/lto_ names) the installed ptxas lists under
 * --gpu-name in its --help ("Allowed values for this option: ... 'sm_100',
 * 'sm_100a', ..."), ascending -- sm_75 .. sm_121 for CUDA 13.0.  Without ptxas
 * (no test assembles then), the emitter's table from sm_75 on.  One place: the
 * tests name no target list of their own. */
#define GD_TEST_MAX_TARGETS 64
typedef struct gd_test_target_list {
    int sm[GD_TEST_MAX_TARGETS];
    size_t count;
    int from_ptxas; /* 1: parsed from ptxas --help */
} gd_test_target_list;

/* Parses the plain sm_XY names out of ptxas --help's --gpu-name paragraph into
 * *list (ascending, no duplicates); returns how many. */
static inline size_t gd_test_parse_gpu_names(const char *help, gd_test_target_list *list)
{
    list->count = 0;
    const char *at = strstr(help, "--gpu-name");
    at = at ? strstr(at, "Allowed values for this option:") : NULL;
    if (!at)
        return 0;
    const char *end = strstr(at, "Default value");
    for (const char *q = strstr(at, "'sm_"); q && (!end || q < end); q = strstr(q + 1, "'sm_")) {
        char *after;
        long sm = strtol(q + 4, &after, 10);
        if (after == q + 4 || *after != '\'' || sm <= 0 || list->count == GD_TEST_MAX_TARGETS)
            continue; /* sm_90a, sm_100f: feature targets, not portable forward */
        size_t i = list->count;
        while (i > 0 && list->sm[i - 1] > sm)
            i--;
        if (i > 0 && list->sm[i - 1] == sm)
            continue;
        memmove(list->sm + i + 1, list->sm + i, (list->count - i) * sizeof list->sm[0]);
        list->sm[i] = (int)sm;
        list->count++;
    }
    return list->count;
}

static inline const gd_test_target_list *gd_test_target_list_get(void)
{
    static gd_test_target_list list;
    static int done;
    if (done)
        return &list;
    done = 1;
    const char *ptxas = gd_test_ptxas();
    if (ptxas) {
        static char help[1 << 16];
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "'%s' --help", ptxas);
        if (gd_test_run(cmd, help, sizeof help) == 0 && gd_test_parse_gpu_names(help, &list) > 0) {
            list.from_ptxas = 1;
            return &list;
        }
        print_message("note: no sm_XY list in '%s --help': the emitter's table stands in\n",
                      ptxas);
    }
    size_t known;
    const int *sms = gd_ptx_known_targets(&known);
    for (size_t i = 0; i < known && list.count < GD_TEST_MAX_TARGETS; i++)
        if (sms[i] >= 75) /* CUDA 13's oldest */
            list.sm[list.count++] = sms[i];
    return &list;
}

#define gd_test_targets (gd_test_target_list_get()->sm)
#define GD_TEST_TARGET_COUNT (gd_test_target_list_get()->count)

/* Every target the ptxas of CUDA 13 knows: the SASS order check
 * (tests/test_sass_order.c) covers them all.  __attribute__((unused)): the
 * tests that include this header use one list or the other. */
__attribute__((unused)) static const int gd_test_all_targets[] = {75, 80, 86, 87, 88, 89,
                                                                  90, 100, 103, 110, 120, 121};
#define GD_TEST_ALL_TARGET_COUNT (sizeof gd_test_all_targets / sizeof gd_test_all_targets[0])

/* Whether ptxas' output says only that the PTX's .version is too old for the
 * target (a target newer than kernels/ptx_emit.c's version table): a
 * toolchain gap the caller reports and skips, not a defect of the probe. */
static inline int gd_test_ptxas_version_gap(const char *out)
{
    return strstr(out, ".version") && strstr(out, "does not support") &&
           !strstr(out, "rror   : Unknown") && !strstr(out, "syntax error");
}

/* Assembles ptx for sm_<sm> into dir/<name>.cubin; returns the cubin bytes
 * (caller frees), or NULL with ptxas' output in out (when out is given). */
static inline void *gd_test_ptxas_try(const char *ptxas, const char *dir, const char *name,
                                      const char *ptx, int sm, size_t *size, char *out,
                                      size_t cap)
{
    char ptx_path[1200], cubin_path[1200], cmd[4096], log[8192];
    snprintf(ptx_path, sizeof ptx_path, "%s/%s.ptx", dir, name);
    snprintf(cubin_path, sizeof cubin_path, "%s/%s.cubin", dir, name);
    gd_err err;
    if (out && cap)
        out[0] = 0;
    if (gd_write_atomic(ptx_path, ptx, strlen(ptx), &err) != 0) {
        if (out)
            snprintf(out, cap, "%s", err.msg);
        return NULL;
    }
    snprintf(cmd, sizeof cmd, "'%s' -arch=sm_%d '%s' -o '%s'", ptxas, sm, ptx_path, cubin_path);
    if (gd_test_run(cmd, log, sizeof log) != 0) {
        if (out)
            snprintf(out, cap, "%s", log);
        return NULL;
    }
    void *bytes = gd_read_file(cubin_path, size, &err);
    if (!bytes && out)
        snprintf(out, cap, "%s", err.msg);
    return bytes;
}

/* Assembles ptx for sm_<sm> into dir/<name>.cubin; returns the cubin bytes (caller
 * frees) or NULL after printing ptxas' output. */
static inline void *gd_test_ptxas_compile(const char *ptxas, const char *dir, const char *name,
                                          const char *ptx, int sm, size_t *size)
{
    char ptx_path[1200], cubin_path[1200], cmd[4096], out[8192];
    snprintf(ptx_path, sizeof ptx_path, "%s/%s.ptx", dir, name);
    snprintf(cubin_path, sizeof cubin_path, "%s/%s.cubin", dir, name);
    gd_err err;
    if (gd_write_atomic(ptx_path, ptx, strlen(ptx), &err) != 0) {
        print_message("%s\n", err.msg);
        return NULL;
    }
    snprintf(cmd, sizeof cmd, "'%s' -arch=sm_%d '%s' -o '%s'", ptxas, sm, ptx_path, cubin_path);
    if (gd_test_run(cmd, out, sizeof out) != 0) {
        print_message("ptxas failed for %s (sm_%d):\n%s\n", name, sm, out);
        return NULL;
    }
    void *bytes = gd_read_file(cubin_path, size, &err);
    if (!bytes)
        print_message("%s\n", err.msg);
    return bytes;
}

/* nvdisasm's listing of dir/<name>.cubin, one instruction per line without
 * addresses or encodings (caller frees); NULL on failure.  -ndf: without
 * nvdisasm's dataflow pass, which only names the targets of jumps through the
 * branch stack and took half of each run (1.0 -> 0.46 s for a p-chase cubin);
 * the listings of every probe's kernel on sm_75..sm_121 (180 cubins) were
 * byte-identical with and without it. */
static inline char *gd_test_sass(const char *nvdisasm, const char *dir, const char *name)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "'%s' -c -ndf '%s/%s.cubin' | sed -n 's@^ *\\/\\*[0-9a-f]*\\*\\/ *@@p' | "
             "sed 's@ */\\*.*@@; s@ *;.*@@'",
             nvdisasm, dir, name);
    size_t cap = 1 << 20;
    char *text = malloc(cap);
    if (!text)
        return NULL;
    if (gd_test_run(cmd, text, cap) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* Like gd_test_sass, but keeps the labels (".L_x_4:" lines), for readers that
 * follow branches (tests/sass_order.h), and starts each function's listing
 * with a line "FUNC <name>" (a cubin of many kernels: one nvdisasm run, which
 * costs most of a second however small the cubin, for all of them). */
static inline char *gd_test_sass_labels(const char *nvdisasm, const char *dir, const char *name)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "'%s' -c -ndf '%s/%s.cubin' | sed -n 's@^ *\\/\\*[0-9a-f]*\\*\\/ *@@p; "
             "s@^ *\\(\\.L_[A-Za-z0-9_]*\\):.*@\\1:@p; "
             "s@^//-* *\\.text\\.\\([A-Za-z0-9_$]*\\) .*@FUNC \\1@p' | sed 's@ */\\*.*@@; s@ *;.*@@'",
             nvdisasm, dir, name);
    size_t cap = 1 << 22;
    char *text = malloc(cap);
    if (!text)
        return NULL;
    if (gd_test_run(cmd, text, cap) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* The device the PTX checks plan for: a sim-like GPU of compute capability
 * sm/10.sm%10 (the probes read only these fields when they plan). */
static inline gd_device_info gd_test_device_info(int sm)
{
    gd_device_info info;
    memset(&info, 0, sizeof info);
    snprintf(info.backend, sizeof info.backend, "sim");
    info.cc_major = sm / 10;
    info.cc_minor = sm % 10;
    info.sm_count = 40;
    info.subpartitions_per_sm = 4;
    info.clock_mhz = 1500;
    info.shared_per_block_bytes = 48 * 1024;
    info.l2_bytes = 4u << 20;
    return info;
}

/* A SASS listing cut into lines (leading blanks dropped). */
typedef struct gd_sass {
    char *text;
    char **line;
    int n;
} gd_sass;

static inline void gd_sass_free(gd_sass *s)
{
    free(s->text);
    free(s->line);
}

/* nvdisasm's lines of dir/<name>.cubin into s; fails the test if nvdisasm does. */
static inline void gd_test_read_sass(const char *dir, const char *name, gd_sass *s)
{
    memset(s, 0, sizeof *s);
    s->text = gd_test_sass(gd_test_nvdisasm(), dir, name);
    if (!s->text)
        fail_msg("%s: nvdisasm failed", name);
    size_t cap = 1024;
    s->line = malloc(cap * sizeof *s->line);
    assert_non_null(s->line);
    for (char *save = NULL, *l = strtok_r(s->text, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        while (*l == ' ' || *l == '\t')
            l++;
        if ((size_t)s->n == cap) {
            cap *= 2;
            s->line = realloc(s->line, cap * sizeof *s->line);
            assert_non_null(s->line);
        }
        s->line[s->n++] = l;
    }
}

/* Assembles a plan for sm_<sm> as dir/<name>.cubin, checks the entry's
 * machine-code size against the plan's range (where it gives one) and reads
 * the SASS: returns 0, or -1 when nvdisasm is missing (s left empty). */
static inline int gd_test_build_plan(const gd_probe_plan *plan, const char *name, int sm,
                                     const char *dir, gd_sass *s)
{
    memset(s, 0, sizeof *s);
    size_t size;
    void *cubin = gd_test_ptxas_compile(gd_test_ptxas(), dir, name, plan->ptx, sm, &size);
    if (!cubin)
        fail_msg("%s did not assemble", name);
    uint64_t bytes;
    gd_err err;
    if (gd_cubin_text_size(cubin, size, plan->entry, &bytes, &err) != 0)
        fail_msg("%s: %s", name, err.msg);
    free(cubin);
    uint64_t insns = bytes / 16;
    if (plan->code_min_instructions &&
        (insns < plan->code_min_instructions || insns > plan->code_max_instructions))
        fail_msg("%s: %llu instructions, expected %u..%u", name, (unsigned long long)insns,
                 plan->code_min_instructions, plan->code_max_instructions);
    if (!gd_test_nvdisasm())
        return -1;
    gd_test_read_sass(dir, name, s);
    return 0;
}

/* Whether a SASS line is opcode op (a guard "@!P0 " before it allowed). */
static inline int gd_sass_is(const char *line, const char *op)
{
    size_t k = strlen(op);
    if (line[0] == '@')
        line = strchr(line, ' ') ? strchr(line, ' ') + 1 : line;
    return !strncmp(line, op, k) && (line[k] == ' ' || line[k] == '.' || line[k] == 0);
}

static inline int gd_sass_count(const gd_sass *s, const char *op)
{
    int n = 0;
    for (int i = 0; i < s->n; i++)
        n += gd_sass_is(s->line[i], op);
    return n;
}

/* A read of the clock (CS2R/S2UR/S2R of SR_CLOCKLO). */
static inline int gd_sass_is_clock(const char *line)
{
    return strstr(line, "SR_CLOCKLO") != NULL;
}

#endif
