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
 */
#include "http/routes.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Read @file if it resolves to a regular file inside @root. */
static int static_read(const char *root, const char *file, char **out, size_t *len)
{
    char real_root[PATH_MAX], real_file[PATH_MAX];
    struct stat st;
    size_t rl;
    FILE *f;
    char *buf;

    if (!realpath(root, real_root) || !realpath(file, real_file))
        return -ENOENT;
    rl = strlen(real_root);
    if (strncmp(real_file, real_root, rl) != 0 || real_file[rl] != '/')
        return -ENOENT;
    if (stat(real_file, &st) || !S_ISREG(st.st_mode))
        return -ENOENT;
    if ((unsigned long long)st.st_size > STATIC_MAX_BYTES)
        return -EFBIG;
    if (!(f = fopen(real_file, "rb")))
        return -ENOENT;
    buf = malloc((size_t)st.st_size + 1);
    if (!buf) {
        fclose(f);
        return -ENOMEM;
    }
    *len = fread(buf, 1, (size_t)st.st_size, f);
    fclose(f);
    *out = buf;
    return 0;
}

int route_static(const struct request *req, struct response *res)
{
    const struct app *app = req->app;
    const char *path = req->path, *root = app->cfg.web_dir, *type;
    char file[1200];
    char *body = NULL;
    size_t len = 0;
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
    err = static_read(root, file, &body, &len);
    if (err == -ENOMEM)
        return route_error(res, 503, "busy", "out of memory");
    if (err)
        return route_error(res, 404, "not_found", "no such file");
    res->status = 200;
    res->content_type = type;
    res->body = body;
    res->len = len;
    res->cache = true;
    return 0;
}
