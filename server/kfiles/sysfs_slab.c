/*
 * sysfs_slab.c: a /sys/kernel/slab-style tree as an array of caches (see
 * sysfs_slab.h).
 *
 * Files hold "45" or "45 N0=45"; only the first token is read.  The flag
 * files map to SLAB_* flags; "ctor" is set when the file names a function.
 * A capture made elsewhere carries .nproc (present CPUs: calculate_order()
 * depends on them) and .kernel (uname -r); the live tree takes both from
 * this machine.  Merged caches: every symbolic link is an alias of the
 * directory it resolves to, and the engine name is chosen among them.
 *
 * The tree may also come as a tar archive (.tar or .tar.gz, tar_read.h),
 * such as the server's sysfs export or the captures in tests/data: the
 * tree's directory is the one above the first cache's object_size file
 * ("slab/", "sys/kernel/slab/" or the archive's top), and the same files
 * are read from memory.
 */
#define _XOPEN_SOURCE 700 /* readlink, realpath, lstat */

#include "kfiles/sysfs_slab.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "kfiles/kcache_defaults.h"
#include "kfiles/tar_read.h"

/* Where the tree's files are: a directory, or a directory inside an archive. */
struct slab_src {
    const char *dir;               /* the directory or the archive's path */
    const struct tar_archive *tar; /* the archive, or NULL for a directory */
    char root[PATH_MAX];           /* tar: the tree's directory in it, "" for the top */
};

static const char *const geometry_files[SYSFS_NR_GEOMETRY] = {"slab_size", "align", "objs_per_slab",
                                                              "order", "min_partial"};

/* First line of the archive's ROOT/NAME/FILE (NAME "." is ROOT itself); false if none. */
static bool tar_read_line(const struct slab_src *src, const char *name, const char *file, char *buf,
                          size_t len)
{
    char path[PATH_MAX];
    const struct tar_member *m;
    const char *nl;
    size_t n;

    if ((size_t)snprintf(path, sizeof(path), "%s%s%s%s%s", src->root, src->root[0] ? "/" : "",
                         strcmp(name, ".") ? name : "", strcmp(name, ".") ? "/" : "",
                         file) >= sizeof(path))
        return false;
    m = tar_find(src->tar, path);
    if (!m || m->type != TAR_FILE || !m->len)
        return false;
    nl = memchr(m->data, '\n', m->len);
    n = nl ? (size_t)(nl - m->data) + 1 : m->len;
    if (n > len - 1)
        n = len - 1;
    memcpy(buf, m->data, n);
    buf[n] = '\0';
    return true;
}

/* First line of DIR/NAME/FILE into buf; false if unreadable. */
static bool read_line(const struct slab_src *src, const char *name, const char *file, char *buf,
                      size_t len)
{
    char path[PATH_MAX];
    FILE *f;
    bool ok;

    if (src->tar)
        return tar_read_line(src, name, file, buf, len);
    snprintf(path, sizeof(path), "%s/%s/%s", src->dir, name, file);
    f = fopen(path, "r");
    if (!f)
        return false;
    ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    return ok;
}

static bool read_ulong(const struct slab_src *dir, const char *name, const char *file,
                       unsigned long *out)
{
    char buf[64], *end;
    unsigned long v;

    if (!read_line(dir, name, file, buf, sizeof(buf)))
        return false;
    v = strtoul(buf, &end, 10);
    if (end == buf)
        return false;
    *out = v;
    return true;
}

static bool read_uint(const struct slab_src *dir, const char *name, const char *file, unsigned *out)
{
    unsigned long v;

    if (!read_ulong(dir, name, file, &v) || v > UINT32_MAX)
        return false;
    *out = (unsigned)v;
    return true;
}

/* True when DIR/NAME/FILE holds something other than nothing or "0". */
static bool read_flag(const struct slab_src *dir, const char *name, const char *file)
{
    char buf[128] = "";

    if (!read_line(dir, name, file, buf, sizeof(buf)))
        return false;
    return buf[0] != '\n' && buf[0] != 0 && strcmp(buf, "0\n") != 0 && strcmp(buf, "0") != 0;
}

bool sysfs_is_kmalloc_name(const char *n)
{
    if (!strncmp(n, "dma-", 4))
        n += 4;
    if (strncmp(n, "kmalloc-", 8))
        return false;
    n += 8;
    if (!strncmp(n, "cg-", 3) || !strncmp(n, "rcl-", 4))
        n += n[0] == 'c' ? 3 : 4;
    if (*n < '0' || *n > '9')
        return false;
    while (*n >= '0' && *n <= '9')
        n++;
    return *n == 0 || (n[0] == 'k' && n[1] == 0);
}

static bool load_cache(const struct slab_src *dir, const char *name, struct sysfs_cache *c)
{
    char buf[64];
    static const struct {
        const char *file;
        uint32_t flag;
    } flag_files[] = {
            {"red_zone", SIM_SLAB_RED_ZONE},
            {"poison", SIM_SLAB_POISON},
            {"store_user", SIM_SLAB_STORE_USER},
            {"sanity_checks", SIM_SLAB_CONSISTENCY_CHECKS},
            {"trace", SIM_SLAB_TRACE},
            {"hwcache_align", SIM_SLAB_HWCACHE_ALIGN},
            {"reclaim_account", SIM_SLAB_RECLAIM_ACCOUNT},
            {"destroy_by_rcu", SIM_SLAB_TYPESAFE_BY_RCU},
            {"cache_dma", SIM_SLAB_CACHE_DMA},
    };

    memset(c, 0, sizeof(*c));
    snprintf(c->dir, sizeof(c->dir), "%s", name);
    if (!read_uint(dir, name, "object_size", &c->args.object_size) ||
        !read_uint(dir, name, "align", &c->args.align))
        return false;
    for (int i = 0; i < SYSFS_NR_GEOMETRY; i++)
        if (!read_uint(dir, name, geometry_files[i], &c->kernel[i]))
            return false;
    for (size_t i = 0; i < sizeof(flag_files) / sizeof(flag_files[0]); i++)
        if (read_flag(dir, name, flag_files[i].file))
            c->args.flags |= flag_files[i].flag;
    c->args.ctor = read_flag(dir, name, "ctor");
    c->has_sheaf_capacity = read_uint(dir, name, "sheaf_capacity", &c->sheaf_capacity);
    c->has_cpu_partial = read_line(dir, name, "cpu_partial", buf, sizeof(buf));
    c->has_counts = read_ulong(dir, name, "objects", &c->objects) &&
                    read_ulong(dir, name, "total_objects", &c->total_objects) &&
                    read_ulong(dir, name, "slabs", &c->slabs);
    c->kmalloc = sysfs_is_kmalloc_name(name);
    return true;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_cache(const void *a, const void *b)
{
    return strcmp(((const struct sysfs_cache *)a)->name, ((const struct sysfs_cache *)b)->name);
}

static struct sysfs_cache *find_dir(struct sysfs_tree *t, const char *dir)
{
    for (size_t i = 0; i < t->nr; i++)
        if (!strcmp(t->caches[i].dir, dir))
            return &t->caches[i];
    return NULL;
}

static int add_alias(struct sysfs_cache *c, const char *name)
{
    char **a = realloc(c->aliases, (c->nr_aliases + 1) * sizeof(*a));

    if (!a)
        return -ENOMEM;
    c->aliases = a;
    a[c->nr_aliases] = strdup(name);
    if (!a[c->nr_aliases])
        return -ENOMEM;
    c->nr_aliases++;
    return 0;
}

/* Add @name, a link to @target, as an alias of the directory @target names. */
static int link_alias(struct sysfs_tree *t, const char *name, const char *target)
{
    const char *base = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
    struct sysfs_cache *c = find_dir(t, base);

    return c ? add_alias(c, name) : 0;
}

/* Every link of @dir as an alias of the directory it points to. */
static int read_aliases(const char *dir, struct sysfs_tree *t)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int ret = 0;

    if (!d)
        return -errno;
    while (!ret && (e = readdir(d))) {
        char path[PATH_MAX], target[PATH_MAX];
        ssize_t len;

        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        len = readlink(path, target, sizeof(target) - 1);
        if (len <= 0)
            continue;
        target[len] = 0;
        ret = link_alias(t, e->d_name, target);
    }
    closedir(d);
    return ret;
}

/* The member's name when it lies directly in the archive's tree directory, else NULL. */
static const char *tar_child(const struct slab_src *src, const char *path)
{
    size_t n = strlen(src->root);

    if (n && (strncmp(path, src->root, n) || path[n] != '/'))
        return NULL;
    path += n ? n + 1 : 0;
    return strchr(path, '/') || path[0] == '.' ? NULL : path;
}

/*
 * The caches and aliases of an archive: a cache is a directory of the tree
 * with an object_size file, an alias a symbolic link beside them.
 */
static int read_tar_tree(struct slab_src *src, struct sysfs_tree *t)
{
    const struct tar_archive *a = src->tar;
    int ret = 0;

    for (size_t i = 0; i < a->nr; i++) {
        const char *p = a->m[i].path, *slash = strrchr(p, '/');

        if (a->m[i].type == TAR_FILE && !strcmp(slash ? slash + 1 : p, "object_size")) {
            size_t n = slash ? (size_t)(slash - p) : 0;

            while (n && p[n - 1] != '/')
                n--; /* up from the cache's directory to the tree's */
            snprintf(src->root, sizeof(src->root), "%.*s", n ? (int)n - 1 : 0, p);
            break;
        }
    }
    for (size_t i = 0; i < a->nr && t->nr < SYSFS_MAX_CACHES; i++) {
        const char *name = tar_child(src, a->m[i].path);

        if (name && a->m[i].type == TAR_DIR && load_cache(src, name, &t->caches[t->nr]))
            t->nr++;
    }
    for (size_t i = 0; i < a->nr && !ret; i++) {
        const char *name = tar_child(src, a->m[i].path);

        if (name && a->m[i].type == TAR_LINK)
            ret = link_alias(t, name, a->m[i].data);
    }
    return ret;
}

/* The engine name of a unique-id directory, taken out of its aliases. */
static void pick_name(struct sysfs_cache *c)
{
    size_t pick = c->nr_aliases;

    if (c->nr_aliases > 1)
        qsort(c->aliases, c->nr_aliases, sizeof(*c->aliases), cmp_str);
    for (size_t i = 0; i < c->nr_aliases; i++)
        if (sysfs_is_kmalloc_name(c->aliases[i]))
            c->kmalloc = true;
    if (c->dir[0] != ':' || !c->nr_aliases) {
        snprintf(c->name, sizeof(c->name), "%.*s", SIM_NAME_MAX - 1, c->dir);
    } else {
        for (size_t i = 0; i < c->nr_aliases && pick == c->nr_aliases; i++)
            if (sysfs_is_kmalloc_name(c->aliases[i]) && strlen(c->aliases[i]) < SIM_NAME_MAX)
                pick = i;
        for (size_t i = 0; i < c->nr_aliases && pick == c->nr_aliases; i++)
            if (strlen(c->aliases[i]) < SIM_NAME_MAX)
                pick = i;
        if (pick == c->nr_aliases) {
            snprintf(c->name, sizeof(c->name), "%.*s", SIM_NAME_MAX - 1, c->dir);
        } else {
            snprintf(c->name, sizeof(c->name), "%.*s", SIM_NAME_MAX - 1, c->aliases[pick]);
            free(c->aliases[pick]);
            memmove(&c->aliases[pick], &c->aliases[pick + 1],
                    (c->nr_aliases - pick - 1) * sizeof(*c->aliases));
            c->nr_aliases--;
        }
    }
    memcpy(c->args.name, c->name, sizeof(c->name));
}

/* The cache directories of directory @dir; then its links as aliases. */
static int read_dir_tree(const struct slab_src *src, struct sysfs_tree *t, struct strbuf *err)
{
    DIR *d = opendir(src->dir);
    struct dirent *e;
    int ret;

    if (!d) {
        ret = -errno;
        strbuf_printf(err, "cannot open %s: %s", src->dir, strerror(errno));
        return ret;
    }
    while ((e = readdir(d)) && t->nr < SYSFS_MAX_CACHES) {
        char path[PATH_MAX];
        struct stat st;

        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", src->dir, e->d_name);
        if (lstat(path, &st) || !S_ISDIR(st.st_mode))
            continue; /* aliases are symbolic links */
        if (load_cache(src, e->d_name, &t->caches[t->nr]))
            t->nr++;
    }
    closedir(d);
    if (!t->nr)
        return 0;
    ret = read_aliases(src->dir, t);
    if (ret)
        strbuf_printf(err, "cannot read the aliases of %s: %s", src->dir, strerror(-ret));
    return ret;
}

/* What the tree cannot show, from the release defaults of its kernel
 * (kcache_defaults.c): an explicit free-pointer offset. */
static void sysfs_slab_hidden_defaults(struct sysfs_tree *t)
{
    enum sim_release r = kcache_release_of(t->kernel);

    for (size_t i = 0; r != SIM_RELEASE_NONE && i < t->nr; i++) {
        struct sysfs_cache *c = &t->caches[i];
        const struct kcache_default *d = kcache_default_find(r, c->name, strlen(c->name));

        if (d && d->use_freeptr_offset &&
            ((c->args.flags & SIM_SLAB_TYPESAFE_BY_RCU) || c->args.ctor))
            kcache_default_apply(d, &c->args, true);
    }
}

int sysfs_slab_read(const char *dir, struct sysfs_tree *t, struct strbuf *err)
{
    struct slab_src src = {.dir = dir};
    struct tar_archive tar = {0};
    char real[PATH_MAX];
    struct stat st;
    int ret;

    memset(t, 0, sizeof(*t));
    if (!stat(dir, &st) && S_ISREG(st.st_mode)) {
        if ((ret = tar_read(dir, &tar, err)))
            return ret;
        src.tar = &tar;
    }
    t->caches = calloc(SYSFS_MAX_CACHES, sizeof(*t->caches));
    if (!t->caches) {
        strbuf_printf(err, "out of memory");
        ret = -ENOMEM;
        goto out;
    }
    if (src.tar) {
        ret = read_tar_tree(&src, t);
        if (ret)
            strbuf_printf(err, "%s: %s", dir, strerror(-ret));
    } else {
        ret = read_dir_tree(&src, t, err);
    }
    if (ret)
        goto out;
    if (!t->nr) {
        strbuf_printf(err, "%s holds no cache directories (object_size, align, ...)", dir);
        ret = -ENOENT;
        goto out;
    }
    for (size_t i = 0; i < t->nr; i++)
        pick_name(&t->caches[i]);
    qsort(t->caches, t->nr, sizeof(*t->caches), cmp_cache);
    t->live = !src.tar && realpath(dir, real) && !strcmp(real, "/sys/kernel/slab");
    if (t->live) {
        struct utsname u;
        long n = sysconf(_SC_NPROCESSORS_CONF);

        t->nproc = n > 0 ? (unsigned)n : 1;
        if (!uname(&u))
            snprintf(t->kernel, sizeof(t->kernel), "%s", u.release);
    } else {
        char buf[128];

        if (!read_uint(&src, ".", ".nproc", &t->nproc))
            t->nproc = 0;
        if (read_line(&src, ".", ".kernel", buf, sizeof(buf))) {
            buf[strcspn(buf, "\r\n")] = 0;
            snprintf(t->kernel, sizeof(t->kernel), "%s", buf);
        }
    }
    sysfs_slab_hidden_defaults(t);
out:
    if (ret)
        sysfs_slab_release(t);
    tar_release(&tar);
    return ret;
}

void sysfs_slab_release(struct sysfs_tree *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nr; i++) {
        for (size_t j = 0; j < t->caches[i].nr_aliases; j++)
            free(t->caches[i].aliases[j]);
        free(t->caches[i].aliases);
    }
    free(t->caches);
    memset(t, 0, sizeof(*t));
}

static bool same(const char *s, const char *name, size_t len)
{
    return strlen(s) == len && !memcmp(s, name, len);
}

const struct sysfs_cache *sysfs_slab_find(const struct sysfs_tree *t, const char *name, size_t len)
{
    for (size_t i = 0; i < t->nr; i++) {
        const struct sysfs_cache *c = &t->caches[i];

        if (same(c->name, name, len) || same(c->dir, name, len))
            return c;
        for (size_t j = 0; j < c->nr_aliases; j++)
            if (same(c->aliases[j], name, len))
                return c;
    }
    return NULL;
}

enum sysfs_era sysfs_slab_era(const struct sysfs_tree *t, struct strbuf *why)
{
    size_t sheaf_files = 0, nonzero = 0, cpu_partial = 0;
    enum sysfs_era era;

    for (size_t i = 0; i < t->nr; i++) {
        sheaf_files += t->caches[i].has_sheaf_capacity;
        nonzero += t->caches[i].sheaf_capacity > 0;
        cpu_partial += t->caches[i].has_cpu_partial;
    }
    if (!sheaf_files)
        era = cpu_partial == 0 || cpu_partial == t->nr ? SYSFS_ERA_LEGACY : SYSFS_ERA_UNKNOWN;
    else if (sheaf_files != t->nr)
        era = SYSFS_ERA_UNKNOWN;
    else if (cpu_partial == t->nr)
        era = SYSFS_ERA_HYBRID;
    else if (cpu_partial)
        era = SYSFS_ERA_UNKNOWN;
    else
        era = nonzero * 2 < t->nr ? SYSFS_ERA_HYBRID : SYSFS_ERA_SHEAVES;
    if (why)
        strbuf_printf(why,
                      "sheaf_capacity on %zu of %zu caches, non-zero on %zu, cpu_partial on %zu",
                      sheaf_files, t->nr, nonzero, cpu_partial);
    return era;
}

const char *sysfs_era_name(enum sysfs_era era)
{
    switch (era) {
    case SYSFS_ERA_LEGACY:
        return "legacy";
    case SYSFS_ERA_HYBRID:
        return "hybrid";
    case SYSFS_ERA_SHEAVES:
        return "sheaves";
    default:
        return "unknown";
    }
}
