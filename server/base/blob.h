/*
 * blob.h: an immutable, reference-counted text, shared between a cache and
 * the HTTP responses that send it.
 *
 * A session caches the JSON of the states it rendered; a response holds a
 * reference while libmicrohttpd sends the bytes and drops it from the
 * response's free callback, so a state is rendered once and sent many times
 * without a copy, whatever thread sends it.
 */
#ifndef SLUBLAB_SERVER_BASE_BLOB_H
#define SLUBLAB_SERVER_BASE_BLOB_H

#include <stdatomic.h>
#include <stddef.h>

struct blob {
    atomic_uint refs; /* the blob is freed when it drops to 0 */
    size_t len;       /* bytes in text, before the NUL */
    char text[];      /* NUL-terminated */
};

/* A blob holding a copy of @len bytes of @text, with one reference; NULL on host OOM. */
struct blob *blob_new(const char *text, size_t len);
/* Take a reference; returns @b.  NULL is fine. */
struct blob *blob_get(struct blob *b);
/* Drop a reference; NULL is fine. */
void blob_put(struct blob *b);

#endif /* SLUBLAB_SERVER_BASE_BLOB_H */
