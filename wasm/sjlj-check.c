/*
 * sjlj-check.c: setjmp/longjmp through wasm/sjlj.c as the engine uses them
 * (sim.c, mem.c): a longjmp from a nested call, a second setjmp on the same
 * jmp_buf, a setjmp in a loop, a value of 0 read as 1.  Prints
 * "ok 1 2 3 7" (tests/cli/wasm.sh).
 */
#include <stdio.h>

#include "setjmp.h"

static jmp_buf env;

static void fail(int depth, int val)
{
    if (depth)
        fail(depth - 1, val);
    longjmp(env, val);
}

static int caught(int val)
{
    volatile int got;

    switch ((got = setjmp(env))) {
    case 0:
        fail(3, val);
        return -1;
    default:
        return got;
    }
}

int main(void)
{
    volatile int i, sum = 0;

    for (i = 0; i < 3; i++)
        if (!setjmp(env))
            fail(i, 1);
        else
            sum += 1;
    printf("ok %d %d %d %d\n", caught(0), caught(2), sum, caught(7));
    return 0;
}
