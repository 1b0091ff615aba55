/*
 * tar_read.h: a tar archive, plain or gzip-compressed, read into memory.
 *
 * The reading side of tar.c: `slublab geometry`, `import` and `replay`
 * take a captured /sys/kernel/slab tree as an archive (the server's own
 * export is one), and `slublab oracle check` reads each kernel's recorded
 * programs from tests/oracle/<release>/programs.tar.gz.  The archive is
 * POSIX ustar with GNU tar's and pax's long names understood; regular
 * files, directories and symbolic links are kept, other members (devices,
 * fifos, hard links) are skipped.  Anything malformed (a bad checksum, a
 * truncated member, a size that is not octal, corrupt gzip data, a path
 * with a ".." component) is refused with the reason, never guessed at.
 */
#ifndef SLUBLAB_SERVER_KFILES_TAR_READ_H
#define SLUBLAB_SERVER_KFILES_TAR_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "base/strbuf.h"

/* The most bytes of member data one archive may hold (-EFBIG beyond). */
#define TAR_READ_MAX_BYTES ((size_t)1 << 30)

enum tar_type {
    TAR_FILE, /* data holds the contents */
    TAR_DIR,  /* data is NULL */
    TAR_LINK, /* a symbolic link: data holds its target */
};

struct tar_member {
    enum tar_type type;
    char *path; /* no "/" or "./" in front, no "/" at the end, no ".." part; owned */
    char *data; /* FILE and LINK: len bytes and a NUL; DIR: NULL; owned */
    size_t len; /* bytes of data */
};

struct tar_archive {
    struct tar_member *m; /* sorted by path, no two alike; owned */
    size_t nr, cap;
};

/*
 * Read the archive at @path (gzip-compressed or not) into @a.  Returns 0,
 * or -ENOENT/-EIO (cannot open or read), -EINVAL (not a well-formed
 * archive), -EFBIG (more than TAR_READ_MAX_BYTES) or -ENOMEM, with the
 * reason appended to @err and @a left empty.
 */
int tar_read(const char *path, struct tar_archive *a, struct strbuf *err);
/* The member at @path (as tar_member.path spells it), or NULL. */
const struct tar_member *tar_find(const struct tar_archive *a, const char *path);
/* Free every member; a zeroed or released archive is fine. */
void tar_release(struct tar_archive *a);

#endif /* SLUBLAB_SERVER_KFILES_TAR_READ_H */
