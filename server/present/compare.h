/*
 * compare.h: one scenario run twice, baseline and patched, as a table of
 * counters: what `slublab compare` prints and GET /api/compare returns.
 */
#ifndef SLUBLAB_SERVER_PRESENT_COMPARE_H
#define SLUBLAB_SERVER_PRESENT_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "slub.h"
#include "scenario/scenario.h"
#include "session/session.h"
#include "base/strbuf.h"

#define COMPARE_ROWS (SIM_NR_STATS + 5) /* every counter, then the slab-state files */

struct compare_side {
    char label[128]; /* "DEFERRED_FREELIST=before" */
    struct sim_config cfg;
    uint64_t v[COMPARE_ROWS];  /* counters, then the slab-state files */
    uint64_t ops, events;      /* what the run did */
    uint64_t digest;           /* of every event (FNV-1a): equal runs have equal digests */
    bool keep_snap;            /* set by the caller: keep the final state in snap */
    struct sim_snapshot *snap; /* when keep_snap: owned by the caller (sim_snapshot_release()) */
};

/*
 * Run @scn with side->cfg, then, when @more is a session's inputs
 * (session_fork_inputs(); not built), its batches after the first, each
 * cut at its limit as the session applies them.  Read the rows of cache
 * @cache (NULL: the first one the scenario creates), whose name goes to
 * @cache_name (SIM_NAME_MAX bytes).  0, or -1 with the reason in @err.
 */
int compare_side_run(const struct scenario *scn, const struct session *more, const char *cache,
                     struct compare_side *side, char *cache_name, struct strbuf *err);
/* The name of row @row: a counter's sysfs name, then the slab-state files. */
const char *compare_row_name(size_t row);
/* False when the two sides run different models and side @k's kernels have
 * no counter @row (shown as n/a). */
bool compare_counts(const struct compare_side side[2], int k, size_t row);
/* "+12.5" into @buf: the change from @base to @patched in percent of
 * @base, or false (nothing written) when @base is 0. */
bool compare_change(uint64_t base, uint64_t patched, char *buf, size_t len);
/*
 * Why the two runs show no difference, as a sentence in @buf, or false: the
 * variant that differs does not apply to the sides' model
 * (sim_variant_in_model()), or the runs are identical (same operations,
 * events and event digest).
 */
bool compare_warning(const struct compare_side side[2], char *buf, size_t len);
/* True when both runs emitted the same events. */
bool compare_identical(const struct compare_side side[2]);
/* {"scenario","cache","baseline","patched","identical","warning",
 *  "rows":[{"metric","baseline","patched","change_pct"}]} */
cJSON *compare_json(const struct scenario *scn, const char *cache,
                    const struct compare_side side[2]);

#endif /* SLUBLAB_SERVER_PRESENT_COMPARE_H */
