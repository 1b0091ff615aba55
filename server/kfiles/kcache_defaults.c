/*
 * kcache_defaults.c: release defaults for known kernel caches (see
 * kcache_defaults.h).
 *
 * One table per modelled release.  A replay of a trace without --sysfs
 * creates a cache from its first event (object size and slab size); an
 * import or replay with --sysfs reads the flags, alignment and sheaf
 * capacity but not kmem_cache_args.freeptr_offset, which only shows as a
 * slab one word smaller.  For the caches below the table says what their
 * creator asks for in that release.  Where each value is set:
 *   maple_node: lib/maple_tree.c, maple_tree_init(): align
 *     sizeof(struct maple_node) (256); sheaf_capacity 32 from 6.18,
 *     59faa4da7cd4 ("maple_tree: use percpu sheaves for maple_node_cache").
 *   vm_area_struct: kernel/fork.c, proc_caches_init(), KMEM_CACHE()
 *     (6.1, 6.12); from 6.15, 3104138517fc ("mm: make vma cache
 *     SLAB_TYPESAFE_BY_RCU"): SLAB_HWCACHE_ALIGN | SLAB_TYPESAFE_BY_RCU
 *     with freeptr_offset = offsetof(struct vm_area_struct, vm_freeptr),
 *     a union with vm_start at offset 0 (include/linux/mm_types.h);
 *     sheaf_capacity 32 from 6.18, 3accabda4da1 ("mm, vma: use percpu
 *     sheaves for vm_area_struct cache"), mm/vma_init.c, vma_state_init().
 * 6.1, 6.12, 7.2 and 7.3 have Debian source packages: the function named
 * is where scripts/kernel-source-lines finds the lines; 6.18 has none, so
 * its entries name the commits that set them.
 */
#include "kfiles/kcache_defaults.h"

#include <stdio.h>
#include <string.h>

#define SHEAVES_MAPLE "59faa4da7cd4 maple_tree: use percpu sheaves for maple_node_cache"
#define SHEAVES_VMA   "3accabda4da1 mm, vma: use percpu sheaves for vm_area_struct cache"
#define VMA_RCU       "3104138517fc mm: make vma cache SLAB_TYPESAFE_BY_RCU"
#define VMA_RCU_FLAGS (SIM_SLAB_HWCACHE_ALIGN | SIM_SLAB_TYPESAFE_BY_RCU)

static const struct kcache_default table_6_1[] = {
        {"maple_node", 256, 0, false, 0, 0, "lib/maple_tree.c maple_tree_init()"},
        {0},
};

static const struct kcache_default table_6_12[] = {
        {"maple_node", 256, 0, false, 0, 0, "lib/maple_tree.c maple_tree_init()"},
        {0},
};

static const struct kcache_default table_6_18[] = {
        {"maple_node", 256, 0, false, 0, 32, SHEAVES_MAPLE},
        {"vm_area_struct", 0, VMA_RCU_FLAGS, true, 0, 32, VMA_RCU "; " SHEAVES_VMA},
        {0},
};

static const struct kcache_default table_7_x[] = {
        {"maple_node", 256, 0, false, 0, 32, "lib/maple_tree.c maple_tree_init()"},
        {"vm_area_struct", 0, VMA_RCU_FLAGS, true, 0, 32, "mm/vma_init.c vma_state_init()"},
        {0},
};

static const struct kcache_default *table_of(enum sim_release r)
{
    switch (r) {
    case SIM_RELEASE_6_1:
    case SIM_RELEASE_6_8:
        return table_6_1;
    case SIM_RELEASE_6_12:
        return table_6_12;
    case SIM_RELEASE_6_18:
    case SIM_RELEASE_6_19:
        return table_6_18;
    case SIM_RELEASE_7_0:
    case SIM_RELEASE_7_1:
    case SIM_RELEASE_7_2:
    case SIM_RELEASE_7_3:
        return table_7_x;
    case SIM_RELEASE_NONE:
    case SIM_NR_RELEASES:
        break;
    }
    return NULL;
}

enum sim_release kcache_release_of(const char *version)
{
    unsigned major, minor, want, best_v = 0;
    enum sim_release best = SIM_RELEASE_NONE;

    if (!version || sscanf(version, "%u.%u", &major, &minor) != 2)
        return SIM_RELEASE_NONE;
    want = major * 1000 + minor;
    for (int r = SIM_RELEASE_NONE + 1; r < SIM_NR_RELEASES; r++) {
        unsigned ma, mi;

        if (sscanf(sim_release_name((enum sim_release)r), "%u.%u", &ma, &mi) == 2 &&
            ma * 1000 + mi <= want && ma * 1000 + mi >= best_v) {
            best_v = ma * 1000 + mi;
            best = (enum sim_release)r;
        }
    }
    return best;
}

const struct kcache_default *kcache_default_find(enum sim_release r, const char *name, size_t len)
{
    const struct kcache_default *d = table_of(r);

    for (; d && d->name; d++)
        if (strlen(d->name) == len && !memcmp(d->name, name, len))
            return d;
    return NULL;
}

void kcache_default_apply(const struct kcache_default *d, struct sim_cache_args *a, bool shown)
{
    a->use_freeptr_offset = d->use_freeptr_offset;
    a->freeptr_offset = d->freeptr_offset;
    if (shown)
        return;
    a->flags |= d->flags;
    if (d->align)
        a->align = d->align;
    a->sheaf_capacity = d->sheaf_capacity;
}
