/*
 * test_host.c: sim_host_bytes() against what the host allocator really
 * hands out for a sim_clone(), measured with glibc's mallinfo2(); and how
 * a machine's bytes grow with its caches and CPUs (a server budgets its
 * sessions by this number, so it must not miss per-CPU, per-cache data).
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "simtest.h"

/* A machine of @cpus CPUs with @caches caches, each with a few objects on CPU 0. */
static void build(struct tsim *t, unsigned cpus, unsigned caches)
{
    struct sim_config cfg;

    sim_config_default(&cfg);
    cfg.nr_cpus = cpus;
    tsim_init(t, &cfg);
    t->quiet = true;
    for (unsigned i = 0; i < caches; i++) {
        char name[32];
        int c;

        snprintf(name, sizeof(name), "c%u", i);
        c = tsim_create(t, name, 64 + 8 * (i % 16), 0, 0);
        for (unsigned k = 0; c >= 0 && k < 3; k++)
            tsim_alloc(t, c, k % cpus);
    }
}

/* The pages of @sim that have bytes: their addresses, malloc'd, or NULL. */
static sim_addr_t *page_addrs(const struct sim *sim, size_t *n)
{
    struct sim_image img;
    sim_addr_t *a;

    if (sim_image_save(sim, &img))
        return NULL;
    a = malloc((img.nr_pages ? img.nr_pages : 1) * sizeof(*a));
    for (size_t i = 0; a && i < img.nr_pages; i++)
        a[i] = img.pages[i].addr;
    *n = img.nr_pages;
    sim_image_release(&img);
    return a;
}

/* A clone shares the pages' bytes until it writes them (engine/mem.c), so
 * sim_host_bytes() is what it holds once it has written every page: the
 * measurement writes every page of the clone, one byte rewritten each. */
static void test_clone_measured(void)
{
    static const unsigned shapes[][2] = {{1, 1}, {4, 20}, {64, 50}, {64, 200}};

    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        struct tsim t;
        struct sim *copy = NULL;
        sim_addr_t *pages;
        size_t before, cloned, after, n = 0;
        uint64_t said;
        double ratio;

        build(&t, shapes[i][0], shapes[i][1]);
        if (!CHECK(t.sim))
            return;
        pages = page_addrs(t.sim, &n);
        if (!CHECK(pages) || !CHECK_GT_U(n, 0)) {
            free(pages);
            tsim_fini(&t);
            return;
        }
        said = sim_host_bytes(t.sim);
        malloc_trim(0);
        before = mallinfo2().uordblks;
        CHECK_EQ_I(sim_clone(t.sim, &copy), 0);
        cloned = mallinfo2().uordblks;
        for (size_t k = 0; copy && k < n; k++) {
            uint8_t b;

            CHECK_EQ_I(sim_read_bytes(copy, pages[k], &b, 1), 0);
            CHECK_EQ_I(sim_write_bytes(copy, pages[k], &b, 1), 0);
        }
        after = mallinfo2().uordblks;
        free(pages);
        CHECK_EQ_U(sim_host_bytes(copy), said); /* a clone holds what it was cloned from */
        if (after == before) { /* a sanitizer's allocator: mallinfo2() cannot see it */
            printf("  mallinfo2() sees no allocation here: the measurement is skipped\n");
            sim_destroy(copy);
            tsim_fini(&t);
            continue;
        }
        ratio = (double)said / (double)(after - before);
        printf("  %u CPUs, %u caches, %zu pages: %llu bytes said, %zu allocated by the clone, "
               "%zu once it wrote every page (%.3f)\n",
               shapes[i][0], shapes[i][1], n, (unsigned long long)said, cloned - before,
               after - before, ratio);
        CHECK(ratio > 0.9 && ratio < 1.1);
        /* the clone itself shares every page's bytes */
        CHECK_LE_U(cloned - before, said - n * SIM_PAGE_SIZE);
        sim_destroy(copy);
        tsim_fini(&t);
    }
}

static void test_grows_with_caches_and_cpus(void)
{
    struct tsim a, b, c;
    uint64_t ba, bb, bc;

    build(&a, 8, 50);
    build(&b, 64, 50);
    build(&c, 64, 100);
    if (!CHECK(a.sim && b.sim && c.sim))
        return;
    ba = sim_host_bytes(a.sim);
    bb = sim_host_bytes(b.sim);
    bc = sim_host_bytes(c.sim);
    /* 50 more caches on 64 CPUs cost at least their per-CPU counters */
    CHECK_GT_U(bc - bb, 50ull * 64 * SIM_NR_STATS * sizeof(uint64_t) / 2);
    CHECK_GT_U(bb, ba);
    tsim_fini(&a);
    tsim_fini(&b);
    tsim_fini(&c);
}

static int page_from(void *arg, sim_addr_t addr, uint8_t *dst)
{
    return sim_read_bytes(arg, addr, dst, SIM_PAGE_SIZE);
}

/* Sheaves made and freed: the machine counts their object arrays as it
 * goes (sim_host_bytes() does not walk them), and the validator, which
 * runs after every event and operation here, walks them to check the
 * counts; a machine loaded from an image counts them again. */
static void test_sheaves_counted(void)
{
    struct tsim t;
    struct sim_config cfg;
    struct sim_image img;
    struct sim *loaded = NULL;
    static sim_addr_t objs[4][600];
    uint64_t before, during;
    int c;

    sim_config_default(&cfg);
    cfg.nr_cpus = 4;
    tsim_init(&t, &cfg);
    if (!CHECK(t.sim))
        return;
    c = tsim_create(&t, "sheafy", 64, 0, 0);
    CHECK_GE_I(c, 0);
    before = sim_host_bytes(t.sim);
    for (unsigned cpu = 0; cpu < 4; cpu++)
        for (unsigned k = 0; k < 600; k++)
            objs[cpu][k] = tsim_alloc(&t, c, cpu);
    for (unsigned cpu = 0; cpu < 4; cpu++)
        for (unsigned k = 0; k < 600; k++)
            tsim_free(&t, c, (cpu + 1) % 4, objs[cpu][k]);
    during = sim_host_bytes(t.sim);
    CHECK_GT_U(tsim_stat(&t, c, "sheaf_alloc"), 8);
    CHECK_GT_U(during, before);
    if (CHECK_EQ_I(sim_image_save(t.sim, &img), 0)) {
        CHECK_EQ_I(sim_image_load(img.meta, img.meta_len, page_from, t.sim, &loaded), 0);
        if (loaded)
            CHECK_EQ_U(sim_host_bytes(loaded), during);
        sim_destroy(loaded);
        sim_image_release(&img);
    }
    tsim_simple(&t, SIM_OP_FLUSH_ALL, c, 0);
    tsim_simple(&t, SIM_OP_SHRINK, c, 0);
    CHECK_GT_U(tsim_stat(&t, c, "sheaf_free"), 0);
    CHECK_LT_U(sim_host_bytes(t.sim), during);
    CHECK_EQ_U(t.violations, 0);
    if (t.violations)
        printf("  first violation: %s\n", t.first);
    tsim_fini(&t);
}

int main(void)
{
    RUN_TEST(test_clone_measured);
    RUN_TEST(test_grows_with_caches_and_cpus);
    RUN_TEST(test_sheaves_counted);
    return check_done();
}
