/*
 * validate.c: the invariant walker (in the manner of the kernel's
 * validate_slab_cache and mimalloc's _mi_page_is_valid).
 *
 * sim_validate() checks every invariant written in types.h, each field
 * comment naming its checker, and returns the number of violations, keeping
 * the first few messages.  Level EVENT holds after every event, mid-operation included; level
 * OP adds what holds only between operations (no private slabs, nothing in
 * flight, partial iff the freelist is not empty).  The conservation law is
 * checked per slab: objects in use equal objects held by users plus objects in
 * sheaves plus objects in flight, and no object appears twice (a double free
 * the kernel did not catch).
 */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct vstate {
    const struct sim *sim;
    enum sim_validate_level level;
    struct sim_report *rep;
    int *held;           /* [slabs.used] objects of each slab in sheaves or in flight */
    uint8_t **freemap;   /* [slabs.used] bitmaps of objects on each freelist */
    uint8_t **heldmap;   /* [slabs.used] bitmaps of objects in sheaves or in flight */
    unsigned long *node_slabs;   /* [caches][nodes] accounted slabs, counted in one pass */
    unsigned long *node_objects; /* [caches][nodes] their objects */
};

static void violation(struct vstate *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void violation(struct vstate *v, const char *fmt, ...)
{
    va_list ap;

    if (v->rep->violations < SIM_REPORT_MSGS) {
        va_start(ap, fmt);
        vsnprintf(v->rep->msg[v->rep->violations], sizeof(v->rep->msg[0]), fmt, ap);
        va_end(ap);
    }
    v->rep->violations++;
}

static bool bit_test_set(uint8_t *map, unsigned i)
{
    bool was = map[i / 8] & (1u << (i % 8));

    map[i / 8] |= (uint8_t)(1u << (i % 8));
    return was;
}

/* Invariant 1: the freelist is a chain of distinct valid objects of the
 * slab, objects - inuse long, ending in NULL. */
static void validate_slab(struct vstate *v, uint32_t idx)
{
    const struct sim *sim = v->sim;
    const struct slab *slab = slab_at(sim, idx);
    const struct kmem_cache *s = sim->caches[slab->cache];
    unsigned n = 0, want;
    sim_addr_t p;

    if (slab->inuse > slab->objects) {
        violation(v, "slab 0x%llx: inuse %u > objects %u", (unsigned long long)slab->base,
                slab->inuse, slab->objects);
        return;
    }
    if (slab->seq >= s->nr_created)
        violation(v, "slab 0x%llx: seq %u not below the cache's %u created",
                  (unsigned long long)slab->base, slab->seq, s->nr_created);
    if (slab->frozen)
        return; /* leaked after a failed debug check: nothing to walk */
    if (slab->fresh) {
        if (slab->list != SLAB_ON_PRIVATE || slab->freelist)
            violation(v, "slab 0x%llx: fresh slab must be private with no freelist",
                    (unsigned long long)slab->base);
        return;
    }
    want = slab->objects - slab->inuse;
    for (p = slab->freelist; p; n++) {
        long i = slab_obj_index(s, slab, p);

        if (i < 0) {
            violation(v, "slab 0x%llx: freelist entry 0x%llx is not an object of this slab",
                    (unsigned long long)slab->base, (unsigned long long)p);
            return;
        }
        if (bit_test_set(v->freemap[idx], (unsigned)i)) {
            violation(v, "slab 0x%llx: freelist visits object 0x%llx twice (a cycle)",
                    (unsigned long long)slab->base, (unsigned long long)p);
            return;
        }
        if (n >= want) {
            violation(v, "slab 0x%llx: freelist longer than objects - inuse = %u",
                    (unsigned long long)slab->base, want);
            return;
        }
        p = peek_freepointer(sim, s, p, NULL);
    }
    if (n != want)
        violation(v, "slab 0x%llx: freelist has %u objects, objects - inuse = %u",
                (unsigned long long)slab->base, n, want);
}

/* Objects of sheaves and of the in-flight set: valid, unique, not free. */
static void count_held(struct vstate *v, sim_addr_t obj, int cache, const char *where)
{
    const struct sim *sim = v->sim;
    const struct slab *slab = slab_of(sim, obj);
    uint32_t idx;
    long i;

    if (!slab) {
        violation(v, "%s holds 0x%llx, which is in no slab", where, (unsigned long long)obj);
        return;
    }
    idx = page_of(sim, obj)->slab;
    if (cache >= 0 && slab->cache != cache) {
        violation(v, "%s holds 0x%llx of cache %s", where, (unsigned long long)obj,
                sim->caches[slab->cache]->name);
        return;
    }
    i = slab_obj_index(sim->caches[slab->cache], slab, obj);
    if (i < 0) {
        violation(v, "%s holds 0x%llx, not an object start", where, (unsigned long long)obj);
        return;
    }
    v->held[idx]++;
    if (bit_test_set(v->heldmap[idx], (unsigned)i))
        violation(v, "object 0x%llx is held twice (double free)", (unsigned long long)obj);
    else if (v->freemap[idx][i / 8] & (1u << (i % 8)))
        violation(v, "object 0x%llx is both free on its slab and in %s",
                (unsigned long long)obj, where);
}

/* Invariant 5 and sheaf places. */
static void validate_sheaves(struct vstate *v)
{
    const struct sim *sim = v->sim;
    uint64_t arrays = 0, slots = 0;

    for (uint32_t i = 1; i < sim->sheaves.used; i++) {
        const struct slab_sheaf *sh = sheaf_at(sim, i);

        if (sh->objects) {
            arrays++;
            slots += sh->capacity ? sh->capacity : 1;
        }
    }
    if (arrays != sim->nr_sheaf_arrays || slots != sim->sheaf_slots)
        violation(v, "nr_sheaf_arrays %llu and sheaf_slots %llu, but %llu sheaves have %llu slots",
                  (unsigned long long)sim->nr_sheaf_arrays, (unsigned long long)sim->sheaf_slots,
                  (unsigned long long)arrays, (unsigned long long)slots);
    for (uint32_t i = 2; i < sim->sheaves.used; i++) {
        const struct slab_sheaf *sh = sheaf_at(sim, i);
        char where[48];

        if (!sh->id)
            continue;
        snprintf(where, sizeof(where), "sheaf %u", sh->id);
        if (sh->size > sh->capacity)
            violation(v, "sheaf %u: size %u > capacity %u", sh->id, sh->size, sh->capacity);
        if (v->level == SIM_VALIDATE_OP && sh->place.type == SIM_PL_INFLIGHT)
            violation(v, "sheaf %u is in flight between operations", sh->id);
        if (sh->place.type == SIM_PL_NONE)
            violation(v, "sheaf %u is nowhere", sh->id);
        for (unsigned k = 0; k < sh->size && k < sh->capacity; k++)
            count_held(v, sh->objects[k], sh->cache, where);
    }
    if (sheaf_at(sim, BOOTSTRAP_SHEAF)->size)
        violation(v, "the bootstrap sheaf was modified");
}

static struct ilink *slab_link(const void *pool, uint32_t idx)
{
    return &((struct slab *)pool_at(pool, idx))->link;
}

static struct ilink *sheaf_link(const void *pool, uint32_t idx)
{
    return &((struct slab_sheaf *)pool_at(pool, idx))->link;
}

/* Walk a list, checking its count and that every member says it is there. */
static unsigned walk_list(struct vstate *v, const struct ilist *l, const struct pool *pool, ilink_fn at,
        const char *what)
{
    unsigned n = 0;
    uint32_t prev = 0;

    for (uint32_t idx = l->head; idx; idx = at(pool, idx)->next) {
        if (at(pool, idx)->prev != prev) {
            violation(v, "%s: broken back link", what);
            return n;
        }
        prev = idx;
        if (++n > l->nr)
            break;
    }
    if (n != l->nr || prev != l->tail)
        violation(v, "%s: count %u but %u linked", what, l->nr, n);
    return n;
}

/* Invariants 2, 3 and the CPU and barn places of one cache. */
static void validate_cache(struct vstate *v, const struct kmem_cache *s)
{
    const struct sim *sim = v->sim;
    const struct pool *slabs = &sim->slabs, *sheaves = &sim->sheaves;
    char what[96];

    for (unsigned n = 0; n < sim->cfg.nr_nodes; n++) {
        const struct kmem_cache_node *kn = &s->node[n];
        unsigned long nr_slabs = 0, total = 0;

        snprintf(what, sizeof(what), "%s node %u partial list", s->name, n);
        walk_list(v, &kn->partial, slabs, slab_link, what);
        for (uint32_t idx = kn->partial.head; idx; idx = slab_at(sim, idx)->link.next) {
            const struct slab *slab = slab_at(sim, idx);

            if (slab->list != SLAB_ON_PARTIAL || slab->node != (int)n || slab->cache != s->id)
                violation(v, "%s: slab 0x%llx on node %u's partial list says otherwise", s->name,
                        (unsigned long long)slab->base, n);
            if (slab->link.next == kn->partial.head)
                break;
        }
        snprintf(what, sizeof(what), "%s node %u full list", s->name, n);
        walk_list(v, &kn->full, slabs, slab_link, what);
        nr_slabs = v->node_slabs[(size_t)s->id * sim->cfg.nr_nodes + n];
        total = v->node_objects[(size_t)s->id * sim->cfg.nr_nodes + n];
        if (nr_slabs != kn->nr_slabs || total != kn->total_objects)
            violation(v, "%s node %u: nr_slabs %lu total_objects %lu, slabs say %lu and %lu",
                    s->name, n, kn->nr_slabs, kn->total_objects, nr_slabs, total);
        if (!cache_has_sheaves(s))
            continue;
        snprintf(what, sizeof(what), "%s barn %u full list", s->name, n);
        walk_list(v, &s->barn[n].full, sheaves, sheaf_link, what);
        for (uint32_t i = s->barn[n].full.head; i; i = sheaf_at(sim, i)->link.next) {
            const struct slab_sheaf *sh = sheaf_at(sim, i);

            if (sh->place.type != SIM_PL_BARN_FULL || sh->place.node != (int)n)
                violation(v, "%s: sheaf %u on barn %u's full list says otherwise", s->name,
                        sh->id, n);
            if (!sh->size)
                violation(v, "%s: empty sheaf %u on barn %u's full list", s->name, sh->id, n);
        }
        snprintf(what, sizeof(what), "%s barn %u empty list", s->name, n);
        walk_list(v, &s->barn[n].empty, sheaves, sheaf_link, what);
        for (uint32_t i = s->barn[n].empty.head; i; i = sheaf_at(sim, i)->link.next) {
            const struct slab_sheaf *sh = sheaf_at(sim, i);

            if (sh->place.type != SIM_PL_BARN_EMPTY || sh->size)
                violation(v, "%s: sheaf %u on barn %u's empty list is not an empty barn sheaf",
                        s->name, sh->id, n);
        }
        if (s->barn[n].partial) {
            const struct slab_sheaf *sh = sheaf_at(sim, s->barn[n].partial);

            if (!sh->size || sh->size >= s->sheaf_capacity)
                violation(v, "%s: barn %u partial sheaf has %u objects", s->name, n, sh->size);
            if (sh->place.type != SIM_PL_BARN_PARTIAL || sh->place.node != (int)n)
                violation(v, "%s: barn %u partial sheaf's place disagrees", s->name, n);
        }
    }
    for (unsigned cpu = 0; cpu < sim->cfg.nr_cpus; cpu++) {
        const struct slub_percpu_sheaves *pcs = &s->pcs[cpu];

        if (!pcs->main) {
            violation(v, "%s cpu %u: no main sheaf", s->name, cpu);
            continue;
        }
        if (!cache_has_sheaves(s) || !s->alive) {
            if (pcs->main != BOOTSTRAP_SHEAF || pcs->spare || pcs->rcu_free)
                violation(v, "%s cpu %u: a cache without sheaves uses only the bootstrap sheaf",
                        s->name, cpu);
            continue;
        }
        if (sheaf_at(sim, pcs->main)->place.type != SIM_PL_MAIN ||
                sheaf_at(sim, pcs->main)->place.cpu != (int)cpu)
            violation(v, "%s cpu %u: main sheaf's place disagrees", s->name, cpu);
        if (pcs->spare && (sheaf_at(sim, pcs->spare)->place.type != SIM_PL_SPARE ||
                                  sheaf_at(sim, pcs->spare)->place.cpu != (int)cpu))
            violation(v, "%s cpu %u: spare sheaf's place disagrees", s->name, cpu);
        if (pcs->rcu_free && v->level == SIM_VALIDATE_OP) { /* filled in its next event */
            const struct slab_sheaf *r = sheaf_at(sim, pcs->rcu_free);

            if (!r->size || r->size >= s->sheaf_capacity)
                violation(v, "%s cpu %u: rcu_free sheaf has %u objects", s->name, cpu, r->size);
        }
    }
}

/* Legacy model: the objects on each CPU's lockless freelist belong to its
 * cpu slab and count as held (they are in the slab's inuse). */
static void validate_cpu_freelists(struct vstate *v)
{
    const struct sim *sim = v->sim;

    for (unsigned i = 0; i < sim->nr_caches; i++) {
        const struct kmem_cache *s = sim->caches[i];

        for (unsigned cpu = 0; cache_has_cpu_slab(s) && cpu < sim->cfg.nr_cpus; cpu++) {
            const struct kmem_cache_cpu *c = &s->cpu_slab[cpu];
            const struct slab *slab = c->slab ? slab_at(sim, c->slab) : NULL;
            char where[96];
            unsigned n = 0;

            snprintf(where, sizeof(where), "%s cpu %u freelist", s->name, cpu);
            if (c->freelist && !slab) {
                violation(v, "%s has objects but the CPU has no cpu slab", where);
                continue;
            }
            for (sim_addr_t p = c->freelist; p; n++) {
                if (n >= slab->objects || slab_of(sim, p) != slab) {
                    violation(v, "%s: 0x%llx is not a free object of the cpu slab 0x%llx", where,
                            (unsigned long long)p, (unsigned long long)slab->base);
                    break;
                }
                count_held(v, p, s->id, where);
                p = peek_freepointer(sim, s, p, NULL);
            }
        }
    }
}

/*
 * Legacy model invariants of one cache (docs/engine.md, "Validation"): the cpu
 * slab is frozen and owned by exactly that CPU; each CPU partial list is
 * linked through slab->next with its length in the head (I5), within
 * max(cpu_partial_slabs, 1), of slabs with free objects (I3) on that CPU;
 * frozen <=> a cpu slab (6.8+) or a cpu slab or cpu partial slab (6.2-6.7),
 * never on a node list (I6; between the freezing CAS2 of a free and the push
 * onto the CPU partial list, era FROZEN_PARTIAL, a frozen slab is on no list
 * for one event); every slab on a CPU list is reached from its
 * CPU exactly once.
 */
static void validate_legacy(struct vstate *v, const struct kmem_cache *s)
{
    const struct sim *sim = v->sim;
    bool frozen_era = sim_legacy_era(&sim->cfg) == SIM_ERA_FROZEN_PARTIAL;
    unsigned long reached = 0, listed = 0;
    unsigned cap = s->cpu_partial_slabs > 1 ? s->cpu_partial_slabs : 1;
    uint64_t step = tid_step(sim);

    for (unsigned cpu = 0; cpu < sim->cfg.nr_cpus; cpu++) {
        const struct kmem_cache_cpu *c = &s->cpu_slab[cpu];
        unsigned len = 0, head_slabs;

        if (c->slab) {
            const struct slab *slab = slab_at(sim, c->slab);

            reached++;
            if (slab->cache != s->id || slab->list != SLAB_ON_CPU || slab->cpu != (int)cpu)
                violation(v, "%s cpu %u: cpu slab 0x%llx is not marked as this CPU's", s->name,
                        cpu, (unsigned long long)slab->base);
            if (!slab->cpu_frozen)
                violation(v, "%s cpu %u: cpu slab 0x%llx is not frozen", s->name, cpu,
                        (unsigned long long)slab->base);
        }
        if (c->tid % step != cpu) /* init_tid(cpu), then += TID_STEP */
            violation(v, "%s cpu %u: tid %llu is not cpu + k * TID_STEP", s->name, cpu,
                    (unsigned long long)c->tid);
        head_slabs = c->partial ? slab_at(sim, c->partial)->slabs : 0;
        for (uint32_t idx = c->partial; idx; idx = slab_at(sim, idx)->next) {
            const struct slab *slab = slab_at(sim, idx);

            if (++len > sim->slabs.used) {
                violation(v, "%s cpu %u: partial list has a cycle", s->name, cpu);
                break;
            }
            reached++;
            if (slab->cache != s->id || slab->list != SLAB_ON_CPU_PARTIAL ||
                    slab->cpu != (int)cpu)
                violation(v, "%s cpu %u: slab 0x%llx on the partial list says otherwise",
                        s->name, cpu, (unsigned long long)slab->base);
            if (v->level == SIM_VALIDATE_OP && !slab->freelist)
                violation(v, "%s cpu %u: cpu partial slab 0x%llx has no free object (I3)",
                        s->name, cpu, (unsigned long long)slab->base);
        }
        if (len != head_slabs)
            violation(v, "%s cpu %u: partial list head says %u slabs, %u linked (I5)", s->name,
                    cpu, head_slabs, len);
        if (len > cap)
            violation(v, "%s cpu %u: %u cpu partial slabs, above max(cpu_partial_slabs, 1) = %u",
                    s->name, cpu, len, cap);
    }
    for (uint32_t idx = 1; idx < sim->slabs.used; idx++) {
        const struct slab *slab = slab_at(sim, idx);
        bool cpu_list = slab->list == SLAB_ON_CPU || slab->list == SLAB_ON_CPU_PARTIAL;
        bool may_freeze = slab->list == SLAB_ON_CPU || slab->list == SLAB_ON_PRIVATE ||
                (frozen_era && slab->list == SLAB_ON_CPU_PARTIAL);

        if (slab->cache != s->id)
            continue;
        listed += cpu_list;
        if (slab->cpu_frozen && !may_freeze &&
                (v->level == SIM_VALIDATE_OP || slab->list != SLAB_ON_NONE))
            violation(v, "slab 0x%llx of %s is frozen but %s (I6)",
                    (unsigned long long)slab->base, s->name,
                    slab->list == SLAB_ON_PARTIAL ? "on a node partial list"
                                                  : "owned by no CPU");
        if (!slab->cpu_frozen && frozen_era && slab->list == SLAB_ON_CPU_PARTIAL)
            violation(v, "slab 0x%llx of %s: a cpu partial slab of ERA_FROZEN_PARTIAL must be "
                         "frozen (I6)",
                    (unsigned long long)slab->base, s->name);
    }
    if (listed != reached)
        violation(v, "%s: %lu slabs say they are on a CPU, %lu are reached from the CPUs",
                s->name, listed, reached);
}

/*
 * Which per-CPU layers a cache of each model has (H1-H3 in types.h): the
 * sheaves model (7.x) no cpu slab; the legacy model (6.2-6.17) no sheaves;
 * the hybrid model (6.18-6.19) a cpu slab on every cache but a debug cache,
 * sheaves only on a cache created with a sheaf_capacity, which is then
 * exactly that capacity (H1).  A cache without sheaves keeps the bootstrap
 * sheaf as main, no spare, no rcu_free sheaf and an empty barn (H2), and
 * none of its CPUs counted the sheaf layer: alloc_cpu_sheaf,
 * free_cpu_sheaf, free_rcu_sheaf (H3).  Outside the hybrid model nothing
 * counts alloc_cpu_sheaf or free_cpu_sheaf.
 */
static void validate_layers(struct vstate *v, const struct kmem_cache *s)
{
    const struct sim *sim = v->sim;
    enum sim_model m = sim->cfg.model;
    bool debug = kmem_cache_debug(s);

    if (!s->alive)
        return;
    if (m == SIM_MODEL_SHEAVES && cache_has_cpu_slab(s))
        violation(v, "%s: a cache of the sheaves model has cpu slabs", s->name);
    if (m == SIM_MODEL_LEGACY && cache_has_sheaves(s))
        violation(v, "%s: a cache of the legacy model has sheaves", s->name);
    if (m == SIM_MODEL_HYBRID) {
        if (cache_has_cpu_slab(s) == debug)
            violation(v, "%s: a %s cache of the hybrid model %s cpu slabs (H1)", s->name,
                      debug ? "debug" : "non-debug", debug ? "has" : "lacks");
        if (cache_has_sheaves(s) && (debug || !s->requested_sheaf_capacity ||
                                     s->sheaf_capacity != s->requested_sheaf_capacity))
            violation(v, "%s: sheaf_capacity %u in the hybrid model, created with %u (H1)", s->name,
                      s->sheaf_capacity, s->requested_sheaf_capacity);
    }
    for (unsigned cpu = 0; m != SIM_MODEL_HYBRID && cpu < sim->cfg.nr_cpus; cpu++)
        if (s->stats[cpu][SIM_ALLOC_CPU_SHEAF] || s->stats[cpu][SIM_FREE_CPU_SHEAF])
            violation(v, "%s cpu %u: alloc_cpu_sheaf/free_cpu_sheaf outside the hybrid model",
                      s->name, cpu);
    if (cache_has_sheaves(s))
        return;
    for (unsigned cpu = 0; cpu < sim->cfg.nr_cpus; cpu++) {
        const struct slub_percpu_sheaves *pcs = &s->pcs[cpu];

        if (pcs->main != BOOTSTRAP_SHEAF || pcs->spare || pcs->rcu_free)
            violation(v, "%s cpu %u: a cache without sheaves holds a sheaf (H2)", s->name, cpu);
        if (s->stats[cpu][SIM_ALLOC_CPU_SHEAF] || s->stats[cpu][SIM_FREE_CPU_SHEAF] ||
            s->stats[cpu][SIM_FREE_RCU_SHEAF])
            violation(v, "%s cpu %u: a cache without sheaves counted its sheaf layer (H3)", s->name,
                      cpu);
    }
    for (unsigned n = 0; n < sim->cfg.nr_nodes; n++)
        if (s->barn[n].full.nr || s->barn[n].empty.nr || s->barn[n].partial)
            violation(v, "%s node %u: a cache without sheaves has sheaves in its barn (H2)",
                      s->name, n);
}

/* Invariant 4 (conservation) and the OP-level list rule (invariant 2). */
static void validate_slabs(struct vstate *v)
{
    const struct sim *sim = v->sim;

    for (uint32_t idx = 1; idx < sim->slabs.used; idx++) {
        const struct slab *slab = slab_at(sim, idx);
        const struct kmem_cache *s;

        if (slab->cache < 0)
            continue;
        s = sim->caches[slab->cache];
        if (slab->fresh || slab->frozen) /* a frozen slab is leaked on purpose */
            continue;
        if ((int)slab->inuse != slab->nr_user + v->held[idx])
            violation(v,
                    "slab 0x%llx: inuse %u but users hold %d and sheaves/in flight %d "
                    "(conservation)",
                    (unsigned long long)slab->base, slab->inuse, slab->nr_user, v->held[idx]);
        if (slab->nr_user < 0)
            violation(v, "slab 0x%llx: users freed %d more objects than they held (double free)",
                    (unsigned long long)slab->base, -slab->nr_user);
        if (v->level != SIM_VALIDATE_OP)
            continue;
        if (slab->list == SLAB_ON_PRIVATE)
            violation(v, "slab 0x%llx is private between operations",
                    (unsigned long long)slab->base);
        if (slab->frozen || slab->list == SLAB_ON_RCU || slab->list == SLAB_ON_CPU ||
                slab->list == SLAB_ON_CPU_PARTIAL) /* CPU lists: validate_legacy() */
            continue;
        if (slab->list == SLAB_ON_FULL ? slab->freelist != SIM_NULL
                                       : (slab->list == SLAB_ON_PARTIAL) != (slab->freelist != 0))
            violation(v, "slab 0x%llx of %s: on partial list %d but freelist %s",
                    (unsigned long long)slab->base, s->name, slab->list == SLAB_ON_PARTIAL,
                    slab->freelist ? "not empty" : "empty");
    }
}

/* Blocks held by alloc_pages users: marked at their head, counted per zone,
 * neither free nor a slab's. */
static void validate_user_blocks(struct vstate *v)
{
    const struct sim *sim = v->sim;
    unsigned long held[SIM_MAX_NODES * SIM_NR_ZONE_TYPES] = {0};

    for (size_t i = 0; i < sim->nr_user; i++) {
        const struct user_block *b = &sim->user[i];
        const struct zone *z = zone_of(sim, b->addr);
        const struct sim_page *p = page_of(sim, b->addr);

        if (!z || !p || p->user != b->order + 1 || p->buddy != PAGE_BUDDY_NONE || p->slab ||
                ((b->addr - z->start) >> PAGE_SHIFT) % (1ul << b->order)) {
            violation(v, "alloc_pages block 0x%llx (order %u) is not marked held",
                    (unsigned long long)b->addr, b->order);
            continue;
        }
        held[z - sim->zones] += 1ul << b->order;
    }
    for (unsigned i = 0; i < sim->nr_zones; i++)
        if (held[i] != sim->zones[i].user_pages)
            violation(v, "zone %u: user_pages %lu, alloc_pages blocks hold %lu", i,
                    sim->zones[i].user_pages, held[i]);
}

/* The buddy allocator: counts, block marks and alignment, no free page
 * inside a slab, no free block beside a free buddy of its order, ordered
 * watermarks. */
static void validate_zones(struct vstate *v)
{
    const struct sim *sim = v->sim;

    uint64_t page_bytes = 0;

    validate_user_blocks(v);
    for (unsigned i = 0; i < sim->nr_zones; i++) {
        const struct zone *z = &sim->zones[i];
        unsigned long free = (z->pages / CHUNK_PAGES - z->untouched) * CHUNK_PAGES;

        for (unsigned long c = 0; c < z->untouched; c++)
            for (unsigned k = 0; z->chunk[c] && k < CHUNK_PAGES; k++)
                page_bytes += z->chunk[c][k].bytes != NULL;

        for (unsigned w = 1; w < SIM_NR_WMARK; w++)
            if (z->wmark[w] < z->wmark[w - 1])
                violation(v, "zone %u: watermark %u (%lu) below watermark %u (%lu)", i, w,
                        z->wmark[w], w - 1, z->wmark[w - 1]);
        if (z->free_pages + z->user_pages > z->pages)
            violation(v, "zone %u: %lu free and %lu user pages in %lu", i, z->free_pages,
                    z->user_pages, z->pages);

        for (unsigned o = 0; o <= MAX_PAGE_ORDER; o++) {
            unsigned long n = 0;

            for (uint32_t h = z->area[o].head; h && n <= z->pages; n++) {
                const struct sim_page *p = zone_page(z, h - 1);

                if (!p || p->buddy != o) {
                    violation(v, "zone %u: block on order-%u list is not marked free", i, o);
                    break;
                }
                for (unsigned long k = 0; k < 1ul << o; k++)
                    if (zone_page(z, h - 1 + k)->slab || zone_page(z, h - 1 + k)->user)
                        violation(v, "zone %u: free page %lu is in use", i, h - 1 + k);
                if ((h - 1) % (1ul << o))
                    violation(v, "zone %u: order-%u block at pfn %u is not aligned", i, o, h - 1);
                if (o < MAX_PAGE_ORDER) {
                    unsigned long buddy = (h - 1) ^ (1ul << o);
                    const struct sim_page *b = buddy < z->pages ? zone_page(z, buddy) : NULL;

                    if (b && b->buddy == o)
                        violation(v, "zone %u: free order-%u blocks %u and %lu were not merged",
                                i, o, h - 1, buddy);
                }
                h = p->next;
            }
            if (n != z->area[o].nr_free)
                violation(v, "zone %u order %u: nr_free %lu, listed %lu", i, o,
                        z->area[o].nr_free, n);
            free += n << o;
        }
        if (free != z->free_pages)
            violation(v, "zone %u: free_pages %lu, free blocks hold %lu", i, z->free_pages, free);
    }
    if (page_bytes != sim->nr_page_bytes)
        violation(v, "nr_page_bytes %llu, but %llu pages have bytes",
                (unsigned long long)sim->nr_page_bytes, (unsigned long long)page_bytes);
}

unsigned sim_validate(const struct sim *sim, enum sim_validate_level level,
        struct sim_report *rep)
{
    struct sim_report local;
    struct vstate v = {.sim = sim, .level = level, .rep = rep ? rep : &local};
    uint32_t used = sim->slabs.used;
    size_t bytes = 0, cn = (size_t)(sim->nr_caches ? sim->nr_caches : 1) * sim->cfg.nr_nodes;
    uint8_t *maps = NULL, *next;

    memset(v.rep, 0, sizeof(*v.rep));
    if (sim->broken) { /* a half-applied operation: nothing to walk safely */
        violation(&v, "the machine ran out of host memory mid-operation and is broken");
        return v.rep->violations;
    }
    for (uint32_t idx = 1; idx < used; idx++)
        if (slab_at(sim, idx)->cache >= 0)
            bytes += 2 * (slab_at(sim, idx)->objects / 8 + 1);
    v.held = calloc(used, sizeof(*v.held));
    v.freemap = calloc(used, sizeof(*v.freemap));
    v.heldmap = calloc(used, sizeof(*v.heldmap));
    v.node_slabs = calloc(cn, sizeof(*v.node_slabs));
    v.node_objects = calloc(cn, sizeof(*v.node_objects));
    maps = calloc(bytes ? bytes : 1, 1); /* every bitmap, in one block */
    if (!v.held || !v.freemap || !v.heldmap || !v.node_slabs || !v.node_objects || !maps) {
        violation(&v, "validator: out of host memory");
        goto out;
    }
    next = maps;
    for (uint32_t idx = 1; idx < used; idx++) {
        const struct slab *slab = slab_at(sim, idx);

        if (slab->cache < 0)
            continue;
        v.freemap[idx] = next;
        next += slab->objects / 8 + 1;
        v.heldmap[idx] = next;
        next += slab->objects / 8 + 1;
        if (slab->accounted) {
            size_t k = (size_t)slab->cache * sim->cfg.nr_nodes + (size_t)slab->node;

            v.node_slabs[k]++;
            v.node_objects[k] += slab->objects;
        }
        validate_slab(&v, idx);
    }
    validate_sheaves(&v);
    validate_cpu_freelists(&v);
    for (size_t i = 0; i < sim->nr_inflight; i++)
        count_held(&v, sim->inflight[i], -1, "in flight");
    for (size_t i = 0; i < sim->nr_rcu; i++)
        if (sim->rcu[i].kind == RCU_CB_OBJECT)
            count_held(&v, sim->rcu[i].obj, -1, "the kfree_rcu queue");
    if (level == SIM_VALIDATE_OP && sim->nr_inflight)
        violation(&v, "%zu objects in flight between operations", sim->nr_inflight);
    validate_slabs(&v);
    for (unsigned i = 0; i < sim->nr_caches; i++) {
        validate_cache(&v, sim->caches[i]);
        validate_layers(&v, sim->caches[i]);
        if (cache_has_cpu_slab(sim->caches[i]))
            validate_legacy(&v, sim->caches[i]);
    }
    validate_zones(&v);
out:
    free(maps);
    free(v.node_slabs);
    free(v.node_objects);
    free(v.held);
    free(v.freemap);
    free(v.heldmap);
    return v.rep->violations;
}
