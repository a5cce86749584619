/* inferred_below_l1_json.c -- the DRAM row and bandwidth figures of
 * inferred.json (analysis/inferred_below_l1.h): written into the level
 * objects infer.c builds, read back from them.  Absent where not measured. */
#include "analysis/inferred_below_l1.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const kind_names[GD_BW_KIND_COUNT] = {"read", "write", "copy"};
static const char *const level_names[GD_BW_LEVEL_COUNT] = {"L1D", "L2", "DRAM"};

const char *gd_bw_kind_name(gd_bw_kind k)
{
    return k < GD_BW_KIND_COUNT ? kind_names[k] : "?";
}

const char *gd_bw_level_name(gd_bw_level l)
{
    return l < GD_BW_LEVEL_COUNT ? level_names[l] : "?";
}

static int level_index(const char *level)
{
    for (int i = 0; i < GD_BW_LEVEL_COUNT; i++)
        if (!strcmp(level, level_names[i]))
            return i;
    return -1;
}

static json_t *num_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static double get_num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static void get_from(const json_t *o, char *dst, size_t size)
{
    const char *s = json_string_value(json_object_get(o, "from"));
    snprintf(dst, size, "%s", s ? s : "");
}

void gd_inferred_below_to_json(const gd_inferred_below *b, const char *level, json_t *o)
{
    if (!strcmp(level, "DRAM") && b->rows.has) {
        const gd_inferred_rows *r = &b->rows;
        json_t *j = json_object();
        if (r->has_distance) {
            json_object_set_new(j, "row_effect", json_boolean(r->row_effect));
            json_object_set_new(j, "row_hit_cycles", json_real(r->row_hit_cycles));
            json_object_set_new(j, "row_switch_cycles", json_real(r->row_switch_cycles));
            json_object_set_new(j, "row_hit_span_bytes",
                                r->row_effect ? json_integer((json_int_t)r->row_hit_span_bytes)
                                              : json_null());
            json_object_set_new(j, "switch_distance_bytes",
                                r->switch_distance_bytes
                                    ? json_integer((json_int_t)r->switch_distance_bytes)
                                    : json_null());
            json_object_set_new(j, "confidence", json_real(r->confidence));
            json_object_set_new(j, "from", json_string(r->from));
        }
        if (r->has_idle) {
            json_object_set_new(j, "row_timeout_lower_bound",
                                json_boolean(r->row_timeout_lower_bound));
            json_object_set_new(j, "row_timeout_cycles", num_or_null(r->row_timeout_cycles));
            json_object_set_new(j, "row_timeout_min_cycles",
                                num_or_null(r->row_timeout_min_cycles));
            json_object_set_new(j, "row_miss_cycles", num_or_null(r->row_miss_cycles));
            json_object_set_new(j, "idle_hit_cycles", num_or_null(r->idle_hit_cycles));
            json_object_set_new(j, "idle_confidence", json_real(r->idle_confidence));
            json_object_set_new(j, "idle_from", json_string(r->idle_from));
        }
        json_object_set_new(o, "row", j);
    }
    if (!strcmp(level, "L2") && b->slices.has) {
        const gd_inferred_slices *x = &b->slices;
        json_t *j = json_object();
        json_object_set_new(j, "resolved", json_boolean(x->resolved));
        if (x->resolved) {
            json_object_set_new(j, "slices", json_integer(x->slices));
            json_object_set_new(j, "slices_per_partition", json_integer(x->slices_per_partition));
            json_object_set_new(j, "partitions", json_integer(x->partitions));
            json_object_set_new(j, "period_bytes", json_integer((json_int_t)x->period_bytes));
            json_object_set_new(j, "unit_bytes", json_integer((json_int_t)x->unit_bytes));
            json_object_set_new(j, "lower_bound", json_boolean(x->lower_bound));
        } else {
            json_object_set_new(j, "why", json_string(x->why));
        }
        json_object_set_new(j, "floor_requests_per_cycle", json_real(x->floor_requests_per_cycle));
        json_object_set_new(j, "peak_requests_per_cycle", json_real(x->peak_requests_per_cycle));
        json_object_set_new(j, "confidence", json_real(x->confidence));
        json_object_set_new(j, "from", json_string(x->from));
        json_object_set_new(o, "slices", j);
    }
    int li = level_index(level);
    if (li < 0)
        return;
    json_t *bw = NULL;
    for (int k = 0; k < GD_BW_KIND_COUNT; k++) {
        const gd_inferred_bandwidth *x = &b->bw[li][k];
        if (!x->has)
            continue;
        if (!bw)
            bw = json_object();
        json_t *j = json_object();
        json_object_set_new(j, "bytes_per_cycle", json_real(x->bytes_per_cycle));
        json_object_set_new(j, "clock_mhz", num_or_null(x->clock_mhz));
        json_object_set_new(j, "gb_per_s", num_or_null(x->gb_per_s));
        json_object_set_new(j, "confidence", json_real(x->confidence));
        json_object_set_new(j, "from", json_string(x->from));
        json_object_set_new(bw, kind_names[k], j);
    }
    if (bw)
        json_object_set_new(o, "bandwidth", bw);
}

void gd_inferred_below_from_json(gd_inferred_below *b, const char *level, const json_t *o)
{
    const json_t *row = json_object_get(o, "row");
    if (!strcmp(level, "DRAM") && json_is_object(row)) {
        gd_inferred_rows *r = &b->rows;
        r->has = 1;
        /* the distance sweep's keys, where it ran (files before the idle
         * sweep have them always) */
        r->has_distance = json_is_boolean(json_object_get(row, "row_effect"));
        if (r->has_distance) {
            r->row_effect = json_is_true(json_object_get(row, "row_effect"));
            r->row_hit_cycles = get_num(row, "row_hit_cycles");
            r->row_switch_cycles = get_num(row, "row_switch_cycles");
            double span = get_num(row, "row_hit_span_bytes");
            r->row_hit_span_bytes =
                isfinite(span) && span > 0 && span < 0x1p62 ? (uint64_t)span : 0;
            double dist = get_num(row, "switch_distance_bytes");
            r->switch_distance_bytes =
                isfinite(dist) && dist > 0 && dist < 0x1p62 ? (uint64_t)dist : 0;
            r->confidence = get_num(row, "confidence");
            get_from(row, r->from, sizeof r->from);
        }
        r->has_idle = json_is_boolean(json_object_get(row, "row_timeout_lower_bound"));
        if (r->has_idle) {
            r->row_timeout_lower_bound =
                json_is_true(json_object_get(row, "row_timeout_lower_bound"));
            r->row_timeout_cycles = get_num(row, "row_timeout_cycles");
            r->row_timeout_min_cycles = get_num(row, "row_timeout_min_cycles");
            r->row_miss_cycles = get_num(row, "row_miss_cycles");
            r->idle_hit_cycles = get_num(row, "idle_hit_cycles");
            r->idle_confidence = get_num(row, "idle_confidence");
            const char *s = json_string_value(json_object_get(row, "idle_from"));
            snprintf(r->idle_from, sizeof r->idle_from, "%s", s ? s : "");
            /* a hand-edited file: a bracket that is not one is no step */
            if (!r->row_timeout_lower_bound &&
                !(r->row_timeout_min_cycles < r->row_timeout_cycles))
                r->row_timeout_lower_bound = 1;
        }
    }
    const json_t *sl = json_object_get(o, "slices");
    if (!strcmp(level, "L2") && json_is_object(sl)) {
        gd_inferred_slices *x = &b->slices;
        x->has = 1;
        x->resolved = json_is_true(json_object_get(sl, "resolved"));
        double v = get_num(sl, "slices_per_partition"), p = get_num(sl, "partitions"),
               per = get_num(sl, "period_bytes"), u = get_num(sl, "unit_bytes");
        if (x->resolved && (!(v >= 1 && v < 1e6) || !(p >= 1 && p <= 2) ||
                            !(per >= 1 && per < 0x1p62) || !(u >= 1 && u < 0x1p62)))
            x->resolved = 0; /* a hand-edited file: keep what is readable */
        if (x->resolved) {
            x->slices_per_partition = (uint32_t)v;
            x->partitions = (uint32_t)p;
            x->slices = x->slices_per_partition * x->partitions;
            x->period_bytes = (uint64_t)per;
            x->unit_bytes = (uint64_t)u;
            x->lower_bound = json_is_true(json_object_get(sl, "lower_bound"));
        }
        const char *why = json_string_value(json_object_get(sl, "why"));
        snprintf(x->why, sizeof x->why, "%s", why ? why : "");
        x->floor_requests_per_cycle = get_num(sl, "floor_requests_per_cycle");
        x->peak_requests_per_cycle = get_num(sl, "peak_requests_per_cycle");
        x->confidence = get_num(sl, "confidence");
        get_from(sl, x->from, sizeof x->from);
    }
    int li = level_index(level);
    const json_t *bw = json_object_get(o, "bandwidth");
    if (li < 0 || !json_is_object(bw))
        return;
    for (int k = 0; k < GD_BW_KIND_COUNT; k++) {
        const json_t *j = json_object_get(bw, kind_names[k]);
        if (!json_is_object(j))
            continue;
        gd_inferred_bandwidth *x = &b->bw[li][k];
        x->bytes_per_cycle = get_num(j, "bytes_per_cycle");
        x->has = isfinite(x->bytes_per_cycle);
        x->clock_mhz = get_num(j, "clock_mhz");
        x->gb_per_s = get_num(j, "gb_per_s");
        x->confidence = get_num(j, "confidence");
        get_from(j, x->from, sizeof x->from);
    }
}
