/*
 * test_store.c: what the store keeps for several servers, on SQLite (the
 * PostgreSQL side runs in tests/pg/): trace jobs' rows (written, replaced,
 * read, deleted, cancelled, failed when stale and expired; the token's
 * SHA-256 they keep, against FIPS 180-4's examples), answers' rows
 * (replaced per voter, counted by choice), a lecture read by id
 * with its session's stored position, messages that do nothing on a store
 * nobody shares; and relay_heard(), the parsing of another server's
 * messages, against real lectures and a real follow hub; checkpoint images
 * and their shared pages (written, listed, read, kept while a session names
 * their owner, deleted with the last one), on SQLite and, when
 * SLUBLAB_TEST_PG names a PostgreSQL server (tests/pg/), there too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "base/sha256.h"
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
    CHECK_OK(store_trace_job_put(st, &j, NULL));
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
    CHECK_OK(store_trace_job_put(st, &j, NULL));
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

/* FIPS 180-4's examples (one block, two blocks) and the padding's edges. */
static void test_sha256(void)
{
    char hex[SHA256_HEX_LEN + 1];
    char many[1001];

    sha256_hex("abc", hex);
    CHECK_EQ_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", hex);
    CHECK_EQ_STR(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    sha256_hex("", hex);
    CHECK_EQ_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    /* 1000 'a': many blocks, and a tail past 56 bytes (1000 % 64 == 40: no; 56..63 below) */
    memset(many, 'a', 1000);
    many[1000] = '\0';
    sha256_hex(many, hex);
    CHECK_EQ_STR(hex, "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
    many[60] = '\0'; /* 60 bytes: the length goes in a second padding block */
    sha256_hex(many, hex);
    CHECK_EQ_STR(hex, "11ee391211c6256460b6ed375957fadd8061cafbb31daf967db875aebd5aaad4");
}

/* Run @sql on the SQLite file @path beside the store's own connection. */
static int exec_sql(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open(path, &db);

    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    sqlite3_close(db);
    return rc == SQLITE_OK ? 0 : -EIO;
}

/* A row as a job writes it: @state, written @ago seconds ago (by hand). */
static void put_aged(struct store *st, const char *path, const char *id, const char *state,
                     unsigned ago)
{
    struct store_trace_job j;
    char sql[256];

    memset(&j, 0, sizeof(j));
    snprintf(j.id, sizeof(j.id), "%s", id);
    snprintf(j.state, sizeof(j.state), "%s", state);
    CHECK_OK(store_trace_job_put(st, &j, NULL));
    snprintf(sql, sizeof(sql),
             "UPDATE trace_jobs SET updated = strftime('%%Y-%%m-%%dT%%H:%%M:%%fZ', 'now', "
             "'-%u seconds') WHERE id = '%s'",
             ago, id);
    CHECK_OK(exec_sql(path, sql));
}

static void test_trace_job_cancel_and_expiry(void)
{
    char path[64];
    struct strbuf err = STRBUF_INIT;
    struct store *st = NULL;
    struct store_trace_job j, got;
    uint64_t failed, deleted;
    bool cancel = true;

    snprintf(path, sizeof(path), "/tmp/slublab-test-store-%d.db", (int)getpid());
    unlink(path);
    CHECK_OK(store_open(path, &st, &err));
    strbuf_release(&err);
    if (!CHECK(st))
        goto out_unlink;
    memset(&j, 0, sizeof(j));
    strcpy(j.id, "cancelled1");
    strcpy(j.state, "replaying");
    sha256_hex("0123456789abcdef0123456789abcdef", j.owner);
    CHECK_OK(store_trace_job_put(st, &j, &cancel));
    CHECK(!cancel);
    CHECK_OK(store_trace_job_load(st, "cancelled1", &got));
    CHECK_EQ_STR(got.owner, "3eb1bd439947eb762998e566ccc2e099c791118b2f40579cc4f7da2b5061b7f9");
    CHECK(!got.cancel);
    store_trace_job_free(&got);
    CHECK_EQ_I(store_trace_job_cancel(st, "nosuchjob0"), -ENOENT);
    CHECK_OK(store_trace_job_cancel(st, "cancelled1"));
    /* the running job's next write keeps the flag, and is told */
    j.done = 5;
    CHECK_OK(store_trace_job_put(st, &j, &cancel));
    CHECK(cancel);
    CHECK_OK(store_trace_job_load(st, "cancelled1", &got));
    CHECK(got.cancel);
    CHECK_EQ_U(got.done, 5);
    store_trace_job_free(&got);

    /* a running job of a stopped server, a live one, old and new finished ones */
    put_aged(st, path, "stalejob01", "replaying", 700);
    put_aged(st, path, "stalejob02", "building", 700);
    put_aged(st, path, "livejob001", "replaying", 30);
    put_aged(st, path, "olddone001", "done", 8 * 86400);
    put_aged(st, path, "oldfail001", "failed", 8 * 86400);
    put_aged(st, path, "newdone001", "done", 6 * 86400);
    CHECK_OK(store_trace_jobs_expire(st, 7, 600, "its server stopped", &failed, &deleted));
    CHECK_EQ_U(failed, 2);
    CHECK_EQ_U(deleted, 2);
    CHECK_OK(store_trace_job_load(st, "stalejob01", &got));
    CHECK_EQ_STR(got.state, "failed");
    CHECK_EQ_STR(got.code, "internal");
    CHECK_EQ_STR(got.message, "its server stopped");
    store_trace_job_free(&got);
    CHECK_OK(store_trace_job_load(st, "livejob001", &got));
    CHECK_EQ_STR(got.state, "replaying");
    store_trace_job_free(&got);
    CHECK_EQ_I(store_trace_job_load(st, "olddone001", &got), -ENOENT);
    CHECK_EQ_I(store_trace_job_load(st, "oldfail001", &got), -ENOENT);
    CHECK_OK(store_trace_job_load(st, "newdone001", &got));
    store_trace_job_free(&got);
    /* the cancelled row is fresh: kept (its server may yet act on it) */
    CHECK_OK(store_trace_job_load(st, "cancelled1", &got));
    store_trace_job_free(&got);

    /* 0 days keeps finished rows; a cancelled row nobody acted on goes */
    CHECK_OK(exec_sql(path, "UPDATE trace_jobs SET updated = '2000-01-01T00:00:00.000Z'"));
    CHECK_OK(store_trace_jobs_expire(st, 0, 600, "x", &failed, &deleted));
    CHECK_EQ_U(failed, 1);  /* livejob001 */
    CHECK_EQ_U(deleted, 1); /* cancelled1 */
    CHECK_EQ_I(store_trace_job_load(st, "cancelled1", &got), -ENOENT);
    CHECK_OK(store_trace_job_load(st, "newdone001", &got));
    store_trace_job_free(&got);
    store_close(st);
out_unlink:
    unlink(path);
    for (int i = 0; i < 2; i++) { /* the WAL's files beside it */
        char side[80];

        snprintf(side, sizeof(side), "%s%s", path, i ? "-shm" : "-wal");
        unlink(side);
    }
}

static int tally_row(const char *choice, uint64_t n, void *arg)
{
    char *out = arg;
    size_t len = strlen(out);

    snprintf(out + len, 256 - len, "%s=%llu ", choice, (unsigned long long)n);
    return 0;
}

/* Answers' rows: a voter's later answer replaces its row; counted by choice in byte order. */
static void test_answer_rows(void)
{
    struct store *st = open_memory();
    char got[256] = "";
    uint64_t deleted = 1;

    if (!CHECK(st))
        return;
    CHECK_OK(store_answer_put(st, "lecture001", 7, "voter-one", "refill"));
    CHECK_OK(store_answer_put(st, "lecture001", 7, "voter-two", "barn_full"));
    CHECK_OK(store_answer_put(st, "lecture001", 7, "voter-three", "refill"));
    CHECK_OK(store_answer_put(st, "lecture001", 7, "voter-four", "b_z"));
    CHECK_OK(store_answer_put(st, "lecture001", 8, "voter-one", "keep"));
    CHECK_OK(store_answer_put(st, "lecture002", 7, "voter-one", "other"));
    CHECK_OK(store_answers_tally(st, "lecture001", 7, tally_row, got));
    CHECK_EQ_STR(got, "b_z=1 barn_full=1 refill=2 ");
    CHECK_OK(store_answer_put(st, "lecture001", 7, "voter-one", "barn_full"));
    got[0] = '\0';
    CHECK_OK(store_answers_tally(st, "lecture001", 7, tally_row, got));
    CHECK_EQ_STR(got, "b_z=1 barn_full=2 refill=1 ");
    got[0] = '\0';
    CHECK_OK(store_answers_tally(st, "lecture001", 9, tally_row, got));
    CHECK_EQ_STR(got, "");
    CHECK_OK(store_answers_expire(st, 3600, &deleted));
    CHECK_EQ_U(deleted, 0);
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
    RUN_TEST(test_sha256);
    RUN_TEST(test_trace_job_cancel_and_expiry);
    RUN_TEST(test_answer_rows);
    RUN_TEST(test_lecture_load);
    RUN_TEST(test_session_where);
    RUN_TEST(test_messages_on_sqlite);
    RUN_TEST(test_relay_heard);
    RUN_TEST(test_ckpt_rows);
    return check_done();
}
