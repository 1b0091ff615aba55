/*
 * report_cmd.c: `slublab report FILE`: a Markdown report of the state of a
 * scenario's machine at a position, for a review (see report_md.h).
 *
 * The position is numbered as the sessions number it (--at N: after N
 * events; default the end), through cli_replay_at() as `slublab export`
 * does, so a report and an export of one step agree.  With -o OUT.md the
 * report goes to OUT.md and its chart to OUT-objects.svg beside it (the
 * report links it by its file name, so the two move together); on stdout
 * there is no chart.  `slublab compare --md` is the comparison report.
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kfiles/kfiles.h"
#include "scenario/replay.h"
#include "present/report_md.h"
#include "base/strbuf.h"
#include "present/svg_chart.h"

struct report_args {
    struct cli_state_args st;
    const char *out; /* NULL: stdout */
};

void cli_report_usage(FILE *f)
{
    fputs("usage: slublab report FILE [--at N] [-o OUT.md] [--variant NAME=VALUE]...\n"
          "                      [--model MODEL] [--seed N]\n"
          "\n"
          "Replay the scenario FILE and write a Markdown report of its machine's state:\n"
          "settings, a state summary (caches, slabs, partial, nodes, sheaves, barns) and\n"
          "every non-zero counter per CPU.  For a before/after table in the form of mm\n"
          "cover letters, see slublab compare --md.\n"
          "\n"
          "  --at N               the state after the first N engine events (the step\n"
          "                       numbering of the server's sessions); default: the end\n"
          "  -o OUT.md            write the report to OUT.md and its chart to\n"
          "                       OUT-objects.svg (default: the report on stdout, no chart)\n"
          "  --variant, --model, --seed   as for slublab run\n"
          "\n"
          "Exit status: 0 when written, 2 for usage errors, invalid scenarios, a position\n"
          "beyond the end and files that cannot be written.\n",
          f);
}

static int report_parse_args(int argc, char **argv, struct report_args *a)
{
    const char *value;
    int i, m;

    for (i = 1; i < argc; i++) {
        if ((m = cli_state_arg("report", argc, argv, &i, &a->st)) == 0 &&
            (m = cli_option(argc, argv, &i, "-o", &value)) > 0)
            a->out = value;
        else if (m == 0)
            return cli_usage_error("report", "unknown option \"%s\"", argv[i]);
        if (m < 0)
            return CLI_USAGE;
    }
    if (!a->st.file)
        return cli_usage_error("report", "which scenario file?");
    if (a->out && !a->out[0])
        return cli_usage_error("report", "-o wants a file name");
    return CLI_OK;
}

int cli_chart_name(const char *out, const char *suffix, char *path, size_t size, const char **ref)
{
    size_t len = strlen(out);
    const char *slash;

    if (len > 3 && !strcmp(out + len - 3, ".md"))
        len -= 3;
    if ((size_t)snprintf(path, size, "%.*s-%s.svg", (int)len, out, suffix) >= size)
        return -ENAMETOOLONG;
    slash = strrchr(path, '/');
    *ref = slash ? slash + 1 : path;
    return 0;
}

int cli_write_report(const char *cmd, const char *out, const struct strbuf *md,
                     const char *chart_path, const struct strbuf *svg)
{
    int err;

    if (!out) {
        fputs(strbuf_str(md), stdout);
        return CLI_OK;
    }
    if ((err = export_write_file(out, strbuf_str(md), md->len))) {
        fprintf(stderr, "slublab %s: %s: %s\n", cmd, out, strerror(-err));
        return CLI_USAGE;
    }
    if (chart_path && (err = export_write_file(chart_path, strbuf_str(svg), svg->len))) {
        fprintf(stderr, "slublab %s: %s: %s\n", cmd, chart_path, strerror(-err));
        return CLI_USAGE;
    }
    return CLI_OK;
}

/* The events of the whole run (for "step N of M"): a second replay.  0 or an error. */
static int report_total_events(const struct scenario *scn, const struct sim_config *cfg,
                               uint64_t *out)
{
    struct replay rp = {0};
    int err = replay_init(&rp, scn, cfg);

    if (!err && !(err = replay_run(&rp)))
        *out = sim_event_count(rp.sim);
    replay_release(&rp);
    return err;
}

int cli_report(int argc, char **argv)
{
    struct report_args args = {0};
    struct strbuf md = STRBUF_INIT, svg = STRBUF_INIT;
    struct report_md_info info = {0};
    struct sim_snapshot *snap = NULL;
    struct replay rp = {0};
    struct scenario *scn = NULL;
    struct sim_config cfg;
    char chart[4096];
    const char *ref = NULL;
    uint64_t at;
    int ret;

    if (argc > 1 && cli_is_help(argv[1])) {
        cli_report_usage(stdout);
        return CLI_OK;
    }
    if ((ret = report_parse_args(argc, argv, &args)))
        goto out;
    if (args.out && cli_chart_name(args.out, "objects", chart, sizeof(chart), &ref)) {
        ret = cli_usage_error("report", "-o: the name is too long");
        goto out;
    }
    if ((ret = cli_state_open("report", &args.st, &scn, &cfg, &rp, &snap, &at)))
        goto out;
    info.scn = scn;
    info.cfg = &cfg;
    info.at = at;
    info.nr_events = at;
    if (args.st.at && report_total_events(scn, &cfg, &info.nr_events)) {
        ret = cli_usage_error("report", "out of memory");
        goto out;
    }
    info.image = ref;
    if (!report_md_session(&md, &info, snap) || (ref && !svg_objects_chart(&svg, snap))) {
        ret = cli_usage_error("report", "out of memory");
        goto out;
    }
    ret = cli_write_report("report", args.out, &md, ref ? chart : NULL, &svg);
out:
    strbuf_release(&md);
    strbuf_release(&svg);
    sim_snapshot_release(snap);
    replay_release(&rp);
    scenario_release(scn);
    free(args.st.variants);
    return ret;
}
