/*
 * store_queries.c: every query of the store, declared once: its parameter
 * types and its text (struct store_query).  The text is SQLite's, which
 * store_sqlite.c prepares as it stands; store_pg.c prepares the same text
 * with ?N written $N and SQLite's "now" written as PostgreSQL's, except
 * for the few queries it words otherwise (its pg_override[]).  A new query
 * is one entry here (and one there only when PostgreSQL needs other words).
 */
#include "session/store_internal.h"

#define NOW STORE_SQLITE_NOW

const struct store_query store_queries[NR_STMTS] = {
        [ST_SCN_FIND] = {"tt", "SELECT id FROM scenarios WHERE hash = ?1 AND text = ?2"},
        [ST_SCN_INSERT] = {"ttut", "INSERT INTO scenarios (name, hash, builtin, text, created)"
                                   " VALUES (?1, ?2, ?3, ?4, " NOW ") RETURNING id"},
        [ST_SES_INSERT] = {"ttittuutt",
                           "INSERT INTO sessions (id, token, scenario, settings, parent, position,"
                           " events, engine, log, created, updated)"
                           " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, " NOW ", " NOW ")"},
        [ST_BAT_INSERT] =
                {"tutu",
                 "INSERT INTO batches (session, seq, ops, op_limit) VALUES (?1, ?2, ?3, ?4)"},
        [ST_SES_EVENTS] = {"tu",
                           "UPDATE sessions SET events = ?2, updated = " NOW " WHERE id = ?1"},
        [ST_SES_POS] = {"tu", "UPDATE sessions SET position = ?2 WHERE id = ?1"},
        [ST_SES_GET] = {"t",
                        "SELECT s.token, s.scenario, s.settings, s.parent, s.position, s.events,"
                        " s.created, c.name, c.text, s.engine, s.log"
                        " FROM sessions s JOIN scenarios c ON c.id = s.scenario WHERE s.id = ?1"},
        [ST_BAT_GET] = {"t", "SELECT ops, op_limit FROM batches WHERE session = ?1 ORDER BY seq"},
        [ST_SES_DEL] = {"t", "DELETE FROM sessions WHERE id = ?1"},
        [ST_SES_LIST] = {"uu", "SELECT s.id, c.name, s.parent, s.position, s.events, s.created"
                               " FROM sessions s JOIN scenarios c ON c.id = s.scenario"
                               " ORDER BY s.created DESC, s.id LIMIT ?1 OFFSET ?2"},
        [ST_SES_COUNT] = {"", "SELECT count(*) FROM sessions"},
        [ST_SNP_INSERT] = {"tttittuttttt",
                           "INSERT INTO snapshots (id, token, title, scenario, settings, batches,"
                           " position, engine, state, session, log, note, created)"
                           " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, " NOW ")"},
        [ST_SNP_GET] = {"t",
                        "SELECT n.token, n.title, n.scenario, n.settings, n.batches, n.position,"
                        " n.engine, n.state, n.session, n.created, c.name, c.text,"
                        " n.check_engine, n.check_status, n.check_warning, n.published,"
                        " n.log, n.note"
                        " FROM snapshots n JOIN scenarios c ON c.id = n.scenario WHERE n.id = ?1"},
        [ST_SNP_DEL] = {"t", "DELETE FROM snapshots WHERE id = ?1"},
        [ST_SNP_LIST] = {"uu",
                         "SELECT n.id, n.title, c.name, n.session, n.position, n.engine, n.created"
                         " FROM snapshots n JOIN scenarios c ON c.id = n.scenario"
                         " WHERE n.published = 1"
                         " ORDER BY n.created DESC, n.id LIMIT ?1 OFFSET ?2"},
        [ST_SNP_COUNT] = {"", "SELECT count(*) FROM snapshots WHERE published = 1"},
        [ST_SNP_PUBLISH] = {"tu", "UPDATE snapshots SET published = ?2 WHERE id = ?1"},
        /* ?1: a JSON array of ids; the caller checks the tokens of the unpublished */
        [ST_SNP_LIST_FOR] = {"t",
                             "SELECT n.id, n.title, c.name, n.session, n.position, n.engine,"
                             " n.created, n.published, n.token"
                             " FROM snapshots n JOIN scenarios c ON c.id = n.scenario"
                             " WHERE n.published = 1 OR n.id IN (SELECT value FROM json_each(?1))"
                             " ORDER BY n.created DESC, n.id"},
        [ST_LEC_INSERT] = {"tttuuu",
                           "INSERT INTO lectures (id, token, session, position, events, ops,"
                           " created, updated) VALUES (?1, ?2, ?3, ?4, ?5, ?6, " NOW ", " NOW ")"},
        [ST_LEC_SET] = {"ttuuu",
                        "UPDATE lectures SET session = ?2, position = ?3, events = ?4, ops = ?5,"
                        " updated = " NOW " WHERE id = ?1"},
        [ST_LEC_DEL] = {"t", "DELETE FROM lectures WHERE id = ?1"},
        /* the session's own position and end when it is stored: they move
         * without the lecture row being written */
        [ST_LEC_LIST] = {"u", "SELECT l.id, l.token, l.session, coalesce(s.position, l.position),"
                              " coalesce(s.events, l.events), l.ops"
                              " FROM lectures l LEFT JOIN sessions s ON s.id = l.session"
                              " ORDER BY l.updated DESC, l.id LIMIT ?1"},
        [ST_SES_OLD] = {"uu",
                        "SELECT id FROM sessions WHERE updated < strftime('%Y-%m-%dT%H:%M:%fZ',"
                        " 'now', '-' || ?1 || ' days') ORDER BY updated LIMIT ?2"},
        [ST_SNP_EXPIRE] = {"u",
                           "DELETE FROM snapshots WHERE created < strftime('%Y-%m-%dT%H:%M:%fZ',"
                           " 'now', '-' || ?1 || ' days')"},
        [ST_BAT_COUNT] = {"t", "SELECT count(*) FROM batches WHERE session = ?1"},
        [ST_LEC_GET] =
                {"t", "SELECT l.id, l.token, l.session, coalesce(s.position, l.position),"
                      " coalesce(s.events, l.events), l.ops"
                      " FROM lectures l LEFT JOIN sessions s ON s.id = l.session WHERE l.id = ?1"},
        [ST_JOB_PUT] = {"ttuuuuuutttttt",
                        "INSERT INTO trace_jobs (id, state, bytes, done, total, events, built,"
                        " recorded, session, token, code, message, report, owner, created, updated)"
                        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, " NOW
                        ", " NOW ") ON CONFLICT (id) DO UPDATE SET state = excluded.state,"
                        " bytes = excluded.bytes, done = excluded.done, total = excluded.total,"
                        " events = excluded.events, built = excluded.built,"
                        " recorded = excluded.recorded, session = excluded.session,"
                        " token = excluded.token, code = excluded.code,"
                        " message = excluded.message, report = excluded.report,"
                        " owner = excluded.owner, updated = excluded.updated RETURNING cancel"},
        [ST_JOB_GET] = {"t",
                        "SELECT state, bytes, done, total, events, built, recorded, session, token,"
                        " code, message, report, owner, cancel FROM trace_jobs WHERE id = ?1"},
        [ST_JOB_DEL] = {"t", "DELETE FROM trace_jobs WHERE id = ?1"},
        [ST_JOB_CANCEL] = {"t",
                           "UPDATE trace_jobs SET cancel = 1, updated = " NOW " WHERE id = ?1"},
        /* ?1: seconds without a write; ?2: the message */
        [ST_JOB_STALE] = {"ut",
                          "UPDATE trace_jobs SET state = 'failed', code = 'internal', message = ?2,"
                          " updated = " NOW " WHERE state IN ('replaying', 'building')"
                          " AND cancel = 0 AND updated < strftime('%Y-%m-%dT%H:%M:%fZ', 'now',"
                          " '-' || ?1 || ' seconds')"},
        /* ?1: seconds for a cancelled row; ?2: for a finished one (0: kept) */
        [ST_JOB_EXPIRE] = {"uu",
                           "DELETE FROM trace_jobs WHERE (cancel = 1 AND updated <"
                           " strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || ?1 || ' seconds'))"
                           " OR (?2 > 0 AND state IN ('done', 'failed') AND updated <"
                           " strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || ?2 || ' seconds'))"},
        [ST_ANS_PUT] = {"tutt",
                        "INSERT INTO answers (lecture, at, voter, choice, updated)"
                        " VALUES (?1, ?2, ?3, ?4, " NOW ") ON CONFLICT (lecture, at, voter)"
                        " DO UPDATE SET choice = excluded.choice, updated = excluded.updated"},
        [ST_ANS_TALLY] = {"tu",
                          "SELECT choice, count(*) FROM answers WHERE lecture = ?1 AND at = ?2"
                          " GROUP BY choice ORDER BY choice"},
        [ST_ANS_EXPIRE] = {"u", "DELETE FROM answers WHERE updated < strftime('%Y-%m-%dT%H:%M:%fZ',"
                                " 'now', '-' || ?1 || ' seconds')"},
        [ST_SES_WHERE] = {"t", "SELECT position, events FROM sessions WHERE id = ?1"},
        [ST_SNP_CHECK] = {"tttt", "UPDATE snapshots SET check_engine = ?2, check_status = ?3, "
                                  "check_warning = ?4 WHERE id = ?1"},
        [ST_LOG_PUT] = {"tuuub", "INSERT OR REPLACE INTO oplogs (log, seq, ops, events, data)"
                                 " VALUES (?1, ?2, ?3, ?4, ?5)"},
        [ST_LOG_GET] = {"tu", "SELECT data FROM oplogs WHERE log = ?1 AND seq = ?2"},
        [ST_LOG_INFO] = {"t", "SELECT count(*), coalesce(sum(ops), 0), coalesce(sum(events), 0)"
                              " FROM oplogs WHERE log = ?1"},
        [ST_LOG_LAST] = {"t", "SELECT length(data) FROM oplogs WHERE log = ?1"
                              " ORDER BY seq DESC LIMIT 1"},
        [ST_LOG_DEL] = {"t", "DELETE FROM oplogs WHERE log = ?1"
                             " AND NOT EXISTS (SELECT 1 FROM sessions WHERE log = ?1)"
                             " AND NOT EXISTS (SELECT 1 FROM snapshots WHERE log = ?1)"},
        [ST_LOG_CHUNK] = {"tu", "SELECT ops, events, data FROM oplogs WHERE log = ?1 AND seq = ?2"},
        /* the logs of the snapshots ST_SNP_EXPIRE deletes */
        [ST_SNP_OLD_LOGS] = {"u", "SELECT DISTINCT log FROM snapshots WHERE log IS NOT NULL"
                                  " AND log <> '' AND created < strftime('%Y-%m-%dT%H:%M:%fZ',"
                                  " 'now', '-' || ?1 || ' days')"},
        [ST_SES_OV_SET] = {"tb", "UPDATE sessions SET overview = ?2 WHERE id = ?1"},
        [ST_SES_OV_GET] = {"t", "SELECT overview FROM sessions WHERE id = ?1"},
        [ST_CKP_PAGE_PUT] = {"tbb", "INSERT OR IGNORE INTO ckpt_pages (owner, hash, data)"
                                    " VALUES (?1, ?2, ?3)"},
        [ST_CKP_PUT] =
                {"ttuuubbb",
                 "INSERT OR REPLACE INTO ckpts (owner, tag, seq, op, off, meta, pages, extra)"
                 " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"},
        [ST_CKP_LIST] = {"tt", "SELECT seq, op, off, extra IS NOT NULL FROM ckpts"
                               " WHERE owner = ?1 AND tag = ?2 ORDER BY seq"},
        [ST_CKP_GET] = {"ttu", "SELECT op, off, meta, pages, extra FROM ckpts"
                               " WHERE owner = ?1 AND tag = ?2 AND seq = ?3"},
        [ST_CKP_PAGE_GET] = {"tb", "SELECT data FROM ckpt_pages WHERE owner = ?1 AND hash = ?2"},
        [ST_CKP_DEL] = {"t", "DELETE FROM ckpts WHERE owner = ?1"
                             " AND NOT EXISTS (SELECT 1 FROM sessions WHERE ckpts = ?1)"},
        [ST_CKP_PAGE_DEL] = {"t", "DELETE FROM ckpt_pages WHERE owner = ?1"
                                  " AND NOT EXISTS (SELECT 1 FROM sessions WHERE ckpts = ?1)"},
        [ST_SES_CKP_SET] = {"tt", "UPDATE sessions SET ckpts = ?2 WHERE id = ?1"},
        [ST_SES_CKP_GET] = {"t", "SELECT ckpts FROM sessions WHERE id = ?1"},
        [ST_CKP_COUNT] = {"t", "SELECT (SELECT count(*) FROM ckpts WHERE owner = ?1),"
                               " (SELECT count(*) FROM ckpt_pages WHERE owner = ?1)"},
};
