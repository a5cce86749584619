/* gpgpusim_validate.c -- does a GPGPU-Sim config match the card a run measured?
 *
 * Option by option (field by field for cache strings): what the config says,
 * what GPGPU-Sim would measure under it, what the card measured, and a
 * verdict.  Latencies are compared as GPGPU-Sim measures them, not as its
 * options add up: a level's predicted latency is the options' sum plus that
 * level's offset (gpgpusim_config.h), and each latency option is judged on its
 * own share (-gpgpu_l2_rop_latency against L2 - L1, -dram_latency against
 * DRAM - L2), so that one wrong option contradicts that option only.  A value
 * the run only bounds (MSHRs beyond what one SM can fill) contradicts the
 * config only when the bound exceeds it.
 */
#include "analysis/gpgpusim_export.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/results.h"

#define GS_LATENCY_TOLERANCE_CYCLES 2.0 /* the sim recovers latencies to +-1 cycle */
#define GS_REPORT_MARK "<!-- gpudissect validate -->"

/* How far a measured value may lie from the config's and still match. */
static double tolerance_of(gd_gs_field f, const gd_gs_value *cfg)
{
    switch (f) {
    case GD_GS_L1_LATENCY:
    case GD_GS_ROP_LATENCY:
    case GD_GS_DRAM_LATENCY:
    case GD_GS_SMEM_LATENCY:
        return GS_LATENCY_TOLERANCE_CYCLES;
    case GD_GS_DL1_SIZE:
        /* a capacity is pinned to one line: the dl1 line */
        return cfg[GD_GS_DL1_LINE].has ? cfg[GD_GS_DL1_LINE].value - 1 : 0;
    case GD_GS_DL2_SIZE:
        /* the L2 knee, to one chase stride (max of both lines) */
        return cfg[GD_GS_DL1_LINE].has ? fmax(cfg[GD_GS_DL1_LINE].value, 128) - 1 : 127;
    case GD_GS_L1C_SIZE:
        return cfg[GD_GS_L1C_LINE].has ? cfg[GD_GS_L1C_LINE].value - 1 : 0;
    default:
        return 0;
    }
}

typedef enum { V_MATCH, V_CONTRADICTED, V_NOT_MEASURED, V_NOT_IN_CONFIG } gs_verdict;
static const char *const verdict_names[] = {"match", "contradicted", "not measured", "not in config"};

static gs_verdict judge(gd_gs_field f, const gd_gs_value *c, const gd_gs_value *m, double tol,
                        double *by)
{
    *by = 0;
    if (!c->has)
        return V_NOT_IN_CONFIG;
    if (!m->has)
        return V_NOT_MEASURED;
    if (f == GD_GS_DL1_REPLACEMENT && m->lru_or_fifo && m->value < 1.5)
        return c->value < 1.5 ? V_MATCH : V_CONTRADICTED;
    if (m->lower_bound) {
        if (m->value > c->value + tol) {
            *by = m->value - c->value;
            return V_CONTRADICTED;
        }
        return V_NOT_MEASURED;
    }
    *by = m->value - c->value;
    return fabs(*by) <= tol ? V_MATCH : V_CONTRADICTED;
}

/* What GPGPU-Sim measures under the config, for the latency rows (a level's
 * latency); the config's own value elsewhere. */
static double gpgpusim_measures(gd_gs_field f, const gd_gs_value *c, int *has)
{
    double l1 = c[GD_GS_L1_LATENCY].value, rop = c[GD_GS_ROP_LATENCY].value;
    double dram = c[GD_GS_DRAM_LATENCY].value;
    *has = c[f].has;
    switch (f) {
    case GD_GS_L1_LATENCY:
        return l1 + GD_GS_L1_OFFSET_CYCLES;
    case GD_GS_ROP_LATENCY:
        *has = *has && c[GD_GS_L1_LATENCY].has;
        return l1 + rop + GD_GS_L2_OFFSET_CYCLES;
    case GD_GS_DRAM_LATENCY:
        *has = *has && c[GD_GS_L1_LATENCY].has && c[GD_GS_ROP_LATENCY].has;
        return l1 + rop + dram + GD_GS_DRAM_OFFSET_CYCLES;
    case GD_GS_SMEM_LATENCY:
        return c[f].value + GD_GS_SMEM_OFFSET_CYCLES;
    default:
        return c[f].value;
    }
}

/* The card's value as the "GPGPU-Sim measures" column shows it (a level's
 * latency for the latency rows). */
static int card_measured(gd_gs_field f, const gd_inference *inf, const gd_gs_value *m, double *out)
{
    const gd_inferred_level *lv = NULL;
    switch (f) {
    case GD_GS_L1_LATENCY: lv = &inf->level[GD_INF_L1D]; break;
    case GD_GS_ROP_LATENCY: lv = &inf->level[GD_INF_L2]; break;
    case GD_GS_DRAM_LATENCY: lv = &inf->level[GD_INF_DRAM]; break;
    case GD_GS_SMEM_LATENCY: lv = &inf->level[GD_INF_SMEM]; break;
    default:
        *out = m[f].value;
        return m[f].has;
    }
    *out = lv->latency_cycles;
    return lv->present && lv->has_latency;
}

int gd_gs_validate_run(const char *run_dir, const char *config_path, gd_gs_validation *out,
                       gd_err *err)
{
    memset(out, 0, sizeof *out);
    gd_inference inf;
    if (gd_gs_load_inference(run_dir, &inf, err) != 0)
        return -1;
    gd_gs_config cfg;
    if (gd_gs_config_load(config_path, &cfg, err) != 0)
        return -1;
    gd_gs_value c[GD_GS_FIELD_COUNT], m[GD_GS_FIELD_COUNT];
    if (gd_gs_config_values(&cfg, c, err) != 0) {
        gd_gs_config_free(&cfg);
        return -1;
    }
    gd_gs_config_free(&cfg);
    gd_gs_measured(&inf, m);

    json_t *doc = json_object(), *rows = json_array();
    gd_text table, md;
    gd_text_init(&table);
    gd_text_init(&md);
    gd_text_printf(&table, "%-24s %-44s %12s %12s %12s  %-13s %10s  %s\n", "option", "field",
                   "config", "GPGPU-Sim", "card", "verdict", "by", "probe");
    gd_text_printf(&md, "%s\n## GPGPU-Sim config validation\n\n"
                        "Config `%s` against this run.  \"GPGPU-Sim\" is what GPGPU-Sim would measure "
                        "under the config: for latencies the options' sum plus %d (L1), %d (L2), %d "
                        "(DRAM) cycles, offsets measured on GPGPU-Sim with SM75_RTX2060 by the author "
                        "of issue 16; each latency option is judged on its own share.\n\n"
                        "| option | field | config | GPGPU-Sim | card | verdict | by | confidence | probe |\n"
                        "| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | --- |\n",
                   GS_REPORT_MARK, config_path, GD_GS_L1_OFFSET_CYCLES, GD_GS_L2_OFFSET_CYCLES,
                   GD_GS_DRAM_OFFSET_CYCLES);
    for (int f = 0; f < GD_GS_FIELD_COUNT; f++) {
        double tol = tolerance_of((gd_gs_field)f, c), by = 0;
        gs_verdict v = judge((gd_gs_field)f, &c[f], &m[f], tol, &by);
        int has_pred = 0, has_card;
        double pred = gpgpusim_measures((gd_gs_field)f, c, &has_pred), card = 0;
        has_card = card_measured((gd_gs_field)f, &inf, m, &card);
        if (v == V_MATCH)
            out->matched++;
        else if (v == V_CONTRADICTED)
            out->contradicted++;
        else
            out->not_measured++;
        char cs[32] = "-", ps[32] = "-", ms[32] = "-", bs[32] = "";
        if (c[f].has)
            snprintf(cs, sizeof cs, "%.10g", c[f].value);
        if (has_pred)
            snprintf(ps, sizeof ps, "%.10g", pred);
        if (has_card)
            snprintf(ms, sizeof ms, "%s%.10g", m[f].lower_bound ? ">=" : "", card);
        if (v == V_CONTRADICTED)
            snprintf(bs, sizeof bs, "%+.10g", by);
        gd_text_printf(&table, "-%-23s %-44s %12s %12s %12s  %-13s %10s  %s\n", gd_gs_field_option(f),
                       gd_gs_field_what(f), cs, ps, ms, verdict_names[v], bs, m[f].has ? m[f].from : "");
        gd_text_printf(&md, "| `-%s` | %s | %s | %s | %s | %s | %s | %s | %s |\n", gd_gs_field_option(f),
                       gd_gs_field_what(f), cs, ps, ms, verdict_names[v], bs[0] ? bs : "",
                       m[f].has ? "" : "-", m[f].has ? m[f].from : "");
        json_t *row = json_object();
        json_object_set_new(row, "option", json_sprintf("-%s", gd_gs_field_option(f)));
        json_object_set_new(row, "field", json_string(gd_gs_field_what(f)));
        json_object_set_new(row, "config", c[f].has ? json_real(c[f].value) : json_null());
        json_object_set_new(row, "gpgpusim_measures", has_pred ? json_real(pred) : json_null());
        json_object_set_new(row, "measured", has_card ? json_real(card) : json_null());
        json_object_set_new(row, "measured_option_units", m[f].has ? json_real(m[f].value) : json_null());
        json_object_set_new(row, "lower_bound", json_boolean(m[f].lower_bound));
        json_object_set_new(row, "tolerance", json_real(tol));
        json_object_set_new(row, "verdict", json_string(verdict_names[v]));
        json_object_set_new(row, "by", v == V_CONTRADICTED ? json_real(by) : json_null());
        json_object_set_new(row, "confidence", m[f].has ? json_real(m[f].confidence) : json_null());
        json_object_set_new(row, "probe", m[f].has ? json_string(m[f].from) : json_null());
        json_array_append_new(rows, row);
    }
    gd_text_printf(&table, "%d contradicted, %d match, %d not measured or not in the config\n",
                   out->contradicted, out->matched, out->not_measured);
    gd_text_printf(&md, "\n%d contradicted, %d match, %d not measured or not in the config.\n%s\n",
                   out->contradicted, out->matched, out->not_measured, GS_REPORT_MARK);
    json_object_set_new(doc, "config", json_string(config_path));
    json_object_set_new(doc, "run", json_string(run_dir));
    json_t *offsets = json_object();
    json_object_set_new(offsets, "L1D", json_integer(GD_GS_L1_OFFSET_CYCLES));
    json_object_set_new(offsets, "L2", json_integer(GD_GS_L2_OFFSET_CYCLES));
    json_object_set_new(offsets, "DRAM", json_integer(GD_GS_DRAM_OFFSET_CYCLES));
    json_object_set_new(offsets, "SMEM", json_integer(GD_GS_SMEM_OFFSET_CYCLES));
    json_object_set_new(offsets, "source", json_string("measured on GPGPU-Sim with SM75_RTX2060 "
                                                       "by the author of gpudissect issue 16"));
    json_object_set_new(doc, "latency_offsets_cycles", offsets);
    json_object_set_new(doc, "options", rows);
    json_object_set_new(doc, "contradicted", json_integer(out->contradicted));
    json_object_set_new(doc, "matched", json_integer(out->matched));
    json_object_set_new(doc, "not_measured", json_integer(out->not_measured));
    if (table.failed || md.failed) {
        gd_text_free(&table);
        gd_text_free(&md);
        json_decref(doc);
        return gd_fail(err, "validate: out of memory");
    }
    out->doc = doc;
    out->table_text = table.data;
    out->markdown = md.data;
    return 0;
}

int gd_gs_validation_write(const char *run_dir, const gd_gs_validation *v, gd_err *err)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/validate.json", run_dir);
    if (gd_write_json_atomic(path, v->doc, err) != 0)
        return -1;
    /* report.md: the section replaced (between its two marks) or appended */
    snprintf(path, sizeof path, "%s/report.md", run_dir);
    gd_err ignored;
    size_t bytes = 0;
    char *old = gd_read_file(path, &bytes, &ignored);
    gd_text t;
    gd_text_init(&t);
    if (old) {
        char *start = strstr(old, GS_REPORT_MARK);
        char *end = start ? strstr(start + strlen(GS_REPORT_MARK), GS_REPORT_MARK) : NULL;
        if (start) {
            gd_text_printf(&t, "%.*s", (int)(start - old), old);
            gd_text_printf(&t, "%s", v->markdown);
            if (end) {
                const char *rest = end + strlen(GS_REPORT_MARK);
                if (*rest == '\n')
                    rest++;
                gd_text_printf(&t, "%s", rest);
            }
        } else {
            gd_text_printf(&t, "%s\n%s", old, v->markdown);
        }
        free(old);
    } else {
        gd_text_printf(&t, "# gpudissect report\n\n%s", v->markdown);
    }
    int rc = gd_text_write_atomic(&t, path, err);
    gd_text_free(&t);
    return rc;
}

void gd_gs_validation_free(gd_gs_validation *v)
{
    json_decref(v->doc);
    free(v->table_text);
    free(v->markdown);
    memset(v, 0, sizeof *v);
}
