/*
 * base64.c: RFC 4648 base64 (see base64.h).  Decoding is strict: the
 * standard alphabet only, in groups of four with "=" padding at the end,
 * no white space, so a text decodes one way only.
 */
#include "base/base64.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *base64_encode(const uint8_t *p, size_t len)
{
    char *out = malloc((len + 2) / 3 * 4 + 1), *o = out;
    size_t i;

    if (!out)
        return NULL;
    for (i = 0; i + 2 < len; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];

        *o++ = alphabet[v >> 18];
        *o++ = alphabet[v >> 12 & 63];
        *o++ = alphabet[v >> 6 & 63];
        *o++ = alphabet[v & 63];
    }
    if (i < len) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < len ? (uint32_t)p[i + 1] << 8 : 0);

        *o++ = alphabet[v >> 18];
        *o++ = alphabet[v >> 12 & 63];
        *o++ = i + 1 < len ? alphabet[v >> 6 & 63] : '=';
        *o++ = '=';
    }
    *o = '\0';
    return out;
}

/* The value of base64 digit @c, or -1. */
static int digit(char c)
{
    const char *d = c ? strchr(alphabet, c) : NULL;

    return d ? (int)(d - alphabet) : -1;
}

int base64_decode(const char *text, uint8_t **out, size_t *len)
{
    size_t n = strlen(text), i, o = 0;
    uint8_t *buf;

    if (n % 4)
        return -EINVAL;
    if (!(buf = malloc(n / 4 * 3 + 1)))
        return -ENOMEM;
    for (i = 0; i < n; i += 4) {
        bool last = i + 4 == n;
        int a = digit(text[i]), b = digit(text[i + 1]);
        int c = last && text[i + 2] == '=' && text[i + 3] == '=' ? 0 : digit(text[i + 2]);
        int d = last && text[i + 3] == '=' ? 0 : digit(text[i + 3]);
        uint32_t v;

        if (a < 0 || b < 0 || c < 0 || d < 0) {
            free(buf);
            return -EINVAL;
        }
        v = (uint32_t)a << 18 | (uint32_t)b << 12 | (uint32_t)c << 6 | (uint32_t)d;
        buf[o++] = (uint8_t)(v >> 16);
        if (!last || text[i + 2] != '=')
            buf[o++] = (uint8_t)(v >> 8 & 0xff);
        if (!last || text[i + 3] != '=')
            buf[o++] = (uint8_t)(v & 0xff);
    }
    *out = buf;
    *len = o;
    return 0;
}
