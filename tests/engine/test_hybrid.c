/*
 * test_hybrid.c: the hybrid model of 6.18-6.19 (docs/engine.md, the hybrid
 * model): a maple_node-like cache created with sheaf_capacity 32 beside a
 * kmalloc-64-like plain cache, counter deltas step by step (every counter a
 * step does not list must stay where it was), the gfp gate of the refill,
 * kfree_rcu with and without sheaves, node-bound allocations, shrinking,
 * the release table's rows, and corrupt-then-validate for the layer
 * invariants H1-H3.  The validator runs after every event and operation.
 */
#include <stdlib.h>

#include "internal.h"
#include "simtest.h"

/* A 6.18 machine: @cpus CPUs, @nodes nodes, CPU c on node c % nodes. */
static void cfg618(struct sim_config *cfg, unsigned cpus, unsigned nodes)
{
    sim_config_default(cfg);
    cfg->nr_cpus = cpus;
    cfg->nr_nodes = nodes;
    for (unsigned c = 0; c < cpus; c++)
        cfg->cpu_node[c] = c % nodes;
    sim_release_apply(SIM_RELEASE_6_18, cfg);
}

static int create(struct tsim *t, const char *name, unsigned size, unsigned sheaf_capacity)
{
    struct sim_op op = {.kind = SIM_OP_CREATE, .node = SIM_NUMA_NO_NODE};
    struct sim_result res;

    snprintf(op.create.name, sizeof(op.create.name), "%s", name);
    op.create.object_size = size;
    op.create.sheaf_capacity = sheaf_capacity;
    if (tsim_apply(t, &op, &res) || res.status != SIM_OK)
        return -1;
    return res.cache;
}

static sim_addr_t alloc(struct tsim *t, int cache, unsigned cpu, int node, uint32_t gfp)
{
    struct sim_op op = {.kind = SIM_OP_ALLOC, .cache = cache, .cpu = cpu, .node = node, .gfp = gfp};
    struct sim_result res;

    if (tsim_apply(t, &op, &res) || res.status != SIM_OK)
        return 0;
    return res.addr;
}

static int do_op(struct tsim *t, enum sim_op_kind kind, int cache, unsigned cpu, sim_addr_t addr)
{
    struct sim_op op = {
            .kind = kind, .cache = cache, .cpu = cpu, .node = SIM_NUMA_NO_NODE, .addr = addr};
    struct sim_result res;

    if (tsim_apply(t, &op, &res))
        return -1;
    return res.status == SIM_OK ? 0 : -1;
}

/* Every counter of one CPU of one cache. */
struct counters {
    uint64_t v[SIM_NR_STATS];
};

static void take(struct tsim *t, int cache, unsigned cpu, struct counters *c)
{
    for (unsigned i = 0; i < SIM_NR_STATS; i++)
        c->v[i] = sim_stat(t->sim, cache, i, (int)cpu);
}

/* Since @before, CPU @cpu's kernel counters of @cache moved exactly as
 * @want says ("name=N ..."); every other kernel counter stayed. */
static bool deltas(struct tsim *t, int cache, unsigned cpu, const struct counters *before,
                   const char *want)
{
    struct counters now;
    int64_t expect[SIM_NR_STATS] = {0};
    char buf[512];
    bool ok = true;

    take(t, cache, cpu, &now);
    snprintf(buf, sizeof(buf), "%s", want);
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        int item;

        if (!CHECK(eq != NULL))
            return false;
        *eq = 0;
        item = sim_stat_lookup(tok);
        if (!CHECK(item >= 0))
            return false;
        expect[item] = strtoll(eq + 1, NULL, 10);
    }
    for (unsigned i = 0; i < SIM_NR_STATS; i++) {
        int64_t got = (int64_t)(now.v[i] - before->v[i]);

        if (sim_stat_is_engine_only(i) || got == expect[i])
            continue;
        printf("  %s cpu %u %s: delta %lld, want %lld\n", t->sim->caches[cache]->name, cpu,
               sim_stat_name(i), (long long)got, (long long)expect[i]);
        ok = false;
    }
    return CHECK(ok);
}

/* The release rows map to the hybrid model, whose counters are both layers'. */
static void test_release_rows(void)
{
    struct sim_config cfg;
    char name[32];

    cfg618(&cfg, 2, 1);
    CHECK_EQ_I(cfg.model, SIM_MODEL_HYBRID);
    CHECK_EQ_I(sim_legacy_era(&cfg), SIM_ERA_DIRECT_LOAD);
    CHECK(sim_model_error(&cfg) == NULL);
    sim_model_format(&cfg, name, sizeof(name));
    CHECK_EQ_STR(name, "6.18");
    CHECK_OK(sim_model_parse("6.19", &cfg));
    CHECK_EQ_I(cfg.model, SIM_MODEL_HYBRID);
    CHECK_OK(sim_model_parse("hybrid", &cfg));
    CHECK_EQ_I(cfg.model, SIM_MODEL_HYBRID);
    CHECK_EQ_STR(sim_model_name(SIM_MODEL_HYBRID), "hybrid");
    cfg.variant[SIM_VAR_CPU_PARTIAL_DIRECT_LOAD] = SIM_BEFORE; /* 6.8's cpu slabs: no */
    CHECK(sim_model_error(&cfg) != NULL);
    CHECK_OK(sim_model_parse("6.12", &cfg));
    CHECK_EQ_I(cfg.model, SIM_MODEL_LEGACY);

    CHECK(sim_stat_in_model(SIM_ALLOC_CPU_SHEAF, SIM_MODEL_HYBRID));
    CHECK(sim_stat_in_model(SIM_FREE_CPU_SHEAF, SIM_MODEL_HYBRID));
    CHECK(sim_stat_in_model(SIM_CPU_PARTIAL_FREE, SIM_MODEL_HYBRID));
    CHECK(sim_stat_in_model(SIM_BARN_GET, SIM_MODEL_HYBRID));
    CHECK(!sim_stat_in_model(SIM_ALLOC_CPU_SHEAF, SIM_MODEL_SHEAVES));
    CHECK(!sim_stat_in_model(SIM_FREE_CPU_SHEAF, SIM_MODEL_LEGACY));
    CHECK(!sim_stat_in_model(SIM_BARN_GET, SIM_MODEL_LEGACY));
    CHECK_EQ_STR(sim_stat_name(SIM_ALLOC_CPU_SHEAF), "alloc_cpu_sheaf");
    CHECK_EQ_STR(sim_stat_name(SIM_FREE_CPU_SHEAF), "free_cpu_sheaf");
    CHECK(sim_variant_in_model(SIM_VAR_CPU_PARTIAL_DIRECT_LOAD, SIM_MODEL_HYBRID));
    CHECK(!sim_variant_in_model(SIM_VAR_DEFERRED_FREELIST, SIM_MODEL_HYBRID));
}

/* Only the cache created with a sheaf_capacity has sheaves, of exactly it;
 * both have cpu slabs and CPU partial lists. */
static void test_layers(void)
{
    struct sim_config cfg;
    struct sim_snap_cache maple, plain;
    struct tsim t;
    int m, p;

    cfg618(&cfg, 2, 1);
    tsim_init(&t, &cfg);
    m = create(&t, "maple_node", 256, 32);
    p = create(&t, "kmalloc-64", 64, 0);
    CHECK_GE_I(m, 0);
    CHECK_GE_I(p, 0);
    maple = tsim_snap_cache(&t, m);
    plain = tsim_snap_cache(&t, p);
    CHECK_EQ_U(maple.sheaf_capacity, 32);
    CHECK(maple.has_cpu_slab);
    CHECK_EQ_U(maple.cpu_partial, 52);
    CHECK_NE_U(maple.main[0], 0);
    CHECK_EQ_U(plain.sheaf_capacity, 0);
    CHECK(plain.has_cpu_slab);
    CHECK_EQ_U(plain.cpu_partial, 120);
    CHECK_EQ_U(plain.main[0], 0);
    /* 7.x gives the plain cache sheaves of a computed capacity */
    tsim_fini(&t);
    sim_config_default(&cfg);
    tsim_init(&t, &cfg);
    p = create(&t, "kmalloc-64", 64, 0);
    plain = tsim_snap_cache(&t, p);
    CHECK_GT_U(plain.sheaf_capacity, 0);
    CHECK(!plain.has_cpu_slab);
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/*
 * The plain cache counts the cpu slab's counters only; the maple cache
 * counts alloc_cpu_sheaf and free_cpu_sheaf for its sheaf, and its refill
 * goes through the cpu slab's bulk path (alloc_fastpath and alloc_slowpath
 * for the 32 objects).
 */
static void test_counters(void)
{
    struct sim_config cfg;
    struct counters before;
    struct evlog log;
    struct tsim t;
    sim_addr_t a, b, x;
    int m, p;

    cfg618(&cfg, 2, 1);
    tsim_init(&t, &cfg);
    m = create(&t, "maple_node", 256, 32);
    p = create(&t, "kmalloc-64", 64, 0);

    take(&t, p, 0, &before);
    a = alloc(&t, p, 0, SIM_NUMA_NO_NODE, 0);
    CHECK_NE_U(a, 0);
    deltas(&t, p, 0, &before, "alloc_slowpath=1 alloc_slab=1");
    take(&t, p, 0, &before);
    b = alloc(&t, p, 0, SIM_NUMA_NO_NODE, 0);
    deltas(&t, p, 0, &before, "alloc_fastpath=1");
    take(&t, p, 0, &before);
    CHECK_OK(do_op(&t, SIM_OP_FREE, p, 0, b));
    deltas(&t, p, 0, &before, "free_fastpath=1");

    log_start(&log, &t);
    take(&t, m, 0, &before);
    x = alloc(&t, m, 0, SIM_NUMA_NO_NODE, 0);
    CHECK_NE_U(x, 0);
    /* barn_get_fail, a new sheaf (alloc_full_sheaf) refilled from the cpu
     * slab: one ___slab_alloc for a new slab, then pops; one object out */
    CHECK_EQ_U(sim_stat(t.sim, m, SIM_SHEAF_REFILL, 0) - before.v[SIM_SHEAF_REFILL], 32);
    CHECK_EQ_U(sim_stat(t.sim, m, SIM_ALLOC_FASTPATH, 0) - before.v[SIM_ALLOC_FASTPATH] +
                       sim_stat(t.sim, m, SIM_ALLOC_SLOWPATH, 0) - before.v[SIM_ALLOC_SLOWPATH],
               32);
    CHECK(strstr(log.text, "alloc_full_sheaf/new\n") != NULL);
    CHECK(strstr(log.text, "__kmem_cache_alloc_bulk/into_sheaf\n") != NULL);
    CHECK(strstr(log.text, "alloc_from_pcs/fastpath\n") != NULL);
    {
        uint64_t fast = sim_stat(t.sim, m, SIM_ALLOC_FASTPATH, 0) - before.v[SIM_ALLOC_FASTPATH];
        uint64_t slow = sim_stat(t.sim, m, SIM_ALLOC_SLOWPATH, 0) - before.v[SIM_ALLOC_SLOWPATH];
        uint64_t slabs = sim_stat(t.sim, m, SIM_ALLOC_SLAB, 0) - before.v[SIM_ALLOC_SLAB];
        char want[256];

        snprintf(want, sizeof(want),
                 "alloc_cpu_sheaf=1 barn_get_fail=1 sheaf_alloc=1 sheaf_refill=32 "
                 "alloc_fastpath=%llu alloc_slowpath=%llu alloc_slab=%llu "
                 "deactivate_bypass=%llu",
                 (unsigned long long)fast, (unsigned long long)slow, (unsigned long long)slabs,
                 (unsigned long long)(slow - 1));
        /* 256-byte objects, 16 to an order-0 slab: the cpu slab ran dry once */
        CHECK_EQ_U(slow, 2);
        CHECK_EQ_U(slabs, slow); /* each ___slab_alloc took a new slab, the first after
                                  * dropping the drained one (deactivate_bypass) */
        deltas(&t, m, 0, &before, want);
    }
    take(&t, m, 0, &before);
    CHECK_OK(do_op(&t, SIM_OP_FREE, m, 0, x));
    deltas(&t, m, 0, &before, "free_cpu_sheaf=1");
    /* the next 32 allocations come from main: 31 left, then the refill */
    take(&t, m, 0, &before);
    for (int i = 0; i < 32; i++)
        CHECK_NE_U(alloc(&t, m, 0, SIM_NUMA_NO_NODE, 0), 0);
    CHECK_EQ_U(sim_stat(t.sim, m, SIM_ALLOC_CPU_SHEAF, 0) - before.v[SIM_ALLOC_CPU_SHEAF], 32);
    CHECK_EQ_U(sim_stat(t.sim, m, SIM_BARN_GET_FAIL, 0) - before.v[SIM_BARN_GET_FAIL], 0);
    /* the plain cache never counted a sheaf counter, on any CPU */
    for (unsigned i = 0; i < SIM_NR_STATS; i++)
        if (i == SIM_ALLOC_CPU_SHEAF || i == SIM_FREE_CPU_SHEAF || i == SIM_SHEAF_REFILL ||
            i == SIM_SHEAF_ALLOC || i == SIM_BARN_GET_FAIL || i == SIM_FREE_RCU_SHEAF)
            CHECK_EQ_U(sim_stat(t.sim, p, i, -1), 0);
    (void)a;
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* 6.18 refills an empty main only for a caller that may block: GFP_ATOMIC
 * takes the cpu slab, GFP_KERNEL refills. */
static void test_refill_needs_blocking(void)
{
    struct sim_config cfg;
    struct counters before;
    struct evlog log;
    struct tsim t;
    int m;

    cfg618(&cfg, 1, 1);
    tsim_init(&t, &cfg);
    m = create(&t, "maple_node", 256, 32);
    log_start(&log, &t);
    take(&t, m, 0, &before);
    CHECK_NE_U(alloc(&t, m, 0, SIM_NUMA_NO_NODE, SIM_GFP_ATOMIC), 0);
    deltas(&t, m, 0, &before, "barn_get_fail=1 alloc_slowpath=1 alloc_slab=1");
    CHECK(strstr(log.text, "__pcs_replace_empty_main/no_refill_noblock\n") != NULL);
    CHECK(strstr(log.text, "refill_sheaf") == NULL);
    take(&t, m, 0, &before);
    CHECK_NE_U(alloc(&t, m, 0, SIM_NUMA_NO_NODE, SIM_GFP_KERNEL), 0);
    CHECK_EQ_U(sim_stat(t.sim, m, SIM_SHEAF_REFILL, 0) - before.v[SIM_SHEAF_REFILL], 32);
    CHECK_EQ_U(sim_stat(t.sim, m, SIM_ALLOC_CPU_SHEAF, 0) - before.v[SIM_ALLOC_CPU_SHEAF], 1);
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* kfree_rcu uses an rcu_free sheaf only on a cache with sheaves; the plain
 * cache's object waits alone, and counts nothing. */
static void test_kfree_rcu(void)
{
    struct sim_config cfg;
    struct counters bp, bm;
    struct sim_snap_cache c;
    struct tsim t;
    sim_addr_t x, y;
    int m, p;

    cfg618(&cfg, 1, 1);
    tsim_init(&t, &cfg);
    m = create(&t, "maple_node", 256, 32);
    p = create(&t, "kmalloc-64", 64, 0);
    x = alloc(&t, p, 0, SIM_NUMA_NO_NODE, 0);
    y = alloc(&t, m, 0, SIM_NUMA_NO_NODE, 0);
    take(&t, p, 0, &bp);
    take(&t, m, 0, &bm);
    CHECK_OK(do_op(&t, SIM_OP_KFREE_RCU, -1, 0, x));
    CHECK_OK(do_op(&t, SIM_OP_KFREE_RCU, -1, 0, y));
    deltas(&t, p, 0, &bp, "");
    deltas(&t, m, 0, &bm, "free_rcu_sheaf=1");
    c = tsim_snap_cache(&t, p);
    CHECK_EQ_U(c.rcu_free[0], 0);
    c = tsim_snap_cache(&t, m);
    CHECK_NE_U(c.rcu_free[0], 0);
    /* after a grace period the plain object goes back through the cpu slab */
    take(&t, p, 0, &bp);
    CHECK_OK(do_op(&t, SIM_OP_GRACE_PERIOD, -1, 0, 0));
    deltas(&t, p, 0, &bp, "free_fastpath=1");
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* A node-bound allocation for another node bypasses the sheaves uncounted
 * and is served by the cpu slab's slow path on that node. */
static void test_node_bound(void)
{
    struct sim_config cfg;
    struct counters before;
    struct tsim t;
    sim_addr_t x;
    int m;

    cfg618(&cfg, 2, 2);
    tsim_init(&t, &cfg);
    m = create(&t, "maple_node", 256, 32);
    take(&t, m, 0, &before);
    x = alloc(&t, m, 0, 1, 0);
    CHECK_NE_U(x, 0);
    deltas(&t, m, 0, &before, "alloc_slowpath=1 alloc_slab=1");
    CHECK_EQ_I(slab_of(t.sim, x)->node, 1);
    /* a remote free skips the sheaves: __slab_free into the cpu slab of CPU 0 */
    take(&t, m, 0, &before);
    CHECK_OK(do_op(&t, SIM_OP_FREE, m, 0, x));
    deltas(&t, m, 0, &before, "free_fastpath=1");
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* Bulk allocation: the sheaves first (none yet: barn_get_fail), then the
 * cpu slab for the rest; bulk free fills the sheaves; shrinking twice
 * leaves no slab. */
static void test_bulk_and_shrink(void)
{
    struct sim_config cfg;
    struct counters before;
    struct sim_snap_cache c;
    struct tsim t;
    sim_addr_t objs[40];
    int m;

    cfg618(&cfg, 1, 1);
    tsim_init(&t, &cfg);
    m = create(&t, "maple_node", 256, 32);
    take(&t, m, 0, &before);
    {
        struct sim_op op = {.kind = SIM_OP_ALLOC_BULK,
                            .cache = m,
                            .node = SIM_NUMA_NO_NODE,
                            .count = 40,
                            .out = objs};
        struct sim_result res;

        CHECK_OK(tsim_apply(&t, &op, &res));
        CHECK_EQ_U(res.count, 40);
    }
    CHECK_EQ_U(sim_stat(t.sim, m, SIM_ALLOC_CPU_SHEAF, 0) - before.v[SIM_ALLOC_CPU_SHEAF], 0);
    CHECK_EQ_U(sim_stat(t.sim, m, SIM_ALLOC_FASTPATH, 0) - before.v[SIM_ALLOC_FASTPATH] +
                       sim_stat(t.sim, m, SIM_ALLOC_SLOWPATH, 0) - before.v[SIM_ALLOC_SLOWPATH],
               40);
    take(&t, m, 0, &before);
    {
        struct sim_op op = {.kind = SIM_OP_FREE_BULK,
                            .cache = m,
                            .node = SIM_NUMA_NO_NODE,
                            .count = 40,
                            .in = objs};
        struct sim_result res;

        CHECK_OK(tsim_apply(&t, &op, &res));
    }
    /* 32 fill main; the barn has no empty sheaf, so 8 go to the slabs */
    CHECK_EQ_U(sim_stat(t.sim, m, SIM_FREE_CPU_SHEAF, 0) - before.v[SIM_FREE_CPU_SHEAF], 32);
    CHECK_OK(do_op(&t, SIM_OP_SHRINK, m, 0, 0));
    CHECK_OK(do_op(&t, SIM_OP_SHRINK, m, 0, 0));
    c = tsim_snap_cache(&t, m);
    CHECK_EQ_U(c.slabs, 0);
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* Prefill works on both: the plain cache's requests are all oversize. */
static void test_prefill(void)
{
    struct sim_config cfg;
    struct tsim t;
    struct sim_result res;
    int m, p;

    cfg618(&cfg, 1, 1);
    tsim_init(&t, &cfg);
    m = create(&t, "maple_node", 256, 32);
    p = create(&t, "kmalloc-64", 64, 0);
    {
        struct sim_op op = {
                .kind = SIM_OP_PREFILL, .cache = p, .node = SIM_NUMA_NO_NODE, .count = 4};

        CHECK_OK(tsim_apply(&t, &op, &res));
        CHECK_EQ_I(res.status, SIM_OK);
        CHECK_EQ_U(sim_stat(t.sim, p, SIM_SHEAF_PREFILL_OVERSIZE, -1), 1);
    }
    {
        struct sim_op op = {
                .kind = SIM_OP_PREFILL, .cache = m, .node = SIM_NUMA_NO_NODE, .count = 10};

        CHECK_OK(tsim_apply(&t, &op, &res));
        CHECK_EQ_I(res.status, SIM_OK);
        CHECK_EQ_U(sim_stat(t.sim, m, SIM_SHEAF_PREFILL_SLOW, -1), 1);
        CHECK_EQ_U(sim_stat(t.sim, m, SIM_SHEAF_REFILL, -1), 32);
        CHECK_EQ_U(sim_stat(t.sim, m, SIM_SHEAF_PREFILL_OVERSIZE, -1), 0);
    }
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* Corrupt-then-validate: each break of H1-H3 is exactly one violation. */
static void test_validator_catches(void)
{
    struct sim_config cfg;
    struct sim_report rep;
    struct kmem_cache *sm, *sp;
    struct kmem_cache_cpu *saved;
    struct tsim t;
    int m, p;

    cfg618(&cfg, 2, 1);
    tsim_init(&t, &cfg);
    m = create(&t, "maple_node", 256, 32);
    p = create(&t, "kmalloc-64", 64, 0);
    sm = t.sim->caches[m];
    sp = t.sim->caches[p];
    CHECK_EQ_U(sim_validate(t.sim, SIM_VALIDATE_OP, &rep), 0);

    sp->stats[1][SIM_ALLOC_CPU_SHEAF]++; /* H3: a plain cache counted a sheaf */
    CHECK_EQ_U(sim_validate(t.sim, SIM_VALIDATE_OP, &rep), 1);
    sp->stats[1][SIM_ALLOC_CPU_SHEAF]--;

    saved = sp->cpu_slab; /* H1: a non-debug cache without cpu slabs */
    sp->cpu_slab = NULL;
    CHECK_EQ_U(sim_validate(t.sim, SIM_VALIDATE_OP, &rep), 1);
    sp->cpu_slab = saved;

    sm->requested_sheaf_capacity = 16; /* H1: not the capacity it was created with */
    CHECK_EQ_U(sim_validate(t.sim, SIM_VALIDATE_OP, &rep), 1);
    sm->requested_sheaf_capacity = 32;

    t.sim->cfg.model = SIM_MODEL_LEGACY; /* a legacy cache with sheaves */
    CHECK_EQ_U(sim_validate(t.sim, SIM_VALIDATE_OP, &rep), 1);
    t.sim->cfg.model = SIM_MODEL_HYBRID;
    CHECK_EQ_U(sim_validate(t.sim, SIM_VALIDATE_OP, &rep), 0);
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* Same ops, same events: a clone runs on identically. */
static void test_determinism(void)
{
    struct sim_config cfg;
    struct tsim a, b;
    uint64_t ea, eb;

    cfg618(&cfg, 2, 1);
    tsim_init(&a, &cfg);
    tsim_init(&b, &cfg);
    for (struct tsim *t = &a; t; t = t == &a ? &b : NULL) {
        int m = create(t, "maple_node", 256, 32), p = create(t, "kmalloc-64", 64, 0);

        for (unsigned i = 0; i < 200; i++) {
            sim_addr_t x = alloc(t, i % 3 ? m : p, i % 2, SIM_NUMA_NO_NODE, 0);

            if (i % 4 == 0)
                do_op(t, SIM_OP_FREE, i % 3 ? m : p, (i + 1) % 2, x);
        }
    }
    ea = sim_event_count(a.sim);
    eb = sim_event_count(b.sim);
    CHECK_EQ_U(ea, eb);
    CHECK_EQ_U(sim_stat(a.sim, 0, SIM_ALLOC_CPU_SHEAF, -1),
               sim_stat(b.sim, 0, SIM_ALLOC_CPU_SHEAF, -1));
    CHECK_GT_U(sim_stat(a.sim, 0, SIM_ALLOC_CPU_SHEAF, -1), 0);
    CHECK_CLEAN(&a);
    CHECK_CLEAN(&b);
    tsim_fini(&a);
    tsim_fini(&b);
}

int main(void)
{
    RUN_TEST(test_release_rows);
    RUN_TEST(test_layers);
    RUN_TEST(test_counters);
    RUN_TEST(test_refill_needs_blocking);
    RUN_TEST(test_kfree_rcu);
    RUN_TEST(test_node_bound);
    RUN_TEST(test_bulk_and_shrink);
    RUN_TEST(test_prefill);
    RUN_TEST(test_validator_catches);
    RUN_TEST(test_determinism);
    return check_done();
}
