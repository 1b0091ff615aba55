/*
 * rcu.c: kfree_rcu through the rcu_free sheaf, and grace periods (kernel:
 * kvfree_call_rcu, kfree_rcu_sheaf, __kfree_rcu_sheaf, rcu_free_sheaf,
 * rcu_free_sheaf_nobarn, flush_all_rcu_sheaves, kvfree_rcu_barrier).
 *
 * kfree_rcu() of a local object collects it in the CPU's rcu_free sheaf; a full
 * one is handed to RCU, and after a grace period it goes to its node's barn as
 * a full sheaf when there is room (fewer than MAX_FULL_SHEAVES), else it is
 * flushed to slabs.  Other objects take the older path: they wait for a grace
 * period one by one and are then freed with kfree_bulk.  The waiting callbacks
 * are a FIFO (rcu_queue.c); a grace period runs, in order, every callback
 * queued before it, each on the CPU that queued it.  Grace periods happen when
 * an operation asks, or automatically every rcu_gap operations, or at
 * exponentially distributed gaps drawn from the seeded generator.
 * SLAB_TYPESAFE_BY_RCU slabs give their pages back only after a grace period,
 * through the same queue.
 */
#include "internal.h"

#include <string.h>

/*
 * Put @obj in the CPU's rcu_free sheaf (kernel: __kfree_rcu_sheaf).
 * Returns false, counting free_rcu_sheaf_fail, when there is no sheaf to
 * put it in; the caller then takes the non-sheaf path.
 */
static bool kfree_rcu_sheaf(struct sim *sim, struct kmem_cache *s, sim_addr_t obj)
{
    struct slub_percpu_sheaves *pcs = &s->pcs[sim->cpu];
    int node = cpu_node(sim);
    struct slab_sheaf *r;

    if (!pcs->rcu_free) {
        uint32_t idx;

        if (!cache_has_sheaves(s)) {
            branch_record(sim, BP_RCU_SHEAF, RCS_NO_SHEAF);
            goto fail;
        }
        branch_record(sim, BP_RCU_SHEAF, RCS_GET_SHEAF);
        ev_begin(sim, s, "__kfree_rcu_sheaf", "get_sheaf", node);
        if (pcs->spare && !sheaf_at(sim, pcs->spare)->size) {
            idx = pcs->spare;
            pcs->spare = 0;
            ev_label(sim, "take_spare");
        } else if (s->barn[node].empty.nr) {
            idx = barn_pop(sim, s, node, false);
            ev_label(sim, "barn_empty");
        } else {
            idx = alloc_empty_sheaf(sim, s, s->sheaf_capacity);
            ev_label(sim, "new_sheaf");
        }
        pcs_set(sim, s, SIM_PL_RCU_FREE, idx);
        ev_end(sim);
    }
    r = sheaf_at(sim, pcs->rcu_free);
    ev_begin(sim, s, "__kfree_rcu_sheaf", "put", node);
    r->objects[r->size] = obj;
    obj_leave(sim, obj, place_none(SIM_PL_USER), place_in_sheaf(r, r->size));
    r->size++;
    stat_add(sim, s, SIM_FREE_RCU_SHEAF, 1);
    branch_record(sim, BP_RCU_SHEAF, r->size == r->capacity ? RCS_CALL_RCU : RCS_PUT);
    if (r->size == r->capacity) {
        uint32_t idx = pcs->rcu_free;

        pcs->rcu_free = 0;
        r->rcu_node = node;
        sheaf_set_place(sim, idx, place_node(SIM_PL_RCU_PENDING, node));
        rcu_queue(sim, RCU_CB_SHEAF, idx, SIM_NULL);
        ev_label(sim, "call_rcu");
    }
    ev_end(sim);
    return true;
fail:
    ev_begin(sim, s, "__kfree_rcu_sheaf", "fail", node);
    stat_add(sim, s, SIM_FREE_RCU_SHEAF_FAIL, 1);
    ev_end(sim);
    return false;
}

/* kfree_rcu(obj) (kernel: kvfree_call_rcu).  Misuse is reported as for
 * kfree and changes nothing. */
void kfree_rcu(struct sim *sim, sim_addr_t obj)
{
    struct slab *slab = slab_of(sim, obj);
    struct kmem_cache *s;

    if (!slab || slab_obj_index(sim->caches[slab->cache], slab, obj) < 0) {
        sim_result_msg(sim, SIM_MISUSE,
                "WARNING: kvfree_call_rcu: 0x%llx is not the start of a slab object",
                (unsigned long long)obj);
        ev_report_result(sim, NULL, "kvfree_call_rcu", "misuse");
        return;
    }
    s = sim->caches[slab->cache];
    /* 7.x tries the sheaf on every cache; 6.18 only where the cache has
     * sheaves (kfree_rcu_sheaf: s->cpu_sheaves), counting nothing else */
    if ((sim->cfg.model == SIM_MODEL_SHEAVES || (sim_hybrid(sim) && cache_has_sheaves(s))) &&
        slab->node == cpu_node(sim) && kfree_rcu_sheaf(sim, s, obj))
        return;
    if (slab->node != cpu_node(sim) &&
        (sim->cfg.model == SIM_MODEL_SHEAVES || (sim_hybrid(sim) && cache_has_sheaves(s))))
        branch_record(sim, BP_RCU_SHEAF, RCS_REMOTE);
    /* the non-sheaf path: the object waits for a grace period on its own */
    ev_begin(sim, s, "kvfree_call_rcu", slab->node == cpu_node(sim) ? "no_sheaf" : "remote",
            slab->node);
    obj_leave(sim, obj, place_none(SIM_PL_USER), place_node(SIM_PL_RCU_PENDING, slab->node));
    rcu_queue(sim, RCU_CB_OBJECT, 0, obj);
    ev_end(sim);
}

/* After the grace period: park the sheaf in its barn or flush it (kernel:
 * rcu_free_sheaf). */
static void rcu_free_sheaf(struct sim *sim, struct kmem_cache *s, uint32_t idx)
{
    struct slab_sheaf *r = sheaf_at(sim, idx);
    int node = r->rcu_node;
    struct node_barn *b = &s->barn[node];

    ev_begin(sim, s, "rcu_free_sheaf", "barn_put", node);
    if (r->size) /* an rcu_free sheaf gets its first object when installed */
        branch_record(sim, BP_GRACE_PERIOD,
                      b->full.nr < MAX_FULL_SHEAVES ? GP_BARN_PUT : GP_BARN_PUT_FAIL);
    if (r->size && b->full.nr < MAX_FULL_SHEAVES) {
        barn_push(sim, s, node, idx, true);
        stat_add(sim, s, SIM_BARN_PUT, 1);
        ev_end(sim);
        return;
    }
    sheaf_set_place(sim, idx, place_none(SIM_PL_INFLIGHT));
    if (r->size) {
        ev_label(sim, "barn_put_fail");
        stat_add(sim, s, SIM_BARN_PUT_FAIL, 1);
        ev_end(sim);
        sheaf_flush_unused(sim, s, idx);
        ev_begin(sim, s, "rcu_free_sheaf", "empty", node);
    } else {
        ev_label(sim, "empty");
    }
    if (b->empty.nr < MAX_EMPTY_SHEAVES)
        barn_push(sim, s, node, idx, false);
    else
        free_empty_sheaf(sim, s, idx);
    ev_end(sim);
}

/* (kernel: rcu_free_sheaf_nobarn) flushed and freed, never parked */
static void rcu_free_sheaf_nobarn(struct sim *sim, struct kmem_cache *s, uint32_t idx)
{
    sheaf_flush_and_free(sim, s, idx, "rcu_free_sheaf_nobarn", "detach", "free",
                         sheaf_at(sim, idx)->rcu_node);
}

/* Run the first @n callbacks of the queue, in order.  Each stays queued
 * until it runs, so the objects of those still waiting are counted by the
 * validator after every event. */
static void rcu_run(struct sim *sim, size_t n)
{
    struct rcu_cb *cbs;
    int saved = sim->cpu, worker = -1;
    bool spread = false, chosen = false;
    size_t i = 0;

    if (!n)
        return; /* nothing due; the queue may be NULL, which memcpy must not see */
    cbs = sim_scratch_alloc(sim, n * sizeof(*cbs));
    memcpy(cbs, sim->rcu, n * sizeof(*cbs));
    for (size_t k = 0; k < n; k++) /* objects queued by more than one CPU */
        if (cbs[k].kind == RCU_CB_OBJECT && cbs[k].cpu != cbs[0].cpu)
            spread = true;
    while (i < n) {
        struct rcu_cb cb = cbs[i];

        sim->cpu = cb.cpu;
        if (cb.kind == RCU_CB_OBJECT) {
            /* kfree_bulk of every object queued by this CPU in a row */
            size_t j = i;
            sim_addr_t *objs;

            while (j < n && cbs[j].kind == RCU_CB_OBJECT && cbs[j].cpu == cb.cpu)
                j++;
            /* kfree_rcu_work runs on the unbound "kvfree_rcu_reclaim"
             * workqueue: on the CPU the scheduler picks, a choice point
             * whose default is the CPU that queued the objects.  The
             * batches of one grace period are queued from one CPU's RCU
             * callbacks (queue_rcu_work() from kvfree_rcu_queue_batch(),
             * every CPU's by __kvfree_rcu_barrier()'s caller) into one
             * unbound pool, whose worker takes them one after another
             * (worker_thread(), keep_working()): one choice for all of
             * them, each on its own queuing CPU (the default) or all on
             * one CPU. */
            if (sim->cfg.nr_cpus > 1 && !chosen) {
                /* options: the worker's CPU counted from the queuing one,
                 * or (batches from several CPUs) 0 for each batch on its
                 * own queuing CPU and 1 + N for all of them on CPU N */
                uint64_t k = choice_take(sim, SIM_CHOICE_RCU_WORKER,
                                         spread ? 1 + sim->cfg.nr_cpus : sim->cfg.nr_cpus);

                worker = spread ? (int)k - 1 : (int)((cb.cpu + k) % sim->cfg.nr_cpus);
                chosen = true;
                sim->choice->last.cpu = (int)cb.cpu;
                sim->choice->last.nr_cpus = sim->cfg.nr_cpus;
                choice_describe(sim);
            }
            if (worker >= 0)
                sim->cpu = worker;
            objs = sim_scratch_alloc(sim, (j - i) * sizeof(*objs));
            ev_begin(sim, NULL, "kvfree_rcu_bulk", "grace_period_over", -1);
            rcu_dequeue(sim, j - i); /* from the queue into flight, in one event */
            for (size_t k = i; k < j; k++) {
                objs[k - i] = cbs[k].obj;
                inflight_add(sim, objs[k - i],
                        place_node(SIM_PL_RCU_PENDING, slab_of(sim, objs[k - i])->node));
            }
            ev_end(sim);
            kfree_bulk(sim, objs, j - i);
            sim_scratch_free(sim, objs);
            i = j;
            continue;
        }
        rcu_dequeue(sim, 1);
        if (cb.kind == RCU_CB_SLAB) {
            struct slab *slab = slab_at(sim, cb.idx);

            discard_slab_pages(sim, sim->caches[slab->cache], cb.idx);
        } else {
            struct kmem_cache *s = sim->caches[sheaf_at(sim, cb.idx)->cache];

            if (cb.kind == RCU_CB_SHEAF) {
                rcu_free_sheaf(sim, s, cb.idx);
            } else {
                branch_record(sim, BP_GRACE_PERIOD, GP_FLUSH);
                rcu_free_sheaf_nobarn(sim, s, cb.idx);
            }
        }
        i++;
    }
    sim->cpu = saved;
    sim_scratch_free(sim, cbs);
}

/* One grace period: the callbacks queued before it run, oldest first. */
void rcu_grace_period(struct sim *sim, const char *why)
{
    size_t n = sim->nr_rcu;

    ev_begin(sim, NULL, "rcu_grace_period", why, -1);
    ev_end(sim);
    rcu_run(sim, n);
}

/* kvfree_rcu_barrier: every CPU's rcu_free sheaf goes to RCU even if not
 * full (flushed, never parked), then every callback runs (kernel:
 * flush_all_rcu_sheaves, rcu_barrier). */
void kvfree_rcu_barrier(struct sim *sim)
{
    int saved = sim->cpu;

    for (unsigned i = 0; i < sim->nr_caches; i++) {
        struct kmem_cache *s = sim->caches[i];

        for (unsigned cpu = 0; cpu < sim->cfg.nr_cpus && s->alive; cpu++) {
            uint32_t idx = s->pcs[cpu].rcu_free;

            if (!idx)
                continue;
            sim->cpu = (int)cpu;
            ev_begin(sim, s, "flush_rcu_sheaves_on_cache", "call_rcu", cpu_node(sim));
            s->pcs[cpu].rcu_free = 0;
            sheaf_at(sim, idx)->rcu_node = cpu_node(sim);
            sheaf_set_place(sim, idx, place_node(SIM_PL_RCU_PENDING, cpu_node(sim)));
            rcu_queue(sim, RCU_CB_SHEAF_NOBARN, idx, SIM_NULL);
            ev_end(sim);
        }
    }
    sim->cpu = saved;
    while (sim->nr_rcu)
        rcu_grace_period(sim, "rcu_barrier");
}

/* Automatic grace periods, checked after every operation: every rcu_gap
 * operations, or with probability 1/rcu_gap after each one (geometric
 * gaps: the discrete exponential distribution, from the seeded generator). */
void rcu_tick(struct sim *sim)
{
    if (sim->cfg.rcu_mode == SIM_RCU_PERIODIC) {
        if (sim->op % sim->cfg.rcu_gap == 0)
            rcu_grace_period(sim, "periodic");
    } else if (sim->cfg.rcu_mode == SIM_RCU_RANDOM) {
        if (rng_below(&sim->rng, sim->cfg.rcu_gap) == 0)
            rcu_grace_period(sim, "random");
    }
}
