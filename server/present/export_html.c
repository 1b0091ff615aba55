/*
 * export_html.c: one self-contained HTML file of a session, for reading
 * offline (GET /api/sessions/ID/export.html; docs/export.md).
 *
 * The file is the UI itself, made to run from file:// without a server:
 * index.html's body, app.css inlined, the UI's ES modules and Chart.js
 * (read from the vendor directory at export time, never committed) as text
 * in a JSON document, the session as the API serves it (its description,
 * log, names, every event and the state JSON at every position) in a
 * second one, and web/offline/loader.js, which answers the UI's requests
 * from that data and starts the modules from blob: URLs.  Both JSON
 * documents have every '<' written as \u003c, so no text inside them can
 * close their <script> element.
 *
 * The state at every position is stored whole, so the file grows with the
 * session: a session longer than EXPORT_HTML_MAX_EVENTS events, or whose
 * states pass EXPORT_HTML_MAX_BYTES, is refused with a message.
 */
#include "present/export_html.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/blob.h"
#include "present/json_state.h"
#include "present/json_session.h"

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
    char **names = NULL;
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
        if (nr == cap) {
            char **n = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof(*n));

            if (!n) {
                err = -ENOMEM;
                break;
            }
            names = n;
        }
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

/* The #slublab-files document: the modules and Chart.js. */
static int html_files(const struct export_html_dirs *dirs, struct strbuf *out, struct strbuf *err)
{
    cJSON *files = cJSON_CreateObject();
    struct strbuf chart = STRBUF_INIT;
    char *text = NULL;
    int ret;

    if (!files)
        return -ENOMEM;
    if ((ret = html_read(dirs->vendor, "chart.umd.js", &chart))) {
        strbuf_printf(err, "cannot read %s/chart.umd.js (run scripts/setup: npm installs chart.js)",
                      dirs->vendor);
        goto out;
    }
    if (!cJSON_AddItemToObject(files, "vendor/chart.umd.js",
                               cJSON_CreateString(strbuf_str(&chart)))) {
        ret = -ENOMEM;
        goto out;
    }
    if ((ret = html_modules(dirs->web, "js", files))) {
        strbuf_printf(err, "cannot read the UI's modules in %s/js", dirs->web);
        goto out;
    }
    if (!(text = cJSON_PrintUnformatted(files))) {
        ret = -ENOMEM;
        goto out;
    }
    html_json(out, text, strlen(text));
out:
    cJSON_free(text);
    cJSON_Delete(files);
    strbuf_release(&chart);
    return ret;
}

/* Append @json printed, then free it; -ENOMEM when it is NULL or cannot be printed. */
static int html_put(struct strbuf *out, const char *key, cJSON *json)
{
    char *text = json ? cJSON_PrintUnformatted(json) : NULL;

    cJSON_Delete(json);
    if (!text)
        return -ENOMEM;
    strbuf_printf(out, ",\"%s\":", key);
    strbuf_puts(out, text);
    cJSON_free(text);
    return 0;
}

/* The #slublab-data document (before '<' escaping). */
static int html_data(struct session *s, const struct export_html_dirs *dirs, uint64_t at,
                     struct strbuf *out, struct strbuf *err)
{
    uint64_t end = session_nr_events(s), from, bytes = 0;
    cJSON *o, *sc;
    int ret;

    strbuf_printf(out, "{\"at\":%" PRIu64, at);
    if ((ret = html_put(out, "info", json_session_info(s))) ||
        (ret = html_put(out, "log", json_session_log(s))) ||
        (ret = html_put(out, "names", json_session_names(s))))
        return ret;
    o = cJSON_CreateObject();
    if (!o || !json_put(o, "status", cJSON_CreateString("ok")) ||
        !json_put(o, "version", cJSON_CreateString(SIM_VERSION))) {
        cJSON_Delete(o);
        return -ENOMEM;
    }
    if ((ret = html_put(out, "health", o)))
        return ret;
    o = cJSON_CreateObject();
    sc = cJSON_CreateObject();
    if (!o || !sc || !json_put(sc, "name", cJSON_CreateString(s->run->scn->name)) ||
        !json_put(sc, "title", cJSON_CreateString(s->run->scn->title)) ||
        !json_put(o, "scenarios", cJSON_CreateArray()) ||
        !cJSON_AddItemToArray(cJSON_GetObjectItem(o, "scenarios"), sc)) {
        cJSON_Delete(o);
        return -ENOMEM;
    }
    if ((ret = html_put(out, "scenarios", o)))
        return ret;
    strbuf_puts(out, ",\"scenario\":");
    strbuf_append(out, s->run->scenario_text, s->run->scenario_len);
    strbuf_puts(out, ",\"texts\":");
    if (html_read(dirs->web, "data/texts.json", out)) {
        strbuf_printf(err, "cannot read %s/data/texts.json", dirs->web);
        return -ENOENT;
    }
    /* the code panel's kernel source lines: a web directory without the
     * table makes a copy whose panel has no links */
    strbuf_puts(out, ",\"sourceLines\":");
    ret = html_read(dirs->web, "data/source-lines.json", out);
    if (ret == -ENOENT)
        strbuf_puts(out, "null");
    else if (ret)
        return ret;
    strbuf_puts(out, ",\"events\":[");
    for (from = 0; from < end; from += SESSION_MAX_RANGE) {
        uint64_t to = end - from > SESSION_MAX_RANGE ? from + SESSION_MAX_RANGE : end;
        cJSON *r = NULL, *e;

        if ((ret = json_position_events(s, from, to, &r)))
            return ret;
        cJSON_ArrayForEach(e, cJSON_GetObjectItem(r, "events"))
        {
            char *text = cJSON_PrintUnformatted(e);

            if (!text) {
                cJSON_Delete(r);
                return -ENOMEM;
            }
            if (e != cJSON_GetObjectItem(r, "events")->child || from)
                strbuf_puts(out, ",");
            strbuf_puts(out, text);
            cJSON_free(text);
        }
        cJSON_Delete(r);
    }
    strbuf_puts(out, "],\"states\":[");
    for (from = 0; from <= end; from++) {
        struct blob *b = NULL;

        if ((ret = json_position_state(s, from, 0, &b, err)))
            return ret;
        bytes += b->len;
        if (from)
            strbuf_puts(out, ",");
        strbuf_append(out, b->text, b->len);
        blob_put(b);
        if (bytes > EXPORT_HTML_MAX_BYTES) {
            strbuf_printf(err,
                          "the session is too long for an offline copy: its states pass %u MiB "
                          "by step %" PRIu64 " of %" PRIu64,
                          EXPORT_HTML_MAX_BYTES >> 20, from, end);
            return -E2BIG;
        }
    }
    strbuf_puts(out, "]}");
    return strbuf_failed(out) ? -ENOMEM : 0;
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
    struct strbuf data = STRBUF_INIT;
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
    if (html_read(dirs->web, "css/app.css", out)) {
        strbuf_printf(err, "cannot read %s/css/app.css", dirs->web);
        ret = -ENOENT;
        goto out;
    }
    strbuf_puts(out, "</style>\n<script type=\"application/json\" id=\"slublab-files\">");
    if ((ret = html_files(dirs, out, err)))
        goto out;
    strbuf_puts(out, "</script>\n<script type=\"application/json\" id=\"slublab-data\">");
    if ((ret = html_data(s, dirs, at, &data, err)))
        goto out;
    html_json(out, strbuf_str(&data), data.len);
    strbuf_puts(out, "</script>\n<script>\n");
    if (html_read(dirs->web, "offline/loader.js", out)) {
        strbuf_printf(err, "cannot read %s/offline/loader.js", dirs->web);
        ret = -ENOENT;
        goto out;
    }
    strbuf_puts(out, "</script>\n</head>\n");
    if ((ret = html_body(dirs, out, err)))
        goto out;
    strbuf_puts(out, "\n</html>\n");
    ret = strbuf_failed(out) ? -ENOMEM : 0;
out:
    strbuf_release(&data);
    return ret;
}
