/*
 * types.h: every internal structure of the engine, with its invariants.
 *
 * A guide to the main structures:
 *   struct sim          the machine: CPUs, nodes, zones, the pools below,
 *                       the random generator and the event being built.
 *   struct sim_page     one 4 KiB page: its bytes (backed on first write),
 *                       its buddy state and the slab it belongs to.
 *   struct zone         a buddy allocator over a contiguous range of pages.
 *   struct kmem_cache   a cache: geometry, per-CPU sheaves, per-node lists
 *                       and barns, per-CPU counters.
 *   struct slab         a slab in the slab pool; its id is its pool index,
 *                       its public name the address of its first page.
 *   struct slab_sheaf   a sheaf in the sheaf pool; its public id is its
 *                       creation number.
 *
 * Lists link pool indices (list.h).  Each invariant below names the check in
 * validate.c that enforces it.
 */
#ifndef SLUBLAB_ENGINE_TYPES_H
#define SLUBLAB_ENGINE_TYPES_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "list.h"
#include "slub.h"

#define PAGE_SHIFT        12
#define PAGE_SIZE         4096u
#define MAX_PAGE_ORDER    10
#define MAX_OBJS_PER_PAGE 32767u
#define MIN_PARTIAL       5u
#define MAX_PARTIAL       10u
#define MAX_FULL_SHEAVES  10u
#define MAX_EMPTY_SHEAVES 10u
#define PCS_BATCH_MAX     32u
#define SLUB_MAX_ORDER    3u
#define SLUB_MIN_ORDER    0u
#define CACHE_LINE_SIZE   64u
#define ARCH_SLAB_MINALIGN 8u
#define SHRINK_PROMOTE_MAX 32u
#define SHEAF_HEADER_SIZE 32u
#define TRACK_SIZE        32u
#define REMOTE_NODE_DEFRAG_RATIO 1000u

#define DIRECT_MAP_BASE 0xffff888000000000ull
#define PHYS_START      0x100000000ull /* ZONE_NORMAL starts at 4 GiB on x86-64 */
#define SIM_NULL        ((sim_addr_t)0)

/* Always compiled in; only for states no input can reach. */
#define SIM_BUG_ON(cond)                                                                           \
    do {                                                                                           \
        if (cond)                                                                                  \
            sim_bug(__FILE__, __LINE__, #cond);                                                    \
    } while (0)
void sim_bug(const char *file, int line, const char *cond) __attribute__((noreturn));

/* ---- Pages and zones ---------------------------------------------------- */

#define PAGE_BUDDY_NONE 0xff /* page is not the head of a free buddy block */

struct sim_page {
    uint8_t *bytes;       /* host copy of the page; NULL reads as zeros; may be shared with
                           * clones (holders counted before it, mem.c), so written only
                           * through mem_write() */
    uint32_t slab;        /* slab pool index for every page of a slab, else 0 */
    uint32_t prev, next;  /* free_area list links (zone-relative pfn + 1); valid iff buddy */
    uint8_t buddy;        /* order of the free block this page heads, or PAGE_BUDDY_NONE */
    uint8_t user;         /* order + 1 of the SIM_OP_ALLOC_PAGES block this page heads, or 0;
                           * never with buddy or slab; validate_zones() */
    bool loading;         /* only inside sim_image_load(): the image gives this page bytes,
                           * which load_pages() asks for next */
};

/* Host bytes of one page's buffer: PAGE_BYTES_HDR bytes of holder count
 * (mem.c), then the PAGE_SIZE bytes that struct sim_page.bytes points at. */
#define PAGE_BYTES_HDR   16u
#define PAGE_BYTES_BLOCK (PAGE_BYTES_HDR + PAGE_SIZE)

/* Pages are described in chunks of one max-order block, created when that
 * block is first handed out: memory never touched costs nothing. */
#define CHUNK_PAGES (1u << MAX_PAGE_ORDER)

struct free_area {
    uint32_t head;  /* zone-relative pfn + 1 of the first free block, 0 if none */
    unsigned long nr_free; /* blocks on the list; checked by validate_zone() */
};

struct zone {
    int node;
    uint8_t type;             /* enum sim_zone_type; zones[n] is node n's ZONE_NORMAL */
    unsigned long wmark[SIM_NR_WMARK]; /* min <= low <= high <= promo; validate_zones() */
    unsigned long lowmem_reserve[SIM_NR_ZONE_TYPES]; /* 0 for types <= own type */
    unsigned long user_pages; /* pages held by alloc_pages users; validate_zones() */
    sim_addr_t start;         /* address of the first page */
    unsigned long pages;      /* managed pages, a multiple of CHUNK_PAGES */
    unsigned long free_pages; /* == sum of nr_free[o] << o + untouched pages */
    unsigned long untouched;  /* chunks at and after this index were never handed out */
    struct free_area area[MAX_PAGE_ORDER + 1];
    struct sim_page **chunk;  /* [pages / CHUNK_PAGES]; NULL while untouched */
};

/* ---- Slabs ----------------------------------------------------------------- */

enum slab_list {
    SLAB_ON_NONE,    /* full: every object is in use; on no list */
    SLAB_ON_PARTIAL, /* on node->partial (SL_partial) */
    SLAB_ON_FULL,    /* on node->full (debug caches with SLAB_STORE_USER) */
    SLAB_ON_PRIVATE, /* taken by an unfinished operation (refill, new slab) */
    SLAB_ON_RCU,     /* discarded SLAB_TYPESAFE_BY_RCU slab: pages freed after a grace period */
    SLAB_ON_CPU,     /* legacy: the cpu slab of CPU slab->cpu (frozen) */
    SLAB_ON_CPU_PARTIAL, /* legacy: on CPU slab->cpu's partial list, linked by next */
};

struct slab {
    struct ilink link;     /* in node->partial / node->full iff list says so */
    int cache;             /* owning cache id; -1 while the pool entry is free */
    int node;
    unsigned seq;          /* the cache's slab number, from 0 in order of creation
                            * (its name S<seq>); never reused; below the
                            * cache's nr_created, checked by validate_slab() */
    sim_addr_t base;       /* address of the first page (and of slot 0) */
    uint8_t order;
    uint8_t list;          /* enum slab_list */
    bool frozen;           /* debug failure: leaked, never on a list */
    bool fresh;            /* DEFERRED_FREELIST after: objects not yet emitted have
                            * no freelist yet; only between new_slab and
                            * build_slab_freelist, while list == SLAB_ON_PRIVATE */
    bool accounted;        /* counted in node->nr_slabs (from alloc_from_new_slab on) */
    unsigned objects;      /* capacity; oo.objects or min.objects after fallback */
    unsigned inuse;        /* objects - |freelist|; checked by validate_slab() */
    sim_addr_t freelist;   /* first free object or SIM_NULL; rest chained in memory */
    int nr_user;           /* engine bookkeeping: objects held by users; may go
                            * negative after a double free the kernel missed */
    /* legacy model only; validate_legacy() */
    bool cpu_frozen;       /* the kernel's frozen bit: owned by one CPU (a cpu slab;
                            * era FROZEN_PARTIAL also a cpu partial slab) */
    int cpu;               /* list SLAB_ON_CPU / SLAB_ON_CPU_PARTIAL: the CPU, else -1 */
    uint32_t next;         /* on a cpu partial list: the next slab, 0 at the end */
    unsigned slabs;        /* on a cpu partial list: its length when this slab was pushed
                            * (exact in the head) */
};

/* ---- Sheaves ---------------------------------------------------------------- */

struct slab_sheaf {
    struct ilink link;     /* in a barn list iff place is BARN_FULL/BARN_EMPTY */
    uint32_t id;           /* creation number, from 1; 0 while the pool entry is free */
    int cache;
    unsigned size;         /* valid pointers in objects[]; <= capacity */
    unsigned capacity;     /* slots in objects[] */
    int rcu_node;          /* RCU sheaves: barn that receives it after the grace period */
    bool pfmemalloc;
    struct sim_place place; /* where it is; kept in sync by every move */
    sim_addr_t *objects;   /* [capacity], owned by the sheaf */
};

/* ---- Caches ----------------------------------------------------------------- */

struct slub_percpu_sheaves {
    uint32_t main;     /* sheaf pool index; never 0 (the bootstrap sheaf is 1) */
    uint32_t spare;    /* 0 or a sheaf; validate_pcs() */
    uint32_t rcu_free; /* 0 or a sheaf with 1..cap-1 objects */
};

struct node_barn {
    struct ilist full;  /* sheaves with objects; push and pop at head */
    struct ilist empty; /* size == 0; validate_barn() */
    uint32_t partial;   /* BARN_REFILL after: 0 or a sheaf with 0 < size < cap */
};

struct kmem_cache_node {
    struct ilist partial;        /* nr == nr_partial; each member list == SLAB_ON_PARTIAL */
    struct ilist full;           /* debug caches with SLAB_STORE_USER only */
    unsigned long nr_slabs;      /* all slabs of this node, on lists or not */
    unsigned long total_objects; /* sum of their objects; validate_node() */
};

/* Legacy model: one CPU's cpu slab of a cache (kernel: struct kmem_cache_cpu). */
struct kmem_cache_cpu {
    sim_addr_t freelist; /* lockless freelist: free objects of slab only, counted in its inuse */
    uint64_t tid;        /* transaction id: cpu, advanced by TID_STEP on every change */
    uint32_t slab;       /* the cpu slab (pool index), 0 when none */
    uint32_t partial;    /* head of the cpu partial list (pool index), 0 when empty */
};

struct kmem_order_objects {
    unsigned order, objects;
};

struct kmem_cache {
    int id;
    bool alive;
    char name[SIM_NAME_MAX];
    unsigned object_size;   /* what the user asked for */
    unsigned size;          /* stride between slots */
    uint64_t reciprocal_size; /* 2^32 / size: index = off * it >> 32, corrected once
                               * (kernel: reciprocal_size, obj_to_index) */
    unsigned inuse;         /* word-rounded object plus right red zone */
    unsigned offset;        /* free pointer offset from the object start */
    unsigned align;
    unsigned red_left_pad;
    uint32_t flags;         /* SIM_SLAB_* plus OBJECT_POISON */
    bool ctor;
    struct kmem_order_objects oo, min;
    unsigned min_partial;
    unsigned nr_created;     /* slabs allocated so far: the next slab's seq */
    unsigned sheaf_capacity; /* 0: no sheaves, every CPU's main is the bootstrap sheaf,
                              * no spare, no rcu_free, an empty barn (H2); hybrid model:
                              * requested_sheaf_capacity unless a debug cache (H1) */
    unsigned requested_sheaf_capacity; /* kmem_cache_args.sheaf_capacity; validate_layers() */
    unsigned remote_node_defrag_ratio;
    unsigned errors;         /* SLUB's reports so far: one per object_err, slab_err and
                              * slab_fix, as lib/slub_kunit.c counts them (slab_errors) */
    uint64_t random;         /* hardened free pointer secret */
    unsigned *random_seq;    /* [oo.objects] byte offsets, or NULL */
    struct slub_percpu_sheaves *pcs;   /* [nr_cpus] */
    struct kmem_cache_node *node;      /* [nr_nodes] */
    struct node_barn *barn;            /* [nr_nodes]; unused without sheaves */
    uint64_t (*stats)[SIM_NR_STATS];   /* [nr_cpus] */
    /* legacy and hybrid models: every cache but a debug cache (H1) */
    struct kmem_cache_cpu *cpu_slab;   /* [nr_cpus] */
    unsigned cpu_partial;              /* sysfs cpu_partial, objects; 0: no cpu partial lists */
    unsigned cpu_partial_slabs;        /* derived cap in slabs (slub_set_cpu_partial) */
};

#define OBJECT_POISON 0x80000000u /* __OBJECT_POISON */

/* Where a refill or an allocation puts objects: the end of a sheaf
 * (sheaf != 0), or the user's hands, optionally recorded in out[]. */
struct obj_sink {
    uint32_t sheaf;  /* sheaf pool index, or 0 for the user */
    sim_addr_t *out; /* user sink: array of at least the objects asked for, or NULL */
    unsigned n;      /* objects put so far */
    sim_addr_t last; /* user sink: the last object put */
};

/* ---- The event being built -------------------------------------------------- */

#define EV_MAX_BRANCHES 8

struct event_builder {
    bool open;
    const char *fn, *label;
    int node, cache;
    const char *report;
    const struct sim_page_alloc *page; /* attached page allocator decision, or NULL */
    struct sim_move *moves;        /* [cap_moves] */
    size_t nr_moves, cap_moves;
    int64_t delta[SIM_NR_STATS];   /* counter changes since the event opened */
    bool touched[SIM_NR_STATS];
    uint8_t touched_list[SIM_NR_STATS]; /* the touched items, nr_touched of them */
    unsigned nr_touched;
    /* decisions recorded since the last event ended, for the next one;
     * bounded by the decisions one code path takes between two events */
    struct sim_branch branches[EV_MAX_BRANCHES];
    unsigned nr_branches;
};

/* ---- RCU ------------------------------------------------------------------ */

enum rcu_cb_kind {
    RCU_CB_SHEAF,        /* rcu_free_sheaf: the sheaf goes to its barn, or to slabs */
    RCU_CB_SHEAF_NOBARN, /* rcu_free_sheaf_nobarn: flushed and freed */
    RCU_CB_OBJECT,       /* the non-sheaf kfree_rcu path: freed with kfree_bulk */
    RCU_CB_SLAB,         /* a SLAB_TYPESAFE_BY_RCU slab's pages go back */
};

struct rcu_cb {
    uint8_t kind; /* enum rcu_cb_kind */
    uint8_t cpu;  /* the CPU that queued it: its counters */
    uint32_t idx; /* sheaf or slab pool index */
    sim_addr_t obj; /* RCU_CB_OBJECT */
};

/* ---- Pools ---------------------------------------------------------------- */

/* Entries live in fixed chunks, so a pointer to an entry stays valid while
 * the pool grows; freed indices are reused last-in first-out. */
#define POOL_CHUNK 256u

struct pool {
    size_t elem;       /* entry size in bytes */
    void **chunk;      /* [nr_chunks] arrays of POOL_CHUNK entries */
    uint32_t nr_chunks;
    uint32_t used;     /* indices below this were handed out at least once */
    uint32_t *free_ids; /* stack of released indices */
    uint32_t nr_free, cap_free;
};

/* ---- The machine ---------------------------------------------------------- */

#define SCRATCH_MAX 8u /* temporaries alive at once (sim_scratch_alloc nesting) */

struct rng {
    uint64_t s[4]; /* xoshiro256** state */
};

/* The steering of choice points, their log and the choice the next event
 * carries (choice.c); allocated at the first choice point. */
struct choice_state {
    uint64_t *script; /* the options of the first nr_script points */
    size_t nr_script;
    bool sample;      /* past the script: draws from rng, else 0 */
    bool logging;     /* sim_choices_set() was called */
    bool pending;     /* last is for the next event */
    struct rng rng;
    uint64_t reached; /* points reached so far */
    struct sim_choice last;
    struct sim_choice *log;
    size_t nr_log, cap_log;
    struct sim_choice_pin *pins; /* sim_choices_pin(); copied by sim_clone() */
    size_t nr_pins;
    bool counted; /* seen[] counts the points of operation seen_op */
    uint64_t seen_op;
    unsigned seen[SIM_NR_CHOICES];
};

struct sim {
    struct sim_config cfg;
    struct rng rng;
    uint64_t seq, op;      /* events and operations so far */
    int cpu;               /* CPU of the operation being applied */
    unsigned req_size;     /* bytes its caller asked for (kmalloc, alloc with a size):
                            * the orig_size a kmalloc red zone keeps; 0: object_size */

    struct zone *zones;    /* [nr_zones], by node */
    unsigned nr_zones;
    uint64_t nr_page_bytes; /* pages whose bytes are host memory; checked by validate_zones() */

    struct kmem_cache **caches; /* [nr_caches], by id */
    unsigned nr_caches, cap_caches;
    int kmalloc_cache[16];      /* cache id per kmalloc size class, -1 until first use */
    int kmalloc_dma_cache[16];  /* the same for dma-kmalloc-* (__GFP_DMA with a ZONE_DMA) */

    struct pool slabs;          /* struct slab; index 0 unused */
    struct pool sheaves;        /* struct slab_sheaf; 0 unused, 1 is the bootstrap sheaf */
    uint32_t next_sheaf_id;     /* creation counter: the public sheaf ids */
    /* the sheaves' object arrays: how many, and their slots in all
     * (sim_host_bytes() counts them without walking the pool) */
    uint64_t nr_sheaf_arrays, sheaf_slots;

    struct rcu_cb *rcu;         /* callbacks waiting for a grace period, oldest first */
    size_t nr_rcu, cap_rcu;
    sim_addr_t *inflight;       /* objects held by the operation being applied */
    size_t nr_inflight, cap_inflight;

    sim_event_fn event_fn;
    void *event_arg;
    struct event_builder ev;
    struct sim_result *res;     /* the result of the operation being applied */

    void *scratch[SCRATCH_MAX];  /* temporaries of the operation being applied */
    unsigned nr_scratch;         /* 0 between operations; sim_apply() frees them on unwinding */

    unsigned long fail_alloc_in; /* host allocation failure injection: 0 off */
    bool broken;                 /* a host allocation failed mid-operation */
    bool halted;                 /* the kernel would have faulted (SIM_CRASHED) */
    bool in_apply;               /* oom_jmp is armed */
    bool in_op;                  /* inside sim_apply(), its fast paths too: the event callback
                                  * sees a machine mid-operation (sim_image_save() refuses) */
    jmp_buf oom_jmp;             /* where a failed host allocation unwinds to */
    int fail_page_order;         /* page allocations of this order or more fail; -1 off */

    /* the page allocator (alloc_pages.c) */
    int zone_of_type[SIM_MAX_NODES][SIM_NR_ZONE_TYPES]; /* index in zones[], or -1 */
    uint32_t gfp;                /* gfp of the operation being applied */
    struct sim_gfp_ctx gfp_ctx;  /* its calling context */
    struct sim_page_alloc pa;    /* the last decision, attached to events */
    uint32_t kswapd_woken;       /* nodes whose kswapd this operation woke; 0 between operations */
    struct user_block *user;     /* SIM_OP_ALLOC_PAGES blocks held, oldest first */
    size_t nr_user, cap_user;

    /* races (race.c): NULL outside a race's steps */
    const char *race_ctx;             /* the context running: on every event */
    const struct sim_step *race_step; /* the step: on the next event only */
    bool race_checking;               /* a clone running a race to check its schedule */

    /* choice points (choice.c): how they are steered, never saved in an
     * image; NULL until the first one is reached or steered */
    struct choice_state *choice;
};

/* A block of pages held by a user other than SLUB (SIM_OP_ALLOC_PAGES). */
struct user_block {
    sim_addr_t addr;
    uint8_t order;
    uint32_t gfp; /* reclaimable iff __GFP_MOVABLE or __GFP_RECLAIMABLE */
};

#define BOOTSTRAP_SHEAF 1u

#endif /* SLUBLAB_ENGINE_TYPES_H */
