/*
 * cmd_export.c: `slublab export FILE`: the state of a scenario's machine as
 * /proc/slabinfo and a /sys/kernel/slab tree (see kfiles/kfiles.h).
 *
 * The state is the one after the whole scenario, or after its first N
 * engine events with --at N: the numbering of the server's session
 * positions (position N is the state after events 0..N-1), so an export
 * from the CLI and one from the UI at the same step agree.  The snapshot
 * is taken from the event callback of event N-1, mid-operation when N
 * falls inside one, as the sessions do; the replay stops after that
 * operation.  Files are rewritten in place (export_write_file()), so a
 * bind mount over /proc/slabinfo or /sys/kernel/slab sees each new export.
 */
#include "cli/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "kfiles/kfiles.h"
#include "scenario/replay.h"

struct export_args {
    struct cli_state_args st;
    const char *slabinfo; /* output file, "-" for stdout */
    const char *sysfs;    /* output directory */
};

static const struct cli_opt export_opts[] = {
        {CLI_TO(struct export_args, slabinfo), .name = "slabinfo", .arg = "OUTFILE",
         .help = "write /proc/slabinfo (version 2.1); \"-\" for stdout"},
        {CLI_TO(struct export_args, sysfs), .name = "sysfs", .arg = "OUTDIR",
         .help = "write a /sys/kernel/slab tree: a directory per cache, aliases as symbolic "
                 "links, counter files"},
        {0},
};

const struct cli_opt cli_state_opts[] = {
        {CLI_TO(struct cli_state_args, at), .name = "at", .arg = "N",
         .help = "the state after the first N engine events (the step numbering of the server's "
                 "sessions); default: the end"},
        {0},
};

/* What the event callback captures: the state after @at events. */
struct export_capture {
    struct replay *rp;
    uint64_t at;
    struct sim_snapshot *snap;
    int err;
};

static void export_event(const struct sim_event *ev, void *arg)
{
    struct export_capture *cap = arg;

    if (cap->snap || cap->err || ev->seq + 1 != cap->at)
        return;
    cap->err = sim_snapshot(cap->rp->sim, &cap->snap);
    /* finish this operation, apply no other */
    cap->rp->op_limit = sim_op_count(cap->rp->sim) + 1;
}

static int export_fail(struct replay *rp, int err, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static int export_fail(struct replay *rp, int err, const char *fmt, ...)
{
    va_list ap;
    char msg[256];

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    strbuf_reset(&rp->error);
    strbuf_printf(&rp->error, "slublab: %s", msg);
    return err;
}

int cli_replay_at(struct replay *rp, bool has_at, uint64_t at, struct sim_snapshot **out)
{
    struct export_capture cap = {rp, at, NULL, 0};
    uint64_t events;
    int err;

    *out = NULL;
    if (has_at && at <= sim_event_count(rp->sim)) {
        if (at < sim_event_count(rp->sim))
            return export_fail(rp, -EINVAL, "--at %" PRIu64 ": the machine starts at %" PRIu64, at,
                               sim_event_count(rp->sim));
        rp->op_limit = 0;
        return sim_snapshot(rp->sim, out);
    }
    if (has_at)
        sim_set_event_cb(rp->sim, export_event, &cap);
    err = replay_run(rp);
    sim_set_event_cb(rp->sim, NULL, NULL);
    events = sim_event_count(rp->sim);
    if (err && !(err == -ECANCELED && cap.snap)) {
        sim_snapshot_release(cap.snap);
        return err;
    }
    if (cap.err) {
        sim_snapshot_release(cap.snap);
        return export_fail(rp, cap.err, "out of memory taking a snapshot");
    }
    if (has_at && !cap.snap)
        return export_fail(rp, -ERANGE,
                           "--at %" PRIu64 " is beyond the end: the scenario has %" PRIu64
                           " events",
                           at, events);
    if (cap.snap) {
        *out = cap.snap;
        return 0;
    }
    return sim_snapshot(rp->sim, out);
}

static int export_output(const struct export_args *a, const struct replay *rp,
                         const struct sim_snapshot *snap)
{
    struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
    struct sysfs_tree tree;
    const char *slabinfo = a->slabinfo ? a->slabinfo : (a->sysfs ? NULL : "-");
    int ret = CLI_OK, e;

    if (slabinfo) {
        if (!slabinfo_text(&text, snap))
            ret = cli_usage_error("export", "out of memory");
        else
            ret = cli_write_text("export", strcmp(slabinfo, "-") ? slabinfo : NULL, &text);
    }
    if (ret == CLI_OK && a->sysfs) {
        if ((e = sysfs_tree_build(&tree, snap, &rp->aliases))) {
            fprintf(stderr, "slublab export: %s\n",
                    e == -EINVAL ? "a cache is named \".\" or \"..\", which sysfs cannot show"
                                 : "out of memory");
            ret = CLI_USAGE;
        } else {
            if (export_write_tree(a->sysfs, &tree, &err)) {
                fprintf(stderr, "slublab export: %s\n", strbuf_str(&err));
                ret = CLI_USAGE;
            }
            sysfs_tree_release(&tree);
        }
    }
    strbuf_release(&text);
    strbuf_release(&err);
    return ret;
}

int cli_state_open(const char *cmd, const struct cli_state_args *a, struct cli_replay *r,
                   struct sim_snapshot **snap, uint64_t *at)
{
    int err;

    *at = a->at.value;
    *snap = NULL;
    if (cli_replay_open(cmd, a->file, &a->m, r))
        return CLI_USAGE;
    if ((err = cli_replay_at(&r->rp, a->at.given, *at, snap)))
        return cli_replay_error(cmd, &r->rp, err);
    if (!a->at.given)
        *at = sim_event_count(r->rp.sim);
    return CLI_OK;
}

static int export_main(int argc, char **argv)
{
    struct export_args args = {0};
    struct cli_replay r = {0};
    struct sim_snapshot *snap = NULL;
    uint64_t at;
    int ret;

    if (!cli_parse(&cmd_export, argc, argv, &args, &ret))
        return ret;
    if (args.sysfs && !args.sysfs[0])
        return cli_usage_error("export", "--sysfs wants a directory");
    if (args.slabinfo && !args.slabinfo[0])
        return cli_usage_error("export", "--slabinfo wants a file name or \"-\"");
    if (!(ret = cli_state_open("export", &args.st, &r, &snap, &at)))
        ret = export_output(&args, &r.rp, snap);
    sim_snapshot_release(snap);
    cli_replay_release(&r);
    return ret;
}

const struct cli_command cmd_export = {
        .name = "export",
        .pos = CLI_POS_SCENARIO(struct export_args, st.file),
        .groups = CLI_STATE_GROUPS(struct export_args, export_opts),
        .run = export_main,
};
