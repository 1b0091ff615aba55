/*
 * utf8.c: UTF-8 validation and repair (see utf8.h).
 *
 * The rules of RFC 3629: a lead byte says how many continuation bytes
 * (10xxxxxx) follow; the value must need that many (no overlong forms),
 * must not be a UTF-16 surrogate (U+D800..U+DFFF) and must not pass
 * U+10FFFF.
 */
#include "base/utf8.h"

#include <string.h>

/* Length of the valid sequence at @s (at most @len bytes), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t len)
{
    unsigned c = s[0], n, min, v;

    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        n = 1;
        min = 0x80;
        v = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        n = 2;
        min = 0x800;
        v = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 3;
        min = 0x10000;
        v = c & 0x07;
    } else {
        return 0;
    }
    if (len < n + 1)
        return 0;
    for (unsigned i = 1; i <= n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    return n + 1;
}

bool utf8_valid(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;

    while (i < len) {
        size_t n = utf8_seq(p + i, len - i);

        if (!n)
            return false;
        i += n;
    }
    return true;
}

void utf8_sanitize(char *s)
{
    unsigned char *p = (unsigned char *)s;
    size_t len = strlen(s), i = 0;

    while (i < len) {
        size_t n = utf8_seq(p + i, len - i);

        if (n) {
            i += n;
        } else {
            p[i++] = '?';
        }
    }
}
