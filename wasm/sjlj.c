/*
 * sjlj.c: the runtime that clang 14's wasm setjmp/longjmp lowering
 * (-mllvm -wasm-enable-sjlj -mexception-handling) calls, after emscripten's
 * emscripten_setjmp.c.
 *
 * Each setjmp() call gets a new id, stored in its jmp_buf and in the
 * calling function's table with the label of its return point;
 * longjmp() throws a wasm exception carrying the jmp_buf and the value,
 * and the function whose table holds that id catches it and jumps to its
 * label (testSetjmp()).  One thread: the engine runs single-threaded in
 * wasm (docs/wasm.md).
 */
#include <stdint.h>
#include <stdlib.h>

#include "setjmp.h"

struct sjlj_entry {
    uintptr_t id;
    uint32_t label;
};

struct sjlj_args {
    void *env;
    int val;
};

static uintptr_t sjlj_next_id;
static uint32_t sjlj_temp_ret;
static struct sjlj_args sjlj_longjmp_args;

uint32_t getTempRet0(void);
void setTempRet0(uint32_t value);
struct sjlj_entry *saveSetjmp(uintptr_t *env, uint32_t label, struct sjlj_entry *table,
                              uint32_t size);
uint32_t testSetjmp(uintptr_t id, const struct sjlj_entry *table, uint32_t size);
_Noreturn void __wasm_longjmp(void *env, int val);

uint32_t getTempRet0(void)
{
    return sjlj_temp_ret;
}

void setTempRet0(uint32_t value)
{
    sjlj_temp_ret = value;
}

/* Record a setjmp() of label @label in @table (@size entries, then a 0
 * id), growing the table when it is full; the table's size is returned
 * through setTempRet0(). */
struct sjlj_entry *saveSetjmp(uintptr_t *env, uint32_t label, struct sjlj_entry *table,
                              uint32_t size)
{
    uint32_t i;

    *env = ++sjlj_next_id;
    for (;;) {
        for (i = 0; i < size; i++) {
            if (table[i].id == 0) {
                table[i].id = *env;
                table[i].label = label;
                table[i + 1].id = 0;
                setTempRet0(size);
                return table;
            }
        }
        size *= 2;
        table = realloc(table, sizeof(*table) * (size + 1));
        if (!table)
            abort();
    }
}

/* The label of setjmp() id @id in @table, or 0 when this function did not
 * make it. */
uint32_t testSetjmp(uintptr_t id, const struct sjlj_entry *table, uint32_t size)
{
    uint32_t i;

    for (i = 0; i < size && table[i].id != 0; i++)
        if (table[i].id == id)
            return table[i].label;
    return 0;
}

/* longjmp(): setjmp() then returns @val, or 1 for 0 (C17 7.13.2.1). */
_Noreturn void __wasm_longjmp(void *env, int val)
{
    sjlj_longjmp_args.env = env;
    sjlj_longjmp_args.val = val ? val : 1;
    __builtin_wasm_throw(1, &sjlj_longjmp_args);
}
