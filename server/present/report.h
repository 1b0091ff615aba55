/*
 * report.h: what `slublab run` prints once a scenario has run.
 *
 * Two renderings of one replay: a sysfs-style text report (per cache the
 * files of /sys/kernel/slab/<cache>/, counters in the kernel's show_stat()
 * format `alloc_fastpath 12 C0=10 C1=2`, per-CPU sheaves and per-node
 * barns, then the zones in /proc/zoneinfo's words, then the expects), and a
 * JSON summary with keys in a fixed order: scenario, variants, model, seed,
 * caches, zones, min_free_kbytes, watermark_scale_factor, kswapd, cma,
 * expects, warnings, ok.  The HTTP
 * server will serve the same texts.
 */
#ifndef SLUBLAB_SERVER_PRESENT_REPORT_H
#define SLUBLAB_SERVER_PRESENT_REPORT_H

#include <cjson/cJSON.h>

#include "base/strbuf.h"
#include "scenario/metric.h"
#include "scenario/replay.h"

/*
 * Append the variants of @cfg's model, each as " NAME=before" or
 * " NAME=after", separated by @sep ("" in the text report, "," in Markdown).
 * Cannot fail (a failed append shows in strbuf_failed(@out)).
 */
void report_variants(struct strbuf *out, const struct sim_config *cfg, const char *sep);
/*
 * Append the machine of @cfg: "2 <cpu>s, 1 node, 64 MiB per node,
 * freelist_hardened off, freelist_random off", @cpu being the word for a
 * CPU.  Cannot fail.
 */
void report_machine(struct strbuf *out, const struct sim_config *cfg, const char *cpu);
/* Append the warnings of @rp, one "warning: ..." line each. */
void report_warnings(struct strbuf *out, const struct replay *rp);
/* Append the text report of @rp's machine, as captured in @snap. */
void report_text(struct strbuf *out, const struct replay *rp, const struct sim_snapshot *snap);
/* The JSON summary; caller owns it.  NULL when the host ran out of memory. */
cJSON *report_json(const struct replay *rp, const struct sim_snapshot *snap);

#endif /* SLUBLAB_SERVER_PRESENT_REPORT_H */
