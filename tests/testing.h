/* testing.h -- what every cmocka test of gpudissect includes.
 *
 * Finds the tools some tests need (ptxas, nvdisasm, the built binary) and gives
 * one way to say "skipped: <why>" so that run-all.sh can list the skips.
 */
#ifndef GD_TESTING_H
#define GD_TESTING_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

/* GD_TEST_FILTER=pattern (cmocka's wildcards): run only the tests it names --
 * to time or rerun one case of a long file.  Each main calls this before
 * cmocka_run_group_tests. */
static inline void gd_test_filter_from_env(void)
{
    const char *only = getenv("GD_TEST_FILTER");
    if (only && *only)
        cmocka_set_test_filter(only);
}

/* Path of ptxas (PTXAS, CUDA_HOME/bin, /usr/local/cuda/bin, PATH) or NULL. */
static inline const char *gd_test_ptxas(void)
{
    static char path[1024];
    const char *env = getenv("PTXAS");
    if (env && access(env, X_OK) == 0)
        return env;
    const char *home = getenv("CUDA_HOME");
    snprintf(path, sizeof path, "%s/bin/ptxas", home ? home : "/usr/local/cuda");
    if (access(path, X_OK) == 0)
        return path;
    FILE *p = popen("command -v ptxas 2>/dev/null", "r");
    if (p) {
        if (fgets(path, sizeof path, p)) {
            path[strcspn(path, "\n")] = 0;
            pclose(p);
            if (path[0] && access(path, X_OK) == 0)
                return path;
        } else {
            pclose(p);
        }
    }
    return NULL;
}

/* Path of nvdisasm via tests/find-nvdisasm.sh, or NULL.  Once found, kept for
 * the process: the script starts a python3 to search the PyPI package (0.17 s),
 * and the SASS checks asked twice per cubin -- as much as nvdisasm's own run.
 * Not finding it is not kept: a test may look while it has PATH broken on
 * purpose (test_jit_check), and the cases after it must still find it. */
static inline const char *gd_test_nvdisasm(void)
{
    static char path[1024];
    static int found;
    if (found)
        return path;
    FILE *p = popen(GD_SOURCE_DIR "/tests/find-nvdisasm.sh 2>/dev/null", "r");
    if (!p)
        return NULL;
    char *ok = fgets(path, sizeof path, p);
    int rc = pclose(p);
    if (!ok || rc != 0)
        return NULL;
    path[strcspn(path, "\n")] = 0;
    if (!path[0])
        return NULL;
    found = 1;
    return path;
}

/* The gpudissect binary under test (GD_BIN, else ./gpudissect). */
static inline const char *gd_test_binary(void)
{
    const char *env = getenv("GD_BIN");
    return env ? env : GD_SOURCE_DIR "/gpudissect";
}

/* A mock library built beside the tests: $env when set, else `name` next to
 * the running test; NULL if neither is there.  `path` holds the result. */
static inline const char *gd_test_mock_library(const char *env_name, const char *name,
                                               char *path, size_t size)
{
    const char *env = getenv(env_name);
    if (env && *env)
        return access(env, R_OK) == 0 ? env : NULL;
    ssize_t n = readlink("/proc/self/exe", path, size - 32);
    if (n <= 0)
        return NULL;
    path[n] = '\0';
    char *slash = strrchr(path, '/');
    if (!slash || strlen(name) >= size - (size_t)(slash + 1 - path))
        return NULL;
    strcpy(slash + 1, name);
    return access(path, R_OK) == 0 ? path : NULL;
}

/* The mock CUDA driver (tests/mock_libcuda*.c): GD_MOCK_LIBCUDA, else
 * libmockcuda.so next to the running test; NULL if neither is there. */
static inline const char *gd_test_mock_libcuda(void)
{
    static char path[4096];
    return gd_test_mock_library("GD_MOCK_LIBCUDA", "libmockcuda.so", path, sizeof path);
}

/* Prints "skipped: why" (picked up by run-all.sh) and skips the test. */
#define GD_SKIP(...)                                                                           \
    do {                                                                                       \
        printf("skipped: ");                                                                   \
        printf(__VA_ARGS__);                                                                   \
        printf("\n");                                                                          \
        fflush(stdout);                                                                        \
        skip();                                                                                \
    } while (0)

/* A fresh temporary directory (mkdtemp); the caller removes it with gd_test_rmrf. */
static inline char *gd_test_tmpdir(void)
{
    char *templ = strdup("/tmp/gd-test-XXXXXX");
    if (!templ || !mkdtemp(templ)) {
        free(templ);
        return NULL;
    }
    return templ;
}

static inline void gd_test_rmrf(const char *dir)
{
    char cmd[1200];
    if (!dir || strncmp(dir, "/tmp/gd-", 8) != 0)
        return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", dir);
}

/* Run a shell command, capture stdout+stderr (up to cap bytes) and the exit status. */
static inline int gd_test_run(const char *cmd, char *out, size_t cap)
{
    char full[4096];
    snprintf(full, sizeof full, "%s 2>&1", cmd);
    FILE *p = popen(full, "r");
    if (!p)
        return -1;
    size_t n = 0;
    if (out && cap) {
        n = fread(out, 1, cap - 1, p);
        out[n] = 0;
    }
    char sink[4096];
    while (fread(sink, 1, sizeof sink, p) > 0) {
    }
    int rc = pclose(p);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

#endif
