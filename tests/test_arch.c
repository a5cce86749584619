/* test_arch.c -- arch files: the shipped ones read back the published values,
 * every value cites a source, and malformed files fail with FILE:LINE. */
#include "tests/testing.h"

#include <dirent.h>

#include "analysis/arch.h"

static int parse(const char *text, gd_arch *a, gd_err *err)
{
    return gd_arch_parse_string(text, "test.arch", NULL, 0, a, err);
}

/* A minimal valid file that tests mutate. */
static const char *const minimal =
    "[gpu]\n"                   /* 1 */
    "compute_capability = 7.5\n" /* 2 */
    "sms = 2\n"                 /* 3 */
    "[L1D]\n"                   /* 4 */
    "size = 2KiB\n"             /* 5 */
    "line = 128\n"              /* 6 */
    "ways = 4\n"                /* 7 */
    "latency = 20\n"            /* 8 */
    "[SMEM]\n"                  /* 9 */
    "size = 48KiB\n"            /* 10 */
    "latency = 15\n"            /* 11 */
    "[L1C]\n"                   /* 12 */
    "size = 1KiB\n"             /* 13 */
    "line = 64\n"               /* 14 */
    "ways = 4\n"                /* 15 */
    "latency = 12\n"            /* 16 */
    "[L2]\n"                    /* 17 */
    "size = 16KiB\n"            /* 18 */
    "line = 64\n"               /* 19 */
    "ways = 8\n"                /* 20 */
    "latency = 90\n"            /* 21 */
    "[DRAM]\n"                  /* 22 */
    "latency = 200\n";          /* 23 */

static void test_t4_has_published_values(void **state)
{
    (void)state;
    gd_arch a;
    gd_err err;
    char path[1024];
    assert_int_equal(gd_arch_resolve("t4", path, sizeof path, &err), 0);
    assert_int_equal(gd_arch_load(path, NULL, 0, &a, &err), 0);
    assert_string_equal(a.name, "t4");
    assert_int_equal(a.gpu.sm_count, 40);
    assert_int_equal(a.gpu.cc_major, 7);
    assert_int_equal(a.gpu.cc_minor, 5);
    assert_true(a.gpu.clock_mhz == 1590);
    assert_int_equal(a.level[GD_L1D].size_bytes, 64 * 1024);
    assert_int_equal(a.level[GD_L1D].latency_cycles, 32);
    assert_int_equal(a.level[GD_L1D].sector_bytes, 32);
    assert_int_equal(a.level[GD_L2].size_bytes, 4 * 1024 * 1024);
    assert_int_equal(a.level[GD_L2].line_bytes, 64);
    assert_int_equal(a.level[GD_L2].ways, 16);
    assert_int_equal(a.level[GD_L2].sets, 4096);
    assert_int_equal(a.level[GD_L2].latency_cycles, 188);
    assert_int_equal(a.level[GD_DRAM].latency_cycles, 296);
    assert_int_equal(a.level[GD_SMEM].banks, 32);
    assert_int_equal(a.level[GD_SMEM].latency_cycles, 19);
    assert_int_equal(a.level[GD_L1C].size_bytes, 2048);
    assert_int_equal(a.level[GD_L1C].sets, 8);
    /* each value keeps the source its comment cites */
    assert_string_equal(gd_arch_source_of(&a, "L2", "latency"),
                        "[Jia19] Table 3.1 and [Fig35]: L2 hit ~188 cycles");
    assert_null(gd_arch_source_of(&a, "L2", "prefetch"));
    const char *ov[] = {"L2.latency=190"};
    assert_int_equal(gd_arch_load(path, ov, 1, &a, &err), 0);
    assert_string_equal(gd_arch_source_of(&a, "L2", "latency"), "set on the command line (--set)");
}

static void test_minimal_and_defaults(void **state)
{
    (void)state;
    gd_arch a;
    gd_err err;
    assert_int_equal(parse(minimal, &a, &err), 0);
    assert_int_equal(a.level[GD_L1D].sets, 4);
    assert_int_equal(a.level[GD_L1D].sector_bytes, 128); /* not sectored */
    assert_int_equal(a.level[GD_SMEM].bank_width_bytes, 4);
    assert_false(a.level[GD_TLB1].present);
    assert_int_equal(a.level[GD_L2].scope, GD_SCOPE_CHIP);
}

/* Replaces line `line` (1-based) of the minimal file with `text` and expects
 * an error mentioning "test.arch:LINE:" and `needle`. */
static void expect_error_at(const char *replacement, int line, int expect_line, const char *needle)
{
    char buf[4096] = "";
    const char *p = minimal;
    for (int l = 1; *p; l++) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);
        if (l == line) {
            strcat(buf, replacement);
            strcat(buf, "\n");
        } else {
            strncat(buf, p, len);
        }
        p += len;
    }
    gd_arch a;
    gd_err err = {{0}};
    int rc = parse(buf, &a, &err);
    if (rc == 0)
        fail_msg("expected an error for '%s'", replacement);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "test.arch:%d:", expect_line);
    if (!strstr(err.msg, prefix) || !strstr(err.msg, needle))
        fail_msg("error '%s' lacks '%s' or '%s'", err.msg, prefix, needle);
    assert_null(strchr(err.msg, '\n'));
}

static void test_errors_name_file_and_line(void **state)
{
    (void)state;
    expect_error_at("wayz = 4", 7, 7, "unknown key 'wayz' in [L1D]");
    expect_error_at("ways = four", 7, 7, "'ways' must be a non-negative integer");
    expect_error_at("size = 2 KB", 5, 5, "size in bytes");
    expect_error_at("[L3]", 17, 17, "unknown section [L3]");
    expect_error_at("this line has no equals sign", 6, 6, "syntax error");
    expect_error_at("replacement = mru", 7, 7, "lru, fifo or random");
    expect_error_at("size = 3000", 5, 5, "not a whole number of sets");
    expect_error_at("line = 100", 6, 6, "power of two");
    expect_error_at("latency = 10", 21, 21, "[L2] latency (10) must exceed [L1D] latency (20)");
    expect_error_at("compute_capability = seven", 2, 2, "must look like 7.5");
    /* a missing key is reported at its section's header */
    expect_error_at("; latency removed", 8, 4, "[L1D] is missing 'latency'");
}

static void test_missing_section_and_file(void **state)
{
    (void)state;
    gd_arch a;
    gd_err err;
    const char *no_dram = "[gpu]\ncompute_capability = 7.5\n[L1D]\nsize = 2KiB\nline = 128\n"
                          "ways = 4\nlatency = 20\n";
    assert_int_equal(parse(no_dram, &a, &err), -1);
    assert_non_null(strstr(err.msg, "missing section"));
    assert_int_equal(gd_arch_load("/nonexistent/x.arch", NULL, 0, &a, &err), -1);
    assert_non_null(strstr(err.msg, "/nonexistent/x.arch: cannot open"));
    char longline[400];
    memset(longline, 'x', sizeof longline);
    longline[sizeof longline - 1] = 0;
    char text[4096];
    snprintf(text, sizeof text, "%s; %s\n", minimal, longline);
    assert_int_equal(parse(text, &a, &err), -1);
    assert_non_null(strstr(err.msg, "test.arch:24: line longer"));
}

/* The CN110457238A embodiment-2 GPU: the patent's figures, both mechanisms off
 * (the baseline), each switchable by an override; the sources are cited. */
static void test_cn110457238_embodiment(void **state)
{
    (void)state;
    gd_arch a;
    gd_err err;
    char path[1024];
    assert_int_equal(gd_arch_resolve("cn110457238", path, sizeof path, &err), 0);
    assert_int_equal(gd_arch_load(path, NULL, 0, &a, &err), 0);
    assert_int_equal(a.gpu.sm_count, 15);
    assert_int_equal(a.gpu.max_warps_per_sm * 32, 1536);
    assert_int_equal(a.gpu.shared_per_block_bytes, 48 * 1024);
    const gd_arch_level *l1 = &a.level[GD_L1D], *l2 = &a.level[GD_L2];
    assert_int_equal(l1->size_bytes, 16 * 1024);
    assert_int_equal(l1->ways, 4);
    assert_int_equal(l1->sets, 32);
    assert_int_equal(l1->line_bytes, 128);
    assert_int_equal(l1->latency_cycles, 1);
    assert_int_equal(l1->fifo_entries, 32);
    assert_int_equal(l1->reorder, 0);
    assert_int_equal(l1->pipelined_issue, 0);
    assert_int_equal(l2->size_bytes, 128 * 1024);
    assert_int_equal(l2->ways, 8);
    assert_int_equal(l2->line_bytes, 128);
    assert_int_equal(l2->latency_cycles, 120);
    assert_int_equal(a.level[GD_DRAM].latency_cycles, 220);
    assert_int_equal(a.level[GD_DRAM].requests_per_cycle, 6);
    assert_int_equal(a.level[GD_SMEM].size_bytes, 48 * 1024);
    const char *src = gd_arch_source_of(&a, "L1D", "fifo_entries");
    assert_non_null(src);
    assert_non_null(strstr(src, "[PAT]"));
    src = gd_arch_source_of(&a, "L1D", "mshr_entries");
    assert_non_null(src);
    assert_non_null(strstr(src, "simulator setting"));
    const char *on[] = {"L1D.reorder=true", "L1D.pipelined_issue=on"};
    assert_int_equal(gd_arch_load(path, on, 2, &a, &err), 0);
    assert_int_equal(a.level[GD_L1D].reorder, 1);
    assert_int_equal(a.level[GD_L1D].pipelined_issue, 1);
    assert_int_equal(a.level[GD_L1D].fifo_tail_ports, 1);
    assert_string_equal(gd_arch_source_of(&a, "L1D", "reorder"), "set on the command line (--set)");
    const char *bad[] = {"L1D.pipelined_issue=sometimes"};
    assert_int_equal(gd_arch_load(path, bad, 1, &a, &err), -1);
    assert_non_null(strstr(err.msg, "'pipelined_issue' must be true or false"));
    const char *ports[] = {"L1D.fifo_tail_ports=3"};
    assert_int_equal(gd_arch_load(path, ports, 1, &a, &err), -1);
    assert_non_null(strstr(err.msg, "fifo_tail_ports = 3 is outside 1..2"));
    const char *wrong_level[] = {"L2.reorder=true"};
    assert_int_equal(gd_arch_load(path, wrong_level, 1, &a, &err), -1);
    assert_non_null(strstr(err.msg, "unknown key 'reorder' in [L2]"));
}

/* A request whose messages to the L2 cannot all fit the miss queue would be
 * refused forever: the file is rejected instead, naming the key. */
static void test_miss_queue_holds_a_request(void **state)
{
    (void)state;
    gd_arch a;
    gd_err err;
    /* minimal: 128-B unsectored L1 lines over 64-B L2 lines: 2 messages */
    const char *one[] = {"L1D.miss_queue=1"};
    assert_int_equal(gd_arch_parse_string(minimal, "test.arch", one, 1, &a, &err), -1);
    assert_non_null(strstr(err.msg, "miss_queue (1) must hold the 2 messages"));
    const char *two[] = {"L1D.miss_queue=2"};
    assert_int_equal(gd_arch_parse_string(minimal, "test.arch", two, 1, &a, &err), 0);
    /* 32-B sectors: sectors 0 and 2 of a 128-B line are two runs, twice */
    const char *sectored[] = {"L1D.sector=32", "L2.line=128", "L1D.miss_queue=1"};
    assert_int_equal(gd_arch_parse_string(minimal, "test.arch", sectored, 3, &a, &err), -1);
    assert_non_null(strstr(err.msg, "must hold the 2 messages"));
}

static void test_overrides(void **state)
{
    (void)state;
    gd_arch a;
    gd_err err;
    const char *ok[] = {"L1D.ways=8", "L1D.replacement=fifo", "L1D.reorder=true"};
    assert_int_equal(gd_arch_parse_string(minimal, "test.arch", ok, 3, &a, &err), 0);
    assert_int_equal(a.level[GD_L1D].ways, 8);
    assert_int_equal(a.level[GD_L1D].sets, 2);
    assert_int_equal(a.level[GD_L1D].replacement, GD_REPL_FIFO);
    assert_int_equal(a.level[GD_L1D].reorder, 1);
    const char *bad[] = {"L1D.ways"};
    assert_int_equal(gd_arch_parse_string(minimal, "test.arch", bad, 1, &a, &err), -1);
    assert_non_null(strstr(err.msg, "override 'L1D.ways'"));
    const char *bad2[] = {"L1D.colour=blue"};
    assert_int_equal(gd_arch_parse_string(minimal, "test.arch", bad2, 1, &a, &err), -1);
    assert_non_null(strstr(err.msg, "unknown key 'colour'"));
    /* an override that breaks the geometry is caught by validation */
    const char *bad3[] = {"L1D.ways=3"};
    assert_int_equal(gd_arch_parse_string(minimal, "test.arch", bad3, 1, &a, &err), -1);
    assert_non_null(strstr(err.msg, "not a whole number of sets"));
}

static void test_parse_bytes(void **state)
{
    (void)state;
    uint64_t v;
    assert_int_equal(gd_parse_bytes("128", &v), 0);
    assert_int_equal(v, 128);
    assert_int_equal(gd_parse_bytes("64KiB", &v), 0);
    assert_int_equal(v, 65536);
    assert_int_equal(gd_parse_bytes("1.5 MiB", &v), 0);
    assert_int_equal(v, 3 * 512 * 1024);
    assert_int_equal(gd_parse_bytes("16GiB", &v), 0);
    assert_int_equal(v, 16ull << 30);
    assert_int_equal(gd_parse_bytes("64KB", &v), -1);
    assert_int_equal(gd_parse_bytes("-1", &v), -1);
    assert_int_equal(gd_parse_bytes("0.3", &v), -1);
    assert_int_equal(gd_parse_bytes("", &v), -1);
}

/* Every value line of every shipped arch file carries a comment (its source). */
static void test_every_value_cites_a_source(void **state)
{
    (void)state;
    DIR *d = opendir(gd_arch_dir());
    assert_non_null(d);
    struct dirent *ent;
    int files = 0;
    while ((ent = readdir(d))) {
        size_t len = strlen(ent->d_name);
        if (len < 6 || strcmp(ent->d_name + len - 5, ".arch"))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", gd_arch_dir(), ent->d_name);
        gd_arch a;
        gd_err err;
        if (gd_arch_load(path, NULL, 0, &a, &err) != 0)
            fail_msg("%s", err.msg);
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        char line[512];
        int lineno = 0;
        while (fgets(line, sizeof line, f)) {
            lineno++;
            char *p = line;
            while (*p == ' ' || *p == '\t')
                p++;
            if (*p == ';' || *p == '#' || *p == '[' || *p == '\n' || !*p)
                continue;
            char *semi = strstr(p, " ;");
            if (!semi || strspn(semi + 2, " \t\n") == strlen(semi + 2))
                fail_msg("%s:%d: value without a source comment: %s", path, lineno, p);
        }
        fclose(f);
        files++;
    }
    closedir(d);
    assert_true(files >= 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_t4_has_published_values),
        cmocka_unit_test(test_cn110457238_embodiment),
        cmocka_unit_test(test_miss_queue_holds_a_request),
        cmocka_unit_test(test_minimal_and_defaults),
        cmocka_unit_test(test_errors_name_file_and_line),
        cmocka_unit_test(test_missing_section_and_file),
        cmocka_unit_test(test_overrides),
        cmocka_unit_test(test_parse_bytes),
        cmocka_unit_test(test_every_value_cites_a_source),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
