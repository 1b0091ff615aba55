/*
 * tar.c: a sysfs tree as a POSIX ustar archive (see kfiles.h).
 *
 * The server's export route hands the /sys/kernel/slab tree to a browser
 * as one download that `tar -xf` unpacks anywhere, symbolic links
 * included.  ustar (POSIX.1-1988, pax's base format) needs no library: a
 * 512-byte header per entry (octal fields, a checksum), the data padded to
 * 512 bytes, two zero blocks at the end.  Owner root, times 0: an archive
 * depends on the tree alone.
 */
#include "kfiles/kfiles.h"

#include <stdio.h>
#include <string.h>

#define TAR_BLOCK 512u

/* Octal @v into field @f of @size bytes: size-1 digits and a NUL. */
static void tar_octal(char *f, size_t size, unsigned long long v)
{
    snprintf(f, size, "%0*llo", (int)(size - 1), v);
}

/* Split @path into ustar's prefix (<= 155) and name (<= 100); false when impossible. */
static bool tar_split(const char *path, char *hdr)
{
    size_t len = strlen(path), i;

    if (len <= 100) {
        memcpy(hdr, path, len);
        return true;
    }
    for (i = len - 1; i > 0; i--) {
        if (path[i] != '/' || i > 155 || len - i - 1 > 100 || len - i - 1 == 0)
            continue;
        memcpy(hdr + 345, path, i);
        memcpy(hdr, path + i + 1, len - i - 1);
        return true;
    }
    return false;
}

static bool tar_entry(struct strbuf *out, const char *path, char type, const char *data, size_t len)
{
    static const char zeros[TAR_BLOCK];
    char hdr[TAR_BLOCK];
    unsigned sum = 0;
    size_t i;

    memset(hdr, 0, sizeof(hdr));
    if (!tar_split(path, hdr))
        return false;
    tar_octal(hdr + 100, 8, type == '5' ? 0755 : type == '2' ? 0777 : 0644);
    tar_octal(hdr + 108, 8, 0);
    tar_octal(hdr + 116, 8, 0);
    tar_octal(hdr + 124, 12, type == '0' ? len : 0);
    tar_octal(hdr + 136, 12, 0);
    hdr[156] = type;
    if (type == '2') {
        if (len > 100)
            return false;
        memcpy(hdr + 157, data, len);
    }
    memcpy(hdr + 257, "ustar", 6);
    memcpy(hdr + 263, "00", 2);
    memcpy(hdr + 265, "root", 4);
    memcpy(hdr + 297, "root", 4);
    memset(hdr + 148, ' ', 8);
    for (i = 0; i < sizeof(hdr); i++)
        sum += (unsigned char)hdr[i];
    snprintf(hdr + 148, 8, "%06o", sum);
    strbuf_append(out, hdr, sizeof(hdr));
    if (type == '0' && len) {
        strbuf_append(out, data, len);
        if (len % TAR_BLOCK)
            strbuf_append(out, zeros, TAR_BLOCK - len % TAR_BLOCK);
    }
    return !strbuf_failed(out);
}

bool tar_tree(struct strbuf *out, const struct sysfs_tree *t, const char *prefix)
{
    static const char zeros[2 * TAR_BLOCK];
    char path[512];
    size_t i;

    snprintf(path, sizeof(path), "%s/", prefix);
    if (!tar_entry(out, path, '5', NULL, 0))
        return false;
    for (i = 0; i < t->nr; i++) {
        const struct sysfs_entry *e = &t->e[i];
        char type = e->kind == SYSFS_DIR ? '5' : e->kind == SYSFS_LINK ? '2' : '0';

        if ((size_t)snprintf(path, sizeof(path), "%s/%s%s", prefix, e->path,
                             e->kind == SYSFS_DIR ? "/" : "") >= sizeof(path))
            return false;
        if (!tar_entry(out, path, type, e->data, e->kind == SYSFS_DIR ? 0 : e->len))
            return false;
    }
    strbuf_append(out, zeros, sizeof(zeros));
    return !strbuf_failed(out);
}
