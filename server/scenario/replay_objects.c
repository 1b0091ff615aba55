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
#include "scenario/replay_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The engine operation of a free, kfree or free_pages. */
static enum sim_op_kind replay_free_kind(const struct scenario_op *sop)
{
    return sop->kind == SCENARIO_OP_KFREE        ? SIM_OP_KFREE
           : sop->kind == SCENARIO_OP_FREE_PAGES ? SIM_OP_FREE_PAGES
                                                 : SIM_OP_FREE;
}

/* Free one named object (not a bulk entry) and forget the name. */
static int replay_free_one(struct replay *rp, const struct scenario_op *sop, const char *name,
                           int cache)
{
    const struct names_entry *e = names_get(&rp->names, name);
    struct sim_result res;
    struct sim_op op;
    char note[REPLAY_NAME_MAX + 64];

    replay_op_init(sop, replay_free_kind(sop), &op);
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
        replay_op_init(sop, replay_free_kind(sop), &op);
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
/* Give the object at @addr (0: a failed allocation) the name @name. */
static int replay_bind(struct replay *rp, const char *name, sim_addr_t addr, int cache)
{
    if (names_set(&rp->names, name, addr, cache, 0) ||
        (rp->keep_spans && addr && name_spans_bind(&rp->spans, addr, name, rp->op_from)))
        return replay_fail(rp, -ENOMEM, "out of memory");
    return 0;
}

int replay_define(struct replay *rp, const struct scenario_op *sop, sim_addr_t addr, int cache)
{
    char name[REPLAY_NAME_MAX];
    int err;

    if (!sop->name)
        return 0;
    if ((err = replay_name(rp, sop->name, name, sizeof(name))))
        return err;
    return replay_bind(rp, name, addr, cache);
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
        if ((err = replay_bind(rp, elem, rp->bulk[k], cache)))
            return err;
    }
    if (res.count && names_set(&rp->names, name, 0, cache, res.count))
        return replay_fail(rp, -ENOMEM, "out of memory");
    if (!res.count)
        names_remove(&rp->names, name);
    return 0;
}

/* The address a write or kfree_rcu names: "name" (forgotten if @forget) or
 * "addr".  Returns 0 with *addr (0 for a NULL name), or a replay error. */
static int replay_target(struct replay *rp, const struct scenario_op *sop, bool forget,
                         sim_addr_t *addr)
{
    char name[REPLAY_NAME_MAX];
    const struct names_entry *e;
    int err;

    if (sop->has_addr) {
        *addr = sop->addr;
        return 0;
    }
    if ((err = replay_name(rp, sop->name, name, sizeof(name))))
        return err;
    e = names_get(&rp->names, name);
    if (!e || e->bulk)
        return replay_fail(rp, -EINVAL, "key \"name\": \"%s\" names no live object", name);
    *addr = e->addr;
    if (forget)
        names_remove(&rp->names, name);
    return 0;
}

/* @op, of @kind, at the object @sop names (or its addr): ready but for the
 * kind's own fields. */
static int replay_target_op(struct replay *rp, const struct scenario_op *sop, enum sim_op_kind kind,
                            struct sim_op *op)
{
    sim_addr_t addr = 0;
    int err;

    if ((err = replay_target(rp, sop, false, &addr)))
        return err;
    replay_op_init(sop, kind, op);
    op->addr = addr;
    return 0;
}

int replay_write(struct replay *rp, const struct scenario_op *sop)
{
    struct sim_result res;
    struct sim_op op;
    int err;

    if ((err = replay_target_op(rp, sop, SIM_OP_WRITE, &op)))
        return err;
    op.addr += sop->offset;
    op.count = sop->count;
    op.byte = (uint8_t)sop->value;
    return replay_apply(rp, sop, &op, &res);
}

int replay_kfree_rcu(struct replay *rp, const struct scenario_op *sop)
{
    struct sim_result res;
    struct sim_op op;
    sim_addr_t addr = 0;
    int err;

    if ((err = replay_target(rp, sop, true, &addr)))
        return err;
    if (!addr)
        return replay_warn(rp, "kfree_rcu", SIM_OK, "the name is NULL: nothing to free");
    replay_op_init(sop, SIM_OP_KFREE_RCU, &op);
    op.addr = addr;
    return replay_apply(rp, sop, &op, &res);
}

int replay_krealloc(struct replay *rp, const struct scenario_op *sop)
{
    struct sim_result res;
    struct sim_op op;
    int err;

    if ((err = replay_target_op(rp, sop, SIM_OP_KREALLOC, &op)))
        return err;
    op.size = sop->size;
    if ((err = replay_apply(rp, sop, &op, &res)) || res.status != SIM_OK)
        return err;
    return replay_define(rp, sop, res.addr, res.cache);
}

/* Sheaves held by the caller live in the name table under "#name". */
static int sheaf_key(struct replay *rp, const char *tmpl, char *key, size_t len)
{
    key[0] = '#';
    return replay_name(rp, tmpl, key + 1, len - 1);
}

int replay_prefill_op(struct replay *rp, const struct scenario_op *sop, int cache)
{
    char key[REPLAY_NAME_MAX + 1], obj[REPLAY_NAME_MAX];
    const struct names_entry *e = NULL;
    struct sim_result res;
    struct sim_op op;
    int err;

    if (sop->kind != SCENARIO_OP_PREFILL) {
        if ((err = sheaf_key(rp, sop->sheaf, key, sizeof(key))))
            return err;
        e = names_get(&rp->names, key);
        if (!e || !e->addr)
            return replay_fail(rp, -EINVAL, "key \"sheaf\": \"%s\" names no sheaf held",
                               key + 1);
        cache = e->cache;
    }
    replay_op_init(sop,
                   sop->kind == SCENARIO_OP_PREFILL            ? SIM_OP_PREFILL
                   : sop->kind == SCENARIO_OP_ALLOC_FROM_SHEAF ? SIM_OP_ALLOC_FROM_SHEAF
                   : sop->kind == SCENARIO_OP_REFILL_SHEAF     ? SIM_OP_REFILL_SHEAF
                                                               : SIM_OP_RETURN_SHEAF,
                   &op);
    op.cache = cache;
    op.count = sop->count;
    op.sheaf = e ? (uint32_t)e->addr : 0;
    if ((err = replay_apply(rp, sop, &op, &res)))
        return err;
    switch (sop->kind) {
    case SCENARIO_OP_PREFILL:
        if ((err = sheaf_key(rp, sop->name, key, sizeof(key))))
            return err;
        /* a failed prefill leaves the name holding no sheaf */
        if (names_set(&rp->names, key, res.sheaf, cache, 0))
            return replay_fail(rp, -ENOMEM, "out of memory");
        return 0;
    case SCENARIO_OP_ALLOC_FROM_SHEAF:
        if (!sop->name)
            return 0;
        if ((err = replay_name(rp, sop->name, obj, sizeof(obj))))
            return err;
        return replay_bind(rp, obj, res.addr, cache);
    case SCENARIO_OP_REFILL_SHEAF:
        if (res.sheaf && names_set(&rp->names, key, res.sheaf, cache, 0))
            return replay_fail(rp, -ENOMEM, "out of memory");
        return 0;
    default:
        names_remove(&rp->names, key);
        return 0;
    }
}

int replay_free_bulk(struct replay *rp, const struct scenario_op *sop, int cache)
{
    char name[REPLAY_NAME_MAX], elem[REPLAY_NAME_MAX + 16];
    const struct names_entry *e;
    struct sim_result res;
    struct sim_op op;
    unsigned n = 0, k, total;
    int err;

    if (!rp->bulk && !(rp->bulk = calloc(SCENARIO_MAX_COUNT, sizeof(*rp->bulk))))
        return replay_fail(rp, -ENOMEM, "out of memory");
    if ((err = replay_name(rp, sop->name, name, sizeof(name))))
        return err;
    e = names_get(&rp->names, name);
    if (!e)
        return replay_fail(rp, -EINVAL, "key \"name\": \"%s\" names no live object", name);
    if (!e->bulk) {
        if (e->addr)
            rp->bulk[n++] = e->addr;
        names_remove(&rp->names, name);
    } else {
        total = e->bulk;
        for (k = 0; k < total; k++) {
            const struct names_entry *x;

            snprintf(elem, sizeof(elem), "%s[%u]", name, k);
            x = names_get(&rp->names, elem);
            if (x && x->addr)
                rp->bulk[n++] = x->addr;
            names_remove(&rp->names, elem);
        }
        names_remove(&rp->names, name);
    }
    if (!n)
        return replay_warn(rp, "free_bulk", SIM_OK, "no live object under that name");
    replay_op_init(sop, SIM_OP_FREE_BULK, &op);
    op.cache = cache;
    op.count = n;
    op.in = rp->bulk;
    return replay_apply(rp, sop, &op, &res);
}
