/*
 * session.c: a session's inputs and their replay: build, append, fork,
 * checkpoints and the memory budget (see session.h).  Positions (states,
 * events, series, search) are session_seek.c.
 *
 * The head replay carries two hooks while it runs forward: the event
 * callback feeds the timeline, and the replay hook logs each engine
 * operation, counts it against the session's limit and takes a checkpoint
 * every lim.ckpt_events events (and, when its owner asked, reports how far
 * the build has come every SESSION_PROGRESS_EVERY operations).  Appending is all or nothing: the batch runs
 * on the head, and if it fails the log, timeline, checkpoints, names and
 * warnings go back to where they were and the head machine is rebuilt from
 * the last checkpoint (a bounded replay).
 */
#include "session/session.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "present/json_state.h"
#include "scenario/replay_internal.h"
#include "session/session_internal.h"

#define MIB ((uint64_t)1 << 20)

void session_limits_default(struct session_limits *lim)
{
    lim->max_cpus = SIM_MAX_CPUS;
    lim->max_nodes = SIM_MAX_NODES;
    lim->max_mem_per_node = 4096 * MIB;
    lim->memory = 128 * MIB;
    lim->max_ops = 4000000;
    lim->ckpt_events = 256;
}

struct session *session_new(const struct session_limits *lim)
{
    struct session *s = calloc(1, sizeof(*s));

    if (!s)
        return NULL;
    if (pthread_mutex_init(&s->lock, NULL)) {
        free(s);
        return NULL;
    }
    if (pthread_mutex_init(&s->cache_lock, NULL)) {
        pthread_mutex_destroy(&s->lock);
        free(s);
        return NULL;
    }
    atomic_init(&s->ready, false);
    s->lim = *lim;
    if (!s->lim.ckpt_events)
        s->lim.ckpt_events = 256;
    s->ckpt_every = s->lim.ckpt_events;
    timeline_init(&s->tl);
    return s;
}

void session_cursor_drop(struct session *s)
{
    sim_destroy(s->cursor.sim);
    memset(&s->cursor, 0, sizeof(s->cursor));
}

void session_free(struct session *s)
{
    size_t i;

    if (!s)
        return;
    session_cache_clear(s);
    session_cursor_drop(s);
    for (i = 0; i < s->nr_ckpts; i++)
        sim_destroy(s->ckpts[i].sim);
    free(s->ckpts);
    if (s->have_rp)
        replay_release(&s->rp);
    scenario_release(s->scn);
    oplog_release(&s->log);
    free(s->scratch.in);
    timeline_release(&s->tl);
    for (i = 0; i < s->nr_batches; i++)
        free(s->batches[i].ops);
    free(s->batches);
    free(s->scenario_text);
    free(s->scenario_label);
    pthread_mutex_destroy(&s->cache_lock);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static char *session_strndup(const char *text, size_t len)
{
    char *p = malloc(len + 1);

    if (p) {
        memcpy(p, text, len);
        p[len] = '\0';
    }
    return p;
}

int session_set_scenario(struct session *s, const char *text, size_t len, const char *label)
{
    char *t = session_strndup(text, len), *l = session_strndup(label, strlen(label));

    if (!t || !l) {
        free(t);
        free(l);
        return -ENOMEM;
    }
    free(s->scenario_text);
    free(s->scenario_label);
    s->scenario_text = t;
    s->scenario_len = len;
    s->scenario_label = l;
    return 0;
}

/* Room for one more batch.  0 or -ENOMEM. */
static int session_reserve_batch(struct session *s)
{
    struct session_batch *b;
    size_t cap;

    if (s->nr_batches < s->cap_batches)
        return 0;
    cap = s->cap_batches ? s->cap_batches * 2 : 8;
    b = realloc(s->batches, cap * sizeof(*b));
    if (!b)
        return -ENOMEM;
    s->batches = b;
    s->cap_batches = cap;
    return 0;
}

int session_add_batch(struct session *s, const char *ops, uint64_t limit)
{
    struct session_batch *b;

    if (session_reserve_batch(s))
        return -ENOMEM;
    b = &s->batches[s->nr_batches];
    memset(b, 0, sizeof(*b));
    b->limit = limit;
    if (ops && !(b->ops = session_strndup(ops, strlen(ops))))
        return -ENOMEM;
    s->batch_bytes += ops ? strlen(ops) : 0;
    s->nr_batches++;
    return 0;
}

/* ---- settings ---------------------------------------------------------- */

int session_settings_parse(const cJSON *json, struct session_settings *st, struct strbuf *err)
{
    const cJSON *seed, *model, *variants, *v;

    memset(st, 0, sizeof(*st));
    if (!json)
        return 0;
    seed = cJSON_GetObjectItemCaseSensitive(json, "seed");
    model = cJSON_GetObjectItemCaseSensitive(json, "model");
    variants = cJSON_GetObjectItemCaseSensitive(json, "variants");
    if (seed) {
        double d = cJSON_IsNumber(seed) ? seed->valuedouble : -1;

        if (!(d >= 0 && d <= 9007199254740991.0) || d != (double)(uint64_t)d) {
            strbuf_puts(err, "key \"seed\": expected an integer from 0 to 2^53 - 1");
            return SESSION_EBADINPUT;
        }
        st->has_seed = true;
        st->seed = (uint64_t)d;
    }
    if (model) {
        struct sim_config tmp;

        sim_config_default(&tmp);
        if (!cJSON_IsString(model) || sim_model_parse(model->valuestring, &tmp)) {
            strbuf_puts(err, "key \"model\": expected a model name (\"sheaves\", \"legacy\" or "
                             "\"legacy:ERA_FROZEN_PARTIAL|ERA_DELAYED_FREEZE|ERA_DIRECT_LOAD\")");
            return SESSION_EBADINPUT;
        }
        st->has_model = true;
        st->model = tmp.model;
        st->era = tmp.legacy_era;
        if (tmp.legacy_era != SIM_ERA_DEFAULT) { /* the era names the variant too */
            st->has_variant[SIM_VAR_CPU_PARTIAL_DIRECT_LOAD] = true;
            st->variant[SIM_VAR_CPU_PARTIAL_DIRECT_LOAD] =
                tmp.variant[SIM_VAR_CPU_PARTIAL_DIRECT_LOAD];
        }
    }
    if (variants) {
        if (!cJSON_IsObject(variants)) {
            strbuf_puts(err, "key \"variants\": expected an object");
            return SESSION_EBADINPUT;
        }
        for (v = variants->child; v; v = v->next) {
            int id = sim_variant_lookup(v->string);

            if (id < 0) {
                strbuf_printf(err, "key \"variants\": unknown variant \"%.64s\"", v->string);
                return SESSION_EBADINPUT;
            }
            if (!cJSON_IsString(v) ||
                (strcmp(v->valuestring, "before") != 0 && strcmp(v->valuestring, "after") != 0)) {
                strbuf_printf(err, "key \"variants\": %s: expected \"before\" or \"after\"",
                              v->string);
                return SESSION_EBADINPUT;
            }
            st->has_variant[id] = true;
            st->variant[id] = strcmp(v->valuestring, "after") == 0 ? SIM_AFTER : SIM_BEFORE;
        }
    }
    return 0;
}

cJSON *session_settings_json(const struct session *s)
{
    cJSON *o = cJSON_CreateObject(), *vars = NULL;
    unsigned v;

    char model[64];

    sim_model_format(&s->cfg, model, sizeof(model));
    if (!o || !json_put(o, "seed", json_uint(s->cfg.seed)) ||
        !json_put(o, "model", json_str(model)) ||
        !json_put(o, "variants", vars = cJSON_CreateObject()))
        goto err_delete;
    for (v = 0; v < SIM_NR_VARIANTS; v++)
        if (sim_variant_in_model(v, s->cfg.model) &&
            !json_put(vars, sim_variant_name(v),
                      cJSON_CreateString(s->cfg.variant[v] == SIM_AFTER ? "after" : "before")))
            goto err_delete;
    return o;

err_delete:
    cJSON_Delete(o);
    return NULL;
}

/* ---- memory and checkpoints --------------------------------------------- */

uint64_t session_sim_bytes(const struct session *s)
{
    uint64_t pages = s->tl.pages_hwm, nodes = s->cfg.nr_nodes ? s->cfg.nr_nodes : 1;
    uint64_t node_pages = s->cfg.mem_per_node / SIM_PAGE_SIZE;

    /* struct sim and caches, the zones' chunk tables, the touched chunks'
     * page descriptors (1024 of 24 bytes), the touched pages and their slabs */
    return 32768 + nodes * (node_pages / 1024) * sizeof(void *) +
           (pages / 1024 + nodes) * 1024 * 24 + pages * (SIM_PAGE_SIZE + 96);
}

uint64_t session_nr_events(const struct session *s)
{
    return s->log.nr_events;
}

uint64_t session_nr_ops(const struct session *s)
{
    return s->log.nr_ops;
}

uint64_t session_memory(const struct session *s)
{
    uint64_t total = session_sim_bytes(s) + s->log.cap + timeline_bytes(&s->tl) + s->ckpt_bytes +
                     session_cache_bytes(s) + s->scenario_len + s->batch_bytes;

    if (s->cursor.sim)
        total += s->cursor.bytes;
    if (s->have_rp)
        total += s->rp.names.cap * (sizeof(struct names_entry) + 16);
    return total;
}

/* Remove checkpoint @i (not 0). */
static void session_ckpt_remove(struct session *s, size_t i)
{
    sim_destroy(s->ckpts[i].sim);
    s->ckpt_bytes -= s->ckpts[i].bytes;
    memmove(&s->ckpts[i], &s->ckpts[i + 1], (s->nr_ckpts - i - 1) * sizeof(s->ckpts[0]));
    s->nr_ckpts--;
}

void session_thin(struct session *s)
{
    while (session_memory(s) > s->lim.memory) {
        uint64_t best = UINT64_MAX;
        size_t i, victim = 0;

        if (s->cursor.sim) {
            session_cursor_drop(s);
            continue;
        }
        if (s->cache_bytes) {
            session_cache_clear(s);
            continue;
        }
        /* the checkpoint whose removal leaves the smallest gap; the oldest on ties */
        for (i = 1; i < s->nr_ckpts; i++) {
            uint64_t next = i + 1 < s->nr_ckpts ? s->ckpts[i + 1].seq : s->log.nr_events;
            uint64_t gap = next - s->ckpts[i - 1].seq;

            if (gap < best) {
                best = gap;
                victim = i;
            }
        }
        if (!victim)
            break;
        session_ckpt_remove(s, victim);
        /* take new ones no denser than the budget lets the old ones be */
        if (best / 2 > s->ckpt_every)
            s->ckpt_every = best / 2;
    }
}

/* A checkpoint of the head, which is at the end of the log.  0, -ENOMEM or -E2BIG. */
static int session_ckpt_add(struct session *s)
{
    struct checkpoint *c;
    struct sim *copy;

    if (s->nr_ckpts == s->cap_ckpts) {
        size_t cap = s->cap_ckpts ? s->cap_ckpts * 2 : 64;

        c = realloc(s->ckpts, cap * sizeof(*c));
        if (!c)
            return -ENOMEM;
        s->ckpts = c;
        s->cap_ckpts = cap;
    }
    if (sim_clone(s->rp.sim, &copy))
        return -ENOMEM;
    c = &s->ckpts[s->nr_ckpts++];
    c->sim = copy;
    c->seq = s->log.nr_events;
    c->op = s->log.nr_ops;
    c->off = s->log.len;
    c->bytes = session_sim_bytes(s);
    memcpy(c->totals, s->tl.totals, sizeof(c->totals));
    s->ckpt_seq = c->seq;
    s->ckpt_op = c->op;
    s->ckpt_bytes += c->bytes;
    session_thin(s);
    return session_memory(s) > s->lim.memory ? -E2BIG : 0;
}

/* ---- the forward run ------------------------------------------------------ */

static void session_on_event(const struct sim_event *ev, void *arg)
{
    struct session *s = arg;

    if (!s->hook_err && timeline_event(&s->tl, ev))
        s->hook_err = -ENOMEM;
}

static int session_on_op(struct replay *rp, const struct sim_op *op, const struct sim_result *res,
                         void *arg)
{
    struct session *s = arg;
    uint64_t seq = sim_event_count(rp->sim);
    int err;

    (void)res;
    if (s->hook_err)
        return replay_fail(rp, s->hook_err, "out of memory");
    if (seq != s->tl.nr_events)
        return replay_fail(rp, -EIO, "the engine emitted events the session did not see");
    if (oplog_append(&s->log, op, seq - s->log.nr_events))
        return replay_fail(rp, -ENOMEM, "out of memory");
    if (s->log.nr_ops > s->lim.max_ops)
        return replay_fail(rp, -E2BIG, "the session reached its limit of %" PRIu64 " operations",
                           s->lim.max_ops);
    if (s->build_progress && !(s->log.nr_ops % SESSION_PROGRESS_EVERY))
        s->build_progress(s->log.nr_ops, s->build_progress_arg);
    if (seq - s->ckpt_seq >= s->ckpt_every || s->log.nr_ops - s->ckpt_op >= s->ckpt_every)
        err = session_ckpt_add(s);
    else if (session_memory(s) > s->lim.memory) {
        session_thin(s);
        err = session_memory(s) > s->lim.memory ? -E2BIG : 0;
    } else
        err = 0;
    if (err == -E2BIG)
        return replay_fail(rp, err, "the session needs more than its %" PRIu64 " MiB of memory",
                           s->lim.memory / MIB);
    if (err)
        return replay_fail(rp, err, "out of memory");
    return 0;
}

/* Map a replay's result to a session error, with its message. */
static int session_replay_error(struct session *s, int ret, struct strbuf *err)
{
    if (ret == 0 || ret == -ECANCELED)
        return 0;
    if (!err->len)
        strbuf_puts(err, strbuf_str(&s->rp.error));
    switch (ret) {
    case -ENOMEM:
        return -ENOMEM;
    case -E2BIG:
        return SESSION_ELIMIT;
    case -EIO:
        return SESSION_EBROKEN;
    default:
        return SESSION_EUNPROCESSABLE; /* a name, a cache or an operation the engine refused */
    }
}

/* Parse a stored batch. */
static int session_parse_batch(struct session *s, const char *text, const char *label,
                               struct scenario_op **ops, size_t *nr, struct strbuf *err)
{
    cJSON *arr = cJSON_Parse(text);
    uint64_t steps;
    int ret;

    if (!arr) {
        strbuf_printf(err, "%s: not valid JSON", label);
        return SESSION_EBADINPUT;
    }
    ret = scenario_parse_op_list(arr, label, s->cfg.nr_cpus, s->cfg.nr_nodes, ops, nr, &steps, err);
    cJSON_Delete(arr);
    if (ret == -ERANGE)
        return SESSION_EUNPROCESSABLE;
    return ret == -EINVAL ? SESSION_EBADINPUT : ret;
}

/* Machine limits of the server, beyond the scenario format's. */
static int session_check_machine(const struct session *s, struct strbuf *err)
{
    if (s->cfg.nr_cpus > s->lim.max_cpus)
        strbuf_printf(err, "machine.cpus: %u is more than this server allows (%u)", s->cfg.nr_cpus,
                      s->lim.max_cpus);
    else if (s->cfg.nr_nodes > s->lim.max_nodes)
        strbuf_printf(err, "machine.nodes: %u is more than this server allows (%u)",
                      s->cfg.nr_nodes, s->lim.max_nodes);
    else if (s->cfg.mem_per_node > s->lim.max_mem_per_node)
        strbuf_printf(err,
                      "machine.mem_mb_per_node: %" PRIu64 " is more than this server "
                      "allows (%" PRIu64 ")",
                      s->cfg.mem_per_node / MIB, s->lim.max_mem_per_node / MIB);
    else
        return 0;
    return SESSION_EUNPROCESSABLE;
}

int session_build(struct session *s, struct strbuf *err)
{
    char label[32];
    size_t i;
    unsigned v;
    int ret;

    ret = scenario_parse(s->scenario_text, s->scenario_len, s->scenario_label, &s->scn, err);
    if (ret)
        return ret == -ENOMEM   ? -ENOMEM
               : ret == -ERANGE ? SESSION_EUNPROCESSABLE
                                : SESSION_EBADINPUT;
    s->cfg = s->scn->config;
    if (s->settings.has_seed)
        s->cfg.seed = s->settings.seed;
    if (s->settings.has_model) {
        s->cfg.model = s->settings.model;
        s->cfg.legacy_era = s->settings.era;
    }
    for (v = 0; v < SIM_NR_VARIANTS; v++)
        if (s->settings.has_variant[v])
            s->cfg.variant[v] = s->settings.variant[v];
    if (sim_model_error(&s->cfg)) {
        strbuf_printf(err, "key \"model\": %s", sim_model_error(&s->cfg));
        return SESSION_EBADINPUT;
    }
    if ((ret = session_check_machine(s, err)))
        return ret;
    s->have_rp = true;
    ret = replay_init(&s->rp, s->scn, &s->cfg);
    if (ret) {
        strbuf_puts(err, strbuf_str(&s->rp.error));
        return ret == -ENOMEM ? -ENOMEM : SESSION_EUNPROCESSABLE;
    }
    sim_set_event_cb(s->rp.sim, session_on_event, s);
    s->rp.hook = session_on_op;
    s->rp.hook_arg = s;
    if ((ret = session_ckpt_add(s)))
        return ret == -E2BIG ? SESSION_ELIMIT : ret;
    if (!s->nr_batches && (ret = session_add_batch(s, NULL, REPLAY_NO_LIMIT)))
        return ret;
    s->rp.op_limit = s->batches[0].limit;
    ret = session_replay_error(s, replay_run(&s->rp), err);
    s->batches[0].op_end = s->log.nr_ops;
    s->batches[0].ev_end = s->log.nr_events;
    for (i = 1; i < s->nr_batches && !ret; i++) {
        struct session_batch *b = &s->batches[i];
        struct scenario_op *ops = NULL;
        size_t nr = 0;

        snprintf(label, sizeof(label), "batch %zu", i);
        b->op_start = s->log.nr_ops;
        b->ev_start = s->log.nr_events;
        if ((ret = session_parse_batch(s, b->ops, label, &ops, &nr, err)))
            break;
        s->rp.label = label;
        s->rp.op_limit = b->limit == REPLAY_NO_LIMIT ? REPLAY_NO_LIMIT : b->op_start + b->limit;
        ret = session_replay_error(s, replay_more(&s->rp, ops, nr, "ops"), err);
        s->rp.label = NULL;
        scenario_op_list_release(ops, nr);
        b->op_end = s->log.nr_ops;
        b->ev_end = s->log.nr_events;
    }
    s->rp.op_limit = REPLAY_NO_LIMIT;
    s->position = 0;
    return ret;
}

/* ---- append ---------------------------------------------------------------- */

/* Put the session back to @end after a failed batch; SESSION_EBROKEN if that fails too. */
static int session_rollback(struct session *s, const struct session_pos *end,
                            const struct timeline_mark *tm, struct names *saved, size_t nr_warnings,
                            unsigned long nr_warnings_total, int default_cache)
{
    const struct checkpoint *base;
    struct session_pos p;
    struct sim *m = NULL;
    size_t i;
    int err;

    oplog_truncate(&s->log, end->off, end->op, end->seq);
    timeline_truncate(&s->tl, tm);
    while (s->nr_ckpts > 1 && s->ckpts[s->nr_ckpts - 1].op > end->op)
        session_ckpt_remove(s, s->nr_ckpts - 1);
    s->ckpt_seq = s->ckpts[s->nr_ckpts - 1].seq;
    s->ckpt_op = s->ckpts[s->nr_ckpts - 1].op;
    if (s->cursor.sim && s->cursor.op > end->op)
        session_cursor_drop(s);
    names_release(&s->rp.names);
    s->rp.names = *saved;
    memset(saved, 0, sizeof(*saved));
    for (i = nr_warnings; i < s->rp.nr_warnings; i++) {
        free(s->rp.warnings[i].path);
        free(s->rp.warnings[i].message);
    }
    if (s->rp.nr_warnings > nr_warnings)
        s->rp.nr_warnings = nr_warnings;
    s->rp.nr_warnings_total = nr_warnings_total;
    s->rp.default_cache = default_cache;
    s->hook_err = 0;
    /* the head machine: the last checkpoint, then the log up to the old end */
    base = &s->ckpts[s->nr_ckpts - 1];
    session_ckpt_pos(base, &p);
    if (sim_clone(base->sim, &m))
        return SESSION_EBROKEN;
    while (p.op < end->op)
        if ((err = session_apply_next(s, m, &p))) {
            sim_destroy(m);
            return SESSION_EBROKEN;
        }
    sim_destroy(s->rp.sim);
    s->rp.sim = m;
    sim_set_event_cb(m, session_on_event, s);
    return 0;
}

/* The warnings the head recorded from index @from on, as JSON. */
static cJSON *session_warnings_json(const struct session *s, size_t from, size_t max)
{
    cJSON *arr = cJSON_CreateArray();
    size_t i;

    for (i = from; arr && i < s->rp.nr_warnings && i - from < max; i++) {
        const struct replay_warning *w = &s->rp.warnings[i];
        cJSON *o = cJSON_CreateObject();

        if (!json_push(arr, o) || !json_put(o, "path", json_str(w->path)) ||
            !json_put(o, "op", json_str(w->op)) ||
            !json_put(o, "status", json_str(replay_status_name(w->status))) ||
            !json_put(o, "message", json_str(w->message))) {
            cJSON_Delete(arr);
            return NULL;
        }
    }
    return arr;
}

int session_append(struct session *s, const cJSON *arr, struct session_append_result *res,
                   struct strbuf *err)
{
    struct session_pos end = {s->log.nr_events, s->log.nr_ops, s->log.len};
    struct names saved = NAMES_INIT;
    struct timeline_mark tm;
    struct scenario_op *ops = NULL;
    size_t nr = 0, nr_warnings = s->rp.nr_warnings;
    unsigned long nr_warnings_total = s->rp.nr_warnings_total;
    int default_cache = s->rp.default_cache, ret;
    uint64_t steps = 0;
    char *text = NULL;

    memset(res, 0, sizeof(*res));
    res->ops_before = end.op;
    res->events_before = end.seq;
    ret = scenario_parse_op_list(arr, "request", s->cfg.nr_cpus, s->cfg.nr_nodes, &ops, &nr, &steps,
                                 err);
    if (ret)
        return ret == -ENOMEM   ? -ENOMEM
               : ret == -ERANGE ? SESSION_EUNPROCESSABLE
                                : SESSION_EBADINPUT;
    if (steps > s->lim.max_ops - s->log.nr_ops) {
        strbuf_printf(err,
                      "request: %" PRIu64 " more operations would pass the session's limit "
                      "of %" PRIu64,
                      steps, s->lim.max_ops);
        ret = SESSION_ELIMIT;
        goto out_release;
    }
    if (!(text = cJSON_PrintUnformatted(arr)) || session_reserve_batch(s) ||
        names_copy(&saved, &s->rp.names)) {
        ret = -ENOMEM;
        goto out_release;
    }
    timeline_mark(&s->tl, &tm);
    s->rp.label = "request";
    ret = replay_more(&s->rp, ops, nr, "ops");
    s->rp.label = NULL;
    if (ret == -ECANCELED)
        ret = 0;
    if (ret) {
        int rb;

        ret = session_replay_error(s, ret, err);
        rb = session_rollback(s, &end, &tm, &saved, nr_warnings, nr_warnings_total, default_cache);
        if (rb)
            ret = rb;
        goto out_release;
    }
    {
        struct session_batch *b = &s->batches[s->nr_batches++];

        memset(b, 0, sizeof(*b));
        b->ops = text;
        s->batch_bytes += strlen(text);
        text = NULL;
        b->limit = REPLAY_NO_LIMIT;
        b->op_start = end.op;
        b->ev_start = end.seq;
        b->op_end = s->log.nr_ops;
        b->ev_end = s->log.nr_events;
    }
    res->warnings = session_warnings_json(s, nr_warnings, 100);
out_release:
    names_release(&saved);
    cJSON_free(text);
    scenario_op_list_release(ops, nr);
    return ret;
}

/* ---- fork -------------------------------------------------------------------- */

/* Operations a fork at @at keeps: those done by @at and the one in progress there. */
static int session_ops_at(struct session *s, uint64_t at, uint64_t *ops)
{
    const struct checkpoint *base = session_ckpt_before(s, at, false);
    struct session_pos p;
    uint64_t ev;

    session_ckpt_pos(base, &p);
    while (session_peek_events(s, &p, &ev)) {
        struct sim_op op;

        if (!(p.seq < at || p.seq + ev <= at))
            break;
        if (oplog_next(&s->log, &p.off, &op, &ev, NULL))
            return SESSION_EBROKEN;
        p.seq += ev;
        p.op++;
    }
    *ops = p.op;
    return 0;
}

int session_fork_inputs(struct session *s, uint64_t at, struct session *child)
{
    uint64_t keep;
    size_t i;
    unsigned v;
    int ret;

    if (at > s->log.nr_events)
        return SESSION_EBADINPUT;
    if ((ret = session_ops_at(s, at, &keep)) ||
        (ret = session_set_scenario(child, s->scenario_text, s->scenario_len, s->scenario_label)))
        return ret;
    child->scenario_id = s->scenario_id;
    memset(&child->settings, 0, sizeof(child->settings));
    child->settings.has_seed = child->settings.has_model = true;
    child->settings.seed = s->cfg.seed;
    child->settings.model = s->cfg.model;
    child->settings.era = s->cfg.legacy_era;
    for (v = 0; v < SIM_NR_VARIANTS; v++) {
        child->settings.has_variant[v] = true;
        child->settings.variant[v] = s->cfg.variant[v];
    }
    for (i = 0; i < s->nr_batches; i++) {
        const struct session_batch *b = &s->batches[i];
        uint64_t limit = b->limit;

        if (i > 0 && b->op_start >= keep)
            break;
        if (b->op_end > keep && (limit == REPLAY_NO_LIMIT || limit > keep - b->op_start))
            limit = keep - b->op_start;
        if ((ret = session_add_batch(child, b->ops, limit)))
            return ret;
        if (b->op_end >= keep)
            break;
    }
    memcpy(child->parent, s->id, sizeof(child->parent));
    return 0;
}

/* ---- descriptions -------------------------------------------------------------- */

static cJSON *session_machine_json(const struct session *s)
{
    const struct sim *sim = s->have_rp ? s->rp.sim : NULL;
    cJSON *o = cJSON_CreateObject(), *cpu_node = NULL;
    unsigned c;

    if (!o || !json_put(o, "cpus", json_uint(s->cfg.nr_cpus)) ||
        !json_put(o, "nodes", json_uint(s->cfg.nr_nodes)) ||
        !json_put(o, "cpu_node", cpu_node = cJSON_CreateArray()))
        goto err_delete;
    for (c = 0; c < s->cfg.nr_cpus; c++)
        if (!json_push(cpu_node, json_uint(s->cfg.cpu_node[c])))
            goto err_delete;
    if (!json_put(o, "mem_mb_per_node", json_uint(s->cfg.mem_per_node / MIB)) ||
        !cJSON_AddBoolToObject(o, "freelist_hardened", s->cfg.freelist_hardened) ||
        !cJSON_AddBoolToObject(o, "freelist_random", s->cfg.freelist_random))
        goto err_delete;
    /* the zones and watermark parameters in effect (the engine's defaults filled in) */
    if (!json_put(o, "dma_mb", json_uint(s->cfg.dma_bytes / MIB)) ||
        !json_put(o, "dma32_mb", json_uint(s->cfg.dma32_bytes / MIB)) ||
        !json_put(o, "min_free_kbytes",
                  sim ? json_uint(sim_min_free_kbytes(sim)) : cJSON_CreateNull()) ||
        !json_put(o, "watermark_scale_factor",
                  sim ? json_uint(sim_watermark_scale_factor(sim)) : cJSON_CreateNull()) ||
        !cJSON_AddBoolToObject(o, "kswapd", s->cfg.kswapd) ||
        !cJSON_AddBoolToObject(o, "cma", s->cfg.cma))
        goto err_delete;
    return o;

err_delete:
    cJSON_Delete(o);
    return NULL;
}

/* The counters the session's model counts, by sysfs name in kernel order:
 * the UI offers these for charts, tables and breakpoints. */
static cJSON *session_counters_json(const struct session *s)
{
    cJSON *arr = cJSON_CreateArray();

    for (unsigned i = 0; arr && i < SIM_NR_STATS; i++)
        if (sim_stat_in_model(i, s->cfg.model) && !json_push(arr, json_str(sim_stat_name(i)))) {
            cJSON_Delete(arr);
            return NULL;
        }
    return arr;
}

cJSON *session_info(struct session *s)
{
    cJSON *o = cJSON_CreateObject(), *scn = NULL, *warn = NULL, *ck = NULL, *mem = NULL;

    if (!o || !json_put(o, "id", cJSON_CreateString(s->id)) ||
        !json_put(o, "parent", s->parent[0] ? cJSON_CreateString(s->parent) : cJSON_CreateNull()) ||
        !json_put(o, "created", cJSON_CreateString(s->created)) ||
        !json_put(o, "scenario", scn = cJSON_CreateObject()) ||
        !json_put(scn, "name", json_str(s->scn->name)) ||
        !json_put(scn, "title", json_str(s->scn->title)) ||
        !json_put(scn, "description", json_str(s->scn->description)) ||
        !json_put(o, "settings", session_settings_json(s)) ||
        !json_put(o, "machine", session_machine_json(s)) ||
        !json_put(o, "counters", session_counters_json(s)) ||
        !json_put(o, "events", json_uint(s->log.nr_events)) ||
        !json_put(o, "ops", json_uint(s->log.nr_ops)) ||
        !json_put(o, "position", json_uint(s->position)) ||
        !json_put(o, "batches", json_uint(s->nr_batches)) ||
        !json_put(o, "warnings", warn = cJSON_CreateObject()) ||
        !json_put(warn, "count", json_uint(s->rp.nr_warnings_total)) ||
        !json_put(warn, "first", session_warnings_json(s, 0, 20)) ||
        !json_put(o, "checkpoints", ck = cJSON_CreateObject()) ||
        !json_put(ck, "count", json_uint(s->nr_ckpts)) ||
        !json_put(ck, "bytes", json_uint(s->ckpt_bytes)) ||
        !json_put(ck, "every", json_uint(s->ckpt_every)) ||
        !json_put(o, "memory", mem = cJSON_CreateObject()) ||
        !json_put(mem, "bytes", json_uint(session_memory(s))) ||
        !json_put(mem, "limit", json_uint(s->lim.memory)) ||
        !json_put(o, "limits", cJSON_CreateObject()) ||
        !json_put(cJSON_GetObjectItemCaseSensitive(o, "limits"), "ops", json_uint(s->lim.max_ops)))
        goto err_delete;
    return o;

err_delete:
    cJSON_Delete(o);
    return NULL;
}

cJSON *session_log(const struct session *s)
{
    cJSON *o = cJSON_CreateObject(), *arr = NULL;
    size_t i;

    if (!o || !json_put(o, "scenario", json_str(s->scenario_label)) ||
        !json_put(o, "settings", session_settings_json(s)) ||
        !json_put(o, "batches", arr = cJSON_CreateArray()))
        goto err_delete;
    for (i = 0; i < s->nr_batches; i++) {
        const struct session_batch *b = &s->batches[i];
        cJSON *bo = cJSON_CreateObject(), *ops = b->ops ? cJSON_Parse(b->ops) : cJSON_CreateNull();

        if (!json_push(arr, bo)) {
            cJSON_Delete(ops);
            goto err_delete;
        }
        if (!json_put(bo, "ops", ops) ||
            !json_put(bo, "limit",
                      b->limit == REPLAY_NO_LIMIT ? cJSON_CreateNull() : json_uint(b->limit)) ||
            !json_put(bo, "ops_start", json_uint(b->op_start)) ||
            !json_put(bo, "ops_end", json_uint(b->op_end)) ||
            !json_put(bo, "events_start", json_uint(b->ev_start)) ||
            !json_put(bo, "events_end", json_uint(b->ev_end)))
            goto err_delete;
    }
    return o;

err_delete:
    cJSON_Delete(o);
    return NULL;
}

cJSON *session_names(const struct session *s)
{
    cJSON *o = cJSON_CreateObject();
    size_t i;

    for (i = 0; o && i < s->rp.names.cap; i++) {
        const struct names_entry *e = &s->rp.names.slots[i];
        cJSON *n;

        if (!e->name)
            continue;
        n = cJSON_CreateObject();
        if (!json_put(o, e->name, n) || !json_put(n, "addr", json_hex(e->addr)) ||
            !json_put(n, "cache", json_int(e->cache)) || !json_put(n, "bulk", json_uint(e->bulk))) {
            cJSON_Delete(o);
            return NULL;
        }
    }
    return o;
}
