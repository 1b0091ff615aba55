/*
 * slub.h: the public interface of the slublab engine.
 *
 * The engine runs SLUB's algorithms on a simulated machine: CPUs, NUMA nodes, a
 * byte arena of 4 KiB pages per node handed out by a buddy allocator, and kmem
 * caches whose slabs, sheaves and barns live on those bytes.  Callers create a
 * machine (sim_create), apply operations one at a time (sim_apply) and observe
 * it through the event callback, sim_snapshot() and sim_validate().  Everything
 * is deterministic: the same configuration, seed and operations give the same
 * events, byte for byte.
 *
 * Only this header crosses from engine/ to its users; it includes nothing but
 * <stdint.h>, <stdbool.h> and <stddef.h>.  The engine keeps no history.
 */
#ifndef SLUBLAB_ENGINE_SLUB_H
#define SLUBLAB_ENGINE_SLUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SIM_VERSION "0.1.0"

typedef uint64_t sim_addr_t; /* a kernel-like virtual address; 0 is NULL */

struct sim; /* opaque machine */

#define SIM_MAX_CPUS     64
#define SIM_MAX_NODES    8
#define SIM_MAX_ORDER    10 /* MAX_PAGE_ORDER */
#define SIM_PAGE_SIZE    4096u
#define SIM_NUMA_NO_NODE (-1)
#define SIM_NAME_MAX     48
#define SIM_SLAB_DEBUG_MAX 128 /* bytes of slab_debug='s cache groups, NUL included */

/* Switchable kernel changes: each is "before" (0) or "after" (1). */
enum sim_variant {
    SIM_VAR_DEFERRED_FREELIST, /* dc795d4c0282: freelist built only for what a fresh slab keeps */
    SIM_VAR_BARN_REFILL,       /* 1b87ea06a34b: prefilled sheaves refill from the barn */
    SIM_VAR_REFILL_RETURN,     /* leftovers of a bulk-taken slab returned without __slab_free */
    SIM_VAR_DETACHED_FREELIST, /* 2015 series: bulk frees grouped per slab (before: one by one) */
    SIM_VAR_GFP_TRANSLATE,     /* 2026 "drop the flag value coupling": gfp_to_alloc_flags tests
                                * each bit (after, "explicit") instead of copying __GFP_HIGH and
                                * __GFP_KSWAPD_RECLAIM across (before, "coupled") */
    SIM_VAR_CPU_PARTIAL_DIRECT_LOAD, /* 90b1e56641bb (legacy model): a CPU partial slab is loaded
                                      * under one lock section (before: unlock, freeze, relock) */
    SIM_VAR_REFILL_NONBLOCKING,      /* fb1091febd66 "mm/slab: allow sheaf refill if blocking is not
                                      * allowed": __pcs_replace_empty_main refills an empty main sheaf
                                      * whenever the gfp may spin (after), not only when it may block */
    SIM_VAR_BULK_FREE_PARTITION,     /* 7.3's free_to_pcs_bulk: other nodes' objects partitioned to
                                      * the array's front in place and freed after the local ones
                                      * (after); before (6.18-7.2), compacted out (p[i] = p[--size])
                                      * and freed 32 at a time as found */
    SIM_NR_VARIANTS
};
enum { SIM_BEFORE = 0, SIM_AFTER = 1 };

/* Memory models of SLUB: per-CPU sheaves for every cache (7.x), per-CPU
 * slabs with per-CPU partial lists (6.2-6.17, the legacy model), or both
 * (6.18-6.19, the hybrid model): per-CPU slabs for every cache, and sheaves
 * over them on the caches created with a sheaf_capacity. */
enum sim_model { SIM_MODEL_SHEAVES, SIM_MODEL_LEGACY, SIM_MODEL_HYBRID };

/*
 * Eras of the legacy model: how a CPU partial slab becomes the CPU slab.
 * SIM_ERA_DEFAULT follows the CPU_PARTIAL_DIRECT_LOAD variant (before:
 * DELAYED_FREEZE, after: DIRECT_LOAD); an explicit era must agree with it.
 */
enum sim_legacy_era {
    SIM_ERA_DEFAULT,
    SIM_ERA_FROZEN_PARTIAL, /* 6.1-6.7: CPU partial slabs are frozen; bulk stats per batch */
    SIM_ERA_DELAYED_FREEZE, /* 6.8: unfrozen; unlock, freeze_slab, relock (retry_load_slab) */
    SIM_ERA_DIRECT_LOAD,    /* 6.9-6.17: unfrozen; loaded under the lock (get_freelist) */
};

/*
 * Kernel releases the lab models (docs/engine.md, the table of releases):
 * each names a model, an era and the value of every variant.
 * SIM_RELEASE_NONE: a model chosen by hand.
 */
enum sim_release {
    SIM_RELEASE_NONE,
    SIM_RELEASE_6_1,
    SIM_RELEASE_6_8,
    SIM_RELEASE_6_12,
    SIM_RELEASE_6_18,
    SIM_RELEASE_6_19,
    SIM_RELEASE_7_0,
    SIM_RELEASE_7_1,
    SIM_RELEASE_7_2,
    SIM_RELEASE_7_3,
    SIM_NR_RELEASES
};

/*
 * Stat items: the union of every SLUB era's enum stat_item, named by their
 * sysfs files, plus engine-only counters (prefix engine_).  Outputs always
 * key counters by sim_stat_name(), never by index.
 */
enum sim_stat_item {
    /* sheaves era, in kernel order */
    SIM_ALLOC_FASTPATH,
    SIM_ALLOC_SLOWPATH,
    SIM_FREE_RCU_SHEAF,
    SIM_FREE_RCU_SHEAF_FAIL,
    SIM_FREE_FASTPATH,
    SIM_FREE_SLOWPATH,
    SIM_FREE_ADD_PARTIAL,
    SIM_FREE_REMOVE_PARTIAL,
    SIM_ALLOC_SLAB,
    SIM_ALLOC_NODE_MISMATCH,
    SIM_FREE_SLAB,
    SIM_ORDER_FALLBACK,
    SIM_CMPXCHG_DOUBLE_FAIL,
    SIM_SHEAF_FLUSH,
    SIM_SHEAF_REFILL,
    SIM_SHEAF_ALLOC,
    SIM_SHEAF_FREE,
    SIM_BARN_GET,
    SIM_BARN_GET_FAIL,
    SIM_BARN_PUT,
    SIM_BARN_PUT_FAIL,
    SIM_SHEAF_PREFILL_FAST,
    SIM_SHEAF_PREFILL_SLOW,
    SIM_SHEAF_PREFILL_OVERSIZE,
    SIM_SHEAF_RETURN_FAST,
    SIM_SHEAF_RETURN_SLOW,
    /* legacy era only (per-CPU slabs and partial lists) */
    SIM_FREE_FROZEN,
    SIM_ALLOC_FROM_PARTIAL,
    SIM_ALLOC_REFILL,
    SIM_CPUSLAB_FLUSH,
    SIM_DEACTIVATE_FULL,
    SIM_DEACTIVATE_EMPTY,
    SIM_DEACTIVATE_TO_HEAD,
    SIM_DEACTIVATE_TO_TAIL,
    SIM_DEACTIVATE_REMOTE_FREES,
    SIM_DEACTIVATE_BYPASS,
    SIM_CMPXCHG_DOUBLE_CPU_FAIL,
    SIM_CPU_PARTIAL_ALLOC,
    SIM_CPU_PARTIAL_FREE,
    SIM_CPU_PARTIAL_NODE,
    SIM_CPU_PARTIAL_DRAIN,
    /* hybrid only (6.18-6.19): the sheaf layer counted apart from the cpu slab's */
    SIM_ALLOC_CPU_SHEAF, /* ALLOC_PCS: an allocation from a CPU's main sheaf */
    SIM_FREE_CPU_SHEAF,  /* FREE_PCS: a free into a CPU's main sheaf */
    /* engine only: not in any kernel */
    SIM_ENGINE_FREEPTR_READS,
    SIM_ENGINE_FREEPTR_WRITES,
    SIM_ENGINE_PAGES_IN,     /* pages taken from the page allocator for slabs */
    SIM_ENGINE_PAGES_OUT,    /* pages given back */
    SIM_ENGINE_SLAB_UPDATES, /* returns of objects to a slab (one __slab_free each) */
    SIM_NR_STATS
};

/* sysfs name of a stat item, e.g. "alloc_fastpath"; NULL when out of range. */
const char *sim_stat_name(unsigned item);
/* The item whose name is @name, or -1. */
int sim_stat_lookup(const char *name);
/* True for counters no kernel has (engine_*). */
bool sim_stat_is_engine_only(unsigned item);
/* True for counters the given model's kernels count. */
bool sim_stat_in_model(unsigned item, enum sim_model model);

/* Cache creation flags (the kernel's SLAB_* flags that the model uses). */
#define SIM_SLAB_CONSISTENCY_CHECKS 0x00000100u
#define SIM_SLAB_RED_ZONE           0x00000400u
#define SIM_SLAB_POISON             0x00000800u
#define SIM_SLAB_KMALLOC            0x00001000u
#define SIM_SLAB_HWCACHE_ALIGN      0x00002000u
#define SIM_SLAB_CACHE_DMA          0x00004000u
#define SIM_SLAB_STORE_USER         0x00010000u
#define SIM_SLAB_RECLAIM_ACCOUNT    0x00020000u
#define SIM_SLAB_TYPESAFE_BY_RCU    0x00080000u
#define SIM_SLAB_TRACE              0x00200000u
#define SIM_SLAB_NO_OBJ_EXT         0x01000000u
#define SIM_SLAB_NOLEAKTRACE        0x00800000u
#define SIM_SLAB_DEBUG_FLAGS                                                                       \
    (SIM_SLAB_RED_ZONE | SIM_SLAB_POISON | SIM_SLAB_STORE_USER | SIM_SLAB_TRACE |                  \
            SIM_SLAB_CONSISTENCY_CHECKS)

/* Names of the flags above, for parsing and printing ("SLAB_POISON"). */
const char *sim_flag_name(uint32_t flag);
uint32_t sim_flag_lookup(const char *name); /* 0 when unknown */

/* gfp bits the model reads (values as in include/linux/gfp_types.h). */
#define SIM_GFP_DMA            0x01u
#define SIM_GFP_HIGHMEM        0x02u
#define SIM_GFP_DMA32          0x04u
#define SIM_GFP_MOVABLE        0x08u
#define SIM_GFP_RECLAIMABLE    0x10u
#define SIM_GFP_HIGH           0x20u
#define SIM_GFP_IO             0x40u
#define SIM_GFP_FS             0x80u
#define SIM_GFP_ZERO           0x100u
#define SIM_GFP_DIRECT_RECLAIM 0x400u
#define SIM_GFP_KSWAPD_RECLAIM 0x800u
#define SIM_GFP_WRITE          0x1000u
#define SIM_GFP_NOWARN         0x2000u
#define SIM_GFP_RETRY_MAYFAIL  0x4000u
#define SIM_GFP_NOFAIL         0x8000u
#define SIM_GFP_NORETRY        0x10000u
#define SIM_GFP_MEMALLOC       0x20000u
#define SIM_GFP_COMP           0x40000u
#define SIM_GFP_NOMEMALLOC     0x80000u
#define SIM_GFP_HARDWALL       0x100000u
#define SIM_GFP_THISNODE       0x200000u
#define SIM_GFP_ACCOUNT        0x400000u
#define SIM_GFP_ZEROTAGS       0x800000u
#define SIM_GFP_NO_OBJ_EXT     0x1000000u /* KASAN_HW_TAGS=n, LOCKDEP=n, SLAB_OBJ_EXT=y */
#define SIM_GFP_BITS_MASK      0x1fffdffu /* every defined bit; 0x200 is unused since 6.3 */
#define SIM_GFP_HIGHUSER       (SIM_GFP_KERNEL | SIM_GFP_HARDWALL | SIM_GFP_HIGHMEM)
#define SIM_GFP_HIGHUSER_MOVABLE (SIM_GFP_HIGHUSER | SIM_GFP_MOVABLE)
#define SIM_GFP_TRANSHUGE_LIGHT                                                                    \
    ((SIM_GFP_HIGHUSER_MOVABLE | SIM_GFP_COMP | SIM_GFP_NOMEMALLOC | SIM_GFP_NOWARN) &             \
            ~SIM_GFP_RECLAIM)
#define SIM_GFP_TRANSHUGE      (SIM_GFP_TRANSHUGE_LIGHT | SIM_GFP_DIRECT_RECLAIM)
#define SIM_GFP_RECLAIM        (SIM_GFP_DIRECT_RECLAIM | SIM_GFP_KSWAPD_RECLAIM)
#define SIM_GFP_KERNEL         (SIM_GFP_RECLAIM | SIM_GFP_IO | SIM_GFP_FS)
#define SIM_GFP_ATOMIC         (SIM_GFP_HIGH | SIM_GFP_KSWAPD_RECLAIM)
#define SIM_GFP_NOWAIT         (SIM_GFP_KSWAPD_RECLAIM | SIM_GFP_NOWARN)

/* Parse "GFP_KERNEL|__GFP_ZERO", "0xcc0" or "GFP_KERNEL|0x1000000" (any modelled
 * release's names: gfp_layout.c); returns 0 or -EINVAL. */
int sim_gfp_parse(const char *text, uint32_t *out);
/* Print a mask the way the kernel's tracepoints do; returns the length. */
size_t sim_gfp_format(uint32_t gfp, char *buf, size_t len);
/* 0 when @gfp is a mask the kernel accepts; -EINVAL with the reason in @msg
 * for undefined bits, two zone modifiers at once (GFP_ZONE_BAD) or
 * __GFP_MOVABLE|__GFP_RECLAIMABLE together. */
int sim_gfp_check(uint32_t gfp, char *msg, size_t len);

/* ---- gfp layouts of kernel releases (gfp_layout.c) ------------------------ */

/* The configs that move gfp bits (a config that is off leaves its bit out). */
#define SIM_GFP_CFG_KASAN_HW_TAGS 0x1u
#define SIM_GFP_CFG_LOCKDEP       0x2u
#define SIM_GFP_CFG_SLAB_OBJ_EXT  0x4u
#define SIM_GFP_CFG_DEFAULT       SIM_GFP_CFG_SLAB_OBJ_EXT /* a distribution's x86-64 kernel */

/* One release's gfp names and values with its configs (plain data). */
struct sim_gfp_layout {
    unsigned era;    /* gfp_layout.c's era of the release */
    unsigned config; /* SIM_GFP_CFG_* */
};

/* The layout of @release ("6.1", "6.12", "6.18", "7.3", ...) built with
 * @config; -EINVAL for a release or config bit it does not know. */
int sim_gfp_layout_of(const char *release, unsigned config, struct sim_gfp_layout *out);
/* How many names the release's show_gfp_flags() walks, and the @i-th of
 * them in its order with its value (NULL past the end). */
size_t sim_gfp_layout_nr_names(const struct sim_gfp_layout *l);
const char *sim_gfp_layout_name(const struct sim_gfp_layout *l, size_t i, uint32_t *bits);
/* A mask as that kernel prints it ("GFP_KERNEL|__GFP_ZERO", leftover bits as
 * "0x.." tokens) to its value there; -EINVAL for a name it does not print. */
int sim_gfp_layout_parse(const struct sim_gfp_layout *l, const char *text, uint32_t *out);
/* The value printed as that kernel's __print_flags() would ("none" for 0). */
size_t sim_gfp_layout_format(const struct sim_gfp_layout *l, uint32_t raw, char *buf, size_t len);
/* @raw of @l in the engine's bits, name by name; bits no name of @l covers
 * go to *@unknown (may be NULL).  Cannot fail. */
uint32_t sim_gfp_layout_to_engine(const struct sim_gfp_layout *l, uint32_t raw, uint32_t *unknown);

/* ---- Zones, watermarks and what a gfp mask decides ------------------------ */

enum sim_zone_type { SIM_ZONE_DMA, SIM_ZONE_DMA32, SIM_ZONE_NORMAL, SIM_ZONE_MOVABLE,
    SIM_NR_ZONE_TYPES };
const char *sim_zone_name(unsigned type); /* "DMA", "DMA32", "Normal", "Movable"; NULL if bad */

enum sim_migratetype { SIM_MIGRATE_UNMOVABLE, SIM_MIGRATE_MOVABLE, SIM_MIGRATE_RECLAIMABLE,
    SIM_MIGRATE_HIGHATOMIC };
const char *sim_migratetype_name(unsigned mt); /* "Unmovable", ... */

enum sim_wmark { SIM_WMARK_MIN, SIM_WMARK_LOW, SIM_WMARK_HIGH, SIM_WMARK_PROMO, SIM_NR_WMARK };

/* ALLOC_* flags of the page allocator (mm/internal.h), in the kernel's layout. */
#define SIM_ALLOC_WMARK_MIN     0x00u
#define SIM_ALLOC_WMARK_LOW     0x01u
#define SIM_ALLOC_WMARK_HIGH    0x02u
#define SIM_ALLOC_WMARK_MASK    0x03u
#define SIM_ALLOC_NO_WATERMARKS 0x04u
#define SIM_ALLOC_OOM           0x08u
#define SIM_ALLOC_NON_BLOCK     0x10u
#define SIM_ALLOC_MIN_RESERVE   0x20u
#define SIM_ALLOC_CPUSET        0x40u
#define SIM_ALLOC_CMA           0x80u
#define SIM_ALLOC_NOFRAGMENT    0x100u
#define SIM_ALLOC_HIGHATOMIC    0x200u
#define SIM_ALLOC_KSWAPD        0x800u

/* Where the ALLOC_* bits live: the kernel's layout, or a renumbered one
 * (ALLOC_MIN_RESERVE 0x1000, ALLOC_KSWAPD 0x2000) that breaks the coupled
 * translation.  With RENUMBERED, sim_create() refuses GFP_TRANSLATE=before
 * as the kernel's static assertions would; RENUMBERED_FORCED runs it anyway. */
enum sim_alloc_layout { SIM_ALLOC_LAYOUT_KERNEL, SIM_ALLOC_LAYOUT_RENUMBERED,
    SIM_ALLOC_LAYOUT_RENUMBERED_FORCED };
const char *sim_alloc_layout_name(unsigned layout); /* "kernel", "renumbered", "renumbered-forced" */
int sim_alloc_layout_lookup(const char *name);     /* -1 when unknown */

/* Calling context of an allocation (what gfp_to_alloc_flags reads besides gfp). */
enum sim_gfp_context { SIM_CTX_TASK, SIM_CTX_ATOMIC, SIM_CTX_RT };
const char *sim_gfp_context_name(unsigned c); /* "task", "atomic", "rt" */
int sim_gfp_context_lookup(const char *name);

struct sim_gfp_ctx {
    bool in_task;     /* not in hard or soft interrupt */
    bool rt_or_dl;    /* the task is realtime or deadline */
    bool pf_memalloc; /* the task is reclaiming (PF_MEMALLOC) */
    bool oom_victim;  /* the task was chosen by the OOM killer */
    bool cma;         /* CONFIG_CMA */
};
/* The context for @c with CMA as given. */
struct sim_gfp_ctx sim_gfp_ctx_of(enum sim_gfp_context c, bool cma);

/* gfp_zone(): the highest zone type @gfp may use, or -EINVAL (GFP_ZONE_BAD). */
int sim_gfp_zone(uint32_t gfp);
/* gfp_migratetype(): enum sim_migratetype. */
unsigned sim_gfp_migratetype(uint32_t gfp);
/* gfp_to_alloc_flags(): the flags of the first slow-path attempt, in
 * @layout's bits, by the coupled (@translate SIM_BEFORE) or explicit form. */
unsigned sim_gfp_to_alloc_flags(uint32_t gfp, unsigned order, const struct sim_gfp_ctx *ctx,
        unsigned translate, unsigned layout);
/* alloc_flags_nofragment(): the fast path's KSWAPD and NOFRAGMENT bits for
 * a preferred zone of @zone_type on a machine with (@dma32) a ZONE_DMA32. */
unsigned sim_alloc_flags_nofragment(uint32_t gfp, unsigned zone_type, bool dma32,
        unsigned translate, unsigned layout);
/* __gfp_pfmemalloc_flags(): ALLOC_NO_WATERMARKS, ALLOC_OOM or 0. */
unsigned sim_gfp_pfmemalloc_flags(uint32_t gfp, const struct sim_gfp_ctx *ctx, unsigned layout);
/* The watermark @mark after the reserve cuts @flags grant (__zone_watermark_ok). */
long sim_effective_min(unsigned flags, long mark, unsigned layout);
/* Names of ALLOC_* flags, "WMARK_MIN|CPUSET|KSWAPD"; unknown bits in hex. */
size_t sim_alloc_flags_format(unsigned flags, unsigned layout, char *buf, size_t len);
/* Convert flags between layouts (bits a layout has no name for are dropped). */
unsigned sim_alloc_flags_to_kernel(unsigned flags, unsigned layout);

/* ---- Configuration ---------------------------------------------------- */

struct sim_config {
    unsigned nr_cpus;                 /* 1..SIM_MAX_CPUS */
    unsigned nr_nodes;                /* 1..SIM_MAX_NODES */
    unsigned cpu_node[SIM_MAX_CPUS];  /* node of each CPU */
    uint64_t mem_per_node;            /* bytes; a multiple of 4 MiB, at least 4 MiB */
    uint64_t seed;                    /* drives every random choice */
    uint8_t variant[SIM_NR_VARIANTS]; /* SIM_BEFORE or SIM_AFTER */
    enum sim_model model;
    bool freelist_hardened;   /* CONFIG_SLAB_FREELIST_HARDENED */
    bool freelist_random;     /* CONFIG_SLAB_FREELIST_RANDOM */
    unsigned present_cpus;    /* CPUs used for slab sizing (0: nr_cpus) */
    unsigned max_host_memory; /* MiB of host memory the arena may back (0: no limit) */
    uint32_t slab_debug;      /* SIM_SLAB_* debug flags forced on every cache (slab_debug=) */
    enum sim_rcu_mode {
        SIM_RCU_MANUAL,   /* grace periods only when an operation asks */
        SIM_RCU_PERIODIC, /* also one every rcu_gap operations */
        SIM_RCU_RANDOM,   /* also at exponentially distributed gaps of mean rcu_gap */
    } rcu_mode;
    unsigned rcu_gap; /* operations; 1..1000000 when rcu_mode is not manual */
    /* zones beyond each node's ZONE_NORMAL of mem_per_node (node 0 only, as on x86-64) */
    uint64_t dma_bytes;       /* ZONE_DMA: 0 (none), 4, 8, 12 or 16 MiB at physical 0 */
    uint64_t dma32_bytes;     /* ZONE_DMA32: 0 or a multiple of 4 MiB up to 4080 MiB at 16 MiB */
    unsigned min_free_kbytes; /* 0: sqrt(16 * lowmem KiB) clamped to 128..262144, as the kernel */
    unsigned watermark_scale_factor; /* 0: 10 (0.1 % of a zone); at most 3000 */
    bool cma;                 /* CONFIG_CMA: movable requests get ALLOC_CMA (no CMA pages) */
    unsigned reclaim_pages;   /* what one direct reclaim frees (pages of reclaimable
                               * alloc_pages blocks, oldest first); 0: no progress */
    uint8_t alloc_layout;     /* enum sim_alloc_layout */
    bool kswapd;              /* kswapd, once woken, reclaims at the end of the operation
                               * up to each zone's high watermark (same pages as reclaim_pages) */
    enum sim_legacy_era legacy_era; /* the legacy model's era (SIM_ERA_DEFAULT: by variant) */
    enum sim_release release;       /* the release the model was chosen as (outputs name it) */
    bool race_no_tid; /* NOT A KERNEL (race.c): the legacy fast paths' cmpxchg compares
                       * c->freelist alone, without c->tid (the race lab's counterfactual) */
    bool slab_debug_no_higher_order; /* slab_debug=...O: no debug metadata on a cache whose
                                      * slab order it would raise (disable_higher_order_debug) */
    char slab_debug_blocks[SIM_SLAB_DEBUG_MAX]; /* slab_debug= groups that name caches, as
                                                 * the boot option wrote them ("" for none):
                                                 * a named cache gets its group's flags
                                                 * instead of slab_debug (kmem_cache_flags) */
};

/*
 * The kernel's slab_debug= (or slub_debug=) boot option, after the '=':
 * groups separated by ';', each debug letters (F Z P U T, A ignored, O,
 * '-' for none; nothing before a ',' means all of FZPU) and optionally
 * ',' and cache names (a trailing '*' matches a prefix: kmalloc-*).  A
 * group without names sets the flags of every cache (slab_debug); the
 * others are kept for kmem_cache_create (setup_slub_debug,
 * parse_slub_debug_flags).  "" switches everything on, as a bare
 * slab_debug does.  Returns 0, or -EINVAL with the reason in @msg.
 */
int sim_slab_debug_parse(const char *str, struct sim_config *cfg, char *msg, size_t len);

/* 0 when @cfg's zones, watermark parameters and ALLOC layout make a
 * machine; else -EINVAL with the reason in @msg (may be NULL). */
int sim_zones_check(const struct sim_config *cfg, char *msg, size_t len);
/* The min_free_kbytes and watermark_scale_factor @sim's watermarks were made
 * from: the config's, or the kernel's defaults where it leaves them 0. */
unsigned long sim_min_free_kbytes(const struct sim *sim);
unsigned sim_watermark_scale_factor(const struct sim *sim);
/* Fill @cfg with the defaults: 2 CPUs, 1 node, 64 MiB, every variant after,
 * hardened on, random off, seed 1. Cannot fail. */
void sim_config_default(struct sim_config *cfg);
/* Name of a variant ("DEFERRED_FREELIST"); lookup returns -1 when unknown. */
const char *sim_variant_name(unsigned v);
/* True when variant @v changes what model @m does (outputs list only those). */
bool sim_variant_in_model(unsigned v, enum sim_model m);
int sim_variant_lookup(const char *name);
/* SIM_BEFORE or SIM_AFTER for @text ("before", "after", or a variant's own
 * words: GFP_TRANSLATE=coupled|explicit); -1 when @text means neither. */
int sim_variant_value_lookup(unsigned v, const char *text);
const char *sim_model_name(enum sim_model m);
const char *sim_rcu_mode_name(enum sim_rcu_mode m);
int sim_rcu_mode_lookup(const char *name);
int sim_model_lookup(const char *name);
/* Parse a model with an optional era, "sheaves", "legacy" or "legacy:ERA"
 * (ERA_FROZEN_PARTIAL, ERA_DELAYED_FREEZE, ERA_DIRECT_LOAD; the ERA_ prefix
 * and case are optional), or a release ("6.1", "6.12", "7.3": its model, era,
 * variants and switches), into @cfg: model, legacy_era and, for an explicit
 * era, the CPU_PARTIAL_DIRECT_LOAD variant.  Returns 0 or -EINVAL. */
int sim_model_parse(const char *text, struct sim_config *cfg);
/* The effective era of @cfg's legacy model (never SIM_ERA_DEFAULT). */
enum sim_legacy_era sim_legacy_era(const struct sim_config *cfg);
const char *sim_legacy_era_name(enum sim_legacy_era era); /* "ERA_DIRECT_LOAD" */
/* "sheaves", "legacy:ERA_..." or the release ("6.12") for @cfg; returns the length. */
size_t sim_model_format(const struct sim_config *cfg, char *buf, size_t len);
/* Why sim_create() would refuse @cfg's model, era and CPU_PARTIAL_DIRECT_LOAD
 * variant together, or NULL when they agree. */
const char *sim_model_error(const struct sim_config *cfg);
/* A release's name ("6.12"); NULL for SIM_RELEASE_NONE and out of range. */
const char *sim_release_name(enum sim_release r);
/* The release named @name, or SIM_RELEASE_NONE. */
enum sim_release sim_release_lookup(const char *name);
/* Set @cfg's model, era and variants as release @r has them:
 * 0, or -EINVAL for SIM_RELEASE_NONE and out of range. */
int sim_release_apply(enum sim_release r, struct sim_config *cfg);
/* The newest release the engine models: what the lab runs when nothing names
 * a kernel or a model. */
enum sim_release sim_release_newest(void);
/*
 * The release of kernel version @text, "X.Y" or "X.Y.Z" (a point release is
 * its X.Y; with @at_or_below, a suffix as uname -r prints it, "-amd64", is ignored).  @at_or_below:
 * the newest modelled release at or below the version when it has no row of its own (a recorded
 * trace), else only an exact X.Y.  SIM_RELEASE_NONE when the text is no version or no release fits.
 */
enum sim_release sim_kernel_lookup(const char *text, bool at_or_below);
/* "6.1, 6.8, ..., 7.3": the releases, for messages; returns the length. */
size_t sim_release_list(char *buf, size_t len);
/* Whether @cfg's model and era agree with release @r's (a "model" given with a
 * "kernel" must); NULL when they do, else why not. */
const char *sim_release_model_conflict(enum sim_release r, const struct sim_config *model);
/* The variants of @cfg that differ from release @r's row and matter in its
 * model, as "NAME=value,NAME=value" ("" when none); returns the count. */
unsigned sim_release_overrides(enum sim_release r, const struct sim_config *cfg, char *buf,
                               size_t len);

/* ---- Geometry ------------------------------------------------------------ */

struct sim_cache_args;

/* What SLUB computes for a cache at creation (the sysfs geometry files). */
struct sim_geometry {
    unsigned size;           /* slab_size: stride between objects */
    unsigned align;          /* align */
    unsigned inuse, offset, red_left_pad;
    unsigned order, objects; /* order, objs_per_slab */
    unsigned min_order, min_objects;
    unsigned min_partial;
    unsigned sheaf_capacity;
};

/* The geometry of a cache created with @a on a machine with @cpus present
 * CPUs (kernel: calculate_alignment, calculate_sizes, calculate_order, ...).
 * Returns 0 or -EINVAL when no slab order fits. */
int sim_cache_geometry(const struct sim_cache_args *a, unsigned cpus, struct sim_geometry *g);

/* ---- Operations ------------------------------------------------------- */

enum sim_op_kind {
    SIM_OP_CREATE,       /* kmem_cache_create */
    SIM_OP_ALLOC,        /* kmem_cache_alloc / kmem_cache_alloc_node */
    SIM_OP_FREE,         /* kmem_cache_free */
    SIM_OP_KMALLOC,      /* kmalloc / kmalloc_node */
    SIM_OP_KFREE,        /* kfree */
    SIM_OP_ALLOC_BULK,   /* kmem_cache_alloc_bulk */
    SIM_OP_FLUSH_ALL,    /* flush_all: every CPU's sheaves to slabs */
    SIM_OP_SHRINK,       /* kmem_cache_shrink */
    SIM_OP_DESTROY,      /* kmem_cache_destroy */
    SIM_OP_WRITE,        /* the caller writes bytes: a bug on purpose (overflow, use after free) */
    SIM_OP_KFREE_RCU,    /* kfree_rcu(addr) */
    SIM_OP_GRACE_PERIOD, /* one RCU grace period: runs the callbacks queued before it */
    SIM_OP_RCU_BARRIER,  /* kvfree_rcu_barrier: flush rcu_free sheaves, run every callback */
    SIM_OP_PREFILL,      /* kmem_cache_prefill_sheaf(cache, count): res.sheaf */
    SIM_OP_ALLOC_FROM_SHEAF, /* kmem_cache_alloc_from_sheaf(cache, sheaf): res.addr */
    SIM_OP_REFILL_SHEAF,     /* kmem_cache_refill_sheaf(cache, &sheaf, count): res.sheaf */
    SIM_OP_RETURN_SHEAF,     /* kmem_cache_return_sheaf(cache, sheaf) */
    SIM_OP_FREE_BULK,        /* kmem_cache_free_bulk(cache, count, in) */
    SIM_OP_ALLOC_PAGES, /* alloc_pages_node(node, gfp, order) by a user other than SLUB: res.addr */
    SIM_OP_FREE_PAGES,  /* __free_pages(addr, order) of a block SIM_OP_ALLOC_PAGES gave */
    SIM_OP_RACE,        /* contexts interleaved step by step by a schedule (race.c): op.race */
    SIM_OP_VALIDATE,    /* validate_slab_cache: what /sys/kernel/slab/C/validate runs */
    SIM_OP_KREALLOC,    /* krealloc(addr, size, gfp): res.addr */
    SIM_NR_OPS
};

struct sim_cache_args {
    char name[SIM_NAME_MAX];
    unsigned object_size;
    unsigned align;          /* 0: none requested */
    uint32_t flags;          /* SIM_SLAB_* */
    bool ctor;               /* the cache has a constructor */
    bool use_freeptr_offset; /* kmem_cache_args.use_freeptr_offset */
    unsigned freeptr_offset;
    unsigned sheaf_capacity; /* requested (kmem_cache_args.sheaf_capacity) */
    unsigned cpu_partial;    /* legacy model: sysfs cpu_partial in objects, 0 computed */
    bool set_order;          /* write sysfs order (0..3) after creation */
    unsigned order;
};

struct sim_op {
    enum sim_op_kind kind;
    unsigned cpu;          /* the CPU the operation runs on */
    int cache;             /* cache id (creation order); unused by kmalloc/kfree */
    int node;              /* SIM_NUMA_NO_NODE or a node id */
    uint32_t gfp;          /* 0 means GFP_KERNEL */
    unsigned size;         /* kmalloc, krealloc: bytes requested; alloc: the caller's
                            * requested size (0: object_size), kept as orig_size */
    sim_addr_t addr;       /* free, kfree */
    unsigned count;        /* alloc_bulk: objects wanted; write: bytes written */
    uint8_t byte;          /* write: the value written */
    sim_addr_t *out;       /* alloc_bulk: caller's array of count entries */
    const sim_addr_t *in;  /* free_bulk: the count objects to free */
    uint32_t sheaf;        /* alloc_from_sheaf, refill_sheaf, return_sheaf: a prefilled sheaf id */
    struct sim_cache_args create;
    unsigned order;        /* alloc_pages, free_pages */
    uint8_t context;       /* enum sim_gfp_context of the caller (0: task) */
    const struct sim_race *race; /* race: the contexts and the schedule */
};

/*
 * Races (race.c, docs/engine.md "Races").  A race runs two or three
 * contexts (a task on a CPU, an interrupt on a CPU) whose operations are
 * split into the atomic steps the kernel's lock-free fast paths consist of,
 * interleaved by a schedule: whitespace-separated tokens, "A" one step of
 * context A, "A*" A to its end, "A>1" task A migrates to CPU 1, "I!" the
 * interrupt I arrives (its irq_enter step).  Steps the schedule leaves over
 * run in context order.  Plain data, no pointers: a race is copied whole.
 */
#define SIM_RACE_MAX_CTX  3
#define SIM_RACE_MAX_OPS  6
#define SIM_RACE_SCHEDULE 256 /* bytes of the schedule, NUL included */
#define SIM_RACE_ID_MAX   8

enum sim_race_kind { SIM_RACE_TASK, SIM_RACE_IRQ };

struct sim_race_op {
    uint8_t kind;    /* SIM_OP_ALLOC, SIM_OP_FREE, or SIM_OP_FLUSH_ALL: this CPU's cpu slab
                      * (flush_slab) or sheaves only */
    int8_t ref;      /* free: index of an earlier alloc of the same context whose object it
                      * frees, or -1 (then addr) */
    sim_addr_t addr; /* free with ref < 0: the object */
};

struct sim_race_ctx {
    char id[SIM_RACE_ID_MAX]; /* "A": letters and digits */
    unsigned cpu;             /* the CPU it starts on */
    uint8_t kind;             /* enum sim_race_kind */
    unsigned nr_ops;          /* 1..SIM_RACE_MAX_OPS */
    struct sim_race_op ops[SIM_RACE_MAX_OPS];
};

struct sim_race {
    unsigned nr_ctx; /* 2..SIM_RACE_MAX_CTX */
    struct sim_race_ctx ctx[SIM_RACE_MAX_CTX];
    char schedule[SIM_RACE_SCHEDULE];
};

/* What a race did (in struct sim_result). */
struct sim_race_result {
    sim_addr_t addr[SIM_RACE_MAX_CTX][SIM_RACE_MAX_OPS]; /* each alloc's object, 0 if none */
    unsigned steps;                                      /* steps run */
    unsigned runnable;     /* bit i: context i could step when the schedule's tokens ended */
    bool done_at_end;      /* every context had finished when the schedule's tokens ended */
    unsigned lost_updates; /* NO_TID: cmpxchgs that matched a stale freelist */
};

enum sim_status {
    SIM_OK,     /* the operation did what was asked */
    SIM_FAILED, /* a simulated failure: out of memory, cache busy; state is consistent */
    SIM_MISUSE, /* the kernel reports misuse; the state is unchanged (debug
                 * caches repair corrupted bytes, as the kernel does) */
    SIM_CRASHED, /* the kernel would fault here: the machine stops; later
                  * operations fail with -EIO */
};

struct sim_result {
    enum sim_status status;
    sim_addr_t addr;   /* alloc, kmalloc: the object */
    unsigned count;    /* alloc_bulk: objects written to op.out */
    uint32_t sheaf;    /* prefill, refill_sheaf: the caller's sheaf id (0: none) */
    int cache;         /* create: the new cache id; kmalloc: the cache used */
    char message[2048]; /* for SIM_FAILED, SIM_MISUSE and SIM_CRASHED: the kernel's words */
    struct sim_race_result race; /* race */
};

/* ---- Events ----------------------------------------------------------- */

enum sim_place_type {
    SIM_PL_NONE,         /* nowhere yet / no longer (a fresh or freed sheaf) */
    SIM_PL_USER,         /* held by the caller (allocated) */
    SIM_PL_SLAB,         /* on its slab's freelist (free) */
    SIM_PL_MAIN,         /* CPU's main sheaf */
    SIM_PL_SPARE,        /* CPU's spare sheaf */
    SIM_PL_RCU_FREE,     /* CPU's rcu_free sheaf */
    SIM_PL_BARN_FULL,    /* barn's full list */
    SIM_PL_BARN_EMPTY,   /* barn's empty list */
    SIM_PL_BARN_PARTIAL, /* barn's partial sheaf (BARN_REFILL after) */
    SIM_PL_NODE_PARTIAL, /* node's partial list */
    SIM_PL_NODE_FULL,    /* node's full list (debug caches with SLAB_STORE_USER) */
    SIM_PL_FULL,         /* a slab on no list: all objects in use */
    SIM_PL_PAGES,        /* the page allocator */
    SIM_PL_INFLIGHT,     /* held by an unfinished operation */
    SIM_PL_RCU_PENDING,  /* waiting for an RCU grace period */
    SIM_PL_PREFILL,      /* a prefilled sheaf held by a caller */
    SIM_PL_CPU_SLAB,     /* legacy: a CPU's cpu slab (c->slab) */
    SIM_PL_CPU_FREELIST, /* legacy: on a CPU's lockless freelist (c->freelist); slab set */
    SIM_PL_CPU_PARTIAL,  /* legacy: a CPU's partial list (c->partial); slot: position */
    SIM_NR_PLACES
};
const char *sim_place_name(unsigned type);

struct sim_place {
    uint8_t type;    /* enum sim_place_type */
    int16_t cpu;     /* for CPU places, else -1 */
    int16_t node;    /* for node and barn places, else -1 */
    int32_t slot;    /* index in a sheaf or position in a list; -1 if none */
    sim_addr_t slab; /* SIM_PL_SLAB: the slab; else 0 */
    uint32_t sheaf;  /* object in a sheaf: the sheaf id; else 0 */
};

enum sim_move_kind { SIM_MOVE_OBJECT, SIM_MOVE_SLAB, SIM_MOVE_SHEAF };

struct sim_move {
    uint8_t kind; /* enum sim_move_kind */
    uint64_t id;  /* object or slab address, or sheaf id */
    struct sim_place from, to;
};

struct sim_stat_delta {
    uint16_t item; /* enum sim_stat_item */
    int64_t delta;
};

/* A page allocator decision (__alloc_pages), attached to the event that
 * asked for the pages and to the allocator's own notable events. */
struct sim_page_alloc {
    uint32_t gfp;          /* the mask the page allocator saw */
    unsigned order;
    unsigned alloc_flags;  /* of the attempt that decided (machine's layout) */
    int node;              /* zone that served it (or the last one tested) */
    unsigned zone;         /* enum sim_zone_type */
    int preferred_node;    /* first zone of the zonelist */
    unsigned preferred_zone;
    unsigned highest_zone; /* gfp_zone() */
    unsigned migratetype;
    const char *path;      /* "fast", "slow", "reserve", "reclaim", "oom_probe", "nofail" */
    const char *mark;      /* watermark tested: "min", "low", "high" or "none" */
    unsigned long free;    /* free pages of that zone before the allocation */
    long threshold;        /* free - (2^order - 1) had to exceed this (cut mark + lowmem reserve) */
    sim_addr_t addr;       /* the block, or 0 when the allocation failed */
    bool pfmemalloc;       /* taken ignoring watermarks */
    unsigned layout;       /* enum sim_alloc_layout of alloc_flags */
};

/*
 * Branch records.  At a decision the kernel takes (main sheaf empty on
 * alloc, a slab's fate after a free, a new slab's order, a zone's
 * watermark...) the engine records which arm it took; the record rides on
 * the next event the engine emits, the one that shows the arm's outcome.
 * The table of branch points is static: sim_branch_points().
 */
struct sim_branch_arm {
    const char *name;
    /* the events this arm leads to, NULL-terminated: "fn" (any label) or
     * "fn/label"; the event carrying a record of this arm matches one */
    const char *const *events;
};

struct sim_branch_point {
    const char *name; /* e.g. "alloc_main_empty" */
    const char *fn;   /* the kernel function that decides */
    const struct sim_branch_arm *arms;
    size_t nr_arms;
};

struct sim_branch {
    const struct sim_branch_point *point;
    unsigned taken; /* index in point->arms */
};

/* The table of branch points, in the order records are listed on an event
 * (the more specific decision first); *@n gets its length.  Cannot fail. */
const struct sim_branch_point *sim_branch_points(size_t *n);
/* The point named @name, or NULL. */
const struct sim_branch_point *sim_branch_point_lookup(const char *name);
/* Whether an event @fn/@label matches one of @arm's event patterns. */
bool sim_branch_arm_matches(const struct sim_branch_arm *arm, const char *fn, const char *label);

/* A shared word a race step read or wrote (race.c). */
struct sim_word {
    const char *word; /* "c->freelist", "c->tid", "c->slab", "slab->freelist",
                       * "slab->counters", "object->next", "pcs->lock", "barn->lock" */
    int cpu;          /* per-CPU words: the CPU, else -1 */
    int node;         /* barn->lock: the node, else -1 */
    sim_addr_t slab;  /* slab words: the slab, else 0 */
    sim_addr_t addr;  /* object->next: the object, else 0 */
    uint64_t old;     /* writes: the value before */
    uint64_t value;   /* reads: the value read; writes: the value written */
};

#define SIM_STEP_WORDS 4

/* One atomic step of a race's context. */
struct sim_step {
    const char *ctx;  /* the context's id */
    unsigned index;   /* 0, 1, ... within the context */
    const char *kind; /* "read_tid", "read_freelist", "read_next", "cmpxchg", "cmpxchg_fail",
                       * "lock", "trylock_fail", "spin", "unlock", "migrate", "irq_enter",
                       * "irq_exit", "done" */
    struct sim_word reads[SIM_STEP_WORDS];
    unsigned nr_reads;
    struct sim_word writes[SIM_STEP_WORDS];
    unsigned nr_writes;
};

/*
 * A choice point (choice.c): where the kernel's outcome depends on something
 * outside SLUB, one of nr_options options is taken; option 0 is the
 * engine's default, what it does when nobody steers it.
 */
enum sim_choice_kind {
    SIM_CHOICE_FLUSH_ORDER, /* flush_all(): the order of the per-CPU flush works */
    SIM_CHOICE_RCU_WORKER,  /* kfree_rcu's batch: the CPU its unbound worker runs on */
    SIM_CHOICE_REMOTE_DRAW, /* get_any_partial(): the get_cycles() draw for another node */
    SIM_NR_CHOICES,
};

struct sim_choice {
    uint64_t op;         /* the operation that reached it */
    unsigned kind;       /* enum sim_choice_kind */
    uint64_t nr_options; /* >= 2 */
    uint64_t taken;      /* 0 .. nr_options - 1; 0 is the default */
    char text[160];      /* "flush_all: CPUs 1, 0: order 2 of 2" */
    unsigned nth;        /* points of this kind its operation reached before it */
    /* what sim_choice_text() needs to say any option */
    uint8_t cpus[SIM_MAX_CPUS]; /* flush_order: the CPUs with work, in the default order */
    unsigned nr_cpus;           /* flush_order: how many; rcu_worker: the machine's CPUs */
    int cpu;                    /* rcu_worker: the CPU that queued the objects */
    bool verdict;               /* remote_draw: the seeded draw's verdict (the default) */
    const char *caller;         /* remote_draw: the kernel function that draws */
};

/* The sentence of option @option of @c (what @c->text says of @c->taken)
 * into @buf of @len bytes, truncated.  Cannot fail. */
void sim_choice_text(const struct sim_choice *c, uint64_t option, char *buf, size_t len);

/* A choice fixed in advance: the @nth point of @kind (0: the first) that
 * operation @op reaches takes @option (modulo its options). */
struct sim_choice_pin {
    uint64_t op;
    unsigned kind; /* enum sim_choice_kind */
    unsigned nth;
    uint64_t option;
};

/* "flush_order", "rcu_worker", "remote_draw"; NULL past the last. */
const char *sim_choice_name(unsigned kind);

struct sim_event {
    uint64_t seq;   /* 0, 1, 2, ... over the machine's lifetime */
    uint64_t op;    /* index of the operation that caused it */
    int cpu;        /* CPU the operation runs on */
    int node;       /* the node concerned, or -1 */
    int cache;      /* cache id, or -1 */
    const char *fn; /* kernel function, spelled as in mm/slub.c */
    const char *label;
    const struct sim_move *moves;
    size_t nr_moves;
    const struct sim_stat_delta *stats;
    size_t nr_stats;
    const char *report; /* SLUB's report for misuse, else NULL */
    const struct sim_page_alloc *page; /* page allocator decision, else NULL */
    const struct sim_branch *branches; /* decisions this event shows, in table order */
    size_t nr_branches;
    const char *ctx;             /* inside a race: the context that runs, else NULL */
    const struct sim_step *step; /* a race's step: the step it is, else NULL */
    const struct sim_choice *choice; /* a choice point taken since the last event, else NULL */
};

typedef void (*sim_event_fn)(const struct sim_event *ev, void *arg);

/* ---- Lifecycle -------------------------------------------------------- */

/* Create a machine.  Returns 0 or -EINVAL (bad config) / -ENOMEM. */
int sim_create(const struct sim_config *cfg, struct sim **out);
/* Destroy a machine; NULL is fine. */
void sim_destroy(struct sim *sim);
/* Copy; costs in proportion to live metadata and touched pages.  Page bytes
 * are shared with @src, copy on write: each machine copies a shared page the
 * first time it writes it.  Several threads may clone one machine at once,
 * but no one may change it meanwhile.  The clone has no event callback.
 * Returns 0 or -ENOMEM. */
int sim_clone(const struct sim *src, struct sim **out);
/* Host bytes the machine holds (what a sim_clone() of it allocates once it
 * has written every page), each allocation counted with SIM_HOST_OVERHEAD
 * bytes of the host allocator's own.  A page shared with clones counts in
 * full for each holder, so the sum over machines errs on the safe side.
 * Its cost grows with the caches and zones, not with the objects or
 * sheaves: a server asks it after every operation of a build.
 * Cannot fail. */
#define SIM_HOST_OVERHEAD 16u
uint64_t sim_host_bytes(const struct sim *sim);
/*
 * A machine as bytes (engine/image.c, docs/image.md): what a checkpoint on
 * disk holds.  Meta is everything but page contents; pages are listed apart.
 */
struct sim_image_page {
    sim_addr_t addr; /* the page's address (SIM_PAGE_SIZE aligned) */
    /* SIM_PAGE_SIZE bytes, pointing into the machine: valid until it changes */
    const uint8_t *bytes;
};
struct sim_image {
    void *meta; /* everything but page contents; owned, malloc'd */
    size_t meta_len;
    /* every page whose bytes are host memory, by address; owned array */
    struct sim_image_page *pages;
    size_t nr_pages;
};
/* Serialize @sim (between operations; -EBUSY inside one, -EIO if broken or
 * halted).  0 or -ENOMEM; *@out is written only on success. */
int sim_image_save(const struct sim *sim, struct sim_image *out);
/* Free what sim_image_save() put in @img (not the machine's pages); NULL is fine. */
void sim_image_release(struct sim_image *img);
/* Rebuild a machine from @meta; @page is called once per page listed in meta (in address order)
 * to fill SIM_PAGE_SIZE bytes at @dst; a non-zero return from it aborts with that value.
 * The result is what sim_clone() of the saved machine would be (no event callback set).
 * 0, -ENOMEM, -EINVAL (meta malformed, truncated, or from another format: never crash on bad
 * input), or @page's error. */
int sim_image_load(const void *meta, size_t meta_len,
                   int (*page)(void *arg, sim_addr_t addr, uint8_t *dst), void *arg,
                   struct sim **out);
/*
 * As sim_image_load(), but @page gives each page's bytes instead of filling
 * the machine's: in *@bytes, with one hold that the machine takes over.
 * They are a buffer from sim_page_bytes_new() that it filled, or bytes it
 * holds already (a cache of pages read back), held once more with
 * sim_page_bytes_hold(): the machine then shares them, and copies a page
 * before it first writes it.  A load from such a cache copies no page.
 */
int sim_image_load_shared(const void *meta, size_t meta_len,
                          int (*page)(void *arg, sim_addr_t addr, const uint8_t **bytes), void *arg,
                          struct sim **out);
/* SIM_PAGE_SIZE bytes, uninitialised, held once, for sim_image_load_shared();
 * NULL when the host is out of memory.  Any thread. */
uint8_t *sim_page_bytes_new(void);
/* One more holder of bytes from sim_page_bytes_new(), or of a page's bytes
 * that sim_image_save() listed: @bytes back.  Held bytes stay as they are:
 * a machine copies a page it shares before it writes it.  Cannot fail. */
const uint8_t *sim_page_bytes_hold(const uint8_t *bytes);
/* One holder fewer: the last frees them.  NULL is fine. */
void sim_page_bytes_drop(const uint8_t *bytes);
/* The image format's tag: changes whenever an image saved by another build could be read wrongly
 * (format version, struct sizes/layouts, engine version); the store keys images by it. */
const char *sim_image_tag(void);
/* Set (or with NULL clear) the event callback.  Cannot fail. */
void sim_set_event_cb(struct sim *sim, sim_event_fn fn, void *arg);
/*
 * Steer the choice points reached from now on (choice.c): the i-th takes
 * @script[i] modulo its options while i < @n, the later ones their default
 * (0), or, with @sample_seed nonzero, a draw from a generator seeded with
 * it, not the machine's.  Clears the log sim_choices_taken() reads, and
 * starts it.  0 or -ENOMEM.
 */
int sim_choices_set(struct sim *sim, const uint64_t *script, size_t n, uint64_t sample_seed);
/* The choice points reached since sim_choices_set(), in order (none before
 * it is called).  Cannot fail. */
const struct sim_choice *sim_choices_taken(const struct sim *sim, size_t *nr);
/*
 * Fix the options of the points @pins name, replacing any pinned before; a
 * pin wins over sim_choices_set()'s script and sample.  Unlike the script,
 * pins are copied by sim_clone() (not by images).  0 or -ENOMEM.
 */
int sim_choices_pin(struct sim *sim, const struct sim_choice_pin *pins, size_t n);
const struct sim_config *sim_get_config(const struct sim *sim);

/*
 * Apply one operation.  Returns 0 when the operation was carried out or
 * reported (see res->status), -EINVAL when the operation is invalid
 * (unknown cache, CPU or node out of range, absurd size), with the reason in
 * res->message; the state is then unchanged and no event is emitted.
 */
int sim_apply(struct sim *sim, const struct sim_op *op, struct sim_result *res);

uint64_t sim_event_count(const struct sim *sim); /* events emitted so far */
uint64_t sim_op_count(const struct sim *sim);    /* operations applied so far */

/* ---- Inspection ------------------------------------------------------- */

unsigned sim_nr_caches(const struct sim *sim);
/* Cache id of @name (kmalloc caches included once created), or -1. */
int sim_cache_lookup(const struct sim *sim, const char *name);
/* Sum of counter @item of cache @cache over all CPUs (or one CPU, cpu >= 0);
 * 0 on a machine broken by an earlier -ENOMEM of sim_apply(). */
uint64_t sim_stat(const struct sim *sim, int cache, unsigned item, int cpu);

/* Copy @len bytes of simulated memory at @addr.  Returns 0 or -EFAULT. */
int sim_read_bytes(const struct sim *sim, sim_addr_t addr, void *buf, size_t len);
/* Write bytes (scenarios that corrupt memory on purpose).  0 or -EFAULT. */
int sim_write_bytes(struct sim *sim, sim_addr_t addr, const void *buf, size_t len);

struct sim_freeptr {
    sim_addr_t at;      /* address of the stored word */
    uint64_t stored;    /* the word in memory */
    sim_addr_t decoded; /* what it decodes to */
};
/* Read the free pointer of free object @obj of cache @cache.  0 or -EINVAL. */
int sim_read_freeptr(const struct sim *sim, int cache, sim_addr_t obj, struct sim_freeptr *fp);

/* ---- Snapshot ----------------------------------------------------------- */

struct sim_snap_stats {
    uint64_t v[SIM_NR_STATS];
};

struct sim_snap_sheaf {
    uint32_t id;
    int cache;
    struct sim_place place; /* where it is (slot: position in a list) */
    unsigned size, capacity;
    size_t objs; /* first object in sim_snapshot.objs */
};

struct sim_snap_slab {
    sim_addr_t addr; /* address of the first page; also the slab id */
    int cache;
    unsigned seq; /* the cache's slab number in order of creation: its name S<seq> */
    int node;
    unsigned order, objects, inuse;
    struct sim_place place; /* SIM_PL_NODE_PARTIAL, NODE_FULL, FULL or INFLIGHT */
    size_t freelist;        /* first free object (freelist order) in sim_snapshot.objs */
    unsigned nr_free;       /* objects - inuse, or fewer if the chain is corrupt */
    sim_addr_t freelist_head;
};

struct sim_snap_barn {
    unsigned nr_full, nr_empty;
    uint32_t partial; /* sheaf id or 0 */
};

struct sim_snap_node {
    unsigned nr_partial;
    unsigned long nr_slabs, total_objects;
};

struct sim_snap_cache {
    int id;
    char name[SIM_NAME_MAX];
    unsigned object_size, size, align, inuse, offset, red_left_pad;
    uint32_t flags;
    unsigned order, objects_per_slab, min_order, min_objects;
    unsigned min_partial, sheaf_capacity;
    uint64_t random; /* hardening secret */
    bool alive;      /* false after destroy */
    unsigned slab_errors; /* SLUB's reports so far (object_err, slab_err, slab_fix) */
    /* slab-state files (docs/export.md): sums over nodes */
    unsigned long slabs, total_objects, objects, partial, objects_partial;
    struct sim_snap_node node[SIM_MAX_NODES];
    struct sim_snap_barn barn[SIM_MAX_NODES];
    uint32_t main[SIM_MAX_CPUS], spare[SIM_MAX_CPUS], rcu_free[SIM_MAX_CPUS];
    struct sim_snap_stats cpu_stats[SIM_MAX_CPUS];
    /* legacy model (zero in the sheaves model) */
    bool has_cpu_slab; /* a cpu slab per CPU (not a debug cache) */
    unsigned cpu_partial, cpu_partial_slabs;
    struct sim_snap_cpu_slab {
        sim_addr_t slab;      /* c->slab, 0 when none */
        uint64_t tid;
        size_t freelist;      /* first object of c->freelist in sim_snapshot.objs */
        unsigned nr_freelist; /* objects on c->freelist */
        unsigned nr_partial;  /* slabs on c->partial; each slab's place.slot is its position */
    } cpu_slab[SIM_MAX_CPUS];
};

struct sim_snap_zone {
    int node;
    const char *name;    /* "DMA", "DMA32", "Normal" */
    uint64_t start;      /* first address */
    unsigned long pages; /* managed pages */
    unsigned long free_pages;
    unsigned long nr_free[SIM_MAX_ORDER + 1]; /* free blocks per order */
    unsigned type;       /* enum sim_zone_type */
    unsigned long watermark[SIM_NR_WMARK];           /* min, low, high, promo */
    unsigned long lowmem_reserve[SIM_NR_ZONE_TYPES]; /* against requests that could use zone j */
    unsigned long user_pages; /* pages held by SIM_OP_ALLOC_PAGES users */
};

struct sim_snapshot {
    uint64_t seq, op;
    unsigned nr_cpus, nr_nodes;
    unsigned cpu_node[SIM_MAX_CPUS];
    struct sim_snap_cache *caches;
    size_t nr_caches;
    struct sim_snap_slab *slabs; /* by cache, then node, then address */
    size_t nr_slabs;
    struct sim_snap_sheaf *sheaves; /* by id */
    size_t nr_sheaves;
    struct sim_snap_zone *zones;
    size_t nr_zones;
    sim_addr_t *objs; /* sheaf contents and freelists, referenced by index */
    size_t nr_objs;
    sim_addr_t *inflight; /* objects held by an unfinished operation */
    size_t nr_inflight;
    sim_addr_t *rcu_objs; /* objects waiting in the non-sheaf kfree_rcu path, in queue order */
    size_t nr_rcu_objs;
    unsigned nr_rcu_callbacks; /* callbacks waiting for a grace period */
    enum sim_model model;      /* the machine's model: which kernel's files to show */
};

/* A plain-data copy of the whole state; may be called from the event callback.
 * Caller owns *out; release with sim_snapshot_release().  0 or -ENOMEM, or
 * -EIO on a machine broken by an earlier -ENOMEM of sim_apply(). */
int sim_snapshot(const struct sim *sim, struct sim_snapshot **out);
void sim_snapshot_release(struct sim_snapshot *snap);

/* What a gfp mask decides on this machine (the `slublab gfp` table). */
struct sim_gfp_zone_mark {
    int node;
    unsigned zone; /* enum sim_zone_type */
    unsigned long free_pages;
    unsigned long watermark[SIM_NR_WMARK];
    unsigned long lowmem_reserve; /* against the request's highest zone */
    long fast_threshold;          /* low + lowmem_reserve */
    long slow_threshold;          /* min cut by the slow-path flags + lowmem_reserve */
    long retry_threshold;         /* after pfmemalloc_flags; -1: no watermark at all */
};

struct sim_gfp_decoding {
    uint32_t gfp;
    unsigned order;
    unsigned zone;        /* gfp_zone(), mapped to a zone the machine has */
    unsigned migratetype;
    unsigned fast_flags;  /* first attempt: WMARK_LOW, nofragment, CMA */
    unsigned slow_flags;  /* gfp_to_alloc_flags() */
    unsigned retry_flags; /* the retry's flags: slow_flags unless pfmemalloc_flags replaces them */
    bool can_reclaim, costly;
    unsigned nr_zones;    /* zonelist of the node asked for, in order */
    struct sim_gfp_zone_mark zones[SIM_MAX_NODES * SIM_NR_ZONE_TYPES];
};

/* Decode @gfp for an allocation of @order on @node (SIM_NUMA_NO_NODE: 0)
 * in context @ctx (cma is taken from the machine).  Returns 0, or -EINVAL
 * with a reason in @msg for a mask sim_gfp_check() refuses. */
int sim_gfp_decode(const struct sim *sim, uint32_t gfp, unsigned order, int node,
        enum sim_gfp_context ctx, struct sim_gfp_decoding *out, char *msg, size_t len);

/* ---- Validation ----------------------------------------------------------- */

enum sim_validate_level {
    SIM_VALIDATE_EVENT, /* holds after every event, mid-operation included */
    SIM_VALIDATE_OP,    /* adds the invariants that hold between operations */
};

#define SIM_REPORT_MSGS 8
struct sim_report {
    unsigned violations;
    char msg[SIM_REPORT_MSGS][200]; /* the first few */
};

/* Walk everything; returns the number of violations (also in rep).  A machine
 * broken by an earlier -ENOMEM of sim_apply() is one violation. */
unsigned sim_validate(const struct sim *sim, enum sim_validate_level level,
        struct sim_report *rep);

/* ---- Test hooks ---------------------------------------------------------- */

/* Make the @n-th host allocation from now fail (0 disables). */
void sim_fail_host_alloc(struct sim *sim, unsigned long n);
/* Make page allocations fail for orders >= @order (-1 disables). */
void sim_fail_pages(struct sim *sim, int order);

#endif /* SLUBLAB_ENGINE_SLUB_H */
