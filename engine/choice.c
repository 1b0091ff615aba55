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
 * taken, 0 being the default.  choice_note() then says what it means.  Host
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
    memset(&c->last, 0, sizeof(c->last));
    c->last.op = sim->op;
    c->last.kind = kind;
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

/* The sentence of the choice choice_take() just took. */
void choice_note(struct sim *sim, const char *fmt, ...)
{
    struct choice_state *c = sim->choice;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(c->last.text, sizeof(c->last.text), fmt, ap);
    va_end(ap);
    if (c->logging && c->nr_log)
        memcpy(c->log[c->nr_log - 1].text, c->last.text, sizeof(c->last.text));
}

/* Free the steering and the log (sim_destroy; a clone starts unsteered). */
void choice_release(struct sim *sim)
{
    if (!sim->choice)
        return;
    free(sim->choice->script);
    free(sim->choice->log);
    free(sim->choice);
    sim->choice = NULL;
}
