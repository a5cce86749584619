/* cli_number.c -- numbers typed on the command line, parsed strictly.
 *
 * strtoull() accepts "-1" (and returns 2^64 - 1), leading spaces and an empty
 * string's 0; atoi() accepts "abc" as 0.  A user's typo must not become a
 * plausible value that the run then records as chosen, so every number option
 * goes through one function that takes digits only and names the range.
 */
#include "host/cli_number.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

int gd_cli_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
    if (!text || !isdigit((unsigned char)text[0]))
        return -1;
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno || end == text || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}
