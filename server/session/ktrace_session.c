/*
 * ktrace_session.c: a replayed trace as a stored session.
 *
 * The scenario is built into a session with the server's default limits
 * (session_build() replays it exactly as the server will when the session
 * is opened, so a scenario the server would refuse is refused here), and
 * its inputs go to the store as registry_add() writes them: the scenario
 * row, default settings and one batch, the scenario itself.
 */
#include "session/ktrace_session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ids.h"
#include "session/session.h"
#include "session/store.h"

int ktrace_session_store(struct store *st, const cJSON *scenario, char *id, size_t id_len,
                         struct strbuf *err)
{
    struct session_limits lim;
    struct session *s = NULL;
    struct store_session ss;
    struct store_batch batch = {NULL, REPLAY_NO_LIMIT};
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(scenario, "name");
    char *text = cJSON_PrintUnformatted(scenario), *settings = NULL;
    cJSON *sj = NULL;
    int64_t row;
    int ret = -ENOMEM;

    if (!text)
        goto out;
    session_limits_default(&lim);
    s = session_new(&lim);
    if (!s)
        goto out;
    ret = session_set_scenario(s, text, strlen(text),
                               cJSON_IsString(name) ? name->valuestring : "kmem-trace");
    if (ret) {
        strbuf_printf(err, "the scenario was refused (%s)", strerror(-ret));
        goto out;
    }
    ret = session_build(s, err);
    if (ret)
        goto out;
    sj = session_settings_json(s);
    settings = sj ? cJSON_PrintUnformatted(sj) : NULL;
    if (!settings || ids_token(s->token)) {
        ret = -ENOMEM;
        goto out;
    }
    ret = store_scenario_put(st, s->run->scn->name, text, strlen(text), false, &row);
    if (ret) {
        strbuf_printf(err, "cannot store the scenario");
        goto out;
    }
    memset(&ss, 0, sizeof(ss));
    ss.scenario = row;
    ss.settings = settings;
    ss.batches = &batch;
    ss.nr_batches = 1;
    ss.events = session_nr_events(s);
    memcpy(ss.token, s->token, sizeof(s->token));
    for (int attempt = 0; attempt < 8; attempt++) {
        if ((ret = ids_random(ss.id, SESSION_ID_LEN)))
            break;
        ret = store_session_create(st, &ss);
        if (ret != -EEXIST)
            break;
    }
    if (ret)
        strbuf_printf(err, "cannot store the session");
    else
        snprintf(id, id_len, "%s", ss.id);
out:
    if (ret == -ENOMEM && !strbuf_str(err)[0])
        strbuf_printf(err, "out of memory");
    else if (ret && !strbuf_str(err)[0]) /* every failure says what failed */
        strbuf_printf(err, "the session cannot be built (%s)",
                      ret == SESSION_ELIMIT ? "past a session limit" : strerror(-ret));
    cJSON_free(settings);
    cJSON_Delete(sj);
    session_free(s);
    cJSON_free(text);
    return ret;
}

int ktrace_session_save(const char *path, const cJSON *scenario, char *id, size_t id_len,
                        struct strbuf *err)
{
    struct store *st;
    int ret = store_open(path, &st, err);

    if (ret)
        return ret;
    ret = ktrace_session_store(st, scenario, id, id_len, err);
    store_close(st);
    return ret;
}
