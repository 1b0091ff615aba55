/*
 * session_seek.c: everything a session answers about a position: states,
 * events, counter series, search and steps (see session.h).
 *
 * Every answer starts the same way: copy the nearest checkpoint at or before
 * the position (or take the cursor, when it is nearer) and apply the op log
 * forward with an event callback that looks at what it needs.  A checkpoint
 * lies every ckpt_events events, so an answer replays a bounded number of
 * events at any depth; only search, which may have to look far, scans, and
 * it skips every block the timeline rules out and stops at a budget.
 *
 * The state after N events, when N falls inside an operation, is captured
 * from the callback of event N-1 while sim_apply() runs; the operation is
 * then finished and the machine dropped, and the cursor keeps the copy made
 * before the operation, so the next event of the same operation is again
 * one copy and one operation away.
 */

#include "session/session.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "session/session_internal.h"

/* ---- the state cache ---------------------------------------------------------- */

/* ---- states --------------------------------------------------------------------- */

/* What the callback captures while a seek replays toward position want + 1. */
struct capture {
    const struct sim *m; /* the machine being replayed */
    uint64_t want;       /* seq of the event to capture */
    bool mid;            /* the position is inside an operation: snapshot in the callback */
    const struct session_view *view; /* may be NULL */
    struct sim_snapshot *snap;
    int err;
};

static void capture_state(struct capture *c)
{
    int err;

    if (c->view && c->view->state && !c->err && (err = c->view->state(c->m, c->snap, c->view->arg)))
        c->err = err;
}

static void capture_event(const struct sim_event *ev, void *arg)
{
    struct capture *c = arg;
    int err;

    if (ev->seq != c->want || c->err)
        return;
    if (c->view && c->view->event && (err = c->view->event(ev, c->view->arg))) {
        c->err = err;
        return;
    }
    if (!c->mid)
        return;
    if (sim_snapshot(c->m, &c->snap)) {
        c->err = -ENOMEM;
        return;
    }
    capture_state(c);
}

/* Keep @m, at @p, as the cursor. */
static void session_set_cursor(struct session *s, struct sim *m, const struct session_pos *p)
{
    session_cursor_drop(s->run);
    s->run->cursor.sim = m;
    s->run->cursor.seq = p->seq;
    s->run->cursor.op = p->op;
    s->run->cursor.off = p->off;
    s->run->cursor.bytes = sim_host_bytes(m);
    session_thin(s->run);
}

/* Replay to position @at, showing it to c->view and keeping its snapshot in c->snap. */
static int session_seek(struct session *s, uint64_t at, struct capture *c)
{
    const struct checkpoint *cur = &s->run->cursor;
    struct session_start base;
    struct session_pos p;
    struct sim *m = NULL;
    uint64_t ev;
    int err = 0;

    session_start_before(s->run, at, at > 0, &base);
    if (cur->sim && (at ? cur->seq < at : cur->seq == 0) &&
        (cur->seq > base.p.seq || (cur->seq == base.p.seq && cur->op > base.p.op))) {
        m = s->run->cursor.sim; /* taken: it moves forward with the seek */
        session_ckpt_pos(cur, &p);
        s->run->cursor.sim = NULL;
    } else if ((err = session_start_open(s->run, &base, &m))) {
        return err;
    } else {
        p = base.p;
    }
    c->m = m;
    c->want = at - 1;
    /* the operations before the one that emits event at - 1 */
    while (session_peek_events(s->run, &p, &ev)) {
        if (at == 0 ? ev > 0 : p.seq + ev >= at)
            break;
        if ((err = session_apply_next(s->run, m, &p)))
            goto out_destroy;
    }
    if (at > 0) {
        if (!session_peek_events(s->run, &p, &ev)) {
            err = SESSION_EBROKEN;
            goto out_destroy;
        }
        if (p.seq + ev > at) {
            struct session_pos start = p;
            struct sim *keep;

            if (sim_clone(m, &keep)) {
                err = -ENOMEM;
                goto out_destroy;
            }
            c->mid = true;
            sim_set_event_cb(m, capture_event, c);
            err = session_apply_next(s->run, m, &p);
            session_set_cursor(s, keep, &start);
            goto out_destroy;
        }
        sim_set_event_cb(m, capture_event, c);
        err = session_apply_next(s->run, m, &p);
        sim_set_event_cb(m, NULL, NULL);
        if (err)
            goto out_destroy;
    }
    while (session_peek_events(s->run, &p, &ev) && ev == 0)
        if ((err = session_apply_next(s->run, m, &p)))
            goto out_destroy;
    if (sim_snapshot(m, &c->snap)) {
        err = -ENOMEM;
        goto out_destroy;
    }
    capture_state(c);
    session_set_cursor(s, m, &p);
    return c->err;

out_destroy:
    sim_destroy(m);
    if (!err)
        err = c->err;
    if (!err && !c->snap)
        err = SESSION_EBROKEN;
    return err;
}

int session_visit(struct session *s, uint64_t at, const struct session_view *v,
                  struct sim_snapshot **snap, struct strbuf *err)
{
    struct capture c;
    int ret;

    if (snap)
        *snap = NULL;
    if (at > s->run->log.nr_events) {
        strbuf_printf(err, "at: %" PRIu64 " is beyond the end (%" PRIu64 " events)", at,
                      s->run->log.nr_events);
        return SESSION_EBADINPUT;
    }
    memset(&c, 0, sizeof(c));
    c.view = v;
    ret = session_seek(s, at, &c);
    if (!ret && snap) {
        *snap = c.snap;
        c.snap = NULL;
    }
    sim_snapshot_release(c.snap);
    return ret;
}

/* ---- every position in order ------------------------------------------------------- */

struct walk {
    const struct session_view *v;
    int (*done)(uint64_t at, void *arg);
    const struct sim *m;
    uint64_t op_end; /* the position after the last event of the operation running */
    int err;
};

/* Show the machine as position @at. */
static int walk_show(struct walk *w, uint64_t at)
{
    struct sim_snapshot *snap = NULL;
    int err = 0;

    if (w->v->state) {
        if (sim_snapshot(w->m, &snap))
            return -ENOMEM;
        err = w->v->state(w->m, snap, w->v->arg);
        sim_snapshot_release(snap);
    }
    return err ? err : w->done(at, w->v->arg);
}

/* Every event; a position inside an operation is shown from here, as session_seek() does. */
static void walk_event(const struct sim_event *ev, void *arg)
{
    struct walk *w = arg;

    if (w->err)
        return;
    if (w->v->event && (w->err = w->v->event(ev, w->v->arg)))
        return;
    if (ev->seq + 1 < w->op_end)
        w->err = walk_show(w, ev->seq + 1);
}

int session_walk(struct session *s, const struct session_view *v,
                 int (*done)(uint64_t at, void *arg))
{
    struct walk w = {v, done, NULL, 0, 0};
    struct session_pos p;
    struct sim *m = NULL;
    uint64_t ev;
    int err;

    /* the walk's names read the spans by index */
    if ((err = name_spans_unseal(&s->run->rp.spans)))
        return err;
    if ((err = session_ckpt_copy(session_ckpt_before(s->run, 0, false), &m, &p)))
        goto out_rest;
    w.m = m;
    if (p.seq != 0) {
        err = SESSION_EBROKEN;
        goto out_destroy;
    }
    while (session_peek_events(s->run, &p, &ev) && ev == 0)
        if ((err = session_apply_next(s->run, m, &p)))
            goto out_destroy;
    if ((err = walk_show(&w, 0)))
        goto out_destroy;
    sim_set_event_cb(m, walk_event, &w);
    while (session_peek_events(s->run, &p, &ev)) {
        w.op_end = p.seq + ev;
        if ((err = session_apply_next(s->run, m, &p)) || (err = w.err))
            goto out_destroy;
        while (session_peek_events(s->run, &p, &ev) && ev == 0)
            if ((err = session_apply_next(s->run, m, &p)))
                goto out_destroy;
        if ((err = walk_show(&w, p.seq)))
            goto out_destroy;
    }
out_destroy:
    sim_destroy(m);
out_rest:
    session_rest(s->run);
    return err;
}

int session_snapshot(struct session *s, uint64_t at, struct sim_snapshot **out, struct strbuf *err)
{
    return session_visit(s, at, NULL, out, err);
}

/* ---- ranges: events, series, search ------------------------------------------------- */

static int session_replay_from(struct session *s, uint64_t lo, uint64_t hi, sim_event_fn fn,
                               void *arg, const bool *stop, uint64_t *replayed,
                               void (*begin)(const struct session_start *st, void *arg));

/*
 * Replay from the checkpoint (or stored image) at or before @lo until @hi
 * events are done (or *stop becomes true), with @fn seeing every event.
 */
static int session_replay(struct session *s, uint64_t lo, uint64_t hi, sim_event_fn fn, void *arg,
                          const bool *stop, uint64_t *replayed)
{
    return session_replay_from(s, lo, hi, fn, arg, stop, replayed, NULL);
}

/* The same, calling @begin (when not NULL) with where the replay starts. */
static int session_replay_from(struct session *s, uint64_t lo, uint64_t hi, sim_event_fn fn,
                               void *arg, const bool *stop, uint64_t *replayed,
                               void (*begin)(const struct session_start *st, void *arg))
{
    struct session_start base;
    struct session_pos p;
    struct sim *m;
    int err;

    session_start_before(s->run, lo, false, &base);
    if ((err = session_start_open(s->run, &base, &m)))
        return err;
    p = base.p;
    if (begin)
        begin(&base, arg);
    sim_set_event_cb(m, fn, arg);
    while (!err && p.seq < hi && !(stop && *stop))
        err = session_apply_next(s->run, m, &p);
    if (replayed)
        *replayed += p.seq - base.p.seq;
    sim_destroy(m);
    return err == -ENOENT ? 0 : err;
}

/* Hands @fn only the events of [from, to): a replay starts at a checkpoint before. */
struct range_filter {
    uint64_t from, to;
    sim_event_fn fn;
    void *arg;
};

static void range_event(const struct sim_event *ev, void *arg)
{
    struct range_filter *r = arg;

    if (ev->seq >= r->from && ev->seq < r->to)
        r->fn(ev, r->arg);
}

int session_events(struct session *s, uint64_t *from, uint64_t *to, sim_event_fn fn, void *arg)
{
    struct range_filter r;

    if (*to > s->run->log.nr_events)
        *to = s->run->log.nr_events;
    if (*from > *to)
        *from = *to;
    if (*to - *from > SESSION_MAX_RANGE)
        *to = *from + SESSION_MAX_RANGE;
    r.from = *from;
    r.to = *to;
    r.fn = fn;
    r.arg = arg;
    return *from < *to ? session_replay(s, *from, *to, range_event, &r, NULL, NULL) : 0;
}

int session_caches(struct session *s, uint64_t from, uint64_t to, struct cache_rank *out,
                   struct strbuf *err)
{
    struct sim_snapshot *snap = NULL;
    struct range_filter r = {from, to, cache_rank_event, out};
    int ret;

    if (to > s->run->log.nr_events)
        to = r.to = s->run->log.nr_events;
    if (from > to)
        from = r.from = to;
    ret = from < to ? session_replay(s, from, to, range_event, &r, NULL, NULL) : 0;
    if (!ret)
        ret = session_snapshot(s, to, &snap, err);
    if (!ret)
        ret = cache_rank_finish(out, snap);
    sim_snapshot_release(snap);
    return ret;
}

struct sampler {
    const unsigned *items;
    size_t nr_items;
    uint64_t totals[SIM_NR_STATS];
    const uint64_t *positions;
    size_t nr_positions, next;
    uint64_t *values; /* [nr_items][nr_positions] */
};

static void sampler_record(struct sampler *sm, uint64_t pos)
{
    while (sm->next < sm->nr_positions && sm->positions[sm->next] == pos) {
        for (size_t k = 0; k < sm->nr_items; k++)
            sm->values[k * sm->nr_positions + sm->next] = sm->totals[sm->items[k]];
        sm->next++;
    }
}

/* The replay starts at @st: its totals, and the positions there. */
static void sampler_begin(const struct session_start *st, void *arg)
{
    struct sampler *sm = arg;

    memcpy(sm->totals, st->totals, sizeof(sm->totals));
    sampler_record(sm, st->p.seq);
}

static void sampler_event(const struct sim_event *ev, void *arg)
{
    struct sampler *sm = arg;
    size_t i;

    for (i = 0; i < ev->nr_stats; i++)
        if (ev->stats[i].item < SIM_NR_STATS)
            sm->totals[ev->stats[i].item] += (uint64_t)ev->stats[i].delta;
    sampler_record(sm, ev->seq + 1);
}

/* Candidate @i of a series from samples: 0 (when from is 0), the samples
 * j0..j1-1, then the end (when to is the end and no sample sits there). */
struct sample_range {
    bool zero, end;
    size_t j0, j1;
};

static void sample_candidate(const struct session *s, const struct timeline *tl,
                             const struct sample_range *r, size_t i, uint64_t *pos,
                             const uint64_t **tot)
{
    static const uint64_t zeros[SIM_NR_STATS];

    if (r->zero && i == 0) {
        *pos = 0;
        *tot = zeros;
        return;
    }
    i -= r->zero;
    if (r->j0 + i < r->j1) {
        *pos = (r->j0 + i + 1) * tl->interval;
        *tot = tl->samples[r->j0 + i];
        return;
    }
    *pos = s->run->log.nr_events;
    *tot = tl->totals;
}

/* Positions and values from the timeline's samples; returns how many. */
static size_t series_from_samples(const struct session *s, const struct timeline *tl,
                                  uint64_t from, uint64_t to, unsigned points, uint64_t *pos,
                                  const unsigned *items, size_t nr_items, uint64_t *values,
                                  size_t cap)
{
    struct sample_range r;
    size_t count, n = 0, i, k, step;
    const uint64_t *tot;
    uint64_t p;

    r.zero = from == 0;
    r.j0 = from ? (size_t)((from + tl->interval - 1) / tl->interval - 1) : 0;
    r.j1 = (size_t)(to / tl->interval);
    if (r.j1 > tl->nr_samples)
        r.j1 = tl->nr_samples;
    if (r.j0 > r.j1)
        r.j0 = r.j1;
    r.end = to == s->run->log.nr_events && (r.j1 == 0 || (uint64_t)r.j1 * tl->interval != to);
    count = r.zero + (r.j1 - r.j0) + r.end;
    step = count > points ? (count + points - 1) / points : 1;
    for (i = 0; i < count && n + 1 < cap; i += step) {
        sample_candidate(s, tl, &r, i, &p, &tot);
        pos[n] = p;
        for (k = 0; k < nr_items; k++)
            values[k * cap + n] = tot[items[k]];
        n++;
    }
    if (count && (count - 1) % step) { /* always end with the last candidate */
        sample_candidate(s, tl, &r, count - 1, &p, &tot);
        pos[n] = p;
        for (k = 0; k < nr_items; k++)
            values[k * cap + n] = tot[items[k]];
        n++;
    }
    return n;
}

int session_series(struct session *s, const unsigned *items, size_t nr_items, uint64_t from,
                   uint64_t to, unsigned points, struct session_series *out)
{
    uint64_t *pos = NULL, *values = NULL;
    struct sampler sm;
    const char *source;
    size_t n = 0, cap, i, k;
    int err = -ENOMEM;

    memset(out, 0, sizeof(*out));

    if (to > s->run->log.nr_events)
        to = s->run->log.nr_events;
    if (from > to)
        from = to;
    if (points < 2)
        points = 2;
    if (points > SESSION_MAX_POINTS)
        points = SESSION_MAX_POINTS;
    if (to - from + 1 < points)
        points = (unsigned)(to - from + 1);
    cap = (size_t)points + 2;
    pos = calloc(cap, sizeof(*pos));
    values = calloc(cap * (nr_items ? nr_items : 1), sizeof(*values));
    if (!pos || !values)
        goto out_free;
    if (points > 1 && (to - from) / (points - 1) >= s->run->tl.interval && s->run->tl.interval > 1) {
        struct timeline view;
        const struct timeline *tl;

        source = "samples";
        timeline_init(&view);
        if ((err = timeline_view(&s->run->tl, &view, &tl))) {
            err = err == -ENOMEM ? err : SESSION_EBROKEN;
            goto out_free;
        }
        n = series_from_samples(s, tl, from, to, points, pos, items, nr_items, values, cap);
        timeline_release(&view);
        err = -ENOMEM;
    } else {
        source = "replay";
        for (i = 0; i < points; i++) {
            uint64_t p = points > 1 ? from + (to - from) * i / (points - 1) : from;

            if (!n || pos[n - 1] != p)
                pos[n++] = p;
        }
        memset(&sm, 0, sizeof(sm));
        sm.items = items;
        sm.nr_items = nr_items;
        sm.positions = pos;
        sm.nr_positions = n;
        sm.values = calloc(n * (nr_items ? nr_items : 1), sizeof(*sm.values));
        if (!sm.values)
            goto out_free;
        err = session_replay_from(s, from, to, sampler_event, &sm, NULL, NULL, sampler_begin);
        for (k = 0; !err && k < nr_items; k++)
            memcpy(&values[k * cap], &sm.values[k * n], n * sizeof(*values));
        free(sm.values);
        if (err)
            goto out_free;
        err = -ENOMEM;
    }
    out->from = from;
    out->to = to;
    out->source = source;
    out->interval = s->run->tl.interval;
    out->n = n;
    out->cap = cap;
    out->pos = pos;
    out->values = values;
    return 0;

out_free:
    free(pos);
    free(values);
    return err;
}

void session_series_release(struct session_series *ser)
{
    free(ser->pos);
    free(ser->values);
    memset(ser, 0, sizeof(*ser));
}

struct finder {
    const struct timeline_query *q;
    uint64_t lo, hi; /* seq range searched */
    bool last;       /* keep the last match (prev), else stop at the first */
    bool found;
    uint64_t seq;
    sim_event_fn fn; /* sees each match */
    void *arg;
};

static void finder_event(const struct sim_event *ev, void *arg)
{
    struct finder *f = arg;

    if (ev->seq < f->lo || ev->seq >= f->hi || (f->found && !f->last))
        return;
    if (!timeline_event_matches(ev, f->q))
        return;
    if (f->fn)
        f->fn(ev, f->arg);
    f->found = true;
    f->seq = ev->seq;
}

static int search_result(struct session_found *out, bool found, uint64_t seq, uint64_t scanned_to,
                         bool complete)
{
    out->found = found;
    out->seq = found ? seq : 0;
    out->scanned_to = found ? 0 : scanned_to;
    out->complete = found || complete;
    return 0;
}

int session_search(struct session *s, const struct timeline_query *q, uint64_t from, bool prev,
                   uint64_t budget, sim_event_fn fn, void *arg, struct session_found *out)
{
    uint64_t mask[TIMELINE_PAIRS / 64], end = s->run->log.nr_events, scanned = 0;
    struct finder f;
    size_t b;
    int err;

    memset(&f, 0, sizeof(f));
    f.q = q;
    f.last = prev;
    f.fn = fn;
    f.arg = arg;
    if (from > end)
        from = end;
    if (!timeline_query_mask(&s->run->tl, q, mask))
        return search_result(out, false, 0, prev ? 0 : end, true);
    if (!prev) {
        for (b = (size_t)(from / TIMELINE_BLOCK); (uint64_t)b * TIMELINE_BLOCK < end; b++) {
            uint64_t lo = (uint64_t)b * TIMELINE_BLOCK, hi = lo + TIMELINE_BLOCK;

            if (lo < from)
                lo = from;
            if (hi > end)
                hi = end;
            if (lo >= hi || !timeline_block_may_match(&s->run->tl, b, q, mask))
                continue;
            if (scanned >= budget)
                return search_result(out, false, 0, lo, false);
            f.lo = lo;
            f.hi = hi;
            if ((err = session_replay(s, lo, hi, finder_event, &f, &f.found, &scanned)))
                return err;
            if (f.found)
                return search_result(out, true, f.seq, 0, true);
        }
        return search_result(out, false, 0, end, true);
    }
    /* prev: seq < from - 1, i.e. a position before from */
    if (from < 2)
        return search_result(out, false, 0, 0, true);
    for (b = (size_t)((from - 2) / TIMELINE_BLOCK) + 1; b-- > 0;) {
        uint64_t lo = (uint64_t)b * TIMELINE_BLOCK, hi = lo + TIMELINE_BLOCK;

        if (hi > from - 1)
            hi = from - 1;
        if (lo >= hi || !timeline_block_may_match(&s->run->tl, b, q, mask))
            continue;
        if (scanned >= budget)
            return search_result(out, false, 0, hi, false);
        f.lo = lo;
        f.hi = hi;
        if ((err = session_replay(s, lo, hi, finder_event, &f, NULL, &scanned)))
            return err;
        if (f.found)
            return search_result(out, true, f.seq, 0, true);
    }
    return search_result(out, false, 0, 0, true);
}

/* ---- steps --------------------------------------------------------------------------- */

/* The nearest operation boundary after @at (prev false) or before it. */
static int session_op_boundary(struct session *s, uint64_t at, bool prev, uint64_t *out)
{
    struct session_start base;
    struct session_pos p;
    struct sim_op op;
    uint64_t ev, best;

    if (!prev) {
        session_start_before(s->run, at, false, &base);
        p = base.p;
        while (oplog_next(&s->run->log, &p.off, &op, &ev, NULL) == 0) {
            p.seq += ev;
            if (p.seq > at) {
                *out = p.seq;
                return 0;
            }
        }
        *out = s->run->log.nr_events;
        return 0;
    }
    if (at == 0) {
        *out = 0;
        return 0;
    }
    session_start_before(s->run, at, true, &base);
    p = base.p;
    best = p.seq;
    while (oplog_next(&s->run->log, &p.off, &op, &ev, NULL) == 0) {
        p.seq += ev;
        if (p.seq >= at)
            break;
        best = p.seq;
    }
    *out = best;
    return 0;
}

int session_step(struct session *s, uint64_t at, enum session_step_by by, bool prev, uint64_t count,
                 uint64_t *target)
{
    uint64_t end = s->run->log.nr_events, i;
    int err;

    if (at > end)
        at = end;
    if (by == SESSION_BY_EVENT) {
        if (prev)
            *target = at > count ? at - count : 0;
        else
            *target = count > end - at ? end : at + count;
        return 0;
    }
    for (i = 0; i < count; i++) {
        uint64_t next;

        if ((err = session_op_boundary(s, at, prev, &next)))
            return err;
        if (next == at)
            break;
        at = next;
    }
    *target = at;
    return 0;
}
