/*
 * test_race.c: races (engine/race.c): contexts split into steps and
 * interleaved by a schedule.  The legacy fast path's retry under an
 * interrupt and after a migration, the remote free against deactivate_slab,
 * the sheaves' local_trylock and barn->lock; every step's event carries its
 * step, and the validator runs after every event.  Schedules the engine
 * refuses leave the machine as it was.  NO_TID (not a kernel) loses an
 * update that the validator then catches.
 */
#include <stdlib.h>

#include "internal.h"
#include "simtest.h"

/* What a race's events said: steps, kinds, and the report of each. */
struct steps {
    struct tsim *t;
    unsigned nr, nr_ctx_only, fails, lost;
    char kinds[64][16];
    char ctx[64][8];
    bool validator_event;
};

static void steps_event(const struct sim_event *ev, void *arg)
{
    struct steps *st = arg;

    tsim_event(ev, st->t);
    if (ev->step && st->nr < 64) {
        CHECK(ev->ctx && !strcmp(ev->ctx, ev->step->ctx));
        CHECK_EQ_STR(ev->label, ev->step->kind);
        snprintf(st->kinds[st->nr], sizeof(st->kinds[0]), "%s", ev->step->kind);
        snprintf(st->ctx[st->nr], sizeof(st->ctx[0]), "%s", ev->step->ctx);
        st->nr++;
        if (!strcmp(ev->step->kind, "cmpxchg_fail"))
            st->fails++;
    } else if (ev->ctx) {
        st->nr_ctx_only++;
    }
    if (ev->report && strstr(ev->report, "NO_TID"))
        st->lost += ev->step != NULL;
    if (ev->fn && !strcmp(ev->fn, "validate_slab_cache"))
        st->validator_event = true;
}

static void legacy_cfg(struct sim_config *cfg)
{
    sim_config_default(cfg);
    cfg->model = SIM_MODEL_LEGACY;
    cfg->variant[SIM_VAR_CPU_PARTIAL_DIRECT_LOAD] = SIM_AFTER;
}

static void race_ctx(struct sim_race *r, unsigned i, const char *id, unsigned cpu,
                     enum sim_race_kind kind)
{
    snprintf(r->ctx[i].id, sizeof(r->ctx[i].id), "%s", id);
    r->ctx[i].cpu = cpu;
    r->ctx[i].kind = (uint8_t)kind;
    if (r->nr_ctx < i + 1)
        r->nr_ctx = i + 1;
}

static void race_op(struct sim_race *r, unsigned i, enum sim_op_kind kind, int ref, sim_addr_t addr)
{
    struct sim_race_op *o = &r->ctx[i].ops[r->ctx[i].nr_ops++];

    o->kind = (uint8_t)kind;
    o->ref = (int8_t)ref;
    o->addr = addr;
}

static int apply_race(struct tsim *t, int cache, struct sim_race *r, const char *schedule,
                      struct sim_result *res)
{
    struct sim_op op = {.kind = SIM_OP_RACE, .cache = cache, .node = SIM_NUMA_NO_NODE, .race = r};

    snprintf(r->schedule, sizeof(r->schedule), "%s", schedule);
    return tsim_apply(t, &op, res);
}

/* Race 1: A reads tid and freelist, an interrupt allocates, A's cmpxchg fails and retries. */
static void test_irq_alloc_retry(void)
{
    struct sim_config cfg;
    struct sim_race r = {0};
    struct sim_result res;
    struct steps st = {0};
    struct tsim t;
    int c;

    legacy_cfg(&cfg);
    tsim_init(&t, &cfg);
    c = tsim_create(&t, "c", 64, 0, 0);
    CHECK(tsim_alloc(&t, c, 0) != 0); /* loads the cpu slab */
    race_ctx(&r, 0, "A", 0, SIM_RACE_TASK);
    race_op(&r, 0, SIM_OP_ALLOC, -1, 0);
    race_ctx(&r, 1, "I", 0, SIM_RACE_IRQ);
    race_op(&r, 1, SIM_OP_ALLOC, -1, 0);
    st.t = &t;
    sim_set_event_cb(t.sim, steps_event, &st);
    CHECK_OK(apply_race(&t, c, &r, "A A I* A*", &res));
    CHECK_EQ_U(res.status, SIM_OK);
    CHECK_EQ_U(st.fails, 1);
    CHECK_EQ_U(sim_stat(t.sim, c, SIM_CMPXCHG_DOUBLE_CPU_FAIL, 0), 1);
    CHECK_EQ_U(sim_stat(t.sim, c, SIM_ALLOC_FASTPATH, 0), 2);
    /* I: irq_enter, 4 steps, irq_exit; A: 2 + read_next, cmpxchg_fail + 4 */
    CHECK_EQ_U(st.nr, 14);
    CHECK_EQ_U(res.race.steps, 14);
    CHECK_EQ_STR(st.kinds[2], "irq_enter");
    CHECK_EQ_STR(st.kinds[9], "cmpxchg_fail");
    CHECK_EQ_STR(st.ctx[9], "A");
    CHECK_EQ_STR(st.kinds[13], "cmpxchg");
    CHECK(res.race.addr[0][0] && res.race.addr[1][0] && res.race.addr[0][0] != res.race.addr[1][0]);
    /* the schedule ended with both done; the leftovers ran nothing */
    CHECK(res.race.done_at_end);
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* Without a race in the way the same contexts take no retry. */
static void test_no_interleaving_no_retry(void)
{
    struct sim_config cfg;
    struct sim_race r = {0};
    struct sim_result res;
    struct tsim t;
    int c;

    legacy_cfg(&cfg);
    tsim_init(&t, &cfg);
    c = tsim_create(&t, "c", 64, 0, 0);
    tsim_alloc(&t, c, 0);
    race_ctx(&r, 0, "A", 0, SIM_RACE_TASK);
    race_op(&r, 0, SIM_OP_ALLOC, -1, 0);
    race_ctx(&r, 1, "I", 0, SIM_RACE_IRQ);
    race_op(&r, 1, SIM_OP_ALLOC, -1, 0);
    CHECK_OK(apply_race(&t, c, &r, "", &res)); /* all leftovers: A to its end, then I */
    CHECK_EQ_U(sim_stat(t.sim, c, SIM_CMPXCHG_DOUBLE_CPU_FAIL, -1), 0);
    CHECK_EQ_U(res.race.steps, 4 + 6);
    CHECK(!res.race.done_at_end);
    CHECK_EQ_U(res.race.runnable, 3); /* both could step when the (empty) schedule ended */
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* Refused schedules: -EINVAL naming the token, and nothing changed. */
static void test_refused_schedules(void)
{
    static const struct {
        const char *schedule, *words;
    } cases[] = {
            {"A A I* A* A", "token \"A\": context A has finished"},
            {"I! A", "token \"A\": context A is shut out by the interrupt"},
            {"X", "no context named \"X\""},
            {"I>1", "only a task migrates"},
            {"A>7", "no CPU 7"},
            {"A! ", "not an interrupt"},
    };
    struct sim_config cfg;
    struct sim_race r = {0};
    struct sim_result res;
    struct tsim t;
    int c;

    legacy_cfg(&cfg);
    tsim_init(&t, &cfg);
    c = tsim_create(&t, "c", 64, 0, 0);
    tsim_alloc(&t, c, 0);
    race_ctx(&r, 0, "A", 0, SIM_RACE_TASK);
    race_op(&r, 0, SIM_OP_ALLOC, -1, 0);
    race_ctx(&r, 1, "I", 0, SIM_RACE_IRQ);
    race_op(&r, 1, SIM_OP_ALLOC, -1, 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint64_t events = sim_event_count(t.sim), ops = sim_op_count(t.sim);

        CHECK_EQ_I(apply_race(&t, c, &r, cases[i].schedule, &res), -EINVAL);
        if (!CHECK(strstr(res.message, cases[i].words) != NULL))
            printf("  %s: %s\n", cases[i].schedule, res.message);
        CHECK_EQ_U(sim_event_count(t.sim), events);
        CHECK_EQ_U(sim_op_count(t.sim), ops);
    }
    CHECK_EQ_U(sim_stat(t.sim, c, SIM_ALLOC_FASTPATH, -1), 0);
    /* shapes the engine refuses */
    r.nr_ctx = 1;
    CHECK_EQ_I(apply_race(&t, c, &r, "", &res), -EINVAL);
    r.nr_ctx = 2;
    race_op(&r, 0, SIM_OP_FREE, 0, 0); /* frees its own first alloc: fine */
    CHECK_OK(apply_race(&t, c, &r, "", &res));
    r.ctx[0].ops[1].ref = 1; /* itself: refused */
    CHECK_EQ_I(apply_race(&t, c, &r, "", &res), -EINVAL);
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* Race 2: migrated between the reads and the cmpxchg, the tid of another CPU never matches. */
static void test_migrate(void)
{
    struct sim_config cfg;
    struct sim_race r = {0};
    struct sim_result res;
    struct tsim t;
    int c;

    legacy_cfg(&cfg);
    tsim_init(&t, &cfg);
    c = tsim_create(&t, "c", 64, 0, 0);
    tsim_alloc(&t, c, 0);
    tsim_alloc(&t, c, 1);
    race_ctx(&r, 0, "A", 0, SIM_RACE_TASK);
    race_op(&r, 0, SIM_OP_ALLOC, -1, 0);
    race_ctx(&r, 1, "B", 1, SIM_RACE_TASK);
    race_op(&r, 1, SIM_OP_ALLOC, -1, 0);
    CHECK_OK(apply_race(&t, c, &r, "A A A A>1 A*", &res));
    CHECK_EQ_U(sim_stat(t.sim, c, SIM_CMPXCHG_DOUBLE_CPU_FAIL, 1), 1);
    CHECK_EQ_U(sim_stat(t.sim, c, SIM_ALLOC_FASTPATH, 1), 2); /* A and B */
    /* A's object came from CPU 1's slab */
    CHECK(slab_of(t.sim, res.race.addr[0][0]) == slab_of(t.sim, res.race.addr[1][0]));
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* Race 3: __slab_free on CPU 1 against deactivate_slab on CPU 0, both ways. */
static void test_remote_free(void)
{
    static const struct {
        const char *schedule;
        unsigned fail0, fail1, frozen;
    } cases[] = {
            {"A A B* A*", 1, 0, 1}, /* B frees into the frozen slab; A retries */
            {"B B A* B*", 0, 1, 0}, /* A unfreezes first; B retries */
            {"A* B*", 0, 0, 0},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct sim_config cfg;
        struct sim_race r = {0};
        struct sim_result res;
        struct tsim t;
        sim_addr_t y;
        int c;

        legacy_cfg(&cfg);
        tsim_init(&t, &cfg);
        c = tsim_create(&t, "c", 512, 0, 0);
        tsim_alloc(&t, c, 0);
        y = tsim_alloc(&t, c, 0);
        race_ctx(&r, 0, "A", 0, SIM_RACE_TASK);
        race_op(&r, 0, SIM_OP_FLUSH_ALL, -1, 0);
        race_ctx(&r, 1, "B", 1, SIM_RACE_TASK);
        race_op(&r, 1, SIM_OP_FREE, -1, y);
        CHECK_OK(apply_race(&t, c, &r, cases[i].schedule, &res));
        CHECK_EQ_U(sim_stat(t.sim, c, SIM_CMPXCHG_DOUBLE_FAIL, 0), cases[i].fail0);
        CHECK_EQ_U(sim_stat(t.sim, c, SIM_CMPXCHG_DOUBLE_FAIL, 1), cases[i].fail1);
        CHECK_EQ_U(sim_stat(t.sim, c, SIM_FREE_FROZEN, 1), cases[i].frozen);
        CHECK_EQ_U(sim_stat(t.sim, c, SIM_CPUSLAB_FLUSH, 0), 1);
        CHECK_CLEAN(&t);
        tsim_fini(&t);
    }
}

/* Race 4: the interrupt's local_trylock fails while the task holds pcs->lock. */
static void test_sheaves_trylock(void)
{
    struct sim_config cfg;
    struct sim_race r = {0};
    struct sim_result res;
    struct steps st = {0};
    struct tsim t;
    int c;

    sim_config_default(&cfg);
    cfg.model = SIM_MODEL_SHEAVES;
    tsim_init(&t, &cfg);
    c = tsim_create(&t, "c", 256, 0, 0);
    tsim_alloc(&t, c, 0);
    race_ctx(&r, 0, "A", 0, SIM_RACE_TASK);
    race_op(&r, 0, SIM_OP_ALLOC, -1, 0);
    race_ctx(&r, 1, "I", 0, SIM_RACE_IRQ);
    race_op(&r, 1, SIM_OP_ALLOC, -1, 0);
    st.t = &t;
    sim_set_event_cb(t.sim, steps_event, &st);
    CHECK_OK(apply_race(&t, c, &r, "A I* A*", &res));
    CHECK_EQ_STR(st.kinds[0], "lock");
    CHECK_EQ_STR(st.kinds[2], "trylock_fail");
    CHECK_EQ_STR(st.kinds[5], "unlock");
    CHECK_EQ_STR(st.ctx[5], "A");
    CHECK_EQ_U(sim_stat(t.sim, c, SIM_ALLOC_SLOWPATH, 0), 1);
    CHECK(st.nr_ctx_only > 0); /* the slow path's own events, with ctx */
    /* a task cannot migrate holding pcs->lock */
    CHECK_EQ_I(apply_race(&t, c, &r, "A A>1", &res), -EINVAL);
    CHECK(strstr(res.message, "holds pcs->lock") != NULL);
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

/* NO_TID (not a kernel): the ABA of race 1 hands an object out twice. */
static void test_no_tid(void)
{
    for (int no_tid = 0; no_tid <= 1; no_tid++) {
        struct sim_config cfg;
        struct sim_race r = {0};
        struct sim_result res;
        struct steps st = {0};
        struct sim_report rep;
        struct tsim t;
        int c;

        legacy_cfg(&cfg);
        cfg.race_no_tid = no_tid;
        tsim_init(&t, &cfg);
        c = tsim_create(&t, "c", 64, 0, 0);
        tsim_alloc(&t, c, 0);
        race_ctx(&r, 0, "A", 0, SIM_RACE_TASK);
        race_op(&r, 0, SIM_OP_ALLOC, -1, 0);
        race_ctx(&r, 1, "I", 0, SIM_RACE_IRQ);
        race_op(&r, 1, SIM_OP_ALLOC, -1, 0);
        race_op(&r, 1, SIM_OP_ALLOC, -1, 0);
        race_op(&r, 1, SIM_OP_FREE, 0, 0);
        st.t = &t;
        t.quiet = no_tid; /* the broken machine is checked below, once */
        sim_set_event_cb(t.sim, steps_event, &st);
        CHECK_OK(apply_race(&t, c, &r, "A A A I* A*", &res));
        CHECK_EQ_U(res.race.lost_updates, (unsigned)no_tid);
        CHECK_EQ_U(st.lost, (unsigned)no_tid);
        CHECK_EQ_U(st.fails, (unsigned)!no_tid);
        CHECK_EQ_U(res.status, no_tid ? SIM_MISUSE : SIM_OK);
        CHECK_EQ_U(st.validator_event, no_tid != 0);
        CHECK_EQ_U(sim_validate(t.sim, SIM_VALIDATE_OP, &rep) != 0, no_tid != 0);
        if (no_tid) /* the next allocation hands out what the interrupt's caller holds */
            CHECK_EQ_U(tsim_alloc(&t, c, 0), res.race.addr[1][1]);
        else
            CHECK_CLEAN(&t);
        tsim_fini(&t);
    }
}

/* The same race and schedule give the same events, byte for byte, on a clone. */
static void test_determinism(void)
{
    struct sim_config cfg;
    struct sim_race r = {0};
    struct sim_result a, b;
    struct sim *clone;
    struct tsim t;
    int c;

    legacy_cfg(&cfg);
    tsim_init(&t, &cfg);
    c = tsim_create(&t, "c", 64, 0, 0);
    tsim_alloc(&t, c, 0);
    race_ctx(&r, 0, "A", 0, SIM_RACE_TASK);
    race_op(&r, 0, SIM_OP_ALLOC, -1, 0);
    race_op(&r, 0, SIM_OP_FREE, 0, 0);
    race_ctx(&r, 1, "I", 0, SIM_RACE_IRQ);
    race_op(&r, 1, SIM_OP_ALLOC, -1, 0);
    CHECK_OK(sim_clone(t.sim, &clone));
    CHECK_OK(apply_race(&t, c, &r, "A A I* A A I", &a) == -EINVAL ? 0 : -1);
    CHECK_OK(apply_race(&t, c, &r, "A A I* A A A A A A", &a));
    {
        struct sim_op op = {.kind = SIM_OP_RACE, .cache = c, .node = SIM_NUMA_NO_NODE, .race = &r};

        CHECK_OK(sim_apply(clone, &op, &b));
    }
    CHECK_EQ_U(a.race.steps, b.race.steps);
    CHECK_EQ_U(a.race.addr[0][0], b.race.addr[0][0]);
    CHECK_EQ_U(a.race.addr[1][0], b.race.addr[1][0]);
    CHECK_EQ_U(sim_event_count(clone), sim_event_count(t.sim));
    sim_destroy(clone);
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

int main(void)
{
    RUN_TEST(test_irq_alloc_retry);
    RUN_TEST(test_no_interleaving_no_retry);
    RUN_TEST(test_refused_schedules);
    RUN_TEST(test_migrate);
    RUN_TEST(test_remote_free);
    RUN_TEST(test_sheaves_trylock);
    RUN_TEST(test_no_tid);
    RUN_TEST(test_determinism);
    return check_done();
}
