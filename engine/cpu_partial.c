/*
 * cpu_partial.c: the legacy model's per-CPU partial lists (kernel:
 * set_cpu_partial, slub_set_cpu_partial, put_cpu_partial, __put_partials
 * (6.2-6.7: __unfreeze_partials), put_partials, get_partial_node,
 * get_any_partial, get_partial, __slab_free), kernels 6.2-6.17.
 *
 * Besides its cpu slab, each CPU keeps a short singly linked list of partial
 * slabs (c->partial, linked through slab->next; the head's slab->slabs is the
 * list length).  A free into a full slab from any CPU pushes that slab onto the
 * freeing CPU's list without touching a node lock; once the list holds
 * cpu_partial_slabs slabs, the next push first drains all of it to the node
 * partial lists.  get_partial_node moves up to cpu_partial_slabs / 2 + 1 extra
 * node slabs onto the list when it takes a slab for the cpu slab.  In era
 * ERA_FROZEN_PARTIAL the slabs on the list are frozen (acquire_slab freezes
 * them, __unfreeze_partials thaws them); from 6.8 they are not, and a free into
 * one takes no list action at all, even when it empties the slab.
 */
#include "internal.h"

#include <stdio.h>

/* sysfs cpu_partial for a cache of stride @size (kernel: set_cpu_partial). */
static unsigned default_cpu_partial(unsigned size)
{
    if (size >= PAGE_SIZE)
        return 6;
    if (size >= 1024)
        return 24;
    if (size >= 256)
        return 52;
    return 120;
}

/*
 * Set up the legacy per-CPU state of a new cache: no sheaves; a cpu slab
 * and a CPU partial list per CPU unless it is a debug cache (kernel:
 * alloc_kmem_cache_cpus, init_tid, set_cpu_partial, slub_set_cpu_partial).
 * @requested is the sysfs cpu_partial asked for (0: the default).
 */
void legacy_cache_init(struct sim *sim, struct kmem_cache *s, unsigned requested)
{
    s->sheaf_capacity = 0;
    if (kmem_cache_debug(s))
        return; /* locked single-object paths, no cpu partial list */
    s->cpu_slab = sim_zalloc(sim, sim->cfg.nr_cpus * sizeof(*s->cpu_slab));
    for (unsigned cpu = 0; cpu < sim->cfg.nr_cpus; cpu++)
        s->cpu_slab[cpu].tid = cpu; /* init_tid */
    s->cpu_partial = requested ? requested : default_cpu_partial(s->size);
    /* "assume half-full slabs" */
    s->cpu_partial_slabs = (s->cpu_partial * 2 + s->oo.objects - 1) / s->oo.objects;
}

/* Mark every slab of the chain at @head private (inside the caller's
 * event): detached from a CPU, about to go to the node lists. */
static void detach_chain(struct sim *sim, uint32_t head)
{
    for (uint32_t idx = head; idx; idx = slab_at(sim, idx)->next)
        slab_set_cpu_list(sim, slab_at(sim, idx), SLAB_ON_PRIVATE, -1);
}

/*
 * As the kernel's __put_partials; 6.2-6.7 __unfreeze_partials: the detached
 * chain at @head (private slabs) goes to the tails of its nodes' partial
 * lists, except empty slabs of nodes that already keep min_partial partial
 * slabs: those are discarded.  Opens its own events.
 */
void put_partials_to_node(struct sim *sim, struct kmem_cache *s, uint32_t head)
{
    bool frozen_era = sim_legacy_era(&sim->cfg) == SIM_ERA_FROZEN_PARTIAL;
    unsigned len = 0, nr = 0;
    uint32_t *discard, idx, next;

    for (idx = head; idx; idx = slab_at(sim, idx)->next)
        len++;
    discard = sim_scratch_alloc(sim, len * sizeof(*discard));
    ev_begin(sim, s, frozen_era ? "__unfreeze_partials" : "__put_partials", "add_partial",
            slab_at(sim, head)->node);
    for (idx = head; idx; idx = next) {
        struct slab *slab = slab_at(sim, idx);
        struct kmem_cache_node *n = &s->node[slab->node];

        next = slab->next;
        slab->next = 0;
        slab->slabs = 0;
        if (frozen_era)
            slab->cpu_frozen = false; /* the unfreezing CAS2 */
        SIM_BUG_ON(slab->cpu_frozen);
        if (!slab->inuse && n->partial.nr >= s->min_partial) {
            discard[nr++] = idx;
        } else {
            add_partial(sim, s, idx, true);
            stat_add(sim, s, SIM_FREE_ADD_PARTIAL, 1);
        }
    }
    ev_end(sim);
    for (unsigned i = 0; i < nr; i++) {
        ev_begin(sim, s, frozen_era ? "__unfreeze_partials" : "__put_partials", "discard",
                slab_at(sim, discard[i])->node);
        stat_add(sim, s, SIM_DEACTIVATE_EMPTY, 1);
        stat_add(sim, s, SIM_FREE_SLAB, 1);
        ev_end(sim);
        discard_slab(sim, s, discard[i], "empty");
    }
    sim_scratch_free(sim, discard);
}

/* Flush @c's whole CPU partial list to the node lists (kernel: put_partials). */
void put_partials(struct sim *sim, struct kmem_cache *s, struct kmem_cache_cpu *c)
{
    uint32_t head = c->partial;

    ev_begin(sim, s, "put_partials", "detach", slab_at(sim, head)->node);
    c->partial = 0;
    detach_chain(sim, head);
    ev_end(sim);
    put_partials_to_node(sim, s, head);
}

/* Push slab @idx (on no list) at the head of the current CPU's partial
 * list, inside the caller's event. */
static void push_cpu_partial(struct sim *sim, struct kmem_cache_cpu *c, uint32_t idx)
{
    struct slab *slab = slab_at(sim, idx);

    slab->slabs = (c->partial ? slab_at(sim, c->partial)->slabs : 0) + 1;
    slab->next = c->partial;
    c->partial = idx;
    slab_set_cpu_list(sim, slab, SLAB_ON_CPU_PARTIAL, sim->cpu);
}

/*
 * As the kernel's put_cpu_partial, from the free path (drain): push slab @idx
 * onto the current CPU's partial list; a list already holding
 * cpu_partial_slabs slabs is first detached whole and drained to the node
 * lists.  Opens its own events.
 */
static void put_cpu_partial(struct sim *sim, struct kmem_cache *s, uint32_t idx)
{
    struct kmem_cache_cpu *c = &s->cpu_slab[sim->cpu];
    uint32_t to_drain = 0;

    ev_begin(sim, s, "put_cpu_partial", "push", slab_at(sim, idx)->node);
    branch_record(sim, BP_PUT_CPU_PARTIAL,
                  c->partial && slab_at(sim, c->partial)->slabs >= s->cpu_partial_slabs ? PCP_DRAIN
                                                                                        : PCP_PUSH);
    if (c->partial && slab_at(sim, c->partial)->slabs >= s->cpu_partial_slabs) {
        to_drain = c->partial;
        c->partial = 0;
        detach_chain(sim, to_drain);
        stat_add(sim, s, SIM_CPU_PARTIAL_DRAIN, 1);
        ev_label(sim, "drain");
    }
    push_cpu_partial(sim, c, idx);
    ev_end(sim);
    if (to_drain)
        put_partials_to_node(sim, s, to_drain);
}

/*
 * As the kernel's get_partial_node: take the first slab of @node's partial
 * list for the cpu slab and move up to cpu_partial_slabs / 2 + 1 more to
 * the CPU partial list (put_cpu_partial without drain).  In era
 * ERA_FROZEN_PARTIAL every slab taken is frozen on the way (acquire_slab)
 * and the first one's freelist comes along in flight (*@chain).  Returns
 * the first slab (private) or 0.
 */
static uint32_t get_partial_node(struct sim *sim, struct kmem_cache *s, int node,
        sim_addr_t *chain)
{
    bool frozen_era = sim_legacy_era(&sim->cfg) == SIM_ERA_FROZEN_PARTIAL;
    struct kmem_cache_cpu *c = &s->cpu_slab[sim->cpu];
    uint32_t idx = node_partial_first(s, node), next, first = 0;
    unsigned moved = 0;

    if (!idx)
        return 0;
    if (frozen_era)
        check_chain(sim, s, slab_at(sim, idx), slab_at(sim, idx)->freelist);
    branch_record(sim, BP_LEGACY_ALLOC_SLOWPATH, LAS_NODE_PARTIAL);
    ev_begin(sim, s, "get_partial_node", "take", node);
    for (; idx; idx = next) {
        struct slab *slab = slab_at(sim, idx);

        next = slab->link.next;
        remove_partial(sim, s, idx, SLAB_ON_PRIVATE);
        if (frozen_era) { /* acquire_slab: one CAS2 each */
            slab->cpu_frozen = true;
            if (!first) {
                *chain = slab->freelist;
                chain_to_inflight(sim, s, slab, slab->freelist, place_slab(slab));
                slab->freelist = SIM_NULL;
                slab->inuse = slab->objects;
            }
        }
        if (!first) {
            first = idx;
            stat_add(sim, s, SIM_ALLOC_FROM_PARTIAL, 1);
        } else {
            push_cpu_partial(sim, c, idx);
            stat_add(sim, s, SIM_CPU_PARTIAL_NODE, 1);
            moved++;
        }
        if (!s->cpu_partial || moved > s->cpu_partial_slabs / 2)
            break;
    }
    if (moved)
        ev_label(sim, "take_and_fill_cpu_partial");
    ev_end(sim);
    return first;
}

/*
 * As the kernel's get_partial, get_any_partial: the partial list of @node (the
 * CPU's node for NUMA_NO_NODE), then, unless bound to that node, other
 * nodes with more than min_partial partial slabs, nearest first, skipped
 * when a draw exceeds remote_node_defrag_ratio.
 */
uint32_t get_partial(struct sim *sim, struct kmem_cache *s, int node, bool thisnode,
        sim_addr_t *chain)
{
    int search = node == SIM_NUMA_NO_NODE ? cpu_node(sim) : node;
    uint32_t idx = get_partial_node(sim, s, search, chain);
    enum sim_legacy_era era = sim_legacy_era(&sim->cfg);

    if (idx || (node != SIM_NUMA_NO_NODE && (era != SIM_ERA_DIRECT_LOAD || thisnode)))
        return idx;
    if (!remote_partial_draw(sim, s, search, "get_any_partial"))
        return 0;
    for (unsigned d = 1; d < sim->cfg.nr_nodes; d++) {
        int other = (int)(((unsigned)search + d) % sim->cfg.nr_nodes);

        if (s->node[other].partial.nr > s->min_partial &&
                (idx = get_partial_node(sim, s, other, chain)))
            return idx;
    }
    return 0;
}

/*
 * The free slow path (kernel: __slab_free): return the linked chain @objs
 * of slab @idx with one CAS2.  A free into a frozen slab ends there
 * (free_frozen); a free into a full slab puts it on this CPU's partial list
 * (cpu_partial_free, no node lock); in 6.8+ a free into a slab on some CPU
 * partial list does nothing more, even when it empties the slab; a node
 * partial slab that empties is discarded once the node keeps min_partial.
 */
void legacy_slab_free_slow(struct sim *sim, struct kmem_cache *s, uint32_t idx,
        const sim_addr_t *objs, unsigned cnt, struct sim_place from)
{
    struct slab *slab = slab_at(sim, idx);
    struct kmem_cache_node *n = &s->node[slab->node];
    bool frozen_era = sim_legacy_era(&sim->cfg) == SIM_ERA_FROZEN_PARTIAL;
    bool has_cpu_partial = s->cpu_partial != 0, lock = false, to_cpu_partial = false;
    sim_addr_t prior = slab->freelist;
    bool was_frozen = slab->cpu_frozen;

    ev_begin(sim, s, "__slab_free", "keep", slab->node);
    stat_add(sim, s, SIM_FREE_SLOWPATH, 1);
    stat_add(sim, s, SIM_ENGINE_SLAB_UPDATES, 1);
    set_freepointer(sim, s, objs[cnt - 1], prior);
    slab->freelist = objs[0];
    slab->inuse -= cnt;
    for (unsigned i = 0; i < cnt; i++)
        obj_leave(sim, objs[i], from, place_slab(slab));
    if ((slab->inuse == 0 || !prior) && !was_frozen) {
        if (frozen_era && has_cpu_partial && !prior) {
            slab->cpu_frozen = true; /* frozen in the same CAS2 */
            to_cpu_partial = true;
        } else if (!has_cpu_partial || prior) {
            lock = true; /* LOCK(n), speculatively */
        }
    }
    if (!lock) {
        branch_record(sim, BP_LEGACY_SLAB_FREE,
                      was_frozen                                      ? LSF_FREE_FROZEN
                      : to_cpu_partial || (has_cpu_partial && !prior) ? LSF_CPU_PARTIAL_FREE
                                                                      : LSF_KEEP);
        if (was_frozen) {
            stat_add(sim, s, SIM_FREE_FROZEN, 1);
            ev_label(sim, "free_frozen");
        } else if (to_cpu_partial || (has_cpu_partial && !prior)) {
            stat_add(sim, s, SIM_CPU_PARTIAL_FREE, 1);
            ev_label(sim, "cpu_partial_free");
            ev_end(sim);
            put_cpu_partial(sim, s, idx);
            return;
        }
        ev_end(sim);
        return;
    }
    if (!frozen_era && prior && slab->list != SLAB_ON_PARTIAL) {
        branch_record(sim, BP_LEGACY_SLAB_FREE, LSF_ON_CPU_PARTIAL);
        ev_label(sim, "on_cpu_partial"); /* it sits on some CPU's partial list */
        ev_end(sim);
        return;
    }
    if (slab->inuse == 0 && n->partial.nr >= s->min_partial) {
        branch_record(sim, BP_LEGACY_SLAB_FREE, LSF_DISCARD);
        slab_free_discard(sim, s, idx, prior);
        return;
    }
    if (!has_cpu_partial && !prior) {
        /* no arm of legacy_slab_free: a cache with a cpu slab always has a
         * CPU partial list here (legacy_cache_init) */
        add_partial(sim, s, idx, true);
        stat_add(sim, s, SIM_FREE_ADD_PARTIAL, 1);
        ev_label(sim, "add_partial");
    } else {
        branch_record(sim, BP_LEGACY_SLAB_FREE, LSF_KEEP_EMPTY);
        ev_label(sim, "keep_empty"); /* fewer than min_partial partial slabs */
    }
    ev_end(sim);
}
