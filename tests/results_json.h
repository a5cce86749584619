/* results_json.h -- reading a run's JSON files in the tests (include after
 * testing.h). */
#ifndef GD_TEST_RESULTS_JSON_H
#define GD_TEST_RESULTS_JSON_H

#include <jansson.h>

/* dir/file parsed; fails the test if it is missing or malformed. */
static inline json_t *gd_test_load_json(const char *dir, const char *file)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    json_error_t jerr;
    json_t *j = json_load_file(path, 0, &jerr);
    if (!j)
        fail_msg("%s: %s", path, jerr.text);
    return j;
}

/* The level called name in an inferred.json, or NULL. */
static inline const json_t *gd_test_level(const json_t *inferred, const char *name)
{
    size_t i;
    const json_t *l;
    json_array_foreach(json_object_get(inferred, "levels"), i, l) {
        if (!strcmp(json_string_value(json_object_get(l, "name")), name))
            return l;
    }
    return NULL;
}

/* The same, failing the test where there is none. */
static inline const json_t *gd_test_need_level(const json_t *inferred, const char *name)
{
    const json_t *l = gd_test_level(inferred, name);
    if (!l)
        fail_msg("no level %s in inferred.json", name);
    return l;
}

#endif
