/*
 * geometry.c: `slublab geometry`, the engine's sizing against a real kernel.
 *
 * For every cache directory of a /sys/kernel/slab-style tree, read what
 * creation took as input (object_size, align and the flag files) and
 * compare what the engine computes from it (sim_cache_geometry) with what
 * the kernel shows: slab_size, align, objs_per_slab, order and min_partial.
 * Caches whose inputs the tree does not show are listed as undetermined:
 * an explicit free-pointer offset (kmem_cache_args.freeptr_offset) of a
 * SLAB_TYPESAFE_BY_RCU or constructor cache only shows as a slab_size one
 * word smaller than the default layout.  Aliases (symbolic links) name
 * the cache they point to; a kmalloc name among them marks SLAB_KMALLOC.
 */
#define _XOPEN_SOURCE 700 /* readlink, realpath, lstat */

#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GEOM_MAX_CACHES 4096

struct geom_cache {
    char name[256];
    struct sim_cache_args args;
    unsigned kernel[5]; /* slab_size, align, objs_per_slab, order, min_partial */
    bool kmalloc;
};

static const char *const geom_fields[5] = {"slab_size", "align", "objs_per_slab", "order",
        "min_partial"};

/* First token of DIR/NAME/FILE as an unsigned number; false if unreadable. */
static bool read_uint(const char *dir, const char *name, const char *file, unsigned *out)
{
    char path[PATH_MAX], buf[64];
    FILE *f;
    unsigned long v;
    char *end;

    snprintf(path, sizeof(path), "%s/%s/%s", dir, name, file);
    f = fopen(path, "r");
    if (!f)
        return false;
    if (!fgets(buf, sizeof(buf), f)) {
        fclose(f);
        return false;
    }
    fclose(f);
    v = strtoul(buf, &end, 10);
    if (end == buf || v > UINT32_MAX)
        return false;
    *out = (unsigned)v;
    return true;
}

/* True when DIR/NAME/FILE holds something other than nothing or "0". */
static bool read_flag(const char *dir, const char *name, const char *file)
{
    char path[PATH_MAX], buf[128] = "";
    FILE *f;
    bool set;

    snprintf(path, sizeof(path), "%s/%s/%s", dir, name, file);
    f = fopen(path, "r");
    if (!f)
        return false;
    set = fgets(buf, sizeof(buf), f) && buf[0] != '\n' && strcmp(buf, "0\n") != 0 &&
            strcmp(buf, "0") != 0;
    fclose(f);
    return set;
}

/* kmalloc-64, kmalloc-cg-1k, kmalloc-rcl-8, dma-kmalloc-192, ... */
static bool is_kmalloc_name(const char *n)
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

static bool load_cache(const char *dir, const char *name, struct geom_cache *c)
{
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
    snprintf(c->name, sizeof(c->name), "%s", name);
    if (!read_uint(dir, name, "object_size", &c->args.object_size) ||
            !read_uint(dir, name, "align", &c->args.align))
        return false;
    for (int i = 0; i < 5; i++)
        if (!read_uint(dir, name, geom_fields[i], &c->kernel[i]))
            return false;
    for (size_t i = 0; i < sizeof(flag_files) / sizeof(flag_files[0]); i++)
        if (read_flag(dir, name, flag_files[i].file))
            c->args.flags |= flag_files[i].flag;
    c->args.ctor = read_flag(dir, name, "ctor");
    c->kmalloc = is_kmalloc_name(name);
    return true;
}

/* Present CPUs of this machine (what calculate_order() counts). */
static unsigned live_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_CONF);

    return n > 0 ? (unsigned)n : 1;
}

static int cmp_cache(const void *a, const void *b)
{
    return strcmp(((const struct geom_cache *)a)->name, ((const struct geom_cache *)b)->name);
}

void cli_geometry_usage(FILE *f)
{
    fputs("usage: slublab geometry --sysfs DIR [--cpus N]\n"
          "\n"
          "Compare the engine's sizing with a /sys/kernel/slab-style tree: for every cache,\n"
          "slab_size, align, objs_per_slab, order and min_partial computed from its\n"
          "object_size, align and flag files, against the kernel's.  Prints one line per\n"
          "cache and the number of mismatches; exits 0 only when nothing mismatches.\n"
          "\n"
          "  --sysfs DIR  the tree (the live /sys/kernel/slab, or a copy)\n"
          "  --cpus N     present CPUs (default: this machine's for the live tree,\n"
          "               else DIR/.nproc written at capture)\n",
            f);
}

/* Mark caches that have a kmalloc alias (merged kmalloc caches). */
static void mark_kmalloc_aliases(const char *dir, struct geom_cache *c, size_t n)
{
    DIR *d = opendir(dir);
    struct dirent *e;

    if (!d)
        return;
    while ((e = readdir(d))) {
        char path[PATH_MAX], target[PATH_MAX];
        ssize_t len;
        const char *base;

        if (!is_kmalloc_name(e->d_name))
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        len = readlink(path, target, sizeof(target) - 1);
        if (len <= 0)
            continue;
        target[len] = 0;
        base = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
        for (size_t i = 0; i < n; i++)
            if (!strcmp(c[i].name, base))
                c[i].kmalloc = true;
    }
    closedir(d);
}

int cli_geometry(int argc, char **argv)
{
    const char *dir = NULL, *cpus_arg = NULL;
    struct geom_cache *caches;
    size_t n = 0;
    unsigned cpus, mismatches = 0, matched = 0, undetermined = 0;
    DIR *d;
    struct dirent *e;

    for (int i = 1; i < argc; i++) {
        if (cli_is_help(argv[i])) {
            cli_geometry_usage(stdout);
            return CLI_OK;
        }
        if (!strcmp(argv[i], "--sysfs") && i + 1 < argc)
            dir = argv[++i];
        else if (!strncmp(argv[i], "--sysfs=", 8))
            dir = argv[i] + 8;
        else if (!strcmp(argv[i], "--cpus") && i + 1 < argc)
            cpus_arg = argv[++i];
        else if (!strncmp(argv[i], "--cpus=", 7))
            cpus_arg = argv[i] + 7;
        else
            return cli_usage_error("geometry", "unexpected argument \"%s\"", argv[i]);
    }
    if (!dir)
        return cli_usage_error("geometry", "--sysfs DIR is required");
    if (cpus_arg) {
        uint64_t v;

        if (!cli_parse_u64(cpus_arg, &v) || v < 1 || v > 4096)
            return cli_usage_error("geometry", "--cpus must be 1..4096");
        cpus = (unsigned)v;
    } else {
        char real[PATH_MAX];

        if (realpath(dir, real) && !strcmp(real, "/sys/kernel/slab")) {
            cpus = live_cpus();
        } else if (!read_uint(dir, ".", ".nproc", &cpus) || !cpus) {
            return cli_usage_error("geometry", "%s/.nproc is missing: give --cpus N", dir);
        }
    }
    d = opendir(dir);
    if (!d)
        return cli_usage_error("geometry", "cannot open %s: %s", dir, strerror(errno));
    caches = calloc(GEOM_MAX_CACHES, sizeof(*caches));
    if (!caches) {
        closedir(d);
        return cli_usage_error("geometry", "out of memory");
    }
    while ((e = readdir(d)) && n < GEOM_MAX_CACHES) {
        char path[PATH_MAX];
        struct stat st;

        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        if (lstat(path, &st) || !S_ISDIR(st.st_mode))
            continue; /* aliases are symbolic links */
        if (load_cache(dir, e->d_name, &caches[n]))
            n++;
    }
    closedir(d);
    mark_kmalloc_aliases(dir, caches, n);
    qsort(caches, n, sizeof(*caches), cmp_cache);

    printf("geometry of %zu caches in %s, %u present CPUs\n", n, dir, cpus);
    printf("%-28s %-6s %s\n", "cache", "result", "slab_size align objs_per_slab order "
                                             "min_partial (engine/kernel)");
    for (size_t i = 0; i < n; i++) {
        struct geom_cache *c = &caches[i];
        struct sim_geometry g, alt;
        unsigned mine[5];
        bool same = true, alt_same = true;

        if (c->kmalloc)
            c->args.flags |= SIM_SLAB_KMALLOC;
        if (sim_cache_geometry(&c->args, cpus, &g)) {
            printf("%-28s %-6s no slab order fits object_size %u\n", c->name, "FAIL",
                    c->args.object_size);
            mismatches++;
            continue;
        }
        mine[0] = g.size;
        mine[1] = g.align;
        mine[2] = g.objects;
        mine[3] = g.order;
        mine[4] = g.min_partial;
        for (int k = 0; k < 5; k++)
            same &= mine[k] == c->kernel[k];
        if (!same && (c->args.flags & SIM_SLAB_TYPESAFE_BY_RCU || c->args.ctor)) {
            struct sim_cache_args a = c->args;

            /* the same cache with a free-pointer offset chosen by its creator */
            a.use_freeptr_offset = true;
            a.freeptr_offset = 0;
            alt_same = !sim_cache_geometry(&a, cpus, &alt) && alt.size == c->kernel[0] &&
                    alt.align == c->kernel[1] && alt.objects == c->kernel[2] &&
                    alt.order == c->kernel[3] && alt.min_partial == c->kernel[4];
            if (alt_same) {
                printf("%-28s %-6s undetermined (explicit free-pointer offset: sysfs does not "
                       "show it; with one the geometry matches)\n",
                        c->name, "-");
                undetermined++;
                continue;
            }
        }
        printf("%-28s %-6s %u/%u %u/%u %u/%u %u/%u %u/%u\n", c->name, same ? "ok" : "FAIL",
                mine[0], c->kernel[0], mine[1], c->kernel[1], mine[2], c->kernel[2], mine[3],
                c->kernel[3], mine[4], c->kernel[4]);
        if (same)
            matched++;
        else
            mismatches++;
    }
    printf("%u matched, %u mismatched, %u undetermined\n", matched, mismatches, undetermined);
    free(caches);
    return mismatches ? CLI_FAIL : CLI_OK;
}
