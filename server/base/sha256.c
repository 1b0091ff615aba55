/*
 * sha256.c: SHA-256 (see sha256.h) through Nettle, the hash library GnuTLS
 * (and so libmicrohttpd) already brings.  Checked against FIPS 180-4's
 * examples (tests/server/test_store.c).
 */
#include "base/sha256.h"

#include <string.h>

#include <nettle/sha2.h>

void sha256(const void *data, size_t len, uint8_t out[32])
{
    struct sha256_ctx ctx;

    sha256_init(&ctx);
    sha256_update(&ctx, len, data);
    sha256_digest(&ctx, SHA256_DIGEST_SIZE, out);
}

void sha256_hex(const char *s, char out[SHA256_HEX_LEN + 1])
{
    static const char hex[] = "0123456789abcdef";
    uint8_t d[SHA256_DIGEST_SIZE];

    sha256(s, strlen(s), d);
    for (unsigned i = 0; i < SHA256_DIGEST_SIZE; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[SHA256_HEX_LEN] = '\0';
}
