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

/* A compare.json's verdict on `parameter` ("L1C.ways"), or NULL without such a
 * row. */
static inline const char *gd_test_verdict(const json_t *compare, const char *parameter)
{
    size_t k;
    const json_t *p;
    json_array_foreach(json_object_get(compare, "parameters"), k, p) {
        const char *what = json_string_value(json_object_get(p, "parameter"));
        if (what && !strcmp(what, parameter))
            return json_string_value(json_object_get(p, "verdict"));
    }
    return NULL;
}

/* inferred.json's level `name` of the run in dir, its own reference. */
static inline json_t *gd_test_run_level(const char *dir, const char *name)
{
    json_t *inf = gd_test_load_json(dir, "inferred.json");
    json_t *l = (json_t *)gd_test_need_level(inf, name);
    json_incref(l);
    json_decref(inf);
    return l;
}

#endif
