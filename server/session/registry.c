/*
 * registry.c: live sessions by id, the runs they share, eviction and restore
 * (see registry.h).
 *
 * A hash table of chains (s->next) under one mutex, and beside it the list
 * of runs the sessions use.  A run built from inputs that another session
 * already has is not built again: registry_build() finds the run with the
 * same key and inputs and attaches the session to it, so a class of 300
 * that opens one scenario holds one timeline and one set of checkpoints.
 * A run is read-only while it is shared; registry_own() gives a session
 * that writes a run of its own (fork on write), built again from the same
 * inputs.
 *
 * The memory bound counts runs (max_live), since they hold the memory; the
 * sessions themselves are small and kept up to REGISTRY_SESSIONS_PER_RUN
 * times as many.  The registry holds a reference to every run on its list:
 * a run whose only reference is the registry's is unused and swept.
 *
 * The mutex is never held while a session or run is built, stored or freed,
 * only while the table, the list and the reference counts change.
 * Eviction scans for the least recently used run none of whose sessions is
 * held: max_live is small (a classroom's worth of scenarios), so a scan
 * costs less than keeping a list in order on every lookup.
 */
#include "session/registry.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/ids.h"
#include "base/locked.h"
#include "session/keeper.h"
#include "session/store.h"

#define REGISTRY_TOMBS 1024
#define REGISTRY_BUCKETS 256
/* sessions kept in memory per run the budget allows: a session that shares
 * a run costs its id, token and position only */
#define REGISTRY_SESSIONS_PER_RUN 64

struct registry {
    struct store *store;              /* where sessions are kept (not owned) */
    const struct session_limits *lim; /* what a session may cost (not owned) */
    pthread_mutex_t lock;
    struct session *bucket[REGISTRY_BUCKETS];
    unsigned live, max_sessions; /* sessions linked, and at most */
    unsigned reserved;           /* places taken by registry_add() for sessions not linked yet */
    /* every run the registry's sessions use, each with a reference of the
     * registry's (run->next); at most max_live of them: the memory bound */
    struct session_run *runs;
    unsigned nr_runs, max_live;
    /* memory: what the runs hold, measured (session_run_recharge()), under
     * one budget for the whole server; a run being built reserves what it
     * may grow to (lim->memory) until it is charged for what it holds */
    atomic_uint_least64_t charged;
    uint64_t budget;   /* bytes; 0: none */
    uint64_t building; /* bytes reserved by runs being built */
    /* the last REGISTRY_TOMBS ids deleted: a restore that loaded one before
     * its DELETE must not link it after (ids are random, never reused) */
    char tomb[REGISTRY_TOMBS][SESSION_ID_LEN + 1];
    unsigned next_tomb;
    uint64_t clock;
    /* writes the end of the scenario runs it builds after their open
     * answered; NULL: the build writes it */
    struct keeper *keeper;
};

/* Sessions taken out of the table, to be saved and freed outside the lock
 * (chained through s->next, free once unlinked), and runs let go of. */
struct evicted {
    struct session *s;
    struct session_run *runs;
};

static bool registry_tombstoned(const struct registry *reg, const char *id)
{
    for (unsigned i = 0; i < REGISTRY_TOMBS; i++)
        if (reg->tomb[i][0] && !strcmp(reg->tomb[i], id))
            return true;
    return false;
}

static unsigned registry_hash(const char *id)
{
    unsigned h = 2166136261u;

    while (*id)
        h = (h ^ (unsigned char)*id++) * 16777619u;
    return h % REGISTRY_BUCKETS;
}

int registry_new(struct store *store, const struct session_limits *lim, unsigned max_live,
                 uint64_t memory, struct registry **out)
{
    struct registry *reg = locked_zalloc(sizeof(*reg), offsetof(struct registry, lock));

    if (!reg)
        return -ENOMEM;
    reg->store = store;
    reg->lim = lim;
    reg->budget = memory;
    atomic_init(&reg->charged, 0);
    reg->max_live = max_live ? max_live : 1;
    reg->max_sessions = reg->max_live * REGISTRY_SESSIONS_PER_RUN;
    if (keeper_new(&reg->keeper))
        reg->keeper = NULL; /* without a thread, builds write their end themselves */
    *out = reg;
    return 0;
}

/* Name the owner of @s's stored images in its row, once its run has some,
 * so they go with the last session using them.  A failure leaves them
 * until a later try. */
static void registry_name_ckpts(struct registry *reg, struct session *s)
{
    const struct ckpt_disk *d = &s->run->disk;

    if (s->ckpts_named || !d->owner[0] || !d->nr || !s->id[0])
        return;
    if (!store_session_set_ckpts(reg->store, s->id, d->owner))
        s->ckpts_named = true;
}

int registry_save_position(struct registry *reg, struct session *s)
{
    int err = 0;

    if (s->ready)
        registry_name_ckpts(reg, s);
    if (s->ready && s->position != s->pos_saved &&
        !(err = store_session_set_position(reg->store, s->id, s->position)))
        s->pos_saved = s->position;
    return err;
}

void registry_free(struct registry *reg)
{
    struct session_run *r, *rn;
    unsigned b;

    if (!reg)
        return;
    keeper_free(reg->keeper); /* what it has queued is written first */
    for (b = 0; b < REGISTRY_BUCKETS; b++) {
        struct session *s = reg->bucket[b], *next;

        for (; s; s = next) {
            next = s->next;
            registry_save_position(reg, s);
            session_free(s);
        }
    }
    for (r = reg->runs; r; r = rn) {
        rn = r->next;
        session_run_put(r);
    }
    locked_free(reg, offsetof(struct registry, lock));
}

static struct session *registry_find(struct registry *reg, const char *id)
{
    struct session *s = reg->bucket[registry_hash(id)];

    while (s && strcmp(s->id, id) != 0)
        s = s->next;
    return s;
}

static void registry_link(struct registry *reg, struct session *s)
{
    unsigned b = registry_hash(s->id);

    s->next = reg->bucket[b];
    reg->bucket[b] = s;
    s->dead = false;
    reg->live++;
}

static void registry_unlink(struct registry *reg, struct session *s)
{
    struct session **pp = &reg->bucket[registry_hash(s->id)];

    while (*pp && *pp != s)
        pp = &(*pp)->next;
    if (*pp) {
        *pp = s->next;
        reg->live--;
    }
    s->next = NULL;
    s->dead = true;
}

/* Under reg->lock: put @r (a reference is taken) on the list. */
static void registry_list_run(struct registry *reg, struct session_run *r)
{
    atomic_fetch_add(&r->refs, 1);
    if (!r->charge_to) { /* from now on its memory counts (it may still be built) */
        r->charge_to = &reg->charged;
        atomic_fetch_add(&reg->charged, atomic_load(&r->charged));
    }
    r->next = reg->runs;
    reg->runs = r;
    r->counted = true;
    reg->nr_runs++;
}

/* Under reg->lock: take @r off the list; its reference goes to @ev. */
static void registry_unlist_run(struct registry *reg, struct session_run *r, struct evicted *ev)
{
    struct session_run **pp = &reg->runs;

    while (*pp && *pp != r)
        pp = &(*pp)->next;
    if (*pp)
        *pp = r->next;
    r->keyed = false;
    r->counted = false;
    reg->nr_runs--;
    r->next = ev->runs;
    ev->runs = r;
}

/* Under reg->lock: let go of the runs nobody but the registry uses. */
static void registry_sweep(struct registry *reg, struct evicted *ev)
{
    struct session_run *r = reg->runs, *next;

    for (; r; r = next) {
        next = r->next;
        if (atomic_load(&r->refs) == 1)
            registry_unlist_run(reg, r, ev);
    }
}

/* Under reg->lock: unlink @s into @ev. */
static void registry_evict_session(struct registry *reg, struct session *s, struct evicted *ev)
{
    registry_unlink(reg, s);
    s->next = ev->s;
    ev->s = s;
}

/* Under reg->lock: evict until one more session fits, counting the places
 * reserved for sessions being added.  False when all are held. */
static bool registry_room_session(struct registry *reg, struct evicted *ev)
{
    while (reg->live + reg->reserved >= reg->max_sessions) {
        struct session *victim = NULL;
        unsigned b;

        for (b = 0; b < REGISTRY_BUCKETS; b++)
            for (struct session *s = reg->bucket[b]; s; s = s->next)
                if (!s->refs && (!victim || s->last_used < victim->last_used))
                    victim = s;
        if (!victim)
            return false;
        registry_evict_session(reg, victim, ev);
    }
    return true;
}

/*
 * Under reg->lock: evict until one more run fits.  A run may go when none
 * of its sessions is held and nothing else refers to it (a session being
 * built or added, a reader's pin); the least recently used goes first, with
 * every session on it.  False when no run may go.
 */
static bool registry_room_run(struct registry *reg, struct evicted *ev)
{
    uint64_t freed = 0; /* charged to runs evicted here, not yet freed */

    registry_sweep(reg, ev);
    for (struct session_run *r = ev->runs; r; r = r->next)
        freed += atomic_load(&r->charged);
    while (reg->nr_runs >= reg->max_live ||
           (reg->budget &&
            atomic_load(&reg->charged) - freed + reg->building + reg->lim->memory > reg->budget)) {
        struct session_run *r, *victim = NULL;
        unsigned b;

        for (r = reg->runs; r; r = r->next) {
            r->scan_linked = 0;
            r->scan_held = false;
            r->scan_used = 0;
        }
        for (b = 0; b < REGISTRY_BUCKETS; b++)
            for (struct session *s = reg->bucket[b]; s; s = s->next) {
                r = s->run;
                r->scan_linked++;
                r->scan_held |= s->refs > 0;
                if (s->last_used > r->scan_used)
                    r->scan_used = s->last_used;
            }
        for (r = reg->runs; r; r = r->next)
            if (r->scan_linked && !r->scan_held &&
                atomic_load(&r->refs) == 1 + r->scan_linked &&
                (!victim || r->scan_used < victim->scan_used))
                victim = r;
        if (!victim)
            return false;
        for (b = 0; b < REGISTRY_BUCKETS; b++) {
            struct session *s = reg->bucket[b], *next;

            for (; s; s = next) {
                next = s->next;
                if (s->run == victim)
                    registry_evict_session(reg, s, ev);
            }
        }
        registry_unlist_run(reg, victim, ev);
        freed += atomic_load(&victim->charged);
    }
    return true;
}

/* Outside the lock: save and free what was evicted. */
static void registry_finish_evict(struct registry *reg, struct evicted *ev)
{
    struct session *s, *sn;
    struct session_run *r, *rn;

    for (s = ev->s; s; s = sn) {
        sn = s->next;
        registry_save_position(reg, s);
        session_free(s);
    }
    for (r = ev->runs; r; r = rn) {
        rn = r->next;
        r->next = NULL;
        session_run_put(r);
    }
    ev->s = NULL;
    ev->runs = NULL;
}

/* Outside the lock: free @s, unlinked and unheld, and with it its run when
 * nobody else uses it (the memory goes back now, not at the next sweep). */
static void registry_release(struct registry *reg, struct session *s)
{
    struct evicted ev = {NULL, NULL};

    session_free(s);
    pthread_mutex_lock(&reg->lock);
    registry_sweep(reg, &ev);
    pthread_mutex_unlock(&reg->lock);
    registry_finish_evict(reg, &ev);
}

/* Now, as the store writes times: ISO 8601 UTC with milliseconds. */
static void registry_now(char *buf, size_t len)
{
    struct timespec ts;
    struct tm tm;
    char day[24];

    clock_gettime(CLOCK_REALTIME, &ts);
    if (gmtime_r(&ts.tv_sec, &tm) && strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm))
        snprintf(buf, len, "%.20s.%03uZ", day, (unsigned)(ts.tv_nsec / 1000000) % 1000u);
    else
        snprintf(buf, len, "?");
}

/* Under reg->lock: the listed run with @key and the inputs of @r, or NULL. */
static struct session_run *registry_find_run(struct registry *reg, uint64_t key,
                                             const struct session_run *r)
{
    struct session_run *x;

    for (x = reg->runs; x; x = x->next)
        if (x->keyed && x->key == key && session_run_same_inputs(x, r))
            return x;
    return NULL;
}

int registry_build(struct registry *reg, struct session *s, struct strbuf *err)
{
    struct evicted ev = {NULL, NULL};
    struct session_run *r = s->run, *found;
    uint64_t key;
    int ret;

    r->disk_store = reg->store; /* the checkpoint images' tier (ckpt_disk.h) */
    if ((ret = session_configure(s, err)))
        return ret;
    if ((ret = session_run_key(r, &key)))
        return ret;
    /* locks go run, then registry, everywhere: r is new, so this one waits for nobody */
    pthread_mutex_lock(&r->lock);
    pthread_mutex_lock(&reg->lock);
    found = registry_find_run(reg, key, r);
    if (found) {
        atomic_fetch_add(&found->refs, 1);
        pthread_mutex_unlock(&reg->lock);
        pthread_mutex_unlock(&r->lock);
        session_set_run(s, found); /* frees the unbuilt run */
        pthread_mutex_lock(&found->lock); /* waits while its first session builds it */
        ret = found->build_err;
        if (ret && found->build_msg)
            strbuf_puts(err, found->build_msg);
        pthread_mutex_unlock(&found->lock);
        s->position = 0;
        return ret;
    }
    if (!registry_room_run(reg, &ev)) {
        pthread_mutex_unlock(&reg->lock);
        pthread_mutex_unlock(&r->lock);
        registry_finish_evict(reg, &ev);
        return -EBUSY;
    }
    r->keyed = true; /* those who attach from now on wait on r->lock for the build */
    r->key = key;
    registry_list_run(reg, r);
    reg->building += reg->lim->memory;
    pthread_mutex_unlock(&reg->lock);
    registry_finish_evict(reg, &ev);

    r->keep_later = reg->keeper != NULL;
    ret = session_build(s, err);
    r->built = true;
    if (!ret && r->keep_pending)
        keeper_add(reg->keeper, r);
    if (ret) {
        r->build_err = ret;
        r->build_msg = strdup(strbuf_str(err));
    }
    pthread_mutex_lock(&reg->lock);
    reg->building -= reg->lim->memory;
    if (ret)
        r->keyed = false; /* nobody else attaches to it now */
    pthread_mutex_unlock(&reg->lock);
    pthread_mutex_unlock(&r->lock);
    return ret;
}

int registry_own(struct registry *reg, struct session *s, struct strbuf *err)
{
    struct evicted ev = {NULL, NULL};
    struct session_run *r = s->run, *n;
    struct session tmp;
    bool shared;
    int ret;

    pthread_mutex_lock(&reg->lock);
    /* references: this session's, the registry's if listed; more are others' */
    shared = atomic_load(&r->refs) > 1u + r->counted;
    if (!shared) {
        r->keyed = false; /* its inputs are about to change */
        if (!r->counted)
            registry_list_run(reg, r);
        pthread_mutex_unlock(&reg->lock);
        return 0;
    }
    if (!registry_room_run(reg, &ev)) {
        pthread_mutex_unlock(&reg->lock);
        registry_finish_evict(reg, &ev);
        return -EBUSY;
    }
    reg->building += reg->lim->memory;
    pthread_mutex_unlock(&reg->lock);
    registry_finish_evict(reg, &ev);

    memset(&tmp, 0, sizeof(tmp));
    if (!(n = session_run_new(&r->lim)))
        ret = -ENOMEM;
    else if (!(ret = session_run_copy_inputs(n, r))) {
        tmp.run = n;
        n->base = r; /* its checkpoints, not new copies: r is locked by the caller */
        pthread_mutex_lock(&n->lock);
        ret = session_build(&tmp, err);
        n->base = NULL;
        if (ret)
            pthread_mutex_unlock(&n->lock);
    }
    pthread_mutex_lock(&reg->lock);
    reg->building -= reg->lim->memory;
    if (!ret)
        registry_list_run(reg, n);
    pthread_mutex_unlock(&reg->lock);
    if (ret) {
        session_run_put(n);
        return ret == SESSION_EBADINPUT ? SESSION_EBROKEN : ret; /* it built once */
    }
    n->built = true;
    atomic_fetch_add(&r->refs, 1); /* r stays while its lock is held */
    session_set_run(s, n);          /* s's reference to r goes */
    pthread_mutex_unlock(&r->lock); /* the caller locked r; it holds n now */
    session_run_put(r);
    return 0;
}

/* Rebuild @s from its stored inputs @ss. */
static int registry_restore(struct registry *reg, struct session *s, struct store_session *ss,
                            struct strbuf *err)
{
    cJSON *settings = cJSON_Parse(ss->settings);
    size_t i;
    int ret;

    memcpy(s->token, ss->token, sizeof(s->token));
    snprintf(s->parent, sizeof(s->parent), "%.*s", SESSION_ID_LEN, ss->parent);
    snprintf(s->created, sizeof(s->created), "%s", ss->created);
    snprintf(s->made_with, sizeof(s->made_with), "%s", ss->engine);
    s->scenario_id = ss->scenario;
    snprintf(s->run->log_id, sizeof(s->run->log_id), "%s", ss->log);
    s->run->log_store = ss->log[0] ? reg->store : NULL;
    ret = session_settings_parse(settings, &s->run->settings, err);
    cJSON_Delete(settings);
    if (!ret)
        ret = session_set_scenario(s, ss->scenario_text, strlen(ss->scenario_text),
                                   ss->scenario_name);
    for (i = 0; !ret && i < ss->nr_batches; i++)
        ret = session_add_batch(s, ss->batches[i].ops, ss->batches[i].limit);
    if (!ret)
        ret = registry_build(reg, s, err);
    if (!ret) {
        s->position = ss->position <= session_nr_events(s) ? ss->position : 0;
        s->pos_saved = ss->position;
    }
    return ret;
}

/* Under reg->lock: a reference to @s for a holder. */
static void registry_hold(struct registry *reg, struct session *s)
{
    s->refs++;
    s->last_used = ++reg->clock;
}

/*
 * Whether @s (held) is behind the store: on a store other servers share,
 * one of them may have appended operations to it since it was built here.
 * A store that cannot answer counts as not behind (the copy here serves).
 */
static bool registry_behind(struct registry *reg, struct session *s)
{
    uint64_t stored = 0;
    size_t held;

    if (!store_shared(reg->store))
        return false;
    session_lock(s);
    held = s->ready ? s->run->nr_batches : SIZE_MAX;
    session_unlock(s);
    return held != SIZE_MAX && !store_session_batches(reg->store, s->id, &stored) &&
           stored > held;
}

/* Keep @s's overview in the store; a failure costs only a replay after a restart. */
static void registry_save_overview(struct registry *reg, const struct session *s)
{
    unsigned char *data = NULL;
    size_t len = 0;
    int ret;

    if (!(ret = timeline_overview_save(&s->run->tl, &data, &len)))
        ret = store_session_set_overview(reg->store, s->id, data, len);
    if (ret)
        fprintf(stderr, "slublab serve: session %s: its overview is not kept (error %d)\n", s->id,
                ret);
    free(data);
}

int registry_get(struct registry *reg, const char *id, bool may_block, struct session **out)
{
    struct store_session ss;
    struct strbuf err = STRBUF_INIT;
    struct evicted ev = {NULL, NULL};
    struct session *s, *fresh;
    int ret;

    pthread_mutex_lock(&reg->lock);
    s = registry_find(reg, id);
    if (s) {
        registry_hold(reg, s);
        pthread_mutex_unlock(&reg->lock);
        if (!store_shared(reg->store) || (may_block && !registry_behind(reg, s))) {
            *out = s;
            return 0;
        }
        if (!may_block) { /* asking the store may wait: on a worker thread */
            registry_put(reg, s);
            return -EAGAIN;
        }
        /* another server appended to it: this copy goes (its holders keep
         * it until they let go) and the stored one is built */
        pthread_mutex_lock(&reg->lock);
        if (!s->dead)
            registry_unlink(reg, s);
        pthread_mutex_unlock(&reg->lock);
        registry_put(reg, s);
    } else {
        pthread_mutex_unlock(&reg->lock);
    }
    if (!may_block)
        return -EAGAIN;
    if ((ret = store_session_load(reg->store, id, &ss)))
        return ret;
    if (!(fresh = session_new(reg->lim))) {
        store_session_free(&ss);
        return -ENOMEM;
    }
    /* locked before the registry (the order everywhere): others who find it
     * wait on it until the build is done */
    pthread_mutex_lock(&fresh->lock);
    pthread_mutex_lock(&reg->lock);
    if ((s = registry_find(reg, id))) { /* another thread restored it meanwhile */
        registry_hold(reg, s);
        pthread_mutex_unlock(&reg->lock);
        pthread_mutex_unlock(&fresh->lock);
        session_free(fresh);
        store_session_free(&ss);
        *out = s;
        return 0;
    }
    if (registry_tombstoned(reg, id))
        ret = -ENOENT; /* deleted after the load above */
    else if (!registry_room_session(reg, &ev))
        ret = -EBUSY;
    if (ret) {
        pthread_mutex_unlock(&reg->lock);
        pthread_mutex_unlock(&fresh->lock);
        session_free(fresh);
        registry_finish_evict(reg, &ev);
        store_session_free(&ss);
        return ret;
    }
    s = fresh;
    snprintf(s->id, sizeof(s->id), "%s", id);
    s->refs = 1;
    s->last_used = ++reg->clock;
    registry_link(reg, s);
    pthread_mutex_unlock(&reg->lock);
    registry_finish_evict(reg, &ev);

    ret = registry_restore(reg, s, &ss, &err);
    store_session_free(&ss);
    if (ret) {
        if (ret != -EBUSY)
            fprintf(stderr, "slublab serve: session %s cannot be restored: %s\n", id,
                    strbuf_str(&err));
        s->build_err = ret;
        pthread_mutex_lock(&reg->lock);
        registry_unlink(reg, s);
        pthread_mutex_unlock(&reg->lock);
    } else {
        s->ready = true;
        /* a session stored without its overview (by replay --db before it
         * kept one, or by an older slublab) has one from now on */
        registry_save_overview(reg, s);
        registry_name_ckpts(reg, s);
    }
    pthread_mutex_unlock(&s->lock);
    strbuf_release(&err);
    *out = s;
    return 0;
}

void registry_put(struct registry *reg, struct session *s)
{
    bool free_it;

    if (!s)
        return;
    pthread_mutex_lock(&reg->lock);
    free_it = --s->refs == 0 && s->dead;
    pthread_mutex_unlock(&reg->lock);
    if (free_it)
        registry_release(reg, s);
}

/* The store's view of @s's batch @i. */
static void registry_batch(const struct session *s, size_t i, struct store_batch *b)
{
    b->ops = s->run->batches[i].ops;
    b->limit = s->run->batches[i].limit;
}

int registry_add(struct registry *reg, struct session *s)
{
    struct store_session ss;
    struct evicted ev = {NULL, NULL};
    char *settings = NULL;
    cJSON *sj;
    size_t i;
    int ret = 0, attempt;
    bool room;

    pthread_mutex_lock(&reg->lock);
    room = registry_room_session(reg, &ev);
    /* a run built outside registry_build() (a trace's) counts from now on */
    if (room && !s->run->counted) {
        room = registry_room_run(reg, &ev);
        if (room)
            registry_list_run(reg, s->run);
    }
    if (room)
        reg->reserved++; /* held until linked, so concurrent adds cannot pass the bound */
    pthread_mutex_unlock(&reg->lock);
    registry_finish_evict(reg, &ev);
    if (!room) {
        session_free(s);
        return -EBUSY;
    }
    memset(&ss, 0, sizeof(ss));
    ss.batches = calloc(s->run->nr_batches ? s->run->nr_batches : 1, sizeof(*ss.batches));
    sj = session_settings_json(s);
    settings = sj ? cJSON_PrintUnformatted(sj) : NULL;
    cJSON_Delete(sj);
    if (!ss.batches || !settings || ids_token(s->token)) {
        ret = -ENOMEM;
        goto out_free;
    }
    for (i = 0; i < s->run->nr_batches; i++)
        registry_batch(s, i, &ss.batches[i]);
    ss.nr_batches = s->run->nr_batches;
    ss.scenario = s->scenario_id;
    ss.settings = settings;
    snprintf(ss.engine, sizeof(ss.engine), "%s", s->made_with);
    snprintf(ss.log, sizeof(ss.log), "%s", s->run->log_id);
    ss.position = s->position;
    ss.events = session_nr_events(s);
    memcpy(ss.token, s->token, sizeof(s->token));
    snprintf(ss.parent, sizeof(ss.parent), "%s", s->parent);
    for (attempt = 0; attempt < 8; attempt++) {
        if ((ret = ids_random(s->id, SESSION_ID_LEN)))
            break;
        memcpy(ss.id, s->id, sizeof(s->id));
        ret = store_session_create(reg->store, &ss);
        if (ret != -EEXIST)
            break;
    }
    if (ret)
        goto out_free;
    registry_save_overview(reg, s);
    registry_name_ckpts(reg, s);
    registry_now(s->created, sizeof(s->created));
    s->pos_saved = s->position;
    s->ready = true;
    s->refs = 1;
    pthread_mutex_lock(&reg->lock);
    s->last_used = ++reg->clock;
    reg->reserved--;
    registry_link(reg, s); /* into the place reserved above */
    pthread_mutex_unlock(&reg->lock);
    s = NULL;
out_free:
    free(ss.batches);
    cJSON_free(settings);
    if (s) {
        pthread_mutex_lock(&reg->lock);
        reg->reserved--;
        pthread_mutex_unlock(&reg->lock);
        session_free(s);
    }
    return ret;
}

int registry_save_batch(struct registry *reg, struct session *s, size_t seq)
{
    struct store_batch b;

    int ret;

    registry_batch(s, seq, &b);
    ret = store_session_add_batch(reg->store, s->id, seq, &b, session_nr_events(s));
    if (!ret)
        registry_save_overview(reg, s);
    return ret;
}

bool registry_has_live(struct registry *reg, const char *id)
{
    struct session *s;
    bool live;

    pthread_mutex_lock(&reg->lock);
    s = registry_find(reg, id);
    live = s && !s->dead;
    pthread_mutex_unlock(&reg->lock);
    return live;
}

bool registry_gone(struct registry *reg, const struct session *s)
{
    bool dead;

    pthread_mutex_lock(&reg->lock);
    dead = s->dead;
    pthread_mutex_unlock(&reg->lock);
    return dead;
}

void registry_drop(struct registry *reg, struct session *s)
{
    pthread_mutex_lock(&reg->lock);
    if (!s->dead)
        registry_unlink(reg, s);
    pthread_mutex_unlock(&reg->lock);
}

int registry_delete(struct registry *reg, const char *id)
{
    struct session_run *r = NULL;
    struct session *s;
    bool in_memory, free_it = false;
    int ret;

    pthread_mutex_lock(&reg->lock);
    snprintf(reg->tomb[reg->next_tomb++ % REGISTRY_TOMBS], SESSION_ID_LEN + 1, "%s", id);
    s = registry_find(reg, id);
    in_memory = s != NULL;
    if (s) {
        registry_unlink(reg, s);
        free_it = s->refs == 0;
        r = s->run;
        atomic_fetch_add(&r->refs, 1);
    }
    pthread_mutex_unlock(&reg->lock);
    /* its images go below: none may be written after (keeper.h); the
     * reference held meanwhile goes before the release, which frees the
     * run now when nobody else uses it */
    if (r && reg->keeper)
        keeper_cancel(reg->keeper, r);
    session_run_put(r);
    if (free_it)
        registry_release(reg, s);
    ret = store_session_delete(reg->store, id);
    return ret == -ENOENT && in_memory ? 0 : ret;
}

unsigned registry_max_live(struct registry *reg)
{
    return reg->max_live;
}

void registry_counts(struct registry *reg, struct registry_counts *c)
{
    struct evicted ev = {NULL, NULL};

    pthread_mutex_lock(&reg->lock);
    registry_sweep(reg, &ev);
    c->runs = reg->nr_runs;
    c->sessions = reg->live;
    c->budget = reg->budget;
    pthread_mutex_unlock(&reg->lock);
    registry_finish_evict(reg, &ev);
    c->charged = atomic_load(&reg->charged); /* after the sweep's runs are freed */
}

unsigned registry_live(struct registry *reg)
{
    struct registry_counts c;

    registry_counts(reg, &c);
    return c.runs;
}

int registry_expire(struct registry *reg, unsigned days, uint64_t *expired)
{
    char ids[64][STORE_ID_MAX + 1];
    size_t n, i;
    int ret;

    *expired = 0;
    do {
        if ((ret = store_sessions_older(reg->store, days, ids, 64, &n)))
            return ret;
        for (i = 0; i < n; i++) {
            if ((ret = registry_delete(reg, ids[i])) && ret != -ENOENT)
                return ret; /* else the same ids would come back forever */
            (*expired)++;
        }
    } while (n == 64);
    return 0;
}

struct keeper *registry_keeper(struct registry *reg)
{
    return reg->keeper;
}
