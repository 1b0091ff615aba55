/*
 * test_store.c: what the store keeps for several servers, on SQLite (the
 * PostgreSQL side runs in tests/pg/): trace jobs' rows (written, replaced,
 * read, deleted), a lecture read by id with its session's stored position,
 * messages that do nothing on a store nobody shares; and relay_heard(), the
 * parsing of another server's messages, against real lectures and a real
 * follow hub; checkpoint images and their shared pages (written, listed,
 * read, kept while a session names their owner, deleted with the last one),
 * on SQLite and, when SLUBLAB_TEST_PG names a PostgreSQL server (tests/pg/),
 * there too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* A stored session of scenario "{}" named @id, for checkpoint owners. */
static void put_session(struct store *st, const char *id)
{
    struct store_batch b = {NULL, UINT64_MAX};
    struct store_session ss;
    char settings[] = "{}";
    int64_t scn = 0;

    memset(&ss, 0, sizeof(ss));
    CHECK_OK(store_scenario_put(st, "t", "{}", 2, false, &scn));
    snprintf(ss.id, sizeof(ss.id), "%s", id);
    snprintf(ss.token, sizeof(ss.token), "0123456789abcdef0123456789abcdef");
    ss.scenario = scn;
    ss.settings = settings;
    ss.batches = &b;
    ss.nr_batches = 1;
    CHECK_OK(store_session_create(st, &ss));
}

struct ckpt_seen {
    uint64_t seq[4], op[4], off[4];
    bool extra[4];
    unsigned n;
};

static int ckpt_seen(void *arg, uint64_t seq, uint64_t op, uint64_t off, bool has_extra)
{
    struct ckpt_seen *c = arg;

    if (c->n == 4)
        return -E2BIG;
    c->seq[c->n] = seq;
    c->op[c->n] = op;
    c->off[c->n] = off;
    c->extra[c->n++] = has_extra;
    return 0;
}

/* The checkpoint tables of @st; @tag makes ids unique on a shared server. */
static void check_ckpts(struct store *st, const char *tag)
{
    char owner[STORE_CKPT_OWNER_LEN + 1], other[STORE_CKPT_OWNER_LEN + 1], s1[16], s2[16];
    uint8_t page_a[300], page_b[5] = {0, 1, 2, 3, 0}, *got = NULL;
    struct store_ckpt_page pages[2];
    struct store_ckpt c, back;
    struct ckpt_seen seen = {.n = 0};
    char meta[] = "meta", timeline[] = "timeline";
    uint64_t images, npages;
    size_t len = 0, i;

    snprintf(owner, sizeof(owner), "%-32s", tag);
    snprintf(other, sizeof(other), "%-31s!", tag);
    snprintf(s1, sizeof(s1), "%.6sone", tag);
    snprintf(s2, sizeof(s2), "%.6stwo", tag);
    for (i = 0; i < sizeof(page_a); i++)
        page_a[i] = (uint8_t)(i * 7);
    memset(pages, 0, sizeof(pages));
    memset(pages[0].hash, 0xa1, STORE_CKPT_HASH_LEN);
    pages[0].data = page_a;
    pages[0].len = sizeof(page_a);
    memset(pages[1].hash, 0xb2, STORE_CKPT_HASH_LEN);
    pages[1].data = page_b;
    pages[1].len = sizeof(page_b);
    CHECK_OK(store_ckpt_pages_put(st, owner, pages, 2));
    /* a hash already stored keeps its bytes: pages are shared, never rewritten */
    pages[0].data = page_b;
    pages[0].len = sizeof(page_b);
    CHECK_OK(store_ckpt_pages_put(st, owner, pages, 1));
    CHECK_OK(store_ckpt_page_get(st, owner, pages[0].hash, &got, &len));
    CHECK_EQ_U(len, sizeof(page_a));
    CHECK(got && !memcmp(got, page_a, sizeof(page_a)));
    free(got);
    CHECK_EQ_I(store_ckpt_page_get(st, other, pages[0].hash, &got, &len), -ENOENT);

    memset(&c, 0, sizeof(c));
    c.seq = 4096;
    c.op = 1000;
    c.off = 7777;
    c.meta = meta;
    c.meta_len = 4;
    c.pages = page_b;
    c.pages_len = sizeof(page_b); /* zero bytes inside a blob survive */
    CHECK_OK(store_ckpt_put(st, owner, "img1", &c));
    c.seq = 100;
    c.op = 30;
    c.extra = timeline;
    c.extra_len = 8;
    CHECK_OK(store_ckpt_put(st, owner, "img1", &c));
    c.seq = 5;
    CHECK_OK(store_ckpt_put(st, owner, "img2", &c)); /* another format: not listed below */
    CHECK_OK(store_ckpt_list(st, owner, "img1", ckpt_seen, &seen));
    CHECK_EQ_U(seen.n, 2);
    CHECK_EQ_U(seen.seq[0], 100);
    CHECK_EQ_U(seen.op[0], 30);
    CHECK(seen.extra[0]);
    CHECK_EQ_U(seen.seq[1], 4096);
    CHECK_EQ_U(seen.op[1], 1000);
    CHECK_EQ_U(seen.off[1], 7777);
    CHECK(!seen.extra[1]);
    CHECK_OK(store_ckpt_get(st, owner, "img1", 4096, &back));
    CHECK_EQ_U(back.op, 1000);
    CHECK_EQ_U(back.meta_len, 4);
    CHECK(back.meta && !memcmp(back.meta, "meta", 4));
    CHECK_EQ_U(back.pages_len, sizeof(page_b));
    CHECK(back.pages && !memcmp(back.pages, page_b, sizeof(page_b)));
    CHECK(back.extra == NULL);
    store_ckpt_free(&back);
    CHECK_OK(store_ckpt_get(st, owner, "img1", 100, &back));
    CHECK(back.extra && back.extra_len == 8 && !memcmp(back.extra, "timeline", 8));
    store_ckpt_free(&back);
    CHECK_EQ_I(store_ckpt_get(st, owner, "img1", 101, &back), -ENOENT);
    CHECK_EQ_I(store_ckpt_get(st, owner, "img9", 100, &back), -ENOENT);
    CHECK_OK(store_ckpt_count(st, owner, &images, &npages));
    CHECK_EQ_U(images, 3);
    CHECK_EQ_U(npages, 2);

    /* two sessions name the owner: the images go with the last of them */
    put_session(st, s1);
    put_session(st, s2);
    CHECK_OK(store_session_set_ckpts(st, s1, owner));
    CHECK_OK(store_session_set_ckpts(st, s2, owner));
    CHECK_EQ_I(store_session_set_ckpts(st, "nosuchone1", owner), -ENOENT);
    CHECK_OK(store_session_delete(st, s1));
    CHECK_OK(store_ckpt_count(st, owner, &images, &npages));
    CHECK_EQ_U(images, 3);
    CHECK_EQ_U(npages, 2);
    CHECK_OK(store_session_delete(st, s2));
    CHECK_OK(store_ckpt_count(st, owner, &images, &npages));
    CHECK_EQ_U(images, 0);
    CHECK_EQ_U(npages, 0);
}

static void test_ckpt_rows(void)
{
    struct store *st = open_memory();
    const char *pg = getenv("SLUBLAB_TEST_PG");
    struct strbuf err = STRBUF_INIT;
    char tag[16];

    if (!CHECK(st))
        return;
    check_ckpts(st, "sqlite");
    store_close(st);
    if (!pg || !*pg)
        return;
    st = NULL;
    CHECK_OK(store_open(pg, &st, &err));
    if (!st) {
        fprintf(stderr, "%s\n", strbuf_str(&err));
        strbuf_release(&err);
        return;
    }
    strbuf_release(&err);
    snprintf(tag, sizeof(tag), "pg%08x", (unsigned)getpid());
    check_ckpts(st, tag);
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
    RUN_TEST(test_ckpt_rows);
    return check_done();
}
