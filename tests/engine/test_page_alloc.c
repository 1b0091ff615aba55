/*
 * test_page_alloc.c: the buddy allocator beneath the slabs (buddy.c,
 * white-box through internal.h), and what SLUB does when it runs dry.
 *
 * Allocation splits the smallest sufficient block and puts the upper halves
 * back, one per order; freeing merges a block with its free buddy, so
 * freeing everything restores one max-order block per touched chunk.
 * Exhaustion is a result: page_alloc() returns -ENOMEM, and an allocation
 * that needs a new slab comes back SIM_FAILED with SLUB's "Unable to
 * allocate" report.  With larger orders failing, new_slab() falls back to
 * the cache's minimum order and counts order_fallback.
 */
#include "internal.h"
#include "simtest.h"
#include "snapcmp.h"

static struct sim *machine(unsigned nodes, uint64_t mem)
{
    struct sim_config cfg;
    struct sim *sim = NULL;

    sim_config_default(&cfg);
    cfg.nr_nodes = nodes;
    cfg.cpu_node[1] = nodes - 1;
    cfg.mem_per_node = mem;
    if (!CHECK_OK(sim_create(&cfg, &sim)))
        return NULL;
    return sim;
}

/* Free blocks of each order must be @want[o] (order 10 counts untouched chunks). */
static bool check_free_blocks(struct sim *sim, int node, const unsigned long *want)
{
    bool ok = true;

    for (unsigned o = 0; o <= MAX_PAGE_ORDER; o++)
        if (!CHECK_EQ_U(zone_nr_free(&sim->zones[node], o), want[o])) {
            printf("  order %u\n", o);
            ok = false;
        }
    return CHECK_EQ_U(sim_validate(sim, SIM_VALIDATE_OP, NULL), 0) && ok;
}

/* Split, then merge back, on a 64 MiB node (16 max-order blocks) */
static void test_split_and_merge(void)
{
    struct sim *sim = machine(1, 64ull << 20);
    struct zone *z;
    sim_addr_t a0, a1, a2, a3, a4;
    unsigned long want[MAX_PAGE_ORDER + 1] = {0};

    if (!sim)
        return;
    z = &sim->zones[0];
    CHECK_EQ_U(z->pages, 16384);
    want[10] = 16;
    check_free_blocks(sim, 0, want);

    /* one page: the first chunk splits into one free block of each order 0..9 */
    CHECK_OK(page_alloc(sim, 0, 0, &a0));
    CHECK_EQ_U(a0, z->start);
    for (unsigned o = 0; o < MAX_PAGE_ORDER; o++)
        want[o] = 1;
    want[10] = 15;
    check_free_blocks(sim, 0, want);
    CHECK_EQ_U(z->free_pages, 16383);

    /* its buddy, then an order-1 block, then an order-3 block */
    CHECK_OK(page_alloc(sim, 0, 0, &a1));
    CHECK_EQ_U(a1, z->start + PAGE_SIZE);
    want[0] = 0;
    check_free_blocks(sim, 0, want);
    CHECK_OK(page_alloc(sim, 0, 1, &a2));
    CHECK_EQ_U(a2, z->start + 2 * PAGE_SIZE);
    want[1] = 0;
    check_free_blocks(sim, 0, want);
    CHECK_OK(page_alloc(sim, 0, 3, &a3));
    CHECK_EQ_U(a3, z->start + 8 * PAGE_SIZE);
    want[3] = 0;
    check_free_blocks(sim, 0, want);
    /* order 2 is free (pfn 4..7); order 0 now has to split it */
    CHECK_OK(page_alloc(sim, 0, 0, &a4));
    CHECK_EQ_U(a4, z->start + 4 * PAGE_SIZE);
    want[2] = 0;
    want[1] = 1; /* pfn 6..7 */
    want[0] = 1; /* pfn 5 */
    check_free_blocks(sim, 0, want);
    CHECK_EQ_U(z->free_pages, 16384 - 1 - 1 - 2 - 8 - 1);

    /* free in a scrambled order: each merge climbs as far as its buddies allow */
    page_free(sim, a2, 1); /* pfn 2..3: buddy 0..1 in use */
    want[1] = 2;
    check_free_blocks(sim, 0, want);
    page_free(sim, a0, 0); /* pfn 0: buddy 1 in use */
    want[0] = 2;
    check_free_blocks(sim, 0, want);
    page_free(sim, a1, 0); /* pfn 1: 0+1 -> 0..1 -> 0..3; 4..7 is split */
    want[0] = 1;
    want[1] = 1;
    want[2] = 1;
    check_free_blocks(sim, 0, want);
    page_free(sim, a4, 0); /* pfn 4: 4+5, 4..7, 0..7; 8..15 in use */
    want[0] = 0;
    want[1] = 0;
    want[2] = 0;
    want[3] = 1;
    check_free_blocks(sim, 0, want);
    page_free(sim, a3, 3); /* all the way up */
    memset(want, 0, sizeof(want));
    want[10] = 16;
    check_free_blocks(sim, 0, want);
    CHECK_EQ_U(z->free_pages, z->pages);
    CHECK_EQ_U(z->untouched, 1); /* the carved chunk stays described */
    sim_destroy(sim);
}

/* Many blocks of random orders, freed in another random order: the zone
 * returns to its starting free lists */
static void test_random_orders_return(void)
{
    struct sim *sim = machine(2, 8ull << 20);
    static sim_addr_t addr[4096];
    static unsigned order[4096];
    struct sim_snapshot *start, *end;
    uint64_t x = 12345;
    unsigned n = 0, top = 4; /* largest order still worth asking for */

    if (!sim)
        return;
    /* touch both chunks of node 1 first, so the start state has carved chunks */
    for (unsigned i = 0; i < 2; i++)
        CHECK_OK(page_alloc(sim, 1, MAX_PAGE_ORDER, &addr[i]));
    for (unsigned i = 0; i < 2; i++)
        page_free(sim, addr[i], MAX_PAGE_ORDER);
    start = snap_take(sim);
    while (n < 4096) {
        unsigned o;

        x = x * 6364136223846793005ull + 1442695040888963407ull;
        o = (unsigned)(x >> 60) % (top + 1);
        if (!page_alloc(sim, 1, o, &addr[n])) {
            order[n++] = o;
            continue;
        }
        if (o == 0)
            break; /* not even a page left */
        top = o - 1;
    }
    CHECK_GT_U(n, 100);
    CHECK_EQ_U(sim->zones[1].free_pages, 0);
    CHECK_EQ_U(sim_validate(sim, SIM_VALIDATE_OP, NULL), 0);
    /* every block is inside node 1's zone and 2^order aligned */
    for (unsigned i = 0; i < n; i++) {
        sim_addr_t off = addr[i] - sim->zones[1].start;

        CHECK_EQ_U(off % ((sim_addr_t)PAGE_SIZE << order[i]), 0);
        CHECK_LT_U(off, 8ull << 20);
    }
    /* free them in a shuffled order */
    for (unsigned i = n; i > 1; i--) {
        unsigned j, t;
        sim_addr_t a;

        x = x * 6364136223846793005ull + 1442695040888963407ull;
        j = (unsigned)((x >> 33) % i);
        a = addr[i - 1];
        addr[i - 1] = addr[j];
        addr[j] = a;
        t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    for (unsigned i = 0; i < n; i++)
        page_free(sim, addr[i], order[i]);
    end = snap_take(sim);
    CHECK_SNAP_EQ(start, end, SNAPCMP_CLOCK);
    if (end) {
        CHECK_EQ_U(end->zones[1].free_pages, end->zones[1].pages);
        CHECK_EQ_U(end->zones[1].nr_free[MAX_PAGE_ORDER], 2);
    }
    CHECK_EQ_U(sim_validate(sim, SIM_VALIDATE_OP, NULL), 0);
    sim_snapshot_release(start);
    sim_snapshot_release(end);
    sim_destroy(sim);
}

/* Exhaustion: -ENOMEM, including with free pages too fragmented to serve */
static void test_exhaustion(void)
{
    struct sim *sim = machine(1, 4ull << 20);
    static sim_addr_t page[1024];
    sim_addr_t a;

    if (!sim)
        return;
    CHECK_OK(page_alloc(sim, 0, MAX_PAGE_ORDER, &a));
    CHECK_EQ_I(page_alloc(sim, 0, 0, &page[0]), -ENOMEM);
    CHECK_EQ_I(page_alloc(sim, 0, MAX_PAGE_ORDER, &page[0]), -ENOMEM);
    page_free(sim, a, MAX_PAGE_ORDER);
    for (unsigned i = 0; i < 1024; i++)
        CHECK_OK(page_alloc(sim, 0, 0, &page[i]));
    CHECK_EQ_I(page_alloc(sim, 0, 0, &a), -ENOMEM);
    CHECK_EQ_U(sim->zones[0].free_pages, 0);
    /* every other page back: 512 free pages, but no two are buddies */
    for (unsigned i = 0; i < 1024; i += 2)
        page_free(sim, page[i], 0);
    CHECK_EQ_U(sim->zones[0].free_pages, 512);
    CHECK_EQ_U(zone_nr_free(&sim->zones[0], 0), 512);
    CHECK_EQ_I(page_alloc(sim, 0, 1, &a), -ENOMEM);
    CHECK_OK(page_alloc(sim, 0, 0, &a));
    page_free(sim, a, 0);
    CHECK_EQ_U(sim_validate(sim, SIM_VALIDATE_OP, NULL), 0);
    for (unsigned i = 1; i < 1024; i += 2)
        page_free(sim, page[i], 0);
    CHECK_EQ_U(zone_nr_free(&sim->zones[0], MAX_PAGE_ORDER), 1);
    CHECK_EQ_U(zone_nr_free(&sim->zones[0], 0), 0);
    /* injected: orders >= 2 fail, smaller ones do not */
    sim_fail_pages(sim, 2);
    CHECK_EQ_I(page_alloc(sim, 0, 2, &a), -ENOMEM);
    CHECK_EQ_I(page_alloc(sim, 0, MAX_PAGE_ORDER, &a), -ENOMEM);
    CHECK_OK(page_alloc(sim, 0, 1, &a));
    page_free(sim, a, 1);
    sim_fail_pages(sim, -1);
    CHECK_OK(page_alloc(sim, 0, MAX_PAGE_ORDER, &a));
    page_free(sim, a, MAX_PAGE_ORDER);
    CHECK_EQ_U(sim_validate(sim, SIM_VALIDATE_OP, NULL), 0);
    sim_destroy(sim);
}

/* Nodes have their own zones: exhausting one leaves the other alone */
static void test_nodes_apart(void)
{
    struct sim *sim = machine(2, 4ull << 20);
    sim_addr_t a, b;

    if (!sim)
        return;
    CHECK_EQ_U(sim->zones[1].start, sim->zones[0].start + (4ull << 20));
    CHECK_OK(page_alloc(sim, 0, MAX_PAGE_ORDER, &a));
    CHECK_EQ_I(page_alloc(sim, 0, 0, &b), -ENOMEM);
    CHECK_OK(page_alloc(sim, 1, 0, &b));
    CHECK_EQ_U(b, sim->zones[1].start);
    CHECK(zone_of(sim, b) == &sim->zones[1]);
    page_free(sim, b, 0);
    page_free(sim, a, MAX_PAGE_ORDER);
    CHECK_EQ_U(sim_validate(sim, SIM_VALIDATE_OP, NULL), 0);
    sim_destroy(sim);
}

/* An allocation that needs a slab when no page is left: SIM_FAILED */
static void test_unable_to_allocate(void)
{
    struct tsim t;
    struct sim_config cfg;
    struct sim_op op = {.kind = SIM_OP_ALLOC, .node = SIM_NUMA_NO_NODE};
    struct sim_result res;
    sim_addr_t all, out[8];
    unsigned long events;
    int a, d;

    sim_config_default(&cfg);
    cfg.mem_per_node = 4ull << 20;
    tsim_init(&t, &cfg);
    a = tsim_create(&t, "A", 64, 0, 0);
    d = tsim_create(&t, "D", 20, SIM_SLAB_RED_ZONE | SIM_SLAB_POISON | SIM_SLAB_STORE_USER, 0);
    CHECK_OK(page_alloc(t.sim, 0, MAX_PAGE_ORDER, &all)); /* the whole node */

    op.cache = a;
    events = t.events;
    CHECK_OK(tsim_apply(&t, &op, &res));
    CHECK_EQ_I(res.status, SIM_FAILED);
    CHECK_EQ_U(res.addr, 0);
    if (!CHECK(strstr(res.message, "Unable to allocate") != NULL))
        printf("  message: %s\n", res.message);
    CHECK_GT_U(t.events, events);
    /* the sheaf path gave up first: a new sheaf, no objects, freed again */
    CHECK_STAT(&t, a, "barn_get_fail", 1);
    CHECK_STAT(&t, a, "sheaf_alloc", 3);
    CHECK_STAT(&t, a, "sheaf_free", 1);
    CHECK_STAT(&t, a, "sheaf_refill", 0);
    CHECK_STAT(&t, a, "alloc_slowpath", 1);
    CHECK_STAT(&t, a, "alloc_slab", 0);
    CHECK_STAT(&t, a, "alloc_fastpath", 0);

    op.cache = d; /* the debug cache: slow path only */
    CHECK_OK(tsim_apply(&t, &op, &res));
    CHECK_EQ_I(res.status, SIM_FAILED);
    CHECK(strstr(res.message, "Unable to allocate") != NULL);
    op.node = 0; /* on the node itself, and kmalloc */
    CHECK_OK(tsim_apply(&t, &op, &res));
    CHECK_EQ_I(res.status, SIM_FAILED);
    op = (struct sim_op){.kind = SIM_OP_KMALLOC, .size = 100, .node = SIM_NUMA_NO_NODE};
    CHECK_OK(tsim_apply(&t, &op, &res));
    CHECK_EQ_I(res.status, SIM_FAILED);
    CHECK(strstr(res.message, "Unable to allocate") != NULL);
    op = (struct sim_op){.kind = SIM_OP_ALLOC_BULK, .cache = a, .count = 8, .out = out,
            .node = SIM_NUMA_NO_NODE};
    CHECK_OK(tsim_apply(&t, &op, &res));
    CHECK_EQ_I(res.status, SIM_FAILED);
    CHECK_EQ_U(res.count, 0);
    CHECK(res.message[0] != 0);

    /* memory back: allocations work again */
    page_free(t.sim, all, MAX_PAGE_ORDER);
    CHECK_NE_U(tsim_alloc(&t, a, 0), 0);
    CHECK_NE_U(tsim_alloc(&t, d, 1), 0);
    CHECK_STAT(&t, a, "alloc_slab", 1);
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* Running out through SLUB itself: slabs fill the node, the next
 * allocation fails, frees and a shrink give every page back */
static void test_exhaust_by_slabs(void)
{
    struct tsim t;
    struct sim_config cfg;
    struct sim_op op = {.kind = SIM_OP_ALLOC, .node = SIM_NUMA_NO_NODE};
    struct sim_result res;
    static sim_addr_t obj[1100];
    unsigned n = 0;
    int b;

    sim_config_default(&cfg);
    cfg.mem_per_node = 4ull << 20;
    tsim_init(&t, &cfg);
    t.quiet = true; /* about a thousand operations: validated at the end */
    b = tsim_create(&t, "B", 4096, 0, 0);
    op.cache = b;
    for (;;) {
        CHECK_OK(tsim_apply(&t, &op, &res));
        if (res.status != SIM_OK || n == 1100)
            break;
        obj[n++] = res.addr;
    }
    CHECK_EQ_I(res.status, SIM_FAILED);
    CHECK(strstr(res.message, "Unable to allocate") != NULL);
    /* GFP_KERNEL stops at the min watermark: the order-3 slabs while an
     * order-3 block left more than min, then order-0 ones (order_fallback) */
    CHECK_EQ_U(t.sim->zones[0].free_pages, t.sim->zones[0].wmark[SIM_WMARK_MIN]);
    CHECK_EQ_U(n, 1024 - t.sim->zones[0].wmark[SIM_WMARK_MIN]);
    CHECK_STAT(&t, b, "engine_pages_in", n);
    t.quiet = false;
    CHECK_EQ_U(sim_validate(t.sim, SIM_VALIDATE_OP, NULL), 0);
    t.quiet = true;
    for (unsigned i = 0; i < n; i++)
        CHECK_EQ_I(tsim_free(&t, b, i % 2, obj[i]), SIM_OK);
    tsim_simple(&t, SIM_OP_SHRINK, b, 0);
    t.quiet = false;
    CHECK_EQ_U(sim_validate(t.sim, SIM_VALIDATE_OP, NULL), 0);
    CHECK_EQ_U(t.sim->zones[0].free_pages, 1024);
    CHECK_EQ_U(zone_nr_free(&t.sim->zones[0], MAX_PAGE_ORDER), 1);
    CHECK_STAT(&t, b, "engine_pages_out", n);
    tsim_fini(&t);
}

static struct sim_snap_slab first_slab(struct tsim *t, int cache)
{
    struct sim_snapshot *snap = snap_take(t->sim);
    struct sim_snap_slab out;

    memset(&out, 0, sizeof(out));
    for (size_t i = 0; snap && i < snap->nr_slabs; i++)
        if (snap->slabs[i].cache == cache) {
            out = snap->slabs[i];
            break;
        }
    sim_snapshot_release(snap);
    return out;
}

/* Order fallback: the preferred order fails, the minimum order works */
static void test_order_fallback(void)
{
    struct tsim t;
    struct sim_snap_slab sl;
    struct sim_op op = {.kind = SIM_OP_ALLOC, .node = SIM_NUMA_NO_NODE};
    struct sim_result res;
    sim_addr_t x;
    int a, b, k;

    tsim_init(&t, NULL);
    a = tsim_create(&t, "A", 64, 0, 0);   /* order 0: nothing to fall back from */
    b = tsim_create(&t, "B", 4096, 0, 0); /* order 3, min order 0: 1 object */
    k = tsim_create(&t, "K", 8192, 0, 0); /* order 3, min order 1: 1 object */
    sim_fail_pages(t.sim, 1);

    x = tsim_alloc(&t, a, 0);
    CHECK_NE_U(x, 0);
    CHECK_STAT(&t, a, "order_fallback", 0);

    /* a refill of 4 needs 4 one-object slabs */
    x = tsim_alloc(&t, b, 0);
    CHECK_NE_U(x, 0);
    CHECK_STAT(&t, b, "order_fallback", 4);
    CHECK_STAT(&t, b, "alloc_slab", 4);
    CHECK_STAT(&t, b, "sheaf_refill", 4);
    sl = first_slab(&t, b);
    CHECK_EQ_U(sl.order, 0);
    CHECK_EQ_U(sl.objects, 1);
    CHECK_EQ_U(sl.inuse, 1);

    /* K's minimum order is 1, which fails too */
    op.cache = k;
    CHECK_OK(tsim_apply(&t, &op, &res));
    CHECK_EQ_I(res.status, SIM_FAILED);
    CHECK(strstr(res.message, "Unable to allocate") != NULL);
    CHECK_STAT(&t, k, "order_fallback", 0);
    sim_fail_pages(t.sim, 2);
    x = tsim_alloc(&t, k, 0);
    CHECK_NE_U(x, 0);
    CHECK_STAT(&t, k, "order_fallback", 4);
    sl = first_slab(&t, k);
    CHECK_EQ_U(sl.order, 1);
    CHECK_EQ_U(sl.objects, 1);

    /* back to normal: the preferred order again */
    sim_fail_pages(t.sim, -1);
    for (int i = 0; i < 4; i++)
        tsim_alloc(&t, b, 0);
    CHECK_STAT(&t, b, "order_fallback", 4);
    CHECK_STAT(&t, b, "alloc_slab", 5);
    {
        struct sim_snapshot *snap = snap_take(t.sim);
        unsigned order3 = 0;

        for (size_t i = 0; snap && i < snap->nr_slabs; i++)
            if (snap->slabs[i].cache == b && snap->slabs[i].order == 3) {
                order3++;
                CHECK_EQ_U(snap->slabs[i].objects, 8);
            }
        CHECK_EQ_U(order3, 1);
        sim_snapshot_release(snap);
    }
    /* everything is freed and shrunk: fallback slabs go back as order 0 */
    tsim_simple(&t, SIM_OP_FLUSH_ALL, b, 0);
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* Fallback in both DEFERRED_FREELIST variants gives the same slabs */
static void test_order_fallback_variants(void)
{
    sim_addr_t got[2][4];

    for (unsigned v = 0; v < 2; v++) {
        struct sim_config cfg;
        struct tsim t;
        int b;

        sim_config_default(&cfg);
        cfg.variant[SIM_VAR_DEFERRED_FREELIST] = (uint8_t)v;
        tsim_init(&t, &cfg);
        b = tsim_create(&t, "B", 4096, 0, 0);
        sim_fail_pages(t.sim, 1);
        for (int i = 0; i < 4; i++)
            got[v][i] = tsim_alloc(&t, b, 0);
        CHECK_STAT(&t, b, "order_fallback", 4);
        CHECK_CLEAN(&t);
        tsim_fini(&t);
    }
    for (int i = 0; i < 4; i++)
        CHECK_EQ_U(got[0][i], got[1][i]);
}

int main(void)
{
    RUN_TEST(test_split_and_merge);
    RUN_TEST(test_random_orders_return);
    RUN_TEST(test_exhaustion);
    RUN_TEST(test_nodes_apart);
    RUN_TEST(test_unable_to_allocate);
    RUN_TEST(test_exhaust_by_slabs);
    RUN_TEST(test_order_fallback);
    RUN_TEST(test_order_fallback_variants);
    return check_done();
}
