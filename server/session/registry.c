/*
 * registry.c: live sessions by id, eviction and restore (see registry.h).
 *
 * A hash table of chains (s->next) under one mutex; the mutex is never held
 * while a session is built, stored or freed, only while the table and the
 * reference counts change.  Eviction scans for the least recently used
 * session nobody holds: max_live is small (a classroom's worth), so a scan
 * costs less than keeping a list in order on every lookup.
 */
#include "session/registry.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/ids.h"
#include "session/store.h"

#define REGISTRY_TOMBS 1024
#define REGISTRY_BUCKETS 256

struct registry {
    struct store *store;              /* where sessions are kept (not owned) */
    const struct session_limits *lim; /* what a session may cost (not owned) */
    pthread_mutex_t lock;
    struct session *bucket[REGISTRY_BUCKETS];
    unsigned live, max_live;
    unsigned reserved; /* places taken by registry_add() for sessions not linked yet */
    /* the last REGISTRY_TOMBS ids deleted: a restore that loaded one before
     * its DELETE must not link it after (ids are random, never reused) */
    char tomb[REGISTRY_TOMBS][SESSION_ID_LEN + 1];
    unsigned next_tomb;
    uint64_t clock;
};

static bool registry_tombstoned(const struct registry *reg, const char *id)
{
    for (unsigned i = 0; i < REGISTRY_TOMBS; i++)
        if (reg->tomb[i][0] && !strcmp(reg->tomb[i], id))
            return true;
    return false;
}

struct evicted {
    struct session *s[4];
    unsigned n;
};

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
    struct registry *reg = calloc(1, sizeof(*reg));

    if (!reg)
        return -ENOMEM;
    if (pthread_mutex_init(&reg->lock, NULL)) {
        free(reg);
        return -ENOMEM;
    }
    reg->store = store;
    reg->lim = lim;
    /* every live session may grow to lim->memory: as many as fit in @memory */
    if (memory && lim->memory && memory / lim->memory < max_live)
        max_live = (unsigned)(memory / lim->memory);
    reg->max_live = max_live ? max_live : 1;
    *out = reg;
    return 0;
}

int registry_save_position(struct registry *reg, struct session *s)
{
    int err = 0;

    if (s->ready && s->position != s->pos_saved &&
        !(err = store_session_set_position(reg->store, s->id, s->position)))
        s->pos_saved = s->position;
    return err;
}

void registry_free(struct registry *reg)
{
    unsigned b;

    if (!reg)
        return;
    for (b = 0; b < REGISTRY_BUCKETS; b++) {
        struct session *s = reg->bucket[b], *next;

        for (; s; s = next) {
            next = s->next;
            registry_save_position(reg, s);
            session_free(s);
        }
    }
    pthread_mutex_destroy(&reg->lock);
    free(reg);
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

/* Under reg->lock: evict until one more session fits, counting the places
 * reserved for sessions being added.  False when all are held. */
static bool registry_make_room(struct registry *reg, struct evicted *ev)
{
    while (reg->live + reg->reserved >= reg->max_live) {
        struct session *victim = NULL;
        unsigned b;

        for (b = 0; b < REGISTRY_BUCKETS; b++)
            for (struct session *s = reg->bucket[b]; s; s = s->next)
                if (!s->refs && (!victim || s->last_used < victim->last_used))
                    victim = s;
        if (!victim || ev->n == sizeof(ev->s) / sizeof(ev->s[0]))
            return false;
        registry_unlink(reg, victim);
        ev->s[ev->n++] = victim;
    }
    return true;
}

/* Outside the lock: save and free what registry_make_room() evicted. */
static void registry_finish_evict(struct registry *reg, struct evicted *ev)
{
    unsigned i;

    for (i = 0; i < ev->n; i++) {
        registry_save_position(reg, ev->s[i]);
        session_free(ev->s[i]);
    }
    ev->n = 0;
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

/* Rebuild @s from its stored inputs @ss. */
static int registry_restore(struct session *s, struct store_session *ss, struct strbuf *err)
{
    cJSON *settings = cJSON_Parse(ss->settings);
    size_t i;
    int ret;

    memcpy(s->token, ss->token, sizeof(s->token));
    snprintf(s->parent, sizeof(s->parent), "%.*s", SESSION_ID_LEN, ss->parent);
    snprintf(s->created, sizeof(s->created), "%s", ss->created);
    s->scenario_id = ss->scenario;
    ret = session_settings_parse(settings, &s->run->settings, err);
    cJSON_Delete(settings);
    if (!ret)
        ret = session_set_scenario(s, ss->scenario_text, strlen(ss->scenario_text),
                                   ss->scenario_name);
    for (i = 0; !ret && i < ss->nr_batches; i++)
        ret = session_add_batch(s, ss->batches[i].ops, ss->batches[i].limit);
    if (!ret)
        ret = session_build(s, err);
    if (!ret) {
        s->position = ss->position <= session_nr_events(s) ? ss->position : 0;
        s->pos_saved = ss->position;
    }
    return ret;
}

int registry_get(struct registry *reg, const char *id, bool may_block, struct session **out)
{
    struct store_session ss;
    struct strbuf err = STRBUF_INIT;
    struct evicted ev = {{NULL}, 0};
    struct session *s;
    int ret;

    pthread_mutex_lock(&reg->lock);
    s = registry_find(reg, id);
    if (s) {
        s->refs++;
        s->last_used = ++reg->clock;
        pthread_mutex_unlock(&reg->lock);
        *out = s;
        return 0;
    }
    pthread_mutex_unlock(&reg->lock);
    if (!may_block)
        return -EAGAIN;
    if ((ret = store_session_load(reg->store, id, &ss)))
        return ret;
    pthread_mutex_lock(&reg->lock);
    if ((s = registry_find(reg, id))) { /* another thread restored it meanwhile */
        s->refs++;
        s->last_used = ++reg->clock;
        pthread_mutex_unlock(&reg->lock);
        store_session_free(&ss);
        *out = s;
        return 0;
    }
    if (registry_tombstoned(reg, id))
        ret = -ENOENT; /* deleted after the load above */
    else if (!registry_make_room(reg, &ev))
        ret = -EBUSY;
    else if (!(s = session_new(reg->lim)))
        ret = -ENOMEM;
    if (ret) {
        pthread_mutex_unlock(&reg->lock);
        registry_finish_evict(reg, &ev);
        store_session_free(&ss);
        return ret;
    }
    snprintf(s->id, sizeof(s->id), "%s", id);
    s->refs = 1;
    s->last_used = ++reg->clock;
    pthread_mutex_lock(&s->lock); /* others wait on it until the build is done */
    registry_link(reg, s);
    pthread_mutex_unlock(&reg->lock);
    registry_finish_evict(reg, &ev);

    ret = registry_restore(s, &ss, &err);
    store_session_free(&ss);
    if (ret) {
        fprintf(stderr, "slublab serve: session %s cannot be restored: %s\n", id, strbuf_str(&err));
        s->build_err = ret;
        pthread_mutex_lock(&reg->lock);
        registry_unlink(reg, s);
        pthread_mutex_unlock(&reg->lock);
    } else {
        s->ready = true;
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
        session_free(s);
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
    struct evicted ev = {{NULL}, 0};
    char *settings = NULL;
    cJSON *sj;
    size_t i;
    int ret = 0, attempt;
    bool room;

    pthread_mutex_lock(&reg->lock);
    room = registry_make_room(reg, &ev);
    if (room)
        reg->reserved++; /* held until linked, so concurrent adds cannot pass max_live */
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

    registry_batch(s, seq, &b);
    return store_session_add_batch(reg->store, s->id, seq, &b, session_nr_events(s));
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
    }
    pthread_mutex_unlock(&reg->lock);
    if (free_it)
        session_free(s);
    ret = store_session_delete(reg->store, id);
    return ret == -ENOENT && in_memory ? 0 : ret;
}

unsigned registry_max_live(struct registry *reg)
{
    return reg->max_live;
}

unsigned registry_live(struct registry *reg)
{
    unsigned n;

    pthread_mutex_lock(&reg->lock);
    n = reg->live;
    pthread_mutex_unlock(&reg->lock);
    return n;
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
