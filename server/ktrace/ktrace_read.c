/*
 * ktrace_read.c: lines of a trace file, plain or gzip.
 *
 * The input is read in 64 KiB chunks from a file descriptor or a memory
 * buffer; when it starts with the gzip magic it goes through zlib's
 * inflate (concatenated gzip members are read one after another), else it
 * is taken as it is.  Lines are handed out in place from one buffer of
 * KTRACE_MAX_LINE plus a chunk, so memory stays bounded whatever the
 * input: a longer line is skipped up to its newline and counted.  A gzip
 * stream that ends before its trailer ("cut short") or does not inflate
 * is an error reported after the lines that could be read.  The position
 * in the compressed input is kept for progress bars.
 */
#include "ktrace/ktrace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define CHUNK   (64u << 10)
#define BUF_CAP (KTRACE_MAX_LINE + 1 + CHUNK)

struct ktrace_reader {
    int fd; /* -1 for a memory buffer */
    const unsigned char *mem;
    size_t mem_len, mem_pos;
    uint64_t pos, size; /* raw bytes consumed; input size (0: unknown) */
    uint64_t skip;      /* bytes before the trace (ktrace_skip()), where a rewind goes */
    bool started, gz, in_eof, done, skipping;
    z_stream z; /* valid when gz */
    unsigned char in[CHUNK];
    size_t in_len, in_off; /* plain input not yet copied to buf */
    char *buf;             /* BUF_CAP bytes */
    size_t start, end;     /* unread text is buf[start..end) */
    uint64_t overlong;
    uint64_t text, max_text; /* text bytes produced (this pass); 0: no limit */
    unsigned ratio;          /* gz: text over ratio * pos is refused; 0: no limit */
    char error[160];
};

static int reader_new(struct ktrace_reader **out)
{
    struct ktrace_reader *r = calloc(1, sizeof(*r));

    if (!r)
        return -ENOMEM;
    r->buf = malloc(BUF_CAP);
    if (!r->buf) {
        free(r);
        return -ENOMEM;
    }
    r->fd = -1;
    *out = r;
    return 0;
}

int ktrace_open(const char *path, struct ktrace_reader **out, struct strbuf *err)
{
    struct ktrace_reader *r;
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0) {
        int e = errno;

        strbuf_printf(err, "cannot open %s: %s", path, strerror(e));
        return -e;
    }
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        strbuf_printf(err, "%s is a directory", path);
        return -EISDIR;
    }
    if (reader_new(&r)) {
        close(fd);
        strbuf_printf(err, "out of memory");
        return -ENOMEM;
    }
    r->fd = fd;
    if (S_ISREG(st.st_mode))
        r->size = (uint64_t)st.st_size;
    *out = r;
    return 0;
}

int ktrace_open_mem(const void *buf, size_t len, struct ktrace_reader **out)
{
    struct ktrace_reader *r;

    if (reader_new(&r))
        return -ENOMEM;
    r->mem = buf;
    r->mem_len = len;
    r->size = len;
    *out = r;
    return 0;
}

int ktrace_skip(struct ktrace_reader *r, uint64_t n)
{
    if (r->pos || r->in_len || (r->size && n > r->size))
        return -EINVAL;
    if (r->fd < 0)
        r->mem_pos = (size_t)n;
    else if (lseek(r->fd, (off_t)n, SEEK_SET) < 0)
        return -errno;
    r->skip = n;
    if (r->size) /* progress is the share of what follows */
        r->size -= n;
    return 0;
}

/* Read raw input into r->in.  Bytes read, 0 at the end, -EIO on error. */
static ssize_t read_raw(struct ktrace_reader *r)
{
    ssize_t n;

    if (r->fd < 0) {
        size_t left = r->mem_len - r->mem_pos;

        n = (ssize_t)(left < CHUNK ? left : CHUNK);
        memcpy(r->in, r->mem + r->mem_pos, (size_t)n);
        r->mem_pos += (size_t)n;
    } else {
        do
            n = read(r->fd, r->in, CHUNK);
        while (n < 0 && errno == EINTR);
        if (n < 0) {
            snprintf(r->error, sizeof(r->error), "read error: %s", strerror(errno));
            return -EIO;
        }
    }
    r->pos += (uint64_t)n;
    if (n == 0)
        r->in_eof = true;
    return n;
}

/* Feed inflate the next raw input once it used up the last.  0 or -EIO. */
static int feed_inflate(struct ktrace_reader *r)
{
    ssize_t n;

    if (r->z.avail_in || r->in_eof)
        return 0;
    if ((n = read_raw(r)) < 0)
        return -EIO;
    r->z.next_in = r->in;
    r->z.avail_in = (uInt)n;
    return 0;
}

static int start(struct ktrace_reader *r)
{
    ssize_t n = read_raw(r);

    if (n < 0)
        return -EIO;
    r->started = true;
    r->gz = n >= 2 && r->in[0] == 0x1f && r->in[1] == 0x8b;
    if (r->gz) {
        memset(&r->z, 0, sizeof(r->z));
        if (inflateInit2(&r->z, 15 + 16) != Z_OK) {
            snprintf(r->error, sizeof(r->error), "zlib: cannot start inflate");
            r->gz = false;
            return -EIO;
        }
        r->z.next_in = r->in;
        r->z.avail_in = (uInt)n;
    } else {
        r->in_len = (size_t)n;
        r->in_off = 0;
    }
    return 0;
}

/* Append decompressed text to buf.  1: got some, 0: end, -EIO. */
static int fill_text(struct ktrace_reader *r)
{
    size_t room = BUF_CAP - r->end;

    if (!r->started && start(r))
        return -EIO;
    if (r->done)
        return 0;
    if (!r->gz) {
        if (r->in_off == r->in_len) {
            ssize_t n = read_raw(r);

            if (n < 0)
                return -EIO;
            if (n == 0) {
                r->done = true;
                return 0;
            }
            r->in_len = (size_t)n;
            r->in_off = 0;
        }
        if (room > r->in_len - r->in_off)
            room = r->in_len - r->in_off;
        memcpy(r->buf + r->end, r->in + r->in_off, room);
        r->in_off += room;
        r->end += room;
        return 1;
    }
    for (;;) {
        int ret;

        if (feed_inflate(r))
            return -EIO;
        r->z.next_out = (Bytef *)(r->buf + r->end);
        r->z.avail_out = (uInt)room;
        ret = inflate(&r->z, Z_NO_FLUSH);
        r->end = BUF_CAP - r->z.avail_out;
        if (ret == Z_STREAM_END) {
            if (feed_inflate(r))
                return -EIO;
            if (r->z.avail_in == 0) {
                r->done = true;
            } else if (inflateReset(&r->z) != Z_OK) { /* another gzip member */
                snprintf(r->error, sizeof(r->error), "zlib: cannot restart inflate");
                return -EIO;
            }
        } else if (ret == Z_BUF_ERROR && r->in_eof && r->z.avail_in == 0) {
            snprintf(r->error, sizeof(r->error),
                     "gzip stream cut short after %llu compressed bytes",
                     (unsigned long long)r->pos);
            return -EIO;
        } else if (ret != Z_OK && ret != Z_BUF_ERROR) {
            snprintf(r->error, sizeof(r->error), "gzip data is corrupt (%s) near byte %llu",
                     r->z.msg ? r->z.msg : "inflate failed", (unsigned long long)r->pos);
            return -EIO;
        }
        if (r->z.avail_out < room)
            return 1;
        if (r->done)
            return 0;
    }
}

/* fill_text(), held to max_text: a small gzip can expand without bound. */
static int fill(struct ktrace_reader *r)
{
    size_t before = r->end;
    int ret = fill_text(r);

    r->text += r->end - before;
    if (ret > 0 && r->max_text && r->text > r->max_text) {
        snprintf(r->error, sizeof(r->error), "the trace's text passes %llu MiB",
                 (unsigned long long)(r->max_text >> 20));
        return -EFBIG;
    }
    /* pos counts whole chunks read ahead, so the first CHUNK * ratio bytes always pass */
    if (ret > 0 && r->gz && r->ratio && r->text > (uint64_t)r->ratio * r->pos) {
        snprintf(r->error, sizeof(r->error),
                 "the trace expands more than %u times its compressed size", r->ratio);
        return -EFBIG;
    }
    return ret;
}

int ktrace_next_line(struct ktrace_reader *r, const char **line, size_t *len)
{
    for (;;) {
        char *nl = memchr(r->buf + r->start, '\n', r->end - r->start);
        int got;

        if (nl) {
            size_t s = r->start, n = (size_t)(nl - (r->buf + s));

            r->start = s + n + 1;
            if (r->skipping) {
                r->skipping = false;
                continue;
            }
            if (n > KTRACE_MAX_LINE) {
                r->overlong++;
                continue;
            }
            if (n && r->buf[s + n - 1] == '\r')
                n--;
            *line = r->buf + s;
            *len = n;
            return 1;
        }
        if (r->end - r->start > KTRACE_MAX_LINE) {
            if (!r->skipping)
                r->overlong++;
            r->skipping = true;
            r->start = r->end;
        }
        if (r->start) {
            memmove(r->buf, r->buf + r->start, r->end - r->start);
            r->end -= r->start;
            r->start = 0;
        }
        got = fill(r);
        if (got < 0)
            return got == -EFBIG ? -EFBIG : -EIO;
        if (got == 0) {
            size_t n = r->end - r->start;

            if (n == 0 || r->skipping) {
                r->start = r->end;
                return 0;
            }
            r->start = r->end; /* a last line without its newline */
            if (r->buf[n - 1] == '\r')
                n--;
            *line = r->buf;
            *len = n;
            return 1;
        }
    }
}

uint64_t ktrace_reader_overlong(const struct ktrace_reader *r)
{
    return r->overlong;
}

void ktrace_reader_limit(struct ktrace_reader *r, uint64_t max_text)
{
    r->max_text = max_text;
}

void ktrace_reader_ratio(struct ktrace_reader *r, unsigned ratio)
{
    r->ratio = ratio;
}

uint64_t ktrace_reader_pos(const struct ktrace_reader *r)
{
    return r->pos;
}

uint64_t ktrace_reader_size(const struct ktrace_reader *r)
{
    return r->size;
}

const char *ktrace_reader_error(const struct ktrace_reader *r)
{
    return r->error[0] ? r->error : "no error";
}

int ktrace_rewind(struct ktrace_reader *r)
{
    if (r->fd >= 0 && lseek(r->fd, (off_t)r->skip, SEEK_SET) != (off_t)r->skip) {
        snprintf(r->error, sizeof(r->error), "cannot rewind: %s", strerror(errno));
        return -EIO;
    }
    if (r->gz)
        inflateEnd(&r->z);
    r->mem_pos = (size_t)r->skip;
    r->pos = 0;
    r->started = r->gz = r->in_eof = r->done = r->skipping = false;
    r->in_len = r->in_off = 0;
    r->start = r->end = 0;
    r->overlong = 0;
    r->text = 0;
    r->error[0] = 0;
    return 0;
}

void ktrace_close(struct ktrace_reader *r)
{
    if (!r)
        return;
    if (r->gz)
        inflateEnd(&r->z);
    if (r->fd >= 0)
        close(r->fd);
    free(r->buf);
    free(r);
}
