/*
 * cmd_export_static.c: `slublab export-static DIR`: the lab as a folder of
 * static files, which any static host serves (a university web space,
 * GitHub Pages, `python3 -m http.server`) with no slublab process behind
 * it (docs/teaching.md, docs/wasm.md).
 *
 * DIR gets the UI's production bundle as the server serves it (the
 * precompressed .br and .gz copies left out: a static host compresses, or
 * not, by itself), its index.html with one more script before the UI's,
 * static/boot.js (web/js/static/), which answers the UI's /api/ requests
 * from a Web Worker running the server's routes in WebAssembly
 * (static/worker.js, api.js, wasi.js, traces.js and slublab-api.wasm), and
 * static/files.json, the shipped scenarios and lessons that the module
 * reads.  DIR is created when missing; files of the same names are
 * replaced, others left alone.
 */
#include "cli/cli.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/datadir.h"

#define STATIC_PATH_MAX 4096

struct static_args {
    const char *dir;
    const char *wasm;
    const char *scenarios;
    const char *lessons;
};

static const struct cli_opt static_opts[] = {
        {CLI_TO(struct static_args, wasm), .name = "wasm", .arg = "FILE",
         .help = "the API module (default: wasm/slublab-api.wasm of the build tree whose bundle "
                 "is served)"},
        {CLI_TO(struct static_args, scenarios), .name = "scenarios", .arg = "DIR",
         .help = "the scenarios the lab offers (default: the shipped ones)"},
        {CLI_TO(struct static_args, lessons), .name = "lessons", .arg = "DIR",
         .help = "the lessons, with their exercises/ (default: lessons beside the scenarios)"},
        {0},
};

/* The files of the static lab's own code, in web/js/static/. */
static const char *const static_code[] = {"boot.js", "worker.js", "api.js", "wasi.js", "traces.js"};

/* @a "/" @b into @out (STATIC_PATH_MAX bytes); false after saying it is too long. */
static bool path_of(char *out, const char *a, const char *b)
{
    if ((size_t)snprintf(out, STATIC_PATH_MAX, "%s/%s", a, b) < STATIC_PATH_MAX)
        return true;
    fprintf(stderr, "slublab export-static: %s/%s: the path is too long\n", a, b);
    return false;
}

/* Read @path whole into *out (NUL-terminated), its length in *len.  0 or -errno. */
static int read_all(const char *path, char **out, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0, got;
    int ret = 0;

    if (!f)
        return -errno;
    do {
        if (n + 65536 + 1 > cap) {
            char *p = realloc(buf, cap = (n + 65536 + 1) * 2);

            if (!p) {
                ret = -ENOMEM;
                break;
            }
            buf = p;
        }
        n += got = fread(buf + n, 1, 65536, f);
    } while (got);
    if (!ret && ferror(f))
        ret = -EIO;
    fclose(f);
    if (ret) {
        free(buf);
        return ret;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

/* Write @len bytes at @data to @path.  0, or -1 after saying why. */
static int write_all(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(data, 1, len, f) == len;

    if (f && fclose(f) != 0)
        ok = false;
    if (!ok) {
        fprintf(stderr, "slublab export-static: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Copy @from to @to.  0, or -1 after saying why. */
static int copy_file(const char *from, const char *to)
{
    char *data;
    size_t len;
    int ret = read_all(from, &data, &len);

    if (ret) {
        fprintf(stderr, "slublab export-static: cannot read %s: %s\n", from, strerror(-ret));
        return -1;
    }
    ret = write_all(to, data, len);
    free(data);
    return ret;
}

static int make_dir(const char *path)
{
    if (mkdir(path, 0755) && errno != EEXIST) {
        fprintf(stderr, "slublab export-static: cannot make %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);

    return n >= t && !strcmp(s + n - t, tail);
}

/*
 * Copy directory @from into @to, recursively, leaving out precompressed
 * copies (.br, .gz) and, when @json_into is given, putting every *.json
 * file's text into it under @prefix/NAME instead.  0, or -1 after saying why.
 */
static int copy_tree(const char *from, const char *to, cJSON *json_into, const char *prefix)
{
    DIR *d = opendir(from);
    struct dirent *de;
    int ret = 0;

    if (!d) {
        fprintf(stderr, "slublab export-static: cannot read %s: %s\n", from, strerror(errno));
        return -1;
    }
    if (to && make_dir(to)) {
        closedir(d);
        return -1;
    }
    while (!ret && (de = readdir(d))) {
        char src[STATIC_PATH_MAX], dst[STATIC_PATH_MAX], key[STATIC_PATH_MAX];
        struct stat st;

        if (de->d_name[0] == '.' && strcmp(de->d_name, ".manifest.json") != 0)
            continue;
        if ((size_t)snprintf(src, sizeof(src), "%s/%s", from, de->d_name) >= sizeof(src) ||
            (size_t)snprintf(dst, sizeof(dst), "%s/%s", to ? to : "", de->d_name) >= sizeof(dst) ||
            (size_t)snprintf(key, sizeof(key), "%s/%s", prefix ? prefix : "", de->d_name) >=
                    sizeof(key) ||
            stat(src, &st)) {
            fprintf(stderr, "slublab export-static: cannot read %s\n", src);
            ret = -1;
        } else if (S_ISDIR(st.st_mode)) {
            ret = copy_tree(src, to ? dst : NULL, json_into, key);
        } else if (json_into && ends_with(de->d_name, ".json")) {
            char *text;
            size_t len;
            int err = read_all(src, &text, &len);

            if (err) {
                fprintf(stderr, "slublab export-static: cannot read %s: %s\n", src, strerror(-err));
                ret = -1;
            } else if (!cJSON_AddStringToObject(json_into, key, text)) {
                ret = -1;
            }
            free(text);
        } else if (to && !ends_with(de->d_name, ".br") && !ends_with(de->d_name, ".gz")) {
            ret = copy_file(src, dst);
        }
    }
    closedir(d);
    return ret;
}

/* @dir's parent ("." for a bare name) into @out. */
static void parent_of(const char *dir, char *out, size_t size)
{
    const char *slash = strrchr(dir, '/');

    if (!slash)
        snprintf(out, size, ".");
    else
        snprintf(out, size, "%.*s", (int)(slash - dir), dir);
}

/*
 * DIR/index.html: the bundle's, with static/boot.js before the UI's first
 * script (early.js, whose requests boot.js's fetch() answers).
 */
static int write_index(const char *web, const char *dir)
{
    char from[STATIC_PATH_MAX], to[STATIC_PATH_MAX], *html, *at;
    static const char boot[] = "<script src=\"static/boot.js\"></script>\n";
    size_t len;
    int ret;

    if (!path_of(from, web, "index.html") || !path_of(to, dir, "index.html"))
        return -1;
    if ((ret = read_all(from, &html, &len))) {
        fprintf(stderr, "slublab export-static: cannot read %s: %s\n", from, strerror(-ret));
        return -1;
    }
    if (!(at = strstr(html, "<script"))) {
        fprintf(stderr, "slublab export-static: %s loads no script\n", from);
        free(html);
        return -1;
    }
    {
        FILE *f = fopen(to, "wb");

        ret = f && fwrite(html, 1, (size_t)(at - html), f) == (size_t)(at - html) &&
                              fputs(boot, f) >= 0 &&
                              fwrite(at, 1, len - (size_t)(at - html), f) ==
                                      len - (size_t)(at - html)
                      ? 0
                      : -1;
        if (f && fclose(f))
            ret = -1;
        if (ret)
            fprintf(stderr, "slublab export-static: cannot write %s: %s\n", to, strerror(errno));
    }
    free(html);
    return ret;
}

static int static_main(int argc, char **argv)
{
    const struct datadir *dd = datadir_get();
    struct static_args a = {0};
    char path[STATIC_PATH_MAX], code[STATIC_PATH_MAX], wasm[STATIC_PATH_MAX],
            lessons[STATIC_PATH_MAX], manifest[STATIC_PATH_MAX], sdir[STATIC_PATH_MAX];
    cJSON *files = NULL;
    char *text = NULL;
    size_t i;
    int status, ret = -1;

    if (!cli_parse(&cmd_export_static, argc, argv, &a, &status))
        return status;
    if (!path_of(manifest, dd->web, ".manifest.json"))
        return CLI_USAGE;
    if (access(manifest, R_OK)) {
        fprintf(stderr,
                "slublab export-static: %s is not the UI's production bundle (build it with "
                "scripts/build)\n",
                dd->web);
        return CLI_USAGE;
    }
    parent_of(dd->web, path, sizeof(path));
    if (!a.wasm && !path_of(wasm, path, "wasm/slublab-api.wasm"))
        return CLI_USAGE;
    if (!a.wasm)
        a.wasm = wasm;
    if (access(a.wasm, R_OK)) {
        fprintf(stderr,
                "slublab export-static: no API module at %s (scripts/build builds it where the "
                "WebAssembly toolchain is installed: docs/wasm.md; or give --wasm FILE)\n",
                a.wasm);
        return CLI_USAGE;
    }
    if (!path_of(code, dd->root[0] ? dd->root : ".", "web/js/static"))
        return CLI_USAGE;
    if (!a.scenarios)
        a.scenarios = dd->scenarios;
    parent_of(a.scenarios, path, sizeof(path));
    if ((!a.lessons && !path_of(lessons, path, "lessons")) || !path_of(sdir, a.dir, "static"))
        return CLI_USAGE;
    if (!a.lessons)
        a.lessons = lessons;
    if (!(files = cJSON_CreateObject()) || copy_tree(dd->web, a.dir, NULL, NULL) ||
        write_index(dd->web, a.dir) || make_dir(sdir))
        goto out_free;
    for (i = 0; i < sizeof(static_code) / sizeof(static_code[0]); i++) {
        char from[STATIC_PATH_MAX], to[STATIC_PATH_MAX];

        if (!path_of(from, code, static_code[i]) || !path_of(to, sdir, static_code[i]) ||
            copy_file(from, to))
            goto out_free;
    }
    if (!path_of(path, sdir, "slublab-api.wasm") || copy_file(a.wasm, path) ||
        copy_tree(a.scenarios, NULL, files, "scenarios") ||
        copy_tree(a.lessons, NULL, files, "lessons"))
        goto out_free;
    if (!(text = cJSON_PrintUnformatted(files))) {
        fprintf(stderr, "slublab export-static: out of memory\n");
        goto out_free;
    }
    /* GitHub Pages' Jekyll step leaves out files whose names start with a
     * dot (.manifest.json, which the HTML export reads) unless the site
     * has a .nojekyll file */
    if (!path_of(path, sdir, "files.json") || write_all(path, text, strlen(text)) ||
        !path_of(path, a.dir, ".nojekyll") || write_all(path, "", 0))
        goto out_free;
    printf("%s: the static lab (open %s/index.html through a static web server)\n", a.dir, a.dir);
    ret = 0;
out_free:
    cJSON_free(text);
    cJSON_Delete(files);
    return ret ? CLI_USAGE : CLI_OK;
}

const struct cli_command cmd_export_static = {
        .name = "export-static",
        .pos = {.name = "DIR",
                .offset = offsetof(struct static_args, dir),
                .what = "output directory",
                .missing = "which directory? (it is created when missing)"},
        .groups = {{static_opts, 0}},
        .run = static_main,
};
