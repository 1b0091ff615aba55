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

/* Where the walk is, as "ops[3].ops[1] (iteration 2)". */
static void replay_path(const struct replay *rp, struct strbuf *out)
{
    unsigned d;

    strbuf_printf(out, "%s[%zu]", rp->list, rp->index[0]);
    for (d = 1; d <= rp->depth; d++)
        strbuf_printf(out, ".ops[%zu]", rp->index[d]);
    if (rp->depth == 1)
        strbuf_printf(out, " (iteration %lu)", rp->iter[0]);
    else if (rp->depth > 1) {
        strbuf_puts(out, " (iterations");
        for (d = 0; d < rp->depth; d++)
            strbuf_printf(out, "%s %lu", d ? "," : "", rp->iter[d]);
        strbuf_puts(out, ")");
    }
}

/* Stop the run: "label: path: message" into rp->error; returns @err. */
int replay_fail(struct replay *rp, int err, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    strbuf_reset(&rp->error);
    strbuf_printf(&rp->error, "%s: ", rp->label ? rp->label : rp->scn->label);
    replay_path(rp, &rp->error);
    strbuf_printf(&rp->error, ": %s", msg);
    return err;
}

int replay_warn(struct replay *rp, const char *op, enum sim_status status, const char *msg)
{
    struct replay_warning *w;
    struct strbuf path = STRBUF_INIT;
    size_t len = strlen(msg) + 1;

    rp->nr_warnings_total++;
    if (rp->nr_warnings >= REPLAY_MAX_WARNINGS)
        return 0;
    if (!rp->warnings) {
        rp->warnings = calloc(REPLAY_MAX_WARNINGS, sizeof(*rp->warnings));
        if (!rp->warnings)
            return replay_fail(rp, -ENOMEM, "out of memory");
    }
    replay_path(rp, &path);
    w = &rp->warnings[rp->nr_warnings];
    w->message = malloc(len);
    if (strbuf_failed(&path) || !path.buf || !w->message) {
        free(w->message);
        strbuf_release(&path);
        return replay_fail(rp, -ENOMEM, "out of memory");
    }
    memcpy(w->message, msg, len);
    w->path = path.buf; /* ownership moves from the strbuf */
    w->op = op;
    w->status = status;
    rp->nr_warnings++;
    return 0;
}

/* Expand "{i}" in @tpl to the innermost iteration. */
int replay_name(struct replay *rp, const char *tpl, char *buf, size_t size)
{
    struct strbuf sb = STRBUF_INIT;
    const char *p = tpl, *hole;
    int ret = 0;

    while (rp->depth && (hole = strstr(p, "{i}"))) {
        strbuf_append(&sb, p, (size_t)(hole - p));
        strbuf_printf(&sb, "%lu", rp->iter[rp->depth - 1]);
        p = hole + 3;
    }
    strbuf_puts(&sb, p);
    if (strbuf_failed(&sb))
        ret = replay_fail(rp, -ENOMEM, "out of memory");
    else if (sb.len >= size)
        ret = replay_fail(rp, -EINVAL, "name \"%s\" is too long once expanded", strbuf_str(&sb));
    else
        memcpy(buf, strbuf_str(&sb), sb.len + 1);
    strbuf_release(&sb);
    return ret;
}

/* Resolve the op's "cache" to an id that exists now. */
int replay_cache(struct replay *rp, const struct scenario_op *sop, int *id)
{
    char name[REPLAY_NAME_MAX];
    int err = replay_name(rp, sop->cache, name, sizeof(name));

    if (err)
        return err;
    *id = sim_cache_lookup(rp->sim, name);
    if (*id < 0) {
        const struct names_entry *e = names_get(&rp->aliases, name);

        *id = e ? e->cache : -1;
    }
    if (*id < 0)
        return replay_fail(rp, -EINVAL, "key \"cache\": no cache named \"%s\" exists", name);
    return 0;
}

static int replay_validate(struct replay *rp)
{
    struct sim_report rep;
    unsigned n = sim_validate(rp->sim, SIM_VALIDATE_OP, &rep), i;
    struct strbuf msg = STRBUF_INIT;
    int err;

    if (!n)
        return 0;
    strbuf_printf(&msg, "validation found %u violation%s:", n, n == 1 ? "" : "s");
    for (i = 0; i < n && i < SIM_REPORT_MSGS; i++)
        strbuf_printf(&msg, " [%s]", rep.msg[i]);
    err = replay_fail(rp, -EFAULT, "%s", strbuf_str(&msg));
    strbuf_release(&msg);
    return err;
}

/* One sim_apply(): results other than SIM_OK become warnings. */
int replay_apply(struct replay *rp, const struct scenario_op *sop, const struct sim_op *op,
                 struct sim_result *res)
{
    int err;

    memset(res, 0, sizeof(*res));
    if (sim_op_count(rp->sim) >= rp->op_limit)
        return -ECANCELED;
    err = sim_apply(rp->sim, op, res);
    if (err == -EINVAL)
        return replay_fail(rp, err, "the engine rejected the operation: %s", res->message);
    if (err)
        return replay_fail(rp, err, "the engine failed: %s", strerror(-err));
    if (rp->hook && (err = rp->hook(rp, op, res, rp->hook_arg)))
        return err;
    if (res->status != SIM_OK &&
        (err = replay_warn(rp, scenario_op_name(sop->kind), res->status, res->message)))
        return err;
    return rp->validate ? replay_validate(rp) : 0;
}

void replay_op_init(const struct scenario_op *sop, enum sim_op_kind kind, struct sim_op *op)
{
    memset(op, 0, sizeof(*op));
    op->kind = kind;
    op->cpu = sop->cpu;
    op->node = sop->node;
    op->gfp = sop->gfp;
    op->cache = -1;
    op->order = sop->order;
    op->context = sop->context;
}

/* Evaluate the expects whose "at" is @at. */
static int replay_check(struct replay *rp, const char *at)
{
    struct sim_snapshot *snap = NULL;
    size_t i;
    int err = 0;

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
        if (metric_eval(rp->sim, snap, &e->metric, rp->default_cache, &v)) {
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
