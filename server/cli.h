/*
 * cli.h: the subcommands of the slublab program and their shared helpers.
 *
 * Each subcommand is `int cli_<name>(int argc, char **argv)` with argv[0]
 * the subcommand's name; it returns the process exit status (CLI_OK,
 * CLI_FAIL, CLI_USAGE) and main.c, the only caller of exit(), returns it.
 * Options may come before or after the file and take their value either
 * as the next argument or after '=' (`--seed 3`, `--seed=3`).
 */
#ifndef SLUBLAB_SERVER_CLI_H
#define SLUBLAB_SERVER_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../engine/slub.h"
#include "scenario.h"

enum {
    CLI_OK = 0,    /* done; every expect passed */
    CLI_FAIL = 1,  /* ran, but an expect failed (or validation found a violation) */
    CLI_USAGE = 2, /* bad arguments, unreadable or invalid scenario, rejected operation */
};

/* run.c */
int cli_run(int argc, char **argv);
void cli_run_usage(FILE *f);
/* serve.c */
int cli_serve(int argc, char **argv);
void cli_serve_usage(FILE *f);
/* compare.c */
int cli_compare(int argc, char **argv);
void cli_compare_usage(FILE *f);
/* bench/bench.c */
int cli_bench(int argc, char **argv);
void cli_bench_usage(FILE *f);
/* geometry.c */
int cli_geometry(int argc, char **argv);
void cli_geometry_usage(FILE *f);

/* ktrace_cli.c */
int cli_replay(int argc, char **argv);
void cli_replay_usage(FILE *f);
/* import.c */
int cli_import(int argc, char **argv);
void cli_import_usage(FILE *f);

/* True for "--help" and "-h". */
bool cli_is_help(const char *arg);
/*
 * Match argv[*i] against option @name ("--seed").  Returns 1 and sets
 * *value (advancing *i past a separate value), 0 when argv[*i] is another
 * argument, or -1 after printing "option needs a value" to stderr.
 */
int cli_option(int argc, char **argv, int *i, const char *name, const char **value);
/* Parse a decimal unsigned integer; false (nothing stored) when invalid. */
bool cli_parse_u64(const char *s, uint64_t *out);
/* Apply "NAME=before|after" to @cfg; false after printing why to stderr. */
bool cli_set_variant(struct sim_config *cfg, const char *spec);
/* Load @path; on failure print the message to stderr and return NULL. */
struct scenario *cli_load(const char *path);
/* Print "slublab <cmd>: <message>\n" to stderr and return CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* SLUBLAB_SERVER_CLI_H */
