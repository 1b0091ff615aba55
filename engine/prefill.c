/*
 * prefill.c: sheaves handed to callers for guaranteed allocations (kernel:
 * kmem_cache_prefill_sheaf, kmem_cache_alloc_from_sheaf,
 * kmem_cache_refill_sheaf, kmem_cache_return_sheaf, __prefill_sheaf_pfmemalloc,
 * refill_sheaf_from_barn).
 *
 * A caller (the maple tree is the main one) asks for a sheaf holding at least N
 * objects before a section that must not fail, allocates from it there, and
 * gives it back.  The sheaf comes from the CPU's spare, from the barn, or new;
 * requests above the cache's sheaf capacity get an oversize sheaf filled
 * straight from slabs.  With BARN_REFILL after (1b87ea06a34b), refilling a
 * prefilled sheaf takes objects from the barn first, its partial sheaf, then
 * full sheaves, and the barn keeps one partial sheaf for the leftovers.  A
 * prefilled sheaf is a place of its own (SIM_PL_PREFILL); callers name it by
 * its sheaf id.
 */
#include "internal.h"

#include <stdio.h>

/* Pool index of the live sheaf with public id @id, or 0. */
uint32_t sheaf_by_id(const struct sim *sim, uint32_t id)
{
    for (uint32_t i = BOOTSTRAP_SHEAF + 1; id && i < sim->sheaves.used; i++)
        if (sheaf_at(sim, i)->id == id)
            return i;
    return 0;
}

/* Move the top @k objects of sheaf @from onto the top of sheaf @to. */
static void move_objects(struct sim *sim, uint32_t from, uint32_t to, unsigned k)
{
    struct slab_sheaf *src = sheaf_at(sim, from), *dst = sheaf_at(sim, to);

    for (unsigned i = 0; i < k; i++) {
        unsigned slot = src->size - k + i;

        dst->objects[dst->size] = src->objects[slot];
        ev_move(sim, SIM_MOVE_OBJECT, src->objects[slot], place_in_sheaf(src, slot),
                place_in_sheaf(dst, dst->size));
        dst->size++;
    }
    src->size -= k;
}

/*
 * Fill sheaf @idx from the barn: its partial sheaf first, then full
 * sheaves (kernel: refill_sheaf_from_barn, BARN_REFILL after).  Objects
 * moved stay even when the barn runs dry first.  Returns true, counting
 * barn_get once, when the sheaf ended up full.
 */
static bool refill_sheaf_from_barn(struct sim *sim, struct kmem_cache *s, uint32_t idx)
{
    int node = cpu_node(sim);
    struct node_barn *b = &s->barn[node];
    struct slab_sheaf *sh = sheaf_at(sim, idx);
    bool full;

    if (!b->full.nr && !b->partial)
        return false;
    ev_begin(sim, s, "refill_sheaf_from_barn", "move", node);
    while (sh->size < sh->capacity) {
        uint32_t src = b->partial;
        unsigned k;

        b->partial = 0;
        if (!src) {
            if (!b->full.nr)
                break;
            src = barn_pop(sim, s, node, true);
        }
        k = sh->capacity - sh->size;
        if (k > sheaf_at(sim, src)->size)
            k = sheaf_at(sim, src)->size;
        move_objects(sim, src, idx, k);
        if (sheaf_at(sim, src)->size) {
            b->partial = src;
            sheaf_set_place(sim, src, place_node(SIM_PL_BARN_PARTIAL, node));
        } else {
            barn_push(sim, s, node, src, false); /* no limit check */
        }
    }
    full = sh->size == sh->capacity;
    if (full)
        stat_add(sim, s, SIM_BARN_GET, 1);
    else
        ev_label(sim, "barn_dry");
    ev_end(sim);
    return full;
}

/* (kernel: __prefill_sheaf_pfmemalloc; reserves are not modelled) */
static bool prefill_refill(struct sim *sim, struct kmem_cache *s, uint32_t idx)
{
    if (sim->cfg.variant[SIM_VAR_BARN_REFILL] == SIM_AFTER &&
            refill_sheaf_from_barn(sim, s, idx))
        return true;
    return refill_sheaf(sim, s, idx);
}

/*
 * Fill an oversize sheaf to its capacity straight from slabs (kernel:
 * __kmem_cache_alloc_bulk into the sheaf): a whole freelist at a time
 * (refill_objects, alloc_slowpath counted once it all worked), or for a
 * debug cache one object at a time through ___slab_alloc with its debug
 * checks (alloc_slowpath each).  All or nothing: on a shortfall what was
 * taken goes back to its slabs and the sheaf is as it was.
 */
static bool fill_oversize(struct sim *sim, struct kmem_cache *s, uint32_t idx)
{
    struct slab_sheaf *sh = sheaf_at(sim, idx);
    unsigned first = sh->size, want = sh->capacity - sh->size, got = 0;
    struct obj_sink sink = {.sheaf = idx};
    sim_addr_t *back;

    if (cache_has_cpu_slab(s)) {
        /* 6.18: __kmem_cache_alloc_bulk on the cpu slab, all or nothing */
        return cpu_slab_bulk_into_sheaf(sim, s, idx, want) == want;
    } else if (kmem_cache_debug(s)) {
        while (got < want && slab_alloc_slow(sim, s, SIM_NUMA_NO_NODE, 0, &sink))
            got++;
    } else {
        got = refill_objects(sim, s, &sink, want, want);
        ev_begin(sim, s, "__kmem_cache_alloc_bulk", got == want ? "slowpath" : "short",
                 cpu_node(sim));
        if (got == want)
            stat_add(sim, s, SIM_ALLOC_SLOWPATH, got);
        ev_end(sim);
    }
    if (got == want)
        return true;
    sh = sheaf_at(sim, idx);
    back = sim_scratch_alloc(sim, (got ? got : 1) * sizeof(*back));
    ev_begin(sim, s, "__kmem_cache_alloc_bulk", "give_back", cpu_node(sim));
    for (unsigned i = 0; i < got; i++) {
        back[i] = sh->objects[first + i];
        inflight_add(sim, back[i], place_in_sheaf(sh, first + i));
    }
    sh->size = first;
    ev_end(sim);
    bulk_free_to_slabs(sim, s, back, got, false);
    sim_scratch_free(sim, back);
    return false;
}

/* Flush and free a sheaf the caller no longer holds. */
static void drop_sheaf(struct sim *sim, struct kmem_cache *s, uint32_t idx, const char *fn)
{
    sheaf_flush_and_free(sim, s, idx, fn, NULL, "free_sheaf", cpu_node(sim));
}

/* Hand sheaf @idx to the caller. */
static uint32_t give(struct sim *sim, struct kmem_cache *s, uint32_t idx)
{
    ev_begin(sim, s, "kmem_cache_prefill_sheaf", "prefilled", cpu_node(sim));
    sheaf_set_place(sim, idx, place_none(SIM_PL_PREFILL));
    ev_end(sim);
    return idx;
}

/*
 * kmem_cache_prefill_sheaf: a sheaf with at least @count objects, in the
 * caller's hands.  Returns its pool index, or 0 (SIM_FAILED) when memory
 * ran out.
 */
uint32_t kmem_cache_prefill_sheaf(struct sim *sim, struct kmem_cache *s, unsigned count)
{
    struct slub_percpu_sheaves *pcs = &s->pcs[sim->cpu];
    int node = cpu_node(sim);
    uint32_t idx = 0;

    if (count > s->sheaf_capacity) {
        ev_begin(sim, s, "kmem_cache_prefill_sheaf", "oversize", node);
        idx = alloc_empty_sheaf(sim, s, count);
        stat_add(sim, s, SIM_SHEAF_PREFILL_OVERSIZE, 1);
        ev_end(sim);
        if (!fill_oversize(sim, s, idx))
            goto fail;
        return give(sim, s, idx);
    }
    ev_begin(sim, s, "kmem_cache_prefill_sheaf", "fast", node);
    if (pcs->spare) {
        idx = pcs->spare;
        pcs->spare = 0;
        sheaf_set_place(sim, idx, place_none(SIM_PL_INFLIGHT));
        stat_add(sim, s, SIM_SHEAF_PREFILL_FAST, 1);
    } else {
        /* barn_get_full_or_empty_sheaf: never the partial sheaf */
        ev_label(sim, "slow");
        stat_add(sim, s, SIM_SHEAF_PREFILL_SLOW, 1);
        idx = barn_pop(sim, s, node, true);
        if (!idx)
            idx = barn_pop(sim, s, node, false);
        stat_add(sim, s, idx && sheaf_at(sim, idx)->size ? SIM_BARN_GET : SIM_BARN_GET_FAIL, 1);
        if (!idx)
            idx = alloc_empty_sheaf(sim, s, s->sheaf_capacity);
    }
    ev_end(sim);
    if (sheaf_at(sim, idx)->size < count && !prefill_refill(sim, s, idx))
        goto fail;
    return give(sim, s, idx);
fail:
    drop_sheaf(sim, s, idx, "kmem_cache_prefill_sheaf");
    sim_result_msg(sim, SIM_FAILED, "kmem_cache_prefill_sheaf %s: no memory for %u objects",
            s->name, count);
    return 0;
}

/* kmem_cache_alloc_from_sheaf: pop an object; no counter.  SIM_NULL
 * (SIM_FAILED) when the sheaf is empty. */
sim_addr_t kmem_cache_alloc_from_sheaf(struct sim *sim, struct kmem_cache *s, uint32_t idx)
{
    struct slab_sheaf *sh = sheaf_at(sim, idx);
    sim_addr_t obj;

    if (!sh->size) {
        sim_result_msg(sim, SIM_FAILED, "kmem_cache_alloc_from_sheaf %s: sheaf %u is empty",
                s->name, sh->id);
        return SIM_NULL;
    }
    ev_begin(sim, s, "kmem_cache_alloc_from_sheaf", "pop", cpu_node(sim));
    sh->size--;
    obj = sh->objects[sh->size];
    obj_leave(sim, obj, place_in_sheaf(sh, sh->size), place_none(SIM_PL_USER));
    ev_end(sim);
    return obj;
}

/*
 * kmem_cache_return_sheaf: the caller gives sheaf @idx back.  It becomes
 * the CPU's spare if that is free; else it is refilled from slabs and
 * parked in the barn, or flushed and freed.
 */
void kmem_cache_return_sheaf(struct sim *sim, struct kmem_cache *s, uint32_t idx)
{
    struct slub_percpu_sheaves *pcs = &s->pcs[sim->cpu];
    int node = cpu_node(sim);

    if (sheaf_at(sim, idx)->capacity != s->sheaf_capacity) {
        ev_begin(sim, s, "kmem_cache_return_sheaf", "oversize", node);
        sheaf_set_place(sim, idx, place_none(SIM_PL_INFLIGHT));
        ev_end(sim);
        drop_sheaf(sim, s, idx, "kmem_cache_return_sheaf");
        return;
    }
    ev_begin(sim, s, "kmem_cache_return_sheaf", "fast", node);
    if (!pcs->spare) {
        pcs_set(sim, s, SIM_PL_SPARE, idx);
        stat_add(sim, s, SIM_SHEAF_RETURN_FAST, 1);
        ev_end(sim);
        return;
    }
    ev_label(sim, "slow");
    stat_add(sim, s, SIM_SHEAF_RETURN_SLOW, 1);
    sheaf_set_place(sim, idx, place_none(SIM_PL_INFLIGHT));
    ev_end(sim);
    if (s->barn[node].full.nr >= MAX_FULL_SHEAVES || !refill_sheaf(sim, s, idx)) {
        drop_sheaf(sim, s, idx, "kmem_cache_return_sheaf");
        return;
    }
    ev_begin(sim, s, "kmem_cache_return_sheaf", "barn_put", node);
    barn_push(sim, s, node, idx, true);
    stat_add(sim, s, SIM_BARN_PUT, 1);
    ev_end(sim);
}

/*
 * kmem_cache_refill_sheaf: make sheaf @idx hold at least @count objects.
 * Returns the sheaf the caller holds afterwards: @idx, or a new one when
 * @idx could not hold @count (the old one is returned); 0 (SIM_FAILED)
 * when memory ran out, the caller keeping @idx.
 */
uint32_t kmem_cache_refill_sheaf(struct sim *sim, struct kmem_cache *s, uint32_t idx,
        unsigned count)
{
    struct slab_sheaf *sh = sheaf_at(sim, idx);
    uint32_t fresh;
    bool ok;

    if (sh->size >= count)
        return idx;
    if (sh->capacity >= count) {
        ok = sh->capacity == s->sheaf_capacity ? prefill_refill(sim, s, idx)
                                               : fill_oversize(sim, s, idx);
        if (!ok)
            sim_result_msg(sim, SIM_FAILED, "kmem_cache_refill_sheaf %s: no memory", s->name);
        return ok ? idx : 0;
    }
    fresh = kmem_cache_prefill_sheaf(sim, s, count);
    if (!fresh)
        return 0;
    kmem_cache_return_sheaf(sim, s, idx);
    return fresh;
}
