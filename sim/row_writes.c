/* row_writes.c -- per-row write counts of main memory (see row_writes.h). */
#include "sim/row_writes.h"

#include <stdlib.h>
#include <string.h>

void sim_row_writes_init(sim_row_writes *rw)
{
    memset(rw, 0, sizeof *rw);
}

void sim_row_writes_free(sim_row_writes *rw)
{
    free(rw->key);
    free(rw->count);
    sim_row_writes_init(rw);
}

static uint64_t slot_of(uint64_t key, uint64_t mask)
{
    /* splitmix64's finaliser: rows that differ in high bits spread too */
    uint64_t z = key;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (z ^ (z >> 31)) & mask;
}

static int grow(sim_row_writes *rw, gd_err *err)
{
    uint64_t ncap = rw->cap ? rw->cap * 2 : 1024;
    uint64_t *nk = calloc(ncap, sizeof *nk), *nc = calloc(ncap, sizeof *nc);
    if (!nk || !nc) {
        free(nk);
        free(nc);
        return gd_fail(err, "sim: out of memory (per-row write counts, %llu rows)",
                       (unsigned long long)rw->used);
    }
    for (uint64_t i = 0; i < rw->cap; i++) {
        if (!rw->key[i])
            continue;
        uint64_t s = slot_of(rw->key[i], ncap - 1);
        while (nk[s])
            s = (s + 1) & (ncap - 1);
        nk[s] = rw->key[i];
        nc[s] = rw->count[i];
    }
    free(rw->key);
    free(rw->count);
    rw->key = nk;
    rw->count = nc;
    rw->cap = ncap;
    return 0;
}

int sim_row_writes_add(sim_row_writes *rw, uint64_t row, gd_err *err)
{
    if ((rw->used + 1) * 2 > rw->cap && grow(rw, err) != 0)
        return -1;
    uint64_t key = row + 1, s = slot_of(key, rw->cap - 1);
    while (rw->key[s] && rw->key[s] != key)
        s = (s + 1) & (rw->cap - 1);
    if (!rw->key[s]) {
        rw->key[s] = key;
        rw->used++;
    }
    rw->count[s]++;
    rw->total++;
    return 0;
}

uint64_t sim_row_writes_get(const sim_row_writes *rw, uint64_t row)
{
    if (!rw->cap)
        return 0;
    uint64_t key = row + 1, s = slot_of(key, rw->cap - 1);
    while (rw->key[s]) {
        if (rw->key[s] == key)
            return rw->count[s];
        s = (s + 1) & (rw->cap - 1);
    }
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

int sim_row_writes_sorted(const sim_row_writes *rw, uint64_t **counts, uint64_t *n, gd_err *err)
{
    *counts = NULL;
    *n = 0;
    if (!rw->used)
        return 0;
    uint64_t *c = malloc(rw->used * sizeof *c);
    if (!c)
        return gd_fail(err, "sim: out of memory (sorting %llu row write counts)", (unsigned long long)rw->used);
    uint64_t k = 0;
    for (uint64_t i = 0; i < rw->cap; i++)
        if (rw->key[i])
            c[k++] = rw->count[i];
    qsort(c, k, sizeof *c, cmp_u64);
    *counts = c;
    *n = k;
    return 0;
}
