/*
 * event.c: builds each event and hands it to the caller's callback.
 *
 * Every state change of the engine is one event: the kernel function it belongs
 * to, the branch taken (label), the objects, slabs and sheaves it moved, the
 * counters it bumped, and the decisions it shows (branch records, branch.c).
 * The engine keeps no history: an event is built in sim->ev, passed to the
 * callback and forgotten.  With no callback only the sequence number
 * advances, so event numbers are the same whether anyone listens or not,
 * and the fast paths stay cheap.  The operation's result
 * (sim_result_msg: a simulated failure, misuse or crash, in SLUB's words) is
 * written here too, and ev_report_result() repeats it in a report-only event.
 * Calls only host.c.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

static const char *const place_names[SIM_NR_PLACES] = {
    [SIM_PL_NONE] = "none",
    [SIM_PL_USER] = "user",
    [SIM_PL_SLAB] = "slab",
    [SIM_PL_MAIN] = "main",
    [SIM_PL_SPARE] = "spare",
    [SIM_PL_RCU_FREE] = "rcu_free",
    [SIM_PL_BARN_FULL] = "barn_full",
    [SIM_PL_BARN_EMPTY] = "barn_empty",
    [SIM_PL_BARN_PARTIAL] = "barn_partial",
    [SIM_PL_NODE_PARTIAL] = "node_partial",
    [SIM_PL_NODE_FULL] = "node_full",
    [SIM_PL_FULL] = "full",
    [SIM_PL_PAGES] = "pages",
    [SIM_PL_INFLIGHT] = "inflight",
    [SIM_PL_RCU_PENDING] = "rcu_pending",
    [SIM_PL_PREFILL] = "prefill",
    [SIM_PL_CPU_SLAB] = "cpu_slab",
    [SIM_PL_CPU_FREELIST] = "cpu_freelist",
    [SIM_PL_CPU_PARTIAL] = "cpu_partial",
};

const char *sim_place_name(unsigned type)
{
    return name_of(place_names, SIM_NR_PLACES, type);
}

/* The list place a slab is in, for moves and snapshots. */
struct sim_place place_of_slab(const struct slab *slab)
{
    switch (slab->list) {
    case SLAB_ON_PARTIAL:
        return place_node(SIM_PL_NODE_PARTIAL, slab->node);
    case SLAB_ON_FULL:
        return place_node(SIM_PL_NODE_FULL, slab->node);
    case SLAB_ON_PRIVATE:
        return place_node(SIM_PL_INFLIGHT, slab->node);
    case SLAB_ON_RCU:
        return place_node(SIM_PL_RCU_PENDING, slab->node);
    case SLAB_ON_CPU:
    case SLAB_ON_CPU_PARTIAL: {
        struct sim_place p = place_node(
                slab->list == SLAB_ON_CPU ? SIM_PL_CPU_SLAB : SIM_PL_CPU_PARTIAL, slab->node);

        p.cpu = (int16_t)slab->cpu;
        return p;
    }
    default:
        return place_node(SIM_PL_FULL, slab->node);
    }
}

/* Change the branch label of the open event. */
void ev_label(struct sim *sim, const char *label)
{
    sim->ev.label = label;
}

/* Rename the open event: which kernel function and branch an event
 * belongs to is fixed only when it ends, so a step may name it by outcome. */
void ev_rename(struct sim *sim, const char *fn, const char *label)
{
    sim->ev.fn = fn;
    sim->ev.label = label;
}

/* Attach SLUB's report text (a misuse) to the open event. */
void ev_report(struct sim *sim, const char *report)
{
    sim->ev.report = report;
}

/* Record that @id moved from @from to @to in the open event (ev_move()
 * calls this only when someone listens). */
void ev_move_record(struct sim *sim, enum sim_move_kind kind, uint64_t id, struct sim_place from,
        struct sim_place to)
{
    struct event_builder *ev = &sim->ev;

    if (ev->nr_moves == ev->cap_moves) {
        size_t cap = ev->cap_moves ? ev->cap_moves * 2 : 64;

        ev->moves = sim_realloc(sim, ev->moves, cap * sizeof(*ev->moves));
        ev->cap_moves = cap;
    }
    ev->moves[ev->nr_moves].kind = (uint8_t)kind;
    ev->moves[ev->nr_moves].id = id;
    ev->moves[ev->nr_moves].from = from;
    ev->moves[ev->nr_moves].to = to;
    ev->nr_moves++;
}

/* Deliver the open event to the listener and close it (ev_end()). */
void ev_deliver(struct sim *sim)
{
    struct event_builder *ev = &sim->ev;
    struct sim_stat_delta deltas[SIM_NR_STATS];
    struct sim_event e;
    size_t n = 0;

    /* counters in item order: sort the few touched ones */
    for (unsigned i = 1; i < ev->nr_touched; i++) {
        uint8_t v = ev->touched_list[i];
        unsigned j = i;

        for (; j > 0 && ev->touched_list[j - 1] > v; j--)
            ev->touched_list[j] = ev->touched_list[j - 1];
        ev->touched_list[j] = v;
    }
    for (unsigned i = 0; i < ev->nr_touched; i++) {
        unsigned item = ev->touched_list[i];

        deltas[n].item = (uint16_t)item;
        deltas[n].delta = ev->delta[item];
        n++;
        ev->touched[item] = false;
        ev->delta[item] = 0;
    }
    ev->nr_touched = 0;
    e.seq = sim->seq;
    e.op = sim->op;
    e.cpu = sim->cpu;
    e.node = ev->node;
    e.cache = ev->cache;
    e.fn = ev->fn;
    e.label = ev->label;
    e.moves = ev->moves;
    e.nr_moves = ev->nr_moves;
    e.stats = deltas;
    e.nr_stats = n;
    e.report = ev->report;
    e.page = ev->page;
    branch_sort_pending(sim);
    e.branches = ev->branches;
    e.nr_branches = ev->nr_branches;
    e.ctx = sim->race_ctx;
    e.step = sim->race_step;
    sim->race_step = NULL;
    e.choice = sim->choice && sim->choice->pending ? &sim->choice->last : NULL;
    ev->open = false; /* the callback may snapshot or validate */
    sim->seq++;
    sim->event_fn(&e, sim->event_arg);
    ev->nr_branches = 0;
    if (sim->choice)
        sim->choice->pending = false;
}

void sim_set_event_cb(struct sim *sim, sim_event_fn fn, void *arg)
{
    sim->event_fn = fn;
    sim->event_arg = arg;
    memset(sim->ev.delta, 0, sizeof(sim->ev.delta));
    memset(sim->ev.touched, 0, sizeof(sim->ev.touched));
    sim->ev.nr_touched = 0;
}

uint64_t sim_event_count(const struct sim *sim)
{
    return sim->seq;
}

uint64_t sim_op_count(const struct sim *sim)
{
    return sim->op;
}

/* Record a simulated failure or misuse in the current result. */
void sim_result_msg(struct sim *sim, enum sim_status status, const char *fmt, ...)
{
    va_list ap;

    sim->res->status = status;
    va_start(ap, fmt);
    vsnprintf(sim->res->message, sizeof(sim->res->message), fmt, ap);
    va_end(ap);
}

/* Emit a report-only event (no state change) of cache @s (or NULL) carrying
 * the result's message, SLUB's words.  Cannot fail. */
void ev_report_result(struct sim *sim, const struct kmem_cache *s, const char *fn,
                      const char *label)
{
    ev_begin(sim, s, fn, label, -1);
    ev_report(sim, sim->res->message);
    ev_end(sim);
}
