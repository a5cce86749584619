/* devmem.c -- allocations of the simulated device's global memory.
 *
 * A bump allocator over a GPU-like virtual range: each allocation starts on a
 * 2 MiB boundary (as large cudaMalloc allocations do), bases only grow, so the
 * table stays sorted and translation is a binary search with a one-entry cache.
 * Freed ranges are not reused: the address space is far larger than any run.
 * Backing store is committed lazily by the host OS, so a large sparse
 * allocation costs only the pages a probe touches: a large one is an anonymous
 * mapping of its own, not calloc's -- glibc raises its mmap threshold to the
 * size of each mapped block freed (up to 32 MiB), after which calloc serves
 * such blocks from the heap and zeroes them with memset, touching every page:
 * a quarter of the full suite's page faults on sim:t4 (each point's eviction
 * buffer of twice the L2, its chain, its output) were those memsets.
 */
#include "sim/devmem.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define DEVMEM_BASE 0x7f0000000000ull   /* looks like a CUDA device pointer */
#define DEVMEM_ALIGN (2ull << 20)       /* 2 MiB, the large-page size of NVIDIA GPUs */
#define DEVMEM_MAP_MIN_BYTES (64u << 10) /* from here on a mapping of its own */

const uint8_t sim_devmem_zeros[SIM_DEVMEM_ZEROS_BYTES];

static void release(sim_alloc *a)
{
    if (a->mapped)
        munmap(a->data, a->size);
    else
        free(a->data);
}

void sim_devmem_init(sim_devmem *m, uint64_t limit_bytes)
{
    memset(m, 0, sizeof *m);
    m->next_base = DEVMEM_BASE;
    m->limit_bytes = limit_bytes;
}

void sim_devmem_destroy(sim_devmem *m)
{
    for (size_t i = 0; i < m->count; i++)
        release(&m->allocs[i]);
    free(m->allocs);
    memset(m, 0, sizeof *m);
}

int sim_devmem_alloc(sim_devmem *m, uint64_t bytes, uint64_t *addr, gd_err *err)
{
    if (bytes == 0)
        return gd_fail(err, "sim: cannot allocate 0 bytes");
    if (bytes > m->limit_bytes || m->used_bytes + bytes > m->limit_bytes)
        return gd_fail(err, "sim: out of device memory (%llu bytes requested, %llu of %llu in use)",
                       (unsigned long long)bytes, (unsigned long long)m->used_bytes,
                       (unsigned long long)m->limit_bytes);
    if (m->count == m->capacity) {
        size_t cap = m->capacity ? m->capacity * 2 : 16;
        sim_alloc *a = realloc(m->allocs, cap * sizeof *a);
        if (!a)
            return gd_fail(err, "sim: out of host memory");
        m->allocs = a;
        m->capacity = cap;
    }
    int mapped = bytes >= DEVMEM_MAP_MIN_BYTES;
    uint8_t *data = NULL;
    if (mapped) {
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        data = p == MAP_FAILED ? NULL : p;
    } else {
        data = calloc(1, bytes);
    }
    if (!data)
        return gd_fail(err, "sim: out of host memory for a %llu-byte allocation",
                       (unsigned long long)bytes);
    sim_alloc *a = &m->allocs[m->count++];
    a->base = m->next_base;
    a->size = bytes;
    a->data = data;
    a->mapped = mapped;
    a->pristine = 1;
    a->untouched = 1;
    m->next_base = (a->base + bytes + DEVMEM_ALIGN - 1) / DEVMEM_ALIGN * DEVMEM_ALIGN;
    m->used_bytes += bytes;
    *addr = a->base;
    return 0;
}

int sim_devmem_free(sim_devmem *m, uint64_t addr, gd_err *err)
{
    for (size_t i = 0; i < m->count; i++) {
        if (m->allocs[i].base == addr) {
            release(&m->allocs[i]);
            m->used_bytes -= m->allocs[i].size;
            memmove(&m->allocs[i], &m->allocs[i + 1], (m->count - i - 1) * sizeof m->allocs[0]);
            m->count--;
            m->last_hit = 0;
            return 0;
        }
    }
    return gd_fail(err, "sim: free of 0x%llx, which is not an allocation", (unsigned long long)addr);
}

/* A host buffer as large as a TLB's reach (gigabytes, from calloc) is mostly
 * pages nobody wrote, and so is a fresh allocation: copying them would commit
 * both on the host.  Blocks that are zero on both sides are skipped (reading an
 * untouched calloc page maps the shared zero page, committing nothing). */
#define SPARSE_BLOCK_BYTES 4096
sim_alloc *sim_devmem_find(sim_devmem *m, uint64_t addr, uint64_t bytes)
{
    uint8_t *p = sim_devmem_translate(m, addr, bytes);
    return p ? &m->allocs[m->last_hit] : NULL;
}

void sim_devmem_copy_sparse(sim_alloc *a, uint8_t *dst, const uint8_t *src, size_t bytes)
{
    static const uint8_t zero[SPARSE_BLOCK_BYTES];
    size_t off = 0;
    while (off < bytes) {
        size_t n = bytes - off < SPARSE_BLOCK_BYTES ? bytes - off : SPARSE_BLOCK_BYTES;
        if (memcmp(src + off, zero, n) ||
            (!a->pristine && !a->untouched && memcmp(dst + off, zero, n))) {
            memcpy(dst + off, src + off, n);
            a->untouched = 0;
        }
        off += n;
    }
    a->pristine = 0;
}

/* A zero fill writes only the blocks that are not zero already: the runner
 * zeroes every buffer a probe does not fill (an L2 eviction pass's is twice
 * the L2, 120 MiB on a 60 MiB one), and a fresh allocation is zero, so that
 * its pages stay the shared zero page -- nothing committed, and the probe's
 * reads of them hit one host page instead of missing in the host's caches.
 * A pristine allocation is not even read: reading maps the zero page, a page
 * fault per 4 KiB (a TLB probe's 12 GiB buffer: 3 M of them, 3 s a point). */
void sim_devmem_fill_sparse(sim_alloc *a, uint8_t *dst, uint8_t byte, size_t bytes)
{
    static const uint8_t zero[SPARSE_BLOCK_BYTES];
    if (byte) {
        memset(dst, byte, bytes);
        a->pristine = 0;
        a->untouched = 0;
        return;
    }
    if (a->pristine || a->untouched)
        return;
    size_t off = 0;
    while (off < bytes) {
        size_t n = bytes - off < SPARSE_BLOCK_BYTES ? bytes - off : SPARSE_BLOCK_BYTES;
        if (memcmp(dst + off, zero, n))
            memset(dst + off, 0, n);
        off += n;
    }
}

uint8_t *sim_devmem_host_view(sim_devmem *m, uint64_t addr, uint64_t bytes)
{
    sim_alloc *a = sim_devmem_find(m, addr, bytes);
    if (!a || !a->pristine || a->base != addr || a->size != bytes)
        return NULL;
    a->pristine = 0;
    a->untouched = 0;
    return a->data;
}

void sim_devmem_kernel_ran(sim_devmem *m)
{
    for (size_t i = 0; i < m->count; i++)
        m->allocs[i].pristine = 0;
}
