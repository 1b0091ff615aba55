/*
 * routes_snapshots.c: snapshots for reviews, and diffs (see routes.h,
 * docs/api.md).
 *
 * A snapshot stores its inputs (the scenario text, the settings, the
 * batches cut at the position, as a fork would) next to the state the
 * engine rendered then.  Opening one replays the inputs with today's
 * engine: when the result matches, the state is "verified"; when it does
 * not, the stored state is shown read-only with a warning that says why
 * (another engine version, or a replay that fails).  A snapshot has its
 * own token, needed only to delete it; reading, exporting, diffing and
 * opening it as a new session need none.
 */
#include "http/routes.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ids.h"
#include "base/json.h"
#include "http/app.h"
#include "present/diff.h"
#include "present/json_session.h"
#include "present/json_state.h"
#include "scenario/scenario.h"
#include "session/oplog_json.h"
#include "session/registry.h"
#include "session/session.h"
#include "session/store.h"

#define SNAPSHOT_ID_LEN    8
#define SNAPSHOT_TITLE_MAX 200
#define SNAPSHOT_NOTE_MAX  4000
#define EXPORT_FORMAT      "slublab-snapshot"
#define EXPORT_VERSION     1

/* The batches of @s as snapshot JSON: [{"ops": [...] or null, "limit": N or null}]. */
static cJSON *batches_json(const struct session *s)
{
    cJSON *arr = cJSON_CreateArray();
    size_t i;

    for (i = 0; arr && i < s->run->nr_batches; i++) {
        const struct session_batch *b = &s->run->batches[i];
        cJSON *o = cJSON_CreateObject();

        if (!json_push(arr, o) ||
            !json_put(o, "ops", b->ops ? cJSON_Parse(b->ops) : cJSON_CreateNull()) ||
            !json_put(o, "limit",
                      b->limit == REPLAY_NO_LIMIT ? cJSON_CreateNull() : json_uint(b->limit)))
            return json_drop(arr);
    }
    return arr;
}

/* Give @s the batches of snapshot JSON @text; SESSION_EBADINPUT when malformed. */
static int batches_parse(struct session *s, const char *text, struct strbuf *err)
{
    cJSON *arr = cJSON_Parse(text), *b;
    int ret = 0;

    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < 1) {
        strbuf_puts(err, "batches: expected a non-empty array");
        cJSON_Delete(arr);
        return SESSION_EBADINPUT;
    }
    cJSON_ArrayForEach(b, arr)
    {
        const cJSON *ops = cJSON_GetObjectItemCaseSensitive(b, "ops");
        const cJSON *limit = cJSON_GetObjectItemCaseSensitive(b, "limit");
        uint64_t lim = REPLAY_NO_LIMIT;
        char *t = NULL;

        if (!cJSON_IsObject(b) || (b == arr->child ? !cJSON_IsNull(ops) : !cJSON_IsArray(ops)) ||
            (limit && !cJSON_IsNull(limit) &&
             (!cJSON_IsNumber(limit) || limit->valuedouble < 0 || limit->valuedouble > 9e15))) {
            strbuf_puts(err, "batches: each is {\"ops\": [...], \"limit\": N or null}, the first "
                             "with \"ops\": null");
            ret = SESSION_EBADINPUT;
            break;
        }
        if (cJSON_IsNumber(limit))
            lim = (uint64_t)limit->valuedouble;
        if (cJSON_IsArray(ops) && !(t = cJSON_PrintUnformatted(ops))) {
            ret = -ENOMEM;
            break;
        }
        ret = session_add_batch(s, t, lim);
        cJSON_free(t);
        if (ret)
            break;
    }
    cJSON_Delete(arr);
    return ret;
}

/* A session built from the inputs of @sn (not registered); with @reg, it
 * shares the run of a session with the same inputs (registry_build()). */
static int snapshot_build(const struct app *app, struct registry *reg,
                          const struct store_snapshot *sn, struct session **out,
                          struct strbuf *err)
{
    struct session *s = session_new(&app->cfg.lim);
    cJSON *settings = cJSON_Parse(sn->settings);
    int ret;

    ret = s ? session_set_scenario(s, sn->scenario_text, strlen(sn->scenario_text),
                                   sn->scenario_name)
            : -ENOMEM;
    if (!ret)
        ret = session_settings_parse(settings, &s->run->settings, err);
    if (!ret)
        ret = batches_parse(s, sn->batches, err);
    if (!ret && sn->log[0]) { /* batch 0 replays the trace's op log */
        snprintf(s->run->log_id, sizeof(s->run->log_id), "%s", sn->log);
        s->run->log_store = app->store;
    }
    if (!ret)
        ret = reg ? registry_build(reg, s, err) : session_build(s, err);
    cJSON_Delete(settings);
    if (ret) {
        session_free(s);
        return ret;
    }
    s->scenario_id = sn->scenario;
    s->position = sn->position <= session_nr_events(s) ? sn->position : session_nr_events(s);
    *out = s;
    return 0;
}

/* Snapshot @id into @sn (release with store_snapshot_free()): 0, or -1 after a 404 or a store
 * failure. */
static int load_snapshot(const struct request *req, struct response *res, const char *id,
                         struct store_snapshot *sn)
{
    int err;

    if (!route_check_id(res, ROUTE_ID_SNAPSHOT, id))
        return -1;
    if ((err = store_snapshot_load(req->app->store, id, sn))) {
        route_session_error(res, err, "no such snapshot");
        return -1;
    }
    return 0;
}

/* The path's snapshot exists and the request holds its token: 0, or -1
 * after a 404, or a 403 saying @what needs the token. */
static int check_snapshot_token(const struct request *req, struct response *res, const char *what)
{
    struct store_snapshot sn;
    bool allowed;

    if (load_snapshot(req, res, req->args[0], &sn))
        return -1;
    allowed = route_token_is(req, sn.token);
    store_snapshot_free(&sn);
    if (allowed)
        return 0;
    route_forbidden(res, what);
    return -1;
}

static cJSON *snapshot_links(const char *id)
{
    static const char *const links[][2] = {
            {"self", "/api/snapshots/%s"},
            {"export", "/api/snapshots/%s/export"},
            {"permalink", "/?snapshot=%s"},
    };

    return route_links(id, links, sizeof(links) / sizeof(links[0]));
}

/* Store @sn under a fresh id (or its own when @keep_id); answer 201. */
static int snapshot_store(struct app *app, struct response *res, struct store_snapshot *sn,
                          bool keep_id)
{
    int err = 0, attempt;
    cJSON *o;

    if (ids_token(sn->token))
        return route_error(res, 500, "internal", "no randomness");
    for (attempt = 0; attempt < 8; attempt++) {
        if (!keep_id && ids_random(sn->id, SNAPSHOT_ID_LEN))
            return route_error(res, 500, "internal", "no randomness");
        err = store_snapshot_create(app->store, sn);
        if (err != -EEXIST || keep_id)
            break;
    }
    if (err)
        return route_session_error(res, err, "cannot store the snapshot");
    o = cJSON_CreateObject();
    if (o && (!json_put(o, "id", cJSON_CreateString(sn->id)) ||
              !json_put(o, "token", cJSON_CreateString(sn->token)) ||
              !json_put(o, "position", json_uint(sn->position)) ||
              !json_put(o, "links", snapshot_links(sn->id)))) {
        cJSON_Delete(o);
        o = NULL;
    }
    return route_json(res, 201, o);
}

int route_snapshot_create(const struct request *req, struct response *res)
{
    static const char *const keys[] = {"session", "at", "title", "note", NULL};
    struct strbuf err = STRBUF_INIT;
    struct store_snapshot sn;
    struct session *s = NULL, *cut = NULL;
    struct blob *b = NULL;
    const cJSON *id, *title, *note;
    cJSON *body, *settings = NULL, *batches = NULL;
    uint64_t at = 0;
    int has_at = 1, ret;

    memset(&sn, 0, sizeof(sn));
    if ((ret = route_creating(req, res)))
        return route_answered(ret);
    if (!(body = route_body_object(req, res, keys)))
        return 0;
    if ((has_at = route_field_u64(body, "at", UINT64_MAX, &at, res)) < 0)
        goto out;
    id = cJSON_GetObjectItemCaseSensitive(body, "session");
    title = cJSON_GetObjectItemCaseSensitive(body, "title");
    note = cJSON_GetObjectItemCaseSensitive(body, "note");
    if (note && (!cJSON_IsString(note) || strlen(note->valuestring) > SNAPSHOT_NOTE_MAX)) {
        route_error(res, 400, "bad_request", "key \"note\": expected a string of at most %d bytes",
                    SNAPSHOT_NOTE_MAX);
        goto out;
    }
    if (!cJSON_IsString(id)) {
        route_error(res, 400, "bad_request", "key \"session\": expected a session id");
        goto out;
    }
    if (title && (!cJSON_IsString(title) || strlen(title->valuestring) > SNAPSHOT_TITLE_MAX)) {
        route_error(res, 400, "bad_request", "key \"title\": expected a string of at most %d bytes",
                    SNAPSHOT_TITLE_MAX);
        goto out;
    }
    if ((ret = route_open_session(req, res, id->valuestring, &s)))
        goto out;
    if (has_at)
        at = s->position;
    if (!route_check_end(res, "at", at, session_nr_events(s)))
        goto out_close;
    if (!(cut = session_new(&s->run->lim)) ||
        (ret = session_fork_inputs(s, session_nr_events(s), cut)) ||
        (ret = json_position_state(s, at, 0, &b, &err))) {
        route_session_error(res, cut ? ret : -ENOMEM, strbuf_str(&err));
        goto out_close;
    }
    settings = session_settings_json(s);
    batches = batches_json(cut);
    snprintf(sn.session, sizeof(sn.session), "%s", s->id);
    sn.scenario = s->scenario_id;
    sn.position = at;
    route_close_session(req, s);
    s = NULL;
    sn.settings = settings ? cJSON_PrintUnformatted(settings) : NULL;
    sn.batches = batches ? cJSON_PrintUnformatted(batches) : NULL;
    sn.title = title ? title->valuestring : NULL;
    sn.note = note && note->valuestring[0] ? note->valuestring : NULL;
    snprintf(sn.log, sizeof(sn.log), "%s", cut->run->log_id);
    sn.engine = (char *)(uintptr_t)SIM_VERSION;
    sn.state = b->text;
    if (!sn.settings || !sn.batches) {
        route_error(res, 503, "busy", "out of memory");
        goto out_free;
    }
    snapshot_store(req->app, res, &sn, false);
out_free:
    cJSON_free(sn.settings);
    cJSON_free(sn.batches);
    goto out;
out_close:
    route_close_session(req, s);
out:
    blob_put(b);
    session_free(cut);
    cJSON_Delete(settings);
    cJSON_Delete(batches);
    cJSON_Delete(body);
    strbuf_release(&err);
    return 0;
}

int route_snapshot_list(const struct request *req, struct response *res)
{
    return route_list(req, res, store_snapshot_list, "cannot list the snapshots", NULL);
}

#define SNAPSHOT_TOKENS_MAX 1000 /* tokens one list request may hold */

/* POST /api/snapshots/list {"tokens":{"ID":"TOKEN",...}}: the published
 * snapshots and those whose tokens the caller holds (a browser's own). */
int route_snapshot_list_for(const struct request *req, struct response *res)
{
    static const char *const keys[] = {"tokens", NULL};
    unsigned limit, offset;
    const cJSON *tokens, *t;
    cJSON *body, *out = NULL;
    int err;

    if (!route_query_window(req, res, &limit, &offset))
        return 0;
    if (!req->may_block)
        return ROUTE_WOULD_BLOCK;
    if (!(body = route_body_object(req, res, keys)))
        return 0;
    tokens = cJSON_GetObjectItemCaseSensitive(body, "tokens");
    if (!cJSON_IsObject(tokens) || cJSON_GetArraySize(tokens) > SNAPSHOT_TOKENS_MAX) {
        route_error(res, 400, "bad_request",
                    "key \"tokens\": expected an object of at most %d snapshot ids and their "
                    "tokens",
                    SNAPSHOT_TOKENS_MAX);
        goto out;
    }
    cJSON_ArrayForEach(t, tokens)
    {
        if (!cJSON_IsString(t)) {
            route_error(res, 400, "bad_request", "key \"tokens\": snapshot %s: expected a token",
                        t->string);
            goto out;
        }
    }
    if ((err = store_snapshot_list_for(req->app->store, tokens, limit, offset, &out)))
        route_session_error(res, err, "cannot list the snapshots");
    else
        route_json(res, 200, out);
out:
    cJSON_Delete(body);
    return 0;
}

/* PUT /api/snapshots/ID/published {"published":true|false}, with the
 * snapshot's token: list it for everyone, or take it back. */
int route_snapshot_publish(const struct request *req, struct response *res)
{
    static const char *const keys[] = {"published", NULL};
    const cJSON *p;
    cJSON *body, *o;
    int err;

    if (!req->may_block)
        return ROUTE_WOULD_BLOCK;
    if (!(body = route_body_object(req, res, keys)))
        return 0;
    p = cJSON_GetObjectItemCaseSensitive(body, "published");
    if (!cJSON_IsBool(p)) {
        route_error(res, 400, "bad_request", "key \"published\": expected true or false");
        goto out;
    }
    if (check_snapshot_token(req, res, "publishing this snapshot needs its token"))
        goto out;
    if ((err = store_snapshot_set_published(req->app->store, req->args[0], cJSON_IsTrue(p)))) {
        route_session_error(res, err, "no such snapshot");
        goto out;
    }
    o = cJSON_CreateObject();
    if (o && (!json_put(o, "id", cJSON_CreateString(req->args[0])) ||
              !json_put(o, "published", cJSON_CreateBool(cJSON_IsTrue(p))))) {
        cJSON_Delete(o);
        o = NULL;
    }
    route_json(res, 200, o);
out:
    cJSON_Delete(body);
    return 0;
}

/* Common keys of a snapshot's description. */
static bool describe(cJSON *o, const struct store_snapshot *sn)
{
    return json_put(o, "id", cJSON_CreateString(sn->id)) &&
           json_put(o, "title", cJSON_CreateString(sn->title)) &&
           json_put(o, "note", sn->note ? cJSON_CreateString(sn->note) : cJSON_CreateNull()) &&
           json_put(o, "created", cJSON_CreateString(sn->created)) &&
           json_put(o, "session",
                    sn->session[0] ? cJSON_CreateString(sn->session) : cJSON_CreateNull()) &&
           json_put(o, "scenario", cJSON_CreateString(sn->scenario_name)) &&
           json_put(o, "settings", cJSON_Parse(sn->settings)) &&
           json_put(o, "position", json_uint(sn->position));
}

/*
 * Replay @sn and compare with its stored state: *status "verified" (the
 * same bytes) or "stored" (they differ, or it no longer replays), with why
 * in @warning.  The verdict is kept in the store, so it is computed once
 * per engine version, not on every GET (a snapshot of millions of
 * operations takes a second to replay); app->check_lock makes concurrent
 * first GETs wait for one replay instead of each doing it.
 */
/*
 * Whether state answer @now shows what @stored did.  Answers grew an
 * object-name table ("names", after "state") after snapshots were first
 * kept; one stored without it is the same state when @now minus its names
 * is @stored.
 */
static bool snapshot_same_state(const char *now, const char *stored)
{
    const char *names = NULL, *p;
    size_t head;

    if (!strcmp(now, stored))
        return true;
    for (p = strstr(now, ",\"names\":{"); p; p = strstr(p + 1, ",\"names\":{"))
        names = p;
    if (!names)
        return false;
    head = (size_t)(names - now);
    return strlen(stored) == head + 1 && !strncmp(now, stored, head) && stored[head] == '}';
}

static int snapshot_check(const struct request *req, struct store_snapshot *sn,
                          struct strbuf *warning, const char **status)
{
    struct strbuf err = STRBUF_INIT;
    struct session *s = NULL;
    struct blob *b = NULL;
    bool same_engine = !strcmp(sn->engine, SIM_VERSION);
    int ret;

    ret = snapshot_build(req->app, NULL, sn, &s, &err);
    if (!ret)
        ret = json_position_state(s, sn->position, 0, &b, &err);
    if (ret == -ENOMEM) {
        blob_put(b);
        session_free(s);
        strbuf_release(&err);
        return -ENOMEM;
    }
    if (!ret && snapshot_same_state(b->text, sn->state)) {
        *status = "verified";
        if (!same_engine)
            strbuf_printf(warning, "taken with engine %s; engine %s replays it identically",
                          sn->engine, SIM_VERSION);
    } else {
        *status = "stored";
        if (ret)
            strbuf_printf(warning,
                          "the inputs no longer replay (%s): showing the stored state, "
                          "read-only",
                          strbuf_str(&err));
        else if (!same_engine)
            strbuf_printf(warning,
                          "taken with engine %s; engine %s replays it differently: "
                          "showing the stored state, read-only",
                          sn->engine, SIM_VERSION);
        else
            strbuf_printf(warning, "replaying gives a different state with the same engine "
                                   "version: showing the stored state, read-only");
    }
    blob_put(b);
    session_free(s);
    strbuf_release(&err);
    if (strbuf_failed(warning))
        return -ENOMEM;
    store_snapshot_set_check(req->app->store, sn->id, SIM_VERSION, *status,
                             warning->len ? strbuf_str(warning) : NULL);
    return 0;
}

int route_snapshot_get(const struct request *req, struct response *res)
{
    struct strbuf warning = STRBUF_INIT;
    struct store_snapshot sn;
    const char *status = NULL; /* snapshot_check()'s, else the stored check's below */
    cJSON *o, *eng = NULL;

    if (!req->may_block)
        return ROUTE_WOULD_BLOCK;
    if (load_snapshot(req, res, req->args[0], &sn))
        return 0;
    if (!sn.check_engine || strcmp(sn.check_engine, SIM_VERSION)) {
        pthread_mutex_lock(&req->app->check_lock);
        store_snapshot_free(&sn);
        if (load_snapshot(req, res, req->args[0], &sn)) { /* deleted meanwhile */
            pthread_mutex_unlock(&req->app->check_lock);
            return 0;
        }
        if ((!sn.check_engine || strcmp(sn.check_engine, SIM_VERSION)) &&
            snapshot_check(req, &sn, &warning, &status)) {
            pthread_mutex_unlock(&req->app->check_lock);
            store_snapshot_free(&sn);
            strbuf_release(&warning);
            return route_error(res, 503, "busy", "out of memory");
        }
        pthread_mutex_unlock(&req->app->check_lock);
    }
    if (!status) { /* not checked now: the stored check is this engine's */
        status = sn.check_status;
        strbuf_reset(&warning);
        if (sn.check_warning)
            strbuf_puts(&warning, sn.check_warning);
    }
    o = cJSON_CreateObject();
    if (o &&
        (!describe(o, &sn) || !json_put(o, "published", cJSON_CreateBool(sn.published)) ||
         !json_put(o, "engine", eng = cJSON_CreateObject()) ||
         !json_put(eng, "stored", cJSON_CreateString(sn.engine)) ||
         !json_put(eng, "current", cJSON_CreateString(SIM_VERSION)) ||
         !json_put(o, "status", cJSON_CreateString(status)) ||
         !cJSON_AddBoolToObject(o, "read_only", strcmp(status, "verified") != 0) ||
         !json_put(o, "warning",
                   warning.len ? cJSON_CreateString(strbuf_str(&warning)) : cJSON_CreateNull()) ||
         !json_put(o, "state", cJSON_Parse(sn.state)) ||
         !json_put(o, "links", snapshot_links(sn.id)))) {
        cJSON_Delete(o);
        o = NULL;
    }
    route_json(res, 200, o);
    store_snapshot_free(&sn);
    strbuf_release(&warning);
    return 0;
}

int route_snapshot_delete(const struct request *req, struct response *res)
{
    int err;

    if (!req->may_block)
        return ROUTE_WOULD_BLOCK;
    if (check_snapshot_token(req, res, "deleting this snapshot needs its token"))
        return 0;
    if ((err = store_snapshot_delete(req->app->store, req->args[0])))
        return route_session_error(res, err, "no such snapshot");
    res->status = 204;
    return 0;
}

/* The export document of @sn in *out: its inputs (with the op log a trace's
 * batch 0 replays, docs/export.md), note and state.  0, -ENOMEM, or the
 * store's error reading the log. */
static int export_json(struct store *st, const struct store_snapshot *sn, cJSON **out)
{
    cJSON *o = cJSON_CreateObject(), *log = NULL;
    int ret = sn->log[0] ? oplog_json_export(st, sn->log, &log) : 0;

    if (ret) {
        cJSON_Delete(o);
        return ret;
    }
    if (!o || !json_put(o, "format", cJSON_CreateString(EXPORT_FORMAT)) ||
        !json_put(o, "version", json_uint(EXPORT_VERSION)) || !describe(o, sn) ||
        !json_put(o, "engine", cJSON_CreateString(sn->engine)) ||
        !json_put(o, "scenario_text", cJSON_Parse(sn->scenario_text)) ||
        !json_put(o, "batches", cJSON_Parse(sn->batches)) || (log && !json_put(o, "log", log)) ||
        !json_put(o, "state", cJSON_Parse(sn->state))) {
        cJSON_Delete(o);
        return -ENOMEM;
    }
    *out = o;
    return 0;
}

int route_snapshot_export(const struct request *req, struct response *res)
{
    struct store_snapshot sn;
    cJSON *o = NULL;
    int ret;

    if (!req->may_block)
        return ROUTE_WOULD_BLOCK;
    if (load_snapshot(req, res, req->args[0], &sn))
        return 0;
    if ((ret = export_json(req->app->store, &sn, &o)))
        route_session_error(res, ret == -ENOENT ? SESSION_EBROKEN : ret,
                            "the snapshot's op log cannot be read from the store");
    else
        route_json(res, 200, o);
    if (res->status == 200)
        snprintf(res->disposition, sizeof(res->disposition),
                 "attachment; filename=\"slublab-snapshot-%s.json\"", sn.id);
    store_snapshot_free(&sn);
    return 0;
}

/* Do two JSON texts hold the same value? */
static bool same_json(const char *a, const char *b)
{
    cJSON *ja = cJSON_Parse(a), *jb = cJSON_Parse(b);
    bool same = ja && jb && cJSON_Compare(ja, jb, true);

    cJSON_Delete(ja);
    cJSON_Delete(jb);
    return same;
}

/* Are the stored @a and the imported @b the same snapshot? */
static bool same_snapshot(const struct store_snapshot *a, const struct store_snapshot *b)
{
    return a->position == b->position && same_json(a->state, b->state) &&
           same_json(a->scenario_text, b->scenario_text) && same_json(a->batches, b->batches) &&
           same_json(a->settings, b->settings);
}

int route_snapshot_import(const struct request *req, struct response *res)
{
    static const char *const keys[] = {"format",   "version",  "id",      "title",
                                       "note",     "created",  "session", "scenario",
                                       "settings", "position", "engine",  "scenario_text",
                                       "batches",  "log",      "state",   NULL};
    struct strbuf err = STRBUF_INIT;
    struct store_snapshot sn, old;
    struct session_settings st;
    struct scenario *scn = NULL;
    struct session *probe = NULL;
    const cJSON *j, *text_j, *id_j, *title_j, *engine_j, *note_j, *log_j;
    char *scn_text = NULL;
    uint64_t version = 0, position = 0;
    bool keep_id = false, new_id = route_query(req, "new_id") != NULL;
    cJSON *body, *empty = NULL;
    int ret;

    memset(&sn, 0, sizeof(sn));
    if ((ret = route_creating(req, res)))
        return route_answered(ret);
    if (!(body = route_body_object(req, res, keys)))
        return 0;
    j = cJSON_GetObjectItemCaseSensitive(body, "format");
    if (!cJSON_IsString(j) || strcmp(j->valuestring, EXPORT_FORMAT) != 0 ||
        route_field_u64(body, "version", 1000, &version, res) != 0 || version != EXPORT_VERSION) {
        if (res->status != 400)
            route_error(res, 400, "bad_request",
                        "expected an export: {\"format\": \"%s\", \"version\": %d, ...}",
                        EXPORT_FORMAT, EXPORT_VERSION);
        goto out;
    }
    if (route_field_u64(body, "position", UINT64_MAX, &position, res) != 0) {
        if (res->status != 400)
            route_error(res, 400, "bad_request", "missing key \"position\"");
        goto out;
    }
    text_j = cJSON_GetObjectItemCaseSensitive(body, "scenario_text");
    id_j = cJSON_GetObjectItemCaseSensitive(body, "id");
    title_j = cJSON_GetObjectItemCaseSensitive(body, "title");
    engine_j = cJSON_GetObjectItemCaseSensitive(body, "engine");
    note_j = cJSON_GetObjectItemCaseSensitive(body, "note");
    log_j = cJSON_GetObjectItemCaseSensitive(body, "log");
    if (!cJSON_IsObject(text_j) || !cJSON_IsString(engine_j) ||
        (title_j && !cJSON_IsString(title_j)) || (id_j && !cJSON_IsString(id_j)) ||
        (note_j && !cJSON_IsNull(note_j) &&
         (!cJSON_IsString(note_j) || strlen(note_j->valuestring) > SNAPSHOT_NOTE_MAX)) ||
        (log_j && !cJSON_IsObject(log_j)) ||
        !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(body, "state")) ||
        !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(body, "batches")) ||
        strlen(engine_j->valuestring) > 32 ||
        (title_j && strlen(title_j->valuestring) > SNAPSHOT_TITLE_MAX)) {
        route_error(res, 400, "bad_request",
                    "an export has scenario_text (object), engine (string), batches (array), "
                    "state (object) and may have id, title and note (strings) and log (object)");
        goto out;
    }
    if (!(scn_text = cJSON_PrintUnformatted(text_j)) ||
        (ret = scenario_parse(scn_text, strlen(scn_text), "scenario_text", &scn, &err))) {
        route_error(res, 400, "bad_request", "%s", err.len ? strbuf_str(&err) : "out of memory");
        goto out;
    }
    if ((ret = session_settings_parse(cJSON_GetObjectItemCaseSensitive(body, "settings"), &st,
                                      &err))) {
        route_session_error(res, ret, strbuf_str(&err));
        goto out;
    }
    j = cJSON_GetObjectItemCaseSensitive(body, "settings");
    sn.settings =
            j ? cJSON_PrintUnformatted(j) : cJSON_PrintUnformatted(empty = cJSON_CreateObject());
    sn.batches = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(body, "batches"));
    sn.state = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(body, "state"));
    if (!sn.settings || !sn.batches || !sn.state) {
        route_error(res, 503, "busy", "out of memory");
        goto out;
    }
    /* the batches must at least parse as inputs */
    if (!(probe = session_new(&req->app->cfg.lim)) ||
        (ret = batches_parse(probe, sn.batches, &err))) {
        route_session_error(res, probe ? ret : -ENOMEM, strbuf_str(&err));
        goto out;
    }
    if ((ret = store_scenario_put(req->app->store, scn->name, scn_text, strlen(scn_text), false,
                                  &sn.scenario))) {
        route_session_error(res, ret, "cannot store the scenario");
        goto out;
    }
    sn.scenario_text = scn_text;
    sn.position = position;
    sn.engine = engine_j->valuestring;
    sn.title = title_j ? title_j->valuestring : NULL;
    sn.note = cJSON_IsString(note_j) && note_j->valuestring[0] ? note_j->valuestring : NULL;
    if (id_j && !new_id && ids_valid(id_j->valuestring, SNAPSHOT_ID_LEN)) {
        snprintf(sn.id, sizeof(sn.id), "%s", id_j->valuestring);
        keep_id = true;
        if (store_snapshot_load(req->app->store, sn.id, &old) == 0) {
            bool same = same_snapshot(&old, &sn);
            cJSON *o = NULL;

            store_snapshot_free(&old);
            if (!same) {
                route_error(res, 409, "conflict",
                            "a different snapshot %s exists here; import with ?new_id=1 to keep "
                            "both",
                            sn.id);
                goto out;
            }
            o = cJSON_CreateObject();
            if (o && (!json_put(o, "id", cJSON_CreateString(sn.id)) ||
                      !cJSON_AddBoolToObject(o, "existing", true) ||
                      !json_put(o, "links", snapshot_links(sn.id)))) {
                cJSON_Delete(o);
                o = NULL;
            }
            route_json(res, 200, o);
            goto out;
        }
    }
    /* a trace's operations come with it, under a log id of this store's */
    if (log_j && (ret = oplog_json_import(req->app->store, log_j, sn.log, &err))) {
        route_session_error(res, ret, strbuf_str(&err));
        goto out;
    }
    snapshot_store(req->app, res, &sn, keep_id);
    if (res->status != 201 && sn.log[0])
        store_oplog_delete(req->app->store, sn.log);
out:
    sn.engine = NULL;
    sn.title = NULL;
    sn.note = NULL;
    sn.scenario_text = NULL;
    cJSON_free(sn.settings);
    cJSON_free(sn.batches);
    cJSON_free(sn.state);
    cJSON_free(scn_text);
    scenario_release(scn);
    session_free(probe);
    cJSON_Delete(empty);
    cJSON_Delete(body);
    strbuf_release(&err);
    return 0;
}

int route_snapshot_open(const struct request *req, struct response *res)
{
    struct strbuf err = STRBUF_INIT;
    struct store_snapshot sn;
    struct session *s = NULL;
    cJSON *o;
    int ret;

    if ((ret = route_creating(req, res)))
        return route_answered(ret);
    if (load_snapshot(req, res, req->args[0], &sn))
        return 0;
    ret = snapshot_build(req->app, req->app->reg, &sn, &s, &err);
    if (ret) {
        route_session_error(res, ret == SESSION_EBADINPUT ? SESSION_EUNPROCESSABLE : ret,
                            strbuf_str(&err));
        goto out;
    }
    ret = registry_add(req->app->reg, s);
    if (ret) {
        route_session_error(res, ret, NULL);
        goto out;
    }
    o = cJSON_CreateObject();
    if (o && (!json_put(o, "id", cJSON_CreateString(s->id)) ||
              !json_put(o, "token", cJSON_CreateString(s->token)) ||
              !json_put(o, "snapshot", cJSON_CreateString(sn.id)) ||
              !json_put(o, "events", json_uint(session_nr_events(s))) ||
              !json_put(o, "position", json_uint(s->position)))) {
        cJSON_Delete(o);
        o = NULL;
    }
    route_json(res, 201, o);
    registry_put(req->app->reg, s);
out:
    store_snapshot_free(&sn);
    strbuf_release(&err);
    return 0;
}

/* The state JSON that @ref names: "SNAPSHOT" or "SESSION@N"; the name of its scenario goes
 * to @scenario. */
static cJSON *diff_side(const struct request *req, struct response *res, const char *what,
                        const char *ref, char *scenario, size_t scenario_len)
{
    const char *at = strchr(ref, '@');
    struct strbuf err = STRBUF_INIT;
    cJSON *root = NULL, *state = NULL;

    if (at) {
        char id[STORE_ID_MAX + 1];
        struct session *s;
        struct blob *b = NULL;
        uint64_t pos = 0;
        const char *p;
        int ret;

        for (p = at + 1; *p >= '0' && *p <= '9' && pos < UINT64_MAX / 10; p++)
            pos = pos * 10 + (uint64_t)(*p - '0');
        if ((size_t)(at - ref) > STORE_ID_MAX || p == at + 1 || *p) {
            route_error(res, 400, "bad_request", "%s: expected SNAPSHOT or SESSION@N", what);
            return NULL;
        }
        memcpy(id, ref, (size_t)(at - ref));
        id[at - ref] = '\0';
        if (route_open_session(req, res, id, &s))
            return NULL;
        snprintf(scenario, scenario_len, "%s", s->run->scn ? s->run->scn->name : "");
        ret = json_position_state(s, pos, 0, &b, &err);
        route_close_session(req, s);
        if (ret) {
            route_session_error(res, ret, strbuf_str(&err));
            strbuf_release(&err);
            return NULL;
        }
        root = cJSON_Parse(b->text);
        blob_put(b);
    } else {
        struct store_snapshot sn;

        if (load_snapshot(req, res, ref, &sn))
            return NULL;
        snprintf(scenario, scenario_len, "%s", sn.scenario_name ? sn.scenario_name : "");
        root = cJSON_Parse(sn.state);
        store_snapshot_free(&sn);
    }
    state = cJSON_DetachItemFromObjectCaseSensitive(root, "state");
    cJSON_Delete(root);
    if (!state)
        route_error(res, 500, "internal", "%s: the state cannot be read", what);
    strbuf_release(&err);
    return state;
}

/* Do states @a and @b have a cache of the same name? */
static bool share_a_cache(const cJSON *a, const cJSON *b)
{
    const cJSON *ca, *cb;

    cJSON_ArrayForEach(ca, cJSON_GetObjectItemCaseSensitive(a, "caches"))
    {
        const cJSON *na = cJSON_GetObjectItemCaseSensitive(ca, "name");

        cJSON_ArrayForEach(cb, cJSON_GetObjectItemCaseSensitive(b, "caches"))
        {
            const cJSON *nb = cJSON_GetObjectItemCaseSensitive(cb, "name");

            if (cJSON_IsString(na) && cJSON_IsString(nb) &&
                !strcmp(na->valuestring, nb->valuestring))
                return true;
        }
    }
    return false;
}

int route_diff(const struct request *req, struct response *res)
{
    const char *a = route_query(req, "a"), *b = route_query(req, "b");
    char scn_a[SIM_NAME_MAX + 1] = "", scn_b[SIM_NAME_MAX + 1] = "", warning[400] = "";
    cJSON *sa = NULL, *sb = NULL, *d;

    if (!a || !b || !*a || !*b)
        return route_error(res, 400, "bad_request",
                           "diff needs a= and b=, each SNAPSHOT or SESSION@N");
    if (!req->may_block)
        return ROUTE_WOULD_BLOCK;
    if (!(sa = diff_side(req, res, "a", a, scn_a, sizeof(scn_a))) ||
        !(sb = diff_side(req, res, "b", b, scn_b, sizeof(scn_b)))) {
        cJSON_Delete(sa);
        return 0;
    }
    /* objects are matched by address: across unrelated runs that means nothing */
    if (strcmp(scn_a, scn_b) && !share_a_cache(sa, sb)) {
        route_error(res, 422, "unprocessable",
                    "a is scenario \"%.64s\" and b is scenario \"%.64s\", with no cache in "
                    "common: a diff matches objects by address, which says nothing across "
                    "unrelated runs",
                    scn_a, scn_b);
        goto out;
    }
    if (strcmp(scn_a, scn_b))
        snprintf(warning, sizeof(warning),
                 "a is scenario \"%.64s\" and b is scenario \"%.64s\": objects and slabs are "
                 "matched by address, so only the caches both have are compared meaningfully",
                 scn_a, scn_b);
    d = diff_states(sa, sb);
    if (d &&
        (!json_put(d, "a", cJSON_CreateString(a)) || !json_put(d, "b", cJSON_CreateString(b)) ||
         !json_put(d, "related", cJSON_CreateBool(!warning[0])) ||
         !json_put(d, "warning", warning[0] ? cJSON_CreateString(warning) : cJSON_CreateNull()))) {
        cJSON_Delete(d);
        d = NULL;
    }
    route_json(res, 200, d);
out:
    cJSON_Delete(sa);
    cJSON_Delete(sb);
    return 0;
}
