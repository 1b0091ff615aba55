/*
 * gfp_decode.c: what a gfp mask decides on a given machine, without allocating
 * anything.
 *
 * The `slublab gfp` command and the server's gfp route show a mask's zone and
 * migratetype, the ALLOC flags of each attempt of the page allocator (fast
 * path, first slow-path attempt, the reserve retry) and, zone by zone along the
 * zonelist, the watermark the request would be held to at each attempt.  Every
 * value comes from the functions alloc_pages.c runs (alloc_flags.c,
 * watermark.c), so the table cannot disagree with what an allocation does.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

int sim_gfp_decode(const struct sim *sim, uint32_t gfp, unsigned order, int node,
        enum sim_gfp_context context, struct sim_gfp_decoding *out, char *msg, size_t len)
{
    const struct alloc_layout *l = alloc_layout_of(sim->cfg.alloc_layout);
    unsigned layout = sim->cfg.alloc_layout, translate = sim->cfg.variant[SIM_VAR_GFP_TRANSLATE];
    struct sim_gfp_ctx ctx;
    unsigned highest, nid, reserve;
    int t;
    bool dma32;

    if (sim_gfp_check(gfp, msg, len))
        return -EINVAL;
    if (order > MAX_PAGE_ORDER || context > SIM_CTX_RT ||
            (node != SIM_NUMA_NO_NODE && (node < 0 || (unsigned)node >= sim->cfg.nr_nodes))) {
        snprintf(msg, len, "order must be 0..%u, context task, atomic or rt, node 0..%u",
                MAX_PAGE_ORDER, sim->cfg.nr_nodes - 1);
        return -EINVAL;
    }
    ctx = sim_gfp_ctx_of(context, sim->cfg.cma);
    memset(out, 0, sizeof(*out));
    t = sim_gfp_zone(gfp);
    highest = (unsigned)t;
    if ((t == SIM_ZONE_DMA && !sim->cfg.dma_bytes) || (t == SIM_ZONE_DMA32 && !sim->cfg.dma32_bytes))
        highest = SIM_ZONE_NORMAL;
    nid = node == SIM_NUMA_NO_NODE ? 0 : (unsigned)node;
    out->gfp = gfp;
    out->order = order;
    out->zone = highest;
    out->migratetype = sim_gfp_migratetype(gfp);
    out->can_reclaim = (gfp & SIM_GFP_DIRECT_RECLAIM) != 0;
    out->costly = order > 3;
    out->slow_flags = sim_gfp_to_alloc_flags(gfp, order, &ctx, translate, layout);
    reserve = sim_gfp_pfmemalloc_flags(gfp, &ctx, layout);
    out->retry_flags = out->slow_flags;
    if (reserve) {
        out->retry_flags = reserve | (out->slow_flags & l->kswapd);
        if (ctx.cma && out->migratetype == SIM_MIGRATE_MOVABLE)
            out->retry_flags |= l->cma;
    }
    for (unsigned d = 0; d < ((gfp & SIM_GFP_THISNODE) ? 1 : sim->cfg.nr_nodes); d++) {
        unsigned n = (nid + d) % sim->cfg.nr_nodes;

        for (int zt = (int)highest; zt >= 0; zt--) {
            int zi = sim->zone_of_type[n][zt];
            const struct zone *z;
            struct sim_gfp_zone_mark *m;
            long reserve_pages;

            if (zi < 0)
                continue;
            z = &sim->zones[zi];
            m = &out->zones[out->nr_zones++];
            m->node = z->node;
            m->zone = z->type;
            m->free_pages = z->free_pages;
            memcpy(m->watermark, z->wmark, sizeof(m->watermark));
            m->lowmem_reserve = z->lowmem_reserve[highest];
            reserve_pages = (long)m->lowmem_reserve;
            m->fast_threshold = (long)z->wmark[SIM_WMARK_LOW] + reserve_pages;
            m->slow_threshold = sim_effective_min(out->slow_flags,
                                        (long)z->wmark[out->slow_flags & l->wmark_mask], layout) +
                    reserve_pages;
            m->retry_threshold = (out->retry_flags & l->no_watermarks)
                    ? -1
                    : sim_effective_min(out->retry_flags,
                              (long)z->wmark[out->retry_flags & l->wmark_mask], layout) +
                            reserve_pages;
        }
    }
    dma32 = out->nr_zones && sim->cfg.dma32_bytes &&
            (sim->cfg.nr_nodes == 1 || sim->zone_of_type[out->zones[0].node][SIM_ZONE_DMA32] >= 0);
    out->fast_flags = SIM_ALLOC_WMARK_LOW |
            sim_alloc_flags_nofragment(gfp, out->nr_zones ? out->zones[0].zone : highest, dma32,
                    translate, layout);
    if (ctx.cma && out->migratetype == SIM_MIGRATE_MOVABLE)
        out->fast_flags |= l->cma;
    return 0;
}
