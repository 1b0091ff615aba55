/*
 * store_sqlite.c: the store's SQLite back end (store_internal.h's ops), the
 * one a file path opens: one database file in WAL mode with
 * synchronous=FULL, one connection behind the store's mutex.
 *
 * Migrations are SQL scripts, migration[i] taking PRAGMA user_version i to
 * i + 1, each in its own transaction with the version bump; they are the
 * only SQL not run as a prepared statement with bound parameters (they take
 * none).  Every query of store_queries[] (store_queries.c) is prepared
 * once when the file is opened.  Times are SQLite's own clock, ISO 8601 UTC with milliseconds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "session/store_internal.h"

static const char *const migrations[STORE_SCHEMA_VERSION] = {
        /* 0 -> 1: the tables */
        "CREATE TABLE scenarios ( id INTEGER PRIMARY KEY, name TEXT NOT NULL, hash TEXT NOT NULL,"
        " builtin INTEGER NOT NULL DEFAULT 0, text TEXT NOT NULL, created TEXT NOT NULL);"
        "CREATE INDEX scenarios_hash ON scenarios(hash);"
        "CREATE TABLE sessions ( id TEXT PRIMARY KEY, token TEXT NOT NULL,"
        " scenario INTEGER NOT NULL REFERENCES scenarios(id), settings TEXT NOT NULL,"
        " parent TEXT, position INTEGER NOT NULL DEFAULT 0, events INTEGER NOT NULL DEFAULT 0,"
        " created TEXT NOT NULL, updated TEXT NOT NULL);"
        "CREATE TABLE batches ( session TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
        " seq INTEGER NOT NULL, ops TEXT, op_limit INTEGER, PRIMARY KEY (session, seq));"
        "CREATE TABLE snapshots ( id TEXT PRIMARY KEY, token TEXT NOT NULL,"
        " title TEXT NOT NULL DEFAULT '', scenario INTEGER NOT NULL REFERENCES scenarios(id),"
        " settings TEXT NOT NULL, batches TEXT NOT NULL, position INTEGER NOT NULL,"
        " engine TEXT NOT NULL, state TEXT NOT NULL, session TEXT, created TEXT NOT NULL);",
        STORE_MIGRATE_2,
        STORE_MIGRATE_3,
        STORE_MIGRATE_4,
        /* 4 -> 5: lectures outlive a restart */
        "CREATE TABLE lectures ( id TEXT PRIMARY KEY, token TEXT NOT NULL,"
        " session TEXT NOT NULL DEFAULT '', position INTEGER NOT NULL DEFAULT 0,"
        " events INTEGER NOT NULL DEFAULT 0, ops INTEGER NOT NULL DEFAULT 0,"
        " created TEXT NOT NULL, updated TEXT NOT NULL);"
        "CREATE INDEX lectures_updated ON lectures(updated);",
        STORE_MIGRATE_6,
        /* 6 -> 7: a session's overview (session/overview.h), so a restarted
         * server answers it without replaying */
        "ALTER TABLE sessions ADD COLUMN overview BLOB;",
        /* 7 -> 8: a replayed trace's operations as a binary op log in chunks
         * (docs/oplog.md), which the session's batch 0 replays */
        "CREATE TABLE oplogs ( log TEXT NOT NULL, seq INTEGER NOT NULL, ops INTEGER NOT NULL,"
        " events INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (log, seq));"
        "ALTER TABLE sessions ADD COLUMN log TEXT;",
        /* 8 -> 9: trace replay jobs, readable from every server sharing the store */
        "CREATE TABLE trace_jobs ( id TEXT PRIMARY KEY, state TEXT NOT NULL,"
        " bytes INTEGER NOT NULL DEFAULT 0, done INTEGER NOT NULL DEFAULT 0,"
        " total INTEGER NOT NULL DEFAULT 0, events INTEGER NOT NULL DEFAULT 0,"
        " built INTEGER NOT NULL DEFAULT 0, recorded INTEGER NOT NULL DEFAULT 0,"
        " session TEXT NOT NULL DEFAULT '', token TEXT NOT NULL DEFAULT '',"
        " code TEXT NOT NULL DEFAULT '', message TEXT NOT NULL DEFAULT '', report TEXT,"
        " created TEXT NOT NULL, updated TEXT NOT NULL);"
        "CREATE INDEX trace_jobs_updated ON trace_jobs(updated);",
        /* 9 -> 10: the checkpoint disk tier (docs/api.md, "Sessions, checkpoints
         * and limits"): machine images by owner (what a run's batch 0 is),
         * image tag and position, their pages stored once per owner by hash;
         * a session names the owner it uses, so the last one deletes them */
        "CREATE TABLE ckpts ( owner TEXT NOT NULL, tag TEXT NOT NULL, seq INTEGER NOT NULL,"
        " op INTEGER NOT NULL, off INTEGER NOT NULL, meta BLOB NOT NULL, pages BLOB NOT NULL,"
        " extra BLOB, PRIMARY KEY (owner, tag, seq));"
        "CREATE TABLE ckpt_pages ( owner TEXT NOT NULL, hash BLOB NOT NULL, data BLOB NOT NULL,"
        " PRIMARY KEY (owner, hash));"
        "ALTER TABLE sessions ADD COLUMN ckpts TEXT;",
        /* 10 -> 11: any server may delete a trace job: the hash of its
         * upload's token, and the flag that asks the server running it to
         * stop; and followers' answers, tallied over every server */
        "ALTER TABLE trace_jobs ADD COLUMN owner TEXT NOT NULL DEFAULT '';"
        "ALTER TABLE trace_jobs ADD COLUMN cancel INTEGER NOT NULL DEFAULT 0;"
        "CREATE TABLE answers ( lecture TEXT NOT NULL, at INTEGER NOT NULL, voter TEXT NOT NULL,"
        " choice TEXT NOT NULL, updated TEXT NOT NULL, PRIMARY KEY (lecture, at, voter));"
        "CREATE INDEX answers_updated ON answers(updated);",
        STORE_MIGRATE_12,
};

/* The transaction statements, prepared with the queries. */
enum { TX_BEGIN, TX_COMMIT, TX_ROLLBACK, TX_BEGIN_READ, NR_TX };
/* a read transaction is deferred: it takes the WAL's read lock at its first
 * query and keeps it to its end, one lock for many reads */
static const char *const tx_sql[NR_TX] = {"BEGIN IMMEDIATE", "COMMIT", "ROLLBACK", "BEGIN"};

struct sqlite_store {
    struct store st; /* first: the store's ops and lock */
    sqlite3 *db;
    sqlite3_stmt *stmt[NR_STMTS];
    sqlite3_stmt *tx[NR_TX];
};

static struct sqlite_store *sq(struct store *st)
{
    return (struct sqlite_store *)st;
}

/* Log SQLite's complaint and return -EIO (or -EEXIST for a taken key, -ENOMEM). */
static int sq_fail(struct sqlite_store *s, int rc, const char *what)
{
    if ((rc & 0xff) == SQLITE_CONSTRAINT)
        return -EEXIST;
    if (rc == SQLITE_NOMEM)
        return -ENOMEM;
    fprintf(stderr, "slublab serve: sqlite: %s: %s\n", what, sqlite3_errmsg(s->db));
    return -EIO;
}

/* Bind parameter @i of type @type (struct store_query). */
static void sq_bind(sqlite3_stmt *s, int i, char type, const struct store_arg *a)
{
    if (type == 't' && a->p)
        sqlite3_bind_text64(s, i, a->p, a->len == SIZE_MAX ? strlen(a->p) : a->len, SQLITE_STATIC,
                            SQLITE_UTF8);
    else if (type == 'b' && a->p)
        sqlite3_bind_blob64(s, i, a->p, a->len, SQLITE_STATIC);
    else if ((type == 'u' || type == 'i') && !a->null)
        sqlite3_bind_int64(s, i, (sqlite3_int64)a->u);
    else
        sqlite3_bind_null(s, i);
}

/* The executor: one declared query, its rows to @fn. */
static int sq_run(struct store *st, enum stmt q, const struct store_arg *args, store_row_fn *fn,
                  void *arg, uint64_t *changed, const char *what)
{
    struct sqlite_store *s = sq(st);
    sqlite3_stmt *stmt = s->stmt[q];
    const char *types = store_queries[q].args;
    struct store_val col[STORE_MAX_COLS];
    int i, n = sqlite3_column_count(stmt), rc = SQLITE_DONE, ret = 0;

    for (i = 0; types[i]; i++)
        sq_bind(stmt, i + 1, types[i], &args[i]);
    while (!ret && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        for (i = 0; fn && i < n && i < STORE_MAX_COLS; i++) {
            int type = sqlite3_column_type(stmt, i);
            const void *p = type == SQLITE_NULL   ? NULL
                            : type == SQLITE_BLOB ? sqlite3_column_blob(stmt, i)
                                                  : sqlite3_column_text(stmt, i);

            /* a zero-length blob is "" here, not SQL NULL */
            col[i].p = type == SQLITE_NULL ? NULL : p ? (const char *)p : "";
            col[i].len = (size_t)sqlite3_column_bytes(stmt, i);
        }
        if (fn)
            ret = fn(arg, col, (unsigned)(n < STORE_MAX_COLS ? n : STORE_MAX_COLS));
    }
    if (!ret && rc != SQLITE_DONE)
        ret = sq_fail(s, rc, what);
    else if (!ret && changed)
        *changed = (uint64_t)sqlite3_changes(s->db);
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    return ret;
}

static int sq_tx(struct sqlite_store *s, int which)
{
    int rc = sqlite3_step(s->tx[which]);

    sqlite3_reset(s->tx[which]);
    return rc == SQLITE_DONE ? 0 : sq_fail(s, rc, tx_sql[which]);
}

static int sq_begin(struct store *st)
{
    return sq_tx(sq(st), TX_BEGIN);
}

static int sq_begin_read(struct store *st)
{
    return sq_tx(sq(st), TX_BEGIN_READ);
}

static int sq_end(struct store *st, int ret)
{
    if (ret) {
        sq_tx(sq(st), TX_ROLLBACK);
        return ret;
    }
    return sq_tx(sq(st), TX_COMMIT);
}

static int sq_migrate(struct sqlite_store *s, struct strbuf *err)
{
    sqlite3_stmt *stmt;
    char sql[64];
    int version, rc;

    if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &stmt, NULL) != SQLITE_OK) {
        strbuf_printf(err, "cannot read the schema version: %s", sqlite3_errmsg(s->db));
        return -EIO;
    }
    rc = sqlite3_step(stmt);
    version = rc == SQLITE_ROW ? sqlite3_column_int(stmt, 0) : -1;
    sqlite3_finalize(stmt);
    if (version < 0 || version > STORE_SCHEMA_VERSION) {
        strbuf_printf(err, "the database has schema version %d; this slublab knows %d at most",
                      version, STORE_SCHEMA_VERSION);
        return -EIO;
    }
    for (; version < STORE_SCHEMA_VERSION; version++) {
        snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", version + 1);
        if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK ||
            sqlite3_exec(s->db, migrations[version], NULL, NULL, NULL) != SQLITE_OK ||
            sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK ||
            sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
            strbuf_printf(err, "migration %d -> %d failed: %s", version, version + 1,
                          sqlite3_errmsg(s->db));
            sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
            return -EIO;
        }
    }
    return 0;
}

/* Prepare @sql into *out; 0, or -EIO with SQLite's words in @err. */
static int sq_prepare(struct sqlite_store *s, const char *path, const char *sql, sqlite3_stmt **out,
                      struct strbuf *err)
{
    if (sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, out, NULL) == SQLITE_OK)
        return 0;
    strbuf_printf(err, "%s: preparing \"%s\": %s", path, sql, sqlite3_errmsg(s->db));
    return -EIO;
}

static void sq_close(struct store *st)
{
    struct sqlite_store *s = sq(st);
    unsigned i;

    for (i = 0; i < NR_STMTS; i++)
        sqlite3_finalize(s->stmt[i]);
    for (i = 0; i < NR_TX; i++)
        sqlite3_finalize(s->tx[i]);
    sqlite3_close(s->db);
    free(s);
}

static int sq_open(const char *path, struct store **out, struct strbuf *err)
{
    static const char *const pragmas[] = {"PRAGMA journal_mode = WAL", "PRAGMA synchronous = FULL",
                                          "PRAGMA foreign_keys = ON",
                                          "PRAGMA busy_timeout = 10000"};
    struct sqlite_store *s = calloc(1, sizeof(*s));
    unsigned i;
    int rc;

    if (!s)
        return -ENOMEM;
    rc = sqlite3_open_v2(path, &s->db,
                         SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, NULL);
    if (rc != SQLITE_OK) {
        strbuf_printf(err, "%s: %s", path, s->db ? sqlite3_errmsg(s->db) : "cannot open");
        goto err_close;
    }
    for (i = 0; i < sizeof(pragmas) / sizeof(pragmas[0]); i++) {
        if (sqlite3_exec(s->db, pragmas[i], NULL, NULL, NULL) != SQLITE_OK) {
            strbuf_printf(err, "%s: %s: %s", path, pragmas[i], sqlite3_errmsg(s->db));
            goto err_close;
        }
    }
    if (sq_migrate(s, err))
        goto err_close;
    for (i = 0; i < NR_STMTS; i++) {
        if (sq_prepare(s, path, store_queries[i].sql, &s->stmt[i], err))
            goto err_close;
    }
    for (i = 0; i < NR_TX; i++) {
        if (sq_prepare(s, path, tx_sql[i], &s->tx[i], err))
            goto err_close;
    }
    *out = &s->st;
    return 0;

err_close:
    sq_close(&s->st);
    return -EIO;
}

const struct store_ops store_sqlite_ops = {
        .name = "sqlite",
        .shared = false,
        .handles = NULL, /* any name not taken by another back end: a file */
        .open = sq_open,
        .close = sq_close,
        .run = sq_run,
        .begin = sq_begin,
        .end = sq_end,
        .begin_read = sq_begin_read,
};
