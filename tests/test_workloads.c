/* test_workloads.c -- the workloads of `gpudissect whatif` (kernels/workloads/):
 * every one's PTX assembles with ptxas for every target the installed ptxas
 * lists (as tests/test_ptxas.c does for the probes), every one computes what
 * the host computes on the simulator, its inputs follow its seed, its check
 * catches a wrong output, and scatter's conflict knob puts the lanes it says
 * in one L1 set.
 */
#include "tests/testing.h"

#include "host/device_registry.h"
#include "host/whatif.h"
#include "kernels/workloads/workload.h"
#include "tests/ptx_toolchain.h"

static void test_every_workload_assembles_for_every_target(void **state)
{
    (void)state;
    const char *ptxas = gd_test_ptxas();
    if (!ptxas)
        GD_SKIP("ptxas not found");
    const gd_test_target_list *targets = gd_test_target_list_get();
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    size_t n;
    const gd_probe *const *all = gd_workload_list(&n);
    assert_true(n >= 7);
    for (size_t i = 0; i < n; i++)
        for (size_t t = 0; t < targets->count; t++) {
            gd_device_info info = gd_test_device_info(targets->sm[t]);
            gd_probe_plan plan;
            memset(&plan, 0, sizeof plan);
            gd_err err;
            gd_probe_opts opts = {0};
            if (all[i]->plan(&opts, &info, all[i]->example_point, &plan, &err) != 0)
                fail_msg("%s: %s", all[i]->name, err.msg);
            size_t size = 0;
            void *cubin = gd_test_ptxas_compile(ptxas, dir, all[i]->name, plan.ptx,
                                                targets->sm[t], &size);
            if (!cubin)
                fail_msg("%s does not assemble for sm_%d", all[i]->name, targets->sm[t]);
            assert_true(size > 0);
            free(cubin);
            gd_probe_plan_free(all[i], &plan);
        }
    gd_test_rmrf(dir);
    free(dir);
}

/* Runs a workload on a fresh sim:cn110457238. */
static void run_on_sim(const gd_probe *w, uint64_t point, const char *override,
                       gd_whatif_cell *cell)
{
    const char *ov[] = {override};
    gd_device_opts opts = {.overrides = ov, .override_count = override ? 1 : 0};
    gd_device *dev = NULL;
    gd_err err;
    if (gd_device_open("sim:cn110457238", &opts, &dev, &err) != 0)
        fail_msg("%s", err.msg);
    if (gd_whatif_exec(dev, w, point, 0, NULL, cell, &err) != 0)
        fail_msg("%s: %s", w->name, err.msg);
    gd_device_close(dev);
}

static void test_every_workload_computes_what_the_host_does(void **state)
{
    (void)state;
    size_t n;
    const gd_probe *const *all = gd_workload_list(&n);
    for (size_t i = 0; i < n; i++) {
        gd_whatif_cell cell;
        run_on_sim(all[i], all[i]->example_point, NULL, &cell);
        assert_int_equal(cell.ran, 1);
        if (cell.errors != 0)
            fail_msg("%s: %.0f output words differ from the host's", all[i]->name, cell.errors);
        assert_true(cell.cycles > 0);
        assert_true(cell.warp_insns > 0);
    }
}

/* decode counts the words that differ: a corrupted output is caught. */
static void test_the_check_catches_a_wrong_output(void **state)
{
    (void)state;
    const gd_probe *w = gd_workload_find("vecadd");
    assert_non_null(w);
    gd_device_info info = gd_test_device_info(75);
    gd_probe_plan plan;
    memset(&plan, 0, sizeof plan);
    gd_err err;
    gd_probe_opts opts = {0};
    assert_int_equal(w->plan(&opts, &info, 1, &plan, &err), 0);
    const gd_wl_state *st = plan.state;
    size_t words = st->check_words;
    uint32_t *out = malloc(words * 4);
    assert_non_null(out);
    memcpy(out, st->expect, words * 4);
    out[7] ^= 1;
    out[words - 1] += 3;
    void *host[GD_PROBE_MAX_BUFFERS] = {0};
    host[st->check_buffer] = out;
    gd_devptr addr[GD_PROBE_MAX_BUFFERS] = {0};
    gd_probe_result r = {0};
    assert_int_equal(w->decode(&plan, addr, host, &r, &err), 0);
    assert_string_equal(r.series[0].name, "errors");
    assert_int_equal(r.series[0].samples[0], 2);
    gd_probe_result_free(&r);
    free(out);
    gd_probe_plan_free(w, &plan);
}

/* The same seed gives the same inputs; another seed other inputs. */
static void test_inputs_follow_the_seed(void **state)
{
    (void)state;
    size_t n;
    const gd_probe *const *all = gd_workload_list(&n);
    gd_device_info info = gd_test_device_info(75);
    for (size_t i = 0; i < n; i++) {
        gd_probe_plan p[3];
        gd_err err;
        const uint64_t seeds[3] = {11, 11, 12};
        for (int k = 0; k < 3; k++) {
            memset(&p[k], 0, sizeof p[k]);
            gd_probe_opts opts = {.seed = seeds[k]};
            assert_int_equal(all[i]->plan(&opts, &info, all[i]->example_point, &p[k], &err), 0);
        }
        const gd_wl_state *a = p[0].state, *b = p[1].state, *c = p[2].state;
        int any_input = 0, differs = 0;
        for (unsigned j = 0; j < p[0].buffer_count; j++) {
            if (!a->input[j])
                continue;
            any_input = 1;
            assert_int_equal(p[0].buffers[j].bytes, p[1].buffers[j].bytes);
            assert_memory_equal(a->input[j], b->input[j], p[0].buffers[j].bytes);
            /* another seed may change a size too (spmv's nonzeros) */
            size_t common = p[0].buffers[j].bytes < p[2].buffers[j].bytes
                                ? p[0].buffers[j].bytes
                                : p[2].buffers[j].bytes;
            differs |= p[0].buffers[j].bytes != p[2].buffers[j].bytes ||
                       memcmp(a->input[j], c->input[j], common) != 0;
        }
        assert_true(any_input);
        if (!differs)
            fail_msg("%s: seeds 11 and 12 give the same inputs", all[i]->name);
        for (int k = 0; k < 3; k++)
            gd_probe_plan_free(all[i], &p[k]);
    }
}

/* scatter:P puts round(P% of 32) lanes of every warp load in distinct lines of
 * one L1 set (lines 4 KiB apart). */
static void test_scatter_conflicts_are_what_the_knob_says(void **state)
{
    (void)state;
    const gd_probe *w = gd_workload_find("scatter");
    assert_non_null(w);
    gd_device_info info = gd_test_device_info(75);
    const uint64_t percents[] = {0, 25, 50};
    for (size_t p = 0; p < 3; p++) {
        gd_probe_plan plan;
        memset(&plan, 0, sizeof plan);
        gd_err err;
        gd_probe_opts opts = {0};
        assert_int_equal(w->plan(&opts, &info, percents[p], &plan, &err), 0);
        const gd_wl_state *st = plan.state;
        const uint32_t *key = st->input[0];
        size_t keys = plan.buffers[0].bytes / 4;
        uint32_t want = (uint32_t)((percents[p] * 32 + 50) / 100), least = 32;
        for (size_t base = 0; base < keys; base += 32) {
            /* the most distinct lines one set gets in this warp load */
            uint32_t per_set[32] = {0};
            uint32_t lines[32];
            for (int l = 0; l < 32; l++) {
                lines[l] = key[base + l] / 32;
                int dup = 0;
                for (int m = 0; m < l; m++)
                    dup |= lines[m] == lines[l];
                if (!dup)
                    per_set[lines[l] % 32]++;
            }
            uint32_t most = 0;
            for (int s = 0; s < 32; s++)
                most = per_set[s] > most ? per_set[s] : most;
            least = most < least ? most : least;
        }
        assert_true(least >= want);
        if (percents[p] == 0)
            assert_true(least <= 4); /* chance alone: a handful */
        gd_probe_plan_free(w, &plan);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_workload_assembles_for_every_target),
        cmocka_unit_test(test_every_workload_computes_what_the_host_does),
        cmocka_unit_test(test_the_check_catches_a_wrong_output),
        cmocka_unit_test(test_inputs_follow_the_seed),
        cmocka_unit_test(test_scatter_conflicts_are_what_the_knob_says),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
