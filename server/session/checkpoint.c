/*
 * checkpoint.c: what a session keeps to answer any position quickly, and
 * what that costs: checkpoints (copies of the machine every ckpt_events
 * events), the cursor (the machine of the last seek, kept to step on from
 * it), the cache of rendered states, and the memory budget they share.
 *
 * Under session.c (which takes checkpoints while the head runs forward)
 * and session_seek.c (which starts every answer from one): neither is
 * called from here.  A step from a checkpoint applies the op log's next
 * record (session_apply_next()); the engine must emit exactly the events
 * the log recorded, else the session is broken (SESSION_EBROKEN).  When
 * the budget is passed, session_thin() drops the cursor, then the cache,
 * then the checkpoint whose removal leaves the smallest gap.
 */
#include "session/session_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- memory ------------------------------------------------------------------- */

uint64_t session_sim_bytes(const struct session *s)
{
    uint64_t pages = s->tl.pages_hwm, nodes = s->cfg.nr_nodes ? s->cfg.nr_nodes : 1;

    if (s->have_rp && s->rp.sim)
        return sim_host_bytes(s->rp.sim); /* what the head holds, per-cache and per-CPU data too */
    uint64_t node_pages = s->cfg.mem_per_node / SIM_PAGE_SIZE;

    /* no head (yet): struct sim and caches, the zones' chunk tables, the
     * touched chunks' page descriptors (1024 of 24 bytes), the touched pages
     * and their slabs */
    return 32768 + nodes * (node_pages / 1024) * sizeof(void *) +
           (pages / 1024 + nodes) * 1024 * 24 + pages * (SIM_PAGE_SIZE + 96);
}

uint64_t session_memory(const struct session *s)
{
    uint64_t total = session_sim_bytes(s) + s->log.cap + timeline_bytes(&s->tl) + s->ckpt_bytes +
                     session_cache_bytes(s) + s->scenario_len + s->batch_bytes;

    if (s->cursor.sim)
        total += s->cursor.bytes;
    if (s->have_rp)
        total += s->rp.names.cap * (sizeof(struct names_entry) + 16);
    return total;
}

/* Remove checkpoint @i (not 0). */
static void session_ckpt_remove(struct session *s, size_t i)
{
    sim_destroy(s->ckpts[i].sim);
    s->ckpt_bytes -= s->ckpts[i].bytes;
    memmove(&s->ckpts[i], &s->ckpts[i + 1], (s->nr_ckpts - i - 1) * sizeof(s->ckpts[0]));
    s->nr_ckpts--;
}

void session_thin(struct session *s)
{
    while (session_memory(s) > s->lim.memory) {
        uint64_t best = UINT64_MAX;
        size_t i, victim = 0;

        if (s->cursor.sim) {
            session_cursor_drop(s);
            continue;
        }
        if (s->cache_bytes) {
            session_cache_clear(s);
            continue;
        }
        /* the checkpoint whose removal leaves the smallest gap; the oldest on ties */
        for (i = 1; i < s->nr_ckpts; i++) {
            uint64_t next = i + 1 < s->nr_ckpts ? s->ckpts[i + 1].seq : s->log.nr_events;
            uint64_t gap = next - s->ckpts[i - 1].seq;

            if (gap < best) {
                best = gap;
                victim = i;
            }
        }
        if (!victim)
            break;
        session_ckpt_remove(s, victim);
        /* take new ones no denser than the budget lets the old ones be */
        if (best / 2 > s->ckpt_every)
            s->ckpt_every = best / 2;
    }
}

int session_ckpt_add(struct session *s)
{
    struct checkpoint *c;
    struct sim *copy;

    if (s->nr_ckpts == s->cap_ckpts) {
        size_t cap = s->cap_ckpts ? s->cap_ckpts * 2 : 64;

        c = realloc(s->ckpts, cap * sizeof(*c));
        if (!c)
            return -ENOMEM;
        s->ckpts = c;
        s->cap_ckpts = cap;
    }
    if (sim_clone(s->rp.sim, &copy))
        return -ENOMEM;
    c = &s->ckpts[s->nr_ckpts++];
    c->sim = copy;
    c->seq = s->log.nr_events;
    c->op = s->log.nr_ops;
    c->off = s->log.len;
    c->bytes = sim_host_bytes(copy);
    memcpy(c->totals, s->tl.totals, sizeof(c->totals));
    s->ckpt_seq = c->seq;
    s->ckpt_op = c->op;
    s->ckpt_bytes += c->bytes;
    session_thin(s);
    return session_memory(s) > s->lim.memory ? -E2BIG : 0;
}

void session_ckpt_truncate(struct session *s, uint64_t op)
{
    while (s->nr_ckpts > 1 && s->ckpts[s->nr_ckpts - 1].op > op)
        session_ckpt_remove(s, s->nr_ckpts - 1);
    s->ckpt_seq = s->ckpts[s->nr_ckpts - 1].seq;
    s->ckpt_op = s->ckpts[s->nr_ckpts - 1].op;
    if (s->cursor.sim && s->cursor.op > op)
        session_cursor_drop(s);
}

void session_cursor_drop(struct session *s)
{
    sim_destroy(s->cursor.sim);
    memset(&s->cursor, 0, sizeof(s->cursor));
}

/* ---- checkpoints and the log ---------------------------------------------------- */

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

int session_ckpt_copy(const struct checkpoint *c, struct sim **m, struct session_pos *p)
{
    session_ckpt_pos(c, p);
    return sim_clone(c->sim, m) ? -ENOMEM : 0;
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

void session_cache_put(struct session *s, uint64_t at, sim_addr_t slab, struct blob *text)
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
