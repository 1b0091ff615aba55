/*
 * grow.h: room for one more element in a host array that doubles.
 *
 * Tables that only ever append (the sysfs tree, the name spans, the
 * timeline's blocks, the checkpoints, the trace's caches) keep an element
 * pointer, a count and a capacity; grow_array() is the one place that
 * doubles such a capacity, starting from a first size that each table
 * picks.  The element count stays with the caller.
 */
#ifndef SLUBLAB_SERVER_BASE_GROW_H
#define SLUBLAB_SERVER_BASE_GROW_H

#include <stddef.h>

/*
 * Make @v (*@cap elements of @size bytes) hold at least @need elements,
 * doubling *@cap (from @first > 0 when it is 0) as often as needed.  Returns the
 * array, moved or not, with *@cap updated; NULL on host OOM or overflow,
 * with @v and *@cap untouched.
 */
void *grow_array(void *v, size_t *cap, size_t need, size_t size, size_t first);

#endif /* SLUBLAB_SERVER_BASE_GROW_H */
