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

#include "http/app.h"
#include "http/traces.h"
#include "session/store.h"

typedef int (*route_fn)(const struct request *req, struct response *res);

struct route {
    const char *method;
    const char *pattern;
    route_fn fn;
};

static const struct route routes[] = {
        {"GET", "/api/health", route_health},
        {"GET", "/api/kernels", route_kernels},
        {"GET", "/api/branches", route_branches},
        {"GET", "/api/scenarios", route_scenarios},
        {"GET", "/api/scenarios/*", route_scenario},
        {"GET", "/api/compare", route_compare},
        {"POST", "/api/compare", route_compare},
        {"GET", "/api/diff", route_diff},
        {"GET", "/api/gfp", route_gfp},
        {"POST", "/api/sessions", route_session_create},
        {"GET", "/api/sessions", route_session_list},
        {"GET", "/api/sessions/*", route_session_get},
        {"DELETE", "/api/sessions/*", route_session_delete},
        {"GET", "/api/sessions/*/state", route_state},
        {"GET", "/api/sessions/*/state/objects", route_state_objects},
        {"GET", "/api/sessions/*/events", route_events},
        {"GET", "/api/sessions/*/series", route_series},
        {"GET", "/api/sessions/*/overview", route_overview},
        {"GET", "/api/sessions/*/caches", route_caches},
        {"GET", "/api/sessions/*/search", route_search},
        {"GET", "/api/sessions/*/ops", route_log},
        {"POST", "/api/sessions/*/ops", route_ops},
        {"POST", "/api/sessions/*/step", route_step},
        {"POST", "/api/sessions/*/fork", route_fork},
        {"GET", "/api/sessions/*/follow", route_follow},
        {"GET", "/api/sessions/*/names", route_names},
        {"GET", "/api/sessions/*/export", route_session_export},
        {"GET", "/api/sessions/*/report.md", route_session_report},
        {"GET", "/api/sessions/*/report.svg", route_session_report_svg},
        {"GET", "/api/sessions/*/export.html", route_session_export_html},
        {"POST", "/api/lectures", route_lecture_create},
        {"GET", "/api/lectures/*", route_lecture_get},
        {"POST", "/api/lectures/*", route_lecture_set},
        {"PUT", "/api/lectures/*", route_lecture_set},
        {"GET", "/api/lectures/*/follow", route_lecture_follow},
        {"POST", "/api/lectures/*/answers", route_answer_post},
        {"GET", "/api/lectures/*/answers", route_answers_get},
        {"GET", "/api/lessons", route_lessons},
        {"GET", "/api/lessons/*", route_lesson},
        {"GET", "/api/exercises", route_exercises},
        {"GET", "/api/exercises/*", route_exercise},
        {"POST", "/api/traces", route_trace_create},
        {"GET", "/api/traces/*", route_trace_get},
        {"DELETE", "/api/traces/*", route_trace_delete},
        {"POST", "/api/snapshots", route_snapshot_create},
        {"GET", "/api/snapshots", route_snapshot_list},
        {"POST", "/api/snapshots/import", route_snapshot_import},
        {"POST", "/api/snapshots/list", route_snapshot_list_for},
        {"PUT", "/api/snapshots/*/published", route_snapshot_publish},
        {"GET", "/api/snapshots/*", route_snapshot_get},
        {"DELETE", "/api/snapshots/*", route_snapshot_delete},
        {"GET", "/api/snapshots/*/export", route_snapshot_export},
        {"POST", "/api/snapshots/*/open", route_snapshot_open},
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
