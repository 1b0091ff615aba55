/*
 * replay.c: applying a scenario to a machine (see replay.h).
 *
 * The walk is recursive over repeat bodies; rp->index and rp->iter record
 * where it is, so that "{i}" expands to the innermost iteration and every
 * message can name its op as the parser does (`ops[3].ops[1]`), plus the
 * iterations.  Each operation becomes exactly one sim_apply() call, except
 * a free of a bulk name, which frees the bulk's live elements in index
 * order, one call each.  Expects are evaluated when their mark runs, with
 * one snapshot per mark shared by all the expects that need it.
 */
#include "scenario/replay.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario/replay_internal.h"

const char *replay_expect_state_name(enum replay_expect_state state)
{
    switch (state) {
    case REPLAY_NOT_REACHED:
        return "not reached";
    case REPLAY_PASS:
        return "pass";
    case REPLAY_FAIL:
        return "fail";
    case REPLAY_NO_CACHE:
        return "no such cache";
    }
    return "?";
}

const char *replay_status_name(enum sim_status status)
{
    switch (status) {
    case SIM_OK:
        return "ok";
    case SIM_FAILED:
        return "failed";
    case SIM_MISUSE:
        return "misuse";
    case SIM_CRASHED:
        return "crashed";
    }
    return "?";
}

/* Byte m->item of the live object named m->cache, or at the address
 * m->cache spells ("0x..."); -ENOENT when the name holds no object or the
 * byte is not simulated memory. */
static int replay_object_byte(struct replay *rp, const struct metric *m, uint64_t *out)
{
    const struct names_entry *e = NULL;
    sim_addr_t addr;
    uint8_t b;

    if (!strncmp(m->cache, "0x", 2)) {
        addr = strtoull(m->cache, NULL, 16);
    } else {
        e = names_get(&rp->names, m->cache);
        addr = e && !e->bulk ? e->addr : 0;
    }
    if (!addr || sim_read_bytes(rp->sim, addr + m->item, &b, 1))
        return -ENOENT;
    *out = b;
    return 0;
}

/* Evaluate the expects whose "at" is @at, then call the mark hook. */
static int replay_check(struct replay *rp, const char *at)
{
    struct sim_snapshot *snap = NULL;
    size_t i;
    int err = 0;

    if (rp->mark_hook && (err = rp->mark_hook(rp, at, rp->mark_arg)))
        return err;

    for (i = 0; i < rp->scn->nr_expects; i++) {
        const struct scenario_expect *e = &rp->scn->expects[i];
        struct replay_expect *r = &rp->expects[i];
        uint64_t v;

        if (strcmp(e->at, at) != 0)
            continue;
        if (metric_needs_snapshot(&e->metric) && !snap && sim_snapshot(rp->sim, &snap)) {
            err = replay_fail(rp, -ENOMEM, "out of memory taking a snapshot");
            break;
        }
        r->hits++;
        if (r->state == REPLAY_FAIL || r->state == REPLAY_NO_CACHE)
            continue; /* the first failure is the one reported */
        if (e->metric.kind == METRIC_OBJECT_BYTE
                    ? replay_object_byte(rp, &e->metric, &v)
                    : metric_eval(rp->sim, snap, &e->metric, rp->default_cache, &v)) {
            r->state = REPLAY_NO_CACHE;
            continue;
        }
        r->value = v;
        r->state = scenario_cmp_holds(e->cmp, v, e->value) ? REPLAY_PASS : REPLAY_FAIL;
    }
    sim_snapshot_release(snap);
    return err;
}

static int replay_ops(struct replay *rp, const struct scenario_op *ops, size_t nr);

static int replay_op(struct replay *rp, const struct scenario_op *sop)
{
    char name[REPLAY_NAME_MAX];
    struct sim_result res;
    struct sim_op op;
    int cache = -1, err;
    unsigned long it;

    if (sop->cache && sop->kind != SCENARIO_OP_FREE && (err = replay_cache(rp, sop, &cache)))
        return err;
    switch (sop->kind) {
    case SCENARIO_OP_CREATE:
        replay_op_init(sop, SIM_OP_CREATE, &op);
        op.create = sop->create;
        if ((err = replay_name(rp, sop->name, op.create.name, sizeof(op.create.name))) ||
            (err = replay_apply(rp, sop, &op, &res)))
            return err;
        if (res.status != SIM_OK)
            return 0;
        if (rp->default_cache < 0)
            rp->default_cache = res.cache;
        for (size_t a = 0; a < sop->nr_aliases; a++)
            if ((err = replay_name(rp, sop->aliases[a], name, sizeof(name))) ||
                (err = names_set(&rp->aliases, name, 0, res.cache, 0)))
                return err == -ENOMEM ? replay_fail(rp, err, "out of memory") : err;
        return 0;
    case SCENARIO_OP_ALLOC:
    case SCENARIO_OP_KMALLOC:
        replay_op_init(sop, sop->kind == SCENARIO_OP_ALLOC ? SIM_OP_ALLOC : SIM_OP_KMALLOC, &op);
        op.cache = cache;
        op.size = sop->size;
        if ((err = replay_apply(rp, sop, &op, &res)))
            return err;
        return replay_define(rp, sop, res.status == SIM_OK ? res.addr : 0,
                             sop->kind == SCENARIO_OP_ALLOC ? cache : res.cache);
    case SCENARIO_OP_FREE:
    case SCENARIO_OP_KFREE:
        return replay_free(rp, sop);
    case SCENARIO_OP_ALLOC_BULK:
        return replay_alloc_bulk(rp, sop, cache);
    case SCENARIO_OP_FLUSH_ALL:
    case SCENARIO_OP_SHRINK:
    case SCENARIO_OP_DESTROY:
        replay_op_init(sop,
                       sop->kind == SCENARIO_OP_FLUSH_ALL ? SIM_OP_FLUSH_ALL
                       : sop->kind == SCENARIO_OP_SHRINK  ? SIM_OP_SHRINK
                                                          : SIM_OP_DESTROY,
                       &op);
        op.cache = cache;
        return replay_apply(rp, sop, &op, &res);
    case SCENARIO_OP_WRITE:
        return replay_write(rp, sop);
    case SCENARIO_OP_KFREE_RCU:
        return replay_kfree_rcu(rp, sop);
    case SCENARIO_OP_GRACE_PERIOD:
    case SCENARIO_OP_RCU_BARRIER:
        replay_op_init(sop,
                       sop->kind == SCENARIO_OP_GRACE_PERIOD ? SIM_OP_GRACE_PERIOD
                                                             : SIM_OP_RCU_BARRIER,
                       &op);
        return replay_apply(rp, sop, &op, &res);
    case SCENARIO_OP_PREFILL:
    case SCENARIO_OP_ALLOC_FROM_SHEAF:
    case SCENARIO_OP_REFILL_SHEAF:
    case SCENARIO_OP_RETURN_SHEAF:
        return replay_prefill_op(rp, sop, cache);
    case SCENARIO_OP_FREE_BULK:
        return replay_free_bulk(rp, sop, cache);
    case SCENARIO_OP_MARK:
        if ((err = replay_name(rp, sop->name, name, sizeof(name))))
            return err;
        return replay_check(rp, name);
    case SCENARIO_OP_ALLOC_PAGES:
        replay_op_init(sop, SIM_OP_ALLOC_PAGES, &op);
        if ((err = replay_apply(rp, sop, &op, &res)))
            return err;
        return replay_define(rp, sop, res.status == SIM_OK ? res.addr : 0, -1);
    case SCENARIO_OP_FREE_PAGES:
        return replay_free(rp, sop);
    case SCENARIO_OP_RACE:
        return replay_race(rp, sop, cache);
    case SCENARIO_OP_FLUSH_CPU: /* inside a race only (the parser sees to it) */
        break;
    case SCENARIO_OP_VALIDATE:
        replay_op_init(sop, SIM_OP_VALIDATE, &op);
        op.cache = cache;
        return replay_apply(rp, sop, &op, &res);
    case SCENARIO_OP_KREALLOC:
        return replay_krealloc(rp, sop);
    case SCENARIO_OP_REPEAT:
        rp->depth++;
        for (it = 0, err = 0; it < sop->times && !err; it++) {
            rp->iter[rp->depth - 1] = it;
            err = replay_ops(rp, sop->ops, sop->nr_ops);
        }
        if (!err)
            rp->depth--;
        return err;
    case SCENARIO_NR_OP_KINDS:
        break;
    }
    return replay_fail(rp, -EINVAL, "unknown operation kind");
}

static int replay_ops(struct replay *rp, const struct scenario_op *ops, size_t nr)
{
    size_t i;
    int err;

    for (i = 0; i < nr; i++) {
        rp->index[rp->depth] = i;
        if ((err = replay_op(rp, &ops[i])))
            return err;
    }
    return 0;
}

int replay_init(struct replay *rp, const struct scenario *scn, const struct sim_config *cfg)
{
    struct strbuf err_init = STRBUF_INIT;
    int err;

    memset(rp, 0, sizeof(*rp));
    rp->error = err_init;
    rp->scn = scn;
    rp->config = *cfg;
    rp->default_cache = -1;
    rp->list = "ops";
    rp->op_limit = REPLAY_NO_LIMIT;
    rp->expects = calloc(scn->nr_expects + 1, sizeof(*rp->expects));
    if (!rp->expects)
        return -ENOMEM;
    err = sim_create(cfg, &rp->sim);
    if (err == -EINVAL)
        strbuf_printf(&rp->error, "%s: machine: the engine refused the configuration", scn->label);
    else if (err)
        strbuf_printf(&rp->error, "%s: cannot create the machine: %s", scn->label, strerror(-err));
    if (!err && scn->nr_choices)
        err = sim_choices_pin(rp->sim, scn->choices, scn->nr_choices);
    return err;
}

int replay_run(struct replay *rp)
{
    int err;

    rp->list = "caches";
    if ((err = replay_ops(rp, rp->scn->caches, rp->scn->nr_caches)))
        return err;
    rp->list = "ops";
    if ((err = replay_ops(rp, rp->scn->ops, rp->scn->nr_ops)))
        return err;
    rp->index[0] = rp->scn->nr_ops;
    return replay_check(rp, "end");
}

int replay_more(struct replay *rp, const struct scenario_op *ops, size_t nr, const char *list)
{
    rp->list = list;
    rp->depth = 0;
    return replay_ops(rp, ops, nr);
}

void replay_release(struct replay *rp)
{
    size_t i;

    sim_destroy(rp->sim);
    rp->sim = NULL;
    names_release(&rp->names);
    names_release(&rp->aliases);
    name_spans_release(&rp->spans);
    for (i = 0; i < rp->nr_warnings; i++) {
        free(rp->warnings[i].path);
        free(rp->warnings[i].message);
    }
    free(rp->warnings);
    rp->warnings = NULL;
    rp->nr_warnings = 0;
    free(rp->expects);
    rp->expects = NULL;
    free(rp->bulk);
    rp->bulk = NULL;
    strbuf_release(&rp->error);
}

bool replay_expects_ok(const struct replay *rp)
{
    size_t i;

    for (i = 0; i < rp->scn->nr_expects; i++)
        if (rp->expects[i].state != REPLAY_PASS)
            return false;
    return true;
}

int replay_report_cache(const struct replay *rp)
{
    if (rp->default_cache >= 0)
        return rp->default_cache;
    return rp->sim && sim_nr_caches(rp->sim) ? 0 : -1;
}
