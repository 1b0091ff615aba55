/*
 * store_internal.h: the store's interface to its back ends, a table of
 * operations as SQLite's sqlite3_vfs is.  store.c writes every store.h
 * function once, in terms of declared queries (enum stmt) run through
 * ops->run(); a back end (store_sqlite.c, store_pg.c) declares the text and
 * parameter types of each query in its own words, runs them through one
 * executor, and keeps what only it has (migrations, connection reset,
 * LISTEN/NOTIFY).  Another back end implements the same ops and adds
 * itself to store.c's list.  Not a public header.
 */
#ifndef SLUBLAB_SERVER_SESSION_STORE_INTERNAL_H
#define SLUBLAB_SERVER_SESSION_STORE_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "session/store.h"

/* Every query of the store, by what it does. */
enum stmt {
    ST_SCN_FIND,
    ST_SCN_INSERT,
    ST_SES_INSERT,
    ST_BAT_INSERT,
    ST_SES_EVENTS,
    ST_SES_POS,
    ST_SES_GET,
    ST_BAT_GET,
    ST_SES_DEL,
    ST_SES_LIST,
    ST_SES_COUNT,
    ST_SNP_INSERT,
    ST_SNP_GET,
    ST_SNP_DEL,
    ST_SNP_LIST,
    ST_SNP_COUNT,
    ST_SNP_CHECK,
    ST_SNP_PUBLISH,
    ST_SNP_LIST_FOR,
    ST_LEC_INSERT,
    ST_LEC_SET,
    ST_LEC_DEL,
    ST_LEC_LIST,
    ST_SES_OLD,
    ST_SNP_EXPIRE,
    ST_BAT_COUNT,
    ST_LEC_GET,
    ST_JOB_PUT,
    ST_JOB_GET,
    ST_JOB_DEL,
    ST_JOB_CANCEL,
    ST_JOB_STALE,
    ST_JOB_EXPIRE,
    ST_ANS_PUT,
    ST_ANS_TALLY,
    ST_ANS_EXPIRE,
    ST_SES_WHERE,
    ST_LOG_PUT,
    ST_LOG_GET,
    ST_LOG_INFO,
    ST_LOG_LAST,
    ST_LOG_DEL,
    ST_LOG_CHUNK,
    ST_SNP_OLD_LOGS,
    ST_SES_OV_SET,
    ST_SES_OV_GET,
    ST_CKP_PAGE_PUT,
    ST_CKP_PUT,
    ST_CKP_LIST,
    ST_CKP_GET,
    ST_CKP_PAGE_GET,
    ST_CKP_DEL,
    ST_CKP_PAGE_DEL,
    ST_SES_CKP_SET,
    ST_SES_CKP_GET,
    ST_CKP_COUNT,
    NR_STMTS
};

/*
 * The migrations both back ends write in the same words (each back end's
 * migrations[i] takes schema version i to i + 1; the others differ in
 * their types, INTEGER and BLOB against BIGINT and BYTEA).
 */
/* 1 -> 2: listing newest first */
#define STORE_MIGRATE_2                                   \
    "CREATE INDEX sessions_created ON sessions(created);" \
    "CREATE INDEX snapshots_created ON snapshots(created);"
/* 2 -> 3: a snapshot's replay is checked once per engine version */
#define STORE_MIGRATE_3                                   \
    "ALTER TABLE snapshots ADD COLUMN check_engine TEXT;" \
    "ALTER TABLE snapshots ADD COLUMN check_status TEXT;" \
    "ALTER TABLE snapshots ADD COLUMN check_warning TEXT;"
/* 3 -> 4: an author may publish a snapshot (the public list has those
 * only); the snapshots kept from before are unpublished */
#define STORE_MIGRATE_4                                                      \
    "ALTER TABLE snapshots ADD COLUMN published INTEGER NOT NULL DEFAULT 0;" \
    "CREATE INDEX snapshots_published ON snapshots(published, created);"
/* 5 -> 6: a session records the engine version that made it (NULL for
 * those made before) */
#define STORE_MIGRATE_6 "ALTER TABLE sessions ADD COLUMN engine TEXT;"
/* 11 -> 12: a snapshot of a replayed trace refers to its op log (which it
 * keeps), and carries its author's note */
#define STORE_MIGRATE_12                         \
    "ALTER TABLE snapshots ADD COLUMN log TEXT;" \
    "ALTER TABLE snapshots ADD COLUMN note TEXT;"

/* A query as a back end declares it: a parameter type per character of
 * @args, and its text: 't' text, 'u' unsigned and 'i' signed integer, 'b'
 * bytes.  Columns come back as text (integers in decimal) or bytes. */
struct store_query {
    const char *args;
    const char *sql;
};

#define STORE_MAX_ARGS 16
#define STORE_MAX_COLS 18

/* A parameter; the query's type says which field is read. */
struct store_arg {
    const void *p; /* 't', 'b': the text or bytes; NULL binds SQL NULL */
    size_t len;    /* 'b': bytes at @p; 't': bytes, or SIZE_MAX for up to the NUL */
    uint64_t u;    /* 'u', 'i' (as int64_t) */
    bool null;     /* 'u', 'i': SQL NULL */
};
#define A_TEXT(s)                 \
    {                             \
        .p = (s), .len = SIZE_MAX \
    }
#define A_TEXTN(s, n)        \
    {                        \
        .p = (s), .len = (n) \
    }
#define A_U64(x)           \
    {                      \
        .u = (uint64_t)(x) \
    }
#define A_I64(x)                    \
    {                               \
        .u = (uint64_t)(int64_t)(x) \
    }
#define A_BLOB(d, n)         \
    {                        \
        .p = (d), .len = (n) \
    } /* NULL @d binds SQL NULL */
#define A_BYTES(d, n)                                 \
    {                                                 \
        .p = (n) ? (const void *)(d) : "", .len = (n) \
    }
#define A_OPT(s) A_TEXT((s)[0] ? (s) : NULL) /* "" binds SQL NULL */

/* A column of a row: text (NUL-terminated) or bytes, valid until the
 * callback returns; @p is NULL for SQL NULL. */
struct store_val {
    const char *p;
    size_t len;
};
/* Called for each row of a query; a non-zero return stops the query and is
 * what it returns. */
typedef int store_row_fn(void *arg, const struct store_val *col, unsigned n);

/* What a back end's open() fills in, first in its own struct. */
struct store {
    const struct store_ops *ops;
    pthread_mutex_t lock; /* one query at a time on the back end's connection */
};

struct store_ops {
    const char *name;
    bool shared;                     /* other servers may share the store */
    bool (*handles)(const char *db); /* does @db name a store of this back end? */
    /* Open @db (creating and migrating), returning its struct store (calloc()ed,
     * its lock not set up yet).  0, -ENOMEM or -EIO with a message in @err. */
    int (*open)(const char *db, struct store **out, struct strbuf *err);
    void (*close)(struct store *st); /* frees what open() made */
    /*
     * The executor, called with st->lock held: run query @q with @args (as
     * many as its declared types), call @fn (when not NULL) with each row,
     * and put the rows it changed in *changed (when not NULL).  0, @fn's
     * return, -EEXIST (a key is taken), -ENOMEM, or -EIO with the back
     * end's words, and @what, on stderr.
     */
    int (*run)(struct store *st, enum stmt q, const struct store_arg *args, store_row_fn *fn,
               void *arg, uint64_t *changed, const char *what);
    /* Transactions, with st->lock held: begin; end commits, or rolls back
     * when @ret is an error (returned). */
    int (*begin)(struct store *st);
    int (*end)(struct store *st, int ret);
    /* A transaction that only reads (store_read_begin()), ended by end(); NULL: begin(). */
    int (*begin_read)(struct store *st);
    /* store_notify(), store_listen(), store_unlisten(), store_available():
     * NULL where there is nobody to talk to (nothing done, 0, true). */
    int (*notify)(struct store *st, const char *text);
    int (*listen)(struct store *st, store_message_fn *fn, void *arg);
    void (*unlisten)(struct store *st);
    bool (*available)(const struct store *st);
};

/*
 * The query helpers every store.h function is written with (store.c): a
 * query under the store's mutex (recursive: a sequence of queries holds it
 * across them), rows decoded into structs by a table of fields.
 */
#define ARGS(...) ((const struct store_arg[]){__VA_ARGS__})

/* Run query @q (ops->run()) under the lock. */
int store_run(struct store *st, enum stmt q, const struct store_arg *a, store_row_fn *fn, void *arg,
              uint64_t *changed, const char *what);
/* A query without rows; store_change() returns -ENOENT when it changed none. */
int store_exec(struct store *st, enum stmt q, const struct store_arg *a, const char *what);
int store_change(struct store *st, enum stmt q, const struct store_arg *a, const char *what);
/* Lock and begin; store_tx_end() commits (rolls back when @ret is an error) and unlocks. */
int store_tx_begin(struct store *st);
int store_tx_end(struct store *st, int ret);

/* How column i of a row goes into a struct: fields[i] (columns past them are skipped). */
enum field_kind { F_U64, F_I64, F_BOOL, F_TEXT, F_DUP, F_BLOB };
struct field {
    enum field_kind kind;
    size_t off;  /* of the member */
    size_t size; /* F_TEXT: the member's; F_BLOB: the offset of its size_t length */
};
/* F_DUP, F_BLOB: a malloc()ed copy (NUL-terminated), NULL for SQL NULL */
/* clang-format off */
#define FIELD(type, m, kind) {kind, offsetof(type, m), sizeof(((type *)0)->m)}
#define BLOB(type, m, len)   {F_BLOB, offsetof(type, m), offsetof(type, len)}
/* clang-format on */

struct fill {
    void *out;
    const struct field *f;
    unsigned nf;
    bool found; /* the first row is filled in, the others skipped */
};
/* A row into @arg's (struct fill) struct: a store_row_fn.  0 or -ENOMEM. */
int store_fill_row(void *arg, const struct store_val *col, unsigned n);
/* @q's first row into @out by @f (@nf fields).  0, -ENOENT when none, or its error. */
int store_one(struct store *st, enum stmt q, const struct store_arg *a, void *out,
              const struct field *f, unsigned nf, const char *what);
/* The first @n (at most 3) columns of @q's first row, integers, into @v. */
int store_nums(struct store *st, enum stmt q, const struct store_arg *a, uint64_t *v, unsigned n,
               const char *what);
/* Column @v as an integer (0 for NULL or below 0), or copied into @buf ("" for NULL). */
uint64_t store_u64(const struct store_val *v);
void store_copy(const struct store_val *v, char *buf, size_t size);

/* SQLite's "now", as store times are written: ISO 8601 UTC with milliseconds. */
#define STORE_SQLITE_NOW "strftime('%Y-%m-%dT%H:%M:%fZ','now')"
/* Every query, its parameter types and its text in SQLite's words (store_queries.c). */
extern const struct store_query store_queries[NR_STMTS];

extern const struct store_ops store_sqlite_ops; /* store_sqlite.c */
extern const struct store_ops store_pg_ops;     /* store_pg.c */
extern const struct store_ops store_mem_ops;    /* store_mem.c */

/*
 * store_mem.c, for the conformance suite, which ages rows with SQL on the
 * other back ends: set column @column of table @table's row @id (every row
 * when NULL) to @value, followed by the row id's second character when
 * @id_digit.  0, -ENOENT (no such table, column or row) or -ENOMEM.
 */
int store_mem_set(struct store *st, const char *table, const char *column, const char *id,
                  const char *value, bool id_digit);

#endif /* SLUBLAB_SERVER_SESSION_STORE_INTERNAL_H */
