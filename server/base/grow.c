/*
 * grow.c: doubling host arrays (see grow.h).
 */
#include "base/grow.h"

#include <stdint.h>
#include <stdlib.h>

void *grow_array(void *v, size_t *cap, size_t need, size_t size, size_t first)
{
    size_t n = *cap;

    if (need <= n)
        return v;
    while (n < need) {
        if (n > SIZE_MAX / 2)
            return NULL;
        n = n ? n * 2 : first;
    }
    if (n > SIZE_MAX / size)
        return NULL;
    v = realloc(v, n * size);
    if (v)
        *cap = n;
    return v;
}
