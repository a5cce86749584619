/* commands.h -- the subcommands of the gpudissect CLI (one file each). */
#ifndef GD_COMMANDS_H
#define GD_COMMANDS_H

/* Each returns the process exit status: 0 success, 1 failure, 2 usage error,
 * and for characterize 3: the run went to the end but some steps failed. */
#define GD_EXIT_STEPS_FAILED 3
int gd_cmd_devices(int argc, char **argv);
int gd_cmd_list(int argc, char **argv);
int gd_cmd_run(int argc, char **argv);
int gd_cmd_emit(int argc, char **argv);
int gd_cmd_characterize(int argc, char **argv);
int gd_cmd_model(int argc, char **argv);
int gd_cmd_compare(int argc, char **argv);
int gd_cmd_plot(int argc, char **argv);
int gd_cmd_report(int argc, char **argv);
int gd_cmd_fleet(int argc, char **argv);
int gd_cmd_whatif(int argc, char **argv);

/* `characterize` (or another single-device command) on several devices at
 * once: --device cuda:all, cuda:0,2,5, sim:t4,sim:v100 (cmd_node_run.c).
 * Returns the number of devices that failed, 1 when none could start. */
int gd_cmd_node_run(const char *command, int argc, char **argv, const char *device,
                    const char *out, int quiet);

/* cmd_config.c: GPGPU-Sim configs (issue 16); validate exits 3 on a contradiction */
int gd_cmd_import_config(int argc, char **argv);
int gd_cmd_export_config(int argc, char **argv);
int gd_cmd_validate(int argc, char **argv);
/* cmd_infer.c: the inference redone from a results directory */
int gd_cmd_infer(int argc, char **argv);
/* cmd_import_curve.c: a footprint/latency table as a results directory */
int gd_cmd_import_curve(int argc, char **argv);

/* --carveout PERCENT: an integer 0..100 into *out; 0, or -1 after printing
 * the usage error. */
int gd_parse_carveout_option(const char *text, int *out);

/* Prints "gpudissect: error: MSG" on stderr; returns 1. */
int gd_report_error(const char *msg);

#endif
