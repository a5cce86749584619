/* gpgpusim_import.h -- a gpgpusim.config as an arch text.
 *
 * Every option that describes the hierarchy becomes an arch value whose comment
 * cites the option, the config file and its line; the latencies are what
 * GPGPU-Sim *measures* under the config (the options plus the per-level
 * offsets of gpgpusim_config.h), since an arch latency is what a pointer chase
 * measures.  Every option the simulator does not model is listed, by option,
 * in a comment block at the end of the text.  The text is what
 * gd_arch_parse_string reads (analysis/arch.h), which is how `sim:gpgpusim:PATH`
 * and `--arch PATH.config` run the simulator directly from a config.
 */
#ifndef GD_GPGPUSIM_IMPORT_H
#define GD_GPGPUSIM_IMPORT_H

#include "analysis/gpgpusim_config.h"

/* The config's short name: the folder of ".../NAME/gpgpusim.config", else the
 * file name without ".config". */
void gd_gs_config_name(const char *path, char *name, size_t name_bytes);

/* Does `path` name a GPGPU-Sim config (ends in ".config")? */
int gd_gs_is_config_path(const char *path);

/* The arch text of `cfg` (caller frees).  name: NULL for gd_gs_config_name.
 * Marks the options it takes as used; the rest go to the closing comment block. */
int gd_gs_import(gd_gs_config *cfg, const char *name, char **arch_text, gd_err *err);

/* Load and import in one step. */
int gd_gs_import_file(const char *path, const char *name, char **arch_text, gd_err *err);

#endif
