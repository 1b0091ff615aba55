/*
 * locked.h: a zeroed object that carries its own mutex.
 *
 * The server's shared tables (the session registry, the lectures, the
 * answers, the trace jobs, the relay) are each one struct with a
 * pthread_mutex_t among its fields, made and freed the same way: zeroed
 * memory with the mutex initialised, and the mutex destroyed before the
 * memory is freed.  The mutex is named by its offset (offsetof(type,
 * field)), so one pair of functions serves every table.
 */
#ifndef SLUBLAB_SERVER_BASE_LOCKED_H
#define SLUBLAB_SERVER_BASE_LOCKED_H

#include <stddef.h>

/* @size zeroed bytes whose mutex at byte @lock_off is initialised; NULL
 * when out of memory.  Release with locked_free(). */
void *locked_zalloc(size_t size, size_t lock_off);
/* Destroy the mutex at byte @lock_off of @obj and free it; NULL is fine. */
void locked_free(void *obj, size_t lock_off);

#endif /* SLUBLAB_SERVER_BASE_LOCKED_H */
