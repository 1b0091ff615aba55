/*
 * oplog.h: the engine operations of a session, as a compact byte stream.
 *
 * A session replays its scenario and the operations users append through
 * server/scenario/replay.c, which expands repeats and resolves names.  Seeking
 * back must not walk the scenario again, so every operation the engine carried
 * out is also logged here as the plain struct sim_op it was, plus the number of
 * events it emitted: replaying the log from a checkpoint gives the same events,
 * byte for byte (the engine is deterministic).  Records are variable length
 * (about 6 bytes, 14 with an address; an operation the compact form cannot
 * express is stored whole), so a checkpoint remembers the byte offset of the
 * record that follows it; the log is only read forward from such an offset.
 */
#ifndef SLUBLAB_SERVER_SESSION_OPLOG_H
#define SLUBLAB_SERVER_SESSION_OPLOG_H

#include <stddef.h>
#include <stdint.h>

#include "slub.h"

struct oplog {
    uint8_t *buf;       /* len bytes of records; owned */
    size_t len, cap;    /* len <= cap */
    uint64_t nr_ops;    /* records in buf */
    uint64_t nr_events; /* sum of their event counts */
};

#define OPLOG_INIT       \
    {                    \
        NULL, 0, 0, 0, 0 \
    }

/* Append @op (op->out is not logged) and the @events it emitted.  0 or -ENOMEM. */
int oplog_append(struct oplog *log, const struct sim_op *op, uint64_t events);
/* Where oplog_next() puts an operation's input array (free_bulk's objects)
 * and a race's contexts and schedule. */
struct oplog_scratch {
    sim_addr_t *in; /* owned by the caller: free() it */
    size_t cap;
    struct sim_race *race; /* a race's contexts; owned by the caller: free() it */
};

/*
 * Decode the record at *off into @op and *events, and move *off past it.
 * op->out is NULL; op->in points into @scratch (grown as needed), or is NULL
 * when @scratch is NULL (to skip records without applying them).  Returns
 * 0, -ENOENT at the end of the log, or -EIO when the bytes are not a record
 * or the scratch cannot grow.
 */
int oplog_next(const struct oplog *log, size_t *off, struct sim_op *op, uint64_t *events,
               struct oplog_scratch *scratch);
/* Forget everything after byte @len, which then holds @nr_ops and @nr_events.  Cannot fail. */
void oplog_truncate(struct oplog *log, size_t len, uint64_t nr_ops, uint64_t nr_events);
/* Free the buffer; NULL is fine. */
void oplog_release(struct oplog *log);

#endif /* SLUBLAB_SERVER_SESSION_OPLOG_H */
