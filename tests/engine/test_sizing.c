/*
 * test_sizing.c: cache geometry as the kernel's calculate_sizes() and
 * calculate_order() make it (docs/engine.md) and against a real kernel.
 *
 * The calibration fixture (kmalloc-8 ... kmalloc-8k on a 2-CPU
 * machine: order, objects per slab, min_partial) extended to every kmalloc
 * class with the lines of tests/data/proc-slabinfo.txt captured on
 * the same machine; the worked layout examples of 3.1 (inuse, free pointer
 * offset, slot size); sheaf capacities on each side of every size-class
 * boundary; and the alignment rules, the kmalloc ones through the kmalloc
 * operation itself.  All values are read from snapshots, as users see them,
 * but for kmalloc_size_roundup() on each side of every class boundary.
 */
#include <errno.h>

#include "internal.h"
#include "simtest.h"
#include "snapcmp.h"

static struct sim_snap_cache cache_info(struct tsim *t, int cache)
{
    struct sim_snapshot *snap = snap_take(t->sim);
    struct sim_snap_cache c;

    memset(&c, 0, sizeof(c));
    if (snap && cache >= 0 && (size_t)cache < snap->nr_caches)
        c = snap->caches[cache];
    sim_snapshot_release(snap);
    return c;
}

/* kmalloc(@size) on CPU 0; returns the cache it used (or -1). */
static int kmalloc_cache(struct tsim *t, unsigned size, sim_addr_t *addr)
{
    struct sim_op op = {.kind = SIM_OP_KMALLOC, .size = size, .node = SIM_NUMA_NO_NODE};
    struct sim_result res;

    if (!CHECK_OK(tsim_apply(t, &op, &res)) || !CHECK_EQ_I(res.status, SIM_OK))
        return -1;
    if (addr)
        *addr = res.addr;
    return res.cache;
}

static int create_args(struct tsim *t, const struct sim_cache_args *a)
{
    struct sim_op op = {.kind = SIM_OP_CREATE, .node = SIM_NUMA_NO_NODE, .create = *a};
    struct sim_result res;

    if (!CHECK_OK(tsim_apply(t, &op, &res)))
        return -1;
    return res.cache;
}

struct calib {
    const char *name;
    unsigned size, order, objs, min_partial;
};

/* 4.2's fixture (kmalloc-8, 16, 64, 192, 256, 1k, 2k, 4k, 8k) plus the other
 * classes from proc-slabinfo.txt (objperslab, pagesperslab = 2^order) */
static const struct calib fixture[] = {
    {"kmalloc-8", 8, 0, 512, 5},     {"kmalloc-16", 16, 0, 256, 5},
    {"kmalloc-32", 32, 0, 128, 5},   {"kmalloc-64", 64, 0, 64, 5},
    {"kmalloc-96", 96, 0, 42, 5},    {"kmalloc-128", 128, 0, 32, 5},
    {"kmalloc-192", 192, 0, 21, 5},  {"kmalloc-256", 256, 0, 16, 5},
    {"kmalloc-512", 512, 1, 16, 5},  {"kmalloc-1k", 1024, 2, 16, 5},
    {"kmalloc-2k", 2048, 3, 16, 5},  {"kmalloc-4k", 4096, 3, 8, 6},
    {"kmalloc-8k", 8192, 3, 4, 6},
};

/* The calibration fixture, through kmalloc on the default 2-CPU machine */
static void test_calibration_fixture(void)
{
    struct tsim t;

    tsim_init(&t, NULL);
    for (size_t i = 0; i < sizeof(fixture) / sizeof(fixture[0]); i++) {
        const struct calib *f = &fixture[i];
        int id = kmalloc_cache(&t, f->size, NULL);
        struct sim_snap_cache c = cache_info(&t, id);
        bool ok = true;

        ok &= CHECK_EQ_STR(c.name, f->name);
        ok &= CHECK_EQ_U(c.object_size, f->size);
        ok &= CHECK_EQ_U(c.size, f->size);
        ok &= CHECK_EQ_U(c.order, f->order);
        ok &= CHECK_EQ_U(c.objects_per_slab, f->objs);
        ok &= CHECK_EQ_U(c.min_partial, f->min_partial);
        ok &= CHECK(c.flags & SIM_SLAB_KMALLOC);
        if (!ok)
            printf("  %s\n", f->name);
        /* every size in the class maps to it: one more byte is the next class */
        CHECK_EQ_I(kmalloc_cache(&t, f->size - (i ? (f->size - fixture[i - 1].size) - 1 : 7),
                           NULL),
                id);
        if (i + 1 < sizeof(fixture) / sizeof(fixture[0]))
            CHECK_NE_I(kmalloc_cache(&t, f->size + 1, NULL), id);
    }
    CHECK_EQ_U(sim_nr_caches(t.sim), 13);
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* More CPUs mean more objects per slab: min_objects = 4 * (fls(cpus) + 1) */
static void test_cpus_and_order(void)
{
    static const struct {
        unsigned cpus, present, size, order, objs;
    } cases[] = {
        {64, 0, 256, 1, 32},  /* min_objects 28 */
        {2, 0, 256, 0, 16},   /* min_objects 12 */
        {64, 0, 200, 1, 40},  /* min_objects 28: 5600 bytes, order 1 wastes 192 */
        {64, 8, 200, 0, 20},  /* 8 present CPUs: min_objects 20 fit in 4000 bytes */
        {1, 0, 1024, 1, 8},   /* min_objects 8: 8 KiB */
        {2, 0, 1024, 2, 16},  /* min_objects 12: 16 KiB */
        {64, 0, 1024, 3, 32}, /* min_objects 28: 32 KiB */
        {64, 0, 8192, 3, 4},  /* capped by order 3 */
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct sim_config cfg;
        struct tsim t;
        struct sim_snap_cache c;
        int id;

        sim_config_default(&cfg);
        cfg.nr_cpus = cases[i].cpus;
        cfg.present_cpus = cases[i].present;
        tsim_init(&t, &cfg);
        id = tsim_create(&t, "X", cases[i].size, 0, 0);
        c = cache_info(&t, id);
        if (!CHECK_EQ_U(c.order, cases[i].order) ||
                !CHECK_EQ_U(c.objects_per_slab, cases[i].objs))
            printf("  case %zu: %u CPUs, size %u\n", i, cases[i].cpus, cases[i].size);
        CHECK_STAT(&t, id, "sheaf_alloc", cases[i].cpus); /* one main sheaf per CPU */
        CHECK_CLEAN(&t);
        tsim_fini(&t);
    }
}

struct layout {
    const char *what;
    unsigned object_size;
    uint32_t flags;
    bool ctor;
    bool use_freeptr_offset;
    unsigned freeptr_offset;
    unsigned inuse, offset, size, align, red_left_pad;
};

/* The worked examples of 3.1, then the caller-chosen free pointer */
static const struct layout layouts[] = {
    {"64, none", 64, 0, false, false, 0, 64, 32, 64, 8, 0},
    {"20, none", 20, 0, false, false, 0, 24, 8, 24, 8, 0},
    {"20, ctor", 20, 0, true, false, 0, 24, 24, 32, 8, 0},
    {"64, SLAB_TYPESAFE_BY_RCU", 64, SIM_SLAB_TYPESAFE_BY_RCU, false, false, 0, 64, 64, 72, 8, 0},
    {"20, SLAB_HWCACHE_ALIGN", 20, SIM_SLAB_HWCACHE_ALIGN, false, false, 0, 24, 8, 32, 32, 0},
    {"20, RED_ZONE+POISON+STORE_USER", 20,
            SIM_SLAB_RED_ZONE | SIM_SLAB_POISON | SIM_SLAB_STORE_USER, false, false, 0, 24, 24,
            112, 8, 8},
    {"20, slab_debug=FZPU (S1's D)", 20,
            SIM_SLAB_CONSISTENCY_CHECKS | SIM_SLAB_RED_ZONE | SIM_SLAB_POISON |
                    SIM_SLAB_STORE_USER,
            false, false, 0, 24, 24, 112, 8, 8},
    {"64, ctor, freeptr_offset 16", 64, 0, true, true, 16, 64, 16, 64, 8, 0},
    {"64, SLAB_TYPESAFE_BY_RCU, freeptr_offset 8", 64, SIM_SLAB_TYPESAFE_BY_RCU, false, true, 8,
            64, 8, 64, 8, 0},
    /* the right red zone needs room: 64 + 8, padding word 8, left pad 8 */
    {"64, RED_ZONE", 64, SIM_SLAB_RED_ZONE, false, false, 0, 72, 32, 88, 8, 8},
    /* too small for the free pointer in the middle and a red zone: outside */
    {"4, RED_ZONE", 4, SIM_SLAB_RED_ZONE, false, false, 0, 8, 8, 32, 8, 8},
    {"8, none", 8, 0, false, false, 0, 8, 0, 8, 8, 0},
};

static void test_layout_examples(void)
{
    struct tsim t;

    tsim_init(&t, NULL);
    for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
        const struct layout *l = &layouts[i];
        struct sim_cache_args a;
        struct sim_snap_cache c;
        bool ok = true;

        memset(&a, 0, sizeof(a));
        snprintf(a.name, sizeof(a.name), "L%zu", i);
        a.object_size = l->object_size;
        a.flags = l->flags;
        a.ctor = l->ctor;
        a.use_freeptr_offset = l->use_freeptr_offset;
        a.freeptr_offset = l->freeptr_offset;
        c = cache_info(&t, create_args(&t, &a));
        ok &= CHECK_EQ_U(c.inuse, l->inuse);
        ok &= CHECK_EQ_U(c.offset, l->offset);
        ok &= CHECK_EQ_U(c.size, l->size);
        ok &= CHECK_EQ_U(c.align, l->align);
        ok &= CHECK_EQ_U(c.red_left_pad, l->red_left_pad);
        if (!ok)
            printf("  layout \"%s\"\n", l->what);
    }
    /* S1's D, all of it */
    {
        struct sim_snap_cache d = cache_info(&t, 6);

        CHECK_EQ_U(d.order, 0);
        CHECK_EQ_U(d.objects_per_slab, 36);
        CHECK_EQ_U(d.sheaf_capacity, 0);
        CHECK_STAT(&t, 6, "sheaf_alloc", 0);
    }
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* Before 7.0 a constructor puts the free pointer outside the object whatever
 * freeptr_offset says (6.12's calculate_sizes()), and freeptr_offset is for
 * SLAB_TYPESAFE_BY_RCU caches only; 6.1's era has no freeptr_offset at all */
static void test_legacy_ctor_freeptr(void)
{
    static const enum sim_release rels[] = {SIM_RELEASE_6_12, SIM_RELEASE_6_18};

    for (size_t r = 0; r < sizeof(rels) / sizeof(rels[0]); r++) {
        struct sim_config cfg;
        struct sim_cache_args a;
        struct sim_op op = {.kind = SIM_OP_CREATE, .node = SIM_NUMA_NO_NODE};
        struct sim_result res;
        struct sim_snap_cache c;
        struct tsim t;

        sim_config_default(&cfg);
        CHECK(sim_release_apply(rels[r], &cfg) == 0);
        tsim_init(&t, &cfg);
        memset(&a, 0, sizeof(a));
        snprintf(a.name, sizeof(a.name), "ctor");
        a.object_size = 64;
        a.ctor = true;
        c = cache_info(&t, create_args(&t, &a));
        CHECK_EQ_U(c.offset, 64); /* outside, as 7.x without the offset */
        CHECK_EQ_U(c.size, 72);
        snprintf(a.name, sizeof(a.name), "ctor-rcu");
        a.flags = SIM_SLAB_TYPESAFE_BY_RCU;
        a.use_freeptr_offset = true;
        a.freeptr_offset = 16;
        c = cache_info(&t, create_args(&t, &a));
        CHECK_EQ_U(c.offset, 64); /* the constructor wins: outside */
        CHECK_EQ_U(c.size, 72);
        snprintf(a.name, sizeof(a.name), "rcu");
        a.ctor = false;
        c = cache_info(&t, create_args(&t, &a));
        CHECK_EQ_U(c.offset, 16);
        CHECK_EQ_U(c.size, 64);
        snprintf(a.name, sizeof(a.name), "ctor-off");
        a.ctor = true;
        a.flags = 0; /* 6.12's __kmem_cache_create_args refuses it */
        op.create = a;
        CHECK_EQ_I(tsim_apply(&t, &op, &res), -EINVAL);
        CHECK_CLEAN(&t);
        tsim_fini(&t);
    }
    {
        struct sim_config cfg;
        struct sim_cache_args a;
        struct sim_op op = {.kind = SIM_OP_CREATE, .node = SIM_NUMA_NO_NODE};
        struct sim_result res;
        struct tsim t;

        sim_config_default(&cfg);
        CHECK(sim_release_apply(SIM_RELEASE_6_1, &cfg) == 0);
        tsim_init(&t, &cfg);
        memset(&a, 0, sizeof(a));
        snprintf(a.name, sizeof(a.name), "rcu");
        a.object_size = 64;
        a.flags = SIM_SLAB_TYPESAFE_BY_RCU;
        a.use_freeptr_offset = true;
        a.freeptr_offset = 16;
        op.create = a;
        CHECK_EQ_I(tsim_apply(&t, &op, &res), -EINVAL); /* no freeptr_offset in 6.1 */
        tsim_fini(&t);
    }
}

/* The layout is real: a free object's free pointer sits at s->offset */
static void test_freeptr_at_offset(void)
{
    struct tsim t;
    struct sim_freeptr fp;
    sim_addr_t x, y;
    int id;

    tsim_init(&t, NULL);
    id = tsim_create(&t, "T", 64, SIM_SLAB_TYPESAFE_BY_RCU, 0);
    x = tsim_alloc(&t, id, 0);
    /* 72-byte slots, 56 per slab: the refill of 60 took all of S0 and 4 of
     * S1, the user got S1's slot 3, and slots 4..55 are chained in order */
    y = x + 72;
    CHECK_OK(sim_read_freeptr(t.sim, id, y, &fp));
    CHECK_EQ_U(fp.at, y + 64);
    CHECK_EQ_U(fp.decoded, y + 72);
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* Sheaf capacity on each side of every size-class boundary */
static void test_sheaf_capacity(void)
{
    static const struct {
        unsigned size;
        uint32_t flags;
        unsigned requested, cap;
    } cases[] = {
        {8, 0, 0, 60},
        {248, 0, 0, 60},
        {256, 0, 0, 28},
        {1016, 0, 0, 28},
        {1024, 0, 0, 12},
        {4088, 0, 0, 12},
        {4096, 0, 0, 4},
        {8192, 0, 0, 4},
        {65536, 0, 0, 4},
        {256, 0, 32, 32},  /* maple_node, vm_area_struct */
        {64, 0, 10, 60},   /* a request can only raise it */
        {64, 0, 61, 61},
        {64, 0, 60, 60},
        {200, SIM_SLAB_HWCACHE_ALIGN, 0, 28}, /* slot 256: the size that counts */
        {20, SIM_SLAB_RED_ZONE, 0, 0},        /* any debug flag: no sheaves */
        {20, SIM_SLAB_POISON, 32, 0},
        {20, SIM_SLAB_STORE_USER, 0, 0},
        {20, SIM_SLAB_CONSISTENCY_CHECKS, 0, 0},
        {64, SIM_SLAB_NO_OBJ_EXT, 0, 0}, /* boot caches */
        {64, SIM_SLAB_NOLEAKTRACE, 0, 0},
    };
    struct tsim t;

    tsim_init(&t, NULL);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char name[16];
        int id;
        struct sim_snap_cache c;

        snprintf(name, sizeof(name), "S%zu", i);
        id = tsim_create(&t, name, cases[i].size, cases[i].flags, cases[i].requested);
        c = cache_info(&t, id);
        if (!CHECK_EQ_U(c.sheaf_capacity, cases[i].cap))
            printf("  case %zu: size %u flags %#x requested %u\n", i, cases[i].size,
                    cases[i].flags, cases[i].requested);
        CHECK_STAT(&t, id, "sheaf_alloc", cases[i].cap ? 2 : 0);
        if (cases[i].cap)
            CHECK_NE_U(c.main[0], 0);
    }
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* min_partial: ilog2(size) / 2 clamped to 5..10 */
static void test_min_partial(void)
{
    static const struct {
        unsigned size, min_partial;
    } cases[] = {
        {8, 5}, {4088, 5}, {4096, 6}, {16376, 6}, {16384, 7}, {65536, 8},
        {262144, 9}, {1048576, 10}, {2097152, 10},
    };
    struct tsim t;

    tsim_init(&t, NULL);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char name[16];

        snprintf(name, sizeof(name), "M%zu", i);
        if (!CHECK_EQ_U(cache_info(&t, tsim_create(&t, name, cases[i].size, 0, 0)).min_partial,
                    cases[i].min_partial))
            printf("  size %u\n", cases[i].size);
    }
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* Alignment: HWCACHE_ALIGN halves the cache line while the object fits
 * twice; kmalloc caches are naturally aligned */
static void test_align(void)
{
    static const struct {
        unsigned size, align;
        uint32_t flags;
        unsigned want;
    } cases[] = {
        {20, 0, SIM_SLAB_HWCACHE_ALIGN, 32},
        {8, 0, SIM_SLAB_HWCACHE_ALIGN, 8},
        {16, 0, SIM_SLAB_HWCACHE_ALIGN, 16},
        {17, 0, SIM_SLAB_HWCACHE_ALIGN, 32},
        {32, 0, SIM_SLAB_HWCACHE_ALIGN, 32},
        {33, 0, SIM_SLAB_HWCACHE_ALIGN, 64},
        {100, 0, SIM_SLAB_HWCACHE_ALIGN, 64},
        {20, 128, SIM_SLAB_HWCACHE_ALIGN, 128}, /* a larger request wins */
        {20, 0, 0, 8},                          /* ARCH_SLAB_MINALIGN */
        {20, 4, 0, 8},
        {20, 16, 0, 16},
        {100, 4096, 0, 4096},
    };
    static const struct {
        unsigned size, align;
    } km[] = {
        {8, 8}, {16, 16}, {32, 32}, {64, 64}, {96, 32}, {128, 128}, {192, 64},
        {256, 256}, {512, 512}, {1024, 1024}, {2048, 2048}, {4096, 4096}, {8192, 8192},
    };
    struct tsim t;

    tsim_init(&t, NULL);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct sim_cache_args a;
        struct sim_snap_cache c;

        memset(&a, 0, sizeof(a));
        snprintf(a.name, sizeof(a.name), "H%zu", i);
        a.object_size = cases[i].size;
        a.align = cases[i].align;
        a.flags = cases[i].flags;
        c = cache_info(&t, create_args(&t, &a));
        if (!CHECK_EQ_U(c.align, cases[i].want) || !CHECK_EQ_U(c.size % cases[i].want, 0))
            printf("  case %zu\n", i);
    }
    for (size_t i = 0; i < sizeof(km) / sizeof(km[0]); i++) {
        sim_addr_t addr[3];
        int id = kmalloc_cache(&t, km[i].size, &addr[0]);
        struct sim_snap_cache c = cache_info(&t, id);

        kmalloc_cache(&t, km[i].size, &addr[1]);
        kmalloc_cache(&t, km[i].size - 1, &addr[2]);
        if (!CHECK_EQ_U(c.align, km[i].align))
            printf("  %s\n", c.name);
        for (int k = 0; k < 3; k++)
            CHECK_EQ_U(addr[k] % km[i].align, 0);
    }
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* kmalloc_size_roundup(): kmalloc-8 ... kmalloc-8k, then whole pages. */
static void test_kmalloc_size_roundup(void)
{
    static const struct {
        unsigned long size, bytes;
    } cases[] = {
            {0, 8},       {1, 8},       {8, 8},        {9, 16},        {16, 16},
            {17, 32},     {32, 32},     {33, 64},      {64, 64},       {65, 96},
            {96, 96},     {97, 128},    {128, 128},    {129, 192},     {192, 192},
            {193, 256},   {256, 256},   {257, 512},    {1024, 1024},   {1025, 2048},
            {4097, 8192}, {8192, 8192}, {8193, 12288}, {12288, 12288}, {12289, 16384},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (!CHECK_EQ_U(kmalloc_size_roundup(cases[i].size), cases[i].bytes))
            printf("  size %lu\n", cases[i].size);
}

int main(void)
{
    RUN_TEST(test_calibration_fixture);
    RUN_TEST(test_cpus_and_order);
    RUN_TEST(test_layout_examples);
    RUN_TEST(test_freeptr_at_offset);
    RUN_TEST(test_legacy_ctor_freeptr);
    RUN_TEST(test_sheaf_capacity);
    RUN_TEST(test_min_partial);
    RUN_TEST(test_align);
    RUN_TEST(test_kmalloc_size_roundup);
    return check_done();
}
