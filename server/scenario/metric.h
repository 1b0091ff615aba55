/*
 * metric.h: named quantities of a running machine, for expects and compare.
 *
 * A metric is written `STAT`, `CACHE.STAT`, `CACHE.cpuN.STAT` or
 * `CACHE.FILE` (or bare `FILE`), where STAT is a counter's sysfs name
 * (sim_stat_name) and FILE one of the sysfs files of a cache that are not
 * counters: the slab-state files (slabs, objects, partial, objects_partial,
 * total_objects) and the geometry (object_size, slab_size, align,
 * objs_per_slab, order, min_partial, sheaf_capacity).  Without CACHE the
 * metric reads the default cache (the first one the scenario creates).  The
 * name is split from the right, so a cache name may itself contain dots.
 * `slab_errors` counts SLUB's reports (every cache, or CACHE's), and
 * `object:P.byte[I]` reads byte I of the object named P: the replay
 * evaluates that one, since it alone knows the names.
 */
#ifndef SLUBLAB_SERVER_SCENARIO_METRIC_H
#define SLUBLAB_SERVER_SCENARIO_METRIC_H

#include <stdbool.h>
#include <stdint.h>

#include "slub.h"

enum metric_kind {
    METRIC_STAT, /* a counter: item, summed over CPUs unless cpu >= 0 */
    /* slab-state files (docs/export.md) */
    METRIC_SLABS,
    METRIC_OBJECTS,
    METRIC_PARTIAL,
    METRIC_OBJECTS_PARTIAL,
    METRIC_TOTAL_OBJECTS,
    /* geometry files */
    METRIC_OBJECT_SIZE,
    METRIC_SLAB_SIZE,
    METRIC_ALIGN,
    METRIC_OBJS_PER_SLAB,
    METRIC_ORDER,
    METRIC_MIN_PARTIAL,
    METRIC_SHEAF_CAPACITY,
    /* a zone's page counts and watermarks: "ZONE.free_pages", ZONE being
     * DMA, DMA32 or Normal (node 0) or Normal@N (node N) */
    METRIC_ZONE_FREE_PAGES,
    METRIC_ZONE_USER_PAGES,
    METRIC_ZONE_WMARK_MIN,
    METRIC_ZONE_WMARK_LOW,
    METRIC_ZONE_WMARK_HIGH,
    /* SLUB's reports so far, as lib/slub_kunit.c counts them: "CACHE.slab_errors",
     * or "slab_errors" alone for every cache of the machine */
    METRIC_SLAB_ERRORS,
    /* one byte of a named object: "object:P.byte[I]" (cache holds P, item I) */
    METRIC_OBJECT_BYTE,
    METRIC_NR_KINDS
};

struct metric {
    char cache[SIM_NAME_MAX]; /* "" for the default cache; the zone for zone kinds */
    int cpu;                  /* -1: all CPUs; >= 0 only for METRIC_STAT */
    enum metric_kind kind;
    unsigned item; /* enum sim_stat_item; valid iff kind == METRIC_STAT */
};

/*
 * Parse @text into @m.  Returns 0, or -EINVAL with *why set to a static
 * reason.  CPU numbers are checked against @nr_cpus.
 */
int metric_parse(const char *text, unsigned nr_cpus, struct metric *m, const char **why);
/* sysfs file name of a non-stat kind ("slabs"), or NULL for METRIC_STAT. */
const char *metric_file_name(enum metric_kind kind);
/* True for the zone kinds (the name before the dot is a zone, not a cache). */
bool metric_is_zone(const struct metric *m);
/* True when @name is DMA, DMA32, Normal or Movable, optionally @N with N < @nr_nodes. */
bool metric_zone_name_ok(const char *name, unsigned nr_nodes);
/* True when metric_eval() needs a snapshot for @m (everything but counters). */
bool metric_needs_snapshot(const struct metric *m);
/*
 * Value of @m in @sim.  @default_cache is the cache id used when m->cache is
 * empty; @snap must be a current snapshot when metric_needs_snapshot(m).
 * Returns 0, or -ENOENT when the cache does not exist.
 */
int metric_eval(const struct sim *sim, const struct sim_snapshot *snap, const struct metric *m,
                int default_cache, uint64_t *out);
/* The same files, read from one cache of a snapshot.  Cannot fail. */
uint64_t metric_cache_file(const struct sim_snap_cache *c, enum metric_kind kind);

/* The counters of cache @c summed over the snapshot's CPUs, into @total.  Cannot fail. */
void metric_cache_stats(const struct sim_snapshot *snap, const struct sim_snap_cache *c,
                        struct sim_snap_stats *total);

/* Per-node values (SIM_MAX_NODES of them) of slab-state file @kind of cache @c,
 * from the snapshot's slab list.  Cannot fail. */
void metric_node_values(const struct sim_snapshot *snap, const struct sim_snap_cache *c,
                        enum metric_kind kind, uint64_t *per_node);

#endif /* SLUBLAB_SERVER_SCENARIO_METRIC_H */
