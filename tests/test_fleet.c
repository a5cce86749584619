/* test_fleet.c -- node runs (--device cuda:all, lists of devices), the hwloc
 * binding of their children, the fleet merge and its outlier rule, and the
 * sbatch script `fleet submit` writes.  The Slurm round trip itself is
 * tests/test_fleet_slurm.c.
 *
 * cuda:all runs against the mock driver (tests/mock_libcuda*.c) presenting
 * four devices, one of whose contexts fails with an uncorrectable ECC error.
 * The mock executes no kernel, so its healthy devices run a suite whose one
 * step needs a level nothing measured (skipped): they open, record their
 * metadata and finish; the failing one must fail alone, with the driver's
 * error, and the exit status must count it.
 */
#include "tests/testing.h"

#include <jansson.h>
#include <math.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <hwloc.h>

#include "analysis/results.h"
#include "host/fleet_merge.h"
#include "host/node_bind.h"
#include "host/node_run.h"
#include "tests/results_json.h"

static char out[65536];

static json_t *load(const char *dir, const char *sub, const char *file)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/%s/%s", dir, sub, file);
    json_t *doc = json_load_file(path, 0, NULL);
    if (!doc)
        fail_msg("%s did not load", path);
    return doc;
}

static const char *str(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

/* 1 when fleet.json lists (card, parameter) among its outliers. */
static int flagged(const json_t *fleet, const char *card, const char *parameter)
{
    size_t i;
    const json_t *o;
    json_array_foreach(json_object_get(fleet, "outliers"), i, o) {
        if (!strcmp(str(o, "card"), card) && !strcmp(str(o, "parameter"), parameter))
            return 1;
    }
    return 0;
}

/* ---- the rule ------------------------------------------------------------------ */

static void test_stats_and_outlier_rule(void **state)
{
    (void)state;
    const double v[] = {100, 101, 99, 100, 130};
    double med, lo, hi, mad, z;
    assert_int_equal(gd_fleet_stats(v, 5, &med, &lo, &hi, &mad), 0);
    assert_true(med == 100 && lo == 99 && hi == 130);
    assert_true(mad == 1); /* |deviations| 0 1 1 0 30 -> median 1 */
    assert_true(gd_fleet_is_outlier(130, med, mad, 5, &z));
    assert_true(fabs(z - GD_FLEET_MAD_TO_Z * 30) < 1e-9);
    assert_false(gd_fleet_is_outlier(101, med, mad, 5, &z)); /* below the 5% floor */
    /* past the floor but within 3.5 robust z of a wide spread */
    assert_false(gd_fleet_is_outlier(110, 100, 10, 5, &z));
    assert_true(gd_fleet_is_outlier(160, 100, 10, 5, &z));
    /* MAD 0: any difference past the floor stands out, none below it */
    assert_true(gd_fleet_is_outlier(4096, 2048, 0, 5, &z) && isinf(z));
    assert_false(gd_fleet_is_outlier(2048, 2048, 0, 5, &z));
    assert_false(gd_fleet_is_outlier(20.5, 20, 0, 5, &z)); /* under a cycle */
    /* two cards: nobody can say which is odd */
    assert_false(gd_fleet_is_outlier(4096, 3072, 1024, 2, &z));
}

/* ---- merge over hand-made cards ------------------------------------------------------- */

static void write_card(const char *dir, const char *name, const char *status, long task,
                       double l2_latency)
{
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(mkdir(path, 0777), 0);
    json_t *st = json_pack("{s:s, s:s, s:s, s:s?, s:{s:s}}", "device", "cuda:0", "host", name,
                           "status", status, "error",
                           strcmp(status, "ok") ? "cuInit failed: CUDA_ERROR_NO_DEVICE" : NULL,
                           "slurm", "array_task_id", "0");
    char task_s[16];
    snprintf(task_s, sizeof task_s, "%ld", task);
    json_object_set_new(json_object_get(st, "slurm"), "array_task_id", json_string(task_s));
    snprintf(path, sizeof path, "%s/%s/status.json", dir, name);
    assert_int_equal(json_dump_file(st, path, 0), 0);
    json_decref(st);
    if (strcmp(status, "ok"))
        return;
    json_t *inf = json_pack("{s:[{s:s, s:i, s:f, s:f}]}", "levels", "name", "L2", "size_bytes",
                            4194304, "latency_cycles", l2_latency, "latency_confidence", 0.5);
    snprintf(path, sizeof path, "%s/%s/inferred.json", dir, name);
    assert_int_equal(json_dump_file(inf, path, 0), 0);
    json_decref(inf);
    json_t *meta = json_pack("{s:{s:s, s:i}}", "device", "spec", "cuda:0", "sm_count", 40);
    snprintf(path, sizeof path, "%s/%s/meta.json", dir, name);
    assert_int_equal(json_dump_file(meta, path, 0), 0);
    json_decref(meta);
}

static void test_merge_flags_failed_missing_interrupted(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    /* seven array tasks: five cards, one failed, one interrupted (.partial), one missing */
    write_card(dir, "n1-gpu0", "ok", 0, 188);
    write_card(dir, "n1-gpu1", "ok", 1, 189);
    write_card(dir, "n2-gpu0", "ok", 2, 187);
    write_card(dir, "n2-gpu1", "ok", 3, 240); /* the slow L2 */
    write_card(dir, "n3-gpu0", "ok", 4, 188);
    write_card(dir, "n3-gpu1", "failed", 5, 0);
    char path[1400];
    snprintf(path, sizeof path, "%s/.partial-77-6", dir);
    assert_int_equal(mkdir(path, 0777), 0);
    json_t *job = json_pack("{s:s, s:i}", "job_id", "77", "array_size", 8);
    snprintf(path, sizeof path, "%s/fleet-job.json", dir);
    assert_int_equal(json_dump_file(job, path, 0), 0);
    json_decref(job);

    gd_fleet_summary sum;
    gd_err err;
    assert_int_equal(gd_fleet_merge(dir, 0, &sum, &err), 0);
    assert_int_equal(sum.cards, 6);
    assert_int_equal(sum.ok, 5);
    assert_int_equal(sum.failed, 2); /* the failed card and the interrupted task */
    assert_int_equal(sum.missing, 1); /* task 7 */
    json_t *fleet = gd_test_load_json(dir, "fleet.json");
    assert_true(flagged(fleet, "n2-gpu1", "L2.latency_cycles"));
    assert_int_equal(json_array_size(json_object_get(fleet, "outliers")), 1);
    const json_t *p = json_object_get(json_object_get(fleet, "parameters"), "L2.latency_cycles");
    assert_int_equal(json_integer_value(json_object_get(p, "cards")), 5);
    assert_true(json_number_value(json_object_get(p, "median")) == 188);
    assert_true(json_number_value(json_object_get(p, "max")) == 240);
    assert_true(json_number_value(json_object_get(p, "mad")) == 1);
    /* confidences are not parameters */
    assert_null(json_object_get(json_object_get(fleet, "parameters"), "L2.latency_confidence"));
    assert_non_null(json_object_get(json_object_get(fleet, "parameters"), "device.sm_count"));
    /* the three ways to fail, each with its reason */
    int failed_card = 0, interrupted = 0, missing = 0;
    size_t i;
    const json_t *f;
    json_array_foreach(json_object_get(fleet, "failed"), i, f) {
        const char *reason = str(f, "reason");
        failed_card |= !strcmp(str(f, "card"), "n3-gpu1") && strstr(reason, "CUDA_ERROR_NO_DEVICE");
        interrupted |= json_integer_value(json_object_get(f, "task")) == 6 && strstr(reason, "interrupted");
        missing |= json_integer_value(json_object_get(f, "task")) == 7 && strstr(reason, "no result");
    }
    assert_true(failed_card && interrupted && missing);
    json_decref(fleet);
    snprintf(path, sizeof path, "%s/fleet.md", dir);
    size_t bytes;
    char *md = gd_read_file(path, &bytes, &err);
    assert_non_null(md);
    assert_non_null(strstr(md, "| n2-gpu1 | L2.latency_cycles | 240 | 188 | 1 |"));
    free(md);
    gd_test_rmrf(dir);
    free(dir);
}

/* ---- node runs -------------------------------------------------------------------------- */

static void test_node_run_sim_devices_one_failing(void **state)
{
    (void)state;
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "%s characterize --device sim:tiny,tiny,sim:rand,sim:nosuch --quiet --out %s/node",
             gd_test_binary(), dir);
    int rc = gd_test_run(cmd, out, sizeof out);
    if (rc != 1)
        fail_msg("exit %d (want 1: one device failed):\n%s", rc, out);
    char node[1100];
    snprintf(node, sizeof node, "%s/node", dir);
    json_t *nj = gd_test_load_json(node, "node.json");
    assert_int_equal(json_integer_value(json_object_get(nj, "failed")), 1);
    assert_int_equal(json_array_size(json_object_get(nj, "devices")), 4);
    json_decref(nj);
    /* the repeated spec got its own directory; the failure is isolated */
    static const char *const ok_dirs[] = {"sim-tiny", "sim-tiny-2", "sim-rand"};
    for (size_t i = 0; i < 3; i++) {
        json_t *st = load(node, ok_dirs[i], "status.json");
        assert_string_equal(str(st, "status"), "ok");
        const json_t *binding = json_object_get(st, "binding");
        assert_false(json_is_true(json_object_get(binding, "bound")));
        assert_non_null(strstr(str(binding, "note"), "sim device"));
        json_decref(st);
        json_t *meta = load(node, ok_dirs[i], "meta.json");
        assert_string_equal(str(json_object_get(meta, "node_run"), "dir"), ok_dirs[i]);
        json_decref(meta);
        json_t *inf = load(node, ok_dirs[i], "inferred.json");
        json_decref(inf);
    }
    json_t *st = load(node, "sim-nosuch", "status.json");
    assert_string_equal(str(st, "status"), "failed");
    assert_non_null(strstr(str(st, "error"), "nosuch.arch"));
    json_decref(st);
    /* the node summary: sim:rand is not a tiny */
    json_t *fleet = gd_test_load_json(node, "fleet.json");
    assert_true(flagged(fleet, "sim-rand", "L1D.size_bytes"));
    assert_false(flagged(fleet, "sim-tiny", "L1D.size_bytes"));
    json_decref(fleet);
    gd_test_rmrf(dir);
    free(dir);
}

/* Four mock devices, the third failing.  hwloc's PCI discovery is switched off
 * (HWLOC_COMPONENTS=-pci): the mock's bus ids are on no host, and libpciaccess
 * leaks on every load, which LeakSanitizer would turn into exit statuses under
 * `make test SAN=1` (the binding has its own test below). */
#define MOCK_ENV                                                                                  \
    "HWLOC_COMPONENTS=-pci GPUDISSECT_LIBCUDA=%s GD_MOCK_CUDA_DEVICES=4 "                         \
    "GD_MOCK_CUDA_FAILING_DEVICE=2 "

static void test_cuda_all_mock_one_device_failing(void **state)
{
    (void)state;
    const char *mock = gd_test_mock_libcuda();
    if (!mock)
        GD_SKIP("mock CUDA driver not built (no CUDA headers)");
    char *dir = gd_test_tmpdir();
    assert_non_null(dir);
    char suite[1100], cmd[4096];
    snprintf(suite, sizeof suite, "%s/skipped.suite", dir);
    FILE *f = fopen(suite, "w");
    assert_non_null(f);
    fputs("# one step that needs a level nothing measured: skipped on every device\n"
          "icache-l0 icache_seq --sweep 1KiB:2*L0I\n", f);
    fclose(f);
    snprintf(cmd, sizeof cmd,
             MOCK_ENV "CUDA_VISIBLE_DEVICES=0,1,MIG-5c8b1bd4-aaaa,3 %s characterize --device cuda:all "
             "--suite %s --arch tiny --quiet --out %s/all",
             mock, gd_test_binary(), suite, dir);
    int rc = gd_test_run(cmd, out, sizeof out);
    if (rc != 1)
        fail_msg("exit %d (want 1: one device failed):\n%s", rc, out);
    char all[1100];
    snprintf(all, sizeof all, "%s/all", dir);
    static const char *const bus[] = {"0000:65:00.0", "0000:66:00.0", "0000:67:00.0",
                                      "0000:68:00.0"};
    for (int i = 0; i < 4; i++) {
        char sub[16];
        snprintf(sub, sizeof sub, "cuda%d", i);
        json_t *st = load(all, sub, "status.json");
        assert_string_equal(str(st, "pci_bus_id"), bus[i]);
        assert_string_equal(str(st, "cuda_visible_devices"), "0,1,MIG-5c8b1bd4-aaaa,3");
        if (i == 2) {
            assert_string_equal(str(st, "status"), "failed");
            assert_non_null(strstr(str(st, "error"), "CUDA_ERROR_ECC_UNCORRECTABLE"));
            assert_string_equal(str(st, "mig_instance"), "MIG-5c8b1bd4-aaaa");
        } else {
            assert_string_equal(str(st, "status"), "ok");
            assert_true(json_is_null(json_object_get(st, "mig_instance")));
            /* the child opened its own device: meta.json says which card */
            json_t *meta = load(all, sub, "meta.json");
            assert_string_equal(str(json_object_get(meta, "device"), "pci_bus_id"), bus[i]);
            assert_string_equal(str(json_object_get(meta, "node_run"), "pci_bus_id"), bus[i]);
            json_decref(meta);
        }
        json_decref(st);
    }
    /* the list form, every device healthy */
    snprintf(cmd, sizeof cmd,
             MOCK_ENV "%s characterize --device cuda:0,3 --suite %s --arch tiny --quiet --out %s/list",
             mock, gd_test_binary(), suite, dir);
    rc = gd_test_run(cmd, out, sizeof out);
    if (rc != 0)
        fail_msg("exit %d (want 0):\n%s", rc, out);
    snprintf(all, sizeof all, "%s/list", dir);
    json_t *nj = gd_test_load_json(all, "node.json");
    assert_int_equal(json_array_size(json_object_get(nj, "devices")), 2);
    assert_string_equal(str(json_array_get(json_object_get(nj, "devices"), 1), "pci_bus_id"),
                        bus[3]);
    json_decref(nj);
    /* without a driver, cuda:all is one error before anything runs */
    snprintf(cmd, sizeof cmd,
             "GPUDISSECT_LIBCUDA=/nonexistent/libcuda.so.1 %s characterize --device cuda:all "
             "--quiet --out %s/none",
             gd_test_binary(), dir);
    rc = gd_test_run(cmd, out, sizeof out);
    assert_int_equal(rc, 1);
    assert_non_null(strstr(out, "--device cuda:all:"));
    gd_test_rmrf(dir);
    free(dir);
}

/* Binding: a PCI device hwloc finds on this host stands in for a GPU.  It all
 * runs in a child that leaves with _exit: hwloc's PCI discovery (libpciaccess,
 * a plugin hwloc unloads) leaks a little on every load, which LeakSanitizer
 * would report at this test's exit.  The child's exit code says what failed. */
enum { BIND_OK, BIND_OPEN, BIND_UNKNOWN_BUS, BIND_NOT_BOUND, BIND_WRONG_SET, BIND_APPLY,
       BIND_AFFINITY, BIND_SIM, BIND_NO_PCI = 77 };

static int bind_check_with(gd_node_binder *binder, hwloc_topology_t topo, hwloc_bitmap_t now,
                           hwloc_bitmap_t expect)
{
    gd_err err;
    /* an unknown bus: not bound, and the note names it */
    gd_node_binding b;
    gd_node_bind_plan(binder, "cuda:0", "00ff:ee:1f.7", &b);
    if (b.bound || !strstr(b.note, "00ff:ee:1f.7"))
        return BIND_UNKNOWN_BUS;
    /* a sim device is never bound */
    gd_node_bind_plan(binder, "sim:t4", "", &b);
    if (b.bound || !strstr(b.note, "sim device"))
        return BIND_SIM;
    hwloc_obj_t pci = hwloc_get_next_pcidev(topo, NULL);
    if (!pci)
        return BIND_NO_PCI;
    char bus[32];
    snprintf(bus, sizeof bus, "%04x:%02x:%02x.%x", pci->attr->pcidev.domain,
             pci->attr->pcidev.bus, pci->attr->pcidev.dev, pci->attr->pcidev.func);
    gd_node_bind_plan(binder, "cuda:0", bus, &b);
    if (!b.bound)
        return BIND_NOT_BOUND;
    char want[128];
    hwloc_bitmap_list_snprintf(want, sizeof want, hwloc_get_non_io_ancestor_obj(topo, pci)->cpuset);
    if (strcmp(b.cpuset, want))
        return BIND_WRONG_SET;
    /* applied, the process's affinity is exactly that set */
    if (gd_node_bind_apply(binder, &b, &err) != 0)
        return BIND_APPLY;
    hwloc_get_cpubind(topo, now, HWLOC_CPUBIND_PROCESS);
    hwloc_bitmap_list_sscanf(expect, want);
    return hwloc_bitmap_isequal(now, expect) ? BIND_OK : BIND_AFFINITY;
}

static int bind_check(void)
{
    gd_node_binder *binder;
    gd_err err;
    if (gd_node_binder_open(&binder, &err) != 0)
        return BIND_OPEN;
    hwloc_topology_t topo;
    hwloc_topology_init(&topo);
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    hwloc_topology_load(topo);
    hwloc_bitmap_t now = hwloc_bitmap_alloc(), expect = hwloc_bitmap_alloc();
    int rc = bind_check_with(binder, topo, now, expect);
    hwloc_bitmap_free(now);
    hwloc_bitmap_free(expect);
    hwloc_topology_destroy(topo);
    gd_node_binder_close(binder);
    return rc;
}

static void test_bind_to_pci_neighbourhood(void **state)
{
    (void)state;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0)
        _exit(bind_check());
    int w;
    assert_int_equal(waitpid(pid, &w, 0), pid);
    assert_true(WIFEXITED(w));
    if (WEXITSTATUS(w) == BIND_NO_PCI)
        GD_SKIP("hwloc sees no PCI device on this host: binding not exercised");
    if (WEXITSTATUS(w) != BIND_OK)
        fail_msg("binding check failed at step %d", WEXITSTATUS(w));
}

static void test_expand_device_lists(void **state)
{
    (void)state;
    gd_node_device d[8];
    size_t n;
    gd_err err;
    assert_int_equal(gd_node_expand("sim:t4,v100,sim:t4", d, 8, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_string_equal(d[1].spec, "sim:v100");
    assert_string_equal(d[2].dir_name, "sim-t4-2");
    assert_int_equal(gd_node_expand("t4,v100", d, 8, &n, &err), -1);
    assert_int_equal(gd_node_expand("sim:t4,", d, 8, &n, &err), -1);
    assert_int_equal(gd_node_expand("sim:a,sim:b,sim:c", d, 2, &n, &err), -1);
    assert_true(gd_node_spec_is_multi("cuda:all") && gd_node_spec_is_multi("sim:a,sim:b"));
    assert_false(gd_node_spec_is_multi("cuda:1"));
}

/* ---- the job script ------------------------------------------------------------------ */

static void test_submit_dry_run_script(void **state)
{
    (void)state;
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "%s fleet submit --dry-run --suite full --nodes 3 --gpus-per-node 8 --partition gpu "
             "--out /tmp/gd-fleet-dry -- --time=30 --account=lab",
             gd_test_binary());
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 0);
    assert_non_null(strstr(out, "#SBATCH --array=0-2\n"));
    assert_non_null(strstr(out, "#SBATCH --gres=gpu:8\n"));
    assert_non_null(strstr(out, "#SBATCH --partition=gpu\n"));
    assert_non_null(strstr(out, "#SBATCH --time=30\n#SBATCH --account=lab\n"));
    assert_non_null(strstr(out, "#SBATCH --output=/tmp/gd-fleet-dry/slurm/%A_%a.out\n"));
    assert_non_null(strstr(out, "fleet task '/tmp/gd-fleet-dry' -- characterize --quiet --suite "
                                "'full' --device 'cuda:all'"));
    struct stat st;
    assert_int_not_equal(stat("/tmp/gd-fleet-dry", &st), 0); /* a dry run writes nothing */

    snprintf(cmd, sizeof cmd,
             "%s fleet submit --dry-run --per-gpu --nodes 2 --gpus-per-node 4 --out /tmp/gd-fd "
             "--set \"noise.seed=%%a\" --task-set \"5:L1D.size=4KiB\"",
             gd_test_binary());
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 0);
    assert_non_null(strstr(out, "#SBATCH --array=0-7\n"));
    assert_non_null(strstr(out, "#SBATCH --gpus-per-task=1\n"));
    assert_null(strstr(out, "--gres"));
    assert_non_null(strstr(out, "--task-set '5:L1D.size=4KiB'"));
    assert_non_null(strstr(out, "--device 'cuda:0' --set 'noise.seed=%a'"));

    /* a task id outside the array, --per-gpu without GPUs: usage errors */
    snprintf(cmd, sizeof cmd, "%s fleet submit --dry-run --nodes 2 --task-set 2:L1D.size=1",
             gd_test_binary());
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 2);
    assert_non_null(strstr(out, "ID in 0..1"));
    snprintf(cmd, sizeof cmd, "%s fleet submit --dry-run --per-gpu", gd_test_binary());
    assert_int_equal(gd_test_run(cmd, out, sizeof out), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_and_outlier_rule),
        cmocka_unit_test(test_merge_flags_failed_missing_interrupted),
        cmocka_unit_test(test_expand_device_lists),
        cmocka_unit_test(test_node_run_sim_devices_one_failing),
        cmocka_unit_test(test_cuda_all_mock_one_device_failing),
        cmocka_unit_test(test_bind_to_pci_neighbourhood),
        cmocka_unit_test(test_submit_dry_run_script),
    };
    gd_test_filter_from_env();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
