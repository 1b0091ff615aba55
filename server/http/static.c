/*
 * static.c: the UI's files from web/, and GET /vendor/chart.umd.js from
 * the npm package (the one path outside /api/ and web/).
 *
 * A path is served only when every segment is a plain name (no "..", no
 * empty or hidden segment, no backslash or control character), its
 * extension has a known content type, and the file it resolves to, symlinks
 * followed, is a regular file inside the web directory.  "/" is
 * "/index.html".  Files are read whole (at most STATIC_MAX_BYTES) for each
 * request: they are few and small, and nothing is cached that could go
 * stale while the UI is being edited.
 *
 * The bundle (scripts/bundle-web.mjs) puts a precompressed FILE.br and
 * FILE.gz beside each text file: the first the client's Accept-Encoding
 * takes is sent instead, with its Content-Encoding (no compression at
 * request time; the development modules have none and go as they are).
 * Every file has an ETag (its size and modification time, and the
 * encoding), and an If-None-Match that names it gets a 304 without the
 * body.  Files under /assets/ have content-hashed names, so they are sent
 * `immutable`; the rest `no-cache`, revalidated by the ETag.
 */
#include "http/routes.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "http/app.h"

#define STATIC_MAX_BYTES (16u << 20)

struct content_type {
    const char *ext;
    const char *type;
};

static const struct content_type types[] = {
        {".html", "text/html; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".mjs", "text/javascript; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".json", "application/json"},
        {".map", "application/json"},
        {".svg", "image/svg+xml"},
        {".png", "image/png"},
        {".ico", "image/x-icon"},
        {".txt", "text/plain; charset=utf-8"},
        {".woff2", "font/woff2"},
};

static const char *static_type(const char *path)
{
    const char *dot = strrchr(path, '.');
    size_t i;

    if (!dot || strchr(dot, '/'))
        return NULL;
    for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        if (!strcmp(dot, types[i].ext))
            return types[i].type;
    return NULL;
}

/* Every segment a plain name: no "", ".", ".." or hidden names, no odd bytes. */
static bool static_path_ok(const char *path)
{
    const char *p = path;

    if (*p != '/' || strlen(path) > 512)
        return false;
    while (*p == '/') {
        const char *seg = ++p;

        while (*p && *p != '/') {
            unsigned char c = (unsigned char)*p;

            if (c < 0x20 || c == 0x7f || c == '\\' || c == ':')
                return false;
            p++;
        }
        if (p == seg || seg[0] == '.')
            return false;
    }
    return *p == '\0';
}

/* @st of @file if it resolves to a regular file inside @root: 0 or -ENOENT. */
static int static_find(const char *root, const char *file, char *real_file, struct stat *st)
{
    char real_root[PATH_MAX];
    size_t rl;

    if (!realpath(root, real_root) || !realpath(file, real_file))
        return -ENOENT;
    rl = strlen(real_root);
    if (strncmp(real_file, real_root, rl) != 0 || real_file[rl] != '/')
        return -ENOENT;
    if (stat(real_file, st) || !S_ISREG(st->st_mode))
        return -ENOENT;
    return 0;
}

/* Read @real_file, of @st's size. */
static int static_read(const char *real_file, const struct stat *st, char **out, size_t *len)
{
    FILE *f;
    char *buf;

    if ((unsigned long long)st->st_size > STATIC_MAX_BYTES)
        return -EFBIG;
    if (!(f = fopen(real_file, "rb")))
        return -ENOENT;
    buf = malloc((size_t)st->st_size + 1);
    if (!buf) {
        fclose(f);
        return -ENOMEM;
    }
    *len = fread(buf, 1, (size_t)st->st_size, f);
    fclose(f);
    *out = buf;
    return 0;
}

/*
 * True when Accept-Encoding @ae takes @coding: named (case aside) with no
 * q, or a q above 0 (RFC 9110 12.5.3; "*" is not taken for a coding).
 */
static bool static_accepts(const char *ae, const char *coding)
{
    const size_t n = strlen(coding);
    const char *p = ae;

    while (p && *p) {
        const char *end;

        p += strspn(p, " \t,");
        end = p + strcspn(p, ",");
        if ((size_t)(end - p) >= n && !strncasecmp(p, coding, n) &&
            (p[n] == ',' || p[n] == ';' || p[n] == ' ' || p[n] == '\t' || p[n] == '\0')) {
            const char *q = p + n;

            q += strspn(q, " \t");
            if (*q != ';')
                return true;
            q++;
            q += strspn(q, " \t");
            if (strncasecmp(q, "q=", 2) != 0)
                return true;
            return strtod(q + 2, NULL) > 0;
        }
        p = end;
    }
    return false;
}

/* True when If-None-Match @inm names @etag, or is "*". */
static bool static_matches(const char *inm, const char *etag)
{
    const size_t n = strlen(etag);
    const char *p = inm;

    while (p && *p) {
        p += strspn(p, " \t,");
        if (*p == '*')
            return true;
        if (!strncmp(p, "W/", 2))
            p += 2;
        if (!strncmp(p, etag, n) && (p[n] == ',' || p[n] == ' ' || p[n] == '\t' || p[n] == '\0'))
            return true;
        p += strcspn(p, ",");
    }
    return false;
}

/* The precompressed files a client may take, best first. */
static const struct {
    const char *coding, *ext, *tag;
} codings[] = {{"br", ".br", "br"}, {"gzip", ".gz", "gz"}};

int route_static(const struct request *req, struct response *res)
{
    const struct app *app = req->app;
    const char *path = req->path, *root = app->cfg.web_dir, *type, *tag = "", *encoding = NULL;
    char file[1200], real[PATH_MAX], zreal[PATH_MAX], etag[sizeof(res->etag)];
    struct stat st, zst;
    char *body = NULL;
    size_t len = 0, i;
    int err;

    if (strcmp(req->method, "GET") != 0) {
        route_error(res, 405, "method_not_allowed", "only GET and HEAD here");
        snprintf(res->allow, sizeof(res->allow), "GET, HEAD");
        return 0;
    }
    if (!strcmp(path, "/vendor/chart.umd.js")) {
        root = app->cfg.vendor_dir;
        path = "/chart.umd.js";
    } else if (!strncmp(path, "/vendor/", 8)) {
        return route_error(res, 404, "not_found", "no such file");
    } else if (!strcmp(path, "/")) {
        path = "/index.html";
    }
    if (!static_path_ok(path) || !(type = static_type(path)))
        return route_error(res, 404, "not_found", "no such file");
    snprintf(file, sizeof(file), "%s%s", root, path);
    if (static_find(root, file, real, &st))
        return route_error(res, 404, "not_found", "no such file");
    for (i = 0; i < sizeof(codings) / sizeof(codings[0]) && !encoding; i++) {
        char zipped[sizeof(file) + 4];

        if (!req->accept_encoding || !static_accepts(req->accept_encoding, codings[i].coding))
            continue;
        snprintf(zipped, sizeof(zipped), "%s%s", file, codings[i].ext);
        if (!static_find(root, zipped, zreal, &zst)) {
            memcpy(real, zreal, sizeof(real));
            st = zst;
            encoding = codings[i].coding;
            tag = codings[i].tag;
        }
    }
    snprintf(etag, sizeof(etag), "\"%llx-%llx%s%s\"", (unsigned long long)st.st_size,
             (unsigned long long)st.st_mtim.tv_sec * 1000000000ull +
                     (unsigned long long)st.st_mtim.tv_nsec,
             *tag ? "-" : "", tag);
    if (req->if_none_match && static_matches(req->if_none_match, etag)) {
        res->status = 304;
    } else {
        err = static_read(real, &st, &body, &len);
        if (err == -ENOMEM)
            return route_error(res, 503, "busy", "out of memory");
        if (err)
            return route_error(res, 404, "not_found", "no such file");
        res->status = 200;
        res->body = body;
        res->len = len;
    }
    res->content_type = type;
    res->cache = true;
    res->immutable = !strncmp(path, "/assets/", 8);
    res->encoding = encoding;
    memcpy(res->etag, etag, sizeof(etag));
    return 0;
}
