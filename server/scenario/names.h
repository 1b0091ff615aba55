/*
 * names.h: the scenario's object names, mapped to live objects.
 *
 * A replay gives each allocated object the name its operation chose; a
 * later free or kfree finds the object by that name, then forgets it.  A
 * name refers to the object last allocated under it.  An alloc_bulk named
 * "x" defines "x[0]".."x[n-1]" plus a bulk entry "x" that remembers n.
 * The table is a hash map (open addressing, linear probing) so loops that
 * name thousands of objects stay linear.
 */
#ifndef SLUBLAB_SERVER_SCENARIO_NAMES_H
#define SLUBLAB_SERVER_SCENARIO_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "slub.h"

struct names_entry {
    char *name;      /* owned; NULL marks an empty slot */
    sim_addr_t addr; /* the object; 0 when its allocation failed */
    int cache;       /* cache id it came from */
    unsigned bulk;   /* 0: one object; n: a bulk entry for name[0..n-1] (addr unused) */
};

struct names {
    struct names_entry *slots; /* cap slots; empty ones have name == NULL */
    size_t cap;                /* a power of two, or 0 before the first insert */
    size_t nr;                 /* used slots; nr <= cap / 2 */
};

#define NAMES_INIT \
    {              \
        NULL, 0, 0 \
    }

/* Free every entry; NULL is fine.  The table is empty and reusable after. */
void names_release(struct names *nt);
/* Insert or replace @name.  0 or -ENOMEM (the table is then unchanged). */
int names_set(struct names *nt, const char *name, sim_addr_t addr, int cache, unsigned bulk);
/* The entry for @name, or NULL.  Valid until the next set or remove. */
const struct names_entry *names_get(const struct names *nt, const char *name);
/* Make @dst an independent copy of @src (@dst's old entries are released).
 * 0 or -ENOMEM (then @dst is empty). */
int names_copy(struct names *dst, const struct names *src);
/* Forget @name; false when it was not there. */
bool names_remove(struct names *nt, const char *name);

#endif /* SLUBLAB_SERVER_SCENARIO_NAMES_H */
