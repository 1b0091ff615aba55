/*
 * routes_sessions.c: the session handlers that make, list, change and
 * delete sessions (see routes.h, docs/api.md); what they answer about a
 * position is routes_positions.c.
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

#include "base/blob.h"
#include "base/ids.h"
#include "http/app.h"
#include "http/follow.h"
#include "http/lecture.h"
#include "http/relay.h"
#include "present/json_session.h"
#include "present/json_state.h"
#include "scenario/scenario_write.h"
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

    if (!route_check_id(res, ROUTE_ID_SESSION, id))
        return OPEN_ERROR;
    err = registry_get(reg, id, req->may_block, &s);
    if (err == -EAGAIN)
        return ROUTE_WOULD_BLOCK;
    if (err) {
        route_session_error(res, err, err == -ENOENT ? "no such session" : NULL);
        return OPEN_ERROR;
    }
    if (req->may_block) {
        session_lock(s);
    } else if (!session_trylock(s)) {
        registry_put(reg, s);
        return ROUTE_WOULD_BLOCK;
    }
    if (!s->ready) {
        err = s->build_err;
        session_unlock(s);
        registry_put(reg, s);
        if (!err)
            return ROUTE_WOULD_BLOCK;
        if (err == -EBUSY) { /* no room to rebuild it now */
            route_session_error(res, err, NULL);
            return OPEN_ERROR;
        }
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
    session_unlock(s);
    registry_put(req->app->reg, s);
}

int route_list(const struct request *req, struct response *res,
               int (*list)(struct store *, unsigned, unsigned, cJSON **), const char *failed,
               bool (*extra)(const struct request *, cJSON *))
{
    unsigned limit, offset;
    cJSON *out = NULL;
    int err;

    if (!route_query_window(req, res, &limit, &offset))
        return 0;
    if (!req->may_block)
        return ROUTE_WOULD_BLOCK;
    if ((err = list(req->app->store, limit, offset, &out)))
        return route_session_error(res, err, failed);
    if (extra && !extra(req, out)) {
        cJSON_Delete(out);
        out = NULL;
    }
    return route_json(res, 200, out);
}

bool route_check_token(const struct request *req, struct response *res, const struct session *s)
{
    if (route_token_is(req, s->token))
        return true;
    route_forbidden(res, "changing this session needs its write token");
    return false;
}

void route_publish(const struct request *req, struct session *s)
{
    /* the state there, when the presenter's page rendered it already: sent
     * to the followers with the position, so that none of them asks for it */
    struct blob *state = session_state_cached(s, s->position, 0);

    follow_publish_state(req->app->follow, s->id, s->id, s->position, session_nr_events(s),
                         session_nr_ops(s), state);
    lecture_publish(req->app->lectures, req->app->follow, s->id, s->position, session_nr_events(s),
                    session_nr_ops(s), state);
    blob_put(state);
    relay_session(req->app, s->id, s->position, session_nr_events(s), session_nr_ops(s));
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

/* GET /api/sessions/{id}'s answer for @s (held and locked), or NULL on OOM. */
static cJSON *session_description(const struct request *req, struct session *s)
{
    cJSON *o = json_session_info(s);

    if (o && (!json_put(o, "followers", json_uint(follow_count(req->app->follow, s->id))) ||
              !json_put(o, "links", session_links(s->id)))) {
        cJSON_Delete(o);
        o = NULL;
    }
    return o;
}

/*
 * POST /api/sessions?first=1: what a page opens the new session @s (held,
 * registered) with, put in @o: "session", GET /api/sessions/{id}'s answer,
 * and "state", GET .../state?at=0's.  False on OOM or when the state
 * cannot be made (the client then asks for both as before).
 */
static bool put_first(const struct request *req, struct session *s, cJSON *o)
{
    struct strbuf err = STRBUF_INIT;
    struct blob *b = NULL;
    cJSON *info;
    bool ok;
    int ret;

    session_lock(s);
    info = session_description(req, s);
    ret = json_position_state(s, 0, 0, &b, &err);
    session_unlock(s);
    strbuf_release(&err);
    if (ret) {
        cJSON_Delete(info);
        info = NULL;
    }
    ok = info && json_put(o, "session", info) && json_put(o, "state", cJSON_CreateRaw(b->text));
    if (b)
        blob_put(b);
    return ok;
}

/*
 * The answer to a new session (created, forked, opened): 201 with its
 * token; with @first (POST /api/sessions?first=1), put_first()'s too.
 */
static int created(const struct request *req, struct response *res, struct session *s, cJSON *extra,
                   bool first)
{
    cJSON *o = extra ? extra : cJSON_CreateObject();

    if (o && (!json_put(o, "id", cJSON_CreateString(s->id)) ||
              !json_put(o, "token", cJSON_CreateString(s->token)) ||
              !json_put(o, "parent",
                        s->parent[0] ? cJSON_CreateString(s->parent) : cJSON_CreateNull()) ||
              !json_put(o, "events", json_uint(session_nr_events(s))) ||
              !json_put(o, "ops", json_uint(session_nr_ops(s))) ||
              !json_put(o, "position", json_uint(s->position)) ||
              !json_put(o, "warnings", json_uint(s->run->rp.nr_warnings_total)) ||
              !json_put(o, "expects", json_session_expects(s)) ||
              !json_put(o, "links", session_links(s->id)))) {
        cJSON_Delete(o);
        o = NULL;
    }
    if (o && first && !put_first(req, s, o)) {
        cJSON_DeleteItemFromObjectCaseSensitive(o, "session");
        cJSON_DeleteItemFromObjectCaseSensitive(o, "state");
    }
    return route_json(res, 201, o);
}

/* Register @s (built, not locked) and answer 201 (created()); @s is consumed. */
static int register_and_answer(const struct request *req, struct response *res, struct session *s,
                               cJSON *extra, bool first)
{
    int err = registry_add(req->app->reg, s);

    if (err) {
        cJSON_Delete(extra);
        return route_session_error(res, err, err == -EBUSY ? NULL : "cannot store the session");
    }
    created(req, res, s, extra, first);
    registry_put(req->app->reg, s);
    return 0;
}

int route_session_create(const struct request *req, struct response *res)
{
    static const char *const keys[] = {"scenario", "seed", "kernel", "model",
                                       "variants", "ops",  NULL};
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
    uint64_t want_first = 0;
    cJSON *body;
    int first, ret;

    if ((first = route_query_u64(req, res, "first", 1, &want_first)) < 0)
        return 0;
    if ((ret = route_creating(req, res)))
        return route_answered(ret);
    if (!(body = route_body_object(req, res, keys)))
        return 0;
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
    s->run->settings = st;
    /* without operations of its own, it shares the run of any session with the same inputs */
    ret = ops ? session_build(s, &err) : registry_build(app->reg, s, &err);
    if (ret || (ops && (ret = session_append(s, ops, &ar, &err)))) {
        route_session_error(res, ret, strbuf_str(&err));
        goto out;
    }
    if (!row && store_scenario_put(app->store, s->run->scn->name, text, len, false, &row)) {
        route_error(res, 500, "internal", "cannot store the scenario");
        goto out;
    }
    s->scenario_id = row;
    register_and_answer(req, res, s, NULL, first == 0 && want_first);
    s = NULL;
out:
    session_free(s);
    cJSON_free(inline_text);
    cJSON_Delete(body);
    strbuf_release(&err);
    return 0;
}

/* The live sessions and their memory, after the stored list. */
static bool session_list_live(const struct request *req, cJSON *out)
{
    struct registry_counts c;
    cJSON *mem = NULL;

    registry_counts(req->app->reg, &c);
    return json_put(out, "live", json_uint(c.runs)) &&
           json_put(out, "max_live", json_uint(registry_max_live(req->app->reg))) &&
           json_put(out, "sessions_live", json_uint(c.sessions)) &&
           json_put(out, "memory", mem = cJSON_CreateObject()) &&
           json_put(mem, "used", json_uint(c.charged)) &&
           json_put(mem, "budget", json_uint(c.budget));
}

int route_session_list(const struct request *req, struct response *res)
{
    return route_list(req, res, store_session_list, "cannot list the sessions", session_list_live);
}

int route_session_get(const struct request *req, struct response *res)
{
    struct session *s;
    cJSON *o;
    int ret = open_session(req, res, &s);

    if (ret)
        return route_answered(ret);
    o = session_description(req, s);
    route_close_session(req, s);
    return route_json(res, 200, o);
}

int route_session_delete(const struct request *req, struct response *res)
{
    struct store_session ss;
    bool allowed;
    int err;

    if (!route_check_id(res, ROUTE_ID_SESSION, req->args[0]))
        return 0;
    if (!req->may_block)
        return ROUTE_WOULD_BLOCK;
    if ((err = store_session_load(req->app->store, req->args[0], &ss)))
        return route_session_error(res, err, "no such session");
    allowed = route_token_is(req, ss.token);
    store_session_free(&ss);
    if (!allowed)
        return route_forbidden(res, "deleting this session needs its write token");
    if ((err = registry_delete(req->app->reg, req->args[0])))
        return route_session_error(res, err, "no such session");
    res->status = 204;
    return 0;
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
    if (!ret) {
        /* the child's inputs are a prefix of s's: while s stays locked, s's
         * checkpoints serve the child's build instead of new copies */
        child->run->base = s->run;
        ret = ops ? session_build(child, &err) : registry_build(req->app->reg, child, &err);
    }
    route_close_session(req, s);
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
        register_and_answer(req, res, child, extra, false);
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
    if (!route_check_token(req, res, s)) {
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
    if (has_at == 0 && !route_check_end(res, "at", at, end)) {
        route_close_session(req, s);
        goto out;
    }
    if (has_at == 0 && at < end) {
        fork_session(req, res, s, at, arr); /* releases s */
        goto out;
    }
    if (registry_gone(req->app->reg, s)) {
        registry_drop(req->app->reg, s);
        route_close_session(req, s);
        route_error(res, 404, "not_found", "no such session (it was deleted)");
        goto out;
    }
    /* a run shared with other sessions is copied for this one first */
    if (!(ret = registry_own(req->app->reg, s, &err)))
        ret = session_append(s, arr, &ar, &err);
    if (ret) {
        route_close_session(req, s);
        route_session_error(res, ret, strbuf_str(&err));
        goto out;
    }
    if ((ret = registry_save_batch(req->app->reg, s, s->run->nr_batches - 1))) {
        /* a DELETE that came while the operations ran is a 404, not a failure */
        bool gone = registry_gone(req->app->reg, s);

        registry_drop(req->app->reg, s);
        route_close_session(req, s);
        if (gone)
            route_error(res, 404, "not_found", "no such session (it was deleted)");
        else if (ret == -EEXIST) /* a server sharing the store appended first */
            route_error(res, 409, "conflict",
                        "another server appended to this session meanwhile: "
                        "read it again and retry");
        else
            route_error(res, 500, "internal", "cannot store the operations");
        goto out;
    }
    route_publish(req, s);
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

/* The choice point the event a session_events() call passes carries, if any. */
struct step_choice {
    bool found;
    struct sim_choice c;
};

static void step_choice_of(const struct sim_event *ev, void *arg)
{
    struct step_choice *sc = arg;

    if (ev->choice) {
        sc->found = true;
        sc->c = *ev->choice;
    }
}

/*
 * The run the kernel might have made instead: a new session of all of @s's
 * inputs (held and locked; unlocked and released here) whose scenario takes
 * @option at the choice point of the step to @at (the event at @at - 1),
 * positioned at @at (docs/api.md, "choice forks").
 */
static int fork_choice(const struct request *req, struct response *res, struct session *s,
                       uint64_t at, uint64_t option)
{
    struct strbuf err = STRBUF_INIT;
    struct step_choice sc = {0};
    struct sim_choice_pin pin;
    struct session *child = NULL;
    uint64_t from = at ? at - 1 : 0, to = at;
    int64_t row = 0;
    char *text = NULL, said[sizeof(sc.c.text)];
    cJSON *extra = NULL, *ch = NULL;
    int ret;

    if (at && (ret = session_events(s, &from, &to, step_choice_of, &sc))) {
        route_close_session(req, s);
        return route_session_error(res, ret, NULL);
    }
    if (!sc.found) {
        route_close_session(req, s);
        return route_error(res, 422, "unprocessable",
                           "the step to %" PRIu64 " is at no choice point of the kernel's", at);
    }
    if (option >= sc.c.nr_options) {
        route_close_session(req, s);
        return route_error(res, 400, "bad_request",
                           "key \"option\": the choice at step %" PRIu64 " has %" PRIu64
                           " options, numbered from 0",
                           at, sc.c.nr_options);
    }
    pin = (struct sim_choice_pin){sc.c.op, sc.c.kind, sc.c.nth, option};
    ret = scenario_write_choice(s->run->scenario_text, s->run->scenario_len, &pin, &text);
    if (!ret)
        ret = (child = session_new(&req->app->cfg.lim)) ? 0 : -ENOMEM;
    if (!ret && !(ret = session_fork_inputs(s, session_nr_events(s), child)))
        ret = session_set_scenario(child, text, strlen(text), "scenario");
    route_close_session(req, s);
    if (!ret && !(ret = registry_build(req->app->reg, child, &err)) &&
        store_scenario_put(req->app->store, child->run->scn->name, text, strlen(text), false, &row))
        ret = -EIO;
    if (!ret) {
        child->scenario_id = row;
        child->position = at < session_nr_events(child) ? at : session_nr_events(child);
        sim_choice_text(&sc.c, option, said, sizeof(said));
        if (!(extra = cJSON_CreateObject()) || !json_put(extra, "forked_at", json_uint(at)) ||
            !json_put(extra, "choice", ch = cJSON_CreateObject()) ||
            !json_put(ch, "kind", json_str(sim_choice_name(pin.kind))) ||
            !json_put(ch, "op", json_uint(pin.op)) || !json_put(ch, "nth", json_uint(pin.nth)) ||
            !json_put(ch, "option", json_uint(option)) || !json_put(ch, "text", json_str(said)))
            ret = -ENOMEM;
    }
    cJSON_free(text);
    if (ret) {
        cJSON_Delete(extra);
        session_free(child);
        route_session_error(res, ret == -EIO ? -ENOMEM : ret,
                            ret == -EIO ? "cannot store the scenario" : strbuf_str(&err));
    } else {
        register_and_answer(req, res, child, extra, false);
    }
    strbuf_release(&err);
    return 0;
}

int route_fork(const struct request *req, struct response *res)
{
    static const char *const keys[] = {"at", "option", NULL};
    uint64_t at = 0, option = 0;
    int has_at = 1, has_option = 1, ret;
    struct session *s;
    cJSON *body = NULL;

    if ((ret = route_creating(req, res)))
        return route_answered(ret);
    if (req->body_len) {
        if (!(body = route_body_object(req, res, keys)))
            return 0;
        if ((has_at = route_field_u64(body, "at", UINT64_MAX, &at, res)) >= 0)
            has_option = route_field_u64(body, "option", UINT64_MAX, &option, res);
        cJSON_Delete(body);
        if (has_at < 0 || has_option < 0)
            return 0;
    }
    if ((ret = open_session(req, res, &s)))
        return 0;
    if (has_at)
        at = s->position;
    if (!route_check_end(res, "at", at, session_nr_events(s))) {
        route_close_session(req, s);
        return 0;
    }
    if (!has_option)
        return fork_choice(req, res, s, at, option);
    return fork_session(req, res, s, at, NULL);
}
