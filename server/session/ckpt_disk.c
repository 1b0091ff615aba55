/*
 * ckpt_disk.c: a run's checkpoint images in the store (see ckpt_disk.h).
 *
 * Blobs (meta, page list, extra) are stored as their raw length (8 bytes,
 * host order) then a zlib stream; the meta blob holds the engine's meta
 * (its length first) and the timeline's counter totals at the image; a page is a zlib stream of
 * SIM_PAGE_SIZE bytes.  The page list is (address, hash[0], hash[1]) per
 * page, 24 bytes each, in the image's order (by address), so a load finds
 * a page's hash by binary search.  A hash read back that does not
 * decompress to a page is -EIO: the image is not used, never half-loaded.
 */
#include "session/ckpt_disk.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "base/grow.h"
#include "session/bytes.h"
#include "session/session.h"

/* ---- the list of images ---------------------------------------------------------- */

static int ckpt_disk_push(struct ckpt_disk *d, uint64_t seq, uint64_t op, size_t off,
                          bool has_extra)
{
    struct ckpt_disk_entry *e;
    size_t i;

    if (!(e = grow_array(d->e, &d->cap, d->nr + 1, sizeof(*e), 16)))
        return -ENOMEM;
    d->e = e;
    for (i = d->nr; i > 0 && d->e[i - 1].seq >= seq; i--)
        ;
    if (i < d->nr && d->e[i].seq == seq) { /* rewritten: the same position */
        d->e[i].has_extra |= has_extra;
        return 0;
    }
    memmove(&d->e[i + 1], &d->e[i], (d->nr - i) * sizeof(*e));
    d->e[i] = (struct ckpt_disk_entry){seq, op, off, has_extra};
    d->nr++;
    return 0;
}

static int ckpt_disk_listed(void *arg, uint64_t seq, uint64_t op, uint64_t off, bool has_extra)
{
    return ckpt_disk_push(arg, seq, op, (size_t)off, has_extra);
}

int ckpt_disk_open(struct ckpt_disk *d, struct store *store, const char *owner, uint64_t floor_ops)
{
    int ret;

    ckpt_disk_release(d);
    d->max_op = UINT64_MAX;
    d->last_op = 0; /* the first image after floor_ops operations */
    d->min_ops = d->floor_ops = floor_ops;
    if (!store || floor_ops == UINT64_MAX)
        return 0;
    d->tag = sim_image_tag();
    snprintf(d->owner, sizeof(d->owner), "%s", owner);
    ret = store_ckpt_list(store, d->owner, d->tag, ckpt_disk_listed, d);
    if (ret == -ENOMEM)
        return ret;
    if (ret) {
        fprintf(stderr,
                "slublab serve: checkpoints of %s cannot be listed (error %d): "
                "replaying instead\n",
                owner, ret);
        d->nr = 0;
        return 0;
    }
    d->store = store;
    return 0;
}

/* Free what waits to be stored. */
static void pend_clear(struct ckpt_disk *d)
{
    size_t i;

    for (i = 0; i < d->nr_pend_pages; i++)
        free((void *)(uintptr_t)d->pend_pages[i].data);
    for (i = 0; i < d->nr_pend; i++) {
        free(d->pend[i].meta);
        free(d->pend[i].pages);
        free(d->pend[i].extra);
    }
    free(d->pend_pages);
    free(d->pend);
    d->pend_pages = NULL;
    d->pend = NULL;
    d->nr_pend_pages = d->cap_pend_pages = d->nr_pend = d->cap_pend = 0;
    d->pend_bytes = 0;
}

void ckpt_disk_release(struct ckpt_disk *d)
{
    if (!d)
        return;
    pend_clear(d);
    ckpt_disk_cache_clear(d);
    free(d->e);
    free(d->known);
    memset(d, 0, sizeof(*d));
}

/* A cached page that machines share is counted here and in each of them:
 * the run's budget errs high, never low. */
uint64_t ckpt_disk_bytes(const struct ckpt_disk *d)
{
    return d->cap * sizeof(*d->e) + d->cap_known * sizeof(*d->known) +
           d->cache_sets * d->cache_ways * sizeof(*d->cache) +
           d->cache_pages * (SIM_PAGE_SIZE + 16) + d->pend_bytes +
           d->cap_pend_pages * sizeof(*d->pend_pages) + d->cap_pend * sizeof(*d->pend);
}

static void known_reset(struct ckpt_disk *d);

int ckpt_disk_flush(struct ckpt_disk *d)
{
    int ret = 0;

    d->defer = false;
    if (!d->nr_pend && !d->nr_pend_pages)
        return 0;
    if (d->store && !d->failed)
        ret = store_ckpt_put_all(d->store, d->owner, d->tag, d->pend_pages, d->nr_pend_pages,
                                 d->pend, d->nr_pend);
    if (ret || !d->store || d->failed) {
        /* none of them is stored: forget them, so that no load looks for one */
        for (size_t i = 0; i < d->nr_pend; i++) {
            const struct ckpt_disk_entry *e = ckpt_disk_at(d, d->pend[i].seq);

            if (e) {
                size_t at = (size_t)(e - d->e);

                memmove(&d->e[at], &d->e[at + 1], (d->nr - at - 1) * sizeof(*d->e));
                d->nr--;
            }
        }
        if (ret && ret != -ENOMEM) {
            fprintf(stderr,
                    "slublab serve: checkpoints of %s: images cannot be stored (error %d): "
                    "no more are written\n",
                    d->owner, ret);
        }
        d->failed = true;
        known_reset(d);
    }
    pend_clear(d);
    return ret;
}

bool ckpt_disk_due(const struct ckpt_disk *d, uint64_t op)
{
    if (!d->store || d->failed || op > d->max_op)
        return false;
    return op >= d->last_op && op - d->last_op >= d->min_ops;
}

const struct ckpt_disk_entry *ckpt_disk_at(const struct ckpt_disk *d, uint64_t seq)
{
    const struct ckpt_disk_entry *e = ckpt_disk_before(d, seq, false);

    return e && e->seq == seq ? e : NULL;
}

const struct ckpt_disk_entry *ckpt_disk_before(const struct ckpt_disk *d, uint64_t seq, bool strict)
{
    size_t lo = 0, hi = d->nr;

    if (!d->store)
        return NULL;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        bool before = strict ? d->e[mid].seq < seq : d->e[mid].seq <= seq;

        if (before)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? &d->e[lo - 1] : NULL;
}

/* ---- pages ------------------------------------------------------------------------ */

/* Two independent 64-bit hashes of a page (murmur-style word mixing). */
static void page_hash(const uint8_t *p, uint64_t h[2])
{
    uint64_t a = 0x243f6a8885a308d3ull, b = 0x13198a2e03707344ull;
    size_t i;

    for (i = 0; i < SIM_PAGE_SIZE; i += 8) {
        uint64_t w;

        memcpy(&w, p + i, sizeof(w));
        a ^= w * 0x87c37b91114253d5ull;
        a = ((a << 31) | (a >> 33)) * 0x4cf5ad432745937full;
        b += (w ^ (b >> 29)) * 0x9e3779b97f4a7c15ull;
        b = ((b << 27) | (b >> 37)) ^ (i * 0xff51afd7ed558ccdull);
    }
    a ^= a >> 33;
    a *= 0xff51afd7ed558ccdull;
    a ^= a >> 33;
    b ^= b >> 31;
    b *= 0xc4ceb9fe1a85ec53ull;
    b ^= b >> 29;
    h[0] = a;
    h[1] = b | (a == 0 && b == 0); /* (0, 0) marks an empty slot of the known set */
}

static size_t known_slot(const struct ckpt_disk *d, const uint64_t h[2])
{
    size_t mask = d->cap_known - 1, i = (size_t)(h[0] ^ h[1]) & mask;

    while (d->known[i][0] | d->known[i][1]) {
        if (d->known[i][0] == h[0] && d->known[i][1] == h[1])
            break;
        i = (i + 1) & mask;
    }
    return i;
}

static bool known_has(const struct ckpt_disk *d, const uint64_t h[2])
{
    size_t i;

    if (!d->cap_known)
        return false;
    i = known_slot(d, h);
    return d->known[i][0] == h[0] && d->known[i][1] == h[1];
}

/* Remember that page @h is stored.  0 or -ENOMEM (then it is merely written again). */
static int known_add(struct ckpt_disk *d, const uint64_t h[2])
{
    size_t i;

    if (2 * (d->nr_known + 1) > d->cap_known) {
        size_t cap = d->cap_known ? 2 * d->cap_known : 1024, old = d->cap_known;
        uint64_t(*was)[2] = d->known;

        if (!(d->known = calloc(cap, sizeof(*d->known)))) {
            d->known = was;
            return -ENOMEM;
        }
        d->cap_known = cap;
        for (i = 0; i < old; i++)
            if (was[i][0] | was[i][1])
                memcpy(d->known[known_slot(d, was[i])], was[i], sizeof(was[i]));
        free(was);
    }
    i = known_slot(d, h);
    if (!(d->known[i][0] | d->known[i][1]))
        d->nr_known++;
    d->known[i][0] = h[0];
    d->known[i][1] = h[1];
    return 0;
}

/* Forget every hash (the capacity stays): the set then holds one image's. */
static void known_reset(struct ckpt_disk *d)
{
    if (d->cap_known)
        memset(d->known, 0, d->cap_known * sizeof(*d->known));
    d->nr_known = 0;
}

static void hash_bytes(const uint64_t h[2], uint8_t out[STORE_CKPT_HASH_LEN])
{
    memcpy(out, &h[0], 8);
    memcpy(out + 8, &h[1], 8);
}

/* ---- the page cache ---------------------------------------------------------------- */

void ckpt_disk_cache_clear(struct ckpt_disk *d)
{
    size_t i;

    for (i = 0; i < d->cache_sets * d->cache_ways; i++)
        sim_page_bytes_drop(d->cache[i].page);
    free(d->cache);
    d->cache = NULL;
    d->cache_sets = 0;
    d->cache_ways = 0;
    d->cache_pages = 0;
}

static struct ckpt_disk_cached *cache_set(const struct ckpt_disk *d, const uint64_t h[2])
{
    return &d->cache[(size_t)(h[0] % d->cache_sets) * d->cache_ways];
}

/* The cached bytes of page @h, or NULL. */
static const uint8_t *cache_find(struct ckpt_disk *d, const uint64_t h[2])
{
    struct ckpt_disk_cached *set;
    unsigned w;

    if (!d->cache)
        return NULL;
    set = cache_set(d, h);
    for (w = 0; w < d->cache_ways; w++)
        if (set[w].page && set[w].h[0] == h[0] && set[w].h[1] == h[1]) {
            set[w].used = ++d->cache_clock;
            return set[w].page;
        }
    return NULL;
}

/* Keep page @h's @bytes (a loaded machine's: held, not copied), in place of
 * its set's least recently used; nothing on host OOM or without room (it is
 * only a cache). */
static void cache_put(struct ckpt_disk *d, const uint64_t h[2], const uint8_t *bytes)
{
    struct ckpt_disk_cached *set, *victim;
    unsigned w;

    if (!d->cache) {
        /* as many sets as cache_max holds: all of its room, not a power of
         * two of it; a cache of fewer pages than a set is one set */
        uint64_t room = d->cache_max / SIM_PAGE_SIZE;
        unsigned ways = room < CKPT_DISK_CACHE_WAYS ? (unsigned)room : CKPT_DISK_CACHE_WAYS;
        size_t sets;

        if (!ways)
            return;
        sets = (size_t)(room / ways);
        if (!(d->cache = calloc(sets * ways, sizeof(*d->cache))))
            return;
        d->cache_sets = sets;
        d->cache_ways = ways;
    }
    set = cache_set(d, h);
    victim = &set[0];
    for (w = 0; w < d->cache_ways; w++) {
        if (!set[w].page) {
            victim = &set[w];
            break;
        }
        if (set[w].used < victim->used)
            victim = &set[w];
    }
    if (victim->page)
        sim_page_bytes_drop(victim->page);
    else
        d->cache_pages++;
    victim->page = sim_page_bytes_hold(bytes);
    victim->h[0] = h[0];
    victim->h[1] = h[1];
    victim->used = ++d->cache_clock;
}

/* ---- writing ---------------------------------------------------------------------- */

struct page_batch {
    struct store_ckpt_page p[CKPT_DISK_BATCH];
    uint8_t *buf; /* CKPT_DISK_BATCH compressed pages, compressBound(SIM_PAGE_SIZE) each */
    size_t n, bound;
};

/* Keep @b's pages to be stored with the next flush (d->defer).  0 or -ENOMEM. */
static int page_batch_defer(struct ckpt_disk *d, const struct page_batch *b)
{
    struct store_ckpt_page *p =
            grow_array(d->pend_pages, &d->cap_pend_pages, d->nr_pend_pages + b->n, sizeof(*p), 64);
    size_t i;

    if (!p)
        return -ENOMEM;
    d->pend_pages = p;
    for (i = 0; i < b->n; i++) {
        void *data = malloc(b->p[i].len ? b->p[i].len : 1);

        if (!data)
            return -ENOMEM;
        memcpy(data, b->p[i].data, b->p[i].len);
        p = &d->pend_pages[d->nr_pend_pages++];
        *p = b->p[i];
        p->data = data;
        d->pend_bytes += b->p[i].len + sizeof(*p);
    }
    return 0;
}

static int page_batch_flush(struct ckpt_disk *d, struct page_batch *b)
{
    int ret = !b->n      ? 0
              : d->defer ? page_batch_defer(d, b)
                         : store_ckpt_pages_put(d->store, d->owner, b->p, b->n);

    b->n = 0;
    return ret;
}

/* Keep image @c to be stored with the next flush (d->defer); its meta and
 * pages move there, its extra is copied.  0 or -ENOMEM. */
static int ckpt_defer(struct ckpt_disk *d, struct store_ckpt *c)
{
    struct store_ckpt *p = grow_array(d->pend, &d->cap_pend, d->nr_pend + 1, sizeof(*p), 16);
    void *extra = NULL;

    if (!p)
        return -ENOMEM;
    d->pend = p;
    if (c->extra && !(extra = malloc(c->extra_len ? c->extra_len : 1)))
        return -ENOMEM;
    if (extra)
        memcpy(extra, c->extra, c->extra_len);
    p = &d->pend[d->nr_pend++];
    *p = *c;
    p->extra = extra;
    d->pend_bytes += c->meta_len + c->pages_len + c->extra_len;
    c->meta = c->pages = NULL; /* the pending image's now */
    return 0;
}

/* The stored meta: the engine's meta with its length before it and the
 * timeline's counter totals after it, as one blob. */
static int ckpt_meta_pack(const struct sim_image *img, const uint64_t *totals, void **out,
                          size_t *len)
{
    size_t n = 8 + img->meta_len + SIM_NR_STATS * sizeof(uint64_t);
    uint64_t meta_len = img->meta_len;
    uint8_t *p = malloc(n);
    int ret;

    if (!p)
        return -ENOMEM;
    memcpy(p, &meta_len, 8);
    memcpy(p + 8, img->meta, img->meta_len);
    memcpy(p + 8 + img->meta_len, totals, SIM_NR_STATS * sizeof(uint64_t));
    ret = bytes_pack(p, n, out, len);
    free(p);
    return ret;
}

int ckpt_disk_write(struct ckpt_disk *d, const struct sim *m, uint64_t seq, uint64_t op, size_t off,
                    const uint64_t *totals, const void *extra, size_t extra_len)
{
    void *packed = NULL;
    size_t packed_len = 0;
    int ret;

    if (!d->store || d->failed)
        return 0;
    if (extra && (ret = bytes_pack(extra, extra_len, &packed, &packed_len)))
        return ret;
    ret = ckpt_disk_write_packed(d, m, seq, op, off, totals, packed, packed_len);
    free(packed);
    return ret;
}

int ckpt_disk_write_packed(struct ckpt_disk *d, const struct sim *m, uint64_t seq, uint64_t op,
                           size_t off, const uint64_t *totals, const void *extra, size_t extra_len)
{
    struct store_ckpt c = {.seq = seq, .op = op, .off = off};
    struct page_batch *b = NULL;
    struct sim_image img;
    uint64_t(*list)[3] = NULL, bytes = 0, h[2];
    size_t i;
    int ret;

    if (!d->store || d->failed)
        return 0;
    /* -EIO: a halted machine, no state to keep (the one before serves) */
    if ((ret = sim_image_save(m, &img)))
        return ret == -ENOMEM ? ret : 0;
    b = calloc(1, sizeof(*b));
    list = malloc((img.nr_pages ? img.nr_pages : 1) * sizeof(*list));
    if (b)
        b->bound = compressBound(SIM_PAGE_SIZE);
    if (!b || !list || !(b->buf = malloc(CKPT_DISK_BATCH * b->bound))) {
        ret = -ENOMEM;
        goto out_release;
    }
    for (i = 0; i < img.nr_pages && !ret; i++) {
        page_hash(img.pages[i].bytes, h);
        list[i][0] = img.pages[i].addr;
        list[i][1] = h[0];
        list[i][2] = h[1];
        /* the machine's own bytes, held: a load soon after finds them */
        if (!cache_find(d, h))
            cache_put(d, h, img.pages[i].bytes);
        if (known_has(d, h))
            continue;
        {
            struct store_ckpt_page *p = &b->p[b->n];
            uLongf n = (uLongf)b->bound;
            uint8_t *dst = b->buf + b->n * b->bound;

            if (compress2(dst, &n, img.pages[i].bytes, SIM_PAGE_SIZE, 1) != Z_OK) {
                ret = -ENOMEM;
                break;
            }
            hash_bytes(h, p->hash);
            p->data = dst;
            p->len = n;
            bytes += n + STORE_CKPT_HASH_LEN;
            if (++b->n == CKPT_DISK_BATCH)
                ret = page_batch_flush(d, b);
        }
        d->pages_written++;
    }
    /* the next image is compared with this one: what consecutive images
     * share, in memory bounded by one image (an older page that comes back
     * is only compressed and offered again) */
    known_reset(d);
    for (i = 0; i < img.nr_pages; i++)
        known_add(d, &list[i][1]); /* a miss only means writing it again */
    if (!ret)
        ret = page_batch_flush(d, b);
    if (!ret)
        ret = ckpt_meta_pack(&img, totals, &c.meta, &c.meta_len);
    if (!ret)
        ret = bytes_pack(list, img.nr_pages * sizeof(*list), &c.pages, &c.pages_len);
    c.extra = (void *)(uintptr_t)extra; /* the store only reads it */
    c.extra_len = extra_len;
    if (!ret)
        bytes += c.meta_len + c.pages_len + c.extra_len;
    if (!ret)
        ret = d->defer ? ckpt_defer(d, &c) : store_ckpt_put(d->store, d->owner, d->tag, &c);
    if (!ret)
        ret = ckpt_disk_push(d, seq, op, off, extra != NULL);
    if (!ret) {
        uint64_t host = sim_host_bytes(m), by_bytes;

        d->written++;
        d->bytes_written += bytes;
        if (op > d->last_op)
            d->last_op = op;
        d->load_ops = CKPT_DISK_LOAD_FACTOR * host / SESSION_CKPT_BYTES_PER_OP;
        by_bytes = bytes / CKPT_DISK_BYTES_PER_OP;
        d->min_ops = d->load_ops > by_bytes ? d->load_ops : by_bytes;
        if (d->min_ops < d->floor_ops)
            d->min_ops = d->floor_ops;
    }
out_release:
    if (ret && ret != -ENOMEM) {
        fprintf(stderr,
                "slublab serve: checkpoints of %s: an image cannot be stored (error %d): "
                "no more are written\n",
                d->owner, ret);
        d->failed = true;
    }
    free(c.meta);
    free(c.pages);
    if (b)
        free(b->buf);
    free(b);
    free(list);
    sim_image_release(&img);
    return ret;
}

/* ---- reading ---------------------------------------------------------------------- */

struct page_reader {
    struct ckpt_disk *d;
    const uint64_t *list; /* (address, hash[0], hash[1]) per page */
    size_t nr;
};

/* Page @addr's bytes, with a hold for the machine (sim_image_load_shared()):
 * the cache's own, shared, or read from the store into a new buffer that the
 * cache then holds too. */
static int page_read(void *arg, sim_addr_t addr, const uint8_t **bytes)
{
    struct page_reader *pr = arg;
    size_t lo = 0, hi = pr->nr;
    uint8_t hash[STORE_CKPT_HASH_LEN], *data = NULL, *dst;
    const uint8_t *cached;
    size_t len = 0;
    uLongf n = SIM_PAGE_SIZE;
    int ret;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (pr->list[3 * mid] < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == pr->nr || pr->list[3 * lo] != addr)
        return -EIO;
    if ((cached = cache_find(pr->d, &pr->list[3 * lo + 1]))) {
        *bytes = sim_page_bytes_hold(cached); /* no copy: shared until written */
        pr->d->cache_hits++;
        return 0;
    }
    hash_bytes(&pr->list[3 * lo + 1], hash);
    if ((ret = store_ckpt_page_get(pr->d->store, pr->d->owner, hash, &data, &len)))
        return ret == -ENOENT ? -EIO : ret;
    if (!(dst = sim_page_bytes_new()))
        ret = -ENOMEM;
    else if (uncompress(dst, &n, data, (uLong)len) != Z_OK || n != SIM_PAGE_SIZE)
        ret = -EIO;
    free(data);
    if (ret) {
        sim_page_bytes_drop(dst);
        return ret;
    }
    pr->d->pages_read++;
    cache_put(pr->d, &pr->list[3 * lo + 1], dst);
    *bytes = dst;
    return 0;
}

int ckpt_disk_load(struct ckpt_disk *d, const struct ckpt_disk_entry *e, struct sim **out,
                   uint64_t *totals, unsigned char **extra, size_t *extra_len)
{
    struct store_ckpt c;
    unsigned char *meta = NULL, *list = NULL;
    size_t meta_len = 0, list_len = 0, i;
    uint64_t engine_len = 0;
    struct page_reader pr = {d, NULL, 0};
    bool in_tx;
    int ret;

    if (extra) {
        *extra = NULL;
        *extra_len = 0;
    }
    if (!d->store)
        return -ENOENT;
    if ((d->nr_pend || d->nr_pend_pages) && (ret = ckpt_disk_flush(d)))
        return ret == -ENOMEM ? ret : -EIO;
    /* one read transaction for the image and its pages (without one, each
     * query is its own and locks the database again) */
    in_tx = store_read_begin(d->store) == 0;
    if ((ret = store_ckpt_get(d->store, d->owner, d->tag, e->seq, &c)))
        goto out_free;
    if ((ret = bytes_unpack(c.meta, c.meta_len, &meta, &meta_len)) ||
        (ret = bytes_unpack(c.pages, c.pages_len, &list, &list_len)))
        goto out_free;
    if (meta_len >= 8)
        memcpy(&engine_len, meta, 8);
    if (meta_len < 8 || engine_len != meta_len - 8 - SIM_NR_STATS * sizeof(uint64_t) ||
        list_len % (3 * sizeof(uint64_t))) {
        ret = -EIO;
        goto out_free;
    }
    pr.list = (const uint64_t *)(const void *)list;
    pr.nr = list_len / (3 * sizeof(uint64_t));
    for (i = 1; i < pr.nr; i++)
        if (pr.list[3 * (i - 1)] >= pr.list[3 * i]) { /* not by address: another writer's format */
            ret = -EIO;
            goto out_free;
        }
    if ((ret = sim_image_load_shared(meta + 8, (size_t)engine_len, page_read, &pr, out)))
        goto out_free;
    if (totals)
        memcpy(totals, meta + 8 + engine_len, SIM_NR_STATS * sizeof(uint64_t));
    known_reset(d); /* read back: known to be stored, and what a spill next to it shares */
    for (i = 0; i < pr.nr; i++)
        known_add(d, &pr.list[3 * i + 1]);
    if (extra && c.extra && (ret = bytes_unpack(c.extra, c.extra_len, extra, extra_len))) {
        sim_destroy(*out);
        *out = NULL;
        goto out_free;
    }
    d->loaded++;
    if (!d->load_ops)
        d->load_ops = CKPT_DISK_LOAD_FACTOR * sim_host_bytes(*out) / SESSION_CKPT_BYTES_PER_OP;
out_free:
    if (in_tx)
        store_read_end(d->store);
    free(meta);
    free(list);
    store_ckpt_free(&c);
    return ret;
}
