/*
 * registry.h: the sessions in memory, by id.
 *
 * Sessions with the same inputs share one run (session.h): the memory
 * bound counts runs.  At most max_live runs are kept; the least recently
 * used one none of whose sessions is held is evicted with its sessions to
 * make room (their inputs are in the store, their positions are written
 * there first), and rebuilt by replay when one of them is asked for again.
 * A holder takes a reference with registry_get() and gives it back with
 * registry_put(); a session is freed only when it is out of the table and
 * its last reference is gone.
 *
 * A session being rebuilt is in the table already, with its lock held by
 * the building thread: a second request for it takes a reference and waits
 * on the session's lock, then finds it ready (or its build_err).
 */
#ifndef SLUBLAB_SERVER_SESSION_REGISTRY_H
#define SLUBLAB_SERVER_SESSION_REGISTRY_H

#include <stdbool.h>

#include "base/strbuf.h"
#include "session/session.h"

struct store;
struct registry;

/* The live sessions of one server over @store: at most @max_live runs in
 * memory, which hold at most @memory bytes together (0: no such bound),
 * measured; a new run is admitted when lim->memory, what it may grow to,
 * still fits.  Each is built with @lim (both outlive the registry).  0 or
 * -ENOMEM. */
int registry_new(struct store *store, const struct session_limits *lim, unsigned max_live,
                 uint64_t memory, struct registry **out);
/* How many sessions it holds in memory at most. */
unsigned registry_max_live(struct registry *reg);
/* Write every live session's position to the store and free them all; NULL is fine. */
void registry_free(struct registry *reg);

/*
 * Take a reference to session @id.  A session not in memory is rebuilt from
 * the store, which takes a while: with @may_block false that returns
 * -EAGAIN instead.  Returns 0, -ENOENT (no such session), -EBUSY (no room:
 * every live session is held), -EAGAIN or -ENOMEM.  The caller then locks
 * s->lock and checks s->ready.
 */
int registry_get(struct registry *reg, const char *id, bool may_block, struct session **out);
/* Drop a reference.  NULL is fine. */
void registry_put(struct registry *reg, struct session *s);
/*
 * Register @s, freshly built: give it an id and a token, store it, and
 * take a reference for the caller.  Returns 0, -EBUSY or an error of the
 * store (then @s is freed).
 */
int registry_add(struct registry *reg, struct session *s);
/* Is session @id in memory (live or being built)? */
bool registry_has_live(struct registry *reg, const char *id);
/* Record batch @seq that session @s (locked, held) just appended (and its overview). */
int registry_save_batch(struct registry *reg, struct session *s, size_t seq);
/* Write @s's position (locked, held) to the store when it moved since the
 * last write.  0, or the store's error (the position stays in memory). */
int registry_save_position(struct registry *reg, struct session *s);
/* True when @s (held) was deleted or dropped since it was taken. */
bool registry_gone(struct registry *reg, const struct session *s);
/* Forget @s (held): it will be rebuilt from the store the next time (after a failed save). */
void registry_drop(struct registry *reg, struct session *s);
/* Delete session @id from memory and the store.  0 or -ENOENT. */
int registry_delete(struct registry *reg, const char *id);
/* Runs (timelines) in memory now: what the memory bound counts. */
unsigned registry_live(struct registry *reg);
/* What is in memory now. */
struct registry_counts {
    unsigned runs, sessions;
    uint64_t charged; /* bytes the runs hold, measured */
    uint64_t budget;  /* bytes they may hold together; 0: no bound */
};
void registry_counts(struct registry *reg, struct registry_counts *c);
/*
 * Build @s (new, not in the table, with its inputs set) the cheap way: if a
 * run with the same inputs is in memory, @s shares it; else @s's run is
 * built and others with the same inputs share it from then on.  Returns
 * what session_build() does, or -EBUSY (no room for another run).
 */
int registry_build(struct registry *reg, struct session *s, struct strbuf *err);
/*
 * Make @s's run its own before @s changes it (an append): a run shared with
 * other sessions is built again for @s alone (fork on write).  The caller
 * holds @s locked (session_lock()) and still does after, on the new run.
 * 0, -EBUSY, -ENOMEM or SESSION_EBROKEN with @err.
 */
int registry_own(struct registry *reg, struct session *s, struct strbuf *err);

/* Delete the sessions not changed for @days days, from memory (once
 * nobody holds them) and from the store; how many in *expired.  0 or the
 * store's error. */
int registry_expire(struct registry *reg, unsigned days, uint64_t *expired);

/* What writes the end of the scenario runs it builds (keeper.h), or NULL. */
struct keeper *registry_keeper(struct registry *reg);

#endif /* SLUBLAB_SERVER_SESSION_REGISTRY_H */
