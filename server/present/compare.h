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
/*
 * As compare_side_run(), for a session whose operations are an op log (a
 * replayed kernel trace, and sessions forked from it): its whole run again
 * with side->cfg (session_rerun()).  Cache @cache (NULL: the one with the
 * most objects handed out... the first created) is read.  0, or -1 with the
 * reason in @err.
 */
int compare_side_rerun(struct session *s, const char *cache, struct compare_side *side,
                       char *cache_name, struct strbuf *err);
/* The name of row @row: a counter's sysfs name, then the slab-state files. */
const char *compare_row_name(size_t row);
/* False when side @k's kernel has no counter @row (sim_stat_in_model(): its sysfs
 * export writes no such file); shown as n/a beside a side that has it. */
bool compare_counts(const struct compare_side side[2], int k, size_t row);
/*
 * Whether the tables print row @row (COMPARE_SHOWN): a counter neither
 * kernel has is left out (COMPARE_ABSENT), and so is one both have that is
 * 0 in both runs (COMPARE_ZERO); one only a kernel has is shown, n/a for
 * the other.
 */
enum compare_row_kind { COMPARE_SHOWN, COMPARE_ZERO, COMPARE_ABSENT };
enum compare_row_kind compare_row_kind(const struct compare_side side[2], size_t row);
/* "+12.5" into @buf: the change from @base to @patched in percent of
 * @base, with as many decimals (up to 6) as it takes not to read 0 when the
 * values differ; "0" when they are equal; false (nothing written) when @base
 * is 0. */
bool compare_change(uint64_t base, uint64_t patched, char *buf, size_t len);
/*
 * The change column of row @row, one meaning per word: "+12.5%", "0%"
 * (equal), "new" (0 in the baseline, not in the patched run) or "-" (no
 * comparison: a side's kernel has no such counter, its value reads n/a).
 */
void compare_change_text(const struct compare_side side[2], size_t row, char *buf, size_t len);
/* The delta column of row @row: "+12", "0", or "-" when a side's kernel lacks the counter. */
void compare_delta_text(const struct compare_side side[2], size_t row, char *buf, size_t len);
/* Side @k's value of row @row: the number, or "n/a" when its kernel lacks the counter. */
const char *compare_value_text(const struct compare_side side[2], int k, size_t row, char *buf,
                               size_t len);
/*
 * When the two sides run different models (across releases: 6.18's hybrid
 * and 7.x's sheaves, or a legacy kernel), what counter @row counts on each,
 * if that differs (docs/engine.md, "Counters the two eras count
 * differently"); else NULL.  The tables print it as a footnote.
 */
const char *compare_row_note(const struct compare_side side[2], size_t row);
/*
 * Why the two runs show no difference, as a sentence in @buf, or false: the
 * variant that differs does not apply to the sides' model
 * (sim_variant_in_model()), or the runs are identical (same operations,
 * events and event digest).
 */
bool compare_warning(const struct compare_side side[2], char *buf, size_t len);
/* True when both runs emitted the same events. */
bool compare_identical(const struct compare_side side[2]);
/* How many rows compare_row_kind() leaves out: 0 in both runs, and counters neither
 * kernel has. */
void compare_left_out(const struct compare_side side[2], size_t *zero, size_t *absent);
/*
 * The table of a cover letter into @out: a header whose first column is
 * titled @first, the rows compare_row_kind() shows with baseline, patched,
 * delta and change (a row with a note is marked "[N]"; the slab-state files
 * after a blank line), then what was left out, then the notes.  False when
 * out of memory.
 */
bool compare_write_table(struct strbuf *out, const struct compare_side side[2], const char *first);
/* {"scenario","cache","baseline","patched","identical","warning",
 *  "rows":[{"metric","baseline","patched","change_pct"[,"in_baseline","in_patched"]
 *  [,"note"]}]}: every row, the ones the tables leave out too */
cJSON *compare_json(const struct scenario *scn, const char *cache,
                    const struct compare_side side[2]);

#endif /* SLUBLAB_SERVER_PRESENT_COMPARE_H */
