/*
 * sysfs_write.c: writing an export to disk, in place (see kfiles.h).
 *
 * A reader often sees the export through a bind mount: the slabinfo file
 * mounted over /proc/slabinfo, the tree over /sys/kernel/slab.  A bind mount
 * pins an inode, so a file is never replaced by rename: it is rewritten through
 * the same inode (left alone when its content is the same), and the tree's root
 * directory stays the same directory.  Inside the tree, entries are opened
 * relative to the root (openat() and friends, symbolic links never followed),
 * so a link in a stale tree cannot send a write elsewhere.
 *
 * Before writing anything the root is checked: it may hold only what an
 * export writes (directories with an objs_per_slab file, and symbolic
 * links), so pointing --sysfs at the wrong directory loses nothing.
 */
#include "kfiles/kfiles.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_all(int fd, const char *data, size_t len)
{
    off_t off = 0;

    while (len) {
        ssize_t n = pwrite(fd, data, len, off);

        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        data += n;
        len -= (size_t)n;
        off += n;
    }
    return 0;
}

/* Does the file behind @fd hold exactly @data? */
static bool same_content(int fd, const char *data, size_t len)
{
    char buf[4096];
    struct stat st;
    size_t done = 0;

    if (fstat(fd, &st) || (size_t)st.st_size != len)
        return false;
    while (done < len) {
        size_t want = len - done < sizeof(buf) ? len - done : sizeof(buf);
        ssize_t n = pread(fd, buf, want, (off_t)done);

        if (n <= 0 || memcmp(buf, data + done, (size_t)n))
            return false;
        done += (size_t)n;
    }
    return true;
}

/*
 * Rewrite the file behind @fd (opened read-write, not truncated) with
 * @data, then close it.  An unchanged file is left alone; a changed one is
 * overwritten from offset 0 and then cut to its new length, never truncated
 * to 0 first (ext4 flushes a file truncated to 0 and rewritten at close,
 * which made every export wait on the disk).
 */
static int write_fd(int fd, const char *data, size_t len)
{
    int err = 0;

    if (fd < 0)
        return -errno;
    if (!same_content(fd, data, len)) {
        err = write_all(fd, data, len);
        if (!err && ftruncate(fd, (off_t)len))
            err = -errno;
    }
    if (close(fd) && !err)
        err = -errno;
    return err;
}

int export_write_file(const char *path, const char *data, size_t len)
{
    return write_fd(open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644), data, len);
}

/* A directory an export made: it holds an objs_per_slab file. */
static bool is_slab_dir(int root, const char *name)
{
    char path[512];
    struct stat st;

    snprintf(path, sizeof(path), "%s/objs_per_slab", name);
    return fstatat(root, path, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

/* Remove slab directory @name of @root: its regular files, then itself. */
static int remove_slab_dir(int root, const char *name)
{
    int fd = openat(root, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), err = 0;
    struct dirent *de;
    DIR *d;

    if (fd < 0)
        return -errno;
    if (!(d = fdopendir(fd))) {
        err = -errno;
        close(fd);
        return err;
    }
    while (!err && (de = readdir(d))) {
        struct stat st;

        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
            err = -ENOTEMPTY;
        else if (unlinkat(fd, de->d_name, 0))
            err = -errno;
    }
    closedir(d);
    if (!err && unlinkat(root, name, AT_REMOVEDIR))
        err = -errno;
    return err;
}

/*
 * Every top-level entry of @root: check that it is something an export
 * writes (@remove false), or remove those @t does not have (@remove true).
 */
static int scan_root(int root, const char *dir, const struct sysfs_tree *t, bool remove,
                     struct strbuf *err)
{
    int fd = openat(root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret = 0;
    struct dirent *de;
    DIR *d;

    if (fd < 0 || !(d = fdopendir(fd))) {
        ret = -errno;
        if (fd >= 0)
            close(fd);
        strbuf_printf(err, "%s: %s", dir, strerror(-ret));
        return ret;
    }
    while (!ret && (de = readdir(d))) {
        struct stat st;

        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (fstatat(root, de->d_name, &st, AT_SYMLINK_NOFOLLOW)) {
            ret = -errno;
            strbuf_printf(err, "%s/%s: %s", dir, de->d_name, strerror(-ret));
        } else if (!remove) {
            if (!S_ISLNK(st.st_mode) && !(S_ISDIR(st.st_mode) && is_slab_dir(root, de->d_name))) {
                ret = -EEXIST;
                strbuf_printf(err,
                              "%s holds %s, which is not a slab cache directory or alias; "
                              "refusing to write there (give an empty or new directory)",
                              dir, de->d_name);
            }
        } else if (!sysfs_tree_find(t, de->d_name)) {
            if (S_ISLNK(st.st_mode))
                ret = unlinkat(root, de->d_name, 0) ? -errno : 0;
            else if (S_ISDIR(st.st_mode))
                ret = remove_slab_dir(root, de->d_name);
            if (ret)
                strbuf_printf(err, "%s/%s: cannot remove: %s", dir, de->d_name, strerror(-ret));
        }
    }
    closedir(d);
    return ret;
}

static int write_entry(int root, const struct sysfs_entry *e)
{
    char target[512];
    struct stat st;
    ssize_t n;

    switch (e->kind) {
    case SYSFS_DIR:
        if (!mkdirat(root, e->path, 0755))
            return 0;
        if (errno != EEXIST || fstatat(root, e->path, &st, AT_SYMLINK_NOFOLLOW))
            return -errno;
        if (S_ISDIR(st.st_mode))
            return 0;
        if (!S_ISLNK(st.st_mode) || unlinkat(root, e->path, 0) || mkdirat(root, e->path, 0755))
            return S_ISLNK(st.st_mode) ? -errno : -EEXIST;
        return 0;
    case SYSFS_FILE:
        return write_fd(openat(root, e->path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644),
                        e->data, e->len);
    case SYSFS_LINK:
        if (!fstatat(root, e->path, &st, AT_SYMLINK_NOFOLLOW)) {
            if (S_ISLNK(st.st_mode)) {
                n = readlinkat(root, e->path, target, sizeof(target) - 1);
                if (n >= 0 && (size_t)n == e->len && !memcmp(target, e->data, e->len))
                    return 0;
                if (unlinkat(root, e->path, 0))
                    return -errno;
            } else if (S_ISDIR(st.st_mode)) {
                int err = remove_slab_dir(root, e->path);

                if (err)
                    return err;
            } else {
                return -EEXIST;
            }
        }
        return symlinkat(e->data, root, e->path) ? -errno : 0;
    }
    return -EINVAL;
}

int export_write_tree(const char *dir, const struct sysfs_tree *t, struct strbuf *err)
{
    struct stat st;
    size_t i;
    int root, ret;

    if (stat(dir, &st)) {
        if (errno != ENOENT || mkdir(dir, 0755)) {
            ret = -errno;
            strbuf_printf(err, "%s: %s", dir, strerror(-ret));
            return ret;
        }
    } else if (!S_ISDIR(st.st_mode)) {
        strbuf_printf(err, "%s: not a directory", dir);
        return -ENOTDIR;
    }
    if ((root = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        ret = -errno;
        strbuf_printf(err, "%s: %s", dir, strerror(-ret));
        return ret;
    }
    if ((ret = scan_root(root, dir, t, false, err)))
        goto out_close;
    for (i = 0; i < t->nr && !ret; i++)
        if ((ret = write_entry(root, &t->e[i])))
            strbuf_printf(err, "%s/%s: %s", dir, t->e[i].path, strerror(-ret));
    if (!ret)
        ret = scan_root(root, dir, t, true, err);
out_close:
    close(root);
    return ret;
}
