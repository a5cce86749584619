/* kernel_record.c -- per-kernel resources and carve-out, as meta.json lists
 * them (see kernel_record.h).  The runner calls it after every launch; a row
 * is found again by every field but the point count and range, so a sweep of
 * a hundred points over one kernel is one row. */
#include "host/kernel_record.h"

#include <string.h>

static int same_int(json_t *row, const char *key, json_int_t v)
{
    json_t *x = json_object_get(row, key);
    return json_is_integer(x) && json_integer_value(x) == v;
}

int gd_kernel_record_add(json_t *records, const char *curve_label, const char *probe,
                         const gd_kernel *k, int carveout_asked, uint32_t dynamic_shared_bytes,
                         uint64_t x, gd_err *err)
{
    struct {
        const char *key;
        json_int_t value;
    } fields[] = {
        {"carveout_percent_asked", carveout_asked},
        {"carveout_percent", k->carveout_percent},
        {"static_shared_bytes", k->static_shared_bytes},
        {"dynamic_shared_bytes", dynamic_shared_bytes},
        {"registers_per_thread", k->registers_per_thread},
        {"local_bytes_per_thread", k->local_bytes_per_thread},
        {"launch_shared_carveout_bytes", k->launch_shared_carveout_bytes},
        {"launch_l1d_bytes", (json_int_t)k->launch_l1d_bytes},
    };
    const size_t n = sizeof fields / sizeof fields[0];
    size_t i;
    json_t *row;
    json_array_foreach(records, i, row) {
        const char *c = json_string_value(json_object_get(row, "curve"));
        const char *e = json_string_value(json_object_get(row, "entry"));
        if (!c || !e || strcmp(c, curve_label) || strcmp(e, k->entry))
            continue;
        size_t f = 0;
        while (f < n && same_int(row, fields[f].key, fields[f].value))
            f++;
        if (f < n)
            continue;
        json_object_set_new(row, "points",
                            json_integer(json_integer_value(json_object_get(row, "points")) + 1));
        json_int_t first = json_integer_value(json_object_get(row, "first_point"));
        json_int_t last = json_integer_value(json_object_get(row, "last_point"));
        if ((json_int_t)x < first)
            json_object_set_new(row, "first_point", json_integer((json_int_t)x));
        if ((json_int_t)x > last)
            json_object_set_new(row, "last_point", json_integer((json_int_t)x));
        return 0;
    }
    row = json_object();
    if (!row)
        return gd_fail(err, "out of memory");
    json_object_set_new(row, "curve", json_string(curve_label));
    json_object_set_new(row, "probe", json_string(probe));
    json_object_set_new(row, "entry", json_string(k->entry));
    for (size_t f = 0; f < n; f++)
        json_object_set_new(row, fields[f].key, json_integer(fields[f].value));
    json_object_set_new(row, "points", json_integer(1));
    json_object_set_new(row, "first_point", json_integer((json_int_t)x));
    json_object_set_new(row, "last_point", json_integer((json_int_t)x));
    if (json_array_append_new(records, row) != 0)
        return gd_fail(err, "out of memory");
    return 0;
}
