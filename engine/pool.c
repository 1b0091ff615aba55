/*
 * pool.c: index-addressed pools of slabs and sheaves.
 *
 * Lists and per-CPU slots refer to slabs and sheaves by pool index (see
 * list.h).  Entries live in fixed-size chunks so that a pointer obtained from
 * pool_at() stays valid while other entries are created, and a clone copies
 * chunk by chunk.  Released indices are reused last-in first-out, which keeps
 * the engine deterministic.
 */
#include "internal.h"

#include <string.h>

/* Initialise an empty pool of @elem-byte entries.  Cannot fail. */
void pool_init(struct pool *p, size_t elem)
{
    memset(p, 0, sizeof(*p));
    p->elem = elem;
    p->used = 1; /* index 0 means "none" */
}

/* Hand out a zeroed entry; returns its index.  Host allocation failure
 * unwinds to sim_apply(). */
uint32_t pool_get(struct sim *sim, struct pool *p)
{
    uint32_t idx;

    if (p->nr_free) {
        idx = p->free_ids[--p->nr_free];
    } else {
        idx = p->used;
        if (idx / POOL_CHUNK >= p->nr_chunks) {
            p->chunk = sim_realloc(sim, p->chunk, (p->nr_chunks + 1) * sizeof(*p->chunk));
            p->chunk[p->nr_chunks] = sim_zalloc(sim, POOL_CHUNK * p->elem);
            p->nr_chunks++;
        }
        p->used++;
    }
    memset(pool_at(p, idx), 0, p->elem);
    return idx;
}

/* Give entry @idx back.  The caller has already marked it unused. */
void pool_put(struct sim *sim, struct pool *p, uint32_t idx)
{
    if (p->nr_free == p->cap_free) {
        uint32_t cap = p->cap_free ? p->cap_free * 2 : 64;

        p->free_ids = sim_realloc(sim, p->free_ids, cap * sizeof(*p->free_ids));
        p->cap_free = cap;
    }
    p->free_ids[p->nr_free++] = idx;
}

/* Copy @src into @dst (which is uninitialised).  0 or -ENOMEM; on failure
 * @dst owns whatever was copied and pool_release() frees it. */
int pool_clone(struct pool *dst, const struct pool *src)
{
    *dst = *src;
    dst->chunk = NULL;
    dst->free_ids = NULL;
    dst->nr_chunks = 0;
    dst->cap_free = 0;
    if (src->nr_chunks) {
        dst->chunk = calloc(src->nr_chunks, sizeof(*dst->chunk));
        if (!dst->chunk)
            return -ENOMEM;
        for (uint32_t c = 0; c < src->nr_chunks; c++) {
            dst->chunk[c] = malloc(POOL_CHUNK * src->elem);
            if (!dst->chunk[c])
                return -ENOMEM;
            dst->nr_chunks = c + 1;
            memcpy(dst->chunk[c], src->chunk[c], POOL_CHUNK * src->elem);
        }
    }
    if (src->cap_free) {
        dst->free_ids = malloc(src->cap_free * sizeof(*dst->free_ids));
        if (!dst->free_ids)
            return -ENOMEM;
        dst->cap_free = src->cap_free;
        memcpy(dst->free_ids, src->free_ids, src->nr_free * sizeof(*dst->free_ids));
    }
    return 0;
}

/* Free the pool's memory (not what entries own).  Cannot fail. */
void pool_release(struct pool *p)
{
    for (uint32_t c = 0; c < p->nr_chunks; c++)
        free(p->chunk[c]);
    free(p->chunk);
    free(p->free_ids);
    p->chunk = NULL;
    p->free_ids = NULL;
    p->nr_chunks = 0;
}
