/*
 * export.c: `slublab export FILE`: the state of a scenario's machine as
 * /proc/slabinfo and a /sys/kernel/slab tree (see export.h).
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

#include "kfiles/kfiles.h"
#include "scenario/replay.h"
#include "base/strbuf.h"

struct export_args {
    struct cli_state_args st;
    const char *slabinfo; /* output file, "-" for stdout */
    const char *sysfs;    /* output directory */
};

void cli_export_usage(FILE *f)
{
    fputs("usage: slublab export FILE [--at N] [--slabinfo OUTFILE] [--sysfs OUTDIR]\n"
          "                      [--variant NAME=VALUE]... [--model MODEL] [--seed N]\n"
          "\n"
          "Replay the scenario FILE and write its machine's state the way a kernel shows\n"
          "it, for slabtop and tools/mm/slabinfo to read (docs/export.md).\n"
          "\n"
          "  --at N               the state after the first N engine events (the step\n"
          "                       numbering of the server's sessions); default: the end\n"
          "  --slabinfo OUTFILE   write /proc/slabinfo (version 2.1); \"-\" for stdout\n"
          "  --sysfs OUTDIR       write a /sys/kernel/slab tree: a directory per cache,\n"
          "                       aliases as symbolic links, counter files\n"
          "  --variant NAME=VALUE override a kernel variant (before or after); repeatable\n"
          "  --model MODEL        override the model\n"
          "  --seed N             override the seed\n"
          "\n"
          "Without --slabinfo or --sysfs, /proc/slabinfo goes to stdout.  Existing files\n"
          "are rewritten in place (same inode), so bind mounts of them see the new state.\n"
          "Exit status: 0 when written, 2 for usage errors, invalid scenarios, a position\n"
          "beyond the end and files that cannot be written.\n",
          f);
}

static int export_parse_args(int argc, char **argv, struct export_args *a)
{
    const char *value;
    int i, m;

    for (i = 1; i < argc; i++) {
        if ((m = cli_state_arg("export", argc, argv, &i, &a->st)) == 0 &&
            (m = cli_option(argc, argv, &i, "--slabinfo", &value)) > 0)
            a->slabinfo = value;
        else if (m == 0 && (m = cli_option(argc, argv, &i, "--sysfs", &value)) > 0)
            a->sysfs = value;
        else if (m == 0)
            return cli_usage_error("export", "unknown option \"%s\"", argv[i]);
        if (m < 0)
            return CLI_USAGE;
    }
    if (!a->st.file)
        return cli_usage_error("export", "which scenario file?");
    if (a->sysfs && !a->sysfs[0])
        return cli_usage_error("export", "--sysfs wants a directory");
    if (a->slabinfo && !a->slabinfo[0])
        return cli_usage_error("export", "--slabinfo wants a file name or \"-\"");
    return CLI_OK;
}

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
        if (!slabinfo_text(&text, snap)) {
            ret = cli_usage_error("export", "out of memory");
        } else if (!strcmp(slabinfo, "-")) {
            fputs(strbuf_str(&text), stdout);
        } else if ((e = export_write_file(slabinfo, strbuf_str(&text), text.len))) {
            fprintf(stderr, "slublab export: %s: %s\n", slabinfo, strerror(-e));
            ret = CLI_USAGE;
        }
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

int cli_state_arg(const char *cmd, int argc, char **argv, int *i, struct cli_state_args *a)
{
    const char *arg = argv[*i], *value;
    int m;

    if (!a->variants && !(a->variants = calloc((size_t)argc, sizeof(*a->variants)))) {
        cli_usage_error(cmd, "out of memory");
        return -1;
    }
    if ((m = cli_option(argc, argv, i, "--variant", &value)) > 0)
        a->variants[a->nr_variants++] = value;
    else if (m == 0 && (m = cli_option(argc, argv, i, "--model", &value)) > 0)
        a->model = value;
    else if (m == 0 && (m = cli_option(argc, argv, i, "--seed", &value)) > 0)
        a->seed = value;
    else if (m == 0 && (m = cli_option(argc, argv, i, "--at", &value)) > 0)
        a->at = value;
    else if (m < 0)
        return -1;
    else if (arg[0] == '-' && arg[1] != '\0')
        return 0; /* an option of the command's own */
    else if (a->file) {
        cli_usage_error(cmd, "one scenario file at a time (\"%s\", then \"%s\")", a->file, arg);
        return -1;
    } else {
        a->file = arg;
    }
    return 1;
}

int cli_state_open(const char *cmd, const struct cli_state_args *a, struct scenario **scn,
                   struct sim_config *cfg, struct replay *rp, struct sim_snapshot **snap,
                   uint64_t *at)
{
    int err;

    *at = 0;
    *snap = NULL;
    if (a->at && !cli_parse_u64(a->at, at))
        return cli_usage_error(cmd, "--at wants a non-negative integer, not \"%s\"", a->at);
    if (!(*scn = cli_load(a->file)))
        return CLI_USAGE;
    *cfg = (*scn)->config;
    if (cli_configure(cmd, a->model, a->seed, a->variants, a->nr_variants, cfg))
        return CLI_USAGE;
    if (replay_init(rp, *scn, cfg)) {
        fprintf(stderr, "%s\n", strbuf_str(&rp->error));
        return CLI_USAGE;
    }
    if ((err = cli_replay_at(rp, a->at != NULL, *at, snap))) {
        if (rp->error.len)
            fprintf(stderr, "%s\n", strbuf_str(&rp->error));
        else
            fprintf(stderr, "slublab %s: %s\n", cmd, strerror(-err));
        return CLI_USAGE;
    }
    if (!a->at)
        *at = sim_event_count(rp->sim);
    return CLI_OK;
}

int cli_export(int argc, char **argv)
{
    struct export_args args = {0};
    struct replay rp = {0};
    struct sim_snapshot *snap = NULL;
    struct scenario *scn = NULL;
    struct sim_config cfg;
    uint64_t at;
    int ret;

    if (argc > 1 && cli_is_help(argv[1])) {
        cli_export_usage(stdout);
        return CLI_OK;
    }
    if (!(ret = export_parse_args(argc, argv, &args)) &&
        !(ret = cli_state_open("export", &args.st, &scn, &cfg, &rp, &snap, &at)))
        ret = export_output(&args, &rp, snap);
    sim_snapshot_release(snap);
    replay_release(&rp);
    scenario_release(scn);
    free(args.st.variants);
    return ret;
}
