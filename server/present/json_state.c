/*
 * json_state.c: snapshots and caches as cJSON trees (see json_state.h and
 * docs/events.md).
 *
 * The snapshot is plain data indexed into shared arrays (sheaf contents and
 * freelists live in snap->objs); these builders resolve the indices so the
 * JSON is self-contained: a slab lists its free objects, a sheaf its
 * objects, a CPU its sheaves with their sizes.  Only non-zero counters are
 * listed, keyed by sysfs name.  Builders follow json_event.c's rule: on any
 * failure delete what was built and return NULL.
 */
#include "present/json_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/metric.h"

cJSON *json_flags(uint32_t flags)
{
    cJSON *a = cJSON_CreateArray();
    unsigned bit;

    if (!a)
        return NULL;
    for (bit = 0; bit < 32; bit++) {
        uint32_t f = 1u << bit;
        const char *name = (flags & f) ? sim_flag_name(f) : NULL;

        if ((flags & f) && !json_push(a, name ? cJSON_CreateString(name) : json_hex(f)))
            return json_drop(a);
    }
    return a;
}

cJSON *json_stats(const struct sim_snap_stats *st)
{
    cJSON *o = cJSON_CreateObject();
    char buf[32];
    unsigned i;

    if (!o)
        return NULL;
    for (i = 0; i < SIM_NR_STATS; i++) {
        if (st->v[i] && !json_put(o, json_stat_name(i, buf, sizeof(buf)), json_uint(st->v[i])))
            return json_drop(o);
    }
    return o;
}

const struct sim_snap_sheaf *json_find_sheaf(const struct sim_snapshot *snap, uint32_t id)
{
    size_t lo = 0, hi = snap->nr_sheaves;

    /* Sheaves are sorted by id (slub.h). */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (snap->sheaves[mid].id == id)
            return &snap->sheaves[mid];
        if (snap->sheaves[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* A CPU's sheaf slot: {id, size, capacity}, or null when empty. */
static cJSON *json_cpu_sheaf(const struct sim_snapshot *snap, uint32_t id)
{
    const struct sim_snap_sheaf *sh = id ? json_find_sheaf(snap, id) : NULL;
    cJSON *o;

    if (!id)
        return cJSON_CreateNull();
    if (!(o = cJSON_CreateObject()))
        return NULL;
    if (!json_put(o, "id", json_uint(id)) ||
        (sh && (!json_put(o, "size", json_uint(sh->size)) ||
                !json_put(o, "capacity", json_uint(sh->capacity)))))
        return json_drop(o);
    return o;
}

/* @n addresses from snap->objs starting at @first, as hex strings. */
static cJSON *json_objs(const struct sim_snapshot *snap, size_t first, size_t n);

/* Legacy model: a CPU's cpu slab, tid, lockless freelist (in order) and
 * CPU partial list (slab addresses, head first). */
static cJSON *json_cpu_slab(const struct sim_snapshot *snap, const struct sim_snap_cache *c,
                            unsigned cpu)
{
    const struct sim_snap_cpu_slab *cs = &c->cpu_slab[cpu];
    cJSON *o = cJSON_CreateObject(), *partial = NULL;
    unsigned pos;
    size_t i;

    if (!o || !json_put(o, "slab", cs->slab ? json_hex(cs->slab) : cJSON_CreateNull()) ||
        !json_put(o, "tid", json_uint(cs->tid)) ||
        !json_put(o, "freelist", json_objs(snap, cs->freelist, cs->nr_freelist)) ||
        !json_put(o, "partial", partial = cJSON_CreateArray()))
        return json_drop(o);
    for (pos = 0; pos < cs->nr_partial; pos++)
        for (i = 0; i < snap->nr_slabs; i++) {
            const struct sim_snap_slab *s = &snap->slabs[i];

            if (s->cache == c->id && s->place.type == SIM_PL_CPU_PARTIAL &&
                s->place.cpu == (int)cpu && s->place.slot == (int32_t)pos &&
                !json_push(partial, json_hex(s->addr)))
                return json_drop(o);
        }
    return o;
}

static cJSON *json_cache_cpu(const struct sim_snapshot *snap, const struct sim_snap_cache *c,
                             unsigned cpu)
{
    cJSON *o = cJSON_CreateObject();

    if (!o)
        return NULL;

    if (!json_put(o, "cpu", json_uint(cpu)) ||
        !json_put(o, "main", json_cpu_sheaf(snap, c->main[cpu])) ||
        !json_put(o, "spare", json_cpu_sheaf(snap, c->spare[cpu])) ||
        !json_put(o, "rcu_free", json_cpu_sheaf(snap, c->rcu_free[cpu])) ||
        !json_put(o, "stats", json_stats(&c->cpu_stats[cpu])) ||
        (c->has_cpu_slab && !json_put(o, "cpu_slab", json_cpu_slab(snap, c, cpu))))
        return json_drop(o);
    return o;
}

static cJSON *json_cache_node(const struct sim_snap_cache *c, unsigned node)
{
    const struct sim_snap_barn *b = &c->barn[node];
    const struct sim_snap_node *n = &c->node[node];
    cJSON *o = cJSON_CreateObject(), *barn = NULL;

    if (!o)
        return NULL;
    if (!json_put(o, "node", json_uint(node)) ||
        !json_put(o, "nr_partial", json_uint(n->nr_partial)) ||
        !json_put(o, "nr_slabs", json_uint(n->nr_slabs)) ||
        !json_put(o, "total_objects", json_uint(n->total_objects)) ||
        !json_put(o, "barn", barn = cJSON_CreateObject()) ||
        !json_put(barn, "nr_full", json_uint(b->nr_full)) ||
        !json_put(barn, "nr_empty", json_uint(b->nr_empty)) ||
        !json_put(barn, "partial", b->partial ? json_uint(b->partial) : cJSON_CreateNull()))
        return json_drop(o);
    return o;
}

cJSON *json_snap_cache(const struct sim_snapshot *snap, const struct sim_snap_cache *c)
{
    cJSON *o = cJSON_CreateObject(), *cpus = NULL, *nodes = NULL;
    struct sim_snap_stats total;
    unsigned i, cpu;

    if (!o)
        return NULL;
    metric_cache_stats(snap, c, &total);
    if (!json_put(o, "id", json_int(c->id)) || !json_put(o, "name", json_str(c->name)) ||
        !json_put(o, "alive", cJSON_CreateBool(c->alive)) ||
        !json_put(o, "object_size", json_uint(c->object_size)) ||
        !json_put(o, "slab_size", json_uint(c->size)) ||
        !json_put(o, "align", json_uint(c->align)) || !json_put(o, "inuse", json_uint(c->inuse)) ||
        !json_put(o, "offset", json_uint(c->offset)) ||
        !json_put(o, "red_left_pad", json_uint(c->red_left_pad)) ||
        !json_put(o, "flags", json_flags(c->flags)) || !json_put(o, "order", json_uint(c->order)) ||
        !json_put(o, "objs_per_slab", json_uint(c->objects_per_slab)) ||
        !json_put(o, "min_order", json_uint(c->min_order)) ||
        !json_put(o, "min_objects", json_uint(c->min_objects)) ||
        !json_put(o, "min_partial", json_uint(c->min_partial)) ||
        !json_put(o, "sheaf_capacity", json_uint(c->sheaf_capacity)) ||
        !json_put(o, "random", json_hex(c->random)) || !json_put(o, "slabs", json_uint(c->slabs)) ||
        !json_put(o, "objects", json_uint(c->objects)) ||
        !json_put(o, "partial", json_uint(c->partial)) ||
        !json_put(o, "objects_partial", json_uint(c->objects_partial)) ||
        !json_put(o, "total_objects", json_uint(c->total_objects)) ||
        (c->slab_errors && !json_put(o, "slab_errors", json_uint(c->slab_errors))) ||
        !json_put(o, "stats", json_stats(&total)) ||
        !json_put(o, "cpus", cpus = cJSON_CreateArray()))
        return json_drop(o);
    if (c->has_cpu_slab && /* legacy model */
        (!json_put(o, "cpu_partial", json_uint(c->cpu_partial)) ||
         !json_put(o, "cpu_partial_slabs", json_uint(c->cpu_partial_slabs))))
        return json_drop(o);
    for (cpu = 0; cpu < snap->nr_cpus && cpu < SIM_MAX_CPUS; cpu++)
        if (!json_push(cpus, json_cache_cpu(snap, c, cpu)))
            return json_drop(o);
    if (!json_put(o, "nodes", nodes = cJSON_CreateArray()))
        return json_drop(o);
    for (i = 0; i < snap->nr_nodes && i < SIM_MAX_NODES; i++)
        if (!json_push(nodes, json_cache_node(c, i)))
            return json_drop(o);
    return o;
}

/* @n addresses from snap->objs starting at @first, as hex strings. */
static cJSON *json_objs(const struct sim_snapshot *snap, size_t first, size_t n)
{
    cJSON *a = cJSON_CreateArray();
    size_t i;

    if (!a)
        return NULL;
    for (i = 0; i < n && first + i < snap->nr_objs; i++) {
        if (!json_push(a, json_hex(snap->objs[first + i])))
            return json_drop(a);
    }
    return a;
}

static cJSON *json_slab(const struct sim_snapshot *snap, const struct sim_snap_slab *s)
{
    cJSON *o = cJSON_CreateObject();
    char name[16];

    if (!o)
        return NULL;
    snprintf(name, sizeof(name), "S%u", s->seq);
    if (!json_put(o, "addr", json_hex(s->addr)) || !json_put(o, "name", json_str(name)) ||
        !json_put(o, "cache", json_int(s->cache)) || !json_put(o, "node", json_int(s->node)) ||
        !json_put(o, "order", json_uint(s->order)) ||
        !json_put(o, "objects", json_uint(s->objects)) ||
        !json_put(o, "inuse", json_uint(s->inuse)) ||
        !json_put(o, "place", json_place(&s->place)) ||
        !json_put(o, "freelist_head", json_hex(s->freelist_head)) ||
        !json_put(o, "freelist", json_objs(snap, s->freelist, s->nr_free)))
        return json_drop(o);
    return o;
}

static cJSON *json_sheaf(const struct sim_snapshot *snap, const struct sim_snap_sheaf *sh)
{
    cJSON *o = cJSON_CreateObject();

    if (!o)
        return NULL;
    if (!json_put(o, "id", json_uint(sh->id)) || !json_put(o, "cache", json_int(sh->cache)) ||
        !json_put(o, "place", json_place(&sh->place)) ||
        !json_put(o, "size", json_uint(sh->size)) ||
        !json_put(o, "capacity", json_uint(sh->capacity)) ||
        !json_put(o, "objects", json_objs(snap, sh->objs, sh->size)))
        return json_drop(o);
    return o;
}

static cJSON *json_zone(const struct sim_snap_zone *z)
{
    cJSON *o = cJSON_CreateObject(), *nr_free = NULL, *wm = NULL, *lr = NULL;
    unsigned i;

    if (!o)
        return NULL;
    if (!json_put(o, "node", json_int(z->node)) || !json_put(o, "name", json_str(z->name)) ||
        !json_put(o, "start", json_hex(z->start)) || !json_put(o, "pages", json_uint(z->pages)) ||
        !json_put(o, "free_pages", json_uint(z->free_pages)) ||
        !json_put(o, "nr_free", nr_free = cJSON_CreateArray()))
        return json_drop(o);
    for (i = 0; i <= SIM_MAX_ORDER; i++)
        if (!json_push(nr_free, json_uint(z->nr_free[i])))
            return json_drop(o);
    if (!json_put(o, "user_pages", json_uint(z->user_pages)) ||
        !json_put(o, "watermarks", wm = cJSON_CreateObject()) ||
        !json_put(wm, "min", json_uint(z->watermark[SIM_WMARK_MIN])) ||
        !json_put(wm, "low", json_uint(z->watermark[SIM_WMARK_LOW])) ||
        !json_put(wm, "high", json_uint(z->watermark[SIM_WMARK_HIGH])) ||
        !json_put(wm, "promo", json_uint(z->watermark[SIM_WMARK_PROMO])) ||
        !json_put(o, "lowmem_reserve", lr = cJSON_CreateObject()))
        return json_drop(o);
    for (i = 0; i < SIM_NR_ZONE_TYPES; i++)
        if (!json_put(lr, sim_zone_name(i), json_uint(z->lowmem_reserve[i])))
            return json_drop(o);
    return o;
}

cJSON *json_snapshot(const struct sim_snapshot *snap)
{
    cJSON *o = cJSON_CreateObject(), *a = NULL;
    size_t i;

    if (!o)
        return NULL;
    if (!json_put(o, "seq", json_uint(snap->seq)) || !json_put(o, "op", json_uint(snap->op)) ||
        !json_put(o, "nr_cpus", json_uint(snap->nr_cpus)) ||
        !json_put(o, "nr_nodes", json_uint(snap->nr_nodes)) ||
        !json_put(o, "cpu_node", a = cJSON_CreateArray()))
        return json_drop(o);
    for (i = 0; i < snap->nr_cpus && i < SIM_MAX_CPUS; i++)
        if (!json_push(a, json_uint(snap->cpu_node[i])))
            return json_drop(o);
    if (!json_put(o, "caches", a = cJSON_CreateArray()))
        return json_drop(o);
    for (i = 0; i < snap->nr_caches; i++)
        if (!json_push(a, json_snap_cache(snap, &snap->caches[i])))
            return json_drop(o);
    if (!json_put(o, "slabs", a = cJSON_CreateArray()))
        return json_drop(o);
    for (i = 0; i < snap->nr_slabs; i++)
        if (!json_push(a, json_slab(snap, &snap->slabs[i])))
            return json_drop(o);
    if (!json_put(o, "sheaves", a = cJSON_CreateArray()))
        return json_drop(o);
    for (i = 0; i < snap->nr_sheaves; i++)
        if (!json_push(a, json_sheaf(snap, &snap->sheaves[i])))
            return json_drop(o);
    if (!json_put(o, "zones", a = cJSON_CreateArray()))
        return json_drop(o);
    for (i = 0; i < snap->nr_zones; i++)
        if (!json_push(a, json_zone(&snap->zones[i])))
            return json_drop(o);
    if (!json_put(o, "inflight", a = cJSON_CreateArray()))
        return json_drop(o);
    for (i = 0; i < snap->nr_inflight; i++)
        if (!json_push(a, json_hex(snap->inflight[i])))
            return json_drop(o);
    /* objects waiting for a grace period on the non-sheaf kfree_rcu path */
    if (!json_put(o, "rcu_pending", a = cJSON_CreateArray()))
        return json_drop(o);
    for (i = 0; i < snap->nr_rcu_objs; i++)
        if (!json_push(a, json_hex(snap->rcu_objs[i])))
            return json_drop(o);
    if (!json_put(o, "rcu_callbacks", cJSON_CreateNumber(snap->nr_rcu_callbacks)))
        return json_drop(o);
    return o;
}

const struct sim_snap_slab *json_find_slab(const struct sim_snapshot *snap, sim_addr_t addr)
{
    size_t i;

    for (i = 0; i < snap->nr_slabs; i++)
        if (snap->slabs[i].addr == addr)
            return &snap->slabs[i];
    return NULL;
}

static cJSON *json_freeptrs(const struct sim *sim, const struct sim_snapshot *snap,
                            const struct sim_snap_slab *sl)
{
    cJSON *arr = cJSON_CreateArray();
    unsigned i;

    for (i = 0; arr && i < sl->nr_free && sl->freelist + i < snap->nr_objs; i++) {
        sim_addr_t obj = snap->objs[sl->freelist + i];
        struct sim_freeptr fp;
        cJSON *o = cJSON_CreateObject();

        if (!json_push(arr, o) || !json_put(o, "object", json_hex(obj)))
            return json_drop(arr);
        if (sim_read_freeptr(sim, sl->cache, obj, &fp)) {
            if (!json_put(o, "at", cJSON_CreateNull()))
                return json_drop(arr);
            continue;
        }
        if (!json_put(o, "at", json_hex(fp.at)) || !json_put(o, "stored", json_hex(fp.stored)) ||
            !json_put(o, "decoded", json_hex(fp.decoded)))
            return json_drop(arr);
    }
    return arr;
}

cJSON *json_slab_bytes(const struct sim *sim, const struct sim_snapshot *snap,
                       const struct sim_snap_slab *sl)
{
    static const char digits[] = "0123456789abcdef";
    size_t size = (size_t)SIM_PAGE_SIZE << (sl->order < 20 ? sl->order : 20);
    size_t shown = size < JSON_SLAB_MAX_BYTES ? size : JSON_SLAB_MAX_BYTES, i;
    unsigned char *buf = malloc(shown);
    char *hex = malloc(2 * shown + 1);
    cJSON *o = NULL;

    if (!buf || !hex)
        goto out_free;
    if (sim_read_bytes(sim, sl->addr, buf, shown))
        memset(buf, 0, shown);
    for (i = 0; i < shown; i++) {
        hex[2 * i] = digits[buf[i] >> 4];
        hex[2 * i + 1] = digits[buf[i] & 15];
    }
    hex[2 * shown] = '\0';
    o = cJSON_CreateObject();
    if (o &&
        (!json_put(o, "addr", json_hex(sl->addr)) || !json_put(o, "cache", json_int(sl->cache)) ||
         !json_put(o, "order", json_uint(sl->order)) || !json_put(o, "size", json_uint(size)) ||
         !json_put(o, "length", json_uint(shown)) ||
         !cJSON_AddBoolToObject(o, "truncated", shown < size) ||
         !json_put(o, "bytes", cJSON_CreateString(hex)) ||
         !json_put(o, "freeptrs", json_freeptrs(sim, snap, sl)))) {
        cJSON_Delete(o);
        o = NULL;
    }
out_free:
    free(buf);
    free(hex);
    return o;
}
