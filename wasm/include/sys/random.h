/*
 * sys/random.h for the WebAssembly build: WASI has getentropy() (the host's
 * random_get) but no getrandom(), which base/ids.c reads its ids from.
 */
#ifndef SLUBLAB_WASM_SYS_RANDOM_H
#define SLUBLAB_WASM_SYS_RANDOM_H

#include <stddef.h>
#include <sys/types.h>
#include <unistd.h>

/* @len random bytes into @buf, 256 at a time as getentropy() takes them. */
static inline ssize_t getrandom(void *buf, size_t len, unsigned flags)
{
    size_t n = len < 256 ? len : 256;

    (void)flags;
    return getentropy(buf, n) ? -1 : (ssize_t)n;
}

#endif /* SLUBLAB_WASM_SYS_RANDOM_H */
