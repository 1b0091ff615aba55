/*
 * datadir.c: find the shipped files (see datadir.h): the installed data
 * directory beside the executable, the source tree in the current
 * directory, or the data directory the program was built for.
 *
 * CMake passes SLUBLAB_DATADIR (CMAKE_INSTALL_FULLDATADIR/slublab) and
 * SLUBLAB_DATADIR_FROM_BIN (that directory relative to the install's bin/)
 * for this file alone; the defaults below are GNUInstallDirs' own.
 */
#include "base/datadir.h"

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef SLUBLAB_DATADIR
#define SLUBLAB_DATADIR "/usr/local/share/slublab"
#endif
#ifndef SLUBLAB_DATADIR_FROM_BIN
#define SLUBLAB_DATADIR_FROM_BIN "../share/slublab"
#endif

/* snprintf() into a DATADIR_PATH_MAX field; false when it did not fit. */
#define DATADIR_PRINT(field, ...) \
    ((size_t)snprintf(field, sizeof(field), __VA_ARGS__) < sizeof(field))

/* True when @dir ("": the current directory) holds the UI, web/index.html. */
static bool datadir_has_ui(const char *dir)
{
    char path[DATADIR_PATH_MAX];

    return DATADIR_PRINT(path, "%s%sweb/index.html", dir, *dir ? "/" : "") &&
           access(path, R_OK) == 0;
}

/* True when @dir/@sub/index.html is there: then @web is that directory. */
static bool datadir_page(char *web, const char *dir, const char *sub)
{
    char path[DATADIR_PATH_MAX];

    return DATADIR_PRINT(path, "%s/%s/index.html", dir, sub) && access(path, R_OK) == 0 &&
           (size_t)snprintf(web, DATADIR_PATH_MAX, "%s/%s", dir, sub) < DATADIR_PATH_MAX;
}

/* @d in the installed layout under @dir, when @dir holds the UI. */
static bool datadir_installed(struct datadir *d, const char *dir)
{
    char real[PATH_MAX];

    if (!datadir_has_ui(dir) || !realpath(dir, real))
        return false;
    return DATADIR_PRINT(d->root, "%s", real) &&
           (datadir_page(d->web, real, "bundle") || DATADIR_PRINT(d->web, "%s/web", real)) &&
           DATADIR_PRINT(d->vendor, "%s/vendor", real) &&
           DATADIR_PRINT(d->scenarios, "%s/scenarios", real);
}

/*
 * @d in the source tree's layout, relative to the current directory; the
 * page is the bundle of the build tree @exe_dir is (its web/), when built.
 */
static void datadir_source_tree(struct datadir *d, const char *exe_dir)
{
    d->root[0] = '\0';
    if (!exe_dir || !datadir_page(d->web, exe_dir, "web"))
        snprintf(d->web, sizeof(d->web), "web");
    snprintf(d->vendor, sizeof(d->vendor), "node_modules/chart.js/dist");
    snprintf(d->scenarios, sizeof(d->scenarios), "scenarios");
}

void datadir_find(struct datadir *d, const char *exe, const char *from_bin, const char *builtin)
{
    const char *slash = exe ? strrchr(exe, '/') : NULL;
    char dir[DATADIR_PATH_MAX], exe_dir[DATADIR_PATH_MAX];
    const bool known = slash && DATADIR_PRINT(exe_dir, "%.*s", (int)(slash - exe), exe);

    if (known && from_bin && DATADIR_PRINT(dir, "%s/%s", exe_dir, from_bin) &&
        datadir_installed(d, dir))
        return;
    if (datadir_has_ui("")) {
        datadir_source_tree(d, known ? exe_dir : NULL);
        return;
    }
    if (builtin && *builtin && datadir_installed(d, builtin))
        return;
    datadir_source_tree(d, NULL);
}

static struct datadir datadir_found;
static pthread_once_t datadir_once = PTHREAD_ONCE_INIT;

static void datadir_init(void)
{
    char exe[DATADIR_PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe));
    bool known = len > 0 && (size_t)len < sizeof(exe); /* not cut short */

    if (known)
        exe[len] = '\0';
    datadir_find(&datadir_found, known ? exe : NULL, SLUBLAB_DATADIR_FROM_BIN, SLUBLAB_DATADIR);
}

const struct datadir *datadir_get(void)
{
    pthread_once(&datadir_once, datadir_init);
    return &datadir_found;
}
