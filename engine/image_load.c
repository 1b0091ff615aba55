/*
 * image_load.c: an image back into a machine (sim_image_load).
 *
 * Loading trusts nothing: meta is input.  The checksum goes first, then the
 * tag, then the config, which sim_create() checks and turns into zones whose
 * geometry and watermarks must be the ones saved.  Every number is read with
 * its bound, every count is checked against the bytes left before it is
 * allocated (a damaged count cannot ask for gigabytes), the pools are rebuilt
 * whole, and a field out of range or a read past the end is -EINVAL.  Then
 * image_check.c checks every index and list against the pools it names,
 * the pages are read through the caller's callback in address order, and
 * sim_validate() must give the verdict recorded at save (no fault, but for
 * the race lab's NO_TID counterfactual, which breaks a slab on purpose).  Any
 * failure frees everything built so far through sim_destroy(), which every
 * partial state here is shaped for.  See docs/image.md.
 */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SHEAF_CAPACITY (((PAGE_SIZE << MAX_PAGE_ORDER) - SHEAF_HEADER_SIZE) / 8)

struct rbuf {
    const uint8_t *p;
    size_t len, pos;
    bool bad; /* truncated or out of range: every later read gives 0 */
};

static uint64_t get_u(struct rbuf *r)
{
    uint64_t v = 0;

    for (unsigned shift = 0; shift < 64 && !r->bad; shift += 7) {
        uint8_t b;

        if (r->pos >= r->len)
            break;
        b = r->p[r->pos++];
        if (shift == 63 && b > 1)
            break;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            return v;
    }
    r->bad = true;
    return 0;
}

/* An unsigned number of at most @max; anything above it marks @r bad. */
static uint64_t get_max(struct rbuf *r, uint64_t max)
{
    uint64_t v = get_u(r);

    if (v > max) {
        r->bad = true;
        return 0;
    }
    return v;
}

static int64_t get_s(struct rbuf *r, int64_t min, int64_t max)
{
    uint64_t u = get_u(r);
    int64_t v = (u & 1) ? -(int64_t)(u >> 1) - 1 : (int64_t)(u >> 1);

    if (v < min || v > max) {
        r->bad = true;
        return 0;
    }
    return v;
}

static bool get_bool(struct rbuf *r)
{
    return get_max(r, 1) != 0;
}

static uint64_t get_u64(struct rbuf *r)
{
    uint64_t v = 0;

    if (r->bad || r->len - r->pos < 8) {
        r->bad = true;
        return 0;
    }
    for (unsigned i = 0; i < 8; i++)
        v |= (uint64_t)r->p[r->pos + i] << (8 * i);
    r->pos += 8;
    return v;
}

static sim_addr_t get_addr(struct rbuf *r)
{
    return image_addr_code(get_u(r));
}

/* A count of items that take at least one byte each: never more than the
 * bytes left, so a damaged count cannot ask for a huge allocation. */
static size_t get_count(struct rbuf *r, uint64_t max)
{
    uint64_t v = get_max(r, max);

    if (v > r->len - r->pos) {
        r->bad = true;
        return 0;
    }
    return (size_t)v;
}

static void load_config(struct rbuf *r, struct sim_config *c)
{
    memset(c, 0, sizeof(*c));
    c->nr_cpus = (unsigned)get_max(r, SIM_MAX_CPUS);
    c->nr_nodes = (unsigned)get_max(r, SIM_MAX_NODES);
    for (unsigned i = 0; i < SIM_MAX_CPUS; i++)
        c->cpu_node[i] = (unsigned)get_max(r, SIM_MAX_NODES);
    c->mem_per_node = get_u(r);
    c->seed = get_u64(r);
    for (unsigned v = 0; v < SIM_NR_VARIANTS; v++)
        c->variant[v] = (uint8_t)get_max(r, SIM_AFTER);
    c->model = (enum sim_model)get_max(r, SIM_MODEL_HYBRID);
    c->freelist_hardened = get_bool(r);
    c->freelist_random = get_bool(r);
    c->present_cpus = (unsigned)get_max(r, SIM_MAX_CPUS);
    c->max_host_memory = (unsigned)get_max(r, UINT32_MAX);
    c->slab_debug = (uint32_t)get_max(r, UINT32_MAX);
    c->rcu_mode = (enum sim_rcu_mode)get_max(r, SIM_RCU_RANDOM);
    c->rcu_gap = (unsigned)get_max(r, UINT32_MAX);
    c->dma_bytes = get_u(r);
    c->dma32_bytes = get_u(r);
    c->min_free_kbytes = (unsigned)get_max(r, UINT32_MAX);
    c->watermark_scale_factor = (unsigned)get_max(r, UINT32_MAX);
    c->cma = get_bool(r);
    c->reclaim_pages = (unsigned)get_max(r, UINT32_MAX);
    c->alloc_layout = (uint8_t)get_max(r, SIM_ALLOC_LAYOUT_RENUMBERED_FORCED);
    c->kswapd = get_bool(r);
    c->legacy_era = (enum sim_legacy_era)get_max(r, SIM_ERA_DIRECT_LOAD);
    c->release = (enum sim_release)get_max(r, SIM_NR_RELEASES - 1);
    c->race_no_tid = get_bool(r);
    c->slab_debug_no_higher_order = get_bool(r);
    {
        size_t len = get_count(r, SIM_SLAB_DEBUG_MAX - 1);

        if (!r->bad) {
            memcpy(c->slab_debug_blocks, r->p + r->pos, len);
            c->slab_debug_blocks[len] = 0;
            r->pos += len;
        }
    }
}

/* The zone as sim_create() made it must be the one saved; then its state. */
static int load_zone(struct rbuf *r, struct zone *z, unsigned long *nr_bytes)
{
    unsigned long nr_chunks = z->pages / CHUNK_PAGES;

    if (get_s(r, -1, SIM_MAX_NODES) != z->node || get_u(r) != z->type || get_addr(r) != z->start ||
        get_u(r) != z->pages)
        return -EINVAL;
    for (unsigned i = 0; i < SIM_NR_WMARK; i++)
        if (get_u(r) != z->wmark[i])
            return -EINVAL;
    for (unsigned i = 0; i < SIM_NR_ZONE_TYPES; i++)
        if (get_u(r) != z->lowmem_reserve[i])
            return -EINVAL;
    z->user_pages = (unsigned long)get_max(r, z->pages);
    z->free_pages = (unsigned long)get_max(r, z->pages);
    z->untouched = (unsigned long)get_max(r, nr_chunks);
    for (unsigned o = 0; o <= MAX_PAGE_ORDER; o++) {
        z->area[o].head = (uint32_t)get_max(r, z->pages);
        z->area[o].nr_free = (unsigned long)get_max(r, z->pages);
    }
    if (r->bad || (uint64_t)z->untouched * CHUNK_PAGES > r->len - r->pos)
        return -EINVAL;
    for (unsigned long c = 0; c < z->untouched; c++) {
        struct sim_page *chunk = calloc(CHUNK_PAGES, sizeof(*chunk));

        if (!chunk)
            return -ENOMEM;
        z->chunk[c] = chunk;
        for (unsigned i = 0; i < CHUNK_PAGES && !r->bad; i++) {
            struct sim_page *p = &chunk[i];
            unsigned long pfn = c * CHUNK_PAGES + i;
            unsigned f = (unsigned)get_max(r, PD_ALL);

            p->slab = (f & PD_SLAB) ? (uint32_t)get_max(r, UINT32_MAX) : 0;
            p->prev = (f & PD_PREV) ? (uint32_t)get_max(r, z->pages) : 0;
            p->next = (f & PD_NEXT) ? (uint32_t)get_max(r, z->pages) : 0;
            p->buddy = (f & PD_BUDDY) ? (uint8_t)get_max(r, MAX_PAGE_ORDER) : PAGE_BUDDY_NONE;
            p->user = (f & PD_USER) ? (uint8_t)get_max(r, MAX_PAGE_ORDER + 1) : 0;
            /* a free block is aligned to its order, so it lies in this chunk */
            if (p->buddy != PAGE_BUDDY_NONE && pfn % (1ul << p->buddy))
                return -EINVAL;
            if (f & PD_BYTES) { /* its bytes come in load_pages() */
                p->loading = true;
                (*nr_bytes)++;
            }
        }
    }
    return r->bad ? -EINVAL : 0;
}

static void load_ilist(struct rbuf *r, struct ilist *l)
{
    l->head = (uint32_t)get_max(r, UINT32_MAX);
    l->tail = (uint32_t)get_max(r, UINT32_MAX);
    l->nr = (unsigned)get_max(r, UINT32_MAX);
}

static void load_ilink(struct rbuf *r, struct ilink *l)
{
    l->prev = (uint32_t)get_max(r, UINT32_MAX);
    l->next = (uint32_t)get_max(r, UINT32_MAX);
}

static int load_cache(struct rbuf *r, struct sim *sim, unsigned id)
{
    unsigned nr_cpus = sim->cfg.nr_cpus, nr_nodes = sim->cfg.nr_nodes;
    struct kmem_cache *s = calloc(1, sizeof(*s));
    size_t len;

    if (!s)
        return -ENOMEM;
    sim->caches[id] = s;
    sim->nr_caches = id + 1;
    s->pcs = calloc(nr_cpus, sizeof(*s->pcs));
    s->node = calloc(nr_nodes, sizeof(*s->node));
    s->barn = calloc(nr_nodes, sizeof(*s->barn));
    s->stats = calloc(nr_cpus, sizeof(*s->stats));
    if (!s->pcs || !s->node || !s->barn || !s->stats)
        return -ENOMEM;
    s->id = (int)get_s(r, id, id);
    s->alive = get_bool(r);
    len = get_count(r, SIM_NAME_MAX - 1);
    if (r->bad)
        return -EINVAL;
    memcpy(s->name, r->p + r->pos, len);
    r->pos += len;
    s->object_size = (unsigned)get_max(r, UINT32_MAX);
    s->size = (unsigned)get_max(r, PAGE_SIZE << MAX_PAGE_ORDER);
    if (!s->size)
        return -EINVAL;
    s->reciprocal_size = ((uint64_t)1 << 32) / s->size; /* as calculate_sizes() */
    s->inuse = (unsigned)get_max(r, s->size);
    s->offset = (unsigned)get_max(r, s->size);
    s->align = (unsigned)get_max(r, UINT32_MAX);
    s->red_left_pad = (unsigned)get_max(r, s->size);
    s->flags = (uint32_t)get_max(r, UINT32_MAX);
    s->ctor = get_bool(r);
    s->oo.order = (unsigned)get_max(r, MAX_PAGE_ORDER);
    s->oo.objects = (unsigned)get_max(r, MAX_OBJS_PER_PAGE);
    s->min.order = (unsigned)get_max(r, MAX_PAGE_ORDER);
    s->min.objects = (unsigned)get_max(r, MAX_OBJS_PER_PAGE);
    s->min_partial = (unsigned)get_max(r, UINT32_MAX);
    s->nr_created = (unsigned)get_max(r, UINT32_MAX);
    s->sheaf_capacity = (unsigned)get_max(r, MAX_SHEAF_CAPACITY);
    s->requested_sheaf_capacity = (unsigned)get_max(r, MAX_SHEAF_CAPACITY);
    s->remote_node_defrag_ratio = (unsigned)get_max(r, UINT32_MAX);
    s->errors = (unsigned)get_max(r, UINT32_MAX);
    s->random = get_u64(r);
    if (r->bad || (uint64_t)s->oo.objects * s->size > (uint64_t)PAGE_SIZE << s->oo.order ||
        (uint64_t)s->min.objects * s->size > (uint64_t)PAGE_SIZE << s->min.order)
        return -EINVAL;
    if (get_bool(r)) {
        uint8_t *seen;

        if (!s->oo.objects || s->oo.objects > r->len - r->pos)
            return -EINVAL;
        s->random_seq = malloc(s->oo.objects * sizeof(*s->random_seq));
        seen = calloc(s->oo.objects, 1);
        if (!s->random_seq || !seen) {
            free(seen);
            return -ENOMEM;
        }
        /* a permutation of the slots' byte offsets */
        for (unsigned i = 0; i < s->oo.objects; i++) {
            uint64_t off = get_max(r, (uint64_t)(s->oo.objects - 1) * s->size);

            s->random_seq[i] = (unsigned)off;
            if (off % s->size || seen[off / s->size]++)
                r->bad = true;
        }
        free(seen);
    }
    for (unsigned c = 0; c < nr_cpus; c++) {
        s->pcs[c].main = (uint32_t)get_max(r, UINT32_MAX);
        s->pcs[c].spare = (uint32_t)get_max(r, UINT32_MAX);
        s->pcs[c].rcu_free = (uint32_t)get_max(r, UINT32_MAX);
    }
    for (unsigned n = 0; n < nr_nodes; n++) {
        load_ilist(r, &s->node[n].partial);
        load_ilist(r, &s->node[n].full);
        s->node[n].nr_slabs = (unsigned long)get_u(r);
        s->node[n].total_objects = (unsigned long)get_u(r);
        load_ilist(r, &s->barn[n].full);
        load_ilist(r, &s->barn[n].empty);
        s->barn[n].partial = (uint32_t)get_max(r, UINT32_MAX);
    }
    for (unsigned c = 0; c < nr_cpus; c++)
        for (unsigned i = 0; i < SIM_NR_STATS; i++)
            s->stats[c][i] = get_u(r);
    if (get_bool(r)) {
        s->cpu_slab = calloc(nr_cpus, sizeof(*s->cpu_slab));
        if (!s->cpu_slab)
            return -ENOMEM;
        for (unsigned c = 0; c < nr_cpus; c++) {
            s->cpu_slab[c].freelist = get_addr(r);
            s->cpu_slab[c].tid = get_u(r);
            s->cpu_slab[c].slab = (uint32_t)get_max(r, UINT32_MAX);
            s->cpu_slab[c].partial = (uint32_t)get_max(r, UINT32_MAX);
        }
    }
    s->cpu_partial = (unsigned)get_max(r, UINT32_MAX);
    s->cpu_partial_slabs = (unsigned)get_max(r, UINT32_MAX);
    return r->bad ? -EINVAL : 0;
}

static void load_place(struct rbuf *r, const struct sim *sim, struct sim_place *pl)
{
    pl->type = (uint8_t)get_max(r, SIM_NR_PLACES - 1);
    pl->cpu = (int16_t)get_s(r, -1, (int64_t)sim->cfg.nr_cpus - 1);
    pl->node = (int16_t)get_s(r, -1, (int64_t)sim->cfg.nr_nodes - 1);
    pl->slot = (int32_t)get_s(r, INT32_MIN, INT32_MAX);
    pl->slab = get_addr(r);
    pl->sheaf = (uint32_t)get_max(r, UINT32_MAX);
}

static void load_slab(struct rbuf *r, const struct sim *sim, struct slab *slab)
{
    load_ilink(r, &slab->link);
    slab->cache = (int)get_s(r, -1, (int64_t)sim->nr_caches - 1);
    slab->node = (int)get_s(r, 0, (int64_t)sim->cfg.nr_nodes - 1);
    slab->seq = (unsigned)get_max(r, UINT32_MAX);
    slab->base = get_addr(r);
    slab->order = (uint8_t)get_max(r, MAX_PAGE_ORDER);
    slab->list = (uint8_t)get_max(r, SLAB_ON_CPU_PARTIAL);
    slab->frozen = get_bool(r);
    slab->fresh = get_bool(r);
    slab->accounted = get_bool(r);
    slab->objects = (unsigned)get_max(r, MAX_OBJS_PER_PAGE);
    slab->inuse = (unsigned)get_max(r, UINT32_MAX);
    slab->freelist = get_addr(r);
    slab->nr_user = (int)get_s(r, INT32_MIN, INT32_MAX);
    slab->cpu_frozen = get_bool(r);
    slab->cpu = (int)get_s(r, -1, (int64_t)sim->cfg.nr_cpus - 1);
    slab->next = (uint32_t)get_max(r, UINT32_MAX);
    slab->slabs = (unsigned)get_max(r, UINT32_MAX);
}

static int load_sheaf(struct rbuf *r, const struct sim *sim, struct slab_sheaf *sh)
{
    load_ilink(r, &sh->link);
    sh->id = (uint32_t)get_max(r, UINT32_MAX);
    sh->cache = (int)get_s(r, -1, (int64_t)sim->nr_caches - 1);
    sh->size = (unsigned)get_max(r, MAX_SHEAF_CAPACITY);
    sh->capacity = (unsigned)get_max(r, MAX_SHEAF_CAPACITY);
    sh->rcu_node = (int)get_s(r, -1, (int64_t)sim->cfg.nr_nodes - 1);
    sh->pfmemalloc = get_bool(r);
    load_place(r, sim, &sh->place);
    if (get_bool(r)) {
        if (r->bad || sh->size > sh->capacity || sh->size > r->len - r->pos)
            return -EINVAL;
        sh->objects = calloc(sh->capacity ? sh->capacity : 1, sizeof(*sh->objects));
        if (!sh->objects)
            return -ENOMEM;
        for (unsigned i = 0; i < sh->size; i++)
            sh->objects[i] = get_addr(r);
    } else if (sh->size) {
        return -EINVAL;
    }
    return r->bad ? -EINVAL : 0;
}

/* Rebuild pool @p (empty, as pool_init() left it) from @r. */
static int load_pool(struct rbuf *r, struct sim *sim, struct pool *p, bool sheaves)
{
    uint32_t used = (uint32_t)get_count(r, UINT32_MAX - 1);
    uint32_t nr_chunks = (uint32_t)get_max(r, UINT32_MAX);
    uint32_t cap_free = (uint32_t)get_max(r, UINT32_MAX);
    uint32_t nr_free = (uint32_t)get_count(r, UINT32_MAX);

    if (r->bad || used < 1 ||
        (nr_chunks ? used > (uint64_t)nr_chunks * POOL_CHUNK ||
                             used <= (uint64_t)(nr_chunks - 1) * POOL_CHUNK
                   : used != 1) ||
        nr_free > cap_free || nr_free >= used || cap_free > 2 * (uint64_t)used + 64)
        return -EINVAL;
    if (nr_chunks) {
        p->chunk = calloc(nr_chunks, sizeof(*p->chunk));
        if (!p->chunk)
            return -ENOMEM;
        for (uint32_t c = 0; c < nr_chunks; c++) {
            p->chunk[c] = calloc(POOL_CHUNK, p->elem);
            if (!p->chunk[c])
                return -ENOMEM;
            p->nr_chunks = c + 1;
        }
    }
    if (cap_free) {
        p->free_ids = calloc(cap_free, sizeof(*p->free_ids));
        if (!p->free_ids)
            return -ENOMEM;
        p->cap_free = cap_free;
    }
    for (uint32_t i = 0; i < nr_free; i++)
        p->free_ids[i] = (uint32_t)get_max(r, used - 1);
    p->nr_free = nr_free;
    p->used = used; /* every entry is zeroed: sim_destroy() may walk them */
    for (uint32_t i = 1; i < used && !r->bad; i++) {
        if (!sheaves) {
            load_slab(r, sim, pool_at(p, i));
        } else {
            const struct slab_sheaf *sh = pool_at(p, i);
            int ret = load_sheaf(r, sim, pool_at(p, i));

            if (ret)
                return ret;
            if (sh->objects) {
                sim->nr_sheaf_arrays++;
                sim->sheaf_slots += sh->capacity ? sh->capacity : 1;
            }
        }
    }
    return r->bad ? -EINVAL : 0;
}

static int load_body(struct rbuf *r, struct sim *sim, unsigned long *nr_bytes)
{
    struct sim_page_alloc *pa = &sim->pa;
    size_t nr_caches, cap_caches;
    int ret;

    for (unsigned i = 0; i < 4; i++)
        sim->rng.s[i] = get_u64(r);
    sim->seq = get_u(r);
    sim->op = get_u(r);
    sim->cpu = (int)get_s(r, 0, (int64_t)sim->cfg.nr_cpus - 1);
    sim->nr_page_bytes = get_u(r);
    sim->fail_alloc_in = (unsigned long)get_u(r);
    sim->fail_page_order = (int)get_s(r, -1, MAX_PAGE_ORDER + 1);
    sim->gfp = (uint32_t)get_max(r, UINT32_MAX);
    sim->gfp_ctx.in_task = get_bool(r);
    sim->gfp_ctx.rt_or_dl = get_bool(r);
    sim->gfp_ctx.pf_memalloc = get_bool(r);
    sim->gfp_ctx.oom_victim = get_bool(r);
    sim->gfp_ctx.cma = get_bool(r);
    pa->gfp = (uint32_t)get_max(r, UINT32_MAX);
    pa->order = (unsigned)get_max(r, UINT32_MAX);
    pa->alloc_flags = (unsigned)get_max(r, UINT32_MAX);
    pa->node = (int)get_s(r, INT32_MIN, INT32_MAX);
    pa->zone = (unsigned)get_max(r, UINT32_MAX);
    pa->preferred_node = (int)get_s(r, INT32_MIN, INT32_MAX);
    pa->preferred_zone = (unsigned)get_max(r, UINT32_MAX);
    pa->highest_zone = (unsigned)get_max(r, UINT32_MAX);
    pa->migratetype = (unsigned)get_max(r, UINT32_MAX);
    pa->path = image_pa_name(false, get_max(r, image_pa_count(false) - 1));
    pa->mark = image_pa_name(true, get_max(r, image_pa_count(true) - 1));
    pa->free = (unsigned long)get_u(r);
    pa->threshold = (long)get_s(r, INT64_MIN / 2, INT64_MAX / 2);
    pa->addr = get_addr(r);
    pa->pfmemalloc = get_bool(r);
    pa->layout = (unsigned)get_max(r, SIM_ALLOC_LAYOUT_RENUMBERED_FORCED);

    if (get_u(r) != sim->nr_zones || r->bad)
        return -EINVAL;
    for (unsigned i = 0; i < sim->nr_zones; i++)
        if ((ret = load_zone(r, &sim->zones[i], nr_bytes)))
            return ret;
    cap_caches = get_count(r, UINT32_MAX);
    nr_caches = (size_t)get_max(r, cap_caches); /* <= cap_caches */
    if (r->bad)
        return -EINVAL;
    sim->caches = calloc(cap_caches ? cap_caches : 1, sizeof(*sim->caches));
    if (!sim->caches)
        return -ENOMEM;
    sim->cap_caches = (unsigned)cap_caches;
    for (unsigned i = 0; i < nr_caches; i++)
        if ((ret = load_cache(r, sim, i)))
            return ret;
    for (unsigned i = 0; i < 16; i++) {
        sim->kmalloc_cache[i] = (int)get_s(r, -1, (int64_t)nr_caches - 1);
        sim->kmalloc_dma_cache[i] = (int)get_s(r, -1, (int64_t)nr_caches - 1);
    }
    /* the pools sim_create() made (the bootstrap sheaf) are replaced whole */
    for (uint32_t i = 1; i < sim->sheaves.used; i++)
        free(sheaf_at(sim, i)->objects);
    pool_release(&sim->sheaves);
    pool_release(&sim->slabs);
    sim->nr_sheaf_arrays = 0;
    sim->sheaf_slots = 0;
    pool_init(&sim->slabs, sizeof(struct slab));
    pool_init(&sim->sheaves, sizeof(struct slab_sheaf));
    if (r->bad)
        return -EINVAL;
    if ((ret = load_pool(r, sim, &sim->slabs, false)) ||
        (ret = load_pool(r, sim, &sim->sheaves, true)))
        return ret;
    sim->next_sheaf_id = (uint32_t)get_max(r, UINT32_MAX);
    sim->nr_rcu = get_count(r, UINT32_MAX);
    if (sim->nr_rcu) {
        sim->rcu = calloc(sim->nr_rcu, sizeof(*sim->rcu));
        if (!sim->rcu)
            return -ENOMEM;
        sim->cap_rcu = sim->nr_rcu;
    }
    for (size_t i = 0; i < sim->nr_rcu; i++) {
        sim->rcu[i].kind = (uint8_t)get_max(r, RCU_CB_SLAB);
        sim->rcu[i].cpu = (uint8_t)get_max(r, sim->cfg.nr_cpus - 1);
        sim->rcu[i].idx = (uint32_t)get_max(r, UINT32_MAX);
        sim->rcu[i].obj = get_addr(r);
    }
    sim->nr_user = get_count(r, UINT32_MAX);
    if (sim->nr_user) {
        sim->user = calloc(sim->nr_user, sizeof(*sim->user));
        if (!sim->user)
            return -ENOMEM;
        sim->cap_user = sim->nr_user;
    }
    for (size_t i = 0; i < sim->nr_user; i++) {
        sim->user[i].addr = get_addr(r);
        sim->user[i].order = (uint8_t)get_max(r, MAX_PAGE_ORDER);
        sim->user[i].gfp = (uint32_t)get_max(r, UINT32_MAX);
    }
    return r->bad ? -EINVAL : 0;
}

/* Fill every page that has bytes, in address order. */
/* Where load_pages() gets page bytes: one of the two callbacks. */
struct page_source {
    int (*fill)(void *arg, sim_addr_t addr, uint8_t *dst);
    int (*give)(void *arg, sim_addr_t addr, const uint8_t **bytes);
    void *arg;
};

/* The bytes of every page the image says has them, in address order. */
static int load_pages(struct sim *sim, const struct page_source *src)
{
    unsigned order[IMAGE_MAX_ZONES];

    image_zones_by_address(sim, order);
    for (unsigned k = 0; k < sim->nr_zones; k++) {
        const struct zone *z = &sim->zones[order[k]];

        for (unsigned long c = 0; c < z->untouched; c++) {
            for (unsigned i = 0; i < CHUNK_PAGES; i++) {
                struct sim_page *p = &z->chunk[c][i];
                sim_addr_t addr = z->start + ((sim_addr_t)(c * CHUNK_PAGES + i) << PAGE_SHIFT);
                const uint8_t *given = NULL;
                int ret;

                if (!p->loading)
                    continue;
                p->loading = false;
                if (src->give) {
                    ret = src->give(src->arg, addr, &given);
                    p->bytes = (uint8_t *)(uintptr_t)given; /* its hold is the machine's */
                    if (!ret && !given)
                        ret = -EINVAL;
                } else if ((p->bytes = page_bytes_alloc())) {
                    ret = src->fill(src->arg, addr, p->bytes);
                } else {
                    ret = -ENOMEM;
                }
                if (ret)
                    return ret;
            }
        }
    }
    return 0;
}

static int image_load(const void *meta, size_t meta_len, const struct page_source *page,
                      struct sim **out)
{
    struct rbuf r = {.p = meta, .len = meta_len};
    struct sim_config cfg;
    const char *tag = sim_image_tag();
    struct sim *sim = NULL;
    unsigned long nr_bytes = 0;
    unsigned violations;
    uint64_t digest, found;
    size_t tag_len;
    int ret;

    if (!meta || meta_len < IMAGE_SUM_LEN || !(page->fill || page->give))
        return -EINVAL;
    r.len -= IMAGE_SUM_LEN;
    {
        uint64_t sum = 0;

        for (unsigned i = 0; i < 8; i++)
            sum |= (uint64_t)r.p[r.len + i] << (8 * i);
        if (sum != image_checksum(r.p, r.len))
            return -EINVAL;
    }
    tag_len = get_count(&r, strlen(tag));
    if (r.bad || tag_len != strlen(tag) || memcmp(r.p + r.pos, tag, tag_len))
        return -EINVAL;
    r.pos += tag_len;
    load_config(&r, &cfg);
    if (r.bad || config_check(&cfg))
        return -EINVAL;
    ret = sim_create(&cfg, &sim);
    if (ret)
        return ret;
    ret = load_body(&r, sim, &nr_bytes);
    violations = (unsigned)get_max(&r, UINT32_MAX);
    digest = get_u64(&r);
    if (!ret && (r.bad || r.pos != r.len))
        ret = -EINVAL;
    if (!ret)
        ret = image_check_loaded(sim, nr_bytes);
    if (!ret)
        ret = load_pages(sim, page);
    if (!ret && (image_report(sim, &found) != violations || found != digest))
        ret = -EINVAL;
    if (ret) {
        sim_destroy(sim);
        return ret;
    }
    *out = sim;
    return 0;
}

int sim_image_load(const void *meta, size_t meta_len,
                   int (*page)(void *arg, sim_addr_t addr, uint8_t *dst), void *arg,
                   struct sim **out)
{
    struct page_source src = {page, NULL, arg};

    return image_load(meta, meta_len, &src, out);
}

int sim_image_load_shared(const void *meta, size_t meta_len,
                          int (*page)(void *arg, sim_addr_t addr, const uint8_t **bytes), void *arg,
                          struct sim **out)
{
    struct page_source src = {NULL, page, arg};

    return image_load(meta, meta_len, &src, out);
}
