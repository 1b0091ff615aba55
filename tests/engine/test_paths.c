/*
 * test_paths.c: twelve teaching paths through the engine (S1-S12),
 * counter by counter, with the validator after every event and operation.
 */
#include "simtest.h"

/* S1: sizing of A, B, C and the debug cache D */
static void test_s1_sizing(void)
{
    struct tsim t;
    int a, b, c, d;
    struct sim_snap_cache ca, cb, cc, cd;

    tsim_init(&t, NULL);
    a = tsim_create(&t, "A", 64, 0, 0);
    b = tsim_create(&t, "B", 4096, 0, 0);
    c = tsim_create(&t, "C", 256, 0, 32);
    d = tsim_create(&t, "D", 20,
            SIM_SLAB_CONSISTENCY_CHECKS | SIM_SLAB_RED_ZONE | SIM_SLAB_POISON |
                    SIM_SLAB_STORE_USER,
            0);
    ca = tsim_snap_cache(&t, a);
    cb = tsim_snap_cache(&t, b);
    cc = tsim_snap_cache(&t, c);
    cd = tsim_snap_cache(&t, d);
    CHECK_EQ_U(ca.size, 64);
    CHECK_EQ_U(ca.order, 0);
    CHECK_EQ_U(ca.objects_per_slab, 64);
    CHECK_EQ_U(ca.sheaf_capacity, 60);
    CHECK_EQ_U(ca.min_partial, 5);
    CHECK_EQ_U(ca.offset, 32);
    CHECK_EQ_U(cb.order, 3);
    CHECK_EQ_U(cb.objects_per_slab, 8);
    CHECK_EQ_U(cb.sheaf_capacity, 4);
    CHECK_EQ_U(cb.min_partial, 6);
    CHECK_EQ_U(cc.order, 0);
    CHECK_EQ_U(cc.objects_per_slab, 16);
    CHECK_EQ_U(cc.sheaf_capacity, 32);
    CHECK_EQ_U(cd.size, 112);
    CHECK_EQ_U(cd.offset, 24);
    CHECK_EQ_U(cd.red_left_pad, 8);
    CHECK_EQ_U(cd.order, 0);
    CHECK_EQ_U(cd.objects_per_slab, 36);
    CHECK_EQ_U(cd.sheaf_capacity, 0);
    CHECK_STAT(&t, a, "sheaf_alloc", 2);
    CHECK_STAT(&t, d, "sheaf_alloc", 0);
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* S2: first allocation fills a fresh slab, both DEFERRED_FREELIST variants */
static void s2(unsigned variant, uint64_t *writes, uint64_t *reads, sim_addr_t *got)
{
    struct sim_config cfg;
    struct tsim t;
    struct sim_snap_cache c;
    int a;

    sim_config_default(&cfg);
    cfg.variant[SIM_VAR_DEFERRED_FREELIST] = (uint8_t)variant;
    tsim_init(&t, &cfg);
    a = tsim_create(&t, "A", 64, 0, 0);
    *got = tsim_alloc(&t, a, 0);
    CHECK_STAT(&t, a, "barn_get_fail", 1);
    CHECK_STAT(&t, a, "sheaf_alloc", 3);
    CHECK_STAT(&t, a, "alloc_slab", 1);
    CHECK_STAT(&t, a, "sheaf_refill", 60);
    CHECK_STAT(&t, a, "alloc_fastpath", 1);
    CHECK_STAT(&t, a, "alloc_slowpath", 0);
    c = tsim_snap_cache(&t, a);
    CHECK_EQ_U(c.slabs, 1);
    CHECK_EQ_U(c.total_objects, 64);
    CHECK_EQ_U(c.partial, 1);
    CHECK_EQ_U(c.objects_partial, 60);
    CHECK_EQ_U(c.objects, 60);
    *writes = tsim_stat(&t, a, "engine_freeptr_writes");
    *reads = tsim_stat(&t, a, "engine_freeptr_reads");
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

static void test_s2_fresh_slab(void)
{
    uint64_t wb, rb, wa, ra;
    sim_addr_t ob, oa;

    s2(SIM_BEFORE, &wb, &rb, &ob);
    s2(SIM_AFTER, &wa, &ra, &oa);
    CHECK_EQ_U(wb, 64);
    CHECK_EQ_U(rb, 60);
    CHECK_EQ_U(wa, 4);
    CHECK_EQ_U(ra, 0);
    CHECK_EQ_U(ob, oa);
    /* the user gets the 60th emitted object: slot 59 */
    CHECK_EQ_U(oa % 4096, 59 * 64);
}

/* S3 then S4, S5: config B */
static void test_s3_s4_s5(void)
{
    struct tsim t;
    struct sim_snap_cache c;
    sim_addr_t o[57];
    int b;

    tsim_init(&t, NULL);
    b = tsim_create(&t, "B", 4096, 0, 0);
    for (int i = 1; i <= 16; i++)
        o[i] = tsim_alloc(&t, b, 0);
    CHECK_STAT(&t, b, "alloc_fastpath", 16);
    CHECK_STAT(&t, b, "barn_get_fail", 4);
    CHECK_STAT(&t, b, "sheaf_refill", 16);
    CHECK_STAT(&t, b, "alloc_slab", 2);
    CHECK_STAT(&t, b, "sheaf_alloc", 3);
    c = tsim_snap_cache(&t, b);
    CHECK_EQ_U(c.partial, 0);
    CHECK_EQ_U(c.objects, 16);

    for (int i = 17; i <= 56; i++)
        o[i] = tsim_alloc(&t, b, 0);
    CHECK_STAT(&t, b, "alloc_slab", 7);
    CHECK_STAT(&t, b, "sheaf_refill", 56);
    CHECK_STAT(&t, b, "barn_get_fail", 14);
    for (int i = 1; i <= 56; i++)
        CHECK_EQ_I(tsim_free(&t, b, 0, o[i]), SIM_OK);
    CHECK_STAT(&t, b, "free_fastpath", 56);
    CHECK_STAT(&t, b, "free_slowpath", 0);
    CHECK_STAT(&t, b, "barn_put", 10);
    CHECK_STAT(&t, b, "barn_put_fail", 2);
    CHECK_STAT(&t, b, "sheaf_alloc", 13);
    CHECK_STAT(&t, b, "sheaf_flush", 8);
    CHECK_STAT(&t, b, "free_add_partial", 2);
    c = tsim_snap_cache(&t, b);
    CHECK_EQ_U(c.barn[0].nr_full, 10);
    CHECK_EQ_U(c.barn[0].nr_empty, 0);
    CHECK_EQ_U(c.partial, 2);
    CHECK_EQ_U(c.objects, 48);

    /* S5 */
    for (int i = 1; i <= 48; i++)
        tsim_alloc(&t, b, 0);
    CHECK_STAT(&t, b, "alloc_fastpath", 56 + 48);
    CHECK_STAT(&t, b, "barn_get", 10);
    CHECK_STAT(&t, b, "sheaf_refill", 56);
    c = tsim_snap_cache(&t, b);
    CHECK_EQ_U(c.barn[0].nr_full, 0);
    CHECK_EQ_U(c.barn[0].nr_empty, 10);
    tsim_alloc(&t, b, 0);
    CHECK_STAT(&t, b, "barn_get_fail", 15);
    CHECK_STAT(&t, b, "sheaf_refill", 60);
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* S11: shrink after the free storm */
static void test_s11_shrink(void)
{
    struct tsim t;
    struct sim_snap_cache c;
    sim_addr_t o[57];
    int b;

    tsim_init(&t, NULL);
    b = tsim_create(&t, "B", 4096, 0, 0);
    for (int i = 1; i <= 56; i++)
        o[i] = tsim_alloc(&t, b, 0);
    for (int i = 1; i <= 56; i++)
        tsim_free(&t, b, 0, o[i]);
    tsim_simple(&t, SIM_OP_SHRINK, b, 0);
    CHECK_STAT(&t, b, "sheaf_flush", 8 + 48);
    CHECK_STAT(&t, b, "sheaf_free", 11);
    CHECK_STAT(&t, b, "free_add_partial", 2 + 5);
    CHECK_STAT(&t, b, "free_remove_partial", 2);
    CHECK_STAT(&t, b, "free_slab", 2);
    c = tsim_snap_cache(&t, b);
    CHECK_EQ_U(c.slabs, 0);
    CHECK_EQ_U(c.barn[0].nr_full, 0);
    CHECK_EQ_U(c.barn[0].nr_empty, 0);
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* S9: bulk allocation, then frees of the same objects one by one are not
 * the bulk free of a later issue; here: alloc_bulk counters */
static void test_s9_alloc_bulk(void)
{
    struct tsim t;
    sim_addr_t out[100];
    struct sim_op op = {.kind = SIM_OP_ALLOC_BULK, .count = 100, .out = out,
            .node = SIM_NUMA_NO_NODE};
    struct sim_result res;
    uint64_t w;
    int a;

    tsim_init(&t, NULL);
    a = tsim_create(&t, "A", 64, 0, 0);
    op.cache = a;
    CHECK_OK(tsim_apply(&t, &op, &res));
    CHECK_EQ_U(res.count, 100);
    CHECK_STAT(&t, a, "barn_get_fail", 1);
    CHECK_STAT(&t, a, "alloc_slab", 2);
    CHECK_STAT(&t, a, "alloc_slowpath", 100);
    CHECK_STAT(&t, a, "alloc_fastpath", 0);
    CHECK_STAT(&t, a, "sheaf_refill", 0);
    w = tsim_stat(&t, a, "engine_freeptr_writes");
    CHECK_EQ_U(w, 28); /* only S1's remaining 28 objects are chained */
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

int main(void)
{
    RUN_TEST(test_s1_sizing);
    RUN_TEST(test_s2_fresh_slab);
    RUN_TEST(test_s3_s4_s5);
    RUN_TEST(test_s11_shrink);
    RUN_TEST(test_s9_alloc_bulk);
    return check_done();
}
