/*
 * session.c: a session's inputs and their replay: build, append, fork
 * checkpoints and the memory budget (see session.h).  Positions (states,
 * events, series, search) are session_seek.c.
 *
 * The head replay carries two hooks while it runs forward: the event callback
 * feeds the timeline, and the replay hook logs each engine operation, counts it
 * against the session's limit and takes a checkpoint every lim.ckpt_events
 * events (and, when its owner asked, reports how far the build has come every
 * SESSION_PROGRESS_EVERY operations).  Appending is all or nothing: the batch
 * runs on the head, and if it fails the log, timeline, checkpoints, names and
 * warnings go back to where they were and the head machine is rebuilt from the
 * last checkpoint (a bounded replay).
 */
#include "session/session.h"

#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void session_free(struct session *s)
{
    bool big;
    size_t i;

    if (!s)
        return;
    big = session_memory(s) >= SESSION_TRIM_BYTES;
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
    /* the server keeps freed memory for the next seek (cmd_serve.c's mallopt);
     * a big session's is handed back, so that a deleted session frees it */
    if (big)
        malloc_trim(0);
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

/* ---- memory and checkpoints --------------------------------------------- */

uint64_t session_nr_events(const struct session *s)
{
    return s->log.nr_events;
}

uint64_t session_nr_ops(const struct session *s)
{
    return s->log.nr_ops;
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
    session_ckpt_truncate(s, end->op);
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
    res->warnings_from = nr_warnings;
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
