/* interrupt.h -- SIGINT/SIGTERM during a long command (interrupt.c). */
#ifndef GD_INTERRUPT_H
#define GD_INTERRUPT_H

#include "host/device.h"

/* The exit status of a run stopped by a signal, as a shell reports SIGINT. */
#define GD_EXIT_INTERRUPTED 130

/* From now on SIGINT and SIGTERM only set a flag (the first one; a second
 * one ends the process at once, as without these handlers). */
void gd_interrupt_install(void);
/* Back to the default actions. */
void gd_interrupt_uninstall(void);
/* The signal received since install (SIGINT, SIGTERM), or 0. */
int gd_interrupt_requested(void);
/* "SIGINT", "SIGTERM" (or "a signal") for meta.json and messages. */
const char *gd_interrupt_name(int signo);
/* Tests: as if `signo` had arrived (0 clears). */
void gd_interrupt_simulate(int signo);

/* Removes DIR's orphan temporaries "*.tmp.XXXXXX" (gd_write_atomic's, left
 * by a process killed between create and rename); returns how many, or -1
 * with err when DIR cannot be read. */
int gd_interrupt_remove_temporaries(const char *dir, gd_err *err);

#endif
