/*
 * kcache_defaults.h: what a kernel release gives its well-known caches at
 * creation that neither a kmem trace nor /sys/kernel/slab shows (see
 * kcache_defaults.c): the sheaf capacity a creator asks for, an explicit
 * free-pointer offset, SLAB_TYPESAFE_BY_RCU, the alignment.
 */
#ifndef SLUBLAB_SERVER_KFILES_KCACHE_DEFAULTS_H
#define SLUBLAB_SERVER_KFILES_KCACHE_DEFAULTS_H

#include <stdbool.h>
#include <stddef.h>

#include "slub.h"

struct kcache_default {
    const char *name;
    unsigned align;          /* kmem_cache_args.align or KMEM_CACHE's __alignof__ */
    uint32_t flags;          /* creation flags that matter to the layout or the model */
    bool use_freeptr_offset; /* kmem_cache_args.use_freeptr_offset */
    unsigned freeptr_offset; /* its offsetof() */
    unsigned sheaf_capacity; /* kmem_cache_args.sheaf_capacity */
    const char *source;      /* where the values are set: file and function, or the commit */
};

/* The release whose table serves kernel @version ("6.18.44-fc-v1272",
 * "7.3"): the newest modelled release not newer than it, or
 * SIM_RELEASE_NONE. */
enum sim_release kcache_release_of(const char *version);
/* Release @r's entry for cache @name, or NULL. */
const struct kcache_default *kcache_default_find(enum sim_release r, const char *name, size_t len);
/*
 * Apply @d to @a.  @shown: the arguments come from /sys/kernel/slab, which
 * shows the flags, the alignment and the sheaf capacity; only the
 * free-pointer offset is taken then.
 */
void kcache_default_apply(const struct kcache_default *d, struct sim_cache_args *a, bool shown);

#endif
