/* pcm_wbuf.c -- the PCM write buffer's manager: the active and inactive lists
 * of seed 003 (section 4.1, Figure 3) and what each access does to them.  The
 * rules and the choices the paper leaves open are listed in pcm_wbuf.h.
 */
#include "sim/pcm_wbuf.h"

#include <stdlib.h>
#include <string.h>

int sim_wbuf_init(sim_wbuf *wb, uint32_t rows, uint32_t active_rows, gd_err *err)
{
    memset(wb, 0, sizeof *wb);
    if (rows < 2)
        return gd_fail(err, "sim: write buffer of %u rows: needs at least 2 (an active and an inactive list)",
                       rows);
    if (active_rows == 0)
        active_rows = (rows + 1) / 2;
    if (active_rows >= rows)
        return gd_fail(err, "sim: write buffer active list of %u rows leaves no inactive row (buffer: %u rows)",
                       active_rows, rows);
    wb->rows = rows;
    wb->active_cap = active_rows;
    wb->inactive_cap = rows - active_rows;
    wb->active = calloc(wb->active_cap, sizeof *wb->active);
    wb->inactive = calloc(wb->inactive_cap, sizeof *wb->inactive);
    if (!wb->active || !wb->inactive) {
        sim_wbuf_free(wb);
        return gd_fail(err, "sim: out of memory (write buffer of %u rows)", rows);
    }
    return 0;
}

void sim_wbuf_free(sim_wbuf *wb)
{
    free(wb->active);
    free(wb->inactive);
    wb->active = wb->inactive = NULL;
}

static void emit(sim_wbuf *wb, sim_wbuf_op op, uint64_t row, int from_active, uint32_t from, uint32_t to,
                 int dirty)
{
    if (!wb->trace)
        return;
    sim_wbuf_event ev = {.seq = wb->seq, .op = op, .row = row, .from_active = from_active,
                         .from = from, .to = to, .dirty = dirty};
    wb->trace(wb->trace_user, &ev);
}

static int find(const sim_wbuf_row *list, uint32_t n, uint64_t row)
{
    for (uint32_t i = 0; i < n; i++)
        if (list[i].row == row)
            return (int)i;
    return -1;
}

/* The active tail leaves for the inactive head; the inactive rows at positions
 * [0, upto) shift one place right (upto = n_inactive when the list grows or
 * its tail has just been evicted, the promoted row's old slot otherwise). */
static void demote_active_tail(sim_wbuf *wb, uint32_t upto)
{
    memmove(&wb->inactive[1], &wb->inactive[0], upto * sizeof *wb->inactive);
    wb->inactive[0] = wb->active[wb->n_active - 1];
}

sim_wbuf_result sim_wbuf_access(sim_wbuf *wb, uint64_t row, int is_write)
{
    return sim_wbuf_access_mask(wb, row, is_write, 0);
}

sim_wbuf_result sim_wbuf_access_mask(sim_wbuf *wb, uint64_t row, int is_write, uint32_t mask)
{
    sim_wbuf_result r = {0};
    int i = find(wb->active, wb->n_active, row);
    if (i >= 0) {
        r.hit = 1;
        if (!is_write) {
            wb->c.read_hits++;
            emit(wb, SIM_WBUF_HIT_READ, row, 1, (uint32_t)i, (uint32_t)i, 0);
        } else {
            wb->c.write_hits++;
            sim_wbuf_row me = wb->active[i];
            me.dirty = 1;
            me.mask |= mask;
            uint32_t to = i > 0 ? (uint32_t)i - 1 : 0;
            wb->active[i] = wb->active[to];
            wb->active[to] = me;
            emit(wb, SIM_WBUF_HIT_WRITE_ACTIVE, row, 1, (uint32_t)i, to, 0);
        }
        wb->seq++;
        return r;
    }
    int j = find(wb->inactive, wb->n_inactive, row);
    if (j >= 0) {
        r.hit = 1;
        if (!is_write) {
            wb->c.read_hits++;
            emit(wb, SIM_WBUF_HIT_READ, row, 0, (uint32_t)j, (uint32_t)j, 0);
        } else {
            /* rows are in the inactive list only once the active one is full */
            wb->c.write_hits++;
            wb->c.promotions++;
            sim_wbuf_row me = wb->inactive[j];
            me.dirty = 1;
            me.mask |= mask;
            demote_active_tail(wb, (uint32_t)j);
            wb->active[wb->n_active - 1] = me;
            emit(wb, SIM_WBUF_HIT_WRITE_INACTIVE, row, 0, (uint32_t)j, wb->n_active - 1, 0);
        }
        wb->seq++;
        return r;
    }

    /* a miss: the row comes in from PCM */
    if (is_write)
        wb->c.write_misses++;
    else
        wb->c.read_misses++;
    if (wb->n_active + wb->n_inactive == wb->rows) {
        sim_wbuf_row victim = wb->inactive[wb->n_inactive - 1];
        wb->n_inactive--;
        r.evicted = 1;
        r.evicted_row = victim.row;
        r.evicted_dirty = victim.dirty;
        r.evicted_mask = victim.mask;
        wb->c.evictions++;
        if (victim.dirty)
            wb->c.dirty_evictions++;
        emit(wb, SIM_WBUF_EVICT, victim.row, 0, wb->n_inactive, wb->n_inactive, victim.dirty);
    }
    sim_wbuf_row me = {.row = row, .dirty = (uint8_t)(is_write != 0), .mask = is_write ? mask : 0};
    if (wb->n_active < wb->active_cap) {
        wb->active[wb->n_active++] = me;
    } else {
        demote_active_tail(wb, wb->n_inactive);
        wb->n_inactive++;
        wb->active[wb->n_active - 1] = me;
    }
    emit(wb, SIM_WBUF_MISS, row, 1, wb->n_active - 1, wb->n_active - 1, 0);
    wb->seq++;
    return r;
}

uint64_t sim_wbuf_writes_avoided(const sim_wbuf *wb)
{
    uint64_t writes = wb->c.write_hits + wb->c.write_misses;
    uint64_t pcm_writes = wb->c.dirty_evictions;
    /* rows still dirty in the buffer are PCM writes to come */
    for (uint32_t i = 0; i < wb->n_active; i++)
        pcm_writes += wb->active[i].dirty;
    for (uint32_t i = 0; i < wb->n_inactive; i++)
        pcm_writes += wb->inactive[i].dirty;
    return writes > pcm_writes ? writes - pcm_writes : 0;
}

uint64_t sim_wbuf_dirty_sectors(const sim_wbuf *wb)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < wb->n_active; i++)
        n += (uint64_t)__builtin_popcount(wb->active[i].mask);
    for (uint32_t i = 0; i < wb->n_inactive; i++)
        n += (uint64_t)__builtin_popcount(wb->inactive[i].mask);
    return n;
}

int sim_wbuf_contains(const sim_wbuf *wb, uint64_t row)
{
    return find(wb->active, wb->n_active, row) >= 0 || find(wb->inactive, wb->n_inactive, row) >= 0;
}
