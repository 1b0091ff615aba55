/*
 * names.c: the object name table (see names.h).
 *
 * FNV-1a hashing into a power-of-two array with linear probing, grown at
 * half load.  Removal shifts the following entries of the probe run back
 * (no tombstones), so lookups never slow down after many frees.
 */
#include "scenario/names.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t names_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;

    while (*s) {
        h ^= (unsigned char)*s++;
        h *= 0x100000001b3ull;
    }
    return (size_t)h;
}

void names_release(struct names *nt)
{
    size_t i;

    if (!nt)
        return;
    for (i = 0; i < nt->cap; i++)
        free(nt->slots[i].name);
    free(nt->slots);
    nt->slots = NULL;
    nt->cap = 0;
    nt->nr = 0;
}

/* Slot holding @name, or the empty slot where it would go. */
static size_t names_slot(const struct names *nt, const char *name)
{
    size_t mask = nt->cap - 1, i = names_hash(name) & mask;

    while (nt->slots[i].name && strcmp(nt->slots[i].name, name) != 0)
        i = (i + 1) & mask;
    return i;
}

static int names_grow(struct names *nt)
{
    size_t cap = nt->cap ? nt->cap * 2 : 64, i;
    struct names old = *nt;

    nt->slots = calloc(cap, sizeof(*nt->slots));
    if (!nt->slots) {
        *nt = old;
        return -ENOMEM;
    }
    nt->cap = cap;
    for (i = 0; i < old.cap; i++)
        if (old.slots[i].name)
            nt->slots[names_slot(nt, old.slots[i].name)] = old.slots[i];
    free(old.slots);
    return 0;
}

int names_set(struct names *nt, const char *name, sim_addr_t addr, int cache, unsigned bulk)
{
    struct names_entry *e;
    size_t len;

    if ((nt->nr + 1) * 2 > nt->cap && names_grow(nt))
        return -ENOMEM;
    e = &nt->slots[names_slot(nt, name)];
    if (!e->name) {
        len = strlen(name) + 1;
        e->name = malloc(len);
        if (!e->name)
            return -ENOMEM;
        memcpy(e->name, name, len);
        nt->nr++;
    }
    e->addr = addr;
    e->cache = cache;
    e->bulk = bulk;
    return 0;
}

const struct names_entry *names_get(const struct names *nt, const char *name)
{
    const struct names_entry *e;

    if (!nt->cap)
        return NULL;
    e = &nt->slots[names_slot(nt, name)];
    return e->name ? e : NULL;
}

bool names_remove(struct names *nt, const char *name)
{
    size_t mask, i, j, home;

    if (!nt->cap)
        return false;
    mask = nt->cap - 1;
    i = names_slot(nt, name);
    if (!nt->slots[i].name)
        return false;
    free(nt->slots[i].name);
    nt->slots[i].name = NULL;
    nt->nr--;
    /* Backward-shift: move later entries of the run into the hole when their
     * home slot does not lie cyclically in (hole, j]. */
    for (j = (i + 1) & mask; nt->slots[j].name; j = (j + 1) & mask) {
        home = names_hash(nt->slots[j].name) & mask;
        if (((j - home) & mask) >= ((j - i) & mask)) {
            nt->slots[i] = nt->slots[j];
            nt->slots[j].name = NULL;
            i = j;
        }
    }
    return true;
}

int names_copy(struct names *dst, const struct names *src)
{
    size_t i;

    names_release(dst);
    if (!src->cap)
        return 0;
    dst->slots = calloc(src->cap, sizeof(*dst->slots));
    if (!dst->slots)
        return -ENOMEM;
    dst->cap = src->cap;
    for (i = 0; i < src->cap; i++) {
        const struct names_entry *e = &src->slots[i];
        size_t len;

        if (!e->name)
            continue;
        len = strlen(e->name) + 1;
        dst->slots[i] = *e;
        dst->slots[i].name = malloc(len);
        if (!dst->slots[i].name) {
            names_release(dst);
            return -ENOMEM;
        }
        memcpy(dst->slots[i].name, e->name, len);
        dst->nr++;
    }
    return 0;
}
