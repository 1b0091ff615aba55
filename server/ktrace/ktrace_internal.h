/*
 * ktrace_internal.h: what ktrace_replay.c takes from ktrace_tables.c, the
 * pointer and cache tables.  Not a public header.
 */
#ifndef SLUBLAB_SERVER_KTRACE_KTRACE_INTERNAL_H
#define SLUBLAB_SERVER_KTRACE_KTRACE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "ktrace/ktrace_replay.h"

enum ptr_kind { PTR_SLAB, PTR_LARGE };

struct ktrace_cache {
    char *name; /* as the trace prints it; owned */
    size_t len;
    int id; /* engine cache id; -1: unknown (events are counted) */
    uint64_t hash;
};

struct ktrace_ptr {
    uint64_t key;    /* ptr= value; 0: empty slot */
    sim_addr_t addr; /* the engine object (PTR_SLAB) */
    int32_t cache;   /* its engine cache */
    uint8_t kind;    /* enum ptr_kind */
    uint64_t obj;    /* object number, for recorded names */
};

/* ktrace_tables.c */

/* FNV-1a of a cache name, as the cache table hashes it. */
uint64_t ktrace_hash_name(const char *s, size_t n);
/* The live pointer @key, or NULL. */
struct ktrace_ptr *ktrace_ptr_find(struct ktrace_replay *kr, uint64_t key);
/* The slot for @key, new or existing (key set); NULL when out of memory. */
struct ktrace_ptr *ktrace_ptr_insert(struct ktrace_replay *kr, uint64_t key);
/* Empty slot @p, shifting its probe run back.  Cannot fail. */
void ktrace_ptr_remove(struct ktrace_replay *kr, struct ktrace_ptr *p);
/* The cache named @name (@len bytes, hash @h), or NULL. */
struct ktrace_cache *ktrace_cache_find(struct ktrace_replay *kr, const char *name, size_t len,
                                       uint64_t h);
/* Add cache @name with engine id @id (-1: unknown); NULL when out of memory. */
struct ktrace_cache *ktrace_cache_add(struct ktrace_replay *kr, const char *name, size_t len,
                                      uint64_t h, int id);

#endif /* SLUBLAB_SERVER_KTRACE_KTRACE_INTERNAL_H */
