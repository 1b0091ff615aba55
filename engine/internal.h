/*
 * internal.h: prototypes shared between engine files, grouped by the file
 * that defines them.  Only engine/ and the engine's tests include it.
 */
#ifndef SLUBLAB_ENGINE_INTERNAL_H
#define SLUBLAB_ENGINE_INTERNAL_H

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>

#include "types.h"

/* sim.c */
void *sim_zalloc(struct sim *sim, size_t size);
void *sim_realloc(struct sim *sim, void *old, size_t size);
void sim_free(void *p);
void *sim_scratch_alloc(struct sim *sim, size_t size);
void sim_scratch_free(struct sim *sim, void *p);

/* random.c */
void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
uint32_t rng_below(struct rng *r, uint32_t bound);

/* pool.c */
void pool_init(struct pool *p, size_t elem);
void *pool_at(const struct pool *p, uint32_t idx);
uint32_t pool_get(struct sim *sim, struct pool *p);
void pool_put(struct sim *sim, struct pool *p, uint32_t idx);
int pool_clone(struct pool *dst, const struct pool *src);
void pool_release(struct pool *p);

/* mem.c */
struct zone *zone_of(const struct sim *sim, sim_addr_t addr);
struct sim_page *zone_page(const struct zone *z, unsigned long pfn);
struct sim_page *page_of(const struct sim *sim, sim_addr_t addr);
struct slab *slab_of(const struct sim *sim, sim_addr_t addr);
int mem_read(const struct sim *sim, sim_addr_t addr, void *buf, size_t len);
int mem_write(struct sim *sim, sim_addr_t addr, const void *buf, size_t len);
int mem_read_u64(const struct sim *sim, sim_addr_t addr, uint64_t *v);
int mem_write_u64(struct sim *sim, sim_addr_t addr, uint64_t v);

/* page_alloc.c */
int page_alloc(struct sim *sim, int node, unsigned order, sim_addr_t *addr);
void page_free(struct sim *sim, sim_addr_t addr, unsigned order);
unsigned long zone_nr_free(const struct zone *z, unsigned order);

/* stats.c */
void stat_add(struct sim *sim, struct kmem_cache *s, enum sim_stat_item item, uint64_t n);

/* event.c */
struct sim_place place_none(enum sim_place_type type);
struct sim_place place_cpu(enum sim_place_type type, unsigned cpu);
struct sim_place place_node(enum sim_place_type type, int node);
struct sim_place place_slab(const struct slab *slab);
struct sim_place place_in_sheaf(const struct slab_sheaf *sh, unsigned slot);
struct sim_place place_of_slab(const struct slab *slab);
void ev_begin(struct sim *sim, const struct kmem_cache *s, const char *fn, const char *label,
        int node);
void ev_label(struct sim *sim, const char *label);
void ev_report(struct sim *sim, const char *report);
void ev_move(struct sim *sim, enum sim_move_kind kind, uint64_t id, struct sim_place from,
        struct sim_place to);
void ev_end(struct sim *sim);

/* freelist.c */
uint64_t freeptr_encode(const struct sim *sim, const struct kmem_cache *s, sim_addr_t next,
        sim_addr_t at);
sim_addr_t freeptr_decode(const struct sim *sim, const struct kmem_cache *s, uint64_t stored,
        sim_addr_t at);
sim_addr_t get_freepointer(struct sim *sim, struct kmem_cache *s, sim_addr_t obj);
void set_freepointer(struct sim *sim, struct kmem_cache *s, sim_addr_t obj, sim_addr_t next);
sim_addr_t peek_freepointer(const struct sim *sim, const struct kmem_cache *s, sim_addr_t obj,
        uint64_t *stored_out);

/* inflight.c */
void inflight_add(struct sim *sim, sim_addr_t obj, struct sim_place from);
void inflight_remove_range(struct sim *sim, size_t first, size_t n);
void inflight_drop_one(struct sim *sim, sim_addr_t obj);
void obj_leave(struct sim *sim, sim_addr_t obj, struct sim_place from, struct sim_place to);
void sink_put(struct sim *sim, struct obj_sink *sink, sim_addr_t obj, struct sim_place from);
sim_addr_t sink_last(const struct obj_sink *sink);

/* sizing.c */
unsigned get_order(unsigned long size);
unsigned long kmalloc_size_roundup(unsigned long size);
unsigned calculate_alignment(uint32_t flags, unsigned align, unsigned size);
void calculate_sizes(struct kmem_cache *s, bool use_freeptr_offset, unsigned freeptr_offset);
int calculate_order(unsigned size, unsigned cpus, unsigned nr_cpu_ids);
int calculate_oo(struct kmem_cache *s, unsigned cpus, unsigned nr_cpu_ids);
unsigned calculate_min_partial(unsigned size);
unsigned calculate_sheaf_capacity(uint32_t flags, unsigned size, unsigned requested);

/* slab.c */
struct slab *slab_at(const struct sim *sim, uint32_t idx);
uint32_t slab_idx(const struct sim *sim, const struct slab *slab);
long slab_obj_index(const struct kmem_cache *s, const struct slab *slab, sim_addr_t obj);
uint32_t new_slab(struct sim *sim, struct kmem_cache *s, int node);
uint32_t new_slab_any(struct sim *sim, struct kmem_cache *s, int node, bool thisnode);
unsigned alloc_from_new_slab(struct sim *sim, struct kmem_cache *s, uint32_t idx,
        struct obj_sink *sink, unsigned count);
void set_slab_list(struct sim *sim, struct slab *slab, enum slab_list list);
void discard_slab(struct sim *sim, struct kmem_cache *s, uint32_t idx, const char *label);
bool on_freelist(const struct sim *sim, const struct kmem_cache *s, const struct slab *slab,
        sim_addr_t obj);

/* node.c */
void add_partial(struct sim *sim, struct kmem_cache *s, uint32_t idx, bool tail);
void remove_partial(struct sim *sim, struct kmem_cache *s, uint32_t idx, enum slab_list list);
void add_full(struct sim *sim, struct kmem_cache *s, uint32_t idx);
void remove_full(struct sim *sim, struct kmem_cache *s, uint32_t idx);
uint32_t node_partial_first(const struct kmem_cache *s, int node);
uint32_t node_partial_next(const struct sim *sim, uint32_t idx);
void slab_free_to_slab(struct sim *sim, struct kmem_cache *s, uint32_t idx,
        const sim_addr_t *objs, unsigned cnt, struct sim_place from);
void free_to_partial_list(struct sim *sim, struct kmem_cache *s, uint32_t idx,
        const sim_addr_t *objs, unsigned cnt, struct sim_place from);
unsigned refill_from_node(struct sim *sim, struct kmem_cache *s, int node, struct obj_sink *sink,
        unsigned min, unsigned max);
unsigned refill_objects(struct sim *sim, struct kmem_cache *s, struct obj_sink *sink, unsigned min,
        unsigned max);
sim_addr_t take_one_from_partial(struct sim *sim, struct kmem_cache *s, int node,
        struct obj_sink *sink);
sim_addr_t take_one_from_other_nodes(struct sim *sim, struct kmem_cache *s, int local,
        struct obj_sink *sink);

/* sheaf.c */
struct slab_sheaf *sheaf_at(const struct sim *sim, uint32_t idx);
void sheaf_set_place(struct sim *sim, uint32_t idx, struct sim_place to);
uint32_t alloc_empty_sheaf(struct sim *sim, struct kmem_cache *s, unsigned capacity);
void free_empty_sheaf(struct sim *sim, struct kmem_cache *s, uint32_t idx);
bool refill_sheaf(struct sim *sim, struct kmem_cache *s, uint32_t idx);
void bulk_free_to_slabs(struct sim *sim, struct kmem_cache *s, sim_addr_t *p, size_t m);
void sheaf_flush_unused(struct sim *sim, struct kmem_cache *s, uint32_t idx);
void sheaf_flush_main(struct sim *sim, struct kmem_cache *s, uint32_t idx);

/* barn.c */
struct node_barn *get_barn(struct kmem_cache *s, int node);
void barn_push(struct sim *sim, struct kmem_cache *s, int node, uint32_t idx, bool full);
uint32_t barn_pop(struct sim *sim, struct kmem_cache *s, int node, bool full);
void barn_shrink(struct sim *sim, struct kmem_cache *s, int node);

/* pcs.c */
void pcs_set(struct sim *sim, struct kmem_cache *s, enum sim_place_type which, uint32_t idx);
sim_addr_t alloc_from_pcs(struct sim *sim, struct kmem_cache *s, int node);
bool free_to_pcs(struct sim *sim, struct kmem_cache *s, sim_addr_t obj);
unsigned alloc_from_pcs_bulk(struct sim *sim, struct kmem_cache *s, unsigned n, sim_addr_t *out);
void pcs_flush_cpu(struct sim *sim, struct kmem_cache *s, unsigned cpu);

/* cache.c */
bool cache_has_sheaves(const struct kmem_cache *s);
int cpu_node(const struct sim *sim);
void sim_result_msg(struct sim *sim, enum sim_status status, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
int kmem_cache_create(struct sim *sim, const struct sim_cache_args *a, int *id, char *msg,
        size_t len);
sim_addr_t kmem_cache_alloc_node(struct sim *sim, struct kmem_cache *s, int node, uint32_t gfp);
void slab_free(struct sim *sim, struct kmem_cache *s, struct slab *slab, sim_addr_t obj);
void kmem_cache_free(struct sim *sim, struct kmem_cache *s, sim_addr_t obj);
unsigned kmem_cache_alloc_bulk(struct sim *sim, struct kmem_cache *s, unsigned n,
        sim_addr_t *out);
void flush_all(struct sim *sim, struct kmem_cache *s);
void kmem_cache_shrink(struct sim *sim, struct kmem_cache *s);
void kmem_cache_destroy(struct sim *sim, struct kmem_cache *s);
void check_freepointer_or_oops(struct sim *sim, struct kmem_cache *s, const struct slab *slab,
        sim_addr_t obj);
int user_write(struct sim *sim, sim_addr_t addr, unsigned len, uint8_t byte);

/* debug.c */
bool kmem_cache_debug(const struct kmem_cache *s);
void setup_slab_debug(struct sim *sim, struct kmem_cache *s, const struct slab *slab);
void setup_object_debug(struct sim *sim, struct kmem_cache *s, sim_addr_t obj);
bool alloc_debug_processing(struct sim *sim, struct kmem_cache *s, const struct slab *slab,
        sim_addr_t obj);
bool free_debug_processing(struct sim *sim, struct kmem_cache *s, const struct slab *slab,
        sim_addr_t obj);

/* kmalloc.c */
int kmalloc_index(unsigned size);
int kmalloc(struct sim *sim, unsigned size, int node, uint32_t gfp, struct sim_result *res);
void kfree(struct sim *sim, sim_addr_t obj);

#endif /* SLUBLAB_ENGINE_INTERNAL_H */
