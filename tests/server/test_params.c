/*
 * test_params.c: what a handler reads from its request (http/params.c):
 * integer query arguments and their tables, the window of a list, ranges
 * and positions, the ids of a path, the bearer token.  Each boundary is
 * driven both ways, and each refusal is checked down to its status, code
 * and message.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "http/params.h"

/* A request holding the one query argument @key=@value (@key NULL: none). */
static struct request query1(struct query_param *q, const char *key, const char *value)
{
    struct request req;

    memset(&req, 0, sizeof(req));
    q->key = key;
    q->value = value;
    req.query = q;
    req.nr_query = key ? 1 : 0;
    req.method = "GET";
    req.path = "/api/x";
    return req;
}

/* True when @res is error @status @code with message @msg; releases it. */
static bool is_error(struct response *res, unsigned status, const char *code, const char *msg)
{
    char want[700];
    bool ok;

    snprintf(want, sizeof(want), "{\"error\":{\"code\":\"%s\",\"message\":\"%s\"}}", code, msg);
    ok = CHECK_EQ_U(res->status, status) && CHECK(res->body != NULL) &&
         CHECK_EQ_STR(res->body, want);
    response_release(res);
    memset(res, 0, sizeof(*res));
    return ok;
}

/* route_query_u64() of "n"=@value with @max: its return, the value in *out. */
static int u64_of(const char *value, uint64_t max, uint64_t *out, struct response *res)
{
    struct query_param q;
    struct request req = query1(&q, value ? "n" : NULL, value);

    *out = 7; /* untouched unless stored */
    return route_query_u64(&req, res, "n", max, out);
}

static void test_query_u64_boundaries(void)
{
    static const char bad_100[] = "query \\\"n\\\": expected an integer from 0 to 100";
    struct response res = {0};
    uint64_t v;

    CHECK_EQ_I(u64_of(NULL, 100, &v, &res), 1); /* missing */
    CHECK_EQ_U(v, 7);
    CHECK_EQ_U(res.status, 0);
    CHECK_EQ_I(u64_of("0", 100, &v, &res), 0);
    CHECK_EQ_U(v, 0);
    CHECK_EQ_I(u64_of("100", 100, &v, &res), 0); /* just in range */
    CHECK_EQ_U(v, 100);
    CHECK_EQ_I(u64_of("0100", 100, &v, &res), 0); /* leading zeros are digits */
    CHECK_EQ_U(v, 100);
    CHECK_EQ_I(u64_of("101", 100, &v, &res), -1); /* just out of range */
    CHECK_EQ_U(v, 7);
    is_error(&res, 400, "bad_request", bad_100);
    CHECK_EQ_I(u64_of("", 100, &v, &res), -1); /* empty */
    is_error(&res, 400, "bad_request", bad_100);
    CHECK_EQ_I(u64_of("abc", 100, &v, &res), -1); /* non-numeric */
    is_error(&res, 400, "bad_request", bad_100);
    CHECK_EQ_I(u64_of("12x", 100, &v, &res), -1); /* trailing junk */
    is_error(&res, 400, "bad_request", bad_100);
    CHECK_EQ_I(u64_of("-1", 100, &v, &res), -1); /* negative */
    is_error(&res, 400, "bad_request", bad_100);
    CHECK_EQ_I(u64_of("+1", 100, &v, &res), -1); /* no sign */
    is_error(&res, 400, "bad_request", bad_100);
    CHECK_EQ_I(u64_of(" 1", 100, &v, &res), -1); /* no space */
    is_error(&res, 400, "bad_request", bad_100);
    CHECK_EQ_I(u64_of("1 ", 100, &v, &res), -1);
    is_error(&res, 400, "bad_request", bad_100);
    CHECK_EQ_U(v, 7);
}

static void test_query_u64_overflow(void)
{
    static const char bad_max[] =
            "query \\\"n\\\": expected an integer from 0 to 18446744073709551615";
    struct response res = {0};
    uint64_t v;

    CHECK_EQ_I(u64_of("18446744073709551615", UINT64_MAX, &v, &res), 0); /* just in range */
    CHECK_EQ_U(v, UINT64_MAX);
    CHECK_EQ_I(u64_of("18446744073709551616", UINT64_MAX, &v, &res), -1); /* overflow by one */
    is_error(&res, 400, "bad_request", bad_max);
    CHECK_EQ_I(u64_of("99999999999999999999999", UINT64_MAX, &v, &res), -1);
    is_error(&res, 400, "bad_request", bad_max);
    CHECK_EQ_U(v, 7);
    /* a value that wraps to a small one past 2^64 is refused, not wrapped */
    CHECK_EQ_I(u64_of("18446744073709551626", 100, &v, &res), -1);
    is_error(&res, 400, "bad_request", "query \\\"n\\\": expected an integer from 0 to 100");
}

static void test_query_args_table(void)
{
    enum { AT, COUNT, LIMIT };
    static const struct route_arg args[] = {
            [AT] = ROUTE_ARG_POSITION("at"),
            [COUNT] = ROUTE_ARG_RANGE("count", 1, 50),
            [LIMIT] = ROUTE_ARG("limit", 10),
    };
    struct query_param q[3] = {{"count", "50"}, {"at", "5"}, {"other", "x"}};
    struct request req = query1(q, "count", "50");
    struct response res = {0};
    uint64_t v[3] = {11, 22, 33};

    req.nr_query = 3; /* order of the request does not matter; unknown ones are left */
    CHECK_EQ_I(route_query_args(&req, &res, args, 3, v), 1 << AT | 1 << COUNT);
    CHECK_EQ_U(v[AT], 5);
    CHECK_EQ_U(v[COUNT], 50); /* max, just in range */
    CHECK_EQ_U(v[LIMIT], 33); /* absent: its default kept */
    CHECK_EQ_U(res.status, 0);

    req.nr_query = 0;
    CHECK_EQ_I(route_query_args(&req, &res, args, 3, v), 0); /* none given */
    CHECK_EQ_U(v[AT], 5);

    q[0].value = "1"; /* min, just in range */
    req.nr_query = 1;
    CHECK_EQ_I(route_query_args(&req, &res, args, 3, v), 1 << COUNT);
    CHECK_EQ_U(v[COUNT], 1);

    q[0].value = "0"; /* below min */
    CHECK_EQ_I(route_query_args(&req, &res, args, 3, v), -1);
    is_error(&res, 400, "bad_request", "query \\\"count\\\": at least 1");
    CHECK_EQ_U(v[COUNT], 1);

    q[0].value = "51"; /* above max */
    CHECK_EQ_I(route_query_args(&req, &res, args, 3, v), -1);
    is_error(&res, 400, "bad_request", "query \\\"count\\\": expected an integer from 0 to 50");

    /* the first bad one in the table's order is named */
    q[0].key = "limit";
    q[0].value = "x";
    q[1].value = "y";
    req.nr_query = 2;
    CHECK_EQ_I(route_query_args(&req, &res, args, 3, v), -1);
    is_error(&res, 400, "bad_request",
             "query \\\"at\\\": expected an integer from 0 to 18446744073709551615");
}

static void test_query_window(void)
{
    struct query_param q[2] = {{"limit", "1000"}, {"offset", "4294967295"}};
    struct request req = query1(q, "limit", "1000");
    struct response res = {0};
    unsigned limit = 1, offset = 1;

    req.nr_query = 0;
    CHECK(route_query_window(&req, &res, &limit, &offset)); /* defaults */
    CHECK_EQ_U(limit, ROUTE_LIST_LIMIT);
    CHECK_EQ_U(offset, 0);
    req.nr_query = 2;
    CHECK(route_query_window(&req, &res, &limit, &offset)); /* both at their max */
    CHECK_EQ_U(limit, 1000);
    CHECK_EQ_U(offset, UINT32_MAX);
    q[0].value = "1001";
    CHECK(!route_query_window(&req, &res, &limit, &offset));
    is_error(&res, 400, "bad_request", "query \\\"limit\\\": expected an integer from 0 to 1000");
    q[0].value = "0";
    q[1].value = "4294967296";
    CHECK(!route_query_window(&req, &res, &limit, &offset));
    is_error(&res, 400, "bad_request",
             "query \\\"offset\\\": expected an integer from 0 to 4294967295");
    CHECK_EQ_U(limit, 1000); /* untouched by a refusal */
}

static void test_query_value(void)
{
    struct query_param q[2] = {{"a", NULL}, {"b", "x"}};
    struct request req = query1(q, "a", NULL);

    req.nr_query = 2;
    CHECK_EQ_STR(route_query(&req, "a"), ""); /* given without a value */
    CHECK_EQ_STR(route_query(&req, "b"), "x");
    CHECK(route_query(&req, "c") == NULL);
    CHECK(route_query(&req, "B") == NULL); /* names are case-sensitive */
}

static void test_range_and_end(void)
{
    struct response res = {0};

    CHECK(route_check_range(&res, 5, 5));
    CHECK(route_check_range(&res, 0, UINT64_MAX));
    CHECK(!route_check_range(&res, 6, 5));
    is_error(&res, 400, "bad_request", "\\\"to\\\" is before \\\"from\\\"");
    CHECK(route_check_end(&res, "at", 0, 0));
    CHECK(route_check_end(&res, "at", 10, 10)); /* the end itself */
    CHECK(!route_check_end(&res, "at", 11, 10));
    is_error(&res, 400, "bad_request", "key \\\"at\\\": 11 is beyond the end (10 events)");
    CHECK(!route_check_end(&res, "to", UINT64_MAX, 0));
    is_error(&res, 400, "bad_request",
             "key \\\"to\\\": 18446744073709551615 is beyond the end (0 events)");
}

static void test_parse_addr(void)
{
    uint64_t v = 0;

    CHECK(route_parse_addr("0x0", &v) && v == 0);
    CHECK(route_parse_addr("0XffffFFFFffffFFFF", &v) && v == UINT64_MAX); /* 16 digits */
    CHECK(!route_parse_addr("0x10000000000000000", &v));                  /* 17 */
    CHECK(!route_parse_addr("0x", &v));
    CHECK(!route_parse_addr("", &v));
    CHECK(!route_parse_addr(NULL, &v));
    CHECK(!route_parse_addr("1234", &v));
    CHECK(!route_parse_addr("0x12g", &v));
    CHECK(!route_parse_addr("-0x1", &v));
}

static void test_ids(void)
{
    struct response res = {0};

    CHECK(route_check_id(&res, ROUTE_ID_SESSION, "abcdefgh23")); /* 10: just in range */
    CHECK(route_check_id(&res, ROUTE_ID_SESSION, "a"));
    CHECK(!route_check_id(&res, ROUTE_ID_SESSION, "abcdefgh234")); /* 11 */
    is_error(&res, 404, "not_found", "no session \\\"abcdefgh234\\\"");
    CHECK(!route_check_id(&res, ROUTE_ID_SESSION, ""));
    is_error(&res, 404, "not_found", "no session \\\"\\\"");
    CHECK(!route_check_id(&res, ROUTE_ID_SESSION, "ABC"));
    is_error(&res, 404, "not_found", "no session \\\"ABC\\\"");
    CHECK(!route_check_id(&res, ROUTE_ID_SESSION, "0123456789abcdefghij0123456789abcdefghij"));
    is_error(&res, 404, "not_found", "no session \\\"0123456789abcdefghij0123456789ab\\\"");
    CHECK(route_check_id(&res, ROUTE_ID_SNAPSHOT, "abcdefghijklmnopqrstuvwxyz234567")); /* 32 */
    CHECK(!route_check_id(&res, ROUTE_ID_SNAPSHOT, "abcdefghijklmnopqrstuvwxyz2345672"));
    is_error(&res, 404, "not_found", "no such snapshot");
    CHECK(route_check_id(&res, ROUTE_ID_LECTURE, "abcdefgh23"));
    CHECK(!route_check_id(&res, ROUTE_ID_LECTURE, "a-b"));
    is_error(&res, 404, "not_found", "no such lecture");
    CHECK(route_check_id(&res, ROUTE_ID_TRACE, "abcdefgh23"));
    CHECK(!route_check_id(&res, ROUTE_ID_TRACE, "abcdefgh234"));
    is_error(&res, 404, "not_found", "no trace \\\"abcdefgh234\\\"");
    CHECK_EQ_I(route_no_such(&res, ROUTE_ID_TRACE, "abc"), 0);
    is_error(&res, 404, "not_found", "no trace \\\"abc\\\"");
}

/* route_token() of a request whose Authorization header is @auth. */
static const char *token_of(const char *auth)
{
    static struct request req;

    memset(&req, 0, sizeof(req));
    req.authorization = auth;
    return route_token(&req);
}

static void test_token(void)
{
    struct request req;
    struct response res = {0};

    CHECK_EQ_STR(token_of("Bearer abc"), "abc");
    CHECK_EQ_STR(token_of("Bearer    abc"), "abc"); /* extra spaces after the scheme */
    CHECK_EQ_STR(token_of("Bearer abc def"), "abc def");
    CHECK(token_of(NULL) == NULL);          /* no header */
    CHECK(token_of("") == NULL);            /* empty */
    CHECK(token_of("abc") == NULL);         /* no scheme */
    CHECK(token_of("Bearer") == NULL);      /* a scheme only */
    CHECK(token_of("Bearer ") == NULL);     /* a scheme and a space */
    CHECK(token_of("Bearer    ") == NULL);  /* a scheme and spaces */
    CHECK(token_of("Basic abc") == NULL);   /* another scheme */
    CHECK(token_of(" Bearer abc") == NULL); /* space before the scheme */
    CHECK(token_of("Bearerabc") == NULL);   /* no space after it */

    memset(&req, 0, sizeof(req));
    req.authorization = "Bearer  0123456789abcdef0123456789abcdef";
    CHECK(route_token_is(&req, "0123456789abcdef0123456789abcdef"));
    CHECK(!route_token_is(&req, "0123456789abcdef0123456789abcdee"));
    CHECK(!route_token_is(&req, "0123456789abcdef0123456789abcdef0"));
    req.authorization = "0123456789abcdef0123456789abcdef";
    CHECK(!route_token_is(&req, "0123456789abcdef0123456789abcdef")); /* no scheme */
    req.authorization = NULL;
    CHECK(!route_token_is(&req, "0123456789abcdef0123456789abcdef"));

    CHECK_EQ_I(route_forbidden(&res, "deleting this needs its token"), 0);
    is_error(&res, 403, "forbidden", "deleting this needs its token (Authorization: Bearer TOKEN)");
}

int main(void)
{
    RUN_TEST(test_query_u64_boundaries);
    RUN_TEST(test_query_u64_overflow);
    RUN_TEST(test_query_args_table);
    RUN_TEST(test_query_window);
    RUN_TEST(test_query_value);
    RUN_TEST(test_range_and_end);
    RUN_TEST(test_parse_addr);
    RUN_TEST(test_ids);
    RUN_TEST(test_token);
    return check_done();
}
