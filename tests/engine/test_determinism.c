/*
 * test_determinism.c: a seed and an operation list determine every byte.
 *
 * A workload generator (its own PRNG, its own list of live objects, plain
 * data so it can be copied along with a machine) drives machines of several
 * configurations.  Each event is serialized field by field (numbers, the
 * kernel function and label, the report, every move with both places,
 * every counter delta) into a byte buffer.  Two machines with the same
 * configuration and operations must give identical buffers and snapshots;
 * a clone taken mid-run must go on exactly as its original, sequence
 * numbers included; and the number of events must not depend on whether
 * anyone listens.
 */
#include <stdlib.h>

#include "simtest.h"
#include "snapcmp.h"

/* ---- the event stream, serialized ---- */

struct stream {
    uint8_t *p;
    size_t n, cap;
    uint64_t events;
};

static void put(struct stream *s, const void *v, size_t len)
{
    if (s->n + len > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 1u << 16;
        uint8_t *p;

        while (cap < s->n + len)
            cap *= 2;
        p = realloc(s->p, cap);
        if (!p)
            abort(); /* the test cannot go on without its record */
        s->p = p;
        s->cap = cap;
    }
    memcpy(s->p + s->n, v, len);
    s->n += len;
}

static void put_u64(struct stream *s, uint64_t v)
{
    put(s, &v, sizeof(v));
}

static void put_i64(struct stream *s, int64_t v)
{
    put(s, &v, sizeof(v));
}

static void put_str(struct stream *s, const char *str)
{
    if (!str) {
        put_u64(s, UINT64_MAX);
        return;
    }
    put_u64(s, strlen(str));
    put(s, str, strlen(str));
}

static void put_place(struct stream *s, const struct sim_place *p)
{
    put_u64(s, p->type);
    put_i64(s, p->cpu);
    put_i64(s, p->node);
    put_i64(s, p->slot);
    put_u64(s, p->slab);
    put_u64(s, p->sheaf);
}

static void record_event(const struct sim_event *ev, void *arg)
{
    struct stream *s = arg;

    s->events++;
    put_u64(s, ev->seq);
    put_u64(s, ev->op);
    put_i64(s, ev->cpu);
    put_i64(s, ev->node);
    put_i64(s, ev->cache);
    put_str(s, ev->fn);
    put_str(s, ev->label);
    put_str(s, ev->report);
    put_u64(s, ev->nr_moves);
    for (size_t i = 0; i < ev->nr_moves; i++) {
        put_u64(s, ev->moves[i].kind);
        put_u64(s, ev->moves[i].id);
        put_place(s, &ev->moves[i].from);
        put_place(s, &ev->moves[i].to);
    }
    put_u64(s, ev->nr_stats);
    for (size_t i = 0; i < ev->nr_stats; i++) {
        put_u64(s, ev->stats[i].item);
        put_i64(s, ev->stats[i].delta);
    }
}

static void stream_reset(struct stream *s)
{
    free(s->p);
    memset(s, 0, sizeof(*s));
}

/* CHECK two streams are byte-identical; print where they first differ. */
static bool streams_equal(const struct stream *a, const struct stream *b)
{
    size_t i = 0;

    if (a->n == b->n && a->events == b->events && (a->n == 0 || !memcmp(a->p, b->p, a->n)))
        return CHECK(true);
    while (i < a->n && i < b->n && a->p[i] == b->p[i])
        i++;
    CHECK(false);
    printf("  streams differ: %zu vs %zu bytes, %llu vs %llu events, first difference at byte "
           "%zu\n",
            a->n, b->n, (unsigned long long)a->events, (unsigned long long)b->events, i);
    return false;
}

/* ---- the workload ---- */

#define WL_MAX_LIVE 3000u
#define WL_CACHES   3

struct live {
    sim_addr_t addr;
    int cache; /* -1: from kmalloc, freed with kfree */
};

struct workload {
    uint64_t rng;
    unsigned cpus, nodes;
    int cache[WL_CACHES];
    unsigned nr_caches;
    struct live live[WL_MAX_LIVE];
    unsigned nr_live;
    sim_addr_t bulk[160];
    unsigned failed; /* allocations that found no memory */
};

static uint64_t wl_next(struct workload *w)
{
    uint64_t z = (w->rng += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static unsigned wl_below(struct workload *w, unsigned n)
{
    return (unsigned)(wl_next(w) % n);
}

static void wl_init(struct workload *w, uint64_t seed, const struct sim_config *cfg)
{
    memset(w, 0, sizeof(*w));
    w->rng = seed;
    w->cpus = cfg->nr_cpus;
    w->nodes = cfg->nr_nodes;
}

static void wl_keep(struct workload *w, sim_addr_t addr, int cache)
{
    if (w->nr_live < WL_MAX_LIVE)
        w->live[w->nr_live++] = (struct live){addr, cache};
}

/* Build the next operation into @op; it is always valid. */
static void wl_op(struct workload *w, struct sim_op *op)
{
    static const unsigned sizes[WL_CACHES] = {64, 4096, 200};
    unsigned dice = wl_below(w, 100);

    memset(op, 0, sizeof(*op));
    op->cpu = wl_below(w, w->cpus);
    op->node = SIM_NUMA_NO_NODE;
    if (w->nr_caches < WL_CACHES) {
        op->kind = SIM_OP_CREATE;
        snprintf(op->create.name, sizeof(op->create.name), "w%u", w->nr_caches);
        op->create.object_size = sizes[w->nr_caches];
        op->create.flags = w->nr_caches == 2 ? SIM_SLAB_HWCACHE_ALIGN : 0;
        op->create.sheaf_capacity = w->nr_caches == 2 ? 32 : 0;
        return;
    }
    op->cache = w->cache[wl_below(w, WL_CACHES)];
    if (w->nr_live >= WL_MAX_LIVE - 200 && dice < 70)
        dice = 40; /* mostly frees while the live list is nearly full */
    if (dice < 30 || (dice < 60 && !w->nr_live)) {
        op->kind = SIM_OP_ALLOC;
        if (w->nodes > 1 && wl_below(w, 5) == 0)
            op->node = (int)wl_below(w, w->nodes);
    } else if (dice < 60) {
        unsigned i = wl_below(w, w->nr_live);

        op->kind = w->live[i].cache < 0 || wl_below(w, 4) == 0 ? SIM_OP_KFREE : SIM_OP_FREE;
        op->cache = w->live[i].cache < 0 ? 0 : w->live[i].cache;
        op->addr = w->live[i].addr;
        w->live[i] = w->live[--w->nr_live];
    } else if (dice < 75) {
        op->kind = SIM_OP_KMALLOC;
        op->size = 1 + wl_below(w, 8192);
    } else if (dice < 85) {
        op->kind = SIM_OP_ALLOC_BULK;
        op->count = 1 + wl_below(w, 150);
        op->out = w->bulk;
    } else if (dice < 90) {
        op->kind = SIM_OP_FLUSH_ALL;
    } else if (dice < 93) {
        op->kind = SIM_OP_SHRINK;
    } else if (dice < 96 && w->nr_live) {
        unsigned i = wl_below(w, w->nr_live);

        op->kind = SIM_OP_KFREE_RCU;
        op->addr = w->live[i].addr;
        w->live[i] = w->live[--w->nr_live];
    } else if (dice < 97) {
        op->kind = SIM_OP_GRACE_PERIOD;
    } else {
        op->kind = SIM_OP_KFREE;
        op->addr = wl_below(w, 2) ? 0 : 0x10; /* no-ops */
    }
}

/* Take note of what @op gave. */
static void wl_result(struct workload *w, const struct sim_op *op, const struct sim_result *res)
{
    if (res->status == SIM_FAILED)
        w->failed++;
    if (res->status != SIM_OK)
        return;
    switch (op->kind) {
    case SIM_OP_CREATE:
        w->cache[w->nr_caches++] = res->cache;
        break;
    case SIM_OP_ALLOC:
        wl_keep(w, res->addr, op->cache);
        break;
    case SIM_OP_KMALLOC:
        wl_keep(w, res->addr, -1);
        break;
    case SIM_OP_ALLOC_BULK:
        for (unsigned i = 0; i < res->count; i++)
            wl_keep(w, w->bulk[i], op->cache);
        break;
    default:
        break;
    }
}

/* Run @n operations; false (with a message) when one is refused. */
static bool wl_run(struct workload *w, struct sim *sim, unsigned n)
{
    struct sim_op op;
    struct sim_result res;

    for (unsigned i = 0; i < n; i++) {
        wl_op(w, &op);
        if (!CHECK_OK(sim_apply(sim, &op, &res))) {
            printf("  op %u (kind %d): %s\n", i, (int)op.kind, res.message);
            return false;
        }
        wl_result(w, &op, &res);
    }
    return true;
}

/* ---- configurations ---- */

#define NR_CONFIGS 4

static void config(unsigned which, struct sim_config *cfg)
{
    sim_config_default(cfg);
    cfg->seed = 1000 + which;
    switch (which) {
    case 0: /* the defaults */
        break;
    case 1: /* every variant before, random freelists, a grace period every 5 operations */
        for (unsigned v = 0; v < SIM_NR_VARIANTS; v++)
            cfg->variant[v] = SIM_BEFORE;
        cfg->freelist_random = true;
        cfg->rcu_mode = SIM_RCU_PERIODIC;
        cfg->rcu_gap = 5;
        break;
    case 2: /* NUMA, random, not hardened, small memory so allocations fail */
        cfg->nr_cpus = 4;
        cfg->nr_nodes = 2;
        cfg->cpu_node[1] = 1;
        cfg->cpu_node[3] = 1;
        cfg->mem_per_node = 4ull << 20;
        cfg->freelist_random = true;
        cfg->freelist_hardened = false;
        cfg->rcu_mode = SIM_RCU_RANDOM; /* grace periods at random gaps: seeded too */
        cfg->rcu_gap = 7;
        break;
    default: /* one CPU, mixed variants */
        cfg->nr_cpus = 1;
        cfg->variant[SIM_VAR_DEFERRED_FREELIST] = SIM_BEFORE;
        cfg->freelist_random = true;
        cfg->mem_per_node = 8ull << 20;
        break;
    }
}

static struct sim *machine(const struct sim_config *cfg, struct stream *s)
{
    struct sim *sim = NULL;

    if (!CHECK_OK(sim_create(cfg, &sim)))
        return NULL;
    if (s)
        sim_set_event_cb(sim, record_event, s);
    return sim;
}

/* Two machines, same configuration, seed and operations: identical events,
 * snapshots and counters. */
static void test_same_seed_same_stream(void)
{
    for (unsigned c = 0; c < NR_CONFIGS; c++) {
        struct sim_config cfg;
        struct stream s1 = {0}, s2 = {0};
        struct workload *w1 = malloc(sizeof(*w1)), *w2 = malloc(sizeof(*w2));
        struct sim *a, *b;
        struct sim_snapshot *x, *y;
        struct sim_report rep;

        config(c, &cfg);
        a = machine(&cfg, &s1);
        b = machine(&cfg, &s2);
        if (!a || !b || !w1 || !w2)
            return;
        wl_init(w1, 42 + c, &cfg);
        wl_init(w2, 42 + c, &cfg);
        wl_run(w1, a, 3000);
        wl_run(w2, b, 3000);
        if (!streams_equal(&s1, &s2))
            printf("  config %u\n", c);
        CHECK_EQ_U(s1.events, sim_event_count(a));
        CHECK_GT_U(s1.events, 3000);
        x = snap_take(a);
        y = snap_take(b);
        CHECK_SNAP_EQ(x, y, SNAPCMP_CLOCK);
        CHECK_EQ_U(sim_validate(a, SIM_VALIDATE_OP, &rep), 0);
        if (c == 2)
            CHECK_GT_U(w1->failed, 0); /* memory ran out, deterministically too */
        sim_snapshot_release(x);
        sim_snapshot_release(y);
        sim_destroy(a);
        sim_destroy(b);
        stream_reset(&s1);
        stream_reset(&s2);
        free(w1);
        free(w2);
    }
}

/* A different seed draws different random freelists, so the stream differs
 * (the check above is not comparing two empty streams) */
static void test_other_seed_other_stream(void)
{
    struct sim_config cfg;
    struct stream s1 = {0}, s2 = {0};
    struct workload *w1 = malloc(sizeof(*w1)), *w2 = malloc(sizeof(*w2));
    struct sim *a, *b;

    config(1, &cfg);
    a = machine(&cfg, &s1);
    cfg.seed++;
    b = machine(&cfg, &s2);
    if (!a || !b || !w1 || !w2)
        return;
    wl_init(w1, 5, &cfg);
    wl_init(w2, 5, &cfg);
    wl_run(w1, a, 300);
    wl_run(w2, b, 300);
    CHECK(s1.n != s2.n || memcmp(s1.p, s2.p, s1.n) != 0);
    sim_destroy(a);
    sim_destroy(b);
    stream_reset(&s1);
    stream_reset(&s2);
    free(w1);
    free(w2);
}

/* Clones taken mid-run go on exactly as their original */
static void test_clone_midrun(void)
{
    static const unsigned gap[] = {0, 3, 40, 500, 1200}; /* operations before each clone */
    unsigned rcu_clones = 0; /* clones taken with RCU callbacks waiting */

    for (unsigned c = 0; c < NR_CONFIGS; c++) {
        struct sim_config cfg;
        struct stream orig = {0};
        struct workload *w = malloc(sizeof(*w)), *wc = malloc(sizeof(*wc));
        struct sim *sim;
        unsigned done = 0; /* operations the original has run */

        config(c, &cfg);
        sim = machine(&cfg, &orig);
        if (!sim || !w || !wc)
            return;
        wl_init(w, 7 * c + 1, &cfg);
        for (unsigned k = 0; k < sizeof(gap) / sizeof(gap[0]); k++) {
            struct stream s_orig = {0}, s_clone = {0};
            struct sim *clone = NULL, *clone2 = NULL;
            struct sim_snapshot *x, *y, *z;

            wl_run(w, sim, gap[k]);
            done += gap[k];
            if (!CHECK_OK(sim_clone(sim, &clone)))
                break;
            x = snap_take(sim);
            y = snap_take(clone);
            CHECK_SNAP_EQ(x, y, SNAPCMP_CLOCK); /* equal at birth */
            rcu_clones += x && x->nr_rcu_callbacks;
            CHECK_EQ_U(sim_event_count(clone), sim_event_count(sim));
            CHECK_EQ_U(sim_op_count(clone), sim_op_count(sim));
            sim_snapshot_release(x);
            sim_snapshot_release(y);

            /* both go on with the same 300 operations */
            *wc = *w;
            sim_set_event_cb(sim, record_event, &s_orig);
            sim_set_event_cb(clone, record_event, &s_clone);
            wl_run(w, sim, 300);
            wl_run(wc, clone, 300);
            done += 300;
            if (!streams_equal(&s_orig, &s_clone))
                printf("  config %u, clone after %u ops\n", c, done - 300);
            x = snap_take(sim);
            y = snap_take(clone);
            CHECK_SNAP_EQ(x, y, SNAPCMP_CLOCK);
            for (int i = 0; i < (int)sim_nr_caches(sim); i++)
                for (unsigned st = 0; st < SIM_NR_STATS; st++)
                    CHECK_EQ_U(sim_stat(clone, i, st, -1), sim_stat(sim, i, st, -1));

            /* a clone of the clone, destroyed before its parent */
            if (CHECK_OK(sim_clone(clone, &clone2))) {
                z = snap_take(clone2);
                CHECK_SNAP_EQ(y, z, SNAPCMP_CLOCK);
                sim_snapshot_release(z);
            }
            sim_destroy(clone2);
            sim_snapshot_release(x);
            sim_snapshot_release(y);
            sim_destroy(clone);
            sim_set_event_cb(sim, NULL, NULL);
            stream_reset(&s_orig);
            stream_reset(&s_clone);
        }
        sim_destroy(sim);
        stream_reset(&orig);
        free(w);
        free(wc);
    }
    CHECK_GT_U(rcu_clones, 0);
}

/* A clone of a machine that touched few pages (or none) behaves as the original */
static void test_clone_small(void)
{
    struct sim_config cfg;
    struct workload *w = malloc(sizeof(*w)), *wc = malloc(sizeof(*wc));
    struct stream s1 = {0}, s2 = {0};
    struct sim *sim, *clone = NULL;
    struct sim_snapshot *x, *y;

    sim_config_default(&cfg);
    cfg.mem_per_node = 1ull << 30; /* a large, untouched arena costs nothing to clone */
    sim = machine(&cfg, NULL);
    if (!sim || !w || !wc)
        return;
    /* an empty machine */
    if (CHECK_OK(sim_clone(sim, &clone))) {
        wl_init(w, 99, &cfg);
        *wc = *w;
        sim_set_event_cb(sim, record_event, &s1);
        sim_set_event_cb(clone, record_event, &s2);
        wl_run(w, sim, 200);
        wl_run(wc, clone, 200);
        streams_equal(&s1, &s2);
        x = snap_take(sim);
        y = snap_take(clone);
        CHECK_SNAP_EQ(x, y, SNAPCMP_CLOCK);
        CHECK_EQ_U(x ? x->zones[0].pages : 0, 262144);
        sim_snapshot_release(x);
        sim_snapshot_release(y);
        sim_destroy(clone);
        clone = NULL;
    }
    stream_reset(&s1);
    stream_reset(&s2);
    /* after those few operations (one max-order block touched) */
    if (CHECK_OK(sim_clone(sim, &clone))) {
        *wc = *w;
        sim_set_event_cb(sim, record_event, &s1);
        sim_set_event_cb(clone, record_event, &s2);
        wl_run(w, sim, 200);
        wl_run(wc, clone, 200);
        streams_equal(&s1, &s2);
        x = snap_take(sim);
        y = snap_take(clone);
        CHECK_SNAP_EQ(x, y, SNAPCMP_CLOCK);
        sim_snapshot_release(x);
        sim_snapshot_release(y);
        sim_destroy(clone);
    }
    sim_destroy(sim);
    stream_reset(&s1);
    stream_reset(&s2);
    free(w);
    free(wc);
}

/* The clone has no callback; what it does is invisible to the original */
static void test_clone_independent(void)
{
    struct sim_config cfg;
    struct workload *w = malloc(sizeof(*w));
    struct stream s = {0};
    struct sim *sim, *clone = NULL;
    struct sim_snapshot *x, *y;
    uint64_t events;

    config(0, &cfg);
    sim = machine(&cfg, &s);
    if (!sim || !w)
        return;
    wl_init(w, 3, &cfg);
    wl_run(w, sim, 400);
    events = s.events;
    x = snap_take(sim);
    if (CHECK_OK(sim_clone(sim, &clone))) {
        struct workload *wc = malloc(sizeof(*wc));

        if (wc) {
            *wc = *w;
            wl_run(wc, clone, 400); /* no callback: nothing is recorded */
            free(wc);
        }
        CHECK_EQ_U(s.events, events);
        CHECK_GT_U(sim_event_count(clone), events);
        y = snap_take(sim);
        CHECK_SNAP_EQ(x, y, SNAPCMP_CLOCK); /* the original did not move */
        sim_snapshot_release(y);
        sim_destroy(clone);
    }
    sim_snapshot_release(x);
    sim_destroy(sim);
    stream_reset(&s);
    free(w);
}

/* Events are numbered the same whether anyone listens or not */
static void test_callback_on_off(void)
{
    for (unsigned c = 0; c < NR_CONFIGS; c++) {
        struct sim_config cfg;
        struct stream s = {0}, s_off = {0};
        struct workload *w1 = malloc(sizeof(*w1)), *w2 = malloc(sizeof(*w2));
        struct sim *on, *off;
        struct sim_snapshot *x, *y;
        struct sim_op op;
        struct sim_result res;
        bool same = true;

        config(c, &cfg);
        on = machine(&cfg, &s);
        off = machine(&cfg, NULL);
        if (!on || !off || !w1 || !w2)
            return;
        wl_init(w1, 11 + c, &cfg);
        wl_init(w2, 11 + c, &cfg);
        for (unsigned i = 0; i < 2000 && same; i++) {
            uint64_t before = sim_event_count(off);

            /* a listener on `off` comes and goes: it must not matter */
            sim_set_event_cb(off, i % 500 >= 250 && i % 500 < 270 ? record_event : NULL, &s_off);
            wl_op(w1, &op);
            CHECK_OK(sim_apply(on, &op, &res));
            wl_result(w1, &op, &res);
            wl_op(w2, &op);
            CHECK_OK(sim_apply(off, &op, &res));
            wl_result(w2, &op, &res);
            if (i % 500 >= 250 && i % 500 < 270)
                CHECK_EQ_U(s_off.events, sim_event_count(off) - before);
            s_off.events = 0;
            same = CHECK_EQ_U(sim_event_count(on), sim_event_count(off));
        }
        CHECK_EQ_U(s.events, sim_event_count(on));
        CHECK_EQ_U(sim_op_count(on), sim_op_count(off));
        x = snap_take(on);
        y = snap_take(off);
        CHECK_SNAP_EQ(x, y, SNAPCMP_CLOCK); /* counters included */
        sim_snapshot_release(x);
        sim_snapshot_release(y);
        sim_destroy(on);
        sim_destroy(off);
        stream_reset(&s);
        stream_reset(&s_off);
        free(w1);
        free(w2);
    }
}

int main(void)
{
    RUN_TEST(test_same_seed_same_stream);
    RUN_TEST(test_other_seed_other_stream);
    RUN_TEST(test_clone_midrun);
    RUN_TEST(test_clone_small);
    RUN_TEST(test_clone_independent);
    RUN_TEST(test_callback_on_off);
    return check_done();
}
