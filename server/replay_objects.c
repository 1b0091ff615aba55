/*
 * replay_objects.c: the operations of a replay that name objects (see
 * replay.h): allocations that define a name, frees that use one, and bulk
 * allocations whose elements are name[0], name[1], ...
 *
 * A free forgets its name whatever the engine answers, so a scenario that
 * shows a misuse does not also trip over a stale name.  An allocation that
 * failed leaves its name holding NULL, and freeing NULL is a warning, not
 * an operation, as `if (p) kfree(p)` would have it.
 */
#include "replay_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Free one named object (not a bulk entry) and forget the name. */
static int replay_free_one(struct replay *rp, const struct scenario_op *sop, const char *name,
                           int cache)
{
    const struct names_entry *e = names_get(&rp->names, name);
    struct sim_result res;
    struct sim_op op;
    char note[REPLAY_NAME_MAX + 64];

    replay_op_init(sop, sop->kind == SCENARIO_OP_KFREE ? SIM_OP_KFREE : SIM_OP_FREE, &op);
    op.addr = e->addr;
    op.cache = cache >= 0 ? cache : e->cache;
    names_remove(&rp->names, name); /* a free forgets the name, whatever its result */
    if (!op.addr) {
        snprintf(note, sizeof(note), "\"%s\" is NULL (its allocation failed): nothing to free",
                 name);
        return replay_warn(rp, scenario_op_name(sop->kind), SIM_OK, note);
    }
    return replay_apply(rp, sop, &op, &res);
}

int replay_free(struct replay *rp, const struct scenario_op *sop)
{
    char name[REPLAY_NAME_MAX], elem[REPLAY_NAME_MAX + 16];
    const struct names_entry *e;
    struct sim_result res;
    struct sim_op op;
    int cache = -1, err;
    unsigned k, n;

    if (sop->cache && (err = replay_cache(rp, sop, &cache)))
        return err;
    if (sop->has_addr) {
        replay_op_init(sop, sop->kind == SCENARIO_OP_KFREE ? SIM_OP_KFREE : SIM_OP_FREE, &op);
        op.addr = sop->addr;
        op.cache = cache;
        return replay_apply(rp, sop, &op, &res);
    }
    if ((err = replay_name(rp, sop->name, name, sizeof(name))))
        return err;
    e = names_get(&rp->names, name);
    if (!e)
        return replay_fail(rp, -EINVAL, "key \"name\": \"%s\" names no live object", name);
    if (!e->bulk)
        return replay_free_one(rp, sop, name, cache);
    n = e->bulk;
    for (k = 0; k < n; k++) {
        snprintf(elem, sizeof(elem), "%s[%u]", name, k);
        if (names_get(&rp->names, elem) && (err = replay_free_one(rp, sop, elem, cache)))
            return err;
    }
    names_remove(&rp->names, name);
    return 0;
}

/* Name what an allocation returned (0 when it failed). */
int replay_define(struct replay *rp, const struct scenario_op *sop, sim_addr_t addr, int cache)
{
    char name[REPLAY_NAME_MAX];
    int err;

    if (!sop->name)
        return 0;
    if ((err = replay_name(rp, sop->name, name, sizeof(name))))
        return err;
    if (names_set(&rp->names, name, addr, cache, 0))
        return replay_fail(rp, -ENOMEM, "out of memory");
    return 0;
}

int replay_alloc_bulk(struct replay *rp, const struct scenario_op *sop, int cache)
{
    char name[REPLAY_NAME_MAX], elem[REPLAY_NAME_MAX + 16];
    const struct names_entry *old;
    struct sim_result res;
    struct sim_op op;
    unsigned k;
    int err;

    if (!rp->bulk && !(rp->bulk = calloc(SCENARIO_MAX_COUNT, sizeof(*rp->bulk))))
        return replay_fail(rp, -ENOMEM, "out of memory");
    replay_op_init(sop, SIM_OP_ALLOC_BULK, &op);
    op.cache = cache;
    op.count = sop->count;
    op.out = rp->bulk;
    if ((err = replay_apply(rp, sop, &op, &res)) || !sop->name)
        return err;
    if ((err = replay_name(rp, sop->name, name, sizeof(name))))
        return err;
    /* The new bulk replaces the old one under this name, elements included. */
    old = names_get(&rp->names, name);
    for (k = 0; old && k < old->bulk; k++) {
        snprintf(elem, sizeof(elem), "%s[%u]", name, k);
        names_remove(&rp->names, elem);
    }
    for (k = 0; k < res.count && k < sop->count; k++) {
        snprintf(elem, sizeof(elem), "%s[%u]", name, k);
        if (names_set(&rp->names, elem, rp->bulk[k], cache, 0))
            return replay_fail(rp, -ENOMEM, "out of memory");
    }
    if (res.count && names_set(&rp->names, name, 0, cache, res.count))
        return replay_fail(rp, -ENOMEM, "out of memory");
    if (!res.count)
        names_remove(&rp->names, name);
    return 0;
}
