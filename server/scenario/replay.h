/*
 * replay.h: running a parsed scenario on an engine machine.
 *
 * A replay owns one machine built from a configuration (the scenario's, as
 * overridden on the command line), applies the caches and then every
 * operation, expanding repeats and "{i}" names, keeps the name table, and
 * evaluates the scenario's expects at their marks and at the end.  It is
 * the one place that turns a scenario into sim_apply() calls, shared by
 * `slublab run`, `slublab compare` and (later) the HTTP server.
 *
 * Outcomes are kept apart as the engine keeps them: SIM_MISUSE and
 * SIM_FAILED results are recorded as warnings and the run goes on; an
 * operation the engine rejects (-EINVAL) or a name that refers to nothing
 * live stops the run with a message naming the op path.
 */
#ifndef SLUBLAB_SERVER_SCENARIO_REPLAY_H
#define SLUBLAB_SERVER_SCENARIO_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slub.h"
#include "scenario/name_spans.h"
#include "scenario/names.h"
#include "scenario/scenario.h"
#include "base/strbuf.h"

#define REPLAY_MAX_WARNINGS 1000 /* kept in full; later ones are only counted */

struct replay_warning {
    char *path;             /* "ops[3].ops[1] (iteration 2)", owned */
    const char *op;         /* op kind name */
    enum sim_status status; /* SIM_MISUSE or SIM_FAILED; SIM_OK for replay notes */
    char *message;          /* the engine's words, owned */
};

enum replay_expect_state {
    REPLAY_NOT_REACHED, /* its mark never ran (or the run stopped) */
    REPLAY_PASS,        /* held every time its mark ran */
    REPLAY_FAIL,        /* failed at least once: value is the first failing one */
    REPLAY_NO_CACHE,    /* the metric's cache did not exist when checked */
};

struct replay_expect {
    enum replay_expect_state state;
    uint64_t value;     /* last value seen, or the first failing one */
    unsigned long hits; /* times the mark ran */
};

struct replay;

/*
 * Called after every operation the engine carried out (sim_apply() returned
 * 0), before the replay looks at the result.  Returns 0, or a negative errno
 * that stops the run (set the reason with replay_fail()).  The HTTP sessions
 * use it to log operations and take checkpoints.
 */
typedef int (*replay_hook_fn)(struct replay *rp, const struct sim_op *op,
                              const struct sim_result *res, void *arg);

/*
 * Called at each mark the walk reaches, with its name ("{i}" expanded), and
 * at the end with "end", before the expects of that mark are evaluated.
 * Returns 0, or a negative errno that stops the run (set the reason with
 * replay_fail()).  The kernel oracle's checker renders the sysfs files there.
 */
typedef int (*replay_mark_fn)(struct replay *rp, const char *mark, void *arg);

#define REPLAY_NO_LIMIT UINT64_MAX

struct replay {
    const struct scenario *scn;
    const char *label;        /* source name in messages; NULL: scn->label */
    struct sim_config config; /* what the machine was built with */
    struct sim *sim;          /* owned */
    bool validate;            /* run sim_validate(OP) after every operation */
    int default_cache;        /* id of the first cache the scenario created, or -1 */
    struct names names;
    struct names aliases; /* create's "aliases": alias name -> entry.cache (sysfs symlinks) */
    /* The names objects had at each position (name_spans.h), kept when
     * keep_spans is set before replay_run(): the sessions show them. */
    bool keep_spans;
    struct name_spans spans;
    uint64_t op_from; /* events before the operation being applied */
    struct replay_expect *expects; /* one per scn->expects */
    struct replay_warning *warnings;
    size_t nr_warnings;              /* kept, <= REPLAY_MAX_WARNINGS */
    unsigned long nr_warnings_total; /* seen, kept or not */
    struct strbuf error;             /* why replay_run() stopped */
    /* walk state, for "{i}" and for messages */
    unsigned depth;                             /* repeats entered */
    unsigned long iter[SCENARIO_MAX_DEPTH + 2]; /* iteration of each entered repeat */
    size_t index[SCENARIO_MAX_DEPTH + 2];       /* op index at each list level */
    const char *list;                           /* "caches" or "ops" */
    sim_addr_t *bulk;                           /* alloc_bulk scratch, SCENARIO_MAX_COUNT */
    /* Stop (-ECANCELED, no message) instead of applying the operation that
     * would make sim_op_count() exceed op_limit; REPLAY_NO_LIMIT by default. */
    uint64_t op_limit;
    replay_hook_fn hook; /* NULL: none */
    void *hook_arg;
    replay_mark_fn mark_hook; /* NULL: none */
    void *mark_arg;
};

/*
 * Build the machine for @scn with @cfg.  Returns 0, or -EINVAL (the engine
 * refused the configuration; message in rp->error) or -ENOMEM.  Either way
 * replay_release() must be called.  Set an event callback on rp->sim before
 * replay_run() to see every event.
 */
int replay_init(struct replay *rp, const struct scenario *scn, const struct sim_config *cfg);
/*
 * Apply caches, then ops, then evaluate the "end" expects.  Returns 0 when
 * the scenario ran to its end (whatever the expects say), -EINVAL when an
 * operation was rejected or a name refers to nothing, -EFAULT when
 * validation found a violation, -ENOMEM; the reason is in rp->error.
 * -ECANCELED when rp->op_limit stopped it, or the hook's error.
 */
int replay_run(struct replay *rp);
/*
 * Apply more operations after replay_run(): the operations a user appends
 * to a session.  @list names them in messages ("ops").  Returns as
 * replay_run(), without evaluating any "end" expects; -ECANCELED when
 * rp->op_limit stopped it.
 */
int replay_more(struct replay *rp, const struct scenario_op *ops, size_t nr, const char *list);
/* Release everything; a zeroed or released replay is fine. */
void replay_release(struct replay *rp);
/* True when every expect passed (none failed, all reached). */
bool replay_expects_ok(const struct replay *rp);
/* "pass", "fail", "not reached", "no such cache". */
const char *replay_expect_state_name(enum replay_expect_state state);
/* "ok", "failed", "misuse". */
const char *replay_status_name(enum sim_status status);
/* The cache reports default to: the first created by the scenario, else 0, else -1. */
int replay_report_cache(const struct replay *rp);
/*
 * Replay the scenario's caches and its top-level ops before the first race
 * op, and make that op's struct sim_race (names resolved, as the replay
 * would): 0 with *@race, *@cache and *@index (the op's index in ops[]),
 * -ENOENT when the scenario has no top-level race, or the replay's error
 * (the reason in rp->error).  For `slublab explore` (replay_race.c).
 */
int replay_until_race(struct replay *rp, struct sim_race *race, int *cache, size_t *index);

#endif /* SLUBLAB_SERVER_SCENARIO_REPLAY_H */
