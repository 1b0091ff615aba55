/*
 * replay_race.c: the race operation of a replay (see replay.h and
 * scenario_race.c): the contexts' names resolved to a struct sim_race,
 * one sim_apply(), and the names bound again.
 *
 * A free names an object allocated before the race (looked up now, and
 * forgotten as any free forgets its name) or by an earlier alloc of the
 * same context (the engine hands that object over: sim_race_op.ref).  The
 * allocations' names are bound once the race has run, to what each got.
 */
#include "scenario/replay_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Index of the alloc among the first @n ops of @c named @name, or -1. */
static int ctx_alloc_index(const struct scenario_race_ctx *c, size_t n, const char *name)
{
    for (size_t k = 0; k < n; k++)
        if (c->ops[k].kind == SCENARIO_OP_ALLOC && c->ops[k].name && !strcmp(c->ops[k].name, name))
            return (int)k;
    return -1;
}

int replay_race_build(struct replay *rp, const struct scenario_race *sr, struct sim_race *race)
{
    memset(race, 0, sizeof(*race));
    race->nr_ctx = (unsigned)sr->nr_ctx;
    strcpy(race->schedule, sr->schedule);
    for (size_t i = 0; i < sr->nr_ctx; i++) {
        const struct scenario_race_ctx *c = &sr->ctx[i];
        struct sim_race_ctx *x = &race->ctx[i];

        strcpy(x->id, c->id);
        x->cpu = c->cpu;
        x->kind = c->kind;
        x->nr_ops = (unsigned)c->nr_ops;
        for (size_t k = 0; k < c->nr_ops; k++) {
            const struct scenario_op *o = &c->ops[k];
            struct sim_race_op *ro = &x->ops[k];
            const struct names_entry *e;

            ro->ref = -1;
            ro->kind = o->kind == SCENARIO_OP_ALLOC  ? SIM_OP_ALLOC
                       : o->kind == SCENARIO_OP_FREE ? SIM_OP_FREE
                                                     : SIM_OP_FLUSH_ALL;
            if (o->kind != SCENARIO_OP_FREE)
                continue;
            ro->ref = (int8_t)ctx_alloc_index(c, k, o->name);
            if (ro->ref >= 0)
                continue;
            e = names_get(&rp->names, o->name);
            if (!e || e->bulk)
                return replay_fail(rp, -EINVAL,
                                   "contexts[%zu].ops[%zu]: key \"name\": \"%s\" names no live "
                                   "object",
                                   i, k, o->name);
            ro->addr = e->addr;
        }
    }
    return 0;
}

int replay_race(struct replay *rp, const struct scenario_op *sop, int cache)
{
    struct sim_result res;
    struct sim_race race;
    struct sim_op op;
    int err;

    if ((err = replay_race_build(rp, sop->race, &race)))
        return err;
    replay_op_init(sop, SIM_OP_RACE, &op);
    op.cache = cache;
    op.race = &race;
    if ((err = replay_apply(rp, sop, &op, &res)))
        return err;
    for (size_t i = 0; i < sop->race->nr_ctx; i++) {
        const struct scenario_race_ctx *c = &sop->race->ctx[i];

        for (size_t k = 0; k < c->nr_ops; k++) {
            const struct scenario_op *o = &c->ops[k];

            if (o->kind == SCENARIO_OP_FREE)
                names_remove(&rp->names, o->name);
            else if (o->kind == SCENARIO_OP_ALLOC &&
                     (err = replay_define(rp, o, res.race.addr[i][k], cache)))
                return err;
        }
    }
    return 0;
}

int replay_until_race(struct replay *rp, struct sim_race *race, int *cache, size_t *index)
{
    const struct scenario *scn = rp->scn;
    size_t i;
    int err;

    for (i = 0; i < scn->nr_ops && scn->ops[i].kind != SCENARIO_OP_RACE; i++)
        ;
    if (i == scn->nr_ops)
        return -ENOENT;
    if ((err = replay_more(rp, scn->caches, scn->nr_caches, "caches")) ||
        (err = replay_more(rp, scn->ops, i, "ops")))
        return err;
    rp->index[0] = i;
    if ((err = replay_cache(rp, &scn->ops[i], cache)))
        return err;
    *index = i;
    return replay_race_build(rp, scn->ops[i].race, race);
}
