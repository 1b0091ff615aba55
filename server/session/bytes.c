/*
 * bytes.c: serialized forms, field by field, and packed (see bytes.h).
 */
#include "session/bytes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

void bytes_put(struct strbuf *w, const void *p, size_t len)
{
    strbuf_append(w, p, len);
}

void bytes_put_u64(struct strbuf *w, uint64_t v)
{
    bytes_put(w, &v, sizeof(v));
}

void bytes_put_str(struct strbuf *w, const char *s)
{
    bytes_put_u64(w, s ? strlen(s) + 1 : 0);
    if (s)
        bytes_put(w, s, strlen(s) + 1);
}

void bytes_put_blob(struct strbuf *w, const void *p, size_t len)
{
    bytes_put_u64(w, len);
    bytes_put(w, p, len);
}

const void *bytes_get(struct bytes_reader *r, size_t len)
{
    const void *p = r->p + r->at;

    if (r->bad || len > r->len - r->at) {
        r->bad = true;
        return NULL;
    }
    r->at += len;
    return p;
}

uint64_t bytes_get_u64(struct bytes_reader *r)
{
    const void *p = bytes_get(r, sizeof(uint64_t));
    uint64_t v = 0;

    if (p)
        memcpy(&v, p, sizeof(v));
    return v;
}

const void *bytes_get_array(struct bytes_reader *r, uint64_t n, size_t size)
{
    if (r->bad || n > (r->len - r->at) / size) {
        r->bad = true;
        return NULL;
    }
    return bytes_get(r, (size_t)n * size);
}

int bytes_get_str(struct bytes_reader *r, char **out)
{
    uint64_t n = bytes_get_u64(r);
    const char *s = n ? bytes_get_array(r, n, 1) : NULL;

    *out = NULL;
    if (r->bad || (n && s[n - 1]))
        return -EINVAL;
    /* bytes_get_array() found the @n bytes, so @n fits a size_t */
    if (n && !(*out = malloc((size_t)n)))
        return -ENOMEM;
    if (n)
        memcpy(*out, s, (size_t)n);
    return 0;
}

int bytes_pack(const void *data, size_t len, void **out, size_t *out_len)
{
    uLongf n = compressBound((uLong)len);
    uint8_t *p = malloc(8 + n);
    uint64_t raw = len;

    if (!p)
        return -ENOMEM;
    memcpy(p, &raw, 8);
    if (compress2(p + 8, &n, data, (uLong)len, 1) != Z_OK) {
        free(p);
        return -ENOMEM;
    }
    *out = p;
    *out_len = 8 + n;
    return 0;
}

int bytes_unpack(const void *blob, size_t len, unsigned char **out, size_t *out_len)
{
    uint64_t raw;
    uLongf n;
    unsigned char *p;

    if (len < 8)
        return -EIO;
    memcpy(&raw, blob, 8);
    if (raw > (64ull << 30) || raw > SIZE_MAX / 2 || !(p = malloc(raw ? (size_t)raw : 1)))
        return -ENOMEM;
    n = (uLongf)raw;
    if (uncompress(p, &n, (const uint8_t *)blob + 8, (uLong)(len - 8)) != Z_OK || n != raw) {
        free(p);
        return -EIO;
    }
    *out = p;
    *out_len = (size_t)raw;
    return 0;
}
