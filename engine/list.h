/*
 * list.h: ordered lists linked by index, not by host pointer.
 *
 * Slabs and sheaves live in pools (arrays) owned by struct sim, and lists link
 * them by pool index.  Index links make sim_clone() a plain copy of the pools,
 * with no pointer fix-ups, and keep host addresses out of every output.  Index
 * 0 is never used, so 0 means "none", like NULL in list_head.  Each list user
 * supplies an accessor from index to its embedded ilink.
 */
#ifndef SLUBLAB_ENGINE_LIST_H
#define SLUBLAB_ENGINE_LIST_H

#include <stdint.h>

struct ilink {
    uint32_t prev, next; /* pool indices; 0 at the ends */
};

struct ilist {
    uint32_t head, tail; /* 0 when empty */
    unsigned nr;         /* number of members; checked by the validator */
};

/* Returns the link embedded in pool entry @idx of the pool behind @pool. */
typedef struct ilink *(*ilink_fn)(const void *pool, uint32_t idx);

static inline void ilist_init(struct ilist *l)
{
    l->head = l->tail = 0;
    l->nr = 0;
}

static inline void ilist_push_head(struct ilist *l, const void *pool, ilink_fn at, uint32_t idx)
{
    struct ilink *e = at(pool, idx);

    e->prev = 0;
    e->next = l->head;
    if (l->head)
        at(pool, l->head)->prev = idx;
    else
        l->tail = idx;
    l->head = idx;
    l->nr++;
}

static inline void ilist_push_tail(struct ilist *l, const void *pool, ilink_fn at, uint32_t idx)
{
    struct ilink *e = at(pool, idx);

    e->next = 0;
    e->prev = l->tail;
    if (l->tail)
        at(pool, l->tail)->next = idx;
    else
        l->head = idx;
    l->tail = idx;
    l->nr++;
}

static inline void ilist_del(struct ilist *l, const void *pool, ilink_fn at, uint32_t idx)
{
    struct ilink *e = at(pool, idx);

    if (e->prev)
        at(pool, e->prev)->next = e->next;
    else
        l->head = e->next;
    if (e->next)
        at(pool, e->next)->prev = e->prev;
    else
        l->tail = e->prev;
    e->prev = e->next = 0;
    l->nr--;
}

/* Remove and return the head, or 0 when the list is empty. */
static inline uint32_t ilist_pop_head(struct ilist *l, const void *pool, ilink_fn at)
{
    uint32_t idx = l->head;

    if (idx)
        ilist_del(l, pool, at, idx);
    return idx;
}

#endif /* SLUBLAB_ENGINE_LIST_H */
