/*
 * snapshot.c: a plain-data copy of the whole state for the server and the UI.
 *
 * sim_snapshot() may be called at any moment, from the event callback too.  It
 * reads without counting (free pointers are peeked, not "read" by the
 * allocator), and orders everything by stable keys (cache, node, address, sheaf
 * id), never by host pointer or pool position, so equal states give equal
 * snapshots.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

struct objbuf {
    sim_addr_t *v;
    size_t n, cap;
};

static int objbuf_push(struct objbuf *b, sim_addr_t a)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        sim_addr_t *v = realloc(b->v, cap * sizeof(*v));

        if (!v)
            return -ENOMEM;
        b->v = v;
        b->cap = cap;
    }
    b->v[b->n++] = a;
    return 0;
}

static int cmp_slab(const void *a, const void *b)
{
    const struct sim_snap_slab *x = a, *y = b;

    if (x->cache != y->cache)
        return x->cache < y->cache ? -1 : 1;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cmp_sheaf(const void *a, const void *b)
{
    const struct sim_snap_sheaf *x = a, *y = b;

    return x->id < y->id ? -1 : x->id > y->id;
}

static uint32_t public_sheaf_id(const struct sim *sim, uint32_t idx)
{
    return idx && idx != BOOTSTRAP_SHEAF ? sheaf_at(sim, idx)->id : 0;
}

static void snap_cache(const struct sim *sim, const struct kmem_cache *s, struct sim_snap_cache *c)
{
    c->id = s->id;
    memcpy(c->name, s->name, sizeof(c->name));
    c->object_size = s->object_size;
    c->size = s->size;
    c->align = s->align;
    c->inuse = s->inuse;
    c->offset = s->offset;
    c->red_left_pad = s->red_left_pad;
    c->flags = s->flags & ~OBJECT_POISON;
    c->order = s->oo.order;
    c->objects_per_slab = s->oo.objects;
    c->min_order = s->min.order;
    c->min_objects = s->min.objects;
    c->min_partial = s->min_partial;
    c->sheaf_capacity = s->sheaf_capacity;
    c->random = s->random;
    c->alive = s->alive;
    c->slab_errors = s->errors;
    for (unsigned n = 0; n < sim->cfg.nr_nodes; n++) {
        const struct kmem_cache_node *kn = &s->node[n];

        c->node[n].nr_partial = kn->partial.nr;
        c->node[n].nr_slabs = kn->nr_slabs;
        c->node[n].total_objects = kn->total_objects;
        c->slabs += kn->nr_slabs;
        c->total_objects += kn->total_objects;
        c->partial += kn->partial.nr;
        c->barn[n].nr_full = s->barn[n].full.nr;
        c->barn[n].nr_empty = s->barn[n].empty.nr;
        c->barn[n].partial = public_sheaf_id(sim, s->barn[n].partial);
    }
    c->objects = c->total_objects;
    for (uint32_t i = 1; i < sim->slabs.used; i++) {
        const struct slab *slab = slab_at(sim, i);

        if (slab->cache != s->id || slab->list != SLAB_ON_PARTIAL)
            continue;
        c->objects -= slab->objects - slab->inuse;
        c->objects_partial += slab->inuse;
    }
    for (unsigned cpu = 0; cpu < sim->cfg.nr_cpus; cpu++) {
        c->main[cpu] = public_sheaf_id(sim, s->pcs[cpu].main);
        c->spare[cpu] = public_sheaf_id(sim, s->pcs[cpu].spare);
        c->rcu_free[cpu] = public_sheaf_id(sim, s->pcs[cpu].rcu_free);
        memcpy(c->cpu_stats[cpu].v, s->stats[cpu], sizeof(c->cpu_stats[cpu].v));
    }
    c->has_cpu_slab = cache_has_cpu_slab(s);
    c->cpu_partial = s->cpu_partial;
    c->cpu_partial_slabs = s->cpu_partial_slabs;
    for (unsigned cpu = 0; cache_has_cpu_slab(s) && cpu < sim->cfg.nr_cpus; cpu++) {
        const struct kmem_cache_cpu *cc = &s->cpu_slab[cpu];

        c->cpu_slab[cpu].slab = cc->slab ? slab_at(sim, cc->slab)->base : 0;
        c->cpu_slab[cpu].tid = cc->tid;
        c->cpu_slab[cpu].nr_partial = cc->partial ? slab_at(sim, cc->partial)->slabs : 0;
    }
}

/* Legacy model: each CPU's lockless freelist, in order, into @objs. */
static int snap_cpu_freelists(const struct sim *sim, const struct kmem_cache *s,
        struct sim_snap_cache *c, struct objbuf *objs)
{
    for (unsigned cpu = 0; cache_has_cpu_slab(s) && cpu < sim->cfg.nr_cpus; cpu++) {
        const struct kmem_cache_cpu *cc = &s->cpu_slab[cpu];
        const struct slab *slab = cc->slab ? slab_at(sim, cc->slab) : NULL;
        unsigned k = 0;

        c->cpu_slab[cpu].freelist = objs->n;
        for (sim_addr_t p = cc->freelist; p && slab && k < slab->objects; k++) {
            if (objbuf_push(objs, p))
                return -ENOMEM;
            if (slab_obj_index(s, slab, p) < 0)
                break; /* corrupt: shown, not followed */
            p = peek_freepointer(sim, s, p, NULL);
        }
        c->cpu_slab[cpu].nr_freelist = k;
    }
    return 0;
}

/* Position of cpu partial slab @slab on its CPU's list. */
static int32_t cpu_partial_pos(const struct sim *sim, const struct slab *slab)
{
    const struct kmem_cache *s = sim->caches[slab->cache];
    int32_t pos = 0;

    for (uint32_t i = s->cpu_slab[slab->cpu].partial; i; i = slab_at(sim, i)->next, pos++)
        if (slab_at(sim, i) == slab)
            return pos;
    return -1;
}

int sim_snapshot(const struct sim *sim, struct sim_snapshot **out)
{
    struct sim_snapshot *snap = calloc(1, sizeof(*snap));
    struct objbuf objs = {0};
    size_t nr;

    if (sim->broken) { /* a half-applied operation is never visible */
        free(snap);
        return -EIO;
    }
    if (!snap)
        return -ENOMEM;
    snap->seq = sim->seq;
    snap->op = sim->op;
    snap->nr_cpus = sim->cfg.nr_cpus;
    snap->nr_nodes = sim->cfg.nr_nodes;
    snap->model = sim->cfg.model;
    memcpy(snap->cpu_node, sim->cfg.cpu_node, sizeof(snap->cpu_node));

    snap->caches = calloc(sim->nr_caches ? sim->nr_caches : 1, sizeof(*snap->caches));
    snap->slabs = calloc(sim->slabs.used, sizeof(*snap->slabs));
    snap->sheaves = calloc(sim->sheaves.used, sizeof(*snap->sheaves));
    snap->zones = calloc(sim->nr_zones, sizeof(*snap->zones));
    if (!snap->caches || !snap->slabs || !snap->sheaves || !snap->zones)
        goto err;
    for (unsigned i = 0; i < sim->nr_caches; i++)
        snap_cache(sim, sim->caches[i], &snap->caches[i]);
    snap->nr_caches = sim->nr_caches;
    for (unsigned i = 0; i < sim->nr_caches; i++)
        if (snap_cpu_freelists(sim, sim->caches[i], &snap->caches[i], &objs))
            goto err;

    nr = 0;
    for (uint32_t i = 1; i < sim->slabs.used; i++) {
        const struct slab *slab = slab_at(sim, i);
        struct sim_snap_slab *o = &snap->slabs[nr];
        const struct kmem_cache *s;
        sim_addr_t p;

        if (slab->cache < 0)
            continue;
        s = sim->caches[slab->cache];
        o->addr = slab->base;
        o->cache = slab->cache;
        o->seq = slab->seq;
        o->node = slab->node;
        o->order = slab->order;
        o->objects = slab->objects;
        o->inuse = slab->inuse;
        o->place = place_of_slab(slab);
        if (slab->list == SLAB_ON_CPU_PARTIAL)
            o->place.slot = cpu_partial_pos(sim, slab);
        o->freelist = objs.n;
        o->freelist_head = slab->freelist;
        p = slab->freelist;
        for (unsigned k = 0; p && k < slab->objects; k++) {
            if (objbuf_push(&objs, p))
                goto err;
            o->nr_free++;
            if (slab_obj_index(s, slab, p) < 0)
                break; /* corrupt: shown, not followed */
            p = peek_freepointer(sim, s, p, NULL);
        }
        nr++;
    }
    snap->nr_slabs = nr;

    nr = 0;
    for (uint32_t i = 1; i < sim->sheaves.used; i++) {
        const struct slab_sheaf *sh = sheaf_at(sim, i);
        struct sim_snap_sheaf *o = &snap->sheaves[nr];

        if (!sh->id)
            continue;
        o->id = sh->id;
        o->cache = sh->cache;
        o->place = sh->place;
        o->size = sh->size;
        o->capacity = sh->capacity;
        o->objs = objs.n;
        for (unsigned k = 0; k < sh->size; k++)
            if (objbuf_push(&objs, sh->objects[k]))
                goto err;
        nr++;
    }
    snap->nr_sheaves = nr;
    qsort(snap->slabs, snap->nr_slabs, sizeof(*snap->slabs), cmp_slab);
    qsort(snap->sheaves, snap->nr_sheaves, sizeof(*snap->sheaves), cmp_sheaf);

    for (unsigned i = 0; i < sim->nr_zones; i++) {
        const struct zone *z = &sim->zones[i];
        struct sim_snap_zone *o = &snap->zones[i];

        o->node = z->node;
        o->name = sim_zone_name(z->type);
        o->type = z->type;
        o->user_pages = z->user_pages;
        for (unsigned w = 0; w < SIM_NR_WMARK; w++)
            o->watermark[w] = z->wmark[w];
        for (unsigned t = 0; t < SIM_NR_ZONE_TYPES; t++)
            o->lowmem_reserve[t] = z->lowmem_reserve[t];
        o->start = z->start;
        o->pages = z->pages;
        o->free_pages = z->free_pages;
        for (unsigned ord = 0; ord <= MAX_PAGE_ORDER; ord++)
            o->nr_free[ord] = zone_nr_free(z, ord);
    }
    snap->nr_zones = sim->nr_zones;
    if (sim->nr_inflight) {
        snap->inflight = malloc(sim->nr_inflight * sizeof(sim_addr_t));
        if (!snap->inflight)
            goto err;
        memcpy(snap->inflight, sim->inflight, sim->nr_inflight * sizeof(sim_addr_t));
        snap->nr_inflight = sim->nr_inflight;
    }
    snap->nr_rcu_callbacks = (unsigned)sim->nr_rcu;
    for (size_t i = 0; i < sim->nr_rcu; i++)
        snap->nr_rcu_objs += sim->rcu[i].kind == RCU_CB_OBJECT;
    if (snap->nr_rcu_objs) {
        size_t k = 0;

        snap->rcu_objs = malloc(snap->nr_rcu_objs * sizeof(sim_addr_t));
        if (!snap->rcu_objs)
            goto err;
        for (size_t i = 0; i < sim->nr_rcu; i++)
            if (sim->rcu[i].kind == RCU_CB_OBJECT)
                snap->rcu_objs[k++] = sim->rcu[i].obj;
    }
    snap->objs = objs.v;
    snap->nr_objs = objs.n;
    *out = snap;
    return 0;
err:
    free(objs.v);
    sim_snapshot_release(snap);
    return -ENOMEM;
}

void sim_snapshot_release(struct sim_snapshot *snap)
{
    if (!snap)
        return;
    free(snap->caches);
    free(snap->slabs);
    free(snap->sheaves);
    free(snap->zones);
    free(snap->objs);
    free(snap->inflight);
    free(snap->rcu_objs);
    free(snap);
}
