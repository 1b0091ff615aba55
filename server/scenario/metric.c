/*
 * metric.c: parsing and reading metrics (see metric.h).
 *
 * Counters come straight from sim_stat(); the other files need a snapshot
 * because the engine exposes them only there.  The file table below is the
 * one place that maps a sysfs file name to a snapshot field, so expects,
 * compare and the reports all agree on what "objects" means.
 */
#include "scenario/metric.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const metric_files[METRIC_NR_KINDS] = {
        [METRIC_SLABS] = "slabs",
        [METRIC_OBJECTS] = "objects",
        [METRIC_PARTIAL] = "partial",
        [METRIC_OBJECTS_PARTIAL] = "objects_partial",
        [METRIC_TOTAL_OBJECTS] = "total_objects",
        [METRIC_OBJECT_SIZE] = "object_size",
        [METRIC_SLAB_SIZE] = "slab_size",
        [METRIC_ALIGN] = "align",
        [METRIC_OBJS_PER_SLAB] = "objs_per_slab",
        [METRIC_ORDER] = "order",
        [METRIC_MIN_PARTIAL] = "min_partial",
        [METRIC_SHEAF_CAPACITY] = "sheaf_capacity",
        [METRIC_ZONE_FREE_PAGES] = "free_pages",
        [METRIC_ZONE_USER_PAGES] = "user_pages",
        [METRIC_ZONE_WMARK_MIN] = "wmark_min",
        [METRIC_ZONE_WMARK_LOW] = "wmark_low",
        [METRIC_ZONE_WMARK_HIGH] = "wmark_high",
        [METRIC_SLAB_ERRORS] = "slab_errors",
};

/* "object:P.byte[I]": P into m->cache, I into m->item.  True when @text
 * has that shape (false leaves @m alone). */
static bool metric_parse_object(const char *text, struct metric *m, const char **why)
{
    const char *name = text + strlen("object:"), *dot = NULL, *p;
    unsigned long idx = 0;
    size_t len;

    for (p = strstr(name, ".byte["); p; p = strstr(p + 1, ".byte["))
        dot = p;
    if (!dot || (len = (size_t)(dot - name)) == 0 || len >= sizeof(m->cache)) {
        *why = "an object's byte is written object:NAME.byte[INDEX]";
        return false;
    }
    for (p = dot + strlen(".byte["); *p >= '0' && *p <= '9' && idx < (1u << 22); p++)
        idx = idx * 10 + (unsigned long)(*p - '0');
    if (p == dot + strlen(".byte[") || strcmp(p, "]") != 0) {
        *why = "an object's byte is written object:NAME.byte[INDEX], INDEX below 4194304";
        return false;
    }
    memcpy(m->cache, name, len);
    m->cache[len] = '\0';
    m->kind = METRIC_OBJECT_BYTE;
    m->item = (unsigned)idx;
    return true;
}

bool metric_is_zone(const struct metric *m)
{
    return m->kind >= METRIC_ZONE_FREE_PAGES && m->kind <= METRIC_ZONE_WMARK_HIGH;
}

bool metric_zone_name_ok(const char *name, unsigned nr_nodes)
{
    const char *at = strchr(name, '@');
    size_t len = at ? (size_t)(at - name) : strlen(name);
    unsigned long node = 0;
    bool known = false;

    for (unsigned t = 0; t < SIM_NR_ZONE_TYPES; t++)
        known |= strlen(sim_zone_name(t)) == len && !strncmp(sim_zone_name(t), name, len);
    if (!known)
        return false;
    if (at) {
        char *end;

        node = strtoul(at + 1, &end, 10);
        if (end == at + 1 || *end)
            return false;
    }
    return node < nr_nodes;
}

/* A zone's metric from a snapshot: -ENOENT when the machine has no such zone. */
static int metric_zone_eval(const struct sim_snapshot *snap, const struct metric *m, uint64_t *out)
{
    char name[SIM_NAME_MAX];
    const char *at = strchr(m->cache, '@');
    int node = at ? atoi(at + 1) : 0;
    size_t i;

    snprintf(name, sizeof(name), "%.*s", at ? (int)(at - m->cache) : (int)strlen(m->cache),
             m->cache);
    for (i = 0; i < snap->nr_zones; i++) {
        const struct sim_snap_zone *z = &snap->zones[i];

        if (z->node != node || strcmp(z->name, name) != 0)
            continue;
        *out = m->kind == METRIC_ZONE_FREE_PAGES   ? z->free_pages
               : m->kind == METRIC_ZONE_USER_PAGES ? z->user_pages
               : m->kind == METRIC_ZONE_WMARK_MIN  ? z->watermark[SIM_WMARK_MIN]
               : m->kind == METRIC_ZONE_WMARK_LOW  ? z->watermark[SIM_WMARK_LOW]
                                                   : z->watermark[SIM_WMARK_HIGH];
        return 0;
    }
    return -ENOENT;
}

const char *metric_file_name(enum metric_kind kind)
{
    if (kind <= METRIC_STAT || kind >= METRIC_NR_KINDS)
        return NULL;
    return metric_files[kind];
}

/* Set kind/item from the last component; false when it names nothing. */
static bool metric_parse_leaf(const char *leaf, struct metric *m)
{
    int item = sim_stat_lookup(leaf);
    unsigned k;

    if (item >= 0) {
        m->kind = METRIC_STAT;
        m->item = (unsigned)item;
        return true;
    }
    for (k = METRIC_STAT + 1; k < METRIC_NR_KINDS; k++) {
        if (metric_files[k] && strcmp(leaf, metric_files[k]) == 0) {
            m->kind = (enum metric_kind)k;
            return true;
        }
    }
    return false;
}

/* Parse "cpuN" into *cpu; false when @s is not exactly that shape. */
static bool metric_parse_cpu(const char *s, size_t len, unsigned long *cpu)
{
    unsigned long v = 0;
    size_t i;

    if (len < 4 || len > 6 || strncmp(s, "cpu", 3) != 0)
        return false;
    for (i = 3; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (unsigned long)(s[i] - '0');
    }
    *cpu = v;
    return true;
}

int metric_parse(const char *text, unsigned nr_cpus, struct metric *m, const char **why)
{
    const char *leaf = strrchr(text, '.');
    size_t cache_len;
    unsigned long cpu;

    memset(m, 0, sizeof(*m));
    m->cpu = -1;
    if (!strncmp(text, "object:", strlen("object:")))
        return metric_parse_object(text, m, why) ? 0 : -EINVAL;
    if (!metric_parse_leaf(leaf ? leaf + 1 : text, m)) {
        *why = "names no counter and no cache file (see docs/scenario-format.md)";
        return -EINVAL;
    }
    if (!leaf && metric_is_zone(m)) {
        *why = "a zone metric needs its zone: DMA.free_pages, Normal@1.wmark_min";
        return -EINVAL;
    }
    if (!leaf)
        return 0;
    cache_len = (size_t)(leaf - text);
    /* "CACHE.cpuN.stat": the component before the leaf may be a CPU. */
    {
        const char *dot = NULL;
        const char *p;

        for (p = text; p < leaf; p++)
            if (*p == '.')
                dot = p;
        if (dot && metric_parse_cpu(dot + 1, (size_t)(leaf - dot - 1), &cpu)) {
            if (m->kind != METRIC_STAT) {
                *why = "a cpuN component is only allowed before a counter";
                return -EINVAL;
            }
            if (cpu >= nr_cpus) {
                *why = "the cpuN component is not below machine.cpus";
                return -EINVAL;
            }
            m->cpu = (int)cpu;
            cache_len = (size_t)(dot - text);
        }
    }
    if (cache_len == 0 || cache_len >= sizeof(m->cache)) {
        *why = "the cache name before the dot is empty or too long";
        return -EINVAL;
    }
    memcpy(m->cache, text, cache_len);
    m->cache[cache_len] = '\0';
    return 0;
}

bool metric_needs_snapshot(const struct metric *m)
{
    return m->kind != METRIC_STAT;
}

uint64_t metric_cache_file(const struct sim_snap_cache *c, enum metric_kind kind)
{
    switch (kind) {
    case METRIC_SLABS:
        return c->slabs;
    case METRIC_OBJECTS:
        return c->objects;
    case METRIC_PARTIAL:
        return c->partial;
    case METRIC_OBJECTS_PARTIAL:
        return c->objects_partial;
    case METRIC_TOTAL_OBJECTS:
        return c->total_objects;
    case METRIC_OBJECT_SIZE:
        return c->object_size;
    case METRIC_SLAB_SIZE:
        return c->size;
    case METRIC_ALIGN:
        return c->align;
    case METRIC_OBJS_PER_SLAB:
        return c->objects_per_slab;
    case METRIC_ORDER:
        return c->order;
    case METRIC_MIN_PARTIAL:
        return c->min_partial;
    case METRIC_SHEAF_CAPACITY:
        return c->sheaf_capacity;
    case METRIC_SLAB_ERRORS:
        return c->slab_errors;
    case METRIC_STAT:
    case METRIC_OBJECT_BYTE:
    case METRIC_ZONE_FREE_PAGES:
    case METRIC_ZONE_USER_PAGES:
    case METRIC_ZONE_WMARK_MIN:
    case METRIC_ZONE_WMARK_LOW:
    case METRIC_ZONE_WMARK_HIGH:
    case METRIC_NR_KINDS:
        break;
    }
    return 0;
}

int metric_eval(const struct sim *sim, const struct sim_snapshot *snap, const struct metric *m,
                int default_cache, uint64_t *out)
{
    int cache = m->cache[0] ? sim_cache_lookup(sim, m->cache) : default_cache;
    size_t i;

    if (metric_is_zone(m))
        return metric_zone_eval(snap, m, out);
    if (m->kind == METRIC_OBJECT_BYTE)
        return -ENOENT; /* the replay reads it: only it knows the names */
    if (m->kind == METRIC_SLAB_ERRORS && !m->cache[0]) {
        *out = 0;
        for (i = 0; i < snap->nr_caches; i++)
            *out += snap->caches[i].slab_errors;
        return 0;
    }
    if (cache < 0 || (unsigned)cache >= sim_nr_caches(sim))
        return -ENOENT;
    if (m->kind == METRIC_STAT) {
        *out = sim_stat(sim, cache, m->item, m->cpu);
        return 0;
    }
    for (i = 0; i < snap->nr_caches; i++) {
        if (snap->caches[i].id == cache) {
            *out = metric_cache_file(&snap->caches[i], m->kind);
            return 0;
        }
    }
    return -ENOENT;
}

void metric_node_values(const struct sim_snapshot *snap, const struct sim_snap_cache *c,
                        enum metric_kind kind, uint64_t *per_node)
{
    size_t i;

    memset(per_node, 0, sizeof(*per_node) * SIM_MAX_NODES);
    for (i = 0; i < snap->nr_slabs; i++) {
        const struct sim_snap_slab *s = &snap->slabs[i];
        bool partial = s->place.type == SIM_PL_NODE_PARTIAL;

        if (s->cache != c->id || s->node < 0 || s->node >= SIM_MAX_NODES)
            continue;
        switch (kind) {
        case METRIC_SLABS:
            per_node[s->node]++;
            break;
        case METRIC_TOTAL_OBJECTS:
            per_node[s->node] += s->objects;
            break;
        case METRIC_PARTIAL:
            per_node[s->node] += partial;
            break;
        case METRIC_OBJECTS_PARTIAL:
            per_node[s->node] += partial ? s->inuse : 0;
            break;
        case METRIC_OBJECTS:
            /* objects in sheaves count as used: only partial slabs' free ones are not */
            per_node[s->node] += partial ? s->inuse : s->objects;
            break;
        default:
            break;
        }
    }
}

void metric_cache_stats(const struct sim_snapshot *snap, const struct sim_snap_cache *c,
                        struct sim_snap_stats *total)
{
    unsigned i, cpu;

    memset(total, 0, sizeof(*total));
    for (cpu = 0; cpu < snap->nr_cpus && cpu < SIM_MAX_CPUS; cpu++)
        for (i = 0; i < SIM_NR_STATS; i++)
            total->v[i] += c->cpu_stats[cpu].v[i];
}
