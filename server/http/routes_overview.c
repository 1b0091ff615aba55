/*
 * routes_overview.c: GET /api/sessions/ID/overview, the whole run's
 * counters at a glance (docs/api.md, session/overview.h).
 *
 * A session in memory answers from its timeline's overview.  One that is
 * not (evicted, or the server was restarted) answers from the overview the
 * store keeps with it, without being rebuilt; only a session stored
 * before overviews were kept is rebuilt to answer.
 */
#include "http/routes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/ids.h"
#include "http/app.h"
#include "present/json_overview.h"
#include "session/registry.h"
#include "session/session.h"
#include "session/store.h"

#define OVERVIEW_DEFAULT_BUCKETS 1000u

/* The stored overview of @id as the answer: 0 done (answer or error in
 * @res), 1 when the store keeps none. */
static int overview_from_store(const struct request *req, struct response *res, const char *id,
                               uint64_t from, uint64_t to, unsigned buckets, const unsigned *items,
                               size_t nr)
{
    struct overview ov;
    unsigned char *data = NULL;
    cJSON *out = NULL;
    size_t len = 0;
    int ret;

    ret = store_session_overview(req->app->store, id, &data, &len);
    if (ret == -ENOENT)
        return 1;
    if (ret)
        return route_session_error(res, ret, NULL);
    overview_init(&ov);
    ret = overview_load(&ov, data, len);
    free(data);
    if (ret == -EINVAL)
        return 1; /* another version's: rebuild */
    if (!ret)
        ret = json_overview(&ov, from, to, buckets, items, nr, "store", &out);
    overview_release(&ov);
    if (ret)
        return route_session_error(res, ret, NULL);
    return route_json(res, 200, out);
}

int route_overview(const struct request *req, struct response *res)
{
    const char *list = route_query(req, "counters"), *id = req->args[0];
    unsigned items[SIM_NR_STATS];
    static const struct route_arg args[] = {ROUTE_ARG_POSITION("from"), ROUTE_ARG_POSITION("to"),
                                            ROUTE_ARG_RANGE("buckets", 1, OVERVIEW_BUCKETS)};
    uint64_t v[3] = {0, UINT64_MAX, OVERVIEW_DEFAULT_BUCKETS};
    const struct timeline *tl;
    struct timeline view;
    struct session *s;
    cJSON *out = NULL;
    size_t nr = 0;
    int ret;

    if (list && route_query_counters(list, items, &nr, res) < 0)
        return 0;
    if (route_query_args(req, res, args, 3, v) < 0 || !route_check_range(res, v[0], v[1]))
        return 0;
    if (!route_check_id(res, ROUTE_ID_SESSION, id))
        return 0;
    if (!req->may_block)
        return ROUTE_WOULD_BLOCK;
    if (!registry_has_live(req->app->reg, id) &&
        (ret = overview_from_store(req, res, id, v[0], v[1], (unsigned)v[2], items, nr)) <= 0)
        return ret;
    if ((ret = route_open_session(req, res, id, &s)))
        return 0;
    timeline_init(&view);
    if (!(ret = timeline_view(&s->run->tl, &view, &tl)))
        ret = json_overview(&tl->ov, v[0], v[1], (unsigned)v[2], items, nr, "memory", &out);
    timeline_release(&view);
    route_close_session(req, s);
    if (ret)
        return route_session_error(res, ret, NULL);
    return route_json(res, 200, out);
}
