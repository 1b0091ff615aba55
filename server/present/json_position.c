/*
 * json_position.c: what a session answers about a position, as JSON (see
 * json_session.h): the state (with one slab's bytes), a range of events, a
 * counter series, a search.
 *
 * The session replays (session_seek.c); the callbacks here turn the event
 * and the machine it shows into trees while they are valid, inside the
 * replay.  A rendered state is printed once and kept in the session's
 * cache, since stepping back and forth asks for the same few positions.
 */
#include "present/json_session.h"

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/json.h"
#include "present/json_state.h"

/* ---- the state ---------------------------------------------------------------- */

struct state_doc {
    sim_addr_t slab; /* 0, or the slab whose bytes to show */
    cJSON *event, *slab_json;
    struct strbuf state; /* the state, written (json_state_write()) */
    bool slab_missing;
};

static int state_doc_event(const struct sim_event *ev, void *arg)
{
    struct state_doc *d = arg;

    return (d->event = json_event_full(ev)) ? 0 : -ENOMEM;
}

static int state_doc_state(const struct sim *m, const struct sim_snapshot *snap, void *arg)
{
    struct state_doc *d = arg;
    const struct sim_snap_slab *sl;

    if (!json_state_write(&d->state, snap, JSON_STATE_LIMIT))
        return -ENOMEM;
    if (!d->slab)
        return 0;
    if (!(sl = json_find_slab(snap, d->slab))) {
        d->slab_missing = true;
        return 0;
    }
    return (d->slab_json = json_slab_bytes(m, snap, sl)) ? 0 : -ENOMEM;
}

/* Append @item printed (or null); false when out of memory. */
static bool put_tree(struct strbuf *sb, const cJSON *item)
{
    char *text = item ? cJSON_PrintUnformatted(item) : NULL;
    bool ok = item ? text && strbuf_puts(sb, text) : strbuf_puts(sb, "null");

    cJSON_free(text);
    return ok;
}

struct names_doc {
    const struct name_spans *ns;
    cJSON *o;
    cJSON *same; /* {"0x...": "o0"}: made at the first name that reuses an object, else NULL */
    bool nomem;
};

static void names_doc_add(const struct name_span *sp, void *arg)
{
    struct names_doc *d = arg;
    const char *first = name_span_first(d->ns, sp);
    char key[24];

    /* as json_hex() prints addresses; spans of one address never overlap */
    snprintf(key, sizeof(key), "0x%" PRIx64, sp->addr);
    if (!json_put(d->o, key, cJSON_CreateString(name_span_name(d->ns, sp))))
        d->nomem = true;
    /* krealloc() in place binds the same name again: nothing to tell */
    if (!first || d->nomem || !strcmp(first, name_span_name(d->ns, sp)))
        return;
    if ((!d->same && !(d->same = cJSON_CreateObject())) ||
        !json_put(d->same, key, cJSON_CreateString(first)))
        d->nomem = true;
}

/* Hand "same_as" (when any name reuses an object) to @o; false when out of memory. */
static bool names_doc_same(struct names_doc *d, cJSON *o)
{
    cJSON *same = d->same;

    d->same = NULL;
    if (!same)
        return true;
    if (d->nomem) {
        cJSON_Delete(same);
        return false;
    }
    return json_put(o, "same_as", same);
}

/*
 * The names the scenario gave the objects, as they stand at @at ({"0x...":
 * "o1"}); at most JSON_POSITION_NAMES, and "names_more" counts the rest.
 * "same_as", only when some name there reuses a freed object, gives that
 * object's first name ({"0x...": "o0"}): one object, one identity.
 */
static int position_names(const struct session *s, uint64_t at, cJSON *o)
{
    const struct name_spans *ns = &s->run->rp.spans;
    struct names_doc d = {ns, cJSON_CreateObject(), NULL, false};
    size_t n;

    if (!d.o || !json_put(o, "names", d.o))
        return -ENOMEM;
    if (!s->run->have_rp)
        return 0;
    n = name_spans_at(ns, at, JSON_POSITION_NAMES, names_doc_add, &d);
    if (!names_doc_same(&d, o) || d.nomem)
        return -ENOMEM;
    if (n > JSON_POSITION_NAMES && !json_put(o, "names_more", json_uint(n - JSON_POSITION_NAMES)))
        return -ENOMEM;
    return 0;
}

static atomic_uint_least64_t states_rendered;

uint64_t json_position_rendered(void)
{
    return atomic_load(&states_rendered);
}

int json_position_state(struct session *s, uint64_t at, sim_addr_t slab, struct blob **out,
                        struct strbuf *err)
{
    struct state_doc d = {.slab = slab, .state = STRBUF_INIT};
    const struct session_view view = {state_doc_event, state_doc_state, &d};
    struct strbuf sb = STRBUF_INIT;
    cJSON *names = NULL, *more, *same;
    int ret;

    *out = NULL;
    if (at <= session_nr_events(s) && (*out = session_state_cached(s, at, slab)))
        return 0;
    atomic_fetch_add(&states_rendered, 1);
    ret = session_visit(s, at, &view, NULL, err);
    if (!ret && d.slab_missing) {
        strbuf_printf(err, "bytes: there is no slab 0x%" PRIx64 " at position %" PRIu64, slab, at);
        ret = -ENOENT;
    }
    if (ret)
        goto out_release;
    /* position_names() fills an object whose members follow "state" */
    if (!(names = cJSON_CreateObject()) || position_names(s, at, names))
        goto err_nomem;
    more = cJSON_GetObjectItemCaseSensitive(names, "names_more");
    same = cJSON_GetObjectItemCaseSensitive(names, "same_as");
    strbuf_printf(&sb, "{\"at\":%" PRIu64 ",\"event\":", at);
    put_tree(&sb, d.event);
    strbuf_puts(&sb, ",\"state\":");
    strbuf_append(&sb, d.state.buf, d.state.len);
    strbuf_puts(&sb, ",\"names\":");
    put_tree(&sb, cJSON_GetObjectItemCaseSensitive(names, "names"));
    if (more) {
        strbuf_puts(&sb, ",\"names_more\":");
        put_tree(&sb, more);
    }
    if (same) {
        strbuf_puts(&sb, ",\"same_as\":");
        put_tree(&sb, same);
    }
    if (slab) {
        strbuf_puts(&sb, ",\"slab\":");
        put_tree(&sb, d.slab_json);
    }
    strbuf_puts(&sb, "}");
    if (strbuf_failed(&sb) || d.state.failed || !(*out = blob_new(sb.buf, sb.len)))
        goto err_nomem;
    session_cache_put(s, at, slab, *out);
    goto out_release;

err_nomem:
    ret = -ENOMEM;
out_release:
    strbuf_release(&sb);
    strbuf_release(&d.state);
    cJSON_Delete(names);
    cJSON_Delete(d.event);
    cJSON_Delete(d.slab_json);
    return ret;
}

struct page_doc {
    uint64_t at;
    int cache;
    size_t from, count;
    struct strbuf *sb;
};

static int page_doc_state(const struct sim *m, const struct sim_snapshot *snap, void *arg)
{
    struct page_doc *p = arg;

    (void)m;
    return json_state_write_page(p->sb, snap, p->at, p->cache, p->from, p->count);
}

int json_position_objects(struct session *s, uint64_t at, int cache, size_t from, size_t count,
                          struct strbuf *out, struct strbuf *err)
{
    struct page_doc p = {at, cache, from, count, out};
    const struct session_view view = {NULL, page_doc_state, &p};
    int ret = session_visit(s, at, &view, NULL, err);

    if (ret == -ENOENT)
        strbuf_printf(err, "cache: there is no cache %d at position %" PRIu64, cache, at);
    return ret;
}

/* ---- every position ------------------------------------------------------------------ */

struct walk_doc {
    cJSON *state;
    struct session *s;
    int (*each)(uint64_t at, cJSON *doc, void *arg);
    void *arg;
    /* the name spans showing at the position, in index order, as
     * position_names() lists them: kept as the walk moves on, instead of
     * scanning every span before the position at each one */
    size_t next;   /* the first span not started yet */
    size_t *shown; /* indices of the spans started and not ended */
    size_t nr_shown, cap_shown;
};

/* position_names() for the walk's position @at. */
static int walk_names(struct walk_doc *w, uint64_t at, cJSON *o)
{
    const struct name_spans *ns = &w->s->run->rp.spans;
    struct names_doc d = {ns, cJSON_CreateObject(), NULL, false};
    size_t i, k;

    if (!d.o || !json_put(o, "names", d.o))
        return -ENOMEM;
    if (!w->s->run->have_rp)
        return 0;
    for (; w->next < ns->nr && ns->v[w->next].from < at; w->next++) {
        size_t *p = grow_array(w->shown, &w->cap_shown, w->nr_shown + 1, sizeof(*p), 256);

        if (!p)
            return -ENOMEM;
        w->shown = p;
        w->shown[w->nr_shown++] = w->next;
    }
    for (i = k = 0; i < w->nr_shown; i++)
        if (ns->v[w->shown[i]].to >= at)
            w->shown[k++] = w->shown[i];
    w->nr_shown = k;
    for (i = 0; i < k && i < JSON_POSITION_NAMES; i++)
        names_doc_add(&ns->v[w->shown[i]], &d);
    if (!names_doc_same(&d, o) || d.nomem)
        return -ENOMEM;
    if (k > JSON_POSITION_NAMES && !json_put(o, "names_more", json_uint(k - JSON_POSITION_NAMES)))
        return -ENOMEM;
    return 0;
}

static int walk_doc_state(const struct sim *m, const struct sim_snapshot *snap, void *arg)
{
    struct walk_doc *w = arg;

    (void)m;
    return (w->state = json_snapshot(snap)) ? 0 : -ENOMEM;
}

static int walk_doc_done(uint64_t at, void *arg)
{
    struct walk_doc *w = arg;
    cJSON *o = cJSON_CreateObject();

    if (!o || !json_put(o, "at", json_uint(at)) || !json_put(o, "state", w->state)) {
        w->state = NULL;
        cJSON_Delete(o);
        return -ENOMEM;
    }
    w->state = NULL;
    if (walk_names(w, at, o)) {
        cJSON_Delete(o);
        return -ENOMEM;
    }
    return w->each(at, o, w->arg);
}

int json_position_walk(struct session *s, int (*each)(uint64_t at, cJSON *doc, void *arg),
                       void *arg)
{
    struct walk_doc w = {.s = s, .each = each, .arg = arg};
    const struct session_view view = {NULL, walk_doc_state, &w};
    int ret = session_walk(s, &view, walk_doc_done);

    cJSON_Delete(w.state);
    free(w.shown);
    return ret;
}

/* ---- ranges ----------------------------------------------------------------------- */

struct event_list {
    cJSON *events;
    int err;
};

static void event_list_add(const struct sim_event *ev, void *arg)
{
    struct event_list *l = arg;

    if (!l->err && !json_push(l->events, json_event_full(ev)))
        l->err = -ENOMEM;
}

int json_position_events(struct session *s, uint64_t from, uint64_t to, cJSON **out)
{
    struct event_list l = {cJSON_CreateArray(), 0};
    cJSON *o = NULL;
    int err;

    if (!l.events)
        return -ENOMEM;
    err = session_events(s, &from, &to, event_list_add, &l);
    if (!err)
        err = l.err;
    if (!err) {
        o = cJSON_CreateObject();
        if (!o || !json_put(o, "from", json_uint(from)) || !json_put(o, "to", json_uint(to)) ||
            !json_put(o, "events", l.events))
            err = -ENOMEM;
        l.events = NULL;
    }
    cJSON_Delete(l.events);
    if (err) {
        cJSON_Delete(o);
        return err;
    }
    *out = o;
    return 0;
}

int json_position_series(struct session *s, const unsigned *items, size_t nr_items, uint64_t from,
                         uint64_t to, unsigned points, cJSON **out)
{
    struct session_series ser;
    cJSON *o = NULL, *parr = NULL, *series = NULL;
    size_t i, k;
    int err;

    if ((err = session_series(s, items, nr_items, from, to, points, &ser)))
        return err;
    err = -ENOMEM;
    o = cJSON_CreateObject();
    if (!o || !json_put(o, "from", json_uint(ser.from)) || !json_put(o, "to", json_uint(ser.to)) ||
        !json_put(o, "source", cJSON_CreateString(ser.source)) ||
        !json_put(o, "interval", json_uint(ser.interval)) ||
        !json_put(o, "positions", parr = cJSON_CreateArray()) ||
        !json_put(o, "series", series = cJSON_CreateObject()))
        goto out_release;
    for (i = 0; i < ser.n; i++)
        if (!json_push(parr, json_uint(ser.pos[i])))
            goto out_release;
    for (k = 0; k < nr_items; k++) {
        cJSON *arr = cJSON_CreateArray();

        if (!json_put(series, sim_stat_name(items[k]), arr))
            goto out_release;
        for (i = 0; i < ser.n; i++)
            if (!json_push(arr, json_uint(ser.values[k * ser.cap + i])))
                goto out_release;
    }
    *out = o;
    o = NULL;
    err = 0;
out_release:
    cJSON_Delete(o);
    session_series_release(&ser);
    return err;
}

/* The matching event of a search: the last one seen is the one found. */
struct match {
    cJSON *event;
    int err;
};

static void match_event(const struct sim_event *ev, void *arg)
{
    struct match *m = arg;

    cJSON_Delete(m->event);
    if (!(m->event = json_event_full(ev)))
        m->err = -ENOMEM;
}

int json_position_search(struct session *s, const struct timeline_query *q, uint64_t from,
                         bool prev, uint64_t budget, cJSON **out)
{
    struct session_found f;
    struct match m = {NULL, 0};
    cJSON *o = NULL;
    int err;

    err = session_search(s, q, from, prev, budget, match_event, &m, &f);
    if (!err)
        err = m.err;
    if (err)
        goto out_release;
    err = -ENOMEM;
    o = cJSON_CreateObject();
    if (!o || !cJSON_AddBoolToObject(o, "found", f.found) ||
        !json_put(o, "at", f.found ? json_uint(f.seq + 1) : cJSON_CreateNull()) ||
        !json_put(o, "event", f.found && m.event ? m.event : cJSON_CreateNull()))
        goto out_release;
    if (f.found)
        m.event = NULL;
    if (!f.found && (!json_put(o, "scanned_to", json_uint(f.scanned_to)) ||
                     !cJSON_AddBoolToObject(o, "complete", f.complete)))
        goto out_release;
    *out = o;
    o = NULL;
    err = 0;
out_release:
    cJSON_Delete(o);
    cJSON_Delete(m.event);
    return err;
}
