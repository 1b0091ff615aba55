/*
 * json_gfp.c: a decoded gfp mask as JSON (docs/api.md, GET /api/gfp; also
 * `slublab gfp --json`).
 *
 * Everything comes from sim_gfp_decode(): the server formats, it does not
 * decide.  Each ALLOC flags value goes out in hex and by name, in the
 * machine's ALLOC layout, with the kernel-layout hex beside it so the
 * renumbered layout's lesson can be read off one answer.
 */
#include "present/json_gfp.h"

#include "present/json_state.h"

static cJSON *json_alloc_flags(unsigned flags, unsigned layout)
{
    cJSON *o = cJSON_CreateObject();
    char names[160];

    if (!o)
        return NULL;
    sim_alloc_flags_format(flags, layout, names, sizeof(names));
    if (!json_put(o, "hex", json_hex(flags)) || !json_put(o, "names", json_str(names)) ||
        !json_put(o, "kernel_hex", json_hex(sim_alloc_flags_to_kernel(flags, layout))))
        return json_drop(o);
    return o;
}

static cJSON *json_zone_mark(const struct sim_gfp_zone_mark *m)
{
    cJSON *o = cJSON_CreateObject(), *wm = NULL;

    if (!o)
        return NULL;
    if (!json_put(o, "node", json_int(m->node)) ||
        !json_put(o, "zone", json_str(sim_zone_name(m->zone))) ||
        !json_put(o, "free_pages", json_uint(m->free_pages)) ||
        !json_put(o, "watermarks", wm = cJSON_CreateObject()) ||
        !json_put(wm, "min", json_uint(m->watermark[SIM_WMARK_MIN])) ||
        !json_put(wm, "low", json_uint(m->watermark[SIM_WMARK_LOW])) ||
        !json_put(wm, "high", json_uint(m->watermark[SIM_WMARK_HIGH])) ||
        !json_put(o, "lowmem_reserve", json_uint(m->lowmem_reserve)) ||
        !json_put(o, "fast_threshold", json_int(m->fast_threshold)) ||
        !json_put(o, "slow_threshold", json_int(m->slow_threshold)) ||
        !json_put(o, "retry_threshold",
                  m->retry_threshold < 0 ? cJSON_CreateNull() : json_int(m->retry_threshold)))
        return json_drop(o);
    return o;
}

cJSON *json_gfp_decoding(const struct sim_gfp_decoding *d, const struct sim_config *cfg,
                         unsigned context)
{
    cJSON *o = cJSON_CreateObject(), *zones = NULL;
    unsigned layout = cfg->alloc_layout;
    char names[256];

    if (!o)
        return NULL;
    sim_gfp_format(d->gfp, names, sizeof(names));
    if (!json_put(o, "gfp", json_hex(d->gfp)) || !json_put(o, "names", json_str(names)) ||
        !json_put(o, "order", json_uint(d->order)) ||
        !json_put(o, "context", json_str(sim_gfp_context_name(context))) ||
        !json_put(o, "cma", cJSON_CreateBool(cfg->cma)) ||
        !json_put(o, "translate",
                  json_str(cfg->variant[SIM_VAR_GFP_TRANSLATE] == SIM_AFTER ? "explicit"
                                                                            : "coupled")) ||
        !json_put(o, "alloc_layout", json_str(sim_alloc_layout_name(layout))) ||
        !json_put(o, "zone", json_str(sim_zone_name(d->zone))) ||
        !json_put(o, "migratetype", json_str(sim_migratetype_name(d->migratetype))) ||
        !json_put(o, "can_reclaim", cJSON_CreateBool(d->can_reclaim)) ||
        !json_put(o, "costly", cJSON_CreateBool(d->costly)) ||
        !json_put(o, "fast", json_alloc_flags(d->fast_flags, layout)) ||
        !json_put(o, "slow", json_alloc_flags(d->slow_flags, layout)) ||
        !json_put(o, "retry", json_alloc_flags(d->retry_flags, layout)) ||
        !json_put(o, "zonelist", zones = cJSON_CreateArray()))
        return json_drop(o);
    for (unsigned i = 0; i < d->nr_zones; i++)
        if (!json_push(zones, json_zone_mark(&d->zones[i])))
            return json_drop(o);
    return o;
}
