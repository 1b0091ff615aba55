/*
 * name_spans.c: the names objects had over a run (see name_spans.h).
 *
 * The open map hashes an address into a power-of-two array of span indices
 * with linear probing, grown at half load; closing a span removes it by
 * shifting the rest of its probe run back, so it never fills with
 * tombstones however often addresses are reused.
 */
#include "scenario/name_spans.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

void name_spans_release(struct name_spans *ns)
{
    free(ns->packed);
    free(ns->chunks);
    free(ns->v);
    free(ns->text);
    free(ns->open);
    free(ns->closed);
    memset(ns, 0, sizeof(*ns));
}

static size_t addr_hash(sim_addr_t a)
{
    a ^= a >> 33;
    a *= 0xff51afd7ed558ccdull;
    a ^= a >> 33;
    return (size_t)a;
}

/* The slot holding @addr's open span, or the empty slot where it would go. */
static size_t open_slot(const struct name_spans *ns, sim_addr_t addr)
{
    size_t mask = ns->open_cap - 1, i = addr_hash(addr) & mask;

    while (ns->open[i] && ns->v[ns->open[i] - 1].addr != addr)
        i = (i + 1) & mask;
    return i;
}

static int open_grow(struct name_spans *ns)
{
    size_t cap = ns->open_cap ? ns->open_cap * 2 : 64, old_cap = ns->open_cap, i;
    size_t *old = ns->open;

    if (!(ns->open = calloc(cap, sizeof(*ns->open)))) {
        ns->open = old;
        return -ENOMEM;
    }
    ns->open_cap = cap;
    for (i = 0; i < old_cap; i++)
        if (old[i])
            ns->open[open_slot(ns, ns->v[old[i] - 1].addr)] = old[i];
    free(old);
    return 0;
}

/* Take slot @i out of the map, moving later members of its run back. */
static void open_remove(struct name_spans *ns, size_t i)
{
    size_t mask = ns->open_cap - 1, j = i;

    ns->open[i] = 0;
    ns->open_nr--;
    for (;;) {
        size_t home;

        j = (j + 1) & mask;
        if (!ns->open[j])
            return;
        home = addr_hash(ns->v[ns->open[j] - 1].addr) & mask;
        /* move it back unless its home lies cyclically in (i, j] */
        if (i <= j ? (home <= i || home > j) : (home <= i && home > j)) {
            ns->open[i] = ns->open[j];
            ns->open[j] = 0;
            i = j;
        }
    }
}

void name_spans_reuse(struct name_spans *ns, sim_addr_t addr, uint64_t at)
{
    struct name_closed *c;
    size_t i, closed;

    if (!ns->open_nr)
        return;
    i = open_slot(ns, addr);
    if (!ns->open[i])
        return;
    closed = ns->open[i];
    ns->v[closed - 1].to = at;
    open_remove(ns, i);
    if (ns->closed_at != at)
        ns->closed_nr = 0;
    ns->closed_at = at;
    /* without room the next name simply starts a line of its own */
    c = grow_array(ns->closed, &ns->closed_cap, ns->closed_nr + 1, sizeof(*c), 16);
    if (!c)
        return;
    ns->closed = c;
    c[ns->closed_nr++] = (struct name_closed){addr, closed};
}

/* The index + 1 of the span of @addr the operation starting at @at closed, 0 when none. */
static size_t closed_by(const struct name_spans *ns, sim_addr_t addr, uint64_t at)
{
    size_t i;

    if (ns->closed_at != at)
        return 0;
    for (i = ns->closed_nr; i-- > 0;)
        if (ns->closed[i].addr == addr)
            return ns->closed[i].span;
    return 0;
}

int name_spans_bind(struct name_spans *ns, sim_addr_t addr, const char *name, uint64_t at)
{
    size_t len = strlen(name) + 1;
    struct name_span *sp;
    size_t closed;

    sp = grow_array(ns->v, &ns->cap, ns->nr + 1, sizeof(*sp), 64);
    if (!sp)
        return -ENOMEM;
    ns->v = sp;
    if (ns->text_len + len > ns->text_cap) {
        size_t cap = ns->text_cap ? ns->text_cap * 2 : 1024;
        char *t;

        while (cap < ns->text_len + len)
            cap *= 2;
        if (cap > UINT32_MAX || !(t = realloc(ns->text, cap)))
            return -ENOMEM;
        ns->text = t;
        ns->text_cap = cap;
    }
    if ((ns->open_nr + 1) * 2 > ns->open_cap && open_grow(ns))
        return -ENOMEM;
    name_spans_reuse(ns, addr, at); /* an address has one name at a time */
    closed = closed_by(ns, addr, at);
    memcpy(ns->text + ns->text_len, name, len);
    sp = &ns->v[ns->nr++];
    /* spans are at most UINT32_MAX (their names' offsets are 32-bit and each takes a byte) */
    sp->same = closed ? (ns->v[closed - 1].same ? ns->v[closed - 1].same : (uint32_t)closed) : 0;
    sp->from = at;
    sp->to = NAME_SPAN_OPEN;
    sp->addr = addr;
    sp->name = (uint32_t)ns->text_len;
    ns->text_len += len;
    ns->open[open_slot(ns, addr)] = ns->nr;
    ns->open_nr++;
    return 0;
}

void name_spans_rollback(struct name_spans *ns, size_t nr, uint64_t at)
{
    size_t i;

    if (nr >= ns->nr && !ns->open_nr)
        return;
    ns->closed_nr = 0;
    if (nr < ns->nr) {
        ns->text_len = ns->v[nr].name;
        ns->nr = nr;
    }
    /* spans closed since @at are open again; the map is rebuilt from them */
    if (ns->open)
        memset(ns->open, 0, ns->open_cap * sizeof(*ns->open));
    ns->open_nr = 0;
    for (i = 0; i < ns->nr; i++) {
        if (ns->v[i].to != NAME_SPAN_OPEN && ns->v[i].to < at)
            continue;
        ns->v[i].to = NAME_SPAN_OPEN;
        /* the spans open at @at were all in the map then, and it never shrinks */
        ns->open[open_slot(ns, ns->v[i].addr)] = i + 1;
        ns->open_nr++;
    }
}

/* ---- the sealed form ----------------------------------------------------------------- */

/*
 * Reads the sealed form span by span from the start of a chunk.  A span
 * is five varints: from and addr against the span before (addr zigzag),
 * to - from + 1 (0: open), its name's length with the NUL, and @same; when
 * @same is not 0, the offset of the first name after it, which a span
 * read back carries in @same instead (name_span_first()).
 */
struct span_reader {
    const unsigned char *p, *end;
    struct name_span sp; /* the span read last */
    uint32_t same;       /* ... its @same as stored */
    uint64_t from;       /* ... its from, and addr: what the next is written against */
    sim_addr_t addr;
    uint32_t name_end; /* the next span's name offset */
};

static void put_varint(unsigned char **p, uint64_t v)
{
    while (v >= 0x80) {
        *(*p)++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *(*p)++ = (unsigned char)v;
}

static uint64_t get_varint(struct span_reader *r)
{
    uint64_t v = 0;
    unsigned shift = 0;

    while (r->p < r->end && shift < 64) {
        unsigned char b = *r->p++;

        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
        shift += 7;
    }
    return v;
}

/* Start reading at chunk @c. */
static void span_reader_start(const struct name_spans *ns, size_t c, struct span_reader *r)
{
    memset(r, 0, sizeof(*r));
    r->p = ns->packed + ns->chunks[c].at;
    r->end = ns->packed + ns->packed_len;
    r->name_end = ns->chunks[c].name;
}

/* The next span into r->sp. */
static void span_reader_next(struct span_reader *r)
{
    uint64_t to, d;

    r->from += get_varint(r);
    to = get_varint(r);
    d = get_varint(r);
    r->addr += (d & 1) ? ~(d >> 1) : d >> 1; /* zigzag */
    r->sp.from = r->from;
    r->sp.to = to ? r->from + to - 1 : NAME_SPAN_OPEN;
    r->sp.addr = r->addr;
    r->sp.name = r->name_end;
    r->name_end += (uint32_t)get_varint(r);
    r->same = (uint32_t)get_varint(r);
    r->sp.same = r->same ? (uint32_t)get_varint(r) + 1 : 0;
}

int name_spans_seal(struct name_spans *ns)
{
    size_t i, nr_chunks = ns->nr / NAME_SPANS_CHUNK + 1;
    unsigned char *buf, *p;
    struct name_chunk *chunks;
    uint64_t from = 0;
    sim_addr_t addr = 0;

    if (ns->sealed)
        return 0;
    /* at most 10 bytes a varint, six a span */
    if (ns->nr > (SIZE_MAX - 1) / 60)
        return -ENOMEM;
    buf = malloc(ns->nr * 60 + 1);
    chunks = calloc(nr_chunks, sizeof(*chunks));
    if (!buf || !chunks) {
        free(buf);
        free(chunks);
        return -ENOMEM;
    }
    for (i = 0, p = buf; i < ns->nr; i++) {
        const struct name_span *sp = &ns->v[i];
        uint64_t d;

        struct name_chunk *c = &chunks[i / NAME_SPANS_CHUNK];

        if (i % NAME_SPANS_CHUNK == 0) {
            *c = (struct name_chunk){(size_t)(p - buf), 0, sp->name};
            from = 0;
            addr = 0;
        }
        if (sp->to > c->max_to)
            c->max_to = sp->to;
        put_varint(&p, sp->from - from);
        put_varint(&p, sp->to == NAME_SPAN_OPEN ? 0 : sp->to - sp->from + 1);
        d = sp->addr - addr;
        put_varint(&p, (d >> 63) ? ((~d) << 1) | 1 : d << 1);
        put_varint(&p, strlen(ns->text + sp->name) + 1);
        put_varint(&p, sp->same);
        if (sp->same)
            put_varint(&p, ns->v[sp->same - 1].name);
        from = sp->from;
        addr = sp->addr;
    }
    if (ns->nr % NAME_SPANS_CHUNK == 0)
        chunks[ns->nr / NAME_SPANS_CHUNK] = (struct name_chunk){(size_t)(p - buf), 0,
                                                                (uint32_t)ns->text_len};
    ns->packed_len = (size_t)(p - buf);
    ns->packed = realloc(buf, ns->packed_len + 1);
    if (!ns->packed)
        ns->packed = buf;
    ns->chunks = chunks;
    if (ns->text_len && ns->text_cap > ns->text_len) {
        char *t = realloc(ns->text, ns->text_len);

        if (t) {
            ns->text = t;
            ns->text_cap = ns->text_len;
        }
    }
    free(ns->v);
    free(ns->open);
    free(ns->closed);
    ns->v = NULL;
    ns->open = NULL;
    ns->closed = NULL;
    ns->cap = ns->open_cap = ns->open_nr = ns->closed_nr = ns->closed_cap = 0;
    ns->sealed = true;
    return 0;
}

int name_spans_unseal(struct name_spans *ns)
{
    struct span_reader r;
    size_t i, open = 0, cap = 64;
    struct name_span *v;

    if (!ns->sealed)
        return 0;
    if (!(v = malloc((ns->nr ? ns->nr : 1) * sizeof(*v))))
        return -ENOMEM;
    for (i = 0; i < ns->nr; i++) {
        if (i % NAME_SPANS_CHUNK == 0)
            span_reader_start(ns, i / NAME_SPANS_CHUNK, &r);
        span_reader_next(&r);
        v[i] = r.sp;
        v[i].same = r.same;
        open += r.sp.to == NAME_SPAN_OPEN;
    }
    while ((open + 1) * 2 > cap)
        cap *= 2;
    if (!(ns->open = calloc(cap, sizeof(*ns->open)))) {
        free(v);
        return -ENOMEM;
    }
    ns->open_cap = cap;
    ns->v = v;
    ns->cap = ns->nr;
    for (i = 0; i < ns->nr; i++)
        if (v[i].to == NAME_SPAN_OPEN) {
            ns->open[open_slot(ns, v[i].addr)] = i + 1;
            ns->open_nr++;
        }
    free(ns->packed);
    free(ns->chunks);
    ns->packed = NULL;
    ns->chunks = NULL;
    ns->packed_len = 0;
    ns->sealed = false;
    return 0;
}

const char *name_span_first(const struct name_spans *ns, const struct name_span *sp)
{
    if (!sp->same)
        return NULL;
    /* a span read from the sealed form carries its first name's offset + 1 */
    return ns->text + (ns->sealed ? sp->same - 1 : ns->v[sp->same - 1].name);
}

/* name_spans_at() of the sealed form. */
static size_t name_spans_at_sealed(const struct name_spans *ns, uint64_t at, size_t max,
                                   void (*fn)(const struct name_span *sp, void *arg), void *arg)
{
    struct span_reader r;
    size_t i, n = 0;

    for (i = 0; i < ns->nr; i++) {
        if (i % NAME_SPANS_CHUNK == 0) {
            if (ns->chunks[i / NAME_SPANS_CHUNK].max_to < at) {
                i += NAME_SPANS_CHUNK - 1; /* none of it shows */
                continue;
            }
            span_reader_start(ns, i / NAME_SPANS_CHUNK, &r);
        }
        span_reader_next(&r);
        if (r.sp.from >= at)
            break; /* sorted by from: no later one shows */
        if (r.sp.to < at)
            continue;
        if (n++ < max)
            fn(&r.sp, arg);
    }
    return n;
}

size_t name_spans_at(const struct name_spans *ns, uint64_t at, size_t max,
                     void (*fn)(const struct name_span *sp, void *arg), void *arg)
{
    size_t lo = 0, hi = ns->nr, i, n = 0;

    if (ns->sealed)
        return name_spans_at_sealed(ns, at, max, fn, arg);

    /* spans are sorted by from: only those before the first with from >= at can show */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (ns->v[mid].from < at)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (i = 0; i < lo; i++) {
        if (ns->v[i].to < at)
            continue;
        if (n++ < max)
            fn(&ns->v[i], arg);
    }
    return n;
}

uint64_t name_spans_bytes(const struct name_spans *ns)
{
    return ns->cap * sizeof(*ns->v) + ns->text_cap + ns->open_cap * sizeof(*ns->open) +
           ns->closed_cap * sizeof(*ns->closed) + ns->packed_len +
           (ns->sealed ? (ns->nr / NAME_SPANS_CHUNK + 1) * sizeof(*ns->chunks) : 0);
}
