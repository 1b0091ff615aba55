/*
 * ktrace_tables.c: the two tables that make each trace event cost one hash
 * lookup or two (see ktrace_internal.h).
 *
 *  - pointers: the hashed ptr= value (stable within one boot) to the
 *    engine object allocated for it.  Open addressing with linear probing
 *    and backward-shift deletion (no tombstones, so lookups never slow
 *    down after many frees); 0 (NULL) is the empty key.
 *  - caches, by the name the tracepoint prints: an array in creation order
 *    with an index of FNV-1a hashes, grown at half load.
 */
#include "ktrace/ktrace_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

uint64_t ktrace_hash_name(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;

    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static uint64_t hash_ptr(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return k;
}

/* ---- the pointer table ---- */

static int ptrs_grow(struct ktrace_replay *kr)
{
    size_t cap = kr->ptr_slots ? kr->ptr_slots * 2 : 4096;
    struct ktrace_ptr *n = calloc(cap, sizeof(*n));

    if (!n)
        return -ENOMEM;
    for (size_t i = 0; i < kr->ptr_slots; i++) {
        size_t j;

        if (!kr->ptrs[i].key)
            continue;
        for (j = hash_ptr(kr->ptrs[i].key) & (cap - 1); n[j].key; j = (j + 1) & (cap - 1))
            ;
        n[j] = kr->ptrs[i];
    }
    free(kr->ptrs);
    kr->ptrs = n;
    kr->ptr_slots = cap;
    return 0;
}

struct ktrace_ptr *ktrace_ptr_find(struct ktrace_replay *kr, uint64_t key)
{
    size_t mask = kr->ptr_slots - 1;

    if (!kr->ptr_slots)
        return NULL;
    for (size_t j = hash_ptr(key) & mask; kr->ptrs[j].key; j = (j + 1) & mask)
        if (kr->ptrs[j].key == key)
            return &kr->ptrs[j];
    return NULL;
}

struct ktrace_ptr *ktrace_ptr_insert(struct ktrace_replay *kr, uint64_t key)
{
    size_t mask, j;

    if ((kr->nr_ptrs + 1) * 2 > kr->ptr_slots && ptrs_grow(kr))
        return NULL;
    mask = kr->ptr_slots - 1;
    for (j = hash_ptr(key) & mask; kr->ptrs[j].key; j = (j + 1) & mask)
        if (kr->ptrs[j].key == key)
            return &kr->ptrs[j];
    kr->ptrs[j].key = key;
    kr->nr_ptrs++;
    return &kr->ptrs[j];
}

void ktrace_ptr_remove(struct ktrace_replay *kr, struct ktrace_ptr *p)
{
    size_t mask = kr->ptr_slots - 1, i = (size_t)(p - kr->ptrs), j = i;

    for (;;) {
        size_t home;

        j = (j + 1) & mask;
        if (!kr->ptrs[j].key)
            break;
        home = hash_ptr(kr->ptrs[j].key) & mask;
        /* move j back to i unless its home lies cyclically in (i, j] */
        if (i <= j ? (i < home && home <= j) : (i < home || home <= j))
            continue;
        kr->ptrs[i] = kr->ptrs[j];
        i = j;
    }
    kr->ptrs[i].key = 0;
    kr->nr_ptrs--;
}

/* ---- the cache table ---- */

struct ktrace_cache *ktrace_cache_find(struct ktrace_replay *kr, const char *name, size_t len,
                                       uint64_t h)
{
    size_t mask = kr->cache_slots - 1;

    if (!kr->cache_slots)
        return NULL;
    for (size_t j = h & mask; kr->cache_index[j] >= 0; j = (j + 1) & mask) {
        struct ktrace_cache *c = &kr->caches[kr->cache_index[j]];

        if (c->hash == h && c->len == len && !memcmp(c->name, name, len))
            return c;
    }
    return NULL;
}

static int cache_index_rebuild(struct ktrace_replay *kr, size_t slots)
{
    int *idx = malloc(slots * sizeof(*idx));

    if (!idx)
        return -ENOMEM;
    for (size_t j = 0; j < slots; j++)
        idx[j] = -1;
    for (size_t i = 0; i < kr->nr_caches; i++) {
        size_t j;

        for (j = kr->caches[i].hash & (slots - 1); idx[j] >= 0; j = (j + 1) & (slots - 1))
            ;
        idx[j] = (int)i;
    }
    free(kr->cache_index);
    kr->cache_index = idx;
    kr->cache_slots = slots;
    return 0;
}

struct ktrace_cache *ktrace_cache_add(struct ktrace_replay *kr, const char *name, size_t len,
                                      uint64_t h, int id)
{
    struct ktrace_cache *c;

    c = grow_array(kr->caches, &kr->cap_caches, kr->nr_caches + 1, sizeof(*c), 64);
    if (!c)
        return NULL;
    kr->caches = c;
    c = &kr->caches[kr->nr_caches];
    c->name = malloc(len + 1);
    if (!c->name)
        return NULL;
    memcpy(c->name, name, len);
    c->name[len] = 0;
    c->len = len;
    c->id = id;
    c->hash = h;
    kr->nr_caches++;
    if (kr->nr_caches * 2 > kr->cache_slots) {
        if (cache_index_rebuild(kr, kr->cache_slots ? kr->cache_slots * 2 : 128)) {
            kr->nr_caches--;
            free(c->name);
            return NULL;
        }
    } else {
        size_t mask = kr->cache_slots - 1, j;

        for (j = h & mask; kr->cache_index[j] >= 0; j = (j + 1) & mask)
            ;
        kr->cache_index[j] = (int)(kr->nr_caches - 1);
    }
    return c;
}
