/*
 * strbuf.h: a growable, always NUL-terminated text buffer.
 *
 * The server builds its text output (reports, tables, operation paths and
 * error messages) in a strbuf so that the same text can go to a terminal now
 * and into an HTTP response later.  Modelled on lwan's lwan-strbuf.c: the
 * append functions return false when the host runs out of memory, after
 * which the buffer keeps what it had and reports the failure through
 * strbuf_failed(), so callers may append freely and check once at the end.
 */
#ifndef SLUBLAB_SERVER_BASE_STRBUF_H
#define SLUBLAB_SERVER_BASE_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf {
    char *buf;   /* NUL-terminated once anything was appended; NULL before */
    size_t len;  /* bytes before the NUL */
    size_t cap;  /* bytes allocated at buf; len < cap whenever buf != NULL */
    bool failed; /* an append ran out of host memory; sticky */
};

#define STRBUF_INIT       \
    {                     \
        NULL, 0, 0, false \
    }

/* Free the buffer and reset it to empty; NULL is fine. */
void strbuf_release(struct strbuf *sb);
/* Empty the buffer but keep its memory.  Cannot fail. */
void strbuf_reset(struct strbuf *sb);
/* Drop everything past @len bytes (no-op if already shorter).  Cannot fail. */
void strbuf_truncate(struct strbuf *sb, size_t len);
/* Append @len bytes of @data.  False (and sb->failed) when out of memory. */
bool strbuf_append(struct strbuf *sb, const char *data, size_t len);
/* Append a NUL-terminated string.  False when out of memory. */
bool strbuf_puts(struct strbuf *sb, const char *s);
/* Append printf-formatted text.  False when out of memory. */
bool strbuf_printf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * Move the bytes out of @sb: *@out (caller frees; NULL when nothing was
 * appended) and *@len, leaving @sb empty.  -ENOMEM when an append had
 * failed; then @sb is released and the out-parameters are untouched.
 */
int strbuf_detach(struct strbuf *sb, char **out, size_t *len);
/* strbuf_detach() for a binary form (overview_save(), timeline_save()). */
int strbuf_detach_bytes(struct strbuf *sb, unsigned char **out, size_t *len);
/* The text so far; never NULL (an empty buffer gives ""). */
const char *strbuf_str(const struct strbuf *sb);
/* True when an earlier append failed. */
bool strbuf_failed(const struct strbuf *sb);

#endif /* SLUBLAB_SERVER_BASE_STRBUF_H */
