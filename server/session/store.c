/*
 * store.c: the SQLite store (see store.h), and the door to the PostgreSQL
 * one: a store opened on a postgresql:// URL hands every call to
 * store_pg.c.
 *
 * Migrations are SQL scripts, migration[i] taking user_version i to i + 1,
 * each in its own transaction with the version bump; they are the only SQL
 * not run as a prepared statement with bound parameters (they take none).
 * Scenario texts are stored once, found by an FNV-1a hash of the text plus
 * the text itself, so sessions and snapshots of the same scenario share a
 * row.  Times are SQLite's own clock, ISO 8601 UTC with milliseconds.
 */
#include "session/store.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "base/ids.h"
#include "base/json.h"
#include "session/store_internal.h"
#include "session/store_pg.h"

#define NOW STORE_SQLITE_NOW

static const char *const migrations[STORE_SCHEMA_VERSION] = {
        /* 0 -> 1: the tables */
        "CREATE TABLE scenarios ("
        " id INTEGER PRIMARY KEY,"
        " name TEXT NOT NULL,"
        " hash TEXT NOT NULL,"
        " builtin INTEGER NOT NULL DEFAULT 0,"
        " text TEXT NOT NULL,"
        " created TEXT NOT NULL);"
        "CREATE INDEX scenarios_hash ON scenarios(hash);"
        "CREATE TABLE sessions ("
        " id TEXT PRIMARY KEY,"
        " token TEXT NOT NULL,"
        " scenario INTEGER NOT NULL REFERENCES scenarios(id),"
        " settings TEXT NOT NULL,"
        " parent TEXT,"
        " position INTEGER NOT NULL DEFAULT 0,"
        " events INTEGER NOT NULL DEFAULT 0,"
        " created TEXT NOT NULL,"
        " updated TEXT NOT NULL);"
        "CREATE TABLE batches ("
        " session TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
        " seq INTEGER NOT NULL,"
        " ops TEXT,"
        " op_limit INTEGER,"
        " PRIMARY KEY (session, seq));"
        "CREATE TABLE snapshots ("
        " id TEXT PRIMARY KEY,"
        " token TEXT NOT NULL,"
        " title TEXT NOT NULL DEFAULT '',"
        " scenario INTEGER NOT NULL REFERENCES scenarios(id),"
        " settings TEXT NOT NULL,"
        " batches TEXT NOT NULL,"
        " position INTEGER NOT NULL,"
        " engine TEXT NOT NULL,"
        " state TEXT NOT NULL,"
        " session TEXT,"
        " created TEXT NOT NULL);",
        /* 1 -> 2: listing newest first */
        "CREATE INDEX sessions_created ON sessions(created);"
        "CREATE INDEX snapshots_created ON snapshots(created);",
        /* 2 -> 3: a snapshot's replay is checked once per engine version */
        "ALTER TABLE snapshots ADD COLUMN check_engine TEXT;"
        "ALTER TABLE snapshots ADD COLUMN check_status TEXT;"
        "ALTER TABLE snapshots ADD COLUMN check_warning TEXT;",
        /* 3 -> 4: an author may publish a snapshot (the public list has those
         * only); the snapshots kept from before are unpublished */
        "ALTER TABLE snapshots ADD COLUMN published INTEGER NOT NULL DEFAULT 0;"
        "CREATE INDEX snapshots_published ON snapshots(published, created);",
        /* 4 -> 5: lectures outlive a restart */
        "CREATE TABLE lectures ("
        " id TEXT PRIMARY KEY,"
        " token TEXT NOT NULL,"
        " session TEXT NOT NULL DEFAULT '',"
        " position INTEGER NOT NULL DEFAULT 0,"
        " events INTEGER NOT NULL DEFAULT 0,"
        " ops INTEGER NOT NULL DEFAULT 0,"
        " created TEXT NOT NULL,"
        " updated TEXT NOT NULL);"
        "CREATE INDEX lectures_updated ON lectures(updated);",
        /* 5 -> 6: a session records the engine version that made it (NULL
         * for those made before) */
        "ALTER TABLE sessions ADD COLUMN engine TEXT;",
        /* 6 -> 7: a session's overview (session/overview.h), so a restarted
         * server answers it without replaying */
        "ALTER TABLE sessions ADD COLUMN overview BLOB;",
        /* 7 -> 8: a replayed trace's operations as a binary op log in chunks
         * (docs/oplog.md), which the session's batch 0 replays */
        "CREATE TABLE oplogs ("
        " log TEXT NOT NULL,"
        " seq INTEGER NOT NULL,"
        " ops INTEGER NOT NULL,"
        " events INTEGER NOT NULL,"
        " data BLOB NOT NULL,"
        " PRIMARY KEY (log, seq));"
        "ALTER TABLE sessions ADD COLUMN log TEXT;",
        /* 8 -> 9: trace replay jobs, readable from every server sharing the store */
        "CREATE TABLE trace_jobs ("
        " id TEXT PRIMARY KEY,"
        " state TEXT NOT NULL,"
        " bytes INTEGER NOT NULL DEFAULT 0,"
        " done INTEGER NOT NULL DEFAULT 0,"
        " total INTEGER NOT NULL DEFAULT 0,"
        " events INTEGER NOT NULL DEFAULT 0,"
        " built INTEGER NOT NULL DEFAULT 0,"
        " recorded INTEGER NOT NULL DEFAULT 0,"
        " session TEXT NOT NULL DEFAULT '',"
        " token TEXT NOT NULL DEFAULT '',"
        " code TEXT NOT NULL DEFAULT '',"
        " message TEXT NOT NULL DEFAULT '',"
        " report TEXT,"
        " created TEXT NOT NULL,"
        " updated TEXT NOT NULL);"
        "CREATE INDEX trace_jobs_updated ON trace_jobs(updated);",
        /* 9 -> 10: the checkpoint disk tier (docs/api.md, "Sessions, checkpoints
         * and limits"): machine images by owner (what a run's batch 0 is),
         * image tag and position, their pages stored once per owner by hash;
         * a session names the owner it uses, so the last one deletes them */
        "CREATE TABLE ckpts ("
        " owner TEXT NOT NULL,"
        " tag TEXT NOT NULL,"
        " seq INTEGER NOT NULL,"
        " op INTEGER NOT NULL,"
        " off INTEGER NOT NULL,"
        " meta BLOB NOT NULL,"
        " pages BLOB NOT NULL,"
        " extra BLOB,"
        " PRIMARY KEY (owner, tag, seq));"
        "CREATE TABLE ckpt_pages ("
        " owner TEXT NOT NULL,"
        " hash BLOB NOT NULL,"
        " data BLOB NOT NULL,"
        " PRIMARY KEY (owner, hash));"
        "ALTER TABLE sessions ADD COLUMN ckpts TEXT;",
        /* 10 -> 11: any server may delete a trace job: the hash of its
         * upload's token, and the flag that asks the server running it to
         * stop; and followers' answers, tallied over every server */
        "ALTER TABLE trace_jobs ADD COLUMN owner TEXT NOT NULL DEFAULT '';"
        "ALTER TABLE trace_jobs ADD COLUMN cancel INTEGER NOT NULL DEFAULT 0;"
        "CREATE TABLE answers ("
        " lecture TEXT NOT NULL,"
        " at INTEGER NOT NULL,"
        " voter TEXT NOT NULL,"
        " choice TEXT NOT NULL,"
        " updated TEXT NOT NULL,"
        " PRIMARY KEY (lecture, at, voter));"
        "CREATE INDEX answers_updated ON answers(updated);",
};

/* The statements, in SQLite's words (store_pg.c turns most into PostgreSQL's). */
const char *const store_sql[NR_STMTS] = {
        [ST_BEGIN] = "BEGIN IMMEDIATE",
        [ST_COMMIT] = "COMMIT",
        [ST_ROLLBACK] = "ROLLBACK",
        [ST_SCN_FIND] = "SELECT id FROM scenarios WHERE hash = ?1 AND text = ?2",
        [ST_SCN_INSERT] = "INSERT INTO scenarios (name, hash, builtin, text, created)"
                          " VALUES (?1, ?2, ?3, ?4, " NOW ")",
        [ST_SES_INSERT] = "INSERT INTO sessions (id, token, scenario, settings, parent, position,"
                          " events, engine, log, created, updated)"
                          " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, " NOW ", " NOW ")",
        [ST_BAT_INSERT] =
                "INSERT INTO batches (session, seq, ops, op_limit) VALUES (?1, ?2, ?3, ?4)",
        [ST_SES_EVENTS] = "UPDATE sessions SET events = ?2, updated = " NOW " WHERE id = ?1",
        [ST_SES_POS] = "UPDATE sessions SET position = ?2 WHERE id = ?1",
        [ST_SES_GET] = "SELECT s.token, s.scenario, s.settings, s.parent, s.position, s.events,"
                       " s.created, c.name, c.text, s.engine, s.log"
                       " FROM sessions s JOIN scenarios c ON c.id = s.scenario WHERE s.id = ?1",
        [ST_BAT_GET] = "SELECT ops, op_limit FROM batches WHERE session = ?1 ORDER BY seq",
        [ST_SES_DEL] = "DELETE FROM sessions WHERE id = ?1",
        [ST_SES_LIST] = "SELECT s.id, c.name, s.parent, s.position, s.events, s.created"
                        " FROM sessions s JOIN scenarios c ON c.id = s.scenario"
                        " ORDER BY s.created DESC, s.id LIMIT ?1 OFFSET ?2",
        [ST_SES_COUNT] = "SELECT count(*) FROM sessions",
        [ST_SNP_INSERT] = "INSERT INTO snapshots (id, token, title, scenario, settings, batches,"
                          " position, engine, state, session, created)"
                          " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, " NOW ")",
        [ST_SNP_GET] = "SELECT n.token, n.title, n.scenario, n.settings, n.batches, n.position,"
                       " n.engine, n.state, n.session, n.created, c.name, c.text,"
                       " n.check_engine, n.check_status, n.check_warning, n.published"
                       " FROM snapshots n JOIN scenarios c ON c.id = n.scenario WHERE n.id = ?1",
        [ST_SNP_DEL] = "DELETE FROM snapshots WHERE id = ?1",
        [ST_SNP_LIST] = "SELECT n.id, n.title, c.name, n.session, n.position, n.engine, n.created"
                        " FROM snapshots n JOIN scenarios c ON c.id = n.scenario"
                        " WHERE n.published = 1"
                        " ORDER BY n.created DESC, n.id LIMIT ?1 OFFSET ?2",
        [ST_SNP_COUNT] = "SELECT count(*) FROM snapshots WHERE published = 1",
        [ST_SNP_PUBLISH] = "UPDATE snapshots SET published = ?2 WHERE id = ?1",
        /* ?1: a JSON array of ids; the caller checks the tokens of the unpublished */
        [ST_SNP_LIST_FOR] = "SELECT n.id, n.title, c.name, n.session, n.position, n.engine,"
                            " n.created, n.published, n.token"
                            " FROM snapshots n JOIN scenarios c ON c.id = n.scenario"
                            " WHERE n.published = 1 OR n.id IN (SELECT value FROM json_each(?1))"
                            " ORDER BY n.created DESC, n.id",
        [ST_LEC_INSERT] = "INSERT INTO lectures (id, token, session, position, events, ops,"
                          " created, updated) VALUES (?1, ?2, ?3, ?4, ?5, ?6, " NOW ", " NOW ")",
        [ST_LEC_SET] = "UPDATE lectures SET session = ?2, position = ?3, events = ?4, ops = ?5,"
                       " updated = " NOW " WHERE id = ?1",
        [ST_LEC_DEL] = "DELETE FROM lectures WHERE id = ?1",
        /* the session's own position and end when it is stored: they move
         * without the lecture row being written */
        [ST_LEC_LIST] = "SELECT l.id, l.token, l.session, coalesce(s.position, l.position),"
                        " coalesce(s.events, l.events), l.ops"
                        " FROM lectures l LEFT JOIN sessions s ON s.id = l.session"
                        " ORDER BY l.updated DESC, l.id LIMIT ?1",
        [ST_SES_OLD] = "SELECT id FROM sessions WHERE updated < strftime('%Y-%m-%dT%H:%M:%fZ',"
                       " 'now', '-' || ?1 || ' days') ORDER BY updated LIMIT ?2",
        [ST_SNP_EXPIRE] = "DELETE FROM snapshots WHERE created < strftime('%Y-%m-%dT%H:%M:%fZ',"
                          " 'now', '-' || ?1 || ' days')",
        [ST_BAT_COUNT] = "SELECT count(*) FROM batches WHERE session = ?1",
        [ST_LEC_GET] = "SELECT l.id, l.token, l.session, coalesce(s.position, l.position),"
                       " coalesce(s.events, l.events), l.ops"
                       " FROM lectures l LEFT JOIN sessions s ON s.id = l.session WHERE l.id = ?1",
        [ST_JOB_PUT] = "INSERT INTO trace_jobs (id, state, bytes, done, total, events, built,"
                       " recorded, session, token, code, message, report, owner, created, updated)"
                       " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, " NOW
                       ", " NOW ") ON CONFLICT (id) DO UPDATE SET state = excluded.state,"
                       " bytes = excluded.bytes, done = excluded.done, total = excluded.total,"
                       " events = excluded.events, built = excluded.built,"
                       " recorded = excluded.recorded, session = excluded.session,"
                       " token = excluded.token, code = excluded.code,"
                       " message = excluded.message, report = excluded.report,"
                       " owner = excluded.owner, updated = excluded.updated RETURNING cancel",
        [ST_JOB_GET] = "SELECT state, bytes, done, total, events, built, recorded, session, token,"
                       " code, message, report, owner, cancel FROM trace_jobs WHERE id = ?1",
        [ST_JOB_DEL] = "DELETE FROM trace_jobs WHERE id = ?1",
        [ST_JOB_CANCEL] = "UPDATE trace_jobs SET cancel = 1, updated = " NOW " WHERE id = ?1",
        /* ?1: seconds without a write; ?2: the message */
        [ST_JOB_STALE] = "UPDATE trace_jobs SET state = 'failed', code = 'internal', message = ?2,"
                         " updated = " NOW " WHERE state IN ('replaying', 'building')"
                         " AND cancel = 0 AND updated < strftime('%Y-%m-%dT%H:%M:%fZ', 'now',"
                         " '-' || ?1 || ' seconds')",
        /* ?1: seconds for a cancelled row; ?2: for a finished one (0: kept) */
        [ST_JOB_EXPIRE] = "DELETE FROM trace_jobs WHERE (cancel = 1 AND updated <"
                          " strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || ?1 || ' seconds'))"
                          " OR (?2 > 0 AND state IN ('done', 'failed') AND updated <"
                          " strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || ?2 || ' seconds'))",
        [ST_ANS_PUT] = "INSERT INTO answers (lecture, at, voter, choice, updated)"
                       " VALUES (?1, ?2, ?3, ?4, " NOW ") ON CONFLICT (lecture, at, voter)"
                       " DO UPDATE SET choice = excluded.choice, updated = excluded.updated",
        [ST_ANS_TALLY] = "SELECT choice, count(*) FROM answers WHERE lecture = ?1 AND at = ?2"
                         " GROUP BY choice ORDER BY choice",
        [ST_ANS_EXPIRE] = "DELETE FROM answers WHERE updated < strftime('%Y-%m-%dT%H:%M:%fZ',"
                          " 'now', '-' || ?1 || ' seconds')",
        [ST_SES_WHERE] = "SELECT position, events FROM sessions WHERE id = ?1",
        [ST_SNP_CHECK] = ("UPDATE snapshots SET check_engine = ?2, check_status = ?3, "
                          "check_warning = ?4 WHERE id = ?1"),
        [ST_LOG_PUT] = "INSERT OR REPLACE INTO oplogs (log, seq, ops, events, data)"
                       " VALUES (?1, ?2, ?3, ?4, ?5)",
        [ST_LOG_GET] = "SELECT data FROM oplogs WHERE log = ?1 AND seq = ?2",
        [ST_LOG_INFO] = "SELECT count(*), coalesce(sum(ops), 0), coalesce(sum(events), 0)"
                        " FROM oplogs WHERE log = ?1",
        [ST_LOG_LAST] = "SELECT length(data) FROM oplogs WHERE log = ?1"
                        " ORDER BY seq DESC LIMIT 1",
        [ST_LOG_DEL] = "DELETE FROM oplogs WHERE log = ?1"
                       " AND NOT EXISTS (SELECT 1 FROM sessions WHERE log = ?1)",
        [ST_SES_OV_SET] = "UPDATE sessions SET overview = ?2 WHERE id = ?1",
        [ST_SES_OV_GET] = "SELECT overview FROM sessions WHERE id = ?1",
        [ST_CKP_PAGE_PUT] = "INSERT OR IGNORE INTO ckpt_pages (owner, hash, data)"
                            " VALUES (?1, ?2, ?3)",
        [ST_CKP_PUT] = "INSERT OR REPLACE INTO ckpts (owner, tag, seq, op, off, meta, pages, extra)"
                       " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        [ST_CKP_LIST] = "SELECT seq, op, off, extra IS NOT NULL FROM ckpts"
                        " WHERE owner = ?1 AND tag = ?2 ORDER BY seq",
        [ST_CKP_GET] = "SELECT op, off, meta, pages, extra FROM ckpts"
                       " WHERE owner = ?1 AND tag = ?2 AND seq = ?3",
        [ST_CKP_PAGE_GET] = "SELECT data FROM ckpt_pages WHERE owner = ?1 AND hash = ?2",
        [ST_CKP_DEL] = "DELETE FROM ckpts WHERE owner = ?1"
                       " AND NOT EXISTS (SELECT 1 FROM sessions WHERE ckpts = ?1)",
        [ST_CKP_PAGE_DEL] = "DELETE FROM ckpt_pages WHERE owner = ?1"
                            " AND NOT EXISTS (SELECT 1 FROM sessions WHERE ckpts = ?1)",
        [ST_SES_CKP_SET] = "UPDATE sessions SET ckpts = ?2 WHERE id = ?1",
        [ST_SES_CKP_GET] = "SELECT ckpts FROM sessions WHERE id = ?1",
        [ST_CKP_COUNT] = "SELECT (SELECT count(*) FROM ckpts WHERE owner = ?1),"
                         " (SELECT count(*) FROM ckpt_pages WHERE owner = ?1)",
};

struct store {
    struct store_pg *pg; /* set: every call goes to PostgreSQL (store_pg.c) */
    sqlite3 *db;
    pthread_mutex_t lock; /* one statement at a time on db */
    sqlite3_stmt *stmt[NR_STMTS];
};

/* Log SQLite's complaint and return -EIO (or -EEXIST for a taken key). */
static int store_fail(struct store *st, int rc, const char *what)
{
    if ((rc & 0xff) == SQLITE_CONSTRAINT)
        return -EEXIST;
    if (rc == SQLITE_NOMEM)
        return -ENOMEM;
    fprintf(stderr, "slublab serve: sqlite: %s: %s\n", what, sqlite3_errmsg(st->db));
    return -EIO;
}

static sqlite3_stmt *store_stmt(struct store *st, enum stmt which)
{
    sqlite3_stmt *s = st->stmt[which];

    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return s;
}

/* Run a statement that returns no rows. */
static int store_exec(struct store *st, sqlite3_stmt *s, const char *what)
{
    int rc = sqlite3_step(s);

    sqlite3_reset(s);
    if (rc != SQLITE_DONE)
        return store_fail(st, rc, what);
    return 0;
}

static int bind_text(sqlite3_stmt *s, int i, const char *text)
{
    return text ? sqlite3_bind_text(s, i, text, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(s, i);
}

static int bind_u64(sqlite3_stmt *s, int i, uint64_t v)
{
    return sqlite3_bind_int64(s, i, (sqlite3_int64)v);
}

static char *col_dup(sqlite3_stmt *s, int i)
{
    const unsigned char *t = sqlite3_column_text(s, i);
    int len = sqlite3_column_bytes(s, i);
    char *p;

    if (!t)
        return NULL;
    p = malloc((size_t)len + 1);
    if (p) {
        memcpy(p, t, (size_t)len);
        p[len] = '\0';
    }
    return p;
}

static void col_copy(sqlite3_stmt *s, int i, char *buf, size_t size)
{
    const unsigned char *t = sqlite3_column_text(s, i);

    snprintf(buf, size, "%s", t ? (const char *)t : "");
}

static uint64_t col_u64(sqlite3_stmt *s, int i)
{
    sqlite3_int64 v = sqlite3_column_int64(s, i);

    return v < 0 ? 0 : (uint64_t)v;
}

static int store_migrate(struct store *st, struct strbuf *err)
{
    sqlite3_stmt *s;
    char sql[64];
    int version, rc;

    if (sqlite3_prepare_v2(st->db, "PRAGMA user_version", -1, &s, NULL) != SQLITE_OK) {
        strbuf_printf(err, "cannot read the schema version: %s", sqlite3_errmsg(st->db));
        return -EIO;
    }
    rc = sqlite3_step(s);
    version = rc == SQLITE_ROW ? sqlite3_column_int(s, 0) : -1;
    sqlite3_finalize(s);
    if (version < 0 || version > STORE_SCHEMA_VERSION) {
        strbuf_printf(err, "the database has schema version %d; this slublab knows %d at most",
                      version, STORE_SCHEMA_VERSION);
        return -EIO;
    }
    for (; version < STORE_SCHEMA_VERSION; version++) {
        snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", version + 1);
        if (sqlite3_exec(st->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK ||
            sqlite3_exec(st->db, migrations[version], NULL, NULL, NULL) != SQLITE_OK ||
            sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK ||
            sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
            strbuf_printf(err, "migration %d -> %d failed: %s", version, version + 1,
                          sqlite3_errmsg(st->db));
            sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
            return -EIO;
        }
    }
    return 0;
}

int store_open(const char *path, struct store **out, struct strbuf *err)
{
    static const char *const pragmas[] = {"PRAGMA journal_mode = WAL", "PRAGMA synchronous = FULL",
                                          "PRAGMA foreign_keys = ON",
                                          "PRAGMA busy_timeout = 10000"};
    struct store *st = calloc(1, sizeof(*st));
    unsigned i;
    int rc;

    if (!st)
        return -ENOMEM;
    if (pthread_mutex_init(&st->lock, NULL)) {
        free(st);
        return -ENOMEM;
    }
    if (store_pg_url(path)) {
        if ((rc = store_pg_open(path, &st->pg, err))) {
            store_close(st);
            return rc;
        }
        *out = st;
        return 0;
    }
    rc = sqlite3_open_v2(path, &st->db,
                         SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, NULL);
    if (rc != SQLITE_OK) {
        strbuf_printf(err, "%s: %s", path, st->db ? sqlite3_errmsg(st->db) : "cannot open");
        goto err_close;
    }
    for (i = 0; i < sizeof(pragmas) / sizeof(pragmas[0]); i++) {
        if (sqlite3_exec(st->db, pragmas[i], NULL, NULL, NULL) != SQLITE_OK) {
            strbuf_printf(err, "%s: %s: %s", path, pragmas[i], sqlite3_errmsg(st->db));
            goto err_close;
        }
    }
    if (store_migrate(st, err))
        goto err_close;
    for (i = 0; i < NR_STMTS; i++) {
        if (sqlite3_prepare_v3(st->db, store_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &st->stmt[i],
                               NULL) != SQLITE_OK) {
            strbuf_printf(err, "%s: preparing \"%s\": %s", path, store_sql[i],
                          sqlite3_errmsg(st->db));
            goto err_close;
        }
    }
    *out = st;
    return 0;

err_close:
    store_close(st);
    return -EIO;
}

void store_close(struct store *st)
{
    unsigned i;

    if (!st)
        return;
    store_pg_close(st->pg);
    for (i = 0; i < NR_STMTS; i++)
        sqlite3_finalize(st->stmt[i]);
    sqlite3_close(st->db);
    pthread_mutex_destroy(&st->lock);
    free(st);
}

void store_hash(const char *text, size_t len, char out[17])
{
    uint64_t h = 0xcbf29ce484222325ull;
    size_t i;

    for (i = 0; i < len; i++) {
        h ^= (unsigned char)text[i];
        h *= 0x100000001b3ull;
    }
    snprintf(out, 17, "%016" PRIx64, h);
}

int store_scenario_put(struct store *st, const char *name, const char *text, size_t len,
                       bool builtin, int64_t *id)
{
    char hash[17];
    sqlite3_stmt *s;
    int rc, ret = 0;

    if (len > INT32_MAX)
        return -E2BIG;
    store_hash(text, len, hash);
    if (st->pg)
        return store_pg_scenario_put(st->pg, name, hash, text, len, builtin, id);
    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_SCN_FIND);
    bind_text(s, 1, hash);
    sqlite3_bind_text(s, 2, text, (int)len, SQLITE_TRANSIENT);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        *id = sqlite3_column_int64(s, 0);
        sqlite3_reset(s);
        goto out_unlock;
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) {
        ret = store_fail(st, rc, "finding a scenario");
        goto out_unlock;
    }
    s = store_stmt(st, ST_SCN_INSERT);
    bind_text(s, 1, name);
    bind_text(s, 2, hash);
    sqlite3_bind_int(s, 3, builtin);
    sqlite3_bind_text(s, 4, text, (int)len, SQLITE_TRANSIENT);
    if (!(ret = store_exec(st, s, "storing a scenario")))
        *id = sqlite3_last_insert_rowid(st->db);
out_unlock:
    pthread_mutex_unlock(&st->lock);
    return ret;
}

static int store_insert_batch(struct store *st, const char *id, size_t seq,
                              const struct store_batch *b)
{
    sqlite3_stmt *s = store_stmt(st, ST_BAT_INSERT);

    bind_text(s, 1, id);
    bind_u64(s, 2, seq);
    bind_text(s, 3, b->ops);
    if (b->limit == UINT64_MAX)
        sqlite3_bind_null(s, 4);
    else
        bind_u64(s, 4, b->limit);
    return store_exec(st, s, "storing a batch");
}

/* BEGIN; store_end() commits, or rolls back when @ret is an error. */
static int store_begin(struct store *st)
{
    return store_exec(st, store_stmt(st, ST_BEGIN), "BEGIN");
}

static int store_end(struct store *st, int ret)
{
    if (ret) {
        store_exec(st, store_stmt(st, ST_ROLLBACK), "ROLLBACK");
        return ret;
    }
    return store_exec(st, store_stmt(st, ST_COMMIT), "COMMIT");
}

int store_session_create(struct store *st, const struct store_session *ss)
{
    sqlite3_stmt *s;
    size_t i;
    int ret;
    if (st->pg)
        return store_pg_session_create(st->pg, ss);

    pthread_mutex_lock(&st->lock);
    if ((ret = store_begin(st)))
        goto out_unlock;
    s = store_stmt(st, ST_SES_INSERT);
    bind_text(s, 1, ss->id);
    bind_text(s, 2, ss->token);
    sqlite3_bind_int64(s, 3, ss->scenario);
    bind_text(s, 4, ss->settings);
    bind_text(s, 5, ss->parent[0] ? ss->parent : NULL);
    bind_u64(s, 6, ss->position);
    bind_u64(s, 7, ss->events);
    bind_text(s, 8, ss->engine[0] ? ss->engine : NULL);
    bind_text(s, 9, ss->log[0] ? ss->log : NULL);
    ret = store_exec(st, s, "storing a session");
    for (i = 0; !ret && i < ss->nr_batches; i++)
        ret = store_insert_batch(st, ss->id, i, &ss->batches[i]);
    ret = store_end(st, ret);
out_unlock:
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_session_add_batch(struct store *st, const char *id, size_t seq,
                            const struct store_batch *b, uint64_t events)
{
    sqlite3_stmt *s;
    int ret;
    if (st->pg)
        return store_pg_session_add_batch(st->pg, id, seq, b, events);

    pthread_mutex_lock(&st->lock);
    if ((ret = store_begin(st)))
        goto out_unlock;
    ret = store_insert_batch(st, id, seq, b);
    if (!ret) {
        s = store_stmt(st, ST_SES_EVENTS);
        bind_text(s, 1, id);
        bind_u64(s, 2, events);
        ret = store_exec(st, s, "updating a session");
    }
    ret = store_end(st, ret);
out_unlock:
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_session_set_overview(struct store *st, const char *id, const void *data, size_t len)
{
    sqlite3_stmt *s;
    int ret;
    if (st->pg)
        return store_pg_session_set_overview(st->pg, id, data, len);

    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_SES_OV_SET);
    bind_text(s, 1, id);
    sqlite3_bind_blob64(s, 2, data, len, SQLITE_TRANSIENT);
    ret = store_exec(st, s, "keeping an overview");
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_session_overview(struct store *st, const char *id, unsigned char **data, size_t *len)
{
    const void *blob;
    sqlite3_stmt *s;
    int rc, ret = 0;
    size_t n;
    if (st->pg)
        return store_pg_session_overview(st->pg, id, data, len);

    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_SES_OV_GET);
    bind_text(s, 1, id);
    rc = sqlite3_step(s);
    if (rc != SQLITE_ROW) {
        ret = rc == SQLITE_DONE ? -ENOENT : store_fail(st, rc, "reading an overview");
    } else if (sqlite3_column_type(s, 0) != SQLITE_BLOB) {
        ret = -ENOENT;
    } else {
        blob = sqlite3_column_blob(s, 0);
        n = (size_t)sqlite3_column_bytes(s, 0);
        if (!(*data = malloc(n ? n : 1)))
            ret = -ENOMEM;
        else {
            if (n)
                memcpy(*data, blob, n);
            *len = n;
        }
    }
    sqlite3_reset(s);
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_session_set_position(struct store *st, const char *id, uint64_t position)
{
    sqlite3_stmt *s;
    int ret;
    if (st->pg)
        return store_pg_session_set_position(st->pg, id, position);

    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_SES_POS);
    bind_text(s, 1, id);
    bind_u64(s, 2, position);
    ret = store_exec(st, s, "updating a position");
    pthread_mutex_unlock(&st->lock);
    return ret;
}

void store_session_free(struct store_session *ss)
{
    size_t i;

    if (!ss)
        return;
    free(ss->scenario_name);
    free(ss->scenario_text);
    free(ss->settings);
    for (i = 0; i < ss->nr_batches; i++)
        free(ss->batches[i].ops);
    free(ss->batches);
    memset(ss, 0, sizeof(*ss));
}

int store_session_load(struct store *st, const char *id, struct store_session *out)
{
    sqlite3_stmt *s;
    size_t cap = 0;
    int rc, ret = 0;
    if (st->pg)
        return store_pg_session_load(st->pg, id, out);

    memset(out, 0, sizeof(*out));
    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_SES_GET);
    bind_text(s, 1, id);
    rc = sqlite3_step(s);
    if (rc != SQLITE_ROW) {
        ret = rc == SQLITE_DONE ? -ENOENT : store_fail(st, rc, "loading a session");
        sqlite3_reset(s);
        goto out_unlock;
    }
    snprintf(out->id, sizeof(out->id), "%s", id);
    col_copy(s, 0, out->token, sizeof(out->token));
    out->scenario = sqlite3_column_int64(s, 1);
    out->settings = col_dup(s, 2);
    col_copy(s, 3, out->parent, sizeof(out->parent));
    out->position = col_u64(s, 4);
    out->events = col_u64(s, 5);
    col_copy(s, 6, out->created, sizeof(out->created));
    out->scenario_name = col_dup(s, 7);
    out->scenario_text = col_dup(s, 8);
    col_copy(s, 9, out->engine, sizeof(out->engine));
    col_copy(s, 10, out->log, sizeof(out->log));
    sqlite3_reset(s);
    if (!out->settings || !out->scenario_name || !out->scenario_text) {
        ret = -ENOMEM;
        goto out_unlock;
    }
    s = store_stmt(st, ST_BAT_GET);
    bind_text(s, 1, id);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        struct store_batch *b;

        if (out->nr_batches == cap) {
            cap = cap ? cap * 2 : 8;
            b = realloc(out->batches, cap * sizeof(*b));
            if (!b) {
                ret = -ENOMEM;
                break;
            }
            out->batches = b;
        }
        b = &out->batches[out->nr_batches++];
        b->ops = col_dup(s, 0);
        b->limit = sqlite3_column_type(s, 1) == SQLITE_NULL ? UINT64_MAX : col_u64(s, 1);
    }
    if (!ret && rc != SQLITE_DONE)
        ret = store_fail(st, rc, "loading batches");
    sqlite3_reset(s);
out_unlock:
    pthread_mutex_unlock(&st->lock);
    if (ret)
        store_session_free(out);
    return ret;
}

/* DELETE by id; -ENOENT when nothing was there. */
static int store_delete(struct store *st, enum stmt which, const char *id)
{
    sqlite3_stmt *s;
    int ret;

    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, which);
    bind_text(s, 1, id);
    ret = store_exec(st, s, "deleting");
    if (!ret && sqlite3_changes(st->db) == 0)
        ret = -ENOENT;
    pthread_mutex_unlock(&st->lock);
    return ret;
}

bool store_shared(const struct store *st)
{
    return st->pg != NULL;
}

int store_session_batches(struct store *st, const char *id, uint64_t *nr)
{
    sqlite3_stmt *s;
    int rc, ret = 0;

    if (st->pg)
        return store_pg_session_batches(st->pg, id, nr);
    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_BAT_COUNT);
    bind_text(s, 1, id);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        *nr = col_u64(s, 0);
    else
        ret = store_fail(st, rc, "counting batches");
    sqlite3_reset(s);
    pthread_mutex_unlock(&st->lock);
    return ret;
}

/* The checkpoint owner session @id names into @owner ("" when none). */
static int store_session_ckpts(struct store *st, const char *id,
                               char owner[STORE_CKPT_OWNER_LEN + 1])
{
    sqlite3_stmt *s;
    int rc, ret = 0;

    owner[0] = '\0';
    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_SES_CKP_GET);
    bind_text(s, 1, id);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        col_copy(s, 0, owner, STORE_CKPT_OWNER_LEN + 1);
    else if (rc != SQLITE_DONE)
        ret = store_fail(st, rc, "reading a session's checkpoints");
    sqlite3_reset(s);
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_session_delete(struct store *st, const char *id)
{
    char owner[STORE_CKPT_OWNER_LEN + 1];
    struct store_session ss;
    int ret, loaded;

    if (st->pg)
        return store_pg_session_delete(st->pg, id);
    /* the log it replays goes with the last session replaying it */
    loaded = store_session_load(st, id, &ss);
    if (loaded && loaded != -ENOENT)
        return loaded;
    if (!loaded && (ret = store_session_ckpts(st, id, owner)))
        goto out_free;
    ret = store_delete(st, ST_SES_DEL, id);
    if (!ret && !loaded && ss.log[0])
        ret = store_oplog_delete(st, ss.log);
    if (!ret && !loaded && owner[0])
        ret = store_ckpt_delete(st, owner);
out_free:
    if (!loaded)
        store_session_free(&ss);
    return ret;
}

int store_oplog_put(struct store *st, const char *log, uint64_t seq, const uint8_t *data,
                    size_t len, uint64_t ops, uint64_t events)
{
    sqlite3_stmt *s;
    int ret;

    if (st->pg)
        return store_pg_oplog_put(st->pg, log, seq, data, len, ops, events);
    if (len > INT32_MAX)
        return -EINVAL;
    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_LOG_PUT);
    bind_text(s, 1, log);
    bind_u64(s, 2, seq);
    bind_u64(s, 3, ops);
    bind_u64(s, 4, events);
    sqlite3_bind_blob(s, 5, len ? (const void *)data : "", (int)len, SQLITE_STATIC);
    ret = store_exec(st, s, "storing an op log chunk");
    sqlite3_clear_bindings(s);
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_oplog_get(struct store *st, const char *log, uint64_t seq, uint8_t **data, size_t *len)
{
    sqlite3_stmt *s;
    int rc, ret = 0;

    if (st->pg)
        return store_pg_oplog_get(st->pg, log, seq, data, len);
    *data = NULL;
    *len = 0;
    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_LOG_GET);
    bind_text(s, 1, log);
    bind_u64(s, 2, seq);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        const void *b = sqlite3_column_blob(s, 0);
        int n = sqlite3_column_bytes(s, 0);

        if (!(*data = malloc(n > 0 ? (size_t)n : 1)))
            ret = -ENOMEM;
        else if (n > 0)
            memcpy(*data, b, (size_t)n);
        *len = n > 0 ? (size_t)n : 0;
    } else {
        ret = rc == SQLITE_DONE ? -ENOENT : store_fail(st, rc, "loading an op log chunk");
    }
    sqlite3_reset(s);
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_oplog_info(struct store *st, const char *log, uint64_t *chunks, uint64_t *ops,
                     uint64_t *events, size_t *last_len)
{
    sqlite3_stmt *s;
    int rc, ret = 0;

    if (st->pg)
        return store_pg_oplog_info(st->pg, log, chunks, ops, events, last_len);
    *chunks = *ops = *events = 0;
    *last_len = 0;
    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_LOG_INFO);
    bind_text(s, 1, log);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        *chunks = col_u64(s, 0);
        *ops = col_u64(s, 1);
        *events = col_u64(s, 2);
    } else {
        ret = store_fail(st, rc, "reading an op log");
    }
    sqlite3_reset(s);
    if (!ret && *chunks) {
        s = store_stmt(st, ST_LOG_LAST);
        bind_text(s, 1, log);
        rc = sqlite3_step(s);
        if (rc == SQLITE_ROW)
            *last_len = (size_t)col_u64(s, 0);
        else
            ret = store_fail(st, rc, "reading an op log");
        sqlite3_reset(s);
    }
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_oplog_delete(struct store *st, const char *log)
{
    sqlite3_stmt *s;
    int ret;

    if (st->pg)
        return store_pg_oplog_delete(st->pg, log);
    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_LOG_DEL);
    bind_text(s, 1, log);
    ret = store_exec(st, s, "deleting an op log");
    pthread_mutex_unlock(&st->lock);
    return ret;
}

const char *const store_session_cols[] = {"id",     "scenario", "parent", "position",
                                          "events", "created",  NULL};
const char *const store_snapshot_cols[] = {"id",       "title",  "scenario", "session",
                                           "position", "engine", "created",  NULL};

int store_list_start(const char *key, cJSON **o, cJSON **arr)
{
    *arr = NULL;
    if (!(*o = cJSON_CreateObject()) || !json_put(*o, key, *arr = cJSON_CreateArray())) {
        cJSON_Delete(*o);
        *o = NULL;
        return -ENOMEM;
    }
    return 0;
}

int store_list_row(cJSON *arr, const char *const *cols, unsigned ints, const char *const *vals)
{
    cJSON *row = cJSON_CreateObject();
    unsigned c;

    if (!json_push(arr, row))
        return -ENOMEM;
    for (c = 0; cols[c]; c++) {
        cJSON *v =
                (ints >> c & 1)
                        ? json_uint(vals[c] && vals[c][0] != '-' ? strtoull(vals[c], NULL, 10) : 0)
                : vals[c] ? cJSON_CreateString(vals[c])
                          : cJSON_CreateNull();

        if (!json_put(row, cols[c], v))
            return -ENOMEM;
    }
    return 0;
}

int store_list_total(cJSON *o, uint64_t n)
{
    return json_put(o, "total", json_uint(n)) ? 0 : -ENOMEM;
}

/* Fill "total" from a count statement; -EIO on failure. */
static int store_count(struct store *st, enum stmt which, cJSON *o)
{
    sqlite3_stmt *s = store_stmt(st, which);
    int rc = sqlite3_step(s);
    uint64_t n = rc == SQLITE_ROW ? col_u64(s, 0) : 0;

    sqlite3_reset(s);
    if (rc != SQLITE_ROW)
        return store_fail(st, rc, "counting");
    return store_list_total(o, n);
}

/* Run a list statement into an array of objects keyed by @cols (NULL-terminated);
 * columns named in @ints are integers. */
static int store_list(struct store *st, enum stmt which, enum stmt count, const char *key,
                      const char *const *cols, unsigned ints, unsigned limit, unsigned offset,
                      cJSON **out)
{
    cJSON *o, *arr;
    sqlite3_stmt *s;
    int rc, ret;

    if ((ret = store_list_start(key, &o, &arr)))
        return ret;
    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, which);
    sqlite3_bind_int64(s, 1, limit);
    sqlite3_bind_int64(s, 2, offset);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW && !ret) {
        const char *vals[16];
        unsigned c;

        for (c = 0; cols[c] && c < 16; c++)
            vals[c] = (const char *)sqlite3_column_text(s, (int)c);
        ret = store_list_row(arr, cols, ints, vals);
    }
    if (!ret && rc != SQLITE_DONE)
        ret = store_fail(st, rc, "listing");
    sqlite3_reset(s);
    if (!ret)
        ret = store_count(st, count, o);
    pthread_mutex_unlock(&st->lock);
    if (ret) {
        cJSON_Delete(o);
        return ret;
    }
    *out = o;
    return 0;
}

int store_session_list(struct store *st, unsigned limit, unsigned offset, cJSON **out)
{
    if (st->pg)
        return store_pg_session_list(st->pg, limit, offset, out);
    return store_list(st, ST_SES_LIST, ST_SES_COUNT, "sessions", store_session_cols,
                      STORE_SESSION_INTS, limit, offset, out);
}

int store_snapshot_create(struct store *st, const struct store_snapshot *sn)
{
    sqlite3_stmt *s;
    int ret;
    if (st->pg)
        return store_pg_snapshot_create(st->pg, sn);

    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_SNP_INSERT);
    bind_text(s, 1, sn->id);
    bind_text(s, 2, sn->token);
    bind_text(s, 3, sn->title ? sn->title : "");
    sqlite3_bind_int64(s, 4, sn->scenario);
    bind_text(s, 5, sn->settings);
    bind_text(s, 6, sn->batches);
    bind_u64(s, 7, sn->position);
    bind_text(s, 8, sn->engine);
    bind_text(s, 9, sn->state);
    bind_text(s, 10, sn->session[0] ? sn->session : NULL);
    ret = store_exec(st, s, "storing a snapshot");
    pthread_mutex_unlock(&st->lock);
    return ret;
}

void store_snapshot_free(struct store_snapshot *sn)
{
    if (!sn)
        return;
    free(sn->title);
    free(sn->scenario_name);
    free(sn->scenario_text);
    free(sn->settings);
    free(sn->batches);
    free(sn->engine);
    free(sn->state);
    free(sn->check_engine);
    free(sn->check_status);
    free(sn->check_warning);
    memset(sn, 0, sizeof(*sn));
}

int store_snapshot_load(struct store *st, const char *id, struct store_snapshot *out)
{
    sqlite3_stmt *s;
    int rc, ret = 0;
    if (st->pg)
        return store_pg_snapshot_load(st->pg, id, out);

    memset(out, 0, sizeof(*out));
    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_SNP_GET);
    bind_text(s, 1, id);
    rc = sqlite3_step(s);
    if (rc != SQLITE_ROW) {
        ret = rc == SQLITE_DONE ? -ENOENT : store_fail(st, rc, "loading a snapshot");
        sqlite3_reset(s);
        goto out_unlock;
    }
    snprintf(out->id, sizeof(out->id), "%s", id);
    col_copy(s, 0, out->token, sizeof(out->token));
    out->title = col_dup(s, 1);
    out->scenario = sqlite3_column_int64(s, 2);
    out->settings = col_dup(s, 3);
    out->batches = col_dup(s, 4);
    out->position = col_u64(s, 5);
    out->engine = col_dup(s, 6);
    out->state = col_dup(s, 7);
    col_copy(s, 8, out->session, sizeof(out->session));
    col_copy(s, 9, out->created, sizeof(out->created));
    out->scenario_name = col_dup(s, 10);
    out->scenario_text = col_dup(s, 11);
    if (sqlite3_column_type(s, 12) != SQLITE_NULL && sqlite3_column_type(s, 13) != SQLITE_NULL) {
        out->check_engine = col_dup(s, 12);
        out->check_status = col_dup(s, 13);
        out->check_warning = col_dup(s, 14); /* NULL when there was none */
        if (!out->check_engine || !out->check_status)
            ret = -ENOMEM;
    }
    out->published = sqlite3_column_int(s, 15) != 0;
    sqlite3_reset(s);
    if (!out->title || !out->settings || !out->batches || !out->engine || !out->state ||
        !out->scenario_name || !out->scenario_text)
        ret = -ENOMEM;
out_unlock:
    pthread_mutex_unlock(&st->lock);
    if (ret)
        store_snapshot_free(out);
    return ret;
}

int store_snapshot_set_check(struct store *st, const char *id, const char *engine,
                             const char *status, const char *warning)
{
    sqlite3_stmt *s;
    int ret;
    if (st->pg)
        return store_pg_snapshot_set_check(st->pg, id, engine, status, warning);

    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_SNP_CHECK);
    bind_text(s, 1, id);
    bind_text(s, 2, engine);
    bind_text(s, 3, status);
    bind_text(s, 4, warning);
    ret = store_exec(st, s, "keeping a snapshot's check");
    if (!ret && !sqlite3_changes(st->db))
        ret = -ENOENT;
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_sessions_older(struct store *st, unsigned days, char (*ids)[STORE_ID_MAX + 1],
                         size_t max, size_t *n)
{
    sqlite3_stmt *s;
    int rc, ret = 0;
    if (st->pg)
        return store_pg_sessions_older(st->pg, days, ids, max, n);

    *n = 0;
    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_SES_OLD);
    bind_u64(s, 1, days);
    bind_u64(s, 2, max);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW && *n < max)
        col_copy(s, 0, ids[(*n)++], STORE_ID_MAX + 1);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        ret = store_fail(st, rc, "listing old sessions");
    sqlite3_reset(s);
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_snapshots_expire(struct store *st, unsigned days, uint64_t *deleted)
{
    sqlite3_stmt *s;
    int ret;
    if (st->pg)
        return store_pg_snapshots_expire(st->pg, days, deleted);

    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_SNP_EXPIRE);
    bind_u64(s, 1, days);
    ret = store_exec(st, s, "deleting old snapshots");
    *deleted = ret ? 0 : (uint64_t)sqlite3_changes(st->db);
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_snapshot_delete(struct store *st, const char *id)
{
    if (st->pg)
        return store_pg_snapshot_delete(st->pg, id);
    return store_delete(st, ST_SNP_DEL, id);
}

int store_snapshot_list(struct store *st, unsigned limit, unsigned offset, cJSON **out)
{
    if (st->pg)
        return store_pg_snapshot_list(st->pg, limit, offset, out);
    return store_list(st, ST_SNP_LIST, ST_SNP_COUNT, "snapshots", store_snapshot_cols,
                      STORE_SNAPSHOT_INTS, limit, offset, out);
}

int store_snapshot_set_published(struct store *st, const char *id, bool published)
{
    sqlite3_stmt *s;
    int ret;
    if (st->pg)
        return store_pg_snapshot_set_published(st->pg, id, published);

    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_SNP_PUBLISH);
    bind_text(s, 1, id);
    sqlite3_bind_int(s, 2, published);
    ret = store_exec(st, s, "publishing a snapshot");
    if (!ret && !sqlite3_changes(st->db))
        ret = -ENOENT;
    pthread_mutex_unlock(&st->lock);
    return ret;
}

/* The token @tokens holds for snapshot @id (NULL when none). */
static const char *token_for(const cJSON *tokens, const char *id)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(tokens, id);

    return cJSON_IsString(t) ? t->valuestring : NULL;
}

int store_list_for_start(struct store_list_for *lf, const cJSON *tokens)
{
    cJSON *ids = cJSON_CreateArray();
    const cJSON *t;

    memset(lf, 0, sizeof(*lf));
    lf->tokens = tokens;
    if (!ids || store_list_start("snapshots", &lf->o, &lf->arr))
        goto err_nomem;
    cJSON_ArrayForEach(t, tokens)
    {
        if (!json_push(ids, cJSON_CreateString(t->string)))
            goto err_nomem;
    }
    if (!(lf->ids_text = cJSON_PrintUnformatted(ids)))
        goto err_nomem;
    cJSON_Delete(ids);
    return 0;

err_nomem:
    cJSON_Delete(ids);
    return store_list_for_end(lf, -ENOMEM, NULL);
}

int store_list_for_row(struct store_list_for *lf, const char *const *vals, bool published,
                       unsigned limit, unsigned offset)
{
    const char *held = vals[0] ? token_for(lf->tokens, vals[0]) : NULL;
    bool mine = held && vals[8] && ids_token_equal(held, vals[8]);
    cJSON *row;
    int ret;

    if (!published && !mine)
        return 0; /* an id without its token lists nothing */
    if (lf->total++ < offset || lf->total > (uint64_t)offset + limit)
        return 0;
    if ((ret = store_list_row(lf->arr, store_snapshot_cols, STORE_SNAPSHOT_INTS, vals)))
        return ret;
    row = cJSON_GetArrayItem(lf->arr, cJSON_GetArraySize(lf->arr) - 1);
    if (!json_put(row, "published", cJSON_CreateBool(published)) ||
        !json_put(row, "mine", cJSON_CreateBool(mine)))
        return -ENOMEM;
    return 0;
}

int store_list_for_end(struct store_list_for *lf, int ret, cJSON **out)
{
    if (!ret && !json_put(lf->o, "total", json_uint(lf->total)))
        ret = -ENOMEM;
    cJSON_free(lf->ids_text);
    lf->ids_text = NULL;
    if (ret)
        cJSON_Delete(lf->o);
    else
        *out = lf->o;
    lf->o = lf->arr = NULL;
    return ret;
}

int store_snapshot_list_for(struct store *st, const cJSON *tokens, unsigned limit, unsigned offset,
                            cJSON **out)
{
    struct store_list_for lf;
    sqlite3_stmt *s;
    int rc, ret;

    if (st->pg)
        return store_pg_snapshot_list_for(st->pg, tokens, limit, offset, out);
    if ((ret = store_list_for_start(&lf, tokens)))
        return ret;
    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_SNP_LIST_FOR);
    bind_text(s, 1, lf.ids_text);
    while (!ret && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        const char *vals[9];
        int c;

        for (c = 0; c < 9; c++)
            vals[c] = (const char *)sqlite3_column_text(s, c);
        ret = store_list_for_row(&lf, vals, sqlite3_column_int(s, 7) != 0, limit, offset);
    }
    if (!ret && rc != SQLITE_DONE)
        ret = store_fail(st, rc, "listing snapshots");
    sqlite3_reset(s);
    pthread_mutex_unlock(&st->lock);
    return store_list_for_end(&lf, ret, out);
}

/* Bind a lecture's columns ?1..?6 (the token only when @token). */
static void bind_lecture(sqlite3_stmt *s, const struct store_lecture *lc, bool token)
{
    int i = 2;

    bind_text(s, 1, lc->id);
    if (token)
        bind_text(s, i++, lc->token);
    bind_text(s, i++, lc->session);
    bind_u64(s, i++, lc->position);
    bind_u64(s, i++, lc->events);
    bind_u64(s, i, lc->ops);
}

int store_lecture_create(struct store *st, const struct store_lecture *lc)
{
    sqlite3_stmt *s;
    int ret;
    if (st->pg)
        return store_pg_lecture_create(st->pg, lc);

    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_LEC_INSERT);
    bind_lecture(s, lc, true);
    ret = store_exec(st, s, "storing a lecture");
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_lecture_set(struct store *st, const struct store_lecture *lc)
{
    sqlite3_stmt *s;
    int ret;
    if (st->pg)
        return store_pg_lecture_set(st->pg, lc);

    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_LEC_SET);
    bind_lecture(s, lc, false);
    ret = store_exec(st, s, "changing a lecture");
    if (!ret && !sqlite3_changes(st->db))
        ret = -ENOENT;
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_lecture_delete(struct store *st, const char *id)
{
    if (st->pg)
        return store_pg_lecture_delete(st->pg, id);
    return store_delete(st, ST_LEC_DEL, id);
}

int store_lectures_load(struct store *st, unsigned max,
                        int (*fn)(const struct store_lecture *lc, void *arg), void *arg)
{
    struct store_lecture lc;
    sqlite3_stmt *s;
    int rc, ret = 0;
    if (st->pg)
        return store_pg_lectures_load(st->pg, max, fn, arg);

    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_LEC_LIST);
    bind_u64(s, 1, max);
    while (!ret && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        memset(&lc, 0, sizeof(lc));
        col_copy(s, 0, lc.id, sizeof(lc.id));
        col_copy(s, 1, lc.token, sizeof(lc.token));
        col_copy(s, 2, lc.session, sizeof(lc.session));
        lc.position = col_u64(s, 3);
        lc.events = col_u64(s, 4);
        lc.ops = col_u64(s, 5);
        ret = fn(&lc, arg);
    }
    if (!ret && rc != SQLITE_DONE)
        ret = store_fail(st, rc, "loading the lectures");
    sqlite3_reset(s);
    pthread_mutex_unlock(&st->lock);
    return ret;
}

/* A lecture row of ST_LEC_LIST or ST_LEC_GET. */
static void lecture_cols(sqlite3_stmt *s, struct store_lecture *lc)
{
    memset(lc, 0, sizeof(*lc));
    col_copy(s, 0, lc->id, sizeof(lc->id));
    col_copy(s, 1, lc->token, sizeof(lc->token));
    col_copy(s, 2, lc->session, sizeof(lc->session));
    lc->position = col_u64(s, 3);
    lc->events = col_u64(s, 4);
    lc->ops = col_u64(s, 5);
}

int store_lecture_load(struct store *st, const char *id, struct store_lecture *out)
{
    sqlite3_stmt *s;
    int rc, ret = 0;

    if (st->pg)
        return store_pg_lecture_load(st->pg, id, out);
    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_LEC_GET);
    bind_text(s, 1, id);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        lecture_cols(s, out);
    else
        ret = rc == SQLITE_DONE ? -ENOENT : store_fail(st, rc, "loading a lecture");
    sqlite3_reset(s);
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_trace_job_put(struct store *st, const struct store_trace_job *j, bool *cancel)
{
    sqlite3_stmt *s;
    int rc, ret = 0;

    if (st->pg)
        return store_pg_trace_job_put(st->pg, j, cancel);
    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_JOB_PUT);
    bind_text(s, 1, j->id);
    bind_text(s, 2, j->state);
    bind_u64(s, 3, j->bytes);
    bind_u64(s, 4, j->done);
    bind_u64(s, 5, j->total);
    bind_u64(s, 6, j->events);
    bind_u64(s, 7, j->built);
    bind_u64(s, 8, j->recorded);
    bind_text(s, 9, j->session);
    bind_text(s, 10, j->token);
    bind_text(s, 11, j->code);
    bind_text(s, 12, j->message);
    bind_text(s, 13, j->report);
    bind_text(s, 14, j->owner);
    rc = sqlite3_step(s); /* the row RETURNING gives */
    if (rc == SQLITE_ROW) {
        if (cancel)
            *cancel = sqlite3_column_int(s, 0) != 0;
        rc = sqlite3_step(s);
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE)
        ret = store_fail(st, rc, "storing a trace job");
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_trace_job_load(struct store *st, const char *id, struct store_trace_job *out)
{
    sqlite3_stmt *s;
    int rc, ret = 0;

    if (st->pg)
        return store_pg_trace_job_load(st->pg, id, out);
    memset(out, 0, sizeof(*out));
    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_JOB_GET);
    bind_text(s, 1, id);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        snprintf(out->id, sizeof(out->id), "%s", id);
        col_copy(s, 0, out->state, sizeof(out->state));
        out->bytes = col_u64(s, 1);
        out->done = col_u64(s, 2);
        out->total = col_u64(s, 3);
        out->events = col_u64(s, 4);
        out->built = col_u64(s, 5);
        out->recorded = col_u64(s, 6);
        col_copy(s, 7, out->session, sizeof(out->session));
        col_copy(s, 8, out->token, sizeof(out->token));
        col_copy(s, 9, out->code, sizeof(out->code));
        col_copy(s, 10, out->message, sizeof(out->message));
        col_copy(s, 12, out->owner, sizeof(out->owner));
        out->cancel = sqlite3_column_int(s, 13) != 0;
        if (sqlite3_column_type(s, 11) != SQLITE_NULL && !(out->report = col_dup(s, 11)))
            ret = -ENOMEM;
    } else {
        ret = rc == SQLITE_DONE ? -ENOENT : store_fail(st, rc, "loading a trace job");
    }
    sqlite3_reset(s);
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_trace_job_delete(struct store *st, const char *id)
{
    if (st->pg)
        return store_pg_trace_job_delete(st->pg, id);
    return store_delete(st, ST_JOB_DEL, id);
}

int store_trace_job_cancel(struct store *st, const char *id)
{
    if (st->pg)
        return store_pg_trace_job_cancel(st->pg, id);
    return store_delete(st, ST_JOB_CANCEL, id); /* one row by id, -ENOENT when none */
}

int store_trace_jobs_expire(struct store *st, unsigned days, unsigned stale_seconds,
                            const char *why, uint64_t *failed, uint64_t *deleted)
{
    sqlite3_stmt *s;
    int ret;

    *failed = *deleted = 0;
    if (st->pg)
        return store_pg_trace_jobs_expire(st->pg, days, stale_seconds, why, failed, deleted);
    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_JOB_STALE);
    bind_u64(s, 1, stale_seconds);
    bind_text(s, 2, why);
    ret = store_exec(st, s, "failing the trace jobs of a stopped server");
    if (!ret) {
        *failed = (uint64_t)sqlite3_changes(st->db);
        s = store_stmt(st, ST_JOB_EXPIRE);
        bind_u64(s, 1, stale_seconds);
        bind_u64(s, 2, (uint64_t)days * 86400);
        ret = store_exec(st, s, "deleting old trace jobs");
        if (!ret)
            *deleted = (uint64_t)sqlite3_changes(st->db);
    }
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_answer_put(struct store *st, const char *lecture, uint64_t at, const char *voter,
                     const char *choice)
{
    sqlite3_stmt *s;
    int ret;

    if (st->pg)
        return store_pg_answer_put(st->pg, lecture, at, voter, choice);
    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_ANS_PUT);
    bind_text(s, 1, lecture);
    bind_u64(s, 2, at);
    bind_text(s, 3, voter);
    bind_text(s, 4, choice);
    ret = store_exec(st, s, "storing an answer");
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_answers_tally(struct store *st, const char *lecture, uint64_t at,
                        int (*fn)(const char *choice, uint64_t n, void *arg), void *arg)
{
    sqlite3_stmt *s;
    int rc = SQLITE_DONE, ret = 0;

    if (st->pg)
        return store_pg_answers_tally(st->pg, lecture, at, fn, arg);
    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_ANS_TALLY);
    bind_text(s, 1, lecture);
    bind_u64(s, 2, at);
    while (!ret && (rc = sqlite3_step(s)) == SQLITE_ROW) {
        const unsigned char *choice = sqlite3_column_text(s, 0);

        ret = fn(choice ? (const char *)choice : "", col_u64(s, 1), arg);
    }
    if (!ret && rc != SQLITE_DONE)
        ret = store_fail(st, rc, "counting answers");
    sqlite3_reset(s);
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_answers_expire(struct store *st, unsigned seconds, uint64_t *deleted)
{
    sqlite3_stmt *s;
    int ret;

    *deleted = 0;
    if (st->pg)
        return store_pg_answers_expire(st->pg, seconds, deleted);
    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_ANS_EXPIRE);
    bind_u64(s, 1, seconds);
    ret = store_exec(st, s, "deleting old answers");
    if (!ret)
        *deleted = (uint64_t)sqlite3_changes(st->db);
    pthread_mutex_unlock(&st->lock);
    return ret;
}

void store_trace_job_free(struct store_trace_job *j)
{
    free(j->report);
    j->report = NULL;
}

int store_notify(struct store *st, const char *text)
{
    return st->pg ? store_pg_notify(st->pg, text) : 0;
}

int store_listen(struct store *st, store_message_fn *fn, void *arg)
{
    return st->pg ? store_pg_listen(st->pg, fn, arg) : 0;
}

void store_unlisten(struct store *st)
{
    if (st && st->pg)
        store_pg_unlisten(st->pg);
}

bool store_available(const struct store *st)
{
    return !st->pg || store_pg_available(st->pg);
}

int store_session_where(struct store *st, const char *id, uint64_t *position, uint64_t *events)
{
    sqlite3_stmt *s;
    int rc, ret = 0;

    if (st->pg)
        return store_pg_session_where(st->pg, id, position, events);
    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_SES_WHERE);
    bind_text(s, 1, id);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        *position = col_u64(s, 0);
        *events = col_u64(s, 1);
    } else {
        ret = rc == SQLITE_DONE ? -ENOENT : store_fail(st, rc, "reading a position");
    }
    sqlite3_reset(s);
    pthread_mutex_unlock(&st->lock);
    return ret;
}

/* ---- checkpoint images ---------------------------------------------------------- */

int store_ckpt_pages_put(struct store *st, const char *owner, const struct store_ckpt_page *pages,
                         size_t n)
{
    sqlite3_stmt *s;
    size_t i;
    int ret;

    if (st->pg)
        return store_pg_ckpt_pages_put(st->pg, owner, pages, n);
    pthread_mutex_lock(&st->lock);
    if ((ret = store_begin(st)))
        goto out_unlock;
    for (i = 0; i < n && !ret; i++) {
        if (pages[i].len > INT32_MAX) {
            ret = -EINVAL;
            break;
        }
        s = store_stmt(st, ST_CKP_PAGE_PUT);
        bind_text(s, 1, owner);
        sqlite3_bind_blob(s, 2, pages[i].hash, STORE_CKPT_HASH_LEN, SQLITE_STATIC);
        sqlite3_bind_blob(s, 3, pages[i].len ? pages[i].data : "", (int)pages[i].len,
                          SQLITE_STATIC);
        ret = store_exec(st, s, "storing a checkpoint page");
        sqlite3_clear_bindings(s);
    }
    ret = store_end(st, ret);
out_unlock:
    pthread_mutex_unlock(&st->lock);
    return ret;
}

/* Bind @len bytes of @data at @i, or NULL when @data is NULL. */
static void bind_blob(sqlite3_stmt *s, int i, const void *data, size_t len)
{
    if (!data)
        sqlite3_bind_null(s, i);
    else
        sqlite3_bind_blob64(s, i, len ? data : "", len, SQLITE_STATIC);
}

int store_ckpt_put(struct store *st, const char *owner, const char *tag, const struct store_ckpt *c)
{
    sqlite3_stmt *s;
    int ret;

    if (st->pg)
        return store_pg_ckpt_put(st->pg, owner, tag, c);
    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_CKP_PUT);
    bind_text(s, 1, owner);
    bind_text(s, 2, tag);
    bind_u64(s, 3, c->seq);
    bind_u64(s, 4, c->op);
    bind_u64(s, 5, c->off);
    bind_blob(s, 6, c->meta ? c->meta : "", c->meta_len);
    bind_blob(s, 7, c->pages ? c->pages : "", c->pages_len);
    bind_blob(s, 8, c->extra, c->extra_len);
    ret = store_exec(st, s, "storing a checkpoint");
    sqlite3_clear_bindings(s);
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_ckpt_list(struct store *st, const char *owner, const char *tag,
                    int (*fn)(void *arg, uint64_t seq, uint64_t op, uint64_t off, bool has_extra),
                    void *arg)
{
    sqlite3_stmt *s;
    int rc, ret = 0;

    if (st->pg)
        return store_pg_ckpt_list(st->pg, owner, tag, fn, arg);
    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_CKP_LIST);
    bind_text(s, 1, owner);
    bind_text(s, 2, tag);
    while (!ret && (rc = sqlite3_step(s)) == SQLITE_ROW)
        ret = fn(arg, col_u64(s, 0), col_u64(s, 1), col_u64(s, 2), sqlite3_column_int(s, 3));
    if (!ret && rc != SQLITE_DONE)
        ret = store_fail(st, rc, "listing checkpoints");
    sqlite3_reset(s);
    pthread_mutex_unlock(&st->lock);
    return ret;
}

/* A malloc()ed copy of column @i (a blob) in *out, *len; NULL for SQL NULL. */
static int col_blob(sqlite3_stmt *s, int i, void **out, size_t *len)
{
    const void *b = sqlite3_column_blob(s, i);
    size_t n = (size_t)sqlite3_column_bytes(s, i);

    *out = NULL;
    *len = 0;
    if (sqlite3_column_type(s, i) == SQLITE_NULL)
        return 0;
    if (!(*out = malloc(n ? n : 1)))
        return -ENOMEM;
    if (n)
        memcpy(*out, b, n);
    *len = n;
    return 0;
}

int store_ckpt_get(struct store *st, const char *owner, const char *tag, uint64_t seq,
                   struct store_ckpt *out)
{
    sqlite3_stmt *s;
    int rc, ret = 0;

    memset(out, 0, sizeof(*out));
    if (st->pg)
        return store_pg_ckpt_get(st->pg, owner, tag, seq, out);
    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_CKP_GET);
    bind_text(s, 1, owner);
    bind_text(s, 2, tag);
    bind_u64(s, 3, seq);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        out->seq = seq;
        out->op = col_u64(s, 0);
        out->off = col_u64(s, 1);
        if (col_blob(s, 2, &out->meta, &out->meta_len) ||
            col_blob(s, 3, &out->pages, &out->pages_len) ||
            col_blob(s, 4, &out->extra, &out->extra_len))
            ret = -ENOMEM;
    } else {
        ret = rc == SQLITE_DONE ? -ENOENT : store_fail(st, rc, "reading a checkpoint");
    }
    sqlite3_reset(s);
    pthread_mutex_unlock(&st->lock);
    if (ret)
        store_ckpt_free(out);
    return ret;
}

void store_ckpt_free(struct store_ckpt *c)
{
    free(c->meta);
    free(c->pages);
    free(c->extra);
    memset(c, 0, sizeof(*c));
}

int store_ckpt_page_get(struct store *st, const char *owner, const uint8_t *hash, uint8_t **data,
                        size_t *len)
{
    sqlite3_stmt *s;
    void *p = NULL;
    int rc, ret = 0;

    *data = NULL;
    *len = 0;
    if (st->pg)
        return store_pg_ckpt_page_get(st->pg, owner, hash, data, len);
    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_CKP_PAGE_GET);
    bind_text(s, 1, owner);
    sqlite3_bind_blob(s, 2, hash, STORE_CKPT_HASH_LEN, SQLITE_STATIC);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        ret = col_blob(s, 0, &p, len);
    else
        ret = rc == SQLITE_DONE ? -ENOENT : store_fail(st, rc, "reading a checkpoint page");
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    pthread_mutex_unlock(&st->lock);
    *data = p;
    return ret;
}

int store_ckpt_count(struct store *st, const char *owner, uint64_t *images, uint64_t *pages)
{
    sqlite3_stmt *s;
    int rc, ret = 0;

    *images = *pages = 0;
    if (st->pg)
        return store_pg_ckpt_count(st->pg, owner, images, pages);
    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_CKP_COUNT);
    bind_text(s, 1, owner);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
        *images = col_u64(s, 0);
        *pages = col_u64(s, 1);
    } else {
        ret = store_fail(st, rc, "counting checkpoints");
    }
    sqlite3_reset(s);
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_session_set_ckpts(struct store *st, const char *id, const char *owner)
{
    sqlite3_stmt *s;
    int ret;

    if (st->pg)
        return store_pg_session_set_ckpts(st->pg, id, owner);
    pthread_mutex_lock(&st->lock);
    s = store_stmt(st, ST_SES_CKP_SET);
    bind_text(s, 1, id);
    bind_text(s, 2, owner);
    ret = store_exec(st, s, "naming a session's checkpoints");
    if (!ret && !sqlite3_changes(st->db))
        ret = -ENOENT;
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_ckpt_delete(struct store *st, const char *owner)
{
    sqlite3_stmt *s;
    int ret;

    if (st->pg)
        return store_pg_ckpt_delete(st->pg, owner);
    pthread_mutex_lock(&st->lock);
    if (!(ret = store_begin(st))) {
        s = store_stmt(st, ST_CKP_DEL);
        bind_text(s, 1, owner);
        ret = store_exec(st, s, "deleting checkpoints");
        if (!ret) {
            s = store_stmt(st, ST_CKP_PAGE_DEL);
            bind_text(s, 1, owner);
            ret = store_exec(st, s, "deleting checkpoint pages");
        }
        ret = store_end(st, ret);
    }
    pthread_mutex_unlock(&st->lock);
    return ret;
}
