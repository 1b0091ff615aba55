/*
 * ktrace_cli.c: `slublab replay TRACE`, a real kernel's kmem trace on the
 * engine.
 *
 * Reads the trace (plain or gzip), replays it (ktrace_replay.c) and prints
 * the report.  -o writes the same operations as a scenario the server and
 * `slublab run` open; --db stores that scenario as a session in a slublab
 * database, which `slublab serve --db FILE` lists.  A progress bar goes to
 * stderr when it is a terminal.
 *
 * Exit status: 0 when the trace was read to its end, 1 when the input
 * ended in an error (a gzip stream cut short: what was read is replayed
 * and reported) or --validate found a violation, 2 for usage errors and
 * unreadable files.
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ktrace/ktrace_replay.h"
#include "present/ktrace_report.h"
#include "session/ktrace_session.h"
#include "scenario/scenario_write.h"
#include "base/strbuf.h"

void cli_replay_usage(FILE *f)
{
    fputs("usage: slublab replay TRACE [--sysfs DIR] [--cpus N] [--model M] [--seed N]\n"
          "                      [--mem-mb N] [--validate] [-o FILE] [--db FILE]\n"
          "\n"
          "Replay a kmem trace of a real kernel: ftrace text output of kmem:kmem_cache_alloc,\n"
          "kmem:kmem_cache_free, kmem:kmalloc and kmem:kfree as /sys/kernel/tracing/trace\n"
          "prints it (scripts/record-kmem-trace records one), plain or gzip.  Prints what was\n"
          "replayed, what could not be (frees of objects allocated before the trace,\n"
          "kfree(NULL), large kmalloc, unknown caches) and the caches at the end.\n"
          "\n"
          "  --sysfs DIR   create caches as this /sys/kernel/slab tree shows them (default:\n"
          "                from each cache's first event: name=, bytes_req, bytes_alloc)\n"
          "  --cpus N      CPUs of the machine (default: the #P: header, else the highest\n"
          "                CPU in the trace + 1); events on higher CPUs are folded modulo N\n"
          "  --model M     sheaves (default), legacy or legacy:ERA\n"
          "  --seed N      the engine's seed (default 1)\n"
          "  --mem-mb N    memory per node in MiB (default 1024; backed only when used)\n"
          "  --validate    check every invariant after each operation\n"
          "  -o FILE       write the operations as a scenario (`slublab run FILE`, the UI)\n"
          "  --db FILE     save a session in this slublab database (`slublab serve --db FILE`)\n"
          "  --progress    a progress bar on stderr even when it is not a terminal\n"
          "\n"
          "Exit status: 0 when the trace was read to its end, 1 when the input ended early\n"
          "(a gzip stream cut short) or --validate found a violation, 2 for usage errors.\n"
          "See docs/record-a-trace.md.\n",
          f);
}

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
    if (text && strlen(text) > SCENARIO_MAX_BYTES)
        fprintf(stderr,
                "slublab replay: warning: the scenario is %zu MiB, more than the %u MiB a "
                "scenario may have: replay a shorter trace to open it\n",
                strlen(text) >> 20, SCENARIO_MAX_BYTES >> 20);
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

int cli_replay(int argc, char **argv)
{
    const char *file = NULL, *sysfs = NULL, *cpus = NULL, *model = NULL, *seed = NULL, *mem = NULL,
               *out = NULL, *db = NULL, *value;
    bool progress = isatty(STDERR_FILENO);
    struct ktrace_opts o;
    struct sysfs_tree tree;
    struct ktrace_reader *r = NULL;
    struct ktrace_replay kr;
    struct strbuf err = STRBUF_INIT, rep = STRBUF_INIT;
    struct progress pg = {-1, 0};
    uint64_t v;
    char name[128];
    int ret, status = CLI_OK;

    memset(&o, 0, sizeof(o));
    memset(&tree, 0, sizeof(tree));
    for (int i = 1; i < argc; i++) {
        int m = 0;

        if (cli_is_help(argv[i])) {
            cli_replay_usage(stdout);
            return CLI_OK;
        }
        if (!strcmp(argv[i], "--validate"))
            o.validate = true;
        else if (!strcmp(argv[i], "--progress"))
            progress = true;
        else if ((m = cli_option(argc, argv, &i, "--sysfs", &value)) != 0)
            sysfs = value;
        else if ((m = cli_option(argc, argv, &i, "--cpus", &value)) != 0)
            cpus = value;
        else if ((m = cli_option(argc, argv, &i, "--model", &value)) != 0)
            model = value;
        else if ((m = cli_option(argc, argv, &i, "--seed", &value)) != 0)
            seed = value;
        else if ((m = cli_option(argc, argv, &i, "--mem-mb", &value)) != 0)
            mem = value;
        else if ((m = cli_option(argc, argv, &i, "-o", &value)) != 0)
            out = value;
        else if ((m = cli_option(argc, argv, &i, "--db", &value)) != 0)
            db = value;
        else if (argv[i][0] == '-' && argv[i][1])
            return cli_usage_error("replay", "unknown option \"%s\"", argv[i]);
        else if (file)
            return cli_usage_error("replay", "one trace at a time (\"%s\", then \"%s\")", file,
                                   argv[i]);
        else
            file = argv[i];
        if (m < 0)
            return CLI_USAGE;
    }
    if (!file)
        return cli_usage_error("replay", "which trace file?");
    if (cpus) {
        if (!cli_parse_u64(cpus, &v) || v < 1 || v > SIM_MAX_CPUS)
            return cli_usage_error("replay", "--cpus must be 1..%d", SIM_MAX_CPUS);
        o.cpus = (unsigned)v;
    }
    if (model) {
        struct sim_config tmp;

        sim_config_default(&tmp);
        if (sim_model_parse(model, &tmp) || sim_model_error(&tmp))
            return cli_usage_error("replay", "unknown model \"%s\" (sheaves, legacy or legacy:ERA)",
                                   model);
        o.model = model;
    }
    if (seed && (!cli_parse_u64(seed, &o.seed) || !o.seed))
        return cli_usage_error("replay", "--seed wants a positive integer, not \"%s\"", seed);
    if (mem) {
        if (!cli_parse_u64(mem, &v) || v < 4 || v % 4 || v > SCENARIO_MAX_MEM_MB)
            return cli_usage_error("replay", "--mem-mb must be a multiple of 4 in 4..%u",
                                   SCENARIO_MAX_MEM_MB);
        o.mem_mb = (unsigned)v;
    }
    if (sysfs) {
        if (sysfs_slab_read(sysfs, &tree, &err)) {
            status = cli_usage_error("replay", "--sysfs: %s", strbuf_str(&err));
            goto out;
        }
        o.sysfs = &tree;
    }
    o.record = out || db;
    o.max_ops = SCENARIO_MAX_STEPS; /* what a scenario may expand to */
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
                                : cli_usage_error("replay", "%s: %s", file, strbuf_str(&err));
        ktrace_replay_release(&kr);
        goto out;
    }
    if (ret == -EIO) {
        fprintf(stderr, "slublab replay: %s: %s (the lines before it were replayed)\n", file,
                kr.read_error);
        status = CLI_FAIL;
    }
    ktrace_report_text(&rep, &kr, file);
    fputs(strbuf_str(&rep), stdout);
    if (kr.n.violations)
        status = CLI_FAIL;
    trace_name(file, name, sizeof(name));
    if (db && kr.ops) {
        cJSON *scn = ktrace_replay_scenario(&kr, name);
        char id[64];

        if (!scn || ktrace_session_save(db, scn, id, sizeof(id), &err)) {
            status = cli_usage_error("replay", "--db %s: %s", db,
                                     scn ? strbuf_str(&err) : "out of memory");
        } else {
            printf("\nsession %s saved in %s\n", id, db);
        }
        if (out && scn) {
            /* -o too: give the operations back for the file */
            kr.ops = cJSON_DetachItemFromObject(scn, "ops");
        }
        cJSON_Delete(scn);
    }
    if (out && kr.ops) {
        int s = write_scenario(&kr, out, name);

        if (s)
            status = s;
    }
    ktrace_replay_release(&kr);
out:
    ktrace_close(r);
    sysfs_slab_release(&tree);
    strbuf_release(&err);
    strbuf_release(&rep);
    return status;
}
