/*
 * cmd_compare.c: `slublab compare FILE`: one scenario, two settings, one table.
 *
 * The scenario runs twice, identical but for one variant (--variant NAME,
 * before then after, or NAME=A,B), the kernel release (--kernel A,B: each
 * run on its release's model, era and variants, the scenario's explicit
 * variants kept) or the model (--model A,B).  The first run
 * is the baseline, the second the patched kernel, as in the tables of mm
 * patch cover letters (the model: present/compare.c).  FILE may be a kmem
 * trace instead of a scenario: it is replayed once, as `slublab replay -o`
 * records it, and the two runs replay those operations.
 */
#include "cli/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/hint.h"
#include "ktrace/ktrace_replay.h"
#include "present/compare.h"
#include "present/report_md.h"
#include "present/svg_chart.h"
#include "scenario/kernel.h"
#include "scenario/replay.h"
#include "session/cache_rank.h"

struct compare_args {
    const char *file;
    const char *variant; /* NAME or NAME=A,B */
    const char *models;  /* A,B */
    const char *kernels; /* A,B */
    const char *cache;   /* NULL: the first cache the scenario creates */
    struct cli_u64 seed;
    bool json;
    bool md;         /* the Markdown comparison report (report_md.c) */
    const char *out; /* -o: where the report goes; NULL: stdout */
};

static const struct cli_opt compare_opts[] = {
        {CLI_TO(struct compare_args, variant), .name = "variant", .arg = "NAME[=A,B]", .one_of = 1,
         .required = true,
         .help = "NAME: baseline NAME=before, patched NAME=after; NAME=A,B: baseline NAME=A, "
                 "patched NAME=B (before or after)"},
        {CLI_TO(struct compare_args, models), .name = "model", .arg = "A,B", .one_of = 1,
         .required = true, .help = "baseline model A, patched model B"},
        {CLI_TO(struct compare_args, kernels), .name = "kernel", .arg = "A,B", .one_of = 1,
         .required = true,
         .help = "baseline kernel release A, patched B (6.12,7.2); a counter one of them "
                 "lacks shows n/a"},
        {CLI_TO(struct compare_args, cache), .name = "cache", .arg = "NAME",
         .help = "the cache to compare (default: the first one created; of a kmem trace, "
                 "the one that handed out the most objects)"},
        {CLI_TO(struct compare_args, seed), .name = "seed", .arg = "N",
         .help = "override the scenario's seed (both runs)"},
        {CLI_TO(struct compare_args, json), .name = "json", .one_of = 2,
         .help = "{\"identical\",\"warning\",\"rows\":[{\"metric\",\"baseline\",\"patched\","
                 "\"change_pct\"}]}"},
        {CLI_TO(struct compare_args, md), .name = "md", .one_of = 2,
         .help = "a Markdown report: the table in cover-letter form, then the end state of both "
                 "runs (docs/export.md)"},
        {CLI_TO(struct compare_args, out), .short_name = 'o', .arg = "OUT.md",
         .help = "with --md: write it to OUT.md and its chart to OUT-counters.svg (default: "
                 "stdout, no chart)"},
        {0},
};

/* What spans several options. */
static int compare_check_args(const struct compare_args *a)
{
    if ((a->variant != NULL) + (a->models != NULL) + (a->kernels != NULL) != 1)
        return cli_usage_error("compare", "give exactly one of --variant, --kernel and --model");
    if (a->json && a->md)
        return cli_usage_error("compare", "--json and --md exclude each other");
    if (a->out && !a->md)
        return cli_usage_error("compare", "-o goes with --md");
    return CLI_OK;
}

/* Split "A,B" at the comma into two bounded strings. */
static bool compare_split(const char *s, char *a, char *b, size_t size)
{
    const char *comma = strchr(s, ',');
    size_t la;

    if (!comma || strchr(comma + 1, ','))
        return false;
    la = (size_t)(comma - s);
    if (la == 0 || la >= size || strlen(comma + 1) == 0 || strlen(comma + 1) >= size)
        return false;
    memcpy(a, s, la);
    a[la] = '\0';
    memcpy(b, comma + 1, strlen(comma + 1) + 1);
    return true;
}

/* Build the two configurations from the scenario's and the axis. */
static int compare_configure(const struct compare_args *a, const struct scenario *scn,
                             struct compare_side side[2])
{
    char name[64], va[32] = "before", vb[32] = "after", pair[128], msg[256];
    const struct sim_config *base = &scn->config;
    const char *eq;
    int k;

    side[0].cfg = *base;
    if (a->seed.given)
        side[0].cfg.seed = a->seed.value;
    side[1].cfg = side[0].cfg;
    if (a->kernels) {
        if (!compare_split(a->kernels, va, vb, sizeof(va)))
            return cli_usage_error("compare", "--kernel wants A,B, not \"%s\"", a->kernels);
        for (k = 0; k < 2; k++) {
            if (kernel_choose(k ? vb : va, NULL, scn->variants_given, &side[k].cfg, msg,
                              sizeof(msg)))
                return cli_usage_error("compare", "%s", msg);
            snprintf(side[k].label, sizeof(side[k].label), "kernel %s",
                     sim_release_name(side[k].cfg.release));
        }
        return CLI_OK;
    }
    if (a->models) {
        if (!compare_split(a->models, va, vb, sizeof(va)))
            return cli_usage_error("compare", "--model wants A,B, not \"%s\"", a->models);
        for (k = 0; k < 2; k++) {
            const char *model = k ? vb : va;

            if (sim_model_parse(model, &side[k].cfg))
                return cli_usage_error("compare", "unknown model \"%s\"", model);
            if (sim_model_error(&side[k].cfg))
                return cli_usage_error("compare", "%s", sim_model_error(&side[k].cfg));
            snprintf(side[k].label, sizeof(side[k].label), "model=%s", model);
        }
        return CLI_OK;
    }
    if (!a->variant)
        return CLI_USAGE; /* compare_check_args() saw to it; for the analyzer */
    eq = strchr(a->variant, '=');
    if (strlen(a->variant) >= sizeof(name) || (eq && !compare_split(eq + 1, va, vb, sizeof(va))))
        return cli_usage_error("compare", "--variant wants NAME or NAME=A,B, not \"%s\"",
                               a->variant);
    snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - a->variant) : 63, a->variant);
    if ((k = hint_lookup(name, sim_variant_name, SIM_NR_VARIANTS)) >=
        0) /* as the kernel spells it */
        snprintf(name, sizeof(name), "%s", sim_variant_name((unsigned)k));
    for (k = 0; k < 2; k++) {
        snprintf(pair, sizeof(pair), "%s=%s", name, k ? vb : va);
        if (!cli_set_variant(&side[k].cfg, pair))
            return CLI_USAGE;
        snprintf(side[k].label, sizeof(side[k].label), "%s", pair);
    }
    return CLI_OK;
}

/* Is @path a kmem trace rather than a scenario: gzip, or text that does not open with '{'? */
static bool compare_is_trace(const char *path)
{
    FILE *f = fopen(path, "rb");
    int c = EOF, first = EOF;

    if (!f)
        return false; /* cli_load() says why */
    first = fgetc(f);
    for (c = first; c == ' ' || c == '\t' || c == '\n' || c == '\r';)
        c = fgetc(f);
    fclose(f);
    return first == 0x1f || (c != EOF && c != '{');
}

/* The scenario of kmem trace @path: its operations as `slublab replay -o` records them, on
 * the trace's kernel, and into @busiest (SIM_NAME_MAX bytes) the name of the cache that
 * handed out the most objects, as /api/compare picks it on a trace session ("" when none).
 * NULL after a message. */
static struct scenario *compare_trace_scenario(const char *path, char *busiest)
{
    struct cache_rank cr = CACHE_RANK_INIT;
    struct sim_snapshot *snap = NULL;
    struct ktrace_reader *r = NULL;
    struct ktrace_replay kr;
    struct ktrace_opts o;
    struct strbuf err = STRBUF_INIT;
    struct scenario *scn = NULL;
    cJSON *j = NULL;
    char *text = NULL;
    int ret;

    memset(&o, 0, sizeof(o));
    o.record = true;
    o.max_ops = SCENARIO_MAX_STEPS;
    o.on_event = cache_rank_event;
    o.on_event_arg = &cr;
    busiest[0] = 0;
    if ((ret = ktrace_open(path, &r, &err))) {
        cli_usage_error("compare", "%s", strbuf_str(&err));
        goto out;
    }
    ret = ktrace_replay_run(&kr, r, &o, &err);
    if (ret && ret != -EIO) {
        cli_usage_error("compare", "%s: %s", path,
                        ret == -ENOMEM ? "out of memory" : strbuf_str(&err));
    } else if (!ktrace_replay_events(&kr)) {
        cli_usage_error("compare", "no kmem events in %s " KTRACE_NO_EVENTS_WHY, path);
    } else if (!(j = ktrace_replay_scenario(&kr, "kmem-trace")) ||
               !(text = cJSON_PrintUnformatted(j))) {
        cli_usage_error("compare", "out of memory");
    } else if (scenario_parse(text, strlen(text), path, &scn, &err)) {
        cli_usage_error("compare", "%s", strbuf_str(&err));
        scn = NULL;
    } else if (!sim_snapshot(kr.sim, &snap)) {
        int id = cache_rank_busiest(&cr);

        for (size_t i = 0; i < snap->nr_caches; i++)
            if (snap->caches[i].id == id)
                snprintf(busiest, SIM_NAME_MAX, "%s", snap->caches[i].name);
        sim_snapshot_release(snap);
    }
    ktrace_replay_release(&kr);
    cache_rank_release(&cr);
out:
    cJSON_free(text);
    cJSON_Delete(j);
    ktrace_close(r);
    strbuf_release(&err);
    return scn;
}

/* Run the scenario with side->cfg and read the rows.  Sets *cache_name. */
static int compare_run(const struct compare_args *a, const struct scenario *scn,
                       struct compare_side *side, char *cache_name)
{
    struct strbuf err = STRBUF_INIT;
    int ret = CLI_OK;

    if (compare_side_run(scn, NULL, a->cache, side, cache_name, &err)) {
        fprintf(stderr, "%s\n", strbuf_str(&err));
        ret = CLI_USAGE;
    }
    strbuf_release(&err);
    return ret;
}

static int compare_print_json(const struct scenario *scn, const char *cache,
                              const struct compare_side side[2])
{
    cJSON *o = compare_json(scn, cache, side);
    bool ok = cli_print_json(stdout, o, false);

    cJSON_Delete(o);
    if (!ok) {
        fprintf(stderr, "slublab compare: out of memory\n");
        return CLI_USAGE;
    }
    return CLI_OK;
}

static int compare_print_table(const struct scenario *scn, const char *cache,
                               const struct compare_side side[2])
{
    struct strbuf out = STRBUF_INIT;
    char warning[256];
    int ret = CLI_OK;

    strbuf_printf(&out, "scenario %s, cache %s\nbaseline: %s\npatched:  %s\n", scn->name, cache,
                  side[0].label, side[1].label);
    if (compare_warning(side, warning, sizeof(warning)))
        strbuf_printf(&out, "warning:  %s\n", warning); /* a table of 0% says nothing by itself */
    strbuf_puts(&out, "\n");
    if (!compare_write_table(&out, side, "metric"))
        ret = cli_usage_error("compare", "out of memory");
    else
        fputs(strbuf_str(&out), stdout);
    strbuf_release(&out);
    return ret;
}

static int compare_print_md(const struct compare_args *a, const struct scenario *scn,
                            const char *cache, const struct compare_side side[2])
{
    const struct sim_snapshot *snaps[2] = {side[0].snap, side[1].snap};
    struct strbuf md = STRBUF_INIT, svg = STRBUF_INIT;
    const char *ref = NULL;
    char chart[4096];
    int ret;

    if (a->out && cli_chart_name(a->out, "counters", chart, sizeof(chart), &ref))
        return cli_usage_error("compare", "-o: the name is too long");
    if (!report_md_compare(&md, scn, cache, side, snaps, ref) ||
        (ref && !svg_compare_chart(&svg, side)))
        ret = cli_usage_error("compare", "out of memory");
    else
        ret = cli_write_report("compare", a->out, &md, ref ? chart : NULL, &svg);
    strbuf_release(&md);
    strbuf_release(&svg);
    return ret;
}

static int compare_main(int argc, char **argv)
{
    struct compare_args args = {0};
    struct compare_side side[2];
    char cache[2][SIM_NAME_MAX] = {"", ""}, busiest[SIM_NAME_MAX] = "";
    struct scenario *scn;
    int ret;

    if (!cli_parse(&cmd_compare, argc, argv, &args, &ret))
        return ret;
    if ((ret = compare_check_args(&args)))
        return ret;
    if (!(scn = compare_is_trace(args.file) ? compare_trace_scenario(args.file, busiest)
                                            : cli_load(args.file)))
        return CLI_USAGE;
    if (!args.cache && busiest[0])
        args.cache = busiest; /* a trace: its busiest cache, not the first created */
    memset(side, 0, sizeof(side));
    side[0].keep_snap = side[1].keep_snap = args.md;
    if (!(ret = compare_configure(&args, scn, side)) &&
        !(ret = compare_run(&args, scn, &side[0], cache[0])) &&
        !(ret = compare_run(&args, scn, &side[1], cache[1]))) {
        if (args.json)
            ret = compare_print_json(scn, cache[0], side);
        else if (args.md)
            ret = compare_print_md(&args, scn, cache[0], side);
        else
            ret = compare_print_table(scn, cache[0], side);
    }
    sim_snapshot_release(side[0].snap);
    sim_snapshot_release(side[1].snap);
    scenario_release(scn);
    return ret;
}

const struct cli_command cmd_compare = {
        .name = "compare",
        .pos = CLI_POS_SCENARIO(struct compare_args, file),
        .groups = {{compare_opts, 0}},
        .run = compare_main,
};
