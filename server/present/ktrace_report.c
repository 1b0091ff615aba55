/*
 * ktrace_report.c: the text report of a kmem trace replay (see
 * ktrace_report.h): what was read, what was replayed and what was not
 * and why, then the caches the machine ended with, as `slublab replay`
 * prints it and a trace job keeps it.
 */
#include "present/ktrace_report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void line_if(struct strbuf *out, uint64_t v, const char *what)
{
    if (v)
        strbuf_printf(out, "  %-10" PRIu64 " %s\n", v, what);
}

/* "             @label: a b c" under a count's line, " ..." when names were left out. */
static void names_line(struct strbuf *out, const char *label, const char (*names)[SIM_NAME_MAX],
                       uint64_t nr, bool more)
{
    strbuf_printf(out, "             %s:", label);
    for (uint64_t i = 0; i < nr; i++)
        strbuf_printf(out, " %s", names[i]);
    strbuf_puts(out, more ? " ...\n" : "\n");
}

/* The hybrid of 6.18/6.19: which caches had sheaves over their per-CPU slabs. */
static void hybrid_line(struct strbuf *out, const struct sim_snapshot *snap)
{
    size_t i, n = 0, shown = 0;

    for (i = 0; i < snap->nr_caches; i++)
        n += snap->caches[i].sheaf_capacity != 0;
    strbuf_printf(out, "hybrid: per-CPU slabs on every cache, sheaves on %zu of %zu cache%s", n,
                  snap->nr_caches, snap->nr_caches == 1 ? "" : "s");
    for (i = 0; i < snap->nr_caches && shown < 8; i++) {
        if (!snap->caches[i].sheaf_capacity)
            continue;
        strbuf_printf(out, "%s%s %u", shown++ ? ", " : " (", snap->caches[i].name,
                      snap->caches[i].sheaf_capacity);
    }
    strbuf_puts(out, shown ? (n > shown ? ", ...)\n" : ")\n") : "\n");
}

void ktrace_report_text(struct strbuf *out, const struct ktrace_replay *kr, const char *label)
{
    const struct ktrace_counts *n = &kr->n;
    struct sim_snapshot *snap = NULL;
    uint64_t events = ktrace_replay_events(kr);
    char model[64];

    sim_model_format(&kr->cfg, model, sizeof(model));
    if (kr->sim && sim_snapshot(kr->sim, &snap))
        snap = NULL; /* no room for it: the report goes without the table */
    strbuf_printf(out, "kmem trace %s", label);
    if (kr->kernel[0])
        strbuf_printf(out, " from Linux %s", kr->kernel);
    if (kr->kernel_note[0])
        strbuf_printf(out, "\n%s", kr->kernel_note);
    strbuf_printf(out, "\nmodel %s, %u CPU%s (from %s), %u node, %" PRIu64 " MiB per node\n", model,
                  kr->cfg.nr_cpus, kr->cfg.nr_cpus == 1 ? "" : "s",
                  kr->cpus_from ? kr->cpus_from : "?", kr->cfg.nr_nodes,
                  kr->cfg.mem_per_node >> 20);
    if (snap && kr->cfg.model == SIM_MODEL_HYBRID)
        hybrid_line(out, snap);
    strbuf_printf(out,
                  "\n%" PRIu64 " lines: %" PRIu64 " kmem events (%" PRIu64
                  " kmem_cache_alloc, %" PRIu64 " kmem_cache_free, %" PRIu64 " kmalloc, %" PRIu64
                  " kfree)\n",
                  n->lines, events, n->kind[KTRACE_ALLOC], n->kind[KTRACE_FREE],
                  n->kind[KTRACE_KMALLOC], n->kind[KTRACE_KFREE]);
    line_if(out, n->kind[KTRACE_NONE], "comments and blank lines");
    line_if(out, n->kind[KTRACE_OTHER], "events of other tracepoints (ignored)");
    line_if(out, n->kind[KTRACE_BAD], "unreadable lines (skipped)");
    if (kr->first_bad[0])
        strbuf_printf(out, "             first: %s\n", kr->first_bad);
    line_if(out, n->overlong, "lines over 64 KiB (skipped)");
    line_if(out, n->lost,
            "events lost before the first line: the trace buffer was full and "
            "overwrote them (entries-written > entries-in-buffer)");
    if (kr->truncated)
        strbuf_printf(out, "  input ended early: %s\n", kr->read_error);
    strbuf_printf(out,
                  "\nreplayed %" PRIu64 " operations on %" PRIu64 " caches: %" PRIu64
                  " alloc, %" PRIu64 " free, %" PRIu64 " kmalloc, %" PRIu64 " kfree\n",
                  n->applied[KTRACE_ALLOC] + n->applied[KTRACE_FREE] + n->applied[KTRACE_KMALLOC] +
                          n->applied[KTRACE_KFREE],
                  (uint64_t)(kr->sim ? sim_nr_caches(kr->sim) : 0), n->applied[KTRACE_ALLOC],
                  n->applied[KTRACE_FREE], n->applied[KTRACE_KMALLOC], n->applied[KTRACE_KFREE]);
    strbuf_puts(out, "not replayed:\n");
    line_if(out, n->free_before, "kmem_cache_free of objects allocated before the trace");
    line_if(out, n->kfree_before, "kfree of objects allocated before the trace");
    line_if(out, n->kfree_null, "kfree(NULL)");
    line_if(out, n->large_kmalloc, "large kmalloc (above 8 KiB: the page allocator, not slab)");
    line_if(out, n->large_kfree, "kfree of a large kmalloc");
    line_if(out, n->unknown_cache, "allocations from unknown caches");

    if (kr->nr_unknown)
        names_line(out, "unknown", kr->unknown, kr->nr_unknown, false);
    line_if(out, n->sim_failed, "simulated failures (out of memory)");
    line_if(out, n->sim_misuse, "reported as misuse by the engine");
    line_if(out, n->sim_rejected, "rejected by the engine");
    if (kr->first_engine[0])
        strbuf_printf(out, "             first: %s\n", kr->first_engine);
    strbuf_puts(out, "notes:\n");
    line_if(out, n->unnamed,
            "kmem_cache_alloc naming no cache: an older kernel's trace (before name= was "
            "printed); replayed from a cache per object size (size-N)");
    line_if(out, n->rcu_frees,
            KTRACE_REPORT_RCU_FREES " (call site rcu_do_batch, kfree_rcu_work, kvfree_rcu_bulk "
                                    "and the like): replayed as plain frees when the callback "
                                    "ran, as the trace names no kfree_rcu call and no grace "
                                    "period to pair them with (free_rcu_sheaf is not taken)");
    line_if(out, n->realloc_live,
            "untraced frees (a pointer allocated again while live: freed "
            "at its reuse; kfree_rcu via an rcu_free sheaf frees so)");
    line_if(out, n->cache_mismatch, "kmem_cache_free naming another cache than the allocation");
    line_if(out, n->cpus_folded, "events on CPUs beyond the machine (folded modulo)");
    line_if(out, n->nodes_ignored, "node= beyond the machine (any node used)");
    line_if(out, n->gfp_unknown, "gfp_flags not understood (the rest of each mask used)");
    if (kr->nr_gfp_names)
        names_line(out, "names", kr->gfp_names, kr->nr_gfp_names,
                   kr->nr_gfp_names == KTRACE_MAX_UNKNOWN);
    line_if(out, n->size_mismatch,
            "caches whose --sysfs slab_size is not the trace's bytes_alloc "
            "(the tree's is used)");
    if (n->size_mismatch)
        names_line(out, "they are", kr->mismatch,
                   n->size_mismatch < KTRACE_MAX_UNKNOWN ? n->size_mismatch : KTRACE_MAX_UNKNOWN,
                   n->size_mismatch > KTRACE_MAX_UNKNOWN);
    strbuf_printf(out, "  %-10zu objects live at the end\n", kr->nr_ptrs);
    if (kr->o && kr->o->validate)
        strbuf_printf(out, "validation after every operation: %u violation%s%s%s\n", n->violations,
                      n->violations == 1 ? "" : "s", n->violations ? "; first: " : "",
                      kr->validate_msg);
    if (!snap)
        return;
    strbuf_printf(out, "\n%-28s %8s %8s %6s %5s %6s %6s\n", "cache", "objects", "total", "slabs",
                  "order", "objsz", "size");
    for (size_t i = 0; i < snap->nr_caches; i++) {
        const struct sim_snap_cache *c = &snap->caches[i];

        if (!c->alive || !c->slabs)
            continue;
        strbuf_printf(out, "%-28s %8lu %8lu %6lu %5u %6u %6u\n", c->name, c->objects,
                      c->total_objects, c->slabs, c->order, c->object_size, c->size);
    }
    sim_snapshot_release(snap);
}

uint64_t ktrace_report_rcu_frees(const char *report)
{
    const char *at = report ? strstr(report, " " KTRACE_REPORT_RCU_FREES " ") : NULL;
    const char *line;

    if (!at)
        return 0;
    for (line = at; line > report && line[-1] != '\n'; line--)
        ;
    return strtoull(line, NULL, 10); /* line_if()'s "  N  words" */
}
