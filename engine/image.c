/*
 * image.c: a machine as bytes, and back (sim_image_save, sim_image_load).
 *
 * An image is what a checkpoint on disk holds: the meta bytes, which say
 * everything about the machine but the contents of its pages, and the list of
 * pages whose bytes are host memory, by address.  The pages stay where they
 * are (sim_image_save() points into the machine) so that a store can write
 * them, or share them between checkpoints, as it likes; sim_image_load()
 * asks for each one through a callback.  The machine that comes back is what
 * sim_clone() of the saved one would be, down to sim_host_bytes().
 *
 * Meta is written field by field, never as a struct: unsigned numbers as
 * LEB128 varints, signed ones zigzagged, addresses as varints of their
 * distance from the direct map (so NULL and kernel-like addresses are short),
 * the random state and secrets as 8 little-endian bytes.  Page descriptors are
 * written only for the carved chunks of a zone (an untouched chunk has none),
 * each as a byte of which fields differ from a free page's, then those fields.
 * Meta opens with sim_image_tag() and ends with an FNV-1a checksum of all
 * that precedes it.  The same machine always gives the same bytes: no
 * padding, no host pointer, nothing in pointer order.
 *
 * Loading trusts nothing: every count is checked against the bytes left
 * before it is allocated, every index and list against the pools it names
 * (walked with a visited map, so a cycle is an error, not a hang), every
 * slab against the page descriptors of its pages, and then sim_validate()
 * must give the verdict it gave on the saved machine (no fault, but for the
 * race lab's NO_TID counterfactual, which breaks a slab on purpose); any
 * failure is -EINVAL and frees everything.  Only a machine
 * between operations can be saved: inside one (or in a race's checking
 * clone) -EBUSY; a broken or halted machine (sim_apply() answers -EIO) -EIO.
 */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * The tag: the format's version, the engine's, and the sizes of the structs
 * written here.  The sizes are checked below at build time on LP64 hosts, so
 * a field added to any of them stops the build here until its serialization
 * is written and IMAGE_FORMAT bumped.
 */
#define IMAGE_FORMAT "1"
#define IMAGE_LAYOUT \
    "sim2024 cfg368 zone296 page24 cache200 slab80 sheaf72 rcu16 user16 pa88 stats48 variants8"
static const char image_tag[] =
        "slublab-image/" IMAGE_FORMAT " engine " SIM_VERSION " " IMAGE_LAYOUT;

_Static_assert(SIM_NR_STATS == 48, "image.c: update IMAGE_LAYOUT and IMAGE_FORMAT");
_Static_assert(SIM_NR_VARIANTS == 8, "image.c: update IMAGE_LAYOUT and IMAGE_FORMAT");
#if UINTPTR_MAX == UINT64_MAX
_Static_assert(sizeof(struct sim) == 2024 && sizeof(struct sim_config) == 368 &&
                       sizeof(struct zone) == 296 && sizeof(struct sim_page) == 24 &&
                       sizeof(struct kmem_cache) == 200 && sizeof(struct slab) == 80 &&
                       sizeof(struct slab_sheaf) == 72 && sizeof(struct rcu_cb) == 16 &&
                       sizeof(struct user_block) == 16 && sizeof(struct sim_page_alloc) == 88,
               "image.c: a struct the image holds changed; write its new fields, then update "
               "IMAGE_LAYOUT and IMAGE_FORMAT");
#endif

#define IMAGE_SUM_LEN      8u /* the checksum at the end of meta */
#define MAX_SHEAF_CAPACITY (((PAGE_SIZE << MAX_PAGE_ORDER) - SHEAF_HEADER_SIZE) / 8)

const char *sim_image_tag(void)
{
    return image_tag;
}

/* ---- Bytes ------------------------------------------------------------------ */

static uint64_t fnv1a(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;

    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* Write the checksum of @meta's first @len - 8 bytes into its last 8.  Tests
 * use it to reseal an image they damaged on purpose.  Cannot fail. */
void image_seal(uint8_t *meta, size_t len)
{
    uint64_t h;

    if (len < IMAGE_SUM_LEN)
        return;
    h = fnv1a(meta, len - IMAGE_SUM_LEN);
    for (unsigned i = 0; i < 8; i++)
        meta[len - IMAGE_SUM_LEN + i] = (uint8_t)(h >> (8 * i));
}

/* Addresses are written as their distance from the direct map: an involution
 * that keeps 0 (NULL) and DIRECT_MAP_BASE where they are. */
static uint64_t addr_code(uint64_t a)
{
    return (a == 0 || a == DIRECT_MAP_BASE) ? a : a ^ DIRECT_MAP_BASE;
}

struct wbuf {
    uint8_t *p;
    size_t len, cap;
    bool oom; /* a realloc failed: everything after it was dropped */
};

static void put_raw(struct wbuf *w, const void *src, size_t n)
{
    if (w->oom)
        return;
    if (w->cap - w->len < n) {
        size_t cap = w->cap ? w->cap : 4096;
        uint8_t *p;

        while (cap - w->len < n)
            cap *= 2;
        p = realloc(w->p, cap);
        if (!p) {
            w->oom = true;
            return;
        }
        w->p = p;
        w->cap = cap;
    }
    memcpy(w->p + w->len, src, n);
    w->len += n;
}

static void put_u(struct wbuf *w, uint64_t v)
{
    uint8_t b[10];
    size_t n = 0;

    do {
        b[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v)
            b[n] |= 0x80;
        n++;
    } while (v);
    put_raw(w, b, n);
}

static void put_s(struct wbuf *w, int64_t v)
{
    put_u(w, v < 0 ? ~((uint64_t)v << 1) : (uint64_t)v << 1);
}

static void put_u64(struct wbuf *w, uint64_t v)
{
    uint8_t b[8];

    for (unsigned i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    put_raw(w, b, 8);
}

static void put_addr(struct wbuf *w, sim_addr_t a)
{
    put_u(w, addr_code(a));
}

static void put_str(struct wbuf *w, const char *s, size_t max)
{
    size_t n = 0;

    while (n < max && s[n])
        n++;

    put_u(w, n);
    put_raw(w, s, n);
}

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
    return addr_code(get_u(r));
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

/* ---- Saving ------------------------------------------------------------------ */

static const char *const pa_paths[] = {NULL,        "fast",   "slow",    "reserve",      "reclaim",
                                       "oom_probe", "nofail", "no_zone", "fail_injected"};
static const char *const pa_marks[] = {NULL, "min", "low", "high", "promo", "none"};
#define NR_PA_PATHS (sizeof(pa_paths) / sizeof(pa_paths[0]))
#define NR_PA_MARKS (sizeof(pa_marks) / sizeof(pa_marks[0]))

/* Index of @s in @table by content (0, NULL, when it is not there). */
static unsigned str_index(const char *const *table, size_t n, const char *s)
{
    for (unsigned i = 1; s && i < n; i++)
        if (!strcmp(table[i], s))
            return i;
    return 0;
}

static void save_config(struct wbuf *w, const struct sim_config *c)
{
    put_u(w, c->nr_cpus);
    put_u(w, c->nr_nodes);
    for (unsigned i = 0; i < SIM_MAX_CPUS; i++)
        put_u(w, c->cpu_node[i]);
    put_u(w, c->mem_per_node);
    put_u64(w, c->seed);
    for (unsigned v = 0; v < SIM_NR_VARIANTS; v++)
        put_u(w, c->variant[v]);
    put_u(w, (uint64_t)c->model);
    put_u(w, c->freelist_hardened);
    put_u(w, c->freelist_random);
    put_u(w, c->present_cpus);
    put_u(w, c->max_host_memory);
    put_u(w, c->slab_debug);
    put_u(w, (uint64_t)c->rcu_mode);
    put_u(w, c->rcu_gap);
    put_u(w, c->dma_bytes);
    put_u(w, c->dma32_bytes);
    put_u(w, c->min_free_kbytes);
    put_u(w, c->watermark_scale_factor);
    put_u(w, c->cma);
    put_u(w, c->reclaim_pages);
    put_u(w, c->alloc_layout);
    put_u(w, c->kswapd);
    put_u(w, (uint64_t)c->legacy_era);
    put_u(w, (uint64_t)c->release);
    put_u(w, c->race_no_tid);
}

/* Bits of a page descriptor's leading byte: which fields follow. */
enum {
    PD_SLAB = 0x01,
    PD_PREV = 0x02,
    PD_NEXT = 0x04,
    PD_BUDDY = 0x08,
    PD_USER = 0x10,
    PD_BYTES = 0x20,
    PD_ALL = 0x3f,
};

static void save_zone(struct wbuf *w, const struct zone *z)
{
    put_s(w, z->node);
    put_u(w, z->type);
    put_addr(w, z->start);
    put_u(w, z->pages);
    for (unsigned i = 0; i < SIM_NR_WMARK; i++)
        put_u(w, z->wmark[i]);
    for (unsigned i = 0; i < SIM_NR_ZONE_TYPES; i++)
        put_u(w, z->lowmem_reserve[i]);
    put_u(w, z->user_pages);
    put_u(w, z->free_pages);
    put_u(w, z->untouched);
    for (unsigned o = 0; o <= MAX_PAGE_ORDER; o++) {
        put_u(w, z->area[o].head);
        put_u(w, z->area[o].nr_free);
    }
    for (unsigned long c = 0; c < z->untouched; c++) {
        for (unsigned i = 0; i < CHUNK_PAGES; i++) {
            const struct sim_page *p = &z->chunk[c][i];
            uint8_t f = (uint8_t)((p->slab ? PD_SLAB : 0) | (p->prev ? PD_PREV : 0) |
                                  (p->next ? PD_NEXT : 0) |
                                  (p->buddy != PAGE_BUDDY_NONE ? PD_BUDDY : 0) |
                                  (p->user ? PD_USER : 0) | (p->bytes ? PD_BYTES : 0));

            put_raw(w, &f, 1);
            if (f & PD_SLAB)
                put_u(w, p->slab);
            if (f & PD_PREV)
                put_u(w, p->prev);
            if (f & PD_NEXT)
                put_u(w, p->next);
            if (f & PD_BUDDY)
                put_u(w, p->buddy);
            if (f & PD_USER)
                put_u(w, p->user);
        }
    }
}

static void save_ilist(struct wbuf *w, const struct ilist *l)
{
    put_u(w, l->head);
    put_u(w, l->tail);
    put_u(w, l->nr);
}

static void save_cache(struct wbuf *w, const struct sim *sim, const struct kmem_cache *s)
{
    put_s(w, s->id);
    put_u(w, s->alive);
    put_str(w, s->name, SIM_NAME_MAX - 1);
    put_u(w, s->object_size);
    put_u(w, s->size);
    put_u(w, s->inuse);
    put_u(w, s->offset);
    put_u(w, s->align);
    put_u(w, s->red_left_pad);
    put_u(w, s->flags);
    put_u(w, s->ctor);
    put_u(w, s->oo.order);
    put_u(w, s->oo.objects);
    put_u(w, s->min.order);
    put_u(w, s->min.objects);
    put_u(w, s->min_partial);
    put_u(w, s->nr_created);
    put_u(w, s->sheaf_capacity);
    put_u(w, s->requested_sheaf_capacity);
    put_u(w, s->remote_node_defrag_ratio);
    put_u64(w, s->random);
    put_u(w, s->random_seq != NULL);
    for (unsigned i = 0; s->random_seq && i < s->oo.objects; i++)
        put_u(w, s->random_seq[i]);
    for (unsigned c = 0; c < sim->cfg.nr_cpus; c++) {
        put_u(w, s->pcs[c].main);
        put_u(w, s->pcs[c].spare);
        put_u(w, s->pcs[c].rcu_free);
    }
    for (unsigned n = 0; n < sim->cfg.nr_nodes; n++) {
        save_ilist(w, &s->node[n].partial);
        save_ilist(w, &s->node[n].full);
        put_u(w, s->node[n].nr_slabs);
        put_u(w, s->node[n].total_objects);
        save_ilist(w, &s->barn[n].full);
        save_ilist(w, &s->barn[n].empty);
        put_u(w, s->barn[n].partial);
    }
    for (unsigned c = 0; c < sim->cfg.nr_cpus; c++)
        for (unsigned i = 0; i < SIM_NR_STATS; i++)
            put_u(w, s->stats[c][i]);
    put_u(w, s->cpu_slab != NULL);
    for (unsigned c = 0; s->cpu_slab && c < sim->cfg.nr_cpus; c++) {
        put_addr(w, s->cpu_slab[c].freelist);
        put_u(w, s->cpu_slab[c].tid);
        put_u(w, s->cpu_slab[c].slab);
        put_u(w, s->cpu_slab[c].partial);
    }
    put_u(w, s->cpu_partial);
    put_u(w, s->cpu_partial_slabs);
}

static void save_place(struct wbuf *w, const struct sim_place *pl)
{
    put_u(w, pl->type);
    put_s(w, pl->cpu);
    put_s(w, pl->node);
    put_s(w, pl->slot);
    put_addr(w, pl->slab);
    put_u(w, pl->sheaf);
}

static void save_slab(struct wbuf *w, const struct slab *slab)
{
    put_u(w, slab->link.prev);
    put_u(w, slab->link.next);
    put_s(w, slab->cache);
    put_s(w, slab->node);
    put_u(w, slab->seq);
    put_addr(w, slab->base);
    put_u(w, slab->order);
    put_u(w, slab->list);
    put_u(w, slab->frozen);
    put_u(w, slab->fresh);
    put_u(w, slab->accounted);
    put_u(w, slab->objects);
    put_u(w, slab->inuse);
    put_addr(w, slab->freelist);
    put_s(w, slab->nr_user);
    put_u(w, slab->cpu_frozen);
    put_s(w, slab->cpu);
    put_u(w, slab->next);
    put_u(w, slab->slabs);
}

static void save_sheaf(struct wbuf *w, const struct slab_sheaf *sh)
{
    put_u(w, sh->link.prev);
    put_u(w, sh->link.next);
    put_u(w, sh->id);
    put_s(w, sh->cache);
    put_u(w, sh->size);
    put_u(w, sh->capacity);
    put_s(w, sh->rcu_node);
    put_u(w, sh->pfmemalloc);
    save_place(w, &sh->place);
    put_u(w, sh->objects != NULL);
    for (unsigned i = 0; sh->objects && i < sh->size; i++)
        put_addr(w, sh->objects[i]);
}

static void save_pool(struct wbuf *w, const struct pool *p, bool sheaves)
{
    put_u(w, p->used);
    put_u(w, p->nr_chunks);
    put_u(w, p->cap_free);
    put_u(w, p->nr_free);
    for (uint32_t i = 0; i < p->nr_free; i++)
        put_u(w, p->free_ids[i]);
    for (uint32_t i = 1; i < p->used; i++) {
        if (sheaves)
            save_sheaf(w, pool_at(p, i));
        else
            save_slab(w, pool_at(p, i));
    }
}

static void save_body(struct wbuf *w, const struct sim *sim)
{
    const struct sim_page_alloc *pa = &sim->pa;

    put_str(w, image_tag, sizeof(image_tag));
    save_config(w, &sim->cfg);
    for (unsigned i = 0; i < 4; i++)
        put_u64(w, sim->rng.s[i]);
    put_u(w, sim->seq);
    put_u(w, sim->op);
    put_s(w, sim->cpu);
    put_u(w, sim->nr_page_bytes);
    put_u(w, sim->fail_alloc_in);
    put_s(w, sim->fail_page_order);
    put_u(w, sim->gfp);
    put_u(w, sim->gfp_ctx.in_task);
    put_u(w, sim->gfp_ctx.rt_or_dl);
    put_u(w, sim->gfp_ctx.pf_memalloc);
    put_u(w, sim->gfp_ctx.oom_victim);
    put_u(w, sim->gfp_ctx.cma);
    /* the last page allocator decision (rewritten before every use) */
    put_u(w, pa->gfp);
    put_u(w, pa->order);
    put_u(w, pa->alloc_flags);
    put_s(w, pa->node);
    put_u(w, pa->zone);
    put_s(w, pa->preferred_node);
    put_u(w, pa->preferred_zone);
    put_u(w, pa->highest_zone);
    put_u(w, pa->migratetype);
    put_u(w, str_index(pa_paths, NR_PA_PATHS, pa->path));
    put_u(w, str_index(pa_marks, NR_PA_MARKS, pa->mark));
    put_u(w, pa->free);
    put_s(w, pa->threshold);
    put_addr(w, pa->addr);
    put_u(w, pa->pfmemalloc);
    put_u(w, pa->layout);

    put_u(w, sim->nr_zones);
    for (unsigned i = 0; i < sim->nr_zones; i++)
        save_zone(w, &sim->zones[i]);
    put_u(w, sim->cap_caches);
    put_u(w, sim->nr_caches);
    for (unsigned i = 0; i < sim->nr_caches; i++)
        save_cache(w, sim, sim->caches[i]);
    for (unsigned i = 0; i < 16; i++) {
        put_s(w, sim->kmalloc_cache[i]);
        put_s(w, sim->kmalloc_dma_cache[i]);
    }
    save_pool(w, &sim->slabs, false);
    save_pool(w, &sim->sheaves, true);
    put_u(w, sim->next_sheaf_id);
    put_u(w, sim->nr_rcu);
    for (size_t i = 0; i < sim->nr_rcu; i++) {
        put_u(w, sim->rcu[i].kind);
        put_u(w, sim->rcu[i].cpu);
        put_u(w, sim->rcu[i].idx);
        put_addr(w, sim->rcu[i].obj);
    }
    put_u(w, sim->nr_user);
    for (size_t i = 0; i < sim->nr_user; i++) {
        put_addr(w, sim->user[i].addr);
        put_u(w, sim->user[i].order);
        put_u(w, sim->user[i].gfp);
    }
}

/* Zone indices of @sim in address order (pages are listed in it). */
static void zones_by_address(const struct sim *sim, unsigned *order)
{
    for (unsigned i = 0; i < sim->nr_zones; i++) {
        unsigned j = i;

        while (j > 0 && sim->zones[order[j - 1]].start > sim->zones[i].start) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
}

#define MAX_ZONES (SIM_MAX_NODES * SIM_NR_ZONE_TYPES)

/* The validator's verdict on @sim: its violation count, and in *@digest a
 * checksum of the messages it kept.  A machine the validator faults (the
 * race lab's NO_TID counterfactual loses updates on purpose) is saved with
 * its faults, and a load must find exactly those again. */
static unsigned report_of(const struct sim *sim, uint64_t *digest)
{
    struct sim_report rep;
    unsigned n = sim_validate(sim, SIM_VALIDATE_OP, &rep);

    *digest = 0;
    for (unsigned i = 0; i < n && i < SIM_REPORT_MSGS; i++)
        *digest ^= fnv1a((const uint8_t *)rep.msg[i], strlen(rep.msg[i])) + i;
    return n;
}

int sim_image_save(const struct sim *sim, struct sim_image *out)
{
    struct wbuf w = {0};
    struct sim_image_page *pages;
    unsigned order[MAX_ZONES];
    uint64_t digest;
    size_t n = 0;

    if (sim->broken || sim->halted)
        return -EIO;
    if (sim->in_apply || sim->ev.open || sim->nr_inflight || sim->nr_scratch || sim->race_ctx ||
        sim->race_step || sim->race_checking || sim->kswapd_woken)
        return -EBUSY;
    save_body(&w, sim);
    put_u(&w, report_of(sim, &digest));
    put_u64(&w, digest);
    put_u64(&w, 0); /* the checksum's room */
    if (w.oom) {
        free(w.p);
        return -ENOMEM;
    }
    image_seal(w.p, w.len);
    pages = calloc(sim->nr_page_bytes ? sim->nr_page_bytes : 1, sizeof(*pages));
    if (!pages) {
        free(w.p);
        return -ENOMEM;
    }
    zones_by_address(sim, order);
    for (unsigned k = 0; k < sim->nr_zones; k++) {
        const struct zone *z = &sim->zones[order[k]];

        for (unsigned long c = 0; c < z->untouched; c++) {
            for (unsigned i = 0; i < CHUNK_PAGES; i++) {
                if (!z->chunk[c][i].bytes)
                    continue;
                SIM_BUG_ON(n >= sim->nr_page_bytes); /* validate_zones() counts them */
                pages[n].addr = z->start + ((sim_addr_t)(c * CHUNK_PAGES + i) << PAGE_SHIFT);
                pages[n].bytes = z->chunk[c][i].bytes;
                n++;
            }
        }
    }
    out->meta = w.p;
    out->meta_len = w.len;
    out->pages = pages;
    out->nr_pages = n;
    return 0;
}

void sim_image_release(struct sim_image *img)
{
    if (!img)
        return;
    free(img->meta);
    free(img->pages);
    img->meta = NULL;
    img->pages = NULL;
    img->meta_len = 0;
    img->nr_pages = 0;
}

/* ---- Loading ------------------------------------------------------------------ */

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
            if (f & PD_BYTES) {
                p->bytes = malloc(PAGE_SIZE);
                if (!p->bytes)
                    return -ENOMEM;
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
    slab->link.prev = (uint32_t)get_max(r, UINT32_MAX);
    slab->link.next = (uint32_t)get_max(r, UINT32_MAX);
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
    sh->link.prev = (uint32_t)get_max(r, UINT32_MAX);
    sh->link.next = (uint32_t)get_max(r, UINT32_MAX);
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
            int ret = load_sheaf(r, sim, pool_at(p, i));

            if (ret)
                return ret;
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
    pa->path = pa_paths[get_max(r, NR_PA_PATHS - 1)];
    pa->mark = pa_marks[get_max(r, NR_PA_MARKS - 1)];
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
    nr_caches = get_max(r, cap_caches);
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

/* ---- Checks before the validator ------------------------------------------ */

/*
 * Everything the validator and the allocator paths index with must name a
 * live entry of the right pool and cache, and every slab and sheaf must be
 * reached from at most one place: the validator assumes as much.
 */
struct refs {
    const struct sim *sim;
    uint8_t *slab_seen;  /* [slabs.used] */
    uint8_t *sheaf_seen; /* [sheaves.used] */
};

static bool live_slab(const struct sim *sim, uint32_t idx, int cache)
{
    return idx >= 1 && idx < sim->slabs.used && slab_at(sim, idx)->cache >= 0 &&
           (cache < 0 || slab_at(sim, idx)->cache == cache);
}

static bool live_sheaf(const struct sim *sim, uint32_t idx, int cache)
{
    return idx >= 2 && idx < sim->sheaves.used && sheaf_at(sim, idx)->id != 0 &&
           (cache < 0 || sheaf_at(sim, idx)->cache == cache);
}

/* Mark a reference to slab @idx of cache @cache from a place that holds
 * slabs of list @list; false if it is no live slab of that cache, says it
 * is elsewhere, or was already reached. */
static bool ref_slab(struct refs *x, uint32_t idx, int cache, uint8_t list)
{
    if (!live_slab(x->sim, idx, cache) || x->slab_seen[idx] || slab_at(x->sim, idx)->list != list)
        return false;
    x->slab_seen[idx] = 1;
    return true;
}

/* The same for sheaf @idx from a place of type @place. */
static bool ref_sheaf(struct refs *x, uint32_t idx, int cache, uint8_t place)
{
    if (!live_sheaf(x->sim, idx, cache) || x->sheaf_seen[idx] ||
        sheaf_at(x->sim, idx)->place.type != place)
        return false;
    x->sheaf_seen[idx] = 1;
    return true;
}

/* An index list: counted, linked both ways, ending at its tail. */
static bool check_ilist(struct refs *x, const struct ilist *l, bool sheaves, int cache,
                        uint8_t where)
{
    const struct pool *p = sheaves ? &x->sim->sheaves : &x->sim->slabs;
    uint32_t prev = 0, idx = l->head;

    for (unsigned n = 0; n < l->nr; n++) {
        const struct ilink *e;

        if (!(sheaves ? ref_sheaf(x, idx, cache, where) : ref_slab(x, idx, cache, where)))
            return false;
        e = sheaves ? &((const struct slab_sheaf *)pool_at(p, idx))->link
                    : &((const struct slab *)pool_at(p, idx))->link;
        if (e->prev != prev)
            return false;
        prev = idx;
        idx = e->next;
    }
    return idx == 0 && l->tail == prev;
}

/* The pages of a live slab are described and point back at it. */
static bool check_slab_pages(const struct sim *sim, uint32_t idx)
{
    const struct slab *slab = slab_at(sim, idx);
    const struct zone *z = zone_of(sim, slab->base);
    unsigned long pfn, n = 1ul << slab->order;

    if (!z || (slab->base - z->start) % ((uint64_t)PAGE_SIZE << slab->order))
        return false;
    pfn = (unsigned long)((slab->base - z->start) >> PAGE_SHIFT);
    if (pfn + n > z->untouched * CHUNK_PAGES)
        return false;
    for (unsigned long k = 0; k < n; k++)
        if (zone_page(z, pfn + k)->slab != idx)
            return false;
    return (uint64_t)slab->objects * sim->caches[slab->cache]->size <= (uint64_t)PAGE_SIZE
                                                                               << slab->order;
}

static int check_refs(struct refs *x)
{
    const struct sim *sim = x->sim;

    /* free entries are free, live ones complete */
    for (uint32_t i = 0; i < sim->slabs.nr_free; i++) {
        uint32_t idx = sim->slabs.free_ids[i];

        if (idx < 1 || slab_at(sim, idx)->cache >= 0 || x->slab_seen[idx]++)
            return -EINVAL;
    }
    for (uint32_t i = 0; i < sim->sheaves.nr_free; i++) {
        uint32_t idx = sim->sheaves.free_ids[i];

        if (idx < 2 || sheaf_at(sim, idx)->id || x->sheaf_seen[idx]++)
            return -EINVAL;
    }
    memset(x->slab_seen, 0, sim->slabs.used);
    memset(x->sheaf_seen, 0, sim->sheaves.used);
    for (uint32_t idx = 1; idx < sim->slabs.used; idx++) {
        const struct slab *slab = slab_at(sim, idx);

        if (slab->cache >= 0 && (slab->next >= sim->slabs.used || !check_slab_pages(sim, idx)))
            return -EINVAL;
    }
    for (uint32_t idx = 2; idx < sim->sheaves.used; idx++) {
        const struct slab_sheaf *sh = sheaf_at(sim, idx);

        if (sh->id && (sh->cache < 0 || !sh->objects))
            return -EINVAL;
    }
    if (sheaf_at(sim, BOOTSTRAP_SHEAF)->objects || sheaf_at(sim, BOOTSTRAP_SHEAF)->capacity)
        return -EINVAL;
    for (unsigned i = 0; i < sim->nr_zones; i++) {
        const struct zone *z = &sim->zones[i];

        for (unsigned long pfn = 0; pfn < z->untouched * CHUNK_PAGES; pfn++) {
            uint32_t idx = zone_page(z, pfn)->slab;

            if (idx && !live_slab(sim, idx, -1))
                return -EINVAL;
        }
    }
    for (unsigned i = 0; i < sim->nr_caches; i++) {
        const struct kmem_cache *s = sim->caches[i];

        for (unsigned n = 0; n < sim->cfg.nr_nodes; n++) {
            if (!check_ilist(x, &s->node[n].partial, false, s->id, SLAB_ON_PARTIAL) ||
                !check_ilist(x, &s->node[n].full, false, s->id, SLAB_ON_FULL) ||
                !check_ilist(x, &s->barn[n].full, true, s->id, SIM_PL_BARN_FULL) ||
                !check_ilist(x, &s->barn[n].empty, true, s->id, SIM_PL_BARN_EMPTY) ||
                (s->barn[n].partial &&
                 !ref_sheaf(x, s->barn[n].partial, s->id, SIM_PL_BARN_PARTIAL)))
                return -EINVAL;
        }
        for (unsigned c = 0; c < sim->cfg.nr_cpus; c++) {
            const struct slub_percpu_sheaves *pcs = &s->pcs[c];

            if (pcs->main != BOOTSTRAP_SHEAF && !ref_sheaf(x, pcs->main, s->id, SIM_PL_MAIN))
                return -EINVAL;
            if ((pcs->spare && !ref_sheaf(x, pcs->spare, s->id, SIM_PL_SPARE)) ||
                (pcs->rcu_free && !ref_sheaf(x, pcs->rcu_free, s->id, SIM_PL_RCU_FREE)))
                return -EINVAL;
        }
        for (unsigned c = 0; s->cpu_slab && c < sim->cfg.nr_cpus; c++) {
            if (s->cpu_slab[c].slab && !ref_slab(x, s->cpu_slab[c].slab, s->id, SLAB_ON_CPU))
                return -EINVAL;
            for (uint32_t idx = s->cpu_slab[c].partial; idx; idx = slab_at(sim, idx)->next)
                if (!ref_slab(x, idx, s->id, SLAB_ON_CPU_PARTIAL))
                    return -EINVAL;
        }
    }
    for (size_t i = 0; i < sim->nr_rcu; i++) {
        const struct rcu_cb *cb = &sim->rcu[i];

        if ((cb->kind == RCU_CB_SHEAF || cb->kind == RCU_CB_SHEAF_NOBARN) &&
            !ref_sheaf(x, cb->idx, -1, SIM_PL_RCU_PENDING))
            return -EINVAL;
        if (cb->kind == RCU_CB_SLAB && !ref_slab(x, cb->idx, -1, SLAB_ON_RCU))
            return -EINVAL;
    }
    /* what no place reached is on no list: full, or a prefilled sheaf */
    for (uint32_t idx = 1; idx < sim->slabs.used; idx++)
        if (live_slab(sim, idx, -1) && !x->slab_seen[idx] &&
            slab_at(sim, idx)->list != SLAB_ON_NONE)
            return -EINVAL;
    for (uint32_t idx = 2; idx < sim->sheaves.used; idx++)
        if (live_sheaf(sim, idx, -1) && !x->sheaf_seen[idx] &&
            sheaf_at(sim, idx)->place.type != SIM_PL_PREFILL)
            return -EINVAL;
    return 0;
}

static int check_loaded(const struct sim *sim, unsigned long nr_bytes)
{
    struct refs x = {.sim = sim};
    int ret;

    if (nr_bytes != sim->nr_page_bytes)
        return -EINVAL;
    if (sim->sheaves.used < 2)
        return -EINVAL;
    x.slab_seen = calloc(sim->slabs.used, 1);
    x.sheaf_seen = calloc(sim->sheaves.used, 1);
    ret = x.slab_seen && x.sheaf_seen ? check_refs(&x) : -ENOMEM;
    free(x.slab_seen);
    free(x.sheaf_seen);
    return ret;
}

/* Fill every page that has bytes, in address order. */
static int load_pages(struct sim *sim, int (*page)(void *arg, sim_addr_t addr, uint8_t *dst),
                      void *arg)
{
    unsigned order[MAX_ZONES];

    zones_by_address(sim, order);
    for (unsigned k = 0; k < sim->nr_zones; k++) {
        const struct zone *z = &sim->zones[order[k]];

        for (unsigned long c = 0; c < z->untouched; c++) {
            for (unsigned i = 0; i < CHUNK_PAGES; i++) {
                int ret;

                if (!z->chunk[c][i].bytes)
                    continue;
                ret = page(arg, z->start + ((sim_addr_t)(c * CHUNK_PAGES + i) << PAGE_SHIFT),
                           z->chunk[c][i].bytes);
                if (ret)
                    return ret;
            }
        }
    }
    return 0;
}

int sim_image_load(const void *meta, size_t meta_len,
                   int (*page)(void *arg, sim_addr_t addr, uint8_t *dst), void *arg,
                   struct sim **out)
{
    struct rbuf r = {.p = meta, .len = meta_len};
    struct sim_config cfg;
    struct sim *sim = NULL;
    unsigned long nr_bytes = 0;
    unsigned violations;
    uint64_t digest, found;
    size_t tag_len;
    int ret;

    if (!meta || meta_len < IMAGE_SUM_LEN || !page)
        return -EINVAL;
    r.len -= IMAGE_SUM_LEN;
    {
        uint64_t sum = 0;

        for (unsigned i = 0; i < 8; i++)
            sum |= (uint64_t)r.p[r.len + i] << (8 * i);
        if (sum != fnv1a(r.p, r.len))
            return -EINVAL;
    }
    tag_len = get_count(&r, sizeof(image_tag));
    if (r.bad || tag_len != strlen(image_tag) || memcmp(r.p + r.pos, image_tag, tag_len))
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
        ret = check_loaded(sim, nr_bytes);
    if (!ret)
        ret = load_pages(sim, page, arg);
    if (!ret && (report_of(sim, &found) != violations || found != digest))
        ret = -EINVAL;
    if (ret) {
        sim_destroy(sim);
        return ret;
    }
    *out = sim;
    return 0;
}
