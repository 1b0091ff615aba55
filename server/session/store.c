/*
 * store.c: the store (store.h), written once for every back end.
 *
 * store_open() picks the back end from the database's name (a
 * postgresql:// URL: store_pg.c; STORE_MEM_DB: store_mem.c, in memory;
 * anything else is a SQLite file: store_sqlite.c) and every function here runs the back end's
 * declared queries (enum stmt, store_internal.h) through its one executor, ops->run(), under the
 * store's mutex; what must be atomic runs between ops->begin() and ops->end().  No SQL lives here.
 * Scenario texts are stored once, found by an FNV-1a hash of the text plus the text itself, so
 * sessions and snapshots of the same scenario share a row.
 */
#include "session/store.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ids.h"
#include "base/json.h"
#include "session/store_internal.h"

/* The back ends, the first whose handles() takes the name; the last takes any. */
static const struct store_ops *const backends[] = {&store_pg_ops, &store_mem_ops,
                                                   &store_sqlite_ops};

int store_open(const char *path, struct store **out, struct strbuf *err)
{
    const struct store_ops *ops = NULL;
    pthread_mutexattr_t attr;
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
    /* recursive: a sequence of queries holds it across them, each query takes it too */
    if (pthread_mutexattr_init(&attr) ||
        pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE) ||
        pthread_mutex_init(&st->lock, &attr)) {
        ops->close(st);
        return -ENOMEM;
    }
    pthread_mutexattr_destroy(&attr);
    *out = st;
    return 0;
}

void store_close(struct store *st)
{
    if (!st)
        return;
    store_unlisten(st); /* its thread may still call into the store */
    pthread_mutex_destroy(&st->lock);
    st->ops->close(st);
}

/* ---- running queries ------------------------------------------------------------ */

/* Run query @q under the lock (taken again by a sequence holding it: it is recursive). */
int store_run(struct store *st, enum stmt q, const struct store_arg *a, store_row_fn *fn, void *arg,
              uint64_t *changed, const char *what)
{
    int ret;

    pthread_mutex_lock(&st->lock);
    ret = st->ops->run(st, q, a, fn, arg, changed, what);
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_exec(struct store *st, enum stmt q, const struct store_arg *a, const char *what)
{
    return store_run(st, q, a, NULL, NULL, NULL, what);
}

/* As store_exec(), but -ENOENT when @q changed no row. */
int store_change(struct store *st, enum stmt q, const struct store_arg *a, const char *what)
{
    uint64_t n = 0;
    int ret = store_run(st, q, a, NULL, NULL, &n, what);

    return ret ? ret : n ? 0 : -ENOENT;
}

/* Lock and begin a transaction; store_tx_end() ends it (committing unless @ret) and unlocks. */
int store_tx_begin(struct store *st)
{
    int ret;

    pthread_mutex_lock(&st->lock);
    if ((ret = st->ops->begin(st)))
        pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_tx_end(struct store *st, int ret)
{
    ret = st->ops->end(st, ret);
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_read_begin(struct store *st)
{
    int ret;

    pthread_mutex_lock(&st->lock);
    if ((ret = (st->ops->begin_read ? st->ops->begin_read : st->ops->begin)(st)))
        pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_read_end(struct store *st)
{
    return store_tx_end(st, 0);
}

uint64_t store_u64(const struct store_val *v)
{
    return v->p && v->p[0] != '-' ? strtoull(v->p, NULL, 10) : 0;
}

void store_copy(const struct store_val *v, char *buf, size_t size)
{
    snprintf(buf, size, "%s", v->p ? v->p : "");
}

/* The first row into @arg's struct; 0 or -ENOMEM. */
int store_fill_row(void *arg, const struct store_val *col, unsigned n)
{
    struct fill *fl = arg;
    unsigned i;

    if (fl->found)
        return 0;
    fl->found = true;
    for (i = 0; i < fl->nf && i < n; i++) {
        const struct field *f = &fl->f[i];
        char *at = (char *)fl->out + f->off, *p = NULL;
        uint64_t u = store_u64(&col[i]);
        int64_t s = col[i].p ? strtoll(col[i].p, NULL, 10) : 0;
        size_t len = col[i].p ? col[i].len : 0;
        bool b = u != 0;

        if (f->kind == F_U64)
            memcpy(at, &u, sizeof(u));
        else if (f->kind == F_I64)
            memcpy(at, &s, sizeof(s));
        else if (f->kind == F_BOOL)
            memcpy(at, &b, sizeof(b));
        else if (f->kind == F_TEXT)
            store_copy(&col[i], at, f->size);
        else if (col[i].p && !(p = malloc(len + 1)))
            return -ENOMEM;
        if (p) {
            memcpy(p, col[i].p, len);
            p[len] = '\0';
        }
        if (f->kind == F_DUP || f->kind == F_BLOB)
            memcpy(at, &p, sizeof(p));
        if (f->kind == F_BLOB)
            memcpy((char *)fl->out + f->size, &len, sizeof(len));
    }
    return 0;
}

/* Query @q's first row into @out by @f (@nf fields).  0, -ENOENT when none, or its error. */
int store_one(struct store *st, enum stmt q, const struct store_arg *a, void *out,
              const struct field *f, unsigned nf, const char *what)
{
    struct fill fl = {out, f, nf, false};
    int ret = store_run(st, q, a, store_fill_row, &fl, NULL, what);

    return ret ? ret : fl.found ? 0 : -ENOENT;
}

/* The first @n columns of @q's first row, integers, into @v. */
int store_nums(struct store *st, enum stmt q, const struct store_arg *a, uint64_t *v, unsigned n,
               const char *what)
{
    static const struct field u64s[] = {
            {F_U64, 0, 0}, {F_U64, sizeof(uint64_t), 0}, {F_U64, 2 * sizeof(uint64_t), 0}};

    return store_one(st, q, a, v, u64s, n, what);
}

/* A blob column, alone in its row. */
struct blob {
    void *p;
    size_t len;
};
static const struct field blob_field[] = {BLOB(struct blob, p, len)};

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
    uint64_t v = 0;
    char hash[17];
    int ret;

    if (len > INT32_MAX)
        return -E2BIG;
    store_hash(text, len, hash);
    pthread_mutex_lock(&st->lock);
    ret = store_nums(st, ST_SCN_FIND, ARGS(A_TEXT(hash), A_TEXTN(text, len)), &v, 1,
                     "finding a scenario");
    if (ret == -ENOENT)
        ret = store_nums(st, ST_SCN_INSERT,
                         ARGS(A_TEXT(name), A_TEXT(hash), A_U64(builtin), A_TEXTN(text, len)), &v,
                         1, "storing a scenario");
    pthread_mutex_unlock(&st->lock);
    if (!ret)
        *id = (int64_t)v;
    return ret;
}

static int insert_batch(struct store *st, const char *id, size_t seq, const struct store_batch *b)
{
    struct store_arg a[] = {A_TEXT(id), A_U64(seq), A_TEXT(b->ops), A_U64(b->limit)};

    a[3].null = b->limit == UINT64_MAX;
    return store_exec(st, ST_BAT_INSERT, a, "storing a batch");
}

int store_session_create(struct store *st, const struct store_session *ss)
{
    size_t i;
    int ret;

    if ((ret = store_tx_begin(st)))
        return ret;
    ret = store_exec(st, ST_SES_INSERT,
                     ARGS(A_TEXT(ss->id), A_TEXT(ss->token), A_I64(ss->scenario),
                          A_TEXT(ss->settings), A_OPT(ss->parent), A_U64(ss->position),
                          A_U64(ss->events), A_OPT(ss->engine), A_OPT(ss->log)),
                     "storing a session");
    for (i = 0; !ret && i < ss->nr_batches; i++)
        ret = insert_batch(st, ss->id, i, &ss->batches[i]);
    return store_tx_end(st, ret);
}

int store_session_add_batch(struct store *st, const char *id, size_t seq,
                            const struct store_batch *b, uint64_t events)
{
    int ret;

    if ((ret = store_tx_begin(st)))
        return ret;
    if (!(ret = insert_batch(st, id, seq, b)))
        ret = store_exec(st, ST_SES_EVENTS, ARGS(A_TEXT(id), A_U64(events)), "updating a session");
    return store_tx_end(st, ret);
}

int store_session_set_position(struct store *st, const char *id, uint64_t position)
{
    return store_exec(st, ST_SES_POS, ARGS(A_TEXT(id), A_U64(position)), "updating a position");
}

int store_session_set_overview(struct store *st, const char *id, const void *data, size_t len)
{
    return store_exec(st, ST_SES_OV_SET, ARGS(A_TEXT(id), A_BLOB(data, len)),
                      "keeping an overview");
}

int store_session_overview(struct store *st, const char *id, unsigned char **data, size_t *len)
{
    struct blob b = {NULL, 0};
    int ret = store_one(st, ST_SES_OV_GET, ARGS(A_TEXT(id)), &b, blob_field, 1,
                        "reading an overview");

    if (!ret && !b.p)
        ret = -ENOENT;
    if (!ret) {
        *data = b.p;
        *len = b.len;
    }
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
    struct store_batch *b = ss->batches;

    (void)n;
    if (!(ss->nr_batches & (ss->nr_batches - 1))) { /* 0, 1, 2, 4...: full */
        if (!(b = realloc(b, (ss->nr_batches ? 2 * ss->nr_batches : 1) * sizeof(*b))))
            return -ENOMEM;
        ss->batches = b;
    }
    b = &ss->batches[ss->nr_batches++];
    b->ops = col[0].p ? strdup(col[0].p) : NULL;
    b->limit = col[1].p ? store_u64(&col[1]) : UINT64_MAX;
    return col[0].p && !b->ops ? -ENOMEM : 0;
}

#define SES(m, kind) FIELD(struct store_session, m, kind)
static const struct field session_fields[] = {
        SES(token, F_TEXT),   SES(scenario, F_I64),      SES(settings, F_DUP),
        SES(parent, F_TEXT),  SES(position, F_U64),      SES(events, F_U64),
        SES(created, F_TEXT), SES(scenario_name, F_DUP), SES(scenario_text, F_DUP),
        SES(engine, F_TEXT),  SES(log, F_TEXT)};

int store_session_load(struct store *st, const char *id, struct store_session *out)
{
    int ret;

    memset(out, 0, sizeof(*out));
    pthread_mutex_lock(&st->lock);
    ret = store_one(st, ST_SES_GET, ARGS(A_TEXT(id)), out, session_fields, 11, "loading a session");
    if (!ret)
        ret = store_run(st, ST_BAT_GET, ARGS(A_TEXT(id)), batch_row, out, NULL, "loading batches");
    pthread_mutex_unlock(&st->lock);
    if (ret)
        store_session_free(out);
    else
        snprintf(out->id, sizeof(out->id), "%s", id);
    return ret;
}

bool store_shared(const struct store *st)
{
    return st->ops->shared;
}

int store_session_batches(struct store *st, const char *id, uint64_t *nr)
{
    return store_nums(st, ST_BAT_COUNT, ARGS(A_TEXT(id)), nr, 1, "counting batches");
}

int store_session_where(struct store *st, const char *id, uint64_t *position, uint64_t *events)
{
    uint64_t v[2];
    int ret = store_nums(st, ST_SES_WHERE, ARGS(A_TEXT(id)), v, 2, "reading a position");

    if (!ret) {
        *position = v[0];
        *events = v[1];
    }
    return ret;
}

int store_session_delete(struct store *st, const char *id)
{
    struct {
        char owner[STORE_CKPT_OWNER_LEN + 1];
    } c = {""};
    static const struct field owner_field[] = {FIELD(__typeof__(c), owner, F_TEXT)};
    struct store_session ss;
    int ret, loaded;

    /* the log and images it uses go with the last session using them */
    loaded = store_session_load(st, id, &ss);
    if (loaded && loaded != -ENOENT)
        return loaded;
    if (!loaded &&
        (ret = store_one(st, ST_SES_CKP_GET, ARGS(A_TEXT(id)), &c, owner_field, 1,
                         "reading a session's checkpoints")) &&
        ret != -ENOENT)
        goto out_free;
    ret = store_change(st, ST_SES_DEL, ARGS(A_TEXT(id)), "deleting");
    if (!ret && !loaded && ss.log[0])
        ret = store_oplog_delete(st, ss.log);
    if (!ret && !loaded && c.owner[0])
        ret = store_ckpt_delete(st, c.owner);
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
    return store_exec(st, ST_LOG_PUT,
                      ARGS(A_TEXT(log), A_U64(seq), A_U64(ops), A_U64(events), A_BYTES(data, len)),
                      "storing an op log chunk");
}

int store_oplog_get(struct store *st, const char *log, uint64_t seq, uint8_t **data, size_t *len)
{
    struct blob b = {NULL, 0};
    int ret = store_one(st, ST_LOG_GET, ARGS(A_TEXT(log), A_U64(seq)), &b, blob_field, 1,
                        "loading an op log chunk");

    *data = b.p;
    *len = b.len;
    return ret;
}

int store_oplog_info(struct store *st, const char *log, uint64_t *chunks, uint64_t *ops,
                     uint64_t *events, size_t *last_len)
{
    uint64_t v[3] = {0, 0, 0}, last = 0;
    int ret;

    pthread_mutex_lock(&st->lock);
    ret = store_nums(st, ST_LOG_INFO, ARGS(A_TEXT(log)), v, 3, "reading an op log");
    if (!ret && v[0])
        ret = store_nums(st, ST_LOG_LAST, ARGS(A_TEXT(log)), &last, 1, "reading an op log");
    pthread_mutex_unlock(&st->lock);
    *chunks = ret ? 0 : v[0];
    *ops = ret ? 0 : v[1];
    *events = ret ? 0 : v[2];
    *last_len = ret ? 0 : (size_t)last;
    return ret;
}

struct log_chunk {
    uint64_t ops, events;
    uint8_t *p;
    size_t len;
};

int store_oplog_chunk(struct store *st, const char *log, uint64_t seq, uint8_t **data, size_t *len,
                      uint64_t *ops, uint64_t *events)
{
    static const struct field fields[] = {FIELD(struct log_chunk, ops, F_U64),
                                          FIELD(struct log_chunk, events, F_U64),
                                          BLOB(struct log_chunk, p, len)};
    struct log_chunk c = {0, 0, NULL, 0};
    int ret = store_one(st, ST_LOG_CHUNK, ARGS(A_TEXT(log), A_U64(seq)), &c, fields, 3,
                        "loading an op log chunk");

    *data = c.p;
    *len = c.len;
    *ops = c.ops;
    *events = c.events;
    return ret;
}

int store_oplog_delete(struct store *st, const char *log)
{
    return store_exec(st, ST_LOG_DEL, ARGS(A_TEXT(log)), "deleting an op log");
}

/* ---- checkpoint images ---------------------------------------------------------- */

int store_ckpt_pages_put(struct store *st, const char *owner, const struct store_ckpt_page *pages,
                         size_t n)
{
    size_t i;
    int ret;

    if ((ret = store_tx_begin(st)))
        return ret;
    for (i = 0; i < n && !ret; i++)
        ret = pages[i].len > INT32_MAX
                      ? -EINVAL
                      : store_exec(st, ST_CKP_PAGE_PUT,
                                   ARGS(A_TEXT(owner), A_BLOB(pages[i].hash, STORE_CKPT_HASH_LEN),
                                        A_BYTES(pages[i].data, pages[i].len)),
                                   "storing a checkpoint page");
    return store_tx_end(st, ret);
}

int store_ckpt_put(struct store *st, const char *owner, const char *tag, const struct store_ckpt *c)
{
    if (c->meta_len > INT32_MAX || c->pages_len > INT32_MAX || c->extra_len > INT32_MAX)
        return -EINVAL;
    return store_exec(st, ST_CKP_PUT,
                      ARGS(A_TEXT(owner), A_TEXT(tag), A_U64(c->seq), A_U64(c->op), A_U64(c->off),
                           A_BYTES(c->meta, c->meta_len), A_BYTES(c->pages, c->pages_len),
                           A_BLOB(c->extra, c->extra_len)),
                      "storing a checkpoint");
}

int store_ckpt_put_all(struct store *st, const char *owner, const char *tag,
                       const struct store_ckpt_page *pages, size_t nr_pages,
                       const struct store_ckpt *c, size_t nr)
{
    size_t i;
    int ret;

    if ((ret = store_tx_begin(st)))
        return ret;
    for (i = 0; i < nr_pages && !ret; i++)
        ret = pages[i].len > INT32_MAX
                      ? -EINVAL
                      : store_exec(st, ST_CKP_PAGE_PUT,
                                   ARGS(A_TEXT(owner), A_BLOB(pages[i].hash, STORE_CKPT_HASH_LEN),
                                        A_BYTES(pages[i].data, pages[i].len)),
                                   "storing a checkpoint page");
    for (i = 0; i < nr && !ret; i++)
        ret = store_ckpt_put(st, owner, tag, &c[i]);
    return store_tx_end(st, ret);
}

struct ckpt_list {
    int (*fn)(void *arg, uint64_t seq, uint64_t op, uint64_t off, bool has_extra);
    void *arg;
};

static int ckpt_row(void *arg, const struct store_val *col, unsigned n)
{
    struct ckpt_list *cl = arg;

    (void)n;
    return cl->fn(cl->arg, store_u64(&col[0]), store_u64(&col[1]), store_u64(&col[2]),
                  store_u64(&col[3]) != 0);
}

int store_ckpt_list(struct store *st, const char *owner, const char *tag,
                    int (*fn)(void *arg, uint64_t seq, uint64_t op, uint64_t off, bool has_extra),
                    void *arg)
{
    struct ckpt_list cl = {fn, arg};

    return store_run(st, ST_CKP_LIST, ARGS(A_TEXT(owner), A_TEXT(tag)), ckpt_row, &cl, NULL,
                     "listing checkpoints");
}

static const struct field ckpt_fields[] = {
        FIELD(struct store_ckpt, op, F_U64), FIELD(struct store_ckpt, off, F_U64),
        BLOB(struct store_ckpt, meta, meta_len), BLOB(struct store_ckpt, pages, pages_len),
        BLOB(struct store_ckpt, extra, extra_len)};

int store_ckpt_get(struct store *st, const char *owner, const char *tag, uint64_t seq,
                   struct store_ckpt *out)
{
    int ret;

    memset(out, 0, sizeof(*out));
    ret = store_one(st, ST_CKP_GET, ARGS(A_TEXT(owner), A_TEXT(tag), A_U64(seq)), out, ckpt_fields,
                    5, "reading a checkpoint");
    if (ret)
        store_ckpt_free(out);
    else
        out->seq = seq;
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
    struct blob b = {NULL, 0};
    int ret = store_one(st, ST_CKP_PAGE_GET, ARGS(A_TEXT(owner), A_BLOB(hash, STORE_CKPT_HASH_LEN)),
                        &b, blob_field, 1, "reading a checkpoint page");

    *data = b.p;
    *len = b.len;
    return ret;
}

int store_ckpt_count(struct store *st, const char *owner, uint64_t *images, uint64_t *pages)
{
    uint64_t v[2] = {0, 0};
    int ret = store_nums(st, ST_CKP_COUNT, ARGS(A_TEXT(owner)), v, 2, "counting checkpoints");

    *images = v[0];
    *pages = v[1];
    return ret;
}

int store_session_set_ckpts(struct store *st, const char *id, const char *owner)
{
    return store_change(st, ST_SES_CKP_SET, ARGS(A_TEXT(id), A_TEXT(owner)),
                        "naming a session's checkpoints");
}

int store_ckpt_delete(struct store *st, const char *owner)
{
    int ret;

    if ((ret = store_tx_begin(st)))
        return ret;
    if (!(ret = store_exec(st, ST_CKP_DEL, ARGS(A_TEXT(owner)), "deleting checkpoints")))
        ret = store_exec(st, ST_CKP_PAGE_DEL, ARGS(A_TEXT(owner)), "deleting checkpoint pages");
    return store_tx_end(st, ret);
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
