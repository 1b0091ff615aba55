/*
 * ckpt_disk.h: the disk tier of a run's checkpoints: machine images in the
 * store (store.h, "Checkpoint images"), behind the copies in memory
 * (checkpoint.c).
 *
 * An image is the engine's serialized machine (sim_image_save()): its meta,
 * zlib-compressed, and its pages.  Each page is stored once per owner, under
 * a 128-bit hash of its bytes (two independent 64-bit hashes), compressed;
 * an image lists its pages' (address, hash).  Consecutive images share the
 * pages that did not change: the tier keeps the hashes of the last image it
 * wrote or read (memory bounded by one image, not by the trace's length),
 * and a page among them is not compressed or sent again.
 *
 * Images are keyed by the owner: a hash of what a run's batch 0 is (scenario
 * text and label, full settings, stored op log), without batch 0's limit,
 * so a fork of a trace and a second server opening the same session read
 * the same images.  Only positions inside batch 0 are written (later
 * batches are a user's, short, and differ between sessions of one owner).
 *
 * Spacing is chosen by cost: loading an image of B host bytes costs about
 * what replaying CKPT_DISK_LOAD_FACTOR * B / SESSION_CKPT_BYTES_PER_OP
 * operations does, so images are never closer than that (replaying between
 * two costs about a load); and never closer than the last image's new
 * stored bytes / CKPT_DISK_BYTES_PER_OP, which bounds what images add to
 * the database per operation of the trace.
 *
 * A load reads an image's pages in one read transaction of the store, and
 * through a cache of pages by hash (the bytes, decompressed): an image
 * repeats many of its pages and shares most with its neighbours, so a seek
 * near an image loaded before reads little from the store.  A cached page is
 * a machine's own bytes, held: the pages of each image written (a seek soon
 * after finds them there) and of each read back (sim_image_load_shared()).
 * The cache and the machines share them, copy on write, so a load copies no
 * page it finds there.  The cache holds
 * at most cache_max bytes (all of them: the number of sets is not rounded),
 * CKPT_DISK_CACHE_WAYS pages per set (one smaller set when it holds fewer),
 * the least recently used of a set
 * replaced; session_thin() empties it when nothing
 * else is left to drop.
 *
 * What the tier holds in memory (the list of images, the known hashes, the
 * cached pages) is counted in session_run_memory().  Everything runs under
 * the run's lock.
 */
#ifndef SLUBLAB_SERVER_SESSION_CKPT_DISK_H
#define SLUBLAB_SERVER_SESSION_CKPT_DISK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "session/store.h"
#include "slub.h"

#define CKPT_DISK_LOAD_FACTOR  4u   /* a load costs this many clones of the same bytes */
#define CKPT_DISK_BYTES_PER_OP 12u  /* stored image bytes per operation, at most (spacing) */
#define CKPT_DISK_BATCH        256u /* pages per store transaction */
/* Operations between stored images, at least, by default: replaying this
 * many takes well under a second here, so nearer images would not pay for
 * their writes (session_limits.disk_min_ops) */
#define CKPT_DISK_MIN_OPS 65536u
/* Pages per set of the page cache: a load reads its image's pages in address
 * order, and a set that more pages map to than it holds misses every one of
 * them on every load (the least recently used is always the next one read),
 * so sets are wide: the 14,838 pages of a 4 M-event trace's images in a
 * cache of 24,576 leave 136 in sets that overflow (768 sets of 32), where
 * 4,096 sets of 4 left 7,233 */
#define CKPT_DISK_CACHE_WAYS 32u

/* A cached page: @page is NULL in an empty slot. */
struct ckpt_disk_cached {
    uint64_t h[2];
    uint64_t used; /* the cache's clock at its last hit */
    const uint8_t *page; /* SIM_PAGE_SIZE bytes held (sim_page_bytes_hold()), shared with
                          * the machines loaded from them */
};

struct ckpt_disk_entry {
    uint64_t seq, op; /* events and operations applied */
    size_t off;       /* op log offset of the next operation */
    bool has_extra;   /* carries the run's state at the end of batch 0 (see ckpt_disk_write()) */
};

struct ckpt_disk {
    struct store *store;                  /* NULL: no disk tier */
    char owner[STORE_CKPT_OWNER_LEN + 1]; /* "" until ckpt_disk_open() */
    const char *tag;                      /* sim_image_tag() */
    struct ckpt_disk_entry *e;            /* the stored images, by seq */
    size_t nr, cap;
    uint64_t (*known)[2];       /* open-addressed set: the last image's page hashes */
    size_t nr_known, cap_known; /* cap_known: 0 or a power of two */
    uint64_t max_op;            /* images only at op <= max_op (the end of batch 0, once known) */
    uint64_t last_op;           /* the furthest image written this run (0: none) */
    uint64_t min_ops;           /* operations before the next image may be written */
    uint64_t load_ops;          /* what a load costs, in replayed operations (the last image's) */
    uint64_t floor_ops;         /* min_ops is never below this */
    struct ckpt_disk_cached *cache; /* sets of cache_ways, allocated at first use */
    size_t cache_sets;              /* 0: no cache */
    unsigned cache_ways;            /* pages per set: CKPT_DISK_CACHE_WAYS at most */
    uint64_t cache_max;             /* bytes the cache may hold (0: none), set by the run */
    uint64_t cache_pages, cache_clock;
    /* numbers for GET /api/sessions/ID and the tests */
    uint64_t written, loaded, pages_written, bytes_written, pages_read, cache_hits;
    bool failed; /* a store error: the tier stopped writing (reads go on) */
    /* writes wait here, in memory, until ckpt_disk_flush() stores them all
     * in one transaction (a scenario's build, whose images the keeper
     * stores after the open answered: keeper.h); a load flushes first */
    bool defer;
    struct store_ckpt_page *pend_pages; /* data malloc()ed */
    size_t nr_pend_pages, cap_pend_pages;
    struct store_ckpt *pend; /* meta, pages and extra malloc()ed */
    size_t nr_pend, cap_pend;
    uint64_t pend_bytes;
};

/* Start the tier of a run over @store (NULL: none) for @owner, images at
 * least @floor_ops operations apart, reading the list of its stored images.  0 or -ENOMEM; a store
 * that cannot list them leaves the tier off (an error on stderr), which only costs replays. */
int ckpt_disk_open(struct ckpt_disk *d, struct store *store, const char *owner, uint64_t floor_ops);
/* Free what the tier holds; the store keeps the images.  NULL is fine. */
void ckpt_disk_release(struct ckpt_disk *d);
/* Host bytes it holds. */
uint64_t ckpt_disk_bytes(const struct ckpt_disk *d);
/* Empty the page cache (its bytes go back; it fills again on the next loads). */
void ckpt_disk_cache_clear(struct ckpt_disk *d);
/* Store what waits (d->defer), in one transaction, and write directly from
 * now on.  0 (also when nothing waits), -ENOMEM, or the store's error (the
 * images that waited are forgotten and the tier stops writing). */
int ckpt_disk_flush(struct ckpt_disk *d);
/* Is an image due at operation @op (spacing, batch 0, the tier on)? */
bool ckpt_disk_due(const struct ckpt_disk *d, uint64_t op);
/* The stored image at @seq, or NULL. */
const struct ckpt_disk_entry *ckpt_disk_at(const struct ckpt_disk *d, uint64_t seq);
/* The last stored image with seq < @seq (@strict) or <= @seq, or NULL. */
const struct ckpt_disk_entry *ckpt_disk_before(const struct ckpt_disk *d, uint64_t seq,
                                               bool strict);
/*
 * Store an image of @m (between operations, at seq/op/off) with the
 * timeline's counter @totals there (SIM_NR_STATS of them) and @extra
 * (@extra_len bytes, stored compressed; NULL: none).  0, -ENOMEM, or the
 * store's error (then the tier stops writing).
 */
int ckpt_disk_write(struct ckpt_disk *d, const struct sim *m, uint64_t seq, uint64_t op, size_t off,
                    const uint64_t *totals, const void *extra, size_t extra_len);
/* The same with @extra packed already (bytes_pack()). */
int ckpt_disk_write_packed(struct ckpt_disk *d, const struct sim *m, uint64_t seq, uint64_t op,
                           size_t off, const uint64_t *totals, const void *extra, size_t extra_len);
/* The machine of image @e into *out (no event callback), its totals into
 * @totals (when not NULL) and its extra into a malloc()ed *extra (when
 * @extra is not NULL; NULL when it has none).  0, -ENOMEM, -EIO (a page or
 * blob that does not read back) or the store's error. */
int ckpt_disk_load(struct ckpt_disk *d, const struct ckpt_disk_entry *e, struct sim **out,
                   uint64_t *totals, unsigned char **extra, size_t *extra_len);

#endif /* SLUBLAB_SERVER_SESSION_CKPT_DISK_H */
