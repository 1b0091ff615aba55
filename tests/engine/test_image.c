/*
 * test_image.c: a machine as bytes and back (engine/image.c).
 *
 * Round trips on machines of each model, driven by a seeded random mix of
 * operations (caches with sheaves, debug caches, kmalloc, bulk, kfree_rcu,
 * prefilled sheaves, alloc_pages users): at several operation boundaries the
 * machine is saved and loaded, and then the original, a sim_clone() and the
 * loaded machine run the same further operations and must give the same
 * events (every field, followed through its pointers) and results.  The
 * loaded machine saves to the same bytes, holds the same host bytes as the
 * clone, and validates.  Then the robustness of sim_image_load(): every
 * truncation, flipped bytes (resealed, so the parser and the checks see them,
 * not only the checksum), a wrong tag, a failing page callback; loads
 * that share a host's cached pages (sim_image_load_shared()); and the
 * refusals of sim_image_save() inside an operation and on a broken machine.
 * The ASan build checks that nothing leaks on any of those paths.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "evtext.h"
#include "internal.h"

/* ---- Event streams as text ------------------------------------------------ */

static void on_event(const struct sim_event *ev, void *arg)
{
    text_event(arg, ev);
}

static void text_result(struct text *t, int ret, const struct sim_result *res)
{
    text_add(t, "= %d %u %llx %u %u %d %s\n", ret, res->status, (unsigned long long)res->addr,
             res->count, res->sheaf, res->cache, res->message);
}

/* ---- Machines and operations ------------------------------------------------ */

static uint64_t rnd_state;

static uint32_t rnd(uint32_t bound)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return (uint32_t)(rnd_state % bound);
}

#define MAX_LIVE 4096

/* The objects, prefilled sheaves and page blocks the driver holds. */
struct held {
    sim_addr_t obj[MAX_LIVE];
    int cache[MAX_LIVE]; /* -1: a kmalloc object */
    unsigned nr;
    uint32_t sheaf[8];
    int sheaf_cache[8];
    unsigned nr_sheaves;
    sim_addr_t block[16];
    unsigned block_order[16];
    unsigned nr_blocks;
    int caches[4];
    unsigned nr_caches;
};

static void held_add(struct held *h, sim_addr_t obj, int cache)
{
    if (obj && h->nr < MAX_LIVE) {
        h->obj[h->nr] = obj;
        h->cache[h->nr++] = cache;
    }
}

static unsigned held_take(struct held *h, sim_addr_t *obj, int *cache)
{
    unsigned i = rnd(h->nr);

    *obj = h->obj[i];
    *cache = h->cache[i];
    h->obj[i] = h->obj[--h->nr];
    h->cache[i] = h->cache[h->nr];
    return i;
}

static void config_of(enum sim_model model, struct sim_config *cfg)
{
    sim_config_default(cfg);
    cfg->nr_cpus = 3;
    cfg->nr_nodes = 2;
    cfg->cpu_node[0] = 0;
    cfg->cpu_node[1] = 1;
    cfg->cpu_node[2] = 0;
    cfg->mem_per_node = 16u << 20;
    cfg->dma_bytes = 4u << 20;
    cfg->freelist_random = true;
    cfg->seed = 7;
    cfg->model = model;
    cfg->rcu_mode = SIM_RCU_PERIODIC;
    cfg->rcu_gap = 37;
    if (model == SIM_MODEL_LEGACY) {
        cfg->release = SIM_RELEASE_6_12;
        sim_release_apply(SIM_RELEASE_6_12, cfg);
    } else if (model == SIM_MODEL_HYBRID) {
        cfg->release = SIM_RELEASE_6_18;
        sim_release_apply(SIM_RELEASE_6_18, cfg);
    }
}

static int create_cache(struct sim *sim, const char *name, unsigned size, uint32_t flags,
                        unsigned cap)
{
    struct sim_op op = {.kind = SIM_OP_CREATE, .node = SIM_NUMA_NO_NODE};
    struct sim_result res;

    snprintf(op.create.name, sizeof(op.create.name), "%s", name);
    op.create.object_size = size;
    op.create.flags = flags;
    op.create.sheaf_capacity = cap;
    if (sim_apply(sim, &op, &res))
        return -1;
    return res.cache;
}

/* The caches every machine starts with. */
static void setup(struct sim *sim, struct held *h)
{
    memset(h, 0, sizeof(*h));
    h->caches[h->nr_caches++] = create_cache(sim, "maple", 256, 0, 32);
    h->caches[h->nr_caches++] = create_cache(sim, "dentry", 192, SIM_SLAB_HWCACHE_ALIGN, 0);
    h->caches[h->nr_caches++] = create_cache(
            sim, "debug", 96, SIM_SLAB_RED_ZONE | SIM_SLAB_POISON | SIM_SLAB_STORE_USER, 0);
    h->caches[h->nr_caches++] = create_cache(sim, "rcu", 64, SIM_SLAB_TYPESAFE_BY_RCU, 16);
}

/* The next operation for the machine the driver holds @h of.  Bulk arrays
 * live in @bulk (MAX_LIVE entries). */
static void next_op(const struct sim *sim, struct held *h, struct sim_op *op, sim_addr_t *bulk,
                    bool sheaves)
{
    unsigned k = rnd(100);
    int cache = h->caches[rnd(h->nr_caches)];

    memset(op, 0, sizeof(*op));
    op->node = SIM_NUMA_NO_NODE;
    op->cpu = rnd(sim_get_config(sim)->nr_cpus);
    op->cache = cache;
    if (k < 30 || h->nr < 8) {
        op->kind = SIM_OP_ALLOC;
        if (rnd(8) == 0)
            op->node = (int)rnd(2);
    } else if (k < 55) {
        int c;

        held_take(h, &op->addr, &c);
        op->kind = c < 0 ? SIM_OP_KFREE : SIM_OP_FREE;
        op->cache = c < 0 ? 0 : c;
    } else if (k < 65) {
        op->kind = SIM_OP_KMALLOC;
        op->size = 8u << rnd(8);
    } else if (k < 70) {
        int c;

        held_take(h, &op->addr, &c);
        op->kind = SIM_OP_KFREE_RCU;
    } else if (k < 73) {
        op->kind = SIM_OP_ALLOC_BULK;
        op->count = 1 + rnd(40);
        op->out = bulk;
    } else if (k < 76 && h->nr > 20) {
        unsigned n = 1 + rnd(10), m = 0;

        for (unsigned i = 0; i < h->nr && m < n;) {
            if (h->cache[i] == cache) {
                bulk[m++] = h->obj[i];
                h->obj[i] = h->obj[--h->nr];
                h->cache[i] = h->cache[h->nr];
            } else {
                i++;
            }
        }
        if (!m) {
            op->kind = SIM_OP_GRACE_PERIOD;
            return;
        }
        op->kind = SIM_OP_FREE_BULK;
        op->count = m;
        op->in = bulk;
    } else if (k < 79) {
        op->kind = SIM_OP_GRACE_PERIOD;
    } else if (k < 81) {
        op->kind = SIM_OP_FLUSH_ALL;
    } else if (k < 83) {
        op->kind = SIM_OP_SHRINK;
    } else if (k < 85) {
        op->kind = SIM_OP_RCU_BARRIER;
    } else if (k < 89 && sheaves) {
        if (h->nr_sheaves && rnd(2)) {
            unsigned i = rnd(h->nr_sheaves);

            op->sheaf = h->sheaf[i];
            op->cache = h->sheaf_cache[i];
            if (rnd(3) == 0) {
                op->kind = SIM_OP_RETURN_SHEAF;
                h->sheaf[i] = h->sheaf[--h->nr_sheaves];
                h->sheaf_cache[i] = h->sheaf_cache[h->nr_sheaves];
            } else {
                op->kind = SIM_OP_ALLOC_FROM_SHEAF;
            }
        } else {
            op->kind = SIM_OP_PREFILL;
            op->count = 1 + rnd(48);
        }
    } else if (k < 93) {
        if (h->nr_blocks && rnd(2)) {
            unsigned i = rnd(h->nr_blocks);

            op->kind = SIM_OP_FREE_PAGES;
            op->addr = h->block[i];
            op->order = h->block_order[i];
            h->block[i] = h->block[--h->nr_blocks];
            h->block_order[i] = h->block_order[h->nr_blocks];
        } else {
            op->kind = SIM_OP_ALLOC_PAGES;
            op->order = rnd(4);
            op->gfp = rnd(3) == 0 ? SIM_GFP_KERNEL | SIM_GFP_DMA : 0;
        }
    } else {
        op->kind = SIM_OP_ALLOC;
    }
}

/* What the driver keeps of an operation's result. */
static void note_result(struct held *h, const struct sim_op *op, const struct sim_result *res)
{
    switch (op->kind) {
    case SIM_OP_ALLOC:
    case SIM_OP_ALLOC_FROM_SHEAF:
        if (res->status == SIM_OK)
            held_add(h, res->addr, op->cache);
        break;
    case SIM_OP_KMALLOC:
        if (res->status == SIM_OK)
            held_add(h, res->addr, -1);
        break;
    case SIM_OP_ALLOC_BULK:
        for (unsigned i = 0; i < res->count; i++)
            held_add(h, op->out[i], op->cache);
        break;
    case SIM_OP_PREFILL:
        if (res->sheaf && h->nr_sheaves < 8) {
            h->sheaf[h->nr_sheaves] = res->sheaf;
            h->sheaf_cache[h->nr_sheaves++] = op->cache;
        }
        break;
    case SIM_OP_ALLOC_PAGES:
        if (res->addr && h->nr_blocks < 16) {
            h->block[h->nr_blocks] = res->addr;
            h->block_order[h->nr_blocks++] = op->order;
        }
        break;
    default:
        break;
    }
}

/* ---- Images ----------------------------------------------------------------- */

/* Page callback over the pages of a saved image. */
static int fill_page(void *arg, sim_addr_t addr, uint8_t *dst)
{
    struct sim_image *img = arg;

    for (size_t i = 0; i < img->nr_pages; i++) {
        if (img->pages[i].addr == addr) {
            memcpy(dst, img->pages[i].bytes, SIM_PAGE_SIZE);
            return 0;
        }
    }
    return -ENOENT;
}

struct failing {
    struct sim_image *img;
    size_t left; /* calls that succeed */
    size_t calls;
    sim_addr_t last;
    bool ordered;
};

static int fill_failing(void *arg, sim_addr_t addr, uint8_t *dst)
{
    struct failing *f = arg;

    if (f->calls && addr <= f->last)
        f->ordered = false;
    f->last = addr;
    f->calls++;
    if (!f->left)
        return -EXDEV;
    f->left--;
    return fill_page(f->img, addr, dst);
}

/* Same meta, same page list, same page bytes. */
static bool same_image(const struct sim_image *a, const struct sim_image *b)
{
    if (!CHECK_EQ_U(a->meta_len, b->meta_len) || !CHECK(!memcmp(a->meta, b->meta, a->meta_len)) ||
        !CHECK_EQ_U(a->nr_pages, b->nr_pages))
        return false;
    for (size_t i = 0; i < a->nr_pages; i++)
        if (!CHECK_EQ_U(a->pages[i].addr, b->pages[i].addr) ||
            !CHECK(!memcmp(a->pages[i].bytes, b->pages[i].bytes, SIM_PAGE_SIZE)))
            return false;
    return true;
}

/* Save @sim, load it, and check the loaded machine against @sim's clone:
 * same image again, same host bytes, valid.  Returns the loaded machine. */
static struct sim *round_trip(const struct sim *sim)
{
    struct sim_image img, again;
    struct sim *loaded = NULL, *clone = NULL;
    struct sim_report rep;

    if (!CHECK_OK(sim_image_save(sim, &img)))
        return NULL;
    for (size_t i = 1; i < img.nr_pages; i++)
        CHECK(img.pages[i - 1].addr < img.pages[i].addr);
    if (CHECK_OK(sim_image_load(img.meta, img.meta_len, fill_page, &img, &loaded))) {
        if (CHECK_OK(sim_image_save(loaded, &again))) {
            same_image(&img, &again);
            sim_image_release(&again);
        }
        if (CHECK_OK(sim_clone(sim, &clone)))
            CHECK_EQ_U(sim_host_bytes(loaded), sim_host_bytes(clone));
        CHECK_EQ_U(sim_host_bytes(loaded), sim_host_bytes(sim));
        if (!CHECK_EQ_U(sim_validate(loaded, SIM_VALIDATE_OP, &rep), 0))
            printf("  %s\n", rep.msg[0]);
        CHECK_EQ_U(sim_event_count(loaded), sim_event_count(sim));
        CHECK_EQ_U(sim_op_count(loaded), sim_op_count(sim));
        sim_destroy(clone);
    }
    sim_image_release(&img);
    return loaded;
}

/* Drive a machine of @model through @nr operations, with round trips at
 * several boundaries, each followed by @tail operations on the original, a
 * clone and the loaded machine, which must agree event for event. */
static void run_model(enum sim_model model, unsigned nr, unsigned tail, uint64_t seed)
{
    static sim_addr_t bulk[3][MAX_LIVE];
    static struct held h[3];
    struct sim_config cfg;
    struct sim *sim;
    unsigned trips = 0;

    config_of(model, &cfg);
    rnd_state = seed;
    if (!CHECK_OK(sim_create(&cfg, &sim)))
        return;
    setup(sim, &h[0]);
    for (unsigned i = 0; i < nr; i++) {
        struct sim_op op;
        struct sim_result res;

        if (i % (nr / 6) == nr / 12) {
            struct sim *m[3] = {sim, NULL, NULL};
            struct text t[3] = {{0}};
            uint64_t saved_rnd = rnd_state;

            m[2] = round_trip(sim);
            if (!m[2] || !CHECK_OK(sim_clone(sim, &m[1]))) {
                sim_destroy(m[2]);
                break;
            }
            trips++;
            h[1] = h[0];
            h[2] = h[0];
            for (unsigned k = 0; k < 3; k++) {
                sim_set_event_cb(m[k], on_event, &t[k]);
                rnd_state = saved_rnd;
                for (unsigned j = 0; j < tail; j++) {
                    struct sim_op o;
                    struct sim_result r;
                    int ret;

                    next_op(m[k], &h[k], &o, bulk[k], model != SIM_MODEL_LEGACY);
                    ret = sim_apply(m[k], &o, &r);
                    text_result(&t[k], ret, &r);
                    note_result(&h[k], &o, &r);
                }
                sim_set_event_cb(m[k], NULL, NULL);
            }
            CHECK(t[0].len > 0);
            if (CHECK_EQ_U(t[1].len, t[0].len))
                CHECK(!memcmp(t[1].p, t[0].p, t[0].len));
            if (CHECK_EQ_U(t[2].len, t[0].len))
                CHECK(!memcmp(t[2].p, t[0].p, t[0].len));
            for (unsigned k = 0; k < 3; k++)
                free(t[k].p);
            sim_destroy(m[1]);
            sim_destroy(m[2]);
            /* the original went on; the driver state follows it */
            i += tail;
            continue;
        }
        next_op(sim, &h[0], &op, bulk[0], model != SIM_MODEL_LEGACY);
        sim_apply(sim, &op, &res);
        note_result(&h[0], &op, &res);
    }
    CHECK(trips >= 5);
    sim_destroy(sim);
}

static void test_round_trip_sheaves(void)
{
    run_model(SIM_MODEL_SHEAVES, 3000, 200, 11);
}

static void test_round_trip_legacy(void)
{
    run_model(SIM_MODEL_LEGACY, 3000, 200, 12);
}

static void test_round_trip_hybrid(void)
{
    run_model(SIM_MODEL_HYBRID, 3000, 200, 13);
}

/* A fresh machine (no cache, no page touched) round trips too. */
static void test_empty(void)
{
    struct sim_config cfg;
    struct sim *sim;
    struct sim *loaded;

    sim_config_default(&cfg);
    if (!CHECK_OK(sim_create(&cfg, &sim)))
        return;
    loaded = round_trip(sim);
    CHECK(loaded != NULL);
    sim_destroy(loaded);
    sim_destroy(sim);
}

/* What small_machine()'s operations left held, for running its image on. */
static struct held small_held;

/* A small machine for the robustness tests. */
static struct sim *small_machine(void)
{
    struct sim_config cfg;
    struct sim *sim;
    struct held h;
    sim_addr_t bulk[64];

    sim_config_default(&cfg);
    cfg.mem_per_node = 4u << 20;
    cfg.nr_nodes = 2;
    cfg.cpu_node[1] = 1;
    if (sim_create(&cfg, &sim))
        return NULL;
    memset(&h, 0, sizeof(h));
    h.caches[h.nr_caches++] = create_cache(sim, "a", 512, 0, 8);
    h.caches[h.nr_caches++] = create_cache(sim, "b", 64, SIM_SLAB_POISON, 0);
    rnd_state = 99;
    for (unsigned i = 0; i < 60; i++) {
        struct sim_op op;
        struct sim_result res;

        next_op(sim, &h, &op, bulk, true);
        if (op.kind == SIM_OP_ALLOC_BULK && op.count > 64)
            op.count = 64;
        sim_apply(sim, &op, &res);
        note_result(&h, &op, &res);
    }
    small_held = h;
    return sim;
}

/* Load @len bytes of @meta; must fail with -EINVAL, or succeed with a valid
 * machine.  Returns the load's result. */
static int load_any(const uint8_t *meta, size_t len, struct sim_image *img)
{
    struct sim *sim = NULL;
    int ret = sim_image_load(meta, len, fill_page, img, &sim);

    if (!ret) {
        CHECK_EQ_U(sim_validate(sim, SIM_VALIDATE_OP, NULL), 0);
        sim_destroy(sim);
    } else {
        CHECK(ret == -EINVAL || ret == -ENOENT);
    }
    return ret;
}

static void test_truncated(void)
{
    struct sim *sim = small_machine();
    struct sim_image img;
    uint8_t *buf;
    unsigned ok = 0;

    if (!CHECK(sim != NULL) || !CHECK_OK(sim_image_save(sim, &img))) {
        sim_destroy(sim);
        return;
    }
    printf("  small image: %zu bytes of meta, %zu pages\n", img.meta_len, img.nr_pages);
    buf = malloc(img.meta_len);
    /* every prefix, as stored (the checksum fails), and resealed (the parser fails) */
    for (size_t len = 0; buf && len < img.meta_len; len++) {
        CHECK_EQ_I(load_any(img.meta, len, &img), -EINVAL);
        if (len + 8 < img.meta_len) {
            memcpy(buf, img.meta, len);
            memset(buf + len, 0, 8);
            image_seal(buf, len + 8);
            ok += load_any(buf, len + 8, &img) == 0;
        }
    }
    CHECK_EQ_U(ok, 0);
    CHECK_EQ_I(load_any(img.meta, img.meta_len, &img), 0);
    free(buf);
    sim_image_release(&img);
    sim_destroy(sim);
}

static void test_flipped(void)
{
    struct sim *sim = small_machine();
    struct sim_image img;
    static const uint8_t masks[] = {0x01, 0x02, 0x10, 0x40, 0x80, 0xff};
    unsigned failed = 0, loaded = 0;
    uint8_t *buf;

    if (!CHECK(sim != NULL) || !CHECK_OK(sim_image_save(sim, &img))) {
        sim_destroy(sim);
        return;
    }
    buf = malloc(img.meta_len);
    /* every byte, each with two of the masks in turn */
    for (size_t pos = 0; buf && pos < img.meta_len; pos++) {
        for (unsigned m = (unsigned)(pos % 3); m < sizeof(masks); m += 3) {
            memcpy(buf, img.meta, img.meta_len);
            buf[pos] ^= masks[m];
            /* unsealed: the checksum catches it */
            CHECK_EQ_I(load_any(buf, img.meta_len, &img), -EINVAL);
            if (pos >= img.meta_len - 8)
                continue;
            image_seal(buf, img.meta_len);
            if (load_any(buf, img.meta_len, &img))
                failed++;
            else
                loaded++;
        }
    }
    printf("  resealed flips: %u refused, %u loaded (and valid)\n", failed, loaded);
    CHECK(failed > loaded);
    free(buf);
    sim_image_release(&img);
    sim_destroy(sim);
}

static void test_wrong_tag(void)
{
    struct sim *sim = small_machine(), *out = NULL;
    struct sim_image img;
    const char *tag = sim_image_tag();
    uint8_t *buf;

    CHECK(strstr(tag, SIM_VERSION) != NULL);
    if (!CHECK(sim != NULL) || !CHECK_OK(sim_image_save(sim, &img))) {
        sim_destroy(sim);
        return;
    }
    buf = malloc(img.meta_len);
    if (buf) {
        memcpy(buf, img.meta, img.meta_len);
        /* the tag follows its one-byte length */
        CHECK(!memcmp(buf + 1, tag, strlen(tag)));
        buf[1 + strlen("slublab-image/")] ^= 0x04; /* another format version */
        image_seal(buf, img.meta_len);
        CHECK_EQ_I(sim_image_load(buf, img.meta_len, fill_page, &img, &out), -EINVAL);
    }
    CHECK_EQ_I(sim_image_load(NULL, 0, fill_page, &img, &out), -EINVAL);
    CHECK(out == NULL);
    free(buf);
    sim_image_release(&img);
    sim_destroy(sim);
}

static void test_page_callback_fails(void)
{
    struct sim *sim = small_machine(), *out = NULL;
    struct sim_image img;

    if (!CHECK(sim != NULL) || !CHECK_OK(sim_image_save(sim, &img))) {
        sim_destroy(sim);
        return;
    }
    CHECK(img.nr_pages > 2);
    for (size_t k = 0; k <= img.nr_pages; k++) {
        struct failing f = {.img = &img, .left = k, .ordered = true};
        int ret = sim_image_load(img.meta, img.meta_len, fill_failing, &f, &out);

        CHECK(f.ordered);
        if (k < img.nr_pages) {
            CHECK_EQ_I(ret, -EXDEV);
            CHECK_EQ_U(f.calls, k + 1);
        } else if (CHECK_OK(ret)) {
            CHECK_EQ_U(f.calls, img.nr_pages);
            sim_destroy(out);
        }
    }
    sim_image_release(&img);
    sim_destroy(sim);
}

/* A host's cache of pages for sim_image_load_shared(): its own buffers,
 * given with one more hold each; @fail_at gives a failure at that call
 * (counted from 1; 0 never), @null_at answers that call with no bytes. */
struct page_cache {
    struct sim_image *img;
    uint8_t **bytes; /* per page of img, held by the cache */
    size_t calls, fail_at, null_at;
};

static int give_page(void *arg, sim_addr_t addr, const uint8_t **bytes)
{
    struct page_cache *c = arg;

    c->calls++;
    if (c->calls == c->fail_at)
        return -EXDEV;
    if (c->calls == c->null_at)
        return 0;
    for (size_t i = 0; i < c->img->nr_pages; i++) {
        if (c->img->pages[i].addr == addr) {
            *bytes = sim_page_bytes_hold(c->bytes[i]);
            return 0;
        }
    }
    return -ENOENT;
}

/* Two machines loaded from one cache share its pages, copy on write: one
 * that runs on changes neither the cache's bytes nor the other, which still
 * saves the same image; a failing or empty answer loads nothing and leaks
 * nothing (ASan); the cache's bytes outlive the machines. */
static void test_shared_load(void)
{
    struct sim *sim = small_machine(), *a = NULL, *b = NULL, *out = NULL;
    struct sim_image img, again;
    struct page_cache c = {.img = &img};
    struct held h;
    sim_addr_t bulk[64];
    size_t i;

    if (!CHECK(sim != NULL) || !CHECK_OK(sim_image_save(sim, &img))) {
        sim_destroy(sim);
        return;
    }
    c.bytes = calloc(img.nr_pages, sizeof(*c.bytes));
    for (i = 0; c.bytes && i < img.nr_pages; i++)
        if ((c.bytes[i] = sim_page_bytes_new()))
            memcpy(c.bytes[i], img.pages[i].bytes, SIM_PAGE_SIZE);
    if (CHECK_OK(sim_image_load_shared(img.meta, img.meta_len, give_page, &c, &a)) &&
        CHECK_OK(sim_image_load_shared(img.meta, img.meta_len, give_page, &c, &b))) {
        CHECK_EQ_U(c.calls, 2 * img.nr_pages);
        CHECK_EQ_U(sim_validate(a, SIM_VALIDATE_OP, NULL), 0);
        CHECK_EQ_U(sim_host_bytes(a), sim_host_bytes(sim));
        /* a runs on: its writes go to copies */
        h = small_held;
        rnd_state = 7;
        for (unsigned k = 0; k < 200; k++) {
            struct sim_op op;
            struct sim_result res;

            next_op(a, &h, &op, bulk, true);
            if (op.kind == SIM_OP_ALLOC_BULK && op.count > 64)
                op.count = 64;
            sim_apply(a, &op, &res);
            note_result(&h, &op, &res);
        }
        CHECK_EQ_U(sim_validate(a, SIM_VALIDATE_OP, NULL), 0);
        for (i = 0; i < img.nr_pages; i++)
            CHECK(!memcmp(c.bytes[i], img.pages[i].bytes, SIM_PAGE_SIZE));
        sim_destroy(a);
        if (CHECK_OK(sim_image_save(b, &again))) {
            same_image(&img, &again);
            sim_image_release(&again);
        }
    }
    sim_destroy(b);
    for (size_t k = 1; k <= img.nr_pages; k++) {
        c.calls = 0;
        c.fail_at = k;
        CHECK_EQ_I(sim_image_load_shared(img.meta, img.meta_len, give_page, &c, &out), -EXDEV);
        c.fail_at = 0;
        c.calls = 0;
        c.null_at = k;
        CHECK_EQ_I(sim_image_load_shared(img.meta, img.meta_len, give_page, &c, &out), -EINVAL);
        c.null_at = 0;
    }
    /* the machines are gone; the cache's bytes are still its own */
    for (i = 0; c.bytes && i < img.nr_pages; i++) {
        CHECK(!memcmp(c.bytes[i], img.pages[i].bytes, SIM_PAGE_SIZE));
        sim_page_bytes_drop(c.bytes[i]);
    }
    free(c.bytes);
    sim_image_release(&img);
    sim_destroy(sim);
}

struct busy {
    struct sim *sim;
    unsigned calls, refused; /* saves tried from the callback, and refused with -EBUSY */
};

static void save_in_event(const struct sim_event *ev, void *arg)
{
    struct busy *b = arg;
    struct sim_image img;
    int ret = sim_image_save(b->sim, &img);

    (void)ev;
    b->calls++;
    b->refused += ret == -EBUSY;
    if (!ret)
        sim_image_release(&img);
}

static void test_refusals(void)
{
    struct sim *sim = small_machine();
    struct busy b = {.sim = sim};
    struct sim_op op = {.kind = SIM_OP_KMALLOC, .size = 3000, .node = SIM_NUMA_NO_NODE};
    struct sim_op fast = {.kind = SIM_OP_ALLOC, .cache = 0, .node = SIM_NUMA_NO_NODE};
    struct sim_result res;
    struct sim_image img;

    if (!CHECK(sim != NULL))
        return;
    sim_set_event_cb(sim, save_in_event, &b);
    sim_apply(sim, &op, &res); /* a new kmalloc cache: the slow paths */
    CHECK(b.calls > 1);
    CHECK_EQ_U(b.refused, b.calls);
    /* the allocation fast path (alloc_from_pcs from a main sheaf with objects) */
    sim_apply(sim, &fast, &res);
    b.calls = b.refused = 0;
    sim_apply(sim, &fast, &res);
    CHECK_EQ_U(b.calls, 1);
    CHECK_EQ_U(b.refused, 1);
    sim_set_event_cb(sim, NULL, NULL);
    sim_fail_host_alloc(sim, 1);
    op.size = 2000; /* a new kmalloc cache: host allocations */
    CHECK_EQ_I(sim_apply(sim, &op, &res), -ENOMEM);
    CHECK_EQ_I(sim_image_save(sim, &img), -EIO);
    sim_destroy(sim);
    sim_image_release(NULL);
}

/* Break one thing the validator does not look at on a clone of a small
 * machine; the image saves, and the load must refuse it. */
static void refuse_after(void (*breakit)(struct sim *), const char *what)
{
    struct sim *sim = small_machine(), *copy = NULL, *out = NULL;
    struct sim_image img;

    if (!CHECK(sim != NULL) || !CHECK_OK(sim_clone(sim, &copy))) {
        sim_destroy(sim);
        return;
    }
    breakit(copy);
    if (CHECK_OK(sim_image_save(copy, &img))) {
        if (!CHECK_EQ_I(sim_image_load(img.meta, img.meta_len, fill_page, &img, &out), -EINVAL))
            printf("  not refused: %s\n", what);
        sim_image_release(&img);
    }
    sim_destroy(out);
    sim_destroy(copy);
    sim_destroy(sim);
}

/* The first live slab on a node partial list, or 0. */
static uint32_t partial_slab(struct sim *sim)
{
    for (uint32_t i = 1; i < sim->slabs.used; i++)
        if (slab_at(sim, i)->cache >= 0 && slab_at(sim, i)->list == SLAB_ON_PARTIAL)
            return i;
    return 0;
}

static void break_slab_list(struct sim *sim)
{
    uint32_t idx = partial_slab(sim);

    /* says partial, is on no list: a later remove_partial() would follow its links */
    for (uint32_t i = 1; i < sim->slabs.used; i++)
        if (slab_at(sim, i)->cache >= 0 && slab_at(sim, i)->list == SLAB_ON_NONE) {
            slab_at(sim, i)->list = SLAB_ON_PARTIAL;
            return;
        }
    CHECK(idx != 0 && false); /* the machine has no full slab to break */
}

static void break_page_owner(struct sim *sim)
{
    uint32_t idx = partial_slab(sim);
    struct sim_page *p;

    if (!CHECK(idx != 0))
        return;
    /* the slab's first page names another slab (or none) */
    p = page_of(sim, slab_at(sim, idx)->base);
    p->slab = idx == 1 ? 2 : 1;
}

static void break_free_ids(struct sim *sim)
{
    if (!CHECK(sim->slabs.nr_free + 1 < sim->slabs.cap_free || sim->slabs.cap_free == 0))
        return;
    if (!sim->slabs.cap_free) {
        sim->slabs.free_ids = calloc(64, sizeof(*sim->slabs.free_ids));
        sim->slabs.cap_free = 64;
    }
    /* a live slab listed as free: pool_get() would hand it out again */
    sim->slabs.free_ids[sim->slabs.nr_free++] = partial_slab(sim);
}

static void break_pcs(struct sim *sim)
{
    /* a CPU's spare sheaf is its main sheaf too */
    struct kmem_cache *s = sim->caches[0];

    CHECK(s->sheaf_capacity > 0);
    s->pcs[1].spare = s->pcs[0].main;
}

static void break_random_seq(struct sim *sim)
{
    for (unsigned i = 0; i < sim->nr_caches; i++) {
        struct kmem_cache *s = sim->caches[i];

        if (!s->random_seq && s->oo.objects > 1) {
            s->random_seq = calloc(s->oo.objects, sizeof(*s->random_seq));
            return; /* every slot at offset 0: no permutation */
        }
    }
}

static void test_refuses_what_validate_misses(void)
{
    refuse_after(break_slab_list, "a slab marked partial on no list");
    refuse_after(break_page_owner, "a slab page owned by another slab");
    refuse_after(break_free_ids, "a live slab on the pool's free stack");
    refuse_after(break_pcs, "one sheaf as two CPUs' main and spare");
    refuse_after(break_random_seq, "a random_seq that is no permutation");
}

int main(void)
{
    RUN_TEST(test_empty);
    RUN_TEST(test_round_trip_sheaves);
    RUN_TEST(test_round_trip_legacy);
    RUN_TEST(test_round_trip_hybrid);
    RUN_TEST(test_truncated);
    RUN_TEST(test_flipped);
    RUN_TEST(test_wrong_tag);
    RUN_TEST(test_page_callback_fails);
    RUN_TEST(test_shared_load);
    RUN_TEST(test_refusals);
    RUN_TEST(test_refuses_what_validate_misses);
    return check_done();
}
