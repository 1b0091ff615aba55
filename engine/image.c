/*
 * image.c: a machine as bytes (sim_image_save), the tag, and what the three
 * image files share.
 *
 * An image is what a checkpoint on disk holds: the meta bytes, which say
 * everything about the machine but the contents of its pages, and the list of
 * pages whose bytes are host memory, by address.  The pages stay where they
 * are (sim_image_save() points into the machine) so that a store can write
 * them, or share them between checkpoints, as it likes; sim_image_load()
 * (image_load.c) asks for each one through a callback.  The machine that
 * comes back is what sim_clone() of the saved one would be, down to
 * sim_host_bytes().
 *
 * Meta is written field by field, never as a struct: unsigned numbers as
 * LEB128 varints, signed ones zigzagged, addresses as varints of their
 * distance from the direct map (so NULL and kernel-like addresses are short),
 * the random state and secrets as 8 little-endian bytes.  Page descriptors are
 * written only for the carved chunks of a zone (an untouched chunk has none),
 * each as a byte of which fields differ from a free page's, then those fields.
 * Meta opens with sim_image_tag(), closes with the validator's verdict on the
 * machine, and ends with an FNV-1a checksum of all that precedes it.  The same
 * machine always gives the same bytes: no padding, no host pointer, nothing in
 * pointer order.  Only a machine between operations can be saved: inside one
 * (or in a race's checking clone) -EBUSY; a broken or halted machine
 * (sim_apply() answers -EIO) -EIO.  See docs/image.md.
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
#define IMAGE_FORMAT "2"
#define IMAGE_LAYOUT \
    "sim2152 cfg496 zone296 page24 cache200 slab80 sheaf72 rcu16 user16 pa88 stats48 variants8"
static const char image_tag[] =
        "slublab-image/" IMAGE_FORMAT " engine " SIM_VERSION " " IMAGE_LAYOUT;

_Static_assert(SIM_NR_STATS == 48, "image.c: update IMAGE_LAYOUT and IMAGE_FORMAT");
_Static_assert(SIM_NR_VARIANTS == 8, "image.c: update IMAGE_LAYOUT and IMAGE_FORMAT");
#if UINTPTR_MAX == UINT64_MAX
/* sim->choice, the steering of choice points (choice.c), is never saved;
 * nr_sheaf_arrays and sheaf_slots are counted again as the sheaves load */
_Static_assert(sizeof(struct sim) - sizeof(struct choice_state *) - 2 * sizeof(uint64_t) == 2152 &&
                       sizeof(struct sim_config) == 496 && sizeof(struct zone) == 296 &&
                       sizeof(struct sim_page) == 24 && sizeof(struct kmem_cache) == 200 &&
                       sizeof(struct slab) == 80 && sizeof(struct slab_sheaf) == 72 &&
                       sizeof(struct rcu_cb) == 16 && sizeof(struct user_block) == 16 &&
                       sizeof(struct sim_page_alloc) == 88,
               "image.c: a struct the image holds changed; write its new fields, then update "
               "IMAGE_LAYOUT and IMAGE_FORMAT");
#endif

const char *sim_image_tag(void)
{
    return image_tag;
}

/* ---- Bytes ------------------------------------------------------------------ */

/* FNV-1a of @n bytes: the checksum of meta.  Cannot fail. */
uint64_t image_checksum(const uint8_t *p, size_t n)
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
    h = image_checksum(meta, len - IMAGE_SUM_LEN);
    for (unsigned i = 0; i < 8; i++)
        meta[len - IMAGE_SUM_LEN + i] = (uint8_t)(h >> (8 * i));
}

/* Addresses are written as their distance from the direct map: an involution
 * that keeps 0 (NULL) and DIRECT_MAP_BASE where they are.  Cannot fail. */
uint64_t image_addr_code(uint64_t a)
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
    put_u(w, image_addr_code(a));
}

static void put_str(struct wbuf *w, const char *s, size_t max)
{
    size_t n = 0;

    while (n < max && s[n])
        n++;

    put_u(w, n);
    put_raw(w, s, n);
}

/* ---- Saving ------------------------------------------------------------------ */

static const char *const pa_paths[] = {NULL,        "fast",   "slow",    "reserve",      "reclaim",
                                       "oom_probe", "nofail", "no_zone", "fail_injected"};
static const char *const pa_marks[] = {NULL, "min", "low", "high", "promo", "none"};
#define NR_PA_PATHS (sizeof(pa_paths) / sizeof(pa_paths[0]))
#define NR_PA_MARKS (sizeof(pa_marks) / sizeof(pa_marks[0]))

/* The strings of a page allocator decision (sim->pa.path, .mark) by number:
 * the @i-th path (or mark), NULL for 0 and past the end.  Cannot fail. */
const char *image_pa_name(bool mark, uint64_t i)
{
    if (mark)
        return i < NR_PA_MARKS ? pa_marks[i] : NULL;
    return i < NR_PA_PATHS ? pa_paths[i] : NULL;
}

/* How many numbers image_pa_name() knows (0 included). */
unsigned image_pa_count(bool mark)
{
    return mark ? NR_PA_MARKS : NR_PA_PATHS;
}

/* Number of @s in @table by content (0, NULL, when it is not there). */
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
    put_u(w, c->slab_debug_no_higher_order);
    put_str(w, c->slab_debug_blocks, SIM_SLAB_DEBUG_MAX - 1);
}

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

static void save_ilink(struct wbuf *w, const struct ilink *l)
{
    put_u(w, l->prev);
    put_u(w, l->next);
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
    put_u(w, s->errors);
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
    save_ilink(w, &slab->link);
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
    save_ilink(w, &sh->link);
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

/* Zone indices of @sim in address order (pages are listed in it) into
 * @order[nr_zones].  Cannot fail. */
void image_zones_by_address(const struct sim *sim, unsigned *order)
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

/* The validator's verdict on @sim: its violation count, and in *@digest a
 * checksum of the messages it kept.  A machine the validator faults (the
 * race lab's NO_TID counterfactual loses updates on purpose) is saved with
 * its faults, and a load must find exactly those again. */
unsigned image_report(const struct sim *sim, uint64_t *digest)
{
    struct sim_report rep;
    unsigned n = sim_validate(sim, SIM_VALIDATE_OP, &rep);

    *digest = 0;
    for (unsigned i = 0; i < n && i < SIM_REPORT_MSGS; i++)
        *digest ^= image_checksum((const uint8_t *)rep.msg[i], strlen(rep.msg[i])) + i;
    return n;
}

int sim_image_save(const struct sim *sim, struct sim_image *out)
{
    struct wbuf w = {0};
    struct sim_image_page *pages;
    unsigned order[IMAGE_MAX_ZONES];
    uint64_t digest;
    size_t n = 0;

    if (sim->broken || sim->halted)
        return -EIO;
    if (sim->in_op || sim->in_apply || sim->ev.open || sim->nr_inflight || sim->nr_scratch ||
        sim->race_ctx || sim->race_step || sim->race_checking || sim->kswapd_woken)
        return -EBUSY;
    save_body(&w, sim);
    put_u(&w, image_report(sim, &digest));
    put_u64(&w, digest);
    put_u64(&w, 0); /* the checksum's room */
    if (w.oom) {
        free(w.p);
        return -ENOMEM;
    }
    image_seal(w.p, w.len);
    /* size_t is 32 bits in wasm32 (docs/wasm.md) */
    pages = sim->nr_page_bytes <= SIZE_MAX
                    ? calloc(sim->nr_page_bytes ? (size_t)sim->nr_page_bytes : 1, sizeof(*pages))
                    : NULL;
    if (!pages) {
        free(w.p);
        return -ENOMEM;
    }
    image_zones_by_address(sim, order);
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
