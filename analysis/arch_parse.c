/* arch_parse.c -- the state of one arch-file read, and its errors.
 *
 * The reader (arch_read.c) and the validator (arch_validate.c) report every
 * problem as "FILE:LINE: message" through one parse_ctx: the first error wins
 * (later ones are usually its consequences), and a check that spans keys names
 * the line where the key at fault was read.
 */
#include "analysis/arch_parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

int arch_ctx_error(parse_ctx *ctx, const char *fmt, ...)
{
    if (!ctx->error[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ctx->error, sizeof ctx->error, fmt, ap);
        va_end(ap);
        ctx->error_line = ctx->line;
    }
    return 0; /* inih: 0 = error */
}

int arch_section_index(const char *section)
{
    if (strcasecmp(section, "gpu") == 0)
        return SECTION_GPU;
    if (strcasecmp(section, "noise") == 0)
        return SECTION_NOISE;
    if (strcasecmp(section, "WB") == 0)
        return SECTION_WB;
    return gd_level_from_name(section);
}

int arch_key_line(const parse_ctx *ctx, int section, const char *key)
{
    const char *sname = section == SECTION_GPU     ? "gpu"
                        : section == SECTION_NOISE ? "noise"
                        : section == SECTION_WB    ? "WB"
                                                   : gd_level_name((gd_level_id)section);
    for (int i = ctx->seen_count - 1; i >= 0; i--)
        if (strcasecmp(ctx->seen[i].section, sname) == 0 && strcmp(ctx->seen[i].key, key) == 0)
            return ctx->seen[i].line;
    return ctx->section_line[section];
}
