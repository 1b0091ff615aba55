/*
 * test_debug.c: debug caches on real bytes, hardened and random freelists,
 * and the "kernel would fault here" stop (teaching scenario S12; issue: fidelity).
 */
#include <errno.h>

#include "simtest.h"

#define D_FLAGS                                                                                    \
    (SIM_SLAB_CONSISTENCY_CHECKS | SIM_SLAB_RED_ZONE | SIM_SLAB_POISON | SIM_SLAB_STORE_USER)

static uint8_t byte_at(struct tsim *t, sim_addr_t a)
{
    uint8_t b = 0;

    sim_read_bytes(t->sim, a, &b, 1);
    return b;
}

static enum sim_status write_bytes(struct tsim *t, sim_addr_t a, unsigned len, uint8_t v,
        struct sim_result *res)
{
    struct sim_op op = {.kind = SIM_OP_WRITE, .addr = a, .count = len, .byte = v,
            .node = SIM_NUMA_NO_NODE};

    if (tsim_apply(t, &op, res))
        return (enum sim_status)-1;
    return res->status;
}

/* S12, cache D: slow paths, the full list, poison and red zone bytes */
static void test_debug_cache_paths(void)
{
    struct tsim t;
    struct sim_snap_cache c;
    sim_addr_t o[37];
    int d;

    tsim_init(&t, NULL);
    d = tsim_create(&t, "D", 20, D_FLAGS, 0);
    o[0] = tsim_alloc(&t, d, 0);
    CHECK_STAT(&t, d, "alloc_slowpath", 1);
    CHECK_STAT(&t, d, "alloc_slab", 1);
    CHECK_STAT(&t, d, "engine_freeptr_writes", 35 + 1);
    /* allocated: body poisoned 0x6b..0xa5, red zones active 0xcc */
    CHECK_EQ_U(byte_at(&t, o[0]), 0x6b);
    CHECK_EQ_U(byte_at(&t, o[0] + 19), 0xa5);
    CHECK_EQ_U(byte_at(&t, o[0] + 20), 0xcc);
    CHECK_EQ_U(byte_at(&t, o[0] - 1), 0xcc);
    for (int i = 1; i < 36; i++)
        o[i] = tsim_alloc(&t, d, 0);
    CHECK_STAT(&t, d, "alloc_slowpath", 36);
    CHECK_STAT(&t, d, "alloc_slab", 1);
    c = tsim_snap_cache(&t, d);
    CHECK_EQ_U(c.partial, 0); /* the full slab is on the full list */
    CHECK_EQ_I(tsim_free(&t, d, 0, o[5]), SIM_OK);
    CHECK_STAT(&t, d, "free_slowpath", 1);
    CHECK_STAT(&t, d, "free_add_partial", 1);
    CHECK_EQ_U(byte_at(&t, o[5] + 20), 0xbb); /* red zone inactive again */
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* The object a debug cache takes from a new slab keeps a free pointer to the
 * slab's first free object, as alloc_single_from_new_slab() sets it (and as
 * the freelist written at birth links it before DEFERRED_FREELIST); the
 * slab's only object links to NULL */
static void test_debug_new_slab_freeptr(void)
{
    for (unsigned variant = 0; variant < 2; variant++) {
        struct sim_config cfg;
        struct sim_snapshot *snap;
        struct sim_freeptr fp;
        struct tsim t;
        sim_addr_t o, big;
        int d, b;

        sim_config_default(&cfg);
        cfg.variant[SIM_VAR_DEFERRED_FREELIST] = (uint8_t)variant;
        tsim_init(&t, &cfg);
        d = tsim_create(&t, "D", 20, D_FLAGS, 0);
        o = tsim_alloc(&t, d, 0);
        if (CHECK_OK(sim_snapshot(t.sim, &snap))) {
            CHECK_EQ_U(snap->slabs[0].nr_free, 35);
            CHECK_OK(sim_read_freeptr(t.sim, d, o, &fp));
            CHECK_EQ_U(fp.decoded, snap->objs[snap->slabs[0].freelist]);
            CHECK_NE_U(fp.decoded, 0);
            sim_snapshot_release(snap);
        }
        b = tsim_create(&t, "B", 20000, SIM_SLAB_RED_ZONE, 0);
        big = tsim_alloc(&t, b, 0);
        CHECK_EQ_U(tsim_snap_cache(&t, b).objects_per_slab, 1);
        CHECK_OK(sim_read_freeptr(t.sim, b, big, &fp));
        CHECK_EQ_U(fp.decoded, 0);
        CHECK_CLEAN(&t);
        tsim_fini(&t);
    }
}

static void test_debug_double_free(void)
{
    struct tsim t;
    sim_addr_t a, b;
    int d;
    struct sim_op op = {.kind = SIM_OP_FREE, .node = SIM_NUMA_NO_NODE};
    struct sim_result res;
    uint64_t frees;

    tsim_init(&t, NULL);
    d = tsim_create(&t, "D", 20, D_FLAGS, 0);
    a = tsim_alloc(&t, d, 0);
    b = tsim_alloc(&t, d, 0);
    CHECK_EQ_I(tsim_free(&t, d, 0, a), SIM_OK);
    CHECK_EQ_I(tsim_free(&t, d, 0, b), SIM_OK);
    frees = tsim_snap_cache(&t, d).objects;
    op.cache = d;
    op.addr = a; /* a is on the freelist, not at its head */
    CHECK_OK(tsim_apply(&t, &op, &res));
    CHECK_EQ_I(res.status, SIM_MISUSE);
    CHECK(strstr(res.message, "Object already free") != NULL);
    CHECK(strstr(res.message, "not freed") != NULL);
    CHECK_EQ_U(tsim_snap_cache(&t, d).objects, frees);
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* Overwriting byte 20 of a 20-byte object hits its right red zone */
static void test_debug_redzone(void)
{
    struct tsim t;
    struct sim_result res;
    sim_addr_t a;
    int d;
    struct sim_op op = {.kind = SIM_OP_FREE, .node = SIM_NUMA_NO_NODE};

    tsim_init(&t, NULL);
    d = tsim_create(&t, "D", 20, D_FLAGS, 0);
    a = tsim_alloc(&t, d, 0);
    CHECK_EQ_I(write_bytes(&t, a + 20, 1, 0x41, &res), SIM_OK);
    op.cache = d;
    op.addr = a;
    CHECK_OK(tsim_apply(&t, &op, &res));
    CHECK_EQ_I(res.status, SIM_MISUSE);
    CHECK(strstr(res.message, "BUG D (Not tainted): Right Redzone overwritten") != NULL);
    CHECK(strstr(res.message, "First byte 0x41 instead of 0xcc") != NULL);
    CHECK_EQ_U(byte_at(&t, a + 20), 0xcc); /* restored, as the kernel does */
    CHECK_EQ_U(tsim_snap_cache(&t, d).objects, 1); /* not freed */
    /* the second free now passes: the bytes were repaired */
    CHECK_EQ_I(tsim_free(&t, d, 0, a), SIM_OK);
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* A write into a freed object is found when the object is allocated again */
static void test_debug_use_after_free(void)
{
    struct tsim t;
    struct sim_result res;
    struct sim_op op = {.kind = SIM_OP_ALLOC, .node = SIM_NUMA_NO_NODE};
    sim_addr_t a;
    int d;

    tsim_init(&t, NULL);
    d = tsim_create(&t, "D", 20, D_FLAGS, 0);
    a = tsim_alloc(&t, d, 0);
    tsim_alloc(&t, d, 0);
    CHECK_EQ_I(tsim_free(&t, d, 0, a), SIM_OK);
    CHECK_EQ_I(write_bytes(&t, a + 4, 2, 0x00, &res), SIM_OK);
    op.cache = d;
    CHECK_OK(tsim_apply(&t, &op, &res)); /* a is the freelist head */
    CHECK(strstr(res.message, "Poison overwritten") != NULL);
    CHECK(strstr(res.message, "Marking all objects used") != NULL);
    /* the slab is leaked; the allocation still succeeds from a new slab */
    CHECK(res.addr != 0 && res.addr != a);
    CHECK_STAT(&t, d, "alloc_slab", 2);
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* S12, cache A hardened: stored words differ from pointers; NULL is not 0 */
static void test_hardened_words(void)
{
    struct tsim t;
    struct sim_snapshot *snap;
    struct sim_freeptr fp;
    int a;

    tsim_init(&t, NULL);
    a = tsim_create(&t, "A", 64, 0, 0);
    tsim_alloc(&t, a, 0);
    if (!CHECK_OK(sim_snapshot(t.sim, &snap)))
        return;
    CHECK_EQ_U(snap->slabs[0].nr_free, 4);
    for (unsigned i = 0; i < 4; i++) {
        sim_addr_t obj = snap->objs[snap->slabs[0].freelist + i];
        sim_addr_t next = i < 3 ? snap->objs[snap->slabs[0].freelist + i + 1] : 0;
        uint64_t at = obj + 32, sw = __builtin_bswap64(at);

        CHECK_OK(sim_read_freeptr(t.sim, a, obj, &fp));
        CHECK_EQ_U(fp.decoded, next);
        CHECK_NE_U(fp.stored, next);
        CHECK_EQ_U(fp.stored, next ^ snap->caches[a].random ^ sw);
    }
    sim_snapshot_release(snap);
    tsim_fini(&t);
}

/* S12, cache A with RANDOM: both DEFERRED_FREELIST variants, same objects */
static void random_run(unsigned variant, sim_addr_t *got, sim_addr_t *free4)
{
    struct sim_config cfg;
    struct sim_snapshot *snap;
    struct tsim t;
    int a;

    sim_config_default(&cfg);
    cfg.freelist_random = true;
    cfg.seed = 7;
    cfg.variant[SIM_VAR_DEFERRED_FREELIST] = (uint8_t)variant;
    tsim_init(&t, &cfg);
    a = tsim_create(&t, "A", 64, 0, 0);
    for (int i = 0; i < 60; i++)
        got[i] = tsim_alloc(&t, a, 0);
    if (CHECK_OK(sim_snapshot(t.sim, &snap))) {
        CHECK_EQ_U(snap->slabs[0].nr_free, 4);
        for (unsigned i = 0; i < 4 && i < snap->slabs[0].nr_free; i++)
            free4[i] = snap->objs[snap->slabs[0].freelist + i];
        sim_snapshot_release(snap);
    }
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

static void test_random_variants_agree(void)
{
    sim_addr_t before[60], after[60], fb[4] = {0}, fa[4] = {0};
    bool sequential = true;

    random_run(SIM_BEFORE, before, fb);
    random_run(SIM_AFTER, after, fa);
    for (int i = 0; i < 60; i++) {
        CHECK_EQ_U(before[i], after[i]);
        if (i && after[i] != after[i - 1] - 64)
            sequential = false;
    }
    for (int i = 0; i < 4; i++)
        CHECK_EQ_U(fb[i], fa[i]);
    CHECK(!sequential); /* the shuffle really changed the order */
}

/* A corrupted free pointer in a non-debug cache: the engine stops */
static void test_fault_on_corrupt_freepointer(void)
{
    struct tsim t;
    struct sim_snapshot *snap;
    struct sim_result res;
    struct sim_op op = {.kind = SIM_OP_ALLOC, .node = SIM_NUMA_NO_NODE};
    uint64_t junk = 0x4141414141414141ull;
    sim_addr_t head;
    int a;

    tsim_init(&t, NULL);
    a = tsim_create(&t, "A", 64, 0, 0);
    tsim_alloc(&t, a, 0);
    tsim_alloc(&t, a, 1); /* CPU 1 refills: 4 from the slab, then a new one */
    if (!CHECK_OK(sim_snapshot(t.sim, &snap)))
        return;
    head = snap->objs[snap->slabs[1].freelist];
    sim_snapshot_release(snap);
    CHECK_OK(sim_write_bytes(t.sim, head + 32, &junk, sizeof(junk)));
    /* free everything CPU 1 holds so its next refill walks the chain */
    op.kind = SIM_OP_FLUSH_ALL;
    op.cache = a;
    tsim_apply(&t, &op, &res);
    t.quiet = true; /* the corruption is on purpose */
    for (int i = 0; i < 70 && res.status != SIM_CRASHED; i++) {
        op.kind = SIM_OP_ALLOC;
        op.cpu = 1;
        if (sim_apply(t.sim, &op, &res))
            break;
    }
    CHECK_EQ_I(res.status, SIM_CRASHED);
    CHECK(strstr(res.message, "the kernel would fault here") != NULL);
    CHECK_EQ_I(sim_apply(t.sim, &op, &res), -EIO);
    tsim_fini(&t);
}

int main(void)
{
    RUN_TEST(test_debug_cache_paths);
    RUN_TEST(test_debug_new_slab_freeptr);
    RUN_TEST(test_debug_double_free);
    RUN_TEST(test_debug_redzone);
    RUN_TEST(test_debug_use_after_free);
    RUN_TEST(test_hardened_words);
    RUN_TEST(test_random_variants_agree);
    RUN_TEST(test_fault_on_corrupt_freepointer);
    return check_done();
}
