/*
 * run_state.c: a scenario run's state at the end of batch 0 as bytes, and
 * back (see run_state.h).
 *
 * The layout, every integer a native uint64_t: a magic; the timeline
 * (timeline_save()) and the op log (oplog_save()), each after its length;
 * the two name tables slot by slot (so the copy probes as the original
 * does); the name spans' arrays as they are (the spans, their text, the
 * map of open spans); the expects; the warnings kept and the count seen;
 * the default cache; the races.  A load reads everything into new
 * objects first and swaps them in only when all of it read back.
 */
#include "session/run_state.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "session/bytes.h"

#define RUN_STATE_MAGIC 0x3152524c42554c53ull /* "SLUBLRR1" */

/* ---- writing ---------------------------------------------------------------------- */

static void put_names(struct strbuf *w, const struct names *nt)
{
    bytes_put_u64(w, nt->cap);
    bytes_put_u64(w, nt->nr);
    for (size_t i = 0; i < nt->cap; i++) {
        const struct names_entry *e = &nt->slots[i];

        if (!e->name)
            continue;
        bytes_put_u64(w, i);
        bytes_put_str(w, e->name);
        bytes_put_u64(w, e->addr);
        bytes_put_u64(w, (uint64_t)(int64_t)e->cache);
        bytes_put_u64(w, e->bulk);
    }
}

int run_state_save(const struct session_run *r, unsigned char **out, size_t *len)
{
    const struct replay *rp = &r->rp;
    struct strbuf w = STRBUF_INIT;
    unsigned char *tl = NULL;
    size_t tl_len = 0, at, i;
    int ret;

    if (rp->spans.sealed)
        return -EINVAL; /* written at the end of a build, before it is sealed */
    if ((ret = timeline_save(&r->tl, &tl, &tl_len)))
        return ret;
    bytes_put_u64(&w, RUN_STATE_MAGIC);
    bytes_put_blob(&w, tl, tl_len);
    free(tl);
    at = w.len;
    bytes_put_u64(&w, 0); /* the log's length, once written */
    if ((ret = oplog_save(&r->log, &w))) {
        strbuf_release(&w);
        return ret;
    }
    if (!strbuf_failed(&w)) {
        uint64_t n = w.len - at - sizeof(n);

        memcpy(w.buf + at, &n, sizeof(n));
    }
    put_names(&w, &rp->names);
    put_names(&w, &rp->aliases);
    bytes_put_u64(&w, rp->spans.nr);
    bytes_put(&w, rp->spans.v, rp->spans.nr * sizeof(*rp->spans.v));
    bytes_put_blob(&w, rp->spans.text, rp->spans.text_len);
    bytes_put_u64(&w, rp->spans.open_cap);
    bytes_put_u64(&w, rp->spans.open_nr);
    bytes_put(&w, rp->spans.open, rp->spans.open_cap * sizeof(*rp->spans.open));
    bytes_put_u64(&w, rp->scn->nr_expects);
    bytes_put(&w, rp->expects, rp->scn->nr_expects * sizeof(*rp->expects));
    bytes_put_u64(&w, rp->nr_warnings);
    bytes_put_u64(&w, rp->nr_warnings_total);
    for (i = 0; i < rp->nr_warnings; i++) {
        bytes_put_str(&w, rp->warnings[i].path);
        bytes_put_str(&w, rp->warnings[i].op);
        bytes_put_u64(&w, rp->warnings[i].status);
        bytes_put_str(&w, rp->warnings[i].message);
    }
    bytes_put_u64(&w, (uint64_t)(int64_t)rp->default_cache);
    bytes_put_u64(&w, r->nr_races);
    bytes_put(&w, r->races, r->nr_races * sizeof(*r->races));
    return strbuf_detach_bytes(&w, out, len);
}

/* ---- reading ---------------------------------------------------------------------- */

/* A malloc()ed copy of @n elements of @size (at least one byte). */
static int get_copy(struct bytes_reader *r, uint64_t n, size_t size, void **out)
{
    const void *src = bytes_get_array(r, n, size);

    *out = NULL;
    if (!src)
        return -EINVAL;
    if (!(*out = malloc(n ? (size_t)n * size : 1)))
        return -ENOMEM;
    memcpy(*out, src, (size_t)n * size);
    return 0;
}

static int get_names(struct bytes_reader *r, struct names *nt)
{
    uint64_t cap = bytes_get_u64(r), nr = bytes_get_u64(r);
    int ret;

    if (r->bad || nr > cap || cap > r->len || (cap & (cap - 1)))
        return -EINVAL;
    if (cap && !(nt->slots = calloc((size_t)cap, sizeof(*nt->slots))))
        return -ENOMEM;
    nt->cap = (size_t)cap;
    for (uint64_t k = 0; k < nr; k++) {
        uint64_t i = bytes_get_u64(r);
        struct names_entry *e;
        char *name;

        if (r->bad || i >= cap || nt->slots[i].name)
            return -EINVAL;
        if ((ret = bytes_get_str(r, &name)))
            return ret;
        if (!name)
            return -EINVAL;
        e = &nt->slots[i];
        e->name = name;
        e->addr = bytes_get_u64(r);
        e->cache = (int)(int64_t)bytes_get_u64(r);
        e->bulk = (unsigned)bytes_get_u64(r);
        nt->nr++;
    }
    return r->bad ? -EINVAL : 0;
}

/* The static name of scenario operation @op (warnings point at them), or NULL. */
static const char *op_name(const char *op)
{
    for (unsigned k = 0; op && k < SCENARIO_NR_OP_KINDS; k++)
        if (!strcmp(scenario_op_name((enum scenario_op_kind)k), op))
            return scenario_op_name((enum scenario_op_kind)k);
    return NULL;
}

/* What a load reads, before it goes into the run. */
struct loaded {
    struct timeline tl;
    struct oplog log;
    struct names names, aliases;
    struct name_spans spans;
    struct replay_expect *expects;
    struct replay_warning *warnings;
    size_t nr_warnings;
    unsigned long nr_warnings_total;
    int default_cache;
    struct session_race *races;
    size_t nr_races;
};

static void loaded_release(struct loaded *l)
{
    timeline_release(&l->tl);
    oplog_release(&l->log);
    names_release(&l->names);
    names_release(&l->aliases);
    name_spans_release(&l->spans);
    free(l->expects);
    for (size_t i = 0; l->warnings && i < l->nr_warnings; i++) {
        free(l->warnings[i].path);
        free(l->warnings[i].message);
    }
    free(l->warnings);
    free(l->races);
}

static int get_spans(struct bytes_reader *r, struct name_spans *ns)
{
    uint64_t n = bytes_get_u64(r);
    const void *text;
    int ret;

    if ((ret = get_copy(r, n, sizeof(*ns->v), (void **)&ns->v)))
        return ret;
    ns->nr = ns->cap = (size_t)n;
    n = bytes_get_u64(r);
    if (!(text = bytes_get_array(r, n, 1)))
        return -EINVAL;
    if (n && !(ns->text = malloc((size_t)n)))
        return -ENOMEM;
    if (n)
        memcpy(ns->text, text, (size_t)n);
    ns->text_len = ns->text_cap = (size_t)n;
    n = bytes_get_u64(r);
    ns->open_nr = (size_t)bytes_get_u64(r);
    if (n && (ret = get_copy(r, n, sizeof(*ns->open), (void **)&ns->open)))
        return ret;
    ns->open_cap = (size_t)n;
    return r->bad || ns->open_nr > ns->open_cap ? -EINVAL : 0;
}

static int get_warnings(struct bytes_reader *r, struct loaded *l)
{
    uint64_t n = bytes_get_u64(r);
    int ret;

    l->nr_warnings_total = (unsigned long)bytes_get_u64(r);
    if (r->bad || n > REPLAY_MAX_WARNINGS)
        return -EINVAL;
    if (n && !(l->warnings = calloc(REPLAY_MAX_WARNINGS, sizeof(*l->warnings))))
        return -ENOMEM;
    for (; l->nr_warnings < n; l->nr_warnings++) {
        struct replay_warning *w = &l->warnings[l->nr_warnings];
        char *op = NULL;

        if ((ret = bytes_get_str(r, &w->path)) || (ret = bytes_get_str(r, &op)))
            return ret;
        w->op = op_name(op);
        free(op);
        w->status = (enum sim_status)bytes_get_u64(r);
        if ((ret = bytes_get_str(r, &w->message)))
            return ret;
        if (!w->op || !w->path || !w->message)
            return -EINVAL;
    }
    return 0;
}

/* Everything after the magic into @l.  0, -EINVAL or -ENOMEM. */
static int run_state_read(struct bytes_reader *r, const struct session_run *run, struct loaded *l)
{
    uint64_t n = bytes_get_u64(r);
    const void *p = bytes_get_array(r, n, 1);
    size_t used = 0;
    int ret;

    if (!p)
        return -EINVAL;
    if ((ret = timeline_load(&l->tl, p, (size_t)n)))
        return ret;
    n = bytes_get_u64(r);
    if (!(p = bytes_get_array(r, n, 1)))
        return -EINVAL;
    if ((ret = oplog_restore(&l->log, p, (size_t)n, &used)))
        return ret;
    if (used != n)
        return -EINVAL;
    if ((ret = get_names(r, &l->names)) || (ret = get_names(r, &l->aliases)) ||
        (ret = get_spans(r, &l->spans)))
        return ret;
    n = bytes_get_u64(r);
    if (n != run->scn->nr_expects)
        return -EINVAL;
    if ((ret = get_copy(r, n, sizeof(*l->expects), (void **)&l->expects)) ||
        (ret = get_warnings(r, l)))
        return ret;
    l->default_cache = (int)(int64_t)bytes_get_u64(r);
    n = bytes_get_u64(r);
    if ((ret = get_copy(r, n, sizeof(*l->races), (void **)&l->races)))
        return ret;
    l->nr_races = (size_t)n;
    return r->bad || r->at != r->len ? -EINVAL : 0;
}

int run_state_load(struct session_run *r, const unsigned char *data, size_t len, uint64_t seq,
                   uint64_t op, size_t off)
{
    struct bytes_reader rd = {data, len, 0, false};
    struct replay *rp = &r->rp;
    struct loaded l;
    int ret;

    memset(&l, 0, sizeof(l));
    timeline_init(&l.tl);
    if (bytes_get_u64(&rd) != RUN_STATE_MAGIC)
        return -EINVAL;
    if (!(ret = run_state_read(&rd, r, &l)) &&
        (l.tl.nr_events != seq || l.log.nr_ops != op || l.log.len != off))
        ret = -EINVAL;
    if (ret) {
        loaded_release(&l);
        return ret;
    }
    /* in: the run's own are empty (nothing ran); each moves over and is
     * taken out of @l, which releases what is left */
    timeline_release(&r->tl);
    r->tl = l.tl;
    timeline_init(&l.tl);
    oplog_release(&r->log);
    r->log = l.log;
    memset(&l.log, 0, sizeof(l.log));
    names_release(&rp->names);
    rp->names = l.names;
    memset(&l.names, 0, sizeof(l.names));
    names_release(&rp->aliases);
    rp->aliases = l.aliases;
    memset(&l.aliases, 0, sizeof(l.aliases));
    name_spans_release(&rp->spans);
    rp->spans = l.spans;
    memset(&l.spans, 0, sizeof(l.spans));
    if (rp->expects && r->scn->nr_expects)
        memcpy(rp->expects, l.expects, r->scn->nr_expects * sizeof(*rp->expects));
    for (size_t i = 0; i < rp->nr_warnings; i++) {
        free(rp->warnings[i].path);
        free(rp->warnings[i].message);
    }
    free(rp->warnings);
    rp->warnings = l.warnings;
    rp->nr_warnings = l.nr_warnings;
    l.warnings = NULL;
    rp->nr_warnings_total = l.nr_warnings_total;
    rp->default_cache = l.default_cache;
    free(r->races);
    r->races = l.races;
    r->nr_races = r->cap_races = l.nr_races;
    l.races = NULL;
    loaded_release(&l);
    return 0;
}
