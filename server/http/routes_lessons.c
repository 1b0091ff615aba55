/*
 * routes_lessons.c: the course (docs/lessons.md): lessons and exercises as
 * read at start (lesson.h), and the answers followers give to a lecture's
 * questions (answers.h).
 *
 * Lessons and exercises are served from memory: the list of the valid
 * ones, and each file's own text.  A file that is not valid is left out of
 * the list and its GET is a 422 with the reason, so an author sees why.
 * Ids are looked up in the set read at start, never turned into paths.
 *
 * Answers need no token (a follower has none) and are rate-limited per
 * client address; the tally needs the lecture's write token, as pointing
 * the lecture at a session does.  All of it runs on the connection's
 * thread: nothing here waits for the engine, the store or the disk.
 */
#include "http/routes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ids.h"
#include "base/json.h"
#include "http/answers.h"
#include "http/app.h"
#include "http/follow.h"
#include "http/follower_token.h"
#include "http/lecture.h"
#include "http/request.h"
#include "scenario/lesson.h"
#include "session/session.h"
#include "session/store.h"

static const char *const answer_keys[] = {"at", "choice", "token", NULL};

/* An item of a list: @keys[i] from @doc, strings and numbers as they are. */
static cJSON *lesson_item(const struct lesson_entry *e, const char *const *keys)
{
    cJSON *o = cJSON_CreateObject();

    if (!o || !json_put(o, "id", cJSON_CreateString(e->id)))
        return json_drop(o);
    for (; *keys; keys++) {
        const cJSON *j = cJSON_GetObjectItemCaseSensitive(e->json, *keys);

        if (!json_put(o, *keys, cJSON_Duplicate(j, false)))
            return json_drop(o);
    }
    return o;
}

/* The length of array @key of @doc as key @key of @o. */
static bool lesson_count(cJSON *o, const cJSON *doc, const char *key)
{
    return json_put(
            o, key,
            json_uint((uint64_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, key))));
}

/*
 * The list of the valid files of @set as key @name: each with @keys, the
 * length of its array @count, and (lessons) how many slides ask.  NULL
 * when out of memory.
 */
static cJSON *lesson_list(const struct lesson_set *set, const char *name, const char *const *keys,
                          const char *count, bool questions)
{
    cJSON *o = cJSON_CreateObject(), *arr = NULL;

    if (!o || !json_put(o, name, arr = cJSON_CreateArray()))
        return json_drop(o);
    for (size_t i = 0; i < set->n; i++) {
        const struct lesson_entry *e = &set->v[i];
        cJSON *x;

        if (!e->json)
            continue;
        if (!json_push(arr, x = lesson_item(e, keys)) || !lesson_count(x, e->json, count) ||
            (questions && !json_put(x, "questions", json_uint(lesson_questions(e->json)))))
            return json_drop(o);
    }
    return o;
}

int route_lessons(const struct request *req, struct response *res)
{
    static const char *const keys[] = {"title", "minutes", "summary", NULL};

    return route_json(res, 200, lesson_list(&req->app->lessons, "lessons", keys, "slides", true));
}

int route_exercises(const struct request *req, struct response *res)
{
    static const char *const keys[] = {"title", "max_ops", NULL};

    return route_json(res, 200,
                      lesson_list(&req->app->exercises, "exercises", keys, "hints", false));
}

/* GET of one file of @set: its text, or why it is not served. */
static int lesson_file(const struct request *req, struct response *res,
                       const struct lesson_set *set, const char *what)
{
    const struct lesson_entry *e = lesson_set_find(set, req->args[0]);

    if (!e)
        return route_error(res, 404, "not_found", "no %s \"%.64s\"", what, req->args[0]);
    if (!e->json)
        return route_error(res, 422, "unprocessable", "%s \"%s\" is not valid: %s", what, e->id,
                           e->error);
    if (!(res->body = malloc(e->len ? e->len : 1)))
        return route_json(res, 500, NULL);
    memcpy(res->body, e->text, e->len);
    res->len = e->len;
    res->status = 200;
    res->content_type = "application/json";
    return 0;
}

int route_lesson(const struct request *req, struct response *res)
{
    return lesson_file(req, res, &req->app->lessons, "lesson");
}

int route_exercise(const struct request *req, struct response *res)
{
    return lesson_file(req, res, &req->app->exercises, "exercise");
}

/* The body's string @key, checked by @valid: NULL after a 400. */
static const char *answer_string(const cJSON *body, const char *key, bool (*valid)(const char *),
                                 const char *form, struct response *res)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(body, key);

    if (!j) {
        route_error(res, 400, "bad_request", "key \"%s\": missing (%s)", key, form);
        return NULL;
    }
    if (!cJSON_IsString(j) || !valid(j->valuestring)) {
        route_error(res, 400, "bad_request", "key \"%s\": expected %s", key, form);
        return NULL;
    }
    return j->valuestring;
}

/* The answer to an answer: what was recorded (the follower does not see the tally). */
static cJSON *answer_json(uint64_t at, const char *choice)
{
    cJSON *o = cJSON_CreateObject();

    if (o &&
        (!json_put(o, "at", json_uint(at)) || !json_put(o, "choice", cJSON_CreateString(choice)))) {
        cJSON_Delete(o);
        o = NULL;
    }
    return o;
}

/* The arms of the branch record event @at carries (its first: the question's), as predict.js asks
 * them. */
struct question_arms {
    uint64_t at;
    const char *names[16];
    unsigned n;
};

static void question_arms_event(const struct sim_event *ev, void *arg)
{
    struct question_arms *q = arg;

    if (ev->seq != q->at || !ev->nr_branches)
        return;
    for (size_t i = 0; i < ev->branches[0].point->nr_arms && q->n < 16; i++)
        q->names[q->n++] = ev->branches[0].point->arms[i].name;
}

/*
 * Does question @at of the lecture @info offer @choice?  Its arms are read
 * from the lecture's session once and kept (answers_set_arms()).  1 yes, 0
 * no (a 400 in @res), ROUTE_OPEN_ERROR with the error in @res.
 */
static int answer_offered(const struct request *req, struct response *res,
                          const struct lecture_info *info, uint64_t at, const char *choice)
{
    struct app *app = req->app;
    struct question_arms q = {.at = at};
    uint64_t from = at, to = at + 1;
    struct session *s;
    int ret = answers_offers(app->answers, info->id, at, choice);

    if (ret == -ENOENT) {
        if (!info->session[0]) {
            route_error(res, 409, "conflict", "the lecture shows no session yet");
            return ROUTE_OPEN_ERROR;
        }
        if ((ret = route_open_session(req, res, info->session, &s)))
            return ROUTE_OPEN_ERROR;
        ret = session_events(s, &from, &to, question_arms_event, &q);
        route_close_session(req, s);
        if (ret) {
            route_session_error(res, ret, NULL);
            return ROUTE_OPEN_ERROR;
        }
        if (answers_set_arms(app->answers, info->id, at, q.names, q.n)) {
            route_error(res, 503, "busy", "out of memory");
            return ROUTE_OPEN_ERROR;
        }
        ret = answers_offers(app->answers, info->id, at, choice);
    }
    if (ret != 1)
        route_error(res, 400, "bad_request",
                    "key \"choice\": %s is not an answer the question at %llu offers", choice,
                    (unsigned long long)at);
    return ret == 1 ? 1 : 0;
}

int route_answer_post(const struct request *req, struct response *res)
{
    struct app *app = req->app;
    struct lecture_info info;
    const char *choice, *token;
    char voter[FOLLOWER_ID_LEN + 1];
    uint64_t at = 0;
    cJSON *body;
    int ret;

    if (!req->may_block)
        return ROUTE_WOULD_BLOCK; /* the question's arms may have to be read from its session */
    if (!answers_admit(app->answers, req->client)) {
        route_error(res, 429, "rate_limited",
                    "%s may send at most %u answers a second (--answer-rate); try again in a "
                    "second",
                    req->client ? req->client : "this client", app->cfg.answer_rate);
        snprintf(res->retry_after, sizeof(res->retry_after), "1");
        return 0;
    }
    if (!route_check_id(res, ROUTE_ID_LECTURE, req->args[0]))
        return 0;
    if (lecture_get(app->lectures, req->args[0], &info))
        return route_no_such(res, ROUTE_ID_LECTURE, req->args[0]);
    if (!(body = route_body(req, res)))
        return 0;
    if (!route_check_object(body, answer_keys, "expected an object {\"at\", \"choice\", \"voter\"}",
                            res))
        goto out;
    if ((ret = route_field_u64(body, "at", (1ull << 53) - 1, &at, res)) < 0)
        goto out;
    if (ret == 1) {
        route_error(res, 400, "bad_request", "key \"at\": missing (the question's position)");
        goto out;
    }
    if (!(choice = answer_string(body, "choice", answers_choice_valid,
                                 "an arm's name: 1 to 40 characters of a-z, 0-9 and _", res)) ||
        !(token = answer_string(body, "token", follower_token_valid,
                                "the follower's token (POST /api/lectures/ID/followers)", res)))
        goto out;
    ret = lecture_check_follower(app->lectures, info.id, token);
    if (ret == -EPERM) {
        route_forbidden(res, "an answer needs a follower's token of this lecture (POST "
                             "/api/lectures/ID/followers)");
        goto out;
    }
    if (ret) {
        if (ret == -ENOENT)
            route_no_such(res, ROUTE_ID_LECTURE, req->args[0]);
        else
            route_error(res, 500, "internal", "the lecture cannot be read");
        goto out;
    }
    follower_token_id(token, voter);
    if (!answers_admit_follower(app->answers, voter)) {
        route_error(res, 429, "rate_limited",
                    "one follower may send at most %u answers a second; try again in a second",
                    ANSWERS_FOLLOWER_RATE);
        snprintf(res->retry_after, sizeof(res->retry_after), "1");
        goto out;
    }
    if (answer_offered(req, res, &info, at, choice) != 1)
        goto out;
    ret = answers_put(app->answers, info.id, at, voter, choice);
    if (ret == -ENOSPC)
        route_error(res, 409, "conflict", "this question has its %u answers already",
                    ANSWERS_MAX_VOTERS);
    else if (ret)
        route_error(res, 503, "busy", "out of memory");
    /* the other servers' presenters count it from the store */
    else if (store_shared(app->store) && store_answer_put(app->store, info.id, at, voter, choice))
        route_error(res, 500, "internal", "cannot store the answer");
    else
        route_json(res, 200, answer_json(at, choice));
out:
    cJSON_Delete(body);
    return 0;
}

int route_answers_get(const struct request *req, struct response *res)
{
    struct app *app = req->app;
    char topic[sizeof(LECTURE_TOPIC) + LECTURE_ID_LEN];
    cJSON *o = NULL;
    uint64_t at = 0;
    int ret;

    if (!route_check_id(res, ROUTE_ID_LECTURE, req->args[0]))
        return 0;
    if (!req->may_block && store_shared(app->store))
        return ROUTE_WOULD_BLOCK; /* the lecture may have to be read from the store */
    ret = lecture_check_token(app->lectures, req->args[0], route_token(req));
    if (ret == -ENOENT)
        return route_no_such(res, ROUTE_ID_LECTURE, req->args[0]);
    if (ret && ret != -EPERM)
        return route_error(res, 500, "internal", "the lecture cannot be read");
    if (ret)
        return route_forbidden(res, "the tally needs the lecture's write token");
    if ((ret = route_query_u64(req, res, "at", (1ull << 53) - 1, &at)) < 0)
        return 0;
    if (ret == 1)
        return route_error(res, 400, "bad_request",
                           "query \"at\": the question's position is needed");
    if (store_shared(app->store)) { /* the answers every server received */
        if ((ret = answers_tally_stored(app->store, req->args[0], at, &o)))
            return route_error(res, 500, "internal", "cannot count the answers");
    } else {
        o = answers_tally(app->answers, req->args[0], at);
    }
    /* out of how many: the followers connected here now */
    lecture_topic(req->args[0], topic, sizeof(topic));
    if (o && !json_put(o, "followers", json_uint(follow_count(app->follow, topic)))) {
        cJSON_Delete(o);
        o = NULL;
    }
    return route_json(res, 200, o);
}
