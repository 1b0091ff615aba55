/*
 * main.c: the slublab program: subcommand dispatch.
 *
 * `slublab COMMAND [ARGS]` looks COMMAND up in the table below and hands it
 * the remaining arguments (argv[0] = COMMAND).  `help`, `--help` and
 * `--version` are answered here.  This is the only file that may end the
 * process: every subcommand returns its exit status (cli.h) and main()
 * returns it.  Each subcommand is one row of the table: a struct
 * cli_command, whose option table also gives its --help (options.c).
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "slub.h"

/* In the order `slublab help` lists them. */
static const struct cli_command *const commands[] = {
        &cmd_run,    &cmd_compare, &cmd_serve,   &cmd_geometry,      &cmd_replay,
        &cmd_import, &cmd_bench,   &cmd_export,  &cmd_report,        &cmd_gfp,
        &cmd_oracle, &cmd_lessons, &cmd_explore, &cmd_export_static,
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
        fprintf(f, "  %-13s %s\n", commands[i]->name, cli_text(commands[i]->name)->summary);
    fputs("  help          show this text, or `slublab help COMMAND` for one command\n"
          "\n"
          "Options:\n"
          "  --help     show this text\n"
          "  --version  print the version\n"
          "\n"
          "Every command accepts --help.  See docs/cli.md.\n",
          f);
}

static const struct cli_command *main_find(const char *name)
{
    size_t i;

    for (i = 0; i < NR_COMMANDS; i++)
        if (strcmp(commands[i]->name, name) == 0)
            return commands[i];
    return NULL;
}

/* `slublab help [COMMAND]` */
static int main_help(int argc, char **argv)
{
    const struct cli_command *cmd;

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
    cli_help(cmd, stdout);
    return CLI_OK;
}

int main(int argc, char **argv)
{
    const struct cli_command *cmd;
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
