/*
 * cmd_geometry.c: `slublab geometry`, the engine's sizing against a real
 * kernel.
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
#include "cli/cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kfiles/sysfs_slab.h"

static int cmp_cache(const void *a, const void *b)
{
    return strcmp(((const struct sysfs_cache *)a)->dir, ((const struct sysfs_cache *)b)->dir);
}

struct geometry_args {
    const char *sysfs;
    struct cli_u64 cpus;
};

static const struct cli_opt geometry_opts[] = {
        {CLI_TO(struct geometry_args, sysfs), .name = "sysfs", .arg = "DIR", .required = true,
         .help = "the tree (the live /sys/kernel/slab, a copy, or a .tar/.tar.gz of one)"},
        {CLI_TO(struct geometry_args, cpus), .name = "cpus", .arg = "N", .min = 1, .max = 4096,
         .help = "present CPUs (default: this machine's for the live tree, else DIR/.nproc "
                 "written at capture)"},
        {0},
};

static int geometry_main(int argc, char **argv)
{
    struct geometry_args args = {0};
    const char *dir;
    struct sysfs_tree tree;
    struct sysfs_cache *caches;
    struct strbuf err = STRBUF_INIT;
    size_t n;
    unsigned cpus, mismatches = 0, matched = 0, undetermined = 0;
    int ret;

    if (!cli_parse(&cmd_geometry, argc, argv, &args, &ret))
        return ret;
    dir = args.sysfs;
    if (sysfs_slab_read(dir, &tree, &err)) {
        ret = cli_usage_error("geometry", "%s", strbuf_str(&err));
        strbuf_release(&err);
        return ret;
    }
    if (args.cpus.given) {
        cpus = (unsigned)args.cpus.value;
    } else if (tree.nproc) {
        cpus = tree.nproc;
    } else {
        sysfs_slab_release(&tree);
        return cli_usage_error("geometry", "%s/.nproc is missing: give --cpus N", dir);
    }
    caches = tree.caches;
    n = tree.nr;
    qsort(caches, n, sizeof(*caches), cmp_cache);

    printf("geometry of %zu caches in %s, %u present CPUs\n", n, dir, cpus);
    printf("%-28s %-6s %s\n", "cache", "result",
           "slab_size align objs_per_slab order "
           "min_partial (engine/kernel)");
    for (size_t i = 0; i < n; i++) {
        struct sysfs_cache *c = &caches[i];
        struct sim_geometry g, alt;
        unsigned mine[5];
        bool same = true, alt_same = true;

        if (c->kmalloc)
            c->args.flags |= SIM_SLAB_KMALLOC;
        if (sim_cache_geometry(&c->args, cpus, &g)) {
            printf("%-28s %-6s no slab order fits object_size %u\n", c->dir, "FAIL",
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
                       c->dir, "-");
                undetermined++;
                continue;
            }
        }
        printf("%-28s %-6s %u/%u %u/%u %u/%u %u/%u %u/%u\n", c->dir, same ? "ok" : "FAIL", mine[0],
               c->kernel[0], mine[1], c->kernel[1], mine[2], c->kernel[2], mine[3], c->kernel[3],
               mine[4], c->kernel[4]);
        if (same)
            matched++;
        else
            mismatches++;
    }
    printf("%u matched, %u mismatched, %u undetermined\n", matched, mismatches, undetermined);
    sysfs_slab_release(&tree);
    return mismatches ? CLI_FAIL : CLI_OK;
}

const struct cli_command cmd_geometry = {
        .name = "geometry",
        .groups = {{geometry_opts, 0}},
        .run = geometry_main,
};
