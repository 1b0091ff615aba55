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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "slub.h"

/*
 * The log is a list of chunks of about OPLOG_CHUNK bytes; a record never
 * spans two (a record bigger than OPLOG_CHUNK has a chunk of its own).  An
 * offset is the chunk's index times 2^OPLOG_AT_BITS plus the byte in it:
 * 2^32 where size_t has 64 bits; where it has 32 (the WebAssembly build,
 * docs/wasm.md) 2^20, so a record is under 1 MiB there and a log has at
 * most 4,096 chunks (256 MiB and more).  With a disk
 * tier (struct oplog_tier), a chunk is written out when the next one starts
 * (it is then "stored") and may be dropped from memory: reading it again
 * loads it, and at most tier.keep stored chunks stay in memory (least
 * recently read first out).  A stored chunk that is cut (oplog_truncate())
 * is in memory only from then on.
 */
#define OPLOG_CHUNK        65536u
#define OPLOG_AT_BITS      (SIZE_MAX > 0xffffffffu ? 32u : 20u)
#define OPLOG_OFF(idx, at) (((size_t)(idx) << OPLOG_AT_BITS) | (size_t)(at))

struct oplog_tier {
    /* Write chunk @idx (@len bytes holding @ops records and @events events),
     * replacing any chunk @idx stored before.  0 or a negative errno. */
    int (*put)(void *arg, uint64_t idx, const uint8_t *buf, size_t len, uint64_t ops,
               uint64_t events);
    /* Read chunk @idx into a malloc()ed *buf of *len bytes.  0 or a negative errno. */
    int (*get)(void *arg, uint64_t idx, uint8_t **buf, size_t *len);
    void *arg;
    unsigned keep; /* stored chunks kept in memory, at least 1 */
};

struct oplog_chunk {
    uint8_t *buf;  /* NULL: stored and not in memory; owned */
    uint32_t len;  /* bytes of records */
    uint32_t cap;  /* bytes allocated */
    bool stored;   /* the tier holds exactly these len bytes */
    uint64_t used; /* LRU clock of the last read */
};

struct oplog {
    struct oplog_chunk *chunks; /* owned */
    size_t nr_chunks, cap_chunks;
    size_t len;         /* offset just past the last record */
    uint64_t nr_ops;    /* records in the log */
    uint64_t nr_events; /* sum of their event counts */
    uint64_t resident;  /* bytes of chunk buffers in memory */
    unsigned nr_loaded; /* stored chunks in memory */
    uint64_t clock;
    uint64_t chunk_ops, chunk_events; /* records and events of the last chunk */
    struct oplog_tier tier;           /* put NULL: memory only */
    int tier_err;                     /* the first error of the tier, sticky */
};

#define OPLOG_INIT \
    {              \
        0          \
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
int oplog_next(struct oplog *log, size_t *off, struct sim_op *op, uint64_t *events,
               struct oplog_scratch *scratch);
/* Forget everything after offset @len, which then holds @nr_ops and @nr_events.
 * 0, or -EIO when the chunk to cut cannot be read back from the tier. */
int oplog_truncate(struct oplog *log, size_t len, uint64_t nr_ops, uint64_t nr_events);
/* Write out the last chunk too (the log's end is then stored).  0 or the tier's error. */
int oplog_flush(struct oplog *log);
/* Open a log the tier already holds: @nr_chunks chunks, the last of @last_len
 * bytes, @nr_ops records of @nr_events events.  Nothing is read until
 * needed; chunks appended later stay in memory unless @tier can put.
 * 0 or -ENOMEM. */
int oplog_open_stored(struct oplog *log, const struct oplog_tier *tier, uint64_t nr_chunks,
                      size_t last_len, uint64_t nr_ops, uint64_t nr_events);
/* A log held in memory, whole, as bytes appended to @w (its chunks as they
 * are, so offsets into it stay valid in the copy oplog_restore() makes).
 * -EINVAL for a log with a tier (its chunks are the store's), else 0; a
 * strbuf that cannot grow says so itself (strbuf_failed()). */
int oplog_save(const struct oplog *log, struct strbuf *w);
/* A log saved by oplog_save() from @data (@len bytes) into @log, which is
 * released first; *used is how many bytes it read.  0, -EINVAL or -ENOMEM. */
int oplog_restore(struct oplog *log, const unsigned char *data, size_t len, size_t *used);
/* Host bytes the log holds in memory. */
uint64_t oplog_memory(const struct oplog *log);
/* Free the buffers; NULL is fine. */
void oplog_release(struct oplog *log);

#endif /* SLUBLAB_SERVER_SESSION_OPLOG_H */
