/*
 * kfiles.h: a machine's state as the files existing tools read.
 *
 * `slublab export`, the server's export route and the reports turn one
 * engine snapshot into what a live kernel shows: /proc/slabinfo (version
 * 2.1, as mm/slab_common.c:cache_show() prints it) and a /sys/kernel/slab
 * style tree (per-cache attribute files in the formats of mm/slub.c's
 * show functions, alias symlinks, counter files in show_stat()'s
 * "TOTAL C0=.. C1=.." form).  procps `slabtop` and the kernel's
 * tools/mm/slabinfo read them unchanged (docs/export.md).
 *
 * The tree is built in memory first (struct sysfs_tree), then written to a
 * directory in place (files rewritten through their inodes, never renamed over,
 * so a bind mount of the directory or of a file keeps seeing new content) or
 * packed as a tar archive for a download.
 */
#ifndef SLUBLAB_SERVER_KFILES_KFILES_H
#define SLUBLAB_SERVER_KFILES_KFILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slub.h"
#include "scenario/names.h"
#include "base/strbuf.h"

enum sysfs_kind {
    SYSFS_DIR,  /* a cache directory */
    SYSFS_FILE, /* an attribute file: data holds its content */
    SYSFS_LINK, /* a symbolic link: data holds its target (a sibling's name) */
};

struct sysfs_entry {
    enum sysfs_kind kind;
    char *path; /* relative to the tree's root: "kmalloc-64", ":0000064/objects"; owned */
    char *data; /* FILE: content; LINK: target; DIR: NULL; owned */
    size_t len; /* bytes of data (FILE) */
};

/* Entries in writing order: each directory before its files; links last. */
struct sysfs_tree {
    struct sysfs_entry *e;
    size_t nr, cap;
};

/* slabinfo.c */

/*
 * /proc/slabinfo of @snap: the version 2.1 header, then one line per live
 * cache, newest first (the kernel adds caches at the head of slab_caches).
 * False when the host ran out of memory.
 */
bool slabinfo_text(struct strbuf *out, const struct sim_snapshot *snap);

/* sysfs_tree.c */

/*
 * Build the /sys/kernel/slab tree of @snap.  @aliases maps further names to
 * cache ids (a replay's rp->aliases; NULL for none); a cache with aliases
 * lives in its unique-id directory (":0000064") with every name a symlink
 * to it, as for a merged cache; a cache without lives in a directory named
 * after it.  Destroyed caches and aliases of caches not in @snap are left
 * out.  0, or -ENOMEM (then @t is empty).
 */
int sysfs_tree_build(struct sysfs_tree *t, const struct sim_snapshot *snap,
                     const struct names *aliases);
/* The entry at @path, or NULL. */
const struct sysfs_entry *sysfs_tree_find(const struct sysfs_tree *t, const char *path);
/* Free every entry; a zeroed or released tree is fine. */
void sysfs_tree_release(struct sysfs_tree *t);
/* The kernel's create_unique_id() name of a cache: ':', flag letters, '-', size. */
void sysfs_unique_id(const struct sim_snap_cache *c, char *buf, size_t size);

/* sysfs_cpu.c */

/*
 * The per-CPU slab files of cache @c, appended to @sb in mm/slub.c's
 * formats: cpu_slabs (show_slab_objects(SO_CPU)), cpu_partial and
 * slabs_cpu_partial; in the sheaves model "0", "0" and "0(0)", as the
 * kernels without cpu slabs show them.  Cannot fail (a failed append
 * shows in strbuf_failed(@sb)).
 */
void sysfs_cpu_slabs(struct strbuf *sb, const struct sim_snapshot *snap,
                     const struct sim_snap_cache *c);
void sysfs_cpu_partial(struct strbuf *sb, const struct sim_snapshot *snap,
                       const struct sim_snap_cache *c);
void sysfs_slabs_cpu_partial(struct strbuf *sb, const struct sim_snapshot *snap,
                             const struct sim_snap_cache *c);
/*
 * The counter file of stat @item of cache @c, appended to @sb in
 * mm/slub.c:show_stat()'s format: the sum over CPUs, then " C<cpu>=<n>" for
 * each CPU whose count is not 0, and a newline.  Cannot fail (a failed
 * append shows in strbuf_failed(@sb)).
 */
void sysfs_stat_show(struct strbuf *sb, const struct sim_snapshot *snap,
                     const struct sim_snap_cache *c, unsigned item);

/* sysfs_write.c */

/*
 * Write @len bytes to @path in place: created when missing, else rewritten
 * through the same inode (never a rename), and not touched at all when it
 * already holds those bytes.  0 or a negative errno.
 */
int export_write_file(const char *path, const char *data, size_t len);
/*
 * Write @t under @dir (created when missing), in place.  Entries of an
 * earlier export that @t no longer has (a destroyed cache, a dropped alias)
 * are removed.  Refuses (-ENOTDIR/-EEXIST, reason in @err) a @dir that
 * holds anything a slab tree does not: a regular file, or a directory
 * without an objs_per_slab file.  0 or a negative errno with @err set.
 */
int export_write_tree(const char *dir, const struct sysfs_tree *t, struct strbuf *err);

/* tar.c */

/*
 * @t as a POSIX ustar archive, every path under @prefix ("slab"): the
 * directory itself, then the entries.  Times are 0 so that the archive is
 * a pure function of the tree.  False when the host ran out of memory or
 * a name is too long for ustar.
 */
bool tar_tree(struct strbuf *out, const struct sysfs_tree *t, const char *prefix);

#endif /* SLUBLAB_SERVER_KFILES_KFILES_H */
