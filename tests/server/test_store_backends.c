/*
 * test_store_backends.c: the store's conformance suite.  Every store.h
 * operation runs against each back end: SQLite on a temporary file always,
 * PostgreSQL when SLUBLAB_TEST_PG names a server's "postgres" database
 * (tests/pg/cluster.sh prints one; the suite makes a database of its own
 * there and drops it).  Each run checks its results against what store.h
 * promises (-ENOENT, -EEXIST, what a transaction undoes, blobs with NULs
 * and of zero length, list pages and totals, tokens, the cancel flag, the
 * tally's byte order, what expires) and writes what it saw into a
 * transcript; the back ends' transcripts, JSON lists included, must be the
 * same byte for byte.  The in-memory back end (STORE_MEM_DB) runs the parts
 * it keeps (scenarios, sessions, op logs, checkpoints, snapshots: not
 * lectures, trace jobs and answers, which need a server), and its
 * transcript must be SQLite's of those parts.  Messages between servers (store_notify()) are heard
 * on PostgreSQL and do nothing on SQLite.
 */
#define _POSIX_C_SOURCE 200809L /* mkdtemp(), nanosleep() */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>
#include <sqlite3.h>

#include "check.h"
#include "session/store.h"
#include "session/store_internal.h"

/* What a run saw, line by line, in a struct strbuf. */
#define say strbuf_printf

/* Mutable copies of the texts the store's structs point at. */
static char settings[] = "{\"seed\":1}", batch_ops[] = "[{\"op\":\"alloc\"}]", title[] = "a title",
            batches[] = "[{\"ops\":null,\"limit\":null}]", engine[] = "engine-1",
            state[] = "{\"state\":1}", report[] = "a\nreport", meta[] = "m", pages_list[] = "pp",
            extra[] = "\0x";

/* The length of array @key of @o, or its number; -1 when there is none. */
static int json_count(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    return cJSON_IsArray(v) ? cJSON_GetArraySize(v) : cJSON_IsNumber(v) ? v->valueint : -1;
}

static struct store *mem_store; /* the in-memory store under test, which db_exec() reaches */

/* db_exec()'s updates on the in-memory store, which has no SQL: "UPDATE T
 * SET C = 'V'" then " || substr(id, 2, 1)", " WHERE id = 'X'" or
 * " WHERE id IN ('X', 'Y')". */
static int mem_exec(const char *sql)
{
    char table[32], col[32], value[64], id[2][32];
    int n = 0, k;

    if (sscanf(sql, "UPDATE %31s SET %31s = '%63[^']'%n", table, col, value, &n) != 3 || !n)
        return -EINVAL;
    sql += n;
    if (!strcmp(sql, " || substr(id, 2, 1)"))
        return store_mem_set(mem_store, table, col, NULL, value, true);
    if (sscanf(sql, " WHERE id = '%31[^']'", id[0]) == 1)
        return store_mem_set(mem_store, table, col, id[0], value, false);
    if ((k = sscanf(sql, " WHERE id IN ('%31[^']', '%31[^']')", id[0], id[1])) == 2)
        return store_mem_set(mem_store, table, col, id[0], value, false) ||
               store_mem_set(mem_store, table, col, id[1], value, false);
    return -EINVAL;
}

/* Run @sql on database @db beside the store's own connection (SQLite file or URL). */
static int db_exec(const char *db, const char *sql)
{
    int ret = -EIO;

    if (!strcmp(db, STORE_MEM_DB))
        return mem_exec(sql);
    if (!strncmp(db, "postgres", 8)) {
        PGconn *c = PQconnectdb(db);
        PGresult *r = PQstatus(c) == CONNECTION_OK ? PQexec(c, sql) : NULL;

        if (r && PQresultStatus(r) == PGRES_COMMAND_OK)
            ret = 0;
        else
            fprintf(stderr, "%s: %s", sql, PQerrorMessage(c));
        PQclear(r);
        PQfinish(c);
    } else {
        sqlite3 *s = NULL;

        if (sqlite3_open(db, &s) == SQLITE_OK &&
            sqlite3_exec(s, sql, NULL, NULL, NULL) == SQLITE_OK)
            ret = 0;
        sqlite3_close(s);
    }
    return ret;
}

/* A list's JSON, its "created" times (the clock's) written as "-". */
static void say_json(struct strbuf *t, const char *what, cJSON *o)
{
    cJSON *arr = o ? o->child : NULL, *row;
    char *text;

    cJSON_ArrayForEach(row, arr)
    {
        if (cJSON_GetObjectItemCaseSensitive(row, "created"))
            cJSON_ReplaceItemInObjectCaseSensitive(row, "created", cJSON_CreateString("-"));
    }
    text = o ? cJSON_PrintUnformatted(o) : NULL;
    say(t, "%s: %s\n", what, text ? text : "(none)");
    cJSON_free(text);
    cJSON_Delete(o);
}

static struct store_session session_of(const char *id, int64_t scenario, struct store_batch *b,
                                       size_t nr)
{
    struct store_session ss;

    memset(&ss, 0, sizeof(ss));
    snprintf(ss.id, sizeof(ss.id), "%s", id);
    snprintf(ss.token, sizeof(ss.token), "tok-%s", id);
    ss.scenario = scenario;
    ss.settings = settings;
    ss.batches = b;
    ss.nr_batches = nr;
    return ss;
}

static void sessions_and_scenarios(struct store *st, const char *db, struct strbuf *t)
{
    struct store_batch b[] = {{NULL, UINT64_MAX}, {batch_ops, 3}};
    char older[4][STORE_ID_MAX + 1];
    struct store_session ss, got;
    int64_t a = 0, a2 = 0, c = 0;
    uint64_t pos = 0, ev = 0, nr = 0;
    unsigned char *ov = NULL;
    size_t len = 0, n = 0;
    cJSON *list = NULL;
    const char *ids[] = {"s9", "s8", "s7", "s6", "s5"}; /* newest last: first in lists */
    unsigned i;

    CHECK_OK(store_scenario_put(st, "a", "{\"caches\":[]}", 13, true, &a));
    CHECK_OK(store_scenario_put(st, "a again", "{\"caches\":[]}", 13, false, &a2));
    CHECK_EQ_I(a, a2); /* one row per text */
    CHECK_OK(store_scenario_put(st, "c", "{\"caches\":[1]}xyz", 14, false, &c));
    CHECK(c != a);

    ss = session_of("s1", a, b, 2);
    snprintf(ss.engine, sizeof(ss.engine), "engine-1");
    CHECK_OK(store_session_create(st, &ss));
    ss = session_of("s1", c, b, 1);
    CHECK_EQ_I(store_session_create(st, &ss), -EEXIST); /* nothing of it is kept */
    CHECK_OK(store_session_batches(st, "s1", &nr));
    CHECK_EQ_U(nr, 2);
    CHECK_OK(store_session_load(st, "s1", &got));
    CHECK_EQ_STR(got.token, "tok-s1");
    CHECK_EQ_STR(got.scenario_text, "{\"caches\":[]}");
    CHECK_EQ_STR(got.parent, "");
    CHECK_EQ_STR(got.engine, "engine-1");
    if (CHECK_EQ_U(got.nr_batches, 2)) {
        CHECK(got.batches[0].ops == NULL);
        CHECK_EQ_U(got.batches[0].limit, UINT64_MAX);
        CHECK_EQ_STR(got.batches[1].ops, "[{\"op\":\"alloc\"}]");
        CHECK_EQ_U(got.batches[1].limit, 3);
    }
    say(t, "session: %s %s %s %s %" PRIu64 " %zu\n", got.token, got.scenario_name, got.settings,
        got.engine, got.position, got.nr_batches);
    store_session_free(&got);
    CHECK_EQ_I(store_session_load(st, "nope", &got), -ENOENT);
    CHECK_OK(store_session_batches(st, "nope", &nr));
    CHECK_EQ_U(nr, 0);

    /* a batch and its event count go together, or neither does */
    CHECK_OK(store_session_add_batch(st, "s1", 2, &b[1], 40));
    CHECK_EQ_I(store_session_add_batch(st, "s1", 2, &b[1], 99), -EEXIST);
    CHECK_OK(store_session_set_position(st, "s1", 17));
    CHECK_OK(store_session_where(st, "s1", &pos, &ev));
    CHECK_EQ_U(pos, 17);
    CHECK_EQ_U(ev, 40);
    CHECK_EQ_I(store_session_where(st, "nope", &pos, &ev), -ENOENT);

    /* the overview: bytes with NULs, then none at all */
    CHECK_EQ_I(store_session_overview(st, "s1", &ov, &len), -ENOENT);
    CHECK_OK(store_session_set_overview(st, "s1", "a\0b\0\xff", 5));
    if (CHECK_OK(store_session_overview(st, "s1", &ov, &len)) && CHECK_EQ_U(len, 5))
        CHECK(!memcmp(ov, "a\0b\0\xff", 5));
    free(ov);
    CHECK_OK(store_session_set_overview(st, "s1", "", 0));
    CHECK_OK(store_session_overview(st, "s1", &ov, &len));
    CHECK_EQ_U(len, 0);
    free(ov);
    CHECK_OK(store_session_set_overview(st, "nope", "x", 1)); /* a gone session is no error */

    /* a page of the list and the total, newest first */
    for (i = 0; i < 5; i++) {
        ss = session_of(ids[i], c, NULL, 0);
        snprintf(ss.parent, sizeof(ss.parent), "s1");
        ss.position = i;
        ss.events = 10 * i;
        CHECK_OK(store_session_create(st, &ss));
    }
    /* created a day apart each, by id (the clock's own may tie) */
    CHECK_OK(db_exec(db, "UPDATE sessions SET created = '2100-01-0' || substr(id, 2, 1)"));
    CHECK_OK(store_session_list(st, 2, 1, &list));
    CHECK_EQ_I(json_count(list, "sessions"), 2);
    CHECK_EQ_I(json_count(list, "total"), 6);
    say_json(t, "sessions 2 from 1", list);
    CHECK_OK(store_session_list(st, 10, 6, &list));
    CHECK_EQ_I(json_count(list, "sessions"), 0);
    CHECK_EQ_I(json_count(list, "total"), 6);
    say_json(t, "sessions past the end", list);

    /* what has not changed for a day, oldest first */
    CHECK_OK(db_exec(db, "UPDATE sessions SET updated = '2000-01-02T00:00:00.000Z'"
                         " WHERE id IN ('s6', 's7')"));
    CHECK_OK(db_exec(db, "UPDATE sessions SET updated = '2000-01-01T00:00:00.000Z'"
                         " WHERE id = 's8'"));
    CHECK_OK(store_sessions_older(st, 1, older, 4, &n));
    CHECK_EQ_U(n, 3);
    CHECK_EQ_STR(older[0], "s8");
    CHECK_OK(store_sessions_older(st, 1, older, 1, &n));
    CHECK_EQ_U(n, 1);
    say(t, "older: %zu %s\n", n, older[0]);
    for (i = 0; i < 5; i++)
        CHECK_OK(store_session_delete(st, ids[i]));
    CHECK_EQ_I(store_session_delete(st, "s9"), -ENOENT);
}

static void oplogs(struct store *st, struct strbuf *t)
{
    struct store_batch b[] = {{NULL, UINT64_MAX}};
    struct store_session ss = session_of("s2", 1, b, 1);
    uint64_t chunks, ops, events;
    uint8_t *data = NULL;
    size_t len = 0, last;

    CHECK_OK(store_oplog_info(st, "log1", &chunks, &ops, &events, &last));
    CHECK_EQ_U(chunks, 0);
    CHECK_OK(store_oplog_put(st, "log1", 0, (const uint8_t *)"\0\1\2\0", 4, 3, 5));
    CHECK_OK(store_oplog_put(st, "log1", 1, (const uint8_t *)"", 0, 0, 0));
    CHECK_OK(store_oplog_put(st, "log1", 2, (const uint8_t *)"xyz", 3, 1, 1));
    CHECK_OK(store_oplog_put(st, "log1", 2, (const uint8_t *)"\0yz\0!", 5, 2, 7)); /* replaced */
    CHECK_OK(store_oplog_info(st, "log1", &chunks, &ops, &events, &last));
    CHECK_EQ_U(chunks, 3);
    CHECK_EQ_U(ops, 5);
    CHECK_EQ_U(events, 12);
    CHECK_EQ_U(last, 5);
    say(t, "oplog: %" PRIu64 " %" PRIu64 " %" PRIu64 " %zu\n", chunks, ops, events, last);
    if (CHECK_OK(store_oplog_get(st, "log1", 0, &data, &len)) && CHECK_EQ_U(len, 4))
        CHECK(!memcmp(data, "\0\1\2\0", 4));
    free(data);
    if (CHECK_OK(store_oplog_get(st, "log1", 1, &data, &len)))
        CHECK_EQ_U(len, 0);
    free(data);
    CHECK_EQ_I(store_oplog_get(st, "log1", 9, &data, &len), -ENOENT);
    CHECK(data == NULL);

    /* the log goes with the last session replaying it */
    snprintf(ss.log, sizeof(ss.log), "log1");
    CHECK_OK(store_session_create(st, &ss));
    CHECK_OK(store_oplog_delete(st, "log1"));
    CHECK_OK(store_oplog_info(st, "log1", &chunks, &ops, &events, &last));
    CHECK_EQ_U(chunks, 3);
    CHECK_OK(store_session_delete(st, "s2"));
    CHECK_OK(store_oplog_info(st, "log1", &chunks, &ops, &events, &last));
    CHECK_EQ_U(chunks, 0);
}

static int ckpt_seen(void *arg, uint64_t seq, uint64_t op, uint64_t off, bool has_extra)
{
    say(arg, "ckpt %" PRIu64 " %" PRIu64 " %" PRIu64 " %d\n", seq, op, off, has_extra);
    return 0;
}

static int ckpt_stop(void *arg, uint64_t seq, uint64_t op, uint64_t off, bool has_extra)
{
    (void)arg;
    (void)op;
    (void)off;
    (void)has_extra;
    return seq == 20 ? 42 : 0;
}

static void checkpoints(struct store *st, struct strbuf *t)
{
    const char *owner = "0123456789abcdef0123456789abcdef";
    struct store_ckpt_page p[] = {{{1}, "page\0one", 8}, {{2}, "", 0}, {{1}, "other", 5}};
    struct store_ckpt c = {.seq = 10,
                           .op = 4,
                           .off = 100,
                           .meta = meta,
                           .meta_len = 2,
                           .pages = pages_list,
                           .pages_len = 2};
    struct store_session ss = session_of("s3", 1, NULL, 0);
    uint64_t images, pages;
    uint8_t *data = NULL;
    size_t len = 0;
    struct store_ckpt got;

    CHECK_OK(store_ckpt_pages_put(st, owner, p, 3)); /* hash 1 keeps its first bytes */
    CHECK_OK(store_ckpt_put(st, owner, "tag", &c));
    c.seq = 20;
    c.extra = extra;
    c.extra_len = 2;
    CHECK_OK(store_ckpt_put(st, owner, "tag", &c));
    c.meta_len = 0;
    CHECK_OK(store_ckpt_put(st, owner, "other", &c));
    CHECK_OK(store_ckpt_list(st, owner, "tag", ckpt_seen, t));
    CHECK_EQ_I(store_ckpt_list(st, owner, "tag", ckpt_stop, NULL), 42);
    CHECK_OK(store_ckpt_count(st, owner, &images, &pages));
    CHECK_EQ_U(images, 3);
    CHECK_EQ_U(pages, 2);
    if (CHECK_OK(store_ckpt_page_get(st, owner, p[0].hash, &data, &len)) && CHECK_EQ_U(len, 8))
        CHECK(!memcmp(data, "page\0one", 8));
    free(data);
    if (CHECK_OK(store_ckpt_page_get(st, owner, p[1].hash, &data, &len)))
        CHECK_EQ_U(len, 0);
    free(data);
    CHECK_EQ_I(store_ckpt_page_get(st, owner, (const uint8_t *)"nohashnohashnoha", &data, &len),
               -ENOENT);
    if (CHECK_OK(store_ckpt_get(st, owner, "tag", 10, &got))) {
        CHECK(got.extra == NULL && got.meta_len == 2 && !memcmp(got.meta, "m\0", 2));
        store_ckpt_free(&got);
    }
    if (CHECK_OK(store_ckpt_get(st, owner, "tag", 20, &got))) {
        CHECK(got.extra_len == 2 && !memcmp(got.extra, "\0x", 2));
        say(t, "ckpt get: %" PRIu64 " %" PRIu64 " %zu %zu\n", got.op, got.off, got.meta_len,
            got.extra_len);
        store_ckpt_free(&got);
    }
    if (CHECK_OK(store_ckpt_get(st, owner, "other", 20, &got))) {
        CHECK_EQ_U(got.meta_len, 0);
        CHECK(got.meta != NULL);
        store_ckpt_free(&got);
    }
    CHECK_EQ_I(store_ckpt_get(st, owner, "tag", 11, &got), -ENOENT);
    /* reads in one read transaction answer as they do alone, and the store
     * takes queries (and transactions) after it */
    if (CHECK_OK(store_read_begin(st))) {
        if (CHECK_OK(store_ckpt_get(st, owner, "tag", 10, &got))) {
            CHECK(got.meta_len == 2 && !memcmp(got.meta, "m\0", 2));
            store_ckpt_free(&got);
        }
        if (CHECK_OK(store_ckpt_page_get(st, owner, p[0].hash, &data, &len)) && CHECK_EQ_U(len, 8))
            CHECK(!memcmp(data, "page\0one", 8));
        free(data);
        CHECK_EQ_I(store_ckpt_page_get(st, owner, (const uint8_t *)"nohashnohashnoha", &data, &len),
                   -ENOENT);
        CHECK_OK(store_read_end(st));
    }
    CHECK_OK(store_ckpt_pages_put(st, owner, &p[1], 1));

    /* the images stay while a session names their owner */
    CHECK_EQ_I(store_session_set_ckpts(st, "s3", owner), -ENOENT);
    CHECK_OK(store_session_create(st, &ss));
    CHECK_OK(store_session_set_ckpts(st, "s3", owner));
    CHECK_OK(store_ckpt_delete(st, owner));
    CHECK_OK(store_ckpt_count(st, owner, &images, &pages));
    CHECK_EQ_U(images + pages, 5);
    CHECK_OK(store_session_delete(st, "s3"));
    CHECK_OK(store_ckpt_count(st, owner, &images, &pages));
    CHECK_EQ_U(images + pages, 0);
}

static struct store_snapshot snapshot_of(const char *id, int64_t scenario)
{
    struct store_snapshot sn;

    memset(&sn, 0, sizeof(sn));
    snprintf(sn.id, sizeof(sn.id), "%s", id);
    snprintf(sn.token, sizeof(sn.token), "tok-%s", id);
    sn.title = title;
    sn.scenario = scenario;
    sn.settings = settings;
    sn.batches = batches;
    sn.position = 3;
    sn.engine = engine;
    sn.state = state;
    return sn;
}

static void snapshots(struct store *st, const char *db, struct strbuf *t)
{
    const char *ids[] = {"n9", "n8", "n7", "n6"};
    struct store_snapshot sn, got;
    cJSON *list = NULL, *tokens = cJSON_CreateObject();
    uint64_t deleted = 0;
    int64_t scn = 0;
    unsigned i;

    CHECK_OK(store_scenario_put(st, "a", "{\"caches\":[]}", 13, true, &scn));
    for (i = 0; i < 4; i++) {
        sn = snapshot_of(ids[i], scn);
        if (i == 1)
            snprintf(sn.session, sizeof(sn.session), "s1");
        CHECK_OK(store_snapshot_create(st, &sn));
    }
    CHECK_EQ_I(store_snapshot_create(st, &sn), -EEXIST);
    CHECK_OK(db_exec(db, "UPDATE snapshots SET created = '2100-01-0' || substr(id, 2, 1)"));
    if (CHECK_OK(store_snapshot_load(st, "n8", &got))) {
        CHECK_EQ_STR(got.session, "s1");
        CHECK(got.check_engine == NULL && !got.published);
        store_snapshot_free(&got);
    }
    CHECK_EQ_I(store_snapshot_load(st, "nope", &got), -ENOENT);
    CHECK_OK(store_snapshot_set_check(st, "n8", "engine-2", "verified", NULL));
    CHECK_OK(store_snapshot_set_check(st, "n7", "engine-2", "stored", "a warning"));
    CHECK_EQ_I(store_snapshot_set_check(st, "nope", "e", "stored", NULL), -ENOENT);
    if (CHECK_OK(store_snapshot_load(st, "n7", &got))) {
        CHECK_EQ_STR(got.check_warning, "a warning");
        say(t, "snapshot: %s %s %s %s %s %" PRIu64 " %s %s %s\n", got.token, got.title,
            got.scenario_name, got.batches, got.state, got.position, got.check_engine,
            got.check_status, got.check_warning);
        store_snapshot_free(&got);
    }
    if (CHECK_OK(store_snapshot_load(st, "n8", &got))) {
        CHECK(got.check_warning == NULL);
        store_snapshot_free(&got);
    }

    CHECK_OK(store_snapshot_set_published(st, "n9", true));
    CHECK_OK(store_snapshot_set_published(st, "n7", true));
    CHECK_OK(store_snapshot_set_published(st, "n6", true));
    CHECK_OK(store_snapshot_set_published(st, "n6", false));
    CHECK_EQ_I(store_snapshot_set_published(st, "nope", true), -ENOENT);
    CHECK_OK(store_snapshot_list(st, 1, 1, &list));
    CHECK_EQ_I(json_count(list, "total"), 2);
    say_json(t, "published 1 from 1", list);

    /* the published ones and those whose token is held, but a wrong token lists nothing */
    cJSON_AddStringToObject(tokens, "n8", "tok-n8");
    cJSON_AddStringToObject(tokens, "n6", "wrong");
    cJSON_AddStringToObject(tokens, "n7", "tok-n7");
    CHECK_OK(store_snapshot_list_for(st, tokens, 10, 0, &list));
    CHECK_EQ_I(json_count(list, "total"), 3);
    say_json(t, "for tokens", list);
    CHECK_OK(store_snapshot_list_for(st, tokens, 1, 2, &list));
    CHECK_EQ_I(json_count(list, "snapshots"), 1);
    say_json(t, "for tokens 1 from 2", list);
    cJSON_Delete(tokens);
    CHECK_OK(store_snapshot_list_for(st, NULL, 10, 0, &list));
    say_json(t, "for nobody", list);

    CHECK_OK(store_snapshot_delete(st, "n6"));
    CHECK_EQ_I(store_snapshot_delete(st, "n6"), -ENOENT);
    CHECK_OK(db_exec(db, "UPDATE snapshots SET created = '2000-01-01T00:00:00.000Z'"
                         " WHERE id = 'n9'"));
    CHECK_OK(store_snapshots_expire(st, 1, &deleted));
    CHECK_EQ_U(deleted, 1);
    CHECK_EQ_I(store_snapshot_load(st, "n9", &got), -ENOENT);
}

static int lecture_seen(const struct store_lecture *lc, void *arg)
{
    say(arg, "lecture %s %s %s %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", lc->id, lc->token,
        lc->session, lc->position, lc->events, lc->ops);
    return strcmp(lc->id, "l2") ? 0 : 7;
}

static void lectures(struct store *st, const char *db, struct strbuf *t)
{
    struct store_lecture lc = {"l1", "tok-l1", "", 1, 2, 3}, got;

    CHECK_OK(store_lecture_create(st, &lc));
    CHECK_EQ_I(store_lecture_create(st, &lc), -EEXIST);
    snprintf(lc.id, sizeof(lc.id), "l2");
    CHECK_OK(store_lecture_create(st, &lc));
    snprintf(lc.id, sizeof(lc.id), "l3");
    CHECK_OK(store_lecture_create(st, &lc));
    CHECK_OK(db_exec(db, "UPDATE lectures SET updated = '2000-01-0' || substr(id, 2, 1)"));
    /* l1 follows session s1: its stored position and end are the session's */
    snprintf(lc.id, sizeof(lc.id), "l1");
    snprintf(lc.session, sizeof(lc.session), "s1");
    lc.position = 5;
    CHECK_OK(store_lecture_set(st, &lc));
    snprintf(lc.id, sizeof(lc.id), "nope");
    CHECK_EQ_I(store_lecture_set(st, &lc), -ENOENT);
    if (CHECK_OK(store_lecture_load(st, "l1", &got))) {
        CHECK_EQ_STR(got.session, "s1");
        CHECK_EQ_U(got.position, 17);
        CHECK_EQ_U(got.events, 40);
        CHECK_EQ_U(got.ops, 3);
    }
    CHECK_EQ_I(store_lecture_load(st, "nope", &got), -ENOENT);
    CHECK_EQ_I(store_lectures_load(st, 10, lecture_seen, t), 7); /* l1, l3, l2: stops at l2 */
    CHECK_OK(store_lectures_load(st, 1, lecture_seen, t));
    CHECK_OK(store_lecture_delete(st, "l3"));
    CHECK_EQ_I(store_lecture_delete(st, "l3"), -ENOENT);
}

static int tally_seen(const char *choice, uint64_t n, void *arg)
{
    say(arg, "tally %s %" PRIu64 "\n", choice, n);
    return 0;
}

static void jobs_and_answers(struct store *st, const char *db, struct strbuf *t)
{
    struct store_trace_job j, got;
    uint64_t failed = 0, deleted = 0;
    bool cancel = true;

    memset(&j, 0, sizeof(j));
    snprintf(j.id, sizeof(j.id), "j1");
    snprintf(j.state, sizeof(j.state), "replaying");
    j.bytes = 1000;
    j.report = report;
    CHECK_OK(store_trace_job_put(st, &j, &cancel));
    CHECK(!cancel);
    CHECK_OK(store_trace_job_cancel(st, "j1"));
    CHECK_EQ_I(store_trace_job_cancel(st, "nope"), -ENOENT);
    j.done = 500;
    CHECK_OK(store_trace_job_put(st, &j, &cancel)); /* a put keeps the flag */
    CHECK(cancel);
    if (CHECK_OK(store_trace_job_load(st, "j1", &got))) {
        CHECK(got.cancel);
        CHECK_EQ_U(got.done, 500);
        say(t, "job: %s %" PRIu64 " %" PRIu64 " %s %d\n", got.state, got.bytes, got.done,
            got.report, got.cancel);
        store_trace_job_free(&got);
    }
    CHECK_EQ_I(store_trace_job_load(st, "nope", &got), -ENOENT);
    CHECK_OK(store_trace_job_delete(st, "j1"));
    CHECK_EQ_I(store_trace_job_delete(st, "j1"), -ENOENT);

    /* a stale running job fails; an old finished one goes */
    snprintf(j.id, sizeof(j.id), "j2");
    j.report = NULL;
    CHECK_OK(store_trace_job_put(st, &j, NULL));
    snprintf(j.id, sizeof(j.id), "j3");
    snprintf(j.state, sizeof(j.state), "done");
    CHECK_OK(store_trace_job_put(st, &j, NULL));
    CHECK_OK(db_exec(db, "UPDATE trace_jobs SET updated = '2000-01-01T00:00:00.000Z'"));
    CHECK_OK(store_trace_jobs_expire(st, 1, 60, "gone", &failed, &deleted));
    CHECK_EQ_U(failed, 1);
    CHECK_EQ_U(deleted, 1);
    if (CHECK_OK(store_trace_job_load(st, "j2", &got))) {
        CHECK_EQ_STR(got.state, "failed");
        CHECK_EQ_STR(got.message, "gone");
        CHECK(got.report == NULL);
        store_trace_job_free(&got);
    }

    /* one answer per voter, counted by choice in byte order */
    CHECK_OK(store_answer_put(st, "l1", 4, "v1", "b"));
    CHECK_OK(store_answer_put(st, "l1", 4, "v1", "a"));
    CHECK_OK(store_answer_put(st, "l1", 4, "v2", "a"));
    CHECK_OK(store_answer_put(st, "l1", 4, "v3", "B"));
    CHECK_OK(store_answer_put(st, "l1", 5, "v3", "c"));
    CHECK_OK(store_answers_tally(st, "l1", 4, tally_seen, t));
    CHECK_OK(db_exec(db, "UPDATE answers SET updated = '2000-01-01T00:00:00.000Z' WHERE at = 5"));
    CHECK_OK(store_answers_expire(st, 60, &deleted));
    CHECK_EQ_U(deleted, 1);
    CHECK_OK(store_answers_tally(st, "l1", 5, tally_seen, t));
}

struct heard {
    char text[STORE_MESSAGE_MAX + 1];
    int n;
};

static void hear(const char *text, void *arg)
{
    struct heard *h = arg;

    if (text) {
        snprintf(h->text, sizeof(h->text), "%s", text);
        h->n++;
    }
}

static void messages(struct store *st, const char *db)
{
    char big[STORE_MESSAGE_MAX + 2];
    struct heard h = {"", 0}, mine = {"", 0};
    struct strbuf err = STRBUF_INIT;
    struct store *other = NULL;
    int i;

    CHECK(store_available(st));
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    if (!store_shared(st)) { /* one server: nothing to say, nobody to hear */
        CHECK_OK(store_listen(st, hear, &h));
        CHECK_OK(store_notify(st, "hello"));
        CHECK_OK(store_notify(st, big));
        store_unlisten(st);
        CHECK_EQ_I(h.n, 0);
        return;
    }
    CHECK_OK(store_open(db, &other, &err));
    strbuf_release(&err);
    if (!other)
        return;
    CHECK_OK(store_listen(st, hear, &h));
    CHECK_OK(store_listen(other, hear, &mine));
    CHECK_EQ_I(store_notify(other, big), -E2BIG);
    CHECK_OK(store_notify(other, "hello there"));
    for (i = 0; i < 500 && !h.n; i++)
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    CHECK_EQ_I(h.n, 1);
    CHECK_EQ_STR(h.text, "hello there");
    CHECK_EQ_I(mine.n, 0); /* a server never hears its own */
    store_unlisten(st);
    store_close(other);
}

/* Every operation on store @db; what it saw into @t, the bytes of it that
 * the in-memory store also sees in *@kept. */
static void conformance(const char *db, struct strbuf *t, size_t *kept)
{
    struct strbuf err = STRBUF_INIT;
    struct store *st = NULL;
    bool mem = !strcmp(db, STORE_MEM_DB);

    if (!CHECK_OK(store_open(db, &st, &err))) {
        fprintf(stderr, "%s: %s\n", db, strbuf_str(&err));
        strbuf_release(&err);
        return;
    }
    strbuf_release(&err);
    mem_store = mem ? st : NULL;
    sessions_and_scenarios(st, db, t);
    oplogs(st, t);
    checkpoints(st, t);
    snapshots(st, db, t);
    *kept = strlen(strbuf_str(t));
    if (mem) {
        store_close(st);
        return;
    }
    lectures(st, db, t);
    jobs_and_answers(st, db, t);
    messages(st, db);
    store_close(st);
}

static struct strbuf sqlite_saw = STRBUF_INIT, pg_saw = STRBUF_INIT;
static size_t sqlite_kept; /* the bytes of sqlite_saw the in-memory store sees too */

static void test_sqlite(void)
{
    char dir[] = "/tmp/slublab-store-XXXXXX", path[64], sql[96];

    if (!CHECK(mkdtemp(dir)))
        return;
    snprintf(path, sizeof(path), "%s/store.db", dir);
    conformance(path, &sqlite_saw, &sqlite_kept);
    snprintf(sql, sizeof(sql), "rm -rf '%s'", dir);
    CHECK_OK(system(sql));
}

static void test_postgresql(void)
{
    const char *pg = getenv("SLUBLAB_TEST_PG");
    char name[32], sql[64], url[512];
    size_t base, kept;

    if (!pg || !*pg) {
        printf("SLUBLAB_TEST_PG is not set: the PostgreSQL back end is not tried\n");
        return;
    }
    /* a database of its own, beside the URL's "postgres" */
    snprintf(name, sizeof(name), "t_store_%d", (int)getpid());
    snprintf(sql, sizeof(sql), "CREATE DATABASE %s", name);
    if (!CHECK_OK(db_exec(pg, sql)))
        return;
    base = strlen(pg) - (strlen(pg) >= 9 && !strcmp(pg + strlen(pg) - 9, "/postgres") ? 9 : 0);
    snprintf(url, sizeof(url), "%.*s/%s", (int)base, pg, name);
    conformance(url, &pg_saw, &kept);
    snprintf(sql, sizeof(sql), "DROP DATABASE %s", name);
    CHECK_OK(db_exec(pg, sql));
    /* the two back ends saw the same */
    CHECK(strlen(strbuf_str(&sqlite_saw)) > 1000);
    CHECK_EQ_STR(strbuf_str(&pg_saw), strbuf_str(&sqlite_saw));
}

/* The in-memory store saw what SQLite saw, in the parts it keeps. */
static void test_memory(void)
{
    struct strbuf mem_saw = STRBUF_INIT;
    char *sqlite_part = strndup(strbuf_str(&sqlite_saw), sqlite_kept);
    size_t kept = 0;

    conformance(STORE_MEM_DB, &mem_saw, &kept);
    CHECK(sqlite_kept > 500);
    CHECK_EQ_STR(strbuf_str(&mem_saw), sqlite_part);
    free(sqlite_part);
    strbuf_release(&mem_saw);
}

int main(void)
{
    RUN_TEST(test_sqlite);
    RUN_TEST(test_memory);
    RUN_TEST(test_postgresql);
    strbuf_release(&sqlite_saw);
    strbuf_release(&pg_saw);
    return check_done();
}
