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

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/strbuf.h"
#include "present/json_state.h"
#include "present/report.h"
#include "scenario/outcomes.h"
#include "scenario/replay.h"

struct run_args {
    const char *file;
    bool json, events, snapshot; /* the output; at most one */
    bool validate;
    bool outcomes;
    struct cli_u64 max_runs;
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
        {CLI_TO(struct run_args, outcomes), .name = "outcomes",
         .help = "run under every combination of the kernel's own choices (flush_all's order, "
                 "kfree_rcu's worker CPU, the remote-node draw) and print each distinct result "
                 "once, headed \"--- outcome K of M: CHOICES\" (docs/engine.md#choice-points)"},
        {CLI_TO(struct run_args, max_runs), .name = "max-runs", .arg = "N", .min = 1,
         .max = 1000000,
         .help = "with --outcomes: past N runs (default 1000), a seeded sample of N runs"},
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

/* The distinct results of --outcomes, in the order first seen. */
struct run_outcome {
    struct strbuf text, choices;
};

struct run_outcomes {
    const struct run_args *a;
    struct run_outcome *o;
    size_t nr, cap;
    bool expects_failed;
};

static int outcomes_before(struct replay *rp, void *arg)
{
    rp->validate = ((struct run_outcomes *)arg)->a->validate;
    return 0;
}

/* After one run: its text, kept when no earlier run printed the same. */
static int outcomes_after(struct replay *rp, int run_err, const struct sim_choice *choices,
                          size_t nr, void *arg)
{
    struct run_outcomes *ro = arg;
    struct sim_snapshot *snap = NULL;
    struct strbuf text = STRBUF_INIT, why = STRBUF_INIT;

    if (run_err)
        return cli_replay_error("run", rp, run_err);
    if (sim_snapshot(rp->sim, &snap))
        return cli_usage_error("run", "out of memory taking the final snapshot");
    report_warnings(&text, rp);
    if (text.len)
        strbuf_puts(&text, "\n");
    report_text(&text, rp, snap);
    sim_snapshot_release(snap);
    outcomes_describe(&why, choices, nr);
    if (strbuf_failed(&text) || strbuf_failed(&why))
        goto err_nomem;
    if (!replay_expects_ok(rp))
        ro->expects_failed = true;
    for (size_t i = 0; i < ro->nr; i++)
        if (!strcmp(strbuf_str(&ro->o[i].text), strbuf_str(&text))) {
            strbuf_release(&text);
            strbuf_release(&why);
            return 0;
        }
    if (ro->nr == ro->cap) {
        size_t cap = ro->cap ? ro->cap * 2 : 8;
        struct run_outcome *o = realloc(ro->o, cap * sizeof(*o));

        if (!o)
            goto err_nomem;
        ro->o = o;
        ro->cap = cap;
    }
    ro->o[ro->nr].text = text;
    ro->o[ro->nr++].choices = why;
    return 0;
err_nomem:
    strbuf_release(&text);
    strbuf_release(&why);
    return cli_usage_error("run", "out of memory keeping the outcomes");
}

/* --outcomes: walk the choices, print each distinct result once. */
static int run_outcomes(const struct run_args *a, const struct cli_replay *r)
{
    struct run_outcomes ro = {a, NULL, 0, 0, false};
    struct outcome_walk w = {
            .max_runs = a->max_runs.given ? a->max_runs.value : 1000,
            .max_deviations = UINT32_MAX,
            .sample = true,
            .seed = r->cfg.seed,
            .before = outcomes_before,
            .after = outcomes_after,
            .arg = &ro,
    };
    struct strbuf err = STRBUF_INIT;
    int ret = outcomes_walk(r->scn, &r->cfg, &w, &err);

    if (ret < 0) {
        ret = cli_usage_error("run", "%s", err.len ? strbuf_str(&err) : strerror(-ret));
    } else if (!ret) {
        for (size_t i = 0; i < ro.nr; i++)
            printf("--- outcome %zu of %zu: %s\n%s", i + 1, ro.nr, strbuf_str(&ro.o[i].choices),
                   strbuf_str(&ro.o[i].text));
        if (w.complete)
            printf("--- %" PRIu64 " run%s: every combination of the choices reached\n", w.runs,
                   w.runs == 1 ? "" : "s");
        else
            printf("--- the choices reached make more than %" PRIu64
                   " combinations: these are a seeded sample of %" PRIu64
                   " runs (seed %" PRIu64 "), the first with the defaults\n",
                   w.runs, w.runs, w.seed);
        ret = ro.expects_failed ? CLI_FAIL : CLI_OK;
    }
    for (size_t i = 0; i < ro.nr; i++) {
        strbuf_release(&ro.o[i].text);
        strbuf_release(&ro.o[i].choices);
    }
    free(ro.o);
    strbuf_release(&err);
    return ret;
}

static int run_main(int argc, char **argv)
{
    struct run_args args = {0};
    struct run_events events = {stdout, false};
    struct cli_replay r = {0};
    int ret, err;

    if (!cli_parse(&cmd_run, argc, argv, &args, &ret))
        return ret;
    if ((int)args.json + (int)args.events + (int)args.snapshot + (int)args.outcomes > 1)
        return cli_usage_error("run",
                               "--json, --events, --snapshot and --outcomes exclude each other");
    if (args.max_runs.given && !args.outcomes)
        return cli_usage_error("run", "--max-runs goes with --outcomes");
    if ((ret = cli_replay_open("run", args.file, &args.m, &r)))
        goto out_release;
    if (args.outcomes) {
        ret = run_outcomes(&args, &r);
        goto out_release;
    }
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
        .pos = CLI_POS_SCENARIO(struct run_args, file),
        .groups = {{run_opts, 0}, {cli_model_opts, offsetof(struct run_args, m)}},
        .run = run_main,
};
