/*
 * store_pg.c: the store in PostgreSQL, through libpq (see store_pg.h).
 *
 * The same tables and the same migrations as the SQLite store, in
 * PostgreSQL's words (BIGINT counters, BIGSERIAL scenario ids, times as
 * the same ISO 8601 UTC text); the version lives in slublab_schema, and a
 * migration holds an advisory lock so servers starting together migrate
 * once.  Statements are prepared once per connection with text parameters.
 * One connection serves every thread behind the store's mutex, as SQLite's
 * does; a connection that broke is reset (and its statements prepared
 * again) once before a call gives up.
 */
#include "session/store_pg.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "base/ids.h"
#include "base/json.h"
#include "session/store_internal.h"

#define NOW "to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
#define DAYS_AGO(p)                                                                \
    "to_char((clock_timestamp() - " p "::bigint * interval '1 day') AT TIME ZONE " \
    "'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
#define SECONDS_AGO(p)                                                                \
    "to_char((clock_timestamp() - " p "::bigint * interval '1 second') AT TIME ZONE " \
    "'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
#define MIGRATION_LOCK "SELECT pg_advisory_xact_lock(5140001)"
#define CHANNEL        "slublab" /* store_notify()'s LISTEN/NOTIFY channel */
#define ORIGIN_LEN     12        /* a server's mark on its messages, in ids_random() characters */
/* seconds to wait for a connection when the URL does not say (connect_timeout) */
#define CONNECT_TIMEOUT "5"

/* migration[i] takes version i to i + 1, as the SQLite store's do */
static const char *const migrations[STORE_SCHEMA_VERSION] = {
        "CREATE TABLE scenarios ("
        " id BIGSERIAL PRIMARY KEY, name TEXT NOT NULL, hash TEXT NOT NULL,"
        " builtin INTEGER NOT NULL DEFAULT 0, text TEXT NOT NULL, created TEXT NOT NULL);"
        "CREATE INDEX scenarios_hash ON scenarios(hash);"
        "CREATE TABLE sessions ("
        " id TEXT PRIMARY KEY, token TEXT NOT NULL,"
        " scenario BIGINT NOT NULL REFERENCES scenarios(id), settings TEXT NOT NULL,"
        " parent TEXT, position BIGINT NOT NULL DEFAULT 0, events BIGINT NOT NULL DEFAULT 0,"
        " created TEXT NOT NULL, updated TEXT NOT NULL);"
        "CREATE TABLE batches ("
        " session TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,"
        " seq BIGINT NOT NULL, ops TEXT, op_limit BIGINT, PRIMARY KEY (session, seq));"
        "CREATE TABLE snapshots ("
        " id TEXT PRIMARY KEY, token TEXT NOT NULL, title TEXT NOT NULL DEFAULT '',"
        " scenario BIGINT NOT NULL REFERENCES scenarios(id), settings TEXT NOT NULL,"
        " batches TEXT NOT NULL, position BIGINT NOT NULL, engine TEXT NOT NULL,"
        " state TEXT NOT NULL, session TEXT, created TEXT NOT NULL);",
        "CREATE INDEX sessions_created ON sessions(created);"
        "CREATE INDEX snapshots_created ON snapshots(created);",
        "ALTER TABLE snapshots ADD COLUMN check_engine TEXT;"
        "ALTER TABLE snapshots ADD COLUMN check_status TEXT;"
        "ALTER TABLE snapshots ADD COLUMN check_warning TEXT;",
        "ALTER TABLE snapshots ADD COLUMN published INTEGER NOT NULL DEFAULT 0;"
        "CREATE INDEX snapshots_published ON snapshots(published, created);",
        "CREATE TABLE lectures ("
        " id TEXT PRIMARY KEY, token TEXT NOT NULL, session TEXT NOT NULL DEFAULT '',"
        " position BIGINT NOT NULL DEFAULT 0, events BIGINT NOT NULL DEFAULT 0,"
        " ops BIGINT NOT NULL DEFAULT 0, created TEXT NOT NULL, updated TEXT NOT NULL);"
        "CREATE INDEX lectures_updated ON lectures(updated);",
        "ALTER TABLE sessions ADD COLUMN engine TEXT;",
        "ALTER TABLE sessions ADD COLUMN overview BYTEA;",
        "CREATE TABLE oplogs ("
        " log TEXT NOT NULL, seq BIGINT NOT NULL, ops BIGINT NOT NULL, events BIGINT NOT NULL,"
        " data BYTEA NOT NULL, PRIMARY KEY (log, seq));"
        "ALTER TABLE sessions ADD COLUMN log TEXT;",
        "CREATE TABLE trace_jobs ("
        " id TEXT PRIMARY KEY, state TEXT NOT NULL, bytes BIGINT NOT NULL DEFAULT 0,"
        " done BIGINT NOT NULL DEFAULT 0, total BIGINT NOT NULL DEFAULT 0,"
        " events BIGINT NOT NULL DEFAULT 0, built BIGINT NOT NULL DEFAULT 0,"
        " recorded BIGINT NOT NULL DEFAULT 0, session TEXT NOT NULL DEFAULT '',"
        " token TEXT NOT NULL DEFAULT '', code TEXT NOT NULL DEFAULT '',"
        " message TEXT NOT NULL DEFAULT '', report TEXT, created TEXT NOT NULL,"
        " updated TEXT NOT NULL);"
        "CREATE INDEX trace_jobs_updated ON trace_jobs(updated);",
        "CREATE TABLE ckpts ("
        " owner TEXT NOT NULL, tag TEXT NOT NULL, seq BIGINT NOT NULL, op BIGINT NOT NULL,"
        " off BIGINT NOT NULL, meta BYTEA NOT NULL, pages BYTEA NOT NULL, extra BYTEA,"
        " PRIMARY KEY (owner, tag, seq));"
        "CREATE TABLE ckpt_pages ("
        " owner TEXT NOT NULL, hash BYTEA NOT NULL, data BYTEA NOT NULL,"
        " PRIMARY KEY (owner, hash));"
        "ALTER TABLE sessions ADD COLUMN ckpts TEXT;",
        "ALTER TABLE trace_jobs ADD COLUMN owner TEXT NOT NULL DEFAULT '';"
        "ALTER TABLE trace_jobs ADD COLUMN cancel INTEGER NOT NULL DEFAULT 0;"
        "CREATE TABLE answers ("
        " lecture TEXT NOT NULL, at BIGINT NOT NULL, voter TEXT NOT NULL, choice TEXT NOT NULL,"
        " updated TEXT NOT NULL, PRIMARY KEY (lecture, at, voter));"
        "CREATE INDEX answers_updated ON answers(updated);",
};

/*
 * PostgreSQL's words for the statements whose SQLite text does not carry
 * over; the others are store_sql[] with ?N written $N and SQLite's "now"
 * written as NOW above (pg_sql()).
 */
static const char *const pg_override[NR_STMTS] = {
        [ST_SCN_INSERT] = "INSERT INTO scenarios (name, hash, builtin, text, created)"
                          " VALUES ($1, $2, $3, $4, " NOW ") RETURNING id",
        [ST_SNP_LIST_FOR] = "SELECT n.id, n.title, c.name, n.session, n.position, n.engine,"
                            " n.created, n.published, n.token"
                            " FROM snapshots n JOIN scenarios c ON c.id = n.scenario"
                            " WHERE n.published = 1"
                            " OR n.id IN (SELECT json_array_elements_text($1::json))"
                            " ORDER BY n.created DESC, n.id",
        [ST_SES_OLD] = "SELECT id FROM sessions WHERE updated < " DAYS_AGO(
                "$1") " ORDER BY updated LIMIT $2::bigint",
        [ST_SNP_EXPIRE] = "DELETE FROM snapshots WHERE created < " DAYS_AGO("$1"),
        [ST_LOG_PUT] = "INSERT INTO oplogs (log, seq, ops, events, data)"
                       " VALUES ($1, $2, $3, $4, $5)"
                       " ON CONFLICT (log, seq) DO UPDATE SET ops = EXCLUDED.ops,"
                       " events = EXCLUDED.events, data = EXCLUDED.data",
        [ST_LOG_LAST] = "SELECT octet_length(data) FROM oplogs WHERE log = $1"
                        " ORDER BY seq DESC LIMIT 1",
        [ST_CKP_PAGE_PUT] = "INSERT INTO ckpt_pages (owner, hash, data) VALUES ($1, $2, $3)"
                            " ON CONFLICT (owner, hash) DO NOTHING",
        [ST_CKP_PUT] = "INSERT INTO ckpts (owner, tag, seq, op, off, meta, pages, extra)"
                       " VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
                       " ON CONFLICT (owner, tag, seq) DO UPDATE SET op = EXCLUDED.op,"
                       " off = EXCLUDED.off, meta = EXCLUDED.meta, pages = EXCLUDED.pages,"
                       " extra = EXCLUDED.extra",
        [ST_CKP_LIST] = "SELECT seq, op, off, CASE WHEN extra IS NULL THEN 0 ELSE 1 END"
                        " FROM ckpts WHERE owner = $1 AND tag = $2 ORDER BY seq",
        [ST_JOB_STALE] = "UPDATE trace_jobs SET state = 'failed', code = 'internal', message = $2,"
                         " updated = " NOW " WHERE state IN ('replaying', 'building')"
                         " AND cancel = 0 AND updated < " SECONDS_AGO("$1"),
        [ST_JOB_EXPIRE] = "DELETE FROM trace_jobs WHERE (cancel = 1 AND updated < " SECONDS_AGO(
                "$1") ") OR ($2::bigint > 0 AND state IN ('done', 'failed') AND updated "
                      "< " SECONDS_AGO("$2") ")",
        /* byte order, as the SQLite store and the in-memory tally sort */
        [ST_ANS_TALLY] = "SELECT choice, count(*) FROM answers WHERE lecture = $1 AND at = $2"
                         " GROUP BY choice ORDER BY choice COLLATE \"C\"",
        [ST_ANS_EXPIRE] = "DELETE FROM answers WHERE updated < " SECONDS_AGO("$1"),
};

/* Statement @which in PostgreSQL's words, into @buf; NULL when @buf is too small. */
static const char *pg_sql(enum stmt which, char *buf, size_t size)
{
    const char *in = store_sql[which], *now = STORE_SQLITE_NOW;
    size_t len = 0, nl = strlen(now);

    if (pg_override[which])
        return pg_override[which];
    while (*in && len + sizeof(NOW) + 2 < size) {
        if (!strncmp(in, now, nl)) {
            len += (size_t)snprintf(buf + len, size - len, "%s", NOW);
            in += nl;
        } else {
            buf[len++] = *in == '?' ? '$' : *in;
            in++;
        }
    }
    buf[len] = '\0';
    return *in ? NULL : buf;
}

struct store_listener;

struct store_pg {
    PGconn *conn;
    pthread_mutex_t lock; /* one statement at a time on conn */
    char *url;
    bool in_tx; /* between BEGIN and its end: a lost connection lost the transaction too */
    atomic_bool available; /* false: the last call found conn broken and could not reset it */
    char origin[ORIGIN_LEN + 1];    /* what this server's messages start with */
    struct store_listener *listener; /* store_pg_listen()'s thread, or NULL */
};

/* A connection to @url, with CONNECT_TIMEOUT unless the URL says otherwise. */
static PGconn *pg_connect(const char *url)
{
    /* later keywords override what the URL expanded before them */
    static const char *const keys[] = {"connect_timeout", "dbname", NULL};
    const char *vals[] = {CONNECT_TIMEOUT, url, NULL};

    return PQconnectdbParams(keys, vals, 1);
}

/* A statement's parameters as text (NULL for SQL NULL). */
struct pq_args {
    const char *v[16];
    int len[16];
    int fmt[16]; /* 1: binary (v[i] has len[i] bytes) */
    char num[16][24];
    int n;
};

static void arg_bin(struct pq_args *a, const void *data, size_t len)
{
    a->len[a->n] = (int)len;
    a->fmt[a->n] = 1;
    a->v[a->n++] = len ? data : "";
}

static void arg_text(struct pq_args *a, const char *s)
{
    a->len[a->n] = 0;
    a->fmt[a->n] = 0;
    a->v[a->n++] = s;
}

static void arg_u64(struct pq_args *a, uint64_t x)
{
    snprintf(a->num[a->n], sizeof(a->num[0]), "%" PRIu64, x);
    arg_text(a, a->num[a->n]);
}

static void arg_i64(struct pq_args *a, int64_t x)
{
    snprintf(a->num[a->n], sizeof(a->num[0]), "%" PRId64, x);
    arg_text(a, a->num[a->n]);
}

static int pg_prepare_all(struct store_pg *pg, struct strbuf *err)
{
    unsigned i;

    for (i = 0; i < NR_STMTS; i++) {
        char name[16], text[2048];
        const char *sql;
        PGresult *r;

        if (i == ST_BEGIN || i == ST_COMMIT || i == ST_ROLLBACK)
            continue; /* pg_plain() runs those */
        if (!(sql = pg_sql((enum stmt)i, text, sizeof(text)))) {
            if (err)
                strbuf_printf(err, "statement %u is longer than %zu bytes", i, sizeof(text));
            return -EIO;
        }
        snprintf(name, sizeof(name), "s%u", i);
        r = PQprepare(pg->conn, name, sql, 0, NULL);
        if (PQresultStatus(r) != PGRES_COMMAND_OK) {
            if (err)
                strbuf_printf(err, "preparing \"%s\": %s", sql, PQerrorMessage(pg->conn));
            PQclear(r);
            return -EIO;
        }
        PQclear(r);
    }
    return 0;
}

/*
 * Did @r fail because the connection did (the server went away, is
 * shutting down, or never answered)?  libpq may still call the connection
 * OK then: it learns otherwise on the next call.
 */
static bool pg_lost(const PGconn *conn, const PGresult *r)
{
    const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;

    return PQstatus(conn) != CONNECTION_OK || !state || !strncmp(state, "08", 2) ||
           !strncmp(state, "57P", 3);
}

/* Open the connection again after pg_lost(); true when it is back. */
static bool pg_reconnect(struct store_pg *pg)
{
    PQreset(pg->conn);
    return PQstatus(pg->conn) == CONNECTION_OK && !pg_prepare_all(pg, NULL);
}

/*
 * Run prepared statement @which.  Returns the result (PQclear() it) when it
 * succeeded, else NULL with *ret set: -EEXIST for a taken key, -EIO after
 * logging PostgreSQL's words.  A broken connection is reset once.
 */
static PGresult *pg_run(struct store_pg *pg, enum stmt which, const struct pq_args *a,
                        const char *what, int *ret)
{
    int formats[16] = {0}, attempt;
    bool lost = false;
    char name[16];

    snprintf(name, sizeof(name), "s%u", (unsigned)which);
    for (attempt = 0; attempt < 2; attempt++) {
        PGresult *r = PQexecPrepared(pg->conn, name, a ? a->n : 0, a ? a->v : NULL,
                                     a ? a->len : NULL, a ? a->fmt : formats, 0);
        ExecStatusType st = PQresultStatus(r);
        const char *state;

        if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
            atomic_store(&pg->available, true);
            *ret = 0;
            return r;
        }
        state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
        if (state && !strcmp(state, "23505")) { /* unique_violation */
            PQclear(r);
            *ret = -EEXIST;
            return NULL;
        }
        lost = pg_lost(pg->conn, r);
        PQclear(r);
        /* never redone on a new connection inside a transaction: the rest of it is gone */
        if (attempt || !lost || pg->in_tx)
            break;
        /* the server went away and may be back */
        if (!pg_reconnect(pg))
            break;
        lost = false;
    }
    atomic_store(&pg->available, !lost);
    fprintf(stderr, "slublab serve: postgresql: %s: %s", what, PQerrorMessage(pg->conn));
    *ret = -EIO;
    return NULL;
}

/* Run a statement that returns no rows; *changed (when not NULL) gets the rows it touched. */
static int pg_exec(struct store_pg *pg, enum stmt which, const struct pq_args *a, const char *what,
                   uint64_t *changed)
{
    int ret;
    PGresult *r = pg_run(pg, which, a, what, &ret);

    if (!r)
        return ret;
    if (changed)
        *changed = strtoull(PQcmdTuples(r), NULL, 10);
    PQclear(r);
    return 0;
}

/* Plain SQL (transactions, migrations); 0 or -EIO with PostgreSQL's words in @err. */
static int pg_plain(struct store_pg *pg, const char *sql, struct strbuf *err)
{
    bool begin = !strcmp(sql, "BEGIN"), lost;
    PGresult *r = PQexec(pg->conn, sql);
    ExecStatusType st = PQresultStatus(r);

    lost = st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && pg_lost(pg->conn, r);
    PQclear(r);
    /* a transaction may begin on a new connection (never commit on one) */
    if (lost && begin && pg_reconnect(pg)) {
        r = PQexec(pg->conn, sql);
        st = PQresultStatus(r);
        lost = st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && pg_lost(pg->conn, r);
        PQclear(r);
    }
    atomic_store(&pg->available, !lost);
    if (begin || !strcmp(sql, "COMMIT") || !strcmp(sql, "ROLLBACK"))
        pg->in_tx = begin && (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK);
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
        return 0;
    if (err)
        strbuf_printf(err, "%s", PQerrorMessage(pg->conn));
    else
        fprintf(stderr, "slublab serve: postgresql: %s", PQerrorMessage(pg->conn));
    return -EIO;
}

static char *val_dup(const PGresult *r, int row, int col)
{
    return PQgetisnull(r, row, col) ? NULL : strdup(PQgetvalue(r, row, col));
}

static void val_copy(const PGresult *r, int row, int col, char *buf, size_t size)
{
    snprintf(buf, size, "%s", PQgetisnull(r, row, col) ? "" : PQgetvalue(r, row, col));
}

static uint64_t val_u64(const PGresult *r, int row, int col)
{
    const char *v = PQgetvalue(r, row, col);

    return v[0] == '-' ? 0 : strtoull(v, NULL, 10);
}

bool store_pg_url(const char *db)
{
    return !strncmp(db, "postgresql://", 13) || !strncmp(db, "postgres://", 11);
}

static int pg_migrate(struct store_pg *pg, struct strbuf *err)
{
    int version;

    if (pg_plain(pg, "BEGIN", err) || pg_plain(pg, MIGRATION_LOCK, err) ||
        pg_plain(pg, "CREATE TABLE IF NOT EXISTS slublab_schema (version INTEGER NOT NULL)", err) ||
        pg_plain(pg,
                 "INSERT INTO slublab_schema SELECT 0"
                 " WHERE NOT EXISTS (SELECT 1 FROM slublab_schema)",
                 err))
        goto err_rollback;
    {
        PGresult *r = PQexec(pg->conn, "SELECT version FROM slublab_schema");

        version = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1
                          ? atoi(PQgetvalue(r, 0, 0))
                          : -1;
        PQclear(r);
    }
    if (version < 0 || version > STORE_SCHEMA_VERSION) {
        strbuf_printf(err, "the database has schema version %d; this slublab knows %d at most",
                      version, STORE_SCHEMA_VERSION);
        goto err_rollback;
    }
    for (; version < STORE_SCHEMA_VERSION; version++) {
        char sql[64];

        snprintf(sql, sizeof(sql), "UPDATE slublab_schema SET version = %d", version + 1);
        if (pg_plain(pg, migrations[version], err) || pg_plain(pg, sql, err)) {
            strbuf_printf(err, " (migration %d -> %d)", version, version + 1);
            goto err_rollback;
        }
    }
    return pg_plain(pg, "COMMIT", err);

err_rollback:
    pg_plain(pg, "ROLLBACK", NULL);
    return -EIO;
}

int store_pg_open(const char *url, struct store_pg **out, struct strbuf *err)
{
    struct store_pg *pg = calloc(1, sizeof(*pg));

    if (!pg)
        return -ENOMEM;
    if (pthread_mutex_init(&pg->lock, NULL)) {
        free(pg);
        return -ENOMEM;
    }
    atomic_init(&pg->available, true);
    if (!(pg->url = strdup(url)) || ids_random(pg->origin, ORIGIN_LEN)) {
        strbuf_puts(err, pg->url ? "no randomness for the server's mark" : "out of memory");
        goto err_close;
    }
    pg->conn = pg_connect(url);
    if (!pg->conn || PQstatus(pg->conn) != CONNECTION_OK) {
        strbuf_printf(err, "cannot connect: %s",
                      pg->conn ? PQerrorMessage(pg->conn) : "out of memory");
        goto err_close;
    }
    /* notices ("relation already exists, skipping") are not errors */
    if (pg_plain(pg, "SET client_min_messages = warning", err) || pg_migrate(pg, err) ||
        pg_prepare_all(pg, err))
        goto err_close;
    *out = pg;
    return 0;

err_close:
    store_pg_close(pg);
    return -EIO;
}

void store_pg_close(struct store_pg *pg)
{
    if (!pg)
        return;
    store_pg_unlisten(pg);
    PQfinish(pg->conn);
    pthread_mutex_destroy(&pg->lock);
    free(pg->url);
    free(pg);
}

int store_pg_scenario_put(struct store_pg *pg, const char *name, const char *hash, const char *text,
                          size_t len, bool builtin, int64_t *id)
{
    struct pq_args a = {.n = 0};
    char *copy = strndup(text, len); /* text parameters end at a NUL */
    PGresult *r;
    int ret;

    if (!copy)
        return -ENOMEM;
    pthread_mutex_lock(&pg->lock);
    arg_text(&a, hash);
    arg_text(&a, copy);
    if (!(r = pg_run(pg, ST_SCN_FIND, &a, "finding a scenario", &ret)))
        goto out_unlock;
    if (PQntuples(r) == 0) {
        PQclear(r);
        a.n = 0;
        arg_text(&a, name);
        arg_text(&a, hash);
        arg_text(&a, builtin ? "1" : "0");
        arg_text(&a, copy);
        if (!(r = pg_run(pg, ST_SCN_INSERT, &a, "storing a scenario", &ret)))
            goto out_unlock;
    }
    *id = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
    PQclear(r);
out_unlock:
    pthread_mutex_unlock(&pg->lock);
    free(copy);
    return ret;
}

static int pg_insert_batch(struct store_pg *pg, const char *id, size_t seq,
                           const struct store_batch *b)
{
    struct pq_args a = {.n = 0};

    arg_text(&a, id);
    arg_u64(&a, seq);
    arg_text(&a, b->ops);
    if (b->limit == UINT64_MAX)
        arg_text(&a, NULL);
    else
        arg_u64(&a, b->limit);
    return pg_exec(pg, ST_BAT_INSERT, &a, "storing a batch", NULL);
}

/* COMMIT, or ROLLBACK when @ret is an error (returned). */
static int pg_end(struct store_pg *pg, int ret)
{
    if (ret) {
        pg_plain(pg, "ROLLBACK", NULL);
        return ret;
    }
    return pg_plain(pg, "COMMIT", NULL);
}

int store_pg_session_create(struct store_pg *pg, const struct store_session *ss)
{
    struct pq_args a = {.n = 0};
    size_t i;
    int ret;

    pthread_mutex_lock(&pg->lock);
    if ((ret = pg_plain(pg, "BEGIN", NULL)))
        goto out_unlock;
    arg_text(&a, ss->id);
    arg_text(&a, ss->token);
    arg_i64(&a, ss->scenario);
    arg_text(&a, ss->settings);
    arg_text(&a, ss->parent[0] ? ss->parent : NULL);
    arg_u64(&a, ss->position);
    arg_u64(&a, ss->events);
    arg_text(&a, ss->engine[0] ? ss->engine : NULL);
    arg_text(&a, ss->log[0] ? ss->log : NULL);
    ret = pg_exec(pg, ST_SES_INSERT, &a, "storing a session", NULL);
    for (i = 0; !ret && i < ss->nr_batches; i++)
        ret = pg_insert_batch(pg, ss->id, i, &ss->batches[i]);
    ret = pg_end(pg, ret);
out_unlock:
    pthread_mutex_unlock(&pg->lock);
    return ret;
}

int store_pg_session_add_batch(struct store_pg *pg, const char *id, size_t seq,
                               const struct store_batch *b, uint64_t events)
{
    struct pq_args a = {.n = 0};
    int ret;

    pthread_mutex_lock(&pg->lock);
    if ((ret = pg_plain(pg, "BEGIN", NULL)))
        goto out_unlock;
    ret = pg_insert_batch(pg, id, seq, b);
    if (!ret) {
        arg_text(&a, id);
        arg_u64(&a, events);
        ret = pg_exec(pg, ST_SES_EVENTS, &a, "updating a session", NULL);
    }
    ret = pg_end(pg, ret);
out_unlock:
    pthread_mutex_unlock(&pg->lock);
    return ret;
}

/* A statement on one row by id with an optional second value; -ENOENT when it touched none. */
static int pg_by_id(struct store_pg *pg, enum stmt which, const char *id, const char *value,
                    const char *what)
{
    struct pq_args a = {.n = 0};
    uint64_t changed = 0;
    int ret;

    arg_text(&a, id);
    if (value)
        arg_text(&a, value);
    pthread_mutex_lock(&pg->lock);
    ret = pg_exec(pg, which, &a, what, &changed);
    pthread_mutex_unlock(&pg->lock);
    return ret ? ret : changed ? 0 : -ENOENT;
}

int store_pg_session_set_position(struct store_pg *pg, const char *id, uint64_t position)
{
    char v[24];
    int ret;

    snprintf(v, sizeof(v), "%" PRIu64, position);
    ret = pg_by_id(pg, ST_SES_POS, id, v, "updating a position");
    return ret == -ENOENT ? 0 : ret; /* as the SQLite store: a gone session is no error */
}

/* bytea travels as text in its hex form, "\\x" and two digits a byte */
int store_pg_session_set_overview(struct store_pg *pg, const char *id, const void *data, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = data;
    char *text = malloc(2 * len + 3);
    size_t i;
    int ret;

    if (!text)
        return -ENOMEM;
    text[0] = '\\';
    text[1] = 'x';
    for (i = 0; i < len; i++) {
        text[2 + 2 * i] = hex[p[i] >> 4];
        text[3 + 2 * i] = hex[p[i] & 15];
    }
    text[2 + 2 * len] = '\0';
    ret = pg_by_id(pg, ST_SES_OV_SET, id, text, "keeping an overview");
    free(text);
    return ret == -ENOENT ? 0 : ret;
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int store_pg_session_overview(struct store_pg *pg, const char *id, unsigned char **data,
                              size_t *len)
{
    struct pq_args a = {.n = 0};
    const char *v;
    PGresult *r;
    size_t n, i;
    int ret;

    arg_text(&a, id);
    pthread_mutex_lock(&pg->lock);
    r = pg_run(pg, ST_SES_OV_GET, &a, "reading an overview", &ret);
    pthread_mutex_unlock(&pg->lock);
    if (!r)
        return ret;
    if (PQntuples(r) != 1 || PQgetisnull(r, 0, 0) || strncmp(v = PQgetvalue(r, 0, 0), "\\x", 2)) {
        PQclear(r);
        return -ENOENT;
    }
    n = (strlen(v) - 2) / 2;
    if (!(*data = malloc(n ? n : 1))) {
        PQclear(r);
        return -ENOMEM;
    }
    for (i = 0, ret = 0; i < n && !ret; i++) {
        int hi = hex_digit(v[2 + 2 * i]), lo = hex_digit(v[3 + 2 * i]);

        if (hi < 0 || lo < 0)
            ret = -EIO;
        else
            (*data)[i] = (unsigned char)(hi << 4 | lo);
    }
    PQclear(r);
    if (ret) {
        free(*data);
        *data = NULL;
        return ret;
    }
    *len = n;
    return 0;
}

int store_pg_session_load(struct store_pg *pg, const char *id, struct store_session *out)
{
    struct pq_args a = {.n = 0};
    PGresult *r;
    int ret, i, n;

    memset(out, 0, sizeof(*out));
    arg_text(&a, id);
    pthread_mutex_lock(&pg->lock);
    if (!(r = pg_run(pg, ST_SES_GET, &a, "loading a session", &ret)))
        goto out_unlock;
    if (PQntuples(r) != 1) {
        PQclear(r);
        ret = -ENOENT;
        goto out_unlock;
    }
    snprintf(out->id, sizeof(out->id), "%s", id);
    val_copy(r, 0, 0, out->token, sizeof(out->token));
    out->scenario = strtoll(PQgetvalue(r, 0, 1), NULL, 10);
    out->settings = val_dup(r, 0, 2);
    val_copy(r, 0, 3, out->parent, sizeof(out->parent));
    out->position = val_u64(r, 0, 4);
    out->events = val_u64(r, 0, 5);
    val_copy(r, 0, 6, out->created, sizeof(out->created));
    out->scenario_name = val_dup(r, 0, 7);
    out->scenario_text = val_dup(r, 0, 8);
    val_copy(r, 0, 9, out->engine, sizeof(out->engine));
    val_copy(r, 0, 10, out->log, sizeof(out->log));
    PQclear(r);
    if (!out->settings || !out->scenario_name || !out->scenario_text) {
        ret = -ENOMEM;
        goto out_unlock;
    }
    if (!(r = pg_run(pg, ST_BAT_GET, &a, "loading batches", &ret)))
        goto out_unlock;
    n = PQntuples(r);
    if (n && !(out->batches = calloc((size_t)n, sizeof(*out->batches))))
        ret = -ENOMEM;
    for (i = 0; !ret && i < n; i++) {
        struct store_batch *b = &out->batches[out->nr_batches++];

        b->ops = val_dup(r, i, 0);
        b->limit = PQgetisnull(r, i, 1) ? UINT64_MAX : val_u64(r, i, 1);
        if (!b->ops && !PQgetisnull(r, i, 0))
            ret = -ENOMEM;
    }
    PQclear(r);
out_unlock:
    pthread_mutex_unlock(&pg->lock);
    if (ret)
        store_session_free(out);
    return ret;
}

int store_pg_session_batches(struct store_pg *pg, const char *id, uint64_t *nr)
{
    struct pq_args a = {.n = 0};
    PGresult *r;
    int ret;

    arg_text(&a, id);
    pthread_mutex_lock(&pg->lock);
    r = pg_run(pg, ST_BAT_COUNT, &a, "counting batches", &ret);
    pthread_mutex_unlock(&pg->lock);
    if (r)
        *nr = val_u64(r, 0, 0);
    PQclear(r);
    return ret;
}

int store_pg_session_delete(struct store_pg *pg, const char *id)
{
    char owner[STORE_CKPT_OWNER_LEN + 1];
    struct store_session ss;
    int ret, loaded;

    /* the log it replays goes with the last session replaying it */
    loaded = store_pg_session_load(pg, id, &ss);
    if (loaded && loaded != -ENOENT)
        return loaded;
    if (!loaded && (ret = store_pg_session_ckpts(pg, id, owner)))
        goto out_free;
    ret = pg_by_id(pg, ST_SES_DEL, id, NULL, "deleting");
    if (!ret && !loaded && ss.log[0])
        ret = store_pg_oplog_delete(pg, ss.log);
    if (!ret && !loaded && owner[0])
        ret = store_pg_ckpt_delete(pg, owner);
out_free:
    if (!loaded)
        store_session_free(&ss);
    return ret;
}

int store_pg_oplog_put(struct store_pg *pg, const char *log, uint64_t seq, const uint8_t *data,
                       size_t len, uint64_t ops, uint64_t events)
{
    struct pq_args a = {.n = 0};
    int ret;

    if (len > INT32_MAX)
        return -EINVAL;
    arg_text(&a, log);
    arg_u64(&a, seq);
    arg_u64(&a, ops);
    arg_u64(&a, events);
    arg_bin(&a, data, len);
    pthread_mutex_lock(&pg->lock);
    ret = pg_exec(pg, ST_LOG_PUT, &a, "storing an op log chunk", NULL);
    pthread_mutex_unlock(&pg->lock);
    return ret;
}

int store_pg_oplog_get(struct store_pg *pg, const char *log, uint64_t seq, uint8_t **data,
                       size_t *len)
{
    struct pq_args a = {.n = 0};
    unsigned char *bytes;
    PGresult *r;
    size_t n;
    int ret;

    *data = NULL;
    *len = 0;
    arg_text(&a, log);
    arg_u64(&a, seq);
    pthread_mutex_lock(&pg->lock);
    r = pg_run(pg, ST_LOG_GET, &a, "loading an op log chunk", &ret);
    pthread_mutex_unlock(&pg->lock);
    if (!r)
        return ret;
    if (PQntuples(r) != 1) {
        PQclear(r);
        return -ENOENT;
    }
    bytes = PQunescapeBytea((const unsigned char *)PQgetvalue(r, 0, 0), &n);
    PQclear(r);
    if (!bytes)
        return -ENOMEM;
    *data = malloc(n ? n : 1);
    if (*data)
        memcpy(*data, bytes, n);
    PQfreemem(bytes);
    if (!*data)
        return -ENOMEM;
    *len = n;
    return 0;
}

int store_pg_oplog_info(struct store_pg *pg, const char *log, uint64_t *chunks, uint64_t *ops,
                        uint64_t *events, size_t *last_len)
{
    struct pq_args a = {.n = 0};
    PGresult *r;
    int ret;

    *chunks = *ops = *events = 0;
    *last_len = 0;
    arg_text(&a, log);
    pthread_mutex_lock(&pg->lock);
    r = pg_run(pg, ST_LOG_INFO, &a, "reading an op log", &ret);
    if (r) {
        *chunks = val_u64(r, 0, 0);
        *ops = val_u64(r, 0, 1);
        *events = val_u64(r, 0, 2);
        PQclear(r);
        if (*chunks && (r = pg_run(pg, ST_LOG_LAST, &a, "reading an op log", &ret))) {
            *last_len = PQntuples(r) ? (size_t)val_u64(r, 0, 0) : 0;
            PQclear(r);
        }
    }
    pthread_mutex_unlock(&pg->lock);
    return ret;
}

int store_pg_oplog_delete(struct store_pg *pg, const char *log)
{
    struct pq_args a = {.n = 0};
    int ret;

    arg_text(&a, log);
    pthread_mutex_lock(&pg->lock);
    ret = pg_exec(pg, ST_LOG_DEL, &a, "deleting an op log", NULL);
    pthread_mutex_unlock(&pg->lock);
    return ret;
}

/* A list statement (LIMIT $1 OFFSET $2) and its count, as store_list_json() shapes them. */
static int pg_list(struct store_pg *pg, enum stmt which, enum stmt count, const char *key,
                   const char *const *cols, unsigned ints, unsigned limit, unsigned offset,
                   cJSON **out)
{
    struct pq_args a = {.n = 0};
    PGresult *r, *c = NULL;
    const char *vals[16];
    cJSON *o = NULL, *arr = NULL;
    int ret, i, k, ncols;

    arg_u64(&a, limit);
    arg_u64(&a, offset);
    pthread_mutex_lock(&pg->lock);
    if (!(r = pg_run(pg, which, &a, "listing", &ret)) ||
        !(c = pg_run(pg, count, NULL, "counting", &ret)))
        goto out_unlock;
    ret = store_list_start(key, &o, &arr);
    ncols = PQnfields(r);
    for (i = 0; !ret && i < PQntuples(r); i++) {
        for (k = 0; k < ncols && k < 16; k++)
            vals[k] = PQgetisnull(r, i, k) ? NULL : PQgetvalue(r, i, k);
        ret = store_list_row(arr, cols, ints, vals);
    }
    if (!ret)
        ret = store_list_total(o, val_u64(c, 0, 0));
out_unlock:
    pthread_mutex_unlock(&pg->lock);
    PQclear(r);
    PQclear(c);
    if (ret) {
        cJSON_Delete(o);
        return ret;
    }
    *out = o;
    return 0;
}

int store_pg_session_list(struct store_pg *pg, unsigned limit, unsigned offset, cJSON **out)
{
    return pg_list(pg, ST_SES_LIST, ST_SES_COUNT, "sessions", store_session_cols,
                   STORE_SESSION_INTS, limit, offset, out);
}

int store_pg_snapshot_set_check(struct store_pg *pg, const char *id, const char *engine,
                                const char *status, const char *warning)
{
    struct pq_args a = {.n = 0};
    uint64_t changed = 0;
    int ret;

    arg_text(&a, id);
    arg_text(&a, engine);
    arg_text(&a, status);
    arg_text(&a, warning);
    pthread_mutex_lock(&pg->lock);
    ret = pg_exec(pg, ST_SNP_CHECK, &a, "keeping a snapshot's check", &changed);
    pthread_mutex_unlock(&pg->lock);
    return ret ? ret : changed ? 0 : -ENOENT;
}

int store_pg_snapshot_create(struct store_pg *pg, const struct store_snapshot *sn)
{
    struct pq_args a = {.n = 0};
    int ret;

    arg_text(&a, sn->id);
    arg_text(&a, sn->token);
    arg_text(&a, sn->title ? sn->title : "");
    arg_i64(&a, sn->scenario);
    arg_text(&a, sn->settings);
    arg_text(&a, sn->batches);
    arg_u64(&a, sn->position);
    arg_text(&a, sn->engine);
    arg_text(&a, sn->state);
    arg_text(&a, sn->session[0] ? sn->session : NULL);
    pthread_mutex_lock(&pg->lock);
    ret = pg_exec(pg, ST_SNP_INSERT, &a, "storing a snapshot", NULL);
    pthread_mutex_unlock(&pg->lock);
    return ret;
}

int store_pg_snapshot_load(struct store_pg *pg, const char *id, struct store_snapshot *out)
{
    struct pq_args a = {.n = 0};
    PGresult *r;
    int ret;

    memset(out, 0, sizeof(*out));
    arg_text(&a, id);
    pthread_mutex_lock(&pg->lock);
    r = pg_run(pg, ST_SNP_GET, &a, "loading a snapshot", &ret);
    pthread_mutex_unlock(&pg->lock);
    if (!r)
        return ret;
    if (PQntuples(r) != 1) {
        PQclear(r);
        return -ENOENT;
    }
    snprintf(out->id, sizeof(out->id), "%s", id);
    val_copy(r, 0, 0, out->token, sizeof(out->token));
    out->title = val_dup(r, 0, 1);
    out->scenario = strtoll(PQgetvalue(r, 0, 2), NULL, 10);
    out->settings = val_dup(r, 0, 3);
    out->batches = val_dup(r, 0, 4);
    out->position = val_u64(r, 0, 5);
    out->engine = val_dup(r, 0, 6);
    out->state = val_dup(r, 0, 7);
    val_copy(r, 0, 8, out->session, sizeof(out->session));
    val_copy(r, 0, 9, out->created, sizeof(out->created));
    out->scenario_name = val_dup(r, 0, 10);
    out->scenario_text = val_dup(r, 0, 11);
    if (!PQgetisnull(r, 0, 12) && !PQgetisnull(r, 0, 13)) {
        out->check_engine = val_dup(r, 0, 12);
        out->check_status = val_dup(r, 0, 13);
        out->check_warning = val_dup(r, 0, 14);
        if (!out->check_engine || !out->check_status)
            ret = -ENOMEM;
    }
    out->published = atoi(PQgetvalue(r, 0, 15)) != 0;
    PQclear(r);
    if (!out->title || !out->settings || !out->batches || !out->engine || !out->state ||
        !out->scenario_name || !out->scenario_text)
        ret = -ENOMEM;
    if (ret)
        store_snapshot_free(out);
    return ret;
}

int store_pg_snapshot_delete(struct store_pg *pg, const char *id)
{
    return pg_by_id(pg, ST_SNP_DEL, id, NULL, "deleting");
}

int store_pg_snapshot_list(struct store_pg *pg, unsigned limit, unsigned offset, cJSON **out)
{
    return pg_list(pg, ST_SNP_LIST, ST_SNP_COUNT, "snapshots", store_snapshot_cols,
                   STORE_SNAPSHOT_INTS, limit, offset, out);
}

int store_pg_snapshot_set_published(struct store_pg *pg, const char *id, bool published)
{
    return pg_by_id(pg, ST_SNP_PUBLISH, id, published ? "1" : "0", "publishing a snapshot");
}

int store_pg_snapshot_list_for(struct store_pg *pg, const cJSON *tokens, unsigned limit,
                               unsigned offset, cJSON **out)
{
    struct pq_args a = {.n = 0};
    struct store_list_for lf;
    PGresult *r = NULL;
    int ret, i, k;

    if ((ret = store_list_for_start(&lf, tokens)))
        return ret;
    arg_text(&a, lf.ids_text);
    pthread_mutex_lock(&pg->lock);
    r = pg_run(pg, ST_SNP_LIST_FOR, &a, "listing snapshots", &ret);
    pthread_mutex_unlock(&pg->lock);
    for (i = 0; r && !ret && i < PQntuples(r); i++) {
        const char *vals[9];

        for (k = 0; k < 9; k++)
            vals[k] = PQgetisnull(r, i, k) ? NULL : PQgetvalue(r, i, k);
        ret = store_list_for_row(&lf, vals, atoi(vals[7] ? vals[7] : "0") != 0, limit, offset);
    }
    PQclear(r);
    return store_list_for_end(&lf, ret, out);
}

int store_pg_lecture_create(struct store_pg *pg, const struct store_lecture *lc)
{
    struct pq_args a = {.n = 0};
    int ret;

    arg_text(&a, lc->id);
    arg_text(&a, lc->token);
    arg_text(&a, lc->session);
    arg_u64(&a, lc->position);
    arg_u64(&a, lc->events);
    arg_u64(&a, lc->ops);
    pthread_mutex_lock(&pg->lock);
    ret = pg_exec(pg, ST_LEC_INSERT, &a, "storing a lecture", NULL);
    pthread_mutex_unlock(&pg->lock);
    return ret;
}

int store_pg_lecture_set(struct store_pg *pg, const struct store_lecture *lc)
{
    struct pq_args a = {.n = 0};
    uint64_t changed = 0;
    int ret;

    arg_text(&a, lc->id);
    arg_text(&a, lc->session);
    arg_u64(&a, lc->position);
    arg_u64(&a, lc->events);
    arg_u64(&a, lc->ops);
    pthread_mutex_lock(&pg->lock);
    ret = pg_exec(pg, ST_LEC_SET, &a, "changing a lecture", &changed);
    pthread_mutex_unlock(&pg->lock);
    return ret ? ret : changed ? 0 : -ENOENT;
}

int store_pg_lecture_delete(struct store_pg *pg, const char *id)
{
    return pg_by_id(pg, ST_LEC_DEL, id, NULL, "deleting");
}

int store_pg_lectures_load(struct store_pg *pg, unsigned max,
                           int (*fn)(const struct store_lecture *lc, void *arg), void *arg)
{
    struct pq_args a = {.n = 0};
    PGresult *r;
    int ret, i;

    arg_u64(&a, max);
    pthread_mutex_lock(&pg->lock);
    r = pg_run(pg, ST_LEC_LIST, &a, "loading the lectures", &ret);
    pthread_mutex_unlock(&pg->lock);
    for (i = 0; r && !ret && i < PQntuples(r); i++) {
        struct store_lecture lc;

        memset(&lc, 0, sizeof(lc));
        val_copy(r, i, 0, lc.id, sizeof(lc.id));
        val_copy(r, i, 1, lc.token, sizeof(lc.token));
        val_copy(r, i, 2, lc.session, sizeof(lc.session));
        lc.position = val_u64(r, i, 3);
        lc.events = val_u64(r, i, 4);
        lc.ops = val_u64(r, i, 5);
        ret = fn(&lc, arg);
    }
    PQclear(r);
    return ret;
}

int store_pg_sessions_older(struct store_pg *pg, unsigned days, char (*ids)[STORE_ID_MAX + 1],
                            size_t max, size_t *n)
{
    struct pq_args a = {.n = 0};
    PGresult *r;
    int ret, i;

    *n = 0;
    arg_u64(&a, days);
    arg_u64(&a, max);
    pthread_mutex_lock(&pg->lock);
    r = pg_run(pg, ST_SES_OLD, &a, "listing old sessions", &ret);
    pthread_mutex_unlock(&pg->lock);
    for (i = 0; r && i < PQntuples(r) && *n < max; i++)
        val_copy(r, i, 0, ids[(*n)++], STORE_ID_MAX + 1);
    PQclear(r);
    return ret;
}

int store_pg_snapshots_expire(struct store_pg *pg, unsigned days, uint64_t *deleted)
{
    struct pq_args a = {.n = 0};
    int ret;

    *deleted = 0;
    arg_u64(&a, days);
    pthread_mutex_lock(&pg->lock);
    ret = pg_exec(pg, ST_SNP_EXPIRE, &a, "deleting old snapshots", deleted);
    pthread_mutex_unlock(&pg->lock);
    return ret;
}

int store_pg_lecture_load(struct store_pg *pg, const char *id, struct store_lecture *out)
{
    struct pq_args a = {.n = 0};
    PGresult *r;
    int ret;

    arg_text(&a, id);
    pthread_mutex_lock(&pg->lock);
    r = pg_run(pg, ST_LEC_GET, &a, "loading a lecture", &ret);
    pthread_mutex_unlock(&pg->lock);
    if (r && PQntuples(r) != 1)
        ret = -ENOENT;
    if (r && !ret) {
        memset(out, 0, sizeof(*out));
        val_copy(r, 0, 0, out->id, sizeof(out->id));
        val_copy(r, 0, 1, out->token, sizeof(out->token));
        val_copy(r, 0, 2, out->session, sizeof(out->session));
        out->position = val_u64(r, 0, 3);
        out->events = val_u64(r, 0, 4);
        out->ops = val_u64(r, 0, 5);
    }
    PQclear(r);
    return ret;
}

int store_pg_trace_job_put(struct store_pg *pg, const struct store_trace_job *j, bool *cancel)
{
    struct pq_args a = {.n = 0};
    PGresult *r;
    int ret;

    arg_text(&a, j->id);
    arg_text(&a, j->state);
    arg_u64(&a, j->bytes);
    arg_u64(&a, j->done);
    arg_u64(&a, j->total);
    arg_u64(&a, j->events);
    arg_u64(&a, j->built);
    arg_u64(&a, j->recorded);
    arg_text(&a, j->session);
    arg_text(&a, j->token);
    arg_text(&a, j->code);
    arg_text(&a, j->message);
    arg_text(&a, j->report);
    arg_text(&a, j->owner);
    pthread_mutex_lock(&pg->lock);
    r = pg_run(pg, ST_JOB_PUT, &a, "storing a trace job", &ret);
    pthread_mutex_unlock(&pg->lock);
    if (r && cancel) /* RETURNING cancel */
        *cancel = PQntuples(r) == 1 && val_u64(r, 0, 0) != 0;
    PQclear(r);
    return ret;
}

int store_pg_trace_job_load(struct store_pg *pg, const char *id, struct store_trace_job *out)
{
    struct pq_args a = {.n = 0};
    PGresult *r;
    int ret;

    memset(out, 0, sizeof(*out));
    arg_text(&a, id);
    pthread_mutex_lock(&pg->lock);
    r = pg_run(pg, ST_JOB_GET, &a, "loading a trace job", &ret);
    pthread_mutex_unlock(&pg->lock);
    if (r && PQntuples(r) != 1)
        ret = -ENOENT;
    if (r && !ret) {
        snprintf(out->id, sizeof(out->id), "%s", id);
        val_copy(r, 0, 0, out->state, sizeof(out->state));
        out->bytes = val_u64(r, 0, 1);
        out->done = val_u64(r, 0, 2);
        out->total = val_u64(r, 0, 3);
        out->events = val_u64(r, 0, 4);
        out->built = val_u64(r, 0, 5);
        out->recorded = val_u64(r, 0, 6);
        val_copy(r, 0, 7, out->session, sizeof(out->session));
        val_copy(r, 0, 8, out->token, sizeof(out->token));
        val_copy(r, 0, 9, out->code, sizeof(out->code));
        val_copy(r, 0, 10, out->message, sizeof(out->message));
        val_copy(r, 0, 12, out->owner, sizeof(out->owner));
        out->cancel = val_u64(r, 0, 13) != 0;
        if (!PQgetisnull(r, 0, 11) && !(out->report = val_dup(r, 0, 11)))
            ret = -ENOMEM;
    }
    PQclear(r);
    return ret;
}

int store_pg_trace_job_delete(struct store_pg *pg, const char *id)
{
    return pg_by_id(pg, ST_JOB_DEL, id, NULL, "deleting a trace job");
}

int store_pg_trace_job_cancel(struct store_pg *pg, const char *id)
{
    return pg_by_id(pg, ST_JOB_CANCEL, id, NULL, "cancelling a trace job");
}

int store_pg_trace_jobs_expire(struct store_pg *pg, unsigned days, unsigned stale_seconds,
                               const char *why, uint64_t *failed, uint64_t *deleted)
{
    struct pq_args a = {.n = 0};
    int ret;

    arg_u64(&a, stale_seconds);
    arg_text(&a, why);
    pthread_mutex_lock(&pg->lock);
    ret = pg_exec(pg, ST_JOB_STALE, &a, "failing the trace jobs of a stopped server", failed);
    if (!ret) {
        a.n = 0;
        arg_u64(&a, stale_seconds);
        arg_u64(&a, (uint64_t)days * 86400);
        ret = pg_exec(pg, ST_JOB_EXPIRE, &a, "deleting old trace jobs", deleted);
    }
    pthread_mutex_unlock(&pg->lock);
    return ret;
}

int store_pg_answer_put(struct store_pg *pg, const char *lecture, uint64_t at, const char *voter,
                        const char *choice)
{
    struct pq_args a = {.n = 0};
    int ret;

    arg_text(&a, lecture);
    arg_u64(&a, at);
    arg_text(&a, voter);
    arg_text(&a, choice);
    pthread_mutex_lock(&pg->lock);
    ret = pg_exec(pg, ST_ANS_PUT, &a, "storing an answer", NULL);
    pthread_mutex_unlock(&pg->lock);
    return ret;
}

int store_pg_answers_tally(struct store_pg *pg, const char *lecture, uint64_t at,
                           int (*fn)(const char *choice, uint64_t n, void *arg), void *arg)
{
    struct pq_args a = {.n = 0};
    PGresult *r;
    int ret;

    arg_text(&a, lecture);
    arg_u64(&a, at);
    pthread_mutex_lock(&pg->lock);
    r = pg_run(pg, ST_ANS_TALLY, &a, "counting answers", &ret);
    pthread_mutex_unlock(&pg->lock);
    for (int i = 0; r && !ret && i < PQntuples(r); i++)
        ret = fn(PQgetvalue(r, i, 0), val_u64(r, i, 1), arg);
    PQclear(r);
    return ret;
}

int store_pg_answers_expire(struct store_pg *pg, unsigned seconds, uint64_t *deleted)
{
    struct pq_args a = {.n = 0};
    int ret;

    arg_u64(&a, seconds);
    pthread_mutex_lock(&pg->lock);
    ret = pg_exec(pg, ST_ANS_EXPIRE, &a, "deleting old answers", deleted);
    pthread_mutex_unlock(&pg->lock);
    return ret;
}

bool store_pg_available(const struct store_pg *pg)
{
    return atomic_load(&pg->available);
}

int store_pg_notify(struct store_pg *pg, const char *text)
{
    char payload[ORIGIN_LEN + 1 + STORE_MESSAGE_MAX + 1];
    const char *v[1] = {payload};
    int attempt, ret = -EIO;
    bool lost = false;

    if (strlen(text) > STORE_MESSAGE_MAX)
        return -E2BIG;
    snprintf(payload, sizeof(payload), "%s %s", pg->origin, text);
    pthread_mutex_lock(&pg->lock);
    for (attempt = 0; attempt < 2 && ret; attempt++) {
        PGresult *r = PQexecParams(pg->conn, "SELECT pg_notify('" CHANNEL "', $1)", 1, NULL, v,
                                   NULL, NULL, 0);

        if (PQresultStatus(r) == PGRES_TUPLES_OK)
            ret = 0;
        lost = ret && pg_lost(pg->conn, r);
        PQclear(r);
        if (ret && (attempt || !lost || !pg_reconnect(pg))) /* as pg_run() does */
            break;
        lost = false;
    }
    atomic_store(&pg->available, !lost);
    pthread_mutex_unlock(&pg->lock);
    return ret;
}

/*
 * The listening connection and its thread.  The thread sleeps in poll()
 * on the connection's socket and on a pipe store_pg_unlisten() writes to;
 * while the connection is broken it tries a new one every second.
 */
struct store_listener {
    struct store_pg *pg; /* its url and origin, which do not change */
    store_message_fn *fn;
    void *arg;
    PGconn *conn; /* the thread's own; NULL while the database is away */
    int wake[2];  /* a byte on wake[1] stops the thread */
    pthread_t thread;
};

/* A connection listening on CHANNEL, or NULL. */
static PGconn *listen_connect(const char *url)
{
    PGconn *c = pg_connect(url);
    PGresult *r;
    bool ok;

    if (!c || PQstatus(c) != CONNECTION_OK) {
        PQfinish(c);
        return NULL;
    }
    r = PQexec(c, "LISTEN " CHANNEL);
    ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    if (!ok) {
        PQfinish(c);
        return NULL;
    }
    return c;
}

/* Hand every message waiting on the connection to the callback, but this server's own. */
static void listen_deliver(struct store_listener *ls)
{
    PGnotify *n;

    while ((n = PQnotifies(ls->conn))) {
        const char *p = n->extra;

        if (strlen(p) > ORIGIN_LEN && p[ORIGIN_LEN] == ' ' &&
            strncmp(p, ls->pg->origin, ORIGIN_LEN) != 0)
            ls->fn(p + ORIGIN_LEN + 1, ls->arg);
        PQfreemem(n);
    }
}

static void *listen_run(void *arg)
{
    struct store_listener *ls = arg;
    bool lost = false;

    for (;;) {
        struct pollfd p[2] = {{.fd = ls->wake[0], .events = POLLIN},
                              {.fd = -1, .events = POLLIN}};

        if (!ls->conn && (ls->conn = listen_connect(ls->pg->url)) && lost) {
            fprintf(stderr, "slublab serve: postgresql: listening again\n");
            lost = false;
            ls->fn(NULL, ls->arg); /* the database is back */
        }
        p[1].fd = ls->conn ? PQsocket(ls->conn) : -1;
        if (poll(p, 2, ls->conn ? -1 : 1000) < 0)
            continue; /* EINTR */
        if (p[0].revents)
            break;
        if (!ls->conn || !p[1].revents)
            continue;
        if (!PQconsumeInput(ls->conn)) {
            const char *why = PQerrorMessage(ls->conn);

            fprintf(stderr,
                    "slublab serve: postgresql: the listening connection broke (%.*s); other "
                    "servers' moves are not heard until it is open again\n",
                    (int)strcspn(why, "\n"), why);
            PQfinish(ls->conn);
            ls->conn = NULL;
            lost = true;
            continue;
        }
        listen_deliver(ls);
    }
    return NULL;
}

int store_pg_listen(struct store_pg *pg, store_message_fn *fn, void *arg)
{
    struct store_listener *ls = calloc(1, sizeof(*ls));

    if (!ls)
        return -ENOMEM;
    if (pg->listener) {
        free(ls);
        return -EEXIST;
    }
    ls->pg = pg;
    ls->fn = fn;
    ls->arg = arg;
    if (pipe(ls->wake)) {
        free(ls);
        return -EAGAIN;
    }
    /* listening before the server answers: no message sent after it is missed */
    ls->conn = listen_connect(pg->url);
    if (pthread_create(&ls->thread, NULL, listen_run, ls)) {
        PQfinish(ls->conn);
        close(ls->wake[0]);
        close(ls->wake[1]);
        free(ls);
        return -EAGAIN;
    }
    pg->listener = ls;
    return 0;
}

void store_pg_unlisten(struct store_pg *pg)
{
    struct store_listener *ls = pg->listener;

    if (!ls)
        return;
    while (write(ls->wake[1], "x", 1) < 0 && errno == EINTR)
        ;
    pthread_join(ls->thread, NULL);
    PQfinish(ls->conn);
    close(ls->wake[0]);
    close(ls->wake[1]);
    free(ls);
    pg->listener = NULL;
}

int store_pg_session_where(struct store_pg *pg, const char *id, uint64_t *position,
                           uint64_t *events)
{
    struct pq_args a = {.n = 0};
    PGresult *r;
    int ret;

    arg_text(&a, id);
    pthread_mutex_lock(&pg->lock);
    r = pg_run(pg, ST_SES_WHERE, &a, "reading a position", &ret);
    pthread_mutex_unlock(&pg->lock);
    if (r && PQntuples(r) != 1)
        ret = -ENOENT;
    if (r && !ret) {
        *position = val_u64(r, 0, 0);
        *events = val_u64(r, 0, 1);
    }
    PQclear(r);
    return ret;
}

/* ---- checkpoint images ---------------------------------------------------------- */

int store_pg_ckpt_pages_put(struct store_pg *pg, const char *owner,
                            const struct store_ckpt_page *pages, size_t n)
{
    size_t i;
    int ret;

    pthread_mutex_lock(&pg->lock);
    if ((ret = pg_plain(pg, "BEGIN", NULL)))
        goto out_unlock;
    for (i = 0; i < n && !ret; i++) {
        struct pq_args a = {.n = 0};

        if (pages[i].len > INT32_MAX) {
            ret = -EINVAL;
            break;
        }
        arg_text(&a, owner);
        arg_bin(&a, pages[i].hash, STORE_CKPT_HASH_LEN);
        arg_bin(&a, pages[i].data, pages[i].len);
        ret = pg_exec(pg, ST_CKP_PAGE_PUT, &a, "storing a checkpoint page", NULL);
    }
    ret = pg_end(pg, ret);
out_unlock:
    pthread_mutex_unlock(&pg->lock);
    return ret;
}

int store_pg_ckpt_put(struct store_pg *pg, const char *owner, const char *tag,
                      const struct store_ckpt *c)
{
    struct pq_args a = {.n = 0};
    int ret;

    if (c->meta_len > INT32_MAX || c->pages_len > INT32_MAX || c->extra_len > INT32_MAX)
        return -EINVAL;
    arg_text(&a, owner);
    arg_text(&a, tag);
    arg_u64(&a, c->seq);
    arg_u64(&a, c->op);
    arg_u64(&a, c->off);
    arg_bin(&a, c->meta, c->meta_len);
    arg_bin(&a, c->pages, c->pages_len);
    if (c->extra)
        arg_bin(&a, c->extra, c->extra_len);
    else
        arg_text(&a, NULL);
    pthread_mutex_lock(&pg->lock);
    ret = pg_exec(pg, ST_CKP_PUT, &a, "storing a checkpoint", NULL);
    pthread_mutex_unlock(&pg->lock);
    return ret;
}

int store_pg_ckpt_list(struct store_pg *pg, const char *owner, const char *tag,
                       int (*fn)(void *arg, uint64_t seq, uint64_t op, uint64_t off,
                                 bool has_extra),
                       void *arg)
{
    struct pq_args a = {.n = 0};
    PGresult *r;
    int i, ret;

    arg_text(&a, owner);
    arg_text(&a, tag);
    pthread_mutex_lock(&pg->lock);
    r = pg_run(pg, ST_CKP_LIST, &a, "listing checkpoints", &ret);
    pthread_mutex_unlock(&pg->lock);
    for (i = 0; r && !ret && i < PQntuples(r); i++)
        ret = fn(arg, val_u64(r, i, 0), val_u64(r, i, 1), val_u64(r, i, 2), val_u64(r, i, 3) != 0);
    PQclear(r);
    return ret;
}

/* A malloc()ed copy of bytea value (@row, @col) in *out, *len; NULL for SQL NULL. */
static int val_bytea(const PGresult *r, int row, int col, void **out, size_t *len)
{
    unsigned char *bytes;
    size_t n;

    *out = NULL;
    *len = 0;
    if (PQgetisnull(r, row, col))
        return 0;
    if (!(bytes = PQunescapeBytea((const unsigned char *)PQgetvalue(r, row, col), &n)))
        return -ENOMEM;
    *out = malloc(n ? n : 1);
    if (*out && n)
        memcpy(*out, bytes, n);
    PQfreemem(bytes);
    if (!*out)
        return -ENOMEM;
    *len = n;
    return 0;
}

int store_pg_ckpt_get(struct store_pg *pg, const char *owner, const char *tag, uint64_t seq,
                      struct store_ckpt *out)
{
    struct pq_args a = {.n = 0};
    PGresult *r;
    int ret;

    arg_text(&a, owner);
    arg_text(&a, tag);
    arg_u64(&a, seq);
    pthread_mutex_lock(&pg->lock);
    r = pg_run(pg, ST_CKP_GET, &a, "reading a checkpoint", &ret);
    pthread_mutex_unlock(&pg->lock);
    if (!r)
        return ret;
    if (PQntuples(r) != 1) {
        PQclear(r);
        return -ENOENT;
    }
    out->seq = seq;
    out->op = val_u64(r, 0, 0);
    out->off = val_u64(r, 0, 1);
    if (val_bytea(r, 0, 2, &out->meta, &out->meta_len) ||
        val_bytea(r, 0, 3, &out->pages, &out->pages_len) ||
        val_bytea(r, 0, 4, &out->extra, &out->extra_len))
        ret = -ENOMEM;
    PQclear(r);
    if (ret)
        store_ckpt_free(out);
    return ret;
}

int store_pg_ckpt_page_get(struct store_pg *pg, const char *owner, const uint8_t *hash,
                           uint8_t **data, size_t *len)
{
    struct pq_args a = {.n = 0};
    void *p = NULL;
    PGresult *r;
    int ret;

    arg_text(&a, owner);
    arg_bin(&a, hash, STORE_CKPT_HASH_LEN);
    pthread_mutex_lock(&pg->lock);
    r = pg_run(pg, ST_CKP_PAGE_GET, &a, "reading a checkpoint page", &ret);
    pthread_mutex_unlock(&pg->lock);
    if (!r)
        return ret;
    ret = PQntuples(r) == 1 ? val_bytea(r, 0, 0, &p, len) : -ENOENT;
    PQclear(r);
    *data = p;
    return ret;
}

int store_pg_ckpt_count(struct store_pg *pg, const char *owner, uint64_t *images, uint64_t *pages)
{
    struct pq_args a = {.n = 0};
    PGresult *r;
    int ret;

    arg_text(&a, owner);
    pthread_mutex_lock(&pg->lock);
    r = pg_run(pg, ST_CKP_COUNT, &a, "counting checkpoints", &ret);
    pthread_mutex_unlock(&pg->lock);
    if (r) {
        *images = val_u64(r, 0, 0);
        *pages = val_u64(r, 0, 1);
        PQclear(r);
    }
    return ret;
}

int store_pg_session_set_ckpts(struct store_pg *pg, const char *id, const char *owner)
{
    return pg_by_id(pg, ST_SES_CKP_SET, id, owner, "naming a session's checkpoints");
}

int store_pg_session_ckpts(struct store_pg *pg, const char *id,
                           char owner[STORE_CKPT_OWNER_LEN + 1])
{
    struct pq_args a = {.n = 0};
    PGresult *r;
    int ret;

    owner[0] = '\0';
    arg_text(&a, id);
    pthread_mutex_lock(&pg->lock);
    r = pg_run(pg, ST_SES_CKP_GET, &a, "reading a session's checkpoints", &ret);
    pthread_mutex_unlock(&pg->lock);
    if (r && PQntuples(r) == 1)
        val_copy(r, 0, 0, owner, STORE_CKPT_OWNER_LEN + 1);
    PQclear(r);
    return ret;
}

int store_pg_ckpt_delete(struct store_pg *pg, const char *owner)
{
    struct pq_args a = {.n = 0};
    int ret;

    arg_text(&a, owner);
    pthread_mutex_lock(&pg->lock);
    if (!(ret = pg_plain(pg, "BEGIN", NULL))) {
        ret = pg_exec(pg, ST_CKP_DEL, &a, "deleting checkpoints", NULL);
        if (!ret)
            ret = pg_exec(pg, ST_CKP_PAGE_DEL, &a, "deleting checkpoint pages", NULL);
        ret = pg_end(pg, ret);
    }
    pthread_mutex_unlock(&pg->lock);
    return ret;
}
