/*
 * store_internal.h: what the SQLite store (store.c) and the PostgreSQL one
 * (store_pg.c) share: the scenario hash and the JSON shapes of the lists, so
 * both answer byte for byte alike.  Not a public header.
 */
#ifndef SLUBLAB_SERVER_SESSION_STORE_INTERNAL_H
#define SLUBLAB_SERVER_SESSION_STORE_INTERNAL_H

#include "session/store.h"

/* Every statement of the store, by what it does; store_sql[] has their text. */
enum stmt {
    ST_BEGIN,
    ST_COMMIT,
    ST_ROLLBACK,
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
extern const char *const store_sql[NR_STMTS];
/* SQLite's "now", as store times are written: ISO 8601 UTC with milliseconds. */
#define STORE_SQLITE_NOW "strftime('%Y-%m-%dT%H:%M:%fZ','now')"

/* The FNV-1a hash of a scenario text, as 16 hex digits, by which its row is found. */
void store_hash(const char *text, size_t len, char out[17]);

/* Columns of store_session_list() and store_snapshot_list(), and which are integers. */
extern const char *const store_session_cols[];
extern const char *const store_snapshot_cols[];
#define STORE_SESSION_INTS  ((1u << 3) | (1u << 4)) /* position, events */
#define STORE_SNAPSHOT_INTS (1u << 4)               /* position */

/* {key: []} in *o with the array in *arr; 0 or -ENOMEM. */
int store_list_start(const char *key, cJSON **o, cJSON **arr);
/* One row: @vals[c] (NULL for SQL NULL) under cols[c], integers where @ints has bit c. */
int store_list_row(cJSON *arr, const char *const *cols, unsigned ints, const char *const *vals);
/* "total": @n.  0 or -ENOMEM. */
int store_list_total(cJSON *o, uint64_t n);

/* store_snapshot_list_for()'s filtering of rows, shared by both stores. */
struct store_list_for {
    const cJSON *tokens;
    char *ids_text; /* the JSON array of the ids @tokens holds, the query's parameter */
    cJSON *o, *arr;
    uint64_t total;
};
int store_list_for_start(struct store_list_for *lf, const cJSON *tokens);
/* A row (id, title, scenario, session, position, engine, created, published, token). */
int store_list_for_row(struct store_list_for *lf, const char *const *vals, bool published,
                       unsigned limit, unsigned offset);
/* Finish: the document in *out when @ret is 0; everything released either way.  Returns @ret. */
int store_list_for_end(struct store_list_for *lf, int ret, cJSON **out);

#endif /* SLUBLAB_SERVER_SESSION_STORE_INTERNAL_H */
