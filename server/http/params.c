/*
 * params.c: a request's ids, query arguments and token (see params.h),
 * read the one way every route reads them.
 *
 * Under the handlers and the route table; above request.c, whose
 * route_error() writes every refusal.  A query argument is taken as
 * libmicrohttpd decoded it (percent-decoding done, no trimming): an
 * integer is 1 to 20 decimal digits with no sign, no space and no
 * leading "+", and one beyond its max or beyond UINT64_MAX is refused,
 * never wrapped or clamped.
 */
#include "http/params.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/hint.h"
#include "base/ids.h"
#include "http/lecture.h"
#include "http/traces.h"
#include "session/session.h"
#include "session/store.h"

const char *route_query(const struct request *req, const char *key)
{
    size_t i;

    for (i = 0; i < req->nr_query; i++)
        if (req->query[i].key && !strcmp(req->query[i].key, key))
            return req->query[i].value ? req->query[i].value : "";
    return NULL;
}

/* @s as a decimal integer <= @max into *out; false when it is not one. */
static bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    const char *p;
    uint64_t v = 0;

    for (p = s; *p; p++) {
        unsigned d = (unsigned)(*p - '0');

        if (*p < '0' || *p > '9' || v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    if (!*s || v > max)
        return false;
    *out = v;
    return true;
}

/* Argument @arg into *out: 1 (absent, *out untouched), 0, or -1 after a 400. */
static int query_arg(const struct request *req, struct response *res, const struct route_arg *arg,
                     uint64_t *out)
{
    const char *s = route_query(req, arg->name);
    uint64_t v;

    if (!s)
        return 1;
    if (!parse_u64(s, arg->max, &v)) {
        route_error(res, 400, "bad_request", "query \"%s\": expected an integer from 0 to %llu",
                    arg->name, (unsigned long long)arg->max);
        return -1;
    }
    if (v < arg->min) {
        route_error(res, 400, "bad_request", "query \"%s\": at least %llu", arg->name,
                    (unsigned long long)arg->min);
        return -1;
    }
    *out = v;
    return 0;
}

int route_query_u64(const struct request *req, struct response *res, const char *key, uint64_t max,
                    uint64_t *out)
{
    const struct route_arg arg = ROUTE_ARG(key, max);

    return query_arg(req, res, &arg, out);
}

int route_query_args(const struct request *req, struct response *res, const struct route_arg *args,
                     size_t n, uint64_t *vals)
{
    int given = 0;

    for (size_t i = 0; i < n && i < ROUTE_MAX_QUERY_ARGS; i++) {
        int ret = query_arg(req, res, &args[i], &vals[i]);

        if (ret < 0)
            return -1;
        if (ret == 0)
            given |= 1 << i;
    }
    return given;
}

bool route_check_query(const struct request *req, struct response *res,
                       const struct route_arg *decl)
{
    static const struct route_arg none[] = {{NULL, 0, 0, ROUTE_TEXT, false}};
    const struct route_arg *d;
    uint64_t v;

    if (!decl)
        decl = none;
    for (size_t i = 0; i < req->nr_query; i++) {
        const char *key = req->query[i].key, *value = req->query[i].value;

        for (d = decl; d->name && strcmp(d->name, key); d++)
            ;
        if (!d->name) {
            char known[256] = "";
            size_t len = 0;

            for (d = decl; d->name && len < sizeof(known); d++)
                len += (size_t)snprintf(known + len, sizeof(known) - len, "%s%s", len ? ", " : "",
                                        d->name);
            route_error(res, 400, "bad_request", "unknown query argument \"%.64s\" (%s%s)", key,
                        decl->name ? "this route takes " : "this route takes none", known);
            return false;
        }
        if (d->type == ROUTE_INT && query_arg(req, res, d, &v) < 0)
            return false;
        if (d->type == ROUTE_FLAG && value && *value && strcmp(value, "1")) {
            route_error(res, 400, "bad_request", "query \"%s\": a flag, given alone or as %s=1",
                        d->name, d->name);
            return false;
        }
    }
    return true;
}

bool route_query_window(const struct request *req, struct response *res, unsigned *limit,
                        unsigned *offset)
{
    static const struct route_arg args[] = {ROUTE_ARG("limit", ROUTE_LIST_MAX),
                                            ROUTE_ARG("offset", UINT32_MAX)};
    uint64_t v[2] = {ROUTE_LIST_LIMIT, 0};

    if (route_query_args(req, res, args, 2, v) < 0)
        return false;
    *limit = (unsigned)v[0];
    *offset = (unsigned)v[1];
    return true;
}

int route_query_counters(const char *list, unsigned *items, size_t *nr, struct response *res)
{
    while (*list) {
        char name[64];
        size_t len = strcspn(list, ",");
        int item;

        if (len >= sizeof(name) || *nr == SIM_NR_STATS) {
            route_error(res, 400, "bad_request", "query \"counters\": too long");
            return -1;
        }
        memcpy(name, list, len);
        name[len] = '\0';
        if ((item = hint_lookup(name, sim_stat_name, SIM_NR_STATS)) < 0) {
            struct strbuf why = STRBUF_INIT;

            hint_append(&why, name, sim_stat_name, SIM_NR_STATS, "counters");
            route_error(res, 400, "bad_request", "query \"counters\": unknown counter \"%s\"%s",
                        name, strbuf_str(&why));
            strbuf_release(&why);
            return -1;
        }
        items[(*nr)++] = (unsigned)item;
        list += len + (list[len] == ',');
    }
    return 0;
}

bool route_check_range(struct response *res, uint64_t from, uint64_t to)
{
    if (from <= to)
        return true;
    route_error(res, 400, "bad_request", "\"to\" is before \"from\"");
    return false;
}

bool route_check_end(struct response *res, const char *key, uint64_t at, uint64_t end)
{
    if (at <= end)
        return true;
    route_error(res, 400, "bad_request",
                "key \"%s\": %" PRIu64 " is beyond the end (%" PRIu64 " events)", key, at, end);
    return false;
}

bool route_parse_addr(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    size_t n = 0;

    if (!s || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
        return false;
    for (s += 2; *s; s++, n++) {
        int d = (*s >= '0' && *s <= '9')   ? *s - '0'
                : (*s >= 'a' && *s <= 'f') ? *s - 'a' + 10
                : (*s >= 'A' && *s <= 'F') ? *s - 'A' + 10
                                           : -1;

        if (d < 0 || n >= 16)
            return false;
        v = v << 4 | (uint64_t)d;
    }
    if (!n)
        return false;
    *out = v;
    return true;
}

/* The ids a path may hold: their longest and how their 404 reads. */
static const struct {
    const char *name;
    size_t len;
    int shown; /* characters of the id quoted in the 404; 0: "no such NAME" */
} id_kinds[] = {
        [ROUTE_ID_SESSION] = {"session", SESSION_ID_LEN, 32},
        [ROUTE_ID_SNAPSHOT] = {"snapshot", STORE_ID_MAX, 0},
        [ROUTE_ID_LECTURE] = {"lecture", LECTURE_ID_LEN, 0},
        [ROUTE_ID_TRACE] = {"trace", TRACES_ID_LEN, 40},
};

int route_no_such(struct response *res, enum route_id_kind kind, const char *id)
{
    if (id_kinds[kind].shown)
        return route_error(res, 404, "not_found", "no %s \"%.*s\"", id_kinds[kind].name,
                           id_kinds[kind].shown, id);
    return route_error(res, 404, "not_found", "no such %s", id_kinds[kind].name);
}

bool route_check_id(struct response *res, enum route_id_kind kind, const char *id)
{
    if (ids_valid(id, id_kinds[kind].len))
        return true;
    route_no_such(res, kind, id);
    return false;
}

const char *route_token(const struct request *req)
{
    const char *a = req->authorization;

    /* the scheme is case-insensitive (RFC 9110, 11.1) */
    if (!a || strncasecmp(a, "Bearer ", 7) != 0)
        return NULL;
    a += 7;
    while (*a == ' ')
        a++;
    return *a ? a : NULL;
}

bool route_token_is(const struct request *req, const char *token)
{
    const char *t = route_token(req);

    return t && ids_token_equal(t, token);
}

int route_forbidden(struct response *res, const char *what)
{
    return route_error(res, 403, "forbidden", "%s (Authorization: Bearer TOKEN)", what);
}
