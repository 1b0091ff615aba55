/*
 * session_internal.h: what session.c (inputs, build, append, fork, info) and
 * session_seek.c (positions: states, events, series, search, steps) take from
 * checkpoint.c, the floor under both.  Not a public header.  Everything runs
 * under s->lock.
 */
#ifndef SLUBLAB_SERVER_SESSION_SESSION_INTERNAL_H
#define SLUBLAB_SERVER_SESSION_SESSION_INTERNAL_H

#include "session/session.h"

/* A point in the op log: after seq events and op operations, next record at off. */
struct session_pos {
    uint64_t seq, op;
    size_t off;
};

/* What the keeper writes of a run's end (keeper.h): a copy of the head,
 * the run's state (packed by session_keep_pack()) and where they are. */
struct session_keep {
    struct sim *m; /* NULL: nothing to write */
    unsigned char *state;
    size_t len;
    struct session_pos end;
    uint64_t totals[SIM_NR_STATS];
};

/* session.c */

/* Under r->lock: take what the keeper writes of @r's pending end into *kp
 * (kp->m NULL when there is nothing to write: not pending, the run moved
 * on since, or the tier is off).  0 or -ENOMEM. */
int session_keep_prepare(struct session_run *r, struct session_keep *kp);
/* Pack kp's state (no lock needed).  0 or -ENOMEM. */
int session_keep_pack(struct session_keep *kp);
/* Under r->lock: store the image with its packed state (none when kp->m is
 * NULL) and the images that waited for it (ckpt_disk_flush()), in one
 * transaction.  0, -ENOMEM or the store's error (the tier stops writing; a
 * later build replays). */
int session_keep_finish(struct session_run *r, struct session_keep *kp);
/* Free what *kp holds. */
void session_keep_release(struct session_keep *kp);

/* checkpoint.c */

/* Host bytes of one copy of the machine: the head's sim_host_bytes(), or
 * before there is a head an estimate from the timeline's pages. */
uint64_t session_sim_bytes(struct session_run *r);
/* Estimated host bytes of a run: head, log, timeline, checkpoints, cursor, cache. */
uint64_t session_run_memory(struct session_run *r);
/* Drop the densest checkpoints (and the cursor) until the session fits its budget. */
void session_thin(struct session_run *r);
/* A checkpoint of the head, which is at the end of the log.  0, -ENOMEM or
 * -E2BIG (the session no longer fits its budget). */
int session_ckpt_add(struct session_run *r);
/* The same with the head at @p, which may be before the end of the log (a
 * session replaying a stored log). */
int session_ckpt_add_at(struct session_run *r, const struct session_pos *p);
/* Is a checkpoint due with the head at @seq events, @op operations? */
bool session_ckpt_due(const struct session_run *r, uint64_t seq, uint64_t op);
/* Forget the checkpoints (and the cursor) past operation @op, as a failed
 * append rolls back.  Checkpoint 0 stays.  Cannot fail. */
void session_ckpt_truncate(struct session_run *r, uint64_t op);
/* Let go of checkpoint @c's machine (destroyed by the last run holding it). */
void session_ckpt_release(struct checkpoint *c);
/* Release the cursor.  Cannot fail. */
void session_cursor_drop(struct session_run *r);
/* The last checkpoint with seq < @seq (@strict) or <= @seq; ckpts[0] when none. */
const struct checkpoint *session_ckpt_before(const struct session_run *r, uint64_t seq, bool strict);
/* Where a checkpoint is. */
void session_ckpt_pos(const struct checkpoint *c, struct session_pos *p);
/* A copy of checkpoint @c's machine into *m, at *p.  0 or -ENOMEM. */
int session_ckpt_copy(const struct checkpoint *c, struct sim **m, struct session_pos *p);
/*
 * Apply the log record at @p to @m (whose event callback the caller set)
 * and advance @p.  Returns 0, -ENOENT at the end of the log, -ENOMEM, or
 * SESSION_EBROKEN when the engine does not do what the log says it did.
 */
int session_apply_next(struct session_run *r, struct sim *m, struct session_pos *p);
/* Peek at the event count of the record at @p; false at the end of the log. */
bool session_peek_events(struct session_run *r, const struct session_pos *p, uint64_t *events);
/* Where a replay to a position starts: a checkpoint in memory, or a stored
 * image (ckpt_disk.h) further on when loading it costs less than replaying
 * the gap between them. */
struct session_start {
    struct session_pos p;
    const struct checkpoint *mem;       /* when @disk is NULL */
    const struct ckpt_disk_entry *disk; /* NULL: start from @mem */
    uint64_t totals[SIM_NR_STATS];      /* the timeline's totals at @p, once opened */
};
/* The start for position @seq (before it when @strict, else at or before it). */
void session_start_before(struct session_run *r, uint64_t seq, bool strict,
                          struct session_start *st);
/* A machine at @st into *m (a copy, or a load that falls back to the copy
 * of the checkpoint in memory before it, updating @st).  0 or -ENOMEM. */
int session_start_open(struct session_run *r, struct session_start *st, struct sim **m);
/* Keep checkpoint @c in the store before it is dropped from memory, when it
 * is inside batch 0 and no stored image is nearer than the tier's spacing. */
void session_ckpt_spill(struct session_run *r, const struct checkpoint *c);
/* Empty the state cache.  Cannot fail. */
void session_cache_clear(struct session_run *r);
/* Bytes the state cache holds. */
uint64_t session_cache_bytes(const struct session_run *r);

#endif /* SLUBLAB_SERVER_SESSION_SESSION_INTERNAL_H */
