/* commands.c -- the one line every subcommand prints when it fails.
 *
 * The subcommands (host/cmd_*.c) and main.c print; nothing below them does.
 * The error line lives here rather than in main.c so that the commands, which
 * main.c dispatches to, do not call back into it.
 */
#include "host/commands.h"

#include <stdio.h>

int gd_report_error(const char *msg)
{
    fprintf(stderr, "gpudissect: error: %s\n", msg);
    return 1;
}
