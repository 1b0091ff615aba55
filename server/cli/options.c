/*
 * options.c: the one option parser and the --help printer (see cli.h).
 *
 * Every subcommand hands cli_parse() its struct cli_command: the
 * positional argument and the option tables, each row saying where its
 * value goes.  The parser accepts what the hand-written loops it replaced
 * accepted: options before or after the positional, `--opt value` and
 * `--opt=value` (`-o FILE` and `-o=FILE` for short names), a repeatable
 * option once per value, `--help`/`-h` anywhere; `--` ends the options.
 * It stores strings as pointers into argv (argv outlives every command),
 * so it allocates nothing.  Deliberately not getopt: getopt_long is
 * neither C17 nor POSIX, and its messages are not ours.
 *
 * cli_help() prints the same tables as text: a usage line, the
 * command's description, one line per option with its value's name and
 * its help, and the epilogue, wrapped to CLI_HELP_WIDTH columns; the
 * description and the epilogue are the command's entry of help.txt
 * (cli_text()).
 */
#include "cli/cli.h"

#include <string.h>

#define CLI_HELP_WIDTH 79 /* columns of --help text */
#define CLI_HELP_COL   24 /* option help starts here at most (shorter labels: sooner) */

/* The field @offset bytes into an argument struct (the tables keep it aligned). */
static void *field_at(void *out, size_t offset)
{
    return (char *)out + offset;
}

static const void *cfield_at(const void *out, size_t offset)
{
    return (const char *)out + offset;
}

/* The option of @cmd named by @arg ("--seed", "--seed=3", "-o"): its row and
 * the base of its group, and in *value what follows '=' (NULL if nothing). */
static const struct cli_opt *find_opt(const struct cli_command *cmd, const char *arg, size_t *base,
                                      const char **value)
{
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    const struct cli_opt_group *g;
    const struct cli_opt *o;

    for (g = cmd->groups; g < cmd->groups + CLI_MAX_GROUPS && g->opts; g++) {
        for (o = g->opts; o->name || o->short_name; o++) {
            bool hit;

            if (arg[1] == '-')
                hit = o->name && strlen(o->name) == len - 2 && !strncmp(arg + 2, o->name, len - 2);
            else
                hit = o->short_name && len == 2 && arg[1] == o->short_name;
            if (hit) {
                *base = g->base;
                *value = eq ? eq + 1 : NULL;
                return o;
            }
        }
    }
    return NULL;
}

/* "--seed" or "-o", as the messages and the help name an option. */
static const char *opt_label(const struct cli_opt *o, char *buf, size_t size)
{
    if (o->name)
        snprintf(buf, size, "--%s", o->name);
    else
        snprintf(buf, size, "-%c", o->short_name);
    return buf;
}

/* Store @value for @o in @field; CLI_OK or CLI_USAGE after printing why. */
static int store(const struct cli_command *cmd, const struct cli_opt *o, void *field,
                 const char *value)
{
    char label[64];
    uint64_t v, max = o->max ? o->max : UINT64_MAX;

    opt_label(o, label, sizeof(label));
    switch (o->kind) {
    case CLI_OPT_FLAG:
        *(bool *)field = true;
        break;
    case CLI_OPT_STRING:
        *(const char **)field = value;
        break;
    case CLI_OPT_LIST: {
        struct cli_list *l = field;

        if (l->n == CLI_LIST_MAX)
            return cli_usage_error(cmd->name, "%s at most %d times", label, CLI_LIST_MAX);
        l->v[l->n++] = value;
        break;
    }
    case CLI_OPT_U64: {
        struct cli_u64 *n = field;

        if (cli_parse_u64(value, &v) && v >= o->min && v <= max) {
            n->value = v;
            n->given = true;
        } else if (max == UINT64_MAX && o->min <= 1) {
            return cli_usage_error(cmd->name, "%s wants a %s integer, not \"%s\"", label,
                                   o->min ? "positive" : "non-negative", value);
        } else {
            return cli_usage_error(cmd->name, "%s wants an integer from %llu to %llu, not \"%s\"",
                                   label, (unsigned long long)o->min, (unsigned long long)max,
                                   value);
        }
        break;
    }
    }
    return CLI_OK;
}

/* The positional argument @arg; CLI_OK or CLI_USAGE after printing why. */
static int positional(const struct cli_command *cmd, void *out, const char *arg)
{
    const char **slot;

    if (!cmd->pos.name)
        return cli_usage_error(cmd->name, "unexpected argument \"%s\"", arg);
    slot = field_at(out, cmd->pos.offset);
    if (*slot)
        return cli_usage_error(cmd->name, "one %s at a time (\"%s\", then \"%s\")", cmd->pos.what,
                               *slot, arg);
    *slot = arg;
    return CLI_OK;
}

/* The first required option @out lacks, or NULL. */
static const struct cli_opt *missing_opt(const struct cli_command *cmd, const void *out)
{
    const struct cli_opt_group *g;
    const struct cli_opt *o;

    for (g = cmd->groups; g < cmd->groups + CLI_MAX_GROUPS && g->opts; g++) {
        for (o = g->opts; o->name || o->short_name; o++) {
            const void *field = cfield_at(out, g->base + o->offset);
            const bool *flag = field;
            const char *const *string = field;
            const struct cli_list *list = field;
            const struct cli_u64 *number = field;
            bool given = false;

            if (!o->required || o->one_of)
                continue; /* a required one_of group is the command's to check */
            switch (o->kind) {
            case CLI_OPT_FLAG:
                given = *flag;
                break;
            case CLI_OPT_STRING:
                given = *string != NULL;
                break;
            case CLI_OPT_LIST:
                given = list->n > 0;
                break;
            case CLI_OPT_U64:
                given = number->given;
                break;
            }
            if (!given)
                return o;
        }
    }
    return NULL;
}

bool cli_parse(const struct cli_command *cmd, int argc, char **argv, void *out, int *status)
{
    const struct cli_opt *missing;
    bool options = true;
    char label[64];
    int i;

    for (i = 1; i < argc; i++) {
        const char *arg = argv[i], *value;
        const struct cli_opt *o;
        size_t base;

        if (!options || arg[0] != '-' || arg[1] == '\0') {
            if ((*status = positional(cmd, out, arg)))
                return false;
            continue;
        }
        if (!strcmp(arg, "--")) {
            options = false;
            continue;
        }
        if (cli_is_help(arg)) {
            cli_help(cmd, stdout);
            *status = CLI_OK;
            return false;
        }
        if (!(o = find_opt(cmd, arg, &base, &value))) {
            *status = cli_usage_error(cmd->name, "unknown option \"%s\"", arg);
            return false;
        }
        opt_label(o, label, sizeof(label));
        if (o->kind == CLI_OPT_FLAG && value) {
            *status = cli_usage_error(cmd->name, "option %s takes no value", label);
            return false;
        }
        if (o->kind != CLI_OPT_FLAG && !value) {
            if (i + 1 >= argc) {
                *status = cli_usage_error(cmd->name, "option %s needs a value", label);
                return false;
            }
            value = argv[++i];
        }
        if ((*status = store(cmd, o, field_at(out, base + o->offset), value)))
            return false;
    }
    if (cmd->pos.name && cmd->pos.missing &&
        !*(const char *const *)cfield_at(out, cmd->pos.offset)) {
        *status = cli_usage_error(cmd->name, "%s", cmd->pos.missing);
        return false;
    }
    if ((missing = missing_opt(cmd, out))) {
        opt_label(missing, label, sizeof(label));
        *status = cli_usage_error(cmd->name, "%s%s%s is required", label, missing->arg ? " " : "",
                                  missing->arg ? missing->arg : "");
        return false;
    }
    *status = CLI_OK;
    return true;
}

/*
 * Print @text to @f word by word from column @col, breaking lines before
 * CLI_HELP_WIDTH and starting each new line at column @indent; '\n' in
 * @text breaks the line where it stands.
 */
static void wrap(FILE *f, const char *text, int indent, int col)
{
    const char *s = text;
    bool on_line = false; /* a word of @text is on the current line */

    while (*s) {
        int len;

        if (*s == '\n' || *s == ' ') {
            if (*s++ == '\n') {
                fputc('\n', f);
                col = 0;
                on_line = false;
            }
            continue;
        }
        len = (int)strcspn(s, " \n");
        if (on_line && col + 1 + len > CLI_HELP_WIDTH) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (on_line) {
            fputc(' ', f);
            col++;
        } else if (col == 0) {
            fprintf(f, "%*s", indent, "");
            col = indent;
        }
        fprintf(f, "%.*s", len, s);
        col += len;
        on_line = true;
        s += len;
    }
}

/* One element of the usage line, wrapped at @indent. */
static void usage_word(FILE *f, const char *word, int indent, int *col)
{
    int len = (int)strlen(word);

    if (*col + 1 + len > CLI_HELP_WIDTH && *col > indent) {
        fprintf(f, "\n%*s", indent, "");
        *col = indent;
    } else {
        fputc(' ', f);
        (*col)++;
    }
    fputs(word, f);
    *col += len;
}

/* "--seed N", "-o FILE" or "--json" into @buf. */
static const char *opt_synopsis(const struct cli_opt *o, char *buf, size_t size)
{
    char label[64];

    opt_label(o, label, sizeof(label));
    if (o->arg)
        snprintf(buf, size, "%s %s", label, o->arg);
    else
        snprintf(buf, size, "%s", label);
    return buf;
}

/* The usage line: the positional, then every option ([A | B] for one_of runs). */
static void print_usage(const struct cli_command *cmd, FILE *f)
{
    const struct cli_opt_group *g;
    const struct cli_opt *o;
    int col = fprintf(f, "usage: slublab %s", cmd->name), indent = col + 1;
    char alts[256], word[260], one[96];

    if (cmd->pos.name)
        usage_word(f, cmd->pos.name, indent, &col);
    for (g = cmd->groups; g < cmd->groups + CLI_MAX_GROUPS && g->opts; g++) {
        for (o = g->opts; o->name || o->short_name; o++) {
            bool required = o->required, several = false;
            size_t n;

            snprintf(alts, sizeof(alts), "%s", opt_synopsis(o, one, sizeof(one)));
            while (o->one_of && o[1].one_of == o->one_of) {
                o++;
                required |= o->required;
                several = true;
                n = strlen(alts);
                snprintf(alts + n, sizeof(alts) - n, " | %s", opt_synopsis(o, one, sizeof(one)));
            }
            if (!required)
                snprintf(word, sizeof(word), "[%s]%s", alts, o->kind == CLI_OPT_LIST ? "..." : "");
            else if (several)
                snprintf(word, sizeof(word), "(%s)", alts);
            else
                snprintf(word, sizeof(word), "%s", alts);
            usage_word(f, word, indent, &col);
        }
    }
    fputc('\n', f);
}

/* "  LABEL   help", the help wrapped at column @width + 4. */
static void print_item(FILE *f, const char *label, const char *help, int width)
{
    int col = fprintf(f, "  %s", label);

    if (col + 2 > width + 4) {
        fputc('\n', f);
        col = 0;
    } else {
        col += fprintf(f, "%*s", width + 4 - col, "");
    }
    wrap(f, help, width + 4, col);
    fputc('\n', f);
}

const struct cli_text *cli_text(const char *name)
{
    const struct cli_text *t;

    for (t = cli_texts; t->name; t++)
        if (strcmp(t->name, name) == 0)
            break;
    return t;
}

void cli_help(const struct cli_command *cmd, FILE *f)
{
    const struct cli_text *text = cli_text(cmd->name);
    const struct cli_opt_group *g;
    const struct cli_opt *o;
    char label[96];
    int width = (int)strlen("-h, --help");

    print_usage(cmd, f);
    if (text->description) {
        fputc('\n', f);
        wrap(f, text->description, 0, 0);
        fputc('\n', f);
    }
    if (cmd->more_help)
        cmd->more_help(f);
    /* the label column: as wide as the widest label, up to CLI_HELP_COL */
    if (cmd->pos.help && (int)strlen(cmd->pos.name) > width)
        width = (int)strlen(cmd->pos.name);
    for (g = cmd->groups; g < cmd->groups + CLI_MAX_GROUPS && g->opts; g++)
        for (o = g->opts; o->name || o->short_name; o++) {
            int len = (int)strlen(opt_synopsis(o, label, sizeof(label)));

            if (len > width && len + 4 <= CLI_HELP_COL)
                width = len;
        }
    if (width + 4 > CLI_HELP_COL)
        width = CLI_HELP_COL - 4;
    fputc('\n', f);
    if (cmd->pos.help)
        print_item(f, cmd->pos.name, cmd->pos.help, width);
    for (g = cmd->groups; g < cmd->groups + CLI_MAX_GROUPS && g->opts; g++)
        for (o = g->opts; o->name || o->short_name; o++) {
            const char *help = o->help;
            char buf[512];

            if (o->kind == CLI_OPT_LIST) {
                snprintf(buf, sizeof(buf), "%s; repeatable", o->help);
                help = buf;
            }
            print_item(f, opt_synopsis(o, label, sizeof(label)), help, width);
        }
    print_item(f, "-h, --help", "show this text", width);
    if (text->epilogue) {
        fputc('\n', f);
        wrap(f, text->epilogue, 0, 0);
        fputc('\n', f);
    }
}
