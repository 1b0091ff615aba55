/*
 * json_state.h: engine events and snapshots as JSON (cJSON trees).
 * json_event.c builds scalars and events, json_state.c snapshots.
 *
 * One converter for every consumer: `slublab run --events` prints these trees
 * one per line, `run --json` embeds the per-cache objects, and the HTTP server
 * sends the same trees (and json_slab_bytes() for one slab).  The shapes are
 * documented in docs/events.md.  Keys are added in a fixed order and nothing
 * depends on host pointers, so the printed text is deterministic byte for byte.
 *
 * Conventions: object and slab addresses (and other 64-bit addresses) are
 * lowercase hex strings "0xffff888000001000"; sheaf ids are integers with
 * null for "none"; counters are integers (printed as raw digits when too
 * large for a double to print plainly).  Every function returns a new tree
 * the caller owns (cJSON_Delete), or NULL when the host ran out of memory.
 */
#ifndef SLUBLAB_SERVER_PRESENT_JSON_STATE_H
#define SLUBLAB_SERVER_PRESENT_JSON_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "base/json.h"
#include "base/strbuf.h"
#include "slub.h"

/* sysfs name of counter @item; "stat_<n>" in @buf for unknown items.  Never NULL. */
const char *json_stat_name(unsigned item, char *buf, size_t len);
/* A place: {type, cpu?, node?, slot?, slab?, sheaf?}; -1/0 fields are omitted. */
cJSON *json_place(const struct sim_place *pl);
/* One event: {seq, op, cpu, node, cache, fn, label, moves, stats, report}. */
cJSON *json_page_alloc(const struct sim_page_alloc *pa);
cJSON *json_event(const struct sim_event *ev);
/* The same for the lab's positions and ranges: a choice point's `choice` even
 * at its default, with where it is and the options not taken (docs/api.md). */
#define JSON_CHOICE_OTHERS 24u
cJSON *json_event_full(const struct sim_event *ev);
/* A race step: {"ctx", "index", "kind", "reads", "writes"} (docs/events.md). */
cJSON *json_step(const struct sim_step *st);
/* The engine's table of branch points (GET /api/branches): {"points": [{"point",
 * "fn", "arms": [{"arm", "events": [...]}]}]}.  NULL on allocation failure. */
cJSON *json_branch_points(void);
/* Names of the SLAB_* flags set in @flags, as an array of strings. */
cJSON *json_flags(uint32_t flags);
/* Non-zero counters of @st by sysfs name, in enum order. */
cJSON *json_stats(const struct sim_snap_stats *st);
/* One cache of @snap: geometry, slab-state files, stats, per-CPU sheaves, per-node state. */
cJSON *json_snap_cache(const struct sim_snapshot *snap, const struct sim_snap_cache *c);
/* The whole snapshot: {seq, op, nr_cpus, nr_nodes, cpu_node, caches, slabs, sheaves, zones,
 * inflight}. */
cJSON *json_snapshot(const struct sim_snapshot *snap);
/*
 * The bytes of slab @sl of @snap, read from @sim (the machine @snap was taken
 * from, in the same state): {addr, cache, order, size, length, truncated,
 * bytes (hex, at most JSON_SLAB_MAX_BYTES), freeptrs: [{object, at, stored,
 * decoded}] for each object on its freelist}.
 */
#define JSON_SLAB_MAX_BYTES 65536u
cJSON *json_slab_bytes(const struct sim *sim, const struct sim_snapshot *snap,
                       const struct sim_snap_slab *sl);
/*
 * json_state_write.c: the state as text, for the server.  Objects (slabs,
 * sheaves, addresses on their lists) the state would list; a state with
 * more than a limit of them is paged.
 */
size_t json_state_items(const struct sim_snapshot *snap);
/*
 * Append the state of @snap to @sb: with @limit 0 or json_state_items() <=
 * @limit, exactly the text cJSON_PrintUnformatted(json_snapshot(snap))
 * gives; past @limit the paged state (docs/events.md, "Paged states"):
 * "paged" counts follow "op", and slabs, sheaves and rcu_pending are empty.
 * False when the host ran out of memory (sb->failed).
 */
#define JSON_STATE_LIMIT 16384u
bool json_state_write(struct strbuf *sb, const struct sim_snapshot *snap, size_t limit);
/*
 * Append one cache's page of the state at position @at: {at, cache,
 * slabs_total, from, next, slabs (at most @count from the cache's @from-th,
 * as the full state lists them), sheaves (all of the cache's, with their
 * objects), rcu_pending (the queued objects in the cache's slabs)}.  0,
 * -ENOENT (no cache @cache) or -ENOMEM.
 */
int json_state_write_page(struct strbuf *sb, const struct sim_snapshot *snap, uint64_t at,
                          int cache, size_t from, size_t count);
/* The slab at @addr in @snap, or NULL. */
const struct sim_snap_slab *json_find_slab(const struct sim_snapshot *snap, sim_addr_t addr);
/* The sheaf with id @id in @snap, or NULL. */
const struct sim_snap_sheaf *json_find_sheaf(const struct sim_snapshot *snap, uint32_t id);

#endif /* SLUBLAB_SERVER_PRESENT_JSON_STATE_H */
