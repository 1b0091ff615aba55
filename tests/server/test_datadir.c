/*
 * test_datadir.c: where the shipped files are found (base/datadir.c): an
 * installed data directory beside the executable, the source tree in the
 * current directory, the built-in data directory, in that order, and the
 * source tree's relative paths when none holds the UI; the page is the
 * bundle when there is one (a build tree's web/, an install's bundle/).
 *
 * Runs from the repository root (ctest's working directory), which holds
 * web/index.html; the cases that need a current directory without it
 * change into an empty temporary one and back.
 */
#define _XOPEN_SOURCE 700 /* mkdtemp(), realpath(), PATH_MAX */

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/datadir.h"
#include "check.h"

static char tmp[PATH_MAX];    /* the temporary directory, real path */
static char prefix[PATH_MAX]; /* tmp/prefix: bin/, share/slublab/web/index.html */
static char empty[PATH_MAX];  /* tmp/empty: no web/ */
static char exe[PATH_MAX];    /* prefix/bin/slublab (never run) */
static char data[PATH_MAX];   /* prefix/share/slublab */
static char home[PATH_MAX];   /* the repository root */

/* @a then @b into @buf (PATH_MAX bytes); false when it does not fit. */
static bool join(char *buf, const char *a, const char *b)
{
    return (size_t)snprintf(buf, PATH_MAX, "%s%s", a, b) < PATH_MAX;
}

static bool make_dir(const char *a, const char *b)
{
    char path[PATH_MAX];

    return join(path, a, b) && mkdir(path, 0700) == 0;
}

static bool setup(void)
{
    char t[] = "/tmp/slublab-datadir-XXXXXX", idx[PATH_MAX];
    FILE *f;

    if (!mkdtemp(t) || !realpath(t, tmp) || !getcwd(home, sizeof(home)))
        return false;
    if (!join(prefix, tmp, "/prefix") || !join(empty, tmp, "/empty") ||
        !join(exe, prefix, "/bin/slublab") || !join(data, prefix, "/share/slublab") ||
        !join(idx, data, "/web/index.html"))
        return false;
    if (!make_dir(prefix, "") || !make_dir(prefix, "/bin") || !make_dir(prefix, "/share") ||
        !make_dir(data, "") || !make_dir(data, "/web") || !make_dir(empty, ""))
        return false;
    if (!(f = fopen(idx, "w")))
        return false;
    fputs("<!doctype html>\n", f);
    return fclose(f) == 0;
}

static void teardown(void)
{
    char cmd[PATH_MAX];

    if (!join(cmd, "rm -rf ", tmp) || system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmp);
}

static void check_installed(const struct datadir *d, const char *root)
{
    char want[PATH_MAX];

    CHECK_EQ_STR(d->root, root);
    if (CHECK(join(want, root, "/web")))
        CHECK_EQ_STR(d->web, want);
    if (CHECK(join(want, root, "/vendor")))
        CHECK_EQ_STR(d->vendor, want);
    if (CHECK(join(want, root, "/scenarios")))
        CHECK_EQ_STR(d->scenarios, want);
}

/* The source tree's layout, its page from @web ("web": the modules). */
static void check_source_tree_page(const struct datadir *d, const char *web)
{
    CHECK_EQ_STR(d->root, "");
    CHECK_EQ_STR(d->web, web);
    CHECK_EQ_STR(d->vendor, "node_modules/chart.js/dist");
    CHECK_EQ_STR(d->scenarios, "scenarios");
}

static void check_source_tree(const struct datadir *d)
{
    CHECK_EQ_STR(d->root, "");
    CHECK_EQ_STR(d->web, "web");
    CHECK_EQ_STR(d->vendor, "node_modules/chart.js/dist");
    CHECK_EQ_STR(d->scenarios, "scenarios");
}

/* The installed program: ../share/slublab from its bin/, even from the source tree. */
static void test_beside_the_executable(void)
{
    static struct datadir d;

    datadir_find(&d, exe, "../share/slublab", NULL);
    check_installed(&d, data);
    /* and from a directory without the UI */
    if (!CHECK(chdir(empty) == 0))
        return;
    datadir_find(&d, exe, "../share/slublab", "/nonexistent");
    check_installed(&d, data);
    CHECK(chdir(home) == 0);
}

/* The build tree's program: nothing beside it, the source tree in the current directory. */
static void test_source_tree(void)
{
    static struct datadir d;

    datadir_find(&d, exe, "../share/elsewhere", data);
    check_source_tree(&d);
    datadir_find(&d, NULL, NULL, NULL);
    check_source_tree(&d);
    /* this test program lives in the build tree, so the process's own is the
     * source tree, its page the build tree's bundle when one is built */
    {
        char exe_self[PATH_MAX], bundle[PATH_MAX], idx[PATH_MAX];
        ssize_t len = readlink("/proc/self/exe", exe_self, sizeof(exe_self) - 1);
        char *slash;

        if (CHECK(len > 0)) {
            exe_self[len] = '\0';
            slash = strrchr(exe_self, '/');
            *slash = '\0';
            if (CHECK(join(bundle, exe_self, "/web")) && CHECK(join(idx, bundle, "/index.html")))
                check_source_tree_page(datadir_get(), access(idx, R_OK) == 0 ? bundle : "web");
        }
    }
}

/* A bundle beside the executable (a build tree's web/) is the page; the rest as before. */
static void test_bundle_in_build_tree(void)
{
    static struct datadir d;
    char build[PATH_MAX], build_exe[PATH_MAX], bundle[PATH_MAX], idx[PATH_MAX];
    FILE *f;

    if (!CHECK(join(build, tmp, "/build")) || !CHECK(join(build_exe, build, "/slublab")) ||
        !CHECK(join(bundle, build, "/web")) || !CHECK(join(idx, bundle, "/index.html")) ||
        !CHECK(make_dir(build, "")))
        return;
    datadir_find(&d, build_exe, "../share/slublab", NULL);
    check_source_tree(&d); /* no bundle yet: the modules */
    if (!CHECK(make_dir(bundle, "")) || !CHECK((f = fopen(idx, "w")) != NULL))
        return;
    fclose(f);
    datadir_find(&d, build_exe, "../share/slublab", NULL);
    check_source_tree_page(&d, bundle);
}

/* An installed bundle (share/slublab/bundle) is the page; web/ stays the modules. */
static void test_bundle_installed(void)
{
    static struct datadir d;
    char bundle[PATH_MAX], idx[PATH_MAX];
    FILE *f;

    if (!CHECK(join(bundle, data, "/bundle")) || !CHECK(join(idx, bundle, "/index.html")) ||
        !CHECK(make_dir(bundle, "")) || !CHECK((f = fopen(idx, "w")) != NULL))
        return;
    fclose(f);
    datadir_find(&d, exe, "../share/slublab", NULL);
    CHECK_EQ_STR(d.root, data);
    CHECK_EQ_STR(d.web, bundle);
    remove(idx);
    rmdir(bundle);
    datadir_find(&d, exe, "../share/slublab", NULL);
    check_installed(&d, data);
}

/* Nothing beside the executable, no UI here: the data directory it was built for. */
static void test_builtin(void)
{
    static struct datadir d;

    if (!CHECK(chdir(empty) == 0))
        return;
    datadir_find(&d, exe, "../share/elsewhere", data);
    check_installed(&d, data);
    datadir_find(&d, NULL, NULL, data);
    check_installed(&d, data);
    CHECK(chdir(home) == 0);
}

/* Nowhere holds the UI: the source tree's paths, which errors then name. */
static void test_nothing_found(void)
{
    static struct datadir d;

    if (!CHECK(chdir(empty) == 0))
        return;
    datadir_find(&d, exe, "../share/elsewhere", "/nonexistent/share/slublab");
    check_source_tree(&d);
    datadir_find(&d, "slublab", "../share/slublab", ""); /* no directory in the path */
    check_source_tree(&d);
    CHECK(chdir(home) == 0);
}

/* A directory without web/index.html is passed over, even with web/ itself. */
static void test_needs_index(void)
{
    static struct datadir d;
    char other[PATH_MAX];

    if (!CHECK(join(other, tmp, "/other")) || !CHECK(make_dir(other, "")) ||
        !CHECK(make_dir(other, "/web")) || !CHECK(chdir(empty) == 0))
        return;
    datadir_find(&d, NULL, NULL, other);
    check_source_tree(&d);
    CHECK(chdir(home) == 0);
}

/* A data directory whose paths do not fit is passed over. */
static void test_too_long(void)
{
    static struct datadir d;
    static char longer[2 * DATADIR_PATH_MAX];

    memset(longer, 'a', sizeof(longer) - 1);
    longer[0] = '/';
    if (!CHECK(chdir(empty) == 0))
        return;
    datadir_find(&d, longer, "../share/slublab", longer);
    check_source_tree(&d);
    CHECK(chdir(home) == 0);
}

int main(void)
{
    if (!setup()) {
        perror("test_datadir: setup");
        return 1;
    }
    RUN_TEST(test_beside_the_executable);
    RUN_TEST(test_source_tree);
    RUN_TEST(test_builtin);
    RUN_TEST(test_nothing_found);
    RUN_TEST(test_needs_index);
    RUN_TEST(test_too_long);
    RUN_TEST(test_bundle_in_build_tree);
    RUN_TEST(test_bundle_installed);
    teardown();
    return check_done();
}
