/*
 * answers.c: followers' answers to lecture questions (see answers.h).
 *
 * One list of questions under one mutex, each with a plain array of its
 * voters.  Lookups walk: a class has tens to hundreds of voters on a
 * handful of open questions, and every bound (voters per question,
 * questions per lecture, answers in all) keeps a walk short.  Questions are
 * stamped with a clock when answered; eviction takes the oldest stamp.
 */
#include "http/answers.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json.h"
#include "base/locked.h"
#include "http/lecture.h"
#include "http/quota.h"
#include "session/store.h"

struct vote {
    char voter[ANSWERS_VOTER_MAX + 1];
    char choice[ANSWERS_CHOICE_MAX + 1];
};

struct question {
    char lecture[LECTURE_ID_LEN + 1];
    uint64_t at;
    char arms[ANSWERS_ARMS_MAX]; /* "|a|b|" once answers_set_arms() ran; "" before */
    bool has_arms;
    uint64_t used;  /* the answers clock at its last answer */
    struct vote *v; /* n <= cap, n <= ANSWERS_MAX_VOTERS */
    unsigned n, cap;
    struct question *next;
};

struct answers {
    pthread_mutex_t lock; /* everything below */
    struct quota *rate;   /* answers per client a second; NULL: any */
    struct quota *per_follower; /* answers per follower's token a second */
    struct question *list;
    size_t total; /* sum of n over the list, <= ANSWERS_MAX_TOTAL */
    uint64_t clock;
};

int answers_new(unsigned rate, struct answers **out)
{
    struct answers *a = locked_zalloc(sizeof(*a), offsetof(struct answers, lock));

    if (!a)
        return -ENOMEM;
    if ((rate && quota_new_window(rate, 1, &a->rate)) ||
        quota_new_window(ANSWERS_FOLLOWER_RATE, 1, &a->per_follower)) {
        quota_free(a->rate);
        locked_free(a, offsetof(struct answers, lock));
        return -ENOMEM;
    }
    *out = a;
    return 0;
}

void answers_free(struct answers *a)
{
    struct question *q, *next;

    if (!a)
        return;
    for (q = a->list; q; q = next) {
        next = q->next;
        free(q->v);
        free(q);
    }
    quota_free(a->rate);
    quota_free(a->per_follower);
    locked_free(a, offsetof(struct answers, lock));
}

bool answers_admit(struct answers *a, const char *client)
{
    unsigned retry;

    return !a || quota_take(a->rate, client, &retry);
}

bool answers_admit_follower(struct answers *a, const char *id)
{
    unsigned retry;

    return !a || quota_take(a->per_follower, id, &retry);
}

bool answers_choice_valid(const char *choice)
{
    size_t i;

    for (i = 0; choice[i]; i++)
        if (i >= ANSWERS_CHOICE_MAX ||
            !((choice[i] >= 'a' && choice[i] <= 'z') || (choice[i] >= '0' && choice[i] <= '9') ||
              choice[i] == '_'))
            return false;
    return i > 0;
}

bool answers_voter_valid(const char *voter)
{
    size_t i;

    for (i = 0; voter[i]; i++) {
        char c = voter[i];

        if (i >= ANSWERS_VOTER_MAX || !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                        (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return false;
    }
    return i >= ANSWERS_VOTER_MIN;
}

/* Under the lock: unlink and free the least recently answered question of
 * @lecture (NULL: of any lecture), but never @keep. */
static void answers_drop_oldest(struct answers *a, const char *lecture, const struct question *keep)
{
    struct question **pp, **oldest = NULL, *q;

    for (pp = &a->list; (q = *pp); pp = &q->next)
        if (q != keep && (!lecture || !strcmp(q->lecture, lecture)) &&
            (!oldest || q->used < (*oldest)->used))
            oldest = pp;
    if (!oldest)
        return;
    q = *oldest;
    *oldest = q->next;
    a->total -= q->n;
    free(q->v);
    free(q);
}

/* Under the lock: question @at of @lecture, or NULL.  @nr counts the lecture's questions. */
static struct question *answers_find(struct answers *a, const char *lecture, uint64_t at,
                                     unsigned *nr)
{
    struct question *q, *found = NULL;

    *nr = 0;
    for (q = a->list; q; q = q->next)
        if (!strcmp(q->lecture, lecture)) {
            ++*nr;
            if (q->at == at)
                found = q;
        }
    return found;
}

/* Under the lock: question @at of @lecture, made when missing; NULL on host OOM. */
static struct question *answers_question(struct answers *a, const char *lecture, uint64_t at)
{
    struct question *q;
    unsigned nr;

    if ((q = answers_find(a, lecture, at, &nr)))
        return q;
    if (nr >= ANSWERS_MAX_QUESTIONS)
        answers_drop_oldest(a, lecture, NULL);
    if (!(q = calloc(1, sizeof(*q))))
        return NULL;
    snprintf(q->lecture, sizeof(q->lecture), "%s", lecture);
    q->at = at;
    q->next = a->list;
    a->list = q;
    return q;
}

int answers_offers(struct answers *a, const char *lecture, uint64_t at, const char *choice)
{
    struct question *q;
    unsigned nr;
    int ret = -ENOENT;

    if (!a)
        return -ENOENT;
    pthread_mutex_lock(&a->lock);
    if ((q = answers_find(a, lecture, at, &nr)) && q->has_arms) {
        const char *p = q->arms;
        size_t len = strlen(choice);

        ret = 0;
        while ((p = strstr(p, choice)))
            if (p > q->arms && p[-1] == '|' && p[len] == '|') {
                ret = 1;
                break;
            } else {
                p++;
            }
    }
    pthread_mutex_unlock(&a->lock);
    return ret;
}

int answers_set_arms(struct answers *a, const char *lecture, uint64_t at, const char *const *names,
                     unsigned n)
{
    char buf[ANSWERS_ARMS_MAX];
    size_t len = 0;
    struct question *q;
    int ret = 0;

    if (!a)
        return -ENOMEM;
    buf[len++] = '|';
    for (unsigned i = 0; i < n; i++) {
        size_t k = strlen(names[i]);

        if (len + k + 2 > sizeof(buf))
            return -E2BIG;
        memcpy(buf + len, names[i], k);
        len += k;
        buf[len++] = '|';
    }
    buf[len] = '\0';
    pthread_mutex_lock(&a->lock);
    if ((q = answers_question(a, lecture, at))) {
        memcpy(q->arms, buf, len + 1);
        q->has_arms = true;
    } else {
        ret = -ENOMEM;
    }
    pthread_mutex_unlock(&a->lock);
    return ret;
}

int answers_put(struct answers *a, const char *lecture, uint64_t at, const char *voter,
                const char *choice)
{
    struct question *q;
    unsigned i;
    int ret = 0;

    if (!a)
        return -ENOMEM;
    pthread_mutex_lock(&a->lock);
    if (!(q = answers_question(a, lecture, at))) {
        ret = -ENOMEM;
        goto out_unlock;
    }
    q->used = ++a->clock;
    for (i = 0; i < q->n; i++)
        if (!strcmp(q->v[i].voter, voter)) {
            snprintf(q->v[i].choice, sizeof(q->v[i].choice), "%s", choice);
            goto out_unlock;
        }
    if (q->n >= ANSWERS_MAX_VOTERS) {
        ret = -ENOSPC;
        goto out_unlock;
    }
    while (a->total >= ANSWERS_MAX_TOTAL)
        answers_drop_oldest(a, NULL, q);
    if (q->n == q->cap) {
        unsigned ncap = q->cap ? q->cap * 2 : 16;
        struct vote *v = realloc(q->v, ncap * sizeof(*v));

        if (!v) {
            ret = -ENOMEM;
            goto out_unlock;
        }
        q->v = v;
        q->cap = ncap;
    }
    snprintf(q->v[q->n].voter, sizeof(q->v[q->n].voter), "%s", voter);
    snprintf(q->v[q->n].choice, sizeof(q->v[q->n].choice), "%s", choice);
    q->n++;
    a->total++;
out_unlock:
    pthread_mutex_unlock(&a->lock);
    return ret;
}

struct tally {
    const char *choice;
    uint64_t n;
};

static int tally_cmp(const void *x, const void *y)
{
    return strcmp(((const struct tally *)x)->choice, ((const struct tally *)y)->choice);
}

cJSON *answers_tally(struct answers *a, const char *lecture, uint64_t at)
{
    cJSON *o = cJSON_CreateObject(), *counts = cJSON_CreateObject();
    struct tally *t = NULL;
    struct question *q;
    unsigned nr, i, nt = 0, k;
    bool ok = o && counts;

    if (!a) {
        cJSON_Delete(o);
        cJSON_Delete(counts);
        return NULL;
    }
    pthread_mutex_lock(&a->lock);
    q = answers_find(a, lecture, at, &nr);
    if (ok && q && q->n && !(t = calloc(q->n, sizeof(*t))))
        ok = false;
    for (i = 0; ok && q && i < q->n; i++) {
        for (k = 0; k < nt && strcmp(t[k].choice, q->v[i].choice); k++)
            ;
        if (k == nt)
            t[nt++].choice = q->v[i].choice;
        t[k].n++;
    }
    if (nt)
        qsort(t, nt, sizeof(*t), tally_cmp);
    for (k = 0; ok && k < nt; k++)
        ok = json_put(counts, t[k].choice, json_uint(t[k].n));
    ok = ok && json_put(o, "at", json_uint(at));
    if (ok) {
        ok = json_put(o, "counts", counts); /* takes counts, even when it fails */
        counts = NULL;
    }
    ok = ok && json_put(o, "total", json_uint(q ? q->n : 0));
    pthread_mutex_unlock(&a->lock);
    free(t);
    cJSON_Delete(counts);
    if (!ok)
        return json_drop(o);
    return o;
}

/* answers_tally_stored()'s document, row by row. */
struct stored_tally {
    cJSON *counts;
    uint64_t total;
};

static int stored_row(const char *choice, uint64_t n, void *arg)
{
    struct stored_tally *t = arg;

    t->total += n;
    return json_put(t->counts, choice, json_uint(n)) ? 0 : -ENOMEM;
}

int answers_tally_stored(struct store *st, const char *lecture, uint64_t at, cJSON **out)
{
    struct stored_tally t = {.counts = cJSON_CreateObject(), .total = 0};
    cJSON *o = cJSON_CreateObject();
    int ret = o && t.counts ? 0 : -ENOMEM;

    if (!ret)
        ret = store_answers_tally(st, lecture, at, stored_row, &t);
    if (!ret && !json_put(o, "at", json_uint(at)))
        ret = -ENOMEM;
    if (!ret) {
        ret = json_put(o, "counts", t.counts) ? 0 : -ENOMEM; /* takes counts, even when it fails */
        t.counts = NULL;
    }
    if (!ret && !json_put(o, "total", json_uint(t.total)))
        ret = -ENOMEM;
    cJSON_Delete(t.counts);
    if (ret) {
        cJSON_Delete(o);
        return ret;
    }
    *out = o;
    return 0;
}
