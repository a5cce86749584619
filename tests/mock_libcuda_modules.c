/* mock_libcuda_modules.c -- the fake driver's modules, functions and module variables.
 *
 * Part of libmockcuda.so (see tests/mock_libcuda.c for the whole idea).  Here:
 *
 *   - cuModuleLoadData takes an ELF image, as the driver does, and keeps a copy
 *     of it for mock_cuda_last_image(), so a test sees the exact bytes the
 *     backend loaded -- a cubin whose FFMA block was patched into NOPs, say.
 *   - An image is matched with the cubin the mock's JIT made it from even when
 *     its code sections (.text.*) were rewritten: everything else must be the
 *     same bytes.  From that cubin's PTX, cuModuleGetFunction learns what
 *     parameters a kernel takes (`.entry name(...)`).
 *   - Module variables come from the image's ELF symbol table, as the driver
 *     finds them: every STT_OBJECT with a size (a `.const` array is a local
 *     symbol in .nv.constant3) gets "device memory" of that size, filled from
 *     its section; cuModuleGetGlobal_v2 returns it, and since it sits in the
 *     allocation table, cuMemcpyHtoD_v2 past its end fails as on a card.
 *
 * The mock reads images that the backend has already checked with
 * kernels/cubin_elf.c, but still bounds-checks every header it follows.
 */
#ifndef GD_HAVE_CUDA
typedef int mock_libcuda_modules_needs_cuda_headers;
#else

#define GD_MOCK_LIBCUDA_INTERNAL
#include "tests/mock_libcuda.h"

#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MOCK_MAX_MODULES 64
#define MOCK_MAX_MODULE_VARIABLES 32

typedef struct module_variable {
    char name[MOCK_CUDA_ENTRY_BYTES];
    unsigned char *host; /* mock_map_module_variable */
    size_t bytes;
} module_variable;

struct CUmod_st {
    char *ptx; /* the PTX the image was compiled from, or NULL if unknown */
    struct CUfunc_st *functions;
    module_variable variables[MOCK_MAX_MODULE_VARIABLES];
    size_t variable_count;
    unsigned long load_sequence; /* later loads have larger numbers */
};

static struct CUmod_st *modules[MOCK_MAX_MODULES];
static unsigned long load_sequence;
static unsigned char *last_image;
static size_t last_image_bytes;

const void *mock_cuda_last_image(size_t *bytes);
const void *mock_cuda_global(const char *name, size_t *bytes);

/* ---- images ------------------------------------------------------------------- */

/* Bytes an ELF image spans, from its headers (cuModuleLoadData gets no size). */
static size_t elf_extent(const unsigned char *image)
{
    Elf64_Ehdr ehdr;
    memcpy(&ehdr, image, sizeof ehdr);
    size_t end = ehdr.e_shoff + (size_t)ehdr.e_shnum * ehdr.e_shentsize;
    size_t program_end = ehdr.e_phoff + (size_t)ehdr.e_phnum * ehdr.e_phentsize;
    if (program_end > end)
        end = program_end;
    for (unsigned i = 0; i < ehdr.e_shnum; i++) {
        Elf64_Shdr shdr;
        memcpy(&shdr, image + ehdr.e_shoff + (size_t)i * ehdr.e_shentsize, sizeof shdr);
        if (shdr.sh_type != SHT_NOBITS && shdr.sh_offset + shdr.sh_size > end)
            end = shdr.sh_offset + shdr.sh_size;
    }
    return end;
}

/* ---- ELF, read with bounds checks ---------------------------------------------- */

typedef struct image_view {
    const unsigned char *bytes;
    size_t size;
    Elf64_Ehdr ehdr;
} image_view;

static int range_inside(uint64_t offset, uint64_t length, size_t size)
{
    return offset <= size && length <= size - offset;
}

static int view_image(const unsigned char *bytes, size_t size, image_view *view)
{
    view->bytes = bytes;
    view->size = size;
    if (size < sizeof view->ehdr)
        return -1;
    memcpy(&view->ehdr, bytes, sizeof view->ehdr);
    if (view->ehdr.e_shentsize != sizeof(Elf64_Shdr) ||
        !range_inside(view->ehdr.e_shoff, (uint64_t)view->ehdr.e_shnum * sizeof(Elf64_Shdr), size))
        return -1;
    return 0;
}

static void section_header(const image_view *view, unsigned index, Elf64_Shdr *shdr)
{
    memcpy(shdr, view->bytes + view->ehdr.e_shoff + (uint64_t)index * sizeof *shdr, sizeof *shdr);
}

/* A copy of the image with the bytes of every code section zeroed. */
static unsigned char *copy_without_code(const image_view *view)
{
    unsigned char *copy = malloc(view->size);
    if (!copy)
        return NULL;
    memcpy(copy, view->bytes, view->size);
    for (unsigned i = 0; i < view->ehdr.e_shnum; i++) {
        Elf64_Shdr shdr;
        section_header(view, i, &shdr);
        if ((shdr.sh_flags & SHF_EXECINSTR) && shdr.sh_type != SHT_NOBITS &&
            range_inside(shdr.sh_offset, shdr.sh_size, view->size))
            memset(copy + shdr.sh_offset, 0, shdr.sh_size);
    }
    return copy;
}

/* The PTX of the JIT output this image is, or was before its code was changed. */
static const char *find_jit_source(const image_view *view, int *code_changed)
{
    mock_cuda_state *records = mock_cuda_records();
    const char *found = NULL;
    unsigned char *image_data = NULL;
    *code_changed = 0;
    for (size_t i = 0; i < mock_jit_output_count() && !found; i++) {
        size_t bytes = 0;
        const char *ptx = NULL;
        const unsigned char *cubin = mock_jit_output(i, &bytes, &ptx);
        if (!cubin || bytes != view->size)
            continue;
        if (memcmp(cubin, view->bytes, bytes) == 0) {
            found = ptx;
            break;
        }
        image_view jit;
        if (view_image(cubin, bytes, &jit) != 0)
            continue;
        if (!image_data && !(image_data = copy_without_code(view)))
            break;
        unsigned char *jit_data = copy_without_code(&jit);
        if (jit_data && memcmp(jit_data, image_data, bytes) == 0) {
            found = ptx;
            *code_changed = 1;
        }
        free(jit_data);
    }
    free(image_data);
    records->last_image_from_jit = found != NULL;
    records->last_image_code_changed = *code_changed;
    return found;
}

/* Every sized STT_OBJECT of the symbol table becomes a module variable. */
static CUresult map_variables(struct CUmod_st *module, const image_view *view)
{
    for (unsigned s = 0; s < view->ehdr.e_shnum; s++) {
        Elf64_Shdr symtab, strtab;
        section_header(view, s, &symtab);
        if (symtab.sh_type != SHT_SYMTAB || symtab.sh_link >= view->ehdr.e_shnum ||
            !range_inside(symtab.sh_offset, symtab.sh_size, view->size))
            continue;
        section_header(view, symtab.sh_link, &strtab);
        if (!range_inside(strtab.sh_offset, strtab.sh_size, view->size))
            continue;
        for (uint64_t at = 0; at + sizeof(Elf64_Sym) <= symtab.sh_size; at += sizeof(Elf64_Sym)) {
            Elf64_Sym sym;
            memcpy(&sym, view->bytes + symtab.sh_offset + at, sizeof sym);
            if (ELF64_ST_TYPE(sym.st_info) != STT_OBJECT || sym.st_size == 0 ||
                sym.st_shndx >= view->ehdr.e_shnum || sym.st_name >= strtab.sh_size)
                continue;
            const char *name = (const char *)view->bytes + strtab.sh_offset + sym.st_name;
            size_t name_room = strtab.sh_size - sym.st_name;
            size_t name_len = strnlen(name, name_room);
            if (name_len == name_room || name_len >= MOCK_CUDA_ENTRY_BYTES)
                continue;
            if (module->variable_count == MOCK_MAX_MODULE_VARIABLES)
                return CUDA_ERROR_OUT_OF_MEMORY;
            module_variable *v = &module->variables[module->variable_count];
            CUresult rc = mock_map_module_variable(sym.st_size, &v->host);
            if (rc != CUDA_SUCCESS)
                return rc;
            module->variable_count++;
            memcpy(v->name, name, name_len + 1);
            v->bytes = sym.st_size;
            Elf64_Shdr data;
            section_header(view, sym.st_shndx, &data);
            if (data.sh_type != SHT_NOBITS &&
                range_inside(sym.st_value, sym.st_size, data.sh_size) &&
                range_inside(data.sh_offset + sym.st_value, sym.st_size, view->size))
                memcpy(v->host, view->bytes + data.sh_offset + sym.st_value, sym.st_size);
        }
    }
    return CUDA_SUCCESS;
}

/* ---- modules and functions -------------------------------------------------- */

static void free_module(struct CUmod_st *module)
{
    while (module->functions) {
        struct CUfunc_st *next = module->functions->next;
        free(module->functions);
        module->functions = next;
    }
    for (size_t i = 0; i < module->variable_count; i++)
        mock_unmap_module_variable(module->variables[i].host);
    free(module->ptx);
    free(module);
}

static void keep_last_image(const image_view *view)
{
    unsigned char *copy = malloc(view->size);
    if (!copy)
        return;
    memcpy(copy, view->bytes, view->size);
    free(last_image);
    last_image = copy;
    last_image_bytes = view->size;
}

const void *mock_cuda_last_image(size_t *bytes)
{
    *bytes = last_image ? last_image_bytes : 0;
    return last_image;
}

CUresult CUDAAPI cuModuleLoadData(CUmodule *module, const void *image)
{
    mock_cuda_state *records = mock_cuda_records();
    CUresult rc = mock_need_context();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!module || !image)
        return CUDA_ERROR_INVALID_VALUE;
    const unsigned char *bytes = image;
    if (memcmp(bytes, ELFMAG, SELFMAG) != 0 || bytes[EI_CLASS] != ELFCLASS64)
        return CUDA_ERROR_INVALID_IMAGE;
    image_view view;
    if (view_image(bytes, elf_extent(bytes), &view) != 0)
        return CUDA_ERROR_INVALID_IMAGE;
    size_t slot = 0;
    while (slot < MOCK_MAX_MODULES && modules[slot])
        slot++;
    if (slot == MOCK_MAX_MODULES)
        return CUDA_ERROR_OUT_OF_MEMORY;
    struct CUmod_st *loaded = calloc(1, sizeof *loaded);
    if (!loaded)
        return CUDA_ERROR_OUT_OF_MEMORY;
    int code_changed = 0;
    const char *ptx = find_jit_source(&view, &code_changed);
    loaded->ptx = ptx ? strdup(ptx) : NULL;
    rc = map_variables(loaded, &view);
    if (rc != CUDA_SUCCESS) {
        free_module(loaded);
        return rc;
    }
    loaded->load_sequence = ++load_sequence;
    modules[slot] = loaded;
    keep_last_image(&view);
    records->live_modules++;
    records->module_loads++;
    *module = loaded;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleUnload(CUmodule hmod)
{
    mock_cuda_state *records = mock_cuda_records();
    for (size_t i = 0; i < MOCK_MAX_MODULES; i++) {
        if (!hmod || modules[i] != hmod)
            continue;
        free_module(hmod);
        modules[i] = NULL;
        records->live_modules--;
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_INVALID_HANDLE;
}

static int module_is_live(CUmodule hmod)
{
    for (size_t i = 0; i < MOCK_MAX_MODULES; i++)
        if (hmod && modules[i] == hmod)
            return 1;
    return 0;
}

CUresult CUDAAPI cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod,
                                      const char *name)
{
    mock_cuda_state *records = mock_cuda_records();
    CUresult rc = mock_need_context();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!name)
        return CUDA_ERROR_INVALID_VALUE;
    if (!module_is_live(hmod))
        return CUDA_ERROR_INVALID_HANDLE;
    records->global_lookups++;
    snprintf(records->last_global_name, sizeof records->last_global_name, "%s", name);
    for (size_t i = 0; i < hmod->variable_count; i++) {
        if (strcmp(hmod->variables[i].name, name) != 0)
            continue;
        /* Either output may be NULL, as the driver allows. */
        if (dptr)
            *dptr = (CUdeviceptr)(uintptr_t)hmod->variables[i].host;
        if (bytes)
            *bytes = hmod->variables[i].bytes;
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_NOT_FOUND;
}

const void *mock_cuda_global(const char *name, size_t *bytes)
{
    const module_variable *best = NULL;
    unsigned long best_sequence = 0;
    for (size_t m = 0; m < MOCK_MAX_MODULES; m++) {
        if (!modules[m] || modules[m]->load_sequence < best_sequence)
            continue;
        for (size_t i = 0; i < modules[m]->variable_count; i++)
            if (strcmp(modules[m]->variables[i].name, name) == 0) {
                best = &modules[m]->variables[i];
                best_sequence = modules[m]->load_sequence;
            }
    }
    *bytes = best ? best->bytes : 0;
    return best ? best->host : NULL;
}

static const char *skip_space(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

static int is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '$' || c == '%' || c == '.';
}

/* Parameter sizes of `.entry name(...)` in the PTX: each `.param` is sized from
 * its type suffix (.u64 -> 8) times an optional [N]; .align/.ptr/state-space
 * qualifiers are skipped.  Returns 0, or -1 if there is no such entry. */
static int parse_entry_params(const char *ptx, const char *name, struct CUfunc_st *fn)
{
    size_t name_len = strlen(name);
    for (const char *p = strstr(ptx, ".entry"); p; p = strstr(p + 1, ".entry")) {
        const char *q = skip_space(p + strlen(".entry"));
        if (strncmp(q, name, name_len) != 0 || is_name_char(q[name_len]))
            continue;
        q = skip_space(q + name_len);
        fn->param_count = 0;
        if (*q != '(')
            return 0;
        q++;
        size_t bytes = 0;
        while (*q && *q != ')') {
            q = skip_space(q);
            if (*q == ',' || *q == ')') {
                if (bytes) {
                    if (fn->param_count == MOCK_CUDA_MAX_PARAMS)
                        return -1;
                    fn->param_sizes[fn->param_count++] = bytes;
                    bytes = 0;
                }
                if (*q == ',')
                    q++;
                continue;
            }
            const char *token = q;
            while (is_name_char(*q))
                q++;
            size_t len = (size_t)(q - token);
            if (len >= 3 && token[0] == '.' && strchr("usbf", token[1]) &&
                strspn(token + 2, "0123456789") == len - 2)
                bytes = (size_t)atoi(token + 2) / 8;
            if (*q == '[') {
                bytes *= (size_t)atoi(q + 1);
                q = strchr(q, ']');
                if (!q)
                    return -1;
                q++;
            } else if (len == 0) {
                q++; /* a character that is no part of a token */
            }
        }
        if (bytes && fn->param_count < MOCK_CUDA_MAX_PARAMS)
            fn->param_sizes[fn->param_count++] = bytes;
        return 0;
    }
    return -1;
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    if (!hfunc || !hmod || !name || strlen(name) >= MOCK_CUDA_ENTRY_BYTES)
        return CUDA_ERROR_INVALID_VALUE;
    for (struct CUfunc_st *fn = hmod->functions; fn; fn = fn->next)
        if (strcmp(fn->name, name) == 0) {
            *hfunc = fn;
            return CUDA_SUCCESS;
        }
    struct CUfunc_st *fn = calloc(1, sizeof *fn);
    if (!fn)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (!hmod->ptx || parse_entry_params(hmod->ptx, name, fn) != 0) {
        free(fn);
        return CUDA_ERROR_NOT_FOUND;
    }
    snprintf(fn->name, sizeof fn->name, "%s", name);
    mock_function_attributes_init(fn, hmod->ptx);
    fn->next = hmod->functions;
    hmod->functions = fn;
    *hfunc = fn;
    return CUDA_SUCCESS;
}

int mock_function_is_live(CUfunction f)
{
    for (size_t i = 0; i < MOCK_MAX_MODULES; i++)
        if (modules[i])
            for (struct CUfunc_st *fn = modules[i]->functions; fn; fn = fn->next)
                if (fn == f)
                    return 1;
    return 0;
}

CUresult CUDAAPI cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value)
{
    mock_cuda_state *records = mock_cuda_records();
    CUresult rc = mock_need_context();
    if (rc != CUDA_SUCCESS)
        return rc;
    if (!mock_function_is_live(hfunc))
        return CUDA_ERROR_INVALID_HANDLE;
    if (attrib == CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT)
        return mock_set_carveout(hfunc, value);
    if (attrib != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES || value < 0 ||
        value > MOCK_CUDA_SHARED_PER_BLOCK_OPTIN_BYTES)
        return CUDA_ERROR_INVALID_VALUE;
    hfunc->max_dynamic_shared = value;
    records->max_dynamic_shared_set = value;
    return CUDA_SUCCESS;
}

#endif /* GD_HAVE_CUDA */
