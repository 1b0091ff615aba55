/*
 * overview.c: a session's counters at several resolutions (see overview.h).
 *
 * overview_event() runs once per engine event of the forward run, beside
 * timeline_event(): it adds the event's counter deltas to the open bucket
 * of every level, and allocates only when a level grows (amortized).  The
 * serialized form is a header and the levels' buckets as LEB128 varints,
 * each bucket's counter sums behind a bit mask of the nonzero ones: a run's
 * overview costs a few hundred KiB in the store at most.
 */
#include "session/overview.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/strbuf.h"

_Static_assert(SIM_NR_STATS <= 64, "a bucket's nonzero sums are a 64-bit mask");

static const unsigned char overview_magic[4] = {'S', 'L', 'O', 'V'};

void overview_init(struct overview *ov)
{
    memset(ov, 0, sizeof(*ov));
    ov->base = 1;
}

void overview_release(struct overview *ov)
{
    unsigned l;

    if (!ov)
        return;
    for (l = 0; l < OVERVIEW_LEVELS; l++)
        free(ov->lv[l].b);
    overview_init(ov);
}

static uint64_t overview_width(const struct overview *ov, unsigned l)
{
    return ov->base << (2 * l);
}

/* Room for bucket @i in level @lv, zeroed when new.  0 or -ENOMEM. */
static int overview_reserve(struct overview_level *lv, size_t i)
{
    struct overview_bucket *b = grow_array(lv->b, &lv->cap, i + 1, sizeof(*b), 16);

    if (!b)
        return -ENOMEM;
    lv->b = b;
    while (lv->nr <= i)
        memset(&lv->b[lv->nr++], 0, sizeof(*lv->b));
    return 0;
}

/* Add bucket @src into @dst. */
static void bucket_merge(struct overview_bucket *dst, const struct overview_bucket *src)
{
    unsigned k;

    if (!src->events)
        return;
    for (k = 0; k < SIM_NR_STATS; k++)
        dst->sums[k] += src->sums[k];
    if (!dst->events || src->pages_min < dst->pages_min)
        dst->pages_min = src->pages_min;
    if (!dst->events || src->pages_max > dst->pages_max)
        dst->pages_max = src->pages_max;
    dst->pages_sum += src->pages_sum;
    dst->events += src->events;
}

/* Bucket @i of a level made from @lower (4x finer): its buckets 4i..4i+3. */
static void bucket_from_lower(const struct overview_level *lower, size_t i,
                              struct overview_bucket *out)
{
    size_t j;

    memset(out, 0, sizeof(*out));
    for (j = 4 * i; j < 4 * i + 4 && j < lower->nr; j++)
        bucket_merge(out, &lower->b[j]);
}

/* Drop level 0 and make a new coarsest level from the old one.  0 or -ENOMEM. */
static int overview_coarsen(struct overview *ov)
{
    const struct overview_level *top = &ov->lv[OVERVIEW_LEVELS - 1];
    struct overview_level fresh = {NULL, 0, 0};
    size_t n = (top->nr + 3) / 4, i;

    if (n && overview_reserve(&fresh, n - 1))
        return -ENOMEM;
    for (i = 0; i < n; i++)
        bucket_from_lower(top, i, &fresh.b[i]);
    free(ov->lv[0].b);
    memmove(&ov->lv[0], &ov->lv[1], (OVERVIEW_LEVELS - 1) * sizeof(ov->lv[0]));
    ov->lv[OVERVIEW_LEVELS - 1] = fresh;
    ov->base *= 4;
    return 0;
}

static uint64_t overview_pages(const uint64_t *totals)
{
    uint64_t in = totals[SIM_ENGINE_PAGES_IN], out = totals[SIM_ENGINE_PAGES_OUT];

    return out < in ? in - out : 0;
}

int overview_event(struct overview *ov, const struct sim_event *ev)
{
    uint64_t seq = ov->nr_events, pages;
    size_t at[OVERVIEW_LEVELS]; /* the event's bucket in each level */
    unsigned l, shift;
    bool pow2;
    size_t i;

    if (seq / ov->base >= OVERVIEW_BUCKETS && overview_coarsen(ov))
        return -ENOMEM;
    /* the widths are powers of 4 (base *= 4): shifts, not divisions, per event */
    pow2 = !(ov->base & (ov->base - 1));
    shift = pow2 ? (unsigned)__builtin_ctzll(ov->base) : 0;
    for (l = 0; l < OVERVIEW_LEVELS; l++) {
        at[l] = (size_t)(pow2 ? seq >> (shift + 2 * l) : seq / overview_width(ov, l));
        if (at[l] >= ov->lv[l].nr && overview_reserve(&ov->lv[l], at[l]))
            return -ENOMEM;
    }
    for (i = 0; i < ev->nr_stats; i++)
        if (ev->stats[i].item < SIM_NR_STATS)
            ov->totals[ev->stats[i].item] += (uint64_t)ev->stats[i].delta;
    pages = overview_pages(ov->totals);
    for (l = 0; l < OVERVIEW_LEVELS; l++) {
        struct overview_bucket *b = &ov->lv[l].b[at[l]];

        for (i = 0; i < ev->nr_stats; i++)
            if (ev->stats[i].item < SIM_NR_STATS)
                b->sums[ev->stats[i].item] += (uint64_t)ev->stats[i].delta;
        if (!b->events || pages < b->pages_min)
            b->pages_min = pages;
        if (!b->events || pages > b->pages_max)
            b->pages_max = pages;
        b->pages_sum += pages;
        b->events++;
    }
    ov->pages = pages;
    ov->nr_events++;
    return 0;
}

void overview_mark(const struct overview *ov, struct overview_mark *m)
{
    unsigned l;

    memset(m, 0, sizeof(*m));
    m->nr_events = ov->nr_events;
    m->base = ov->base;
    m->pages = ov->pages;
    memcpy(m->totals, ov->totals, sizeof(m->totals));
    for (l = 0; l < OVERVIEW_LEVELS; l++) {
        uint64_t w = overview_width(ov, l);

        if (ov->nr_events % w)
            m->open[l] = ov->lv[l].b[ov->nr_events / w];
    }
}

void overview_truncate(struct overview *ov, const struct overview_mark *m)
{
    unsigned l, k;

    for (l = 0; l < OVERVIEW_LEVELS; l++) {
        struct overview_level *lv = &ov->lv[l];
        uint64_t w = overview_width(ov, l);
        size_t keep = (size_t)((m->nr_events + w - 1) / w);

        if (lv->nr > keep)
            lv->nr = keep;
        if (!(m->nr_events % w) || !keep)
            continue;
        /* the open bucket as it was: saved by the mark, or made again from
         * the level below when this level came after the mark */
        for (k = 0; k < OVERVIEW_LEVELS && (m->base << (2 * k)) != w; k++)
            ;
        if (k < OVERVIEW_LEVELS)
            lv->b[keep - 1] = m->open[k];
        else if (l > 0)
            bucket_from_lower(&ov->lv[l - 1], keep - 1, &lv->b[keep - 1]);
    }
    ov->nr_events = m->nr_events;
    ov->pages = m->pages;
    memcpy(ov->totals, m->totals, sizeof(ov->totals));
}

size_t overview_bytes(const struct overview *ov)
{
    size_t n = 0;
    unsigned l;

    for (l = 0; l < OVERVIEW_LEVELS; l++)
        n += ov->lv[l].cap * sizeof(struct overview_bucket);
    return n;
}

int overview_query(const struct overview *ov, uint64_t from, uint64_t to, unsigned buckets,
                   struct overview_answer *out)
{
    uint64_t w = 1, f = 0, t = 0, count = 0, merge = 1, g;
    unsigned l;
    size_t i;

    memset(out, 0, sizeof(*out));
    if (!buckets)
        return -EINVAL;
    if (to > ov->nr_events)
        to = ov->nr_events;
    if (from > to)
        from = to;
    for (l = 0; l < OVERVIEW_LEVELS; l++) {
        w = overview_width(ov, l);
        f = from / w * w;
        t = to == from ? f : (to + w - 1) / w * w;
        count = (t - f) / w;
        if (count <= buckets)
            break;
    }
    if (l == OVERVIEW_LEVELS) {
        l = OVERVIEW_LEVELS - 1;
        merge = (count + buckets - 1) / buckets;
        f = from / (w * merge) * (w * merge);
        count = (t - f + w * merge - 1) / (w * merge);
    }
    out->from = f;
    out->to = t < ov->nr_events ? t : ov->nr_events;
    out->width = w * merge;
    out->nr_events = ov->nr_events;
    out->level = l;
    out->merge = (unsigned)merge;
    if (!count)
        return 0;
    if (!(out->b = calloc((size_t)count, sizeof(*out->b))))
        return -ENOMEM;
    out->nr = (size_t)count;
    for (g = 0; g < count; g++) {
        size_t first = (size_t)(f / w + g * merge);

        for (i = first; i < first + merge && i < ov->lv[l].nr; i++)
            bucket_merge(&out->b[g], &ov->lv[l].b[i]);
    }
    return 0;
}

/* ---- the serialized form ------------------------------------------------------ */

/* @v as a varint: 7 bits a byte, low first, the top bit set on all but the last. */
static void put_u64(struct strbuf *w, uint64_t v)
{
    unsigned char b[10];
    size_t n = 0;

    do {
        unsigned char byte = (unsigned char)(v & 0x7f);

        v >>= 7;
        b[n++] = (unsigned char)(byte | (v ? 0x80 : 0));
    } while (v);
    strbuf_append(w, (const char *)b, n);
}

int overview_save(const struct overview *ov, unsigned char **out, size_t *len)
{
    struct strbuf w = STRBUF_INIT;
    unsigned l, k;
    size_t i;

    for (k = 0; k < sizeof(overview_magic); k++)
        put_u64(&w, overview_magic[k]);
    put_u64(&w, OVERVIEW_VERSION);
    put_u64(&w, SIM_NR_STATS);
    put_u64(&w, OVERVIEW_LEVELS);
    put_u64(&w, ov->nr_events);
    put_u64(&w, ov->base);
    put_u64(&w, ov->pages);
    for (k = 0; k < SIM_NR_STATS; k++)
        put_u64(&w, ov->totals[k]);
    for (l = 0; l < OVERVIEW_LEVELS; l++) {
        put_u64(&w, ov->lv[l].nr);
        for (i = 0; i < ov->lv[l].nr; i++) {
            const struct overview_bucket *b = &ov->lv[l].b[i];
            uint64_t mask = 0;

            for (k = 0; k < SIM_NR_STATS; k++)
                if (b->sums[k])
                    mask |= 1ull << k;
            put_u64(&w, b->events);
            put_u64(&w, mask);
            for (k = 0; k < SIM_NR_STATS; k++)
                if (b->sums[k])
                    put_u64(&w, b->sums[k]);
            put_u64(&w, b->pages_min);
            put_u64(&w, b->pages_max);
            put_u64(&w, b->pages_sum);
        }
    }
    return strbuf_detach_bytes(&w, out, len);
}

struct rbuf {
    const unsigned char *p;
    size_t len, off;
    bool bad;
};

static uint64_t get_u64(struct rbuf *r)
{
    uint64_t v = 0;
    unsigned shift = 0;

    while (!r->bad) {
        unsigned char byte;

        if (r->off == r->len || shift > 63) {
            r->bad = true;
            break;
        }
        byte = r->p[r->off++];
        v |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80))
            return v;
        shift += 7;
    }
    return 0;
}

int overview_load(struct overview *ov, const unsigned char *data, size_t len)
{
    struct rbuf r = {data, len, 0, false};
    unsigned l, k;
    uint64_t n;
    size_t i;

    for (k = 0; k < sizeof(overview_magic); k++)
        if (get_u64(&r) != overview_magic[k])
            return -EINVAL;
    if (get_u64(&r) != OVERVIEW_VERSION || get_u64(&r) != SIM_NR_STATS ||
        get_u64(&r) != OVERVIEW_LEVELS)
        return -EINVAL;
    ov->nr_events = get_u64(&r);
    ov->base = get_u64(&r);
    ov->pages = get_u64(&r);
    for (k = 0; k < SIM_NR_STATS; k++)
        ov->totals[k] = get_u64(&r);
    if (r.bad || !ov->base || (ov->base & (ov->base - 1)) || ov->base > (1ull << 40))
        goto bad;
    for (l = 0; l < OVERVIEW_LEVELS; l++) {
        n = get_u64(&r);
        if (r.bad || n > OVERVIEW_BUCKETS ||
            n != (ov->nr_events + overview_width(ov, l) - 1) / overview_width(ov, l))
            goto bad;
        if (n && overview_reserve(&ov->lv[l], (size_t)n - 1)) {
            overview_release(ov);
            return -ENOMEM;
        }
        for (i = 0; i < n; i++) {
            struct overview_bucket *b = &ov->lv[l].b[i];
            uint64_t mask;

            b->events = get_u64(&r);
            mask = get_u64(&r);
            for (k = 0; k < SIM_NR_STATS; k++)
                b->sums[k] = mask >> k & 1 ? get_u64(&r) : 0;
            b->pages_min = get_u64(&r);
            b->pages_max = get_u64(&r);
            b->pages_sum = get_u64(&r);
        }
    }
    if (r.bad || r.off != r.len)
        goto bad;
    return 0;
bad:
    overview_release(ov);
    return -EINVAL;
}
