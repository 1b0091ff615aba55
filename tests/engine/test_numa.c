/*
 * test_numa.c: teaching scenario S10 (remote node and
 * node-specific allocation), on cache A with 2 nodes, CPU 0 on node 0 and
 * CPU 1 on node 1.
 *
 * Remote objects never enter a sheaf on the free path (free_slowpath); an
 * allocation for another node bypasses the sheaves (alloc_node_mismatch,
 * then the slow path on that node's partial list or a new slab there); an
 * allocation for the CPU's own node uses the sheaves and checks the node of
 * the object on top.  The node of an object is read from the snapshot's
 * slab list, as a user of the API would.
 */
#include "simtest.h"
#include "snapcmp.h"

/* Node of the slab holding @addr in @snap, or -1. */
static int snap_obj_node(const struct sim_snapshot *snap, sim_addr_t addr)
{
    for (size_t i = 0; i < snap->nr_slabs; i++) {
        const struct sim_snap_slab *sl = &snap->slabs[i];

        if (addr >= sl->addr && addr < sl->addr + ((sim_addr_t)SIM_PAGE_SIZE << sl->order))
            return sl->node;
    }
    return -1;
}

static int obj_node(struct tsim *t, sim_addr_t addr)
{
    struct sim_snapshot *snap = snap_take(t->sim);
    int node = snap ? snap_obj_node(snap, addr) : -2;

    sim_snapshot_release(snap);
    return node;
}

/* The snapshot entry of the slab holding @addr (a copy), or a zeroed one. */
static struct sim_snap_slab slab_info(struct tsim *t, sim_addr_t addr)
{
    struct sim_snapshot *snap = snap_take(t->sim);
    struct sim_snap_slab out;

    memset(&out, 0, sizeof(out));
    for (size_t i = 0; snap && i < snap->nr_slabs; i++)
        if (addr >= snap->slabs[i].addr &&
                addr < snap->slabs[i].addr + ((sim_addr_t)SIM_PAGE_SIZE << snap->slabs[i].order))
            out = snap->slabs[i];
    sim_snapshot_release(snap);
    return out;
}

static struct sim_snap_cache cache_info(struct tsim *t, int cache)
{
    struct sim_snapshot *snap = snap_take(t->sim);
    struct sim_snap_cache c;

    memset(&c, 0, sizeof(c));
    if (snap)
        c = snap->caches[cache];
    sim_snapshot_release(snap);
    return c;
}

/* Size of sheaf @id in a fresh snapshot (0 for none). */
static unsigned sheaf_size(struct tsim *t, uint32_t id)
{
    struct sim_snapshot *snap = snap_take(t->sim);
    unsigned size = 0;

    for (size_t i = 0; snap && i < snap->nr_sheaves; i++)
        if (snap->sheaves[i].id == id)
            size = snap->sheaves[i].size;
    sim_snapshot_release(snap);
    return size;
}

static uint64_t cpu_stat(struct tsim *t, int cache, const char *name, int cpu)
{
    return sim_stat(t->sim, cache, (unsigned)sim_stat_lookup(name), cpu);
}

static sim_addr_t alloc_node(struct tsim *t, int cache, unsigned cpu, int node)
{
    struct sim_op op = {.kind = SIM_OP_ALLOC, .cache = cache, .cpu = cpu, .node = node};
    struct sim_result res;

    if (tsim_apply(t, &op, &res) || !CHECK_EQ_I(res.status, SIM_OK))
        return 0;
    return res.addr;
}

static void two_nodes(struct tsim *t)
{
    struct sim_config cfg;

    sim_config_default(&cfg);
    cfg.nr_cpus = 2;
    cfg.nr_nodes = 2;
    cfg.cpu_node[0] = 0;
    cfg.cpu_node[1] = 1;
    tsim_init(t, &cfg);
}

/* A bulk free with other nodes' objects reorders the local ones as the
 * kernel's free_to_pcs_bulk does: 7.2 fills each hole with the last object
 * (p[i] = p[--size]), 7.3 swaps each remote object with the first local one */
static void test_bulk_free_remote_order(void)
{
    for (unsigned variant = 0; variant < 2; variant++) {
        struct sim_config cfg;
        struct sim_snapshot *snap;
        struct sim_snap_cache c;
        struct sim_result res;
        struct tsim t;
        sim_addr_t l[3], r[2], arr[5];
        struct sim_op op = {.kind = SIM_OP_FREE_BULK, .cpu = 0, .node = SIM_NUMA_NO_NODE};
        const unsigned want[2][3] = {{0, 2, 1}, {1, 0, 2}}; /* before: L1 L3 L2; after: L2 L1 L3 */
        int a;

        sim_config_default(&cfg);
        cfg.nr_cpus = 2;
        cfg.nr_nodes = 2;
        cfg.cpu_node[0] = 0;
        cfg.cpu_node[1] = 1;
        cfg.variant[SIM_VAR_BULK_FREE_PARTITION] = (uint8_t)variant;
        tsim_init(&t, &cfg);
        a = tsim_create(&t, "A", 64, 0, 0);
        for (unsigned i = 0; i < 3; i++)
            l[i] = tsim_alloc(&t, a, 0);
        for (unsigned i = 0; i < 2; i++)
            r[i] = tsim_alloc(&t, a, 1);
        CHECK_EQ_I(obj_node(&t, r[0]), 1);
        arr[0] = l[0];
        arr[1] = r[0];
        arr[2] = l[1];
        arr[3] = r[1];
        arr[4] = l[2];
        op.cache = a;
        op.count = 5;
        op.in = arr;
        CHECK(tsim_apply(&t, &op, &res) == 0 && res.status == SIM_OK);
        CHECK_EQ_U(cpu_stat(&t, a, "free_slowpath", 0), 2);
        CHECK_EQ_U(cpu_stat(&t, a, "free_fastpath", 0), 3);
        c = cache_info(&t, a);
        snap = snap_take(t.sim);
        for (size_t i = 0; snap && i < snap->nr_sheaves; i++) {
            const struct sim_snap_sheaf *sh = &snap->sheaves[i];

            if (sh->id != c.main[0] || !CHECK(sh->size >= 3))
                continue;
            for (unsigned k = 0; k < 3; k++)
                CHECK_EQ_U(snap->objs[sh->objs + sh->size - 3 + k], l[want[variant][k]]);
        }
        sim_snapshot_release(snap);
        CHECK_CLEAN(&t);
        tsim_fini(&t);
    }
}

/* S10, bullets 1-3 */
static void test_s10(void)
{
    struct tsim t;
    struct sim_snap_cache c;
    struct sim_snap_slab sl;
    sim_addr_t x, y, z;
    uint32_t main0;
    int a;

    two_nodes(&t);
    a = tsim_create(&t, "A", 64, 0, 0);

    /* CPU1 allocates X: a node-1 slab, through CPU1's sheaves */
    x = tsim_alloc(&t, a, 1);
    CHECK_EQ_I(obj_node(&t, x), 1);
    CHECK_EQ_U(cpu_stat(&t, a, "alloc_fastpath", 1), 1);
    c = cache_info(&t, a);
    CHECK_EQ_U(c.node[1].nr_slabs, 1);
    CHECK_EQ_U(c.node[0].nr_slabs, 0);
    CHECK_EQ_U(c.node[1].nr_partial, 1);
    main0 = c.main[0];
    CHECK_EQ_U(sheaf_size(&t, main0), 0);

    /* CPU0 frees X: not local, straight to its slab */
    CHECK_EQ_I(tsim_free(&t, a, 0, x), SIM_OK);
    CHECK_EQ_U(cpu_stat(&t, a, "free_slowpath", 0), 1);
    CHECK_STAT(&t, a, "free_fastpath", 0);
    CHECK_STAT(&t, a, "free_add_partial", 0); /* the slab was partial already */
    sl = slab_info(&t, x);
    CHECK_EQ_U(sl.freelist_head, x);
    CHECK_EQ_I(sl.node, 1);
    CHECK_EQ_U(sl.inuse, 59);
    CHECK_EQ_U(sheaf_size(&t, main0), 0); /* CPU0's sheaves untouched */

    /* CPU0 allocates on node 1: mismatch, slow path, node 1's partial list */
    y = alloc_node(&t, a, 0, 1);
    CHECK_EQ_U(y, x); /* the head of that slab's freelist */
    CHECK_EQ_I(obj_node(&t, y), 1);
    CHECK_EQ_U(cpu_stat(&t, a, "alloc_node_mismatch", 0), 1);
    CHECK_EQ_U(cpu_stat(&t, a, "alloc_slowpath", 0), 1);
    CHECK_EQ_U(cpu_stat(&t, a, "alloc_fastpath", 0), 0);
    CHECK_STAT(&t, a, "alloc_slab", 1);
    c = cache_info(&t, a);
    CHECK_EQ_U(c.main[0], main0);
    CHECK_EQ_U(c.spare[0], 0);
    CHECK_EQ_U(sheaf_size(&t, main0), 0);

    /* CPU0 allocates on node 0: the fast path, refilled from a node-0 slab */
    z = alloc_node(&t, a, 0, 0);
    CHECK_EQ_I(obj_node(&t, z), 0);
    CHECK_EQ_U(cpu_stat(&t, a, "alloc_fastpath", 0), 1);
    CHECK_EQ_U(cpu_stat(&t, a, "alloc_node_mismatch", 0), 1);
    CHECK_EQ_U(cpu_stat(&t, a, "alloc_slowpath", 0), 1);
    CHECK_EQ_U(cpu_stat(&t, a, "sheaf_refill", 0), 60);
    CHECK_STAT(&t, a, "alloc_slab", 2);
    c = cache_info(&t, a);
    CHECK_EQ_U(c.node[0].nr_slabs, 1);
    CHECK_EQ_U(c.node[1].nr_slabs, 1);

    /* and a remote free of the local object's twin on CPU1 goes slow too */
    CHECK_EQ_I(tsim_free(&t, a, 1, z), SIM_OK);
    CHECK_EQ_U(cpu_stat(&t, a, "free_slowpath", 1), 1);
    CHECK_EQ_I(tsim_free(&t, a, 1, y), SIM_OK); /* local to CPU1: its sheaf */
    CHECK_EQ_U(cpu_stat(&t, a, "free_fastpath", 1), 1);
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* Node-specific allocations: the partial list runs dry, a new slab on
 * that node follows; a remote free to a full slab puts it on the partial
 * list's tail; the naive double free check on the remote path */
static void test_node_specific_new_slab(void)
{
    struct tsim t;
    struct sim_snap_cache c;
    struct sim_snap_slab sl;
    struct sim_op op;
    struct sim_result res;
    sim_addr_t x, o[6];
    int a;

    two_nodes(&t);
    a = tsim_create(&t, "A", 64, 0, 0);
    x = tsim_alloc(&t, a, 1); /* node-1 slab S0: 60 taken, 4 free */
    for (int i = 0; i < 4; i++)
        o[i] = alloc_node(&t, a, 0, 1);
    for (int i = 0; i < 4; i++)
        CHECK_EQ_I(obj_node(&t, o[i]), 1);
    CHECK_STAT(&t, a, "alloc_slab", 1);
    sl = slab_info(&t, x);
    CHECK_EQ_U(sl.inuse, 64);
    CHECK_EQ_U(sl.place.type, SIM_PL_FULL);
    c = cache_info(&t, a);
    CHECK_EQ_U(c.node[1].nr_partial, 0);

    /* node 1 has no partial slab: a new one, there */
    o[4] = alloc_node(&t, a, 0, 1);
    CHECK_EQ_I(obj_node(&t, o[4]), 1);
    CHECK_STAT(&t, a, "alloc_slab", 2);
    CHECK_EQ_U(cpu_stat(&t, a, "alloc_node_mismatch", 0), 5);
    CHECK_EQ_U(cpu_stat(&t, a, "alloc_slowpath", 0), 5);
    c = cache_info(&t, a);
    CHECK_EQ_U(c.node[1].nr_slabs, 2);
    CHECK_EQ_U(c.node[0].nr_slabs, 0);
    CHECK_EQ_U(c.node[1].nr_partial, 1);

    /* remote free into the full S0: free_add_partial, at the tail */
    CHECK_EQ_I(tsim_free(&t, a, 0, o[0]), SIM_OK);
    CHECK_STAT(&t, a, "free_add_partial", 1);
    sl = slab_info(&t, o[0]);
    CHECK_EQ_U(sl.place.type, SIM_PL_NODE_PARTIAL);
    CHECK_EQ_U(sl.freelist_head, o[0]);

    /* the same object again, still the head of S0's freelist: reported */
    op = (struct sim_op){.kind = SIM_OP_FREE, .cache = a, .cpu = 0, .addr = o[0],
            .node = SIM_NUMA_NO_NODE};
    CHECK_OK(tsim_apply(&t, &op, &res));
    CHECK_EQ_I(res.status, SIM_MISUSE);
    CHECK(strstr(res.message, "object == fp") != NULL);
    CHECK_EQ_U(cpu_stat(&t, a, "free_slowpath", 0), 1);
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* With node 0's partial list empty and node 1 holding more than
 * min_partial partial slabs, a CPU0 refill pulls node-1 objects into
 * CPU0's sheaf; a node-0 allocation that finds one on top is a mismatch */
static void test_refill_from_other_node(void)
{
    struct tsim t;
    struct sim_snap_cache c;
    struct sim_snapshot *snap;
    sim_addr_t o[448], seen[8];
    unsigned nr_seen = 0, remote = 0, local;
    int a;

    two_nodes(&t);
    a = tsim_create(&t, "A", 64, 0, 0);
    /* 448 objects through CPU1's sheaves: 8 refills of 60 from 8 node-1
     * slabs, 7 of them full, the last with 32 free objects */
    for (unsigned i = 0; i < 448; i++)
        o[i] = tsim_alloc(&t, a, 1);
    c = cache_info(&t, a);
    CHECK_EQ_U(c.node[1].nr_slabs, 8);
    CHECK_EQ_U(c.node[1].nr_partial, 1);
    /* one object back to each full slab from CPU0: 8 partial slabs > min_partial 5 */
    for (unsigned i = 0; i < 448; i++) {
        struct sim_snap_slab sl = slab_info(&t, o[i]);
        bool dup = false;

        for (unsigned k = 0; k < nr_seen; k++)
            dup = dup || seen[k] == sl.addr;
        if (dup || sl.inuse != sl.objects || nr_seen == 8)
            continue;
        seen[nr_seen++] = sl.addr;
        CHECK_EQ_I(tsim_free(&t, a, 0, o[i]), SIM_OK);
    }
    CHECK_EQ_U(nr_seen, 7);
    c = cache_info(&t, a);
    CHECK_EQ_U(c.node[1].nr_partial, 8);
    CHECK_STAT(&t, a, "free_slowpath", 7);
    CHECK_STAT(&t, a, "free_add_partial", 7);

    /* CPU0: empty sheaves, empty node-0 partial list */
    CHECK_NE_U(alloc_node(&t, a, 0, 0), 0);
    c = cache_info(&t, a);
    snap = snap_take(t.sim);
    for (size_t i = 0; snap && i < snap->nr_sheaves; i++) {
        const struct sim_snap_sheaf *sh = &snap->sheaves[i];

        if (sh->id != c.main[0])
            continue;
        for (unsigned k = 0; k < sh->size; k++)
            remote += snap_obj_node(snap, snap->objs[sh->objs + k]) == 1;
        CHECK_EQ_U(sh->size, 59);
        /* the remote objects went in first: at the bottom */
        CHECK_EQ_I(snap_obj_node(snap, snap->objs[sh->objs]), 1);
        CHECK_EQ_I(snap_obj_node(snap, snap->objs[sh->objs + sh->size - 1]), 0);
    }
    sim_snapshot_release(snap);
    /* the 1001/1024 draw went the likely way: all 7 + 32 free node-1 objects */
    CHECK_EQ_U(remote, 39);
    CHECK_STAT(&t, a, "sheaf_refill", 8 * 60 + 60);
    local = 59 - remote;

    /* pop the local objects; the next node-0 request meets a remote one */
    for (unsigned i = 0; i < local; i++)
        CHECK_EQ_I(obj_node(&t, alloc_node(&t, a, 0, 0)), 0);
    CHECK_EQ_U(cpu_stat(&t, a, "alloc_node_mismatch", 0), 0);
    CHECK_EQ_I(obj_node(&t, alloc_node(&t, a, 0, 0)), 0);
    CHECK_EQ_U(cpu_stat(&t, a, "alloc_node_mismatch", 0), 1);
    CHECK_EQ_U(cpu_stat(&t, a, "alloc_slowpath", 0), 1);
    /* a request for no node in particular takes the remote object */
    CHECK_EQ_I(obj_node(&t, tsim_alloc(&t, a, 0)), 1);
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* Zone @i of the machine (zones[n] is node n's ZONE_NORMAL). */
static struct sim_snap_zone zone_info(struct tsim *t, unsigned i)
{
    struct sim_snapshot *snap = snap_take(t->sim);
    struct sim_snap_zone z;

    memset(&z, 0, sizeof(z));
    if (snap && i < snap->nr_zones)
        z = snap->zones[i];
    sim_snapshot_release(snap);
    return z;
}

/* A node at its watermarks: allocations for no node in particular spill
 * to the other node as soon as the fast path finds node 1 below its low
 * watermark (get_page_from_freelist walks the zonelist); a node-1 request
 * tries node 1 alone first (__GFP_THISNODE) and may dig down to its min
 * watermark in the slow path; once even that fails it falls back to node 0 */
static void test_node_exhausted_fallback(void)
{
    struct sim_config cfg;
    struct tsim t;
    struct sim_op op = {.kind = SIM_OP_ALLOC_BULK, .cpu = 1, .node = SIM_NUMA_NO_NODE};
    struct sim_result res;
    static sim_addr_t out[1024];
    struct sim_snap_zone z1;
    sim_addr_t x;
    unsigned n;
    int b;

    sim_config_default(&cfg);
    cfg.nr_nodes = 2;
    cfg.cpu_node[1] = 1;
    cfg.mem_per_node = 4ull << 20;
    tsim_init(&t, &cfg);
    t.quiet = true; /* many operations; the state is validated at the end */
    b = tsim_create(&t, "B", 4096, 0, 0);
    /* fill node 1: 4 MiB of 4096-byte objects (order-3 slabs), from CPU1 */
    op.cache = b;
    op.out = out;
    op.count = 1024;
    CHECK_OK(tsim_apply(&t, &op, &res));
    CHECK_EQ_I(res.status, SIM_OK);
    z1 = zone_info(&t, 1);
    CHECK_EQ_U(z1.node, 1);
    /* node 1 stopped where an order-3 block would cross its low watermark */
    CHECK((long)z1.free_pages - 7 <= (long)z1.watermark[SIM_WMARK_LOW]);
    CHECK((long)z1.free_pages - 7 + 8 > (long)z1.watermark[SIM_WMARK_LOW]);
    CHECK_EQ_U(cache_info(&t, b).node[1].nr_slabs * 8 + z1.free_pages, 1024);
    CHECK_EQ_U(cache_info(&t, b).node[0].nr_slabs * 8 + cache_info(&t, b).node[1].nr_slabs * 8,
            1024);
    /* a node-1 request: node 1 alone, slow path, down to its min watermark */
    x = alloc_node(&t, b, 0, 1);
    CHECK_EQ_I(obj_node(&t, x), 1);
    for (n = 0; n < 64 && obj_node(&t, x) == 1; n++)
        x = alloc_node(&t, b, 0, 1);
    /* node 1 is at its min watermark: the request lands on node 0 */
    CHECK_EQ_I(obj_node(&t, x), 0);
    z1 = zone_info(&t, 1);
    CHECK(z1.free_pages <= z1.watermark[SIM_WMARK_MIN]);
    t.quiet = false;
    CHECK_EQ_U(sim_validate(t.sim, SIM_VALIDATE_OP, NULL), 0);
    tsim_fini(&t);
}

int main(void)
{
    RUN_TEST(test_s10);
    RUN_TEST(test_bulk_free_remote_order);
    RUN_TEST(test_node_specific_new_slab);
    RUN_TEST(test_refill_from_other_node);
    RUN_TEST(test_node_exhausted_fallback);
    return check_done();
}
