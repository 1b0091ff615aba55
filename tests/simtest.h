/*
 * simtest.h: helpers shared by the engine tests.
 *
 * A test machine runs the validator after every event (level EVENT) and
 * after every operation (level OP) and counts violations, so each test
 * that drives the engine also checks every invariant along the way.
 */
#ifndef SLUBLAB_TESTS_SIMTEST_H
#define SLUBLAB_TESTS_SIMTEST_H

#include <stdio.h>
#include <string.h>

#include "check.h"
#include "slub.h"

struct tsim {
    struct sim *sim;
    unsigned long violations; /* summed over every validation */
    unsigned long events;
    char first[200];          /* first violation message */
    bool quiet;               /* do not validate (benchmarks of behaviour) */
};

static inline void tsim_note(struct tsim *t, const struct sim_report *rep)
{
    if (rep->violations && !t->violations)
        snprintf(t->first, sizeof(t->first), "%s", rep->msg[0]);
    t->violations += rep->violations;
}

static inline void tsim_event(const struct sim_event *ev, void *arg)
{
    struct tsim *t = arg;
    struct sim_report rep;

    (void)ev;
    t->events++;
    if (t->quiet)
        return;
    sim_validate(t->sim, SIM_VALIDATE_EVENT, &rep);
    tsim_note(t, &rep);
}

/* Machine with @cpus CPUs on one node (or cfg when given). */
static inline void tsim_init(struct tsim *t, const struct sim_config *cfg)
{
    struct sim_config c;

    memset(t, 0, sizeof(*t));
    if (!cfg) {
        sim_config_default(&c);
        cfg = &c;
    }
    if (sim_create(cfg, &t->sim)) {
        printf("sim_create failed\n");
        t->sim = NULL;
        return;
    }
    sim_set_event_cb(t->sim, tsim_event, t);
}

static inline void tsim_fini(struct tsim *t)
{
    sim_destroy(t->sim);
    t->sim = NULL;
}

static inline int tsim_apply(struct tsim *t, struct sim_op *op, struct sim_result *res)
{
    struct sim_result local;
    struct sim_report rep;
    int ret = sim_apply(t->sim, op, res ? res : &local);

    if (!t->quiet) {
        sim_validate(t->sim, SIM_VALIDATE_OP, &rep);
        tsim_note(t, &rep);
    }
    return ret;
}

static inline int tsim_create(struct tsim *t, const char *name, unsigned size, uint32_t flags,
        unsigned cap)
{
    struct sim_op op = {.kind = SIM_OP_CREATE, .node = SIM_NUMA_NO_NODE};
    struct sim_result res;

    snprintf(op.create.name, sizeof(op.create.name), "%s", name);
    op.create.object_size = size;
    op.create.flags = flags;
    op.create.sheaf_capacity = cap;
    if (tsim_apply(t, &op, &res))
        return -1;
    return res.cache;
}

static inline sim_addr_t tsim_alloc(struct tsim *t, int cache, unsigned cpu)
{
    struct sim_op op = {.kind = SIM_OP_ALLOC, .cache = cache, .cpu = cpu,
            .node = SIM_NUMA_NO_NODE};
    struct sim_result res;

    if (tsim_apply(t, &op, &res) || res.status != SIM_OK)
        return 0;
    return res.addr;
}

static inline enum sim_status tsim_free(struct tsim *t, int cache, unsigned cpu, sim_addr_t a)
{
    struct sim_op op = {.kind = SIM_OP_FREE, .cache = cache, .cpu = cpu, .addr = a,
            .node = SIM_NUMA_NO_NODE};
    struct sim_result res;

    if (tsim_apply(t, &op, &res))
        return (enum sim_status)-1;
    return res.status;
}

static inline void tsim_simple(struct tsim *t, enum sim_op_kind kind, int cache, unsigned cpu)
{
    struct sim_op op = {.kind = kind, .cache = cache, .cpu = cpu, .node = SIM_NUMA_NO_NODE};

    tsim_apply(t, &op, NULL);
}

static inline uint64_t tsim_stat(struct tsim *t, int cache, const char *name)
{
    return sim_stat(t->sim, cache, (unsigned)sim_stat_lookup(name), -1);
}

/* The plain-data view of cache @cache now (zeroed if the snapshot fails). */
static inline struct sim_snap_cache tsim_snap_cache(struct tsim *t, int cache)
{
    struct sim_snapshot *snap;
    struct sim_snap_cache c;

    memset(&c, 0, sizeof(c));
    if (sim_snapshot(t->sim, &snap))
        return c;
    c = snap->caches[cache];
    sim_snapshot_release(snap);
    return c;
}

#define CHECK_STAT(t, cache, name, want) CHECK_EQ_U(tsim_stat((t), (cache), (name)), (want))
#define CHECK_CLEAN(t)                                                                             \
    do {                                                                                           \
        if (!CHECK_EQ_U((t)->violations, 0))                                                       \
            printf("  first violation: %s\n", (t)->first);                                         \
    } while (0)

/* Events seen, as "fn/label" lines, to find one event or compare sections. */
struct evlog {
    struct tsim *t;
    char text[65536];
    size_t len;
};

static inline void evlog_event(const struct sim_event *ev, void *arg)
{
    struct evlog *l = arg;
    int n = snprintf(l->text + l->len, sizeof(l->text) - l->len, "%s/%s\n", ev->fn, ev->label);

    if (n > 0 && l->len + (size_t)n < sizeof(l->text))
        l->len += (size_t)n;
    tsim_event(ev, l->t);
}

/* From now on, log @t's events into @l (still checked as tsim_event does). */
static inline void log_start(struct evlog *l, struct tsim *t)
{
    l->t = t;
    l->len = 0;
    l->text[0] = 0;
    sim_set_event_cb(t->sim, evlog_event, l);
}

#endif /* SLUBLAB_TESTS_SIMTEST_H */
