/*
 * json_event.c: engine events as JSON (see json_state.h and
 * docs/events.md).
 *
 * Each builder creates its object, adds keys in the documented order and,
 * on the first failed addition, deletes what it built and returns NULL:
 * json_put() and json_push() (base/json.c) delete the orphan item
 * themselves, so a chain of `if (!json_put(...) || ...)` leaks nothing.
 * Events are the
 * hot path of `run --events` (one per state change), so nothing here looks
 * anything up: an event carries every name it needs.
 */
#include "present/json_state.h"

#include "base/json.h"

#include <inttypes.h>
#include <stdio.h>

cJSON *json_place(const struct sim_place *pl)
{
    cJSON *o = cJSON_CreateObject();
    const char *type = sim_place_name(pl->type);

    if (!o)
        return NULL;
    if (!json_put(o, "type", json_str(type ? type : "?")) ||
        (pl->cpu >= 0 && !json_put(o, "cpu", json_int(pl->cpu))) ||
        (pl->node >= 0 && !json_put(o, "node", json_int(pl->node))) ||
        (pl->slot >= 0 && !json_put(o, "slot", json_int(pl->slot))) ||
        (pl->slab && !json_put(o, "slab", json_hex(pl->slab))) ||
        (pl->sheaf && !json_put(o, "sheaf", json_uint(pl->sheaf))))
        return json_drop(o);
    return o;
}

static const char *const move_kinds[] = {"object", "slab", "sheaf"};

static cJSON *json_move(const struct sim_move *mv)
{
    cJSON *o = cJSON_CreateObject();
    bool sheaf = mv->kind == SIM_MOVE_SHEAF;

    if (!o)
        return NULL;
    if (!json_put(o, "kind", json_str(mv->kind <= SIM_MOVE_SHEAF ? move_kinds[mv->kind] : "?")) ||
        !json_put(o, "id", sheaf ? json_uint(mv->id) : json_hex(mv->id)) ||
        !json_put(o, "from", json_place(&mv->from)) || !json_put(o, "to", json_place(&mv->to)))
        return json_drop(o);
    return o;
}

const char *json_stat_name(unsigned item, char *buf, size_t len)
{
    const char *name = sim_stat_name(item);

    if (name)
        return name;
    snprintf(buf, len, "stat_%u", item);
    return buf;
}

/* A page allocator decision (docs/events.md, "page"). */
cJSON *json_page_alloc(const struct sim_page_alloc *pa)
{
    cJSON *o = cJSON_CreateObject();
    char gfp[256], flags[160];

    if (!o)
        return NULL;
    sim_gfp_format(pa->gfp, gfp, sizeof(gfp));
    sim_alloc_flags_format(pa->alloc_flags, pa->layout, flags, sizeof(flags));
    if (!json_put(o, "gfp", json_hex(pa->gfp)) || !json_put(o, "gfp_names", json_str(gfp)) ||
        !json_put(o, "order", json_uint(pa->order)) ||
        !json_put(o, "alloc_flags", json_hex(pa->alloc_flags)) ||
        !json_put(o, "alloc_flags_names", json_str(flags)) ||
        !json_put(o, "path", json_str(pa->path)) || !json_put(o, "node", json_int(pa->node)) ||
        !json_put(o, "zone", json_str(sim_zone_name(pa->zone))) ||
        !json_put(o, "preferred_node", json_int(pa->preferred_node)) ||
        !json_put(o, "preferred_zone", json_str(sim_zone_name(pa->preferred_zone))) ||
        !json_put(o, "highest_zone", json_str(sim_zone_name(pa->highest_zone))) ||
        !json_put(o, "migratetype", json_str(sim_migratetype_name(pa->migratetype))) ||
        !json_put(o, "mark", json_str(pa->mark)) || !json_put(o, "free", json_uint(pa->free)) ||
        !json_put(o, "threshold", json_int(pa->threshold)) ||
        !json_put(o, "addr", pa->addr ? json_hex(pa->addr) : cJSON_CreateNull()) ||
        !json_put(o, "pfmemalloc", cJSON_CreateBool(pa->pfmemalloc)))
        return json_drop(o);
    return o;
}

/* One branch record (docs/events.md#branch-records): the point, every arm,
 * the arm taken. */
static cJSON *json_branch(const struct sim_branch *b)
{
    const struct sim_branch_point *p = b->point;
    cJSON *o = cJSON_CreateObject(), *arms = NULL;

    if (!o || !json_put(o, "point", json_str(p->name)) ||
        !json_put(o, "arms", arms = cJSON_CreateArray()))
        return json_drop(o);
    for (size_t i = 0; i < p->nr_arms; i++)
        if (!json_push(arms, json_str(p->arms[i].name)))
            return json_drop(o);
    if (!json_put(o, "taken", json_str(p->arms[b->taken].name)))
        return json_drop(o);
    return o;
}

cJSON *json_branch_points(void)
{
    size_t n;
    const struct sim_branch_point *pts = sim_branch_points(&n);
    cJSON *o = cJSON_CreateObject(), *arr = NULL;

    if (!o || !json_put(o, "points", arr = cJSON_CreateArray()))
        return json_drop(o);
    for (size_t i = 0; i < n; i++) {
        cJSON *p = cJSON_CreateObject(), *arms = NULL;

        if (!json_push(arr, p) || !json_put(p, "point", json_str(pts[i].name)) ||
            !json_put(p, "fn", json_str(pts[i].fn)) ||
            !json_put(p, "arms", arms = cJSON_CreateArray()))
            return json_drop(o);
        for (size_t a = 0; a < pts[i].nr_arms; a++) {
            cJSON *arm = cJSON_CreateObject(), *events = NULL;

            if (!json_push(arms, arm) || !json_put(arm, "arm", json_str(pts[i].arms[a].name)) ||
                !json_put(arm, "events", events = cJSON_CreateArray()))
                return json_drop(o);
            for (const char *const *e = pts[i].arms[a].events; *e; e++)
                if (!json_push(events, json_str(*e)))
                    return json_drop(o);
        }
    }
    return o;
}

/* A word a race step read or wrote (docs/events.md, "Races"). */
static cJSON *json_word(const struct sim_word *w, bool write)
{
    cJSON *o = cJSON_CreateObject();

    if (!o)
        return NULL;
    if (!json_put(o, "word", json_str(w->word)) ||
        (w->cpu >= 0 && !json_put(o, "cpu", json_int(w->cpu))) ||
        (w->node >= 0 && !json_put(o, "node", json_int(w->node))) ||
        (w->slab && !json_put(o, "slab", json_hex(w->slab))) ||
        (w->addr && !json_put(o, "addr", json_hex(w->addr))) ||
        (write && !json_put(o, "old", json_hex(w->old))) ||
        !json_put(o, write ? "new" : "value", json_hex(w->value)))
        return json_drop(o);
    return o;
}

cJSON *json_step(const struct sim_step *st)
{
    cJSON *o = cJSON_CreateObject(), *reads = NULL, *writes = NULL;

    if (!o)
        return NULL;
    if (!json_put(o, "ctx", json_str(st->ctx)) || !json_put(o, "index", json_uint(st->index)) ||
        !json_put(o, "kind", json_str(st->kind)) ||
        !json_put(o, "reads", reads = cJSON_CreateArray()) ||
        !json_put(o, "writes", writes = cJSON_CreateArray()))
        return json_drop(o);
    for (unsigned i = 0; i < st->nr_reads; i++)
        if (!json_push(reads, json_word(&st->reads[i], false)))
            return json_drop(o);
    for (unsigned i = 0; i < st->nr_writes; i++)
        if (!json_push(writes, json_word(&st->writes[i], true)))
            return json_drop(o);
    return o;
}

/* A choice point (docs/events.md#choice-points); with @others, where it is
 * (op, nth) and the sentences of the options not taken, at most
 * JSON_CHOICE_OTHERS of them (others_more counts the rest). */
static cJSON *json_choice(const struct sim_choice *c, bool others)
{
    cJSON *o = cJSON_CreateObject(), *list = NULL;
    char text[sizeof(c->text)];
    uint64_t listed = 0;

    if (!o || !json_put(o, "kind", json_str(sim_choice_name(c->kind))) ||
        !json_put(o, "options", json_uint(c->nr_options)) ||
        !json_put(o, "taken", json_uint(c->taken)) || !json_put(o, "text", json_str(c->text)))
        return json_drop(o);
    if (!others)
        return o;
    if (!json_put(o, "op", json_uint(c->op)) || !json_put(o, "nth", json_uint(c->nth)) ||
        !json_put(o, "others", list = cJSON_CreateArray()))
        return json_drop(o);
    for (uint64_t k = 0; k < c->nr_options && listed < JSON_CHOICE_OTHERS; k++) {
        cJSON *item = NULL;

        if (k == c->taken)
            continue;
        sim_choice_text(c, k, text, sizeof(text));
        if (!json_push(list, item = cJSON_CreateObject()) ||
            !json_put(item, "option", json_uint(k)) || !json_put(item, "text", json_str(text)))
            return json_drop(o);
        listed++;
    }
    if (c->nr_options - 1 > listed &&
        !json_put(o, "others_more", json_uint(c->nr_options - 1 - listed)))
        return json_drop(o);
    return o;
}

static cJSON *event_json(const struct sim_event *ev, bool every_choice);

cJSON *json_event(const struct sim_event *ev)
{
    return event_json(ev, false);
}

cJSON *json_event_full(const struct sim_event *ev)
{
    return event_json(ev, true);
}

static cJSON *event_json(const struct sim_event *ev, bool every_choice)
{
    cJSON *o = cJSON_CreateObject(), *moves = NULL, *stats = NULL;
    char buf[32];
    size_t i;

    if (!o)
        return NULL;
    if (!json_put(o, "seq", json_uint(ev->seq)) || !json_put(o, "op", json_uint(ev->op)) ||
        !json_put(o, "cpu", json_int(ev->cpu)) || !json_put(o, "node", json_int(ev->node)) ||
        !json_put(o, "cache", json_int(ev->cache)) || !json_put(o, "fn", json_str(ev->fn)) ||
        !json_put(o, "label", json_str(ev->label)) ||
        !json_put(o, "moves", moves = cJSON_CreateArray()))
        return json_drop(o);
    for (i = 0; i < ev->nr_moves; i++)
        if (!json_push(moves, json_move(&ev->moves[i])))
            return json_drop(o);
    if (!json_put(o, "stats", stats = cJSON_CreateObject()))
        return json_drop(o);
    for (i = 0; i < ev->nr_stats; i++)
        if (!json_put(stats, json_stat_name(ev->stats[i].item, buf, sizeof(buf)),
                      json_int(ev->stats[i].delta)))
            return json_drop(o);
    if (!json_put(o, "report", json_str(ev->report)))
        return json_drop(o);
    if (ev->page && !json_put(o, "page", json_page_alloc(ev->page)))
        return json_drop(o);
    if (ev->nr_branches) {
        cJSON *branches = NULL;

        if (!json_put(o, "branches", branches = cJSON_CreateArray()))
            return json_drop(o);
        for (i = 0; i < ev->nr_branches; i++)
            if (!json_push(branches, json_branch(&ev->branches[i])))
                return json_drop(o);
    }
    if (ev->ctx && !json_put(o, "ctx", json_str(ev->ctx)))
        return json_drop(o);
    if (ev->step && !json_put(o, "step", json_step(ev->step)))
        return json_drop(o);
    /* the default is what the engine always did: its events stay as they
     * were, but for the lab's positions (json_event_full()) */
    if (ev->choice && (ev->choice->taken || every_choice) &&
        !json_put(o, "choice", json_choice(ev->choice, every_choice)))
        return json_drop(o);
    return o;
}
