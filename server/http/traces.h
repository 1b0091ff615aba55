/*
 * traces.h: kernel trace uploads (POST /api/traces), replayed in the
 * background into a session.
 *
 * http.c streams the body of POST /api/traces into a temporary file as it
 * arrives (struct trace_upload; at most TRACES_MAX_BYTES, 413 beyond), so
 * a 256 MiB trace never sits in memory.  The handler hands the file to a
 * job: a thread of its own replays it (ktrace_replay.c), builds the
 * session the UI opens and registers it; GET /api/traces/ID reports the
 * job's state and progress, then the session's id and token and the
 * replay's report.  At most TRACES_MAX_RUNNING jobs run at once (503
 * beyond); the last TRACES_MAX_KEPT jobs are remembered.  On a store other
 * servers share, every server answers GET /api/traces/ID from the job's
 * row there, and takes DELETE: it checks the token against the row (which
 * keeps its hash), sets the row's cancel flag and tells the server running
 * the job (relay.h), which stops it as if the DELETE had come to it; that
 * server also sees the flag the next time it writes the row, so a message
 * lost does not keep the job alive.  The rows of finished jobs expire, and
 * a job whose server stopped is marked failed (traces_tidy()).
 */
#ifndef SLUBLAB_SERVER_HTTP_TRACES_H
#define SLUBLAB_SERVER_HTTP_TRACES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TRACES_MAX_BYTES   (256ull << 20) /* an uploaded trace, at most */
#define TRACES_MAX_SLABINFO (16ull << 20)  /* ?slabinfo=N: a /proc/slabinfo before it, at most */
#define TRACES_MAX_RUNNING 2
#define TRACES_MAX_KEPT    64
#define TRACES_ID_LEN      10
/* Engine operations a trace may make (or --max-ops when lower): the session
 * is built from the scenario text, whose parse tree costs about 400 bytes an
 * operation, so this bounds a job's memory near 500 MB. */
#define TRACES_MAX_OPS 100000000ull
/* Text a trace may expand to (a gzip can expand without bound), unless
 * --max-trace-text says otherwise: it bounds how long a job holds a place. */
#define TRACES_MAX_TEXT (4ull << 30)
/* A gzip upload may expand to this many times its size, at most: blank
 * and comment lines count, so a stream of newlines stops at once. */
#define TRACES_MAX_RATIO 100u
/* CPU seconds a replay may use, unless --max-trace-cpu says otherwise. */
#define TRACES_MAX_CPU     300u
#define TRACES_RETRY_AFTER "5" /* seconds, in the Retry-After of a busy answer */
/* a running job's progress is written to a shared store at most this often */
#define TRACES_STORE_EVERY_NS 500000000ull
/* a running job's row not written for this long: its server stopped
 * (traces_tidy() rewrites the rows of the jobs running here far more often) */
#define TRACES_STALE_SECONDS 600
/* finished jobs' rows are kept this many days unless --keep-trace-days says */
#define TRACES_KEEP_DAYS 7

struct app;
struct request;
struct response;
struct trace_jobs;

/* A body being written to a temporary file.  It holds one of the
 * TRACES_MAX_RUNNING replay places from its first byte on, so an upload
 * that could not be replayed is refused before it is sent. */
struct trace_upload {
    struct trace_jobs *tj; /* whose place it holds, until a job takes it over */
    bool holds_place;
    int fd;         /* -1 once handed to a job or closed */
    char path[256]; /* the temporary file; removed unless a job took it */
    uint64_t len;   /* bytes written */
    bool too_large; /* passed TRACES_MAX_BYTES: the rest is dropped */
    int error;      /* a write failed: -errno */
};

/* True for the request whose body http.c streams to a file. */
bool traces_is_upload(const char *method, const char *url);
/* A new temporary file for an upload, and a replay place for it.  0,
 * -EBUSY (every place is taken: 503 with Retry-After), or -errno (nothing
 * to free). */
int traces_upload_begin(struct trace_jobs *tj, struct trace_upload **out);
/* Append @n bytes; past TRACES_MAX_BYTES only counts (too_large).  Cannot fail:
 * a write error is kept in up->error. */
void traces_upload_write(struct trace_upload *up, const char *data, size_t n);
/* Close and remove the file unless a job took it; NULL is fine. */
void traces_upload_free(struct trace_upload *up);

/* The job table.  0 or -ENOMEM. */
int traces_new(struct trace_jobs **out);
/* Cancel running replays, wait for every job thread, free everything; NULL is fine. */
void traces_free(struct trace_jobs *tj);

/*
 * On the janitor's thread: write the rows of the jobs running here (so no
 * server takes them for a stopped one's), then fail the running jobs of
 * stopped servers and delete rows older than @keep_days (0: finished rows
 * are kept).  Only on a shared store for the first; the rest on either.
 * Cannot fail (a store error is said on stderr and tried again next time).
 */
void traces_tidy(struct app *app, unsigned keep_days);
/* Another server says the uploader deleted job @id (relay.h): when it runs
 * here and its row's cancel flag is set, stop it as a DELETE here would. */
void traces_heard_cancel(struct app *app, const char *id);

/* POST /api/traces: start a job on req->upload (202), or 400/413/503. */
int route_trace_create(const struct request *req, struct response *res);
/* GET /api/traces/ID: the job's state. */
int route_trace_get(const struct request *req, struct response *res);
/* DELETE /api/traces/ID (the upload's token): stop the job, or delete the
 * session it made; 204.  On any server sharing the store. */
int route_trace_delete(const struct request *req, struct response *res);

#endif /* SLUBLAB_SERVER_HTTP_TRACES_H */
