/*
 * routes_misc.c: the handlers that need no session: health, the scenario
 * catalogue and compare (see routes.h, docs/api.md).
 *
 * compare runs the scenario twice, which is engine work: it answers
 * ROUTE_WOULD_BLOCK on the first call and runs on a worker.
 */
#include "http/routes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/app.h"
#include "present/compare.h"
#include "present/json_state.h"
#include "present/report_md.h"
#include "scenario/scenario.h"
#include "present/svg_chart.h"

int route_health(const struct request *req, struct response *res)
{
    cJSON *o = cJSON_CreateObject();

    (void)req;
    if (o && (!json_put(o, "status", cJSON_CreateString("ok")) ||
              !json_put(o, "version", cJSON_CreateString(SIM_VERSION)))) {
        cJSON_Delete(o);
        o = NULL;
    }
    return route_json(res, 200, o);
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

/* The two configurations from ?variant= or ?model=; false after a 400. */
static bool compare_axis(const struct request *req, struct response *res,
                         const struct sim_config *base, struct compare_side side[2])
{
    const char *variant = route_query(req, "variant"), *models = route_query(req, "model");
    char name[64], va[32] = "before", vb[32] = "after";
    const char *eq;
    int k, id;

    side[0].cfg = side[1].cfg = *base;
    if (!variant == !models) {
        route_error(res, 400, "bad_request", "give exactly one of variant= and model=");
        return false;
    }
    if (models) {
        if (!compare_pair(models, va, vb, sizeof(va))) {
            route_error(res, 400, "bad_request", "model: expected A,B");
            return false;
        }
        for (k = 0; k < 2; k++) {
            if (sim_model_parse(k ? vb : va, &side[k].cfg) || sim_model_error(&side[k].cfg)) {
                route_error(res, 400, "bad_request", "model: unknown model \"%s\"", k ? vb : va);
                return false;
            }
            snprintf(side[k].label, sizeof(side[k].label), "model=%s", k ? vb : va);
        }
        return true;
    }
    eq = strchr(variant, '=');
    if (strlen(variant) >= sizeof(name) || (eq && !compare_pair(eq + 1, va, vb, sizeof(va)))) {
        route_error(res, 400, "bad_request", "variant: expected NAME or NAME=A,B");
        return false;
    }
    snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - variant) : 63, variant);
    if ((id = sim_variant_lookup(name)) < 0) {
        route_error(res, 400, "bad_request", "variant: unknown variant \"%s\"", name);
        return false;
    }
    for (k = 0; k < 2; k++) {
        const char *v = k ? vb : va;

        if (sim_variant_value_lookup((unsigned)id, v) < 0) {
            route_error(res, 400, "bad_request", "variant: \"%s\" is neither before nor after", v);
            return false;
        }
        side[k].cfg.variant[id] = (uint8_t)sim_variant_value_lookup((unsigned)id, v);
        snprintf(side[k].label, sizeof(side[k].label), "%s=%s", name, v);
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

int route_compare(const struct request *req, struct response *res)
{
    const char *name = route_query(req, "scenario"), *cache = route_query(req, "cache");
    const char *format = route_query(req, "format");
    const struct catalog_entry *e;
    struct compare_side side[2];
    char cache_name[2][SIM_NAME_MAX] = {"", ""};
    struct strbuf err = STRBUF_INIT;
    struct scenario *scn = NULL;
    struct sim_config base;
    uint64_t seed;
    int q;

    if (!name)
        return route_error(res, 400, "bad_request", "which scenario? (scenario=NAME)");
    if (format && strcmp(format, "json") == 0)
        format = NULL;
    if (format && strcmp(format, "md") && strcmp(format, "svg"))
        return route_error(res, 400, "bad_request", "format: json, md or svg");
    if (!(e = app_scenario(req->app, name)))
        return route_error(res, 404, "not_found", "no scenario named \"%.64s\"", name);
    if (!req->may_block)
        return ROUTE_WOULD_BLOCK;
    memset(side, 0, sizeof(side)); /* out_release reads side[].snap */
    if (scenario_parse(e->text, e->len, e->name, &scn, &err)) {
        route_error(res, 500, "internal", "%s", strbuf_str(&err));
        goto out_release;
    }
    base = scn->config;
    if ((q = route_query_u64(req, res, "seed", UINT64_MAX, &seed)) < 0)
        goto out_release;
    if (q == 0)
        base.seed = seed;
    side[0].keep_snap = side[1].keep_snap = format != NULL;
    if (!compare_axis(req, res, &base, side))
        goto out_release;
    if (compare_side_run(scn, cache, &side[0], cache_name[0], &err) ||
        compare_side_run(scn, cache, &side[1], cache_name[1], &err)) {
        route_error(res, 422, "unprocessable", "%s", strbuf_str(&err));
        goto out_release;
    }
    if (format)
        compare_report(res, scn, cache_name[0], side, strcmp(format, "svg") == 0);
    else
        route_json(res, 200, compare_json(scn, cache_name[0], side));
out_release:
    sim_snapshot_release(side[0].snap);
    sim_snapshot_release(side[1].snap);
    strbuf_release(&err);
    scenario_release(scn);
    return 0;
}
