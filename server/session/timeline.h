/*
 * timeline.h: what happened where in a session's event stream, in bounded
 * memory: counter samples for charts and per-block summaries for search.
 *
 * A session feeds every event of its forward run to timeline_event(), in
 * order.  Two things are kept:
 *
 *  - Counter totals (every stat item, summed over caches and CPUs) after
 *    every `interval` events, at most TIMELINE_SAMPLES samples: when the
 *    array is full every other sample is dropped and the interval doubles,
 *    so a run of any length costs at most TIMELINE_SAMPLES * SIM_NR_STATS
 *    * 8 bytes (1.5 MiB) and the samples stay evenly spaced.  Totals come
 *    from the events' counter deltas, which carry every bump the engine
 *    makes (engine/stats.c).
 *
 *  - For each block of TIMELINE_BLOCK events, a summary: which (function,
 *    label) pairs occurred (a 256-bit set of pair ids), which counters
 *    changed (a bit per stat item), and a 1024-bit Bloom filter of the
 *    objects moved.  Search skips every block whose summary cannot match and
 *    replays only the others: 168 bytes per 4096 events.
 *
 * The counters per bucket at several resolutions, for the overview of the
 * whole run, are kept beside them (overview.h).
 *
 * It also tracks the high-water mark of slab pages in use, from which the
 * session estimates what a copy of the machine costs (sim_clone copies
 * every page that was ever touched).
 */
#ifndef SLUBLAB_SERVER_SESSION_TIMELINE_H
#define SLUBLAB_SERVER_SESSION_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "session/overview.h"
#include "slub.h"

#define TIMELINE_BLOCK   4096u /* events per search block */
#define TIMELINE_SAMPLES 4096u /* counter samples kept, at most */
#define TIMELINE_PAIRS   256u  /* pair-id bits per block; ids wrap (false positives only) */

struct timeline_block {
    uint64_t pairs[TIMELINE_PAIRS / 64]; /* bit (id % 256) of each (fn, label) pair seen */
    uint64_t stats;                      /* bit i: counter i changed */
    uint64_t objs[16];                   /* Bloom filter of moved objects, 2 bits each */
};

#define TIMELINE_PAIR_HINTS 64 /* a power of two */

struct timeline_pair {
    char *fn, *label; /* owned copies; label NULL when the event had none */
};

struct timeline {
    uint64_t nr_events;            /* events seen */
    uint64_t totals[SIM_NR_STATS]; /* counter totals after nr_events events */
    uint64_t pages_hwm;            /* most slab pages in use at once */
    struct timeline_pair *pairs;   /* pair id -> names, in order of first appearance */
    size_t nr_pairs, cap_pairs;
    /* pairs seen, by their engine strings' addresses (the engine's names
     * are string literals): a direct-mapped table that spares the string
     * compares of a search; id SIZE_MAX: empty */
    struct {
        const char *fn, *label;
        size_t id;
    } hint[TIMELINE_PAIR_HINTS];
    struct timeline_block *blocks; /* block b covers events [b, b + 1) * TIMELINE_BLOCK */
    size_t nr_blocks, cap_blocks;
    uint64_t interval;                 /* events between samples; a power of two */
    uint64_t (*samples)[SIM_NR_STATS]; /* sample i: totals after (i + 1) * interval events */
    size_t nr_samples, cap_samples;
    struct overview ov; /* the counters at several resolutions */
    /* timeline_save()'s form, packed (bytes.h), while no event came since
     * it was made; NULL: none */
    void *packed;
    size_t packed_len;
    bool cold; /* @samples and @ov are in @packed only (timeline_pack()) */
};

/* Where a timeline was, for timeline_truncate(). */
struct timeline_mark {
    uint64_t nr_events;
    uint64_t totals[SIM_NR_STATS];
    uint64_t pages_hwm;
    struct overview_mark ov;
};

struct timeline_query {
    const char *fn;    /* NULL: any */
    const char *label; /* NULL: any */
    int stat;          /* a counter that must change, or -1 */
    bool has_object;
    sim_addr_t object; /* valid iff has_object: an object the event must move */
};

/* An empty timeline.  Cannot fail. */
void timeline_init(struct timeline *tl);
/* Free everything; NULL is fine. */
void timeline_release(struct timeline *tl);
/* Account one event (ev->seq == tl->nr_events).  0 or -ENOMEM (then drop the timeline). */
int timeline_event(struct timeline *tl, const struct sim_event *ev);
/* Remember where @tl is / go back there, forgetting later events (@tl
 * unpacked when marked).  Cannot fail. */
void timeline_mark(const struct timeline *tl, struct timeline_mark *m);
void timeline_truncate(struct timeline *tl, const struct timeline_mark *m);
/* Host bytes the timeline holds. */
size_t timeline_bytes(const struct timeline *tl);
/*
 * Keep the samples and the overview packed only (a run that is built and
 * waits: they are what most of its memory is, and only series and the
 * overview read them).  timeline_unpack() brings them back; an event
 * brings them back itself.  0 or -ENOMEM (nothing changed).
 */
int timeline_pack(struct timeline *tl);
/* The samples and the overview in memory again, as they were.  0, -ENOMEM
 * or -EIO (nothing changed). */
int timeline_unpack(struct timeline *tl);
/* The overview's serialized form (overview_save()), also of a packed
 * timeline.  0 or -ENOMEM. */
int timeline_overview_save(const struct timeline *tl, unsigned char **out, size_t *len);
/* A reader's view of @tl with its samples and overview: *out is @tl, or
 * @tmp (initialized, released by the caller) loaded from the packed form;
 * @tl does not change, so readers need not exclude each other.  0,
 * -ENOMEM or -EIO. */
int timeline_view(const struct timeline *tl, struct timeline *tmp, const struct timeline **out);
/* The serialized form (host byte order; kept with a checkpoint image of the
 * same host's layout tag), overview included; caller frees *out.  0 or -ENOMEM. */
int timeline_save(const struct timeline *tl, unsigned char **out, size_t *len);
/* Replace @tl (initialized) with a serialized form.  0, -EINVAL (not one) or
 * -ENOMEM; @tl is empty on failure. */
int timeline_load(struct timeline *tl, const unsigned char *data, size_t len);

/*
 * Prepare @q: the 256-bit set of pair ids it accepts in @mask.  Returns
 * false when no event seen so far can match (an unknown function or label).
 */
bool timeline_query_mask(const struct timeline *tl, const struct timeline_query *q,
                         uint64_t mask[TIMELINE_PAIRS / 64]);
/* May block @b hold an event matching @q (prepared as @mask)? */
bool timeline_block_may_match(const struct timeline *tl, size_t b, const struct timeline_query *q,
                              const uint64_t mask[TIMELINE_PAIRS / 64]);
/* Does @ev match @q exactly? */
bool timeline_event_matches(const struct sim_event *ev, const struct timeline_query *q);

#endif /* SLUBLAB_SERVER_SESSION_TIMELINE_H */
