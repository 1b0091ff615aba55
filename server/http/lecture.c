/*
 * lecture.c: the lectures (see lecture.h).
 *
 * A list under one mutex, newest first.  The lock is a leaf but for the
 * follow hub's topic lock, which lecture_set() and lecture_publish() take
 * inside it through follow_publish_as(): lectures, then the hub's
 * topic_lock.  A session's publish runs under that session's lock, so the
 * order of all three is session, lectures, topic_lock.  Few lectures run
 * at once, so a walk of the list per publish costs nothing worth a map.
 * The store's lock is taken inside the lectures' (a leaf): a lecture is
 * written when made and when pointed at a session, not on every publish
 * (its session's position is stored with the session, and loading takes
 * it from there).
 */
#include "http/lecture.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ids.h"
#include "base/locked.h"
#include "http/follow.h"
#include "http/follower_token.h"
#include "session/store.h"

struct lecture {
    struct lecture_info info;
    char token[33];
    struct lecture *next;
};

struct lectures {
    pthread_mutex_t lock;
    struct lecture *list; /* newest or last changed first */
    unsigned nr;          /* |list| <= LECTURES_MAX */
    struct store *store;  /* where they are kept, or NULL */
    struct lecture **tail; /* while loading: where the next (older) one goes */
};

/* store_lectures_load()'s callback: append @lc (they come newest first). */
static int lecture_loaded(const struct store_lecture *lc, void *arg)
{
    struct lectures *l = arg;
    struct lecture *x;

    if (!ids_valid(lc->id, LECTURE_ID_LEN) || strlen(lc->token) != 32)
        return 0; /* not one this server made: left alone */
    if (!(x = calloc(1, sizeof(*x))))
        return -ENOMEM;
    memcpy(x->info.id, lc->id, strlen(lc->id) + 1);
    snprintf(x->info.session, sizeof(x->info.session), "%s", lc->session);
    x->info.at = lc->position;
    x->info.events = lc->events;
    x->info.ops = lc->ops;
    memcpy(x->token, lc->token, sizeof(x->token));
    *l->tail = x;
    l->tail = &x->next;
    l->nr++;
    return 0;
}

int lectures_new(struct store *st, struct lectures **out)
{
    struct lectures *l = locked_zalloc(sizeof(*l), offsetof(struct lectures, lock));
    int ret;

    if (!l)
        return -ENOMEM;
    l->store = st;
    l->tail = &l->list;
    if (st && (ret = store_lectures_load(st, LECTURES_MAX, lecture_loaded, l))) {
        lectures_free(l);
        return ret;
    }
    *out = l;
    return 0;
}

/* @x as the store keeps it. */
static void lecture_row(const struct lecture *x, struct store_lecture *lc)
{
    memset(lc, 0, sizeof(*lc));
    memcpy(lc->id, x->info.id, sizeof(x->info.id));
    memcpy(lc->token, x->token, sizeof(x->token));
    memcpy(lc->session, x->info.session, sizeof(x->info.session));
    lc->position = x->info.at;
    lc->events = x->info.events;
    lc->ops = x->info.ops;
}

void lectures_free(struct lectures *l)
{
    struct lecture *x, *next;

    if (!l)
        return;
    for (x = l->list; x; x = next) {
        next = x->next;
        free(x);
    }
    locked_free(l, offsetof(struct lectures, lock));
}

/* Under the lock: lecture @id, moved to the front; NULL when none. */
static struct lecture *lecture_find(struct lectures *l, const char *id)
{
    struct lecture **pp, *x;

    for (pp = &l->list; (x = *pp); pp = &x->next) {
        if (strcmp(x->info.id, id) == 0) {
            *pp = x->next;
            x->next = l->list;
            l->list = x;
            return x;
        }
    }
    return NULL;
}

/* Under the lock: forget the last lecture of the list (the least recently used). */
static void lecture_drop_oldest(struct lectures *l)
{
    struct lecture **pp = &l->list;

    if (!*pp)
        return;
    while ((*pp)->next)
        pp = &(*pp)->next;
    /* on failure: not loaded past the cap; a shared store keeps it for the other servers */
    if (l->store && !store_shared(l->store))
        store_lecture_delete(l->store, (*pp)->info.id);
    free(*pp);
    *pp = NULL;
    l->nr--;
}

/* Under the lock: put @x first, dropping the oldest when LECTURES_MAX are kept. */
static void lecture_push(struct lectures *l, struct lecture *x)
{
    if (l->nr == LECTURES_MAX)
        lecture_drop_oldest(l);
    x->next = l->list;
    l->list = x;
    l->nr++;
}

/*
 * Under the lock: lecture @id as lecture_find(), and when the store is
 * shared (other servers make and move lectures) as the store has it: read
 * from there when this server has not seen it, or when @fresh.  NULL with
 * *@err -ENOENT or the store's error.
 */
static struct lecture *lecture_lookup(struct lectures *l, const char *id, bool fresh, int *err)
{
    struct lecture *x = lecture_find(l, id);
    struct store_lecture lc;
    int ret;

    *err = -ENOENT;
    if (!l->store || !store_shared(l->store) || (x && !fresh))
        return x;
    if ((ret = store_lecture_load(l->store, id, &lc)))
        goto out;
    if (!ids_valid(lc.id, LECTURE_ID_LEN) || strlen(lc.token) != 32) {
        ret = -ENOENT; /* not one a server made, as lecture_loaded() says */
        goto out;
    }
    if (!x) {
        if (!(x = calloc(1, sizeof(*x)))) {
            ret = -ENOMEM;
            goto out;
        }
        lecture_push(l, x);
        memcpy(x->info.id, lc.id, strlen(lc.id) + 1);
        memcpy(x->token, lc.token, sizeof(x->token));
    }
    snprintf(x->info.session, sizeof(x->info.session), "%s", lc.session);
    x->info.at = lc.position;
    x->info.events = lc.events;
    x->info.ops = lc.ops;
    return x;
out:
    *err = ret;
    return ret == -ENOENT ? NULL : x; /* a store that failed: what this server knows */
}

int lecture_create(struct lectures *l, struct lecture_info *info, char *token)
{
    struct lecture *x = calloc(1, sizeof(*x));
    struct store_lecture lc;
    int ret, attempt;

    if (!x)
        return -ENOMEM;
    x->info = *info;
    pthread_mutex_lock(&l->lock);
    if ((ret = ids_token(x->token)))
        goto err_unlock;
    for (attempt = 0;; attempt++) {
        do {
            if ((ret = ids_random(x->info.id, LECTURE_ID_LEN)))
                goto err_unlock;
        } while (lecture_find(l, x->info.id));
        if (!l->store)
            break;
        lecture_row(x, &lc);
        ret = store_lecture_create(l->store, &lc);
        if (!ret)
            break;
        if (ret != -EEXIST || attempt == 8)
            goto err_unlock;
    }
    lecture_push(l, x);
    *info = x->info;
    memcpy(token, x->token, sizeof(x->token));
    pthread_mutex_unlock(&l->lock);
    return 0;

err_unlock:
    pthread_mutex_unlock(&l->lock);
    free(x);
    return ret;
}

/* lecture_get() and lecture_read(). */
static int lecture_copy(struct lectures *l, const char *id, bool fresh, struct lecture_info *out)
{
    struct lecture *x;
    int err;

    pthread_mutex_lock(&l->lock);
    x = lecture_lookup(l, id, fresh, &err);
    if (x)
        *out = x->info;
    pthread_mutex_unlock(&l->lock);
    return x ? 0 : err;
}

int lecture_get(struct lectures *l, const char *id, struct lecture_info *out)
{
    return lecture_copy(l, id, false, out);
}

int lecture_read(struct lectures *l, const char *id, struct lecture_info *out)
{
    return lecture_copy(l, id, true, out);
}

int lecture_check_token(struct lectures *l, const char *id, const char *token)
{
    struct lecture *x;
    int ret;

    pthread_mutex_lock(&l->lock);
    if ((x = lecture_lookup(l, id, false, &ret)))
        ret = token && ids_token_equal(token, x->token) ? 0 : -EPERM;
    pthread_mutex_unlock(&l->lock);
    return ret;
}

int lecture_set_view(struct lectures *l, struct follow_hub *hub, const char *id, const char *token,
                     const char *view)
{
    char topic[sizeof(LECTURE_TOPIC) + LECTURE_ID_LEN];
    struct lecture *x;
    int ret;

    pthread_mutex_lock(&l->lock);
    if ((x = lecture_lookup(l, id, false, &ret))) {
        if (!token || !ids_token_equal(token, x->token)) {
            ret = -EPERM;
        } else {
            snprintf(x->info.view, sizeof(x->info.view), "%s", view);
            x->info.view_rev++;
            lecture_topic(x->info.id, topic, sizeof(topic));
            follow_publish_view(hub, topic, x->info.view_rev);
            ret = 0;
        }
    }
    pthread_mutex_unlock(&l->lock);
    return ret;
}

int lecture_follower_token(struct lectures *l, const char *id, char *out)
{
    struct lecture *x;
    int ret;

    pthread_mutex_lock(&l->lock);
    if ((x = lecture_lookup(l, id, false, &ret)))
        ret = follower_token_issue(x->token, x->info.id, out);
    pthread_mutex_unlock(&l->lock);
    return ret;
}

int lecture_check_follower(struct lectures *l, const char *id, const char *token)
{
    struct lecture *x;
    int ret;

    pthread_mutex_lock(&l->lock);
    if ((x = lecture_lookup(l, id, false, &ret)))
        ret = follower_token_verify(x->token, x->info.id, token) ? 0 : -EPERM;
    pthread_mutex_unlock(&l->lock);
    return ret;
}

void lecture_topic(const char *id, char *buf, unsigned size)
{
    snprintf(buf, size, "%s%s", LECTURE_TOPIC, id);
}

/* Under the lock: tell lecture @x's followers where it is, and the state
 * there when @state (NULL: they fetch it). */
static void lecture_tell(const struct lecture *x, struct follow_hub *hub, struct blob *state)
{
    char topic[sizeof(LECTURE_TOPIC) + LECTURE_ID_LEN];

    lecture_topic(x->info.id, topic, sizeof(topic));
    follow_publish_state(hub, topic, x->info.session, x->info.at, x->info.events, x->info.ops,
                         state);
}

int lecture_set(struct lectures *l, struct follow_hub *hub, const struct lecture_info *info,
                const char *token)
{
    struct lecture *x;
    int ret;

    pthread_mutex_lock(&l->lock);
    x = lecture_lookup(l, info->id, false, &ret);
    if (!x) {
        /* ret says why */
    } else if (!token || !ids_token_equal(token, x->token)) {
        ret = -EPERM;
    } else {
        struct lecture next = *x;
        struct store_lecture lc;

        ret = 0;
        memcpy(next.info.session, info->session, sizeof(next.info.session));
        next.info.at = info->at;
        next.info.events = info->events;
        next.info.ops = info->ops;
        lecture_row(&next, &lc);
        if (l->store && (ret = store_lecture_set(l->store, &lc)))
            ret = ret == -ENOMEM ? -ENOMEM : -EIO;
        if (!ret) {
            x->info = next.info;
            lecture_tell(x, hub, NULL);
        }
    }
    pthread_mutex_unlock(&l->lock);
    return ret;
}

struct follower *lecture_follow(struct lectures *l, struct follow_hub *hub, const char *id,
                                int *err)
{
    char topic[sizeof(LECTURE_TOPIC) + LECTURE_ID_LEN];
    struct follower *f = NULL;
    struct lecture *x;
    int ret;

    /* under the lock: no publish comes between the values and the attach */
    pthread_mutex_lock(&l->lock);
    x = lecture_lookup(l, id, true, &ret);
    if (x) {
        lecture_topic(x->info.id, topic, sizeof(topic));
        f = follow_attach_as(hub, topic, x->info.session, x->info.at, x->info.events, x->info.ops);
    }
    pthread_mutex_unlock(&l->lock);
    if (!f)
        *err = x ? -ENOMEM : ret;
    return f;
}

void lecture_publish(struct lectures *l, struct follow_hub *hub, const char *session, uint64_t at,
                     uint64_t events, uint64_t ops, struct blob *state)
{
    struct lecture *x;

    pthread_mutex_lock(&l->lock);
    for (x = l->list; x; x = x->next) {
        if (strcmp(x->info.session, session))
            continue;
        x->info.at = at;
        x->info.events = events;
        x->info.ops = ops;
        lecture_tell(x, hub, state);
    }
    pthread_mutex_unlock(&l->lock);
}

void lecture_heard(struct lectures *l, struct follow_hub *hub, const struct lecture_info *info)
{
    struct lecture *x;

    pthread_mutex_lock(&l->lock);
    for (x = l->list; x && strcmp(x->info.id, info->id); x = x->next)
        ;
    if (x) {
        x->info = *info;
        lecture_tell(x, hub, NULL);
    }
    pthread_mutex_unlock(&l->lock);
}
