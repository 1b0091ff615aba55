/*
 * test_legacy.c: the legacy model's scenarios 1.A-1.F and 2.D (docs/engine.md,
 * the legacy model), counter by counter and per CPU, in
 * each era, with the validator after every event and operation.  Every
 * counter a step does not list must stay where it was.
 */
#include <stdlib.h>

#include "internal.h"
#include "simtest.h"
#include "snapcmp.h"

/* Cfg-1: CPUs 0 and 1, @nodes nodes, CPU c on node c % nodes; t512 gets
 * order 0 (8 objects per slab) through its sysfs order file. */
static void cfg1(struct sim_config *cfg, enum sim_legacy_era era, unsigned nodes)
{
    sim_config_default(cfg);
    cfg->nr_nodes = nodes;
    for (unsigned c = 0; c < cfg->nr_cpus; c++)
        cfg->cpu_node[c] = c % nodes;
    cfg->variant[SIM_VAR_CPU_PARTIAL_DIRECT_LOAD] =
            era == SIM_ERA_DIRECT_LOAD ? SIM_AFTER : SIM_BEFORE;
    cfg->model = SIM_MODEL_LEGACY;
    cfg->legacy_era = era;
}

static int create_t512(struct tsim *t, unsigned cpu_partial)
{
    struct sim_op op = {.kind = SIM_OP_CREATE, .node = SIM_NUMA_NO_NODE};
    struct sim_result res;

    snprintf(op.create.name, sizeof(op.create.name), "t512");
    op.create.object_size = 512;
    op.create.cpu_partial = cpu_partial;
    op.create.set_order = true; /* sysfs order: 0 */
    if (tsim_apply(t, &op, &res))
        return -1;
    return res.cache;
}

static sim_addr_t alloc_node(struct tsim *t, int cache, unsigned cpu, int node)
{
    struct sim_op op = {.kind = SIM_OP_ALLOC, .cache = cache, .cpu = cpu, .node = node};
    struct sim_result res;

    if (tsim_apply(t, &op, &res) || res.status != SIM_OK)
        return 0;
    return res.addr;
}

/* Counters of every CPU, to compare deltas. */
struct counters {
    uint64_t v[2][SIM_NR_STATS];
};

static void take(struct tsim *t, int cache, struct counters *c)
{
    for (int cpu = 0; cpu < 2; cpu++)
        for (unsigned i = 0; i < SIM_NR_STATS; i++)
            c->v[cpu][i] = sim_stat(t->sim, cache, i, cpu);
}

/*
 * Check that since @before, CPU @cpu's kernel counters moved exactly as
 * listed in @want ("name=N name=N ...": every other counter stays).
 */
static bool deltas(struct tsim *t, int cache, const struct counters *before, int cpu,
        const char *want)
{
    struct counters now;
    int64_t expect[2][SIM_NR_STATS] = {{0}};
    char buf[512];
    bool ok = true;

    take(t, cache, &now);
    snprintf(buf, sizeof(buf), "%s", want);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        int item;

        *eq = 0;
        item = sim_stat_lookup(tok);
        if (!CHECK(item >= 0))
            return false;
        expect[cpu][item] = strtoll(eq + 1, NULL, 10);
    }
    for (int c = cpu; c == cpu; c++) {
        for (unsigned i = 0; i < SIM_NR_STATS; i++) {
            int64_t got = (int64_t)(now.v[c][i] - before->v[c][i]);

            if (sim_stat_is_engine_only(i) || got == expect[c][i])
                continue;
            printf("  cpu %d %s: delta %lld, want %lld\n", c, sim_stat_name(i), (long long)got,
                    (long long)expect[c][i]);
            ok = false;
        }
    }
    return CHECK(ok);
}

/* The geometry Cfg-1 asks for, and the derived tunables. */
static void test_cfg1_geometry(void)
{
    struct sim_config cfg;
    struct tsim t;
    struct sim_snap_cache c;
    int a, b;

    cfg1(&cfg, SIM_ERA_DIRECT_LOAD, 1);
    tsim_init(&t, &cfg);
    if (!CHECK(t.sim != NULL))
        return;
    a = create_t512(&t, 0);
    b = tsim_create(&t, "t64", 64, 0, 0);
    c = tsim_snap_cache(&t, a);
    CHECK_EQ_U(c.objects_per_slab, 8);
    CHECK_EQ_U(c.order, 0);
    CHECK_EQ_U(c.offset, 256);
    CHECK_EQ_U(c.min_partial, 5);
    CHECK_EQ_U(c.sheaf_capacity, 0);
    CHECK_EQ_U(c.cpu_partial, 52);
    CHECK_EQ_U(c.cpu_partial_slabs, 13); /* ceil(104 / 8) */
    c = tsim_snap_cache(&t, b);
    CHECK_EQ_U(c.objects_per_slab, 64);
    CHECK_EQ_U(c.cpu_partial, 120);
    CHECK_EQ_U(c.cpu_partial_slabs, 4); /* ceil(240 / 64) */
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* 1.A: cold start, fast path and deactivate_bypass, in every era. */
static void scenario_1a(struct tsim *t, int a, sim_addr_t *objs)
{
    struct counters k;

    take(t, a, &k);
    objs[0] = tsim_alloc(t, a, 0);
    deltas(t, a, &k, 0, "alloc_slowpath=1 alloc_slab=1");
    take(t, a, &k);
    for (int i = 1; i < 8; i++)
        objs[i] = tsim_alloc(t, a, 0);
    deltas(t, a, &k, 0, "alloc_fastpath=7");
    take(t, a, &k);
    objs[8] = tsim_alloc(t, a, 0);
    deltas(t, a, &k, 0, "alloc_slowpath=1 deactivate_bypass=1 alloc_slab=1");
}

static void test_1a(void)
{
    for (int era = SIM_ERA_FROZEN_PARTIAL; era <= SIM_ERA_DIRECT_LOAD; era++) {
        struct sim_config cfg;
        struct tsim t;
        struct sim_snapshot *snap;
        sim_addr_t o[9];
        int a;

        cfg1(&cfg, (enum sim_legacy_era)era, 1);
        tsim_init(&t, &cfg);
        a = create_t512(&t, 0);
        scenario_1a(&t, a, o);
        for (int i = 1; i < 8; i++)
            CHECK_EQ_U(o[i], o[0] + 512u * (unsigned)i); /* address order */
        if (CHECK(sim_snapshot(t.sim, &snap) == 0)) {
            const struct sim_snap_cache *c = &snap->caches[a];

            CHECK_EQ_U(snap->nr_slabs, 2);
            CHECK_EQ_U(snap->slabs[0].place.type, SIM_PL_FULL); /* S1 floats full */
            CHECK_EQ_U(snap->slabs[0].inuse, 8);
            CHECK_EQ_U(c->cpu_slab[0].slab, o[8] & ~4095ull);
            CHECK_EQ_U(c->cpu_slab[0].nr_freelist, 7);
            CHECK_EQ_U(snap->objs[c->cpu_slab[0].freelist], o[8] + 512);
            CHECK_EQ_U(snap->slabs[1].place.type, SIM_PL_CPU_SLAB);
            CHECK_EQ_U(snap->slabs[1].inuse, 8); /* c->freelist counts in inuse (I1) */
            CHECK_EQ_U(snap->slabs[1].nr_free, 0);
            /* TID_STEP is roundup_pow_of_two(CONFIG_NR_CPUS), the lab's 64,
             * not the machine's CPU count: 9 loads or pops, and c->slab
             * dropped by deactivate_bypass */
            CHECK_EQ_U(c->cpu_slab[0].tid, 10 * 64);
            CHECK_EQ_U(c->cpu_slab[1].tid, 1); /* init_tid(1), untouched */
            sim_snapshot_release(snap);
        }
        CHECK_CLEAN(&t);
        tsim_fini(&t);
    }
}

/* 1.B: a remote free to a full slab, then its reuse: the studied change. */
static void test_1b(void)
{
    static const char *const step2[] = {
        [SIM_ERA_FROZEN_PARTIAL] = "alloc_slowpath=1 cpu_partial_alloc=1 alloc_refill=1",
        [SIM_ERA_DELAYED_FREEZE] = "alloc_slowpath=1 cpu_partial_alloc=1",
        [SIM_ERA_DIRECT_LOAD] = "alloc_slowpath=1 cpu_partial_alloc=1",
    };
    /* the lock sections of step 2 as events */
    static const char *const events2[] = {
        [SIM_ERA_FROZEN_PARTIAL] = "___slab_alloc/slowpath\n___slab_alloc/cpu_partial_pop\n"
                                   "___slab_alloc/alloc_refill\n",
        [SIM_ERA_DELAYED_FREEZE] = "___slab_alloc/slowpath\n___slab_alloc/cpu_partial_pop\n"
                                   "freeze_slab/freeze\n___slab_alloc/retry_load_slab\n",
        [SIM_ERA_DIRECT_LOAD] = "___slab_alloc/slowpath\n___slab_alloc/cpu_partial_load\n",
    };

    for (int era = SIM_ERA_FROZEN_PARTIAL; era <= SIM_ERA_DIRECT_LOAD; era++) {
        struct sim_config cfg;
        struct tsim t;
        struct counters k;
        struct evlog log;
        struct sim_snap_cache c;
        sim_addr_t o[9], got;
        int a;

        cfg1(&cfg, (enum sim_legacy_era)era, 1);
        tsim_init(&t, &cfg);
        a = create_t512(&t, 0);
        scenario_1a(&t, a, o);
        take(&t, a, &k);
        CHECK_EQ_U(tsim_free(&t, a, 1, o[3]), SIM_OK);
        deltas(&t, a, &k, 1, "free_slowpath=1 cpu_partial_free=1");
        c = tsim_snap_cache(&t, a);
        CHECK_EQ_U(c.cpu_slab[1].nr_partial, 1);

        take(&t, a, &k);
        log_start(&log, &t);
        got = tsim_alloc(&t, a, 1);
        CHECK_EQ_U(got, o[3]);
        deltas(&t, a, &k, 1, step2[era]);
        deltas(&t, a, &k, 0, "");
        CHECK_EQ_STR(log.text, events2[era]);
        c = tsim_snap_cache(&t, a);
        CHECK_EQ_U(c.cpu_slab[1].slab, o[0]);
        CHECK_EQ_U(c.cpu_slab[1].nr_freelist, 0);
        CHECK_EQ_U(c.cpu_slab[1].nr_partial, 0);

        take(&t, a, &k);
        CHECK(tsim_alloc(&t, a, 1) != 0);
        deltas(&t, a, &k, 1, "alloc_slowpath=1 deactivate_bypass=1 alloc_slab=1");
        CHECK_CLEAN(&t);
        tsim_fini(&t);
    }
}

/* 1.C: the unlikely branch, a NUMA mismatch on a cpu partial slab. */
static void test_1c(void)
{
    static const char *const want[] = {
        [SIM_ERA_FROZEN_PARTIAL] = "alloc_slowpath=1 cpu_partial_alloc=1 alloc_node_mismatch=1 "
                                   "deactivate_remote_frees=1 deactivate_to_tail=1 alloc_slab=1",
        [SIM_ERA_DELAYED_FREEZE] = "alloc_slowpath=1 cpu_partial_alloc=1 free_add_partial=1 "
                                   "alloc_slab=1",
        [SIM_ERA_DIRECT_LOAD] = "alloc_slowpath=1 free_add_partial=1 alloc_slab=1",
    };

    for (int era = SIM_ERA_FROZEN_PARTIAL; era <= SIM_ERA_DIRECT_LOAD; era++) {
        struct sim_config cfg;
        struct tsim t;
        struct counters k;
        struct sim_snapshot *snap;
        sim_addr_t o[9], got;
        int a;

        cfg1(&cfg, (enum sim_legacy_era)era, 2);
        tsim_init(&t, &cfg);
        a = create_t512(&t, 0);
        scenario_1a(&t, a, o);
        tsim_free(&t, a, 1, o[3]);
        take(&t, a, &k);
        got = alloc_node(&t, a, 1, 1);
        deltas(&t, a, &k, 1, want[era]);
        if (CHECK(got != 0 && sim_snapshot(t.sim, &snap) == 0)) {
            CHECK_EQ_U(snap->caches[a].node[0].nr_partial, 1);
            CHECK_EQ_U(snap->slabs[0].addr, o[0]);
            CHECK_EQ_U(snap->slabs[0].place.type, SIM_PL_NODE_PARTIAL); /* S1, unfrozen */
            CHECK_EQ_U(snap->slabs[0].inuse, 7);
            CHECK_EQ_U(snap->slabs[snap->nr_slabs - 1].node, 1); /* the new slab */
            CHECK_EQ_U(snap->caches[a].cpu_slab[1].slab, got & ~4095ull);
            sim_snapshot_release(snap);
        }
        CHECK_CLEAN(&t);
        tsim_fini(&t);
    }
}

/* Make three full floating slabs F1..F3 on CPU 0 (as in 1.A), returning
 * their first objects; CPU 0 keeps a fourth as its cpu slab. */
static void three_full(struct tsim *t, int a, sim_addr_t f[3])
{
    for (int i = 0; i < 25; i++) {
        sim_addr_t p = tsim_alloc(t, a, 0);

        if (i % 8 == 0 && i < 24)
            f[i / 8] = p;
    }
}

/* 1.D: frees push full slabs onto CPU 1's partial list until it drains. */
static void test_1d(void)
{
    for (int era = SIM_ERA_FROZEN_PARTIAL; era <= SIM_ERA_DIRECT_LOAD; era++) {
        struct sim_config cfg;
        struct tsim t;
        struct counters k;
        struct sim_snapshot *snap;
        struct sim_snap_cache c;
        sim_addr_t f[3];
        int a;

        cfg1(&cfg, (enum sim_legacy_era)era, 1);
        tsim_init(&t, &cfg);
        a = create_t512(&t, 8);
        c = tsim_snap_cache(&t, a);
        CHECK_EQ_U(c.cpu_partial_slabs, 2);
        three_full(&t, a, f);
        take(&t, a, &k);
        tsim_free(&t, a, 1, f[0]);
        deltas(&t, a, &k, 1, "free_slowpath=1 cpu_partial_free=1");
        take(&t, a, &k);
        tsim_free(&t, a, 1, f[1]);
        deltas(&t, a, &k, 1, "free_slowpath=1 cpu_partial_free=1");
        CHECK_EQ_U(tsim_snap_cache(&t, a).cpu_slab[1].nr_partial, 2);
        take(&t, a, &k);
        tsim_free(&t, a, 1, f[2]);
        deltas(&t, a, &k, 1,
                "free_slowpath=1 cpu_partial_free=1 cpu_partial_drain=1 free_add_partial=2");
        deltas(&t, a, &k, 0, "");
        if (CHECK(sim_snapshot(t.sim, &snap) == 0)) {
            unsigned seen = 0;

            CHECK_EQ_U(snap->caches[a].node[0].nr_partial, 2);
            CHECK_EQ_U(snap->caches[a].cpu_slab[1].nr_partial, 1);
            for (size_t i = 0; i < snap->nr_slabs; i++) {
                const struct sim_snap_slab *sl = &snap->slabs[i];

                if (sl->addr == f[2]) {
                    CHECK_EQ_U(sl->place.type, SIM_PL_CPU_PARTIAL);
                    CHECK_EQ_U(sl->place.cpu, 1);
                    seen++;
                }
                if (sl->addr == f[0] || sl->addr == f[1]) {
                    CHECK_EQ_U(sl->place.type, SIM_PL_NODE_PARTIAL);
                    seen++;
                }
            }
            CHECK_EQ_U(seen, 3);
            sim_snapshot_release(snap);
        }
        CHECK_CLEAN(&t);
        tsim_fini(&t);
    }
}

/* 1.E: a node partial refill moves extra slabs to the cpu partial list. */
static void test_1e(void)
{
    for (int era = SIM_ERA_FROZEN_PARTIAL; era <= SIM_ERA_DIRECT_LOAD; era++) {
        struct sim_config cfg;
        struct tsim t;
        struct counters k;
        struct sim_snap_cache c;
        sim_addr_t o[40], first = 0;
        int a;

        cfg1(&cfg, (enum sim_legacy_era)era, 1);
        tsim_init(&t, &cfg);
        a = create_t512(&t, 16);
        for (int i = 0; i < 40; i++)
            o[i] = tsim_alloc(&t, a, 0);
        tsim_simple(&t, SIM_OP_FLUSH_ALL, a, 0); /* S5 floats full */
        for (int s = 0; s < 5; s++)
            for (int j = 0; j < 4; j++)
                tsim_free(&t, a, 1, o[s * 8 + j]);
        tsim_simple(&t, SIM_OP_FLUSH_ALL, a, 0);
        c = tsim_snap_cache(&t, a);
        CHECK_EQ_U(c.node[0].nr_partial, 5);
        CHECK_EQ_U(c.cpu_partial_slabs, 4);

        take(&t, a, &k);
        first = tsim_alloc(&t, a, 0);
        deltas(&t, a, &k, 0, "alloc_slowpath=1 alloc_from_partial=1 cpu_partial_node=3");
        c = tsim_snap_cache(&t, a);
        CHECK_EQ_U(c.cpu_slab[0].nr_partial, 3);
        CHECK_EQ_U(c.cpu_slab[0].nr_freelist, 3);
        CHECK_EQ_U(c.node[0].nr_partial, 1);
        CHECK_EQ_U(first, o[3 * 8 + 3]); /* P1 = S4: freed last-in first */
        take(&t, a, &k);
        for (int i = 0; i < 3; i++)
            tsim_alloc(&t, a, 0);
        deltas(&t, a, &k, 0, "alloc_fastpath=3");
        take(&t, a, &k);
        CHECK_EQ_U(tsim_alloc(&t, a, 0), o[0 * 8 + 3]); /* P4 = S1, the head */
        deltas(&t, a, &k, 0,
                era == SIM_ERA_FROZEN_PARTIAL
                        ? "alloc_slowpath=1 deactivate_bypass=1 cpu_partial_alloc=1 alloc_refill=1"
                        : "alloc_slowpath=1 deactivate_bypass=1 cpu_partial_alloc=1");
        CHECK_CLEAN(&t);
        tsim_fini(&t);
    }
}

/* 1.F: the four outcomes of deactivate_slab when kmem_cache_shrink flushes. */
static void test_1f(void)
{
    struct sim_config cfg;
    struct tsim t;
    struct counters k;
    sim_addr_t o[64];
    int a;

    cfg1(&cfg, SIM_ERA_DIRECT_LOAD, 1);
    /* one object in user hands, seven on c->freelist */
    tsim_init(&t, &cfg);
    a = create_t512(&t, 0);
    tsim_alloc(&t, a, 0);
    take(&t, a, &k);
    tsim_simple(&t, SIM_OP_SHRINK, a, 0);
    deltas(&t, a, &k, 0, "cpuslab_flush=1 deactivate_to_head=1");
    CHECK_CLEAN(&t);
    tsim_fini(&t);

    /* a remote free happened first */
    tsim_init(&t, &cfg);
    a = create_t512(&t, 0);
    o[0] = tsim_alloc(&t, a, 0);
    o[1] = tsim_alloc(&t, a, 0);
    take(&t, a, &k);
    tsim_free(&t, a, 1, o[1]);
    deltas(&t, a, &k, 1, "free_slowpath=1 free_frozen=1");
    take(&t, a, &k);
    tsim_simple(&t, SIM_OP_SHRINK, a, 0);
    deltas(&t, a, &k, 0, "cpuslab_flush=1 deactivate_remote_frees=1 deactivate_to_tail=1");
    CHECK_CLEAN(&t);
    tsim_fini(&t);

    /* all eight free (on c->freelist) and the node keeps min_partial
     * partial slabs: CPU 1 makes six through drains of its partial list */
    tsim_init(&t, &cfg);
    a = create_t512(&t, 8);
    tsim_free(&t, a, 0, tsim_alloc(&t, a, 0));
    for (int i = 0; i < 64; i++)
        o[i] = tsim_alloc(&t, a, 1);
    for (int s = 0; s < 7; s++)
        tsim_free(&t, a, 1, o[s * 8]);
    CHECK_EQ_U(tsim_snap_cache(&t, a).node[0].nr_partial, 6);
    take(&t, a, &k);
    tsim_simple(&t, SIM_OP_SHRINK, a, 0);
    deltas(&t, a, &k, 0, "cpuslab_flush=1 deactivate_empty=1 free_slab=1");
    CHECK_CLEAN(&t);
    tsim_fini(&t);

    /* nothing free */
    tsim_init(&t, &cfg);
    a = create_t512(&t, 0);
    for (int i = 0; i < 8; i++)
        tsim_alloc(&t, a, 0);
    take(&t, a, &k);
    tsim_simple(&t, SIM_OP_SHRINK, a, 0);
    deltas(&t, a, &k, 0, "cpuslab_flush=1 deactivate_full=1");
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* 2.D: one bulk free drives the CPU partial machinery (three slow frees,
 * the third drains), and a group on the CPU's own slab takes the fast path. */
static void test_2d_bulk_free(void)
{
    for (int era = SIM_ERA_FROZEN_PARTIAL; era <= SIM_ERA_DIRECT_LOAD; era++) {
        struct sim_config cfg;
        struct tsim t;
        struct counters k;
        sim_addr_t o[25], arr[8];
        struct sim_op op = {.kind = SIM_OP_FREE_BULK, .cpu = 1, .node = SIM_NUMA_NO_NODE};
        struct sim_result res;
        int a;

        cfg1(&cfg, (enum sim_legacy_era)era, 1);
        tsim_init(&t, &cfg);
        a = create_t512(&t, 8);
        for (int i = 0; i < 25; i++)
            o[i] = tsim_alloc(&t, a, 0);
        /* [f1a, f1b, f2a, f2b, f3a, f3b] */
        for (int s = 0; s < 3; s++) {
            arr[2 * s] = o[8 * s];
            arr[2 * s + 1] = o[8 * s + 1];
        }
        op.cache = a;
        op.count = 6;
        op.in = arr;
        take(&t, a, &k);
        CHECK_EQ_U(tsim_apply(&t, &op, &res), 0);
        CHECK_EQ_U(res.status, SIM_OK);
        deltas(&t, a, &k, 1,
                "free_slowpath=3 cpu_partial_free=3 cpu_partial_drain=1 free_add_partial=2");
        CHECK_EQ_U(tsim_snap_cache(&t, a).node[0].nr_partial, 2);
        /* CPU 0 frees two objects of its own cpu slab in one call: one fast push of 2,
         * counted per object since "mm/slub: fix bulk alloc and free stats" (6.8),
         * once per batch before it (ERA_FROZEN_PARTIAL, 6.1-6.7) */
        arr[0] = o[24];
        arr[1] = tsim_alloc(&t, a, 0);
        op.cpu = 0;
        op.count = 2;
        take(&t, a, &k);
        CHECK_EQ_U(tsim_apply(&t, &op, &res), 0);
        deltas(&t, a, &k, 0,
               era == SIM_ERA_FROZEN_PARTIAL ? "free_fastpath=1 alloc_fastpath=0"
                                             : "free_fastpath=2 alloc_fastpath=0");
        CHECK_CLEAN(&t);
        tsim_fini(&t);
    }
}

/* Require @at_op and @at_event violations now. */
static bool violations(struct tsim *t, unsigned at_op, unsigned at_event)
{
    struct sim_report rep;
    bool ok = CHECK_EQ_U(sim_validate(t->sim, SIM_VALIDATE_OP, &rep), at_op);

    if (!ok && rep.violations)
        printf("  first: %s\n", rep.msg[0]);
    ok &= CHECK_EQ_U(sim_validate(t->sim, SIM_VALIDATE_EVENT, &rep), at_event);
    return ok;
}

/*
 * Corrupt-then-validate for the legacy invariants: after 1.D (CPU 0's cpu
 * slab with 7 objects on its lockless freelist, CPU 1's partial list [F3],
 * node 0's partial list [F2, F1]) break one thing, require the exact count
 * of violations, put it back, require a clean state.
 */
static void test_validator_catches(void)
{
    struct sim_config cfg;
    struct tsim t;
    sim_addr_t f[3];
    struct kmem_cache *s;
    struct kmem_cache_cpu *c0, *c1;
    struct slab *cs, *f3, *f1, *extra;
    int a;

    cfg1(&cfg, SIM_ERA_DIRECT_LOAD, 1);
    tsim_init(&t, &cfg);
    a = create_t512(&t, 8);
    three_full(&t, a, f);
    for (int i = 0; i < 3; i++)
        tsim_free(&t, a, 1, f[i]);
    s = t.sim->caches[a];
    c0 = &s->cpu_slab[0];
    c1 = &s->cpu_slab[1];
    cs = slab_at(t.sim, c0->slab);
    f3 = slab_at(t.sim, c1->partial);
    f1 = slab_of(t.sim, f[0]);
    if (!violations(&t, 0, 0))
        return;

    cs->cpu_frozen = false; /* a cpu slab must be frozen */
    violations(&t, 1, 1);
    cs->cpu_frozen = true;

    f1->cpu_frozen = true; /* frozen on a node partial list (I6) */
    violations(&t, 1, 1);
    f1->cpu_frozen = false;

    f3->slabs = 2; /* the head's length is exact (I5) */
    violations(&t, 1, 1);
    f3->slabs = 1;

    c0->tid += 1; /* tid = cpu + k * TID_STEP */
    violations(&t, 1, 1);
    c0->tid -= 1;

    cs->cpu = 1; /* owned by the CPU that points at it */
    violations(&t, 1, 1); /* CPU 0's slab says it belongs to CPU 1 */
    cs->cpu = 0;

    {
        sim_addr_t head = c0->freelist; /* an object lost from the lockless freelist */

        c0->freelist = peek_freepointer(t.sim, s, head, NULL);
        violations(&t, 1, 1); /* conservation: inuse 8, users 1 + held 6 */
        c0->freelist = head;
    }

    extra = slab_of(t.sim, f[1]); /* a node partial slab that claims a CPU list */
    extra->list = SLAB_ON_CPU_PARTIAL;
    extra->cpu = 1;
    violations(&t, 2, 2); /* not reached from CPU 1; and not on node 0's list as it says */
    extra->list = SLAB_ON_PARTIAL;
    extra->cpu = -1;
    violations(&t, 0, 0);
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* A mixed workload: allocations on both CPUs, frees of held objects from
 * either CPU, flushes.  Deterministic; its state is plain data. */
struct wl {
    sim_addr_t held[256];
    unsigned nr;
};

static void workload(struct sim *sim, int a, struct wl *w, unsigned from, unsigned to)
{
    struct sim_result res;

    for (unsigned i = from; i < to; i++) {
        struct sim_op op = {.cache = a, .cpu = i % 2, .node = SIM_NUMA_NO_NODE};

        if (i % 7 == 3 && w->nr) {
            unsigned k = (i * 5) % w->nr;

            op.kind = SIM_OP_FREE;
            op.addr = w->held[k];
            w->nr--;
            w->held[k] = w->held[w->nr];
        } else if (i % 29 == 0) {
            op.kind = SIM_OP_FLUSH_ALL;
        } else {
            op.kind = SIM_OP_ALLOC;
        }
        if (!CHECK_EQ_U(sim_apply(sim, &op, &res), 0))
            return;
        if (op.kind == SIM_OP_ALLOC && res.addr && w->nr < 256)
            w->held[w->nr++] = res.addr;
    }
}

/* A clone mid-workload carries the cpu slabs, lockless freelists and
 * partial lists: original and clone then evolve identically, and so does
 * a fresh machine fed the same operations, in every era. */
static void test_clone_and_determinism(void)
{
    for (int era = SIM_ERA_FROZEN_PARTIAL; era <= SIM_ERA_DIRECT_LOAD; era++) {
        struct sim_config cfg;
        struct tsim t, u;
        struct sim *copy = NULL;
        struct sim_snapshot *x, *y, *z;
        struct wl w1 = {{0}, 0}, w2, w3 = {{0}, 0};
        char why[160] = "";
        int a, b;

        cfg1(&cfg, (enum sim_legacy_era)era, 1);
        tsim_init(&t, &cfg);
        a = create_t512(&t, 8);
        workload(t.sim, a, &w1, 0, 150);
        if (!CHECK_EQ_U(sim_clone(t.sim, &copy), 0))
            return;
        w2 = w1;
        workload(t.sim, a, &w1, 150, 300);
        workload(copy, a, &w2, 150, 300);
        x = snap_take(t.sim);
        y = snap_take(copy);
        tsim_init(&u, &cfg);
        b = create_t512(&u, 8);
        workload(u.sim, b, &w3, 0, 300);
        z = snap_take(u.sim);
        if (!CHECK(x && y && snap_equal(x, y, SNAPCMP_CLOCK, why, sizeof(why))))
            printf("  clone: %s\n", why);
        if (!CHECK(x && z && snap_equal(x, z, SNAPCMP_CLOCK, why, sizeof(why))))
            printf("  fresh: %s\n", why);
        CHECK(x && x->caches[a].has_cpu_slab && x->caches[a].cpu_slab[0].slab != 0);
        sim_snapshot_release(x);
        sim_snapshot_release(y);
        sim_snapshot_release(z);
        sim_destroy(copy);
        CHECK_CLEAN(&t);
        CHECK_CLEAN(&u);
        tsim_fini(&t);
        tsim_fini(&u);
    }
}

int main(void)
{
    RUN_TEST(test_cfg1_geometry);
    RUN_TEST(test_1a);
    RUN_TEST(test_1b);
    RUN_TEST(test_1c);
    RUN_TEST(test_1d);
    RUN_TEST(test_1e);
    RUN_TEST(test_1f);
    RUN_TEST(test_2d_bulk_free);
    RUN_TEST(test_validator_catches);
    RUN_TEST(test_clone_and_determinism);
    return check_done();
}
