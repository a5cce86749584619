/* suite.c -- reading suite files and evaluating their size expressions.
 *
 * The expression language is the least a device-independent suite needs:
 * sizes with units, the levels' sizes and lines by schema name (L2, L1D, L0I,
 * L1C_LINE, ...), + - * and /, min() and max(), and parentheses.  A recursive-descent evaluator over 64-bit integers; dividing by
 * zero, overflow and unknown names are errors that name the expression.
 */
#include "host/suite.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/arch.h"
#include "analysis/results.h"
#include "host/cli_number.h"

const char *gd_suite_dir(void)
{
    const char *env = getenv("GPUDISSECT_SUITE_DIR");
    if (env && *env)
        return env;
#ifdef GD_SOURCE_DIR
    return GD_SOURCE_DIR "/bench/suites";
#else
    return "bench/suites";
#endif
}

/* ------------------------------------------------------------------------- */
/* Expressions                                                               */

typedef struct expr_ctx {
    const char *p;
    const char *text;
    const gd_suite_vars *vars;
    gd_err *err;
    int failed;
    int syntax_only; /* names are checked, not looked up; no arithmetic: when a suite loads */
} expr_ctx;

static int expr_fail(expr_ctx *c, const char *what)
{
    if (!c->failed)
        gd_fail(c->err, "expression '%s': %s", c->text, what);
    c->failed = 1;
    return -1;
}

static void skip_ws(expr_ctx *c)
{
    while (isspace((unsigned char)*c->p))
        c->p++;
}

static int parse_sum(expr_ctx *c, uint64_t *v);

static int parse_atom(expr_ctx *c, uint64_t *v)
{
    skip_ws(c);
    if (*c->p == '(') {
        c->p++;
        if (parse_sum(c, v))
            return -1;
        skip_ws(c);
        if (*c->p != ')')
            return expr_fail(c, "missing ')'");
        c->p++;
        return 0;
    }
    if (isdigit((unsigned char)*c->p)) {
        const char *start = c->p;
        while (isalnum((unsigned char)*c->p) || *c->p == '.')
            c->p++;
        char num[32];
        size_t len = (size_t)(c->p - start);
        if (len >= sizeof num)
            return expr_fail(c, "number too long");
        memcpy(num, start, len);
        num[len] = 0;
        if (gd_parse_bytes(num, v))
            return expr_fail(c, "bad size (use 64, 32KiB, 4MiB)");
        return 0;
    }
    if (isalpha((unsigned char)*c->p)) {
        const char *start = c->p;
        while (isalnum((unsigned char)*c->p) || *c->p == '_')
            c->p++;
        size_t len = (size_t)(c->p - start);
        int fn = len == 3 && !strncmp(start, "min", 3)       ? 'n'
                 : len == 3 && !strncmp(start, "max", 3)     ? 'x'
                 : len == 3 && !strncmp(start, "lcm", 3)     ? 'l'
                 : len == 7 && !strncmp(start, "roundup", 7) ? 'r'
                                                             : 0;
        if (fn) {
            uint64_t a, b;
            skip_ws(c);
            if (*c->p != '(')
                return expr_fail(c, "min/max/lcm/roundup need (a, b)");
            c->p++;
            if (parse_sum(c, &a))
                return -1;
            skip_ws(c);
            if (*c->p != ',')
                return expr_fail(c, "min/max/lcm/roundup need two arguments");
            c->p++;
            if (parse_sum(c, &b))
                return -1;
            skip_ws(c);
            if (*c->p != ')')
                return expr_fail(c, "missing ')'");
            c->p++;
            if (c->syntax_only || fn == 'n' || fn == 'x') {
                *v = fn == 'n' ? (a < b ? a : b) : (a > b ? a : b);
                return 0;
            }
            if (!a || !b)
                return expr_fail(c, fn == 'l' ? "lcm of zero" : "roundup to a multiple of zero");
            /* lcm(a, b): the smallest stride that is a multiple of both (a set
             * stride a probe needs and a granule it requires); roundup(a, b): a
             * rounded up to a multiple of b */
            uint64_t m = b;
            if (fn == 'l') {
                uint64_t x = a, y = b;
                while (y) {
                    uint64_t r = x % y;
                    x = y;
                    y = r;
                }
                m = b / x; /* lcm = a * (b / gcd) */
            } else if (a % b == 0) {
                *v = a;
                return 0;
            }
            uint64_t q = fn == 'l' ? a : a / b + 1;
            if (q > UINT64_MAX / m)
                return expr_fail(c, "overflow");
            *v = q * m;
            return 0;
        }
        char name[32];
        if (len >= sizeof name)
            return expr_fail(c, "name too long");
        memcpy(name, start, len);
        name[len] = 0;
        /* NAME?: the level's size, or 0 on a GPU the steps before found
         * without one (an L0I before Volta); otherwise as NAME */
        int optional = *c->p == '?';
        if (optional)
            c->p++;
        int is_line = len > 5 && !strcmp(name + len - 5, "_LINE");
        int is_ways = len > 5 && !strcmp(name + len - 5, "_WAYS");
        int is_random = len > 7 && !strcmp(name + len - 7, "_RANDOM");
        if (is_line || is_ways)
            name[len - 5] = 0;
        if (is_random)
            name[len - 7] = 0;
        int id = gd_inferred_level_from_name(name);
        if (id < 0)
            return expr_fail(c, "unknown name (use a level such as L2, L1D, L0I, L1C, NAME_LINE, "
                                "NAME_WAYS, NAME_RANDOM, min, max, lcm, roundup)");
        if (c->syntax_only) {
            *v = 1;
            return 0;
        }
        /* NAME_RANDOM: 1 where a step before found the level replacing at
         * random, 0 otherwise (a level not found, or not random) */
        if (is_random) {
            *v = c->vars->random[id] ? 1 : 0;
            return 0;
        }
        uint64_t value = is_line ? c->vars->line[id] : is_ways ? c->vars->ways[id] : c->vars->size[id];
        /* NAME? is 0 for a level the GPU lacks; NAME_WAYS? also for ways not
         * (or only bounded) measured: a step can fall back where they are not
         * known instead of being skipped */
        if (!value && optional && (c->vars->absent[id] || is_ways)) {
            *v = 0;
            return 0;
        }
        if (!value && c->vars->absent[id])
            return expr_fail(c, "this GPU has no such level");
        if (!value) {
            if (id == GD_INF_L2 && !is_line && !is_ways)
                return expr_fail(c, "the L2 size is not known (the device reports none)");
            return expr_fail(c, is_line   ? "that fetch granularity is not known yet (run its "
                                            "stride sweep first)"
                                : is_ways ? "that associativity is not known yet (run "
                                            "pchase_fine or const_fine first)"
                                          : "that size is not known yet (measure it in an "
                                            "earlier step)");
        }
        *v = value;
        return 0;
    }
    return expr_fail(c, "expected a size, a level name, min(), max(), lcm() or roundup()");
}

static int parse_product(expr_ctx *c, uint64_t *v)
{
    if (parse_atom(c, v))
        return -1;
    for (;;) {
        skip_ws(c);
        char op = *c->p;
        if (op != '*' && op != '/')
            return 0;
        c->p++;
        uint64_t r;
        if (parse_atom(c, &r))
            return -1;
        if (c->syntax_only)
            continue;
        if (op == '*') {
            if (r && *v > UINT64_MAX / r)
                return expr_fail(c, "overflow");
            *v *= r;
        } else {
            if (!r)
                return expr_fail(c, "division by zero");
            *v /= r;
        }
    }
}

static int parse_sum(expr_ctx *c, uint64_t *v)
{
    if (parse_product(c, v))
        return -1;
    for (;;) {
        skip_ws(c);
        char op = *c->p;
        if (op != '+' && op != '-')
            return 0;
        c->p++;
        uint64_t r;
        if (parse_product(c, &r))
            return -1;
        if (c->syntax_only)
            continue;
        if (op == '+') {
            if (*v > UINT64_MAX - r)
                return expr_fail(c, "overflow");
            *v += r;
        } else {
            if (r > *v)
                return expr_fail(c, "negative result");
            *v -= r;
        }
    }
}

int gd_suite_eval(const char *expr, const gd_suite_vars *vars, uint64_t *out, gd_err *err)
{
    for (const char *q = expr; *q; q++)
        if ((unsigned char)*q < 0x20 || *q == 0x7f) /* never echoed: errors stay one line */
            return gd_fail(err, "expression: a control character at offset %zu", (size_t)(q - expr));
    expr_ctx c = {.p = expr, .text = expr, .vars = vars, .err = err};
    if (parse_sum(&c, out))
        return -1;
    skip_ws(&c);
    if (*c.p)
        return expr_fail(&c, "unexpected text at the end");
    return 0;
}

/* A suite's expressions are checked when it loads -- names and syntax, not the
 * values, which the steps before provide -- so that a typo is a FILE:LINE error
 * before anything is measured, not a step that fails an hour into a run. */
static int check_expr(const char *expr, const char *path, int line, gd_err *err)
{
    if (!expr[0])
        return 0;
    uint64_t ignored;
    expr_ctx c = {.p = expr, .text = expr, .err = err, .syntax_only = 1};
    if (parse_sum(&c, &ignored))
        return gd_fail_prefix(err, "%s:%d", path, line);
    skip_ws(&c);
    if (*c.p) {
        expr_fail(&c, "unexpected text at the end");
        return gd_fail_prefix(err, "%s:%d", path, line);
    }
    return 0;
}

static int check_step_exprs(const gd_suite_step *st, const char *path, gd_err *err)
{
    const char *steps = st->sweep_steps[0] == '+' ? st->sweep_steps + 1 : "";
    if (check_expr(st->sweep_from, path, st->line, err) ||
        check_expr(st->sweep_to, path, st->line, err) || check_expr(steps, path, st->line, err) ||
        check_expr(st->footprint, path, st->line, err) ||
        check_expr(st->resolution, path, st->line, err) ||
        check_expr(st->refine_below, path, st->line, err) ||
        check_expr(st->stride, path, st->line, err) || check_expr(st->run_if, path, st->line, err))
        return -1;
    return 0;
}

/* ------------------------------------------------------------------------- */
/* Suite files                                                               */

static int copy_expr(char *dst, const char *src, const char *path, int line, const char *what,
                     gd_err *err)
{
    if (strlen(src) >= GD_SUITE_EXPR_BYTES)
        return gd_fail(err, "%s:%d: %s expression too long", path, line, what);
    strcpy(dst, src);
    return 0;
}

static int parse_step(char *text, const char *path, int line, gd_suite_step *st, gd_err *err)
{
    memset(st, 0, sizeof *st);
    st->line = line;
    st->opts.seed = 1;
    char *save = NULL;
    char *label = strtok_r(text, " \t", &save);
    char *probe = strtok_r(NULL, " \t", &save);
    if (!label || !probe)
        return gd_fail(err, "%s:%d: expected LABEL PROBE OPTIONS...", path, line);
    snprintf(st->label, sizeof st->label, "%s", label);
    for (const char *q = label; *q; q++)
        if (!isalnum((unsigned char)*q) && *q != '-' && *q != '_' && *q != '.')
            return gd_fail(err, "%s:%d: label '%s' may use letters, digits, - _ . only", path,
                           line, label);
    st->probe = gd_probe_find(probe);
    if (!st->probe)
        return gd_fail(err, "%s:%d: unknown probe '%s'", path, line, probe);
    char *opt;
    while ((opt = strtok_r(NULL, " \t", &save))) {
        if (!strcmp(opt, "--adaptive")) {
            st->adaptive = 1;
            continue;
        }
        char *val = strtok_r(NULL, " \t", &save);
        if (!val)
            return gd_fail(err, "%s:%d: option %s needs a value", path, line, opt);
        if (!strcmp(opt, "--sweep")) {
            char *a = val, *b = strchr(a, ':');
            if (!b)
                return gd_fail(err, "%s:%d: --sweep needs FROM:TO[:STEPS]", path, line);
            *b++ = 0;
            char *s = strchr(b, ':');
            if (s)
                *s++ = 0;
            if (copy_expr(st->sweep_from, a, path, line, "sweep", err) ||
                copy_expr(st->sweep_to, b, path, line, "sweep", err) ||
                copy_expr(st->sweep_steps, s ? s : "", path, line, "sweep", err))
                return -1;
        } else if (!strcmp(opt, "--footprint")) {
            if (copy_expr(st->footprint, val, path, line, "footprint", err))
                return -1;
        } else if (!strcmp(opt, "--resolution")) {
            if (copy_expr(st->resolution, val, path, line, "resolution", err))
                return -1;
        } else if (!strcmp(opt, "--refine-below")) {
            if (copy_expr(st->refine_below, val, path, line, "refine-below", err))
                return -1;
        } else if (!strcmp(opt, "--stride")) {
            if (copy_expr(st->stride, val, path, line, "stride", err))
                return -1;
        } else if (!strcmp(opt, "--if")) {
            if (copy_expr(st->run_if, val, path, line, "if", err))
                return -1;
        } else if (!strcmp(opt, "--variant")) {
            if (strlen(val) >= sizeof st->opts.variant)
                return gd_fail(err, "%s:%d: --variant is too long", path, line);
            snprintf(st->opts.variant, sizeof st->opts.variant, "%s", val);
        } else if (!strcmp(opt, "--pattern")) {
            if (strcmp(val, "seq") && strcmp(val, "random"))
                return gd_fail(err, "%s:%d: --pattern must be seq or random", path, line);
            st->opts.random_order = !strcmp(val, "random");
        } else if (!strcmp(opt, "--seed")) {
            if (gd_cli_u64(val, 0, UINT64_MAX, &st->opts.seed) != 0)
                return gd_fail(err, "%s:%d: bad --seed '%s'", path, line, val);
        } else if (!strcmp(opt, "--samples")) {
            uint64_t s;
            if (gd_cli_u64(val, 1, 1u << 20, &s) != 0)
                return gd_fail(err, "%s:%d: bad --samples '%s' (1..1048576)", path, line, val);
            st->opts.samples = (uint32_t)s;
        } else if (!strcmp(opt, "--timed")) {
            uint64_t t;
            if (gd_cli_u64(val, 1, UINT32_MAX, &t) != 0)
                return gd_fail(err, "%s:%d: bad --timed '%s' (accesses, 1..4294967295)", path,
                               line, val);
            st->opts.timed_accesses = t;
        } else if (!strcmp(opt, "--warm")) {
            uint64_t w;
            if (gd_cli_u64(val, 1, GD_PROBE_MAX_WARM_PASSES, &w) != 0)
                return gd_fail(err, "%s:%d: bad --warm '%s' (passes, 1..%u)", path, line, val,
                               GD_PROBE_MAX_WARM_PASSES);
            st->opts.warm_passes = (uint32_t)w;
        } else if (!strcmp(opt, "--carveout")) {
            char list[GD_SUITE_EXPR_BYTES];
            snprintf(list, sizeof list, "%s", val);
            st->carveout_count = 0;
            for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok;
                 tok = strtok_r(NULL, ",", &save)) {
                char *end = NULL;
                long p = strtol(tok, &end, 10);
                if (*end || p < 0 || p > 100 ||
                    (st->carveout_count && p <= st->carveouts[st->carveout_count - 1]) ||
                    st->carveout_count == GD_SUITE_MAX_CARVEOUTS)
                    return gd_fail(err, "%s:%d: --carveout takes ascending percentages 0..100 "
                                        "(at most %d), got '%s'",
                                   path, line, GD_SUITE_MAX_CARVEOUTS, val);
                st->carveouts[st->carveout_count++] = (int)p;
            }
        } else if (!strcmp(opt, "--level")) {
            if (gd_inferred_level_from_name(val) < 0)
                return gd_fail(err, "%s:%d: --level '%s' is not a level of the results schema",
                               path, line, val);
            snprintf(st->level, sizeof st->level, "%s", val);
        } else {
            return gd_fail(err, "%s:%d: unknown option '%s'", path, line, opt);
        }
    }
    if (!st->sweep_from[0])
        return gd_fail(err, "%s:%d: step '%s' has no --sweep", path, line, st->label);
    if (st->carveout_count && strcmp(st->probe->name, "pchase"))
        return gd_fail(err, "%s:%d: --carveout is a pchase step's (the L1D per carve-out)", path,
                       line);
    return 0;
}

int gd_suite_load(const char *name_or_path, gd_suite *out, gd_err *err)
{
    memset(out, 0, sizeof *out);
    if (strchr(name_or_path, '/'))
        snprintf(out->path, sizeof out->path, "%s", name_or_path);
    else
        snprintf(out->path, sizeof out->path, "%s/%s.suite", gd_suite_dir(), name_or_path);
    const char *base = strrchr(out->path, '/');
    snprintf(out->name, sizeof out->name, "%s", base ? base + 1 : out->path);
    char *dot = strrchr(out->name, '.');
    if (dot && !strcmp(dot, ".suite"))
        *dot = 0;
    size_t bytes;
    char *text = gd_read_file(out->path, &bytes, err);
    if (!text)
        return gd_fail_prefix(err, "suite '%s'", name_or_path);
    int line = 0, rc = 0;
    char *p = text;
    while (p && *p) {
        line++;
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = 0;
        char *hash = strchr(p, '#');
        if (hash)
            *hash = 0;
        char *q = p;
        while (isspace((unsigned char)*q))
            q++;
        if (*q) {
            if (out->step_count == GD_SUITE_MAX_STEPS) {
                rc = gd_fail(err, "%s:%d: more than %d steps", out->path, line, GD_SUITE_MAX_STEPS);
                break;
            }
            if (parse_step(q, out->path, line, &out->steps[out->step_count], err) != 0 ||
                check_step_exprs(&out->steps[out->step_count], out->path, err) != 0) {
                rc = -1;
                break;
            }
            for (size_t i = 0; i < out->step_count; i++)
                if (!strcmp(out->steps[i].label, out->steps[out->step_count].label)) {
                    rc = gd_fail(err, "%s:%d: label '%s' used twice", out->path, line,
                                 out->steps[i].label);
                    break;
                }
            if (rc)
                break;
            out->step_count++;
        }
        p = nl ? nl + 1 : NULL;
    }
    free(text);
    if (!rc && !out->step_count)
        rc = gd_fail(err, "%s: no steps", out->path);
    return rc;
}
