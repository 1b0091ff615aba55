/*
 * routes_misc.c: the handlers that need no session: health, the scenario
 * catalogue, the engine's branch points and compare (see routes.h,
 * docs/api.md).
 *
 * compare runs a shipped scenario, or a session's inputs, twice, which is
 * engine work: it answers ROUTE_WOULD_BLOCK on the first call and runs on
 * a worker.  With open=1 it also keeps both runs as new sessions, so the
 * UI can step through them.
 */
#include "http/routes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hint.h"
#include "http/app.h"
#include "present/compare.h"
#include "present/export_html.h"
#include "present/json_session.h"
#include "present/json_state.h"
#include "present/report_md.h"
#include "present/svg_chart.h"
#include "scenario/kernel.h"
#include "scenario/scenario.h"
#include "session/registry.h"
#include "session/session.h"

int route_health(const struct request *req, struct response *res)
{
    cJSON *o = cJSON_CreateObject();

    if (o && (!json_put(o, "status", cJSON_CreateString("ok")) ||
              !json_put(o, "version", cJSON_CreateString(SIM_VERSION)) ||
              !json_put(o, "offline_max_events", json_uint(EXPORT_HTML_MAX_EVENTS)) ||
              !json_put(o, "public_url", cJSON_CreateString(req->app->public_url)) ||
              !json_put(o, "states_rendered", json_uint(json_position_rendered())))) {
        cJSON_Delete(o);
        o = NULL;
    }
    return route_json(res, 200, o);
}

/* One release of the table: its name, model (with the era) and variants. */
static cJSON *kernel_json(enum sim_release r)
{
    struct sim_config cfg;
    cJSON *o = cJSON_CreateObject(), *vars = NULL;
    char model[64];

    sim_config_default(&cfg);
    sim_release_apply(r, &cfg);
    if (cfg.model == SIM_MODEL_LEGACY)
        snprintf(model, sizeof(model), "legacy:%s", sim_legacy_era_name(sim_legacy_era(&cfg)));
    else
        snprintf(model, sizeof(model), "%s", sim_model_name(cfg.model));
    if (!o || !json_put(o, "name", cJSON_CreateString(sim_release_name(r))) ||
        !json_put(o, "model", cJSON_CreateString(model)) ||
        !json_put(o, "variants", vars = cJSON_CreateObject()))
        return json_drop(o);
    for (unsigned v = 0; v < SIM_NR_VARIANTS; v++)
        if (sim_variant_in_model(v, cfg.model) &&
            !json_put(vars, sim_variant_name(v),
                      cJSON_CreateString(cfg.variant[v] == SIM_AFTER ? "after" : "before")))
            return json_drop(o);
    return o;
}

/* The kernels the engine knows and the default one; NULL when out of memory. */
static cJSON *kernels_json(void)
{
    cJSON *o = cJSON_CreateObject(), *arr = NULL;

    if (!o || !json_put(o, "default", cJSON_CreateString(sim_release_name(sim_release_newest()))) ||
        !json_put(o, "kernels", arr = cJSON_CreateArray()))
        return json_drop(o);
    for (unsigned r = 1; r < SIM_NR_RELEASES; r++)
        if (!json_push(arr, kernel_json((enum sim_release)r)))
            return json_drop(o);
    return o;
}

int route_kernels(const struct request *req, struct response *res)
{
    (void)req;
    return route_json(res, 200, kernels_json());
}

/* GET /api/branches: the engine's branch points, their deciding
 * functions and their arms with the events each leads to
 * (docs/events.md#branch-records). */
int route_branches(const struct request *req, struct response *res)
{
    (void)req;
    return route_json(res, 200, json_branch_points());
}

int route_scenarios(const struct request *req, struct response *res)
{
    const struct app *app = req->app;
    cJSON *o = cJSON_CreateObject(), *arr = NULL;
    size_t i;

    if (!o || !json_put(o, "scenarios", arr = cJSON_CreateArray()))
        goto out;
    for (i = 0; i < app->nr_scenarios; i++) {
        const struct catalog_entry *e = &app->scenarios[i];
        cJSON *s = cJSON_CreateObject();

        if (!json_push(arr, s) || !json_put(s, "name", cJSON_CreateString(e->name)) ||
            !json_put(s, "title", cJSON_CreateString(e->title)) ||
            !json_put(s, "description", cJSON_CreateString(e->description))) {
            cJSON_Delete(o);
            o = NULL;
            break;
        }
    }
out:
    return route_json(res, 200, o);
}

int route_scenario(const struct request *req, struct response *res)
{
    const struct catalog_entry *e = app_scenario(req->app, req->args[0]);
    cJSON *o, *text;

    if (!e)
        return route_error(res, 404, "not_found", "no scenario named \"%.64s\"", req->args[0]);
    text = cJSON_ParseWithLength(e->text, e->len);
    o = cJSON_CreateObject();
    if (!o || !json_put(o, "name", cJSON_CreateString(e->name)) || !json_put(o, "scenario", text)) {
        cJSON_Delete(o);
        o = NULL;
    }
    return route_json(res, 200, o);
}

/* Split "A,B" into @a and @b (each shorter than @size). */
static bool compare_pair(const char *s, char *a, char *b, size_t size)
{
    const char *comma = strchr(s, ',');
    size_t la, lb;

    if (!comma || strchr(comma + 1, ','))
        return false;
    la = (size_t)(comma - s);
    lb = strlen(comma + 1);
    if (!la || !lb || la >= size || lb >= size)
        return false;
    memcpy(a, s, la);
    a[la] = '\0';
    memcpy(b, comma + 1, lb + 1);
    return true;
}

/* Side @side of a comparison of kernels (@kernel) or models, named @v: false
 * with the reason in @msg when there is none of that name. */
static bool compare_choose(bool kernel, const char *v, uint32_t keep, struct compare_side *side,
                           char *msg, size_t size)
{
    if (kernel) {
        if (kernel_choose(v, NULL, keep, &side->cfg, msg, size))
            return false;
        snprintf(side->label, sizeof(side->label), "kernel %s",
                 sim_release_name(side->cfg.release));
        return true;
    }
    if (sim_model_parse(v, &side->cfg) || sim_model_error(&side->cfg)) {
        snprintf(msg, size, "unknown model \"%s\"", v);
        return false;
    }
    snprintf(side->label, sizeof(side->label), "model=%s", v);
    return true;
}

/* The two configurations from ?variant=, ?kernel= or ?model=; false after a 400. */
static bool compare_axis(const struct request *req, struct response *res,
                         const struct sim_config *base, uint32_t keep, struct compare_side side[2])
{
    const char *variant = route_query(req, "variant"), *models = route_query(req, "model");
    const char *kernels = route_query(req, "kernel");
    char name[64], va[32] = "before", vb[32] = "after", msg[256];
    const char *eq;
    int k, id;

    side[0].cfg = side[1].cfg = *base;
    if ((variant != NULL) + (models != NULL) + (kernels != NULL) != 1) {
        route_error(res, 400, "bad_request", "give exactly one of variant=, kernel= and model=");
        return false;
    }
    if (kernels || models) {
        const char *axis = kernels ? "kernel" : "model";

        if (!compare_pair(kernels ? kernels : models, va, vb, sizeof(va))) {
            route_error(res, 400, "bad_request", "%s: expected A,B", axis);
            return false;
        }
        for (k = 0; k < 2; k++)
            if (!compare_choose(kernels != NULL, k ? vb : va, keep, &side[k], msg, sizeof(msg))) {
                route_error(res, 400, "bad_request", "%s: %s", axis, msg);
                return false;
            }
        return true;
    }
    eq = strchr(variant, '=');
    if (strlen(variant) >= sizeof(name) || (eq && !compare_pair(eq + 1, va, vb, sizeof(va)))) {
        route_error(res, 400, "bad_request", "variant: expected NAME or NAME=A,B");
        return false;
    }
    snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - variant) : 63, variant);
    if ((id = hint_lookup(name, sim_variant_name, SIM_NR_VARIANTS)) < 0) {
        struct strbuf why = STRBUF_INIT;

        hint_append(&why, name, sim_variant_name, SIM_NR_VARIANTS, "variants");
        route_error(res, 400, "bad_request", "variant: unknown variant \"%.64s\"%s", name,
                    strbuf_str(&why));
        strbuf_release(&why);
        return false;
    }
    for (k = 0; k < 2; k++) {
        const char *v = k ? vb : va;

        if (sim_variant_value_lookup((unsigned)id, v) < 0) {
            route_error(res, 400, "bad_request", "variant: \"%s\" is neither before nor after", v);
            return false;
        }
        side[k].cfg.variant[id] = (uint8_t)sim_variant_value_lookup((unsigned)id, v);
        snprintf(side[k].label, sizeof(side[k].label), "%s=%s", sim_variant_name((unsigned)id), v);
    }
    return true;
}

/* The comparison as a Markdown report (@svg false) or its chart, as downloads. */
static void compare_report(struct response *res, const struct scenario *scn, const char *cache,
                           const struct compare_side side[2], bool svg)
{
    const struct sim_snapshot *snaps[2] = {side[0].snap, side[1].snap};
    struct strbuf sb = STRBUF_INIT;
    char chart[96];
    bool ok;

    snprintf(chart, sizeof(chart), "compare-%.40s-counters.svg", scn->name);
    ok = svg ? svg_compare_chart(&sb, side)
             : report_md_compare(&sb, scn, cache, side, snaps, chart);
    if (ok && (res->body = malloc(sb.len + 1))) {
        memcpy(res->body, strbuf_str(&sb), sb.len + 1);
        res->len = sb.len;
        res->status = 200;
        res->content_type = svg ? "image/svg+xml" : "text/markdown; charset=utf-8";
        if (svg)
            snprintf(res->disposition, sizeof(res->disposition), "attachment; filename=\"%.64s\"",
                     chart);
        else
            snprintf(res->disposition, sizeof(res->disposition),
                     "attachment; filename=\"compare-%.40s.md\"", scn->name);
    } else {
        route_error(res, 500, "internal", "out of memory");
    }
    strbuf_release(&sb);
}

/*
 * Copy the inputs of session @id (scenario, batches) into @more, new and
 * not built, and its settings into @base.  0, or non-zero once @res holds
 * the error.
 */
static int compare_session_inputs(const struct request *req, struct response *res, const char *id,
                                  struct session *more, struct sim_config *base)
{
    struct session *src;
    int ret;

    if (route_open_session(req, res, id, &src))
        return -1;
    ret = session_fork_inputs(src, session_nr_events(src), more);
    *base = src->run->cfg;
    route_close_session(req, src);
    if (ret) {
        route_session_error(res, ret, NULL);
        return -1;
    }
    return 0;
}

/* Both sides of a trace session @id (its operations an op log): its whole run again under each
 * side's settings (compare_side_rerun()), under the session's lock.  0, or -1 once @res holds
 * the error. */
static int compare_trace_sides(const struct request *req, struct response *res, const char *id,
                               const char *cache, struct compare_side side[2],
                               char cache_name[2][SIM_NAME_MAX], struct strbuf *err)
{
    struct session *src;
    int k, ret = 0;

    if (route_open_session(req, res, id, &src))
        return -1;
    for (k = 0; k < 2 && !ret; k++)
        ret = compare_side_rerun(src, cache, &side[k], cache_name[k], err);
    route_close_session(req, src);
    if (ret)
        route_error(res, 422, "unprocessable", "%s", strbuf_str(err));
    return ret ? -1 : 0;
}

/*
 * Keep side @k's run as a new session: @more's inputs (or shipped scenario
 * @e's) with the side's settings, answered in @runs as {"id","token"}.
 * 0, or a session error with the reason in @err.
 */
static int compare_open_run(const struct request *req, const struct session *more,
                            const struct catalog_entry *e, const struct compare_side *side,
                            cJSON *runs, struct strbuf *err)
{
    struct session *s = session_new(&req->app->cfg.lim);
    cJSON *o;
    size_t i;
    unsigned v;
    int ret;

    if (!s)
        return -ENOMEM;
    ret = more ? session_set_scenario(s, more->run->scenario_text, more->run->scenario_len,
                                      more->run->scenario_label)
               : session_set_scenario(s, e->text, e->len, e->name);
    for (i = 0; more && !ret && i < more->run->nr_batches; i++)
        ret = session_add_batch(s, more->run->batches[i].ops, more->run->batches[i].limit);
    if (ret)
        goto err_free;
    s->scenario_id = more ? more->scenario_id : e->row;
    if (more)
        memcpy(s->parent, more->parent, sizeof(s->parent));
    s->run->settings.has_seed = s->run->settings.has_model = true;
    s->run->settings.seed = side->cfg.seed;
    s->run->settings.model = side->cfg.model;
    s->run->settings.era = side->cfg.legacy_era;
    s->run->settings.has_kernel = side->cfg.release != SIM_RELEASE_NONE;
    s->run->settings.release = side->cfg.release;
    for (v = 0; v < SIM_NR_VARIANTS; v++) {
        s->run->settings.has_variant[v] = true;
        s->run->settings.variant[v] = side->cfg.variant[v];
    }
    if ((ret = registry_build(req->app->reg, s, err)))
        goto err_free;
    if ((ret = registry_add(req->app->reg, s))) /* frees s on failure */
        return ret;
    o = cJSON_CreateObject();
    if (!json_push(runs, o) || !json_put(o, "id", cJSON_CreateString(s->id)) ||
        !json_put(o, "token", cJSON_CreateString(s->token)) ||
        !json_put(o, "label", cJSON_CreateString(side->label)))
        ret = -ENOMEM;
    registry_put(req->app->reg, s);
    return ret;

err_free:
    session_free(s);
    return ret;
}

int route_compare(const struct request *req, struct response *res)
{
    const char *name = route_query(req, "scenario"), *cache = route_query(req, "cache");
    const char *format = route_query(req, "format"), *sid = route_query(req, "session");
    const char *open = route_query(req, "open");
    const struct catalog_entry *e = NULL;
    struct compare_side side[2];
    char cache_name[2][SIM_NAME_MAX] = {"", ""};
    struct strbuf err = STRBUF_INIT;
    struct scenario *scn = NULL;
    struct session *more = NULL;
    struct sim_config base;
    cJSON *o = NULL, *runs;
    uint64_t seed;
    int q, k, ret;

    if (!name == !sid)
        return route_error(res, 400, "bad_request",
                           "which run? (scenario=NAME or session=ID, not both)");
    if (format && strcmp(format, "json") == 0)
        format = NULL;
    if (format && strcmp(format, "md") && strcmp(format, "svg"))
        return route_error(res, 400, "bad_request", "format: json, md or svg");
    if (open && strcmp(open, "0") && strcmp(open, "1"))
        return route_error(res, 400, "bad_request", "open: 0 or 1");
    /* keeping the runs makes sessions: a change, so a POST (which the guard
     * takes only from the lab's own pages), never a GET a link can send */
    if (open && !strcmp(open, "1") && strcmp(req->method, "POST"))
        return route_error(res, 405, "method_not_allowed",
                           "open=1 keeps both runs as new sessions: use POST /api/compare");
    if (!strcmp(req->method, "POST") && !(open && !strcmp(open, "1")))
        return route_error(res, 400, "bad_request",
                           "POST /api/compare keeps both runs (open=1); GET compares only");
    if (name && !(e = app_scenario(req->app, name)))
        return route_error(res, 404, "not_found", "no scenario named \"%.64s\"", name);
    if (!req->may_block)
        return ROUTE_WOULD_BLOCK;
    memset(side, 0, sizeof(side)); /* out_release reads side[].snap */
    if (sid) {
        if (!(more = session_new(&req->app->cfg.lim))) {
            route_error(res, 503, "busy", "out of memory");
            goto out_release;
        }
        if (compare_session_inputs(req, res, sid, more, &base))
            goto out_release;
        ret = scenario_parse(more->run->scenario_text, more->run->scenario_len, more->run->scenario_label, &scn,
                             &err);
    } else {
        ret = scenario_parse(e->text, e->len, e->name, &scn, &err);
        if (!ret)
            base = scn->config;
    }
    if (ret) {
        route_error(res, 500, "internal", "%s", strbuf_str(&err));
        goto out_release;
    }
    if ((q = route_query_u64(req, res, "seed", UINT64_MAX, &seed)) < 0)
        goto out_release;
    if (q == 0)
        base.seed = seed;
    side[0].keep_snap = side[1].keep_snap = format != NULL;
    if (!compare_axis(req, res, &base, scn->variants_given, side))
        goto out_release;
    if (more && more->run->log_id[0]) { /* a replayed trace: its op log, run again */
        if (open && !strcmp(open, "1")) {
            route_error(res, 422, "unprocessable",
                        "open=1 keeps a comparison's runs as sessions of a scenario; a replayed "
                        "trace's runs are compared, not kept");
            goto out_release;
        }
        if (compare_trace_sides(req, res, sid, cache, side, cache_name, &err))
            goto out_release;
    } else if (compare_side_run(scn, more, cache, &side[0], cache_name[0], &err) ||
               compare_side_run(scn, more, cache, &side[1], cache_name[1], &err)) {
        route_error(res, 422, "unprocessable", "%s", strbuf_str(&err));
        goto out_release;
    }
    if (format) {
        compare_report(res, scn, cache_name[0], side, strcmp(format, "svg") == 0);
        goto out_release;
    }
    if (!(o = compare_json(scn, cache_name[0], side)) ||
        (sid && !json_put(o, "session", cJSON_CreateString(sid)))) {
        route_error(res, 503, "busy", "out of memory");
        goto out_release;
    }
    if (open && !strcmp(open, "1")) {
        if (!json_put(o, "runs", runs = cJSON_CreateArray())) {
            route_error(res, 503, "busy", "out of memory");
            goto out_release;
        }
        for (k = 0; k < 2; k++) {
            if ((ret = compare_open_run(req, more, e, &side[k], runs, &err))) {
                route_session_error(res, ret, err.len ? strbuf_str(&err) : NULL);
                goto out_release;
            }
        }
    }
    route_json(res, 200, o);
    o = NULL;
out_release:
    cJSON_Delete(o);
    session_free(more);
    sim_snapshot_release(side[0].snap);
    sim_snapshot_release(side[1].snap);
    strbuf_release(&err);
    scenario_release(scn);
    return 0;
}
