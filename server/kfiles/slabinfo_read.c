/*
 * slabinfo_read.c: a real machine's /proc/slabinfo (version 2.1) read back
 * as the caches of a sysfs tree (sysfs_slab.h), for `slublab replay
 * --slabinfo` and `slublab import --slabinfo`.
 *
 * A line gives a cache's name, its slab_size (<objsize>: s->size, what a
 * trace's bytes_alloc says), objects per slab and pages per slab, and its
 * counts; not the object size, alignment, flags, constructor or sheaf
 * capacity.  The object size is taken to be the slab size and the
 * alignment the smallest that gives the kernel's objects per slab at its
 * order (as a trace's unknown cache is made from its event); a line whose
 * geometry no alignment gives keeps alignment 0 and is counted.
 */
#include "kfiles/slabinfo_read.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLABINFO_MAX_LINE 1024

bool slabinfo_parse_line(const char *line, struct slabinfo_line *out)
{
    char name[256];
    unsigned long active, num, objsize, perslab, pps, tl, tb, ts, as, ns, sa;

    if (sscanf(line, "%255s %lu %lu %lu %lu %lu : tunables %lu %lu %lu : slabdata %lu %lu %lu",
               name, &active, &num, &objsize, &perslab, &pps, &tl, &tb, &ts, &as, &ns, &sa) != 12)
        return false;
    if (strlen(name) >= SIM_NAME_MAX || !objsize || objsize > SLABINFO_MAX_SIZE || !perslab ||
        perslab > 65535 || !pps || pps > 1024 || (pps & (pps - 1)))
        return false;
    memset(out, 0, sizeof(*out));
    snprintf(out->name, sizeof(out->name), "%s", name);
    out->active_objs = active;
    out->num_objs = num;
    out->objsize = (unsigned)objsize;
    out->objperslab = (unsigned)perslab;
    out->pagesperslab = (unsigned)pps;
    out->num_slabs = ns;
    return true;
}

bool slabinfo_infer_align(struct sim_cache_args *a, unsigned cpus, unsigned objs, unsigned order)
{
    for (unsigned align = 0; align <= 4096; align = align ? align * 2 : 8) {
        struct sim_geometry g;

        a->align = align;
        if (!sim_cache_geometry(a, cpus, &g) && g.objects == objs && g.order == order)
            return true;
    }
    a->align = 0;
    return false;
}

unsigned slabinfo_order(unsigned pages)
{
    unsigned r = 0;

    while (pages > 1) {
        pages >>= 1;
        r++;
    }
    return r;
}

/* slabinfo_read() of the open @f, named @path in messages; closes @f. */
static int read_stream(FILE *f, const char *path, unsigned cpus, struct sysfs_tree *t,
                       unsigned *unmatched, struct strbuf *err)
{
    char line[SLABINFO_MAX_LINE];
    size_t lineno = 0;

    if (!(t->caches = calloc(SYSFS_MAX_CACHES, sizeof(*t->caches)))) {
        fclose(f);
        return -ENOMEM;
    }
    while (fgets(line, sizeof(line), f)) {
        struct sysfs_cache *c = &t->caches[t->nr];
        struct slabinfo_line l;

        if (++lineno == 1) {
            if (strncmp(line, "slabinfo - version: 2.1", 23))
                break;
            continue;
        }
        if (line[0] == '#' || line[0] == '\n')
            continue;
        if (t->nr == SYSFS_MAX_CACHES || !slabinfo_parse_line(line, &l)) {
            strbuf_printf(err, "%s: line %zu is not a slabinfo line", path, lineno);
            fclose(f);
            sysfs_slab_release(t);
            return -EINVAL;
        }
        snprintf(c->dir, sizeof(c->dir), "%s", l.name);
        snprintf(c->name, sizeof(c->name), "%s", l.name);
        snprintf(c->args.name, sizeof(c->args.name), "%s", l.name);
        c->args.object_size = l.objsize;
        c->kmalloc = sysfs_is_kmalloc_name(l.name);
        if (c->kmalloc)
            c->args.flags |= SIM_SLAB_KMALLOC;
        c->kernel[SYSFS_SLAB_SIZE] = l.objsize;
        c->kernel[SYSFS_OBJS_PER_SLAB] = l.objperslab;
        c->kernel[SYSFS_ORDER] = slabinfo_order(l.pagesperslab);
        if (!slabinfo_infer_align(&c->args, cpus, l.objperslab, c->kernel[SYSFS_ORDER]))
            (*unmatched)++;
        c->kernel[SYSFS_ALIGN] = c->args.align;
        c->has_counts = true;
        c->objects = l.active_objs;
        c->total_objects = l.num_objs;
        c->slabs = l.num_slabs;
        t->nr++;
    }
    fclose(f);
    if (lineno == 0 || (lineno == 1 && !t->nr)) {
        strbuf_printf(err, "%s: not a /proc/slabinfo version 2.1 file", path);
        sysfs_slab_release(t);
        return -EINVAL;
    }
    return 0;
}

int slabinfo_read(const char *path, unsigned cpus, struct sysfs_tree *t, unsigned *unmatched,
                  struct strbuf *err)
{
    FILE *f = fopen(path, "r");

    memset(t, 0, sizeof(*t));
    *unmatched = 0;
    if (!f) {
        int e = errno;

        strbuf_printf(err, "cannot open %s: %s", path, strerror(e));
        return e ? -e : -EIO;
    }
    return read_stream(f, path, cpus, t, unmatched, err);
}

int slabinfo_read_mem(const char *buf, size_t len, const char *label, unsigned cpus,
                      struct sysfs_tree *t, unsigned *unmatched, struct strbuf *err)
{
    FILE *f = len ? fmemopen((void *)(uintptr_t)buf, len, "r") : NULL;

    memset(t, 0, sizeof(*t));
    *unmatched = 0;
    if (!f) {
        if (len)
            return -ENOMEM;
        strbuf_printf(err, "%s: not a /proc/slabinfo version 2.1 file", label);
        return -EINVAL;
    }
    return read_stream(f, label, cpus, t, unmatched, err);
}
