/*
 * replay_apply.c: one scenario operation applied to the machine, and what
 * every operation of a replay shares (see replay_internal.h): the one
 * sim_apply() call with its warnings, validation and hook, errors that
 * name the op as the parser does (`ops[3].ops[1]`, with the iterations),
 * "{i}" names and cache references.
 *
 * Under replay.c (the walk over the op list) and replay_objects.c (the
 * operations on named objects); it calls neither.
 */
#include "scenario/replay_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* What @op handed out ends the names those addresses had (name_spans.h). */
static void replay_handed_out(struct replay *rp, const struct sim_op *op,
                              const struct sim_result *res)
{
    unsigned k;

    switch (op->kind) {
    case SIM_OP_ALLOC:
    case SIM_OP_KMALLOC:
    case SIM_OP_ALLOC_FROM_SHEAF:
    case SIM_OP_ALLOC_PAGES:
        if (res->addr)
            name_spans_reuse(&rp->spans, res->addr, rp->op_from);
        return;
    case SIM_OP_ALLOC_BULK:
        for (k = 0; k < res->count; k++)
            name_spans_reuse(&rp->spans, op->out[k], rp->op_from);
        return;
    default:
        return;
    }
}

/* One sim_apply(): results other than SIM_OK become warnings. */
int replay_apply(struct replay *rp, const struct scenario_op *sop, const struct sim_op *op,
                 struct sim_result *res)
{
    int err;

    /* not the message buffer (2 KiB an operation): a string, cleared as one */
    memset(res, 0, offsetof(struct sim_result, message));
    res->message[0] = '\0';
    memset(&res->race, 0, sizeof(res->race));
    if (sim_op_count(rp->sim) >= rp->op_limit)
        return -ECANCELED;
    rp->op_from = sim_event_count(rp->sim);
    err = sim_apply(rp->sim, op, res);
    if (err == -EINVAL)
        return replay_fail(rp, err, "the engine rejected the operation: %s", res->message);
    if (err)
        return replay_fail(rp, err, "the engine failed: %s", strerror(-err));
    if (rp->keep_spans)
        replay_handed_out(rp, op, res);
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
