/*
 * cmd_run.c: `slublab run FILE`: replay a scenario and show the result.
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

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/strbuf.h"
#include "present/json_state.h"
#include "present/report.h"
#include "scenario/replay.h"

struct run_args {
    const char *file;
    bool json, events, snapshot; /* the output; at most one */
    bool validate;
    struct cli_model_args m;
};

/* Where the event callback writes, and whether it ever failed. */
struct run_events {
    FILE *out;
    bool failed;
};

static const struct cli_opt run_opts[] = {
        {CLI_TO(struct run_args, json), .name = "json", .one_of = 1,
         .help = "one JSON object: scenario, variants, model, seed, caches, expects, warnings, ok"},
        {CLI_TO(struct run_args, events), .name = "events", .one_of = 1,
         .help = "JSON Lines: one line per engine event (docs/events.md), then {\"summary\": <the "
                 "--json object>}"},
        {CLI_TO(struct run_args, snapshot), .name = "snapshot", .one_of = 1,
         .help = "the final state as one JSON object (docs/events.md)"},
        {CLI_TO(struct run_args, validate), .name = "validate",
         .help = "check every invariant after each operation"},
        {0},
};

static void run_event(const struct sim_event *ev, void *arg)
{
    struct run_events *re = arg;
    cJSON *json = json_event(ev);

    if (!cli_print_json(re->out, json, false))
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
    if (!a->json && !a->events && !a->snapshot) {
        report_warnings(&text, rp);
        if (text.len)
            strbuf_puts(&text, "\n");
        report_text(&text, rp, snap);
        ok = !strbuf_failed(&text);
        if (ok)
            fputs(strbuf_str(&text), stdout);
    } else if (a->json) {
        ok = cli_print_json(stdout, json = report_json(rp, snap), false);
    } else if (a->events) {
        json = report_json(rp, snap);
        wrap = json ? cJSON_CreateObject() : NULL;
        ok = wrap && cJSON_AddItemToObject(wrap, "summary", json);
        if (!ok)
            cJSON_Delete(json);
        ok = ok && cli_print_json(stdout, wrap, false);
        json = NULL;
    } else {
        ok = cli_print_json(stdout, json = json_snapshot(snap), false);
    }
    cJSON_Delete(json);
    cJSON_Delete(wrap);
    strbuf_release(&text);
    sim_snapshot_release(snap);
    if (!ok)
        return cli_usage_error("run", "out of memory printing the result");
    return replay_expects_ok(rp) ? CLI_OK : CLI_FAIL;
}

static int run_main(int argc, char **argv)
{
    struct run_args args = {0};
    struct run_events events = {stdout, false};
    struct cli_replay r = {0};
    int ret, err;

    if (!cli_parse(&cmd_run, argc, argv, &args, &ret))
        return ret;
    if ((int)args.json + (int)args.events + (int)args.snapshot > 1)
        return cli_usage_error("run", "--json, --events and --snapshot exclude each other");
    if ((ret = cli_replay_open("run", args.file, &args.m, &r)))
        goto out_release;
    r.rp.validate = args.validate;
    if (args.events)
        sim_set_event_cb(r.rp.sim, run_event, &events);
    err = replay_run(&r.rp);
    fflush(stdout);
    if (events.failed)
        ret = cli_usage_error("run", "out of memory printing events");
    else if (err)
        ret = cli_replay_error("run", &r.rp, err);
    else
        ret = run_output(&args, &r.rp);
out_release:
    cli_replay_release(&r);
    return ret;
}

const struct cli_command cmd_run = {
        .name = "run",
        .summary = "replay a scenario and show the caches, sysfs style",
        .description = "Replay the scenario FILE on a simulated machine and print the state of "
                       "every cache the way /sys/kernel/slab shows it, then the scenario's "
                       "expects.",
        .pos = CLI_POS_SCENARIO(struct run_args, file),
        .groups = {{run_opts, 0}, {cli_model_opts, offsetof(struct run_args, m)}},
        .epilogue = "Exit status: 0 when every expect passed, 1 when one failed (or --validate "
                    "found a violation), " CLI_EXIT_REJECTED,
        .run = run_main,
};
