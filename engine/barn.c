/*
 * barn.c: the per-node store of whole sheaves (kernel: struct node_barn,
 * barn_get_empty_sheaf, barn_put_empty_sheaf, barn_put_full_sheaf,
 * barn_replace_empty_sheaf, barn_replace_full_sheaf, barn_shrink).
 *
 * A barn keeps full sheaves and empty sheaves on two lists, pushed and popped
 * at the head.  CPUs of the node exchange their empty main sheaf for a full one
 * on allocation and their full main for an empty one on free (pcs.c).  The
 * limits MAX_FULL_SHEAVES and MAX_EMPTY_SHEAVES (10 each) are enforced only
 * where the kernel enforces them (mm/slub.c's barn_* functions):
 * barn_replace_full_sheaf refuses a barn at MAX_FULL_SHEAVES, but exchanges
 * that keep the number of sheaves constant ignore the limits, and
 * barn_put_full_sheaf parks a sheaf whatever the count, so nr_empty can exceed
 * 10.  Every operation but barn_shrink runs inside its caller's open event,
 * which the caller names after the outcome.
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

/* Unlink the head of the full (or empty) list; its place is left to the
 * caller.  0 when the list is empty. */
static uint32_t barn_unlink(struct sim *sim, struct node_barn *b, bool full)
{
    return ilist_pop_head(full ? &b->full : &b->empty, &sim->sheaves, sheaf_link);
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
    uint32_t idx = barn_unlink(sim, &s->barn[node], full);

    if (idx)
        sheaf_set_place(sim, idx, place_none(SIM_PL_INFLIGHT));
    return idx;
}

/* Take an empty sheaf of @node's barn into flight (kernel:
 * barn_get_empty_sheaf).  Returns it, or 0 when the barn has none. */
uint32_t barn_get_empty_sheaf(struct sim *sim, struct kmem_cache *s, int node)
{
    return barn_pop(sim, s, node, false);
}

/* Park empty sheaf @idx in @node's barn (kernel: barn_put_empty_sheaf).
 * No limit check.  Cannot fail. */
void barn_put_empty_sheaf(struct sim *sim, struct kmem_cache *s, int node, uint32_t idx)
{
    barn_push(sim, s, node, idx, false);
}

/* Park full sheaf @idx in @node's barn, at MAX_FULL_SHEAVES or not (kernel:
 * barn_put_full_sheaf).  Cannot fail. */
void barn_put_full_sheaf(struct sim *sim, struct kmem_cache *s, int node, uint32_t idx)
{
    barn_push(sim, s, node, idx, true);
}

/*
 * Exchange the empty sheaf @empty for a full one of @node's barn (kernel:
 * barn_replace_empty_sheaf): the full sheaf goes to place @to (the caller
 * then stores it there), @empty to the barn's empty list.  Returns the
 * full sheaf, or 0 with nothing changed when the barn has none.
 */
uint32_t barn_replace_empty_sheaf(struct sim *sim, struct kmem_cache *s, int node, uint32_t empty,
                                  struct sim_place to)
{
    uint32_t full = barn_pop(sim, s, node, true);

    if (!full)
        return 0;
    sheaf_set_place(sim, full, to);
    barn_push(sim, s, node, empty, false);
    return full;
}

/*
 * Exchange the full sheaf @full for an empty one of @node's barn (kernel:
 * barn_replace_full_sheaf): the empty sheaf goes to place @to and into
 * *@emptyp, @full to the barn's full list.  Returns 0; -E2BIG when the barn
 * holds MAX_FULL_SHEAVES full sheaves already, -ENOMEM when it has no
 * empty one, in both cases with nothing changed.
 */
int barn_replace_full_sheaf(struct sim *sim, struct kmem_cache *s, int node, uint32_t full,
                            struct sim_place to, uint32_t *emptyp)
{
    struct node_barn *b = &s->barn[node];
    uint32_t empty;

    if (b->full.nr >= MAX_FULL_SHEAVES)
        return -E2BIG;
    empty = barn_pop(sim, s, node, false);
    if (!empty)
        return -ENOMEM;
    sheaf_set_place(sim, empty, to);
    barn_push(sim, s, node, full, true);
    *emptyp = empty;
    return 0;
}

/*
 * Flush and free every sheaf of @node's barn (kernel: barn_shrink): full
 * sheaves (and the partial one) are flushed to slabs, then all are freed.
 * Opens and closes its own events.
 */
void barn_shrink(struct sim *sim, struct kmem_cache *s, int node)
{
    struct node_barn *b = &s->barn[node];
    uint32_t idx;

    if (!b->full.nr && !b->empty.nr && !b->partial)
        return;
    while ((idx = barn_unlink(sim, b, true)) != 0)
        sheaf_flush_and_free(sim, s, idx, "barn_shrink", "detach_full", "free_sheaf", node);
    if ((idx = b->partial) != 0) {
        b->partial = 0;
        sheaf_flush_and_free(sim, s, idx, "barn_shrink", "detach_partial", "free_sheaf", node);
    }
    if (b->empty.nr) {
        ev_begin(sim, s, "barn_shrink", "free_empty", node);
        while ((idx = barn_pop(sim, s, node, false)) != 0)
            free_empty_sheaf(sim, s, idx);
        ev_end(sim);
    }
}
