/*
 * base64.h: RFC 4648 base64 (the standard alphabet, padded), for bytes
 * carried inside JSON documents (an op log in a snapshot export).
 */
#ifndef SLUBLAB_SERVER_BASE_BASE64_H
#define SLUBLAB_SERVER_BASE_BASE64_H

#include <stddef.h>
#include <stdint.h>

/* @len bytes of @p as a malloc()ed, NUL-terminated base64 text; NULL when out of memory. */
char *base64_encode(const uint8_t *p, size_t len);
/* Decode @text into a malloc()ed *out of *len bytes.  0, -EINVAL (not base64) or -ENOMEM. */
int base64_decode(const char *text, uint8_t **out, size_t *len);

#endif
