/* mock_libcuda_kernels.c -- the fake driver's JIT and launches.
 *
 * Part of libmockcuda.so (see tests/mock_libcuda.c for the whole idea).  Here:
 *
 *   - cuLinkComplete really compiles: it runs ptxas (PTXAS, else
 *     $CUDA_HOME/bin/ptxas, else /usr/local/cuda/bin/ptxas) for the device's
 *     sm_75 and returns its cubin and its log through the buffers given to
 *     cuLinkCreate_v2, so the backend parses -- and patches -- real ptxas
 *     output.  The cubin, like the driver's, belongs to the link state and
 *     dies with it.
 *   - The mock remembers each cubin it produced together with its PTX, so
 *     that tests/mock_libcuda_modules.c can tell what parameters the kernels
 *     of a loaded image take (from the `.entry name(...)` declaration).
 *   - cuLaunchKernel reads every parameter through kernelParams, as the driver
 *     does at launch, and records the launch for mock_cuda_get_state().
 */
#ifndef GD_HAVE_CUDA
typedef int mock_libcuda_kernels_needs_cuda_headers;
#else

#define GD_MOCK_LIBCUDA_INTERNAL
#include "tests/mock_libcuda.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MOCK_MAX_JIT_OUTPUTS 64
#define MOCK_MAX_THREADS_PER_BLOCK 1024

struct CUlinkState_st {
    char *info_log, *error_log;
    unsigned info_capacity, error_capacity;
    void **info_size_slot, **error_size_slot; /* where filled sizes go back */
    int verbose;
    char *ptx;
    void *cubin;
    size_t cubin_bytes;
};

/* Every cubin this mock's JIT produced, with its PTX. */
typedef struct jit_output {
    void *cubin;
    size_t cubin_bytes;
    char *ptx;
} jit_output;

static jit_output jit_outputs[MOCK_MAX_JIT_OUTPUTS];
static size_t jit_output_next;

/* ---- JIT: cuLink* runs ptxas --------------------------------------------- */

CUresult CUDAAPI cuLinkCreate_v2(unsigned int numOptions, CUjit_option *options,
                                 void **optionValues, CUlinkState *stateOut)
{
    mock_cuda_state *records = mock_cuda_records();
    CUresult rc = mock_need_context();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!stateOut || (numOptions && (!options || !optionValues)))
        return CUDA_ERROR_INVALID_VALUE;
    struct CUlinkState_st *link = calloc(1, sizeof *link);
    if (!link)
        return CUDA_ERROR_OUT_OF_MEMORY;
    records->jit_target_from_context = 0;
    records->jit_ptxas_arch[0] = '\0';
    for (unsigned i = 0; i < numOptions; i++) {
        uintptr_t value = (uintptr_t)optionValues[i];
        switch (options[i]) {
        case CU_JIT_INFO_LOG_BUFFER: link->info_log = optionValues[i]; break;
        case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
            link->info_capacity = (unsigned)value;
            link->info_size_slot = &optionValues[i];
            break;
        case CU_JIT_ERROR_LOG_BUFFER: link->error_log = optionValues[i]; break;
        case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
            link->error_capacity = (unsigned)value;
            link->error_size_slot = &optionValues[i];
            break;
        case CU_JIT_LOG_VERBOSE: link->verbose = value != 0; break;
        case CU_JIT_TARGET_FROM_CUCONTEXT: records->jit_target_from_context = 1; break;
        default: free(link); return CUDA_ERROR_INVALID_VALUE;
        }
    }
    records->jit_info_log_given = link->info_log && link->info_capacity;
    records->jit_error_log_given = link->error_log && link->error_capacity;
    records->jit_verbose = link->verbose;
    records->live_links++;
    *stateOut = link;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLinkAddData_v2(CUlinkState link, CUjitInputType type, void *data, size_t size,
                                  const char *name, unsigned int numOptions, CUjit_option *options,
                                  void **optionValues)
{
    (void)name;
    (void)options;
    (void)optionValues;
    if (!link || !data || size == 0 || numOptions != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (type != CU_JIT_INPUT_PTX || link->ptx) /* one PTX input is all the mock links */
        return CUDA_ERROR_INVALID_VALUE;
    link->ptx = malloc(size + 1);
    if (!link->ptx)
        return CUDA_ERROR_OUT_OF_MEMORY;
    memcpy(link->ptx, data, size);
    link->ptx[size] = '\0';
    return CUDA_SUCCESS;
}

/* Copy a log into the caller's buffer and report the filled size back. */
static void deliver_log(const char *text, char *buffer, unsigned capacity, void **size_slot)
{
    if (!buffer || capacity == 0)
        return;
    size_t n = strlen(text);
    if (n >= capacity)
        n = capacity - 1;
    memcpy(buffer, text, n);
    buffer[n] = '\0';
    if (size_slot)
        *size_slot = (void *)(uintptr_t)(n + 1);
}

static const char *ptxas_path(void)
{
    static char path[1024];
    const char *env = getenv("PTXAS");
    if (env && access(env, X_OK) == 0)
        return env;
    const char *home = getenv("CUDA_HOME");
    snprintf(path, sizeof path, "%s/bin/ptxas", home && *home ? home : "/usr/local/cuda");
    if (access(path, X_OK) == 0)
        return path;
    return access("/usr/local/cuda/bin/ptxas", X_OK) == 0 ? "/usr/local/cuda/bin/ptxas" : NULL;
}

static int write_file(const char *path, const void *data, size_t bytes)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t written = fwrite(data, 1, bytes, f);
    return fclose(f) == 0 && written == bytes ? 0 : -1;
}

static void *read_file(const char *path, size_t *bytes)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *data = NULL;
    size_t size = 0, capacity = 0;
    for (;;) {
        if (size == capacity) {
            capacity = capacity ? capacity * 2 : 4096;
            unsigned char *grown = realloc(data, capacity + 1);
            if (!grown) {
                free(data);
                fclose(f);
                return NULL;
            }
            data = grown;
        }
        size_t n = fread(data + size, 1, capacity - size, f);
        size += n;
        if (n == 0)
            break;
    }
    fclose(f);
    data[size] = '\0'; /* logs are read as text */
    *bytes = size;
    return data;
}

/* Run ptxas on `ptx` for the mock device; on success *cubin is the output.
 * *log gets ptxas' combined stdout and stderr either way. */
static CUresult run_ptxas(const char *ptx, int verbose, void **cubin, size_t *cubin_bytes,
                          char **log)
{
    mock_cuda_state *records = mock_cuda_records();
    const char *ptxas = ptxas_path();
    *cubin = NULL;
    *log = NULL;
    if (!ptxas)
        return CUDA_ERROR_JIT_COMPILER_NOT_FOUND;

    char dir[] = "/tmp/gd-mockcuda-XXXXXX";
    if (!mkdtemp(dir))
        return CUDA_ERROR_OPERATING_SYSTEM;
    char ptx_path[64], cubin_path[64], log_path[64], arch[32];
    snprintf(ptx_path, sizeof ptx_path, "%s/in.ptx", dir);
    snprintf(cubin_path, sizeof cubin_path, "%s/out.cubin", dir);
    snprintf(log_path, sizeof log_path, "%s/ptxas.log", dir);
    int cc_major, cc_minor;
    mock_cc(&cc_major, &cc_minor);
    snprintf(records->jit_ptxas_arch, sizeof records->jit_ptxas_arch, "sm_%d%d", cc_major,
             cc_minor);
    snprintf(arch, sizeof arch, "-arch=%s", records->jit_ptxas_arch);

    CUresult rc = CUDA_ERROR_OPERATING_SYSTEM;
    posix_spawn_file_actions_t actions;
    int have_actions = 0;
    if (write_file(ptx_path, ptx, strlen(ptx)) != 0)
        goto done;
    if (posix_spawn_file_actions_init(&actions) != 0)
        goto done;
    have_actions = 1;
    if (posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_path,
                                         O_WRONLY | O_CREAT | O_TRUNC, 0600) != 0 ||
        posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO) != 0)
        goto done;
    char *argv[8];
    int argc = 0;
    argv[argc++] = (char *)ptxas;
    if (verbose)
        argv[argc++] = "-v";
    argv[argc++] = arch;
    argv[argc++] = "-o";
    argv[argc++] = cubin_path;
    argv[argc++] = ptx_path;
    argv[argc] = NULL;
    pid_t pid;
    if (posix_spawn(&pid, ptxas, &actions, NULL, argv, environ) != 0)
        goto done;
    int status = 0;
    if (waitpid(pid, &status, 0) != pid)
        goto done;
    size_t log_bytes = 0;
    *log = read_file(log_path, &log_bytes);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        rc = CUDA_ERROR_INVALID_PTX;
        goto done;
    }
    *cubin = read_file(cubin_path, cubin_bytes);
    rc = *cubin ? CUDA_SUCCESS : CUDA_ERROR_OPERATING_SYSTEM;

done:
    if (have_actions)
        posix_spawn_file_actions_destroy(&actions);
    unlink(ptx_path);
    unlink(cubin_path);
    unlink(log_path);
    rmdir(dir);
    return rc;
}

static void remember_jit_output(const void *cubin, size_t bytes, const char *ptx)
{
    jit_output *slot = &jit_outputs[jit_output_next++ % MOCK_MAX_JIT_OUTPUTS];
    free(slot->cubin);
    free(slot->ptx);
    slot->cubin = malloc(bytes);
    slot->ptx = strdup(ptx);
    slot->cubin_bytes = bytes;
    if (slot->cubin)
        memcpy(slot->cubin, cubin, bytes);
}

size_t mock_jit_output_count(void)
{
    return jit_output_next < MOCK_MAX_JIT_OUTPUTS ? jit_output_next : MOCK_MAX_JIT_OUTPUTS;
}

const unsigned char *mock_jit_output(size_t index, size_t *bytes, const char **ptx)
{
    const jit_output *slot = &jit_outputs[index % MOCK_MAX_JIT_OUTPUTS];
    *bytes = slot->cubin_bytes;
    *ptx = slot->ptx;
    return slot->cubin;
}

/* MOCK_CUDA_JIT_MOVE_ENV="A|B|C": the lines from the first holding A through
 * the next holding B go up to just before the last line holding C above them
 * (in place when any of the three is missing). */
static void move_lines(char *ptx, const char *spec)
{
    char a[256], b[256], c[256];
    if (sscanf(spec, "%255[^|]|%255[^|]|%255[^\n]", a, b, c) != 3)
        return;
    char *from = strstr(ptx, a);
    char *through = from ? strstr(from, b) : NULL;
    if (!through)
        return;
    while (from > ptx && from[-1] != '\n')
        from--;
    char *end = strchr(through, '\n');
    end = end ? end + 1 : through + strlen(through);
    char *to = NULL;
    for (char *hit = strstr(ptx, c); hit && hit < from; hit = strstr(hit + 1, c))
        to = hit;
    if (!to)
        return;
    while (to > ptx && to[-1] != '\n')
        to--;
    size_t block = (size_t)(end - from), gap = (size_t)(from - to);
    char *saved = malloc(block);
    if (!saved)
        return;
    memcpy(saved, from, block);
    memmove(to + block, to, gap);
    memcpy(to, saved, block);
    free(saved);
}

/* A JIT that compiles differently from the toolkit's ptxas: with
 * MOCK_CUDA_JIT_DROP_ENV set, the first PTX line containing its value is
 * left out before compiling (say, one FFMA of a block the driver merged away),
 * so the backend gets machine code that no longer means what the PTX did;
 * with MOCK_CUDA_JIT_MOVE_ENV, lines are moved (move_lines), so the machine
 * code issues them in another order than the PTX. */
static char *jit_input(const char *ptx)
{
    char *copy = strdup(ptx);
    const char *move = getenv(MOCK_CUDA_JIT_MOVE_ENV);
    if (copy && move && *move)
        move_lines(copy, move);
    const char *drop = getenv(MOCK_CUDA_JIT_DROP_ENV);
    if (!copy || !drop || !*drop)
        return copy;
    char *hit = strstr(copy, drop);
    if (!hit)
        return copy;
    char *line = hit;
    while (line > copy && line[-1] != '\n')
        line--;
    char *next = strchr(hit, '\n');
    if (next)
        memmove(line, next + 1, strlen(next + 1) + 1);
    else
        *line = '\0';
    return copy;
}

CUresult CUDAAPI cuLinkComplete(CUlinkState link, void **cubinOut, size_t *sizeOut)
{
    if (!link || !cubinOut || !sizeOut || !link->ptx)
        return CUDA_ERROR_INVALID_VALUE;
    char *log = NULL;
    free(link->cubin);
    link->cubin = NULL;
    char *ptx = jit_input(link->ptx);
    if (!ptx)
        return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult rc = run_ptxas(ptx, link->verbose, &link->cubin, &link->cubin_bytes, &log);
    free(ptx);
    if (rc == CUDA_SUCCESS) {
        deliver_log(log ? log : "", link->info_log, link->info_capacity, link->info_size_slot);
        remember_jit_output(link->cubin, link->cubin_bytes, link->ptx);
        *cubinOut = link->cubin;
        *sizeOut = link->cubin_bytes;
    } else {
        deliver_log(log ? log : "", link->error_log, link->error_capacity,
                    link->error_size_slot);
    }
    free(log);
    return rc;
}

CUresult CUDAAPI cuLinkDestroy(CUlinkState link)
{
    mock_cuda_state *records = mock_cuda_records();
    if (!link)
        return CUDA_ERROR_INVALID_HANDLE;
    free(link->ptx);
    free(link->cubin);
    free(link);
    records->live_links--;
    return CUDA_SUCCESS;
}

/* ---- launches ------------------------------------------------------------------ */

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                unsigned int gridDimZ, unsigned int blockDimX,
                                unsigned int blockDimY, unsigned int blockDimZ,
                                unsigned int sharedMemBytes, CUstream hStream,
                                void **kernelParams, void **extra)
{
    mock_cuda_state *records = mock_cuda_records();
    CUresult rc = mock_need_context();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!mock_function_is_live(f))
        return CUDA_ERROR_INVALID_HANDLE;
    if (!gridDimX || !gridDimY || !gridDimZ || !blockDimX || !blockDimY || !blockDimZ ||
        (unsigned long long)blockDimX * blockDimY * blockDimZ > MOCK_MAX_THREADS_PER_BLOCK)
        return CUDA_ERROR_INVALID_VALUE;
    if (sharedMemBytes > MOCK_CUDA_SHARED_PER_BLOCK_BYTES &&
        sharedMemBytes > (unsigned)f->max_dynamic_shared)
        return CUDA_ERROR_INVALID_VALUE;
    if (extra || (f->param_count && !kernelParams))
        return CUDA_ERROR_INVALID_VALUE;

    mock_cuda_launch *launch = &records->last_launch;
    memset(launch, 0, sizeof *launch);
    snprintf(launch->entry, sizeof launch->entry, "%s", f->name);
    launch->grid[0] = gridDimX, launch->grid[1] = gridDimY, launch->grid[2] = gridDimZ;
    launch->block[0] = blockDimX, launch->block[1] = blockDimY, launch->block[2] = blockDimZ;
    launch->shared_bytes = sharedMemBytes;
    launch->default_stream = hStream == NULL;
    size_t offset = 0;
    for (unsigned i = 0; i < f->param_count; i++) {
        if (offset + f->param_sizes[i] > MOCK_CUDA_MAX_PARAM_BYTES)
            return CUDA_ERROR_INVALID_VALUE;
        /* Reading through kernelParams[i] is what the driver does at launch. */
        memcpy(launch->param_bytes + offset, kernelParams[i], f->param_sizes[i]);
        launch->param_sizes[i] = f->param_sizes[i];
        launch->param_offsets[i] = offset;
        offset += f->param_sizes[i];
    }
    launch->param_count = f->param_count;
    records->launches++;
    return CUDA_SUCCESS;
}

#endif /* GD_HAVE_CUDA */
