/*
 * replay_internal.h: what replay.c (the walk over the op list) and
 * replay_objects.c (the operations on named objects) share: the helpers of
 * replay_apply.c, under both.
 *
 * Not a public header.  The helpers all report through rp->error and
 * return the error they were given, so a caller can `return replay_fail()`.
 */
#ifndef SLUBLAB_SERVER_SCENARIO_REPLAY_INTERNAL_H
#define SLUBLAB_SERVER_SCENARIO_REPLAY_INTERNAL_H

#include "scenario/replay.h"

#define REPLAY_NAME_MAX (SCENARIO_MAX_NAME + 64) /* a template with "{i}" expanded */

/* replay_apply.c */

/* Stop the run: "label: path: message" into rp->error; returns @err. */
int replay_fail(struct replay *rp, int err, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* Record a warning for the current op; 0, or -ENOMEM (then the run stops). */
int replay_warn(struct replay *rp, const char *op, enum sim_status status, const char *msg);
/* Expand "{i}" in @tpl into @buf; 0, -EINVAL (too long) or -ENOMEM. */
int replay_name(struct replay *rp, const char *tpl, char *buf, size_t size);
/* Resolve the op's "cache" to an id that exists now; 0 or -EINVAL. */
int replay_cache(struct replay *rp, const struct scenario_op *sop, int *id);
/* A struct sim_op of @kind carrying the op's cpu, node and gfp.  Cannot fail. */
void replay_op_init(const struct scenario_op *sop, enum sim_op_kind kind, struct sim_op *op);
/* One sim_apply(): non-OK results become warnings; errors stop the run. */
int replay_apply(struct replay *rp, const struct scenario_op *sop, const struct sim_op *op,
                 struct sim_result *res);

/* replay_objects.c */

/* free / kfree by address or by name (a bulk name frees every element). */
int replay_free(struct replay *rp, const struct scenario_op *sop);
/* Name what an allocation returned (0 when it failed); no-op without a name. */
int replay_define(struct replay *rp, const struct scenario_op *sop, sim_addr_t addr, int cache);
/* alloc_bulk, naming the objects name[0..n-1]. */
int replay_alloc_bulk(struct replay *rp, const struct scenario_op *sop, int cache);
int replay_write(struct replay *rp, const struct scenario_op *sop);
int replay_kfree_rcu(struct replay *rp, const struct scenario_op *sop);
/* krealloc of a named object; the name then holds what krealloc returned. */
int replay_krealloc(struct replay *rp, const struct scenario_op *sop);
int replay_prefill_op(struct replay *rp, const struct scenario_op *sop, int cache);
int replay_free_bulk(struct replay *rp, const struct scenario_op *sop, int cache);

/* replay_race.c */

/* The engine's race of @sr, names resolved; 0 or -EINVAL (a name not live). */
int replay_race_build(struct replay *rp, const struct scenario_race *sr, struct sim_race *race);
/* A race op: one sim_apply(), then its allocations' names bound. */
int replay_race(struct replay *rp, const struct scenario_op *sop, int cache);

#endif /* SLUBLAB_SERVER_SCENARIO_REPLAY_INTERNAL_H */
