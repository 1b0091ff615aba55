/*
 * cpu_slab.c: the legacy model's per-CPU slab (kernel: struct kmem_cache_cpu;
 * __slab_alloc_node, ___slab_alloc, get_freelist, freeze_slab, deactivate_slab,
 * flush_slab, __flush_cpu_slab, do_slab_free, __kmem_cache_alloc_bulk), kernels
 * 6.2-6.17.
 *
 * Each CPU owns at most one frozen slab of a cache, the cpu slab, and takes its
 * free objects onto a lockless freelist (c->freelist) guarded by a transaction
 * id: the fast paths pop from and push to that list with one double-word
 * compare-and-exchange.  The objects on c->freelist still count in the slab's
 * inuse; frees from other CPUs go to the slab's own freelist and are picked up
 * by get_freelist when c->freelist runs dry.  When the slab has nothing left,
 * ___slab_alloc takes the next slab from the CPU partial list (cpu_partial.c,
 * era-dependent: see config.c), then from the node partial list
 * (get_partial_node), then from the page allocator.  Debug caches have no cpu
 * slab: they keep the single-object paths of node.c, as the kernel does
 * (alloc_single_from_partial).
 *
 * Everything runs on one CPU at a time, so the races the kernel guards against
 * (a changed c->slab after the lock is retaken, a failed CAS) do not arise; the
 * events still show each lock section the kernel enters.  Between the taking of
 * a freelist and its loading, its objects are in flight (sim->inflight) and the
 * slab is private, so the validator holds after every event.
 */
#include "internal.h"

#include <stdio.h>

/*
 * TID_STEP of a preemptible kernel: roundup_pow_of_two(CONFIG_NR_CPUS), a
 * constant of the build, not of the machine it boots on.  The lab's
 * CONFIG_NR_CPUS is the most CPUs a machine may have, SIM_MAX_CPUS, so every
 * machine's tids advance by the same step.  The one place that knows it
 * (validate.c checks tid % tid_step() == cpu).
 */
uint64_t tid_step(const struct sim *sim)
{
    uint64_t step = 1;

    (void)sim;
    while (step < SIM_MAX_CPUS)
        step <<= 1;
    return step;
}

static void next_tid(const struct sim *sim, struct kmem_cache_cpu *c)
{
    c->tid += tid_step(sim);
}

/* The place of an object on CPU @cpu's lockless freelist. */
struct sim_place place_cpu_freelist(const struct slab *slab, unsigned cpu)
{
    struct sim_place p = place_cpu(SIM_PL_CPU_FREELIST, cpu);

    p.node = (int16_t)slab->node;
    p.slab = slab->base;
    return p;
}

/*
 * As the kernel's get_freelist: take the whole freelist of @slab, the current
 * CPU's slab, under LOCK(c); the slab stays frozen only when something was
 * taken.  The objects go in flight.  Inside the caller's event.
 */
static sim_addr_t get_freelist(struct sim *sim, struct kmem_cache *s, struct slab *slab)
{
    sim_addr_t head = slab->freelist;

    chain_to_inflight(sim, s, slab, head, place_slab(slab));
    slab->freelist = SIM_NULL;
    slab->inuse = slab->objects;
    slab->cpu_frozen = head != SIM_NULL;
    return head;
}

/* As the kernel's freeze_slab: freeze an unfrozen partial slab and take its
 * freelist with an irq-safe CAS2.  Opens its own event. */
static sim_addr_t freeze_slab(struct sim *sim, struct kmem_cache *s, uint32_t idx)
{
    struct slab *slab = slab_at(sim, idx);
    sim_addr_t head;

    SIM_BUG_ON(slab->cpu_frozen);
    check_chain(sim, s, slab, slab->freelist);
    ev_begin(sim, s, "freeze_slab", "freeze", slab->node);
    head = get_freelist(sim, s, slab);
    slab->cpu_frozen = true;
    ev_end(sim);
    SIM_BUG_ON(!head); /* I2/I3: a partial slab has free objects */
    return head;
}

/*
 * load_freelist: the in-flight chain at @obj becomes the CPU's: @obj goes
 * to the user, the rest to c->freelist.  LOCK(c) held, inside the caller's
 * event.
 */
static void load_freelist(struct sim *sim, struct kmem_cache *s, struct kmem_cache_cpu *c,
        sim_addr_t obj)
{
    struct slab *slab = slab_at(sim, c->slab);
    unsigned cpu = (unsigned)sim->cpu;
    unsigned n = 0;

    c->freelist = get_freepointer(sim, s, obj);
    next_tid(sim, c);
    obj_leave(sim, obj, place_none(SIM_PL_INFLIGHT), place_none(SIM_PL_USER));
    for (sim_addr_t p = c->freelist; p && n < slab->objects; n++) {
        sim_addr_t next = peek_freepointer(sim, s, p, NULL);

        obj_leave(sim, p, place_none(SIM_PL_INFLIGHT), place_cpu_freelist(slab, cpu));
        p = next;
    }
}

/* Make slab @idx the current CPU's cpu slab (inside the caller's event). */
static void install_cpu_slab(struct sim *sim, struct kmem_cache_cpu *c, uint32_t idx)
{
    SIM_BUG_ON(c->slab);
    c->slab = idx;
    slab_set_cpu_list(sim, slab_at(sim, idx), SLAB_ON_CPU, sim->cpu);
}

/*
 * Detach the cpu slab of @c (on CPU @cpu) and its lockless freelist under
 * LOCK(c): the slab becomes private, the freelist's objects go in flight.
 * Inside the caller's event.  Returns the freelist's head.
 */
static sim_addr_t detach_cpu_slab(struct sim *sim, struct kmem_cache *s, struct kmem_cache_cpu *c,
        unsigned cpu)
{
    struct slab *slab = slab_at(sim, c->slab);
    sim_addr_t head = c->freelist;

    chain_to_inflight(sim, s, slab, head, place_cpu_freelist(slab, cpu));
    c->slab = 0;
    c->freelist = SIM_NULL;
    next_tid(sim, c);
    slab_set_cpu_list(sim, slab, SLAB_ON_PRIVATE, -1);
    return head;
}

/* The tid after @tid (kernel: next_tid).  Cannot fail. */
uint64_t legacy_next_tid(const struct sim *sim, uint64_t tid)
{
    return tid + tid_step(sim);
}

/* flush_slab's section under LOCK(c) for a race (race.c): detach CPU
 * @cpu's cpu slab, into *@idx, and return its freelist, now in flight.
 * Inside the caller's event; *@idx is 0 (and nothing changes) when the
 * CPU has no cpu slab. */
sim_addr_t legacy_detach_for_flush(struct sim *sim, struct kmem_cache *s, unsigned cpu,
                                   uint32_t *idx)
{
    struct kmem_cache_cpu *c = &s->cpu_slab[cpu];

    *idx = c->slab;
    if (!c->slab)
        return SIM_NULL;
    stat_add(sim, s, SIM_CPUSLAB_FLUSH, 1);
    return detach_cpu_slab(sim, s, c, cpu);
}

/*
 * As the kernel's deactivate_slab: give back detached slab @idx with the
 * in-flight chain @cl that was its CPU freelist: splice the chain onto the
 * slab's freelist and unfreeze it (one CAS2), then put the slab at the
 * head of its node's partial list (at the tail if others freed into it
 * meanwhile), discard it when empty and the node has min_partial partial
 * slabs, or let it float full.  Opens its own events.
 */
void deactivate_slab(struct sim *sim, struct kmem_cache *s, uint32_t idx, sim_addr_t cl)
{
    struct slab *slab = slab_at(sim, idx);
    struct kmem_cache_node *n = &s->node[slab->node];
    bool tail = slab->freelist != SIM_NULL;
    sim_addr_t last = SIM_NULL;
    unsigned k = 0;

    ev_begin(sim, s, "deactivate_slab", "to_head", slab->node);
    if (tail)
        stat_add(sim, s, SIM_DEACTIVATE_REMOTE_FREES, 1);
    for (sim_addr_t p = cl; p && k < slab->objects; k++) { /* stage 1: no atomics */
        last = p;
        p = peek_freepointer(sim, s, p, NULL);
    }
    if (k) { /* stage 2: one CAS2 splices and unfreezes */
        set_freepointer(sim, s, last, slab->freelist);
        slab->freelist = cl;
        slab->inuse -= k;
        for (sim_addr_t p = cl, next; p && k; k--, p = next) {
            next = peek_freepointer(sim, s, p, NULL);
            obj_leave(sim, p, place_none(SIM_PL_INFLIGHT), place_slab(slab));
        }
    }
    slab->cpu_frozen = false;
    if (slab->inuse == 0 && n->partial.nr >= s->min_partial) {
        stat_add(sim, s, SIM_DEACTIVATE_EMPTY, 1);
        stat_add(sim, s, SIM_FREE_SLAB, 1);
        ev_label(sim, "empty");
        ev_end(sim);
        discard_slab(sim, s, idx, "empty");
        return;
    }
    if (slab->freelist) {
        add_partial(sim, s, idx, tail);
        stat_add(sim, s, tail ? SIM_DEACTIVATE_TO_TAIL : SIM_DEACTIVATE_TO_HEAD, 1);
        ev_label(sim, tail ? "to_tail" : "to_head");
    } else {
        set_slab_list(sim, slab, SLAB_ON_NONE);
        stat_add(sim, s, SIM_DEACTIVATE_FULL, 1);
        ev_label(sim, "full");
    }
    ev_end(sim);
}

static bool node_match(const struct slab *slab, int node)
{
    return node == SIM_NUMA_NO_NODE || slab->node == node;
}

/* Pop the head of the CPU partial list (kernel: slub_percpu_partial,
 * slub_set_percpu_partial); inside the caller's event. */
static uint32_t pop_cpu_partial(struct kmem_cache_cpu *c, struct sim *sim)
{
    uint32_t idx = c->partial;
    struct slab *slab = slab_at(sim, idx);

    c->partial = slab->next;
    slab->next = 0;
    return idx;
}

/*
 * The single-object slow path (kernel: ___slab_alloc), era by era.  Returns
 * the object, now the user's, or SIM_NULL when no memory could be found.
 */
static sim_addr_t legacy_slow_alloc(struct sim *sim, struct kmem_cache *s, int node, uint32_t gfp)
{
    unsigned cpu = (unsigned)sim->cpu;
    struct kmem_cache_cpu *c = &s->cpu_slab[cpu];
    enum sim_legacy_era era = sim_legacy_era(&sim->cfg);
    bool try_thisnode = era == SIM_ERA_DIRECT_LOAD && node != SIM_NUMA_NO_NODE &&
            !(gfp & SIM_GFP_THISNODE);
    sim_addr_t obj;
    uint32_t idx;
    struct slab *slab;

    ev_begin(sim, s, "___slab_alloc", "slowpath", node);
    stat_add(sim, s, SIM_ALLOC_SLOWPATH, 1);
    ev_end(sim);
    idx = c->slab;
    if (!idx)
        goto new_slab;
redo:
    slab = slab_at(sim, idx);
    if (!node_match(slab, node)) {
        branch_record(sim, BP_LEGACY_ALLOC_SLOWPATH, LAS_NODE_MISMATCH);
        ev_begin(sim, s, "___slab_alloc", "node_mismatch", node);
        stat_add(sim, s, SIM_ALLOC_NODE_MISMATCH, 1);
        obj = detach_cpu_slab(sim, s, c, cpu); /* deactivate_slab: label */
        ev_end(sim);
        deactivate_slab(sim, s, idx, obj);
        goto new_slab;
    }
    SIM_BUG_ON(c->freelist); /* the fast path would have taken it */
    check_chain(sim, s, slab, slab->freelist);
    ev_begin(sim, s, "___slab_alloc", "alloc_refill", node);
    obj = get_freelist(sim, s, slab);
    branch_record(sim, BP_LEGACY_ALLOC_SLOWPATH, obj ? LAS_ALLOC_REFILL : LAS_DEACTIVATE_BYPASS);
    if (!obj) {
        /* nothing came back: the slab floats full, no deactivate_slab */
        c->slab = 0;
        next_tid(sim, c);
        slab_set_cpu_list(sim, slab, SLAB_ON_NONE, -1);
        stat_add(sim, s, SIM_DEACTIVATE_BYPASS, 1);
        ev_label(sim, "deactivate_bypass");
        ev_end(sim);
        goto new_slab;
    }
    stat_add(sim, s, SIM_ALLOC_REFILL, 1);
    load_freelist(sim, s, c, obj);
    ev_end(sim);
    return obj;

new_slab:
    while (c->partial) {
        uint32_t p = c->partial;
        struct slab *ps = slab_at(sim, p);

        if (era == SIM_ERA_FROZEN_PARTIAL) {
            /* already frozen: it becomes c->slab at once, then REDO */
            branch_record(sim, BP_LEGACY_ALLOC_SLOWPATH, LAS_CPU_PARTIAL);
            ev_begin(sim, s, "___slab_alloc", "cpu_partial_pop", ps->node);
            pop_cpu_partial(c, sim);
            c->slab = p;
            slab_set_cpu_list(sim, ps, SLAB_ON_CPU, (int)cpu);
            stat_add(sim, s, SIM_CPU_PARTIAL_ALLOC, 1);
            ev_end(sim);
            idx = p;
            goto redo;
        }
        if (era == SIM_ERA_DELAYED_FREEZE) {
            /* pop, unlock; count it even if it is then rejected */
            branch_record(sim, BP_LEGACY_ALLOC_SLOWPATH, LAS_CPU_PARTIAL);
            ev_begin(sim, s, "___slab_alloc", "cpu_partial_pop", ps->node);
            pop_cpu_partial(c, sim);
            slab_set_cpu_list(sim, ps, SLAB_ON_PRIVATE, -1);
            stat_add(sim, s, SIM_CPU_PARTIAL_ALLOC, 1);
            ev_end(sim);
            if (!node_match(ps, node)) {
                put_partials_to_node(sim, s, p);
                continue;
            }
            idx = p;
            obj = freeze_slab(sim, s, p);
            goto retry_load_slab;
        }
        /* ERA_DIRECT_LOAD: the likely case never drops the lock */
        if (node_match(ps, node)) {
            check_chain(sim, s, ps, ps->freelist);
            branch_record(sim, BP_LEGACY_ALLOC_SLOWPATH, LAS_CPU_PARTIAL);
            ev_begin(sim, s, "___slab_alloc", "cpu_partial_load", ps->node);
            pop_cpu_partial(c, sim);
            install_cpu_slab(sim, c, p);
            obj = get_freelist(sim, s, ps);
            SIM_BUG_ON(!obj); /* VM_BUG_ON(!freelist): I3 */
            stat_add(sim, s, SIM_CPU_PARTIAL_ALLOC, 1);
            load_freelist(sim, s, c, obj);
            ev_end(sim);
            return obj;
        }
        branch_record(sim, BP_LEGACY_ALLOC_SLOWPATH, LAS_CPU_PARTIAL);
        ev_begin(sim, s, "___slab_alloc", "cpu_partial_unlikely", ps->node);
        pop_cpu_partial(c, sim);
        slab_set_cpu_list(sim, ps, SLAB_ON_PRIVATE, -1);
        ev_end(sim);
        put_partials_to_node(sim, s, p);
    }

new_objects:
    obj = SIM_NULL;
    idx = get_partial(sim, s, node, try_thisnode || (gfp & SIM_GFP_THISNODE), &obj);
    if (idx) {
        if (era != SIM_ERA_FROZEN_PARTIAL)
            obj = freeze_slab(sim, s, idx);
        goto retry_load_slab;
    }
    branch_record(sim, BP_LEGACY_ALLOC_SLOWPATH, LAS_NEW_SLAB);
    idx = try_thisnode ? new_slab_trynode(sim, s, node)
                       : new_slab(sim, s, node != SIM_NUMA_NO_NODE ? node : cpu_node(sim),
                                  (gfp & SIM_GFP_THISNODE) != 0);
    if (!idx) {
        if (try_thisnode) {
            try_thisnode = false;
            goto new_objects;
        }
        return SIM_NULL;
    }
    slab = slab_at(sim, idx);
    check_chain(sim, s, slab, slab->freelist);
    ev_begin(sim, s, "___slab_alloc", "new_slab", slab->node);
    stat_add(sim, s, SIM_ALLOC_SLAB, 1);
    obj = get_freelist(sim, s, slab);
    slab->cpu_frozen = true;
    inc_slabs_node(s, slab);
    ev_end(sim);

retry_load_slab:
    ev_begin(sim, s, "___slab_alloc", "retry_load_slab", slab_at(sim, idx)->node);
    install_cpu_slab(sim, c, idx);
    load_freelist(sim, s, c, obj);
    ev_end(sim);
    return obj;
}

/*
 * kmem_cache_alloc_node in the legacy model (kernel: slab_alloc_node,
 * __slab_alloc_node): pop c->freelist when the cpu slab suits @node, else
 * the slow path.  Returns the object or SIM_NULL.
 */
sim_addr_t legacy_slab_alloc(struct sim *sim, struct kmem_cache *s, int node, uint32_t gfp)
{
    struct kmem_cache_cpu *c = &s->cpu_slab[sim->cpu];
    sim_addr_t obj = c->freelist;
    struct slab *slab;

    if (!obj || !c->slab || !node_match(slab_at(sim, c->slab), node))
        return legacy_slow_alloc(sim, s, node, gfp);
    slab = slab_at(sim, c->slab);
    check_freepointer_or_oops(sim, s, slab, obj);
    ev_begin(sim, s, "__slab_alloc_node", "fastpath", slab->node);
    c->freelist = get_freepointer(sim, s, obj);
    next_tid(sim, c);
    obj_leave(sim, obj, place_cpu_freelist(slab, (unsigned)sim->cpu), place_none(SIM_PL_USER));
    stat_add(sim, s, SIM_ALLOC_FASTPATH, 1);
    ev_end(sim);
    return obj;
}

/* set_freepointer()'s BUG_ON(object == fp): the kernel stops; the model
 * reports it and leaves the objects where they were. */
static void naive_double_free(struct sim *sim, struct kmem_cache *s, const struct slab *slab,
        const sim_addr_t *objs, unsigned cnt, struct sim_place from)
{
    sim_result_msg(sim, SIM_MISUSE,
            "kernel BUG at mm/slub.c: set_freepointer(): object == fp: 0x%llx freed twice in a "
            "row (naive double free detection)",
            (unsigned long long)objs[cnt - 1]);
    ev_begin(sim, s, "set_freepointer", "double_free", slab->node);
    ev_report(sim, sim->res->message);
    for (unsigned i = 0; from.type == SIM_PL_INFLIGHT && i < cnt; i++)
        inflight_drop_one(sim, objs[i]);
    ev_end(sim);
}

/*
 * Kernels before "mm/slub: fix bulk alloc and free stats" (6f3dd2c31d7d,
 * 6.8), that is 6.1 to 6.7 and so ERA_FROZEN_PARTIAL: kmem_cache_alloc_bulk
 * counts no alloc_fastpath for what it pops from the cpu freelist, and a
 * bulk free onto the cpu slab counts one free_fastpath for the batch.
 */
static bool legacy_bulk_stats_per_batch(const struct sim *sim)
{
    return sim_legacy_era(&sim->cfg) == SIM_ERA_FROZEN_PARTIAL;
}

/*
 * Free the chain @objs[0] -> ... -> @objs[cnt-1] (already linked when
 * cnt > 1) of slab @idx, coming from @from (kernel: do_slab_free): into
 * c->freelist when it is the CPU's own slab (free_fastpath += cnt), else
 * through __slab_free (cpu_partial.c, free_slowpath += 1).
 */
void legacy_do_slab_free(struct sim *sim, struct kmem_cache *s, uint32_t idx,
        const sim_addr_t *objs, unsigned cnt, struct sim_place from)
{
    struct kmem_cache_cpu *c = &s->cpu_slab[sim->cpu];
    struct slab *slab = slab_at(sim, idx);
    sim_addr_t tail = objs[cnt - 1];

    if (c->slab != idx) {
        if (slab->freelist == tail) {
            naive_double_free(sim, s, slab, objs, cnt, from);
            return;
        }
        legacy_slab_free_slow(sim, s, idx, objs, cnt, from);
        return;
    }
    if (c->freelist == tail) {
        naive_double_free(sim, s, slab, objs, cnt, from);
        return;
    }
    ev_begin(sim, s, "do_slab_free", "fastpath", slab->node);
    set_freepointer(sim, s, tail, c->freelist);
    c->freelist = objs[0];
    next_tid(sim, c);
    for (unsigned i = 0; i < cnt; i++)
        obj_leave(sim, objs[i], from, place_cpu_freelist(slab, (unsigned)sim->cpu));
    /* one per batch before "mm/slub: fix bulk alloc and free stats" */
    stat_add(sim, s, SIM_FREE_FASTPATH, legacy_bulk_stats_per_batch(sim) ? 1 : cnt);
    ev_end(sim);
}

/*
 * kmem_cache_alloc_bulk in the legacy model (kernel:
 * __kmem_cache_alloc_bulk): pop c->freelist under LOCK(c), calling the slow
 * path for one object whenever it runs dry, until it fails.  Returns the
 * number obtained; kmem_cache_alloc_bulk gives them back if short.
 */
unsigned legacy_alloc_bulk(struct sim *sim, struct kmem_cache *s, unsigned n, sim_addr_t *out)
{
    struct kmem_cache_cpu *c = &s->cpu_slab[sim->cpu];
    unsigned got = 0;

    while (got < n) {
        if (c->freelist) {
            struct slab *slab = slab_at(sim, c->slab);

            ev_begin(sim, s, "__kmem_cache_alloc_bulk", "fastpath", slab->node);
            while (got < n && c->freelist) {
                sim_addr_t obj = c->freelist;

                check_freepointer_or_oops(sim, s, slab, obj);
                c->freelist = get_freepointer(sim, s, obj);
                obj_leave(sim, obj, place_cpu_freelist(slab, (unsigned)sim->cpu),
                        place_none(SIM_PL_USER));
                out[got++] = obj;
                if (!legacy_bulk_stats_per_batch(sim)) /* counted since 6.8 */
                    stat_add(sim, s, SIM_ALLOC_FASTPATH, 1);
            }
            next_tid(sim, c);
            ev_end(sim);
            continue;
        }
        out[got] = legacy_slow_alloc(sim, s, SIM_NUMA_NO_NODE, SIM_GFP_KERNEL);
        if (!out[got])
            break;
        got++;
    }
    return got;
}

/*
 * Flush CPU @cpu's cpu slab and CPU partial list of @s (kernel:
 * __flush_cpu_slab: flush_slab, then put_partials), counting on @cpu.
 */
void legacy_flush_cpu(struct sim *sim, struct kmem_cache *s, unsigned cpu)
{
    struct kmem_cache_cpu *c = &s->cpu_slab[cpu];
    int saved = sim->cpu;

    sim->cpu = (int)cpu;
    if (c->slab) {
        uint32_t idx = c->slab;
        sim_addr_t cl;

        ev_begin(sim, s, "flush_slab", "flush", slab_at(sim, idx)->node);
        cl = detach_cpu_slab(sim, s, c, cpu);
        stat_add(sim, s, SIM_CPUSLAB_FLUSH, 1);
        ev_end(sim);
        deactivate_slab(sim, s, idx, cl);
    }
    if (c->partial)
        put_partials(sim, s, c);
    sim->cpu = saved;
}
