/*
 * image_check.c: what a loaded image must hold before the validator may walk
 * it (image_load.c calls it between reading meta and reading pages).
 *
 * sim_validate() assumes what the engine guarantees: indices in range, lists
 * without cycles, each slab and sheaf in one place.  An image is input, so
 * this file checks exactly those assumptions, and a few the validator does
 * not make but later operations rely on: every index names a live entry of
 * the right pool and cache; every list (node partial and full lists, barn
 * lists, cpu partial chains) is counted, doubly linked and walked with a
 * visited map; every slab and sheaf is reached from at most one place, which
 * matches its own list or place, and what nothing reaches is a full slab or
 * a prefilled sheaf; the pools' free stacks hold free entries only; and each
 * live slab covers pages whose descriptors name it.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/*
 * Everything the validator and the allocator paths index with must name a
 * live entry of the right pool and cache, and every slab and sheaf must be
 * reached from at most one place: the validator assumes as much.
 */
struct refs {
    const struct sim *sim;
    uint8_t *slab_seen;  /* [slabs.used] */
    uint8_t *sheaf_seen; /* [sheaves.used] */
};

static bool live_slab(const struct sim *sim, uint32_t idx, int cache)
{
    return idx >= 1 && idx < sim->slabs.used && slab_at(sim, idx)->cache >= 0 &&
           (cache < 0 || slab_at(sim, idx)->cache == cache);
}

static bool live_sheaf(const struct sim *sim, uint32_t idx, int cache)
{
    return idx >= 2 && idx < sim->sheaves.used && sheaf_at(sim, idx)->id != 0 &&
           (cache < 0 || sheaf_at(sim, idx)->cache == cache);
}

/* Mark a reference to slab @idx of cache @cache from a place that holds
 * slabs of list @list; false if it is no live slab of that cache, says it
 * is elsewhere, or was already reached. */
static bool ref_slab(struct refs *x, uint32_t idx, int cache, uint8_t list)
{
    if (!live_slab(x->sim, idx, cache) || x->slab_seen[idx] || slab_at(x->sim, idx)->list != list)
        return false;
    x->slab_seen[idx] = 1;
    return true;
}

/* The same for sheaf @idx from a place of type @place. */
static bool ref_sheaf(struct refs *x, uint32_t idx, int cache, uint8_t place)
{
    if (!live_sheaf(x->sim, idx, cache) || x->sheaf_seen[idx] ||
        sheaf_at(x->sim, idx)->place.type != place)
        return false;
    x->sheaf_seen[idx] = 1;
    return true;
}

/* An index list: counted, linked both ways, ending at its tail. */
static bool check_ilist(struct refs *x, const struct ilist *l, bool sheaves, int cache,
                        uint8_t where)
{
    const struct pool *p = sheaves ? &x->sim->sheaves : &x->sim->slabs;
    uint32_t prev = 0, idx = l->head;

    for (unsigned n = 0; n < l->nr; n++) {
        const struct ilink *e;

        if (!(sheaves ? ref_sheaf(x, idx, cache, where) : ref_slab(x, idx, cache, where)))
            return false;
        e = sheaves ? &((const struct slab_sheaf *)pool_at(p, idx))->link
                    : &((const struct slab *)pool_at(p, idx))->link;
        if (e->prev != prev)
            return false;
        prev = idx;
        idx = e->next;
    }
    return idx == 0 && l->tail == prev;
}

/* The pages of a live slab are described and point back at it. */
static bool check_slab_pages(const struct sim *sim, uint32_t idx)
{
    const struct slab *slab = slab_at(sim, idx);
    const struct zone *z = zone_of(sim, slab->base);
    unsigned long pfn, n = 1ul << slab->order;

    if (!z || (slab->base - z->start) % ((uint64_t)PAGE_SIZE << slab->order))
        return false;
    pfn = (unsigned long)((slab->base - z->start) >> PAGE_SHIFT);
    if (pfn + n > z->untouched * CHUNK_PAGES)
        return false;
    for (unsigned long k = 0; k < n; k++)
        if (zone_page(z, pfn + k)->slab != idx)
            return false;
    return (uint64_t)slab->objects * sim->caches[slab->cache]->size <= (uint64_t)PAGE_SIZE
                                                                               << slab->order;
}

static int check_refs(struct refs *x)
{
    const struct sim *sim = x->sim;

    /* free entries are free, live ones complete */
    for (uint32_t i = 0; i < sim->slabs.nr_free; i++) {
        uint32_t idx = sim->slabs.free_ids[i];

        if (idx < 1 || slab_at(sim, idx)->cache >= 0 || x->slab_seen[idx]++)
            return -EINVAL;
    }
    for (uint32_t i = 0; i < sim->sheaves.nr_free; i++) {
        uint32_t idx = sim->sheaves.free_ids[i];

        if (idx < 2 || sheaf_at(sim, idx)->id || x->sheaf_seen[idx]++)
            return -EINVAL;
    }
    memset(x->slab_seen, 0, sim->slabs.used);
    memset(x->sheaf_seen, 0, sim->sheaves.used);
    for (uint32_t idx = 1; idx < sim->slabs.used; idx++) {
        const struct slab *slab = slab_at(sim, idx);

        if (slab->cache >= 0 && (slab->next >= sim->slabs.used || !check_slab_pages(sim, idx)))
            return -EINVAL;
    }
    for (uint32_t idx = 2; idx < sim->sheaves.used; idx++) {
        const struct slab_sheaf *sh = sheaf_at(sim, idx);

        if (sh->id && (sh->cache < 0 || !sh->objects))
            return -EINVAL;
    }
    if (sheaf_at(sim, BOOTSTRAP_SHEAF)->objects || sheaf_at(sim, BOOTSTRAP_SHEAF)->capacity)
        return -EINVAL;
    for (unsigned i = 0; i < sim->nr_zones; i++) {
        const struct zone *z = &sim->zones[i];

        for (unsigned long pfn = 0; pfn < z->untouched * CHUNK_PAGES; pfn++) {
            uint32_t idx = zone_page(z, pfn)->slab;

            if (idx && !live_slab(sim, idx, -1))
                return -EINVAL;
        }
    }
    for (unsigned i = 0; i < sim->nr_caches; i++) {
        const struct kmem_cache *s = sim->caches[i];

        for (unsigned n = 0; n < sim->cfg.nr_nodes; n++) {
            if (!check_ilist(x, &s->node[n].partial, false, s->id, SLAB_ON_PARTIAL) ||
                !check_ilist(x, &s->node[n].full, false, s->id, SLAB_ON_FULL) ||
                !check_ilist(x, &s->barn[n].full, true, s->id, SIM_PL_BARN_FULL) ||
                !check_ilist(x, &s->barn[n].empty, true, s->id, SIM_PL_BARN_EMPTY) ||
                (s->barn[n].partial &&
                 !ref_sheaf(x, s->barn[n].partial, s->id, SIM_PL_BARN_PARTIAL)))
                return -EINVAL;
        }
        for (unsigned c = 0; c < sim->cfg.nr_cpus; c++) {
            const struct slub_percpu_sheaves *pcs = &s->pcs[c];

            if (pcs->main != BOOTSTRAP_SHEAF && !ref_sheaf(x, pcs->main, s->id, SIM_PL_MAIN))
                return -EINVAL;
            if ((pcs->spare && !ref_sheaf(x, pcs->spare, s->id, SIM_PL_SPARE)) ||
                (pcs->rcu_free && !ref_sheaf(x, pcs->rcu_free, s->id, SIM_PL_RCU_FREE)))
                return -EINVAL;
        }
        for (unsigned c = 0; s->cpu_slab && c < sim->cfg.nr_cpus; c++) {
            if (s->cpu_slab[c].slab && !ref_slab(x, s->cpu_slab[c].slab, s->id, SLAB_ON_CPU))
                return -EINVAL;
            for (uint32_t idx = s->cpu_slab[c].partial; idx; idx = slab_at(sim, idx)->next)
                if (!ref_slab(x, idx, s->id, SLAB_ON_CPU_PARTIAL))
                    return -EINVAL;
        }
    }
    for (size_t i = 0; i < sim->nr_rcu; i++) {
        const struct rcu_cb *cb = &sim->rcu[i];

        if ((cb->kind == RCU_CB_SHEAF || cb->kind == RCU_CB_SHEAF_NOBARN) &&
            !ref_sheaf(x, cb->idx, -1, SIM_PL_RCU_PENDING))
            return -EINVAL;
        if (cb->kind == RCU_CB_SLAB && !ref_slab(x, cb->idx, -1, SLAB_ON_RCU))
            return -EINVAL;
    }
    /* what no place reached is on no list: full, or a prefilled sheaf */
    for (uint32_t idx = 1; idx < sim->slabs.used; idx++)
        if (live_slab(sim, idx, -1) && !x->slab_seen[idx] &&
            slab_at(sim, idx)->list != SLAB_ON_NONE)
            return -EINVAL;
    for (uint32_t idx = 2; idx < sim->sheaves.used; idx++)
        if (live_sheaf(sim, idx, -1) && !x->sheaf_seen[idx] &&
            sheaf_at(sim, idx)->place.type != SIM_PL_PREFILL)
            return -EINVAL;
    return 0;
}

/* 0 when @sim, just read from meta with @nr_bytes pages that have bytes,
 * may be validated and run; -EINVAL when not, -ENOMEM. */
int image_check_loaded(const struct sim *sim, unsigned long nr_bytes)
{
    struct refs x = {.sim = sim};
    int ret;

    if (nr_bytes != sim->nr_page_bytes)
        return -EINVAL;
    if (sim->sheaves.used < 2)
        return -EINVAL;
    x.slab_seen = calloc(sim->slabs.used, 1);
    x.sheaf_seen = calloc(sim->sheaves.used, 1);
    ret = x.slab_seen && x.sheaf_seen ? check_refs(&x) : -ENOMEM;
    free(x.slab_seen);
    free(x.sheaf_seen);
    return ret;
}
