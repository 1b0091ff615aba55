/*
 * bytes.h: the serialized forms a run keeps of itself (the timeline, the
 * run's state at the end of batch 0), written and read back field by
 * field, and packed: a raw length then a zlib stream.
 *
 * Every integer is a native uint64_t: the bytes are this server's own and
 * go with a checkpoint image keyed by the engine's image tag (ckpt_disk.h).
 * A reader never reads past its end: a short or bad input sets @bad, and
 * every later read returns nothing, so a parser checks once at the end.
 */
#ifndef SLUBLAB_SERVER_SESSION_BYTES_H
#define SLUBLAB_SERVER_SESSION_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"

/* Append @len bytes / a uint64_t / a string with its NUL after its length
 * (0: NULL) / @len bytes after their length.  A failure shows in
 * strbuf_failed(). */
void bytes_put(struct strbuf *w, const void *p, size_t len);
void bytes_put_u64(struct strbuf *w, uint64_t v);
void bytes_put_str(struct strbuf *w, const char *s);
void bytes_put_blob(struct strbuf *w, const void *p, size_t len);

struct bytes_reader {
    const unsigned char *p;
    size_t len, at;
    bool bad; /* a read went past the end: every later one fails */
};

/* The next @len bytes, or NULL (r->bad). */
const void *bytes_get(struct bytes_reader *r, size_t len);
/* The next uint64_t; 0 and r->bad past the end. */
uint64_t bytes_get_u64(struct bytes_reader *r);
/* The next @n elements of @size bytes, or NULL (r->bad) when they are not there. */
const void *bytes_get_array(struct bytes_reader *r, uint64_t n, size_t size);
/* A malloc()ed copy of a stored string into *out, NULL for a stored NULL.
 * 0, -EINVAL (not there, or no NUL at its end) or -ENOMEM. */
int bytes_get_str(struct bytes_reader *r, char **out);

/* @len bytes of @data packed (raw length, zlib stream) into a malloc()ed
 * *out of *out_len bytes.  0 or -ENOMEM. */
int bytes_pack(const void *data, size_t len, void **out, size_t *out_len);
/* The bytes of a packed blob into a malloc()ed *out.  0, -EIO (not one) or -ENOMEM. */
int bytes_unpack(const void *blob, size_t len, unsigned char **out, size_t *out_len);

#endif /* SLUBLAB_SERVER_SESSION_BYTES_H */
