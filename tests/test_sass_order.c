/* test_sass_order.c -- what runs on the card is what the probe means: the
 * machine code of every timed region issues its loads, clock reads and
 * consuming stores in the order of the PTX the simulator executes.
 *
 * The simulator runs PTX in program order, so on its own it cannot see ptxas
 * reorder two independent loads (it did: mshr's follower and resv_stall's B
 * came out ahead of the loads they are meant to queue behind, on every
 * target).  This test gives it that sight: every probe and variant is planned
 * at representative points for every target ptxas knows
 * (gd_test_all_targets), assembled, disassembled with nvdisasm, and held
 * against its PTX by tests/sass_order.h (events paired by the dataflow roots
 * of their addresses).  A target whose assembly fails only because the PTX
 * .version is older than the target (kernels/ptx_emit.c's table) is skipped
 * and said so; any other ptxas failure fails.  The group setup plans every
 * case for every target and assembles all of a target's kernels as one module
 * (entries renamed gd_o<case>_<entry>, with a kernel that measures the
 * target's parameter base): nvdisasm costs most of a second per run however
 * small the cubin, so one run per target keeps the test near 20 s.
 *
 * Two targeted checks say it in the probes' own words: in mshr's first timed
 * region the LDG whose address is built from gd_mshr_rounds (the follower) is
 * issued after every other LDG (the lines); in resv_stall's, the LDG whose
 * address reads neither %tid nor gd_rs_k (B) after every LDG that does (A);
 * in resv_stall hol's, the LDG built from gd_rs_last (A's last instruction:
 * the refused line and its followers) after every reserver; in dram_row
 * idle's, the LDG whose address is built from a clock (B) after the wait's
 * loop -- after its last clock read, with the one that starts B's timing
 * between -- and A's before it.
 * And the reader itself is tested on written listings, which needs no ptxas:
 * a matching order passes, a follower that overtakes a line fails and is
 * named.
 */
#include "tests/testing.h"
#include "tests/ptx_toolchain.h"
#include "host/sass_order.h"

#include "kernels/probe.h"

/* The points each probe is checked at, besides its example_point: where the
 * count of load instructions or the predication changes shape. */
typedef struct order_points {
    const char *probe, *variant;
    uint64_t points[6];
} order_points;

static const order_points extra_points[] = {
    {"mshr", "entries", {1, 32, 33, 200, 1024}},
    {"mshr", "merge", {1, 2, 33, 128}},
    {"resv_stall", "ca", {1, 31, 40, 300}},
    {"resv_stall", "hol", {1, 4, 32, 33, 128, 256}},
    /* the DRAM pairs: a distance past a row, a long wait (and, with the
     * example point, the batch kernel of each variant) */
    {"dram_row", "cg", {16384}},
    {"dram_row", "idle", {16384}},
    /* the store path: every case in one kernel, at the most samples too */
    {"store_path", "store", {64}},
};

#define ORDER_MAX_CASES 128
#define ORDER_MAX_BATCH 4
#define ORDER_T GD_TEST_ALL_TARGET_COUNT

/* One plan, and per target its PTX and the listing of its function. */
typedef struct order_case {
    const gd_probe *probe;
    const char *variant;
    uint64_t point;
    /* a launch of several points (kernels/probe.h plan_batch): nbatch >= 2
     * of them, point the first */
    uint64_t batch[ORDER_MAX_BATCH];
    size_t nbatch;
    char *ptx[ORDER_T];
    char *sass[ORDER_T];  /* NULL: the target was skipped */
} order_case;

static order_case cases[ORDER_MAX_CASES];
static int ncases;
static unsigned param_base[ORDER_T];
static char skipped[ORDER_T][256];
static char *listing[ORDER_T];

static void add_case(const gd_probe *probe, const char *variant, uint64_t point)
{
    assert_true(ncases < ORDER_MAX_CASES);
    cases[ncases++] = (order_case){.probe = probe, .variant = variant, .point = point};
}

/* Where a probe's points share a launch: its example point and extra points
 * (up to ORDER_MAX_BATCH) as one batch kernel, whose every point's timed
 * regions the checks read. */
static void add_batch_case(const gd_probe *probe, const char *variant)
{
    gd_probe_opts opts = {0};
    snprintf(opts.variant, sizeof opts.variant, "%s", variant);
    if (gd_probe_batch_max(probe, &opts) < 2)
        return;
    assert_true(ncases < ORDER_MAX_CASES);
    order_case *c = &cases[ncases++];
    *c = (order_case){.probe = probe, .variant = variant, .point = probe->example_point};
    c->batch[c->nbatch++] = probe->example_point;
    for (size_t e = 0; e < sizeof extra_points / sizeof extra_points[0]; e++)
        if (!strcmp(extra_points[e].probe, probe->name) && !strcmp(extra_points[e].variant, variant))
            for (int k = 0; k < 6 && extra_points[e].points[k] && c->nbatch < ORDER_MAX_BATCH; k++)
                if (extra_points[e].points[k] != probe->example_point)
                    c->batch[c->nbatch++] = extra_points[e].points[k];
    assert_true(c->nbatch >= 2);
}

/* Appends text to a growing buffer. */
static void append(char **buf, size_t *len, size_t *cap, const char *text, size_t n)
{
    if (*len + n + 1 > *cap) {
        *cap = (*len + n + 1) * 2;
        *buf = realloc(*buf, *cap);
        assert_non_null(*buf);
    }
    memcpy(*buf + *len, text, n);
    *len += n;
    (*buf)[*len] = 0;
}

/* One PTX module holding every case's kernel for target t, each entry renamed
 * gd_o<case>_<entry>, plus the parameter-base kernel: one ptxas and one
 * nvdisasm run per target.  Module-scope declarations (the constant array)
 * are kept once; the .version is the newest any plan asks for. */
static char *combined_ptx(size_t t)
{
    int sm = gd_test_all_targets[t];
    char *out = NULL, *decls = NULL, *bodies = NULL;
    size_t len = 0, cap = 0, dlen = 0, dcap = 0, blen = 0, bcap = 0;
    int version = 0;
    char *base_ptx = gd_sass_param_base_ptx(sm);
    assert_non_null(base_ptx);
    for (int c = -1; c < ncases; c++) {
        const char *ptx = c < 0 ? base_ptx : cases[c].ptx[t];
        const char *v = strstr(ptx, ".version ");
        assert_non_null(v);
        int major = 0, minor = 0;
        assert_int_equal(sscanf(v, ".version %d.%d", &major, &minor), 2);
        if (major * 10 + minor > version)
            version = major * 10 + minor;
        const char *entry = strstr(ptx, ".entry ");
        assert_non_null(entry);
        const char *line = entry;
        while (line > ptx && line[-1] != '\n')
            line--;
        /* module scope: what lies between .address_size and the entry */
        const char *scope = strstr(ptx, ".address_size");
        scope = scope ? strchr(scope, '\n') : ptx;
        for (const char *l = scope; l && l < line;) {
            const char *e = strchr(l, '\n');
            size_t n = e ? (size_t)(e - l + 1) : strlen(l);
            if (n > 1 && (!decls || !memmem(decls, dlen, l, n)))
                append(&decls, &dlen, &dcap, l, n);
            l = e ? e + 1 : NULL;
        }
        append(&bodies, &blen, &bcap, line, (size_t)(entry + 7 - line));
        char name[64];
        if (c >= 0) {
            snprintf(name, sizeof name, "gd_o%d_", c);
            append(&bodies, &blen, &bcap, name, strlen(name));
        }
        append(&bodies, &blen, &bcap, entry + 7, strlen(entry + 7));
        append(&bodies, &blen, &bcap, "\n", 1);
    }
    char head[128];
    snprintf(head, sizeof head, ".version %d.%d\n.target sm_%d\n.address_size 64\n\n",
             version / 10, version % 10, sm);
    append(&out, &len, &cap, head, strlen(head));
    if (decls)
        append(&out, &len, &cap, decls, dlen);
    append(&out, &len, &cap, bodies, blen);
    free(decls);
    free(bodies);
    free(base_ptx);
    return out;
}

/* The listing of function `name` in a gd_test_sass_labels text (caller frees). */
static char *function_listing(const char *all, const char *name)
{
    char marker[128];
    snprintf(marker, sizeof marker, "FUNC %s\n", name);
    const char *s = strstr(all, marker);
    if (!s)
        return NULL;
    s += strlen(marker);
    const char *e = strstr(s, "FUNC ");
    return strndup(s, e ? (size_t)(e - s) : strlen(s));
}

static int group_setup(void **state)
{
    (void)state;
    if (!gd_test_ptxas() || !gd_test_nvdisasm())
        return 0;
    size_t count;
    const gd_probe *const *probes = gd_probe_list(&count);
    for (size_t p = 0; p < count; p++)
        for (const char *const *v = probes[p]->variants; v && *v; v++) {
            add_case(probes[p], *v, probes[p]->example_point);
            for (size_t e = 0; e < sizeof extra_points / sizeof extra_points[0]; e++)
                if (!strcmp(extra_points[e].probe, probes[p]->name) &&
                    !strcmp(extra_points[e].variant, *v))
                    for (int k = 0; k < 6 && extra_points[e].points[k]; k++)
                        if (extra_points[e].points[k] != probes[p]->example_point)
                            add_case(probes[p], *v, extra_points[e].points[k]);
            add_batch_case(probes[p], *v);
        }
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    char *nvdisasm = strdup(gd_test_nvdisasm());
    assert_non_null(nvdisasm);
    for (size_t t = 0; t < ORDER_T; t++) {
        int sm = gd_test_all_targets[t];
        gd_device_info info = gd_test_device_info(sm);
        for (int c = 0; c < ncases; c++) {
            gd_probe_opts opts = {0};
            snprintf(opts.variant, sizeof opts.variant, "%s", cases[c].variant);
            gd_probe_plan plan;
            gd_err err;
            if ((cases[c].nbatch ? cases[c].probe->plan_batch(&opts, &info, cases[c].batch,
                                                              cases[c].nbatch, &plan, &err)
                                 : cases[c].probe->plan(&opts, &info, cases[c].point, &plan,
                                                        &err)) != 0)
                fail_msg("%s/%s at %llu for sm_%d: %s", cases[c].probe->name, cases[c].variant,
                         (unsigned long long)cases[c].point, sm, err.msg);
            cases[c].ptx[t] = strdup(plan.ptx);
            assert_non_null(cases[c].ptx[t]);
            char *entry = strstr(cases[c].ptx[t], ".entry ");
            assert_non_null(entry);
            gd_probe_plan_free(cases[c].probe, &plan);
        }
        char *ptx = combined_ptx(t);
        char name[32], out[8192];
        snprintf(name, sizeof name, "order-sm%d", sm);
        size_t size;
        void *cubin = gd_test_ptxas_try(gd_test_ptxas(), dir, name, ptx, sm, &size, out, sizeof out);
        free(ptx);
        if (!cubin) {
            if (!gd_test_ptxas_version_gap(out))
                fail_msg("the probes for sm_%d did not assemble:\n%.2000s", sm, out);
            char *nl = strchr(out, '\n');
            if (nl)
                *nl = 0;
            snprintf(skipped[t], sizeof skipped[t], "%.200s", out);
            continue;
        }
        free(cubin);
        listing[t] = gd_test_sass_labels(nvdisasm, dir, name);
        if (!listing[t])
            fail_msg("nvdisasm failed on the probes for sm_%d", sm);
        char *base = function_listing(listing[t], "gd_param_base");
        assert_non_null(base);
        param_base[t] = gd_sass_param_base(base);
        free(base);
        assert_true(param_base[t] > 0);
        for (int c = 0; c < ncases; c++) {
            const char *e = strstr(cases[c].ptx[t], ".entry ") + 7;
            char fn[128];
            snprintf(fn, sizeof fn, "gd_o%d_%.*s", c, (int)strcspn(e, "( \n"), e);
            cases[c].sass[t] = function_listing(listing[t], fn);
            if (!cases[c].sass[t])
                fail_msg("no listing of %s for sm_%d", fn, sm);
        }
    }
    gd_test_rmrf(dir);
    free(dir);
    free(nvdisasm);
    return 0;
}

static int group_teardown(void **state)
{
    (void)state;
    for (int c = 0; c < ncases; c++)
        for (size_t t = 0; t < ORDER_T; t++) {
            free(cases[c].ptx[t]);
            free(cases[c].sass[t]);
        }
    for (size_t t = 0; t < ORDER_T; t++)
        free(listing[t]);
    return 0;
}

/* Skips without the tools; says which targets were skipped and why; returns
 * how many were not. */
static int targets_or_skip(void)
{
    if (!gd_test_ptxas())
        GD_SKIP("ptxas not found");
    if (!gd_test_nvdisasm())
        GD_SKIP("nvdisasm not found");
    int n = 0;
    for (size_t t = 0; t < ORDER_T; t++) {
        if (skipped[t][0])
            printf("note: sm_%d skipped: its PTX .version is too old for it (%s)\n",
                   gd_test_all_targets[t], skipped[t]);
        else
            n++;
    }
    assert_true(n >= 5);
    return n;
}

static void test_every_timed_region_keeps_ptx_order(void **state)
{
    (void)state;
    int targets = targets_or_skip();
    int failed = 0, checked = 0, regions = 0;
    for (int c = 0; c < ncases; c++)
        for (size_t t = 0; t < ORDER_T; t++) {
            if (!cases[c].sass[t])
                continue;
            gd_order_prog ptx, sass;
            if (gd_order_parse_pair(&ptx, &sass, cases[c].ptx[t], cases[c].sass[t],
                                    param_base[t]) != 0)
                fail_msg("%s/%s, sm_%d: reading the listings: %s%s", cases[c].probe->name,
                         cases[c].variant, gd_test_all_targets[t], ptx.limit, sass.limit);
            char msg[12000];
            int timed = 0;
            if (gd_order_check(&ptx, &sass, &timed, msg, sizeof msg) != 0) {
                printf("FAIL %s/%s at %llu, sm_%d: %s\n", cases[c].probe->name, cases[c].variant,
                       (unsigned long long)cases[c].point, gd_test_all_targets[t], msg);
                failed++;
            } else if (gd_order_events(&ptx, GD_OE_CLOCK, NULL, 0) >= 2 && timed == 0) {
                /* every probe that reads the clock twice times something */
                printf("FAIL %s/%s at %llu, sm_%d: clock reads but no timed region found\n",
                       cases[c].probe->name, cases[c].variant, (unsigned long long)cases[c].point,
                       gd_test_all_targets[t]);
                failed++;
            }
            regions += timed;
            checked++;
            gd_order_free(&ptx);
            gd_order_free(&sass);
        }
    printf("note: %d plans (%d probe/variant/points) on %d targets, %d timed regions compared\n",
           checked, ncases, targets, regions);
    if (failed)
        fail_msg("%d plans issue their timed events out of PTX order (listed above)", failed);
    assert_true(regions > checked);
}

static int param_index(const gd_order_prog *p, const char *name)
{
    for (int i = 0; i < p->nparams; i++)
        if (!strcmp(p->param_name[i], name))
            return i;
    fail_msg("no kernel parameter %s", name);
    return -1;
}

/* In the first timed region (from the first clock read through the run of
 * timed segments after it: a clock read that only orders the loads, as in
 * mshr and resv_stall, splits it) the LDG whose address roots hold all of
 * `must` and none of `must_not` must come after every other LDG, and there
 * must be one of it and some others.  Returns 0 or -1 with msg. */
static int late_loads_in(const gd_order_prog *p, const gd_order_segments *g, int start, int end,
                         uint32_t must, uint32_t must_not, const char *what, char *msg,
                         size_t cap);

static int late_loads_last(const gd_order_prog *p, uint32_t must, uint32_t must_not,
                           const char *what, char *msg, size_t cap)
{
    static gd_order_segments g;
    if (gd_order_find_segments(p, &g) != 0 || g.nclocks < 2 || !g.timed[0]) {
        snprintf(msg, cap, "no timed region");
        return -1;
    }
    int end = 1;
    while (end + 1 < g.nclocks && g.timed[end])
        end++;
    return late_loads_in(p, &g, 0, end, must, must_not, what, msg, cap);
}

/* A batch kernel: the same in every timed region (every run of timed
 * segments) holding two global loads or more -- each point's, each pass's;
 * *runs counts them. */
static int late_loads_last_everywhere(const gd_order_prog *p, uint32_t must, uint32_t must_not,
                                      const char *what, int *runs, char *msg, size_t cap)
{
    static gd_order_segments g;
    *runs = 0;
    if (gd_order_find_segments(p, &g) != 0 || g.nclocks < 2) {
        snprintf(msg, cap, "no timed region");
        return -1;
    }
    for (int start = 0; start + 1 < g.nclocks;) {
        if (!g.timed[start]) {
            start++;
            continue;
        }
        int end = start + 1;
        while (end + 1 < g.nclocks && g.timed[end])
            end++;
        int loads = 0;
        for (int k = g.clock[start] + 1; k < g.clock[end]; k++)
            loads += p->insn[k].event == GD_OE_LOAD && p->insn[k].space == 'g';
        if (loads >= 2) {
            if (late_loads_in(p, &g, start, end, must, must_not, what, msg, cap) != 0) {
                char where[64];
                snprintf(where, sizeof where, " (timed region %d)", *runs);
                size_t l = strlen(msg);
                snprintf(msg + l, cap - l, "%s", where);
                return -1;
            }
            ++*runs;
        }
        start = end;
    }
    return 0;
}

static int late_loads_in(const gd_order_prog *p, const gd_order_segments *gs, int start, int end,
                         uint32_t must, uint32_t must_not, const char *what, char *msg,
                         size_t cap)
{
    const gd_order_segments g = *gs;
    int late = 0, early = 0, first_late = -1;
    for (int k = g.clock[start] + 1; k < g.clock[end]; k++) {
        const gd_oi *i = &p->insn[k];
        if (i->event != GD_OE_LOAD || i->space != 'g')
            continue;
        int is_late = (i->addr_sig & must) == must && !(i->addr_sig & must_not);
        if (is_late) {
            late++;
            if (first_late < 0)
                first_late = k;
        } else {
            early++;
            if (first_late >= 0) {
                char a[400], b[400];
                gd_order_event_str(p, &p->insn[first_late], a, sizeof a);
                gd_order_event_str(p, i, b, sizeof b);
                snprintf(msg, cap, "%s issued before a line load:\n    %s\n  then %s", what, a,
                         b);
                return -1;
            }
        }
    }
    if (late != 1 || early < 1) {
        snprintf(msg, cap, "%d %s loads and %d line loads in the first timed region", late, what,
                 early);
        return -1;
    }
    return 0;
}

/* For every case of probe/variant: in the first timed region of its SASS the
 * LDG whose address is built from must_param and reads none of must_not comes
 * after every other LDG.  Returns the failures (printed). */
static int check_late(const char *probe_name, const char *variant, const char *must_param,
                      const char *not_param, uint32_t not_roots, const char *what, int *checked)
{
    int failed = 0;
    for (int c = 0; c < ncases; c++) {
        if (strcmp(cases[c].probe->name, probe_name) || strcmp(cases[c].variant, variant))
            continue;
        for (size_t t = 0; t < ORDER_T; t++) {
            if (!cases[c].sass[t])
                continue;
            gd_order_prog ptx, sass;
            if (gd_order_parse_pair(&ptx, &sass, cases[c].ptx[t], cases[c].sass[t],
                                    param_base[t]) != 0)
                fail_msg("%s/%s, sm_%d: reading the listings: %s%s", cases[c].probe->name,
                         cases[c].variant, gd_test_all_targets[t], ptx.limit, sass.limit);
            uint32_t must = GD_ROOT_PARAM(param_index(&sass, must_param));
            uint32_t must_not =
                not_roots | (not_param ? GD_ROOT_PARAM(param_index(&sass, not_param)) : 0);
            char msg[1024] = "";
            if (cases[c].nbatch) {
                /* a batch: every point's regions, in the PTX and the SASS */
                int runs = 0, sass_runs = 0;
                if (late_loads_last_everywhere(&ptx, must, must_not, what, &runs, msg,
                                               sizeof msg) != 0)
                    fail_msg("%s/%s batch PTX: %s", probe_name, variant, msg);
                if (runs < (int)cases[c].nbatch)
                    fail_msg("%s/%s batch PTX: %d timed regions for %zu points", probe_name,
                             variant, runs, cases[c].nbatch);
                if (late_loads_last_everywhere(&sass, must, must_not, what, &sass_runs, msg,
                                               sizeof msg) != 0 ||
                    sass_runs != runs) {
                    printf("FAIL %s/%s batch of %zu, sm_%d: %s (%d of %d regions)\n", probe_name,
                           variant, cases[c].nbatch, gd_test_all_targets[t], msg, sass_runs,
                           runs);
                    failed++;
                }
                ++*checked;
                gd_order_free(&ptx);
                gd_order_free(&sass);
                continue;
            }
            /* the PTX says it (the reader reads both the same way) ... */
            if (late_loads_last(&ptx, must, must_not, what, msg, sizeof msg) != 0)
                fail_msg("%s/%s PTX: %s", probe_name, variant, msg);
            /* ... and so must the machine code */
            if (late_loads_last(&sass, must, must_not, what, msg, sizeof msg) != 0) {
                printf("FAIL %s/%s at %llu, sm_%d: %s\n", probe_name, variant,
                       (unsigned long long)cases[c].point, gd_test_all_targets[t], msg);
                failed++;
            }
            ++*checked;
            gd_order_free(&ptx);
            gd_order_free(&sass);
        }
    }
    return failed;
}

static void test_mshr_follower_issues_after_the_lines(void **state)
{
    (void)state;
    targets_or_skip();
    int checked = 0;
    int failed = check_late("mshr", "entries", "gd_mshr_rounds", NULL, 0, "the follower", &checked);
    failed += check_late("mshr", "merge", "gd_mshr_rounds", NULL, 0, "the follower", &checked);
    printf("note: %d mshr plans checked\n", checked);
    if (failed)
        fail_msg("mshr: the follower overtakes the lines in %d plans (listed above)", failed);
    assert_true(checked >= 5 * 10);
}

/* resv_stall --variant hol: the last instruction of A (the refused line and
 * the requests behind it; its address is the only one built from gd_rs_last)
 * issues after every reserver, or nothing is refused before it. */
static void test_resv_stall_hol_last_issues_after_the_reservers(void **state)
{
    (void)state;
    targets_or_skip();
    int checked = 0;
    int failed = check_late("resv_stall", "hol", "gd_rs_last", NULL, 0, "the last instruction",
                            &checked);
    printf("note: %d resv_stall hol plans checked\n", checked);
    if (failed)
        fail_msg("resv_stall hol: the last instruction overtakes a reserver in %d plans (listed "
                 "above)",
                 failed);
    assert_true(checked >= 5 * 5);
}

static void test_resv_stall_b_issues_after_a(void **state)
{
    (void)state;
    targets_or_skip();
    int checked = 0;
    int failed = check_late("resv_stall", "ca", "gd_rs_buf", "gd_rs_k", GD_ROOT_TID, "B", &checked);
    printf("note: %d resv_stall plans checked\n", checked);
    if (failed)
        fail_msg("resv_stall: B overtakes A in %d plans (listed above)", failed);
    assert_true(checked >= 5 * 5);
}

/* dram_row --variant idle: in program `p` (PTX or SASS), the wait -- a loop
 * (a backward branch and its target) that reads the clock and makes no
 * memory access -- and the one global load whose address is built from a
 * clock (B: A's value + (elapsed >> 31) x 64) must come in this order: A's
 * load (a global load whose address was loaded: the chain) before the
 * wait's first instruction, B after its branch -- so B issues after the
 * wait's last clock read -- with one clock read between them (B's timing
 * starts).  Returns 0 or -1 with msg. */
static int idle_b_after_the_wait(const gd_order_prog *p, int points, char *msg, size_t cap)
{
    /* the waits: backward branches whose loop reads a clock and accesses no
     * memory, in program order (a batch kernel has one a point) */
    enum { MAX_WAITS = ORDER_MAX_BATCH };
    int loop_start[MAX_WAITS], loop_end[MAX_WAITS], loops = 0;
    for (int k = 0; k < p->n; k++) {
        const gd_oi *br = &p->insn[k];
        if (br->target < 0)
            continue;
        int j = -1;
        for (int x = 0; x < k; x++)
            if (p->insn[x].is_label && p->insn[x].label == br->target)
                j = x;
        if (j < 0)
            continue; /* a forward branch */
        int clocks = 0, accesses = 0;
        for (int x = j; x <= k; x++) {
            clocks += p->insn[x].event == GD_OE_CLOCK;
            accesses += p->insn[x].event == GD_OE_LOAD || p->insn[x].event == GD_OE_STORE;
        }
        if (clocks && !accesses) {
            if (loops < MAX_WAITS) {
                loop_start[loops] = j;
                loop_end[loops] = k;
            }
            loops++;
        }
    }
    int b[MAX_WAITS], bs = 0, as = 0;
    for (int k = 0; k < p->n; k++) {
        const gd_oi *i = &p->insn[k];
        if (i->event != GD_OE_LOAD || i->space != 'g')
            continue;
        if (i->addr_sig & GD_ROOT_CLOCK) {
            if (bs < MAX_WAITS)
                b[bs] = k;
            bs++;
        } else if ((i->addr_sig & GD_ROOT_LOAD) && loops && loops <= MAX_WAITS &&
                   k < loop_start[loops - 1]) {
            as++;
        }
    }
    if (loops != points || bs != points || as < points) {
        snprintf(msg, cap, "%d clock-only loops (the wait), %d loads from a clock (B), %d chain "
                 "loads before a wait (A), for %d points",
                 loops, bs, as, points);
        return -1;
    }
    for (int w = 0; w < loops; w++) {
        /* point w's A: a chain load after the last point's B, before its wait */
        int a = -1;
        for (int k = w ? b[w - 1] + 1 : 0; k < loop_start[w]; k++)
            if (p->insn[k].event == GD_OE_LOAD && p->insn[k].space == 'g' &&
                (p->insn[k].addr_sig & GD_ROOT_LOAD) && !(p->insn[k].addr_sig & GD_ROOT_CLOCK))
                a = k;
        int between = 0;
        for (int k = loop_end[w] + 1; k < b[w]; k++)
            between += p->insn[k].event == GD_OE_CLOCK;
        if (a < 0 || b[w] < loop_end[w] || between != 1 ||
            (w + 1 < loops && b[w] > loop_start[w + 1])) {
            char ev[400];
            gd_order_event_str(p, &p->insn[b[w]], ev, sizeof ev);
            snprintf(msg, cap, "point %d: B (%s) at %d, the wait at %d..%d, %d clock reads "
                     "between%s", w, ev, b[w], loop_start[w], loop_end[w], between,
                     a < 0 ? ", no A before the wait" : "");
            return -1;
        }
    }
    return 0;
}

static void test_dram_idle_b_issues_after_the_wait(void **state)
{
    (void)state;
    targets_or_skip();
    int checked = 0, failed = 0;
    for (int c = 0; c < ncases; c++) {
        if (strcmp(cases[c].probe->name, "dram_row") || strcmp(cases[c].variant, "idle"))
            continue;
        for (size_t t = 0; t < ORDER_T; t++) {
            if (!cases[c].sass[t])
                continue;
            gd_order_prog ptx, sass;
            if (gd_order_parse_pair(&ptx, &sass, cases[c].ptx[t], cases[c].sass[t],
                                    param_base[t]) != 0)
                fail_msg("dram_row/idle, sm_%d: reading the listings: %s%s",
                         gd_test_all_targets[t], ptx.limit, sass.limit);
            char msg[1024] = "";
            int points = cases[c].nbatch ? (int)cases[c].nbatch : 1;
            if (idle_b_after_the_wait(&ptx, points, msg, sizeof msg) != 0)
                fail_msg("dram_row/idle PTX: %s", msg);
            if (idle_b_after_the_wait(&sass, points, msg, sizeof msg) != 0) {
                printf("FAIL dram_row/idle at %llu, sm_%d: %s\n",
                       (unsigned long long)cases[c].point, gd_test_all_targets[t], msg);
                failed++;
            }
            checked++;
            gd_order_free(&ptx);
            gd_order_free(&sass);
        }
    }
    printf("note: %d dram_row idle plans checked\n", checked);
    if (failed)
        fail_msg("dram_row idle: B is not issued after the wait in %d plans (listed above)",
                 failed);
    assert_true(checked >= 5);
    /* and the check can fail: the same listing with B's LDG (the last 64-bit
     * one; A's is the first) moved up to right after A's */
    for (int c = 0; c < ncases; c++) {
        if (strcmp(cases[c].probe->name, "dram_row") || strcmp(cases[c].variant, "idle") ||
            cases[c].nbatch)
            continue;
        size_t t = 0;
        while (t < ORDER_T && !cases[c].sass[t])
            t++;
        assert_true(t < ORDER_T);
        const char *text = cases[c].sass[t];
        const char *a = strstr(text, "LDG.E.64"), *b = a;
        for (const char *n = a; n; n = strstr(n + 1, "LDG.E.64"))
            b = n;
        assert_true(a && b > a);
        while (a[-1] != '\n')
            a--;
        while (b[-1] != '\n')
            b--;
        const char *a_end = strchr(a, '\n') + 1, *b_end = strchr(b, '\n') + 1;
        size_t len = strlen(text);
        char *moved = malloc(len + 1);
        assert_non_null(moved);
        size_t n = 0;
        memcpy(moved + n, text, (size_t)(a_end - text));
        n += (size_t)(a_end - text);
        memcpy(moved + n, b, (size_t)(b_end - b));
        n += (size_t)(b_end - b);
        memcpy(moved + n, a_end, (size_t)(b - a_end));
        n += (size_t)(b - a_end);
        memcpy(moved + n, b_end, len - (size_t)(b_end - text) + 1);
        gd_order_prog ptx, sass;
        assert_int_equal(gd_order_parse_pair(&ptx, &sass, cases[c].ptx[t], moved, param_base[t]),
                         0);
        char msg[1024];
        assert_int_equal(idle_b_after_the_wait(&ptx, 1, msg, sizeof msg), 0);
        assert_int_equal(idle_b_after_the_wait(&sass, 1, msg, sizeof msg), -1);
        printf("note: B moved ahead of the wait (sm_%d): %s\n", gd_test_all_targets[t], msg);
        gd_order_free(&ptx);
        gd_order_free(&sass);
        free(moved);
        break;
    }
}

/* The reader and the check on written listings (no ptxas needed): an order
 * that matches passes, lines that trade places pass, a follower that
 * overtakes a line fails and is named, a clock read nothing uses is no event,
 * and a root carried around a loop by a predicated BRA.U is seen. */
static const char written_ptx[] =
    ".visible .entry k(\n    .param .u64 buf,\n    .param .u32 n\n)\n{\n"
    "    ld.param.u64 %rd1, [buf];\n    ld.param.u32 %r1, [n];\n"
    "    mov.u32 %r2, %tid.x;\n    mul.wide.u32 %rd2, %r2, 4;\n    add.s64 %rd3, %rd1, %rd2;\n"
    "    mul.wide.u32 %rd4, %r1, 4;\n    add.s64 %rd5, %rd1, %rd4;\n"
    "    mov.u64 %rd10, %clock64;\n"
    "    ld.global.u32 %r3, [%rd3];\n    ld.global.u32 %r4, [%rd3+128];\n"
    "    ld.global.u32 %r5, [%rd5];\n    st.shared.u32 [gd_sink], %r5;\n"
    "    mov.u64 %rd11, %clock64;\n    mov.u64 %rd12, %clock64;   // nothing reads it\n"
    "    sub.s64 %rd13, %rd11, %rd10;\n    st.global.u64 [%rd1], %rd13;\n    ret;\n}\n";

static const char *written_sass(const char *first, const char *second, const char *third)
{
    static char text[2048];
    snprintf(text, sizeof text,
             "LDC R1, c[0x0][0x28]\nS2R R0, SR_TID.X\nLDC.64 R2, c[0x0][0x210]\n"
             "LDC R6, c[0x0][0x218]\nIMAD.WIDE.U32 R4, R0, 0x4, R2\n"
             "IMAD.WIDE.U32 R6, R6, 0x4, R2\nS2UR UR4, SR_CLOCKLO\n%s\n%s\n%s\n"
             "STS [UR5], R13\nCS2R.32 R12, SR_CLOCKLO\nIADD3 R12, R12, -UR4, RZ\n"
             "STG.E desc[UR6][R2.64], R12\nEXIT\n",
             first, second, third);
    return text;
}

static void test_reader_on_written_listings(void **state)
{
    (void)state;
    const char *line0 = "LDG.E R8, desc[UR6][R4.64]", *line1 = "LDG.E R9, desc[UR6][R4.64+0x80]",
               *follower = "LDG.E R13, desc[UR6][R6.64]";
    struct {
        const char *a, *b, *c;
        int ok;
    } orders[] = {{line0, line1, follower, 1}, {line1, line0, follower, 1},
                  {follower, line0, line1, 0}, {line0, follower, line1, 0}};
    for (size_t k = 0; k < sizeof orders / sizeof orders[0]; k++) {
        gd_order_prog ptx, sass;
        assert_int_equal(gd_order_parse_pair(&ptx, &sass, written_ptx,
                                             written_sass(orders[k].a, orders[k].b, orders[k].c),
                                             0x210),
                         0);
        char msg[4096];
        int timed = 0;
        int rc = gd_order_check(&ptx, &sass, &timed, msg, sizeof msg);
        assert_int_equal(timed, 1);
        if (orders[k].ok) {
            if (rc != 0)
                fail_msg("order %zu: %s", k, msg);
        } else {
            assert_int_equal(rc, -1);
            assert_non_null(strstr(msg, "LDG.E R13, desc[UR6][R6.64]   {address from: buf,n}"));
            assert_non_null(strstr(msg, "{address from: buf,tid}"));
        }
        gd_order_free(&ptx);
        gd_order_free(&sass);
    }
    /* a load whose address comes around a loop (BRA.U with a predicate operand) */
    gd_order_prog loop;
    memset(&loop, 0, sizeof loop);
    assert_int_equal(gd_order_parse(&loop,
                                    "MOV R6, RZ\n.L_x_0:\nLDC R6, c[0x3][R6]\nBRA.U !UP1, "
                                    "`(.L_x_0)\nEXIT\n",
                                    1),
                     0);
    int loads[2];
    assert_int_equal(gd_order_events(&loop, GD_OE_LOAD, loads, 2), 1);
    assert_int_equal(loop.insn[loads[0]].addr_sig, GD_ROOT_LOAD);
    assert_int_equal(loop.insn[loads[0]].space, 'c');
    gd_order_free(&loop);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader_on_written_listings),
        cmocka_unit_test(test_mshr_follower_issues_after_the_lines),
        cmocka_unit_test(test_resv_stall_b_issues_after_a),
        cmocka_unit_test(test_resv_stall_hol_last_issues_after_the_reservers),
        cmocka_unit_test(test_dram_idle_b_issues_after_the_wait),
        cmocka_unit_test(test_every_timed_region_keeps_ptx_order),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
