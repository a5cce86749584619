/* msg_heap.h -- messages ordered by the cycle they are due.
 *
 * The memory path's queues are FIFOs (ring.h) because most of their traffic
 * keeps its order.  What does not -- responses held back by a TLB miss or a
 * far-partition hit, DRAM data whose timing depends on the bank's row -- waits
 * here, a binary min-heap on (due cycle, arrival), so equal cycles keep their
 * arrival order and runs repeat exactly.  Internal to sim/.
 */
#ifndef GD_SIM_MSG_HEAP_H
#define GD_SIM_MSG_HEAP_H

#include <stdint.h>
#include <stdlib.h>

typedef struct sim_heap_item {
    uint64_t due;
    uint64_t order; /* arrival: ties keep it */
    int32_t id;
} sim_heap_item;

typedef struct sim_msg_heap {
    sim_heap_item *items;
    uint32_t count, cap;
    uint64_t pushed;
} sim_msg_heap;

static inline int sim_heap_before(const sim_heap_item *a, const sim_heap_item *b)
{
    return a->due < b->due || (a->due == b->due && a->order < b->order);
}

/* 0, or -1 when the host is out of memory. */
static inline int sim_heap_push(sim_msg_heap *h, uint64_t due, int32_t id)
{
    if (h->count == h->cap) {
        uint32_t ncap = h->cap ? h->cap * 2 : 64;
        sim_heap_item *n = realloc(h->items, ncap * sizeof *n);
        if (!n)
            return -1;
        h->items = n;
        h->cap = ncap;
    }
    sim_heap_item it = {due, h->pushed++, id};
    uint32_t i = h->count++;
    while (i) {
        uint32_t parent = (i - 1) / 2;
        if (!sim_heap_before(&it, &h->items[parent]))
            break;
        h->items[i] = h->items[parent];
        i = parent;
    }
    h->items[i] = it;
    return 0;
}

static inline uint64_t sim_heap_next_due(const sim_msg_heap *h)
{
    return h->count ? h->items[0].due : UINT64_MAX;
}

static inline int32_t sim_heap_pop(sim_msg_heap *h)
{
    int32_t id = h->items[0].id;
    sim_heap_item last = h->items[--h->count];
    uint32_t i = 0;
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        const sim_heap_item *best = &last;
        if (l < h->count && sim_heap_before(&h->items[l], best)) {
            m = l;
            best = &h->items[l];
        }
        if (r < h->count && sim_heap_before(&h->items[r], best))
            m = r;
        if (m == i)
            break;
        h->items[i] = h->items[m];
        i = m;
    }
    if (h->count)
        h->items[i] = last;
    return id;
}

static inline void sim_heap_free(sim_msg_heap *h)
{
    free(h->items);
    h->items = NULL;
    h->count = h->cap = 0;
}

#endif
