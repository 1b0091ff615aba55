/*
 * report.c: the text report and JSON summary of a replay (see report.h).
 *
 * The text follows sysfs: one "file value" line per file, in the order of
 * `ls /sys/kernel/slab/<cache>/` groups (geometry, then slab state, then
 * counters), with the kernel's " N<node>=<v>" suffix on slab-state files
 * when the machine has several nodes, and " C<cpu>=<n>" after each counter
 * total (show_stat() in mm/slub.c: only non-zero CPUs).  Only non-zero
 * counters are listed; `slublab compare` lists them all.  After the caches
 * come the zones as /proc/zoneinfo names them (pages free, min, low, high,
 * managed, protection), under the watermark parameters in effect.
 */
#include "present/report.h"

#include <inttypes.h>
#include <string.h>

#include "kfiles/kfiles.h"
#include "present/json_state.h"
#include "scenario/kernel.h"
#include "scenario/metric.h"
#include "scenario/scenario_write.h"

#define REPORT_MAX_ZONES (SIM_MAX_NODES * SIM_NR_ZONE_TYPES)

void report_variants(struct strbuf *out, const struct sim_config *cfg, const char *sep)
{
    unsigned v, n = 0;

    for (v = 0; v < SIM_NR_VARIANTS; v++)
        if (sim_variant_in_model(v, cfg->model))
            strbuf_printf(out, "%s %s=%s", n++ ? sep : "", sim_variant_name(v),
                          cfg->variant[v] == SIM_AFTER ? "after" : "before");
}

void report_machine(struct strbuf *out, const struct sim_config *cfg, const char *cpu)
{
    strbuf_printf(out,
                  "%u %s%s, %u node%s, %" PRIu64 " MiB per node, freelist_hardened %s, "
                  "freelist_random %s",
                  cfg->nr_cpus, cpu, cfg->nr_cpus == 1 ? "" : "s", cfg->nr_nodes,
                  cfg->nr_nodes == 1 ? "" : "s", cfg->mem_per_node >> 20,
                  cfg->freelist_hardened ? "on" : "off", cfg->freelist_random ? "on" : "off");
}

static void report_header(struct strbuf *out, const struct replay *rp)
{
    const struct sim_config *cfg = &rp->config;
    char model[64], kernel[256];

    strbuf_printf(out, "scenario %s", rp->scn->name);
    if (rp->scn->title[0])
        strbuf_printf(out, ": %s", rp->scn->title);
    sim_model_format(cfg, model, sizeof(model));
    if (kernel_describe(cfg, kernel, sizeof(kernel)))
        strbuf_printf(out, "\nkernel %s", kernel);
    strbuf_printf(out, "\nmodel %s, seed %" PRIu64 ", variants", model, cfg->seed);
    report_variants(out, cfg, "");
    if (cfg->race_no_tid)
        strbuf_printf(out, " NO_TID=on (not a kernel)");
    strbuf_puts(out, "\nmachine ");
    report_machine(out, cfg, "cpu");
    strbuf_puts(out, "\n");
}

static void report_cache_files(struct strbuf *out, const struct sim_snapshot *snap,
                               const struct sim_snap_cache *c)
{
    uint64_t per_node[SIM_MAX_NODES];
    unsigned k, n;

    for (k = METRIC_OBJECT_SIZE; k <= METRIC_SHEAF_CAPACITY; k++)
        strbuf_printf(out, "%s %" PRIu64 "\n", metric_file_name((enum metric_kind)k),
                      metric_cache_file(c, (enum metric_kind)k));
    for (k = METRIC_SLABS; k <= METRIC_TOTAL_OBJECTS; k++) {
        strbuf_printf(out, "%s %" PRIu64, metric_file_name((enum metric_kind)k),
                      metric_cache_file(c, (enum metric_kind)k));
        if (snap->nr_nodes > 1) {
            metric_node_values(snap, c, (enum metric_kind)k, per_node);
            for (n = 0; n < snap->nr_nodes && n < SIM_MAX_NODES; n++)
                if (per_node[n])
                    strbuf_printf(out, " N%u=%" PRIu64, n, per_node[n]);
        }
        strbuf_puts(out, "\n");
    }
}

static void report_cache_stats(struct strbuf *out, const struct sim_snapshot *snap,
                               const struct sim_snap_cache *c)
{
    struct sim_snap_stats total;
    unsigned i;

    metric_cache_stats(snap, c, &total);
    for (i = 0; i < SIM_NR_STATS; i++) {
        if (!total.v[i])
            continue;
        strbuf_printf(out, "%s ", sim_stat_name(i));
        sysfs_stat_show(out, snap, c, i); /* the line of the sysfs counter file */
    }
}

/* " main #3 5/60" or " main -" */
static void report_sheaf(struct strbuf *out, const struct sim_snapshot *snap, const char *what,
                         uint32_t id)
{
    const struct sim_snap_sheaf *sh = id ? json_find_sheaf(snap, id) : NULL;

    if (!id)
        strbuf_printf(out, " %s -", what);
    else if (!sh)
        strbuf_printf(out, " %s #%u", what, id);
    else
        strbuf_printf(out, " %s #%u %u/%u", what, id, sh->size, sh->capacity);
}

static void report_cache_topology(struct strbuf *out, const struct sim_snapshot *snap,
                                  const struct sim_snap_cache *c)
{
    unsigned cpu, n;

    for (cpu = 0; c->has_cpu_slab && cpu < snap->nr_cpus && cpu < SIM_MAX_CPUS; cpu++) {
        const struct sim_snap_cpu_slab *cs = &c->cpu_slab[cpu];

        strbuf_printf(out, "cpu%u (node %u) cpu slab ", cpu, snap->cpu_node[cpu]);
        if (cs->slab)
            strbuf_printf(out, "0x%" PRIx64, (uint64_t)cs->slab);
        else
            strbuf_puts(out, "-");
        strbuf_printf(out, ", lockless freelist %u, tid %" PRIu64 ", cpu partial %u slab%s\n",
                      cs->nr_freelist, cs->tid, cs->nr_partial, cs->nr_partial == 1 ? "" : "s");
    }
    /* a cache of the hybrid model (6.18) may have both: sheaves over cpu slabs */
    for (cpu = 0;
         (!c->has_cpu_slab || c->sheaf_capacity) && cpu < snap->nr_cpus && cpu < SIM_MAX_CPUS;
         cpu++) {
        strbuf_printf(out, "cpu%u (node %u) sheaves:", cpu, snap->cpu_node[cpu]);
        report_sheaf(out, snap, "main", c->main[cpu]);
        report_sheaf(out, snap, "spare", c->spare[cpu]);
        report_sheaf(out, snap, "rcu_free", c->rcu_free[cpu]);
        strbuf_puts(out, "\n");
    }
    for (n = 0; n < snap->nr_nodes && n < SIM_MAX_NODES; n++) {
        const struct sim_snap_barn *b = &c->barn[n];
        const struct sim_snap_node *nd = &c->node[n];

        strbuf_printf(out, "node%u barn: full %u, empty %u, partial ", n, b->nr_full, b->nr_empty);
        if (b->partial)
            strbuf_printf(out, "#%u", b->partial);
        else
            strbuf_puts(out, "-");
        strbuf_printf(out, "; node: nr_partial %u, nr_slabs %lu, total_objects %lu\n",
                      nd->nr_partial, nd->nr_slabs, nd->total_objects);
    }
}

void report_warnings(struct strbuf *out, const struct replay *rp)
{
    size_t i;

    for (i = 0; i < rp->nr_warnings; i++) {
        const struct replay_warning *w = &rp->warnings[i];

        strbuf_printf(out, "warning: %s (%s): %s%s%s\n", w->path, w->op,
                      w->status == SIM_OK ? "" : replay_status_name(w->status),
                      w->status == SIM_OK ? "" : ": ", w->message);
    }
    if (rp->nr_warnings_total > rp->nr_warnings)
        strbuf_printf(out, "warning: %lu more warnings not shown\n",
                      rp->nr_warnings_total - rp->nr_warnings);
}

/* The snapshot's zones in /proc/zoneinfo order: by node, then zone type. */
static size_t report_zone_order(const struct sim_snapshot *snap, const struct sim_snap_zone **order)
{
    size_t i, n = 0;
    int node;
    unsigned t;

    for (node = 0; node < SIM_MAX_NODES; node++)
        for (t = 0; t < SIM_NR_ZONE_TYPES; t++)
            for (i = 0; i < snap->nr_zones && n < REPORT_MAX_ZONES; i++)
                if (snap->zones[i].node == node && snap->zones[i].type == t)
                    order[n++] = &snap->zones[i];
    return n;
}

/* A /proc/zoneinfo-like section: the watermark parameters, then per zone
 * its free and managed pages, min/low/high and protection (lowmem_reserve). */
static void report_zones(struct strbuf *out, const struct replay *rp,
                         const struct sim_snapshot *snap)
{
    const struct sim_snap_zone *order[REPORT_MAX_ZONES];
    size_t i, n = report_zone_order(snap, order);
    unsigned t;

    strbuf_printf(out,
                  "\nzones: min_free_kbytes %lu, watermark_scale_factor %u, kswapd %s, cma %s\n",
                  sim_min_free_kbytes(rp->sim), sim_watermark_scale_factor(rp->sim),
                  rp->config.kswapd ? "on" : "off", rp->config.cma ? "on" : "off");
    for (i = 0; i < n; i++) {
        const struct sim_snap_zone *z = order[i];

        strbuf_printf(out,
                      "Node %d, zone %8s\n  pages free     %lu\n        min      %lu\n"
                      "        low      %lu\n        high     %lu\n        managed  %lu\n"
                      "        protection: (",
                      z->node, z->name, z->free_pages, z->watermark[SIM_WMARK_MIN],
                      z->watermark[SIM_WMARK_LOW], z->watermark[SIM_WMARK_HIGH], z->pages);
        for (t = 0; t < SIM_NR_ZONE_TYPES; t++)
            strbuf_printf(out, "%s%lu", t ? ", " : "", z->lowmem_reserve[t]);
        strbuf_puts(out, ")\n");
    }
}

static cJSON *report_json_zone(const struct sim_snap_zone *z)
{
    cJSON *o = cJSON_CreateObject(), *prot = NULL;
    unsigned t;

    if (!o)
        return NULL;
    if (!json_put(o, "node", json_int(z->node)) || !json_put(o, "zone", json_str(z->name)) ||
        !json_put(o, "pages_free", json_uint(z->free_pages)) ||
        !json_put(o, "min", json_uint(z->watermark[SIM_WMARK_MIN])) ||
        !json_put(o, "low", json_uint(z->watermark[SIM_WMARK_LOW])) ||
        !json_put(o, "high", json_uint(z->watermark[SIM_WMARK_HIGH])) ||
        !json_put(o, "managed", json_uint(z->pages)) ||
        !json_put(o, "protection", prot = cJSON_CreateArray()))
        return json_drop(o);
    for (t = 0; t < SIM_NR_ZONE_TYPES; t++)
        if (!json_push(prot, json_uint(z->lowmem_reserve[t])))
            return json_drop(o);
    return o;
}

static void report_expects(struct strbuf *out, const struct replay *rp)
{
    size_t i, passed = 0;

    if (!rp->scn->nr_expects)
        return;
    strbuf_puts(out, "\nexpects\n");
    for (i = 0; i < rp->scn->nr_expects; i++) {
        const struct scenario_expect *e = &rp->scn->expects[i];
        const struct replay_expect *r = &rp->expects[i];

        passed += r->state == REPLAY_PASS;
        strbuf_printf(out, "%s %s: %s %s %" PRIu64, r->state == REPLAY_PASS ? "PASS" : "FAIL",
                      e->at, e->metric_text, scenario_cmp_name(e->cmp), e->value);
        if (r->state == REPLAY_PASS || r->state == REPLAY_FAIL)
            strbuf_printf(out, " (got %" PRIu64 ")\n", r->value);
        else
            strbuf_printf(out, " (%s)\n", replay_expect_state_name(r->state));
    }
    strbuf_printf(out, "%zu passed, %zu failed\n", passed, rp->scn->nr_expects - passed);
}

void report_text(struct strbuf *out, const struct replay *rp, const struct sim_snapshot *snap)
{
    size_t i;

    report_header(out, rp);
    for (i = 0; i < snap->nr_caches; i++) {
        const struct sim_snap_cache *c = &snap->caches[i];

        strbuf_printf(out, "\n/sys/kernel/slab/%s/%s\n", c->name, c->alive ? "" : " (destroyed)");
        report_cache_files(out, snap, c);
        report_cache_stats(out, snap, c);
        report_cache_topology(out, snap, c);
    }
    report_zones(out, rp, snap);
    report_expects(out, rp);
}

static cJSON *report_json_expect(const struct scenario_expect *e, const struct replay_expect *r)
{
    cJSON *o = cJSON_CreateObject();
    bool known = r->state == REPLAY_PASS || r->state == REPLAY_FAIL;

    if (!o)
        return NULL;
    if (!json_put(o, "at", cJSON_CreateString(e->at)) ||
        !json_put(o, "metric", cJSON_CreateString(e->metric_text)) ||
        !json_put(o, "op", cJSON_CreateString(scenario_cmp_name(e->cmp))) ||
        !json_put(o, "value", json_uint(e->value)) ||
        !json_put(o, "actual", known ? json_uint(r->value) : cJSON_CreateNull()) ||
        !json_put(o, "result", cJSON_CreateString(replay_expect_state_name(r->state))) ||
        !json_put(o, "hits", json_uint(r->hits)))
        return json_drop(o);
    return o;
}

static cJSON *report_json_warning(const struct replay_warning *w)
{
    cJSON *o = cJSON_CreateObject();

    if (!o)
        return NULL;
    if (!json_put(o, "path", cJSON_CreateString(w->path)) ||
        !json_put(o, "op", cJSON_CreateString(w->op)) ||
        !json_put(o, "status", cJSON_CreateString(replay_status_name(w->status))) ||
        !json_put(o, "message", cJSON_CreateString(w->message)))
        return json_drop(o);
    return o;
}

cJSON *report_json(const struct replay *rp, const struct sim_snapshot *snap)
{
    const struct sim_snap_zone *zones[REPORT_MAX_ZONES];
    cJSON *o = cJSON_CreateObject(), *a = NULL;
    char model[64];
    size_t i, n;

    if (!o)
        return NULL;
    if (!json_put(o, "scenario", cJSON_CreateString(rp->scn->name)) ||
        !json_put(o, "variants", a = scenario_write_variants(&rp->config)))
        return json_drop(o);
    if (rp->config.race_no_tid && !json_put(a, "NO_TID", cJSON_CreateString("on")))
        return json_drop(o); /* not a kernel (docs/engine.md, "Races") */
    sim_model_format(&rp->config, model, sizeof(model));
    if ((sim_release_name(rp->config.release) &&
         !json_put(o, "kernel", cJSON_CreateString(sim_release_name(rp->config.release)))) ||
        !json_put(o, "model", cJSON_CreateString(model)) ||
        !json_put(o, "seed", json_uint(rp->config.seed)) ||
        !json_put(o, "caches", a = cJSON_CreateArray()))
        return json_drop(o);
    for (i = 0; i < snap->nr_caches; i++)
        if (!json_push(a, json_snap_cache(snap, &snap->caches[i])))
            return json_drop(o);
    n = report_zone_order(snap, zones);
    if (!json_put(o, "zones", a = cJSON_CreateArray()))
        return json_drop(o);
    for (i = 0; i < n; i++)
        if (!json_push(a, report_json_zone(zones[i])))
            return json_drop(o);
    if (!json_put(o, "min_free_kbytes", json_uint(sim_min_free_kbytes(rp->sim))) ||
        !json_put(o, "watermark_scale_factor", json_uint(sim_watermark_scale_factor(rp->sim))) ||
        !cJSON_AddBoolToObject(o, "kswapd", rp->config.kswapd) ||
        !cJSON_AddBoolToObject(o, "cma", rp->config.cma) ||
        !json_put(o, "expects", a = cJSON_CreateArray()))
        return json_drop(o);
    for (i = 0; i < rp->scn->nr_expects; i++)
        if (!json_push(a, report_json_expect(&rp->scn->expects[i], &rp->expects[i])))
            return json_drop(o);
    if (!json_put(o, "warnings", a = cJSON_CreateArray()))
        return json_drop(o);
    for (i = 0; i < rp->nr_warnings; i++)
        if (!json_push(a, report_json_warning(&rp->warnings[i])))
            return json_drop(o);
    if (!json_put(o, "ok", cJSON_CreateBool(replay_expects_ok(rp))))
        return json_drop(o);
    return o;
}
