/*
 * scenario_zones.c: the page allocator's settings in a scenario.
 *
 * machine.dma_mb and machine.dma32_mb add ZONE_DMA and ZONE_DMA32 to node 0
 * (sim_config.dma_bytes, dma32_bytes); config.min_free_kbytes,
 * watermark_scale_factor, cma, reclaim_pages, kswapd and alloc_layout set the
 * watermarks and the modelled reclaim (docs/scenario-format.md).  The
 * engine's sim_zones_check() has the last word on what makes a machine, so
 * its reason is the scenario's error.
 */
#include "scenario/scenario_parse.h"

#include <errno.h>

int scenario_parse_machine_zones(struct scenario_ctx *ctx, const cJSON *m, struct sim_config *cfg)
{
    uint64_t v;
    int err;

    if ((err = scenario_get_uint(ctx, m, "dma_mb", false, 16, &v)) < 0)
        return err;
    if (err == 0)
        cfg->dma_bytes = v << 20;
    if ((err = scenario_get_uint(ctx, m, "dma32_mb", false, 4080, &v)) < 0)
        return err;
    if (err == 0)
        cfg->dma32_bytes = v << 20;
    if (cfg->dma_bytes % (4u << 20) || cfg->dma32_bytes % (4u << 20))
        return scenario_fail(ctx, "keys \"dma_mb\", \"dma32_mb\": must be multiples of 4");
    return 0;
}

int scenario_parse_config_zones(struct scenario_ctx *ctx, const cJSON *config,
                                struct sim_config *cfg)
{
    uint64_t v;
    int err, l;

    if ((err = scenario_get_uint(ctx, config, "min_free_kbytes", false, 262144, &v)) < 0)
        return err;
    if (err == 0)
        cfg->min_free_kbytes = (unsigned)v;
    if ((err = scenario_get_uint(ctx, config, "watermark_scale_factor", false, 3000, &v)) < 0)
        return err;
    if (err == 0)
        cfg->watermark_scale_factor = (unsigned)v;
    if ((err = scenario_get_uint(ctx, config, "reclaim_pages", false, 1u << 24, &v)) < 0)
        return err;
    if (err == 0)
        cfg->reclaim_pages = (unsigned)v;
    if ((err = scenario_get_bool(ctx, config, "cma", false, &cfg->cma)) < 0 ||
        (err = scenario_get_bool(ctx, config, "kswapd", false, &cfg->kswapd)) < 0)
        return err;
    if ((err = scenario_get_named(ctx, config, "alloc_layout", sim_alloc_layout_lookup,
                                  "kernel, renumbered or renumbered-forced", &l)) < 0)
        return err;
    if (err == 0)
        cfg->alloc_layout = (uint8_t)l;
    return 0;
}

int scenario_check_zones(struct scenario_ctx *ctx, const struct sim_config *cfg)
{
    char why[400];

    if (sim_zones_check(cfg, why, sizeof(why)))
        return scenario_fail(ctx, "%s", why);
    return 0;
}
