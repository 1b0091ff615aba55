/*
 * store_pg.c: the store's PostgreSQL back end (store_internal.h's ops), for
 * several servers sharing one database (`--db postgresql://...`), through
 * libpq.
 *
 * The same tables and the same migrations as the SQLite back end, in
 * PostgreSQL's words (BIGINT counters, BIGSERIAL scenario ids, times as
 * the same ISO 8601 UTC text); the version lives in slublab_schema, and a
 * migration holds an advisory lock so servers starting together migrate
 * once.  The queries are prepared once per connection with text parameters
 * (bytes go as binary).  One connection serves every thread behind the
 * store's mutex, as SQLite's does; a connection that broke is reset (and
 * its queries prepared again) once before a query gives up.  Messages
 * between servers (store_notify()) are LISTEN/NOTIFY on one channel, heard
 * by a thread with a connection of its own.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "base/ids.h"
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
#define BYTEAOID        17 /* the type of bytea columns (PostgreSQL's pg_type.h) */

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
        STORE_MIGRATE_2,
        STORE_MIGRATE_3,
        STORE_MIGRATE_4,
        "CREATE TABLE lectures ("
        " id TEXT PRIMARY KEY, token TEXT NOT NULL, session TEXT NOT NULL DEFAULT '',"
        " position BIGINT NOT NULL DEFAULT 0, events BIGINT NOT NULL DEFAULT 0,"
        " ops BIGINT NOT NULL DEFAULT 0, created TEXT NOT NULL, updated TEXT NOT NULL);"
        "CREATE INDEX lectures_updated ON lectures(updated);",
        STORE_MIGRATE_6,
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
        STORE_MIGRATE_12,
};

/*
 * PostgreSQL's words for the queries whose SQLite text (store_queries.c)
 * does not carry over; the others are that text with ?N written $N and
 * SQLite's "now" written as NOW above (pg_sql()).  Parameter types are
 * store_queries[]'s.
 */
static const char *const pg_override[NR_STMTS] = {
        /* $1: a JSON array of ids; the caller checks the tokens of the unpublished */
        [ST_SNP_LIST_FOR] = "SELECT n.id, n.title, c.name, n.session, n.position, n.engine,"
                            " n.created, n.published, n.token"
                            " FROM snapshots n JOIN scenarios c ON c.id = n.scenario"
                            " WHERE n.published = 1"
                            " OR n.id IN (SELECT json_array_elements_text($1::json))"
                            " ORDER BY n.created DESC, n.id",
        [ST_SES_OLD] = "SELECT id FROM sessions WHERE updated < " DAYS_AGO(
                "$1") " ORDER BY updated LIMIT $2::bigint",
        [ST_SNP_EXPIRE] = "DELETE FROM snapshots WHERE created < " DAYS_AGO("$1"),
        [ST_SNP_OLD_LOGS] = "SELECT DISTINCT log FROM snapshots WHERE log IS NOT NULL"
                            " AND log <> '' AND created < " DAYS_AGO("$1"),
        [ST_JOB_CANCEL] = "UPDATE trace_jobs SET cancel = 1, updated = " NOW " WHERE id = $1",
        /* $1: seconds without a write; $2: the message */
        [ST_JOB_STALE] = "UPDATE trace_jobs SET state = 'failed', code = 'internal', message = $2,"
                         " updated = " NOW " WHERE state IN ('replaying', 'building')"
                         " AND cancel = 0 AND updated < " SECONDS_AGO("$1"),
        /* $1: seconds for a cancelled row; $2: for a finished one (0: kept) */
        [ST_JOB_EXPIRE] = "DELETE FROM trace_jobs WHERE (cancel = 1 AND updated < " SECONDS_AGO(
                "$1") ") OR ($2::bigint > 0 AND state IN ('done', 'failed') AND updated "
                      "< " SECONDS_AGO("$2") ")",
        [ST_ANS_TALLY] = "SELECT choice, count(*) FROM answers WHERE lecture = $1 AND at = $2"
                         " GROUP BY choice ORDER BY choice COLLATE \"C\"",
        [ST_ANS_EXPIRE] = "DELETE FROM answers WHERE updated < " SECONDS_AGO("$1"),
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
};

struct store_listener;

struct pg_store {
    struct store st; /* first: the store's ops and lock */
    PGconn *conn;
    char *url;
    bool in_tx; /* between BEGIN and its end: a lost connection lost the transaction too */
    atomic_bool available;       /* false: the last call found conn broken and could not reset it */
    char origin[ORIGIN_LEN + 1]; /* what this server's messages start with */
    struct store_listener *listener; /* pg_listen()'s thread, or NULL */
};

static struct pg_store *pgs(struct store *st)
{
    return (struct pg_store *)st;
}

/* A connection to @url, with CONNECT_TIMEOUT unless the URL says otherwise. */
static PGconn *pg_connect(const char *url)
{
    /* later keywords override what the URL expanded before them */
    static const char *const keys[] = {"connect_timeout", "dbname", NULL};
    const char *vals[] = {CONNECT_TIMEOUT, url, NULL};

    return PQconnectdbParams(keys, vals, 1);
}

/* Query @q in PostgreSQL's words, into @buf; NULL when @buf is too small. */
static const char *pg_sql(enum stmt q, char *buf, size_t size)
{
    const char *in = store_queries[q].sql, *now = STORE_SQLITE_NOW;
    size_t len = 0, nl = strlen(now);

    if (pg_override[q])
        return pg_override[q];
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

static int pg_prepare_all(struct pg_store *pg, struct strbuf *err)
{
    char text[2048];
    unsigned i;

    for (i = 0; i < NR_STMTS; i++) {
        const char *sql = pg_sql((enum stmt)i, text, sizeof(text));
        char name[16];
        PGresult *r;

        if (!sql) {
            if (err)
                strbuf_printf(err, "query %u is longer than %zu bytes", i, sizeof(text));
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
static bool pg_reconnect(struct pg_store *pg)
{
    PQreset(pg->conn);
    return PQstatus(pg->conn) == CONNECTION_OK && !pg_prepare_all(pg, NULL);
}

static bool pg_ok(const PGresult *r)
{
    ExecStatusType s = PQresultStatus(r);

    return s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK;
}

/* A query's parameters, as libpq takes them. */
struct pg_args {
    const char *v[STORE_MAX_ARGS];
    int len[STORE_MAX_ARGS];
    int fmt[STORE_MAX_ARGS]; /* 1: binary (v[i] has len[i] bytes) */
    char num[STORE_MAX_ARGS][24];
    char *copy[STORE_MAX_ARGS]; /* text with a length, made NUL-terminated */
    int n;
};

/* @args as @types say (struct store_query); 0 or -ENOMEM. */
static int pg_args(struct pg_args *pa, const char *types, const struct store_arg *args)
{
    for (pa->n = 0; types[pa->n]; pa->n++) {
        const struct store_arg *a = &args[pa->n];
        int i = pa->n;
        char t = types[i];

        pa->v[i] = NULL;
        if ((t == 'u' || t == 'i') && !a->null) {
            if (t == 'u')
                snprintf(pa->num[i], sizeof(pa->num[i]), "%" PRIu64, a->u);
            else
                snprintf(pa->num[i], sizeof(pa->num[i]), "%" PRId64, (int64_t)a->u);
            pa->v[i] = pa->num[i];
        } else if (t == 'b' && a->p) {
            pa->fmt[i] = 1;
            pa->len[i] = (int)a->len;
            pa->v[i] = a->p;
        } else if (t == 't' && a->p && a->len != SIZE_MAX) { /* text parameters end at a NUL */
            if (!(pa->v[i] = pa->copy[i] = strndup(a->p, a->len)))
                return -ENOMEM;
        } else if (t == 't') {
            pa->v[i] = a->p;
        }
    }
    return 0;
}

/*
 * Run prepared query @q.  Returns the result (PQclear() it) when it
 * succeeded, else NULL with *ret set: -EEXIST for a taken key, -EIO after
 * logging PostgreSQL's words.  A broken connection is reset once.
 */
static PGresult *pg_exec(struct pg_store *pg, enum stmt q, const struct pg_args *pa,
                         const char *what, int *ret)
{
    bool lost = false;
    char name[16];
    int attempt;

    snprintf(name, sizeof(name), "s%u", (unsigned)q);
    for (attempt = 0; attempt < 2; attempt++) {
        PGresult *r = PQexecPrepared(pg->conn, name, pa->n, pa->v, pa->len, pa->fmt, 0);
        const char *state;

        if (pg_ok(r)) {
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

/* The executor: one declared query, its rows to @fn (bytea columns as their bytes). */
static int pg_run(struct store *st, enum stmt q, const struct store_arg *args, store_row_fn *fn,
                  void *arg, uint64_t *changed, const char *what)
{
    struct pg_store *pg = pgs(st);
    struct pg_args pa = {.n = 0};
    struct store_val col[STORE_MAX_COLS];
    unsigned char *bytes[STORE_MAX_COLS];
    PGresult *r = NULL;
    int ret, i, c, n;

    if (!(ret = pg_args(&pa, store_queries[q].args, args)))
        r = pg_exec(pg, q, &pa, what, &ret);
    for (i = 0; i < pa.n; i++)
        free(pa.copy[i]);
    if (!r)
        return ret;
    n = PQnfields(r) < STORE_MAX_COLS ? PQnfields(r) : STORE_MAX_COLS;
    for (i = 0; fn && !ret && i < PQntuples(r); i++) {
        for (c = 0; c < n; c++) {
            bytes[c] = NULL;
            col[c].p = PQgetisnull(r, i, c) ? NULL : PQgetvalue(r, i, c);
            col[c].len = (size_t)PQgetlength(r, i, c);
            if (col[c].p && PQftype(r, c) == BYTEAOID) {
                bytes[c] = PQunescapeBytea((const unsigned char *)col[c].p, &col[c].len);
                col[c].p = (const char *)bytes[c];
                if (!bytes[c])
                    ret = -ENOMEM;
            }
        }
        if (!ret)
            ret = fn(arg, col, (unsigned)n);
        for (c = 0; c < n; c++)
            PQfreemem(bytes[c]);
    }
    if (!ret && changed)
        *changed = strtoull(PQcmdTuples(r), NULL, 10);
    PQclear(r);
    return ret;
}

/* Plain SQL (transactions, migrations); 0 or -EIO with PostgreSQL's words in @err. */
static int pg_plain(struct pg_store *pg, const char *sql, struct strbuf *err)
{
    bool begin = !strcmp(sql, "BEGIN"), lost, ok;
    PGresult *r = PQexec(pg->conn, sql);

    ok = pg_ok(r);
    lost = !ok && pg_lost(pg->conn, r);
    PQclear(r);
    /* a transaction may begin on a new connection (never commit on one) */
    if (lost && begin && pg_reconnect(pg)) {
        r = PQexec(pg->conn, sql);
        ok = pg_ok(r);
        lost = !ok && pg_lost(pg->conn, r);
        PQclear(r);
    }
    atomic_store(&pg->available, !lost);
    if (begin || !strcmp(sql, "COMMIT") || !strcmp(sql, "ROLLBACK"))
        pg->in_tx = begin && ok;
    if (ok)
        return 0;
    if (err)
        strbuf_printf(err, "%s", PQerrorMessage(pg->conn));
    else
        fprintf(stderr, "slublab serve: postgresql: %s", PQerrorMessage(pg->conn));
    return -EIO;
}

static int pg_begin(struct store *st)
{
    return pg_plain(pgs(st), "BEGIN", NULL);
}

static int pg_end(struct store *st, int ret)
{
    if (ret) {
        pg_plain(pgs(st), "ROLLBACK", NULL);
        return ret;
    }
    return pg_plain(pgs(st), "COMMIT", NULL);
}

static bool pg_handles(const char *db)
{
    return !strncmp(db, "postgresql://", 13) || !strncmp(db, "postgres://", 11);
}

static int pg_migrate(struct pg_store *pg, struct strbuf *err)
{
    PGresult *r;
    int version;

    if (pg_plain(pg, "BEGIN", err) || pg_plain(pg, MIGRATION_LOCK, err) ||
        pg_plain(pg, "CREATE TABLE IF NOT EXISTS slublab_schema (version INTEGER NOT NULL)", err) ||
        pg_plain(pg,
                 "INSERT INTO slublab_schema SELECT 0"
                 " WHERE NOT EXISTS (SELECT 1 FROM slublab_schema)",
                 err))
        goto err_rollback;
    r = PQexec(pg->conn, "SELECT version FROM slublab_schema");
    version = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1 ? atoi(PQgetvalue(r, 0, 0))
                                                                        : -1;
    PQclear(r);
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

static void pg_unlisten(struct store *st);

static void pg_close(struct store *st)
{
    struct pg_store *pg = pgs(st);

    pg_unlisten(st);
    PQfinish(pg->conn);
    free(pg->url);
    free(pg);
}

static int pg_open(const char *url, struct store **out, struct strbuf *err)
{
    struct pg_store *pg = calloc(1, sizeof(*pg));

    if (!pg)
        return -ENOMEM;
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
    *out = &pg->st;
    return 0;

err_close:
    pg_close(&pg->st);
    return -EIO;
}

static bool pg_available(const struct store *st)
{
    return atomic_load(&((const struct pg_store *)st)->available);
}

static int pg_notify(struct store *st, const char *text)
{
    struct pg_store *pg = pgs(st);
    char payload[ORIGIN_LEN + 1 + STORE_MESSAGE_MAX + 1];
    const char *v[1] = {payload};
    int attempt, ret = -EIO;
    bool lost = false;

    if (strlen(text) > STORE_MESSAGE_MAX)
        return -E2BIG;
    snprintf(payload, sizeof(payload), "%s %s", pg->origin, text);
    for (attempt = 0; attempt < 2 && ret; attempt++) {
        PGresult *r = PQexecParams(pg->conn, "SELECT pg_notify('" CHANNEL "', $1)", 1, NULL, v,
                                   NULL, NULL, 0);

        if (PQresultStatus(r) == PGRES_TUPLES_OK)
            ret = 0;
        lost = ret && pg_lost(pg->conn, r);
        PQclear(r);
        if (ret && (attempt || !lost || !pg_reconnect(pg))) /* as pg_exec() does */
            break;
        lost = false;
    }
    atomic_store(&pg->available, !lost);
    return ret;
}

/*
 * The listening connection and its thread.  The thread sleeps in poll()
 * on the connection's socket and on a pipe pg_unlisten() writes to;
 * while the connection is broken it tries a new one every second.
 */
struct store_listener {
    struct pg_store *pg; /* its url and origin, which do not change */
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
        struct pollfd p[2] = {{.fd = ls->wake[0], .events = POLLIN}, {.fd = -1, .events = POLLIN}};

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

static int pg_listen(struct store *st, store_message_fn *fn, void *arg)
{
    struct pg_store *pg = pgs(st);
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

static void pg_unlisten(struct store *st)
{
    struct pg_store *pg = pgs(st);
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

const struct store_ops store_pg_ops = {
        .name = "postgresql",
        .shared = true,
        .handles = pg_handles,
        .open = pg_open,
        .close = pg_close,
        .run = pg_run,
        .begin = pg_begin,
        .end = pg_end,
        .notify = pg_notify,
        .listen = pg_listen,
        .unlisten = pg_unlisten,
        .available = pg_available,
};
