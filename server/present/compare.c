/*
 * compare.c: one scenario run twice, baseline and patched, read as one
 * table of counters (see compare.h): what `slublab compare` prints
 * (cli/cmd_compare.c), GET /api/compare returns and the Markdown and SVG
 * comparison reports (report_md.c, svg_chart.c) show.
 *
 * Every counter is read, summed over CPUs, then the slab-state files; the
 * tables print those a reviewer pastes: a counter neither kernel has, and
 * one that is 0 in both runs, is left out (and counted), and each row has
 * the delta and the change in percent of the baseline, with enough digits
 * that a change never reads 0 ("new" when the baseline is 0, "n/a" when one
 * kernel has no such counter).  Across models, a counter that counts
 * another path on each carries a note.
 *
 * A side replays a scenario, or a session's inputs (its scenario, then the
 * batches appended since).  Each run keeps a digest of its events, so a
 * comparison whose two runs are the same says so instead of showing a
 * table of +0.0%.
 */
#include "present/compare.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "scenario/metric.h"
#include "scenario/replay.h"

static const enum metric_kind compare_files[] = {
        METRIC_OBJECTS, METRIC_OBJECTS_PARTIAL, METRIC_PARTIAL, METRIC_SLABS, METRIC_TOTAL_OBJECTS};

#define FNV_OFFSET 14695981039346656037ull
#define FNV_PRIME  1099511628211ull

static void digest_u64(uint64_t *h, uint64_t v)
{
    int i;

    for (i = 0; i < 8; i++) {
        *h ^= (v >> (8 * i)) & 0xff;
        *h *= FNV_PRIME;
    }
}

static void digest_str(uint64_t *h, const char *str)
{
    for (; str && *str; str++) {
        *h ^= (unsigned char)*str;
        *h *= FNV_PRIME;
    }
    digest_u64(h, str ? 1 : 0);
}

static void digest_place(uint64_t *h, const struct sim_place *p)
{
    digest_u64(h, p->type);
    digest_u64(h, (uint64_t)(int64_t)p->cpu);
    digest_u64(h, (uint64_t)(int64_t)p->node);
    digest_u64(h, (uint64_t)(int64_t)p->slot);
    digest_u64(h, p->slab);
    digest_u64(h, p->sheaf);
}

/* The event callback of a side's run: what the event did, into side->digest. */
static void compare_on_event(const struct sim_event *ev, void *arg)
{
    uint64_t *h = &((struct compare_side *)arg)->digest;
    size_t i;

    digest_u64(h, ev->op);
    digest_u64(h, (uint64_t)(int64_t)ev->cpu);
    digest_u64(h, (uint64_t)(int64_t)ev->node);
    digest_u64(h, (uint64_t)(int64_t)ev->cache);
    digest_str(h, ev->fn);
    digest_str(h, ev->label);
    digest_str(h, ev->report);
    for (i = 0; i < ev->nr_moves; i++) {
        digest_u64(h, ev->moves[i].kind);
        digest_u64(h, ev->moves[i].id);
        digest_place(h, &ev->moves[i].from);
        digest_place(h, &ev->moves[i].to);
    }
    for (i = 0; i < ev->nr_stats; i++) {
        digest_u64(h, ev->stats[i].item);
        digest_u64(h, (uint64_t)ev->stats[i].delta);
    }
    if (ev->page) {
        digest_u64(h, ev->page->order);
        digest_u64(h, ev->page->addr);
        digest_str(h, ev->page->path);
    }
}

/* Apply @more's batches after the first, as session_build() does; 0 or -1 with @err. */
static int compare_run_batches(struct replay *rp, const struct session *more, struct strbuf *err)
{
    char label[32];
    size_t i;
    int ret = 0;

    for (i = 1; i < more->run->nr_batches && !ret; i++) {
        const struct session_batch *b = &more->run->batches[i];
        uint64_t start = sim_op_count(rp->sim), steps;
        struct scenario_op *ops = NULL;
        cJSON *arr = cJSON_Parse(b->ops);
        size_t nr = 0;

        snprintf(label, sizeof(label), "batch %zu", i);
        if (!arr) {
            strbuf_printf(err, "%s: not valid JSON", label);
            return -1;
        }
        ret = scenario_parse_op_list(arr, label, rp->config.nr_cpus, rp->config.nr_nodes, &ops, &nr,
                                     &steps, err);
        cJSON_Delete(arr);
        if (ret)
            return -1;
        rp->label = label;
        rp->op_limit = b->limit == REPLAY_NO_LIMIT ? REPLAY_NO_LIMIT : start + b->limit;
        ret = replay_more(rp, ops, nr, "ops");
        rp->label = NULL;
        scenario_op_list_release(ops, nr);
    }
    rp->op_limit = REPLAY_NO_LIMIT;
    if (ret && ret != -ECANCELED) {
        strbuf_puts(err, strbuf_str(&rp->error));
        return -1;
    }
    return 0;
}

/* Read the rows of cache @cache of @sim into @side (and its name into @cache_name, its
 * snapshot into side->snap when kept).  0, or -1 with @err. */
static int compare_read(struct sim *sim, int cache, struct compare_side *side, char *cache_name,
                        struct strbuf *err)
{
    struct sim_snapshot *snap = NULL;
    size_t i, k;

    side->ops = sim_op_count(sim);
    side->events = sim_event_count(sim);
    if (sim_snapshot(sim, &snap)) {
        strbuf_printf(err, "slublab compare: out of memory");
        return -1;
    }
    for (i = 0; i < SIM_NR_STATS; i++)
        side->v[i] = sim_stat(sim, cache, (unsigned)i, -1);
    for (i = 0; i < snap->nr_caches; i++) {
        if (snap->caches[i].id != cache)
            continue;
        snprintf(cache_name, SIM_NAME_MAX, "%s", snap->caches[i].name);
        for (k = 0; k < sizeof(compare_files) / sizeof(compare_files[0]); k++)
            side->v[SIM_NR_STATS + k] = metric_cache_file(&snap->caches[i], compare_files[k]);
    }
    if (side->keep_snap) {
        side->snap = snap;
        snap = NULL;
    }
    sim_snapshot_release(snap);
    return 0;
}

int compare_side_run(const struct scenario *scn, const struct session *more, const char *cache_arg,
                     struct compare_side *side, char *cache_name, struct strbuf *err)
{
    struct replay rp;
    int ret = -1, cache, run;

    side->digest = FNV_OFFSET;
    if (replay_init(&rp, scn, &side->cfg)) {
        strbuf_printf(err, "%s (%s)", strbuf_str(&rp.error), side->label);
        goto out_release;
    }
    sim_set_event_cb(rp.sim, compare_on_event, side);
    if (more && more->run->nr_batches)
        rp.op_limit = more->run->batches[0].limit;
    run = replay_run(&rp);
    if (run && run != -ECANCELED) {
        strbuf_printf(err, "%s (%s)", strbuf_str(&rp.error), side->label);
        goto out_release;
    }
    if (more && compare_run_batches(&rp, more, err)) {
        strbuf_printf(err, " (%s)", side->label);
        goto out_release;
    }
    cache = cache_arg ? sim_cache_lookup(rp.sim, cache_arg) : replay_report_cache(&rp);
    if (cache < 0) {
        strbuf_printf(err, "slublab compare: %s: no cache %s%s%s (%s)", scn->label,
                      cache_arg ? "named \"" : "was created", cache_arg ? cache_arg : "",
                      cache_arg ? "\"" : "", side->label);
        goto out_release;
    }
    ret = compare_read(rp.sim, cache, side, cache_name, err);
out_release:
    replay_release(&rp);
    return ret;
}

/* A rerun's events: into the side's digest and the ranking that picks the busiest cache. */
struct rerun_feed {
    struct compare_side *side;
    struct cache_rank cr;
};

static void rerun_event(const struct sim_event *ev, void *arg)
{
    struct rerun_feed *f = arg;

    compare_on_event(ev, f->side);
    cache_rank_event(ev, &f->cr);
}

int compare_side_rerun(struct session *s, const char *cache_arg, struct compare_side *side,
                       char *cache_name, struct strbuf *err)
{
    struct rerun_feed f = {side, CACHE_RANK_INIT};
    struct sim *m = NULL;
    uint64_t unmatched = 0;
    int ret, cache = -1;

    side->digest = FNV_OFFSET;
    ret = session_rerun(s, &side->cfg, rerun_event, &f, &m, &unmatched);
    if (ret) {
        strbuf_printf(err, "%s (%s)",
                      ret == SESSION_EUNPROCESSABLE
                              ? "the session's operations are not a kernel trace's: a session "
                                "of a scenario is compared by its inputs"
                      : ret == -ENOMEM ? "out of memory"
                                       : "the session's operations do not run on this kernel",
                      side->label);
        cache_rank_release(&f.cr);
        return -1;
    }
    /* else the cache that handed out the most objects, as `slublab compare TRACE` picks */
    cache = cache_arg ? sim_cache_lookup(m, cache_arg) : cache_rank_busiest(&f.cr);
    cache_rank_release(&f.cr);
    if (cache < 0) {
        strbuf_printf(err, "no cache %s%s%s (%s)", cache_arg ? "named \"" : "was created",
                      cache_arg ? cache_arg : "", cache_arg ? "\"" : "", side->label);
        sim_destroy(m);
        return -1;
    }
    ret = compare_read(m, cache, side, cache_name, err);
    sim_destroy(m);
    return ret;
}

bool compare_counts(const struct compare_side side[2], int k, size_t row)
{
    return row >= SIM_NR_STATS || sim_stat_in_model((unsigned)row, side[k].cfg.model);
}

enum compare_row_kind compare_row_kind(const struct compare_side side[2], size_t row)
{
    bool in0 = compare_counts(side, 0, row), in1 = compare_counts(side, 1, row);

    if (!in0 && !in1)
        return COMPARE_ABSENT;
    if (in0 != in1) /* n/a beside the other kernel's count, 0 or not */
        return COMPARE_SHOWN;
    return side[0].v[row] || side[1].v[row] ? COMPARE_SHOWN : COMPARE_ZERO;
}

const char *compare_row_name(size_t row)
{
    return row < SIM_NR_STATS ? sim_stat_name((unsigned)row)
                              : metric_file_name(compare_files[row - SIM_NR_STATS]);
}

bool compare_change(uint64_t base, uint64_t patched, char *buf, size_t len)
{
    double pct, below = 0.05; /* what %.1f prints as 0.0 */
    int digits = 1;

    if (!base)
        return false;
    if (base == patched) {
        snprintf(buf, len, "0");
        return true;
    }
    pct = ((double)patched - (double)base) * 100.0 / (double)base;
    /* 19,192 -> 19,200 is +0.04%, not +0.0% */
    for (; digits < 6 && (pct < 0 ? -pct : pct) < below; below /= 10)
        digits++;
    snprintf(buf, len, "%+.*f", digits, pct);
    return true;
}

void compare_change_text(const struct compare_side side[2], size_t row, char *buf, size_t len)
{
    char pct[40]; /* with "%", fits the callers' 48 bytes */

    if (!compare_counts(side, 0, row) || !compare_counts(side, 1, row))
        snprintf(buf, len, "-");
    else if (compare_change(side[0].v[row], side[1].v[row], pct, sizeof(pct)))
        snprintf(buf, len, "%s%%", pct);
    else
        snprintf(buf, len, side[1].v[row] ? "new" : "0%%");
}

const char *compare_value_text(const struct compare_side side[2], int k, size_t row, char *buf,
                               size_t len)
{
    if (!compare_counts(side, k, row))
        snprintf(buf, len, "n/a");
    else
        snprintf(buf, len, "%" PRIu64, side[k].v[row]);
    return buf;
}

const char *compare_row_note(const struct compare_side side[2], size_t row)
{
    static const struct {
        unsigned item;
        const char *note;
    } notes[] = {
            {SIM_ALLOC_FASTPATH, "alloc_fastpath counts objects taken from the CPU slab's "
                                 "freelist on legacy and 6.18/6.19 (hybrid) kernels, from the "
                                 "per-CPU main sheaf on sheaves kernels (7.0 on); 6.18 counts "
                                 "its sheaves' in alloc_cpu_sheaf"},
            {SIM_ALLOC_SLOWPATH, "alloc_slowpath counts entries to ___slab_alloc() on legacy and "
                                 "hybrid kernels; on sheaves kernels, objects taken from slabs "
                                 "when the sheaves are empty"},
            {SIM_FREE_FASTPATH, "free_fastpath counts objects pushed onto the CPU slab's "
                                "freelist on legacy and hybrid kernels, into the per-CPU main "
                                "sheaf on sheaves kernels; 6.18 counts its sheaves' in "
                                "free_cpu_sheaf"},
            {SIM_FREE_SLOWPATH, "free_slowpath counts __slab_free() calls (one per detached "
                                "freelist) on legacy and hybrid kernels, each object freed "
                                "straight to its slab on sheaves kernels"},
            {SIM_FREE_ADD_PARTIAL, "free_add_partial also counts the slabs __put_partials() "
                                   "moves from a CPU partial list to a node on legacy and "
                                   "hybrid kernels"},
    };
    size_t i;

    if (side[0].cfg.model == side[1].cfg.model || row >= SIM_NR_STATS)
        return NULL;
    for (i = 0; i < sizeof(notes) / sizeof(notes[0]); i++)
        if (notes[i].item == row)
            return notes[i].note;
    return NULL;
}

bool compare_identical(const struct compare_side side[2])
{
    return side[0].ops == side[1].ops && side[0].events == side[1].events &&
           side[0].digest == side[1].digest;
}

bool compare_warning(const struct compare_side side[2], char *buf, size_t len)
{
    enum sim_model model = side[0].cfg.model;
    bool same = compare_identical(side);
    unsigned v, differ = SIM_NR_VARIANTS;

    for (v = 0; v < SIM_NR_VARIANTS; v++)
        if (side[0].cfg.variant[v] != side[1].cfg.variant[v])
            differ = v;
    if (model == side[1].cfg.model && differ < SIM_NR_VARIANTS &&
        !sim_variant_in_model(differ, model)) {
        snprintf(buf, len,
                 "%s does not change what the %s model does (it is a change to the %s model)%s",
                 sim_variant_name(differ), sim_model_name(model),
                 sim_model_name(model == SIM_MODEL_SHEAVES ? SIM_MODEL_LEGACY : SIM_MODEL_SHEAVES),
                 same ? ": the two runs are identical, so nothing changes" : "");
        return true;
    }
    if (!same)
        return false;
    snprintf(buf, len,
             "the two runs are identical (the same %" PRIu64 " operations and %" PRIu64
             " events): %s and %s behave the same on this scenario",
             side[0].ops, side[0].events, side[0].label, side[1].label);
    return true;
}

cJSON *compare_json(const struct scenario *scn, const char *cache,
                    const struct compare_side side[2])
{
    cJSON *o = cJSON_CreateObject(), *rows = NULL;
    char pct[48], warning[256];
    bool warn = compare_warning(side, warning, sizeof(warning));
    size_t r;

    if (!o || !json_put(o, "scenario", cJSON_CreateString(scn->name)) ||
        !json_put(o, "cache", cJSON_CreateString(cache)) ||
        !json_put(o, "baseline", cJSON_CreateString(side[0].label)) ||
        !json_put(o, "patched", cJSON_CreateString(side[1].label)) ||
        !json_put(o, "identical", cJSON_CreateBool(compare_identical(side))) ||
        !json_put(o, "warning", warn ? cJSON_CreateString(warning) : cJSON_CreateNull()) ||
        !json_put(o, "rows", rows = cJSON_CreateArray()))
        return json_drop(o);
    for (r = 0; r < COMPARE_ROWS; r++) {
        cJSON *row = cJSON_CreateObject();
        bool in[2] = {compare_counts(side, 0, r), compare_counts(side, 1, r)};
        bool has = in[0] && in[1] && compare_change(side[0].v[r], side[1].v[r], pct, sizeof(pct));
        const char *note = compare_row_note(side, r);

        if (!json_push(rows, row) ||
            !json_put(row, "metric", cJSON_CreateString(compare_row_name(r))) ||
            !json_put(row, "baseline", json_uint(side[0].v[r])) ||
            !json_put(row, "patched", json_uint(side[1].v[r])) ||
            /* the printed value, so the JSON and the table agree to the digit */
            !json_put(row, "change_pct",
                      has ? cJSON_CreateNumber(strtod(pct, NULL)) : cJSON_CreateNull()))
            return json_drop(o);
        /* across models, or where a kernel lacks it: which have the counter (sysfs file) */
        if ((side[0].cfg.model != side[1].cfg.model || !in[0] || !in[1]) &&
            (!json_put(row, "in_baseline", cJSON_CreateBool(in[0])) ||
             !json_put(row, "in_patched", cJSON_CreateBool(in[1]))))
            return json_drop(o);
        if (note && !json_put(row, "note", cJSON_CreateString(note)))
            return json_drop(o);
    }
    return o;
}

void compare_delta_text(const struct compare_side side[2], size_t row, char *buf, size_t len)
{
    if (!compare_counts(side, 0, row) || !compare_counts(side, 1, row))
        snprintf(buf, len, "-");
    else if (side[1].v[row] == side[0].v[row])
        snprintf(buf, len, "0");
    else
        snprintf(buf, len, "%+" PRId64, (int64_t)(side[1].v[row] - side[0].v[row]));
}

void compare_left_out(const struct compare_side side[2], size_t *zero, size_t *absent)
{
    size_t r;

    *zero = *absent = 0;
    for (r = 0; r < COMPARE_ROWS; r++) {
        enum compare_row_kind kind = compare_row_kind(side, r);

        *zero += kind == COMPARE_ZERO;
        *absent += kind == COMPARE_ABSENT;
    }
}

bool compare_write_table(struct strbuf *out, const struct compare_side side[2], const char *first)
{
    char v[2][24], delta[24], change[48], mark[8];
    const char *notes[COMPARE_ROWS];
    size_t r, nr_notes = 0, zero, absent;
    bool files = false;

    strbuf_printf(out, "%-26s %14s %14s %12s %9s\n", first, "baseline", "patched", "delta",
                  "change");
    for (r = 0; r < COMPARE_ROWS; r++) {
        const char *note = compare_row_note(side, r);

        if (compare_row_kind(side, r) != COMPARE_SHOWN)
            continue;
        if (r >= SIM_NR_STATS && !files) /* the slab-state files apart */
            strbuf_puts(out, "\n");
        files = r >= SIM_NR_STATS;
        compare_delta_text(side, r, delta, sizeof(delta));
        compare_change_text(side, r, change, sizeof(change));
        mark[0] = '\0';
        if (note) {
            notes[nr_notes++] = note;
            snprintf(mark, sizeof(mark), " [%zu]", nr_notes);
        }
        strbuf_printf(out, "%-26s %14s %14s %12s %9s%s\n", compare_row_name(r),
                      compare_value_text(side, 0, r, v[0], sizeof(v[0])),
                      compare_value_text(side, 1, r, v[1], sizeof(v[1])), delta, change, mark);
    }
    compare_left_out(side, &zero, &absent);
    strbuf_printf(out, "\nLeft out: %zu counters that are 0 in both runs", zero);
    if (absent)
        strbuf_printf(out, ", %zu that neither kernel has (no sysfs file)", absent);
    strbuf_puts(out, ".\n");
    for (r = 0; r < nr_notes; r++)
        strbuf_printf(out, "[%zu] %s.\n", r + 1, notes[r]);
    return !strbuf_failed(out);
}
