/*
 * settings.c: a session's settings (seed, model, variants) as the JSON
 * object a request gives and the store keeps (see session.h).
 *
 * The same object goes in (POST /api/sessions, a stored session's row) and
 * out (the session's description, the row written back), so a session
 * rebuilt from the store runs with exactly the settings it was made with.
 */
#include "session/session.h"

#include <stdio.h>
#include <string.h>

#include "base/hint.h"
#include "base/json.h"
#include "scenario/scenario_write.h"

int session_settings_parse(const cJSON *json, struct session_settings *st, struct strbuf *err)
{
    const cJSON *seed, *model, *kernel, *variants, *v;

    memset(st, 0, sizeof(*st));
    if (!json)
        return 0;
    seed = cJSON_GetObjectItemCaseSensitive(json, "seed");
    model = cJSON_GetObjectItemCaseSensitive(json, "model");
    kernel = cJSON_GetObjectItemCaseSensitive(json, "kernel");
    variants = cJSON_GetObjectItemCaseSensitive(json, "variants");
    if (seed) {
        double d = cJSON_IsNumber(seed) ? seed->valuedouble : -1;

        if (!(d >= 0 && d <= 9007199254740991.0) || d != (double)(uint64_t)d) {
            strbuf_puts(err, "key \"seed\": expected an integer from 0 to 2^53 - 1");
            return SESSION_EBADINPUT;
        }
        st->has_seed = true;
        st->seed = (uint64_t)d;
    }
    if (model) {
        struct sim_config tmp;

        sim_config_default(&tmp);
        if (!cJSON_IsString(model) || sim_model_parse(model->valuestring, &tmp)) {
            strbuf_puts(err, "key \"model\": expected a model name (\"sheaves\", \"legacy\" or "
                             "\"legacy:ERA_FROZEN_PARTIAL|ERA_DELAYED_FREEZE|ERA_DIRECT_LOAD\")");
            return SESSION_EBADINPUT;
        }
        st->has_model = true;
        st->model = tmp.model;
        st->era = tmp.legacy_era;
        if (tmp.release != SIM_RELEASE_NONE) { /* "model": "6.12" is the kernel */
            st->has_kernel = true;
            st->release = tmp.release;
        }
        if (tmp.legacy_era != SIM_ERA_DEFAULT) { /* the era names the variant too */
            st->has_variant[SIM_VAR_CPU_PARTIAL_DIRECT_LOAD] = true;
            st->variant[SIM_VAR_CPU_PARTIAL_DIRECT_LOAD] =
                    tmp.variant[SIM_VAR_CPU_PARTIAL_DIRECT_LOAD];
        }
    }
    if (kernel && !cJSON_IsNull(kernel)) {
        struct sim_config tmp;
        enum sim_release r = cJSON_IsString(kernel) ? sim_kernel_lookup(kernel->valuestring, false)
                                                    : SIM_RELEASE_NONE;
        char list[128];
        const char *why;

        sim_release_list(list, sizeof(list));
        if (r == SIM_RELEASE_NONE) {
            strbuf_printf(err, "key \"kernel\": expected a release (%s; X.Y.Z is X.Y)", list);
            return SESSION_EBADINPUT;
        }
        sim_config_default(&tmp);
        if (st->has_model) {
            tmp.model = st->model;
            tmp.legacy_era = st->era;
            tmp.release = st->has_kernel ? st->release : SIM_RELEASE_NONE;
            if ((why = sim_release_model_conflict(r, &tmp))) {
                strbuf_printf(err, "key \"model\": contradicts kernel %s: %s", sim_release_name(r),
                              why);
                return SESSION_EBADINPUT;
            }
        }
        st->has_kernel = true;
        st->release = r;
    }
    if (variants) {
        if (!cJSON_IsObject(variants)) {
            strbuf_puts(err, "key \"variants\": expected an object");
            return SESSION_EBADINPUT;
        }
        for (v = variants->child; v; v = v->next) {
            int id = hint_lookup(v->string, sim_variant_name, SIM_NR_VARIANTS);

            if (id < 0) {
                strbuf_printf(err, "key \"variants\": unknown variant \"%.64s\"", v->string);
                hint_append(err, v->string, sim_variant_name, SIM_NR_VARIANTS, "variants");
                return SESSION_EBADINPUT;
            }
            if (!cJSON_IsString(v) ||
                (strcmp(v->valuestring, "before") != 0 && strcmp(v->valuestring, "after") != 0)) {
                strbuf_printf(err, "key \"variants\": %s: expected \"before\" or \"after\"",
                              v->string);
                return SESSION_EBADINPUT;
            }
            st->has_variant[id] = true;
            st->variant[id] = strcmp(v->valuestring, "after") == 0 ? SIM_AFTER : SIM_BEFORE;
        }
    }
    return 0;
}

void session_settings_apply(const struct session_settings *st, const struct scenario *scn,
                            struct sim_config *cfg)
{
    unsigned v;

    *cfg = scn->config;
    if (st->has_seed)
        cfg->seed = st->seed;
    if (st->has_kernel) {
        sim_release_apply(st->release, cfg);
        for (v = 0; v < SIM_NR_VARIANTS; v++) /* the scenario's explicit variants stay */
            if (scn->variants_given & (1u << v))
                cfg->variant[v] = scn->config.variant[v];
    } else if (st->has_model) {
        cfg->model = st->model;
        cfg->legacy_era = st->era;
        cfg->release = SIM_RELEASE_NONE;
    }
    for (v = 0; v < SIM_NR_VARIANTS; v++)
        if (st->has_variant[v])
            cfg->variant[v] = st->variant[v];
}

cJSON *session_run_settings_json(const struct session_run *r)
{
    cJSON *o = cJSON_CreateObject();
    char model[64];

    sim_model_format(&r->cfg, model, sizeof(model));
    if (!o || !json_put(o, "seed", json_uint(r->cfg.seed)) ||
        !json_put(o, "kernel",
                  sim_release_name(r->cfg.release)
                          ? cJSON_CreateString(sim_release_name(r->cfg.release))
                          : cJSON_CreateNull()) ||
        !json_put(o, "model", json_str(model)) ||
        !json_put(o, "variants", scenario_write_variants(&r->cfg)))
        return json_drop(o);
    return o;
}

cJSON *session_settings_json(const struct session *s)
{
    return session_run_settings_json(s->run);
}
