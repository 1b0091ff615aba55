/*
 * outcomes.h: a scenario run under the combinations of the engine's choice
 * points (engine/choice.c): the orders flush_all()'s works may run in, the
 * CPU kfree_rcu's unbound worker may run on, the remote-node draw.
 *
 * The walk is the race lab's explorer (cli/cmd_explore.c) for the kernel's
 * own nondeterminism: each run replays the scenario from the start with a
 * script of options for the choice points it reaches, and the next script
 * is the last run's with its deepest choice that has another option
 * advanced and everything after it back to the default: a depth-first walk
 * over the tree of choices, exhaustive, default run first.  A bound on the
 * number of non-default choices in a run (max_deviations) keeps the tree of
 * a program with many draws small; past max_runs runs the walk stops, and
 * with sample set it starts again as max_runs runs of seeded random
 * choices (the default run first) instead.
 */
#ifndef SLUBLAB_SCENARIO_OUTCOMES_H
#define SLUBLAB_SCENARIO_OUTCOMES_H

#include <stdbool.h>
#include <stdint.h>

#include "scenario/replay.h"

struct outcome_walk {
    uint64_t max_runs;       /* >= 1 */
    unsigned max_deviations; /* non-default choices in one run; UINT32_MAX: any */
    bool sample;             /* past max_runs: a seeded sample instead */
    uint64_t seed;           /* the sample's */
    /* Called before each run with the replay built (set hooks there) and
     * after it with replay_run()'s result and the choices it reached; a
     * nonzero return stops the walk with that value.  @before may be NULL. */
    int (*before)(struct replay *rp, void *arg);
    int (*after)(struct replay *rp, int run_err, const struct sim_choice *choices, size_t nr,
                 void *arg);
    void *arg;
    /* results */
    uint64_t runs;
    bool complete; /* every combination (within max_deviations) was run */
    bool sampled;  /* the runs are the seeded sample */
};

/*
 * Walk @scn's choices on @cfg's machine as @w says (see above).  Returns 0,
 * replay_init()'s error (the reason in @err), or the first nonzero return
 * of a callback.
 */
int outcomes_walk(const struct scenario *scn, const struct sim_config *cfg, struct outcome_walk *w,
                  struct strbuf *err);

/* The non-default choices of @choices ("op 45: flush_all: CPUs 1, 0: order
 * 2 of 2; ..."), or "the defaults", into @out. */
void outcomes_describe(struct strbuf *out, const struct sim_choice *choices, size_t nr);

#endif /* SLUBLAB_SCENARIO_OUTCOMES_H */
