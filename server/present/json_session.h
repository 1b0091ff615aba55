/*
 * json_session.h: a session as JSON documents (json_session.c) and its
 * positions as JSON documents (json_position.c).
 *
 * The session layer answers in engine terms (a machine, its snapshot,
 * events, counter arrays); these functions turn the answers into the
 * documents of docs/api.md.  Every caller holds the session's lock (the
 * cached state excepted, as session_state_cached() says).  Trees are the
 * caller's (cJSON_Delete); NULL only when the host ran out of memory.
 */
#ifndef SLUBLAB_SERVER_PRESENT_JSON_SESSION_H
#define SLUBLAB_SERVER_PRESENT_JSON_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/blob.h"
#include "base/strbuf.h"
#include "session/session.h"
#include "session/timeline.h"

/* json_session.c */

/* {"id", "parent", "scenario", "settings", "machine", "events", "ops", "position", ...} */
cJSON *json_session_info(struct session *s);
/* The scenario's expectations as the replay that built @s evaluated them:
 * [{"at","metric","op","value","ok","seen","message"}]; [] when it has none. */
cJSON *json_session_expects(const struct session *s);
/* The inputs: {"scenario", "settings", "batches":[{"ops","limit","ops_start",...}]} */
cJSON *json_session_log(const struct session *s);
/* The head's object names: {"name": {"addr", "cache", "bulk"}}. */
cJSON *json_session_names(const struct session *s);
/* At most @max of the warnings the head recorded from index @from on:
 * [{"path","op","status","message"}]. */
cJSON *json_session_warnings(const struct session *s, size_t from, size_t max);

/* json_position.c */

#define JSON_POSITION_NAMES 10000u /* object names a state answer carries, at most */
/*
 * The state at position @at, with the bytes of slab @slab when it is not
 * 0: {"at", "event", "state", "names", "names_more"?, "slab"}, printed
 * ("names": the scenario's names of objects at @at, by address).  Served from the session's
 * cache when possible, and kept there.  Returns 0 and a reference in *out
 * (blob_put() it), SESSION_EBADINPUT (at beyond the end), -ENOENT (no such
 * slab at @at), SESSION_EBROKEN or -ENOMEM; the reason is in @err.
 */
int json_position_state(struct session *s, uint64_t at, sim_addr_t slab, struct blob **out,
                        struct strbuf *err);
/* States json_position_state() rendered (not served from the cache) since the program
 * started, over all sessions: GET /api/health's states_rendered. */
uint64_t json_position_rendered(void);
/*
 * One cache's page of the state at @at (json_state_write_page()): the
 * cache's slabs from its @from-th (at most @count), its sheaves and its
 * queued kfree_rcu objects, appended to @out.  Not cached.  0,
 * SESSION_EBADINPUT, -ENOENT (no cache @cache at @at), SESSION_EBROKEN or
 * -ENOMEM; the reason is in @err.
 */
#define JSON_PAGE_SLABS 4096u /* slabs in one page, at most */
int json_position_objects(struct session *s, uint64_t at, int cache, size_t from, size_t count,
                          struct strbuf *out, struct strbuf *err);
/* Events with seq in [from, to), to - from <= SESSION_MAX_RANGE: {"from","to","events"}. */
int json_position_events(struct session *s, uint64_t from, uint64_t to, cJSON **out);
/*
 * Every position of @s in order, as GET .../state?at=N answers it but
 * without "event" (the offline copy keeps the events apart): @each takes
 * each document.  One forward replay.  0, -ENOMEM, a session error or
 * @each's.
 */
int json_position_walk(struct session *s, int (*each)(uint64_t at, cJSON *doc, void *arg),
                       void *arg);
/* {"from","to","source","interval","positions","series":{name:[...]}} (session_series()). */
int json_position_series(struct session *s, const unsigned *items, size_t nr_items, uint64_t from,
                         uint64_t to, unsigned points, cJSON **out);
/* {"found","at","event"} where at is the position just after the event, or
 * {"found":false,"at":null,"event":null,"scanned_to","complete"} (session_search()). */
int json_position_search(struct session *s, const struct timeline_query *q, uint64_t from,
                         bool prev, uint64_t budget, cJSON **out);

#endif /* SLUBLAB_SERVER_PRESENT_JSON_SESSION_H */
