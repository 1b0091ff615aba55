/*
 * node.c: a cache's per-node state and the partial-list primitives (kernel:
 * struct kmem_cache_node, add_partial, remove_partial, get_partial_node_bulk,
 * get_freelist_nofreeze, get_from_partial_node, __refill_objects_node,
 * __slab_free).
 *
 * A partial slab has free objects on its freelist and sits on its node's
 * partial list (SL_partial).  Refills take whole freelists of partial slabs in
 * bulk; frees that make a full slab partial put it at the tail; a slab that
 * becomes empty is discarded once the node keeps at least min_partial partial
 * slabs.  Everything that changes a slab's freelist and counters together
 * models one atomic double-word update of the kernel.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

static struct ilink *slab_link(const void *pool, uint32_t idx)
{
    return &((struct slab *)pool_at(pool, idx))->link;
}

/* Put slab @idx (on no list) on its node's partial list, at the head or
 * tail (kernel: add_partial).  Records the move in the open event. */
void add_partial(struct sim *sim, struct kmem_cache *s, uint32_t idx, bool tail)
{
    struct slab *slab = slab_at(sim, idx);
    struct kmem_cache_node *n = &s->node[slab->node];
    struct sim_place from = place_of_slab(slab);

    if (tail)
        ilist_push_tail(&n->partial, &sim->slabs, slab_link, idx);
    else
        ilist_push_head(&n->partial, &sim->slabs, slab_link, idx);
    slab->list = SLAB_ON_PARTIAL;
    ev_move(sim, SIM_MOVE_SLAB, slab->base, from, place_of_slab(slab));
}

/* Take slab @idx off its node's partial list, leaving it on no list with
 * state @list (kernel: remove_partial). */
void remove_partial(struct sim *sim, struct kmem_cache *s, uint32_t idx, enum slab_list list)
{
    struct slab *slab = slab_at(sim, idx);
    struct kmem_cache_node *n = &s->node[slab->node];

    SIM_BUG_ON(slab->list != SLAB_ON_PARTIAL);
    ilist_del(&n->partial, &sim->slabs, slab_link, idx);
    slab->list = (uint8_t)list;
    ev_move(sim, SIM_MOVE_SLAB, slab->base, place_node(SIM_PL_NODE_PARTIAL, slab->node),
            place_of_slab(slab));
}

/* Full-list helpers for debug caches with SLAB_STORE_USER. */
void add_full(struct sim *sim, struct kmem_cache *s, uint32_t idx)
{
    struct slab *slab = slab_at(sim, idx);
    struct sim_place from = place_of_slab(slab);

    ilist_push_tail(&s->node[slab->node].full, &sim->slabs, slab_link, idx);
    slab->list = SLAB_ON_FULL;
    ev_move(sim, SIM_MOVE_SLAB, slab->base, from, place_of_slab(slab));
}

void remove_full(struct sim *sim, struct kmem_cache *s, uint32_t idx)
{
    struct slab *slab = slab_at(sim, idx);

    ilist_del(&s->node[slab->node].full, &sim->slabs, slab_link, idx);
    slab->list = SLAB_ON_NONE;
    ev_move(sim, SIM_MOVE_SLAB, slab->base, place_node(SIM_PL_NODE_FULL, slab->node),
            place_of_slab(slab));
}

/* Head of a node's partial list, or 0 if empty. */
uint32_t node_partial_first(const struct kmem_cache *s, int node)
{
    return s->node[node].partial.head;
}

/*
 * __slab_free's slab_empty: the last object came back and the node keeps
 * min_partial slabs already, so slab @idx leaves its list (@on_partial: the
 * node partial list, else none) and goes back to the page allocator.  Ends
 * the caller's event, labelled "discard", before discard_slab's own.
 */
void slab_free_discard(struct sim *sim, struct kmem_cache *s, uint32_t idx, bool on_partial)
{
    if (on_partial) {
        remove_partial(sim, s, idx, SLAB_ON_PRIVATE);
        stat_add(sim, s, SIM_FREE_REMOVE_PARTIAL, 1);
    } else {
        set_slab_list(sim, slab_at(sim, idx), SLAB_ON_PRIVATE);
    }
    stat_add(sim, s, SIM_FREE_SLAB, 1);
    ev_label(sim, "discard");
    ev_end(sim);
    discard_slab(sim, s, idx, "empty");
}

/*
 * Return objects to their slab (kernel: __slab_free).  @head..@tail is a
 * chain of @cnt objects of slab @idx, already linked through their free
 * pointers; they come from @from (a sheaf slot, the user, or in flight).
 * Opens and closes its own events.
 */
void slab_free_to_slab(struct sim *sim, struct kmem_cache *s, uint32_t idx,
        const sim_addr_t *objs, unsigned cnt, struct sim_place from)
{
    struct slab *slab = slab_at(sim, idx);
    struct kmem_cache_node *n = &s->node[slab->node];
    sim_addr_t head = objs[0], tail = objs[cnt - 1];
    bool was_full = slab->freelist == SIM_NULL;
    const char *label;

    if (!cache_has_sheaves(s) && (s->flags & SIM_SLAB_DEBUG_FLAGS)) {
        free_to_partial_list(sim, s, idx, objs, cnt, from);
        return;
    }
    if (slab->freelist == tail) {
        /* set_freepointer()'s BUG_ON: the kernel stops here; the model
         * reports it and leaks the objects instead of linking a cycle */
        ev_begin(sim, s, "set_freepointer", "double_free", slab->node);
        ev_report(sim, "kernel BUG at mm/slub.c: set_freepointer(): object == fp (double free)");
        for (unsigned i = 0; from.type == SIM_PL_INFLIGHT && i < cnt; i++)
            inflight_drop_one(sim, objs[i]);
        ev_end(sim);
        return;
    }
    ev_begin(sim, s, "__slab_free", "keep", slab->node);
    stat_add(sim, s, SIM_ENGINE_SLAB_UPDATES, 1);
    set_freepointer(sim, s, tail, slab->freelist);
    slab->freelist = head;
    slab->inuse -= cnt;
    for (unsigned i = 0; i < cnt; i++)
        obj_leave(sim, objs[i], from, place_slab(slab));

    if (slab->inuse > 0 && !was_full) {
        branch_record(sim, BP_SLAB_FREE_OUTCOME, SFO_KEEP);
        label = "keep";
    } else if (!was_full && slab->list != SLAB_ON_PARTIAL) {
        branch_record(sim, BP_SLAB_FREE_OUTCOME, SFO_NOT_LISTED);
        label = "not_listed"; /* being processed elsewhere (a refill's private list) */
    } else if (slab->inuse == 0 && n->partial.nr >= s->min_partial) {
        branch_record(sim, BP_SLAB_FREE_OUTCOME, SFO_DISCARD);
        slab_free_discard(sim, s, idx, !was_full);
        return;
    } else if (was_full) {
        branch_record(sim, BP_SLAB_FREE_OUTCOME,
                      slab->inuse ? SFO_ADD_PARTIAL : SFO_ADD_PARTIAL_EMPTY);
        add_partial(sim, s, idx, true);
        stat_add(sim, s, SIM_FREE_ADD_PARTIAL, 1);
        label = slab->inuse ? "add_partial" : "add_partial_empty";
    } else {
        branch_record(sim, BP_SLAB_FREE_OUTCOME, SFO_KEEP_EMPTY);
        label = "keep_empty"; /* fewer than min_partial partial slabs */
    }
    ev_label(sim, label);
    ev_end(sim);
}

/*
 * Free to a debug cache's lists under the node lock (kernel:
 * free_to_partial_list).  The consistency checks come with the debug flags.
 */
void free_to_partial_list(struct sim *sim, struct kmem_cache *s, uint32_t idx,
        const sim_addr_t *objs, unsigned cnt, struct sim_place from)
{
    struct slab *slab = slab_at(sim, idx);
    struct kmem_cache_node *n = &s->node[slab->node];
    bool was_full = slab->freelist == SIM_NULL;

    for (unsigned i = 0; i < cnt; i++) {
        if (free_debug_processing(sim, s, slab, objs[i]))
            continue;
        /* "Object at ... not freed": it stays where it was */
        ev_begin(sim, s, "free_debug_processing", "check_failed", slab->node);
        ev_report(sim, sim->res->message);
        if (from.type == SIM_PL_INFLIGHT)
            for (unsigned j = 0; j < cnt; j++)
                inflight_drop_one(sim, objs[j]);
        ev_end(sim);
        return;
    }
    ev_begin(sim, s, "free_to_partial_list", "keep", slab->node);
    stat_add(sim, s, SIM_ENGINE_SLAB_UPDATES, 1);
    set_freepointer(sim, s, objs[cnt - 1], slab->freelist);
    slab->freelist = objs[0];
    slab->inuse -= cnt;
    for (unsigned i = 0; i < cnt; i++)
        obj_leave(sim, objs[i], from, place_slab(slab));
    branch_record(sim, BP_SLAB_FREE_OUTCOME,
                  slab->inuse == 0 && n->partial.nr >= s->min_partial ? SFO_DISCARD
                  : was_full                                          ? SFO_ADD_PARTIAL
                                                                      : SFO_KEEP);
    if (slab->inuse == 0 && n->partial.nr >= s->min_partial) {
        if (!was_full) {
            remove_partial(sim, s, idx, SLAB_ON_PRIVATE);
            stat_add(sim, s, SIM_FREE_REMOVE_PARTIAL, 1);
        } else if (slab->list == SLAB_ON_FULL) {
            remove_full(sim, s, idx);
            set_slab_list(sim, slab, SLAB_ON_PRIVATE);
        } else {
            set_slab_list(sim, slab, SLAB_ON_PRIVATE);
        }
        stat_add(sim, s, SIM_FREE_SLAB, 1);
        ev_label(sim, "discard");
        ev_end(sim);
        discard_slab(sim, s, idx, "empty");
        return;
    }
    if (was_full) {
        if (slab->list == SLAB_ON_FULL)
            remove_full(sim, s, idx);
        add_partial(sim, s, idx, true);
        stat_add(sim, s, SIM_FREE_ADD_PARTIAL, 1);
        ev_label(sim, "add_partial");
    }
    ev_end(sim);
}

/* Take partial slabs of @node whose free objects reach @max (kernel:
 * get_partial_node_bulk).  Appends their indices to @list; returns how many. */
static unsigned get_partial_node_bulk(struct sim *sim, struct kmem_cache *s, int node,
        unsigned min, unsigned max, uint32_t *list, unsigned cap)
{
    unsigned total = 0, nr = 0;
    uint32_t idx = node_partial_first(s, node);

    if (!idx)
        return 0;
    ev_begin(sim, s, "get_partial_node_bulk", "take", node);
    while (idx && nr < cap) {
        struct slab *slab = slab_at(sim, idx);
        uint32_t next = slab->link.next;
        unsigned nfree = slab->objects - slab->inuse;

        if (total >= min && total + nfree > max)
            break;
        remove_partial(sim, s, idx, SLAB_ON_PRIVATE);
        list[nr++] = idx;
        total += nfree;
        if (total >= max)
            break;
        idx = next;
    }
    ev_end(sim);
    return nr;
}

/*
 * Fill @sink with between @min and @max objects from the partial slabs of
 * @node (kernel: __refill_objects_node).  Returns the number taken.
 */
unsigned refill_from_node(struct sim *sim, struct kmem_cache *s, int node, struct obj_sink *sink,
        unsigned min, unsigned max)
{
    unsigned cap = s->node[node].partial.nr, nr, i, got = 0;
    bool after = sim->cfg.variant[SIM_VAR_REFILL_RETURN] == SIM_AFTER;
    uint32_t *list;

    if (!cap)
        return 0;
    /* as many slabs as the list holds: the kernel's take has no cap */
    list = sim_scratch_alloc(sim, cap * sizeof(*list));
    nr = get_partial_node_bulk(sim, s, node, min, max, list, cap);
    for (i = 0; i < nr && got < max; i++) {
        struct slab *slab = slab_at(sim, list[i]);
        unsigned k = slab->objects - slab->inuse, take;
        size_t first = sim->nr_inflight;
        sim_addr_t obj;

        /* a corrupt link would be followed while taking objects: fault first */
        obj = slab->freelist;
        for (unsigned j = 0; j < k && obj; j++) {
            check_freepointer_or_oops(sim, s, slab, obj);
            obj = peek_freepointer(sim, s, obj, NULL);
        }
        /* get_freelist_nofreeze: the whole freelist at once; the slab looks full */
        ev_begin(sim, s, "get_freelist_nofreeze", "detach", node);
        obj = slab->freelist;
        for (unsigned j = 0; j < k && obj; j++) {
            inflight_add(sim, obj, place_slab(slab));
            obj = peek_freepointer(sim, s, obj, NULL);
        }
        k = (unsigned)(sim->nr_inflight - first);
        slab->freelist = SIM_NULL;
        slab->inuse = slab->objects;
        ev_end(sim);

        take = k < max - got ? k : max - got;
        ev_begin(sim, s, "__refill_objects_node", "take", node);
        for (unsigned j = 0; j < take; j++) {
            (void)get_freepointer(sim, s, sim->inflight[first + j]); /* following the chain */
            sink_put(sim, sink, sim->inflight[first + j], place_none(SIM_PL_INFLIGHT));
        }
        inflight_remove_range(sim, first, take);
        got += take;
        k -= take;
        ev_end(sim);
        if (!k)
            continue;
        /* the leftovers, still chained: sim->inflight[first .. first+k-1] */
        if (after) {
            ev_begin(sim, s, "__slab_try_return_freelist", "return", node);
            slab->freelist = sim->inflight[first];
            slab->inuse -= k;
            for (unsigned j = 0; j < k; j++)
                ev_move(sim, SIM_MOVE_OBJECT, sim->inflight[first + j],
                        place_none(SIM_PL_INFLIGHT), place_slab(slab));
            inflight_remove_range(sim, first, k);
            ev_end(sim);
        } else {
            sim_addr_t *objs = sim_scratch_alloc(sim, k * sizeof(*objs));

            /* before: the leftover chain goes through __slab_free */
            for (unsigned j = 0; j < k; j++)
                objs[j] = sim->inflight[first + j];
            slab_free_to_slab(sim, s, list[i], objs, k, place_none(SIM_PL_INFLIGHT));
            sim_scratch_free(sim, objs);
        }
    }
    for (i = 0; i < nr && slab_at(sim, list[i])->list != SLAB_ON_PRIVATE; i++)
        ;
    if (i == nr) {
        sim_scratch_free(sim, list);
        return got;
    }
    /* slabs still private go back: after, all to the tail; before, the
     * unprocessed ones to the head */
    ev_begin(sim, s, "__refill_objects_node", after ? "splice_partial" : "put_back", node);
    for (unsigned j = 0; j < nr; j++) {
        struct slab *slab = slab_at(sim, list[j]);

        if (slab->list != SLAB_ON_PRIVATE)
            continue;
        if (slab->freelist)
            add_partial(sim, s, list[j], after);
        else
            set_slab_list(sim, slab, SLAB_ON_NONE);
    }
    ev_end(sim);
    sim_scratch_free(sim, list);
    return got;
}

/*
 * Whether an allocation that found no partial slab on node @local looks at
 * the other nodes' (kernel: get_any_partial(), 7.x's get_from_any_partial()
 * and __refill_objects_any(), named @caller in the sentence, not an event's fn): only when get_cycles() % 1024 <=
 * remote_node_defrag_ratio.  The engine draws from its seeded generator
 * where the kernel reads the cycle counter; when another node has more
 * than min_partial partial slabs, so that the draw decides something, it is
 * a choice point (choice.c) whose default is the draw's verdict and whose
 * other option the opposite.
 */
bool remote_partial_draw(struct sim *sim, struct kmem_cache *s, int local, const char *caller)
{
    bool take, matters = false;

    if (sim->cfg.nr_nodes < 2 || !s->remote_node_defrag_ratio)
        return false;
    take = rng_below(&sim->rng, 1024) <= s->remote_node_defrag_ratio;
    for (unsigned d = 1; d < sim->cfg.nr_nodes; d++)
        if (s->node[((unsigned)local + d) % sim->cfg.nr_nodes].partial.nr > s->min_partial)
            matters = true;
    if (!matters)
        return take;
    uint64_t taken = choice_take(sim, SIM_CHOICE_REMOTE_DRAW, 2);

    sim->choice->last.verdict = take;
    sim->choice->last.caller = caller;
    choice_describe(sim);
    if (taken)
        take = !take;
    return take;
}

/* Refill from other nodes' partial lists (kernel: __refill_objects_any). */
static unsigned refill_from_other_nodes(struct sim *sim, struct kmem_cache *s, int local,
        struct obj_sink *sink, unsigned min, unsigned max)
{
    unsigned got = 0;

    if (!remote_partial_draw(sim, s, local, "__refill_objects_any"))
        return 0;
    for (unsigned d = 1; d < sim->cfg.nr_nodes; d++) {
        int node = (int)(((unsigned)local + d) % sim->cfg.nr_nodes); /* nearest first */
        unsigned r;

        if (s->node[node].partial.nr <= s->min_partial)
            continue;
        branch_record(sim, BP_REFILL_SOURCE, RS_OTHER_NODE);
        r = refill_from_node(sim, s, node, sink, min, max);
        got += r;
        if (r >= min)
            return got;
        min -= r;
        max -= r;
    }
    return got;
}

/*
 * Get between @min and @max objects into @sink: local partial slabs, other
 * nodes, then fresh slabs (kernel: refill_objects).  Returns the number
 * obtained, which is below @min only when the page allocator ran dry.
 */
unsigned refill_objects(struct sim *sim, struct kmem_cache *s, struct obj_sink *sink, unsigned min,
        unsigned max)
{
    int local = cpu_node(sim);
    unsigned got;

    if (s->node[local].partial.nr)
        branch_record(sim, BP_REFILL_SOURCE, RS_PARTIAL);
    got = refill_from_node(sim, s, local, sink, min, max);
    if (got >= min)
        return got;
    got += refill_from_other_nodes(sim, s, local, sink, min - got, max - got);
    while (got < min) {
        uint32_t idx;

        branch_record(sim, BP_REFILL_SOURCE, RS_NEW_SLAB);
        idx = new_slab(sim, s, local, false);
        if (!idx)
            break;
        ev_begin(sim, s, "refill_objects", "alloc_slab", local);
        stat_add(sim, s, SIM_ALLOC_SLAB, 1);
        ev_end(sim);
        got += alloc_from_new_slab(sim, s, idx, sink, max - got);
    }
    return got;
}

/*
 * Take one object from @node's partial list for the single-object slow path
 * (kernel: get_from_partial_node).  Returns SIM_NULL when the list is empty.
 */
sim_addr_t take_one_from_partial(struct sim *sim, struct kmem_cache *s, int node,
        struct obj_sink *sink)
{
    uint32_t idx = node_partial_first(s, node);
    struct slab *slab;
    sim_addr_t obj;

    if (!idx)
        return SIM_NULL;
    slab = slab_at(sim, idx);
    obj = slab->freelist;
    if (!kmem_cache_debug(s))
        check_freepointer_or_oops(sim, s, slab, obj);
    ev_begin(sim, s, kmem_cache_debug(s) ? "alloc_single_from_partial" : "get_from_partial_node",
            "take", node);
    slab->freelist = get_freepointer(sim, s, obj);
    slab->inuse++;
    if (kmem_cache_debug(s) && !alloc_debug_processing(sim, s, slab, obj)) {
        /* leak the slab: all objects marked used, as the kernel does */
        remove_partial(sim, s, idx, SLAB_ON_NONE);
        slab->frozen = true;
        slab->inuse = slab->objects;
        slab->freelist = SIM_NULL;
        sim->res->status = SIM_MISUSE;
        {
            size_t n = strlen(sim->res->message);

            snprintf(sim->res->message + n, sizeof(sim->res->message) - n,
                    "FIX %s: Marking all objects used\n", s->name);
            s->errors++; /* slab_fix */
        }
        ev_label(sim, "debug_check_failed");
        ev_report(sim, sim->res->message);
        ev_end(sim);
        return SIM_NULL;
    }
    sink_put(sim, sink, obj, place_slab(slab));
    if (!slab->freelist) {
        bool store_user = (s->flags & SIM_SLAB_STORE_USER) && !cache_has_sheaves(s);

        remove_partial(sim, s, idx, SLAB_ON_NONE);
        if (store_user)
            add_full(sim, s, idx);
        ev_label(sim, "take_last");
    }
    ev_end(sim);
    return obj;
}

/* Take one object from another node with more than min_partial partial
 * slabs (kernel: get_from_any_partial). */
sim_addr_t take_one_from_other_nodes(struct sim *sim, struct kmem_cache *s, int local,
        struct obj_sink *sink)
{
    if (!remote_partial_draw(sim, s, local, "get_from_any_partial"))
        return SIM_NULL;
    for (unsigned d = 1; d < sim->cfg.nr_nodes; d++) {
        int node = (int)(((unsigned)local + d) % sim->cfg.nr_nodes);

        if (s->node[node].partial.nr > s->min_partial) {
            branch_record(sim, BP_ALLOC_SLOWPATH, AS_OTHER_NODE);
            return take_one_from_partial(sim, s, node, sink);
        }
    }
    return SIM_NULL;
}
