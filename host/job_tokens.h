/* job_tokens.h -- one bound on the simulations running at once, across processes.
 *
 * `characterize -j N` on a sim device runs suite steps in processes of their
 * own (host/step_workers.c), and each step's sweep forks a process per point
 * (host/sweep_workers.c).  Left to themselves the two would run N steps of N
 * points each; instead they share N tokens in a pipe, as make's jobserver
 * does: whoever starts a process that simulates takes a token first and gives
 * it back when it has reaped that process.  A step process holds the token
 * it was started with, which also covers one point process at a time (it
 * waits while its points run); every further point process needs a token of
 * its own.  Taking never blocks (the pipe is non-blocking): a process that
 * finds none waits for its own children instead, so nobody waits on a token
 * another holds while waiting on it.
 *
 * Which process runs what changes nothing in the results: every step and
 * every point is an independent simulation (their headers say why).
 */
#ifndef GD_JOB_TOKENS_H
#define GD_JOB_TOKENS_H

#include "host/device.h"

/* Opens the pool with n tokens (n >= 1), inherited by every child forked
 * after it.  An error says why (pipe). */
int gd_job_tokens_open(unsigned n, gd_err *err);
/* Closes this process's ends of the pool (the children keep theirs). */
void gd_job_tokens_close(void);
/* Whether this process has a pool (0: bound processes by -j alone). */
int gd_job_tokens_on(void);
/* Takes a token if one is free: 1, else 0 (never blocks). */
int gd_job_token_take(void);
/* Gives a token back. */
void gd_job_token_give(void);

#endif
