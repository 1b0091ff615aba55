/*
 * store_mem.c: the store's in-memory back end (store_internal.h's ops), the
 * one `--db mem:` opens: tables of rows in the process's memory, gone when
 * it exits.  It is the store of the lab without a server (docs/wasm.md,
 * "The API in WebAssembly"), where a browser tab holds one student's
 * sessions and neither SQLite nor a socket is there.
 *
 * Each declared query (store_queries.c) is written here once more as C over
 * the tables, answering the rows SQLite would, in its order, with integers
 * as decimal text: the statements of scenarios, sessions and their
 * batches, op logs, checkpoint images and snapshots.  Lectures, trace jobs
 * and followers' answers need a server that many clients reach: their
 * housekeeping queries change nothing and list nothing, the others answer
 * -EOPNOTSUPP, which a route answers as an internal error (the static
 * lab's adapter answers those routes itself).
 *
 * Rows are never changed in place: an update writes a new row and drops
 * the old one.  Rows are reference-counted, so a transaction's begin()
 * keeps a copy of the tables' arrays of rows (not the rows) and a rollback
 * puts it back.  Times are the host's clock, written as SQLite writes them
 * (ISO 8601 UTC with milliseconds).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "session/store_internal.h"

/* A column: text or bytes, always followed by a NUL; @p NULL is SQL NULL. */
struct mem_val {
    char *p;
    size_t len;
};

#define MEM_MAX_COLS 17

struct mem_row {
    unsigned refs; /* the table's array, and each transaction copy holding it */
    struct mem_val col[MEM_MAX_COLS];
};

/* The tables, their columns in the order of store_sqlite.c's schema. */
enum mem_table { T_SCN, T_SES, T_BAT, T_SNP, T_LOG, T_CKP, T_PAGE, NR_TABLES };
enum { SCN_ID, SCN_NAME, SCN_HASH, SCN_BUILTIN, SCN_TEXT, SCN_CREATED };
enum {
    SES_ID,
    SES_TOKEN,
    SES_SCENARIO,
    SES_SETTINGS,
    SES_PARENT,
    SES_POSITION,
    SES_EVENTS,
    SES_ENGINE,
    SES_LOG,
    SES_CREATED,
    SES_UPDATED,
    SES_OVERVIEW,
    SES_CKPTS
};
enum { BAT_SESSION, BAT_SEQ, BAT_OPS, BAT_LIMIT };
enum {
    SNP_ID,
    SNP_TOKEN,
    SNP_TITLE,
    SNP_SCENARIO,
    SNP_SETTINGS,
    SNP_BATCHES,
    SNP_POSITION,
    SNP_ENGINE,
    SNP_STATE,
    SNP_SESSION,
    SNP_LOG,
    SNP_NOTE,
    SNP_CREATED,
    SNP_CHECK_ENGINE,
    SNP_CHECK_STATUS,
    SNP_CHECK_WARNING,
    SNP_PUBLISHED
};
enum { LOG_LOG, LOG_SEQ, LOG_OPS, LOG_EVENTS, LOG_DATA };
enum { CKP_OWNER, CKP_TAG, CKP_SEQ, CKP_OP, CKP_OFF, CKP_META, CKP_PAGES, CKP_EXTRA };
enum { PAGE_OWNER, PAGE_HASH, PAGE_DATA };

struct mem_rows {
    struct mem_row **row; /* in insertion order */
    size_t nr, cap;
};

struct mem_store {
    struct store st; /* first: the store's ops and lock */
    struct mem_rows t[NR_TABLES];
    struct mem_rows saved[NR_TABLES]; /* begin(): the tables as they were */
    bool in_tx;
    int64_t next_scenario; /* the last scenarios id given */
};

static struct mem_store *ms(struct store *st)
{
    return (struct mem_store *)(void *)st; /* st is its first member */
}

/* ---- values and rows ------------------------------------------------------------ */

static void row_put(struct mem_row *r)
{
    unsigned i;

    if (!r || --r->refs)
        return;
    for (i = 0; i < MEM_MAX_COLS; i++)
        free(r->col[i].p);
    free(r);
}

/* A copy of @len bytes at @p (NULL: SQL NULL) into @v.  0 or -ENOMEM. */
static int val_set(struct mem_val *v, const void *p, size_t len)
{
    free(v->p);
    v->p = NULL;
    v->len = 0;
    if (!p)
        return 0;
    if (!(v->p = malloc(len + 1)))
        return -ENOMEM;
    memcpy(v->p, p, len);
    v->p[len] = '\0';
    v->len = len;
    return 0;
}

/* Argument @a of type @type as a column, integers in decimal as SQLite prints them. */
static int val_arg(struct mem_val *v, char type, const struct store_arg *a)
{
    char num[24];

    switch (type) {
    case 't':
        return val_set(v, a->p, a->p && a->len == SIZE_MAX ? strlen(a->p) : a->len);
    case 'b':
        return val_set(v, a->p, a->len);
    case 'i':
        if (a->null)
            return val_set(v, NULL, 0);
        snprintf(num, sizeof(num), "%" PRId64, (int64_t)a->u);
        return val_set(v, num, strlen(num));
    default:
        if (a->null)
            return val_set(v, NULL, 0);
        snprintf(num, sizeof(num), "%" PRId64, (int64_t)a->u); /* SQLite's integers are signed */
        return val_set(v, num, strlen(num));
    }
}

static int val_num(struct mem_val *v, int64_t n)
{
    char num[24];

    snprintf(num, sizeof(num), "%" PRId64, n);
    return val_set(v, num, strlen(num));
}

/* SQLite's "now", or @days and @seconds before it. */
static int val_now(struct mem_val *v, uint64_t days, uint64_t seconds)
{
    struct timespec ts;
    struct tm tm;
    char buf[40], day[24];
    time_t t;

    clock_gettime(CLOCK_REALTIME, &ts);
    t = ts.tv_sec - (time_t)(days * 86400 + seconds);
    if (!gmtime_r(&t, &tm) || !strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm))
        return -EIO;
    snprintf(buf, sizeof(buf), "%s.%03ldZ", day, ts.tv_nsec / 1000000);
    return val_set(v, buf, strlen(buf));
}

static bool val_eq(const struct mem_val *v, const struct mem_val *w)
{
    return v->p && w->p && v->len == w->len && !memcmp(v->p, w->p, v->len);
}

static bool val_is(const struct mem_val *v, const char *s)
{
    return v->p && v->len == strlen(s) && !memcmp(v->p, s, v->len);
}

static int64_t val_i64(const struct mem_val *v)
{
    return v->p ? strtoll(v->p, NULL, 10) : 0;
}

/* NULL sorts first, then text by its bytes, as SQLite's BINARY collation. */
static int val_cmp(const struct mem_val *v, const struct mem_val *w)
{
    int c;

    if (!v->p || !w->p)
        return (v->p != NULL) - (w->p != NULL);
    c = memcmp(v->p, w->p, v->len < w->len ? v->len : w->len);
    return c ? c : (v->len > w->len) - (v->len < w->len);
}

static struct mem_row *row_new(void)
{
    struct mem_row *r = calloc(1, sizeof(*r));

    if (r)
        r->refs = 1;
    return r;
}

/* A copy of @r to change (the one in the table stays as a transaction saw it). */
static struct mem_row *row_copy(const struct mem_row *r)
{
    struct mem_row *c = row_new();
    unsigned i;

    for (i = 0; c && i < MEM_MAX_COLS; i++) {
        if (val_set(&c->col[i], r->col[i].p, r->col[i].len)) {
            row_put(c);
            return NULL;
        }
    }
    return c;
}

static int rows_add(struct mem_rows *t, struct mem_row *r)
{
    if (t->nr == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        struct mem_row **p = realloc(t->row, cap * sizeof(*p));

        if (!p)
            return -ENOMEM;
        t->row = p;
        t->cap = cap;
    }
    t->row[t->nr++] = r;
    return 0;
}

static void rows_del(struct mem_rows *t, size_t i)
{
    row_put(t->row[i]);
    memmove(&t->row[i], &t->row[i + 1], (t->nr - i - 1) * sizeof(t->row[0]));
    t->nr--;
}

static void rows_release(struct mem_rows *t)
{
    size_t i;

    for (i = 0; i < t->nr; i++)
        row_put(t->row[i]);
    free(t->row);
    memset(t, 0, sizeof(*t));
}

/* ---- the queries ---------------------------------------------------------------- */

/* One query's run: its arguments as columns, its rows to the caller. */
struct mem_q {
    struct mem_store *s;
    struct mem_val a[STORE_MAX_ARGS];
    store_row_fn *fn;
    void *arg;
    uint64_t changed;
};

/* Hand @n columns to the caller; its non-zero return stops the query. */
static int emit(struct mem_q *q, const struct mem_val *const *cols, unsigned n)
{
    struct store_val v[STORE_MAX_COLS];
    unsigned i;

    if (!q->fn)
        return 0;
    for (i = 0; i < n; i++) {
        v[i].p = cols[i]->p;
        v[i].len = cols[i]->len;
    }
    return q->fn(q->arg, v, n);
}

/* Emit row @r's columns @idx (@n of them). */
static int emit_cols(struct mem_q *q, const struct mem_row *r, const unsigned *idx, unsigned n)
{
    const struct mem_val *c[STORE_MAX_COLS];
    unsigned i;

    for (i = 0; i < n; i++)
        c[i] = &r->col[idx[i]];
    return emit(q, c, n);
}

/* Emit one integer row of @n values. */
static int emit_nums(struct mem_q *q, const int64_t *v, unsigned n)
{
    struct mem_val val[3] = {{NULL, 0}, {NULL, 0}, {NULL, 0}};
    const struct mem_val *c[3] = {&val[0], &val[1], &val[2]};
    unsigned i;
    int ret = 0;

    for (i = 0; !ret && i < n; i++)
        ret = val_num(&val[i], v[i]);
    if (!ret)
        ret = emit(q, c, n);
    for (i = 0; i < n; i++)
        free(val[i].p);
    return ret;
}

/* The index of the first row of @t whose @col is @v (and @col2 is @v2 when @v2), or -1. */
static long find(const struct mem_rows *t, unsigned col, const struct mem_val *v, unsigned col2,
                 const struct mem_val *v2)
{
    size_t i;

    for (i = 0; i < t->nr; i++) {
        if (val_eq(&t->row[i]->col[col], v) && (!v2 || val_eq(&t->row[i]->col[col2], v2)))
            return (long)i;
    }
    return -1;
}

/* Row @i of table @t changed: column @col to @v (copied), column @col2 to
 * @v2 when given.  Counted in q->changed.  0 or -ENOMEM. */
static int set2(struct mem_q *q, struct mem_rows *t, size_t i, unsigned col,
                const struct mem_val *v, int col2, const struct mem_val *v2)
{
    struct mem_row *c = row_copy(t->row[i]);

    if (!c || val_set(&c->col[col], v->p, v->len) ||
        (col2 >= 0 && val_set(&c->col[col2], v2->p, v2->len))) {
        row_put(c);
        return -ENOMEM;
    }
    row_put(t->row[i]);
    t->row[i] = c;
    q->changed++;
    return 0;
}

/* Insert a row of @n (column, value) pairs from @cols/@vals. */
static int insert(struct mem_q *q, struct mem_rows *t, const unsigned *cols,
                  const struct mem_val *const *vals, unsigned n)
{
    struct mem_row *r = row_new();
    unsigned i;

    for (i = 0; r && i < n; i++) {
        if (val_set(&r->col[cols[i]], vals[i]->p, vals[i]->len)) {
            row_put(r);
            r = NULL;
        }
    }
    if (!r || rows_add(t, r)) {
        row_put(r);
        return -ENOMEM;
    }
    q->changed++;
    return 0;
}

/* The order of a listing query's rows: qsort() takes no argument, and the
 * store's lock is held while it runs. */
static int sort_cols[3], sort_desc[3];
#define BY_NUMBER(col) ((col) + 100) /* sort by column @col as a number */

static int row_order(const void *a, const void *b)
{
    const struct mem_row *r = *(struct mem_row *const *)a, *w = *(struct mem_row *const *)b;
    unsigned i;

    for (i = 0; i < 3 && sort_cols[i] >= 0; i++) {
        int k = sort_cols[i] % 100;
        int64_t x = val_i64(&r->col[k]), y = val_i64(&w->col[k]);
        int c = sort_cols[i] >= 100 ? (x > y) - (x < y) : val_cmp(&r->col[k], &w->col[k]);

        if (c)
            return sort_desc[i] ? -c : c;
    }
    return 0;
}

/* The rows of @t for which @keep is true, in the order of columns @by (ended by -1). */
static struct mem_row **select_rows(const struct mem_rows *t,
                                    bool (*keep)(struct mem_q *, const struct mem_row *),
                                    struct mem_q *q, const int *by, const int *desc, size_t *nr)
{
    struct mem_row **out = malloc((t->nr ? t->nr : 1) * sizeof(*out));
    size_t i, n = 0;

    if (!out)
        return NULL;
    for (i = 0; i < t->nr; i++) {
        if (keep(q, t->row[i]))
            out[n++] = t->row[i];
    }
    for (i = 0; i < 3; i++) {
        sort_cols[i] = by[i];
        sort_desc[i] = desc[i];
        if (by[i] < 0)
            break;
    }
    for (; i < 3; i++)
        sort_cols[i] = -1;
    if (n > 1)
        qsort(out, n, sizeof(*out), row_order);
    *nr = n;
    return out;
}

static const struct mem_row *scenario_of(struct mem_store *s, const struct mem_val *id)
{
    long i = find(&s->t[T_SCN], SCN_ID, id, 0, NULL);

    return i < 0 ? NULL : s->t[T_SCN].row[i];
}

static bool any_with(const struct mem_rows *t, unsigned col, const struct mem_val *v)
{
    return find(t, col, v, 0, NULL) >= 0;
}

/* Delete the rows of @t whose @col is @v (and @col2 is @v2 when @v2). */
static void delete_where(struct mem_q *q, struct mem_rows *t, unsigned col, const struct mem_val *v,
                         unsigned col2, const struct mem_val *v2)
{
    size_t i = 0;

    while (i < t->nr) {
        if (val_eq(&t->row[i]->col[col], v) && (!v2 || val_eq(&t->row[i]->col[col2], v2))) {
            rows_del(t, i);
            q->changed++;
        } else {
            i++;
        }
    }
}

/* The filters of the listing queries. */
static bool keep_ses_all(struct mem_q *q, const struct mem_row *r)
{
    (void)q;
    (void)r;
    return true;
}

static bool keep_published(struct mem_q *q, const struct mem_row *r)
{
    (void)q;
    return val_is(&r->col[SNP_PUBLISHED], "1");
}

/* ST_SNP_LIST_FOR: published, or an id in the JSON array ?1 */
static bool keep_published_or_named(struct mem_q *q, const struct mem_row *r)
{
    cJSON *ids, *id;
    bool named = false;

    if (keep_published(q, r))
        return true;
    ids = q->a[0].p ? cJSON_Parse(q->a[0].p) : NULL;
    cJSON_ArrayForEach(id, ids)
    {
        if (cJSON_IsString(id) && val_is(&r->col[SNP_ID], id->valuestring))
            named = true;
    }
    cJSON_Delete(ids);
    return named;
}

static bool keep_bat_of(struct mem_q *q, const struct mem_row *r)
{
    return val_eq(&r->col[BAT_SESSION], &q->a[0]);
}

static bool keep_ckp_of(struct mem_q *q, const struct mem_row *r)
{
    return val_eq(&r->col[CKP_OWNER], &q->a[0]) && val_eq(&r->col[CKP_TAG], &q->a[1]);
}

#define SCN_COL(c) ((c) + 100) /* in list(): column @c of the row's scenario */

/* Emit the rows of @t that @keep takes, ordered by @by, from @offset, @limit of them. */
static int list(struct mem_q *q, const struct mem_rows *t,
                bool (*keep)(struct mem_q *, const struct mem_row *), const int *by,
                const int *desc, uint64_t limit, uint64_t offset, const unsigned *cols, unsigned n,
                bool with_scenario_name, unsigned scenario_col)
{
    size_t nr = 0, i;
    struct mem_row **rows = select_rows(t, keep, q, by, desc, &nr);
    int ret = 0;

    if (!rows)
        return -ENOMEM;
    for (i = offset < nr ? (size_t)offset : nr; !ret && i < nr && i - offset < limit; i++) {
        const struct mem_val *c[STORE_MAX_COLS];
        const struct mem_row *scn = NULL;
        unsigned k;

        if (with_scenario_name && !(scn = scenario_of(q->s, &rows[i]->col[scenario_col])))
            continue; /* the inner join */
        for (k = 0; k < n; k++)
            c[k] = cols[k] >= 100 ? &scn->col[cols[k] - 100] : &rows[i]->col[cols[k]];
        ret = emit(q, c, n);
    }
    free(rows);
    return ret;
}
static uint64_t arg_u64(const struct mem_q *q, unsigned i)
{
    return (uint64_t)val_i64(&q->a[i]);
}

/* The query's own work, by what it is: 0, a row function's return, -EEXIST, -ENOMEM. */
static int mem_exec(struct mem_q *q, enum stmt st)
{
    struct mem_store *s = q->s;
    struct mem_rows *scn = &s->t[T_SCN], *ses = &s->t[T_SES], *bat = &s->t[T_BAT],
                    *snp = &s->t[T_SNP], *log = &s->t[T_LOG], *ckp = &s->t[T_CKP],
                    *page = &s->t[T_PAGE];
    struct mem_val now = {NULL, 0}, tmp = {NULL, 0};
    const struct mem_val *a = q->a;
    long i;
    int ret = 0;

    switch (st) {
    case ST_SCN_FIND: {
        static const unsigned cols[] = {SCN_ID};
        size_t k;

        for (k = 0; k < scn->nr; k++) {
            if (val_eq(&scn->row[k]->col[SCN_HASH], &a[0]) &&
                val_eq(&scn->row[k]->col[SCN_TEXT], &a[1]))
                return emit_cols(q, scn->row[k], cols, 1);
        }
        return 0;
    }
    case ST_SCN_INSERT: {
        static const unsigned cols[] = {SCN_ID,      SCN_NAME, SCN_HASH,
                                        SCN_BUILTIN, SCN_TEXT, SCN_CREATED};
        int64_t id = s->next_scenario + 1;

        if ((ret = val_now(&now, 0, 0)) || (ret = val_num(&tmp, id)) ||
            (ret = insert(q, scn, cols,
                          (const struct mem_val *const[]){&tmp, &a[0], &a[1], &a[2], &a[3], &now},
                          6)))
            break;
        s->next_scenario = id;
        ret = emit_nums(q, &id, 1);
        break;
    }
    case ST_SES_INSERT: {
        static const unsigned cols[] = {SES_ID,     SES_TOKEN,    SES_SCENARIO, SES_SETTINGS,
                                        SES_PARENT, SES_POSITION, SES_EVENTS,   SES_ENGINE,
                                        SES_LOG,    SES_CREATED,  SES_UPDATED};

        if (any_with(ses, SES_ID, &a[0]) || !scenario_of(s, &a[2]))
            return -EEXIST; /* the key, or the scenario's foreign key */
        if (!(ret = val_now(&now, 0, 0)))
            ret = insert(q, ses, cols,
                         (const struct mem_val *const[]){&a[0], &a[1], &a[2], &a[3], &a[4], &a[5],
                                                         &a[6], &a[7], &a[8], &now, &now},
                         11);
        break;
    }
    case ST_BAT_INSERT: {
        static const unsigned cols[] = {BAT_SESSION, BAT_SEQ, BAT_OPS, BAT_LIMIT};

        if (!any_with(ses, SES_ID, &a[0]) || find(bat, BAT_SESSION, &a[0], BAT_SEQ, &a[1]) >= 0)
            return -EEXIST;
        return insert(q, bat, cols, (const struct mem_val *const[]){&a[0], &a[1], &a[2], &a[3]}, 4);
    }
    case ST_SES_EVENTS:
        if ((i = find(ses, SES_ID, &a[0], 0, NULL)) >= 0 && !(ret = val_now(&now, 0, 0)))
            ret = set2(q, ses, (size_t)i, SES_EVENTS, &a[1], SES_UPDATED, &now);
        break;
    case ST_SES_POS:
        if ((i = find(ses, SES_ID, &a[0], 0, NULL)) >= 0)
            ret = set2(q, ses, (size_t)i, SES_POSITION, &a[1], -1, NULL);
        break;
    case ST_SES_OV_SET:
        if ((i = find(ses, SES_ID, &a[0], 0, NULL)) >= 0)
            ret = set2(q, ses, (size_t)i, SES_OVERVIEW, &a[1], -1, NULL);
        break;
    case ST_SES_CKP_SET:
        if ((i = find(ses, SES_ID, &a[0], 0, NULL)) >= 0)
            ret = set2(q, ses, (size_t)i, SES_CKPTS, &a[1], -1, NULL);
        break;
    case ST_SES_GET: {
        const struct mem_row *r, *c;

        if ((i = find(ses, SES_ID, &a[0], 0, NULL)) < 0)
            return 0;
        r = ses->row[i];
        if (!(c = scenario_of(s, &r->col[SES_SCENARIO])))
            return 0;
        return emit(q,
                    (const struct mem_val *const[]){
                            &r->col[SES_TOKEN], &r->col[SES_SCENARIO], &r->col[SES_SETTINGS],
                            &r->col[SES_PARENT], &r->col[SES_POSITION], &r->col[SES_EVENTS],
                            &r->col[SES_CREATED], &c->col[SCN_NAME], &c->col[SCN_TEXT],
                            &r->col[SES_ENGINE], &r->col[SES_LOG]},
                    11);
    }
    case ST_SES_WHERE:
    case ST_SES_OV_GET:
    case ST_SES_CKP_GET: {
        static const unsigned where[] = {SES_POSITION, SES_EVENTS}, ov[] = {SES_OVERVIEW},
                              ckpts[] = {SES_CKPTS};

        if ((i = find(ses, SES_ID, &a[0], 0, NULL)) < 0)
            return 0;
        return st == ST_SES_WHERE    ? emit_cols(q, ses->row[i], where, 2)
               : st == ST_SES_OV_GET ? emit_cols(q, ses->row[i], ov, 1)
                                     : emit_cols(q, ses->row[i], ckpts, 1);
    }
    case ST_BAT_GET: {
        static const unsigned cols[] = {BAT_OPS, BAT_LIMIT};
        static const int by[] = {BY_NUMBER(BAT_SEQ), -1}, desc[] = {0, 0};

        return list(q, bat, keep_bat_of, by, desc, UINT64_MAX, 0, cols, 2, false, 0);
    }
    case ST_BAT_COUNT: {
        size_t k;
        int64_t n = 0;

        for (k = 0; k < bat->nr; k++)
            n += val_eq(&bat->row[k]->col[BAT_SESSION], &a[0]);
        return emit_nums(q, &n, 1);
    }
    case ST_SES_DEL:
        if ((i = find(ses, SES_ID, &a[0], 0, NULL)) >= 0) {
            rows_del(ses, (size_t)i);
            q->changed++;
            delete_where(&(struct mem_q){.s = s}, bat, BAT_SESSION, &a[0], 0, NULL); /* cascade */
        }
        return 0;
    case ST_SES_LIST: {
        static const unsigned cols[] = {SES_ID,       SCN_COL(SCN_NAME), SES_PARENT,
                                        SES_POSITION, SES_EVENTS,        SES_CREATED};
        static const int by[] = {SES_CREATED, SES_ID, -1}, desc[] = {1, 0, 0};

        return list(q, ses, keep_ses_all, by, desc, arg_u64(q, 0), arg_u64(q, 1), cols, 6, true,
                    SES_SCENARIO);
    }
    case ST_SES_COUNT: {
        int64_t n = (int64_t)ses->nr;

        return emit_nums(q, &n, 1);
    }
    case ST_SES_OLD: {
        size_t k, n = 0, nr = 0;
        struct mem_row **rows;
        static const int by[] = {SES_UPDATED, -1}, desc[] = {0, 0};
        static const unsigned cols[] = {SES_ID};

        if ((ret = val_now(&now, arg_u64(q, 0), 0)))
            break;
        if (!(rows = select_rows(ses, keep_ses_all, q, by, desc, &nr))) {
            ret = -ENOMEM;
            break;
        }
        for (k = 0; !ret && k < nr && n < arg_u64(q, 1); k++) {
            if (val_cmp(&rows[k]->col[SES_UPDATED], &now) < 0) {
                ret = emit_cols(q, rows[k], cols, 1);
                n++;
            }
        }
        free(rows);
        break;
    }
    case ST_SNP_INSERT: {
        static const unsigned cols[] = {SNP_ID,       SNP_TOKEN,    SNP_TITLE,    SNP_SCENARIO,
                                        SNP_SETTINGS, SNP_BATCHES,  SNP_POSITION, SNP_ENGINE,
                                        SNP_STATE,    SNP_SESSION,  SNP_LOG,      SNP_NOTE,
                                        SNP_CREATED,  SNP_PUBLISHED};
        static char zero_text[] = "0";
        const struct mem_val zero = {zero_text, 1};

        if (any_with(snp, SNP_ID, &a[0]) || !scenario_of(s, &a[3]))
            return -EEXIST;
        if (!(ret = val_now(&now, 0, 0)))
            ret = insert(q, snp, cols,
                         (const struct mem_val *const[]){&a[0], &a[1], &a[2], &a[3], &a[4], &a[5],
                                                         &a[6], &a[7], &a[8], &a[9], &a[10], &a[11],
                                                         &now, &zero},
                         14);
        break;
    }
    case ST_SNP_GET: {
        const struct mem_row *r, *c;

        if ((i = find(snp, SNP_ID, &a[0], 0, NULL)) < 0)
            return 0;
        r = snp->row[i];
        if (!(c = scenario_of(s, &r->col[SNP_SCENARIO])))
            return 0;
        return emit(q,
                    (const struct mem_val *const[]){
                            &r->col[SNP_TOKEN], &r->col[SNP_TITLE], &r->col[SNP_SCENARIO],
                            &r->col[SNP_SETTINGS], &r->col[SNP_BATCHES], &r->col[SNP_POSITION],
                            &r->col[SNP_ENGINE], &r->col[SNP_STATE], &r->col[SNP_SESSION],
                            &r->col[SNP_CREATED], &c->col[SCN_NAME], &c->col[SCN_TEXT],
                            &r->col[SNP_CHECK_ENGINE], &r->col[SNP_CHECK_STATUS],
                            &r->col[SNP_CHECK_WARNING], &r->col[SNP_PUBLISHED], &r->col[SNP_LOG],
                            &r->col[SNP_NOTE]},
                    18);
    }
    case ST_SNP_DEL:
        if ((i = find(snp, SNP_ID, &a[0], 0, NULL)) >= 0) {
            rows_del(snp, (size_t)i);
            q->changed++;
        }
        return 0;
    case ST_SNP_LIST:
    case ST_SNP_LIST_FOR: {
        static const unsigned cols[] = {SNP_ID,      SNP_TITLE,     SCN_COL(SCN_NAME),
                                        SNP_SESSION, SNP_POSITION,  SNP_ENGINE,
                                        SNP_CREATED, SNP_PUBLISHED, SNP_TOKEN};
        static const int by[] = {SNP_CREATED, SNP_ID, -1}, desc[] = {1, 0, 0};

        if (st == ST_SNP_LIST)
            return list(q, snp, keep_published, by, desc, arg_u64(q, 0), arg_u64(q, 1), cols, 7,
                        true, SNP_SCENARIO);
        return list(q, snp, keep_published_or_named, by, desc, UINT64_MAX, 0, cols, 9, true,
                    SNP_SCENARIO);
    }
    case ST_SNP_COUNT: {
        size_t k;
        int64_t n = 0;

        for (k = 0; k < snp->nr; k++)
            n += keep_published(q, snp->row[k]);
        return emit_nums(q, &n, 1);
    }
    case ST_SNP_PUBLISH:
        if ((i = find(snp, SNP_ID, &a[0], 0, NULL)) >= 0)
            ret = set2(q, snp, (size_t)i, SNP_PUBLISHED, &a[1], -1, NULL);
        break;
    case ST_SNP_CHECK:
        if ((i = find(snp, SNP_ID, &a[0], 0, NULL)) >= 0 &&
            !(ret = set2(q, snp, (size_t)i, SNP_CHECK_ENGINE, &a[1], SNP_CHECK_STATUS, &a[2]))) {
            q->changed--; /* one row, however many columns */
            ret = set2(q, snp, (size_t)i, SNP_CHECK_WARNING, &a[3], -1, NULL);
        }
        break;
    case ST_SNP_EXPIRE:
    case ST_SNP_OLD_LOGS: {
        size_t k = 0;

        if ((ret = val_now(&now, arg_u64(q, 0), 0)))
            break;
        while (!ret && k < snp->nr) {
            const struct mem_row *r = snp->row[k];
            size_t j;
            bool seen = false;

            if (val_cmp(&r->col[SNP_CREATED], &now) >= 0) {
                k++;
                continue;
            }
            if (st == ST_SNP_EXPIRE) {
                rows_del(snp, k);
                q->changed++;
                continue;
            }
            for (j = 0; j < k; j++) /* DISTINCT */
                seen |= val_cmp(&snp->row[j]->col[SNP_CREATED], &now) < 0 &&
                        val_eq(&snp->row[j]->col[SNP_LOG], &r->col[SNP_LOG]);
            if (r->col[SNP_LOG].p && r->col[SNP_LOG].len && !seen)
                ret = emit(q, (const struct mem_val *const[]){&r->col[SNP_LOG]}, 1);
            k++;
        }
        break;
    }
    case ST_LOG_PUT: {
        static const unsigned cols[] = {LOG_LOG, LOG_SEQ, LOG_OPS, LOG_EVENTS, LOG_DATA};

        delete_where(&(struct mem_q){.s = s}, log, LOG_LOG, &a[0], LOG_SEQ, &a[1]);
        return insert(q, log, cols,
                      (const struct mem_val *const[]){&a[0], &a[1], &a[2], &a[3], &a[4]}, 5);
    }
    case ST_LOG_GET:
    case ST_LOG_CHUNK: {
        static const unsigned data[] = {LOG_DATA}, chunk[] = {LOG_OPS, LOG_EVENTS, LOG_DATA};

        if ((i = find(log, LOG_LOG, &a[0], LOG_SEQ, &a[1])) < 0)
            return 0;
        return st == ST_LOG_GET ? emit_cols(q, log->row[i], data, 1)
                                : emit_cols(q, log->row[i], chunk, 3);
    }
    case ST_LOG_INFO:
    case ST_LOG_LAST: {
        int64_t v[3] = {0, 0, 0}, last_seq = -1, last_len = 0;
        size_t k;

        for (k = 0; k < log->nr; k++) {
            const struct mem_row *r = log->row[k];

            if (!val_eq(&r->col[LOG_LOG], &a[0]))
                continue;
            v[0]++;
            v[1] += val_i64(&r->col[LOG_OPS]);
            v[2] += val_i64(&r->col[LOG_EVENTS]);
            if (val_i64(&r->col[LOG_SEQ]) > last_seq) {
                last_seq = val_i64(&r->col[LOG_SEQ]);
                last_len = (int64_t)r->col[LOG_DATA].len;
            }
        }
        if (st == ST_LOG_INFO)
            return emit_nums(q, v, 3);
        return last_seq < 0 ? 0 : emit_nums(q, &last_len, 1);
    }
    case ST_LOG_DEL:
        if (!any_with(ses, SES_LOG, &a[0]) && !any_with(snp, SNP_LOG, &a[0]))
            delete_where(q, log, LOG_LOG, &a[0], 0, NULL);
        return 0;
    case ST_CKP_PAGE_PUT: {
        static const unsigned cols[] = {PAGE_OWNER, PAGE_HASH, PAGE_DATA};

        if (find(page, PAGE_OWNER, &a[0], PAGE_HASH, &a[1]) >= 0)
            return 0; /* OR IGNORE */
        return insert(q, page, cols, (const struct mem_val *const[]){&a[0], &a[1], &a[2]}, 3);
    }
    case ST_CKP_PUT: {
        static const unsigned cols[] = {CKP_OWNER, CKP_TAG,  CKP_SEQ,   CKP_OP,
                                        CKP_OFF,   CKP_META, CKP_PAGES, CKP_EXTRA};
        size_t k;

        for (k = 0; k < ckp->nr; k++) { /* OR REPLACE */
            const struct mem_row *r = ckp->row[k];

            if (val_eq(&r->col[CKP_OWNER], &a[0]) && val_eq(&r->col[CKP_TAG], &a[1]) &&
                val_eq(&r->col[CKP_SEQ], &a[2])) {
                rows_del(ckp, k);
                break;
            }
        }
        return insert(q, ckp, cols,
                      (const struct mem_val *const[]){&a[0], &a[1], &a[2], &a[3], &a[4], &a[5],
                                                      &a[6], &a[7]},
                      8);
    }
    case ST_CKP_LIST: {
        static const int by[] = {BY_NUMBER(CKP_SEQ), -1}, desc[] = {0, 0};
        struct mem_row **rows;
        size_t nr = 0, k;

        if (!(rows = select_rows(ckp, keep_ckp_of, q, by, desc, &nr)))
            return -ENOMEM;
        for (k = 0; !ret && k < nr; k++) {
            static char yes[] = "1", no[] = "0";
            struct mem_val has = {rows[k]->col[CKP_EXTRA].p ? yes : no, 1};

            ret = emit(q,
                       (const struct mem_val *const[]){&rows[k]->col[CKP_SEQ],
                                                       &rows[k]->col[CKP_OP],
                                                       &rows[k]->col[CKP_OFF], &has},
                       4);
        }
        free(rows);
        return ret;
    }
    case ST_CKP_GET: {
        static const unsigned cols[] = {CKP_OP, CKP_OFF, CKP_META, CKP_PAGES, CKP_EXTRA};
        size_t k;

        for (k = 0; k < ckp->nr; k++) {
            const struct mem_row *r = ckp->row[k];

            if (val_eq(&r->col[CKP_OWNER], &a[0]) && val_eq(&r->col[CKP_TAG], &a[1]) &&
                val_eq(&r->col[CKP_SEQ], &a[2]))
                return emit_cols(q, r, cols, 5);
        }
        return 0;
    }
    case ST_CKP_PAGE_GET: {
        static const unsigned cols[] = {PAGE_DATA};

        if ((i = find(page, PAGE_OWNER, &a[0], PAGE_HASH, &a[1])) < 0)
            return 0;
        return emit_cols(q, page->row[i], cols, 1);
    }
    case ST_CKP_COUNT: {
        int64_t v[2] = {0, 0};
        size_t k;

        for (k = 0; k < ckp->nr; k++)
            v[0] += val_eq(&ckp->row[k]->col[CKP_OWNER], &a[0]);
        for (k = 0; k < page->nr; k++)
            v[1] += val_eq(&page->row[k]->col[PAGE_OWNER], &a[0]);
        return emit_nums(q, v, 2);
    }
    case ST_CKP_DEL:
        if (!any_with(ses, SES_CKPTS, &a[0]))
            delete_where(q, ckp, CKP_OWNER, &a[0], 0, NULL);
        return 0;
    case ST_CKP_PAGE_DEL:
        if (!any_with(ses, SES_CKPTS, &a[0]))
            delete_where(q, page, PAGE_OWNER, &a[0], 0, NULL);
        return 0;
    /* what only a server keeps: its housekeeping finds nothing */
    case ST_LEC_LIST:
    case ST_JOB_STALE:
    case ST_JOB_EXPIRE:
    case ST_ANS_EXPIRE:
        return 0;
    case ST_LEC_INSERT:
    case ST_LEC_SET:
    case ST_LEC_DEL:
    case ST_LEC_GET:
    case ST_JOB_PUT:
    case ST_JOB_GET:
    case ST_JOB_DEL:
    case ST_JOB_CANCEL:
    case ST_ANS_PUT:
    case ST_ANS_TALLY:
    case NR_STMTS:
    default:
        return -EOPNOTSUPP;
    }
    free(now.p);
    free(tmp.p);
    return ret;
}

static int mem_run(struct store *st, enum stmt stmt, const struct store_arg *args, store_row_fn *fn,
                   void *arg, uint64_t *changed, const char *what)
{
    struct mem_q q = {.s = ms(st), .fn = fn, .arg = arg};
    const char *types = store_queries[stmt].args;
    unsigned i;
    int ret = 0;

    for (i = 0; !ret && types[i]; i++)
        ret = val_arg(&q.a[i], types[i], &args[i]);
    if (!ret)
        ret = mem_exec(&q, stmt);
    for (i = 0; types[i]; i++)
        free(q.a[i].p);
    if (ret == -EOPNOTSUPP)
        fprintf(stderr, "slublab: %s: the in-memory store keeps this only on a server\n", what);
    else if (!ret && changed)
        *changed = q.changed;
    return ret;
}

/* ---- transactions, open and close ----------------------------------------------- */

static void mem_drop_saved(struct mem_store *s)
{
    unsigned t;

    for (t = 0; t < NR_TABLES; t++)
        rows_release(&s->saved[t]);
    s->in_tx = false;
}

static int mem_begin(struct store *st)
{
    struct mem_store *s = ms(st);
    unsigned t;
    size_t i;

    if (s->in_tx)
        return -EIO; /* transactions do not nest, as SQLite's BEGIN */
    for (t = 0; t < NR_TABLES; t++) {
        struct mem_rows *d = &s->saved[t];

        if (!(d->row = malloc((s->t[t].nr ? s->t[t].nr : 1) * sizeof(*d->row)))) {
            mem_drop_saved(s);
            return -ENOMEM;
        }
        d->cap = d->nr = s->t[t].nr;
        for (i = 0; i < d->nr; i++) {
            d->row[i] = s->t[t].row[i];
            d->row[i]->refs++;
        }
    }
    s->in_tx = true;
    return 0;
}

static int mem_end(struct store *st, int ret)
{
    struct mem_store *s = ms(st);
    unsigned t;

    if (!s->in_tx)
        return ret;
    if (ret) { /* the tables as they were */
        for (t = 0; t < NR_TABLES; t++) {
            rows_release(&s->t[t]);
            s->t[t] = s->saved[t];
            memset(&s->saved[t], 0, sizeof(s->saved[t]));
        }
    }
    mem_drop_saved(s);
    return ret;
}

static bool mem_handles(const char *db)
{
    return !strcmp(db, STORE_MEM_DB);
}

static void mem_close(struct store *st)
{
    struct mem_store *s = ms(st);
    unsigned t;

    mem_drop_saved(s);
    for (t = 0; t < NR_TABLES; t++)
        rows_release(&s->t[t]);
    free(s);
}

static int mem_open(const char *db, struct store **out, struct strbuf *err)
{
    struct mem_store *s = calloc(1, sizeof(*s));

    (void)db;
    if (!s) {
        strbuf_puts(err, "out of memory");
        return -ENOMEM;
    }
    *out = &s->st;
    return 0;
}

const struct store_ops store_mem_ops = {
        .name = "memory",
        .shared = false,
        .handles = mem_handles,
        .open = mem_open,
        .close = mem_close,
        .run = mem_run,
        .begin = mem_begin,
        .end = mem_end,
};

int store_mem_set(struct store *st, const char *table, const char *column, const char *id,
                  const char *value, bool id_digit)
{
    static const struct {
        const char *table, *column;
        enum mem_table t;
        unsigned col, id_col;
    } cols[] = {{"sessions", "created", T_SES, SES_CREATED, SES_ID},
                {"sessions", "updated", T_SES, SES_UPDATED, SES_ID},
                {"snapshots", "created", T_SNP, SNP_CREATED, SNP_ID}};
    struct mem_store *s = ms(st);
    struct mem_q q = {.s = s};
    size_t i, k, n = 0;
    int ret = 0;

    for (k = 0; k < sizeof(cols) / sizeof(cols[0]); k++) {
        struct mem_rows *t = &s->t[cols[k].t];

        if (strcmp(cols[k].table, table) || strcmp(cols[k].column, column))
            continue;
        for (i = 0; !ret && i < t->nr; i++) {
            const struct mem_val *rid = &t->row[i]->col[cols[k].id_col];
            char buf[64];

            if (id && !val_is(rid, id))
                continue;
            snprintf(buf, sizeof(buf), "%s%.1s", value, id_digit && rid->len > 1 ? rid->p + 1 : "");
            ret = set2(&q, t, i, cols[k].col, &(struct mem_val){buf, strlen(buf)}, -1, NULL);
            n++;
        }
    }
    return ret ? ret : n ? 0 : -ENOENT;
}
