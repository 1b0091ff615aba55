/*
 * routes_lectures.c: a presenter's lecture (lecture.h): make one, point it
 * at a session, describe it, and follow it.
 *
 * Making a lecture needs nothing (its answer holds the write token, as a
 * session's does); pointing it at a session needs the lecture's token,
 * not the session's, since a session's id is a read-only link anyway.
 * Following it is the session follow stream's, with the session named in
 * every message: when the presenter switches scenario the followers see
 * the new session's id and open it.
 */
#include "http/routes.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/ids.h"
#include "base/json.h"
#include "http/app.h"
#include "http/follow.h"
#include "http/follower_token.h"
#include "http/lecture.h"
#include "http/quota.h"
#include "http/relay.h"
#include "http/request.h"
#include "session/session.h"
#include "session/store.h"

/* On a shared store a lecture may have to be read from the database: not on
 * libmicrohttpd's thread. */
#define STORE_WAITS(req) (!(req)->may_block && store_shared((req)->app->store))

static const char *const lecture_keys[] = {"session", NULL};

#define NO_SESSION 2 /* body_session(): the body names none (not ROUTE_WOULD_BLOCK) */

/* The JSON of lecture @x; @token when the answer is the one that makes it. */
static cJSON *lecture_json(const struct request *req, const struct lecture_info *x,
                           const char *token)
{
    static const char *const links[][2] = {
            {"self", "/api/lectures/%s"},
            {"stream", "/api/lectures/%s/follow"},
            {"follow", "/?lecture=%s"},
    };
    char topic[64];
    cJSON *o = cJSON_CreateObject();

    lecture_topic(x->id, topic, sizeof(topic));
    if (o &&
        (!json_put(o, "id", cJSON_CreateString(x->id)) ||
         (token && !json_put(o, "token", cJSON_CreateString(token))) ||
         !json_put(o, "session",
                   x->session[0] ? cJSON_CreateString(x->session) : cJSON_CreateNull()) ||
         !json_put(o, "position", json_uint(x->at)) ||
         !json_put(o, "events", json_uint(x->events)) || !json_put(o, "ops", json_uint(x->ops)) ||
         !json_put(o, "followers", json_uint(follow_count(req->app->follow, topic))) ||
         (x->view[0] && !json_put(o, "view", cJSON_Parse(x->view))) ||
         !json_put(o, "links", route_links(x->id, links, sizeof(links) / sizeof(links[0]))))) {
        cJSON_Delete(o);
        o = NULL;
    }
    return o;
}

/*
 * The session a body names ({"session": ID}) into @info: 0 with the session
 * held and locked in *@sp (release with route_close_session(), after the
 * lecture changed, so that no publish of it comes in between), NO_SESSION
 * when the body names none and @optional, ROUTE_WOULD_BLOCK, or -1 after
 * filling @res.
 */
static int body_session(const struct request *req, struct response *res, bool optional,
                        struct lecture_info *info, struct session **sp)
{
    cJSON *body = route_body(req, res), *j;
    struct session *s;
    int ret = -1;

    if (!body)
        return -1;
    if (!route_check_object(body, lecture_keys, "expected an object", res))
        goto out;
    j = cJSON_GetObjectItemCaseSensitive(body, "session");
    if (!j || cJSON_IsNull(j)) {
        if (optional)
            ret = NO_SESSION;
        else
            route_error(res, 400, "bad_request", "key \"session\": a session id is needed");
        goto out;
    }
    if (!cJSON_IsString(j) || !ids_valid(j->valuestring, SESSION_ID_LEN)) {
        route_error(res, 400, "bad_request", "key \"session\": expected a session id");
        goto out;
    }
    if ((ret = route_open_session(req, res, j->valuestring, &s))) {
        ret = ret == ROUTE_WOULD_BLOCK ? ret : -1;
        goto out;
    }
    memcpy(info->session, s->id, sizeof(s->id));
    info->at = s->position;
    info->events = session_nr_events(s);
    info->ops = session_nr_ops(s);
    *sp = s;
out:
    cJSON_Delete(body);
    return ret;
}

int route_lecture_create(const struct request *req, struct response *res)
{
    struct lecture_info info = {0};
    struct session *s = NULL;
    char token[33];
    int ret;

    if (!req->may_block)
        return ROUTE_WOULD_BLOCK; /* the store is written */
    ret = body_session(req, res, true, &info, &s);
    if (ret < 0)
        return 0;
    if (ret == ROUTE_WOULD_BLOCK)
        return ret;
    ret = lecture_create(req->app->lectures, &info, token);
    if (s)
        route_close_session(req, s);
    if (ret)
        return route_error(res, ret == -ENOMEM ? 503 : 500, ret == -ENOMEM ? "busy" : "internal",
                           "no lecture could be made");
    return route_json(res, 201, lecture_json(req, &info, token));
}

int route_lecture_get(const struct request *req, struct response *res)
{
    struct lecture_info info;
    int ret;

    if (!route_check_id(res, ROUTE_ID_LECTURE, req->args[0]))
        return 0;
    if (STORE_WAITS(req))
        return ROUTE_WOULD_BLOCK;
    if ((ret = lecture_read(req->app->lectures, req->args[0], &info)))
        return ret == -ENOENT ? route_no_such(res, ROUTE_ID_LECTURE, req->args[0])
                              : route_error(res, 500, "internal", "the lecture cannot be read");
    return route_json(res, 200, lecture_json(req, &info, NULL));
}

int route_lecture_set(const struct request *req, struct response *res)
{
    struct lecture_info info = {0};
    struct session *s = NULL;
    int ret;

    if (STORE_WAITS(req))
        return ROUTE_WOULD_BLOCK;
    if (!route_check_id(res, ROUTE_ID_LECTURE, req->args[0]))
        return 0;
    if (lecture_get(req->app->lectures, req->args[0], &info))
        return route_no_such(res, ROUTE_ID_LECTURE, req->args[0]);
    if ((ret = body_session(req, res, false, &info, &s)))
        return route_answered(ret);
    ret = lecture_set(req->app->lectures, req->app->follow, &info, route_token(req));
    route_close_session(req, s);
    if (!ret)
        relay_lecture(req->app, &info);
    if (ret == -ENOENT)
        return route_no_such(res, ROUTE_ID_LECTURE, req->args[0]);
    if (ret == -EPERM)
        return route_forbidden(res, "changing this lecture needs its write token");
    if (ret)
        return route_error(res, ret == -ENOMEM ? 503 : 500, ret == -ENOMEM ? "busy" : "internal",
                           "the lecture could not be stored");
    return route_json(res, 200, lecture_json(req, &info, NULL));
}

int route_lecture_follow(const struct request *req, struct response *res)
{
    struct follower *f;
    int err = 0;

    if (!route_check_id(res, ROUTE_ID_LECTURE, req->args[0]))
        return 0;
    if (STORE_WAITS(req))
        return ROUTE_WOULD_BLOCK;
    f = lecture_follow(req->app->lectures, req->app->follow, req->args[0], &err);
    if (!f && err == -ENOENT)
        return route_no_such(res, ROUTE_ID_LECTURE, req->args[0]);
    if (!f && err != -ENOMEM)
        return route_error(res, 500, "internal", "the lecture cannot be read");
    return route_stream(res, f);
}

int route_follower_join(const struct request *req, struct response *res)
{
    char token[FOLLOWER_TOKEN_LEN + 1];
    unsigned retry = 0;
    cJSON *o;
    int ret;

    if (!route_check_id(res, ROUTE_ID_LECTURE, req->args[0]))
        return 0;
    /* a follower's limits are its token's: one client making tokens without
     * end is held by its address here */
    if (!quota_take(req->app->joins, req->client, &retry)) {
        route_error(res, 429, "rate_limited",
                    "%s may join at most %u followers a minute (--join-rate); try again in %u s",
                    req->client ? req->client : "this client", req->app->cfg.join_rate, retry);
        snprintf(res->retry_after, sizeof(res->retry_after), "%u", retry);
        return 0;
    }
    if (STORE_WAITS(req))
        return ROUTE_WOULD_BLOCK;
    if ((ret = lecture_follower_token(req->app->lectures, req->args[0], token)))
        return ret == -ENOENT
                       ? route_no_such(res, ROUTE_ID_LECTURE, req->args[0])
                       : route_error(res, 500, "internal", "no follower's token could be made");
    o = cJSON_CreateObject();
    if (o && (!json_put(o, "lecture", json_str(req->args[0])) ||
              !json_put(o, "token", json_str(token)))) {
        cJSON_Delete(o);
        o = NULL;
    }
    return route_json(res, 201, o);
}

/* A view's breakpoint key: 1 to 80 characters of [A-Za-z0-9_:./-]. */
static bool view_key_valid(const char *k)
{
    size_t i;

    for (i = 0; k[i]; i++)
        if (i >= 80 || !((k[i] >= 'a' && k[i] <= 'z') || (k[i] >= 'A' && k[i] <= 'Z') ||
                         (k[i] >= '0' && k[i] <= '9') || strchr("_:./-", k[i])))
            return false;
    return i > 0;
}

/* {"breakpoints": [KEY, ...], "theme": "normal"|"projector"}, both optional: true, or false after a
 * 400. */
static bool view_valid(const cJSON *body, struct response *res)
{
    static const char *const keys[] = {"breakpoints", "theme", NULL};
    const cJSON *bps, *theme, *b;
    int n = 0;

    if (!route_check_object(body, keys, "expected an object {\"breakpoints\", \"theme\"}", res))
        return false;
    bps = cJSON_GetObjectItemCaseSensitive(body, "breakpoints");
    theme = cJSON_GetObjectItemCaseSensitive(body, "theme");
    if (bps && !cJSON_IsArray(bps)) {
        route_error(res, 400, "bad_request", "key \"breakpoints\": expected an array of keys");
        return false;
    }
    cJSON_ArrayForEach(b, bps)
    {
        if (++n > 16 || !cJSON_IsString(b) || !view_key_valid(b->valuestring)) {
            route_error(res, 400, "bad_request",
                        "key \"breakpoints\": at most 16 keys of 1 to 80 characters of "
                        "A-Z, a-z, 0-9, _, :, ., / and -");
            return false;
        }
    }
    if (theme && !(cJSON_IsString(theme) && (!strcmp(theme->valuestring, "normal") ||
                                             !strcmp(theme->valuestring, "projector")))) {
        route_error(res, 400, "bad_request", "key \"theme\": expected \"normal\" or \"projector\"");
        return false;
    }
    return true;
}

int route_lecture_view(const struct request *req, struct response *res)
{
    cJSON *body;
    char *text = NULL;
    int ret;

    if (!route_check_id(res, ROUTE_ID_LECTURE, req->args[0]))
        return 0;
    if (STORE_WAITS(req))
        return ROUTE_WOULD_BLOCK;
    if (!(body = route_body(req, res)))
        return 0;
    if (!view_valid(body, res))
        goto out;
    if (!(text = cJSON_PrintUnformatted(body))) {
        route_error(res, 503, "busy", "out of memory");
        goto out;
    }
    if (strlen(text) > LECTURE_VIEW_MAX) {
        route_error(res, 413, "too_large", "a view is at most %u bytes", LECTURE_VIEW_MAX);
        goto out;
    }
    ret = lecture_set_view(req->app->lectures, req->app->follow, req->args[0], route_token(req),
                           text);
    if (ret == -ENOENT)
        route_no_such(res, ROUTE_ID_LECTURE, req->args[0]);
    else if (ret == -EPERM)
        route_forbidden(res, "changing this lecture's view needs its write token");
    else if (ret)
        route_error(res, 500, "internal", "the lecture cannot be read");
    else
        route_json(res, 200, cJSON_Duplicate(body, true));
out:
    cJSON_free(text);
    cJSON_Delete(body);
    return 0;
}
