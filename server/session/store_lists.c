/*
 * store_lists.c: the store's lists (sessions, published snapshots, the
 * snapshots a caller's tokens open) in their JSON shapes, and the rows
 * servers share: snapshots, lectures, trace jobs and followers' answers.
 * Written once for every back end with the query helpers of
 * store_internal.h, as the rest of store.h is (store.c).
 */
#include "session/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ids.h"
#include "base/json.h"
#include "session/store_internal.h"

/* ---- lists ---------------------------------------------------------------------- */

static const char *const session_cols[] = {"id",     "scenario", "parent", "position",
                                           "events", "created",  NULL};
static const char *const snapshot_cols[] = {"id",       "title",  "scenario", "session",
                                            "position", "engine", "created",  NULL};
#define SESSION_INTS  ((1u << 3) | (1u << 4)) /* position, events */
#define SNAPSHOT_INTS (1u << 4)               /* position */

/* A list in the making: {key: [...], "total": N}. */
struct list {
    cJSON *o, *arr;
    const char *const *cols; /* NULL-terminated */
    unsigned ints;           /* the columns that are integers, by bit */
    uint64_t total;
    /* store_snapshot_list_for(): the tokens held and the page */
    const cJSON *tokens;
    unsigned limit, offset;
};

static int list_start(struct list *l, const char *key, const char *const *cols, unsigned ints)
{
    l->cols = cols;
    l->ints = ints;
    l->o = cJSON_CreateObject();
    return json_put(l->o, key, l->arr = cJSON_CreateArray()) ? 0 : -ENOMEM;
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
        cJSON *v = (l->ints >> c & 1) ? json_uint(store_u64(&col[c]))
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
    int ret = list_start(&l, key, cols, ints);

    pthread_mutex_lock(&st->lock);
    if (!ret)
        ret = store_run(st, q, ARGS(A_U64(limit), A_U64(offset)), list_row, &l, NULL, "listing");
    if (!ret)
        ret = store_nums(st, count, NULL, &l.total, 1, "counting");
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

/* A row of ST_SNP_LIST_FOR (a snapshot list's columns, published, token),
 * listed when published or when @l->tokens holds its token. */
static int list_for_row(void *arg, const struct store_val *col, unsigned n)
{
    struct list *l = arg;
    const cJSON *t = col[0].p ? cJSON_GetObjectItemCaseSensitive(l->tokens, col[0].p) : NULL;
    bool published = store_u64(&col[7]) != 0;
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
    int ret = list_start(&l, "snapshots", snapshot_cols, SNAPSHOT_INTS);

    cJSON_ArrayForEach(t, tokens)
    {
        if (!json_push(ids, cJSON_CreateString(t->string)))
            ret = -ENOMEM;
    }
    if (!ret && !(ids_text = cJSON_PrintUnformatted(ids)))
        ret = -ENOMEM;
    cJSON_Delete(ids);
    if (!ret)
        ret = store_run(st, ST_SNP_LIST_FOR, ARGS(A_TEXT(ids_text)), list_for_row, &l, NULL,
                        "listing snapshots");
    cJSON_free(ids_text);
    return list_end(&l, ret, out);
}

/* ---- snapshots ------------------------------------------------------------------ */

int store_snapshot_set_check(struct store *st, const char *id, const char *engine,
                             const char *status, const char *warning)
{
    return store_change(st, ST_SNP_CHECK,
                        ARGS(A_TEXT(id), A_TEXT(engine), A_TEXT(status), A_TEXT(warning)),
                        "keeping a snapshot's check");
}

int store_snapshot_create(struct store *st, const struct store_snapshot *sn)
{
    return store_exec(st, ST_SNP_INSERT,
                      ARGS(A_TEXT(sn->id), A_TEXT(sn->token), A_TEXT(sn->title ? sn->title : ""),
                           A_I64(sn->scenario), A_TEXT(sn->settings), A_TEXT(sn->batches),
                           A_U64(sn->position), A_TEXT(sn->engine), A_TEXT(sn->state),
                           A_OPT(sn->session), A_OPT(sn->log), A_TEXT(sn->note)),
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
    free(sn->note);
    memset(sn, 0, sizeof(*sn));
}

#define SNP(m, kind) FIELD(struct store_snapshot, m, kind)
static const struct field snapshot_fields[] = {
        SNP(token, F_TEXT),       SNP(title, F_DUP),         SNP(scenario, F_I64),
        SNP(settings, F_DUP),     SNP(batches, F_DUP),       SNP(position, F_U64),
        SNP(engine, F_DUP),       SNP(state, F_DUP),         SNP(session, F_TEXT),
        SNP(created, F_TEXT),     SNP(scenario_name, F_DUP), SNP(scenario_text, F_DUP),
        SNP(check_engine, F_DUP), SNP(check_status, F_DUP),  SNP(check_warning, F_DUP),
        SNP(published, F_BOOL),   SNP(log, F_TEXT),          SNP(note, F_DUP)};

int store_snapshot_load(struct store *st, const char *id, struct store_snapshot *out)
{
    int ret;

    memset(out, 0, sizeof(*out));
    ret = store_one(st, ST_SNP_GET, ARGS(A_TEXT(id)), out, snapshot_fields, 18,
                    "loading a snapshot");
    if (ret) {
        store_snapshot_free(out);
        return ret;
    }
    snprintf(out->id, sizeof(out->id), "%s", id);
    if (!out->check_engine || !out->check_status) { /* not checked yet */
        free(out->check_engine);
        free(out->check_status);
        free(out->check_warning);
        out->check_engine = out->check_status = out->check_warning = NULL;
    }
    return 0;
}

int store_snapshot_delete(struct store *st, const char *id)
{
    struct store_snapshot sn;
    int ret, loaded = store_snapshot_load(st, id, &sn);

    if (loaded && loaded != -ENOENT)
        return loaded;
    ret = store_change(st, ST_SNP_DEL, ARGS(A_TEXT(id)), "deleting");
    if (!ret && !loaded && sn.log[0]) /* its log goes with the last one replaying it */
        ret = store_oplog_delete(st, sn.log);
    if (!loaded)
        store_snapshot_free(&sn);
    return ret;
}

int store_snapshot_set_published(struct store *st, const char *id, bool published)
{
    return store_change(st, ST_SNP_PUBLISH, ARGS(A_TEXT(id), A_U64(published)),
                        "publishing a snapshot");
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
        store_copy(&col[0], o->ids[(*o->n)++], STORE_ID_MAX + 1);
    return 0;
}

/* The ids of ST_SNP_OLD_LOGS' rows, grown as they come. */
struct id_list {
    char (*ids)[STORE_ID_MAX + 1];
    size_t n, cap;
};

static int id_list_row(void *arg, const struct store_val *col, unsigned n)
{
    struct id_list *l = arg;

    (void)n;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        char(*ids)[STORE_ID_MAX + 1] = realloc(l->ids, cap * sizeof(*ids));

        if (!ids)
            return -ENOMEM;
        l->ids = ids;
        l->cap = cap;
    }
    store_copy(&col[0], l->ids[l->n++], STORE_ID_MAX + 1);
    return 0;
}

int store_snapshots_expire(struct store *st, unsigned days, uint64_t *deleted)
{
    struct id_list logs = {NULL, 0, 0};
    size_t i;
    int ret;

    *deleted = 0;
    pthread_mutex_lock(&st->lock); /* recursive: one sequence */
    ret = store_run(st, ST_SNP_OLD_LOGS, ARGS(A_U64(days)), id_list_row, &logs, NULL,
                    "listing the logs of old snapshots");
    if (!ret)
        ret = store_run(st, ST_SNP_EXPIRE, ARGS(A_U64(days)), NULL, NULL, deleted,
                        "deleting old snapshots");
    for (i = 0; !ret && i < logs.n; i++) /* each goes unless a session still replays it */
        ret = store_oplog_delete(st, logs.ids[i]);
    pthread_mutex_unlock(&st->lock);
    free(logs.ids);
    return ret;
}

int store_sessions_older(struct store *st, unsigned days, char (*ids)[STORE_ID_MAX + 1], size_t max,
                         size_t *n)
{
    struct older o = {ids, max, n};

    *n = 0;
    return store_run(st, ST_SES_OLD, ARGS(A_U64(days), A_U64(max)), older_row, &o, NULL,
                     "listing old sessions");
}

/* ---- lectures ------------------------------------------------------------------- */

int store_lecture_create(struct store *st, const struct store_lecture *lc)
{
    return store_exec(st, ST_LEC_INSERT,
                      ARGS(A_TEXT(lc->id), A_TEXT(lc->token), A_TEXT(lc->session),
                           A_U64(lc->position), A_U64(lc->events), A_U64(lc->ops)),
                      "storing a lecture");
}

int store_lecture_set(struct store *st, const struct store_lecture *lc)
{
    return store_change(st, ST_LEC_SET,
                        ARGS(A_TEXT(lc->id), A_TEXT(lc->session), A_U64(lc->position),
                             A_U64(lc->events), A_U64(lc->ops)),
                        "changing a lecture");
}

int store_lecture_delete(struct store *st, const char *id)
{
    return store_change(st, ST_LEC_DEL, ARGS(A_TEXT(id)), "deleting");
}

/* The columns of ST_LEC_LIST and ST_LEC_GET. */
#define LEC(m, kind) FIELD(struct store_lecture, m, kind)
static const struct field lecture_fields[] = {LEC(id, F_TEXT),      LEC(token, F_TEXT),
                                              LEC(session, F_TEXT), LEC(position, F_U64),
                                              LEC(events, F_U64),   LEC(ops, F_U64)};

struct lectures {
    int (*fn)(const struct store_lecture *lc, void *arg);
    void *arg;
};

static int lecture_row(void *arg, const struct store_val *col, unsigned n)
{
    struct lectures *ls = arg;
    struct store_lecture lc;
    struct fill fl = {&lc, lecture_fields, 6, false};

    memset(&lc, 0, sizeof(lc));
    store_fill_row(&fl, col, n); /* no allocation: cannot fail */
    return ls->fn(&lc, ls->arg);
}

int store_lectures_load(struct store *st, unsigned max,
                        int (*fn)(const struct store_lecture *lc, void *arg), void *arg)
{
    struct lectures ls = {fn, arg};

    return store_run(st, ST_LEC_LIST, ARGS(A_U64(max)), lecture_row, &ls, NULL,
                     "loading the lectures");
}

int store_lecture_load(struct store *st, const char *id, struct store_lecture *out)
{
    struct store_lecture lc;
    int ret;

    memset(&lc, 0, sizeof(lc));
    if (!(ret = store_one(st, ST_LEC_GET, ARGS(A_TEXT(id)), &lc, lecture_fields, 6,
                          "loading a lecture")))
        *out = lc;
    return ret;
}

/* ---- trace jobs and answers ----------------------------------------------------- */

int store_trace_job_put(struct store *st, const struct store_trace_job *j, bool *cancel)
{
    uint64_t v = 0;
    int ret =
            store_nums(st, ST_JOB_PUT, /* RETURNING cancel */
                       ARGS(A_TEXT(j->id), A_TEXT(j->state), A_U64(j->bytes), A_U64(j->done),
                            A_U64(j->total), A_U64(j->events), A_U64(j->built), A_U64(j->recorded),
                            A_TEXT(j->session), A_TEXT(j->token), A_TEXT(j->code),
                            A_TEXT(j->message), A_TEXT(j->report), A_TEXT(j->owner)),
                       &v, 1, "storing a trace job");

    if (ret == -ENOENT)
        ret = 0;
    if (!ret && cancel)
        *cancel = v != 0;
    return ret;
}

#define JOB(m, kind) FIELD(struct store_trace_job, m, kind)
static const struct field job_fields[] = {
        JOB(state, F_TEXT), JOB(bytes, F_U64),  JOB(done, F_U64),     JOB(total, F_U64),
        JOB(events, F_U64), JOB(built, F_U64),  JOB(recorded, F_U64), JOB(session, F_TEXT),
        JOB(token, F_TEXT), JOB(code, F_TEXT),  JOB(message, F_TEXT), JOB(report, F_DUP),
        JOB(owner, F_TEXT), JOB(cancel, F_BOOL)};

int store_trace_job_load(struct store *st, const char *id, struct store_trace_job *out)
{
    int ret;

    memset(out, 0, sizeof(*out));
    ret = store_one(st, ST_JOB_GET, ARGS(A_TEXT(id)), out, job_fields, 14, "loading a trace job");
    if (!ret)
        snprintf(out->id, sizeof(out->id), "%s", id);
    return ret;
}

void store_trace_job_free(struct store_trace_job *j)
{
    free(j->report);
    j->report = NULL;
}

int store_trace_job_delete(struct store *st, const char *id)
{
    return store_change(st, ST_JOB_DEL, ARGS(A_TEXT(id)), "deleting a trace job");
}

int store_trace_job_cancel(struct store *st, const char *id)
{
    return store_change(st, ST_JOB_CANCEL, ARGS(A_TEXT(id)), "cancelling a trace job");
}

int store_trace_jobs_expire(struct store *st, unsigned days, unsigned stale_seconds,
                            const char *why, uint64_t *failed, uint64_t *deleted)
{
    int ret;

    *failed = *deleted = 0;
    pthread_mutex_lock(&st->lock);
    ret = store_run(st, ST_JOB_STALE, ARGS(A_U64(stale_seconds), A_TEXT(why)), NULL, NULL, failed,
                    "failing the trace jobs of a stopped server");
    if (!ret)
        ret = store_run(st, ST_JOB_EXPIRE,
                        ARGS(A_U64(stale_seconds), A_U64((uint64_t)days * 86400)), NULL, NULL,
                        deleted, "deleting old trace jobs");
    pthread_mutex_unlock(&st->lock);
    return ret;
}

int store_answer_put(struct store *st, const char *lecture, uint64_t at, const char *voter,
                     const char *choice)
{
    return store_exec(st, ST_ANS_PUT,
                      ARGS(A_TEXT(lecture), A_U64(at), A_TEXT(voter), A_TEXT(choice)),
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
    return t->fn(col[0].p ? col[0].p : "", store_u64(&col[1]), t->arg);
}

int store_answers_tally(struct store *st, const char *lecture, uint64_t at,
                        int (*fn)(const char *choice, uint64_t n, void *arg), void *arg)
{
    struct tally t = {fn, arg};

    return store_run(st, ST_ANS_TALLY, ARGS(A_TEXT(lecture), A_U64(at)), tally_row, &t, NULL,
                     "counting answers");
}

int store_answers_expire(struct store *st, unsigned seconds, uint64_t *deleted)
{
    *deleted = 0;
    return store_run(st, ST_ANS_EXPIRE, ARGS(A_U64(seconds)), NULL, NULL, deleted,
                     "deleting old answers");
}
