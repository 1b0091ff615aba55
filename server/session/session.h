/*
 * session.h: a session: one scenario on one machine, played and extended by
 * a user, seekable to any event.
 *
 * A session's inputs are a scenario (text), its settings (seed, model,
 * variants) and a list of batches: batch 0 is the scenario itself, each
 * later batch a JSON array of operations a user appended.  Each batch may
 * carry a limit (apply only its first N engine operations), which is how a
 * fork at a position inside a batch is written down.  The inputs are all
 * that is stored: replaying them rebuilds the session byte for byte.
 *
 * What the replay builds:
 *  - the head: a struct replay at the end, with the machine and the name
 *    table that appended operations refer to;
 *  - the op log (oplog.h): every engine operation and its event count;
 *  - checkpoints: copies of the machine (sim_clone) at operation
 *    boundaries, one every `ckpt_events` events, so the state after any
 *    event N is one clone plus at most about ckpt_events events away.  A
 *    clone copies every page the machine ever touched: when checkpoints
 *    would take the session past its memory budget, the densest ones are
 *    dropped (the gap they leave is the smallest), so spacing grows evenly
 *    instead of losing the recent past;
 *  - a cursor: the machine left behind by the last seek, so stepping
 *    forward costs one operation;
 *  - the timeline (timeline.h): counter samples and search summaries;
 *  - a cache of the last rendered states (blob.h).
 *
 * Positions are event counts: position N is the state after the first N
 * events.  N may fall inside an operation: the state is then captured from
 * the event callback in the middle of sim_apply().
 *
 * A session is a handle (id, token, position) on a run: what its inputs
 * build.  Sessions with the same inputs share one run (registry.c), so a
 * class that opens one scenario holds one copy of its checkpoints.
 *
 * Locking: every function here except session_new(), session_free(),
 * session_run_get() and session_state_cached() runs with s->lock and then
 * s->run->lock held by the caller (session_lock()).  The fields marked
 * "registry" are protected by the registry's lock instead (registry.c).
 * The state cache has its own small lock, so a cached state can be read
 * while a long seek holds the run.
 */
#ifndef SLUBLAB_SERVER_SESSION_SESSION_H
#define SLUBLAB_SERVER_SESSION_SESSION_H

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/blob.h"
#include "base/strbuf.h"
#include "scenario/replay.h"
#include "scenario/scenario.h"
#include "session/cache_rank.h"
#include "session/ckpt_disk.h"
#include "session/oplog.h"
#include "session/timeline.h"
#include "slub.h"

#define SESSION_TRIM_BYTES (16ull << 20) /* freeing a session this big returns memory to the system */
#define SESSION_ID_LEN     10    /* characters of a session id */
#define SESSION_TOKEN_LEN  32    /* hex characters of a write token */
#define SESSION_CACHE      32    /* rendered states kept */
#define SESSION_MAX_RANGE  1000u /* events per GET .../events */
#define SESSION_MAX_POINTS 2000u /* points per series */
#define SESSION_LOG_ID_MAX 32    /* characters of a stored op log's id */
#define SESSION_LOG_KEEP   16u   /* chunks of a stored op log kept in memory */
/* Host bytes of a checkpoint worth replaying one operation: a copy of a
 * machine of B bytes costs about what replaying B / this many operations does */
#define SESSION_CKPT_BYTES_PER_OP 4096u
/* The disk tier's page cache (ckpt_disk.h) may hold this share of a
 * session's memory: 1/8 */
#define SESSION_DISK_CACHE_SHARE 8u
/* A scenario's run stores images this many times as densely as a trace's
 * (--stored-checkpoint-ops / 8 operations apart, at least) */
#define SESSION_SCENARIO_DISK_DENSER 8u
/* ... and keeps checkpoints in memory up to this share of its budget: 1/512
 * (the empty machine and a copy or so of a scenario's, so that a class of
 * 300 on their own seeds stays resident; its seeks load stored images) ... */
#define SESSION_STORED_CKPT_SHARE 512u
/* ... and stored pages in its page cache, and rendered states, up to this
 * share each: 1/1024 */
#define SESSION_STORED_CACHE_SHARE 1024u

/* Errors, as negative errnos, and what HTTP makes of them. */
#define SESSION_EBADINPUT (-EINVAL) /* 400: the request or scenario is malformed */
#define SESSION_EUNPROCESSABLE                                                           \
    (-ERANGE)                    /* 422: no such object, CPU or node; the engine refused \
                                  */
#define SESSION_ELIMIT  (-E2BIG) /* 429: the session would pass one of its limits */
#define SESSION_EBROKEN (-EIO)   /* 500: the replay diverged (a bug) */

struct store;

struct session_limits {
    unsigned max_cpus;         /* machine.cpus allowed */
    unsigned max_nodes;        /* machine.nodes allowed */
    uint64_t max_mem_per_node; /* bytes of machine.mem_mb_per_node allowed */
    uint64_t memory;           /* host bytes per session, checkpoints included (estimate) */
    uint64_t max_ops;          /* engine operations per session */
    uint64_t ckpt_events;      /* events between checkpoints */
    uint64_t disk_min_ops;     /* operations between stored images, at least (ckpt_disk.h);
                                * UINT64_MAX: no disk tier */
};

/* A race op the run applied: where its first step is, and what it ran. */
struct session_race {
    uint64_t at; /* event number of its first step */
    uint64_t op; /* its index in the op log */
    int cache;
    struct sim_race race;
};

/* Seed, model and variants over the scenario's; a flag says what is set. */
struct session_settings {
    bool has_seed, has_model, has_kernel;
    uint64_t seed;
    enum sim_model model;
    enum sim_legacy_era era; /* with has_model */
    enum sim_release release; /* with has_kernel: "kernel", or a release given as "model" */
    bool has_variant[SIM_NR_VARIANTS];
    uint8_t variant[SIM_NR_VARIANTS];
};

struct session_batch {
    char *ops;                 /* JSON array of operations; NULL for batch 0, the scenario; owned */
    uint64_t limit;            /* engine operations of this batch to apply; REPLAY_NO_LIMIT: all */
    uint64_t op_start;         /* engine operations before it ... */
    uint64_t op_end;           /* ... and after it (valid once built) */
    uint64_t ev_start, ev_end; /* the same in events */
};

struct checkpoint {
    struct sim *sim; /* at an operation boundary; no event callback; NULL: none */
    /* NULL: @sim is this run's alone; else how many runs hold it (a fork's
     * run borrows the checkpoints of the run it was copied from), and the
     * last to let go destroys it.  Never set on a cursor. */
    atomic_uint *shared;
    uint64_t seq;    /* events applied */
    uint64_t op;     /* operations applied */
    size_t off;      /* oplog offset of the next operation */
    uint64_t bytes;  /* estimated host memory of sim */
    uint64_t totals[SIM_NR_STATS]; /* the timeline's counter totals here (not for the cursor) */
};

struct session_cached {
    uint64_t at;
    sim_addr_t slab;   /* 0: no slab bytes asked for */
    uint64_t used;     /* LRU clock */
    struct blob *text; /* NULL: empty entry */
};

/*
 * What a session's inputs build: the inputs themselves and the replay of
 * them (head, op log, timeline, checkpoints, cursor, rendered states).
 * Sessions whose inputs are the same share one run (registry.c keys runs
 * by their inputs); a run is read-only while shared, and a session that
 * writes first gets a run of its own (registry_own()).
 *
 * Lifetime: @refs counts the sessions attached, the registry's list and
 * anyone who pinned it (session_run_get()); the last session_run_put()
 * frees it.  The registry's fields are protected by its lock.
 * Locking: @lock protects everything below it; a session's holder takes
 * it after the session's own lock (route_open_session()).
 */
enum session_keep_state {
    SESSION_KEEP_NONE,
    SESSION_KEEP_QUEUED,  /* on the keeper's queue */
    SESSION_KEEP_WRITING, /* the keeper writes it now */
};

struct keeper;

struct session_run {
    atomic_uint refs;    /* lifetime: attached sessions and pins */
    pthread_mutex_t lock; /* everything below but the registry fields */
    struct session_limits lim;

    /* registry: protected by the registry's lock */
    bool keyed;               /* others with the same inputs may attach to it */
    bool counted;             /* on the registry's list, which holds a reference */
    uint64_t key;             /* session_run_key(), when keyed */
    struct session_run *next; /* the registry's list */
    unsigned scan_linked;     /* scratch of an eviction scan: sessions linked, */
    bool scan_held;           /* ... any of them held, */
    uint64_t scan_used;       /* ... the latest use of one */
    /* memory: what it holds now is charged to *charge_to (the registry's
     * total), updated under @lock whenever checkpoints, cursor or cache
     * change (session_run_recharge()) and taken back when it is freed */
    atomic_uint_least64_t *charge_to;
    atomic_uint_least64_t charged;
    /* set by the thread that builds it, under @lock */
    bool built;      /* the replay ran (successfully or not: see build_err) */
    int build_err;   /* the build failed: every session that attached sees it */
    char *build_msg; /* and why; owned */
    /* while it is built as a copy of another run (registry_own(), which holds
     * that run locked): take that run's checkpoints instead of new copies */
    struct session_run *base;

    /* inputs */
    char *scenario_text; /* owned */
    size_t scenario_len;
    char *scenario_label;             /* "default" or "scenario"; owned */
    struct session_settings settings; /* as requested; the full result is in cfg */
    struct session_batch *batches;    /* [0] is the scenario */
    size_t nr_batches, cap_batches;
    size_t batch_bytes; /* sum of the batches' ops texts */
    /* batch 0 replays this stored op log (docs/oplog.md) after the
     * scenario's own caches and operations: a replayed trace; "": none */
    char log_id[SESSION_LOG_ID_MAX + 1];
    struct store *log_store; /* where the log is, with log_id */
    char *canon;        /* the full settings as JSON, once keyed (session_run_key()); owned */

    /* built from the inputs */
    struct scenario *scn;
    struct sim_config cfg;
    struct replay rp; /* the head; rp.sim is the machine at the end */
    bool have_rp;
    struct oplog log;
    struct oplog_scratch scratch; /* input arrays of the log's operations, as they are applied */
    struct session_race *races;   /* the race ops run, in log order (GET /api/sessions/ID) */
    size_t nr_races, cap_races;
    struct timeline tl;
    struct checkpoint *ckpts; /* sorted by seq; ckpts[0] is the empty machine */
    size_t nr_ckpts, cap_ckpts;
    uint64_t ckpt_bytes; /* sum of ckpts[].bytes */
    uint64_t ckpt_every; /* events between checkpoints now: lim.ckpt_events, more once thinned */
    uint64_t ckpt_seq, ckpt_op; /* where the last checkpoint was taken (it may be gone) */
    uint64_t ckpt_min_ops;      /* operations before the next: the last copy's cost */
    /* the disk tier (ckpt_disk.h): images in @disk_store, set by the registry
     * before the build (NULL: none) */
    struct store *disk_store;
    struct ckpt_disk disk;
    /* operations the build ran: of the stored log (a trace's run), or all
     * of a scenario's but those of a batch 0 it loaded */
    uint64_t build_replayed;
    bool build_loaded; /* the build took batch 0's end from a stored image */
    bool disk_whole;   /* the store has batch 0's end with the run's state (a scenario's) */
    /* batch 0's end written after the open answered (keeper.h): @keep_later
     * is set by the registry before the build; the build then leaves the
     * end to the keeper (@keep_pending, under @lock, with where it is) */
    bool keep_later, keep_pending;
    uint64_t keep_seq, keep_op;
    size_t keep_off;
    /* the keeper's, under its lock: where the run is in its queue */
    enum session_keep_state keep_state;
    struct session_run *keep_next;
    _Atomic(struct keeper *) keeper; /* the keeper that has it queued, or NULL */
    struct checkpoint cursor;
    /* sim_host_bytes() of the head, measured at (head_sim, head_events): a
     * seek asks it many times of a head that has not moved */
    const struct sim *head_sim;
    uint64_t head_events, head_bytes;
    pthread_mutex_t cache_lock; /* cache[], cache_clock; changing them also needs @lock */
    struct session_cached cache[SESSION_CACHE];
    uint64_t cache_clock;
    uint64_t cache_bytes; /* held by cache[] */
    int hook_err;         /* an error seen by the event callback */
    /* Optional, set before session_build() and cleared after it: called by
     * the forward run with the operations applied so far, every
     * SESSION_PROGRESS_EVERY of them (so a caller may take a lock there),
     * not at the end. */
    void (*build_progress)(uint64_t ops, void *arg);
    void *build_progress_arg;
};

/*
 * A session: one user's handle on a run, with its own id, write token and
 * position.  Its run changes only under @lock (registry_own() gives it a
 * run of its own) and @run_lock; a reader that holds neither pins the run
 * with session_run_get().
 */
struct session {
    char id[SESSION_ID_LEN + 1];
    char token[SESSION_TOKEN_LEN + 1];
    char parent[SESSION_ID_LEN + 1]; /* the session it was forked from, or "" */
    pthread_mutex_t lock; /* the fields below but the registry's; taken before run->lock */

    /* registry: protected by the registry's lock */
    unsigned refs;        /* holders; the registry may evict only at 0 */
    uint64_t last_used;   /* registry clock */
    bool dead;            /* out of the table: freed with the last reference */
    struct session *next; /* hash chain */
    /* set by the thread that builds the session, under s->lock */
    atomic_bool ready; /* built; false while a thread builds it (also read without lock) */
    int build_err;     /* the build failed: every holder sees it */

    pthread_mutex_t run_lock;  /* @run: taken alone, to read or change the pointer */
    struct session_run *run;   /* never NULL; a reference */
    int64_t scenario_id;       /* the store's row, or 0 */
    uint64_t position;         /* the presenter's position */
    uint64_t pos_saved;        /* the position the store has */
    char created[32];          /* ISO 8601 UTC, set by the registry */
    char made_with[32];        /* SIM_VERSION that made it; "" when the store predates that */
    bool ckpts_named;          /* its row names its run's stored images (registry.c) */
};

/* Operations between two build_progress calls. */
#define SESSION_PROGRESS_EVERY 1024

/* The defaults: 64 CPUs, 8 nodes, 4 GiB per node, 128 MiB, 4M operations, 256 events. */
void session_limits_default(struct session_limits *lim);

/* A new, empty session; NULL on host OOM. */
struct session *session_new(const struct session_limits *lim);
/* Free a session and everything it holds; NULL is fine.  Nobody may hold it. */
void session_free(struct session *s);

/* A new run with no inputs, one reference and one user; NULL on host OOM. */
struct session_run *session_run_new(const struct session_limits *lim);
/* Drop a reference to @r; the last frees it.  NULL is fine. */
void session_run_put(struct session_run *r);
/* A reference to @s's run, for a reader that holds neither of its locks. */
struct session_run *session_run_get(struct session *s);
/* Charge what @r holds now (session_run_memory(), measured) to its
 * charge_to, if any.  Under r->lock.  Cannot fail. */
void session_run_recharge(struct session_run *r);
/* Give @s run @r (its reference is @s's now) and drop the one it had. */
void session_set_run(struct session *s, struct session_run *r);
/* Copy @src's inputs (scenario, label, settings, batches) into @dst, which
 * has none.  0 or -ENOMEM. */
int session_run_copy_inputs(struct session_run *dst, const struct session_run *src);

/* Lock @s, then its run (which cannot change while s->lock is held). */
void session_lock(struct session *s);
/* The other way round. */
void session_unlock(struct session *s);
/* As session_lock(), but without waiting: false if either lock is taken. */
bool session_trylock(struct session *s);

/* Set the inputs: copies of the scenario text and its label.  0 or -ENOMEM. */
int session_set_scenario(struct session *s, const char *text, size_t len, const char *label);
/* Add a batch input (restore, fork): a copy of @ops (NULL for batch 0) and its limit. */
int session_add_batch(struct session *s, const char *ops, uint64_t limit);
/* Parse {"seed":N,"kernel":"X.Y","model":"...","variants":{"NAME":"before"}}; NULL is "none".
 * 0 or SESSION_EBADINPUT with a message. */
int session_settings_parse(const cJSON *json, struct session_settings *st, struct strbuf *err);
/* The machine @scn runs on with settings @st over its own (seed, kernel or
 * model, variants; the scenario's explicit variants stay through a kernel)
 * into @cfg.  Cannot fail; sim_model_error() says whether the engine takes it. */
void session_settings_apply(const struct session_settings *st, const struct scenario *scn,
                            struct sim_config *cfg);
/* The full settings of a built session as that JSON (seed, model, every variant). */
cJSON *session_settings_json(const struct session *s);
/* The same of a run that is configured (session_configure()). */
cJSON *session_run_settings_json(const struct session_run *r);

/*
 * Replay the inputs: scenario, then every batch.  Returns 0, or
 * SESSION_EBADINPUT (the scenario does not parse), SESSION_EUNPROCESSABLE
 * (beyond the machine or the server's machine limits, or an operation
 * fails), SESSION_ELIMIT, -ENOMEM; the reason is in @err.
 */
int session_build(struct session *s, struct strbuf *err);
/* The first part of session_build(): parse the scenario and settle the
 * configuration (nothing runs).  Same errors. */
int session_configure(struct session *s, struct strbuf *err);
/* Hash everything that decides a configured run (scenario text and label,
 * full settings, batches, limits) into *key.  0 or -ENOMEM. */
int session_run_key(struct session_run *r, uint64_t *key);
/* The owner of a configured run's stored checkpoint images (ckpt_disk.h):
 * a hash of what its batch 0 is (scenario text, full settings, stored log),
 * without batch 0's limit or the scenario's label (which names it, as a
 * trace's upload and its restore do differently).  0 or -ENOMEM. */
int session_run_owner(struct session_run *r, char out[STORE_CKPT_OWNER_LEN + 1]);
/* True when two keyed runs have the same inputs. */
bool session_run_same_inputs(const struct session_run *a, const struct session_run *b);

/* What session_append() did. */
struct session_append_result {
    uint64_t ops_before, events_before; /* the end before the batch */
    size_t warnings_from;               /* the batch's warnings: rp.warnings[warnings_from..] */
};
/*
 * Apply @arr, an array of operations, at the end.  All or nothing: on any
 * failure the session is as before.  Returns 0, SESSION_EBADINPUT,
 * SESSION_EUNPROCESSABLE, SESSION_ELIMIT or -ENOMEM with the reason in @err.
 */
int session_append(struct session *s, const cJSON *arr, struct session_append_result *res,
                   struct strbuf *err);
/*
 * Give @child (new, empty) the inputs of @s up to position @at: every
 * operation that completed by then and the one in progress at @at.  0,
 * SESSION_EBADINPUT (at beyond the end) or -ENOMEM.  The child is not built.
 */
int session_fork_inputs(struct session *s, uint64_t at, struct session *child);

/*
 * A scenario's run between requests keeps its timeline's samples and
 * overview packed (timeline_pack()): they are most of what it holds, and
 * only series and the overview read them, each from a view of its own
 * (timeline_view()); and a run keeps its name spans sealed
 * (name_spans_seal()), which states read as they are and an append or a
 * walk unseals.  session_rest() packs and seals them (a trace's run keeps
 * its timeline: its overview answers from memory); a failure leaves them
 * as they are.  Under the run's lock.  Cannot fail.
 */
void session_rest(struct session_run *r);
/* The timeline's samples and overview in memory again, for an append,
 * which calls session_rest() after.  0, -ENOMEM or -EIO. */
int session_timeline_open(struct session_run *r);

/* Events and operations at the end. */
uint64_t session_nr_events(const struct session *s);
uint64_t session_nr_ops(const struct session *s);
/* Estimated host bytes: head, log, timeline, checkpoints, cursor, cache. */
uint64_t session_memory(const struct session *s);

/*
 * What a seek shows its caller (present/json_position.c renders it): the
 * event that ends at the position, then the machine there.  Either may be
 * NULL.  A callback's non-zero return (a negative errno) ends the seek
 * with that error.
 */
struct session_view {
    /* @ev is event at - 1; not called at position 0 */
    int (*event)(const struct sim_event *ev, void *arg);
    /* @m is the machine at the position, @snap its snapshot; called once */
    int (*state)(const struct sim *m, const struct sim_snapshot *snap, void *arg);
    void *arg;
};
/*
 * Replay to position @at and show it to @v (NULL: no callbacks).  0 with
 * *snap owned by the caller (sim_snapshot_release()) when @snap is not
 * NULL, SESSION_EBADINPUT (at beyond the end), SESSION_EBROKEN, -ENOMEM or
 * a callback's error.
 */
int session_visit(struct session *s, uint64_t at, const struct session_view *v,
                  struct sim_snapshot **snap, struct strbuf *err);
/*
 * Show every position 0..end to @v in order, as session_visit() would show
 * each (v->event with event at - 1, then v->state), in one forward replay
 * with no copy of the machine; @done(at, v->arg) follows each position's
 * callbacks.  0, SESSION_EBROKEN, -ENOMEM or a callback's error.
 */
int session_walk(struct session *s, const struct session_view *v,
                 int (*done)(uint64_t at, void *arg));
/* The engine snapshot at position @at: session_visit() with no callbacks. */
int session_snapshot(struct session *s, uint64_t at, struct sim_snapshot **out, struct strbuf *err);
/* The cached rendering of position @at (and @slab), or NULL; a reference
 * the caller drops.  Needs no s->lock. */
struct blob *session_state_cached(struct session *s, uint64_t at, sim_addr_t slab);
/* Keep rendering @text (a reference is taken) of position @at (and @slab),
 * evicting the least recently used.  Cannot fail. */
void session_cache_put(struct session *s, uint64_t at, sim_addr_t slab, struct blob *text);

/*
 * Replay events with seq in [*from, *to) through @fn, after clamping the
 * range to the end and to SESSION_MAX_RANGE events (the clamped range is
 * written back).  0, SESSION_EBROKEN or -ENOMEM.
 */
int session_events(struct session *s, uint64_t *from, uint64_t *to, sim_event_fn fn, void *arg);

/*
 * The caches of events [from, to) ranked (session/cache_rank.h): one replay
 * of the range, whatever its length, and the snapshot at @to for each
 * cache's objects.  @out is the caller's (CACHE_RANK_INIT, released with
 * cache_rank_release()); rows by cache id.  0, SESSION_EBROKEN or -ENOMEM.
 */
int session_caches(struct session *s, uint64_t from, uint64_t to, struct cache_rank *out,
                   struct strbuf *err);

/*
 * The whole run of @s again on a machine of @cfg (another variant, release
 * or model; session/rerun.c), @fn seeing its events: each logged free goes
 * to the object the same allocation made there.  *out is that machine at
 * the end (the caller's; sim_destroy()); *unmatched counts frees of objects
 * the other machine never made.  0, SESSION_EUNPROCESSABLE (the log holds
 * operations other than a trace's), SESSION_EBROKEN, -ENOMEM, or the
 * engine's refusal of an operation.
 */
int session_rerun(struct session *s, const struct sim_config *cfg, sim_event_fn fn, void *arg,
                  struct sim **out, uint64_t *unmatched);

/* Counter totals (every cache and CPU) at positions spread over [from, to]. */
struct session_series {
    uint64_t from, to;  /* the range, clamped to the end */
    const char *source; /* "samples" (the timeline's) or "replay" */
    uint64_t interval;  /* the timeline's sampling interval */
    size_t n, cap;      /* positions; values has cap columns */
    uint64_t *pos;      /* [n], owned */
    uint64_t *values;   /* [nr_items][cap], owned: item k at pos[i] is values[k * cap + i] */
};
/*
 * At most @points positions evenly spread over [from, to]; long ranges
 * come from the timeline's samples, short ones from a replay.  0 with @out
 * filled (session_series_release()), SESSION_EBROKEN or -ENOMEM.
 */
int session_series(struct session *s, const unsigned *items, size_t nr_items, uint64_t from,
                   uint64_t to, unsigned points, struct session_series *out);
/* Free what session_series() filled; a zeroed one is fine. */
void session_series_release(struct session_series *ser);

/* What session_search() found. */
struct session_found {
    bool found;
    uint64_t seq;        /* when found: the matching event's seq */
    uint64_t scanned_to; /* when not: the position the scan reached */
    bool complete;       /* when not: false if the budget ran out first */
};
/*
 * The next event matching @q with seq >= @from (@prev false), or the last
 * with seq < @from - 1 (@prev true).  @fn sees each matching event of the
 * block that decides (the found one last).  Replays at most @budget
 * events, after which it answers not found and not complete, with
 * scanned_to where the client can go on.  0, SESSION_EBROKEN or -ENOMEM.
 */
int session_search(struct session *s, const struct timeline_query *q, uint64_t from, bool prev,
                   uint64_t budget, sim_event_fn fn, void *arg, struct session_found *out);

enum session_step_by { SESSION_BY_EVENT, SESSION_BY_OP };
/* The position @count events or operation boundaries away from @at (clamped to [0, end]). */
int session_step(struct session *s, uint64_t at, enum session_step_by by, bool prev, uint64_t count,
                 uint64_t *target);

#endif /* SLUBLAB_SERVER_SESSION_SESSION_H */
