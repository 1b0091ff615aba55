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
 */
#include "http/relay.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ids.h"
#include "http/app.h"
#include "http/follow.h"
#include "http/lecture.h"
#include "http/traces.h"
#include "session/session.h"
#include "session/store.h"

int relay_start(struct app *app)
{
    return store_listen(app->store, relay_heard, app);
}

void relay_stop(struct app *app)
{
    store_unlisten(app->store);
}

static void relay_send(struct app *app, const char *text)
{
    int ret = store_notify(app->store, text);

    if (ret)
        fprintf(stderr, "slublab serve: the other servers were not told \"%s\" (%d)\n", text, ret);
}

void relay_session(struct app *app, const char *id, uint64_t at, uint64_t events, uint64_t ops)
{
    char text[STORE_MESSAGE_MAX];

    if (!store_shared(app->store))
        return;
    snprintf(text, sizeof(text), "s %s %" PRIu64 " %" PRIu64 " %" PRIu64, id, at, events, ops);
    relay_send(app, text);
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

    if (strlen(text) > STORE_MESSAGE_MAX)
        return;
    memcpy(copy, text, strlen(text) + 1);
    for (char *t = strtok_r(copy, " ", &save); t && n < 7; t = strtok_r(NULL, " ", &save))
        tok[n++] = t;
    if (n == 5 && !strcmp(tok[0], "s") && ids_valid(tok[1], SESSION_ID_LEN) &&
        parse_u64(tok[2], &at) && parse_u64(tok[3], &events) && parse_u64(tok[4], &ops)) {
        follow_publish(app->follow, tok[1], at, events, ops);
        lecture_publish(app->lectures, app->follow, tok[1], at, events, ops);
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
