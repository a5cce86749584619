/* arch_parse.h -- the arch-file reader's state (internal to analysis/).
 *
 *   arch_read.c      reads the INI text line by line (inih), looks every key up
 *                    in the key table and stores its value
 *   arch_validate.c  the defaults, and the checks no single line can make:
 *                    geometry, required keys and sections, cross-level rules
 *   arch_parse.c     this state's errors and key lines
 * Both report errors as "FILE:LINE: message" through the same parse_ctx.
 */
#ifndef GD_ARCH_PARSE_H
#define GD_ARCH_PARSE_H

#include <stddef.h>

#include "analysis/arch.h"

#define MAX_SEEN 256

typedef struct seen_key {
    char section[16];
    char key[32];
    int line;
} seen_key;

typedef struct parse_ctx {
    gd_arch *arch;
    const char *path;
    int line;           /* current line (counted by our reader) */
    int error_line;
    char error[GD_ERR_MSG_BYTES];
    seen_key seen[MAX_SEEN];
    int seen_count;
    int section_line[GD_LEVEL_COUNT + 3]; /* +gpu +noise +WB */
    /* the string being read by the line reader */
    const char *cursor;
    char line_comment[120];     /* inline comment of the current line */
    int from_override;
} parse_ctx;

#define SECTION_GPU GD_LEVEL_COUNT
#define SECTION_NOISE (GD_LEVEL_COUNT + 1)
#define SECTION_WB (GD_LEVEL_COUNT + 2) /* the PCM write buffer (issue 13) */

/* Records the first error (and its line); returns 0, inih's "error". */
int arch_ctx_error(parse_ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The line of SECTION.key as read (else the section's header line). */
int arch_key_line(const parse_ctx *ctx, int section, const char *key);

/* The reader's key table (arch_read.c): how many keys, and the i-th one's
 * name (*numeric: 1 for a number or size, which must have a bound). */
size_t arch_key_count(void);
const char *arch_key_name(size_t i, int *numeric);

/* SECTION_GPU, SECTION_NOISE, SECTION_WB or a level id for a section name; -1 if none. */
int arch_section_index(const char *section);

#endif
