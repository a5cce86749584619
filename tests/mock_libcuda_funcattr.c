/* mock_libcuda_funcattr.c -- the fake driver's function attributes.
 *
 * Part of libmockcuda.so (see tests/mock_libcuda.c).  The backend sets the
 * preferred L1/shared carve-out on every kernel it loads and reads back what
 * the kernel asks of an SM; here the mock keeps the carve-out per function
 * (recording every set, for tests to assert), and answers cuFuncGetAttribute
 * for the carve-out, the static shared memory (the sum of the `.shared`
 * arrays the entry's PTX declares, which is what ptxas allocates for the
 * probes' plain byte arrays), the registers (MOCK_CUDA_REGISTERS_PER_THREAD:
 * a fixed answer, so a test can tell the backend passed the driver's value on)
 * and local memory (none).
 */
#ifndef GD_HAVE_CUDA
typedef int mock_libcuda_funcattr_needs_cuda_headers;
#else

#define GD_MOCK_LIBCUDA_INTERNAL
#include "tests/mock_libcuda.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sum of `.shared ... name[N];` declarations between the entry's braces. */
static int entry_static_shared(const char *ptx, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = strstr(ptx, ".entry"); p; p = strstr(p + 1, ".entry")) {
        const char *q = p + strlen(".entry");
        while (*q == ' ' || *q == '\t')
            q++;
        if (strncmp(q, name, len) != 0 || (q[len] != '(' && q[len] != ' ' && q[len] != '\n'))
            continue;
        const char *body = strchr(q, '{');
        if (!body)
            return 0;
        int depth = 0, total = 0;
        for (const char *c = body; *c; c++) {
            if (*c == '{')
                depth++;
            else if (*c == '}' && --depth == 0)
                break;
            else if (!strncmp(c, ".shared", 7) && strncmp(c, ".shared.", 8)) {
                const char *open = strchr(c, '['), *semi = strchr(c, ';');
                if (open && semi && open < semi)
                    total += atoi(open + 1);
            }
        }
        return total;
    }
    return 0;
}

void mock_function_attributes_init(struct CUfunc_st *fn, const char *ptx)
{
    fn->carveout = -1;
    fn->static_shared_bytes = ptx ? entry_static_shared(ptx, fn->name) : 0;
}

CUresult mock_set_carveout(struct CUfunc_st *fn, int value)
{
    if (value < -1 || value > 100)
        return CUDA_ERROR_INVALID_VALUE;
    mock_cuda_state *records = mock_cuda_records();
    fn->carveout = value;
    records->carveout_sets++;
    records->last_carveout = value;
    snprintf(records->last_carveout_entry, sizeof records->last_carveout_entry, "%s", fn->name);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc)
{
    CUresult rc = mock_need_context();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!pi)
        return CUDA_ERROR_INVALID_VALUE;
    if (!mock_function_is_live(hfunc))
        return CUDA_ERROR_INVALID_HANDLE;
    mock_cuda_records()->function_attribute_gets++;
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: *pi = hfunc->carveout; break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *pi = hfunc->static_shared_bytes; break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *pi = MOCK_CUDA_REGISTERS_PER_THREAD; break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *pi = 0; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *pi = hfunc->max_dynamic_shared; break;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

#endif /* GD_HAVE_CUDA */
