/*
 * check.h: the tiny test harness for slublab's C tests.
 *
 * In the spirit of Redis's testhelp.h and mimalloc's testhelper.h: no
 * framework, no registration, no allocation.  A test file defines static
 * `void test_x(void)` functions, runs each with RUN_TEST(test_x) (or
 * run_test("name", fn)) from main(), and ends with `return check_done();`.
 *
 * Checks never abort: a failed check prints "file:line: FAIL [test]: ..."
 * with the expression and, for the typed helpers, both values, then the test
 * goes on.  Every check is an expression that yields true when it passed,
 * so `if (!CHECK(p != SIM_NULL)) return;` stops a test that cannot go on.
 *
 * Counting is per TEST CASE, not per check: a case fails if any check in it
 * fails.  check_done() prints the last line exactly as "N passed, N failed"
 * (what ctest logs and CI read) and returns the exit code: 0 only when
 * nothing failed and at least one case ran.  Checks made outside any case
 * count as one extra case, "(outside a test)".
 *
 * State is one static per test program (each test is one .c file), kept
 * inside check_state() so this header defines no data.
 */
#ifndef SLUBLAB_TESTS_CHECK_H
#define SLUBLAB_TESTS_CHECK_H

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct check_state {
    const char *current;     /* name of the running case, or NULL between cases */
    unsigned int passed;     /* cases with no failed check */
    unsigned int failed;     /* cases with at least one failed check */
    unsigned long checks;    /* checks evaluated, passed or not */
    unsigned long case_fail; /* failed checks in the running case */
    bool outside_failed;     /* a check failed outside any case */
};

static inline struct check_state *check_state(void)
{
    static struct check_state state;
    return &state;
}

/* Records one check's outcome; prints the "file:line: FAIL" head on failure. */
static inline bool check_record(bool ok, const char *file, int line)
{
    struct check_state *st = check_state();

    st->checks++;
    if (ok)
        return true;
    if (st->current)
        st->case_fail++;
    else
        st->outside_failed = true;
    printf("%s:%d: FAIL [%s]: ", file, line, st->current ? st->current : "(outside a test)");
    return false;
}

static inline bool check_true(bool ok, const char *expr, const char *file, int line)
{
    if (!check_record(ok, file, line))
        printf("CHECK(%s)\n", expr);
    return ok;
}

/* The comparison each typed check makes; a code, so each side is evaluated once. */
enum check_op { CHECK_OP_EQ, CHECK_OP_NE, CHECK_OP_LT, CHECK_OP_LE, CHECK_OP_GT, CHECK_OP_GE };

static inline const char *check_op_name(enum check_op op)
{
    static const char *const names[] = {"==", "!=", "<", "<=", ">", ">="};
    return names[op];
}

static inline bool check_u(enum check_op op, uintmax_t a, uintmax_t b, const char *ea,
                           const char *eb, const char *file, int line)
{
    bool ok = op == CHECK_OP_EQ   ? a == b
              : op == CHECK_OP_NE ? a != b
              : op == CHECK_OP_LT ? a < b
              : op == CHECK_OP_LE ? a <= b
              : op == CHECK_OP_GT ? a > b
                                  : a >= b;

    if (!check_record(ok, file, line))
        printf("%s %s %s\n    left:  %" PRIuMAX " (0x%" PRIxMAX ")\n    right: %" PRIuMAX
               " (0x%" PRIxMAX ")\n",
               ea, check_op_name(op), eb, a, a, b, b);
    return ok;
}

static inline bool check_i(enum check_op op, intmax_t a, intmax_t b, const char *ea, const char *eb,
                           const char *file, int line)
{
    bool ok = op == CHECK_OP_EQ   ? a == b
              : op == CHECK_OP_NE ? a != b
              : op == CHECK_OP_LT ? a < b
              : op == CHECK_OP_LE ? a <= b
              : op == CHECK_OP_GT ? a > b
                                  : a >= b;

    if (!check_record(ok, file, line))
        printf("%s %s %s\n    left:  %" PRIdMAX "\n    right: %" PRIdMAX "\n", ea,
               check_op_name(op), eb, a, b);
    return ok;
}

/* Strings compare equal when both are NULL or both hold the same bytes. */
static inline bool check_str(bool want_equal, const char *a, const char *b, const char *ea,
                             const char *eb, const char *file, int line)
{
    bool equal = (a == NULL || b == NULL) ? a == b : strcmp(a, b) == 0;
    bool ok = equal == want_equal;

    if (!check_record(ok, file, line))
        printf("%s %s %s\n    left:  %s%s%s\n    right: %s%s%s\n", ea, want_equal ? "==" : "!=", eb,
               a ? "\"" : "", a ? a : "NULL", a ? "\"" : "", b ? "\"" : "", b ? b : "NULL",
               b ? "\"" : "");
    return ok;
}

/* Plain condition. */
#define CHECK(cond) check_true((cond) ? true : false, #cond, __FILE__, __LINE__)

/*
 * Typed comparisons print both values and evaluate each side once.  _U
 * converts both sides to uintmax_t (sizes, counts, sim_addr_t; printed in
 * decimal and hex), _I to intmax_t (errno results:
 * CHECK_EQ_I(sim_apply(...), -EINVAL)).  #a is taken at the outer macro,
 * so messages show the source text (-EINVAL, not -22).
 */
#define CHECK_U_(op, a, b, ea, eb) \
    check_u(op, (uintmax_t)(a), (uintmax_t)(b), ea, eb, __FILE__, __LINE__)
#define CHECK_I_(op, a, b, ea, eb) \
    check_i(op, (intmax_t)(a), (intmax_t)(b), ea, eb, __FILE__, __LINE__)
#define CHECK_EQ_U(a, b)   CHECK_U_(CHECK_OP_EQ, a, b, #a, #b)
#define CHECK_NE_U(a, b)   CHECK_U_(CHECK_OP_NE, a, b, #a, #b)
#define CHECK_LT_U(a, b)   CHECK_U_(CHECK_OP_LT, a, b, #a, #b)
#define CHECK_LE_U(a, b)   CHECK_U_(CHECK_OP_LE, a, b, #a, #b)
#define CHECK_GT_U(a, b)   CHECK_U_(CHECK_OP_GT, a, b, #a, #b)
#define CHECK_GE_U(a, b)   CHECK_U_(CHECK_OP_GE, a, b, #a, #b)
#define CHECK_EQ_I(a, b)   CHECK_I_(CHECK_OP_EQ, a, b, #a, #b)
#define CHECK_NE_I(a, b)   CHECK_I_(CHECK_OP_NE, a, b, #a, #b)
#define CHECK_LT_I(a, b)   CHECK_I_(CHECK_OP_LT, a, b, #a, #b)
#define CHECK_LE_I(a, b)   CHECK_I_(CHECK_OP_LE, a, b, #a, #b)
#define CHECK_GT_I(a, b)   CHECK_I_(CHECK_OP_GT, a, b, #a, #b)
#define CHECK_GE_I(a, b)   CHECK_I_(CHECK_OP_GE, a, b, #a, #b)
#define CHECK_EQ_STR(a, b) check_str(true, (a), (b), #a, #b, __FILE__, __LINE__)
#define CHECK_NE_STR(a, b) check_str(false, (a), (b), #a, #b, __FILE__, __LINE__)
/* An int-returning call that must succeed: 0, not a negative errno. */
#define CHECK_OK(call) CHECK_I_(CHECK_OP_EQ, call, 0, #call, "0")

/* Runs one test case and counts it as passed or failed. */
static inline void run_test(const char *name, void (*fn)(void))
{
    struct check_state *st = check_state();

    st->current = name;
    st->case_fail = 0;
    fn();
    if (st->case_fail == 0) {
        st->passed++;
        printf("ok   %s\n", name);
    } else {
        st->failed++;
        printf("FAIL %s (%lu failed checks)\n", name, st->case_fail);
    }
    st->current = NULL;
    fflush(stdout);
}
#define RUN_TEST(fn) run_test(#fn, fn)

/* Prints the final "N passed, N failed" line; returns the exit code. */
static inline int check_done(void)
{
    struct check_state *st = check_state();
    unsigned int failed = st->failed + (st->outside_failed ? 1u : 0u);

    if (st->passed + failed == 0) {
        printf("check.h: no test case ran\n");
        failed = 1;
    }
    printf("%u passed, %u failed\n", st->passed, failed);
    fflush(stdout);
    return failed == 0 ? 0 : 1;
}

#endif /* SLUBLAB_TESTS_CHECK_H */
