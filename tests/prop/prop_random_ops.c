/*
 * prop_random_ops.c: random valid operations on random machines, checked
 * against a reference model and the validator.
 *
 * For each seed: a random machine (1-4 CPUs, 1-2 nodes with a random
 * cpu_node map, 4-16 MiB per node, random variants, hardening, freelist
 * randomization and RCU grace period mode), 1-3 caches of random sizes and
 * flags (HWCACHE_ALIGN, no sheaves, debug, TYPESAFE_BY_RCU, a requested
 * sheaf capacity), then a thousand or more random operations:
 * allocations (some for a node), frees of random live objects from random
 * CPUs, kmalloc/kfree, bulk allocations and frees, kfree_rcu, grace
 * periods and barriers, flushes, shrinks, destroys of empty caches.  One
 * seed in ten is a "pressure" seed (one 4 MiB node, large objects, big
 * bulk allocations) so that memory runs out.  Every third seed runs the
 * legacy model (per-CPU slabs and partial lists), its three eras in turn, and
 * on a sixth the hybrid model of 6.18 (cpu slabs, sheaves on some caches),
 * with its own invariants in the validator; on either model only the
 * counters that model's kernels have may move.  The validator runs after
 * every event (level EVENT) and every operation (level OP), which sets the
 * time budget: see PROP_OPS_MIN.  The reference model is the set of live
 * objects per cache:
 *   - no address is handed out while it is live, and each is an object
 *     start of the right cache;
 *   - a free of a live object succeeds;
 *   - an allocation succeeds unless memory ran out (SIM_FAILED, with SLUB's
 *     report, and no free block large enough left on any node);
 *   - the engine's count of objects in users' hands equals the model's,
 *     and each cache's `objects` file equals users + sheaves + objects
 *     waiting for RCU;
 *   - a double free the kernel catches (the object heads its slab's
 *     freelist, or is anywhere on it in a cache with consistency checks)
 *     is SIM_MISUSE with the state unchanged (but for free_slowpath in
 *     the latter, as in the kernel) and exactly one event carrying the
 *     report; probed on machines whose grace periods are manual, since an
 *     automatic one may follow any operation;
 *   - at the end, everything freed and every cache shrunk, no slab is left
 *     and every zone is back to whole max-order blocks.
 * A failure prints the seed and operation index; PROP_SEED=<n> reruns one
 * seed, PROP_SEEDS=<n> sets the number of seeds, PROP_SCALE=<k> multiplies
 * the operations per seed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>

#include "internal.h"
#include "simtest.h"
#include "snapcmp.h"

#if defined(__SANITIZE_ADDRESS__) || defined(SLUBLAB_CHECK_FULL)
#define PROP_HEAVY 1 /* sanitizers and a Debug build: a few times slower */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PROP_HEAVY 1
#endif
#endif

/* The validator runs after every event and walks the whole machine, so the
 * operation count is what the time budget allows: about a minute for the
 * 200 seeds in each build (a Debug build with sanitizers is ~10x slower). */
#ifdef PROP_HEAVY
#define PROP_OPS_MIN 60u
#define PROP_OPS_MAX 140u
#else
#define PROP_OPS_MIN 800u
#define PROP_OPS_MAX 2000u
#endif
#define PROP_SEEDS_DEFAULT 200u
#define MAX_USER_CACHES    3u
#define BULK_MAX           150u
#define ZERO_SIZE_PTR      ((sim_addr_t)0x10)

struct live {
    sim_addr_t addr;
    int cache;
};

struct model {
    struct sim *sim;
    struct sim_config cfg;
    uint64_t seed, rng;
    unsigned op_index;
    bool failed; /* a check failed: stop this seed */

    int ucache[MAX_USER_CACHES]; /* user caches alive, by cache id */
    unsigned nr_ucache, nr_created;

    struct live *live; /* the model: objects in users' hands */
    unsigned nr_live, cap_live;
    uint32_t *hash; /* open addressing: index + 1 into live[], 0 empty */
    unsigned hash_mask;
    bool grow;              /* workload phase */
    unsigned live_soft_max; /* above this the workload drains */
    bool pressure;          /* small nodes and a large-object cache: memory runs out */
    unsigned km_class[3];   /* the kmalloc classes (0: sizes 1..8, ... 13: ..8192) this seed uses */

    /* what the callback saw */
    unsigned long events, reports, violations;
    unsigned long nomem_reports; /* "Unable to allocate" reports */
    char nomem_wrong[200];       /* set when one came with a large enough free block */
    char first_violation[320];
    char last_report[sizeof(((struct sim_result *)0)->message)];

    /* totals over the seed */
    unsigned long nomem, double_frees, destroys, bulk_objs, remote_frees;
};

/* ---- checks that name the seed and operation ---- */

static bool prop_check(struct model *m, bool ok, const char *expr, const char *file, int line,
        const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static bool prop_check(struct model *m, bool ok, const char *expr, const char *file, int line,
        const char *fmt, ...)
{
    va_list ap;

    if (ok)
        return true;
    if (m->failed)
        return false; /* reported already: one failure per seed */
    check_record(false, file, line);
    printf("CHECK(%s)\n    seed %llu, op %u: ", expr, (unsigned long long)m->seed, m->op_index);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n    rerun with PROP_SEED=%llu\n", (unsigned long long)m->seed);
    m->failed = true;
    return false;
}
#define PCHECK(m, cond, ...)                                                                       \
    prop_check((m), (cond) ? true : false, #cond, __FILE__, __LINE__, __VA_ARGS__)

/* ---- randomness of the workload (the engine has its own) ---- */

static uint64_t rnd(struct model *m)
{
    uint64_t z = (m->rng += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static unsigned below(struct model *m, unsigned n)
{
    return (unsigned)(rnd(m) % n);
}

static bool chance(struct model *m, unsigned percent)
{
    return below(m, 100) < percent;
}

/* ---- the live set: array plus hash from address to index ---- */

static unsigned hash_slot(const struct model *m, sim_addr_t a)
{
    uint64_t h = a * 0x9e3779b97f4a7c15ull;

    return (unsigned)(h >> 32) & m->hash_mask;
}

/* Index in live[] of @a, or -1. */
static long live_find(const struct model *m, sim_addr_t a)
{
    for (unsigned i = hash_slot(m, a);; i = (i + 1) & m->hash_mask) {
        uint32_t e = m->hash[i];

        if (!e)
            return -1;
        if (m->live[e - 1].addr == a)
            return (long)e - 1;
    }
}

static void hash_put(struct model *m, sim_addr_t a, uint32_t idx)
{
    unsigned i = hash_slot(m, a);

    while (m->hash[i] && m->live[m->hash[i] - 1].addr != a)
        i = (i + 1) & m->hash_mask;
    m->hash[i] = idx + 1;
}

static void hash_grow(struct model *m)
{
    unsigned size = (m->hash_mask + 1) * 2;

    free(m->hash);
    m->hash = calloc(size, sizeof(*m->hash));
    if (!m->hash)
        abort();
    m->hash_mask = size - 1;
    for (uint32_t k = 0; k < m->nr_live; k++)
        hash_put(m, m->live[k].addr, k);
}

static void live_add(struct model *m, sim_addr_t a, int cache)
{
    if (m->nr_live == m->cap_live) {
        m->cap_live *= 2;
        m->live = realloc(m->live, m->cap_live * sizeof(*m->live));
        if (!m->live)
            abort();
    }
    m->live[m->nr_live] = (struct live){a, cache};
    hash_put(m, a, m->nr_live);
    m->nr_live++;
    if (m->nr_live * 2 > m->hash_mask)
        hash_grow(m);
}

/* Remove @a (backward-shift deletion keeps probe chains whole). */
static void live_remove(struct model *m, sim_addr_t a)
{
    unsigned i = hash_slot(m, a), j;
    uint32_t idx, last = m->nr_live - 1;

    while (m->live[m->hash[i] - 1].addr != a)
        i = (i + 1) & m->hash_mask;
    idx = m->hash[i] - 1;
    m->hash[i] = 0;
    for (j = (i + 1) & m->hash_mask; m->hash[j]; j = (j + 1) & m->hash_mask) {
        unsigned home = hash_slot(m, m->live[m->hash[j] - 1].addr);

        /* move entry j back to the hole at i unless its home lies in (i, j] */
        if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
            m->hash[i] = m->hash[j];
            m->hash[j] = 0;
            i = j;
        }
    }
    if (idx != last) {
        m->live[idx] = m->live[last];
        hash_put(m, m->live[idx].addr, idx);
    }
    m->nr_live--;
}

static unsigned live_count(const struct model *m, int cache)
{
    unsigned n = 0;

    for (unsigned i = 0; i < m->nr_live; i++)
        n += m->live[i].cache == cache;
    return n;
}

/* ---- the machine ---- */

static void on_event(const struct sim_event *ev, void *arg)
{
    struct model *m = arg;
    struct sim_report rep;

    m->events++;
    if (ev->report) {
        m->reports++;
        snprintf(m->last_report, sizeof(m->last_report), "%s", ev->report);
    }
    if (ev->report && ev->cache >= 0 && strstr(ev->report, "Unable to allocate")) {
        /* memory must really have run out, now: a grace period may free
         * some before the operation ends */
        const struct kmem_cache *s = m->sim->caches[ev->cache];

        m->nomem_reports++;
        /* GFP_KERNEL at the minimum order: wrong when a zone was above its
         * min watermark for that order and had a block of it */
        for (unsigned n = 0; n < m->sim->nr_zones; n++) {
            const struct zone *z = &m->sim->zones[n];
            long usable = (long)z->free_pages - ((1l << s->min.order) - 1);

            if (usable <= (long)(z->wmark[SIM_WMARK_MIN] + z->lowmem_reserve[SIM_ZONE_NORMAL]))
                continue;
            for (unsigned o = s->min.order; o <= MAX_PAGE_ORDER; o++)
                if (zone_nr_free(z, o) && !m->nomem_wrong[0])
                    snprintf(m->nomem_wrong, sizeof(m->nomem_wrong),
                            "%s failed with a free order-%u block and %lu free pages (min "
                            "watermark %lu) on node %u (min order %u)",
                            s->name, o, z->free_pages, z->wmark[SIM_WMARK_MIN], n,
                            s->min.order);
        }
    }
    if (sim_validate(m->sim, SIM_VALIDATE_EVENT, &rep) && !m->violations)
        snprintf(m->first_violation, sizeof(m->first_violation), "after event %llu (%s/%s): %s",
                (unsigned long long)ev->seq, ev->fn, ev->label, rep.msg[0]);
    m->violations += rep.violations;
}

static void random_config(struct model *m)
{
    struct sim_config *cfg = &m->cfg;

    sim_config_default(cfg);
    cfg->seed = m->seed;
    cfg->nr_cpus = 1 + below(m, 4);
    cfg->nr_nodes = 1 + below(m, 2);
    for (unsigned c = 0; c < cfg->nr_cpus; c++)
        cfg->cpu_node[c] = below(m, cfg->nr_nodes);
    cfg->mem_per_node = (uint64_t)(1 + below(m, 4)) << 22;
    for (unsigned v = 0; v < SIM_NR_VARIANTS; v++)
        cfg->variant[v] = (uint8_t)below(m, 2);
    cfg->freelist_hardened = chance(m, 50);
    cfg->freelist_random = chance(m, 50);
    cfg->rcu_mode = (enum sim_rcu_mode)below(m, 3);
    cfg->rcu_gap = 1 + below(m, 40);
    if (m->seed % 3 == 0) { /* a third of the seeds run the legacy model, eras in turn */
        cfg->model = SIM_MODEL_LEGACY;
        cfg->legacy_era = (enum sim_legacy_era)(SIM_ERA_FROZEN_PARTIAL + m->seed / 3 % 3);
        cfg->variant[SIM_VAR_CPU_PARTIAL_DIRECT_LOAD] =
                cfg->legacy_era == SIM_ERA_DIRECT_LOAD ? SIM_AFTER : SIM_BEFORE;
    } else if (m->seed % 6 == 4) { /* a sixth the hybrid model of 6.18 */
        cfg->model = SIM_MODEL_HYBRID;
        cfg->variant[SIM_VAR_CPU_PARTIAL_DIRECT_LOAD] = SIM_AFTER;
    }
}

static const char *describe(const struct model *m)
{
    static char buf[200];
    const struct sim_config *c = &m->cfg;

    char model[48];

    sim_model_format(c, model, sizeof(model));
    snprintf(buf, sizeof(buf),
            "%s, %u CPUs, %u nodes, %llu MiB/node, variants %u%u%u%u, %s, %s, rcu %s gap %u",
            model, c->nr_cpus, c->nr_nodes, (unsigned long long)(c->mem_per_node >> 20),
            c->variant[0], c->variant[1], c->variant[2], c->variant[3],
            c->freelist_hardened ? "hardened" : "plain",
            c->freelist_random ? "random" : "ordered", sim_rcu_mode_name(c->rcu_mode),
            c->rcu_gap);
    return buf;
}

/* Apply @op; checks the return code, the validator after the op, and
 * that the model and the engine agree on the objects users hold. */
static int apply(struct model *m, struct sim_op *op, struct sim_result *res)
{
    struct sim_report rep;
    int ret = sim_apply(m->sim, op, res);

    PCHECK(m, ret == 0, "sim_apply returned %d for op kind %d: %s", ret, (int)op->kind,
            res->message);
    if (sim_validate(m->sim, SIM_VALIDATE_OP, &rep) && !m->violations)
        snprintf(m->first_violation, sizeof(m->first_violation), "after op: %s", rep.msg[0]);
    m->violations += rep.violations;
    PCHECK(m, m->violations == 0, "%lu violations, first %s", m->violations,
            m->first_violation);
    return ret;
}

/* The engine's count of user-held objects per cache equals the model's. */
static void check_user_counts(struct model *m)
{
    unsigned nr = sim_nr_caches(m->sim);
    long *held = calloc(nr ? nr : 1, sizeof(*held));

    if (!held)
        abort();
    for (uint32_t idx = 1; idx < m->sim->slabs.used; idx++) {
        const struct slab *slab = slab_at(m->sim, idx);

        if (slab->cache >= 0)
            held[slab->cache] += slab->nr_user;
    }
    for (unsigned i = 0; i < m->nr_live; i++)
        held[m->live[i].cache]--;
    for (unsigned c = 0; c < nr; c++)
        PCHECK(m, held[c] == 0, "cache %s: engine and model differ by %ld objects",
                m->sim->caches[c]->name, held[c]);
    free(held);
}

/* Through the public API: a cache's `objects` is what users and sheaves hold
 * (legacy model: and the free objects of slabs owned by CPUs, which sysfs
 * counts as in use: cpu slabs with their lockless freelists, CPU partial
 * slabs). */
static void check_objects_file(struct model *m)
{
    struct sim_snapshot *snap = snap_take(m->sim);

    if (!PCHECK(m, snap != NULL, "no snapshot"))
        return;
    for (size_t c = 0; c < snap->nr_caches; c++) {
        unsigned long in_sheaves = 0, rcu = 0;

        for (size_t i = 0; i < snap->nr_sheaves; i++)
            if (snap->sheaves[i].cache == (int)c)
                in_sheaves += snap->sheaves[i].size;
        for (size_t i = 0; i < snap->nr_rcu_objs; i++)
            rcu += slab_of(m->sim, snap->rcu_objs[i])->cache == (int)c;
        for (size_t i = 0; i < snap->nr_slabs; i++)
            if (snap->slabs[i].cache == (int)c &&
                    (snap->slabs[i].place.type == SIM_PL_CPU_SLAB ||
                            snap->slabs[i].place.type == SIM_PL_CPU_PARTIAL))
                in_sheaves += snap->slabs[i].nr_free;
        for (unsigned cpu = 0; cpu < snap->nr_cpus; cpu++)
            in_sheaves += snap->caches[c].cpu_slab[cpu].nr_freelist;
        PCHECK(m, snap->caches[c].objects == live_count(m, (int)c) + in_sheaves + rcu,
                "cache %s: objects %lu, users %u + sheaves (or CPUs) %lu + waiting for RCU %lu",
                snap->caches[c].name, snap->caches[c].objects, live_count(m, (int)c),
                in_sheaves, rcu);
    }
    sim_snapshot_release(snap);
}

/* A new object @a of cache @cache: not live, an object start of that cache. */
static void took(struct model *m, sim_addr_t a, int cache)
{
    const struct slab *slab = slab_of(m->sim, a);

    PCHECK(m, a != 0, "allocation returned NULL with SIM_OK");
    PCHECK(m, live_find(m, a) < 0, "0x%llx handed out while live", (unsigned long long)a);
    if (PCHECK(m, slab != NULL, "0x%llx is in no slab", (unsigned long long)a)) {
        PCHECK(m, slab->cache == cache, "0x%llx is of cache %d, not %d", (unsigned long long)a,
                slab->cache, cache);
        PCHECK(m, slab_obj_index(m->sim->caches[slab->cache], slab, a) >= 0,
                "0x%llx is not an object start", (unsigned long long)a);
    }
    live_add(m, a, cache);
}

/* After SIM_FAILED on an allocation from @cache: SLUB's report came in
 * an event, when no node had a block of the cache's minimum order. */
static void check_nomem(struct model *m, int cache, const struct sim_result *res,
        unsigned long nomem_reports)
{
    m->nomem++;
    PCHECK(m, strstr(res->message, "Unable to allocate") != NULL, "message: %s", res->message);
    PCHECK(m, m->nomem_reports == nomem_reports + 1, "%lu reports of %s failing",
            m->nomem_reports - nomem_reports, m->sim->caches[cache]->name);
    PCHECK(m, !m->nomem_wrong[0], "%s", m->nomem_wrong);
}

/* ---- operations ---- */

static void op_create(struct model *m)
{
    static const uint32_t debug_sets[] = {
        SIM_SLAB_RED_ZONE | SIM_SLAB_POISON | SIM_SLAB_STORE_USER,
        SIM_SLAB_CONSISTENCY_CHECKS | SIM_SLAB_RED_ZONE | SIM_SLAB_POISON |
                SIM_SLAB_STORE_USER,
        SIM_SLAB_POISON,
        SIM_SLAB_STORE_USER,
    };
    struct sim_op op = {.kind = SIM_OP_CREATE, .node = SIM_NUMA_NO_NODE};
    struct sim_result res;
    unsigned e = 3 + below(m, 11), kind = below(m, 10);

    if (m->pressure)
        e = 12; /* 4096..8191 bytes: a few hundred objects fill the node */
    op.cpu = below(m, m->cfg.nr_cpus);
    snprintf(op.create.name, sizeof(op.create.name), "c%u", m->nr_created++);
    op.create.object_size = (1u << e) + below(m, 1u << e);
    if (op.create.object_size > 8192)
        op.create.object_size = 8192;
    if (kind < 3)
        op.create.flags = SIM_SLAB_HWCACHE_ALIGN;
    else if (kind == 3)
        op.create.flags = SIM_SLAB_NO_OBJ_EXT; /* no sheaves: every free is __slab_free */
    else if (kind == 4)
        op.create.flags = debug_sets[below(m, 4)];
    else if (kind == 5)
        op.create.flags = SIM_SLAB_TYPESAFE_BY_RCU; /* slab pages go back after a grace period */
    if (kind >= 8)
        op.create.sheaf_capacity = 1 + below(m, 120);
    if (apply(m, &op, &res) || !PCHECK(m, res.status == SIM_OK, "create: %s", res.message))
        return;
    m->ucache[m->nr_ucache++] = res.cache;
}

static int random_ucache(struct model *m)
{
    return m->ucache[below(m, m->nr_ucache)];
}

static int random_node(struct model *m)
{
    return chance(m, 25) ? (int)below(m, m->cfg.nr_nodes) : SIM_NUMA_NO_NODE;
}

static void op_alloc(struct model *m)
{
    struct sim_op op = {.kind = SIM_OP_ALLOC};
    struct sim_result res;

    unsigned long nomem_reports = m->nomem_reports;

    op.cache = random_ucache(m);
    op.cpu = below(m, m->cfg.nr_cpus);
    op.node = random_node(m);
    if (apply(m, &op, &res))
        return;
    if (res.status == SIM_OK)
        took(m, res.addr, op.cache);
    else if (PCHECK(m, res.status == SIM_FAILED, "alloc: status %d: %s", res.status,
                     res.message))
        check_nomem(m, op.cache, &res, nomem_reports);
}

static void op_kmalloc(struct model *m)
{
    static const unsigned lo[14] = {0, 1, 9, 17, 33, 65, 97, 129, 193, 257, 513, 1025, 2049,
            4097};
    static const unsigned hi[14] = {0, 8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096,
            8192};
    struct sim_op op = {.kind = SIM_OP_KMALLOC};
    struct sim_result res;
    unsigned c = chance(m, 3) ? 0 : m->km_class[below(m, 3)];
    unsigned long nomem_reports = m->nomem_reports;

    op.cpu = below(m, m->cfg.nr_cpus);
    op.node = random_node(m);
    op.size = c ? lo[c] + below(m, hi[c] - lo[c] + 1) : 0;
    if (apply(m, &op, &res))
        return;
    if (op.size == 0) {
        PCHECK(m, res.status == SIM_OK && res.addr == ZERO_SIZE_PTR, "kmalloc(0): 0x%llx",
                (unsigned long long)res.addr);
        return;
    }
    if (!PCHECK(m, res.cache >= 0, "kmalloc(%u) used no cache", op.size))
        return;
    PCHECK(m, m->sim->caches[res.cache]->object_size >= op.size &&
                      (m->sim->caches[res.cache]->flags & SIM_SLAB_KMALLOC),
            "kmalloc(%u) from %s", op.size, m->sim->caches[res.cache]->name);
    if (res.status == SIM_OK)
        took(m, res.addr, res.cache);
    else if (PCHECK(m, res.status == SIM_FAILED, "kmalloc: status %d", res.status))
        check_nomem(m, res.cache, &res, nomem_reports);
}

static void op_bulk(struct model *m)
{
    static sim_addr_t out[BULK_MAX];
    struct sim_op op = {.kind = SIM_OP_ALLOC_BULK, .node = SIM_NUMA_NO_NODE, .out = out};
    struct sim_result res;
    unsigned nr_live = m->nr_live;

    op.cache = random_ucache(m);
    op.cpu = below(m, m->cfg.nr_cpus);
    if (m->pressure)
        op.count = 50 + below(m, BULK_MAX - 49); /* fill the node quickly */
    else
        op.count = 1 + below(m, chance(m, 90) ? 8 : BULK_MAX);
    if (apply(m, &op, &res))
        return;
    if (res.status == SIM_OK) {
        PCHECK(m, res.count == op.count, "bulk: %u of %u", res.count, op.count);
        for (unsigned i = 0; i < res.count && !m->failed; i++)
            took(m, out[i], op.cache); /* also catches duplicates within the batch */
        m->bulk_objs += res.count;
        return;
    }
    PCHECK(m, res.status == SIM_FAILED && res.count == 0 && res.message[0],
            "bulk: status %d count %u: %s", res.status, res.count, res.message);
    PCHECK(m, m->nr_live == nr_live, "a failed bulk allocation changed the model");
    m->nomem++;
}

/* Would a free of @x on @cpu take the slab path (no sheaf in between)? */
static bool slab_path(struct model *m, const struct slab *slab, unsigned cpu)
{
    const struct kmem_cache *s = m->sim->caches[slab->cache];

    if (cache_has_sheaves(s) && slab->node == (int)m->cfg.cpu_node[cpu])
        return false;          /* a local free goes into the sheaves (7.x; 6.18's sheaf caches) */
    if (cache_has_cpu_slab(s)) /* legacy, hybrid: unless it is this CPU's cpu slab */
        return s->cpu_slab[cpu].slab != slab_idx(m->sim, slab);
    return true;
}

/*
 * @x was just freed.  If SLUB would catch freeing it again, do so: the
 * result is SIM_MISUSE with SLUB's report in exactly one event, and the
 * state is unchanged.  SLUB catches it when x heads its slab's freelist
 * and the free reaches the slab (set_freepointer's naive check), and in a
 * cache with SLAB_CONSISTENCY_CHECKS wherever x is on the freelist
 * (free_debug_processing); that one comes after the slow path was taken,
 * so free_slowpath counts it and one more event precedes the report.
 */
static void try_double_free(struct model *m, sim_addr_t x, int cache)
{
    const struct slab *slab = slab_of(m->sim, x);
    const struct kmem_cache *s;
    struct sim_snapshot *before, *after;
    struct sim_op op = {.node = SIM_NUMA_NO_NODE, .addr = x, .cache = cache};
    struct sim_result res;
    unsigned long events, reports;
    char why[160];
    bool checks;
    unsigned cpu = below(m, m->cfg.nr_cpus), tries;

    if (!slab || m->cfg.rcu_mode != SIM_RCU_MANUAL)
        return; /* the free discarded the slab; or a grace period may follow any operation */
    s = m->sim->caches[slab->cache];
    checks = (s->flags & SIM_SLAB_CONSISTENCY_CHECKS) != 0;
    if (checks ? !on_freelist(m->sim, s, slab, x) : slab->freelist != x)
        return; /* in a sheaf, or deeper in an unchecked freelist: SLUB would not notice */
    for (tries = 0; !slab_path(m, slab, cpu) && tries < m->cfg.nr_cpus; tries++)
        cpu = (cpu + 1) % m->cfg.nr_cpus;
    if (!slab_path(m, slab, cpu))
        return; /* every CPU would put it in a sheaf */
    op.kind = chance(m, 50) ? SIM_OP_FREE : SIM_OP_KFREE;
    op.cpu = cpu;
    before = snap_take(m->sim);
    events = m->events;
    reports = m->reports;
    if (apply(m, &op, &res))
        goto out;
    PCHECK(m, res.status == SIM_MISUSE, "double free of 0x%llx: status %d",
            (unsigned long long)x, res.status);
    PCHECK(m, strstr(res.message, checks ? "Object already free" : "object == fp") != NULL,
            "double free message: %s", res.message);
    PCHECK(m, m->events == events + 1 + checks && m->reports == reports + 1,
            "double free: %lu events, %lu reports", m->events - events, m->reports - reports);
    if (checks && before)
        before->caches[slab->cache].cpu_stats[cpu].v[SIM_FREE_SLOWPATH]++;
    PCHECK(m, !strcmp(m->last_report, res.message), "report \"%s\"", m->last_report);
    after = snap_take(m->sim);
    PCHECK(m, before && after && snap_equal(before, after, SNAPCMP_NOCLOCK, why, sizeof(why)),
            "double free changed the state: %s", before && after ? why : "no snapshot");
    sim_snapshot_release(after);
    m->double_frees++;
out:
    sim_snapshot_release(before);
}

static void op_free(struct model *m)
{
    struct sim_op op = {.node = SIM_NUMA_NO_NODE};
    struct sim_result res;
    struct live obj;
    const struct slab *slab;

    if (!m->nr_live)
        return;
    obj = m->live[below(m, m->nr_live)];
    op.kind = chance(m, 70) ? SIM_OP_FREE : SIM_OP_KFREE;
    op.cache = obj.cache;
    op.addr = obj.addr;
    op.cpu = below(m, m->cfg.nr_cpus);
    slab = slab_of(m->sim, obj.addr);
    if (slab && slab->node != (int)m->cfg.cpu_node[op.cpu])
        m->remote_frees++;
    live_remove(m, obj.addr);
    if (apply(m, &op, &res))
        return;
    if (!PCHECK(m, res.status == SIM_OK, "free of live 0x%llx: status %d: %s",
                (unsigned long long)obj.addr, res.status, res.message))
        return;
    if (chance(m, 5))
        try_double_free(m, obj.addr, obj.cache);
}

/* kfree_rcu of a live object: it leaves the user now, is freed after a
 * grace period (through the rcu_free sheaf, or on its own) */
static void op_kfree_rcu(struct model *m)
{
    struct sim_op op = {.kind = SIM_OP_KFREE_RCU, .node = SIM_NUMA_NO_NODE};
    struct sim_result res;
    struct live obj;

    if (!m->nr_live)
        return;
    obj = m->live[below(m, m->nr_live)];
    op.addr = obj.addr;
    op.cpu = below(m, m->cfg.nr_cpus);
    live_remove(m, obj.addr);
    if (!apply(m, &op, &res))
        PCHECK(m, res.status == SIM_OK, "kfree_rcu of live 0x%llx: status %d: %s",
                (unsigned long long)obj.addr, res.status, res.message);
}

/* kmem_cache_free_bulk of up to 32 live objects of one cache */
static void op_free_bulk(struct model *m)
{
    sim_addr_t in[32];
    struct sim_op op = {.kind = SIM_OP_FREE_BULK, .node = SIM_NUMA_NO_NODE, .in = in};
    struct sim_result res;
    unsigned want = 1 + below(m, 32), start;

    if (!m->nr_live)
        return;
    start = below(m, m->nr_live);
    op.cache = m->live[start].cache;
    for (unsigned i = 0; i < m->nr_live && op.count < want; i++) {
        const struct live *l = &m->live[(start + i) % m->nr_live];

        if (l->cache == op.cache)
            in[op.count++] = l->addr;
    }
    for (unsigned i = 0; i < op.count; i++)
        live_remove(m, in[i]);
    op.cpu = below(m, m->cfg.nr_cpus);
    if (!apply(m, &op, &res))
        PCHECK(m, res.status == SIM_OK, "free_bulk of %u live objects: status %d: %s", op.count,
                res.status, res.message);
}

static void op_simple(struct model *m, enum sim_op_kind kind)
{
    struct sim_op op = {.kind = kind, .node = SIM_NUMA_NO_NODE};
    struct sim_result res;
    int kmalloc_ids[16];
    unsigned nr = 0;

    /* flush and shrink also go to kmalloc caches */
    for (unsigned i = 0; i < 16; i++)
        if (m->sim->kmalloc_cache[i] >= 0)
            kmalloc_ids[nr++] = m->sim->kmalloc_cache[i];
    op.cache = nr && (chance(m, 30) || !m->nr_ucache) ? kmalloc_ids[below(m, nr)]
               : m->nr_ucache                              ? random_ucache(m)
                                                           : 0;
    op.cpu = below(m, m->cfg.nr_cpus);
    if (!apply(m, &op, &res))
        PCHECK(m, res.status == SIM_OK, "op %d: status %d: %s", (int)kind, res.status,
                res.message);
}

/* Destroy user cache ucache[@k]: it succeeds when the model says it is
 * empty, and fails (the cache stays) otherwise. */
static void destroy_ucache(struct model *m, unsigned k)
{
    struct sim_op op = {.kind = SIM_OP_DESTROY, .node = SIM_NUMA_NO_NODE};
    struct sim_result res;
    unsigned held;

    op.cache = m->ucache[k];
    op.cpu = below(m, m->cfg.nr_cpus);
    held = live_count(m, op.cache);
    if (m->cfg.model == SIM_MODEL_HYBRID && !held) {
        /* 6.18's __kmem_cache_shutdown flushes the CPUs before the barns, whose
         * objects can land on a CPU partial list and keep their slabs: shrink
         * first, as a caller destroying a sheaf cache of 6.18 would have to */
        struct sim_op shrink = {
                .kind = SIM_OP_SHRINK, .cache = op.cache, .cpu = op.cpu, .node = SIM_NUMA_NO_NODE};

        if (apply(m, &shrink, &res))
            return;
    }
    if (apply(m, &op, &res))
        return;
    if (held) {
        PCHECK(m, res.status == SIM_FAILED && strstr(res.message, "Objects remaining"),
                "destroy of a cache with %u objects: status %d: %s", held, res.status,
                res.message);
        return;
    }
    if (!PCHECK(m, res.status == SIM_OK, "destroy of an empty cache: %s", res.message))
        return;
    m->ucache[k] = m->ucache[--m->nr_ucache];
    m->destroys++;
}

/* Destroy a random user cache, mostly only when it is empty. */
static void op_destroy(struct model *m)
{
    unsigned k = below(m, m->nr_ucache);

    if (!live_count(m, m->ucache[k]) || chance(m, 10))
        destroy_ucache(m, k);
}

/* Free every object of one user cache, then destroy it. */
static void op_teardown(struct model *m)
{
    unsigned k = below(m, m->nr_ucache);
    int cache = m->ucache[k];

    for (unsigned i = 0; i < m->nr_live && !m->failed;) {
        struct sim_op op = {.kind = SIM_OP_FREE, .cache = cache, .node = SIM_NUMA_NO_NODE};
        struct sim_result res;

        if (m->live[i].cache != cache) {
            i++;
            continue;
        }
        op.addr = m->live[i].addr;
        op.cpu = below(m, m->cfg.nr_cpus);
        live_remove(m, op.addr); /* live[i] is now another object */
        if (!apply(m, &op, &res))
            PCHECK(m, res.status == SIM_OK, "teardown free: status %d: %s", res.status,
                    res.message);
    }
    if (!m->failed)
        destroy_ucache(m, k);
}

static void one_op(struct model *m)
{
    unsigned dice = below(m, 1000), alloc_share;

    if (m->nr_live > m->live_soft_max)
        m->grow = false;
    else if (chance(m, 1) && below(m, 3) == 0)
        m->grow = !m->grow;
    if (!m->nr_ucache || (m->nr_ucache < MAX_USER_CACHES && dice < 3)) {
        op_create(m);
        return;
    }
    alloc_share = m->grow ? 600 : 300;
    if (dice < 1)
        op_teardown(m);
    else if (dice < 10)
        op_destroy(m);
    else if (dice < 22)
        op_simple(m, SIM_OP_FLUSH_ALL);
    else if (dice < 35)
        op_simple(m, SIM_OP_SHRINK);
    else if (dice < 35 + alloc_share * 55 / 100)
        op_alloc(m);
    else if (dice < 35 + alloc_share * 80 / 100)
        op_kmalloc(m);
    else if (dice < 35 + alloc_share)
        op_bulk(m);
    else if (dice < 900)
        op_free(m);
    else if (dice < 935)
        op_kfree_rcu(m);
    else if (dice < 970)
        op_free_bulk(m);
    else if (dice < 980)
        op_simple(m, SIM_OP_GRACE_PERIOD);
    else if (dice < 985)
        op_simple(m, SIM_OP_RCU_BARRIER);
    else
        op_simple(m, SIM_OP_KFREE); /* kfree(NULL) */
}

/* Free everything, shrink everything: no slab, whole zones. */
static void drain(struct model *m)
{
    struct sim_snapshot *snap;
    struct sim_result res;

    m->op_index = UINT32_MAX; /* "the drain" in messages */
    while (m->nr_live && !m->failed)
        op_free(m);
    op_simple(m, SIM_OP_RCU_BARRIER); /* objects waiting for a grace period */
    /* hybrid: twice, since 6.18's shrink flushes the barns after the CPUs, and
     * their objects can land on a CPU partial list (destroy_ucache) */
    for (unsigned pass = 0; pass < (m->cfg.model == SIM_MODEL_HYBRID ? 2u : 1u); pass++) {
        for (unsigned c = 0; c < sim_nr_caches(m->sim) && !m->failed; c++) {
            struct sim_op op = {.kind = SIM_OP_SHRINK, .cache = (int)c, .node = SIM_NUMA_NO_NODE};

            if (!m->sim->caches[c]->alive)
                continue;
            op.cpu = below(m, m->cfg.nr_cpus);
            apply(m, &op, &res);
        }
    }
    op_simple(m, SIM_OP_RCU_BARRIER); /* SLAB_TYPESAFE_BY_RCU slabs wait to give pages back */
    check_user_counts(m);
    snap = snap_take(m->sim);
    if (!PCHECK(m, snap != NULL, "no snapshot"))
        return;
    for (size_t c = 0; c < snap->nr_caches; c++)
        PCHECK(m, snap->caches[c].slabs == 0 && snap->caches[c].total_objects == 0,
                "cache %s keeps %lu slabs after the drain", snap->caches[c].name,
                snap->caches[c].slabs);
    PCHECK(m, snap->nr_slabs == 0, "%zu slabs after the drain", snap->nr_slabs);
    PCHECK(m, snap->nr_rcu_callbacks == 0 && snap->nr_rcu_objs == 0,
            "%u RCU callbacks still waiting after the drain", snap->nr_rcu_callbacks);
    for (size_t z = 0; z < snap->nr_zones; z++) {
        PCHECK(m, snap->zones[z].free_pages == snap->zones[z].pages,
                "zone %zu: %lu of %lu pages free", z, snap->zones[z].free_pages,
                snap->zones[z].pages);
        PCHECK(m, snap->zones[z].nr_free[SIM_MAX_ORDER] == snap->zones[z].pages >> SIM_MAX_ORDER,
                "zone %zu: %lu max-order blocks", z, snap->zones[z].nr_free[SIM_MAX_ORDER]);
    }
    sim_snapshot_release(snap);
    /* the user caches can all go now */
    while (m->nr_ucache && !m->failed) {
        struct sim_op op = {.kind = SIM_OP_DESTROY, .cache = m->ucache[--m->nr_ucache],
                .node = SIM_NUMA_NO_NODE};

        if (!apply(m, &op, &res))
            PCHECK(m, res.status == SIM_OK, "final destroy: %s", res.message);
    }
}

static unsigned env_unsigned(const char *name, unsigned dflt)
{
    const char *v = getenv(name);

    return v && *v ? (unsigned)strtoul(v, NULL, 0) : dflt;
}

struct totals {
    unsigned long seeds, ops, events, nomem, double_frees, destroys, bulk_objs, remote_frees;
    unsigned long legacy_seeds; /* seeds run with the legacy model */
    unsigned long hybrid_seeds; /* seeds run with the hybrid model */
};

static void run_seed(uint64_t seed, unsigned scale, struct totals *tot)
{
    struct model m;
    unsigned nr_ops;

    memset(&m, 0, sizeof(m));
    m.seed = seed;
    m.rng = seed * 0x2545f4914f6cdd1dull;
    m.cap_live = 1024;
    m.live = malloc(m.cap_live * sizeof(*m.live));
    m.hash_mask = 4095;
    m.hash = calloc(m.hash_mask + 1, sizeof(*m.hash));
    m.grow = true;
    if (!m.live || !m.hash)
        abort();
    random_config(&m);
    m.pressure = below(&m, 10) == 0;
    m.live_soft_max = m.pressure ? 1500 : below(&m, 4) == 0 ? 800 : below(&m, 2) ? 300 : 100;
    if (m.pressure) {
        m.cfg.mem_per_node = 4ull << 20;
        m.cfg.nr_nodes = 1;
        memset(m.cfg.cpu_node, 0, sizeof(m.cfg.cpu_node));
    }
    for (unsigned i = 0; i < 3; i++)
        m.km_class[i] = 1 + below(&m, 13);
    if (!PCHECK(&m, sim_create(&m.cfg, &m.sim) == 0, "sim_create (%s)", describe(&m)))
        goto out;
    sim_set_event_cb(m.sim, on_event, &m);
    nr_ops = (PROP_OPS_MIN + below(&m, PROP_OPS_MAX - PROP_OPS_MIN + 1)) * scale;
    for (unsigned n = 1 + below(&m, MAX_USER_CACHES); n > 0; n--)
        op_create(&m);
    for (m.op_index = 0; m.op_index < nr_ops && !m.failed; m.op_index++) {
        one_op(&m);
        check_user_counts(&m);
        if (m.op_index % 64 == 63)
            check_objects_file(&m);
    }
    if (!m.failed)
        drain(&m);
    /* each model moves only the counters its kernels have (sim_stat_in_model) */
    for (unsigned c = 0; !m.failed && c < sim_nr_caches(m.sim); c++)
        for (unsigned i = 0; i < SIM_NR_STATS; i++)
            PCHECK(&m, sim_stat_in_model(i, m.cfg.model) || sim_stat(m.sim, (int)c, i, -1) == 0,
                    "%s model: counter %s moved (%llu)", sim_model_name(m.cfg.model),
                    sim_stat_name(i), (unsigned long long)sim_stat(m.sim, (int)c, i, -1));
    if (m.failed)
        printf("    machine: %s\n", describe(&m));
    tot->seeds++;
    tot->legacy_seeds += m.cfg.model == SIM_MODEL_LEGACY;
    tot->hybrid_seeds += m.cfg.model == SIM_MODEL_HYBRID;
    tot->ops += sim_op_count(m.sim);
    tot->events += m.events;
    tot->nomem += m.nomem;
    tot->double_frees += m.double_frees;
    tot->destroys += m.destroys;
    tot->bulk_objs += m.bulk_objs;
    tot->remote_frees += m.remote_frees;
    sim_destroy(m.sim);
out:
    free(m.live);
    free(m.hash);
}

static unsigned prop_scale(void)
{
    unsigned scale = env_unsigned("PROP_SCALE", 1);

    return scale ? scale : 1;
}

static void test_random_ops(void)
{
    struct totals tot = {0};
    unsigned scale = prop_scale(), seeds = env_unsigned("PROP_SEEDS", PROP_SEEDS_DEFAULT);
    const char *one = getenv("PROP_SEED");

    if (one && *one) {
        run_seed(strtoull(one, NULL, 0), scale, &tot);
    } else {
        for (unsigned i = 1; i <= seeds; i++)
            run_seed(i, scale, &tot);
    }
    printf("     %lu seeds (%lu legacy, %lu hybrid), %lu ops, %lu events; %lu out-of-memory "
           "results, %lu double frees caught, %lu destroys, %lu bulk objects, %lu remote frees\n",
           tot.seeds, tot.legacy_seeds, tot.hybrid_seeds, tot.ops, tot.events, tot.nomem,
           tot.double_frees, tot.destroys, tot.bulk_objs, tot.remote_frees);
    if ((!one || !*one) && seeds >= PROP_SEEDS_DEFAULT) {
        /* a full run reached what it is meant to exercise */
        CHECK_GE_U(tot.seeds, seeds);
        CHECK_GT_U(tot.nomem, 0);
        CHECK_GT_U(tot.double_frees, 0);
        CHECK_GT_U(tot.destroys, 0);
        CHECK_GT_U(tot.remote_frees, 0);
        CHECK_GT_U(tot.legacy_seeds, seeds / 4);
        CHECK_GT_U(tot.hybrid_seeds, seeds / 8);
    }
}

int main(void)
{
    RUN_TEST(test_random_ops);
    return check_done();
}
