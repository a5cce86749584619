/* fleet_slurm.h -- gpudissect on a Slurm cluster: the job script, its
 * submission, its state, and what each array task does (fleet_slurm.c). */
#ifndef GD_FLEET_SLURM_H
#define GD_FLEET_SLURM_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/results.h"
#include "host/device.h"

/* What `gpudissect fleet submit` was asked for. */
typedef struct gd_fleet_job_spec {
    const char *exe;          /* absolute path of gpudissect (a shared file system) */
    const char *out_dir;      /* absolute DIR: DIR/<host>-<gpu>/ per card */
    const char *suite;        /* quick, full, or a .suite path */
    const char *device;       /* each task's --device; NULL: cuda:all (per node) or cuda:0 (per GPU) */
    const char *partition;    /* NULL: the cluster's default */
    int gpus_per_node;        /* 0: no GPU request (sim devices, or GPUs outside gres) */
    int nodes;                /* array tasks in per-node mode (default 1) */
    int per_gpu;              /* one task per GPU (--gpus-per-task=1) instead of per node */
    int array_size;           /* 0: nodes (per node) or nodes * gpus_per_node (per GPU) */
    const char *const *sets;  /* --set S.key=V for every task; "%a" becomes the task id */
    size_t set_count;
    const char *const *task_sets; /* "ID:S.key=V": a --set for array task ID only */
    size_t task_set_count;
    const char *const *sbatch_args; /* after `--`: one #SBATCH line each */
    size_t sbatch_arg_count;
} gd_fleet_job_spec;

/* The sbatch script (POSIX sh) into `script`; *array_size gets the array's
 * task count.  Returns 0 or -1 with err (a bad combination of options). */
int gd_fleet_script(const gd_fleet_job_spec *spec, gd_text *script, int *array_size, gd_err *err);

/* `sbatch --parsable SCRIPT`: the job id into job_id.  -1 with err carrying
 * sbatch's own message when it refuses. */
int gd_fleet_sbatch(const char *script_path, char *job_id, size_t size, gd_err *err);

/* The state of a job's array tasks, from squeue (live tasks) and scontrol
 * (finished ones, while the controller still remembers them), else sacct. */
typedef struct gd_fleet_job_state {
    int pending, running, completed, failed, other; /* task counts */
    int active;               /* pending + running + completing: not done yet */
    char detail[2048];        /* "0:COMPLETED 1:RUNNING ...", for printing */
} gd_fleet_job_state;

int gd_fleet_job_query(const char *job_id, gd_fleet_job_state *state, gd_err *err);

/* One array task (`gpudissect fleet task DIR [--task-set ...] -- characterize
 * ARGS`): runs ARGS as a node run into DIR/.partial-JOB-TASK/, with "%a" in
 * ARGS replaced by the task id and the task's own --task-set values added,
 * then renames each device's directory to DIR/<host>-<gpu>/ (a card that is
 * there already is kept as <name>.replaced-JOB-TASK).  One line per device to
 * `progress` (NULL: quiet).  Returns the number of devices that failed, or -1
 * with err. */
int gd_fleet_task(const char *dir, const char *const *task_sets, size_t task_set_count,
                  int argc, char **argv, FILE *progress, gd_err *err);

#endif
