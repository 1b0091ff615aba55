/*
 * cmd_report.c: `slublab report FILE`: a Markdown report of the state of a
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

#include "base/strbuf.h"
#include "kfiles/kfiles.h"
#include "present/report_md.h"
#include "present/svg_chart.h"
#include "scenario/replay.h"

struct report_args {
    struct cli_state_args st;
    const char *out; /* NULL: stdout */
};

static const struct cli_opt report_opts[] = {
        {CLI_TO(struct report_args, out), .short_name = 'o', .arg = "OUT.md",
         .help = "write the report to OUT.md and its chart to OUT-objects.svg (default: the "
                 "report on stdout, no chart)"},
        {0},
};

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
    int ret = cli_write_text(cmd, out, md);

    if (ret || !out || !chart_path)
        return ret;
    return cli_write_text(cmd, chart_path, svg);
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

static int report_main(int argc, char **argv)
{
    struct report_args args = {0};
    struct strbuf md = STRBUF_INIT, svg = STRBUF_INIT;
    struct report_md_info info = {0};
    struct sim_snapshot *snap = NULL;
    struct cli_replay r = {0};
    char chart[4096];
    const char *ref = NULL;
    uint64_t at;
    int ret;

    if (!cli_parse(&cmd_report, argc, argv, &args, &ret))
        return ret;
    if (args.out && !args.out[0])
        return cli_usage_error("report", "-o wants a file name");
    if (args.out && cli_chart_name(args.out, "objects", chart, sizeof(chart), &ref)) {
        ret = cli_usage_error("report", "-o: the name is too long");
        goto out;
    }
    if ((ret = cli_state_open("report", &args.st, &r, &snap, &at)))
        goto out;
    info.scn = r.scn;
    info.cfg = &r.cfg;
    info.at = at;
    info.nr_events = at;
    if (args.st.at.given && report_total_events(r.scn, &r.cfg, &info.nr_events)) {
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
    cli_replay_release(&r);
    return ret;
}

const struct cli_command cmd_report = {
        .name = "report",
        .pos = CLI_POS_SCENARIO(struct report_args, st.file),
        .groups = CLI_STATE_GROUPS(struct report_args, report_opts),
        .run = report_main,
};
