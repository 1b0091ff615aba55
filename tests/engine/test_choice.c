/*
 * test_choice.c: the engine's choice points (choice.c).
 *
 * flush_all()'s order over the CPUs that have something to flush, and the
 * CPU kfree_rcu's unbound worker runs on: unsteered, a machine logs nothing
 * and runs as before; steered with a script, it takes the options asked,
 * logs each point with its sentence and hands it to the next event; the
 * default option (0) gives the unsteered machine's counters.  The
 * validator runs after every event (simtest.h).
 */
#include "simtest.h"

/* The choice the events carried, the first of @kind seen. */
struct seen {
    unsigned kind;
    bool found;
    struct sim_choice c;
    struct tsim *t;
};

static void seen_event(const struct sim_event *ev, void *arg)
{
    struct seen *s = arg;

    tsim_event(ev, s->t);
    if (ev->choice && ev->choice->kind == s->kind && !s->found) {
        s->c = *ev->choice;
        s->found = true;
    }
}

/* 4 CPUs; CPUs 1 and 2 each free one object into their main sheaf; CPU 0
 * flushes every CPU: @script steers the flush, NULL leaves it unsteered. */
static void flush_run(struct tsim *t, const uint64_t *script, size_t n, struct seen *seen)
{
    struct sim_config cfg;
    struct sim_op op = {.kind = SIM_OP_FLUSH_ALL, .cpu = 0, .node = SIM_NUMA_NO_NODE};
    sim_addr_t a, b;
    int c;

    sim_config_default(&cfg);
    cfg.nr_cpus = 4;
    tsim_init(t, &cfg);
    seen->t = t;
    seen->kind = SIM_CHOICE_FLUSH_ORDER;
    sim_set_event_cb(t->sim, seen_event, seen);
    if (script)
        CHECK_EQ_I(sim_choices_set(t->sim, script, n, 0), 0);
    c = tsim_create(t, "a", 256, 0, 4);
    a = tsim_alloc(t, c, 1);
    b = tsim_alloc(t, c, 2);
    tsim_free(t, c, 1, a);
    tsim_free(t, c, 2, b);
    op.cache = c;
    tsim_apply(t, &op, NULL);
}

static void test_flush_order_unsteered(void)
{
    struct tsim t;
    struct seen seen = {0};
    size_t nr = 1;

    flush_run(&t, NULL, 0, &seen);
    sim_choices_taken(t.sim, &nr);
    CHECK_EQ_U(nr, 0); /* nothing logged before sim_choices_set() */
    CHECK(seen.found);
    CHECK_EQ_U(seen.c.taken, 0);
    CHECK_EQ_U(seen.c.nr_options, 2);
    CHECK(strstr(seen.c.text, "flush_all: CPUs 1, 2: order 1 of 2") != NULL);
    CHECK_CLEAN(&t);
    tsim_fini(&t);
}

static void test_flush_order_steered(void)
{
    struct tsim t, d, u;
    struct seen seen = {0}, dseen = {0}, useen = {0};
    const uint64_t other = 1, dflt = 0;
    const struct sim_choice *log;
    size_t nr;

    flush_run(&t, &other, 1, &seen);
    log = sim_choices_taken(t.sim, &nr);
    CHECK_EQ_U(nr, 1);
    CHECK_EQ_U(log[0].kind, SIM_CHOICE_FLUSH_ORDER);
    CHECK_EQ_U(log[0].taken, 1);
    CHECK(strstr(log[0].text, "flush_all: CPUs 2, 1: order 2 of 2") != NULL);
    CHECK(seen.found && seen.c.taken == 1);
    CHECK(!strcmp(sim_choice_name(log[0].kind), "flush_order"));
    CHECK_CLEAN(&t);

    /* the default, asked for, is the unsteered machine, counter by counter */
    flush_run(&d, &dflt, 1, &dseen);
    flush_run(&u, NULL, 0, &useen);
    CHECK_EQ_U(dseen.c.taken, 0);
    for (unsigned item = 0; item < SIM_NR_STATS; item++)
        for (int cpu = 0; cpu < 4; cpu++)
            if (sim_stat(d.sim, 0, item, cpu) != sim_stat(u.sim, 0, item, cpu))
                CHECK_EQ_U(sim_stat(d.sim, 0, item, cpu), sim_stat(u.sim, 0, item, cpu));
    CHECK_CLEAN(&d);
    tsim_fini(&u);
    tsim_fini(&d);
    tsim_fini(&t);
}

/* Two nodes, CPU 0 on node 0, CPU 1 on node 1: kfree_rcu on CPU 0 of an
 * object of node 1 goes to kvfree_call_rcu's batch; the barrier frees it
 * on the worker's CPU. */
static void rcu_run(struct tsim *t, const uint64_t *script, size_t n, struct seen *seen)
{
    struct sim_config cfg;
    struct sim_op op = {.kind = SIM_OP_ALLOC, .cpu = 1, .node = SIM_NUMA_NO_NODE};
    struct sim_result res;
    int c;

    sim_config_default(&cfg);
    cfg.nr_cpus = 2;
    cfg.nr_nodes = 2;
    cfg.cpu_node[0] = 0;
    cfg.cpu_node[1] = 1;
    tsim_init(t, &cfg);
    seen->t = t;
    seen->kind = SIM_CHOICE_RCU_WORKER;
    sim_set_event_cb(t->sim, seen_event, seen);
    CHECK_EQ_I(sim_choices_set(t->sim, script, n, 0), 0);
    c = tsim_create(t, "a", 256, 0, 4);
    op.cache = c;
    tsim_apply(t, &op, &res);
    op = (struct sim_op){.kind = SIM_OP_KFREE_RCU, .cpu = 0, .addr = res.addr,
                         .node = SIM_NUMA_NO_NODE};
    tsim_apply(t, &op, NULL);
    op = (struct sim_op){.kind = SIM_OP_RCU_BARRIER, .cpu = 0, .node = SIM_NUMA_NO_NODE};
    tsim_apply(t, &op, NULL);
}

static void test_rcu_worker(void)
{
    struct tsim t, d;
    struct seen seen = {0}, dseen = {0};
    const uint64_t other = 1;
    unsigned item = (unsigned)sim_stat_lookup("free_slowpath");

    rcu_run(&d, NULL, 0, &dseen);
    CHECK(dseen.found && dseen.c.taken == 0 && dseen.c.nr_options == 2);
    CHECK_EQ_U(sim_stat(d.sim, 0, item, 0), 1); /* the queuing CPU's */
    CHECK_EQ_U(sim_stat(d.sim, 0, item, 1), 0);
    CHECK_CLEAN(&d);

    rcu_run(&t, &other, 1, &seen);
    CHECK(seen.found && seen.c.taken == 1);
    CHECK(strstr(seen.c.text, "the unbound worker on CPU 1, the objects queued on CPU 0") != NULL);
    CHECK_EQ_U(sim_stat(t.sim, 0, item, 0), 0);
    CHECK_EQ_U(sim_stat(t.sim, 0, item, 1), 1);
    CHECK_EQ_U(sim_stat(t.sim, 0, item, -1), sim_stat(d.sim, 0, item, -1));
    CHECK_CLEAN(&t);
    tsim_fini(&t);
    tsim_fini(&d);
}

int main(void)
{
    RUN_TEST(test_flush_order_unsteered);
    RUN_TEST(test_flush_order_steered);
    RUN_TEST(test_rcu_worker);
    return check_done();
}
