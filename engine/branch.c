/*
 * branch.c: the branch points of the allocator and the records of the arms
 * taken (predict mode's questions).
 *
 * A branch point is a decision the kernel takes in one function: main sheaf
 * empty on alloc (__pcs_replace_empty_main), a slab's fate when objects come
 * back (__slab_free), the order of a new slab (allocate_slab), a zone's
 * watermark (get_page_from_freelist)...  Each arm names the events it leads
 * to, as "fn" or "fn/label" patterns.  The engine calls branch_record() where
 * it decides, apart from building the event; the record waits in the event
 * builder and rides on the next event to end (ev_end()), which is the
 * event that shows the arm's outcome.  The tests check that it matches one
 * of the taken arm's patterns, so a record made at the wrong place fails.
 *
 * An event carries its records sorted by the table's order, the more
 * specific decision first (free_main_full before free_path, the slab
 * allocator's before the page allocator's), so that a consumer asking one
 * question per event asks the most telling one.  A point is recorded only
 * where more than one of its arms can happen: zone_fallback with a zonelist
 * of one zone, or rcu_sheaf for a cache that never has sheaves, is not.
 * Static data only; no host allocation, so recording cannot fail.
 */
#include "internal.h"

#include <string.h>

/* "new slab" outcomes: the first event a new_slab() may emit */
#define NEW_SLAB_FIRST                                                                           \
    "new_slab", "kmalloc_fix_flags/unexpected_gfp", "__alloc_pages_slowpath/enter",              \
            "get_page_from_freelist/zone_fallback", "warn_alloc/no_zone"

#define EVENTS(...) ((const char *const[]){__VA_ARGS__, NULL})
#define ARM(n, ...) {.name = n, .events = EVENTS(__VA_ARGS__)}
#define POINT(id, n, f, ...)                                                                     \
    [id] = {.name = n,                                                                           \
            .fn = f,                                                                             \
            .arms = (const struct sim_branch_arm[]){__VA_ARGS__},                                \
            .nr_arms = sizeof((const struct sim_branch_arm[]){__VA_ARGS__}) /                    \
                       sizeof(struct sim_branch_arm)}

static const struct sim_branch_point points[BP_NR] = {
    POINT(BP_FREE_MAIN_FULL, "free_main_full", "__pcs_replace_full_main",
          [FMF_SWAP_SPARE] = ARM("swap_spare", "__pcs_replace_full_main/swap_spare"),
          [FMF_BARN_PUT] = ARM("barn_put", "barn_replace_full_sheaf/exchange"),
          [FMF_SPARE_FROM_BARN_EMPTY] =
                  ARM("spare_from_barn_empty", "__pcs_replace_full_main/spare_from_barn_empty"),
          [FMF_NEW_SHEAF] = ARM("new_sheaf", "__pcs_install_empty_sheaf/new_sheaf"),
          [FMF_BARN_PUT_FAIL] = ARM("barn_put_fail", "__pcs_replace_full_main/barn_put_fail")),
    POINT(BP_FREE_PATH, "free_path", "slab_free",
          [FP_FASTPATH] = ARM("fastpath", "free_to_pcs/fastpath"),
          [FP_MAIN_FULL] = ARM("main_full", "__pcs_replace_full_main/swap_spare",
                               "barn_replace_full_sheaf/exchange",
                               "__pcs_replace_full_main/spare_from_barn_empty",
                               "__pcs_install_empty_sheaf/new_sheaf",
                               "__pcs_replace_full_main/barn_put_fail"),
          [FP_SLOWPATH] = ARM("slowpath", "slab_free/slowpath", "set_freepointer/double_free"),
          [FP_CPU_SLAB] = ARM("cpu_slab", "do_slab_free/fastpath", "__slab_free",
                              "set_freepointer/double_free")),
    POINT(BP_ALLOC_MAIN_EMPTY, "alloc_main_empty", "__pcs_replace_empty_main",
          [AME_SWAP_SPARE] = ARM("swap_spare", "__pcs_replace_empty_main/swap_spare"),
          [AME_BARN_FULL] = ARM("barn_full", "barn_replace_empty_sheaf/exchange"),
          [AME_BARN_EMPTY] = ARM("barn_empty", "__pcs_replace_empty_main/barn_get_fail")),
    POINT(BP_MAIN_REFILL, "main_refill", "__pcs_replace_empty_main",
          [MR_REFILL] = ARM("refill", "__pcs_replace_empty_main/take_spare",
                            "barn_get_empty_sheaf/take", "alloc_empty_sheaf/new",
                            "alloc_full_sheaf/new"),
          [MR_NO_REFILL] = ARM("no_refill", "__pcs_replace_empty_main/no_refill_noblock",
                               "__pcs_replace_empty_main/no_refill_nospin")),
    POINT(BP_REFILL_SOURCE, "refill_source", "refill_objects",
          [RS_PARTIAL] = ARM("partial", "get_partial_node_bulk/take"),
          [RS_OTHER_NODE] = ARM("other_node", "get_partial_node_bulk/take"),
          [RS_NEW_SLAB] = ARM("new_slab", NEW_SLAB_FIRST)),
    POINT(BP_ALLOC_SLOWPATH, "alloc_slowpath", "___slab_alloc",
          [AS_PARTIAL] = ARM("partial", "get_from_partial_node", "alloc_single_from_partial"),
          [AS_OTHER_NODE] = ARM("other_node", "get_from_partial_node", "alloc_single_from_partial"),
          [AS_NEW_SLAB] = ARM("new_slab", NEW_SLAB_FIRST)),
    POINT(BP_LEGACY_ALLOC_SLOWPATH, "legacy_alloc_slowpath", "___slab_alloc",
          [LAS_ALLOC_REFILL] = ARM("alloc_refill", "___slab_alloc/alloc_refill"),
          [LAS_DEACTIVATE_BYPASS] = ARM("deactivate_bypass", "___slab_alloc/deactivate_bypass"),
          [LAS_NODE_MISMATCH] = ARM("node_mismatch", "___slab_alloc/node_mismatch"),
          [LAS_CPU_PARTIAL] = ARM("cpu_partial", "___slab_alloc/cpu_partial_pop",
                                  "___slab_alloc/cpu_partial_load",
                                  "___slab_alloc/cpu_partial_unlikely"),
          [LAS_NODE_PARTIAL] = ARM("node_partial", "get_partial_node/take",
                                   "get_partial_node/take_and_fill_cpu_partial"),
          [LAS_NEW_SLAB] = ARM("new_slab", NEW_SLAB_FIRST)),
    POINT(BP_PUT_CPU_PARTIAL, "put_cpu_partial", "put_cpu_partial",
          [PCP_PUSH] = ARM("push", "put_cpu_partial/push"),
          [PCP_DRAIN] = ARM("drain", "put_cpu_partial/drain")),
    POINT(BP_NEW_SLAB_ORDER, "new_slab_order", "allocate_slab",
          [NSO_OO] = ARM("oo", "new_slab/oo", "new_slab/freelist"),
          [NSO_ORDER_FALLBACK] = ARM("order_fallback", "new_slab/order_fallback",
                                     "new_slab/order_fallback_freelist"),
          [NSO_NOMEM] = ARM("nomem", "new_slab/nomem")),
    POINT(BP_SLAB_FREE_OUTCOME, "slab_free_outcome", "__slab_free",
          [SFO_KEEP] = ARM("keep", "__slab_free/keep", "free_to_partial_list/keep"),
          [SFO_KEEP_EMPTY] = ARM("keep_empty", "__slab_free/keep_empty"),
          [SFO_ADD_PARTIAL] =
                  ARM("add_partial", "__slab_free/add_partial", "free_to_partial_list/add_partial"),
          [SFO_ADD_PARTIAL_EMPTY] = ARM("add_partial_empty", "__slab_free/add_partial_empty"),
          [SFO_DISCARD] = ARM("discard", "__slab_free/discard", "free_to_partial_list/discard"),
          [SFO_NOT_LISTED] = ARM("not_listed", "__slab_free/not_listed")),
    POINT(BP_LEGACY_SLAB_FREE, "legacy_slab_free", "__slab_free",
          [LSF_FREE_FROZEN] = ARM("free_frozen", "__slab_free/free_frozen"),
          [LSF_CPU_PARTIAL_FREE] = ARM("cpu_partial_free", "__slab_free/cpu_partial_free"),
          [LSF_ON_CPU_PARTIAL] = ARM("on_cpu_partial", "__slab_free/on_cpu_partial"),
          [LSF_KEEP] = ARM("keep", "__slab_free/keep"),
          [LSF_KEEP_EMPTY] = ARM("keep_empty", "__slab_free/keep_empty"),
          [LSF_DISCARD] = ARM("discard", "__slab_free/discard")),
    POINT(BP_RCU_SHEAF, "rcu_sheaf", "__kfree_rcu_sheaf",
          [RCS_GET_SHEAF] = ARM("get_sheaf", "__kfree_rcu_sheaf/take_spare",
                                "__kfree_rcu_sheaf/barn_empty", "__kfree_rcu_sheaf/new_sheaf"),
          [RCS_PUT] = ARM("put", "__kfree_rcu_sheaf/put"),
          [RCS_CALL_RCU] = ARM("call_rcu", "__kfree_rcu_sheaf/call_rcu"),
          [RCS_NO_SHEAF] = ARM("no_sheaf", "__kfree_rcu_sheaf/fail"),
          [RCS_REMOTE] = ARM("remote", "kvfree_call_rcu/remote")),
    POINT(BP_GRACE_PERIOD, "grace_period", "rcu_free_sheaf",
          [GP_BARN_PUT] = ARM("barn_put", "rcu_free_sheaf/barn_put"),
          [GP_BARN_PUT_FAIL] = ARM("barn_put_fail", "rcu_free_sheaf/barn_put_fail"),
          [GP_FLUSH] = ARM("flush", "rcu_free_sheaf_nobarn/detach")),
    POINT(BP_WATERMARK, "watermark", "get_page_from_freelist",
          [WM_FAST] = ARM("fast", "new_slab", "__alloc_pages/fast"),
          [WM_SLOW] = ARM("slow", "__alloc_pages_slowpath/enter")),
    POINT(BP_ZONE_FALLBACK, "zone_fallback", "get_page_from_freelist",
          [ZF_PREFERRED] = ARM("preferred", "new_slab", "__alloc_pages"),
          [ZF_FALLBACK] = ARM("fallback", "get_page_from_freelist/zone_fallback")),
};

const struct sim_branch_point *sim_branch_points(size_t *n)
{
    *n = BP_NR;
    return points;
}

const struct sim_branch_point *sim_branch_point_lookup(const char *name)
{
    for (unsigned i = 0; i < BP_NR; i++)
        if (!strcmp(points[i].name, name))
            return &points[i];
    return NULL;
}

bool sim_branch_arm_matches(const struct sim_branch_arm *arm, const char *fn, const char *label)
{
    size_t len = strlen(fn);

    for (const char *const *e = arm->events; *e; e++) {
        if (strncmp(*e, fn, len) != 0)
            continue;
        if ((*e)[len] == 0 || ((*e)[len] == '/' && label && !strcmp(*e + len + 1, label)))
            return true;
    }
    return false;
}

void branch_record(struct sim *sim, enum branch_point point, unsigned arm)
{
    struct event_builder *ev = &sim->ev;

    SIM_BUG_ON(point >= BP_NR || arm >= points[point].nr_arms);
    SIM_BUG_ON(ev->nr_branches == EV_MAX_BRANCHES);
    ev->branches[ev->nr_branches].point = &points[point];
    ev->branches[ev->nr_branches].taken = arm;
    ev->nr_branches++;
}

void branch_sort_pending(struct sim *sim)
{
    struct sim_branch *b = sim->ev.branches;

    for (unsigned i = 1; i < sim->ev.nr_branches; i++) {
        struct sim_branch v = b[i];
        unsigned j = i;

        for (; j > 0 && b[j - 1].point > v.point; j--)
            b[j] = b[j - 1];
        b[j] = v;
    }
}
