/* node_run.h -- every GPU of one node: one child process per device (node_run.c).
 *
 * `gpudissect characterize --device cuda:all` (or `cuda:0,2,5`, or
 * `sim:t4,sim:v100`) expands the device list, creates RUN/<device>/ for each,
 * and runs the same command once per device as a child process of the same
 * binary, all at once, each bound with hwloc to the cores and memory nearest its
 * GPU (node_bind.c).  A device that fails does not stop the others: each child's
 * outcome lands in RUN/<device>/status.json and in RUN/node.json.
 */
#ifndef GD_NODE_RUN_H
#define GD_NODE_RUN_H

#include <stdio.h>
#include <sys/types.h>

#include "host/device.h"
#include "host/node_bind.h"

#define GD_NODE_MAX_DEVICES 64

typedef struct gd_node_device {
    char spec[128];         /* "cuda:2", "sim:t4" */
    char dir_name[128];     /* "cuda2", "sim-t4" (a repeated spec gets "-2", ...) */
    char pci_bus_id[32];    /* cuda: what the driver reported; sim or unknown: "" */
    char cuda_visible[128]; /* the CUDA_VISIBLE_DEVICES entry this ordinal is, or "" */
    gd_node_binding binding; /* what the child was bound to, or why not (node_bind.c) */
    /* outcome */
    pid_t pid;
    int exit_status;        /* the child's exit status; 128 + signal when killed */
    char error[GD_ERR_MSG_BYTES]; /* its "gpudissect: error:" line, or "" */
    char start_time[32], end_time[32];
} gd_node_device;

/* 1 when `spec` names more than one device: "cuda:all" or a comma list. */
int gd_node_spec_is_multi(const char *spec);

/* Expands "cuda:all", "cuda:0,2,5" (later items without a prefix take the one
 * before), "sim:t4,sim:v100".  CUDA devices are enumerated through the driver
 * (their PCI bus ids come from there; for cuda:all a driver that is missing is
 * an error).  Fills up to `max`; returns 0 or -1 with err. */
int gd_node_expand(const char *spec, gd_node_device *devices, size_t max, size_t *count,
                   gd_err *err);

typedef struct gd_node_run_opts {
    const char *exe;          /* the binary to run: normally /proc/self/exe */
    const char *command;      /* "characterize" or "run" */
    char *const *args;        /* the command's options without --device and --out */
    size_t arg_count;
    const char *out_dir;      /* RUN/: each device writes RUN/<dir_name>/ */
    FILE *progress;           /* one line per device as it ends; NULL: quiet */
} gd_node_run_opts;

/* Runs every device's child at once, waits for all, writes each
 * RUN/<device>/status.json (and adds "node_run" to its meta.json when the child
 * got as far as writing one) and RUN/node.json.  Returns the number of devices
 * that failed (0..count), or -1 with err when the run could not be started. */
int gd_node_run(const gd_node_run_opts *opts, gd_node_device *devices, size_t count, gd_err *err);

/* The node's identity for results: SLURMD_NODENAME when Slurm runs us, else
 * the host name. */
void gd_node_host_name(char *buf, size_t size);

#endif
