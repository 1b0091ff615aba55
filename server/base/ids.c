/*
 * ids.c: random ids and tokens (see ids.h).
 */
#include "base/ids.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>

static int ids_fill(unsigned char *buf, size_t len)
{
    size_t got = 0;

    while (got < len) {
        ssize_t n = getrandom(buf + got, len - got, 0);

        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -EIO;
        }
        got += (size_t)n;
    }
    return 0;
}

int ids_random(char *buf, size_t len)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
    unsigned char raw[64];
    size_t i;

    if (len >= sizeof(raw) || ids_fill(raw, len))
        return -EIO;
    for (i = 0; i < len; i++)
        buf[i] = alphabet[raw[i] & 31];
    buf[len] = '\0';
    return 0;
}

int ids_token(char *buf)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char raw[16];
    size_t i;

    if (ids_fill(raw, sizeof(raw)))
        return -EIO;
    for (i = 0; i < sizeof(raw); i++) {
        buf[2 * i] = hex[raw[i] >> 4];
        buf[2 * i + 1] = hex[raw[i] & 15];
    }
    buf[32] = '\0';
    return 0;
}

bool ids_valid(const char *s, size_t max)
{
    size_t i;

    for (i = 0; s[i]; i++)
        if (i >= max || !((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')))
            return false;
    return i > 0;
}

bool ids_token_equal(const char *given, const char *real)
{
    size_t lg = strlen(given), lr = strlen(real), i;
    unsigned diff = lg != lr;

    for (i = 0; i < lr; i++)
        diff |= (unsigned)(unsigned char)real[i] ^ (unsigned)(unsigned char)(i < lg ? given[i] : 0);
    return diff == 0;
}
