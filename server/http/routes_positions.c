/*
 * routes_positions.c: what a session answers about its positions (see
 * routes.h, docs/api.md): the state, events, counter series, search, the
 * log and names, steps and the follow stream.
 *
 * Reading needs no token; a step moves the session's shared position, so
 * it needs the write token and publishes the move to the followers.  A
 * state the session has cached is answered on the first, non-blocking
 * call; everything else goes to a worker.
 */
#include "http/routes.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hint.h"
#include "base/ids.h"
#include "http/app.h"
#include "http/follow.h"
#include "present/json_caches.h"
#include "present/json_session.h"
#include "session/registry.h"
#include "session/session.h"
#include "session/store.h"

#define OPEN_ERROR ROUTE_OPEN_ERROR

/*
 * On a worker, open the path's session (held and locked in *sp) and, when
 * the request gave no position, take its position into *at.  0, or
 * ROUTE_WOULD_BLOCK / OPEN_ERROR (route_open_session()).
 */
static int open_at(const struct request *req, struct response *res, bool given, uint64_t *at,
                   struct session **sp)
{
    int ret;

    if (!req->may_block)
        return ROUTE_WOULD_BLOCK;
    if ((ret = route_open_session(req, res, req->args[0], sp)))
        return ret;
    if (!given)
        *at = (*sp)->position;
    return 0;
}

/* On a worker, open the path's session for positions [from, to]: 0, or
 * ROUTE_WOULD_BLOCK / OPEN_ERROR after a 400 (to before from) or a 404. */
static int open_range(const struct request *req, struct response *res, uint64_t from, uint64_t to,
                      struct session **sp)
{
    if (!route_check_range(res, from, to))
        return OPEN_ERROR;
    return open_at(req, res, true, &from, sp);
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

    if (!route_check_id(res, ROUTE_ID_SESSION, req->args[0]))
        return 0;
    if (registry_get(reg, req->args[0], false, &s))
        return ROUTE_WOULD_BLOCK;
    if (atomic_load(&s->ready))
        b = session_state_cached(s, at, slab);
    registry_put(reg, s);
    if (!b)
        return ROUTE_WOULD_BLOCK;
    return route_blob(res, b);
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
    if ((ret = route_open_session(req, res, req->args[0], &s)))
        return route_answered(ret);
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
    else
        route_blob(res, b);
    strbuf_release(&err);
    return 0;
}

int route_state_objects(const struct request *req, struct response *res)
{
    struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
    enum { AT, CACHE, FROM, COUNT };
    static const struct route_arg args[] = {
            [AT] = ROUTE_ARG_POSITION("at"),
            [CACHE] = ROUTE_ARG("cache", INT32_MAX),
            [FROM] = ROUTE_ARG("from", UINT32_MAX),
            [COUNT] = ROUTE_ARG_RANGE("count", 1, JSON_PAGE_SLABS),
    };
    uint64_t v[] = {[AT] = 0, [CACHE] = 0, [FROM] = 0, [COUNT] = JSON_PAGE_SLABS};
    struct session *s;
    int given, ret;

    if ((given = route_query_args(req, res, args, 4, v)) < 0)
        return 0;
    if (!(given & 1 << CACHE))
        return route_error(res, 400, "bad_request", "query \"cache\": give the cache's id");
    if ((ret = open_at(req, res, given & 1 << AT, &v[AT], &s)))
        return route_answered(ret);
    /* from and count are bounded by args[], so size_t holds them where it has 32 bits */
    ret = json_position_objects(s, v[AT], (int)v[CACHE], (size_t)v[FROM], (size_t)v[COUNT], &out,
                                &err);
    route_close_session(req, s);
    if (!ret && strbuf_failed(&out))
        ret = -ENOMEM;
    if (ret)
        route_session_error(res, ret, strbuf_str(&err));
    else
        route_text(res, &out);
    strbuf_release(&out);
    strbuf_release(&err);
    return 0;
}

int route_events(const struct request *req, struct response *res)
{
    static const struct route_arg args[] = {ROUTE_ARG_POSITION("from"), ROUTE_ARG_POSITION("to")};
    uint64_t v[2] = {0, 0};
    struct session *s;
    cJSON *out = NULL;
    int given, ret;

    if ((given = route_query_args(req, res, args, 2, v)) < 0)
        return 0;
    if (!(given & 2))
        v[1] = v[0] + 100;
    if ((ret = open_range(req, res, v[0], v[1], &s)))
        return route_answered(ret);
    ret = json_position_events(s, v[0], v[1], &out);
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
    static const struct route_arg args[] = {ROUTE_ARG_POSITION("from"), ROUTE_ARG_POSITION("to"),
                                            ROUTE_ARG("points", SESSION_MAX_POINTS)};
    uint64_t v[3] = {0, UINT64_MAX, 200};
    struct session *s;
    cJSON *out = NULL;
    int ret;

    if (!list)
        list = "alloc_fastpath,alloc_slowpath,free_fastpath,free_slowpath";
    if (route_query_counters(list, items, &nr, res) < 0)
        return 0;
    if (!nr)
        return route_error(res, 400, "bad_request", "query \"counters\": name at least one");
    if (route_query_args(req, res, args, 3, v) < 0)
        return 0;
    if ((ret = open_range(req, res, v[0], v[1], &s)))
        return route_answered(ret);
    ret = json_position_series(s, items, nr, v[0], v[1], (unsigned)v[2], &out);
    route_close_session(req, s);
    if (ret)
        return route_session_error(res, ret, NULL);
    return route_json(res, 200, out);
}

/* GET /api/sessions/ID/caches?from=A&to=B&sort=COL: the caches of the range ranked. */
int route_caches(const struct request *req, struct response *res)
{
    static const struct route_arg args[] = {ROUTE_ARG_POSITION("from"), ROUTE_ARG_POSITION("to")};
    const char *sort = route_query(req, "sort");
    struct cache_rank cr = CACHE_RANK_INIT;
    struct strbuf err = STRBUF_INIT;
    uint64_t v[2] = {0, UINT64_MAX};
    struct session *s;
    cJSON *out = NULL;
    int col = sort ? cache_rank_col_lookup(sort) : CR_ALLOCS, ret;

    if (col < 0) {
        struct strbuf why = STRBUF_INIT;

        hint_append(&why, sort, cache_rank_col_name, CR_NR_COLS, "columns");
        route_error(res, 400, "bad_request", "query \"sort\": unknown column \"%.64s\"%s", sort,
                    strbuf_str(&why));
        strbuf_release(&why);
        return 0;
    }
    if (route_query_args(req, res, args, 2, v) < 0)
        return 0;
    if ((ret = open_range(req, res, v[0], v[1], &s)))
        return route_answered(ret);
    if (v[1] > session_nr_events(s))
        v[1] = session_nr_events(s);
    if (v[0] > v[1])
        v[0] = v[1];
    ret = session_caches(s, v[0], v[1], &cr, &err);
    route_close_session(req, s);
    if (!ret) {
        cache_rank_sort(&cr, (enum cache_rank_col)col);
        if (!(out = json_cache_rank(&cr, v[0], v[1], (enum cache_rank_col)col)))
            ret = -ENOMEM;
    }
    cache_rank_release(&cr);
    if (ret)
        route_session_error(res, ret, strbuf_str(&err));
    else
        route_json(res, 200, out);
    strbuf_release(&err);
    return 0;
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
    if (counter && (q.stat = hint_lookup(counter, sim_stat_name, SIM_NR_STATS)) < 0) {
        struct strbuf why = STRBUF_INIT;

        hint_append(&why, counter, sim_stat_name, SIM_NR_STATS, "counters");
        route_error(res, 400, "bad_request", "query \"counter\": unknown counter \"%.64s\"%s",
                    counter, strbuf_str(&why));
        strbuf_release(&why);
        return 0;
    }
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
    if ((ret = open_at(req, res, has_from == 0, &from, &s)))
        return route_answered(ret);
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
    int ret = route_open_session(req, res, req->args[0], &s);

    if (ret)
        return route_answered(ret);
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
    return route_text(res, &sb);
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
        if (!(body = route_body_object(req, res, keys)))
            return 0;
        if ((has_to = route_field_u64(body, "to", UINT64_MAX, &to, res)) < 0 ||
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
    if ((ret = route_open_session(req, res, req->args[0], &s))) {
        cJSON_Delete(body);
        return route_answered(ret);
    }
    if (!route_check_token(req, res, s))
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
    if (!req->may_block && target != s->position) {
        /* a move is written to the store before it is answered: a worker's job */
        route_close_session(req, s);
        cJSON_Delete(body);
        return ROUTE_WOULD_BLOCK; /* nothing changed yet */
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
    if (registry_save_position(req->app->reg, s))
        fprintf(stderr, "slublab serve: session %s: the position %" PRIu64 " was not stored\n",
                s->id, target);
    route_publish(req, s);
    step_answer(res, s, b);
out_close:
    route_close_session(req, s);
out:
    cJSON_Delete(body);
    strbuf_release(&err);
    return 0;
}

int route_follow(const struct request *req, struct response *res)
{
    uint64_t at, stored_at, stored_events;
    struct follower *f;
    struct session *s;
    int ret = route_open_session(req, res, req->args[0], &s);

    if (ret)
        return route_answered(ret);
    at = s->position;
    /* another server's presenter may have moved it since this copy was made:
     * the store has the latest (a shared store's request is on a worker) */
    if (req->may_block && store_shared(req->app->store) &&
        !store_session_where(req->app->store, s->id, &stored_at, &stored_events) &&
        stored_events == session_nr_events(s) && stored_at <= stored_events)
        at = stored_at;
    f = follow_attach(req->app->follow, s->id, at, session_nr_events(s), session_nr_ops(s));
    if (f) { /* the state there, when a page rendered it: the first message carries it */
        struct blob *state = session_state_cached(s, at, 0);

        follow_offer_state(req->app->follow, s->id, at, state);
        blob_put(state);
    }
    route_close_session(req, s);
    return route_stream(res, f);
}
