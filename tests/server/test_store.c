/*
 * test_store.c: what the store keeps for several servers, on SQLite (the
 * PostgreSQL side runs in tests/pg/): trace jobs' rows (written, replaced,
 * read, deleted), a lecture read by id with its session's stored position,
 * messages that do nothing on a store nobody shares; and relay_heard(), the
 * parsing of another server's messages, against real lectures and a real
 * follow hub.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "http/app.h"
#include "http/follow.h"
#include "http/lecture.h"
#include "http/relay.h"
#include "session/store.h"

static struct store *open_memory(void)
{
    struct strbuf err = STRBUF_INIT;
    struct store *st = NULL;

    CHECK_OK(store_open(":memory:", &st, &err));
    strbuf_release(&err);
    return st;
}

static void test_trace_job_rows(void)
{
    struct store *st = open_memory();
    char report[] = "kmem trace upload\nline two";
    struct store_trace_job j, got;

    if (!CHECK(st))
        return;
    memset(&j, 0, sizeof(j));
    strcpy(j.id, "abcdefghij");
    strcpy(j.state, "replaying");
    j.bytes = 1000;
    j.done = 10;
    j.total = 1000;
    CHECK_EQ_I(store_trace_job_load(st, "abcdefghij", &got), -ENOENT);
    CHECK_OK(store_trace_job_put(st, &j));
    CHECK_OK(store_trace_job_load(st, "abcdefghij", &got));
    CHECK_EQ_STR(got.state, "replaying");
    CHECK_EQ_U(got.done, 10);
    CHECK_EQ_U(got.total, 1000);
    CHECK(got.report == NULL);
    CHECK_EQ_STR(got.session, "");
    store_trace_job_free(&got);

    /* the same id again replaces the row: the job's later state */
    strcpy(j.state, "done");
    j.done = 1000;
    j.events = 77;
    j.built = j.recorded = 42;
    strcpy(j.session, "sessionid0");
    strcpy(j.token, "0123456789abcdef0123456789abcdef");
    j.report = report;
    CHECK_OK(store_trace_job_put(st, &j));
    CHECK_OK(store_trace_job_load(st, "abcdefghij", &got));
    CHECK_EQ_STR(got.state, "done");
    CHECK_EQ_U(got.done, 1000);
    CHECK_EQ_U(got.events, 77);
    CHECK_EQ_U(got.built, 42);
    CHECK_EQ_U(got.recorded, 42);
    CHECK_EQ_STR(got.session, "sessionid0");
    CHECK_EQ_STR(got.token, "0123456789abcdef0123456789abcdef");
    if (CHECK(got.report))
        CHECK_EQ_STR(got.report, "kmem trace upload\nline two");
    store_trace_job_free(&got);
    CHECK(got.report == NULL);

    CHECK_OK(store_trace_job_delete(st, "abcdefghij"));
    CHECK_EQ_I(store_trace_job_load(st, "abcdefghij", &got), -ENOENT);
    CHECK_EQ_I(store_trace_job_delete(st, "abcdefghij"), -ENOENT);
    store_close(st);
}

static void test_lecture_load(void)
{
    struct store *st = open_memory();
    struct store_lecture lc, got;

    if (!CHECK(st))
        return;
    memset(&lc, 0, sizeof(lc));
    strcpy(lc.id, "lecture001");
    strcpy(lc.token, "0123456789abcdef0123456789abcdef");
    strcpy(lc.session, "nosuchone1");
    lc.position = 5;
    lc.events = 9;
    lc.ops = 3;
    CHECK_EQ_I(store_lecture_load(st, "lecture001", &got), -ENOENT);
    CHECK_OK(store_lecture_create(st, &lc));
    CHECK_OK(store_lecture_load(st, "lecture001", &got));
    CHECK_EQ_STR(got.id, "lecture001");
    CHECK_EQ_STR(got.token, lc.token);
    CHECK_EQ_STR(got.session, "nosuchone1");
    /* no stored session by that id: the lecture's own values */
    CHECK_EQ_U(got.position, 5);
    CHECK_EQ_U(got.events, 9);
    CHECK_EQ_U(got.ops, 3);
    store_close(st);
}

static void test_session_where(void)
{
    struct store *st = open_memory();
    uint64_t pos = 99, events = 99;

    if (!CHECK(st))
        return;
    CHECK_EQ_I(store_session_where(st, "nosuchone1", &pos, &events), -ENOENT);
    CHECK_EQ_U(pos, 99);
    store_close(st);
}

static void test_messages_on_sqlite(void)
{
    struct store *st = open_memory();

    if (!CHECK(st))
        return;
    CHECK(!store_shared(st));
    CHECK(store_available(st));
    CHECK_OK(store_notify(st, "s abc 1 2 3"));
    CHECK_OK(store_listen(st, relay_heard, NULL)); /* nothing to hear: no thread, no call */
    store_unlisten(st);
    store_close(st);
}

static void test_relay_heard(void)
{
    struct app app;
    struct lecture_info info = {.session = "sessiona01", .at = 1, .events = 10, .ops = 4}, got;
    char token[33];

    memset(&app, 0, sizeof(app));
    if (!CHECK_OK(follow_hub_new(100, 0, &app.follow)) ||
        !CHECK_OK(lectures_new(NULL, &app.lectures)))
        goto out;
    if (!CHECK_OK(lecture_create(app.lectures, &info, token)))
        goto out;

    /* another server moved the session the lecture shows */
    relay_heard("s sessiona01 7 12 5", &app);
    CHECK_OK(lecture_get(app.lectures, info.id, &got));
    CHECK_EQ_U(got.at, 7);
    CHECK_EQ_U(got.events, 12);
    CHECK_EQ_U(got.ops, 5);
    /* another session's move does not touch it */
    relay_heard("s sessionb02 9 99 9", &app);
    CHECK_OK(lecture_get(app.lectures, info.id, &got));
    CHECK_EQ_U(got.at, 7);

    /* another server pointed the lecture at another session */
    {
        char msg[96];

        snprintf(msg, sizeof(msg), "l %s sessionc03 2 20 6", info.id);
        relay_heard(msg, &app);
        CHECK_OK(lecture_get(app.lectures, info.id, &got));
        CHECK_EQ_STR(got.session, "sessionc03");
        CHECK_EQ_U(got.at, 2);
        CHECK_EQ_U(got.events, 20);
        /* "-": it shows none */
        snprintf(msg, sizeof(msg), "l %s - 0 0 0", info.id);
        relay_heard(msg, &app);
        CHECK_OK(lecture_get(app.lectures, info.id, &got));
        CHECK_EQ_STR(got.session, "");
        snprintf(msg, sizeof(msg), "l %s sessionc03 2 20 6", info.id);
        relay_heard(msg, &app);

        /* what does not parse changes nothing */
        snprintf(msg, sizeof(msg), "l %s sessionc03 3 20 6 extra", info.id);
        relay_heard(msg, &app);
        snprintf(msg, sizeof(msg), "l %s SESSION_X 3 20 6", info.id);
        relay_heard(msg, &app);
        snprintf(msg, sizeof(msg), "l %s sessionc03 3 20", info.id);
        relay_heard(msg, &app);
        relay_heard("s sessionc03 x 1 1", &app);
        relay_heard("s sessionc03 -3 1 1", &app);
        relay_heard("s sessionc03 3 1 99999999999999999999", &app);
        relay_heard("x sessionc03 3 1 1", &app);
        relay_heard("", &app);
        relay_heard("s", &app);
        CHECK_OK(lecture_get(app.lectures, info.id, &got));
        CHECK_EQ_U(got.at, 2);
        CHECK_EQ_STR(got.session, "sessionc03");
    }
    /* a lecture this server does not know: nothing made up */
    relay_heard("l unknown001 sessionc03 3 20 6", &app);
    CHECK_EQ_I(lecture_get(app.lectures, "unknown001", &got), -ENOENT);
out:
    follow_hub_stop(app.follow);
    follow_hub_free(app.follow);
    lectures_free(app.lectures);
}

int main(void)
{
    RUN_TEST(test_trace_job_rows);
    RUN_TEST(test_lecture_load);
    RUN_TEST(test_session_where);
    RUN_TEST(test_messages_on_sqlite);
    RUN_TEST(test_relay_heard);
    return check_done();
}
