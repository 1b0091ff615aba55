/*
 * cmd_replay.c: `slublab replay TRACE`, a real kernel's kmem trace on the
 * engine.
 *
 * Reads the trace (plain or gzip), replays it (ktrace_replay.c) and prints
 * the report.  -o writes the same operations as a scenario the server and
 * `slublab run` open, as long as they fit one (SCENARIO_MAX_STEPS operations,
 * SCENARIO_MAX_BYTES of text; else it says so and writes nothing); --db
 * stores them as a session in a slublab database, which `slublab serve --db
 * FILE` lists: the binary op log of docs/oplog.md, written to the database
 * as the replay runs, so a trace of any length fits.  A progress bar goes to
 * stderr when it is a terminal.
 *
 * Exit status: 0 when the trace was read to its end, 1 when the input
 * ended in an error (a gzip stream cut short: what was read is replayed
 * and reported) or --validate found a violation, 2 for usage errors and
 * unreadable files.
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/strbuf.h"
#include "kfiles/slabinfo_read.h"
#include "ktrace/ktrace_replay.h"
#include "present/json_caches.h"
#include "present/ktrace_report.h"
#include "scenario/kernel.h"
#include "scenario/scenario_write.h"
#include "session/ktrace_session.h"
#include "session/overview.h"
#include "session/store.h"

struct replay_args {
    const char *file, *sysfs, *slabinfo, *kernel, *model, *out, *db;
    struct cli_u64 cpus, seed, mem_mb;
    bool validate, progress;
};

static const struct cli_opt replay_opts[] = {
        {CLI_TO(struct replay_args, sysfs), .name = "sysfs", .arg = "DIR", .one_of = 1,
         .help = "create caches as this /sys/kernel/slab tree (or .tar/.tar.gz of one) shows "
                 "them (default: from each cache's first event: name=, bytes_req, bytes_alloc)"},
        {CLI_TO(struct replay_args, slabinfo), .name = "slabinfo", .arg = "FILE", .one_of = 1,
         .help = "create caches as this machine's /proc/slabinfo shows them: slab size, objects "
                 "and pages per slab (the alignment inferred; no flags, constructors or sheaf "
                 "capacities: --sysfs has those)"},
        {CLI_TO(struct replay_args, cpus), .name = "cpus", .arg = "N", .min = 1,
         .max = SIM_MAX_CPUS,
         .help = "CPUs of the machine (default: the #P: header, else the highest CPU in the trace "
                 "+ 1); events on higher CPUs are folded modulo N"},
        {CLI_TO(struct replay_args, kernel), .name = "kernel", .arg = "X.Y[.Z]",
         .help = "replay on this release (default: the trace's \"# kernel:\" line, the newest "
                 "release modelled at or below it; without one, the newest release)"},
        {CLI_TO(struct replay_args, model), .name = "model", .arg = "M",
         .help = "an experiment instead of a release: sheaves, legacy, legacy:ERA or hybrid"},
        {CLI_TO(struct replay_args, seed), .name = "seed", .arg = "N", .min = 1,
         .help = "the engine's seed (default 1)"},
        {CLI_TO(struct replay_args, mem_mb), .name = "mem-mb", .arg = "N", .min = 4,
         .max = SCENARIO_MAX_MEM_MB,
         .help = "memory per node in MiB, a multiple of 4 (default 1024; backed only when used)"},
        {CLI_TO(struct replay_args, validate), .name = "validate",
         .help = "check every invariant after each operation"},
        {CLI_TO(struct replay_args, out), .short_name = 'o', .arg = "FILE",
         .help = "write the operations as a scenario (`slublab run FILE`, the UI), if they fit "
                 "one (10,000,000 operations and 8 MiB of JSON; else --db)"},
        {CLI_TO(struct replay_args, db), .name = "db", .arg = "FILE",
         .help = "save a session in this slublab database (`slublab serve --db FILE`): the "
                 "operations as a binary op log, whatever the trace's length"},
        {CLI_TO(struct replay_args, progress), .name = "progress",
         .help = "a progress bar on stderr even when it is not a terminal"},
        {0},
};

struct progress {
    int last; /* per mille drawn, or -1 */
    uint64_t bytes;
};

static void draw_progress(uint64_t done, uint64_t total, void *arg)
{
    struct progress *p = arg;
    int pm;
    char bar[41];

    if (!total)
        return;
    pm = (int)(done >= total ? 1000 : done * 1000 / total);
    if (pm == p->last)
        return;
    p->last = pm;
    for (int i = 0; i < 40; i++)
        bar[i] = i < pm * 40 / 1000 ? '#' : '.';
    bar[40] = 0;
    fprintf(stderr, "\rreplay [%s] %3d.%d%%", bar, pm / 10, pm % 10);
    fflush(stderr);
}

static int write_scenario(struct ktrace_replay *kr, const char *path, const char *name)
{
    cJSON *scn = ktrace_replay_scenario(kr, name);
    struct strbuf err = STRBUF_INIT;
    char *text;
    int ret;

    if (!scn)
        return cli_usage_error("replay", "out of memory building the scenario");
    text = cJSON_PrintUnformatted(scn);
    if (text && strlen(text) > SCENARIO_MAX_BYTES) {
        fprintf(stderr,
                "slublab replay: -o %s: not written: the scenario would be %zu MiB, more than "
                "the %u MiB a scenario may have (`slublab run` would refuse it); --db FILE keeps "
                "the whole trace as a session (a binary op log)\n",
                path, strlen(text) >> 20, SCENARIO_MAX_BYTES >> 20);
        cJSON_free(text);
        cJSON_Delete(scn);
        return CLI_FAIL;
    }
    cJSON_free(text);
    ret = scenario_write_file(scn, path, &err);
    cJSON_Delete(scn);
    if (ret)
        ret = cli_usage_error("replay", "%s", strbuf_str(&err));
    strbuf_release(&err);
    return ret ? CLI_USAGE : CLI_OK;
}

/* The file's name without directories and .gz/.txt, as a scenario name. */
static void trace_name(const char *path, char *out, size_t len)
{
    const char *b = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    char *dot;

    snprintf(out, len, "%s", b);
    if ((dot = strstr(out, ".gz")) && dot[3] == 0)
        *dot = 0;
    if ((dot = strstr(out, ".txt")) && dot[4] == 0)
        *dot = 0;
    if (!out[0])
        snprintf(out, len, "kmem-trace");
}

/* The overview of the session being written, from the replay's events. */
struct overview_feed {
    struct overview ov;
    int err;
    bool on;               /* --db: the overview is kept with the session */
    struct cache_rank *cr; /* the caches ranked for the report */
};

static void overview_feed_event(const struct sim_event *ev, void *arg)
{
    struct overview_feed *f = arg;

    cache_rank_event(ev, f->cr);
    if (f->on && !f->err)
        f->err = overview_event(&f->ov, ev);
}

#define REPLAY_TOP_CACHES 15 /* rows of the report's ranking */

/* The report's ranking of the caches of @kr, by allocations. */
static void print_ranking(struct ktrace_replay *kr, struct cache_rank *cr)
{
    struct sim_snapshot *snap = NULL;
    struct strbuf out = STRBUF_INIT;

    if (!kr->sim || sim_snapshot(kr->sim, &snap) || cache_rank_finish(cr, snap)) {
        fprintf(stderr, "slublab replay: out of memory ranking the caches\n");
        sim_snapshot_release(snap);
        return;
    }
    cache_rank_sort(cr, CR_ALLOCS);
    strbuf_printf(&out,
                  "\ncaches by allocations (the %d busiest; GET /api/sessions/ID/caches and the "
                  "Caches view rank them all, by any column):\n",
                  REPLAY_TOP_CACHES);
    if (text_cache_rank(&out, cr, REPLAY_TOP_CACHES))
        fputs(strbuf_str(&out), stdout);
    strbuf_release(&out);
    sim_snapshot_release(snap);
}

/* Keep @f's overview with session @id, so a server answers it before building the session. */
static void overview_store(struct store *st, const char *id, const struct overview_feed *f)
{
    unsigned char *data = NULL;
    size_t len = 0;

    if (f->err || overview_save(&f->ov, &data, &len) ||
        store_session_set_overview(st, id, data, len))
        fprintf(stderr, "slublab replay: the session's overview is not stored: a server "
                        "makes it when it first opens the session\n");
    free(data);
}

static int replay_main(int argc, char **argv)
{
    struct replay_args args = {0};
    const char *file, *sysfs, *out, *db;
    bool progress;
    struct ktrace_opts o;
    struct sysfs_tree tree;
    struct ktrace_reader *r = NULL;
    struct ktrace_replay kr;
    struct strbuf err = STRBUF_INIT, rep = STRBUF_INIT;
    struct progress pg = {-1, 0};
    struct ktrace_log kl;
    struct overview_feed feed;
    struct cache_rank ranking = CACHE_RANK_INIT;
    struct session_limits lim;
    struct store *st = NULL;
    bool logging = false;
    char name[128];
    int ret, status = CLI_OK;

    memset(&o, 0, sizeof(o));
    memset(&tree, 0, sizeof(tree));
    memset(&kl, 0, sizeof(kl));
    memset(&feed, 0, sizeof(feed));
    overview_init(&feed.ov);
    feed.cr = &ranking;
    o.on_event = overview_feed_event;
    o.on_event_arg = &feed;
    session_limits_default(&lim);
    if (!cli_parse(&cmd_replay, argc, argv, &args, &ret))
        return ret;
    file = args.file;
    sysfs = args.sysfs;
    out = args.out;
    db = args.db;
    progress = args.progress || isatty(STDERR_FILENO);
    o.validate = args.validate;
    o.cpus = (unsigned)args.cpus.value; /* 0 when not given: from the trace */
    if (args.model || args.kernel) {
        struct sim_config tmp;
        char msg[256];

        sim_config_default(&tmp);
        if (kernel_choose(args.kernel, args.model, 0, &tmp, msg, sizeof(msg)))
            return cli_usage_error("replay", "%s", msg);
        o.model = args.model;
        o.kernel = args.kernel;
    }
    o.seed = args.seed.value; /* 0 when not given: the default */
    if (args.mem_mb.value % 4)
        return cli_usage_error("replay", "--mem-mb must be a multiple of 4 in 4..%u",
                               SCENARIO_MAX_MEM_MB);
    o.mem_mb = (unsigned)args.mem_mb.value;
    if (sysfs && args.slabinfo) {
        status = cli_usage_error("replay", "--sysfs and --slabinfo exclude each other");
        goto out;
    }
    if (sysfs) {
        if (sysfs_slab_read(sysfs, &tree, &err)) {
            status = cli_usage_error("replay", "--sysfs: %s", strbuf_str(&err));
            goto out;
        }
        o.sysfs = &tree;
    } else if (args.slabinfo) {
        unsigned unmatched = 0;

        if (slabinfo_read(args.slabinfo, o.cpus ? o.cpus : SLABINFO_DEFAULT_CPUS, &tree, &unmatched,
                          &err)) {
            status = cli_usage_error("replay", "--slabinfo: %s", strbuf_str(&err));
            goto out;
        }
        if (unmatched)
            fprintf(stderr,
                    "slublab replay: --slabinfo: %u caches have a geometry no alignment gives "
                    "here: created with the object size alone\n",
                    unmatched);
        o.sysfs = &tree;
    }
    o.record = out != NULL;
    o.max_ops = out ? SCENARIO_MAX_STEPS : 0; /* what a scenario may expand to */
    if (db) {
        if ((ret = store_open(db, &st, &err))) {
            status = cli_usage_error("replay", "--db %s: %s", db, strbuf_str(&err));
            goto out;
        }
        if (ktrace_log_begin(&kl, st)) {
            status = cli_usage_error("replay", "out of memory");
            goto out;
        }
        logging = true;
        o.on_op = ktrace_log_op;
        o.on_op_arg = &kl;
        feed.on = true;
        o.max_ops = out ? SCENARIO_MAX_STEPS : lim.max_ops;
    }
    if (progress) {
        o.progress = draw_progress;
        o.progress_arg = &pg;
    }
    ret = ktrace_open(file, &r, &err);
    if (ret) {
        status = cli_usage_error("replay", "%s", strbuf_str(&err));
        goto out;
    }
    ret = ktrace_replay_run(&kr, r, &o, &err);
    if (progress && pg.last >= 0)
        fputc('\n', stderr);
    if (ret && ret != -EIO) {
        status = ret == -ENOMEM ? cli_usage_error("replay", "out of memory")
                                : cli_usage_error("replay", "%s: %s%s", file, strbuf_str(&err),
                                                  ret == -E2BIG && out && db
                                                          ? " (-o: give --db alone to keep it "
                                                            "as a session)"
                                                          : "");
        ktrace_replay_release(&kr);
        goto out;
    }
    if (ret == -EIO) {
        fprintf(stderr, "slublab replay: %s: %s (the lines before it were replayed)\n", file,
                kr.read_error);
        status = CLI_FAIL;
    }
    if (!ktrace_replay_events(&kr)) { /* as the server refuses such an upload */
        status = cli_usage_error("replay", "no kmem events in %s " KTRACE_NO_EVENTS_WHY, file);
        ktrace_replay_release(&kr);
        goto out;
    }
    ktrace_report_text(&rep, &kr, file);
    fputs(strbuf_str(&rep), stdout);
    print_ranking(&kr, &ranking);
    if (kr.n.violations)
        status = CLI_FAIL;
    trace_name(file, name, sizeof(name));
    if (db && kl.log.nr_ops) {
        cJSON *scn = ktrace_replay_scenario_header(&kr, name);
        char id[64];

        session_limits_default(&lim);
        if (!scn || ktrace_session_store_log(&kl, scn, &lim, id, sizeof(id), NULL, 0, &err))
            status = cli_usage_error("replay", "--db %s: %s", db,
                                     scn ? strbuf_str(&err) : "out of memory");
        else {
            overview_store(st, id, &feed);
            printf("\nsession %s saved in %s (%llu operations, %llu events)\n", id, db,
                   (unsigned long long)kl.log.nr_ops, (unsigned long long)kl.log.nr_events);
        }
        logging = false; /* stored, or removed on failure */
        cJSON_Delete(scn);
    } else if (db) {
        status = cli_usage_error("replay", "--db %s: no operation was replayed: nothing to save",
                                 db);
    }
    if (out && kr.ops) {
        int s = write_scenario(&kr, out, name);

        if (s)
            status = s;
    }
    ktrace_replay_release(&kr);
out:
    if (logging)
        ktrace_log_abort(&kl);
    else
        ktrace_log_release(&kl);
    store_close(st);
    overview_release(&feed.ov);
    cache_rank_release(&ranking);
    ktrace_close(r);
    sysfs_slab_release(&tree);
    strbuf_release(&err);
    strbuf_release(&rep);
    return status;
}

const struct cli_command cmd_replay = {
        .name = "replay",
        .pos = {.name = "TRACE",
                .offset = offsetof(struct replay_args, file),
                .what = "trace",
                .missing = "which trace file?"},
        .groups = {{replay_opts, 0}},
        .run = replay_main,
};
