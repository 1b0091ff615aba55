/*
 * test_limit.c: the CPU time heavy writes may take (http/limit.c): an
 * address's bucket and a token's, each refusing once spent and telling
 * when to come back, and neither touching another client's.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "http/limit.h"

static struct request client(const char *addr, const char *authorization)
{
    struct request req;

    memset(&req, 0, sizeof(req));
    req.method = "POST";
    req.path = "/api/snapshots/import";
    req.client = addr;
    req.authorization = authorization;
    return req;
}

static void test_no_limit(void)
{
    struct limiter *l = (struct limiter *)1;
    struct request r = client("10.0.0.1", NULL);
    unsigned retry = 0;

    CHECK_EQ_I(limiter_new(0, &l), 0);
    CHECK(l == NULL);
    limiter_charge(l, &r, 1000000000ull);
    CHECK(limiter_allow(l, &r, &retry));
}

/* An address spends its burst, is refused with a Retry-After near the
 * refill of what it overspent, and others go on. */
static void test_address_bucket(void)
{
    struct limiter *l = NULL;
    struct request a = client("10.0.0.1", NULL), b = client("10.0.0.2", NULL);
    unsigned retry = 0;

    if (!CHECK_EQ_I(limiter_new(1, &l), 0))
        return;
    CHECK(limiter_allow(l, &a, &retry));
    limiter_charge(l, &a, 999000); /* 1 ms left */
    CHECK(limiter_allow(l, &a, &retry));
    limiter_charge(l, &a, 1000); /* at least LIMIT_MIN_CHARGE_US: now below zero */
    CHECK(!limiter_allow(l, &a, &retry));
    /* 1 ms overspent of a 1 s bucket that fills in 240 s: a second or so */
    CHECK(retry >= 1 && retry <= 2);
    CHECK(limiter_allow(l, &b, &retry));
    limiter_charge(l, &a, 1000000); /* a second more: four minutes */
    CHECK(!limiter_allow(l, &a, &retry));
    CHECK(retry >= 240 && retry <= 242);
    limiter_free(l);
}

/* A token's bucket is a quarter of an address's, whatever its address;
 * the scheme is read in any case. */
static void test_token_bucket(void)
{
    struct limiter *l = NULL;
    struct request t1 = client("10.0.0.1", "Bearer abcdefgh");
    struct request t2 = client("10.0.0.2", "bearer abcdefgh");
    struct request other = client("10.0.0.1", "Bearer zzzzzzzz");
    unsigned retry = 0;

    if (!CHECK_EQ_I(limiter_new(4, &l), 0))
        return;
    CHECK_EQ_STR(limit_key(&t1), "abcdefgh");
    limiter_charge(l, &t1, 1000001); /* past the token's 1 s, within the address's 4 s */
    CHECK(!limiter_allow(l, &t1, &retry));
    CHECK(!limiter_allow(l, &t2, &retry));   /* the same token from elsewhere */
    CHECK(limiter_allow(l, &other, &retry)); /* the same address, another token */
    limiter_free(l);
}

int main(void)
{
    RUN_TEST(test_no_limit);
    RUN_TEST(test_address_bucket);
    RUN_TEST(test_token_bucket);
    return check_done();
}
