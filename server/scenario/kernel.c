/*
 * kernel.c: which kernel a run models (see kernel.h).
 *
 * A kernel version is the user's knob: "kernel" (a scenario's key, --kernel,
 * a session's settings) names a release of the engine's table, which fixes
 * the model, the legacy era and every variant as that release had them.
 * "model" is for experiments: a plain model keeps the variants it finds, and a
 * release's name as a model is the same as the kernel.  Given together, the
 * kernel wins and the model must agree with it, so a file that says "kernel":
 * "7.3" and "model": "legacy" is refused rather than half obeyed.  Explicit
 * variants override single variants of the release afterwards, and outputs
 * say which (kernel_describe()).  With neither, the lab runs the newest
 * release: every change proposed but in no release is off.
 */
#include "scenario/kernel.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int kernel_choose(const char *kernel, const char *model, uint32_t keep, struct sim_config *cfg,
                  char *msg, size_t len)
{
    enum sim_release rel = SIM_RELEASE_NONE;
    uint8_t saved[SIM_NR_VARIANTS];
    struct sim_config tmp = *cfg;
    char list[128];
    const char *why;

    memcpy(saved, cfg->variant, sizeof(saved));
    if (kernel && (rel = sim_kernel_lookup(kernel, false)) == SIM_RELEASE_NONE) {
        sim_release_list(list, sizeof(list));
        snprintf(msg, len, "unknown kernel \"%s\" (the releases slublab models: %s; X.Y.Z is X.Y)",
                 kernel, list);
        return -EINVAL;
    }
    if (model && sim_model_parse(model, &tmp)) {
        snprintf(msg, len,
                 "unknown model \"%s\" (sheaves, legacy, legacy:ERA_FROZEN_PARTIAL, "
                 "legacy:ERA_DELAYED_FREEZE, legacy:ERA_DIRECT_LOAD, hybrid or a release)",
                 model);
        return -EINVAL;
    }
    if (kernel && model && (why = sim_release_model_conflict(rel, &tmp))) {
        snprintf(msg, len, "model \"%s\" contradicts kernel %s: %s (give one of them)", model,
                 sim_release_name(rel), why);
        return -EINVAL;
    }
    if (!kernel && !model)
        rel = sim_release_newest();
    if (rel != SIM_RELEASE_NONE)
        sim_release_apply(rel, cfg);
    else
        *cfg = tmp;
    for (unsigned v = 0; v < SIM_NR_VARIANTS; v++)
        if (keep & (1u << v))
            cfg->variant[v] = saved[v];
    if (sim_model_error(cfg)) {
        snprintf(msg, len, "%s", sim_model_error(cfg));
        return -EINVAL;
    }
    return 0;
}

size_t kernel_describe(const struct sim_config *cfg, char *buf, size_t len)
{
    char changed[192];
    int n;

    if (!sim_release_name(cfg->release)) {
        if (len)
            buf[0] = 0;
        return 0;
    }
    if (sim_release_overrides(cfg->release, cfg, changed, sizeof(changed)))
        n = snprintf(buf, len, "%s with %s", sim_release_name(cfg->release), changed);
    else
        n = snprintf(buf, len, "%s", sim_release_name(cfg->release));
    return n < 0 ? 0 : (size_t)n;
}
