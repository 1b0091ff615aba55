/*
 * tar_read.c: a tar archive read into memory (see tar_read.h).
 *
 * zlib's gz* functions read a gzip file and, transparently, a plain one, so
 * one loop serves .tar and .tar.gz.  Each member is a 512-byte header
 * (octal fields, a checksum over the header with the checksum field read
 * as spaces), then its data padded to 512 bytes; a zero block ends the
 * archive.  GNU tar writes a name longer than ustar's 100+155 bytes as an
 * 'L' (or 'K', for a link target) member holding the name, pax as an 'x'
 * member of "LEN key=value\n" records (path=, linkpath=); both apply to
 * the next member.  The members are sorted by path at the end so that
 * tar_find() is a binary search.
 */
#include "kfiles/tar_read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define TAR_BLOCK 512u

/* Header field offsets and sizes (POSIX.1-1988 ustar). */
enum {
    H_NAME = 0,
    H_NAME_LEN = 100,
    H_SIZE = 124,
    H_SIZE_LEN = 12,
    H_CHKSUM = 148,
    H_CHKSUM_LEN = 8,
    H_TYPE = 156,
    H_LINK = 157,
    H_LINK_LEN = 100,
    H_MAGIC = 257,
    H_PREFIX = 345,
    H_PREFIX_LEN = 155,
};

struct tar_reader {
    gzFile f;
    const char *label;     /* the archive's path, for messages */
    unsigned long long at; /* bytes of the (uncompressed) archive consumed */
    size_t total;          /* member data kept so far */
    char *long_path;       /* from an 'L' or pax path= member, for the next one; owned */
    char *long_link;       /* from a 'K' or pax linkpath= member; owned */
    struct strbuf *err;
};

static int tar_fail(struct tar_reader *r, int ret, const char *what)
{
    strbuf_printf(r->err, "%s: %s (at byte %llu)", r->label, what, r->at);
    return ret;
}

/* A read error of zlib or of the system, as its reason. */
static int tar_gz_fail(struct tar_reader *r)
{
    int errnum;
    const char *msg = gzerror(r->f, &errnum);

    strbuf_printf(r->err, "%s: %s (at byte %llu)", r->label,
                  errnum == Z_ERRNO ? strerror(errno) : msg, r->at);
    return errnum == Z_ERRNO ? -EIO : -EINVAL;
}

/* Exactly @len bytes into @buf; a short read is a truncated archive. */
static int tar_read_exact(struct tar_reader *r, void *buf, size_t len)
{
    int n = gzread(r->f, buf, (unsigned)len);

    if (n < 0)
        return tar_gz_fail(r);
    if ((size_t)n != len)
        return tar_fail(r, -EINVAL, "truncated");
    r->at += len;
    return 0;
}

/* An octal field: optional leading spaces, digits, then NULs or spaces. */
static bool tar_octal_field(const char *f, size_t len, unsigned long long *out)
{
    unsigned long long v = 0;
    size_t i = 0;
    bool digits = false;

    while (i < len && f[i] == ' ')
        i++;
    for (; i < len && f[i] >= '0' && f[i] <= '7'; i++) {
        if (v >> 60)
            return false;
        v = v * 8 + (unsigned)(f[i] - '0');
        digits = true;
    }
    for (; i < len; i++)
        if (f[i] != ' ' && f[i] != '\0')
            return false;
    *out = v;
    return digits;
}

static bool tar_checksum_ok(const unsigned char *h)
{
    unsigned long long want;
    unsigned long sum = 0;
    long ssum = 0;

    if (!tar_octal_field((const char *)h + H_CHKSUM, H_CHKSUM_LEN, &want))
        return false;
    for (size_t i = 0; i < TAR_BLOCK; i++) {
        unsigned char c = i >= H_CHKSUM && i < H_CHKSUM + H_CHKSUM_LEN ? ' ' : h[i];

        sum += c;
        ssum += (signed char)c; /* some old tars summed signed chars */
    }
    return want == sum || (long long)want == ssum;
}

/* @len bytes of member data, NUL-terminated, then the padding skipped; caller owns *out. */
static int tar_read_data(struct tar_reader *r, unsigned long long len, char **out)
{
    char pad[TAR_BLOCK];
    char *data;
    int ret;

    if (len > TAR_READ_MAX_BYTES - r->total)
        return tar_fail(r, -EFBIG, "more member data than slublab reads from one archive");
    data = malloc((size_t)len + 1);
    if (!data)
        return tar_fail(r, -ENOMEM, "out of memory");
    if (len && (ret = tar_read_exact(r, data, (size_t)len))) {
        free(data);
        return ret;
    }
    data[len] = '\0';
    if (len % TAR_BLOCK && (ret = tar_read_exact(r, pad, TAR_BLOCK - len % TAR_BLOCK))) {
        free(data);
        return ret;
    }
    r->total += (size_t)len;
    *out = data;
    return 0;
}

/* The path= and linkpath= records of a pax extended header. */
static int tar_pax(struct tar_reader *r, const char *p, size_t len)
{
    const char *end = p + len;

    while (p < end) {
        char *rest;
        unsigned long n = strtoul(p, &rest, 10);
        const char *eq, *rec_end = p + n;
        char **slot = NULL;

        if (rest == p || *rest != ' ' || n > (size_t)(end - p) || (size_t)(rest - p) + 2 > n ||
            rec_end[-1] != '\n')
            return tar_fail(r, -EINVAL, "a pax header record that is not \"LEN key=value\"");
        eq = memchr(rest + 1, '=', (size_t)(rec_end - rest - 1));
        if (!eq)
            return tar_fail(r, -EINVAL, "a pax header record without '='");
        if ((size_t)(eq - rest - 1) == 4 && !memcmp(rest + 1, "path", 4))
            slot = &r->long_path;
        else if ((size_t)(eq - rest - 1) == 8 && !memcmp(rest + 1, "linkpath", 8))
            slot = &r->long_link;
        if (slot) {
            free(*slot);
            *slot = strndup(eq + 1, (size_t)(rec_end - eq - 2));
            if (!*slot)
                return tar_fail(r, -ENOMEM, "out of memory");
        }
        p = rec_end;
    }
    return 0;
}

/*
 * @path made canonical in place: "/" and "./" dropped in front, "/" at the
 * end, empty and "." parts.  False for a ".." part.
 */
static bool tar_clean_path(char *path)
{
    char *w = path, *p = path;

    while (*p) {
        size_t n = strcspn(p, "/");

        if (n == 2 && p[0] == '.' && p[1] == '.')
            return false;
        if (n && !(n == 1 && p[0] == '.')) {
            if (w != path)
                *w++ = '/';
            memmove(w, p, n);
            w += n;
        }
        p += n;
        while (*p == '/')
            p++;
    }
    *w = '\0';
    return true;
}

static int tar_add(struct tar_reader *r, struct tar_archive *a, enum tar_type type, char *path,
                   char *data, size_t len)
{
    struct tar_member *m;

    if (a->nr == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 64;

        m = realloc(a->m, cap * sizeof(*m));
        if (!m) {
            free(path);
            free(data);
            return tar_fail(r, -ENOMEM, "out of memory");
        }
        a->m = m;
        a->cap = cap;
    }
    a->m[a->nr++] = (struct tar_member){type, path, data, len};
    return 0;
}

/* One member whose header is @h: kept in @a, remembered for the next, or skipped. */
static int tar_member(struct tar_reader *r, struct tar_archive *a, const unsigned char *h)
{
    const char *hc = (const char *)h;
    unsigned long long size;
    char type = hc[H_TYPE], *data = NULL, *path;
    enum tar_type kind;
    int ret;

    if (memcmp(hc + H_MAGIC, "ustar", 5))
        return tar_fail(r, -EINVAL, "not a ustar header (no \"ustar\" magic)");
    if (!tar_octal_field(hc + H_SIZE, H_SIZE_LEN, &size))
        return tar_fail(r, -EINVAL, "a member size that is not an octal number");
    if (type == '1' || type == '2' || type == '3' || type == '4' || type == '5' || type == '6')
        size = 0; /* links, devices, directories and fifos have no data blocks (POSIX pax) */
    if ((ret = tar_read_data(r, size, &data)))
        return ret;
    switch (type) {
    case 'L':
    case 'K':
        free(type == 'L' ? r->long_path : r->long_link);
        *(type == 'L' ? &r->long_path : &r->long_link) = data;
        return 0;
    case 'x':
        ret = tar_pax(r, data, (size_t)size);
        free(data);
        return ret;
    case '0':
    case '\0':
    case '7':
        kind = TAR_FILE;
        break;
    case '5':
        kind = TAR_DIR;
        break;
    case '2':
        kind = TAR_LINK;
        free(data);
        data = r->long_link ? r->long_link : strndup(hc + H_LINK, strnlen(hc + H_LINK, H_LINK_LEN));
        r->long_link = NULL;
        if (!data)
            return tar_fail(r, -ENOMEM, "out of memory");
        size = strlen(data);
        break;
    default: /* 'g' and what a tree of files does not hold */
        free(data);
        free(r->long_path);
        free(r->long_link);
        r->long_path = r->long_link = NULL;
        return 0;
    }
    if (kind == TAR_DIR) {
        free(data);
        data = NULL;
    }
    if (r->long_path) {
        path = r->long_path;
        r->long_path = NULL;
    } else {
        size_t nlen = strnlen(hc + H_NAME, H_NAME_LEN);
        size_t plen = strnlen(hc + H_PREFIX, H_PREFIX_LEN);

        path = malloc(plen + 1 + nlen + 1);
        if (path) {
            memcpy(path, hc + H_PREFIX, plen);
            path[plen] = '/';
            memcpy(path + plen + 1, hc + H_NAME, nlen);
            path[plen + 1 + nlen] = '\0';
        }
    }
    free(r->long_link);
    r->long_link = NULL;
    if (!path) {
        free(data);
        return tar_fail(r, -ENOMEM, "out of memory");
    }
    if (!tar_clean_path(path)) {
        strbuf_printf(r->err, "%s: member \"%s\" has a \"..\" in its path", r->label, path);
        free(path);
        free(data);
        return -EINVAL;
    }
    if (!path[0]) { /* the archive's own top directory, "./" */
        free(path);
        free(data);
        return 0;
    }
    return tar_add(r, a, kind, path, data, (size_t)size);
}

/* Read to the end, so that gzip's CRC and length at the end are checked too. */
static int tar_drain(struct tar_reader *r)
{
    char buf[TAR_BLOCK];
    int n;

    while ((n = gzread(r->f, buf, sizeof(buf))) > 0)
        r->at += (unsigned)n;
    return n < 0 ? tar_gz_fail(r) : 0;
}

static int tar_member_cmp(const void *x, const void *y)
{
    return strcmp(((const struct tar_member *)x)->path, ((const struct tar_member *)y)->path);
}

int tar_read(const char *path, struct tar_archive *a, struct strbuf *err)
{
    struct tar_reader r = {.label = path, .err = err};
    unsigned char h[TAR_BLOCK];
    static const unsigned char zero[TAR_BLOCK];
    int ret = 0;

    memset(a, 0, sizeof(*a));
    r.f = gzopen(path, "rb");
    if (!r.f) {
        ret = errno == ENOENT ? -ENOENT : -EIO;
        strbuf_printf(err, "cannot open %s: %s", path, errno ? strerror(errno) : "out of memory");
        return ret;
    }
    gzbuffer(r.f, 128 * 1024);
    for (;;) {
        if ((ret = tar_read_exact(&r, h, sizeof(h))))
            break;
        if (!memcmp(h, zero, sizeof(h))) {
            ret = tar_drain(&r); /* the end-of-archive block; what follows is padding */
            break;
        }
        if (!tar_checksum_ok(h)) {
            ret = tar_fail(&r, -EINVAL,
                           r.at == TAR_BLOCK ? "not a tar archive (bad header checksum)"
                                             : "a member header with a bad checksum");
            break;
        }
        if ((ret = tar_member(&r, a, h)))
            break;
    }
    gzclose(r.f);
    free(r.long_path);
    free(r.long_link);
    if (!ret && a->nr > 1) {
        qsort(a->m, a->nr, sizeof(*a->m), tar_member_cmp);
        for (size_t i = 1; i < a->nr && !ret; i++)
            if (!strcmp(a->m[i - 1].path, a->m[i].path)) {
                strbuf_printf(err, "%s: \"%s\" is in the archive twice", path, a->m[i].path);
                ret = -EINVAL;
            }
    }
    if (ret)
        tar_release(a);
    return ret;
}

const struct tar_member *tar_find(const struct tar_archive *a, const char *path)
{
    size_t lo = 0, hi = a->nr;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(path, a->m[mid].path);

        if (!c)
            return &a->m[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

void tar_release(struct tar_archive *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->nr; i++) {
        free(a->m[i].path);
        free(a->m[i].data);
    }
    free(a->m);
    memset(a, 0, sizeof(*a));
}
