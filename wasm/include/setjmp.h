/*
 * setjmp.h for wasm32-wasi, which Debian 12's wasi-libc lacks.  clang's
 * -mllvm -wasm-enable-sjlj turns setjmp() and longjmp() calls into wasm
 * exceptions and the helpers of sjlj.c; jmp_buf only holds the id
 * saveSetjmp() gives each setjmp() (docs/wasm.md).
 */
#ifndef SLUBLAB_WASM_SETJMP_H
#define SLUBLAB_WASM_SETJMP_H

typedef unsigned long jmp_buf[2];

int setjmp(jmp_buf env);
_Noreturn void longjmp(jmp_buf env, int val);

#endif
