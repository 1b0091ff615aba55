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
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/locked.h"
#include "scenario/replay_internal.h"
#include "session/bytes.h"
#include "session/keeper.h"
#include "session/run_state.h"
#include "session/session_internal.h"
#include "session/store.h"

#define MIB ((uint64_t)1 << 20)

void session_limits_default(struct session_limits *lim)
{
    lim->max_cpus = SIM_MAX_CPUS;
    lim->max_nodes = SIM_MAX_NODES;
    lim->max_mem_per_node = 4096 * MIB;
    lim->memory = 128 * MIB;
    lim->max_ops = 100000000;
    lim->ckpt_events = 256;
    lim->disk_min_ops = CKPT_DISK_MIN_OPS;
}

/* @size zeroed bytes whose two mutexes, at bytes @a_off and @b_off, are
 * initialised (locked_zalloc() for an object with two); NULL when out of
 * memory. */
static void *zalloc_two_locks(size_t size, size_t a_off, size_t b_off)
{
    char *obj = locked_zalloc(size, a_off);
    void *b;

    if (!obj)
        return NULL;
    b = obj + b_off;
    if (pthread_mutex_init(b, NULL)) {
        locked_free(obj, a_off);
        return NULL;
    }
    return obj;
}

struct session_run *session_run_new(const struct session_limits *lim)
{
    struct session_run *r = zalloc_two_locks(sizeof(*r), offsetof(struct session_run, lock),
                                             offsetof(struct session_run, cache_lock));

    if (!r)
        return NULL;
    atomic_init(&r->refs, 1);
    atomic_init(&r->charged, 0);
    atomic_init(&r->keeper, NULL);
    r->lim = *lim;
    if (!r->lim.ckpt_events)
        r->lim.ckpt_events = 256;
    if (!r->lim.disk_min_ops)
        r->lim.disk_min_ops = CKPT_DISK_MIN_OPS;
    r->ckpt_every = r->lim.ckpt_events;
    timeline_init(&r->tl);
    return r;
}

/* Free @r and everything it holds. */
void session_run_recharge(struct session_run *r)
{
    uint64_t now, was;

    if (!r->charge_to)
        return;
    now = session_run_memory(r);
    was = atomic_exchange(&r->charged, now);
    if (now >= was)
        atomic_fetch_add(r->charge_to, now - was);
    else
        atomic_fetch_sub(r->charge_to, was - now);
}

static void session_run_free(struct session_run *r)
{
    struct keeper *k = atomic_load(&r->keeper);
    bool big;
    size_t i;

    if (k) /* its end is written before it goes (keeper.h) */
        keeper_forget(k, r);
    big = session_run_memory(r) >= SESSION_TRIM_BYTES;

    session_cache_clear(r);
    session_cursor_drop(r);
    for (i = 0; i < r->nr_ckpts; i++)
        session_ckpt_release(&r->ckpts[i]);
    free(r->ckpts);
    if (r->have_rp)
        replay_release(&r->rp);
    scenario_release(r->scn);
    oplog_release(&r->log);
    free(r->scratch.in);
    free(r->scratch.race);
    free(r->races);
    timeline_release(&r->tl);
    ckpt_disk_release(&r->disk);
    for (i = 0; i < r->nr_batches; i++)
        free(r->batches[i].ops);
    free(r->batches);
    free(r->scenario_text);
    free(r->scenario_label);
    cJSON_free(r->canon);
    free(r->build_msg);
    if (r->charge_to)
        atomic_fetch_sub(r->charge_to, atomic_load(&r->charged));
    pthread_mutex_destroy(&r->cache_lock);
    pthread_mutex_destroy(&r->lock);
    free(r);
    /* the server keeps freed memory for the next seek (cmd_serve.c's mallopt);
     * a big run's is handed back, so that a deleted session frees it */
    if (big)
        malloc_trim(0);
}

void session_run_put(struct session_run *r)
{
    if (r && atomic_fetch_sub(&r->refs, 1) == 1)
        session_run_free(r);
}

struct session_run *session_run_get(struct session *s)
{
    struct session_run *r;

    pthread_mutex_lock(&s->run_lock);
    r = s->run;
    atomic_fetch_add(&r->refs, 1);
    pthread_mutex_unlock(&s->run_lock);
    return r;
}

void session_set_run(struct session *s, struct session_run *r)
{
    struct session_run *old;

    pthread_mutex_lock(&s->run_lock);
    old = s->run;
    s->run = r;
    pthread_mutex_unlock(&s->run_lock);
    session_run_put(old);
}

struct session *session_new(const struct session_limits *lim)
{
    struct session *s = zalloc_two_locks(sizeof(*s), offsetof(struct session, lock),
                                         offsetof(struct session, run_lock));

    if (!s)
        return NULL;
    if (!(s->run = session_run_new(lim))) {
        session_free(s);
        return NULL;
    }
    atomic_init(&s->ready, false);
    snprintf(s->made_with, sizeof(s->made_with), "%s", SIM_VERSION); /* a restore overwrites it */
    return s;
}

void session_free(struct session *s)
{
    if (!s)
        return;
    session_run_put(s->run);
    pthread_mutex_destroy(&s->run_lock);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

void session_lock(struct session *s)
{
    pthread_mutex_lock(&s->lock);
    pthread_mutex_lock(&s->run->lock);
}

void session_unlock(struct session *s)
{
    pthread_mutex_unlock(&s->run->lock);
    pthread_mutex_unlock(&s->lock);
}

bool session_trylock(struct session *s)
{
    if (pthread_mutex_trylock(&s->lock))
        return false;
    if (pthread_mutex_trylock(&s->run->lock)) {
        pthread_mutex_unlock(&s->lock);
        return false;
    }
    return true;
}

int session_run_copy_inputs(struct session_run *dst, const struct session_run *src)
{
    struct session tmp = {.run = dst};
    size_t i;
    int ret;

    if ((ret = session_set_scenario(&tmp, src->scenario_text, src->scenario_len,
                                    src->scenario_label)))
        return ret;
    dst->settings = src->settings;
    dst->disk_store = src->disk_store;
    memcpy(dst->log_id, src->log_id, sizeof(dst->log_id));
    dst->log_store = src->log_store;
    for (i = 0; i < src->nr_batches && !ret; i++)
        ret = session_add_batch(&tmp, src->batches[i].ops, src->batches[i].limit);
    return ret;
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
    free(s->run->scenario_text);
    free(s->run->scenario_label);
    s->run->scenario_text = t;
    s->run->scenario_len = len;
    s->run->scenario_label = l;
    return 0;
}

/* Room for one more batch.  0 or -ENOMEM. */
static int session_reserve_batch(struct session *s)
{
    struct session_batch *b = grow_array(s->run->batches, &s->run->cap_batches,
                                         s->run->nr_batches + 1, sizeof(*b), 8);

    if (!b)
        return -ENOMEM;
    s->run->batches = b;
    return 0;
}

int session_add_batch(struct session *s, const char *ops, uint64_t limit)
{
    struct session_batch *b;

    if (session_reserve_batch(s))
        return -ENOMEM;
    b = &s->run->batches[s->run->nr_batches];
    memset(b, 0, sizeof(*b));
    b->limit = limit;
    if (ops && !(b->ops = session_strndup(ops, strlen(ops))))
        return -ENOMEM;
    s->run->batch_bytes += ops ? strlen(ops) : 0;
    s->run->nr_batches++;
    return 0;
}

/* ---- settings ---------------------------------------------------------- */

/* ---- memory and checkpoints --------------------------------------------- */

uint64_t session_nr_events(const struct session *s)
{
    return s->run->log.nr_events;
}

uint64_t session_nr_ops(const struct session *s)
{
    return s->run->log.nr_ops;
}

/* ---- the forward run ------------------------------------------------------ */

static void session_on_event(const struct sim_event *ev, void *arg)
{
    struct session_run *r = arg;

    if (!r->hook_err && timeline_event(&r->tl, ev))
        r->hook_err = -ENOMEM;
}

/* Remember a race op (before the log takes it): its first step is the
 * first event it emitted.  0 or -ENOMEM. */
static int session_note_race(struct session_run *r, const struct sim_op *op)
{
    struct session_race *e;

    if (!(e = grow_array(r->races, &r->cap_races, r->nr_races + 1, sizeof(*e), 4)))
        return -ENOMEM;
    r->races = e;
    e = &r->races[r->nr_races++];
    e->at = r->log.nr_events;
    e->op = r->log.nr_ops;
    e->cache = op->cache;
    e->race = *op->race;
    return 0;
}

static int session_on_op(struct replay *rp, const struct sim_op *op, const struct sim_result *res,
                         void *arg)
{
    struct session_run *r = arg;
    uint64_t seq = sim_event_count(rp->sim);
    int err;

    (void)res;
    if (r->hook_err)
        return replay_fail(rp, r->hook_err, "out of memory");
    if (seq != r->tl.nr_events)
        return replay_fail(rp, -EIO, "the engine emitted events the session did not see");
    if (op->kind == SIM_OP_RACE && op->race && session_note_race(r, op))
        return replay_fail(rp, -ENOMEM, "out of memory");
    if (oplog_append(&r->log, op, seq - r->log.nr_events))
        return replay_fail(rp, -ENOMEM, "out of memory");
    if (r->log.nr_ops > r->lim.max_ops)
        return replay_fail(rp, -E2BIG,
                           "the session reached its limit of %" PRIu64
                           " operations (slublab serve --max-ops N raises it)",
                           r->lim.max_ops);
    if (r->build_progress && !(r->log.nr_ops % SESSION_PROGRESS_EVERY))
        r->build_progress(r->log.nr_ops, r->build_progress_arg);
    /* a scenario's run keeps images of batch 0 in the store as it goes, as
     * a trace's does while its log replays (session_replay_log()) */
    if (!r->log_id[0] && !r->disk_whole && ckpt_disk_due(&r->disk, r->log.nr_ops) &&
        ckpt_disk_write(&r->disk, rp->sim, seq, r->log.nr_ops, r->log.len, r->tl.totals, NULL, 0) ==
                -ENOMEM)
        return replay_fail(rp, -ENOMEM, "out of memory");
    if (session_ckpt_due(r, seq, r->log.nr_ops))
        err = session_ckpt_add(r);
    else if (session_run_memory(r) > r->lim.memory) {
        session_thin(r);
        err = session_run_memory(r) > r->lim.memory ? -E2BIG : 0;
    } else
        err = 0;
    if (err == -E2BIG)
        return replay_fail(rp, err,
                           "the session needs more than its %" PRIu64
                           " MiB of memory (slublab serve --session-memory MIB raises it)",
                           r->lim.memory / MIB);
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
        strbuf_puts(err, strbuf_str(&s->run->rp.error));
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
    ret = scenario_parse_op_list(arr, label, s->run->cfg.nr_cpus, s->run->cfg.nr_nodes, ops, nr, &steps, err);
    cJSON_Delete(arr);
    if (ret == -ERANGE)
        return SESSION_EUNPROCESSABLE;
    return ret == -EINVAL ? SESSION_EBADINPUT : ret;
}

/* Machine limits of the server, beyond the scenario format's. */
static int session_check_machine(const struct session *s, struct strbuf *err)
{
    if (s->run->cfg.nr_cpus > s->run->lim.max_cpus)
        strbuf_printf(err, "machine.cpus: %u is more than this server allows (%u)", s->run->cfg.nr_cpus,
                      s->run->lim.max_cpus);
    else if (s->run->cfg.nr_nodes > s->run->lim.max_nodes)
        strbuf_printf(err, "machine.nodes: %u is more than this server allows (%u)",
                      s->run->cfg.nr_nodes, s->run->lim.max_nodes);
    else if (s->run->cfg.mem_per_node > s->run->lim.max_mem_per_node)
        strbuf_printf(err,
                      "machine.mem_mb_per_node: %" PRIu64 " is more than this server "
                      "allows (%" PRIu64 ")",
                      s->run->cfg.mem_per_node / MIB, s->run->lim.max_mem_per_node / MIB);
    else
        return 0;
    return SESSION_EUNPROCESSABLE;
}

int session_configure(struct session *s, struct strbuf *err)
{
    int ret;

    if (s->run->scn)
        return 0;
    ret = scenario_parse(s->run->scenario_text, s->run->scenario_len, s->run->scenario_label, &s->run->scn, err);
    if (ret)
        return ret == -ENOMEM   ? -ENOMEM
               : ret == -ERANGE ? SESSION_EUNPROCESSABLE
                                : SESSION_EBADINPUT;
    session_settings_apply(&s->run->settings, s->run->scn, &s->run->cfg);
    if (sim_model_error(&s->run->cfg)) {
        strbuf_printf(err, "key \"model\": %s", sim_model_error(&s->run->cfg));
        return SESSION_EBADINPUT;
    }
    if ((ret = session_check_machine(s, err)))
        return ret;
    /* batch 0 is the scenario, whole unless a fork cut it */
    if (!s->run->nr_batches && (ret = session_add_batch(s, NULL, REPLAY_NO_LIMIT)))
        return ret;
    return 0;
}

/* FNV-1a over @len bytes of @p, continuing from @h. */
static uint64_t session_hash(uint64_t h, const void *p, size_t len)
{
    const unsigned char *b = p;

    while (len--)
        h = (h ^ *b++) * 1099511628211ull;
    return h;
}

int session_run_key(struct session_run *r, uint64_t *key)
{
    cJSON *sj;
    uint64_t h = 14695981039346656037ull;
    size_t i;

    if (!r->canon) {
        sj = session_run_settings_json(r);
        r->canon = sj ? cJSON_PrintUnformatted(sj) : NULL;
        cJSON_Delete(sj);
        if (!r->canon)
            return -ENOMEM;
    }
    h = session_hash(h, r->scenario_label, strlen(r->scenario_label) + 1);
    h = session_hash(h, r->scenario_text, r->scenario_len);
    h = session_hash(h, r->canon, strlen(r->canon) + 1);
    h = session_hash(h, r->log_id, strlen(r->log_id) + 1);
    for (i = 0; i < r->nr_batches; i++) {
        const struct session_batch *b = &r->batches[i];

        if (b->ops)
            h = session_hash(h, b->ops, strlen(b->ops) + 1);
        h = session_hash(h, &b->limit, sizeof(b->limit));
    }
    h = session_hash(h, &r->lim, sizeof(r->lim));
    *key = h;
    return 0;
}

int session_run_owner(struct session_run *r, char out[STORE_CKPT_OWNER_LEN + 1])
{
    uint64_t h[2] = {14695981039346656037ull, 0x6c62272e07bb0142ull}, key;
    unsigned k;
    int ret;

    if (!r->canon && (ret = session_run_key(r, &key)))
        return ret;
    for (k = 0; k < 2; k++) {
        h[k] = session_hash(h[k], &k, 1); /* two different functions */
        h[k] = session_hash(h[k], r->scenario_text, r->scenario_len);
        h[k] = session_hash(h[k], r->canon, strlen(r->canon) + 1);
        h[k] = session_hash(h[k], r->log_id, strlen(r->log_id) + 1);
    }
    snprintf(out, STORE_CKPT_OWNER_LEN + 1, "%016llx%016llx", (unsigned long long)h[0],
             (unsigned long long)h[1]);
    return 0;
}

bool session_run_same_inputs(const struct session_run *a, const struct session_run *b)
{
    size_t i;

    if (a->scenario_len != b->scenario_len || a->nr_batches != b->nr_batches || !a->canon ||
        !b->canon || strcmp(a->canon, b->canon) || strcmp(a->scenario_label, b->scenario_label) ||
        strcmp(a->log_id, b->log_id) ||
        memcmp(a->scenario_text, b->scenario_text, a->scenario_len) ||
        memcmp(&a->lim, &b->lim, sizeof(a->lim)))
        return false;
    for (i = 0; i < a->nr_batches; i++) {
        const struct session_batch *x = &a->batches[i], *y = &b->batches[i];

        if (x->limit != y->limit || !x->ops != !y->ops || (x->ops && strcmp(x->ops, y->ops)))
            return false;
    }
    return true;
}

static int session_build_run(struct session *s, struct strbuf *err);

/* The stored log's chunk @idx, for the log's tier. */
static int session_log_get(void *arg, uint64_t idx, uint8_t **buf, size_t *len)
{
    struct session_run *r = arg;

    return store_oplog_get(r->log_store, r->log_id, idx, buf, len);
}

/* Make @m, loaded from a stored image, the head. */
static void session_take_head(struct session_run *r, struct sim *m)
{
    sim_destroy(r->rp.sim);
    r->rp.sim = m;
    r->head_sim = NULL; /* measured again */
    sim_set_event_cb(m, session_on_event, r);
}

/* Say why the end image did not load (@ret), unless the host is out of memory. */
static void session_end_unloaded(const struct session_run *r, int ret)
{
    if (ret != -ENOMEM)
        fprintf(stderr,
                "slublab serve: checkpoints of %s: the end image does not load "
                "(error %d): replaying instead\n",
                r->disk.owner, ret);
}

/*
 * The end of batch 0 (@ops operations of the stored log) from a stored
 * image, when one is there with the run's state (the timeline): the head
 * machine is loaded instead of replaying the log, and *p is moved there.
 * 0 also when there is none (*p stays: the log is replayed), -ENOMEM.
 */
static int session_open_end(struct session_run *r, uint64_t ops, struct session_pos *p)
{
    const struct ckpt_disk_entry *e = ckpt_disk_before(&r->disk, UINT64_MAX, false);
    unsigned char *extra = NULL;
    struct timeline tl;
    struct sim *m = NULL;
    size_t len = 0;
    int ret;

    while (e && e->op > ops)
        e = e > r->disk.e ? e - 1 : NULL;
    if (!e || e->op != ops || !e->has_extra || r->nr_races)
        return 0;
    ret = ckpt_disk_load(&r->disk, e, &m, NULL, &extra, &len);
    /* an image keeps no pinned choices (the scenario's "choices") */
    if (!ret && r->scn->nr_choices)
        ret = sim_choices_pin(m, r->scn->choices, r->scn->nr_choices);
    if (ret == -ENOMEM) {
        sim_destroy(m);
        free(extra);
        return ret;
    }
    timeline_init(&tl);
    if (!ret && extra && !(ret = timeline_load(&tl, extra, len)) && tl.nr_events == e->seq) {
        timeline_release(&r->tl);
        r->tl = tl;
        session_take_head(r, m);
        p->seq = e->seq;
        p->op = e->op;
        p->off = e->off;
        r->build_loaded = true;
        free(extra);
        return 0;
    }
    session_end_unloaded(r, ret);
    timeline_release(&tl);
    sim_destroy(m);
    free(extra);
    return ret == -ENOMEM ? ret : 0;
}

/* Keep the end of batch 0 (the head at @p) in the store with the timeline,
 * so that the next build of the run loads it (session_open_end()).  Only
 * when the tier is on and it is not stored yet; a failure costs a replay. */
static int session_keep_end(struct session_run *r, const struct session_pos *p)
{
    const struct ckpt_disk_entry *e = ckpt_disk_at(&r->disk, p->seq);
    unsigned char *tl = NULL;
    size_t len = 0;
    int ret;

    if (!r->disk.store || r->disk.failed || (e && e->has_extra) || (r->nr_races && r->log_id[0]))
        return 0;
    /* a trace's run replays its log again from the store; a scenario's
     * keeps the log with the rest of what its replay built (run_state.h) */
    ret = r->log_id[0] ? timeline_save(&r->tl, &tl, &len) : run_state_save(r, &tl, &len);
    if (ret)
        return ret == -ENOMEM ? ret : 0;
    ret = ckpt_disk_write(&r->disk, r->rp.sim, p->seq, p->op, p->off, r->tl.totals, tl, len);
    free(tl);
    return ret == -ENOMEM ? ret : 0;
}

int session_keep_prepare(struct session_run *r, struct session_keep *kp)
{
    bool sealed = r->have_rp && r->rp.spans.sealed;
    const struct ckpt_disk_entry *e;
    int ret;

    memset(kp, 0, sizeof(*kp));
    if (!r->keep_pending)
        return 0;
    r->keep_pending = false;
    e = ckpt_disk_at(&r->disk, r->keep_seq);
    /* an append moved the head on: its end is not batch 0's now */
    if (!r->have_rp || !r->rp.sim || !r->disk.store || r->disk.failed || (e && e->has_extra) ||
        r->log.nr_events != r->keep_seq || r->log.nr_ops != r->keep_op || r->log.len != r->keep_off)
        return 0;
    /* run_state_save() reads the spans as the build left them */
    if (sealed && (ret = name_spans_unseal(&r->rp.spans)))
        return ret;
    ret = run_state_save(r, &kp->state, &kp->len);
    if (sealed)
        (void)name_spans_seal(&r->rp.spans); /* on -ENOMEM they stay unsealed, as readable */
    if (!ret && sim_clone(r->rp.sim, &kp->m))
        ret = -ENOMEM;
    if (ret) {
        session_keep_release(kp);
        return ret;
    }
    kp->end = (struct session_pos){r->keep_seq, r->keep_op, r->keep_off};
    memcpy(kp->totals, r->tl.totals, sizeof(kp->totals));
    session_run_recharge(r);
    return 0;
}

int session_keep_pack(struct session_keep *kp)
{
    void *packed = NULL;
    size_t len = 0;
    int ret = bytes_pack(kp->state, kp->len, &packed, &len);

    if (ret)
        return ret;
    free(kp->state);
    kp->state = packed;
    kp->len = len;
    return 0;
}

int session_keep_finish(struct session_run *r, struct session_keep *kp)
{
    int ret = kp->m ? ckpt_disk_write_packed(&r->disk, kp->m, kp->end.seq, kp->end.op, kp->end.off,
                                             kp->totals, kp->state, kp->len)
                    : 0;
    int err = ckpt_disk_flush(&r->disk); /* with the images that waited for it */

    session_run_recharge(r);
    return ret ? ret : err;
}

void session_keep_release(struct session_keep *kp)
{
    sim_destroy(kp->m);
    free(kp->state);
    kp->m = NULL;
    kp->state = NULL;
}

/*
 * The end of a scenario's batch 0 from the stored image that carries the
 * run's state (session_keep_end()): the head machine, the op log, the
 * timeline, the names, warnings, expects and races are loaded instead of
 * replaying the scenario, and r->build_loaded says so.  Not for a batch 0
 * cut at @limit operations (a fork), which replays; but with the end
 * stored, no build writes images of batch 0 again (r->disk_whole).  0 also
 * when there is none or it does not load (the scenario is replayed),
 * -ENOMEM.
 */
static int session_open_run(struct session_run *r, uint64_t limit)
{
    const struct ckpt_disk_entry *e = ckpt_disk_before(&r->disk, UINT64_MAX, false);
    unsigned char *extra = NULL;
    struct sim *m = NULL;
    size_t len = 0;
    int ret;

    while (e && !e->has_extra) /* the end is the last image with the run's state */
        e = e > r->disk.e ? e - 1 : NULL;
    r->disk_whole = e != NULL;
    if (!e || limit != REPLAY_NO_LIMIT || r->log.nr_ops || r->nr_races)
        return 0;
    ret = ckpt_disk_load(&r->disk, e, &m, NULL, &extra, &len);
    if (!ret && extra)
        ret = run_state_load(r, extra, len, e->seq, e->op, e->off);
    if (!ret && extra) {
        session_take_head(r, m);
        r->build_loaded = true;
        free(extra);
        return 0;
    }
    session_end_unloaded(r, ret);
    sim_destroy(m);
    free(extra);
    return ret == -ENOMEM ? ret : 0;
}

/*
 * Batch 0's stored op log on the head (after the scenario, which holds no
 * operations of its own then): the log becomes the run's log, read from the
 * store chunk by chunk, and each record is applied as a seek applies it, with
 * the timeline, checkpoints, limits and progress of a forward run.
 */
static int session_replay_log(struct session *s, struct strbuf *err)
{
    struct session_run *r = s->run;
    struct oplog_tier tier = {NULL, session_log_get, r, SESSION_LOG_KEEP};
    uint64_t chunks, ops, events, limit = r->batches[0].limit;
    struct session_pos p = {r->log.nr_events, r->log.nr_ops, r->log.len};
    size_t last_len;
    int ret;

    if (r->log.nr_ops || !r->log_store) {
        strbuf_printf(err, "the session's op log %s cannot follow operations of its scenario",
                      r->log_id);
        return SESSION_EBADINPUT;
    }
    ret = store_oplog_info(r->log_store, r->log_id, &chunks, &ops, &events, &last_len);
    if (!ret && !chunks)
        ret = -ENOENT;
    if (ret) {
        strbuf_printf(err, "the session's op log %s cannot be read from the store (%s)", r->log_id,
                      strerror(-ret));
        return ret == -ENOMEM ? -ENOMEM : SESSION_EBROKEN;
    }
    if (limit != REPLAY_NO_LIMIT && limit < ops)
        ops = limit;
    if (ops > r->lim.max_ops) {
        strbuf_printf(err,
                      "the session has %" PRIu64 " operations, more than this server's limit "
                      "of %" PRIu64 " (slublab serve --max-ops N raises it)",
                      ops, r->lim.max_ops);
        return SESSION_ELIMIT;
    }
    if ((ret = oplog_open_stored(&r->log, &tier, chunks, last_len, 0, 0)))
        return ret;
    r->log.nr_ops = ops; /* what the log holds, as far as batch 0 goes */
    r->log.nr_events = events;
    if ((ret = session_open_end(r, ops, &p)))
        return ret;
    while (p.op < ops) {
        ret = session_apply_next(r, r->rp.sim, &p);
        if (!ret && r->hook_err)
            ret = r->hook_err;
        if (ret) {
            if (ret == -ENOMEM) {
                strbuf_puts(err, "out of memory");
                return -ENOMEM;
            }
            strbuf_printf(err, "the session's op log %s does not replay: operation %" PRIu64 " %s",
                          r->log_id, p.op,
                          ret == -ENOENT ? "is missing" : "is not what the engine did");
            return SESSION_EBROKEN;
        }
        r->build_replayed++;
        if (r->build_progress && !(p.op % SESSION_PROGRESS_EVERY))
            r->build_progress(p.op, r->build_progress_arg);
        if (ckpt_disk_due(&r->disk, p.op) &&
            (ret = ckpt_disk_write(&r->disk, r->rp.sim, p.seq, p.op, p.off, r->tl.totals, NULL,
                                   0)) == -ENOMEM)
            return ret;
        ret = 0;
        if (session_ckpt_due(r, p.seq, p.op))
            ret = session_ckpt_add_at(r, &p);
        else if (session_run_memory(r) > r->lim.memory) {
            session_thin(r);
            ret = session_run_memory(r) > r->lim.memory ? -E2BIG : 0;
        }
        if (ret == -E2BIG) {
            strbuf_printf(err,
                          "operation %" PRIu64 ": the session needs more than its %" PRIu64
                          " MiB of memory (slublab serve --session-memory MIB raises it)",
                          p.op, r->lim.memory / MIB);
            return SESSION_ELIMIT;
        }
        if (ret)
            return ret;
    }
    if (p.off != r->log.len || p.seq != events) { /* a fork's cut, or the log's end */
        if (oplog_truncate(&r->log, p.off, p.op, p.seq)) {
            strbuf_printf(err, "the session's op log %s cannot be read from the store", r->log_id);
            return SESSION_EBROKEN;
        }
    }
    r->log.nr_events = p.seq;
    return session_keep_end(r, &p);
}

int session_build(struct session *s, struct strbuf *err)
{
    int ret = session_build_run(s, err);

    s->run->base = NULL; /* the run it borrowed from is locked only while it is built */
    return ret;
}

static int session_build_run(struct session *s, struct strbuf *err)
{
    uint64_t built, kept;
    char label[32];
    size_t i;
    int ret;

    if ((ret = session_configure(s, err)))
        return ret;
    if (!s->run->disk_store)
        s->run->disk_store = s->run->log_store; /* a trace's run keeps images where its log is */
    if (s->run->disk_store) {
        char owner[STORE_CKPT_OWNER_LEN + 1];

        uint64_t floor = s->run->lim.disk_min_ops;

        /* a scenario's machine is small and a class seeks it all the time:
         * its images are denser than a trace's (spacing still grows with
         * what an image costs, ckpt_disk.h) */
        if (!s->run->log_id[0] && floor != UINT64_MAX)
            floor /= SESSION_SCENARIO_DISK_DENSER;
        if ((ret = session_run_owner(s->run, owner)) ||
            (ret = ckpt_disk_open(&s->run->disk, s->run->disk_store, owner, floor)))
            return ret;
        s->run->disk.cache_max =
                s->run->lim.memory /
                (s->run->log_id[0] ? SESSION_DISK_CACHE_SHARE : SESSION_STORED_CACHE_SHARE);
        /* the images a scenario's build writes wait in memory, to be stored
         * in one transaction with its end (or at the end of the build) */
        s->run->disk.defer = s->run->keep_later && !s->run->log_id[0];
    }
    s->run->have_rp = true;
    ret = replay_init(&s->run->rp, s->run->scn, &s->run->cfg);
    if (ret) {
        strbuf_puts(err, strbuf_str(&s->run->rp.error));
        return ret == -ENOMEM ? -ENOMEM : SESSION_EUNPROCESSABLE;
    }
    sim_set_event_cb(s->run->rp.sim, session_on_event, s->run);
    s->run->rp.hook = session_on_op;
    s->run->rp.hook_arg = s->run;
    s->run->rp.keep_spans = true;
    if ((ret = session_ckpt_add(s->run))) {
        if (ret == -E2BIG)
            strbuf_printf(err, "the session needs more than its %" PRIu64 " MiB of memory",
                          s->run->lim.memory / MIB);
        return ret == -E2BIG ? SESSION_ELIMIT : ret;
    }
    s->run->rp.op_limit = s->run->batches[0].limit;
    /* a scenario's batch 0 may be in the store already: whole, it is loaded */
    if (!s->run->log_id[0] && (ret = session_open_run(s->run, s->run->batches[0].limit)))
        return ret;
    if (s->run->build_loaded)
        ret = session_ckpt_add(s->run) == -ENOMEM ? -ENOMEM : 0;
    else
        ret = session_replay_error(s, replay_run(&s->run->rp), err);
    if (!ret && s->run->log_id[0])
        ret = session_replay_log(s, err);
    else if (!ret && !s->run->build_loaded && s->run->batches[0].limit == REPLAY_NO_LIMIT) {
        struct session_pos end = {s->run->log.nr_events, s->run->log.nr_ops, s->run->log.len};

        /* the open needs none of it: the keeper writes it once the open
         * answered, while the head still is at batch 0's end */
        if (s->run->keep_later && s->run->nr_batches == 1) {
            s->run->keep_pending = true;
            s->run->keep_seq = end.seq;
            s->run->keep_op = end.op;
            s->run->keep_off = end.off;
        } else {
            ret = session_keep_end(s->run, &end);
        }
    }
    s->run->batches[0].op_end = s->run->log.nr_ops;
    s->run->batches[0].ev_end = s->run->log.nr_events;
    s->run->disk.max_op = s->run->log.nr_ops; /* images inside batch 0 only */
    for (i = 1; i < s->run->nr_batches && !ret; i++) {
        struct session_batch *b = &s->run->batches[i];
        struct scenario_op *ops = NULL;
        size_t nr = 0;

        snprintf(label, sizeof(label), "batch %zu", i);
        b->op_start = s->run->log.nr_ops;
        b->ev_start = s->run->log.nr_events;
        if ((ret = session_parse_batch(s, b->ops, label, &ops, &nr, err)))
            break;
        s->run->rp.label = label;
        s->run->rp.op_limit = b->limit == REPLAY_NO_LIMIT ? REPLAY_NO_LIMIT : b->op_start + b->limit;
        ret = session_replay_error(s, replay_more(&s->run->rp, ops, nr, "ops"), err);
        s->run->rp.label = NULL;
        scenario_op_list_release(ops, nr);
        b->op_end = s->run->log.nr_ops;
        b->ev_end = s->run->log.nr_events;
    }
    s->run->rp.op_limit = REPLAY_NO_LIMIT;
    /* what waits goes with the end when the keeper writes it, else now */
    if (!s->run->keep_pending && ckpt_disk_flush(&s->run->disk) == -ENOMEM && !ret)
        ret = -ENOMEM;
    if (!s->run->log_id[0]) /* the operations this build ran: none of a loaded batch 0 */
        s->run->build_replayed =
                s->run->log.nr_ops - (s->run->build_loaded ? s->run->batches[0].op_end : 0);
    s->position = 0;
    built = session_run_memory(s->run);
    session_rest(s->run);
    /* what the build needed beyond what the run keeps goes back to the
     * system (cmd_serve.c's mallopt keeps freed memory otherwise): a class
     * on its own seeds builds hundreds of runs that then wait */
    kept = session_run_memory(s->run);
    if (built > kept && built - kept >= SESSION_TRIM_BYTES / 8)
        malloc_trim(0);
    return ret;
}

/* ---- append ---------------------------------------------------------------- */

/* Put the session back to @end after a failed batch; SESSION_EBROKEN if that fails too. */
static int session_rollback(struct session *s, const struct session_pos *end,
                            const struct timeline_mark *tm, struct names *saved, size_t nr_spans,
                            size_t nr_warnings,
                            unsigned long nr_warnings_total, int default_cache)
{
    const struct checkpoint *base;
    struct session_pos p;
    struct sim *m = NULL;
    size_t i;
    int err;

    if (oplog_truncate(&s->run->log, end->off, end->op, end->seq))
        return SESSION_EBROKEN;
    while (s->run->nr_races && s->run->races[s->run->nr_races - 1].op >= end->op)
        s->run->nr_races--; /* races past the fork point are gone with their ops */
    timeline_truncate(&s->run->tl, tm);
    session_ckpt_truncate(s->run, end->op);
    names_release(&s->run->rp.names);
    s->run->rp.names = *saved;
    memset(saved, 0, sizeof(*saved));
    name_spans_rollback(&s->run->rp.spans, nr_spans, end->seq);
    for (i = nr_warnings; i < s->run->rp.nr_warnings; i++) {
        free(s->run->rp.warnings[i].path);
        free(s->run->rp.warnings[i].message);
    }
    if (s->run->rp.nr_warnings > nr_warnings)
        s->run->rp.nr_warnings = nr_warnings;
    s->run->rp.nr_warnings_total = nr_warnings_total;
    s->run->rp.default_cache = default_cache;
    s->run->hook_err = 0;
    /* the head machine: the last checkpoint, then the log up to the old end */
    base = &s->run->ckpts[s->run->nr_ckpts - 1];
    session_ckpt_pos(base, &p);
    if (sim_clone(base->sim, &m))
        return SESSION_EBROKEN;
    while (p.op < end->op)
        if ((err = session_apply_next(s->run, m, &p))) {
            sim_destroy(m);
            return SESSION_EBROKEN;
        }
    sim_destroy(s->run->rp.sim);
    s->run->rp.sim = m;
    s->run->head_sim = NULL; /* measured again */
    sim_set_event_cb(m, session_on_event, s->run);
    return 0;
}

int session_append(struct session *s, const cJSON *arr, struct session_append_result *res,
                   struct strbuf *err)
{
    struct session_pos end = {s->run->log.nr_events, s->run->log.nr_ops, s->run->log.len};
    struct names saved = NAMES_INIT;
    struct timeline_mark tm;
    struct scenario_op *ops = NULL;
    size_t nr = 0, nr_warnings = s->run->rp.nr_warnings, nr_spans = s->run->rp.spans.nr;
    unsigned long nr_warnings_total = s->run->rp.nr_warnings_total;
    int default_cache = s->run->rp.default_cache, ret;
    uint64_t steps = 0;
    char *text = NULL;

    memset(res, 0, sizeof(*res));
    res->ops_before = end.op;
    res->events_before = end.seq;
    ret = scenario_parse_op_list(arr, "request", s->run->cfg.nr_cpus, s->run->cfg.nr_nodes, &ops, &nr, &steps,
                                 err);
    if (ret)
        return ret == -ENOMEM   ? -ENOMEM
               : ret == -ERANGE ? SESSION_EUNPROCESSABLE
                                : SESSION_EBADINPUT;
    if (steps > s->run->lim.max_ops - s->run->log.nr_ops) {
        strbuf_printf(err,
                      "request: %" PRIu64 " more operations would pass the session's limit "
                      "of %" PRIu64,
                      steps, s->run->lim.max_ops);
        ret = SESSION_ELIMIT;
        goto out_release;
    }
    /* the mark is of the timeline in memory */
    if (!(text = cJSON_PrintUnformatted(arr)) || session_reserve_batch(s) ||
        names_copy(&saved, &s->run->rp.names) || session_timeline_open(s->run) ||
        name_spans_unseal(&s->run->rp.spans)) {
        ret = -ENOMEM;
        goto out_release;
    }
    timeline_mark(&s->run->tl, &tm);
    s->run->rp.label = "request";
    ret = replay_more(&s->run->rp, ops, nr, "ops");
    s->run->rp.label = NULL;
    if (ret == -ECANCELED)
        ret = 0;
    if (ret) {
        int rb;

        ret = session_replay_error(s, ret, err);
        rb = session_rollback(s, &end, &tm, &saved, nr_spans, nr_warnings, nr_warnings_total,
                              default_cache);
        if (rb)
            ret = rb;
        goto out_release;
    }
    {
        struct session_batch *b = &s->run->batches[s->run->nr_batches++];

        memset(b, 0, sizeof(*b));
        b->ops = text;
        s->run->batch_bytes += strlen(text);
        text = NULL;
        b->limit = REPLAY_NO_LIMIT;
        b->op_start = end.op;
        b->ev_start = end.seq;
        b->op_end = s->run->log.nr_ops;
        b->ev_end = s->run->log.nr_events;
    }
    res->warnings_from = nr_warnings;
out_release:
    session_rest(s->run);
    names_release(&saved);
    cJSON_free(text);
    scenario_op_list_release(ops, nr);
    return ret;
}

/* ---- fork -------------------------------------------------------------------- */

/* Operations a fork at @at keeps: those done by @at and the one in progress there. */
static int session_ops_at(struct session *s, uint64_t at, uint64_t *ops)
{
    const struct checkpoint *base = session_ckpt_before(s->run, at, false);
    struct session_pos p;
    uint64_t ev;

    session_ckpt_pos(base, &p);
    while (session_peek_events(s->run, &p, &ev)) {
        struct sim_op op;

        if (!(p.seq < at || p.seq + ev <= at))
            break;
        if (oplog_next(&s->run->log, &p.off, &op, &ev, NULL))
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

    if (at > s->run->log.nr_events)
        return SESSION_EBADINPUT;
    if ((ret = session_ops_at(s, at, &keep)) ||
        (ret = session_set_scenario(child, s->run->scenario_text, s->run->scenario_len, s->run->scenario_label)))
        return ret;
    child->scenario_id = s->scenario_id;
    memset(&child->run->settings, 0, sizeof(child->run->settings));
    child->run->settings.has_seed = child->run->settings.has_model = true;
    child->run->settings.seed = s->run->cfg.seed;
    child->run->settings.model = s->run->cfg.model;
    child->run->settings.era = s->run->cfg.legacy_era;
    child->run->settings.has_kernel = s->run->cfg.release != SIM_RELEASE_NONE;
    child->run->settings.release = s->run->cfg.release;
    for (v = 0; v < SIM_NR_VARIANTS; v++) {
        child->run->settings.has_variant[v] = true;
        child->run->settings.variant[v] = s->run->cfg.variant[v];
    }
    for (i = 0; i < s->run->nr_batches; i++) {
        const struct session_batch *b = &s->run->batches[i];
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
    memcpy(child->run->log_id, s->run->log_id, sizeof(child->run->log_id));
    child->run->log_store = s->run->log_store;
    child->run->disk_store = s->run->disk_store; /* the same batch 0: the same images */
    memcpy(child->parent, s->id, sizeof(child->parent));
    return 0;
}
