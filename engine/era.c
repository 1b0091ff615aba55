/*
 * era.c: the memory model of a machine and the legacy model's eras.
 *
 * The sheaves model is SLUB since 6.18; the legacy model is SLUB with
 * per-CPU slabs and per-CPU partial lists, in three eras that differ in how
 * a CPU partial slab becomes the CPU slab (specification part 0.2):
 * ERA_FROZEN_PARTIAL (6.2-6.7, partial slabs stay frozen), ERA_DELAYED_FREEZE
 * (6.8, "slub: delay freezing of partial slabs": unlock, freeze_slab,
 * relock) and ERA_DIRECT_LOAD (6.9-6.17, commit 90b1e56641bb "directly
 * load freelist from cpu partial slab in the likely case").  The last step
 * is also the variant CPU_PARTIAL_DIRECT_LOAD, so the two spellings name
 * the same machines: an explicit era sets the variant, and a config whose
 * era and variant disagree is refused.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const era_names[] = {
    [SIM_ERA_DEFAULT] = "default",
    [SIM_ERA_FROZEN_PARTIAL] = "ERA_FROZEN_PARTIAL",
    [SIM_ERA_DELAYED_FREEZE] = "ERA_DELAYED_FREEZE",
    [SIM_ERA_DIRECT_LOAD] = "ERA_DIRECT_LOAD",
};

const char *sim_legacy_era_name(enum sim_legacy_era era)
{
    return (unsigned)era <= SIM_ERA_DIRECT_LOAD ? era_names[era] : NULL;
}

/* "ERA_DIRECT_LOAD", "era_direct_load" or "DIRECT_LOAD"; -1 when unknown. */
static int era_lookup(const char *name)
{
    for (int e = SIM_ERA_FROZEN_PARTIAL; e <= SIM_ERA_DIRECT_LOAD; e++)
        if (!strcasecmp(name, era_names[e]) || !strcasecmp(name, era_names[e] + 4))
            return e;
    return -1;
}

enum sim_legacy_era sim_legacy_era(const struct sim_config *cfg)
{
    if (cfg->legacy_era != SIM_ERA_DEFAULT)
        return cfg->legacy_era;
    return cfg->variant[SIM_VAR_CPU_PARTIAL_DIRECT_LOAD] == SIM_BEFORE ? SIM_ERA_DELAYED_FREEZE
                                                                      : SIM_ERA_DIRECT_LOAD;
}

int sim_model_parse(const char *text, struct sim_config *cfg)
{
    const char *colon = strchr(text, ':');
    char model[16];
    size_t n = colon ? (size_t)(colon - text) : strlen(text);
    int m, era;

    if (n >= sizeof(model))
        return -EINVAL;
    memcpy(model, text, n);
    model[n] = 0;
    if ((m = sim_model_lookup(model)) < 0)
        return -EINVAL;
    if (!colon) {
        cfg->model = (enum sim_model)m;
        cfg->legacy_era = SIM_ERA_DEFAULT;
        return 0;
    }
    if (m != SIM_MODEL_LEGACY || (era = era_lookup(colon + 1)) < 0)
        return -EINVAL;
    cfg->model = SIM_MODEL_LEGACY;
    cfg->legacy_era = (enum sim_legacy_era)era;
    cfg->variant[SIM_VAR_CPU_PARTIAL_DIRECT_LOAD] =
            era == SIM_ERA_DIRECT_LOAD ? SIM_AFTER : SIM_BEFORE;
    return 0;
}

size_t sim_model_format(const struct sim_config *cfg, char *buf, size_t len)
{
    int n;

    if (cfg->model == SIM_MODEL_LEGACY)
        n = snprintf(buf, len, "legacy:%s", sim_legacy_era_name(sim_legacy_era(cfg)));
    else
        n = snprintf(buf, len, "%s", sim_model_name(cfg->model) ? sim_model_name(cfg->model) : "?");
    return n < 0 ? 0 : (size_t)n;
}

const char *sim_model_error(const struct sim_config *cfg)
{
    uint8_t direct = cfg->variant[SIM_VAR_CPU_PARTIAL_DIRECT_LOAD];

    if (cfg->model != SIM_MODEL_SHEAVES && cfg->model != SIM_MODEL_LEGACY)
        return "unknown model (expected sheaves or legacy)";
    if ((unsigned)cfg->legacy_era > SIM_ERA_DIRECT_LOAD)
        return "unknown legacy era";
    if (cfg->legacy_era == SIM_ERA_DEFAULT)
        return NULL;
    if (cfg->model != SIM_MODEL_LEGACY)
        return "an era (legacy:ERA_...) belongs to the legacy model";
    if (cfg->legacy_era == SIM_ERA_DIRECT_LOAD && direct != SIM_AFTER)
        return "legacy:ERA_DIRECT_LOAD is CPU_PARTIAL_DIRECT_LOAD=after, not before";
    if (cfg->legacy_era != SIM_ERA_DIRECT_LOAD && direct != SIM_BEFORE)
        return cfg->legacy_era == SIM_ERA_DELAYED_FREEZE
                ? "legacy:ERA_DELAYED_FREEZE is CPU_PARTIAL_DIRECT_LOAD=before, not after"
                : "legacy:ERA_FROZEN_PARTIAL predates CPU_PARTIAL_DIRECT_LOAD: it needs =before";
    return NULL;
}

bool sim_variant_in_model(unsigned v, enum sim_model m)
{
    switch (v) {
    case SIM_VAR_DEFERRED_FREELIST: /* the sheaf era's slab and refill changes */
    case SIM_VAR_BARN_REFILL:
    case SIM_VAR_REFILL_RETURN:
        return m == SIM_MODEL_SHEAVES;
    case SIM_VAR_CPU_PARTIAL_DIRECT_LOAD:
        return m == SIM_MODEL_LEGACY;
    default: /* DETACHED_FREELIST, and any change below the per-CPU layer */
        return v < SIM_NR_VARIANTS;
    }
}
