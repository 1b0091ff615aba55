/*
 * timeline.c: counter samples and block summaries of a session's events
 * (see timeline.h).
 *
 * The hot path is timeline_event(), called once per engine event during a
 * session's forward run; it does no allocation except when a block or the
 * sample array grows (amortized), and finds the event's (fn, label) pair id
 * through the last pair seen before falling back to a linear search of the
 * few dozen pairs the engine has.
 */
#include "session/timeline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void timeline_init(struct timeline *tl)
{
    memset(tl, 0, sizeof(*tl));
    tl->interval = 1;
    tl->hint_id = SIZE_MAX;
    overview_init(&tl->ov);
}

void timeline_release(struct timeline *tl)
{
    size_t i;

    if (!tl)
        return;
    for (i = 0; i < tl->nr_pairs; i++) {
        free(tl->pairs[i].fn);
        free(tl->pairs[i].label);
    }
    free(tl->pairs);
    free(tl->blocks);
    free(tl->samples);
    overview_release(&tl->ov);
    timeline_init(tl);
}

static bool str_eq(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp(a, b) == 0;
}

static char *str_dup(const char *s)
{
    size_t len;
    char *p;

    if (!s)
        return NULL;
    len = strlen(s) + 1;
    p = malloc(len);
    if (p)
        memcpy(p, s, len);
    return p;
}

/* The id of (fn, label), added when new; SIZE_MAX on host OOM. */
static size_t timeline_pair(struct timeline *tl, const char *fn, const char *label)
{
    struct timeline_pair *p;
    size_t i;

    if (tl->hint_id != SIZE_MAX && fn == tl->hint_fn && label == tl->hint_label)
        return tl->hint_id;
    for (i = 0; i < tl->nr_pairs; i++)
        if (str_eq(tl->pairs[i].fn, fn) && str_eq(tl->pairs[i].label, label))
            goto found;
    if (tl->nr_pairs == tl->cap_pairs) {
        size_t cap = tl->cap_pairs ? tl->cap_pairs * 2 : 32;

        p = realloc(tl->pairs, cap * sizeof(*p));
        if (!p)
            return SIZE_MAX;
        tl->pairs = p;
        tl->cap_pairs = cap;
    }
    p = &tl->pairs[i];
    p->fn = str_dup(fn ? fn : "");
    p->label = str_dup(label);
    if (!p->fn || (label && !p->label)) {
        free(p->fn);
        free(p->label);
        return SIZE_MAX;
    }
    tl->nr_pairs++;
found:
    tl->hint_fn = fn;
    tl->hint_label = label;
    tl->hint_id = i;
    return i;
}

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static void bloom_add(uint64_t objs[16], sim_addr_t addr)
{
    uint64_t h = mix64(addr);
    unsigned a = (unsigned)(h & 1023), b = (unsigned)((h >> 10) & 1023);

    objs[a / 64] |= 1ull << (a % 64);
    objs[b / 64] |= 1ull << (b % 64);
}

static bool bloom_has(const uint64_t objs[16], sim_addr_t addr)
{
    uint64_t h = mix64(addr);
    unsigned a = (unsigned)(h & 1023), b = (unsigned)((h >> 10) & 1023);

    return (objs[a / 64] >> (a % 64) & 1) && (objs[b / 64] >> (b % 64) & 1);
}

/* Record the totals as a sample, halving the samples when full. */
static int timeline_sample(struct timeline *tl)
{
    size_t i;

    if (tl->nr_samples == TIMELINE_SAMPLES) {
        /* keep the samples at even multiples: (2i + 2) * interval */
        for (i = 0; i < TIMELINE_SAMPLES / 2; i++)
            memcpy(tl->samples[i], tl->samples[2 * i + 1], sizeof(tl->samples[i]));
        tl->nr_samples = TIMELINE_SAMPLES / 2;
        tl->interval *= 2;
        if (tl->nr_events % tl->interval)
            return 0; /* this position is no longer a sample position */
    }
    if (tl->nr_samples == tl->cap_samples) {
        size_t cap = tl->cap_samples ? tl->cap_samples * 2 : 64;
        uint64_t(*s)[SIM_NR_STATS] = realloc(tl->samples, cap * sizeof(*s));

        if (!s)
            return -ENOMEM;
        tl->samples = s;
        tl->cap_samples = cap;
    }
    memcpy(tl->samples[tl->nr_samples++], tl->totals, sizeof(tl->totals));
    return 0;
}

int timeline_event(struct timeline *tl, const struct sim_event *ev)
{
    size_t b = (size_t)(tl->nr_events / TIMELINE_BLOCK), id, i;
    struct timeline_block *blk;
    uint64_t used;

    if (b >= tl->cap_blocks) {
        size_t cap = tl->cap_blocks ? tl->cap_blocks * 2 : 16;
        struct timeline_block *nb = realloc(tl->blocks, cap * sizeof(*nb));

        if (!nb)
            return -ENOMEM;
        tl->blocks = nb;
        tl->cap_blocks = cap;
    }
    if (b >= tl->nr_blocks) {
        memset(&tl->blocks[b], 0, sizeof(tl->blocks[b]));
        tl->nr_blocks = b + 1;
    }
    id = timeline_pair(tl, ev->fn, ev->label);
    if (id == SIZE_MAX || overview_event(&tl->ov, ev))
        return -ENOMEM;
    blk = &tl->blocks[b];
    blk->pairs[(id % TIMELINE_PAIRS) / 64] |= 1ull << (id % 64);
    for (i = 0; i < ev->nr_stats; i++) {
        unsigned item = ev->stats[i].item;

        if (item >= SIM_NR_STATS)
            continue;
        tl->totals[item] += (uint64_t)ev->stats[i].delta;
        if (ev->stats[i].delta)
            blk->stats |= 1ull << item;
    }
    for (i = 0; i < ev->nr_moves; i++)
        if (ev->moves[i].kind == SIM_MOVE_OBJECT)
            bloom_add(blk->objs, ev->moves[i].id);
    used = tl->totals[SIM_ENGINE_PAGES_IN] - tl->totals[SIM_ENGINE_PAGES_OUT];
    if (used > tl->pages_hwm && used <= tl->totals[SIM_ENGINE_PAGES_IN])
        tl->pages_hwm = used;
    tl->nr_events++;
    if (tl->nr_events % tl->interval == 0 && timeline_sample(tl)) {
        tl->nr_events--; /* as if the event never came: the caller stops */
        return -ENOMEM;
    }
    return 0;
}

void timeline_mark(const struct timeline *tl, struct timeline_mark *m)
{
    m->nr_events = tl->nr_events;
    memcpy(m->totals, tl->totals, sizeof(m->totals));
    m->pages_hwm = tl->pages_hwm;
    overview_mark(&tl->ov, &m->ov);
}

void timeline_truncate(struct timeline *tl, const struct timeline_mark *m)
{
    size_t keep = (size_t)(m->nr_events / tl->interval);

    if (tl->nr_samples > keep)
        tl->nr_samples = keep;
    keep = (size_t)((m->nr_events + TIMELINE_BLOCK - 1) / TIMELINE_BLOCK);
    if (tl->nr_blocks > keep)
        tl->nr_blocks = keep; /* the last kept block may hold stale bits: false positives */
    tl->nr_events = m->nr_events;
    memcpy(tl->totals, m->totals, sizeof(tl->totals));
    tl->pages_hwm = m->pages_hwm;
    overview_truncate(&tl->ov, &m->ov);
}

size_t timeline_bytes(const struct timeline *tl)
{
    return tl->cap_pairs * sizeof(*tl->pairs) + tl->nr_pairs * 64 +
           tl->cap_blocks * sizeof(*tl->blocks) + tl->cap_samples * sizeof(*tl->samples) +
           overview_bytes(&tl->ov);
}

bool timeline_query_mask(const struct timeline *tl, const struct timeline_query *q,
                         uint64_t mask[TIMELINE_PAIRS / 64])
{
    bool any = false;
    size_t i;

    memset(mask, 0, TIMELINE_PAIRS / 8);
    for (i = 0; i < tl->nr_pairs; i++) {
        if ((q->fn && strcmp(q->fn, tl->pairs[i].fn) != 0) ||
            (q->label && !str_eq(q->label, tl->pairs[i].label)))
            continue;
        mask[(i % TIMELINE_PAIRS) / 64] |= 1ull << (i % 64);
        any = true;
    }
    return any;
}

bool timeline_block_may_match(const struct timeline *tl, size_t b, const struct timeline_query *q,
                              const uint64_t mask[TIMELINE_PAIRS / 64])
{
    const struct timeline_block *blk;
    bool pair = false;
    unsigned k;

    if (b >= tl->nr_blocks)
        return false;
    blk = &tl->blocks[b];
    for (k = 0; k < TIMELINE_PAIRS / 64; k++)
        pair |= (blk->pairs[k] & mask[k]) != 0;
    if (!pair)
        return false;
    if (q->stat >= 0 && !(blk->stats >> q->stat & 1))
        return false;
    return !q->has_object || bloom_has(blk->objs, q->object);
}

bool timeline_event_matches(const struct sim_event *ev, const struct timeline_query *q)
{
    size_t i;
    bool found;

    if (q->fn && !str_eq(q->fn, ev->fn ? ev->fn : ""))
        return false;
    if (q->label && !str_eq(q->label, ev->label))
        return false;
    if (q->stat >= 0) {
        for (i = 0, found = false; i < ev->nr_stats && !found; i++)
            found = ev->stats[i].item == (unsigned)q->stat && ev->stats[i].delta;
        if (!found)
            return false;
    }
    if (q->has_object) {
        for (i = 0, found = false; i < ev->nr_moves && !found; i++)
            found = ev->moves[i].kind == SIM_MOVE_OBJECT && ev->moves[i].id == q->object;
        if (!found)
            return false;
    }
    return true;
}
