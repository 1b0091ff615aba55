/*
 * routes_export.c: a session's state as the files kernel tools read
 * (docs/api.md "Export", docs/export.md).
 *
 * GET /api/sessions/ID/export?format=slabinfo|sysfs&at=N answers the state
 * at position N (default: the end) as /proc/slabinfo text or as a ustar
 * archive of the /sys/kernel/slab tree, both as downloads; the same
 * builders as `slublab export` (slabinfo.c, sysfs_tree.c), so the CLI and
 * the server agree byte for byte at the same position.  The aliases are
 * those of the session's scenario (its head replay).  Every answer needs
 * a replay from a checkpoint, so the handler runs on a worker.
 *
 * GET /api/sessions/ID/report.md?at=N is the Markdown report of that state
 * (report_md.c) and report.svg its chart; the report links the chart by the
 * file name the chart's download gets, so the two saved side by side work.
 *
 * GET /api/sessions/ID/export.html?at=N is the whole session as one HTML
 * file that opens offline at position N (export_html.c).
 */
#include "http/routes.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/app.h"
#include "kfiles/kfiles.h"
#include "present/export_html.h"
#include "present/report_md.h"
#include "session/session.h"
#include "present/svg_chart.h"

/*
 * Open the path's session (held and locked in *sp) and its snapshot at the
 * request's "at" (default: the end).  0; else the handler's answer, with
 * nothing held: ROUTE_WOULD_BLOCK (only when !req->may_block) or -1 (the
 * error in @res).
 */
static int export_snapshot(const struct request *req, struct response *res, struct session **sp,
                           uint64_t *at, struct sim_snapshot **snap)
{
    static const struct route_arg args[] = {ROUTE_ARG_POSITION("at")};
    struct strbuf err = STRBUF_INIT;
    struct session *s;
    int given, ret;

    if (!req->may_block)
        return ROUTE_WOULD_BLOCK;
    if (route_open_session(req, res, req->args[0], &s))
        return -1;
    if ((given = route_query_args(req, res, args, 1, at)) < 0) {
        route_close_session(req, s);
        return -1;
    }
    if (!given)
        *at = session_nr_events(s);
    if ((ret = session_snapshot(s, *at, snap, &err))) {
        route_session_error(res, ret, err.len ? strbuf_str(&err) : NULL);
        route_close_session(req, s);
    }
    strbuf_release(&err);
    if (ret)
        return -1;
    *sp = s;
    return 0;
}

/* Move @sb's text into @res as a download named @filename. */
static void export_answer(struct response *res, struct strbuf *sb, const char *type,
                          const char *filename)
{
    res->body = malloc(sb->len ? sb->len : 1);
    if (!res->body) {
        route_error(res, 500, "internal", "out of memory");
        return;
    }
    memcpy(res->body, strbuf_str(sb), sb->len);
    res->len = sb->len;
    res->status = 200;
    res->content_type = type;
    snprintf(res->disposition, sizeof(res->disposition), "attachment; filename=\"%.64s\"",
             filename);
}

int route_session_export(const struct request *req, struct response *res)
{
    const char *format = route_query(req, "format");
    struct sim_snapshot *snap = NULL;
    struct strbuf sb = STRBUF_INIT;
    struct sysfs_tree tree = {0};
    struct session *s;
    char name[80];
    uint64_t at = 0;
    bool sysfs, ok = false;
    int ret;

    if (!format || (strcmp(format, "slabinfo") && strcmp(format, "sysfs")))
        return route_error(
                res, 400, "bad_request",
                "format: slabinfo (/proc/slabinfo) or sysfs (a tar of /sys/kernel/slab)");
    sysfs = !strcmp(format, "sysfs");
    if ((ret = export_snapshot(req, res, &s, &at, &snap)))
        return route_answered(ret);
    if (sysfs) {
        ret = sysfs_tree_build(&tree, snap, &s->run->rp.aliases);
        if (ret == -EINVAL)
            route_error(res, 422, "unprocessable",
                        "a cache is named \".\" or \"..\", which sysfs cannot show");
        else if (ret || !tar_tree(&sb, &tree, "slab"))
            route_error(res, 500, "internal", "out of memory");
        else
            ok = true;
        snprintf(name, sizeof(name), "slab-%s-%" PRIu64 ".tar", req->args[0], at);
    } else if (!slabinfo_text(&sb, snap)) {
        route_error(res, 500, "internal", "out of memory");
    } else {
        ok = true;
        snprintf(name, sizeof(name), "slabinfo-%s-%" PRIu64, req->args[0], at);
    }
    if (ok)
        export_answer(res, &sb, sysfs ? "application/x-tar" : "text/plain; charset=utf-8", name);
    route_close_session(req, s);
    sysfs_tree_release(&tree);
    sim_snapshot_release(snap);
    strbuf_release(&sb);
    return 0;
}

/* report.md and report.svg: @svg chooses the chart. */
static int session_report(const struct request *req, struct response *res, bool svg)
{
    struct report_md_info info = {0};
    struct sim_snapshot *snap = NULL;
    struct strbuf sb = STRBUF_INIT;
    struct session *s;
    char name[96], chart[96];
    uint64_t at = 0;
    bool ok;
    int ret;

    if ((ret = export_snapshot(req, res, &s, &at, &snap)))
        return route_answered(ret);
    snprintf(chart, sizeof(chart), "report-%s-%" PRIu64 "-objects.svg", req->args[0], at);
    snprintf(name, sizeof(name), "report-%s-%" PRIu64 ".md", req->args[0], at);
    info.scn = s->run->scn;
    info.cfg = &s->run->cfg;
    info.at = at;
    info.nr_events = session_nr_events(s);
    info.image = chart;
    ok = svg ? svg_objects_chart(&sb, snap) : report_md_session(&sb, &info, snap);
    route_close_session(req, s);
    if (!ok)
        route_error(res, 500, "internal", "out of memory");
    else
        export_answer(res, &sb, svg ? "image/svg+xml" : "text/markdown; charset=utf-8",
                      svg ? chart : name);
    sim_snapshot_release(snap);
    strbuf_release(&sb);
    return 0;
}

int route_session_report(const struct request *req, struct response *res)
{
    return session_report(req, res, false);
}

int route_session_report_svg(const struct request *req, struct response *res)
{
    return session_report(req, res, true);
}

int route_session_export_html(const struct request *req, struct response *res)
{
    const struct export_html_dirs dirs = {req->app->cfg.web_dir, req->app->cfg.vendor_dir};
    struct strbuf sb = STRBUF_INIT, err = STRBUF_INIT;
    struct session *s;
    char name[64];
    uint64_t at = 0;
    int q, ret;

    if ((q = route_query_u64(req, res, "at", UINT64_MAX, &at)) < 0)
        return 0;
    if (!req->may_block)
        return ROUTE_WOULD_BLOCK;
    if ((ret = route_open_session(req, res, req->args[0], &s)))
        return route_answered(ret);
    ret = export_html(s, &dirs, at, &sb, &err);
    route_close_session(req, s);
    if (ret == -E2BIG)
        route_error(res, 422, "unprocessable", "%s", strbuf_str(&err));
    else if (ret == -ENOENT)
        route_error(res, 500, "internal", "%s", strbuf_str(&err));
    else if (ret)
        route_session_error(res, ret, err.len ? strbuf_str(&err) : NULL);
    else {
        snprintf(name, sizeof(name), "slublab-%s.html", req->args[0]);
        export_answer(res, &sb, "text/html; charset=utf-8", name);
    }
    strbuf_release(&sb);
    strbuf_release(&err);
    return 0;
}
