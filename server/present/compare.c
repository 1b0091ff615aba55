/*
 * compare.c: one scenario run twice, baseline and patched, read as one
 * table of counters (see compare.h): what `slublab compare` prints
 * (cli/cmd_compare.c), GET /api/compare returns and the Markdown and SVG
 * comparison reports (report_md.c, svg_chart.c) show.
 *
 * Every counter is listed, zero or not and engine-only ones included,
 * summed over CPUs, then the slab-state files; each row has the change in
 * percent of the baseline ("-" when the baseline is 0).
 */
#include "present/compare.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/json.h"
#include "scenario/metric.h"
#include "scenario/replay.h"

static const enum metric_kind compare_files[] = {
        METRIC_OBJECTS, METRIC_OBJECTS_PARTIAL, METRIC_PARTIAL, METRIC_SLABS, METRIC_TOTAL_OBJECTS};

int compare_side_run(const struct scenario *scn, const char *cache_arg, struct compare_side *side,
                     char *cache_name, struct strbuf *err)
{
    struct sim_snapshot *snap = NULL;
    struct replay rp;
    int ret = -1, cache;
    size_t i, k;

    if (replay_init(&rp, scn, &side->cfg) || replay_run(&rp)) {
        strbuf_printf(err, "%s (%s)", strbuf_str(&rp.error), side->label);
        goto out_release;
    }
    cache = cache_arg ? sim_cache_lookup(rp.sim, cache_arg) : replay_report_cache(&rp);
    if (cache < 0) {
        strbuf_printf(err, "slublab compare: %s: no cache %s%s%s (%s)", scn->label,
                      cache_arg ? "named \"" : "was created", cache_arg ? cache_arg : "",
                      cache_arg ? "\"" : "", side->label);
        goto out_release;
    }
    if (sim_snapshot(rp.sim, &snap)) {
        strbuf_printf(err, "slublab compare: out of memory");
        goto out_release;
    }
    for (i = 0; i < SIM_NR_STATS; i++)
        side->v[i] = sim_stat(rp.sim, cache, (unsigned)i, -1);
    for (i = 0; i < snap->nr_caches; i++) {
        if (snap->caches[i].id != cache)
            continue;
        snprintf(cache_name, SIM_NAME_MAX, "%s", snap->caches[i].name);
        for (k = 0; k < sizeof(compare_files) / sizeof(compare_files[0]); k++)
            side->v[SIM_NR_STATS + k] = metric_cache_file(&snap->caches[i], compare_files[k]);
    }
    ret = 0;
    if (side->keep_snap) {
        side->snap = snap;
        snap = NULL;
    }
out_release:
    sim_snapshot_release(snap);
    replay_release(&rp);
    return ret;
}

/* Across models, does side @k's kernel have row @row's counter at all? */
bool compare_counts(const struct compare_side side[2], int k, size_t row)
{
    if (side[0].cfg.model == side[1].cfg.model || row >= SIM_NR_STATS)
        return true;
    return sim_stat_in_model((unsigned)row, side[k].cfg.model);
}

const char *compare_row_name(size_t row)
{
    return row < SIM_NR_STATS ? sim_stat_name((unsigned)row)
                              : metric_file_name(compare_files[row - SIM_NR_STATS]);
}

bool compare_change(uint64_t base, uint64_t patched, char *buf, size_t len)
{
    if (!base)
        return false;
    snprintf(buf, len, "%+.1f", ((double)patched - (double)base) * 100.0 / (double)base);
    return true;
}

cJSON *compare_json(const struct scenario *scn, const char *cache,
                    const struct compare_side side[2])
{
    cJSON *o = cJSON_CreateObject(), *rows = NULL;
    char pct[48];
    size_t r;

    if (!o || !json_put(o, "scenario", cJSON_CreateString(scn->name)) ||
        !json_put(o, "cache", cJSON_CreateString(cache)) ||
        !json_put(o, "baseline", cJSON_CreateString(side[0].label)) ||
        !json_put(o, "patched", cJSON_CreateString(side[1].label)) ||
        !json_put(o, "rows", rows = cJSON_CreateArray()))
        goto err_delete;
    for (r = 0; r < COMPARE_ROWS; r++) {
        cJSON *row = cJSON_CreateObject();
        bool has = compare_counts(side, 0, r) && compare_counts(side, 1, r) &&
                   compare_change(side[0].v[r], side[1].v[r], pct, sizeof(pct));

        if (!json_push(rows, row) ||
            !json_put(row, "metric", cJSON_CreateString(compare_row_name(r))) ||
            !json_put(row, "baseline", json_uint(side[0].v[r])) ||
            !json_put(row, "patched", json_uint(side[1].v[r])) ||
            /* the printed value, so the JSON and the table agree to the digit */
            !json_put(row, "change_pct",
                      has ? cJSON_CreateNumber(strtod(pct, NULL)) : cJSON_CreateNull()))
            goto err_delete;
        /* across models: which kernels have the counter (sysfs file) */
        if (side[0].cfg.model != side[1].cfg.model &&
            (!json_put(row, "in_baseline", cJSON_CreateBool(compare_counts(side, 0, r))) ||
             !json_put(row, "in_patched", cJSON_CreateBool(compare_counts(side, 1, r)))))
            goto err_delete;
    }
    return o;

err_delete:
    cJSON_Delete(o);
    return NULL;
}
