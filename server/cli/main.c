/*
 * main.c: the slublab program: subcommand dispatch.
 *
 * `slublab COMMAND [ARGS]` looks COMMAND up in the table below and hands it
 * the remaining arguments (argv[0] = COMMAND).  `help`, `--help` and
 * `--version` are answered here.  This is the only file that may end the
 * process: every subcommand returns its exit status (cli.h) and main()
 * returns it.  Each subcommand is one row of the table.
 */
#include <stdio.h>
#include <string.h>

#include "slub.h"
#include "cli/cli.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    void (*usage)(FILE *f);
    const char *summary;
};

static const struct command commands[] = {
        {"run", cli_run, cli_run_usage, "replay a scenario and show the caches, sysfs style"},
        {"compare", cli_compare, cli_compare_usage,
         "run a scenario before and after a change and tabulate the counters"},
        {"serve", cli_serve, cli_serve_usage, "serve the lab over HTTP: the JSON API and the UI"},
        {"geometry", cli_geometry, cli_geometry_usage,
         "check the engine's cache sizing against a /sys/kernel/slab tree"},
        {"replay", cli_replay, cli_replay_usage,
         "replay a real kernel's kmem trace (ftrace text, plain or gzip)"},
        {"import", cli_import, cli_import_usage,
         "write a scenario with a real kernel's caches (/sys/kernel/slab, /proc/slabinfo)"},
        {"bench", cli_bench, cli_bench_usage, "run a benchmark (see docs/benchmarks.md)"},
        {"export", cli_export, cli_export_usage,
         "write /proc/slabinfo and a /sys/kernel/slab tree that slabtop and slabinfo read"},
        {"report", cli_report, cli_report_usage,
         "write a Markdown report of a scenario's state, for a review"},
        {"gfp", cli_gfp, cli_gfp_usage,
         "decode a gfp mask: zone, ALLOC flags and the watermark each zone holds it to"},
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void main_usage(FILE *f)
{
    size_t i;

    fputs("usage: slublab COMMAND [ARGS]\n"
          "\n"
          "An interactive lab for the Linux SLUB slab allocator.\n"
          "\n"
          "Commands:\n",
          f);
    for (i = 0; i < NR_COMMANDS; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fputs("  help       show this text, or `slublab help COMMAND` for one command\n"
          "\n"
          "Options:\n"
          "  --help     show this text\n"
          "  --version  print the version\n"
          "\n"
          "Every command accepts --help.  See docs/cli.md.\n",
          f);
}

static const struct command *main_find(const char *name)
{
    size_t i;

    for (i = 0; i < NR_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

/* `slublab help [COMMAND]` */
static int main_help(int argc, char **argv)
{
    const struct command *cmd;

    if (argc < 3 || strcmp(argv[2], "help") == 0) {
        main_usage(stdout);
        return CLI_OK;
    }
    cmd = main_find(argv[2]);
    if (!cmd) {
        fprintf(stderr, "slublab help: unknown command \"%s\"\n\n", argv[2]);
        main_usage(stderr);
        return CLI_USAGE;
    }
    cmd->usage(stdout);
    return CLI_OK;
}

int main(int argc, char **argv)
{
    const struct command *cmd;
    int status;

    if (argc < 2) {
        main_usage(stderr);
        return CLI_USAGE;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("slublab %s\n", SIM_VERSION);
        return CLI_OK;
    }
    if (cli_is_help(argv[1]) || strcmp(argv[1], "help") == 0)
        return main_help(argc, argv);
    cmd = main_find(argv[1]);
    if (!cmd) {
        fprintf(stderr, "slublab: unknown command \"%s\" (try slublab help)\n", argv[1]);
        return CLI_USAGE;
    }
    status = cmd->run(argc - 1, argv + 1);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "slublab: error writing the output\n");
        return CLI_USAGE;
    }
    return status;
}
