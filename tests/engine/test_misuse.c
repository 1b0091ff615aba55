/*
 * test_misuse.c: what the kernel catches, what it does not, and what the
 * API refuses.
 *
 * Misuse SLUB reports (a pointer into no slab, the wrong cache, a pointer
 * into the middle of an object, the naive "object == fp" double free)
 * must come back as SIM_MISUSE with the kernel's words, leave the state
 * unchanged (snapshots compared field by field) and emit exactly one event,
 * carrying the report.  A debug cache's consistency checks refuse a double
 * free after the slow path was entered, as the kernel does: free_slowpath
 * counts it and one more event precedes the report.  Invalid operations
 * (absurd cache arguments, a CPU or node that does not exist) get -EINVAL
 * with no event at all.  A double free into a sheaf is the one SLUB does
 * not catch: both frees succeed, the object is handed out twice, and only
 * the validator notices.
 */
#include <errno.h>
#include <limits.h>

#include "simtest.h"
#include "snapcmp.h"

#define ZERO_SIZE_PTR ((sim_addr_t)0x10)

/* A test machine that also counts the events that carry a report. */
struct rec {
    struct tsim t; /* first: tsim_event() receives &rec->t */
    unsigned long reports;
    char last_report[sizeof(((struct sim_result *)0)->message)];
};

static void rec_event(const struct sim_event *ev, void *arg)
{
    struct rec *r = arg;

    tsim_event(ev, &r->t);
    if (ev->report) {
        r->reports++;
        snprintf(r->last_report, sizeof(r->last_report), "%s", ev->report);
    }
}

static void rec_init(struct rec *r, const struct sim_config *cfg)
{
    memset(r, 0, sizeof(*r));
    tsim_init(&r->t, cfg);
    if (r->t.sim)
        sim_set_event_cb(r->t.sim, rec_event, r);
}

static int create(struct rec *r, const char *name, unsigned size, uint32_t flags)
{
    return tsim_create(&r->t, name, size, flags, 0);
}

static struct sim_op op_free(int cache, unsigned cpu, sim_addr_t addr)
{
    struct sim_op op = {.kind = SIM_OP_FREE, .cache = cache, .cpu = cpu, .addr = addr,
            .node = SIM_NUMA_NO_NODE};

    return op;
}

static struct sim_op op_kfree(sim_addr_t addr)
{
    struct sim_op op = {.kind = SIM_OP_KFREE, .addr = addr, .node = SIM_NUMA_NO_NODE};

    return op;
}

/*
 * Apply @op, which SLUB must report as misuse with a message containing
 * @needle (and @needle2 unless NULL): state unchanged, one event with a
 * report, the operation counted.
 */
static void expect_misuse(struct rec *r, struct sim_op *op, const char *needle,
        const char *needle2)
{
    struct sim_snapshot *before = snap_take(r->t.sim), *after;
    unsigned long events = r->t.events, reports = r->reports;
    struct sim_result res;

    CHECK_OK(tsim_apply(&r->t, op, &res));
    CHECK_EQ_I(res.status, SIM_MISUSE);
    if (!CHECK(strstr(res.message, needle) != NULL))
        printf("  message: %s\n  wanted: %s\n", res.message, needle);
    if (needle2 && !CHECK(strstr(res.message, needle2) != NULL))
        printf("  message: %s\n  wanted: %s\n", res.message, needle2);
    CHECK_EQ_U(r->t.events - events, 1);
    CHECK_EQ_U(r->reports - reports, 1);
    CHECK_EQ_STR(r->last_report, res.message);
    after = snap_take(r->t.sim);
    CHECK_SNAP_EQ(before, after, SNAPCMP_NOCLOCK);
    if (before && after) {
        CHECK_EQ_U(after->seq, before->seq + 1);
        CHECK_EQ_U(after->op, before->op + 1);
    }
    sim_snapshot_release(before);
    sim_snapshot_release(after);
}

/* Apply @op, which must be refused with -EINVAL: no event, state and
 * operation count unchanged, a reason in the message. */
static void expect_einval(struct rec *r, struct sim_op *op)
{
    struct sim_snapshot *before = snap_take(r->t.sim), *after;
    unsigned long events = r->t.events;
    unsigned nr_caches = sim_nr_caches(r->t.sim);
    struct sim_result res;

    CHECK_EQ_I(tsim_apply(&r->t, op, &res), -EINVAL);
    CHECK(res.message[0] != 0);
    CHECK_EQ_U(r->t.events, events);
    CHECK_EQ_U(sim_nr_caches(r->t.sim), nr_caches);
    after = snap_take(r->t.sim);
    CHECK_SNAP_EQ(before, after, SNAPCMP_CLOCK);
    sim_snapshot_release(before);
    sim_snapshot_release(after);
}

/* Apply @op, which must be a no-op: SIM_OK, no event, state unchanged. */
static void expect_noop(struct rec *r, struct sim_op *op)
{
    struct sim_snapshot *before = snap_take(r->t.sim), *after;
    unsigned long events = r->t.events;
    struct sim_result res;

    CHECK_OK(tsim_apply(&r->t, op, &res));
    CHECK_EQ_I(res.status, SIM_OK);
    CHECK_EQ_U(r->t.events, events);
    after = snap_take(r->t.sim);
    CHECK_SNAP_EQ(before, after, SNAPCMP_NOCLOCK);
    sim_snapshot_release(before);
    sim_snapshot_release(after);
}

/* kfree and kmem_cache_free of addresses in no slab */
static void test_free_non_slab(void)
{
    struct rec r;
    struct sim_op op;
    sim_addr_t zone_start, untouched;
    struct sim_snapshot *snap;
    int a;

    rec_init(&r, NULL);
    a = create(&r, "A", 64, 0);
    CHECK_NE_U(tsim_alloc(&r.t, a, 0), 0); /* some slab exists */
    snap = snap_take(r.t.sim);
    if (!CHECK(snap != NULL))
        return;
    zone_start = snap->zones[0].start;
    untouched = zone_start + (snap->zones[0].pages - 1) * (sim_addr_t)SIM_PAGE_SIZE;
    sim_snapshot_release(snap);

    op = op_kfree(0x1234); /* outside the direct map */
    expect_misuse(&r, &op, "kfree", "invalid pointer");
    op = op_kfree(untouched); /* in the arena, never handed out */
    expect_misuse(&r, &op, "kfree", "neither a slab object");
    op = op_kfree(0xdead000000000000ull);
    expect_misuse(&r, &op, "kfree", "invalid pointer");
    op = op_free(a, 0, 0x1234);
    expect_misuse(&r, &op, "kmem_cache_free", "is not in any slab");
    op = op_free(a, 0, untouched);
    expect_misuse(&r, &op, "kmem_cache_free", "is not in any slab");
    op = op_free(a, 1, zone_start - SIM_PAGE_SIZE);
    expect_misuse(&r, &op, "kmem_cache_free", "is not in any slab");
    CHECK_CLEAN(&r.t);
    tsim_fini(&r.t);
}

/* kmem_cache_free into the wrong cache */
static void test_free_wrong_cache(void)
{
    struct rec r;
    struct sim_op op;
    sim_addr_t x, y;
    int a, b;

    rec_init(&r, NULL);
    a = create(&r, "A", 64, 0);
    b = create(&r, "B", 128, 0);
    x = tsim_alloc(&r.t, a, 0);
    y = tsim_alloc(&r.t, b, 1);
    op = op_free(b, 0, x);
    expect_misuse(&r, &op, "Wrong slab cache", "B but object is from A");
    op = op_free(a, 1, y);
    expect_misuse(&r, &op, "Wrong slab cache", "A but object is from B");
    /* the right cache still works afterwards */
    CHECK_EQ_I(tsim_free(&r.t, a, 0, x), SIM_OK);
    CHECK_EQ_I(tsim_free(&r.t, b, 1, y), SIM_OK);
    CHECK_CLEAN(&r.t);
    tsim_fini(&r.t);
}

/* a pointer into the middle of an object, through both entry points */
static void test_free_middle_of_object(void)
{
    struct rec r;
    struct sim_op op;
    sim_addr_t x;
    int a, d;

    rec_init(&r, NULL);
    a = create(&r, "A", 64, 0);
    d = create(&r, "D", 20, SIM_SLAB_RED_ZONE | SIM_SLAB_POISON | SIM_SLAB_STORE_USER);
    x = tsim_alloc(&r.t, a, 0);
    op = op_free(a, 0, x + 8);
    expect_misuse(&r, &op, "not the start of an object", "A");
    op = op_kfree(x + 63);
    expect_misuse(&r, &op, "not the start of an object", NULL);
    op = op_kfree(x + 1);
    expect_misuse(&r, &op, "not the start of an object", NULL);
    /* the slab's first bytes: in a debug cache, the left red zone */
    x = tsim_alloc(&r.t, d, 0);
    op = op_free(d, 0, x - 8);
    expect_misuse(&r, &op, "not the start of an object", "D");
    CHECK_EQ_I(tsim_free(&r.t, d, 0, x), SIM_OK);
    CHECK_CLEAN(&r.t);
    tsim_fini(&r.t);
}

/* The naive double free detection on the slab path: the object is the
 * head of its slab's freelist (set_freepointer's BUG_ON(object == fp)). */
static void test_double_free_slab_path(void)
{
    struct rec r;
    struct sim_op op;
    sim_addr_t x, y;
    int n;

    rec_init(&r, NULL);
    /* SLAB_NO_OBJ_EXT: no sheaves, no debug checks, every free is __slab_free */
    n = create(&r, "N", 64, SIM_SLAB_NO_OBJ_EXT);
    x = tsim_alloc(&r.t, n, 0);
    y = tsim_alloc(&r.t, n, 0);
    CHECK_EQ_I(tsim_free(&r.t, n, 0, x), SIM_OK);
    CHECK_STAT(&r.t, n, "free_slowpath", 1);
    op = op_free(n, 0, x);
    expect_misuse(&r, &op, "object == fp", "double free");
    op = op_kfree(x); /* through kfree, from the other CPU */
    op.cpu = 1;
    expect_misuse(&r, &op, "object == fp", "double free");
    CHECK_STAT(&r.t, n, "free_slowpath", 1);
    /* once y is freed it is the head instead, and x is no longer caught */
    CHECK_EQ_I(tsim_free(&r.t, n, 0, y), SIM_OK);
    op = op_free(n, 0, y);
    expect_misuse(&r, &op, "object == fp", "double free");
    CHECK_CLEAN(&r.t);
    tsim_fini(&r.t);
}

/*
 * With SLAB_CONSISTENCY_CHECKS the whole freelist is checked
 * (free_debug_processing, on_freelist): "Object already free ... not
 * freed".  As in the kernel the free has gone down the slow path first, so
 * free_slowpath counts it and an event precedes the one with the report;
 * nothing else changes.
 */
static void expect_debug_refusal(struct rec *r, struct sim_op *op, int cache)
{
    struct sim_snapshot *before = snap_take(r->t.sim), *after;
    unsigned long events = r->t.events, reports = r->reports;
    struct sim_result res;

    CHECK_OK(tsim_apply(&r->t, op, &res));
    CHECK_EQ_I(res.status, SIM_MISUSE);
    CHECK(strstr(res.message, "Object already free") != NULL);
    CHECK(strstr(res.message, "not freed") != NULL);
    CHECK_EQ_U(r->t.events - events, 2);
    CHECK_EQ_U(r->reports - reports, 1);
    CHECK_EQ_STR(r->last_report, res.message);
    after = snap_take(r->t.sim);
    if (before)
        before->caches[cache].cpu_stats[op->cpu].v[SIM_FREE_SLOWPATH]++;
    CHECK_SNAP_EQ(before, after, SNAPCMP_NOCLOCK);
    sim_snapshot_release(before);
    sim_snapshot_release(after);
}

static void test_double_free_debug(void)
{
    struct rec r;
    struct sim_op op;
    sim_addr_t x, y;
    int d;

    rec_init(&r, NULL);
    d = create(&r, "D", 20,
            SIM_SLAB_CONSISTENCY_CHECKS | SIM_SLAB_RED_ZONE | SIM_SLAB_POISON |
                    SIM_SLAB_STORE_USER);
    x = tsim_alloc(&r.t, d, 0);
    y = tsim_alloc(&r.t, d, 0);
    CHECK_EQ_I(tsim_free(&r.t, d, 0, x), SIM_OK);
    CHECK_EQ_I(tsim_free(&r.t, d, 0, y), SIM_OK); /* x is no longer the head */
    op = op_free(d, 0, x);
    expect_debug_refusal(&r, &op, d);
    op = op_free(d, 1, y); /* the head, from the other CPU */
    expect_debug_refusal(&r, &op, d);
    op = op_kfree(x);
    expect_debug_refusal(&r, &op, d);
    CHECK_CLEAN(&r.t);
    tsim_fini(&r.t);
}

/* Debug flags without SLAB_CONSISTENCY_CHECKS check nothing on free: the
 * head of the freelist freed again is caught by set_freepointer's naive
 * check, as in any other cache (this used to reach SIM_BUG_ON) */
static void test_double_free_debug_unchecked(void)
{
    static const uint32_t flag_sets[] = {
        SIM_SLAB_POISON,
        SIM_SLAB_RED_ZONE,
        SIM_SLAB_STORE_USER,
        SIM_SLAB_RED_ZONE | SIM_SLAB_POISON | SIM_SLAB_STORE_USER,
    };

    for (size_t i = 0; i < sizeof(flag_sets) / sizeof(flag_sets[0]); i++) {
        struct rec r;
        struct sim_op op;
        sim_addr_t x;
        int d;

        rec_init(&r, NULL);
        d = create(&r, "D", 20, flag_sets[i]);
        x = tsim_alloc(&r.t, d, 0);
        tsim_alloc(&r.t, d, 0);
        CHECK_EQ_I(tsim_free(&r.t, d, 0, x), SIM_OK);
        op = op_free(d, 0, x);
        expect_misuse(&r, &op, "object == fp", "double free");
        CHECK_CLEAN(&r.t);
        tsim_fini(&r.t);
    }
}

/* kfree(NULL) and kfree(ZERO_SIZE_PTR) do nothing; kmalloc(0) is ZERO_SIZE_PTR */
static void test_null_and_zero_size(void)
{
    struct rec r;
    struct sim_op op = {.kind = SIM_OP_KMALLOC, .size = 0, .node = SIM_NUMA_NO_NODE};
    struct sim_result res;
    uint64_t ops;

    rec_init(&r, NULL);
    create(&r, "A", 64, 0);
    ops = sim_op_count(r.t.sim);
    CHECK_OK(tsim_apply(&r.t, &op, &res));
    CHECK_EQ_I(res.status, SIM_OK);
    CHECK_EQ_U(res.addr, ZERO_SIZE_PTR);
    CHECK_EQ_I(res.cache, -1);
    CHECK_EQ_U(sim_op_count(r.t.sim), ops + 1);
    CHECK_EQ_U(sim_nr_caches(r.t.sim), 1); /* no kmalloc cache created */
    expect_noop(&r, &op);
    op = op_kfree(0);
    expect_noop(&r, &op);
    op = op_kfree(ZERO_SIZE_PTR);
    expect_noop(&r, &op);
    op.cpu = 1;
    expect_noop(&r, &op);
    CHECK_EQ_U(r.reports, 0);
    CHECK_CLEAN(&r.t);
    tsim_fini(&r.t);
}

/* kmalloc above 8 KiB is not modelled; a user cache named like a kmalloc
 * cache blocks that class */
static void test_kmalloc_refused(void)
{
    struct rec r;
    struct sim_op op = {.kind = SIM_OP_KMALLOC, .size = 9000, .node = SIM_NUMA_NO_NODE};
    struct sim_result res;

    rec_init(&r, NULL);
    expect_einval(&r, &op);
    op.size = 8193;
    expect_einval(&r, &op);
    op.size = UINT_MAX;
    expect_einval(&r, &op);
    op.size = 8192; /* the largest class is served */
    CHECK_OK(tsim_apply(&r.t, &op, &res));
    CHECK_EQ_I(res.status, SIM_OK);
    CHECK_EQ_U(res.addr % 8192, 0);

    create(&r, "kmalloc-64", 64, 0);
    op.size = 50;
    expect_einval(&r, &op);
    op.size = 200; /* other classes are unaffected */
    CHECK_OK(tsim_apply(&r.t, &op, &res));
    CHECK_EQ_I(res.status, SIM_OK);
    CHECK_CLEAN(&r.t);
    tsim_fini(&r.t);
}

static struct sim_op op_create(const char *name, unsigned size)
{
    struct sim_op op = {.kind = SIM_OP_CREATE, .node = SIM_NUMA_NO_NODE};

    snprintf(op.create.name, sizeof(op.create.name), "%s", name);
    op.create.object_size = size;
    return op;
}

/* kmem_cache_create with absurd arguments: -EINVAL, no event, no cache */
static void test_create_refused(void)
{
    struct rec r;
    struct sim_op op;

    rec_init(&r, NULL);
    create(&r, "A", 64, 0);

    op = op_create("Z", 0); /* object_size 0 */
    expect_einval(&r, &op);
    op = op_create("Z", 3u << 20); /* larger than half a max-order block */
    expect_einval(&r, &op);
    op = op_create("Z", UINT_MAX);
    expect_einval(&r, &op);
    op = op_create("Z", 64);
    op.create.align = 24; /* not a power of two */
    expect_einval(&r, &op);
    op.create.align = 3;
    expect_einval(&r, &op);
    op.create.align = 8192; /* above PAGE_SIZE */
    expect_einval(&r, &op);
    op = op_create("A", 64); /* duplicate name */
    expect_einval(&r, &op);
    op = op_create("", 64); /* no name */
    expect_einval(&r, &op);
    op = op_create("Z", 64);
    memset(op.create.name, 'z', sizeof(op.create.name)); /* not terminated */
    expect_einval(&r, &op);
    op = op_create("Z", 64);
    op.create.flags = 0x2; /* unknown flag */
    expect_einval(&r, &op);
    op = op_create("Z", 64);
    op.create.ctor = true;
    op.create.use_freeptr_offset = true;
    op.create.freeptr_offset = 12; /* not word aligned */
    expect_einval(&r, &op);
    op.create.freeptr_offset = 64; /* outside the object */
    expect_einval(&r, &op);
    op = op_create("Z", 64);
    op.create.sheaf_capacity = UINT_MAX; /* a sheaf larger than kmalloc can give */
    expect_einval(&r, &op);
    op.create.sheaf_capacity = 1u << 20;
    expect_einval(&r, &op);

    /* the boundaries on the valid side */
    CHECK_GE_I(tsim_create(&r.t, "Z1", 1, 0, 0), 0);
    CHECK_GE_I(tsim_create(&r.t, "Z2", 2u << 20, 0, 0), 0);
    CHECK_GE_I(tsim_create(&r.t, "Z3", 64, 0, 1000), 0);
    op = op_create("Z4", 64);
    op.create.align = 4096;
    CHECK_OK(tsim_apply(&r.t, &op, NULL));
    CHECK_EQ_U(sim_nr_caches(r.t.sim), 5);
    CHECK_CLEAN(&r.t);
    tsim_fini(&r.t);
}

/* Operations that name a CPU, node or cache that does not exist */
static void test_op_out_of_range(void)
{
    struct sim_config cfg;
    struct rec r;
    struct sim_op op;
    sim_addr_t out[4], x;
    int a, k;

    sim_config_default(&cfg);
    cfg.nr_cpus = 2;
    cfg.nr_nodes = 2;
    cfg.cpu_node[1] = 1;
    rec_init(&r, &cfg);
    a = create(&r, "A", 64, 0);
    k = create(&r, "K", 64, 0);
    x = tsim_alloc(&r.t, a, 0);
    CHECK_NE_U(x, 0);

    for (unsigned kind = 0; kind < SIM_NR_OPS; kind++) {
        memset(&op, 0, sizeof(op));
        op.kind = (enum sim_op_kind)kind;
        op.cache = a;
        op.node = SIM_NUMA_NO_NODE;
        op.addr = x;
        op.size = 64;
        op.count = 1;
        op.out = out;
        snprintf(op.create.name, sizeof(op.create.name), "new");
        op.create.object_size = 64;
        op.cpu = 2; /* the machine has CPUs 0 and 1 */
        expect_einval(&r, &op);
        op.cpu = UINT_MAX;
        expect_einval(&r, &op);
        op.cpu = 0;
        op.node = 2; /* nodes 0 and 1 */
        expect_einval(&r, &op);
        op.node = -2;
        expect_einval(&r, &op);
        op.node = INT_MAX;
        expect_einval(&r, &op);
        op.node = SIM_NUMA_NO_NODE;
        if (kind == SIM_OP_ALLOC || kind == SIM_OP_FREE || kind == SIM_OP_ALLOC_BULK ||
                kind == SIM_OP_FLUSH_ALL || kind == SIM_OP_SHRINK || kind == SIM_OP_DESTROY) {
            op.cache = 2; /* caches 0 and 1 */
            expect_einval(&r, &op);
            op.cache = -1;
            expect_einval(&r, &op);
        }
    }
    op = (struct sim_op){.kind = SIM_NR_OPS, .node = SIM_NUMA_NO_NODE};
    expect_einval(&r, &op);
    op.kind = (enum sim_op_kind)-1;
    expect_einval(&r, &op);

    /* alloc_bulk needs 1..2^20 objects and an array */
    op = (struct sim_op){.kind = SIM_OP_ALLOC_BULK, .cache = a, .node = SIM_NUMA_NO_NODE,
            .count = 0, .out = out};
    expect_einval(&r, &op);
    op.count = (1u << 20) + 1;
    expect_einval(&r, &op);
    op.count = 4;
    op.out = NULL;
    expect_einval(&r, &op);

    /* a write must stay inside one slab and write something */
    op = (struct sim_op){.kind = SIM_OP_WRITE, .addr = x, .count = 0, .byte = 0x41,
            .node = SIM_NUMA_NO_NODE};
    expect_einval(&r, &op);
    op.addr = 0x1234;
    op.count = 1;
    expect_einval(&r, &op);
    op.addr = x;
    op.count = 1u << 20;
    expect_einval(&r, &op);

    /* a destroyed cache no longer exists */
    tsim_simple(&r.t, SIM_OP_DESTROY, k, 0);
    op = (struct sim_op){.kind = SIM_OP_ALLOC, .cache = k, .node = SIM_NUMA_NO_NODE};
    expect_einval(&r, &op);
    op.kind = SIM_OP_DESTROY;
    expect_einval(&r, &op);
    CHECK_CLEAN(&r.t);
    tsim_fini(&r.t);
}

/* kmalloc caches live as long as the machine: destroying one is refused,
 * since kmalloc() would go on allocating from it */
static void test_destroy_kmalloc_cache(void)
{
    struct rec r;
    struct sim_op op = {.kind = SIM_OP_KMALLOC, .size = 64, .node = SIM_NUMA_NO_NODE};
    struct sim_result res;
    int km;

    rec_init(&r, NULL);
    CHECK_OK(tsim_apply(&r.t, &op, &res));
    km = res.cache;
    CHECK_EQ_I(km, sim_cache_lookup(r.t.sim, "kmalloc-64"));
    op = op_kfree(res.addr);
    CHECK_OK(tsim_apply(&r.t, &op, &res));
    op = (struct sim_op){.kind = SIM_OP_DESTROY, .cache = km, .node = SIM_NUMA_NO_NODE};
    expect_einval(&r, &op);
    op = (struct sim_op){.kind = SIM_OP_KMALLOC, .size = 64, .node = SIM_NUMA_NO_NODE};
    CHECK_OK(tsim_apply(&r.t, &op, &res));
    CHECK_EQ_I(res.status, SIM_OK);
    CHECK_EQ_I(res.cache, km);
    CHECK_CLEAN(&r.t);
    tsim_fini(&r.t);
}

/* S12: a double free into a sheaf is not caught; the validator flags it */
static void test_double_free_sheaf(void)
{
    struct rec r;
    struct sim_report rep;
    sim_addr_t x, y, x1, x2;
    int a;

    rec_init(&r, NULL);
    a = create(&r, "A", 64, 0);
    x = tsim_alloc(&r.t, a, 0);
    y = tsim_alloc(&r.t, a, 0); /* keeps the users' count of x's slab >= 0 */
    CHECK_EQ_I(tsim_free(&r.t, a, 0, x), SIM_OK);
    CHECK_CLEAN(&r.t);
    CHECK_EQ_I(tsim_free(&r.t, a, 0, x), SIM_OK);
    CHECK_STAT(&r.t, a, "free_fastpath", 2);
    CHECK_STAT(&r.t, a, "free_slowpath", 0);
    CHECK_EQ_U(r.reports, 0); /* SLUB said nothing */
    /* one violation: x is held twice; the slab's conservation still holds
     * since its users gave back one object more than they had while the
     * sheaf holds one more */
    CHECK_EQ_U(sim_validate(r.t.sim, SIM_VALIDATE_OP, &rep), 1);
    CHECK(strstr(rep.msg[0], "held twice") != NULL);
    CHECK_GT_U(r.t.violations, 0);
    x1 = tsim_alloc(&r.t, a, 0);
    x2 = tsim_alloc(&r.t, a, 0);
    CHECK_EQ_U(x1, x);
    CHECK_EQ_U(x2, x);
    CHECK_STAT(&r.t, a, "alloc_fastpath", 4);
    /* handed out twice, the duplicate is gone from the sheaves */
    CHECK_EQ_U(sim_validate(r.t.sim, SIM_VALIDATE_OP, &rep), 0);
    CHECK_NE_U(y, x);
    tsim_fini(&r.t);
}

int main(void)
{
    RUN_TEST(test_free_non_slab);
    RUN_TEST(test_free_wrong_cache);
    RUN_TEST(test_free_middle_of_object);
    RUN_TEST(test_double_free_slab_path);
    RUN_TEST(test_double_free_debug);
    RUN_TEST(test_double_free_debug_unchecked);
    RUN_TEST(test_null_and_zero_size);
    RUN_TEST(test_kmalloc_refused);
    RUN_TEST(test_create_refused);
    RUN_TEST(test_op_out_of_range);
    RUN_TEST(test_destroy_kmalloc_cache);
    RUN_TEST(test_double_free_sheaf);
    return check_done();
}
