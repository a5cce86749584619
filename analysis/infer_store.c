/* infer_store.c -- what the store_path probe's cases say about the store path.
 *
 * Every case of kernels/store_path.c times one load (series "caseN" of its
 * one point; the median over its samples); cases 1-3 time an L1 hit, an L2 hit and a DRAM access on the same
 * lines, so each other case is read as the level its median lies nearest
 * (no threshold of our own: the midpoints between the references).  Then:
 *
 *   L1 write-allocate   case 4 (a load right after the warp stored its line)
 *                       is an L1 hit;
 *   L2 write-allocate   case 6 (a new kernel's ld.cg of a stored line) is an
 *                       L2 hit -- the L1s were invalidated between, and a
 *                       write-back L1 had to hand its lines over;
 *   L1 write policy     case 5 (ld.cg of the line from another SM, long after
 *                       the store, same kernel) is an L2 hit: write-through;
 *                       DRAM while case 6 hits the L2: the line stayed in the
 *                       storing SM's L1 -- write-back.  Without L2 allocation
 *                       both read DRAM and the policy cannot be told;
 *   L2 write granule    the smallest neighbour distance (cases 7-10: 32 ..
 *                       256 bytes past a 32-byte store) whose load goes to
 *                       DRAM: the bytes a store of 32 made valid (32: sector
 *                       allocation on 32-byte sectors; the line: line
 *                       allocation); none: at least 512;
 *   L2 partial write    case 11 (bytes of a sector a 4-byte store did not
 *                       write, read by a new kernel) from DRAM: a byte mask
 *                       (the sector dirty, not valid); else case 12 (the same
 *                       read right after the store) from DRAM: the L2 fetched
 *                       the sector to merge the store; an L2 hit: validated
 *                       whole.  Needs a write-through L1 (a write-back L1
 *                       hands the L2 whole sectors) and L2 allocation.
 *
 * Limits: a far L2 partition (A100/H100) between L2 and DRAM is read as L2 by
 * the nearest rule when it is nearer the L2 latency; case 5 needs its two
 * CTAs on different SMs (the curve's "other_sm" says; on one SM the read
 * still bypasses the L1 and the verdict stands).
 */
#include "analysis/infer_store.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/arch.h"

enum { NEAR_L1 = 1, NEAR_L2, NEAR_DRAM };

static const char *const partial_names[] = {"validate", "fetch", "mask"};

const char *gd_store_partial_name(int partial_write)
{
    return partial_write >= 0 && partial_write < 3 ? partial_names[partial_write] : NULL;
}

static int nearest(const gd_store_inference *s, int c)
{
    if (!s->has_case[c])
        return 0;
    double v = s->case_cycles[c];
    double d1 = fabs(v - s->case_cycles[1]), d2 = fabs(v - s->case_cycles[2]),
           d3 = fabs(v - s->case_cycles[3]);
    if (d1 <= d2 && d1 <= d3)
        return NEAR_L1;
    return d2 <= d3 ? NEAR_L2 : NEAR_DRAM;
}

static void add_note(gd_store_inference *s, const char *text)
{
    size_t n = strlen(s->note);
    snprintf(s->note + n, sizeof s->note - n, "%s%s", n ? "; " : "", text);
}

int gd_infer_store(gd_store_inference *s, const gd_curve *curve, gd_err *err)
{
    memset(s, 0, sizeof *s);
    snprintf(s->from, sizeof s->from, "%s", curve->label);
    /* the point with the most samples per case (a run has one) */
    const gd_point *pt = NULL;
    for (size_t i = 0; i < curve->count; i++)
        if (!pt || curve->points[i].x > pt->x)
            pt = &curve->points[i];
    for (int c = 1; pt && c <= GD_STORE_CASES; c++) {
        char name[16];
        snprintf(name, sizeof name, "case%d", c);
        const gd_summary *sum = gd_point_summary(pt, name);
        if (sum && sum->count) {
            s->has_case[c] = 1;
            s->case_cycles[c] = sum->median;
        }
    }
    if (!s->has_case[1] || !s->has_case[2] || !s->has_case[3])
        return gd_fail(err, "%s: store_path needs its reference cases 1-3 (L1, L2, DRAM)",
                       curve->label);
    if (!(s->case_cycles[1] < s->case_cycles[2] && s->case_cycles[2] < s->case_cycles[3]))
        return gd_fail(err, "%s: store_path references not ordered L1 < L2 < DRAM "
                            "(%.1f, %.1f, %.1f cycles)",
                       curve->label, s->case_cycles[1], s->case_cycles[2], s->case_cycles[3]);
    s->measured = 1;
    s->l1_write_allocate = s->l1_write_back = s->l2_write_allocate = -1;
    s->l2_partial_write = -1;

    int c4 = nearest(s, 4), c5 = nearest(s, 5), c6 = nearest(s, 6);
    if (c4)
        s->l1_write_allocate = c4 == NEAR_L1;
    if (c6 == NEAR_L2 || c6 == NEAR_DRAM)
        s->l2_write_allocate = c6 == NEAR_L2;
    else
        add_note(s, "case 6 (stored line, next kernel) not measured or nearest the L1");
    if (c5 == NEAR_L2)
        s->l1_write_back = 0;
    else if (c5 == NEAR_DRAM && s->l2_write_allocate == 1)
        s->l1_write_back = 1;
    else
        add_note(s, "L1 write policy not told: the L2 does not allocate on stores (or case 5 missing)");

    if (s->l2_write_allocate == 1) {
        for (int c = 7; c <= 10; c++) {
            int n = nearest(s, c);
            if (!n) {
                add_note(s, "a neighbour case is missing: no write granule");
                break;
            }
            if (n == NEAR_DRAM) {
                s->l2_write_granule_bytes = 32ull << (c - 7);
                break;
            }
            if (c == 10) {
                s->l2_write_granule_bytes = 2 * GD_STORE_MAX_NEIGHBOUR_BYTES;
                s->l2_granule_is_lower_bound = 1;
            }
        }
        int c11 = nearest(s, 11), c12 = nearest(s, 12);
        if (s->l1_write_back != 0) {
            add_note(s, "partial writes not told: they reach the L2 only through a write-through L1");
        } else if (c11 == NEAR_DRAM) {
            s->l2_partial_write = GD_L2_PARTIAL_MASK;
        } else if (c11 == NEAR_L2 && c12 == NEAR_DRAM) {
            s->l2_partial_write = GD_L2_PARTIAL_FETCH;
        } else if (c11 == NEAR_L2 && c12 == NEAR_L2) {
            s->l2_partial_write = GD_L2_PARTIAL_VALIDATE;
        } else {
            add_note(s, "partial writes not told: cases 11-12 missing or nearest the L1");
        }
    }
    return 0;
}

static json_t *verdict(int v, const char *yes, const char *no)
{
    return v < 0 ? json_null() : json_string(v ? yes : no);
}

json_t *gd_store_to_json(const gd_store_inference *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "from", json_string(s->from));
    json_t *cases = json_object();
    for (int c = 1; c <= GD_STORE_CASES; c++)
        if (s->has_case[c]) {
            char k[8];
            snprintf(k, sizeof k, "%d", c);
            json_object_set_new(cases, k, json_real(s->case_cycles[c]));
        }
    json_object_set_new(o, "case_cycles", cases);
    json_object_set_new(o, "l1_write_allocate", verdict(s->l1_write_allocate, "allocate", "no-allocate"));
    json_object_set_new(o, "l1_write_policy", verdict(s->l1_write_back, "write-back", "write-through"));
    json_object_set_new(o, "l2_write_allocate", verdict(s->l2_write_allocate, "allocate", "no-allocate"));
    json_object_set_new(o, "l2_write_granule_bytes",
                        s->l2_write_granule_bytes ? json_integer((json_int_t)s->l2_write_granule_bytes)
                                                  : json_null());
    json_object_set_new(o, "l2_write_granule_is_lower_bound", json_boolean(s->l2_granule_is_lower_bound));
    const char *pw = gd_store_partial_name(s->l2_partial_write);
    json_object_set_new(o, "l2_partial_write", pw ? json_string(pw) : json_null());
    json_object_set_new(o, "note", json_string(s->note));
    return o;
}

static int read_verdict(const json_t *o, const char *key, const char *yes, const char *no, int *out)
{
    const json_t *v = json_object_get(o, key);
    *out = -1;
    if (!v || json_is_null(v))
        return 0;
    const char *t = json_string_value(v);
    if (t && !strcmp(t, yes))
        *out = 1;
    else if (t && !strcmp(t, no))
        *out = 0;
    else
        return -1;
    return 0;
}

int gd_store_from_json(const json_t *o, gd_store_inference *s, gd_err *err)
{
    memset(s, 0, sizeof *s);
    s->l1_write_allocate = s->l1_write_back = s->l2_write_allocate = s->l2_partial_write = -1;
    if (!o)
        return 0;
    if (!json_is_object(o))
        return gd_fail(err, "inferred.json: \"store\" is not an object");
    s->measured = 1;
    snprintf(s->from, sizeof s->from, "%s",
             json_string_value(json_object_get(o, "from")) ? json_string_value(json_object_get(o, "from")) : "");
    const json_t *cases = json_object_get(o, "case_cycles");
    for (int c = 1; c <= GD_STORE_CASES; c++) {
        char k[8];
        snprintf(k, sizeof k, "%d", c);
        const json_t *v = json_object_get(cases, k);
        if (json_is_number(v)) {
            s->has_case[c] = 1;
            s->case_cycles[c] = json_number_value(v);
        }
    }
    if (read_verdict(o, "l1_write_allocate", "allocate", "no-allocate", &s->l1_write_allocate) ||
        read_verdict(o, "l1_write_policy", "write-back", "write-through", &s->l1_write_back) ||
        read_verdict(o, "l2_write_allocate", "allocate", "no-allocate", &s->l2_write_allocate))
        return gd_fail(err, "inferred.json: \"store\" has a verdict it does not know");
    const json_t *g = json_object_get(o, "l2_write_granule_bytes");
    if (json_is_integer(g) && json_integer_value(g) > 0)
        s->l2_write_granule_bytes = (uint64_t)json_integer_value(g);
    s->l2_granule_is_lower_bound = json_is_true(json_object_get(o, "l2_write_granule_is_lower_bound"));
    const char *pw = json_string_value(json_object_get(o, "l2_partial_write"));
    for (int i = 0; pw && i < 3; i++)
        if (!strcmp(pw, partial_names[i]))
            s->l2_partial_write = i;
    snprintf(s->note, sizeof s->note, "%s",
             json_string_value(json_object_get(o, "note")) ? json_string_value(json_object_get(o, "note")) : "");
    return 0;
}
