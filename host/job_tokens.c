/* job_tokens.c -- the token pipe shared by step and point processes (job_tokens.h). */
#include "host/job_tokens.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static int tokens_rd = -1, tokens_wr = -1;

int gd_job_tokens_open(unsigned n, gd_err *err)
{
    gd_job_tokens_close();
    int fds[2];
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
        return gd_fail(err, "job tokens: pipe: %s", strerror(errno));
    tokens_rd = fds[0];
    tokens_wr = fds[1];
    for (unsigned i = 0; i < n; i++)
        gd_job_token_give();
    return 0;
}

void gd_job_tokens_close(void)
{
    if (tokens_rd >= 0)
        close(tokens_rd);
    if (tokens_wr >= 0)
        close(tokens_wr);
    tokens_rd = tokens_wr = -1;
}

int gd_job_tokens_on(void)
{
    return tokens_rd >= 0;
}

int gd_job_token_take(void)
{
    char c;
    ssize_t n;
    do
        n = read(tokens_rd, &c, 1);
    while (n < 0 && errno == EINTR);
    return n == 1;
}

void gd_job_token_give(void)
{
    /* one byte into a pipe that never holds more than -j of them: never full */
    const char c = '+';
    ssize_t n;
    do
        n = write(tokens_wr, &c, 1);
    while (n < 0 && errno == EINTR);
}
