/*
 * ktrace_report.h: the text report of a kmem trace replay (ktrace_report.c).
 */
#ifndef SLUBLAB_SERVER_PRESENT_KTRACE_REPORT_H
#define SLUBLAB_SERVER_PRESENT_KTRACE_REPORT_H

#include "base/strbuf.h"
#include "ktrace/ktrace_replay.h"

/* Append the report of @kr (after ktrace_replay_run()), naming the input
 * @label.  A failed snapshot leaves out the table of caches. */
void ktrace_report_text(struct strbuf *out, const struct ktrace_replay *kr, const char *label);

/* The words after the count of frees made through kfree_rcu in the report. */
#define KTRACE_REPORT_RCU_FREES "frees the kernel made through kfree_rcu"

/* The count of frees made through kfree_rcu a report of ktrace_report_text()
 * gives (0 when it has no such line), for answers that keep only the report. */
uint64_t ktrace_report_rcu_frees(const char *report);

#endif /* SLUBLAB_SERVER_PRESENT_KTRACE_REPORT_H */
