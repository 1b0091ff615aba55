/*
 * sysfs_cpu.c: the per-CPU slab files of a cache's /sys/kernel/slab
 * directory (see kfiles.h): cpu_slabs, cpu_partial and slabs_cpu_partial.
 *
 * The legacy model (6.2-6.17) shows them as mm/slub.c did then:
 *
 *   cpu_slabs          show_slab_objects(SO_CPU): for every CPU, 1 for its
 *                      cpu slab on that slab's node, plus the head's
 *                      slab->slabs (the length of its CPU partial list) on
 *                      the head's node; a CPU without a cpu slab is skipped,
 *                      its partial list with it; "TOTAL N0=.. N1=..\n",
 *                      nodes with 0 left out, as for slabs and objects
 *   cpu_partial        s->cpu_partial, "%u\n" (objects; 0 for a debug
 *                      cache, which has no CPU partial list)
 *   slabs_cpu_partial  "OBJECTS(SLABS)" over all CPUs, then " C%d=OBJ(SLABS)"
 *                      for each CPU with a partial list, where OBJECTS is
 *                      not counted but estimated as slabs * objs_per_slab / 2
 *                      (half-full slabs, as slub_set_cpu_partial() assumes;
 *                      so since 5.16, b47291ef02b0, which counts the list in
 *                      slabs: 6.2-6.17 all print the estimate)
 *
 * The sheaves model follows the kernel in which sheaves replaced the cpu
 * slabs (the "sheaves for all" series): the three files remain, for the
 * tools that read them, but show no per-CPU slabs: cpu_slabs "0" (SO_CPU
 * counts nothing), cpu_partial "0" (still a tunable that accepts only 0)
 * and slabs_cpu_partial "0(0)".
 */
#include "kfiles/kfiles.h"

#include <inttypes.h>

/* Node of slab @addr of cache @c in @snap, or -1. */
static int slab_node(const struct sim_snapshot *snap, const struct sim_snap_cache *c,
                     sim_addr_t addr)
{
    size_t i;

    for (i = 0; i < snap->nr_slabs; i++)
        if (snap->slabs[i].cache == c->id && snap->slabs[i].addr == addr)
            return snap->slabs[i].node;
    return -1;
}

/* Node of the head of @cpu's CPU partial list, or -1. */
static int cpu_partial_head_node(const struct sim_snapshot *snap, const struct sim_snap_cache *c,
                                 unsigned cpu)
{
    size_t i;

    for (i = 0; i < snap->nr_slabs; i++) {
        const struct sim_snap_slab *s = &snap->slabs[i];

        if (s->cache == c->id && s->place.type == SIM_PL_CPU_PARTIAL && s->place.cpu == (int)cpu &&
            s->place.slot == 0)
            return s->node;
    }
    return -1;
}

static bool is_legacy(const struct sim_snapshot *snap, const struct sim_snap_cache *c)
{
    /* the legacy and hybrid (6.18) kernels have cpu slabs */
    return snap->model != SIM_MODEL_SHEAVES && c->has_cpu_slab;
}

static unsigned nr_cpus_of(const struct sim_snapshot *snap)
{
    return snap->nr_cpus < SIM_MAX_CPUS ? snap->nr_cpus : SIM_MAX_CPUS;
}

void sysfs_cpu_slabs(struct strbuf *sb, const struct sim_snapshot *snap,
                     const struct sim_snap_cache *c)
{
    uint64_t per_node[SIM_MAX_NODES] = {0}, total = 0;
    unsigned cpu, n;
    int node;

    for (cpu = 0; is_legacy(snap, c) && cpu < nr_cpus_of(snap); cpu++) {
        const struct sim_snap_cpu_slab *cs = &c->cpu_slab[cpu];

        if (!cs->slab)
            continue;
        total++;
        if ((node = slab_node(snap, c, cs->slab)) >= 0 && node < SIM_MAX_NODES)
            per_node[node]++;
        if (!cs->nr_partial)
            continue;
        total += cs->nr_partial;
        if ((node = cpu_partial_head_node(snap, c, cpu)) >= 0 && node < SIM_MAX_NODES)
            per_node[node] += cs->nr_partial;
    }
    strbuf_printf(sb, "%" PRIu64, total);
    for (n = 0; n < snap->nr_nodes && n < SIM_MAX_NODES; n++)
        if (per_node[n])
            strbuf_printf(sb, " N%u=%" PRIu64, n, per_node[n]);
    strbuf_puts(sb, "\n");
}

void sysfs_cpu_partial(struct strbuf *sb, const struct sim_snapshot *snap,
                       const struct sim_snap_cache *c)
{
    strbuf_printf(sb, "%u\n", snap->model != SIM_MODEL_SHEAVES ? c->cpu_partial : 0u);
}

void sysfs_slabs_cpu_partial(struct strbuf *sb, const struct sim_snapshot *snap,
                             const struct sim_snap_cache *c)
{
    unsigned cpu, slabs = 0, per_slab = c->objects_per_slab;

    for (cpu = 0; is_legacy(snap, c) && cpu < nr_cpus_of(snap); cpu++)
        slabs += c->cpu_slab[cpu].nr_partial;
    strbuf_printf(sb, "%u(%u)", slabs * per_slab / 2, slabs);
    for (cpu = 0; is_legacy(snap, c) && cpu < nr_cpus_of(snap); cpu++) {
        unsigned n = c->cpu_slab[cpu].nr_partial;

        if (n)
            strbuf_printf(sb, " C%u=%u(%u)", cpu, n * per_slab / 2, n);
    }
    strbuf_puts(sb, "\n");
}

void sysfs_stat_show(struct strbuf *sb, const struct sim_snapshot *snap,
                     const struct sim_snap_cache *c, unsigned item)
{
    unsigned cpu, nr_cpus = nr_cpus_of(snap);
    uint64_t sum = 0;

    for (cpu = 0; cpu < nr_cpus; cpu++)
        sum += c->cpu_stats[cpu].v[item];
    strbuf_printf(sb, "%" PRIu64, sum);
    for (cpu = 0; cpu < nr_cpus; cpu++)
        if (c->cpu_stats[cpu].v[item])
            strbuf_printf(sb, " C%u=%" PRIu64, cpu, c->cpu_stats[cpu].v[item]);
    strbuf_puts(sb, "\n");
}
