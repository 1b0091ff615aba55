/*
 * diff.h: what changed between two states, in words a student can read.
 *
 * Both sides are state JSON as json_snapshot() renders it (docs/events.md),
 * from a stored snapshot or a session position, so snapshots taken by an
 * older engine can still be compared.  The result lists
 *   - objects that moved ("object 0x... moved from CPU 1's main sheaf to the
 *     barn's full list"), for objects of slabs present on both sides; an
 *     object counts as allocated when it is in no sheaf, freelist or
 *     operation in flight;
 *   - slabs that moved, appeared or went away ("slab 0x... moved from
 *     partial to full");
 *   - sheaves that moved, appeared or went away;
 *   - caches created or destroyed, per-cache counter deltas and slab-state
 *     file deltas.
 * Identical states give empty lists.  Each list keeps at most DIFF_MAX
 * entries ("truncated" says when more changed; "total" counts them all).
 */
#ifndef SLUBLAB_SERVER_PRESENT_DIFF_H
#define SLUBLAB_SERVER_PRESENT_DIFF_H

#include <cjson/cJSON.h>

#define DIFF_MAX 500

/*
 * The diff from state @a to state @b: {"objects", "slabs", "sheaves",
 * "caches", "counters", "files", "total", "truncated"}.  NULL on host OOM.
 * Malformed input is not an error: what cannot be read is skipped.
 */
cJSON *diff_states(const cJSON *a, const cJSON *b);

#endif /* SLUBLAB_SERVER_PRESENT_DIFF_H */
