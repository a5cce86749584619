/* cli_number.h -- a number typed on the command line, parsed strictly
 * (cli_number.c). */
#ifndef GD_CLI_NUMBER_H
#define GD_CLI_NUMBER_H

#include <stdint.h>

/* A whole number in min..max: decimal, or 0x hex; no sign, no spaces, no
 * trailing characters ("-1" is not 2^64 - 1, "abc" is not 0).  0 on success,
 * else -1 with *out untouched. */
int gd_cli_u64(const char *text, uint64_t min, uint64_t max, uint64_t *out);

#endif
