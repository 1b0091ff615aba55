/*
 * locked.c: zeroed objects with their own mutex (see locked.h), for the
 * tables of session/ and http/.  Uses only libc and pthreads.
 */
#include "base/locked.h"

#include <pthread.h>
#include <stdlib.h>

/* The mutex at byte @lock_off of @obj. */
static pthread_mutex_t *locked_mutex(void *obj, size_t lock_off)
{
    void *m = (char *)obj + lock_off;

    return m;
}

void *locked_zalloc(size_t size, size_t lock_off)
{
    void *obj = calloc(1, size);

    if (obj && pthread_mutex_init(locked_mutex(obj, lock_off), NULL)) {
        free(obj);
        obj = NULL;
    }
    return obj;
}

void locked_free(void *obj, size_t lock_off)
{
    if (!obj)
        return;
    pthread_mutex_destroy(locked_mutex(obj, lock_off));
    free(obj);
}
