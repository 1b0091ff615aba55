/*
 * test_grow.c: grow_array() (base/grow.c) doubles from the first size, keeps
 * what the array held, leaves a big enough array where it is, and refuses a
 * size that would overflow with the array and its capacity untouched.
 */
#include <stdint.h>
#include <stdlib.h>

#include "base/grow.h"
#include "check.h"

static void test_doubling(void)
{
    unsigned *v = NULL, *n;
    size_t cap = 0, i;

    n = grow_array(v, &cap, 1, sizeof(*v), 4);
    CHECK(n != NULL);
    CHECK_EQ_U(cap, 4);
    v = n;
    for (i = 0; i < 4; i++)
        v[i] = (unsigned)i * 7;
    /* room already there: same array, same capacity */
    CHECK(grow_array(v, &cap, 4, sizeof(*v), 4) == v);
    CHECK_EQ_U(cap, 4);
    /* one past: doubled once */
    n = grow_array(v, &cap, 5, sizeof(*v), 4);
    CHECK(n != NULL);
    CHECK_EQ_U(cap, 8);
    v = n;
    for (i = 0; i < 4; i++)
        CHECK_EQ_U(v[i], i * 7);
    /* far past: doubled as often as needed */
    n = grow_array(v, &cap, 33, sizeof(*v), 4);
    CHECK(n != NULL);
    CHECK_EQ_U(cap, 64);
    v = n;
    CHECK_EQ_U(v[3], 21);
    free(v);
}

static void test_overflow(void)
{
    char *v = NULL;
    size_t cap = 0;

    v = grow_array(v, &cap, 16, sizeof(*v), 16);
    CHECK(v != NULL);
    CHECK_EQ_U(cap, 16);
    /* a capacity that fits a size_t but whose bytes do not */
    CHECK(grow_array(v, &cap, SIZE_MAX / 4 + 1, 4, 16) == NULL);
    CHECK_EQ_U(cap, 16);
    /* a capacity that does not fit a size_t */
    CHECK(grow_array(v, &cap, SIZE_MAX / 2 + 2, 4, 16) == NULL);
    CHECK_EQ_U(cap, 16);
    CHECK(grow_array(v, &cap, SIZE_MAX, 1, 16) == NULL);
    CHECK_EQ_U(cap, 16);
    v[15] = 'x'; /* still ours */
    free(v);
}

int main(void)
{
    RUN_TEST(test_doubling);
    RUN_TEST(test_overflow);
    return check_done();
}
