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
 * the budget is passed, session_thin() drops the cache of rendered states,
 * then the checkpoint whose removal leaves the smallest gap, and the cursor
 * only when no more than one checkpoint besides the first is left: a step
 * goes on from the cursor, so dropping it makes every step a copy of a
 * checkpoint and a replay.  Checkpoints
 * are taken every ckpt_every events, and never closer than the last copy's
 * bytes / SESSION_CKPT_BYTES_PER_OP operations: replaying about that many
 * costs what a copy of the machine costs, so a machine of 300,000 live
 * objects is not copied every 256 events.
 */
#include "session/session_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

/* ---- memory ------------------------------------------------------------------- */

uint64_t session_sim_bytes(struct session_run *r)
{
    uint64_t pages = r->tl.pages_hwm, nodes = r->cfg.nr_nodes ? r->cfg.nr_nodes : 1;

    if (r->have_rp && r->rp.sim) {
        /* what the head holds, per-cache and per-CPU data too; measured
         * again once the head has moved (every operation emits events) */
        uint64_t events = sim_event_count(r->rp.sim);

        if (r->head_sim != r->rp.sim || r->head_events != events) {
            r->head_bytes = sim_host_bytes(r->rp.sim);
            r->head_sim = r->rp.sim;
            r->head_events = events;
        }
        return r->head_bytes;
    }
    uint64_t node_pages = r->cfg.mem_per_node / SIM_PAGE_SIZE;

    /* no head (yet): struct sim and caches, the zones' chunk tables, the
     * touched chunks' page descriptors (1024 of 24 bytes), the touched pages
     * and their slabs */
    return 32768 + nodes * (node_pages / 1024) * sizeof(void *) +
           (pages / 1024 + nodes) * 1024 * 24 + pages * (SIM_PAGE_SIZE + 96);
}

uint64_t session_run_memory(struct session_run *r)
{
    uint64_t total = session_sim_bytes(r) + oplog_memory(&r->log) + timeline_bytes(&r->tl) +
                     r->ckpt_bytes + session_cache_bytes(r) + r->scenario_len + r->batch_bytes +
                     ckpt_disk_bytes(&r->disk);

    if (r->cursor.sim)
        total += r->cursor.bytes;
    if (r->have_rp)
        total += r->rp.names.cap * (sizeof(struct names_entry) + 16) +
                 name_spans_bytes(&r->rp.spans);
    return total;
}

void session_ckpt_release(struct checkpoint *c)
{
    if (!c->shared || atomic_fetch_sub(c->shared, 1) == 1) {
        sim_destroy(c->sim);
        free(c->shared);
    }
    c->sim = NULL;
    c->shared = NULL;
}

/* Remove checkpoint @i (not 0). */
static void session_ckpt_remove(struct session_run *r, size_t i)
{
    session_ckpt_release(&r->ckpts[i]);
    r->ckpt_bytes -= r->ckpts[i].bytes;
    memmove(&r->ckpts[i], &r->ckpts[i + 1], (r->nr_ckpts - i - 1) * sizeof(r->ckpts[0]));
    r->nr_ckpts--;
}

/*
 * A scenario's run whose images go to the store (session.c writes them as
 * its batch 0 runs, and a build again loads them) keeps fewer copies in
 * memory: a seek far from one loads a stored image instead, which costs
 * about as much as replaying CKPT_DISK_LOAD_FACTOR copies.  A trace's run
 * keeps its budget's worth (its seeks are bounded by it).
 */
static bool session_ckpts_stored(const struct session_run *r)
{
    const struct ckpt_disk *d = &r->disk;

    return !r->log_id[0] && d->store && !d->failed && d->floor_ops != UINT64_MAX;
}

static bool session_ckpts_over(const struct session_run *r)
{
    return session_ckpts_stored(r) && r->ckpt_bytes > r->lim.memory / SESSION_STORED_CKPT_SHARE;
}

void session_thin(struct session_run *r)
{
    for (;;) {
        bool over = session_run_memory(r) > r->lim.memory;
        uint64_t best = UINT64_MAX;
        size_t i, victim = 0;

        if (!over && !session_ckpts_over(r))
            break;
        if (over && r->cache_bytes) {
            session_cache_clear(r);
            continue;
        }
        /* the cursor is what the next step goes on from: a checkpoint goes
         * before it while there are others to keep seeks bounded */
        if (over && r->cursor.sim && r->nr_ckpts <= 2) {
            session_cursor_drop(r);
            continue;
        }
        /* the checkpoint whose removal leaves the smallest gap; the oldest on ties */
        for (i = 1; i < r->nr_ckpts; i++) {
            uint64_t next = i + 1 < r->nr_ckpts ? r->ckpts[i + 1].seq : r->log.nr_events;
            uint64_t gap = next - r->ckpts[i - 1].seq;

            if (gap < best) {
                best = gap;
                victim = i;
            }
        }
        if (!victim) {
            if (!over || !r->disk.cache_pages)
                break;
            ckpt_disk_cache_clear(&r->disk); /* the stored pages' cache goes last */
            continue;
        }
        session_ckpt_spill(r, &r->ckpts[victim]);
        session_ckpt_remove(r, victim);
        /* take new ones no denser than the budget lets the old ones be */
        if (best / 2 > r->ckpt_every)
            r->ckpt_every = best / 2;
    }
    session_run_recharge(r);
}

/*
 * A copy of a run (r->base, same inputs, so the same machine at the same
 * point) takes the base's checkpoint at the head's position, if it has one,
 * instead of a new copy: a fork costs its own memory from its first own
 * operation on.  Its bytes are still counted in full for both runs, so the
 * budget errs on the safe side.  False when there is none to take.
 */
static bool session_ckpt_borrow(struct session_run *r, struct checkpoint *c,
                                const struct session_pos *p)
{
    struct session_run *b = r->base;
    size_t lo = 0, hi;

    if (!b)
        return false;
    hi = b->nr_ckpts;
    while (lo < hi) { /* the first with seq >= the head's */
        size_t mid = lo + (hi - lo) / 2;

        if (b->ckpts[mid].seq < p->seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == b->nr_ckpts || b->ckpts[lo].seq != p->seq || b->ckpts[lo].op != p->op)
        return false;
    if (!b->ckpts[lo].shared) {
        atomic_uint *n = malloc(sizeof(*n));

        if (!n)
            return false;
        atomic_init(n, 1);
        b->ckpts[lo].shared = n; /* b is locked by the one who set r->base */
    }
    atomic_fetch_add(b->ckpts[lo].shared, 1);
    c->sim = b->ckpts[lo].sim;
    c->shared = b->ckpts[lo].shared;
    c->bytes = b->ckpts[lo].bytes;
    return true;
}

int session_ckpt_add(struct session_run *r)
{
    struct session_pos end = {r->log.nr_events, r->log.nr_ops, r->log.len};

    return session_ckpt_add_at(r, &end);
}

int session_ckpt_add_at(struct session_run *r, const struct session_pos *p)
{
    struct checkpoint *c;
    struct sim *copy;

    c = grow_array(r->ckpts, &r->cap_ckpts, r->nr_ckpts + 1, sizeof(*c), 64);
    if (!c)
        return -ENOMEM;
    r->ckpts = c;
    c = &r->ckpts[r->nr_ckpts];
    memset(c, 0, sizeof(*c));
    if (!session_ckpt_borrow(r, c, p)) {
        /* a copy of a run whose images are stored takes what the run has
         * and no copies of its own: its seeks load those images */
        if (r->base && r->nr_ckpts && session_ckpts_stored(r)) {
            r->ckpt_seq = p->seq;
            r->ckpt_op = p->op;
            return 0;
        }
        if (sim_clone(r->rp.sim, &copy))
            return -ENOMEM;
        c->sim = copy;
        c->bytes = sim_host_bytes(copy);
    }
    r->nr_ckpts++;
    c->seq = p->seq;
    c->op = p->op;
    c->off = p->off;
    memcpy(c->totals, r->tl.totals, sizeof(c->totals));
    r->ckpt_seq = c->seq;
    r->ckpt_op = c->op;
    r->ckpt_min_ops = c->bytes / SESSION_CKPT_BYTES_PER_OP;
    r->ckpt_bytes += c->bytes;
    session_thin(r);
    session_run_recharge(r);
    return session_run_memory(r) > r->lim.memory ? -E2BIG : 0;
}

bool session_ckpt_due(const struct session_run *r, uint64_t seq, uint64_t op)
{
    if (seq - r->ckpt_seq < r->ckpt_every && op - r->ckpt_op < r->ckpt_every)
        return false;
    /* a copy of a big machine costs as much as replaying many operations:
     * never closer than what the last copy cost, in operations */
    return op - r->ckpt_op >= r->ckpt_min_ops;
}

void session_ckpt_truncate(struct session_run *r, uint64_t op)
{
    while (r->nr_ckpts > 1 && r->ckpts[r->nr_ckpts - 1].op > op)
        session_ckpt_remove(r, r->nr_ckpts - 1);
    r->ckpt_seq = r->ckpts[r->nr_ckpts - 1].seq;
    r->ckpt_op = r->ckpts[r->nr_ckpts - 1].op;
    if (r->cursor.sim && r->cursor.op > op)
        session_cursor_drop(r);
    session_run_recharge(r);
}

void session_cursor_drop(struct session_run *r)
{
    sim_destroy(r->cursor.sim);
    memset(&r->cursor, 0, sizeof(r->cursor));
    session_run_recharge(r);
}

/* ---- checkpoints and the log ---------------------------------------------------- */

const struct checkpoint *session_ckpt_before(const struct session_run *r, uint64_t seq, bool strict)
{
    size_t lo = 0, hi = r->nr_ckpts;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        bool before = strict ? r->ckpts[mid].seq < seq : r->ckpts[mid].seq <= seq;

        if (before)
            lo = mid + 1;
        else
            hi = mid;
    }
    return &r->ckpts[lo ? lo - 1 : 0];
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

bool session_peek_events(struct session_run *r, const struct session_pos *p, uint64_t *events)
{
    struct sim_op op;
    size_t off = p->off;

    return oplog_next(&r->log, &off, &op, events, NULL) == 0;
}

int session_apply_next(struct session_run *r, struct sim *m, struct session_pos *p)
{
    struct sim_result res;
    struct sim_op op;
    sim_addr_t *bulk = NULL;
    size_t off = p->off;
    uint64_t ev;
    int err;

    err = oplog_next(&r->log, &off, &op, &ev, &r->scratch);
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

/* ---- the disk tier ------------------------------------------------------------- */

/* What loading a stored image costs, in replayed operations. */
static uint64_t session_load_ops(struct session_run *r)
{
    if (r->disk.load_ops)
        return r->disk.load_ops;
    return CKPT_DISK_LOAD_FACTOR * session_sim_bytes(r) / SESSION_CKPT_BYTES_PER_OP;
}

void session_start_before(struct session_run *r, uint64_t seq, bool strict,
                          struct session_start *st)
{
    const struct ckpt_disk_entry *e = ckpt_disk_before(&r->disk, seq, strict);

    st->mem = session_ckpt_before(r, seq, strict);
    st->disk = NULL;
    session_ckpt_pos(st->mem, &st->p);
    /* images past this run's batch 0 are another session's (a fork's parent's) */
    while (e && e->op > r->disk.max_op)
        e = e > r->disk.e ? e - 1 : NULL;
    if (e && e->op <= r->log.nr_ops && e->op > st->mem->op &&
        e->op - st->mem->op > session_load_ops(r)) {
        st->disk = e;
        st->p.seq = e->seq;
        st->p.op = e->op;
        st->p.off = e->off;
    }
}

/*
 * Keep a copy of @m, loaded from a stored image at @p, as a checkpoint in
 * memory (in seq order), so the next seeks near it copy it instead of
 * loading it again; session_thin() drops it like any other when the budget
 * needs the room.  Nothing happens on host OOM (it is only a cache).
 */
static void session_ckpt_keep(struct session_run *r, const struct sim *m,
                              const struct session_pos *p, const uint64_t *totals)
{
    const struct checkpoint *before = session_ckpt_before(r, p->seq, false);
    struct checkpoint *c;
    struct sim *copy;
    size_t i;

    if (before->seq == p->seq || r->nr_ckpts == 0)
        return;
    if (r->nr_ckpts == r->cap_ckpts) {
        if (!(c = grow_array(r->ckpts, &r->cap_ckpts, r->nr_ckpts + 1, sizeof(*c), 64)))
            return;
        r->ckpts = c;
        before = session_ckpt_before(r, p->seq, false);
    }
    if (sim_clone(m, &copy))
        return;
    i = (size_t)(before - r->ckpts) + 1;
    memmove(&r->ckpts[i + 1], &r->ckpts[i], (r->nr_ckpts - i) * sizeof(r->ckpts[0]));
    c = &r->ckpts[i];
    memset(c, 0, sizeof(*c));
    c->sim = copy;
    c->bytes = sim_host_bytes(copy);
    c->seq = p->seq;
    c->op = p->op;
    c->off = p->off;
    memcpy(c->totals, totals, sizeof(c->totals));
    r->nr_ckpts++;
    r->ckpt_bytes += c->bytes;
    session_thin(r);
}

int session_start_open(struct session_run *r, struct session_start *st, struct sim **m)
{
    int err;

    if (st->disk) {
        if (!(err = ckpt_disk_load(&r->disk, st->disk, m, st->totals, NULL, NULL))) {
            /* an image keeps no pinned choices (the scenario's "choices") */
            if (r->scn->nr_choices &&
                (err = sim_choices_pin(*m, r->scn->choices, r->scn->nr_choices))) {
                sim_destroy(*m);
                *m = NULL;
                return err;
            }
            session_ckpt_keep(r, *m, &st->p, st->totals);
            return 0;
        }
        fprintf(stderr,
                "slublab serve: checkpoints of %s: the image at %llu does not load "
                "(error %d): replaying instead\n",
                r->disk.owner, (unsigned long long)st->disk->seq, err);
        st->disk = NULL;
        session_ckpt_pos(st->mem, &st->p);
    }
    memcpy(st->totals, st->mem->totals, sizeof(st->totals));
    return session_ckpt_copy(st->mem, m, &st->p);
}

void session_ckpt_spill(struct session_run *r, const struct checkpoint *c)
{
    const struct ckpt_disk_entry *prev, *next;
    struct ckpt_disk *d = &r->disk;

    if (!d->store || d->failed || !c->sim || c->op > d->max_op || ckpt_disk_at(d, c->seq))
        return;
    prev = ckpt_disk_before(d, c->seq, true);
    next = ckpt_disk_before(d, UINT64_MAX, false);
    if (prev && c->op - prev->op < d->min_ops)
        return;
    if (next && next->seq > c->seq) { /* the first stored one after c */
        size_t i = prev ? (size_t)(prev - d->e) + 1 : 0;

        if (i < d->nr && d->e[i].op - c->op < d->min_ops)
            return;
    }
    ckpt_disk_write(d, c->sim, c->seq, c->op, c->off, c->totals, NULL, 0);
}

/* ---- the state cache ---------------------------------------------------------- */

/* Empty cache entry @c.  Under r->cache_lock. */
static void session_cache_drop(struct session_run *r, struct session_cached *c)
{
    if (c->text)
        r->cache_bytes -= c->text->len + sizeof(struct blob);
    blob_put(c->text);
    memset(c, 0, sizeof(*c));
}

void session_cache_clear(struct session_run *r)
{
    unsigned i;

    pthread_mutex_lock(&r->cache_lock);
    for (i = 0; i < SESSION_CACHE; i++)
        session_cache_drop(r, &r->cache[i]);
    pthread_mutex_unlock(&r->cache_lock);
    session_run_recharge(r);
}

uint64_t session_cache_bytes(const struct session_run *r)
{
    return r->cache_bytes;
}

struct blob *session_state_cached(struct session *s, uint64_t at, sim_addr_t slab)
{
    struct session_run *r = session_run_get(s); /* the caller holds no lock of s */
    struct blob *b = NULL;
    unsigned i;

    pthread_mutex_lock(&r->cache_lock);
    for (i = 0; i < SESSION_CACHE; i++) {
        struct session_cached *c = &r->cache[i];

        if (c->text && c->at == at && c->slab == slab) {
            c->used = ++r->cache_clock;
            b = blob_get(c->text);
            break;
        }
    }
    pthread_mutex_unlock(&r->cache_lock);
    session_run_put(r);
    return b;
}

void session_cache_put(struct session *s, uint64_t at, sim_addr_t slab, struct blob *text)
{
    struct session_run *r = s->run;
    struct session_cached *victim = &r->cache[0];
    unsigned i;

    pthread_mutex_lock(&r->cache_lock);
    for (i = 0; i < SESSION_CACHE; i++) {
        if (!r->cache[i].text) {
            victim = &r->cache[i];
            break;
        }
        if (r->cache[i].used < victim->used)
            victim = &r->cache[i];
    }
    session_cache_drop(r, victim);
    victim->at = at;
    victim->slab = slab;
    victim->used = ++r->cache_clock;
    victim->text = blob_get(text);
    r->cache_bytes += text->len + sizeof(struct blob);
    /* a run with stored images keeps few: its memory is what lets a class
     * on its own seeds stay resident; the newest state always stays */
    while (session_ckpts_stored(r) && r->cache_bytes > r->lim.memory / SESSION_STORED_CACHE_SHARE) {
        struct session_cached *old = NULL;

        for (i = 0; i < SESSION_CACHE; i++)
            if (r->cache[i].text && &r->cache[i] != victim &&
                (!old || r->cache[i].used < old->used))
                old = &r->cache[i];
        if (!old)
            break;
        session_cache_drop(r, old);
    }
    pthread_mutex_unlock(&r->cache_lock);
    session_run_recharge(r);
}

void session_rest(struct session_run *r)
{
    if (!r->log_id[0])
        timeline_pack(&r->tl);
    if (r->have_rp)
        name_spans_seal(&r->rp.spans);
    session_run_recharge(r);
}

int session_timeline_open(struct session_run *r)
{
    return timeline_unpack(&r->tl);
}

uint64_t session_memory(const struct session *s)
{
    return session_run_memory(s->run);
}
