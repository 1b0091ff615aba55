/*
 * routes.h: the request handlers and the router, without HTTP (requests
 * and responses: request.h).
 *
 * Every handler is `int route_x(const struct request *, struct response *)`
 * and never touches libmicrohttpd, so tests and the fuzzer call handlers
 * directly through router_dispatch().
 *
 * A handler runs twice at most.  First with req->may_block false, on a
 * libmicrohttpd thread: it answers only what needs no engine work, no wait
 * for a lock and no disk (a cached state, the health check) and otherwise
 * returns ROUTE_WOULD_BLOCK without side effects.  http.c then suspends the
 * connection and runs the handler again on a worker thread with may_block
 * true, where it may replay, wait and write to SQLite.
 */
#ifndef SLUBLAB_SERVER_HTTP_ROUTES_H
#define SLUBLAB_SERVER_HTTP_ROUTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "http/params.h"
#include "http/request.h"

/* Route @req: a handler's answer in @res, or ROUTE_WOULD_BLOCK.  Cannot fail otherwise. */
int router_dispatch(const struct request *req, struct response *res);
/*
 * Entry @i of the route table: its method, pattern ("*" for an id) and
 * query arguments (ended by a NULL name; NULL: none).  False past the last:
 * what tests/server/test_api_doc.c holds docs/api.md to.
 */
bool router_route(size_t i, const char **method, const char **pattern,
                  const struct route_arg **query);

struct session;
#define ROUTE_OPEN_ERROR (-1) /* route_open_session(): the response holds the error */
/*
 * Hold and lock session @id: 0 (release with route_close_session()),
 * ROUTE_WOULD_BLOCK (only when !req->may_block) or ROUTE_OPEN_ERROR.
 */
int route_open_session(const struct request *req, struct response *res, const char *id,
                       struct session **out);
/* A route_open_session() failure as the handler's answer: ROUTE_WOULD_BLOCK, or 0. */
static inline int route_answered(int ret)
{
    return ret == ROUTE_WOULD_BLOCK ? ret : 0;
}
void route_close_session(const struct request *req, struct session *s);
struct store;
/*
 * Answer a page of a stored list: ?limit= and ?offset=
 * (route_query_window()), then @list(store, limit, offset, &out), then
 * @extra(req, out) when given (false: out of memory).  A store failure is
 * answered with message @failed.  Returns the handler's answer.
 */
int route_list(const struct request *req, struct response *res,
               int (*list)(struct store *, unsigned, unsigned, cJSON **), const char *failed,
               bool (*extra)(const struct request *, cJSON *));
/* True when the request carries @s's write token; else false after a 403. */
bool route_check_token(const struct request *req, struct response *res, const struct session *s);
/* Tell @s's followers where it is now.  Cannot fail. */
void route_publish(const struct request *req, struct session *s);

/* ---- the handlers ---- */

/* routes_misc.c */
int route_health(const struct request *req, struct response *res);
/* GET /api/kernels: the releases the engine models and the default. */
int route_kernels(const struct request *req, struct response *res);
int route_branches(const struct request *req, struct response *res);
int route_scenarios(const struct request *req, struct response *res);
int route_scenario(const struct request *req, struct response *res);
int route_compare(const struct request *req, struct response *res);

/* routes_gfp.c */
int route_gfp(const struct request *req, struct response *res);

/* routes_sessions.c */
int route_session_create(const struct request *req, struct response *res);
int route_session_list(const struct request *req, struct response *res);
int route_session_get(const struct request *req, struct response *res);
int route_session_delete(const struct request *req, struct response *res);
int route_ops(const struct request *req, struct response *res);
int route_fork(const struct request *req, struct response *res);
/* routes_positions.c */
int route_state(const struct request *req, struct response *res);
/* GET /api/sessions/ID/state/objects?at&cache&from&count: one cache's page of a paged state. */
int route_state_objects(const struct request *req, struct response *res);
int route_events(const struct request *req, struct response *res);
int route_series(const struct request *req, struct response *res);
int route_caches(const struct request *req, struct response *res);
int route_search(const struct request *req, struct response *res);
int route_log(const struct request *req, struct response *res);
int route_names(const struct request *req, struct response *res);
int route_step(const struct request *req, struct response *res);
int route_follow(const struct request *req, struct response *res);
/* routes_overview.c */
int route_overview(const struct request *req, struct response *res);

/* routes_lectures.c */
int route_lecture_create(const struct request *req, struct response *res);
int route_lecture_get(const struct request *req, struct response *res);
int route_lecture_set(const struct request *req, struct response *res);
int route_lecture_follow(const struct request *req, struct response *res);
/* POST /api/lectures/ID/followers: a follower joins; its token (follower_token.h). */
int route_follower_join(const struct request *req, struct response *res);
/* PUT /api/lectures/ID/view: the presenter's breakpoints and theme, for its followers. */
int route_lecture_view(const struct request *req, struct response *res);

/* routes_lessons.c */
int route_lessons(const struct request *req, struct response *res);
int route_lesson(const struct request *req, struct response *res);
int route_exercises(const struct request *req, struct response *res);
int route_exercise(const struct request *req, struct response *res);
/* POST /api/lectures/ID/answers: a follower's answer, no token, rate-limited. */
int route_answer_post(const struct request *req, struct response *res);
/* GET /api/lectures/ID/answers?at=N: the tally, with the lecture's token. */
int route_answers_get(const struct request *req, struct response *res);

/* routes_snapshots.c */
int route_snapshot_create(const struct request *req, struct response *res);
int route_snapshot_list(const struct request *req, struct response *res);
int route_snapshot_list_for(const struct request *req, struct response *res);
int route_snapshot_publish(const struct request *req, struct response *res);
int route_snapshot_get(const struct request *req, struct response *res);
int route_snapshot_delete(const struct request *req, struct response *res);
int route_snapshot_export(const struct request *req, struct response *res);
int route_snapshot_import(const struct request *req, struct response *res);
int route_snapshot_open(const struct request *req, struct response *res);
int route_diff(const struct request *req, struct response *res);

/* routes_export.c */
int route_session_export(const struct request *req, struct response *res);
int route_session_report(const struct request *req, struct response *res);
int route_session_report_svg(const struct request *req, struct response *res);
int route_session_export_html(const struct request *req, struct response *res);

/* static.c: files of the UI and the one vendor file */
int route_static(const struct request *req, struct response *res);

#endif /* SLUBLAB_SERVER_HTTP_ROUTES_H */
