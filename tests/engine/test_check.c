/*
 * test_check.c: self-test of tests/check.h.
 *
 * Exercises every check macro on the passing side and the properties the
 * other tests rely on: each check yields its outcome as a bool, each side of
 * a typed check is evaluated exactly once, and passing checks are counted
 * without failing the case.  The failing side is not run here, since a
 * failure would fail this program; it was checked by hand.
 */
#include "check.h"

#include <errno.h>
#include <stdint.h>

static void test_check_plain(void)
{
    int x = 3;

    CHECK(x == 3);
    CHECK(1);
    CHECK(CHECK(x > 0)); /* a passing check yields true */
}

static void test_check_unsigned(void)
{
    uint64_t addr = UINT64_C(0xffff888000001000);
    size_t size = 4096;

    CHECK_EQ_U(size, 4096u);
    CHECK_EQ_U(addr, UINT64_C(0xffff888000001000));
    CHECK_NE_U(addr, 0);
    CHECK_LT_U(64, size);
    CHECK_LE_U(size, 4096);
    CHECK_GT_U(UINTMAX_MAX, 0);
    CHECK_GE_U(size, size);
}

static void test_check_signed(void)
{
    int err = -EINVAL;

    CHECK_EQ_I(err, -EINVAL);
    CHECK_NE_I(err, 0);
    CHECK_LT_I(INTMAX_MIN, 0);
    CHECK_LE_I(-1, -1);
    CHECK_GT_I(0, err);
    CHECK_GE_I(INTMAX_MAX, INTMAX_MAX);
    CHECK_OK(0);
}

static void test_check_strings(void)
{
    const char *name = "kmalloc-64";

    CHECK_EQ_STR(name, "kmalloc-64");
    CHECK_NE_STR(name, "kmalloc-32");
    CHECK_EQ_STR((const char *)NULL, (const char *)NULL);
    CHECK_NE_STR(name, (const char *)NULL);
}

static int evaluations;

static unsigned int next_value(void)
{
    return (unsigned int)++evaluations;
}

static void test_check_evaluates_once(void)
{
    evaluations = 0;
    CHECK_EQ_U(next_value(), 1);
    CHECK_EQ_I(next_value(), 2);
    CHECK_EQ_I(evaluations, 2);
}

static void test_check_counts(void)
{
    const struct check_state *st = check_state();
    unsigned long before = st->checks;

    CHECK(true);
    CHECK_EQ_U(st->checks, before + 1); /* counted before this check itself */
    CHECK_EQ_U(st->case_fail, 0);
    CHECK_EQ_STR(st->current, "test_check_counts");
}

int main(void)
{
    RUN_TEST(test_check_plain);
    RUN_TEST(test_check_unsigned);
    RUN_TEST(test_check_signed);
    RUN_TEST(test_check_strings);
    RUN_TEST(test_check_evaluates_once);
    RUN_TEST(test_check_counts);
    CHECK_EQ_U(check_state()->passed, 6);
    return check_done();
}
