/*
 * cmd_oracle.c: `slublab oracle ACTION`: the engine side of the kernel
 * oracle (docs/fidelity.md).
 *
 *   gen     a random program (oracle_gen.c) on stdout or into a file
 *   engine  what the engine prints for a program, in the fixtures' .out
 *           format, as a kernel's run would be recorded (oracle_check.c)
 *   check   every fixture under tests/oracle/ against the engine
 *
 * Each action is a command of its own ("oracle gen"), with its option
 * table and --help, dispatched on the first argument.
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/oracle.h"
#include "kfiles/kfiles.h"

/* what ACTION may be, for its usage errors */
#define ORACLE_ACTIONS "gen, engine or check"

struct oracle_args {
    const char *action;
    struct cli_u64 seed, cpus, nodes;
    const char *kernel;
    const char *out;
    const char *program;
    const char *topology;
    const char *root;
    const char *shape;
    bool verbose;
};

static const struct cli_opt oracle_opts[] = {
        {CLI_TO(struct oracle_args, seed), .name = "seed", .arg = "N",
         .help = "gen: the program's seed (required): the same seed and options give the same "
                 "bytes"},
        {CLI_TO(struct oracle_args, kernel), .name = "kernel", .arg = "K",
         .help = "the release (docs/engine.md, the table of releases: 6.1, 6.12, 7.3, ...).  gen: "
                 "the program is for it (7.x adds prefilled sheaves and kfree_rcu; default: "
                 "operations every release has); engine: required, the release to run as; "
                 "check: only this release's fixtures"},
        {CLI_TO(struct oracle_args, cpus), .name = "cpus", .arg = "N", .min = 1, .max = 8,
         .help = "gen: CPUs of the machine (default 4)"},
        {CLI_TO(struct oracle_args, nodes), .name = "nodes", .arg = "N", .min = 1, .max = 2,
         .help = "gen: NUMA nodes, CPUs in contiguous blocks (default: 1 or 2, drawn from the "
                 "seed)"},
        {CLI_TO(struct oracle_args, shape), .name = "shape", .arg = "SHAPE",
         .help = "gen: weight the program for a shape: \"shrink\", a shrink and a mark after "
                 "every remote free and bulk free, and frees on another CPU half the time or more "
                 "(the programs whose result depends on flush_all()'s order)"},
        {CLI_TO(struct oracle_args, out), .short_name = 'o', .arg = "FILE",
         .help = "gen, engine: write to FILE instead of stdout"},
        {CLI_TO(struct oracle_args, program), .name = "program", .arg = "FILE",
         .help = "engine: the program (a scenario) to run"},
        {CLI_TO(struct oracle_args, topology), .name = "topology", .arg = "TOPO",
         .help = "engine: the machine as a fixture's topology line gives it, \"cpus=4 nodes=1 "
                 "cpu_node=0,0,0,0\" (default: the program's)"},
        {CLI_TO(struct oracle_args, root), .name = "root", .arg = "DIR",
         .help = "check: the repository whose tests/oracle/ to check (default: .)"},
        {CLI_TO(struct oracle_args, verbose), .name = "verbose", .short_name = 'v',
         .help = "check: print the known differences too"},
        {0},
};

static int oracle_gen_main(const struct oracle_args *a)
{
    struct oracle_gen_opts o = {0};
    struct strbuf sb = STRBUF_INIT;
    int ret, err;

    if (!a->seed.given)
        return cli_usage_error("oracle", "gen needs --seed N");
    o.seed = a->seed.value;
    o.cpus = (unsigned)a->cpus.value;
    o.nodes = (unsigned)a->nodes.value;
    if (a->shape && strcmp(a->shape, "shrink"))
        return cli_usage_error("oracle", "--shape takes \"shrink\", not \"%s\"", a->shape);
    o.shrink = a->shape != NULL;
    if (a->kernel) {
        struct sim_config cfg;

        sim_config_default(&cfg);
        if (sim_release_apply(sim_release_lookup(a->kernel), &cfg))
            return cli_usage_error("oracle", "unknown release \"%s\" (docs/engine.md)", a->kernel);
        o.seven = cfg.model == SIM_MODEL_SHEAVES;
    }
    if (o.nodes && o.nodes > (o.cpus ? o.cpus : 4))
        return cli_usage_error("oracle", "--nodes %u is more than the CPUs", o.nodes);
    if ((err = oracle_gen(&sb, &o))) {
        strbuf_release(&sb);
        return cli_usage_error("oracle", "gen: %s", strerror(-err));
    }
    ret = cli_write_text("oracle", a->out && strcmp(a->out, "-") ? a->out : NULL, &sb);
    strbuf_release(&sb);
    return ret;
}

static int oracle_engine_main(const struct oracle_args *a)
{
    struct strbuf err = STRBUF_INIT;
    FILE *f = stdout;
    int ret = CLI_OK;

    if (!a->program || !a->kernel)
        return cli_usage_error("oracle", "engine needs --program FILE and --kernel K");
    if (a->out && strcmp(a->out, "-") && !(f = fopen(a->out, "w"))) {
        fprintf(stderr, "slublab oracle: %s: %s\n", a->out, strerror(errno));
        return CLI_USAGE;
    }
    if (oracle_engine_print(a->program, a->kernel, a->topology, f, &err)) {
        fprintf(stderr, "slublab oracle engine: %s\n", strbuf_str(&err));
        ret = CLI_USAGE;
    }
    if (f != stdout && fclose(f) && ret == CLI_OK) {
        fprintf(stderr, "slublab oracle: %s: %s\n", a->out, strerror(errno));
        ret = CLI_USAGE;
    }
    strbuf_release(&err);
    return ret;
}

static int oracle_check_main(const struct oracle_args *a)
{
    struct strbuf summary = STRBUF_INIT, err = STRBUF_INIT;
    int ret;

    if (a->kernel && sim_release_lookup(a->kernel) == SIM_RELEASE_NONE)
        return cli_usage_error("oracle", "unknown release \"%s\" (docs/engine.md)", a->kernel);
    ret = oracle_check(a->root ? a->root : ".", a->kernel, a->verbose, stdout, &summary, &err);
    if (ret < 0) {
        fprintf(stderr, "slublab oracle check: %s\n", err.len ? strbuf_str(&err) : strerror(-ret));
        ret = CLI_USAGE;
    } else {
        fputs(strbuf_str(&summary), stdout);
        ret = ret ? CLI_FAIL : CLI_OK;
    }
    strbuf_release(&summary);
    strbuf_release(&err);
    return ret;
}

static int oracle_main(int argc, char **argv)
{
    struct oracle_args a = {0};
    int ret;

    if (!cli_parse(&cmd_oracle, argc, argv, &a, &ret))
        return ret;
    if (!strcmp(a.action, "gen"))
        return oracle_gen_main(&a);
    if (!strcmp(a.action, "engine"))
        return oracle_engine_main(&a);
    if (!strcmp(a.action, "check"))
        return oracle_check_main(&a);
    return cli_usage_error("oracle", "unknown action \"%s\" (" ORACLE_ACTIONS ")", a.action);
}

const struct cli_command cmd_oracle = {
        .name = "oracle",
        .pos = CLI_POS_ACTION(struct oracle_args, action, ORACLE_ACTIONS),
        .groups = {{oracle_opts, 0}},
        .run = oracle_main,
};
