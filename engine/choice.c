/*
 * choice.c: the kernel's own nondeterminism, as named choices.
 *
 * Where the kernel's outcome depends on something outside SLUB, the engine
 * reaches a choice point: the order of flush_all()'s per-CPU works (the
 * scheduler's), the CPU an unbound kfree_rcu worker runs on (the
 * scheduler's), the get_cycles() draw that lets get_any_partial() and 7.x's
 * get_from_any_partial() / __refill_objects_any() take another node's
 * partial slabs.  Each point has nr_options >= 2 options; option 0 is what
 * the engine does by default (the calling CPU first, the queuing CPU, the
 * seeded draw), so a machine nobody steers runs as it always has.
 *
 * sim_choices_set() steers the next points: the i-th point reached takes
 * script[i] (modulo its options), the later ones 0, or with a sample seed a
 * draw from a generator of their own (the machine's stays untouched, so a
 * steered run draws its freelist shuffles and secrets as the default one).
 * Every point reached is logged (sim_choices_taken()) and rides on the next
 * event (sim_event.choice), with a sentence saying what was chosen.
 * `slublab run --outcomes` and the oracle check walk the tree these points
 * make (docs/engine.md#choice-points).  Calls only host.c and random.c.
 */
#include "internal.h"

#include <inttypes.h>
#include <stdio.h>

static const char *const choice_names[SIM_NR_CHOICES] = {
        [SIM_CHOICE_FLUSH_ORDER] = "flush_order",
        [SIM_CHOICE_RCU_WORKER] = "rcu_worker",
        [SIM_CHOICE_REMOTE_DRAW] = "remote_draw",
};

const char *sim_choice_name(unsigned kind)
{
    return name_of(choice_names, SIM_NR_CHOICES, kind);
}

int sim_choices_set(struct sim *sim, const uint64_t *script, size_t n, uint64_t sample_seed)
{
    struct choice_state *c = sim->choice;
    uint64_t *copy = NULL;

    if (!c && !(c = sim->choice = calloc(1, sizeof(*c))))
        return -ENOMEM;
    if (n) {
        if (!(copy = malloc(n * sizeof(*copy))))
            return -ENOMEM;
        memcpy(copy, script, n * sizeof(*copy));
    }
    free(c->script);
    c->script = copy;
    c->nr_script = n;
    c->sample = sample_seed != 0;
    if (c->sample)
        rng_seed(&c->rng, sample_seed);
    c->reached = 0;
    c->nr_log = 0;
    c->logging = true;
    return 0;
}

const struct sim_choice *sim_choices_taken(const struct sim *sim, size_t *nr)
{
    *nr = sim->choice ? sim->choice->nr_log : 0;
    return sim->choice ? sim->choice->log : NULL;
}

/* Reach a choice point of @kind with @nr_options (>= 2) options: the option
 * taken, 0 being the default.  Its caller fills in the context that
 * sim_choice_text() needs and calls choice_describe().  Host
 * memory exhaustion unwinds. */
uint64_t choice_take(struct sim *sim, enum sim_choice_kind kind, uint64_t nr_options)
{
    struct choice_state *c = sim->choice;
    uint64_t taken = 0;

    SIM_BUG_ON(nr_options < 2);
    if (!c)
        c = sim->choice = sim_zalloc(sim, sizeof(*c));
    if (c->reached < c->nr_script)
        taken = c->script[c->reached] % nr_options;
    else if (c->sample)
        taken = rng_next(&c->rng) % nr_options;
    c->reached++;
    if (!c->counted || c->seen_op != sim->op) {
        memset(c->seen, 0, sizeof(c->seen));
        c->seen_op = sim->op;
        c->counted = true;
    }
    for (size_t i = 0; i < c->nr_pins; i++)
        if (c->pins[i].op == sim->op && c->pins[i].kind == kind && c->pins[i].nth == c->seen[kind])
            taken = c->pins[i].option % nr_options;
    memset(&c->last, 0, sizeof(c->last));
    c->last.op = sim->op;
    c->last.kind = kind;
    c->last.nth = c->seen[kind]++;
    c->last.nr_options = nr_options;
    c->last.taken = taken;
    c->pending = true;
    if (c->logging) {
        if (c->nr_log == c->cap_log) {
            size_t cap = c->cap_log ? c->cap_log * 2 : 16;

            c->log = sim_realloc(sim, c->log, cap * sizeof(*c->log));
            c->cap_log = cap;
        }
        c->log[c->nr_log++] = c->last;
    }
    return taken;
}

/* Free the steering, the pins and the log (sim_destroy). */
void choice_release(struct sim *sim)
{
    if (!sim->choice)
        return;
    free(sim->choice->script);
    free(sim->choice->log);
    free(sim->choice->pins);
    free(sim->choice);
    sim->choice = NULL;
}

int sim_choices_pin(struct sim *sim, const struct sim_choice_pin *pins, size_t n)
{
    struct choice_state *c = sim->choice;
    struct sim_choice_pin *copy = NULL;

    if (!c && !(c = sim->choice = calloc(1, sizeof(*c))))
        return -ENOMEM;
    if (n) {
        if (!(copy = malloc(n * sizeof(*copy))))
            return -ENOMEM;
        memcpy(copy, pins, n * sizeof(*copy));
    }
    free(c->pins);
    c->pins = copy;
    c->nr_pins = n;
    return 0;
}

/* sim_clone(): @dst starts unsteered and with no log, but keeps @src's
 * pins, so a copy taken before a pinned point reaches it pinned.  0 or
 * -ENOMEM. */
int choice_clone(struct sim *dst, const struct sim *src)
{
    const struct choice_state *c = src->choice;

    dst->choice = NULL;
    if (!c || !c->nr_pins)
        return 0;
    if (sim_choices_pin(dst, c->pins, c->nr_pins))
        return -ENOMEM;
    dst->choice->counted = c->counted;
    dst->choice->seen_op = c->seen_op;
    memcpy(dst->choice->seen, c->seen, sizeof(c->seen));
    return 0;
}

/* Put @order's @m CPUs in permutation number @rank of them (lexicographic
 * over the order given): its Lehmer code picks each position's CPU among
 * those left. */
void choice_permute(unsigned *order, unsigned m, uint64_t rank)
{
    for (unsigned i = 0; i < m; i++) {
        uint64_t f = 1;

        for (unsigned j = 2; j < m - i; j++)
            f = f > UINT64_MAX / j ? UINT64_MAX : f * j;
        unsigned pick = i + (unsigned)((rank / f) % (m - i)), cpu = order[pick];

        rank %= f;
        memmove(&order[i + 1], &order[i], (pick - i) * sizeof(*order));
        order[i] = cpu;
    }
}

void sim_choice_text(const struct sim_choice *c, uint64_t option, char *buf, size_t len)
{
    if (!len)
        return;
    switch (c->kind) {
    case SIM_CHOICE_FLUSH_ORDER: {
        unsigned order[SIM_MAX_CPUS], m = c->nr_cpus < SIM_MAX_CPUS ? c->nr_cpus : SIM_MAX_CPUS;
        char cpus[SIM_MAX_CPUS * 4] = "";
        size_t at = 0;

        for (unsigned i = 0; i < m; i++)
            order[i] = c->cpus[i];
        choice_permute(order, m, option);
        for (unsigned i = 0; i < m && at < sizeof(cpus); i++)
            at += (size_t)snprintf(cpus + at, sizeof(cpus) - at, "%s%u", i ? ", " : "", order[i]);
        snprintf(buf, len, "flush_all: CPUs %s: order %" PRIu64 " of %" PRIu64, cpus, option + 1,
                 c->nr_options);
        break;
    }
    case SIM_CHOICE_RCU_WORKER:
        if (c->nr_options == (uint64_t)c->nr_cpus + 1) { /* batches from several CPUs */
            if (!option)
                snprintf(buf, len,
                         "kfree_rcu_work: each batch of this grace period on the CPU that "
                         "queued it: one of %" PRIu64 " choices",
                         c->nr_options);
            else
                snprintf(buf, len,
                         "kfree_rcu_work: one unbound worker on CPU %" PRIu64
                         " for every batch of this grace period: one of %" PRIu64 " choices",
                         option - 1, c->nr_options);
            break;
        }
        snprintf(buf, len,
                 "kfree_rcu_work: the unbound worker on CPU %u, the objects queued on CPU %d: "
                 "one of %u CPUs",
                 c->nr_cpus ? (unsigned)(((uint64_t)c->cpu + option) % c->nr_cpus) : 0, c->cpu,
                 c->nr_cpus);
        break;
    case SIM_CHOICE_REMOTE_DRAW: {
        bool take = option ? !c->verdict : c->verdict;

        snprintf(buf, len,
                 "%s: get_cycles() %% 1024 %s remote_node_defrag_ratio: another node's partial "
                 "slabs %s: one of 2 draws",
                 c->caller ? c->caller : "get_any_partial", take ? "<=" : ">",
                 take ? "searched" : "skipped");
        break;
    }
    default:
        snprintf(buf, len, "%s: option %" PRIu64 " of %" PRIu64,
                 sim_choice_name(c->kind) ? sim_choice_name(c->kind) : "choice", option + 1,
                 c->nr_options);
    }
}

/* The sentence of the choice choice_take() just took, from the context its
 * caller put in the last choice (sim_choice_text()). */
void choice_describe(struct sim *sim)
{
    struct choice_state *c = sim->choice;

    sim_choice_text(&c->last, c->last.taken, c->last.text, sizeof(c->last.text));
    if (c->logging && c->nr_log)
        c->log[c->nr_log - 1] = c->last;
}
