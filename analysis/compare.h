/* compare.h -- measured vs arch file, per parameter and per plateau (compare.c). */
#ifndef GD_COMPARE_H
#define GD_COMPARE_H

#include <jansson.h>

#include "analysis/arch.h"
#include "analysis/run_load.h"

/* Builds compare.json for a loaded run (which must have inferred.json). */
int gd_compare_run(const gd_run *run, const gd_arch *arch, json_t **out, gd_err *err);

#endif
