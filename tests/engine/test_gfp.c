/*
 * test_gfp.c: what a gfp mask decides (docs/engine.md, the page allocator): the decoded table
 * row by row, the coupled and explicit gfp_to_alloc_flags agreeing on the
 * kernel's layout (the fast equivalence test; `slublab bench gfp-equiv`
 * sweeps every mask), the renumbered layout breaking the coupled form,
 * watermarks and the reserve cuts at their edges, the allocation flow's
 * outcomes, SLUB's order fallback, a DMA cache, and the validator's zone
 * invariants caught after corruption.
 */
#include "internal.h"
#include "simtest.h"

#define EXPLICIT SIM_AFTER
#define COUPLED  SIM_BEFORE

/* ---- the decoded table (slublab gfp) ---------------------------------------- */

struct row {
    const char *mask; /* as the kernel prints it, or hex */
    unsigned order;
    enum sim_gfp_context ctx;
    uint32_t hex;
    unsigned zone, mt;
    unsigned slow;      /* slow-path alloc flags */
    const char *names;
    long threshold;     /* slow-path threshold for M = 128 */
    bool can_reclaim;
    unsigned retry;     /* flags of the reserve retry */
};

static const struct row table[] = {
    {"GFP_KERNEL", 0, SIM_CTX_TASK, 0xCC0, SIM_ZONE_NORMAL, 0, 0x840, "WMARK_MIN|CPUSET|KSWAPD",
            128, true, 0x840},
    {"GFP_KERNEL_ACCOUNT", 0, SIM_CTX_TASK, 0x400CC0, SIM_ZONE_NORMAL, 0, 0x840,
            "WMARK_MIN|CPUSET|KSWAPD", 128, true, 0x840},
    {"GFP_ATOMIC", 0, SIM_CTX_TASK, 0x820, SIM_ZONE_NORMAL, 0, 0x830,
            "WMARK_MIN|NON_BLOCK|MIN_RESERVE|KSWAPD", 48, false, 0x830},
    {"GFP_ATOMIC", 3, SIM_CTX_TASK, 0x820, SIM_ZONE_NORMAL, 0, 0xA30,
            "WMARK_MIN|NON_BLOCK|MIN_RESERVE|HIGHATOMIC|KSWAPD", 48, false, 0xA30},
    {"GFP_NOWAIT", 0, SIM_CTX_TASK, 0x2800, SIM_ZONE_NORMAL, 0, 0x850,
            "WMARK_MIN|NON_BLOCK|CPUSET|KSWAPD", 128, false, 0x850},
    {"GFP_NOIO", 0, SIM_CTX_TASK, 0xC00, SIM_ZONE_NORMAL, 0, 0x840, "WMARK_MIN|CPUSET|KSWAPD", 128,
            true, 0x840},
    {"GFP_NOFS", 0, SIM_CTX_TASK, 0xC40, SIM_ZONE_NORMAL, 0, 0x840, "WMARK_MIN|CPUSET|KSWAPD", 128,
            true, 0x840},
    {"GFP_USER", 0, SIM_CTX_TASK, 0x100CC0, SIM_ZONE_NORMAL, 0, 0x840, "WMARK_MIN|CPUSET|KSWAPD",
            128, true, 0x840},
    {"GFP_HIGHUSER_MOVABLE", 0, SIM_CTX_TASK, 0x100CCA, SIM_ZONE_MOVABLE, 1, 0x8C0,
            "WMARK_MIN|CPUSET|CMA|KSWAPD", 128, true, 0x8C0},
    {"GFP_KERNEL|GFP_DMA", 0, SIM_CTX_TASK, 0xCC1, SIM_ZONE_DMA, 0, 0x840,
            "WMARK_MIN|CPUSET|KSWAPD", 128, true, 0x840},
    {"GFP_DMA", 0, SIM_CTX_TASK, 0x001, SIM_ZONE_DMA, 0, 0x050, "WMARK_MIN|NON_BLOCK|CPUSET", 128,
            false, 0x050},
    {"GFP_KERNEL|GFP_DMA32", 0, SIM_CTX_TASK, 0xCC4, SIM_ZONE_DMA32, 0, 0x840,
            "WMARK_MIN|CPUSET|KSWAPD", 128, true, 0x840},
    {"GFP_ATOMIC|__GFP_NOMEMALLOC", 0, SIM_CTX_TASK, 0x80820, SIM_ZONE_NORMAL, 0, 0x820,
            "WMARK_MIN|MIN_RESERVE|KSWAPD", 64, false, 0x820},
    {"GFP_KERNEL|__GFP_MEMALLOC", 0, SIM_CTX_TASK, 0x20CC0, SIM_ZONE_NORMAL, 0, 0x840,
            "WMARK_MIN|CPUSET|KSWAPD", 128, true, 0x804},
    {"GFP_KERNEL|__GFP_HIGH", 0, SIM_CTX_TASK, 0xCE0, SIM_ZONE_NORMAL, 0, 0x860,
            "WMARK_MIN|MIN_RESERVE|CPUSET|KSWAPD", 64, true, 0x860},
    {"GFP_TRANSHUGE_LIGHT", 9, SIM_CTX_TASK, 0x1C20CA, SIM_ZONE_MOVABLE, 1, 0x0C0,
            "WMARK_MIN|CPUSET|CMA", 128, false, 0x0C0},
    {"GFP_TRANSHUGE", 9, SIM_CTX_TASK, 0x1C24CA, SIM_ZONE_MOVABLE, 1, 0x0C0,
            "WMARK_MIN|CPUSET|CMA", 128, true, 0x0C0},
    {"0xd20c0", 3, SIM_CTX_TASK, 0xD20C0, SIM_ZONE_NORMAL, 0, 0x040, "WMARK_MIN|CPUSET", 128, false,
            0x040},
    {"0x52820", 3, SIM_CTX_TASK, 0x52820, SIM_ZONE_NORMAL, 0, 0xA30,
            "WMARK_MIN|NON_BLOCK|MIN_RESERVE|HIGHATOMIC|KSWAPD", 48, false, 0xA30},
    {"GFP_KERNEL", 0, SIM_CTX_RT, 0xCC0, SIM_ZONE_NORMAL, 0, 0x860,
            "WMARK_MIN|MIN_RESERVE|CPUSET|KSWAPD", 64, true, 0x860},
};

static void test_decoded_table(void)
{
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        const struct row *r = &table[i];
        struct sim_gfp_ctx ctx = sim_gfp_ctx_of(r->ctx, true);
        uint32_t gfp = 0;
        char names[160];

        printf("  row %zu: %s (order %u)\n", i + 1, r->mask, r->order);
        if (!CHECK_OK(sim_gfp_parse(r->mask, &gfp)))
            continue;
        CHECK_EQ_U(gfp, r->hex);
        CHECK_EQ_I(sim_gfp_zone(gfp), (int)r->zone);
        CHECK_EQ_U(sim_gfp_migratetype(gfp), r->mt);
        for (unsigned tr = COUPLED; tr <= EXPLICIT; tr++) {
            unsigned f = sim_gfp_to_alloc_flags(gfp, r->order, &ctx, tr, SIM_ALLOC_LAYOUT_KERNEL);
            unsigned reserve = sim_gfp_pfmemalloc_flags(gfp, &ctx, SIM_ALLOC_LAYOUT_KERNEL);

            CHECK_EQ_U(f, r->slow);
            sim_alloc_flags_format(f, SIM_ALLOC_LAYOUT_KERNEL, names, sizeof(names));
            CHECK_EQ_STR(names, r->names);
            CHECK_EQ_I(sim_effective_min(f, 128, SIM_ALLOC_LAYOUT_KERNEL), r->threshold);
            CHECK_EQ_U(reserve ? reserve | (f & SIM_ALLOC_KSWAPD) : f, r->retry);
        }
        CHECK_EQ_U((gfp & SIM_GFP_DIRECT_RECLAIM) != 0, r->can_reclaim);
    }
}

/* Masks print as the kernel's tracepoints print them, and parse back. */
static void test_gfp_names(void)
{
    static const char *const masks[] = {"GFP_KERNEL|__GFP_ZERO", "GFP_KERNEL|GFP_DMA",
            "GFP_ATOMIC|__GFP_NOMEMALLOC", "GFP_TRANSHUGE", "GFP_HIGHUSER_MOVABLE",
            "GFP_NOWAIT|__GFP_COMP", "GFP_KERNEL_ACCOUNT", "__GFP_ZEROTAGS|__GFP_NO_OBJ_EXT"};
    char buf[256], msg[200];
    uint32_t gfp;

    for (size_t i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
        CHECK_OK(sim_gfp_parse(masks[i], &gfp));
        sim_gfp_format(gfp, buf, sizeof(buf));
        CHECK_EQ_STR(buf, masks[i]);
        CHECK_OK(sim_gfp_check(gfp, msg, sizeof(msg)));
    }
    /* composite first in the kernel's order: GFP_ATOMIC before GFP_NOIO */
    sim_gfp_format(0xC20, buf, sizeof(buf));
    CHECK_EQ_STR(buf, "GFP_ATOMIC|__GFP_DIRECT_RECLAIM");
    CHECK_OK(sim_gfp_parse("__GFP_DMA|GFP_KERNEL", &gfp));
    CHECK_EQ_U(gfp, 0xCC1);
    CHECK_EQ_I(sim_gfp_parse("GFP_KERNEL|GFP_BOGUS", &gfp), -EINVAL);
    CHECK_EQ_I(sim_gfp_check(0x200, msg, sizeof(msg)), -EINVAL); /* bit 9, unused since 6.3 */
    CHECK(strstr(msg, "unused") != NULL);
    CHECK_EQ_I(sim_gfp_check(SIM_GFP_DMA | SIM_GFP_DMA32, msg, sizeof(msg)), -EINVAL);
    CHECK(strstr(msg, "GFP_ZONE_BAD") != NULL);
    CHECK_EQ_I(sim_gfp_check(SIM_GFP_MOVABLE | SIM_GFP_RECLAIMABLE, msg, sizeof(msg)), -EINVAL);
    CHECK_EQ_I(sim_gfp_check(0x2000000, msg, sizeof(msg)), -EINVAL);
}

/* ---- the studied change: coupled == explicit ------------------------------ */

static uint64_t xorshift(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* Same flags from both forms for @gfp in every context at @order. */
static bool forms_agree(uint32_t gfp, unsigned order)
{
    for (unsigned c = 0; c < 16; c++) {
        struct sim_gfp_ctx ctx = {.rt_or_dl = c & 1, .in_task = (c >> 1) & 1,
                .cma = (c >> 2) & 1, .oom_victim = (c >> 3) & 1};

        if (sim_gfp_to_alloc_flags(gfp, order, &ctx, COUPLED, 0) !=
                sim_gfp_to_alloc_flags(gfp, order, &ctx, EXPLICIT, 0))
            return false;
    }
    for (unsigned z = 0; z < SIM_NR_ZONE_TYPES; z++)
        for (unsigned d = 0; d < 2; d++)
            if (sim_alloc_flags_nofragment(gfp, z, d, COUPLED, 0) !=
                    sim_alloc_flags_nofragment(gfp, z, d, EXPLICIT, 0))
                return false;
    return true;
}

/* gfp_to_alloc_flags, fast form: the six bits the translation reads, exhaustively,
 * and a million random masks over bits 0..27 */
static void test_equivalence(void)
{
    static const uint32_t bits[6] = {SIM_GFP_HIGH, SIM_GFP_DIRECT_RECLAIM, SIM_GFP_KSWAPD_RECLAIM,
            SIM_GFP_NOMEMALLOC, SIM_GFP_MOVABLE, SIM_GFP_RECLAIMABLE};
    static const unsigned orders[4] = {0, 1, 3, 9};
    unsigned long bad = 0, distinct = 0;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    unsigned seen[4096] = {0};

    for (unsigned m = 0; m < 64; m++) {
        uint32_t gfp = 0;
        struct sim_gfp_ctx ctx = {.in_task = true, .cma = true};

        for (unsigned b = 0; b < 6; b++)
            if (m & (1u << b))
                gfp |= bits[b];
        for (unsigned o = 0; o < 4; o++) {
            bad += !forms_agree(gfp, orders[o]);
            seen[sim_gfp_to_alloc_flags(gfp, orders[o], &ctx, EXPLICIT, 0) & 0xfff] = 1;
        }
    }
    for (unsigned i = 0; i < 4096; i++)
        distinct += seen[i];
    CHECK_GE_U(distinct, 8); /* the enumeration reaches many different results */
    for (unsigned long i = 0; i < 1000000; i++) {
        uint32_t gfp = (uint32_t)(xorshift(&x) & 0xfffffff);

        bad += !forms_agree(gfp, orders[i % 4]);
    }
    CHECK_EQ_U(bad, 0);
}

/* On the renumbered layout the coupled form sets bits that mean
 * nothing and loses MIN_RESERVE; the machine refuses it unless forced */
static void test_renumbered_layout(void)
{
    struct sim_gfp_ctx ctx = sim_gfp_ctx_of(SIM_CTX_TASK, true);
    unsigned c = sim_gfp_to_alloc_flags(SIM_GFP_ATOMIC, 0, &ctx, COUPLED,
            SIM_ALLOC_LAYOUT_RENUMBERED_FORCED);
    unsigned e = sim_gfp_to_alloc_flags(SIM_GFP_ATOMIC, 0, &ctx, EXPLICIT,
            SIM_ALLOC_LAYOUT_RENUMBERED_FORCED);
    struct sim_config cfg;
    struct sim *sim = NULL;
    char names[160], msg[400];

    CHECK_EQ_U(e, 0x1000 | 0x2000 | SIM_ALLOC_NON_BLOCK);
    CHECK_EQ_U(sim_alloc_flags_to_kernel(e, SIM_ALLOC_LAYOUT_RENUMBERED_FORCED), 0x830);
    CHECK_EQ_U(c, 0x20 | 0x800 | SIM_ALLOC_NON_BLOCK | SIM_ALLOC_CPUSET);
    sim_alloc_flags_format(c, SIM_ALLOC_LAYOUT_RENUMBERED_FORCED, names, sizeof(names));
    CHECK_EQ_STR(names, "WMARK_MIN|NON_BLOCK|CPUSET|0x820");
    CHECK_EQ_I(sim_effective_min(c, 128, SIM_ALLOC_LAYOUT_RENUMBERED_FORCED), 128);
    CHECK_EQ_I(sim_effective_min(e, 128, SIM_ALLOC_LAYOUT_RENUMBERED_FORCED), 48);
    sim_config_default(&cfg);
    cfg.alloc_layout = SIM_ALLOC_LAYOUT_RENUMBERED;
    CHECK_OK(sim_zones_check(&cfg, msg, sizeof(msg))); /* explicit is fine */
    cfg.variant[SIM_VAR_GFP_TRANSLATE] = SIM_BEFORE;
    CHECK_EQ_I(sim_zones_check(&cfg, msg, sizeof(msg)), -EINVAL);
    CHECK(strstr(msg, "ALLOC_MIN_RESERVE") != NULL);
    CHECK_EQ_I(sim_create(&cfg, &sim), -EINVAL);
    cfg.alloc_layout = SIM_ALLOC_LAYOUT_RENUMBERED_FORCED;
    CHECK_OK(sim_create(&cfg, &sim));
    sim_destroy(sim);
}

/* ---- watermarks ------------------------------------------------------------ */

/* __setup_per_zone_wmarks's arithmetic for M = 128 */
static void test_reserve_cuts(void)
{
    CHECK_EQ_I(sim_effective_min(SIM_ALLOC_MIN_RESERVE, 128, 0), 64);
    CHECK_EQ_I(sim_effective_min(SIM_ALLOC_MIN_RESERVE | SIM_ALLOC_NON_BLOCK, 128, 0), 48);
    CHECK_EQ_I(sim_effective_min(SIM_ALLOC_MIN_RESERVE | SIM_ALLOC_NON_BLOCK | SIM_ALLOC_OOM, 128,
                       0),
            24);
    CHECK_EQ_I(sim_effective_min(SIM_ALLOC_OOM, 128, 0), 64);
    CHECK_EQ_I(sim_effective_min(SIM_ALLOC_NON_BLOCK, 128, 0), 128);
    CHECK_EQ_I(sim_effective_min(SIM_ALLOC_HIGHATOMIC, 128, 0), 128);
    CHECK_EQ_I(sim_effective_min(SIM_ALLOC_CPUSET | SIM_ALLOC_KSWAPD, 128, 0), 128);
}

/* A zone of 4096 pages, min_free_kbytes 512 */
static void spec_config(struct sim_config *cfg)
{
    sim_config_default(cfg);
    cfg->nr_cpus = 1;
    cfg->mem_per_node = 16ull << 20;
    cfg->min_free_kbytes = 512;
}

static void test_watermarks(void)
{
    struct sim_config cfg;
    struct sim *sim = NULL;
    const struct zone *z;

    spec_config(&cfg);
    if (!CHECK_OK(sim_create(&cfg, &sim)))
        return;
    z = &sim->zones[0];
    CHECK_EQ_U(z->wmark[SIM_WMARK_MIN], 128);
    CHECK_EQ_U(z->wmark[SIM_WMARK_LOW], 160);
    CHECK_EQ_U(z->wmark[SIM_WMARK_HIGH], 192);
    CHECK_EQ_U(z->wmark[SIM_WMARK_PROMO], 224);
    sim_destroy(sim);
    /* default min_free_kbytes: sqrt(16 * 65536 KiB) = 1024 KiB on 64 MiB */
    sim_config_default(&cfg);
    CHECK_OK(sim_create(&cfg, &sim));
    CHECK_EQ_U(sim->zones[0].wmark[SIM_WMARK_MIN], 256);
    CHECK_EQ_U(sim->zones[0].wmark[SIM_WMARK_LOW], 320);
    sim_destroy(sim);
    /* three zones on node 0: shares in proportion, lowmem reserves below Normal */
    sim_config_default(&cfg);
    cfg.dma_bytes = 16ull << 20;
    cfg.dma32_bytes = 256ull << 20;
    cfg.min_free_kbytes = 4096;
    CHECK_OK(sim_create(&cfg, &sim));
    CHECK_EQ_U(sim->nr_zones, 3);
    for (unsigned i = 0; i < 3; i++) {
        const struct zone *q = &sim->zones[i];

        CHECK_EQ_U(q->wmark[SIM_WMARK_MIN], 1024ul * q->pages / (4096 + 65536 + 16384));
        if (q->type == SIM_ZONE_DMA)
            CHECK_EQ_U(q->lowmem_reserve[SIM_ZONE_NORMAL], (65536 + 16384) / 256);
        if (q->type == SIM_ZONE_DMA32)
            CHECK_EQ_U(q->lowmem_reserve[SIM_ZONE_NORMAL], 16384 / 256);
        CHECK_EQ_U(q->lowmem_reserve[q->type], 0);
    }
    sim_destroy(sim);
}

/* The boundary of the test: free - (2^order - 1) must exceed the cut mark */
static void test_watermark_edges(void)
{
    struct sim_config cfg;
    struct sim *sim = NULL;
    struct zone *z;
    long thr;

    spec_config(&cfg);
    if (!CHECK_OK(sim_create(&cfg, &sim)))
        return;
    z = &sim->zones[0];
    z->free_pages = 129; /* only the count is read at order 0 */
    CHECK(zone_watermark_ok(sim, z, 0, 128, SIM_ZONE_NORMAL, SIM_ALLOC_WMARK_MIN, &thr));
    CHECK_EQ_I(thr, 128);
    z->free_pages = 128;
    CHECK(!zone_watermark_ok(sim, z, 0, 128, SIM_ZONE_NORMAL, SIM_ALLOC_WMARK_MIN, &thr));
    CHECK(zone_watermark_ok(sim, z, 0, 128, SIM_ZONE_NORMAL, SIM_ALLOC_MIN_RESERVE, &thr));
    z->free_pages = 49;
    CHECK(zone_watermark_ok(sim, z, 0, 128, SIM_ZONE_NORMAL,
            SIM_ALLOC_MIN_RESERVE | SIM_ALLOC_NON_BLOCK, &thr));
    z->free_pages = 48;
    CHECK(!zone_watermark_ok(sim, z, 0, 128, SIM_ZONE_NORMAL,
            SIM_ALLOC_MIN_RESERVE | SIM_ALLOC_NON_BLOCK, &thr));
    /* order 3: seven pages of the count are unusable; the untouched
     * max-order blocks make a block of the order exist */
    z->free_pages = 135;
    CHECK(!zone_watermark_ok(sim, z, 3, 128, SIM_ZONE_NORMAL, 0, &thr));
    z->free_pages = 136;
    CHECK(zone_watermark_ok(sim, z, 3, 128, SIM_ZONE_NORMAL, 0, &thr));
    z->free_pages = z->pages;
    sim_destroy(sim);
}

/* ---- the allocation flow --------------------------------------------------- */

struct rec {
    struct tsim t;
    char trail[4096]; /* "fn/label " of the events since the last reset */
    struct sim_page_alloc last_page;
    bool has_page;
};

static void rec_event(const struct sim_event *ev, void *arg)
{
    struct rec *r = arg;
    size_t n = strlen(r->trail);

    tsim_event(ev, &r->t);
    snprintf(r->trail + n, sizeof(r->trail) - n, "%s/%s ", ev->fn, ev->label);
    if (ev->page) {
        r->last_page = *ev->page;
        r->has_page = true;
    }
}

static void rec_init(struct rec *r, const struct sim_config *cfg)
{
    memset(r, 0, sizeof(*r));
    tsim_init(&r->t, cfg);
    if (r->t.sim)
        sim_set_event_cb(r->t.sim, rec_event, r);
}

/* alloc_pages(gfp, order); returns the block or 0; the trail restarts. */
static sim_addr_t pages(struct rec *r, uint32_t gfp, unsigned order)
{
    struct sim_op op = {.kind = SIM_OP_ALLOC_PAGES, .node = SIM_NUMA_NO_NODE, .gfp = gfp,
            .order = order};
    struct sim_result res;

    r->trail[0] = 0;
    r->has_page = false;
    if (!CHECK_OK(tsim_apply(&r->t, &op, &res)))
        return 0;
    return res.status == SIM_OK ? res.addr : 0;
}

static void free_block(struct rec *r, sim_addr_t addr, unsigned order)
{
    struct sim_op op = {.kind = SIM_OP_FREE_PAGES, .node = SIM_NUMA_NO_NODE, .addr = addr,
            .order = order};
    struct sim_result res;

    CHECK_OK(tsim_apply(&r->t, &op, &res));
}

/* Take order-0 pages (movable: reclaimable) until @free are left. */
static void fill_to(struct rec *r, unsigned long free)
{
    r->t.quiet = true;
    while (r->t.sim->zones[0].free_pages > free)
        if (!pages(r, SIM_GFP_KERNEL | SIM_GFP_MOVABLE | SIM_GFP_MEMALLOC, 0))
            break;
    r->t.quiet = false;
}

/* Between low and min, GFP_KERNEL passes in the slow path and
 * wakes kswapd; the fast path's flags are WMARK_LOW|KSWAPD */
static void test_between_low_and_min(void)
{
    struct sim_config cfg;
    struct rec r;

    spec_config(&cfg);
    rec_init(&r, &cfg);
    if (!r.t.sim)
        return;
    fill_to(&r, 150);
    CHECK_EQ_U(r.t.sim->zones[0].free_pages, 150);
    CHECK(pages(&r, SIM_GFP_KERNEL, 0) != 0);
    CHECK(strstr(r.trail, "__alloc_pages_slowpath/enter wake_all_kswapds/wake __alloc_pages/slow") ==
            r.trail);
    CHECK_EQ_U(r.last_page.alloc_flags, 0x840);
    CHECK_EQ_I(r.last_page.threshold, 128);
    CHECK_EQ_U(r.last_page.free, 150);
    /* above low: the fast path, no event of the allocator's own */
    while (r.t.sim->zones[0].free_pages < 170)
        free_block(&r, r.t.sim->user[r.t.sim->nr_user - 1].addr, 0);
    CHECK(pages(&r, SIM_GFP_KERNEL, 0) != 0);
    CHECK_EQ_STR(r.trail, "__alloc_pages/fast ");
    CHECK_EQ_U(r.last_page.alloc_flags, SIM_ALLOC_WMARK_LOW | SIM_ALLOC_KSWAPD);
    CHECK_EQ_I(r.last_page.threshold, 160);
    CHECK_CLEAN(&r.t);
    tsim_fini(&r.t);
}

/* Below min, who gets a page */
static void test_below_min(void)
{
    struct sim_config cfg;
    struct rec r;

    spec_config(&cfg);
    rec_init(&r, &cfg);
    if (!r.t.sim)
        return;
    fill_to(&r, 100);
    /* GFP_KERNEL: reclaim makes no progress (reclaim_pages 0), OOM not modelled */
    CHECK(pages(&r, SIM_GFP_KERNEL, 0) == 0);
    CHECK(strstr(r.trail, "__alloc_pages_direct_reclaim/no_progress") != NULL);
    CHECK(strstr(r.trail, "__alloc_pages_may_oom/not_modelled") != NULL);
    CHECK(strstr(r.trail, "warn_alloc/page_allocation_failure") != NULL);
    /* GFP_NOWAIT: 100 <= 128 and it cannot reclaim: a quiet failure */
    CHECK(pages(&r, SIM_GFP_NOWAIT, 0) == 0);
    CHECK(strstr(r.trail, "warn_alloc/nowarn") != NULL);
    CHECK(strstr(r.trail, "direct_reclaim") == NULL);
    /* GFP_ATOMIC: threshold 3M/8 = 48, granted by the reserve */
    CHECK(pages(&r, SIM_GFP_ATOMIC, 0) != 0);
    CHECK(strstr(r.trail, "__zone_watermark_ok/reserve") != NULL);
    CHECK_EQ_I(r.last_page.threshold, 48);
    /* at 60 free: GFP_ATOMIC|__GFP_NOMEMALLOC (M/2 = 64) fails, GFP_ATOMIC passes */
    fill_to(&r, 60);
    CHECK(pages(&r, SIM_GFP_ATOMIC | SIM_GFP_NOMEMALLOC, 0) == 0);
    CHECK(pages(&r, SIM_GFP_ATOMIC, 0) != 0);
    /* __GFP_MEMALLOC: the retry ignores watermarks, the page is pfmemalloc */
    CHECK(pages(&r, SIM_GFP_KERNEL | SIM_GFP_MEMALLOC, 0) != 0);
    CHECK(strstr(r.trail, "get_page_from_freelist/no_watermarks") != NULL);
    CHECK(r.last_page.pfmemalloc);
    CHECK_EQ_U(r.last_page.alloc_flags, SIM_ALLOC_NO_WATERMARKS | SIM_ALLOC_KSWAPD);
    CHECK_CLEAN(&r.t);
    tsim_fini(&r.t);
}

/* Direct reclaim, modelled: it frees the oldest reclaimable blocks and the
 * retry succeeds */
static void test_reclaim(void)
{
    struct sim_config cfg;
    struct rec r;
    unsigned long before;

    spec_config(&cfg);
    cfg.reclaim_pages = 32;
    rec_init(&r, &cfg);
    if (!r.t.sim)
        return;
    fill_to(&r, 100);
    before = r.t.sim->nr_user;
    CHECK(pages(&r, SIM_GFP_KERNEL, 0) != 0);
    CHECK(strstr(r.trail, "__alloc_pages_direct_reclaim/reclaimed") != NULL);
    CHECK_EQ_STR(r.last_page.path, "reclaim");
    CHECK_EQ_U(r.t.sim->nr_user, before - 32 + 1);
    CHECK_EQ_U(r.t.sim->zones[0].free_pages, 100 + 32 - 1);
    CHECK_CLEAN(&r.t);
    tsim_fini(&r.t);
}

/* Then kswapd, when modelled, runs after the operation that woke
 * it and reclaims back up to the high watermark */
static void test_kswapd(void)
{
    struct sim_config cfg;
    struct rec r;

    spec_config(&cfg);
    rec_init(&r, &cfg);
    if (!r.t.sim)
        return;
    fill_to(&r, 150); /* movable blocks: reclaimable (kswapd would undo the filling) */
    r.t.sim->cfg.kswapd = true;
    CHECK(pages(&r, SIM_GFP_KERNEL, 0) != 0);
    CHECK(strstr(r.trail, "wake_all_kswapds/wake") != NULL);
    CHECK(strstr(r.trail, "balance_pgdat/balanced") != NULL);
    CHECK_GE_U(r.t.sim->zones[0].free_pages, 192);
    CHECK_LT_U(r.t.sim->zones[0].free_pages, 192 + 1);
    /* above low: kswapd is not woken, nothing runs */
    CHECK(pages(&r, SIM_GFP_KERNEL, 0) != 0);
    CHECK_EQ_STR(r.trail, "__alloc_pages/fast ");
    /* nothing reclaimable left: kswapd makes no progress */
    r.t.quiet = true;
    while (r.t.sim->nr_user)
        free_block(&r, r.t.sim->user[0].addr, r.t.sim->user[0].order);
    while (r.t.sim->zones[0].free_pages > 150)
        if (!pages(&r, SIM_GFP_ATOMIC, 0))
            break;
    r.t.quiet = false;
    CHECK(pages(&r, SIM_GFP_KERNEL, 0) != 0);
    CHECK(strstr(r.trail, "balance_pgdat/no_progress") != NULL);
    CHECK_CLEAN(&r.t);
    tsim_fini(&r.t);
}

/* SLUB's order fallback (allocate_slab) when no block of the preferred order is
 * left: the quiet first try fails, the minimum order succeeds */
static void test_order_fallback(void)
{
    struct sim_config cfg;
    struct rec r;
    sim_addr_t held[4096];
    unsigned n = 0;
    int c;
    struct sim_snap_cache info;

    spec_config(&cfg);
    rec_init(&r, &cfg);
    if (!r.t.sim)
        return;
    /* every page taken, then every other page freed: 2048 free order-0 blocks */
    r.t.quiet = true;
    while (n < 4096 && (held[n] = pages(&r, SIM_GFP_KERNEL | SIM_GFP_MEMALLOC, 0)))
        n++;
    CHECK_EQ_U(n, 4096);
    for (unsigned i = 0; i < n; i += 2)
        free_block(&r, held[i], 0);
    r.t.quiet = false;
    CHECK_EQ_U(zone_nr_free(&r.t.sim->zones[0], 0), 2048);
    CHECK_EQ_U(zone_nr_free(&r.t.sim->zones[0], 1), 0);
    c = tsim_create(&r.t, "kmalloc-1k-like", 1024, 0, 0);
    info = tsim_snap_cache(&r.t, c);
    CHECK_GE_U(info.order, 1); /* 3 on a big machine; 1 with one CPU */
    CHECK_EQ_U(info.min_order, 0);
    r.trail[0] = 0;
    CHECK(tsim_alloc(&r.t, c, 0) != 0);
    CHECK_GE_U(tsim_stat(&r.t, c, "order_fallback"), 1);
    CHECK_EQ_U(tsim_stat(&r.t, c, "order_fallback"), tsim_stat(&r.t, c, "alloc_slab"));
    CHECK(strstr(r.trail, "new_slab/order_fallback") != NULL);
    info = tsim_snap_cache(&r.t, c);
    CHECK_EQ_U(info.total_objects, 4 * info.slabs);
    CHECK_CLEAN(&r.t);
    tsim_fini(&r.t);
}

/* What the first try of a GFP_KERNEL high-order slab asks: row 18 of the decoded table
 * (0xD20C0 at order 3; the same mask at this machine's order) */
static void test_slab_first_try_mask(void)
{
    struct sim_config cfg;
    struct rec r;
    int c;

    spec_config(&cfg);
    rec_init(&r, &cfg);
    if (!r.t.sim)
        return;
    c = tsim_create(&r.t, "k1k", 1024, 0, 0);
    r.trail[0] = 0;
    CHECK(tsim_alloc(&r.t, c, 0) != 0);
    CHECK(r.has_page);
    CHECK_EQ_U(r.last_page.gfp, 0xD20C0);
    CHECK_EQ_U(r.last_page.order, tsim_snap_cache(&r.t, c).order);
    CHECK(strstr(r.trail, "new_slab/oo") != NULL);
    CHECK_CLEAN(&r.t);
    tsim_fini(&r.t);
}

/* __GFP_COMP on an order-0 slab: 6.12 and 7.x always set it (calculate_sizes():
 * allocflags = __GFP_COMP), 6.1 only above order 0 */
static void test_slab_comp_order0(void)
{
    static const struct {
        enum sim_release rel;
        bool comp;
    } rows[] = {{SIM_RELEASE_6_1, false},
                {SIM_RELEASE_6_12, true},
                {SIM_RELEASE_7_2, true},
                {SIM_RELEASE_7_3, true}};

    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        struct sim_config cfg;
        struct rec r;
        int c, big;

        sim_config_default(&cfg);
        CHECK(sim_release_apply(rows[i].rel, &cfg) == 0);
        rec_init(&r, &cfg);
        if (!r.t.sim)
            return;
        c = tsim_create(&r.t, "small", 64, 0, 0);
        CHECK_EQ_U(tsim_snap_cache(&r.t, c).order, 0);
        r.has_page = false;
        CHECK(tsim_alloc(&r.t, c, 0) != 0);
        CHECK(r.has_page && r.last_page.order == 0);
        CHECK_EQ_U(!!(r.last_page.gfp & SIM_GFP_COMP), rows[i].comp);
        big = tsim_create(&r.t, "big", 2048, 0, 0);
        CHECK(tsim_snap_cache(&r.t, big).order > 0);
        r.has_page = false;
        CHECK(tsim_alloc(&r.t, big, 0) != 0);
        CHECK(r.has_page && (r.last_page.gfp & SIM_GFP_COMP)); /* every release above 0 */
        CHECK_CLEAN(&r.t);
        tsim_fini(&r.t);
    }
}

/* SLAB_CACHE_DMA: __GFP_DMA, so the slab comes from ZONE_DMA */
static void test_dma_cache(void)
{
    struct sim_config cfg;
    struct rec r;
    int c, plain;
    sim_addr_t a, b;
    const struct zone *dma;

    sim_config_default(&cfg);
    cfg.dma_bytes = 16ull << 20;
    rec_init(&r, &cfg);
    if (!r.t.sim)
        return;
    dma = &r.t.sim->zones[r.t.sim->zone_of_type[0][SIM_ZONE_DMA]];
    c = tsim_create(&r.t, "dma-cache", 128, SIM_SLAB_CACHE_DMA, 0);
    plain = tsim_create(&r.t, "plain", 128, 0, 0);
    a = tsim_alloc(&r.t, c, 0);
    CHECK_EQ_STR(sim_zone_name(r.last_page.zone), "DMA");
    CHECK(r.last_page.gfp & SIM_GFP_DMA);
    b = tsim_alloc(&r.t, plain, 0);
    CHECK_EQ_STR(sim_zone_name(r.last_page.zone), "Normal");
    CHECK(a - dma->start < (uint64_t)dma->pages << PAGE_SHIFT);
    CHECK(!(b - dma->start < (uint64_t)dma->pages << PAGE_SHIFT));
    CHECK_CLEAN(&r.t);
    tsim_fini(&r.t);
}

/* kmalloc with __GFP_DMA: the dma-kmalloc-* class, in ZONE_DMA, when the
 * machine has one (kernel: kmalloc_type); the plain class otherwise */
static void test_kmalloc_dma(void)
{
    for (unsigned with = 0; with < 2; with++) {
        struct sim_config cfg;
        struct rec r;
        struct sim_op op = {.kind = SIM_OP_KMALLOC, .node = SIM_NUMA_NO_NODE, .size = 100,
                .gfp = SIM_GFP_KERNEL | SIM_GFP_DMA};
        struct sim_result res;
        const struct zone *dma;

        sim_config_default(&cfg);
        cfg.dma_bytes = with ? 16ull << 20 : 0;
        rec_init(&r, &cfg);
        if (!r.t.sim)
            return;
        CHECK_OK(tsim_apply(&r.t, &op, &res));
        CHECK_EQ_I(res.status, SIM_OK);
        CHECK_EQ_STR(tsim_snap_cache(&r.t, res.cache).name, with ? "dma-kmalloc-128" : "kmalloc-128");
        CHECK_EQ_STR(sim_zone_name(r.last_page.zone), with ? "DMA" : "Normal");
        if (with) {
            dma = &r.t.sim->zones[r.t.sim->zone_of_type[0][SIM_ZONE_DMA]];
            CHECK(res.addr - dma->start < (uint64_t)dma->pages << PAGE_SHIFT);
            /* a kmalloc cache: destroying it is refused */
            op = (struct sim_op){.kind = SIM_OP_DESTROY, .node = SIM_NUMA_NO_NODE, .cache = res.cache};
            CHECK_EQ_I(sim_apply(r.t.sim, &op, &res), -EINVAL);
        }
        CHECK_CLEAN(&r.t);
        tsim_fini(&r.t);
    }
}

/* Bad input: the op is refused and nothing changes */
static void test_bad_ops(void)
{
    struct sim_config cfg;
    struct rec r;
    struct sim_op op = {.kind = SIM_OP_ALLOC_PAGES, .node = SIM_NUMA_NO_NODE,
            .gfp = SIM_GFP_DMA | SIM_GFP_DMA32};
    struct sim_result res;
    sim_addr_t a;

    spec_config(&cfg);
    rec_init(&r, &cfg);
    if (!r.t.sim)
        return;
    CHECK_EQ_I(sim_apply(r.t.sim, &op, &res), -EINVAL);
    CHECK(strstr(res.message, "GFP_ZONE_BAD") != NULL);
    op.gfp = 0;
    op.order = 11;
    CHECK_EQ_I(sim_apply(r.t.sim, &op, &res), -EINVAL);
    a = pages(&r, 0, 1);
    op = (struct sim_op){.kind = SIM_OP_FREE_PAGES, .node = SIM_NUMA_NO_NODE, .addr = a,
            .order = 0};
    CHECK_EQ_I(sim_apply(r.t.sim, &op, &res), -EINVAL);
    CHECK(strstr(res.message, "order 1") != NULL);
    op.addr = a + PAGE_SIZE;
    CHECK_EQ_I(sim_apply(r.t.sim, &op, &res), -EINVAL);
    CHECK_EQ_U(r.t.sim->zones[0].user_pages, 2);
    CHECK_EQ_U(sim_op_count(r.t.sim), 1);
    CHECK_CLEAN(&r.t);
    tsim_fini(&r.t);
}

/* ---- the validator catches corrupted zones --------------------------------- */

static void test_validate_zones(void)
{
    struct sim_config cfg;
    struct rec r;
    struct sim_report rep;
    struct zone *z;
    sim_addr_t a;

    spec_config(&cfg);
    rec_init(&r, &cfg);
    if (!r.t.sim)
        return;
    a = pages(&r, SIM_GFP_KERNEL, 2);
    z = &r.t.sim->zones[0];
    CHECK_EQ_U(sim_validate(r.t.sim, SIM_VALIDATE_OP, &rep), 0);
    z->user_pages++;
    CHECK_GE_U(sim_validate(r.t.sim, SIM_VALIDATE_OP, &rep), 1);
    CHECK(strstr(rep.msg[0], "user_pages") != NULL);
    z->user_pages--;
    z->wmark[SIM_WMARK_LOW] = z->wmark[SIM_WMARK_MIN] - 1;
    CHECK_GE_U(sim_validate(r.t.sim, SIM_VALIDATE_OP, &rep), 1);
    CHECK(strstr(rep.msg[0], "watermark") != NULL);
    z->wmark[SIM_WMARK_LOW] = z->wmark[SIM_WMARK_MIN] + 32;
    page_of(r.t.sim, a)->user = 0; /* the block forgets it is held */
    CHECK_GE_U(sim_validate(r.t.sim, SIM_VALIDATE_OP, &rep), 1);
    CHECK(strstr(rep.msg[0], "not marked held") != NULL);
    page_of(r.t.sim, a)->user = 3;
    /* a free block's page claimed by a user */
    page_of(r.t.sim, a + 4 * PAGE_SIZE)->user = 1;
    CHECK_GE_U(sim_validate(r.t.sim, SIM_VALIDATE_OP, &rep), 1);
    CHECK(strstr(rep.msg[0], "in use") != NULL);
    page_of(r.t.sim, a + 4 * PAGE_SIZE)->user = 0;
    CHECK_EQ_U(sim_validate(r.t.sim, SIM_VALIDATE_OP, &rep), 0);
    /* the held block put on the order-2 list by hand, beside its free buddy */
    {
        struct sim_page *p = page_of(r.t.sim, a), *head;
        bool unmerged = false;

        p->user = 0;
        p->buddy = 2;
        p->prev = 0;
        p->next = z->area[2].head;
        head = zone_page(z, z->area[2].head - 1);
        head->prev = 1;
        z->area[2].head = 1;
        z->area[2].nr_free++;
        z->free_pages += 4;
        r.t.sim->nr_user = 0;
        z->user_pages = 0;
        CHECK_GE_U(sim_validate(r.t.sim, SIM_VALIDATE_OP, &rep), 1);
        for (unsigned i = 0; i < rep.violations && i < SIM_REPORT_MSGS; i++)
            unmerged |= strstr(rep.msg[i], "were not merged") != NULL;
        CHECK(unmerged);
    }
    tsim_fini(&r.t);
}

int main(void)
{
    RUN_TEST(test_decoded_table);
    RUN_TEST(test_gfp_names);
    RUN_TEST(test_equivalence);
    RUN_TEST(test_renumbered_layout);
    RUN_TEST(test_reserve_cuts);
    RUN_TEST(test_watermarks);
    RUN_TEST(test_watermark_edges);
    RUN_TEST(test_between_low_and_min);
    RUN_TEST(test_below_min);
    RUN_TEST(test_reclaim);
    RUN_TEST(test_kswapd);
    RUN_TEST(test_order_fallback);
    RUN_TEST(test_slab_first_try_mask);
    RUN_TEST(test_slab_comp_order0);
    RUN_TEST(test_dma_cache);
    RUN_TEST(test_kmalloc_dma);
    RUN_TEST(test_bad_ops);
    RUN_TEST(test_validate_zones);
    return check_done();
}
