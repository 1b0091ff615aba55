/*
 * stats.c: SLUB's per-CPU statistics (kernel: enum stat_item, stat()).
 *
 * The engine counts the union of every SLUB era's items (the hybrid 6.18's
 * alloc_cpu_sheaf and free_cpu_sheaf among them), keyed everywhere by
 * their sysfs names, plus a few engine-only counters (engine_*) that no kernel
 * has but that make a change visible (free-pointer reads and writes, pages in
 * and out).  Every bump is also recorded in the event being built, so each
 * event carries its counter deltas.
 */
#include "internal.h"

#include <string.h>

static const char *const stat_names[SIM_NR_STATS] = {
        [SIM_ALLOC_FASTPATH] = "alloc_fastpath",
        [SIM_ALLOC_SLOWPATH] = "alloc_slowpath",
        [SIM_FREE_RCU_SHEAF] = "free_rcu_sheaf",
        [SIM_FREE_RCU_SHEAF_FAIL] = "free_rcu_sheaf_fail",
        [SIM_FREE_FASTPATH] = "free_fastpath",
        [SIM_FREE_SLOWPATH] = "free_slowpath",
        [SIM_FREE_ADD_PARTIAL] = "free_add_partial",
        [SIM_FREE_REMOVE_PARTIAL] = "free_remove_partial",
        [SIM_ALLOC_SLAB] = "alloc_slab",
        [SIM_ALLOC_NODE_MISMATCH] = "alloc_node_mismatch",
        [SIM_FREE_SLAB] = "free_slab",
        [SIM_ORDER_FALLBACK] = "order_fallback",
        [SIM_CMPXCHG_DOUBLE_FAIL] = "cmpxchg_double_fail",
        [SIM_SHEAF_FLUSH] = "sheaf_flush",
        [SIM_SHEAF_REFILL] = "sheaf_refill",
        [SIM_SHEAF_ALLOC] = "sheaf_alloc",
        [SIM_SHEAF_FREE] = "sheaf_free",
        [SIM_BARN_GET] = "barn_get",
        [SIM_BARN_GET_FAIL] = "barn_get_fail",
        [SIM_BARN_PUT] = "barn_put",
        [SIM_BARN_PUT_FAIL] = "barn_put_fail",
        [SIM_SHEAF_PREFILL_FAST] = "sheaf_prefill_fast",
        [SIM_SHEAF_PREFILL_SLOW] = "sheaf_prefill_slow",
        [SIM_SHEAF_PREFILL_OVERSIZE] = "sheaf_prefill_oversize",
        [SIM_SHEAF_RETURN_FAST] = "sheaf_return_fast",
        [SIM_SHEAF_RETURN_SLOW] = "sheaf_return_slow",
        [SIM_FREE_FROZEN] = "free_frozen",
        [SIM_ALLOC_FROM_PARTIAL] = "alloc_from_partial",
        [SIM_ALLOC_REFILL] = "alloc_refill",
        [SIM_CPUSLAB_FLUSH] = "cpuslab_flush",
        [SIM_DEACTIVATE_FULL] = "deactivate_full",
        [SIM_DEACTIVATE_EMPTY] = "deactivate_empty",
        [SIM_DEACTIVATE_TO_HEAD] = "deactivate_to_head",
        [SIM_DEACTIVATE_TO_TAIL] = "deactivate_to_tail",
        [SIM_DEACTIVATE_REMOTE_FREES] = "deactivate_remote_frees",
        [SIM_DEACTIVATE_BYPASS] = "deactivate_bypass",
        [SIM_CMPXCHG_DOUBLE_CPU_FAIL] = "cmpxchg_double_cpu_fail",
        [SIM_CPU_PARTIAL_ALLOC] = "cpu_partial_alloc",
        [SIM_CPU_PARTIAL_FREE] = "cpu_partial_free",
        [SIM_CPU_PARTIAL_NODE] = "cpu_partial_node",
        [SIM_CPU_PARTIAL_DRAIN] = "cpu_partial_drain",
        [SIM_ALLOC_CPU_SHEAF] = "alloc_cpu_sheaf",
        [SIM_FREE_CPU_SHEAF] = "free_cpu_sheaf",
        [SIM_ENGINE_FREEPTR_READS] = "engine_freeptr_reads",
        [SIM_ENGINE_FREEPTR_WRITES] = "engine_freeptr_writes",
        [SIM_ENGINE_PAGES_IN] = "engine_pages_in",
        [SIM_ENGINE_PAGES_OUT] = "engine_pages_out",
        [SIM_ENGINE_SLAB_UPDATES] = "engine_slab_updates",
};

const char *sim_stat_name(unsigned item)
{
    return name_of(stat_names, SIM_NR_STATS, item);
}

int sim_stat_lookup(const char *name)
{
    return name_lookup(stat_names, SIM_NR_STATS, name);
}

bool sim_stat_is_engine_only(unsigned item)
{
    return item >= SIM_ENGINE_FREEPTR_READS && item < SIM_NR_STATS;
}

bool sim_stat_in_model(unsigned item, enum sim_model model)
{
    static const uint8_t legacy[] = {
        SIM_ALLOC_FASTPATH, SIM_ALLOC_SLOWPATH, SIM_FREE_FASTPATH, SIM_FREE_SLOWPATH,
        SIM_FREE_ADD_PARTIAL, SIM_FREE_REMOVE_PARTIAL, SIM_ALLOC_SLAB, SIM_ALLOC_NODE_MISMATCH,
        SIM_FREE_SLAB, SIM_ORDER_FALLBACK, SIM_CMPXCHG_DOUBLE_FAIL,
    };

    if (item >= SIM_NR_STATS)
        return false;
    if (sim_stat_is_engine_only(item))
        return true;
    if (model == SIM_MODEL_HYBRID) /* 6.18's enum stat_item has both layers' */
        return true;
    if (model == SIM_MODEL_SHEAVES)
        return item <= SIM_SHEAF_RETURN_SLOW;
    if (item >= SIM_FREE_FROZEN)
        return item <= SIM_CPU_PARTIAL_DRAIN;
    for (size_t i = 0; i < sizeof(legacy); i++)
        if (legacy[i] == item)
            return true;
    return false;
}

uint64_t sim_stat(const struct sim *sim, int cache, unsigned item, int cpu)
{
    const struct kmem_cache *s;
    uint64_t sum = 0;

    if (sim->broken || cache < 0 || (unsigned)cache >= sim->nr_caches || item >= SIM_NR_STATS)
        return 0;
    s = sim->caches[cache];
    if (cpu >= 0)
        return (unsigned)cpu < sim->cfg.nr_cpus ? s->stats[cpu][item] : 0;
    for (unsigned c = 0; c < sim->cfg.nr_cpus; c++)
        sum += s->stats[c][item];
    return sum;
}
