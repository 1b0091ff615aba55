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

size_t name_spans_at(const struct name_spans *ns, uint64_t at, size_t max,
                     void (*fn)(const struct name_span *sp, void *arg), void *arg)
{
    size_t lo = 0, hi = ns->nr, i, n = 0;

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
           ns->closed_cap * sizeof(*ns->closed);
}
