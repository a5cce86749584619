/* cmd_node_run.c -- `characterize --device cuda:all` (or a list): the command
 * line side of a node run (host/node_run.c does the work).
 *
 * The command's own options are passed to every child unchanged, except
 * --device (each child gets its one device) and --out (each child writes
 * RUN/<device>/).  The exit status is the number of devices that failed (0:
 * all ran), capped at GD_NODE_EXIT_CAP; an error before any device ran exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host/commands.h"
#include "host/fleet_merge.h"
#include "host/node_run.h"

#define GD_NODE_EXIT_CAP 100

/* 1 when argv[i] is --device/--out (or -d) whose value is the next argument,
 * 2 when the value is attached (--out=DIR, -dSPEC), 0 otherwise. */
static int device_or_out_option(const char *arg)
{
    if (!strcmp(arg, "--device") || !strcmp(arg, "-d") || !strcmp(arg, "--out"))
        return 1;
    if (!strncmp(arg, "--device=", 9) || !strncmp(arg, "--out=", 6) ||
        (!strncmp(arg, "-d", 2) && arg[2]))
        return 2;
    return 0;
}

int gd_cmd_node_run(const char *command, int argc, char **argv, const char *device, const char *out,
                    int quiet)
{
    gd_err err;
    gd_node_device *devices = calloc(GD_NODE_MAX_DEVICES, sizeof *devices);
    char **args = calloc((size_t)argc + 1, sizeof *args);
    int status = 1;
    if (!devices || !args) {
        gd_report_error("out of memory");
        goto out;
    }
    size_t count = 0, arg_count = 0;
    if (gd_node_expand(device, devices, GD_NODE_MAX_DEVICES, &count, &err) != 0) {
        gd_report_error(err.msg);
        goto out;
    }
    for (int i = 1; i < argc; i++) {
        int kind = device_or_out_option(argv[i]);
        if (kind == 1)
            i++;
        else if (kind == 0)
            args[arg_count++] = argv[i];
    }
    char exe[1024];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) {
        gd_report_error("cannot read /proc/self/exe: the node run starts its children from it");
        goto out;
    }
    exe[len] = 0;
    char out_dir[512];
    if (out) {
        snprintf(out_dir, sizeof out_dir, "%s", out);
    } else {
        char stamp[32];
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
        snprintf(out_dir, sizeof out_dir, "results/%s-node", stamp);
    }
    if (!quiet)
        fprintf(stderr, "node run: %zu devices at once, each into %s/<device>/\n", count, out_dir);
    gd_node_run_opts opts = {.exe = exe, .command = command, .args = args, .arg_count = arg_count,
                             .out_dir = out_dir, .progress = quiet ? NULL : stderr};
    int failed = gd_node_run(&opts, devices, count, &err);
    if (failed < 0) {
        gd_report_error(err.msg);
        goto out;
    }
    char host[256];
    gd_node_host_name(host, sizeof host);
    printf("node run on %s: %zu devices, %d failed\n", host, count, failed);
    for (size_t i = 0; i < count; i++) {
        const gd_node_device *d = &devices[i];
        printf("  %-12s %-6s %s/%s  %s%s%s\n", d->spec, d->exit_status ? "failed" : "ok", out_dir,
               d->dir_name, d->binding.note, d->error[0] ? "; error: " : "", d->error);
    }
    gd_fleet_summary sum;
    if (gd_fleet_merge(out_dir, 1, &sum, &err) != 0)
        fprintf(stderr, "gpudissect: warning: node summary: %s\n", err.msg);
    else
        printf("summary: %s/node.json, %s/fleet.md (%zu parameters, %zu outliers)\n", out_dir,
               out_dir, sum.parameters, sum.outliers);
    printf("%s\n", out_dir);
    status = failed > GD_NODE_EXIT_CAP ? GD_NODE_EXIT_CAP : failed;
out:
    free(devices);
    free(args);
    return status;
}
