/*
 * datadir.h: where the program's shipped files are (datadir.c): the UI
 * (web/), the scenarios (scenarios/, with lessons/ beside them) and
 * Chart.js (chart.umd.js).
 *
 * They come in one of two layouts.  In the source tree they sit at the
 * repository root, where scripts/run and the tests start the program:
 * web/, scenarios/, lessons/ and node_modules/chart.js/dist/.  Installed
 * (`cmake --install`, docs/deploy.md) they sit in one data directory,
 * PREFIX/share/slublab/ with web/, scenarios/, lessons/ and vendor/.
 *
 * The page served is the bundle (scripts/bundle-web.mjs) when there is
 * one: a build tree's web/ beside the executable in the source tree,
 * bundle/ in the data directory; else the modules of web/.
 *
 * The first of these that holds web/index.html is used:
 *   1. the data directory beside the executable (/proc/self/exe and the
 *      path from the install's bin/ to its data directory, ../share/slublab),
 *      so an installed program works from any directory and a moved
 *      prefix still finds its files;
 *   2. the current directory, in the source tree's layout (today's default);
 *   3. the data directory the program was built for (SLUBLAB_DATADIR).
 * When none does, the source tree's relative paths, so that errors name
 * them.  Command-line options (serve --web, --vendor, --scenarios,
 * --lessons) override whatever is found here.
 */
#ifndef SLUBLAB_SERVER_BASE_DATADIR_H
#define SLUBLAB_SERVER_BASE_DATADIR_H

#define DATADIR_PATH_MAX 4096

struct datadir {
    char root[DATADIR_PATH_MAX];      /* the installed data directory; "": the source tree */
    char web[DATADIR_PATH_MAX];       /* the UI's files: the bundle, or web/ */
    char vendor[DATADIR_PATH_MAX];    /* where chart.umd.js is */
    char scenarios[DATADIR_PATH_MAX]; /* the shipped scenarios */
};

/*
 * Fill @d as above, for the executable @exe (an absolute path, or NULL
 * when unknown), the path @from_bin from its directory to the data
 * directory, and the built-in data directory @builtin (NULL: none).
 * Paths too long for @d's fields are passed over.
 */
void datadir_find(struct datadir *d, const char *exe, const char *from_bin, const char *builtin);

/* This process's data directory, found once; it lives until exit. */
const struct datadir *datadir_get(void);

#endif /* SLUBLAB_SERVER_BASE_DATADIR_H */
