/*
 * diff.c: structured differences between two state JSON documents (see
 * diff.h).
 *
 * Each side is indexed once: a hash table from object address to where it
 * is (a sheaf by id, a slab's freelist, in flight, or allocated: in a slab
 * but nowhere else), slabs and sheaves by id, caches by name.  Objects are
 * compared by "container" (sheaf id or slab), so when a whole sheaf moves
 * (main to spare) the diff says so once instead of once per object.  Output
 * follows the order of side B's arrays, then side A's leftovers, so it is
 * deterministic.
 */
#include "present/diff.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "present/json_state.h"

enum obj_where { W_NONE, W_SHEAF, W_SLAB, W_USER, W_INFLIGHT };

struct obj_loc {
    uint64_t addr;   /* 0: empty slot */
    uint8_t where;   /* enum obj_where */
    uint64_t holder; /* sheaf id or slab address */
    uint64_t slab;   /* the slab it belongs to (for W_USER and W_SLAB) */
};

struct idx_entry {
    uint64_t key; /* slab address or sheaf id + 1; 0: empty */
    const cJSON *val;
};

struct idx {
    struct idx_entry *t; /* open addressing, cap a power of two */
    size_t cap;
};

struct side {
    const cJSON *state;
    struct obj_loc *objs; /* open addressing, cap a power of two */
    size_t cap, nr;
    unsigned nr_nodes;
    struct idx slabs, sheaves;
};

struct out {
    cJSON *objects, *slabs, *sheaves, *caches, *counters, *files;
    size_t total;
    bool truncated, oom;
};

static uint64_t parse_hex(const cJSON *item)
{
    const char *s = cJSON_GetStringValue(item);

    return s && s[0] == '0' && s[1] == 'x' ? strtoull(s + 2, NULL, 16) : 0;
}

static uint64_t get_u(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

    return cJSON_IsNumber(v) && v->valuedouble > 0 ? (uint64_t)v->valuedouble : 0;
}

static int get_i(const cJSON *obj, const char *key, int dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

    return cJSON_IsNumber(v) ? (int)v->valuedouble : dflt;
}

static const cJSON *get(const cJSON *obj, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

static size_t obj_hash(uint64_t addr, size_t cap)
{
    addr ^= addr >> 29;
    addr *= 0xbf58476d1ce4e5b9ull;
    addr ^= addr >> 32;
    return (size_t)addr & (cap - 1);
}

static struct obj_loc *obj_find(const struct side *sd, uint64_t addr)
{
    size_t i;

    if (!sd->cap || !addr)
        return NULL;
    for (i = obj_hash(addr, sd->cap); sd->objs[i].addr; i = (i + 1) & (sd->cap - 1))
        if (sd->objs[i].addr == addr)
            return &sd->objs[i];
    return NULL;
}

static bool obj_grow(struct side *sd)
{
    size_t cap = sd->cap ? sd->cap * 2 : 1024, i;
    struct obj_loc *old = sd->objs, *n = calloc(cap, sizeof(*n));

    if (!n)
        return false;
    for (i = 0; i < sd->cap; i++) {
        size_t j;

        if (!old[i].addr)
            continue;
        for (j = obj_hash(old[i].addr, cap); n[j].addr; j = (j + 1) & (cap - 1))
            ;
        n[j] = old[i];
    }
    free(old);
    sd->objs = n;
    sd->cap = cap;
    return true;
}

/* Set where @addr is; an earlier, more specific location wins over W_USER. */
static bool obj_set(struct side *sd, uint64_t addr, uint8_t where, uint64_t holder, uint64_t slab)
{
    struct obj_loc *o = obj_find(sd, addr);
    size_t i;

    if (o) {
        if (where != W_USER) {
            o->where = where;
            o->holder = holder;
        }
        if (slab)
            o->slab = slab;
        return true;
    }
    if (!addr || ((sd->nr + 1) * 2 > sd->cap && !obj_grow(sd)))
        return addr == 0;
    for (i = obj_hash(addr, sd->cap); sd->objs[i].addr; i = (i + 1) & (sd->cap - 1))
        ;
    sd->objs[i].addr = addr;
    sd->objs[i].where = where;
    sd->objs[i].holder = holder;
    sd->objs[i].slab = slab;
    sd->nr++;
    return true;
}

static bool idx_build(struct idx *ix, const cJSON *arr, const char *key, bool hex)
{
    size_t n = (size_t)cJSON_GetArraySize(arr), cap = 16;
    const cJSON *e;

    while (cap < 2 * n + 2)
        cap *= 2;
    ix->t = calloc(cap, sizeof(*ix->t));
    if (!ix->t)
        return false;
    ix->cap = cap;
    cJSON_ArrayForEach(e, arr)
    {
        uint64_t k = (hex ? parse_hex(get(e, key)) : get_u(e, key)) + !hex;
        size_t i;

        for (i = obj_hash(k, cap); ix->t[i].key && ix->t[i].key != k; i = (i + 1) & (cap - 1))
            ;
        if (!ix->t[i].key) {
            ix->t[i].key = k;
            ix->t[i].val = e;
        }
    }
    return true;
}

static const cJSON *idx_find(const struct idx *ix, uint64_t key)
{
    size_t i;

    if (!ix->cap || !key)
        return NULL;
    for (i = obj_hash(key, ix->cap); ix->t[i].key; i = (i + 1) & (ix->cap - 1))
        if (ix->t[i].key == key)
            return ix->t[i].val;
    return NULL;
}

static const cJSON *find_slab(const struct side *sd, uint64_t addr)
{
    return idx_find(&sd->slabs, addr);
}

static const cJSON *find_sheaf(const struct side *sd, uint64_t id)
{
    return idx_find(&sd->sheaves, id + 1);
}

static const cJSON *find_cache(const cJSON *state, int id)
{
    const cJSON *c;

    cJSON_ArrayForEach(c, get(state, "caches"))
    {
        if (get_i(c, "id", -2) == id)
            return c;
    }
    return NULL;
}

/* Index every object of @sd->state. */
static bool side_index(struct side *sd)
{
    const cJSON *sh, *sl, *o;

    sd->nr_nodes = (unsigned)get_u(sd->state, "nr_nodes");
    if (!idx_build(&sd->slabs, get(sd->state, "slabs"), "addr", true) ||
        !idx_build(&sd->sheaves, get(sd->state, "sheaves"), "id", false))
        return false;
    cJSON_ArrayForEach(sh, get(sd->state, "sheaves"))
    {
        uint64_t id = get_u(sh, "id");

        cJSON_ArrayForEach(o, get(sh, "objects"))
        {
            if (!obj_set(sd, parse_hex(o), W_SHEAF, id, 0))
                return false;
        }
    }
    cJSON_ArrayForEach(sl, get(sd->state, "slabs"))
    {
        uint64_t addr = parse_hex(get(sl, "addr"));
        const cJSON *cache = find_cache(sd->state, get_i(sl, "cache", -1));
        uint64_t size = get_u(cache, "slab_size"), pad = get_u(cache, "red_left_pad");
        uint64_t n = get_u(sl, "objects"), i;

        cJSON_ArrayForEach(o, get(sl, "freelist"))
        {
            if (!obj_set(sd, parse_hex(o), W_SLAB, addr, addr))
                return false;
        }
        for (i = 0; size && i < n && i < 65536; i++)
            if (!obj_set(sd, addr + pad + i * size, W_USER, 0, addr))
                return false;
    }
    cJSON_ArrayForEach(o, get(sd->state, "inflight"))
    {
        if (!obj_set(sd, parse_hex(o), W_INFLIGHT, 0, 0))
            return false;
    }
    return true;
}

/* "CPU 1's main sheaf", "the barn's full list", ... for a sheaf's place. */
static void place_text(const cJSON *place, unsigned nr_nodes, char *buf, size_t len)
{
    const char *type = cJSON_GetStringValue(get(place, "type"));
    int cpu = get_i(place, "cpu", -1), node = get_i(place, "node", -1);
    char on[32] = "";

    if (!type)
        type = "?";
    if (nr_nodes > 1 && node >= 0)
        snprintf(on, sizeof(on), " on node %d", node);
    if (!strcmp(type, "main") || !strcmp(type, "spare") || !strcmp(type, "rcu_free"))
        snprintf(buf, len, "CPU %d's %s sheaf", cpu, type);
    else if (!strcmp(type, "barn_full"))
        snprintf(buf, len, "the barn's full list%s", on);
    else if (!strcmp(type, "barn_empty"))
        snprintf(buf, len, "the barn's empty list%s", on);
    else if (!strcmp(type, "barn_partial"))
        snprintf(buf, len, "the barn's partial sheaf%s", on);
    else if (!strcmp(type, "node_partial"))
        snprintf(buf, len, "partial%s", on);
    else if (!strcmp(type, "node_full"))
        snprintf(buf, len, "the full list%s", on);
    else if (!strcmp(type, "full"))
        snprintf(buf, len, "full");
    else if (!strcmp(type, "inflight"))
        snprintf(buf, len, "an operation in flight");
    else if (!strcmp(type, "prefill"))
        snprintf(buf, len, "a prefilled sheaf");
    else
        snprintf(buf, len, "%s", type);
}

/* Where an object is, in words. */
static void obj_text(const struct side *sd, const struct obj_loc *o, char *buf, size_t len)
{
    const cJSON *sheaf;

    switch (o ? o->where : W_NONE) {
    case W_SHEAF:
        sheaf = find_sheaf(sd, o->holder);
        place_text(get(sheaf, "place"), sd->nr_nodes, buf, len);
        return;
    case W_SLAB:
        snprintf(buf, len, "slab 0x%" PRIx64 "'s freelist", o->holder);
        return;
    case W_USER:
        snprintf(buf, len, "allocated");
        return;
    case W_INFLIGHT:
        snprintf(buf, len, "an operation in flight");
        return;
    default:
        snprintf(buf, len, "nowhere");
        return;
    }
}

static cJSON *obj_place_json(const struct side *sd, const struct obj_loc *o)
{
    static const char *const names[] = {"none", "sheaf", "slab", "user", "inflight"};
    cJSON *p = cJSON_CreateObject();
    char text[160];

    if (!p)
        return NULL;
    obj_text(sd, o, text, sizeof(text));
    if (!json_put(p, "where", cJSON_CreateString(names[o->where])) ||
        (o->where == W_SHEAF && !json_put(p, "sheaf", json_uint(o->holder))) ||
        (o->where == W_SLAB && !json_put(p, "slab", json_hex(o->holder))) ||
        !json_put(p, "text", cJSON_CreateString(text)))
        return json_drop(p);
    return p;
}

/* Count a change; false when the list is full (then it is only counted). */
static bool out_room(struct out *out, const cJSON *list)
{
    out->total++;
    if (cJSON_GetArraySize(list) >= DIFF_MAX) {
        out->truncated = true;
        return false;
    }
    return true;
}

static void out_push(struct out *out, cJSON *list, cJSON *item)
{
    if (!json_push(list, item))
        out->oom = true;
}

static void diff_objects(const struct side *a, const struct side *b, struct out *out)
{
    const cJSON *sl;

    /* B's hash table is in no useful order: walk B's slabs instead */
    cJSON_ArrayForEach(sl, get(b->state, "slabs"))
    {
        uint64_t addr = parse_hex(get(sl, "addr"));
        const cJSON *cache = find_cache(b->state, get_i(sl, "cache", -1));
        uint64_t size = get_u(cache, "slab_size"), pad = get_u(cache, "red_left_pad");
        uint64_t n = get_u(sl, "objects"), k;

        if (!find_slab(a, addr))
            continue; /* a new slab: reported with the slabs */
        for (k = 0; size && k < n && k < 65536 && !out->oom; k++) {
            uint64_t obj = addr + pad + k * size;
            const struct obj_loc *oa = obj_find(a, obj), *ob = obj_find(b, obj);
            char from[160], to[160], text[400];
            cJSON *c;

            if (!oa || !ob || (oa->where == ob->where && oa->holder == ob->holder))
                continue;
            if (!out_room(out, out->objects))
                continue;
            obj_text(a, oa, from, sizeof(from));
            obj_text(b, ob, to, sizeof(to));
            snprintf(text, sizeof(text), "object 0x%" PRIx64 " moved from %s to %s", obj, from, to);
            c = cJSON_CreateObject();
            if (c &&
                (!json_put(c, "id", json_hex(obj)) || !json_put(c, "from", obj_place_json(a, oa)) ||
                 !json_put(c, "to", obj_place_json(b, ob)) ||
                 !json_put(c, "text", cJSON_CreateString(text)))) {
                cJSON_Delete(c);
                c = NULL;
            }
            out_push(out, out->objects, c);
        }
    }
}

static const char *cache_name(const cJSON *state, int id)
{
    const char *name = cJSON_GetStringValue(get(find_cache(state, id), "name"));

    return name ? name : "?";
}

/* One moved/new/gone entry for a slab or a sheaf. */
static void diff_thing(struct out *out, cJSON *list, const char *kind, cJSON *id, const char *cache,
                       const cJSON *pa, const struct side *a, const cJSON *pb, const struct side *b,
                       const char *idtext)
{
    char from[160], to[160], text[420];
    cJSON *c;

    if (!out_room(out, list)) {
        cJSON_Delete(id);
        return;
    }
    if (pa)
        place_text(pa, a->nr_nodes, from, sizeof(from));
    if (pb)
        place_text(pb, b->nr_nodes, to, sizeof(to));
    if (pa && pb)
        snprintf(text, sizeof(text), "%s %s of %s moved from %s to %s", kind, idtext, cache, from,
                 to);
    else if (pb)
        snprintf(text, sizeof(text), "%s %s of %s appeared (%s)", kind, idtext, cache, to);
    else
        snprintf(text, sizeof(text), "%s %s of %s went away (was %s)", kind, idtext, cache, from);
    c = cJSON_CreateObject();
    if (c && (!json_put(c, "id", id) || !json_put(c, "cache", cJSON_CreateString(cache)) ||
              !json_put(c, "from", pa ? cJSON_Duplicate(pa, true) : cJSON_CreateNull()) ||
              !json_put(c, "to", pb ? cJSON_Duplicate(pb, true) : cJSON_CreateNull()) ||
              !json_put(c, "text", cJSON_CreateString(text)))) {
        cJSON_Delete(c);
        c = NULL;
    } else if (!c) {
        cJSON_Delete(id);
    }
    out_push(out, list, c);
}

static bool same_place(const cJSON *pa, const cJSON *pb)
{
    /* a slot in a list moves whenever a neighbour comes or goes: not a move */
    const char *ta = cJSON_GetStringValue(get(pa, "type")),
               *tb = cJSON_GetStringValue(get(pb, "type"));

    return ta && tb && !strcmp(ta, tb) && get_i(pa, "cpu", -1) == get_i(pb, "cpu", -1) &&
           get_i(pa, "node", -1) == get_i(pb, "node", -1);
}

/* The element of @sd's @arr ("slabs" or "sheaves") with id @id. */
static const cJSON *find_in(const struct side *sd, bool slabs, uint64_t id)
{
    return slabs ? find_slab(sd, id) : find_sheaf(sd, id);
}

static void diff_list(const struct side *a, const struct side *b, struct out *out, const char *arr,
                      const char *key, bool hex, const char *kind, cJSON *list)
{
    const cJSON *e;
    char idtext[32];

    cJSON_ArrayForEach(e, get(b->state, arr))
    {
        uint64_t id = hex ? parse_hex(get(e, key)) : get_u(e, key);
        const cJSON *old = find_in(a, hex, id);
        const cJSON *pb = get(e, "place"), *pa = old ? get(old, "place") : NULL;

        if (old && same_place(pa, pb))
            continue;
        snprintf(idtext, sizeof(idtext), hex ? "0x%" PRIx64 : "%" PRIu64, id);
        diff_thing(out, list, kind, hex ? json_hex(id) : json_uint(id),
                   cache_name(b->state, get_i(e, "cache", -1)), pa, a, pb, b, idtext);
    }
    cJSON_ArrayForEach(e, get(a->state, arr))
    {
        uint64_t id = hex ? parse_hex(get(e, key)) : get_u(e, key);

        if (find_in(b, hex, id))
            continue;
        snprintf(idtext, sizeof(idtext), hex ? "0x%" PRIx64 : "%" PRIu64, id);
        diff_thing(out, list, kind, hex ? json_hex(id) : json_uint(id),
                   cache_name(a->state, get_i(e, "cache", -1)), get(e, "place"), a, NULL, b,
                   idtext);
    }
}

static const cJSON *find_cache_named(const cJSON *state, const char *name)
{
    const cJSON *c;

    cJSON_ArrayForEach(c, get(state, "caches"))
    {
        const char *n = cJSON_GetStringValue(get(c, "name"));

        if (n && !strcmp(n, name))
            return c;
    }
    return NULL;
}

static void delta_entry(struct out *out, cJSON *list, const char *cache, const char *what,
                        const char *name, uint64_t va, uint64_t vb)
{
    cJSON *c;

    if (va == vb || !out_room(out, list))
        return;
    c = cJSON_CreateObject();
    if (c &&
        (!json_put(c, "cache", cJSON_CreateString(cache)) ||
         !json_put(c, what, cJSON_CreateString(name)) || !json_put(c, "a", json_uint(va)) ||
         !json_put(c, "b", json_uint(vb)) || !json_put(c, "delta", json_int((int64_t)(vb - va))))) {
        cJSON_Delete(c);
        c = NULL;
    }
    out_push(out, list, c);
}

static void diff_caches(const struct side *a, const struct side *b, struct out *out)
{
    static const char *const files[] = {"slabs", "objects", "partial", "objects_partial",
                                        "total_objects"};
    const cJSON *cb, *ca, *st;
    unsigned f;

    cJSON_ArrayForEach(cb, get(b->state, "caches"))
    {
        const char *name = cJSON_GetStringValue(get(cb, "name"));
        bool alive_b = cJSON_IsTrue(get(cb, "alive")), alive_a;

        if (!name)
            continue;
        ca = find_cache_named(a->state, name);
        alive_a = ca && cJSON_IsTrue(get(ca, "alive"));
        if (alive_a != alive_b && out_room(out, out->caches)) {
            cJSON *c = cJSON_CreateObject();

            if (c &&
                (!json_put(c, "cache", cJSON_CreateString(name)) ||
                 !json_put(c, "change", cJSON_CreateString(alive_b ? "created" : "destroyed")))) {
                cJSON_Delete(c);
                c = NULL;
            }
            out_push(out, out->caches, c);
        }
        for (f = 0; f < sizeof(files) / sizeof(files[0]); f++)
            delta_entry(out, out->files, name, "file", files[f], get_u(ca, files[f]),
                        get_u(cb, files[f]));
        cJSON_ArrayForEach(st, get(cb, "stats"))
        {
            delta_entry(out, out->counters, name, "counter", st->string,
                        get_u(get(ca, "stats"), st->string), get_u(get(cb, "stats"), st->string));
        }
        cJSON_ArrayForEach(st, get(ca, "stats"))
        {
            if (!get(get(cb, "stats"), st->string))
                delta_entry(out, out->counters, name, "counter", st->string,
                            get_u(get(ca, "stats"), st->string), 0);
        }
    }
}

static void side_release(struct side *sd)
{
    free(sd->objs);
    free(sd->slabs.t);
    free(sd->sheaves.t);
}

cJSON *diff_states(const cJSON *a, const cJSON *b)
{
    struct side sa, sb;
    struct out out;
    cJSON *o = cJSON_CreateObject();

    memset(&out, 0, sizeof(out));
    memset(&sa, 0, sizeof(sa));
    memset(&sb, 0, sizeof(sb));
    sa.state = a;
    sb.state = b;
    if (!o || !json_put(o, "objects", out.objects = cJSON_CreateArray()) ||
        !json_put(o, "slabs", out.slabs = cJSON_CreateArray()) ||
        !json_put(o, "sheaves", out.sheaves = cJSON_CreateArray()) ||
        !json_put(o, "caches", out.caches = cJSON_CreateArray()) ||
        !json_put(o, "counters", out.counters = cJSON_CreateArray()) ||
        !json_put(o, "files", out.files = cJSON_CreateArray()) || !side_index(&sa) ||
        !side_index(&sb))
        goto err_delete;
    diff_objects(&sa, &sb, &out);
    diff_list(&sa, &sb, &out, "slabs", "addr", true, "slab", out.slabs);
    diff_list(&sa, &sb, &out, "sheaves", "id", false, "sheaf", out.sheaves);
    diff_caches(&sa, &sb, &out);
    if (out.oom || !json_put(o, "total", json_uint(out.total)) ||
        !cJSON_AddBoolToObject(o, "truncated", out.truncated))
        goto err_delete;
    side_release(&sa);
    side_release(&sb);
    return o;

err_delete:
    side_release(&sa);
    side_release(&sb);
    cJSON_Delete(o);
    return NULL;
}
