/*
 * timeline.c: counter samples and block summaries of a session's events
 * (see timeline.h).
 *
 * The hot path is timeline_event(), called once per engine event during a
 * session's forward run; it does no allocation except when a block or the
 * sample array grows (amortized), and finds the event's (fn, label) pair id
 * through a table keyed by the names' addresses before falling back to a
 * linear search of the few dozen pairs the engine has.
 */
#include "session/timeline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/strbuf.h"
#include "session/bytes.h"

void timeline_init(struct timeline *tl)
{
    memset(tl, 0, sizeof(*tl));
    tl->interval = 1;
    for (size_t i = 0; i < TIMELINE_PAIR_HINTS; i++)
        tl->hint[i].id = SIZE_MAX;
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
    free(tl->packed);
    timeline_init(tl);
}

/* What the timeline holds is about to change: its packed form is stale. */
static void timeline_changed(struct timeline *tl)
{
    free(tl->packed);
    tl->packed = NULL;
    tl->packed_len = 0;
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
    uint64_t h =
            ((uint64_t)(uintptr_t)fn ^ ((uint64_t)(uintptr_t)label >> 3)) * 0x9e3779b97f4a7c15ull;
    size_t slot = (size_t)(h >> 58) & (TIMELINE_PAIR_HINTS - 1);
    struct timeline_pair *p;
    size_t i;

    if (tl->hint[slot].id != SIZE_MAX && fn == tl->hint[slot].fn && label == tl->hint[slot].label)
        return tl->hint[slot].id;
    for (i = 0; i < tl->nr_pairs; i++)
        if (str_eq(tl->pairs[i].fn, fn) && str_eq(tl->pairs[i].label, label))
            goto found;
    p = grow_array(tl->pairs, &tl->cap_pairs, tl->nr_pairs + 1, sizeof(*p), 32);
    if (!p)
        return SIZE_MAX;
    tl->pairs = p;
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
    tl->hint[slot].fn = fn;
    tl->hint[slot].label = label;
    tl->hint[slot].id = i;
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
    uint64_t(*s)[SIM_NR_STATS];
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
    s = grow_array(tl->samples, &tl->cap_samples, tl->nr_samples + 1, sizeof(*s), 64);
    if (!s)
        return -ENOMEM;
    tl->samples = s;
    memcpy(tl->samples[tl->nr_samples++], tl->totals, sizeof(tl->totals));
    return 0;
}

int timeline_event(struct timeline *tl, const struct sim_event *ev)
{
    size_t b = (size_t)(tl->nr_events / TIMELINE_BLOCK), id, i;
    struct timeline_block *blk;
    uint64_t used;

    if (tl->cold && timeline_unpack(tl))
        return -ENOMEM;
    if (tl->packed)
        timeline_changed(tl);
    blk = grow_array(tl->blocks, &tl->cap_blocks, b + 1, sizeof(*blk), 16);
    if (!blk)
        return -ENOMEM;
    tl->blocks = blk;
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

    if (tl->cold)
        return; /* no event came since the mark (an event unpacks) */
    if (m->nr_events != tl->nr_events)
        timeline_changed(tl);

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
           overview_bytes(&tl->ov) + tl->packed_len;
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

/* ---- serialized form ---------------------------------------------------------- */

#define TIMELINE_MAGIC 0x31544c42554c53ull /* "SLUBLT1" */

int timeline_save(const struct timeline *tl, unsigned char **out, size_t *len)
{
    struct strbuf w = STRBUF_INIT;
    unsigned char *ov = NULL;
    size_t ov_len = 0, i;

    if (tl->cold) /* the packed form is this form: no event came since */
        return bytes_unpack(tl->packed, tl->packed_len, out, len) ? -ENOMEM : 0;
    if (overview_save(&tl->ov, &ov, &ov_len))
        return -ENOMEM;
    bytes_put_u64(&w, TIMELINE_MAGIC);
    bytes_put_u64(&w, SIM_NR_STATS);
    bytes_put_u64(&w, tl->nr_events);
    bytes_put(&w, tl->totals, sizeof(tl->totals));
    bytes_put_u64(&w, tl->pages_hwm);
    bytes_put_u64(&w, tl->nr_pairs);
    for (i = 0; i < tl->nr_pairs; i++) {
        bytes_put_str(&w, tl->pairs[i].fn);
        bytes_put_str(&w, tl->pairs[i].label);
    }
    bytes_put_u64(&w, tl->nr_blocks);
    bytes_put(&w, tl->blocks, tl->nr_blocks * sizeof(*tl->blocks));
    bytes_put_u64(&w, tl->interval);
    bytes_put_u64(&w, tl->nr_samples);
    bytes_put(&w, tl->samples, tl->nr_samples * sizeof(*tl->samples));
    bytes_put_u64(&w, ov_len);
    bytes_put(&w, ov, ov_len);
    free(ov);
    return strbuf_detach_bytes(&w, out, len);
}

/* Room for @n elements of @size bytes in *p (capacity *cap).  0 or -ENOMEM. */
static int tl_reserve(void **p, size_t *cap, size_t n, size_t size)
{
    void *q;

    if (n <= *cap)
        return 0;
    if (!(q = realloc(*p, n * size)))
        return -ENOMEM;
    *p = q;
    *cap = n;
    return 0;
}

/* Read @n elements of @size into *@p, grown to at least one.  0, -EINVAL or -ENOMEM. */
static int tl_get_array(struct bytes_reader *r, void **p, size_t *cap, size_t n, size_t size)
{
    const void *src = bytes_get(r, n * size);

    if (!src)
        return -EINVAL;
    if (tl_reserve(p, cap, n ? n : 1, size))
        return -ENOMEM;
    memcpy(*p, src, n * size);
    return 0;
}

int timeline_load(struct timeline *tl, const unsigned char *data, size_t len)
{
    struct bytes_reader r = {data, len, 0, false};
    const void *blk, *ov;
    uint64_t n, ov_len;
    size_t i;
    int ret = -EINVAL;

    timeline_release(tl);
    if (bytes_get_u64(&r) != TIMELINE_MAGIC || bytes_get_u64(&r) != SIM_NR_STATS)
        return -EINVAL;
    tl->nr_events = bytes_get_u64(&r);
    if ((blk = bytes_get(&r, sizeof(tl->totals))))
        memcpy(tl->totals, blk, sizeof(tl->totals));
    tl->pages_hwm = bytes_get_u64(&r);
    n = bytes_get_u64(&r);
    if (r.bad || n > len)
        goto err_release;
    if (tl_reserve((void **)&tl->pairs, &tl->cap_pairs, (size_t)n, sizeof(*tl->pairs))) {
        ret = -ENOMEM;
        goto err_release;
    }
    for (i = 0; i < n; i++) {
        struct timeline_pair *pr = &tl->pairs[i];

        if ((ret = bytes_get_str(&r, &pr->fn)) || (ret = bytes_get_str(&r, &pr->label)) ||
            !pr->fn) {
            free(pr->fn);
            free(pr->label);
            ret = ret ? ret : -EINVAL;
            goto err_release;
        }
        tl->nr_pairs++;
    }
    ret = -EINVAL;
    n = bytes_get_u64(&r);
    if (r.bad || n > len / sizeof(*tl->blocks) ||
        (ret = tl_get_array(&r, (void **)&tl->blocks, &tl->cap_blocks, (size_t)n,
                            sizeof(*tl->blocks))))
        goto err_release;
    tl->nr_blocks = (size_t)n;
    ret = -EINVAL;
    tl->interval = bytes_get_u64(&r);
    n = bytes_get_u64(&r);
    if (r.bad || !tl->interval || n > TIMELINE_SAMPLES ||
        (ret = tl_get_array(&r, (void **)&tl->samples, &tl->cap_samples, (size_t)n,
                            sizeof(*tl->samples))))
        goto err_release;
    tl->nr_samples = (size_t)n;
    ret = -EINVAL;
    ov_len = bytes_get_u64(&r);
    if (r.bad || !(ov = bytes_get(&r, (size_t)ov_len)) || r.at != len)
        goto err_release;
    if ((ret = overview_load(&tl->ov, ov, (size_t)ov_len)))
        goto err_release;
    return 0;

err_release:
    timeline_release(tl);
    return ret;
}

/* ---- packed ------------------------------------------------------------------------ */

int timeline_pack(struct timeline *tl)
{
    unsigned char *raw = NULL;
    size_t len = 0;
    int ret;

    if (tl->cold)
        return 0;
    if (!tl->packed) {
        if ((ret = timeline_save(tl, &raw, &len)))
            return ret;
        ret = bytes_pack(raw, len, &tl->packed, &tl->packed_len);
        free(raw);
        if (ret)
            return ret;
    }
    free(tl->samples);
    tl->samples = NULL;
    tl->cap_samples = 0;
    overview_release(&tl->ov);
    tl->cold = true;
    return 0;
}

/* The timeline @tl's packed form is of, into @t (initialized).  0, -ENOMEM or -EIO. */
static int timeline_load_packed(const struct timeline *tl, struct timeline *t)
{
    unsigned char *raw = NULL;
    size_t len = 0;
    int ret;

    if ((ret = bytes_unpack(tl->packed, tl->packed_len, &raw, &len)))
        return ret;
    ret = timeline_load(t, raw, len);
    free(raw);
    return ret == -EINVAL ? -EIO : ret;
}

int timeline_unpack(struct timeline *tl)
{
    struct timeline t;
    int ret;

    if (!tl->cold)
        return 0;
    timeline_init(&t);
    if ((ret = timeline_load_packed(tl, &t)))
        return ret;
    tl->samples = t.samples;
    tl->cap_samples = t.cap_samples;
    t.samples = NULL;
    t.cap_samples = 0;
    tl->ov = t.ov;
    overview_init(&t.ov);
    timeline_release(&t);
    tl->cold = false;
    return 0;
}

int timeline_view(const struct timeline *tl, struct timeline *tmp, const struct timeline **out)
{
    int ret;

    *out = tl;
    if (!tl->cold)
        return 0;
    if ((ret = timeline_load_packed(tl, tmp)))
        return ret;
    *out = tmp;
    return 0;
}

int timeline_overview_save(const struct timeline *tl, unsigned char **out, size_t *len)
{
    const struct timeline *v;
    struct timeline t;
    int ret;

    timeline_init(&t);
    if (!(ret = timeline_view(tl, &t, &v)))
        ret = overview_save(&v->ov, out, len);
    timeline_release(&t);
    return ret ? -ENOMEM : 0;
}
