/*
 * malloc.h for the WebAssembly build: wasi-libc's, and glibc's
 * malloc_trim(), which session/session.c calls after freeing a big run.
 * A wasm memory never shrinks, so there is nothing to hand back.
 */
#ifndef SLUBLAB_WASM_MALLOC_H
#define SLUBLAB_WASM_MALLOC_H
#pragma GCC system_header /* #include_next, which -Wpedantic names an extension */

#include_next <malloc.h>

static inline int malloc_trim(size_t pad)
{
    (void)pad;
    return 0;
}

#endif /* SLUBLAB_WASM_MALLOC_H */
