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

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "base/ids.h"
#include "http/app.h"
#include "http/follow.h"
#include "http/lecture.h"
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

void relay_heard(const char *text, void *arg)
{
    struct app *app = arg;
    char a[33], b[33];
    uint64_t at, events, ops;
    int used = 0;

    if (sscanf(text, "s %32s %" SCNu64 " %" SCNu64 " %" SCNu64 "%n", a, &at, &events, &ops,
               &used) == 4 &&
        !text[used] && ids_valid(a, SESSION_ID_LEN)) {
        follow_publish(app->follow, a, at, events, ops);
        lecture_publish(app->lectures, app->follow, a, at, events, ops);
    } else if (sscanf(text, "l %32s %32s %" SCNu64 " %" SCNu64 " %" SCNu64 "%n", a, b, &at,
                      &events, &ops, &used) == 5 &&
               !text[used] && ids_valid(a, LECTURE_ID_LEN) &&
               (!strcmp(b, "-") || ids_valid(b, SESSION_ID_LEN))) {
        struct lecture_info x = {.at = at, .events = events, .ops = ops};

        memcpy(x.id, a, strlen(a) + 1);
        if (strcmp(b, "-"))
            memcpy(x.session, b, strlen(b) + 1);
        lecture_heard(app->lectures, app->follow, &x);
    }
}
