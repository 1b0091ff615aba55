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
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/strbuf.h"
#include "scenario/scenario.h"
#include "slub.h"

enum {
    CLI_OK = 0,    /* done; every expect passed */
    CLI_FAIL = 1,  /* ran, but an expect failed (or validation found a violation) */
    CLI_USAGE = 2, /* bad arguments, unreadable or invalid scenario, rejected operation */
};

/*
 * The option table.  Each command describes its arguments as data, the way
 * http.c describes routes: a struct cli_command with its positional
 * argument and its option tables, each row naming where its value goes
 * (an offset into the command's argument struct) and its help text.  One
 * parser (cli_parse(), options.c) reads argv against that table, and the
 * --help text is printed from it (cli_help()), so an option cannot be
 * accepted without being documented or documented without being accepted.
 * What spans several options (A excludes B, one of A and B is needed) is
 * the command's to check after cli_parse().
 */

/* What an option stores; derived from the type of its field (CLI_TO). */
enum cli_opt_kind {
    CLI_OPT_FLAG,   /* bool: true when given; takes no value */
    CLI_OPT_STRING, /* const char *: the value (the last one given wins) */
    CLI_OPT_LIST,   /* struct cli_list: every value, in order (repeatable) */
    CLI_OPT_U64,    /* struct cli_u64: a decimal integer in [min, max] */
};

/* A number option's value: 0 and not given unless the command line gives it. */
struct cli_u64 {
    uint64_t value;
    bool given;
};

#define CLI_LIST_MAX 32

/* A repeatable option's values: pointers into argv, in command-line order. */
struct cli_list {
    const char *v[CLI_LIST_MAX];
    int n; /* 0..CLI_LIST_MAX */
};

/*
 * `.kind` and `.offset` of an option whose value goes to @st's @field.  The
 * kind comes from the field's type, so the two cannot disagree; a field of
 * any other type does not compile.  (A macro: static tables need constant
 * expressions.)
 */
#define CLI_TO(st, field) \
    .kind = _Generic(((st *)0)->field, \
            bool: CLI_OPT_FLAG, \
            const char *: CLI_OPT_STRING, \
            struct cli_list: CLI_OPT_LIST, \
            struct cli_u64: CLI_OPT_U64), \
    .offset = offsetof(st, field)

/* One option: a row of a command's table.  A table ends with a row without a name. */
struct cli_opt {
    const char *name;       /* long name without "--" ("seed"), or NULL */
    char short_name;        /* 'o' for -o, or 0; a table ends where both are unset */
    enum cli_opt_kind kind; /* set by CLI_TO */
    size_t offset;          /* set by CLI_TO: of the field in the group's struct */
    const char *arg;        /* the value's name in --help ("N", "FILE"); NULL for a flag */
    uint64_t min, max;      /* CLI_OPT_U64: the accepted range; max 0: no upper bound */
    unsigned one_of;        /* nonzero: shown as [A | B] with the adjacent rows of that id */
    bool required;          /* cli_parse() fails without it; with one_of: one of the group is
                               needed, which the command checks (and says in its words) */
    const char *help;       /* one paragraph; --help wraps it */
};

/* A table of options whose fields sit at @base in the command's argument struct. */
struct cli_opt_group {
    const struct cli_opt *opts; /* NULL: the end of the command's groups */
    size_t base;
};

/* The argument that is not an option (a scenario file, a mask), if any. */
struct cli_positional {
    const char *name;    /* in --help ("FILE"); NULL: the command takes none */
    size_t offset;       /* of its const char * in the argument struct */
    const char *what;    /* "scenario file": "one scenario file at a time" */
    const char *missing; /* the message when it is absent */
    const char *help;    /* listed with the options when not NULL */
};

#define CLI_MAX_GROUPS 4

/* A subcommand: main.c's table holds one per command. */
struct cli_command {
    const char *name;
    const char *summary;     /* one line in `slublab help` */
    const char *description; /* after the usage line; '\n' breaks a line */
    struct cli_positional pos;
    struct cli_opt_group groups[CLI_MAX_GROUPS]; /* in --help order */
    void (*more_help)(FILE *f);                  /* printed before the options, or NULL */
    const char *epilogue;                        /* after the options: exit status and so on */
    /* argv[0] is the command's name; returns the exit status */
    int (*run)(int argc, char **argv);
};

/* options.c */
/*
 * Read argv[1..argc) into @out (the command's argument struct, zeroed or
 * holding defaults) as @cmd's tables say: options before or after the
 * positional, `--opt value` and `--opt=value`, `--` ending the options.
 * True when the command should go on; false with *status the exit status
 * after --help (CLI_OK, the help printed to stdout) or after printing a
 * usage error (CLI_USAGE).
 */
bool cli_parse(const struct cli_command *cmd, int argc, char **argv, void *out, int *status);
/* Print @cmd's --help, generated from its tables, to @f.  Cannot fail. */
void cli_help(const struct cli_command *cmd, FILE *f);

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
/* export.c */
int cli_export(int argc, char **argv);
void cli_export_usage(FILE *f);
struct replay;
/*
 * Run @rp (after replay_init()) and snapshot its machine after the first
 * @at events when @has_at (the sessions' position numbering), else at the
 * end.  0 with *out owned by the caller (sim_snapshot_release()), or a
 * negative errno with the reason in rp->error (-ERANGE: @at beyond the end).
 */
int cli_replay_at(struct replay *rp, bool has_at, uint64_t at, struct sim_snapshot **out);
/* What the commands that show a scenario's state at a position (export,
 * report) share: the file, --at, --model, --seed and --variant. */
struct cli_state_args {
    const char *file;
    const char *at; /* NULL: the end */
    const char *model, *seed;
    const char **variants; /* owned (free()), room for every argument */
    int nr_variants;
};
/* Take argv[*i] when it is one of those: 1 taken, 0 not one of them, or -1
 * after printing why. */
int cli_state_arg(const char *cmd, int argc, char **argv, int *i, struct cli_state_args *a);
/* Load a->file, apply the options and replay it to --at: CLI_OK with *scn
 * (scenario_release()), *cfg, @rp (replay_release(), also on failure), *snap
 * (sim_snapshot_release()) and *at (the position), or CLI_USAGE after
 * printing why. */
int cli_state_open(const char *cmd, const struct cli_state_args *a, struct scenario **scn,
                   struct sim_config *cfg, struct replay *rp, struct sim_snapshot **snap,
                   uint64_t *at);
/* report_cmd.c */
int cli_report(int argc, char **argv);
void cli_report_usage(FILE *f);
/*
 * The chart file beside report @out ("x.md" -> "x-SUFFIX.svg") into @path,
 * and in *ref its name as the report links it.  0 or -ENAMETOOLONG.
 */
int cli_chart_name(const char *out, const char *suffix, char *path, size_t size, const char **ref);
/*
 * Write report @md to @out (NULL: stdout) and, when @chart_path, @svg
 * there; both in place.  CLI_OK, or CLI_USAGE after printing why.
 */
int cli_write_report(const char *cmd, const char *out, const struct strbuf *md,
                     const char *chart_path, const struct strbuf *svg);
/* gfp.c */
int cli_gfp(int argc, char **argv);
void cli_gfp_usage(FILE *f);

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
/* Apply --model, --seed and --variant values (NULL: not given) over @cfg:
 * CLI_OK, or CLI_USAGE after printing why. */
int cli_configure(const char *cmd, const char *model, const char *seed, const char **variants,
                  int nr_variants, struct sim_config *cfg);
/* Load @path; on failure print the message to stderr and return NULL. */
struct scenario *cli_load(const char *path);
/* Print "slublab <cmd>: <message>\n" to stderr and return CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* SLUBLAB_SERVER_CLI_H */
