/*
 * sheaf.c: sheaves, the per-CPU arrays of object pointers (kernel: struct
 * slab_sheaf, alloc_empty_sheaf, free_empty_sheaf, refill_sheaf,
 * sheaf_flush_unused, sheaf_flush_main, __kmem_cache_free_bulk,
 * build_detached_freelist).
 *
 * A sheaf is a stack: frees push at objects[size], allocations pop from
 * objects[size - 1].  It is always in exactly one place (a CPU slot, a barn
 * list, in flight, ...), recorded in sheaf->place.  Refilling takes objects
 * from slabs in bulk; flushing gives them back, grouping the objects of one
 * slab into a detached freelist so each group costs one slab update.  A
 * cache with cpu slabs too (the hybrid 6.18) refills and flushes through
 * their bulk paths: __kmem_cache_alloc_bulk and do_slab_free.
 */
#include "internal.h"

#include <string.h>

/* Move sheaf @idx to @to, recording it in the open event. */
void sheaf_set_place(struct sim *sim, uint32_t idx, struct sim_place to)
{
    struct slab_sheaf *sh = sheaf_at(sim, idx);

    ev_move(sim, SIM_MOVE_SHEAF, sh->id, sh->place, to);
    sh->place = to;
}

/* Allocate an empty sheaf with @capacity slots, in flight (kernel:
 * alloc_empty_sheaf; counts sheaf_alloc).  Returns its pool index. */
uint32_t alloc_empty_sheaf(struct sim *sim, struct kmem_cache *s, unsigned capacity)
{
    uint32_t idx = pool_get(sim, &sim->sheaves);
    struct slab_sheaf *sh = sheaf_at(sim, idx);

    sh->id = ++sim->next_sheaf_id;
    sh->cache = s->id;
    sh->capacity = capacity;
    sh->rcu_node = -1;
    sh->place = place_none(SIM_PL_NONE);
    sh->objects = sim_zalloc(sim, (capacity ? capacity : 1) * sizeof(*sh->objects));
    sim->nr_sheaf_arrays++;
    sim->sheaf_slots += capacity ? capacity : 1;
    stat_add(sim, s, SIM_SHEAF_ALLOC, 1);
    sheaf_set_place(sim, idx, place_none(SIM_PL_INFLIGHT));
    return idx;
}

/* Free an empty sheaf (kernel: free_empty_sheaf; counts sheaf_free). */
void free_empty_sheaf(struct sim *sim, struct kmem_cache *s, uint32_t idx)
{
    struct slab_sheaf *sh = sheaf_at(sim, idx);

    SIM_BUG_ON(sh->size || idx == BOOTSTRAP_SHEAF);
    sheaf_set_place(sim, idx, place_none(SIM_PL_NONE));
    stat_add(sim, s, SIM_SHEAF_FREE, 1);
    sim->nr_sheaf_arrays--;
    sim->sheaf_slots -= sh->capacity ? sh->capacity : 1;
    sim_free(sh->objects);
    sh->objects = NULL;
    sh->id = 0;
    pool_put(sim, &sim->sheaves, idx);
}

/*
 * Put @want objects into sheaf @idx through the cpu slab's bulk path, as
 * the hybrid 6.18 does (kernel: __kmem_cache_alloc_bulk writing into
 * &sheaf->objects[size]): all or nothing; on a shortfall the objects taken
 * go back to their slabs.  Returns @want or 0.
 */
unsigned cpu_slab_bulk_into_sheaf(struct sim *sim, struct kmem_cache *s, uint32_t idx,
                                  unsigned want)
{
    sim_addr_t *objs = sim_scratch_alloc(sim, want * sizeof(*objs));
    unsigned got = legacy_alloc_bulk(sim, s, want, objs);
    struct slab_sheaf *sh;

    if (got < want) {
        ev_begin(sim, s, "__kmem_cache_alloc_bulk", "give_back", cpu_node(sim));
        for (unsigned i = 0; i < got; i++)
            inflight_add(sim, objs[i], place_none(SIM_PL_USER));
        ev_end(sim);
        bulk_free_to_slabs(sim, s, objs, got, false);
        sim_scratch_free(sim, objs);
        return 0;
    }
    sh = sheaf_at(sim, idx);
    ev_begin(sim, s, "__kmem_cache_alloc_bulk", "into_sheaf", cpu_node(sim));
    for (unsigned i = 0; i < got; i++) {
        sh->objects[sh->size] = objs[i];
        obj_leave(sim, objs[i], place_none(SIM_PL_USER), place_in_sheaf(sh, sh->size));
        sh->size++;
    }
    ev_end(sim);
    sim_scratch_free(sim, objs);
    return got;
}

/*
 * Fill sheaf @idx to its capacity from slabs (kernel: refill_sheaf): the
 * node partial lists in bulk (7.x), or the cpu slab's bulk path (6.18).
 * Returns true when it is full; on false the objects obtained stay in it.
 */
bool refill_sheaf(struct sim *sim, struct kmem_cache *s, uint32_t idx)
{
    struct slab_sheaf *sh = sheaf_at(sim, idx);
    unsigned want = sh->capacity - sh->size, got;
    struct obj_sink sink = {.sheaf = idx};

    if (!want)
        return true;
    if (cache_has_cpu_slab(s))
        got = cpu_slab_bulk_into_sheaf(sim, s, idx, want);
    else
        got = refill_objects(sim, s, &sink, want, want);
    ev_begin(sim, s, "refill_sheaf", got == want ? "full" : "short", cpu_node(sim));
    stat_add(sim, s, SIM_SHEAF_REFILL, got);
    ev_end(sim);
    return got == want;
}

/*
 * Free @m objects to their slabs, grouping the objects of one slab with a
 * look-ahead of 3 (kernel: __kmem_cache_free_bulk, build_detached_freelist).
 * The objects are in flight; the array is consumed from its end.  With no
 * cache (@s NULL: kfree_bulk) each object's cache comes from its slab.
 * @slowpath counts free_slowpath (user frees, not flushes): per object, or per
 * group in the legacy model.
 * DETACHED_FREELIST before: every object goes to its slab on its own.
 */
void bulk_free_to_slabs(struct sim *sim, struct kmem_cache *s, sim_addr_t *p, size_t m,
        bool slowpath)
{
    sim_addr_t *group = sim_scratch_alloc(sim, (m ? m : 1) * sizeof(*group));
    bool detached = sim->cfg.variant[SIM_VAR_DETACHED_FREELIST] == SIM_AFTER;

    while (m > 0) {
        sim_addr_t last = p[--m];
        struct slab *slab = slab_of(sim, last);
        struct kmem_cache *gs = s ? s : sim->caches[slab->cache];
        uint32_t idx = slab_idx(sim, slab);
        size_t same = m, cnt = 1;
        unsigned look = 3;

        ev_begin(sim, gs, "build_detached_freelist", detached ? "group" : "single", slab->node);
        group[0] = last;
        if (detached)
            set_freepointer(sim, gs, last, SIM_NULL);
        for (size_t i = m; detached && i-- > 0;) {
            if (slab_of(sim, p[i]) == slab) {
                if (p[i] == group[0]) {
                    /* a double free the sheaf did not catch: the kernel's
                     * set_freepointer() BUG_ON would fire here */
                    ev_report(sim, "kernel BUG at mm/slub.c: set_freepointer(): "
                                   "object == fp (double free)");
                    ev_label(sim, "double_free");
                    inflight_drop_one(sim, p[i]);
                } else {
                    set_freepointer(sim, gs, p[i], group[0]);
                    memmove(group + 1, group, cnt * sizeof(*group));
                    group[0] = p[i];
                    cnt++;
                }
                same--;
                p[i] = p[same];
            } else if (--look == 0) {
                break;
            }
        }
        m = same;
        /* 7.x's slab_free_bulk counts each object; 6.x's __slab_free (a
         * legacy debug cache's only free path) counts each call */
        if (slowpath && !cache_has_cpu_slab(gs))
            stat_add(sim, gs, SIM_FREE_SLOWPATH, sim->cfg.model != SIM_MODEL_SHEAVES ? 1 : cnt);
        ev_end(sim);
        if (cache_has_cpu_slab(gs)) /* legacy: do_slab_free counts for itself */
            legacy_do_slab_free(sim, gs, idx, group, (unsigned)cnt, place_none(SIM_PL_INFLIGHT));
        else
            slab_free_to_slab(sim, gs, idx, group, (unsigned)cnt, place_none(SIM_PL_INFLIGHT));
    }
    sim_scratch_free(sim, group);
}

/* kfree_bulk: objects of any caches, in flight, to their slabs. */
void kfree_bulk(struct sim *sim, sim_addr_t *p, size_t m)
{
    bulk_free_to_slabs(sim, NULL, p, m, true);
}

/* Move the top @k objects of sheaf @idx into flight (one event), then free
 * them to slabs; @fn names the kernel function. */
static void flush_top(struct sim *sim, struct kmem_cache *s, uint32_t idx, unsigned k,
        const char *fn)
{
    struct slab_sheaf *sh = sheaf_at(sim, idx);
    sim_addr_t *batch = sim_scratch_alloc(sim, k * sizeof(*batch));

    ev_begin(sim, s, fn, "flush", cpu_node(sim));
    for (unsigned i = 0; i < k; i++) {
        unsigned slot = sh->size - k + i;

        batch[i] = sh->objects[slot];
        inflight_add(sim, batch[i], place_in_sheaf(sh, slot));
    }
    sh->size -= k;
    stat_add(sim, s, SIM_SHEAF_FLUSH, k);
    ev_end(sim);
    bulk_free_to_slabs(sim, s, batch, k, false);
    sim_scratch_free(sim, batch);
}

/* Empty a sheaf that no CPU uses (kernel: sheaf_flush_unused). */
void sheaf_flush_unused(struct sim *sim, struct kmem_cache *s, uint32_t idx)
{
    unsigned k = sheaf_at(sim, idx)->size;

    if (k)
        flush_top(sim, s, idx, k, "sheaf_flush_unused");
}

/* Empty a CPU's main sheaf in batches of PCS_BATCH_MAX (kernel:
 * sheaf_flush_main). */
void sheaf_flush_main(struct sim *sim, struct kmem_cache *s, uint32_t idx)
{
    unsigned size;

    while ((size = sheaf_at(sim, idx)->size) > 0)
        flush_top(sim, s, idx, size < PCS_BATCH_MAX ? size : PCS_BATCH_MAX, "sheaf_flush_main");
}

/*
 * Take sheaf @idx, which its holder has let go of, in flight (the event
 * @fn/@detach; NULL when it is in flight already), flush its objects to
 * slabs and free it (the event @fn/@free_label), events on @node (kernel:
 * sheaf_flush_unused then free_empty_sheaf, as barn_shrink and
 * pcs_flush_all do).  Cannot fail.
 */
void sheaf_flush_and_free(struct sim *sim, struct kmem_cache *s, uint32_t idx, const char *fn,
                          const char *detach, const char *free_label, int node)
{
    if (detach) {
        ev_begin(sim, s, fn, detach, node);
        sheaf_set_place(sim, idx, place_none(SIM_PL_INFLIGHT));
        ev_end(sim);
    }
    sheaf_flush_unused(sim, s, idx);
    ev_begin(sim, s, fn, free_label, node);
    free_empty_sheaf(sim, s, idx);
    ev_end(sim);
}
