/*
 * test_hostoom.c: host memory failure injection, in the manner of SQLite's
 * OOM tests.
 *
 * A fixed script (caches of every kind, allocations that need new slabs,
 * sheaves and pool chunks, bulk allocations and frees, frees that fill
 * barns and flush, kfree_rcu and grace periods, the prefill API, misuse
 * reports, kmalloc, shrink, destroy) is replayed on a fresh
 * machine with the N-th host allocation failing, for N = 1, 2, ... until a
 * replay no longer fails.  Each sim_apply() must succeed or return -ENOMEM,
 * and after -ENOMEM every later call must return -EIO; everything before
 * the failure must match the failure-free reference run (results and event
 * counts); the broken machine must be safe to inspect and destroy.
 * Nothing may leak: in the ASan build LeakSanitizer checks that at exit.
 */
#include <errno.h>

#include "internal.h"
#include "simtest.h"
#include "snapcmp.h"

#define MAX_STEPS 4096u

/* What one step of the script gave: compared against the reference run. */
struct outcome {
    int ret;
    enum sim_status status;
    sim_addr_t addr;
    unsigned count;
    int cache;
    uint32_t sheaf;
    uint64_t events; /* sim_event_count() after the step */
};

struct run {
    struct sim *sim;
    const struct outcome *ref; /* the failure-free run, or NULL while recording it */
    struct outcome *log;       /* [MAX_STEPS] */
    unsigned steps;
    bool broken;               /* a step returned -ENOMEM */
    unsigned failed_step;      /* ... this one */
    bool bad;                  /* a check failed: stop reporting this run */
    bool validate;             /* validate after every step (reference run only) */
    unsigned long violations;
    unsigned long events;      /* counted by the callback */
};

static void count_event(const struct sim_event *ev, void *arg)
{
    struct run *r = arg;

    (void)ev;
    r->events++;
}

static bool run_check(struct run *r, bool ok, const char *what)
{
    if (!ok && !r->bad) {
        r->bad = true;
        CHECK(ok);
        printf("  step %u: %s\n", r->steps, what);
    }
    return ok;
}

/* Apply one step; returns sim_apply()'s result. */
static int step(struct run *r, struct sim_op *op, struct sim_result *res)
{
    int ret = sim_apply(r->sim, op, res);
    struct outcome *o = &r->log[r->steps < MAX_STEPS ? r->steps : MAX_STEPS - 1];

    run_check(r, r->steps < MAX_STEPS, "script longer than MAX_STEPS");
    o->ret = ret;
    o->status = res->status;
    o->addr = res->addr;
    o->count = res->count;
    o->cache = res->cache;
    o->sheaf = res->sheaf;
    o->events = sim_event_count(r->sim);
    if (r->broken) {
        run_check(r, ret == -EIO, "a step after -ENOMEM did not return -EIO");
    } else if (ret == -ENOMEM) {
        r->broken = true;
        r->failed_step = r->steps;
        run_check(r, res->message[0] != 0, "-ENOMEM without a message");
    } else {
        run_check(r, ret == 0, "a step returned neither 0 nor -ENOMEM");
        if (r->ref) {
            const struct outcome *w = &r->ref[r->steps];

            run_check(r, o->ret == w->ret && o->status == w->status && o->addr == w->addr &&
                                 o->count == w->count && o->cache == w->cache &&
                                 o->sheaf == w->sheaf && o->events == w->events,
                    "a step before the failure differs from the reference run");
        }
        if (r->validate) {
            struct sim_report rep;

            if (sim_validate(r->sim, SIM_VALIDATE_OP, &rep) && !r->violations)
                printf("  step %u: %s\n", r->steps, rep.msg[0]);
            r->violations += rep.violations;
        }
    }
    r->steps++;
    return ret;
}

static void s_create(struct run *r, const char *name, unsigned size, uint32_t flags, unsigned cap)
{
    struct sim_op op = {.kind = SIM_OP_CREATE, .node = SIM_NUMA_NO_NODE};
    struct sim_result res;

    snprintf(op.create.name, sizeof(op.create.name), "%s", name);
    op.create.object_size = size;
    op.create.flags = flags;
    op.create.sheaf_capacity = cap;
    step(r, &op, &res);
}

static sim_addr_t s_alloc(struct run *r, int cache, unsigned cpu, int node)
{
    struct sim_op op = {.kind = SIM_OP_ALLOC, .cache = cache, .cpu = cpu, .node = node};
    struct sim_result res;

    step(r, &op, &res);
    return res.addr;
}

static void s_free(struct run *r, int cache, unsigned cpu, sim_addr_t addr)
{
    struct sim_op op = {.kind = SIM_OP_FREE, .cache = cache, .cpu = cpu, .addr = addr,
            .node = SIM_NUMA_NO_NODE};
    struct sim_result res;

    step(r, &op, &res);
}

static sim_addr_t s_kmalloc(struct run *r, unsigned size, unsigned cpu)
{
    struct sim_op op = {.kind = SIM_OP_KMALLOC, .size = size, .cpu = cpu,
            .node = SIM_NUMA_NO_NODE};
    struct sim_result res;

    step(r, &op, &res);
    return res.addr;
}

static void s_kfree(struct run *r, sim_addr_t addr, unsigned cpu)
{
    struct sim_op op = {.kind = SIM_OP_KFREE, .addr = addr, .cpu = cpu,
            .node = SIM_NUMA_NO_NODE};
    struct sim_result res;

    step(r, &op, &res);
}

static void s_bulk(struct run *r, int cache, unsigned cpu, unsigned n, sim_addr_t *out)
{
    struct sim_op op = {.kind = SIM_OP_ALLOC_BULK, .cache = cache, .cpu = cpu, .count = n,
            .out = out, .node = SIM_NUMA_NO_NODE};
    struct sim_result res;

    memset(out, 0, n * sizeof(*out));
    step(r, &op, &res);
}

static void s_kfree_rcu(struct run *r, sim_addr_t addr, unsigned cpu)
{
    struct sim_op op = {.kind = SIM_OP_KFREE_RCU, .addr = addr, .cpu = cpu,
            .node = SIM_NUMA_NO_NODE};
    struct sim_result res;

    step(r, &op, &res);
}

static void s_free_bulk(struct run *r, int cache, unsigned cpu, unsigned n, const sim_addr_t *in)
{
    struct sim_op op = {.kind = SIM_OP_FREE_BULK, .cache = cache, .cpu = cpu, .count = n,
            .in = in, .node = SIM_NUMA_NO_NODE};
    struct sim_result res;

    step(r, &op, &res);
}

/* The prefill API: a sheaf id (0 after a failure). */
static uint32_t s_sheaf_op(struct run *r, enum sim_op_kind kind, int cache, uint32_t sheaf,
        unsigned count)
{
    struct sim_op op = {.kind = kind, .cache = cache, .sheaf = sheaf, .count = count,
            .node = SIM_NUMA_NO_NODE};
    struct sim_result res;

    step(r, &op, &res);
    if (!r->ref && !r->broken) /* the reference run: the API really worked */
        run_check(r, res.status == SIM_OK && (kind == SIM_OP_RETURN_SHEAF ||
                                                     (kind == SIM_OP_ALLOC_FROM_SHEAF
                                                                     ? res.addr != 0
                                                                     : res.sheaf != 0)),
                "a prefill API step failed");
    return kind == SIM_OP_ALLOC_FROM_SHEAF ? (uint32_t)(res.addr != 0) : res.sheaf;
}

static void s_simple(struct run *r, enum sim_op_kind kind, int cache, unsigned cpu)
{
    struct sim_op op = {.kind = kind, .cache = cache, .cpu = cpu, .node = SIM_NUMA_NO_NODE};
    struct sim_result res;

    step(r, &op, &res);
}

enum { A, B, C, D, N, R, P, NR_USER_CACHES };

/* The script: every step's arguments depend only on earlier results. */
static void script(struct run *r, unsigned cpus, unsigned nodes)
{
    static sim_addr_t a[300], b[64], c[40], d[60], n[60], p[80], bulk_a[150], bulk_d[20],
            bulk_n[70], km[12];
    static const unsigned km_size[12] = {1, 8, 24, 64, 100, 200, 700, 1500, 3000, 5000, 8192, 0};
    const uint32_t debug = SIM_SLAB_CONSISTENCY_CHECKS | SIM_SLAB_RED_ZONE | SIM_SLAB_POISON |
                           SIM_SLAB_STORE_USER;

    s_create(r, "A", 64, 0, 0);
    s_create(r, "B", 4096, 0, 0);
    s_create(r, "C", 256, 0, 32);
    s_create(r, "D", 20, debug, 0);
    s_create(r, "N", 128, SIM_SLAB_NO_OBJ_EXT, 0);
    s_create(r, "R", 100, SIM_SLAB_HWCACHE_ALIGN | SIM_SLAB_TYPESAFE_BY_RCU, 0);
    s_create(r, "P", 8192, 0, 0);

    for (unsigned i = 0; i < 300; i++)
        a[i] = s_alloc(r, A, i % cpus, SIM_NUMA_NO_NODE);
    for (unsigned i = 0; i < 64; i++)
        b[i] = s_alloc(r, B, (i / 3) % cpus, SIM_NUMA_NO_NODE);
    for (unsigned i = 0; i < 40; i++)
        c[i] = s_alloc(r, C, 0, (int)(i % nodes));
    for (unsigned i = 0; i < 60; i++)
        d[i] = s_alloc(r, D, i % cpus, SIM_NUMA_NO_NODE);
    for (unsigned i = 0; i < 60; i++)
        n[i] = s_alloc(r, N, 0, SIM_NUMA_NO_NODE);
    for (unsigned i = 0; i < 80; i++)
        p[i] = s_alloc(r, P, (i / 7) % cpus, (int)((i / 5) % nodes));
    s_bulk(r, A, cpus - 1, 150, bulk_a);
    s_bulk(r, D, 0, 20, bulk_d);
    s_bulk(r, N, 0, 70, bulk_n);
    for (unsigned i = 0; i < 12; i++)
        km[i] = s_kmalloc(r, km_size[i], i % cpus);
    for (unsigned i = 0; i < 30; i++)
        s_free(r, R, 0, s_alloc(r, R, i % cpus, SIM_NUMA_NO_NODE));

    /* frees: sheaves fill, barns fill, spares are flushed */
    for (unsigned i = 0; i < 300; i += 2)
        s_free(r, A, (i / 2) % cpus, a[i]);
    for (unsigned i = 0; i < 64; i++)
        s_free(r, B, 0, b[i]);
    for (unsigned i = 0; i < 12; i++)
        s_kfree(r, km[i], (i + 1) % cpus);
    for (unsigned i = 0; i < 150; i++)
        s_free(r, A, (i / 10) % cpus, bulk_a[i]);
    s_simple(r, SIM_OP_FLUSH_ALL, A, 0);
    s_simple(r, SIM_OP_FLUSH_ALL, B, cpus - 1);
    for (unsigned i = 1; i < 300; i += 2)
        s_free(r, A, 0, a[i]);
    for (unsigned i = 40; i-- > 0;)
        s_free(r, C, (i / 4) % cpus, c[i]);
    for (unsigned i = 60; i-- > 0;)
        s_free(r, D, 0, d[i]);
    for (unsigned i = 0; i < 60; i++)
        s_free(r, N, i % cpus, n[i]);
    /* misuse: reported, nothing changes */
    s_free(r, N, 0, n[59]);
    s_kfree(r, 0x1234, 0);
    s_free(r, A, 0, p[0]);
    for (unsigned i = 0; i < 20; i++)
        s_kfree(r, bulk_d[i], 0);
    s_free_bulk(r, N, 0, 35, bulk_n); /* and kfree_rcu the rest */
    for (unsigned i = 35; i < 70; i++)
        s_kfree_rcu(r, bulk_n[i], i % cpus);
    s_simple(r, SIM_OP_GRACE_PERIOD, 0, 0);
    /* kfree_rcu through the rcu_free sheaves of C, one grace period at a time */
    for (unsigned i = 0; i < 40; i++)
        c[i] = s_alloc(r, C, i % cpus, SIM_NUMA_NO_NODE);
    for (unsigned i = 0; i < 40; i++) {
        s_kfree_rcu(r, c[i], i % cpus);
        if (i % 16 == 15)
            s_simple(r, SIM_OP_GRACE_PERIOD, 0, 0);
    }
    /* the prefill API on C */
    {
        uint32_t sh = s_sheaf_op(r, SIM_OP_PREFILL, C, 0, 10);

        for (unsigned i = 0; i < 5; i++)
            s_sheaf_op(r, SIM_OP_ALLOC_FROM_SHEAF, C, sh, 0);
        sh = s_sheaf_op(r, SIM_OP_REFILL_SHEAF, C, sh, 40); /* oversize: replaced */
        s_sheaf_op(r, SIM_OP_RETURN_SHEAF, C, sh, 0);
    }
    s_simple(r, SIM_OP_RCU_BARRIER, 0, 0);
    for (unsigned i = 0; i < 80; i++)
        s_free(r, P, i % cpus, p[i]);
    for (int k = 0; k < NR_USER_CACHES; k++)
        s_simple(r, SIM_OP_SHRINK, k, 0);
    for (int k = C; k < NR_USER_CACHES; k++)
        s_simple(r, SIM_OP_DESTROY, k, 0);

    /* a second round on the survivors, then they go too */
    for (unsigned i = 0; i < 20; i++)
        b[i] = s_alloc(r, B, i % cpus, SIM_NUMA_NO_NODE);
    s_bulk(r, A, 0, 100, bulk_a);
    for (unsigned i = 0; i < 20; i++)
        s_free(r, B, 0, b[i]);
    for (unsigned i = 0; i < 100; i++)
        s_free(r, A, 0, bulk_a[i]);
    s_simple(r, SIM_OP_DESTROY, A, 0);
    s_simple(r, SIM_OP_DESTROY, B, 0);
}

static bool run_once(struct run *r, const struct sim_config *cfg, bool listen, unsigned long n)
{
    r->steps = 0;
    r->broken = false;
    r->bad = false;
    r->violations = 0;
    r->events = 0;
    if (!CHECK_OK(sim_create(cfg, &r->sim)))
        return false;
    if (listen)
        sim_set_event_cb(r->sim, count_event, r);
    sim_fail_host_alloc(r->sim, n);
    script(r, cfg->nr_cpus, cfg->nr_nodes);
    return true;
}

/* After -ENOMEM: the machine refuses everything and is safe to inspect. */
static void check_broken(struct run *r)
{
    struct sim_snapshot *snap = NULL;
    struct sim *clone = NULL;
    struct sim_report rep;
    uint8_t byte = 0;

    CHECK_EQ_I(sim_snapshot(r->sim, &snap), -EIO);
    CHECK(snap == NULL);
    CHECK_EQ_I(sim_clone(r->sim, &clone), -EIO);
    CHECK(clone == NULL);
    CHECK_EQ_I(sim_write_bytes(r->sim, 0xffff888100000000ull, &byte, 1), -EIO);
    CHECK_EQ_U(sim_validate(r->sim, SIM_VALIDATE_OP, &rep), 1);
    for (int k = 0; k < (int)sim_nr_caches(r->sim); k++)
        CHECK_EQ_U(sim_stat(r->sim, k, SIM_ALLOC_FASTPATH, -1), 0);
    (void)sim_cache_lookup(r->sim, "A");
    (void)sim_event_count(r->sim);
}

/* Every N from 1 until the script no longer fails; returns the number of
 * runs, and in *sheaf_chunks the sheaf pool chunks the script needed. */
static unsigned long sweep(const struct sim_config *cfg, bool listen, uint32_t *sheaf_chunks)
{
    static struct outcome ref[MAX_STEPS], log[MAX_STEPS];
    struct run r = {.log = ref, .validate = true};
    unsigned ref_steps, prev_failed = 0;
    unsigned long n;
    struct sim_report rep;

    /* the reference: no failure, validated after every step */
    if (!run_once(&r, cfg, listen, 0))
        return 0;
    CHECK(!r.broken);
    CHECK_EQ_U(r.violations, 0);
    CHECK_EQ_U(sim_validate(r.sim, SIM_VALIDATE_OP, &rep), 0);
    if (listen)
        CHECK_EQ_U(r.events, sim_event_count(r.sim));
    ref_steps = r.steps;
    *sheaf_chunks = r.sim->sheaves.nr_chunks;
    sim_destroy(r.sim);

    r.ref = ref;
    r.log = log;
    r.validate = false;
    for (n = 1;; n++) {
        if (!run_once(&r, cfg, listen, n))
            break;
        CHECK_EQ_U(r.steps, ref_steps);
        if (!r.broken) {
            /* the script made fewer than n host allocations: done */
            CHECK_EQ_U(sim_validate(r.sim, SIM_VALIDATE_OP, &rep), 0);
            sim_destroy(r.sim);
            break;
        }
        /* the n-th allocation comes no earlier than the (n-1)-th */
        if (!CHECK_GE_U(r.failed_step, prev_failed))
            printf("  n=%lu\n", n);
        prev_failed = r.failed_step;
        check_broken(&r);
        sim_destroy(r.sim);
        if (r.bad) {
            printf("  failing run: n=%lu, failed at step %u\n", n, r.failed_step);
            break;
        }
    }
    CHECK_GT_U(n, 100); /* the script really allocates */
    CHECK_LT_U(prev_failed, ref_steps);
    return n;
}

/* default machine, event callback on (event building allocates too) */
static void test_sweep_default(void)
{
    struct sim_config cfg;
    unsigned long runs;
    uint32_t chunks;

    sim_config_default(&cfg);
    runs = sweep(&cfg, true, &chunks);
    printf("     %lu runs\n", runs);
}

/* every variant before, random freelists, 2 nodes, many CPUs (pool chunks
 * of sheaves grow: 24 CPUs x 15 caches), no callback */
static void test_sweep_before_numa(void)
{
    struct sim_config cfg;
    unsigned long runs;
    uint32_t chunks = 0;

    sim_config_default(&cfg);
    for (unsigned v = 0; v < SIM_NR_VARIANTS; v++)
        cfg.variant[v] = SIM_BEFORE;
    cfg.freelist_random = true;
    cfg.freelist_hardened = false;
    cfg.nr_cpus = 24;
    cfg.nr_nodes = 2;
    for (unsigned c = 0; c < cfg.nr_cpus; c++)
        cfg.cpu_node[c] = c % 2;
    cfg.mem_per_node = 16ull << 20;
    cfg.seed = 7;
    runs = sweep(&cfg, false, &chunks);
    printf("     %lu runs\n", runs);
    CHECK_GE_U(chunks, 2); /* the sheaf pool grew past its first chunk */
}

/* sim_write_bytes backs a page on its first write: that can fail too, and
 * leaves the machine usable */
static void test_write_bytes(void)
{
    struct tsim t;
    struct sim_snapshot *snap;
    sim_addr_t page;
    uint8_t in[16] = {1, 2, 3}, out[16];
    int a;

    tsim_init(&t, NULL);
    a = tsim_create(&t, "A", 64, 0, 0);
    CHECK_NE_U(tsim_alloc(&t, a, 0), 0);
    snap = snap_take(t.sim);
    if (!CHECK(snap != NULL))
        return;
    /* the last page of the first max-order block: handed out once, never written */
    page = snap->zones[0].start + 1023 * (sim_addr_t)SIM_PAGE_SIZE;
    sim_snapshot_release(snap);
    sim_fail_host_alloc(t.sim, 1);
    CHECK_EQ_I(sim_write_bytes(t.sim, page, in, sizeof(in)), -ENOMEM);
    CHECK_OK(sim_read_bytes(t.sim, page, out, sizeof(out)));
    CHECK_EQ_U(out[0], 0);
    CHECK_OK(sim_write_bytes(t.sim, page, in, sizeof(in)));
    CHECK_OK(sim_read_bytes(t.sim, page, out, sizeof(out)));
    CHECK(memcmp(in, out, sizeof(in)) == 0);
    CHECK_NE_U(tsim_alloc(&t, a, 1), 0); /* not broken */
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

int main(void)
{
    RUN_TEST(test_sweep_default);
    RUN_TEST(test_sweep_before_numa);
    RUN_TEST(test_write_bytes);
    return check_done();
}
