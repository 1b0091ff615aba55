/*
 * sysfs_slab.h: reading a /sys/kernel/slab-style tree.
 *
 * One reader for every command that takes a real kernel's caches:
 * `slublab geometry`, `slublab import --sysfs` and `slublab replay --sysfs`.
 * Each cache directory gives its creation inputs (object_size, align, the
 * flag files, ctor), the geometry the kernel computed and, when present,
 * its object counts.  Symbolic links are aliases: with merging, the real
 * directory is a unique id (":0000192", ":A-0000128") and every name,
 * the first cache's own included, is a link to it.
 */
#ifndef SLUBLAB_SERVER_KFILES_SYSFS_SLAB_H
#define SLUBLAB_SERVER_KFILES_SYSFS_SLAB_H

#include <stdbool.h>
#include <stddef.h>

#include "slub.h"
#include "base/strbuf.h"

#define SYSFS_MAX_CACHES 4096

enum {
    SYSFS_SLAB_SIZE,
    SYSFS_ALIGN,
    SYSFS_OBJS_PER_SLAB,
    SYSFS_ORDER,
    SYSFS_MIN_PARTIAL,
    SYSFS_NR_GEOMETRY
};

struct sysfs_cache {
    char dir[256];                      /* directory name: a cache name or a unique id */
    char name[SIM_NAME_MAX];            /* the engine cache's name (sysfs_slab_read() picks it) */
    struct sim_cache_args args;         /* creation inputs; args.name == name */
    unsigned kernel[SYSFS_NR_GEOMETRY]; /* what the kernel computed */
    unsigned sheaf_capacity;            /* 0 when the file is absent */
    bool has_sheaf_capacity;            /* the sheaf_capacity file exists (6.18 on) */
    bool has_cpu_partial;               /* the cpu_partial file exists (before 7.0) */
    bool kmalloc;                       /* a kmalloc-* name (itself or an alias) */
    bool has_counts;                    /* objects, total_objects and slabs were read */
    unsigned long objects, total_objects, slabs;
    char **aliases; /* link names pointing here, sorted, without name; owned */
    size_t nr_aliases;
};

struct sysfs_tree {
    struct sysfs_cache *caches; /* sorted by name; owned */
    size_t nr;
    unsigned nproc;   /* .nproc of a capture, the live machine's CPUs, or 0 */
    char kernel[128]; /* .kernel of a capture, uname -r when live, or "" */
    bool live;        /* the tree is /sys/kernel/slab */
};

/* Which SLUB a tree comes from, told by its files (sysfs_slab_era()). */
enum sysfs_era {
    SYSFS_ERA_UNKNOWN, /* the files disagree */
    SYSFS_ERA_LEGACY,  /* no sheaf_capacity: per-CPU slabs (before 6.18) */
    SYSFS_ERA_HYBRID,  /* sheaves only where sheaf_capacity > 0, over per-CPU slabs (6.18, 6.19) */
    SYSFS_ERA_SHEAVES, /* sheaf_capacity everywhere, no cpu_partial: sheaves for all (7.0 on) */
};

/*
 * Read the tree at @dir, a directory or a .tar/.tar.gz archive of one
 * (tar_read.h; any regular file is read as an archive).  The engine name
 * of a unique-id directory is the first kmalloc-* alias if there is one
 * (kmalloc caches are created first at boot, and tracepoints print the
 * first cache's name), else the alphabetically first alias.  Returns 0, or
 * -errno with the reason in @err.  Directories without object_size/align
 * are skipped.
 */
int sysfs_slab_read(const char *dir, struct sysfs_tree *t, struct strbuf *err);
void sysfs_slab_release(struct sysfs_tree *t);
/* The cache named @name (its engine name, directory or an alias), or NULL. */
const struct sysfs_cache *sysfs_slab_find(const struct sysfs_tree *t, const char *name, size_t len);
/*
 * The era of @t's kernel from its files: no sheaf_capacity file is the legacy
 * era; sheaf_capacity with cpu_partial on every cache is the hybrid era of
 * 6.18 and 6.19, as is a copy without cpu_partial files whose capacity is 0
 * on most caches (7.x gives nearly every cache sheaves); sheaf_capacity
 * without cpu_partial is 7.x.  @why (may be NULL) gets the counts that
 * decided, in words.  Cannot fail.
 */
enum sysfs_era sysfs_slab_era(const struct sysfs_tree *t, struct strbuf *why);
/* "legacy", "hybrid", "sheaves" or "unknown". */
const char *sysfs_era_name(enum sysfs_era era);

/* kmalloc-64, kmalloc-cg-1k, kmalloc-rcl-8, dma-kmalloc-192, ... */
bool sysfs_is_kmalloc_name(const char *name);

#endif /* SLUBLAB_SERVER_KFILES_SYSFS_SLAB_H */
