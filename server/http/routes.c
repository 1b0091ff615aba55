/*
 * routes.c: the route table and the dispatcher (see routes.h); the
 * helpers every handler shares are request.c, under both.
 *
 * A pattern is a path whose "*" segments match any one non-empty segment
 * and become req->args.  A path that matches some pattern but not with
 * this method is a 405 listing the methods it has; a path under /api/ that
 * matches none is a 404; anything else is a static file (static.c).
 * Literal patterns come before starred ones of the same shape
 * ("/api/snapshots/import" before "/api/snapshots/ *").
 */
#include "http/routes.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "http/app.h"
#include "http/limit.h"
#include "http/traces.h"
#include "present/json_session.h"
#include "session/overview.h"
#include "session/session.h"
#include "session/store.h"

typedef int (*route_fn)(const struct request *req, struct response *res);

struct route {
    const char *method;
    const char *pattern;
    route_fn fn;
    const struct route_arg *query; /* its query arguments, ended by a NULL name; NULL: none */
    bool heavy; /* a write that replays the engine: charged to its client's CPU time (limit.h) */
};

/* A route's query arguments: integers (INT, POS: a position), text, flags. */
#define ARGS(...)           ((const struct route_arg[]){__VA_ARGS__, {NULL, 0, 0, ROUTE_TEXT, false}})
#define INT(name, min, max) ROUTE_ARG_RANGE(name, min, max)
#define POS(name)           ROUTE_ARG_POSITION(name)
#define TEXT(name)                      \
    {                                   \
        (name), 0, 0, ROUTE_TEXT, false \
    }
#define NEEDED(name)                   \
    {                                  \
        (name), 0, 0, ROUTE_TEXT, true \
    }
#define NEEDED_INT(name, max)             \
    {                                     \
        (name), 0, (max), ROUTE_INT, true \
    }
#define FLAG(name)                      \
    {                                   \
        (name), 0, 0, ROUTE_FLAG, false \
    }
#define WINDOW INT("limit", 0, ROUTE_LIST_MAX), INT("offset", 0, UINT32_MAX)
#define COMPARE                                                                             \
    ARGS(TEXT("scenario"), TEXT("session"), TEXT("variant"), TEXT("kernel"), TEXT("model"), \
         TEXT("cache"), TEXT("format"), INT("open", 0, 1), POS("seed"))

static const struct route routes[] = {
        {"GET", "/api/health", route_health, NULL, false},
        {"GET", "/api/kernels", route_kernels, NULL, false},
        {"GET", "/api/branches", route_branches, NULL, false},
        {"GET", "/api/scenarios", route_scenarios, NULL, false},
        {"GET", "/api/scenarios/*", route_scenario, NULL, false},
        {"GET", "/api/compare", route_compare, COMPARE, false},
        {"POST", "/api/compare", route_compare, COMPARE, true},
        {"GET", "/api/diff", route_diff, ARGS(NEEDED("a"), NEEDED("b")), false},
        {"GET", "/api/gfp", route_gfp,
         ARGS(NEEDED("mask"), INT("order", 0, SIM_MAX_ORDER), INT("node", 0, SIM_MAX_NODES - 1),
              TEXT("context"), TEXT("scenario"), TEXT("variant")),
         false},
        {"POST", "/api/sessions", route_session_create, ARGS(INT("first", 0, 1)), true},
        {"GET", "/api/sessions", route_session_list, ARGS(WINDOW), false},
        {"GET", "/api/sessions/*", route_session_get, NULL, false},
        {"DELETE", "/api/sessions/*", route_session_delete, NULL, false},
        {"GET", "/api/sessions/*/state", route_state,
         ARGS(POS("at"), TEXT("bytes"), TEXT("by"), TEXT("dir"), INT("count", 0, 1000000)), false},
        {"GET", "/api/sessions/*/state/objects", route_state_objects,
         ARGS(POS("at"), NEEDED_INT("cache", INT32_MAX), INT("from", 0, UINT32_MAX),
              INT("count", 1, JSON_PAGE_SLABS)),
         false},
        {"GET", "/api/sessions/*/events", route_events, ARGS(POS("from"), POS("to")), false},
        {"GET", "/api/sessions/*/series", route_series,
         ARGS(TEXT("counters"), POS("from"), POS("to"), INT("points", 0, SESSION_MAX_POINTS)),
         false},
        {"GET", "/api/sessions/*/overview", route_overview,
         ARGS(POS("from"), POS("to"), INT("buckets", 1, OVERVIEW_BUCKETS), TEXT("counters")),
         false},
        {"GET", "/api/sessions/*/caches", route_caches, ARGS(POS("from"), POS("to"), TEXT("sort")),
         false},
        {"GET", "/api/sessions/*/search", route_search,
         ARGS(TEXT("fn"), TEXT("label"), TEXT("counter"), TEXT("object"), POS("from"), TEXT("dir")),
         false},
        {"GET", "/api/sessions/*/ops", route_log, NULL, false},
        {"POST", "/api/sessions/*/ops", route_ops, NULL, true},
        {"POST", "/api/sessions/*/step", route_step, NULL, true},
        {"POST", "/api/sessions/*/fork", route_fork, NULL, true},
        {"GET", "/api/sessions/*/follow", route_follow, NULL, false},
        {"GET", "/api/sessions/*/names", route_names, NULL, false},
        {"GET", "/api/sessions/*/export", route_session_export, ARGS(NEEDED("format"), POS("at")),
         false},
        {"GET", "/api/sessions/*/report.md", route_session_report, ARGS(POS("at")), false},
        {"GET", "/api/sessions/*/report.svg", route_session_report_svg, ARGS(POS("at")), false},
        {"GET", "/api/sessions/*/export.html", route_session_export_html, ARGS(POS("at")), false},
        {"POST", "/api/lectures", route_lecture_create, NULL, false},
        {"GET", "/api/lectures/*", route_lecture_get, NULL, false},
        {"POST", "/api/lectures/*", route_lecture_set, NULL, false},
        {"PUT", "/api/lectures/*", route_lecture_set, NULL, false},
        {"GET", "/api/lectures/*/follow", route_lecture_follow, NULL, false},
        {"POST", "/api/lectures/*/followers", route_follower_join, NULL, false},
        {"PUT", "/api/lectures/*/view", route_lecture_view, NULL, false},
        {"POST", "/api/lectures/*/answers", route_answer_post, NULL, false},
        {"GET", "/api/lectures/*/answers", route_answers_get,
         ARGS(NEEDED_INT("at", (1ull << 53) - 1)), false},
        {"GET", "/api/lessons", route_lessons, NULL, false},
        {"GET", "/api/lessons/*", route_lesson, NULL, false},
        {"GET", "/api/exercises", route_exercises, NULL, false},
        {"GET", "/api/exercises/*", route_exercise, NULL, false},
        {"POST", "/api/traces", route_trace_create,
         ARGS(INT("cpus", 0, SIM_MAX_CPUS), TEXT("kernel"), TEXT("model"),
              INT("slabinfo", 0, TRACES_MAX_SLABINFO)),
         false},
        {"GET", "/api/traces/*", route_trace_get, NULL, false},
        {"DELETE", "/api/traces/*", route_trace_delete, NULL, false},
        {"POST", "/api/snapshots", route_snapshot_create, NULL, true},
        {"GET", "/api/snapshots", route_snapshot_list, ARGS(WINDOW), false},
        {"POST", "/api/snapshots/import", route_snapshot_import, ARGS(FLAG("new_id")), true},
        {"POST", "/api/snapshots/list", route_snapshot_list_for, ARGS(WINDOW), false},
        {"PUT", "/api/snapshots/*/published", route_snapshot_publish, NULL, false},
        {"GET", "/api/snapshots/*", route_snapshot_get, NULL, false},
        {"DELETE", "/api/snapshots/*", route_snapshot_delete, NULL, false},
        {"GET", "/api/snapshots/*/export", route_snapshot_export, NULL, false},
        {"POST", "/api/snapshots/*/open", route_snapshot_open, NULL, true},
};

#define NR_ROUTES (sizeof(routes) / sizeof(routes[0]))

/* Does @path match @pattern?  Fills @args with the starred segments. */
static bool route_match(const char *pattern, const char *path, const char **args, char *buf,
                        size_t size)
{
    size_t used = 0, nargs = 0;

    while (*pattern && *path) {
        if (*pattern == '*') {
            size_t len = strcspn(path, "/");

            if (!len || nargs == ROUTE_MAX_ARGS || used + len + 1 > size)
                return false;
            memcpy(buf + used, path, len);
            buf[used + len] = '\0';
            args[nargs++] = buf + used;
            used += len + 1;
            path += len;
            pattern++;
            continue;
        }
        if (*pattern != *path)
            return false;
        pattern++;
        path++;
    }
    return !*pattern && !*path;
}

/*
 * A handler's answer @ret in @res, unless it is a 500 while the store's
 * database is away (a PostgreSQL server stopped or unreachable): then the
 * failure is the database's, not a bug, and the client may retry, so the
 * answer is 503 `unavailable`.  Handlers need not tell a broken connection
 * from other store failures; the store knows (store_available()).
 */
static int store_failed(const struct request *req, struct response *res, int ret)
{
    if (ret == 0 && res->status == 500 && req->app && req->app->store &&
        !store_available(req->app->store)) {
        snprintf(res->retry_after, sizeof(res->retry_after), "5");
        route_error(res, 503, "unavailable",
                    "the database is unavailable (the store's server does not answer); try "
                    "again shortly");
    }
    return ret;
}

bool router_route(size_t i, const char **method, const char **pattern,
                  const struct route_arg **query)
{
    if (i >= NR_ROUTES)
        return false;
    *method = routes[i].method;
    *pattern = routes[i].pattern;
    *query = routes[i].query;
    return true;
}

/*
 * Run heavy route @fn: refused with 429 `rate_limit` while its client's
 * buckets are empty (limit.h), else charged the CPU time it took.
 */
static int route_heavy(const struct request *req, struct response *res,
                       int (*fn)(const struct request *, struct response *))
{
    struct limiter *l = req->app ? req->app->limiter : NULL;
    struct timespec t0, t1;
    unsigned retry = 0;
    int ret;

    if (!l)
        return fn(req, res);
    if (!limiter_allow(l, req, &retry)) {
        route_error(res, 429, "rate_limited",
                    "%s has spent its share of CPU time on heavy writes (--heavy-cpu); try "
                    "again in %u s",
                    limit_key(req) ? "this token"
                    : req->client  ? req->client
                                   : "this client",
                    retry);
        snprintf(res->retry_after, sizeof(res->retry_after), "%u", retry < 86400 ? retry : 86400);
        return 0;
    }
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    ret = fn(req, res);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    if (ret != ROUTE_WOULD_BLOCK) /* the run that did the work */
        limiter_charge(
                l, req,
                (uint64_t)((t1.tv_sec - t0.tv_sec) * 1000000 + (t1.tv_nsec - t0.tv_nsec) / 1000));
    return ret;
}

int router_dispatch(const struct request *req, struct response *res)
{
    char buf[256]; /* the starred segments; lives as long as the handler runs */
    struct request r = *req;
    const char *method = req->method;
    bool path_known = false;
    size_t i;

    memset(res, 0, sizeof(*res));
    if (!strcmp(method, "HEAD"))
        method = "GET";
    r.method = method;
    if (strncmp(req->path, "/api/", 5) != 0 && strcmp(req->path, "/api") != 0)
        return route_static(&r, res);
    for (i = 0; i < NR_ROUTES; i++) {
        const char *args[ROUTE_MAX_ARGS] = {NULL, NULL};

        if (!route_match(routes[i].pattern, req->path, args, buf, sizeof(buf)))
            continue;
        if (strcmp(routes[i].method, method) != 0) {
            size_t len = strlen(res->allow);

            if (!strstr(res->allow, routes[i].method))
                snprintf(res->allow + len, sizeof(res->allow) - len, "%s%s", len ? ", " : "",
                         routes[i].method);
            path_known = true;
            continue;
        }
        memcpy(r.args, args, sizeof(r.args));
        res->allow[0] = '\0';
        if (!route_check_query(&r, res, routes[i].query))
            return 0;
        if (routes[i].heavy)
            return store_failed(&r, res, route_heavy(&r, res, routes[i].fn));
        return store_failed(&r, res, routes[i].fn(&r, res));
    }
    if (path_known) {
        char allow[sizeof(res->allow)];

        memcpy(allow, res->allow, sizeof(allow));
        route_error(res, 405, "method_not_allowed", "%s is not allowed here (try %s)", method,
                    allow);
        memcpy(res->allow, allow, sizeof(allow));
        return 0;
    }
    return route_error(res, 404, "not_found", "no such API route");
}
