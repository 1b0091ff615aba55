/*
 * ktrace_session.h: a replayed trace saved as a session of a slublab
 * database, for `slublab replay --db` and POST /api/traces.
 */
#ifndef SLUBLAB_SERVER_SESSION_KTRACE_SESSION_H
#define SLUBLAB_SERVER_SESSION_KTRACE_SESSION_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "base/strbuf.h"

struct store;

/*
 * Build a session from @scenario (as ktrace_replay_scenario() makes it),
 * replaying it the way the server will, and store it in the database at
 * @path (opened and closed here).  Writes the new session id to @id.
 * Returns 0, or a negative errno with the reason in @err.
 */
int ktrace_session_save(const char *path, const cJSON *scenario, char *id, size_t id_len,
                        struct strbuf *err);
/* The same into an open store. */
int ktrace_session_store(struct store *st, const cJSON *scenario, char *id, size_t id_len,
                         struct strbuf *err);

#endif /* SLUBLAB_SERVER_SESSION_KTRACE_SESSION_H */
