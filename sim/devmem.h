/* devmem.h -- the simulated device's global memory: allocations and address
 * translation.  Addresses look like a GPU's (large, 2 MiB aligned) so that probes
 * see realistic pointers, and every access is bounds-checked. */
#ifndef GD_SIM_DEVMEM_H
#define GD_SIM_DEVMEM_H

#include <stddef.h>
#include <stdint.h>

#include "host/device.h"

typedef struct sim_alloc {
    uint64_t base;
    uint64_t size;
    uint8_t *data;
    int mapped;             /* data is a mapping of its own (munmap), else calloc's */
    int pristine;           /* 1: zero as allocated -- no kernel has run since and
                             * nothing was written into it (a zero fill keeps it) */
    int untouched;          /* 1: no byte of it was ever written (by a kernel's
                             * store, a copy, a fill of a byte other than 0, a host
                             * view): a kernel's load reads zeros without reading
                             * its pages (sim_devmem_zeros) */
} sim_alloc;

/* What a load of an untouched allocation reads (the widest access, a .v4 of
 * 8-byte elements, and more): a host page per 4 KiB of such an allocation
 * would be mapped, a fault each -- an L2 eviction pass reads twice the L2,
 * 30 000 faults a point on a 60 MiB L2. */
#define SIM_DEVMEM_ZEROS_BYTES 64
extern const uint8_t sim_devmem_zeros[SIM_DEVMEM_ZEROS_BYTES];

typedef struct sim_devmem {
    sim_alloc *allocs;      /* sorted by base (bases only grow) */
    size_t count, capacity;
    uint64_t next_base;
    uint64_t used_bytes;
    uint64_t limit_bytes;
    size_t last_hit;
} sim_devmem;

void sim_devmem_init(sim_devmem *m, uint64_t limit_bytes);
void sim_devmem_destroy(sim_devmem *m);
int sim_devmem_alloc(sim_devmem *m, uint64_t bytes, uint64_t *addr, gd_err *err);
int sim_devmem_free(sim_devmem *m, uint64_t addr, gd_err *err);

/* Host pointer for [addr, addr+bytes) if it lies inside one allocation, else NULL. */
static inline uint8_t *sim_devmem_translate(sim_devmem *m, uint64_t addr, uint64_t bytes)
{
    if (m->count) {
        sim_alloc *a = &m->allocs[m->last_hit];
        if (addr >= a->base && addr - a->base <= a->size && bytes <= a->size - (addr - a->base))
            return a->data + (addr - a->base);
    }
    size_t lo = 0, hi = m->count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->allocs[mid].base + m->allocs[mid].size <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < m->count) {
        sim_alloc *a = &m->allocs[lo];
        /* no `addr + bytes`: it wraps for an address near 2^64 */
        if (addr >= a->base && addr - a->base <= a->size && bytes <= a->size - (addr - a->base)) {
            m->last_hit = lo;
            return a->data + (addr - a->base);
        }
    }
    return NULL;
}

/* The allocation holding [addr, addr+bytes), or NULL. */
sim_alloc *sim_devmem_find(sim_devmem *m, uint64_t addr, uint64_t bytes);

/* memcpy into an allocation that skips blocks zero in both source and
 * destination (the destination's without reading it when the allocation is
 * pristine), so a sparse host buffer commits only the pages it uses. */
void sim_devmem_copy_sparse(sim_alloc *a, uint8_t *dst, const uint8_t *src, size_t bytes);

/* memset that leaves blocks already zero untouched when the byte is 0 (a
 * pristine allocation without reading it), so a fresh allocation zeroed by
 * the runner commits no pages. */
void sim_devmem_fill_sparse(sim_alloc *a, uint8_t *dst, uint8_t byte, size_t bytes);

/* The host memory of a whole pristine allocation at addr, to be written in
 * place of a host buffer and a copy (which would read every page of both);
 * NULL when the allocation is not pristine or [addr, addr+bytes) is not all
 * of it.  The allocation is no longer pristine. */
uint8_t *sim_devmem_host_view(sim_devmem *m, uint64_t addr, uint64_t bytes);

/* A kernel may have written anywhere: no allocation is pristine. */
void sim_devmem_kernel_ran(sim_devmem *m);

#endif
