/*
 * sim.c: the machine.  Creation, destruction, cloning, and sim_apply(), which
 * checks one operation and runs it on one CPU.
 *
 * sim_apply() arms the unwinding of host memory exhaustion (host.c) around
 * every operation but the two fast paths, which allocate nothing: a failed host
 * allocation returns -ENOMEM and marks the machine broken, and a free pointer
 * the kernel would have faulted on (check_freepointer_or_oops) halts it; either
 * way every later call fails with -EIO.  Destruction and cloning walk every
 * host allocation the machine owns; sim_create() takes its config as config.c
 * checks it.
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void free_zone(struct zone *z)
{
    if (!z->chunk)
        return;
    for (unsigned long c = 0; c < z->pages / CHUNK_PAGES; c++) {
        if (!z->chunk[c])
            continue;
        for (unsigned i = 0; i < CHUNK_PAGES; i++)
            page_bytes_put(z->chunk[c][i].bytes);
        free(z->chunk[c]);
    }
    free(z->chunk);
}

static void free_cache(struct kmem_cache *s)
{
    if (!s)
        return;
    free(s->random_seq);
    free(s->pcs);
    free(s->node);
    free(s->barn);
    free(s->stats);
    free(s->cpu_slab);
    free(s);
}

void sim_destroy(struct sim *sim)
{
    if (!sim)
        return;
    for (unsigned i = 0; i < sim->nr_zones; i++)
        free_zone(&sim->zones[i]);
    free(sim->zones);
    for (unsigned i = 0; i < sim->nr_caches; i++)
        free_cache(sim->caches[i]);
    free(sim->caches);
    for (uint32_t i = 1; i < sim->sheaves.used; i++)
        free(((struct slab_sheaf *)pool_at(&sim->sheaves, i))->objects);
    pool_release(&sim->sheaves);
    pool_release(&sim->slabs);
    free(sim->inflight);
    free(sim->rcu);
    free(sim->user);
    free(sim->ev.moves);
    choice_release(sim);
    free(sim);
}

int sim_create(const struct sim_config *cfg, struct sim **out)
{
    struct sim *sim;
    struct slab_sheaf *boot;

    if (config_check(cfg))
        return -EINVAL;
    sim = calloc(1, sizeof(*sim));
    if (!sim)
        return -ENOMEM;
    sim->cfg = *cfg;
    sim->fail_page_order = -1;
    rng_seed(&sim->rng, cfg->seed);
    for (unsigned i = 0; i < 16; i++)
        sim->kmalloc_cache[i] = sim->kmalloc_dma_cache[i] = -1;
    pool_init(&sim->slabs, sizeof(struct slab));
    pool_init(&sim->sheaves, sizeof(struct slab_sheaf));
    sim->in_apply = true;
    if (setjmp(sim->oom_jmp)) {
        sim_destroy(sim);
        return -ENOMEM;
    }
    zones_create(sim);
    /* the bootstrap sheaf: shared by caches without sheaves, never modified */
    SIM_BUG_ON(pool_get(sim, &sim->sheaves) != BOOTSTRAP_SHEAF);
    boot = pool_at(&sim->sheaves, BOOTSTRAP_SHEAF);
    boot->cache = -1;
    boot->rcu_node = -1;
    boot->place = place_none(SIM_PL_NONE);
    sim->in_apply = false;
    *out = sim;
    return 0;
}

/* Deep copies for sim_clone(); each returns 0 or -ENOMEM. */
static int clone_zone(struct zone *dst, const struct zone *src)
{
    unsigned long nr = src->pages / CHUNK_PAGES;

    *dst = *src;
    dst->chunk = calloc(nr, sizeof(*dst->chunk));
    if (!dst->chunk)
        return -ENOMEM;
    for (unsigned long c = 0; c < nr; c++) {
        if (!src->chunk[c])
            continue;
        dst->chunk[c] = malloc(CHUNK_PAGES * sizeof(struct sim_page));
        if (!dst->chunk[c])
            return -ENOMEM;
        memcpy(dst->chunk[c], src->chunk[c], CHUNK_PAGES * sizeof(struct sim_page));
        /* the bytes are shared until either machine writes them (mem.c) */
        for (unsigned i = 0; i < CHUNK_PAGES; i++)
            if (src->chunk[c][i].bytes)
                page_bytes_get(src->chunk[c][i].bytes);
    }
    return 0;
}

static void *dup_mem(const void *src, size_t size)
{
    void *p;

    if (!src)
        return NULL;
    p = malloc(size ? size : 1);
    if (p)
        memcpy(p, src, size);
    return p;
}

static int clone_cache(const struct sim *sim, struct kmem_cache **dst,
        const struct kmem_cache *src)
{
    struct kmem_cache *s = dup_mem(src, sizeof(*src));

    *dst = s;
    if (!s)
        return -ENOMEM;
    s->random_seq = NULL;
    s->pcs = NULL;
    s->node = NULL;
    s->barn = NULL;
    s->stats = NULL;
    s->cpu_slab = NULL;
    if (src->cpu_slab &&
            !(s->cpu_slab = dup_mem(src->cpu_slab, sim->cfg.nr_cpus * sizeof(*src->cpu_slab))))
        return -ENOMEM;
    if (src->random_seq &&
            !(s->random_seq = dup_mem(src->random_seq, src->oo.objects * sizeof(unsigned))))
        return -ENOMEM;
    s->pcs = dup_mem(src->pcs, sim->cfg.nr_cpus * sizeof(*src->pcs));
    s->node = dup_mem(src->node, sim->cfg.nr_nodes * sizeof(*src->node));
    s->barn = dup_mem(src->barn, sim->cfg.nr_nodes * sizeof(*src->barn));
    s->stats = dup_mem(src->stats, sim->cfg.nr_cpus * sizeof(*src->stats));
    if (!s->pcs || !s->node || !s->barn || !s->stats)
        return -ENOMEM;
    return 0;
}

int sim_clone(const struct sim *src, struct sim **out)
{
    struct sim *sim;

    if (src->broken)
        return -EIO;
    sim = calloc(1, sizeof(*sim));
    if (!sim)
        return -ENOMEM;
    *sim = *src;
    sim->zones = NULL;
    sim->nr_zones = 0;
    sim->caches = NULL;
    sim->nr_caches = sim->cap_caches = 0;
    memset(&sim->slabs, 0, sizeof(sim->slabs));
    memset(&sim->sheaves, 0, sizeof(sim->sheaves));
    sim->inflight = NULL;
    sim->cap_inflight = 0;
    sim->rcu = NULL;
    sim->cap_rcu = 0;
    sim->user = NULL;
    sim->cap_user = 0;
    memset(&sim->ev, 0, sizeof(sim->ev));
    sim->choice = NULL;
    sim->event_fn = NULL;
    sim->event_arg = NULL;
    sim->res = NULL;
    sim->in_apply = false;
    sim->in_op = false;

    sim->zones = calloc(src->nr_zones, sizeof(*sim->zones));
    if (!sim->zones)
        goto err;
    for (unsigned i = 0; i < src->nr_zones; i++) {
        sim->nr_zones = i + 1;
        if (clone_zone(&sim->zones[i], &src->zones[i]))
            goto err;
    }
    sim->caches = calloc(src->cap_caches ? src->cap_caches : 1, sizeof(*sim->caches));
    if (!sim->caches)
        goto err;
    sim->cap_caches = src->cap_caches;
    for (unsigned i = 0; i < src->nr_caches; i++) {
        sim->nr_caches = i + 1;
        if (clone_cache(src, &sim->caches[i], src->caches[i]))
            goto err;
    }
    if (pool_clone(&sim->slabs, &src->slabs))
        goto err;
    if (pool_clone(&sim->sheaves, &src->sheaves))
        goto err;
    for (uint32_t i = 1; i < sim->sheaves.used; i++)
        ((struct slab_sheaf *)pool_at(&sim->sheaves, i))->objects = NULL;
    for (uint32_t i = 1; i < sim->sheaves.used; i++) {
        const struct slab_sheaf *s_sh = pool_at(&src->sheaves, i);
        struct slab_sheaf *d_sh = pool_at(&sim->sheaves, i);

        if (s_sh->objects && !(d_sh->objects = dup_mem(s_sh->objects,
                                       (s_sh->capacity ? s_sh->capacity : 1) *
                                               sizeof(sim_addr_t))))
            goto err;
    }
    if (src->nr_rcu) {
        sim->rcu = dup_mem(src->rcu, src->nr_rcu * sizeof(*src->rcu));
        if (!sim->rcu)
            goto err;
        sim->cap_rcu = src->nr_rcu;
    }
    if (src->nr_inflight) {
        sim->inflight = dup_mem(src->inflight, src->nr_inflight * sizeof(sim_addr_t));
        if (!sim->inflight)
            goto err;
        sim->cap_inflight = src->nr_inflight;
    }
    if (src->nr_user) {
        sim->user = dup_mem(src->user, src->nr_user * sizeof(*src->user));
        if (!sim->user)
            goto err;
        sim->cap_user = src->nr_user;
    }
    if (choice_clone(sim, src))
        goto err;
    *out = sim;
    return 0;
err:
    sim_destroy(sim);
    return -ENOMEM;
}

/* What sim_clone() allocates for @n bytes in one block. */
static uint64_t host_block(uint64_t n)
{
    return n + SIM_HOST_OVERHEAD;
}

/* What pool_clone() allocates for @p. */
static uint64_t pool_host_bytes(const struct pool *p)
{
    return (p->nr_chunks ? host_block(p->nr_chunks * sizeof(*p->chunk)) : 0) +
           p->nr_chunks * host_block(POOL_CHUNK * p->elem) +
           (p->cap_free ? host_block(p->cap_free * sizeof(*p->free_ids)) : 0);
}

/* Mirrors sim_clone(): every block it would allocate, at its size. */
uint64_t sim_host_bytes(const struct sim *sim)
{
    uint64_t total = host_block(sizeof(*sim)) + host_block(sim->nr_zones * sizeof(*sim->zones));

    /* chunks below z->untouched were carved, and only those have page bytes */
    for (unsigned i = 0; i < sim->nr_zones; i++)
        total += host_block(sim->zones[i].pages / CHUNK_PAGES * sizeof(*sim->zones[i].chunk)) +
                 sim->zones[i].untouched * host_block(CHUNK_PAGES * sizeof(struct sim_page));
    /* a page shared with clones counts in full for each holder (slub.h) */
    total += sim->nr_page_bytes * host_block(PAGE_BYTES_BLOCK);
    total += host_block((sim->cap_caches ? sim->cap_caches : 1) * sizeof(*sim->caches));
    for (unsigned i = 0; i < sim->nr_caches; i++) {
        const struct kmem_cache *s = sim->caches[i];

        total += host_block(sizeof(*s)) + host_block(sim->cfg.nr_cpus * sizeof(*s->pcs)) +
                 host_block(sim->cfg.nr_nodes * sizeof(*s->node)) +
                 host_block(sim->cfg.nr_nodes * sizeof(*s->barn)) +
                 host_block(sim->cfg.nr_cpus * sizeof(*s->stats));
        if (s->cpu_slab)
            total += host_block(sim->cfg.nr_cpus * sizeof(*s->cpu_slab));
        if (s->random_seq)
            total += host_block(s->oo.objects * sizeof(unsigned));
    }
    total += pool_host_bytes(&sim->slabs) + pool_host_bytes(&sim->sheaves);
    /* one block per sheaf that has objects, of its capacity (at least 1) */
    total += sim->nr_sheaf_arrays * SIM_HOST_OVERHEAD + sim->sheaf_slots * sizeof(sim_addr_t);
    total += sim->nr_rcu ? host_block(sim->nr_rcu * sizeof(*sim->rcu)) : 0;
    total += sim->nr_inflight ? host_block(sim->nr_inflight * sizeof(sim_addr_t)) : 0;
    total += sim->nr_user ? host_block(sim->nr_user * sizeof(*sim->user)) : 0;
    return total;
}

/* Operations that name a cache. */
static bool op_needs_cache(enum sim_op_kind kind)
{
    switch (kind) {
    case SIM_OP_CREATE:
    case SIM_OP_KMALLOC:
    case SIM_OP_KFREE:
    case SIM_OP_KREALLOC:
    case SIM_OP_WRITE:
    case SIM_OP_KFREE_RCU:
    case SIM_OP_GRACE_PERIOD:
    case SIM_OP_RCU_BARRIER:
    case SIM_OP_ALLOC_PAGES:
    case SIM_OP_FREE_PAGES:
        return false;
    default:
        return true;
    }
}

/* The kernel function of an operation the legacy model does not have, or NULL. */
static const char *legacy_refuses(enum sim_op_kind kind)
{
    switch (kind) {
    case SIM_OP_PREFILL:
        return "kmem_cache_prefill_sheaf";
    case SIM_OP_ALLOC_FROM_SHEAF:
        return "kmem_cache_alloc_from_sheaf";
    case SIM_OP_REFILL_SHEAF:
        return "kmem_cache_refill_sheaf";
    case SIM_OP_RETURN_SHEAF:
        return "kmem_cache_return_sheaf";
    default:
        return NULL;
    }
}

/* Check an operation against the machine; 0 or -EINVAL with a message. */
static int check_op(const struct sim *sim, const struct sim_op *op, struct sim_result *res)
{
    bool needs_cache = op_needs_cache(op->kind);

    if ((unsigned)op->kind >= SIM_NR_OPS) {
        snprintf(res->message, sizeof(res->message), "unknown operation %d", (int)op->kind);
        return -EINVAL;
    }
    if (op->cpu >= sim->cfg.nr_cpus) {
        snprintf(res->message, sizeof(res->message), "CPU %u does not exist (the machine has %u)",
                op->cpu, sim->cfg.nr_cpus);
        return -EINVAL;
    }
    if (op->node != SIM_NUMA_NO_NODE && (op->node < 0 || (unsigned)op->node >= sim->cfg.nr_nodes)) {
        snprintf(res->message, sizeof(res->message), "node %d does not exist (the machine has %u)",
                op->node, sim->cfg.nr_nodes);
        return -EINVAL;
    }
    if (needs_cache && (op->cache < 0 || (unsigned)op->cache >= sim->nr_caches ||
                               !sim->caches[op->cache]->alive)) {
        snprintf(res->message, sizeof(res->message), "cache %d does not exist", op->cache);
        return -EINVAL;
    }
    for (unsigned i = 0; op->kind == SIM_OP_DESTROY && i < 16; i++) {
        if (sim->kmalloc_cache[i] == op->cache || sim->kmalloc_dma_cache[i] == op->cache) {
            snprintf(res->message, sizeof(res->message),
                    "cache %s is a kmalloc cache: kmalloc() would go on using it",
                    sim->caches[op->cache]->name);
            return -EINVAL;
        }
    }
    if ((op->kind == SIM_OP_ALLOC_BULK || op->kind == SIM_OP_FREE_BULK) &&
            (op->count < 1 || op->count > (1u << 20) ||
                    (op->kind == SIM_OP_ALLOC_BULK ? !op->out : !op->in))) {
        snprintf(res->message, sizeof(res->message), "bulk count %u is not in 1..%u", op->count,
                1u << 20);
        return -EINVAL;
    }
    if ((op->kind == SIM_OP_PREFILL || op->kind == SIM_OP_REFILL_SHEAF) &&
            (op->count < 1 || op->count > 65536)) {
        snprintf(res->message, sizeof(res->message), "prefill count %u is not in 1..65536",
                op->count);
        return -EINVAL;
    }
    if (op->kind == SIM_OP_ALLOC && op->size > sim->caches[op->cache]->object_size) {
        snprintf(res->message, sizeof(res->message),
                 "requested size %u is above the object size of %s (%u)", op->size,
                 sim->caches[op->cache]->name, sim->caches[op->cache]->object_size);
        return -EINVAL;
    }
    if (op->context > SIM_CTX_RT) {
        snprintf(res->message, sizeof(res->message), "unknown calling context %u", op->context);
        return -EINVAL;
    }
    if ((op->kind == SIM_OP_ALLOC_PAGES || op->kind == SIM_OP_FREE_PAGES) &&
            op->order > MAX_PAGE_ORDER) {
        snprintf(res->message, sizeof(res->message), "order %u is above MAX_PAGE_ORDER (%u)",
                op->order, MAX_PAGE_ORDER);
        return -EINVAL;
    }
    if (op->kind == SIM_OP_ALLOC_PAGES &&
            sim_gfp_check(op->gfp ? op->gfp : SIM_GFP_KERNEL, res->message, sizeof(res->message)))
        return -EINVAL;
    if (sim->cfg.model == SIM_MODEL_LEGACY && legacy_refuses(op->kind)) {
        snprintf(res->message, sizeof(res->message),
                "%s: the legacy model (kernels before 6.18) has no sheaves; prefilled sheaves "
                "came with them",
                legacy_refuses(op->kind));
        return -EINVAL;
    }
    if (op->kind == SIM_OP_ALLOC_FROM_SHEAF || op->kind == SIM_OP_REFILL_SHEAF ||
            op->kind == SIM_OP_RETURN_SHEAF) {
        uint32_t idx = sheaf_by_id(sim, op->sheaf);

        if (!idx || sheaf_at(sim, idx)->place.type != SIM_PL_PREFILL ||
                sheaf_at(sim, idx)->cache != op->cache) {
            snprintf(res->message, sizeof(res->message),
                    "sheaf %u is not a prefilled sheaf of cache %d held by the caller", op->sheaf,
                    op->cache);
            return -EINVAL;
        }
    }
    return 0;
}

/*
 * The allocation and free fast paths (alloc_from_pcs with objects in main,
 * free_to_pcs of a local object with room in main) neither allocate host
 * memory nor fault, so they run without arming the unwinding of sim_apply
 * (setjmp() costs a fifth of them).  Returns false, having changed
 * nothing, when the operation needs the general path.  in_apply stays
 * false here: an unexpected host allocation would stop at SIM_BUG_ON.
 */
static bool apply_fast(struct sim *sim, const struct sim_op *op, struct kmem_cache *s,
        uint32_t gfp, struct sim_result *res)
{
    struct slab *slab;
    struct slab_sheaf *main;

    if (sim->cfg.rcu_mode != SIM_RCU_MANUAL)
        return false; /* a grace period may follow the operation */
    if (op->kind == SIM_OP_ALLOC) {
        main = sheaf_at(sim, s->pcs[sim->cpu].main);
        if (op->node != SIM_NUMA_NO_NODE || (gfp & SIM_GFP_ZERO) || !main->size)
            return false;
        res->cache = s->id;
        res->addr = alloc_from_pcs(sim, s, op->node);
        return true;
    }
    if (op->kind != SIM_OP_FREE || !cache_has_sheaves(s))
        return false;
    main = sheaf_at(sim, s->pcs[sim->cpu].main);
    slab = slab_of(sim, op->addr);
    if (main->size >= s->sheaf_capacity || !slab || slab->cache != s->id ||
            slab->node != cpu_node(sim) || slab_obj_index(s, slab, op->addr) < 0)
        return false;
    res->cache = s->id;
    return free_to_pcs(sim, s, op->addr);
}

int sim_apply(struct sim *sim, const struct sim_op *op, struct sim_result *res)
{
    /* volatile: live across setjmp(), which gcc -O2 warns about (-Wclobbered) */
    struct kmem_cache *volatile s = NULL;
    uint32_t gfp = op->gfp ? op->gfp : SIM_GFP_KERNEL;
    volatile int ret = 0;

    res->status = SIM_OK; /* not a memset: the message buffer is large */
    res->addr = SIM_NULL;
    res->count = 0;
    res->sheaf = 0;
    res->cache = -1;
    res->message[0] = 0;
    sim->req_size = 0;
    if (sim->broken) {
        snprintf(res->message, sizeof(res->message),
                "the machine ran out of host memory earlier and cannot continue");
        return -EIO;
    }
    if (sim->halted) {
        snprintf(res->message, sizeof(res->message),
                "the kernel crashed at an earlier operation; step back before the corruption");
        return -EIO;
    }
    if (check_op(sim, op, res))
        return -EINVAL;
    if (op->kind == SIM_OP_RACE && (ret = race_check(sim, op, res)))
        return ret;
    if (op_needs_cache(op->kind))
        s = sim->caches[op->cache];
    sim->cpu = (int)op->cpu;
    sim->res = res;
    sim->ev.nr_branches = 0; /* a decision no event showed ends with its operation */
    sim->gfp = gfp;
    sim->gfp_ctx = sim_gfp_ctx_of((enum sim_gfp_context)op->context, sim->cfg.cma);
    sim->in_op = true;
    if (apply_fast(sim, op, s, gfp, res)) {
        sim->op++;
        sim->in_op = false;
        return 0;
    }
    sim->in_apply = true;
    switch (setjmp(sim->oom_jmp)) {
    case 0:
        break;
    case 2: /* check_freepointer_or_oops(): the kernel would have faulted */
        sim_scratch_release_all(sim);
        sim->in_apply = false;
        sim->in_op = false;
        sim->op++;
        return 0;
    default:
        sim_scratch_release_all(sim);
        sim->in_apply = false;
        sim->in_op = false;
        sim->broken = true;
        snprintf(res->message, sizeof(res->message), "host memory exhausted");
        return -ENOMEM;
    }
    switch (op->kind) {
    case SIM_OP_CREATE:
        ret = kmem_cache_create(sim, &op->create, &res->cache, res->message,
                sizeof(res->message));
        break;
    case SIM_OP_ALLOC:
        res->cache = s->id;
        sim->req_size = op->size;
        res->addr = kmem_cache_alloc_node(sim, s, op->node, gfp);
        sim->req_size = 0;
        break;
    case SIM_OP_FREE:
        res->cache = s->id;
        kmem_cache_free(sim, s, op->addr);
        break;
    case SIM_OP_KMALLOC:
        ret = kmalloc(sim, op->size, op->node, gfp, res);
        break;
    case SIM_OP_KFREE:
        kfree(sim, op->addr);
        break;
    case SIM_OP_ALLOC_BULK:
        res->cache = s->id;
        res->count = kmem_cache_alloc_bulk(sim, s, op->count, op->out);
        break;
    case SIM_OP_FLUSH_ALL:
        flush_all(sim, s);
        break;
    case SIM_OP_SHRINK:
        kmem_cache_shrink(sim, s);
        break;
    case SIM_OP_DESTROY:
        kmem_cache_destroy(sim, s);
        break;
    case SIM_OP_WRITE:
        ret = user_write(sim, op->addr, op->count, op->byte);
        break;
    case SIM_OP_KFREE_RCU:
        kfree_rcu(sim, op->addr);
        break;
    case SIM_OP_GRACE_PERIOD:
        rcu_grace_period(sim, "operation");
        break;
    case SIM_OP_RCU_BARRIER:
        kvfree_rcu_barrier(sim);
        break;
    case SIM_OP_PREFILL:
        res->cache = s->id;
        res->sheaf = kmem_cache_prefill_sheaf(sim, s, op->count);
        res->sheaf = res->sheaf ? sheaf_at(sim, res->sheaf)->id : 0;
        break;
    case SIM_OP_ALLOC_FROM_SHEAF:
        res->cache = s->id;
        res->addr = kmem_cache_alloc_from_sheaf(sim, s, sheaf_by_id(sim, op->sheaf));
        break;
    case SIM_OP_REFILL_SHEAF:
        res->cache = s->id;
        res->sheaf = kmem_cache_refill_sheaf(sim, s, sheaf_by_id(sim, op->sheaf), op->count);
        res->sheaf = res->sheaf ? sheaf_at(sim, res->sheaf)->id : 0;
        break;
    case SIM_OP_RETURN_SHEAF:
        res->cache = s->id;
        kmem_cache_return_sheaf(sim, s, sheaf_by_id(sim, op->sheaf));
        break;
    case SIM_OP_FREE_BULK:
        res->cache = s->id;
        kmem_cache_free_bulk_checked(sim, s, op->count, op->in);
        break;
    case SIM_OP_ALLOC_PAGES:
        if (alloc_pages_user(sim, op->node, gfp, op->order, &res->addr))
            sim_result_msg(sim, SIM_FAILED, "alloc_pages: no page of order %u for gfp %#x",
                    op->order, gfp);
        break;
    case SIM_OP_FREE_PAGES:
        ret = free_pages_user(sim, op->addr, op->order, res->message, sizeof(res->message));
        break;
    case SIM_OP_RACE:
        res->cache = s->id;
        ret = race_apply(sim, s, op->race, res);
        break;
    case SIM_OP_VALIDATE:
        res->cache = s->id;
        validate_slab_cache(sim, s);
        break;
    case SIM_OP_KREALLOC:
        ret = krealloc(sim, op->addr, op->size, gfp, res);
        break;
    default:
        break;
    }
    if (!ret) {
        kswapd_run(sim);
        sim->op++;
        rcu_tick(sim);
    }
    sim->kswapd_woken = 0;
    sim->in_apply = false;
    sim->in_op = false;
    /* a race refused on the clone that checks it stops mid-operation */
    SIM_BUG_ON((sim->nr_inflight != 0 || sim->ev.open) && !(ret && sim->race_checking));
    return ret;
}
