/*
 * cache.c: kmem caches and the allocator's entry points (kernel:
 * do_kmem_cache_create, kmem_cache_alloc_node, ___slab_alloc, kmem_cache_free,
 * slab_free, kmem_cache_alloc_bulk, flush_all, kmem_cache_shrink,
 * __kmem_cache_do_shrink, kmem_cache_destroy).
 *
 * An allocation tries the CPU's sheaves (pcs.c) and falls back to the
 * single-object slow path on the node lists (node.c); a free tries the sheaves
 * unless the object belongs to another node and falls back to __slab_free.
 * The legacy model uses the cpu slab (cpu_slab.c) instead of sheaves, the
 * hybrid model (6.18) the sheaves of a cache that has them, then its cpu slab.
 * Misuse the kernel catches (a pointer into no slab, the wrong cache, the same
 * object at the head of its slab's freelist) is reported before anything
 * changes; misuse it does not catch (a double free into a sheaf) is carried
 * out, and the validator flags it.
 */
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void build_random_seq(struct sim *sim, struct kmem_cache *s)
{
    unsigned count = s->oo.objects;

    /* (kernel: init_cache_random_seq, freelist_randomize) */
    if (!sim->cfg.freelist_random || count < 2)
        return;
    s->random_seq = sim_zalloc(sim, count * sizeof(*s->random_seq));
    for (unsigned i = 0; i < count; i++)
        s->random_seq[i] = i;
    for (unsigned i = count - 1; i > 0; i--) {
        unsigned j = rng_below(&sim->rng, i + 1), t = s->random_seq[i];

        s->random_seq[i] = s->random_seq[j];
        s->random_seq[j] = t;
    }
    for (unsigned i = 0; i < count; i++)
        s->random_seq[i] *= s->size;
}

/* Check creation arguments; returns 0 or -EINVAL with a message. */
static int check_args(struct sim *sim, const struct sim_cache_args *a, char *msg, size_t len)
{
    if (!a->name[0] || memchr(a->name, 0, sizeof(a->name)) == NULL) {
        snprintf(msg, len, "kmem_cache_create: a cache needs a name (up to %d bytes)",
                SIM_NAME_MAX - 1);
        return -EINVAL;
    }
    if (sim_cache_lookup(sim, a->name) >= 0) {
        snprintf(msg, len, "kmem_cache_create: a cache named \"%s\" exists", a->name);
        return -EINVAL;
    }
    if (a->object_size < 1 || a->object_size > (PAGE_SIZE << MAX_PAGE_ORDER) / 2) {
        snprintf(msg, len, "kmem_cache_create %s: object size %u is not in 1..%u", a->name,
                a->object_size, (PAGE_SIZE << MAX_PAGE_ORDER) / 2);
        return -EINVAL;
    }
    if (a->align & (a->align - 1) || a->align > PAGE_SIZE) {
        snprintf(msg, len, "kmem_cache_create %s: align %u is not a power of two up to %u",
                a->name, a->align, PAGE_SIZE);
        return -EINVAL;
    }
    if (a->use_freeptr_offset && sim->cfg.model != SIM_MODEL_SHEAVES) {
        /* struct kmem_cache_args came with 6.12, after the two older eras;
         * before 7.0 only SLAB_TYPESAFE_BY_RCU caches may give the offset
         * (__kmem_cache_create_args fails the others) */
        enum sim_legacy_era era = sim_legacy_era(&sim->cfg);

        if (sim->cfg.model == SIM_MODEL_LEGACY && era != SIM_ERA_DIRECT_LOAD) {
            snprintf(msg, len,
                     "kmem_cache_create %s: freeptr_offset came with 6.12's struct "
                     "kmem_cache_args, after %s",
                     a->name, sim_legacy_era_name(era));
            return -EINVAL;
        }
        if (!(a->flags & SIM_SLAB_TYPESAFE_BY_RCU)) {
            snprintf(msg, len,
                     "kmem_cache_create %s: before 7.0 freeptr_offset is for "
                     "SLAB_TYPESAFE_BY_RCU caches only (a constructor's came with a13b68d79d5c)",
                     a->name);
            return -EINVAL;
        }
    }
    if (a->use_freeptr_offset &&
            (a->freeptr_offset % 8 || a->freeptr_offset + 8 > a->object_size)) {
        snprintf(msg, len,
                "kmem_cache_create %s: freeptr_offset %u must be word aligned and inside "
                "the object",
                a->name, a->freeptr_offset);
        return -EINVAL;
    }
    if (SHEAF_HEADER_SIZE + 8ull * a->sheaf_capacity > (uint64_t)PAGE_SIZE << MAX_PAGE_ORDER) {
        /* alloc_empty_sheaf() would ask kmalloc for more than it can give */
        snprintf(msg, len, "kmem_cache_create %s: sheaf_capacity %u is larger than %u", a->name,
                a->sheaf_capacity, ((PAGE_SIZE << MAX_PAGE_ORDER) - SHEAF_HEADER_SIZE) / 8);
        return -EINVAL;
    }
    if (a->flags & ~(SIM_SLAB_DEBUG_FLAGS | SIM_SLAB_KMALLOC | SIM_SLAB_HWCACHE_ALIGN |
                            SIM_SLAB_CACHE_DMA | SIM_SLAB_RECLAIM_ACCOUNT |
                            SIM_SLAB_TYPESAFE_BY_RCU | SIM_SLAB_NO_OBJ_EXT |
                            SIM_SLAB_NOLEAKTRACE)) {
        snprintf(msg, len, "kmem_cache_create %s: unknown flags 0x%x", a->name, a->flags);
        return -EINVAL;
    }
    return 0;
}

/*
 * Create a cache (kernel: do_kmem_cache_create).  Returns 0 with the new
 * id in *id, or -EINVAL (bad arguments, message in @msg).  Emits one event.
 */
int kmem_cache_create(struct sim *sim, const struct sim_cache_args *a, int *id, char *msg,
        size_t len)
{
    struct kmem_cache *s;
    unsigned cpus = sim->cfg.present_cpus ? sim->cfg.present_cpus : sim->cfg.nr_cpus;
    int ret = check_args(sim, a, msg, len);

    if (ret)
        return ret;
    if (sim->nr_caches == sim->cap_caches) { /* first: an unwinding realloc must not leak s */
        unsigned cap = sim->cap_caches ? sim->cap_caches * 2 : 8;

        sim->caches = sim_realloc(sim, sim->caches, cap * sizeof(*sim->caches));
        sim->cap_caches = cap;
    }
    s = sim_zalloc(sim, sizeof(*s));
    memcpy(s->name, a->name, sizeof(s->name));
    s->object_size = a->object_size;
    s->flags = kmem_cache_flags(&sim->cfg, a->flags, a->name);
    s->ctor = a->ctor;
    s->align = calculate_alignment(a->flags, a->align, a->object_size);
    calculate_sizes(s, a->use_freeptr_offset, a->freeptr_offset,
                    sim->cfg.model == SIM_MODEL_SHEAVES);
    /* slab_debug=O: no debug metadata where it would raise the slab order
     * (kernel: kmem_cache_open, disable_higher_order_debug) */
    if (sim->cfg.slab_debug_no_higher_order && get_order(s->size) > get_order(s->object_size)) {
        s->flags &= ~(SIM_SLAB_RED_ZONE | SIM_SLAB_POISON | SIM_SLAB_STORE_USER);
        calculate_sizes(s, a->use_freeptr_offset, a->freeptr_offset,
                        sim->cfg.model == SIM_MODEL_SHEAVES);
    }
    if (calculate_oo(s, cpus, sim->cfg.nr_cpus)) {
        snprintf(msg, len, "kmem_cache_create %s: no slab order fits size %u", a->name, s->size);
        sim_free(s);
        return -EINVAL;
    }
    if (a->set_order && set_oo_order(s, a->order)) {
        snprintf(msg, len, "kmem_cache_create %s: order %u is above slub_max_order %u or holds "
                "no object of size %u", a->name, a->order, SLUB_MAX_ORDER, s->size);
        sim_free(s);
        return -EINVAL;
    }
    s->id = (int)sim->nr_caches;
    sim->caches[sim->nr_caches++] = s;
    s->alive = true;
    s->min_partial = calculate_min_partial(s->size);
    s->sheaf_capacity = calculate_sheaf_capacity(s->flags, s->size, a->sheaf_capacity);
    s->requested_sheaf_capacity = a->sheaf_capacity;
    s->remote_node_defrag_ratio = REMOTE_NODE_DEFRAG_RATIO;
    if (sim->cfg.model != SIM_MODEL_SHEAVES)
        legacy_cache_init(sim, s, a->cpu_partial);
    if (sim_hybrid(sim) && !kmem_cache_debug(s))
        s->sheaf_capacity = a->sheaf_capacity; /* 6.18: opt-in, exactly as asked */
    if (sim->cfg.freelist_hardened)
        s->random = rng_next(&sim->rng);
    build_random_seq(sim, s);
    s->pcs = sim_zalloc(sim, sim->cfg.nr_cpus * sizeof(*s->pcs));
    s->node = sim_zalloc(sim, sim->cfg.nr_nodes * sizeof(*s->node));
    s->barn = sim_zalloc(sim, sim->cfg.nr_nodes * sizeof(*s->barn));
    s->stats = sim_zalloc(sim, sim->cfg.nr_cpus * sizeof(*s->stats));

    ev_begin(sim, s, "kmem_cache_create",
             cache_has_sheaves(s) && cache_has_cpu_slab(s) ? "cpu_slab_and_sheaves"
             : cache_has_sheaves(s)                        ? "sheaves"
             : cache_has_cpu_slab(s)                       ? "cpu_slab"
                                                           : "no_sheaves",
             -1);
    for (unsigned cpu = 0; cpu < sim->cfg.nr_cpus; cpu++) {
        uint32_t idx = BOOTSTRAP_SHEAF;
        int saved = sim->cpu;

        if (cache_has_sheaves(s))
            idx = alloc_empty_sheaf(sim, s, s->sheaf_capacity);
        sim->cpu = (int)cpu;
        s->pcs[cpu].main = idx;
        if (idx != BOOTSTRAP_SHEAF)
            sheaf_set_place(sim, idx, place_cpu(SIM_PL_MAIN, cpu));
        sim->cpu = saved;
    }
    ev_end(sim);
    *id = s->id;
    return 0;
}

/* Post-allocation hook: __GFP_ZERO clears the object; on a kmalloc cache
 * with red zones only the requested size, the rest being red zone (6.2,
 * kernel: slab_post_alloc_hook's zero_size). */
static void post_alloc(struct sim *sim, struct kmem_cache *s, sim_addr_t obj, uint32_t gfp)
{
    unsigned zero_size = s->object_size;

    if (!(gfp & SIM_GFP_ZERO))
        return;
    if ((s->flags & SIM_SLAB_RED_ZONE) && (s->flags & SIM_SLAB_KMALLOC) &&
        sim->cfg.release != SIM_RELEASE_6_1 && sim->req_size)
        zero_size = sim->req_size;
    mem_fill(sim, obj, 0, zero_size);
}

/*
 * The single-object slow path (kernel: ___slab_alloc): one object into
 * @sink, from the node's partial list, another node's, or a new slab.  A
 * request for node @node without __GFP_THISNODE first tries that node
 * alone, its new slab with at most GFP_NOWAIT (trynode_flags), then any
 * node with the caller's flags.  True when the object is in @sink.
 */
bool slab_alloc_slow(struct sim *sim, struct kmem_cache *s, int node, uint32_t gfp,
                     struct obj_sink *sink)
{
    bool try_this_node = true;
    int local = cpu_node(sim);
    unsigned before = sink->n;

    ev_begin(sim, s, "___slab_alloc", "slowpath", node);
    stat_add(sim, s, SIM_ALLOC_SLOWPATH, 1);
    ev_end(sim);
    for (;;) {
        bool trynode = node != SIM_NUMA_NO_NODE && !(gfp & SIM_GFP_THISNODE) && try_this_node;
        bool thisnode = (gfp & SIM_GFP_THISNODE) || trynode;
        int where = node != SIM_NUMA_NO_NODE ? node : local;
        uint32_t idx;

        if (node_partial_first(s, where))
            branch_record(sim, BP_ALLOC_SLOWPATH, AS_PARTIAL);
        if (take_one_from_partial(sim, s, where, sink))
            return true;
        if (!(node != SIM_NUMA_NO_NODE && thisnode) &&
            take_one_from_other_nodes(sim, s, where, sink))
            return true;
        branch_record(sim, BP_ALLOC_SLOWPATH, AS_NEW_SLAB);
        idx = trynode ? new_slab_trynode(sim, s, where) : new_slab(sim, s, where, thisnode);
        if (!idx) {
            if (trynode) {
                try_this_node = false;
                continue;
            }
            return false;
        }
        ev_begin(sim, s, "___slab_alloc", "new_slab", slab_at(sim, idx)->node);
        stat_add(sim, s, SIM_ALLOC_SLAB, 1);
        ev_end(sim);
        alloc_from_new_slab(sim, s, idx, sink, 1);
        return sink->n > before;
    }
}

/* slab_alloc_slow() for one object the caller gets; SIM_NULL when no memory was found. */
static sim_addr_t slow_alloc(struct sim *sim, struct kmem_cache *s, int node, uint32_t gfp)
{
    struct obj_sink sink = {0};

    return slab_alloc_slow(sim, s, node, gfp, &sink) ? sink_last(&sink) : SIM_NULL;
}

/* The sheaves model's allocation past the per-CPU sheaves (kernel:
 * __slab_alloc_node after alloc_from_pcs gave nothing), as a race's step
 * runs it (race.c): the object, or SIM_NULL with the failure reported. */
sim_addr_t slab_alloc_nopcs(struct sim *sim, struct kmem_cache *s, int node, uint32_t gfp)
{
    sim_addr_t obj = slow_alloc(sim, s, node, gfp);

    if (!obj) {
        sim_result_msg(sim, SIM_FAILED,
                       "SLUB: Unable to allocate memory on node %d, gfp=%#x (cache %s, order %u)",
                       node, gfp, s->name, s->oo.order);
        ev_report_result(sim, s, "slab_out_of_memory", "nomem");
        return SIM_NULL;
    }
    post_alloc(sim, s, obj, gfp);
    return obj;
}

/* kmem_cache_alloc_node: returns the object or SIM_NULL (out of memory). */
sim_addr_t kmem_cache_alloc_node(struct sim *sim, struct kmem_cache *s, int node, uint32_t gfp)
{
    sim_addr_t obj = SIM_NULL;

    /* a legacy debug cache has neither cpu slab nor sheaves: 6.12's
     * ___slab_alloc takes each object alone, counting no node mismatch;
     * 6.18 tries a cache's sheaves, if it has any, before its cpu slab */
    if (sim_hybrid(sim) && cache_has_sheaves(s))
        obj = alloc_from_pcs(sim, s, node);
    if (!obj && cache_has_cpu_slab(s))
        obj = legacy_slab_alloc(sim, s, node, gfp);
    else if (sim->cfg.model == SIM_MODEL_SHEAVES)
        obj = alloc_from_pcs(sim, s, node);

    if (!obj && !cache_has_cpu_slab(s))
        obj = slow_alloc(sim, s, node, gfp);
    if (!obj) {
        sim_result_msg(sim, SIM_FAILED,
                "SLUB: Unable to allocate memory on node %d, gfp=%#x (cache %s, order %u)", node,
                gfp, s->name, s->oo.order);
        ev_report_result(sim, s, "slab_out_of_memory", "nomem");
        return SIM_NULL;
    }
    post_alloc(sim, s, obj, gfp);
    return obj;
}

/*
 * Check a free of @obj into @s the way the kernel can (kernel:
 * cache_from_obj, kfree's virt_to_slab, set_freepointer's BUG_ON).
 * Returns the slab, or NULL after recording SLUB's report.
 */
static struct slab *check_free(struct sim *sim, struct kmem_cache *s, sim_addr_t obj,
        const char *fn)
{
    struct slab *slab = slab_of(sim, obj);

    if (!slab) {
        sim_result_msg(sim, SIM_MISUSE,
                "WARNING: %s: object pointer 0x%llx is not in any slab (invalid free)", fn,
                (unsigned long long)obj);
        return NULL;
    }
    if (s && slab->cache != s->id) {
        sim_result_msg(sim, SIM_MISUSE, "%s: Wrong slab cache. %s but object is from %s", fn,
                s->name, sim->caches[slab->cache]->name);
        return NULL;
    }
    s = sim->caches[slab->cache];
    if (slab_obj_index(s, slab, obj) < 0) {
        sim_result_msg(sim, SIM_MISUSE,
                "%s: 0x%llx is not the start of an object of %s (the kernel would corrupt "
                "its freelist; slublab refuses)",
                fn, (unsigned long long)obj, s->name);
        return NULL;
    }
    return slab;
}

/* kmem_cache_free / kfree once the cache is known (kernel: slab_free). */
void slab_free(struct sim *sim, struct kmem_cache *s, struct slab *slab, sim_addr_t obj)
{
    uint32_t idx = slab_idx(sim, slab);

    if (cache_has_cpu_slab(s)) {
        /* 6.18: a local object goes to the sheaves first, if the cache has any */
        if (sim_hybrid(sim) && cache_has_sheaves(s)) {
            if (slab->node == cpu_node(sim) && free_to_pcs(sim, s, obj))
                return;
            branch_record(sim, BP_FREE_PATH, FP_CPU_SLAB);
        }
        legacy_do_slab_free(sim, s, idx, &obj, 1, place_none(SIM_PL_USER));
        return;
    }
    if (slab->node == cpu_node(sim) && free_to_pcs(sim, s, obj))
        return;
    if (cache_has_sheaves(s)) /* another node's object */
        branch_record(sim, BP_FREE_PATH, FP_SLOWPATH);
    slab_free_nopcs(sim, s, slab_at(sim, idx), obj);
}

/* The free past the per-CPU sheaves (kernel: __slab_free from slab_free),
 * as slab_free and a race's step (race.c) run it.  Cannot fail. */
void slab_free_nopcs(struct sim *sim, struct kmem_cache *s, struct slab *slab, sim_addr_t obj)
{
    uint32_t idx = slab_idx(sim, slab);

    /* consistency checks report this as "Object already free"; without them
     * set_freepointer()'s BUG_ON(object == fp) fires, debug cache or not */
    if (!(s->flags & SIM_SLAB_CONSISTENCY_CHECKS) && slab->freelist == obj) {
        sim_result_msg(sim, SIM_MISUSE,
                "kernel BUG at mm/slub.c: set_freepointer(): object == fp: 0x%llx freed twice "
                "in a row (naive double free detection)",
                (unsigned long long)obj);
        ev_report_result(sim, s, "set_freepointer", "double_free");
        return;
    }
    ev_begin(sim, s, "slab_free", "slowpath", slab->node);
    stat_add(sim, s, SIM_FREE_SLOWPATH, 1);
    ev_end(sim);
    slab_free_to_slab(sim, s, idx, &obj, 1, place_none(SIM_PL_USER));
}

/* The caller writes @len bytes of @byte at @addr: a bug made on purpose.
 * Returns 0 or -EINVAL when the range is not simulated memory in use. */
int user_write(struct sim *sim, sim_addr_t addr, unsigned len, uint8_t byte)
{
    uint8_t buf[256];
    struct slab *slab = slab_of(sim, addr);

    if (!len || len > 65536 || !slab || slab_of(sim, addr + len - 1) != slab) {
        snprintf(sim->res->message, sizeof(sim->res->message),
                "write: 0x%llx..+%u is not inside one slab", (unsigned long long)addr, len);
        return -EINVAL;
    }
    memset(buf, byte, sizeof(buf));
    ev_begin(sim, sim->caches[slab->cache], "user_write", "write", slab->node);
    for (unsigned done = 0; done < len;) {
        unsigned n = len - done < sizeof(buf) ? len - done : (unsigned)sizeof(buf);

        SIM_BUG_ON(mem_write(sim, addr + done, buf, n));
        done += n;
    }
    ev_end(sim);
    return 0;
}

/* kmem_cache_free_bulk after the checks kmem_cache_free makes, object by
 * object: any misuse is reported and nothing is freed. */
void kmem_cache_free_bulk_checked(struct sim *sim, struct kmem_cache *s, unsigned n,
        const sim_addr_t *p)
{
    for (unsigned i = 0; i < n; i++) {
        if (!check_free(sim, s, p[i], "kmem_cache_free_bulk")) {
            ev_report_result(sim, s, "kmem_cache_free_bulk", "misuse");
            return;
        }
    }
    kmem_cache_free_bulk(sim, s, n, p);
}

/* kmem_cache_free: misuse is reported and changes nothing. */
void kmem_cache_free(struct sim *sim, struct kmem_cache *s, sim_addr_t obj)
{
    struct slab *slab = check_free(sim, s, obj, "kmem_cache_free");

    if (!slab) {
        ev_report_result(sim, s, "kmem_cache_free", "misuse");
        return;
    }
    slab_free(sim, s, slab, obj);
}

/* kmem_cache_alloc_bulk is all or nothing: on a shortfall the @got objects
 * obtained go back to their slabs and the operation fails.  Returns 0. */
static unsigned alloc_bulk_give_back(struct sim *sim, struct kmem_cache *s, sim_addr_t *out,
                                     unsigned got, unsigned n)
{
    ev_begin(sim, s, "kmem_cache_alloc_bulk", "give_back", cpu_node(sim));
    for (unsigned i = 0; i < got; i++)
        inflight_add(sim, out[i], place_none(SIM_PL_USER));
    ev_end(sim);
    bulk_free_to_slabs(sim, s, out, got, false);
    sim_result_msg(sim, SIM_FAILED, "kmem_cache_alloc_bulk %s: only %u of %u objects available",
                   s->name, got, n);
    return 0;
}

/*
 * kmem_cache_alloc_bulk: @n objects into @out, all or nothing.  Returns the
 * number allocated (n or 0).
 */
unsigned kmem_cache_alloc_bulk(struct sim *sim, struct kmem_cache *s, unsigned n, sim_addr_t *out)
{
    unsigned got, want;

    if (cache_has_cpu_slab(s)) {
        /* 6.18: the sheaves first (if any), then the cpu slab for the rest */
        got = sim_hybrid(sim) ? alloc_from_pcs_bulk(sim, s, n, out) : 0;
        if (got < n)
            got += legacy_alloc_bulk(sim, s, n - got, out + got);
        return got == n ? n : alloc_bulk_give_back(sim, s, out, got, n);
    }
    got = alloc_from_pcs_bulk(sim, s, n, out);
    want = n - got;

    if (!want)
        return n;
    if (!cache_has_sheaves(s) && (s->flags & SIM_SLAB_DEBUG_FLAGS)) {
        for (; got < n; got++) {
            sim_addr_t obj = slow_alloc(sim, s, SIM_NUMA_NO_NODE, 0);

            if (!obj)
                break;
            out[got] = obj;
        }
    } else {
        struct obj_sink sink = {.out = out + got};
        unsigned r = refill_objects(sim, s, &sink, want, want);

        ev_begin(sim, s, "__kmem_cache_alloc_bulk", r == want ? "slowpath" : "short",
                cpu_node(sim));
        if (r == want) /* a short refill counts nothing: the error path frees it all */
            stat_add(sim, s, SIM_ALLOC_SLOWPATH, r);
        ev_end(sim);
        got += r;
    }
    if (got == n)
        return n;
    return alloc_bulk_give_back(sim, s, out, got, n);
}

/* Whether flush_all() queues a work on @cpu (kernel: has_cpu_slab,
 * has_pcs_used): its sheaves hold something, or it has a cpu slab or CPU
 * partial slabs. */
static bool cpu_has_flush_work(const struct sim *sim, const struct kmem_cache *s, unsigned cpu)
{
    if (cache_has_sheaves(s)) {
        const struct slub_percpu_sheaves *pcs = &s->pcs[cpu];

        if (pcs->spare || pcs->rcu_free || sheaf_at(sim, pcs->main)->size)
            return true;
    }
    return cache_has_cpu_slab(s) && (s->cpu_slab[cpu].slab || s->cpu_slab[cpu].partial);
}

/*
 * flush_all: every CPU's sheaves (or cpu slab and CPU partial list) of @s to
 * slabs.  The kernel queues one flush work per CPU that has something to
 * flush (flush_all_cpus_locked) and they run concurrently, so their order
 * is the scheduler's: a choice point (choice.c) over the orders of those
 * CPUs, in the order of permutations of the default one, which is what a
 * booted kernel was seen to do most often (docs/fidelity.md): the calling
 * CPU's first, then the next CPUs in turn, wrapping around.
 */
void flush_all(struct sim *sim, struct kmem_cache *s)
{
    unsigned order[SIM_MAX_CPUS], m = 0;

    for (unsigned k = 0; k < sim->cfg.nr_cpus; k++) {
        unsigned cpu = ((unsigned)sim->cpu + k) % sim->cfg.nr_cpus;

        if (cpu_has_flush_work(sim, s, cpu))
            order[m++] = cpu;
    }
    if (m > 1) {
        uint64_t nr = 1, taken;

        for (unsigned i = 2; i <= m; i++) /* m!, saturating past 20 CPUs */
            nr = nr > UINT64_MAX / i ? UINT64_MAX : nr * i;
        taken = choice_take(sim, SIM_CHOICE_FLUSH_ORDER, nr);
        sim->choice->last.nr_cpus = m;
        for (unsigned i = 0; i < m; i++)
            sim->choice->last.cpus[i] = (uint8_t)order[i];
        choice_describe(sim);
        choice_permute(order, m, taken);
    }
    for (unsigned k = 0; k < m; k++) {
        /* 6.18's flush_cpu_slab: the sheaves (pcs_flush_all), then the cpu slab */
        pcs_flush_cpu(sim, s, order[k]);
        if (cache_has_cpu_slab(s))
            legacy_flush_cpu(sim, s, order[k]);
    }
}

/* The node pass of shrinking (kernel: __kmem_cache_do_shrink): discard
 * empty partial slabs, put nearly full ones at the head, fullest first. */
static void shrink_node(struct sim *sim, struct kmem_cache *s, int node)
{
    struct kmem_cache_node *n = &s->node[node];
    unsigned nr[SHRINK_PROMOTE_MAX] = {0}, len = n->partial.nr;
    uint32_t *bucket, idx, next; /* bucket i: bucket[i * len .. i * len + nr[i] - 1] */

    if (!len)
        return;
    bucket = sim_scratch_alloc(sim, SHRINK_PROMOTE_MAX * len * sizeof(*bucket));
    ev_begin(sim, s, "__kmem_cache_do_shrink", "sort", node);
    for (idx = n->partial.head; idx; idx = next) {
        struct slab *slab = slab_at(sim, idx);
        unsigned nfree = slab->objects - slab->inuse;

        next = slab->link.next;
        if (nfree == slab->objects) {
            remove_partial(sim, s, idx, SLAB_ON_PRIVATE);
        } else if (nfree <= SHRINK_PROMOTE_MAX) {
            remove_partial(sim, s, idx, SLAB_ON_PRIVATE);
            bucket[(nfree - 1) * len + nr[nfree - 1]++] = idx;
        }
    }
    for (unsigned i = SHRINK_PROMOTE_MAX; i-- > 0;)
        for (unsigned j = 0; j < nr[i]; j++)
            add_partial(sim, s, bucket[i * len + j], false);
    ev_end(sim);
    sim_scratch_free(sim, bucket);
    /* the empty ones, now private: discarded without free_slab */
    for (idx = 1; idx < sim->slabs.used; idx++) {
        struct slab *slab = slab_at(sim, idx);

        if (slab->cache == s->id && slab->node == node && slab->list == SLAB_ON_PRIVATE &&
                slab->inuse == 0 && slab->accounted)
            discard_slab(sim, s, idx, "shrink");
    }
}

/* kmem_cache_shrink: flush CPUs and barns, then sort and trim partial lists. */
void kmem_cache_shrink(struct sim *sim, struct kmem_cache *s)
{
    flush_all(sim, s);
    if (cache_has_sheaves(s))
        for (unsigned node = 0; node < sim->cfg.nr_nodes; node++)
            barn_shrink(sim, s, (int)node);
    for (unsigned node = 0; node < sim->cfg.nr_nodes; node++)
        shrink_node(sim, s, (int)node);
}

/* kmem_cache_destroy: fails, reporting leaked objects, while any remain. */
void kmem_cache_destroy(struct sim *sim, struct kmem_cache *s)
{
    unsigned long left = 0;

    kvfree_rcu_barrier(sim); /* rcu_barrier: no callback may still touch the cache */
    kmem_cache_shrink(sim, s);
    for (unsigned node = 0; node < sim->cfg.nr_nodes; node++)
        left += s->node[node].nr_slabs;
    if (left) {
        /* list_slab_objects: a report per partial slab still holding
         * objects, and one per object it lists (the count slub_kunit's
         * test_leak_destroy expects) */
        for (unsigned node = 0; node < sim->cfg.nr_nodes; node++)
            for (uint32_t idx = s->node[node].partial.head; idx; idx = slab_at(sim, idx)->link.next)
                s->errors += 1 + slab_at(sim, idx)->inuse;
        sim_result_msg(sim, SIM_FAILED,
                "BUG %s: Objects remaining in %s on __kmem_cache_shutdown() (%lu slabs)",
                s->name, s->name, left);
        ev_report_result(sim, s, "__kmem_cache_shutdown", "objects_remaining");
        return;
    }
    ev_begin(sim, s, "__kmem_cache_shutdown", "destroyed", -1);
    for (unsigned cpu = 0; cpu < sim->cfg.nr_cpus; cpu++) {
        uint32_t idx = s->pcs[cpu].main;

        if (idx != BOOTSTRAP_SHEAF)
            free_empty_sheaf(sim, s, idx);
        s->pcs[cpu].main = BOOTSTRAP_SHEAF;
    }
    s->alive = false;
    ev_end(sim);
}

/* The machine's caches, counted and looked up by name (slub.h). */
unsigned sim_nr_caches(const struct sim *sim)
{
    return sim->nr_caches;
}

int sim_cache_lookup(const struct sim *sim, const char *name)
{
    for (unsigned i = 0; i < sim->nr_caches; i++)
        if (!strcmp(sim->caches[i]->name, name))
            return (int)i;
    return -1;
}
