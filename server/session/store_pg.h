/*
 * store_pg.h: the PostgreSQL back end of the store (store.h), for several
 * servers sharing one database (`--db postgresql://...`).
 *
 * Not a public header: store.c hands every store_*() call to the function
 * of the same name here when the store was opened on a PostgreSQL URL, so
 * the rest of the server sees one interface.  The functions keep store.h's
 * contracts (return values, ownership, JSON shapes) word for word.
 */
#ifndef SLUBLAB_SERVER_SESSION_STORE_PG_H
#define SLUBLAB_SERVER_SESSION_STORE_PG_H

#include "session/store.h"

struct store_pg;

/* True when @db names a PostgreSQL database (a postgresql:// or postgres:// URL). */
bool store_pg_url(const char *db);

int store_pg_open(const char *url, struct store_pg **out, struct strbuf *err);
void store_pg_close(struct store_pg *pg);
int store_pg_scenario_put(struct store_pg *pg, const char *name, const char *hash, const char *text,
                          size_t len, bool builtin, int64_t *id);
int store_pg_session_create(struct store_pg *pg, const struct store_session *ss);
int store_pg_session_add_batch(struct store_pg *pg, const char *id, size_t seq,
                               const struct store_batch *b, uint64_t events);
int store_pg_session_set_position(struct store_pg *pg, const char *id, uint64_t position);
int store_pg_session_set_overview(struct store_pg *pg, const char *id, const void *data,
                                  size_t len);
int store_pg_session_overview(struct store_pg *pg, const char *id, unsigned char **data,
                              size_t *len);
int store_pg_session_load(struct store_pg *pg, const char *id, struct store_session *out);
int store_pg_session_delete(struct store_pg *pg, const char *id);
int store_pg_session_where(struct store_pg *pg, const char *id, uint64_t *position,
                           uint64_t *events);
int store_pg_session_batches(struct store_pg *pg, const char *id, uint64_t *nr);
int store_pg_oplog_put(struct store_pg *pg, const char *log, uint64_t seq, const uint8_t *data,
                       size_t len, uint64_t ops, uint64_t events);
int store_pg_oplog_get(struct store_pg *pg, const char *log, uint64_t seq, uint8_t **data,
                       size_t *len);
int store_pg_oplog_info(struct store_pg *pg, const char *log, uint64_t *chunks, uint64_t *ops,
                        uint64_t *events, size_t *last_len);
int store_pg_oplog_delete(struct store_pg *pg, const char *log);
int store_pg_ckpt_pages_put(struct store_pg *pg, const char *owner,
                            const struct store_ckpt_page *pages, size_t n);
int store_pg_ckpt_put(struct store_pg *pg, const char *owner, const char *tag,
                      const struct store_ckpt *c);
int store_pg_ckpt_list(struct store_pg *pg, const char *owner, const char *tag,
                       int (*fn)(void *arg, uint64_t seq, uint64_t op, uint64_t off,
                                 bool has_extra),
                       void *arg);
int store_pg_ckpt_get(struct store_pg *pg, const char *owner, const char *tag, uint64_t seq,
                      struct store_ckpt *out);
int store_pg_ckpt_page_get(struct store_pg *pg, const char *owner, const uint8_t *hash,
                           uint8_t **data, size_t *len);
int store_pg_ckpt_count(struct store_pg *pg, const char *owner, uint64_t *images, uint64_t *pages);
int store_pg_session_set_ckpts(struct store_pg *pg, const char *id, const char *owner);
/* The checkpoint owner session @id names ("" when none). */
int store_pg_session_ckpts(struct store_pg *pg, const char *id,
                           char owner[STORE_CKPT_OWNER_LEN + 1]);
int store_pg_ckpt_delete(struct store_pg *pg, const char *owner);
int store_pg_session_list(struct store_pg *pg, unsigned limit, unsigned offset, cJSON **out);
int store_pg_snapshot_set_check(struct store_pg *pg, const char *id, const char *engine,
                                const char *status, const char *warning);
int store_pg_snapshot_create(struct store_pg *pg, const struct store_snapshot *sn);
int store_pg_snapshot_load(struct store_pg *pg, const char *id, struct store_snapshot *out);
int store_pg_snapshot_delete(struct store_pg *pg, const char *id);
int store_pg_snapshot_list(struct store_pg *pg, unsigned limit, unsigned offset, cJSON **out);
int store_pg_snapshot_set_published(struct store_pg *pg, const char *id, bool published);
/* The rows store_snapshot_list_for() filters: published ones and those of @ids_json. */
int store_pg_snapshot_list_for(struct store_pg *pg, const cJSON *tokens, unsigned limit,
                               unsigned offset, cJSON **out);
int store_pg_lecture_create(struct store_pg *pg, const struct store_lecture *lc);
int store_pg_lecture_set(struct store_pg *pg, const struct store_lecture *lc);
int store_pg_lecture_delete(struct store_pg *pg, const char *id);
int store_pg_lectures_load(struct store_pg *pg, unsigned max,
                           int (*fn)(const struct store_lecture *lc, void *arg), void *arg);
int store_pg_lecture_load(struct store_pg *pg, const char *id, struct store_lecture *out);
int store_pg_trace_job_put(struct store_pg *pg, const struct store_trace_job *j, bool *cancel);
int store_pg_trace_job_load(struct store_pg *pg, const char *id, struct store_trace_job *out);
int store_pg_trace_job_delete(struct store_pg *pg, const char *id);
int store_pg_trace_job_cancel(struct store_pg *pg, const char *id);
int store_pg_answer_put(struct store_pg *pg, const char *lecture, uint64_t at, const char *voter,
                        const char *choice);
int store_pg_answers_tally(struct store_pg *pg, const char *lecture, uint64_t at,
                           int (*fn)(const char *choice, uint64_t n, void *arg), void *arg);
int store_pg_answers_expire(struct store_pg *pg, unsigned seconds, uint64_t *deleted);
int store_pg_trace_jobs_expire(struct store_pg *pg, unsigned days, unsigned stale_seconds,
                               const char *why, uint64_t *failed, uint64_t *deleted);
int store_pg_notify(struct store_pg *pg, const char *text);
int store_pg_listen(struct store_pg *pg, store_message_fn *fn, void *arg);
void store_pg_unlisten(struct store_pg *pg);
bool store_pg_available(const struct store_pg *pg);
int store_pg_sessions_older(struct store_pg *pg, unsigned days, char (*ids)[STORE_ID_MAX + 1],
                            size_t max, size_t *n);
int store_pg_snapshots_expire(struct store_pg *pg, unsigned days, uint64_t *deleted);

#endif /* SLUBLAB_SERVER_SESSION_STORE_PG_H */
