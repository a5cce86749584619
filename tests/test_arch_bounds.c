/* test_arch_bounds.c -- every numeric arch key has a bound, and a value past
 * it fails on its own line (analysis/arch_validate.c, issue 15). */
#include "tests/testing.h"

#include "analysis/arch.h"
#include "analysis/arch_parse.h"
#include "analysis/arch_validate.h"
#include "analysis/results.h"

static void test_every_numeric_key_is_bounded(void **state)
{
    (void)state;
    size_t numeric = 0;
    for (size_t i = 0; i < arch_key_count(); i++) {
        int is_numeric = 0;
        const char *name = arch_key_name(i, &is_numeric);
        assert_non_null(name);
        if (!is_numeric)
            continue;
        numeric++;
        if (!arch_key_is_bounded(name))
            fail_msg("arch key '%s' has no bound in analysis/arch_validate.c (arch_bounds)", name);
    }
    assert_true(numeric >= 25);
}

/* tiny.arch with `from` replaced by `to`: the error names the line `to`'s
 * line `at_line` (0: its first) lands on */
static void expect_line_error_at(const char *from, const char *to, int at_line, const char *needle)
{
    gd_err err;
    char *text = gd_read_file(GD_SOURCE_DIR "/analysis/archs/tiny.arch", NULL, &err);
    assert_non_null(text);
    char *at = strstr(text, from);
    assert_non_null(at);
    int line = 1;
    for (const char *c = text; c < at; c++)
        line += *c == '\n';
    size_t n = strlen(text) + strlen(to) + 1;
    char *edited = malloc(n);
    assert_non_null(edited);
    snprintf(edited, n, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    gd_arch arch;
    assert_int_equal(gd_arch_parse_string(edited, "x.arch", NULL, 0, &arch, &err), -1);
    char where[32];
    snprintf(where, sizeof where, "x.arch:%d: ", line + at_line);
    if (strncmp(err.msg, where, strlen(where)) || !strstr(err.msg, needle))
        fail_msg("expected '%s...%s', got '%s'", where, needle, err.msg);
    assert_null(strchr(err.msg, '\n'));
    free(edited);
    free(text);
}

static void expect_line_error(const char *from, const char *to, const char *needle)
{
    expect_line_error_at(from, to, 0, needle);
}

static void test_values_past_their_bounds(void **state)
{
    (void)state;
    expect_line_error("clock_mhz = 1000", "clock_mhz = 0", "clock_mhz = 0 is outside 1..10000");
    expect_line_error("max_ctas_per_sm = 8", "max_ctas_per_sm = 100000000", "is outside 1..64");
    expect_line_error("fifo_entries = 16", "fifo_entries = 4000000000", "is outside 1..4096");
    expect_line_error_at("[L2]\nsize = 16KiB", "[L2]\nsize = 16KiB\nsize = 32KiB", 2, "given twice");
    expect_line_error("size = 2KiB", "size = 32KiB", "exceeds [L2] size");
    expect_line_error("ways = 8", "ways = 65535", "ways = 65535 is outside 1..4096");
}

static void test_noise_jitter_bound(void **state)
{
    (void)state;
    gd_err err;
    gd_arch arch;
    const char *huge[] = {"noise.jitter=1e300"};
    assert_int_equal(gd_arch_load(GD_SOURCE_DIR "/analysis/archs/tiny.arch", huge, 1, &arch, &err), -1);
    assert_non_null(strstr(err.msg, "[noise] jitter = 1e+300 is outside 0..100000"));
    const char *fine[] = {"noise.jitter=3", "L1D.ways=8", "L1D.ways=2"}; /* --set may repeat */
    assert_int_equal(gd_arch_load(GD_SOURCE_DIR "/analysis/archs/tiny.arch", fine, 3, &arch, &err), 0);
    assert_int_equal(arch.level[GD_L1D].ways, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_numeric_key_is_bounded),
        cmocka_unit_test(test_values_past_their_bounds),
        cmocka_unit_test(test_noise_jitter_bound),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
