/* sass_batch.h -- many probe kernels through ptxas and nvdisasm at once
 * (include after testing.h and ptx_toolchain.h).
 *
 * nvdisasm costs about 0.4 s however small its cubin (it takes one ELF image
 * per run) and the SASS tests read some 350 listings, so the kernels of one
 * target go into one PTX module: one ptxas run and one nvdisasm run for all of
 * them, the listing split by function.  ptxas compiles every .entry on its own
 * (no code moves between entries), and a kernel keeps its own .version: the
 * kernels are grouped by the header they came with, one module per group.  A
 * kernel whose PTX declares anything at module scope (a .const bank, a .func,
 * a second entry) is assembled alone -- two 64 KiB .const arrays do not fit
 * one bank.  Each kernel's entry is renamed "<entry>_k<index>" in the module,
 * so that two plans of the same probe can share it; the listings keep no
 * addresses and no labels (gd_test_sass's form), branch targets renumbered
 * from the function's first, so they read the same as a kernel's own cubin's.
 * tests/test_sass_batch.c holds every probe's and variant's .text bytes in a
 * batch against its own cubin's (three targets; all twelve were checked once)
 * and two listings line for line.
 *
 *   gd_sass_batch b;
 *   gd_sass_batch_init(&b, dir, "every-probe", sm);
 *   size_t k = gd_sass_batch_add(&b, "mshr-entries", plan.ptx, plan.entry);
 *   gd_sass_batch_build(&b, 1);     // fails the test (naming the kernel) on error
 *   ... b.sass[k], b.text_bytes[k] ...
 *   gd_sass_batch_free(&b);
 */
#ifndef GD_SASS_BATCH_H
#define GD_SASS_BATCH_H

#include "kernels/cubin_elf.h"

typedef struct gd_sass_batch_kernel {
    char *body;        /* the PTX after its header, entry renamed */
    char header[160];  /* .version/.target/.address_size as the kernel had them */
    char label[128];   /* the caller's name for it, for messages */
    char renamed[128];
    int alone;         /* module-scope declarations: a module of its own */
    int module;        /* which module it went into (build) */
} gd_sass_batch_kernel;

typedef struct gd_sass_batch {
    int sm;
    char dir[1024], name[96];
    gd_sass_batch_kernel *k;
    size_t n, cap;
    size_t modules;          /* ptxas runs the build made */
    /* after gd_sass_batch_build: per kernel */
    gd_sass *sass;           /* its listing (empty without nvdisasm or unless asked); its
                              * lines are the batch's (gd_sass_batch_free, not gd_sass_free) */
    uint64_t *text_bytes;    /* its .text.<entry> size in the cubin */
    int *cubin_sm;           /* the cubin's target (its ELF flags) */
} gd_sass_batch;

static inline void gd_sass_batch_init(gd_sass_batch *b, const char *dir, const char *name, int sm)
{
    memset(b, 0, sizeof *b);
    b->sm = sm;
    snprintf(b->dir, sizeof b->dir, "%s", dir);
    snprintf(b->name, sizeof b->name, "%s", name);
}

/* The end of the PTX header (just past ".address_size N\n"), or NULL. */
static inline const char *gd_sass_batch_header_end(const char *ptx)
{
    const char *a = strstr(ptx, ".address_size");
    if (!a)
        return NULL;
    const char *nl = strchr(a, '\n');
    return nl ? nl + 1 : NULL;
}

/* Whether the PTX body declares anything at module scope besides its one
 * entry: a line before the entry's that starts with a directive, a .func, or a
 * second .entry. */
static inline int gd_sass_batch_module_scope(const char *body)
{
    const char *entry = strstr(body, ".entry ");
    if (!entry || strstr(entry + 1, ".entry ") || strstr(body, ".func"))
        return 1;
    for (const char *l = body; l < entry;) {
        const char *s = l;
        while (s < entry && (*s == ' ' || *s == '\t'))
            s++;
        const char *nl = memchr(s, '\n', (size_t)(entry - s));
        if (*s == '.' && !(nl == NULL && !strncmp(s, ".visible", 8)))
            return 1;
        if (!nl)
            break;
        l = nl + 1;
    }
    return 0;
}

/* Adds a kernel (its whole PTX and entry name); returns its index. */
static inline size_t gd_sass_batch_add(gd_sass_batch *b, const char *label, const char *ptx,
                                       const char *entry)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 16;
        b->k = realloc(b->k, b->cap * sizeof *b->k);
        assert_non_null(b->k);
    }
    size_t i = b->n++;
    gd_sass_batch_kernel *k = &b->k[i];
    memset(k, 0, sizeof *k);
    snprintf(k->label, sizeof k->label, "%s", label);
    const char *end = gd_sass_batch_header_end(ptx);
    if (!end)
        fail_msg("%s: no .address_size in its PTX", label);
    /* the header from its .version on (the comments before it are dropped) */
    const char *ver = strstr(ptx, ".version");
    if (!ver || ver > end || (size_t)(end - ver) >= sizeof k->header)
        fail_msg("%s: no .version before .address_size", label);
    memcpy(k->header, ver, (size_t)(end - ver));
    k->header[end - ver] = 0;
    snprintf(k->renamed, sizeof k->renamed, "%s_k%zu", entry, i);
    /* the body with ".entry <entry>" renamed */
    char decl[160];
    snprintf(decl, sizeof decl, ".entry %s", entry);
    const char *at = strstr(end, decl);
    size_t dl = strlen(decl);
    while (at && at[dl] != '(' && at[dl] != ' ' && at[dl] != '\n' && at[dl] != '\t')
        at = strstr(at + 1, decl);
    if (!at)
        fail_msg("%s: no '.entry %s' in its PTX", label, entry);
    size_t before = (size_t)(at - end), rest = strlen(at + dl);
    k->body = malloc(before + strlen(".entry ") + strlen(k->renamed) + rest + 2);
    assert_non_null(k->body);
    sprintf(k->body, "%.*s.entry %s%s\n", (int)before, end, k->renamed, at + dl);
    k->alone = gd_sass_batch_module_scope(k->body);
    return i;
}

/* Splits one nvdisasm listing (instruction lines and "FUNC name" lines) into
 * the kernels of module m. */
static inline void gd_sass_batch_split(gd_sass_batch *b, size_t m, char *listing)
{
    size_t cur = (size_t)-1;
    for (char *save = NULL, *l = strtok_r(listing, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save)) {
        while (*l == ' ' || *l == '\t')
            l++;
        if (!strncmp(l, "FUNC ", 5)) {
            cur = (size_t)-1;
            for (size_t i = 0; i < b->n; i++)
                if (b->k[i].module == (int)m && !strcmp(b->k[i].renamed, l + 5))
                    cur = i;
            continue;
        }
        if (cur == (size_t)-1 || !*l)
            continue;
        gd_sass *s = &b->sass[cur];
        char *copy = strdup(l);
        assert_non_null(copy);
        s->line = realloc(s->line, (size_t)(s->n + 1) * sizeof *s->line);
        assert_non_null(s->line);
        s->line[s->n++] = copy;
    }
}

/* nvdisasm numbers the branch labels (".L_x_12") across the whole cubin, in
 * address order; a kernel's own cubin numbers its labels from 0.  Every label
 * is some branch's target, so a kernel's lowest number is its first label:
 * renumbered from there, its lines read as its own cubin's. */
static inline void gd_sass_batch_renumber_labels(gd_sass *s)
{
    long low = -1;
    for (int j = 0; j < s->n; j++)
        for (const char *p = strstr(s->line[j], ".L_x_"); p; p = strstr(p + 5, ".L_x_")) {
            long v = strtol(p + 5, NULL, 10);
            if (low < 0 || v < low)
                low = v;
        }
    if (low <= 0)
        return;
    for (int j = 0; j < s->n; j++) {
        if (!strstr(s->line[j], ".L_x_"))
            continue;
        char out[1024];
        size_t w = 0;
        for (const char *p = s->line[j]; *p && w + 24 < sizeof out;) {
            if (!strncmp(p, ".L_x_", 5)) {
                char *end;
                long v = strtol(p + 5, &end, 10);
                w += (size_t)snprintf(out + w, sizeof out - w, ".L_x_%ld", v - low);
                p = end;
            } else {
                out[w++] = *p++;
            }
        }
        out[w] = 0;
        free(s->line[j]);
        s->line[j] = strdup(out);
        assert_non_null(s->line[j]);
    }
}

/* Assembles the kernels (one module per header, one for each kernel that must
 * be alone), reads each entry's .text size and the cubin's target and, with
 * `disassemble` and nvdisasm present, each kernel's listing.  0, or -1 with
 * the reason in why: a module ptxas rejects is assembled kernel by kernel to
 * name the one it rejects. */
#define GD_BATCH_FAIL(...)                                                                     \
    do {                                                                                       \
        snprintf(why, cap, __VA_ARGS__);                                                       \
        return -1;                                                                             \
    } while (0)
static inline int gd_sass_batch_try(gd_sass_batch *b, int disassemble, char *why, size_t cap)
{
    const char *ptxas = gd_test_ptxas();
    assert_non_null(ptxas);
    const char *nvdisasm = disassemble ? gd_test_nvdisasm() : NULL;
    b->sass = calloc(b->n ? b->n : 1, sizeof *b->sass);
    b->text_bytes = calloc(b->n ? b->n : 1, sizeof *b->text_bytes);
    b->cubin_sm = calloc(b->n ? b->n : 1, sizeof *b->cubin_sm);
    assert_true(b->sass && b->text_bytes && b->cubin_sm);
    for (size_t i = 0; i < b->n; i++)
        b->k[i].module = -1;
    b->modules = 0;
    for (size_t first = 0; first < b->n; first++) {
        if (b->k[first].module >= 0)
            continue;
        int m = (int)b->modules++;
        size_t len = strlen(b->k[first].header) + 1;
        for (size_t i = first; i < b->n; i++)
            if (b->k[i].module < 0 && (i == first || (!b->k[first].alone && !b->k[i].alone &&
                                                      !strcmp(b->k[i].header, b->k[first].header)))) {
                b->k[i].module = m;
                len += strlen(b->k[i].body) + 1;
            }
        char *ptx = malloc(len + 1);
        assert_non_null(ptx);
        char *w = ptx + sprintf(ptx, "%s\n", b->k[first].header);
        for (size_t i = first; i < b->n; i++)
            if (b->k[i].module == m)
                w += sprintf(w, "%s", b->k[i].body);
        char name[160];
        snprintf(name, sizeof name, "%s-m%d", b->name, m);
        size_t size;
        char out[8192];
        void *cubin = gd_test_ptxas_try(ptxas, b->dir, name, ptx, b->sm, &size, out, sizeof out);
        free(ptx);
        if (!cubin) {
            /* name the kernel ptxas rejects */
            for (size_t i = first; i < b->n; i++) {
                if (b->k[i].module != m)
                    continue;
                char one[160], *solo = malloc(strlen(b->k[i].header) + strlen(b->k[i].body) + 2);
                assert_non_null(solo);
                sprintf(solo, "%s\n%s", b->k[i].header, b->k[i].body);
                snprintf(one, sizeof one, "%s-alone%zu", b->name, i);
                size_t s1;
                void *c1 = gd_test_ptxas_try(ptxas, b->dir, one, solo, b->sm, &s1, out, sizeof out);
                free(solo);
                if (!c1)
                    GD_BATCH_FAIL("%s (sm_%d) did not assemble:\n%s", b->k[i].label, b->sm, out);
                free(c1);
            }
            GD_BATCH_FAIL("module %s (sm_%d) did not assemble, though each kernel does:\n%s", name,
                          b->sm, out);
        }
        int sm;
        gd_err err;
        if (gd_cubin_sm_version(cubin, size, &sm, &err) != 0) {
            free(cubin);
            GD_BATCH_FAIL("%s: %s", name, err.msg);
        }
        for (size_t i = first; i < b->n; i++) {
            if (b->k[i].module != m)
                continue;
            if (gd_cubin_text_size(cubin, size, b->k[i].renamed, &b->text_bytes[i], &err) != 0) {
                free(cubin);
                GD_BATCH_FAIL("%s: %s", b->k[i].label, err.msg);
            }
            b->cubin_sm[i] = sm;
        }
        free(cubin);
        if (!nvdisasm)
            continue;
        /* instruction lines and "FUNC <name>" before each function's */
        char cmd[4096], sass_path[1400];
        snprintf(sass_path, sizeof sass_path, "%s/%s.sass", b->dir, name);
        snprintf(cmd, sizeof cmd,
                 "'%s' -c -ndf '%s/%s.cubin' | sed -n 's@^ *\\/\\*[0-9a-f]*\\*\\/ *@@p; "
                 "s@^//-* *\\.text\\.\\([A-Za-z0-9_$]*\\) .*@FUNC \\1@p' | "
                 "sed 's@ */\\*.*@@; s@ *;.*@@' > '%s'",
                 nvdisasm, b->dir, name, sass_path);
        if (gd_test_run(cmd, out, sizeof out) != 0)
            GD_BATCH_FAIL("nvdisasm failed on %s (sm_%d):\n%s", name, b->sm, out);
        char *listing = gd_read_file(sass_path, &size, &err);
        if (!listing)
            GD_BATCH_FAIL("%s", err.msg);
        gd_sass_batch_split(b, (size_t)m, listing);
        free(listing);
        for (size_t i = first; i < b->n; i++)
            if (b->k[i].module == m)
                gd_sass_batch_renumber_labels(&b->sass[i]);
        for (size_t i = first; i < b->n; i++)
            if (b->k[i].module == m && b->sass[i].n == 0)
                GD_BATCH_FAIL("%s: no listing for %s in %s", b->k[i].label, b->k[i].renamed, name);
    }
    return 0;
}
#undef GD_BATCH_FAIL

/* gd_sass_batch_try, failing the test on error. */
static inline void gd_sass_batch_build(gd_sass_batch *b, int disassemble)
{
    char why[8400];
    if (gd_sass_batch_try(b, disassemble, why, sizeof why) != 0)
        fail_msg("%s", why);
}

/* Kernel i's listing as one text, a line each (caller frees): gd_test_sass's form. */
static inline char *gd_sass_batch_text(const gd_sass_batch *b, size_t i)
{
    size_t len = 1;
    for (int j = 0; j < b->sass[i].n; j++)
        len += strlen(b->sass[i].line[j]) + 1;
    char *text = malloc(len), *w = text;
    assert_non_null(text);
    *w = 0;
    for (int j = 0; j < b->sass[i].n; j++)
        w += sprintf(w, "%s\n", b->sass[i].line[j]);
    return text;
}

/* Where kernel i's module cubin is (after a build). */
static inline void gd_sass_batch_cubin_path(const gd_sass_batch *b, size_t i, char *path,
                                            size_t cap)
{
    snprintf(path, cap, "%s/%s-m%d.cubin", b->dir, b->name, b->k[i].module);
}

static inline void gd_sass_batch_free(gd_sass_batch *b)
{
    for (size_t i = 0; i < b->n; i++) {
        free(b->k[i].body);
        if (b->sass) {
            for (int j = 0; j < b->sass[i].n; j++)
                free(b->sass[i].line[j]);
            free(b->sass[i].line);
        }
    }
    free(b->k);
    free(b->sass);
    free(b->text_bytes);
    free(b->cubin_sm);
    memset(b, 0, sizeof *b);
}

#endif
