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

#include "present/json_state.h"
#include "session/session_internal.h"

const struct checkpoint *session_ckpt_before(const struct session *s, uint64_t seq, bool strict)
{
    size_t lo = 0, hi = s->nr_ckpts;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        bool before = strict ? s->ckpts[mid].seq < seq : s->ckpts[mid].seq <= seq;

        if (before)
            lo = mid + 1;
        else
            hi = mid;
    }
    return &s->ckpts[lo ? lo - 1 : 0];
}

void session_ckpt_pos(const struct checkpoint *c, struct session_pos *p)
{
    p->seq = c->seq;
    p->op = c->op;
    p->off = c->off;
}

bool session_peek_events(const struct session *s, const struct session_pos *p, uint64_t *events)
{
    struct sim_op op;
    size_t off = p->off;

    return oplog_next(&s->log, &off, &op, events, NULL) == 0;
}

int session_apply_next(struct session *s, struct sim *m, struct session_pos *p)
{
    struct sim_result res;
    struct sim_op op;
    sim_addr_t *bulk = NULL;
    size_t off = p->off;
    uint64_t ev;
    int err;

    err = oplog_next(&s->log, &off, &op, &ev, &s->scratch);
    if (err)
        return err == -ENOENT ? -ENOENT : SESSION_EBROKEN;
    if (op.kind == SIM_OP_ALLOC_BULK) {
        bulk = calloc(op.count ? op.count : 1, sizeof(*bulk));
        if (!bulk)
            return -ENOMEM;
        op.out = bulk;
    }
    err = sim_apply(m, &op, &res);
    free(bulk);
    if (err == -ENOMEM)
        return -ENOMEM;
    if (err || sim_event_count(m) != p->seq + ev)
        return SESSION_EBROKEN;
    p->off = off;
    p->seq += ev;
    p->op++;
    return 0;
}

/* A copy of checkpoint @c, at *p.  0 or -ENOMEM. */
static int session_copy_ckpt(const struct checkpoint *c, struct sim **m, struct session_pos *p)
{
    session_ckpt_pos(c, p);
    return sim_clone(c->sim, m) ? -ENOMEM : 0;
}

/* ---- the state cache ---------------------------------------------------------- */

void session_cache_clear(struct session *s)
{
    unsigned i;

    pthread_mutex_lock(&s->cache_lock);
    for (i = 0; i < SESSION_CACHE; i++) {
        blob_put(s->cache[i].text);
        memset(&s->cache[i], 0, sizeof(s->cache[i]));
    }
    s->cache_bytes = 0;
    pthread_mutex_unlock(&s->cache_lock);
}

uint64_t session_cache_bytes(const struct session *s)
{
    return s->cache_bytes;
}

struct blob *session_state_cached(struct session *s, uint64_t at, sim_addr_t slab)
{
    struct blob *b = NULL;
    unsigned i;

    pthread_mutex_lock(&s->cache_lock);
    for (i = 0; i < SESSION_CACHE; i++) {
        struct session_cached *c = &s->cache[i];

        if (c->text && c->at == at && c->slab == slab) {
            c->used = ++s->cache_clock;
            b = blob_get(c->text);
            break;
        }
    }
    pthread_mutex_unlock(&s->cache_lock);
    return b;
}

static void session_cache_put(struct session *s, uint64_t at, sim_addr_t slab, struct blob *text)
{
    struct session_cached *victim = &s->cache[0];
    unsigned i;

    pthread_mutex_lock(&s->cache_lock);
    for (i = 0; i < SESSION_CACHE; i++) {
        if (!s->cache[i].text) {
            victim = &s->cache[i];
            break;
        }
        if (s->cache[i].used < victim->used)
            victim = &s->cache[i];
    }
    if (victim->text)
        s->cache_bytes -= victim->text->len + sizeof(struct blob);
    blob_put(victim->text);
    victim->at = at;
    victim->slab = slab;
    victim->used = ++s->cache_clock;
    victim->text = blob_get(text);
    s->cache_bytes += text->len + sizeof(struct blob);
    pthread_mutex_unlock(&s->cache_lock);
}

/* ---- states --------------------------------------------------------------------- */

/* What the callback captures while a seek replays toward position want + 1. */
struct capture {
    const struct sim *m; /* the machine being replayed */
    uint64_t want;       /* seq of the event to capture */
    bool mid;            /* the position is inside an operation: snapshot in the callback */
    sim_addr_t slab;     /* 0, or the slab whose bytes to read */
    cJSON *event;
    struct sim_snapshot *snap;
    cJSON *slab_json;
    bool slab_missing;
    int err;
};

static void capture_slab(struct capture *c)
{
    const struct sim_snap_slab *sl;

    if (!c->slab)
        return;
    sl = json_find_slab(c->snap, c->slab);
    if (!sl)
        c->slab_missing = true;
    else if (!(c->slab_json = json_slab_bytes(c->m, c->snap, sl)))
        c->err = -ENOMEM;
}

static void capture_event(const struct sim_event *ev, void *arg)
{
    struct capture *c = arg;

    if (ev->seq != c->want || c->err)
        return;
    if (!(c->event = json_event(ev))) {
        c->err = -ENOMEM;
        return;
    }
    if (!c->mid)
        return;
    if (sim_snapshot(c->m, &c->snap)) {
        c->err = -ENOMEM;
        return;
    }
    capture_slab(c);
}

static void capture_release(struct capture *c)
{
    cJSON_Delete(c->event);
    cJSON_Delete(c->slab_json);
    sim_snapshot_release(c->snap);
}

/* Keep @m, at @p, as the cursor. */
static void session_set_cursor(struct session *s, struct sim *m, const struct session_pos *p)
{
    session_cursor_drop(s);
    s->cursor.sim = m;
    s->cursor.seq = p->seq;
    s->cursor.op = p->op;
    s->cursor.off = p->off;
    s->cursor.bytes = session_sim_bytes(s);
    session_thin(s);
}

/* Replay to position @at, filling @c (event at-1, snapshot, slab bytes). */
static int session_seek(struct session *s, uint64_t at, struct capture *c)
{
    const struct checkpoint *base = session_ckpt_before(s, at, at > 0);
    const struct checkpoint *cur = &s->cursor;
    struct session_pos p;
    struct sim *m = NULL;
    uint64_t ev;
    int err = 0;

    if (cur->sim && (at ? cur->seq < at : cur->seq == 0) &&
        (cur->seq > base->seq || (cur->seq == base->seq && cur->op > base->op))) {
        m = s->cursor.sim; /* taken: it moves forward with the seek */
        session_ckpt_pos(cur, &p);
        s->cursor.sim = NULL;
    } else if ((err = session_copy_ckpt(base, &m, &p))) {
        return err;
    }
    c->m = m;
    c->want = at - 1;
    /* the operations before the one that emits event at - 1 */
    while (session_peek_events(s, &p, &ev)) {
        if (at == 0 ? ev > 0 : p.seq + ev >= at)
            break;
        if ((err = session_apply_next(s, m, &p)))
            goto out_destroy;
    }
    if (at > 0) {
        if (!session_peek_events(s, &p, &ev)) {
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
            err = session_apply_next(s, m, &p);
            session_set_cursor(s, keep, &start);
            goto out_destroy;
        }
        sim_set_event_cb(m, capture_event, c);
        err = session_apply_next(s, m, &p);
        sim_set_event_cb(m, NULL, NULL);
        if (err)
            goto out_destroy;
    }
    while (session_peek_events(s, &p, &ev) && ev == 0)
        if ((err = session_apply_next(s, m, &p)))
            goto out_destroy;
    if (sim_snapshot(m, &c->snap)) {
        err = -ENOMEM;
        goto out_destroy;
    }
    capture_slab(c);
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

int session_state(struct session *s, uint64_t at, sim_addr_t slab, struct blob **out,
                  struct strbuf *err)
{
    struct capture c;
    cJSON *o = NULL;
    char *text = NULL;
    int ret;

    *out = NULL;
    if (at > s->log.nr_events) {
        strbuf_printf(err, "at: %" PRIu64 " is beyond the end (%" PRIu64 " events)", at,
                      s->log.nr_events);
        return SESSION_EBADINPUT;
    }
    if ((*out = session_state_cached(s, at, slab)))
        return 0;
    memset(&c, 0, sizeof(c));
    c.slab = slab;
    ret = session_seek(s, at, &c);
    if (!ret && c.slab_missing) {
        strbuf_printf(err, "bytes: there is no slab 0x%" PRIx64 " at position %" PRIu64, slab, at);
        ret = -ENOENT;
    }
    if (ret)
        goto out_release;
    o = cJSON_CreateObject();
    if (!o || !json_put(o, "at", json_uint(at)) ||
        !json_put(o, "event", c.event ? c.event : cJSON_CreateNull()))
        goto err_nomem;
    c.event = NULL;
    if (!json_put(o, "state", json_snapshot(c.snap)))
        goto err_nomem;
    if (slab) {
        if (!json_put(o, "slab", c.slab_json))
            goto err_nomem;
        c.slab_json = NULL;
    }
    if (!(text = cJSON_PrintUnformatted(o)) || !(*out = blob_new(text, strlen(text))))
        goto err_nomem;
    session_cache_put(s, at, slab, *out);
    goto out_release;

err_nomem:
    ret = -ENOMEM;
out_release:
    cJSON_free(text);
    cJSON_Delete(o);
    capture_release(&c);
    return ret;
}

int session_snapshot(struct session *s, uint64_t at, struct sim_snapshot **out, struct strbuf *err)
{
    struct capture c;
    int ret;

    *out = NULL;
    if (at > s->log.nr_events) {
        strbuf_printf(err, "at: %" PRIu64 " is beyond the end (%" PRIu64 " events)", at,
                      s->log.nr_events);
        return SESSION_EBADINPUT;
    }
    memset(&c, 0, sizeof(c));
    ret = session_seek(s, at, &c);
    if (!ret) {
        *out = c.snap;
        c.snap = NULL;
    }
    capture_release(&c);
    return ret;
}

/* ---- ranges: events, series, search ------------------------------------------------- */

/*
 * Replay from the checkpoint at or before @lo until @hi events are done (or
 * *stop becomes true), with @fn seeing every event.
 */
static int session_replay(struct session *s, uint64_t lo, uint64_t hi, sim_event_fn fn, void *arg,
                          const bool *stop, uint64_t *replayed)
{
    const struct checkpoint *base = session_ckpt_before(s, lo, false);
    struct session_pos p;
    struct sim *m;
    int err;

    if ((err = session_copy_ckpt(base, &m, &p)))
        return err;
    sim_set_event_cb(m, fn, arg);
    while (!err && p.seq < hi && !(stop && *stop))
        err = session_apply_next(s, m, &p);
    if (replayed)
        *replayed += p.seq - base->seq;
    sim_destroy(m);
    return err == -ENOENT ? 0 : err;
}

struct collect {
    uint64_t from, to;
    cJSON *events;
    int err;
};

static void collect_event(const struct sim_event *ev, void *arg)
{
    struct collect *c = arg;

    if (ev->seq < c->from || ev->seq >= c->to || c->err)
        return;
    if (!json_push(c->events, json_event(ev)))
        c->err = -ENOMEM;
}

int session_events(struct session *s, uint64_t from, uint64_t to, cJSON **out)
{
    struct collect c = {from, to, NULL, 0};
    cJSON *o;
    int err;

    if (to > s->log.nr_events)
        to = s->log.nr_events;
    if (from > to)
        from = to;
    if (to - from > SESSION_MAX_RANGE)
        to = from + SESSION_MAX_RANGE;
    c.to = to;
    o = cJSON_CreateObject();
    if (!o || !json_put(o, "from", json_uint(from)) || !json_put(o, "to", json_uint(to)) ||
        !json_put(o, "events", c.events = cJSON_CreateArray())) {
        cJSON_Delete(o);
        return -ENOMEM;
    }
    err = from < to ? session_replay(s, from, to, collect_event, &c, NULL, NULL) : 0;
    if (!err)
        err = c.err;
    if (err) {
        cJSON_Delete(o);
        return err;
    }
    *out = o;
    return 0;
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

static void sample_candidate(const struct session *s, const struct sample_range *r, size_t i,
                             uint64_t *pos, const uint64_t **tot)
{
    static const uint64_t zeros[SIM_NR_STATS];

    if (r->zero && i == 0) {
        *pos = 0;
        *tot = zeros;
        return;
    }
    i -= r->zero;
    if (r->j0 + i < r->j1) {
        *pos = (r->j0 + i + 1) * s->tl.interval;
        *tot = s->tl.samples[r->j0 + i];
        return;
    }
    *pos = s->log.nr_events;
    *tot = s->tl.totals;
}

/* Positions and values from the timeline's samples; returns how many. */
static size_t series_from_samples(const struct session *s, uint64_t from, uint64_t to,
                                  unsigned points, uint64_t *pos, const unsigned *items,
                                  size_t nr_items, uint64_t *values, size_t cap)
{
    const struct timeline *tl = &s->tl;
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
    r.end = to == s->log.nr_events && (r.j1 == 0 || (uint64_t)r.j1 * tl->interval != to);
    count = r.zero + (r.j1 - r.j0) + r.end;
    step = count > points ? (count + points - 1) / points : 1;
    for (i = 0; i < count && n + 1 < cap; i += step) {
        sample_candidate(s, &r, i, &p, &tot);
        pos[n] = p;
        for (k = 0; k < nr_items; k++)
            values[k * cap + n] = tot[items[k]];
        n++;
    }
    if (count && (count - 1) % step) { /* always end with the last candidate */
        sample_candidate(s, &r, count - 1, &p, &tot);
        pos[n] = p;
        for (k = 0; k < nr_items; k++)
            values[k * cap + n] = tot[items[k]];
        n++;
    }
    return n;
}

int session_series(struct session *s, const unsigned *items, size_t nr_items, uint64_t from,
                   uint64_t to, unsigned points, cJSON **out)
{
    uint64_t *pos = NULL, *values = NULL;
    struct sampler sm;
    const char *source;
    cJSON *o = NULL, *parr = NULL, *series = NULL;
    size_t n = 0, cap, i, k;
    int err = -ENOMEM;

    if (to > s->log.nr_events)
        to = s->log.nr_events;
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
    if (points > 1 && (to - from) / (points - 1) >= s->tl.interval && s->tl.interval > 1) {
        source = "samples";
        n = series_from_samples(s, from, to, points, pos, items, nr_items, values, cap);
    } else {
        const struct checkpoint *base = session_ckpt_before(s, from, false);

        source = "replay";
        for (i = 0; i < points; i++) {
            uint64_t p = points > 1 ? from + (to - from) * i / (points - 1) : from;

            if (!n || pos[n - 1] != p)
                pos[n++] = p;
        }
        memset(&sm, 0, sizeof(sm));
        sm.items = items;
        sm.nr_items = nr_items;
        memcpy(sm.totals, base->totals, sizeof(sm.totals));
        sm.positions = pos;
        sm.nr_positions = n;
        sm.values = calloc(n * (nr_items ? nr_items : 1), sizeof(*sm.values));
        if (!sm.values)
            goto out_free;
        sampler_record(&sm, base->seq);
        err = to > base->seq ? session_replay(s, from, to, sampler_event, &sm, NULL, NULL) : 0;
        for (k = 0; !err && k < nr_items; k++)
            memcpy(&values[k * cap], &sm.values[k * n], n * sizeof(*values));
        free(sm.values);
        if (err)
            goto out_free;
        err = -ENOMEM;
    }
    o = cJSON_CreateObject();
    if (!o || !json_put(o, "from", json_uint(from)) || !json_put(o, "to", json_uint(to)) ||
        !json_put(o, "source", cJSON_CreateString(source)) ||
        !json_put(o, "interval", json_uint(s->tl.interval)) ||
        !json_put(o, "positions", parr = cJSON_CreateArray()) ||
        !json_put(o, "series", series = cJSON_CreateObject()))
        goto out_free;
    for (i = 0; i < n; i++)
        if (!json_push(parr, json_uint(pos[i])))
            goto out_free;
    for (k = 0; k < nr_items; k++) {
        cJSON *arr = cJSON_CreateArray();

        if (!json_put(series, sim_stat_name(items[k]), arr))
            goto out_free;
        for (i = 0; i < n; i++)
            if (!json_push(arr, json_uint(values[k * cap + i])))
                goto out_free;
    }
    *out = o;
    o = NULL;
    err = 0;
out_free:
    cJSON_Delete(o);
    free(pos);
    free(values);
    return err;
}

struct finder {
    const struct timeline_query *q;
    uint64_t lo, hi; /* seq range searched */
    bool last;       /* keep the last match (prev), else stop at the first */
    bool found;
    uint64_t seq;
    cJSON *event;
    int err;
};

static void finder_event(const struct sim_event *ev, void *arg)
{
    struct finder *f = arg;

    if (ev->seq < f->lo || ev->seq >= f->hi || f->err || (f->found && !f->last))
        return;
    if (!timeline_event_matches(ev, f->q))
        return;
    cJSON_Delete(f->event);
    if (!(f->event = json_event(ev)))
        f->err = -ENOMEM;
    f->found = true;
    f->seq = ev->seq;
}

static int search_result(bool found, uint64_t seq, cJSON *event, uint64_t scanned_to, bool complete,
                         cJSON **out)
{
    cJSON *o = cJSON_CreateObject();

    if (!o || !cJSON_AddBoolToObject(o, "found", found) ||
        !json_put(o, "at", found ? json_uint(seq + 1) : cJSON_CreateNull()) ||
        !json_put(o, "event", event ? event : cJSON_CreateNull())) {
        cJSON_Delete(o);
        return -ENOMEM;
    }
    if (!found && (!json_put(o, "scanned_to", json_uint(scanned_to)) ||
                   !cJSON_AddBoolToObject(o, "complete", complete))) {
        cJSON_Delete(o);
        return -ENOMEM;
    }
    *out = o;
    return 0;
}

int session_search(struct session *s, const struct timeline_query *q, uint64_t from, bool prev,
                   uint64_t budget, cJSON **out)
{
    uint64_t mask[TIMELINE_PAIRS / 64], end = s->log.nr_events, scanned = 0;
    struct finder f;
    size_t b;
    int err;

    memset(&f, 0, sizeof(f));
    f.q = q;
    f.last = prev;
    if (from > end)
        from = end;
    if (!timeline_query_mask(&s->tl, q, mask))
        return search_result(false, 0, NULL, prev ? 0 : end, true, out);
    if (!prev) {
        for (b = (size_t)(from / TIMELINE_BLOCK); (uint64_t)b * TIMELINE_BLOCK < end; b++) {
            uint64_t lo = (uint64_t)b * TIMELINE_BLOCK, hi = lo + TIMELINE_BLOCK;

            if (lo < from)
                lo = from;
            if (hi > end)
                hi = end;
            if (lo >= hi || !timeline_block_may_match(&s->tl, b, q, mask))
                continue;
            if (scanned >= budget)
                return search_result(false, 0, NULL, lo, false, out);
            f.lo = lo;
            f.hi = hi;
            err = session_replay(s, lo, hi, finder_event, &f, &f.found, &scanned);
            if (err || f.err) {
                cJSON_Delete(f.event);
                return err ? err : f.err;
            }
            if (f.found)
                return search_result(true, f.seq, f.event, 0, true, out);
        }
        return search_result(false, 0, NULL, end, true, out);
    }
    /* prev: seq < from - 1, i.e. a position before from */
    if (from < 2)
        return search_result(false, 0, NULL, 0, true, out);
    for (b = (size_t)((from - 2) / TIMELINE_BLOCK) + 1; b-- > 0;) {
        uint64_t lo = (uint64_t)b * TIMELINE_BLOCK, hi = lo + TIMELINE_BLOCK;

        if (hi > from - 1)
            hi = from - 1;
        if (lo >= hi || !timeline_block_may_match(&s->tl, b, q, mask))
            continue;
        if (scanned >= budget)
            return search_result(false, 0, NULL, hi, false, out);
        f.lo = lo;
        f.hi = hi;
        err = session_replay(s, lo, hi, finder_event, &f, NULL, &scanned);
        if (err || f.err) {
            cJSON_Delete(f.event);
            return err ? err : f.err;
        }
        if (f.found)
            return search_result(true, f.seq, f.event, 0, true, out);
    }
    return search_result(false, 0, NULL, 0, true, out);
}

/* ---- steps --------------------------------------------------------------------------- */

/* The nearest operation boundary after @at (prev false) or before it. */
static int session_op_boundary(struct session *s, uint64_t at, bool prev, uint64_t *out)
{
    const struct checkpoint *base;
    struct session_pos p;
    struct sim_op op;
    uint64_t ev, best;

    if (!prev) {
        base = session_ckpt_before(s, at, false);
        session_ckpt_pos(base, &p);
        while (oplog_next(&s->log, &p.off, &op, &ev, NULL) == 0) {
            p.seq += ev;
            if (p.seq > at) {
                *out = p.seq;
                return 0;
            }
        }
        *out = s->log.nr_events;
        return 0;
    }
    if (at == 0) {
        *out = 0;
        return 0;
    }
    base = session_ckpt_before(s, at, true);
    session_ckpt_pos(base, &p);
    best = p.seq;
    while (oplog_next(&s->log, &p.off, &op, &ev, NULL) == 0) {
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
    uint64_t end = s->log.nr_events, i;
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
