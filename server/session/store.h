/*
 * store.h: what the server keeps in SQLite: scenarios, sessions (their
 * inputs, restorable by replay), snapshots, lectures and trace jobs' rows.
 * The same interface keeps them in PostgreSQL (store_pg.c), where several
 * servers may share them and send each other messages (store_notify()).
 *
 * One database file in WAL mode with synchronous=FULL, so a write is on disk
 * before the call that made it returns: a snapshot whose save was
 * acknowledged survives a kill of the server.  The schema is versioned with
 * PRAGMA user_version and brought up to date by migrations when the file is
 * opened; a file newer than this program is refused.  Every statement is
 * prepared once with bound parameters.  One connection serves every thread,
 * behind the store's mutex.
 *
 * Functions return 0 or a negative errno: -ENOENT (no such row), -EEXIST
 * (the id is taken), -ENOMEM, -EIO (the database failed; the message goes to
 * stderr).  Strings handed out are the caller's to free().
 */
#ifndef SLUBLAB_SERVER_SESSION_STORE_H
#define SLUBLAB_SERVER_SESSION_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/strbuf.h"

#define STORE_SCHEMA_VERSION 12
#define STORE_ID_MAX         32 /* characters of a session or snapshot id, at most */

struct store;

struct store_batch {
    char *ops;      /* JSON array text, or NULL for the scenario */
    uint64_t limit; /* engine operations to apply, or UINT64_MAX for all */
};

struct store_session {
    char id[STORE_ID_MAX + 1];
    char token[STORE_ID_MAX + 1];
    char parent[STORE_ID_MAX + 1]; /* "" when none */
    int64_t scenario;              /* scenarios row */
    char *scenario_name;
    char *scenario_text;
    char *settings; /* JSON */
    uint64_t position, events;
    char created[32];
    char engine[32]; /* SIM_VERSION of the engine that made it; "" when older than that record */
    /* the stored op log batch 0 replays instead of the scenario's operations
     * (a replayed trace, and the sessions forked from it); "" when none */
    char log[STORE_ID_MAX + 1];
    struct store_batch *batches;
    size_t nr_batches;
};

struct store_snapshot {
    char id[STORE_ID_MAX + 1];
    char token[STORE_ID_MAX + 1];
    char session[STORE_ID_MAX + 1]; /* the session it was taken from, or "" */
    char *title;
    int64_t scenario;
    char *scenario_name;
    char *scenario_text;
    char *settings; /* JSON */
    char *batches;  /* JSON: [{"ops": [...] or null, "limit": N or null}] */
    uint64_t position;
    char *engine; /* SIM_VERSION of the engine that rendered state */
    char *state;  /* the rendered state JSON */
    char created[32];
    /* what replaying it gave, kept so that it is done once per engine:
     * NULL until store_snapshot_set_check() */
    char *check_engine;  /* the SIM_VERSION that replayed it */
    char *check_status;  /* "verified" or "stored" */
    char *check_warning; /* the warning shown with it, or NULL */
    bool published;      /* its author listed it for everyone (GET /api/snapshots) */
    /* the stored op log its batch 0 replays (a snapshot of a replayed
     * trace, docs/oplog.md); "" when none.  The log outlives the sessions
     * that made it while a snapshot refers to it. */
    char log[STORE_ID_MAX + 1];
    char *note; /* its author's note (Markdown-free text), or NULL */
};

/* A presenter's lecture (http/lecture.h) as kept across restarts. */
struct store_lecture {
    char id[STORE_ID_MAX + 1];
    char token[STORE_ID_MAX + 1];   /* its write token, kept as sessions' are */
    char session[STORE_ID_MAX + 1]; /* "" until the presenter names one */
    uint64_t position, events, ops; /* the session's, as last set (loading takes the
                                     * stored session's position and end when it has one) */
};

/* The name of a store held in memory, gone with the process (store_mem.c):
 * the lab without a server keeps its sessions there. */
#define STORE_MEM_DB "mem:"

/* Open (creating and migrating as needed).  0, or -EIO with a message in @err. */
int store_open(const char *path, struct store **out, struct strbuf *err);
/* Close; NULL is fine. */
void store_close(struct store *st);

/* The row holding exactly @text (inserted when new); its id in *id. */
int store_scenario_put(struct store *st, const char *name, const char *text, size_t len,
                       bool builtin, int64_t *id);

/* A new session with its batches, in one transaction.  -EEXIST when the id is taken. */
int store_session_create(struct store *st, const struct store_session *ss);
/* Append batch @seq of session @id, and its new event count. */
int store_session_add_batch(struct store *st, const char *id, size_t seq,
                            const struct store_batch *b, uint64_t events);
/* Remember the presenter's position. */
int store_session_set_position(struct store *st, const char *id, uint64_t position);
/* Load a session, scenario text and batches included; store_session_free() it. */
int store_session_load(struct store *st, const char *id, struct store_session *out);
void store_session_free(struct store_session *ss);
int store_session_delete(struct store *st, const char *id);
/* Keep @len bytes of session @id's overview (overview.h's serialized form),
 * replacing the one kept.  0, or the store's error (a gone session is none). */
int store_session_set_overview(struct store *st, const char *id, const void *data, size_t len);
/* The overview kept for @id in *data (caller frees) and *len; -ENOENT when none is. */
int store_session_overview(struct store *st, const char *id, unsigned char **data, size_t *len);
/* How many batches session @id has in the store (0 when there is no such session). */
int store_session_batches(struct store *st, const char *id, uint64_t *nr);
/* Session @id's stored position and event count (the latest any server
 * sharing the store wrote).  0, -ENOENT or -EIO. */
int store_session_where(struct store *st, const char *id, uint64_t *position, uint64_t *events);
/* True when other servers may share the store (PostgreSQL): what a server
 * holds in memory may be behind it. */
bool store_shared(const struct store *st);
/*
 * Op logs (oplog.h's chunks, docs/oplog.md), named by the id of the session
 * they were made for and shared by the sessions forked from it.
 */
/* Write chunk @seq of log @log (replacing it).  0, -ENOMEM or -EIO. */
int store_oplog_put(struct store *st, const char *log, uint64_t seq, const uint8_t *data,
                    size_t len, uint64_t ops, uint64_t events);
/* Read chunk @seq into a malloc()ed *data of *len bytes.  0, -ENOENT, -ENOMEM or -EIO. */
int store_oplog_get(struct store *st, const char *log, uint64_t seq, uint8_t **data, size_t *len);
/* How many chunks log @log has, their records and events, and the last one's bytes. */
int store_oplog_info(struct store *st, const char *log, uint64_t *chunks, uint64_t *ops,
                     uint64_t *events, size_t *last_len);
/* Read chunk @seq with its records and events (an export of the log).  As store_oplog_get(). */
int store_oplog_chunk(struct store *st, const char *log, uint64_t seq, uint8_t **data, size_t *len,
                      uint64_t *ops, uint64_t *events);
/* Delete log @log unless a session or a snapshot still replays it.  0 or -EIO. */
int store_oplog_delete(struct store *st, const char *log);

/*
 * Checkpoint images (session/ckpt_disk.h): a run's machine at a position,
 * kept by @owner (STORE_CKPT_OWNER_LEN hex digits naming what a run's batch 0
 * is) and @tag (sim_image_tag(): images of another format are not read).
 * An image is its meta and a list of its pages' (address, hash); each page's
 * bytes are stored once per owner under their hash, so consecutive images
 * share the pages that did not change.  All blobs are opaque here (the
 * writer compresses them).  They go with the last session naming @owner
 * (store_session_set_ckpts()).
 */
#define STORE_CKPT_OWNER_LEN 32
#define STORE_CKPT_HASH_LEN  16

struct store_ckpt_page {
    uint8_t hash[STORE_CKPT_HASH_LEN];
    const void *data; /* the stored bytes */
    size_t len;
};

struct store_ckpt {
    uint64_t seq, op, off;      /* events and operations applied, op log offset of the next */
    void *meta, *pages, *extra; /* extra: NULL when none */
    size_t meta_len, pages_len, extra_len;
};

/* Store @n pages of @owner in one transaction; a hash already stored keeps
 * its bytes.  0, -ENOMEM or -EIO. */
int store_ckpt_pages_put(struct store *st, const char *owner, const struct store_ckpt_page *pages,
                         size_t n);
/* Store image @c (replacing one at the same seq).  0, -ENOMEM or -EIO. */
int store_ckpt_put(struct store *st, const char *owner, const char *tag,
                   const struct store_ckpt *c);
/* Store @nr_pages pages, then @nr images, in one transaction (all or none).
 * 0, -ENOMEM or -EIO. */
int store_ckpt_put_all(struct store *st, const char *owner, const char *tag,
                       const struct store_ckpt_page *pages, size_t nr_pages,
                       const struct store_ckpt *c, size_t nr);
/* Call @fn for each image of @owner and @tag, by seq; a non-zero return of
 * @fn stops and is returned.  0, -EIO or @fn's error. */
int store_ckpt_list(struct store *st, const char *owner, const char *tag,
                    int (*fn)(void *arg, uint64_t seq, uint64_t op, uint64_t off, bool has_extra),
                    void *arg);
/* Image at @seq into @out (malloc()ed blobs: store_ckpt_free()).  0, -ENOENT,
 * -ENOMEM or -EIO. */
int store_ckpt_get(struct store *st, const char *owner, const char *tag, uint64_t seq,
                   struct store_ckpt *out);
void store_ckpt_free(struct store_ckpt *c);
/* The stored bytes of page @hash into a malloc()ed *data.  0, -ENOENT,
 * -ENOMEM or -EIO. */
int store_ckpt_page_get(struct store *st, const char *owner, const uint8_t *hash, uint8_t **data,
                        size_t *len);
/* A transaction that only reads, around many reads (a whole image's
 * pages): one lock of the database for all of them instead of one per
 * query.  The calling thread holds the store's mutex until
 * store_read_end(), so keep it short.  0 or -EIO (then do not end it). */
int store_read_begin(struct store *st);
/* End what store_read_begin() began.  0 or -EIO. */
int store_read_end(struct store *st);
/* How many images and pages @owner has (for tests and numbers). */
int store_ckpt_count(struct store *st, const char *owner, uint64_t *images, uint64_t *pages);
/* Session @id uses the images of @owner: they stay while it does.  0, -ENOENT or -EIO. */
int store_session_set_ckpts(struct store *st, const char *id, const char *owner);
/* Delete @owner's images and pages unless a session still names it.  0 or -EIO. */
int store_ckpt_delete(struct store *st, const char *owner);

/* {"sessions":[{"id","scenario","parent","position","events","created"}],"total"} */
int store_session_list(struct store *st, unsigned limit, unsigned offset, cJSON **out);

/* Keep what replaying snapshot @id with engine @engine gave (@warning may
 * be NULL).  0, -ENOENT or -EIO. */
int store_snapshot_set_check(struct store *st, const char *id, const char *engine,
                             const char *status, const char *warning);
/* A new snapshot.  -EEXIST when the id is taken. */
int store_snapshot_create(struct store *st, const struct store_snapshot *sn);
int store_snapshot_load(struct store *st, const char *id, struct store_snapshot *out);
void store_snapshot_free(struct store_snapshot *sn);
int store_snapshot_delete(struct store *st, const char *id);
/* The published snapshots, newest first:
 * {"snapshots":[{"id","title","scenario","session","position","engine","created"}],"total"} */
int store_snapshot_list(struct store *st, unsigned limit, unsigned offset, cJSON **out);
/* Publish snapshot @id or take it back.  0, -ENOENT or -EIO. */
int store_snapshot_set_published(struct store *st, const char *id, bool published);
/* The published snapshots and those whose token @tokens ({"ID":"TOKEN",...})
 * holds, newest first, each with "published" and "mine"; as
 * store_snapshot_list() otherwise.  0, -ENOMEM or -EIO. */
int store_snapshot_list_for(struct store *st, const cJSON *tokens, unsigned limit, unsigned offset,
                            cJSON **out);

/* A new lecture.  0, -EEXIST (id taken) or -EIO. */
int store_lecture_create(struct store *st, const struct store_lecture *lc);
/* Point lecture @lc->id at its session and position.  0, -ENOENT or -EIO. */
int store_lecture_set(struct store *st, const struct store_lecture *lc);
int store_lecture_delete(struct store *st, const char *id);
/* Call @fn for each of the @max most recently changed lectures, most recent
 * first, until it returns non-zero (returned).  0 or -EIO otherwise. */
int store_lectures_load(struct store *st, unsigned max,
                        int (*fn)(const struct store_lecture *lc, void *arg), void *arg);

/* Lecture @id as store_lectures_load() gives it (its session's stored
 * position and end).  0, -ENOENT or -EIO. */
int store_lecture_load(struct store *st, const char *id, struct store_lecture *out);

/* A trace upload's replay job (http/traces.h) as other servers read it. */
struct store_trace_job {
    char id[STORE_ID_MAX + 1];
    char state[16];           /* "replaying", "building", "done" or "failed" */
    uint64_t bytes;           /* the upload's size */
    uint64_t done, total;     /* input consumed, of total */
    uint64_t events;          /* kmem events replayed */
    uint64_t built, recorded; /* operations the session applied, of those recorded */
    char session[STORE_ID_MAX + 1], token[STORE_ID_MAX + 1]; /* done: what it made; else "" */
    char code[32];    /* failed: the error code; else "" */
    char message[300];
    char *report; /* the replay's report, or NULL */
    char owner[65]; /* SHA-256 of the uploader's token in hex (base/sha256.h); "" when unknown */
    bool cancel;    /* the uploader deleted it through a server that does not run it:
                     * set by store_trace_job_cancel() only, never by a put */
};

/* Write job @j's row (made or replaced; its cancel flag is kept), and say
 * in *cancel (when not NULL) whether the uploader has asked, through
 * another server, that it stop.  0 or -EIO. */
int store_trace_job_put(struct store *st, const struct store_trace_job *j, bool *cancel);
/* Job @id into @out; store_trace_job_free() it.  0, -ENOENT, -ENOMEM or -EIO. */
int store_trace_job_load(struct store *st, const char *id, struct store_trace_job *out);
void store_trace_job_free(struct store_trace_job *j);
/* Forget job @id's row.  0, -ENOENT or -EIO. */
int store_trace_job_delete(struct store *st, const char *id);
/* Set job @id's cancel flag (the server running it stops it and deletes
 * the row).  0, -ENOENT or -EIO. */
int store_trace_job_cancel(struct store *st, const char *id);
/*
 * Tidy the trace jobs' rows: a job still "replaying" or "building" whose
 * row was not written for @stale_seconds (its server stopped) becomes
 * "failed" with code "internal" and @why as its message; a row with its
 * cancel flag unwritten as long is deleted (no server will act on it); a
 * "done" or "failed" row not written for @days days is deleted (never when
 * @days is 0).  How many rows were failed and deleted in *failed and
 * *deleted.  0 or -EIO.
 */
int store_trace_jobs_expire(struct store *st, unsigned days, unsigned stale_seconds,
                            const char *why, uint64_t *failed, uint64_t *deleted);

/*
 * Followers' answers to a lecture's questions (http/answers.h), kept in
 * the store only when servers share it, so the presenter's tally counts
 * the followers of every server.  One row per lecture, question (@at) and
 * voter; a voter's later answer replaces its row.
 */
/* Record @voter's @choice to question @at of @lecture.  0 or -EIO. */
int store_answer_put(struct store *st, const char *lecture, uint64_t at, const char *voter,
                     const char *choice);
/* Call @fn with each choice of question @at of @lecture and its voters, by
 * choice in byte order, until it returns non-zero (returned).  0 or -EIO. */
int store_answers_tally(struct store *st, const char *lecture, uint64_t at,
                        int (*fn)(const char *choice, uint64_t n, void *arg), void *arg);
/* Delete the answers not written for @seconds; how many in *deleted.  0 or -EIO. */
int store_answers_expire(struct store *st, unsigned seconds, uint64_t *deleted);

/*
 * Messages between the servers sharing a store (PostgreSQL's LISTEN and
 * NOTIFY on one channel): store_notify() sends @text (at most
 * STORE_MESSAGE_MAX bytes) to every other server listening; a server never
 * hears its own.  store_listen() starts a thread with a connection of its
 * own that calls @fn with each message another server sent, and opens its
 * connection again (once a second) while the database is away; messages
 * sent meanwhile are lost; once it is open again, @fn is called with @text
 * NULL (what was missed, and what this server could not send meanwhile,
 * is for the caller to make up).  On a SQLite store (one server) both do
 * nothing and return 0.  store_unlisten() stops the thread (before what @arg
 * points at goes); store_close() does too.
 */
#define STORE_MESSAGE_MAX 512
typedef void store_message_fn(const char *text, void *arg);
int store_notify(struct store *st, const char *text);
/* 0, -ENOMEM or -EAGAIN (no thread). */
int store_listen(struct store *st, store_message_fn *fn, void *arg);
void store_unlisten(struct store *st);
/* False while the database is away: the last call found its connection
 * broken and could not open it again.  Always true on SQLite. */
bool store_available(const struct store *st);

/* Up to @max ids of sessions not changed (created or appended to) for
 * @days days, oldest first, into @ids; their count in *n.  0 or -EIO. */
int store_sessions_older(struct store *st, unsigned days, char (*ids)[STORE_ID_MAX + 1],
                         size_t max, size_t *n);
/* Delete the snapshots taken more than @days days ago; how many in
 * *deleted.  0 or -EIO. */
int store_snapshots_expire(struct store *st, unsigned days, uint64_t *deleted);

#endif /* SLUBLAB_SERVER_SESSION_STORE_H */
