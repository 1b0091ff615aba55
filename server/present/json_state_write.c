/*
 * json_state_write.c: the state as JSON text written straight into a
 * buffer (see json_state.h), for the server's answers.
 *
 * json_snapshot() builds a cJSON tree, which costs a host allocation per
 * key and value and a printf per number: at a few hundred thousand live
 * objects that was most of a seek's time.  These writers append the same
 * bytes as cJSON_PrintUnformatted(json_snapshot(snap)) would print, key
 * for key (tests/server/test_state_write.c renders every position of the
 * shipped scenarios both ways), with numbers formatted by hand.  Integers
 * print as plain digits (as json_uint() and json_int() make cJSON print
 * them); strings are escaped as cJSON's print_string_ptr() escapes them.
 *
 * A big state is bounded (json_state_limit): past the limit the caches,
 * zones and counters stay, while slabs, sheaves and the kfree_rcu queue
 * move to pages of one cache each (json_state_write_page()), and a
 * "paged" object says so (docs/events.md, "Paged states").  Every writer
 * returns false once the buffer ran out of host memory.
 */
#include "present/json_state.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/metric.h"

/* ---- the writer ------------------------------------------------------------------ */

/* Text goes to a buffer on the stack first and into the strbuf in big
 * pieces: most appends are a few bytes. */
struct jw {
    struct strbuf *out;
    size_t n; /* bytes in buf */
    char buf[8192];
};

static bool jw_flush(struct jw *w)
{
    bool ok = strbuf_append(w->out, w->buf, w->n);

    w->n = 0;
    return ok;
}

static bool jw_append(struct jw *w, const char *data, size_t len)
{
    if (len > sizeof(w->buf) - w->n) {
        if (!jw_flush(w))
            return false;
        if (len > sizeof(w->buf))
            return strbuf_append(w->out, data, len);
    }
    memcpy(w->buf + w->n, data, len);
    w->n += len;
    return true;
}

/* ---- scalars ------------------------------------------------------------------- */

static bool put(struct jw *sb, const char *s)
{
    return jw_append(sb, s, strlen(s));
}

static bool put_u64(struct jw *sb, uint64_t v)
{
    char buf[24], *p = buf + sizeof(buf);

    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return jw_append(sb, p, (size_t)(buf + sizeof(buf) - p));
}

static bool put_i64(struct jw *sb, int64_t v)
{
    if (v >= 0)
        return put_u64(sb, (uint64_t)v);
    return jw_append(sb, "-", 1) && put_u64(sb, (uint64_t)0 - (uint64_t)v);
}

/* "0x..." in lowercase hex without leading zeros, as json_hex(). */
static bool put_hex(struct jw *sb, uint64_t v)
{
    static const char digits[] = "0123456789abcdef";
    char buf[24], *p = buf + sizeof(buf);

    *--p = '"';
    do {
        *--p = digits[v & 15];
        v >>= 4;
    } while (v);
    *--p = 'x';
    *--p = '0';
    *--p = '"';
    return jw_append(sb, p, (size_t)(buf + sizeof(buf) - p));
}

/* A JSON string escaped as cJSON 1.7 escapes it, or null for NULL. */
static bool put_str(struct jw *sb, const char *s)
{
    static const char digits[] = "0123456789abcdef";
    const char *run;

    if (!s)
        return put(sb, "null");
    if (!jw_append(sb, "\"", 1))
        return false;
    for (run = s; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char esc[7] = {'\\', 0, 0, 0, 0, 0, 0};
        size_t n = 2;

        if (c >= 32 && c != '"' && c != '\\')
            continue;
        switch (c) {
        case '"':
        case '\\':
            esc[1] = (char)c;
            break;
        case '\b':
            esc[1] = 'b';
            break;
        case '\f':
            esc[1] = 'f';
            break;
        case '\n':
            esc[1] = 'n';
            break;
        case '\r':
            esc[1] = 'r';
            break;
        case '\t':
            esc[1] = 't';
            break;
        default:
            memcpy(esc + 1, "u00", 3);
            esc[4] = digits[c >> 4];
            esc[5] = digits[c & 15];
            n = 6;
        }
        if (!jw_append(sb, run, (size_t)(s - run)) || !jw_append(sb, esc, n))
            return false;
        run = s + 1;
    }
    return jw_append(sb, run, (size_t)(s - run)) && jw_append(sb, "\"", 1);
}

/* ",\"key\":" or "\"key\":" for the first key; keys here need no escaping. */
static bool key(struct jw *sb, const char *k, bool first)
{
    return (first || jw_append(sb, ",", 1)) && jw_append(sb, "\"", 1) && put(sb, k) &&
           jw_append(sb, "\":", 2);
}

/* ---- pieces, in json_state.c's order --------------------------------------------- */

static bool put_place(struct jw *sb, const struct sim_place *pl)
{
    const char *type = sim_place_name(pl->type);

    return put(sb, "{\"type\":") && put_str(sb, type ? type : "?") &&
           (pl->cpu < 0 || (key(sb, "cpu", false) && put_i64(sb, pl->cpu))) &&
           (pl->node < 0 || (key(sb, "node", false) && put_i64(sb, pl->node))) &&
           (pl->slot < 0 || (key(sb, "slot", false) && put_i64(sb, pl->slot))) &&
           (!pl->slab || (key(sb, "slab", false) && put_hex(sb, pl->slab))) &&
           (!pl->sheaf || (key(sb, "sheaf", false) && put_u64(sb, pl->sheaf))) && put(sb, "}");
}

static bool put_flags(struct jw *sb, uint32_t flags)
{
    bool first = true;
    unsigned bit;

    if (!put(sb, "["))
        return false;
    for (bit = 0; bit < 32; bit++) {
        uint32_t f = 1u << bit;
        const char *name;

        if (!(flags & f))
            continue;
        name = sim_flag_name(f);
        if ((!first && !put(sb, ",")) || !(name ? put_str(sb, name) : put_hex(sb, f)))
            return false;
        first = false;
    }
    return put(sb, "]");
}

static bool put_stats(struct jw *sb, const struct sim_snap_stats *st)
{
    bool first = true;
    char buf[32];
    unsigned i;

    if (!put(sb, "{"))
        return false;
    for (i = 0; i < SIM_NR_STATS; i++) {
        if (!st->v[i])
            continue;
        if ((!first && !put(sb, ",")) || !put_str(sb, json_stat_name(i, buf, sizeof(buf))) ||
            !put(sb, ":") || !put_u64(sb, st->v[i]))
            return false;
        first = false;
    }
    return put(sb, "}");
}

/* @n addresses of snap->objs from @first, as json_objs(). */
static bool put_objs(struct jw *sb, const struct sim_snapshot *snap, size_t first, size_t n)
{
    size_t i;

    if (!put(sb, "["))
        return false;
    for (i = 0; i < n && first + i < snap->nr_objs; i++)
        if ((i && !put(sb, ",")) || !put_hex(sb, snap->objs[first + i]))
            return false;
    return put(sb, "]");
}

static bool put_addrs(struct jw *sb, const sim_addr_t *v, size_t n)
{
    size_t i;

    if (!put(sb, "["))
        return false;
    for (i = 0; i < n; i++)
        if ((i && !put(sb, ",")) || !put_hex(sb, v[i]))
            return false;
    return put(sb, "]");
}

static bool put_cpu_sheaf(struct jw *sb, const struct sim_snapshot *snap, uint32_t id)
{
    const struct sim_snap_sheaf *sh = id ? json_find_sheaf(snap, id) : NULL;

    if (!id)
        return put(sb, "null");
    return put(sb, "{\"id\":") && put_u64(sb, id) &&
           (!sh || (key(sb, "size", false) && put_u64(sb, sh->size) && key(sb, "capacity", false) &&
                    put_u64(sb, sh->capacity))) &&
           put(sb, "}");
}

/* The cache @cache's slabs: snap->slabs[*first ...], as many as returned
 * (slabs are sorted by cache, slub.h). */
static size_t cache_slabs(const struct sim_snapshot *snap, int cache, size_t *first)
{
    size_t i = 0, n = 0;

    while (i < snap->nr_slabs && snap->slabs[i].cache != cache)
        i++;
    while (i + n < snap->nr_slabs && snap->slabs[i + n].cache == cache)
        n++;
    *first = i;
    return n;
}

/* Legacy model: as json_cpu_slab(); the CPU partial list in slot order,
 * looked for among the cache's @nr slabs from @from. */
static bool put_cpu_slab(struct jw *sb, const struct sim_snapshot *snap,
                         const struct sim_snap_cache *c, unsigned cpu, size_t from, size_t nr)
{
    const struct sim_snap_cpu_slab *cs = &c->cpu_slab[cpu];
    bool first = true;
    unsigned pos;
    size_t i;

    if (!put(sb, "{\"slab\":") || !(cs->slab ? put_hex(sb, cs->slab) : put(sb, "null")) ||
        !key(sb, "tid", false) || !put_u64(sb, cs->tid) || !key(sb, "freelist", false) ||
        !put_objs(sb, snap, cs->freelist, cs->nr_freelist) || !key(sb, "partial", false) ||
        !put(sb, "["))
        return false;
    for (pos = 0; pos < cs->nr_partial; pos++)
        for (i = from; i < from + nr; i++) {
            const struct sim_snap_slab *s = &snap->slabs[i];

            if (s->cache != c->id || s->place.type != SIM_PL_CPU_PARTIAL ||
                s->place.cpu != (int)cpu || s->place.slot != (int32_t)pos)
                continue;
            if ((!first && !put(sb, ",")) || !put_hex(sb, s->addr))
                return false;
            first = false;
        }
    return put(sb, "]}");
}

static bool put_cache_cpu(struct jw *sb, const struct sim_snapshot *snap,
                          const struct sim_snap_cache *c, unsigned cpu, size_t first, size_t nr)
{
    return put(sb, "{\"cpu\":") && put_u64(sb, cpu) && key(sb, "main", false) &&
           put_cpu_sheaf(sb, snap, c->main[cpu]) && key(sb, "spare", false) &&
           put_cpu_sheaf(sb, snap, c->spare[cpu]) && key(sb, "rcu_free", false) &&
           put_cpu_sheaf(sb, snap, c->rcu_free[cpu]) && key(sb, "stats", false) &&
           put_stats(sb, &c->cpu_stats[cpu]) &&
           (!c->has_cpu_slab ||
            (key(sb, "cpu_slab", false) && put_cpu_slab(sb, snap, c, cpu, first, nr))) &&
           put(sb, "}");
}

static bool put_cache_node(struct jw *sb, const struct sim_snap_cache *c, unsigned node)
{
    const struct sim_snap_barn *b = &c->barn[node];
    const struct sim_snap_node *n = &c->node[node];

    return put(sb, "{\"node\":") && put_u64(sb, node) && key(sb, "nr_partial", false) &&
           put_u64(sb, n->nr_partial) && key(sb, "nr_slabs", false) && put_u64(sb, n->nr_slabs) &&
           key(sb, "total_objects", false) && put_u64(sb, n->total_objects) &&
           put(sb, ",\"barn\":{\"nr_full\":") && put_u64(sb, b->nr_full) &&
           key(sb, "nr_empty", false) && put_u64(sb, b->nr_empty) && key(sb, "partial", false) &&
           (b->partial ? put_u64(sb, b->partial) : put(sb, "null")) && put(sb, "}}");
}

/* A named unsigned member: ",\"k\":v". */
static bool kv(struct jw *sb, const char *k, uint64_t v)
{
    return key(sb, k, false) && put_u64(sb, v);
}

static bool put_cache(struct jw *sb, const struct sim_snapshot *snap,
                      const struct sim_snap_cache *c)
{
    struct sim_snap_stats total;
    size_t first = 0, nr = c->has_cpu_slab ? cache_slabs(snap, c->id, &first) : 0;
    unsigned i, cpu;

    metric_cache_stats(snap, c, &total);
    if (!put(sb, "{\"id\":") || !put_i64(sb, c->id) || !key(sb, "name", false) ||
        !put_str(sb, c->name) || !key(sb, "alive", false) ||
        !put(sb, c->alive ? "true" : "false") || !kv(sb, "object_size", c->object_size) ||
        !kv(sb, "slab_size", c->size) || !kv(sb, "align", c->align) || !kv(sb, "inuse", c->inuse) ||
        !kv(sb, "offset", c->offset) || !kv(sb, "red_left_pad", c->red_left_pad) ||
        !key(sb, "flags", false) || !put_flags(sb, c->flags) || !kv(sb, "order", c->order) ||
        !kv(sb, "objs_per_slab", c->objects_per_slab) || !kv(sb, "min_order", c->min_order) ||
        !kv(sb, "min_objects", c->min_objects) || !kv(sb, "min_partial", c->min_partial) ||
        !kv(sb, "sheaf_capacity", c->sheaf_capacity) || !key(sb, "random", false) ||
        !put_hex(sb, c->random) || !kv(sb, "slabs", c->slabs) || !kv(sb, "objects", c->objects) ||
        !kv(sb, "partial", c->partial) || !kv(sb, "objects_partial", c->objects_partial) ||
        !kv(sb, "total_objects", c->total_objects) ||
        (c->slab_errors && !kv(sb, "slab_errors", c->slab_errors)) || !key(sb, "stats", false) ||
        !put_stats(sb, &total) || !key(sb, "cpus", false) || !put(sb, "["))
        return false;
    for (cpu = 0; cpu < snap->nr_cpus && cpu < SIM_MAX_CPUS; cpu++)
        if ((cpu && !put(sb, ",")) || !put_cache_cpu(sb, snap, c, cpu, first, nr))
            return false;
    if (!put(sb, "]"))
        return false;
    if (c->has_cpu_slab && /* legacy model */
        (!kv(sb, "cpu_partial", c->cpu_partial) ||
         !kv(sb, "cpu_partial_slabs", c->cpu_partial_slabs)))
        return false;
    if (!key(sb, "nodes", false) || !put(sb, "["))
        return false;
    for (i = 0; i < snap->nr_nodes && i < SIM_MAX_NODES; i++)
        if ((i && !put(sb, ",")) || !put_cache_node(sb, c, i))
            return false;
    return put(sb, "]}");
}

static bool put_slab(struct jw *sb, const struct sim_snapshot *snap, const struct sim_snap_slab *s)
{
    return put(sb, "{\"addr\":") && put_hex(sb, s->addr) && put(sb, ",\"name\":\"S") &&
           put_u64(sb, s->seq) && put(sb, "\"") && key(sb, "cache", false) &&
           put_i64(sb, s->cache) && key(sb, "node", false) && put_i64(sb, s->node) &&
           kv(sb, "order", s->order) && kv(sb, "objects", s->objects) &&
           kv(sb, "inuse", s->inuse) && key(sb, "place", false) && put_place(sb, &s->place) &&
           key(sb, "freelist_head", false) && put_hex(sb, s->freelist_head) &&
           key(sb, "freelist", false) && put_objs(sb, snap, s->freelist, s->nr_free) &&
           put(sb, "}");
}

static bool put_sheaf(struct jw *sb, const struct sim_snapshot *snap,
                      const struct sim_snap_sheaf *sh)
{
    return put(sb, "{\"id\":") && put_u64(sb, sh->id) && key(sb, "cache", false) &&
           put_i64(sb, sh->cache) && key(sb, "place", false) && put_place(sb, &sh->place) &&
           kv(sb, "size", sh->size) && kv(sb, "capacity", sh->capacity) &&
           key(sb, "objects", false) && put_objs(sb, snap, sh->objs, sh->size) && put(sb, "}");
}

static bool put_zone(struct jw *sb, const struct sim_snap_zone *z)
{
    unsigned i;

    if (!put(sb, "{\"node\":") || !put_i64(sb, z->node) || !key(sb, "name", false) ||
        !put_str(sb, z->name) || !key(sb, "start", false) || !put_hex(sb, z->start) ||
        !kv(sb, "pages", z->pages) || !kv(sb, "free_pages", z->free_pages) ||
        !key(sb, "nr_free", false) || !put(sb, "["))
        return false;
    for (i = 0; i <= SIM_MAX_ORDER; i++)
        if ((i && !put(sb, ",")) || !put_u64(sb, z->nr_free[i]))
            return false;
    if (!put(sb, "]") || !kv(sb, "user_pages", z->user_pages) ||
        !put(sb, ",\"watermarks\":{\"min\":") || !put_u64(sb, z->watermark[SIM_WMARK_MIN]) ||
        !kv(sb, "low", z->watermark[SIM_WMARK_LOW]) ||
        !kv(sb, "high", z->watermark[SIM_WMARK_HIGH]) ||
        !kv(sb, "promo", z->watermark[SIM_WMARK_PROMO]) || !put(sb, "},\"lowmem_reserve\":{"))
        return false;
    for (i = 0; i < SIM_NR_ZONE_TYPES; i++)
        if ((i && !put(sb, ",")) || !put_str(sb, sim_zone_name(i)) || !put(sb, ":") ||
            !put_u64(sb, z->lowmem_reserve[i]))
            return false;
    return put(sb, "}}");
}

/* ---- the state ------------------------------------------------------------------ */

size_t json_state_items(const struct sim_snapshot *snap)
{
    return snap->nr_slabs + snap->nr_sheaves + snap->nr_objs + snap->nr_rcu_objs;
}

static bool write_state(struct jw *sb, const struct sim_snapshot *snap, size_t limit)
{
    bool paged = limit && json_state_items(snap) > limit;
    size_t i;

    if (!put(sb, "{\"seq\":") || !put_u64(sb, snap->seq) || !kv(sb, "op", snap->op))
        return false;
    if (paged && (!put(sb, ",\"paged\":{\"by\":\"cache\"") || !kv(sb, "limit", limit) ||
                  !kv(sb, "items", json_state_items(snap)) || !kv(sb, "slabs", snap->nr_slabs) ||
                  !kv(sb, "sheaves", snap->nr_sheaves) || !kv(sb, "objects", snap->nr_objs) ||
                  !kv(sb, "rcu_pending", snap->nr_rcu_objs) || !put(sb, "}")))
        return false;
    if (!kv(sb, "nr_cpus", snap->nr_cpus) || !kv(sb, "nr_nodes", snap->nr_nodes) ||
        !put(sb, ",\"cpu_node\":["))
        return false;
    for (i = 0; i < snap->nr_cpus && i < SIM_MAX_CPUS; i++)
        if ((i && !put(sb, ",")) || !put_u64(sb, snap->cpu_node[i]))
            return false;
    if (!put(sb, "],\"caches\":["))
        return false;
    for (i = 0; i < snap->nr_caches; i++)
        if ((i && !put(sb, ",")) || !put_cache(sb, snap, &snap->caches[i]))
            return false;
    if (!put(sb, "],\"slabs\":["))
        return false;
    for (i = 0; !paged && i < snap->nr_slabs; i++)
        if ((i && !put(sb, ",")) || !put_slab(sb, snap, &snap->slabs[i]))
            return false;
    if (!put(sb, "],\"sheaves\":["))
        return false;
    for (i = 0; !paged && i < snap->nr_sheaves; i++)
        if ((i && !put(sb, ",")) || !put_sheaf(sb, snap, &snap->sheaves[i]))
            return false;
    if (!put(sb, "],\"zones\":["))
        return false;
    for (i = 0; i < snap->nr_zones; i++)
        if ((i && !put(sb, ",")) || !put_zone(sb, &snap->zones[i]))
            return false;
    return put(sb, "],\"inflight\":") && put_addrs(sb, snap->inflight, snap->nr_inflight) &&
           put(sb, ",\"rcu_pending\":") &&
           put_addrs(sb, snap->rcu_objs, paged ? 0 : snap->nr_rcu_objs) &&
           kv(sb, "rcu_callbacks", snap->nr_rcu_callbacks) && put(sb, "}");
}

bool json_state_write(struct strbuf *out, const struct sim_snapshot *snap, size_t limit)
{
    struct jw w;

    w.out = out;
    w.n = 0;
    return write_state(&w, snap, limit) && jw_flush(&w);
}

/* ---- one cache's page ------------------------------------------------------------- */

struct span {
    sim_addr_t lo, hi;
};

static int span_cmp(const void *a, const void *b)
{
    const struct span *x = a, *y = b;

    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Is @addr inside one of the @n sorted spans? */
static bool in_spans(const struct span *v, size_t n, sim_addr_t addr)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (addr < v[mid].lo)
            hi = mid;
        else if (addr >= v[mid].hi)
            lo = mid + 1;
        else
            return true;
    }
    return false;
}

static int write_page(struct jw *sb, const struct sim_snapshot *snap, uint64_t at, int cache,
                      size_t from, size_t count)
{
    size_t first, n = cache_slabs(snap, cache, &first), i, k;
    struct span *spans = NULL;
    bool first_item = true;

    for (i = 0; i < snap->nr_caches && snap->caches[i].id != cache; i++)
        ;
    if (i == snap->nr_caches)
        return -ENOENT;
    if (!put(sb, "{\"at\":") || !put_u64(sb, at) || !key(sb, "cache", false) ||
        !put_i64(sb, cache) || !kv(sb, "slabs_total", n) || !kv(sb, "from", from) ||
        !key(sb, "next", false) ||
        !(count < n && from < n - count ? put_u64(sb, from + count) : put(sb, "null")) ||
        !put(sb, ",\"slabs\":["))
        return -ENOMEM;
    for (i = from; i < n && i - from < count; i++)
        if ((i > from && !put(sb, ",")) || !put_slab(sb, snap, &snap->slabs[first + i]))
            return -ENOMEM;
    if (!put(sb, "],\"sheaves\":["))
        return -ENOMEM;
    for (i = 0; i < snap->nr_sheaves; i++) {
        if (snap->sheaves[i].cache != cache)
            continue;
        if ((!first_item && !put(sb, ",")) || !put_sheaf(sb, snap, &snap->sheaves[i]))
            return -ENOMEM;
        first_item = false;
    }
    if (!put(sb, "],\"rcu_pending\":["))
        return -ENOMEM;
    if (n && snap->nr_rcu_objs) {
        if (!(spans = malloc(n * sizeof(*spans))))
            return -ENOMEM;
        for (i = 0; i < n; i++) {
            const struct sim_snap_slab *s = &snap->slabs[first + i];

            spans[i].lo = s->addr;
            spans[i].hi = s->addr + ((sim_addr_t)SIM_PAGE_SIZE << s->order);
        }
        qsort(spans, n, sizeof(*spans), span_cmp);
        for (i = k = 0; i < snap->nr_rcu_objs; i++) {
            if (!in_spans(spans, n, snap->rcu_objs[i]))
                continue;
            if ((k++ && !put(sb, ",")) || !put_hex(sb, snap->rcu_objs[i])) {
                free(spans);
                return -ENOMEM;
            }
        }
        free(spans);
    }
    return put(sb, "]}") ? 0 : -ENOMEM;
}

int json_state_write_page(struct strbuf *out, const struct sim_snapshot *snap, uint64_t at,
                          int cache, size_t from, size_t count)
{
    struct jw w;
    int ret;

    w.out = out;
    w.n = 0;
    ret = write_page(&w, snap, at, cache, from, count);
    return ret ? ret : jw_flush(&w) ? 0 : -ENOMEM;
}
