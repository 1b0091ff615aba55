/*
 * cli.h: the subcommands of the slublab program and their shared helpers.
 *
 * Each subcommand is a struct cli_command (cmd_<name>.c): its option
 * table and its run function, which takes argv with argv[0]
 * the subcommand's name and returns the process exit status (CLI_OK,
 * CLI_FAIL, CLI_USAGE); main.c, the only caller of exit(), returns it.
 * Options may come before or after the file and take their value either
 * as the next argument or after '=' (`--seed 3`, `--seed=3`).  The words
 * of its help (summary, description, epilogue) are its entry of help.txt
 * (struct cli_text).
 */
#ifndef SLUBLAB_SERVER_CLI_CLI_H
#define SLUBLAB_SERVER_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/strbuf.h"
#include "scenario/replay.h"
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

/* `.pos` of the commands that take one scenario FILE, stored in @st's @field. */
#define CLI_POS_SCENARIO(st, field)                                             \
    {                                                                           \
        .name = "FILE", .offset = offsetof(st, field), .what = "scenario file", \
        .missing = "which scenario file?"                                       \
    }

/* `.pos` of the commands whose first argument names one of @actions
 * ("gen, engine or check"), stored in @st's @field. */
#define CLI_POS_ACTION(st, field, actions)                                 \
    {                                                                      \
        .name = "ACTION", .offset = offsetof(st, field), .what = "action", \
        .missing = "which action? (" actions ")"                           \
    }

#define CLI_MAX_GROUPS 4

/* A subcommand: main.c's table holds one per command; its words are cli_text(name)'s. */
struct cli_command {
    const char *name;
    struct cli_positional pos;
    struct cli_opt_group groups[CLI_MAX_GROUPS]; /* in --help order */
    void (*more_help)(FILE *f);                  /* printed before the options, or NULL */
    /* argv[0] is the command's name; returns the exit status */
    int (*run)(int argc, char **argv);
};

/*
 * The words of a command's help, each NULL when it has none: an entry of
 * server/cli/help.txt, which the build turns into cli_texts[]
 * (cmake/cli-help.cmake), the entries in `slublab help`'s order.
 */
struct cli_text {
    const char *name;        /* the command's (struct cli_command); NULL ends cli_texts[] */
    const char *summary;     /* one line in `slublab help` */
    const char *description; /* after the usage line; '\n' breaks a line */
    const char *epilogue;    /* after the options: exit status and so on */
};
extern const struct cli_text cli_texts[];

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
/* The words of the command @name in cli_texts[]; a row of NULLs when it has
 * none.  Cannot fail. */
const struct cli_text *cli_text(const char *name);

/* The commands, one per cmd_*.c (bench/bench.c for bench). */
extern const struct cli_command cmd_run, cmd_compare, cmd_serve, cmd_geometry, cmd_replay,
        cmd_import, cmd_bench, cmd_export, cmd_report, cmd_gfp, cmd_oracle, cmd_lessons,
        cmd_lessons_check, cmd_explore, cmd_export_static;

/* cli.c */
/* --kernel, --model, --seed, --variant: the settings run, export and report override. */
struct cli_model_args {
    const char *kernel;       /* NULL: the scenario's */
    const char *model;        /* NULL: the scenario's */
    struct cli_u64 seed;      /* not given: the scenario's */
    struct cli_list variants; /* NAME=VALUE, in command-line order */
    const char *slab_debug;   /* the slab_debug= boot option's value; NULL: the scenario's */
};
extern const struct cli_opt cli_model_opts[];
/* Apply @m over @cfg, a scenario's configuration whose explicit variants are
 * the bits of @keep (they stay through --kernel and --model; --variant
 * overrides them): CLI_OK, or CLI_USAGE after printing why. */
int cli_configure(const char *cmd, const struct cli_model_args *m, uint32_t keep,
                  struct sim_config *cfg);
/* True for "--help" and "-h". */
bool cli_is_help(const char *arg);
/* Parse a decimal unsigned integer; false (nothing stored) when invalid. */
bool cli_parse_u64(const char *s, uint64_t *out);
/* Apply "NAME=before|after" to @cfg; false after printing why to stderr. */
bool cli_set_variant(struct sim_config *cfg, const char *text);
/* Load @path; on failure print the message to stderr and return NULL. */
struct scenario *cli_load(const char *path);
/* Print "slublab <cmd>: <message>\n" to stderr and return CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Write @sb to the file @path in place (export_write_file()), or to stdout
 * when @path is NULL: CLI_OK, or CLI_USAGE after printing why. */
int cli_write_text(const char *cmd, const char *path, const struct strbuf *sb);
/* Print @json on one line of @f (indented when @pretty) and a newline;
 * false, nothing printed, when @json is NULL or the host runs out of memory. */
struct cJSON;
bool cli_print_json(FILE *f, const struct cJSON *json, bool pretty);

/* A scenario FILE loaded, the model options applied and its machine built. */
struct cli_replay {
    struct scenario *scn;  /* owned */
    struct sim_config cfg; /* the scenario's, the command line's settings over it */
    struct replay rp;      /* replay_init() done: ready for replay_run() */
};
/* Load @file, apply @m (cli_configure()) and build the machine into @r,
 * which starts zeroed: CLI_OK, or CLI_USAGE after printing why.  Either
 * way the caller releases @r (cli_replay_release()). */
int cli_replay_open(const char *cmd, const char *file, const struct cli_model_args *m,
                    struct cli_replay *r);
/* Release what cli_replay_open() made; a zeroed one is fine. */
void cli_replay_release(struct cli_replay *r);
/* Print why @rp stopped with @err (replay_run()'s error) and return the exit
 * status: CLI_FAIL for a violation rp->validate found, else CLI_USAGE. */
int cli_replay_error(const char *cmd, const struct replay *rp, int err);

/* cmd_export.c */
/*
 * Run @rp (after replay_init()) and snapshot its machine after the first
 * @at events when @has_at (the sessions' position numbering), else at the
 * end.  0 with *out owned by the caller (sim_snapshot_release()), or a
 * negative errno with the reason in rp->error (-ERANGE: @at beyond the end).
 */
int cli_replay_at(struct replay *rp, bool has_at, uint64_t at, struct sim_snapshot **out);
/* What the commands that show a scenario's state at a position (export,
 * report) share: the file, --at and the model options. */
struct cli_state_args {
    const char *file;
    struct cli_u64 at; /* not given: the end */
    struct cli_model_args m;
};
/* --at; a command lists it with cli_model_opts through CLI_STATE_GROUPS. */
extern const struct cli_opt cli_state_opts[];
/* `.groups` of such a command: --at, then @opts (at 0), then the model
 * options, its struct @type holding its cli_state_args in a field named st. */
#define CLI_STATE_GROUPS(type, opts)                                                             \
    {                                                                                            \
        {cli_state_opts, offsetof(type, st)}, {opts, 0}, {cli_model_opts, offsetof(type, st.m)}, \
    }
/* Open a->file (cli_replay_open()) and replay it to --at: CLI_OK with *snap
 * (sim_snapshot_release()) and *at (the position), or CLI_USAGE after
 * printing why.  Either way the caller releases @r. */
int cli_state_open(const char *cmd, const struct cli_state_args *a, struct cli_replay *r,
                   struct sim_snapshot **snap, uint64_t *at);

/* cmd_report.c */
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

#endif /* SLUBLAB_SERVER_CLI_CLI_H */
