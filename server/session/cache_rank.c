/*
 * cache_rank.c: a run read per cache (see cache_rank.h).  The tally is by
 * cache id, which the engine hands out from 0, so a row is found by
 * indexing; the rows grow as new ids appear.
 */
#include "session/cache_rank.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/grow.h"

static const char *const col_names[CR_NR_COLS] = {
        [CR_ALLOCS] = "allocs",
        [CR_FREES] = "frees",
        [CR_ALLOC_SLOWPATH] = "alloc_slowpath",
        [CR_FREE_SLOWPATH] = "free_slowpath",
        [CR_BARN_GET_FAIL] = "barn_get_fail",
        [CR_BARN_PUT_FAIL] = "barn_put_fail",
        [CR_SLABS_ALLOCATED] = "alloc_slab",
        [CR_SLABS_FREED] = "free_slab",
        [CR_OBJECTS] = "objects",
};

/* The counter each counted column follows, by enum sim_stat_item. */
static const struct {
    enum cache_rank_col col;
    unsigned item;
} col_stats[] = {
        {CR_ALLOC_SLOWPATH, SIM_ALLOC_SLOWPATH}, {CR_FREE_SLOWPATH, SIM_FREE_SLOWPATH},
        {CR_BARN_GET_FAIL, SIM_BARN_GET_FAIL},   {CR_BARN_PUT_FAIL, SIM_BARN_PUT_FAIL},
        {CR_SLABS_ALLOCATED, SIM_ALLOC_SLAB},    {CR_SLABS_FREED, SIM_FREE_SLAB},
};

/* The row of cache @id, made (with those below it) when new; NULL when out of memory. */
static struct cache_rank_row *row_of(struct cache_rank *cr, int id)
{
    struct cache_rank_row *rows;
    size_t i;

    if ((size_t)id < cr->nr)
        return &cr->rows[id];
    rows = grow_array(cr->rows, &cr->cap, (size_t)id + 1, sizeof(*rows), 16);
    if (!rows)
        return NULL;
    cr->rows = rows;
    for (i = cr->nr; i <= (size_t)id; i++) {
        memset(&rows[i], 0, sizeof(rows[i]));
        rows[i].cache = (int)i;
    }
    cr->nr = (size_t)id + 1;
    return &rows[id];
}

void cache_rank_event(const struct sim_event *ev, void *arg)
{
    struct cache_rank *cr = arg;
    struct cache_rank_row *row;
    size_t i, k;

    if (ev->cache < 0)
        return;
    if (!(row = row_of(cr, ev->cache))) {
        cr->failed = true;
        return;
    }
    for (i = 0; i < ev->nr_moves; i++) {
        const struct sim_move *m = &ev->moves[i];

        if (m->kind != SIM_MOVE_OBJECT)
            continue;
        row->v[CR_ALLOCS] += m->to.type == SIM_PL_USER && m->from.type != SIM_PL_USER;
        row->v[CR_FREES] += m->from.type == SIM_PL_USER && m->to.type != SIM_PL_USER;
    }
    for (i = 0; i < ev->nr_stats; i++)
        for (k = 0; k < sizeof(col_stats) / sizeof(col_stats[0]); k++)
            if (ev->stats[i].item == col_stats[k].item && ev->stats[i].delta > 0)
                row->v[col_stats[k].col] += (uint64_t)ev->stats[i].delta;
}

int cache_rank_finish(struct cache_rank *cr, const struct sim_snapshot *snap)
{
    size_t i;

    if (cr->failed)
        return -ENOMEM;
    for (i = 0; i < snap->nr_caches; i++) {
        const struct sim_snap_cache *c = &snap->caches[i];
        struct cache_rank_row *row;

        if (c->id < 0)
            continue;
        if (!(row = row_of(cr, c->id)))
            return -ENOMEM;
        snprintf(row->name, sizeof(row->name), "%s", c->name);
        row->v[CR_OBJECTS] = c->objects;
    }
    return 0;
}

/* Does @x come before @y: more of column @col, then by name. */
static bool before(const struct cache_rank_row *x, const struct cache_rank_row *y,
                   enum cache_rank_col col)
{
    if (x->v[col] != y->v[col])
        return x->v[col] > y->v[col];
    return strcmp(x->name, y->name) < 0;
}

void cache_rank_sort(struct cache_rank *cr, enum cache_rank_col col)
{
    size_t i, j;

    /* an insertion sort: a machine has hundreds of caches, not millions */
    for (i = 1; i < cr->nr; i++) {
        struct cache_rank_row r = cr->rows[i];

        for (j = i; j > 0 && before(&r, &cr->rows[j - 1], col); j--)
            cr->rows[j] = cr->rows[j - 1];
        cr->rows[j] = r;
    }
}

const char *cache_rank_col_name(unsigned col)
{
    return col < CR_NR_COLS ? col_names[col] : NULL;
}

int cache_rank_col_lookup(const char *name)
{
    unsigned i;

    for (i = 0; name && i < CR_NR_COLS; i++)
        if (!strcasecmp(name, col_names[i]))
            return (int)i;
    return -1;
}

int cache_rank_busiest(const struct cache_rank *cr)
{
    int best = -1;

    for (size_t i = 0; i < cr->nr; i++)
        if (best < 0 || cr->rows[i].v[CR_ALLOCS] > cr->rows[best].v[CR_ALLOCS])
            best = (int)i;
    return best;
}

void cache_rank_release(struct cache_rank *cr)
{
    if (!cr)
        return;
    free(cr->rows);
    memset(cr, 0, sizeof(*cr));
}
