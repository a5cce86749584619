/* checkpoint.c -- LABEL.partial: one self-checking record per finished point.
 *
 * See checkpoint.h.  A record is a 24-byte header -- the magic "GDCP", four
 * zero bytes, the payload's length and its FNV-1a 64 hash, little-endian as
 * the host writes them (a checkpoint is read back by the run that wrote it,
 * on the same machine) -- and the payload: the point's x and clock column,
 * each series' name and samples, each counter's name, value and kind.  Doubles
 * are stored as their bits, so a point read back is the point measured, and
 * the summaries are recomputed from the samples (gd_summarize is
 * deterministic: the sweep workers rely on the same).
 *
 * A record goes to the file in one write(2) of the whole buffer; a kill can
 * still cut it (or the kernel can write part of it), so the reader accepts a
 * record only when its header, length and hash hold, and stops at the first
 * that does not: everything from there on is a torn tail, cut off with
 * truncate(2) before the next append.  Records can come in any order (sweep
 * workers finish out of order); the store is sorted by x once read.
 */
#include "host/checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define RECORD_MAGIC 0x50434447u /* "GDCP" */
#define HEADER_BYTES 24
/* A point's payload larger than this is not a record (a torn or foreign
 * file): 2^27 samples of 8 bytes. */
#define MAX_PAYLOAD_BYTES ((uint64_t)1 << 30)

struct gd_checkpoint {
    char *path;
    int fd;                   /* -1 until the first append */
    gd_point *stored;         /* sorted by x */
    unsigned char *taken;
    size_t stored_count;
    int stored_in_csv;        /* the store holds a finished step's points */
    uint64_t *written;        /* hash set of the x in the file (0 is a free slot: x >= 1) */
    size_t written_cap, written_count;
    int has_zero;             /* x == 0 is in the file */
    int dirty;                /* a point not in the finished CSV entered the curve */
    size_t dropped_bytes;
};

static uint64_t fnv1a64(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* ------------------------------------------------------------------------- */
/* The set of x already in the file                                          */

static size_t slot_of(uint64_t x, size_t cap)
{
    return (size_t)((x * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

static int written_has(const gd_checkpoint *cp, uint64_t x)
{
    if (x == 0)
        return cp->has_zero;
    if (!cp->written_cap)
        return 0;
    for (size_t s = slot_of(x, cp->written_cap);; s = (s + 1) & (cp->written_cap - 1)) {
        if (cp->written[s] == x)
            return 1;
        if (cp->written[s] == 0)
            return 0;
    }
}

static int written_add(gd_checkpoint *cp, uint64_t x)
{
    if (x == 0) {
        cp->has_zero = 1;
        return 0;
    }
    if (written_has(cp, x))
        return 0;
    if ((cp->written_count + 1) * 2 > cp->written_cap) {
        size_t cap = cp->written_cap ? cp->written_cap * 2 : 64;
        uint64_t *set = calloc(cap, sizeof *set);
        if (!set)
            return -1;
        for (size_t i = 0; i < cp->written_cap; i++) {
            uint64_t v = cp->written[i];
            if (!v)
                continue;
            size_t s = slot_of(v, cap);
            while (set[s])
                s = (s + 1) & (cap - 1);
            set[s] = v;
        }
        free(cp->written);
        cp->written = set;
        cp->written_cap = cap;
    }
    size_t s = slot_of(x, cp->written_cap);
    while (cp->written[s])
        s = (s + 1) & (cp->written_cap - 1);
    cp->written[s] = x;
    cp->written_count++;
    return 0;
}

/* ------------------------------------------------------------------------- */
/* Records                                                                   */

typedef struct byte_buf {
    unsigned char *data;
    size_t len, cap;
    int oom;
} byte_buf;

static void buf_put(byte_buf *b, const void *p, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        unsigned char *d = realloc(b->data, cap);
        if (!d) {
            b->oom = 1;
            return;
        }
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

/* The record of one point: header, then payload. */
static int encode_point(const gd_point *p, byte_buf *b)
{
    unsigned char header[HEADER_BYTES] = {0};
    buf_put(b, header, sizeof header); /* filled in below */
    uint32_t series = p->series_count, counters = (uint32_t)p->counters.count;
    buf_put(b, &p->x, sizeof p->x);
    buf_put(b, &p->sm_clock_mhz, sizeof p->sm_clock_mhz);
    buf_put(b, &series, sizeof series);
    buf_put(b, &counters, sizeof counters);
    for (unsigned s = 0; s < p->series_count; s++) {
        const gd_point_series *ps = &p->series[s];
        char name[sizeof ps->name] = {0};
        snprintf(name, sizeof name, "%s", ps->name);
        uint64_t count = ps->summary.count;
        buf_put(b, name, sizeof name);
        buf_put(b, &count, sizeof count);
        buf_put(b, ps->samples, (size_t)count * sizeof(double));
    }
    for (size_t i = 0; i < p->counters.count; i++) {
        const gd_counter *c = &p->counters.items[i];
        char name[sizeof c->name] = {0};
        snprintf(name, sizeof name, "%s", c->name);
        uint32_t gauge = c->gauge != 0;
        buf_put(b, name, sizeof name);
        buf_put(b, &c->value, sizeof c->value);
        buf_put(b, &gauge, sizeof gauge);
    }
    if (b->oom)
        return -1;
    uint32_t magic = RECORD_MAGIC;
    uint64_t payload = b->len - HEADER_BYTES;
    uint64_t hash = fnv1a64(b->data + HEADER_BYTES, payload);
    memcpy(b->data, &magic, 4);
    memcpy(b->data + 8, &payload, 8);
    memcpy(b->data + 16, &hash, 8);
    return 0;
}

typedef struct reader {
    const unsigned char *p;
    size_t left;
} reader;

static int take(reader *r, void *out, size_t n)
{
    if (n > r->left)
        return -1;
    memcpy(out, r->p, n);
    r->p += n;
    r->left -= n;
    return 0;
}

/* A payload whose hash held, into *p; -1 when it does not parse (then the
 * record is treated as torn). */
static int decode_point(const unsigned char *data, size_t bytes, gd_point *p)
{
    reader r = {data, bytes};
    memset(p, 0, sizeof *p);
    uint32_t series, counters;
    if (take(&r, &p->x, sizeof p->x) || take(&r, &p->sm_clock_mhz, sizeof p->sm_clock_mhz) ||
        take(&r, &series, sizeof series) || take(&r, &counters, sizeof counters) ||
        series > GD_PROBE_MAX_SERIES)
        return -1;
    for (uint32_t s = 0; s < series; s++) {
        gd_point_series *ps = &p->series[s];
        uint64_t count;
        if (take(&r, ps->name, sizeof ps->name) || take(&r, &count, sizeof count) ||
            count > r.left / sizeof(double))
            goto bad;
        ps->name[sizeof ps->name - 1] = 0;
        ps->samples = malloc(count ? (size_t)count * sizeof(double) : sizeof(double));
        p->series_count = s + 1;
        if (!ps->samples || take(&r, ps->samples, (size_t)count * sizeof(double)) ||
            gd_summarize(ps->samples, (size_t)count, &ps->summary) != 0)
            goto bad;
    }
    for (uint32_t i = 0; i < counters; i++) {
        char name[GD_COUNTER_NAME_BYTES];
        double value;
        uint32_t gauge;
        if (take(&r, name, sizeof name) || take(&r, &value, sizeof value) ||
            take(&r, &gauge, sizeof gauge))
            goto bad;
        name[sizeof name - 1] = 0;
        if ((gauge ? gd_counter_list_add_gauge(&p->counters, name, value)
                   : gd_counter_list_add(&p->counters, name, value)) != 0)
            goto bad;
    }
    if (r.left == 0)
        return 0;
bad:
    gd_point_free(p);
    return -1;
}

static int cmp_point_x(const void *a, const void *b)
{
    uint64_t x = ((const gd_point *)a)->x, y = ((const gd_point *)b)->x;
    return (x > y) - (x < y);
}

static void free_store(gd_checkpoint *cp)
{
    for (size_t i = 0; i < cp->stored_count; i++)
        if (!cp->taken[i])
            gd_point_free(&cp->stored[i]);
    free(cp->stored);
    free(cp->taken);
    cp->stored = NULL;
    cp->taken = NULL;
    cp->stored_count = 0;
}

/* Sorts the store by x and keeps the first of equal x (a duplicate only comes
 * from a point measured twice, and both are that point). */
static int finish_store(gd_checkpoint *cp)
{
    if (cp->stored_count) /* qsort of a NULL array is undefined, even of 0 elements */
        qsort(cp->stored, cp->stored_count, sizeof *cp->stored, cmp_point_x);
    size_t kept = 0;
    for (size_t i = 0; i < cp->stored_count; i++) {
        if (kept && cp->stored[i].x == cp->stored[kept - 1].x)
            gd_point_free(&cp->stored[i]);
        else
            cp->stored[kept++] = cp->stored[i];
    }
    cp->stored_count = kept;
    cp->taken = calloc(kept ? kept : 1, 1);
    return cp->taken ? 0 : -1;
}

/* Reads the whole records of cp->path into the store; cuts a torn tail off. */
static int load_records(gd_checkpoint *cp, gd_err *err)
{
    FILE *f = fopen(cp->path, "rb");
    if (!f)
        return errno == ENOENT ? 0 : gd_fail(err, "%s: %s", cp->path, strerror(errno));
    size_t cap = 0, whole_bytes = 0, file_bytes = 0;
    unsigned char *payload = NULL;
    int rc = 0;
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        fclose(f);
        return gd_fail(err, "%s: %s", cp->path, strerror(errno));
    }
    for (;;) {
        unsigned char header[HEADER_BYTES];
        size_t got = fread(header, 1, sizeof header, f);
        file_bytes += got;
        if (got < sizeof header)
            break;
        uint32_t magic;
        uint64_t bytes, hash;
        memcpy(&magic, header, 4);
        memcpy(&bytes, header + 8, 8);
        memcpy(&hash, header + 16, 8);
        /* a length past the end of the file: torn, and never allocated */
        if (magic != RECORD_MAGIC || bytes > MAX_PAYLOAD_BYTES ||
            bytes > (uint64_t)st.st_size - file_bytes)
            break;
        unsigned char *np = realloc(payload, bytes ? bytes : 1);
        if (!np) {
            rc = gd_fail(err, "%s: out of memory", cp->path);
            break;
        }
        payload = np;
        got = fread(payload, 1, bytes, f);
        file_bytes += got;
        if (got < bytes || fnv1a64(payload, bytes) != hash)
            break;
        if (cp->stored_count == cap) {
            size_t nc = cap ? cap * 2 : 64;
            gd_point *ns = realloc(cp->stored, nc * sizeof *ns);
            if (!ns) {
                rc = gd_fail(err, "%s: out of memory", cp->path);
                break;
            }
            cp->stored = ns;
            cap = nc;
        }
        gd_point *p = &cp->stored[cp->stored_count];
        if (decode_point(payload, bytes, p) != 0)
            break; /* a hash that holds over a payload that does not parse: torn too */
        if (written_add(cp, p->x) != 0) {
            gd_point_free(p);
            rc = gd_fail(err, "%s: out of memory", cp->path);
            break;
        }
        cp->stored_count++;
        whole_bytes += HEADER_BYTES + bytes;
    }
    file_bytes = (size_t)st.st_size; /* the bytes past the last whole record are torn */
    fclose(f);
    free(payload);
    if (rc != 0)
        return rc;
    if (file_bytes > whole_bytes) {
        cp->dropped_bytes = file_bytes - whole_bytes;
        if (truncate(cp->path, (off_t)whole_bytes) != 0)
            return gd_fail(err, "%s: truncate: %s", cp->path, strerror(errno));
    }
    if (finish_store(cp) != 0)
        return gd_fail(err, "%s: out of memory", cp->path);
    return 0;
}

/* ------------------------------------------------------------------------- */
/* The interface                                                             */

int gd_checkpoint_open(const char *dir, const char *label, int resume, gd_checkpoint **out,
                       gd_err *err)
{
    *out = NULL;
    gd_checkpoint *cp = calloc(1, sizeof *cp);
    size_t n = strlen(dir) + strlen(label) + sizeof GD_CHECKPOINT_SUFFIX + 2;
    if (!cp || !(cp->path = malloc(n))) {
        free(cp);
        return gd_fail(err, "out of memory");
    }
    snprintf(cp->path, n, "%s/%s%s", dir, label, GD_CHECKPOINT_SUFFIX);
    cp->fd = -1;
    int rc = 0;
    if (resume)
        rc = load_records(cp, err);
    else if (unlink(cp->path) != 0 && errno != ENOENT)
        rc = gd_fail(err, "%s: %s", cp->path, strerror(errno));
    if (rc == 0 && !cp->taken && !(cp->taken = calloc(1, 1)))
        rc = gd_fail(err, "out of memory");
    if (rc != 0) {
        gd_checkpoint_close(cp, 0);
        return -1;
    }
    *out = cp;
    return 0;
}

void gd_checkpoint_use_finished(gd_checkpoint *cp, gd_curve *finished)
{
    free_store(cp);
    cp->stored = finished->points; /* sorted by x already */
    cp->stored_count = finished->count;
    finished->points = NULL;
    finished->count = finished->capacity = 0;
    cp->stored_in_csv = 1;
    cp->taken = calloc(cp->stored_count ? cp->stored_count : 1, 1);
    if (!cp->taken) { /* out of memory: no store, every point is measured */
        for (size_t i = 0; i < cp->stored_count; i++)
            gd_point_free(&cp->stored[i]);
        free(cp->stored);
        cp->stored = NULL;
        cp->stored_count = 0;
    }
}

/* The index of x in the store, or stored_count. */
static size_t find_stored(const gd_checkpoint *cp, uint64_t x)
{
    size_t lo = 0, hi = cp->stored_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cp->stored[mid].x < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < cp->stored_count && cp->stored[lo].x == x ? lo : cp->stored_count;
}

int gd_checkpoint_has(const gd_checkpoint *cp, uint64_t x)
{
    size_t i = find_stored(cp, x);
    return i < cp->stored_count && !cp->taken[i];
}

int gd_checkpoint_take(gd_checkpoint *cp, uint64_t x, gd_point *out, int *in_csv)
{
    size_t lo = find_stored(cp, x);
    if (lo == cp->stored_count || cp->taken[lo])
        return 0;
    *out = cp->stored[lo];
    memset(&cp->stored[lo], 0, sizeof cp->stored[lo]);
    cp->stored[lo].x = x;
    cp->taken[lo] = 1;
    *in_csv = cp->stored_in_csv;
    return 1;
}

int gd_checkpoint_append(gd_checkpoint *cp, const gd_point *point, gd_err *err)
{
    if (written_has(cp, point->x))
        return 0;
    if (cp->fd < 0) {
        cp->fd = open(cp->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (cp->fd < 0)
            return gd_fail(err, "%s: %s", cp->path, strerror(errno));
    }
    byte_buf b = {0};
    if (encode_point(point, &b) != 0) {
        free(b.data);
        return gd_fail(err, "%s: out of memory", cp->path);
    }
    size_t done = 0;
    while (done < b.len) {
        ssize_t w = write(cp->fd, b.data + done, b.len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : ENOSPC;
            free(b.data);
            return gd_fail(err, "%s: write: %s", cp->path, strerror(e));
        }
        done += (size_t)w;
    }
    free(b.data);
    if (written_add(cp, point->x) != 0)
        return gd_fail(err, "%s: out of memory", cp->path);
    return 0;
}

int gd_checkpoint_note_added(gd_checkpoint *cp, int in_csv)
{
    if (!in_csv)
        cp->dirty = 1;
    return cp->dirty;
}

size_t gd_checkpoint_stored(const gd_checkpoint *cp)
{
    return cp->stored_count;
}

size_t gd_checkpoint_dropped_bytes(const gd_checkpoint *cp)
{
    return cp->dropped_bytes;
}

void gd_checkpoint_close(gd_checkpoint *cp, int remove_file)
{
    if (!cp)
        return;
    if (cp->fd >= 0)
        close(cp->fd);
    if (remove_file && cp->path)
        unlink(cp->path);
    free_store(cp);
    free(cp->written);
    free(cp->path);
    free(cp);
}
