/*
 * export_html.c: one self-contained HTML file of a session, for reading
 * offline (GET /api/sessions/ID/export.html; docs/export.md).
 *
 * The file is the UI itself, made to run from file:// without a server:
 * index.html's body, app.css inlined, the UI's code as text: the bundle's
 * assets/ (scripts/bundle-web.mjs: its chunks and Chart.js) when the page
 * served is the bundle, else the ES modules and Chart.js (read from the
 * vendor directory at export time, never committed),
 * in a JSON document (every '<' written as \u003c, so no text inside it
 * can close its <script> element), the session as the API serves it (its
 * description, log, names, every event and the state at every position) in
 * a second one, gzip-compressed and in base64, and web/offline/loader.js,
 * which inflates it, answers the UI's requests from it and starts the
 * modules from blob: URLs.
 *
 * States are the bulk of a session: every EXPORT_HTML_KEYFRAME-th is kept
 * whole, the others as the operations that make the previous one into them
 * (json_delta.h), or whole again when those would be half as long as a
 * whole one.  They are made in one forward replay (json_position_walk())
 * and compressed as they come, so the server holds the compressed file and
 * two states, never every state.  A session longer than
 * EXPORT_HTML_MAX_EVENTS events is refused before any work, and one whose
 * copy would pass EXPORT_HTML_MAX_BYTES when it does, with a message.
 */
#include "present/export_html.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <zlib.h>

#include "base/blob.h"
#include "base/grow.h"
#include "present/json_delta.h"
#include "present/json_session.h"
#include "present/json_state.h"

/* Append file @dir/@rel to @out; 0, -ENOENT or -ENOMEM. */
static int html_read(const char *dir, const char *rel, struct strbuf *out)
{
    char path[4096], buf[65536];
    size_t n;
    FILE *f;

    if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, rel) >= sizeof(path) ||
        !(f = fopen(path, "rb")))
        return -ENOENT;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
        strbuf_append(out, buf, n);
    fclose(f);
    return strbuf_failed(out) ? -ENOMEM : 0;
}

/* Append file @dir/@rel to @out, or name it in @err when it cannot be read: 0 or -ENOENT. */
static int html_include(const char *dir, const char *rel, struct strbuf *out, struct strbuf *err)
{
    if (!html_read(dir, rel, out))
        return 0;
    strbuf_printf(err, "cannot read %s/%s", dir, rel);
    return -ENOENT;
}

/* Append @json with every '<' as \u003c (valid inside JSON strings, the only place it occurs). */
static void html_json(struct strbuf *out, const char *json, size_t len)
{
    size_t i, start = 0;

    for (i = 0; i < len; i++) {
        if (json[i] != '<')
            continue;
        strbuf_append(out, json + start, i - start);
        strbuf_puts(out, "\\u003c");
        start = i + 1;
    }
    strbuf_append(out, json + start, len - start);
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Add every .js file under @web/@rel to @files as "rel/name": text, in name order. */
static int html_modules(const char *web, const char *rel, cJSON *files)
{
    char path[4096], sub[1024];
    char **names = NULL, **n;
    size_t nr = 0, cap = 0, i;
    struct dirent *de;
    int err = 0;
    DIR *d;

    snprintf(path, sizeof(path), "%s/%s", web, rel);
    if (!(d = opendir(path)))
        return -ENOENT;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        if (!(n = grow_array(names, &cap, nr + 1, sizeof(*n), 64))) {
            err = -ENOMEM;
            break;
        }
        names = n;
        if (!(names[nr] = strdup(de->d_name))) {
            err = -ENOMEM;
            break;
        }
        nr++;
    }
    closedir(d);
    if (!err)
        qsort(names, nr, sizeof(*names), name_cmp);
    for (i = 0; !err && i < nr; i++) {
        size_t len = strlen(names[i]);
        struct stat st;

        if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", rel, names[i]) >= sizeof(sub))
            continue;
        snprintf(path, sizeof(path), "%s/%s", web, sub);
        if (stat(path, &st))
            continue;
        if (S_ISDIR(st.st_mode)) {
            err = html_modules(web, sub, files);
        } else if (len > 3 && !strcmp(names[i] + len - 3, ".js")) {
            struct strbuf text = STRBUF_INIT;

            err = html_read(web, sub, &text);
            if (!err && !cJSON_AddItemToObject(files, sub, cJSON_CreateString(strbuf_str(&text))))
                err = -ENOMEM;
            strbuf_release(&text);
        }
    }
    for (i = 0; i < nr; i++)
        free(names[i]);
    free(names);
    return err;
}

/* Add the modules of @dirs->web/js and Chart.js from @dirs->vendor to @files. */
static int html_dev_files(const struct export_html_dirs *dirs, cJSON *files, struct strbuf *err)
{
    struct strbuf chart = STRBUF_INIT;
    int ret;

    if ((ret = html_read(dirs->vendor, "chart.umd.js", &chart))) {
        strbuf_printf(err, "cannot read %s/chart.umd.js (run scripts/setup: npm installs chart.js)",
                      dirs->vendor);
    } else if (!cJSON_AddItemToObject(files, "vendor/chart.umd.js",
                                      cJSON_CreateString(strbuf_str(&chart)))) {
        ret = -ENOMEM;
    } else if ((ret = html_modules(dirs->web, "js", files))) {
        strbuf_printf(err, "cannot read the UI's modules in %s/js", dirs->web);
    }
    strbuf_release(&chart);
    return ret;
}

/*
 * The #slublab-files document: the bundle's assets/ (its chunks and
 * Chart.js) when the page is the bundle, else the modules and Chart.js.
 */
static int html_files(const struct export_html_dirs *dirs, struct strbuf *out, struct strbuf *err)
{
    cJSON *files = cJSON_CreateObject();
    char *text = NULL;
    int ret;

    if (!files)
        return -ENOMEM;
    ret = html_modules(dirs->web, "assets", files);
    if (ret == -ENOENT)
        ret = html_dev_files(dirs, files, err);
    else if (ret)
        strbuf_printf(err, "cannot read the UI's bundle in %s/assets", dirs->web);
    if (!ret && !(text = cJSON_PrintUnformatted(files)))
        ret = -ENOMEM;
    if (!ret)
        html_json(out, text, strlen(text));
    cJSON_free(text);
    cJSON_Delete(files);
    return ret;
}

/* ---- the data document, compressed as it is written ------------------------------- */

/* A gzip stream whose output is appended to @out in base64. */
struct gz {
    z_stream z;
    struct strbuf *out;
    unsigned char carry[3]; /* compressed bytes not yet in base64 */
    size_t nr_carry;
    uint64_t written; /* base64 bytes appended */
    int err;
};

static void gz_base64(struct gz *g, const unsigned char *p, size_t len, bool last)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char buf[4096];
    size_t n = 0;

    while (len || (last && g->nr_carry)) {
        unsigned v;

        while (len && g->nr_carry < 3) {
            g->carry[g->nr_carry++] = *p++;
            len--;
        }
        if (g->nr_carry < 3 && !last)
            break;
        v = (unsigned)g->carry[0] << 16 | (g->nr_carry > 1 ? (unsigned)g->carry[1] << 8 : 0) |
            (g->nr_carry > 2 ? g->carry[2] : 0);
        buf[n++] = b64[v >> 18 & 63];
        buf[n++] = b64[v >> 12 & 63];
        buf[n++] = g->nr_carry > 1 ? b64[v >> 6 & 63] : '=';
        buf[n++] = g->nr_carry > 2 ? b64[v & 63] : '=';
        g->nr_carry = 0;
        if (n + 4 > sizeof(buf)) {
            strbuf_append(g->out, buf, n);
            g->written += n;
            n = 0;
        }
    }
    strbuf_append(g->out, buf, n);
    g->written += n;
}

static int gz_init(struct gz *g, struct strbuf *out)
{
    memset(g, 0, sizeof(*g));
    g->out = out;
    return deflateInit2(&g->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK ? 0 : -ENOMEM;
}

static int gz_run(struct gz *g, const void *data, size_t len, int flush)
{
    unsigned char buf[65536];
    int rc;

    if (g->err)
        return g->err;
    g->z.next_in = (unsigned char *)(uintptr_t)data;
    g->z.avail_in = (uInt)len;
    do {
        g->z.next_out = buf;
        g->z.avail_out = sizeof(buf);
        rc = deflate(&g->z, flush);
        if (rc == Z_STREAM_ERROR)
            return g->err = -ENOMEM;
        gz_base64(g, buf, sizeof(buf) - g->z.avail_out, flush == Z_FINISH && rc == Z_STREAM_END);
    } while (g->z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
    if (strbuf_failed(g->out))
        g->err = -ENOMEM;
    return g->err;
}

static int gz_write(struct gz *g, const char *text, size_t len)
{
    return len ? gz_run(g, text, len, Z_NO_FLUSH) : g->err;
}

static int gz_puts(struct gz *g, const char *text)
{
    return gz_write(g, text, strlen(text));
}

static int gz_finish(struct gz *g)
{
    int ret = gz_run(g, NULL, 0, Z_FINISH);

    deflateEnd(&g->z);
    return ret;
}

/* Write @json printed, then free it; -ENOMEM when it is NULL or cannot be printed. */
static int gz_json(struct gz *g, const char *key, cJSON *json)
{
    char *text = json ? cJSON_PrintUnformatted(json) : NULL;
    char head[64];

    cJSON_Delete(json);
    if (!text)
        return -ENOMEM;
    snprintf(head, sizeof(head), ",\"%s\":", key);
    gz_puts(g, head);
    gz_puts(g, text);
    cJSON_free(text);
    return g->err;
}

/* Write file @dir/@rel; 0, -ENOENT or -ENOMEM. */
static int gz_file(struct gz *g, const char *dir, const char *rel)
{
    struct strbuf text = STRBUF_INIT;
    int ret = html_read(dir, rel, &text);

    if (!ret)
        ret = gz_write(g, strbuf_str(&text), text.len);
    strbuf_release(&text);
    return ret;
}

/* The states, one per position: whole, or the delta from the one before. */
struct states {
    struct gz *g;
    struct strbuf *err;
    uint64_t end;
    cJSON *prev;        /* the state before, as a tree */
    size_t whole_len;   /* printed length of the last state written whole */
    uint64_t nr_whole;  /* states written whole */
    uint64_t delta_len; /* bytes of the deltas */
};

static int states_each(uint64_t at, cJSON *doc, void *arg)
{
    struct states *st = arg;
    cJSON *ops = NULL;
    char *text = NULL;
    size_t len = 0;
    int ret = 0;

    if (st->prev && at % EXPORT_HTML_KEYFRAME) {
        if (!(ops = cJSON_CreateArray()) || json_delta(st->prev, doc, ops) ||
            !(text = cJSON_PrintUnformatted(ops)))
            ret = -ENOMEM;
        len = text ? strlen(text) : 0;
        if (!ret && 2 * len > st->whole_len) { /* as long as half a whole one: whole */
            cJSON_free(text);
            text = NULL;
        }
    }
    if (!ret && !text) {
        if (!(text = cJSON_PrintUnformatted(doc)))
            ret = -ENOMEM;
        len = st->whole_len = text ? strlen(text) : 0;
        st->nr_whole++;
    } else if (!ret) {
        st->delta_len += len;
    }
    if (!ret) {
        if (at)
            gz_puts(st->g, ",");
        ret = gz_write(st->g, text, len);
    }
    cJSON_free(text);
    cJSON_Delete(ops);
    cJSON_Delete(st->prev);
    st->prev = doc;
    if (!ret && st->g->written > EXPORT_HTML_MAX_BYTES) {
        strbuf_printf(st->err,
                      "the session is too long for an offline copy: it passes %u MiB by step "
                      "%" PRIu64 " of %" PRIu64,
                      EXPORT_HTML_MAX_BYTES >> 20, at, st->end);
        ret = -E2BIG;
    }
    return ret;
}

/* The #slublab-data document, gzip-compressed, in base64. */
static int html_data(struct session *s, const struct export_html_dirs *dirs, uint64_t at,
                     struct strbuf *out, struct strbuf *err)
{
    uint64_t end = session_nr_events(s), from;
    struct states st = {.end = end, .err = err};
    char head[96];
    struct gz g;
    cJSON *o, *sc;
    int ret;

    if (gz_init(&g, out))
        return -ENOMEM;
    st.g = &g;
    snprintf(head, sizeof(head), "{\"format\":%u,\"keyframe\":%u,\"at\":%" PRIu64,
             EXPORT_HTML_FORMAT, EXPORT_HTML_KEYFRAME, at);
    gz_puts(&g, head);
    if ((ret = gz_json(&g, "info", json_session_info(s))) ||
        (ret = gz_json(&g, "log", json_session_log(s))) ||
        (ret = gz_json(&g, "names", json_session_names(s))))
        goto out;
    o = cJSON_CreateObject();
    if (!o || !json_put(o, "status", cJSON_CreateString("ok")) ||
        !json_put(o, "version", cJSON_CreateString(SIM_VERSION)) ||
        !json_put(o, "offline_max_events", json_uint(EXPORT_HTML_MAX_EVENTS))) {
        cJSON_Delete(o);
        ret = -ENOMEM;
        goto out;
    }
    if ((ret = gz_json(&g, "health", o)))
        goto out;
    o = cJSON_CreateObject();
    sc = cJSON_CreateObject();
    if (!o || !sc || !json_put(sc, "name", cJSON_CreateString(s->run->scn->name)) ||
        !json_put(sc, "title", cJSON_CreateString(s->run->scn->title)) ||
        !json_put(o, "scenarios", cJSON_CreateArray()) ||
        !cJSON_AddItemToArray(cJSON_GetObjectItem(o, "scenarios"), sc)) {
        cJSON_Delete(o);
        ret = -ENOMEM;
        goto out;
    }
    if ((ret = gz_json(&g, "scenarios", o)))
        goto out;
    gz_puts(&g, ",\"scenario\":");
    gz_write(&g, s->run->scenario_text, s->run->scenario_len);
    gz_puts(&g, ",\"texts\":");
    if ((ret = gz_file(&g, dirs->web, "data/texts.json"))) {
        if (ret == -ENOENT)
            strbuf_printf(err, "cannot read %s/data/texts.json", dirs->web);
        goto out;
    }
    /* the code panel's kernel source lines: a web directory without the
     * table makes a copy whose panel has no links */
    gz_puts(&g, ",\"sourceLines\":");
    ret = gz_file(&g, dirs->web, "data/source-lines.json");
    if (ret == -ENOENT)
        ret = gz_puts(&g, "null");
    if (ret)
        goto out;
    gz_puts(&g, ",\"events\":[");
    for (from = 0; from < end; from += SESSION_MAX_RANGE) {
        uint64_t to = end - from > SESSION_MAX_RANGE ? from + SESSION_MAX_RANGE : end;
        cJSON *r = NULL, *e;

        if ((ret = json_position_events(s, from, to, &r)))
            goto out;
        cJSON_ArrayForEach(e, cJSON_GetObjectItem(r, "events"))
        {
            char *text = cJSON_PrintUnformatted(e);

            if (!text) {
                cJSON_Delete(r);
                ret = -ENOMEM;
                goto out;
            }
            if (e != cJSON_GetObjectItem(r, "events")->child || from)
                gz_puts(&g, ",");
            gz_puts(&g, text);
            cJSON_free(text);
        }
        cJSON_Delete(r);
        if ((ret = g.err))
            goto out;
    }
    gz_puts(&g, "],\"states\":[");
    ret = json_position_walk(s, states_each, &st);
    cJSON_Delete(st.prev);
    if (ret)
        goto out;
    gz_puts(&g, "]}");
    ret = gz_finish(&g);
    return ret ? ret : strbuf_failed(out) ? -ENOMEM : 0;
out:
    deflateEnd(&g.z);
    return ret;
}

/* Append index.html's <body>...</body>. */
static int html_body(const struct export_html_dirs *dirs, struct strbuf *out, struct strbuf *err)
{
    struct strbuf page = STRBUF_INIT;
    const char *a, *b;
    int ret = html_read(dirs->web, "index.html", &page);

    if (ret || !(a = strstr(strbuf_str(&page), "<body")) || !(b = strstr(a, "</body>"))) {
        strbuf_printf(err, "cannot read the body of %s/index.html", dirs->web);
        strbuf_release(&page);
        return ret ? ret : -ENOENT;
    }
    strbuf_append(out, a, (size_t)(b - a) + strlen("</body>"));
    strbuf_release(&page);
    return 0;
}

int export_html(struct session *s, const struct export_html_dirs *dirs, uint64_t at,
                struct strbuf *out, struct strbuf *err)
{
    uint64_t end = session_nr_events(s);
    int ret;

    if (at > end) {
        strbuf_printf(err, "at: %" PRIu64 " is beyond the end (%" PRIu64 " events)", at, end);
        return SESSION_EBADINPUT;
    }
    if (end > EXPORT_HTML_MAX_EVENTS) {
        strbuf_printf(err,
                      "the session is too long for an offline copy: %" PRIu64 " events, at most %u",
                      end, EXPORT_HTML_MAX_EVENTS);
        return -E2BIG;
    }
    strbuf_puts(out, "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                     "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                     "<title>slublab: ");
    for (const char *p = s->run->scn->name; *p; p++) {
        if (*p == '<' || *p == '&')
            strbuf_puts(out, *p == '<' ? "&lt;" : "&amp;");
        else
            strbuf_append(out, p, 1);
    }
    strbuf_puts(out, " (offline copy)</title>\n<style>\n");
    if ((ret = html_include(dirs->web, "css/app.css", out, err)))
        goto out;
    strbuf_puts(out, "</style>\n<script type=\"application/json\" id=\"slublab-files\">");
    if ((ret = html_files(dirs, out, err)))
        goto out;
    strbuf_puts(out, "</script>\n<script type=\"application/octet-stream\" id=\"slublab-data\" "
                     "data-encoding=\"gzip+base64\">");
    if ((ret = html_data(s, dirs, at, out, err)))
        goto out;
    strbuf_puts(out, "</script>\n<script>\n");
    if ((ret = html_include(dirs->web, "offline/loader.js", out, err)))
        goto out;
    strbuf_puts(out, "</script>\n</head>\n");
    if ((ret = html_body(dirs, out, err)))
        goto out;
    strbuf_puts(out, "\n</html>\n");
    ret = strbuf_failed(out) ? -ENOMEM : 0;
out:
    return ret;
}
