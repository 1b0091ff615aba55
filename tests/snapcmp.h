/*
 * snapcmp.h: field-by-field comparison of two snapshots, for tests.
 *
 * A misuse must leave the state unchanged, a clone must evolve exactly as
 * its original, the same seed must give the same machine: all three are
 * "these two snapshots are equal".  Snapshots are compared field by field,
 * never with memcmp, because struct sim_place has padding that a struct
 * copy may fill with anything.  The sequence and operation numbers can be
 * left out (a reported misuse still counts as an operation and an event).
 */
#ifndef SLUBLAB_TESTS_SNAPCMP_H
#define SLUBLAB_TESTS_SNAPCMP_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "slub.h"

#define SNAPCMP_CLOCK   true  /* compare seq and op too */
#define SNAPCMP_NOCLOCK false /* leave seq and op out */

static inline bool snapcmp_place(const struct sim_place *a, const struct sim_place *b)
{
    return a->type == b->type && a->cpu == b->cpu && a->node == b->node && a->slot == b->slot &&
           a->slab == b->slab && a->sheaf == b->sheaf;
}

/* Writes where @a and @b first differ into @why; true when they are equal. */
static inline bool snap_equal(const struct sim_snapshot *a, const struct sim_snapshot *b,
        bool clock, char *why, size_t len)
{
#define SNAPCMP_DIFF(cond, ...)                                                                    \
    do {                                                                                           \
        if (cond) {                                                                                \
            snprintf(why, len, __VA_ARGS__);                                                       \
            return false;                                                                          \
        }                                                                                          \
    } while (0)
    why[0] = 0;
    if (clock) {
        SNAPCMP_DIFF(a->seq != b->seq, "seq %llu vs %llu", (unsigned long long)a->seq,
                (unsigned long long)b->seq);
        SNAPCMP_DIFF(a->op != b->op, "op %llu vs %llu", (unsigned long long)a->op,
                (unsigned long long)b->op);
    }
    SNAPCMP_DIFF(a->nr_cpus != b->nr_cpus || a->nr_nodes != b->nr_nodes, "machine shape");
    SNAPCMP_DIFF(memcmp(a->cpu_node, b->cpu_node, sizeof(a->cpu_node)) != 0, "cpu_node");
    SNAPCMP_DIFF(a->nr_caches != b->nr_caches, "nr_caches %zu vs %zu", a->nr_caches,
            b->nr_caches);
    for (size_t i = 0; i < a->nr_caches; i++) {
        const struct sim_snap_cache *x = &a->caches[i], *y = &b->caches[i];

        SNAPCMP_DIFF(x->id != y->id || strcmp(x->name, y->name) != 0, "cache %zu identity", i);
        SNAPCMP_DIFF(x->object_size != y->object_size || x->size != y->size ||
                             x->align != y->align || x->inuse != y->inuse ||
                             x->offset != y->offset || x->red_left_pad != y->red_left_pad ||
                             x->flags != y->flags || x->order != y->order ||
                             x->objects_per_slab != y->objects_per_slab ||
                             x->min_order != y->min_order || x->min_objects != y->min_objects ||
                             x->min_partial != y->min_partial ||
                             x->sheaf_capacity != y->sheaf_capacity || x->random != y->random,
                "cache %s geometry", x->name);
        SNAPCMP_DIFF(x->alive != y->alive, "cache %s alive", x->name);
        SNAPCMP_DIFF(x->slabs != y->slabs || x->total_objects != y->total_objects ||
                             x->objects != y->objects || x->partial != y->partial ||
                             x->objects_partial != y->objects_partial,
                "cache %s slab-state files (slabs %lu vs %lu, objects %lu vs %lu)", x->name,
                x->slabs, y->slabs, x->objects, y->objects);
        for (unsigned n = 0; n < a->nr_nodes; n++) {
            SNAPCMP_DIFF(x->node[n].nr_partial != y->node[n].nr_partial ||
                                 x->node[n].nr_slabs != y->node[n].nr_slabs ||
                                 x->node[n].total_objects != y->node[n].total_objects,
                    "cache %s node %u", x->name, n);
            SNAPCMP_DIFF(x->barn[n].nr_full != y->barn[n].nr_full ||
                                 x->barn[n].nr_empty != y->barn[n].nr_empty ||
                                 x->barn[n].partial != y->barn[n].partial,
                    "cache %s barn %u", x->name, n);
        }
        for (unsigned c = 0; c < a->nr_cpus; c++) {
            SNAPCMP_DIFF(x->main[c] != y->main[c] || x->spare[c] != y->spare[c] ||
                                 x->rcu_free[c] != y->rcu_free[c],
                    "cache %s cpu %u sheaves", x->name, c);
            /* legacy model: the cpu slab, tid, lockless freelist and partial list */
            SNAPCMP_DIFF(x->cpu_slab[c].slab != y->cpu_slab[c].slab ||
                                 x->cpu_slab[c].tid != y->cpu_slab[c].tid ||
                                 x->cpu_slab[c].nr_freelist != y->cpu_slab[c].nr_freelist ||
                                 x->cpu_slab[c].nr_partial != y->cpu_slab[c].nr_partial,
                    "cache %s cpu %u cpu slab", x->name, c);
            for (unsigned k = 0; k < x->cpu_slab[c].nr_freelist && k < y->cpu_slab[c].nr_freelist &&
                                 x->cpu_slab[c].freelist + k < a->nr_objs &&
                                 y->cpu_slab[c].freelist + k < b->nr_objs;
                    k++)
                SNAPCMP_DIFF(a->objs[x->cpu_slab[c].freelist + k] !=
                                b->objs[y->cpu_slab[c].freelist + k],
                        "cache %s cpu %u lockless freelist entry %u", x->name, c, k);
            for (unsigned k = 0; k < SIM_NR_STATS; k++)
                SNAPCMP_DIFF(x->cpu_stats[c].v[k] != y->cpu_stats[c].v[k],
                        "cache %s cpu %u counter %s: %llu vs %llu", x->name, c,
                        sim_stat_name(k), (unsigned long long)x->cpu_stats[c].v[k],
                        (unsigned long long)y->cpu_stats[c].v[k]);
        }
    }
    SNAPCMP_DIFF(a->nr_slabs != b->nr_slabs, "nr_slabs %zu vs %zu", a->nr_slabs, b->nr_slabs);
    for (size_t i = 0; i < a->nr_slabs; i++) {
        const struct sim_snap_slab *x = &a->slabs[i], *y = &b->slabs[i];

        SNAPCMP_DIFF(x->addr != y->addr || x->cache != y->cache || x->node != y->node ||
                             x->order != y->order || x->objects != y->objects,
                "slab %zu identity (0x%llx vs 0x%llx)", i, (unsigned long long)x->addr,
                (unsigned long long)y->addr);
        SNAPCMP_DIFF(x->inuse != y->inuse || x->nr_free != y->nr_free ||
                             x->freelist != y->freelist || x->freelist_head != y->freelist_head ||
                             !snapcmp_place(&x->place, &y->place),
                "slab 0x%llx state (inuse %u vs %u)", (unsigned long long)x->addr, x->inuse,
                y->inuse);
    }
    SNAPCMP_DIFF(a->nr_sheaves != b->nr_sheaves, "nr_sheaves %zu vs %zu", a->nr_sheaves,
            b->nr_sheaves);
    for (size_t i = 0; i < a->nr_sheaves; i++) {
        const struct sim_snap_sheaf *x = &a->sheaves[i], *y = &b->sheaves[i];

        SNAPCMP_DIFF(x->id != y->id || x->cache != y->cache || x->size != y->size ||
                             x->capacity != y->capacity || x->objs != y->objs ||
                             !snapcmp_place(&x->place, &y->place),
                "sheaf %u (size %u vs %u)", x->id, x->size, y->size);
    }
    SNAPCMP_DIFF(a->nr_zones != b->nr_zones, "nr_zones");
    for (size_t i = 0; i < a->nr_zones; i++) {
        const struct sim_snap_zone *x = &a->zones[i], *y = &b->zones[i];

        SNAPCMP_DIFF(x->node != y->node || strcmp(x->name, y->name) != 0 ||
                             x->start != y->start || x->pages != y->pages,
                "zone %zu identity", i);
        SNAPCMP_DIFF(x->free_pages != y->free_pages, "zone %zu free_pages %lu vs %lu", i,
                x->free_pages, y->free_pages);
        for (unsigned o = 0; o <= SIM_MAX_ORDER; o++)
            SNAPCMP_DIFF(x->nr_free[o] != y->nr_free[o], "zone %zu nr_free[%u]", i, o);
    }
    SNAPCMP_DIFF(a->nr_objs != b->nr_objs, "nr_objs %zu vs %zu", a->nr_objs, b->nr_objs);
    for (size_t i = 0; i < a->nr_objs; i++)
        SNAPCMP_DIFF(a->objs[i] != b->objs[i], "objs[%zu]", i);
    SNAPCMP_DIFF(a->nr_inflight != b->nr_inflight, "nr_inflight");
    for (size_t i = 0; i < a->nr_inflight; i++)
        SNAPCMP_DIFF(a->inflight[i] != b->inflight[i], "inflight[%zu]", i);
    SNAPCMP_DIFF(a->nr_rcu_callbacks != b->nr_rcu_callbacks, "nr_rcu_callbacks %u vs %u",
            a->nr_rcu_callbacks, b->nr_rcu_callbacks);
    SNAPCMP_DIFF(a->nr_rcu_objs != b->nr_rcu_objs, "nr_rcu_objs");
    for (size_t i = 0; i < a->nr_rcu_objs; i++)
        SNAPCMP_DIFF(a->rcu_objs[i] != b->rcu_objs[i], "rcu_objs[%zu]", i);
    return true;
#undef SNAPCMP_DIFF
}

/* Takes a snapshot of @sim; NULL (and a message) when that fails. */
static inline struct sim_snapshot *snap_take(const struct sim *sim)
{
    struct sim_snapshot *snap = NULL;

    if (sim_snapshot(sim, &snap)) {
        printf("sim_snapshot failed\n");
        return NULL;
    }
    return snap;
}

/* CHECK that two snapshots are equal, printing the first difference. */
#define CHECK_SNAP_EQ(a, b, clock)                                                                 \
    do {                                                                                           \
        char snapcmp_why_[160] = "a snapshot is missing";                                          \
        if (!CHECK((a) && (b) && snap_equal((a), (b), (clock), snapcmp_why_,                       \
                                         sizeof(snapcmp_why_))))                                   \
            printf("  snapshots differ: %s\n", snapcmp_why_);                                      \
    } while (0)

#endif /* SLUBLAB_TESTS_SNAPCMP_H */
