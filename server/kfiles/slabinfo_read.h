/*
 * slabinfo_read.h: a /proc/slabinfo (version 2.1) read back (see
 * slabinfo_read.c): one line at a time, or the whole file as the caches of
 * a sysfs tree, for the commands that take a real machine's caches.
 */
#ifndef SLUBLAB_SERVER_KFILES_SLABINFO_READ_H
#define SLUBLAB_SERVER_KFILES_SLABINFO_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"
#include "kfiles/sysfs_slab.h"
#include "slub.h"

/* The CPUs a slabinfo's geometry is sized for when none are given (the sample's machine). */
#define SLABINFO_DEFAULT_CPUS 2u
#define SLABINFO_MAX_SIZE (64u << 20) /* largest <objsize> taken (a scenario's largest object) */

struct slabinfo_line {
    char name[SIM_NAME_MAX];
    unsigned long active_objs, num_objs, num_slabs;
    unsigned objsize;      /* s->size */
    unsigned objperslab;   /* oo's objects */
    unsigned pagesperslab; /* a power of two */
};

/* One cache line of the file; false when it is not one (or its numbers are out of range). */
bool slabinfo_parse_line(const char *line, struct slabinfo_line *out);
/* The smallest alignment that gives @objs objects per slab at @order on @cpus CPUs, in
 * a->align (0 and false when none does). */
bool slabinfo_infer_align(struct sim_cache_args *a, unsigned cpus, unsigned objs, unsigned order);
/* The order of a slab of @pages pages (a power of two).  Cannot fail. */
unsigned slabinfo_order(unsigned pages);
/*
 * Read the file at @path into @t (released with sysfs_slab_release()):
 * each line a cache with its name, object size (= slab size), inferred
 * alignment, the kernel's geometry and counts; *unmatched counts the lines
 * whose geometry no alignment gives.  0, -EINVAL (not such a file, or a
 * bad line, with why in @err), -ENOMEM or the open's -errno.
 */
int slabinfo_read(const char *path, unsigned cpus, struct sysfs_tree *t, unsigned *unmatched,
                  struct strbuf *err);
/* As slabinfo_read(), of the @len bytes at @buf, named @label in messages. */
int slabinfo_read_mem(const char *buf, size_t len, const char *label, unsigned cpus,
                      struct sysfs_tree *t, unsigned *unmatched, struct strbuf *err);

#endif
