/* cmd_devices.c -- `gpudissect devices` and `gpudissect list`. */
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/arch.h"
#include "host/commands.h"
#include "host/cuda_device.h"
#include "host/device.h"
#include "kernels/probe.h"

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int help_only(int argc, char **argv, const char *text)
{
    static const struct option opts[] = {{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'h') {
            fputs(text, stdout);
            return 0;
        }
        fputs(text, stderr);
        return 2;
    }
    if (optind < argc) {
        fprintf(stderr, "gpudissect: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    return -1;
}

int gd_cmd_devices(int argc, char **argv)
{
    int rc = help_only(argc, argv,
                       "usage: gpudissect devices\n\n"
                       "Lists the CUDA devices the driver reports (cuda:N) and the simulated GPUs\n"
                       "of the bundled arch files (sim:NAME). Without a driver the CUDA part says\n"
                       "why; the exit status is 0 either way.\n");
    if (rc >= 0)
        return rc;
    printf("CUDA devices:\n");
    gd_device_info infos[16];
    int count = 0;
    gd_err err;
    if (cuda_device_list(infos, 16, &count, &err) != 0) {
        printf("  none: %s\n", err.msg);
    } else if (count == 0) {
        printf("  none: the driver reports no devices\n");
    } else {
        for (int i = 0; i < count; i++)
            printf("  cuda:%d  %s  (sm_%d%d, %d SMs, %.0f MHz, L2 %llu KiB, driver %d)\n", i,
                   infos[i].name, infos[i].cc_major, infos[i].cc_minor, infos[i].sm_count,
                   infos[i].clock_mhz, (unsigned long long)(infos[i].l2_bytes / 1024),
                   infos[i].driver_version);
    }
    printf("\nSimulated GPUs (%s):\n", gd_arch_dir());
    DIR *d = opendir(gd_arch_dir());
    if (!d) {
        printf("  none: cannot open the arch directory\n");
        return 0;
    }
    char *names[256];
    int n = 0;
    struct dirent *ent;
    while ((ent = readdir(d)) && n < 256) {
        size_t len = strlen(ent->d_name);
        if (len > 5 && !strcmp(ent->d_name + len - 5, ".arch"))
            names[n++] = strndup(ent->d_name, len - 5);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_str);
    for (int i = 0; i < n; i++) {
        char path[1024];
        gd_arch arch;
        snprintf(path, sizeof path, "%s/%s.arch", gd_arch_dir(), names[i]);
        if (gd_arch_load(path, NULL, 0, &arch, &err) == 0)
            printf("  sim:%-14s %s (sm_%d%d, %u SMs)\n", names[i], arch.gpu.name, arch.gpu.cc_major,
                   arch.gpu.cc_minor, arch.gpu.sm_count);
        else
            printf("  sim:%-14s (invalid: %s)\n", names[i], err.msg);
        free(names[i]);
    }
    return 0;
}

int gd_cmd_list(int argc, char **argv)
{
    int rc = help_only(argc, argv, "usage: gpudissect list\n\nLists the probes and what they sweep.\n");
    if (rc >= 0)
        return rc;
    size_t count;
    const gd_probe *const *probes = gd_probe_list(&count);
    for (size_t i = 0; i < count; i++)
        printf("%-14s sweeps %-16s %s\n", probes[i]->name, probes[i]->sweep_name,
               probes[i]->summary);
    return 0;
}
