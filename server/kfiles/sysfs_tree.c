/*
 * sysfs_tree.c: the /sys/kernel/slab tree of a snapshot (see kfiles.h).
 *
 * One directory per live cache, holding the attribute files the engine
 * knows faithfully, in the formats of mm/slub.c's show functions:
 *
 *   geometry and flags   "%u\n" (aliases, align, cache_dma, destroy_by_rcu,
 *                        hwcache_align, min_partial, object_size,
 *                        objs_per_slab, order, poison, reclaim_account,
 *                        red_zone, sanity_checks, sheaf_capacity (not in
 *                        the legacy model: it came with 6.18, where a
 *                        cache without sheaves shows 0), slab_size,
 *                        store_user, trace)
 *   slab state           show_slab_objects(): "TOTAL N0=.. N1=..\n", nodes
 *                        with a zero value left out (slabs, partial,
 *                        objects, objects_partial, total_objects), as a
 *                        CONFIG_NUMA kernel prints it even on one node
 *   per-CPU slabs        cpu_slabs, cpu_partial, slabs_cpu_partial
 *                        (sysfs_cpu.c): the legacy and hybrid models' cpu
 *                        slabs and CPU partial lists; constant zeros in the
 *                        sheaves model, as in the kernels without cpu slabs
 *   counters             show_stat(): "TOTAL C0=.. C1=..\n", CPUs with a
 *                        zero count left out; every counter of the model's
 *                        kernels (sim_stat_in_model()), as with
 *                        CONFIG_SLUB_STATS (the engine_* ones are slublab's
 *                        own and are not written)
 *
 * Files the engine cannot fill honestly are not written: ctor (the kernel
 * prints the constructor's symbol), usersize,
 * remote_node_defrag_ratio, and the write-only triggers shrink and
 * validate.  Readers such as tools/mm/slabinfo take a missing file as 0.
 *
 * Naming follows sysfs_slab_add(): a cache that has aliases is shown as a
 * merged cache, in a directory named by create_unique_id() with its own
 * name and every alias a symbolic link to it; a cache without aliases gets
 * a directory of its own name, as an unmergeable cache does.  Should two
 * such caches share a unique id (the kernel would have merged them), the
 * later one keeps its own name; of two live caches of one name only the
 * first is shown.  A '/' in a name becomes '!', as kobject_set_name()
 * makes it.
 */
#include "kfiles/kfiles.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "scenario/metric.h"

#define SYSFS_NAME_MAX (SIM_NAME_MAX + 16)

static int sysfs_add(struct sysfs_tree *t, enum sysfs_kind kind, const char *path, const char *data,
                     size_t len)
{
    struct sysfs_entry *e;

    e = grow_array(t->e, &t->cap, t->nr + 1, sizeof(*e), 256);
    if (!e)
        return -ENOMEM;
    t->e = e;
    e = &t->e[t->nr];
    memset(e, 0, sizeof(*e));
    e->kind = kind;
    e->len = len;
    if (!(e->path = strdup(path)))
        return -ENOMEM;
    if (data) {
        if (!(e->data = malloc(len + 1))) {
            free(e->path);
            return -ENOMEM;
        }
        memcpy(e->data, data, len);
        e->data[len] = '\0';
    }
    t->nr++;
    return 0;
}

/* Add file @dir/@name holding @sb (reset afterwards). */
static int sysfs_add_file(struct sysfs_tree *t, const char *dir, const char *name,
                          struct strbuf *sb)
{
    char path[SYSFS_NAME_MAX + 64];
    int err;

    if (strbuf_failed(sb))
        return -ENOMEM;
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    err = sysfs_add(t, SYSFS_FILE, path, strbuf_str(sb), sb->len);
    strbuf_reset(sb);
    return err;
}

void sysfs_unique_id(const struct sim_snap_cache *c, char *buf, size_t size)
{
    char flags[8];
    size_t n = 0;

    /* create_unique_id(): the flags that merging matches, then the size */
    if (c->flags & SIM_SLAB_CACHE_DMA)
        flags[n++] = 'd';
    if (c->flags & SIM_SLAB_RECLAIM_ACCOUNT)
        flags[n++] = 'a';
    if (c->flags & SIM_SLAB_CONSISTENCY_CHECKS)
        flags[n++] = 'F';
    if (n)
        flags[n++] = '-';
    flags[n] = '\0';
    snprintf(buf, size, ":%s%07u", flags, c->size);
}

/* The sysfs form of a name: '/' becomes '!'; -EINVAL for "." and "..". */
static int sysfs_name(const char *name, char *buf, size_t size)
{
    size_t i;

    if (!strcmp(name, ".") || !strcmp(name, ".."))
        return -EINVAL;
    snprintf(buf, size, "%s", name);
    for (i = 0; buf[i]; i++)
        if (buf[i] == '/')
            buf[i] = '!';
    return 0;
}

static const char *const flag_files[] = {
        "cache_dma", "destroy_by_rcu", "hwcache_align", "poison", "reclaim_account",
        "red_zone",  "sanity_checks",  "store_user",    "trace",
};
static const uint32_t flag_bits[] = {
        SIM_SLAB_CACHE_DMA,
        SIM_SLAB_TYPESAFE_BY_RCU,
        SIM_SLAB_HWCACHE_ALIGN,
        SIM_SLAB_POISON,
        SIM_SLAB_RECLAIM_ACCOUNT,
        SIM_SLAB_RED_ZONE,
        SIM_SLAB_CONSISTENCY_CHECKS,
        SIM_SLAB_STORE_USER,
        SIM_SLAB_TRACE,
};

static int sysfs_cache_files(struct sysfs_tree *t, const struct sim_snapshot *snap,
                             const struct sim_snap_cache *c, const char *dir, unsigned nr_aliases)
{
    static const enum metric_kind state[] = {METRIC_SLABS, METRIC_PARTIAL, METRIC_OBJECTS,
                                             METRIC_OBJECTS_PARTIAL, METRIC_TOTAL_OBJECTS};
    static const enum metric_kind geometry[] = {
            METRIC_ALIGN, METRIC_MIN_PARTIAL,    METRIC_OBJECT_SIZE, METRIC_OBJS_PER_SLAB,
            METRIC_ORDER, METRIC_SHEAF_CAPACITY, METRIC_SLAB_SIZE};
    unsigned nr_nodes = snap->nr_nodes < SIM_MAX_NODES ? snap->nr_nodes : SIM_MAX_NODES;
    struct strbuf sb = STRBUF_INIT;
    uint64_t per_node[SIM_MAX_NODES];
    unsigned i, k, n;
    int err = 0;

    strbuf_printf(&sb, "%u\n", nr_aliases);
    err = sysfs_add_file(t, dir, "aliases", &sb);
    for (k = 0; !err && k < sizeof(geometry) / sizeof(geometry[0]); k++) {
        if (geometry[k] == METRIC_SHEAF_CAPACITY && snap->model == SIM_MODEL_LEGACY)
            continue; /* came with the sheaves (6.18): 0 on a 6.18 cache without them */
        strbuf_printf(&sb, "%" PRIu64 "\n", metric_cache_file(c, geometry[k]));
        err = sysfs_add_file(t, dir, metric_file_name(geometry[k]), &sb);
    }
    for (k = 0; !err && k < sizeof(flag_files) / sizeof(flag_files[0]); k++) {
        strbuf_printf(&sb, "%d\n", !!(c->flags & flag_bits[k]));
        err = sysfs_add_file(t, dir, flag_files[k], &sb);
    }
    for (k = 0; !err && k < sizeof(state) / sizeof(state[0]); k++) {
        strbuf_printf(&sb, "%" PRIu64, metric_cache_file(c, state[k]));
        metric_node_values(snap, c, state[k], per_node);
        for (n = 0; n < nr_nodes; n++)
            if (per_node[n])
                strbuf_printf(&sb, " N%u=%" PRIu64, n, per_node[n]);
        strbuf_puts(&sb, "\n");
        err = sysfs_add_file(t, dir, metric_file_name(state[k]), &sb);
    }
    if (!err) {
        sysfs_cpu_slabs(&sb, snap, c);
        err = sysfs_add_file(t, dir, "cpu_slabs", &sb);
    }
    if (!err) {
        sysfs_cpu_partial(&sb, snap, c);
        err = sysfs_add_file(t, dir, "cpu_partial", &sb);
    }
    if (!err) {
        sysfs_slabs_cpu_partial(&sb, snap, c);
        err = sysfs_add_file(t, dir, "slabs_cpu_partial", &sb);
    }
    for (i = 0; !err && i < SIM_NR_STATS; i++) {
        const char *name = sim_stat_name(i);

        if (!strncmp(name, "engine_", 7) || !sim_stat_in_model(i, snap->model))
            continue;
        sysfs_stat_show(&sb, snap, c, i);
        err = sysfs_add_file(t, dir, name, &sb);
    }
    strbuf_release(&sb);
    return err;
}

struct sysfs_alias {
    char name[SYSFS_NAME_MAX];
    int cache; /* index in snap->caches */
};

/* Index in snap->caches of cache @id, or -1. */
static long sysfs_cache_index(const struct sim_snapshot *snap, int id)
{
    size_t i;

    for (i = 0; i < snap->nr_caches; i++)
        if (snap->caches[i].id == id)
            return (long)i;
    return -1;
}

static int alias_cmp(const void *a, const void *b)
{
    return strcmp(((const struct sysfs_alias *)a)->name, ((const struct sysfs_alias *)b)->name);
}

/* The aliases whose cache is live in @snap, sorted by name; caller frees *out. */
static int sysfs_collect_aliases(const struct sim_snapshot *snap, const struct names *aliases,
                                 struct sysfs_alias **out, size_t *nr)
{
    struct sysfs_alias *a;
    size_t i, n = 0;

    *out = NULL;
    *nr = 0;
    if (!aliases || !aliases->nr)
        return 0;
    if (!(a = calloc(aliases->nr, sizeof(*a))))
        return -ENOMEM;
    for (i = 0; i < aliases->cap; i++) {
        const struct names_entry *e = &aliases->slots[i];
        long idx = e->name ? sysfs_cache_index(snap, e->cache) : -1;
        int err;

        if (idx < 0 || !snap->caches[idx].alive)
            continue;
        if ((err = sysfs_name(e->name, a[n].name, sizeof(a[n].name)))) {
            free(a);
            return err;
        }
        a[n++].cache = (int)idx;
    }
    qsort(a, n, sizeof(*a), alias_cmp);
    *out = a;
    *nr = n;
    return 0;
}

static bool sysfs_taken(const struct sysfs_tree *t, const char *name)
{
    return sysfs_tree_find(t, name) != NULL;
}

int sysfs_tree_build(struct sysfs_tree *t, const struct sim_snapshot *snap,
                     const struct names *aliases)
{
    struct sysfs_alias *al = NULL;
    char(*dirs)[SYSFS_NAME_MAX] = NULL;
    size_t nr_al = 0, i, j;
    int err;

    memset(t, 0, sizeof(*t));
    if ((err = sysfs_collect_aliases(snap, aliases, &al, &nr_al)))
        return err;
    if (snap->nr_caches && !(dirs = calloc(snap->nr_caches, sizeof(*dirs)))) {
        err = -ENOMEM;
        goto out;
    }
    /* caches without aliases first: their names are theirs in any case */
    for (int pass = 0; pass < 2 && !err; pass++) {
        for (i = 0; i < snap->nr_caches && !err; i++) {
            const struct sim_snap_cache *c = &snap->caches[i];
            unsigned nr = 0;

            if (!c->alive)
                continue;
            for (j = 0; j < nr_al; j++)
                nr += al[j].cache == (int)i;
            if ((pass == 0) != (nr == 0))
                continue;
            if ((err = sysfs_name(c->name, dirs[i], sizeof(dirs[i]))))
                break;
            if (nr) {
                char id[SYSFS_NAME_MAX];

                sysfs_unique_id(c, id, sizeof(id));
                if (!sysfs_taken(t, id))
                    memcpy(dirs[i], id, sizeof(id));
            }
            if (sysfs_taken(t, dirs[i])) {
                dirs[i][0] = '\0'; /* a second live cache of that name: sysfs holds one */
                continue;
            }
            if ((err = sysfs_add(t, SYSFS_DIR, dirs[i], NULL, 0)) ||
                (err = sysfs_cache_files(t, snap, c, dirs[i], nr)))
                break;
        }
    }
    /* then the symbolic links: a merged cache's own name, and every alias */
    for (i = 0; i < snap->nr_caches && !err; i++) {
        char name[SYSFS_NAME_MAX];

        if (dirs[i][0] != ':')
            continue;
        if ((err = sysfs_name(snap->caches[i].name, name, sizeof(name))))
            break;
        if (strcmp(name, dirs[i]) && !sysfs_taken(t, name))
            err = sysfs_add(t, SYSFS_LINK, name, dirs[i], strlen(dirs[i]));
    }
    for (j = 0; j < nr_al && !err; j++) {
        const char *target = dirs[al[j].cache];

        if (target[0] && !sysfs_taken(t, al[j].name))
            err = sysfs_add(t, SYSFS_LINK, al[j].name, target, strlen(target));
    }
out:
    free(dirs);
    free(al);
    if (err)
        sysfs_tree_release(t);
    return err;
}

const struct sysfs_entry *sysfs_tree_find(const struct sysfs_tree *t, const char *path)
{
    size_t i;

    for (i = 0; i < t->nr; i++)
        if (!strcmp(t->e[i].path, path))
            return &t->e[i];
    return NULL;
}

void sysfs_tree_release(struct sysfs_tree *t)
{
    size_t i;

    for (i = 0; i < t->nr; i++) {
        free(t->e[i].path);
        free(t->e[i].data);
    }
    free(t->e);
    memset(t, 0, sizeof(*t));
}
