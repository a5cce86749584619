/* arch.c -- the arch description's vocabulary: level, replacement and scope
 * names, where arch files live, byte sizes with units, and where a value came
 * from.
 *
 * Reading an arch file is arch_read.c (the key table and the INI reader),
 * checking it arch_validate.c, and the parse state both share arch_parse.c;
 * each of them uses the names below, none of them is used by this file.
 */
#include "analysis/arch.h"

#include <ctype.h>
#include <stdarg.h>
#include <strings.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const level_names[GD_LEVEL_COUNT] = {
    [GD_L0I] = "L0I",   [GD_L1I] = "L1I", [GD_L15I] = "L15I", [GD_L1C] = "L1C",
    [GD_L15C] = "L15C", [GD_L2C] = "L2C", [GD_L1D] = "L1D",   [GD_SMEM] = "SMEM",
    [GD_L2] = "L2",
    [GD_TLB1] = "TLB1", [GD_TLB2] = "TLB2", [GD_DRAM] = "DRAM",
};

const char *gd_level_name(gd_level_id id)
{
    return (id >= 0 && id < GD_LEVEL_COUNT) ? level_names[id] : "?";
}

int gd_level_from_name(const char *name)
{
    for (int i = 0; i < GD_LEVEL_COUNT; i++)
        if (strcasecmp(name, level_names[i]) == 0)
            return i;
    return -1;
}

const char *gd_replacement_name(gd_replacement r)
{
    switch (r) {
    case GD_REPL_LRU: return "lru";
    case GD_REPL_FIFO: return "fifo";
    case GD_REPL_RANDOM: return "random";
    }
    return "?";
}

const char *gd_scope_name(gd_scope s)
{
    switch (s) {
    case GD_SCOPE_SUBPARTITION: return "subpartition";
    case GD_SCOPE_SM: return "sm";
    case GD_SCOPE_CHIP: return "chip";
    }
    return "?";
}

const char *gd_arch_dir(void)
{
    const char *env = getenv("GPUDISSECT_ARCH_DIR");
    if (env && *env)
        return env;
#ifdef GD_SOURCE_DIR
    return GD_SOURCE_DIR "/analysis/archs";
#else
    return "analysis/archs";
#endif
}

int gd_arch_resolve(const char *name_or_path, char *path, size_t path_bytes, gd_err *err)
{
    /* "gpgpusim:PATH": a GPGPU-Sim config, imported on loading (gd_arch_load) */
    if (strncmp(name_or_path, "gpgpusim:", 9) == 0) {
        name_or_path += 9;
        if (!*name_or_path)
            return gd_fail(err, "arch 'gpgpusim:': missing the config's path");
    }
    size_t len = strlen(name_or_path);
    int is_path = strchr(name_or_path, '/') != NULL ||
                  (len > 5 && strcmp(name_or_path + len - 5, ".arch") == 0) ||
                  (len > 7 && strcmp(name_or_path + len - 7, ".config") == 0);
    int n;
    if (is_path)
        n = snprintf(path, path_bytes, "%s", name_or_path);
    else
        n = snprintf(path, path_bytes, "%s/%s.arch", gd_arch_dir(), name_or_path);
    if (n < 0 || (size_t)n >= path_bytes)
        return gd_fail(err, "arch '%s': path too long", name_or_path);
    return 0;
}

const char *gd_arch_source_of(const gd_arch *arch, const char *section, const char *key)
{
    for (unsigned i = arch->source_count; i-- > 0;)
        if (!strcasecmp(arch->sources[i].section, section) && !strcmp(arch->sources[i].key, key))
            return arch->sources[i].text;
    return NULL;
}

int gd_parse_bytes(const char *text, uint64_t *out)
{
    static const struct {
        const char *suffix;
        uint64_t scale;
    } units[] = {
        {"", 1},
        {"B", 1},
        {"KiB", 1024ull},
        {"MiB", 1024ull * 1024},
        {"GiB", 1024ull * 1024 * 1024},
    };
    while (isspace((unsigned char)*text))
        text++;
    if (!*text || *text == '-')
        return -1;
    errno = 0;
    char *end = NULL;
    double v = strtod(text, &end);
    if (end == text || errno || !isfinite(v) || v < 0)
        return -1;
    const char *num_end = end;
    while (isspace((unsigned char)*end))
        end++;
    char unit[16];
    size_t ul = strcspn(end, " \t\r\n");
    if (ul >= sizeof unit)
        return -1;
    memcpy(unit, end, ul);
    unit[ul] = 0;
    const char *rest = end + ul;
    while (isspace((unsigned char)*rest))
        rest++;
    if (*rest)
        return -1;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(unit, units[i].suffix) == 0) {
            /* a whole number is read exactly (a double rounds past 2^53:
             * 9223372036854775807 would become 2^63), with an overflow check */
            size_t digits = strspn(text, "0123456789");
            if (digits && text + digits == num_end && !(text[0] == '0' && digits > 1)) {
                errno = 0;
                unsigned long long whole = strtoull(text, NULL, 10);
                if (errno || whole > UINT64_MAX / units[i].scale)
                    return -1;
                *out = whole * units[i].scale;
                return 0;
            }
            double bytes = v * (double)units[i].scale;
            if (bytes > 1.8e19 || bytes != floor(bytes))
                return -1;
            *out = (uint64_t)bytes;
            return 0;
        }
    }
    return -1;
}
