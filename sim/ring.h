/* ring.h -- queues of pool indices, the plumbing of the simulated memory path.
 *
 * Every queue of the load/store path (the L1 request FIFO, the miss queue, the
 * return queue, the L2 input, the DRAM queue) holds int32 indices into the
 * engine's request and message pools.  A ring has a power-of-two capacity so
 * that wrapping is a mask; a ring with a `limit` models a hardware queue of that
 * many entries (ring_full), one without grows on demand (an unbounded network
 * or a latency pipe).
 */
#ifndef GD_SIM_RING_H
#define GD_SIM_RING_H

#include <stdint.h>
#include <stdlib.h>

typedef struct ring {
    int32_t *buf;
    uint32_t mask;  /* capacity - 1; the capacity is a power of two */
    uint32_t head, count;
    uint32_t limit; /* 0: grows without bound */
} ring;

static inline int ring_init(ring *r, uint32_t limit)
{
    uint32_t cap = 64;
    if (limit > (1u << 24)) /* the doubling below would wrap to 0 and never end */
        return -1;
    while (cap < limit)
        cap *= 2;
    r->buf = malloc(cap * sizeof *r->buf);
    r->mask = cap - 1;
    r->head = r->count = 0;
    r->limit = limit;
    return r->buf ? 0 : -1;
}

static inline void ring_free(ring *r)
{
    free(r->buf);
    r->buf = NULL;
}

static inline int ring_full(const ring *r)
{
    return r->limit && r->count >= r->limit;
}

static inline uint32_t ring_space(const ring *r)
{
    return r->limit ? r->limit - r->count : UINT32_MAX;
}

static inline int ring_grow(ring *r)
{
    uint32_t cap = r->mask + 1, ncap = cap * 2;
    int32_t *nb = malloc(ncap * sizeof *nb);
    if (!nb)
        return -1;
    for (uint32_t i = 0; i < r->count; i++)
        nb[i] = r->buf[(r->head + i) & r->mask];
    free(r->buf);
    r->buf = nb;
    r->mask = ncap - 1;
    r->head = 0;
    return 0;
}

static inline int ring_push(ring *r, int32_t v)
{
    if (r->count > r->mask && ring_grow(r) != 0)
        return -1;
    r->buf[(r->head + r->count) & r->mask] = v;
    r->count++;
    return 0;
}

static inline int32_t ring_peek(const ring *r)
{
    return r->buf[r->head];
}

/* The i-th entry from the head (i < count). */
static inline int32_t ring_at(const ring *r, uint32_t i)
{
    return r->buf[(r->head + i) & r->mask];
}

static inline int32_t ring_pop(ring *r)
{
    int32_t v = r->buf[r->head];
    r->head = (r->head + 1) & r->mask;
    r->count--;
    return v;
}

#endif
