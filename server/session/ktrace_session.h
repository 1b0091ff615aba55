/*
 * ktrace_session.h: a replayed trace saved as a session of a slublab
 * database, for `slublab replay --db` and POST /api/traces.
 *
 * The trace's operations are not kept as scenario JSON: as the trace is
 * replayed, each operation the engine carried out goes into an op log
 * (oplog.h) whose chunks are written to the store as they fill, so the
 * writer's memory does not grow with the trace.  The session then stores a
 * scenario with the machine alone and refers to the log, which its batch 0
 * replays (docs/oplog.md).
 */
#ifndef SLUBLAB_SERVER_SESSION_KTRACE_SESSION_H
#define SLUBLAB_SERVER_SESSION_KTRACE_SESSION_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/strbuf.h"
#include "session/oplog.h"
#include "session/session.h"

struct store;

struct ktrace_log {
    struct store *st;
    char id[SESSION_LOG_ID_MAX + 1]; /* the log's id in the store */
    struct oplog log;
    const volatile bool *cancel; /* optional: stop with -ECANCELED when it becomes true */
};

/* Start a log with a fresh id in @st.  0 or -ENOMEM. */
int ktrace_log_begin(struct ktrace_log *kl, struct store *st);
/* ktrace_opts.on_op for @arg, a struct ktrace_log: log one operation.  0 or
 * a negative errno (the store's, -ENOMEM, -ECANCELED). */
int ktrace_log_op(const struct sim_op *op, uint64_t events, void *arg);
/* Write out the log's last chunk: the whole log is then in the store.  0 or the store's error. */
int ktrace_log_finish(struct ktrace_log *kl);
/* Remove what was written and free the log; NULL-safe when never begun. */
void ktrace_log_abort(struct ktrace_log *kl);
/* Free the log (what was written stays). */
void ktrace_log_release(struct ktrace_log *kl);

/*
 * Finish @kl and store a session replaying it: @scenario (the machine, as
 * ktrace_replay_scenario_header() makes it) is checked as the server will
 * (machine limits of @lim), its row and the session's go to the store.
 * Writes the new session id to @id and its token to @token (either may be
 * NULL).  Returns 0, or a negative errno with the reason in @err; the log is
 * removed from the store on failure.
 */
int ktrace_session_store_log(struct ktrace_log *kl, const cJSON *scenario,
                             const struct session_limits *lim, char *id, size_t id_len, char *token,
                             size_t token_len, struct strbuf *err);

#endif /* SLUBLAB_SERVER_SESSION_KTRACE_SESSION_H */
