/*
 * relay.c: follow mode across servers (see relay.h).
 *
 * Sending costs the presenter's request one store round trip (a NOTIFY
 * under the store's lock), only when the store is shared.  Hearing runs on
 * the store's listening thread, which calls into the follow hub and the
 * lectures exactly as a local publish does (lectures, then the hub's topic
 * lock), holding no session's lock.  A message that does not parse is
 * dropped: it came from another program on the channel, or a newer slublab.
 * Messages from one server arrive in the order it sent them (PostgreSQL
 * delivers notifications in commit order), so a follower never goes back
 * to an older position of one presenter.
 *
 * The moves not sent (struct relay) are found again by session id: the
 * flush takes the session's lock, as a move does, and sends the position
 * the session has then, so it cannot overtake a newer move.  Lock order:
 * a session's lock, then the relay's; the relay's lock is never held while
 * a session's is taken.
 */
#include "http/relay.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ids.h"
#include "base/locked.h"
#include "http/app.h"
#include "http/follow.h"
#include "http/lecture.h"
#include "http/traces.h"
#include "session/registry.h"
#include "session/session.h"
#include "session/store.h"

struct relay {
    pthread_mutex_t lock;
    char pending[RELAY_PENDING][SESSION_ID_LEN + 1]; /* moves not sent, by session; "": free */
    unsigned nr_pending;                             /* the non-empty ones */
};

int relay_start(struct app *app)
{
    struct relay *r = locked_zalloc(sizeof(*r), offsetof(struct relay, lock));
    int ret;

    if (!r)
        return -ENOMEM;
    app->relay = r;
    if ((ret = store_listen(app->store, relay_heard, app))) {
        relay_stop(app);
        return ret;
    }
    return 0;
}

void relay_stop(struct app *app)
{
    if (app->store)
        store_unlisten(app->store);
    if (app->relay) {
        locked_free(app->relay, offsetof(struct relay, lock));
        app->relay = NULL;
    }
}

static void relay_send(struct app *app, const char *text)
{
    int ret = store_notify(app->store, text);

    if (ret)
        fprintf(stderr, "slublab serve: the other servers were not told \"%s\" (%d)\n", text, ret);
}

/* Remember (@keep) or forget session @id's unsent move. */
static void relay_pending(struct relay *r, const char *id, bool keep)
{
    int free_slot = -1;

    pthread_mutex_lock(&r->lock);
    for (int i = 0; i < RELAY_PENDING; i++) {
        if (!strcmp(r->pending[i], id)) {
            if (!keep) {
                r->pending[i][0] = '\0';
                r->nr_pending--;
            }
            pthread_mutex_unlock(&r->lock);
            return;
        }
        if (free_slot < 0 && !r->pending[i][0])
            free_slot = i;
    }
    if (keep && free_slot >= 0) {
        snprintf(r->pending[free_slot], sizeof(r->pending[0]), "%s", id);
        r->nr_pending++;
    } else if (keep) {
        fprintf(stderr, "slublab serve: session %s: its move is not resent (%d are waiting)\n", id,
                RELAY_PENDING);
    }
    pthread_mutex_unlock(&r->lock);
}

/* The message of session @id's move, into @text. */
static void session_text(char *text, size_t size, const char *id, uint64_t at, uint64_t events,
                         uint64_t ops)
{
    snprintf(text, size, "s %s %" PRIu64 " %" PRIu64 " %" PRIu64, id, at, events, ops);
}

void relay_session(struct app *app, const char *id, uint64_t at, uint64_t events, uint64_t ops)
{
    char text[STORE_MESSAGE_MAX];
    int ret;

    if (!store_shared(app->store))
        return;
    session_text(text, sizeof(text), id, at, events, ops);
    if ((ret = store_notify(app->store, text)))
        fprintf(stderr, "slublab serve: the other servers were not told \"%s\" (%d)\n", text, ret);
    if (app->relay)
        relay_pending(app->relay, id, ret != 0);
}

void relay_flush(struct app *app)
{
    struct relay *r = app->relay;
    char(*ids)[SESSION_ID_LEN + 1];
    unsigned n = 0, sent = 0;

    if (!r || !store_shared(app->store))
        return;
    pthread_mutex_lock(&r->lock);
    if (!r->nr_pending) {
        pthread_mutex_unlock(&r->lock);
        return;
    }
    pthread_mutex_unlock(&r->lock);
    if (!(ids = calloc(RELAY_PENDING, sizeof(*ids))))
        return; /* tried again next time */
    pthread_mutex_lock(&r->lock);
    for (unsigned i = 0; i < RELAY_PENDING; i++)
        if (r->pending[i][0])
            memcpy(ids[n++], r->pending[i], sizeof(ids[0]));
    pthread_mutex_unlock(&r->lock);
    for (unsigned i = 0; i < n; i++) {
        char text[STORE_MESSAGE_MAX];
        struct session *s = NULL;
        bool done = true; /* a session no longer in memory: its eviction stored it */

        /* held here (the store is asked whether another server appended
         * to it meanwhile: then the stored one is what counts) */
        if (registry_has_live(app->reg, ids[i]) && !registry_get(app->reg, ids[i], true, &s)) {
            session_lock(s);
            if (s->ready && !registry_gone(app->reg, s)) {
                session_text(text, sizeof(text), s->id, s->position, session_nr_events(s),
                             session_nr_ops(s));
                done = !registry_save_position(app->reg, s) && !store_notify(app->store, text);
                sent += done;
            }
            if (done) /* under the session's lock: a newer failed move is kept */
                relay_pending(r, ids[i], false);
            session_unlock(s);
            registry_put(app->reg, s);
        } else {
            relay_pending(r, ids[i], false);
        }
    }
    if (sent && !app->cfg.quiet)
        fprintf(stderr,
                "slublab serve: %u moves made while the database was away were stored "
                "and sent\n",
                sent);
    free(ids);
}

void relay_lecture(struct app *app, const struct lecture_info *x)
{
    char text[STORE_MESSAGE_MAX];

    if (!store_shared(app->store))
        return;
    snprintf(text, sizeof(text), "l %s %s %" PRIu64 " %" PRIu64 " %" PRIu64, x->id,
             x->session[0] ? x->session : "-", x->at, x->events, x->ops);
    relay_send(app, text);
}

void relay_trace_cancel(struct app *app, const char *id)
{
    char text[STORE_MESSAGE_MAX];

    if (!store_shared(app->store))
        return;
    snprintf(text, sizeof(text), "t %s", id);
    relay_send(app, text);
}

/*
 * The messages sent while this server was not listening are lost: its
 * followers of a session take the position the store has now, when the
 * session still ends where they last heard (a later move of the presenter
 * brings the rest).
 */
static void relay_catch_up(struct app *app)
{
    struct follow_where *w = calloc(RELAY_PENDING, sizeof(*w));
    unsigned n;

    if (!w)
        return;
    n = follow_sessions(app->follow, w, RELAY_PENDING);
    for (unsigned i = 0; i < n; i++) {
        uint64_t at, events;

        if (!store_session_where(app->store, w[i].id, &at, &events) && events == w[i].events &&
            at <= events && at != w[i].at) {
            follow_publish(app->follow, w[i].id, at, events, w[i].ops);
            lecture_publish(app->lectures, app->follow, w[i].id, at, events, w[i].ops, NULL);
        }
    }
    free(w);
}

/* @s as a decimal number (digits only, no sign) into *out. */
static bool parse_u64(const char *s, uint64_t *out)
{
    char *end;

    if (!s || !*s || strspn(s, "0123456789") != strlen(s))
        return false;
    errno = 0;
    *out = strtoull(s, &end, 10);
    return !errno && !*end;
}

void relay_heard(const char *text, void *arg)
{
    struct app *app = arg;
    char copy[STORE_MESSAGE_MAX + 1], *tok[7], *save = NULL;
    uint64_t at, events, ops;
    unsigned n = 0;

    if (!text) { /* the database is back: what this server could not send goes now */
        relay_flush(app);
        relay_catch_up(app);
        return;
    }
    if (strlen(text) > STORE_MESSAGE_MAX)
        return;
    memcpy(copy, text, strlen(text) + 1);
    for (char *t = strtok_r(copy, " ", &save); t && n < 7; t = strtok_r(NULL, " ", &save))
        tok[n++] = t;
    if (n == 5 && !strcmp(tok[0], "s") && ids_valid(tok[1], SESSION_ID_LEN) &&
        parse_u64(tok[2], &at) && parse_u64(tok[3], &events) && parse_u64(tok[4], &ops)) {
        follow_publish(app->follow, tok[1], at, events, ops);
        lecture_publish(app->lectures, app->follow, tok[1], at, events, ops, NULL);
    } else if (n == 6 && !strcmp(tok[0], "l") && ids_valid(tok[1], LECTURE_ID_LEN) &&
               (!strcmp(tok[2], "-") || ids_valid(tok[2], SESSION_ID_LEN)) &&
               parse_u64(tok[3], &at) && parse_u64(tok[4], &events) &&
               parse_u64(tok[5], &ops)) {
        struct lecture_info x = {.at = at, .events = events, .ops = ops};

        memcpy(x.id, tok[1], strlen(tok[1]) + 1);
        if (strcmp(tok[2], "-"))
            memcpy(x.session, tok[2], strlen(tok[2]) + 1);
        lecture_heard(app->lectures, app->follow, &x);
    } else if (n == 2 && !strcmp(tok[0], "t") && ids_valid(tok[1], TRACES_ID_LEN)) {
        traces_heard_cancel(app, tok[1]);
    }
}
