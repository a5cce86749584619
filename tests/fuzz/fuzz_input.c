/* fuzz_input.c -- what every fuzz target needs: the fuzzer's bytes as text or
 * as a file, the one-line-error invariant, a scratch directory.
 *
 * The scratch directory is per process (mkdtemp under TMPDIR) and is left for
 * the OS to clean: a libFuzzer worker never returns from its loop, so an
 * atexit() would not run either.  Files in it are overwritten on every input.
 */
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/results.h"

const gd_fuzz_target gd_fuzz_targets[] = {
    {"arch", gd_fuzz_arch},       {"set", gd_fuzz_set},     {"suite", gd_fuzz_suite},
    {"expr", gd_fuzz_expr},       {"sweep", gd_fuzz_sweep}, {"ptx", gd_fuzz_ptx},
    {"results", gd_fuzz_results}, {"cubin", gd_fuzz_cubin}, {"probe", gd_fuzz_probe},
    {"sim", gd_fuzz_sim},
};
const size_t gd_fuzz_target_count = sizeof gd_fuzz_targets / sizeof gd_fuzz_targets[0];

char *gd_fuzz_text(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = 0;
    return text;
}

void gd_fuzz_broken(const char *target, const char *what)
{
    fprintf(stderr, "fuzz %s: invariant broken: %s\n", target, what);
    abort();
}

int gd_fuzz_rejected(const gd_err *err, const char *target)
{
    if (!err->msg[0])
        gd_fuzz_broken(target, "rejected without a message");
    if (strchr(err->msg, '\n') || strchr(err->msg, '\r')) {
        fprintf(stderr, "fuzz %s: message of more than one line: [%s]\n", target, err->msg);
        abort();
    }
    if (getenv("GD_FUZZ_VERBOSE"))
        fprintf(stderr, "fuzz %s: rejected: %s\n", target, err->msg);
    return GD_FUZZ_REJECTED;
}

const char *gd_fuzz_scratch_dir(void)
{
    static char dir[512];
    if (!dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/gd-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir)) {
            perror("fuzz: mkdtemp");
            abort();
        }
    }
    return dir;
}

int gd_fuzz_write(const char *name, const void *data, size_t size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", gd_fuzz_scratch_dir(), name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int rc = fwrite(data, 1, size, f) == size ? 0 : -1;
    if (fclose(f) != 0)
        rc = -1;
    return rc;
}

char *gd_fuzz_next_part(char **rest)
{
    char *part = *rest;
    if (!part)
        return NULL;
    for (char *p = part; *p; p++) {
        if ((p == part || p[-1] == '\n') && p[0] == '%' && p[1] == '%' &&
            (p[2] == '\n' || p[2] == 0)) {
            *p = 0;
            *rest = p[2] ? p + 3 : NULL;
            return part;
        }
    }
    *rest = NULL;
    return part;
}

const char *gd_fuzz_tiny_arch(void)
{
    static char *text;
    if (!text) {
        gd_err err;
        text = gd_read_file(GD_SOURCE_DIR "/analysis/archs/tiny.arch", NULL, &err);
        if (!text) {
            fprintf(stderr, "fuzz: %s\n", err.msg);
            abort();
        }
    }
    return text;
}
