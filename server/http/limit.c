/*
 * limit.c: token buckets of CPU time, per client address and per token
 * (see limit.h).
 *
 * An open-addressed table of LIMIT_SLOTS buckets, each keyed by "a ADDRESS"
 * or "t TOKEN", holding its CPU microseconds left (negative after a charge
 * larger than what was left) and when it was last refilled.  A bucket
 * refilled to full is as good as empty, so its slot is taken by the next
 * new key that probes past it; a key is looked for over its whole probe
 * (LIMIT_PROBE slots) before a slot is taken, so no key has two buckets.
 * When the probe finds neither the key nor a free slot, the request passes
 * uncounted rather than be refused for others' use.
 */
#include "http/limit.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "http/params.h"

#define LIMIT_SLOTS 4096u /* a power of two */
#define LIMIT_PROBE 64u
#define LIMIT_KEY   80u

struct bucket {
    char key[LIMIT_KEY]; /* "" when never used */
    int64_t left_us;     /* CPU microseconds left; <= cap_us of its kind */
    uint64_t at_ns;      /* when left_us was last brought up to date */
};

struct limiter {
    pthread_mutex_t lock;
    int64_t cap_us[2];            /* [0] an address's bucket, [1] a token's */
    uint64_t refill_ns_per_us[2]; /* nanoseconds of wall time to earn one microsecond back */
    struct bucket slot[LIMIT_SLOTS];
};

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int limiter_new(unsigned burst_s, struct limiter **out)
{
    struct limiter *l;

    if (!burst_s) {
        *out = NULL;
        return 0;
    }
    if (!(l = calloc(1, sizeof(*l))))
        return -ENOMEM;
    pthread_mutex_init(&l->lock, NULL);
    l->cap_us[0] = (int64_t)burst_s * 1000000;
    l->cap_us[1] = l->cap_us[0] / 4;
    /* the whole bucket back in LIMIT_REFILL_DIVISOR seconds, whatever its size */
    l->refill_ns_per_us[0] = LIMIT_REFILL_DIVISOR * 1000ull / burst_s;
    if (!l->refill_ns_per_us[0])
        l->refill_ns_per_us[0] = 1;
    l->refill_ns_per_us[1] = l->refill_ns_per_us[0] * 4;
    *out = l;
    return 0;
}

void limiter_free(struct limiter *l)
{
    if (!l)
        return;
    pthread_mutex_destroy(&l->lock);
    free(l);
}

const char *limit_key(const struct request *req)
{
    return route_token(req);
}

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */

    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Bring @b up to date at @now: what it earned back since, up to its cap. */
static void refill(const struct limiter *l, int kind, struct bucket *b, uint64_t now)
{
    uint64_t earned = (now - b->at_ns) / l->refill_ns_per_us[kind];

    if (earned >= (uint64_t)(l->cap_us[kind] - b->left_us))
        b->left_us = l->cap_us[kind];
    else
        b->left_us += (int64_t)earned;
    b->at_ns = now;
}

/* The bucket of @key (kind 0: address, 1: token), brought up to date; NULL
 * when the table has no room for it.  Under the lock. */
static struct bucket *bucket_of(struct limiter *l, int kind, const char *key, uint64_t now)
{
    char k[LIMIT_KEY];
    struct bucket *spare = NULL;
    uint64_t h;

    snprintf(k, sizeof(k), "%c %s", kind ? 't' : 'a', key);
    h = hash(k);
    for (unsigned i = 0; i < LIMIT_PROBE; i++) {
        struct bucket *b = &l->slot[(h + i) & (LIMIT_SLOTS - 1)];

        if (!b->key[0]) {
            spare = spare ? spare : b;
            break; /* never used: the key is not further on */
        }
        if (!strcmp(b->key, k)) {
            refill(l, kind, b, now);
            return b;
        }
        if (!spare) {
            int bk = b->key[0] == 't';

            refill(l, bk, b, now);
            if (b->left_us == l->cap_us[bk])
                spare = b; /* full again: as good as empty */
        }
    }
    if (!spare)
        return NULL;
    snprintf(spare->key, sizeof(spare->key), "%s", k);
    spare->left_us = l->cap_us[kind];
    spare->at_ns = now;
    return spare;
}

bool limiter_allow(struct limiter *l, const struct request *req, unsigned *retry)
{
    const char *keys[2] = {req->client, limit_key(req)};
    uint64_t now = now_ns(), wait_ns = 0;

    if (!l)
        return true;
    pthread_mutex_lock(&l->lock);
    for (int kind = 0; kind < 2; kind++) {
        struct bucket *b = keys[kind] ? bucket_of(l, kind, keys[kind], now) : NULL;

        if (b && b->left_us <= 0) {
            uint64_t w = (uint64_t)(1 - b->left_us) * l->refill_ns_per_us[kind];

            wait_ns = w > wait_ns ? w : wait_ns;
        }
    }
    pthread_mutex_unlock(&l->lock);
    *retry = (unsigned)(wait_ns / 1000000000ull) + 1;
    return wait_ns == 0;
}

void limiter_charge(struct limiter *l, const struct request *req, uint64_t cpu_us)
{
    const char *keys[2] = {req->client, limit_key(req)};
    uint64_t now = now_ns();

    if (!l)
        return;
    if (cpu_us < LIMIT_MIN_CHARGE_US)
        cpu_us = LIMIT_MIN_CHARGE_US;
    if (cpu_us > (uint64_t)INT64_MAX / 2)
        cpu_us = (uint64_t)INT64_MAX / 2;
    pthread_mutex_lock(&l->lock);
    for (int kind = 0; kind < 2; kind++) {
        struct bucket *b = keys[kind] ? bucket_of(l, kind, keys[kind], now) : NULL;

        if (b)
            b->left_us -= (int64_t)cpu_us;
    }
    pthread_mutex_unlock(&l->lock);
}
