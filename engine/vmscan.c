/*
 * vmscan.c: reclaim, as far as the model has something to reclaim.
 *
 * The only memory the model can reclaim is what SIM_OP_ALLOC_PAGES users asked
 * for as movable or reclaimable (__GFP_MOVABLE, __GFP_RECLAIMABLE): the
 * stand-in for the page cache.  Blocks go back oldest first, the way an LRU
 * would give them.  Direct reclaim (kernel: __perform_reclaim,
 * try_to_free_pages) frees up to cfg.reclaim_pages of them from the zones of
 * the allocation's zonelist.  kswapd (kernel: kswapd, balance_pgdat), when
 * cfg.kswapd is set, runs at the end of every operation that woke it and frees
 * blocks of each woken node's zones until the zone is back above its high
 * watermark or nothing reclaimable is left; otherwise waking it is an event and
 * nothing more.  Slab pages are never reclaimed here (shrinking caches is
 * kmem_cache_shrink's business).
 */
#include "internal.h"

/* Free reclaimable user blocks lying in one of the zones @zones[0..nr)
 * (indices in sim->zones), oldest first, until @want pages are freed.
 * Returns the pages freed.  Cannot fail. */
unsigned long reclaim_user_blocks(struct sim *sim, const int *zones, unsigned nr,
        unsigned long want)
{
    unsigned long freed = 0;
    size_t i = 0;

    while (freed < want && i < sim->nr_user) {
        struct user_block b = sim->user[i];
        struct zone *z = zone_of(sim, b.addr);
        bool listed = false;

        for (unsigned k = 0; k < nr; k++)
            listed |= &sim->zones[zones[k]] == z;
        if (!(b.gfp & (SIM_GFP_MOVABLE | SIM_GFP_RECLAIMABLE)) || !listed) {
            i++;
            continue;
        }
        page_of(sim, b.addr)->user = 0;
        z->user_pages -= 1ul << b.order;
        page_free(sim, b.addr, b.order);
        freed += 1ul << b.order;
        for (size_t k = i; k + 1 < sim->nr_user; k++)
            sim->user[k] = sim->user[k + 1];
        sim->nr_user--;
    }
    return freed;
}

/* Run kswapd on every node woken during the operation, if the machine
 * models it (kernel: balance_pgdat).  One event per node.  Cannot fail. */
void kswapd_run(struct sim *sim)
{
    uint32_t woken = sim->kswapd_woken;

    sim->kswapd_woken = 0;
    if (!sim->cfg.kswapd)
        return;
    for (unsigned n = 0; n < sim->cfg.nr_nodes; n++) {
        unsigned long freed = 0;
        bool balanced = true;

        if (!(woken & (1u << n)))
            continue;
        ev_begin(sim, NULL, "balance_pgdat", "balanced", (int)n);
        for (unsigned t = 0; t < SIM_NR_ZONE_TYPES; t++) {
            int zi = sim->zone_of_type[n][t];
            struct zone *z;

            if (zi < 0)
                continue;
            z = &sim->zones[zi];
            if (z->free_pages < z->wmark[SIM_WMARK_HIGH])
                freed += reclaim_user_blocks(sim, &zi, 1,
                        z->wmark[SIM_WMARK_HIGH] - z->free_pages);
            balanced &= z->free_pages >= z->wmark[SIM_WMARK_HIGH];
        }
        ev_label(sim, balanced ? (freed ? "balanced" : "already_balanced")
                               : (freed ? "short" : "no_progress"));
        ev_end(sim);
    }
}
