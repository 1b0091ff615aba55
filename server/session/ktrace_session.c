/*
 * ktrace_session.c: a replayed trace as a stored session (see
 * ktrace_session.h).
 *
 * The log's chunks go to the store through the op log's tier as the replay
 * runs (oplog_flush() writes the last one); at most two stay in memory.  The
 * session row refers to the log by its id: sessions forked from it refer to
 * the same log, and the store removes the log with the last of them.  The
 * session is not built here: the server replays the log when the session is
 * first opened (session.c), and the replay that wrote the log has shown it
 * runs.
 */
#include "session/ktrace_session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ids.h"
#include "session/store.h"

/* The log's tier: chunk @idx to the store. */
static int ktrace_log_put(void *arg, uint64_t idx, const uint8_t *buf, size_t len, uint64_t ops,
                          uint64_t events)
{
    struct ktrace_log *kl = arg;

    return store_oplog_put(kl->st, kl->id, idx, buf, len, ops, events);
}

int ktrace_log_begin(struct ktrace_log *kl, struct store *st)
{
    memset(kl, 0, sizeof(*kl));
    kl->st = st;
    kl->log.tier.put = ktrace_log_put;
    kl->log.tier.arg = kl;
    kl->log.tier.keep = 1;
    return ids_random(kl->id, SESSION_ID_LEN) ? -ENOMEM : 0;
}

int ktrace_log_op(const struct sim_op *op, uint64_t events, void *arg)
{
    struct ktrace_log *kl = arg;

    if (kl->cancel && *kl->cancel)
        return -ECANCELED;
    return oplog_append(&kl->log, op, events);
}

int ktrace_log_finish(struct ktrace_log *kl)
{
    return oplog_flush(&kl->log);
}

void ktrace_log_release(struct ktrace_log *kl)
{
    oplog_release(&kl->log);
}

void ktrace_log_abort(struct ktrace_log *kl)
{
    if (kl->st && kl->id[0])
        store_oplog_delete(kl->st, kl->id);
    ktrace_log_release(kl);
}

int ktrace_session_store_log(struct ktrace_log *kl, const cJSON *scenario,
                             const struct session_limits *lim, char *id, size_t id_len, char *token,
                             size_t token_len, struct strbuf *err)
{
    struct session *s = NULL;
    struct store_session ss;
    struct store_batch batch = {NULL, REPLAY_NO_LIMIT};
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(scenario, "name");
    char *text = cJSON_PrintUnformatted(scenario), *settings = NULL;
    cJSON *sj = NULL;
    int64_t row;
    int ret = -ENOMEM;

    if (!text || !(s = session_new(lim)))
        goto out;
    if ((ret = ktrace_log_finish(kl))) {
        strbuf_printf(err, "cannot store the operations (%s)", strerror(-ret));
        goto out;
    }
    ret = session_set_scenario(s, text, strlen(text),
                               cJSON_IsString(name) ? name->valuestring : "kmem-trace");
    if (!ret)
        ret = session_configure(s, err);
    if (ret) {
        if (!strbuf_str(err)[0])
            strbuf_printf(err, "the scenario was refused (%s)", strerror(-ret));
        goto out;
    }
    if (kl->log.nr_ops > lim->max_ops) {
        strbuf_printf(err, "the trace makes %llu operations, more than a session's limit of %llu",
                      (unsigned long long)kl->log.nr_ops, (unsigned long long)lim->max_ops);
        ret = SESSION_ELIMIT;
        goto out;
    }
    sj = session_settings_json(s);
    settings = sj ? cJSON_PrintUnformatted(sj) : NULL;
    if (!settings || ids_token(s->token)) {
        ret = -ENOMEM;
        goto out;
    }
    ret = store_scenario_put(kl->st, s->run->scn->name, text, strlen(text), false, &row);
    if (ret) {
        strbuf_printf(err, "cannot store the scenario (%s)", strerror(-ret));
        goto out;
    }
    memset(&ss, 0, sizeof(ss));
    ss.scenario = row;
    ss.settings = settings;
    ss.batches = &batch;
    ss.nr_batches = 1;
    ss.events = kl->log.nr_events;
    snprintf(ss.engine, sizeof(ss.engine), "%s", SIM_VERSION);
    snprintf(ss.log, sizeof(ss.log), "%s", kl->id);
    memcpy(ss.token, s->token, sizeof(s->token));
    for (int attempt = 0; attempt < 8; attempt++) {
        if ((ret = ids_random(ss.id, SESSION_ID_LEN)))
            break;
        ret = store_session_create(kl->st, &ss);
        if (ret != -EEXIST)
            break;
    }
    if (ret) {
        strbuf_printf(err, "cannot store the session (%s)", strerror(-ret));
    } else {
        if (id)
            snprintf(id, id_len, "%s", ss.id);
        if (token)
            snprintf(token, token_len, "%s", ss.token);
    }
out:
    if (ret == -ENOMEM && !strbuf_str(err)[0])
        strbuf_printf(err, "out of memory");
    else if (ret && !strbuf_str(err)[0]) /* every failure says what failed */
        strbuf_printf(err, "the session cannot be stored (%s)", strerror(-ret));
    if (ret)
        ktrace_log_abort(kl);
    cJSON_free(settings);
    cJSON_Delete(sj);
    session_free(s);
    cJSON_free(text);
    return ret;
}
