/*
 * request.c: what every handler shares (see request.h): errors and JSON
 * answers, the JSON body and its fields, the mapping of session errors to
 * statuses.  Query arguments, ids and the token are params.c's.
 *
 * Under the route table (routes.c) and every handler: it calls none of
 * them.
 */
#include "http/request.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/utf8.h"
#include "http/app.h"
#include "http/follow.h"
#include "http/quota.h"
#include "session/session.h"

void response_release(struct response *res)
{
    free(res->body);
    res->body = NULL;
    blob_put(res->blob);
    res->blob = NULL;
    follow_detach(res->follower);
    res->follower = NULL;
}

int route_error(struct response *res, unsigned status, const char *code, const char *fmt, ...)
{
    char msg[2048]; /* an unknown name lists the valid ones (base/hint.h) */
    cJSON *o = cJSON_CreateObject(), *e = NULL;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    utf8_sanitize(msg); /* it may quote the client's bytes, or be cut mid-character */
    response_release(res);
    if (!o || !json_put(o, "error", e = cJSON_CreateObject()) ||
        !json_put(e, "code", cJSON_CreateString(code)) ||
        !json_put(e, "message", cJSON_CreateString(msg))) {
        cJSON_Delete(o);
        o = NULL;
    }
    route_json(res, status, o);
    if (status == 503 && !res->retry_after[0]) /* a caller may have said longer */
        snprintf(res->retry_after, sizeof(res->retry_after), "1");
    return 0;
}

int route_json(struct response *res, unsigned status, cJSON *json)
{
    static const char oom[] = "{\"error\":{\"code\":\"internal\",\"message\":\"out of memory\"}}";
    char *text = json ? cJSON_PrintUnformatted(json) : NULL;

    cJSON_Delete(json);
    free(res->body);
    res->content_type = "application/json";
    if (!text) {
        res->status = 500;
        res->body = malloc(sizeof(oom));
        res->len = res->body ? sizeof(oom) - 1 : 0;
        if (res->body)
            memcpy(res->body, oom, sizeof(oom));
        return 0;
    }
    res->status = status;
    res->body = text;
    res->len = strlen(text);
    return 0;
}

int route_blob(struct response *res, struct blob *b)
{
    res->status = 200;
    res->content_type = "application/json";
    res->blob = b;
    return 0;
}

int route_text(struct response *res, struct strbuf *sb)
{
    res->status = 200;
    res->content_type = "application/json";
    res->body = sb->buf;
    res->len = sb->len;
    *sb = (struct strbuf)STRBUF_INIT;
    return 0;
}

int route_stream(struct response *res, struct follower *f)
{
    if (!f)
        return route_error(res, 503, "busy", "the server is shutting down or out of memory");
    res->status = 200;
    res->content_type = "text/event-stream";
    res->follower = f;
    return 0;
}

cJSON *route_links(const char *id, const char *const links[][2], size_t n)
{
    cJSON *o = cJSON_CreateObject();
    char buf[128];

    for (size_t i = 0; o && i < n; i++) {
        const char *hole = strstr(links[i][1], "%s");

        snprintf(buf, sizeof(buf), "%.*s%s%s", (int)(hole - links[i][1]), links[i][1], id,
                 hole + 2);
        if (!json_put(o, links[i][0], cJSON_CreateString(buf))) {
            cJSON_Delete(o);
            o = NULL;
        }
    }
    return o;
}

/*
 * What cJSON would take silently or misreport: a NUL byte (JSON has none),
 * nesting deeper than ROUTE_MAX_DEPTH (cJSON stops at 1000 and says only
 * "not valid JSON"), and a \u0000 escape (cJSON cuts the string there, so
 * "default\u0000x" would read as "default").  0, or -1 after a 400.
 */
static int route_body_scan(const char *b, size_t len, struct response *res)
{
    unsigned depth = 0;
    bool in_string = false;

    if (memchr(b, 0, len)) {
        route_error(res, 400, "bad_json", "the body holds a NUL byte (JSON has none)");
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        char c = b[i];

        if (in_string) {
            if (c == '"') {
                in_string = false;
            } else if (c == '\\' && i + 1 < len) {
                if (b[i + 1] == 'u' && i + 5 < len && !strncmp(b + i + 2, "0000", 4)) {
                    route_error(res, 400, "bad_request",
                                "a string holds \\u0000 (near byte %zu): the lab takes no NUL in "
                                "text",
                                i);
                    return -1;
                }
                i++;
            }
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > ROUTE_MAX_DEPTH) {
                route_error(res, 400, "bad_json",
                            "the body is nested deeper than %u levels (near byte %zu)",
                            ROUTE_MAX_DEPTH, i);
                return -1;
            }
        } else if ((c == ']' || c == '}') && depth) {
            depth--;
        }
    }
    return 0;
}

/* The first string (or key) under @item that is not valid UTF-8, its path
 * in @path ("ops[2].name"); false when there is none. */
static bool route_bad_utf8(const cJSON *item, char *path, size_t size)
{
    size_t len = strlen(path);
    const cJSON *c;
    size_t i = 0;

    if (cJSON_IsString(item) && item->valuestring &&
        !utf8_valid(item->valuestring, strlen(item->valuestring)))
        return true;
    for (c = item->child; c; c = c->next, i++) {
        if (cJSON_IsObject(item)) {
            if (c->string && !utf8_valid(c->string, strlen(c->string))) {
                snprintf(path + len, size - len, "%s(a key)", len ? "." : "");
                return true;
            }
            snprintf(path + len, size - len, "%s%s", len ? "." : "", c->string ? c->string : "");
        } else {
            snprintf(path + len, size - len, "[%zu]", i);
        }
        if (route_bad_utf8(c, path, size))
            return true;
        path[len] = 0;
    }
    return false;
}

cJSON *route_body(const struct request *req, struct response *res)
{
    const char *end = NULL;
    char path[160] = "";
    cJSON *json;

    if (!req->body || !req->body_len) {
        route_error(res, 400, "bad_json", "the request needs a JSON body");
        return NULL;
    }
    if (route_body_scan(req->body, req->body_len, res))
        return NULL;
    json = cJSON_ParseWithLengthOpts(req->body, req->body_len, &end, false);
    if (json && end) {
        while (end < req->body + req->body_len && strchr(" \t\r\n", *end) && *end)
            end++;
        if (end < req->body + req->body_len) {
            cJSON_Delete(json);
            json = NULL;
        }
    }
    if (!json) {
        size_t off = end && end >= req->body && end <= req->body + req->body_len
                             ? (size_t)(end - req->body)
                             : 0;

        route_error(res, 400, "bad_json", "the body is not valid JSON (near byte %zu)", off);
    } else if (route_bad_utf8(json, path, sizeof(path))) {
        cJSON_Delete(json);
        json = NULL;
        route_error(res, 422, "unprocessable", "%s: not valid UTF-8 text",
                    path[0] ? path : "the body");
    }
    return json;
}

cJSON *route_body_object(const struct request *req, struct response *res,
                         const char *const *allowed)
{
    cJSON *body = route_body(req, res);

    if (body && !route_check_keys(body, allowed, res)) {
        cJSON_Delete(body);
        body = NULL;
    }
    return body;
}

bool route_check_object(const cJSON *obj, const char *const *allowed, const char *expected,
                        struct response *res)
{
    if (!cJSON_IsObject(obj)) {
        route_error(res, 400, "bad_request", "%s", expected);
        return false;
    }
    return route_check_keys(obj, allowed, res);
}

bool route_check_keys(const cJSON *obj, const char *const *allowed, struct response *res)
{
    const cJSON *item, *other;
    size_t i;

    if (!cJSON_IsObject(obj)) {
        route_error(res, 400, "bad_request", "expected a JSON object");
        return false;
    }
    for (item = obj->child; item; item = item->next) {
        for (i = 0; allowed[i] && strcmp(allowed[i], item->string) != 0; i++)
            ;
        if (!allowed[i]) {
            route_error(res, 400, "bad_request", "unknown key \"%.64s\"", item->string);
            return false;
        }
        for (other = item->next; other; other = other->next)
            if (!strcmp(other->string, item->string)) {
                route_error(res, 400, "bad_request", "key \"%.64s\" is given twice", item->string);
                return false;
            }
    }
    return true;
}

int route_field_u64(const cJSON *obj, const char *key, uint64_t max, uint64_t *out,
                    struct response *res)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

    if (!v)
        return 1;
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble > (double)max ||
        v->valuedouble > 9007199254740991.0 || v->valuedouble != (double)(uint64_t)v->valuedouble) {
        route_error(res, 400, "bad_request", "key \"%s\": expected an integer from 0 to %llu", key,
                    (unsigned long long)(max < 9007199254740991ull ? max : 9007199254740991ull));
        return -1;
    }
    *out = (uint64_t)v->valuedouble;
    return 0;
}

int route_session_error(struct response *res, int err, const char *message)
{
    const char *msg = message && *message ? message : NULL;

    switch (err) {
    case SESSION_EBADINPUT:
        return route_error(res, 400, "bad_request", "%s", msg ? msg : "bad request");
    case SESSION_EUNPROCESSABLE:
        return route_error(res, 422, "unprocessable", "%s", msg ? msg : "cannot do that");
    case SESSION_ELIMIT:
        return route_error(res, 429, "session_limit", "%s", msg ? msg : "over a session limit");
    case -ENOENT:
        return route_error(res, 404, "not_found", "%s", msg ? msg : "no such thing");
    case -EBUSY:
        return route_error(res, 503, "busy", "%s",
                           msg ? msg : "every live session is in use; try again");
    case -ENOMEM:
        return route_error(res, 503, "busy", "the server is out of memory");
    case -EEXIST:
        return route_error(res, 409, "conflict", "%s", msg ? msg : "it exists already");
    default:
        return route_error(res, 500, "internal", "%s", msg ? msg : "internal error");
    }
}

int route_creating(const struct request *req, struct response *res)
{
    if (!req->may_block)
        return ROUTE_WOULD_BLOCK;
    return route_quota(req, res);
}

int route_quota(const struct request *req, struct response *res)
{
    unsigned retry = 0;

    if (!req->app || quota_take(req->app->quota, req->client, &retry))
        return 0;
    route_error(res, 429, "quota",
                "%s may create at most %u sessions, snapshots and traces an hour (--quota); "
                "the hour turns in %u s",
                req->client, req->app->cfg.quota, retry);
    snprintf(res->retry_after, sizeof(res->retry_after), "%u", retry);
    return -1;
}
