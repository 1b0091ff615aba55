/*
 * json_session.c: a session described as JSON (see json_session.h): what
 * GET /api/sessions/ID, its log and its names answer, and the offline
 * copy embeds.
 *
 * Everything here reads the session under its lock and builds a new tree
 * the caller owns; the session itself builds no documents.
 */
#include "present/json_session.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/json.h"
#include "scenario/replay.h"

#define MIB ((uint64_t)1 << 20)

cJSON *json_session_warnings(const struct session *s, size_t from, size_t max)
{
    cJSON *arr = cJSON_CreateArray();
    size_t i;

    for (i = from; arr && i < s->run->rp.nr_warnings && i - from < max; i++) {
        const struct replay_warning *w = &s->run->rp.warnings[i];
        cJSON *o = cJSON_CreateObject();

        if (!json_push(arr, o) || !json_put(o, "path", json_str(w->path)) ||
            !json_put(o, "op", json_str(w->op)) ||
            !json_put(o, "status", json_str(replay_status_name(w->status))) ||
            !json_put(o, "message", json_str(w->message)))
            return json_drop(arr);
    }
    return arr;
}

static cJSON *json_session_machine(const struct session *s)
{
    const struct sim *sim = s->run->have_rp ? s->run->rp.sim : NULL;
    cJSON *o = cJSON_CreateObject(), *cpu_node = NULL;
    unsigned c;

    if (!o || !json_put(o, "cpus", json_uint(s->run->cfg.nr_cpus)) ||
        !json_put(o, "nodes", json_uint(s->run->cfg.nr_nodes)) ||
        !json_put(o, "cpu_node", cpu_node = cJSON_CreateArray()))
        return json_drop(o);
    for (c = 0; c < s->run->cfg.nr_cpus; c++)
        if (!json_push(cpu_node, json_uint(s->run->cfg.cpu_node[c])))
            return json_drop(o);
    if (!json_put(o, "mem_mb_per_node", json_uint(s->run->cfg.mem_per_node / MIB)) ||
        !cJSON_AddBoolToObject(o, "freelist_hardened", s->run->cfg.freelist_hardened) ||
        !cJSON_AddBoolToObject(o, "freelist_random", s->run->cfg.freelist_random))
        return json_drop(o);
    /* the zones and watermark parameters in effect (the engine's defaults filled in) */
    if (!json_put(o, "dma_mb", json_uint(s->run->cfg.dma_bytes / MIB)) ||
        !json_put(o, "dma32_mb", json_uint(s->run->cfg.dma32_bytes / MIB)) ||
        !json_put(o, "min_free_kbytes",
                  sim ? json_uint(sim_min_free_kbytes(sim)) : cJSON_CreateNull()) ||
        !json_put(o, "watermark_scale_factor",
                  sim ? json_uint(sim_watermark_scale_factor(sim)) : cJSON_CreateNull()) ||
        !cJSON_AddBoolToObject(o, "kswapd", s->run->cfg.kswapd) ||
        !cJSON_AddBoolToObject(o, "cma", s->run->cfg.cma))
        return json_drop(o);
    return o;
}

/* The counters the session's model counts, by sysfs name in kernel order:
 * the UI offers these for charts, tables and breakpoints. */
static cJSON *json_session_counters(const struct session *s)
{
    cJSON *arr = cJSON_CreateArray();

    for (unsigned i = 0; arr && i < SIM_NR_STATS; i++)
        if (sim_stat_in_model(i, s->run->cfg.model) && !json_push(arr, json_str(sim_stat_name(i))))
            return json_drop(arr);
    return arr;
}

/* {"made": the engine version that made it (null when its store predates that record),
 *  "current": this one's} */
static cJSON *json_session_engine(const struct session *s)
{
    cJSON *o = cJSON_CreateObject();

    if (o && (!json_put(o, "made",
                        s->made_with[0] ? cJSON_CreateString(s->made_with) : cJSON_CreateNull()) ||
              !json_put(o, "current", cJSON_CreateString(SIM_VERSION))))
        return json_drop(o);
    return o;
}

/* Why expectation @e did not hold as @r says, into @buf; NULL when it held. */
static const char *json_expect_message(const struct scenario_expect *e,
                                       const struct replay_expect *r, char *buf, size_t size)
{
    switch (r->state) {
    case REPLAY_PASS:
        return NULL;
    case REPLAY_FAIL:
        snprintf(buf, size, "%s was %" PRIu64 " at %s, expected %s %" PRIu64, e->metric_text,
                 r->value, e->at, scenario_cmp_name(e->cmp), e->value);
        break;
    case REPLAY_NO_CACHE:
        snprintf(buf, size, "no cache named \"%s\" existed at %s", e->metric.cache, e->at);
        break;
    case REPLAY_NOT_REACHED:
        if (!strcmp(e->at, "end"))
            snprintf(buf, size, "the scenario stopped before its end");
        else
            snprintf(buf, size, "the mark \"%s\" was never reached", e->at);
        break;
    }
    return buf;
}

cJSON *json_session_expects(const struct session *s)
{
    const struct session_run *r = s->run;
    cJSON *arr = cJSON_CreateArray();
    size_t i;

    if (!arr || !r->scn || !r->rp.expects)
        return arr;
    for (i = 0; i < r->scn->nr_expects; i++) {
        const struct scenario_expect *e = &r->scn->expects[i];
        const struct replay_expect *x = &r->rp.expects[i];
        bool seen = x->state == REPLAY_PASS || x->state == REPLAY_FAIL;
        char buf[256];
        const char *msg = json_expect_message(e, x, buf, sizeof(buf));
        cJSON *o = cJSON_CreateObject();

        if (!json_push(arr, o) || !json_put(o, "at", json_str(e->at)) ||
            !json_put(o, "metric", json_str(e->metric_text)) ||
            !json_put(o, "op", json_str(scenario_cmp_name(e->cmp))) ||
            !json_put(o, "value", json_uint(e->value)) ||
            !json_put(o, "ok", cJSON_CreateBool(x->state == REPLAY_PASS)) ||
            !json_put(o, "seen", seen ? json_uint(x->value) : cJSON_CreateNull()) ||
            !json_put(o, "message", msg ? json_str(msg) : cJSON_CreateNull()))
            return json_drop(arr);
    }
    return arr;
}

/* The @k-th race op among the scenario's top-level ops, or NULL. */
static const struct scenario_op *scenario_race_op(const struct scenario *scn, size_t k)
{
    for (size_t i = 0; i < scn->nr_ops; i++)
        if (scn->ops[i].kind == SCENARIO_OP_RACE && !k--)
            return &scn->ops[i];
    return NULL;
}

static const char *race_op_name(uint8_t kind)
{
    return kind == SIM_OP_ALLOC ? "alloc" : kind == SIM_OP_FREE ? "free" : "flush_cpu";
}

/* One race the run applied (docs/api.md): where its first step is, its
 * contexts (with the scenario's names, when it is one of the scenario's own
 * top-level races) and its schedule. */
static cJSON *json_session_race(const struct session_race *e, const struct scenario_op *sop)
{
    cJSON *o = cJSON_CreateObject(), *ctxs = NULL;

    if (!o || !json_put(o, "at", json_uint(e->at)) || !json_put(o, "op", json_uint(e->op)) ||
        !json_put(o, "cache", sop && sop->cache ? json_str(sop->cache) : json_int(e->cache)) ||
        !json_put(o, "contexts", ctxs = cJSON_CreateArray()))
        return json_drop(o);
    for (unsigned i = 0; i < e->race.nr_ctx; i++) {
        const struct sim_race_ctx *x = &e->race.ctx[i];
        cJSON *c = cJSON_CreateObject(), *ops = NULL;

        if (!json_push(ctxs, c) || !json_put(c, "id", json_str(x->id)) ||
            !json_put(c, "cpu", json_uint(x->cpu)) ||
            !json_put(c, "kind", json_str(x->kind == SIM_RACE_IRQ ? "irq" : "task")) ||
            !json_put(c, "ops", ops = cJSON_CreateArray()))
            return json_drop(o);
        for (unsigned k = 0; k < x->nr_ops; k++) {
            const char *name = sop && i < sop->race->nr_ctx && k < sop->race->ctx[i].nr_ops
                                       ? sop->race->ctx[i].ops[k].name
                                       : NULL;
            cJSON *op = cJSON_CreateObject();

            if (!json_push(ops, op) ||
                !json_put(op, "op", json_str(race_op_name(x->ops[k].kind))) ||
                (name && !json_put(op, "name", json_str(name))) ||
                (x->ops[k].kind == SIM_OP_FREE && x->ops[k].ref < 0 &&
                 !json_put(op, "addr", json_hex(x->ops[k].addr))))
                return json_drop(o);
        }
    }
    if (!json_put(o, "schedule", json_str(e->race.schedule)))
        return json_drop(o);
    return o;
}

static cJSON *json_session_races(const struct session *s)
{
    cJSON *arr = cJSON_CreateArray();
    size_t scn_races = 0;

    for (size_t i = 0; arr && i < s->run->nr_races; i++) {
        const struct session_race *e = &s->run->races[i];
        const struct scenario_op *sop = NULL;

        if (e->op < s->run->batches[0].op_end) /* the scenario's own, in document order */
            sop = scenario_race_op(s->run->scn, scn_races++);
        if (!json_push(arr, json_session_race(e, sop)))
            return json_drop(arr);
    }
    return arr;
}

cJSON *json_session_info(struct session *s)
{
    cJSON *o = cJSON_CreateObject(), *scn = NULL, *warn = NULL, *ck = NULL, *mem = NULL;

    if (!o || !json_put(o, "id", cJSON_CreateString(s->id)) ||
        !json_put(o, "parent", s->parent[0] ? cJSON_CreateString(s->parent) : cJSON_CreateNull()) ||
        !json_put(o, "created", cJSON_CreateString(s->created)) ||
        !json_put(o, "engine", json_session_engine(s)) ||
        !json_put(o, "scenario", scn = cJSON_CreateObject()) ||
        !json_put(scn, "name", json_str(s->run->scn->name)) ||
        !json_put(scn, "title", json_str(s->run->scn->title)) ||
        !json_put(scn, "description", json_str(s->run->scn->description)) ||
        !json_put(o, "settings", session_settings_json(s)) ||
        !json_put(o, "machine", json_session_machine(s)) ||
        !json_put(o, "counters", json_session_counters(s)) ||
        !json_put(o, "events", json_uint(s->run->log.nr_events)) ||
        !json_put(o, "ops", json_uint(s->run->log.nr_ops)) ||
        !json_put(o, "position", json_uint(s->position)) ||
        !json_put(o, "batches", json_uint(s->run->nr_batches)) ||
        !json_put(o, "expects", json_session_expects(s)) ||
        !json_put(o, "races", json_session_races(s)) ||
        !json_put(o, "warnings", warn = cJSON_CreateObject()) ||
        !json_put(warn, "count", json_uint(s->run->rp.nr_warnings_total)) ||
        !json_put(warn, "first", json_session_warnings(s, 0, 20)) ||
        !json_put(o, "checkpoints", ck = cJSON_CreateObject()) ||
        !json_put(ck, "count", json_uint(s->run->nr_ckpts)) ||
        !json_put(ck, "bytes", json_uint(s->run->ckpt_bytes)) ||
        !json_put(ck, "every", json_uint(s->run->ckpt_every)) ||
        !json_put(ck, "stored", json_uint(s->run->disk.nr)) ||
        !json_put(ck, "written", json_uint(s->run->disk.written)) ||
        !json_put(ck, "loaded", json_uint(s->run->disk.loaded)) ||
        !json_put(ck, "build_replayed", json_uint(s->run->build_replayed)) ||
        !json_put(ck, "build_loaded", cJSON_CreateBool(s->run->build_loaded)) ||
        !json_put(o, "memory", mem = cJSON_CreateObject()) ||
        !json_put(mem, "bytes", json_uint(session_memory(s))) ||
        !json_put(mem, "limit", json_uint(s->run->lim.memory)) ||
        !json_put(o, "limits", cJSON_CreateObject()) ||
        !json_put(cJSON_GetObjectItemCaseSensitive(o, "limits"), "ops",
                  json_uint(s->run->lim.max_ops)))
        return json_drop(o);
    return o;
}

cJSON *json_session_log(const struct session *s)
{
    cJSON *o = cJSON_CreateObject(), *arr = NULL;
    size_t i;

    if (!o || !json_put(o, "scenario", json_str(s->run->scenario_label)) ||
        !json_put(o, "settings", session_settings_json(s)) ||
        !json_put(o, "batches", arr = cJSON_CreateArray()))
        return json_drop(o);
    for (i = 0; i < s->run->nr_batches; i++) {
        const struct session_batch *b = &s->run->batches[i];
        cJSON *bo = cJSON_CreateObject(), *ops = b->ops ? cJSON_Parse(b->ops) : cJSON_CreateNull();

        if (!json_push(arr, bo)) {
            cJSON_Delete(ops);
            return json_drop(o);
        }
        if (!json_put(bo, "ops", ops) ||
            !json_put(bo, "limit",
                      b->limit == REPLAY_NO_LIMIT ? cJSON_CreateNull() : json_uint(b->limit)) ||
            !json_put(bo, "ops_start", json_uint(b->op_start)) ||
            !json_put(bo, "ops_end", json_uint(b->op_end)) ||
            !json_put(bo, "events_start", json_uint(b->ev_start)) ||
            !json_put(bo, "events_end", json_uint(b->ev_end)))
            return json_drop(o);
    }
    return o;
}

cJSON *json_session_names(const struct session *s)
{
    cJSON *o = cJSON_CreateObject();
    size_t i;

    for (i = 0; o && i < s->run->rp.names.cap; i++) {
        const struct names_entry *e = &s->run->rp.names.slots[i];
        cJSON *n;

        if (!e->name)
            continue;
        n = cJSON_CreateObject();
        if (!json_put(o, e->name, n) || !json_put(n, "addr", json_hex(e->addr)) ||
            !json_put(n, "cache", json_int(e->cache)) || !json_put(n, "bulk", json_uint(e->bulk)))
            return json_drop(o);
    }
    return o;
}
