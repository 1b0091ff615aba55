/*
 * sha256.h: SHA-256 (FIPS 180-4), for keeping a token in the store as its
 * hash rather than itself: a trace upload's token (http/traces.c), which
 * any server sharing the store checks, and which the database's readers
 * should not be able to present.  One call over a whole buffer; no state
 * is kept between calls.
 */
#ifndef SLUBLAB_SERVER_BASE_SHA256_H
#define SLUBLAB_SERVER_BASE_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_HEX_LEN 64 /* characters of sha256_hex()'s answer, without the NUL */

/* The 32-byte digest of @len bytes at @data into @out.  Cannot fail. */
void sha256(const void *data, size_t len, uint8_t out[32]);
/* The digest of the string @s as 64 lower-case hex digits and a NUL into @out.  Cannot fail. */
void sha256_hex(const char *s, char out[SHA256_HEX_LEN + 1]);

#endif /* SLUBLAB_SERVER_BASE_SHA256_H */
