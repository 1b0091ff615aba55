/*
 * alloc_pages.c: which zone gives the pages, and on what terms.
 *
 * An allocation (kernel: __alloc_pages) picks its highest zone and migratetype
 * from the gfp mask, walks the zonelist (the node's zones from that zone down,
 * then the other nodes', nearest first; own node only with __GFP_THISNODE) and
 * takes a block from the first zone whose watermark test passes
 * (get_page_from_freelist).  The fast path tests the low watermark with no
 * reserve; when it fails, the slow path (__alloc_pages_slowpath) recomputes the
 * flags from the mask (gfp_to_alloc_flags), wakes kswapd, tests the min
 * watermark cut by the reserves the flags grant, then retries with
 * ALLOC_NO_WATERMARKS or ALLOC_OOM when the context allows, and, if the caller
 * may block, reclaims and retries.  The model has no compaction and no OOM
 * killer: where the kernel would compact or kill, an event says so and nothing
 * is gained; reclaim (vmscan.c) frees reclaimable blocks held by
 * SIM_OP_ALLOC_PAGES users: direct reclaim up to cfg.reclaim_pages, and kswapd,
 * once woken, at the end of the operation when cfg.kswapd is set.
 *
 * A decision is recorded in sim->pa and attached to the event of whoever asked
 * for the pages (new_slab, __alloc_pages); the allocator emits events of its
 * own only for notable outcomes: entering the slow path, waking kswapd, a
 * reserve letting a request below the plain watermark, a zone other than the
 * preferred one, pages taken ignoring watermarks, the places it would reclaim,
 * compact or kill, and failure.
 */
#include "internal.h"

#include <stdio.h>

#define MAX_ZONELIST       (SIM_MAX_NODES * SIM_NR_ZONE_TYPES)
#define MAX_RECLAIM_RETRIES 16
#define COSTLY_ORDER       3 /* PAGE_ALLOC_COSTLY_ORDER */

struct alloc_context {
    const struct kmem_cache *s; /* the cache asking, for event attribution, or NULL */
    uint32_t gfp;
    unsigned order;
    int nid;
    unsigned highest, mt;
    int zonelist[MAX_ZONELIST]; /* indices in sim->zones */
    unsigned nr_zones;
    bool kswapd_woken;
};

/* Create every zone and its watermarks.  Host allocation failures unwind. */
void zones_create(struct sim *sim)
{
    const struct sim_config *cfg = &sim->cfg;
    unsigned n = cfg->nr_nodes, i;

    sim->nr_zones = n + (cfg->dma_bytes != 0) + (cfg->dma32_bytes != 0);
    sim->zones = sim_zalloc(sim, sim->nr_zones * sizeof(*sim->zones));
    for (unsigned a = 0; a < SIM_MAX_NODES; a++)
        for (unsigned t = 0; t < SIM_NR_ZONE_TYPES; t++)
            sim->zone_of_type[a][t] = -1;
    for (i = 0; i < n; i++) {
        zone_init(sim, &sim->zones[i], (int)i, SIM_ZONE_NORMAL,
                DIRECT_MAP_BASE + PHYS_START + i * cfg->mem_per_node,
                (unsigned long)(cfg->mem_per_node / PAGE_SIZE));
        sim->zone_of_type[i][SIM_ZONE_NORMAL] = (int)i;
    }
    if (cfg->dma_bytes) {
        zone_init(sim, &sim->zones[i], 0, SIM_ZONE_DMA, DIRECT_MAP_BASE,
                (unsigned long)(cfg->dma_bytes / PAGE_SIZE));
        sim->zone_of_type[0][SIM_ZONE_DMA] = (int)i++;
    }
    if (cfg->dma32_bytes) {
        zone_init(sim, &sim->zones[i], 0, SIM_ZONE_DMA32, DIRECT_MAP_BASE + (16ull << 20),
                (unsigned long)(cfg->dma32_bytes / PAGE_SIZE));
        sim->zone_of_type[0][SIM_ZONE_DMA32] = (int)i;
    }
    setup_per_zone_wmarks(sim);
}

/* gfp_zone(), with a zone type the machine does not configure read as
 * ZONE_NORMAL (as a kernel built without CONFIG_ZONE_DMA does). */
static unsigned highest_zone(const struct sim *sim, uint32_t gfp)
{
    int t = sim_gfp_zone(gfp);

    SIM_BUG_ON(t < 0); /* callers check the mask */
    if ((t == SIM_ZONE_DMA && !sim->cfg.dma_bytes) ||
            (t == SIM_ZONE_DMA32 && !sim->cfg.dma32_bytes))
        return SIM_ZONE_NORMAL;
    return (unsigned)t;
}

/* The zonelist of @nid for @gfp (kernel: node_zonelist, first_zones_zonelist). */
static void build_zonelist(const struct sim *sim, struct alloc_context *ac)
{
    unsigned nodes = (ac->gfp & SIM_GFP_THISNODE) ? 1 : sim->cfg.nr_nodes;

    ac->nr_zones = 0;
    for (unsigned d = 0; d < nodes; d++) {
        unsigned n = ((unsigned)ac->nid + d) % sim->cfg.nr_nodes;

        for (int t = (int)ac->highest; t >= 0; t--)
            if (sim->zone_of_type[n][t] >= 0)
                ac->zonelist[ac->nr_zones++] = sim->zone_of_type[n][t];
    }
}

/* Open and close an event carrying the current decision. */
static void pa_event(struct sim *sim, const struct alloc_context *ac, const char *fn,
        const char *label)
{
    ev_begin(sim, ac->s, fn, label, sim->pa.node);
    sim->ev.page = &sim->pa;
    ev_end(sim);
}

static const char *const mark_names[] = {"min", "low", "high", "promo"};

/* get_page_from_freelist: the first zone of the zonelist that passes its
 * watermark under @flags gives the block.  0 with *addr, or -ENOMEM. */
static int from_freelist(struct sim *sim, struct alloc_context *ac, unsigned flags,
        const char *path, sim_addr_t *addr)
{
    const struct alloc_layout *l = alloc_layout_of(sim->cfg.alloc_layout);
    struct sim_page_alloc *pa = &sim->pa;

    for (unsigned i = 0; i < ac->nr_zones; i++) {
        struct zone *z = &sim->zones[ac->zonelist[i]];
        unsigned long mark;
        long threshold, plain;
        bool ok;

        if ((flags & l->nofragment) && z->node != ac->nid)
            flags &= ~l->nofragment; /* fragmenting locally beats a remote node */
        mark = z->wmark[flags & l->wmark_mask];
        ok = zone_watermark_ok(sim, z, ac->order, mark, ac->highest, flags, &threshold);
        pa->alloc_flags = flags;
        pa->node = z->node;
        pa->zone = z->type;
        pa->path = path;
        pa->mark = mark_names[flags & l->wmark_mask];
        pa->free = z->free_pages;
        pa->threshold = threshold;
        pa->pfmemalloc = false;
        if (!ok && !(flags & l->no_watermarks))
            continue;
        if (rmqueue_buddy(sim, z, ac->order, addr))
            continue;
        pa->addr = *addr;
        if (flags & l->no_watermarks) {
            pa->pfmemalloc = true; /* reserve memory: the page is marked pfmemalloc */
            if (!ok) {
                pa->mark = "none";
                pa_event(sim, ac, "get_page_from_freelist", "no_watermarks");
            }
        }
        plain = (long)mark + (long)z->lowmem_reserve[ac->highest];
        if (ok && (long)pa->free - ((1l << ac->order) - 1) <= plain)
            pa_event(sim, ac, "__zone_watermark_ok", "reserve");
        if (ac->nr_zones > 1)
            branch_record(sim, BP_ZONE_FALLBACK, i > 0 ? ZF_FALLBACK : ZF_PREFERRED);
        if (i > 0)
            pa_event(sim, ac, "get_page_from_freelist", "zone_fallback");
        return 0;
    }
    return -ENOMEM;
}

static void wake_kswapd(struct sim *sim, struct alloc_context *ac)
{
    if (ac->kswapd_woken)
        return;
    ac->kswapd_woken = true;
    for (unsigned i = 0; i < ac->nr_zones; i++)
        sim->kswapd_woken |= 1u << sim->zones[ac->zonelist[i]].node;
    pa_event(sim, ac, "wake_all_kswapds", "wake");
}

/* Direct reclaim, modelled (vmscan.c): up to cfg.reclaim_pages from the
 * zonelist's zones.  Returns the pages freed. */
static unsigned long direct_reclaim(struct sim *sim, struct alloc_context *ac)
{
    unsigned long freed = reclaim_user_blocks(sim, ac->zonelist, ac->nr_zones,
            sim->cfg.reclaim_pages);

    pa_event(sim, ac, "__alloc_pages_direct_reclaim", freed ? "reclaimed" : "no_progress");
    return freed;
}

/* __alloc_pages_slowpath: 0 with *addr, or -ENOMEM. */
static int slowpath(struct sim *sim, struct alloc_context *ac, sim_addr_t *addr)
{
    const struct alloc_layout *l = alloc_layout_of(sim->cfg.alloc_layout);
    unsigned layout = sim->cfg.alloc_layout, translate = sim->cfg.variant[SIM_VAR_GFP_TRANSLATE];
    uint32_t gfp = ac->gfp;
    bool can_reclaim = gfp & SIM_GFP_DIRECT_RECLAIM, costly = ac->order > COSTLY_ORDER;
    unsigned flags = sim_gfp_to_alloc_flags(gfp, ac->order, &sim->gfp_ctx, translate, layout);
    unsigned reserve = sim_gfp_pfmemalloc_flags(gfp, &sim->gfp_ctx, layout);
    const char *path = "slow";

    pa_event(sim, ac, "__alloc_pages_slowpath", "enter");
    if (flags & l->kswapd)
        wake_kswapd(sim, ac);
    if (!from_freelist(sim, ac, flags, path, addr))
        return 0;
    if (can_reclaim && (costly || (ac->order > 0 && ac->mt != SIM_MIGRATE_MOVABLE)) && !reserve) {
        pa_event(sim, ac, "__alloc_pages_direct_compact", "not_modelled");
        if (costly && (gfp & SIM_GFP_NORETRY))
            goto nopage;
    }
    for (unsigned loop = 0; loop < MAX_RECLAIM_RETRIES; loop++) {
        unsigned long freed;

        if (flags & l->kswapd)
            wake_kswapd(sim, ac);
        if (reserve) {
            flags = reserve | (flags & l->kswapd);
            if (sim->gfp_ctx.cma && ac->mt == SIM_MIGRATE_MOVABLE)
                flags |= l->cma;
            path = "reserve";
        }
        if (!from_freelist(sim, ac, flags, path, addr))
            return 0;
        if (!can_reclaim || sim->gfp_ctx.pf_memalloc)
            goto nopage;
        freed = direct_reclaim(sim, ac);
        if (!from_freelist(sim, ac, flags, "reclaim", addr))
            return 0;
        if (ac->order > 0)
            pa_event(sim, ac, "__alloc_pages_direct_compact", "not_modelled");
        if (gfp & SIM_GFP_NORETRY)
            goto nopage;
        if (costly && !(gfp & SIM_GFP_RETRY_MAYFAIL))
            goto nopage;
        if (freed)
            continue; /* should_reclaim_retry: progress was made */
        /* __alloc_pages_may_oom: one last look at the high watermark, then
         * the OOM killer, except for costly, __GFP_RETRY_MAYFAIL,
         * __GFP_THISNODE and lowmem-only requests */
        if (!from_freelist(sim, ac, SIM_ALLOC_WMARK_HIGH | l->cpuset, "oom_probe", addr))
            return 0;
        if (!costly && !(gfp & (SIM_GFP_RETRY_MAYFAIL | SIM_GFP_THISNODE)) &&
                ac->highest >= SIM_ZONE_NORMAL)
            pa_event(sim, ac, "__alloc_pages_may_oom", "not_modelled");
        break;
    }
nopage:
    if ((gfp & SIM_GFP_NOFAIL) && can_reclaim) {
        /* __alloc_pages_cpuset_fallback */
        if (!from_freelist(sim, ac, l->min_reserve | l->cpuset, "nofail", addr) ||
                !from_freelist(sim, ac, l->min_reserve, "nofail", addr))
            return 0;
        pa_event(sim, ac, "__alloc_pages_slowpath", "nofail_loop");
    }
    sim->pa.addr = SIM_NULL;
    pa_event(sim, ac, "warn_alloc", (gfp & SIM_GFP_NOWARN) ? "nowarn" : "page_allocation_failure");
    return -ENOMEM;
}

/*
 * Allocate 2^@order pages for @gfp on @node (SIM_NUMA_NO_NODE: the CPU's)
 * (kernel: __alloc_pages).  @s, if any, is the cache asking, for event
 * attribution.  Returns 0 with *addr and the decision in sim->pa, or
 * -ENOMEM.  The mask must pass sim_gfp_check()'s zone test.
 */
int alloc_pages(struct sim *sim, const struct kmem_cache *s, uint32_t gfp, int node,
        unsigned order, sim_addr_t *addr)
{
    const struct alloc_layout *l = alloc_layout_of(sim->cfg.alloc_layout);
    unsigned translate = sim->cfg.variant[SIM_VAR_GFP_TRANSLATE];
    struct alloc_context ac = {.s = s, .gfp = gfp, .order = order};
    struct sim_page_alloc *pa = &sim->pa;
    const struct zone *pref;
    unsigned flags;
    bool dma32;

    ac.nid = node == SIM_NUMA_NO_NODE ? cpu_node(sim) : node;
    ac.highest = highest_zone(sim, gfp);
    ac.mt = sim_gfp_migratetype(gfp);
    build_zonelist(sim, &ac);
    if (!ac.nr_zones) { /* e.g. GFP_DMA|__GFP_THISNODE on a node without ZONE_DMA */
        *pa = (struct sim_page_alloc){.gfp = gfp, .order = order, .node = ac.nid,
                .zone = ac.highest, .preferred_node = ac.nid, .preferred_zone = ac.highest,
                .highest_zone = ac.highest, .migratetype = ac.mt, .path = "no_zone",
                .mark = "none", .layout = sim->cfg.alloc_layout};
        pa_event(sim, &ac, "warn_alloc", "no_zone");
        return -ENOMEM;
    }
    pref = &sim->zones[ac.zonelist[0]];
    *pa = (struct sim_page_alloc){.gfp = gfp, .order = order, .node = pref->node,
            .zone = pref->type, .preferred_node = pref->node, .preferred_zone = pref->type,
            .highest_zone = ac.highest, .migratetype = ac.mt, .path = "fast", .mark = "low",
            .layout = sim->cfg.alloc_layout};
    if (sim->fail_page_order >= 0 && order >= (unsigned)sim->fail_page_order) {
        pa->path = "fail_injected"; /* should_fail_alloc_page */
        return -ENOMEM;
    }
    dma32 = sim->cfg.dma32_bytes && (sim->cfg.nr_nodes == 1 ||
                                            sim->zone_of_type[pref->node][SIM_ZONE_DMA32] >= 0);
    flags = SIM_ALLOC_WMARK_LOW |
            sim_alloc_flags_nofragment(gfp, pref->type, dma32, translate, sim->cfg.alloc_layout);
    if (sim->gfp_ctx.cma && ac.mt == SIM_MIGRATE_MOVABLE)
        flags |= l->cma;
    if (!from_freelist(sim, &ac, flags, "fast", addr)) {
        branch_record(sim, BP_WATERMARK, WM_FAST);
        return 0;
    }
    branch_record(sim, BP_WATERMARK, WM_SLOW);
    return slowpath(sim, &ac, addr);
}

/* SIM_OP_ALLOC_PAGES: a user other than SLUB takes pages.  0 with *addr,
 * or -ENOMEM (a simulated failure, reported by the caller). */
int alloc_pages_user(struct sim *sim, int node, uint32_t gfp, unsigned order, sim_addr_t *addr)
{
    int err = alloc_pages(sim, NULL, gfp, node, order, addr);
    struct zone *z;

    if (err) {
        ev_begin(sim, NULL, "__alloc_pages", "fail", sim->pa.node);
        sim->ev.page = &sim->pa;
        ev_end(sim);
        return err;
    }
    if (sim->nr_user == sim->cap_user) {
        size_t cap = sim->cap_user ? sim->cap_user * 2 : 16;

        sim->user = sim_realloc(sim, sim->user, cap * sizeof(*sim->user));
        sim->cap_user = cap;
    }
    sim->user[sim->nr_user++] = (struct user_block){.addr = *addr, .order = (uint8_t)order,
            .gfp = gfp};
    page_of(sim, *addr)->user = (uint8_t)(order + 1);
    z = zone_of(sim, *addr);
    z->user_pages += 1ul << order;
    ev_begin(sim, NULL, "__alloc_pages", sim->pa.path, z->node);
    sim->ev.page = &sim->pa;
    ev_end(sim);
    return 0;
}

/* SIM_OP_FREE_PAGES.  0, or -EINVAL with the reason in @msg (nothing changed)
 * when @addr is not a block SIM_OP_ALLOC_PAGES gave of @order. */
int free_pages_user(struct sim *sim, sim_addr_t addr, unsigned order, char *msg, size_t len)
{
    struct zone *z;
    size_t i;

    for (i = 0; i < sim->nr_user && sim->user[i].addr != addr; i++)
        ;
    if (i == sim->nr_user) {
        snprintf(msg, len, "0x%llx is not a block of pages held by alloc_pages",
                (unsigned long long)addr);
        return -EINVAL;
    }
    if (sim->user[i].order != order) {
        snprintf(msg, len, "the block at 0x%llx has order %u, not %u", (unsigned long long)addr,
                sim->user[i].order, order);
        return -EINVAL;
    }
    for (; i + 1 < sim->nr_user; i++)
        sim->user[i] = sim->user[i + 1];
    sim->nr_user--;
    z = zone_of(sim, addr);
    page_of(sim, addr)->user = 0;
    z->user_pages -= 1ul << order;
    ev_begin(sim, NULL, "__free_pages", "user", z->node);
    page_free(sim, addr, order);
    ev_end(sim);
    return 0;
}

/* Make page allocations of @order or more fail (-1: none). */
void sim_fail_pages(struct sim *sim, int order)
{
    sim->fail_page_order = order;
}
