/*
 * store.c: the store (store.h), written once for every back end.
 *
 * store_open() picks the back end from the database's name (a
 * postgresql:// URL: store_pg.c; anything else is a SQLite file:
 * store_sqlite.c) and every function here runs the back end's declared
 * queries (enum stmt, store_internal.h) through its one executor,
 * ops->run(), under the store's mutex; what must be atomic runs between
 * ops->begin() and ops->end().  No SQL lives here.  Scenario texts are
 * stored once, found by an FNV-1a hash of the text plus the text itself,
 * so sessions and snapshots of the same scenario share a row.
 */
#include "session/store.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ids.h"
#include "base/json.h"
#include "session/store_internal.h"

/* The back ends, the first whose handles() takes the name; the last takes any. */
static const struct store_ops *const backends[] = {&store_pg_ops, &store_sqlite_ops};

int store_open(const char *path, struct store **out, struct strbuf *err)
{
    const struct store_ops *ops = NULL;
    struct store *st;
    size_t i;
    int ret;

    for (i = 0; !ops && i < sizeof(backends) / sizeof(backends[0]); i++) {
        if (!backends[i]->handles || backends[i]->handles(path))
            ops = backends[i];
    }
    if ((ret = ops->open(path, &st, err)))
        return ret;
    st->ops = ops;
    if (pthread_mutex_init(&st->lock, NULL)) {
        ops->close(st);
        return -ENOMEM;
    }
    *out = st;
    return 0;
}

void store_close(struct store *st)
{
    if (!st)
        return;
    pthread_mutex_destroy(&st->lock);
    st->ops->close(st);
}

/* ---- running queries ------------------------------------------------------------ */

/* Query @q alone, under the lock; the rows it changed in *changed when not NULL. */
static int run1(struct store *st, enum stmt q, const struct store_arg *a, store_row_fn *fn,
                void *arg, uint64_t *changed, const char *what)
{
    int ret;

    pthread_mutex_lock(&st->lock);
    ret = st->ops->run(st, q, a, fn, arg, changed, what);
    pthread_mutex_unlock(&st->lock);
    return ret;
}

static int exec1(struct store *st, enum stmt q, const struct store_arg *a, const char *what)
{
    return run1(st, q, a, NULL, NULL, NULL, what);
}

/* As exec1(), but -ENOENT when @q changed no row. */
static int change1(struct store *st, enum stmt q, const struct store_arg *a, const char *what)
{
    uint64_t n = 0;
    int ret = run1(st, q, a, NULL, NULL, &n, what);

    return ret ? ret : n ? 0 : -ENOENT;
}

/* Lock and begin a transaction; tx_end() ends it (committing unless @ret) and unlocks. */
static int tx_begin(struct store *st)
{
    int ret;

    pthread_mutex_lock(&st->lock);
    if ((ret = st->ops->begin(st)))
        pthread_mutex_unlock(&st->lock);
    return ret;
}

static int tx_end(struct store *st, int ret)
{
    ret = st->ops->end(st, ret);
    pthread_mutex_unlock(&st->lock);
    return ret;
}

/* The first row of a query, its columns copied (NUL-terminated; row_free() them). */
struct row {
    struct store_val col[STORE_MAX_COLS];
    char *own[STORE_MAX_COLS];
    bool found;
};

static int row_keep(void *arg, const struct store_val *col, unsigned n)
{
    struct row *r = arg;
    unsigned i;

    if (r->found)
        return 0;
    r->found = true;
    for (i = 0; i < n && i < STORE_MAX_COLS; i++) {
        if (!col[i].p)
            continue;
        if (!(r->own[i] = malloc(col[i].len + 1)))
            return -ENOMEM;
        memcpy(r->own[i], col[i].p, col[i].len);
        r->own[i][col[i].len] = '\0';
        r->col[i] = (struct store_val){r->own[i], col[i].len};
    }
    return 0;
}

static void row_free(struct row *r)
{
    unsigned i;

    for (i = 0; i < STORE_MAX_COLS; i++)
        free(r->own[i]);
    memset(r, 0, sizeof(*r));
}

/* Column @i, now the caller's (NULL for SQL NULL). */
static char *row_take(struct row *r, unsigned i)
{
    char *p = r->own[i];

    r->own[i] = NULL;
    r->col[i].p = NULL;
    return p;
}

/* Query @q's first row into @r (lock held).  0, -ENOENT when none, or the query's error. */
static int row_get(struct store *st, enum stmt q, const struct store_arg *a, struct row *r,
                   const char *what)
{
    int ret;

    memset(r, 0, sizeof(*r));
    ret = st->ops->run(st, q, a, row_keep, r, NULL, what);
    if (!ret && !r->found)
        ret = -ENOENT;
    if (ret)
        row_free(r);
    return ret;
}

/* As row_get(), taking the lock. */
static int row_load(struct store *st, enum stmt q, const struct store_arg *a, struct row *r,
                    const char *what)
{
    int ret;

    pthread_mutex_lock(&st->lock);
    ret = row_get(st, q, a, r, what);
    pthread_mutex_unlock(&st->lock);
    return ret;
}

static uint64_t u64_of(const struct store_val *v)
{
    return v->p && v->p[0] != '-' ? strtoull(v->p, NULL, 10) : 0;
}

static void copy_of(const struct store_val *v, char *buf, size_t size)
{
    snprintf(buf, size, "%s", v->p ? v->p : "");
}

/* A malloc()ed copy of text column @v; NULL for SQL NULL (and when out of memory). */
static char *dup_of(const struct store_val *v)
{
    return v->p ? strdup(v->p) : NULL;
}

/* ---- scenarios and sessions ----------------------------------------------------- */

static void store_hash(const char *text, size_t len, char out[17])
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
    struct row r;
    int ret;

    if (len > INT32_MAX)
        return -E2BIG;
    store_hash(text, len, hash);
    pthread_mutex_lock(&st->lock);
    ret = row_get(st, ST_SCN_FIND, (struct store_arg[]){A_TEXT(hash), A_TEXTN(text, len)}, &r,
                  "finding a scenario");
    if (ret == -ENOENT)
        ret = row_get(st, ST_SCN_INSERT,
                      (struct store_arg[]){A_TEXT(name), A_TEXT(hash), A_U64(builtin),
                                           A_TEXTN(text, len)},
                      &r, "storing a scenario");
    pthread_mutex_unlock(&st->lock);
    if (!ret)
        *id = strtoll(r.col[0].p ? r.col[0].p : "0", NULL, 10);
    row_free(&r);
    return ret;
}

static int insert_batch(struct store *st, const char *id, size_t seq, const struct store_batch *b)
{
    struct store_arg a[] = {A_TEXT(id), A_U64(seq), A_TEXT(b->ops), A_U64(b->limit)};

    a[3].null = b->limit == UINT64_MAX;
    return st->ops->run(st, ST_BAT_INSERT, a, NULL, NULL, NULL, "storing a batch");
}

int store_session_create(struct store *st, const struct store_session *ss)
{
    struct store_arg a[] = {A_TEXT(ss->id),       A_TEXT(ss->token), A_I64(ss->scenario),
                            A_TEXT(ss->settings), A_OPT(ss->parent), A_U64(ss->position),
                            A_U64(ss->events),    A_OPT(ss->engine), A_OPT(ss->log)};
    size_t i;
    int ret;

    if ((ret = tx_begin(st)))
        return ret;
    ret = st->ops->run(st, ST_SES_INSERT, a, NULL, NULL, NULL, "storing a session");
    for (i = 0; !ret && i < ss->nr_batches; i++)
        ret = insert_batch(st, ss->id, i, &ss->batches[i]);
    return tx_end(st, ret);
}

int store_session_add_batch(struct store *st, const char *id, size_t seq,
                            const struct store_batch *b, uint64_t events)
{
    int ret;

    if ((ret = tx_begin(st)))
        return ret;
    ret = insert_batch(st, id, seq, b);
    if (!ret)
        ret = st->ops->run(st, ST_SES_EVENTS, (struct store_arg[]){A_TEXT(id), A_U64(events)}, NULL,
                           NULL, NULL, "updating a session");
    return tx_end(st, ret);
}

int store_session_set_position(struct store *st, const char *id, uint64_t position)
{
    return exec1(st, ST_SES_POS, (struct store_arg[]){A_TEXT(id), A_U64(position)},
                 "updating a position");
}

int store_session_set_overview(struct store *st, const char *id, const void *data, size_t len)
{
    return exec1(st, ST_SES_OV_SET, (struct store_arg[]){A_TEXT(id), A_BLOB(data, len)},
                 "keeping an overview");
}

/* Column 0 of @q's row, a blob, into a malloc()ed *data of *len bytes; -ENOENT when NULL. */
static int blob_load(struct store *st, enum stmt q, const struct store_arg *a, void **data,
                     size_t *len, const char *what)
{
    struct row r;
    int ret = row_load(st, q, a, &r, what);

    if (!ret && !r.col[0].p)
        ret = -ENOENT;
    if (!ret) {
        *len = r.col[0].len;
        *data = row_take(&r, 0);
    }
    row_free(&r);
    return ret;
}

int store_session_overview(struct store *st, const char *id, unsigned char **data, size_t *len)
{
    void *p;
    int ret = blob_load(st, ST_SES_OV_GET, (struct store_arg[]){A_TEXT(id)}, &p, len,
                        "reading an overview");

    if (!ret)
        *data = p;
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

static int batch_row(void *arg, const struct store_val *col, unsigned n)
{
    struct store_session *ss = arg;
    struct store_batch *b;

    (void)n;
    if (!(ss->nr_batches & (ss->nr_batches - 1))) { /* 0, 1, 2, 4...: full */
        b = realloc(ss->batches, (ss->nr_batches ? 2 * ss->nr_batches : 1) * sizeof(*b));
        if (!b)
            return -ENOMEM;
        ss->batches = b;
    }
    b = &ss->batches[ss->nr_batches++];
    b->ops = dup_of(&col[0]);
    b->limit = col[1].p ? u64_of(&col[1]) : UINT64_MAX;
    return col[0].p && !b->ops ? -ENOMEM : 0;
}

int store_session_load(struct store *st, const char *id, struct store_session *out)
{
    struct store_arg a[] = {A_TEXT(id)};
    struct row r;
    int ret;

    memset(out, 0, sizeof(*out));
    pthread_mutex_lock(&st->lock);
    ret = row_get(st, ST_SES_GET, a, &r, "loading a session");
    if (!ret) {
        snprintf(out->id, sizeof(out->id), "%s", id);
        copy_of(&r.col[0], out->token, sizeof(out->token));
        out->scenario = strtoll(r.col[1].p ? r.col[1].p : "0", NULL, 10);
        out->settings = row_take(&r, 2);
        copy_of(&r.col[3], out->parent, sizeof(out->parent));
        out->position = u64_of(&r.col[4]);
        out->events = u64_of(&r.col[5]);
        copy_of(&r.col[6], out->created, sizeof(out->created));
        out->scenario_name = row_take(&r, 7);
        out->scenario_text = row_take(&r, 8);
        copy_of(&r.col[9], out->engine, sizeof(out->engine));
        copy_of(&r.col[10], out->log, sizeof(out->log));
        row_free(&r);
        if (!out->settings || !out->scenario_name || !out->scenario_text)
            ret = -ENOMEM;
    }
    if (!ret)
        ret = st->ops->run(st, ST_BAT_GET, a, batch_row, out, NULL, "loading batches");
    pthread_mutex_unlock(&st->lock);
    if (ret)
        store_session_free(out);
    return ret;
}

bool store_shared(const struct store *st)
{
    return st->ops->shared;
}

int store_session_batches(struct store *st, const char *id, uint64_t *nr)
{
    struct row r;
    int ret = row_load(st, ST_BAT_COUNT, (struct store_arg[]){A_TEXT(id)}, &r, "counting batches");

    if (!ret)
        *nr = u64_of(&r.col[0]);
    row_free(&r);
    return ret;
}

int store_session_where(struct store *st, const char *id, uint64_t *position, uint64_t *events)
{
    struct row r;
    int ret =
            row_load(st, ST_SES_WHERE, (struct store_arg[]){A_TEXT(id)}, &r, "reading a position");

    if (!ret) {
        *position = u64_of(&r.col[0]);
        *events = u64_of(&r.col[1]);
    }
    row_free(&r);
    return ret;
}

/* The checkpoint owner session @id names into @owner ("" when none). */
static int session_ckpts(struct store *st, const char *id, char owner[STORE_CKPT_OWNER_LEN + 1])
{
    struct row r;
    int ret = row_load(st, ST_SES_CKP_GET, (struct store_arg[]){A_TEXT(id)}, &r,
                       "reading a session's checkpoints");

    owner[0] = '\0';
    if (!ret)
        copy_of(&r.col[0], owner, STORE_CKPT_OWNER_LEN + 1);
    row_free(&r);
    return ret == -ENOENT ? 0 : ret;
}

int store_session_delete(struct store *st, const char *id)
{
    char owner[STORE_CKPT_OWNER_LEN + 1];
    struct store_session ss;
    int ret, loaded;

    /* the log it replays goes with the last session replaying it */
    loaded = store_session_load(st, id, &ss);
    if (loaded && loaded != -ENOENT)
        return loaded;
    if (!loaded && (ret = session_ckpts(st, id, owner)))
        goto out_free;
    ret = change1(st, ST_SES_DEL, (struct store_arg[]){A_TEXT(id)}, "deleting");
    if (!ret && !loaded && ss.log[0])
        ret = store_oplog_delete(st, ss.log);
    if (!ret && !loaded && owner[0])
        ret = store_ckpt_delete(st, owner);
out_free:
    if (!loaded)
        store_session_free(&ss);
    return ret;
}

/* ---- op logs -------------------------------------------------------------------- */

int store_oplog_put(struct store *st, const char *log, uint64_t seq, const uint8_t *data,
                    size_t len, uint64_t ops, uint64_t events)
{
    if (len > INT32_MAX)
        return -EINVAL;
    return exec1(st, ST_LOG_PUT,
                 (struct store_arg[]){A_TEXT(log), A_U64(seq), A_U64(ops), A_U64(events),
                                      A_BYTES(data, len)},
                 "storing an op log chunk");
}

int store_oplog_get(struct store *st, const char *log, uint64_t seq, uint8_t **data, size_t *len)
{
    void *p = NULL;
    int ret;

    *len = 0;
    ret = blob_load(st, ST_LOG_GET, (struct store_arg[]){A_TEXT(log), A_U64(seq)}, &p, len,
                    "loading an op log chunk");
    *data = p;
    return ret;
}

int store_oplog_info(struct store *st, const char *log, uint64_t *chunks, uint64_t *ops,
                     uint64_t *events, size_t *last_len)
{
    struct store_arg a[] = {A_TEXT(log)};
    struct row r;
    int ret;

    *chunks = *ops = *events = 0;
    *last_len = 0;
    pthread_mutex_lock(&st->lock);
    if (!(ret = row_get(st, ST_LOG_INFO, a, &r, "reading an op log"))) {
        *chunks = u64_of(&r.col[0]);
        *ops = u64_of(&r.col[1]);
        *events = u64_of(&r.col[2]);
        row_free(&r);
    }
    if (!ret && *chunks && !(ret = row_get(st, ST_LOG_LAST, a, &r, "reading an op log"))) {
        *last_len = (size_t)u64_of(&r.col[0]);
        row_free(&r);
    }
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_oplog_delete(struct store *st, const char *log)
{
    return exec1(st, ST_LOG_DEL, (struct store_arg[]){A_TEXT(log)}, "deleting an op log");
}

/* ---- checkpoint images ---------------------------------------------------------- */

int store_ckpt_pages_put(struct store *st, const char *owner, const struct store_ckpt_page *pages,
                         size_t n)
{
    size_t i;
    int ret;

    if ((ret = tx_begin(st)))
        return ret;
    for (i = 0; i < n && !ret; i++) {
        struct store_arg a[] = {A_TEXT(owner), A_BLOB(pages[i].hash, STORE_CKPT_HASH_LEN),
                                A_BYTES(pages[i].data, pages[i].len)};

        ret = pages[i].len > INT32_MAX ? -EINVAL
                                       : st->ops->run(st, ST_CKP_PAGE_PUT, a, NULL, NULL, NULL,
                                                      "storing a checkpoint page");
    }
    return tx_end(st, ret);
}

int store_ckpt_put(struct store *st, const char *owner, const char *tag, const struct store_ckpt *c)
{
    if (c->meta_len > INT32_MAX || c->pages_len > INT32_MAX || c->extra_len > INT32_MAX)
        return -EINVAL;
    return exec1(st, ST_CKP_PUT,
                 (struct store_arg[]){A_TEXT(owner), A_TEXT(tag), A_U64(c->seq), A_U64(c->op),
                                      A_U64(c->off), A_BYTES(c->meta, c->meta_len),
                                      A_BYTES(c->pages, c->pages_len),
                                      A_BLOB(c->extra, c->extra_len)},
                 "storing a checkpoint");
}

struct ckpt_list {
    int (*fn)(void *arg, uint64_t seq, uint64_t op, uint64_t off, bool has_extra);
    void *arg;
};

static int ckpt_row(void *arg, const struct store_val *col, unsigned n)
{
    struct ckpt_list *cl = arg;

    (void)n;
    return cl->fn(cl->arg, u64_of(&col[0]), u64_of(&col[1]), u64_of(&col[2]), u64_of(&col[3]) != 0);
}

int store_ckpt_list(struct store *st, const char *owner, const char *tag,
                    int (*fn)(void *arg, uint64_t seq, uint64_t op, uint64_t off, bool has_extra),
                    void *arg)
{
    struct ckpt_list cl = {fn, arg};

    return run1(st, ST_CKP_LIST, (struct store_arg[]){A_TEXT(owner), A_TEXT(tag)}, ckpt_row, &cl,
                NULL, "listing checkpoints");
}

int store_ckpt_get(struct store *st, const char *owner, const char *tag, uint64_t seq,
                   struct store_ckpt *out)
{
    struct row r;
    int ret;

    memset(out, 0, sizeof(*out));
    ret = row_load(st, ST_CKP_GET, (struct store_arg[]){A_TEXT(owner), A_TEXT(tag), A_U64(seq)}, &r,
                   "reading a checkpoint");
    if (ret)
        return ret;
    out->seq = seq;
    out->op = u64_of(&r.col[0]);
    out->off = u64_of(&r.col[1]);
    out->meta_len = r.col[2].len;
    out->pages_len = r.col[3].len;
    out->extra_len = r.col[4].p ? r.col[4].len : 0;
    out->meta = row_take(&r, 2);
    out->pages = row_take(&r, 3);
    out->extra = row_take(&r, 4);
    row_free(&r);
    return 0;
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
    void *p = NULL;
    int ret;

    *len = 0;
    ret = blob_load(st, ST_CKP_PAGE_GET,
                    (struct store_arg[]){A_TEXT(owner), A_BLOB(hash, STORE_CKPT_HASH_LEN)}, &p, len,
                    "reading a checkpoint page");
    *data = p;
    return ret;
}

int store_ckpt_count(struct store *st, const char *owner, uint64_t *images, uint64_t *pages)
{
    struct row r;
    int ret;

    *images = *pages = 0;
    ret = row_load(st, ST_CKP_COUNT, (struct store_arg[]){A_TEXT(owner)}, &r,
                   "counting checkpoints");
    if (!ret) {
        *images = u64_of(&r.col[0]);
        *pages = u64_of(&r.col[1]);
    }
    row_free(&r);
    return ret;
}

int store_session_set_ckpts(struct store *st, const char *id, const char *owner)
{
    return change1(st, ST_SES_CKP_SET, (struct store_arg[]){A_TEXT(id), A_TEXT(owner)},
                   "naming a session's checkpoints");
}

int store_ckpt_delete(struct store *st, const char *owner)
{
    struct store_arg a[] = {A_TEXT(owner)};
    int ret;

    if ((ret = tx_begin(st)))
        return ret;
    ret = st->ops->run(st, ST_CKP_DEL, a, NULL, NULL, NULL, "deleting checkpoints");
    if (!ret)
        ret = st->ops->run(st, ST_CKP_PAGE_DEL, a, NULL, NULL, NULL, "deleting checkpoint pages");
    return tx_end(st, ret);
}

/* ---- lists ---------------------------------------------------------------------- */

static const char *const session_cols[] = {"id",     "scenario", "parent", "position",
                                           "events", "created",  NULL};
static const char *const snapshot_cols[] = {"id",       "title",  "scenario", "session",
                                            "position", "engine", "created",  NULL};
#define SESSION_INTS  ((1u << 3) | (1u << 4)) /* position, events */
#define SNAPSHOT_INTS (1u << 4)               /* position */

/* The rows of a list: {key: [...], "total": N}. */
struct list {
    cJSON *o, *arr;
    const char *const *cols; /* NULL-terminated */
    unsigned ints;           /* the columns that are integers, by bit */
    /* store_snapshot_list_for(): the tokens held, the rows seen and the page */
    const cJSON *tokens;
    uint64_t total;
    unsigned limit, offset;
};

static int list_start(struct list *l, const char *key, const char *const *cols, unsigned ints)
{
    l->cols = cols;
    l->ints = ints;
    if (!(l->o = cJSON_CreateObject()) || !json_put(l->o, key, l->arr = cJSON_CreateArray()))
        return -ENOMEM;
    return 0;
}

/* One row: column c under cols[c] (null for SQL NULL), an integer where ints has bit c. */
static int list_row(void *arg, const struct store_val *col, unsigned n)
{
    struct list *l = arg;
    cJSON *row = cJSON_CreateObject();
    unsigned c;

    if (!json_push(l->arr, row))
        return -ENOMEM;
    for (c = 0; l->cols[c] && c < n; c++) {
        cJSON *v = (l->ints >> c & 1) ? json_uint(u64_of(&col[c]))
                   : col[c].p         ? cJSON_CreateString(col[c].p)
                                      : cJSON_CreateNull();

        if (!json_put(row, l->cols[c], v))
            return -ENOMEM;
    }
    return 0;
}

/* The list in *out with its "total" when @ret is 0; freed otherwise.  Returns @ret. */
static int list_end(struct list *l, int ret, cJSON **out)
{
    if (!ret && !json_put(l->o, "total", json_uint(l->total)))
        ret = -ENOMEM;
    if (ret)
        cJSON_Delete(l->o);
    else
        *out = l->o;
    return ret;
}

/* A page of list @q (LIMIT, OFFSET) and the count of all its rows by @count. */
static int list_page(struct store *st, enum stmt q, enum stmt count, const char *key,
                     const char *const *cols, unsigned ints, unsigned limit, unsigned offset,
                     cJSON **out)
{
    struct list l = {0};
    struct row r;
    int ret;

    if ((ret = list_start(&l, key, cols, ints)))
        return list_end(&l, ret, out);
    pthread_mutex_lock(&st->lock);
    ret = st->ops->run(st, q, (struct store_arg[]){A_U64(limit), A_U64(offset)}, list_row, &l, NULL,
                       "listing");
    if (!ret && !(ret = row_get(st, count, NULL, &r, "counting"))) {
        l.total = u64_of(&r.col[0]);
        row_free(&r);
    }
    pthread_mutex_unlock(&st->lock);
    return list_end(&l, ret, out);
}

int store_session_list(struct store *st, unsigned limit, unsigned offset, cJSON **out)
{
    return list_page(st, ST_SES_LIST, ST_SES_COUNT, "sessions", session_cols, SESSION_INTS, limit,
                     offset, out);
}

int store_snapshot_list(struct store *st, unsigned limit, unsigned offset, cJSON **out)
{
    return list_page(st, ST_SNP_LIST, ST_SNP_COUNT, "snapshots", snapshot_cols, SNAPSHOT_INTS,
                     limit, offset, out);
}

/* A row of ST_SNP_LIST_FOR (the columns of a snapshot list, published, token),
 * listed when published or when @l->tokens holds its token. */
static int list_for_row(void *arg, const struct store_val *col, unsigned n)
{
    struct list *l = arg;
    const cJSON *t = col[0].p ? cJSON_GetObjectItemCaseSensitive(l->tokens, col[0].p) : NULL;
    bool published = u64_of(&col[7]) != 0;
    bool mine = cJSON_IsString(t) && col[8].p && ids_token_equal(t->valuestring, col[8].p);
    cJSON *row;
    int ret;

    if (!published && !mine)
        return 0; /* an id without its token lists nothing */
    if (l->total++ < l->offset || l->total > (uint64_t)l->offset + l->limit)
        return 0;
    if ((ret = list_row(l, col, n < 7 ? n : 7)))
        return ret;
    row = cJSON_GetArrayItem(l->arr, cJSON_GetArraySize(l->arr) - 1);
    if (!json_put(row, "published", cJSON_CreateBool(published)) ||
        !json_put(row, "mine", cJSON_CreateBool(mine)))
        return -ENOMEM;
    return 0;
}

int store_snapshot_list_for(struct store *st, const cJSON *tokens, unsigned limit, unsigned offset,
                            cJSON **out)
{
    struct list l = {.tokens = tokens, .limit = limit, .offset = offset};
    cJSON *ids = cJSON_CreateArray();
    char *ids_text = NULL; /* the JSON array of the ids @tokens holds: the query's parameter */
    const cJSON *t;
    int ret = ids ? list_start(&l, "snapshots", snapshot_cols, SNAPSHOT_INTS) : -ENOMEM;

    cJSON_ArrayForEach(t, tokens)
    {
        if (!ret && !json_push(ids, cJSON_CreateString(t->string)))
            ret = -ENOMEM;
    }
    if (!ret && !(ids_text = cJSON_PrintUnformatted(ids)))
        ret = -ENOMEM;
    cJSON_Delete(ids);
    if (!ret)
        ret = run1(st, ST_SNP_LIST_FOR, (struct store_arg[]){A_TEXT(ids_text)}, list_for_row, &l,
                   NULL, "listing snapshots");
    cJSON_free(ids_text);
    return list_end(&l, ret, out);
}

/* ---- snapshots ------------------------------------------------------------------ */

int store_snapshot_set_check(struct store *st, const char *id, const char *engine,
                             const char *status, const char *warning)
{
    return change1(
            st, ST_SNP_CHECK,
            (struct store_arg[]){A_TEXT(id), A_TEXT(engine), A_TEXT(status), A_TEXT(warning)},
            "keeping a snapshot's check");
}

int store_snapshot_create(struct store *st, const struct store_snapshot *sn)
{
    return exec1(st, ST_SNP_INSERT,
                 (struct store_arg[]){A_TEXT(sn->id), A_TEXT(sn->token),
                                      A_TEXT(sn->title ? sn->title : ""), A_I64(sn->scenario),
                                      A_TEXT(sn->settings), A_TEXT(sn->batches),
                                      A_U64(sn->position), A_TEXT(sn->engine), A_TEXT(sn->state),
                                      A_OPT(sn->session)},
                 "storing a snapshot");
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
    struct row r;
    int ret;

    memset(out, 0, sizeof(*out));
    if ((ret = row_load(st, ST_SNP_GET, (struct store_arg[]){A_TEXT(id)}, &r,
                        "loading a snapshot")))
        return ret;
    snprintf(out->id, sizeof(out->id), "%s", id);
    copy_of(&r.col[0], out->token, sizeof(out->token));
    out->title = row_take(&r, 1);
    out->scenario = strtoll(r.col[2].p ? r.col[2].p : "0", NULL, 10);
    out->settings = row_take(&r, 3);
    out->batches = row_take(&r, 4);
    out->position = u64_of(&r.col[5]);
    out->engine = row_take(&r, 6);
    out->state = row_take(&r, 7);
    copy_of(&r.col[8], out->session, sizeof(out->session));
    copy_of(&r.col[9], out->created, sizeof(out->created));
    out->scenario_name = row_take(&r, 10);
    out->scenario_text = row_take(&r, 11);
    if (r.col[12].p && r.col[13].p) {
        out->check_engine = row_take(&r, 12);
        out->check_status = row_take(&r, 13);
        out->check_warning = row_take(&r, 14); /* NULL when there was none */
    }
    out->published = u64_of(&r.col[15]) != 0;
    row_free(&r);
    if (!out->title || !out->settings || !out->batches || !out->engine || !out->state ||
        !out->scenario_name || !out->scenario_text)
        ret = -ENOMEM;
    if (ret)
        store_snapshot_free(out);
    return ret;
}

int store_snapshot_delete(struct store *st, const char *id)
{
    return change1(st, ST_SNP_DEL, (struct store_arg[]){A_TEXT(id)}, "deleting");
}

int store_snapshot_set_published(struct store *st, const char *id, bool published)
{
    return change1(st, ST_SNP_PUBLISH, (struct store_arg[]){A_TEXT(id), A_U64(published)},
                   "publishing a snapshot");
}

int store_snapshots_expire(struct store *st, unsigned days, uint64_t *deleted)
{
    *deleted = 0;
    return run1(st, ST_SNP_EXPIRE, (struct store_arg[]){A_U64(days)}, NULL, NULL, deleted,
                "deleting old snapshots");
}

struct older {
    char (*ids)[STORE_ID_MAX + 1];
    size_t max, *n;
};

static int older_row(void *arg, const struct store_val *col, unsigned n)
{
    struct older *o = arg;

    (void)n;
    if (*o->n < o->max)
        copy_of(&col[0], o->ids[(*o->n)++], STORE_ID_MAX + 1);
    return 0;
}

int store_sessions_older(struct store *st, unsigned days, char (*ids)[STORE_ID_MAX + 1], size_t max,
                         size_t *n)
{
    struct older o = {ids, max, n};

    *n = 0;
    return run1(st, ST_SES_OLD, (struct store_arg[]){A_U64(days), A_U64(max)}, older_row, &o, NULL,
                "listing old sessions");
}

/* ---- lectures ------------------------------------------------------------------- */

int store_lecture_create(struct store *st, const struct store_lecture *lc)
{
    return exec1(st, ST_LEC_INSERT,
                 (struct store_arg[]){A_TEXT(lc->id), A_TEXT(lc->token), A_TEXT(lc->session),
                                      A_U64(lc->position), A_U64(lc->events), A_U64(lc->ops)},
                 "storing a lecture");
}

int store_lecture_set(struct store *st, const struct store_lecture *lc)
{
    return change1(st, ST_LEC_SET,
                   (struct store_arg[]){A_TEXT(lc->id), A_TEXT(lc->session), A_U64(lc->position),
                                        A_U64(lc->events), A_U64(lc->ops)},
                   "changing a lecture");
}

int store_lecture_delete(struct store *st, const char *id)
{
    return change1(st, ST_LEC_DEL, (struct store_arg[]){A_TEXT(id)}, "deleting");
}

struct lectures {
    int (*fn)(const struct store_lecture *lc, void *arg); /* NULL: keep the first in @lc */
    void *arg;
    struct store_lecture lc;
    bool found;
};

/* A row of ST_LEC_LIST or ST_LEC_GET. */
static int lecture_row(void *arg, const struct store_val *col, unsigned n)
{
    struct lectures *ls = arg;

    (void)n;
    if (ls->found && !ls->fn)
        return 0;
    memset(&ls->lc, 0, sizeof(ls->lc));
    copy_of(&col[0], ls->lc.id, sizeof(ls->lc.id));
    copy_of(&col[1], ls->lc.token, sizeof(ls->lc.token));
    copy_of(&col[2], ls->lc.session, sizeof(ls->lc.session));
    ls->lc.position = u64_of(&col[3]);
    ls->lc.events = u64_of(&col[4]);
    ls->lc.ops = u64_of(&col[5]);
    ls->found = true;
    return ls->fn ? ls->fn(&ls->lc, ls->arg) : 0;
}

int store_lectures_load(struct store *st, unsigned max,
                        int (*fn)(const struct store_lecture *lc, void *arg), void *arg)
{
    struct lectures ls = {.fn = fn, .arg = arg};

    return run1(st, ST_LEC_LIST, (struct store_arg[]){A_U64(max)}, lecture_row, &ls, NULL,
                "loading the lectures");
}

int store_lecture_load(struct store *st, const char *id, struct store_lecture *out)
{
    struct lectures ls = {.fn = NULL};
    int ret = run1(st, ST_LEC_GET, (struct store_arg[]){A_TEXT(id)}, lecture_row, &ls, NULL,
                   "loading a lecture");

    if (!ret && !ls.found)
        ret = -ENOENT;
    if (!ret)
        *out = ls.lc;
    return ret;
}

/* ---- trace jobs and answers ----------------------------------------------------- */

int store_trace_job_put(struct store *st, const struct store_trace_job *j, bool *cancel)
{
    struct store_arg a[] = {A_TEXT(j->id),     A_TEXT(j->state),   A_U64(j->bytes),
                            A_U64(j->done),    A_U64(j->total),    A_U64(j->events),
                            A_U64(j->built),   A_U64(j->recorded), A_TEXT(j->session),
                            A_TEXT(j->token),  A_TEXT(j->code),    A_TEXT(j->message),
                            A_TEXT(j->report), A_TEXT(j->owner)};
    struct row r;
    int ret = row_load(st, ST_JOB_PUT, a, &r, "storing a trace job"); /* RETURNING cancel */

    if (ret == -ENOENT)
        ret = 0;
    if (!ret && cancel)
        *cancel = u64_of(&r.col[0]) != 0;
    row_free(&r);
    return ret;
}

int store_trace_job_load(struct store *st, const char *id, struct store_trace_job *out)
{
    struct row r;
    int ret;

    memset(out, 0, sizeof(*out));
    if ((ret = row_load(st, ST_JOB_GET, (struct store_arg[]){A_TEXT(id)}, &r,
                        "loading a trace job")))
        return ret;
    snprintf(out->id, sizeof(out->id), "%s", id);
    copy_of(&r.col[0], out->state, sizeof(out->state));
    out->bytes = u64_of(&r.col[1]);
    out->done = u64_of(&r.col[2]);
    out->total = u64_of(&r.col[3]);
    out->events = u64_of(&r.col[4]);
    out->built = u64_of(&r.col[5]);
    out->recorded = u64_of(&r.col[6]);
    copy_of(&r.col[7], out->session, sizeof(out->session));
    copy_of(&r.col[8], out->token, sizeof(out->token));
    copy_of(&r.col[9], out->code, sizeof(out->code));
    copy_of(&r.col[10], out->message, sizeof(out->message));
    out->report = row_take(&r, 11);
    copy_of(&r.col[12], out->owner, sizeof(out->owner));
    out->cancel = u64_of(&r.col[13]) != 0;
    row_free(&r);
    return 0;
}

void store_trace_job_free(struct store_trace_job *j)
{
    free(j->report);
    j->report = NULL;
}

int store_trace_job_delete(struct store *st, const char *id)
{
    return change1(st, ST_JOB_DEL, (struct store_arg[]){A_TEXT(id)}, "deleting a trace job");
}

int store_trace_job_cancel(struct store *st, const char *id)
{
    return change1(st, ST_JOB_CANCEL, (struct store_arg[]){A_TEXT(id)}, "cancelling a trace job");
}

int store_trace_jobs_expire(struct store *st, unsigned days, unsigned stale_seconds,
                            const char *why, uint64_t *failed, uint64_t *deleted)
{
    int ret;

    *failed = *deleted = 0;
    pthread_mutex_lock(&st->lock);
    ret = st->ops->run(st, ST_JOB_STALE, (struct store_arg[]){A_U64(stale_seconds), A_TEXT(why)},
                       NULL, NULL, failed, "failing the trace jobs of a stopped server");
    if (!ret)
        ret = st->ops->run(
                st, ST_JOB_EXPIRE,
                (struct store_arg[]){A_U64(stale_seconds), A_U64((uint64_t)days * 86400)}, NULL,
                NULL, deleted, "deleting old trace jobs");
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_answer_put(struct store *st, const char *lecture, uint64_t at, const char *voter,
                     const char *choice)
{
    return exec1(st, ST_ANS_PUT,
                 (struct store_arg[]){A_TEXT(lecture), A_U64(at), A_TEXT(voter), A_TEXT(choice)},
                 "storing an answer");
}

struct tally {
    int (*fn)(const char *choice, uint64_t n, void *arg);
    void *arg;
};

static int tally_row(void *arg, const struct store_val *col, unsigned n)
{
    struct tally *t = arg;

    (void)n;
    return t->fn(col[0].p ? col[0].p : "", u64_of(&col[1]), t->arg);
}

int store_answers_tally(struct store *st, const char *lecture, uint64_t at,
                        int (*fn)(const char *choice, uint64_t n, void *arg), void *arg)
{
    struct tally t = {fn, arg};

    return run1(st, ST_ANS_TALLY, (struct store_arg[]){A_TEXT(lecture), A_U64(at)}, tally_row, &t,
                NULL, "counting answers");
}

int store_answers_expire(struct store *st, unsigned seconds, uint64_t *deleted)
{
    *deleted = 0;
    return run1(st, ST_ANS_EXPIRE, (struct store_arg[]){A_U64(seconds)}, NULL, NULL, deleted,
                "deleting old answers");
}

/* ---- messages between servers --------------------------------------------------- */

int store_notify(struct store *st, const char *text)
{
    int ret;

    if (!st->ops->notify)
        return 0;
    pthread_mutex_lock(&st->lock);
    ret = st->ops->notify(st, text);
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_listen(struct store *st, store_message_fn *fn, void *arg)
{
    return st->ops->listen ? st->ops->listen(st, fn, arg) : 0;
}

void store_unlisten(struct store *st)
{
    if (st && st->ops->unlisten)
        st->ops->unlisten(st);
}

bool store_available(const struct store *st)
{
    return !st->ops->available || st->ops->available(st);
}
