/* gpgpusim_config.c -- reading a gpgpusim.config and its cache strings.
 *
 * GPGPU-Sim reads its config as whitespace-separated tokens, '#' to the end of
 * a line being a comment, and pairs them up: "-name value".  We read it the
 * same way, keeping the line of each option so that every message can say
 * "FILE:LINE: -option: what is wrong", and keep every option (the last
 * occurrence wins, as in GPGPU-Sim) so that the importer can list the ones it
 * does not model instead of dropping them silently.
 *
 * Cache strings follow cache_config::init's sscanf layout
 * "%c:%u:%u:%u,%c:%c:%c:%c:%c,%c:%u:%u,%u:%u,%u": five comma groups of
 * colon fields.  GPGPU-Sim rejects fewer than 12 fields (the first three
 * groups) unless the string is "none"; we also reject what its sscanf would
 * have accepted silently -- an unknown policy letter, a zero count, a line
 * that is not a power of two, a size that does not fit -- so that a typo in a
 * config is an error here, not a different cache.
 */
#include "analysis/gpgpusim_config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/results.h"

#define GS_MAX_CACHE_BYTES (1ull << 40) /* beyond any cache: sets x line x ways overflowed */
#define GS_MIN_FIELDS 12                /* GPGPU-Sim's own minimum (cache_config::init) */
#define GS_SECTORED_LINE_BYTES 128      /* GPGPU-Sim asserts a sectored line is 4 x 32 B */

static int text_append_option(gd_gs_config *cfg, const char *name, const char *value, int line,
                              size_t *cap, gd_err *err)
{
    if (strlen(name) >= sizeof cfg->options[0].name || strlen(value) >= sizeof cfg->options[0].value)
        return gd_fail(err, "%s:%d: -%s: option name or value too long", cfg->path, line, name);
    if (cfg->count == *cap) {
        size_t ncap = *cap ? *cap * 2 : 64;
        gd_gs_option *o = realloc(cfg->options, ncap * sizeof *o);
        if (!o)
            return gd_fail(err, "%s: out of memory", cfg->path);
        cfg->options = o;
        *cap = ncap;
    }
    gd_gs_option *o = &cfg->options[cfg->count++];
    memset(o, 0, sizeof *o);
    snprintf(o->name, sizeof o->name, "%s", name);
    snprintf(o->value, sizeof o->value, "%s", value);
    o->line = line;
    return 0;
}

int gd_gs_config_parse_string(const char *text, const char *path, gd_gs_config *cfg, gd_err *err)
{
    memset(cfg, 0, sizeof *cfg);
    snprintf(cfg->path, sizeof cfg->path, "%s", path);
    const char *base = strrchr(path, '/');
    snprintf(cfg->file, sizeof cfg->file, "%s", base ? base + 1 : path);
    size_t cap = 0;
    char pending[64] = "";  /* an option name waiting for its value */
    int pending_line = 0;
    int line = 1;
    const char *p = text;
    while (*p) {
        if (*p == '#') {
            while (*p && *p != '\n')
                p++;
            continue;
        }
        if (*p == '\n') {
            line++;
            p++;
            continue;
        }
        if (isspace((unsigned char)*p)) {
            p++;
            continue;
        }
        char token[512];
        size_t len = 0;
        int token_line = line;
        if (*p == '"') {
            /* a quoted value may span lines ("nbk=16:...:\n   CL=12:..."):
             * GPGPU-Sim joins it, whitespace dropped */
            p++;
            while (*p && *p != '"') {
                if (*p == '\n')
                    line++;
                if (!isspace((unsigned char)*p) && len + 1 < sizeof token)
                    token[len++] = *p;
                p++;
            }
            if (*p != '"') {
                gd_gs_config_free(cfg);
                return gd_fail(err, "%s:%d: unterminated quoted value", path, token_line);
            }
            p++;
        } else {
            const char *start = p;
            while (*p && !isspace((unsigned char)*p) && *p != '#')
                p++;
            len = (size_t)(p - start);
            if (len >= sizeof token) {
                gd_gs_config_free(cfg);
                return gd_fail(err, "%s:%d: token too long", path, line);
            }
            memcpy(token, start, len);
        }
        token[len] = 0;
        if (pending[0]) {
            if (pending_line != token_line) {
                gd_fail(err, "%s:%d: -%s: no value", path, pending_line, pending);
                gd_gs_config_free(cfg);
                return -1;
            }
            if (text_append_option(cfg, pending, token, pending_line, &cap, err) != 0) {
                gd_gs_config_free(cfg);
                return -1;
            }
            pending[0] = 0;
            continue;
        }
        if (token[0] != '-' || !token[1] || len >= sizeof pending) {
            gd_fail(err, "%s:%d: '%s': expected an option (-name value)", path, line, token);
            gd_gs_config_free(cfg);
            return -1;
        }
        snprintf(pending, sizeof pending, "%s", token + 1);
        pending_line = line;
    }
    if (pending[0]) {
        gd_fail(err, "%s:%d: -%s: no value", path, pending_line, pending);
        gd_gs_config_free(cfg);
        return -1;
    }
    return 0;
}

int gd_gs_config_load(const char *path, gd_gs_config *cfg, gd_err *err)
{
    memset(cfg, 0, sizeof *cfg);
    size_t len = 0;
    char *text = gd_read_file(path, &len, err);
    if (!text)
        return -1;
    if (!len) {
        free(text);
        return gd_fail(err, "%s: empty config", path);
    }
    if (memchr(text, 0, len)) {
        free(text);
        return gd_fail(err, "%s: not a text file (contains NUL bytes)", path);
    }
    int rc = gd_gs_config_parse_string(text, path, cfg, err);
    free(text);
    return rc;
}

void gd_gs_config_free(gd_gs_config *cfg)
{
    free(cfg->options);
    cfg->options = NULL;
    cfg->count = 0;
}

gd_gs_option *gd_gs_find(const gd_gs_config *cfg, const char *name)
{
    for (size_t i = cfg->count; i-- > 0;)
        if (!strcmp(cfg->options[i].name, name))
            return &cfg->options[i];
    return NULL;
}

/* ---- cache strings ---- */

/* What each field of the layout is: a letter from a set, or a count. */
typedef struct gs_field {
    const char *what;
    const char *letters; /* NULL: an unsigned integer */
    int nonzero;
} gs_field;

static const gs_field gs_groups[5][5] = {
    {{"type (N normal, S sectored)", "NS", 0}, {"sets", NULL, 1}, {"line bytes", NULL, 1},
     {"ways", NULL, 1}},
    {{"replacement (L LRU, F FIFO)", "LF", 0},
     {"write policy (R read-only, B write-back, T write-through, E write-evict, L local write-back)",
      "RBTEL", 0},
     {"allocation (m on miss, f on fill, s streaming)", "mfs", 0},
     {"write-allocate (N none, W naive, F fetch-on-write, L lazy fetch-on-read)", "NWFL", 0},
     {"set index (L linear, H Fermi hash, P IPOLY, X XOR, C custom)", "LHPXC", 0}},
    {{"MSHR type (A, S; texture F, T)", "ASFT", 0}, {"MSHR entries", NULL, 1},
     {"MSHR max merges", NULL, 1}},
    {{"miss-queue entries", NULL, 0}, {"result FIFO entries", NULL, 0}},
    {{"data-port width", NULL, 0}},
};
static const int gs_group_fields[5] = {4, 5, 3, 2, 1};

static int parse_count(const char *tok, uint32_t *out)
{
    if (!*tok)
        return -1;
    for (const char *c = tok; *c; c++)
        if (!isdigit((unsigned char)*c))
            return -1;
    errno = 0;
    unsigned long long v = strtoull(tok, NULL, 10);
    if (errno || v > UINT32_MAX)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

int gd_gs_cache_parse(const char *text, const char *where, gd_gs_cache *out, gd_err *err)
{
    memset(out, 0, sizeof *out);
    if (!strcmp(text, "none")) {
        out->disabled = 1;
        return 0;
    }
    char copy[512];
    if (strlen(text) >= sizeof copy)
        return gd_fail(err, "%s: cache string too long", where);
    snprintf(copy, sizeof copy, "%s", text);
    char letters[5][5] = {{0}};
    uint32_t counts[5][5] = {{0}};
    int fields = 0, group = 0, group_fields[5] = {0};
    char *g_save = NULL;
    for (char *g = strtok_r(copy, ",", &g_save); g; g = strtok_r(NULL, ",", &g_save), group++) {
        if (group >= 5)
            return gd_fail(err, "%s: '%s': more than 5 comma-separated groups", where, text);
        int f = 0;
        char *f_save = NULL;
        for (char *tok = strtok_r(g, ":", &f_save); tok; tok = strtok_r(NULL, ":", &f_save), f++) {
            if (f >= gs_group_fields[group])
                return gd_fail(err, "%s: '%s': group %d has more than %d fields", where, text,
                               group + 1, gs_group_fields[group]);
            const gs_field *spec = &gs_groups[group][f];
            fields++;
            if (spec->letters) {
                if (strlen(tok) != 1 || !strchr(spec->letters, tok[0]))
                    return gd_fail(err, "%s: '%s': field %d, %s: got '%s'", where, text, fields,
                                   spec->what, tok);
                letters[group][f] = tok[0];
            } else {
                if (parse_count(tok, &counts[group][f]) != 0)
                    return gd_fail(err, "%s: '%s': field %d, %s: expected an unsigned integer, got '%s'",
                                   where, text, fields, spec->what, tok);
                if (spec->nonzero && counts[group][f] == 0)
                    return gd_fail(err, "%s: '%s': field %d, %s: must not be zero", where, text,
                                   fields, spec->what);
            }
        }
        group_fields[group] = f;
    }
    for (int i = 0; i < 3; i++)
        if (group_fields[i] < gs_group_fields[i])
            fields = 0; /* a short group: GPGPU-Sim's sscanf stops there */
    if (fields < GS_MIN_FIELDS)
        return gd_fail(err, "%s: '%s': wrong field count: needs at least %d "
                            "(N|S:sets:line:ways,5 policy letters,MSHR type:entries:merges) or 'none'",
                       where, text, GS_MIN_FIELDS);
    out->fields = fields;
    out->type = letters[0][0];
    out->sets = counts[0][1];
    out->line_bytes = counts[0][2];
    out->ways = counts[0][3];
    out->replacement = letters[1][0];
    out->write_policy = letters[1][1];
    out->allocation = letters[1][2];
    out->write_allocate = letters[1][3];
    out->set_index = letters[1][4];
    out->mshr_type = letters[2][0];
    out->mshr_entries = counts[2][1];
    out->mshr_merge = counts[2][2];
    out->miss_queue = counts[3][0];
    out->result_fifo = counts[3][1];
    out->port_bytes = counts[4][0];
    if (out->line_bytes & (out->line_bytes - 1))
        return gd_fail(err, "%s: '%s': line of %u bytes is not a power of two", where, text,
                       out->line_bytes);
    if (out->type == 'S' && out->line_bytes != GS_SECTORED_LINE_BYTES)
        return gd_fail(err, "%s: '%s': a sectored cache ('S') has %u-byte lines (4 x %u B), got %u",
                       where, text, GS_SECTORED_LINE_BYTES, GD_GS_SECTOR_BYTES, out->line_bytes);
    if ((uint64_t)out->sets * out->line_bytes * out->ways > GS_MAX_CACHE_BYTES)
        return gd_fail(err, "%s: '%s': %u sets x %u B x %u ways cannot be a cache size", where,
                       text, out->sets, out->line_bytes, out->ways);
    return 0;
}

uint64_t gd_gs_cache_bytes(const gd_gs_cache *c)
{
    return (uint64_t)c->sets * c->line_bytes * c->ways;
}

int gd_gs_uint(const gd_gs_config *cfg, const char *name, int first_of_list, uint64_t *out,
               gd_err *err)
{
    gd_gs_option *o = gd_gs_find(cfg, name);
    if (!o)
        return 0;
    o->used = 1;
    char tok[512];
    snprintf(tok, sizeof tok, "%s", o->value);
    if (first_of_list)
        tok[strcspn(tok, ",:")] = 0;
    /* clocks are written "1365.0": a whole number with a fraction of zero */
    char *end = NULL;
    errno = 0;
    double v = strtod(tok, &end);
    if (errno || end == tok || *end || v < 0 || v != (double)(uint64_t)v)
        return gd_fail(err, "%s:%d: -%s: expected a non-negative integer, got '%s'", cfg->path,
                       o->line, name, o->value);
    *out = (uint64_t)v;
    return 1;
}

int gd_gs_cache_option(const gd_gs_config *cfg, const char *name, gd_gs_cache *out, gd_err *err)
{
    memset(out, 0, sizeof *out);
    gd_gs_option *o = gd_gs_find(cfg, name);
    if (!o)
        return 0;
    o->used = 1;
    char where[700];
    snprintf(where, sizeof where, "%s:%d: -%s", cfg->path, o->line, name);
    if (gd_gs_cache_parse(o->value, where, out, err) != 0)
        return -1;
    return out->disabled ? 0 : 1;
}
