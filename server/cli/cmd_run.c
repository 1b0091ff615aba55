/*
 * run.c: `slublab run FILE`: replay a scenario and show the result.
 *
 * Three outputs, one per mode: the sysfs-style text report (report.c), one
 * JSON summary object (--json), or JSON Lines (--events): one line per
 * engine event as the engine emits it, then a {"summary": ...} line holding
 * the --json object.  --snapshot prints the final json_snapshot() instead,
 * the state the web UI draws.  Command-line settings (--model, --seed,
 * --variant) override the scenario's.  Every output is a pure function of
 * the scenario and those settings: two runs print the same bytes.
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "present/json_state.h"
#include "scenario/replay.h"
#include "present/report.h"
#include "base/strbuf.h"

enum run_mode { RUN_TEXT, RUN_JSON, RUN_EVENTS, RUN_SNAPSHOT };

struct run_args {
    const char *file;
    enum run_mode mode;
    bool validate;
    const char *model;     /* NULL: the scenario's */
    const char *seed;      /* NULL: the scenario's */
    const char **variants; /* NAME=VALUE, in command-line order */
    int nr_variants;
};

/* Where the event callback writes, and whether it ever failed. */
struct run_events {
    FILE *out;
    bool failed;
};

void cli_run_usage(FILE *f)
{
    fputs("usage: slublab run FILE [--json | --events | --snapshot] [--variant NAME=VALUE]...\n"
          "                   [--model MODEL] [--seed N] [--validate]\n"
          "\n"
          "Replay the scenario FILE on a simulated machine and print the state of every\n"
          "cache the way /sys/kernel/slab shows it, then the scenario's expects.\n"
          "\n"
          "  --json               one JSON object: scenario, variants, model, seed, caches,\n"
          "                       expects, warnings, ok\n"
          "  --events             JSON Lines: one line per engine event (docs/events.md),\n"
          "                       then {\"summary\": <the --json object>}\n"
          "  --snapshot           the final state as one JSON object (docs/events.md)\n"
          "  --variant NAME=VALUE override a kernel variant: VALUE is before or after\n"
          "                       (DEFERRED_FREELIST, BARN_REFILL, REFILL_RETURN); repeatable\n"
          "  --model MODEL        override the model (sheaves)\n"
          "  --seed N             override the seed\n"
          "  --validate           check every invariant after each operation\n"
          "\n"
          "Exit status: 0 when every expect passed, 1 when one failed (or --validate\n"
          "found a violation), 2 for usage errors, invalid scenarios and operations\n"
          "the engine rejects.\n",
          f);
}

static int run_parse_args(int argc, char **argv, struct run_args *a)
{
    const char *value;
    int i, m;

    a->variants = calloc((size_t)argc, sizeof(*a->variants));
    if (!a->variants)
        return cli_usage_error("run", "out of memory");
    for (i = 1; i < argc; i++) {
        const char *arg = argv[i];
        enum run_mode mode = RUN_TEXT;

        m = 0;
        if (strcmp(arg, "--json") == 0)
            mode = RUN_JSON;
        else if (strcmp(arg, "--events") == 0)
            mode = RUN_EVENTS;
        else if (strcmp(arg, "--snapshot") == 0)
            mode = RUN_SNAPSHOT;
        else if (strcmp(arg, "--validate") == 0)
            a->validate = true;
        else if ((m = cli_option(argc, argv, &i, "--variant", &value)) != 0)
            a->variants[a->nr_variants++] = value;
        else if ((m = cli_option(argc, argv, &i, "--model", &value)) != 0)
            a->model = value;
        else if ((m = cli_option(argc, argv, &i, "--seed", &value)) != 0)
            a->seed = value;
        else if (arg[0] == '-' && arg[1] != '\0')
            return cli_usage_error("run", "unknown option \"%s\"", arg);
        else if (a->file)
            return cli_usage_error("run", "one scenario file at a time (\"%s\", then \"%s\")",
                                   a->file, arg);
        else
            a->file = arg;
        if (m < 0)
            return CLI_USAGE;
        if (mode != RUN_TEXT) {
            if (a->mode != RUN_TEXT && a->mode != mode)
                return cli_usage_error("run", "--json, --events and --snapshot exclude each other");
            a->mode = mode;
        }
    }
    if (!a->file)
        return cli_usage_error("run", "which scenario file?");
    return CLI_OK;
}

/* Print @json on one line of @out; false when the host ran out of memory. */
static bool run_print_json(FILE *out, cJSON *json)
{
    char *text = json ? cJSON_PrintUnformatted(json) : NULL;

    if (!text)
        return false;
    fputs(text, out);
    fputc('\n', out);
    cJSON_free(text);
    return true;
}

static void run_event(const struct sim_event *ev, void *arg)
{
    struct run_events *re = arg;
    cJSON *json = json_event(ev);

    if (!run_print_json(re->out, json))
        re->failed = true;
    cJSON_Delete(json);
}

/* Print the result of a finished replay in the chosen mode. */
static int run_output(const struct run_args *a, const struct replay *rp)
{
    struct sim_snapshot *snap = NULL;
    struct strbuf text = STRBUF_INIT;
    cJSON *json = NULL, *wrap = NULL;
    bool ok = false;

    if (sim_snapshot(rp->sim, &snap))
        return cli_usage_error("run", "out of memory taking the final snapshot");
    switch (a->mode) {
    case RUN_TEXT:
        report_warnings(&text, rp);
        if (text.len)
            strbuf_puts(&text, "\n");
        report_text(&text, rp, snap);
        ok = !strbuf_failed(&text);
        if (ok)
            fputs(strbuf_str(&text), stdout);
        break;
    case RUN_JSON:
        ok = run_print_json(stdout, json = report_json(rp, snap));
        break;
    case RUN_EVENTS:
        json = report_json(rp, snap);
        wrap = json ? cJSON_CreateObject() : NULL;
        ok = wrap && cJSON_AddItemToObject(wrap, "summary", json);
        if (!ok)
            cJSON_Delete(json);
        ok = ok && run_print_json(stdout, wrap);
        json = NULL;
        break;
    case RUN_SNAPSHOT:
        ok = run_print_json(stdout, json = json_snapshot(snap));
        break;
    }
    cJSON_Delete(json);
    cJSON_Delete(wrap);
    strbuf_release(&text);
    sim_snapshot_release(snap);
    if (!ok)
        return cli_usage_error("run", "out of memory printing the result");
    return replay_expects_ok(rp) ? CLI_OK : CLI_FAIL;
}

int cli_run(int argc, char **argv)
{
    struct run_args args = {0};
    struct run_events events = {stdout, false};
    struct replay rp = {0};
    struct scenario *scn = NULL;
    struct sim_config cfg;
    int ret, err;

    if (argc > 1 && cli_is_help(argv[1])) {
        cli_run_usage(stdout);
        return CLI_OK;
    }
    if ((ret = run_parse_args(argc, argv, &args)))
        goto out_free_args;
    if (!(scn = cli_load(args.file))) {
        ret = CLI_USAGE;
        goto out_free_args;
    }
    cfg = scn->config;
    if ((ret = cli_configure("run", args.model, args.seed, args.variants, args.nr_variants, &cfg)))
        goto out_release;
    if (replay_init(&rp, scn, &cfg)) {
        fprintf(stderr, "%s\n", strbuf_str(&rp.error));
        ret = CLI_USAGE;
        goto out_release;
    }
    rp.validate = args.validate;
    if (args.mode == RUN_EVENTS)
        sim_set_event_cb(rp.sim, run_event, &events);
    err = replay_run(&rp);
    fflush(stdout);
    if (events.failed) {
        ret = cli_usage_error("run", "out of memory printing events");
    } else if (err) {
        fprintf(stderr, "%s\n", strbuf_str(&rp.error));
        ret = err == -EFAULT ? CLI_FAIL : CLI_USAGE;
    } else {
        ret = run_output(&args, &rp);
    }
out_release:
    replay_release(&rp);
    scenario_release(scn);
out_free_args:
    free(args.variants);
    return ret;
}
