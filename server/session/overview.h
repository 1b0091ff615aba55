/*
 * overview.h: a session's counters over its whole run at several
 * resolutions, kept while the run is built, for the overview strip (GET
 * /api/sessions/ID/overview, docs/api.md).
 *
 * The run is cut into buckets of `width` events.  OVERVIEW_LEVELS levels
 * are kept, level l with buckets of base << (2 l) events (each 4x coarser
 * than the one below); a bucket holds, for every stat item, the sum of its
 * deltas over the bucket's events (a rate: sums over buckets add up to the
 * counter's total), and for the slab pages in use (engine_pages_in -
 * engine_pages_out after each event) the min, max and sum (the mean is
 * sum / events).  When the finest level would pass OVERVIEW_BUCKETS buckets
 * it is dropped and a level 4x coarser than the coarsest is made by merging
 * (base *= 4): memory stays under OVERVIEW_BUCKETS * 4/3 buckets of
 * sizeof(struct overview_bucket) (about 2.2 MiB) whatever the run's length,
 * and a query reads at most OVERVIEW_BUCKETS buckets.
 *
 * Its serialized form (overview_save/overview_load) is what the store keeps
 * with a session, so a restarted server answers without replaying.
 */
#ifndef SLUBLAB_SERVER_SESSION_OVERVIEW_H
#define SLUBLAB_SERVER_SESSION_OVERVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slub.h"

#define OVERVIEW_LEVELS  6u    /* levels kept, 4x apart */
#define OVERVIEW_BUCKETS 4096u /* buckets of the finest level, at most */
#define OVERVIEW_VERSION 1u    /* of the serialized form */

struct overview_bucket {
    uint64_t events;             /* events in the bucket: width, or fewer in the last one */
    uint64_t sums[SIM_NR_STATS]; /* sum of each counter's deltas over the bucket */
    uint64_t pages_min;          /* slab pages in use after an event of the bucket: least */
    uint64_t pages_max;          /* ... most */
    uint64_t pages_sum;          /* ... summed over the bucket's events (mean: / events) */
};

struct overview_level {
    struct overview_bucket *b; /* b[i] covers events [i, i + 1) * width */
    size_t nr, cap;            /* nr == ceil(nr_events / width) */
};

struct overview {
    uint64_t nr_events;            /* events seen */
    uint64_t base;                 /* width of level 0's buckets; a power of 4 */
    uint64_t pages;                /* slab pages in use now */
    uint64_t totals[SIM_NR_STATS]; /* for the pages gauge */
    struct overview_level lv[OVERVIEW_LEVELS];
};

/* Where an overview was, for overview_truncate(): each level's open bucket. */
struct overview_mark {
    uint64_t nr_events, base, pages;
    uint64_t totals[SIM_NR_STATS];
    struct overview_bucket open[OVERVIEW_LEVELS]; /* level l's last bucket (events 0: none) */
};

/* One answer of overview_query(): @nr buckets of @width events from @from. */
struct overview_answer {
    uint64_t from, to, width, nr_events;
    unsigned level; /* the level read; merged x @merge when it had too many buckets */
    unsigned merge;
    size_t nr;
    struct overview_bucket *b; /* caller frees */
};

/* An empty overview.  Cannot fail. */
void overview_init(struct overview *ov);
/* Free everything; NULL is fine. */
void overview_release(struct overview *ov);
/* Account one event.  0 or -ENOMEM (then drop the overview). */
int overview_event(struct overview *ov, const struct sim_event *ev);
/* Remember where @ov is / go back there.  Cannot fail. */
void overview_mark(const struct overview *ov, struct overview_mark *m);
void overview_truncate(struct overview *ov, const struct overview_mark *m);
/* Host bytes held. */
size_t overview_bytes(const struct overview *ov);
/*
 * The buckets over events [from, to) (to clipped to the end), at the finest
 * level with at most @buckets of them (from rounded down and to up to its
 * bucket edges), else the coarsest level's merged in groups.  0, -EINVAL
 * (buckets 0) or -ENOMEM.
 */
int overview_query(const struct overview *ov, uint64_t from, uint64_t to, unsigned buckets,
                   struct overview_answer *out);
/* The serialized form; caller frees *out.  0 or -ENOMEM. */
int overview_save(const struct overview *ov, unsigned char **out, size_t *len);
/* Read a serialized form into @ov (initialized, empty).  0, -EINVAL (not one) or -ENOMEM. */
int overview_load(struct overview *ov, const unsigned char *data, size_t len);

#endif /* SLUBLAB_SERVER_SESSION_OVERVIEW_H */
