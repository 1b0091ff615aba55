/*
 * oplog_json.h: a stored op log (docs/oplog.md) carried inside a JSON
 * document, so that a snapshot of a replayed trace exports its operations
 * and another server imports them (docs/export.md).
 *
 * The form is {"format":"slublab-oplog","version":1,"ops":N,"events":N,
 * "chunks":[{"ops":N,"events":N,"bytes":N,"data":"..."}]}: each chunk's
 * records as the store keeps them, zlib-compressed, in base64.  The import
 * checks the form and the sums, not the records: a log that does not
 * replay is found when the snapshot is opened, as for any snapshot.
 */
#ifndef SLUBLAB_SERVER_SESSION_OPLOG_JSON_H
#define SLUBLAB_SERVER_SESSION_OPLOG_JSON_H

#include <cjson/cJSON.h>

#include "base/strbuf.h"
#include "session/store.h"

#define OPLOG_JSON_FORMAT    "slublab-oplog"
#define OPLOG_JSON_VERSION   1
#define OPLOG_JSON_CHUNK_MAX (16u << 20) /* bytes of one chunk's records on import */

/* Log @log of @st as the JSON above in *out (caller owns it).  0, -ENOENT (no such
 * log), -ENOMEM or -EIO. */
int oplog_json_export(struct store *st, const char *log, cJSON **out);
/*
 * Store the log JSON @j under a fresh id written to @id (STORE_ID_MAX + 1
 * bytes).  0; SESSION_EBADINPUT with why in @err when @j is not such a log;
 * -ENOMEM or -EIO (nothing is left in the store on failure).
 */
int oplog_json_import(struct store *st, const cJSON *j, char *id, struct strbuf *err);

#endif
