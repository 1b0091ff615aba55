/*
 * report_md.h: Markdown reports of a session's state and of a comparison,
 * for reviews (docs/export.md "Reports").  Builders only: `slublab report`,
 * `slublab compare --md` and the server's report routes print them.
 */
#ifndef SLUBLAB_SERVER_PRESENT_REPORT_MD_H
#define SLUBLAB_SERVER_PRESENT_REPORT_MD_H

#include <stdbool.h>
#include <stdint.h>

#include "slub.h"
#include "present/compare.h"
#include "scenario/scenario.h"
#include "base/strbuf.h"

struct report_md_info {
    const struct scenario *scn;
    const struct sim_config *cfg; /* what the machine ran with */
    uint64_t at, nr_events;       /* the position reported, and the end */
    const char *image;            /* a chart to reference, or NULL */
};

/* The state summary tables of @snap (live caches, nodes, sheaves, barns). */
void report_md_state(struct strbuf *out, const struct sim_snapshot *snap);
/* One table per live cache: its non-zero counters, total and per CPU. */
void report_md_counters(struct strbuf *out, const struct sim_snapshot *snap);
/* The whole session report; false when the host ran out of memory. */
bool report_md_session(struct strbuf *out, const struct report_md_info *info,
                       const struct sim_snapshot *snap);
/*
 * The comparison report: the counter table in cover-letter form and as
 * Markdown, then the end state of each side (@snaps[k] may be NULL).
 * False when the host ran out of memory.
 */
bool report_md_compare(struct strbuf *out, const struct scenario *scn, const char *cache,
                       const struct compare_side side[2], const struct sim_snapshot *snaps[2],
                       const char *image);

#endif /* SLUBLAB_SERVER_PRESENT_REPORT_MD_H */
