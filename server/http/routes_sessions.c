/*
 * routes_sessions.c: the session handlers (see routes.h, docs/api.md).
 *
 * Each handler finds its session through the registry and holds it locked
 * while it works.  On the first, non-blocking call a handler only answers
 * what the session has ready (a cached state, its description) and only if
 * the lock is free; anything else, and every change, goes to a worker.
 * Changes (append, step, delete) need the session's write token; reading,
 * following and forking do not, since they leave the session as it is.
 */
#include "http/routes.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ids.h"
#include "http/app.h"
#include "http/follow.h"
#include "present/json_session.h"
#include "present/json_state.h"
#include "session/registry.h"
#include "session/session.h"
#include "session/store.h"

#define OPEN_ERROR ROUTE_OPEN_ERROR

int route_open_session(const struct request *req, struct response *res, const char *id,
                       struct session **out)
{
    struct registry *reg = req->app->reg;
    struct session *s;
    int err;

    if (!ids_valid(id, SESSION_ID_LEN)) {
        route_error(res, 404, "not_found", "no session \"%.32s\"", id);
        return OPEN_ERROR;
    }
    err = registry_get(reg, id, req->may_block, &s);
    if (err == -EAGAIN)
        return ROUTE_WOULD_BLOCK;
    if (err) {
        route_session_error(res, err, err == -ENOENT ? "no such session" : NULL);
        return OPEN_ERROR;
    }
    if (req->may_block) {
        pthread_mutex_lock(&s->lock);
    } else if (pthread_mutex_trylock(&s->lock)) {
        registry_put(reg, s);
        return ROUTE_WOULD_BLOCK;
    }
    if (!s->ready) {
        err = s->build_err;
        pthread_mutex_unlock(&s->lock);
        registry_put(reg, s);
        if (!err)
            return ROUTE_WOULD_BLOCK;
        route_error(res, 500, "internal", "session %s cannot be restored by this engine", id);
        return OPEN_ERROR;
    }
    *out = s;
    return 0;
}

/* The session of the path: req->args[0]. */
static int open_session(const struct request *req, struct response *res, struct session **out)
{
    return route_open_session(req, res, req->args[0], out);
}

void route_close_session(const struct request *req, struct session *s)
{
    pthread_mutex_unlock(&s->lock);
    registry_put(req->app->reg, s);
}

static bool check_token(const struct request *req, struct response *res, const struct session *s)
{
    const char *t = route_token(req);

    if (t && ids_token_equal(t, s->token))
        return true;
    route_error(res, 403, "forbidden",
                "changing this session needs its write token (Authorization: Bearer TOKEN)");
    return false;
}

static void publish(const struct request *req, const struct session *s)
{
    follow_publish(req->app->follow, s->id, s->position, session_nr_events(s), session_nr_ops(s));
}

/* The links of a session, for clients to follow. */
static cJSON *session_links(const char *id)
{
    static const char *const links[][2] = {
            {"self", "/api/sessions/%s"},
            {"state", "/api/sessions/%s/state"},
            {"stream", "/api/sessions/%s/follow"},
            {"follow", "/?follow=%s"},
            {"view", "/?session=%s"},
    };

    return route_links(id, links, sizeof(links) / sizeof(links[0]));
}

/* The answer to a new session (created, forked, opened): 201 with its token. */
static int created(struct response *res, const struct session *s, cJSON *extra)
{
    cJSON *o = extra ? extra : cJSON_CreateObject();

    if (o && (!json_put(o, "id", cJSON_CreateString(s->id)) ||
              !json_put(o, "token", cJSON_CreateString(s->token)) ||
              !json_put(o, "parent",
                        s->parent[0] ? cJSON_CreateString(s->parent) : cJSON_CreateNull()) ||
              !json_put(o, "events", json_uint(session_nr_events(s))) ||
              !json_put(o, "ops", json_uint(session_nr_ops(s))) ||
              !json_put(o, "position", json_uint(s->position)) ||
              !json_put(o, "warnings", json_uint(s->rp.nr_warnings_total)) ||
              !json_put(o, "links", session_links(s->id)))) {
        cJSON_Delete(o);
        o = NULL;
    }
    return route_json(res, 201, o);
}

/* Register @s (built, not locked) and answer 201; @s is consumed. */
static int register_and_answer(const struct request *req, struct response *res, struct session *s,
                               cJSON *extra)
{
    int err = registry_add(req->app->reg, s);

    if (err) {
        cJSON_Delete(extra);
        return route_session_error(res, err, err == -EBUSY ? NULL : "cannot store the session");
    }
    created(res, s, extra);
    registry_put(req->app->reg, s);
    return 0;
}

int route_session_create(const struct request *req, struct response *res)
{
    static const char *const keys[] = {"scenario", "seed", "model", "variants", "ops", NULL};
    struct app *app = req->app;
    struct strbuf err = STRBUF_INIT;
    struct session_settings st;
    struct session_append_result ar;
    const struct catalog_entry *e = NULL;
    const cJSON *item, *ops;
    struct session *s = NULL;
    char *inline_text = NULL;
    const char *text, *label;
    size_t len;
    int64_t row = 0;
    cJSON *body;
    int ret;

    if (!req->may_block)
        return ROUTE_WOULD_BLOCK;
    if (!(body = route_body(req, res)))
        return 0;
    if (!route_check_keys(body, keys, res))
        goto out;
    item = cJSON_GetObjectItemCaseSensitive(body, "scenario");
    ops = cJSON_GetObjectItemCaseSensitive(body, "ops");
    if (cJSON_IsString(item)) {
        if (!(e = app_scenario(app, item->valuestring))) {
            route_error(res, 422, "unprocessable", "key \"scenario\": no scenario named \"%.64s\"",
                        item->valuestring);
            goto out;
        }
        text = e->text;
        len = e->len;
        label = e->name;
        row = e->row;
    } else if (cJSON_IsObject(item)) {
        if (!(inline_text = cJSON_PrintUnformatted(item))) {
            route_error(res, 503, "busy", "out of memory");
            goto out;
        }
        text = inline_text;
        len = strlen(inline_text);
        label = "scenario";
    } else {
        route_error(res, 400, "bad_request",
                    "key \"scenario\": expected a scenario name or a scenario object");
        goto out;
    }
    if (ops && !cJSON_IsArray(ops)) {
        route_error(res, 400, "bad_request", "key \"ops\": expected an array of operations");
        goto out;
    }
    if ((ret = session_settings_parse(body, &st, &err))) {
        route_session_error(res, ret, strbuf_str(&err));
        goto out;
    }
    if (!(s = session_new(&app->cfg.lim)) || session_set_scenario(s, text, len, label)) {
        route_error(res, 503, "busy", "out of memory");
        goto out;
    }
    s->settings = st;
    if ((ret = session_build(s, &err)) || (ops && (ret = session_append(s, ops, &ar, &err)))) {
        route_session_error(res, ret, strbuf_str(&err));
        goto out;
    }
    if (!row && store_scenario_put(app->store, s->scn->name, text, len, false, &row)) {
        route_error(res, 500, "internal", "cannot store the scenario");
        goto out;
    }
    s->scenario_id = row;
    register_and_answer(req, res, s, NULL);
    s = NULL;
out:
    session_free(s);
    cJSON_free(inline_text);
    cJSON_Delete(body);
    strbuf_release(&err);
    return 0;
}

/* ?limit= and ?offset= of a list: false after a 400. */
static bool list_window(const struct request *req, struct response *res, unsigned *limit,
                        unsigned *offset)
{
    uint64_t l = 50, o = 0;

    if (route_query_u64(req, res, "limit", 1000, &l) < 0 ||
        route_query_u64(req, res, "offset", UINT32_MAX, &o) < 0)
        return false;
    *limit = (unsigned)l;
    *offset = (unsigned)o;
    return true;
}

int route_session_list(const struct request *req, struct response *res)
{
    unsigned limit, offset;
    cJSON *out = NULL;
    int err;

    if (!list_window(req, res, &limit, &offset))
        return 0;
    if (!req->may_block)
        return ROUTE_WOULD_BLOCK;
    if ((err = store_session_list(req->app->store, limit, offset, &out)))
        return route_session_error(res, err, "cannot list the sessions");
    if (!json_put(out, "live", json_uint(registry_live(req->app->reg)))) {
        cJSON_Delete(out);
        out = NULL;
    }
    return route_json(res, 200, out);
}

int route_session_get(const struct request *req, struct response *res)
{
    struct session *s;
    cJSON *o;
    int ret = open_session(req, res, &s);

    if (ret)
        return ret == ROUTE_WOULD_BLOCK ? ret : 0;
    o = json_session_info(s);
    if (o && !json_put(o, "followers", json_uint(follow_count(req->app->follow, s->id)))) {
        cJSON_Delete(o);
        o = NULL;
    }
    if (o && !json_put(o, "links", session_links(s->id))) {
        cJSON_Delete(o);
        o = NULL;
    }
    route_close_session(req, s);
    return route_json(res, 200, o);
}

int route_session_delete(const struct request *req, struct response *res)
{
    struct store_session ss;
    const char *t = route_token(req);
    int err;

    if (!ids_valid(req->args[0], SESSION_ID_LEN))
        return route_error(res, 404, "not_found", "no such session");
    if (!req->may_block)
        return ROUTE_WOULD_BLOCK;
    if ((err = store_session_load(req->app->store, req->args[0], &ss)))
        return route_session_error(res, err, "no such session");
    if (!t || !ids_token_equal(t, ss.token)) {
        store_session_free(&ss);
        return route_error(res, 403, "forbidden",
                           "deleting this session needs its write token (Authorization: Bearer "
                           "TOKEN)");
    }
    store_session_free(&ss);
    if ((err = registry_delete(req->app->reg, req->args[0])))
        return route_session_error(res, err, "no such session");
    res->status = 204;
    return 0;
}

/* ?bytes=0x...: 1 absent, 0 parsed, OPEN_ERROR after a 400. */
static int query_slab(const struct request *req, struct response *res, uint64_t *slab)
{
    const char *b = route_query(req, "bytes");

    if (!b)
        return 1;
    if (!route_parse_addr(b, slab) || !*slab) {
        route_error(res, 400, "bad_request", "query \"bytes\": expected a slab address 0x...");
        return OPEN_ERROR;
    }
    return 0;
}

/* by=event|op, dir=next|prev, count=N: 1 none given, 0 parsed, OPEN_ERROR after a 400. */
static int parse_step(const char *by, const char *dir, uint64_t count_in, bool has_count,
                      struct response *res, enum session_step_by *pby, bool *prev, uint64_t *count)
{
    if (!by && !dir && !has_count)
        return 1;
    *pby = SESSION_BY_EVENT;
    if (by && !strcmp(by, "op"))
        *pby = SESSION_BY_OP;
    else if (by && strcmp(by, "event") != 0) {
        route_error(res, 400, "bad_request", "\"by\": expected \"event\" or \"op\"");
        return OPEN_ERROR;
    }
    *prev = false;
    if (dir && !strcmp(dir, "prev"))
        *prev = true;
    else if (dir && strcmp(dir, "next") != 0) {
        route_error(res, 400, "bad_request", "\"dir\": expected \"next\" or \"prev\"");
        return OPEN_ERROR;
    }
    *count = has_count ? count_in : 1;
    return 0;
}

/*
 * The fast path of GET .../state?at=N: a cached state, read under the
 * cache's own lock, so it is served even while a seek holds the session.
 */
static int state_from_cache(const struct request *req, struct response *res, uint64_t at,
                            uint64_t slab)
{
    struct registry *reg = req->app->reg;
    struct session *s;
    struct blob *b = NULL;

    if (!ids_valid(req->args[0], SESSION_ID_LEN))
        return route_error(res, 404, "not_found", "no session \"%.32s\"", req->args[0]);
    if (registry_get(reg, req->args[0], false, &s))
        return ROUTE_WOULD_BLOCK;
    if (atomic_load(&s->ready))
        b = session_state_cached(s, at, slab);
    registry_put(reg, s);
    if (!b)
        return ROUTE_WOULD_BLOCK;
    res->status = 200;
    res->content_type = "application/json";
    res->blob = b;
    return 0;
}

int route_state(const struct request *req, struct response *res)
{
    struct strbuf err = STRBUF_INIT;
    enum session_step_by by;
    uint64_t at = 0, slab = 0, count = 0;
    struct session *s;
    struct blob *b = NULL;
    bool prev, has_at, has_count;
    int q, ret, step;

    if ((q = route_query_u64(req, res, "at", UINT64_MAX, &at)) < 0 ||
        query_slab(req, res, &slab) == OPEN_ERROR ||
        (ret = route_query_u64(req, res, "count", 1000000, &count)) < 0)
        return 0;
    has_at = q == 0;
    has_count = ret == 0;
    step = parse_step(route_query(req, "by"), route_query(req, "dir"), count, has_count, res, &by,
                      &prev, &count);
    if (step == OPEN_ERROR)
        return 0;
    if (!req->may_block && has_at && step == 1)
        return state_from_cache(req, res, at, slab);
    if ((ret = open_session(req, res, &s)))
        return ret == ROUTE_WOULD_BLOCK ? ret : 0;
    if (!has_at)
        at = s->position;
    if (step == 0 && (ret = session_step(s, at, by, prev, count, &at))) {
        route_close_session(req, s);
        return route_session_error(res, ret, NULL);
    }
    b = session_state_cached(s, at, slab);
    if (!b && !req->may_block) {
        route_close_session(req, s);
        return ROUTE_WOULD_BLOCK;
    }
    ret = b ? 0 : json_position_state(s, at, slab, &b, &err);
    route_close_session(req, s);
    if (ret)
        route_session_error(res, ret, strbuf_str(&err));
    else {
        res->status = 200;
        res->content_type = "application/json";
        res->blob = b;
    }
    strbuf_release(&err);
    return 0;
}

int route_events(const struct request *req, struct response *res)
{
    uint64_t from = 0, to = 0;
    struct session *s;
    cJSON *out = NULL;
    int q, ret;

    if (route_query_u64(req, res, "from", UINT64_MAX, &from) < 0 ||
        (q = route_query_u64(req, res, "to", UINT64_MAX, &to)) < 0)
        return 0;
    if (q)
        to = from + 100;
    if (to < from)
        return route_error(res, 400, "bad_request", "\"to\" is before \"from\"");
    if (!req->may_block)
        return ROUTE_WOULD_BLOCK;
    if ((ret = open_session(req, res, &s)))
        return 0;
    ret = json_position_events(s, from, to, &out);
    route_close_session(req, s);
    if (ret)
        return route_session_error(res, ret, NULL);
    return route_json(res, 200, out);
}

int route_series(const struct request *req, struct response *res)
{
    const char *list = route_query(req, "counters");
    unsigned items[SIM_NR_STATS];
    size_t nr = 0;
    uint64_t from = 0, to = UINT64_MAX, points = 200;
    struct session *s;
    cJSON *out = NULL;
    int ret;

    if (!list)
        list = "alloc_fastpath,alloc_slowpath,free_fastpath,free_slowpath";
    while (*list) {
        char name[64];
        size_t len = strcspn(list, ",");
        int item;

        if (len >= sizeof(name) || nr == SIM_NR_STATS)
            return route_error(res, 400, "bad_request", "query \"counters\": too long");
        memcpy(name, list, len);
        name[len] = '\0';
        if ((item = sim_stat_lookup(name)) < 0)
            return route_error(res, 400, "bad_request",
                               "query \"counters\": unknown counter \"%s\"", name);
        items[nr++] = (unsigned)item;
        list += len + (list[len] == ',');
    }
    if (!nr)
        return route_error(res, 400, "bad_request", "query \"counters\": name at least one");
    if (route_query_u64(req, res, "from", UINT64_MAX, &from) < 0 ||
        route_query_u64(req, res, "to", UINT64_MAX, &to) < 0 ||
        route_query_u64(req, res, "points", SESSION_MAX_POINTS, &points) < 0)
        return 0;
    if (to < from)
        return route_error(res, 400, "bad_request", "\"to\" is before \"from\"");
    if (!req->may_block)
        return ROUTE_WOULD_BLOCK;
    if ((ret = open_session(req, res, &s)))
        return 0;
    ret = json_position_series(s, items, nr, from, to, (unsigned)points, &out);
    route_close_session(req, s);
    if (ret)
        return route_session_error(res, ret, NULL);
    return route_json(res, 200, out);
}

int route_search(const struct request *req, struct response *res)
{
    struct timeline_query q = {NULL, NULL, -1, false, 0};
    const char *counter = route_query(req, "counter"), *object = route_query(req, "object");
    const char *dir = route_query(req, "dir");
    uint64_t from = 0;
    struct session *s;
    cJSON *out = NULL;
    bool prev = false;
    int has_from, ret;

    q.fn = route_query(req, "fn");
    q.label = route_query(req, "label");
    if (q.fn && !*q.fn)
        q.fn = NULL;
    if (q.label && !*q.label)
        q.label = NULL;
    if (counter && (q.stat = sim_stat_lookup(counter)) < 0)
        return route_error(res, 400, "bad_request", "query \"counter\": unknown counter \"%.64s\"",
                           counter);
    if (object && !(q.has_object = route_parse_addr(object, &q.object)))
        return route_error(res, 400, "bad_request", "query \"object\": expected an address 0x...");
    if (!q.fn && !q.label && q.stat < 0 && !q.has_object)
        return route_error(res, 400, "bad_request",
                           "search needs at least one of fn, label, counter and object");
    if (dir && !strcmp(dir, "prev"))
        prev = true;
    else if (dir && strcmp(dir, "next") != 0)
        return route_error(res, 400, "bad_request", "query \"dir\": expected next or prev");
    if ((has_from = route_query_u64(req, res, "from", UINT64_MAX, &from)) < 0)
        return 0;
    if (!req->may_block)
        return ROUTE_WOULD_BLOCK;
    if ((ret = open_session(req, res, &s)))
        return 0;
    if (has_from)
        from = s->position;
    ret = json_position_search(s, &q, from, prev, req->app->cfg.search_budget, &out);
    route_close_session(req, s);
    if (ret)
        return route_session_error(res, ret, NULL);
    return route_json(res, 200, out);
}

/* Answer 200 with document @doc of the request's session. */
static int session_document(const struct request *req, struct response *res,
                            cJSON *(*doc)(const struct session *))
{
    struct session *s;
    cJSON *o;
    int ret = open_session(req, res, &s);

    if (ret)
        return ret == ROUTE_WOULD_BLOCK ? ret : 0;
    o = doc(s);
    route_close_session(req, s);
    return route_json(res, 200, o);
}

int route_log(const struct request *req, struct response *res)
{
    return session_document(req, res, json_session_log);
}

int route_names(const struct request *req, struct response *res)
{
    return session_document(req, res, json_session_names);
}

/*
 * Build a fork of @s (held and locked; unlocked and released here) at @at,
 * then apply @ops when given.  Answers 201 with the new session.
 */
static int fork_session(const struct request *req, struct response *res, struct session *s,
                        uint64_t at, const cJSON *ops)
{
    struct strbuf err = STRBUF_INIT;
    struct session_append_result ar;
    struct session *child = session_new(&req->app->cfg.lim);
    cJSON *extra = NULL;
    int ret;

    ret = child ? session_fork_inputs(s, at, child) : -ENOMEM;
    route_close_session(req, s);
    if (!ret)
        ret = session_build(child, &err);
    if (!ret) {
        child->position = at < session_nr_events(child) ? at : session_nr_events(child);
        if (ops && !(ret = session_append(child, ops, &ar, &err))) {
            extra = cJSON_CreateObject();
            if (!extra || !json_put(extra, "from", json_uint(ar.events_before)) ||
                !json_put(extra, "new_warnings",
                          json_session_warnings(child, ar.warnings_from, 100)))
                ret = -ENOMEM;
        }
    }
    if (ret) {
        cJSON_Delete(extra);
        session_free(child);
        route_session_error(res, ret, strbuf_str(&err));
    } else {
        if (!extra)
            extra = cJSON_CreateObject();
        if (extra && !json_put(extra, "forked_at", json_uint(at))) {
            cJSON_Delete(extra);
            extra = NULL;
        }
        register_and_answer(req, res, child, extra);
    }
    strbuf_release(&err);
    return 0;
}

int route_ops(const struct request *req, struct response *res)
{
    static const char *const keys[] = {"ops", "at", "if_end", NULL};
    struct strbuf err = STRBUF_INIT;
    struct session_append_result ar;
    uint64_t at = 0, if_end = 0, end;
    int has_at = 1, has_if_end = 1, ret;
    cJSON *body, *arr, *owned = NULL, *o = NULL;
    struct session *s;

    if (!req->may_block)
        return ROUTE_WOULD_BLOCK;
    if (!(body = route_body(req, res)))
        return 0;
    if (cJSON_IsArray(body)) {
        arr = body;
    } else if (cJSON_IsObject(body) && cJSON_GetObjectItemCaseSensitive(body, "op")) {
        if (!(owned = cJSON_CreateArray()) || !cJSON_AddItemReferenceToArray(owned, body)) {
            route_error(res, 503, "busy", "out of memory");
            goto out;
        }
        arr = owned;
    } else {
        if (!route_check_keys(body, keys, res) ||
            (has_at = route_field_u64(body, "at", UINT64_MAX, &at, res)) < 0 ||
            (has_if_end = route_field_u64(body, "if_end", UINT64_MAX, &if_end, res)) < 0)
            goto out;
        arr = cJSON_GetObjectItemCaseSensitive(body, "ops");
        if (!cJSON_IsArray(arr)) {
            route_error(res, 400, "bad_request", "key \"ops\": expected an array of operations");
            goto out;
        }
    }
    if ((ret = open_session(req, res, &s)))
        goto out;
    if (!check_token(req, res, s)) {
        route_close_session(req, s);
        goto out;
    }
    end = session_nr_events(s);
    if (has_if_end == 0 && if_end != end) {
        route_close_session(req, s);
        route_error(res, 409, "conflict",
                    "the session has %" PRIu64 " events, not %" PRIu64 " (if_end)", end, if_end);
        goto out;
    }
    if (has_at == 0 && at > end) {
        route_close_session(req, s);
        route_error(res, 400, "bad_request",
                    "key \"at\": %" PRIu64 " is beyond the end (%" PRIu64 " events)", at, end);
        goto out;
    }
    if (has_at == 0 && at < end) {
        fork_session(req, res, s, at, arr); /* releases s */
        goto out;
    }
    ret = session_append(s, arr, &ar, &err);
    if (ret) {
        route_close_session(req, s);
        route_session_error(res, ret, strbuf_str(&err));
        goto out;
    }
    if (registry_save_batch(req->app->reg, s, s->nr_batches - 1)) {
        registry_drop(req->app->reg, s);
        route_close_session(req, s);
        route_error(res, 500, "internal", "cannot store the operations");
        goto out;
    }
    publish(req, s);
    o = cJSON_CreateObject();
    if (o && (!json_put(o, "id", cJSON_CreateString(s->id)) ||
              !json_put(o, "events", json_uint(session_nr_events(s))) ||
              !json_put(o, "ops", json_uint(session_nr_ops(s))) ||
              !json_put(o, "position", json_uint(s->position)) ||
              !json_put(o, "from", json_uint(ar.events_before)) ||
              !json_put(o, "from_ops", json_uint(ar.ops_before)) ||
              !json_put(o, "new_warnings", json_session_warnings(s, ar.warnings_from, 100)))) {
        cJSON_Delete(o);
        o = NULL;
    }
    route_close_session(req, s);
    route_json(res, 200, o);
out:
    cJSON_Delete(owned);
    cJSON_Delete(body);
    strbuf_release(&err);
    return 0;
}

/* {"position","events","ops","state":<the state response>} around @b. */
static int step_answer(struct response *res, const struct session *s, struct blob *b)
{
    struct strbuf sb = STRBUF_INIT;

    strbuf_printf(&sb, "{\"position\":%" PRIu64 ",\"events\":%" PRIu64 ",\"ops\":%" PRIu64,
                  s->position, session_nr_events(s), session_nr_ops(s));
    if (b) {
        strbuf_puts(&sb, ",\"state\":");
        strbuf_append(&sb, b->text, b->len);
    }
    strbuf_puts(&sb, "}");
    blob_put(b);
    if (strbuf_failed(&sb)) {
        strbuf_release(&sb);
        return route_error(res, 503, "busy", "out of memory");
    }
    res->status = 200;
    res->content_type = "application/json";
    res->body = sb.buf;
    res->len = sb.len;
    return 0;
}

int route_step(const struct request *req, struct response *res)
{
    static const char *const keys[] = {"to", "by", "dir", "count", "state", "bytes", NULL};
    struct strbuf err = STRBUF_INIT;
    enum session_step_by by = SESSION_BY_EVENT;
    uint64_t to = 0, count = 1, slab = 0, target;
    const cJSON *j;
    bool prev = false, want_state = true;
    int has_to = 1, has_count = 1, step, ret;
    struct session *s;
    struct blob *b = NULL;
    cJSON *body = NULL;

    if (req->body_len) {
        if (!(body = route_body(req, res)))
            return 0;
        if (!route_check_keys(body, keys, res) ||
            (has_to = route_field_u64(body, "to", UINT64_MAX, &to, res)) < 0 ||
            (has_count = route_field_u64(body, "count", 1000000, &count, res)) < 0)
            goto out;
        j = cJSON_GetObjectItemCaseSensitive(body, "state");
        if (j && !cJSON_IsBool(j)) {
            route_error(res, 400, "bad_request", "key \"state\": expected a boolean");
            goto out;
        }
        want_state = !j || cJSON_IsTrue(j);
        j = cJSON_GetObjectItemCaseSensitive(body, "bytes");
        if (j && (!cJSON_IsString(j) || !route_parse_addr(j->valuestring, &slab) || !slab)) {
            route_error(res, 400, "bad_request", "key \"bytes\": expected a slab address 0x...");
            goto out;
        }
        for (const char *k = "by"; k; k = !strcmp(k, "by") ? "dir" : NULL) {
            j = cJSON_GetObjectItemCaseSensitive(body, k);
            if (j && !cJSON_IsString(j)) {
                route_error(res, 400, "bad_request", "key \"%s\": expected a string", k);
                goto out;
            }
        }
        step = parse_step(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(body, "by")),
                          cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(body, "dir")),
                          count, has_count == 0, res, &by, &prev, &count);
        if (step == OPEN_ERROR)
            goto out;
        if (step == 0 && has_to == 0) {
            route_error(res, 400, "bad_request",
                        "give \"to\" or a step (by, dir, count), not both");
            goto out;
        }
    }
    if ((ret = open_session(req, res, &s))) {
        cJSON_Delete(body);
        return ret == ROUTE_WOULD_BLOCK ? ret : 0;
    }
    if (!check_token(req, res, s))
        goto out_close;
    if (has_to == 0) {
        if (to > session_nr_events(s)) {
            route_error(res, 400, "bad_request",
                        "key \"to\": %" PRIu64 " is beyond the end (%" PRIu64 " events)", to,
                        session_nr_events(s));
            goto out_close;
        }
        target = to;
    } else if ((ret = session_step(s, s->position, by, prev, count, &target))) {
        route_session_error(res, ret, NULL);
        goto out_close;
    }
    if (want_state) {
        b = session_state_cached(s, target, slab);
        if (!b && !req->may_block) {
            route_close_session(req, s);
            cJSON_Delete(body);
            return ROUTE_WOULD_BLOCK; /* nothing changed yet */
        }
        if (!b && (ret = json_position_state(s, target, slab, &b, &err))) {
            route_session_error(res, ret, strbuf_str(&err));
            goto out_close;
        }
    }
    s->position = target;
    publish(req, s);
    step_answer(res, s, b);
out_close:
    route_close_session(req, s);
out:
    cJSON_Delete(body);
    strbuf_release(&err);
    return 0;
}

int route_fork(const struct request *req, struct response *res)
{
    static const char *const keys[] = {"at", NULL};
    uint64_t at = 0;
    int has_at = 1, ret;
    struct session *s;
    cJSON *body = NULL;

    if (!req->may_block)
        return ROUTE_WOULD_BLOCK;
    if (req->body_len) {
        if (!(body = route_body(req, res)))
            return 0;
        if (!route_check_keys(body, keys, res) ||
            (has_at = route_field_u64(body, "at", UINT64_MAX, &at, res)) < 0) {
            cJSON_Delete(body);
            return 0;
        }
        cJSON_Delete(body);
    }
    if ((ret = open_session(req, res, &s)))
        return 0;
    if (has_at)
        at = s->position;
    if (at > session_nr_events(s)) {
        route_close_session(req, s);
        return route_error(res, 400, "bad_request",
                           "key \"at\": %" PRIu64 " is beyond the end (%" PRIu64 " events)", at,
                           session_nr_events(s));
    }
    return fork_session(req, res, s, at, NULL);
}

int route_follow(const struct request *req, struct response *res)
{
    struct follower *f;
    struct session *s;
    int ret = open_session(req, res, &s);

    if (ret)
        return ret == ROUTE_WOULD_BLOCK ? ret : 0;
    f = follow_attach(req->app->follow, s->id, s->position, session_nr_events(s),
                      session_nr_ops(s));
    route_close_session(req, s);
    if (!f)
        return route_error(res, 503, "busy", "the server is shutting down or out of memory");
    res->status = 200;
    res->content_type = "text/event-stream";
    res->follower = f;
    return 0;
}
