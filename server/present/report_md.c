/*
 * report_md.c: Markdown reports for reviews (see report_md.h).
 *
 * A session report is the state at one position: the settings, a state
 * summary (per cache the sysfs slab-state files, per node and per CPU),
 * the non-zero counters per CPU, and a chart (an SVG written next to the
 * report by the CLI, see svg_chart.c).  A comparison report is the
 * `slublab compare` table in the form mm patch cover letters use (a fixed
 * width block of baseline, patched, delta and change, ready to paste into
 * an email) followed by the same rows as a Markdown table and the state
 * summary of both runs.  Everything is derived from engine snapshots and
 * counters; the text is a pure function of them, so reports diff cleanly.
 */
#include "present/report_md.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "present/json_state.h"
#include "present/report.h"
#include "scenario/kernel.h"
#include "scenario/metric.h"

/* A table cell: '|' escaped, so a cache name cannot break the table. */
static void md_cell(struct strbuf *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '|' || *s == '\\' || *s == '<' || *s == '*' || *s == '_' || *s == '`')
            strbuf_append(out, "\\", 1);
        strbuf_append(out, s, 1);
    }
}

/* "| NAME |", the first cell of a cache's row. */
static void md_row_head(struct strbuf *out, const char *name)
{
    strbuf_puts(out, "| ");
    md_cell(out, name);
    strbuf_puts(out, " |");
}

/* The rule under a table's header: a text column, then @nr right-aligned ones. */
static void md_rule(struct strbuf *out, unsigned nr)
{
    strbuf_puts(out, "\n|---|");
    while (nr--)
        strbuf_puts(out, "--:|");
    strbuf_puts(out, "\n");
}

static void md_settings(struct strbuf *out, const struct scenario *scn,
                        const struct sim_config *cfg)
{
    char model[64], kernel[256];

    sim_model_format(cfg, model, sizeof(model));
    strbuf_puts(out, "| setting | value |\n|---|---|\n| scenario | ");
    md_cell(out, scn->name);
    if (kernel_describe(cfg, kernel, sizeof(kernel)))
        strbuf_printf(out, " |\n| kernel | %s", kernel);
    strbuf_printf(out, " |\n| model | %s |\n| seed | %" PRIu64 " |\n| variants |", model,
                  cfg->seed);
    report_variants(out, cfg, ",");
    strbuf_puts(out, " |\n| machine | ");
    report_machine(out, cfg, "CPU");
    strbuf_puts(out, " |\n");
}

static unsigned md_sheaf_size(const struct sim_snapshot *snap, uint32_t id)
{
    const struct sim_snap_sheaf *sh = id ? json_find_sheaf(snap, id) : NULL;

    return sh ? sh->size : 0;
}

/* The legacy and hybrid models' per-CPU slabs: each CPU's cpu slab and partial list. */
static void report_md_cpu_slabs(struct strbuf *out, const struct sim_snapshot *snap)
{
    unsigned nr_cpus = snap->nr_cpus < SIM_MAX_CPUS ? snap->nr_cpus : SIM_MAX_CPUS, cpu;
    size_t i;

    strbuf_puts(out, "\nPer-CPU slabs (objects on the cpu slab's lockless freelist / slabs on "
                     "the CPU partial list; - when the CPU has no cpu slab) and each cache's "
                     "cpu_partial:\n\n| cache |");
    for (cpu = 0; cpu < nr_cpus; cpu++)
        strbuf_printf(out, " CPU %u |", cpu);
    strbuf_puts(out, " cpu_partial |");
    md_rule(out, nr_cpus + 1);
    for (i = 0; i < snap->nr_caches; i++) {
        const struct sim_snap_cache *c = &snap->caches[i];

        if (!c->alive)
            continue;
        md_row_head(out, c->name);
        for (cpu = 0; cpu < nr_cpus; cpu++) {
            const struct sim_snap_cpu_slab *cs = &c->cpu_slab[cpu];

            if (!c->has_cpu_slab)
                strbuf_puts(out, " n/a |"); /* a debug cache: no cpu slabs */
            else if (cs->slab)
                strbuf_printf(out, " %u / %u |", cs->nr_freelist, cs->nr_partial);
            else
                strbuf_printf(out, " - / %u |", cs->nr_partial);
        }
        strbuf_printf(out, " %u |\n", c->cpu_partial);
    }
}

void report_md_state(struct strbuf *out, const struct sim_snapshot *snap)
{
    uint64_t per_node[SIM_MAX_NODES];
    unsigned n, cpu;
    size_t i;

    strbuf_puts(out, "| cache | object size | slab size | objects per slab | order | slabs | "
                     "partial | objects | objects_partial | total_objects |\n"
                     "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for (i = 0; i < snap->nr_caches; i++) {
        const struct sim_snap_cache *c = &snap->caches[i];

        if (!c->alive)
            continue;
        md_row_head(out, c->name);
        strbuf_printf(out, " %u | %u | %u | %u | %lu | %lu | %lu | %lu | %lu |\n", c->object_size,
                      c->size, c->objects_per_slab, c->order, c->slabs, c->partial, c->objects,
                      c->objects_partial, c->total_objects);
    }
    strbuf_puts(out, snap->model == SIM_MODEL_LEGACY
                             ? "\n`objects` counts every object of a cpu slab as in use, free or "
                               "not, as sysfs and /proc/slabinfo do.\n"
                     : snap->model == SIM_MODEL_HYBRID
                             ? "\n`objects` counts every object of a cpu slab, and objects cached "
                               "in sheaves, as in use, as sysfs and /proc/slabinfo do.\n"
                             : "\n`objects` counts objects cached in sheaves as in use, as sysfs "
                               "and /proc/slabinfo do.\n");
    if (snap->nr_nodes > 1) {
        strbuf_puts(out, "\nSlabs per node (partial in parentheses):\n\n| cache |");
        for (n = 0; n < snap->nr_nodes && n < SIM_MAX_NODES; n++)
            strbuf_printf(out, " node %u |", n);
        md_rule(out, snap->nr_nodes < SIM_MAX_NODES ? snap->nr_nodes : SIM_MAX_NODES);
        for (i = 0; i < snap->nr_caches; i++) {
            const struct sim_snap_cache *c = &snap->caches[i];

            if (!c->alive)
                continue;
            md_row_head(out, c->name);
            metric_node_values(snap, c, METRIC_SLABS, per_node);
            for (n = 0; n < snap->nr_nodes && n < SIM_MAX_NODES; n++)
                strbuf_printf(out, " %" PRIu64 " (%u) |", per_node[n], c->node[n].nr_partial);
            strbuf_puts(out, "\n");
        }
    }
    if (snap->model != SIM_MODEL_SHEAVES)
        report_md_cpu_slabs(out, snap);
    if (snap->model == SIM_MODEL_LEGACY)
        return;
    strbuf_puts(out, "\nPer-CPU sheaves (objects in main / spare) and barns (full / empty "
                     "sheaves):\n\n| cache |");
    for (cpu = 0; cpu < snap->nr_cpus && cpu < SIM_MAX_CPUS; cpu++)
        strbuf_printf(out, " CPU %u |", cpu);
    for (n = 0; n < snap->nr_nodes && n < SIM_MAX_NODES; n++)
        strbuf_printf(out, " barn %u |", n);
    md_rule(out, snap->nr_cpus + snap->nr_nodes < SIM_MAX_CPUS + SIM_MAX_NODES
                         ? snap->nr_cpus + snap->nr_nodes
                         : SIM_MAX_CPUS + SIM_MAX_NODES);
    for (i = 0; i < snap->nr_caches; i++) {
        const struct sim_snap_cache *c = &snap->caches[i];

        if (!c->alive || (snap->model == SIM_MODEL_HYBRID && !c->sheaf_capacity))
            continue; /* 6.18: only the caches created with a sheaf_capacity */
        md_row_head(out, c->name);
        for (cpu = 0; cpu < snap->nr_cpus && cpu < SIM_MAX_CPUS; cpu++)
            strbuf_printf(out, " %u / %u |", md_sheaf_size(snap, c->main[cpu]),
                          md_sheaf_size(snap, c->spare[cpu]));
        for (n = 0; n < snap->nr_nodes && n < SIM_MAX_NODES; n++)
            strbuf_printf(out, " %u / %u |", c->barn[n].nr_full, c->barn[n].nr_empty);
        strbuf_puts(out, "\n");
    }
}

void report_md_counters(struct strbuf *out, const struct sim_snapshot *snap)
{
    unsigned nr_cpus = snap->nr_cpus < SIM_MAX_CPUS ? snap->nr_cpus : SIM_MAX_CPUS, k, cpu;
    size_t i;

    for (i = 0; i < snap->nr_caches; i++) {
        const struct sim_snap_cache *c = &snap->caches[i];
        struct sim_snap_stats total;
        bool any = false;

        if (!c->alive)
            continue;
        strbuf_puts(out, "\n### ");
        md_cell(out, c->name);
        strbuf_puts(out, "\n\n");
        metric_cache_stats(snap, c, &total);
        for (k = 0; k < SIM_NR_STATS; k++) {
            if (!total.v[k])
                continue;
            if (!any) {
                strbuf_puts(out, "| counter | total |");
                for (cpu = 0; cpu < nr_cpus; cpu++)
                    strbuf_printf(out, " CPU %u |", cpu);
                md_rule(out, nr_cpus + 1);
                any = true;
            }
            strbuf_printf(out, "| %s | %" PRIu64 " |", sim_stat_name(k), total.v[k]);
            for (cpu = 0; cpu < nr_cpus; cpu++)
                strbuf_printf(out, " %" PRIu64 " |", c->cpu_stats[cpu].v[k]);
            strbuf_puts(out, "\n");
        }
        if (!any)
            strbuf_puts(out, "Every counter is 0.\n");
    }
}

bool report_md_session(struct strbuf *out, const struct report_md_info *info,
                       const struct sim_snapshot *snap)
{
    const struct scenario *scn = info->scn;

    strbuf_puts(out, "# slublab report: ");
    md_cell(out, scn->name);
    strbuf_printf(out, " at step %" PRIu64 " of %" PRIu64 "\n\n", info->at, info->nr_events);
    if (scn->title[0]) {
        strbuf_puts(out, "**");
        md_cell(out, scn->title);
        strbuf_puts(out, "**\n\n");
    }
    if (scn->description[0]) {
        md_cell(out, scn->description);
        strbuf_puts(out, "\n\n");
    }
    md_settings(out, scn, info->cfg);
    strbuf_printf(out,
                  "| position | step %" PRIu64 " of %" PRIu64 ": the state after %" PRIu64
                  " engine event%s |\n",
                  info->at, info->nr_events, info->at, info->at == 1 ? "" : "s");
    strbuf_puts(out, "\n## State\n\n");
    report_md_state(out, snap);
    if (info->image) {
        strbuf_puts(out, "\n![Objects of each cache: in use (sheaves included) and free on "
                         "partial slabs](");
        strbuf_puts(out, info->image);
        strbuf_puts(out, ")\n");
    }
    strbuf_puts(out, "\n## Counters\n\nNon-zero counters, by CPU (`engine_*` counters exist "
                     "only in slublab).\n");
    report_md_counters(out, snap);
    return !strbuf_failed(out);
}

bool report_md_compare(struct strbuf *out, const struct scenario *scn, const char *cache,
                       const struct compare_side side[2], const struct sim_snapshot *snaps[2],
                       const char *image)
{
    char change[48], delta[24], v0[24], v1[24], warning[256];
    size_t r, omitted = 0, absent = 0, nr_notes = 0;
    int k;

    strbuf_puts(out, "# slublab comparison: ");
    md_cell(out, scn->name);
    strbuf_puts(out, ", cache ");
    md_cell(out, cache);
    strbuf_puts(out, "\n\n");
    if (scn->title[0]) {
        strbuf_puts(out, "**");
        md_cell(out, scn->title);
        strbuf_puts(out, "**\n\n");
    }
    strbuf_puts(out, "- baseline: `");
    strbuf_puts(out, side[0].label);
    strbuf_puts(out, "`\n- patched: `");
    strbuf_puts(out, side[1].label);
    strbuf_puts(out, "`\n\n");
    if (compare_warning(side, warning, sizeof(warning))) {
        strbuf_puts(out, "> **Warning:** ");
        md_cell(out, warning);
        strbuf_puts(out, ".\n\n");
    }
    strbuf_puts(out, "## Counters\n\nFor a cover letter (counters that are 0 in both runs "
                     "left out):\n\n```\n");
    compare_write_table(out, side, "");
    strbuf_puts(out, "```\n\n| metric | baseline | patched | delta | change |\n"
                     "|---|--:|--:|--:|--:|\n");
    for (r = 0; r < COMPARE_ROWS; r++) {
        const char *note = compare_row_note(side, r);

        if (compare_row_kind(side, r) != COMPARE_SHOWN)
            continue;
        compare_change_text(side, r, change, sizeof(change));
        compare_delta_text(side, r, delta, sizeof(delta));
        strbuf_printf(out, "| %s | %s | %s | %s", compare_row_name(r),
                      compare_value_text(side, 0, r, v0, sizeof(v0)),
                      compare_value_text(side, 1, r, v1, sizeof(v1)), delta);
        if (note)
            strbuf_printf(out, " | %s [%zu] |\n", change, ++nr_notes);
        else
            strbuf_printf(out, " | %s |\n", change);
    }
    compare_left_out(side, &omitted, &absent);
    strbuf_printf(out, "\n%zu metrics are 0 in both runs", omitted);
    if (absent)
        strbuf_printf(out, "; %zu counters neither kernel has", absent);
    strbuf_puts(out, ".\n");
    if (nr_notes)
        strbuf_puts(out, "\n[N]: the two kernels count this counter on different paths (the "
                         "notes under the cover-letter block say how).\n");
    if (image) {
        strbuf_puts(out, "\n![Counters that changed, baseline and patched](");
        strbuf_puts(out, image);
        strbuf_puts(out, ")\n");
    }
    for (k = 0; k < 2; k++) {
        if (!snaps[k])
            continue;
        strbuf_printf(out, "\n## State at the end, %s: `%s`\n\n", k ? "patched" : "baseline",
                      side[k].label);
        report_md_state(out, snaps[k]);
    }
    return !strbuf_failed(out);
}
