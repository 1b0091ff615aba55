/*
 * stdlib.h for the WebAssembly build: wasi-libc's, and realpath(), which
 * WASI lacks (base/datadir.c calls it).  A WASI host's files have no
 * symbolic links the module could see, so a path is its own real path.
 * And mkstemp(), which wasi-libc leaves out (server_only.c has it).
 */
#ifndef SLUBLAB_WASM_STDLIB_H
#define SLUBLAB_WASM_STDLIB_H
#pragma GCC system_header /* #include_next, which -Wpedantic names an extension */

#include_next <stdlib.h>

#include <stdio.h>

/* @resolved holds PATH_MAX (4096) bytes; <limits.h> is not included here,
 * since its PAGE_SIZE is not the engine's. */
static inline char *realpath(const char *path, char *resolved)
{
    if (!resolved || (size_t)snprintf(resolved, 4096, "%s", path) >= 4096)
        return NULL;
    return resolved;
}

/* Create and open a file named @tmpl with its XXXXXX replaced: its fd, or -1. */
int mkstemp(char *tmpl);

#endif /* SLUBLAB_WASM_STDLIB_H */
