/*
 * barn.c: the per-node store of whole sheaves (kernel: struct node_barn,
 * barn_replace_empty_sheaf, barn_replace_full_sheaf, barn_get_empty_sheaf,
 * barn_put_empty_sheaf, barn_put_full_sheaf, barn_shrink).
 *
 * A barn keeps full sheaves and empty sheaves on two lists, pushed and
 * popped at the head.  CPUs of the node exchange their empty main sheaf
 * for a full one on allocation and their full main for an empty one on
 * free.  The limits MAX_FULL_SHEAVES and MAX_EMPTY_SHEAVES (10 each) are
 * enforced only where the kernel enforces them (section 2.5 of the spec):
 * exchanges that keep the number of sheaves constant ignore them, so
 * nr_empty can exceed 10.
 */
#include "internal.h"

static struct ilink *sheaf_link(const void *pool, uint32_t idx)
{
    return &((struct slab_sheaf *)pool_at(pool, idx))->link;
}

struct node_barn *get_barn(struct kmem_cache *s, int node)
{
    return cache_has_sheaves(s) ? &s->barn[node] : NULL;
}

/* Put sheaf @idx at the head of the full (or empty) list of @node's barn. */
void barn_push(struct sim *sim, struct kmem_cache *s, int node, uint32_t idx, bool full)
{
    struct node_barn *b = &s->barn[node];

    sheaf_set_place(sim, idx, place_node(full ? SIM_PL_BARN_FULL : SIM_PL_BARN_EMPTY, node));
    ilist_push_head(full ? &b->full : &b->empty, &sim->sheaves, sheaf_link, idx);
}

/* Take the head of the full (or empty) list into flight; 0 when empty. */
uint32_t barn_pop(struct sim *sim, struct kmem_cache *s, int node, bool full)
{
    struct node_barn *b = &s->barn[node];
    uint32_t idx = ilist_pop_head(full ? &b->full : &b->empty, &sim->sheaves, sheaf_link);

    if (idx)
        sheaf_set_place(sim, idx, place_none(SIM_PL_INFLIGHT));
    return idx;
}

/*
 * Flush and free every sheaf of @node's barn (kernel: barn_shrink): full
 * sheaves (and the partial one) are flushed to slabs, then all are freed.
 */
void barn_shrink(struct sim *sim, struct kmem_cache *s, int node)
{
    struct node_barn *b = &s->barn[node];
    uint32_t idx;

    if (!b->full.nr && !b->empty.nr && !b->partial)
        return;
    while ((idx = b->full.head) != 0) {
        ev_begin(sim, s, "barn_shrink", "detach_full", node);
        barn_pop(sim, s, node, true);
        ev_end(sim);
        sheaf_flush_unused(sim, s, idx);
        ev_begin(sim, s, "barn_shrink", "free_sheaf", node);
        free_empty_sheaf(sim, s, idx);
        ev_end(sim);
    }
    if ((idx = b->partial) != 0) {
        ev_begin(sim, s, "barn_shrink", "detach_partial", node);
        b->partial = 0;
        sheaf_set_place(sim, idx, place_none(SIM_PL_INFLIGHT));
        ev_end(sim);
        sheaf_flush_unused(sim, s, idx);
        ev_begin(sim, s, "barn_shrink", "free_sheaf", node);
        free_empty_sheaf(sim, s, idx);
        ev_end(sim);
    }
    if (b->empty.nr) {
        ev_begin(sim, s, "barn_shrink", "free_empty", node);
        while ((idx = barn_pop(sim, s, node, false)) != 0)
            free_empty_sheaf(sim, s, idx);
        ev_end(sim);
    }
}
