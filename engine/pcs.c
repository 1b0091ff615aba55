/*
 * pcs.c: each CPU's sheaves of a cache (kernel: struct slub_percpu_sheaves;
 * alloc_from_pcs, __pcs_replace_empty_main, free_to_pcs,
 * __pcs_replace_full_main, __pcs_install_empty_sheaf, alloc_from_pcs_bulk,
 * pcs_flush_all).
 *
 * Allocation pops from the main sheaf and free pushes to it.  When main is
 * empty it swaps with a non-empty spare, exchanges itself for a full sheaf of
 * the barn, or gets refilled from slabs; when main is full it swaps with a
 * non-full spare, parks itself in the barn for an empty one, or (barn full) has
 * the spare flushed to slabs.  Caches without sheaves point main at the shared,
 * never modified bootstrap sheaf (size 0, capacity 0), so both fast paths fall
 * through to the slab paths.
 *
 * In the hybrid model (6.18-6.19) only caches created with a sheaf_capacity
 * have sheaves, over cpu slabs: the sheaf layer counts alloc_cpu_sheaf and
 * free_cpu_sheaf, a node-bound allocation it cannot serve falls through
 * uncounted, an empty main is refilled only when the gfp may block, and a
 * refilled sheaf replaces the empty main, which goes to the barn.
 */
#include "internal.h"

#include <string.h>

/* Sheaf in slot @which of @cpu's sheaves; 0 when none. */
static uint32_t *pcs_slot(struct kmem_cache *s, unsigned cpu, enum sim_place_type which)
{
    struct slub_percpu_sheaves *pcs = &s->pcs[cpu];

    switch (which) {
    case SIM_PL_MAIN:
        return &pcs->main;
    case SIM_PL_SPARE:
        return &pcs->spare;
    default:
        return &pcs->rcu_free;
    }
}

/* The place of slot @which of the current CPU. */
static struct sim_place pcs_place(const struct sim *sim, enum sim_place_type which)
{
    return place_cpu(which, (unsigned)sim->cpu);
}

/* Install sheaf @idx (or 0) in a slot of the current CPU, recording the move. */
void pcs_set(struct sim *sim, struct kmem_cache *s, enum sim_place_type which, uint32_t idx)
{
    *pcs_slot(s, (unsigned)sim->cpu, which) = idx;
    if (idx)
        sheaf_set_place(sim, idx, pcs_place(sim, which));
}

/* Swap main and spare of the current CPU. */
static void pcs_swap(struct sim *sim, struct kmem_cache *s)
{
    struct slub_percpu_sheaves *pcs = &s->pcs[sim->cpu];
    uint32_t main = pcs->main;

    pcs_set(sim, s, SIM_PL_MAIN, pcs->spare);
    pcs_set(sim, s, SIM_PL_SPARE, main);
}

/*
 * Exchange the empty main for a full sheaf of the barn, in one event
 * (kernel: barn_replace_empty_sheaf, counting barn_get).  When the barn has
 * none, the event is @fn's barn_get_fail and main stays.  Returns whether
 * main is full now.  @record: the alloc_main_empty decision is this one.
 */
static bool main_from_barn(struct sim *sim, struct kmem_cache *s, const char *fn, bool record)
{
    struct slub_percpu_sheaves *pcs = &s->pcs[sim->cpu];
    int node = cpu_node(sim);
    uint32_t full;

    ev_begin(sim, s, "barn_replace_empty_sheaf", "exchange", node);
    full = barn_replace_empty_sheaf(sim, s, node, pcs->main, pcs_place(sim, SIM_PL_MAIN));
    if (record)
        branch_record(sim, BP_ALLOC_MAIN_EMPTY, full ? AME_BARN_FULL : AME_BARN_EMPTY);
    if (!full) {
        ev_rename(sim, fn, "barn_get_fail");
        stat_add(sim, s, SIM_BARN_GET_FAIL, 1);
        ev_end(sim);
        return false;
    }
    pcs->main = full;
    stat_add(sim, s, SIM_BARN_GET, 1);
    ev_end(sim);
    return true;
}

/*
 * Whether the operation's gfp lets __pcs_replace_empty_main refill an empty
 * sheaf: since fb1091febd66 (REFILL_NONBLOCKING after) whenever it may spin
 * (gfpflags_allow_spinning: either reclaim bit), before it only when it may
 * block (gfpflags_allow_blocking: __GFP_DIRECT_RECLAIM), so GFP_ATOMIC and
 * GFP_NOWAIT went to the slab slow path.
 */
static bool refill_allowed(const struct sim *sim)
{
    if (sim->cfg.variant[SIM_VAR_REFILL_NONBLOCKING] == SIM_AFTER)
        return (sim->gfp & SIM_GFP_RECLAIM) != 0;
    return (sim->gfp & SIM_GFP_DIRECT_RECLAIM) != 0;
}

/*
 * The rest of 6.18's __pcs_replace_empty_main, once the barn had no full
 * sheaf and the gfp allowed a refill (refill_allowed(): in 6.18 only a
 * caller that may block; the others fall back to the cpu slab): the spare
 * or an empty barn sheaf is refilled, else a new sheaf (alloc_full_sheaf),
 * all or nothing; the full sheaf becomes main and the empty main goes to
 * the barn.
 */
static bool replace_empty_main_6_18(struct sim *sim, struct kmem_cache *s)
{
    struct slub_percpu_sheaves *pcs = &s->pcs[sim->cpu];
    int node = cpu_node(sim);
    uint32_t sheaf;

    ev_begin(sim, s, "__pcs_replace_empty_main", "take_spare", node);
    if (pcs->spare) {
        sheaf = pcs->spare;
        pcs->spare = 0;
        sheaf_set_place(sim, sheaf, place_none(SIM_PL_INFLIGHT));
    } else if ((sheaf = barn_get_empty_sheaf(sim, s, node)) != 0) {
        ev_rename(sim, "barn_get_empty_sheaf", "take");
    } else {
        ev_rename(sim, "alloc_full_sheaf", "new");
        sheaf = alloc_empty_sheaf(sim, s, s->sheaf_capacity);
    }
    ev_end(sim);
    if (!refill_sheaf(sim, s, sheaf)) {
        /* "we must be very low on memory so don't bother with the barn" */
        sheaf_flush_and_free(sim, s, sheaf, "__pcs_replace_empty_main", NULL, "refill_failed",
                             node);
        return false;
    }
    ev_begin(sim, s, "__pcs_replace_empty_main", "install", node);
    barn_put_empty_sheaf(sim, s, node, pcs->main);
    pcs_set(sim, s, SIM_PL_MAIN, sheaf);
    ev_end(sim);
    return true;
}

/*
 * Main is empty: make a non-empty sheaf main (kernel:
 * __pcs_replace_empty_main).  Returns false when only the slow path can
 * help (no sheaves, the gfp may not refill, refill failed).
 */
static bool replace_empty_main(struct sim *sim, struct kmem_cache *s)
{
    struct slub_percpu_sheaves *pcs = &s->pcs[sim->cpu];
    int node = cpu_node(sim);
    uint32_t empty;

    if (!cache_has_sheaves(s))
        return false;
    if (pcs->spare && sheaf_at(sim, pcs->spare)->size > 0) {
        branch_record(sim, BP_ALLOC_MAIN_EMPTY, AME_SWAP_SPARE);
        ev_begin(sim, s, "__pcs_replace_empty_main", "swap_spare", node);
        pcs_swap(sim, s);
        ev_end(sim);
        return true;
    }
    if (main_from_barn(sim, s, "__pcs_replace_empty_main", true))
        return true;
    branch_record(sim, BP_MAIN_REFILL, refill_allowed(sim) ? MR_REFILL : MR_NO_REFILL);
    if (!refill_allowed(sim)) {
        ev_begin(sim, s, "__pcs_replace_empty_main",
                 sim->cfg.variant[SIM_VAR_REFILL_NONBLOCKING] == SIM_AFTER ? "no_refill_nospin"
                                                                           : "no_refill_noblock",
                 node);
        ev_end(sim);
        return false;
    }
    if (sim_hybrid(sim))
        return replace_empty_main_6_18(sim, s);

    if (pcs->spare) {
        ev_begin(sim, s, "__pcs_replace_empty_main", "take_spare", node);
        empty = pcs->spare;
        pcs->spare = 0;
        sheaf_set_place(sim, empty, place_none(SIM_PL_INFLIGHT));
    } else {
        ev_begin(sim, s, "barn_get_empty_sheaf", "take", node);
        empty = barn_get_empty_sheaf(sim, s, node);
        if (!empty) {
            ev_rename(sim, "alloc_empty_sheaf", "new");
            empty = alloc_empty_sheaf(sim, s, s->sheaf_capacity);
        }
    }
    ev_end(sim);

    if (!refill_sheaf(sim, s, empty)) {
        sheaf_flush_and_free(sim, s, empty, "__pcs_replace_empty_main", NULL, "refill_failed",
                             node);
        return false;
    }
    ev_begin(sim, s, "__pcs_replace_empty_main", "install", node);
    if (!pcs->spare)
        pcs_set(sim, s, SIM_PL_SPARE, pcs->main);
    else
        barn_put_empty_sheaf(sim, s, node, pcs->main);
    pcs_set(sim, s, SIM_PL_MAIN, empty);
    ev_end(sim);
    return true;
}

/*
 * Allocation fast path (kernel: alloc_from_pcs).  Returns the object, now
 * the user's, or SIM_NULL to send the caller to the slow path.
 */
sim_addr_t alloc_from_pcs(struct sim *sim, struct kmem_cache *s, int node)
{
    struct slub_percpu_sheaves *pcs = &s->pcs[sim->cpu];
    struct slab_sheaf *main;
    sim_addr_t obj;

    if (node != SIM_NUMA_NO_NODE && node != cpu_node(sim)) {
        if (sim_hybrid(sim))
            return SIM_NULL; /* 6.18 counts nothing here: the cpu slab decides */
        ev_begin(sim, s, "alloc_from_pcs", "node_mismatch", node);
        stat_add(sim, s, SIM_ALLOC_NODE_MISMATCH, 1);
        ev_end(sim);
        return SIM_NULL;
    }
    if (sheaf_at(sim, pcs->main)->size == 0 && !replace_empty_main(sim, s))
        return SIM_NULL;
    main = sheaf_at(sim, pcs->main);
    obj = main->objects[main->size - 1];
    if (node != SIM_NUMA_NO_NODE && slab_of(sim, obj)->node != node) {
        ev_begin(sim, s, "alloc_from_pcs", "node_mismatch", node);
        if (!sim_hybrid(sim))
            stat_add(sim, s, SIM_ALLOC_NODE_MISMATCH, 1);
        ev_end(sim);
        return SIM_NULL;
    }
    ev_begin(sim, s, "alloc_from_pcs", "fastpath", cpu_node(sim));
    main->size--;
    obj_leave(sim, obj, place_in_sheaf(main, main->size), place_none(SIM_PL_USER));
    stat_add(sim, s, pcs_alloc_item(sim), 1);
    ev_end(sim);
    return obj;
}

/* Make an empty sheaf main; the old main becomes spare or goes to the barn
 * (kernel: __pcs_install_empty_sheaf).  Inside an open event. */
static void install_empty(struct sim *sim, struct kmem_cache *s, uint32_t empty)
{
    struct slub_percpu_sheaves *pcs = &s->pcs[sim->cpu];

    if (!pcs->spare) {
        pcs_set(sim, s, SIM_PL_SPARE, pcs->main);
    } else {
        /* main and spare both full: the old main is parked, limit or not */
        barn_put_full_sheaf(sim, s, cpu_node(sim), pcs->main);
        stat_add(sim, s, SIM_BARN_PUT, 1);
    }
    pcs_set(sim, s, SIM_PL_MAIN, empty);
}

/*
 * Main is full: make room (kernel: __pcs_replace_full_main).  Returns false
 * when the object must go to its slab instead.
 */
static bool replace_full_main(struct sim *sim, struct kmem_cache *s)
{
    struct slub_percpu_sheaves *pcs = &s->pcs[sim->cpu];
    int node = cpu_node(sim);
    uint32_t e;
    int err;

    if (!cache_has_sheaves(s))
        return false;
    if (!pcs->spare) {
        ev_begin(sim, s, "__pcs_replace_full_main", "spare_from_barn_empty", node);
        e = barn_get_empty_sheaf(sim, s, node);
        branch_record(sim, BP_FREE_MAIN_FULL, e ? FMF_SPARE_FROM_BARN_EMPTY : FMF_NEW_SHEAF);
        if (!e)
            goto allocate_empty;
        pcs_set(sim, s, SIM_PL_SPARE, pcs->main);
        pcs_set(sim, s, SIM_PL_MAIN, e);
        ev_end(sim);
        return true;
    }
    if (sheaf_at(sim, pcs->spare)->size < s->sheaf_capacity) {
        branch_record(sim, BP_FREE_MAIN_FULL, FMF_SWAP_SPARE);
        ev_begin(sim, s, "__pcs_replace_full_main", "swap_spare", node);
        pcs_swap(sim, s);
        ev_end(sim);
        return true;
    }
    ev_begin(sim, s, "barn_replace_full_sheaf", "exchange", node);
    err = barn_replace_full_sheaf(sim, s, node, pcs->main, pcs_place(sim, SIM_PL_MAIN), &e);
    branch_record(sim, BP_FREE_MAIN_FULL,
                  !err            ? FMF_BARN_PUT
                  : err == -E2BIG ? FMF_BARN_PUT_FAIL
                                  : FMF_NEW_SHEAF);
    if (!err) {
        pcs->main = e;
        stat_add(sim, s, SIM_BARN_PUT, 1);
        ev_end(sim);
        return true;
    }
    if (err == -E2BIG) {
        uint32_t f = pcs->spare;

        /* the barn is at MAX_FULL_SHEAVES: the spare goes to slabs */
        ev_rename(sim, "__pcs_replace_full_main", "barn_put_fail");
        stat_add(sim, s, SIM_BARN_PUT_FAIL, 1);
        pcs->spare = 0;
        sheaf_set_place(sim, f, place_none(SIM_PL_INFLIGHT));
        ev_end(sim);
        sheaf_flush_unused(sim, s, f);
        ev_begin(sim, s, "__pcs_install_empty_sheaf", "flushed_spare", node);
        install_empty(sim, s, f);
        ev_end(sim);
        return true;
    }
allocate_empty: /* the barn has no empty sheaf; the event is open */
    /* a failed sheaf allocation (flush main in batches) needs a host-side
     * injector the model does not have yet; sheaves always allocate */
    ev_rename(sim, "__pcs_install_empty_sheaf", "new_sheaf");
    e = alloc_empty_sheaf(sim, s, s->sheaf_capacity);
    install_empty(sim, s, e);
    ev_end(sim);
    return true;
}

/* Free fast path (kernel: free_to_pcs).  Returns false when the object
 * must take the slab path. */
bool free_to_pcs(struct sim *sim, struct kmem_cache *s, sim_addr_t obj)
{
    struct slab_sheaf *main = sheaf_at(sim, s->pcs[sim->cpu].main);

    if (cache_has_sheaves(s))
        branch_record(sim, BP_FREE_PATH,
                      main->size == s->sheaf_capacity ? FP_MAIN_FULL : FP_FASTPATH);
    if (main->size == s->sheaf_capacity && !replace_full_main(sim, s))
        return false;
    main = sheaf_at(sim, s->pcs[sim->cpu].main);
    ev_begin(sim, s, "free_to_pcs", "fastpath", cpu_node(sim));
    main->objects[main->size] = obj;
    obj_leave(sim, obj, place_none(SIM_PL_USER), place_in_sheaf(main, main->size));
    main->size++;
    stat_add(sim, s, pcs_free_item(sim), 1);
    ev_end(sim);
    return true;
}

/*
 * Take up to @n objects from the CPU's sheaves without refilling (kernel:
 * alloc_from_pcs_bulk).  Returns the number written to @out.
 */
unsigned alloc_from_pcs_bulk(struct sim *sim, struct kmem_cache *s, unsigned n, sim_addr_t *out)
{
    struct slub_percpu_sheaves *pcs = &s->pcs[sim->cpu];
    int node = cpu_node(sim);
    unsigned got = 0;

    while (got < n) {
        struct slab_sheaf *main = sheaf_at(sim, pcs->main);
        unsigned k;

        if (main->size == 0) {
            if (!cache_has_sheaves(s))
                break;
            if (pcs->spare && sheaf_at(sim, pcs->spare)->size > 0) {
                ev_begin(sim, s, "alloc_from_pcs_bulk", "swap_spare", node);
                pcs_swap(sim, s);
                ev_end(sim);
            } else if (!main_from_barn(sim, s, "alloc_from_pcs_bulk", false)) {
                break;
            }
            main = sheaf_at(sim, pcs->main);
        }
        k = n - got < main->size ? n - got : main->size;
        ev_begin(sim, s, "alloc_from_pcs_bulk", "take", node);
        main->size -= k;
        for (unsigned i = 0; i < k; i++) {
            out[got + i] = main->objects[main->size + i];
            obj_leave(sim, out[got + i], place_in_sheaf(main, main->size + i),
                      place_none(SIM_PL_USER));
        }
        stat_add(sim, s, pcs_alloc_item(sim), k);
        ev_end(sim);
        got += k;
    }
    return got;
}

/*
 * Flush @cpu's sheaves of @s to slabs (kernel: pcs_flush_all, run on that
 * CPU): the spare is flushed and freed, main is flushed in batches and
 * stays.  Counters go to @cpu.
 */
void pcs_flush_cpu(struct sim *sim, struct kmem_cache *s, unsigned cpu)
{
    struct slub_percpu_sheaves *pcs = &s->pcs[cpu];
    int saved = sim->cpu;
    uint32_t spare;

    if (!cache_has_sheaves(s))
        return;
    if (!pcs->spare && !pcs->rcu_free && !sheaf_at(sim, pcs->main)->size)
        return;
    sim->cpu = (int)cpu;
    spare = pcs->spare;
    if (spare) {
        pcs->spare = 0;
        sheaf_flush_and_free(sim, s, spare, "pcs_flush_all", "detach_spare", "free_spare",
                             cpu_node(sim));
    }
    if (pcs->rcu_free) {
        uint32_t r = pcs->rcu_free;

        ev_begin(sim, s, "pcs_flush_all", "call_rcu_nobarn", cpu_node(sim));
        pcs->rcu_free = 0;
        sheaf_at(sim, r)->rcu_node = cpu_node(sim);
        sheaf_set_place(sim, r, place_node(SIM_PL_RCU_PENDING, cpu_node(sim)));
        rcu_queue(sim, RCU_CB_SHEAF_NOBARN, r, SIM_NULL);
        ev_end(sim);
    }
    sheaf_flush_main(sim, s, pcs->main);
    sim->cpu = saved;
}

/* Free @n in-flight objects to their slabs as user frees (free_slowpath). */
static void bulk_to_slabs(struct sim *sim, struct kmem_cache *s, sim_addr_t *p, unsigned n)
{
    if (n)
        bulk_free_to_slabs(sim, s, p, n, true);
}

/* Put @n objects the user holds in flight, in one event named @label. */
static void user_to_inflight(struct sim *sim, struct kmem_cache *s, const sim_addr_t *p, unsigned n,
                             const char *label)
{
    if (!n)
        return;
    ev_begin(sim, s, "kmem_cache_free_bulk", label, cpu_node(sim));
    for (unsigned i = 0; i < n; i++)
        inflight_add(sim, p[i], place_none(SIM_PL_USER));
    ev_end(sim);
}

/*
 * kmem_cache_free_bulk: @n objects of @s, all checked by the caller (kernel:
 * free_to_pcs_bulk).  Local objects fill the CPU's sheaves, exchanging a
 * full main for an empty barn sheaf when it can; bulk free never allocates
 * a sheaf or flushes the spare, so what does not fit goes to slabs, as do
 * objects of other nodes.  Taking those out of the array reorders the local
 * ones, as the kernel does: before BULK_FREE_PARTITION the last unscanned
 * object fills each hole (p[i] = p[--size]) and the remote ones go to their
 * slabs 32 at a time as they are found; after, each remote object swaps
 * with the first local one (the array partitioned in place) and they all go
 * to their slabs after the local ones.
 */
void kmem_cache_free_bulk(struct sim *sim, struct kmem_cache *s, unsigned n, const sim_addr_t *p)
{
    struct slub_percpu_sheaves *pcs = &s->pcs[sim->cpu];
    int node = cpu_node(sim);
    sim_addr_t *local = sim_scratch_alloc(sim, n * sizeof(*local));
    sim_addr_t *remote = sim_scratch_alloc(sim, n * sizeof(*remote));
    unsigned m = 0, nr_remote = 0, done = 0;

    if (!cache_has_sheaves(s)) {
        for (unsigned i = 0; i < n; i++)
            local[i] = p[i];
        user_to_inflight(sim, s, local, n, "no_sheaves");
        bulk_to_slabs(sim, s, local, n);
        sim_scratch_free(sim, remote);
        sim_scratch_free(sim, local);
        return;
    }
    for (unsigned i = 0; i < n; i++)
        local[i] = p[i];
    if (sim->cfg.variant[SIM_VAR_BULK_FREE_PARTITION] == SIM_AFTER) {
        unsigned r = 0;

        for (unsigned i = 0; i < n; i++) {
            sim_addr_t x = local[i];

            if (slab_of(sim, x)->node == node)
                continue;
            local[i] = local[r]; /* swap(p[remote_nr], p[i]) */
            local[r++] = x;
        }
        for (unsigned i = 0; i < r; i++)
            remote[i] = local[i];
        nr_remote = r;
        m = n - r;
        memmove(local, local + r, m * sizeof(*local));
    } else {
        unsigned size = n, i = 0;

        while (i < size) {
            if (slab_of(sim, local[i])->node == node) {
                i++;
                continue;
            }
            remote[nr_remote++] = local[i];
            local[i] = local[--size];
            if (nr_remote == PCS_BATCH_MAX) {
                user_to_inflight(sim, s, remote, nr_remote, "remote");
                bulk_to_slabs(sim, s, remote, nr_remote);
                nr_remote = 0;
            }
        }
        m = size;
    }
    while (done < m) {
        struct slab_sheaf *main = sheaf_at(sim, pcs->main);
        uint32_t e;
        unsigned k;

        if (main->size == s->sheaf_capacity) {
            ev_begin(sim, s, "free_to_pcs_bulk", "swap_spare", node);
            if (!pcs->spare) {
                /* asked first: the old main becomes spare before the
                 * empty sheaf leaves the barn */
                if (!get_barn(s, node)->empty.nr) {
                    ev_label(sim, "no_empty");
                    ev_end(sim);
                    break;
                }
                ev_label(sim, "spare_from_barn_empty");
                pcs_set(sim, s, SIM_PL_SPARE, pcs->main);
                pcs_set(sim, s, SIM_PL_MAIN, barn_get_empty_sheaf(sim, s, node));
            } else if (sheaf_at(sim, pcs->spare)->size < s->sheaf_capacity) {
                pcs_swap(sim, s);
            } else if (barn_replace_full_sheaf(sim, s, node, pcs->main, pcs_place(sim, SIM_PL_MAIN),
                                               &e)) {
                ev_label(sim, "barn_put_fail");
                stat_add(sim, s, SIM_BARN_PUT_FAIL, 1);
                ev_end(sim);
                break;
            } else {
                ev_label(sim, "barn_put");
                pcs->main = e;
                stat_add(sim, s, SIM_BARN_PUT, 1);
            }
            ev_end(sim);
            main = sheaf_at(sim, pcs->main);
        }
        k = s->sheaf_capacity - main->size;
        if (k > m - done)
            k = m - done;
        ev_begin(sim, s, "free_to_pcs_bulk", "fastpath", node);
        for (unsigned i = 0; i < k; i++) {
            main->objects[main->size] = local[done + i];
            obj_leave(sim, local[done + i], place_none(SIM_PL_USER),
                      place_in_sheaf(main, main->size));
            main->size++;
        }
        stat_add(sim, s, pcs_free_item(sim), k);
        ev_end(sim);
        done += k;
    }
    user_to_inflight(sim, s, local + done, m - done, "to_slabs");
    bulk_to_slabs(sim, s, local + done, m - done);
    user_to_inflight(sim, s, remote, nr_remote, "remote");
    bulk_to_slabs(sim, s, remote, nr_remote);
    sim_scratch_free(sim, remote);
    sim_scratch_free(sim, local);
}
