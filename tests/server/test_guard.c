/*
 * test_guard.c: the input checks under the HTTP server: UTF-8 validation
 * and repair (base/utf8.c), and who may write (http/guard.c), each rule
 * driven both ways.
 */
#include <errno.h>
#include <string.h>

#include "base/utf8.h"
#include "check.h"
#include "http/guard.h"

static bool valid(const char *s)
{
    return utf8_valid(s, strlen(s));
}

static void test_utf8_valid(void)
{
    CHECK(valid(""));
    CHECK(valid("plain ascii"));
    CHECK(valid("caf\xc3\xa9"));       /* é, two bytes */
    CHECK(valid("\xe2\x82\xac"));      /* €, three bytes */
    CHECK(valid("\xf0\x9f\x90\xa7"));  /* a penguin, four bytes */
    CHECK(valid("\xf4\x8f\xbf\xbf"));  /* U+10FFFF, the last */
    CHECK(!valid("\xff"));             /* never a lead byte */
    CHECK(!valid("\xc3"));             /* cut short */
    CHECK(!valid("\xc0\xaf"));         /* overlong '/' */
    CHECK(!valid("\xe0\x80\xaf"));     /* overlong, three bytes */
    CHECK(!valid("\xed\xa0\x80"));     /* a UTF-16 surrogate */
    CHECK(!valid("\xf4\x90\x80\x80")); /* past U+10FFFF */
    CHECK(!valid("\xe2\x82"));         /* cut short, three bytes */
    CHECK(!valid("a\x80z"));           /* a lone continuation byte */
    CHECK(utf8_valid("a\0b", 3));      /* NUL is valid UTF-8 (refused elsewhere) */
}

static void test_utf8_sanitize(void)
{
    char a[] = "caf\xc3\xa9 \xff\xfe ok \xc3";
    char b[] = "fine \xe2\x82\xac";

    utf8_sanitize(a);
    CHECK_EQ_STR(a, "caf\xc3\xa9 ?? ok ?");
    CHECK(valid(a));
    utf8_sanitize(b);
    CHECK_EQ_STR(b, "fine \xe2\x82\xac");
}

static void test_guard_loopback(void)
{
    struct strbuf err = STRBUF_INIT;
    struct guard g;
    char why[300];

    CHECK_EQ_I(guard_init(&g, "127.0.0.1", 8080, NULL, &err), 0);
    CHECK_EQ_I(guard_check(&g, "GET", "evil.example", "https://evil.example", why, sizeof(why)), 0);
    CHECK_EQ_I(guard_check(&g, "POST", "127.0.0.1:8080", NULL, why, sizeof(why)), 0);
    CHECK_EQ_I(guard_check(&g, "POST", "LOCALHOST:8080", "http://localhost:8080", why, sizeof(why)),
               0);
    CHECK_EQ_I(guard_check(&g, "POST", NULL, NULL, why, sizeof(why)), 0);
    CHECK_EQ_I(guard_check(&g, "POST", "127.0.0.1:8081", NULL, why, sizeof(why)), -EPERM);
    CHECK(strstr(why, "Host \"127.0.0.1:8081\"") != NULL);
    CHECK_EQ_I(
            guard_check(&g, "DELETE", "127.0.0.1:8080", "http://127.0.0.1:8081", why, sizeof(why)),
            -EPERM);
    CHECK_EQ_I(guard_check(&g, "POST", "127.0.0.1:8080", "null", why, sizeof(why)), -EPERM);
    CHECK_EQ_I(
            guard_check(&g, "POST", "127.0.0.1:8080", "http://127.0.0.1:8080/", why, sizeof(why)),
            -EPERM); /* an origin has no path */
    CHECK_EQ_I(guard_check(&g, "POST", "evil\xff:8080", NULL, why, sizeof(why)), -EPERM);
    CHECK(valid(why)); /* the refused Host is quoted as text */
    guard_release(&g);
    strbuf_release(&err);
}

static void test_guard_allow(void)
{
    static const char *const allow[] = {"https://Lab.Example.edu", "http://lab2.example:8000",
                                        NULL};
    static const char *const bad[][2] = {{"lab.example.edu", NULL},
                                         {"ftp://lab.example.edu", NULL},
                                         {"https://lab.example.edu/path", NULL},
                                         {"https://lab.example.edu:0", NULL},
                                         {"https://", NULL}};
    struct strbuf err = STRBUF_INIT;
    struct guard g;
    char why[300];

    CHECK_EQ_I(guard_init(&g, "127.0.0.1", 80, allow, &err), 0);
    /* the default port is left out by browsers: both spellings */
    CHECK_EQ_I(guard_check(&g, "POST", "127.0.0.1", "http://127.0.0.1", why, sizeof(why)), 0);
    CHECK_EQ_I(
            guard_check(&g, "POST", "lab.example.edu", "https://lab.example.edu", why, sizeof(why)),
            0);
    CHECK_EQ_I(guard_check(&g, "POST", "lab2.example:8000", "http://lab2.example:8000", why,
                           sizeof(why)),
               0);
    CHECK_EQ_I(guard_check(&g, "POST", "lab2.example", NULL, why, sizeof(why)), -EPERM);
    CHECK_EQ_I(
            guard_check(&g, "POST", "lab.example.edu", "http://lab.example.edu", why, sizeof(why)),
            -EPERM); /* https only, as allowed */
    guard_release(&g);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        strbuf_reset(&err);
        CHECK_EQ_I(guard_init(&g, "127.0.0.1", 8080, bad[i], &err), -EINVAL);
        CHECK(strstr(strbuf_str(&err), "--allow-origin") != NULL);
        guard_release(&g);
    }
    strbuf_release(&err);
}

static void test_guard_any(void)
{
    struct strbuf err = STRBUF_INIT;
    struct guard g;
    char why[300];

    /* 0.0.0.0: every interface address, loopback among them */
    CHECK_EQ_I(guard_init(&g, "0.0.0.0", 9000, NULL, &err), 0);
    CHECK_EQ_I(guard_check(&g, "POST", "127.0.0.1:9000", "http://127.0.0.1:9000", why, sizeof(why)),
               0);
    CHECK_EQ_I(guard_check(&g, "POST", "localhost:9000", NULL, why, sizeof(why)), 0);
    CHECK_EQ_I(guard_check(&g, "POST", "0.0.0.0:9000", NULL, why, sizeof(why)), -EPERM);
    guard_release(&g);
    strbuf_release(&err);
}

static void test_json_type(void)
{
    CHECK(guard_is_json("application/json"));
    CHECK(guard_is_json("Application/JSON; charset=utf-8"));
    CHECK(guard_is_json("application/json ;charset=utf-8"));
    CHECK(!guard_is_json(NULL));
    CHECK(!guard_is_json("text/plain"));
    CHECK(!guard_is_json("application/jsonp"));
    CHECK(!guard_is_json("application/x-www-form-urlencoded"));
    CHECK(!guard_is_json("multipart/form-data; boundary=x"));
}

int main(void)
{
    RUN_TEST(test_utf8_valid);
    RUN_TEST(test_utf8_sanitize);
    RUN_TEST(test_guard_loopback);
    RUN_TEST(test_guard_allow);
    RUN_TEST(test_guard_any);
    RUN_TEST(test_json_type);
    return check_done();
}
