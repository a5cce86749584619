/* commands.h -- the subcommands of the gpudissect CLI (one file each). */
#ifndef GD_COMMANDS_H
#define GD_COMMANDS_H

/* Each returns the process exit status: 0 success, 1 failure, 2 usage error. */
int gd_cmd_devices(int argc, char **argv);
int gd_cmd_list(int argc, char **argv);
int gd_cmd_run(int argc, char **argv);
int gd_cmd_emit(int argc, char **argv);
int gd_cmd_characterize(int argc, char **argv);
int gd_cmd_model(int argc, char **argv);
int gd_cmd_compare(int argc, char **argv);
int gd_cmd_plot(int argc, char **argv);
int gd_cmd_report(int argc, char **argv);

/* --carveout PERCENT: an integer 0..100 into *out; 0, or -1 after printing
 * the usage error. */
int gd_parse_carveout_option(const char *text, int *out);

/* Prints "gpudissect: error: MSG" on stderr; returns 1. */
int gd_report_error(const char *msg);

#endif
