/*
 * slab.c: slabs carved from pages, and how their objects come out.
 *
 * new_slab() takes pages from the page allocator at the cache's preferred
 * order, falling back to the minimum order (kernel: allocate_slab).  What
 * happens next depends on the DEFERRED_FREELIST variant: before, the whole
 * freelist is written at once (kernel before dc795d4c0282: shuffle_freelist)
 * and objects are popped from it; after, objects are emitted by the slab object
 * iterator and a freelist is built only for the remainder (kernel:
 * init_slab_obj_iter, next_slab_obj, build_slab_freelist).  Both walk the same
 * order, from the same random draws, so they hand out identical objects; only
 * the free-pointer traffic differs.  discard_slab() gives the pages back.
 */
#include "internal.h"

struct slab_obj_iter {
    sim_addr_t start;  /* address of object 0 */
    unsigned pos;      /* next index (sequential) or position in random_seq */
    unsigned count;    /* length of random_seq */
    unsigned long limit; /* bytes of objects this slab really has */
    bool random;
    const unsigned *seq;
    unsigned size;
};

uint32_t slab_idx(const struct sim *sim, const struct slab *slab)
{
    const struct sim_page *p = page_of(sim, slab->base);

    return p->slab;
}

static void slab_iter_init(struct sim *sim, const struct kmem_cache *s, const struct slab *slab,
        struct slab_obj_iter *it)
{
    it->start = slab->base + s->red_left_pad;
    it->pos = 0;
    it->size = s->size;
    it->seq = s->random_seq;
    it->random = s->random_seq && slab->objects >= 2;
    it->count = s->oo.objects;
    it->limit = (unsigned long)slab->objects * s->size;
    if (it->random)
        it->pos = rng_below(&sim->rng, it->count);
}

/* (kernel: next_slab_obj / next_freelist_entry) */
static sim_addr_t slab_iter_next(struct slab_obj_iter *it)
{
    unsigned off;

    if (!it->random)
        return it->start + (sim_addr_t)(it->pos++) * it->size;
    do {
        off = it->seq[it->pos];
        it->pos = (it->pos + 1) % it->count;
    } while (off >= it->limit);
    return it->start + off;
}

/* The next object of a fresh slab, set up for debugging if the cache asks
 * (kernel: next_slab_obj, setup_object). */
static sim_addr_t next_slab_obj(struct sim *sim, struct kmem_cache *s, struct slab_obj_iter *it)
{
    sim_addr_t obj = slab_iter_next(it);

    if (kmem_cache_debug(s))
        setup_object_debug(sim, s, obj);
    return obj;
}

/* Chain the next @k objects of @it onto @slab's freelist, last -> NULL. */
static void chain_from_iter(struct sim *sim, struct kmem_cache *s, struct slab *slab,
        struct slab_obj_iter *it, unsigned k)
{
    sim_addr_t prev = SIM_NULL;

    slab->freelist = SIM_NULL;
    for (unsigned i = 0; i < k; i++) {
        sim_addr_t obj = next_slab_obj(sim, s, it);

        if (prev)
            set_freepointer(sim, s, prev, obj);
        else
            slab->freelist = obj;
        prev = obj;
    }
    if (prev)
        set_freepointer(sim, s, prev, SIM_NULL);
}

/* The gfp bits SLUB passes to the page allocator (kernel: GFP_RECLAIM_MASK,
 * GFP_CONSTRAINT_MASK) and those it refuses (GFP_SLAB_BUG_MASK). */
#define GFP_RECLAIM_MASK                                                                           \
    (SIM_GFP_RECLAIM | SIM_GFP_HIGH | SIM_GFP_IO | SIM_GFP_FS | SIM_GFP_NOWARN |                   \
            SIM_GFP_RETRY_MAYFAIL | SIM_GFP_NOFAIL | SIM_GFP_NORETRY | SIM_GFP_MEMALLOC |          \
            SIM_GFP_NOMEMALLOC)
#define GFP_CONSTRAINT_MASK (SIM_GFP_HARDWALL | SIM_GFP_THISNODE)
#define GFP_SLAB_BUG_MASK   (SIM_GFP_DMA32 | SIM_GFP_HIGHMEM | ~SIM_GFP_BITS_MASK)

/* What a cache adds to every page allocation (kernel: s->allocflags).
 * 6.12 and 7.x set __GFP_COMP for every slab (calculate_sizes(): allocflags
 * = __GFP_COMP); 6.1 only above order 0, and so does the era 6.1 opens. */
static uint32_t cache_allocflags(const struct sim *sim, const struct kmem_cache *s)
{
    uint32_t f = 0;

    if (s->oo.order || !(sim->cfg.model == SIM_MODEL_LEGACY &&
                         sim_legacy_era(&sim->cfg) == SIM_ERA_FROZEN_PARTIAL))
        f |= SIM_GFP_COMP;
    if (s->flags & SIM_SLAB_CACHE_DMA)
        f |= SIM_GFP_DMA;
    if (s->flags & SIM_SLAB_RECLAIM_ACCOUNT)
        f |= SIM_GFP_RECLAIMABLE;
    return f;
}

/*
 * Get a slab's worth of pages for @gfp on @node (kernel: new_slab,
 * allocate_slab): the preferred order quietly (NOWARN|NORETRY, and without
 * reclaim, kswapd or reserves when the caller could block), then the
 * minimum order with the caller's own flags (order_fallback).  The page
 * allocator's zonelist may give pages of another node unless @gfp has
 * __GFP_THISNODE.  Returns the slab's pool index with the slab on no list
 * (private to the caller), or 0 when no memory was found.  Does not count
 * alloc_slab or nr_slabs: callers do.
 */
static uint32_t new_slab_gfp(struct sim *sim, struct kmem_cache *s, int node, uint32_t gfp)
{
    struct kmem_order_objects oo = s->oo;
    struct slab *slab;
    sim_addr_t base;
    uint32_t idx, try;
    bool fallback = false;

    if (gfp & GFP_SLAB_BUG_MASK) {
        ev_begin(sim, s, "kmalloc_fix_flags", "unexpected_gfp", node);
        ev_end(sim);
        gfp &= ~GFP_SLAB_BUG_MASK;
    }
    gfp &= GFP_RECLAIM_MASK | GFP_CONSTRAINT_MASK;
    gfp |= cache_allocflags(sim, s);
    try = (gfp | SIM_GFP_NOWARN | SIM_GFP_NORETRY) & ~SIM_GFP_NOFAIL;
    if ((try & SIM_GFP_DIRECT_RECLAIM) && s->oo.order > s->min.order)
        try = (try | SIM_GFP_NOMEMALLOC) & ~SIM_GFP_RECLAIM;
    if (alloc_pages(sim, s, try, node, oo.order, &base)) {
        oo = s->min;
        fallback = true;
        if (alloc_pages(sim, s, gfp, node, oo.order, &base)) {
            branch_record(sim, BP_NEW_SLAB_ORDER, NSO_NOMEM);
            ev_begin(sim, s, "new_slab", "nomem", node);
            sim->ev.page = &sim->pa;
            ev_end(sim);
            return 0;
        }
    }
    branch_record(sim, BP_NEW_SLAB_ORDER, fallback ? NSO_ORDER_FALLBACK : NSO_OO);
    node = zone_of(sim, base)->node;
    ev_begin(sim, s, "new_slab", fallback ? "order_fallback" : "oo", node);
    sim->ev.page = &sim->pa;
    if (fallback)
        stat_add(sim, s, SIM_ORDER_FALLBACK, 1);
    idx = pool_get(sim, &sim->slabs);
    slab = slab_at(sim, idx);
    slab->cache = s->id;
    slab->seq = s->nr_created++;
    slab->node = node;
    slab->base = base;
    slab->order = (uint8_t)oo.order;
    slab->objects = oo.objects;
    slab->list = SLAB_ON_PRIVATE;
    slab->fresh = true;
    for (unsigned i = 0; i < 1u << oo.order; i++) {
        struct sim_page *p = page_of(sim, base + ((sim_addr_t)i << PAGE_SHIFT));

        p->slab = idx;
    }
    stat_add(sim, s, SIM_ENGINE_PAGES_IN, 1u << oo.order);
    if (kmem_cache_debug(s))
        setup_slab_debug(sim, s, slab);
    ev_move(sim, SIM_MOVE_SLAB, base, place_node(SIM_PL_PAGES, node),
            place_node(SIM_PL_INFLIGHT, node));
    if (sim->cfg.variant[SIM_VAR_DEFERRED_FREELIST] == SIM_BEFORE ||
        sim->cfg.model != SIM_MODEL_SHEAVES) {
        struct slab_obj_iter it;

        /* before dc795d4c0282 (and in every legacy and hybrid kernel): the whole
         * freelist at birth (shuffle_freelist) */
        slab_iter_init(sim, s, slab, &it);
        chain_from_iter(sim, s, slab, &it, slab->objects);
        slab->fresh = false;
        ev_label(sim, fallback ? "order_fallback_freelist" : "freelist");
    }
    ev_end(sim);
    return idx;
}

/* Account a slab in its node (kernel: inc_slabs_node). */
void inc_slabs_node(struct kmem_cache *s, struct slab *slab)
{
    s->node[slab->node].nr_slabs++;
    s->node[slab->node].total_objects += slab->objects;
    slab->accounted = true;
}

/*
 * Hand @count objects of fresh slab @idx to @sink (kernel:
 * alloc_from_new_slab).  A slab with objects left goes to the head of its
 * node's partial list; a fully used one goes on no list.  Returns the
 * number of objects emitted.  Cannot fail.
 */
unsigned alloc_from_new_slab(struct sim *sim, struct kmem_cache *s, uint32_t idx,
        struct obj_sink *sink, unsigned count)
{
    struct slab *slab = slab_at(sim, idx);
    struct sim_place from = place_slab(slab);
    bool add_to_partial = true;

    if (count >= slab->objects) {
        count = slab->objects;
        add_to_partial = false;
    }
    ev_begin(sim, s, "alloc_from_new_slab", add_to_partial ? "partial" : "whole", slab->node);
    if (!slab->fresh) {
        /* before: pop from the freelist written by new_slab */
        for (unsigned i = 0; i < count; i++) {
            sim_addr_t obj = slab->freelist;

            slab->freelist = get_freepointer(sim, s, obj);
            slab->inuse++;
            sink_put(sim, sink, obj, from);
        }
        inc_slabs_node(s, slab);
    } else {
        struct slab_obj_iter it;

        slab_iter_init(sim, s, slab, &it);
        for (unsigned i = 0; i < count; i++) {
            slab->inuse++;
            sink_put(sim, sink, next_slab_obj(sim, s, &it), from);
        }
        inc_slabs_node(s, slab);
        if (slab->objects > count) {
            ev_end(sim);
            ev_begin(sim, s, "build_slab_freelist", "rest", slab->node);
            chain_from_iter(sim, s, slab, &it, slab->objects - count);
        }
        slab->fresh = false;
    }
    if (kmem_cache_debug(s) && !sink->sheaf) {
        /* alloc_single_from_new_slab: an object emitted by the iterator has
         * no free pointer yet; as the kernel, link it to the slab's first
         * free object (NULL when it was the only one), what the
         * freelist-at-birth code would have written there.  The checks
         * cannot fail on fresh bytes. */
        if (sim->cfg.variant[SIM_VAR_DEFERRED_FREELIST] == SIM_AFTER)
            set_freepointer(sim, s, sink->last, slab->freelist);
        SIM_BUG_ON(!alloc_debug_processing(sim, s, slab, sink->last));
    }
    if (add_to_partial) {
        ev_end(sim);
        ev_begin(sim, s, "add_partial", "head", slab->node);
        add_partial(sim, s, idx, false);
    } else if (kmem_cache_debug(s) && (s->flags & SIM_SLAB_STORE_USER)) {
        add_full(sim, s, idx);
    } else {
        set_slab_list(sim, slab, SLAB_ON_NONE);
    }
    ev_end(sim);
    return count;
}

/* Move @slab (on no list) to list @list, recording the move. */
void set_slab_list(struct sim *sim, struct slab *slab, enum slab_list list)
{
    struct sim_place from = place_of_slab(slab);

    slab->list = (uint8_t)list;
    ev_move(sim, SIM_MOVE_SLAB, slab->base, from, place_of_slab(slab));
}

/* Move @slab to list @list of CPU @cpu (or off the CPU lists, cpu -1),
 * recording the move (legacy model). */
void slab_set_cpu_list(struct sim *sim, struct slab *slab, enum slab_list list, int cpu)
{
    struct sim_place from = place_of_slab(slab);

    slab->list = (uint8_t)list;
    slab->cpu = cpu;
    ev_move(sim, SIM_MOVE_SLAB, slab->base, from, place_of_slab(slab));
}

/* Free a discarded slab's pages inside the open event (kernel: __free_slab). */
static void free_slab_pages(struct sim *sim, struct kmem_cache *s, uint32_t idx)
{
    struct slab *slab = slab_at(sim, idx);

    for (unsigned i = 0; i < 1u << slab->order; i++)
        page_of(sim, slab->base + ((sim_addr_t)i << PAGE_SHIFT))->slab = 0;
    page_free(sim, slab->base, slab->order);
    stat_add(sim, s, SIM_ENGINE_PAGES_OUT, 1u << slab->order);
    ev_move(sim, SIM_MOVE_SLAB, slab->base, place_of_slab(slab),
            place_node(SIM_PL_PAGES, slab->node));
    slab->cache = -1;
    pool_put(sim, &sim->slabs, idx);
}

/*
 * Give slab @idx's pages back (kernel: discard_slab, free_slab).  The slab
 * must be on no list and hold no object.  A SLAB_TYPESAFE_BY_RCU slab
 * leaves its node's counts now and its pages after a grace period.  Opens
 * and closes its own event.
 */
void discard_slab(struct sim *sim, struct kmem_cache *s, uint32_t idx, const char *label)
{
    struct slab *slab = slab_at(sim, idx);
    struct kmem_cache_node *n = &s->node[slab->node];
    bool rcu = (s->flags & SIM_SLAB_TYPESAFE_BY_RCU) != 0;

    ev_begin(sim, s, "discard_slab", rcu ? "rcu" : label, slab->node);
    if (slab->accounted) {
        n->nr_slabs--;
        n->total_objects -= slab->objects;
        slab->accounted = false;
    }
    if (rcu) {
        set_slab_list(sim, slab, SLAB_ON_RCU);
        rcu_queue(sim, RCU_CB_SLAB, idx, SIM_NULL);
    } else {
        free_slab_pages(sim, s, idx);
    }
    ev_end(sim);
}

/* After the grace period, a SLAB_TYPESAFE_BY_RCU slab's pages go back
 * (kernel: rcu_free_slab). */
void discard_slab_pages(struct sim *sim, struct kmem_cache *s, uint32_t idx)
{
    ev_begin(sim, s, "rcu_free_slab", "pages", slab_at(sim, idx)->node);
    free_slab_pages(sim, s, idx);
    ev_end(sim);
}

/*
 * The first, opportunistic new slab of a request for node @node without
 * __GFP_THISNODE, on that node only and without blocking: in the legacy
 * model (6.12's ___slab_alloc) GFP_NOWAIT | __GFP_THISNODE in place of the
 * caller's flags; in the sheaves model (7.x, trynode_flags) the caller's
 * GFP_NOWAIT, __GFP_NOMEMALLOC and __GFP_ACCOUNT bits, __GFP_NOWARN and
 * __GFP_THISNODE.  Returns as new_slab().
 */
uint32_t new_slab_trynode(struct sim *sim, struct kmem_cache *s, int node)
{
    uint32_t gfp = SIM_GFP_NOWAIT | SIM_GFP_THISNODE;

    if (sim->cfg.model == SIM_MODEL_SHEAVES)
        gfp = (sim->gfp & (SIM_GFP_NOWAIT | SIM_GFP_NOMEMALLOC | SIM_GFP_ACCOUNT)) |
              SIM_GFP_NOWARN | SIM_GFP_THISNODE;
    return new_slab_gfp(sim, s, node, gfp);
}

/* A new slab for the operation's gfp on @node, or on another node if the
 * page allocator's zonelist falls back, unless @thisnode (__GFP_THISNODE)
 * (kernel: new_slab).  0 when none. */
uint32_t new_slab(struct sim *sim, struct kmem_cache *s, int node, bool thisnode)
{
    return new_slab_gfp(sim, s, node, sim->gfp | (thisnode ? SIM_GFP_THISNODE : 0));
}
