/*
 * strbuf.c: the growable text buffer (see strbuf.h).
 *
 * Capacity doubles, starting at 64 bytes, so appending n bytes in total
 * costs O(n).  Every allocation failure is sticky: once sb->failed is set
 * further appends are refused, so a half-built text can never be mistaken
 * for a whole one.
 */
#include "base/strbuf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void strbuf_release(struct strbuf *sb)
{
    if (!sb)
        return;
    free(sb->buf);
    sb->buf = NULL;
    sb->len = 0;
    sb->cap = 0;
    sb->failed = false;
}

int strbuf_detach(struct strbuf *sb, char **out, size_t *len)
{
    if (sb->failed) {
        strbuf_release(sb);
        return -ENOMEM;
    }
    *out = sb->buf;
    *len = sb->len;
    sb->buf = NULL;
    sb->len = sb->cap = 0;
    return 0;
}

int strbuf_detach_bytes(struct strbuf *sb, unsigned char **out, size_t *len)
{
    char *p;

    if (strbuf_detach(sb, &p, len))
        return -ENOMEM;
    *out = (unsigned char *)p;
    return 0;
}

void strbuf_reset(struct strbuf *sb)
{
    sb->len = 0;
    if (sb->buf)
        sb->buf[0] = '\0';
}

void strbuf_truncate(struct strbuf *sb, size_t len)
{
    if (len >= sb->len)
        return;
    sb->len = len;
    sb->buf[len] = '\0';
}

/* Make room for @extra more bytes plus the NUL. */
static bool strbuf_grow(struct strbuf *sb, size_t extra)
{
    size_t need, cap;
    char *p;

    if (sb->failed)
        return false;
    if (extra > (size_t)-1 / 2 - sb->len)
        goto err_failed;
    need = sb->len + extra + 1;
    if (need <= sb->cap)
        return true;
    cap = sb->cap ? sb->cap : 64;
    while (cap < need)
        cap *= 2;
    p = realloc(sb->buf, cap);
    if (!p)
        goto err_failed;
    sb->buf = p;
    sb->cap = cap;
    return true;

err_failed:
    sb->failed = true;
    return false;
}

bool strbuf_append(struct strbuf *sb, const char *data, size_t len)
{
    if (!strbuf_grow(sb, len))
        return false;
    if (len)
        memcpy(sb->buf + sb->len, data, len);
    sb->len += len;
    sb->buf[sb->len] = '\0';
    return true;
}

bool strbuf_puts(struct strbuf *sb, const char *s)
{
    return strbuf_append(sb, s, strlen(s));
}

bool strbuf_printf(struct strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    int n;

    /* Measure first, so the text is formatted exactly once into place. */
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !strbuf_grow(sb, (size_t)n)) {
        sb->failed = true;
        return false;
    }
    va_start(ap, fmt);
    vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
    return true;
}

const char *strbuf_str(const struct strbuf *sb)
{
    return sb->buf ? sb->buf : "";
}

bool strbuf_failed(const struct strbuf *sb)
{
    return sb->failed;
}
