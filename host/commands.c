/* commands.c -- the one line every subcommand prints when it fails.
 *
 * The subcommands (host/cmd_*.c) and main.c print; nothing below them does.
 * The error line lives here rather than in main.c so that the commands, which
 * main.c dispatches to, do not call back into it.
 */
#include "host/commands.h"
#include "host/cli_number.h"

#include <stdio.h>
#include <stdlib.h>

int gd_parse_carveout_option(const char *text, int *out)
{
    uint64_t v;
    if (gd_cli_u64(text, 0, 100, &v) != 0) { /* digits: not " 5", "+5" or "5%" */
        fprintf(stderr, "gpudissect: --carveout takes a percentage 0..100 (of the largest "
                        "shared-memory size; 0 = the most L1), got '%s'\n",
                text);
        return -1;
    }
    *out = (int)v;
    return 0;
}

int gd_report_error(const char *msg)
{
    fprintf(stderr, "gpudissect: error: %s\n", msg);
    return 1;
}
