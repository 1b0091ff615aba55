/*
 * routes_gfp.c: GET /api/gfp, what a gfp mask decides (docs/api.md).
 *
 * The UI's gfp decoder asks here, because deciding is the engine's job:
 * the handler builds the machine (the default one, or a catalogue
 * scenario's, with an optional variant), lets sim_gfp_decode() answer and
 * formats that with json_gfp_decoding(), the same answer as
 * `slublab gfp --json`.  A machine costs nothing until it allocates, so the
 * route runs inline.
 */
#include "http/routes.h"

#include <stdio.h>
#include <string.h>

#include "base/hint.h"
#include "base/strbuf.h"
#include "http/app.h"
#include "present/json_gfp.h"
#include "scenario/scenario.h"

int route_gfp(const struct request *req, struct response *res)
{
    const char *mask = route_query(req, "mask"), *name = route_query(req, "scenario");
    const char *ctx_name = route_query(req, "context"), *variant = route_query(req, "variant");
    struct strbuf err = STRBUF_INIT;
    struct scenario *scn = NULL;
    struct sim_gfp_decoding d;
    struct sim_config cfg;
    struct sim *sim = NULL;
    uint64_t order = 0, node = 0;
    int context = SIM_CTX_TASK;
    char msg[400];
    uint32_t gfp;

    if (!mask || !*mask)
        return route_error(res, 400, "bad_request", "which mask? (mask=GFP_KERNEL|__GFP_ZERO)");
    if (sim_gfp_parse(mask, &gfp))
        return route_error(res, 400, "bad_request",
                           "mask: \"%.100s\" is not a gfp mask: names like GFP_KERNEL or "
                           "__GFP_ZERO joined by |, or hex like 0xcc0",
                           mask);
    if (route_query_u64(req, res, "order", SIM_MAX_ORDER, &order) < 0 ||
        route_query_u64(req, res, "node", SIM_MAX_NODES - 1, &node) < 0)
        return 0;
    if (ctx_name && (context = sim_gfp_context_lookup(ctx_name)) < 0)
        return route_error(res, 400, "bad_request", "context: \"%.32s\" is not task, atomic or rt",
                           ctx_name);
    sim_config_default(&cfg);
    if (name) {
        const struct catalog_entry *e = app_scenario(req->app, name);

        if (!e)
            return route_error(res, 404, "not_found", "no scenario named \"%.64s\"", name);
        if (scenario_parse(e->text, e->len, e->name, &scn, &err)) {
            route_error(res, 500, "internal", "%s", strbuf_str(&err));
            goto out;
        }
        cfg = scn->config;
    }
    if (variant) {
        const char *eq = strchr(variant, '=');
        char vname[64];
        int id, v;

        snprintf(vname, sizeof(vname), "%.*s", eq ? (int)(eq - variant) : 63, variant);
        if (!eq || (id = hint_lookup(vname, sim_variant_name, SIM_NR_VARIANTS)) < 0 ||
            (v = sim_variant_value_lookup((unsigned)id, eq + 1)) < 0) {
            route_error(res, 400, "bad_request", "variant: wants NAME=before|after, not \"%.64s\"",
                        variant);
            goto out;
        }
        cfg.variant[id] = (uint8_t)v;
    }
    if (sim_zones_check(&cfg, msg, sizeof(msg))) {
        route_error(res, 400, "bad_request", "%s", msg);
        goto out;
    }
    if (node >= cfg.nr_nodes) {
        route_error(res, 400, "bad_request", "node: the machine has %u node(s)", cfg.nr_nodes);
        goto out;
    }
    if (sim_create(&cfg, &sim)) {
        route_error(res, 503, "unavailable", "cannot create the machine");
        goto out;
    }
    if (sim_gfp_decode(sim, gfp, (unsigned)order, (int)node, (enum sim_gfp_context)context, &d,
                       msg, sizeof(msg))) {
        route_error(res, 400, "bad_request", "mask: %s", msg);
        goto out;
    }
    route_json(res, 200, json_gfp_decoding(&d, &cfg, (unsigned)context));
out:
    sim_destroy(sim);
    scenario_release(scn);
    strbuf_release(&err);
    return 0;
}
