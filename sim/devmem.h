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
} sim_alloc;

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

/* memcpy that skips blocks zero in both source and destination, so a sparse
 * host buffer commits only the pages it uses. */
void sim_devmem_copy_sparse(uint8_t *dst, const uint8_t *src, size_t bytes);

/* memset that leaves blocks already zero untouched when the byte is 0, so a
 * fresh allocation zeroed by the runner commits no pages. */
void sim_devmem_fill_sparse(uint8_t *dst, uint8_t byte, size_t bytes);

#endif
