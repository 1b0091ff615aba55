/*
 * cache_rank.h: a run, or a range of it, read per cache: which caches
 * churned most, and how often they took the slow paths (docs/api.md,
 * GET /api/sessions/ID/caches; the Caches view; `slublab replay`'s report).
 *
 * It is an event consumer: cache_rank_event() is a sim_event_fn that
 * tallies, per cache, the objects handed to callers and taken back (object
 * moves to and from SIM_PL_USER, so a bulk allocation counts each object)
 * and the deltas of a few counters; cache_rank_finish() adds each cache's
 * name and its `objects` at the end from a snapshot.  Rows are by cache id
 * until cache_rank_sort().
 */
#ifndef SLUBLAB_SERVER_SESSION_CACHE_RANK_H
#define SLUBLAB_SERVER_SESSION_CACHE_RANK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slub.h"

enum cache_rank_col {
    CR_ALLOCS,         /* objects handed to callers (moves to SIM_PL_USER) */
    CR_FREES,          /* objects taken back (moves from SIM_PL_USER), kfree_rcu's included */
    CR_ALLOC_SLOWPATH, /* the counters' deltas over the range ... */
    CR_FREE_SLOWPATH,
    CR_BARN_GET_FAIL,
    CR_BARN_PUT_FAIL,
    CR_SLABS_ALLOCATED, /* alloc_slab */
    CR_SLABS_FREED,     /* free_slab */
    CR_OBJECTS,         /* at the end: /sys/kernel/slab/C/objects (cache_rank_finish()) */
    CR_NR_COLS
};

struct cache_rank_row {
    int cache;               /* engine cache id */
    char name[SIM_NAME_MAX]; /* "" until cache_rank_finish() */
    uint64_t v[CR_NR_COLS];
};

struct cache_rank {
    struct cache_rank_row *rows; /* owned; rows[i].cache == i until sorted */
    size_t nr, cap;
    bool failed; /* out of memory while tallying: the rows are incomplete */
};

#define CACHE_RANK_INIT   \
    {                     \
        NULL, 0, 0, false \
    }

/* Tally event @ev into the struct cache_rank @arg.  Cannot fail (sets ->failed). */
void cache_rank_event(const struct sim_event *ev, void *arg);
/* Name every cache of @snap and give it its objects at the end (caches with no
 * event get a row of zeros).  0 or -ENOMEM. */
int cache_rank_finish(struct cache_rank *cr, const struct sim_snapshot *snap);
/* Order the rows by column @col, largest first (then by name). */
void cache_rank_sort(struct cache_rank *cr, enum cache_rank_col col);
/* The column's name in answers and tables ("allocs", "barn_get_fail", ...). */
const char *cache_rank_col_name(unsigned col);
/* The column named @name (any case), or -1. */
int cache_rank_col_lookup(const char *name);
/* The id of the cache that handed out the most objects (the first created on a
 * tie), or -1 when there is no cache; rows by id (before cache_rank_sort()). */
int cache_rank_busiest(const struct cache_rank *cr);
void cache_rank_release(struct cache_rank *cr);

#endif
