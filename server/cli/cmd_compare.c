/*
 * cmd_compare.c: `slublab compare FILE`: one scenario, two settings, one table.
 *
 * The scenario runs twice, identical but for one variant (--variant NAME,
 * before then after, or NAME=A,B) or the model (--model A,B).  The first run
 * is the baseline, the second the patched kernel, as in the tables of mm
 * patch cover letters (the model: present/compare.c).
 */
#include "cli/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "present/compare.h"
#include "present/report_md.h"
#include "present/svg_chart.h"
#include "scenario/replay.h"

struct compare_args {
    const char *file;
    const char *variant; /* NAME or NAME=A,B */
    const char *models;  /* A,B */
    const char *cache;   /* NULL: the first cache the scenario creates */
    const char *seed;
    bool json;
    bool md;         /* the Markdown comparison report (report_md.c) */
    const char *out; /* -o: where the report goes; NULL: stdout */
};

void cli_compare_usage(FILE *f)
{
    fputs("usage: slublab compare FILE (--variant NAME[=A,B] | --model A,B) [--cache NAME]\n"
          "                       [--seed N] [--json | --md [-o OUT.md]]\n"
          "\n"
          "Run the scenario FILE twice, as the baseline and as the patched kernel, and\n"
          "print every counter (summed over CPUs) and the slab-state files of one cache\n"
          "side by side, with the change in percent.\n"
          "\n"
          "  --variant NAME       baseline NAME=before, patched NAME=after\n"
          "  --variant NAME=A,B   baseline NAME=A, patched NAME=B (before or after)\n"
          "  --model A,B          baseline model A, patched model B\n"
          "  --cache NAME         the cache to compare (default: the first one created)\n"
          "  --seed N             override the scenario's seed (both runs)\n"
          "  --json               "
          "{\"rows\":[{\"metric\",\"baseline\",\"patched\",\"change_pct\"}]}\n"
          "  --md                 a Markdown report: the table in cover-letter form, then\n"
          "                       the end state of both runs (docs/export.md)\n"
          "  -o OUT.md            with --md: write it to OUT.md and its chart to\n"
          "                       OUT-counters.svg (default: stdout, no chart)\n"
          "\n"
          "Exit status: 0 on success, 2 for usage errors, invalid scenarios and\n"
          "operations the engine rejects.\n",
          f);
}

static int compare_parse_args(int argc, char **argv, struct compare_args *a)
{
    const char *value;
    int i, m;

    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];

        if (strcmp(arg, "--json") == 0)
            a->json = true;
        else if (strcmp(arg, "--md") == 0)
            a->md = true;
        else if ((m = cli_option(argc, argv, &i, "-o", &value)) > 0)
            a->out = value;
        else if (m == 0 && (m = cli_option(argc, argv, &i, "--variant", &value)) > 0)
            a->variant = value;
        else if (m == 0 && (m = cli_option(argc, argv, &i, "--model", &value)) > 0)
            a->models = value;
        else if (m == 0 && (m = cli_option(argc, argv, &i, "--cache", &value)) > 0)
            a->cache = value;
        else if (m == 0 && (m = cli_option(argc, argv, &i, "--seed", &value)) > 0)
            a->seed = value;
        else if (m < 0)
            return CLI_USAGE;
        else if (arg[0] == '-' && arg[1] != '\0')
            return cli_usage_error("compare", "unknown option \"%s\"", arg);
        else if (a->file)
            return cli_usage_error("compare", "one scenario file at a time");
        else
            a->file = arg;
    }
    if (!a->file)
        return cli_usage_error("compare", "which scenario file?");
    if (!a->variant == !a->models)
        return cli_usage_error("compare", "give exactly one of --variant and --model");
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
static int compare_configure(const struct compare_args *a, const struct sim_config *base,
                             struct compare_side side[2])
{
    char name[64], va[32] = "before", vb[32] = "after", spec[128];
    const char *eq;
    int k;

    side[0].cfg = *base;
    if (a->seed && !cli_parse_u64(a->seed, &side[0].cfg.seed))
        return cli_usage_error("compare", "--seed wants a non-negative integer");
    side[1].cfg = side[0].cfg;
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
        return CLI_USAGE; /* compare_parse_args() saw to it; for the analyzer */
    eq = strchr(a->variant, '=');
    if (strlen(a->variant) >= sizeof(name) || (eq && !compare_split(eq + 1, va, vb, sizeof(va))))
        return cli_usage_error("compare", "--variant wants NAME or NAME=A,B, not \"%s\"",
                               a->variant);
    snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - a->variant) : 63, a->variant);
    for (k = 0; k < 2; k++) {
        snprintf(spec, sizeof(spec), "%s=%s", name, k ? vb : va);
        if (!cli_set_variant(&side[k].cfg, spec))
            return CLI_USAGE;
        snprintf(side[k].label, sizeof(side[k].label), "%s", spec);
    }
    return CLI_OK;
}

/* Run the scenario with side->cfg and read the rows.  Sets *cache_name. */
static int compare_run(const struct compare_args *a, const struct scenario *scn,
                       struct compare_side *side, char *cache_name)
{
    struct strbuf err = STRBUF_INIT;
    int ret = CLI_OK;

    if (compare_side_run(scn, a->cache, side, cache_name, &err)) {
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
    char *text = o ? cJSON_PrintUnformatted(o) : NULL;

    cJSON_Delete(o);
    if (!text) {
        fprintf(stderr, "slublab compare: out of memory\n");
        return CLI_USAGE;
    }
    printf("%s\n", text);
    cJSON_free(text);
    return CLI_OK;
}

static void compare_print_table(const struct scenario *scn, const char *cache,
                                const struct compare_side side[2])
{
    char pct[48], change[52];
    size_t r;

    printf("scenario %s, cache %s\nbaseline: %s\npatched:  %s\n\n", scn->name, cache, side[0].label,
           side[1].label);
    printf("%-26s %14s %14s %9s\n", "metric", "baseline", "patched", "change");
    for (r = 0; r < COMPARE_ROWS; r++) {
        bool has = compare_counts(side, 0, r) && compare_counts(side, 1, r) &&
                   compare_change(side[0].v[r], side[1].v[r], pct, sizeof(pct));

        if (r == SIM_NR_STATS)
            printf("\n");
        char val[2][24];

        snprintf(change, sizeof(change), "%s%s", has ? pct : "-", has ? "%" : "");
        for (int k = 0; k < 2; k++) /* n/a: that model's kernels have no such counter */
            if (compare_counts(side, k, r))
                snprintf(val[k], sizeof(val[k]), "%" PRIu64, side[k].v[r]);
            else
                snprintf(val[k], sizeof(val[k]), "n/a");
        printf("%-26s %14s %14s %9s\n", compare_row_name(r), val[0], val[1], change);
    }
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

int cli_compare(int argc, char **argv)
{
    struct compare_args args = {0};
    struct compare_side side[2];
    char cache[2][SIM_NAME_MAX] = {"", ""};
    struct scenario *scn;
    int ret;

    if (argc > 1 && cli_is_help(argv[1])) {
        cli_compare_usage(stdout);
        return CLI_OK;
    }
    if ((ret = compare_parse_args(argc, argv, &args)))
        return ret;
    if (!(scn = cli_load(args.file)))
        return CLI_USAGE;
    memset(side, 0, sizeof(side));
    side[0].keep_snap = side[1].keep_snap = args.md;
    if (!(ret = compare_configure(&args, &scn->config, side)) &&
        !(ret = compare_run(&args, scn, &side[0], cache[0])) &&
        !(ret = compare_run(&args, scn, &side[1], cache[1]))) {
        if (args.json)
            ret = compare_print_json(scn, cache[0], side);
        else if (args.md)
            ret = compare_print_md(&args, scn, cache[0], side);
        else
            compare_print_table(scn, cache[0], side);
    }
    sim_snapshot_release(side[0].snap);
    sim_snapshot_release(side[1].snap);
    scenario_release(scn);
    return ret;
}
