/*
 * internal.h: prototypes shared between engine files, grouped by the file that
 * defines them, ground floor first (host.c, config.c, then the page level),
 * allocator paths after.  Only engine/ and the engine's tests include it.
 * Files whose every non-static function is in slub.h (stats.c,
 * gfp_decode.c, snapshot.c, validate.c) have no heading.
 */
#ifndef SLUBLAB_ENGINE_INTERNAL_H
#define SLUBLAB_ENGINE_INTERNAL_H

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "types.h"

/*
 * Name tables: @names[i] is the name of enum value i (stat_names in stats.c,
 * variant_names in config.c, place_names in event.c, ...), every entry set.
 */

/* @names[@i], or NULL past the @nr entries. */
static inline const char *name_of(const char *const *names, unsigned nr, unsigned i)
{
    return i < nr ? names[i] : NULL;
}

/* The index of @name in @names[@nr], or -1. */
static inline int name_lookup(const char *const *names, unsigned nr, const char *name)
{
    for (unsigned i = 0; i < nr; i++)
        if (!strcmp(names[i], name))
            return (int)i;
    return -1;
}

/*
 * Lookups on every path, inline because the fast paths live on them.
 */

/* Pool entry @idx; it must have been handed out. */
static inline void *pool_at(const struct pool *p, uint32_t idx)
{
    return (char *)p->chunk[idx / POOL_CHUNK] + (size_t)(idx % POOL_CHUNK) * p->elem;
}

static inline struct slab *slab_at(const struct sim *sim, uint32_t idx)
{
    return (struct slab *)pool_at(&sim->slabs, idx);
}

static inline struct slab_sheaf *sheaf_at(const struct sim *sim, uint32_t idx)
{
    return (struct slab_sheaf *)pool_at(&sim->sheaves, idx);
}

/* The zone containing @addr, or NULL.  A loop of compares: there are at
 * most a few zones, and a division would cost more. */
static inline struct zone *zone_of(const struct sim *sim, sim_addr_t addr)
{
    for (unsigned i = 0; i < sim->nr_zones; i++) {
        struct zone *z = &sim->zones[i];

        if (addr - z->start < (uint64_t)z->pages << PAGE_SHIFT)
            return z;
    }
    return NULL;
}

/* Page descriptor of zone-relative @pfn, or NULL when its chunk is untouched. */
static inline struct sim_page *zone_page(const struct zone *z, unsigned long pfn)
{
    struct sim_page *chunk = z->chunk[pfn / CHUNK_PAGES];

    return chunk ? &chunk[pfn % CHUNK_PAGES] : NULL;
}

/* Page descriptor of the page holding @addr, or NULL. */
static inline struct sim_page *page_of(const struct sim *sim, sim_addr_t addr)
{
    struct zone *z = zone_of(sim, addr);

    if (!z)
        return NULL;
    return zone_page(z, (unsigned long)((addr - z->start) >> PAGE_SHIFT));
}

/* The slab that @addr lies in, or NULL (kernel: virt_to_slab()). */
static inline struct slab *slab_of(const struct sim *sim, sim_addr_t addr)
{
    struct sim_page *p = page_of(sim, addr);

    if (!p || !p->slab)
        return NULL;
    return slab_at(sim, p->slab);
}

/* Index of @obj in @slab, or -1 when @obj is not the start of one of its
 * objects (kernel: check_valid_pointer). */
static inline long slab_obj_index(const struct kmem_cache *s, const struct slab *slab,
                                  sim_addr_t obj)
{
    sim_addr_t first = slab->base + s->red_left_pad;
    uint64_t off, idx, rem;

    if (obj < first || obj - first >= (uint64_t)slab->objects * s->size)
        return -1;
    off = obj - first; /* below 2^32: a slab is at most 4 MiB */
    idx = off * s->reciprocal_size >> 32;
    rem = off - idx * s->size;
    if (rem >= s->size) { /* the reciprocal may fall one short */
        idx++;
        rem -= s->size;
    }
    return rem ? -1 : (long)idx;
}

/* (kernel: init_slab_obj_iter; the random start is drawn here) */

static inline bool cache_has_sheaves(const struct kmem_cache *s)
{
    return s->sheaf_capacity != 0;
}

/* A cache of the legacy model with a cpu slab per CPU (not a debug cache). */
static inline bool cache_has_cpu_slab(const struct kmem_cache *s)
{
    return s->cpu_slab != NULL;
}

/* The hybrid model of 6.18-6.19: cpu slabs under every cache, sheaves over
 * them on the caches created with a sheaf_capacity (docs/engine.md). */
static inline bool sim_hybrid(const struct sim *sim)
{
    return sim->cfg.model == SIM_MODEL_HYBRID;
}

/* The counter of an allocation from (a free into) a CPU's main sheaf: 6.18
 * counts the sheaf layer apart (ALLOC_PCS, FREE_PCS), 7.x as the fast path. */
static inline enum sim_stat_item pcs_alloc_item(const struct sim *sim)
{
    return sim_hybrid(sim) ? SIM_ALLOC_CPU_SHEAF : SIM_ALLOC_FASTPATH;
}

static inline enum sim_stat_item pcs_free_item(const struct sim *sim)
{
    return sim_hybrid(sim) ? SIM_FREE_CPU_SHEAF : SIM_FREE_FASTPATH;
}

/* Node of the CPU running the current operation (kernel: numa_mem_id). */
static inline int cpu_node(const struct sim *sim)
{
    return (int)sim->cfg.cpu_node[sim->cpu];
}

/* Add @n to counter @item of cache @s on the current CPU (kernel: stat()). */
static inline void stat_add(struct sim *sim, struct kmem_cache *s, enum sim_stat_item item,
        uint64_t n)
{
    if (!n)
        return;
    s->stats[sim->cpu][item] += n;
    if (sim->event_fn) {
        sim->ev.delta[item] += (int64_t)n;
        if (!sim->ev.touched[item]) {
            sim->ev.touched[item] = true;
            sim->ev.touched_list[sim->ev.nr_touched++] = (uint8_t)item;
        }
    }
}

/* host.c */
void *sim_zalloc(struct sim *sim, size_t size);
void *sim_realloc(struct sim *sim, void *old, size_t size);
void sim_free(void *p);
void *sim_scratch_alloc(struct sim *sim, size_t size);
void sim_scratch_free(struct sim *sim, void *p);
void sim_scratch_release_all(struct sim *sim);

/* config.c */
int config_check(const struct sim_config *cfg);

/* gfp.c */
/* Append "|@name" (just @name at @n == 0) to the mask text of @n bytes in
 * @buf[@len], truncating as snprintf() does; returns the length of the whole
 * text untruncated.  gfp_text_rest() appends leftover bits as "0x.." (nothing when @left is 0). */
size_t gfp_text_add(char *buf, size_t len, size_t n, const char *name);
size_t gfp_text_rest(char *buf, size_t len, size_t n, uint32_t left);
/* Parse "NAME|NAME|.." into *@out, @token giving the bits of each name (with
 * @arg).  0, or -EINVAL for an empty text or an empty or unknown name. */
int gfp_text_parse(const char *text,
                   bool (*token)(const void *arg, const char *p, size_t len, uint32_t *bits),
                   const void *arg, uint32_t *out);

/* gfp_layout.c */
/* Whether @name[0..len) is a single gfp bit some modelled release prints;
 * *@engine gets its engine bit (0 where the engine's kernel defines it as 0). */
bool gfp_name_known(const char *name, size_t len, uint32_t *engine);

/* image.c (and image_load.c, image_check.c: docs/image.md) */
#define IMAGE_SUM_LEN   8u /* the checksum at the end of meta */
#define IMAGE_MAX_ZONES (SIM_MAX_NODES * SIM_NR_ZONE_TYPES)
/* Bits of a page descriptor's leading byte in meta: which fields follow. */
enum image_page_bits {
    PD_SLAB = 0x01,
    PD_PREV = 0x02,
    PD_NEXT = 0x04,
    PD_BUDDY = 0x08,
    PD_USER = 0x10,
    PD_BYTES = 0x20,
    PD_ALL = 0x3f,
};
uint64_t image_checksum(const uint8_t *p, size_t n);
void image_seal(uint8_t *meta, size_t len);
uint64_t image_addr_code(uint64_t a);
const char *image_pa_name(bool mark, uint64_t i);
unsigned image_pa_count(bool mark);
void image_zones_by_address(const struct sim *sim, unsigned *order);
/* The validator's verdict on @sim: violations, and a digest of the messages. */
unsigned image_report(const struct sim *sim, uint64_t *digest);

/* image_check.c */
int image_check_loaded(const struct sim *sim, unsigned long nr_bytes);

/* random.c */
void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
uint32_t rng_below(struct rng *r, uint32_t bound);

/* pool.c */
void pool_init(struct pool *p, size_t elem);
uint32_t pool_get(struct sim *sim, struct pool *p);
void pool_put(struct sim *sim, struct pool *p, uint32_t idx);
int pool_clone(struct pool *dst, const struct pool *src);
void pool_release(struct pool *p);

/* mem.c */
int mem_read(const struct sim *sim, sim_addr_t addr, void *buf, size_t len);
int mem_write(struct sim *sim, sim_addr_t addr, const void *buf, size_t len);
int mem_read_u64(const struct sim *sim, sim_addr_t addr, uint64_t *v);
int mem_write_u64(struct sim *sim, sim_addr_t addr, uint64_t v);
uint8_t *page_bytes_alloc(void);
void page_bytes_get(uint8_t *bytes);
void page_bytes_put(uint8_t *bytes);

/* buddy.c */
int page_alloc(struct sim *sim, int node, unsigned order, sim_addr_t *addr);
void page_free(struct sim *sim, sim_addr_t addr, unsigned order);
unsigned long zone_nr_free(const struct zone *z, unsigned order);
int rmqueue_buddy(struct sim *sim, struct zone *z, unsigned order, sim_addr_t *addr);
void zone_init(struct sim *sim, struct zone *z, int node, unsigned type, sim_addr_t start,
        unsigned long pages);

/* watermark.c */
void setup_per_zone_wmarks(struct sim *sim);
bool zone_watermark_ok(const struct sim *sim, const struct zone *z, unsigned order,
        unsigned long mark, unsigned highest_zone, unsigned flags, long *threshold);

/* alloc_flags.c */
struct alloc_layout {
    unsigned min_reserve, kswapd; /* the two bits the coupled form copies from gfp */
    unsigned wmark_mask, no_watermarks, oom, non_block, cpuset, cma, nofragment, highatomic;
};
const struct alloc_layout *alloc_layout_of(unsigned layout);

/* vmscan.c */
unsigned long reclaim_user_blocks(struct sim *sim, const int *zones, unsigned nr,
        unsigned long want);
void kswapd_run(struct sim *sim);

/* alloc_pages.c */
void zones_create(struct sim *sim);
int alloc_pages(struct sim *sim, const struct kmem_cache *s, uint32_t gfp, int node,
        unsigned order, sim_addr_t *addr);
int alloc_pages_user(struct sim *sim, int node, uint32_t gfp, unsigned order, sim_addr_t *addr);
int free_pages_user(struct sim *sim, sim_addr_t addr, unsigned order, char *msg, size_t len);

/* branch.c: the points, in table order, and each point's arms */
enum branch_point {
    BP_FREE_MAIN_FULL,
    BP_FREE_PATH,
    BP_ALLOC_MAIN_EMPTY,
    BP_MAIN_REFILL,
    BP_REFILL_SOURCE,
    BP_ALLOC_SLOWPATH,
    BP_LEGACY_ALLOC_SLOWPATH,
    BP_PUT_CPU_PARTIAL,
    BP_NEW_SLAB_ORDER,
    BP_SLAB_FREE_OUTCOME,
    BP_LEGACY_SLAB_FREE,
    BP_RCU_SHEAF,
    BP_GRACE_PERIOD,
    BP_WATERMARK,
    BP_ZONE_FALLBACK,
    BP_NR
};
enum { FMF_SWAP_SPARE, FMF_BARN_PUT, FMF_SPARE_FROM_BARN_EMPTY, FMF_NEW_SHEAF, FMF_BARN_PUT_FAIL };
enum { FP_FASTPATH, FP_MAIN_FULL, FP_SLOWPATH, FP_CPU_SLAB };
enum { AME_SWAP_SPARE, AME_BARN_FULL, AME_BARN_EMPTY };
enum { MR_REFILL, MR_NO_REFILL };
enum { RS_PARTIAL, RS_OTHER_NODE, RS_NEW_SLAB };
enum { AS_PARTIAL, AS_OTHER_NODE, AS_NEW_SLAB };
enum {
    LAS_ALLOC_REFILL,
    LAS_DEACTIVATE_BYPASS,
    LAS_NODE_MISMATCH,
    LAS_CPU_PARTIAL,
    LAS_NODE_PARTIAL,
    LAS_NEW_SLAB
};
enum { PCP_PUSH, PCP_DRAIN };
enum { NSO_OO, NSO_ORDER_FALLBACK, NSO_NOMEM };
enum {
    SFO_KEEP,
    SFO_KEEP_EMPTY,
    SFO_ADD_PARTIAL,
    SFO_ADD_PARTIAL_EMPTY,
    SFO_DISCARD,
    SFO_NOT_LISTED
};
enum {
    LSF_FREE_FROZEN,
    LSF_CPU_PARTIAL_FREE,
    LSF_ON_CPU_PARTIAL,
    LSF_KEEP,
    LSF_KEEP_EMPTY,
    LSF_DISCARD
};
enum { RCS_GET_SHEAF, RCS_PUT, RCS_CALL_RCU, RCS_NO_SHEAF, RCS_REMOTE };
enum { GP_BARN_PUT, GP_BARN_PUT_FAIL, GP_FLUSH };
enum { WM_FAST, WM_SLOW };
enum { ZF_PREFERRED, ZF_FALLBACK };

/* Record that the decision @point took arm @arm: the record rides on the
 * next event to end (the open one, if any).  Cannot fail. */
void branch_record(struct sim *sim, enum branch_point point, unsigned arm);
/* Order the pending records by the table and hand them to the event (the
 * caller clears them once it is delivered). */
void branch_sort_pending(struct sim *sim);

/* event.c */
struct sim_place place_of_slab(const struct slab *slab);

void ev_label(struct sim *sim, const char *label);
void ev_rename(struct sim *sim, const char *fn, const char *label);
void ev_report(struct sim *sim, const char *report);
void ev_report_result(struct sim *sim, const struct kmem_cache *s, const char *fn,
                      const char *label);
void sim_result_msg(struct sim *sim, enum sim_status status, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
void ev_deliver(struct sim *sim);

/* Open an event for kernel function @fn, branch @label.  Cannot fail. */
static inline void ev_begin(struct sim *sim, const struct kmem_cache *s, const char *fn,
        const char *label, int node)
{
    struct event_builder *ev = &sim->ev;

    SIM_BUG_ON(ev->open);
    ev->open = true;
    ev->fn = fn;
    ev->label = label;
    ev->node = node;
    ev->cache = s ? s->id : -1;
    ev->report = NULL;
    ev->page = NULL;
    ev->nr_moves = 0;
}

/* Close the open event: number it and, if someone listens, deliver it. */
static inline void ev_end(struct sim *sim)
{
    SIM_BUG_ON(!sim->ev.open);
    if (sim->event_fn) {
        ev_deliver(sim);
        return;
    }
    sim->ev.open = false;
    sim->ev.nr_branches = 0;
    if (sim->choice)
        sim->choice->pending = false;
    sim->race_step = NULL;
    sim->seq++;
}
void ev_move_record(struct sim *sim, enum sim_move_kind kind, uint64_t id, struct sim_place from,
        struct sim_place to);

/* Places, and recording a move: inline so that with no listener the
 * compiler drops the place values altogether (the fast paths). */
/* A place with no CPU, node or slot. */
static inline struct sim_place place_none(enum sim_place_type type)
{
    struct sim_place p = {.type = (uint8_t)type, .cpu = -1, .node = -1, .slot = -1};

    return p;
}

static inline struct sim_place place_cpu(enum sim_place_type type, unsigned cpu)
{
    struct sim_place p = place_none(type);

    p.cpu = (int16_t)cpu;
    return p;
}

static inline struct sim_place place_node(enum sim_place_type type, int node)
{
    struct sim_place p = place_none(type);

    p.node = (int16_t)node;
    return p;
}

/* The place of an object sitting on @slab's freelist. */
static inline struct sim_place place_slab(const struct slab *slab)
{
    struct sim_place p = place_node(SIM_PL_SLAB, slab->node);

    p.slab = slab->base;
    return p;
}

/* The place of an object in slot @slot of sheaf @sh. */
static inline struct sim_place place_in_sheaf(const struct slab_sheaf *sh, unsigned slot)
{
    struct sim_place p = sh->place;

    p.slot = (int32_t)slot;
    p.sheaf = sh->id;
    return p;
}

/* Record that @id moved from @from to @to in the open event. */
static inline void ev_move(struct sim *sim, enum sim_move_kind kind, uint64_t id,
        struct sim_place from, struct sim_place to)
{
    if (sim->event_fn)
        ev_move_record(sim, kind, id, from, to);
}

/* choice.c */
uint64_t choice_take(struct sim *sim, enum sim_choice_kind kind, uint64_t nr_options);
void choice_release(struct sim *sim);
void choice_describe(struct sim *sim);
int choice_clone(struct sim *dst, const struct sim *src);
void choice_permute(unsigned *order, unsigned m, uint64_t rank);

/* rcu_queue.c */
void rcu_queue(struct sim *sim, enum rcu_cb_kind kind, uint32_t idx, sim_addr_t obj);
void rcu_dequeue(struct sim *sim, size_t n);

/* freelist.c */
uint64_t freeptr_encode(const struct sim *sim, const struct kmem_cache *s, sim_addr_t next,
        sim_addr_t at);
sim_addr_t freeptr_decode(const struct sim *sim, const struct kmem_cache *s, uint64_t stored,
        sim_addr_t at);
sim_addr_t get_freepointer(struct sim *sim, struct kmem_cache *s, sim_addr_t obj);
void set_freepointer(struct sim *sim, struct kmem_cache *s, sim_addr_t obj, sim_addr_t next);
sim_addr_t peek_freepointer(const struct sim *sim, const struct kmem_cache *s, sim_addr_t obj,
        uint64_t *stored_out);
bool on_freelist(const struct sim *sim, const struct kmem_cache *s, const struct slab *slab,
                 sim_addr_t obj);
void check_freepointer_or_oops(struct sim *sim, struct kmem_cache *s, const struct slab *slab,
                               sim_addr_t obj);
void check_chain(struct sim *sim, struct kmem_cache *s, const struct slab *slab, sim_addr_t head);
unsigned chain_to_inflight(struct sim *sim, struct kmem_cache *s, const struct slab *slab,
                           sim_addr_t head, struct sim_place from);

/* inflight.c */
void inflight_add(struct sim *sim, sim_addr_t obj, struct sim_place from);
void inflight_remove_range(struct sim *sim, size_t first, size_t n);
void inflight_drop_one(struct sim *sim, sim_addr_t obj);
void sink_put(struct sim *sim, struct obj_sink *sink, sim_addr_t obj, struct sim_place from);
sim_addr_t sink_last(const struct obj_sink *sink);

/* @obj leaves @from for @to: keep the user count and in-flight set right
 * and record the move. */
static inline __attribute__((always_inline)) void
obj_leave(struct sim *sim, sim_addr_t obj, struct sim_place from, struct sim_place to)
{
    if (from.type == SIM_PL_INFLIGHT)
        inflight_drop_one(sim, obj);
    else if (from.type == SIM_PL_USER)
        slab_of(sim, obj)->nr_user--;
    if (to.type == SIM_PL_USER)
        slab_of(sim, obj)->nr_user++;
    ev_move(sim, SIM_MOVE_OBJECT, obj, from, to);
}

/* sizing.c */
unsigned get_order(unsigned long size);
unsigned calculate_alignment(uint32_t flags, unsigned align, unsigned size);
void calculate_sizes(struct kmem_cache *s, bool use_freeptr_offset, unsigned freeptr_offset,
                     bool ctor_offset);
int calculate_order(unsigned size, unsigned cpus, unsigned nr_cpu_ids);
int calculate_oo(struct kmem_cache *s, unsigned cpus, unsigned nr_cpu_ids);
int set_oo_order(struct kmem_cache *s, unsigned order);
unsigned calculate_min_partial(unsigned size);
unsigned calculate_sheaf_capacity(uint32_t flags, unsigned size, unsigned requested);

/* slab.c */
uint32_t slab_idx(const struct sim *sim, const struct slab *slab);
uint32_t new_slab(struct sim *sim, struct kmem_cache *s, int node, bool thisnode);
uint32_t new_slab_trynode(struct sim *sim, struct kmem_cache *s, int node);
void inc_slabs_node(struct kmem_cache *s, struct slab *slab);
unsigned alloc_from_new_slab(struct sim *sim, struct kmem_cache *s, uint32_t idx,
        struct obj_sink *sink, unsigned count);
void set_slab_list(struct sim *sim, struct slab *slab, enum slab_list list);
void slab_set_cpu_list(struct sim *sim, struct slab *slab, enum slab_list list, int cpu);
void discard_slab(struct sim *sim, struct kmem_cache *s, uint32_t idx, const char *label);
void discard_slab_pages(struct sim *sim, struct kmem_cache *s, uint32_t idx);

/* node.c */
void add_partial(struct sim *sim, struct kmem_cache *s, uint32_t idx, bool tail);
void remove_partial(struct sim *sim, struct kmem_cache *s, uint32_t idx, enum slab_list list);
void add_full(struct sim *sim, struct kmem_cache *s, uint32_t idx);
void remove_full(struct sim *sim, struct kmem_cache *s, uint32_t idx);
uint32_t node_partial_first(const struct kmem_cache *s, int node);
void slab_free_discard(struct sim *sim, struct kmem_cache *s, uint32_t idx, bool on_partial);
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
bool remote_partial_draw(struct sim *sim, struct kmem_cache *s, int local, const char *caller);
sim_addr_t take_one_from_other_nodes(struct sim *sim, struct kmem_cache *s, int local,
        struct obj_sink *sink);

/* sheaf.c */
void sheaf_set_place(struct sim *sim, uint32_t idx, struct sim_place to);
uint32_t alloc_empty_sheaf(struct sim *sim, struct kmem_cache *s, unsigned capacity);
void free_empty_sheaf(struct sim *sim, struct kmem_cache *s, uint32_t idx);
unsigned cpu_slab_bulk_into_sheaf(struct sim *sim, struct kmem_cache *s, uint32_t idx,
                                  unsigned want);
bool refill_sheaf(struct sim *sim, struct kmem_cache *s, uint32_t idx);
void bulk_free_to_slabs(struct sim *sim, struct kmem_cache *s, sim_addr_t *p, size_t m,
        bool slowpath);
void kfree_bulk(struct sim *sim, sim_addr_t *p, size_t m);
void sheaf_flush_unused(struct sim *sim, struct kmem_cache *s, uint32_t idx);
void sheaf_flush_main(struct sim *sim, struct kmem_cache *s, uint32_t idx);
void sheaf_flush_and_free(struct sim *sim, struct kmem_cache *s, uint32_t idx, const char *fn,
                          const char *detach, const char *free_label, int node);

/* barn.c */
struct node_barn *get_barn(struct kmem_cache *s, int node);
void barn_push(struct sim *sim, struct kmem_cache *s, int node, uint32_t idx, bool full);
uint32_t barn_pop(struct sim *sim, struct kmem_cache *s, int node, bool full);
uint32_t barn_get_empty_sheaf(struct sim *sim, struct kmem_cache *s, int node);
void barn_put_empty_sheaf(struct sim *sim, struct kmem_cache *s, int node, uint32_t idx);
void barn_put_full_sheaf(struct sim *sim, struct kmem_cache *s, int node, uint32_t idx);
uint32_t barn_replace_empty_sheaf(struct sim *sim, struct kmem_cache *s, int node, uint32_t empty,
                                  struct sim_place to);
int barn_replace_full_sheaf(struct sim *sim, struct kmem_cache *s, int node, uint32_t full,
                            struct sim_place to, uint32_t *emptyp);
void barn_shrink(struct sim *sim, struct kmem_cache *s, int node);

/* pcs.c */
void pcs_set(struct sim *sim, struct kmem_cache *s, enum sim_place_type which, uint32_t idx);
sim_addr_t alloc_from_pcs(struct sim *sim, struct kmem_cache *s, int node);
bool free_to_pcs(struct sim *sim, struct kmem_cache *s, sim_addr_t obj);
unsigned alloc_from_pcs_bulk(struct sim *sim, struct kmem_cache *s, unsigned n, sim_addr_t *out);
void kmem_cache_free_bulk(struct sim *sim, struct kmem_cache *s, unsigned n, const sim_addr_t *p);
void pcs_flush_cpu(struct sim *sim, struct kmem_cache *s, unsigned cpu);

/* cache.c */
int kmem_cache_create(struct sim *sim, const struct sim_cache_args *a, int *id, char *msg,
        size_t len);
sim_addr_t kmem_cache_alloc_node(struct sim *sim, struct kmem_cache *s, int node, uint32_t gfp);
bool slab_alloc_slow(struct sim *sim, struct kmem_cache *s, int node, uint32_t gfp,
                     struct obj_sink *sink);
void slab_free(struct sim *sim, struct kmem_cache *s, struct slab *slab, sim_addr_t obj);
void slab_free_nopcs(struct sim *sim, struct kmem_cache *s, struct slab *slab, sim_addr_t obj);
sim_addr_t slab_alloc_nopcs(struct sim *sim, struct kmem_cache *s, int node, uint32_t gfp);
void kmem_cache_free(struct sim *sim, struct kmem_cache *s, sim_addr_t obj);
void kmem_cache_free_bulk_checked(struct sim *sim, struct kmem_cache *s, unsigned n,
                                  const sim_addr_t *p);
unsigned kmem_cache_alloc_bulk(struct sim *sim, struct kmem_cache *s, unsigned n,
        sim_addr_t *out);
void flush_all(struct sim *sim, struct kmem_cache *s);
void kmem_cache_shrink(struct sim *sim, struct kmem_cache *s);
void kmem_cache_destroy(struct sim *sim, struct kmem_cache *s);
int user_write(struct sim *sim, sim_addr_t addr, unsigned len, uint8_t byte);

/* config.c */
uint32_t kmem_cache_flags(const struct sim_config *cfg, uint32_t flags, const char *name);

/* debug.c */
bool kmem_cache_debug(const struct kmem_cache *s);
void setup_slab_debug(struct sim *sim, struct kmem_cache *s, const struct slab *slab);
void setup_object_debug(struct sim *sim, struct kmem_cache *s, sim_addr_t obj);
bool alloc_debug_processing(struct sim *sim, struct kmem_cache *s, const struct slab *slab,
        sim_addr_t obj);
bool free_debug_processing(struct sim *sim, struct kmem_cache *s, const struct slab *slab,
        sim_addr_t obj);
void mem_fill(struct sim *sim, sim_addr_t addr, uint8_t val, size_t len);
bool slub_debug_orig_size(const struct kmem_cache *s);
unsigned get_orig_size(const struct sim *sim, const struct kmem_cache *s, sim_addr_t obj);
void set_orig_size(struct sim *sim, const struct kmem_cache *s, sim_addr_t obj, unsigned size);
void validate_slab_cache(struct sim *sim, struct kmem_cache *s);

/* rcu.c */
void kfree_rcu(struct sim *sim, sim_addr_t obj);
void rcu_grace_period(struct sim *sim, const char *why);
void kvfree_rcu_barrier(struct sim *sim);
void rcu_tick(struct sim *sim);

/* prefill.c */
uint32_t kmem_cache_prefill_sheaf(struct sim *sim, struct kmem_cache *s, unsigned count);
sim_addr_t kmem_cache_alloc_from_sheaf(struct sim *sim, struct kmem_cache *s, uint32_t idx);
uint32_t kmem_cache_refill_sheaf(struct sim *sim, struct kmem_cache *s, uint32_t idx,
        unsigned count);
void kmem_cache_return_sheaf(struct sim *sim, struct kmem_cache *s, uint32_t idx);
uint32_t sheaf_by_id(const struct sim *sim, uint32_t id);

/* cpu_slab.c (legacy model) */
uint64_t tid_step(const struct sim *sim); /* TID_STEP: roundup_pow_of_two(CONFIG_NR_CPUS) */
struct sim_place place_cpu_freelist(const struct slab *slab, unsigned cpu);
void deactivate_slab(struct sim *sim, struct kmem_cache *s, uint32_t idx, sim_addr_t cl);
sim_addr_t legacy_slab_alloc(struct sim *sim, struct kmem_cache *s, int node, uint32_t gfp);
void legacy_do_slab_free(struct sim *sim, struct kmem_cache *s, uint32_t idx,
        const sim_addr_t *objs, unsigned cnt, struct sim_place from);
unsigned legacy_alloc_bulk(struct sim *sim, struct kmem_cache *s, unsigned n, sim_addr_t *out);
void legacy_flush_cpu(struct sim *sim, struct kmem_cache *s, unsigned cpu);
uint64_t legacy_next_tid(const struct sim *sim, uint64_t tid);
sim_addr_t legacy_detach_for_flush(struct sim *sim, struct kmem_cache *s, unsigned cpu,
                                   uint32_t *idx);

/* cpu_partial.c (legacy model) */
void legacy_cache_init(struct sim *sim, struct kmem_cache *s, unsigned requested);
void put_partials_to_node(struct sim *sim, struct kmem_cache *s, uint32_t head);
void put_partials(struct sim *sim, struct kmem_cache *s, struct kmem_cache_cpu *c);
uint32_t get_partial(struct sim *sim, struct kmem_cache *s, int node, bool thisnode,
        sim_addr_t *chain);
void legacy_slab_free_slow(struct sim *sim, struct kmem_cache *s, uint32_t idx,
        const sim_addr_t *objs, unsigned cnt, struct sim_place from);

/* sizing.c: the kmalloc size classes */
#define NR_KMALLOC_SIZES 13u
extern const unsigned kmalloc_sizes[NR_KMALLOC_SIZES];
unsigned long kmalloc_size_roundup(unsigned long size);

/* kmalloc.c */
int kmalloc_index(unsigned size);
int kmalloc(struct sim *sim, unsigned size, int node, uint32_t gfp, struct sim_result *res);
void kfree(struct sim *sim, sim_addr_t obj);
int krealloc(struct sim *sim, sim_addr_t p, unsigned new_size, uint32_t gfp,
             struct sim_result *res);

/* race.c */
int race_check(struct sim *sim, const struct sim_op *op, struct sim_result *res);
int race_apply(struct sim *sim, struct kmem_cache *s, const struct sim_race *race,
               struct sim_result *res);

#endif /* SLUBLAB_ENGINE_INTERNAL_H */
