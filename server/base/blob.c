/*
 * blob.c: reference-counted immutable texts (see blob.h).
 */
#include "base/blob.h"

#include <stdlib.h>
#include <string.h>

struct blob *blob_new(const char *text, size_t len)
{
    struct blob *b = malloc(sizeof(*b) + len + 1);

    if (!b)
        return NULL;
    atomic_init(&b->refs, 1);
    b->len = len;
    memcpy(b->text, text, len);
    b->text[len] = '\0';
    return b;
}

struct blob *blob_get(struct blob *b)
{
    if (b)
        atomic_fetch_add_explicit(&b->refs, 1, memory_order_relaxed);
    return b;
}

void blob_put(struct blob *b)
{
    if (b && atomic_fetch_sub_explicit(&b->refs, 1, memory_order_acq_rel) == 1)
        free(b);
}
